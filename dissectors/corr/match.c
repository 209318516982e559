/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * match.c - the matcher: sightings of one key joined into one packet while the window
 * is open, and packets finished in the order they were first seen once it has passed.
 *
 * Open packets sit in a ring (oldest first) with a chained hash by key, newest first in
 * each chain: a sighting joins the newest open packet of its key that its point has not
 * seen, so a retransmission that follows a loss pairs with its own sighting downstream,
 * not the lost original's. The frame shown for a packet is copied into a circular arena;
 * a full ring or arena finishes the oldest packet early (counted as forced).
 *
 * The ring starts small and doubles while the window holds more packets than it has
 * room for, up to max_packets: an entry is some 150 bytes and 50 more per point, and a
 * ring of max_packets cycled through whatever the window holds would miss the cache on
 * every packet. An entry's per-point part is sized for the run's points at start
 * (corr_int.h), so no point count is built in and feeding a packet allocates nothing.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/ib_headers.h>

#include "corr/corr_int.h"

/* Open packets the ring has room for at first (it doubles up to max_packets). */
#define RING_FIRST 1024u

static uint32_t
round_pow2(uint32_t v)
{
    uint32_t p = 1;

    while (p < v)
        p <<= 1;
    return p;
}

static uint32_t key_hash(const struct rs_corr_key *k);

/* Puts the ring in n entries (a power of two, at least the open packets) and rehashes:
 * each chain keeps its order (newest first), as the entries are put back oldest first. */
static int
ring_resize(struct rs_corr *c, uint32_t n)
{
    unsigned char *e = calloc(n, c->entry_size);
    uint32_t *bucket = calloc((size_t)n * 2, sizeof(*bucket));

    if (e == NULL || bucket == NULL) {
        free(e);
        free(bucket);
        return RS_ENOMEM;
    }
    for (uint64_t i = c->head; i != c->tail; i++) {
        struct corr_entry *to = (struct corr_entry *)(e + (size_t)(i & (n - 1)) * c->entry_size);
        memcpy(to, corr_entry_at(c, i), c->entry_size);
        uint32_t b = key_hash(&to->key) & (n * 2 - 1);
        to->next = bucket[b];
        bucket[b] = (uint32_t)(i & (n - 1)) + 1;
    }
    free(c->e);
    free(c->bucket);
    c->e = e;
    c->bucket = bucket;
    c->cap = n;
    c->n_bucket = n * 2;
    return 0;
}

/* An entry's per-point part, after its fixed part: two masks, then t, first_t and
 * number by point, then hdr by point (corr_int.h). */
static void
entry_layout(struct rs_corr *c)
{
    size_t at = (sizeof(struct corr_entry) + 7) & ~(size_t)7;

    c->mask_words = RS_CORR_MASK_WORDS(c->n);
    c->off_seen = at;
    at += c->mask_words * sizeof(uint64_t);
    c->off_first_seen = at;
    at += c->mask_words * sizeof(uint64_t);
    c->off_t = at;
    at += c->n * sizeof(int64_t);
    c->off_first_t = at;
    at += c->n * sizeof(int64_t);
    c->off_number = at;
    at += c->n * sizeof(uint64_t);
    c->off_hdr = at;
    at += c->n * sizeof(struct rs_corr_hdr);
    c->entry_size = (at + 7) & ~(size_t)7;
}

int
rs_corr_new(const struct rs_corr_opts *opts, rs_corr_sink *sink, void *ctx,
            struct rs_corr **out, char *err)
{
    struct rs_corr *c = calloc(1, sizeof(*c));

    *out = NULL;
    if (c == NULL)
        goto nomem;
    if (opts->n_points < 2) {
        free(c);
        return rs_error(err, RS_EINVAL, "correlate: %u captures: give 2 or more",
                        opts->n_points);
    }
    c->opts = *opts;
    c->n = opts->n_points;
    entry_layout(c);
    c->clock = calloc(c->n, sizeof(*c->clock));
    c->pc = calloc(c->n, sizeof(*c->pc));
    c->pair = opts->collect ? calloc((size_t)c->n * c->n, sizeof(*c->pair)) : NULL;
    if (c->clock == NULL || c->pc == NULL || (opts->collect && c->pair == NULL))
        goto nomem;
    if (opts->clock != NULL)
        memcpy(c->clock, opts->clock, c->n * sizeof(*c->clock));
    c->opts.clock = c->clock;
    if (c->opts.window <= 0)
        c->opts.window = RS_CORR_WINDOW_DEFAULT;
    if (c->opts.max_packets == 0)
        c->opts.max_packets = RS_CORR_MAX_PACKETS_DEFAULT;
    if (c->opts.copy_bytes == 0 && !c->opts.collect)
        c->opts.copy_bytes = RS_CORR_COPY_BYTES_DEFAULT;
    if (c->opts.collect || c->opts.no_frames)
        c->opts.copy_bytes = 0;
    c->sink = sink;
    c->ctx = ctx;
    c->max_cap = round_pow2(c->opts.max_packets);
    if (corr_conv_table_new(c) != 0 || corr_view_buf_init(&c->vb, c->n) != 0 ||
        ring_resize(c, c->max_cap < RING_FIRST ? c->max_cap : RING_FIRST) != 0)
        goto nomem;
    if (c->opts.copy_bytes > 0 && (c->arena = malloc(c->opts.copy_bytes)) == NULL)
        goto nomem;
    if (c->opts.collect && (c->gone = calloc(CORR_GONE_SLOTS, sizeof(*c->gone))) == NULL)
        goto nomem;
    for (unsigned i = 0; i < c->n; i++) {
        c->pc[i].first = INT64_MAX;
        c->pc[i].last = INT64_MIN;
        for (unsigned k = 0; c->opts.drops != NULL && k < c->opts.n_drops[i]; k++)
            c->pc[i].capture_drops += c->opts.drops[i][k].drops;
    }
    *out = c;
    return 0;
nomem:
    rs_corr_free(c);
    return rs_error(err, RS_ENOMEM, "correlate: out of memory");
}

void
rs_corr_free(struct rs_corr *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; c->pair != NULL && i < (size_t)c->n * c->n; i++) {
        if (c->pair[i] != NULL)
            free(c->pair[i]->b);
        free(c->pair[i]);
    }
    free(c->pair);
    corr_conv_table_free(c);
    corr_view_buf_free(&c->vb);
    free(c->clock);
    free(c->pc);
    free(c->arena);
    free(c->gone);
    free(c->bucket);
    free(c->e);
    free(c);
}

void
rs_corr_use_paths(struct rs_corr *c, const struct rs_corr *learned)
{
    c->learned = learned;
}

static uint32_t
key_hash(const struct rs_corr_key *k)
{
    uint64_t h = ((uint64_t)k->icrc << 32 | k->psn) * 0x9e3779b97f4a7c15ull;

    h ^= ((uint64_t)k->dqp << 8 | k->opcode) * 0xc2b2ae3d27d4eb4full;
    return (uint32_t)(h >> 32);
}

static bool
key_equal(const struct rs_corr_key *a, const struct rs_corr_key *b)
{
    return a->icrc == b->icrc && a->dqp == b->dqp && a->psn == b->psn &&
           a->opcode == b->opcode;
}

static void
unlink_entry(struct rs_corr *c, struct corr_entry *e)
{
    uint32_t *link = &c->bucket[key_hash(&e->key) & (c->n_bucket - 1)];
    uint32_t idx = corr_entry_index(c, e) + 1;

    while (*link != 0) {
        if (*link == idx) {
            *link = e->next;
            return;
        }
        link = &corr_entry_at(c, *link - 1)->next;
    }
}

/* Finishes the oldest open packet. */
static void
finish_head(struct rs_corr *c)
{
    struct corr_entry *e = corr_entry_at(c, c->head);

    unlink_entry(c, e);
    corr_finish(c, e);
    c->head++;
}

static void
expire(struct rs_corr *c, int64_t before)
{
    while (c->head != c->tail && corr_entry_at(c, c->head)->t0 < before)
        finish_head(c);
}

/* Where a copy of len bytes goes in the arena (a copy never wraps), finishing old
 * packets until their copies leave room. */
static uint64_t
arena_place(struct rs_corr *c, uint32_t len)
{
    uint64_t size = c->opts.copy_bytes;
    uint64_t at = c->arena_tail;

    if (at % size + len > size)
        at += size - at % size;
    while (c->head != c->tail) {
        const struct corr_entry *old = corr_entry_at(c, c->head);
        if (old->copy_len == 0 || at + len - old->copy_at <= size)
            break;
        c->counts.forced++;
        finish_head(c);
    }
    c->arena_tail = at + len;
    return at;
}

static struct corr_entry *
open_entry(struct rs_corr *c, const struct rs_corr_key *key, uint64_t convh, int64_t t)
{
    if (c->tail - c->head == c->cap) {
        c->counts.forced++;
        finish_head(c);
    }
    struct corr_entry *e = corr_entry_at(c, c->tail);
    uint32_t b = key_hash(key) & (c->n_bucket - 1);

    memset(e, 0, offsetof(struct corr_entry, copy_at));
    /* the masks, t and first_t; number and hdr are read only where seen */
    memset((unsigned char *)e + c->off_seen, 0, c->off_number - c->off_seen);
    e->key = *key;
    e->convh = convh;
    e->t0 = t;
    e->next = c->bucket[b];
    c->bucket[b] = (uint32_t)(c->tail & (c->cap - 1)) + 1;
    c->tail++;
    e->conv = corr_conv_find(c, convh, true);
    if (e->conv == UINT32_MAX)
        c->counts.convs_untracked++;
    c->counts.packets++;
    return e;
}

/* How long after its first sighting a packet of the conversation usually reaches point:
 * what the estimating pass learned (learned, its entry for the conversation, or NULL),
 * else what this pass has seen; -1 when unknown. */
static int64_t
usual_delay(const struct rs_corr *c, const struct corr_conv *learned, uint32_t conv,
            unsigned point)
{
    const struct corr_conv *cv = learned;

    if ((cv == NULL || cv->count[point] == 0) && conv != UINT32_MAX)
        cv = &c->conv[conv];
    if (cv == NULL || cv->count[point] == 0)
        return -1;
    return (int64_t)(cv->rank[point] / (double)cv->count[point]);
}

/* The open packet of key that a sighting at point joins, among those its point has not
 * seen within the window. A network keeps a conversation's order, so none first seen
 * before the last packet of its conversation that point joined (the copy of a go-back-N
 * retransmission sent while the original was still on its way then joins the copy); of
 * the rest, the one whose delay is nearest the conversation's usual (a retransmission
 * after a loss joins the retransmission, not the lost original), else the oldest. A
 * packet first seen at a point downstream of this one was put there by a clock within
 * its bound: of those the oldest, so that copies of one key keep their order. With none
 * in order, the newest. *oldest is the oldest open packet of key, seen here or not. */
static struct corr_entry *
find_open(struct rs_corr *c, const struct rs_corr_key *key, uint64_t convh, unsigned point,
          int64_t t, struct corr_entry **oldest)
{
    uint32_t conv = corr_conv_find(c, convh, false);
    /* looked up once: each open packet of the chain asks it again */
    const struct corr_conv *learned = c->learned != NULL ? corr_conv_learned(c->learned, convh)
                                                         : NULL;
    int64_t after = conv != UINT32_MAX ? c->conv[conv].last_joined[point] : INT64_MIN;
    int64_t usual = usual_delay(c, learned, conv, point), best_gap = INT64_MAX;
    struct corr_entry *newest = NULL, *best = NULL, *early = NULL;

    for (uint32_t i = c->bucket[key_hash(key) & (c->n_bucket - 1)]; i != 0;
         i = corr_entry_at(c, i - 1)->next) {
        struct corr_entry *e = corr_entry_at(c, i - 1);
        if (!key_equal(&e->key, key) || t - e->t0 > c->opts.window)
            continue;
        *oldest = e;
        if (rs_corr_mask_has(corr_seen(c, e), point))
            continue;
        if (newest == NULL)
            newest = e;     /* chains run newest first */
        int64_t there = usual_delay(c, learned, conv, e->shown);
        if (usual >= 0 && there > usual) {
            early = e;      /* downstream first: the last in the chain is the oldest */
            continue;
        }
        if (e->t0 < after)
            continue;
        int64_t gap = usual < 0 ? 0 : (t - e->t0) - usual;
        gap = gap < 0 ? -gap : gap;
        if (gap <= best_gap) {  /* ties go to the older: chains run newest first */
            best = e;
            best_gap = gap;
        }
    }
    best = best != NULL ? best : early != NULL ? early : newest;
    if (best != NULL && conv != UINT32_MAX)
        c->conv[conv].last_joined[point] = best->t0;
    return best;
}

void
corr_gone_put(struct rs_corr *c, const struct corr_entry *e)
{
    struct corr_gone *g = &c->gone[key_hash(&e->key) & (CORR_GONE_SLOTS - 1)];

    g->key = e->key;
    g->t0 = e->t0;
    g->seen = corr_seen(c, e)[0];
    g->used = true;
}

/* A sighting at point that opened a packet: if the last finished packet of its key went
 * unseen there, this may be that packet, later than the window. Its gap from that packet's
 * first sighting is then a delay the next pass's window must hold. The estimating pass
 * runs with the probe's window, which knows the first copy of each key only: a later
 * copy queued longer (a go-back-N resend behind a busy link) comes past it. Gaps longer
 * than the largest window could ask for are another packet of the same key (a PSN that
 * wrapped), not a delay. */
static void
note_late(struct rs_corr *c, const struct rs_corr_key *key, unsigned point, int64_t t)
{
    struct corr_gone *g = &c->gone[key_hash(key) & (CORR_GONE_SLOTS - 1)];
    int64_t gap = t - g->t0;

    if (!g->used || !key_equal(&g->key, key) || point >= 64 || (g->seen >> point & 1) ||
        gap <= c->opts.window || gap > RS_CORR_WINDOW_MAX / RS_CORR_WINDOW_SLACK)
        return;
    g->seen |= 1ull << point;       /* counted once */
    c->counts.late++;
    if (gap > c->counts.delay_max)
        c->counts.delay_max = gap;
}

void
corr_addr_text(const struct corr_entry *e, char *buf, size_t size)
{
    const uint8_t *a = e->addr;

    buf[0] = '\0';
    if (e->addr_kind == RS_CORR_ADDR_IPV4)
        snprintf(buf, size, "%u.%u.%u.%u > %u.%u.%u.%u", a[0], a[1], a[2], a[3], a[4], a[5],
                 a[6], a[7]);
    else if (e->addr_kind == RS_CORR_ADDR_LID) {
        uint16_t slid, dlid;
        memcpy(&slid, a, 2);
        memcpy(&dlid, a + 2, 2);
        snprintf(buf, size, "LID %u > LID %u", slid, dlid);
    }
    else if (e->addr_kind == RS_CORR_ADDR_IPV6)
        snprintf(buf, size, "..%02x%02x > ..%02x%02x", a[0], a[1], a[2], a[3]);
}

/* One frame's sighting; frame (NULL in a pass with no_frames) is the one shown if the
 * sighting opens a packet. */
static void
feed(struct rs_corr *c, unsigned point, const struct rs_corr_sighting *s,
     const struct rs_frame *frame)
{
    if (point >= c->n)
        return;
    int64_t t = rs_corr_clock_map(&c->opts.clock[point], s->t);

    if (!c->have_base) {
        c->base = t;
        c->have_base = true;
    }
    if (t > c->now)
        c->now = t;
    /* the window is counted from the latest time fed: the merge feeds in time order */
    if (c->now - c->opts.window > INT64_MIN + c->opts.window)
        expire(c, c->now - c->opts.window);
    if (!s->rdma)
        return;
    /* a full ring grows before any entry is looked at (they move); at max_packets, or
     * out of memory, open_entry finishes the oldest instead */
    if (c->tail - c->head == c->cap && c->cap < c->max_cap)
        ring_resize(c, c->cap * 2);
    struct rs_corr_point_counts *pc = &c->pc[point];
    pc->frames++;
    if (t < pc->first)
        pc->first = t;
    if (t > pc->last)
        pc->last = t;
    struct corr_entry *oldest = NULL;
    struct corr_entry *e = find_open(c, &s->key, s->conv, point, t, &oldest);
    bool fresh = e == NULL;
    if (fresh) {
        e = open_entry(c, &s->key, s->conv, t);
        if (e->conv != UINT32_MAX)
            c->conv[e->conv].last_joined[point] = t;
        e->key_first = oldest == NULL;
        oldest = e->key_first ? e : oldest;
        if (c->gone != NULL)
            note_late(c, &s->key, point, t);
    }
    if (oldest->key_first && !rs_corr_mask_has(corr_first_seen(c, oldest), point)) {
        rs_corr_mask_set(corr_first_seen(c, oldest), point);
        corr_first_t(c, oldest)[point] = t;
    }
    rs_corr_mask_set(corr_seen(c, e), point);
    e->n_seen++;
    corr_t(c, e)[point] = t;
    corr_number(c, e)[point] = s->number;
    corr_hdr(c, e)[point] = s->hdr;
    if (!fresh)
        return;
    e->shown = point;
    e->addr_kind = s->addr_kind;
    memcpy(e->addr, s->addr, sizeof(e->addr));
    if (frame == NULL)
        return;
    e->frame = *frame;
    e->frame.data = NULL;
    if (c->arena != NULL) {
        uint32_t len = frame->caplen;
        if (len > c->opts.copy_bytes / 4)
            len = c->opts.copy_bytes / 4;   /* a frame larger than the arena can hold whole */
        /* the arena is placed before the copy is recorded: placing may finish this
         * very packet when the ring holds nothing else */
        e->copy_len = 0;
        uint64_t at = arena_place(c, len);
        memcpy(c->arena + at % c->opts.copy_bytes, frame->data, len);
        e->copy_at = at;
        e->copy_len = len;
        e->frame.caplen = len;
    }
}

void
rs_corr_feed(struct rs_corr *c, unsigned point, const struct rs_frame *frame,
             const struct rs_packet *pkt)
{
    struct rs_corr_sighting s;

    rs_corr_sighting_of(frame, pkt, &s);
    feed(c, point, &s, frame);
}

void
rs_corr_feed_sighting(struct rs_corr *c, unsigned point, const struct rs_corr_sighting *s)
{
    feed(c, point, s, NULL);
}

void
rs_corr_flush(struct rs_corr *c)
{
    while (c->head != c->tail)
        finish_head(c);
}

struct rs_corr_counts
rs_corr_counts(const struct rs_corr *c)
{
    return c->counts;
}

struct rs_corr_point_counts
rs_corr_point_counts(const struct rs_corr *c, unsigned point)
{
    return point < c->n ? c->pc[point] : (struct rs_corr_point_counts){0, 0, 0, 0};
}

/* For finish.c: the shown frame of e, its bytes in the arena. */
const uint8_t *corr_copy_of(const struct rs_corr *c, const struct corr_entry *e);
const uint8_t *
corr_copy_of(const struct rs_corr *c, const struct corr_entry *e)
{
    return c->arena == NULL ? NULL : c->arena + e->copy_at % c->opts.copy_bytes;
}
