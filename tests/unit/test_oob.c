/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_oob.c - perftest's and ibv_rc_pingpong's messages: the TCP payloads
 * of the real captures (the rdma_write_bw capture in tests/captures/real/, frames 4-57,
 * and the pingpong_rc one, frames 4-8) parse to the values the tools sent and
 * our builders write the same bytes back; damaged messages are refused by
 * name; exact-size reads over a socket pair; --connect targets; perftest
 * -R's binary key message from its struct's layout; rping's buffer
 * advertisements, read from the SENDs of the rping capture and held against
 * the READs and WRITEs that follow them there.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/oob.h>
#include <roceshark/dissectors/wire.h>

#define RPING_CAPTURE \
    RS_SOURCE_DIR "/tests/captures/real/linlinw5_rdma_ib_tutorial__pcap_rping.pcap"

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

/* IB opcodes (RC) of the rping capture. */
#define OP_SEND_ONLY 0x04
#define OP_WRITE_ONLY 0x0a
#define OP_READ_REQUEST 0x0c
#define OP_READ_RESPONSE_ONLY 0x10

/* What an RC packet of the capture says: its opcode, its sender's last IPv4
 * octet, its RETH and its payload. */
struct rc_pkt {
    uint8_t opcode, from;
    uint64_t va;
    uint32_t rkey, dma_len;
    uint8_t payload[128];
    uint32_t payload_len;
};

/* The RC packets of the rping capture, in order (the CM MADs and ACKs left out). */
static unsigned
rping_capture(struct rc_pkt *out, unsigned max)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_decode_opts opts;
    struct rs_source *src;
    struct rs_frame frame;
    struct rs_packet pkt;
    unsigned n = 0;

    rs_decode_opts_init(&opts);
    assert_int_equal(rs_source_open_file(RPING_CAPTURE, &src, err), 0);
    while (rs_source_next(src, &frame, err) == 1) {
        rs_decode_frame(&frame, &opts, &pkt);
        if (!rs_packet_has(&pkt, RS_LAYER_BTH) || !rs_packet_has(&pkt, RS_LAYER_IPV4))
            continue;
        if (pkt.opcode != OP_SEND_ONLY && pkt.opcode != OP_WRITE_ONLY &&
            pkt.opcode != OP_READ_REQUEST && pkt.opcode != OP_READ_RESPONSE_ONLY)
            continue;
        assert_true(n < max);
        struct rc_pkt *r = &out[n++];
        memset(r, 0, sizeof(*r));
        r->opcode = pkt.opcode;
        r->from = rs_packet_at(&pkt, RS_LAYER_IPV4)[15];
        if (rs_packet_has(&pkt, RS_LAYER_RETH)) {
            const uint8_t *reth = rs_packet_at(&pkt, RS_LAYER_RETH);
            r->va = rs_load_be64(reth);
            r->rkey = rs_load_be32(reth + 8);
            r->dma_len = rs_load_be32(reth + 12);
        }
        if (rs_packet_has(&pkt, RS_LAYER_PAYLOAD)) {
            r->payload_len = pkt.span[RS_LAYER_PAYLOAD].len;
            assert_true(r->payload_len <= sizeof(r->payload));
            memcpy(r->payload, rs_packet_at(&pkt, RS_LAYER_PAYLOAD), r->payload_len);
        }
    }
    rs_source_close(src);
    return n;
}

/* rping -c -C 5 (10.1.16.62) against rping -s (10.1.16.61), 64-byte pings:
 * per ping, the client's source advertisement is what the server READs, the
 * READ brings back ping i's data, the client's sink advertisement is what
 * the server WRITEs, with that data again; the server's go-aheads are 16
 * zero bytes. Our builder writes the client's bytes back. */
static void
test_rping_capture(void **state)
{
    struct rc_pkt p[64];
    struct rs_oob_rping_info src, sink;
    uint8_t back[RS_OOB_RPING_INFO_SIZE], data[64], zeros[16] = {0};
    char err[RS_ERRBUF_SIZE];

    (void)state;
    unsigned n = rping_capture(p, 64);
    assert_int_equal(n, 5 * 7);
    for (unsigned ping = 0; ping < 5; ping++) {
        const struct rc_pkt *q = &p[ping * 7];
        /* client SEND (source), server READ, its response, server SEND (go ahead),
         * client SEND (sink), server WRITE, server SEND (go ahead). */
        assert_int_equal(q[0].opcode, OP_SEND_ONLY);
        assert_int_equal(q[0].from, 62);
        assert_int_equal(rs_oob_rping_info_parse(q[0].payload, q[0].payload_len, &src, err), 0);
        assert_int_equal(q[1].opcode, OP_READ_REQUEST);
        assert_int_equal(q[1].from, 61);
        assert_int_equal(src.buf, q[1].va);
        assert_int_equal(src.rkey, q[1].rkey);
        assert_int_equal(src.size, q[1].dma_len);
        assert_int_equal(src.size, 64);
        rs_oob_rping_info_format(&src, back);
        assert_memory_equal(back, q[0].payload, RS_OOB_RPING_INFO_SIZE);
        assert_int_equal(q[2].opcode, OP_READ_RESPONSE_ONLY);
        rs_oob_rping_fill(data, 64, ping);
        assert_int_equal(q[2].payload_len, 64);
        assert_memory_equal(q[2].payload, data, 64);
        assert_int_equal(q[3].opcode, OP_SEND_ONLY);
        assert_int_equal(q[3].from, 61);
        assert_int_equal(q[3].payload_len, 16);
        assert_memory_equal(q[3].payload, zeros, 16);
        assert_int_equal(q[4].opcode, OP_SEND_ONLY);
        assert_int_equal(q[4].from, 62);
        assert_int_equal(rs_oob_rping_info_parse(q[4].payload, q[4].payload_len, &sink, err),
                         0);
        assert_int_equal(q[5].opcode, OP_WRITE_ONLY);
        assert_int_equal(sink.buf, q[5].va);
        assert_int_equal(sink.rkey, q[5].rkey);
        assert_int_equal(sink.size, q[5].dma_len);
        assert_int_equal(q[5].payload_len, 64);     /* strlen + 1: the whole buffer */
        assert_memory_equal(q[5].payload, data, 64);
        assert_true(sink.rkey != src.rkey && sink.buf != src.buf);
        rs_oob_rping_info_format(&sink, back);
        assert_memory_equal(back, q[4].payload, RS_OOB_RPING_INFO_SIZE);
        assert_int_equal(q[6].opcode, OP_SEND_ONLY);
        assert_int_equal(q[6].from, 61);
        assert_memory_equal(q[6].payload, zeros, 16);
        assert_int_equal(q[6].payload_len, 16);
    }
    /* The values themselves (frames 4 and 10). */
    assert_int_equal(src.buf, 0x5b269382e5e0ull);
    assert_int_equal(src.rkey, 0x2095);
    assert_int_equal(sink.buf, 0x5b2693822500ull);
    assert_int_equal(sink.rkey, 0x1f86);
    /* Ping 0 reads "rdma-ping-0: ABC...": its header, then 'A' on. */
    rs_oob_rping_fill(data, 64, 0);
    assert_memory_equal(data, "rdma-ping-0: ABCDEFGHIJ", 23);
    assert_int_equal(data[63], 0);
    assert_int_equal(data[62], 'r');
}

static void
test_rping_damaged(void **state)
{
    const struct rs_oob_rping_info good = {0x5b269382e5e0ull, 0x2095, 64};
    struct rs_oob_rping_info info;
    uint8_t m[32], data[200];
    char err[RS_ERRBUF_SIZE];

    (void)state;
    rs_oob_rping_info_format(&good, m);
    assert_int_equal(rs_oob_rping_info_parse(m, 15, &info, err), RS_EFORMAT);
    assert_string_equal(err, "rping buffer advertisement: 15 bytes, not 16");
    assert_int_equal(rs_oob_rping_info_parse(m, 17, &info, err), RS_EFORMAT);
    assert_int_equal(rs_oob_rping_info_parse(m, 0, &info, err), RS_EFORMAT);
    /* The server's go-ahead (zeros) is no advertisement. */
    memset(m, 0, 16);
    assert_int_equal(rs_oob_rping_info_parse(m, 16, &info, err), RS_EFORMAT);
    assert_string_equal(err, "rping buffer advertisement: size 0 outside rping's 26..65535");
    struct rs_oob_rping_info big = good;
    big.size = 65536;
    rs_oob_rping_info_format(&big, m);
    assert_int_equal(rs_oob_rping_info_parse(m, 16, &info, err), RS_EFORMAT);
    big.size = 0xffffffffu;
    rs_oob_rping_info_format(&big, m);
    assert_int_equal(rs_oob_rping_info_parse(m, 16, &info, err), RS_EFORMAT);
    big.size = RS_OOB_RPING_MAX_SIZE;
    rs_oob_rping_info_format(&big, m);
    assert_int_equal(rs_oob_rping_info_parse(m, 16, &info, err), 0);
    assert_int_equal(info.size, RS_OOB_RPING_MAX_SIZE);
    /* The letters wrap from 'z' to 'A', and each ping starts one later. */
    rs_oob_rping_fill(data, 200, 57);
    assert_memory_equal(data, "rdma-ping-57: zABC", 18);
    rs_oob_rping_fill(data, 200, 58);
    assert_memory_equal(data, "rdma-ping-58: ABC", 17);
    rs_oob_rping_fill(data, 26, 2147483647u);
    assert_memory_equal(data, "rdma-ping-2147483647: ", 22);
    assert_int_equal(data[25], 0);
}

/* A key message where a BW report's binary field belongs (a peer at another step, as a -b
 * or -a one against a one-way side) is told apart from the report's doubles. */
static void
test_key_in_report(void **state)
{
    struct rs_oob_bw_report r = {65536, 5000, 1234.5, 1200.25, 0.019};
    uint8_t out[40];

    (void)state;
    assert_true(rs_oob_perftest_looks_like_key((const uint8_t *)"0000:0001", 8));
    assert_true(rs_oob_perftest_looks_like_key((const uint8_t *)"00001d:5", 8));
    rs_oob_perftest_report_format(&r, 620, out);
    assert_false(rs_oob_perftest_looks_like_key(out, 8));
    assert_false(rs_oob_perftest_looks_like_key((const uint8_t *)"0000:00g1", 8));
    assert_false(rs_oob_perftest_looks_like_key(out, 0));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_in_report),
        cmocka_unit_test(test_version),  cmocka_unit_test(test_sysdata_mtu),
        cmocka_unit_test(test_key_gid),  cmocka_unit_test(test_key_short),
        cmocka_unit_test(test_key_damaged), cmocka_unit_test(test_report),
        cmocka_unit_test(test_pingpong), cmocka_unit_test(test_io),
        cmocka_unit_test(test_target),   cmocka_unit_test(test_cm_key),
        cmocka_unit_test(test_rping_capture), cmocka_unit_test(test_rping_damaged),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
