/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pipeline.c - rs_pipeline_process() and rs_pipeline_feed(): decode, the
 * iWARP stage, the analysis and the display filter, in that order, once
 * per frame.
 *
 * The only place the stages are chained. It owns the stateful stages and
 * the result it hands back, so a consumer holds one object and no stage's
 * internals; see pipeline.h for the contract.
 *
 * Decoding needs nothing of earlier frames and the stateful stages do:
 * rs_pipeline_decode() and rs_pipeline_analyze() are the two halves, which
 * pipeline_threads.c runs on N threads over batches of frames.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/pipeline.h>


struct rs_pipeline {
    /* What decoding reads for every frame, on any thread. */
    struct rs_decode_opts decode;
    bool shared;
    /* What the stateful stages write, on lines of their own: sharing a line with
     * decoding's made two cores trade it for every frame. */
    alignas(64) pthread_mutex_t lock;  /* POSIX: ThreadSanitizer follows it */
    struct rs_pipeline_counts counts;
    struct rs_streams *streams;         /* NULL unless some output or the filter reads them */
    struct rs_iwarp *iwarp;
    struct rs_analyzer *analyzer;       /* NULL with the analysis off */
    struct rs_filter *filter;           /* NULL without one */
    rs_pipeline_sink *sink;
    void *sink_ctx;
    struct rs_pipeline_result result;
    bool shown_any;                     /* a frame passed the filter */
    bool last_shown_first;              /* the last one was numbered 1 */
    struct rs_time last_shown;          /* the last one's time */
    bool fed_any;
    struct rs_time first;               /* the first frame's time */
    /* What the stateful stages were built with: rs_pipeline_reset() builds them anew. */
    struct rs_streams_opts streams_opts;
    struct rs_iwarp_opts iwarp_opts;
    struct rs_analysis_opts analysis_opts;
    bool with_streams;
    bool with_analysis;
};

void
rs_pipeline_opts_init(struct rs_pipeline_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
    rs_decode_opts_init(&opts->decode);
    rs_iwarp_opts_init(&opts->iwarp);
    rs_streams_opts_init(&opts->streams_opts);
    rs_analysis_opts_init(&opts->analysis);
    opts->analyze = true;
}

static int
compile_filter(const char *text, struct rs_filter **out, char *err)
{
    *out = NULL;
    if (text == NULL || text[0] == '\0')
        return 0;
    return rs_filter_compile(text, out, err);
}

/* Does the filter read any of the fields named (a NULL-ended list)? */
static bool
filter_reads_any(const struct rs_filter *f, const char *const *names)
{
    for (size_t k = 0; f != NULL && names[k] != NULL; k++)
        if (rs_filter_uses(f, names[k]))
            return true;
    return false;
}

/* A filter on a checksum's status must see it computed, whatever the caller
 * chose to save time. */
static const char *const crc_fields[] = {"roceshark.icrc", "roceshark.vcrc",
                                         "roceshark.mpa.crc", NULL};

/* Every stage after decoding. The caller holds the lock when shared. */
static void
run_stateful(struct rs_pipeline *p, struct rs_pipeline_result *r)
{
    if (p->streams != NULL)
        rs_streams_process(p->streams, &r->pkt);
    if (!p->decode.disable_iwarp)
        rs_iwarp_process(p->iwarp, &r->pkt);
    if (p->analyzer != NULL)
        rs_analyzer_process_prepared(p->analyzer, &r->pkt, &r->prep, &r->facts);
    /* As tshark's one pass: from the frame shown before, or from this one (0). tshark
     * finds that frame by its number, and frame 1 is always its reference, the first frame
     * read: after a session reset (read -M), whose frames are numbered from 1 again, a frame
     * shown after the session's frame 1 is timed from the first frame of all. */
    struct rs_time t = rs_frame_time(r->pkt.frame);
    if (!p->fed_any) {
        p->fed_any = true;
        p->first = t;
    }
    r->pkt.delta_shown = !p->shown_any ? (struct rs_time){0, 0} :
                         rs_time_sub(t, p->last_shown_first ? p->first : p->last_shown);
    r->match = p->filter == NULL || rs_filter_match(p->filter, &r->pkt);
    if (r->match) {
        p->shown_any = true;
        p->last_shown = t;
        p->last_shown_first = r->pkt.frame->number == 1;
    }
    p->counts.frames++;
    p->counts.matched += r->match;
}

/* The stateful stages, as the options kept in p say. */
static int
new_stages(struct rs_pipeline *p, char *err)
{
    int rc;

    if ((p->with_streams && (rc = rs_streams_new(&p->streams_opts, &p->streams, err)) != 0) ||
        (rc = rs_iwarp_new(&p->iwarp_opts, &p->iwarp, err)) != 0 ||
        (p->with_analysis && (rc = rs_analyzer_new(&p->analysis_opts, &p->analyzer, err)) != 0))
        return rc;
    return 0;
}

static void
free_stages(struct rs_pipeline *p)
{
    rs_analyzer_free(p->analyzer);
    rs_iwarp_free(p->iwarp);
    rs_streams_free(p->streams);
    p->analyzer = NULL;
    p->iwarp = NULL;
    p->streams = NULL;
}

int
rs_pipeline_reset(struct rs_pipeline *p, char *err)
{
    rs_pipeline_lock(p);
    free_stages(p);
    int rc = new_stages(p, err);
    rs_pipeline_unlock(p);
    return rc;
}

int
rs_pipeline_new(const struct rs_pipeline_opts *opts, struct rs_pipeline **out, char *err)
{
    struct rs_pipeline *p = aligned_alloc(64, sizeof(*p));
    struct rs_iwarp_opts io = opts->iwarp;
    int rc;

    *out = NULL;
    if (p == NULL)
        return rs_error(err, RS_ENOMEM, "pipeline: out of memory");
    memset(p, 0, sizeof(*p));
    p->decode = opts->decode;
    p->shared = opts->shared;
    p->sink = opts->sink;
    p->sink_ctx = opts->sink_ctx;
    pthread_mutex_init(&p->lock, NULL);
    if ((rc = compile_filter(opts->filter, &p->filter, err)) != 0) {
        rs_pipeline_free(p);
        return rc;
    }
    if (filter_reads_any(p->filter, crc_fields))
        p->decode.verify_crc = true;
    /* The iWARP stage follows the decoder's view of ports and CRCs. */
    io.verify_crc = p->decode.verify_crc;
    io.n_ports = p->decode.n_iwarp_ports;
    memcpy(io.ports, p->decode.iwarp_ports, sizeof(io.ports));
    struct rs_streams_opts so = opts->streams_opts;
    bool filter_streams = filter_reads_any(p->filter, rs_streams_fields);
    so.tcp_only &= !filter_streams;     /* a filter may read udp.stream */
    p->streams_opts = so;
    p->iwarp_opts = io;
    p->analysis_opts = opts->analysis;
    p->with_streams = opts->streams || filter_streams;
    /* data, http and the like are as TCP's desegmentation leaves them: TCP alone will do */
    if (!p->with_streams && filter_reads_any(p->filter, rs_streams_tcp_fields)) {
        p->with_streams = true;
        p->streams_opts.tcp_only = true;
    }
    p->with_analysis = opts->analyze;
    if ((rc = new_stages(p, err)) != 0) {
        rs_pipeline_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

void
rs_pipeline_free(struct rs_pipeline *p)
{
    if (p == NULL)
        return;
    free_stages(p);
    rs_filter_free(p->filter);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

const struct rs_pipeline_result *
rs_pipeline_process(struct rs_pipeline *p, const struct rs_frame *frame)
{
    struct rs_pipeline_result *r = &p->result;

    rs_pipeline_decode(p, frame, r);
    rs_pipeline_analyze(p, r);
    return r;
}

void
rs_pipeline_decode(const struct rs_pipeline *p, const struct rs_frame *frame,
                   struct rs_pipeline_result *r)
{
    rs_decode_frame(frame, &p->decode, &r->pkt);
    r->prep.ready = false;
}

void
rs_pipeline_prepare(const struct rs_pipeline *p, struct rs_pipeline_result *r)
{
    if (p->with_analysis)
        rs_analyzer_prepare(&r->pkt, &r->prep);
}

void
rs_pipeline_analyze(struct rs_pipeline *p, struct rs_pipeline_result *r)
{
    rs_pipeline_lock(p);
    run_stateful(p, r);
    rs_pipeline_unlock(p);
}

void
rs_pipeline_feed(struct rs_pipeline *p, const struct rs_frame *frame, uint64_t cookie)
{
    p->sink(p->sink_ctx, frame, rs_pipeline_process(p, frame), cookie);
}

int
rs_pipeline_set_filter(struct rs_pipeline *p, const char *text, char *err)
{
    struct rs_filter *f;
    int rc = compile_filter(text, &f, err);

    if (rc != 0)
        return rc;
    rs_pipeline_lock(p);
    rs_filter_free(p->filter);
    p->filter = f;
    if (filter_reads_any(f, crc_fields))
        p->decode.verify_crc = true;    /* the iWARP stage keeps what it was built with */
    rs_pipeline_unlock(p);
    return 0;
}

struct rs_analyzer *
rs_pipeline_analyzer(const struct rs_pipeline *p)
{
    return p->analyzer;
}

struct rs_iwarp *
rs_pipeline_iwarp(const struct rs_pipeline *p)
{
    return p->iwarp;
}

const struct rs_streams *
rs_pipeline_streams(const struct rs_pipeline *p)
{
    return p->streams;
}

const struct rs_filter *
rs_pipeline_filter(const struct rs_pipeline *p)
{
    return p->filter;
}

struct rs_pipeline_counts
rs_pipeline_counts(const struct rs_pipeline *p)
{
    return p->counts;
}

void
rs_pipeline_lock(struct rs_pipeline *p)
{
    if (p->shared)
        pthread_mutex_lock(&p->lock);
}

void
rs_pipeline_unlock(struct rs_pipeline *p)
{
    if (p->shared)
        pthread_mutex_unlock(&p->lock);
}
