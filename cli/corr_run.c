/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corr_run.c - the captures of several points merged by time and fed to the matcher,
 * in three streaming steps (corr_run.h): the probe, the estimating pass, the matching
 * pass. A matching pass that prints no frame reads the sightings the estimating pass
 * spilled (corr_spill.c) rather than the captures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "corr_run.h"

void
corr_run_init(struct corr_run *r)
{
    memset(r, 0, sizeof(*r));
    rs_decode_opts_init(&r->decode);
    r->decode.verify_crc = false;
}

/* "0.1", "100ms", "250us", "2s" */
bool
corr_run_parse_window(const char *arg, int64_t *out)
{
    char *end;
    double v = strtod(arg, &end);
    double scale = 1e9;

    if (end == arg || v <= 0)
        return false;
    if (strcmp(end, "ms") == 0)
        scale = 1e6;
    else if (strcmp(end, "us") == 0)
        scale = 1e3;
    else if (strcmp(end, "s") != 0 && *end != '\0')
        return false;
    if (v * scale > 3600e9 || v * scale < 1)
        return false;
    *out = (int64_t)(v * scale);
    return true;
}

int
corr_run_add_file(struct corr_run *r, const char *file)
{
    if (r->n_files == r->files_cap) {
        unsigned cap = r->files_cap ? r->files_cap * 2 : 8;
        const char **files = cap > r->files_cap ? realloc(r->files, cap * sizeof(*files))
                                                : NULL;
        if (files == NULL)
            return cli_fail(CLI_EXIT_INTERNAL, "correlate: -r %s: out of memory", file);
        r->files = files;
        r->files_cap = cap;
    }
    r->files[r->n_files++] = file;
    return 0;
}

int
corr_run_parse_path(struct corr_run *r, const char *arg)
{
    unsigned n = 0, n_files = r->n_files;
    uint64_t *used = calloc(RS_CORR_MASK_WORDS(n_files), sizeof(*used));
    int rc = 0;

    free(r->path);
    r->path = calloc(n_files, sizeof(*r->path));
    if (used == NULL || r->path == NULL) {
        free(used);
        return cli_fail(CLI_EXIT_INTERNAL, "--path: out of memory");
    }
    for (const char *p = arg; *p != '\0';) {
        unsigned i;
        size_t len;
        if (!rs_corr_point_parse(p, &i, &len) || i >= n_files || rs_corr_mask_has(used, i) ||
            (p[len] != ',' && p[len] != '\0')) {
            n = UINT32_MAX;
            break;
        }
        rs_corr_mask_set(used, i);
        r->path[n++] = i;
        p += len;
        p += *p == ',';
    }
    if (n != n_files)
        rc = cli_fail(CLI_EXIT_USAGE, "--path %s: expected each of the points A to %s once, "
                      "comma-separated", arg, rs_corr_point_name(n_files - 1).s);
    free(used);
    return rc;
}

/* The arrays by point, for n_files points. */
static int
alloc_points(struct corr_run *r)
{
    unsigned n = r->n_files;

    r->clock = calloc(n, sizeof(*r->clock));
    r->drops = calloc(n, sizeof(*r->drops));
    r->drops_of = calloc(n, sizeof(*r->drops_of));
    r->n_drops = calloc(n, sizeof(*r->n_drops));
    r->spill = calloc(n, sizeof(*r->spill));
    r->src = calloc(n, sizeof(*r->src));
    r->head = calloc(n, sizeof(*r->head));
    r->head_sighting = calloc(n, sizeof(*r->head_sighting));
    r->live = calloc(n, sizeof(*r->live));
    if (r->clock == NULL || r->drops == NULL || r->drops_of == NULL || r->n_drops == NULL ||
        r->spill == NULL || r->src == NULL || r->head == NULL || r->head_sighting == NULL ||
        r->live == NULL)
        return cli_fail(CLI_EXIT_INTERNAL, "correlate: %u captures: out of memory", n);
    for (unsigned i = 0; i < n; i++)
        r->drops_of[i] = r->drops[i];
    return 0;
}

/* Asks for the line of f's ICRC, which ends the frame: the decoder reads the headers
 * alone, and rs_corr_key_of() missed the cache on every frame's last bytes. Asked as the
 * frame becomes its point's next, it arrives while the frames before it are matched. */
static void
prefetch_icrc(const struct rs_frame *f)
{
    if (f->caplen >= 4)
        __builtin_prefetch(f->data + f->caplen - 4);
}

/* The points' frames merged by time on the given clocks, fed to c (or, with a probe,
 * each file's first frames to the probe); with spill, each point's sightings are also
 * written to its spill (the estimating pass of a run that prints no frame). */
static int
run_pass(struct corr_run *r, struct rs_corr *c, struct rs_corr_probe *probe,
         struct corr_spill *spill, const struct rs_corr_clock *clock, const char *what)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source **src = r->src;
    struct rs_frame *head = r->head;
    bool *live = r->live;
    struct rs_packet pkt;
    struct cli_progress pg;
    uint64_t fed = 0;
    int rc = 0;

    cli_progress_start(&pg, 1.0);
    memset(src, 0, r->n_files * sizeof(*src));
    memset(live, 0, r->n_files * sizeof(*live));
    for (unsigned i = 0; i < r->n_files; i++) {
        if (rs_source_open_file(r->files[i], &src[i], err) != 0) {
            rc = cli_fail(CLI_EXIT_INPUT, "%s", err);
            goto done;
        }
        int n = rs_source_next(src[i], &head[i], err);
        if (n < 0) {
            rc = cli_fail(CLI_EXIT_INPUT, "%s: %s", r->files[i], err);
            goto done;
        }
        live[i] = n == 1;
        if (live[i])
            prefetch_icrc(&head[i]);
    }
    for (;;) {
        int best = -1;
        int64_t best_t = 0;
        for (unsigned i = 0; i < r->n_files; i++) {
            if (!live[i])
                continue;
            int64_t t = rs_corr_clock_map(&clock[i], rs_time_to_ns(rs_frame_time(&head[i])));
            if (best < 0 || t < best_t)
                best = (int)i, best_t = t;
        }
        if (best < 0)
            break;
        rs_decode_frame(&head[best], &r->decode, &pkt);
        if (probe != NULL) {
            if (!rs_corr_probe_add(probe, (unsigned)best, &head[best], &pkt))
                live[best] = false;
        } else if (spill != NULL) {
            struct rs_corr_sighting s;
            rs_corr_sighting_of(&head[best], &pkt, &s);
            rs_corr_feed_sighting(c, (unsigned)best, &s);
            corr_spill_put(&spill[best], &s);
        } else {
            rs_corr_feed(c, (unsigned)best, &head[best], &pkt);
        }
        if ((++fed & 0xffff) == 0 && cli_progress_due(&pg, false) >= 0)
            cli_progress_line(&pg, "correlate: %s: %llu frames", what,
                              (unsigned long long)fed);
        if (!live[best])
            continue;
        int n = rs_source_next(src[best], &head[best], err);
        if (n < 0) {
            rc = cli_fail(CLI_EXIT_INPUT, "%s: %s", r->files[best], err);
            goto done;
        }
        live[best] = n == 1;
        if (live[best])
            prefetch_icrc(&head[best]);
    }
    if (c != NULL)
        rs_corr_flush(c);
    for (unsigned i = 0; i < r->n_files; i++) {
        const struct rs_source_drop_span *d;
        size_t n = rs_source_drop_spans(src[i], &d);
        for (size_t k = 0; k < n; k++)
            r->drops[i][k] = (struct rs_corr_drop_span){d[k].from_ns, d[k].to_ns, d[k].drops};
        r->n_drops[i] = (unsigned)n;
    }
done:
    cli_progress_end(&pg, false);
    for (unsigned i = 0; i < r->n_files; i++) {
        rs_source_close(src[i]);
        src[i] = NULL;
    }
    return rc;
}

static void close_spills(struct corr_run *r);

/* run_pass() on the points' spills: the same merge of the same frames, with no capture
 * read or decoded. */
static int
run_spilled(struct corr_run *r, struct rs_corr *c, const struct rs_corr_clock *clock,
            const char *what)
{
    const struct rs_corr_sighting **head = r->head_sighting;
    struct cli_progress pg;
    uint64_t fed = 0;
    bool failed = false;

    cli_progress_start(&pg, 1.0);
    for (unsigned i = 0; i < r->n_files; i++)
        head[i] = corr_spill_next(&r->spill[i], &failed);
    for (;;) {
        int best = -1;
        int64_t best_t = 0;
        for (unsigned i = 0; i < r->n_files; i++) {
            if (head[i] == NULL)
                continue;
            int64_t t = rs_corr_clock_map(&clock[i], head[i]->t);
            if (best < 0 || t < best_t)
                best = (int)i, best_t = t;
        }
        if (best < 0)
            break;
        rs_corr_feed_sighting(c, (unsigned)best, head[best]);
        if ((++fed & 0xffff) == 0 && cli_progress_due(&pg, false) >= 0)
            cli_progress_line(&pg, "correlate: %s: %llu frames", what,
                              (unsigned long long)fed);
        head[best] = corr_spill_next(&r->spill[best], &failed);
    }
    cli_progress_end(&pg, false);
    if (failed)
        return cli_fail(CLI_EXIT_INPUT, "correlate: reading back the frames' records in "
                        "$TMPDIR: read error");
    rs_corr_flush(c);
    return 0;
}

/* A spill per point for a run that prints no frame; none when one cannot be made. */
static void
open_spills(struct corr_run *r)
{
    for (unsigned i = 0; i < r->n_files; i++) {
        if (!corr_spill_open(&r->spill[i])) {
            close_spills(r);
            return;
        }
    }
    r->spilling = true;
}

static void
close_spills(struct corr_run *r)
{
    for (unsigned i = 0; r->spill != NULL && i < r->n_files; i++)
        corr_spill_close(&r->spill[i]);
    r->spilling = false;
}

static void
print_clock_lines(const struct corr_run *r)
{
    for (unsigned p = 1; p < r->n_files; p++) {
        if (!r->clock[p].known)
            fprintf(stderr, "correlate: %s (%s): no packet matched A's or another's: its "
                    "clock is unknown\n", rs_corr_point_name(p).s, r->files[p]);
        else if (r->clock[p].bound < 0)
            fprintf(stderr, "correlate: %s (%s): packets matched one way only: its offset "
                    "takes the fastest as no delay, and has no bound\n",
                    rs_corr_point_name(p).s, r->files[p]);
    }
}

int
corr_run_prepare(struct corr_run *r)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_corr_probe *probe = NULL;
    struct rs_corr_opts opts;
    struct rs_corr_clock *coarse;
    int rc;

    if ((rc = alloc_points(r)) != 0)
        return rc;
    if (rs_corr_probe_new(r->n_files, &probe) != 0)
        return cli_fail(CLI_EXIT_INTERNAL, "correlate: %u captures: out of memory",
                        r->n_files);
    /* the coarse clocks, until the fitted ones replace them */
    coarse = r->clock;
    if ((rc = run_pass(r, NULL, probe, NULL, coarse, "probe")) != 0) {
        rs_corr_probe_free(probe);
        return rc;
    }
    rs_corr_probe_clocks(probe, coarse);
    memset(&opts, 0, sizeof(opts));
    opts.n_points = r->n_files;
    opts.window = r->window;
    opts.window_from = RS_CORR_WINDOW_FROM_GIVEN;
    if (r->window == 0) {
        /* none given: from the delays the probe measured, widened below by what the
         * estimating pass measures over the whole captures */
        opts.window = rs_corr_window_for_delay(rs_corr_probe_delay_max(probe));
        opts.window_from = rs_corr_probe_delay_max(probe) >= 0 ? RS_CORR_WINDOW_FROM_DELAYS
                                                               : RS_CORR_WINDOW_FROM_DEFAULT;
    }
    rs_corr_probe_free(probe);
    opts.collect = true;
    opts.path = r->path;
    opts.clock = coarse;
    if (rs_corr_new(&opts, NULL, NULL, &r->est, err) != 0)
        return cli_fail(CLI_EXIT_INTERNAL, "%s", err);
    if (r->no_frames)
        open_spills(r);
    if ((rc = run_pass(r, r->est, NULL, r->spilling ? r->spill : NULL, coarse,
                       "estimating the clocks")) != 0)
        return rc;
    for (unsigned i = 0; i < r->n_files && r->spilling; i++)
        if (!corr_spill_rewind(&r->spill[i]))
            close_spills(r);    /* a write failed: the matching pass reads the captures */
    /* the estimating pass holds its own copy of the coarse clocks it ran with */
    rs_corr_clocks(r->est, r->clock);
    print_clock_lines(r);
    r->estimated = rs_corr_counts(r->est);
    if (r->window == 0 && r->estimated.delay_max > 0) {
        int64_t w = rs_corr_window_for_delay(r->estimated.delay_max);
        opts.window = w > opts.window ? w : opts.window;
        opts.window_from = RS_CORR_WINDOW_FROM_DELAYS;
    }
    opts.collect = false;
    opts.no_frames = r->no_frames;      /* statistics only: no frame is held */
    opts.drops = r->drops_of;
    opts.n_drops = r->n_drops;
    opts.clock = r->clock;
    r->match_opts = opts;
    return 0;
}

int
corr_run_match(struct corr_run *r)
{
    char err[RS_ERRBUF_SIZE];

    if (rs_corr_new(&r->match_opts, r->sink, r->ctx, &r->fin, err) != 0)
        return cli_fail(CLI_EXIT_INTERNAL, "%s", err);
    rs_corr_use_paths(r->fin, r->est);
    if (r->spilling && r->match_opts.no_frames)
        return run_spilled(r, r->fin, r->clock, "matching");
    return run_pass(r, r->fin, NULL, NULL, r->clock, "matching");
}

void
corr_run_free(struct corr_run *r)
{
    rs_corr_free(r->fin);
    rs_corr_free(r->est);
    r->fin = r->est = NULL;
    close_spills(r);
    free(r->files);
    free(r->path);
    free(r->clock);
    free(r->drops);
    free(r->drops_of);
    free(r->n_drops);
    free(r->spill);
    free(r->src);
    free(r->head);
    free((void *)r->head_sighting);
    free(r->live);
    r->files = NULL;
    r->path = NULL;
    r->clock = NULL;
    r->drops = NULL;
    r->drops_of = NULL;
    r->n_drops = NULL;
    r->spill = NULL;
    r->src = NULL;
    r->head = NULL;
    r->head_sighting = NULL;
    r->live = NULL;
    r->n_files = r->files_cap = 0;
}
