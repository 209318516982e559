/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwarp_fuzz.c - the stateful TCP/iWARP mutation generator. It builds cases
 * (iwarp_gen.c: connections with holes, reused 4-tuples, overlapping and
 * late segments, sequence numbers near 2^31 and 2^32, hostile MPA and DDP)
 * and runs each through what `roceshark read` runs, in-process:
 * rs_decode_frame, rs_iwarp_process, the analyzer and the statistics, then
 * every printer (summary lines, the -V tree, JSON, -T fields with every
 * field, -z expert, conv,qp and iwarp) into /dev/null.
 *
 * A case fails on a sanitizer report (the sanitized build), on an assertion
 * of the stage's own invariants (dissectors/iwarp/stream.c), or on a check
 * here: every PDU of a view is read over its captured length (so that
 * AddressSanitizer sees a view left pointing into a window that moved), its
 * markers lie in the view, the memory held stays within max_memory, and in a
 * clean case every FPDU built is found, whole, with no byte given up. Each
 * frame is decoded from a heap buffer of its exact size, freed before the
 * next, so reads past a frame and pointers kept across frames are seen too.
 *
 * usage: iwarp_fuzz [-t SECONDS] [-s SEED] [-n CASES] [-i CASE] [-w DIR]
 *        iwarp_fuzz -r FILE...
 *   -t  time budget (default 10 s)      -s  seed (default: from the clock)
 *   -n  stop after this many cases      -i  run only case CASE of the seed
 *   -w  write each case run to DIR/iwarp-SEED-CASE.pcap
 *   -r  run capture files instead (a corpus), with read's default options
 * The seed is printed first (seed=N). A failure names its case: `iwarp_fuzz
 * -s N -i CASE -w DIR` runs it alone and writes it for `roceshark read`.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/capture/pcapio.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/stats.h>

#include "iwarp_gen.h"

#include "../sanitizer.h"
#ifdef HAVE_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

struct run {
    FILE *devnull;
    struct rs_out out;
    int *field_ids;             /* every field, by its lowest alias id */
    size_t n_fields;
    struct rs_fields_fmt fmt;
    uint64_t cases, clean_cases, frames, streams;
    uint64_t events[GEN_N_EVENTS];
    struct rs_iwarp_stats stage;        /* summed over the cases */
    uint64_t pdus, markers, truncated, inferred, send_reasm;
    uint64_t touched;           /* a sum of every byte the views showed */
};

/* -T ek with every field's bytes: the JSON printers read the frame through the tree. */
static const struct rs_json_opts ek_opts = {.text = true, .raw = true};

/* One case (or file) going through the pipeline. */
struct pipeline {
    struct rs_pipeline *pipe;
    struct rs_iwarp *iw;                /* the pipeline's stage, for its statistics */
    struct rs_stat *stats[2];
    size_t n_stats;
    uint8_t *frame_copy;        /* the frame being shown, in a buffer of its size */
    uint64_t memory_bound;      /* max_memory, as the stage raises it */
    uint64_t frames;
    uint64_t truncated;
};

/* What a crash prints: written at each case's start, printed by the handlers. */
static char failure_note[256];

static void
print_failure_note(void)
{
    ssize_t n = write(STDERR_FILENO, failure_note, strlen(failure_note));
    (void)n;
}

static void
on_fatal_signal(int sig)
{
    print_failure_note();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* gcc links UBSan's runtime apart from ASan's: it ends with _exit(1) and
 * calls none of ASan's callbacks. Made to abort, it names the case too. */
const char *__ubsan_default_options(void);

const char *
__ubsan_default_options(void)
{
    return "abort_on_error=1:print_stacktrace=1";
}

static void
install_failure_handlers(void)
{
#ifdef HAVE_ASAN
    __sanitizer_set_death_callback(print_failure_note);
#else
    signal(SIGSEGV, on_fatal_signal);
    signal(SIGBUS, on_fatal_signal);
    signal(SIGFPE, on_fatal_signal);
#endif
    signal(SIGABRT, on_fatal_signal);      /* assert(), and UBSan without ASan */
}

static void
fail(const char *what, uint64_t frame)
{
    fprintf(stderr, "iwarp_fuzz: frame %llu: %s\n", (unsigned long long)frame, what);
    abort();
}

static void
pipe_open(struct run *run, struct pipeline *pl, const struct rs_iwarp_opts *iwarp,
          const struct rs_decode_opts *decode, bool analysis)
{
    char err[RS_ERRBUF_SIZE];

    struct rs_pipeline_opts opts;

    memset(pl, 0, sizeof(*pl));
    rs_print_jsonflat_begin(&run->out);
    rs_pipeline_opts_init(&opts);
    opts.decode = *decode;
    opts.iwarp = *iwarp;
    opts.analyze = analysis;
    /* The stage holds at least 128 KiB a direction, and at least that in all. */
    uint64_t buffer = iwarp->max_buffer > 131072 ? iwarp->max_buffer : 131072;
    pl->memory_bound = iwarp->max_memory > buffer ? iwarp->max_memory : buffer;
    if (rs_pipeline_new(&opts, &pl->pipe, err) != 0)
        fail(err, 0);
    pl->iw = rs_pipeline_iwarp(pl->pipe);
    if (analysis && rs_stat_new("conv,qp", &pl->stats[pl->n_stats++], err) != 0)
        fail(err, 0);
    if (rs_stat_new("expert", &pl->stats[pl->n_stats++], err) != 0)
        fail(err, 0);
}

/* Reads every byte the view shows and checks what it says of itself. */
static void
check_view(struct run *run, struct pipeline *pl, const struct rs_iwarp_view *v)
{
    uint64_t sum = 0;

    for (unsigned i = 0; i < v->n_pdus; i++) {
        const struct rs_iwarp_pdu *p = &v->pdus[i];
        if (p->kind < RS_MPA_REQUEST || p->kind > RS_MPA_FPDU)
            fail("a PDU of no known kind", pl->frames);
        if (p->caplen > p->len)
            fail("a PDU with more bytes captured than it has", pl->frames);
        if (p->caplen > 0 && p->data == NULL)
            fail("a PDU with bytes but no data", pl->frames);
        for (uint32_t k = 0; k < p->caplen; k++)
            sum += p->data[k];
        if ((uint32_t)p->first_marker + p->n_markers > v->n_markers)
            fail("a PDU's markers outside the view", pl->frames);
        if ((p->flags & RS_IWARP_PDU_SEND_REASM) && p->send_data != NULL)
            for (uint32_t k = 0; k < p->send_len; k++)
                sum += p->send_data[k];
        run->markers += p->n_markers;
        run->truncated += (p->flags & RS_IWARP_PDU_TRUNCATED) != 0;
        pl->truncated += (p->flags & RS_IWARP_PDU_TRUNCATED) != 0;
        run->inferred += (p->flags & RS_IWARP_PDU_INFERRED) != 0;
        run->send_reasm += (p->flags & RS_IWARP_PDU_SEND_REASM) != 0;
    }
    run->pdus += v->n_pdus;
    run->touched += sum;
}

static void
pipe_frame(struct run *run, struct pipeline *pl, const struct rs_frame *in)
{
    struct rs_frame fr = *in;
    struct rs_iwarp_stats st;

    /* The previous frame's bytes go now: nothing may point at them any more. */
    free(pl->frame_copy);
    pl->frame_copy = malloc(fr.caplen ? fr.caplen : 1);
    if (pl->frame_copy == NULL)
        fail("out of memory", pl->frames);
    memcpy(pl->frame_copy, in->data, fr.caplen);
    fr.data = pl->frame_copy;
    fr.number = ++pl->frames;
    const struct rs_packet *pkt = &rs_pipeline_process(pl->pipe, &fr)->pkt;
    for (size_t i = 0; i < pl->n_stats; i++)
        rs_stat_packet(pl->stats[i], pkt);
    if (pkt->iwarp != NULL)
        check_view(run, pl, pkt->iwarp);
    rs_iwarp_get_stats(pl->iw, &st);
    if (st.memory > pl->memory_bound || st.memory_peak < st.memory)
        fail("reassembly memory over its bound", pl->frames);
    rs_print_summary(&run->out, pkt);
    rs_print_tree(&run->out, pkt);
    rs_print_jsonflat(&run->out, pkt, pl->frames == 1);
    rs_print_ek(&run->out, pkt, &ek_opts);
    rs_print_fields(&run->out, &run->fmt, pkt, run->field_ids, run->n_fields);
    run->frames++;
}

static void
pipe_close(struct run *run, struct pipeline *pl, struct rs_iwarp_stats *st)
{
    rs_print_jsonflat_end(&run->out);
    struct rs_stat_stages at = {rs_pipeline_analyzer(pl->pipe), pl->iw};
    for (size_t i = 0; i < pl->n_stats; i++) {
        rs_stat_print(pl->stats[i], &at, &run->out);
        rs_stat_free(pl->stats[i]);
    }
    rs_iwarp_print_stats(pl->iw, &run->out);
    if (rs_out_flush(&run->out) != 0)
        fail("writing to /dev/null", pl->frames);
    rs_iwarp_get_stats(pl->iw, st);
    struct rs_iwarp_stats *s = &run->stage;
    s->connections += st->connections;
    s->evictions += st->evictions;
    s->fpdus += st->fpdus;
    s->crc_errors += st->crc_errors;
    s->retransmissions += st->retransmissions;
    s->out_of_order += st->out_of_order;
    s->buffer_limit_hits += st->buffer_limit_hits;
    s->bytes_lost += st->bytes_lost;
    s->resyncs += st->resyncs;
    rs_pipeline_free(pl->pipe);
    free(pl->frame_copy);
}

static struct rs_frame
case_frame(const struct gen_case *gc, size_t i)
{
    const struct gen_frame *f = &gc->frames[i];
    struct rs_frame fr = {
        .data = gc->bytes + f->off, .caplen = f->caplen, .len = f->len,
        .linktype = RS_DLT_EN10MB, .number = i + 1,
        .ts_sec = (int64_t)(f->ts_ns / 1000000000u), .ts_nsec = (uint32_t)(f->ts_ns % 1000000000u),
        .rel = rs_time_from_ns((int64_t)(f->ts_ns - gc->frames[0].ts_ns)),
        .delta = rs_time_from_ns(i == 0 ? 0 : (int64_t)(f->ts_ns - gc->frames[i - 1].ts_ns)),
        .ts_digits = 6,
    };
    return fr;
}

static void
run_case(struct run *run, const struct gen_case *gc)
{
    struct pipeline pl;
    struct rs_iwarp_stats st;

    pipe_open(run, &pl, &gc->iwarp, &gc->decode, gc->analysis);
    for (size_t i = 0; i < gc->n_frames; i++) {
        struct rs_frame fr = case_frame(gc, i);
        pipe_frame(run, &pl, &fr);
    }
    uint64_t truncated = pl.truncated;
    pipe_close(run, &pl, &st);
    if (gc->clean) {
        if (st.fpdus != gc->fpdus)
            fail("clean case: not every FPDU built was found", pl.frames);
        if (st.bytes_lost != 0 || truncated != 0 ||
            (gc->iwarp.verify_crc && st.crc_errors != 0))
            fail("clean case: bytes lost, FPDUs cut, or bad CRCs", pl.frames);
        run->clean_cases++;
    }
    run->cases++;
    run->streams += gc->streams;
    for (int e = 0; e < GEN_N_EVENTS; e++)
        run->events[e] += gc->events[e];
}

static int
write_case(const char *dir, uint64_t seed, uint64_t index, const struct gen_case *gc)
{
    char path[4096], err[RS_ERRBUF_SIZE];
    struct rs_writer *w;
    struct rs_writer_opts wo = {.path = path, .linktype = RS_DLT_EN10MB, .snaplen = 262144};

    snprintf(path, sizeof(path), "%s/iwarp-%llu-%llu.pcap", dir, (unsigned long long)seed,
             (unsigned long long)index);
    if (rs_writer_open(&wo, &w, err) != 0) {
        fprintf(stderr, "iwarp_fuzz: %s\n", err);
        return -1;
    }
    for (size_t i = 0; i < gc->n_frames; i++) {
        struct rs_frame fr = case_frame(gc, i);
        if (rs_writer_write(w, &fr, err) != 0)
            break;
    }
    if (rs_writer_close(w, NULL, err) != 0) {
        fprintf(stderr, "iwarp_fuzz: %s\n", err);
        return -1;
    }
    return 0;
}

/* A capture file, as `roceshark read -r FILE` with no options runs it. */
static int
run_file(struct run *run, const char *path)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;
    struct rs_iwarp_opts io;
    struct rs_decode_opts dopts;
    struct rs_frame fr;
    struct pipeline pl;
    struct rs_iwarp_stats st;
    int rc;

    if (rs_source_open_file(path, &src, err) != 0) {
        fprintf(stderr, "iwarp_fuzz: %s\n", err);
        return -1;
    }
    snprintf(failure_note, sizeof(failure_note), "iwarp_fuzz: failed on %s\n", path);
    rs_iwarp_opts_init(&io);
    rs_decode_opts_init(&dopts);
    pipe_open(run, &pl, &io, &dopts, true);
    while ((rc = rs_source_next(src, &fr, err)) == 1)
        pipe_frame(run, &pl, &fr);
    pipe_close(run, &pl, &st);
    rs_source_close(src);
    if (rc < 0) {
        fprintf(stderr, "iwarp_fuzz: %s: %s\n", path, err);
        return -1;
    }
    run->cases++;
    return 0;
}

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t
fresh_seed(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return ((uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 20) %
           1000000000000ull;
}

static void
run_init(struct run *run)
{
    memset(run, 0, sizeof(*run));
    run->devnull = fopen("/dev/null", "w");
    if (run->devnull == NULL || rs_out_init(&run->out, run->devnull, 1 << 20) != 0)
        fail("opening /dev/null", 0);
    rs_fields_fmt_init(&run->fmt);
    run->field_ids = malloc(sizeof(int) * (size_t)rs_field_count());
    if (run->field_ids == NULL)
        fail("out of memory", 0);
    for (int id = 0; id < rs_field_count(); id++)
        if (rs_field_lookup(rs_field_by_id(id)->abbrev) == id)
            run->field_ids[run->n_fields++] = id;
}

static void
run_report(const struct run *run, double secs, bool files)
{
    const struct rs_iwarp_stats *s = &run->stage;

    if (files)
        printf("iwarp_fuzz: %llu files, %llu frames in %.1f s\n",
               (unsigned long long)run->cases, (unsigned long long)run->frames, secs);
    else
        printf("iwarp_fuzz: %llu cases (%llu clean), %llu frames, %llu TCP streams in %.1f s: "
               "%.0f frames/s, %.0f streams/s\n",
               (unsigned long long)run->cases, (unsigned long long)run->clean_cases,
               (unsigned long long)run->frames, (unsigned long long)run->streams, secs,
               run->frames / secs, run->streams / secs);
    printf("stage: connections=%llu evictions=%llu fpdus=%llu crc_errors=%llu "
           "retransmissions=%llu out_of_order=%llu limit_hits=%llu bytes_lost=%llu "
           "resyncs=%llu\n",
           (unsigned long long)s->connections, (unsigned long long)s->evictions,
           (unsigned long long)s->fpdus, (unsigned long long)s->crc_errors,
           (unsigned long long)s->retransmissions, (unsigned long long)s->out_of_order,
           (unsigned long long)s->buffer_limit_hits, (unsigned long long)s->bytes_lost,
           (unsigned long long)s->resyncs);
    printf("views: pdus=%llu markers=%llu truncated=%llu inferred=%llu send_reassembled=%llu\n",
           (unsigned long long)run->pdus, (unsigned long long)run->markers,
           (unsigned long long)run->truncated, (unsigned long long)run->inferred,
           (unsigned long long)run->send_reasm);
    if (files)
        return;
    printf("mutations:");
    for (int e = 0; e < GEN_N_EVENTS; e++)
        printf(" %s=%llu", gen_event_name(e), (unsigned long long)run->events[e]);
    printf("\n");
}

static const char usage[] =
    "usage: iwarp_fuzz [-t SECONDS] [-s SEED] [-n CASES] [-i CASE] [-w DIR]\n"
    "       iwarp_fuzz -r FILE...\n";

int
main(int argc, char **argv)
{
    double budget = 10;
    uint64_t seed = fresh_seed(), max_cases = 0, only = 0;
    bool have_only = false, files = false;
    const char *dir = NULL;
    int c;

    while ((c = getopt(argc, argv, "t:s:n:i:w:rh")) != -1) {
        switch (c) {
        case 't':
            budget = strtod(optarg, NULL);
            break;
        case 's':
            seed = strtoull(optarg, NULL, 10);
            break;
        case 'n':
            max_cases = strtoull(optarg, NULL, 10);
            break;
        case 'i':
            only = strtoull(optarg, NULL, 10);
            have_only = true;
            break;
        case 'w':
            dir = optarg;
            break;
        case 'r':
            files = true;
            break;
        default:
            fputs(usage, c == 'h' ? stdout : stderr);
            return c == 'h' ? 0 : 1;
        }
    }
    static struct run run;
    run_init(&run);
    install_failure_handlers();
    double t0 = now_s();
    if (files) {
        if (optind == argc) {
            fputs(usage, stderr);
            return 1;
        }
        for (int i = optind; i < argc; i++)
            if (run_file(&run, argv[i]) != 0)
                return 2;
        run_report(&run, now_s() - t0, true);
        return 0;
    }
    printf("seed=%llu\n", (unsigned long long)seed);
    fflush(stdout);
    static struct gen_case gc;
    for (uint64_t i = have_only ? only : 0;; i++) {
        if (have_only ? i > only : (max_cases != 0 && i >= max_cases) ||
                                   (max_cases == 0 && now_s() - t0 >= budget))
            break;
        snprintf(failure_note, sizeof(failure_note),
                 "iwarp_fuzz: case %llu of seed %llu failed; replay it with: "
                 "iwarp_fuzz -s %llu -i %llu -w DIR\n", (unsigned long long)i,
                 (unsigned long long)seed, (unsigned long long)seed, (unsigned long long)i);
        gen_case_build(&gc, seed, i);
        if (dir != NULL && write_case(dir, seed, i, &gc) != 0)
            return 2;
        run_case(&run, &gc);
    }
    run_report(&run, now_s() - t0, false);
    gen_case_free(&gc);
    rs_out_free(&run.out);
    fclose(run.devnull);
    free(run.field_ids);
    return 0;
}
