/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_verbslib.c - libroceshark-verbs' pieces (verbs), linked in statically: the
 * test calls the ibv_* functions and the inlines of <infiniband/verbs.h> as a program does.
 * The device list, the QP state table, the CQ ring, a completion channel's descriptor
 * under poll(), and two QPs of two devices on loopback addresses connected through
 * ibv_modify_qp(): a SEND, a WRITE, an error completion with the status the RC stack
 * computed, and the verbs it does not serve failing cleanly; two contexts of one device
 * sharing its port.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <roceshark/dissectors/addr.h>

#include "../../verbs/verbs_int.h"

/* --- the device list --- */

static void
test_devices_parse(void **state)
{
    struct vb_device d[4];

    (void)state;
    assert_int_equal(vb_devices_parse("rs0=127.0.0.2,rs1=127.0.0.3", d, 4), 2);
    assert_string_equal(d[0].ibdev.name, "rs0");
    assert_string_equal(d[1].ibdev.name, "rs1");
    static const uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 3};
    assert_memory_equal(d[1].gid, mapped, 16);
    assert_int_equal(d[0].ibdev.transport_type, IBV_TRANSPORT_IB);
    /* What does not parse is left out; so is a second device of one name. */
    assert_int_equal(vb_devices_parse("bad,=1.2.3.4,x=nowhere,a=::1,a=127.0.0.9,b=fe80::1%lo",
                                      d, 4), 2);
    assert_string_equal(d[0].ibdev.name, "a");
    assert_string_equal(d[1].ibdev.name, "b");
    assert_int_equal(d[1].scope, 1);
    assert_int_equal(vb_devices_parse("", d, 4), 0);
    assert_int_equal(vb_devices_parse(NULL, d, 4), 0);
    assert_int_equal(vb_devices_parse("a=127.0.0.1,b=127.0.0.2,c=127.0.0.3", d, 2), 2);
}

/* --- the QP state table --- */

#define TO_INIT (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define TO_RTR                                                                             \
    (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |        \
     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define TO_RTS                                                                             \
    (IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |  \
     IBV_QP_MAX_QP_RD_ATOMIC)

#define RC(cur, next, mask) vb_qp_transition_check(IBV_QPT_RC, IBV_QPS_##cur, IBV_QPS_##next, mask)
#define UC(cur, next, mask) vb_qp_transition_check(IBV_QPT_UC, IBV_QPS_##cur, IBV_QPS_##next, mask)
#define UD(cur, next, mask) vb_qp_transition_check(IBV_QPT_UD, IBV_QPS_##cur, IBV_QPS_##next, mask)

static void
test_qp_transitions(void **state)
{
    (void)state;
    /* The path every RC connection takes, with exactly what each step requires. */
    assert_int_equal(RC(RESET, INIT, TO_INIT), 0);
    assert_int_equal(RC(INIT, RTR, TO_RTR), 0);
    assert_int_equal(RC(RTR, RTS, TO_RTS), 0);
    /* A required attribute missing. */
    assert_int_equal(RC(RESET, INIT, TO_INIT & ~IBV_QP_PORT), EINVAL);
    assert_int_equal(RC(INIT, RTR, TO_RTR & ~IBV_QP_AV), EINVAL);
    assert_int_equal(RC(RTR, RTS, TO_RTS & ~IBV_QP_SQ_PSN), EINVAL);
    /* One the transition does not take (the requester's, on the way to RTR). */
    assert_int_equal(RC(INIT, RTR, TO_RTR | IBV_QP_SQ_PSN), EINVAL);
    /* Optional ones. */
    assert_int_equal(RC(INIT, RTR, TO_RTR | IBV_QP_ACCESS_FLAGS), 0);
    assert_int_equal(RC(RTS, RTS, IBV_QP_MIN_RNR_TIMER), 0);
    assert_int_equal(RC(INIT, INIT, IBV_QP_ACCESS_FLAGS), 0);
    /* Steps skipped or taken backwards. */
    assert_int_equal(RC(RESET, RTR, TO_RTR), EINVAL);
    assert_int_equal(RC(RESET, RTS, TO_RTS), EINVAL);
    assert_int_equal(RC(RTS, RTR, TO_RTR), EINVAL);
    assert_int_equal(RC(RTR, RTR, IBV_QP_STATE), EINVAL);
    assert_int_equal(RC(ERR, RTS, TO_RTS), EINVAL);
    /* Any state to RESET or ERR, with nothing else, whatever the service. */
    for (int t = IBV_QPT_RC; t <= IBV_QPT_UD; t++) {
        for (int s = IBV_QPS_RESET; s <= IBV_QPS_ERR; s++) {
            assert_int_equal(vb_qp_transition_check(t, s, IBV_QPS_RESET, IBV_QP_STATE), 0);
            assert_int_equal(vb_qp_transition_check(t, s, IBV_QPS_ERR, IBV_QP_STATE), 0);
            assert_int_equal(vb_qp_transition_check(t, s, IBV_QPS_ERR,
                                                    IBV_QP_STATE | IBV_QP_SQ_PSN), EINVAL);
        }
    }
    /* SQD and SQE are not served. */
    assert_int_equal(RC(RTS, SQD, IBV_QP_STATE), EINVAL);
    /* UC: RC's path without the requester's timers and READ resources. */
    int uc_rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
    assert_int_equal(UC(RESET, INIT, TO_INIT), 0);
    assert_int_equal(UC(INIT, RTR, uc_rtr), 0);
    assert_int_equal(UC(INIT, RTR, TO_RTR), EINVAL);    /* READ resources: not UC's */
    assert_int_equal(UC(RTR, RTS, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
    assert_int_equal(UC(RTR, RTS, TO_RTS), EINVAL);     /* timers: not UC's */
    /* UD, as ibv_ud_pingpong takes it: the Q_Key at INIT, nothing at RTR, a PSN at RTS. */
    int ud_init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
    assert_int_equal(UD(RESET, INIT, ud_init), 0);
    assert_int_equal(UD(RESET, INIT, TO_INIT), EINVAL);     /* access flags, no Q_Key */
    assert_int_equal(UD(INIT, RTR, IBV_QP_STATE), 0);
    assert_int_equal(UD(INIT, RTR, uc_rtr), EINVAL);        /* a UD QP has no peer */
    assert_int_equal(UD(RTR, RTS, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
    assert_int_equal(UD(RTS, RTS, IBV_QP_STATE | IBV_QP_QKEY), 0);
}

/* --- the CQ ring --- */

static void
test_cq_ring(void **state)
{
    struct vb_ring r;
    struct ibv_wc wc, out[8];

    (void)state;
    assert_int_equal(vb_ring_init(&r, 3), 0);
    memset(&wc, 0, sizeof(wc));
    /* Around the ring several times: order kept, full refused, nothing lost. */
    uint64_t next_in = 0, next_out = 0;
    for (int round = 0; round < 5; round++) {
        while (vb_ring_count(&r) < 3) {
            wc.wr_id = next_in++;
            assert_true(vb_ring_push(&r, &wc));
        }
        wc.wr_id = 999;
        assert_false(vb_ring_push(&r, &wc));
        int n = vb_ring_pop(&r, out, round % 2 == 0 ? 2 : 8);
        assert_int_equal(n, round % 2 == 0 ? 2 : 3);
        for (int i = 0; i < n; i++)
            assert_int_equal(out[i].wr_id, next_out++);
    }
    int n = vb_ring_pop(&r, out, 8);
    assert_int_equal(n, (int)(next_in - next_out));
    for (int i = 0; i < n; i++)
        assert_int_equal(out[i].wr_id, next_out++);
    assert_int_equal(vb_ring_count(&r), 0);
    assert_int_equal(vb_ring_pop(&r, out, 8), 0);
    vb_ring_free(&r);
}

/* --- devices for the rest: two loopback addresses of their own --- */

static char addr_a[32], addr_b[32];

static int
setup_devices(void **state)
{
    char spec[128];

    (void)state;
    /* Two runs at once (the sanitized build beside the normal one) must not take the same
     * addresses: the seed comes from the kernel, not from the time and the pid, which
     * two runs a second apart can share. */
    unsigned seed;
    if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
        seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    srand(seed);
    int net = 32 + rand() % 200, host = 2 + rand() % 200;
    snprintf(addr_a, sizeof(addr_a), "127.%d.%d.%d", net, rand() % 250 + 1, host);
    snprintf(addr_b, sizeof(addr_b), "127.%d.%d.%d", net, rand() % 250 + 1, host + 1);
    snprintf(spec, sizeof(spec), "ta=%s,tb=%s", addr_a, addr_b);
    setenv(VB_ENV_DEVICES, spec, 1);
    return 0;
}

static struct ibv_context *
open_named(const char *name)
{
    int n = -1;
    struct ibv_device **list = ibv_get_device_list(&n);
    struct ibv_context *ctx = NULL;

    assert_non_null(list);
    assert_int_equal(n, 2);
    for (int i = 0; i < n; i++)
        if (strcmp(ibv_get_device_name(list[i]), name) == 0)
            ctx = ibv_open_device(list[i]);
    assert_null(list[n]);
    ibv_free_device_list(list);
    assert_non_null(ctx);
    return ctx;
}

static bool
readable(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};

    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void
test_comp_channel(void **state)
{
    struct ibv_context *ctx = open_named("ta");
    struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
    struct ibv_cq *got;
    void *cq_ctx;
    int tag;

    (void)state;
    assert_non_null(ch);
    struct ibv_cq *cq = ibv_create_cq(ctx, 4, &tag, ch, 0);
    assert_non_null(cq);
    assert_int_equal(ibv_destroy_comp_channel(ch), EBUSY);     /* a CQ uses it */
    struct vb_cq *c = VB_CONTAINER(cq, struct vb_cq, cq);
    struct ibv_wc wc = {.wr_id = 7};
    /* Not armed: a completion makes no event. */
    assert_false(readable(ch->fd));
    vb_cq_push(c, &wc);
    assert_false(readable(ch->fd));
    /* Armed: the next one does, once. */
    assert_int_equal(ibv_req_notify_cq(cq, 0), 0);
    assert_false(readable(ch->fd));
    vb_cq_push(c, &wc);
    assert_true(readable(ch->fd));
    vb_cq_push(c, &wc);
    assert_int_equal(ibv_get_cq_event(ch, &got, &cq_ctx), 0);
    assert_ptr_equal(got, cq);
    assert_ptr_equal(cq_ctx, &tag);
    assert_false(readable(ch->fd));
    ibv_ack_cq_events(cq, 1);
    assert_int_equal(cq->comp_events_completed, 1);
    /* A non-blocking channel with no event says EAGAIN, as the kernel's. */
    fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
    errno = 0;
    assert_int_equal(ibv_get_cq_event(ch, &got, &cq_ctx), -1);
    assert_int_equal(errno, EAGAIN);
    /* The CQ has the three completions, in order, then nothing. */
    struct ibv_wc out[4];
    assert_int_equal(ibv_poll_cq(cq, 4, out), 3);
    assert_int_equal(out[2].wr_id, 7);
    assert_int_equal(ibv_poll_cq(cq, 4, out), 0);
    /* A CQ without a channel cannot be armed. */
    struct ibv_cq *plain = ibv_create_cq(ctx, 1, NULL, NULL, 0);
    assert_int_equal(ibv_req_notify_cq(plain, 0), EINVAL);
    assert_int_equal(ibv_destroy_cq(plain), 0);
    /* An event waiting when its CQ goes is taken with it. */
    assert_int_equal(ibv_req_notify_cq(cq, 1), 0);
    vb_cq_push(c, &wc);
    assert_true(readable(ch->fd));
    assert_int_equal(ibv_destroy_cq(cq), 0);
    assert_false(readable(ch->fd));
    assert_int_equal(ibv_destroy_comp_channel(ch), 0);
    assert_int_equal(ibv_close_device(ctx), 0);
}

static void
test_queries(void **state)
{
    struct ibv_context *ctx = open_named("tb");
    struct ibv_port_attr pa;
    struct ibv_device_attr da;
    union ibv_gid gid;
    struct ibv_gid_entry ge;

    (void)state;
    assert_int_equal(ibv_query_device(ctx, &da), 0);
    assert_int_equal(da.phys_port_cnt, 1);
    assert_int_equal(da.max_sge, 32);
    /* What ibv_query_port() expands to (verbs_int.h takes the macro away). */
    assert_int_equal(___ibv_query_port(ctx, 1, &pa), 0);
    assert_int_equal(pa.state, IBV_PORT_ACTIVE);
    assert_int_equal(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
    assert_int_equal(pa.active_mtu, IBV_MTU_4096);
    assert_int_equal(pa.gid_tbl_len, 2);
    assert_int_not_equal(___ibv_query_port(ctx, 2, &pa), 0);
    /* The exported one, of the layout without port_cap_flags2. */
    memset(&pa, 0, sizeof(pa));
    assert_int_equal(ibv_query_port(ctx, 1, (struct _compat_ibv_port_attr *)(void *)&pa), 0);
    assert_int_equal(pa.state, IBV_PORT_ACTIVE);
    /* As rxe's: the link-local GID of lo's (all-zero) MAC, then the address, both
     * RoCE v2. */
    static const uint8_t lo_ll[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0xff, 0xfe};
    assert_int_equal(ibv_query_gid(ctx, 1, 0, &gid), 0);
    assert_memory_equal(gid.raw, lo_ll, 16);
    assert_int_equal(ibv_query_gid(ctx, 1, 1, &gid), 0);
    assert_memory_equal(gid.raw, VB_CONTAINER(ctx->device, struct vb_device, ibdev)->gid, 16);
    assert_int_equal(gid.raw[10], 0xff);
    assert_int_equal(ibv_query_gid(ctx, 1, 2, &gid), -1);
    for (int i = 0; i < 2; i++) {
        int type = -1;
        assert_int_equal(ibv_query_gid_ex(ctx, 1, (uint32_t)i, &ge, 0), 0);
        assert_int_equal(ge.gid_type, IBV_GID_TYPE_ROCE_V2);
        assert_int_equal(ge.gid_index, i);
        assert_int_equal(ge.ndev_ifindex, 1);      /* lo */
        assert_int_equal(ibv_query_gid_type(ctx, 1, (unsigned)i, &type), 0);
        assert_int_equal(type, 1);                 /* sysfs: 1 RoCE v2 */
    }
    assert_int_equal(ibv_query_gid_ex(ctx, 1, 2, &ge, 0), ENODATA);
    struct ibv_gid_entry table[8];
    assert_int_equal(ibv_query_gid_table(ctx, table, 8, 0), 2);
    assert_memory_equal(table[1].gid.raw, VB_CONTAINER(ctx->device, struct vb_device,
                                                       ibdev)->gid, 16);
    assert_int_equal(ibv_close_device(ctx), 0);
}

/* --- two QPs connected through ibv_modify_qp() --- */

struct end {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t *buf;
};

#define BUF 65536

/* ex: the QP comes from ibv_create_qp_ex() with send ops, for the ibv_wr_*() builders. */
static void
end_open(struct end *e, const char *name, bool ex)
{
    e->ctx = open_named(name);
    e->pd = ibv_alloc_pd(e->ctx);
    assert_non_null(e->pd);
    e->cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
    assert_non_null(e->cq);
    e->buf = calloc(1, BUF);
    e->mr = ibv_reg_mr(e->pd, e->buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                               IBV_ACCESS_REMOTE_READ);
    assert_non_null(e->mr);
    struct ibv_qp_init_attr ia = {.send_cq = e->cq, .recv_cq = e->cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 16, .max_recv_wr = 16,
                                          .max_send_sge = 1, .max_recv_sge = 1,
                                          .max_inline_data = 64}};
    if (ex) {
        struct ibv_qp_init_attr_ex ax = {
            .send_cq = e->cq, .recv_cq = e->cq, .qp_type = IBV_QPT_RC, .cap = ia.cap,
            .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, .pd = e->pd,
            .send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND_WITH_IMM};
        e->qp = ibv_create_qp_ex(e->ctx, &ax);
    } else {
        e->qp = ibv_create_qp(e->pd, &ia);
    }
    assert_non_null(e->qp);
    assert_int_equal(e->qp->state, IBV_QPS_RESET);
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1,
                            .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ};
    assert_int_equal(ibv_modify_qp(e->qp, &a, TO_INIT), 0);
}

static void
end_connect_retry(struct end *e, const struct end *peer, uint8_t timeout, uint8_t retry_cnt,
                  uint8_t rnr_retry)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
                            .dest_qp_num = peer->qp->qp_num, .rq_psn = 100,
                            .max_dest_rd_atomic = 1, .min_rnr_timer = 12};

    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 1;
    a.ah_attr.grh.sgid_index = 1;   /* the address, RoCE v2 (rxe's -g 1) */
    ibv_query_gid(peer->ctx, 1, 1, &a.ah_attr.grh.dgid);
    /* The RTS attributes too early: refused, and the QP stays in INIT. */
    assert_int_equal(ibv_modify_qp(e->qp, &a, TO_RTR | IBV_QP_SQ_PSN), EINVAL);
    assert_int_equal(e->qp->state, IBV_QPS_INIT);
    assert_int_equal(ibv_modify_qp(e->qp, &a, TO_RTR), 0);
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = 100;
    a.timeout = timeout;
    a.retry_cnt = retry_cnt;
    a.rnr_retry = rnr_retry;
    a.max_rd_atomic = 1;
    assert_int_equal(ibv_modify_qp(e->qp, &a, TO_RTS), 0);
    assert_int_equal(e->qp->state, IBV_QPS_RTS);
    /* What was given comes back. */
    struct ibv_qp_attr q;
    struct ibv_qp_init_attr qi;
    assert_int_equal(ibv_query_qp(e->qp, &q, IBV_QP_STATE | IBV_QP_CAP, &qi), 0);
    assert_int_equal(q.qp_state, IBV_QPS_RTS);
    assert_int_equal(q.dest_qp_num, peer->qp->qp_num);
    assert_int_equal(q.sq_psn, 100);
    assert_int_equal(q.rq_psn, 100);
    assert_int_equal(q.timeout, timeout);
    assert_int_equal(q.retry_cnt, retry_cnt);
    assert_int_equal(q.min_rnr_timer, 12);
    assert_int_equal(q.path_mtu, IBV_MTU_1024);
    assert_int_equal(qi.cap.max_inline_data, 64);
    assert_int_equal(qi.qp_type, IBV_QPT_RC);
    /* A value out of range changes nothing. */
    struct ibv_qp_attr bad = {.retry_cnt = 9};
    assert_int_equal(ibv_modify_qp(e->qp, &bad, IBV_QP_RETRY_CNT), EINVAL);
    assert_int_equal(ibv_query_qp(e->qp, &q, IBV_QP_RETRY_CNT, &qi), 0);
    assert_int_equal(q.retry_cnt, retry_cnt);
}

static void
end_connect(struct end *e, const struct end *peer)
{
    end_connect_retry(e, peer, 14, 7, 3);
}

static void
end_close(struct end *e)
{
    assert_int_equal(ibv_destroy_qp(e->qp), 0);
    assert_int_equal(ibv_dereg_mr(e->mr), 0);
    assert_int_equal(ibv_destroy_cq(e->cq), 0);
    assert_int_equal(ibv_dealloc_pd(e->pd), 0);
    assert_int_equal(ibv_close_device(e->ctx), 0);
    free(e->buf);
}

/* Polls until n completions came (the progress threads and this poll move them), 5 s. */
static int
poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
    int got = 0;

    for (int i = 0; i < 500000 && got < n; i++) {
        got += ibv_poll_cq(cq, n - got, wc + got);
        if (got < n)
            usleep(10);
    }
    return got;
}

static void
test_rc_pair(void **state)
{
    struct end a, b;
    struct ibv_wc wc[4];

    (void)state;
    end_open(&a, "ta", false);
    end_open(&b, "tb", false);
    /* Receives posted in INIT are kept until the QP has its peer. */
    struct ibv_sge rs = {(uintptr_t)b.buf, 4096, b.mr->lkey};
    struct ibv_recv_wr rwr = {.wr_id = 21, .sg_list = &rs, .num_sge = 1}, *bad_r;
    assert_int_equal(ibv_post_recv(b.qp, &rwr, &bad_r), 0);
    /* Sending before RTS is refused. */
    struct ibv_sge ss = {(uintptr_t)a.buf, 11, a.mr->lkey};
    struct ibv_send_wr swr = {.wr_id = 11, .sg_list = &ss, .num_sge = 1,
                              .opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
                              .imm_data = htonl(0x01020304)},
                       *bad_s;
    assert_int_equal(ibv_post_send(a.qp, &swr, &bad_s), EINVAL);
    assert_ptr_equal(bad_s, &swr);
    end_connect(&a, &b);
    end_connect(&b, &a);

    memcpy(a.buf, "hello verbs", 11);
    assert_int_equal(ibv_post_send(a.qp, &swr, &bad_s), 0);
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
    assert_int_equal(wc[0].opcode, IBV_WC_SEND);
    assert_int_equal(wc[0].wr_id, 11);
    assert_int_equal(poll_n(b.cq, wc, 1), 1);
    assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
    assert_int_equal(wc[0].opcode, IBV_WC_RECV);
    assert_int_equal(wc[0].wr_id, 21);
    assert_int_equal(wc[0].byte_len, 11);
    assert_true(wc[0].wc_flags & IBV_WC_WITH_IMM);
    assert_int_equal(ntohl(wc[0].imm_data), 0x01020304);
    assert_int_equal(wc[0].qp_num, b.qp->qp_num);
    assert_memory_equal(b.buf, "hello verbs", 11);

    /* An inline WRITE: the source buffer is reused at once, the bytes went as they were. */
    char src[32] = "inline bytes";
    struct ibv_sge is = {(uintptr_t)src, 12, 0};
    struct ibv_send_wr iwr = {.wr_id = 12, .sg_list = &is, .num_sge = 1,
                              .opcode = IBV_WR_RDMA_WRITE,
                              .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
                              .wr.rdma = {(uintptr_t)b.buf + 8192, b.mr->rkey}};
    assert_int_equal(ibv_post_send(a.qp, &iwr, &bad_s), 0);
    memset(src, 'x', sizeof(src));
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
    assert_int_equal(wc[0].opcode, IBV_WC_RDMA_WRITE);
    assert_memory_equal(b.buf + 8192, "inline bytes", 12);

    /* A WRITE with a wrong R_Key: the responder NAKs, the requester completes with
     * REM_ACCESS_ERR and its QP goes to the error state; the receiver's posted receive
     * then flushes when it is moved to ERR. */
    struct ibv_send_wr ewr = {.wr_id = 13, .sg_list = &ss, .num_sge = 1,
                              .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
                              .wr.rdma = {(uintptr_t)b.buf, b.mr->rkey ^ 0x5a5a}};
    assert_int_equal(ibv_post_send(a.qp, &ewr, &bad_s), 0);
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_int_equal(wc[0].wr_id, 13);
    assert_int_equal(wc[0].status, IBV_WC_REM_ACCESS_ERR);
    assert_int_equal(ibv_post_recv(b.qp, &rwr, &bad_r), 0);
    struct ibv_qp_attr err_attr = {.qp_state = IBV_QPS_ERR};
    assert_int_equal(ibv_modify_qp(b.qp, &err_attr, IBV_QP_STATE), 0);
    assert_int_equal(poll_n(b.cq, wc, 1), 1);
    assert_int_equal(wc[0].status, IBV_WC_WR_FLUSH_ERR);
    assert_int_equal(wc[0].wr_id, 21);

    /* What is not served fails cleanly. */
    struct ibv_qp_init_attr xrc = {.send_cq = a.cq, .recv_cq = a.cq,
                                   .qp_type = IBV_QPT_XRC_SEND,
                                   .cap = {.max_send_wr = 1, .max_recv_wr = 1}};
    errno = 0;
    assert_null(ibv_create_qp(a.pd, &xrc));
    assert_int_equal(errno, EOPNOTSUPP);
    errno = 0;
    assert_null(ibv_alloc_mw(a.pd, IBV_MW_TYPE_1));
    assert_int_equal(errno, EOPNOTSUPP);
    struct ibv_qp_init_attr_ex ax = {.send_cq = a.cq, .recv_cq = a.cq, .qp_type = IBV_QPT_RC,
                                     .comp_mask = IBV_QP_INIT_ATTR_PD |
                                                  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
                                     .pd = a.pd, .send_ops_flags = IBV_QP_EX_WITH_BIND_MW,
                                     .cap = {.max_send_wr = 1, .max_recv_wr = 1}};
    errno = 0;
    assert_null(ibv_create_qp_ex(a.ctx, &ax));
    assert_int_equal(errno, EOPNOTSUPP);
    struct ibv_qp_init_attr big = {.send_cq = a.cq, .recv_cq = a.cq, .qp_type = IBV_QPT_RC,
                                   .cap = {.max_send_wr = 1, .max_recv_wr = 1,
                                           .max_send_sge = VB_MAX_SGE + 1}};
    errno = 0;
    assert_null(ibv_create_qp(a.pd, &big));
    assert_int_equal(errno, EINVAL);
    /* A QP of ibv_create_qp() has no ibv_qp_ex; one with send ops has. */
    assert_null(ibv_qp_to_qp_ex(a.qp));
    ax.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
    struct ibv_qp *xq = ibv_create_qp_ex(a.ctx, &ax);
    assert_non_null(xq);
    assert_non_null(ibv_qp_to_qp_ex(xq));
    assert_int_equal(ibv_destroy_qp(xq), 0);

    end_close(&a);
    end_close(&b);
}

/* The RC stack's error statuses, as ibverbs names them: a SEND to a QP without a
 * receive, with rnr_retry 0, fails with RNR_RETRY_EXC_ERR; one to a QP that is gone,
 * after retry_cnt timeouts, with RETRY_EXC_ERR. */
static void
test_error_status(void **state)
{
    struct end a, b;
    struct ibv_wc wc[2];
    struct ibv_send_wr *bad;

    (void)state;
    end_open(&a, "ta", false);
    end_open(&b, "tb", false);
    /* An ACK timeout of 67 ms, 7 retries: the RNR NAK comes first even on a loaded host. */
    end_connect_retry(&a, &b, 14, 7, 0);
    end_connect(&b, &a);
    struct ibv_sge ss = {(uintptr_t)a.buf, 8, a.mr->lkey};
    struct ibv_send_wr swr = {.wr_id = 51, .sg_list = &ss, .num_sge = 1,
                              .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED};
    assert_int_equal(ibv_post_send(a.qp, &swr, &bad), 0);
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_int_equal(wc[0].wr_id, 51);
    assert_int_equal(wc[0].status, IBV_WC_RNR_RETRY_EXC_ERR);
    end_close(&a);

    /* b's QP is destroyed: nothing answers a's SEND (timeout 8: 1 ms, retry_cnt 1). */
    end_open(&a, "ta", false);
    struct ibv_qp_attr reset = {.qp_state = IBV_QPS_RESET};
    struct ibv_qp_attr init = {.qp_state = IBV_QPS_INIT, .port_num = 1};
    assert_int_equal(ibv_modify_qp(b.qp, &reset, IBV_QP_STATE), 0);
    assert_int_equal(ibv_modify_qp(b.qp, &init, TO_INIT), 0);
    end_connect_retry(&a, &b, 8, 1, 0);
    assert_int_equal(ibv_destroy_qp(b.qp), 0);
    struct ibv_qp_init_attr ia = {.send_cq = b.cq, .recv_cq = b.cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 1, .max_recv_wr = 1}};
    b.qp = ibv_create_qp(b.pd, &ia);      /* for end_close; another QP number */
    assert_non_null(b.qp);
    ss = (struct ibv_sge){(uintptr_t)a.buf, 8, a.mr->lkey};     /* the new a's */
    swr.wr_id = 52;
    assert_int_equal(ibv_post_send(a.qp, &swr, &bad), 0);
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_int_equal(wc[0].wr_id, 52);
    assert_int_equal(wc[0].status, IBV_WC_RETRY_EXC_ERR);
    end_close(&a);
    end_close(&b);
}

/* Two contexts of one device in one process share its port (one socket can hold UDP 4791
 * of the address), as librdmacm's context and a program's own do: both take PDs, their QPs
 * have distinct numbers and talk to each other through it, and the port outlives the
 * first context to close. */
static void
test_shared_port(void **state)
{
    struct end a, b;
    struct ibv_wc wc[2];
    struct ibv_send_wr *bad_s;
    struct ibv_recv_wr *bad_r;

    (void)state;
    end_open(&a, "ta", false);
    end_open(&b, "ta", false);
    assert_ptr_not_equal(a.ctx, b.ctx);
    assert_int_not_equal(a.qp->qp_num, b.qp->qp_num);
    end_connect(&a, &b);
    end_connect(&b, &a);
    for (int round = 0; round < 2; round++) {
        struct ibv_sge rs = {(uintptr_t)b.buf, 64, b.mr->lkey};
        struct ibv_recv_wr rwr = {.wr_id = 70 + round, .sg_list = &rs, .num_sge = 1};
        assert_int_equal(ibv_post_recv(b.qp, &rwr, &bad_r), 0);
        snprintf((char *)a.buf, 32, "shared port %d", round);
        struct ibv_sge ss = {(uintptr_t)a.buf, 14, a.mr->lkey};
        struct ibv_send_wr swr = {.wr_id = 60 + round, .sg_list = &ss, .num_sge = 1,
                                  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED};
        assert_int_equal(ibv_post_send(a.qp, &swr, &bad_s), 0);
        assert_int_equal(poll_n(a.cq, wc, 1), 1);
        assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
        assert_int_equal(poll_n(b.cq, wc, 1), 1);
        assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
        assert_int_equal(wc[0].wr_id, 70 + round);
        assert_memory_equal(b.buf, a.buf, 14);
        if (round == 0) {
            /* A third context opens and closes: the port stays, the pair goes on. */
            struct ibv_context *c = open_named("ta");
            struct ibv_pd *pd = ibv_alloc_pd(c);
            assert_non_null(pd);
            assert_int_equal(ibv_dealloc_pd(pd), 0);
            assert_int_equal(ibv_close_device(c), 0);
        }
    }
    end_close(&a);
    end_close(&b);
    /* The last user closed the port: a new context opens it again. */
    end_open(&a, "ta", false);
    end_close(&a);
}

/* The ibv_wr_*() builders of struct ibv_qp_ex (perftest's default where it has them). */
static void
test_qp_ex(void **state)
{
    struct end a, b;
    struct ibv_wc wc[4];

    (void)state;
    end_open(&a, "ta", true);
    end_open(&b, "tb", false);
    end_connect(&a, &b);
    end_connect(&b, &a);
    struct ibv_sge rs = {(uintptr_t)b.buf, 4096, b.mr->lkey};
    struct ibv_recv_wr rwr = {.wr_id = 41, .sg_list = &rs, .num_sge = 1}, *bad_r;
    assert_int_equal(ibv_post_recv(b.qp, &rwr, &bad_r), 0);
    struct ibv_qp_ex *x = ibv_qp_to_qp_ex(a.qp);
    assert_non_null(x);

    memcpy(a.buf, "written by wr", 13);
    char word[4] = "abc";
    ibv_wr_start(x);
    x->wr_id = 31;
    x->wr_flags = IBV_SEND_SIGNALED;
    ibv_wr_rdma_write(x, b.mr->rkey, (uintptr_t)b.buf + 16384);
    ibv_wr_set_sge(x, a.mr->lkey, (uintptr_t)a.buf, 13);
    x->wr_id = 32;
    ibv_wr_send_imm(x, htonl(7));
    ibv_wr_set_inline_data(x, word, 3);
    assert_int_equal(ibv_wr_complete(x), 0);
    memset(word, 0, sizeof(word));      /* inline: the bytes were taken at the call */
    assert_int_equal(poll_n(a.cq, wc, 2), 2);
    assert_int_equal(wc[0].wr_id, 31);
    assert_int_equal(wc[0].opcode, IBV_WC_RDMA_WRITE);
    assert_int_equal(wc[1].wr_id, 32);
    assert_int_equal(wc[1].status, IBV_WC_SUCCESS);
    assert_int_equal(poll_n(b.cq, wc, 1), 1);
    assert_int_equal(wc[0].wr_id, 41);
    assert_int_equal(wc[0].byte_len, 3);
    assert_int_equal(ntohl(wc[0].imm_data), 7);
    assert_memory_equal(b.buf, "abc", 3);
    assert_memory_equal(b.buf + 16384, "written by wr", 13);

    /* What the QP cannot do fails the batch, and nothing of it is sent. */
    ibv_wr_start(x);
    x->wr_id = 33;
    ibv_wr_local_inv(x, 5);
    assert_int_equal(ibv_wr_complete(x), EOPNOTSUPP);
    ibv_wr_start(x);
    ibv_wr_rdma_write(x, b.mr->rkey, (uintptr_t)b.buf);
    ibv_wr_abort(x);
    assert_int_equal(ibv_poll_cq(a.cq, 4, wc), 0);
    end_close(&a);
    end_close(&b);
}

/* --- the GID table, as rxe lays it out --- */

static void
test_gid_table(void **state)
{
    struct vb_netdev nd;
    struct vb_gid g[VB_MAX_GIDS];
    char err[RS_ERRBUF_SIZE];
    uint32_t scope;

    (void)state;
    memset(&nd, 0, sizeof(nd));
    nd.ifindex = 7;
    memcpy(nd.mac, "\x52\x54\x00\x12\x34\x56", 6);
    rs_addr_parse("fd00::1", nd.addrs[0], &scope, err);
    rs_addr_parse("fe80::5054:ff:fe12:3456", nd.addrs[1], &scope, err);    /* the default */
    rs_addr_parse("10.0.0.1", nd.addrs[2], &scope, err);
    nd.n_addrs = 3;
    /* The link-local GID of the MAC (its U/L bit flipped, ff:fe inserted) first; then the
     * IPv4 address before the IPv6 one; the interface's own fe80 equal to the default is
     * not listed twice. Each once, RoCE v2. */
    assert_int_equal(vb_gid_table_build(&nd, NULL, g, VB_MAX_GIDS), 3);
    static const uint8_t ll[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0,
                                   0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56};
    assert_memory_equal(g[0].raw, ll, 16);
    assert_memory_equal(g[1].raw, nd.addrs[2], 16);
    assert_memory_equal(g[2].raw, nd.addrs[0], 16);
    for (int i = 0; i < 3; i++)
        assert_int_equal(g[i].type, VB_GID_ROCE_V2);
    assert_int_equal(g[0].scope, 7);        /* a link-local GID takes its interface */
    assert_int_equal(g[1].scope, 0);
    /* A device named after an address lists it alone after the link-local GID. */
    assert_int_equal(vb_gid_table_build(&nd, nd.addrs[0], g, VB_MAX_GIDS), 2);
    assert_memory_equal(g[1].raw, nd.addrs[0], 16);
    /* Bounded: 16 entries, the link-local GID and 15 addresses of 16. */
    for (int i = 0; i < 16; i++)
        snprintf(err, sizeof(err), "10.0.1.%d", i + 1), rs_addr_parse(err, nd.addrs[i],
                                                                      &scope, NULL);
    nd.n_addrs = 16;
    assert_int_equal(vb_gid_table_build(&nd, NULL, g, VB_MAX_GIDS), VB_MAX_GIDS);
    assert_memory_equal(g[15].raw, nd.addrs[14], 16);
    /* A device named after an interface: rxe0=lo lists lo's addresses. */
    struct vb_device d[2];
    assert_int_equal(vb_devices_parse("rxe0=lo,bad=nosuchif0", d, 2), 1);
    assert_true(d[0].by_netdev);
    assert_int_equal(d[0].netdev.ifindex, 1);
    assert_true(d[0].n_gids >= 2);
    static const uint8_t lo4[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1};
    assert_memory_equal(d[0].gids[1].raw, lo4, 16);
}

/* --- UD QPs and address handles --- */

static void
ud_open(struct end *e, const char *name)
{
    e->ctx = open_named(name);
    e->pd = ibv_alloc_pd(e->ctx);
    e->cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
    e->buf = calloc(1, 8192);
    e->mr = ibv_reg_mr(e->pd, e->buf, 8192, IBV_ACCESS_LOCAL_WRITE);
    struct ibv_qp_init_attr ia = {.send_cq = e->cq, .recv_cq = e->cq, .qp_type = IBV_QPT_UD,
                                  .cap = {.max_send_wr = 4, .max_recv_wr = 4,
                                          .max_send_sge = 2, .max_recv_sge = 2}};
    e->qp = ibv_create_qp(e->pd, &ia);
    assert_non_null(e->qp);
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111};
    assert_int_equal(ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                                  IBV_QP_QKEY), 0);
    a.qp_state = IBV_QPS_RTR;
    assert_int_equal(ibv_modify_qp(e->qp, &a, IBV_QP_STATE), 0);
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = 1;
    assert_int_equal(ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
}

static void
ud_recv(struct end *e, uint64_t id)
{
    struct ibv_sge s[2] = {{(uintptr_t)e->buf, 50, e->mr->lkey},
                           {(uintptr_t)e->buf + 4096, 2000, e->mr->lkey}};
    struct ibv_recv_wr r = {.wr_id = id, .sg_list = s, .num_sge = 2}, *bad;

    assert_int_equal(ibv_post_recv(e->qp, &r, &bad), 0);
}

static void
ud_send(struct end *e, struct ibv_ah *ah, uint32_t qpn, uint64_t id, const char *text)
{
    size_t n = strlen(text), half = n / 2;
    memcpy(e->buf + 100, text, half);
    memcpy(e->buf + 200, text + half, n - half);
    struct ibv_sge s[2] = {{(uintptr_t)e->buf + 100, (uint32_t)half, e->mr->lkey},
                           {(uintptr_t)e->buf + 200, (uint32_t)(n - half), e->mr->lkey}};
    struct ibv_send_wr w = {.wr_id = id, .sg_list = s, .num_sge = 2, .opcode = IBV_WR_SEND,
                            .send_flags = IBV_SEND_SIGNALED}, *bad;
    w.wr.ud.ah = ah;
    w.wr.ud.remote_qpn = qpn;
    w.wr.ud.remote_qkey = 0x11111111;
    assert_int_equal(ibv_post_send(e->qp, &w, &bad), 0);
}

/* A SEND of two elements to an address handle, landing after the 40 bytes of the
 * sender's IP header in a receive of two elements; the way back made from its
 * completion (ibv_create_ah_from_wc), and the answer along it. */
static void
test_ud_address_handles(void **state)
{
    struct end a, b;
    struct ibv_wc wc[2];
    union ibv_gid ga, gb;

    (void)state;
    ud_open(&a, "ta");
    ud_open(&b, "tb");
    ibv_query_gid(a.ctx, 1, 1, &ga);
    ibv_query_gid(b.ctx, 1, 1, &gb);
    struct ibv_ah_attr at = {.is_global = 1, .port_num = 1,
                             .grh = {.dgid = gb, .sgid_index = 1, .hop_limit = 64}};
    /* An index past the table; lo has no link-local address; an AH without a GRH names
     * nobody on RoCE. */
    at.grh.sgid_index = 2;
    errno = 0;
    assert_null(ibv_create_ah(a.pd, &at));
    assert_int_equal(errno, EINVAL);
    at.grh.sgid_index = 0;
    errno = 0;
    assert_null(ibv_create_ah(a.pd, &at));
    assert_int_equal(errno, EADDRNOTAVAIL);
    at.grh.sgid_index = 1;
    at.is_global = 0;
    assert_null(ibv_create_ah(a.pd, &at));
    at.is_global = 1;
    struct ibv_ah *ah = ibv_create_ah(a.pd, &at);
    assert_non_null(ah);
    /* The PD is in use while the AH lives. */
    assert_int_equal(ibv_dealloc_pd(a.pd), EBUSY);

    ud_recv(&b, 31);
    ud_send(&a, ah, b.qp->qp_num, 41, "datagram over roce");
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
    assert_int_equal(poll_n(b.cq, wc, 1), 1);
    assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
    assert_int_equal(wc[0].wr_id, 31);
    assert_int_equal(wc[0].byte_len, 40 + 18);
    assert_true(wc[0].wc_flags & IBV_WC_GRH);
    assert_int_equal(wc[0].src_qp, a.qp->qp_num);
    /* The GRH room: 20 zeros, then the IPv4 header (from a, to b); the payload goes on
     * past the first element (50 bytes) into the second. */
    assert_int_equal(b.buf[20], 0x45);
    assert_memory_equal(b.buf + 32, ga.raw + 12, 4);
    assert_memory_equal(b.buf + 36, gb.raw + 12, 4);
    char got[19] = {0};
    memcpy(got, b.buf + 40, 10);
    memcpy(got + 10, b.buf + 4096, 8);
    assert_string_equal(got, "datagram over roce");

    struct ibv_ah_attr back;
    assert_int_equal(ibv_init_ah_from_wc(b.ctx, 1, &wc[0], (struct ibv_grh *)(void *)b.buf,
                                         &back), 0);
    assert_int_equal(back.is_global, 1);
    assert_int_equal(back.grh.sgid_index, 1);
    assert_memory_equal(back.grh.dgid.raw, ga.raw, 16);
    struct ibv_ah *reply = ibv_create_ah_from_wc(b.pd, &wc[0], (struct ibv_grh *)(void *)b.buf,
                                                 1);
    assert_non_null(reply);
    ud_recv(&a, 32);
    ud_send(&b, reply, wc[0].src_qp, 42, "and back");
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_int_equal(wc[0].wr_id, 32);
    assert_int_equal(wc[0].byte_len, 48);
    assert_int_equal(wc[0].src_qp, b.qp->qp_num);
    /* A completion without a GRH cannot be turned around. */
    wc[0].wc_flags = 0;
    assert_int_equal(ibv_init_ah_from_wc(a.ctx, 1, &wc[0], (struct ibv_grh *)(void *)a.buf,
                                         &back), -1);
    assert_int_equal(ibv_destroy_ah(reply), 0);
    assert_int_equal(ibv_destroy_ah(ah), 0);
    end_close(&a);
    end_close(&b);
}

/* --- what the device takes, and no more --- */

static void
test_limits(void **state)
{
    struct ibv_context *ctx = open_named("ta");
    struct ibv_pd *pd = ibv_alloc_pd(ctx);
    struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
    struct ibv_device_attr da;

    (void)state;
    assert_int_equal(ibv_query_device(ctx, &da), 0);
    assert_int_equal(da.max_sge, 32);
    assert_int_equal(da.max_srq_sge, 32);
    /* 32 elements and 1024 bytes of inline data per request; more is refused. */
    struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 2, .max_recv_wr = 2,
                                          .max_send_sge = 32, .max_recv_sge = 16,
                                          .max_inline_data = 1024}};
    struct ibv_qp *qp = ibv_create_qp(pd, &ia);
    assert_non_null(qp);
    ia.cap.max_inline_data = 1025;
    errno = 0;
    assert_null(ibv_create_qp(pd, &ia));
    assert_int_equal(errno, EINVAL);
    ia.cap.max_inline_data = 0;
    ia.cap.max_send_wr = VB_MAX_QP_WR + 1;
    assert_null(ibv_create_qp(pd, &ia));
    /* Regions: none of length 0, none past the largest, none over unmapped pages. */
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *m = mmap(NULL, (size_t)page * 3, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(munmap(m + page, (size_t)page), 0);     /* a hole in the middle */
    errno = 0;
    assert_null(ibv_reg_mr(pd, m, 0, IBV_ACCESS_LOCAL_WRITE));
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_null(ibv_reg_mr(pd, m, (size_t)page * 3, IBV_ACCESS_LOCAL_WRITE));
    assert_int_equal(errno, EFAULT);
    errno = 0;
    assert_null(ibv_reg_mr(pd, m, VB_MAX_MR_SIZE + 1, IBV_ACCESS_LOCAL_WRITE));
    assert_int_equal(errno, EINVAL);
    struct ibv_mr *mr = ibv_reg_mr(pd, m, (size_t)page, IBV_ACCESS_LOCAL_WRITE);
    assert_non_null(mr);
    /* 256 regions a device (max_mr); the 257th is refused. */
    assert_int_equal(da.max_mr, 256);
    struct ibv_mr *many[256];
    int n = 0;
    while (n < 256 && (many[n] = ibv_reg_mr(pd, m, 64, IBV_ACCESS_LOCAL_WRITE)) != NULL)
        n++;
    assert_int_equal(n, 255);      /* with the one above, 256 */
    assert_int_equal(errno, ENOMEM);
    for (int i = 0; i < n; i++)
        assert_int_equal(ibv_dereg_mr(many[i]), 0);
    /* A PD with a QP or an MR in it stays. */
    assert_int_equal(ibv_dealloc_pd(pd), EBUSY);
    assert_int_equal(ibv_destroy_qp(qp), 0);
    assert_int_equal(ibv_dealloc_pd(pd), EBUSY);
    assert_int_equal(ibv_dereg_mr(mr), 0);
    assert_int_equal(ibv_dealloc_pd(pd), 0);
    munmap(m, (size_t)page);
    munmap(m + 2 * page, (size_t)page);
    assert_int_equal(ibv_destroy_cq(cq), 0);
    assert_int_equal(ibv_close_device(ctx), 0);
}

/* --- asynchronous events --- */

static bool
async_next(struct ibv_context *ctx, struct ibv_async_event *ev)
{
    for (int i = 0; i < 5000; i++) {
        if (ibv_get_async_event(ctx, ev) == 0) {
            ibv_ack_async_event(ev);
            return true;
        }
        assert_int_equal(errno, EAGAIN);
        usleep(1000);
    }
    return false;
}

/* An SRQ that runs below its limit says so once; a QP of it put in error says it took its
 * last WQE; a QP in RTR hears COMM_EST with the first packet; a WRITE with a bad R_Key
 * puts the responder's QP in error with QP_ACCESS_ERR. async_fd is non-blocking here, as
 * programs that poll it make it. */
static void
test_async_events(void **state)
{
    struct end a, b;
    struct ibv_async_event ev;
    struct ibv_wc wc[4];

    (void)state;
    end_open(&a, "ta", false);
    end_open(&b, "tb", false);
    assert_int_equal(fcntl(b.ctx->async_fd, F_SETFL, O_NONBLOCK), 0);
    assert_int_equal(ibv_get_async_event(b.ctx, &ev), -1);
    assert_int_equal(errno, EAGAIN);
    /* b's QP in RTR only: the first packet tells it the peer is there. */
    struct ibv_qp_attr r = {.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
                            .dest_qp_num = a.qp->qp_num, .rq_psn = 100,
                            .max_dest_rd_atomic = 1, .min_rnr_timer = 12};
    r.ah_attr.is_global = 1;
    r.ah_attr.port_num = 1;
    r.ah_attr.grh.sgid_index = 1;
    ibv_query_gid(a.ctx, 1, 1, &r.ah_attr.grh.dgid);
    assert_int_equal(ibv_modify_qp(b.qp, &r, TO_RTR), 0);
    end_connect(&a, &b);
    struct ibv_sge s = {(uintptr_t)a.buf, 64, a.mr->lkey};
    struct ibv_send_wr w = {.wr_id = 1, .sg_list = &s, .num_sge = 1,
                            .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED},
                       *bad;
    w.wr.rdma.remote_addr = (uintptr_t)b.buf;
    w.wr.rdma.rkey = b.mr->rkey;
    assert_int_equal(ibv_post_send(a.qp, &w, &bad), 0);
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_true(async_next(b.ctx, &ev));
    assert_int_equal(ev.event_type, IBV_EVENT_COMM_EST);
    assert_ptr_equal(ev.element.qp, b.qp);
    /* A bad R_Key: the requester's completion says REM_ACCESS_ERR, the responder's
     * application hears QP_ACCESS_ERR and finds its QP in error. */
    w.wr_id = 2;
    w.wr.rdma.rkey = b.mr->rkey ^ 0x100;
    assert_int_equal(ibv_post_send(a.qp, &w, &bad), 0);
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_int_equal(wc[0].status, IBV_WC_REM_ACCESS_ERR);
    assert_true(async_next(b.ctx, &ev));
    assert_int_equal(ev.event_type, IBV_EVENT_QP_ACCESS_ERR);
    assert_ptr_equal(ev.element.qp, b.qp);
    struct ibv_qp_attr q;
    struct ibv_qp_init_attr qi;
    assert_int_equal(ibv_query_qp(b.qp, &q, IBV_QP_STATE, &qi), 0);
    assert_int_equal(q.qp_state, IBV_QPS_ERR);

    /* An SRQ with a limit of 2, and a QP of it. */
    struct ibv_srq_init_attr sa = {.attr = {.max_wr = 8, .max_sge = 2, .srq_limit = 0}};
    struct ibv_srq *srq = ibv_create_srq(b.pd, &sa);
    assert_non_null(srq);
    struct ibv_srq_attr lim = {.srq_limit = 2};
    assert_int_equal(ibv_modify_srq(srq, &lim, IBV_SRQ_LIMIT), 0);
    for (int i = 0; i < 3; i++) {
        struct ibv_sge rs = {(uintptr_t)b.buf + 1000u * (unsigned)i, 100, b.mr->lkey};
        struct ibv_recv_wr rw = {.wr_id = 50u + (unsigned)i, .sg_list = &rs, .num_sge = 1},
                           *rbad;
        assert_int_equal(ibv_post_srq_recv(srq, &rw, &rbad), 0);
    }
    struct ibv_qp_init_attr ia = {.send_cq = b.cq, .recv_cq = b.cq, .srq = srq,
                                  .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 4, .max_inline_data = 64}};
    struct ibv_qp *sq = ibv_create_qp(b.pd, &ia);
    assert_non_null(sq);
    assert_int_equal(ibv_destroy_srq(srq), EBUSY);
    ibv_destroy_qp(a.qp);
    struct ibv_qp_init_attr ai = {.send_cq = a.cq, .recv_cq = a.cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 4, .max_recv_wr = 4,
                                          .max_send_sge = 1, .max_recv_sge = 1,
                                          .max_inline_data = 64}};
    a.qp = ibv_create_qp(a.pd, &ai);
    struct ibv_qp_attr init = {.qp_state = IBV_QPS_INIT, .port_num = 1,
                               .qp_access_flags = IBV_ACCESS_REMOTE_WRITE};
    assert_int_equal(ibv_modify_qp(a.qp, &init, TO_INIT), 0);
    assert_int_equal(ibv_modify_qp(sq, &init, TO_INIT), 0);
    struct end bs = b;
    bs.qp = sq;
    end_connect(&a, &bs);
    end_connect(&bs, &a);
    w.opcode = IBV_WR_SEND;
    w.wr_id = 3;
    assert_int_equal(ibv_post_send(a.qp, &w, &bad), 0);
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
    assert_int_equal(poll_n(b.cq, wc, 1), 1);
    assert_int_equal(wc[0].wr_id, 50);
    assert_int_equal(wc[0].qp_num, sq->qp_num);
    /* Two left: not below 2 yet. One more SEND leaves one: the limit fires, once. */
    assert_int_equal(ibv_post_send(a.qp, &w, &bad), 0);
    assert_int_equal(poll_n(b.cq, wc, 1), 1);
    bool limit = false;
    while (!limit && async_next(b.ctx, &ev))
        limit = ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED && ev.element.srq == srq;
    assert_true(limit);
    struct ibv_srq_attr qa;
    assert_int_equal(ibv_query_srq(srq, &qa), 0);
    assert_int_equal(qa.srq_limit, 0);
    assert_int_equal(qa.max_wr, 8);
    /* The QP of the SRQ in error: Last WQE Reached. */
    struct ibv_qp_attr err_attr = {.qp_state = IBV_QPS_ERR};
    assert_int_equal(ibv_modify_qp(sq, &err_attr, IBV_QP_STATE), 0);
    assert_true(async_next(b.ctx, &ev));
    assert_int_equal(ev.event_type, IBV_EVENT_QP_LAST_WQE_REACHED);
    assert_ptr_equal(ev.element.qp, sq);
    assert_int_equal(ibv_destroy_qp(sq), 0);
    assert_int_equal(ibv_destroy_srq(srq), 0);
    end_close(&a);
    end_close(&b);
}

/* A SEND into a receive WQE the responder cannot use (its L_Key names no region): the
 * responder's QP goes to error with IBV_EVENT_QP_FATAL and a LOC_PROT_ERR completion, the
 * requester's SEND completes REM_OP_ERR (IBTA 11.6.3.2, the remote operational error). */
static void
test_qp_fatal(void **state)
{
    struct end a, b;
    struct ibv_async_event ev;
    struct ibv_wc wc[1];

    (void)state;
    end_open(&a, "ta", false);
    end_open(&b, "tb", false);
    end_connect(&a, &b);
    end_connect(&b, &a);
    assert_int_equal(fcntl(b.ctx->async_fd, F_SETFL, O_NONBLOCK), 0);
    struct ibv_sge rs = {(uintptr_t)b.buf, 64, b.mr->lkey ^ 0x100};
    struct ibv_recv_wr rw = {.wr_id = 7, .sg_list = &rs, .num_sge = 1}, *rbad;
    assert_int_equal(ibv_post_recv(b.qp, &rw, &rbad), 0);
    struct ibv_sge s = {(uintptr_t)a.buf, 64, a.mr->lkey};
    struct ibv_send_wr w = {.wr_id = 8, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
                            .send_flags = IBV_SEND_SIGNALED},
                       *bad;
    assert_int_equal(ibv_post_send(a.qp, &w, &bad), 0);
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_int_equal(wc[0].wr_id, 8);
    assert_int_equal(wc[0].status, IBV_WC_REM_OP_ERR);
    assert_int_equal(poll_n(b.cq, wc, 1), 1);
    assert_int_equal(wc[0].wr_id, 7);
    assert_int_equal(wc[0].status, IBV_WC_LOC_PROT_ERR);
    assert_true(async_next(b.ctx, &ev));
    assert_int_equal(ev.event_type, IBV_EVENT_QP_FATAL);
    assert_ptr_equal(ev.element.qp, b.qp);
    struct ibv_qp_attr q;
    struct ibv_qp_init_attr qi;
    assert_int_equal(ibv_query_qp(b.qp, &q, IBV_QP_STATE, &qi), 0);
    assert_int_equal(q.qp_state, IBV_QPS_ERR);
    assert_int_equal(ibv_get_async_event(b.ctx, &ev), -1);   /* once */
    assert_int_equal(errno, EAGAIN);
    end_close(&a);
    end_close(&b);
}

/* A CQ that overflows raises IBV_EVENT_CQ_ERR, once, and loses no completion: those that
 * did not fit wait in their QP until the application makes room. */
/* A writes 4 KiB into B's memory, B polling its empty CQ the while; A's completion. */
static void
write_past(struct end *a, struct end *b, struct ibv_send_wr *wwr)
{
    struct ibv_send_wr *bad_s;
    struct ibv_wc wc[2];
    int got = 0;

    assert_int_equal(ibv_post_send(a->qp, wwr, &bad_s), 0);
    for (int i = 0; i < 5000000 && got == 0; i++) {
        assert_int_equal(ibv_poll_cq(b->cq, 2, wc), 0);
        got = ibv_poll_cq(a->cq, 1, wc);
    }
    assert_int_equal(got, 1);
    assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
}

/* An application that polls a CQ the traffic does not reach (perftest's server under -R
 * polls its key exchange's CQ while the client writes into its memory) leaves the port
 * to the progress thread, which no longer stands by for its calls; WRITEs into its
 * memory are answered meanwhile; a completion ends the idleness, and so does a post. One
 * that polls while no traffic comes (a ping-pong whose peer is slow) goes on polling. */
static void
test_idle_poller(void **state)
{
    struct end a, b;
    struct ibv_wc wc[2];

    (void)state;
    end_open(&a, "ta", false);
    end_open(&b, "tb", false);
    end_connect(&a, &b);
    end_connect(&b, &a);
    struct vb_port *port = vb_ctx(b.ctx)->port;

    /* No traffic: B polls nothing for 2 ms and more, and is not idle. */
    uint64_t start = rs_rc_now_ns();
    for (int polls = 0; polls < 100 || rs_rc_now_ns() - start < 2000000; polls++)
        assert_int_equal(ibv_poll_cq(b.cq, 2, wc), 0);
    assert_false(vb_app_idle(port));

    /* A writes into B's memory while B goes on polling its empty CQ: the traffic flows
     * past B's CQ, and the thread takes the port back from standing by. Without
     * idleness, calls this close together keep it standing by for as long as they go on. */
    struct ibv_sge ws = {(uintptr_t)a.buf, 4096, a.mr->lkey};
    struct ibv_send_wr wwr = {.wr_id = 31, .sg_list = &ws, .num_sge = 1,
                              .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
                              .wr.rdma = {(uintptr_t)b.buf, b.mr->rkey}},
                       *bad_s;
    memset(a.buf, 0x5c, 4096);
    int writes = 0;
    for (; writes < 20000 && (!vb_app_idle(port) ||
                              __atomic_load_n(&port->standing_by, __ATOMIC_SEQ_CST));
         writes++)
        write_past(&a, &b, &wwr);
    assert_true(vb_app_idle(port));
    assert_false(__atomic_load_n(&port->standing_by, __ATOMIC_SEQ_CST));
    /* Idle, B's memory is still written. */
    memset(a.buf, 0x5d, 4096);
    write_past(&a, &b, &wwr);
    assert_int_equal(b.buf[0], 0x5d);
    assert_int_equal(b.buf[4095], 0x5d);
    assert_true(vb_app_idle(port));
    int got;

    /* A SEND: B's idle poll returns its receive, and B is no longer idle. */
    struct ibv_sge rs = {(uintptr_t)b.buf, 4096, b.mr->lkey};
    struct ibv_recv_wr rwr = {.wr_id = 41, .sg_list = &rs, .num_sge = 1}, *bad_r;
    assert_int_equal(ibv_post_recv(b.qp, &rwr, &bad_r), 0);
    assert_true(vb_app_idle(port));
    wwr.opcode = IBV_WR_SEND;
    wwr.send_flags = 0;
    assert_int_equal(ibv_post_send(a.qp, &wwr, &bad_s), 0);
    got = 0;
    for (int i = 0; i < 500000 && got == 0; i++)
        got = ibv_poll_cq(b.cq, 2, wc);
    assert_int_equal(got, 1);
    assert_int_equal(wc[0].wr_id, 41);
    assert_int_equal(wc[0].opcode, IBV_WC_RECV);
    assert_false(vb_app_idle(port));

    /* Idle again, then a post of B's own ends it too. */
    wwr.opcode = IBV_WR_RDMA_WRITE;
    wwr.send_flags = IBV_SEND_SIGNALED;
    for (writes = 0; writes < 20000 && !vb_app_idle(port); writes++)
        write_past(&a, &b, &wwr);
    assert_true(vb_app_idle(port));
    struct ibv_sge bs = {(uintptr_t)b.buf, 8, b.mr->lkey};
    struct ibv_send_wr bwr = {.wr_id = 51, .sg_list = &bs, .num_sge = 1,
                              .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
                              .wr.rdma = {(uintptr_t)a.buf, a.mr->rkey}};
    assert_int_equal(ibv_post_send(b.qp, &bwr, &bad_s), 0);
    assert_false(vb_app_idle(port));
    assert_int_equal(poll_n(b.cq, wc, 1), 1);
    assert_int_equal(wc[0].wr_id, 51);
    assert_int_equal(wc[0].status, IBV_WC_SUCCESS);

    end_close(&a);
    end_close(&b);
}

/* A port that learnt to wake its thread whenever the application leaves after a completion
 * (packets waited while it was quiet, as during a connection's setup) unlearns it when the
 * application keeps calling: a SEND/WRITE loop that polls on does the work itself, and a wake
 * per completion would take the lock and a processor from it. A quiet spell with packets
 * waiting teaches it again. */
static void
test_wake_on_leave_unlearnt(void **state)
{
    struct end a, b;
    struct ibv_wc wc[2];
    struct ibv_send_wr *bad_s;

    (void)state;
    end_open(&a, "ta", false);
    end_open(&b, "tb", false);
    end_connect(&a, &b);
    end_connect(&b, &a);
    struct vb_port *port = vb_ctx(b.ctx)->port;

    /* As learnt: every completion B polls rings the thread while it stands by. */
    __atomic_store_n(&port->wake_on_leave, true, __ATOMIC_SEQ_CST);
    struct ibv_sge bs = {(uintptr_t)b.buf, 8, b.mr->lkey};
    struct ibv_send_wr bwr = {.wr_id = 61, .sg_list = &bs, .num_sge = 1,
                              .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
                              .wr.rdma = {(uintptr_t)a.buf, a.mr->rkey}};
    int writes = 0;
    for (; writes < 20000 && __atomic_load_n(&port->wake_on_leave, __ATOMIC_SEQ_CST);
         writes++) {
        assert_int_equal(ibv_post_send(b.qp, &bwr, &bad_s), 0);
        int got = 0;
        for (int i = 0; i < 5000000 && got == 0; i++)
            got = ibv_poll_cq(b.cq, 2, wc);
        assert_int_equal(got, 1);
        assert_int_equal(wc[0].wr_id, 61);
        assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
    }
    assert_false(__atomic_load_n(&port->wake_on_leave, __ATOMIC_SEQ_CST));
    assert_true(writes >= 8);    /* VAIN_WAKES_MAX more wakes found B calling than not */

    /* B goes quiet; A's SEND waits for B's thread, which finds it after its standby
     * ended and learns again. */
    struct ibv_sge rs = {(uintptr_t)b.buf, 64, b.mr->lkey};
    struct ibv_recv_wr rwr = {.wr_id = 71, .sg_list = &rs, .num_sge = 1}, *bad_r;
    assert_int_equal(ibv_post_recv(b.qp, &rwr, &bad_r), 0);
    struct ibv_sge as = {(uintptr_t)a.buf, 64, a.mr->lkey};
    struct ibv_send_wr awr = {.wr_id = 72, .sg_list = &as, .num_sge = 1,
                              .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED},
                       *bad_a;
    assert_int_equal(ibv_post_send(a.qp, &awr, &bad_a), 0);
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_int_equal(wc[0].wr_id, 72);
    assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
    for (int i = 0; i < 500000 && !__atomic_load_n(&port->wake_on_leave, __ATOMIC_SEQ_CST);
         i++)
        usleep(10);
    assert_true(__atomic_load_n(&port->wake_on_leave, __ATOMIC_SEQ_CST));
    assert_int_equal(poll_n(b.cq, wc, 1), 1);
    assert_int_equal(wc[0].wr_id, 71);

    end_close(&a);
    end_close(&b);
}

/* Received packets before timers on the library's own paths, as a NIC takes an ACK
 * whatever the application does: A's progress thread is held off (the test holds A's
 * port lock, as an application's call does) while A's WRITE is acknowledged, the ACK
 * waits in A's socket and A's retransmission timer (8.2 us) has passed. Then the library
 * progresses as ibv_post_send() makes it after a post, and as ibv_poll_cq() does: neither
 * may retransmit, and the poll completes the WRITE with the ACK it read. */
static void
test_packets_before_timers(void **state)
{
    struct end a, b;
    struct ibv_wc wc[2];

    (void)state;
    end_open(&a, "ta", false);
    end_open(&b, "tb", false);
    end_connect_retry(&a, &b, 1, 7, 3);
    end_connect(&b, &a);
    struct vb_port *pa = vb_ctx(a.ctx)->port;
    volatile uint8_t *landed = (volatile uint8_t *)b.buf + 63;
    memset(a.buf, 0x6e, 64);

    pthread_mutex_lock(&pa->lock);
    const struct rs_rc_counters *ca = rs_rc_counters_get(pa->rc);
    uint64_t retransmits = ca->retransmits, timeouts = ca->timeouts;
    struct ibv_sge ws = {(uintptr_t)a.buf, 64, a.mr->lkey};
    struct rs_rc_send_wr w = {.wr_id = 81, .opcode = IBV_WR_RDMA_WRITE,
                              .flags = RS_RC_SEND_SIGNALED,
                              .sg_list = (const struct rs_rc_sge *)(const void *)&ws,
                              .num_sge = 1, .remote_addr = (uintptr_t)b.buf,
                              .rkey = b.mr->rkey};
    /* Nothing is asserted with the lock held: a failure would leave it held. */
    int posted = vb_post_one(vb_qp(a.qp), &w);              /* ibv_post_send()'s steps */
    vb_app_post(pa);
    vb_links_flush(pa);                                     /* the WRITE goes now */
    for (int i = 0; posted == 0 && i < 1000000000 && *landed != 0x6e; i++)
        ;                                                   /* B executes it, and ACKs */
    struct pollfd pfd = {rs_rc_udp_fd(pa->links[0].udp), POLLIN, 0};
    int acked = poll(&pfd, 1, 10000);                       /* the ACK waits, unread */
    uint64_t due = rs_rc_next_deadline(pa->rc);
    while (due != RS_RC_INFINITE && rs_rc_now_ns() <= due)
        ;                                                   /* A's timer has passed */
    vb_app_post(pa);            /* the post path: sends what was posted, no timer fires */
    uint64_t post_retx = ca->retransmits - retransmits, post_tmo = ca->timeouts - timeouts;
    vb_app_poll(pa);            /* the poll path: the ACK is read before the timers run */
    uint64_t poll_retx = ca->retransmits - retransmits, poll_tmo = ca->timeouts - timeouts;
    pthread_mutex_unlock(&pa->lock);
    assert_int_equal(posted, 0);
    assert_int_equal(*landed, 0x6e);
    assert_int_equal(acked, 1);
    assert_true(due != RS_RC_INFINITE);
    assert_int_equal(post_retx, 0);
    assert_int_equal(post_tmo, 0);
    assert_int_equal(poll_retx, 0);
    assert_int_equal(poll_tmo, 0);
    assert_int_equal(poll_n(a.cq, wc, 1), 1);
    assert_int_equal(wc[0].wr_id, 81);
    assert_int_equal(wc[0].status, IBV_WC_SUCCESS);

    end_close(&a);
    end_close(&b);
}

/* Whether this process may run a thread under SCHED_FIFO, as the progress thread tries. */
static bool
may_fifo(void)
{
    struct sched_param was, fifo = {.sched_priority = sched_get_priority_min(SCHED_FIFO)};
    int policy;

    if (pthread_getschedparam(pthread_self(), &policy, &was) != 0 ||
        pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo) != 0)
        return false;
    pthread_setschedparam(pthread_self(), policy, &was);
    return true;
}

/* A's application: one call, then silent, with its thread spinning (runnable, as one
 * taken off the processor by a busy machine is) or asleep in read() (as one waiting on its
 * TCP socket is), until told to stop. */
struct silent_app {
    struct vb_port *port;
    bool spin;
    int called, stop;               /* atomic */
    int pipe[2];
};

static void *
silent_app_main(void *arg)
{
    struct silent_app *s = arg;
    char c;

    pthread_mutex_lock(&s->port->lock);
    vb_app_post(s->port);
    pthread_mutex_unlock(&s->port->lock);
    __atomic_store_n(&s->called, 1, __ATOMIC_SEQ_CST);
    if (s->spin) {
        while (!__atomic_load_n(&s->stop, __ATOMIC_SEQ_CST))
            ;
    } else if (read(s->pipe[0], &c, 1) != 1) {
        abort();
    }
    return NULL;
}

/* B writes 64 bytes of mark into A while A's application is silent; true when the WRITE
 * landed and completed, with no call of A's. */
static bool
write_to_silent(struct end *a, struct end *b, bool spin, uint8_t mark)
{
    struct vb_port *pa = vb_ctx(a->ctx)->port;
    struct silent_app s = {.port = pa, .spin = spin};
    struct ibv_wc wc[1];
    pthread_t th;

    assert_int_equal(pipe(s.pipe), 0);
    memset(b->buf, mark, 64);
    assert_int_equal(pthread_create(&th, NULL, silent_app_main, &s), 0);
    while (!__atomic_load_n(&s.called, __ATOMIC_SEQ_CST))
        usleep(100);
    pthread_mutex_lock(&pa->lock);
    uint64_t calls = pa->app_calls;
    pthread_mutex_unlock(&pa->lock);
    struct ibv_sge sg = {(uintptr_t)b->buf, 64, b->mr->lkey};
    struct ibv_send_wr wr = {.wr_id = mark, .sg_list = &sg, .num_sge = 1,
                             .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
                             .wr.rdma = {(uintptr_t)a->buf, a->mr->rkey}}, *bad;
    assert_int_equal(ibv_post_send(b->qp, &wr, &bad), 0);
    bool done = poll_n(b->cq, wc, 1) == 1 && wc[0].status == IBV_WC_SUCCESS &&
                a->buf[63] == mark;
    pthread_mutex_lock(&pa->lock);
    done = done && pa->app_calls == calls;
    pthread_mutex_unlock(&pa->lock);
    __atomic_store_n(&s.stop, 1, __ATOMIC_SEQ_CST);
    assert_int_equal(write(s.pipe[1], "x", 1), 1);
    pthread_join(th, NULL);
    close(s.pipe[0]);
    close(s.pipe[1]);
    return done;
}

/* Rescues: A's application called (its thread stands by), then fell silent with its
 * thread runnable, while B's WRITE waited in A's socket: A's thread serves the port
 * (a rescue, under SCHED_FIFO where it may) without a call of A's, and B's WRITE lands and is
 * acknowledged. Tried up to 5 times, as a machine so busy that A's thread woke only
 * after the standby ended serves without a rescue. With A's application thread asleep
 * elsewhere, A's thread serves the WRITE too, once the standby ends: no rescue. */
static void
test_rescue(void **state)
{
    struct end a, b;
    uint64_t rescues = 0;
    int attempts = 0;

    (void)state;
    end_open(&a, "ta", false);
    end_open(&b, "tb", false);
    end_connect(&a, &b);
    end_connect(&b, &a);
    struct vb_port *pa = vb_ctx(a.ctx)->port;
    const char *priority = getenv("ROCESHARK_VERBS_PRIORITY");
    bool may = may_fifo() && (priority == NULL || strcmp(priority, "normal") != 0);

    while (attempts < 5 && rescues == 0) {
        assert_true(write_to_silent(&a, &b, true, (uint8_t)(0x40 + attempts)));
        rescues = __atomic_load_n(&pa->rescues, __ATOMIC_RELAXED);
        attempts++;
    }
    assert_true(rescues >= 1);
    pthread_mutex_lock(&pa->lock);
    assert_int_equal(pa->may_fifo, may);    /* under SCHED_FIFO where it may */
    pthread_mutex_unlock(&pa->lock);
    for (int i = 0; i < 3; i++)
        assert_true(write_to_silent(&a, &b, false, (uint8_t)(0x50 + i)));
    assert_int_equal(__atomic_load_n(&pa->rescues, __ATOMIC_RELAXED), rescues);

    end_close(&a);
    end_close(&b);
}

static void
test_cq_overflow(void **state)
{
    struct end a, b;
    struct ibv_async_event ev;
    struct ibv_wc wc[1];

    (void)state;
    end_open(&a, "ta", false);
    end_open(&b, "tb", false);
    /* a's QP made again, with room for more sends than its CQ has entries. */
    struct ibv_cq *cq = a.cq;
    assert_int_equal(ibv_destroy_qp(a.qp), 0);
    struct ibv_qp_init_attr ia = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 256, .max_recv_wr = 4,
                                          .max_send_sge = 1, .max_recv_sge = 1,
                                          .max_inline_data = 64}};
    a.qp = ibv_create_qp(a.pd, &ia);
    assert_non_null(a.qp);
    struct ibv_qp_attr init = {.qp_state = IBV_QPS_INIT, .port_num = 1,
                               .qp_access_flags = IBV_ACCESS_REMOTE_WRITE};
    assert_int_equal(ibv_modify_qp(a.qp, &init, TO_INIT), 0);
    end_connect(&a, &b);
    end_connect(&b, &a);
    assert_int_equal(fcntl(a.ctx->async_fd, F_SETFL, O_NONBLOCK), 0);
    int n = cq->cqe + 3;
    struct ibv_sge s = {(uintptr_t)a.buf, 64, a.mr->lkey};
    struct ibv_send_wr w = {.sg_list = &s, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
                            .send_flags = IBV_SEND_SIGNALED},
                       *bad;
    w.wr.rdma.remote_addr = (uintptr_t)b.buf;
    w.wr.rdma.rkey = b.mr->rkey;
    for (int i = 0; i < n; i++) {
        w.wr_id = 10u + (unsigned)i;
        assert_int_equal(ibv_post_send(a.qp, &w, &bad), 0);
    }
    /* Nobody polls: the progress thread fills the CQ and says so. */
    assert_true(async_next(a.ctx, &ev));
    assert_int_equal(ev.event_type, IBV_EVENT_CQ_ERR);
    assert_ptr_equal(ev.element.cq, cq);
    for (int i = 0; i < n; i++) {
        assert_int_equal(poll_n(cq, wc, 1), 1);
        assert_int_equal(wc[0].status, IBV_WC_SUCCESS);
        assert_int_equal(wc[0].wr_id, 10u + (unsigned)i);
    }
    assert_int_equal(ibv_get_async_event(a.ctx, &ev), -1);
    assert_int_equal(errno, EAGAIN);
    end_close(&a);
    end_close(&b);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devices_parse),
        cmocka_unit_test(test_qp_transitions),
        cmocka_unit_test(test_cq_ring),
        cmocka_unit_test(test_comp_channel),
        cmocka_unit_test(test_queries),
        cmocka_unit_test(test_rc_pair),
        cmocka_unit_test(test_shared_port),
        cmocka_unit_test(test_qp_ex),
        cmocka_unit_test(test_error_status),
        cmocka_unit_test(test_gid_table),
        cmocka_unit_test(test_ud_address_handles),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_async_events),
        cmocka_unit_test(test_qp_fatal),
        cmocka_unit_test(test_cq_overflow),
        cmocka_unit_test(test_idle_poller),
        cmocka_unit_test(test_packets_before_timers),
        cmocka_unit_test(test_rescue),
        cmocka_unit_test(test_wake_on_leave_unlearnt),
    };

    return cmocka_run_group_tests(tests, setup_devices, NULL);
}
