/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crc16.c - the InfiniBand Variant CRC (IBTA Vol 1, 7.8.2).
 *
 * CRC-16 with polynomial x^16 + x^12 + x^3 + x + 1 (0x100B), bit-reflected,
 * initial value 0xFFFF, final inversion. It covers the whole packet from the
 * LRH through the ICRC and is sent least-significant byte first. Only native
 * IB frames carry it, so a byte-wise table is fast enough.
 */
#include <roceshark/dissectors/crc.h>

#define CRC16_IB_POLY_REFLECTED 0xd008u

static uint16_t crc16_ib_table[256];

__attribute__((constructor)) static void
crc16_ib_init_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ CRC16_IB_POLY_REFLECTED : c >> 1;
        crc16_ib_table[i] = (uint16_t)c;
    }
}

uint16_t
rs_crc16_ib_update(uint16_t crc, const void *buf, size_t len)
{
    const uint8_t *p = buf;

    while (len-- > 0)
        crc = (uint16_t)(crc16_ib_table[(crc ^ *p++) & 0xff] ^ (crc >> 8));
    return crc;
}

uint16_t
rs_crc16_ib(const void *buf, size_t len)
{
    return rs_crc16_ib_final(rs_crc16_ib_update(RS_CRC16_IB_INIT, buf, len));
}
