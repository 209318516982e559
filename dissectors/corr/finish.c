/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * finish.c - a packet whose window has passed: where its conversation's path took it,
 * which points saw it, the delay of each segment, where it was lost or marked CE, what
 * a hop changed; counted in its conversation's segments and handed to the sink.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corr/corr_int.h"

const uint8_t *corr_copy_of(const struct rs_corr *c, const struct corr_entry *e);

/* The view's arrays and texts, for n points: made once with the matcher, so finishing
 * a packet allocates nothing. A text of points holds n names and their separators. */
int
corr_view_buf_init(struct corr_view_buf *vb, unsigned n)
{
    size_t words = RS_CORR_MASK_WORDS(n), names = (size_t)n * RS_CORR_NAME_SIZE;

    memset(vb, 0, sizeof(*vb));
    vb->max_changed = (n - 1) * CORR_CHANGE_KINDS;
    vb->seen = calloc(words, sizeof(uint64_t));
    vb->missed = calloc(words, sizeof(uint64_t));
    vb->path = calloc(n, sizeof(uint32_t));
    vb->seen_pts = calloc(n, sizeof(uint32_t));
    vb->missed_pts = calloc(n, sizeof(uint32_t));
    vb->both = calloc(n, sizeof(bool));
    vb->delay = calloc(n, sizeof(int64_t));
    vb->seen_at = calloc(names, 1);
    vb->path_text = calloc(names, 1);
    vb->missed_text = calloc(names, 1);
    vb->seg_texts = calloc(n, CORR_SEG_TEXT_SIZE);
    vb->seg_text = calloc(n, sizeof(char *));
    vb->changes = calloc(vb->max_changed, CORR_CHANGE_SIZE);
    vb->changed = calloc(vb->max_changed, sizeof(char *));
    if (vb->seen == NULL || vb->missed == NULL || vb->path == NULL || vb->seen_pts == NULL ||
        vb->missed_pts == NULL || vb->both == NULL || vb->delay == NULL ||
        vb->seen_at == NULL || vb->path_text == NULL || vb->missed_text == NULL ||
        vb->seg_texts == NULL || vb->seg_text == NULL || vb->changes == NULL ||
        vb->changed == NULL)
        return RS_ENOMEM;
    for (unsigned i = 0; i < n; i++)
        vb->seg_text[i] = vb->seg_texts + (size_t)i * CORR_SEG_TEXT_SIZE;
    for (unsigned i = 0; i < vb->max_changed; i++)
        vb->changed[i] = vb->changes + (size_t)i * CORR_CHANGE_SIZE;
    struct rs_corr_view *v = &vb->v;
    v->seen = vb->seen;
    v->missed = vb->missed;
    v->path = vb->path;
    v->both = vb->both;
    v->delay = vb->delay;
    v->seen_at = vb->seen_at;
    v->path_text = vb->path_text;
    v->missed_text = vb->missed_text;
    v->lost_text = vb->lost_text;
    v->ce_text = vb->ce_text;
    v->shown_text = vb->shown_text;
    v->seg_text = vb->seg_text;
    v->changed = vb->changed;
    return 0;
}

void
corr_view_buf_free(struct corr_view_buf *vb)
{
    free(vb->seen);
    free(vb->missed);
    free(vb->path);
    free(vb->seen_pts);
    free(vb->missed_pts);
    free(vb->both);
    free(vb->delay);
    free(vb->seen_at);
    free(vb->path_text);
    free(vb->missed_text);
    free(vb->seg_texts);
    free((void *)vb->seg_text);
    free(vb->changes);
    free((void *)vb->changed);
    memset(vb, 0, sizeof(*vb));
}

/* The conversation's points, upstream first: learned by the estimating pass (the mean
 * time after a packet's first sighting orders them), else the packet's own sightings
 * in time order. A point the conversation never passed is not on its path. */
static void
path_of(const struct rs_corr *c, const struct corr_entry *e, uint32_t *path, unsigned *n_path)
{
    const struct corr_conv *cv = c->learned != NULL ? corr_conv_learned(c->learned, e->convh)
                                                    : NULL;
    const uint64_t *seen = corr_seen(c, e);
    const int64_t *t = corr_t(c, e);
    unsigned n = 0;

    if (cv != NULL && cv->n_path > 0) {
        /* seen where the conversation was not before: its own order */
        unsigned on_path = 0;
        for (unsigned i = 0; i < cv->n_path; i++) {
            path[n++] = cv->path[i];
            on_path += rs_corr_mask_has(seen, cv->path[i]);
        }
        if (on_path == e->n_seen) {
            *n_path = n;
            return;
        }
    }
    n = 0;
    for (unsigned p = 0; p < c->n; p++) {
        if (!rs_corr_mask_has(seen, p))
            continue;
        unsigned i = n++;
        while (i > 0 && t[path[i - 1]] > t[p]) {
            path[i] = path[i - 1];
            i--;
        }
        path[i] = p;
    }
    *n_path = n;
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
    int64_t bp = c->clock[p].bound, bs = c->clock[e->shown].bound;

    return bp > 0 && bs >= 0 ? bp + bs : 0;
}

static bool
capturing(const struct rs_corr *c, unsigned p, const struct corr_entry *e)
{
    const struct rs_corr *from = c->learned != NULL ? c->learned : c;
    const struct rs_corr_point_counts *k = &from->pc[p];
    const struct corr_conv *cv = corr_conv_learned(from, e->convh);
    int64_t slack = clock_slack(c, p, e);
    int64_t start = k->first;

    if (cv != NULL && cv->first_up[p] < start)
        start = cv->first_up[p];
    return e->t0 >= start - slack && e->t0 <= k->last + slack;
}

/* Whether p's capturer recorded drops when e would have reached it (its first sighting,
 * up to the window later, widened by the clocks' bounds). */
static bool
capture_dropped(const struct rs_corr *c, unsigned p, const struct corr_entry *e)
{
    int64_t slack = clock_slack(c, p, e);

    for (unsigned i = 0; c->opts.drops != NULL && i < c->opts.n_drops[p]; i++) {
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
note_changes(struct corr_view_buf *vb, unsigned s, const struct rs_corr_hdr *a,
             const struct rs_corr_hdr *b)
{
    static const char *const names[CORR_CHANGE_KINDS] = {
        "ip.ttl", "ip.dsfield.dscp", "ip.dsfield.ecn", "eth.src", "eth.dst", "vlan.id"};
    bool diff[CORR_CHANGE_KINDS] = {
        a->ttl != b->ttl, a->dscp != b->dscp, a->ecn != b->ecn,
        a->has_eth && b->has_eth && memcmp(a->eth_src, b->eth_src, 6) != 0,
        a->has_eth && b->has_eth && memcmp(a->eth_dst, b->eth_dst, 6) != 0,
        a->vlan != b->vlan,
    };

    for (unsigned i = 0; i < CORR_CHANGE_KINDS; i++) {
        if (!diff[i] || vb->v.n_changed >= vb->max_changed)
            continue;
        snprintf(vb->changes + (size_t)vb->v.n_changed++ * CORR_CHANGE_SIZE, CORR_CHANGE_SIZE,
                 "%s:%s", vb->seg_text[s], names[i]);
    }
}

/* The names of n points, sep between them, into buf (room for n names); its end. */
static char *
letters(char *buf, const uint32_t *points, unsigned n, char sep)
{
    char *at = buf;

    for (unsigned i = 0; i < n; i++) {
        if (i > 0)
            *at++ = sep;
        struct rs_corr_name name = rs_corr_point_name(points[i]);
        for (const char *k = name.s; *k != '\0'; k++)
            *at++ = *k;
    }
    *at = '\0';
    return at;
}

/* "A>B" of a segment, written out (per packet: not through snprintf). */
static void
segment_text(char *buf, unsigned a, unsigned b)
{
    uint32_t ends[2] = {a, b};

    letters(buf, ends, 2, '>');
}

static const struct rs_corr_view *
make_view(struct rs_corr *c, const struct corr_entry *e)
{
    struct corr_view_buf *vb = &c->vb;
    struct rs_corr_view *v = &vb->v;
    const uint64_t *seen = corr_seen(c, e);
    const int64_t *t = corr_t(c, e);
    const struct rs_corr_hdr *hdr = corr_hdr(c, e);
    uint32_t *seen_pts = vb->seen_pts, *missed = vb->missed_pts, *path = vb->path;
    unsigned n_seen = 0, n_missed = 0, last_seen = 0;
    bool any = false;

    vb->lost_text[0] = vb->ce_text[0] = '\0';
    v->n_changed = 0;
    v->n_points = c->n;
    v->shown = e->shown;
    memcpy(vb->shown_text, rs_corr_point_name(e->shown).s, sizeof(vb->shown_text));
    v->n_seen = e->n_seen;
    memcpy(vb->seen, seen, c->mask_words * sizeof(uint64_t));
    memset(vb->missed, 0, c->mask_words * sizeof(uint64_t));
    v->n_missed = 0;
    v->conv = e->conv;
    v->lost_seg = v->ce_seg = -1;
    v->contradiction = v->not_told = false;
    v->t = t;
    v->number = corr_number(c, e);
    path_of(c, e, path, &v->n_path);
    for (unsigned i = 0; i < v->n_path; i++) {
        unsigned p = path[i];
        if (rs_corr_mask_has(seen, p)) {
            seen_pts[n_seen++] = p;
            last_seen = i;
            any = true;
        } else if (capturing(c, p, e)) {
            /* a point that missed it with one downstream that saw it, or upstream of
             * the first that did: the capture lost it, not the network (below: the
             * points after the last sighting) */
            missed[n_missed++] = p;
        }
    }
    letters(vb->seen_at, seen_pts, n_seen, ',');
    letters(vb->path_text, path, v->n_path, '>');
    for (unsigned s = 0; s + 1 < v->n_path; s++) {
        unsigned a = path[s], b = path[s + 1];
        segment_text(vb->seg_texts + (size_t)s * CORR_SEG_TEXT_SIZE, a, b);
        vb->both[s] = false;
        if (!rs_corr_mask_has(seen, a) || !rs_corr_mask_has(seen, b))
            continue;
        vb->both[s] = true;
        vb->delay[s] = t[b] - t[a];
        int64_t ba = c->clock[a].bound, bb = c->clock[b].bound;
        if (ba >= 0 && bb >= 0 && vb->delay[s] < -(ba + bb))
            v->contradiction = true;
        if (hdr[a].ecn != 3 && hdr[b].ecn == 3 && v->ce_seg < 0)
            v->ce_seg = (int)s;
        note_changes(vb, s, &hdr[a], &hdr[b]);
    }
    /* lost after its last sighting, on the next segment, where that point was capturing */
    if (any && last_seen + 1 < v->n_path) {
        unsigned next = path[last_seen + 1];
        bool next_capturing = capturing(c, next, e);
        if (next_capturing && capture_dropped(c, next, e)) {
            /* the capture there recorded drops then: which loss, nobody can tell; a
             * capture miss, never a network loss */
            v->not_told = true;
            missed[n_missed++] = next;
        } else if (next_capturing) {
            v->lost_seg = (int)last_seen;
            /* not a capture miss: drop the points after the last sighting from missed */
            unsigned k = 0;
            for (unsigned i = 0; i < n_missed; i++) {
                bool after = false;
                for (unsigned j = last_seen + 1; j < v->n_path; j++)
                    after |= path[j] == missed[i];
                if (!after)
                    missed[k++] = missed[i];
            }
            n_missed = k;
        }
    }
    for (unsigned i = 0; i < n_missed; i++) {
        bool after = false;     /* after the last sighting with no loss: out of range */
        for (unsigned j = last_seen + 1; j < v->n_path; j++)
            after |= path[j] == missed[i];
        if ((!after || (v->not_told && missed[i] == path[last_seen + 1])) &&
            !rs_corr_mask_has(vb->missed, missed[i])) {
            rs_corr_mask_set(vb->missed, missed[i]);
            v->n_missed++;
        }
    }
    /* the missed points in path order (missed_pts is free again) */
    unsigned nm = 0;
    for (unsigned i = 0; i < v->n_path; i++)
        if (rs_corr_mask_has(vb->missed, path[i]))
            missed[nm++] = path[i];
    letters(vb->missed_text, missed, nm, ',');
    if (v->lost_seg >= 0)
        memcpy(vb->lost_text, v->seg_text[v->lost_seg], CORR_SEG_TEXT_SIZE);
    if (v->ce_seg >= 0)
        memcpy(vb->ce_text, v->seg_text[v->ce_seg], CORR_SEG_TEXT_SIZE);
    return v;
}

static void
count_view(struct rs_corr *c, const struct corr_entry *e, const struct rs_corr_view *v)
{
    c->counts.matched += e->n_seen >= 2;
    c->counts.lost += v->lost_seg >= 0;
    c->counts.ce_marked += v->ce_seg >= 0;
    c->counts.missed += v->n_missed != 0;
    c->counts.not_told += v->not_told;
    c->counts.contradictions += v->contradiction;
    if (e->conv == UINT32_MAX)
        return;
    struct corr_conv *cv = &c->conv[e->conv];
    const uint64_t *seen = corr_seen(c, e);
    cv->packets++;
    if (cv->name[0] == '\0') {
        char addr[48];
        corr_addr_text(e, addr, sizeof(addr));
        snprintf(cv->name, sizeof(cv->name), "%s QP 0x%06x", addr, e->key.dqp);
    }
    /* the path is the conversation's, so its segments are the same packet to packet */
    if (cv->n_path < v->n_path) {
        cv->n_path = v->n_path;
        memcpy(cv->path, v->path, v->n_path * sizeof(*cv->path));
    }
    for (unsigned s = 0; s + 1 < v->n_path && s + 1 < cv->n_path; s++) {
        if (!rs_corr_mask_has(seen, v->path[s]))
            continue;   /* never reached this segment's start: not its packet */
        corr_seg_add(&cv->seg[s], v->both[s] ? v->delay[s] : -1, v->lost_seg == (int)s,
                     v->ce_seg == (int)s, v->both[s] ? v->t[v->path[s + 1]] : INT64_MIN);
    }
}

/* The largest time between two sightings of one packet: the window the next pass needs:
 * the latest sighting less the earliest. */
static void
note_delay(struct rs_corr *c, const struct corr_entry *e)
{
    const uint64_t *seen = corr_seen(c, e);
    const int64_t *t = corr_t(c, e);
    int64_t lo = INT64_MAX, hi = INT64_MIN;

    for (unsigned i = 0; i < c->n; i++) {
        if (!rs_corr_mask_has(seen, i))
            continue;
        lo = t[i] < lo ? t[i] : lo;
        hi = t[i] > hi ? t[i] : hi;
    }
    if (hi - lo > c->counts.delay_max)
        c->counts.delay_max = hi - lo;
}

void
corr_finish(struct rs_corr *c, struct corr_entry *e)
{
    if (e->n_seen >= 2)
        note_delay(c, e);
    if (c->opts.collect) {
        corr_gone_put(c, e);
        corr_conv_learn(c, e);
        corr_clock_collect(c, e);
        return;
    }
    const struct rs_corr_view *v = make_view(c, e);

    count_view(c, e, v);
    if (c->sink != NULL && c->opts.no_frames) {
        c->sink(c->ctx, v, NULL);
    } else if (c->sink != NULL) {
        struct rs_frame f = e->frame;
        f.data = corr_copy_of(c, e);
        if (f.data != NULL)
            c->sink(c->ctx, v, &f);
    }
}
