/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * finish.c - a packet whose window has passed: where its conversation's path took it,
 * which points saw it, the delay of each segment, where it was lost or marked CE, what
 * a hop changed; counted in its conversation's segments and handed to the sink.
 */
#include <stdio.h>
#include <string.h>

#include "corr/corr_int.h"

const uint8_t *corr_copy_of(const struct rs_corr *c, const struct corr_entry *e);

/* The conversation's points, upstream first: learned by the estimating pass (the mean
 * time after a packet's first sighting orders them), else the packet's own sightings
 * in time order. A point the conversation never passed is not on its path. */
static void
path_of(const struct rs_corr *c, const struct corr_entry *e, struct rs_corr_view *v)
{
    const struct corr_conv *cv = c->learned != NULL ? corr_conv_learned(c->learned, e->convh)
                                                    : NULL;
    uint8_t n = 0;

    if (cv != NULL && cv->n_path > 0) {
        for (unsigned i = 0; i < cv->n_path; i++)
            v->path[n++] = cv->path[i];
        for (unsigned p = 0; p < c->opts.n_points; p++) {
            bool on = false;
            for (unsigned i = 0; i < n; i++)
                on |= v->path[i] == p;
            if (!on && (e->seen & (1u << p)))
                goto own;   /* seen where the conversation was not before: its own order */
        }
        v->n_path = n;
        return;
    }
own:
    n = 0;
    for (unsigned p = 0; p < c->opts.n_points; p++) {
        if (!(e->seen & (1u << p)))
            continue;
        unsigned i = n++;
        while (i > 0 && e->t[v->path[i - 1]] > e->t[p]) {
            v->path[i] = v->path[i - 1];
            i--;
        }
        v->path[i] = (uint8_t)p;
    }
    v->n_path = n;
}

/* Whether point p was capturing when e was first seen: from p's first RDMA frame, or
 * from the first sighting elsewhere of the first packet of e's conversation that p saw
 * (which p's first frame follows by a delay), to p's last frame; widened by the two
 * clocks' bounds (a packet lost near an end is not put outside by a clock that is off
 * within its bound). */
/* How far apart point p's clock and the clock of e's first sighting can be: the sum of
 * their bounds, or 0 while p's is unknown. */
static int64_t
clock_slack(const struct rs_corr *c, unsigned p, const struct corr_entry *e)
{
    int64_t bp = c->opts.clock[p].bound, bs = c->opts.clock[e->shown].bound;

    return bp > 0 && bs >= 0 ? bp + bs : 0;
}

static bool
capturing(const struct rs_corr *c, unsigned p, const struct corr_entry *e)
{
    const struct rs_corr *from = c->learned != NULL ? c->learned : c;
    const struct rs_corr_counts *k = &from->counts;
    const struct corr_conv *cv = corr_conv_learned(from, e->convh);
    int64_t slack = clock_slack(c, p, e);
    int64_t start = k->first[p];

    if (cv != NULL && cv->first_up[p] < start)
        start = cv->first_up[p];
    return e->t0 >= start - slack && e->t0 <= k->last[p] + slack;
}

/* Whether p's capturer recorded drops when e would have reached it (its first sighting,
 * up to the window later, widened by the clocks' bounds). */
static bool
capture_dropped(const struct rs_corr *c, unsigned p, const struct corr_entry *e)
{
    int64_t slack = clock_slack(c, p, e);

    for (unsigned i = 0; i < c->opts.n_drops[p]; i++) {
        const struct rs_corr_drop_span *d = &c->opts.drops[p][i];
        int64_t from = d->from == INT64_MIN ? INT64_MIN
                                            : rs_corr_clock_map(&c->opts.clock[p], d->from);
        int64_t to = rs_corr_clock_map(&c->opts.clock[p], d->to);
        if ((from == INT64_MIN || e->t0 + c->opts.window >= from - slack) &&
            e->t0 <= to + slack)
            return true;
    }
    return false;
}

static void
note_changes(struct rs_corr_view *v, unsigned s, const struct rs_corr_hdr *a,
             const struct rs_corr_hdr *b)
{
    static const char *const names[] = {"ip.ttl", "ip.dsfield.dscp", "ip.dsfield.ecn",
                                        "eth.src", "eth.dst", "vlan.id"};
    bool diff[6] = {
        a->ttl != b->ttl, a->dscp != b->dscp, a->ecn != b->ecn,
        a->has_eth && b->has_eth && memcmp(a->eth_src, b->eth_src, 6) != 0,
        a->has_eth && b->has_eth && memcmp(a->eth_dst, b->eth_dst, 6) != 0,
        a->vlan != b->vlan,
    };

    for (unsigned i = 0; i < 6; i++) {
        if (!diff[i] || v->n_changed >= RS_ARRAY_SIZE(v->changed))
            continue;
        /* Formatted aside and copied: gcc -O1 cannot tell that seg_text and changed, two
         * arrays of the same struct, never overlap (-Wrestrict). */
        char text[sizeof(v->changed[0])];
        snprintf(text, sizeof(text), "%s:%s", v->seg_text[s], names[i]);
        memcpy(v->changed[v->n_changed++], text, sizeof(text));
    }
}

static void
letters(char *buf, const uint8_t *points, unsigned n, char sep)
{
    unsigned k = 0;

    for (unsigned i = 0; i < n; i++) {
        if (i > 0)
            buf[k++] = sep;
        buf[k++] = rs_corr_point_name(points[i]);
    }
    buf[k] = '\0';
}

static void
make_view(const struct rs_corr *c, const struct corr_entry *e, struct rs_corr_view *v)
{
    uint8_t seen[P], missed[P];
    unsigned n_seen = 0, n_missed = 0, last_seen = 0;
    bool any = false;

    memset(v, 0, offsetof(struct rs_corr_view, seen_at));
    v->seen_at[0] = v->path_text[0] = v->lost_text[0] = v->ce_text[0] = '\0';
    v->missed_text[0] = '\0';
    v->n_changed = 0;
    v->n_points = (uint8_t)c->opts.n_points;
    v->shown = e->shown;
    v->seen = e->seen;
    v->conv = e->conv;
    v->lost_seg = v->ce_seg = -1;
    memcpy(v->t, e->t, sizeof(v->t));
    memcpy(v->number, e->number, sizeof(v->number));
    path_of(c, e, v);
    for (unsigned i = 0; i < v->n_path; i++) {
        unsigned p = v->path[i];
        if (e->seen & (1u << p)) {
            seen[n_seen++] = (uint8_t)p;
            last_seen = i;
            any = true;
        } else if (capturing(c, p, e)) {
            /* a point that missed it with one downstream that saw it, or upstream of
             * the first that did: the capture lost it, not the network (below: the
             * points after the last sighting) */
            missed[n_missed++] = (uint8_t)p;
        }
    }
    letters(v->seen_at, seen, n_seen, ',');
    letters(v->path_text, v->path, v->n_path, '>');
    for (unsigned s = 0; s + 1 < v->n_path; s++) {
        unsigned a = v->path[s], b = v->path[s + 1];
        /* per packet: written out, not through snprintf */
        v->seg_text[s][0] = rs_corr_point_name(a);
        v->seg_text[s][1] = '>';
        v->seg_text[s][2] = rs_corr_point_name(b);
        v->seg_text[s][3] = '\0';
        if (!(e->seen & (1u << a)) || !(e->seen & (1u << b)))
            continue;
        v->both[s] = true;
        v->delay[s] = e->t[b] - e->t[a];
        int64_t ba = c->opts.clock[a].bound, bb = c->opts.clock[b].bound;
        if (ba >= 0 && bb >= 0 && v->delay[s] < -(ba + bb))
            v->contradiction = true;
        if (e->hdr[a].ecn != 3 && e->hdr[b].ecn == 3 && v->ce_seg < 0)
            v->ce_seg = (int8_t)s;
        note_changes(v, s, &e->hdr[a], &e->hdr[b]);
    }
    /* lost after its last sighting, on the next segment, where that point was capturing */
    if (any && last_seen + 1 < v->n_path) {
        unsigned next = v->path[last_seen + 1];
        bool next_capturing = capturing(c, next, e);
        if (next_capturing && capture_dropped(c, next, e)) {
            /* the capture there recorded drops then: which loss, nobody can tell; a
             * capture miss, never a network loss */
            v->not_told = true;
            missed[n_missed++] = (uint8_t)next;
        } else if (next_capturing) {
            v->lost_seg = (int8_t)last_seen;
            /* not a capture miss: drop the points after the last sighting from missed */
            unsigned k = 0;
            for (unsigned i = 0; i < n_missed; i++) {
                bool after = false;
                for (unsigned j = last_seen + 1; j < v->n_path; j++)
                    after |= v->path[j] == missed[i];
                if (!after)
                    missed[k++] = missed[i];
            }
            n_missed = k;
        }
    } else if (any) {
        /* nothing after the last sighting; nothing to drop */
    }
    for (unsigned i = 0; i < n_missed; i++) {
        bool after = false;     /* after the last sighting with no loss: out of range */
        for (unsigned j = last_seen + 1; j < v->n_path; j++)
            after |= v->path[j] == missed[i];
        if (!after || (v->not_told && missed[i] == v->path[last_seen + 1]))
            v->missed |= (uint8_t)(1u << missed[i]);
    }
    uint8_t mp[P];
    unsigned nm = 0;
    for (unsigned i = 0; i < v->n_path; i++)
        if (v->missed & (1u << v->path[i]))
            mp[nm++] = v->path[i];
    letters(v->missed_text, mp, nm, ',');
    if (v->lost_seg >= 0)
        memcpy(v->lost_text, v->seg_text[v->lost_seg], sizeof(v->lost_text));
    if (v->ce_seg >= 0)
        memcpy(v->ce_text, v->seg_text[v->ce_seg], sizeof(v->ce_text));
}

static void
count_view(struct rs_corr *c, const struct corr_entry *e, const struct rs_corr_view *v)
{
    unsigned n_seen = (unsigned)__builtin_popcount(e->seen);

    c->counts.matched += n_seen >= 2;
    c->counts.lost += v->lost_seg >= 0;
    c->counts.ce_marked += v->ce_seg >= 0;
    c->counts.missed += v->missed != 0;
    c->counts.not_told += v->not_told;
    c->counts.contradictions += v->contradiction;
    if (e->conv == UINT32_MAX)
        return;
    struct corr_conv *cv = &c->conv[e->conv];
    cv->packets++;
    if (cv->name[0] == '\0') {
        char addr[48];
        corr_addr_text(e, addr, sizeof(addr));
        snprintf(cv->name, sizeof(cv->name), "%s QP 0x%06x", addr, e->key.dqp);
    }
    /* the path is the conversation's, so its segments are the same packet to packet */
    if (cv->n_path < v->n_path) {
        cv->n_path = v->n_path;
        memcpy(cv->path, v->path, v->n_path);
    }
    for (unsigned s = 0; s + 1 < v->n_path && s + 1 < cv->n_path; s++) {
        if (!(e->seen & (1u << v->path[s])))
            continue;   /* never reached this segment's start: not its packet */
        corr_seg_add(&cv->seg[s], v->both[s] ? v->delay[s] : -1, v->lost_seg == (int)s,
                     v->ce_seg == (int)s, v->both[s] ? e->t[v->path[s + 1]] : INT64_MIN);
    }
}

/* The largest time between two sightings of one packet: the window the next pass needs. */
static void
note_delay(struct rs_corr *c, const struct corr_entry *e)
{
    for (unsigned i = 0; i < c->opts.n_points; i++) {
        if (!(e->seen & (1u << i)))
            continue;
        for (unsigned j = i + 1; j < c->opts.n_points; j++) {
            if (!(e->seen & (1u << j)))
                continue;
            int64_t d = e->t[j] - e->t[i];
            d = d < 0 ? -d : d;
            if (d > c->counts.delay_max)
                c->counts.delay_max = d;
        }
    }
}

void
corr_finish(struct rs_corr *c, struct corr_entry *e)
{
    if (e->seen & (e->seen - 1))
        note_delay(c, e);
    if (c->opts.collect) {
        corr_conv_learn(c, e);
        corr_clock_collect(c, e);
        return;
    }
    struct rs_corr_view v;

    make_view(c, e, &v);
    count_view(c, e, &v);
    if (c->sink != NULL && c->opts.no_frames) {
        c->sink(c->ctx, &v, NULL);
    } else if (c->sink != NULL) {
        struct rs_frame f = e->frame;
        f.data = corr_copy_of(c, e);
        if (f.data != NULL)
            c->sink(c->ctx, &v, &f);
    }
}
