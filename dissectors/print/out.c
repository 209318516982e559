/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * out.c - the printers' output buffer: append in memory, write in blocks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/print.h>

#include "print/json_int.h"
#include "print/tree_doc.h"

#define OUT_FLUSH_AT(o) ((o)->cap - (o)->cap / 4)

int
rs_out_init(struct rs_out *o, FILE *fp, size_t cap)
{
    memset(o, 0, sizeof(*o));
    o->fp = fp;
    o->cap = cap;
    o->buf = malloc(cap);
    return o->buf == NULL ? RS_ENOMEM : 0;
}

void
rs_out_free(struct rs_out *o)
{
    free(o->buf);
    o->buf = NULL;
}

int
rs_out_flush(struct rs_out *o)
{
    if (o->fp == NULL)
        return o->failed ? RS_EIO : 0;      /* a memory buffer keeps what it holds */
    if (o->len > 0 && !o->failed) {
        if (fwrite(o->buf, 1, o->len, o->fp) != o->len || fflush(o->fp) != 0)
            o->failed = true;
    }
    o->len = 0;
    return o->failed ? RS_EIO : 0;
}

/* Grows the buffer for one oversized item (a long -V line); otherwise the
 * buffer is flushed before it fills. A memory buffer (no FILE) grows. */
bool
rs_out_room(struct rs_out *o, size_t n)
{
    if (o->len + n <= o->cap)
        return true;
    size_t need = n;
    if (o->fp != NULL) {
        rs_out_flush(o);
        if (n <= o->cap)
            return true;
    } else {
        need = o->len + n > 2 * o->cap ? o->len + n : 2 * o->cap;
    }
    char *bigger = realloc(o->buf, need);
    if (bigger == NULL) {
        o->failed = true;
        return false;
    }
    o->buf = bigger;
    o->cap = need;
    return true;
}

void
rs_out_value(struct rs_out *o, const struct rs_field *f, const struct rs_value *v)
{
    /* Formatted in place: most values are a few digits, and the copy through a buffer
     * on the stack it replaced cost -T fields with five fields some 8% (200 against
     * 183 ms on bench/data/hostile_300k.pcap). A long one (a byte field) is formatted
     * again into room of its size. */
    enum { SHORT_VALUE = 128 };
    char *p = rs_out_reserve(o, SHORT_VALUE);

    if (p == NULL)
        return;
    size_t n = rs_value_format_style(f, v, o->style, p, SHORT_VALUE);
    if (n < SHORT_VALUE) {
        rs_out_commit(o, n);
        return;
    }
    p = rs_out_reserve(o, n + 1);
    if (p != NULL)
        rs_out_commit(o, rs_value_format_style(f, v, o->style, p, n + 1));
}

void
rs_out_write_block(struct rs_out *o, const char *s, size_t n)
{
    if (o->fp == NULL || n < OUT_FLUSH_AT(o) / 2) {
        rs_out_write(o, s, n);
        return;
    }
    rs_out_flush(o);
    if (!o->failed && fwrite(s, 1, n, o->fp) != n)
        o->failed = true;
}

static void
out_spaces(struct rs_out *o, size_t n)
{
    char *p = rs_out_reserve(o, n);

    if (p != NULL) {
        memset(p, ' ', n);
        o->len += n;
    }
}

static void
out_padded(struct rs_out *o, const char *s, size_t n, int width, bool left)
{
    size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;

    if (!left)
        out_spaces(o, pad);
    rs_out_write(o, s, n);
    if (left)
        out_spaces(o, pad);
}

void
rs_out_pad(struct rs_out *o, const char *s, int width, bool left)
{
    out_padded(o, s, strlen(s), width, left);
}

void
rs_out_pad_u64(struct rs_out *o, uint64_t v, int width)
{
    char digits[RS_U64_TEXT_MAX];

    out_padded(o, digits, rs_format_u64(digits, v), width, false);
}

void
rs_out_printf(struct rs_out *o, const char *fmt, ...)
{
    va_list ap;
    size_t room = o->cap - o->len;

    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, room, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= room) {
        if (!rs_out_room(o, (size_t)n + 1))
            return;
        va_start(ap, fmt);
        vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
    }
    o->len += (size_t)n;
}

void
rs_out_gap(struct rs_out *o)
{
    if (o->gap != NULL)
        rs_out_str(o, o->gap);
    rs_out_char(o, '\n');
}

void
rs_out_end_frame(struct rs_out *o)
{
    if (o->line_buffered || o->len >= OUT_FLUSH_AT(o))
        rs_out_flush(o);
}

static _Thread_local struct rs_out line;
static _Thread_local bool ready;

void
rs_print_thread_end(void)
{
    if (ready)
        rs_out_free(&line);
    ready = false;
    tree_doc_thread_end();
    json_thread_end();
}

struct rs_out *
rs_out_scratch(const struct rs_out *like)
{
    if (!ready) {
        if (rs_out_init(&line, NULL, 4096) != 0)
            return NULL;
        ready = true;
    }
    line.len = 0;
    line.style = like != NULL ? like->style : RS_STYLE_TSHARK_4_0;
    return &line;
}

void
rs_out_hex(struct rs_out *o, const uint8_t *p, size_t n, char sep)
{
    size_t width = sep != '\0' ? 3 : 2;

    /* Room for all of it at once, then written in place: a payload's kilobyte
     * was three calls per byte through rs_out_char. */
    if (n == 0 || !rs_out_room(o, n * width))
        return;
    char *d = o->buf + o->len;
    if (sep == '\0') {
        rs_hex_pairs(d, p, n);
        o->len += 2 * n;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            *d++ = sep;
        rs_hex_pairs(d, p + i, 1);
        d += 2;
    }
    o->len = (size_t)(d - o->buf);
}

void
rs_out_xml(struct rs_out *o, const char *s, size_t n)
{
    size_t plain = 0;       /* where the run of bytes that stand as they are began */

    /* Copied a run at a time, as rs_out_json_string: most of PDML's text needs no escape. */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7f && c != '<' && c != '>' && c != '&' && c != '"' &&
            c != '\'')
            continue;
        rs_out_write(o, s + plain, i - plain);
        plain = i + 1;
        switch (c) {
        case '<': rs_out_str(o, "&lt;"); break;
        case '>': rs_out_str(o, "&gt;"); break;
        case '&': rs_out_str(o, "&amp;"); break;
        case '"': rs_out_str(o, "&quot;"); break;
        case '\'': rs_out_str(o, "&#x27;"); break;
        case '\t': case '\n': case '\r': rs_out_char(o, (char)c); break;
        default:
            /* XML 1.0 has no way to write the other control characters: tshark's "\x1f" */
            rs_out_printf(o, "\\x%x", c);
            break;
        }
    }
    rs_out_write(o, s + plain, n - plain);
}
