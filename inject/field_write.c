/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * field_write.c - a value into a packet where the decoder reads the field:
 * the other direction of the registry's layer, offset, width and mask.
 * The injector writes spec'd fields with it, the fault engine set and add.
 */
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
    uint64_t old = 0;
    for (unsigned i = 0; i < f->width; i++)
        old = old << 8 | at[i];
    uint64_t word = f->mask == 0 ? v : (old & ~f->mask) | ((v << __builtin_ctzll(f->mask)) & f->mask);
    for (unsigned i = f->width; i-- > 0;) {
        at[i] = (uint8_t)word;
        word >>= 8;
    }
}

