/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_literal.c - turning the text of a filter literal into a value of
 * the field's type: integers (decimal, 0x hex, or a value name), times in
 * seconds (exact decimals, no floating point), IPv4/IPv6 addresses with an
 * optional /prefix, MAC addresses, byte strings, and text.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "filter/filter_int.h"

static bool
copy_text(const char *s, size_t len, char *buf, size_t size)
{
    if (len >= size)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return true;
}

static unsigned
type_bits(uint8_t type)
{
    switch (type) {
    case RS_FT_UINT8:
        return 8;
    case RS_FT_UINT16:
        return 16;
    case RS_FT_UINT24:
        return 24;
    case RS_FT_UINT32:
    case RS_FT_FRAMENUM:
        return 32;
    default:
        return 64;
    }
}

static bool
parse_uint(const struct rs_field *f, const char *t, bool quoted, struct literal *out,
           char *err, size_t errlen)
{
    char *end;

    out->kind = LIT_UINT;
    if (f->type == RS_FT_BOOLEAN && (strcmp(t, "True") == 0 || strcmp(t, "true") == 0)) {
        out->u = 1;
        return true;
    }
    if (f->type == RS_FT_BOOLEAN && (strcmp(t, "False") == 0 || strcmp(t, "false") == 0)) {
        out->u = 0;
        return true;
    }
    /* A value name, as Wireshark accepts, or our shorter alias of it:
     * infiniband.bth.opcode == "Reliable Connection (RC) - SEND Only" or "RC Send Only". */
    if (rs_value_by_name(f, t, &out->u))
        return true;
    errno = 0;
    if (f->type == RS_FT_INT32) {
        long long i = strtoll(t, &end, 0);
        if (quoted || *t == '\0' || *end != '\0' || errno != 0 || i < INT32_MIN ||
            i > INT32_MAX) {
            snprintf(err, errlen, "'%s' is not a 32-bit number for %s", t, f->abbrev);
            return false;
        }
        out->u = (uint64_t)(int64_t)i;
        return true;
    }
    unsigned long long u = strtoull(t, &end, 0);
    if (quoted || *t == '\0' || *end != '\0' || errno != 0 || *t == '-') {
        snprintf(err, errlen, "'%s' is not a number%s for %s", t,
                 f->vals != NULL || f->aliases != NULL ? " or a value name" : "", f->abbrev);
        return false;
    }
    unsigned bits = type_bits(f->type);
    if (f->type == RS_FT_BOOLEAN ? u > 1 : bits < 64 && u >> bits != 0) {
        snprintf(err, errlen, "%s does not fit in %s", t, f->abbrev);
        return false;
    }
    out->u = u;
    return true;
}

/* The digits of a decimal number and where its point falls. */
struct decimal {
    bool negative;
    char digits[128];       /* significant digits, no leading or trailing zeros */
    int n;
    long point;             /* digits before the decimal point (may be <= 0 or > n) */
};

/* [+-] digits [. digits] [e [+-] digits], or with the digits after the
 * point only; false when t is not such a number. */
static bool
read_decimal(const char *t, struct decimal *d)
{
    bool any = false;
    long exp = 0;

    memset(d, 0, sizeof(*d));
    if (*t == '+' || *t == '-')
        d->negative = *t++ == '-';
    for (bool after_point = false;; t++) {
        if (*t == '.' && !after_point) {
            after_point = true;
            continue;
        }
        if (!isdigit((unsigned char)*t))
            break;
        any = true;
        if (d->n == 0 && *t == '0') {   /* a leading zero */
            d->point -= after_point;
            continue;
        }
        if (d->n == (int)sizeof(d->digits))
            return false;               /* cannot happen: literals are shorter */
        d->digits[d->n++] = *t;
        d->point += !after_point;
    }
    if (!any)
        return false;
    if (*t == 'e' || *t == 'E') {
        char *end;
        errno = 0;
        exp = strtol(t + 1, &end, 10);
        if (t[1] == '\0' || isspace((unsigned char)t[1]) || *end != '\0')
            return false;
        /* Beyond +-1000 only zero is in range: clamp so the sum cannot overflow. */
        exp = errno == ERANGE || exp > 1000 ? 1000 : exp < -1000 ? -1000 : exp;
        t = end;
    }
    if (*t != '\0')
        return false;
    while (d->n > 0 && d->digits[d->n - 1] == '0')
        d->n--;
    d->point = d->n == 0 ? 0 : d->point + exp;
    return true;
}

/* A time in seconds, exactly (no binary floating point on the way): any
 * value of a 64-bit count of seconds with nine decimals, which covers the
 * whole range of a 64-bit nanosecond time and every timestamp a capture
 * file can hold. tshark 4.0 takes [-]digits[.up to 9 digits] and misreads
 * 9223372036854775807 and beyond; exponents (1e10) are accepted here. */
static bool
parse_time(const struct rs_field *f, const char *t, struct literal *out, char *err,
           size_t errlen)
{
    struct decimal d;
    const char *name = t + (*t == '+' || *t == '-');

    if (!read_decimal(t, &d)) {
        bool inf_nan = strcasecmp(name, "inf") == 0 || strcasecmp(name, "infinity") == 0 ||
                       strcasecmp(name, "nan") == 0;
        snprintf(err, errlen, "'%s' is not %s for %s", t,
                 inf_nan ? "a finite number of seconds" : "a time in seconds",
                 f->abbrev);
        return false;
    }
    if (d.point > 19)
        goto range;
    uint64_t sec = 0;
    uint32_t nsec = 0;
    for (long i = 0; i < d.point; i++) {
        unsigned digit = i < d.n ? (unsigned)(d.digits[i] - '0') : 0;
        if (__builtin_mul_overflow(sec, 10, &sec) || __builtin_add_overflow(sec, digit, &sec))
            goto range;
    }
    if (sec > INT64_MAX)
        goto range;
    if (d.n - d.point > 9) {
        snprintf(err, errlen, "'%s' is finer than a nanosecond for %s", t, f->abbrev);
        return false;
    }
    for (long i = d.point; i < d.point + 9; i++)
        nsec = nsec * 10 + (i >= 0 && i < d.n ? (unsigned)(d.digits[i] - '0') : 0);
    out->kind = LIT_TIME;
    out->t = (struct rs_time){(int64_t)sec, (int32_t)nsec};
    if (d.negative)
        out->t = rs_time_sub(RS_TIME_ZERO, out->t);
    return true;
range:
    snprintf(err, errlen, "'%s' is out of range for %s: at most 9223372036854775807.999999999 "
             "seconds either way", t, f->abbrev);
    return false;
}

/* "10.0.0.0/8", "fe80::1", with the prefix length in bits. */
static bool
parse_address(const struct rs_field *f, char *t, struct literal *out, char *err, size_t errlen)
{
    int af = f->type == RS_FT_IPV4 ? AF_INET : AF_INET6;
    unsigned bits = af == AF_INET ? 32 : 128;
    char *slash = strchr(t, '/');

    out->kind = LIT_BYTES;
    out->len = bits / 8;
    out->prefix = bits;
    if (slash != NULL) {
        char *end;
        unsigned long p = strtoul(slash + 1, &end, 10);
        if (slash[1] == '\0' || *end != '\0' || p > bits) {
            snprintf(err, errlen, "bad prefix length in '%s' for %s", t, f->abbrev);
            return false;
        }
        out->prefix = (uint32_t)p;
        *slash = '\0';
    }
    if (inet_pton(af, t, out->bytes) != 1) {
        snprintf(err, errlen, "'%s' is not an %s address for %s", t,
                 af == AF_INET ? "IPv4" : "IPv6", f->abbrev);
        return false;
    }
    return true;
}

/* aa:bb:cc, aa-bb-cc, aa.bb.cc or aabbcc. */
static bool
parse_bytes(const struct rs_field *f, const char *t, struct literal *out, char *err,
            size_t errlen)
{
    out->kind = LIT_BYTES;
    out->len = 0;
    out->prefix = 0;
    /* One byte as Wireshark also writes it: 0x0a, or a single hex digit. */
    const char *one = strncmp(t, "0x", 2) == 0 || strncmp(t, "0X", 2) == 0 ? t + 2 : NULL;
    if (f->type != RS_FT_ETHER && ((one != NULL && isxdigit((unsigned char)one[0]) &&
                                    isxdigit((unsigned char)one[1]) && one[2] == '\0') ||
                                   (isxdigit((unsigned char)t[0]) && t[1] == '\0'))) {
        out->bytes[0] = (uint8_t)strtoul(t, NULL, 16);
        out->len = 1;
        out->prefix = 8;
        return true;
    }
    for (const char *p = t; *p != '\0';) {
        if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]) ||
            out->len == sizeof(out->bytes))
            goto bad;
        char pair[3] = {p[0], p[1], '\0'};
        out->bytes[out->len++] = (uint8_t)strtoul(pair, NULL, 16);
        p += 2;
        if (*p == ':' || *p == '-' || *p == '.') {
            if (p[1] == '\0')
                goto bad;
            p++;
        }
    }
    if (out->len == 0 || (f->type == RS_FT_ETHER && out->len != 6))
        goto bad;
    out->prefix = out->len * 8;
    return true;
bad:
    snprintf(err, errlen, "'%s' is not a %s for %s", t,
             f->type == RS_FT_ETHER ? "MAC address" : "byte string", f->abbrev);
    return false;
}

long
filter_unescape(const char *s, size_t len, uint8_t *out, size_t size, char *err, size_t errlen)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned c = (unsigned char)s[i];
        if (c == '\\' && i + 1 < len) {
            char e = s[++i];
            static const char from[] = "abfnrtv\\\"'", to[] = "\a\b\f\n\r\t\v\\\"'";
            const char *k = strchr(from, e);
            if (e != '\0' && k != NULL) {
                c = (unsigned char)to[k - from];
            } else if (e == 'x' && i + 1 < len && isxdigit((unsigned char)s[i + 1])) {
                c = 0;
                for (int d = 0; d < 2 && i + 1 < len && isxdigit((unsigned char)s[i + 1]); d++)
                    c = c * 16 + (unsigned)g_ascii_xdigit_value(s[++i]);
            } else if (e >= '0' && e <= '7') {
                c = (unsigned)(e - '0');
                for (int d = 0; d < 2 && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '7'; d++)
                    c = c * 8 + (unsigned)(s[++i] - '0');
                if (c > 0xff) {
                    snprintf(err, errlen, "\\%.3s is not a valid octal escape", s + i - 2);
                    return -1;
                }
            } else {
                snprintf(err, errlen, "\\%c is not a valid character escape sequence", e);
                return -1;
            }
        }
        if (n == size) {
            snprintf(err, errlen, "string longer than %zu bytes", size);
            return -1;
        }
        out[n++] = (uint8_t)c;
    }
    return (long)n;
}

static bool
parse_string(const char *s, size_t len, bool quoted, struct literal *out, char *err,
             size_t errlen)
{
    out->kind = LIT_STRING;
    out->len = 0;
    if (!quoted) {
        if (len > sizeof(out->bytes)) {
            snprintf(err, errlen, "string longer than %zu bytes", sizeof(out->bytes));
            return false;
        }
        memcpy(out->bytes, s, len);
        out->len = (uint32_t)len;
        return true;
    }
    long n = filter_unescape(s, len, out->bytes, sizeof(out->bytes), err, errlen);
    if (n < 0)
        return false;
    out->len = (uint32_t)n;
    return true;
}

bool
filter_literal(const struct rs_field *f, const char *s, size_t len, bool quoted,
               struct literal *out, char *err, size_t errlen)
{
    char t[128];

    memset(out, 0, sizeof(*out));
    if (f->type == RS_FT_STRING || (quoted && f->type == RS_FT_BYTES))
        return parse_string(s, len, quoted, out, err, errlen);
    if (!copy_text(s, len, t, sizeof(t))) {
        snprintf(err, errlen, "value too long for %s", f->abbrev);
        return false;
    }
    switch (f->type) {
    case RS_FT_RELTIME:
    case RS_FT_ABSTIME:
        return parse_time(f, t, out, err, errlen);
    case RS_FT_DOUBLE: {
        char *end;
        out->kind = LIT_DOUBLE;
        out->d = strtod(t, &end);
        if (*t != '\0' && *end == '\0' && isfinite(out->d))
            return true;
        snprintf(err, errlen, "'%s' is not a number for %s", t, f->abbrev);
        return false;
    }
    case RS_FT_IPV4:
    case RS_FT_IPV6:
        return parse_address(f, t, out, err, errlen);
    case RS_FT_ETHER:
    case RS_FT_BYTES:
        return parse_bytes(f, t, out, err, errlen);
    default:
        return parse_uint(f, t, quoted, out, err, errlen);
    }
}
