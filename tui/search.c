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
 * alone, the usual case, is matched byte by byte against a lowercased copy
 * of the line; any other is case folded by GLib, line by line, which costs
 * an allocation each. It runs on a thread of its own (task.c) and stops
 * when asked, within a thousand packets.
 */
#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <roceshark/print.h>

#include "model_int.h"

/* How often the cancel flag and the progress are looked at. */
#define CHECK_EVERY 1024

struct matcher {
    char *needle;           /* lowercased (ASCII) or case folded (GLib) */
    size_t len;
    bool ascii;
    char *lower;            /* the line, lowercased */
    size_t lower_cap;
};

static bool
matcher_init(struct matcher *mt, const char *text)
{
    memset(mt, 0, sizeof(*mt));
    mt->ascii = true;
    for (const char *p = text; *p != '\0'; p++)
        mt->ascii &= (unsigned char)*p < 0x80;
    mt->needle = mt->ascii ? g_ascii_strdown(text, -1) : g_utf8_casefold(text, -1);
    mt->len = strlen(mt->needle);
    return mt->needle != NULL;
}

static void
matcher_free(struct matcher *mt)
{
    g_free(mt->needle);
    free(mt->lower);
}

/* Whether line (n bytes) holds the text. */
static bool
matches(struct matcher *mt, const char *line, size_t n)
{
    if (!mt->ascii) {
        char *folded = g_utf8_casefold(line, (gssize)n);
        bool hit = strstr(folded, mt->needle) != NULL;
        g_free(folded);
        return hit;
    }
    if (n + 1 > mt->lower_cap) {
        char *p = realloc(mt->lower, n + 1);
        if (p == NULL)
            return false;
        mt->lower = p;
        mt->lower_cap = n + 1;
    }
    for (size_t i = 0; i < n; i++)
        mt->lower[i] = (char)tolower((unsigned char)line[i]);
    return memmem(mt->lower, n, mt->needle, mt->len) != NULL;
}

int
rs_tui_model_search(struct rs_tui_model *m, uint64_t after, const char *text,
                    const struct rs_tui_time_opts *time, struct rs_tui_work *work,
                    uint64_t *found, uint64_t *looked, char *err)
{
    uint64_t n = rs_tui_model_shown_count(m);
    struct rs_tui_decoded d = {0};
    struct rs_tui_cursor *c = NULL;
    struct matcher mt;
    struct rs_out o;
    int rc = RS_ENOENT;

    *looked = 0;
    if (n == 0)
        return rs_error(err, RS_ENOENT, "no packets shown to search");
    if (!matcher_init(&mt, text) || rs_out_init(&o, NULL, 4096) != 0 ||
        rs_tui_cursor_new(&c, err) != 0) {
        matcher_free(&mt);
        return rs_error(err, RS_ENOMEM, "search: out of memory");
    }
    o.time_col = time != NULL ? time->col : RS_TIME_COL_RELATIVE;
    if (work != NULL)
        atomic_store(&work->total, n);
    for (uint64_t i = 1; i <= n; i++) {
        uint64_t pos = (after + i) % n;
        if (i % CHECK_EVERY == 0 && work != NULL) {
            atomic_store(&work->done, i);
            if (atomic_load(&work->cancel)) {
                rc = rs_error(err, RS_ECANCELED, "\"%s\": stopped after %llu of %llu packets",
                              text, (unsigned long long)*looked, (unsigned long long)n);
                break;
            }
        }
        (*looked)++;
        if ((rc = rs_tui_model_decode_at(m, rs_tui_model_shown_frame(m, pos), &d, c, err)) != 0)
            break;
        o.len = 0;
        /* The frame listed before it, for a time column of "since the one shown before". */
        if (o.time_col == RS_TIME_COL_DELTA_SHOWN) {
            struct rs_tui_frame prev;
            o.shown_before = pos > 0 &&
                             rs_tui_model_frame(m, rs_tui_model_shown_frame(m, pos - 1), &prev);
            if (o.shown_before)
                o.last_shown = (struct rs_time){prev.ts_sec, (int32_t)prev.ts_nsec};
        }
        rs_print_summary(&o, &d.pkt);
        if (o.failed) {
            rc = rs_error(err, RS_ENOMEM, "search: out of memory");
            break;
        }
        if (matches(&mt, o.buf, o.len > 0 ? o.len - 1 : 0)) {   /* the line less its newline */
            *found = pos;
            rc = 0;
            break;
        }
        rc = RS_ENOENT;
    }
    if (rc == RS_ENOENT)
        rs_error(err, RS_ENOENT, "\"%s\" is not in the %llu packets", text,
                 (unsigned long long)*looked);
    if (work != NULL)
        atomic_store(&work->done, *looked);
    rs_out_free(&o);
    rs_tui_cursor_free(c);
    rs_tui_decoded_free(&d);
    matcher_free(&mt);
    return rc;
}
