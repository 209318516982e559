/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rates.c - bytes per second of each conversation over the last 2, 10 and
 * 40 seconds, as iftop's three columns.
 *
 * Each conversation keeps a ring of one-second buckets as long as the
 * longest window; a window's rate is the sum of its newest buckets over its
 * length. The clock is the capture's (the newest frame's time), so a file
 * shows the rates it had at its end and a live capture the current ones.
 * Conversation ids are small and dense (from 1), so a plain array indexed
 * by id serves as the table.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/tui.h>

#define RING_SECONDS 40u

const unsigned rs_tui_rate_seconds[RS_TUI_RATE_WINDOWS] = {2, 10, 40};

_Static_assert(RING_SECONDS == 40, "the ring covers the longest window");

struct conv_ring {
    bool used;
    int64_t newest;                 /* second of the newest bucket */
    uint64_t bytes[RING_SECONDS];   /* indexed by second modulo RING_SECONDS */
};

struct rs_tui_rates {
    struct conv_ring *convs;        /* indexed by conversation id */
    size_t cap;
};

int
rs_tui_rates_new(struct rs_tui_rates **out, char *err)
{
    *out = calloc(1, sizeof(**out));
    if (*out == NULL)
        return rs_error(err, RS_ENOMEM, "rates: out of memory");
    return 0;
}

void
rs_tui_rates_free(struct rs_tui_rates *r)
{
    if (r == NULL)
        return;
    free(r->convs);
    free(r);
}

void
rs_tui_rates_clear(struct rs_tui_rates *r)
{
    if (r->cap > 0)
        memset(r->convs, 0, r->cap * sizeof(*r->convs));
}

static size_t
ring_slot(int64_t sec)
{
    int64_t m = sec % (int64_t)RING_SECONDS;

    return (size_t)(m < 0 ? m + RING_SECONDS : m);
}

static int
grow(struct rs_tui_rates *r, uint32_t conv)
{
    size_t cap = r->cap == 0 ? 64 : r->cap;

    while (cap <= conv)
        cap *= 2;
    struct conv_ring *c = realloc(r->convs, cap * sizeof(*c));
    if (c == NULL)
        return RS_ENOMEM;
    memset(c + r->cap, 0, (cap - r->cap) * sizeof(*c));
    r->convs = c;
    r->cap = cap;
    return 0;
}

int
rs_tui_rates_add(struct rs_tui_rates *r, uint32_t conv, struct rs_time t, uint32_t bytes)
{
    if (conv >= r->cap && grow(r, conv) != 0)
        return RS_ENOMEM;
    struct conv_ring *c = &r->convs[conv];
    if (!c->used) {
        c->used = true;
        c->newest = t.sec;
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

void
rs_tui_rates_get(const struct rs_tui_rates *r, uint32_t conv, struct rs_time now,
                 double out[RS_TUI_RATE_WINDOWS])
{
    const struct conv_ring *c = conv < r->cap ? &r->convs[conv] : NULL;

    for (int w = 0; w < RS_TUI_RATE_WINDOWS; w++) {
        int64_t len = rs_tui_rate_seconds[w];
        uint64_t sum = 0;
        /* The window is the seconds (now - len, now]; buckets hold only the
         * RING_SECONDS up to the newest. */
        for (int64_t s = now.sec - len + 1; c != NULL && c->used && s <= now.sec; s++)
            if (s <= c->newest && c->newest - s < (int64_t)RING_SECONDS)
                sum += c->bytes[ring_slot(s)];
        out[w] = (double)sum / (double)len;
    }
}
