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

/* rs_info_put() where s does not fit whole: as much as fits before the terminating NUL. */
void
rs_info_put_cut(struct rs_info *in, const char *s, size_t n)
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

/* n bytes already written at the end of the text (there was room for them and a NUL). */
static void
info_grown(struct rs_info *in, size_t n)
{
    in->len += n;
    in->want += n;
    in->buf[in->len] = '\0';
}

void
rs_info_dec_after(struct rs_info *in, uint64_t v)
{
    char digits[RS_U64_TEXT_MAX];

    if (in->len + RS_U64_TEXT_MAX < in->size) {
        info_grown(in, rs_format_u64(in->buf + in->len, v));    /* in place */
        return;
    }
    rs_info_put_cut(in, digits, rs_format_u64(digits, v));
}

void
rs_info_hex_after(struct rs_info *in, uint64_t v, unsigned digits)
{
    static const char hex[] = "0123456789abcdef";
    char text[16];
    unsigned n = v == 0 ? 1 : (unsigned)(64 - __builtin_clzll(v) + 3) / 4;

    if (n < digits)
        n = digits > sizeof(text) ? (unsigned)sizeof(text) : digits;
    char *d = in->len + n < in->size ? in->buf + in->len : text;    /* in place if it fits */
    for (unsigned i = 0; i < n; i++)
        d[n - 1 - i] = hex[(v >> (4 * i)) & 0xf];
    if (d == text)
        rs_info_put_cut(in, text, n);
    else
        info_grown(in, n);
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
