/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crc_slice8.c - slicing-by-8 for reflected 32-bit CRCs: each step folds
 * eight input bytes through eight 256-entry tables, about one cycle a byte.
 */
#include <roceshark/dissectors/wire.h>

#include "crc/crc_int.h"

void
crc_slice8_init(crc_slice8_table table, uint32_t poly_reflected)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ poly_reflected : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
}

uint32_t
crc_slice8_update(const crc_slice8_table table, uint32_t crc, const uint8_t *p, size_t len)
{
    while (len >= 8) {
        uint32_t lo = rs_load_le32(p) ^ crc;
        uint32_t hi = rs_load_le32(p + 4);
        crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
              table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
              table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len-- > 0)
        crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}
