/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rates.c - bytes per second of each conversation over the last 2, 10 and
 * 40 seconds, as iftop's three columns.
 *
 * Each conversation keeps a ring of one-second buckets as long as the
 * longest window; a window's rate is the sum of its newest buckets over its
 * length. The clock is the capture's (the newest frame's time), so a file
 * shows the rates it had at its end and a live capture the current ones.
 *
 * Rings are kept for as many conversations as the analysis follows (its
 * table's bound): when traffic opens more, the ring updated longest ago is
 * reused and counted, as the analysis evicts the conversation used longest
 * ago. A table indexed by conversation id grew with every conversation
 * ever seen: 700 MB for two million of them.
 */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/recency.h>
#include <roceshark/tui.h>

#define RING_SECONDS 40u

const unsigned rs_tui_rate_seconds[RS_TUI_RATE_WINDOWS] = {2, 10, 40};

_Static_assert(RING_SECONDS == 40, "the ring covers the longest window");

struct conv_ring {
    uint32_t conv;
    struct rs_recency_link recency;
    int64_t newest;                 /* second of the newest bucket */
    uint64_t bytes[RING_SECONDS];   /* indexed by second modulo RING_SECONDS */
};

struct rs_tui_rates {
    struct conv_ring *rings;
    uint32_t n, cap, max;           /* rings in use, allocated, and at most */
    struct rs_recency recency;      /* of the rings, by position */
    GHashTable *by_conv;            /* conversation id -> ring index + 1 */
    uint64_t dropped;
};

int
rs_tui_rates_new(uint32_t max_convs, struct rs_tui_rates **out, char *err)
{
    struct rs_tui_rates *r = calloc(1, sizeof(*r));

    if (r == NULL)
        return rs_error(err, RS_ENOMEM, "rates: out of memory");
    r->max = max_convs > 0 ? max_convs : 1;
    rs_recency_init(&r->recency);
    r->by_conv = g_hash_table_new(g_direct_hash, g_direct_equal);
    *out = r;
    return 0;
}

void
rs_tui_rates_free(struct rs_tui_rates *r)
{
    if (r == NULL)
        return;
    g_hash_table_destroy(r->by_conv);
    free(r->rings);
    free(r);
}

void
rs_tui_rates_clear(struct rs_tui_rates *r)
{
    g_hash_table_remove_all(r->by_conv);
    r->n = 0;
    rs_recency_init(&r->recency);
    r->dropped = 0;
}

uint64_t
rs_tui_rates_dropped(const struct rs_tui_rates *r)
{
    return r->dropped;
}

static size_t
ring_slot(int64_t sec)
{
    int64_t m = sec % (int64_t)RING_SECONDS;

    return (size_t)(m < 0 ? m + RING_SECONDS : m);
}

/* A ring for a conversation not yet kept: a new one while fewer than max
 * are, else the one used longest ago, whose conversation loses its rates. */
static int
take_ring(struct rs_tui_rates *r, uint32_t *index)
{
    if (r->n == r->max) {
        uint32_t i = r->recency.oldest;
        g_hash_table_remove(r->by_conv, GUINT_TO_POINTER(r->rings[i].conv));
        rs_recency_unlink(&r->recency, &r->rings->recency, sizeof(*r->rings), i);
        r->dropped++;
        *index = i;
        return 0;
    }
    if (r->n == r->cap) {
        uint32_t cap = r->cap == 0 ? 64 : r->cap > r->max / 2 ? r->max : 2 * r->cap;
        struct conv_ring *rings = realloc(r->rings, (size_t)cap * sizeof(*rings));
        if (rings == NULL)
            return RS_ENOMEM;
        r->rings = rings;
        r->cap = cap;
    }
    *index = r->n++;
    return 0;
}

int
rs_tui_rates_add(struct rs_tui_rates *r, uint32_t conv, struct rs_time t, uint32_t bytes)
{
    uint32_t i = GPOINTER_TO_UINT(g_hash_table_lookup(r->by_conv, GUINT_TO_POINTER(conv)));
    struct conv_ring *c;

    if (i != 0) {
        c = &r->rings[--i];
        rs_recency_touch(&r->recency, &r->rings->recency, sizeof(*r->rings), i);
    } else {
        if (take_ring(r, &i) != 0)
            return RS_ENOMEM;
        c = &r->rings[i];
        memset(c, 0, sizeof(*c));
        c->conv = conv;
        c->newest = t.sec;
        rs_recency_push(&r->recency, &r->rings->recency, sizeof(*r->rings), i);
        g_hash_table_insert(r->by_conv, GUINT_TO_POINTER(conv), GUINT_TO_POINTER(i + 1));
    }
    if (t.sec > c->newest) {
        /* Seconds that passed without traffic count zero. */
        int64_t gap = t.sec - c->newest;
        for (int64_t s = 1; s <= gap && s <= (int64_t)RING_SECONDS; s++)
            c->bytes[ring_slot(c->newest + s)] = 0;
        c->newest = t.sec;
    } else if (c->newest - t.sec >= (int64_t)RING_SECONDS) {
        return 0;
    }
    c->bytes[ring_slot(t.sec)] += bytes;
    return 0;
}

bool
rs_tui_rates_get(const struct rs_tui_rates *r, uint32_t conv, struct rs_time now,
                 double out[RS_TUI_RATE_WINDOWS])
{
    uint32_t i = GPOINTER_TO_UINT(g_hash_table_lookup(r->by_conv, GUINT_TO_POINTER(conv)));
    const struct conv_ring *c = i != 0 ? &r->rings[i - 1] : NULL;

    for (int w = 0; w < RS_TUI_RATE_WINDOWS; w++) {
        int64_t len = rs_tui_rate_seconds[w];
        uint64_t sum = 0;
        /* The window is the seconds (now - len, now]; buckets hold only the
         * RING_SECONDS up to the newest. */
        for (int64_t s = now.sec - len + 1; c != NULL && s <= now.sec; s++)
            if (s <= c->newest && c->newest - s < (int64_t)RING_SECONDS)
                sum += c->bytes[ring_slot(s)];
        out[w] = c != NULL ? (double)sum / (double)len : -1;
    }
    return c != NULL;
}
