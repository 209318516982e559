/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_rc_services.c - the RC stack beyond one-element RC requests, between two
 * contexts on a virtual clock (rc_pair.c): scatter/gather lists on both sides, regions
 * deregistered while a request still names them, inline data of a refused post, UC
 * (a lost packet loses its message, nothing is answered), UD (the network header in
 * the receive buffer, Q_Keys), shared receive queues with their limit and Last WQE
 * Reached, the asynchronous events, the flow label's UDP source port, and a context
 * with a second address.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../transport/rc/rc_int.h"
#include "../rc/rc_pair.h"

#define MEM 65536

struct fixture {
    struct rc_pair p;
    struct rs_rc_qp *a, *b;
    uint8_t *amem, *bmem;
    struct rs_rc_mr amr, bmr;
    int drop_psn_from_a;        /* the packet of A with this PSN is lost once; -1: none */
    uint32_t first_psn_a;
    uint8_t last_syndrome_b;    /* the AETH syndrome of B's last ACK */
    struct rs_rc_event events[16];
    unsigned n_events;
};

static bool
filter(void *arg, int from, uint8_t *pkt, uint32_t len)
{
    struct fixture *f = arg;
    const uint8_t *bth = pkt + RS_ROCEV2_IPV4_OVERHEAD;

    (void)len;
    if (from == 0 && f->drop_psn_from_a >= 0 &&
        rs_load_be24(bth + 9) == (uint32_t)f->drop_psn_from_a) {
        f->drop_psn_from_a = -1;
        return false;
    }
    if (from == 1 && (bth[0] & 0x1f) == 0x11)   /* an ACK: its AETH follows the BTH */
        f->last_syndrome_b = bth[12];
    return true;
}

static void
on_event(void *arg, const struct rs_rc_event *ev)
{
    struct fixture *f = arg;

    if (f->n_events < 16)
        f->events[f->n_events++] = *ev;
}

static struct fixture *
fixture_new(void)
{
    struct fixture *f = calloc(1, sizeof(*f));
    char err[RS_ERRBUF_SIZE];

    assert_non_null(f);
    f->amem = calloc(1, MEM);
    f->bmem = calloc(1, MEM);
    assert_int_equal(rc_pair_init(&f->p, err), 0);
    f->p.filter = filter;
    f->p.filter_arg = f;
    f->drop_psn_from_a = -1;
    f->p.ctx[1]->opts.event = on_event;
    f->p.ctx[1]->opts.event_arg = f;
    assert_int_equal(rs_rc_mr_reg(f->p.ctx[0], f->amem, MEM, 0, 0,
                                  RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL, &f->amr,
                                  err), 0);
    assert_int_equal(rs_rc_mr_reg(f->p.ctx[1], f->bmem, MEM, 0, 0,
                                  RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL, &f->bmr,
                                  err), 0);
    for (int i = 0; i < MEM; i++)
        f->amem[i] = (uint8_t)(i * 7 + 1);
    return f;
}

static void
connect_pair(struct fixture *f, uint8_t type, uint32_t max_sge, uint32_t max_inline,
             uint32_t depth)
{
    struct rs_rc_qp_attr a;
    char err[RS_ERRBUF_SIZE];

    rs_rc_qp_attr_init(&a);
    a.type = type;
    a.pmtu = 1024;
    a.max_sge = max_sge;
    a.max_inline = max_inline;
    a.sq_depth = a.rq_depth = depth;
    a.timeout = 10;
    a.sq_psn = a.rq_psn = 100;
    f->first_psn_a = 100;
    assert_int_equal(rc_pair_connect(&f->p, &a, &f->a, &f->b, err), 0);
}

static void
fixture_free(struct fixture *f)
{
    rc_pair_free(&f->p);
    free(f->amem);
    free(f->bmem);
    free(f);
}

static struct rs_rc_send_wr
wr_of(uint64_t id, uint8_t opcode, const struct rs_rc_sge *sg, uint32_t n)
{
    struct rs_rc_send_wr w;

    memset(&w, 0, sizeof(w));
    w.wr_id = id;
    w.opcode = opcode;
    w.flags = RS_RC_SEND_SIGNALED;
    w.sg_list = sg;
    w.num_sge = n;
    return w;
}

/* A SEND from three elements into a receive of two, a WRITE from two, a READ into
 * three: the bytes land where the lists say, across packets and elements. */
static void
test_scatter_gather(void **state)
{
    struct fixture *f = fixture_new();
    struct rs_rc_wc wc[8];
    uint64_t av = f->amr.va, bv = f->bmr.va;

    (void)state;
    connect_pair(f, RS_RC_QPT_RC, 4, 0, 16);
    struct rs_rc_sge send[3] = {{av + 100, 700, f->amr.lkey}, {av + 5000, 900, f->amr.lkey},
                                {av + 9000, 1400, f->amr.lkey}};
    struct rs_rc_sge recv[2] = {{bv + 0, 1500, f->bmr.lkey}, {bv + 20000, 2000, f->bmr.lkey}};
    struct rs_rc_recv_wr r = {7, {0, 0, 0}, recv, 2};
    assert_int_equal(rs_rc_post_recv(f->b, &r, NULL), 0);
    struct rs_rc_send_wr w = wr_of(1, RS_RC_WR_SEND, send, 3);
    assert_int_equal(rs_rc_post_send(f->a, &w, NULL), 0);
    struct rs_rc_sge write[2] = {{av + 30000, 10, f->amr.lkey}, {av + 31000, 2000, f->amr.lkey}};
    w = wr_of(2, RS_RC_WR_RDMA_WRITE, write, 2);
    w.remote_addr = bv + 40000;
    w.rkey = f->bmr.rkey;
    assert_int_equal(rs_rc_post_send(f->a, &w, NULL), 0);
    struct rs_rc_sge read[3] = {{av + 50000, 3, f->amr.lkey}, {av + 51000, 1500, f->amr.lkey},
                                {av + 55000, 507, f->amr.lkey}};
    w = wr_of(3, RS_RC_WR_RDMA_READ, read, 3);
    w.remote_addr = bv + 40000;
    w.rkey = f->bmr.rkey;
    assert_int_equal(rs_rc_post_send(f->a, &w, NULL), 0);
    /* More elements than the QP takes: refused, nothing queued. */
    struct rs_rc_sge five[5] = {{av, 1, f->amr.lkey}, {av, 1, f->amr.lkey}, {av, 1, f->amr.lkey},
                                {av, 1, f->amr.lkey}, {av, 1, f->amr.lkey}};
    w = wr_of(4, RS_RC_WR_SEND, five, 5);
    assert_int_equal(rs_rc_post_send(f->a, &w, NULL), RS_EINVAL);
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));

    assert_int_equal(rs_rc_poll_cq(f->a, wc, 8), 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(wc[i].status, RS_RC_WC_SUCCESS);
        assert_int_equal(wc[i].wr_id, (uint64_t)i + 1);
    }
    assert_int_equal(wc[0].byte_len, 3000);
    assert_int_equal(rs_rc_poll_cq(f->b, wc, 8), 1);
    assert_int_equal(wc[0].byte_len, 3000);
    /* The SEND's 3000 bytes: 1500 into the first receive element, 1500 into the second. */
    uint8_t want[3000];
    memcpy(want, f->amem + 100, 700);
    memcpy(want + 700, f->amem + 5000, 900);
    memcpy(want + 1600, f->amem + 9000, 1400);
    assert_memory_equal(f->bmem, want, 1500);
    assert_memory_equal(f->bmem + 20000, want + 1500, 1500);
    /* The WRITE's two pieces, end to end, and the READ of them back into three. */
    assert_memory_equal(f->bmem + 40000, f->amem + 30000, 10);
    assert_memory_equal(f->bmem + 40010, f->amem + 31000, 2000);
    assert_memory_equal(f->amem + 50000, f->bmem + 40000, 3);
    assert_memory_equal(f->amem + 51000, f->bmem + 40003, 1500);
    assert_memory_equal(f->amem + 55000, f->bmem + 41503, 507);
    fixture_free(f);
}

/* A WRITE whose source is deregistered before its retransmission, and a READ whose
 * sink is deregistered before its response: both fail (LOC_PROT_ERR), the peer never
 * gets the bytes, the sink is never written. */
static void
test_dereg_in_flight(void **state)
{
    struct fixture *f = fixture_new();
    struct rs_rc_wc wc[4];
    char err[RS_ERRBUF_SIZE];
    static uint8_t src[4096], sink[4096];
    struct rs_rc_mr smr, kmr;

    (void)state;
    connect_pair(f, RS_RC_QPT_RC, 1, 0, 16);
    memset(src, 'S', sizeof(src));
    assert_int_equal(rs_rc_mr_reg(f->p.ctx[0], src, sizeof(src), 0, 0, 0, &smr, err), 0);
    struct rs_rc_send_wr w = wr_of(1, RS_RC_WR_RDMA_WRITE, NULL, 0);
    w.sge = (struct rs_rc_sge){smr.va, 4096, smr.lkey};
    w.remote_addr = f->bmr.va;
    w.rkey = f->bmr.rkey;
    f->drop_psn_from_a = 100;     /* its first packet is lost: it must be sent again */
    assert_int_equal(rs_rc_post_send(f->a, &w, NULL), 0);
    rc_pair_step(&f->p);
    assert_int_equal(rs_rc_mr_dereg(f->p.ctx[0], smr.lkey), 0);
    memset(src, 'X', sizeof(src));     /* no longer the peer's business */
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));
    assert_int_equal(rs_rc_poll_cq(f->a, wc, 4), 1);
    assert_int_equal(wc[0].status, RS_RC_WC_LOC_PROT_ERR);
    assert_null(memchr(f->bmem, 'X', 4096));
    assert_int_equal(rs_rc_counters_get(f->p.ctx[0])->local_faults, 1);
    assert_int_equal(rs_rc_qp_state(f->a), RS_RC_QP_ERROR);

    /* A new pair of QPs for the READ. */
    rs_rc_qp_destroy(f->a);
    rs_rc_qp_destroy(f->b);
    connect_pair(f, RS_RC_QPT_RC, 1, 0, 16);
    memset(sink, 's', sizeof(sink));
    assert_int_equal(rs_rc_mr_reg(f->p.ctx[0], sink, sizeof(sink), 0, 0,
                                  RS_RC_ACCESS_LOCAL_WRITE, &kmr, err), 0);
    w = wr_of(2, RS_RC_WR_RDMA_READ, NULL, 0);
    w.sge = (struct rs_rc_sge){kmr.va, 4096, kmr.lkey};
    w.remote_addr = f->bmr.va;
    w.rkey = f->bmr.rkey;
    assert_int_equal(rs_rc_post_send(f->a, &w, NULL), 0);
    rs_rc_progress(f->p.ctx[0], f->p.now);     /* the request leaves */
    assert_int_equal(rs_rc_mr_dereg(f->p.ctx[0], kmr.lkey), 0);
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));
    assert_int_equal(rs_rc_poll_cq(f->a, wc, 4), 1);
    assert_int_equal(wc[0].status, RS_RC_WC_LOC_PROT_ERR);
    for (int i = 0; i < 4096; i++)
        assert_int_equal(sink[i], 's');
    fixture_free(f);
}

/* An inline post refused for a full queue leaves the data of the requests in flight
 * alone: their retransmission carries their own bytes. */
static void
test_inline_refused_post(void **state)
{
    struct fixture *f = fixture_new();
    struct rs_rc_wc wc[4];
    char data[3][16];

    (void)state;
    connect_pair(f, RS_RC_QPT_RC, 1, 64, 2);
    f->drop_psn_from_a = 100;
    for (int i = 0; i < 3; i++) {
        memset(data[i], i < 2 ? 'A' + i : 'Z', 16);
        struct rs_rc_send_wr w = wr_of((uint64_t)i, RS_RC_WR_RDMA_WRITE, NULL, 0);
        w.flags |= RS_RC_SEND_INLINE;
        w.sge = (struct rs_rc_sge){(uintptr_t)data[i], 16, 0};
        w.remote_addr = f->bmr.va + 16u * (unsigned)i;
        w.rkey = f->bmr.rkey;
        assert_int_equal(rs_rc_post_send(f->a, &w, NULL), i < 2 ? 0 : RS_ENOMEM);
        memset(data[i], '?', 16);      /* inline: the buffer may be reused at once */
    }
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));
    assert_int_equal(rs_rc_poll_cq(f->a, wc, 4), 2);
    assert_int_equal(wc[0].status, RS_RC_WC_SUCCESS);
    assert_int_equal(wc[1].status, RS_RC_WC_SUCCESS);
    assert_memory_equal(f->bmem, "AAAAAAAAAAAAAAAABBBBBBBBBBBBBBBB", 32);
    assert_true(rs_rc_counters_get(f->p.ctx[0])->retransmits >= 1);
    fixture_free(f);
}

static void
post_recv(struct rs_rc_qp *qp, uint64_t id, uint64_t va, uint32_t len, uint32_t lkey)
{
    struct rs_rc_recv_wr r = {id, {va, len, lkey}, NULL, 0};

    assert_int_equal(rs_rc_post_recv(qp, &r, NULL), 0);
}

/* UC: a SEND that loses a middle packet is lost whole, silently; the next one lands
 * in the same receive WQE; the requester completes everything at once, and nobody
 * sends an ACK. */
static void
test_uc(void **state)
{
    struct fixture *f = fixture_new();
    struct rs_rc_wc wc[8];
    const struct rs_rc_counters *cb = rs_rc_counters_get(f->p.ctx[1]);

    (void)state;
    connect_pair(f, RS_RC_QPT_UC, 1, 0, 16);
    post_recv(f->b, 11, f->bmr.va, 4096, f->bmr.lkey);
    post_recv(f->b, 12, f->bmr.va + 8192, 4096, f->bmr.lkey);
    f->drop_psn_from_a = 101;        /* the second packet of the first SEND */
    struct rs_rc_sge s1 = {f->amr.va, 3000, f->amr.lkey}, s2 = {f->amr.va + 4096, 2000,
                                                                f->amr.lkey};
    struct rs_rc_send_wr w = wr_of(1, RS_RC_WR_SEND, &s1, 1);
    assert_int_equal(rs_rc_post_send(f->a, &w, NULL), 0);
    w = wr_of(2, RS_RC_WR_SEND, &s2, 1);
    assert_int_equal(rs_rc_post_send(f->a, &w, NULL), 0);
    w = wr_of(3, RS_RC_WR_RDMA_WRITE_WITH_IMM, &s2, 1);
    w.imm = 0x1234;
    w.remote_addr = f->bmr.va + 30000;
    w.rkey = f->bmr.rkey;
    assert_int_equal(rs_rc_post_send(f->a, &w, NULL), 0);
    /* No READ, atomic or SEND with Invalidate in UC. */
    w = wr_of(4, RS_RC_WR_RDMA_READ, &s2, 1);
    assert_int_equal(rs_rc_post_send(f->a, &w, NULL), RS_EINVAL);
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));

    assert_int_equal(rs_rc_poll_cq(f->a, wc, 8), 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(wc[i].status, RS_RC_WC_SUCCESS);
    assert_int_equal(rs_rc_poll_cq(f->b, wc, 8), 2);
    assert_int_equal(wc[0].wr_id, 11);      /* the lost SEND's WQE took the next one */
    assert_int_equal(wc[0].byte_len, 2000);
    assert_memory_equal(f->bmem, f->amem + 4096, 2000);
    assert_int_equal(wc[1].wr_id, 12);
    assert_int_equal(wc[1].opcode, RS_RC_WC_RECV_RDMA_WITH_IMM);
    assert_int_equal(wc[1].imm, 0x1234);
    assert_memory_equal(f->bmem + 30000, f->amem + 4096, 2000);
    assert_int_equal(cb->drop_uc, 1);
    assert_int_equal(cb->drop_psn_gap, 1);
    assert_int_equal(cb->ack_sent, 0);
    assert_int_equal(rs_rc_counters_get(f->p.ctx[0])->rx_packets, 0);
    fixture_free(f);
}

static struct rs_rc_qp *
ud_qp(struct rs_rc_ctx *ctx, uint32_t qkey)
{
    struct rs_rc_qp_attr a;
    struct rs_rc_qp *qp;
    char err[RS_ERRBUF_SIZE];

    rs_rc_qp_attr_init(&a);
    a.type = RS_RC_QPT_UD;
    a.qkey = qkey;
    a.pmtu = 4096;
    a.sq_depth = a.rq_depth = 8;
    assert_int_equal(rs_rc_qp_create(ctx, &a, &qp, err), 0);
    return qp;
}

static void
ud_send(struct fixture *f, struct rs_rc_qp *from, const uint8_t *gid, uint32_t qpn,
        uint32_t qkey, uint64_t id, uint32_t len)
{
    struct rs_rc_sge s = {f->amr.va, len, f->amr.lkey};
    struct rs_rc_send_wr w = wr_of(id, RS_RC_WR_SEND_WITH_IMM, &s, 1);

    w.imm = 77;
    memcpy(w.ud.gid, gid, 16);
    w.ud.qpn = qpn;
    w.ud.qkey = qkey;
    assert_int_equal(rs_rc_post_send(from, &w, NULL), 0);
}

/* UD: the sender's IP header in the first 40 bytes, the payload after, the sender's
 * QP in the completion; a wrong Q_Key or no receive WQE drops the packet. */
static void
test_ud(void **state)
{
    struct fixture *f = fixture_new();
    struct rs_rc_wc wc[8];
    const struct rs_rc_counters *cb = rs_rc_counters_get(f->p.ctx[1]);

    (void)state;
    struct rs_rc_qp *ua = ud_qp(f->p.ctx[0], 0x1111), *ub = ud_qp(f->p.ctx[1], 0x2222);
    post_recv(ub, 21, f->bmr.va, 40 + 1000, f->bmr.lkey);
    ud_send(f, ua, f->p.gid[1], rs_rc_qp_num(ub), 0x2222, 1, 1000);
    ud_send(f, ua, f->p.gid[1], rs_rc_qp_num(ub), 0x3333, 2, 10);   /* wrong Q_Key */
    ud_send(f, ua, f->p.gid[1], rs_rc_qp_num(ub), 0x2222, 3, 10);   /* no WQE left */
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));
    assert_int_equal(rs_rc_poll_cq(ua, wc, 8), 3);                 /* all sent */
    assert_int_equal(rs_rc_poll_cq(ub, wc, 8), 1);
    assert_int_equal(wc[0].wr_id, 21);
    assert_int_equal(wc[0].status, RS_RC_WC_SUCCESS);
    assert_int_equal(wc[0].byte_len, 1040);
    assert_int_equal(wc[0].flags, RS_RC_WC_GRH | RS_RC_WC_WITH_IMM);
    assert_int_equal(wc[0].src_qp, rs_rc_qp_num(ua));
    assert_int_equal(wc[0].imm, 77);
    static const uint8_t zero[20];
    assert_memory_equal(f->bmem, zero, 20);             /* IPv4: the header's last 20 */
    assert_int_equal(f->bmem[20], 0x45);
    assert_memory_equal(f->bmem + 20 + 12, f->p.gid[0] + 12, 4);   /* its source */
    assert_memory_equal(f->bmem + 20 + 16, f->p.gid[1] + 12, 4);
    assert_memory_equal(f->bmem + 40, f->amem, 1000);
    assert_int_equal(cb->drop_qkey, 1);
    assert_int_equal(cb->drop_ud_no_wqe, 1);
    /* A Q_Key with the high bit set stands for the sender QP's own (0x1111): refused
     * by a QP whose Q_Key differs, taken by one whose matches. */
    struct rs_rc_qp *uc = ud_qp(f->p.ctx[1], 0x1111);
    post_recv(uc, 22, f->bmr.va + 8192, 100, f->bmr.lkey);
    ud_send(f, ua, f->p.gid[1], rs_rc_qp_num(uc), 0x80000000u, 4, 60);
    /* Longer than the receive buffer: the WQE completes in error (LOC_LEN_ERR). */
    post_recv(ub, 23, f->bmr.va + 16384, 40 + 10, f->bmr.lkey);
    ud_send(f, ua, f->p.gid[1], rs_rc_qp_num(ub), 0x2222, 5, 11);
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));
    assert_int_equal(rs_rc_poll_cq(uc, wc, 8), 1);
    assert_int_equal(wc[0].wr_id, 22);
    assert_int_equal(wc[0].byte_len, 100);
    assert_int_equal(rs_rc_poll_cq(ub, wc, 8), 1);
    assert_int_equal(wc[0].status, RS_RC_WC_LOC_LEN_ERR);
    /* A UD message is one packet: longer than the PMTU is refused when posted. */
    struct rs_rc_sge big = {f->amr.va, 4097, f->amr.lkey};
    struct rs_rc_send_wr w = wr_of(6, RS_RC_WR_SEND, &big, 1);
    memcpy(w.ud.gid, f->p.gid[1], 16);
    assert_int_equal(rs_rc_post_send(ua, &w, NULL), RS_EINVAL);
    w = wr_of(6, RS_RC_WR_RDMA_WRITE, NULL, 0);
    assert_int_equal(rs_rc_post_send(ua, &w, NULL), RS_EINVAL);
    fixture_free(f);
}

/* UD over IPv6: the whole IPv6 header fills the 40 bytes. */
static void
test_ud_ipv6(void **state)
{
    struct rc_pair p;
    char err[RS_ERRBUF_SIZE];
    static uint8_t buf[2][256];
    struct rs_rc_mr mr[2];
    struct rs_rc_wc wc[2];

    (void)state;
    assert_int_equal(rc_pair_init_ipv6(&p, err), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(rs_rc_mr_reg(p.ctx[i], buf[i], sizeof(buf[i]), 0, 0,
                                      RS_RC_ACCESS_LOCAL_WRITE, &mr[i], err), 0);
    struct rs_rc_qp *a = ud_qp(p.ctx[0], 5), *b = ud_qp(p.ctx[1], 5);
    memset(buf[0], 'u', 64);
    post_recv(b, 1, mr[1].va, 200, mr[1].lkey);
    struct rs_rc_sge s = {mr[0].va, 64, mr[0].lkey};
    struct rs_rc_send_wr w = wr_of(1, RS_RC_WR_SEND, &s, 1);
    memcpy(w.ud.gid, p.gid[1], 16);
    w.ud.qpn = rs_rc_qp_num(b);
    w.ud.qkey = 5;
    assert_int_equal(rs_rc_post_send(a, &w, NULL), 0);
    assert_true(rc_pair_run(&p, NULL, NULL, 1000));
    assert_int_equal(rs_rc_poll_cq(b, wc, 2), 1);
    assert_int_equal(wc[0].byte_len, 104);
    assert_int_equal(buf[1][0] >> 4, 6);
    assert_memory_equal(buf[1] + 8, p.gid[0], 16);
    assert_memory_equal(buf[1] + 24, p.gid[1], 16);
    assert_memory_equal(buf[1] + 40, buf[0], 64);
    rc_pair_free(&p);
}

/* Two QPs of B take their receives from one SRQ, which says when it runs low; a QP of
 * it that goes to the error state says it took its last WQE, and leaves the SRQ's
 * receives to the other. Its ACKs carry no credits of their own. */
static void
test_srq(void **state)
{
    struct fixture *f = fixture_new();
    struct rs_rc_wc wc[8];
    struct rs_rc_srq *srq;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_int_equal(rs_rc_srq_create(f->p.ctx[1], 4, 2, &srq, err), 0);
    struct rs_rc_qp_attr at;
    rs_rc_qp_attr_init(&at);
    at.sq_depth = at.rq_depth = 8;
    struct rs_rc_qp *a1, *a2, *b1, *b2;
    /* Side by side: B's QPs take the SRQ, A's have their own queues. */
    struct rs_rc_qp_attr qa = at, qb = at;
    qb.srq = srq;
    qa.qpn = 0x100;
    qb.qpn = 0x200;
    qa.dest_qpn = 0x200;
    qb.dest_qpn = 0x100;
    memcpy(qa.peer_gid, f->p.gid[1], 16);
    memcpy(qb.peer_gid, f->p.gid[0], 16);
    assert_int_equal(rs_rc_qp_create(f->p.ctx[0], &qa, &a1, err), 0);
    assert_int_equal(rs_rc_qp_create(f->p.ctx[1], &qb, &b1, err), 0);
    qa.qpn = 0x101;
    qb.qpn = 0x201;
    qa.dest_qpn = 0x201;
    qb.dest_qpn = 0x101;
    assert_int_equal(rs_rc_qp_create(f->p.ctx[0], &qa, &a2, err), 0);
    assert_int_equal(rs_rc_qp_create(f->p.ctx[1], &qb, &b2, err), 0);
    assert_int_equal(rs_rc_post_recv(b1, &(struct rs_rc_recv_wr){1, {0, 0, 0}, NULL, 0}, err),
                     RS_EINVAL);
    assert_int_equal(rs_rc_srq_destroy(srq), RS_EINVAL);  /* two QPs use it */
    for (uint64_t i = 0; i < 4; i++) {
        struct rs_rc_sge two[2] = {{f->bmr.va + i * 1000, 100, f->bmr.lkey},
                                   {f->bmr.va + 50000 + i * 1000, 100, f->bmr.lkey}};
        assert_int_equal(rs_rc_srq_post_recv(srq, &(struct rs_rc_recv_wr){10 + i, {0, 0, 0},
                                                                          two, 2}, err), 0);
    }
    assert_int_equal(rs_rc_srq_posted(srq), 4);
    rs_rc_srq_set_limit(srq, 3);
    struct rs_rc_sge s = {f->amr.va, 150, f->amr.lkey};
    struct rs_rc_send_wr w = wr_of(1, RS_RC_WR_SEND, &s, 1);
    assert_int_equal(rs_rc_post_send(a1, &w, NULL), 0);
    w.wr_id = 2;
    assert_int_equal(rs_rc_post_send(a2, &w, NULL), 0);
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));
    /* Each QP took one of the first two receives (whichever SEND came first took the
     * first); the 150 bytes went 100 into the first element, 50 into the second. */
    assert_int_equal(rs_rc_poll_cq(b1, wc, 8), 1);
    assert_int_equal(rs_rc_poll_cq(b2, wc + 1, 7), 1);
    assert_int_equal(wc[0].wr_id + wc[1].wr_id, 10 + 11);
    assert_int_equal(wc[0].byte_len, 150);
    assert_int_equal(wc[1].byte_len, 150);
    for (int i = 0; i < 2; i++) {
        assert_memory_equal(f->bmem + (wc[i].wr_id - 10) * 1000, f->amem, 100);
        assert_memory_equal(f->bmem + 50000 + (wc[i].wr_id - 10) * 1000, f->amem + 100, 50);
    }
    assert_int_equal(rs_rc_srq_posted(srq), 2);
    assert_int_equal(f->last_syndrome_b, 0x1f);         /* credits: "invalid" */
    /* The limit fired once, on the take that left 2 < 3, and disarmed itself. */
    unsigned limits = 0;
    for (unsigned i = 0; i < f->n_events; i++)
        limits += f->events[i].type == RS_RC_EV_SRQ_LIMIT && f->events[i].srq == srq;
    assert_int_equal(limits, 1);
    assert_int_equal(rs_rc_srq_limit(srq), 0);
    /* b1 in error: Last WQE Reached, and the SRQ's receives stay for b2. */
    f->n_events = 0;
    rs_rc_qp_flush(b1);
    assert_int_equal(f->n_events, 1);
    assert_int_equal(f->events[0].type, RS_RC_EV_LAST_WQE);
    assert_int_equal(f->events[0].qpn, 0x200);
    assert_int_equal(rs_rc_srq_posted(srq), 2);
    rs_rc_qp_destroy(b1);
    rs_rc_qp_destroy(b2);
    assert_int_equal(rs_rc_srq_destroy(srq), 0);
    fixture_free(f);
}

/* The responder's events: COMM_EST on the first packet a QP takes, the affiliated
 * error of a request that put it in error. */
static void
test_events(void **state)
{
    struct fixture *f = fixture_new();

    (void)state;
    connect_pair(f, RS_RC_QPT_RC, 1, 0, 16);
    struct rs_rc_sge s = {f->amr.va, 64, f->amr.lkey};
    struct rs_rc_send_wr w = wr_of(1, RS_RC_WR_RDMA_WRITE, &s, 1);
    w.remote_addr = f->bmr.va;
    w.rkey = f->bmr.rkey;
    assert_int_equal(rs_rc_post_send(f->a, &w, NULL), 0);
    w.wr_id = 2;
    w.rkey = f->bmr.rkey ^ 0x100;   /* no such region */
    assert_int_equal(rs_rc_post_send(f->a, &w, NULL), 0);
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));
    assert_int_equal(f->n_events, 2);
    assert_int_equal(f->events[0].type, RS_RC_EV_COMM_EST);
    assert_int_equal(f->events[0].qpn, rs_rc_qp_num(f->b));
    assert_int_equal(f->events[1].type, RS_RC_EV_QP_ACCESS_ERR);
    assert_int_equal(f->events[1].qpn, rs_rc_qp_num(f->b));
    assert_int_equal(rs_rc_qp_state(f->b), RS_RC_QP_ERROR);
    fixture_free(f);
}

/* The flow label of two QP numbers and its UDP source port, as every RoCEv2 driver
 * computes them (rdma_calc_flow_label, rdma_flow_label_to_udp_sport). */
static void
test_flow_label(void **state)
{
    (void)state;
    assert_int_equal(rc_flow_label(0x11, 0x12), 0x132);
    assert_int_equal(rc_flow_sport(0x132), 0xc132);
    assert_int_equal(rc_flow_label(0xabcdef, 0x123456), 0xac3e3);
    assert_int_equal(rc_flow_sport(0xac3e3), 0xc3c8);
    assert_int_equal(rc_flow_label(0x123456, 0xabcdef), 0xac3e3);   /* symmetric */
    for (uint32_t fl = 0; fl < 0x100000; fl += 4099)
        assert_true(rc_flow_sport(fl) >= 0xc000);
}

static uint8_t seen_src[16];

static uint8_t *
seen_buf(void *arg)
{
    static uint8_t buf[RS_RC_MAX_PACKET];

    (void)arg;
    return buf;
}

static void
seen_send(void *arg, uint32_t len)
{
    const uint8_t *pkt = seen_buf(arg);

    (void)len;
    rs_addr_from_ipv4(pkt + 12, seen_src);
}

/* A context with a second address: a QP bound to it sends from it, through its link. */
static void
test_second_address(void **state)
{
    struct rs_rc_ctx_opts o;
    struct rs_rc_link first = {seen_buf, seen_send, NULL, NULL, false},
                      second = {seen_buf, seen_send, NULL, NULL, false};
    struct rs_rc_ctx *ctx;
    struct rs_rc_qp *qp;
    struct rs_rc_qp_attr a;
    char err[RS_ERRBUF_SIZE];
    uint8_t g1[16], g2[16], peer[16];
    uint32_t scope;

    (void)state;
    rs_addr_parse("10.1.1.1", g1, &scope, err);
    rs_addr_parse("10.2.2.2", g2, &scope, err);
    rs_addr_parse("10.9.9.9", peer, &scope, err);
    rs_rc_ctx_opts_init(&o);
    memcpy(o.local_gid, g1, 16);
    assert_int_equal(rs_rc_ctx_create(&ctx, &o, &first, err), 0);
    assert_int_equal(rs_rc_ctx_add_address(ctx, g2, &second, err), 0);
    assert_int_equal(rs_rc_ctx_add_address(ctx, g2, &second, err), RS_EINVAL);
    rs_rc_qp_attr_init(&a);
    memcpy(a.peer_gid, peer, 16);
    memcpy(a.local_gid, g2, 16);
    a.dest_qpn = 0x33;
    assert_int_equal(rs_rc_qp_create(ctx, &a, &qp, err), 0);
    rs_rc_qp_ack_now(qp);
    struct rs_rc_send_wr w = wr_of(1, RS_RC_WR_SEND, NULL, 0);
    assert_int_equal(rs_rc_post_send(qp, &w, NULL), 0);
    rs_rc_progress(ctx, 1);
    assert_memory_equal(seen_src, g2, 16);
    /* An address the context does not have is refused. */
    memcpy(a.local_gid, peer, 16);
    assert_int_equal(rs_rc_qp_create(ctx, &a, &qp, err), RS_EINVAL);
    rs_rc_ctx_destroy(ctx);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scatter_gather),
        cmocka_unit_test(test_dereg_in_flight),
        cmocka_unit_test(test_inline_refused_post),
        cmocka_unit_test(test_uc),
        cmocka_unit_test(test_ud),
        cmocka_unit_test(test_ud_ipv6),
        cmocka_unit_test(test_srq),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_flow_label),
        cmocka_unit_test(test_second_address),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
