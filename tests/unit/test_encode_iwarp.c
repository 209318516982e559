/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_encode_iwarp.c - the iWARP builder, decoded back: for every RDMAP
 * opcode over IPv4 and IPv6, an MPA Request, Reply and FPDU, each behind an
 * Ethernet header, go through the decoder and the iWARP stage in order, and
 * every DDP and RDMAP field set reads back (by its Wireshark name) with a
 * good MPA CRC. A bad CRC reads bad, a forced CRC and ULPDU_Length are
 * written as given, a connection without CRCs carries zeros; the IPv4
 * header and TCP checksums are recomputed here, by a sum of our own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stddef.h>

#include <cmocka.h>

#include <roceshark/dissectors/crc.h>
#include <roceshark/dissectors/encode_iwarp.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/wire.h>

#include "iwarp_want.h"
#include "testutil.h"

#define ETH_LEN 14
#define ISN_INI 0xfffffff0u     /* the initiator's sequence numbers wrap */
#define ISN_RES 7000u
#define PD "private"

/* One connection: the initiator's route (d 0) and the responder's (d 1). */
struct conn {
    struct rs_iwarp *iw;
    struct rs_tcp_route r[2];
    struct rs_decode_opts dopts;
    struct rs_frame frame;
    struct rs_packet pkt;
    uint64_t number;
    uint8_t bytes[ETH_LEN + 70000];
};

static uint8_t *
ip_at(struct conn *c)
{
    return c->bytes + ETH_LEN;
}

static void
conn_open(struct conn *c, uint8_t family)
{
    static const uint8_t a4[4] = {192, 0, 2, 1}, b4[4] = {192, 0, 2, 2};
    static const uint8_t a6[16] = {0xfd, 0, [15] = 1}, b6[16] = {0xfd, 0, [15] = 2};
    struct rs_iwarp_opts o;

    memset(c, 0, sizeof(*c));
    rs_iwarp_opts_init(&o);
    o.max_conns = 16;
    assert_int_equal(rs_iwarp_new(&o, &c->iw, NULL), 0);
    rs_decode_opts_init(&c->dopts);
    for (int d = 0; d < 2; d++) {
        struct rs_tcp_route *r = &c->r[d];
        r->family = family;
        memcpy(r->src, family == 6 ? (d ? b6 : a6) : (d ? b4 : a4), family == 6 ? 16 : 4);
        memcpy(r->dst, family == 6 ? (d ? a6 : b6) : (d ? a4 : b4), family == 6 ? 16 : 4);
        r->sport = d ? 4420 : 40001;
        r->dport = d ? 40001 : 4420;
        r->seq = (d ? ISN_RES : ISN_INI) + 1;
        r->ack = (d ? ISN_INI : ISN_RES) + 1;
        r->window = 512;
        r->ttl = 64;
        r->df = true;
        r->ip_id = (uint16_t)(100 * d);
    }
}

static void
conn_close(struct conn *c)
{
    rs_iwarp_free(c->iw);
}

/* The packet of len octets at ip_at(c), sent by side d: behind Ethernet,
 * decoded and followed; the stream moves on by its TCP payload. */
static const struct rs_iwarp_view *
feed(struct conn *c, int d, uint32_t len)
{
    struct rs_tcp_route *r = &c->r[d];
    uint8_t *e = c->bytes;

    assert_true(len > 0);
    memcpy(e, d ? "\x02\0\0\0\0\x01\x02\0\0\0\0\x02" : "\x02\0\0\0\0\x02\x02\0\0\0\0\x01", 12);
    rs_store_be16(e + 12, r->family == 6 ? 0x86dd : 0x0800);
    memset(&c->frame, 0, sizeof(c->frame));
    c->frame.data = c->bytes;
    c->frame.caplen = c->frame.len = ETH_LEN + len;
    c->frame.linktype = RS_DLT_EN10MB;
    c->frame.number = ++c->number;
    rs_decode_frame(&c->frame, &c->dopts, &c->pkt);
    rs_iwarp_process(c->iw, &c->pkt);
    uint32_t n = rs_encode_tcp_payload_len(r, len);
    r->seq += n;
    c->r[!d].ack += n;
    return c->pkt.iwarp;
}

/* The MPA exchange, with private data both ways. */
static void
exchange(struct conn *c, uint8_t flags)
{
    uint32_t n = rs_encode_mpa_frame(ip_at(c), sizeof(c->bytes) - ETH_LEN, &c->r[0], false,
                                     flags, 1, PD, sizeof(PD) - 1);
    assert_int_equal(rs_encode_tcp_payload_len(&c->r[0], n), 20 + sizeof(PD) - 1);
    const struct rs_iwarp_view *v = feed(c, 0, n);
    assert_non_null(v);
    assert_int_equal(v->n_pdus, 1);
    assert_int_equal(v->pdus[0].kind, RS_MPA_REQUEST);
    assert_int_equal(rs_mpa_frame_anomalies(&v->pdus[0]), 0);
    assert_memory_equal(v->pdus[0].data + 20, PD, sizeof(PD) - 1);
    n = rs_encode_mpa_frame(ip_at(c), sizeof(c->bytes) - ETH_LEN, &c->r[1], true, flags, 1, PD,
                            sizeof(PD) - 1);
    v = feed(c, 1, n);
    assert_non_null(v);
    assert_int_equal(v->n_pdus, 1);
    assert_int_equal(v->pdus[0].kind, RS_MPA_REPLY);
    assert_int_equal(v->pdus[0].data[16], flags);
    assert_int_equal(v->mpa_rev, 1);
}

/* The FPDU of f with payload_len octets of (i * 3) from the initiator. */
static const struct rs_iwarp_pdu *
send_fpdu(struct conn *c, const struct rs_iwarp_fields *f, uint32_t payload_len)
{
    static uint8_t payload[65536];

    for (uint32_t i = 0; i < payload_len; i++)
        payload[i] = (uint8_t)(i * 3);
    uint32_t n = rs_encode_iwarp(ip_at(c), sizeof(c->bytes) - ETH_LEN, &c->r[0], f, payload,
                                 payload_len);
    assert_int_equal(rs_encode_tcp_payload_len(&c->r[0], n), rs_encode_fpdu_len(f, payload_len));
    const struct rs_iwarp_view *v = feed(c, 0, n);
    assert_int_equal(c->pkt.encap, RS_ENCAP_IWARP);
    assert_non_null(v);
    assert_int_equal(v->n_pdus, 1);
    assert_int_equal(v->pdus[0].kind, RS_MPA_FPDU);
    assert_int_equal(v->pdus[0].caplen, v->pdus[0].len);
    return &v->pdus[0];
}

/* Field `name` of the frame's first PDU, which must be there. */
static uint64_t
field(const struct conn *c, const char *name)
{
    struct rs_value v;
    int id = rs_field_lookup(name);

    assert_true(id >= 0);
    if (!rs_field_value(&c->pkt, id, 0, &v))
        fail_msg("%s: not in the frame", name);
    return v.v.u;
}

static void
assert_absent(const struct conn *c, const char *name)
{
    struct rs_value v;

    assert_false(rs_field_value(&c->pkt, rs_field_lookup(name), 0, &v));
}

/* RFC 1071 over the IP header, and over the TCP pseudo-header and segment:
 * a packet with right checksums sums to 0xffff. Written apart from the
 * builder's sum, a word at a time. */
static uint16_t
sum16(uint32_t sum, const uint8_t *p, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        sum += i % 2 ? p[i] : (uint32_t)p[i] << 8;
    while (sum > 0xffff)
        sum = (sum >> 16) + (sum & 0xffff);
    return (uint16_t)sum;
}

static void
assert_checksums(const uint8_t *ip, uint32_t len)
{
    uint32_t l3, pseudo;

    if (ip[0] >> 4 == 4) {
        l3 = (ip[0] & 0x0f) * 4u;
        assert_int_equal(rs_load_be16(ip + 2), len);
        assert_int_equal(sum16(0, ip, l3), 0xffff);
        assert_int_equal(ip[9], 6);
        pseudo = sum16(0, ip + 12, 8);
    } else {
        l3 = 40;
        assert_int_equal(rs_load_be16(ip + 4), len - 40);
        assert_int_equal(ip[6], 6);
        pseudo = sum16(0, ip + 8, 32);
    }
    assert_int_equal(ip[l3 + 12] >> 4, 5);
    assert_int_equal(sum16(pseudo + 6 + (len - l3), ip + l3, len - l3), 0xffff);
}

static bool
is_send(uint8_t op)
{
    return op >= RS_RDMAP_SEND && op <= RS_RDMAP_SEND_SE_INVALIDATE;
}

/* Distinct values in every field an opcode can carry. */
static void
fill(struct rs_iwarp_fields *f, uint8_t op)
{
    rs_iwarp_fields_init(f, op);
    f->stag = 0x11223300u + op;
    f->to = 0x0102030405060708ull + op;
    f->msn = 40u + op;
    f->mo = is_send(op) ? 4096 : 0;    /* single-segment messages start at 0 */
    if (op == RS_RDMAP_SEND_INVALIDATE || op == RS_RDMAP_SEND_SE_INVALIDATE)
        f->inval_stag = 0xcafe0000u + op;
    f->read_req = (struct rs_rdmap_read_req){0xa1, 0xa2a2a2a2a2ull, 65536, 0xa3, 0xa4a4a4a4a4ull};
    /* A DDP error on an untagged buffer, with the M bit. */
    f->term = (struct rs_rdmap_terminate){1, 2, 0x03, true, false, false};
    f->immediate = 0x1122334455667788ull;
    f->atomic_req = (struct rs_rdmap_atomic_req){2, 77, 0xb1, 0xb2b2b2ull, 5, 0xff, 6, 0xf0};
    f->atomic_resp = (struct rs_rdmap_atomic_resp){78, 0xc1c2c3c4c5c6c7c8ull};
}

static void
assert_fields(const struct conn *c, const struct want *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t got = field(c, w[i].name);
        if (got != w[i].v)
            fail_msg("%s: %#" PRIx64 ", want %#" PRIx64, w[i].name, got, w[i].v);
    }
}

/* The FPDU just fed carries f and payload_len octets of payload. */
static void
assert_fpdu(const struct conn *c, const struct rs_iwarp_pdu *p, const struct rs_iwarp_fields *f,
            uint32_t payload_len)
{
    uint32_t ddp = f->tagged ? RS_DDP_TAGGED_HDR_LEN : RS_DDP_UNTAGGED_HDR_LEN;
    uint32_t payload_at = 2 + p->ulpdu_len - payload_len;

    assert_int_equal(p->crc_status, RS_CKSUM_GOOD);
    assert_int_equal(p->ulpdu_len, rs_encode_fpdu_len(f, payload_len) - 2 - 4 - p->pad_len);
    assert_int_equal((2 + p->ulpdu_len + p->pad_len) % 4, 0);
    struct want w[IWARP_WANT_MAX];
    assert_fields(c, w, iwarp_want(f, p->ulpdu_len, w));
    if (f->tagged) {
        assert_absent(c, "iwarp_ddp.qn");
    } else {
        assert_int_equal(f->qn, rs_rdmap_queue(f->opcode));
        assert_absent(c, "iwarp_ddp.stag");
        assert_int_equal(p->msg_len, f->mo + p->ulpdu_len - ddp);
    }
    if (f->opcode < RS_RDMAP_SEND_INVALIDATE || f->opcode > RS_RDMAP_SEND_SE_INVALIDATE)
        assert_absent(c, "iwarp_rdma.inval_stag");
    for (uint32_t i = 0; i < payload_len; i++)
        assert_int_equal(p->data[payload_at + i], (uint8_t)(i * 3));
}

static void
test_every_opcode(void **state)
{
    static const uint8_t families[] = {4, 6};
    static const uint32_t payloads[] = {0, 1, 5, 1000};
    struct conn *c = malloc(sizeof(*c));

    (void)state;
    for (size_t fi = 0; fi < sizeof(families); fi++) {
        for (uint8_t op = RS_RDMAP_WRITE; op <= RS_RDMAP_ATOMIC_RESPONSE; op++) {
            struct rs_iwarp_fields f;
            conn_open(c, families[fi]);
            exchange(c, RS_MPA_FLAG_CRC);
            fill(&f, op);
            /* Data-carrying opcodes: payloads of every pad length. */
            bool data = f.tagged || is_send(op);
            for (size_t pi = 0; pi < (data ? 4u : 1u); pi++) {
                const struct rs_iwarp_pdu *p = send_fpdu(c, &f, payloads[pi]);
                assert_checksums(ip_at(c), c->frame.len - ETH_LEN);
                assert_fpdu(c, p, &f, payloads[pi]);
                f.msn += !f.tagged;
            }
            conn_close(c);
        }
    }
    free(c);
}

/* A bad CRC reads bad (and not as a byte-swapped good one); a forced one is
 * written as iwarp_mpa.crc_check shows it; framing goes on after both. */
static void
test_crc_options(void **state)
{
    struct conn *c = malloc(sizeof(*c));
    struct rs_iwarp_fields f;
    const struct rs_iwarp_pdu *p;

    (void)state;
    conn_open(c, 4);
    exchange(c, RS_MPA_FLAG_CRC);
    rs_iwarp_fields_init(&f, RS_RDMAP_SEND);
    f.mpa.bad_crc = true;
    p = send_fpdu(c, &f, 10);
    assert_int_equal(p->crc_status, RS_CKSUM_BAD);
    assert_false(p->flags & RS_IWARP_PDU_CRC_SWAPPED);
    assert_int_equal(field(c, "iwarp_mpa.crc_check"), p->crc_computed ^ 0x01000000u);
    f.mpa.bad_crc = false;
    f.mpa.force_crc = true;
    f.mpa.crc_value = 0xdeadbeef;
    p = send_fpdu(c, &f, 3);
    assert_int_equal(p->crc_status, RS_CKSUM_BAD);
    assert_int_equal(field(c, "iwarp_mpa.crc_check"), 0xdeadbeef);
    f.mpa.force_crc = false;
    p = send_fpdu(c, &f, 3);
    assert_int_equal(p->crc_status, RS_CKSUM_GOOD);
    assert_int_equal(field(c, "iwarp_mpa.crc_check"), p->crc_computed);
    struct rs_iwarp_stats st;
    rs_iwarp_get_stats(c->iw, &st);
    assert_int_equal(st.fpdus, 3);
    assert_int_equal(st.crc_errors, 2);
    conn_close(c);

    /* No CRCs negotiated: the field is zero, and not checked. */
    conn_open(c, 6);
    exchange(c, 0);
    f.mpa.crc = false;
    p = send_fpdu(c, &f, 7);
    assert_int_equal(p->crc_status, RS_CKSUM_NOT_PRESENT);
    assert_int_equal(rs_load_le32(p->data + p->len - 4), 0);
    assert_int_equal(field(c, "iwarp_mpa.crc"), 0);
    assert_false(c->pkt.iwarp->crc_on);
    conn_close(c);
    free(c);
}

/* The T bit and the queue are the caller's to change: a Write sent
 * untagged on queue 5 reads as such. */
static void
test_model_override(void **state)
{
    struct conn *c = malloc(sizeof(*c));
    struct rs_iwarp_fields f;

    (void)state;
    conn_open(c, 4);
    exchange(c, RS_MPA_FLAG_CRC);
    rs_iwarp_fields_init(&f, RS_RDMAP_WRITE);
    assert_true(f.tagged);
    f.tagged = false;
    f.qn = 5;
    f.msn = 9;
    f.last = false;
    const struct rs_iwarp_pdu *p = send_fpdu(c, &f, 8);
    assert_int_equal(p->crc_status, RS_CKSUM_GOOD);
    assert_int_equal(p->ulpdu_len, RS_DDP_UNTAGGED_HDR_LEN + 8);
    struct want w[IWARP_WANT_MAX];
    assert_fields(c, w, iwarp_want(&f, p->ulpdu_len, w));
    assert_int_equal(field(c, "iwarp_ddp.qn"), 5);
    conn_close(c);
    free(c);
}

/* A forced ULPDU_Length is written as given; the rest of the FPDU is as the
 * true length lays it out. */
static void
test_forced_ulpdu_len(void **state)
{
    struct rs_iwarp_fields f;
    uint8_t honest[128], lying[128];

    (void)state;
    rs_iwarp_fields_init(&f, RS_RDMAP_SEND);
    uint32_t n = rs_encode_fpdu(honest, sizeof(honest), &f, "abcdef", 6);
    assert_int_equal(n, 2 + 18 + 6 + 2 + 4);
    assert_int_equal(rs_load_be16(honest), 24);
    f.mpa.force_ulpdu_len = true;
    f.mpa.ulpdu_len = 0x1234;
    assert_int_equal(rs_encode_fpdu(lying, sizeof(lying), &f, "abcdef", 6), n);
    assert_int_equal(rs_load_be16(lying), 0x1234);
    assert_memory_equal(lying + 2, honest + 2, n - 2 - 4);
    /* Its CRC covers what was written. */
    assert_int_equal(rs_load_le32(lying + n - 4), rs_crc32c(lying, n - 4));
}

/* An FPDU framed around a ULPDU built elsewhere is the one rs_encode_fpdu
 * builds; without CRCs its field is 0. A segment of raw stream bytes carries
 * them as they are, with its checksums; a bare SYN carries none. */
static void
test_raw_fpdu_and_segment(void **state)
{
    static uint8_t buf[70000];
    struct rs_iwarp_fields f;
    uint8_t whole[128], framed[128];
    struct rs_tcp_route r = {.family = 4, .sport = 1, .dport = 2, .seq = 9, .ack = 10,
                             .window = 100};

    (void)state;
    rs_iwarp_fields_init(&f, RS_RDMAP_SEND);
    uint32_t n = rs_encode_fpdu(whole, sizeof(whole), &f, "abcdefg", 7);
    uint32_t ulen = rs_load_be16(whole);
    assert_int_equal(rs_encode_mpa_fpdu(framed, sizeof(framed), whole + 2, ulen, true), n);
    assert_memory_equal(framed, whole, n);
    assert_int_equal(rs_encode_mpa_fpdu(framed, sizeof(framed), whole + 2, ulen, false), n);
    assert_memory_equal(framed, whole, n - 4);
    assert_int_equal(rs_load_le32(framed + n - 4), 0);
    assert_int_equal(rs_encode_mpa_fpdu(framed, n - 1, whole + 2, ulen, true), 0);
    assert_int_equal(rs_encode_mpa_fpdu(buf, sizeof(buf), NULL, 65536, true), 0);

    n = rs_encode_tcp_segment(buf, sizeof(buf), &r, "stream", 6);
    assert_int_equal(n, 40 + 6);
    assert_checksums(buf, n);
    assert_memory_equal(buf + 40, "stream", 6);
    assert_int_equal(rs_encode_tcp_payload_len(&r, n), 6);
    r.flags = RS_TCP_SYN;
    n = rs_encode_tcp_segment(buf, sizeof(buf), &r, NULL, 0);
    assert_int_equal(n, 40);
    assert_checksums(buf, n);
    assert_int_equal(buf[33], RS_TCP_SYN);
    assert_int_equal(rs_encode_tcp_segment(buf, 45, &r, "stream", 6), 0);
    assert_int_equal(rs_encode_tcp_segment(buf, sizeof(buf), &r, NULL, 65535 - 39), 0);
}

/* TCP header fields, and what does not fit. */
static void
test_tcp_and_limits(void **state)
{
    static uint8_t buf[70000];
    struct rs_tcp_route r = {.family = 4, .sport = 1, .dport = 2, .seq = 0x01020304,
                             .ack = 0x05060708, .window = 0x2000};
    struct rs_iwarp_fields f;

    (void)state;
    rs_iwarp_fields_init(&f, RS_RDMAP_SEND);
    uint32_t n = rs_encode_iwarp(buf, sizeof(buf), &r, &f, NULL, 4);
    assert_int_equal(n, 20 + 20 + 2 + 18 + 4 + 4);
    assert_checksums(buf, n);
    assert_int_equal(rs_load_be32(buf + 24), 0x01020304);
    assert_int_equal(rs_load_be32(buf + 28), 0x05060708);
    assert_int_equal(buf[33], RS_TCP_ACK | RS_TCP_PSH);
    assert_int_equal(rs_load_be16(buf + 34), 0x2000);
    assert_int_equal(rs_load_be16(buf + 38), 0);
    r.flags = RS_TCP_FIN | RS_TCP_ACK;
    n = rs_encode_mpa_frame(buf, sizeof(buf), &r, false, RS_MPA_FLAG_MARKERS, 2, NULL, 600);
    assert_int_equal(n, 40 + 20 + 600);
    assert_checksums(buf, n);
    assert_int_equal(buf[33], RS_TCP_FIN | RS_TCP_ACK);
    assert_int_equal(rs_load_be16(buf + 40 + 18), 600);
    assert_int_equal(buf[40 + 16], RS_MPA_FLAG_MARKERS);
    assert_int_equal(buf[40 + 17], 2);

    /* Too small a buffer. */
    assert_int_equal(rs_encode_iwarp(buf, 40 + 27, &r, &f, NULL, 4), 0);
    assert_int_equal(rs_encode_iwarp(buf, 39, &r, &f, NULL, 4), 0);
    assert_int_equal(rs_encode_fpdu(buf, 27, &f, NULL, 4), 0);
    assert_int_equal(rs_encode_mpa_frame(buf, 40 + 20 + 599, &r, true, 0, 1, NULL, 600), 0);
    /* A ULPDU over 65535 octets, and FPDUs too long for an IP packet. */
    assert_int_equal(rs_encode_fpdu_len(&f, 65535 - 18), 2 + 65535 + 3 + 4);
    assert_int_equal(rs_encode_fpdu_len(&f, 65535 - 17), 0);
    assert_int_equal(rs_encode_fpdu_len(&f, 70000), 0);
    assert_int_equal(rs_encode_iwarp(buf, sizeof(buf), &r, &f, NULL, 65535 - 18), 0);
    /* IPv4: the largest Send that fits (ULPDU 65486, no pad), then one octet more (pad 3). */
    uint32_t most = 65486 - 18;
    assert_int_equal(rs_encode_iwarp(buf, sizeof(buf), &r, &f, NULL, most), 40 + 2 + 65486 + 4);
    assert_checksums(buf, 40 + 2 + 65486 + 4);
    assert_int_equal(rs_encode_iwarp(buf, sizeof(buf), &r, &f, NULL, most + 1), 0);
    /* IPv6 leaves its header out of Payload Length: 20 octets more. */
    r.family = 6;
    n = rs_encode_iwarp(buf, sizeof(buf), &r, &f, NULL, most + 20);
    assert_int_equal(n, 60 + 2 + 65506 + 4);
    assert_checksums(buf, n);
    assert_int_equal(rs_encode_iwarp(buf, sizeof(buf), &r, &f, NULL, most + 21), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_opcode),
        cmocka_unit_test(test_crc_options),
        cmocka_unit_test(test_model_override),
        cmocka_unit_test(test_forced_ulpdu_len),
        cmocka_unit_test(test_tcp_and_limits),
        cmocka_unit_test(test_raw_fpdu_and_segment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
