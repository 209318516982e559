/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * search.c - finding a packet by text, as Wireshark's "Find Packet" by
 * string in the packet list: the next shown packet, after a given place in
 * the list and wrapping at its end, whose row (the line `read` prints)
 * holds the text, in any case.
 *
 * Each candidate is read back through a cursor (frame_read.c: the capture
 * and the state file read ahead in windows), decoded, given its state and
 * printed by read's summary printer into one reused buffer. A text of ASCII
 * alone, the usual case, is looked for in the line in place, sixteen bytes
 * at a time; any other is case folded by GLib, line by line, which costs an
 * allocation each. It runs on a thread of its own (task.c) and stops
 * when asked, within a thousand packets. The list is looked at by a thread
 * per processor, each with its own cursor, taking chunks of it in order:
 * the line printer is most of the time, and `read | grep` spreads the same
 * work over two processes.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include <roceshark/dissectors/print.h>

#include "model_int.h"

/* How often the cancel flag and the progress are looked at. */
#define CHECK_EVERY 1024

struct matcher {
    char *needle;           /* lowercased (ASCII) or case folded (GLib) */
    size_t len;
    bool ascii;
    uint8_t lower1, upper1; /* its first byte in either case */
};

static const uint64_t ONES = 0x0101010101010101ull;

static bool
matcher_init(struct matcher *mt, const char *text)
{
    memset(mt, 0, sizeof(*mt));
    mt->ascii = true;
    for (const char *p = text; *p != '\0'; p++)
        mt->ascii &= (unsigned char)*p < 0x80;
    mt->needle = mt->ascii ? g_ascii_strdown(text, -1) : g_utf8_casefold(text, -1);
    if (mt->needle == NULL)
        return false;
    mt->len = strlen(mt->needle);
    mt->lower1 = (uint8_t)mt->needle[0];
    mt->upper1 = mt->lower1 >= 'a' && mt->lower1 <= 'z' ? mt->lower1 - 0x20 : mt->lower1;
    return true;
}

static void
matcher_free(struct matcher *mt)
{
    g_free(mt->needle);
}

/* Sixteen bytes compared at once, by GCC's and clang's vector extensions (SSE2 or NEON,
 * or plain words where there is neither). */
typedef uint8_t bytes16 __attribute__((vector_size(16)));

static inline char
ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c | 0x20) : c;
}

/* Whether the ASCII needle is at line[at], in any case (the line holds len bytes from
 * there). */
static bool
ascii_at(const struct matcher *mt, const char *line, size_t at)
{
    for (size_t k = 1; k < mt->len; k++)
        if (ascii_lower(line[at + k]) != mt->needle[k])
            return false;
    return true;
}

/* Which byte of a word loaded by memcpy() holds a bit. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BYTE_AT(bit) (7 - (size_t)(bit) / 8)
#else
#define BYTE_AT(bit) ((size_t)(bit) / 8)
#endif

/* Whether line (n bytes) holds the text. An ASCII text is looked for in place, sixteen
 * bytes at a time: the places of its first byte, in either case, found at once, and
 * only there compared whole (a lowercased copy of each line and memmem() over it were
 * a fifth of a search's time). */
static bool
matches(const struct matcher *mt, const char *line, size_t n)
{
    if (!mt->ascii) {
        char *folded = g_utf8_casefold(line, (gssize)n);
        bool hit = strstr(folded, mt->needle) != NULL;
        g_free(folded);
        return hit;
    }
    if (mt->len == 0)
        return true;
    if (mt->len > n)
        return false;
    size_t last = n - mt->len;      /* the last place the text can start */
    if (n < 16) {
        for (size_t at = 0; at <= last; at++)
            if (ascii_lower(line[at]) == (char)mt->lower1 && ascii_at(mt, line, at))
                return true;
        return false;
    }
    /* Whole loads of sixteen bytes (a short copy into a vector stalled its load), the last
     * one ending at the line's end, over some of the bytes before. */
    for (size_t i = 0; i <= last; i += 16) {
        size_t from = i + 16 <= n ? i : n - 16;
        bytes16 v;
        memcpy(&v, line + from, sizeof(v));
        bytes16 eq = (bytes16)((v == mt->lower1) | (v == mt->upper1));
        uint64_t half[2];
        memcpy(half, &eq, sizeof(half));
        for (size_t h = 0; h < 2; h++)
            for (uint64_t hits = half[h] & (0x80 * ONES); hits != 0; hits &= hits - 1) {
                size_t at = from + 8 * h + BYTE_AT(__builtin_ctzll(hits));
                if (at <= last && ascii_at(mt, line, at))
                    return true;
            }
    }
    return false;
}

/* The search's state, shared by its threads: the positions after `after` are taken
 * in chunks of CHECK_EVERY, handed out in order, and the first match in that order
 * wins, so that the result is the one a single thread finds. */
struct search {
    struct rs_tui_model *m;
    uint64_t after, n;
    const char *text;
    const struct rs_tui_time_opts *time;
    struct rs_tui_work *work;
    _Atomic uint64_t next_chunk;
    _Atomic uint64_t best;          /* the least i matched, UINT64_MAX while none */
    _Atomic uint64_t looked;        /* packets looked at, in every thread */
    atomic_bool stop;               /* an error, or cancelled */
    pthread_mutex_t mu;
    int rc;                         /* the first error (under mu) */
    char err[RS_ERRBUF_SIZE];
};

/* At most this many threads (the caller's included) look at once: each reads the
 * capture and the state file back and prints lines, so that a search over 5M frames
 * keeps pace with `read | grep`, two processes. */
#define SEARCH_MAX_THREADS 8

static void
search_fail(struct search *s, int rc, const char *err)
{
    pthread_mutex_lock(&s->mu);
    if (s->rc == 0) {
        s->rc = rc;
        snprintf(s->err, sizeof(s->err), "%s", err);
    }
    pthread_mutex_unlock(&s->mu);
    atomic_store(&s->stop, true);
}

/* Lowers s->best to i, unless a match before it is already known. */
static void
search_found(struct search *s, uint64_t i)
{
    uint64_t best = atomic_load(&s->best);

    while (i < best && !atomic_compare_exchange_weak(&s->best, &best, i))
        ;
}

/* The frame numbers at positions first..last of the search (after s->after, wrapping),
 * under one take of the model's lock: taken for each, it went from core to core. */
static void
chunk_numbers(struct search *s, uint64_t first, uint64_t last, uint64_t *numbers)
{
    struct rs_tui_model *m = s->m;

    pthread_mutex_lock(&m->mu);
    for (uint64_t i = first; i <= last; i++) {
        uint64_t pos = (s->after + i) % s->n;
        numbers[i - first] = pos >= m->n_shown ? 0 : m->all_shown ? pos + 1 : m->shown[pos];
    }
    pthread_mutex_unlock(&m->mu);
}

/* Whether the line of frame number holds the text; -1 on an error. */
static int
search_one(struct search *s, struct matcher *mt, struct rs_out *o, struct rs_tui_decoded *d,
           struct rs_tui_cursor *c, uint64_t number, char *err)
{
    struct rs_tui_model *m = s->m;
    int rc;

    if ((rc = rs_tui_model_decode_at(m, number, d, c, err)) != 0) {
        search_fail(s, rc, err);
        return -1;
    }
    o->len = 0;
    if (o->time_col == RS_TIME_COL_DELTA_SHOWN)
        rs_tui_model_delta_shown(m, number, d);
    rs_print_summary(o, &d->pkt);
    if (o->failed) {
        search_fail(s, RS_ENOMEM, "search: out of memory");
        return -1;
    }
    return matches(mt, o->buf, o->len > 0 ? o->len - 1 : 0);   /* the line less its newline */
}

/* One of the search's threads: chunks in order until one holds a match, one starts past
 * a match already found, or the search stops. */
static void *
search_main(void *arg)
{
    struct search *s = arg;
    struct rs_tui_decoded d = {0};
    struct rs_tui_cursor *c = NULL;
    struct matcher mt;
    struct rs_out o;
    char err[RS_ERRBUF_SIZE];
    uint64_t numbers[CHECK_EVERY];
    bool have_out = false;

    if (!matcher_init(&mt, s->text) || !(have_out = rs_out_init(&o, NULL, 4096) == 0) ||
        rs_tui_cursor_new(&c, err) != 0) {
        search_fail(s, RS_ENOMEM, "search: out of memory");
        goto out;
    }
    o.time_col = s->time != NULL ? s->time->col : RS_TIME_COL_RELATIVE;
    while (!atomic_load(&s->stop)) {
        uint64_t first = atomic_fetch_add(&s->next_chunk, 1) * CHECK_EVERY + 1;
        if (first > s->n || first > atomic_load(&s->best))
            break;
        uint64_t last = first + CHECK_EVERY - 1 < s->n ? first + CHECK_EVERY - 1 : s->n;
        uint64_t i;
        int hit = 0;
        chunk_numbers(s, first, last, numbers);
        for (i = first; i <= last && hit == 0; i++)
            hit = search_one(s, &mt, &o, &d, c, numbers[i - first], err);
        if (hit > 0)
            search_found(s, i - 1);
        uint64_t looked = atomic_fetch_add(&s->looked, i - first) + (i - first);
        if (hit != 0)
            break;
        if (s->work != NULL) {
            atomic_store(&s->work->done, looked);
            if (atomic_load(&s->work->cancel))
                atomic_store(&s->stop, true);
        }
    }
out:
    if (have_out)
        rs_out_free(&o);
    rs_tui_cursor_free(c);
    rs_tui_decoded_free(&d);
    matcher_free(&mt);
    return NULL;
}

int
rs_tui_model_search(struct rs_tui_model *m, uint64_t after, const char *text,
                    const struct rs_tui_time_opts *time, struct rs_tui_work *work,
                    uint64_t *found, uint64_t *looked, char *err)
{
    uint64_t n = rs_tui_model_shown_count(m);
    struct search s = {.m = m, .after = after, .n = n, .text = text, .time = time,
                       .work = work};
    pthread_t threads[SEARCH_MAX_THREADS - 1];
    size_t n_threads = 0;

    *looked = 0;
    if (n == 0)
        return rs_error(err, RS_ENOENT, "no packets shown to search");
    atomic_init(&s.next_chunk, 0);
    atomic_init(&s.best, UINT64_MAX);
    atomic_init(&s.looked, 0);
    atomic_init(&s.stop, false);
    pthread_mutex_init(&s.mu, NULL);
    if (work != NULL)
        atomic_store(&work->total, n);
    /* A thread more per processor, while there is more than a chunk each to look at. */
    long cpus = m->search_threads != 0 ? (long)m->search_threads
                                       : sysconf(_SC_NPROCESSORS_ONLN);
    while (n_threads + 1 < (size_t)(cpus > 0 ? cpus : 1) && n_threads + 1 < SEARCH_MAX_THREADS &&
           (n_threads + 1) * CHECK_EVERY < n &&
           pthread_create(&threads[n_threads], NULL, search_main, &s) == 0)
        n_threads++;
    search_main(&s);
    for (size_t i = 0; i < n_threads; i++)
        pthread_join(threads[i], NULL);
    pthread_mutex_destroy(&s.mu);

    uint64_t best = atomic_load(&s.best);
    int rc;
    if (s.rc != 0) {
        rc = rs_error(err, s.rc, "%s", s.err);
        *looked = atomic_load(&s.looked);
    } else if (best != UINT64_MAX) {
        *found = (after + best) % n;
        *looked = best;
        rc = 0;
    } else if (atomic_load(&s.stop) && atomic_load(&s.looked) < n) {
        /* Stopped before the end; a stop asked once every packet was looked at is
         * too late to stop anything. */
        *looked = atomic_load(&s.looked);
        rc = rs_error(err, RS_ECANCELED, "\"%s\": stopped after %llu of %llu packets", text,
                      (unsigned long long)*looked, (unsigned long long)n);
    } else {
        *looked = n;
        rc = rs_error(err, RS_ENOENT, "\"%s\" is not in the %llu packets", text,
                      (unsigned long long)n);
    }
    if (work != NULL)
        atomic_store(&work->done, *looked);
    return rc;
}
