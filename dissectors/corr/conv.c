/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conv.c - conversations (a destination address and QP, as every point sees them): the
 * path the estimating pass learned for each, and per segment of it the packets, losses,
 * CE marks, delays (a log histogram, 16 steps an octave: p50 and p99 within 6%) and
 * reordering that -z corr,qp prints.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/nstime.h>

#include "corr/corr_int.h"

/* The conversations and one block for their arrays by point and by segment, sized for
 * the run's points: some 90 bytes a point per conversation (docs/limits.md). */
int
corr_conv_table_new(struct rs_corr *c)
{
    size_t n = c->n, k = RS_CORR_MAX_CONVS;
    size_t per = n * (sizeof(uint64_t) + sizeof(double) + 2 * sizeof(int64_t)) +
                 (n - 1) * sizeof(struct corr_seg_stats) + n * sizeof(uint32_t);

    /* the block is not cleared here: a conversation clears its own part when it is made
     * (corr_conv_find), so only the pages of conversations that arise are touched */
    c->conv = calloc(k, sizeof(*c->conv));
    c->conv_block = per <= SIZE_MAX / k ? malloc(k * per) : NULL;
    if (c->conv == NULL || c->conv_block == NULL)
        return RS_ENOMEM;
    /* the arrays of one type together, each kept to its alignment */
    unsigned char *at = c->conv_block;
    for (size_t i = 0; i < k; i++, at += n * sizeof(uint64_t))
        c->conv[i].count = (uint64_t *)(void *)at;
    for (size_t i = 0; i < k; i++, at += n * sizeof(double))
        c->conv[i].rank = (double *)(void *)at;
    for (size_t i = 0; i < k; i++, at += n * sizeof(int64_t))
        c->conv[i].last_joined = (int64_t *)(void *)at;
    for (size_t i = 0; i < k; i++, at += n * sizeof(int64_t))
        c->conv[i].first_up = (int64_t *)(void *)at;
    for (size_t i = 0; i < k; i++, at += (n - 1) * sizeof(struct corr_seg_stats))
        c->conv[i].seg = (struct corr_seg_stats *)(void *)at;
    for (size_t i = 0; i < k; i++, at += n * sizeof(uint32_t))
        c->conv[i].path = (uint32_t *)(void *)at;
    return 0;
}

void
corr_conv_table_free(struct rs_corr *c)
{
    /* the used ones alone: the others' pages of the block were never touched */
    if (c->conv != NULL && c->conv_block != NULL)
        for (uint32_t i = 0; i < RS_CORR_MAX_CONVS; i++)
            for (unsigned s = 0; c->conv[i].used && s + 1 < c->n; s++)
                free(c->conv[i].seg[s].hist);
    free(c->conv);
    free(c->conv_block);
    c->conv = NULL;
    c->conv_block = NULL;
}

uint32_t
corr_conv_find(struct rs_corr *c, uint64_t hash, bool create)
{
    uint32_t mask = RS_CORR_MAX_CONVS - 1;

    for (uint32_t i = (uint32_t)(hash ^ hash >> 29) & mask, n = 0; n < RS_CORR_MAX_CONVS;
         i = (i + 1) & mask, n++) {
        struct corr_conv *cv = &c->conv[i];
        if (cv->used && cv->hash == hash)
            return i;
        if (!cv->used) {
            /* kept three quarters full at most, so that a miss ends soon */
            if (!create || c->n_conv >= RS_CORR_MAX_CONVS / 4 * 3)
                return UINT32_MAX;
            cv->used = true;
            cv->hash = hash;
            memset(cv->count, 0, c->n * sizeof(*cv->count));
            memset(cv->rank, 0, c->n * sizeof(*cv->rank));
            memset(cv->path, 0, c->n * sizeof(*cv->path));
            memset(cv->seg, 0, (c->n - 1) * sizeof(*cv->seg));
            for (unsigned p = 0; p < c->n; p++) {
                cv->last_joined[p] = INT64_MIN;
                cv->first_up[p] = INT64_MAX;
            }
            c->n_conv++;
            return i;
        }
    }
    return UINT32_MAX;
}

const struct corr_conv *
corr_conv_learned(const struct rs_corr *c, uint64_t hash)
{
    uint32_t i = corr_conv_find((struct rs_corr *)c, hash, false);

    return i == UINT32_MAX ? NULL : &c->conv[i];
}

void
corr_conv_learn(struct rs_corr *c, const struct corr_entry *e)
{
    if (e->conv == UINT32_MAX)
        return;
    struct corr_conv *cv = &c->conv[e->conv];
    int64_t first = INT64_MAX;

    cv->dqp = e->key.dqp;
    const uint64_t *seen = corr_seen(c, e);
    const int64_t *t = corr_t(c, e);

    for (unsigned p = 0; p < c->n; p++)
        if (rs_corr_mask_has(seen, p) && t[p] < first)
            first = t[p];
    for (unsigned p = 0; p < c->n; p++) {
        if (!rs_corr_mask_has(seen, p))
            continue;
        cv->count[p]++;
        cv->rank[p] += (double)(t[p] - first);
        if (p != e->shown && e->t0 < cv->first_up[p])
            cv->first_up[p] = e->t0;
    }
    /* the path so far: the points it passed, by their mean time after the first */
    uint32_t n = 0;
    for (unsigned p = 0; p < c->n; p++) {
        if (cv->count[p] == 0)
            continue;
        double m = cv->rank[p] / (double)cv->count[p];
        unsigned i = n++;
        while (i > 0 && cv->rank[cv->path[i - 1]] / (double)cv->count[cv->path[i - 1]] > m) {
            cv->path[i] = cv->path[i - 1];
            i--;
        }
        cv->path[i] = p;
    }
    /* --path gives the order; the conversation's own direction says which way: its
     * points as --path lists them, forward or reversed, written over the learned order
     * (the same points; ordered in the view's buffer, free until the packet finishes) */
    if (c->opts.path != NULL && n > 1) {
        uint32_t first_p = cv->path[0], *ordered = c->vb.seen_pts;
        unsigned k = 0, at_first = 0;
        for (unsigned i = 0; i < c->n; i++) {
            uint32_t p = c->opts.path[i];
            if (cv->count[p] == 0)
                continue;
            if (p == first_p)
                at_first = k;
            ordered[k++] = p;
        }
        for (unsigned i = 0; i < k; i++)
            cv->path[i] = at_first == 0 ? ordered[i] : ordered[k - 1 - i];
    }
    cv->n_path = n;
}

static unsigned
hist_index(int64_t v)
{
    if (v < 16)
        return v < 0 ? 0 : (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll((uint64_t)v);
    unsigned i = (e - 3) * 16 + (unsigned)((uint64_t)v >> (e - 4) & 15);
    return i < CORR_HIST_BUCKETS ? i : CORR_HIST_BUCKETS - 1;
}

/* The middle of bucket i, in ns. */
static int64_t
hist_value(unsigned i)
{
    if (i < 16)
        return i;
    unsigned e = i / 16 + 3, sub = i % 16;
    uint64_t lo = (16u + sub) << (e - 4);
    return (int64_t)(lo + ((uint64_t)1 << (e - 4)) / 2);
}

void
corr_seg_add(struct corr_seg_stats *s, int64_t delay, bool lost, bool ce, int64_t down)
{
    s->packets++;
    s->lost += lost;
    s->ce += ce;
    if (down == INT64_MIN)
        return;
    /* packets finish in the order of their first sighting: one that arrives downstream
     * before an earlier one has overtaken it */
    if (s->delays > 0 && down < s->last_down)
        s->reordered++;
    else
        s->last_down = down;
    if (s->hist == NULL && (s->hist = calloc(CORR_HIST_BUCKETS, sizeof(*s->hist))) == NULL)
        return;
    s->hist[hist_index(delay)]++;
    if (s->delays == 0 || delay > s->max)
        s->max = delay;
    s->delays++;
}

static int64_t
percentile(const struct corr_seg_stats *s, double q)
{
    uint64_t want = (uint64_t)(q * (double)s->delays + 0.999999), sum = 0;

    if (want == 0)
        want = 1;
    for (unsigned i = 0; i < CORR_HIST_BUCKETS; i++) {
        sum += s->hist[i];
        if (sum >= want)
            return hist_value(i) < s->max ? hist_value(i) : s->max;
    }
    return s->max;
}

static void
us_text(int64_t ns, char *buf, size_t size)
{
    snprintf(buf, size, "%.1f", (double)ns / 1000.0);
}

static void
print_clocks(const struct rs_corr *c, const char *const *names, struct rs_out *o)
{
    char line[512];

    for (unsigned p = 0; p < c->opts.n_points; p++) {
        const struct rs_corr_clock *k = &c->opts.clock[p];
        if (p == 0) {
            snprintf(line, sizeof(line), "  %s: %s (the reference clock)\n",
                     rs_corr_point_name(p).s, names[p]);
        } else if (!k->known) {
            snprintf(line, sizeof(line), "  %s: %s: no packet matched: clock unknown\n",
                     rs_corr_point_name(p).s, names[p]);
        } else {
            char bound[48];
            if (k->bound >= 0)
                snprintf(bound, sizeof(bound), "+- %.1f us", (double)k->bound / 1000.0);
            else
                snprintf(bound, sizeof(bound), "unbounded (one direction only)");
            snprintf(line, sizeof(line), "  %s: %s: offset %+.1f us %s, drift %+.3f ppm, "
                     "from %" PRIu64 " pairs\n", rs_corr_point_name(p).s, names[p],
                     (double)k->offset / 1000.0, bound, k->drift * 1e6, k->pairs);
        }
        rs_out_str(o, line);
    }
}

void
rs_corr_print_stats(const struct rs_corr *c, const char *const *names, struct rs_out *o)
{
    char line[512];
    const struct rs_corr_counts *k = &c->counts;

    rs_out_str(o, "================================================================"
               "================\nRDMA packets across capture points\n");
    print_clocks(c, names, o);
    static const char *const from[] = {"the default: no delay measured", "given",
                                       "from the measured delays"};
    snprintf(line, sizeof(line), "Window: %.3f ms (%s), largest delay seen: %.3f ms\n",
             (double)c->opts.window / 1e6, from[c->opts.window_from],
             (double)k->delay_max / 1e6);
    rs_out_str(o, line);
    snprintf(line, sizeof(line), "Packets: %" PRIu64 ", matched at 2+ points: %" PRIu64
             ", lost: %" PRIu64 ", CE marked: %" PRIu64 ", missed by a capture: %" PRIu64
             ", contradictions: %" PRIu64 "\n", k->packets, k->matched, k->lost, k->ce_marked,
             k->missed, k->contradictions);
    rs_out_str(o, line);
    for (unsigned p = 0; p < c->n; p++) {
        if (c->pc[p].capture_drops == 0)
            continue;
        snprintf(line, sizeof(line), "Capture drops recorded at %s (pcapng statistics): %"
                 PRIu64 "; packets missed there while it dropped, network or capture loss "
                 "not told apart: %" PRIu64 " in all\n", rs_corr_point_name(p).s,
                 c->pc[p].capture_drops, k->not_told);
        rs_out_str(o, line);
    }
    if (k->forced > 0 || k->convs_untracked > 0) {
        snprintf(line, sizeof(line), "Finished early by a full table: %" PRIu64
                 ", packets of conversations past %d: %" PRIu64 "\n", k->forced,
                 RS_CORR_MAX_CONVS / 4 * 3, k->convs_untracked);
        rs_out_str(o, line);
    }
    snprintf(line, sizeof(line), "%-42s %-5s %9s %7s %7s %10s %10s %10s %7s\n",
             "Conversation", "Seg", "Packets", "Lost", "CE", "p50 us", "p99 us", "max us",
             "Reord");
    rs_out_str(o, line);
    for (uint32_t i = 0; i < RS_CORR_MAX_CONVS; i++) {
        const struct corr_conv *cv = &c->conv[i];
        if (!cv->used || cv->packets == 0)
            continue;
        if (cv->n_path < 2) {
            snprintf(line, sizeof(line), "%-42s %-5s %9" PRIu64 "\n", cv->name,
                     rs_corr_point_name(cv->path[0]).s, cv->packets);
            rs_out_str(o, line);
            continue;
        }
        for (unsigned s = 0; s + 1 < cv->n_path; s++) {
            const struct corr_seg_stats *st = &cv->seg[s];
            char p50[24] = "-", p99[24] = "-", mx[24] = "-";
            if (st->delays > 0) {
                us_text(percentile(st, 0.5), p50, sizeof(p50));
                us_text(percentile(st, 0.99), p99, sizeof(p99));
                us_text(st->max, mx, sizeof(mx));
            }
            char seg[CORR_SEG_TEXT_SIZE];
            snprintf(seg, sizeof(seg), "%s>%s", rs_corr_point_name(cv->path[s]).s,
                     rs_corr_point_name(cv->path[s + 1]).s);
            snprintf(line, sizeof(line), "%-42s %-5s %9" PRIu64 " %7" PRIu64 " %7" PRIu64
                     " %10s %10s %10s %7" PRIu64 "\n", s == 0 ? cv->name : "", seg,
                     st->packets, st->lost, st->ce, p50, p99, mx, st->reordered);
            rs_out_str(o, line);
        }
    }
    rs_out_str(o, "================================================================"
               "================\n");
}
