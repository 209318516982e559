/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * info.c - the Info column's appenders (info.h), which every protocol's fragment writes
 * through: bounded, never failing, and without printf for the common parts.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/info.h>
#include <roceshark/dissectors/port_names.h>
#include <roceshark/dissectors/wire.h>

void
rs_info_add(struct rs_info *in, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    int n = in->len + 1 >= in->size ? vsnprintf(NULL, 0, fmt, ap)
                                    : vsnprintf(in->buf + in->len, in->size - in->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        in->want += (size_t)n;
    if (n > 0 && in->len + 1 < in->size)
        in->len = in->len + (size_t)n < in->size ? in->len + (size_t)n : in->size - 1;
}

/* Appends n bytes of s, or as many as fit before the terminating NUL. */
static void
info_put(struct rs_info *in, const char *s, size_t n)
{
    in->want += n;
    if (in->len + 1 >= in->size)
        return;
    size_t room = in->size - 1 - in->len;
    if (n > room)
        n = room;
    memcpy(in->buf + in->len, s, n);
    in->len += n;
    in->buf[in->len] = '\0';
}

void
rs_info_str(struct rs_info *in, const char *s)
{
    info_put(in, s, strlen(s));
}

void
rs_info_dec(struct rs_info *in, const char *label, uint64_t v)
{
    char digits[RS_U64_TEXT_MAX];

    rs_info_str(in, label);
    info_put(in, digits, rs_format_u64(digits, v));
}

void
rs_info_hex(struct rs_info *in, const char *label, uint64_t v, unsigned digits)
{
    static const char hex[] = "0123456789abcdef";
    char text[16];
    unsigned n = v == 0 ? 1 : (unsigned)(64 - __builtin_clzll(v) + 3) / 4;

    if (n < digits)
        n = digits > sizeof(text) ? (unsigned)sizeof(text) : digits;
    for (unsigned i = 0; i < n; i++)
        text[n - 1 - i] = hex[(v >> (4 * i)) & 0xf];
    rs_info_str(in, label);
    info_put(in, text, n);
}

void
rs_info_ports(struct rs_info *in, const uint8_t *t, bool tcp)
{
    char port[RS_PORT_TEXT_MAX];

    if (!rs_display_get()->resolve_transport) {     /* the common case, without a copy */
        rs_info_dec(in, "", rs_load_be16(t));
        rs_info_dec(in, " → ", rs_load_be16(t + 2));
        return;
    }
    rs_port_info(tcp, rs_load_be16(t), port, sizeof(port));
    rs_info_str(in, port);
    rs_info_str(in, " → ");
    rs_port_info(tcp, rs_load_be16(t + 2), port, sizeof(port));
    rs_info_str(in, port);
}
