/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * graph.c - the points of the graph view: one conversation's PSNs over time
 * (the same struct rs_plot that `roceshark plot psn` draws as SVG) and its
 * bytes over time, gathered from the frame index as the capture grows.
 *
 * The index knows each frame's conversation, so only that conversation's
 * frames are read back and decoded; each update takes a bounded slice of
 * the index and of the reads, so the screen never waits long, and the next
 * update goes on where this one stopped. A conversation too long to keep
 * loses its oldest half, so a live graph keeps showing the newest traffic.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/plot.h>
#include <roceshark/dissectors/wire.h>

#include "model_int.h"

#define SCAN_PER_UPDATE 2000000u    /* index entries looked at per update */
#define READ_PER_UPDATE 20000u      /* frames read back per update */

struct graph_bytes {
    double t;               /* seconds since the plot's first request */
    uint32_t bytes;
};

struct rs_tui_graph {
    uint32_t conv;
    char *filter;           /* the pass it was built on: a new filter reads the file again */
    uint64_t next;          /* the next frame number to look at */
    struct rs_plot plot;
    struct graph_bytes *bytes;
    size_t n_bytes, cap_bytes;
    struct rs_tui_decoded dec;
    uint64_t dropped;       /* points dropped from the oldest end */
};

int
rs_tui_graph_new(struct rs_tui_graph **out, char *err)
{
    struct rs_tui_graph *g = calloc(1, sizeof(*g));

    if (g == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory for the graph");
    rs_plot_init(&g->plot, 0, 0);
    g->next = 1;
    *out = g;
    return 0;
}

static void
graph_reset(struct rs_tui_graph *g, uint32_t conv, const char *filter)
{
    rs_plot_free(&g->plot);
    rs_plot_init(&g->plot, conv, 0);
    free(g->filter);
    g->filter = strdup(filter);
    g->conv = conv;
    g->next = 1;
    g->n_bytes = 0;
    g->dropped = 0;
}

void
rs_tui_graph_free(struct rs_tui_graph *g)
{
    if (g == NULL)
        return;
    rs_plot_free(&g->plot);
    rs_tui_decoded_free(&g->dec);
    free(g->bytes);
    free(g->filter);
    free(g);
}

/* Drops the oldest half of what is kept. */
static void
drop_oldest(struct rs_tui_graph *g)
{
    struct rs_plot *pl = &g->plot;
    size_t keep = pl->n_pts / 2;
    double from = keep > 0 ? pl->pts[pl->n_pts - keep].t : 0;

    memmove(pl->pts, pl->pts + (pl->n_pts - keep), keep * sizeof(*pl->pts));
    g->dropped += pl->n_pts - keep;
    pl->n_pts = keep;
    size_t a = 0;
    while (a < pl->n_acks && pl->acks[a].t < from)
        a++;
    if (a > 0) /* acks is NULL while a conversation has none: memmove takes no NULL */
        memmove(pl->acks, pl->acks + a, (pl->n_acks - a) * sizeof(*pl->acks));
    pl->n_acks -= a;
    size_t b = 0;
    while (b < g->n_bytes && g->bytes[b].t < from)
        b++;
    if (b > 0)
        memmove(g->bytes, g->bytes + b, (g->n_bytes - b) * sizeof(*g->bytes));
    g->n_bytes -= b;
}

static int
add_frame(struct rs_tui_graph *g, struct rs_tui_model *m, uint64_t number,
          const struct rs_tui_frame *e, char *err)
{
    int rc = rs_tui_model_decode(m, number, &g->dec, err);

    if (rc != 0)
        return rc;
    struct rs_packet *pkt = &g->dec.pkt;
    if (pkt->facts == NULL || !rs_packet_has(pkt, RS_LAYER_BTH))
        return 0;
    bool had_base = g->plot.have_base;
    rs_plot_add_packet(&g->plot, pkt);
    if (!g->plot.have_base)
        return 0;
    if (!had_base)
        g->plot.qpn = rs_bth_destqp(rs_packet_at(pkt, RS_LAYER_BTH));
    struct graph_bytes *b = model_grow_array(g->bytes, &g->cap_bytes, g->n_bytes + 1,
                                             sizeof(*b));
    if (b == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory for the graph");
    g->bytes = b;
    struct rs_time t = {e->ts_sec, e->ts_nsec};
    g->bytes[g->n_bytes++] = (struct graph_bytes){
        rs_time_to_double(rs_time_sub(t, g->plot.t0)), e->wire_len};
    if (g->plot.n_pts > RS_TUI_GRAPH_POINTS)
        drop_oldest(g);
    return 0;
}

int
rs_tui_graph_update(struct rs_tui_graph *g, struct rs_tui_model *m, uint32_t conv, char *err)
{
    const char *filter = rs_tui_model_filter(m);
    uint64_t count = rs_tui_model_frame_count(m);

    if (conv != g->conv || g->filter == NULL || strcmp(filter, g->filter) != 0 ||
        count + 1 < g->next)
        graph_reset(g, conv, filter);
    if (conv == 0)
        return 0;
    unsigned scanned = 0, read = 0;
    while (g->next <= count && scanned < SCAN_PER_UPDATE && read < READ_PER_UPDATE) {
        struct rs_tui_frame e;
        if (!rs_tui_model_frame(m, g->next, &e))
            break;
        scanned++;
        if (e.conv == conv) {
            read++;
            int rc = add_frame(g, m, g->next, &e, err);
            if (rc != 0)
                return rc;
        }
        g->next++;
    }
    return 0;
}

bool
rs_tui_graph_caught_up(const struct rs_tui_graph *g, struct rs_tui_model *m)
{
    return g->next > rs_tui_model_frame_count(m);
}

uint64_t
rs_tui_graph_dropped(const struct rs_tui_graph *g)
{
    return g->dropped;
}

const struct rs_plot *
rs_tui_graph_plot(const struct rs_tui_graph *g)
{
    return &g->plot;
}

void
rs_tui_graph_throughput(const struct rs_tui_graph *g, double t0, double t1, double *out,
                        unsigned buckets)
{
    double width = buckets > 0 && t1 > t0 ? (t1 - t0) / buckets : 0;

    memset(out, 0, buckets * sizeof(*out));
    if (width <= 0)
        return;
    for (size_t i = 0; i < g->n_bytes; i++) {
        double x = (g->bytes[i].t - t0) / width;
        if (x < 0 || x > buckets)
            continue;
        unsigned k = x >= buckets ? buckets - 1 : (unsigned)x;
        out[k] += g->bytes[i].bytes;
    }
    for (unsigned k = 0; k < buckets; k++)
        out[k] /= width;
}
