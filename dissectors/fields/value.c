/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * value.c - turning field values into text, as tshark prints them.
 *
 * rs_value_format() must agree byte for byte with `tshark -T fields`: hex
 * integers are zero-padded to the width of their type, booleans print as
 * 0/1, byte strings as bare lowercase hex, times as seconds with nine
 * decimals. Integer formatting avoids printf: `read -T fields` spends most
 * of its time here.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/ether_names.h>
#include <roceshark/dissectors/fields.h>

static const char hex_digits[] = "0123456789abcdef";

/* Appends to a bounded buffer while counting what the full text needs. */
struct out {
    char *buf;
    size_t size;
    size_t len;
};

static void
out_bytes(struct out *o, const char *s, size_t n)
{
    if (o->len < o->size) {
        size_t room = o->size - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

/* n bytes written at at: in place (at the buffer's end), else copied from where they are. */
static inline void
out_placed(struct out *o, const char *at, size_t n)
{
    if (at == o->buf + o->len)
        o->len += n;
    else
        out_bytes(o, at, n);
}

static void
out_str(struct out *o, const char *s)
{
    out_bytes(o, s, strlen(s));
}

/* Two digits per division: frame numbers and PSNs are most of the text. */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes v's digits to end just before end; returns where they start. */
static inline char *
dec_digits_before(char *end, uint64_t v)
{
    char *d = end;

    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        *--d = digit_pairs[2 * r + 1];
        *--d = digit_pairs[2 * r];
    }
    if (v >= 10) {
        *--d = digit_pairs[2 * v + 1];
        *--d = digit_pairs[2 * v];
    } else {
        *--d = (char)('0' + v);
    }
    return d;
}

/* Writes v's digits to end at tmp's end; returns where they start. */
static inline int
dec_digits(char tmp[RS_U64_TEXT_MAX], uint64_t v)
{
    return (int)(dec_digits_before(tmp + RS_U64_TEXT_MAX, v) - tmp);
}

/* The count of v's decimal digits: from its bits (log10(2) is about 1233 / 4096), less
 * one where v is short of that power of ten. A multiply and a compare for each
 * digit, as before, were a third of formatting a PSN. */
static inline size_t
dec_len(uint64_t v)
{
    static const uint64_t pow10[RS_U64_TEXT_MAX] = {
        1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
        100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
        10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
        100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};
    unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);
    size_t t = (bits * 1233u) >> 12;    /* the digits, or the digits less one */

    return t + 1 - ((v | 1) < pow10[t]);
}

size_t
rs_format_u64(char buf[RS_U64_TEXT_MAX], uint64_t v)
{
    size_t n = dec_len(v);

    /* Counted first, then written in place: through a copy, its memcpy() call was a
     * tenth of formatting a number. */
    dec_digits_before(buf + n, v);
    return n;
}

static void
out_dec(struct out *o, uint64_t v)
{
    size_t n = dec_len(v);

    if (o->len + n <= o->size) {
        /* Written in place where it fits: through a copy, its memcpy() call was some
         * 1.5% of -T json. */
        dec_digits_before(o->buf + o->len + n, v);
        o->len += n;
        return;
    }
    char tmp[RS_U64_TEXT_MAX];
    int i = dec_digits(tmp, v);
    out_bytes(o, tmp + i, (size_t)(RS_U64_TEXT_MAX - i));
}

/* Bytes as bare lowercase hex, written straight into the buffer: a payload's
 * kilobyte a pair at a time through out_bytes was a fifth of -V's time. What
 * does not fit is counted, as out_bytes counts it. */
static void
out_hex_bytes(struct out *o, const uint8_t *p, uint32_t n)
{
    size_t room = o->len < o->size ? o->size - o->len : 0;
    size_t pairs = room / 2 < n ? room / 2 : n;
    char *d = o->buf + o->len;

    rs_hex_pairs(d, p, pairs);
    if (pairs < n && room > 2 * pairs)
        d[2 * pairs] = hex_digits[p[pairs] >> 4];   /* half a pair fits */
    o->len += 2 * (size_t)n;
}

static void
out_hex(struct out *o, uint64_t v, unsigned digits)
{
    char tmp[18];

    tmp[0] = '0';
    tmp[1] = 'x';
    for (unsigned i = 0; i < digits; i++)
        tmp[1 + digits - i] = hex_digits[(v >> (4 * i)) & 0xf];
    out_bytes(o, tmp, 2 + digits);
}

/* Seconds with nine decimals, as Wireshark prints times. */
static void
out_seconds(struct out *o, struct rs_time t)
{
    char tmp[RS_TIME_TEXT_MAX + 1];

    if (o->len + RS_TIME_TEXT_MAX + 1 <= o->size) {
        o->len += rs_time_format(t, 9, o->buf + o->len);    /* in place, as out_dec */
        return;
    }
    out_bytes(o, tmp, rs_time_format(t, 9, tmp));
}

/* A time as a UTC date with nanoseconds, as Wireshark writes an
 * ABSOLUTE_TIME_UTC field: "May 14, 2008 19:48:07.000000000 UTC". */
/* An absolute time as Wireshark writes a date: in UTC, or in the local zone. */
/* The date and time of day of the last second out_date() wrote, on this thread: a
 * frame's arrival time is in every -V tree, and frames come many to a second, where
 * localtime_r(), strftime() and snprintf() for each were a twentieth of -V's time. */
struct date_text {
    bool valid, local;
    int64_t sec;
    char day[48];           /* "May 14, 2008 19:48:07" */
    char zone[16];
};
static _Thread_local struct date_text last_date;

static void
out_date(struct out *o, struct rs_time t, bool local)
{
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    struct date_text *d = &last_date;

    if (!d->valid || d->sec != t.sec || d->local != local) {
        time_t sec = (time_t)t.sec;
        struct tm tm;
        if ((local ? localtime_r(&sec, &tm) : gmtime_r(&sec, &tm)) == NULL) {
            out_seconds(o, t);
            return;
        }
        snprintf(d->zone, sizeof(d->zone), "UTC");
        if (local && strftime(d->zone, sizeof(d->zone), "%Z", &tm) == 0)
            d->zone[0] = '\0';
        snprintf(d->day, sizeof(d->day), "%s %2d, %d %02d:%02d:%02d", months[tm.tm_mon],
                 tm.tm_mday, tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
        d->sec = t.sec;
        d->local = local;
        d->valid = true;
    }
    /* ".%09d %s" */
    char frac[11] = ".";
    for (int i = 9, v = (int)t.nsec; i >= 1; i--, v /= 10)
        frac[i] = (char)('0' + v % 10);
    out_str(o, d->day);
    out_bytes(o, frac, 10);
    out_bytes(o, " ", 1);
    out_str(o, d->zone);
}

static unsigned
type_hex_digits(uint8_t type)
{
    switch (type) {
    case RS_FT_UINT8:
        return 2;
    case RS_FT_UINT16:
        return 4;
    case RS_FT_UINT24:
        return 6;
    case RS_FT_UINT32:
        return 8;
    default:
        return 16;
    }
}

/* Hex digits for humans: a bit field gets as many as its mask's width needs
 * ("0xf" for a 4-bit lane), as Wireshark's tree writes it; -T fields keeps
 * the type's. */
static unsigned
display_hex_digits(const struct rs_field *f, const struct rs_value *v)
{
    if (f->mask == 0)
        return type_hex_digits(v->type);
    uint64_t m = f->mask >> rs_mask_shift(f->mask);
    unsigned bits = 64 - (unsigned)__builtin_clzll(m);

    return (bits + 3) / 4;
}

static void
out_address(struct out *o, const struct rs_value *v)
{
    char tmp[INET6_ADDRSTRLEN];
    const uint8_t *p = v->v.bytes.ptr;
    /* Written in place where the longest fits, as out_dec. */
    char *at = o->len + sizeof(tmp) <= o->size ? o->buf + o->len : tmp;

    switch (v->type) {
    case RS_FT_ETHER:
        for (int i = 0; i < 6; i++) {
            at[3 * i] = hex_digits[p[i] >> 4];
            at[3 * i + 1] = hex_digits[p[i] & 0xf];
            at[3 * i + 2] = ':';
        }
        out_placed(o, at, 17);
        break;
    case RS_FT_IPV4:
        out_placed(o, at, rs_format_ipv4(at, p));
        break;
    default:
        out_placed(o, at, rs_format_ipv6(at, p));
        break;
    }
}

/* Text as Wireshark's tree shows it (format_text()): control characters as C escapes,
 * \a \b \f \n \r \t \v or three octal digits, DEL as \177; the rest as it is. */
static void
out_shown_text(struct out *o, const char *s)
{
    static const char controls[] = "\a\b\f\n\r\t\v", letters[] = "abfnrtv";

    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        const char *l = c != 0 ? strchr(controls, c) : NULL;
        char esc[4] = {'\\', 0, 0, 0};
        if (l != NULL) {
            esc[1] = letters[l - controls];
            out_bytes(o, esc, 2);
        } else if (c < 0x20 || c == 0x7f) {
            char oct[5];
            snprintf(oct, sizeof(oct), "\\%03o", c);
            out_bytes(o, oct, 4);
        } else {
            out_bytes(o, (const char *)&c, 1);
        }
    }
}

static void
format_plain(struct out *o, const struct rs_field *f, const struct rs_value *v,
             enum rs_value_style style)
{
    switch (v->type) {
    case RS_FT_PROTOCOL:
        out_str(o, f->abbrev);
        break;
    case RS_FT_BOOLEAN:
        if (style == RS_STYLE_TSHARK_4_0)
            out_bytes(o, v->v.u ? "1" : "0", 1);
        else
            out_str(o, v->v.u ? "True" : "False");
        break;
    case RS_FT_UINT8:
    case RS_FT_UINT16:
    case RS_FT_UINT24:
    case RS_FT_UINT32:
    case RS_FT_UINT64:
        if (f->base == RS_BASE_HEX || f->base == RS_BASE_HEX_DEC)
            out_hex(o, v->v.u, type_hex_digits(v->type));
        else
            out_dec(o, v->v.u);
        break;
    case RS_FT_FRAMENUM:
        out_dec(o, v->v.u);
        break;
    case RS_FT_INT16:
    case RS_FT_INT32:
        if ((int64_t)v->v.u < 0)
            out_bytes(o, "-", 1);
        out_dec(o, (int64_t)v->v.u < 0 ? 0 - v->v.u : v->v.u);
        break;
    case RS_FT_DOUBLE: {
        char tmp[32];
        /* DBL_DIG significant digits, as Wireshark prints a double */
        int n = snprintf(tmp, sizeof(tmp), "%.15g", v->v.d);
        out_bytes(o, tmp, (size_t)n);
        break;
    }
    case RS_FT_RELTIME:
    case RS_FT_ABSTIME:
        if (f->base == RS_BASE_UTC || f->base == RS_BASE_LOCAL)
            out_date(o, v->v.t, f->base == RS_BASE_LOCAL);
        else
            out_seconds(o, v->v.t);
        break;
    case RS_FT_BYTES:
        out_hex_bytes(o, v->v.bytes.ptr, v->v.bytes.len);
        break;
    case RS_FT_ETHER:
    case RS_FT_IPV4:
    case RS_FT_IPV6:
        out_address(o, v);
        break;
    case RS_FT_STRING:
        out_str(o, v->v.str);
        break;
    case RS_FT_NONE:
        out_bytes(o, "1", 1);
        break;
    default:
        break;
    }
}

/* o->size excludes the terminator's byte, so it always fits at o->size. */
static size_t
out_finish(struct out *o, size_t size)
{
    if (size > 0)
        o->buf[o->len < o->size ? o->len : o->size] = '\0';
    return o->len;
}

size_t
rs_value_format_style(const struct rs_field *f, const struct rs_value *v,
                      enum rs_value_style style, char *buf, size_t size)
{
    /* Leave room for the terminator within size. */
    struct out o = {buf, size > 0 ? size - 1 : 0, 0};

    format_plain(&o, f, v, style);
    return out_finish(&o, size);
}

size_t
rs_value_format(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    return rs_value_format_style(f, v, RS_STYLE_TSHARK_4_0, buf, size);
}

size_t
rs_value_format_display(const struct rs_field *f, const struct rs_value *v, char *buf,
                        size_t size)
{
    struct out o = {buf, size > 0 ? size - 1 : 0, 0};
    bool integer = v->type >= RS_FT_UINT8 && v->type <= RS_FT_INT32;
    /* an empty table names nothing: a field with it has none (iWARP's Terminate marks
     * which of its fields a layer carries by their tables) */
    const struct rs_value_string *vals = f->vals != NULL && f->vals->name != NULL ? f->vals
                                                                                 : NULL;
    const char *name = vals != NULL ? rs_value_name(vals, v->v.u) : NULL;

    if (f->show != NULL)
        return f->show(f, v, buf, size);
    if (v->type == RS_FT_BOOLEAN && name != NULL) {
        out_str(&o, name);      /* "Set", as Wireshark's true/false strings */
    } else if (v->type == RS_FT_BOOLEAN) {
        out_str(&o, v->v.u ? "True" : "False");
    } else if (integer && vals != NULL && f->base == RS_BASE_NONE) {
        out_str(&o, name != NULL ? name : "Unknown");   /* the name alone, as proto.c */
    } else if (integer && vals != NULL) {
        out_str(&o, name != NULL ? name : "Unknown");  /* Wireshark's word for a value it
                                                          has no name for */
        out_str(&o, " (");
        if (f->base == RS_BASE_HEX || f->base == RS_BASE_HEX_DEC)
            out_hex(&o, v->v.u, display_hex_digits(f, v));  /* "Read Request (0x1)" */
        else
            format_plain(&o, f, v, RS_STYLE_TSHARK_4_0);
        out_str(&o, ")");
    } else if (integer && f->base == RS_BASE_DEC_HEX) {
        out_dec(&o, v->v.u);
        out_str(&o, " (");
        out_hex(&o, v->v.u, display_hex_digits(f, v));
        out_str(&o, ")");
    } else if (integer && f->base == RS_BASE_HEX) {
        out_hex(&o, v->v.u, display_hex_digits(f, v));
    } else if (integer && f->base == RS_BASE_HEX_DEC) {
        out_hex(&o, v->v.u, display_hex_digits(f, v));
        out_str(&o, " (");
        out_dec(&o, v->v.u);
        out_str(&o, ")");
    } else if (integer && f->base == RS_BASE_OUI) {
        /* proto.c's 32-byte buffer: a long vendor name is cut at 31 characters */
        uint8_t p[3] = {(uint8_t)(v->v.u >> 16), (uint8_t)(v->v.u >> 8), (uint8_t)v->v.u};
        const char *vendor = rs_ether_vendor(p);
        char tmp[32];
        if (vendor != NULL)
            snprintf(tmp, sizeof(tmp), "%02x:%02x:%02x (%s)", p[0], p[1], p[2], vendor);
        else
            snprintf(tmp, sizeof(tmp), "%02x:%02x:%02x", p[0], p[1], p[2]);
        out_str(&o, tmp);
    } else if (v->type == RS_FT_ETHER && rs_display_get()->resolve_mac) {
        /* "VMware_a7:12:9f (00:50:56:a7:12:9f)", even where the name is the address */
        char ename[RS_ETHER_NAME_MAX];
        rs_ether_name(v->v.bytes.ptr, ename, sizeof(ename));
        out_str(&o, ename);
        out_str(&o, " (");
        out_address(&o, v);
        out_str(&o, ")");
    } else if (v->type == RS_FT_RELTIME) {
        format_plain(&o, f, v, RS_STYLE_TSHARK_4_0);
        out_str(&o, " seconds");
    } else if (v->type == RS_FT_STRING) {
        out_shown_text(&o, v->v.str);
    } else {
        format_plain(&o, f, v, RS_STYLE_TSHARK_4_0);
    }
    return out_finish(&o, size);
}

size_t
rs_show_flags(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    struct out o = {buf, size > 0 ? size - 1 : 0, 0};

    out_hex(&o, v->v.u, display_hex_digits(f, v));
    /* the flags are the entries after f in its table, one level deeper */
    for (const struct rs_field *c = f + 1; c->abbrev != NULL && c->depth > f->depth; c++) {
        if (c->depth != f->depth + 1 || c->mask == 0)
            continue;
        uint64_t bits = (v->v.u & c->mask) >> rs_mask_shift(c->mask);
        if (c->type == RS_FT_BOOLEAN && bits != 0) {
            out_str(&o, ", ");
            out_str(&o, c->name);
        } else if (c->type != RS_FT_BOOLEAN && c->vals != NULL) {
            const char *name = rs_value_name(c->vals, bits);
            out_str(&o, ", ");
            out_str(&o, c->name);
            out_str(&o, ": ");
            out_str(&o, name != NULL ? name : "Unknown");
        }
    }
    return out_finish(&o, size);
}

size_t
rs_show_special_vals(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    struct out o = {buf, size > 0 ? size - 1 : 0, 0};
    const char *name = rs_value_name(f->vals, v->v.u);

    if (name != NULL) {
        out_str(&o, name);
        out_str(&o, " (");
    }
    format_plain(&o, f, v, RS_STYLE_TSHARK_4_0);
    if (name != NULL)
        out_str(&o, ")");
    return out_finish(&o, size);
}

size_t
rs_show_noted(const struct rs_field *f, const struct rs_value *v, const char *note, char *buf,
              size_t size)
{
    struct out o = {buf, size > 0 ? size - 1 : 0, 0};

    out_hex(&o, v->v.u, display_hex_digits(f, v));
    out_str(&o, ", ");
    out_str(&o, note);
    return out_finish(&o, size);
}

const char *
rs_value_name(const struct rs_value_string *vals, uint64_t value)
{
    for (; vals != NULL && vals->name != NULL; vals++)
        if (vals->value == value)
            return vals->name;
    return NULL;
}

static bool
find_name(const struct rs_value_string *vals, const char *name, uint64_t *out)
{
    for (; vals != NULL && vals->name != NULL; vals++) {
        if (strcasecmp(vals->name, name) == 0) {
            *out = vals->value;
            return true;
        }
    }
    return false;
}

bool
rs_value_by_name(const struct rs_field *f, const char *name, uint64_t *out)
{
    return find_name(f->vals, name, out) || find_name(f->aliases, name, out);
}

unsigned
rs_mask_shift(uint64_t mask)
{
    return mask == 0 ? 0 : (unsigned)__builtin_ctzll(mask);
}

size_t
rs_format_bits(char *buf, size_t size, uint64_t word, uint64_t mask, unsigned bits)
{
    struct out o = {buf, size > 0 ? size - 1 : 0, 0};
    char text[64 + 64 / 4 + 3];     /* 64 bits, a space between groups of 4, " = " */
    size_t n = 0;

    /* Made in text and copied once: a call of the bounded appender for each bit was
     * 3% of -V. A word has 64 bits at most. */
    if (bits > 64)
        bits = 64;
    for (unsigned i = 0; i < bits; i++) {
        unsigned bit = bits - 1 - i;
        if (i > 0 && i % 4 == 0)
            text[n++] = ' ';
        text[n++] = !(mask >> bit & 1) ? '.' : (word >> bit & 1) ? '1' : '0';
    }
    memcpy(text + n, " = ", 3);
    out_bytes(&o, text, n + 3);
    return out_finish(&o, size);
}
