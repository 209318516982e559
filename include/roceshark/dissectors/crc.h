/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crc.h - the three checksums RDMA wire formats use.
 *
 * - CRC-32 (IEEE 802.3, reflected, as zlib's crc32): the InfiniBand ICRC.
 * - CRC-16 (polynomial 0x100B, reflected): the InfiniBand VCRC.
 * - CRC-32C (Castagnoli): the MPA FPDU CRC of iWARP.
 *
 * Every function takes the running value and returns the new one, so a
 * checksum can be fed piecewise: start from the *_INIT value and apply the
 * *_final step once at the end.
 */
#ifndef ROCESHARK_CRC_H
#define ROCESHARK_CRC_H

#include <stddef.h>
#include <stdint.h>

#define RS_CRC32_INIT 0xffffffffu
#define RS_CRC32C_INIT 0xffffffffu
#define RS_CRC16_IB_INIT 0xffffu

uint32_t rs_crc32_update(uint32_t crc, const void *buf, size_t len);
uint32_t rs_crc32c_update(uint32_t crc, const void *buf, size_t len);
uint16_t rs_crc16_ib_update(uint16_t crc, const void *buf, size_t len);
/* CRC-32 over len bytes, each of the first mask_len OR'ed with mask's byte
 * first: the ICRC's masked fields without a copy of the headers. mask must
 * be readable to mask_len rounded up to 16, with zeros past mask_len. */
uint32_t rs_crc32_update_masked(uint32_t crc, const void *buf, size_t len, const uint8_t *mask,
                                size_t mask_len);

static inline uint32_t
rs_crc32_final(uint32_t crc)
{
    return crc ^ 0xffffffffu;
}

static inline uint32_t
rs_crc32c_final(uint32_t crc)
{
    return crc ^ 0xffffffffu;
}

static inline uint16_t
rs_crc16_ib_final(uint16_t crc)
{
    return (uint16_t)(crc ^ 0xffffu);
}

/* One-shot conveniences. */
uint32_t rs_crc32(const void *buf, size_t len);
uint32_t rs_crc32c(const void *buf, size_t len);
uint16_t rs_crc16_ib(const void *buf, size_t len);

#endif /* ROCESHARK_CRC_H */
