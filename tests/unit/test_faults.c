/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_faults.c - the fault engine on a virtual clock: each action, the
 * selectors and limits (dir, times, skip, every, prob), the seed's
 * repeatability, and every rules-file error with its place.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/encode_iwarp.h>
#include <roceshark/inject/faults.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/inject/inject.h>
#include <roceshark/dissectors/wire.h>

#include "testutil.h"

#define MAX_OUT 256

/* What the engine let through, in order. */
struct out {
    unsigned n;
    enum rs_fault_dir dir[MAX_OUT];
    uint32_t psn[MAX_OUT];
    uint8_t ecn[MAX_OUT];
    uint8_t icrc[MAX_OUT];
    uint64_t at[MAX_OUT];
    uint64_t now;
};

static struct rs_packet
decode(const uint8_t *pkt, uint32_t len, struct rs_frame *frame)
{
    struct rs_decode_opts o;
    struct rs_packet p;

    memset(frame, 0, sizeof(*frame));
    frame->data = pkt;
    frame->caplen = frame->len = len;
    frame->linktype = RS_DLT_IPV4;
    rs_decode_opts_init(&o);
    rs_decode_frame(frame, &o, &p);
    return p;
}

static void
collect(void *ctx, enum rs_fault_dir dir, const uint8_t *pkt, uint32_t len)
{
    struct out *o = ctx;
    struct rs_frame frame;
    struct rs_packet p = decode(pkt, len, &frame);

    assert_true(o->n < MAX_OUT);
    o->dir[o->n] = dir;
    o->psn[o->n] = rs_load_be32(rs_packet_at(&p, RS_LAYER_BTH) + 8) & 0xffffff;
    o->ecn[o->n] = p.ecn;
    o->icrc[o->n] = p.icrc_status;
    o->at[o->n] = o->now;
    o->n++;
}

/* An RC SEND Only with PSN psn, as an IPv4 packet. */
static uint32_t
packet(uint32_t psn, uint8_t *buf)
{
    return test_rc_send_only(psn, buf, 256);
}

static struct rs_faults *
rules(const char *text)
{
    struct rs_faults *f;
    char err[RS_ERRBUF_SIZE];

    if (rs_faults_parse(text, "t", &f, err) != 0)
        fail_msg("%s", err);
    return f;
}

/* Sends PSNs 0..n-1 (direction tx unless rx_every divides the PSN), one every 1 us. */
static void
run(struct rs_faults *f, unsigned n, struct out *o)
{
    uint8_t buf[256];

    memset(o, 0, sizeof(*o));
    for (unsigned i = 0; i < n; i++) {
        o->now = (uint64_t)i * 1000;
        uint32_t len = packet(i, buf);
        rs_faults_packet(f, RS_FAULT_TX, RS_DLT_IPV4, buf, len, o->now, collect, o);
    }
}

static void
test_drop_selectors(void **state)
{
    struct out o;
    struct rs_fault_rule_stats st;

    (void)state;
    struct rs_faults *f = rules("# one rule\ndrop times 2 skip 1 if infiniband.bth.psn >= 3\n");
    run(f, 10, &o);
    /* PSNs 3..9 match; the first is skipped, the next two dropped. */
    assert_int_equal(o.n, 8);
    uint32_t want[] = {0, 1, 2, 3, 6, 7, 8, 9};
    assert_memory_equal(o.psn, want, sizeof(want));
    rs_faults_rule_stats(f, 0, &st);
    assert_int_equal(st.matched, 7);
    assert_int_equal(st.acted, 2);
    rs_faults_free(f);

    f = rules("drop every 3\n");
    run(f, 9, &o);
    uint32_t every[] = {0, 1, 3, 4, 6, 7};
    assert_int_equal(o.n, 6);
    assert_memory_equal(o.psn, every, sizeof(every));
    rs_faults_free(f);

    f = rules("drop pattern XOOX\n");
    run(f, 8, &o);
    uint32_t pattern[] = {1, 2, 5, 6};
    assert_int_equal(o.n, 4);
    assert_memory_equal(o.psn, pattern, sizeof(pattern));
    rs_faults_free(f);

    /* dir rx: our tx packets pass untouched. */
    f = rules("drop dir rx\n");
    run(f, 5, &o);
    assert_int_equal(o.n, 5);
    rs_faults_free(f);
}

static void
test_prob_and_seed(void **state)
{
    struct out a, b, c;

    (void)state;
    struct rs_faults *f = rules("seed 7\ndrop prob 0.3\n");
    run(f, 200, &a);
    rs_faults_free(f);
    f = rules("seed 7\ndrop prob 0.3\n");
    run(f, 200, &b);
    rs_faults_free(f);
    f = rules("seed 8\ndrop prob 0.3\n");
    run(f, 200, &c);
    rs_faults_free(f);
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.psn, b.psn, a.n * sizeof(a.psn[0]));
    assert_true(a.n > 110 && a.n < 170);       /* about 140 of 200 pass */
    assert_true(a.n != c.n || memcmp(a.psn, c.psn, a.n * sizeof(a.psn[0])) != 0);
}

static void
test_duplicate_reorder_delay(void **state)
{
    struct out o;
    uint8_t buf[256];

    (void)state;
    struct rs_faults *f = rules("duplicate 2 if infiniband.bth.psn == 1\n");
    run(f, 3, &o);
    uint32_t dup[] = {0, 1, 1, 1, 2};
    assert_int_equal(o.n, 5);
    assert_memory_equal(o.psn, dup, sizeof(dup));
    rs_faults_free(f);

    /* PSN 1 goes after two more packets: 0 2 3 1 4. */
    f = rules("reorder gap 2 if infiniband.bth.psn == 1\n");
    run(f, 5, &o);
    uint32_t reo[] = {0, 2, 3, 1, 4};
    assert_int_equal(o.n, 5);
    assert_memory_equal(o.psn, reo, sizeof(reo));
    rs_faults_free(f);

    /* A reordered packet with nothing after it still goes, at its deadline. */
    f = rules("reorder gap 5 if infiniband.bth.psn == 2\n");
    run(f, 3, &o);
    assert_int_equal(o.n, 2);
    o.now = 50000000;
    assert_int_not_equal(rs_faults_poll(f, o.now, collect, &o), RS_FAULTS_NEVER);
    assert_int_equal(o.n, 2);
    o.now = 200000000;
    assert_int_equal(rs_faults_poll(f, o.now, collect, &o), RS_FAULTS_NEVER);
    assert_int_equal(o.n, 3);
    rs_faults_free(f);

    /* delay 2ms: held until then, jitter inside its bounds. */
    f = rules("seed 1\ndelay 2ms jitter 500us if infiniband.bth.psn == 0\n");
    run(f, 2, &o);
    assert_int_equal(o.n, 1);
    assert_int_equal(o.psn[0], 1);
    uint64_t due = rs_faults_poll(f, 1000, collect, &o);
    assert_true(due >= 1500000 && due <= 2500000);
    o.now = due - 1;
    assert_int_equal(rs_faults_poll(f, o.now, collect, &o), due);
    o.now = due;
    assert_int_equal(rs_faults_poll(f, o.now, collect, &o), RS_FAULTS_NEVER);
    assert_int_equal(o.n, 2);
    assert_int_equal(o.psn[1], 0);
    rs_faults_free(f);

    /* stall 1ms at PSN 1: it and what follows wait for the end of the stall, in order. */
    f = rules("stall 1ms times 1 if infiniband.bth.psn == 1\n");
    run(f, 4, &o);
    assert_int_equal(o.n, 1);
    o.now = 500000;
    assert_int_equal(rs_faults_poll(f, o.now, collect, &o), 1001000);
    o.now = 1003000;
    rs_faults_poll(f, o.now, collect, &o);
    uint32_t stalled[] = {0, 1, 2, 3};
    assert_int_equal(o.n, 4);
    assert_memory_equal(o.psn, stalled, sizeof(stalled));
    rs_faults_free(f);
    (void)buf;
}

static void
test_rewrites(void **state)
{
    struct out o;

    (void)state;
    /* set and add rewrite the field and the ICRC follows; keep icrc leaves it wrong. */
    struct rs_faults *f = rules("set infiniband.bth.psn=77 if infiniband.bth.psn == 0\n"
                                "add infiniband.bth.psn+=16777215 if infiniband.bth.psn == 2\n"
                                "set infiniband.bth.psn=99 keep icrc if infiniband.bth.psn == 3\n"
                                "mark ecn ce if infiniband.bth.psn == 4\n"
                                "corrupt icrc if infiniband.bth.psn == 5\n");
    run(f, 6, &o);
    assert_int_equal(o.n, 6);
    uint32_t psn[] = {77, 1, 1, 99, 4, 5};
    assert_memory_equal(o.psn, psn, sizeof(psn));
    uint8_t icrc[] = {RS_CKSUM_GOOD, RS_CKSUM_GOOD, RS_CKSUM_GOOD, RS_CKSUM_BAD,
                      RS_CKSUM_GOOD, RS_CKSUM_BAD};
    assert_memory_equal(o.icrc, icrc, sizeof(icrc));
    assert_int_equal(o.ecn[4], 3);
    assert_int_equal(o.ecn[3], 0);
    rs_faults_free(f);

    /* Value names, as a display filter takes them. */
    f = rules("set infiniband.bth.opcode=\"RC Send Last\" times 1\n");
    run(f, 2, &o);
    assert_int_equal(o.n, 2);
    rs_faults_free(f);
}

/* The packets the engine let through, whole, for the inject tests. */
struct made {
    unsigned n;
    enum rs_fault_dir dir[16];
    uint8_t pkt[16][512];
    uint32_t len[16];
};

static void
keep(void *ctx, enum rs_fault_dir dir, const uint8_t *pkt, uint32_t len)
{
    struct made *m = ctx;

    assert_true(m->n < 16 && len <= sizeof(m->pkt[0]));
    m->dir[m->n] = dir;
    memcpy(m->pkt[m->n], pkt, len);
    m->len[m->n++] = len;
}

/* One made-up packet, decoded: its BTH and AETH as numbers, and its ICRC checked. */
struct answer {
    uint8_t opcode, syndrome;
    bool becn;
    uint32_t dest_qp, psn, msn;
    uint8_t src[4], dst[4];
    uint32_t payload;
    uint8_t first, last;    /* the payload's first and last bytes */
    uint8_t icrc;
};

static struct answer
answer_of(const struct made *m, unsigned i)
{
    struct rs_frame frame;
    struct rs_decode_opts o;
    struct rs_packet p;
    struct answer a;

    memset(&frame, 0, sizeof(frame));
    frame.data = m->pkt[i];
    frame.caplen = frame.len = m->len[i];
    frame.linktype = RS_DLT_IPV4;
    rs_decode_opts_init(&o);
    o.verify_crc = true;
    rs_decode_frame(&frame, &o, &p);
    assert_true(rs_packet_has(&p, RS_LAYER_BTH));
    const uint8_t *bth = rs_packet_at(&p, RS_LAYER_BTH), *ip = rs_packet_at(&p, RS_LAYER_IPV4);
    memset(&a, 0, sizeof(a));
    a.opcode = bth[0];
    a.becn = (bth[4] & 0x40) != 0;     /* FECN, BECN, reserved */
    a.dest_qp = rs_load_be24(bth + 5);
    a.psn = rs_load_be24(bth + 9);
    if (rs_packet_has(&p, RS_LAYER_AETH)) {
        a.syndrome = rs_packet_at(&p, RS_LAYER_AETH)[0];
        a.msn = rs_load_be24(rs_packet_at(&p, RS_LAYER_AETH) + 1);
    }
    memcpy(a.src, ip + 12, 4);
    memcpy(a.dst, ip + 16, 4);
    a.payload = p.payload_len;
    if (p.payload_len > 0) {
        const uint8_t *pl = rs_packet_at(&p, RS_LAYER_PAYLOAD);
        a.first = pl[0];
        a.last = pl[p.payload_len - 1];
    }
    a.icrc = p.icrc_status;
    return a;
}

static void
send_psn(struct rs_faults *f, uint32_t psn, struct made *m)
{
    uint8_t buf[256];
    uint32_t len = packet(psn, buf);

    rs_faults_packet(f, RS_FAULT_RX, RS_DLT_IPV4, buf, len, psn * 1000ull, keep, m);
}

static void
test_inject(void **state)
{
    static const uint8_t requester_gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
                                              10, 0, 0, 1};
    static const uint8_t responder_gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
                                              10, 0, 0, 2};
    const uint8_t *requester = requester_gid + 12, *responder = responder_gid + 12;
    struct made m;
    struct rs_fault_rule_stats st;

    (void)state;
    struct rs_faults *f = rules(
        "inject nak psn_seq_error if infiniband.bth.psn == 2\n"
        "drop if infiniband.bth.psn == 2\n"
        "inject rnr 1ms if infiniband.bth.psn == 3\n"
        "inject ack if infiniband.bth.psn == 4\n"
        "inject cnp if infiniband.bth.psn == 5\n"
        "inject nak remote_access_error qp 0x99 msn 7 psn 1000 if infiniband.bth.psn == 6\n"
        "inject read response last len 40 fill 0xab if infiniband.bth.psn == 7\n"
        "inject nak psn_seq_error if roceshark.analysis.psn_gap\n");

    /* Before the QPs are known to be connected, there is no one to answer. */
    memset(&m, 0, sizeof(m));
    send_psn(f, 0, &m);
    send_psn(f, 2, &m);
    assert_int_equal(m.n, 1);
    rs_faults_rule_stats(f, 0, &st);
    assert_int_equal(st.acted, 1);
    assert_int_equal(st.unbuilt, 1);
    rs_faults_free(f);

    f = rules("inject nak psn_seq_error if infiniband.bth.psn == 2\n"
              "drop if infiniband.bth.psn == 2\n"
              "inject rnr 1ms if infiniband.bth.psn == 3\n"
              "inject ack if infiniband.bth.psn == 4\n"
              "inject cnp if infiniband.bth.psn == 5\n"
              "inject nak remote_access_error qp 0x99 msn 7 psn 1000 "
              "if infiniband.bth.psn == 6\n"
              "inject read response last len 40 fill 0xab if infiniband.bth.psn == 7\n"
              "inject nak 0 if roceshark.analysis.psn_gap\n");
    rs_faults_pair(f, requester_gid, 0x22, responder_gid, 0x11);
    memset(&m, 0, sizeof(m));
    for (uint32_t psn = 0; psn < 8; psn++)
        send_psn(f, psn, &m);
    send_psn(f, 10, &m);        /* two missing */
    /* 0, 1, NAK (2 dropped), RNR 3, 3, ACK 4, 4, CNP, 5, NAK, 6, READ, 7, NAK, 10 */
    assert_int_equal(m.n, 15);
    struct answer a = answer_of(&m, 2);
    assert_int_equal(m.dir[2], RS_FAULT_TX);            /* back to the requester */
    assert_int_equal(a.opcode, 0x11);
    assert_int_equal(a.syndrome, 0x60);                 /* NAK, PSN sequence error */
    assert_int_equal(a.psn, 2);                         /* the one it takes as lost */
    assert_int_equal(a.dest_qp, 0x22);
    assert_memory_equal(a.src, responder, 4);
    assert_memory_equal(a.dst, requester, 4);
    assert_int_equal(a.icrc, RS_CKSUM_GOOD);
    a = answer_of(&m, 3);
    assert_int_equal(a.syndrome, 0x20 | 14);            /* RNR, 1.28 ms: the first >= 1 ms */
    assert_int_equal(a.psn, 3);
    a = answer_of(&m, 5);
    assert_int_equal(a.syndrome, 0x1f);
    assert_int_equal(a.psn, 4);
    a = answer_of(&m, 7);
    assert_int_equal(a.opcode, 0x81);
    assert_true(a.becn);
    assert_int_equal(a.dest_qp, 0x22);
    a = answer_of(&m, 9);
    assert_int_equal(a.syndrome, 0x62);
    assert_int_equal(a.dest_qp, 0x99);
    assert_int_equal(a.msn, 7);
    assert_int_equal(a.psn, 1000);
    a = answer_of(&m, 11);
    assert_int_equal(a.opcode, 0x0f);
    assert_int_equal(a.payload, 40);
    assert_int_equal(a.psn, 7);
    assert_int_equal(a.icrc, RS_CKSUM_GOOD);
    /* The gap before 10: the NAK names the first missing PSN, 8. */
    a = answer_of(&m, 13);
    assert_int_equal(a.syndrome, 0x60);
    assert_int_equal(a.psn, 8);
    assert_int_equal(answer_of(&m, 14).psn, 10);
    a = answer_of(&m, 11);
    assert_int_equal(a.first, 0xab);
    assert_int_equal(a.last, 0xab);
    rs_faults_free(f);

    /* Without fill, a READ response's payload is zeros. */
    f = rules("inject read response len 8 if infiniband.bth.psn == 0\n");
    rs_faults_pair(f, requester_gid, 0x22, responder_gid, 0x11);
    memset(&m, 0, sizeof(m));
    send_psn(f, 0, &m);
    assert_int_equal(m.n, 2);
    a = answer_of(&m, 0);
    assert_int_equal(a.opcode, 0x10);
    assert_int_equal(a.payload, 8);
    assert_int_equal(a.first, 0);
    assert_int_equal(a.last, 0);
    assert_int_equal(a.icrc, RS_CKSUM_GOOD);
    rs_faults_free(f);
}

static void
test_errors(void **state)
{
    static const struct {
        const char *text, *err;
    } cases[] = {
        {"explode", "t:1:1: unknown action 'explode' (drop, duplicate, reorder, delay, corrupt, "
                    "set, add, mark, stall, inject)"},
        {"inject nak bad_code", "t:1:12: inject nak: expected a code (psn_seq_error, "
                                "invalid_request, remote_access_error, remote_operational_error, "
                                "invalid_rd_request, or 0 to 31)"},
        {"inject rnr 1s", "t:1:14: inject rnr: expected the timer, a code from 0 to 31 or a "
                          "time up to 655.36ms"},
        {"inject ping", "t:1:8: inject: unknown packet 'ping' (nak, rnr, ack, cnp, read response)"},
        {"inject ack psn 16777216", "t:1:24: psn: expected a number up to 16777215"},
        {"drop psn 3", "t:1:6: unknown option 'psn' (dir, times, skip, every, prob, keep icrc, "
                       "if)"},
        {"stall 0ms", "t:1:10: stall: expected a time (2ms, 1s)"},
        {"\n  drop sometimes", "t:2:8: unknown option 'sometimes' (dir, times, skip, every, "
                               "prob, keep icrc, if)"},
        {"drop dir up", "t:1:12: dir: expected tx, rx or both"},
        {"drop times 0", "t:1:13: times: expected a count of 1 or more"},
        {"drop prob 1.5", "t:1:14: prob: expected a probability from 0 to 1"},
        {"delay 2 ms", "t:1:8: delay: expected a time (2ms, 500us, 1s) up to an hour"},
        {"delay 1ms jitter 2ms", "t:1:21: jitter: expected a time no longer than the delay"},
        {"drop pattern XYZ", "t:1:17: drop pattern: expected X (drop) and O (pass), up to 64 of "
                             "them"},
        {"set infiniband.bth.pns=3", "t:1:5: set: no field 'infiniband.bth.pns'"},
        {"set infiniband.bth.psn=16777216", "t:1:32: set: a value of infiniband.bth.psn (a number "
                                            "up to 16777215 or a value name)"},
        {"set ip.src=1", "t:1:5: set: ip.src is not a number at a fixed place in the packet"},
        {"add infiniband.bth.psn=1", "t:1:23: add: expected infiniband.bth.psn+=VALUE"},
        {"drop if infiniband.bth.psn ==", "t:1:30: if: expected a field or a value at the end"},
        {"reorder gap 0", "t:1:14: reorder gap: 1 to 1000 packets"},
        {"seed x", "t:1:7: seed: expected 0 to 4294967295"},
        {"mark ecn", "t:1:9: mark ecn: expected ce"},
    };
    struct rs_faults *f;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(rs_faults_parse(cases[i].text, "t", &f, err), RS_EINVAL);
        assert_null(f);
        assert_string_equal(err, cases[i].err);
    }
    assert_int_equal(rs_faults_load("/nonexistent/rules", &f, err), RS_EIO);
}

static void
count_out(void *ctx, enum rs_fault_dir dir, const uint8_t *pkt, uint32_t len)
{
    (void)dir, (void)pkt, (void)len;
    (*(unsigned *)ctx)++;
}

/* The bounds of docs/limits.md: RS_FAULTS_MAX_RULES rules, RS_FAULTS_MAX_HELD packets
 * held at once (past that a packet to hold goes at once, counted in the report), and the
 * largest packet acted on. */
static void
test_limits(void **state)
{
    struct rs_faults *f;
    char err[RS_ERRBUF_SIZE], text[RS_FAULTS_MAX_RULES * 16 + 16] = "";

    (void)state;
    for (int i = 0; i < RS_FAULTS_MAX_RULES; i++)
        strcat(text, "drop every 3\n");
    f = rules(text);
    assert_int_equal(rs_faults_rules(f), RS_FAULTS_MAX_RULES);
    rs_faults_free(f);
    strcat(text, "drop every 3\n");
    assert_int_equal(rs_faults_parse(text, "t", &f, err), RS_EINVAL);
    assert_null(f);
    assert_string_equal(err, "t:65:1: more than 64 rules");

    unsigned sent = 0, extra = 76;
    uint8_t buf[256];
    f = rules("delay 1s\n");
    for (unsigned i = 0; i < RS_FAULTS_MAX_HELD + extra; i++) {
        uint32_t len = packet(i, buf);
        rs_faults_packet(f, RS_FAULT_TX, RS_DLT_IPV4, buf, len, i * 1000ull, count_out, &sent);
    }
    assert_int_equal(sent, extra);
    char report[1024] = "";
    FILE *out = fmemopen(report, sizeof(report) - 1, "w");
    assert_non_null(out);
    rs_faults_report(f, out);
    fclose(out);
    assert_non_null(strstr(report, "faults: 76 packets went at once: every hold slot was "
                                   "taken\n"));
    assert_true(rs_faults_poll(f, 2000000000ull, count_out, &sent) == RS_FAULTS_NEVER);
    assert_int_equal(sent, extra + RS_FAULTS_MAX_HELD);
    rs_faults_free(f);

    /* Past RS_FAULTS_MAX_PACKET bytes a packet passes untouched: the same SEND with
     * trailing bytes is dropped at the bound and goes one byte past it, counted in the
     * report each way. */
    static uint8_t big[RS_FAULTS_MAX_PACKET + 1];
    packet(1, big);
    f = rules("drop every 1\n");
    sent = 0;
    rs_faults_packet(f, RS_FAULT_TX, RS_DLT_IPV4, big, RS_FAULTS_MAX_PACKET, 0, count_out, &sent);
    assert_int_equal(sent, 0);
    rs_faults_packet(f, RS_FAULT_TX, RS_DLT_IPV4, big, sizeof(big), 0, count_out, &sent);
    assert_int_equal(sent, 1);
    rs_faults_packet(f, RS_FAULT_RX, RS_DLT_IPV4, big, sizeof(big), 0, count_out, &sent);
    assert_int_equal(sent, 2);
    out = fmemopen(report, sizeof(report) - 1, "w");
    assert_non_null(out);
    rs_faults_report(f, out);
    fclose(out);
    assert_non_null(strstr(report, "faults: 2 packets over 9216 bytes passed untouched: no rule "
                                   "looked at them\n"));
    rs_faults_free(f);
}

/* Once the engine knows a QP of ours, a received packet for another QP (a late ACK of the
 * last run) passes the rules untouched and counted: "drop times 1" takes this run's
 * packet. Packets for QP 1 and those we send are judged as before. */
static void
test_foreign_qp(void **state)
{
    uint8_t buf[256];
    unsigned sent = 0;
    struct rs_fault_rule_stats st;
    char report[1024] = "";

    (void)state;
    struct rs_faults *f = rules("drop times 1 dir rx\n");
    uint32_t len = packet(0, buf);                  /* to QP 0x11 */
    rs_faults_own_qp(f, 0x12);
    rs_faults_own_qp(f, 0x12);                      /* known once */
    rs_faults_packet(f, RS_FAULT_RX, RS_DLT_IPV4, buf, len, 1000, count_out, &sent);
    assert_int_equal(sent, 1);                      /* not ours: passed */
    rs_faults_rule_stats(f, 0, &st);
    assert_int_equal(st.matched, 0);
    rs_faults_packet(f, RS_FAULT_TX, RS_DLT_IPV4, buf, len, 2000, count_out, &sent);
    assert_int_equal(sent, 2);                      /* tx: not a rule of this direction */
    rs_faults_own_qp(f, 0x11);
    rs_faults_packet(f, RS_FAULT_RX, RS_DLT_IPV4, buf, len, 3000, count_out, &sent);
    assert_int_equal(sent, 2);                      /* ours: the one drop */
    rs_faults_packet(f, RS_FAULT_RX, RS_DLT_IPV4, buf, len, 4000, count_out, &sent);
    assert_int_equal(sent, 3);
    FILE *out = fmemopen(report, sizeof(report) - 1, "w");
    assert_non_null(out);
    rs_faults_report(f, out);
    fclose(out);
    assert_non_null(strstr(report, "faults: 1 received packets for a QP not ours passed "
                                   "untouched: late packets of an earlier conversation\n"));
    rs_faults_free(f);

    /* QP 1 is everyone's; past RS_FAULTS_MAX_OWN_QPS every QP is taken as ours. */
    f = rules("drop dir rx\n");
    rs_faults_own_qp(f, 0x12);
    buf[28 + 7] = 1;                                /* BTH destination QP 0x000001 */
    buf[28 + 6] = 0;
    buf[28 + 5] = 0;
    sent = 0;
    rs_faults_packet(f, RS_FAULT_RX, RS_DLT_IPV4, buf, len, 1000, count_out, &sent);
    assert_int_equal(sent, 0);
    len = packet(0, buf);
    rs_faults_packet(f, RS_FAULT_RX, RS_DLT_IPV4, buf, len, 2000, count_out, &sent);
    assert_int_equal(sent, 1);
    for (uint32_t q = 0x100; q < 0x100 + RS_FAULTS_MAX_OWN_QPS; q++)
        rs_faults_own_qp(f, q);
    rs_faults_packet(f, RS_FAULT_RX, RS_DLT_IPV4, buf, len, 3000, count_out, &sent);
    assert_int_equal(sent, 1);
    rs_faults_free(f);
}

/* The rules read each packet through the pipeline's every stage, as read -Y does: a
 * filter on tcp.stream (the stream stage) and one on an RDMAP field (the iWARP stage,
 * after an MPA exchange) take exactly the packets they name. */
static void
test_pipeline_stages(void **state)
{
    uint8_t buf[512];
    struct rs_tcp_route a = {.family = 4, .src = {10, 0, 0, 1}, .dst = {10, 0, 0, 2},
                             .sport = 40000, .dport = 5000, .seq = 1000, .ack = 2000};
    struct rs_tcp_route b = {.family = 4, .src = {10, 0, 0, 2}, .dst = {10, 0, 0, 1},
                             .sport = 5000, .dport = 40000, .seq = 2000, .ack = 1000};
    struct rs_tcp_route other = a;
    struct rs_iwarp_fields fw;
    struct rs_fault_rule_stats st;
    unsigned sent = 0;
    uint32_t n;

    (void)state;
    other.sport = 40001;
    struct rs_faults *f = rules("drop if tcp.stream == 1\n"
                                "drop if iwarp_rdma.opcode == 3 && tcp.stream == 0\n");
    n = rs_encode_mpa_frame(buf, sizeof(buf), &a, false, 0, 1, NULL, 0);
    a.seq += rs_encode_tcp_payload_len(&a, n);
    rs_faults_packet(f, RS_FAULT_TX, RS_DLT_IPV4, buf, n, 1000, count_out, &sent);
    n = rs_encode_mpa_frame(buf, sizeof(buf), &b, true, 0, 1, NULL, 0);
    rs_faults_packet(f, RS_FAULT_RX, RS_DLT_IPV4, buf, n, 2000, count_out, &sent);
    rs_iwarp_fields_init(&fw, RS_RDMAP_SEND);
    n = rs_encode_iwarp(buf, sizeof(buf), &a, &fw, NULL, 16);
    rs_faults_packet(f, RS_FAULT_TX, RS_DLT_IPV4, buf, n, 3000, count_out, &sent);
    n = rs_encode_tcp_segment(buf, sizeof(buf), &other, "x", 1);
    rs_faults_packet(f, RS_FAULT_TX, RS_DLT_IPV4, buf, n, 4000, count_out, &sent);
    assert_int_equal(sent, 2);          /* the MPA request and reply */
    rs_faults_rule_stats(f, 0, &st);
    assert_int_equal(st.matched, 1);    /* the other connection's segment */
    rs_faults_rule_stats(f, 1, &st);
    assert_int_equal(st.matched, 1);    /* the SEND */
    assert_int_equal(rs_faults_first_acted(f), 3000);
    rs_faults_free(f);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drop_selectors),
        cmocka_unit_test(test_prob_and_seed),
        cmocka_unit_test(test_duplicate_reorder_delay),
        cmocka_unit_test(test_rewrites),
        cmocka_unit_test(test_inject),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_pipeline_stages),
        cmocka_unit_test(test_foreign_qp),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
