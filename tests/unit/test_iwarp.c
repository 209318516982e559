/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_iwarp.c - the iWARP stage: MPA exchange, FPDUs whole, split and
 * several to a segment, markers, CRC verdicts, retransmissions and segments
 * out of order, the reassembly bound, capture loss, inference, the bytes
 * each FPDU hands on to "data", and where the tree places each field.
 *
 * Segments are built here byte by byte (Ethernet, IPv4, TCP, then MPA); the
 * CRC-32C of what they carry comes from crc.h, whose own vectors are in
 * test_crc.c. tests/integration/test_iwarp.py holds the stage to an
 * independent generator and to tshark.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <roceshark/dissectors/crc.h>
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/wire.h>

#include "testutil.h"

#define HDRS 54             /* Ethernet, IPv4, TCP without options */
#define ISN_A 1000u
#define ISN_B 5000u
#define TCP_ACK 0x10

struct fixture {
    struct rs_iwarp *iw;
    struct rs_iwarp_opts opts;
    struct rs_decode_opts dopts;
    struct test_frame tf;
    struct rs_packet pkt;
    uint64_t number;
    /* The streams as sent, to cut segments from. */
    uint8_t stream[2][1 << 20];
    uint32_t len[2];
};

static int
setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));

    rs_iwarp_opts_init(&fx->opts);
    rs_decode_opts_init(&fx->dopts);
    assert_int_equal(rs_iwarp_new(&fx->opts, &fx->iw, NULL), 0);
    *state = fx;
    return 0;
}

static int
teardown(void **state)
{
    struct fixture *fx = *state;

    rs_iwarp_free(fx->iw);
    free(fx);
    return 0;
}

/* Sends stream bytes [a, b) of direction d (0: 10.0.0.1:40000 to 10.0.0.2:9999) as one
 * segment, with an ACK of `ack` octets of the other direction; returns the view. */
static const struct rs_iwarp_view *
segment(struct fixture *fx, int d, uint32_t a, uint32_t b, uint32_t ack)
{
    uint8_t *p = fx->tf.bytes;
    uint32_t n = b - a, isn = d ? ISN_B : ISN_A, other = d ? ISN_A : ISN_B;

    memset(p, 0, HDRS);
    memcpy(p + 12, "\x08\x00", 2);
    p[14] = 0x45;
    rs_store_be16(p + 16, (uint16_t)(40 + n));
    p[22] = 64;
    p[23] = 6;
    memcpy(p + 26, d ? "\x0a\x00\x00\x02\x0a\x00\x00\x01" : "\x0a\x00\x00\x01\x0a\x00\x00\x02",
           8);
    rs_store_be16(p + 34, d ? 9999 : 40000);
    rs_store_be16(p + 36, d ? 40000 : 9999);
    rs_store_be32(p + 38, isn + 1 + a);
    rs_store_be32(p + 42, other + 1 + ack);
    p[46] = 0x50;
    p[47] = TCP_ACK;
    memcpy(p + HDRS, fx->stream[d] + a, n);
    fx->tf.frame.data = p;
    fx->tf.frame.caplen = fx->tf.frame.len = HDRS + n;
    fx->tf.frame.linktype = RS_DLT_EN10MB;
    fx->tf.frame.number = ++fx->number;
    rs_decode_frame(&fx->tf.frame, &fx->dopts, &fx->pkt);
    rs_iwarp_process(fx->iw, &fx->pkt);
    return fx->pkt.iwarp;
}

static uint32_t
add(struct fixture *fx, int d, const void *b, uint32_t n)
{
    memcpy(fx->stream[d] + fx->len[d], b, n);
    fx->len[d] += n;
    return fx->len[d];
}

static void
exchange(struct fixture *fx, uint8_t req_flags, uint8_t rep_flags)
{
    uint8_t f[20];

    memcpy(f, "MPA ID Req Frame", 16);
    f[16] = req_flags;
    f[17] = 1;
    f[18] = f[19] = 0;
    add(fx, 0, f, 20);
    memcpy(f, "MPA ID Rep Frame", 16);
    f[16] = rep_flags;
    add(fx, 1, f, 20);
    const struct rs_iwarp_view *v = segment(fx, 0, 0, 20, 0);
    assert_non_null(v);
    assert_int_equal(v->n_pdus, 1);
    assert_int_equal(v->pdus[0].kind, RS_MPA_REQUEST);
    v = segment(fx, 1, 0, 20, 20);
    assert_int_equal(v->pdus[0].kind, RS_MPA_REPLY);
}

/* An untagged Send FPDU of `payload` octets (all `fill`): length, headers,
 * pad, and a CRC (LE, as iSCSI) unless crc is false; markers every 512
 * octets of direction d's stream from `base` when base is not UINT32_MAX. */
static uint32_t
send_fpdu(struct fixture *fx, int d, uint32_t msn, uint32_t payload, uint8_t fill, bool crc,
          uint32_t base)
{
    uint8_t body[2048], out[2100];
    uint32_t ulen = 18 + payload, pad = (4 - (ulen + 2) % 4) % 4, n = 0, m = 0;
    uint32_t start = fx->len[d], hdr = UINT32_MAX;

    rs_store_be16(body, (uint16_t)ulen);
    memset(body + 2, 0, 18);
    body[2] = 0x41;     /* untagged, last, DDP version 1 */
    body[3] = 0x43;     /* RDMAP version 1, Send */
    rs_store_be32(body + 2 + 10, msn);
    memset(body + 20, fill, payload);
    memset(body + 20 + payload, 0, pad);
    uint32_t plain = 2 + ulen + pad;
    while (m < plain) {
        if (base != UINT32_MAX && (start + n - base) % 512 == 0) {
            rs_store_be16(out + n, 0);
            rs_store_be16(out + n + 2, (uint16_t)(hdr == UINT32_MAX ? 0 : start + n - hdr));
            n += 4;
            continue;
        }
        if (hdr == UINT32_MAX)
            hdr = start + n;
        out[n++] = body[m++];
    }
    if (base != UINT32_MAX && (start + n - base) % 512 == 0) {
        rs_store_be16(out + n, 0);
        rs_store_be16(out + n + 2, (uint16_t)(start + n - hdr));
        n += 4;
    }
    rs_store_le32(out + n, crc ? rs_crc32c(out, n) : 0);
    return add(fx, d, out, n + 4) - start;
}

/* PDU p hands on n octets of fill to "data" (rs_iwarp_pdu_data). */
static void
assert_hands_on(const struct rs_iwarp_pdu *p, uint32_t n, uint8_t fill)
{
    const uint8_t *data = NULL;
    uint32_t len = 0;

    assert_true(rs_iwarp_pdu_data(p, &data, &len));
    assert_int_equal(len, n);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(data[i], fill);
}

static void
test_exchange_and_crc(void **state)
{
    struct fixture *fx = *state;

    exchange(fx, RS_MPA_FLAG_CRC, RS_MPA_FLAG_CRC);
    uint32_t a = fx->len[0];
    send_fpdu(fx, 0, 1, 40, 0xaa, true, UINT32_MAX);
    const struct rs_iwarp_view *v = segment(fx, 0, a, fx->len[0], 20);
    assert_int_equal(fx->pkt.encap, RS_ENCAP_IWARP);
    assert_int_equal(v->n_pdus, 1);
    assert_int_equal(v->pdus[0].kind, RS_MPA_FPDU);
    assert_int_equal(v->pdus[0].ulpdu_len, 58);
    assert_int_equal(v->pdus[0].crc_status, RS_CKSUM_GOOD);
    assert_true(v->pdus[0].flags & RS_IWARP_PDU_MSG_LAST);
    assert_int_equal(v->pdus[0].msg_len, 40);
    assert_true(v->crc_on);
    /* The same FPDU with one payload bit flipped: a bad CRC. */
    a = fx->len[0];
    send_fpdu(fx, 0, 2, 40, 0xaa, true, UINT32_MAX);
    fx->stream[0][a + 30] ^= 0x10;
    v = segment(fx, 0, a, fx->len[0], 20);
    assert_int_equal(v->pdus[0].crc_status, RS_CKSUM_BAD);
    struct rs_iwarp_stats st;
    rs_iwarp_get_stats(fx->iw, &st);
    assert_int_equal(st.connections, 1);
    assert_int_equal(st.fpdus, 2);
    assert_int_equal(st.crc_errors, 1);
}

static void
test_split_and_packed(void **state)
{
    struct fixture *fx = *state;

    exchange(fx, 0, 0);
    uint32_t a = fx->len[0];
    send_fpdu(fx, 0, 1, 300, 0x11, false, UINT32_MAX);
    uint32_t b = fx->len[0];
    /* One FPDU over three segments: shown on the last, whole. */
    assert_int_equal(segment(fx, 0, a, a + 7, 20)->n_pdus, 0);
    assert_true(fx->pkt.iwarp->flags & RS_IWARP_VIEW_CONTINUATION);
    assert_int_equal(segment(fx, 0, a + 7, a + 200, 20)->n_pdus, 0);
    const struct rs_iwarp_view *v = segment(fx, 0, a + 200, b, 20);
    assert_int_equal(v->n_pdus, 1);
    assert_int_equal(v->pdus[0].ulpdu_len, 318);
    assert_int_equal(v->pdus[0].crc_status, RS_CKSUM_NOT_PRESENT);
    assert_memory_equal(v->pdus[0].data, fx->stream[0] + a, b - a);
    assert_hands_on(&v->pdus[0], 300, 0x11);
    /* Three FPDUs, the third cut: two now, the third with the next segment. */
    a = fx->len[0];
    send_fpdu(fx, 0, 2, 10, 0x22, false, UINT32_MAX);
    send_fpdu(fx, 0, 3, 20, 0x33, false, UINT32_MAX);
    uint32_t c = fx->len[0];
    send_fpdu(fx, 0, 4, 30, 0x44, false, UINT32_MAX);
    v = segment(fx, 0, a, c + 5, 20);
    assert_int_equal(v->n_pdus, 2);
    assert_int_equal(rs_load_be32(v->pdus[1].data + 12), 3);
    assert_hands_on(&v->pdus[0], 10, 0x22);
    assert_hands_on(&v->pdus[1], 20, 0x33);
    /* The frame's data: one occurrence per FPDU that hands bytes on, in stream order. */
    const uint8_t *data = NULL;
    uint32_t len = 0;
    assert_true(rs_packet_data(&fx->pkt, 1, &data, &len));
    assert_int_equal(len, 20);
    assert_int_equal(data[0], 0x33);
    assert_false(rs_packet_data(&fx->pkt, 2, &data, &len));
    v = segment(fx, 0, c + 5, fx->len[0], 20);
    assert_int_equal(v->n_pdus, 1);
    assert_int_equal(rs_load_be32(v->pdus[0].data + 12), 4);
    assert_hands_on(&v->pdus[0], 30, 0x44);
}

static void
test_markers(void **state)
{
    struct fixture *fx = *state;

    /* The Reply's M: the initiator sends markers, counted from its first FPDU. */
    exchange(fx, RS_MPA_FLAG_CRC, RS_MPA_FLAG_MARKERS | RS_MPA_FLAG_CRC);
    uint32_t base = fx->len[0], a = base;
    send_fpdu(fx, 0, 1, 1200, 0x5a, true, base);
    const struct rs_iwarp_view *v = segment(fx, 0, a, fx->len[0], 20);
    assert_int_equal(v->n_pdus, 1);
    assert_true(v->markers_on);
    const struct rs_iwarp_pdu *p = &v->pdus[0];
    assert_int_equal(p->n_markers, 3);          /* at 0, 512 and 1024 */
    assert_int_equal(v->markers[p->first_marker], 0);
    assert_int_equal(v->markers[p->first_marker + 1], 508);
    assert_int_equal(p->wire_len, p->len + 12);
    assert_int_equal(p->crc_status, RS_CKSUM_GOOD);
    for (uint32_t i = 0; i < 1200; i++)
        assert_int_equal(p->data[20 + i], 0x5a);    /* the markers are out of the payload */
    /* The responder sends none. */
    a = fx->len[1];
    send_fpdu(fx, 1, 1, 600, 0x01, true, UINT32_MAX);
    v = segment(fx, 1, a, fx->len[1], fx->len[0]);
    assert_false(v->markers_on);
    assert_int_equal(v->pdus[0].n_markers, 0);
    assert_int_equal(v->pdus[0].crc_status, RS_CKSUM_GOOD);
}

/* Where the tree places the fields named in `want` (their first line each), and the text
 * of the CRC's line. */
struct places {
    const struct rs_packet *pkt;
    const char *const *want;
    uint32_t off[16], len[16];
    bool seen[16];
    char crc_line[96];
};

static void
note_place(void *arg, const struct rs_tree_item *it)
{
    struct places *pl = arg;

    if (it->field == NULL)
        return;
    for (unsigned i = 0; pl->want[i] != NULL; i++)
        if (!pl->seen[i] && strcmp(it->field->abbrev, pl->want[i]) == 0) {
            pl->seen[i] = true;
            pl->off[i] = it->offset;
            pl->len[i] = it->length;
        }
    if (strcmp(it->field->abbrev, "iwarp_mpa.crc_check") == 0) {
        FILE *fp = fmemopen(pl->crc_line, sizeof(pl->crc_line), "w");
        struct rs_out o;
        assert_non_null(fp);
        assert_int_equal(rs_out_init(&o, fp, 256), 0);
        rs_print_tree_line(&o, pl->pkt, it);
        assert_int_equal(rs_out_flush(&o), 0);
        rs_out_free(&o);
        fclose(fp);
    }
}

/* Every MPA, DDP and RDMAP field at its octets, as tshark's PDML gives them: the FPDU whole
 * for the protocol, the ULPDU_Length, the DDP header (18 octets untagged) for DDP's
 * protocol and header, the RDMAP control octet and the four after it, the CRC last; and a
 * marker where it stands in the stream. */
static void
test_field_places(void **state)
{
    static const char *const want[] = {
        "iwarp_mpa", "iwarp_mpa.fpdu", "iwarp_mpa.ulpdulength", "iwarp_mpa.crc_check",
        "iwarp_ddp_rdmap", "iwarp_ddp", "iwarp_ddp.untagged", "iwarp_ddp.msn", "iwarp_rdma",
        "iwarp_rdma.opcode", "iwarp_mpa.marker_fpduptr", NULL};
    struct fixture *fx = *state;

    exchange(fx, RS_MPA_FLAG_CRC, RS_MPA_FLAG_CRC);
    uint32_t a = fx->len[0];
    uint32_t n = send_fpdu(fx, 0, 1, 10, 0x5a, true, UINT32_MAX);
    segment(fx, 0, a, fx->len[0], 20);
    struct places pl = {&fx->pkt, want, {0}, {0}, {false}, ""};
    rs_tree_walk(&fx->pkt, note_place, &pl);
    static const uint32_t off[] = {0, 0, 0, 32, 2, 2, 8, 12, 3, 3};
    static const uint32_t len[] = {36, 36, 2, 4, 18, 18, 12, 4, 5, 1};
    assert_int_equal(n, 36);    /* 2 + 18 + 10 + 2 of pad + 4 */
    for (unsigned i = 0; i < 10; i++) {
        assert_true(pl.seen[i]);
        assert_int_equal(pl.off[i], HDRS + off[i]);
        assert_int_equal(pl.len[i], len[i]);
    }
    assert_false(pl.seen[10]);
    assert_non_null(strstr(pl.crc_line, " (Good CRC32)"));

    /* markers: the first one where the FPDUs start, its FPDUPTR its last two octets */
    void *second = NULL;
    setup(&second);
    struct fixture *mx = second;
    exchange(mx, RS_MPA_FLAG_CRC, RS_MPA_FLAG_MARKERS | RS_MPA_FLAG_CRC);
    a = mx->len[0];
    send_fpdu(mx, 0, 1, 600, 0x5a, true, a);
    segment(mx, 0, a, mx->len[0], 20);
    struct places pm = {&mx->pkt, want, {0}, {0}, {false}, ""};
    rs_tree_walk(&mx->pkt, note_place, &pm);
    assert_true(pm.seen[10]);
    assert_int_equal(pm.off[10], HDRS + 2);
    assert_int_equal(pm.len[10], 2);
    assert_int_equal(pm.off[2], HDRS + 4);      /* the ULPDU_Length after the first marker */
    teardown(&second);
}

static void
test_retransmission_and_out_of_order(void **state)
{
    struct fixture *fx = *state;

    exchange(fx, 0, 0);
    uint32_t s1 = fx->len[0];
    uint32_t s2 = s1 + send_fpdu(fx, 0, 1, 30, 1, false, UINT32_MAX);
    uint32_t s3 = s2 + send_fpdu(fx, 0, 2, 30, 2, false, UINT32_MAX);
    uint32_t s4 = s3 + send_fpdu(fx, 0, 3, 30, 3, false, UINT32_MAX);
    assert_int_equal(segment(fx, 0, s1, s2, 20)->n_pdus, 1);
    const struct rs_iwarp_view *v = segment(fx, 0, s1, s2, 20);
    assert_true(v->flags & RS_IWARP_VIEW_RETRANSMISSION);
    assert_int_equal(v->n_pdus, 0);
    v = segment(fx, 0, s3, s4, 20);             /* ahead of FPDU 2 */
    assert_true(v->flags & RS_IWARP_VIEW_OUT_OF_ORDER);
    assert_int_equal(v->n_pdus, 0);
    v = segment(fx, 0, s1, s3, 20);             /* 1 again and 2: the hole fills */
    assert_int_equal(v->n_pdus, 2);
    assert_int_equal(rs_load_be32(v->pdus[0].data + 12), 2);
    assert_int_equal(rs_load_be32(v->pdus[1].data + 12), 3);
}

/* A hole that never fills: what follows it waits up to the bound, then the
 * hole is given up and framing goes on; the window never passes the bound. */
static void
test_hole_bound(void **state)
{
    struct fixture *fx = *state;

    rs_iwarp_free(fx->iw);
    fx->opts.max_buffer = 128 * 1024;
    assert_int_equal(rs_iwarp_new(&fx->opts, &fx->iw, NULL), 0);
    exchange(fx, 0, 0);
    uint32_t hole = fx->len[0];
    send_fpdu(fx, 0, 1, 1000, 9, false, UINT32_MAX);   /* never captured */
    uint32_t a = fx->len[0], msn = 2, shown = 0;
    while (fx->len[0] < 400 * 1024)
        send_fpdu(fx, 0, msn++, 1000, 7, false, UINT32_MAX);
    for (uint32_t s = a; s < fx->len[0]; s += 1460) {
        uint32_t e = s + 1460 < fx->len[0] ? s + 1460 : fx->len[0];
        const struct rs_iwarp_view *v = segment(fx, 0, s, e, 20);
        shown += v->n_pdus;
        struct rs_iwarp_stats st;
        rs_iwarp_get_stats(fx->iw, &st);
        assert_true(st.memory <= fx->opts.max_buffer);
    }
    struct rs_iwarp_stats st;
    rs_iwarp_get_stats(fx->iw, &st);
    assert_int_equal(st.buffer_limit_hits, 1);
    assert_int_equal(st.bytes_lost, a - hole);         /* exactly the hole */
    assert_true(st.memory_peak <= fx->opts.max_buffer);
    assert_true(st.out_of_order > 50);
    assert_int_equal(shown, msn - 2);                   /* every FPDU after the hole */
}

static void
test_inference(void **state)
{
    struct fixture *fx = *state;

    /* No handshake, no exchange: the capture starts inside an FPDU. */
    uint32_t first = send_fpdu(fx, 0, 1, 100, 1, true, UINT32_MAX);
    send_fpdu(fx, 0, 2, 100, 2, true, UINT32_MAX);
    send_fpdu(fx, 0, 3, 100, 3, true, UINT32_MAX);
    const struct rs_iwarp_view *v = segment(fx, 0, first / 2, first + 50, 0);
    assert_null(v);                             /* nothing to go by yet */
    /* The rest of FPDU 2 (whose start was not kept: nothing said this was iWARP), and
     * FPDU 3, found by its length, headers and CRC. */
    v = segment(fx, 0, first + 50, fx->len[0], 0);
    assert_non_null(v);
    assert_int_equal(v->n_pdus, 1);
    assert_true(v->pdus[0].flags & RS_IWARP_PDU_INFERRED);
    assert_int_equal(v->pdus[0].crc_status, RS_CKSUM_GOOD);
    assert_int_equal(rs_load_be32(v->pdus[0].data + 12), 3);
    /* And the next one follows that framing. */
    uint32_t a = fx->len[0];
    send_fpdu(fx, 0, 4, 7, 4, true, UINT32_MAX);
    v = segment(fx, 0, a, fx->len[0], 0);
    assert_int_equal(v->n_pdus, 1);
    assert_int_equal(rs_load_be32(v->pdus[0].data + 12), 4);
}

/* An untagged FPDU of direction d as siw sends it by default (no markers, no CRC): DDP
 * control octet ddp (T 0, L, version 1), RDMAP opcode op, queue qn, msn, offset mo, then
 * n octets of body. */
static void
plain_fpdu(struct fixture *fx, int d, uint8_t ddp, uint8_t op, uint32_t qn, uint32_t msn,
           uint32_t mo, const uint8_t *body, uint32_t n)
{
    uint8_t out[2048];
    uint32_t ulen = 18 + n, pad = (4 - (ulen + 2) % 4) % 4;

    memset(out, 0, sizeof(out));
    rs_store_be16(out, (uint16_t)ulen);
    out[2] = ddp;
    out[3] = (uint8_t)(0x40 | op);
    rs_store_be32(out + 8, qn);
    rs_store_be32(out + 12, msn);
    rs_store_be32(out + 16, mo);
    memcpy(out + 20, body, n);
    add(fx, d, out, 2 + ulen + pad + 4);
}

/* The current frame's -V tree, PDML and -x dump, in one text (to free). */
static char *
printed(struct fixture *fx)
{
    struct rs_json_opts opts = {.text = true};
    char *text = NULL;
    size_t size;
    struct rs_out o;
    FILE *fp = open_memstream(&text, &size);

    assert_non_null(fp);
    assert_int_equal(rs_out_init(&o, fp, 4096), 0);
    o.data_hex = true;      /* -V alone: tshark dumps the data's bytes below it */
    rs_print_tree(&o, &fx->pkt);
    rs_print_pdml(&o, &fx->pkt, &opts);
    rs_print_hex(&o, &fx->pkt);
    assert_int_equal(rs_out_flush(&o), 0);
    rs_out_free(&o);
    fclose(fp);
    return text;
}

/* What tshark 4.0.17 prints of a Send of three FPDUs (frames 3, 4, 5: 100, 100 and 37
 * octets), FetchAdd and CmpSwap requests and an Immediate Data message, on the same frames
 * (MPA revision 1, no markers, no CRC, as siw sends): the fragments' tree after DDP/RDMAP's
 * with each fragment's frame, octets and place in the message (before: under DDP/RDMAP,
 * frame numbers alone), PDML's positions in the reassembled message, -x's second data
 * source, the 64-bit masks in full, and Info's " [more DDP segments]" and "Unknown 8". */
static void
test_send_reassembly_as_tshark(void **state)
{
    struct fixture *fx = *state;
    struct rs_display d = *rs_display_get(), before = d;
    uint8_t body[256];
    char info[128];
    uint32_t a;

    d.info_tshark = d.tree_tshark = true;
    rs_display_set(&d);
    exchange(fx, 0, 0);
    static const uint32_t len[] = {100, 100, 37};
    for (uint32_t i = 0, mo = 0; i < 3; mo += len[i], i++) {
        memset(body, 0x11 * (int)(i + 1), len[i]);
        a = fx->len[0];
        plain_fpdu(fx, 0, i < 2 ? 0x01 : 0x41, RS_RDMAP_SEND, 0, 1, mo, body, len[i]);
        segment(fx, 0, a, fx->len[0], 20);
        rs_print_info(&fx->pkt, info, sizeof(info));
        assert_string_equal(info, i < 2 ? "40000 > 9999 Send [more DDP segments]"
                                        : "40000 > 9999 Send [last DDP segment]");
    }
    char *t = printed(fx);
    assert_non_null(strstr(t,
                        "\n"
                        "[3 Reassembled SMB Direct Fragments (237 bytes): #3(100), #4(100), #5(37)]\n"
                        "    [Frame: 3, payload: 0-99 (100 bytes)]\n"
                        "    [Frame: 4, payload: 100-199 (100 bytes)]\n"
                        "    [Frame: 5, payload: 200-236 (37 bytes)]\n"
                        "    [Fragment count: 3]\n"
                        "    [Reassembled iWarp RDMA Send length: 237]\n"
                        "    [Reassembled iWarp RDMA Send data: 111111111111111111111111111111111111111111111"
                        "111111111111111111111111111…]\n"
                        "Data (237 bytes)\n"
                        "\n"
                        "0000  11 11 11 11 11 11 11 11 11 11 11 11 11 11 11 11   ................\n"));
    assert_non_null(strstr(t,
                        "  <proto name=\"fake-field-wrapper\">\n"
                        "    <field name=\"iwarp_rdma.send.fragments\" showname=\"3 Reassembled SMB Direct Fr"
                        "agments (237 bytes): #3(100), #4(100), #5(37)\" size=\"237\" pos=\"0\" show=\"\" val"
                        "ue=\"\">\n"
                        "      <field name=\"iwarp_rdma.send.fragment\" showname=\"Frame: 3, payload: 0-99 (1"
                        "00 bytes)\" size=\"100\" pos=\"0\" show=\"3\" value=\"111111111111111111111111111111"
                        "111111111111111111111111111111111111111111111111111111111111111111111111111111111111"
                        "111111111111111111111111111111111111111111111111111111111111111111111111111111111111"
                        "11\"/>\n"
                        "      <field name=\"iwarp_rdma.send.fragment\" showname=\"Frame: 4, payload: 100-199"
                        " (100 bytes)\" size=\"100\" pos=\"100\" show=\"4\" value=\"2222222222222222222222222"
                        "222222222222222222222222222222222222222222222222222222222222222222222222222222222222"
                        "222222222222222222222222222222222222222222222222222222222222222222222222222222222222"
                        "2222222\"/>\n"
                        "      <field name=\"iwarp_rdma.send.fragment\" showname=\"Frame: 5, payload: 200-236"
                        " (37 bytes)\" size=\"37\" pos=\"200\" show=\"5\" value=\"333333333333333333333333333"
                        "33333333333333333333333333333333333333333333333\"/>\n"
                        "      <field name=\"iwarp_rdma.send.fragment.count\" showname=\"Fragment count: 3\" "
                        "size=\"0\" pos=\"0\" show=\"3\"/>\n"));
    assert_non_null(strstr(t, "</packet>\n\n"
                        "Frame (118 bytes):\n"));
    assert_non_null(strstr(t, "0070  00 00 00 00 00 00                                 ......\n"
                        "Reassembled SMB Direct (237 bytes):\n"
                        "0000  11 11 11 11 11 11 11 11 11 11 11 11 11 11 11 11   ................\n"));
    free(t);
    /* FetchAdd with an Add Mask of 0, CmpSwap with a Swap Mask of all ones and a Compare
     * Mask of 0xffff, then Immediate Data */
    for (uint32_t op = 0; op <= 2; op += 2) {
        memset(body, 0, 52);
        rs_store_be32(body, op);
        rs_store_be32(body + 4, 7 + op);
        rs_store_be32(body + 8, 0x1234);
        rs_store_be64(body + 20, 5);
        rs_store_be64(body + 28, op == 0 ? 0 : UINT64_MAX);
        rs_store_be64(body + 44, op == 0 ? 0 : 0xffff);
        a = fx->len[0];
        plain_fpdu(fx, 0, 0x41, RS_RDMAP_ATOMIC_REQUEST, 3, 1 + op / 2, 0, body, 52);
        segment(fx, 0, a, fx->len[0], 20);
        t = printed(fx);
        assert_non_null(strstr(t, op == 0 ? "\n        Add Mask: 0x0000000000000000\n"
                                          : "\n        Swap Mask: 0xffffffffffffffff\n"));
        assert_non_null(strstr(t, op == 0 ? "\n        Compare Mask: 0x0000000000000000\n"
                                          : "\n        Compare Mask: 0x000000000000ffff\n"));
        free(t);
    }
    memset(body, 0x5a, 8);
    a = fx->len[0];
    plain_fpdu(fx, 0, 0x41, RS_RDMAP_IMMEDIATE, 0, 2, 0, body, 8);
    segment(fx, 0, a, fx->len[0], 20);
    rs_print_info(&fx->pkt, info, sizeof(info));
    assert_string_equal(info, "40000 > 9999 Unknown 8 [last DDP segment]");
    rs_display_set(&before);
}

/* MPA markers as tshark 4.0.17 shows them, on FPDUs of 400 and 200 octets of Send payload
 * with CRCs after an exchange whose Reply asked the initiator for markers (one before the
 * first FPDU, one inside the second): MPA's item and the Markers node over the FPDU's wire
 * octets, a first marker included (before: from after it; the node over the markers alone),
 * 'FPDU back pointer: 84 bytes', each marker's halves together, and DDP's and RDMAP's
 * items and the data in the FPDU's octets without its markers, a data source of their own
 * that -x dumps ('FPDU without Markers (424 bytes):'; before: their frame octets, the data
 * nowhere and not dumped under its line). */
static void
test_markers_as_tshark(void **state)
{
    struct fixture *fx = *state;
    struct rs_display d = *rs_display_get(), before = d;

    d.info_tshark = d.tree_tshark = true;
    rs_display_set(&d);
    exchange(fx, RS_MPA_FLAG_CRC, RS_MPA_FLAG_MARKERS | RS_MPA_FLAG_CRC);
    uint32_t base = fx->len[0], a = base;
    send_fpdu(fx, 0, 1, 400, 0x5a, true, base);     /* a marker before it */
    segment(fx, 0, a, fx->len[0], 20);
    char *t = printed(fx);
    assert_non_null(strstr(t, "\n    Markers\n"
                              "        Reserved: 0x0000\n"
                              "        FPDU back pointer: 0 bytes\n"
                              "iWARP Direct Data Placement"));
    assert_non_null(strstr(t, "\nData (400 bytes)\n\n"
                              "0000  5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a 5a   "
                              "ZZZZZZZZZZZZZZZZ\n"));
    assert_non_null(strstr(t, "<proto name=\"iwarp_mpa\" showname=\"iWARP Marker Protocol data "
                              "unit Aligned framing\" size=\"428\" pos=\"54\">\n"
                              "    <field name=\"iwarp_mpa.fpdu\" showname=\"FPDU\" size=\"424\" "
                              "pos=\"58\" show=\"\" value=\"\">\n"));
    assert_non_null(strstr(t, "<field name=\"iwarp_mpa.markers\" showname=\"Markers\" "
                              "size=\"428\" pos=\"54\" show=\"\" value=\"\">\n"
                              "      <field name=\"iwarp_mpa.marker_res\" showname=\"Reserved: "
                              "0x0000\" size=\"2\" pos=\"54\" show=\"0x0000\" value=\"0000\"/>\n"
                              "      <field name=\"iwarp_mpa.marker_fpduptr\" showname=\"FPDU back "
                              "pointer: 0 bytes\" size=\"2\" pos=\"56\" show=\"0\" value=\"0000\"/>"
                              "\n"));
    assert_non_null(strstr(t, "<proto name=\"iwarp_ddp_rdmap\" showname=\"iWARP Direct Data "
                              "Placement and Remote Direct Memory Access Protocol\" size=\"18\" "
                              "pos=\"2\">\n"));
    assert_non_null(strstr(t, "<field name=\"data.data\" showname=\"Data: 5a5a5a5a5a5a5a5a5a5a5a"
                              "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\u2026\" "
                              "size=\"400\" pos=\"20\" show=\"5a:5a:"));
    assert_non_null(strstr(t, "\nFPDU without Markers (424 bytes):\n0000  01 a2 41 43 "));
    free(t);
    a = fx->len[0];
    send_fpdu(fx, 0, 2, 200, 0x6b, true, base);     /* a marker inside it */
    segment(fx, 0, a, fx->len[0], 20);
    t = printed(fx);
    assert_non_null(strstr(t, "\n    Markers\n"
                              "        Reserved: 0x0000\n"
                              "        FPDU back pointer: 84 bytes\n"));
    assert_non_null(strstr(t, "<field name=\"iwarp_mpa.markers\" showname=\"Markers\" "
                              "size=\"228\" pos=\"54\" show=\"\" value=\"\">\n"
                              "      <field name=\"iwarp_mpa.marker_res\" showname=\"Reserved: "
                              "0x0000\" size=\"2\" pos=\"138\" show=\"0x0000\" value=\"0000\"/>"
                              "\n"));
    assert_non_null(strstr(t, "\nFPDU without Markers (224 bytes):\n"));
    free(t);
    rs_display_set(&before);
}

/* A Terminate as tshark 4.0.17 shows it, on one crafted as siw sends it (RDMA layer, error
 * type 0, code 5, the M, D and R bits with the DDP segment length, the 18-octet untagged DDP
 * header and the 28-octet RDMAP header): its item over its header and the headers it
 * carries (before: its 4 octets), and the error code of a type Wireshark names no codes of
 * as a number ('Error Code: 0x05'; before: 'Unknown (0x05)'). */
static void
test_terminate_as_tshark(void **state)
{
    struct fixture *fx = *state;
    struct rs_display d = *rs_display_get(), before = d;
    uint8_t body[64];

    d.info_tshark = d.tree_tshark = true;
    rs_display_set(&d);
    exchange(fx, 0, 0);
    memset(body, 0, sizeof(body));
    body[0] = 0x00;     /* layer RDMA, error type 0 */
    body[1] = 0x05;
    body[2] = 0xe0;     /* M, D, R */
    rs_store_be16(body + 4, 0x40);
    for (unsigned i = 0; i < 18 + 28; i++)
        body[6 + i] = (uint8_t)i;
    uint32_t a = fx->len[0];
    plain_fpdu(fx, 0, 0x41, RS_RDMAP_TERMINATE, 2, 1, 0, body, 4 + 2 + 18 + 28);
    segment(fx, 0, a, fx->len[0], 20);
    char *t = printed(fx);
    assert_non_null(strstr(t, "\n                .... 0000 = Error Types for RDMA layer: Local "
                              "Catastrophic Error (0x0)\n"
                              "                Error Code: 0x05\n"));
    assert_non_null(strstr(t, "<field name=\"iwarp_rdma.terminate\" showname=\"Terminate\" "
                              "size=\"52\" pos=\"74\" show=\"\" value=\"\">\n"));
    assert_non_null(strstr(t, "<field name=\"iwarp_rdma.term_errcode\" showname=\"Error Code: "
                              "0x05\" size=\"1\" pos=\"75\" show=\"0x05\" value=\"05\"/>\n"));
    free(t);
    rs_display_set(&before);
}

static void
test_heuristics_off_and_forced_port(void **state)
{
    struct fixture *fx = *state;

    rs_iwarp_free(fx->iw);
    fx->opts.heuristics = false;
    assert_int_equal(rs_iwarp_new(&fx->opts, &fx->iw, NULL), 0);
    uint32_t n = send_fpdu(fx, 0, 1, 100, 1, true, UINT32_MAX);
    assert_null(segment(fx, 0, 0, n, 0));
    rs_iwarp_free(fx->iw);
    fx->opts.ports[0] = 9999;
    fx->opts.n_ports = 1;
    assert_int_equal(rs_iwarp_new(&fx->opts, &fx->iw, NULL), 0);
    const struct rs_iwarp_view *v = segment(fx, 0, 0, n, 0);
    assert_non_null(v);
    assert_int_equal(v->n_pdus, 1);
    assert_true(v->pdus[0].flags & RS_IWARP_PDU_INFERRED);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_exchange_and_crc, setup, teardown),
        cmocka_unit_test_setup_teardown(test_split_and_packed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_markers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_field_places, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retransmission_and_out_of_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hole_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inference, setup, teardown),
        cmocka_unit_test_setup_teardown(test_heuristics_off_and_forced_port, setup, teardown),
        cmocka_unit_test_setup_teardown(test_send_reassembly_as_tshark, setup, teardown),
        cmocka_unit_test_setup_teardown(test_markers_as_tshark, setup, teardown),
        cmocka_unit_test_setup_teardown(test_terminate_as_tshark, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
