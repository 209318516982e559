/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_crc.c - CRC-32, CRC-32C and the IB VCRC against published check
 * values, a bitwise reference, and a VCRC taken from a real IB capture.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <roceshark/dissectors/crc.h>

#include "testutil.h"

static const char check_input[] = "123456789";

/* Bit-at-a-time reference for a reflected CRC-32 with polynomial poly. */
static uint32_t
reference_crc32(uint32_t poly, const uint8_t *p, size_t n)
{
    uint32_t crc = 0xffffffffu;

    while (n-- > 0) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc & 1) ? (crc >> 1) ^ poly : crc >> 1;
    }
    return crc ^ 0xffffffffu;
}

static void
test_crc32_check_value(void **state)
{
    (void)state;
    assert_int_equal(rs_crc32(check_input, 9), 0xcbf43926u);
    assert_int_equal(rs_crc32("", 0), 0);
}

static void
test_crc32c_check_value(void **state)
{
    (void)state;
    assert_int_equal(rs_crc32c(check_input, 9), 0xe3069283u);
    /* RFC 3720 B.4: 32 bytes of zeros. */
    uint8_t zeros[32] = {0};
    assert_int_equal(rs_crc32c(zeros, sizeof(zeros)), 0x8a9136aau);
}

static void
test_crc16_ib_check_value(void **state)
{
    (void)state;
    /* CRC-16 with polynomial 0x100B, reflected, init/xorout 0xFFFF. */
    uint16_t ref = 0xffff;
    for (size_t i = 0; i < 9; i++) {
        ref ^= (uint8_t)check_input[i];
        for (int k = 0; k < 8; k++)
            ref = (ref & 1) ? (uint16_t)((ref >> 1) ^ 0xd008) : (uint16_t)(ref >> 1);
    }
    assert_int_equal(rs_crc16_ib(check_input, 9), (uint16_t)(ref ^ 0xffff));
}

/* Every length from 0 to 300 and every alignment agree with the reference,
 * which covers the slicing loops' tails and the SSE4.2 path. */
static void
test_lengths_and_alignments(void **state)
{
    uint8_t buf[320];

    (void)state;
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 131 + 7);
    for (size_t align = 0; align < 8; align++) {
        for (size_t n = 0; n + align <= 300; n++) {
            assert_int_equal(rs_crc32(buf + align, n),
                             reference_crc32(0xedb88320u, buf + align, n));
            assert_int_equal(rs_crc32c(buf + align, n),
                             reference_crc32(0x82f63b78u, buf + align, n));
        }
    }
}

static void
test_incremental_equals_one_shot(void **state)
{
    uint8_t buf[200];

    (void)state;
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i ^ 0x5a);
    for (size_t cut = 0; cut <= sizeof(buf); cut += 13) {
        uint32_t c = rs_crc32_update(RS_CRC32_INIT, buf, cut);
        c = rs_crc32_update(c, buf + cut, sizeof(buf) - cut);
        assert_int_equal(rs_crc32_final(c), rs_crc32(buf, sizeof(buf)));
        uint32_t d = rs_crc32c_update(RS_CRC32C_INIT, buf, cut);
        d = rs_crc32c_update(d, buf + cut, sizeof(buf) - cut);
        assert_int_equal(rs_crc32c_final(d), rs_crc32c(buf, sizeof(buf)));
        uint16_t v = rs_crc16_ib_update(RS_CRC16_IB_INIT, buf, cut);
        v = rs_crc16_ib_update(v, buf + cut, sizeof(buf) - cut);
        assert_int_equal(rs_crc16_ib_final(v), rs_crc16_ib(buf, sizeof(buf)));
    }
}

/* The masked CRC (the ICRC's variant fields OR'ed in a register) equals the
 * plain CRC of a masked copy, for every length and mask length, including
 * masks that reach past the folded part into the table's tail. */
static void
test_masked_equals_masked_copy(void **state)
{
    uint8_t buf[208], mask[112] = {0}, copy[208];

    (void)state;
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 37 + 11);
    for (size_t mask_len = 0; mask_len <= 96; mask_len++) {
        memset(mask, 0, sizeof(mask));
        for (size_t i = 0; i < mask_len; i++)
            mask[i] = (uint8_t)((i * 7) % 3 == 0 ? 0xff : (i % 5 == 0 ? 0xf0 : 0));
        for (size_t align = 0; align < 3; align++) {
            for (size_t n = 0; n + align <= 200; n++) {
                memcpy(copy, buf + align, n);
                for (size_t i = 0; i < n && i < mask_len; i++)
                    copy[i] |= mask[i];
                assert_int_equal(rs_crc32_update_masked(RS_CRC32_INIT, buf + align, n, mask,
                                                        mask_len),
                                 rs_crc32_update(RS_CRC32_INIT, copy, n));
            }
        }
    }
}

/* The VCRC of a native IB ACK from a real capture (sent LSB first). */
static void
test_vcrc_of_real_packet(void **state)
{
    struct test_frame tf;

    (void)state;
    test_frame_from_hex(&tf, HEX_ERF_IB_ACK, RS_DLT_ERF);
    const uint8_t *packet = tf.bytes + 16;      /* after the ERF header */
    assert_int_equal(rs_crc16_ib(packet, 28), 0x8130);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc32_check_value),
        cmocka_unit_test(test_crc32c_check_value),
        cmocka_unit_test(test_crc16_ib_check_value),
        cmocka_unit_test(test_lengths_and_alignments),
        cmocka_unit_test(test_incremental_equals_one_shot),
        cmocka_unit_test(test_masked_equals_masked_copy),
        cmocka_unit_test(test_vcrc_of_real_packet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
