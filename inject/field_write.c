/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * field_write.c - a value into a packet where the decoder reads the field:
 * the other direction of the registry's layer, offset, width and mask.
 * The injector writes spec'd fields with it, the fault engine set and add.
 * And the located errors both parsers give.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "inject_int.h"

/* Writes v (or the address addr) as field f at at: its width's bytes, big-endian,
 * under its mask. */
void
inject_write_field(uint8_t *at, const struct rs_field *f, uint64_t v, const uint8_t *addr)
{
    if (f->type == RS_FT_ETHER || f->type == RS_FT_IPV4 || f->type == RS_FT_IPV6) {
        memcpy(at, addr, f->width);
        return;
    }
    rs_field_store(f, at, v);
}


int
inject_fail(const struct inject_place *place, unsigned col, const char *fmt, ...)
{
    char why[RS_ERRBUF_SIZE];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    return rs_error(place->err, RS_EINVAL, "%s:%u:%u: %s", place->where, place->line, col, why);
}
