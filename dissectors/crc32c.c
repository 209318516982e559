/*
 * crc32c.c - CRC-32C (Castagnoli) for the MPA FPDU CRC (RFC 5044, 8.1).
 *
 * Hand-written: no dependency offers it except Wireshark's wsutil, which the
 * CLI does not link. On x86-64 with SSE4.2 the CRC32 instruction does the
 * work; elsewhere a slicing-by-8 table does.
 */
#include <roceshark/crc.h>
#include <roceshark/wire.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#define CRC32C_POLY_REFLECTED 0x82f63b78u

static uint32_t crc32c_table[8][256];
static int crc32c_have_sse42;

__attribute__((constructor)) static void
crc32c_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ CRC32C_POLY_REFLECTED : c >> 1;
        crc32c_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc32c_table[t][i] = (crc32c_table[t - 1][i] >> 8) ^
                                 crc32c_table[0][crc32c_table[t - 1][i] & 0xff];
#if defined(__x86_64__)
    __builtin_cpu_init();
    crc32c_have_sse42 = __builtin_cpu_supports("sse4.2");
#endif
}

static uint32_t
crc32c_update_table(uint32_t crc, const uint8_t *p, size_t len)
{
    while (len >= 8) {
        uint32_t lo = rs_load_le32(p) ^ crc;
        uint32_t hi = rs_load_le32(p + 4);
        crc = crc32c_table[7][lo & 0xff] ^ crc32c_table[6][(lo >> 8) & 0xff] ^
              crc32c_table[5][(lo >> 16) & 0xff] ^ crc32c_table[4][lo >> 24] ^
              crc32c_table[3][hi & 0xff] ^ crc32c_table[2][(hi >> 8) & 0xff] ^
              crc32c_table[1][(hi >> 16) & 0xff] ^ crc32c_table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len-- > 0)
        crc = crc32c_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
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
    return crc32c_update_table(crc, buf, len);
}

uint32_t
rs_crc32c(const void *buf, size_t len)
{
    return rs_crc32c_final(rs_crc32c_update(RS_CRC32C_INIT, buf, len));
}
