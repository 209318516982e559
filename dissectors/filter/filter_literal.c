/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_literal.c - turning the text of a filter literal into a value of the type it
 * is compared with, as Wireshark 4.0 reads literals: integers in decimal, 0x hex, 0
 * octal or 0b binary, a value name or a 'c'haracter constant; booleans as True, TRUE,
 * False, FALSE or a number; times in seconds with up to nine decimals, exactly (no
 * binary floating point); dates (filter_abstime.c); IPv4 and IPv6 addresses with an
 * optional /prefix; MAC addresses and byte strings (aa:bb:cc, aa-bb-cc, aa.bb.cc,
 * aabbcc, or one byte as 0xff); text, quoted with escapes, r"raw", or a bare word.
 * Negative numbers are a minus applied to the number (filter_value.c).
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
    case RS_FT_INT16:
        return 15;
    case RS_FT_INT32:
        return 31;
    default:
        return 64;
    }
}

/* A character constant's value: 'a', '\n', '\x41', '\101'. */
static bool
char_value(const struct literal *lit, uint64_t *out, char *err, size_t errlen)
{
    uint8_t b[8];
    long n = filter_unescape(lit->text, lit->len, b, sizeof(b), err, errlen);

    if (n < 0)
        return false;
    if (n != 1) {
        snprintf(err, errlen, "'%.*s' is %s to be a character constant", (int)lit->len,
                 lit->text, n == 0 ? "too short" : "too long");
        return false;
    }
    *out = b[0];
    return true;
}

/* An unsigned number in decimal, 0x hex, 0 octal or 0b binary. */
static bool
read_uint(const char *t, uint64_t *out)
{
    const char *digits = t;
    char *end;
    int base = 0;

    if (t[0] == '0' && (t[1] == 'b' || t[1] == 'B'))
        digits = t + 2, base = 2;
    else if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
        digits = t + 2, base = 16;
    if (!isdigit((unsigned char)t[0]) || !isxdigit((unsigned char)digits[0]))
        return false;
    for (const char *c = digits; *c != '\0'; c++)
        if (!isxdigit((unsigned char)*c))
            return false;
    errno = 0;
    *out = strtoull(digits, &end, base);
    return *end == '\0' && errno == 0;
}

static bool
parse_uint(const struct rs_field *f, const char *what, uint8_t type, const struct literal *lit,
           const char *t, struct fval *out, char *err, size_t errlen)
{
    uint64_t u = 0;

    out->v.type = type;
    if (lit->tok == TOK_CHAR) {
        if (!char_value(lit, &u, err, errlen))
            return false;
    } else if (type == RS_FT_BOOLEAN && lit->tok == TOK_WORD &&
               (strcmp(t, "True") == 0 || strcmp(t, "TRUE") == 0)) {
        u = 1;
    } else if (type == RS_FT_BOOLEAN && lit->tok == TOK_WORD &&
               (strcmp(t, "False") == 0 || strcmp(t, "FALSE") == 0)) {
        u = 0;
    } else if (f != NULL && rs_value_by_name(f, t, &u)) {
        /* a value name, as Wireshark accepts, or our shorter alias of it:
         * "Reliable Connection (RC) - SEND Only" or "RC Send Only" */
    } else if (lit->tok == TOK_STRING) {
        snprintf(err, errlen, "'%s' is not a value name of %s (a number is written "
                 "without quotes)", t, what);
        return false;
    } else if (!read_uint(t, &u)) {
        snprintf(err, errlen, "'%s' is not a number%s for %s", t,
                 f != NULL && (f->vals != NULL || f->aliases != NULL) ? " or a value name" : "",
                 what);
        return false;
    }
    unsigned bits = type_bits(type);
    if (type == RS_FT_BOOLEAN) {
        u = u != 0;     /* any number but zero is true, as in Wireshark */
    } else if (bits < 64 && u >> bits != 0) {
        snprintf(err, errlen, "%s is too big for %s, at most %llu", t, what,
                 (unsigned long long)((1ull << bits) - 1));
        return false;
    }
    out->v.v.u = u;
    return true;
}

/* A time in seconds, exactly: [digits][.1 to 9 digits], as Wireshark 4.0 takes it (a
 * minus is applied apart). Any 64-bit count of seconds is read right (tshark 4.0
 * misreads 9223372036854775807 and beyond). */
static bool
parse_time(const char *what, const char *t, struct fval *out, char *err, size_t errlen)
{
    const char *dot = strchr(t, '.');
    size_t ilen = dot != NULL ? (size_t)(dot - t) : strlen(t);
    uint64_t sec = 0;
    uint32_t nsec = 0;

    if (strcasecmp(t, "inf") == 0 || strcasecmp(t, "infinity") == 0 ||
        strcasecmp(t, "nan") == 0) {
        snprintf(err, errlen, "'%s' is not a finite number of seconds for %s", t, what);
        return false;
    }
    if (ilen == 0)
        goto bad;
    for (size_t i = 0; i < ilen; i++) {
        if (!isdigit((unsigned char)t[i]))
            goto bad;
        if (__builtin_mul_overflow(sec, 10, &sec) ||
            __builtin_add_overflow(sec, (unsigned)(t[i] - '0'), &sec) || sec > INT64_MAX) {
            snprintf(err, errlen, "'%s' is out of range for %s: at most "
                     "9223372036854775807.999999999 seconds either way", t, what);
            return false;
        }
    }
    if (dot != NULL) {
        size_t flen = strlen(dot + 1);
        if (flen == 0 || strspn(dot + 1, "0123456789") != flen)
            goto bad;
        if (flen > 9) {
            snprintf(err, errlen, "'%s' is finer than a nanosecond for %s", t, what);
            return false;
        }
        for (size_t i = 0; i < 9; i++)
            nsec = nsec * 10 + (i < flen ? (uint32_t)(dot[1 + i] - '0') : 0);
    }
    out->v.type = RS_FT_RELTIME;
    out->v.v.t = (struct rs_time){(int64_t)sec, (int32_t)nsec};
    return true;
bad:
    snprintf(err, errlen, "'%s' is not a time in seconds (digits, and up to nine decimals "
             "after a point) for %s", t, what);
    return false;
}

/* "10.0.0.0/8", "fe80::1", with the prefix length in bits. */
static bool
parse_address(const char *what, uint8_t type, char *t, struct literal *lit, struct fval *out,
              char *err, size_t errlen)
{
    int af = type == RS_FT_IPV4 ? AF_INET : AF_INET6;
    unsigned bits = af == AF_INET ? 32 : 128;
    char *slash = strchr(t, '/');

    lit->prefix = bits;
    if (slash != NULL) {
        char *end;
        unsigned long p = strtoul(slash + 1, &end, 10);
        if (slash[1] == '\0' || *end != '\0' || p > bits) {
            snprintf(err, errlen, "bad prefix length in '%s' for %s", t, what);
            return false;
        }
        lit->prefix = (uint32_t)p;
        *slash = '\0';
    }
    if (inet_pton(af, t, lit->bytes) != 1) {
        snprintf(err, errlen, "'%s' is not an %s address for %s (names are not resolved)", t,
                 af == AF_INET ? "IPv4" : "IPv6", what);
        return false;
    }
    out->v.type = type;
    out->v.v.bytes.ptr = lit->bytes;
    out->v.v.bytes.len = bits / 8;
    return true;
}

/* aa:bb:cc, aa-bb-cc, aa.bb.cc or aabbcc; or one byte, 0xff or f. */
static bool
parse_bytes(const char *what, uint8_t type, const char *t, struct literal *lit,
            struct fval *out, char *err, size_t errlen)
{
    uint32_t n = 0;
    const char *one = strncmp(t, "0x", 2) == 0 || strncmp(t, "0X", 2) == 0 ? t + 2 : NULL;

    out->v.type = type == RS_FT_ETHER ? RS_FT_ETHER : RS_FT_BYTES;
    out->v.v.bytes.ptr = lit->bytes;
    if (type != RS_FT_ETHER && ((one != NULL && isxdigit((unsigned char)one[0]) &&
                                 (one[1] == '\0' || (isxdigit((unsigned char)one[1]) &&
                                                     one[2] == '\0'))) ||
                                (isxdigit((unsigned char)t[0]) && t[1] == '\0'))) {
        lit->bytes[0] = (uint8_t)strtoul(t, NULL, 16);
        out->v.v.bytes.len = 1;
        return true;
    }
    for (const char *p = t; *p != '\0';) {
        if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]) ||
            n == sizeof(lit->bytes))
            goto bad;
        char pair[3] = {p[0], p[1], '\0'};
        lit->bytes[n++] = (uint8_t)strtoul(pair, NULL, 16);
        p += 2;
        if (*p == ':' || *p == '-' || *p == '.') {
            if (p[1] == '\0')
                goto bad;
            p++;
        }
    }
    if (n == 0 || (type == RS_FT_ETHER && n != 6))
        goto bad;
    out->v.v.bytes.len = n;
    return true;
bad:
    snprintf(err, errlen, "'%s' is not a %s for %s", t,
             type == RS_FT_ETHER ? "MAC address" : "byte string", what);
    return false;
}

/* \u and \U: a code point as UTF-8; C's rule, which Wireshark keeps: not below U+00A0
 * but for $, @ and `, not a surrogate, not past U+10FFFF. */
static long
universal(const char *s, size_t len, size_t *i, uint8_t *out, size_t size, char *err,
          size_t errlen)
{
    size_t digits = s[*i] == 'u' ? 4 : 8, start = *i - 1;
    uint32_t cp = 0;

    for (size_t d = 0; d < digits; d++) {
        if (*i + 1 >= len || !isxdigit((unsigned char)s[*i + 1])) {
            snprintf(err, errlen, "\\%c takes %zu hex digits", s[start + 1], digits);
            return -1;
        }
        cp = cp * 16 + (uint32_t)g_ascii_xdigit_value(s[++*i]);
    }
    if ((cp < 0xa0 && cp != '$' && cp != '@' && cp != '`') || (cp >= 0xd800 && cp < 0xe000) ||
        cp > 0x10ffff) {
        snprintf(err, errlen, "%.*s is not a valid universal character name",
                 (int)(*i - start + 1), s + start);
        return -1;
    }
    char utf8[6];
    int n = g_unichar_to_utf8(cp, utf8);
    if ((size_t)n > size) {
        snprintf(err, errlen, "string longer than the %d bytes a literal holds",
                 FILTER_LITERAL_MAX);
        return -1;
    }
    memcpy(out, utf8, (size_t)n);
    return n;
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
            } else if (e == 'u' || e == 'U') {
                long k2 = universal(s, len, &i, out + n, size - n, err, errlen);
                if (k2 < 0)
                    return -1;
                n += (size_t)k2;
                continue;
            } else {
                snprintf(err, errlen, "\\%c is not a valid character escape sequence", e);
                return -1;
            }
        }
        if (n == size) {
            snprintf(err, errlen, "string longer than the %zu bytes a literal holds", size);
            return -1;
        }
        out[n++] = (uint8_t)c;
    }
    return (long)n;
}

/* Text: quoted (escapes read, unless raw), a character constant, or a bare word. */
static bool
parse_string(uint8_t type, struct literal *lit, struct fval *out, char *err, size_t errlen)
{
    long n;

    if (lit->tok == TOK_WORD || lit->raw) {
        if (lit->len > sizeof(lit->bytes)) {
            snprintf(err, errlen, "string longer than the %zu bytes a literal holds",
                     sizeof(lit->bytes));
            return false;
        }
        memcpy(lit->bytes, lit->text, lit->len);
        n = (long)lit->len;
    } else if ((n = filter_unescape(lit->text, lit->len, lit->bytes, sizeof(lit->bytes) - 1,
                                    err, errlen)) < 0) {
        return false;
    } else if (lit->tok == TOK_CHAR && n != 1) {
        snprintf(err, errlen, "'%.*s' is too %s to be a character constant", (int)lit->len,
                 lit->text, n == 0 ? "short" : "long");
        return false;
    }
    /* Text is kept as bytes with its length: a NUL in it is one more byte, as in
     * Wireshark's byte comparisons. */
    out->v.type = type == RS_FT_STRING ? FV_TEXT : RS_FT_BYTES;
    out->v.v.bytes.ptr = lit->bytes;
    out->v.v.bytes.len = (uint32_t)n;
    return true;
}

/* Wireshark's words for a type in "cannot be converted from a string" messages. */
static const char *
type_words(uint8_t type)
{
    switch (type) {
    case RS_FT_IPV4:
        return "an IPv4 address";
    case RS_FT_IPV6:
        return "an IPv6 address";
    case RS_FT_ETHER:
        return "a MAC address";
    case RS_FT_RELTIME:
        return "a time offset";
    case RS_FT_DOUBLE:
        return "a floating point number";
    default:
        return "a number";
    }
}

bool
filter_literal(const struct rs_field *f, const char *what, uint8_t type, struct literal *lit,
               struct fval *out, char *err, size_t errlen)
{
    char t[FILTER_LITERAL_MAX + 1];

    memset(out, 0, sizeof(*out));
    lit->typed = true;
    if (type == RS_FT_PROTOCOL)
        type = RS_FT_BYTES;
    if (type == RS_FT_STRING || (type == RS_FT_BYTES && lit->tok != TOK_WORD))
        return parse_string(type, lit, out, err, errlen);
    if (lit->len >= sizeof(t)) {
        snprintf(err, errlen, "value too long for %s", what);
        return false;
    }
    memcpy(t, lit->text, lit->len);
    t[lit->len] = '\0';
    bool named = f != NULL && (f->vals != NULL || f->aliases != NULL) &&
                 ((type >= RS_FT_BOOLEAN && type <= RS_FT_FRAMENUM));
    if (lit->tok == TOK_STRING && type != RS_FT_ABSTIME && !named) {
        snprintf(err, errlen, "%s cannot be %s: \"%s\" is a string (write it without quotes)",
                 what, type_words(type), t);
        return false;
    }
    switch (type) {
    case RS_FT_RELTIME:
        if (lit->tok != TOK_WORD)
            goto not_time;
        return parse_time(what, t, out, err, errlen);
    case RS_FT_ABSTIME:
        if (lit->tok == TOK_CHAR)
            goto not_time;
        /* frame.time_epoch is a number of seconds (Wireshark 4.0 types it so) */
        if (lit->tok == TOK_WORD && f != NULL && f->base != RS_BASE_UTC &&
            f->base != RS_BASE_LOCAL && parse_time(what, t, out, err, errlen)) {
            out->v.type = RS_FT_ABSTIME;
            return true;
        }
        out->v.type = RS_FT_ABSTIME;
        return filter_abstime(t, strlen(t), &out->v.v.t, err, errlen);
    case RS_FT_DOUBLE: {
        char *end;
        out->v.type = RS_FT_DOUBLE;
        out->v.v.d = strtod(t, &end);
        if (lit->tok == TOK_WORD && *t != '\0' && *end == '\0' && !isnan(out->v.v.d) &&
            t[strlen(t) - 1] != '.')
            return true;
        snprintf(err, errlen, "'%s' is not a number for %s", t, what);
        return false;
    }
    case RS_FT_IPV4:
    case RS_FT_IPV6:
        if (lit->tok != TOK_WORD)
            break;
        return parse_address(what, type, t, lit, out, err, errlen);
    case RS_FT_ETHER:
    case RS_FT_BYTES:
        if (lit->tok == TOK_CHAR && type == RS_FT_BYTES)
            return parse_string(type, lit, out, err, errlen);
        if (lit->tok != TOK_WORD)
            break;
        return parse_bytes(what, type, t, lit, out, err, errlen);
    default:
        return parse_uint(f, what, type, lit, t, out, err, errlen);
    }
    snprintf(err, errlen, "'%s' is not %s for %s", t, type_words(type), what);
    return false;
not_time:
    snprintf(err, errlen, "'%s' is not a time for %s", t, what);
    return false;
}
