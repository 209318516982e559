/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_literal.c - turning the text of a filter literal into a value of
 * the field's type: integers (decimal, 0x hex, or a value name), times in
 * seconds, IPv4/IPv6 addresses with an optional /prefix, MAC addresses,
 * byte strings, and text.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter_int.h"

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
    /* A value name, as Wireshark accepts: infiniband.bth.opcode == "RC Send Only". */
    for (const struct rs_value_string *v = f->vals; v != NULL && v->name != NULL; v++) {
        if (strcmp(v->name, t) == 0) {
            out->u = v->value;
            return true;
        }
    }
    errno = 0;
    unsigned long long u = strtoull(t, &end, 0);
    if (quoted || *t == '\0' || *end != '\0' || errno != 0 || *t == '-') {
        snprintf(err, errlen, "'%s' is not a number%s for %s", t,
                 f->vals != NULL ? " or a value name" : "", f->abbrev);
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

static bool
parse_time(const struct rs_field *f, const char *t, struct literal *out, char *err,
           size_t errlen)
{
    char *end;
    double secs = strtod(t, &end);

    if (*t == '\0' || *end != '\0') {
        snprintf(err, errlen, "'%s' is not a time in seconds for %s", t, f->abbrev);
        return false;
    }
    out->kind = LIT_TIME;
    out->ns = (int64_t)(secs * 1e9 + (secs < 0 ? -0.5 : 0.5));
    return true;
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

static bool
parse_string(const char *s, size_t len, bool quoted, struct literal *out, char *err,
             size_t errlen)
{
    out->kind = LIT_STRING;
    out->len = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (quoted && c == '\\' && i + 1 < len)
            c = s[++i];
        if (out->len == sizeof(out->bytes)) {
            snprintf(err, errlen, "string longer than %zu bytes", sizeof(out->bytes));
            return false;
        }
        out->bytes[out->len++] = (uint8_t)c;
    }
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
        if (*t != '\0' && *end == '\0')
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
