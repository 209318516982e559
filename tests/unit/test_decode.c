/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_decode.c - the decoder, header by header, on real frames and on
 * frames made malformed on purpose.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <roceshark/dissectors/wire.h>

#include "testutil.h"

#define ETH 14
#define IP4 20
#define UDP 8

static void
assert_layer(const struct rs_packet *pkt, enum rs_layer layer, uint32_t off, uint32_t len)
{
    assert_true(rs_packet_has(pkt, layer));
    assert_int_equal(pkt->span[layer].off, off);
    assert_int_equal(pkt->span[layer].len, len);
}

/* Inserts n bytes at pos (a tag, a cooked header) into tf. */
static void
insert_bytes(struct test_frame *tf, uint32_t pos, const uint8_t *b, uint32_t n)
{
    memmove(tf->bytes + pos + n, tf->bytes + pos, tf->frame.caplen - pos);
    memcpy(tf->bytes + pos, b, n);
    tf->frame.caplen += n;
    tf->frame.len += n;
}

static void
test_rocev2_write_only(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    uint32_t bth = ETH + IP4 + UDP;

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    test_decode(&tf.frame, &pkt);
    assert_int_equal(pkt.encap, RS_ENCAP_ROCEV2);
    assert_int_equal(pkt.opcode, 0x0a);
    assert_int_equal(pkt.flags, 0);
    assert_layer(&pkt, RS_LAYER_ETH, 0, ETH);
    assert_layer(&pkt, RS_LAYER_IPV4, ETH, IP4);
    assert_layer(&pkt, RS_LAYER_UDP, ETH + IP4, UDP);
    assert_layer(&pkt, RS_LAYER_BTH, bth, 12);
    assert_layer(&pkt, RS_LAYER_RETH, bth + 12, 16);
    /* 18 bytes of payload ("roceshark-wrote-it"), then 2 pad bytes, then the ICRC. */
    assert_layer(&pkt, RS_LAYER_PAYLOAD, bth + 28, 18);
    assert_int_equal(pkt.payload_len, 18);
    assert_layer(&pkt, RS_LAYER_PAD, bth + 46, 2);
    assert_layer(&pkt, RS_LAYER_ICRC, bth + 48, 4);
    assert_false(rs_packet_has(&pkt, RS_LAYER_AETH));
    assert_false(rs_packet_has(&pkt, RS_LAYER_VCRC));
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_memory_equal(rs_packet_at(&pkt, RS_LAYER_PAYLOAD), "roceshark-wrote-it", 18);
}

/* An ACK short enough that Ethernet would pad it: the IP length bounds it. */
static void
test_rocev2_ack_with_ethernet_padding(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_ACK, RS_DLT_EN10MB);
    /* Pad the 62-byte frame to 70 as a switch with a trailer might. */
    memset(tf.bytes + 62, 0xee, 8);
    tf.frame.caplen = tf.frame.len = 70;
    test_decode(&tf.frame, &pkt);
    assert_int_equal(pkt.flags, 0);
    assert_layer(&pkt, RS_LAYER_AETH, 54, 4);
    assert_layer(&pkt, RS_LAYER_ICRC, 58, 4);
    assert_int_equal(pkt.payload_len, 0);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
}

static void
test_rocev2_read_request_has_no_payload(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_READ_REQ, RS_DLT_EN10MB);
    test_decode(&tf.frame, &pkt);
    assert_int_equal(pkt.opcode, 0x0c);
    assert_layer(&pkt, RS_LAYER_RETH, 54, 16);
    assert_int_equal(rs_load_be32(rs_packet_at(&pkt, RS_LAYER_RETH) + 12), 4096);
    assert_layer(&pkt, RS_LAYER_ICRC, 70, 4);
    assert_int_equal(pkt.payload_len, 0);
    assert_int_equal(pkt.flags, 0);
}

static void
test_rocev2_atomics(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_FETCH_ADD, RS_DLT_EN10MB);
    test_decode(&tf.frame, &pkt);
    assert_int_equal(pkt.opcode, 0x14);
    assert_layer(&pkt, RS_LAYER_ATOMICETH, 54, 28);
    assert_layer(&pkt, RS_LAYER_ICRC, 82, 4);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);

    test_frame_from_hex(&tf, HEX_ROCEV2_ATOMIC_ACK, RS_DLT_EN10MB);
    test_decode(&tf.frame, &pkt);
    assert_int_equal(pkt.opcode, 0x12);
    assert_layer(&pkt, RS_LAYER_AETH, 54, 4);
    assert_layer(&pkt, RS_LAYER_ATOMICACKETH, 58, 8);
    assert_int_equal(rs_load_be64(rs_packet_at(&pkt, RS_LAYER_ATOMICACKETH)),
                     0x3a01a68d6b397ac6ull);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
}

static void
test_rocev1(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV1_SEND_ONLY, RS_DLT_EN10MB);
    test_decode(&tf.frame, &pkt);
    assert_int_equal(pkt.encap, RS_ENCAP_ROCEV1);
    assert_layer(&pkt, RS_LAYER_GRH, ETH, 40);
    assert_layer(&pkt, RS_LAYER_BTH, ETH + 40, 12);
    assert_layer(&pkt, RS_LAYER_PAYLOAD, ETH + 52, 5);
    assert_layer(&pkt, RS_LAYER_PAD, ETH + 57, 3);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(pkt.flags, 0);
}

/* An ERF record's type says what it holds: Ethernet after 2 bytes of padding for types 2,
 * 11, 16 and 20 (10 and 22 are HDLC/POS and IPv4), IPv4 for 22, IPv6 for 23. */
static void
test_erf_record_types(void **state)
{
    static const struct {
        uint8_t type;
        bool ethernet;
    } cases[] = {{2, true}, {11, true}, {16, true}, {20, true}, {22, false}, {10, false}};
    struct test_frame eth, tf;
    struct rs_packet pkt;

    (void)state;
    test_frame_from_hex(&eth, HEX_ROCEV2_ACK, RS_DLT_EN10MB);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        /* the record: 16 bytes of header, then the Ethernet frame after its padding, or
         * the IPv4 packet alone */
        uint32_t skip = cases[i].type == 22 ? 14 : 0, pad = cases[i].ethernet ? 2 : 0;
        uint32_t len = eth.frame.caplen - skip + pad;
        memset(tf.bytes, 0, 16 + pad);
        tf.bytes[8] = cases[i].type;
        tf.bytes[10] = (uint8_t)((16 + len) >> 8);
        tf.bytes[11] = (uint8_t)(16 + len);
        tf.bytes[14] = (uint8_t)((len - pad) >> 8);
        tf.bytes[15] = (uint8_t)(len - pad);
        memcpy(tf.bytes + 16 + pad, eth.bytes + skip, eth.frame.caplen - skip);
        tf.frame = eth.frame;
        tf.frame.data = tf.bytes;
        tf.frame.caplen = tf.frame.len = 16 + len;
        tf.frame.linktype = RS_DLT_ERF;
        test_decode(&tf.frame, &pkt);
        assert_layer(&pkt, RS_LAYER_ERF, 0, 16 + pad);
        assert_int_equal(rs_packet_has(&pkt, RS_LAYER_ETH), cases[i].ethernet);
        if (cases[i].type == 10) {
            assert_false(rs_packet_has(&pkt, RS_LAYER_BTH));
            continue;
        }
        assert_int_equal(pkt.encap, RS_ENCAP_ROCEV2);
        assert_layer(&pkt, RS_LAYER_IPV4, 16 + pad + (cases[i].ethernet ? 14 : 0), 20);
        assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    }
}

static void
test_native_ib_local_and_global(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    test_frame_from_hex(&tf, HEX_ERF_IB_ACK, RS_DLT_ERF);
    test_decode(&tf.frame, &pkt);
    assert_int_equal(pkt.encap, RS_ENCAP_IB);
    assert_layer(&pkt, RS_LAYER_ERF, 0, 16);
    assert_layer(&pkt, RS_LAYER_LRH, 16, 8);
    assert_false(rs_packet_has(&pkt, RS_LAYER_GRH));
    assert_layer(&pkt, RS_LAYER_BTH, 24, 12);
    assert_layer(&pkt, RS_LAYER_AETH, 36, 4);
    assert_layer(&pkt, RS_LAYER_ICRC, 40, 4);
    assert_layer(&pkt, RS_LAYER_VCRC, 44, 2);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(pkt.vcrc_status, RS_CKSUM_GOOD);
    assert_int_equal(pkt.flags, 0);

    test_frame_from_hex(&tf, HEX_ERF_IB_GRH_UD, RS_DLT_ERF);
    test_decode(&tf.frame, &pkt);
    assert_layer(&pkt, RS_LAYER_GRH, 24, 40);
    assert_layer(&pkt, RS_LAYER_BTH, 64, 12);
    assert_layer(&pkt, RS_LAYER_DETH, 76, 8);
    assert_int_equal(pkt.payload_len, 100);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(pkt.vcrc_status, RS_CKSUM_GOOD);

    /* The same packet without its ERF header, as DLT_INFINIBAND. */
    memmove(tf.bytes, tf.bytes + 16, tf.frame.caplen - 16);
    tf.frame.caplen -= 16;
    tf.frame.len -= 16;
    tf.frame.linktype = RS_DLT_INFINIBAND;
    test_decode(&tf.frame, &pkt);
    assert_layer(&pkt, RS_LAYER_LRH, 0, 8);
    assert_layer(&pkt, RS_LAYER_DETH, 60, 8);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(pkt.vcrc_status, RS_CKSUM_GOOD);
}

static void
test_vlan_tags(void **state)
{
    static const uint8_t dot1q[4] = {0x81, 0x00, 0x60, 0x64};     /* PCP 3, VID 100 */
    static const uint8_t dot1ad[4] = {0x88, 0xa8, 0x00, 0x0a};    /* S-VID 10 */
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    insert_bytes(&tf, 12, dot1q, 4);
    test_decode(&tf.frame, &pkt);
    /* A tag's span is its TCI and the type that follows it. */
    assert_layer(&pkt, RS_LAYER_VLAN, 14, 4);
    assert_false(rs_packet_has(&pkt, RS_LAYER_VLAN2));
    assert_layer(&pkt, RS_LAYER_BTH, 46, 12);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);

    insert_bytes(&tf, 12, dot1ad, 4);
    test_decode(&tf.frame, &pkt);
    assert_layer(&pkt, RS_LAYER_VLAN, 14, 4);
    assert_layer(&pkt, RS_LAYER_VLAN2, 18, 4);
    assert_layer(&pkt, RS_LAYER_BTH, 50, 12);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(pkt.flags, 0);
}

static void
test_cooked_and_raw_link_types(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    uint8_t sll[16] = {0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00};
    uint8_t sll2[20] = {0x08, 0x00, 0, 0, 0, 0, 0, 2, 0, 1, 0, 6};

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_LINUX_SLL);
    memmove(tf.bytes, tf.bytes + ETH, tf.frame.caplen - ETH);
    tf.frame.caplen -= ETH;
    tf.frame.len -= ETH;
    tf.frame.linktype = RS_DLT_RAW;
    test_decode(&tf.frame, &pkt);
    assert_layer(&pkt, RS_LAYER_BTH, IP4 + UDP, 12);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);

    insert_bytes(&tf, 0, sll, sizeof(sll));
    tf.frame.linktype = RS_DLT_LINUX_SLL;
    test_decode(&tf.frame, &pkt);
    assert_layer(&pkt, RS_LAYER_SLL, 0, 16);
    assert_layer(&pkt, RS_LAYER_BTH, 16 + IP4 + UDP, 12);

    memmove(tf.bytes, tf.bytes + 16, tf.frame.caplen - 16);
    tf.frame.caplen -= 16;
    tf.frame.len -= 16;
    insert_bytes(&tf, 0, sll2, sizeof(sll2));
    tf.frame.linktype = RS_DLT_LINUX_SLL2;
    test_decode(&tf.frame, &pkt);
    assert_layer(&pkt, RS_LAYER_SLL, 0, 20);
    assert_layer(&pkt, RS_LAYER_BTH, 20 + IP4 + UDP, 12);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
}

/* The ICRC of the IP packet in tf (an Ethernet frame) is the same as the
 * frame and as a raw IP capture: the frame's is computed on the packet in
 * place, under a mask for its layout, the raw one's from a masked copy
 * (its IP header starts too early for the mask's 8 bytes of LRH). */
static uint32_t
icrc_both_ways(struct test_frame *tf)
{
    struct test_frame raw = *tf;
    struct rs_packet pkt, raw_pkt;

    test_decode(&tf->frame, &pkt);
    memmove(raw.bytes, raw.bytes + ETH, raw.frame.caplen - ETH);
    raw.frame.data = raw.bytes;
    raw.frame.caplen -= ETH;
    raw.frame.len -= ETH;
    raw.frame.linktype = RS_DLT_RAW;
    test_decode(&raw.frame, &raw_pkt);
    assert_true(rs_packet_has(&pkt, RS_LAYER_ICRC));
    assert_int_equal(pkt.icrc_computed, raw_pkt.icrc_computed);
    assert_int_equal(pkt.icrc_status, raw_pkt.icrc_status);
    return pkt.icrc_computed;
}

/* Past an L3 header of l3_len bytes in tf, whose ICRC is icrc: the UDP
 * checksum and the BTH's FECN and BECN are masked (the ICRC stays), its
 * destination QP is covered. */
static void
assert_udp_and_bth_masked(struct test_frame *tf, uint32_t l3_len, uint32_t icrc)
{
    uint8_t *udp = tf->bytes + ETH + l3_len, *bth = udp + UDP;

    udp[6] ^= 0x5a;
    udp[7] ^= 0xa5;
    bth[4] ^= 0xc0;
    assert_int_equal(icrc_both_ways(tf), icrc);
    bth[7] ^= 1;
    assert_int_not_equal(icrc_both_ways(tf), icrc);
    bth[7] ^= 1;
}

/* IPv4 with options and IPv6 with an extension header: the masks for longer
 * L3 headers cover the right bytes. */
static void
test_icrc_of_longer_ip_headers(void **state)
{
    struct test_frame tf;
    static const uint8_t nops[8] = {1, 1, 1, 1, 1, 1, 1, 1};

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    uint32_t plain = icrc_both_ways(&tf);
    assert_int_equal(plain, rs_load_le32(tf.bytes + tf.frame.caplen - 4));
    assert_udp_and_bth_masked(&tf, IP4, plain);

    /* Eight bytes of options: a different ICRC, the same both ways. */
    insert_bytes(&tf, ETH + IP4, nops, sizeof(nops));
    tf.bytes[ETH] = 0x47;
    rs_store_be16(tf.bytes + ETH + 2, (uint16_t)(rs_load_be16(tf.bytes + ETH + 2) + 8));
    assert_int_not_equal(icrc_both_ways(&tf), plain);
    /* TTL and TOS are masked: changing them changes nothing. */
    uint32_t with_options = icrc_both_ways(&tf);
    tf.bytes[ETH + 1] ^= 0xfc;
    tf.bytes[ETH + 8] ^= 0x55;
    assert_int_equal(icrc_both_ways(&tf), with_options);
    assert_udp_and_bth_masked(&tf, IP4 + 8, with_options);

    /* IPv6 with an 8-byte hop-by-hop header in front of UDP. */
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    uint16_t udp_len = rs_load_be16(tf.bytes + ETH + IP4 + 4);
    uint8_t ip6[48] = {0x60, 0, 0, 0, 0, 0, 0 /* hop-by-hop */, 64};
    rs_store_be16(ip6 + 4, (uint16_t)(udp_len + 8));
    ip6[23] = 1;
    ip6[39] = 2;
    ip6[40] = 17;               /* then UDP; length 0 (8 bytes), PadN of 4 */
    ip6[42] = 1;
    ip6[43] = 4;
    memmove(tf.bytes + ETH, tf.bytes + ETH + IP4, tf.frame.caplen - ETH - IP4);
    tf.frame.caplen -= IP4;
    tf.frame.len -= IP4;
    insert_bytes(&tf, ETH, ip6, sizeof(ip6));
    rs_store_be16(tf.bytes + 12, 0x86dd);
    uint32_t v6 = icrc_both_ways(&tf);
    tf.bytes[ETH + 7] ^= 0x3f;  /* hop limit: masked */
    assert_int_equal(icrc_both_ways(&tf), v6);
    assert_udp_and_bth_masked(&tf, sizeof(ip6), v6);
    tf.bytes[ETH + 42] ^= 1;    /* the extension header: covered */
    assert_int_not_equal(icrc_both_ways(&tf), v6);
}

static void
test_extra_udp_port(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct rs_decode_opts opts;

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    rs_store_be16(tf.bytes + ETH + IP4 + 2, 4792);
    test_decode(&tf.frame, &pkt);
    assert_int_equal(pkt.encap, RS_ENCAP_NONE);
    assert_false(rs_packet_has(&pkt, RS_LAYER_BTH));
    rs_decode_opts_init(&opts);
    opts.roce_ports[opts.n_roce_ports++] = 4792;
    rs_decode_frame(&tf.frame, &opts, &pkt);
    assert_int_equal(pkt.encap, RS_ENCAP_ROCEV2);
    assert_true(rs_packet_has(&pkt, RS_LAYER_RETH));
}

/* Every cut inside the frame is flagged, and nothing claims bytes that were
 * not captured. */
static void
test_snaplen_cuts(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    for (uint32_t cap = 0; cap < tf.frame.len; cap++) {
        tf.frame.caplen = cap;
        test_decode(&tf.frame, &pkt);
        assert_true(pkt.flags & RS_PKT_MALFORMED);
        assert_true(pkt.flags & RS_PKT_SNAPLEN);
        assert_non_null(pkt.problem);
        for (int l = 0; l < RS_LAYER_COUNT; l++)
            if (rs_packet_has(&pkt, (enum rs_layer)l))
                assert_true(pkt.span[l].off + pkt.span[l].len <= cap);
        if (rs_packet_has(&pkt, RS_LAYER_BTH)) {
            assert_int_not_equal(pkt.icrc_status, RS_CKSUM_GOOD);
            assert_int_not_equal(pkt.icrc_status, RS_CKSUM_BAD);
            /* The declared payload length survives the cut. */
            if (rs_packet_has(&pkt, RS_LAYER_PAYLOAD))
                assert_int_equal(pkt.payload_len, 18);
        }
    }
}

/* A frame cut on the wire: the IP header claims more than arrived. */
static void
test_lengths_that_lie(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    tf.frame.caplen = tf.frame.len = 80;
    test_decode(&tf.frame, &pkt);
    assert_true(pkt.flags & RS_PKT_MALFORMED);
    assert_false(pkt.flags & RS_PKT_SNAPLEN);
    assert_string_equal(pkt.problem, "IPv4 total length exceeds the frame");

    /* UDP length below its own header. */
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    rs_store_be16(tf.bytes + ETH + IP4 + 4, 4);
    test_decode(&tf.frame, &pkt);
    assert_string_equal(pkt.problem, "UDP length shorter than its header");

    /* An LRH packet length longer than the frame. */
    test_frame_from_hex(&tf, HEX_ERF_IB_ACK, RS_DLT_ERF);
    rs_store_be16(tf.bytes + 16 + 4, 0x7ff);
    test_decode(&tf.frame, &pkt);
    assert_string_equal(pkt.problem, "LRH packet length exceeds the frame");
}

static void
test_inconsistent_transport(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    uint32_t bth = ETH + IP4 + UDP;

    (void)state;
    /* A pad count larger than the payload of an ACK is inconsistent. */
    test_frame_from_hex(&tf, HEX_ROCEV2_ACK, RS_DLT_EN10MB);
    tf.bytes[bth + 1] |= 0x30;
    test_decode(&tf.frame, &pkt);
    assert_true(pkt.flags & RS_PKT_MALFORMED);

    /* An unknown transport header version. */
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    tf.bytes[bth + 1] |= 0x01;
    test_decode(&tf.frame, &pkt);
    assert_string_equal(pkt.problem, "unknown BTH transport header version");

    /* A reserved RC opcode. */
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    tf.bytes[bth] = 0x18;
    test_decode(&tf.frame, &pkt);
    assert_string_equal(pkt.problem, "reserved BTH opcode");

    /* A vendor-specific opcode is opaque, not malformed. */
    tf.bytes[bth] = 0xc3;
    test_decode(&tf.frame, &pkt);
    assert_false(pkt.flags & RS_PKT_MALFORMED);
    assert_true(rs_packet_has(&pkt, RS_LAYER_ICRC));

    /* A Read Request too short for its RETH. */
    test_frame_from_hex(&tf, HEX_ROCEV2_ACK, RS_DLT_EN10MB);
    tf.bytes[bth] = 0x0c;
    test_decode(&tf.frame, &pkt);
    assert_string_equal(pkt.problem, "packet too short for the headers of its opcode");
    assert_false(rs_packet_has(&pkt, RS_LAYER_RETH));
    assert_true(rs_packet_has(&pkt, RS_LAYER_BTH));
}

static void
test_ip_fragment_is_not_decoded(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    tf.bytes[ETH + 6] |= 0x20;      /* more fragments */
    test_decode(&tf.frame, &pkt);
    assert_true(pkt.flags & RS_PKT_IP_FRAGMENT);
    assert_false(rs_packet_has(&pkt, RS_LAYER_UDP));
    assert_int_equal(pkt.encap, RS_ENCAP_NONE);
}

static void
test_opcode_table(void **state)
{
    (void)state;
    assert_string_equal(rs_ib_opcode_info(0x0a)->name, "RC RDMA Write Only");
    assert_int_equal(rs_ib_opcode_info(0x0a)->hdrs, RS_HDR_RETH | RS_HDR_PAYLOAD);
    assert_string_equal(rs_ib_opcode_info(0x26)->name, "UC RDMA Write First");
    assert_null(rs_ib_opcode_info(0x2c)->name);             /* UC has no READ */
    /* RD: requests carry RDETH and DETH, responses RDETH only. */
    assert_int_equal(rs_ib_opcode_info(0x4c)->hdrs, RS_HDR_RDETH | RS_HDR_DETH | RS_HDR_RETH);
    assert_int_equal(rs_ib_opcode_info(0x51)->hdrs, RS_HDR_RDETH | RS_HDR_AETH);
    assert_int_equal(rs_ib_opcode_info(0x55)->hdrs, RS_HDR_RDETH | RS_HDR_DETH);
    assert_int_equal(rs_ib_opcode_info(0x64)->hdrs, RS_HDR_DETH | RS_HDR_PAYLOAD);
    assert_null(rs_ib_opcode_info(0x60)->name);             /* UD sends only */
    assert_int_equal(rs_ib_opcode_info(0x81)->hdrs, RS_HDR_CNP);
    /* XRC requests carry XRCETH, responses do not. */
    assert_int_equal(rs_ib_opcode_info(0xab)->hdrs,
                     RS_HDR_XRCETH | RS_HDR_RETH | RS_HDR_IMMDT | RS_HDR_PAYLOAD);
    assert_int_equal(rs_ib_opcode_info(0xb1)->hdrs, RS_HDR_AETH);
    assert_int_equal(rs_ib_opcode_info(0xb7)->hdrs,
                     RS_HDR_XRCETH | RS_HDR_IETH | RS_HDR_PAYLOAD);
    assert_int_equal(rs_ib_hdrs_len(RS_HDR_RDETH | RS_HDR_DETH | RS_HDR_ATOMICETH), 40);
    int defined = 0;
    for (int op = 0; op < 256; op++)
        defined += rs_ib_opcode_info((uint8_t)op)->name != NULL;
    /* RC 23, UC 12, RD 22, UD 2, CNP 1, XRC 23. */
    assert_int_equal(defined, 23 + 12 + 22 + 2 + 1 + 23);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rocev2_write_only),
        cmocka_unit_test(test_rocev2_ack_with_ethernet_padding),
        cmocka_unit_test(test_rocev2_read_request_has_no_payload),
        cmocka_unit_test(test_rocev2_atomics),
        cmocka_unit_test(test_rocev1),
        cmocka_unit_test(test_erf_record_types),
        cmocka_unit_test(test_native_ib_local_and_global),
        cmocka_unit_test(test_vlan_tags),
        cmocka_unit_test(test_cooked_and_raw_link_types),
        cmocka_unit_test(test_icrc_of_longer_ip_headers),
        cmocka_unit_test(test_extra_udp_port),
        cmocka_unit_test(test_snaplen_cuts),
        cmocka_unit_test(test_lengths_that_lie),
        cmocka_unit_test(test_inconsistent_transport),
        cmocka_unit_test(test_ip_fragment_is_not_decoded),
        cmocka_unit_test(test_opcode_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
