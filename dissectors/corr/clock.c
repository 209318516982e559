/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clock.c - each point's clock on point A's, from matched packets.
 *
 * For two points i and j and the fastest packet each way in a span of time,
 * tj - ti = d1 + theta and ti - tj = d2 - theta with d1, d2 >= 0: theta is within
 * (d1 + d2) / 2 of the midpoint of the two (the NTP bound, from the fastest round trip
 * rather than one exchange). Which way a packet went is the sign of tj - ti on the
 * clocks the pass ran with: the probe's coarse clock is such a midpoint itself, so a
 * packet's delay is never smaller than its error. The spans are buckets of time
 * (1 s, doubled when more than CORR_CLOCK_BUCKETS are needed); a least-squares line
 * through the buckets' midpoints gives offset and drift, and the bound is the largest
 * half round trip plus the line's largest distance from a midpoint, plus the line's
 * change over half a bucket (a midpoint holds at its bucket's centre). Points are tied to
 * A through the pairs, A's first, then through points already tied. With both ways
 * but never in one bucket, the fastest each way over the whole capture (no drift).
 * The times are each key's first sighting at each point (corr_int.h: key_first).
 *
 * The probe also gives the window: its first sightings' largest delay after the
 * coarse offset (rs_corr_window_for_delay).
 */
#include <stdlib.h>
#include <string.h>

#include "corr/corr_int.h"

#define BUCKET_NS 1000000000ll

static void
bucket_add(struct corr_pair *pr, int64_t at, int64_t diff, bool forward)
{
    if (at < 0)
        at = 0;
    while (at / pr->width >= CORR_CLOCK_BUCKETS) {
        /* merge neighbours: the capture is longer than the buckets cover */
        unsigned half = (pr->n_b + 1) / 2;
        for (unsigned i = 0; i < half; i++) {
            struct corr_clock_bucket m = {0};
            for (unsigned k = 2 * i; k < 2 * i + 2 && k < pr->n_b; k++) {
                const struct corr_clock_bucket *b = &pr->b[k];
                if (b->has_fwd && (!m.has_fwd || b->fwd < m.fwd))
                    m.fwd = b->fwd, m.has_fwd = true;
                if (b->has_rev && (!m.has_rev || b->rev < m.rev))
                    m.rev = b->rev, m.has_rev = true;
            }
            pr->b[i] = m;
        }
        memset(pr->b + half, 0, (pr->n_b - half) * sizeof(*pr->b));
        pr->width *= 2;
    }
    uint64_t at_b = (uint64_t)(at / pr->width);
    if (at_b >= pr->n_b) {
        /* later than the buckets made so far: doubled (a pair grows some ten times) */
        uint32_t n = pr->n_b;
        while (n <= at_b)
            n *= 2;
        n = n < CORR_CLOCK_BUCKETS ? n : CORR_CLOCK_BUCKETS;
        struct corr_clock_bucket *grown = realloc(pr->b, n * sizeof(*grown));
        if (grown == NULL)
            return;     /* out of memory: the sample is not taken */
        memset(grown + pr->n_b, 0, (n - pr->n_b) * sizeof(*grown));
        pr->b = grown;
        pr->n_b = n;
    }
    struct corr_clock_bucket *b = &pr->b[at_b];
    if (forward && (!b->has_fwd || diff < b->fwd))
        b->fwd = diff, b->has_fwd = true;
    if (!forward && (!b->has_rev || -diff < b->rev))
        b->rev = -diff, b->has_rev = true;
    pr->pairs++;
}

/* Whether e went from point i to point j: its conversation's mean time at j after its
 * first sighting is the later (robust to a coarse clock off by less than the mean
 * delay; a packet's own sign is not), else its own order. */
static bool
goes_forward(const struct rs_corr *c, const struct corr_entry *e, unsigned i, unsigned j)
{
    if (e->conv != UINT32_MAX) {
        const struct corr_conv *cv = &c->conv[e->conv];
        if (cv->count[i] > 0 && cv->count[j] > 0)
            return cv->rank[j] / (double)cv->count[j] > cv->rank[i] / (double)cv->count[i];
    }
    const int64_t *first_t = corr_first_t(c, e);
    return first_t[j] >= first_t[i];
}

void
corr_clock_collect(struct rs_corr *c, const struct corr_entry *e)
{
    if (!e->key_first)
        return;     /* a later copy of a key: its key's first sightings are counted */
    const uint64_t *first_seen = corr_first_seen(c, e);
    const int64_t *first_t = corr_first_t(c, e);
    for (unsigned i = 0; i < c->n; i++) {
        if (!rs_corr_mask_has(first_seen, i))
            continue;
        for (unsigned j = i + 1; j < c->n; j++) {
            if (!rs_corr_mask_has(first_seen, j))
                continue;
            /* made when a packet first joins the pair (clock fitting only) */
            struct corr_pair **pr = &c->pair[(size_t)i * c->n + j];
            if (*pr == NULL) {
                *pr = calloc(1, sizeof(struct corr_pair));
                if (*pr == NULL)
                    continue;
                (*pr)->b = calloc(CORR_PAIR_FIRST_BUCKETS, sizeof(*(*pr)->b));
                if ((*pr)->b == NULL) {
                    free(*pr);
                    *pr = NULL;
                    continue;
                }
                (*pr)->n_b = CORR_PAIR_FIRST_BUCKETS;
                (*pr)->width = BUCKET_NS;
            }
            bucket_add(*pr, first_t[i] - c->base, first_t[j] - first_t[i],
                       goes_forward(c, e, i, j));
        }
    }
}

/* theta(x) = a + r x for the pair, x in ns after the base; false without data. */
struct pair_fit {
    double a, r;
    int64_t bound;      /* -1: one direction only */
    uint64_t pairs;
};

static bool
fit_pair(const struct corr_pair *pr, struct pair_fit *f)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0;
    int64_t fwd = INT64_MAX, rev = INT64_MAX;

    memset(f, 0, sizeof(*f));
    if (pr == NULL || pr->pairs == 0)
        return false;
    f->pairs = pr->pairs;
    for (unsigned i = 0; i < pr->n_b; i++) {
        const struct corr_clock_bucket *b = &pr->b[i];
        if (b->has_fwd && b->fwd < fwd)
            fwd = b->fwd;
        if (b->has_rev && b->rev < rev)
            rev = b->rev;
        /* d1 + d2 = fwd + rev is a round trip: below 0, the packets' directions were
         * told wrong (a coarse clock off by more than the delays), and the bucket bounds
         * nothing */
        if (!b->has_fwd || !b->has_rev || b->fwd + b->rev < 0)
            continue;
        double x = ((double)i + 0.5) * (double)pr->width, y = (double)(b->fwd - b->rev) / 2;
        sx += x, sy += y, sxx += x * x, sxy += x * y, n++;
    }
    if (n == 0 && fwd != INT64_MAX && rev != INT64_MAX && fwd + rev >= 0) {
        /* both ways, but never in one bucket: the fastest each way over the whole
         * capture, as one bucket (no drift) */
        f->a = (double)(fwd - rev) / 2;
        f->bound = (fwd + rev + 1) / 2;
        return true;
    }
    if (n == 0) {
        /* one direction: the fastest packet is taken to have taken no time; delays are
         * then measured from it, and no bound can be given */
        f->a = fwd != INT64_MAX ? (double)fwd : -(double)rev;
        f->bound = -1;
        return true;
    }
    double den = n * sxx - sx * sx;
    f->r = n >= 2 && den > 0 ? (n * sxy - sx * sy) / den : 0;
    f->a = (sy - f->r * sx) / n;
    double worst = 0;
    for (unsigned i = 0; i < pr->n_b; i++) {
        const struct corr_clock_bucket *b = &pr->b[i];
        if (!b->has_fwd || !b->has_rev || b->fwd + b->rev < 0)
            continue;
        double x = ((double)i + 0.5) * (double)pr->width, y = (double)(b->fwd - b->rev) / 2;
        double resid = y - (f->a + f->r * x);
        double err = (resid < 0 ? -resid : resid) + (double)(b->fwd + b->rev) / 2;
        if (err > worst)
            worst = err;
    }
    /* the midpoints hold at the buckets' centres; anywhere in a bucket the line is up to
     * half a bucket's drift away from its centre value (the offset is stated at t0, the
     * start of the first bucket) */
    worst += (f->r < 0 ? -f->r : f->r) * (double)pr->width / 2;
    f->bound = (int64_t)(worst + 0.5);
    return true;
}

bool
rs_corr_clocks(const struct rs_corr *c, struct rs_corr_clock *out)
{
    unsigned n = c->n;
    struct pair_fit *rel = calloc(n, sizeof(*rel)); /* each point's residual against A */
    bool *tied = calloc(n, sizeof(*tied));          /* ... once tied */
    bool all = true;

    if (rel == NULL || tied == NULL) {
        /* out of memory: every clock stays as the pass had it, unknown */
        for (unsigned j = 0; j < n; j++) {
            out[j] = c->clock[j];
            out[j].known = j == 0;
            out[j].bound = j == 0 ? 0 : -1;
        }
        free(rel);
        free(tied);
        return false;
    }
    tied[0] = true;
    for (bool grew = true; grew;) {
        grew = false;
        for (unsigned j = 1; j < n; j++) {
            if (tied[j])
                continue;
            /* the pair with a tied point that has a bound and the most pairs */
            struct pair_fit best = {0};
            unsigned via = 0;
            bool found = false;
            for (unsigned i = 0; i < n; i++) {
                struct pair_fit f;
                if (i == j || !tied[i])
                    continue;
                if (!fit_pair(i < j ? c->pair[(size_t)i * n + j] : c->pair[(size_t)j * n + i],
                              &f))
                    continue;
                if (i > j)
                    f.a = -f.a, f.r = -f.r;
                bool better = !found || (f.bound >= 0 && best.bound < 0) ||
                              ((f.bound >= 0) == (best.bound >= 0) && f.pairs > best.pairs);
                if (better)
                    best = f, via = i, found = true;
            }
            if (!found)
                continue;
            rel[j].a = rel[via].a + best.a;
            rel[j].r = rel[via].r + best.r;
            rel[j].bound = best.bound < 0 || (via != 0 && rel[via].bound < 0)
                               ? -1 : best.bound + (via != 0 ? rel[via].bound : 0);
            rel[j].pairs = best.pairs;
            tied[j] = grew = true;
        }
    }
    for (unsigned j = 0; j < n; j++) {
        const struct rs_corr_clock *was = &c->clock[j];
        struct rs_corr_clock *k = &out[j];
        memset(k, 0, sizeof(*k));
        if (j == 0) {
            *k = *was;
            k->known = true;
            k->two_way = true;
            k->bound = 0;
            continue;
        }
        if (!tied[j]) {
            *k = *was;
            k->known = false;
            k->bound = -1;
            all = false;
            continue;
        }
        /* the pass mapped t to t - was->offset (no drift); the residual is
         * a + r (t_mapped - base) */
        k->t0 = c->base + was->offset;
        k->offset = was->offset + (int64_t)rel[j].a;
        k->drift = rel[j].r;
        k->bound = rel[j].bound;
        k->known = true;
        k->two_way = rel[j].bound >= 0;
        k->pairs = rel[j].pairs;
    }
    free(rel);
    free(tied);
    return all;
}

/* The probe: the first frames of each point, keys and times; matched per pair. */
struct probe_item {
    struct rs_corr_key key;
    uint64_t conv;
    int64_t t;
};

struct rs_corr_probe {
    unsigned n_points;
    struct probe_item **items;      /* by point, RS_CORR_PROBE_FRAMES each */
    uint32_t *n;
    int64_t delay_max;              /* -1 until a pair matched */
};

int
rs_corr_probe_new(unsigned n_points, struct rs_corr_probe **out)
{
    struct rs_corr_probe *p = calloc(1, sizeof(*p));

    *out = NULL;
    if (p == NULL)
        return RS_ENOMEM;
    p->n_points = n_points;
    p->delay_max = -1;
    p->items = calloc(n_points, sizeof(*p->items));
    p->n = calloc(n_points, sizeof(*p->n));
    if (p->items == NULL || p->n == NULL) {
        rs_corr_probe_free(p);
        return RS_ENOMEM;
    }
    for (unsigned i = 0; i < p->n_points; i++) {
        p->items[i] = calloc(RS_CORR_PROBE_FRAMES, sizeof(struct probe_item));
        if (p->items[i] == NULL) {
            rs_corr_probe_free(p);
            return RS_ENOMEM;
        }
    }
    *out = p;
    return 0;
}

void
rs_corr_probe_free(struct rs_corr_probe *p)
{
    if (p == NULL)
        return;
    for (unsigned i = 0; p->items != NULL && i < p->n_points; i++)
        free(p->items[i]);
    free(p->items);
    free(p->n);
    free(p);
}

bool
rs_corr_probe_add(struct rs_corr_probe *p, unsigned point, const struct rs_frame *frame,
                  const struct rs_packet *pkt)
{
    struct rs_corr_hdr hdr;

    if (point >= p->n_points || p->n[point] >= RS_CORR_PROBE_FRAMES)
        return false;
    struct probe_item *it = &p->items[point][p->n[point]];
    if (rs_corr_key_of(pkt, &it->key, &hdr, &it->conv)) {
        it->t = rs_time_to_ns(rs_frame_time(frame));
        p->n[point]++;
    }
    return p->n[point] < RS_CORR_PROBE_FRAMES;
}

static int
cmp_item(const void *a, const void *b)
{
    const struct probe_item *x = a, *y = b;

    if (x->key.icrc != y->key.icrc)
        return x->key.icrc < y->key.icrc ? -1 : 1;
    if (x->key.psn != y->key.psn)
        return x->key.psn < y->key.psn ? -1 : 1;
    if (x->key.dqp != y->key.dqp)
        return x->key.dqp < y->key.dqp ? -1 : 1;
    if (x->key.opcode != y->key.opcode)
        return x->key.opcode < y->key.opcode ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

struct conv_diff {
    uint64_t conv;
    int64_t d;
};

static int
cmp_conv_diff(const void *a, const void *b)
{
    const struct conv_diff *x = a, *y = b;

    if (x->conv != y->conv)
        return x->conv < y->conv ? -1 : 1;
    return x->d < y->d ? -1 : x->d > y->d;
}

/* A conversation's tj - ti: its median says which way it goes, its extremes the
 * fastest packet (the smallest of a conversation from i to j, the largest of one from
 * j to i). */
struct conv_span {
    int64_t median, min, max;
};

static int
cmp_span(const void *a, const void *b)
{
    const struct conv_span *x = a, *y = b;

    return x->median < y->median ? -1 : x->median > y->median;
}

/* The coarse offset of point j against point i. The conversations' medians split in
 * two at their widest gap: those above go from i to j (tj - ti = d + theta), those below
 * from j to i (theta - d). theta lies between the largest difference below and the
 * smallest above; the middle of that, or of the gap where the two overlap. With one
 * direction, the fastest packet is taken as no delay. */
static bool
probe_pair(struct rs_corr_probe *p, unsigned i, unsigned j, int64_t *theta)
{
    struct conv_diff *cd = calloc(RS_CORR_PROBE_FRAMES, sizeof(*cd));
    struct conv_span *sp = calloc(RS_CORR_PROBE_FRAMES, sizeof(*sp));
    uint32_t n = 0, n_sp = 0, a = 0, b = 0;
    bool ok = false;

    if (cd == NULL || sp == NULL)
        goto done;
    /* both sorted by key then time: the first sightings of a key pair up */
    while (a < p->n[i] && b < p->n[j]) {
        const struct probe_item *x = &p->items[i][a], *y = &p->items[j][b];
        int c = memcmp(&x->key, &y->key, sizeof(x->key)) == 0 ? 0 : cmp_item(x, y);
        if (c < 0) {
            a++;
        } else if (c > 0) {
            b++;
        } else {
            cd[n++] = (struct conv_diff){x->conv, y->t - x->t};
            /* the other sightings of this key (retransmissions) are left out */
            while (a < p->n[i] && memcmp(&p->items[i][a].key, &x->key, sizeof(x->key)) == 0)
                a++;
            while (b < p->n[j] && memcmp(&p->items[j][b].key, &x->key, sizeof(x->key)) == 0)
                b++;
        }
    }
    if (n == 0)
        goto done;
    qsort(cd, n, sizeof(*cd), cmp_conv_diff);
    for (uint32_t k = 0; k < n;) {
        uint32_t e = k;
        while (e < n && cd[e].conv == cd[k].conv)
            e++;
        sp[n_sp++] = (struct conv_span){cd[k + (e - k) / 2].d, cd[k].d, cd[e - 1].d};
        k = e;
    }
    qsort(sp, n_sp, sizeof(*sp), cmp_span);
    int64_t gap = -1;
    uint32_t split = 0;
    for (uint32_t k = 0; k + 1 < n_sp; k++) {
        if (sp[k + 1].median - sp[k].median > gap) {
            gap = sp[k + 1].median - sp[k].median;
            split = k + 1;
        }
    }
    if (split == 0) {
        *theta = sp[0].min;
    } else {
        int64_t lo = INT64_MIN, hi = INT64_MAX;
        for (uint32_t k = 0; k < split; k++)
            lo = sp[k].max > lo ? sp[k].max : lo;
        for (uint32_t k = split; k < n_sp; k++)
            hi = sp[k].min < hi ? sp[k].min : hi;
        *theta = lo <= hi ? lo + (hi - lo) / 2
                          : sp[split - 1].median + (sp[split].median - sp[split - 1].median) / 2;
    }
    /* each first sighting's delay after the offset, either way: what the window must hold */
    for (uint32_t k = 0; k < n; k++) {
        int64_t d = cd[k].d - *theta;
        d = d < 0 ? -d : d;
        if (d > p->delay_max)
            p->delay_max = d;
    }
    ok = true;
done:
    free(cd);
    free(sp);
    return ok;
}

int64_t
rs_corr_probe_delay_max(const struct rs_corr_probe *p)
{
    return p->delay_max;
}

int64_t
rs_corr_window_for_delay(int64_t delay)
{
    if (delay < 0)
        return RS_CORR_WINDOW_DEFAULT;
    if (delay > RS_CORR_WINDOW_MAX / RS_CORR_WINDOW_SLACK)
        return RS_CORR_WINDOW_MAX;
    delay *= RS_CORR_WINDOW_SLACK;
    return delay < RS_CORR_WINDOW_MIN ? RS_CORR_WINDOW_MIN : delay;
}

void
rs_corr_probe_clocks(struct rs_corr_probe *p, struct rs_corr_clock *out)
{
    memset(out, 0, sizeof(*out) * p->n_points);
    for (unsigned i = 0; i < p->n_points; i++) {
        qsort(p->items[i], p->n[i], sizeof(struct probe_item), cmp_item);
        out[i].bound = -1;
    }
    out[0].known = true;
    for (bool grew = true; grew;) {
        grew = false;
        for (unsigned j = 1; j < p->n_points; j++) {
            /* known: tied to A through the points before */
            for (unsigned i = 0; i < p->n_points && !out[j].known; i++) {
                int64_t theta;
                if (i == j || !out[i].known || !probe_pair(p, i, j, &theta))
                    continue;
                out[j].offset = out[i].offset + theta;
                out[j].known = grew = true;
            }
        }
    }
}
