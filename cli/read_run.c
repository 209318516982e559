/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_run.c - read's loop: frames from the source through the pipeline, the
 * statistics and -w, the printer; on one thread or --threads N.
 */
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "read_int.h"

#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/stats.h>

/* -a: whether a stop condition other than the count has come. */
static bool
autostop_due(const struct read_opts *ro, struct rs_writer *w, const struct timespec *t0)
{
    return (ro->stop_bytes != 0 && rs_writer_file_size(w) >= ro->stop_bytes) ||
           (ro->stop_seconds != 0 && cli_seconds_since(t0) >= (double)ro->stop_seconds);
}

/* One line for n HTTP messages or TLS records over TCP segments not desegmented, and why. */
static void
say_not_desegmented(uint64_t n, const char *why)
{
    fprintf(stderr, "read: %llu HTTP %s over TCP segments %s not desegmented: %s\n",
            (unsigned long long)n,
            n == 1 ? "message or TLS record" : "messages or TLS records", n == 1 ? "was" : "were",
            why);
}

/* The bounds of docs/limits.md that lose something no -z line shows, said on stderr
 * only when hit: stdout keeps tshark's formats, which scripts parse, and the exit code
 * stays 0, since what was read was read. "read:" as capture's counts begin "capture:";
 * "roceshark:" begins errors (the CLI contract). */
static void
print_bounds_hit(const struct read_opts *ro, const struct rs_pipeline *pipe,
                 const struct rs_pipeline_opts *opts)
{
    for (size_t i = 0; i < ro->n_stats; i++) {
        uint64_t merged = rs_stat_rows_merged(ro->stats[i]);
        if (merged > 0)
            fprintf(stderr, "read: -z %s: the capture spans %llu intervals more than the "
                    "%llu rows io,stat prints: their frames are counted in the last row\n",
                    ro->stat_specs[i], (unsigned long long)merged,
                    (unsigned long long)rs_stat_rows_max(ro->stats[i]));
    }
    uint64_t cut = rs_field_frames_cut();
    const struct rs_streams *streams = rs_pipeline_streams(pipe);
    uint64_t forgotten = streams != NULL ? rs_streams_counts(streams).evicted : 0;
    uint64_t pdus_cut = streams != NULL ? rs_streams_counts(streams).pdus_cut : 0;
    uint64_t unkept = streams != NULL ? rs_streams_counts(streams).pdus_unkept : 0;

    if (cut > 0)
        fprintf(stderr, "read: %llu %s a field with more than %d occurrences: those after "
                "the %dth were not printed or filtered on\n", (unsigned long long)cut,
                cut == 1 ? "frame had" : "frames had", RS_MAX_OCCURRENCES, RS_MAX_OCCURRENCES);
    if (forgotten > 0)
        fprintf(stderr, "read: %llu %s forgotten by the TCP and UDP stream table (it holds "
                "%u): one that came back got a new tcp.stream or udp.stream\n",
                (unsigned long long)forgotten, forgotten == 1 ? "conversation" : "conversations",
                opts->streams_opts.max_streams);
    char why[160];
    if (pdus_cut > 0)
        say_not_desegmented(pdus_cut, "a segment was missing, cut short or out of order, or "
                            "the conversation was forgotten");
    snprintf(why, sizeof(why), "longer than the %u bytes kept of one, or past the %llu kept "
             "of all at once (their segments stay data)", opts->streams_opts.max_pdu_bytes,
             (unsigned long long)opts->streams_opts.max_pdu_memory);
    if (unkept > 0)
        say_not_desegmented(unkept, why);
}

/* -M: tshark's session reset. Every N frames read, its dissection starts afresh: the
 * frames are numbered from 1 again and every conversation's state is forgotten (our
 * pipeline's stateful stages are built anew), while the statistics (its taps), the
 * times since the first frame and the frame shown last carry on. tshark finds the frame
 * a delta is from by its number, frame 1 being always the first frame read: so a
 * session's frame 1 has a delta of 0, its frame 2 the time since the first frame of all,
 * and a frame whose number is that of the frame shown last, in an earlier session, is
 * timed from it (the display filter's delta and -t dd's column follow the same rule in
 * the pipeline: rs_pipeline_analyze()). */
struct read_session {
    unsigned long long number;  /* frames of the current session */
    unsigned long long resets;
    unsigned long long shown_number;    /* the frame shown last: its number, */
    unsigned long long shown_session;   /* its session (resets before it) */
    struct rs_time shown_time;          /* and its time */
    bool shown_any;
    int rc;                     /* a reset without memory */
};

/* What one read's loop keeps, whichever runs it: the serial loop or the threads. */
struct read_run {
    struct read_opts *ro;
    struct rs_pipeline *pipe;
    struct read_session session;
    struct rs_source *src;
    struct rs_writer *w;
    struct cli_progress pg;
    double size;                /* the file's, for the progress line; 0 unknown */
    struct timespec t0;
    unsigned long long read;
    int rc;                     /* the source's last answer */
    int save_rc;
    char err[RS_ERRBUF_SIZE];
};

/* -M: the frame renumbered in its session, the pipeline reset before a session's first
 * frame; false when the reset found no memory. */
static bool
session_next(struct read_run *run, struct rs_frame *frame)
{
    struct read_session *s = &run->session;
    char err[RS_ERRBUF_SIZE];

    if (s->number == run->ro->session_frames) {
        if ((s->rc = rs_pipeline_reset(run->pipe, err)) != 0)
            return false;
        s->number = 0;
        s->resets++;
    }
    frame->original = frame->number;
    frame->number = ++s->number;
    if (frame->number == 1)
        frame->delta = (struct rs_time){0, 0};
    else if (frame->number == 2)
        frame->delta = frame->rel;
    else if (s->shown_any && s->shown_number == frame->number - 1 &&
             s->shown_session != s->resets)
        frame->delta = rs_time_sub(rs_frame_time(frame), s->shown_time);
    return true;
}

/* The next frame to run through the pipeline: 1, or 0 at the end (-c, -a, the source's
 * end or error in run->rc). */
static int
run_next(void *ctx, struct rs_frame *frame, uint64_t *cookie)
{
    struct read_run *run = ctx;
    struct read_opts *ro = run->ro;

    *cookie = 0;
    while ((ro->count == 0 || run->read < ro->count) &&
           !autostop_due(ro, run->w, &run->t0) &&
           (run->rc = rs_source_next(run->src, frame, run->err)) >= 1) {
        if (run->rc == RS_SOURCE_IDLE)
            continue;       /* a live read with -a duration: the clock is looked at */
        run->read++;
        if ((run->read & 0xfff) == 0 && cli_progress_due(&run->pg, false) >= 0) {
            int64_t at = rs_source_offset(run->src);
            if (run->size > 0 && at >= 0)
                cli_progress_line(&run->pg, "read: %llu frames, %.0f%% of %s", run->read,
                                  100.0 * (double)at / run->size, ro->file);
            else
                cli_progress_line(&run->pg, "read: %llu frames", run->read);
        }
        /* -2 alone decodes every frame, as tshark's second pass does */
        if (ro->two_pass && ro->read_filter != NULL && !read_pass_keep(&ro->pass, frame))
            continue;
        if (ro->session_frames != 0 && !session_next(run, frame))
            return 0;
        return 1;
    }
    return 0;
}

/* Every frame, once analyzed, in capture order: the statistics, and -w for those shown.
 * Non-zero when -w failed. */
static int
run_tally(void *ctx, const struct rs_frame *frame, const struct rs_pipeline_result *r,
          uint64_t cookie)
{
    struct read_run *run = ctx;
    struct read_opts *ro = run->ro;

    (void)cookie;

    for (size_t i = 0; i < ro->n_stats; i++)
        rs_stat_packet(ro->stats[i], &r->pkt);
    if (r->match && run->w != NULL)
        run->save_rc = read_save_frame(run->w, frame);
    if (r->match) {
        run->session.shown_any = true;
        run->session.shown_number = frame->number;
        run->session.shown_session = run->session.resets;
        run->session.shown_time = rs_frame_time(frame);
    }
    return run->save_rc;
}

static void
run_format(void *ctx, struct rs_out *out, const struct rs_packet *pkt, bool first)
{
    read_print_frame(out, ((struct read_run *)ctx)->ro, pkt, first);
}

/* --threads 1: each frame through the pipeline, printed and written at once. */
static unsigned long long
read_serial(struct read_run *run, struct rs_pipeline *pipe, struct rs_out *out)
{
    struct rs_frame frame;
    uint64_t cookie;
    unsigned long long shown = 0;

    while (!out->failed && run->save_rc == 0 && run_next(run, &frame, &cookie) == 1) {
        const struct rs_pipeline_result *r = rs_pipeline_process(pipe, &frame);
        run_tally(run, &frame, r, cookie);
        if (!r->match)
            continue;
        if (!run->ro->quiet)
            read_print_frame(out, run->ro, &r->pkt, shown == 0);
        shown++;
    }
    return shown;
}

int
read_run_frames(struct rs_source *src, struct read_opts *ro, struct rs_pipeline *pipe,
            struct rs_out *out, struct rs_writer *w)
{
    struct read_run run = {.ro = ro, .pipe = pipe, .src = src, .w = w, .rc = 0};
    unsigned long long shown = 0;
    int rc = 0;

    const struct read_printer *printer = ro->printer;
    if (printer->begin != NULL && !ro->quiet)
        printer->begin(out, ro);
    /* -q and -z print nothing until the end: on a terminal, a long run says how far it is. */
    struct stat sb;
    cli_progress_start(&run.pg, 1.0);
    run.pg.tty = run.pg.tty && ro->quiet;
    run.size = ro->file != NULL && stat(ro->file, &sb) == 0 && S_ISREG(sb.st_mode)
                   ? (double)sb.st_size : 0;
    clock_gettime(CLOCK_MONOTONIC, &run.t0);
    if (ro->threads > 1) {
        struct rs_pipeline_threads_ops ops = {.ctx = &run, .next = run_next,
                                              .tally = run_tally,
                                              .format = ro->quiet ? NULL : run_format};
        rc = rs_pipeline_run_threads(pipe, ro->threads, &ops, out, &shown);
    } else {
        shown = read_serial(&run, pipe, out);
    }
    cli_progress_end(&run.pg, false);
    ro->shown = shown;
    if (printer->end != NULL && !ro->quiet)
        printer->end(out, ro, shown > 0);
    struct rs_stat_stages at = {rs_pipeline_analyzer(pipe), rs_pipeline_iwarp(pipe)};
    for (size_t i = 0; i < ro->n_stats; i++)
        rs_stat_print(ro->stats[i], &at, out);
    if (rs_out_flush(out) != 0)
        return cli_fail(CLI_EXIT_OUTPUT, "writing output: write error");
    print_bounds_hit(ro, pipe, &ro->pipe);
    if (run.session.resets > 0)
        fprintf(stderr, "read: -M %llu: the session was started afresh %llu %s\n",
                ro->session_frames, run.session.resets,
                run.session.resets == 1 ? "time" : "times");
    if (rc != 0 || run.session.rc != 0)
        return cli_fail(CLI_EXIT_INTERNAL, "out of memory");
    if (run.save_rc != 0)
        return run.save_rc;
    if (run.rc < 0)
        return ro->iface != NULL ? cli_fail(CLI_EXIT_CAPTURE, "%s", run.err) :
                                   cli_fail(CLI_EXIT_INPUT, "%s: %s", ro->file, run.err);
    return CLI_EXIT_OK;
}
