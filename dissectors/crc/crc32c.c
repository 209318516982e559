/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crc32c.c - CRC-32C (Castagnoli) for the MPA FPDU CRC (RFC 5044, 8.1).
 *
 * Hand-written: no dependency offers it except Wireshark's wsutil, which the
 * CLI does not link. On x86-64 with SSE4.2 the CRC32 instruction does the
 * work; elsewhere a slicing-by-8 table does.
 */
#include <roceshark/dissectors/crc.h>
#include <roceshark/dissectors/wire.h>

#include "crc/crc_int.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#define CRC32C_POLY_REFLECTED 0x82f63b78u

static crc_slice8_table crc32c_table;
static int crc32c_have_sse42;

__attribute__((constructor)) static void
crc32c_init(void)
{
    crc_slice8_init(crc32c_table, CRC32C_POLY_REFLECTED);
#if defined(__x86_64__)
    __builtin_cpu_init();
    crc32c_have_sse42 = __builtin_cpu_supports("sse4.2");
#endif
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t
crc32c_update_sse42(uint32_t crc, const uint8_t *p, size_t len)
{
    uint64_t c = crc;

    while (len >= 8) {
        c = _mm_crc32_u64(c, rs_load_le64(p));
        p += 8;
        len -= 8;
    }
    while (len-- > 0)
        c = _mm_crc32_u8((uint32_t)c, *p++);
    return (uint32_t)c;
}
#endif

uint32_t
rs_crc32c_update(uint32_t crc, const void *buf, size_t len)
{
#if defined(__x86_64__)
    if (crc32c_have_sse42)
        return crc32c_update_sse42(crc, buf, len);
#endif
    return crc_slice8_update((const uint32_t(*)[256])crc32c_table, crc, buf, len);
}

uint32_t
rs_crc32c(const void *buf, size_t len)
{
    return rs_crc32c_final(rs_crc32c_update(RS_CRC32C_INIT, buf, len));
}
