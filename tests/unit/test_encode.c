/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_encode.c - the packet builder: byte-exact against frames that
 * scapy.contrib.roce and tests/gen/ibframes.py built (independent ICRC
 * code), and decoding back field for field for every defined opcode.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <roceshark/dissectors/encode.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/wire.h>

#include "testutil.h"

/* Built by scapy (IP/UDP/BTH, ICRC from BTH.compute_icrc) and checked with
 * ibframes.icrc(): 127.1.2.3 -> 127.4.5.6, ID 0, DF, TTL 64, UDP 4791 ->
 * 4791 with checksum 0. */
#define VEC_SEND_ONLY_IMM                                                                    \
    "4500003800004000401135a77f0102037f04050612b712b7002400000530ffff00000abc80123456deadbeef" \
    "68656c6c6f000000cd1418dc"
#define VEC_CMP_SWAP                                                                         \
    "4500004800004000401135977f0102037f04050612b712b7003400001300ffff0000002280000007000000" \
    "000000100000000042000000000000000500000000000000078d58a28c"
#define VEC_ATOMIC_ACK                                                                       \
    "4500003800004000401135a77f0102037f04050612b712b7002400001200ffff00000033000000091f0000" \
    "030102030405060708bd96e2ae"
#define VEC_CNP                                                                              \
    "4500003c00004000401135a37f0102037f04050612b712b7002800008100ffff400000440000000000000000" \
    "000000000000000000000000cafae443"
/* A WRITE First whose 256-byte payload is (i * 7) & 0xff; only its ICRC is kept here. */
#define VEC_WRITE_FIRST_ICRC 0xef7046fdu
/* IPv6 (fd00::1 -> fd00::2, hop limit 64) RC Acknowledge, ICRC from ibframes.icrc(). */
#define VEC_IPV6_ACK                                                                         \
    "60000000001c1140fd000000000000000000000000000001fd000000000000000000000000000002" \
    "12b712b7001c00001100ffff00000055000000101f000001de9024c7"

static void
route4(struct rs_roce_route *r)
{
    static const uint8_t src[4] = {127, 1, 2, 3}, dst[4] = {127, 4, 5, 6};

    memset(r, 0, sizeof(*r));
    r->family = 4;
    memcpy(r->src, src, 4);
    memcpy(r->dst, dst, 4);
    r->sport = r->dport = RS_ROCEV2_UDP_PORT;
    r->ttl = 64;
    r->df = true;
}

static void
assert_built(const struct rs_roce_route *r, const struct rs_ib_fields *f, const void *payload,
             uint32_t len, const char *hex)
{
    struct test_frame want;
    uint8_t buf[2048];

    test_frame_from_hex(&want, hex, RS_DLT_IPV4);
    uint32_t n = rs_encode_rocev2(buf, sizeof(buf), r, f, payload, len, NULL, NULL);
    assert_int_equal(n, want.frame.len);
    assert_memory_equal(buf, want.bytes, n);
}

static void
test_matches_scapy(void **state)
{
    struct rs_roce_route r;
    struct rs_ib_fields f;

    (void)state;
    route4(&r);
    memset(&f, 0, sizeof(f));
    f.opcode = 0x05;
    f.dest_qp = 0xabc;
    f.psn = 0x123456;
    f.ackreq = true;
    f.pkey = 0xffff;
    f.imm = 0xdeadbeef;
    assert_built(&r, &f, "hello", 5, VEC_SEND_ONLY_IMM);

    memset(&f, 0, sizeof(f));
    f.opcode = 0x13;
    f.dest_qp = 0x22;
    f.psn = 7;
    f.ackreq = true;
    f.pkey = 0xffff;
    f.atomic.va = 0x1000;
    f.atomic.rkey = 0x42;
    f.atomic.swap_add = 5;
    f.atomic.compare = 7;
    assert_built(&r, &f, NULL, 0, VEC_CMP_SWAP);

    memset(&f, 0, sizeof(f));
    f.opcode = 0x12;
    f.dest_qp = 0x33;
    f.psn = 9;
    f.pkey = 0xffff;
    f.aeth.syndrome = 0x1f;
    f.aeth.msn = 3;
    f.atomic_ack_orig = 0x0102030405060708ull;
    assert_built(&r, &f, NULL, 0, VEC_ATOMIC_ACK);

    memset(&f, 0, sizeof(f));
    f.opcode = 0x81;
    f.dest_qp = 0x44;
    f.becn = true;
    f.pkey = 0xffff;
    assert_built(&r, &f, NULL, 0, VEC_CNP);

    uint8_t payload[256], buf[2048];
    for (unsigned i = 0; i < sizeof(payload); i++)
        payload[i] = (uint8_t)(i * 7);
    memset(&f, 0, sizeof(f));
    f.opcode = 0x06;
    f.dest_qp = 0x11;
    f.psn = 0xffffff;
    f.pkey = 0x8001;
    f.reth.va = 0x1122334455667788ull;
    f.reth.rkey = 0x1234;
    f.reth.len = 8192;
    uint32_t n = rs_encode_rocev2(buf, sizeof(buf), &r, &f, payload, sizeof(payload), NULL,
                                  NULL);
    assert_int_equal(n, 20 + 8 + 12 + 16 + 256 + 4);
    assert_int_equal(rs_load_le32(buf + n - 4), VEC_WRITE_FIRST_ICRC);
}

static void
test_ipv6_matches_ibframes(void **state)
{
    struct test_frame want;
    struct rs_roce_route r;
    struct rs_ib_fields f;
    uint8_t buf[256];

    (void)state;
    test_frame_from_hex(&want, VEC_IPV6_ACK, RS_DLT_IPV6);
    memset(&r, 0, sizeof(r));
    r.family = 6;
    r.src[0] = r.dst[0] = 0xfd;
    r.src[15] = 1;
    r.dst[15] = 2;
    r.sport = r.dport = RS_ROCEV2_UDP_PORT;
    r.ttl = 64;
    memset(&f, 0, sizeof(f));
    f.opcode = 0x11;
    f.pkey = 0xffff;
    f.dest_qp = 0x55;
    f.psn = 0x10;
    f.aeth.syndrome = 0x1f;
    f.aeth.msn = 1;
    uint32_t n = rs_encode_rocev2(buf, sizeof(buf), &r, &f, NULL, 0, NULL, NULL);
    assert_int_equal(n, want.frame.len);
    /* Identical but for the UDP checksum, which IPv6 requires and the
     * vector left 0 (the ICRC masks it). */
    assert_memory_equal(buf, want.bytes, 46);
    assert_memory_equal(buf + 48, want.bytes + 48, n - 48);
    assert_int_not_equal(rs_load_be16(buf + 46), 0);
}

/* A small deterministic generator, so failures reproduce. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void
random_fields(struct rs_ib_fields *f, uint8_t opcode)
{
    memset(f, 0, sizeof(*f));
    f->opcode = opcode;
    f->se = next_rand() & 1;
    f->migreq = next_rand() & 1;
    f->ackreq = next_rand() & 1;
    f->fecn = next_rand() & 1;
    f->becn = next_rand() & 1;
    f->pkey = (uint16_t)next_rand();
    f->dest_qp = (uint32_t)next_rand() & 0xffffff;
    f->psn = (uint32_t)next_rand() & 0xffffff;
    f->reth.va = next_rand();
    f->reth.rkey = (uint32_t)next_rand();
    f->reth.len = (uint32_t)next_rand();
    f->atomic.va = next_rand();
    f->atomic.rkey = (uint32_t)next_rand();
    f->atomic.swap_add = next_rand();
    f->atomic.compare = next_rand();
    f->aeth.syndrome = (uint8_t)next_rand();
    f->aeth.msn = (uint32_t)next_rand() & 0xffffff;
    f->atomic_ack_orig = next_rand();
    f->imm = (uint32_t)next_rand();
    f->ieth_rkey = (uint32_t)next_rand();
    f->deth.qkey = (uint32_t)next_rand();
    f->deth.src_qp = (uint32_t)next_rand() & 0xffffff;
    f->rdeth_eecnxt = (uint32_t)next_rand() & 0xffffff;
    f->xrc_srq = (uint32_t)next_rand() & 0xffffff;
}

/* The field name's first value in p, as the registry (the printers' and filters' tables)
 * reads it, equals what an accessor of ib_headers.h read. */
static void
assert_field_is(const struct rs_packet *p, const char *name, uint64_t got)
{
    struct rs_value v;
    int id = rs_field_lookup(name);

    assert_true(id >= 0);
    assert_true(rs_field_value(p, id, 0, &v));
    if (v.v.u != got)
        fail_msg("%s: the registry reads %llu, the accessor %llu", name,
                 (unsigned long long)v.v.u, (unsigned long long)got);
}

/* Every header field the decoder finds is the one we asked for, read through the
 * accessors of ib_headers.h, which read what the field tables read: code that uses them
 * sees the header as the printers show it. */
static void
assert_fields(const struct rs_packet *p, const struct rs_ib_fields *f, uint32_t len)
{
    const uint8_t *bth = rs_packet_at(p, RS_LAYER_BTH);
    uint16_t hdrs = rs_ib_opcode_info(f->opcode)->hdrs;

    assert_field_is(p, "infiniband.bth.opcode", rs_bth_opcode(bth));
    assert_field_is(p, "infiniband.bth.se", rs_bth_se(bth));
    assert_field_is(p, "infiniband.bth.m", rs_bth_migreq(bth));
    assert_field_is(p, "infiniband.bth.padcnt", rs_bth_padcnt(bth));
    assert_field_is(p, "infiniband.bth.tver", rs_bth_tver(bth));
    assert_field_is(p, "infiniband.bth.p_key", rs_bth_pkey(bth));
    assert_field_is(p, "infiniband.bth.destqp", rs_bth_destqp(bth));
    assert_field_is(p, "infiniband.bth.a", rs_bth_ackreq(bth));
    assert_field_is(p, "infiniband.bth.psn", rs_bth_psn(bth));
    assert_int_equal(rs_bth_opcode(bth), f->opcode);
    assert_int_equal(rs_bth_se(bth), f->se);
    assert_int_equal(rs_bth_migreq(bth), f->migreq);
    assert_int_equal(rs_bth_padcnt(bth), (4 - (len & 3)) & 3);
    assert_int_equal(rs_bth_pkey(bth), f->pkey);
    assert_int_equal(rs_bth_fecn(bth), f->fecn);
    assert_int_equal(rs_bth_becn(bth), f->becn);
    assert_int_equal(rs_bth_destqp(bth), f->dest_qp);
    assert_int_equal(rs_bth_ackreq(bth), f->ackreq);
    assert_int_equal(rs_bth_psn(bth), f->psn);
    assert_int_equal(rs_bth_tver(bth), 0);
    assert_int_equal(p->payload_len, len);
    if (hdrs & RS_HDR_RETH) {
        const uint8_t *reth = rs_packet_at(p, RS_LAYER_RETH);
        assert_field_is(p, "infiniband.reth.va", rs_reth_va(reth));
        assert_field_is(p, "infiniband.reth.r_key", rs_reth_rkey(reth));
        assert_field_is(p, "infiniband.reth.dmalen", rs_reth_dmalen(reth));
        assert_true(rs_reth_va(reth) == f->reth.va);
        assert_int_equal(rs_reth_rkey(reth), f->reth.rkey);
        assert_int_equal(rs_reth_dmalen(reth), f->reth.len);
    }
    if (hdrs & RS_HDR_ATOMICETH) {
        const uint8_t *a = rs_packet_at(p, RS_LAYER_ATOMICETH);
        assert_field_is(p, "infiniband.atomiceth.swapdt", rs_atomiceth_swap(a));
        assert_field_is(p, "infiniband.atomiceth.cmpdt", rs_atomiceth_compare(a));
        assert_true(rs_atomiceth_va(a) == f->atomic.va);
        assert_int_equal(rs_atomiceth_rkey(a), f->atomic.rkey);
        assert_true(rs_atomiceth_swap(a) == f->atomic.swap_add);
        assert_true(rs_atomiceth_compare(a) == f->atomic.compare);
    }
    if (hdrs & RS_HDR_AETH) {
        const uint8_t *aeth = rs_packet_at(p, RS_LAYER_AETH);
        assert_field_is(p, "infiniband.aeth.syndrome", rs_aeth_syndrome(aeth));
        assert_field_is(p, "infiniband.aeth.msn", rs_aeth_msn(aeth));
        assert_int_equal(rs_aeth_syndrome(aeth), f->aeth.syndrome);
        assert_int_equal(rs_aeth_code(aeth), f->aeth.syndrome & 0x1f);
        assert_int_equal(rs_aeth_msn(aeth), f->aeth.msn);
    }
    if (hdrs & RS_HDR_ATOMICACKETH) {
        const uint8_t *a = rs_packet_at(p, RS_LAYER_ATOMICACKETH);
        assert_field_is(p, "infiniband.atomicacketh.origremdt", rs_atomicacketh_orig(a));
        assert_true(rs_atomicacketh_orig(a) == f->atomic_ack_orig);
    }
    if (hdrs & RS_HDR_IMMDT)
        assert_int_equal(rs_immdt_data(rs_packet_at(p, RS_LAYER_IMMDT)), f->imm);
    if (hdrs & RS_HDR_IETH)
        assert_int_equal(rs_ieth_rkey(rs_packet_at(p, RS_LAYER_IETH)), f->ieth_rkey);
    if (hdrs & RS_HDR_DETH) {
        const uint8_t *deth = rs_packet_at(p, RS_LAYER_DETH);
        assert_field_is(p, "infiniband.deth.q_key", rs_deth_qkey(deth));
        assert_field_is(p, "infiniband.deth.srcqp", rs_deth_srcqp(deth));
        assert_int_equal(rs_deth_qkey(deth), f->deth.qkey);
        assert_int_equal(rs_deth_srcqp(deth), f->deth.src_qp);
    }
    if (hdrs & RS_HDR_RDETH) {
        const uint8_t *rdeth = rs_packet_at(p, RS_LAYER_RDETH);
        assert_field_is(p, "infiniband.rdeth.eecnxt", rs_rdeth_ee(rdeth));
        assert_int_equal(rs_rdeth_ee(rdeth), f->rdeth_eecnxt);
    }
    if (hdrs & RS_HDR_XRCETH)
        assert_int_equal(rs_xrceth_xrcsrq(rs_packet_at(p, RS_LAYER_XRCETH)), f->xrc_srq);
}

static void
roundtrip(uint8_t family, uint8_t opcode, uint32_t len)
{
    static uint8_t buf[8192], payload[4096];
    struct rs_roce_route r;
    struct rs_ib_fields f;
    struct rs_frame vframe;
    struct rs_packet view, dec;
    struct rs_decode_opts opts;

    route4(&r);
    r.family = family;
    if (family == 6) {
        for (int i = 0; i < 16; i++) {
            r.src[i] = (uint8_t)next_rand();
            r.dst[i] = (uint8_t)next_rand();
        }
        r.flow_label = (uint32_t)next_rand() & 0xfffff;
    }
    r.tos = (uint8_t)next_rand();
    r.ip_id = (uint16_t)next_rand();
    r.sport = (uint16_t)(next_rand() | 0xc000);
    random_fields(&f, opcode);
    for (uint32_t i = 0; i < len; i++)
        payload[i] = (uint8_t)next_rand();

    uint32_t n = rs_encode_rocev2(buf, sizeof(buf), &r, &f, payload, len, &vframe, &view);
    assert_int_equal(n, (family == 6 ? 40u : 20u) + 8 + rs_encode_ib_len(opcode, len));

    struct rs_frame frame = {.data = buf, .caplen = n, .len = n,
                             .linktype = family == 6 ? RS_DLT_IPV6 : RS_DLT_IPV4};
    rs_decode_opts_init(&opts);
    rs_decode_frame(&frame, &opts, &dec);
    assert_int_equal(dec.flags & RS_PKT_MALFORMED, 0);
    assert_int_equal(dec.encap, RS_ENCAP_ROCEV2);
    assert_int_equal(dec.opcode, opcode);
    assert_int_equal(dec.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(dec.icrc_computed, view.icrc_computed);
    assert_int_equal(dec.ecn, r.tos & 3);
    /* The builder's view records the same layers at the same places. */
    assert_true(dec.layers == view.layers);
    for (int l = 0; l < RS_LAYER_COUNT; l++) {
        if (!rs_packet_has(&dec, (enum rs_layer)l))
            continue;
        assert_int_equal(dec.span[l].off, view.span[l].off);
        assert_int_equal(dec.span[l].len, view.span[l].len);
    }
    assert_fields(&dec, &f, len);
    if (len > 0)
        assert_memory_equal(rs_packet_at(&dec, RS_LAYER_PAYLOAD), payload, len);
    if (family == 4) {
        const uint8_t *ip = buf;
        assert_int_equal(rs_load_be16(ip + 4), r.ip_id);
        assert_int_equal(ip[1], r.tos);
    }
}

static void
test_every_opcode_roundtrips(void **state)
{
    static const uint32_t lens[] = {0, 1, 2, 3, 4, 5, 255, 256, 1023, 4096};
    unsigned built = 0;

    (void)state;
    for (unsigned op = 0; op < 256; op++) {
        const struct rs_ib_opcode *info = rs_ib_opcode_info((uint8_t)op);
        if (info->name == NULL)
            continue;
        for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
            if (lens[i] > 0 && !(info->hdrs & RS_HDR_PAYLOAD))
                continue;
            roundtrip(4, (uint8_t)op, lens[i]);
            roundtrip(6, (uint8_t)op, lens[i]);
            built += 2;
        }
    }
    assert_true(built > 600);
}

static void
test_fix_icrc_and_limits(void **state)
{
    struct rs_roce_route r;
    struct rs_ib_fields f;
    uint8_t buf[512];
    struct rs_frame frame;
    struct rs_packet pkt;
    struct rs_decode_opts opts;

    (void)state;
    route4(&r);
    memset(&f, 0, sizeof(f));
    f.opcode = 0x04;
    f.pkey = 0xffff;
    uint32_t n = rs_encode_rocev2(buf, sizeof(buf), &r, &f, "abcd", 4, NULL, NULL);
    assert_int_equal(n, 20 + 8 + 12 + 4 + 4);
    /* Too small a buffer, or more than an IP packet holds: nothing built. */
    assert_int_equal(rs_encode_rocev2(buf, n - 1, &r, &f, "abcd", 4, NULL, NULL), 0);
    assert_int_equal(rs_encode_rocev2(buf, sizeof(buf), &r, &f, NULL, 70000, NULL, NULL), 0);

    buf[40] ^= 0xff;    /* a payload byte: the ICRC no longer matches */
    frame = (struct rs_frame){.data = buf, .caplen = n, .len = n, .linktype = RS_DLT_IPV4};
    rs_decode_opts_init(&opts);
    rs_decode_frame(&frame, &opts, &pkt);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_BAD);
    assert_true(rs_encode_fix_icrc(buf, n));
    rs_decode_frame(&frame, &opts, &pkt);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_false(rs_encode_fix_icrc(buf, 10));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_scapy),
        cmocka_unit_test(test_ipv6_matches_ibframes),
        cmocka_unit_test(test_every_opcode_roundtrips),
        cmocka_unit_test(test_fix_icrc_and_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
