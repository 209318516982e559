/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pipeline.c - rs_pipeline_process(): decode, the iWARP stage, the
 * analysis and the display filter, in that order, once per frame.
 *
 * The only place the stages are chained. It owns the stateful stages and
 * the result it hands back, so a consumer holds one object and no stage's
 * internals; see pipeline.h for the contract.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <roceshark/common.h>
#include <roceshark/pipeline.h>

struct rs_pipeline {
    struct rs_decode_opts decode;
    struct rs_streams *streams;         /* NULL unless some output or the filter reads them */
    struct rs_iwarp *iwarp;
    struct rs_analyzer *analyzer;       /* NULL with the analysis off */
    struct rs_filter *filter;           /* NULL without one */
    struct rs_pipeline_result result;
    struct rs_pipeline_counts counts;
    bool shared;
    bool held;          /* the feeding thread holds the lock across frames */
    GMutex lock;
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

/* A filter on a checksum's status must see it computed, whatever the caller
 * chose to save time. */
static bool
filter_reads_crc(const struct rs_filter *f)
{
    static const char *const crc_fields[] = {"roceshark.icrc", "roceshark.vcrc",
                                             "roceshark.mpa.crc"};

    for (size_t k = 0; f != NULL && k < RS_ARRAY_SIZE(crc_fields); k++)
        if (rs_filter_uses(f, crc_fields[k]))
            return true;
    return false;
}

/* Does the filter read a field the streams stage gives? */
static bool
filter_reads_streams(const struct rs_filter *f)
{
    for (size_t k = 0; f != NULL && rs_streams_fields[k] != NULL; k++)
        if (rs_filter_uses(f, rs_streams_fields[k]))
            return true;
    return false;
}

int
rs_pipeline_new(const struct rs_pipeline_opts *opts, struct rs_pipeline **out, char *err)
{
    struct rs_pipeline *p = calloc(1, sizeof(*p));
    struct rs_iwarp_opts io = opts->iwarp;
    int rc;

    *out = NULL;
    if (p == NULL)
        return rs_error(err, RS_ENOMEM, "pipeline: out of memory");
    p->decode = opts->decode;
    p->shared = opts->shared;
    g_mutex_init(&p->lock);
    if ((rc = compile_filter(opts->filter, &p->filter, err)) != 0) {
        rs_pipeline_free(p);
        return rc;
    }
    if (filter_reads_crc(p->filter))
        p->decode.verify_crc = true;
    /* The iWARP stage follows the decoder's view of ports and CRCs. */
    io.verify_crc = p->decode.verify_crc;
    io.n_ports = p->decode.n_iwarp_ports;
    memcpy(io.ports, p->decode.iwarp_ports, sizeof(io.ports));
    if (((opts->streams || filter_reads_streams(p->filter)) &&
         (rc = rs_streams_new(&opts->streams_opts, &p->streams, err)) != 0) ||
        (rc = rs_iwarp_new(&io, &p->iwarp, err)) != 0 ||
        (opts->analyze && (rc = rs_analyzer_new(&opts->analysis, &p->analyzer, err)) != 0)) {
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
    rs_analyzer_free(p->analyzer);
    rs_iwarp_free(p->iwarp);
    rs_streams_free(p->streams);
    rs_filter_free(p->filter);
    g_mutex_clear(&p->lock);
    free(p);
}

const struct rs_pipeline_result *
rs_pipeline_process(struct rs_pipeline *p, const struct rs_frame *frame)
{
    struct rs_pipeline_result *r = &p->result;

    bool lock = p->shared && !p->held;

    if (lock)
        g_mutex_lock(&p->lock);
    rs_decode_frame(frame, &p->decode, &r->pkt);
    if (p->streams != NULL)
        rs_streams_process(p->streams, &r->pkt);
    if (!p->decode.disable_iwarp)
        rs_iwarp_process(p->iwarp, &r->pkt);
    if (p->analyzer != NULL)
        rs_analyzer_process(p->analyzer, &r->pkt, &r->facts);
    r->match = p->filter == NULL || rs_filter_match(p->filter, &r->pkt);
    p->counts.frames++;
    p->counts.matched += r->match;
    if (lock)
        g_mutex_unlock(&p->lock);
    return r;
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
    if (filter_reads_crc(f))
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
rs_pipeline_hold(struct rs_pipeline *p)
{
    if (p->shared) {
        g_mutex_lock(&p->lock);
        p->held = true;
    }
}

void
rs_pipeline_release(struct rs_pipeline *p)
{
    if (p->shared && p->held) {
        p->held = false;
        g_mutex_unlock(&p->lock);
    }
}

void
rs_pipeline_lock(struct rs_pipeline *p)
{
    if (p->shared)
        g_mutex_lock(&p->lock);
}

void
rs_pipeline_unlock(struct rs_pipeline *p)
{
    if (p->shared)
        g_mutex_unlock(&p->lock);
}
