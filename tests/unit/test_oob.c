/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_oob.c - perftest's and ibv_rc_pingpong's messages: the TCP payloads
 * of the real captures (the rdma_write_bw capture in tests/captures/real/, frames 4-57,
 * and the pingpong_rc one, frames 4-8) parse to the values the tools sent and
 * our builders write the same bytes back; damaged messages are refused by
 * name; exact-size reads over a socket pair; --connect targets; perftest
 * -R's binary key message from its struct's layout.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <roceshark/addr.h>
#include <roceshark/oob.h>

/* ib_write_bw's client key message (frame 15). */
static const char key_client[] =
    "0000:0001:00001d:533a2f:00000e1c:00005e135cf9b000:00:00:00:00:00:00:00:00:00:00:ff:ff:"
    "0a:01:10:3e:00000000:";
/* ibv_rc_pingpong's client address message (frame 4). */
static const char pp_client[] = "0000:000021:59dfd7:00000000000000000000ffff0a01103e";

/* A key message's fields (LID 0, as on RoCE). */
static void
expect_dest(const struct rs_oob_dest *d, uint16_t out_reads, uint32_t qpn, uint32_t psn,
            uint32_t rkey, uint64_t vaddr, bool has_gid)
{
    assert_int_equal(d->lid, 0);
    assert_int_equal(d->out_reads, out_reads);
    assert_int_equal(d->qpn, qpn);
    assert_int_equal(d->psn, psn);
    assert_int_equal(d->rkey, rkey);
    assert_true(d->vaddr == vaddr);
    assert_true(d->has_gid == has_gid);
}

static void
test_version(void **state)
{
    uint8_t v[16], ours[16];
    unsigned h;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    memset(v, 0, sizeof(v));
    memcpy(v, "6.20", 4);       /* frames 4 and 6 */
    rs_oob_perftest_version_format(ours);
    assert_memory_equal(v, ours, 16);
    assert_int_equal(rs_oob_perftest_version_parse(v, &h, err), 0);
    assert_int_equal(h, 620);
    memcpy(v, "5.1\0", 4);
    assert_int_equal(rs_oob_perftest_version_parse(v, &h, err), 0);
    assert_int_equal(h, 510);
    memcpy(v, "6.28", 4);
    assert_int_equal(rs_oob_perftest_version_parse(v, &h, err), 0);
    assert_int_equal(h, 628);
    memset(v, 'A', sizeof(v));
    assert_int_equal(rs_oob_perftest_version_parse(v, &h, err), RS_EFORMAT);
    assert_non_null(strstr(err, "perftest version"));
    memset(v, '6', sizeof(v));  /* no NUL within 16 bytes */
    assert_int_equal(rs_oob_perftest_version_parse(v, &h, err), RS_EFORMAT);
    memset(v, 0, sizeof(v));
    assert_int_equal(rs_oob_perftest_version_parse(v, &h, err), RS_EFORMAT);
}

static void
test_sysdata_mtu(void **state)
{
    static const uint8_t sys[8] = {0, 0, 0x10, 0, 0, 0, 0, 0x40};   /* frames 8 and 10 */
    uint8_t out[8], mtu[2];
    uint32_t page, line, pmtu;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_int_equal(rs_oob_perftest_sysdata_parse(sys, &page, &line, err), 0);
    assert_int_equal(page, 4096);
    assert_int_equal(line, 64);
    rs_oob_perftest_sysdata_format(4096, 64, out);
    assert_memory_equal(out, sys, 8);
    out[2] = 0x11;
    assert_int_equal(rs_oob_perftest_sysdata_parse(out, &page, &line, err), RS_EFORMAT);

    rs_oob_perftest_mtu_format(1024, mtu);  /* frame 12: "3" and a NUL */
    assert_memory_equal(mtu, "3", 2);
    assert_int_equal(rs_oob_perftest_mtu_parse(mtu, &pmtu, err), 0);
    assert_int_equal(pmtu, 1024);
    for (uint32_t m = 256; m <= 4096; m *= 2) {
        rs_oob_perftest_mtu_format(m, mtu);
        assert_int_equal(rs_oob_perftest_mtu_parse(mtu, &pmtu, err), 0);
        assert_int_equal(pmtu, m);
    }
    assert_int_equal(rs_oob_perftest_mtu_parse((const uint8_t *)"6", &pmtu, err), RS_EFORMAT);
    assert_int_equal(rs_oob_perftest_mtu_parse((const uint8_t *)"33", &pmtu, err), RS_EFORMAT);
}

static void
test_key_gid(void **state)
{
    struct rs_oob_dest d;
    uint8_t out[RS_OOB_PERFTEST_KEY_GID_SIZE];
    char err[RS_ERRBUF_SIZE], text[64];

    (void)state;
    assert_int_equal(sizeof(key_client), 108);
    assert_int_equal(rs_oob_perftest_key_size((const uint8_t *)key_client, err), 108);
    assert_int_equal(rs_oob_perftest_key_parse((const uint8_t *)key_client, 108, &d, err), 0);
    expect_dest(&d, 1, 0x1d, 0x533a2f, 0xe1c, 0x5e135cf9b000ull, true);
    assert_true(rs_addr_is_v4mapped(d.gid));
    assert_memory_equal(d.gid + 12, "\x0a\x01\x10\x3e", 4);
    rs_oob_gid_format(d.gid, text, sizeof(text));
    assert_string_equal(text, "::ffff:10.1.16.62");
    assert_int_equal(rs_oob_perftest_key_format(&d, out), 108);
    assert_memory_equal(out, key_client, 108);
}

static void
test_key_short(void **state)
{
    struct rs_oob_dest d, back;
    uint8_t out[RS_OOB_PERFTEST_KEY_GID_SIZE];
    char err[RS_ERRBUF_SIZE];

    (void)state;
    memset(&d, 0, sizeof(d));
    d.lid = 0x12;
    d.out_reads = 16;
    d.qpn = 0xabcdef;
    d.psn = 0x123456;
    d.rkey = 0xdeadbeef;
    d.vaddr = 0x7f0000001000ull;
    d.srqn = 7;
    assert_int_equal(rs_oob_perftest_key_format(&d, out), 59);
    assert_string_equal((char *)out, "0012:0010:abcdef:123456:deadbeef:00007f0000001000:00000007");
    assert_int_equal(rs_oob_perftest_key_size(out, err), 59);
    assert_int_equal(rs_oob_perftest_key_parse(out, 59, &back, err), 0);
    assert_memory_equal(&d, &back, sizeof(d));
}

static void
test_key_damaged(void **state)
{
    struct rs_oob_dest d;
    uint8_t m[108];
    char err[RS_ERRBUF_SIZE];

    (void)state;
    memcpy(m, key_client, 108);
    m[12] = 'x';            /* inside the QPN */
    assert_int_equal(rs_oob_perftest_key_parse(m, 108, &d, err), RS_EFORMAT);
    assert_non_null(strstr(err, "QPN"));
    memcpy(m, key_client, 108);
    m[60] = 'g';            /* inside the GID */
    assert_int_equal(rs_oob_perftest_key_parse(m, 108, &d, err), RS_EFORMAT);
    assert_non_null(strstr(err, "GID"));
    memcpy(m, key_client, 108);
    m[107] = '!';           /* no NUL at the end */
    assert_int_equal(rs_oob_perftest_key_parse(m, 108, &d, err), RS_EFORMAT);
    memcpy(m, key_client, 108);
    m[58] = 'z';
    assert_int_equal(rs_oob_perftest_key_size(m, err), RS_EFORMAT);
    memcpy(m, key_client, 108);
    memcpy(m + 10, "000001", 6);    /* QP1 */
    assert_int_equal(rs_oob_perftest_key_parse(m, 108, &d, err), RS_EFORMAT);
    assert_int_equal(rs_oob_perftest_key_parse(m, 60, &d, err), RS_EFORMAT);
}

static void
test_report(void **state)
{
    /* Frames 46, 48, 50, 52, 54: size 3000, 5 iterations, three doubles. */
    static const uint8_t wire[40] = {
        0, 0, 0, 0, 0, 0, 0x0b, 0xb8, 0, 0, 0, 0, 0, 0, 0, 5,
        0x3f, 0xbb, 0xb4, 0x22, 0x7f, 0x0e, 0xc3, 0x79, 0x3f, 0xbb, 0x09, 0x45, 0x27, 0x2e, 0x30,
        0xd7, 0x3f, 0x72, 0x06, 0x2e, 0x1a, 0x1e, 0xcb, 0x3a};
    struct rs_oob_bw_report r;
    uint8_t out[40];
    size_t off[5], len[5];
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_int_equal(rs_oob_perftest_report_parse(wire, 620, &r, err), 0);
    assert_int_equal(r.size, 3000);
    assert_int_equal(r.iters, 5);
    assert_true(r.bw_peak > 0.108 && r.bw_peak < 0.109);
    assert_true(r.bw_avg > 0.105 && r.bw_avg < 0.107);
    assert_true(r.msg_rate > 0.0044 && r.msg_rate < 0.0045);
    rs_oob_perftest_report_format(&r, 620, out);
    assert_memory_equal(out, wire, 40);
    rs_oob_perftest_report_layout(532, off, len);
    assert_int_equal(len[1], 4);
    assert_int_equal(off[2], 12);
    rs_oob_perftest_report_format(&r, 532, out);
    assert_int_equal(rs_oob_perftest_report_parse(out, 532, &r, err), 0);
    assert_int_equal(r.iters, 5);
    r.bw_avg = NAN;
    rs_oob_perftest_report_format(&r, 620, out);
    assert_int_equal(rs_oob_perftest_report_parse(out, 620, &r, err), RS_EFORMAT);
}

static void
test_pingpong(void **state)
{
    struct rs_oob_pingpong_dest d;
    uint8_t out[RS_OOB_PINGPONG_SIZE], m[RS_OOB_PINGPONG_SIZE];
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_int_equal(sizeof(pp_client), 52);
    assert_int_equal(rs_oob_pingpong_parse((const uint8_t *)pp_client, &d, err), 0);
    assert_int_equal(d.lid, 0);
    assert_int_equal(d.qpn, 0x21);
    assert_int_equal(d.psn, 0x59dfd7);
    assert_int_equal(d.gid[10], 0xff);
    assert_int_equal(d.gid[15], 0x3e);
    rs_oob_pingpong_format(&d, out);
    assert_memory_equal(out, pp_client, 52);
    assert_int_equal(rs_oob_pingpong_done_parse((const uint8_t *)"done", err), 0);
    assert_int_equal(rs_oob_pingpong_done_parse((const uint8_t *)"dune", err), RS_EFORMAT);
    memcpy(m, pp_client, 52);
    m[30] = ':';
    assert_int_equal(rs_oob_pingpong_parse(m, &d, err), RS_EFORMAT);
    assert_non_null(strstr(err, "GID"));
    memcpy(m, pp_client, 52);
    m[51] = 'a';
    assert_int_equal(rs_oob_pingpong_parse(m, &d, err), RS_EFORMAT);
}

/* perftest -R's key message as rdma_write_keys() sends it from x86_64: struct
 * pingpong_dest with its ints htobe32()'d and its VA htobe64()'d: LID 0,
 * out_reads 16, QPN 0x11, PSN 0x123456, R_Key 0x5a000101, four bytes of
 * padding (perftest's stack: anything), VA 0x7f5561d69000, the GID
 * ::ffff:127.0.0.2, SRQN 0, GID index 3. */
static const uint8_t cm_key[RS_OOB_PERFTEST_CM_KEY_SIZE] = {
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x11,
    0x00, 0x12, 0x34, 0x56, 0x5a, 0x00, 0x01, 0x01, 0xde, 0xad, 0xbe, 0xef,
    0x00, 0x00, 0x7f, 0x55, 0x61, 0xd6, 0x90, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff,
    0x7f, 0x00, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03};

static void
test_cm_key(void **state)
{
    struct rs_oob_dest d, back;
    uint8_t out[RS_OOB_PERFTEST_CM_KEY_SIZE], bad[RS_OOB_PERFTEST_CM_KEY_SIZE + 8];
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_int_equal(rs_oob_perftest_cm_key_parse(cm_key, sizeof(cm_key), &d, err), 0);
    expect_dest(&d, 16, 0x11, 0x123456, 0x5a000101, 0x7f5561d69000ull, true);
    assert_memory_equal(d.gid, cm_key + 32, 16);
    assert_int_equal(d.srqn, 0);
    /* Ours: the same bytes, but zero padding and GID index. */
    rs_oob_perftest_cm_key_format(&d, out);
    assert_memory_equal(out, cm_key, 20);
    assert_memory_equal(out + 24, cm_key + 24, 28);
    assert_memory_equal(out + 20, "\0\0\0\0", 4);
    assert_memory_equal(out + 52, "\0\0\0\0", 4);
    assert_int_equal(rs_oob_perftest_cm_key_parse(out, sizeof(out), &back, err), 0);
    assert_memory_equal(&back, &d, sizeof(d));
    /* The barriers before perftest's QPs exist: all zeros. */
    memset(bad, 0, sizeof(bad));
    assert_int_equal(rs_oob_perftest_cm_key_parse(bad, RS_OOB_PERFTEST_CM_KEY_SIZE, &d, err), 0);
    assert_int_equal(d.qpn, 0);
    /* Short, and perftest 6.29's 64 bytes. */
    assert_int_equal(rs_oob_perftest_cm_key_parse(cm_key, 55, &d, err), RS_EFORMAT);
    assert_string_equal(err, "perftest -R key message: 55 bytes, expected 56 (perftest 4.5 to "
                        "6.28's struct pingpong_dest)");
    memcpy(bad, cm_key, sizeof(cm_key));
    assert_int_equal(rs_oob_perftest_cm_key_parse(bad, sizeof(bad), &d, err), RS_EFORMAT);
    assert_int_equal(rs_oob_perftest_cm_key_parse(cm_key, 0, &d, err), RS_EFORMAT);
    /* Fields wider than perftest's: a negative out_reads, a 25-bit QPN, a PSN, a LID. */
    static const struct {
        size_t off;
        uint8_t v[4];
        const char *why;
    } wide[] = {{4, {0xff, 0xff, 0xff, 0xff}, "out_reads 0xffffffff is wider than 0xffff"},
                {8, {0x01, 0x00, 0x00, 0x11}, "QPN 0x01000011 is wider than 0xffffff"},
                {12, {0x80, 0x12, 0x34, 0x56}, "PSN 0x80123456 is wider than 0xffffff"},
                {0, {0x00, 0x01, 0x00, 0x00}, "LID 0x00010000 is wider than 0xffff"},
                {8, {0x00, 0x00, 0x00, 0x01}, "QPN 1 is the GSI, not an RC QP"}};
    for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++) {
        memcpy(bad, cm_key, sizeof(cm_key));
        memcpy(bad + wide[i].off, wide[i].v, 4);
        assert_int_equal(rs_oob_perftest_cm_key_parse(bad, sizeof(cm_key), &d, err),
                         RS_EFORMAT);
        assert_non_null(strstr(err, "perftest -R key message: "));
        assert_non_null(strstr(err, wide[i].why));
    }
}

static void
test_io(void **state)
{
    int sv[2];
    uint8_t buf[16];
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(rs_oob_write(sv[0], "abcdef", 6, "test", err), 0);
    assert_int_equal(rs_oob_read(sv[1], buf, 6, 1000, "test", err), 0);
    assert_memory_equal(buf, "abcdef", 6);
    /* Half a message, then silence: the deadline. */
    assert_int_equal(rs_oob_write(sv[0], "abc", 3, "test", err), 0);
    assert_int_equal(rs_oob_read(sv[1], buf, 8, 50, "key", err), RS_EIO);
    assert_non_null(strstr(err, "3 of 8 bytes"));
    /* Half a message, then the peer closes. */
    assert_int_equal(rs_oob_write(sv[0], "ab", 2, "test", err), 0);
    close(sv[0]);
    assert_int_equal(rs_oob_read(sv[1], buf, 5, 1000, "done", err), RS_EIO);
    assert_string_equal(err, "done: the peer closed after 2 of 5 bytes");
    /* Writing to a closed peer is an error, not SIGPIPE. */
    int rc = 0;
    for (int i = 0; i < 3 && rc == 0; i++)
        rc = rs_oob_write(sv[1], "x", 1, "late", err);
    assert_int_equal(rc, RS_EIO);
    close(sv[1]);
}

static void
test_target(void **state)
{
    struct rs_oob_target t;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_int_equal(rs_oob_target_parse("10.0.0.1", &t, err), 0);
    assert_int_equal(t.setup, RS_OOB_SETUP_ROCESHARK);
    assert_int_equal(t.port, 0);
    assert_int_equal(rs_oob_target_parse("perftest://10.0.0.2:18516", &t, err), 0);
    assert_int_equal(t.setup, RS_OOB_SETUP_PERFTEST);
    assert_memory_equal(t.gid, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\x00\x00\x02", 16);
    assert_int_equal(t.port, 18516);
    assert_int_equal(rs_oob_target_parse("pingpong://127.0.0.1", &t, err), 0);
    assert_int_equal(t.setup, RS_OOB_SETUP_PINGPONG);
    assert_int_equal(rs_oob_target_parse("cm://127.0.0.1:7471", &t, err), 0);
    assert_int_equal(t.setup, RS_OOB_SETUP_CM);
    assert_string_equal(rs_oob_setup_name(t.setup), "cm");
    assert_int_equal(rs_oob_target_parse("perftest+cm://127.0.0.1:18515", &t, err), 0);
    assert_int_equal(t.setup, RS_OOB_SETUP_PERFTEST_CM);
    assert_int_equal(t.port, 18515);
    assert_string_equal(rs_oob_setup_name(t.setup), "perftest+cm");
    assert_int_equal(rs_oob_target_parse("roceshark://127.0.0.1", &t, err), 0);
    assert_int_equal(t.setup, RS_OOB_SETUP_ROCESHARK);
    assert_int_equal(rs_oob_target_parse("rdma://127.0.0.1", &t, err), RS_EINVAL);
    assert_int_equal(rs_oob_target_parse("perftest://10.0.0.1:0", &t, err), RS_EINVAL);
    assert_int_equal(rs_oob_target_parse("perftest://10.0.0.1:", &t, err), RS_EINVAL);
    assert_int_equal(rs_oob_target_parse("perftest://host", &t, err), RS_EINVAL);
    /* IPv6: bare, bracketed with a port, link-local with a scope (lo is always there). */
    assert_int_equal(rs_oob_target_parse("::1", &t, err), 0);
    assert_int_equal(t.port, 0);
    assert_memory_equal(t.gid, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
    assert_int_equal(rs_oob_target_parse("perftest://[2001:db8::5]:18516", &t, err), 0);
    assert_int_equal(t.setup, RS_OOB_SETUP_PERFTEST);
    assert_int_equal(t.port, 18516);
    assert_int_equal(t.gid[15], 5);
    assert_int_equal(rs_oob_target_parse("perftest://[fe80::1%lo]:7", &t, err), 0);
    assert_int_equal(t.scope, 1);
    assert_int_equal(rs_oob_target_parse("fe80::1%lo", &t, err), 0);
    assert_int_equal(t.port, 0);
    assert_int_equal(rs_oob_target_parse("perftest://fe80::1", &t, err), RS_EINVAL);
    assert_non_null(strstr(err, "needs a scope"));
    assert_int_equal(rs_oob_target_parse("perftest://[fe80::1%nosuch0]", &t, err), RS_EINVAL);
    assert_non_null(strstr(err, "no interface named nosuch0"));
    assert_int_equal(rs_oob_target_parse("[::1]:99999", &t, err), RS_EINVAL);
    assert_int_equal(rs_oob_target_parse("[::1", &t, err), RS_EINVAL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),  cmocka_unit_test(test_sysdata_mtu),
        cmocka_unit_test(test_key_gid),  cmocka_unit_test(test_key_short),
        cmocka_unit_test(test_key_damaged), cmocka_unit_test(test_report),
        cmocka_unit_test(test_pingpong), cmocka_unit_test(test_io),
        cmocka_unit_test(test_target), cmocka_unit_test(test_cm_key),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
