/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json_out.c - JSON written into an rs_out: the string escaper every JSON
 * printer (and the responder's JSON lines) uses, and a writer that places commas, newlines and indentation
 * as tshark's JSON dumper does (pretty for -T json, compact for -T ek), so
 * that its output compares line by line with tshark's.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/print.h>

/* How byte c stands in a JSON string: written into esc, its length returned
 * (1 when it stands as it is). Backspace, form feed, newline, carriage return
 * and tab take their two-character escapes, as Wireshark's JSON dumper writes
 * them, unless ascii (all \u00XX). Bytes from 0x80 pass as UTF-8 unless ascii. */
static size_t
json_escape(unsigned char c, bool ascii, char esc[6])
{
    static const char hex[] = "0123456789abcdef";
    static const char controls[] = "\b\f\n\r\t", letters[] = "bfnrt";
    const char *l = c != 0 && !ascii ? strchr(controls, c) : NULL;

    if (c == '"' || c == '\\' || l != NULL) {
        esc[0] = '\\';
        esc[1] = l != NULL ? letters[l - controls] : (char)c;
        return 2;
    }
    if (c < 0x20 || (ascii && c >= 0x7f)) {
        memcpy(esc, "\\u00", 4);
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 0xf];
        return 6;
    }
    esc[0] = (char)c;
    return 1;
}

/* Whether any of the 8 bytes at p needs an escape in a JSON string: one below 0x20,
 * '"' or '\\' (a byte below k, or a zero byte, sets its top bit in (x - k) & ~x). */
static bool
word_needs_escape(const char *p)
{
    const uint64_t ones = 0x0101010101010101u, tops = ones * 0x80;
    uint64_t x, quote, backslash;

    memcpy(&x, p, sizeof(x));
    quote = x ^ (ones * '"');
    backslash = x ^ (ones * '\\');
    return (((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) |
            ((backslash - ones) & ~backslash)) & tops;
}

void
rs_out_json_string(struct rs_out *o, const char *s, size_t n)
{
    char esc[6];
    size_t plain = 0;       /* where the run of bytes that stand as they are began */
    size_t i = 0;

    /* Copied a run at a time: byte by byte, with a lookup for each, this was a
     * third of -T json's time. Only controls, '"' and '\' are escaped here. The
     * run is looked for 8 bytes at a time first (a byte at a time was 6% of json). */
    rs_out_char(o, '"');
    while (i + 8 <= n && !word_needs_escape(s + i))
        i += 8;
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        rs_out_write(o, s + plain, i - plain);
        rs_out_write(o, esc, json_escape(c, false, esc));
        plain = i + 1;
    }
    rs_out_write(o, s + plain, n - plain);
    rs_out_char(o, '"');
}

void
rs_json_fput_text(FILE *f, const char *s, size_t n)
{
    char esc[6];

    for (size_t i = 0; i < n && s[i] != '\0'; i++)
        fwrite(esc, 1, json_escape((unsigned char)s[i], true, esc), f);
}

void
rs_json_init(struct rs_json *j, struct rs_out *o, bool pretty, unsigned depth, bool any)
{
    memset(j, 0, sizeof(*j));
    j->o = o;
    j->pretty = pretty;
    j->depth = depth < RS_JSON_MAX_DEPTH ? depth : RS_JSON_MAX_DEPTH - 1;
    j->any[j->depth] = any;
}

static void
newline(struct rs_json *j)
{
    /* In one piece: a character at a time, the indentation of -T json's many short lines
     * was a tenth of its time. */
    size_t n = 1 + 2 * (size_t)j->depth;
    char *p = rs_out_reserve(j->o, n);

    if (p == NULL)
        return;
    p[0] = '\n';
    memset(p + 1, ' ', n - 1);
    rs_out_commit(j->o, n);
}

/* What goes before an element: nothing after a member's name, else a comma after
 * the element before, and in the pretty form a new line. */
static void
element(struct rs_json *j)
{
    if (j->named) {
        j->named = false;
        return;
    }
    if (j->any[j->depth])
        rs_out_char(j->o, ',');
    j->any[j->depth] = true;
    if (j->pretty && j->depth > 0)
        newline(j);
}

static void
open_container(struct rs_json *j, char c)
{
    element(j);
    rs_out_char(j->o, c);
    if (j->depth + 1 < RS_JSON_MAX_DEPTH)
        j->depth++;
    j->any[j->depth] = false;
}

static void
close_container(struct rs_json *j, char c)
{
    bool any = j->any[j->depth];

    if (j->depth > 0)
        j->depth--;
    if (any && j->pretty)
        newline(j);
    rs_out_char(j->o, c);
}

void
rs_json_begin_object(struct rs_json *j)
{
    open_container(j, '{');
}

void
rs_json_end_object(struct rs_json *j)
{
    close_container(j, '}');
}

void
rs_json_begin_array(struct rs_json *j)
{
    open_container(j, '[');
}

void
rs_json_end_array(struct rs_json *j)
{
    close_container(j, ']');
}

/* The opening quote and name's len bytes at d, '"' and '\\' escaped (and '.' written '_'
 * with dots); returns where they end. */
static char *
quote_name(char *d, const char *name, size_t len, bool dots)
{
    *d++ = '"';
    if (!dots && memchr(name, '"', len) == NULL && memchr(name, '\\', len) == NULL) {
        /* The usual case, copied whole: a byte at a time was 6% of -T json. */
        memcpy(d, name, len);
        return d + len;
    }
    for (size_t i = 0; i < len; i++) {
        char c = dots && name[i] == '.' ? '_' : name[i];
        if (c == '"' || c == '\\')
            *d++ = '\\';
        *d++ = c;
    }
    return d;
}

size_t
rs_json_quote_name(char *quoted, const char *name, size_t len)
{
    return (size_t)(quote_name(quoted, name, len, false) - quoted);
}

/* A member's name from p, written up to d: the suffix and the end. */
static void
name_end(struct rs_json *j, char *p, char *d, const char *suffix, size_t extra)
{
    if (extra > 0) {
        memcpy(d, suffix, extra);
        d += extra;
    }
    *d++ = '"';
    *d++ = ':';
    if (j->pretty)
        *d++ = ' ';
    rs_out_commit(j->o, (size_t)(d - p));
    j->named = true;
}

void
rs_json_name(struct rs_json *j, const char *name, const char *suffix)
{
    size_t len = strlen(name), extra = suffix != NULL ? strlen(suffix) : 0;

    element(j);
    /* Room for every byte escaped, then written in place. */
    char *p = rs_out_reserve(j->o, 2 * len + extra + 4);
    if (p != NULL)
        name_end(j, p, quote_name(p, name, len, j->dot_to_underscore), suffix, extra);
}

/* n bytes from s to d, for the short names of -T json: copies of fixed sizes (two that
 * overlap where n is between two sizes), which the compiler writes as a few moves, where
 * memcpy() and memset() calls for every member were some 2% of -T json. */
static inline void
copy_short(char *d, const char *s, size_t n)
{
    if (n >= 16 && n <= 32) {
        memcpy(d, s, 16);
        memcpy(d + n - 16, s + n - 16, 16);
    } else if (n >= 8 && n < 16) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else {
        memcpy(d, s, n);
    }
}

/* Indentation of a depth up to this is written as one copy of fixed size. */
#define BLANKS 64
static const char blanks[BLANKS] = "                                                                ";

void
rs_json_quoted_name(struct rs_json *j, const char *quoted, size_t len, const char *suffix)
{
    size_t extra = suffix != NULL && suffix[0] != '\0' ? strlen(suffix) : 0;

    assert(!j->dot_to_underscore);
    if (!j->named && j->pretty && j->depth > 0) {
        /* -T json's usual member: its comma, new line and indentation written with the
         * name, in one piece (element() and newline() apart were some 3% of -T json). */
        size_t indent = 2 * (size_t)j->depth;
        bool comma = j->any[j->depth];
        char *p = rs_out_reserve(j->o, comma + 1 + (indent > BLANKS ? indent : BLANKS) + len +
                                           extra + 3);
        if (p == NULL)
            return;
        char *d = p;
        if (comma)
            *d++ = ',';
        j->any[j->depth] = true;
        *d++ = '\n';
        if (indent <= BLANKS)
            memcpy(d, blanks, BLANKS);      /* what lies past the indentation is written over */
        else
            memset(d, ' ', indent);
        d += indent;
        copy_short(d, quoted, len);
        name_end(j, p, d + len, suffix, extra);
        return;
    }
    element(j);
    char *p = rs_out_reserve(j->o, len + extra + 3);
    if (p == NULL)
        return;
    memcpy(p, quoted, len);
    name_end(j, p, p + len, suffix, extra);
}

void
rs_json_string(struct rs_json *j, const char *s, size_t n)
{
    element(j);
    rs_out_json_string(j->o, s, n);
}

/* Whether any of s's n bytes needs an escape in a JSON string. */
static bool
text_needs_escape(const char *s, size_t n)
{
    size_t i = 0;

    for (; i + 8 <= n; i += 8)
        if (word_needs_escape(s + i))
            return true;
    for (; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == '"' || s[i] == '\\')
            return true;
    return false;
}

/* Whether v's text (as rs_value_format_style() writes it) is of digits, letters, '.',
 * ':', '-', '+' and 'x' alone, which need no escape in a JSON string: numbers and
 * addresses, most of -T json's values, whose scan for escapes was some 1% of it. */
static bool
plain_text(const struct rs_field *f, const struct rs_value *v)
{
    switch (v->type) {
    case RS_FT_BOOLEAN:
    case RS_FT_UINT8:
    case RS_FT_UINT16:
    case RS_FT_UINT24:
    case RS_FT_UINT32:
    case RS_FT_UINT64:
    case RS_FT_INT16:
    case RS_FT_INT32:
    case RS_FT_FRAMENUM:
    case RS_FT_ETHER:
    case RS_FT_IPV4:
    case RS_FT_IPV6:
    case RS_FT_BYTES:
        return true;
    case RS_FT_RELTIME:
    case RS_FT_ABSTIME:
        return f->base != RS_BASE_UTC && f->base != RS_BASE_LOCAL;     /* seconds */
    default:
        return false;
    }
}

void
rs_json_value(struct rs_json *j, const struct rs_field *f, const struct rs_value *v)
{
    /* Formatted in place between its quotes, as rs_out_value() formats: through a scratch
     * buffer and copied, -T json's values were some 5% of its time. A long value, or
     * one that needs an escape (rare: a string field's text), takes that way. */
    enum { SHORT_VALUE = 128 };
    struct rs_out *o = j->o;

    element(j);
    char *p = rs_out_reserve(o, SHORT_VALUE + 2);
    if (p == NULL)
        return;
    size_t n = rs_value_format_style(f, v, o->style, p + 1, SHORT_VALUE);
    if (n < SHORT_VALUE && (plain_text(f, v) || !text_needs_escape(p + 1, n))) {
        p[0] = '"';
        p[n + 1] = '"';
        rs_out_commit(o, n + 2);
        return;
    }
    struct rs_out *s = rs_out_scratch(o);
    if (s == NULL)
        return;
    rs_out_value(s, f, v);
    rs_out_json_string(o, s->buf, s->len);
}

void
rs_json_hex_string(struct rs_json *j, const uint8_t *p, size_t n, char sep)
{
    /* Hex digits and the separator need no escape: written straight in. */
    element(j);
    rs_out_char(j->o, '"');
    rs_out_hex(j->o, p, n, sep);
    rs_out_char(j->o, '"');
}

void
rs_json_literal(struct rs_json *j, const char *text)
{
    element(j);
    rs_out_str(j->o, text);
}
