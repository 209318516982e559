/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_inject.c - packet specs: values, errors with their columns, the
 * opcode's headers enforced, and what is built decoded back with the
 * decoder (fields and ICRC), good and bad on purpose.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/dissect.h>
#include <roceshark/fields.h>
#include <roceshark/inject.h>

struct first {
    bool found;
    struct rs_value v;
};

static void
take_first(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    struct first *fi = ctx;

    (void)f;
    if (!fi->found)
        fi->v = *v;
    fi->found = true;
}

/* The first value of field name in pkt, as an integer. */
static uint64_t
u64_of(const struct rs_packet *pkt, const char *name)
{
    struct first fi = {0};
    int id = rs_field_lookup(name);

    assert_true(id >= 0);
    rs_field_foreach(pkt, id, take_first, &fi);
    if (!fi.found)
        fail_msg("%s: not in the packet", name);
    return fi.v.v.u;
}

/* The packet under test, kept between the lines applied to it. */
static struct rs_inject_packet packet;
static uint8_t frame_buf[10000];
static struct rs_frame frame;

/* Applies one spec line to the packet (a fresh one when fresh), then builds it as an
 * Ethernet frame and decodes it into pkt. */
static void
spec_decode(const char *spec, bool fresh, struct rs_packet *pkt)
{
    struct rs_decode_opts o;
    char err[RS_ERRBUF_SIZE];

    if (fresh)
        rs_inject_packet_init(&packet);
    if (rs_inject_spec_parse(&packet, spec, "t", 1, err) != 0)
        fail_msg("%s", err);
    uint32_t n = rs_inject_build(&packet, true, frame_buf, sizeof(frame_buf));
    assert_true(n > 0);
    memset(&frame, 0, sizeof(frame));
    frame.data = frame_buf;
    frame.caplen = frame.len = n;
    frame.linktype = RS_DLT_EN10MB;
    rs_decode_opts_init(&o);
    rs_decode_frame(&frame, &o, pkt);
}

static void
test_write_spec(void **state)
{
    struct rs_packet pkt;

    (void)state;
    spec_decode("ip.src=127.0.0.5 ip.dst=127.0.0.6 infiniband.bth.opcode=\"RC RDMA Write Only\" "
                "infiniband.bth.destqp=0x123 infiniband.bth.psn=7 infiniband.bth.a=true "
                "infiniband.reth.va=0x1000 infiniband.reth.r_key=0x55 "
                "infiniband.reth.dmalen=3 payload=0a0b0c", true, &pkt);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_false(pkt.flags & RS_PKT_MALFORMED);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.opcode"), 0x0a);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.destqp"), 0x123);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.psn"), 7);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.a"), 1);
    assert_int_equal(u64_of(&pkt, "infiniband.reth.va"), 0x1000);
    assert_int_equal(u64_of(&pkt, "infiniband.reth.r_key"), 0x55);
    assert_int_equal(u64_of(&pkt, "infiniband.reth.dmalen"), 3);
    assert_int_equal(pkt.payload_len, 3);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.padcnt"), 1);

    /* icrc=bad: the same packet with its ICRC wrong, and nothing else. */
    spec_decode("icrc=bad", false, &pkt);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_BAD);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.psn"), 7);
}

static void
test_atomic_and_ipv6(void **state)
{
    struct rs_packet pkt;

    (void)state;
    spec_decode("ip.src=fd00::1 ip.dst=fd00::2 infiniband.bth.opcode=0x14 "
                "infiniband.reth.va=0x2000 infiniband.reth.r_key=9 "
                "infiniband.atomiceth.swapdt=5", true, &pkt);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_true(rs_packet_has(&pkt, RS_LAYER_IPV6));
    /* Wireshark shows the AtomicETH's address as infiniband.reth.va, and so do we. */
    assert_int_equal(u64_of(&pkt, "infiniband.reth.va"), 0x2000);
    assert_int_equal(u64_of(&pkt, "infiniband.atomiceth.swapdt"), 5);
}

/* The layered form sets the same fields as the flat one. */
static void
test_layers(void **state)
{
    struct rs_packet pkt;

    (void)state;
    spec_decode("eth / ip(dst=10.0.0.9, dsfield=3) / udp(srcport=777) / "
                "bth(opcode=\"RC RDMA Write Only\", destqp=0x11, psn=100, a=1, becn=1) / "
                "reth(va=0x1000, r_key=0x1234, dmalen=64) / payload(len=64)", true, &pkt);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(u64_of(&pkt, "udp.srcport"), 777);
    assert_int_equal(u64_of(&pkt, "ip.dsfield.ecn"), 3);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.psn"), 100);
    assert_int_equal(u64_of(&pkt, "roceshark.bth.becn"), 1);
    assert_int_equal(u64_of(&pkt, "infiniband.reth.r_key"), 0x1234);
    assert_int_equal(pkt.payload_len, 64);
    spec_decode("ipv6(src=fd00::1, dst=fd00::2) / bth(opcode=0x05, icrc=bad) / "
                "immdt(data=0xdeadbeef) / payload(hex=0a0b)", true, &pkt);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_BAD);
    assert_true(rs_packet_has(&pkt, RS_LAYER_IPV6));
    assert_int_equal(pkt.payload_len, 2);
}

/* Each bad spec: its message, with the column of the word (or value) at fault. */
static void
test_errors(void **state)
{
    static const struct {
        const char *spec, *err;
    } cases[] = {
        {"infiniband.bth.psn=0x1000000", "f:3:20: infiniband.bth.psn: '0x1000000' out of "
                                          "range or not a number"},
        {"ip.src=10.0.0.1 bogus=1", "f:3:17: bogus: not a field a packet spec sets (see "
                                    "'roceshark inject -h')"},
        {"ip.src", "f:3:1: 'ip.src': expected FIELD=VALUE"},
        {"ip.dst=300.0.0.1", "f:3:8: ip.dst: bad value '300.0.0.1'"},
        {"infiniband.bth.opcode=0x1c", "f:3:23: infiniband.bth.opcode: opcode 0x1c is "
                                        "reserved"},
        {"infiniband.bth.opcode=\"RC Send Only", "f:3:1: infiniband.bth.opcode=RC Send Only: "
                                                 "a quote is not closed"},
        {"payload=abc", "f:3:9: payload: 'abc': expected hex bytes or len:N (N up to 9000)"},
        {"infiniband.aeth.msn=4", "f:3:1: the opcode (RC Send Only) carries no AETH"},
        {"infiniband.reth.va=1", "f:3:1: the opcode (RC Send Only) carries no RETH or "
                                 "AtomicETH"},
        {"payload=len:9001", "f:3:9: payload: 'len:9001': expected hex bytes or len:N (N up "
                             "to 9000)"},
        {"eth / ip / udp / bth(pns=1)", "f:3:22: layer 4 bth: no field 'pns'"},
        {"ip / foo(x=1)", "f:3:6: layer foo: unknown (eth, ip, ipv6, udp, bth, rdeth, deth, "
                          "xrceth, reth, atomiceth, aeth, atomicacketh, immdt, ieth, payload)"},
        {"bth(opcode=4) / aeth(msn=1)", "f:3:22: the opcode (RC Send Only) carries no AETH"},
        {"bth(opcode=4", "f:3:1: layer bth: '(' is not closed"},
        {"bth(psn)", "f:3:5: layer bth: 'psn': expected FIELD=VALUE"},
    };
    static struct rs_inject_packet p;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rs_inject_packet_init(&p);
        assert_int_equal(rs_inject_spec_parse(&p, cases[i].spec, "f", 3, err), RS_EINVAL);
        assert_string_equal(err, cases[i].err);
    }
    /* Comments and empty lines are nothing. */
    rs_inject_packet_init(&p);
    assert_int_equal(rs_inject_spec_parse(&p, "   # a comment", "f", 1, err), 0);
    assert_int_equal(p.f.opcode, 0x04);
}

/* Mutated specs (bytes changed, cut, repeated) never crash the parser or the builder: each
 * either parses or is refused with a located message. Under ASan an over-read fails it. */
static void
test_mutations(void **state)
{
    static const char *const seeds[] = {
        "eth / ip(dst=10.0.0.9, dsfield=3) / udp(srcport=777) / bth(opcode=\"RC RDMA Write "
        "Only\", psn=100) / reth(va=0x1000, r_key=0x1234, dmalen=64) / payload(len=64)",
        "ip.src=fd00::1 infiniband.bth.opcode=0x13 infiniband.reth.va=1 "
        "infiniband.atomiceth.swapdt=2 payload=0a0b",
    };
    static const char alphabet[] = "()/,=\" .x0123456789abcdefinfiniband.bth.psn#-";
    static uint8_t buf[10000];
    char text[512], err[RS_ERRBUF_SIZE];
    unsigned seed = 12345;

    (void)state;
    for (unsigned round = 0; round < 20000; round++) {
        const char *s = seeds[round % 2];
        size_t n = strlen(s) < sizeof(text) - 1 ? strlen(s) : sizeof(text) - 1;
        memcpy(text, s, n);
        for (unsigned k = 0; k < 1 + round % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % n;
            text[at] = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
        }
        seed = seed * 1103515245u + 12345u;
        if (round % 5 == 0)
            n = (seed >> 8) % n;        /* cut anywhere */
        text[n] = '\0';
        rs_inject_packet_init(&packet);
        int rc = rs_inject_spec_parse(&packet, text, "f", 1, err);
        if (rc == 0)
            assert_true(rs_inject_build(&packet, true, buf, sizeof(buf)) > 0);
        else
            assert_true(rc == RS_EINVAL && strncmp(err, "f:1:", 4) == 0);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_spec),
        cmocka_unit_test(test_atomic_and_ipv6),
        cmocka_unit_test(test_layers),
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
