/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crc_int.h - the table-driven engine that CRC-32 and CRC-32C share.
 */
#ifndef ROCESHARK_CRC_INT_H
#define ROCESHARK_CRC_INT_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t crc_slice8_table[8][256];

/* Fills the eight tables of slicing-by-8 for a reflected polynomial. */
void crc_slice8_init(crc_slice8_table table, uint32_t poly_reflected);

/* Runs a reflected CRC over p, eight bytes per step; no init or final XOR. */
uint32_t crc_slice8_update(const crc_slice8_table table, uint32_t crc, const uint8_t *p,
                           size_t len);

#endif /* ROCESHARK_CRC_INT_H */
