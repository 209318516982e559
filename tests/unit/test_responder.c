/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_responder.c - the responder service embedded as a library, without
 * the command line: its options, state, receives and memory, the stop
 * callback, and a requester of our own that WRITEs into its region through
 * its loop over loopback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cmocka.h>

#include <roceshark/transport/responder.h>

/* Addresses of loopback no other test uses, so the suite can run in parallel. */
static const uint8_t RESP_IP[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 77, 1};
static const uint8_t REQ_IP[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 77, 2};

struct endpoint {
    struct rs_rc_udp *udp;
    struct rs_rc_ctx *ctx;
};

static void
endpoint_open(struct endpoint *e, const uint8_t gid[16])
{
    struct rs_rc_udp_opts uo;
    struct rs_rc_ctx_opts co;
    char err[RS_ERRBUF_SIZE];

    rs_rc_udp_opts_init(&uo);
    memcpy(uo.gid, gid, 16);
    uo.no_raw = true;           /* no privilege needed */
    int rc = rs_rc_udp_open(&e->udp, &uo, err);
    if (rc != 0)
        fail_msg("%s", err);
    rs_rc_ctx_opts_init(&co);
    memcpy(co.local_gid, gid, 16);
    assert_int_equal(rs_rc_ctx_create(&e->ctx, &co, rs_rc_udp_link(e->udp), err), 0);
}

static void
endpoint_close(struct endpoint *e)
{
    rs_rc_ctx_destroy(e->ctx);
    rs_rc_udp_close(e->udp);
}

static void
opts_static(struct rs_responder_opts *o)
{
    rs_responder_opts_init(o);
    memcpy(o->local_gid, RESP_IP, 16);
    o->have_peer = true;
    memcpy(o->peer_gid, REQ_IP, 16);
    o->peer_qpn = 0x22;
    o->n_static = 2;
    o->recv_n = 4;
    o->listen_port = 0;
    o->attr.rq_depth = 64;
}

/* What a print function wrote, as a string the caller frees. */
static char *
printed(void (*fn)(const struct rs_responder *, FILE *), const struct rs_responder *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    fn(r, f);
    fclose(f);
    return buf;
}

static void
test_state_receives_memory(void **state)
{
    struct rs_responder_opts o;
    struct rs_responder *r;
    struct endpoint e;
    char err[RS_ERRBUF_SIZE], why[RS_ERRBUF_SIZE];

    (void)state;
    endpoint_open(&e, RESP_IP);
    opts_static(&o);
    assert_int_equal(rs_responder_open(&o, e.udp, e.ctx, &r, err), 0);
    char *s = printed(rs_responder_print_state, r);
    assert_string_equal(s, "{\"qps\": [{\"qpn\": 17, \"state\": \"RTS\", \"recv_posted\": 4}, "
                           "{\"qpn\": 18, \"state\": \"RTS\", \"recv_posted\": 4}]}\n");
    free(s);
    assert_int_equal(rs_responder_post_recvs(r, 3, 18, false, why, sizeof(why)), 3);
    assert_string_equal(why, "");
    assert_int_equal(rs_responder_post_recvs(r, 2, -1, false, why, sizeof(why)), 4);
    assert_int_equal(rs_responder_post_recvs(r, 1, 99, false, why, sizeof(why)), 0);
    assert_string_equal(why, "no QP 99");
    /* QP 18 holds 4 + 3 + 2 = 9 of 64: 60 more do not fit. */
    assert_int_equal(rs_responder_post_recvs(r, 60, 18, false, why, sizeof(why)), 55);
    assert_non_null(strstr(why, "QP 18: "));
    /* The default region: 1 MiB. */
    assert_non_null(rs_responder_memory(r, 0, 1 << 20));
    assert_non_null(rs_responder_memory(r, (1 << 20) - 1, 1));
    assert_null(rs_responder_memory(r, (1 << 20) - 1, 2));
    assert_null(rs_responder_memory(r, UINT64_MAX, 1));
    rs_responder_close(r);
    endpoint_close(&e);
}

static void
test_bad_options(void **state)
{
    struct rs_responder_opts o;
    struct rs_responder *r = (struct rs_responder *)&o;
    struct endpoint e;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    endpoint_open(&e, RESP_IP);
    opts_static(&o);
    o.n_static = RS_RESPONDER_MAX_QPS + 1;
    assert_int_equal(rs_responder_open(&o, e.udp, e.ctx, &r, err), RS_EINVAL);
    assert_null(r);
    assert_string_equal(err, "at most 256 QPs and 16 regions");
    opts_static(&o);
    o.qpn0 = 1;
    assert_int_equal(rs_responder_open(&o, e.udp, e.ctx, &r, err), RS_EINVAL);
    assert_non_null(strstr(err, "QPs 0 and 1 are special"));
    /* Everything the failed open created is gone: the QP numbers are free. */
    opts_static(&o);
    assert_int_equal(rs_responder_open(&o, e.udp, e.ctx, &r, err), 0);
    rs_responder_close(r);
    endpoint_close(&e);
}

static int stop_after;

static bool
stop_countdown(void)
{
    return stop_after-- <= 0;
}

static void
test_stop(void **state)
{
    struct rs_responder_opts o;
    struct rs_responder *r;
    struct endpoint e;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    endpoint_open(&e, RESP_IP);
    opts_static(&o);
    o.stopped = stop_countdown;
    stop_after = 3;
    assert_int_equal(rs_responder_open(&o, e.udp, e.ctx, &r, err), 0);
    assert_int_equal(rs_responder_run(r, -1, NULL, NULL, err), 0);
    assert_int_equal(stop_after, -1);
    rs_responder_close(r);
    endpoint_close(&e);
}

struct requester {
    struct endpoint e;
    struct rs_rc_qp *qp;
    int done;
    struct rs_rc_wc wc;
    int turns;
};

/* Called by the responder's loop (the eventfd is always readable): one turn
 * of our requester. The loop stops once the WRITE completed. */
static bool
requester_turn(struct rs_responder *r, void *arg)
{
    struct requester *q = arg;
    char err[RS_ERRBUF_SIZE];

    (void)r;
    assert_true(rs_rc_udp_poll(q->e.udp, q->e.ctx, 0, err) >= 0);
    if (rs_rc_poll_cq(q->qp, &q->wc, 1) == 1)
        q->done = 1;
    return !q->done && ++q->turns < 200000;
}

static void
test_write_through_the_loop(void **state)
{
    struct rs_responder_opts o;
    struct rs_responder *r;
    struct endpoint resp;
    struct requester q = {0};
    struct rs_rc_qp_attr a;
    struct rs_rc_mr mr;
    uint64_t rkey = 0, va = 0;
    char err[RS_ERRBUF_SIZE];
    static uint8_t data[3000];

    (void)state;
    endpoint_open(&resp, RESP_IP);
    opts_static(&o);
    o.n_static = 1;
    assert_int_equal(rs_responder_open(&o, resp.udp, resp.ctx, &r, err), 0);
    char *start = printed(rs_responder_print_start, r);
    assert_true(rs_rc_json_u64(start, "rkey", &rkey));
    assert_true(rs_rc_json_u64(start, "va", &va));
    free(start);

    endpoint_open(&q.e, REQ_IP);
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(i * 7 + 1);
    assert_int_equal(rs_rc_mr_reg(q.e.ctx, data, sizeof(data), 0, 0, RS_RC_ACCESS_LOCAL_WRITE,
                                  &mr, err), 0);
    rs_rc_qp_attr_init(&a);
    a.qpn = 0x22;
    a.dest_qpn = 0x11;
    memcpy(a.peer_gid, RESP_IP, 16);
    assert_int_equal(rs_rc_qp_create(q.e.ctx, &a, &q.qp, err), 0);
    struct rs_rc_send_wr wr = {.wr_id = 7, .opcode = RS_RC_WR_RDMA_WRITE,
                               .flags = RS_RC_SEND_SIGNALED,
                               .sge = {mr.va, sizeof(data), mr.lkey},
                               .remote_addr = va + 100, .rkey = (uint32_t)rkey};
    assert_int_equal(rs_rc_post_send(q.qp, &wr, err), 0);

    int fd = eventfd(1, 0);
    assert_true(fd >= 0);
    assert_int_equal(rs_responder_run(r, fd, requester_turn, &q, err), 0);
    close(fd);
    assert_int_equal(q.done, 1);
    assert_int_equal(q.wc.status, RS_RC_WC_SUCCESS);
    assert_int_equal(q.wc.wr_id, 7);
    const uint8_t *mem = rs_responder_memory(r, 100, sizeof(data));
    assert_non_null(mem);
    assert_memory_equal(mem, data, sizeof(data));
    assert_int_equal(rs_rc_counters_get(rs_responder_ctx(r))->exec_write, 1);
    rs_responder_close(r);
    endpoint_close(&resp);
    endpoint_close(&q.e);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_receives_memory),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_write_through_the_loop),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
