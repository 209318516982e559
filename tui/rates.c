/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rates.c - bytes per second of each conversation over the last 2, 10 and
 * 40 seconds, as iftop's three columns, exactly: a window ending at now
 * holds the frames whose times are in (now - W, now], and its rate is their
 * bytes on the wire (as -z conv counts them) over W. A steady 9,000 B/s
 * reads 9.0K in all three once the window is full.
 *
 * Each window keeps a running sum per conversation and a tail: the first
 * frame of the index still inside it. Frames are added as the index grows;
 * as now moves, each tail walks the index forward, taking out every frame
 * that fell out of its window. So each frame is added once and taken out
 * once per window, whatever the rate, and the cost is four lookups a frame
 * at worst (runs of one conversation's frames are summed first). One-second
 * buckets, as before, made a steady rate read anything from 0.75 to 1.5 of
 * itself, depending on where in the second now fell.
 *
 * The clock is the capture's (the newest frame's time; a live capture's the
 * host's when it is ahead, so that rates fall when traffic stops).
 *
 * Sums are kept for at most max_convs conversations at once (the analysis'
 * bound): past it, the conversation seen longest ago loses its sums
 * (counted in dropped), as the analysis evicts the conversation used
 * longest ago, and its row shows no rate (`-`). A conversation counted from
 * frame `since` on takes out only frames from there on, so that its sums
 * never go below what was added, whatever was forgotten before.
 */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/recency.h>
#include <roceshark/tui/tui.h>

const unsigned rs_tui_rate_seconds[RS_TUI_RATE_WINDOWS] = {2, 10, 40};

struct conv_sums {
    uint32_t conv;
    struct rs_recency_link recency;
    uint64_t bytes[RS_TUI_RATE_WINDOWS];
    uint64_t since;         /* the first frame counted */
};

struct rs_tui_rates {
    struct conv_sums *sums;
    uint32_t n, cap, max;   /* in use, allocated, and at most */
    struct rs_recency recency;      /* of the sums, by position: the one seen longest ago */
    GHashTable *by_conv;    /* conversation id -> its sums' position + 1 */
    uint64_t added;         /* frames of the index added so far */
    uint64_t tail[RS_TUI_RATE_WINDOWS];     /* each window's first frame (number - 1) */
    struct rs_time now;
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
    free(r->sums);
    free(r);
}

void
rs_tui_rates_clear(struct rs_tui_rates *r)
{
    g_hash_table_remove_all(r->by_conv);
    r->n = 0;
    rs_recency_init(&r->recency);
    r->added = 0;
    memset(r->tail, 0, sizeof(r->tail));
    r->now = (struct rs_time){0, 0};
    r->dropped = 0;
}

uint64_t
rs_tui_rates_dropped(const struct rs_tui_rates *r)
{
    return r->dropped;
}

static struct conv_sums *
sums_of(const struct rs_tui_rates *r, uint32_t conv)
{
    uint32_t i = GPOINTER_TO_UINT(g_hash_table_lookup(r->by_conv, GUINT_TO_POINTER(conv)));

    return i != 0 ? &r->sums[i - 1] : NULL;
}

/* Room for a conversation not counted yet: new sums while fewer than max are kept, else
 * those of the conversation seen longest ago. */
static struct conv_sums *
take_sums(struct rs_tui_rates *r, uint32_t conv)
{
    uint32_t i;

    if (r->n == r->max) {
        i = r->recency.oldest;
        g_hash_table_remove(r->by_conv, GUINT_TO_POINTER(r->sums[i].conv));
        rs_recency_unlink(&r->recency, &r->sums->recency, sizeof(*r->sums), i);
        r->dropped++;
    } else {
        if (r->n == r->cap) {
            uint32_t cap = r->cap == 0 ? 64 : r->cap > r->max / 2 ? r->max : 2 * r->cap;
            struct conv_sums *s = realloc(r->sums, (size_t)cap * sizeof(*s));
            if (s == NULL)
                return NULL;
            r->sums = s;
            r->cap = cap;
        }
        i = r->n++;
    }
    memset(&r->sums[i], 0, sizeof(r->sums[i]));
    r->sums[i].conv = conv;
    rs_recency_push(&r->recency, &r->sums->recency, sizeof(*r->sums), i);
    g_hash_table_insert(r->by_conv, GUINT_TO_POINTER(conv), GUINT_TO_POINTER(i + 1));
    return &r->sums[i];
}

/* Adds bytes of conv's frames from number first on (a run of one conversation). */
static void
add_run(struct rs_tui_rates *r, uint32_t conv, uint64_t bytes, uint64_t first)
{
    struct conv_sums *s = sums_of(r, conv);

    if (s == NULL) {
        if ((s = take_sums(r, conv)) == NULL) {
            r->dropped++;       /* out of memory: not counted */
            return;
        }
        s->since = first;
    } else {
        rs_recency_touch(&r->recency, &r->sums->recency, sizeof(*r->sums),
                         (uint32_t)(s - r->sums));
    }
    for (int w = 0; w < RS_TUI_RATE_WINDOWS; w++)
        s->bytes[w] += bytes;
}

/* Moves window w's tail past every frame (added) that is no longer in (now - W, now],
 * taking each out of its conversation's sums: runs of one conversation's frames are
 * summed first, and of them only the frames from the sums' `since` on were counted. */
static void
move_tail(struct rs_tui_rates *r, const struct rs_tui_index *ix, int w)
{
    struct rs_time edge = rs_time_sub(r->now, (struct rs_time){rs_tui_rate_seconds[w], 0});
    struct conv_sums *run = NULL;
    uint32_t run_conv = 0;
    uint64_t run_bytes = 0;

    while (r->tail[w] < r->added) {
        const struct rs_tui_frame *f = rs_tui_index_get(ix, r->tail[w] + 1);
        if (f == NULL || rs_time_cmp((struct rs_time){f->ts_sec, (int32_t)f->ts_nsec}, edge) > 0)
            break;
        uint64_t number = ++r->tail[w];
        if (f->conv == 0)
            continue;
        if (f->conv != run_conv) {
            if (run != NULL)
                run->bytes[w] = run->bytes[w] >= run_bytes ? run->bytes[w] - run_bytes : 0;
            run_conv = f->conv;
            run = sums_of(r, run_conv);
            run_bytes = 0;
        }
        if (run != NULL && number >= run->since)
            run_bytes += f->wire_len;
    }
    if (run != NULL)
        run->bytes[w] = run->bytes[w] >= run_bytes ? run->bytes[w] - run_bytes : 0;
}

void
rs_tui_rates_advance(struct rs_tui_rates *r, const struct rs_tui_index *ix, uint64_t upto,
                     struct rs_time now)
{
    uint32_t run_conv = 0;
    uint64_t run_bytes = 0, run_first = 0;

    /* The frames that left first, so that a conversation quiet by now makes room for
     * the new ones. */
    if (rs_time_cmp(now, r->now) > 0)
        r->now = now;
    for (int w = 0; w < RS_TUI_RATE_WINDOWS; w++)
        move_tail(r, ix, w);
    while (r->added < upto) {
        const struct rs_tui_frame *f = rs_tui_index_get(ix, r->added + 1);
        if (f == NULL)
            break;
        r->added++;
        if (f->conv == 0)
            continue;
        if (f->conv != run_conv && run_bytes > 0) {
            add_run(r, run_conv, run_bytes, run_first);
            run_bytes = 0;
        }
        if (run_bytes == 0) {
            run_conv = f->conv;
            run_first = r->added;
        }
        run_bytes += f->wire_len;
    }
    if (run_bytes > 0)
        add_run(r, run_conv, run_bytes, run_first);
    for (int w = 0; w < RS_TUI_RATE_WINDOWS; w++)
        move_tail(r, ix, w);
}

bool
rs_tui_rates_get(const struct rs_tui_rates *r, uint32_t conv, double out[RS_TUI_RATE_WINDOWS])
{
    const struct conv_sums *s = sums_of(r, conv);

    for (int w = 0; w < RS_TUI_RATE_WINDOWS; w++)
        out[w] = s != NULL ? (double)s->bytes[w] / rs_tui_rate_seconds[w] : -1;
    return s != NULL;
}
