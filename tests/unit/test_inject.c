/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_inject.c - packet specs: values, errors with their columns, the
 * opcode's headers enforced, and what is built decoded back with the
 * decoder (fields and ICRC), good and bad on purpose.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/inject/inject.h>
#include <roceshark/dissectors/wire.h>

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
static uint8_t frame_buf[RS_INJECT_MAX_FRAME];
static struct rs_frame frame;
static GRand *rng;
static struct rs_inject_run inject_run;

/* Builds the packet's next frame and decodes it into pkt. */
static void
next_decode(struct rs_packet *pkt)
{
    struct rs_decode_opts o;
    struct rs_inject_frame fr;
    char err[RS_ERRBUF_SIZE];

    if (rs_inject_next(&packet, &inject_run, frame_buf, &fr, err) != 0)
        fail_msg("%s", err);
    memset(&frame, 0, sizeof(frame));
    frame.data = fr.data;
    frame.caplen = frame.len = fr.len;
    frame.linktype = fr.encap == RS_INJECT_IB ? RS_DLT_INFINIBAND : RS_DLT_EN10MB;
    rs_decode_opts_init(&o);
    rs_decode_frame(&frame, &o, pkt);
}

/* Applies one spec line to the packet (a fresh one when fresh), then builds it and
 * decodes it into pkt. */
static void
spec_decode(const char *spec, bool fresh, struct rs_packet *pkt)
{
    char err[RS_ERRBUF_SIZE];

    if (fresh)
        rs_inject_packet_init(&packet);
    if (rs_inject_spec_parse(&packet, spec, "t", 1, err) != 0)
        fail_msg("%s", err);
    next_decode(pkt);
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
        {"infiniband.bth.psn=0x1000000", "f:3:20: infiniband.bth.psn: '0x1000000': out of "
                                          "range, or not a number or a value name"},
        {"ip.src=10.0.0.1 bogus=1", "f:3:17: bogus: not a field a packet spec sets"},
        {"ip.src=10.0.0.1 infiniband.bth.pns=1", "f:3:17: infiniband.bth.pns: not a field a "
                                                 "packet spec sets (did you mean "
                                                 "infiniband.bth.psn?)"},
        {"ip.src", "f:3:1: 'ip.src': expected FIELD=VALUE"},
        {"ip.dst=300.0.0.1", "f:3:8: ip.dst: '300.0.0.1': expected an IPv4 address"},
        {"infiniband.bth.opcode=0x1c", "f:3:23: infiniband.bth.opcode: opcode 0x1c is "
                                        "reserved"},
        {"infiniband.bth.opcode=\"RC Send Only", "f:3:1: infiniband.bth.opcode=\"RC Send Only: "
                                                 "a quote is not closed"},
        {"payload=abc", "f:3:9: payload: hex 'abc': expected hex bytes, at most 9000"},
        {"infiniband.aeth.msn=4", "f:3:1: infiniband.aeth.msn: the opcode (RC Send Only) "
                                  "carries no AETH"},
        {"infiniband.reth.va=1", "f:3:1: infiniband.reth.va: the opcode (RC Send Only) carries "
                                 "no RETH"},
        {"payload=len:9001", "f:3:13: payload: len '9001': out of range, or not a number or a "
                             "value name (0..9000)"},
        {"eth / ip / udp / bth(pns=1)", "f:3:22: layer 4 bth: no field 'pns' (did you mean "
                                        "psn?)"},
        {"ip / bth / reth(len=64)", "f:3:17: layer 3 reth: no field 'len' (did you mean "
                                    "dmalen?)"},
        {"ip / foo(x=1)", "f:3:6: layer 2 foo: unknown (eth vlan ieee8021ad ip ipv6 udp lrh grh "
                          "bth rdeth deth xrceth reth atomiceth aeth atomicacketh immdt ieth cnp "
                          "payload pad tcp mpareq mparep mpa ddp rdmap)"},
        {"eth / ip / udp / bht(psn=1)", "f:3:18: layer 4 bht: unknown (did you mean bth?)"},
        {"bth(opcode=4) / aeth(msn=1)", "f:3:22: infiniband.aeth.msn: the opcode (RC Send Only) "
                                        "carries no AETH"},
        {"bth(opcode=4", "f:3:1: layer 1 bth: '(' is not closed"},
        {"bth(psn)", "f:3:5: layer 1 bth: 'psn': expected FIELD=VALUE"},
        {"bth(psn=inc(1,2,3))", "f:3:9: infiniband.bth.psn: 'inc(1,2,3)': expected inc(START) "
                                "or inc(START,STEP) (dec alike), within the field"},
        {"bth(psn=rand(9,2))", "f:3:9: infiniband.bth.psn: 'rand(9,2)': expected rand(LO,HI) "
                               "with LO <= HI, within the field"},
        {"bth(psn=seq(1-5))", "f:3:9: infiniband.bth.psn: 'seq(1-5)': expected seq(LO..HI) "
                              "with LO <= HI, within the field"},
        {"bth(psn=foo(1))", "f:3:9: infiniband.bth.psn: 'foo(1)': unknown generator (inc, dec, "
                            "rand, list, seq)"},
        {"bth(opcode=rand)", "f:3:12: infiniband.bth.opcode: the opcode decides the headers: "
                             "give list(...) or seq(...) of opcodes, not rand"},
        {"bth(opcode=list(4,0x1c))", "f:3:5: infiniband.bth.opcode: opcode 0x1c is reserved"},
        {"bth(opcode=list(4,10)) / reth(va=1)", "f:3:31: infiniband.reth.va: the opcode (RC Send "
                                                "Only) carries no RETH"},
        {"lrh / ip(ttl=3)", "f:3:7: layer 2 ip: a native InfiniBand packet has no IP or UDP "
                            "header"},
        {"lrh / vlan(id=3)", "f:3:7: layer 2 vlan: native InfiniBand has no Ethernet header"},
        {"eth / ip / udp / bth / lrh.vl=1", "f:3:24: lrh.vl: not a field a packet spec sets (did "
                                            "you mean infiniband.lrh.vl?)"},
        {"eth / ip(ttl=1) / bth(psn=1, vcrc=1)", "f:3:30: infiniband.variant.crc: the packet "
                                                 "has no VCRC (only native InfiniBand has one)"},
        {"ip(ihl=5)", "f:3:4: layer 1 ip: no field 'ihl'"},
        {"ip(hdr_len=24)", "f:3:4: ip.hdr_len: computed by the decoder, not a field a spec sets"},
        {"payload(fill=abc)", "f:3:14: payload: fill 'abc': expected zero, ones, count, rand or "
                              "0xHEX (up to 64 bytes)"},
        {"pad(count=65)", "f:3:11: layer 1 pad: count '65': expected 0..64"},
        {"bth / payload(len=1) repeat 0", "f:3:22: repeat: expected a count from 1 to "
                                          "4294967295"},
        {"vlan.id=5000", "f:3:9: vlan.id: '5000': out of range, or not a number or a value "
                         "name"},
        {"eth.src=1:2:3", "f:3:9: eth.src: '1:2:3': expected a MAC address (02:00:00:00:00:01)"},
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
        "eth / ieee8021ad(id=7) / vlan(id=5) / grh(hoplmt=1) / bth(psn=inc(5,2)) / "
        "payload(len=rand(1,300), fill=rand) repeat 3",
        "lrh(pktlen=3) / grh / bth(opcode=list(0x64,4)) / pad(count=7) icrc=0x12 vcrc=bad",
    };
    static const char alphabet[] = "()/,=\" .x0123456789abcdefinfiniband.bth.psnlrhgvan#-";
    char text[512], err[RS_ERRBUF_SIZE];
    unsigned seed = 12345;

    (void)state;
    for (unsigned round = 0; round < 20000; round++) {
        const char *s = seeds[round % 4];
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
        if (rc == 0) {
            struct rs_inject_frame fr;
            for (int k = 0; k < 3; k++)
                if (rs_inject_next(&packet, &inject_run, frame_buf, &fr, err) == 0)
                    assert_true(fr.len > 0 && fr.len <= RS_INJECT_MAX_FRAME);
        } else
            assert_true(rc == RS_EINVAL && strncmp(err, "f:1:", 4) == 0);
    }
}


/* Every encapsulation: RoCEv1 under two tags, native IB with and without a GRH, RoCEv2
 * over IPv6, and the CNP; each decodes to what was asked, with good CRCs. */
static void
test_encapsulations(void **state)
{
    struct rs_packet pkt;

    (void)state;
    spec_decode("eth / ieee8021ad(id=7, priority=5) / vlan(id=5, priority=3) / grh(hoplmt=1, "
                "dgid=fe80::2) / bth(opcode=\"RC Send Only\", psn=5) / payload(len=5)", true, &pkt);
    assert_int_equal(pkt.encap, RS_ENCAP_ROCEV1);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_false(pkt.flags & RS_PKT_MALFORMED);
    assert_int_equal(u64_of(&pkt, "ieee8021ad.id"), 7);
    assert_int_equal(u64_of(&pkt, "vlan.id"), 5);
    assert_int_equal(u64_of(&pkt, "vlan.priority"), 3);
    assert_int_equal(u64_of(&pkt, "infiniband.grh.hoplmt"), 1);
    assert_int_equal(u64_of(&pkt, "infiniband.grh.paylen"), 12 + 8 + 4);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.padcnt"), 3);

    spec_decode("lrh(sl=3, dlid=0x10, slid=0x20) / bth(opcode=\"UD Send Only\", destqp=1) / "
                "deth(q_key=0x80010000, srcqp=1) / payload(len=7)", true, &pkt);
    assert_int_equal(pkt.encap, RS_ENCAP_IB);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(pkt.vcrc_status, RS_CKSUM_GOOD);
    assert_int_equal(u64_of(&pkt, "infiniband.lrh.sl"), 3);
    assert_int_equal(u64_of(&pkt, "infiniband.lrh.lnh"), 2);
    assert_int_equal(u64_of(&pkt, "infiniband.lrh.dlid"), 0x10);
    assert_int_equal(u64_of(&pkt, "infiniband.lrh.pktlen"), (8 + 12 + 8 + 8 + 4) / 4);
    assert_int_equal(u64_of(&pkt, "infiniband.deth.q_key"), 0x80010000);
    assert_false(rs_packet_has(&pkt, RS_LAYER_GRH));

    spec_decode("lrh / grh(tclass=5) / bth(opcode=\"RC RDMA Read Request\") / reth(dmalen=4096)",
                true, &pkt);
    assert_int_equal(pkt.vcrc_status, RS_CKSUM_GOOD);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(u64_of(&pkt, "infiniband.lrh.lnh"), 3);
    assert_int_equal(u64_of(&pkt, "infiniband.grh.tclass"), 5);
    assert_int_equal(u64_of(&pkt, "infiniband.reth.dmalen"), 4096);

    spec_decode("eth / vlan(id=100) / ipv6(src=fd00::1, dst=fd00::2, hlim=9) / udp / "
                "bth(opcode=\"RC RDMA Write First\", psn=1) / reth(dmalen=8192) / "
                "payload(len=1024)", true, &pkt);
    assert_true(rs_packet_has(&pkt, RS_LAYER_IPV6));
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_int_equal(u64_of(&pkt, "vlan.id"), 100);
    assert_int_equal(u64_of(&pkt, "ipv6.hlim"), 9);
    assert_int_equal(u64_of(&pkt, "ipv6.plen"), 8 + 12 + 16 + 1024 + 4);

    spec_decode("eth / ip(dsfield.ecn=1) / udp / bth(destqp=0x42) / cnp", true, &pkt);
    assert_int_equal(pkt.opcode, 0x81);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    assert_true(rs_packet_has(&pkt, RS_LAYER_CNP));
    assert_int_equal(u64_of(&pkt, "roceshark.bth.becn"), 1);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.destqp"), 0x42);
}

/* The generators, packet after packet: wraps at the field's width, cycles, and rand
 * repeating exactly under the same seed. */
static void
test_generators(void **state)
{
    static const uint64_t psn[] = {16777214, 16777215, 0, 1};
    static const uint64_t dec[] = {1, 0, 16777215};
    static const uint64_t qp[] = {5, 6, 7, 5, 6};
    struct rs_packet pkt;
    uint64_t first[16];
    uint8_t payload[2][64];

    (void)state;
    spec_decode("bth(psn=inc(16777214), destqp=list(5,6,7), p_key=seq(10..11))", true, &pkt);
    for (int i = 0; i < 5; i++) {
        if (i > 0)
            next_decode(&pkt);
        assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
        if (i < 4)
            assert_int_equal(u64_of(&pkt, "infiniband.bth.psn"), psn[i]);
        assert_int_equal(u64_of(&pkt, "infiniband.bth.destqp"), qp[i]);
        assert_int_equal(u64_of(&pkt, "infiniband.bth.p_key"), 10 + i % 2);
    }
    spec_decode("bth(psn=dec(1))", true, &pkt);
    for (int i = 0; i < 3; i++) {
        if (i > 0)
            next_decode(&pkt);
        assert_int_equal(u64_of(&pkt, "infiniband.bth.psn"), dec[i]);
    }
    spec_decode("bth(psn=inc(10,5))", true, &pkt);
    next_decode(&pkt);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.psn"), 15);

    /* rand under one seed, twice: the same values, within the bounds. */
    for (int run = 0; run < 2; run++) {
        g_rand_set_seed(rng, 42);
        spec_decode("udp(srcport=rand(1000,1003)) / bth(psn=rand) / payload(len=64, fill=rand)",
                    true, &pkt);
        memcpy(payload[0], rs_packet_at(&pkt, RS_LAYER_PAYLOAD), 64);
        for (int i = 0; i < 16; i++) {
            if (i > 0)
                next_decode(&pkt);
            uint64_t port = u64_of(&pkt, "udp.srcport");
            assert_true(port >= 1000 && port <= 1003);
            uint64_t v = u64_of(&pkt, "infiniband.bth.psn") << 16 | port;
            if (run == 0)
                first[i] = v;
            else
                assert_int_equal(first[i], v);
            assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
        }
        memcpy(payload[1], rs_packet_at(&pkt, RS_LAYER_PAYLOAD), 64);
        assert_memory_not_equal(payload[0], payload[1], 64);    /* new bytes each packet */
    }
    /* A generated payload length; a fill pattern. */
    spec_decode("bth / payload(len=list(1,2,3,4,5), fill=0xa1b2)", true, &pkt);
    for (int i = 0; i < 5; i++) {
        if (i > 0)
            next_decode(&pkt);
        assert_int_equal(pkt.payload_len, i + 1);
        assert_int_equal(u64_of(&pkt, "infiniband.bth.padcnt"), (4 - (i + 1) % 4) % 4);
        assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
        assert_int_equal(rs_packet_at(&pkt, RS_LAYER_PAYLOAD)[0], 0xa1);
    }
    assert_int_equal(rs_packet_at(&pkt, RS_LAYER_PAYLOAD)[3], 0xb2);
}

/* What the spec sets wins, lies included; the CRCs are then computed over the lie, so the
 * packet fails only where it was asked to. */
static void
test_lies(void **state)
{
    struct rs_packet pkt;

    (void)state;
    spec_decode("ip(len=1000) / udp(length=7) / bth(padcnt=3) / payload(len=4)", true, &pkt);
    assert_int_equal(u64_of(&pkt, "ip.len"), 1000);
    assert_int_equal(u64_of(&pkt, "udp.length"), 7);
    spec_decode("bth(padcnt=3) / payload(len=4)", true, &pkt);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.padcnt"), 3);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);

    spec_decode("bth / payload(len=5) / pad(count=0)", true, &pkt);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.padcnt"), 0);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);

    spec_decode("bth(icrc=0x12345678)", true, &pkt);
    assert_int_equal(u64_of(&pkt, "infiniband.invariant.crc"), 0x12345678);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_BAD);
    spec_decode("ip(checksum=0x1234) / bth", true, &pkt);
    assert_int_equal(u64_of(&pkt, "ip.checksum"), 0x1234);

    spec_decode("lrh(pktlen=3) / bth / payload(len=8)", true, &pkt);
    assert_true(pkt.flags & RS_PKT_MALFORMED);     /* shorter than the LRH says it is */
    spec_decode("lrh / bth / payload(len=8) vcrc=bad", true, &pkt);
    assert_int_equal(pkt.vcrc_status, RS_CKSUM_BAD);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_GOOD);
    spec_decode("lrh / bth(icrc=bad) / payload(len=8)", true, &pkt);
    assert_int_equal(pkt.vcrc_status, RS_CKSUM_GOOD);  /* the VCRC covers the wrong ICRC */
    assert_int_equal(pkt.icrc_status, RS_CKSUM_BAD);
    spec_decode("ipv6 / bth(icrc=bad)", true, &pkt);
    assert_int_equal(pkt.icrc_status, RS_CKSUM_BAD);
}

/* Value names as -Y takes them. */
static void
test_value_names(void **state)
{
    struct rs_packet pkt;

    (void)state;
    spec_decode("bth(opcode=\"RC Acknowledge\") / aeth(syndrome.opcode=NAK, "
                "syndrome.error_code=\"Remote Access Error\", msn=9)", true, &pkt);
    assert_int_equal(u64_of(&pkt, "infiniband.aeth.syndrome"), 0x62);
    assert_int_equal(u64_of(&pkt, "infiniband.aeth.msn"), 9);
    spec_decode("bth(opcode=\"rc rdma write only immediate\") / reth(dmalen=0) / "
                "immdt(data=0x01020304)", true, &pkt);
    assert_int_equal(pkt.opcode, 0x0b);
}

/* A file's lines start from the command line's spec and replace what they set. */
static void
test_lines_on_a_base(void **state)
{
    struct rs_inject_packet base;
    struct rs_packet pkt;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    rs_inject_packet_init(&base);
    assert_int_equal(rs_inject_spec_parse(&base, "ip.dst=10.1.1.1 infiniband.bth.psn=5",
                                          "command line", 1, err), 0);
    packet = base;
    assert_int_equal(rs_inject_spec_parse(&packet, "bth(psn=9) / payload(len=3) repeat 7", "f",
                                          2, err), 0);
    assert_int_equal(packet.repeat, 7);
    next_decode(&pkt);
    assert_int_equal(u64_of(&pkt, "infiniband.bth.psn"), 9);
    assert_int_equal(pkt.payload_len, 3);
    assert_int_equal(rs_load_be32(rs_packet_at(&pkt, RS_LAYER_IPV4) + 16), 0x0a010101);
}

/* iWARP packets continue their TCP flow's sequence numbers; the run keeps
 * RS_INJECT_MAX_FLOWS flows, and one past them takes the first slot, so the
 * first flow's numbers start over while the others' go on. The run counts
 * each flow forgotten so. */
static void
test_flow_table_bound(void **state)
{
    static const char *tail = ", dstport=9999) / ddp(msn=1) / rdmap(opcode=Send) / "
                              "payload(len=4)";
    char spec[256];
    struct rs_packet pkt;

    (void)state;
    inject_run.n_flows = 0;
    inject_run.flows_restarted = 0;
    snprintf(spec, sizeof(spec), "eth / ip(src=10.0.0.1, dst=10.0.0.2) / "
             "tcp(srcport=inc(40000)%s", tail);
    spec_decode(spec, true, &pkt);                          /* flow 40000 */
    assert_int_equal(u64_of(&pkt, "tcp.seq_raw"), 1000);
    for (unsigned i = 1; i <= RS_INJECT_MAX_FLOWS; i++) {  /* 40001 .. 40064 */
        next_decode(&pkt);
        assert_int_equal(u64_of(&pkt, "tcp.seq_raw"), 1000);
    }
    assert_int_equal(inject_run.n_flows, RS_INJECT_MAX_FLOWS);
    snprintf(spec, sizeof(spec), "eth / ip(src=10.0.0.1, dst=10.0.0.2) / tcp(srcport=40001%s",
             tail);
    spec_decode(spec, true, &pkt);                          /* remembered: goes on */
    uint64_t seq = u64_of(&pkt, "tcp.seq_raw");
    assert_true(seq > 1000);
    snprintf(spec, sizeof(spec), "eth / ip(src=10.0.0.1, dst=10.0.0.2) / tcp(srcport=40000%s",
             tail);
    spec_decode(spec, true, &pkt);                          /* forgotten: starts over */
    assert_int_equal(u64_of(&pkt, "tcp.seq_raw"), 1000);
    /* 40064 took 40000's slot, then 40000 took it back. */
    assert_int_equal(inject_run.flows_restarted, 2);
    inject_run.n_flows = 0;
    inject_run.flows_restarted = 0;
}

/* A spec line sets at most RS_INJECT_MAX_SETS fields by generator: the one
 * past them is refused at its column. */
static void
test_sets_bound(void **state)
{
    static const char *fields[] = {
        "vlan.priority", "vlan.dei", "vlan.id", "ip.dsfield.dscp", "ip.dsfield.ecn", "ip.id",
        "ip.flags.rb", "ip.flags.df", "ip.flags.mf", "ip.frag_offset", "ip.ttl", "udp.srcport",
        "udp.dstport", "infiniband.bth.se", "infiniband.bth.m", "infiniband.bth.tver",
        "infiniband.bth.p_key", "infiniband.bth.destqp", "infiniband.bth.a",
        "infiniband.bth.reserved7", "infiniband.bth.psn", "infiniband.reth.va",
        "infiniband.reth.r_key", "infiniband.reth.dmalen", "infiniband.mad.baseversion",
        "infiniband.mad.mgmtclass", "infiniband.mad.classversion", "infiniband.mad.method",
        "infiniband.mad.status", "infiniband.mad.classspecific", "infiniband.mad.transactionid",
        "infiniband.mad.attributeid", "infiniband.mad.attributemodifier",
        "infiniband.rmpp.rmppversion", "infiniband.rmpp.rmpptype", "infiniband.rmpp.rresptime",
        "infiniband.rmpp.rmppflags", "infiniband.rmpp.rmppstatus", "infiniband.rmpp.data1",
        "infiniband.rmpp.data2", "infiniband.rmpp.segmentnumber",
        "infiniband.rmpp.payloadlength", "infiniband.rmpp.newwindowlast", "infiniband.sa.smkey",
        "infiniband.sa.attributeoffset", "infiniband.sa.componentmask", "infiniband.sa.lid",
        "infiniband.sa.endportlid", "infiniband.sa.portnum",
    };
    char spec[4096] = "infiniband.bth.opcode=0x0a", err[RS_ERRBUF_SIZE], want[64];
    size_t col = 0;

    (void)state;
    G_STATIC_ASSERT(G_N_ELEMENTS(fields) == RS_INJECT_MAX_SETS + 1);
    for (unsigned i = 0; i < G_N_ELEMENTS(fields); i++) {
        col = strlen(spec) + 2;                     /* 1-based, past the space */
        strcat(spec, " ");
        strcat(spec, fields[i]);
        strcat(spec, "=inc(1)");
        rs_inject_packet_init(&packet);
        if (i < RS_INJECT_MAX_SETS && rs_inject_spec_parse(&packet, spec, "t", 1, err) != 0)
            fail_msg("%u fields: %s", i + 1, err);
    }
    assert_int_equal(rs_inject_spec_parse(&packet, spec, "t", 1, err), RS_EINVAL);
    snprintf(want, sizeof(want), "t:1:%zu: more than %d fields set", col, RS_INJECT_MAX_SETS);
    assert_string_equal(err, want);
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
        cmocka_unit_test(test_encapsulations),
        cmocka_unit_test(test_generators),
        cmocka_unit_test(test_lies),
        cmocka_unit_test(test_value_names),
        cmocka_unit_test(test_lines_on_a_base),
        cmocka_unit_test(test_flow_table_bound),
        cmocka_unit_test(test_sets_bound),
    };
    int rc;

    rng = g_rand_new_with_seed(1);
    inject_run.rng = rng;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    g_rand_free(rng);
    return rc;
}
