/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_icrc.c - ICRC and VCRC: known values from real frames, and the rule
 * that variant fields (which routers and switches may rewrite) do not
 * change the ICRC while every invariant byte does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <roceshark/dissectors/wire.h>

#include "testutil.h"

#define ETH 14

static uint8_t
icrc_status_of(struct test_frame *tf)
{
    struct rs_packet pkt;

    test_decode(&tf->frame, &pkt);
    return pkt.icrc_status;
}

static void
test_known_values(void **state)
{
    static const struct {
        const char *hex;
        int linktype;
        uint32_t icrc;  /* as the CRC value; the wire holds it LSB first */
    } vectors[] = {
        {HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB, 0x778fca32},
        {HEX_ROCEV2_ACK, RS_DLT_EN10MB, 0xc7c55372},
        {HEX_ROCEV2_FETCH_ADD, RS_DLT_EN10MB, 0x08e2a726},
        {HEX_ROCEV1_SEND_ONLY, RS_DLT_EN10MB, 0x02a43e23},
        {HEX_ERF_IB_ACK, RS_DLT_ERF, 0x505503a8},
        {HEX_ERF_IB_GRH_UD, RS_DLT_ERF, 0x4dd56605},
    };
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
        test_frame_from_hex(&tf, vectors[i].hex, vectors[i].linktype);
        test_decode(&tf.frame, &pkt);
        assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
        assert_int_equal(pkt.icrc_computed, vectors[i].icrc);
    }
}

/* RoCEv2/IPv4: TOS, TTL, IP checksum, UDP checksum and BTH byte 4 are
 * masked; the IP identification, addresses, ports and payload are not. */
static void
test_rocev2_variant_and_invariant_fields(void **state)
{
    static const uint32_t variant[] = {ETH + 1, ETH + 8, ETH + 10, ETH + 11, ETH + 26,
                                       ETH + 27, ETH + 28 + 4};
    static const uint32_t invariant[] = {ETH + 4, ETH + 5, ETH + 12, ETH + 19, ETH + 20,
                                         ETH + 28, ETH + 28 + 5, ETH + 28 + 11, ETH + 40,
                                         ETH + 75};
    struct test_frame tf;

    (void)state;
    for (size_t i = 0; i < sizeof(variant) / sizeof(variant[0]); i++) {
        test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
        tf.bytes[variant[i]] ^= 0xa5;
        assert_int_equal(icrc_status_of(&tf), RS_CKSUM_GOOD);
    }
    for (size_t i = 0; i < sizeof(invariant) / sizeof(invariant[0]); i++) {
        test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
        tf.bytes[invariant[i]] ^= 0x01;
        assert_int_equal(icrc_status_of(&tf), RS_CKSUM_BAD);
    }
}

/* GRH: traffic class, flow label and hop limit are variant; so is a
 * whole LRH in front of a GRH, but only the VL of an LRH without one. */
static void
test_grh_and_lrh_masking(void **state)
{
    struct test_frame tf;

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV1_SEND_ONLY, RS_DLT_EN10MB);
    tf.bytes[ETH + 0] ^= 0x0f;      /* traffic class, high nibble */
    tf.bytes[ETH + 1] ^= 0xff;      /* traffic class low nibble, flow label */
    tf.bytes[ETH + 3] ^= 0x5a;      /* flow label */
    tf.bytes[ETH + 7] ^= 0x3c;      /* hop limit */
    assert_int_equal(icrc_status_of(&tf), RS_CKSUM_GOOD);
    tf.bytes[ETH + 8] ^= 0x01;      /* source GID */
    assert_int_equal(icrc_status_of(&tf), RS_CKSUM_BAD);

    test_frame_from_hex(&tf, HEX_ERF_IB_GRH_UD, RS_DLT_ERF);
    tf.bytes[16 + 2] ^= 0xff;       /* DLID, in an LRH followed by a GRH */
    tf.bytes[16 + 6] ^= 0xff;       /* SLID */
    assert_int_equal(icrc_status_of(&tf), RS_CKSUM_GOOD);

    test_frame_from_hex(&tf, HEX_ERF_IB_ACK, RS_DLT_ERF);
    tf.bytes[16] ^= 0x30;           /* VL */
    assert_int_equal(icrc_status_of(&tf), RS_CKSUM_GOOD);
    tf.bytes[16 + 2] ^= 0x01;       /* DLID of a local packet is covered */
    assert_int_equal(icrc_status_of(&tf), RS_CKSUM_BAD);
}

static void
test_status_without_a_verdict(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct rs_decode_opts opts;

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    rs_decode_opts_init(&opts);
    opts.verify_crc = false;
    rs_decode_frame(&tf.frame, &opts, &pkt);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_UNVERIFIED);

    tf.frame.caplen -= 2;           /* the snapshot cut the ICRC */
    test_decode(&tf.frame, &pkt);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_UNVERIFIED);

    /* Not an RDMA frame: no status at all (shown as not present). */
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    rs_store_be16(tf.bytes + ETH + 20 + 2, 53);
    test_decode(&tf.frame, &pkt);
    assert_false(rs_packet_has(&pkt, RS_LAYER_BTH));
    assert_int_equal(pkt.icrc_status, RS_CKSUM_NOT_PRESENT);
}

static void
test_vcrc_bad(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    test_frame_from_hex(&tf, HEX_ERF_IB_ACK, RS_DLT_ERF);
    tf.bytes[16 + 28] ^= 0x80;      /* the VCRC itself */
    test_decode(&tf.frame, &pkt);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(pkt.vcrc_status, RS_CKSUM_BAD);
    assert_int_equal(pkt.vcrc_computed, 0x8130);
    /* A VL change breaks the VCRC (which covers everything) but not the ICRC. */
    test_frame_from_hex(&tf, HEX_ERF_IB_ACK, RS_DLT_ERF);
    tf.bytes[16] ^= 0x10;
    test_decode(&tf.frame, &pkt);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(pkt.vcrc_status, RS_CKSUM_BAD);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_rocev2_variant_and_invariant_fields),
        cmocka_unit_test(test_grh_and_lrh_masking),
        cmocka_unit_test(test_status_without_a_verdict),
        cmocka_unit_test(test_vcrc_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
