/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_rc.c - the RC transport's parts in isolation: 24-bit PSN arithmetic,
 * memory region checks, work request validation, the side channel's JSON
 * and its non-blocking line reader, and whole exchanges between two
 * contexts on a virtual clock (rc_pair.c), where timers can be checked to
 * the nanosecond.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../transport/rc/rc_int.h"
#include "../rc/rc_pair.h"

static void
test_psn_arithmetic(void **state)
{
    (void)state;
    assert_int_equal(rc_psn_diff(5, 3), 2);
    assert_int_equal(rc_psn_diff(3, 5), -2);
    assert_int_equal(rc_psn_diff(0, 0xffffff), 1);          /* across the wrap */
    assert_int_equal(rc_psn_diff(0xffffff, 0), -1);
    assert_int_equal(rc_psn_diff(0x7fffff, 0), 0x7fffff);   /* half the space ahead */
    assert_int_equal(rc_psn_diff(0x800000, 0), -0x800000);  /* ... and behind */
    assert_int_equal(rc_psn_add(0xfffffe, 3), 1);
    assert_true(rc_psn_in(0, 0xfffffe, 2));
    assert_false(rc_psn_in(3, 0xfffffe, 2));
    assert_int_equal(rc_npkts(0, 1024), 1);
    assert_int_equal(rc_npkts(1024, 1024), 1);
    assert_int_equal(rc_npkts(1025, 1024), 2);
    assert_int_equal(rc_npkts(0x80000000u, 256), 1u << 23);
}

static void
test_timeouts_and_names(void **state)
{
    (void)state;
    assert_true(rs_rc_timeout_ns(0) == RS_RC_INFINITE);
    assert_int_equal(rs_rc_timeout_ns(1), 8192);                   /* 4.096 us * 2 */
    assert_true(rs_rc_timeout_ns(14) == 67108864ull);              /* 67.1 ms */
    assert_int_equal(rs_rc_pmtu_valid(4096), 4096);
    assert_int_equal(rs_rc_pmtu_valid(1500), 0);
    assert_string_equal(rs_rc_wc_status_name(RS_RC_WC_RETRY_EXC_ERR), "RETRY_EXC_ERR");
    assert_string_equal(rs_rc_wc_status_name(RS_RC_WC_RNR_RETRY_EXC_ERR), "RNR_RETRY_EXC_ERR");
    assert_string_equal(rs_rc_wc_status_name(RS_RC_WC_REM_INV_REQ_ERR), "REM_INV_REQ_ERR");
    assert_string_equal(rs_rc_wc_status_name(RS_RC_WC_WR_FLUSH_ERR), "WR_FLUSH_ERR");
    assert_string_equal(rs_rc_wc_opcode_name(RS_RC_WC_RECV_RDMA_WITH_IMM),
                        "RECV_RDMA_WITH_IMM");
    /* ibverbs' numbers, so a completion reads the same as from a NIC. */
    assert_int_equal(RS_RC_WC_REM_ACCESS_ERR, 10);
    assert_int_equal(RS_RC_WC_RETRY_EXC_ERR, 12);
}

/* The path MTU: rxe's rule from the interface's MTU (the largest IB MTU that fits with 80
 * bytes of headers), then the smallest of it, the peer's and the user's. */
static void
test_path_mtu(void **state)
{
    static const uint32_t rule[][2] = {
        {1500, 1024}, {9000, 4096}, {65536, 4096}, {4176, 4096}, {4175, 2048},
        {2128, 2048}, {2127, 1024}, {1104, 1024}, {1103, 512}, {592, 512},
        {591, 256}, {576, 256}, {68, 256}, {0, 256},
    };
    uint8_t gid[16];
    uint32_t mtu = 0;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    for (size_t i = 0; i < sizeof(rule) / sizeof(rule[0]); i++)
        assert_int_equal(rs_rc_mtu_for_if(rule[i][0]), rule[i][1]);
    assert_int_equal(rs_rc_path_mtu(1024, 4096, 0), 1024);  /* the link's over the peer's */
    assert_int_equal(rs_rc_path_mtu(4096, 1024, 0), 1024);  /* the peer's over the link's */
    assert_int_equal(rs_rc_path_mtu(4096, 0, 2048), 2048);  /* the user's limit lowers... */
    assert_int_equal(rs_rc_path_mtu(1024, 0, 4096), 1024);  /* ... and never raises */
    assert_int_equal(rs_rc_path_mtu(4096, 0, 0), 4096);
    /* 127.0.0.2 is no interface's own address: lo's 127.0.0.0/8 holds it. */
    assert_int_equal(rs_addr_parse("127.0.0.2", gid, NULL, NULL), 0);
    assert_int_equal(rs_rc_if_mtu(gid, 0, &mtu, err), 0);
    assert_true(mtu >= 1500);
    assert_int_equal(rs_addr_parse("0.1.2.3", gid, NULL, NULL), 0);  /* "this network": no host's */
    assert_int_equal(rs_rc_if_mtu(gid, 0, &mtu, err), RS_ENOENT);
    assert_non_null(strstr(err, "0.1.2.3: no interface holds this address"));
}

static uint8_t *
tx_nowhere(void *arg)
{
    static uint8_t buf[RS_RC_MAX_PACKET];

    (void)arg;
    return buf;
}

static void
tx_drop(void *arg, uint32_t len)
{
    (void)arg;
    (void)len;
}

static struct rs_rc_ctx *
lone_ctx(void)
{
    struct rs_rc_ctx_opts o;
    struct rs_rc_link link = {tx_nowhere, tx_drop, NULL};
    struct rs_rc_ctx *ctx;

    rs_rc_ctx_opts_init(&o);
    assert_int_equal(rs_rc_ctx_create(&ctx, &o, &link, NULL), 0);
    return ctx;
}

static void
test_memory_regions(void **state)
{
    struct rs_rc_ctx *ctx = lone_ctx();
    static uint8_t mem[4096], other[64];
    struct rs_rc_mr mr, mr2;
    enum rc_mr_fail why;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_int_equal(rs_rc_mr_reg(ctx, mem, sizeof(mem), 0x1000, 0x77,
                                  RS_RC_ACCESS_REMOTE_READ | RS_RC_ACCESS_REMOTE_INVALIDATE,
                                  &mr, err), 0);
    assert_int_equal(mr.rkey, 0x77);
    assert_true(mr.va == 0x1000);
    /* A key in use, and a region whose end wraps 2^64, are refused. */
    assert_int_equal(rs_rc_mr_reg(ctx, other, 64, 0, 0x77, 0, NULL, err), RS_EINVAL);
    assert_int_equal(rs_rc_mr_reg(ctx, other, 64, UINT64_MAX - 10, 0, 0, NULL, err),
                     RS_EINVAL);
    assert_int_equal(rs_rc_mr_reg(ctx, other, 64, 0, 0, RS_RC_ACCESS_LOCAL_WRITE, &mr2, err),
                     0);
    assert_int_not_equal(mr2.rkey, 0);

    assert_ptr_equal(rc_mr_remote(ctx, 0x77, 0x1000, 4096, RS_RC_ACCESS_REMOTE_READ, &why),
                     mem);
    assert_ptr_equal(rc_mr_remote(ctx, 0x77, 0x1ffc, 4, RS_RC_ACCESS_REMOTE_READ, &why),
                     mem + 4092);
    assert_null(rc_mr_remote(ctx, 0x77, 0x1ffc, 5, RS_RC_ACCESS_REMOTE_READ, &why));
    assert_int_equal(why, RC_MR_BOUNDS);
    assert_null(rc_mr_remote(ctx, 0x77, 0xfff, 1, RS_RC_ACCESS_REMOTE_READ, &why));
    assert_null(rc_mr_remote(ctx, 0x77, UINT64_MAX, 2, RS_RC_ACCESS_REMOTE_READ, &why));
    assert_null(rc_mr_remote(ctx, 0x77, 0x1000, UINT64_MAX, RS_RC_ACCESS_REMOTE_READ, &why));
    assert_null(rc_mr_remote(ctx, 0x77, 0x1000, 8, RS_RC_ACCESS_REMOTE_WRITE, &why));
    assert_int_equal(why, RC_MR_ACCESS);
    assert_null(rc_mr_remote(ctx, 0x78, 0x1000, 8, RS_RC_ACCESS_REMOTE_READ, &why));
    assert_int_equal(why, RC_MR_NO_KEY);
    /* Local access goes by lkey; a remote key is no local key. */
    assert_non_null(rc_mr_local(ctx, mr2.lkey, mr2.va, 64, RS_RC_ACCESS_LOCAL_WRITE));
    assert_null(rc_mr_local(ctx, mr.lkey, 0x1000, 8, RS_RC_ACCESS_LOCAL_WRITE));
    assert_null(rc_mr_local(ctx, 0x77, 0x1000, 8, 0));
    /* Invalidation: only where allowed, and the key is gone afterwards. */
    assert_false(rc_mr_invalidate(ctx, mr2.rkey, false));
    assert_true(rc_mr_invalidate(ctx, 0x77, true));
    assert_non_null(rc_mr_remote(ctx, 0x77, 0x1000, 8, RS_RC_ACCESS_REMOTE_READ, &why));
    assert_true(rc_mr_invalidate(ctx, 0x77, false));
    assert_null(rc_mr_remote(ctx, 0x77, 0x1000, 8, RS_RC_ACCESS_REMOTE_READ, &why));
    assert_int_equal(rs_rc_mr_dereg(ctx, mr2.lkey), 0);
    assert_int_equal(rs_rc_mr_dereg(ctx, mr2.lkey), RS_ENOENT);
    rs_rc_ctx_destroy(ctx);
}

static void
test_work_request_checks(void **state)
{
    struct rs_rc_ctx *ctx = lone_ctx();
    struct rs_rc_qp_attr a;
    struct rs_rc_qp *qp;
    struct rs_rc_mr mr;
    static uint8_t mem[256];
    struct rs_rc_send_wr wr;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    rs_rc_qp_attr_init(&a);
    a.sq_depth = 2;
    a.rq_depth = 2;
    a.pmtu = 1000;
    assert_int_equal(rs_rc_qp_create(ctx, &a, &qp, err), RS_EINVAL);
    a.pmtu = 256;
    assert_int_equal(rs_rc_qp_create(ctx, &a, &qp, err), 0);
    assert_int_equal(rs_rc_mr_reg(ctx, mem, sizeof(mem), 0, 0, RS_RC_ACCESS_LOCAL_WRITE, &mr,
                                  err), 0);
    memset(&wr, 0, sizeof(wr));
    wr.opcode = RS_RC_WR_SEND;
    wr.sge = (struct rs_rc_sge){mr.va + 200, 100, mr.lkey};       /* runs past the end */
    assert_int_equal(rs_rc_post_send(qp, &wr, err), RS_EINVAL);
    wr.sge.addr = mr.va;
    wr.sge.lkey = 0x12345;
    assert_int_equal(rs_rc_post_send(qp, &wr, err), RS_EINVAL);
    wr.opcode = RS_RC_WR_ATOMIC_FETCH_AND_ADD;
    wr.sge = (struct rs_rc_sge){mr.va, 4, mr.lkey};
    assert_int_equal(rs_rc_post_send(qp, &wr, err), RS_EINVAL);
    wr.opcode = 77;
    assert_int_equal(rs_rc_post_send(qp, &wr, err), RS_EINVAL);
    wr.opcode = RS_RC_WR_SEND;
    assert_int_equal(rs_rc_post_send(qp, &wr, err), 0);
    assert_int_equal(rs_rc_post_send(qp, &wr, err), 0);
    assert_int_equal(rs_rc_post_send(qp, &wr, err), RS_ENOMEM);   /* as ibv_post_send */
    assert_string_equal(err, "send queue full (2 work requests)");
    struct rs_rc_recv_wr rwr = {.wr_id = 1, .sge = {mr.va, 100, mr.lkey}};
    assert_int_equal(rs_rc_post_recv(qp, &rwr, err), 0);
    assert_int_equal(rs_rc_post_recv(qp, &rwr, err), 0);
    assert_int_equal(rs_rc_post_recv(qp, &rwr, err), RS_ENOMEM);
    assert_string_equal(err, "receive queue full (2 work requests)");
    rs_rc_ctx_destroy(ctx);
}

static void
test_side_channel_json(void **state)
{
    struct rs_rc_conn_info in, out;
    char buf[512], err[RS_ERRBUF_SIZE];
    uint64_t v;

    (void)state;
    /* Zeroed first: the comparison below covers the padding bytes too. */
    memset(&in, 0, sizeof(in));
    memset(&out, 0, sizeof(out));
    rs_addr_from_ipv4((const uint8_t[]){127, 1, 2, 3}, in.gid);
    in.qpn = 0x11;
    in.psn = 0xabcdef;
    in.rkey = 0x5a000101;
    in.va = 0x7f0000001000ull;
    in.length = 65536;
    in.pmtu = 4096;
    rs_rc_conn_format(&in, buf, sizeof(buf));
    assert_int_equal(rs_rc_conn_parse(buf, &out, err), 0);
    assert_memory_equal(&in, &out, sizeof(in));
    assert_non_null(strstr(buf, "\"ip\": \"127.1.2.3\""));     /* as before IPv6 */
    /* IPv6 goes as text, without a scope. */
    assert_int_equal(rs_addr_parse("fe80::1%lo", in.gid, NULL, NULL), RS_EINVAL);
    assert_int_equal(rs_addr_parse("fe80::1", in.gid, NULL, NULL), 0);
    rs_rc_conn_format(&in, buf, sizeof(buf));
    assert_non_null(strstr(buf, "\"ip\": \"fe80::1\""));
    assert_int_equal(rs_rc_conn_parse(buf, &out, err), 0);
    assert_memory_equal(&in, &out, sizeof(in));
    assert_int_equal(rs_rc_conn_parse("{\"ip\": \"fe80::1%lo\", \"qpn\": 17, \"psn\": 1, "
                                      "\"pmtu\": 1024}", &out, err), RS_EINVAL);
    assert_int_equal(rs_rc_conn_parse("{\"ip\": \"1.2.3.4\", \"qpn\": 17}", &out, err),
                     RS_EINVAL);
    assert_int_equal(rs_rc_conn_parse("{\"ip\": \"1.2.3.4\", \"qpn\": 17, \"psn\": 1, "
                                      "\"pmtu\": 1000}", &out, err), RS_EINVAL);
    assert_false(rs_rc_json_u64("{\"qpn\": -1}", "qpn", &v));
    assert_false(rs_rc_json_u64("{\"qpn\"", "qpn", &v));
    assert_false(rs_rc_json_u64("\"qpn\": 99999999999999999999999", "qpn", &v));
    assert_true(rs_rc_json_u64("{\"xqpn\": 1, \"qpn\": 7}", "qpn", &v) && v == 7);
    assert_false(rs_rc_json_str("{\"ip\": \"unterminated", "ip", buf, sizeof(buf)));
}

static void
put(int fd, const char *s)
{
    assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
}

/* A connection read without waiting, on a virtual clock: lines split across
 * reads and several in one read, deadlines for the first line and for a
 * line under way, none while idle between lines, an overlong line, the
 * peer leaving. */
static void
test_side_channel_reader(void **state)
{
    const uint64_t ms = 1000000, timeout = 5000 * ms;
    struct rs_rc_side_conn c;
    char err[RS_ERRBUF_SIZE], big[1100];
    const char *line;
    int sv[2];

    (void)state;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    rs_rc_side_conn_open(&c, sv[0], timeout, 1000 * ms);
    assert_int_equal(rs_rc_side_conn_next(&c, 1000 * ms, &line, err), 0);   /* never waits */
    put(sv[1], "{\"ip\": ");
    assert_int_equal(rs_rc_side_conn_next(&c, 2000 * ms, &line, err), 0);
    assert_false(rs_rc_side_conn_pending(&c));
    put(sv[1], "1}\nsecond\nthi");
    assert_int_equal(rs_rc_side_conn_next(&c, 3000 * ms, &line, err), 1);
    assert_string_equal(line, "{\"ip\": 1}");
    assert_true(rs_rc_side_conn_pending(&c));      /* "second" is buffered */
    assert_int_equal(rs_rc_side_conn_next(&c, 3000 * ms, &line, err), 1);
    assert_string_equal(line, "second");
    assert_int_equal(rs_rc_side_conn_next(&c, 3000 * ms, &line, err), 0);
    /* "thi" began at 3 s: due at 8 s. */
    assert_false(rs_rc_side_conn_expired(&c, 7999 * ms));
    assert_true(rs_rc_side_conn_expired(&c, 8000 * ms));
    assert_int_equal(rs_rc_side_conn_next(&c, 8000 * ms, &line, err), RS_EIO);
    assert_non_null(strstr(err, "no whole line within 5000 ms"));
    rs_rc_side_conn_close(&c);
    assert_int_equal(c.fd, -1);
    close(sv[1]);

    /* A peer that says nothing at all is due too; one that has said its
     * line may then stay quiet. */
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    rs_rc_side_conn_open(&c, sv[0], timeout, 0);
    assert_int_equal(rs_rc_side_conn_next(&c, 5000 * ms, &line, err), RS_EIO);
    assert_non_null(strstr(err, "no line within"));
    rs_rc_side_conn_close(&c);
    close(sv[1]);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    rs_rc_side_conn_open(&c, sv[0], timeout, 0);
    put(sv[1], "hello\n");
    assert_int_equal(rs_rc_side_conn_next(&c, 10 * ms, &line, err), 1);
    assert_int_equal(rs_rc_side_conn_next(&c, 100000 * ms, &line, err), 0);
    assert_false(rs_rc_side_conn_expired(&c, 100000 * ms));
    /* A line longer than the buffer, then the peer leaves. */
    memset(big, 'x', sizeof(big));
    assert_int_equal(write(sv[1], big, sizeof(big)), (ssize_t)sizeof(big));
    assert_int_equal(rs_rc_side_conn_next(&c, 100001 * ms, &line, err), RS_EIO);
    assert_non_null(strstr(err, "longer than 1023 bytes"));
    rs_rc_side_conn_close(&c);
    close(sv[1]);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    rs_rc_side_conn_open(&c, sv[0], timeout, 0);
    put(sv[1], "last\npart");
    close(sv[1]);
    assert_int_equal(rs_rc_side_conn_next(&c, 1, &line, err), 1);
    assert_string_equal(line, "last");
    assert_int_equal(rs_rc_side_conn_next(&c, 2, &line, err), RS_EOF);    /* "part" unended */
    rs_rc_side_conn_close(&c);
}

/* A connection the server ends after telling the peer why, with the peer's lines still
 * unread (TCP on loopback): the peer reads that line and then an orderly end, never a
 * reset (a close with input unread resets, and a reset can destroy what the peer had
 * not read yet); what the peer sends meanwhile is dropped; the connection is done when
 * the peer closes, or when the linger is over. */
static void
test_side_channel_linger(void **state)
{
    const uint64_t ms = 1000000;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t salen = sizeof(sa);
    struct rs_rc_side_conn c;
    struct timeval tv = {10, 0};
    char err[RS_ERRBUF_SIZE], buf[256];
    const char *line;

    (void)state;
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(lfd >= 0);
    assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(lfd, 4), 0);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &salen), 0);
    for (int round = 0; round < 2; round++) {
        int cfd = socket(AF_INET, SOCK_STREAM, 0);
        assert_int_equal(connect(cfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
        assert_int_equal(setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
        int sfd = accept(lfd, NULL, NULL);
        assert_true(sfd >= 0);
        rs_rc_side_conn_open(&c, sfd, 5000 * ms, 0);
        put(cfd, "one\ntwo\nthree\n");
        struct pollfd pfd = {sfd, POLLIN, 0};
        assert_int_equal(poll(&pfd, 1, 10000), 1);
        assert_int_equal(rs_rc_side_conn_next(&c, 1 * ms, &line, err), 1);
        assert_string_equal(line, "one");
        rs_rc_side_send_error(c.fd, "refused");
        rs_rc_side_conn_linger(&c, 1 * ms, 2000 * ms);
        assert_false(rs_rc_side_conn_pending(&c));          /* "two" is not served */
        assert_int_equal(rs_rc_side_conn_next(&c, 2 * ms, &line, err), 0);
        /* The peer: our line, then the end of the stream. */
        size_t got = 0;
        ssize_t n;
        while ((n = recv(cfd, buf + got, sizeof(buf) - 1 - got, 0)) > 0)
            got += (size_t)n;
        assert_int_equal(n, 0);                             /* not ECONNRESET */
        buf[got] = '\0';
        assert_string_equal(buf, "{\"error\": \"refused\"}\n");
        put(cfd, "four\n");                                /* dropped */
        assert_int_equal(rs_rc_side_conn_next(&c, 3 * ms, &line, err), 0);
        if (round == 0) {
            close(cfd);                                     /* the peer closes: done */
            assert_int_equal(poll(&pfd, 1, 10000), 1);
            assert_int_equal(rs_rc_side_conn_next(&c, 4 * ms, &line, err), RS_EOF);
        } else {
            assert_int_equal(rs_rc_side_conn_next(&c, 2000 * ms, &line, err), 0);
            assert_int_equal(rs_rc_side_conn_next(&c, 2001 * ms, &line, err), RS_EOF);
            close(cfd);
        }
        rs_rc_side_conn_close(&c);
    }
    close(lfd);
}

/* Refusing a connection: it is accepted, told why in one JSON line, and
 * closed; with nothing pending the answer is RS_ENOENT, not an error. */
static void
test_side_channel_refuse(void **state)
{
    struct sockaddr_un sa;
    char err[RS_ERRBUF_SIZE], buf[256], why[200];
    int lfd, cfd;

    (void)state;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    /* An abstract name: nothing on disk to clean up. */
    snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "rs-test-rc-%d", (int)getpid());
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
                                strlen(sa.sun_path + 1));
    lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    assert_true(lfd >= 0);
    assert_int_equal(bind(lfd, (struct sockaddr *)&sa, len), 0);
    assert_int_equal(listen(lfd, 4), 0);
    assert_int_equal(rs_rc_side_refuse(lfd, "full", err), RS_ENOENT);
    cfd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_int_equal(connect(cfd, (struct sockaddr *)&sa, len), 0);
    assert_int_equal(rs_rc_side_refuse(lfd, "64 \"slots\" taken", err), 0);
    ssize_t n = read(cfd, buf, sizeof(buf) - 1);
    assert_true(n > 0);
    buf[n] = '\0';
    assert_string_equal(buf, "{\"error\": \"64 'slots' taken\"}\n");
    assert_true(rs_rc_json_str(buf, "error", why, sizeof(why)));
    assert_int_equal(read(cfd, buf, sizeof(buf)), 0);  /* then closed */
    close(cfd);
    close(lfd);
}

/* --- two contexts on a virtual clock --- */

struct pair_fixture {
    struct rc_pair p;
    struct rs_rc_qp *a, *b;
    uint8_t amem[65536], bmem[65536];
    struct rs_rc_mr amr, bmr;
    uint64_t sent[2];           /* packets each side sent */
    bool drop_all;              /* the link from A loses everything */
    uint8_t drop_opcode;        /* ... or only this opcode from B (0: none) */
};

static bool
pair_filter(void *arg, int from, uint8_t *pkt, uint32_t len)
{
    struct pair_fixture *f = arg;

    (void)len;
    f->sent[from]++;
    if (from == 0 && f->drop_all)
        return false;
    if (from == 1 && f->drop_opcode != 0 && pkt[28] == f->drop_opcode) {
        f->drop_opcode = 0;     /* once */
        return false;
    }
    return true;
}

static struct pair_fixture *
pair_new(uint8_t timeout, uint8_t retry_cnt, uint8_t rnr_retry)
{
    struct pair_fixture *f = calloc(1, sizeof(*f));
    struct rs_rc_qp_attr a;
    char err[RS_ERRBUF_SIZE];

    assert_non_null(f);
    assert_int_equal(rc_pair_init(&f->p, err), 0);
    f->p.filter = pair_filter;
    f->p.filter_arg = f;
    rs_rc_qp_attr_init(&a);
    a.pmtu = 1024;
    a.timeout = timeout;
    a.retry_cnt = retry_cnt;
    a.rnr_retry = rnr_retry;
    a.min_rnr_timer = 1;        /* 0.01 ms */
    a.sq_depth = a.rq_depth = 16;
    assert_int_equal(rc_pair_connect(&f->p, &a, &f->a, &f->b, err), 0);
    assert_int_equal(rs_rc_mr_reg(f->p.ctx[0], f->amem, sizeof(f->amem), 0, 0,
                                  RS_RC_ACCESS_LOCAL_WRITE, &f->amr, err), 0);
    assert_int_equal(rs_rc_mr_reg(f->p.ctx[1], f->bmem, sizeof(f->bmem), 0, 0,
                                  RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL, &f->bmr,
                                  err), 0);
    return f;
}

static void
pair_free(struct pair_fixture *f)
{
    rc_pair_free(&f->p);
    free(f);
}

static void
post(struct pair_fixture *f, uint8_t opcode, uint64_t id, uint32_t off, uint32_t len,
     uint64_t remote_off)
{
    struct rs_rc_send_wr wr;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = id;
    wr.opcode = opcode;
    wr.flags = RS_RC_SEND_SIGNALED;
    wr.sge = (struct rs_rc_sge){f->amr.va + off, len, f->amr.lkey};
    wr.remote_addr = f->bmr.va + remote_off;
    wr.rkey = f->bmr.rkey;
    wr.compare_add = 5;
    assert_int_equal(rs_rc_post_send(f->a, &wr, NULL), 0);
}

static int
poll_all(struct rs_rc_qp *qp, struct rs_rc_wc *wc, int max)
{
    return rs_rc_poll_cq(qp, wc, max);
}

static void
test_pair_operations(void **state)
{
    struct pair_fixture *f = pair_new(14, 7, 7);
    struct rs_rc_wc wc[8];

    (void)state;
    for (unsigned i = 0; i < 3000; i++)
        f->amem[i] = (uint8_t)(i * 3);
    struct rs_rc_recv_wr rwr = {9, {f->bmr.va + 40000, 4000, f->bmr.lkey}};
    assert_int_equal(rs_rc_post_recv(f->b, &rwr, NULL), 0);
    post(f, RS_RC_WR_RDMA_WRITE, 1, 0, 3000, 100);
    post(f, RS_RC_WR_RDMA_READ, 2, 8192, 3000, 100);
    post(f, RS_RC_WR_SEND, 3, 0, 2500, 0);
    post(f, RS_RC_WR_ATOMIC_FETCH_AND_ADD, 4, 16384, 8, 8);
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));
    assert_int_equal(poll_all(f->a, wc, 8), 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(wc[i].status, RS_RC_WC_SUCCESS);
        assert_int_equal(wc[i].wr_id, (uint64_t)i + 1);
    }
    assert_int_equal(wc[1].opcode, RS_RC_WC_RDMA_READ);
    assert_memory_equal(f->bmem + 100, f->amem, 3000);          /* the WRITE */
    assert_memory_equal(f->amem + 8192, f->amem, 3000);         /* the READ brought it back */
    assert_memory_equal(f->bmem + 40000, f->amem, 2500);        /* the SEND */
    uint64_t v;
    memcpy(&v, f->bmem + 8, 8);
    assert_true(v == 5);
    assert_int_equal(poll_all(f->b, wc, 8), 1);
    assert_int_equal(wc[0].opcode, RS_RC_WC_RECV);
    assert_int_equal(wc[0].byte_len, 2500);
    /* Three SEND packets, three WRITE packets, one READ, one atomic. */
    assert_int_equal(rs_rc_counters_get(f->p.ctx[0])->req_packets, 8);
    assert_int_equal(rs_rc_counters_get(f->p.ctx[1])->read_resp_sent, 3);
    pair_free(f);
}

/* With nobody answering, the requester sends 1 + retry_cnt times, one
 * timeout (4.096 us * 2^timeout) apart, then fails with RETRY_EXC_ERR. */
static void
test_pair_timeout_exhaustion(void **state)
{
    struct pair_fixture *f = pair_new(10, 3, 7);
    struct rs_rc_wc wc[4];

    (void)state;
    f->drop_all = true;
    uint64_t t0 = f->p.now;
    post(f, RS_RC_WR_SEND, 1, 0, 100, 0);
    post(f, RS_RC_WR_SEND, 2, 0, 100, 0);
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));
    assert_int_equal(poll_all(f->a, wc, 4), 2);
    assert_int_equal(wc[0].status, RS_RC_WC_RETRY_EXC_ERR);
    assert_int_equal(wc[1].status, RS_RC_WC_WR_FLUSH_ERR);
    assert_int_equal(f->sent[0], 2 * 4);       /* both packets, four times */
    uint64_t took = f->p.now - t0, timeout = rs_rc_timeout_ns(10);
    assert_true(took >= 4 * timeout && took < 4 * timeout + 100000);
    assert_int_equal(rs_rc_counters_get(f->p.ctx[0])->timeouts, 4);
    assert_int_equal(rs_rc_qp_state(f->a), RS_RC_QP_ERROR);
    pair_free(f);
}

/* No receive posted: RNR NAKs until one is, then the SEND completes. */
static void
test_pair_rnr_recovery(void **state)
{
    struct pair_fixture *f = pair_new(14, 7, 7);
    struct rs_rc_wc wc[4];

    (void)state;
    post(f, RS_RC_WR_SEND, 1, 0, 64, 0);
    for (int i = 0; i < 50; i++)
        rc_pair_step(&f->p);
    assert_true(rs_rc_counters_get(f->p.ctx[1])->rnr_nak >= 1);
    assert_int_equal(poll_all(f->a, wc, 4), 0);
    struct rs_rc_recv_wr rwr = {9, {f->bmr.va, 64, f->bmr.lkey}};
    assert_int_equal(rs_rc_post_recv(f->b, &rwr, NULL), 0);
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));
    assert_int_equal(poll_all(f->a, wc, 4), 1);
    assert_int_equal(wc[0].status, RS_RC_WC_SUCCESS);
    pair_free(f);
}

/* rnr_retry 2 with no receive ever: three tries, RNR_RETRY_EXC_ERR. */
static void
test_pair_rnr_exhaustion(void **state)
{
    struct pair_fixture *f = pair_new(14, 7, 2);
    struct rs_rc_wc wc[4];

    (void)state;
    post(f, RS_RC_WR_SEND, 1, 0, 64, 0);
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));
    assert_int_equal(poll_all(f->a, wc, 4), 1);
    assert_int_equal(wc[0].status, RS_RC_WC_RNR_RETRY_EXC_ERR);
    assert_int_equal(rs_rc_counters_get(f->p.ctx[1])->rnr_nak, 3);
    pair_free(f);
}

/* The one READ response lost: the requester asks again (by the ACK timer,
 * as nothing follows it) and the data arrives whole. */
static void
test_pair_lost_read_response(void **state)
{
    struct pair_fixture *f = pair_new(12, 7, 7);
    struct rs_rc_wc wc[4];

    (void)state;
    memset(f->bmem, 0x5c, 1000);
    f->drop_opcode = 0x10;      /* READ Response Only */
    post(f, RS_RC_WR_RDMA_READ, 1, 0, 1000, 0);
    assert_true(rc_pair_run(&f->p, NULL, NULL, 10000));
    assert_int_equal(poll_all(f->a, wc, 4), 1);
    assert_int_equal(wc[0].status, RS_RC_WC_SUCCESS);
    assert_memory_equal(f->amem, f->bmem, 1000);
    assert_int_equal(rs_rc_counters_get(f->p.ctx[1])->dup_read, 1);
    pair_free(f);
}

/* What went over an IPv6 pair: every packet IPv6 and its ICRC good as the
 * decoder checks it, with CE marks on A's packets (for CNPs). */
struct v6_watch {
    uint64_t packets, not_ipv6, icrc_bad, cnps;
};

static bool
v6_filter(void *arg, int from, uint8_t *pkt, uint32_t len)
{
    struct v6_watch *w = arg;
    struct rs_frame frame = {0};
    struct rs_packet p;
    struct rs_decode_opts o;

    rs_decode_opts_init(&o);
    frame.data = pkt;
    frame.caplen = frame.len = len;
    frame.linktype = RS_DLT_RAW;
    rs_decode_frame(&frame, &o, &p);
    w->packets++;
    w->not_ipv6 += (pkt[0] >> 4) != 6 || !rs_packet_has(&p, RS_LAYER_IPV6);
    w->icrc_bad += p.icrc_status != RS_CKSUM_GOOD;
    w->cnps += p.opcode == 0x81;
    if (from == 0) {
        pkt[1] |= 0x30;         /* ECN CE: traffic class bits 0-1, outside the ICRC */
    }
    return true;
}

static void
test_pair_ipv6(void **state)
{
    struct rc_pair p;
    struct rs_rc_qp_attr a;
    struct rs_rc_qp *qa, *qb;
    struct rs_rc_mr amr, bmr;
    static uint8_t amem[16384], bmem[65536];
    struct v6_watch w = {0};
    struct rs_rc_wc wc[8];
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_int_equal(rc_pair_init_ipv6(&p, err), 0);
    p.filter = v6_filter;
    p.filter_arg = &w;
    rs_rc_qp_attr_init(&a);
    a.sq_depth = a.rq_depth = 16;
    assert_int_equal(rc_pair_connect(&p, &a, &qa, &qb, err), 0);
    assert_int_equal(rs_rc_mr_reg(p.ctx[0], amem, sizeof(amem), 0, 0, RS_RC_ACCESS_LOCAL_WRITE,
                                  &amr, err), 0);
    assert_int_equal(rs_rc_mr_reg(p.ctx[1], bmem, sizeof(bmem), 0, 0,
                                  RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL, &bmr,
                                  err), 0);
    for (unsigned i = 0; i < sizeof(amem); i++)
        amem[i] = (uint8_t)(i * 7);
    struct rs_rc_send_wr wr = {.wr_id = 1, .opcode = RS_RC_WR_RDMA_WRITE,
                               .flags = RS_RC_SEND_SIGNALED,
                               .sge = {amr.va, 5000, amr.lkey},
                               .remote_addr = bmr.va + 100, .rkey = bmr.rkey};
    assert_int_equal(rs_rc_post_send(qa, &wr, NULL), 0);
    wr.wr_id = 2;
    wr.opcode = RS_RC_WR_RDMA_READ;
    wr.sge.addr = amr.va + 8192;
    assert_int_equal(rs_rc_post_send(qa, &wr, NULL), 0);
    assert_true(rc_pair_run(&p, NULL, NULL, 10000));
    assert_int_equal(rs_rc_poll_cq(qa, wc, 8), 2);
    assert_int_equal(wc[0].status, RS_RC_WC_SUCCESS);
    assert_int_equal(wc[1].status, RS_RC_WC_SUCCESS);
    assert_memory_equal(bmem + 100, amem, 5000);
    assert_memory_equal(amem + 8192, amem, 5000);
    const struct rs_rc_counters *cb = rs_rc_counters_get(p.ctx[1]);
    assert_true(w.packets >= 10);       /* 5 WRITE and 5 READ response packets at PMTU 1024 */
    assert_int_equal(w.not_ipv6, 0);
    assert_int_equal(w.icrc_bad, 0);
    assert_int_equal(cb->drop_icrc + cb->drop_malformed + cb->drop_source, 0);
    assert_true(cb->cnp_sent >= 1);     /* CE over IPv6 still makes CNPs */
    assert_int_equal(w.cnps, cb->cnp_sent);
    assert_int_equal(rs_rc_counters_get(p.ctx[0])->cnp_received, cb->cnp_sent);
    rc_pair_free(&p);
}

/* The local ACK timer runs from the last transmission the peer could acknowledge: a
 * request sent 0.9 timeouts after the first moves the deadline on, so the timeout comes
 * one timeout after the second request, not after the first. */
static void
test_pair_timer_from_last_transmission(void **state)
{
    struct pair_fixture *f = pair_new(10, 3, 7);
    uint64_t timeout = rs_rc_timeout_ns(10), t0 = f->p.now;
    const struct rs_rc_counters *c = rs_rc_counters_get(f->p.ctx[0]);

    (void)state;
    f->drop_all = true;
    post(f, RS_RC_WR_RDMA_WRITE, 1, 0, 100, 0);
    rc_pair_step(&f->p);
    f->p.now = t0 + timeout * 9 / 10;
    post(f, RS_RC_WR_RDMA_WRITE, 2, 0, 100, 0);
    rc_pair_step(&f->p);
    assert_int_equal(f->sent[0], 2);
    assert_true(rs_rc_next_deadline(f->p.ctx[0]) == f->p.now + timeout);
    f->p.now = t0 + timeout * 15 / 10;      /* past the first's timeout, not the second's */
    rc_pair_step(&f->p);
    assert_int_equal(c->timeouts, 0);
    assert_int_equal(f->sent[0], 2);
    f->p.now = t0 + timeout * 19 / 10;
    rc_pair_step(&f->p);
    assert_int_equal(c->timeouts, 1);
    assert_int_equal(f->sent[0], 4);        /* both again, from the oldest */
    pair_free(f);
}

/* Annex A17.9 pacing, on a virtual clock: a CE-marked request gets a CNP unless the QP
 * sent one less than cnp_interval_ns (50 us by default) before; those are counted. */
static void
test_cnp_pacing(void **state)
{
    struct rc_pair p;
    struct rs_rc_qp_attr a;
    struct rs_rc_qp *qa, *qb;
    char err[RS_ERRBUF_SIZE];
    uint8_t buf[RS_RC_MAX_PACKET];
    static const uint64_t at_us[] = {0, 10, 49, 50, 51, 200};
    static const uint64_t sent_after[] = {1, 1, 1, 2, 2, 3};

    (void)state;
    assert_int_equal(rc_pair_init(&p, err), 0);
    rs_rc_qp_attr_init(&a);
    a.sq_depth = a.rq_depth = 8;
    assert_int_equal(rc_pair_connect(&p, &a, &qa, &qb, err), 0);
    struct rs_roce_route r = {.family = 4, .sport = 1, .dport = RS_ROCEV2_UDP_PORT, .ttl = 64,
                              .tos = 3, .df = true};
    memcpy(r.src, p.gid[1] + 12, 4);
    memcpy(r.dst, p.gid[0] + 12, 4);
    const struct rs_rc_counters *c = rs_rc_counters_get(p.ctx[0]);
    uint64_t t0 = p.now;
    for (unsigned i = 0; i < sizeof(at_us) / sizeof(at_us[0]); i++) {
        struct rs_ib_fields f = {.opcode = 0x04, .pkey = 0xffff, .dest_qp = rs_rc_qp_num(qa),
                                 .psn = i};
        uint32_t n = rs_encode_rocev2(buf, sizeof(buf), &r, &f, "ce", 2, NULL, NULL);
        assert_true(n > 0);
        rs_rc_input(p.ctx[0], buf, n, t0 + at_us[i] * 1000);
        assert_int_equal(c->cnp_sent, sent_after[i]);
        assert_int_equal(c->cnp_paced, i + 1 - sent_after[i]);
    }
    rc_pair_free(&p);
}

/* Two UDP ports with a context each, on two addresses of 127/8 picked at random (another
 * run beside this one takes others). */
struct udp_pair {
    struct rs_rc_udp *udp[2];
    struct rs_rc_ctx *ctx[2];
    uint8_t gid[2][16];
};

static void
udp_pair_open(struct udp_pair *u)
{
    char err[RS_ERRBUF_SIZE], text[32];
    unsigned r = (unsigned)getpid() * 2654435761u ^ (unsigned)rs_rc_now_ns();

    for (int i = 0; i < 2; i++) {
        struct rs_rc_udp_opts uo;
        struct rs_rc_ctx_opts co;
        snprintf(text, sizeof(text), "127.%u.%u.%u", 32 + r % 200, 1 + (r >> 8) % 250, 2 + i);
        assert_int_equal(rs_addr_parse(text, u->gid[i], NULL, NULL), 0);
        rs_rc_udp_opts_init(&uo);
        memcpy(uo.gid, u->gid[i], 16);
        uo.no_raw = true;
        assert_int_equal(rs_rc_udp_open(&u->udp[i], &uo, err), 0);
        rs_rc_ctx_opts_init(&co);
        memcpy(co.local_gid, u->gid[i], 16);
        co.verify_icrc = false;
        co.ack_delay_ns = 0;
        assert_int_equal(rs_rc_ctx_create(&u->ctx[i], &co, rs_rc_udp_link(u->udp[i]), err), 0);
    }
}

static void
udp_pair_close(struct udp_pair *u)
{
    for (int i = 0; i < 2; i++) {
        rs_rc_ctx_destroy(u->ctx[i]);
        rs_rc_udp_close(u->udp[i]);
    }
}

/* rs_rc_udp_poll() reads what the socket holds before it runs the timers: an ACK that
 * came while the requester was away past its timeout completes the WRITE, and no
 * timeout or retransmission follows. The ACK's arrival is waited for with poll(), so
 * that the order, not the machine's speed, decides. */
static void
test_udp_packets_before_timers(void **state)
{
    struct udp_pair u;
    struct rs_rc_qp_attr a;
    struct rs_rc_qp *qa, *qb;
    struct rs_rc_mr ma, mb;
    struct rs_rc_wc wc;
    static uint8_t mem[2][4096];
    char err[RS_ERRBUF_SIZE];

    (void)state;
    udp_pair_open(&u);
    rs_rc_qp_attr_init(&a);
    a.timeout = 1;                          /* 8.2 us: long past when the ACK is read */
    a.sq_depth = a.rq_depth = 4;
    a.qpn = 0x21;
    a.dest_qpn = 0x22;
    memcpy(a.peer_gid, u.gid[1], 16);
    assert_int_equal(rs_rc_qp_create(u.ctx[0], &a, &qa, err), 0);
    a.qpn = 0x22;
    a.dest_qpn = 0x21;
    memcpy(a.peer_gid, u.gid[0], 16);
    assert_int_equal(rs_rc_qp_create(u.ctx[1], &a, &qb, err), 0);
    assert_int_equal(rs_rc_mr_reg(u.ctx[0], mem[0], 4096, 0, 0, RS_RC_ACCESS_LOCAL_WRITE, &ma,
                                  err), 0);
    assert_int_equal(rs_rc_mr_reg(u.ctx[1], mem[1], 4096, 0, 0, RS_RC_ACCESS_LOCAL_WRITE |
                                  RS_RC_ACCESS_REMOTE_ALL, &mb, err), 0);
    struct rs_rc_send_wr wr = {.wr_id = 7, .opcode = RS_RC_WR_RDMA_WRITE,
                               .flags = RS_RC_SEND_SIGNALED, .sge = {ma.va, 64, ma.lkey},
                               .remote_addr = mb.va, .rkey = mb.rkey};
    assert_int_equal(rs_rc_post_send(qa, &wr, err), 0);
    assert_int_equal(rs_rc_udp_poll(u.udp[0], u.ctx[0], 0, err), 0);     /* the WRITE goes */
    while (rs_rc_counters_get(u.ctx[1])->exec_write == 0)                 /* ... B answers */
        assert_true(rs_rc_udp_poll(u.udp[1], u.ctx[1], 1000000000ull, err) >= 0);
    struct pollfd pfd = {rs_rc_udp_fd(u.udp[0]), POLLIN, 0};
    assert_int_equal(poll(&pfd, 1, 10000), 1);                            /* the ACK waits */
    uint64_t deadline = rs_rc_next_deadline(u.ctx[0]);
    while (rs_rc_now_ns() <= deadline)
        ;                                                                 /* A's timer is due */
    assert_int_equal(rs_rc_udp_poll(u.udp[0], u.ctx[0], 0, err), 1);
    assert_int_equal(rs_rc_poll_cq(qa, &wc, 1), 1);
    assert_int_equal(wc.status, RS_RC_WC_SUCCESS);
    assert_int_equal(rs_rc_counters_get(u.ctx[0])->timeouts, 0);
    assert_int_equal(rs_rc_counters_get(u.ctx[0])->retransmits, 0);
    assert_int_equal(rs_rc_counters_get(u.ctx[0])->req_packets, 1);
    udp_pair_close(&u);
}

/* A datagram the kernel refuses (here a broadcast destination, which needs SO_BROADCAST:
 * EACCES, and nothing leaves) is counted in the context's tx_errors and told by the
 * port with its errno and length. */
static void
test_udp_send_refused(void **state)
{
    struct udp_pair u;
    struct rs_rc_qp_attr a;
    struct rs_rc_qp *q;
    char err[RS_ERRBUF_SIZE];
    int e = 0;
    uint32_t len = 0;

    (void)state;
    udp_pair_open(&u);
    rs_rc_qp_attr_init(&a);
    a.sq_depth = a.rq_depth = 4;
    a.dest_qpn = 0x22;
    assert_int_equal(rs_addr_parse("255.255.255.255", a.peer_gid, NULL, NULL), 0);
    assert_int_equal(rs_rc_qp_create(u.ctx[0], &a, &q, err), 0);
    struct rs_rc_send_wr wr = {.wr_id = 1, .opcode = RS_RC_WR_SEND};
    assert_int_equal(rs_rc_post_send(q, &wr, err), 0);
    assert_int_equal(rs_rc_udp_poll(u.udp[0], u.ctx[0], 0, err), 0);
    const struct rs_rc_counters *c = rs_rc_counters_get(u.ctx[0]);
    assert_int_equal(c->tx_packets, 1);
    assert_int_equal(c->tx_errors, 1);
    assert_int_equal(rs_rc_udp_tx_errors(u.udp[0], &e, &len), 1);
    assert_int_equal(e, EACCES);
    assert_int_equal(len, RS_IPV4_HDR_LEN + RS_UDP_HDR_LEN + 12 + 4);  /* BTH, ICRC */
    udp_pair_close(&u);
}

/* A peer of the other IP version is refused; a packet from another address is dropped. */
static void
test_ipv6_refusals(void **state)
{
    struct rc_pair p;
    struct rs_rc_qp_attr a;
    struct rs_rc_qp *q;
    char err[RS_ERRBUF_SIZE];
    uint8_t buf[RS_RC_MAX_PACKET];

    (void)state;
    assert_int_equal(rc_pair_init_ipv6(&p, err), 0);
    rs_rc_qp_attr_init(&a);
    a.sq_depth = a.rq_depth = 4;
    a.dest_qpn = 0x33;
    assert_int_equal(rs_addr_parse("10.0.0.9", a.peer_gid, NULL, NULL), 0);
    assert_int_equal(rs_rc_qp_create(p.ctx[0], &a, &q, err), RS_EINVAL);
    assert_non_null(strstr(err, "10.0.0.9: not of the IP version of our address fd00::1"));
    assert_int_equal(rs_addr_parse("fd00::2", a.peer_gid, NULL, NULL), 0);
    assert_int_equal(rs_rc_qp_create(p.ctx[0], &a, &q, err), 0);
    /* A SEND to that QP from fd00::3: its ICRC good, its source wrong. */
    struct rs_roce_route r = {.family = 6, .sport = 1, .dport = RS_ROCEV2_UDP_PORT, .ttl = 64};
    assert_int_equal(rs_addr_parse("fd00::3", r.src, NULL, NULL), 0);
    memcpy(r.dst, p.gid[0], 16);
    struct rs_ib_fields f = {.opcode = 0x04, .pkey = 0xffff, .dest_qp = rs_rc_qp_num(q)};
    uint32_t n = rs_encode_rocev2(buf, sizeof(buf), &r, &f, "hi", 2, NULL, NULL);
    assert_true(n > RS_IPV6_HDR_LEN);
    rs_rc_input(p.ctx[0], buf, n, p.now);
    assert_int_equal(rs_rc_counters_get(p.ctx[0])->drop_source, 1);
    /* The same from the peer with one payload bit flipped: the ICRC catches it. */
    memcpy(r.src, p.gid[1], 16);
    n = rs_encode_rocev2(buf, sizeof(buf), &r, &f, "hi", 2, NULL, NULL);
    buf[n - 6] ^= 1;
    rs_rc_input(p.ctx[0], buf, n, p.now);
    assert_int_equal(rs_rc_counters_get(p.ctx[0])->drop_icrc, 1);
    rc_pair_free(&p);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_psn_arithmetic),
        cmocka_unit_test(test_timeouts_and_names),
        cmocka_unit_test(test_path_mtu),
        cmocka_unit_test(test_memory_regions),
        cmocka_unit_test(test_work_request_checks),
        cmocka_unit_test(test_side_channel_json),
        cmocka_unit_test(test_side_channel_reader),
        cmocka_unit_test(test_side_channel_linger),
        cmocka_unit_test(test_side_channel_refuse),
        cmocka_unit_test(test_pair_operations),
        cmocka_unit_test(test_pair_timeout_exhaustion),
        cmocka_unit_test(test_pair_timer_from_last_transmission),
        cmocka_unit_test(test_pair_rnr_recovery),
        cmocka_unit_test(test_pair_rnr_exhaustion),
        cmocka_unit_test(test_pair_lost_read_response),
        cmocka_unit_test(test_pair_ipv6),
        cmocka_unit_test(test_ipv6_refusals),
        cmocka_unit_test(test_cnp_pacing),
        cmocka_unit_test(test_udp_packets_before_timers),
        cmocka_unit_test(test_udp_send_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
