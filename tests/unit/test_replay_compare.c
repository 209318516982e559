/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_replay_compare.c - replay's comparison of the target's responses with
 * the capture's (classes, ACK coalescing, RNR, segmentation, MSN, payloads,
 * messages mode, passes, PSN offsets, violations), of a live requester's
 * packets with the captured requester's, the messages and PSN span of a
 * trace, and the reports (text, TAP, JUnit). Frames are built by hand: only
 * what the comparison reads of them is set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/transport/rc.h>
#include <roceshark/replay/replay.h>

/* RC opcodes. */
enum {
    SEND_FIRST = 0x00, SEND_MIDDLE = 0x01, SEND_LAST = 0x02, SEND_ONLY = 0x04,
    SEND_ONLY_IMM = 0x05, WRITE_FIRST = 0x06, WRITE_MIDDLE = 0x07, WRITE_LAST = 0x08,
    WRITE_ONLY = 0x0a, READ_REQ = 0x0c, READ_FIRST = 0x0d, READ_MIDDLE = 0x0e,
    READ_LAST = 0x0f, READ_ONLY = 0x10, ACK = 0x11, ATOMIC_ACK = 0x12, CMP_SWAP = 0x13,
    FETCH_ADD = 0x14,
};

/* AETH syndromes. */
#define SYN_ACK 0x1f                        /* credits: none advertised */
#define SYN_RNR(timer) (0x20 | (timer))
#define SYN_NAK(code) (0x60 | (code))

/* --- Frames --- */

static struct rs_replay_frame
frame(uint64_t number, uint8_t opcode, uint32_t psn)
{
    struct rs_replay_frame f;

    memset(&f, 0, sizeof(f));
    f.number = number;
    f.opcode = opcode;
    f.psn = psn;
    return f;
}

/* A response: an AETH with syndrome and msn when has_aeth. */
static struct rs_replay_frame
resp(uint64_t number, uint8_t opcode, uint32_t psn, bool has_aeth, uint8_t syndrome,
     uint32_t msn)
{
    struct rs_replay_frame f = frame(number, opcode, psn);

    f.has_aeth = has_aeth;
    f.syndrome = syndrome;
    f.msn = msn;
    return f;
}

/* An ACK, NAK or RNR NAK. */
static struct rs_replay_frame
ack(uint64_t number, uint32_t psn, uint8_t syndrome, uint32_t msn)
{
    return resp(number, ACK, psn, true, syndrome, msn);
}

/* READ response data: its payload is len bytes at off in the side's buffer. */
static struct rs_replay_frame
data(uint64_t number, uint8_t opcode, uint32_t psn, uint32_t msn, uint32_t off, uint32_t len)
{
    bool aeth = opcode != READ_MIDDLE;
    struct rs_replay_frame f = resp(number, opcode, psn, aeth, aeth ? SYN_ACK : 0,
                                    aeth ? msn : 0);

    f.payload_off = off;
    f.payload_len = len;
    return f;
}

static struct rs_replay_frame
atomic_ack(uint64_t number, uint32_t psn, uint32_t msn, uint64_t orig)
{
    struct rs_replay_frame f = resp(number, ATOMIC_ACK, psn, true, SYN_ACK, msn);

    f.has_atomic_ack = true;
    f.orig = orig;
    return f;
}

/* --- Results --- */

static struct rs_replay_compare_opts
opts_at(uint32_t first_psn)
{
    struct rs_replay_compare_opts o;

    memset(&o, 0, sizeof(o));
    o.first_psn = first_psn;
    return o;
}

#define N(a) RS_ARRAY_SIZE(a)

static void
compare(const struct rs_replay_compare_opts *o, const struct rs_replay_frame *exp, size_t n_exp,
        const uint8_t *exp_base, const struct rs_replay_frame *got, size_t n_got,
        const uint8_t *got_base, uint32_t passes, struct rs_replay_result *res)
{
    rs_replay_compare(o, exp, n_exp, exp_base, got, n_got, got_base, passes, res);
    assert_non_null(res->divergences);
    assert_int_equal(res->expected, n_exp);
    assert_int_equal(res->got, n_got);
    assert_int_equal(res->passes, passes != 0 ? passes : 1);
}

static const struct rs_replay_divergence *
div_at(const struct rs_replay_result *res, unsigned i)
{
    assert_true(i < res->divergences->len);
    return &g_array_index(res->divergences, struct rs_replay_divergence, i);
}

/* Every field of a divergence; field, expected and got are not checked when NULL. */
static void
check_div(const struct rs_replay_result *res, unsigned i, uint8_t rule, uint64_t capture_frame,
          uint64_t replay_frame, const char *field, const char *expected, const char *got)
{
    const struct rs_replay_divergence *d = div_at(res, i);

    if (d->rule != rule)
        fail_msg("divergence %u: rule %s, want %s", i, rs_replay_rule_name(d->rule),
                 rs_replay_rule_name(rule));
    assert_int_equal(d->capture_frame, capture_frame);
    assert_int_equal(d->replay_frame, replay_frame);
    if (field != NULL)
        assert_string_equal(d->field, field);
    if (expected != NULL)
        assert_string_equal(d->expected, expected);
    if (got != NULL)
        assert_string_equal(d->got, got);
}

/* Every rule's tally against want (rules want leaves out must be all zero). */
static void
check_tallies(const struct rs_replay_result *res, const struct rs_replay_tally *want)
{
    for (uint8_t r = 0; r < RS_REPLAY_RULE_COUNT; r++) {
        const struct rs_replay_tally *t = &res->by_rule[r], *w = &want[r];
        if (t->compared != w->compared || t->same != w->same || t->allowed != w->allowed ||
            t->diverged != w->diverged)
            fail_msg("%s: compared %llu same %llu allowed %llu diverged %llu, want "
                     "%llu %llu %llu %llu", rs_replay_rule_name(r),
                     (unsigned long long)t->compared, (unsigned long long)t->same,
                     (unsigned long long)t->allowed, (unsigned long long)t->diverged,
                     (unsigned long long)w->compared, (unsigned long long)w->same,
                     (unsigned long long)w->allowed, (unsigned long long)w->diverged);
    }
}

#define T(c, s, a, d) {(c), (s), (a), (d)}

/* --- rs_replay_compare --- */

static void
test_identical(void **state)
{
    (void)state;
    uint8_t buf[64], other[68];
    for (unsigned i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 3 + 1);
    memcpy(other + 4, buf, 64);         /* the same bytes at other offsets */

    /* A WRITE's ACK, a one-packet READ, a three-packet READ, an atomic, an RNR NAK
     * and the ACK after the retry. */
    const struct rs_replay_frame exp[] = {
        ack(1, 0, SYN_ACK, 1),
        data(3, READ_ONLY, 1, 2, 0, 16),
        data(5, READ_FIRST, 2, 2, 16, 16),
        data(6, READ_MIDDLE, 3, 0, 32, 16),
        data(7, READ_LAST, 4, 3, 48, 16),
        atomic_ack(9, 5, 4, 0x1122334455667788ull),
        ack(11, 6, SYN_RNR(14), 4),
        ack(13, 6, SYN_ACK, 5),
    };
    const struct rs_replay_frame got[] = {
        ack(101, 0, SYN_ACK, 1),
        data(103, READ_ONLY, 1, 2, 4, 16),
        data(105, READ_FIRST, 2, 2, 20, 16),
        data(106, READ_MIDDLE, 3, 0, 36, 16),
        data(107, READ_LAST, 4, 3, 52, 16),
        atomic_ack(109, 5, 4, 0x1122334455667788ull),
        ack(111, 6, SYN_RNR(14), 4),
        ack(113, 6, SYN_ACK, 5),
    };
    struct rs_replay_compare_opts o = opts_at(0);
    struct rs_replay_result res;

    o.payloads = true;
    compare(&o, exp, N(exp), buf, got, N(got), other, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    const struct rs_replay_tally want[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_OPCODE] = T(4, 4, 0, 0),
        [RS_REPLAY_RULE_ACK_CLASS] = T(3, 3, 0, 0),
        [RS_REPLAY_RULE_RNR] = T(1, 1, 0, 0),
        [RS_REPLAY_RULE_MSN] = T(6, 6, 0, 0),
        [RS_REPLAY_RULE_PAYLOAD] = T(5, 5, 0, 0),
    };
    check_tallies(&res, want);
    for (uint8_t r = 0; r < RS_REPLAY_RULE_COUNT; r++)
        assert_int_equal(res.by_rule[r].compared, res.by_rule[r].same);
    rs_replay_result_free(&res);
    assert_null(res.divergences);
}

static void
test_ack_coalescing(void **state)
{
    (void)state;
    const struct rs_replay_frame three[] = {
        ack(1, 0, SYN_ACK, 1), ack(2, 1, SYN_ACK, 2), ack(3, 2, SYN_ACK, 3),
    };
    const struct rs_replay_frame one[] = {ack(10, 2, SYN_ACK, 3)};
    struct rs_replay_compare_opts o = opts_at(0);
    struct rs_replay_result res;

    /* The target coalesced: its ACK of PSN 2 covers 0 and 1. */
    compare(&o, three, N(three), NULL, one, N(one), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    const struct rs_replay_tally want[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(1, 1, 0, 0),
        [RS_REPLAY_RULE_MSN] = T(1, 1, 0, 0),
        [RS_REPLAY_RULE_COMPLETION] = T(2, 0, 2, 0),
    };
    check_tallies(&res, want);
    rs_replay_result_free(&res);

    /* The capture's responder coalesced, the target acknowledges every PSN. */
    const struct rs_replay_frame exp[] = {ack(3, 2, SYN_ACK, 3)};
    const struct rs_replay_frame got[] = {
        ack(11, 0, SYN_ACK, 1), ack(12, 1, SYN_ACK, 2), ack(13, 2, SYN_ACK, 3),
    };
    compare(&o, exp, N(exp), NULL, got, N(got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    const struct rs_replay_tally want2[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(1, 1, 0, 0),
        [RS_REPLAY_RULE_MSN] = T(1, 1, 0, 0),
        [RS_REPLAY_RULE_EXTRA] = T(0, 0, 2, 0),
    };
    check_tallies(&res, want2);
    rs_replay_result_free(&res);
}

static void
test_nak_class(void **state)
{
    (void)state;
    const struct rs_replay_frame exp[] = {ack(4, 3, SYN_ACK, 1)};
    const struct rs_replay_frame got[] = {ack(40, 3, SYN_NAK(RS_NAK_REMOTE_ACCESS_ERROR), 0)};
    struct rs_replay_compare_opts o = opts_at(0);
    struct rs_replay_result res;

    assert_string_equal(rs_aeth_nak_name(RS_NAK_REMOTE_ACCESS_ERROR), "Remote Access Error");
    compare(&o, exp, N(exp), NULL, got, N(got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_ACK_CLASS, 4, 40, "infiniband.aeth.syndrome", "ACK",
              "NAK Remote Access Error");
    const struct rs_replay_tally want[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(1, 0, 0, 1),
    };
    check_tallies(&res, want);
    rs_replay_result_free(&res);

    /* The same NAK code on both sides is the same; another code is not. */
    const struct rs_replay_frame nak_exp[] = {ack(4, 3, SYN_NAK(RS_NAK_INVALID_REQUEST), 0)};
    compare(&o, nak_exp, N(nak_exp), NULL, got, N(got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_ACK_CLASS, 4, 40, "infiniband.aeth.syndrome",
              "NAK Invalid Request", "NAK Remote Access Error");
    rs_replay_result_free(&res);
    compare(&o, got, N(got), NULL, got, N(got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    const struct rs_replay_tally want2[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(1, 1, 0, 0),
    };
    check_tallies(&res, want2);
    rs_replay_result_free(&res);
}

static void
test_rnr(void **state)
{
    (void)state;
    /* The capture's responder took PSN 5 and acknowledged it with its ACK of 6; the
     * target had no receive buffer for 5. */
    const struct rs_replay_frame exp[] = {ack(7, 6, SYN_ACK, 2)};
    const struct rs_replay_frame got[] = {ack(30, 5, SYN_RNR(14), 0), ack(31, 6, SYN_ACK, 2)};
    struct rs_replay_compare_opts o = opts_at(5);
    struct rs_replay_result res;

    compare(&o, exp, N(exp), NULL, got, N(got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_RNR, 7, 30, "infiniband.aeth.syndrome", "ACK",
              "RNR NAK, timer 14 (1.28 ms)");
    const struct rs_replay_tally want[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(1, 1, 0, 0),
        [RS_REPLAY_RULE_RNR] = T(1, 0, 0, 1),
        [RS_REPLAY_RULE_MSN] = T(1, 1, 0, 0),
    };
    check_tallies(&res, want);
    rs_replay_result_free(&res);

    /* RNR NAKs on both sides, with other timers: a divergence, unless lenient. */
    const struct rs_replay_frame rnr_exp[] = {ack(6, 5, SYN_RNR(1), 0), ack(7, 5, SYN_ACK, 1)};
    const struct rs_replay_frame rnr_got[] = {ack(30, 5, SYN_RNR(14), 0),
                                              ack(31, 5, SYN_ACK, 1)};
    compare(&o, rnr_exp, N(rnr_exp), NULL, rnr_got, N(rnr_got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_RNR, 6, 30, "infiniband.aeth.syndrome",
              "RNR NAK, timer 1 (0.01 ms)", "RNR NAK, timer 14 (1.28 ms)");
    const struct rs_replay_tally strict[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(1, 1, 0, 0),
        [RS_REPLAY_RULE_RNR] = T(1, 0, 0, 1),
        [RS_REPLAY_RULE_MSN] = T(1, 1, 0, 0),
    };
    check_tallies(&res, strict);
    rs_replay_result_free(&res);

    o.lenient_rnr = true;
    compare(&o, rnr_exp, N(rnr_exp), NULL, rnr_got, N(rnr_got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    /* Allowed, as a coalesced ACK is: compared, not the same. */
    const struct rs_replay_tally lenient[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(1, 1, 0, 0),
        [RS_REPLAY_RULE_RNR] = T(1, 0, 1, 0),
        [RS_REPLAY_RULE_MSN] = T(1, 1, 0, 0),
    };
    check_tallies(&res, lenient);
    rs_replay_result_free(&res);

    /* The same timer is the same, lenient or not. */
    compare(&o, rnr_exp, N(rnr_exp), NULL, rnr_exp, N(rnr_exp), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    assert_int_equal(res.by_rule[RS_REPLAY_RULE_RNR].same, 1);
    assert_int_equal(res.by_rule[RS_REPLAY_RULE_RNR].allowed, 0);
    rs_replay_result_free(&res);
}

static void
test_segmentation(void **state)
{
    (void)state;
    static uint8_t bytes[1024];
    const struct rs_replay_frame exp[] = {data(5, READ_ONLY, 0, 1, 0, 1024)};
    const struct rs_replay_frame got[] = {
        data(50, READ_FIRST, 0, 1, 0, 256),
        data(51, READ_MIDDLE, 1, 0, 256, 256),
        data(52, READ_MIDDLE, 2, 0, 512, 256),
        data(53, READ_LAST, 3, 1, 768, 256),
    };
    struct rs_replay_compare_opts o = opts_at(0);
    struct rs_replay_result res;

    o.trace_pmtu = 1024;
    o.target_pmtu = 256;
    compare(&o, exp, N(exp), bytes, got, N(got), bytes, 1, &res);
    /* One divergence: the rest of the target's answer to that READ is the same one. */
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_SEGMENTATION, 5, 50, "infiniband.bth.opcode",
              "RC RDMA Read Response Only", "RC RDMA Read Response First");
    const struct rs_replay_tally want[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_SEGMENTATION] = T(1, 0, 0, 1),
        [RS_REPLAY_RULE_MSN] = T(1, 1, 0, 0),
    };
    check_tallies(&res, want);
    rs_replay_result_free(&res);

    /* With the target's PMTU unknown, the other length still says segmentation... */
    o.target_pmtu = 0;
    compare(&o, exp, N(exp), bytes, got, N(got), bytes, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_SEGMENTATION, 5, 50, "infiniband.bth.opcode",
              "RC RDMA Read Response Only", "RC RDMA Read Response First");
    rs_replay_result_free(&res);

    /* ...and another opcode of the same length is an opcode divergence. */
    const struct rs_replay_frame exp256[] = {data(5, READ_ONLY, 0, 1, 0, 256)};
    compare(&o, exp256, N(exp256), bytes, got, N(got), bytes, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_OPCODE, 5, 50, "infiniband.bth.opcode",
              "RC RDMA Read Response Only", "RC RDMA Read Response First");
    const struct rs_replay_tally op[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_OPCODE] = T(1, 0, 0, 1),
        [RS_REPLAY_RULE_MSN] = T(1, 1, 0, 0),
    };
    check_tallies(&res, op);
    rs_replay_result_free(&res);

    /* The same opcode with another length is segmentation, whatever the PMTUs say. */
    const struct rs_replay_frame shorter[] = {data(60, READ_ONLY, 0, 1, 0, 512)};
    compare(&o, exp, N(exp), bytes, shorter, N(shorter), bytes, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_SEGMENTATION, 5, 60, "infiniband.payload",
              "1024 bytes", "512 bytes");
    rs_replay_result_free(&res);

    /* An invalid-request NAK of the READ under a smaller PMTU is segmentation too. */
    o.target_pmtu = 256;
    const struct rs_replay_frame exp_ack[] = {ack(5, 0, SYN_ACK, 1)};
    const struct rs_replay_frame nak[] = {ack(70, 0, SYN_NAK(RS_NAK_INVALID_REQUEST), 0)};
    compare(&o, exp_ack, N(exp_ack), NULL, nak, N(nak), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_SEGMENTATION, 5, 70, "infiniband.aeth.syndrome", "ACK",
              "NAK Invalid Request");
    rs_replay_result_free(&res);

    /* The other way: the capture's answer came in four pieces, the target's in one. The
     * rest of the capture's answer is the same divergence. */
    o.trace_pmtu = 256;
    o.target_pmtu = 1024;
    const struct rs_replay_frame one[] = {data(80, READ_ONLY, 0, 1, 0, 1024)};
    compare(&o, got, N(got), bytes, one, N(one), bytes, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_SEGMENTATION, 50, 80, "infiniband.bth.opcode",
              "RC RDMA Read Response First", "RC RDMA Read Response Only");
    rs_replay_result_free(&res);
}

/* A READ the target answers with a NAK: one divergence, of the answer's class. */
static void
test_read_naked(void **state)
{
    (void)state;
    static uint8_t bytes[1024];
    const struct rs_replay_frame exp[] = {data(5, READ_FIRST, 0, 1, 0, 512),
                                          data(6, READ_LAST, 1, 1, 512, 512)};
    const struct rs_replay_frame nak[] = {ack(90, 0, SYN_NAK(RS_NAK_REMOTE_ACCESS_ERROR), 0)};
    struct rs_replay_compare_opts o = opts_at(0);
    struct rs_replay_result res;

    compare(&o, exp, N(exp), bytes, nak, N(nak), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_ACK_CLASS, 5, 90, "infiniband.aeth.syndrome",
              "RC RDMA Read Response First", "NAK Remote Access Error");
    rs_replay_result_free(&res);
}

static void
test_msn(void **state)
{
    (void)state;
    /* A capture from its conversation's start: its MSNs count the messages, and so must
     * the target's. One short at every ACK is a divergence at every ACK, with the offset. */
    const struct rs_replay_frame exp[] = {
        ack(1, 0, SYN_ACK, 1), ack(2, 1, SYN_ACK, 2), ack(3, 2, SYN_ACK, 3),
    };
    const struct rs_replay_frame short_by_one[] = {
        ack(11, 0, SYN_ACK, 0), ack(12, 1, SYN_ACK, 1), ack(13, 2, SYN_ACK, 2),
    };
    struct rs_replay_compare_opts o = opts_at(0);
    struct rs_replay_result res;

    compare(&o, exp, N(exp), NULL, short_by_one, N(short_by_one), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 3);
    check_div(&res, 0, RS_REPLAY_RULE_MSN, 1, 11, "infiniband.aeth.msn", "1",
              "0 (MSN offset -1)");
    check_div(&res, 2, RS_REPLAY_RULE_MSN, 3, 13, "infiniband.aeth.msn", "3",
              "2 (MSN offset -1)");
    const struct rs_replay_tally want[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(3, 3, 0, 0),
        [RS_REPLAY_RULE_MSN] = T(3, 0, 0, 3),
    };
    check_tallies(&res, want);
    rs_replay_result_free(&res);

    /* A capture that begins later (its MSNs 10, 11, 12), with its requests: they say the
     * capture's MSNs count from 9, and the target's new QP counts 1, 2, 3. */
    const struct rs_replay_frame later[] = {
        ack(1, 0, SYN_ACK, 10), ack(2, 1, SYN_ACK, 11), ack(3, 2, SYN_ACK, 12),
    };
    const struct rs_replay_frame sends[] = {
        frame(4, SEND_ONLY, 0), frame(5, SEND_ONLY, 1), frame(6, SEND_ONLY, 2),
        frame(7, SEND_FIRST, 3),     /* a message not ended: it counts for nothing */
    };
    const struct rs_replay_frame counted[] = {
        ack(11, 0, SYN_ACK, 1), ack(12, 1, SYN_ACK, 2), ack(13, 2, SYN_ACK, 4),
    };
    o.requests = sends;
    o.n_requests = N(sends);
    compare(&o, later, N(later), NULL, counted, N(counted), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_MSN, 3, 13, "infiniband.aeth.msn", "3 (the capture's 12)",
              "4 (MSN offset +1)");
    rs_replay_result_free(&res);
}

static void
test_payloads(void **state)
{
    (void)state;
    uint8_t x[16], y[16];
    for (unsigned i = 0; i < sizeof(x); i++)
        x[i] = y[i] = (uint8_t)i;
    y[7] = 0xa7;
    y[9] = 0xa9;                        /* only the first difference is named */
    const struct rs_replay_frame exp[] = {data(1, READ_ONLY, 0, 1, 0, 16)};
    const struct rs_replay_frame got[] = {data(21, READ_ONLY, 0, 1, 0, 16)};
    struct rs_replay_compare_opts o = opts_at(0);
    struct rs_replay_result res;

    /* Not compared unless asked. */
    compare(&o, exp, N(exp), x, got, N(got), y, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    const struct rs_replay_tally unasked[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_OPCODE] = T(1, 1, 0, 0),
        [RS_REPLAY_RULE_MSN] = T(1, 1, 0, 0),
    };
    check_tallies(&res, unasked);
    rs_replay_result_free(&res);

    o.payloads = true;
    compare(&o, exp, N(exp), x, got, N(got), y, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_PAYLOAD, 1, 21, "infiniband.payload", "byte 7 = 0x07",
              "byte 7 = 0xa7");
    const struct rs_replay_tally want[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_OPCODE] = T(1, 1, 0, 0),
        [RS_REPLAY_RULE_PAYLOAD] = T(1, 0, 0, 1),
        [RS_REPLAY_RULE_MSN] = T(1, 1, 0, 0),
    };
    check_tallies(&res, want);
    rs_replay_result_free(&res);

    /* An atomic's original value. */
    const struct rs_replay_frame aexp[] = {atomic_ack(2, 1, 1, 0x1122334455667788ull)};
    const struct rs_replay_frame agot[] = {atomic_ack(22, 1, 1, 0x1122334455667789ull)};
    compare(&o, aexp, N(aexp), NULL, agot, N(agot), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_PAYLOAD, 2, 22, "infiniband.atomicacketh.origremdt",
              "0x1122334455667788", "0x1122334455667789");
    const struct rs_replay_tally awant[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(1, 1, 0, 0),
        [RS_REPLAY_RULE_PAYLOAD] = T(1, 0, 0, 1),
        [RS_REPLAY_RULE_MSN] = T(1, 1, 0, 0),
    };
    check_tallies(&res, awant);
    rs_replay_result_free(&res);

    /* An atomic the target did not answer is a message it did not complete. */
    compare(&o, aexp, N(aexp), NULL, NULL, 0, NULL, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_COMPLETION, 2, 0, "infiniband.aeth.syndrome",
              "RC Atomic Acknowledge", "none");
    rs_replay_result_free(&res);
}

static void
test_messages_mode(void **state)
{
    (void)state;
    /* The capture's requester lost PSN 1 once: a sequence NAK, then the retry's ACK. */
    const struct rs_replay_frame exp[] = {
        ack(1, 0, SYN_ACK, 1), ack(2, 1, SYN_NAK(RS_NAK_PSN_SEQ_ERROR), 1),
        ack(3, 1, SYN_ACK, 2), ack(4, 2, SYN_ACK, 3),
    };
    const struct rs_replay_frame got[] = {
        ack(11, 0, SYN_ACK, 1), ack(12, 1, SYN_ACK, 2), ack(13, 2, SYN_ACK, 3),
    };
    struct rs_replay_compare_opts o = opts_at(0);
    struct rs_replay_result res;

    o.messages = true;
    compare(&o, exp, N(exp), NULL, got, N(got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    const struct rs_replay_tally want[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(3, 3, 1, 0),
        [RS_REPLAY_RULE_MSN] = T(3, 3, 0, 0),
    };
    check_tallies(&res, want);
    rs_replay_result_free(&res);

    o.messages = false;
    compare(&o, exp, N(exp), NULL, got, N(got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_ACK_CLASS, 2, 12, "infiniband.aeth.syndrome",
              "NAK PSN Sequence Error", "ACK");
    const struct rs_replay_tally strict[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(4, 3, 0, 1),
        [RS_REPLAY_RULE_MSN] = T(3, 3, 0, 0),
    };
    check_tallies(&res, strict);
    rs_replay_result_free(&res);

    /* The other way: our requester lost one; the capture's did not. */
    const struct rs_replay_frame clean[] = {
        ack(1, 0, SYN_ACK, 1), ack(3, 1, SYN_ACK, 2), ack(4, 2, SYN_ACK, 3),
    };
    const struct rs_replay_frame lossy[] = {
        ack(11, 0, SYN_ACK, 1), ack(12, 1, SYN_NAK(RS_NAK_PSN_SEQ_ERROR), 1),
        ack(13, 1, SYN_ACK, 2), ack(14, 2, SYN_ACK, 3),
    };
    o.messages = true;
    compare(&o, clean, N(clean), NULL, lossy, N(lossy), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    const struct rs_replay_tally extra[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(3, 3, 0, 0),
        [RS_REPLAY_RULE_MSN] = T(3, 3, 0, 0),
        [RS_REPLAY_RULE_EXTRA] = T(0, 0, 1, 0),
    };
    check_tallies(&res, extra);
    rs_replay_result_free(&res);

    o.messages = false;
    compare(&o, clean, N(clean), NULL, lossy, N(lossy), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_ACK_CLASS, 3, 12, "infiniband.aeth.syndrome", "ACK",
              "NAK PSN Sequence Error");
    rs_replay_result_free(&res);
}

static void
test_passes(void **state)
{
    (void)state;
    const struct rs_replay_frame exp[] = {
        ack(1, 1000, SYN_ACK, 1), ack(2, 1001, SYN_ACK, 2), ack(3, 1002, SYN_ACK, 3),
    };
    const struct rs_replay_frame got[] = {
        ack(11, 1000, SYN_ACK, 1), ack(12, 1001, SYN_ACK, 2), ack(13, 1002, SYN_ACK, 3),
        ack(14, 1003, SYN_ACK, 4), ack(15, 1004, SYN_ACK, 5), ack(16, 1005, SYN_ACK, 6),
    };
    struct rs_replay_compare_opts o = opts_at(1000);
    struct rs_replay_result res;

    o.psn_span = 3;
    compare(&o, exp, N(exp), NULL, got, N(got), NULL, 2, &res);
    assert_int_equal(res.divergences->len, 0);
    const struct rs_replay_tally want[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(6, 6, 0, 0),
        [RS_REPLAY_RULE_MSN] = T(6, 6, 0, 0),
    };
    check_tallies(&res, want);
    rs_replay_result_free(&res);

    /* Pass 1's last ACK missing: nothing later covers it. */
    compare(&o, exp, N(exp), NULL, got, N(got) - 1, NULL, 2, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_COMPLETION, 3, 0, "infiniband.aeth.syndrome", "ACK",
              "none");
    const struct rs_replay_tally missing[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(5, 5, 0, 0),
        [RS_REPLAY_RULE_MSN] = T(5, 5, 0, 0),
        [RS_REPLAY_RULE_COMPLETION] = T(1, 0, 0, 1),
    };
    check_tallies(&res, missing);
    rs_replay_result_free(&res);

    /* Pass 1's middle ACK missing: pass 1's last ACK covers it (pass 0's does not). */
    const struct rs_replay_frame coalesced[] = {got[0], got[1], got[2], got[3], got[5]};
    compare(&o, exp, N(exp), NULL, coalesced, N(coalesced), NULL, 2, &res);
    assert_int_equal(res.divergences->len, 0);
    assert_int_equal(res.by_rule[RS_REPLAY_RULE_COMPLETION].compared, 1);
    assert_int_equal(res.by_rule[RS_REPLAY_RULE_COMPLETION].allowed, 1);
    rs_replay_result_free(&res);

    /* Only one pass made: the second pass's answers are extra (ACKs: allowed). */
    compare(&o, exp, N(exp), NULL, got, N(got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    assert_int_equal(res.by_rule[RS_REPLAY_RULE_ACK_CLASS].compared, 3);
    assert_int_equal(res.by_rule[RS_REPLAY_RULE_EXTRA].allowed, 3);
    rs_replay_result_free(&res);
}

static void
test_psn_offset(void **state)
{
    (void)state;
    const struct rs_replay_frame exp[] = {
        ack(1, 5, SYN_ACK, 1), ack(2, 6, SYN_ACK, 2), ack(3, 7, SYN_ACK, 3),
    };
    const struct rs_replay_frame got[] = {
        ack(11, 105, SYN_ACK, 1), ack(12, 106, SYN_ACK, 2), ack(13, 107, SYN_ACK, 3),
    };
    struct rs_replay_compare_opts o = opts_at(5);
    struct rs_replay_result res;
    const struct rs_replay_tally want[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(3, 3, 0, 0),
        [RS_REPLAY_RULE_MSN] = T(3, 3, 0, 0),
    };

    o.psn_offset = 100;
    compare(&o, exp, N(exp), NULL, got, N(got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    check_tallies(&res, want);
    rs_replay_result_free(&res);

    /* Across the PSN's wrap: the trace from 0xfffffe, the replay 100 further. */
    const struct rs_replay_frame wexp[] = {
        ack(1, 0xfffffe, SYN_ACK, 1), ack(2, 0xffffff, SYN_ACK, 2), ack(3, 0, SYN_ACK, 3),
    };
    const struct rs_replay_frame wgot[] = {
        ack(11, 98, SYN_ACK, 1), ack(12, 99, SYN_ACK, 2), ack(13, 100, SYN_ACK, 3),
    };
    o.first_psn = 0xfffffe;
    compare(&o, wexp, N(wexp), NULL, wgot, N(wgot), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    check_tallies(&res, want);
    rs_replay_result_free(&res);

    /* An offset that wraps the replay's PSNs back below the trace's. */
    const struct rs_replay_frame back[] = {
        ack(11, 0xfffffd, SYN_ACK, 1), ack(12, 0xfffffe, SYN_ACK, 2),
        ack(13, 0xffffff, SYN_ACK, 3),
    };
    o.psn_offset = 0xffffff;            /* -1 */
    compare(&o, wexp, N(wexp), NULL, back, N(back), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    check_tallies(&res, want);
    rs_replay_result_free(&res);

    /* A NAK that the replay moved by the offset is found at its PSN too. */
    const struct rs_replay_frame nexp[] = {ack(1, 0xffffff, SYN_ACK, 1)};
    const struct rs_replay_frame ngot[] = {ack(11, 0xfffffe, SYN_NAK(RS_NAK_REMOTE_ACCESS_ERROR),
                                               0)};
    compare(&o, nexp, N(nexp), NULL, ngot, N(ngot), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_ACK_CLASS, 1, 11, "infiniband.aeth.syndrome", "ACK",
              "NAK Remote Access Error");
    rs_replay_result_free(&res);
}

static void
test_violations(void **state)
{
    (void)state;
    const struct rs_replay_frame exp[] = {ack(1, 0, SYN_ACK, 1), ack(2, 1, SYN_ACK, 2)};
    struct rs_replay_frame got[] = {
        ack(11, 0, SYN_ACK, 1), ack(12, 1, SYN_ACK, 2), frame(13, SEND_ONLY, 2),
    };
    struct rs_replay_compare_opts o = opts_at(0);
    struct rs_replay_result res;

    got[1].violation = RS_VIOL_ACK_PSN_BACKWARDS;
    got[2].violation = RS_VIOL_SEGMENT_LENGTH;  /* not a response, but a violation */
    compare(&o, exp, N(exp), NULL, got, N(got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 2);
    check_div(&res, 0, RS_REPLAY_RULE_VIOLATION, 0, 12, "roceshark.analysis.violation", "none",
              rs_violation_name(RS_VIOL_ACK_PSN_BACKWARDS));
    assert_string_equal(div_at(&res, 0)->got, "ack_psn_backwards");
    check_div(&res, 1, RS_REPLAY_RULE_VIOLATION, 0, 13, "roceshark.analysis.violation", "none",
              "segment_length");
    const struct rs_replay_tally want[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(2, 2, 0, 0),
        [RS_REPLAY_RULE_MSN] = T(2, 2, 0, 0),
        [RS_REPLAY_RULE_VIOLATION] = T(2, 0, 0, 2),
    };
    check_tallies(&res, want);
    rs_replay_result_free(&res);

    /* The capture's own violations are not the target's. */
    struct rs_replay_frame bad_exp[] = {ack(1, 0, SYN_ACK, 1)};
    bad_exp[0].violation = RS_VIOL_MSN_BACKWARDS;
    compare(&o, bad_exp, N(bad_exp), NULL, got, 1, NULL, 1, &res);
    assert_int_equal(res.divergences->len, 0);
    rs_replay_result_free(&res);
}

/* Divergences come in capture order; the ones with no capture frame last. */
static void
test_order(void **state)
{
    (void)state;
    const struct rs_replay_frame exp[] = {
        ack(1, 0, SYN_ACK, 1), atomic_ack(2, 1, 2, 0), ack(3, 2, SYN_ACK, 3),
    };
    const struct rs_replay_frame got[] = {
        data(11, READ_ONLY, 4, 1, 0, 0),
        ack(12, 2, SYN_NAK(RS_NAK_REMOTE_OPERATIONAL_ERROR), 1),
        ack(13, 0, SYN_ACK, 1),
    };
    struct rs_replay_compare_opts o = opts_at(0);
    struct rs_replay_result res;

    compare(&o, exp, N(exp), NULL, got, N(got), NULL, 1, &res);
    assert_int_equal(res.divergences->len, 3);
    check_div(&res, 0, RS_REPLAY_RULE_COMPLETION, 2, 0, "infiniband.aeth.syndrome",
              "RC Atomic Acknowledge", "none");
    check_div(&res, 1, RS_REPLAY_RULE_ACK_CLASS, 3, 12, "infiniband.aeth.syndrome", "ACK",
              "NAK Remote Operational Error");
    check_div(&res, 2, RS_REPLAY_RULE_EXTRA, 0, 11, "infiniband.bth.opcode", "none",
              "RC RDMA Read Response Only");
    const struct rs_replay_tally want[RS_REPLAY_RULE_COUNT] = {
        [RS_REPLAY_RULE_ACK_CLASS] = T(2, 1, 0, 1),
        [RS_REPLAY_RULE_COMPLETION] = T(1, 0, 0, 1),
        [RS_REPLAY_RULE_EXTRA] = T(1, 0, 0, 1),
        [RS_REPLAY_RULE_MSN] = T(1, 1, 0, 0),
    };
    check_tallies(&res, want);
    rs_replay_result_free(&res);
}

/* --- rs_replay_compare_requests --- */

static void
requests(uint32_t offset, const struct rs_replay_frame *exp, size_t n_exp,
         const struct rs_replay_frame *got, size_t n_got, struct rs_replay_result *res)
{
    rs_replay_result_init(res);
    rs_replay_compare_requests(offset, exp, n_exp, got, n_got, res);
}

static void
check_request_tally(const struct rs_replay_result *res, uint64_t compared, uint64_t same,
                    uint64_t diverged)
{
    struct rs_replay_tally want[RS_REPLAY_RULE_COUNT];

    memset(want, 0, sizeof(want));
    want[RS_REPLAY_RULE_REQUEST] = (struct rs_replay_tally)T(compared, same, 0, diverged);
    check_tallies(res, want);
}

static void
test_compare_requests(void **state)
{
    (void)state;
    const struct rs_replay_frame exp[] = {
        frame(1, WRITE_FIRST, 0), frame(2, WRITE_MIDDLE, 1), frame(3, WRITE_LAST, 2),
        frame(4, SEND_ONLY, 3), frame(5, READ_REQ, 4), frame(6, CMP_SWAP, 5),
    };
    const struct rs_replay_frame got[] = {
        frame(101, WRITE_FIRST, 50), frame(102, WRITE_MIDDLE, 51), frame(103, WRITE_LAST, 52),
        frame(104, SEND_ONLY, 53), frame(105, READ_REQ, 54), frame(106, CMP_SWAP, 55),
    };
    struct rs_replay_result res;

    requests(50, exp, N(exp), got, N(got), &res);
    assert_int_equal(res.divergences->len, 0);
    check_request_tally(&res, 6, 6, 0);
    rs_replay_result_free(&res);

    /* Without the offset nothing lines up: one divergence a packet. */
    requests(0, exp, N(exp), got, N(got), &res);
    assert_int_equal(res.divergences->len, 6);
    check_div(&res, 0, RS_REPLAY_RULE_REQUEST, 1, 101, "infiniband.bth",
              "PSN 0 RC RDMA Write First", "PSN 50 RC RDMA Write First");
    rs_replay_result_free(&res);

    /* One missing in the middle. */
    const struct rs_replay_frame missing[] = {got[0], got[1], got[3], got[4], got[5]};
    requests(50, exp, N(exp), missing, N(missing), &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_REQUEST, 3, 0, "infiniband.bth",
              "PSN 2 RC RDMA Write Last", "none");
    check_request_tally(&res, 6, 5, 1);
    rs_replay_result_free(&res);

    /* One extra: a retransmission the capture's requester did not make. */
    const struct rs_replay_frame extra[] = {
        got[0], got[1], got[2], frame(200, WRITE_MIDDLE, 51), got[3], got[4], got[5],
    };
    requests(50, exp, N(exp), extra, N(extra), &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_REQUEST, 0, 200, "infiniband.bth", "none",
              "PSN 1 RC RDMA Write Middle");
    check_request_tally(&res, 7, 6, 1);
    rs_replay_result_free(&res);

    /* Another opcode in one place. */
    struct rs_replay_frame other[N(got)];
    memcpy(other, got, sizeof(got));
    other[3].opcode = SEND_ONLY_IMM;
    requests(50, exp, N(exp), other, N(other), &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_REQUEST, 4, 104, "infiniband.bth",
              "PSN 3 RC Send Only", "PSN 3 RC Send Only Immediate");
    check_request_tally(&res, 6, 5, 1);
    rs_replay_result_free(&res);

    /* The last missing, and nothing at all. */
    requests(50, exp, N(exp), got, N(got) - 1, &res);
    assert_int_equal(res.divergences->len, 1);
    check_div(&res, 0, RS_REPLAY_RULE_REQUEST, 6, 0, "infiniband.bth",
              "PSN 5 RC Compare Swap", "none");
    rs_replay_result_free(&res);
    requests(50, exp, N(exp), NULL, 0, &res);
    assert_int_equal(res.divergences->len, 6);
    check_request_tally(&res, 6, 0, 6);
    rs_replay_result_free(&res);

    /* Offsets wrap. */
    const struct rs_replay_frame wgot[] = {
        frame(101, WRITE_FIRST, 0xfffffe), frame(102, WRITE_MIDDLE, 0xffffff),
        frame(103, WRITE_LAST, 0), frame(104, SEND_ONLY, 1), frame(105, READ_REQ, 2),
        frame(106, CMP_SWAP, 3),
    };
    requests(0xfffffe, exp, N(exp), wgot, N(wgot), &res);
    assert_int_equal(res.divergences->len, 0);
    check_request_tally(&res, 6, 6, 0);
    rs_replay_result_free(&res);
}

/* --- A trace built by hand --- */

static void
trace_init(struct rs_replay_trace *t, uint16_t pmtu)
{
    memset(t, 0, sizeof(*t));
    t->bytes = g_byte_array_new();
    t->requests = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_frame));
    t->responses = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_frame));
    t->conv.pmtu = pmtu;
}

/* f with len bytes of payload kept in the trace's buffer. */
static void
add_request(struct rs_replay_trace *t, struct rs_replay_frame f, const uint8_t *payload,
            uint32_t len)
{
    f.off = t->bytes->len;
    f.payload_off = t->bytes->len;
    f.payload_len = len;
    if (len != 0)
        g_byte_array_append(t->bytes, payload, len);
    f.len = len;
    g_array_append_val(t->requests, f);
}

static void
add_response(struct rs_replay_trace *t, struct rs_replay_frame f)
{
    g_array_append_val(t->responses, f);
}

static struct rs_replay_frame
reth(uint64_t number, uint8_t opcode, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t dmalen)
{
    struct rs_replay_frame f = frame(number, opcode, psn);

    f.has_reth = true;
    f.va = va;
    f.rkey = rkey;
    f.dmalen = dmalen;
    return f;
}

#define VA 0x7f0000010000ull
#define RKEY 0x1234

/* WRITE of 3000 (PSN 0-2), SEND with immediate (3), WRITE Middle again (1), READ of 3000
 * (4-6), CmpSwap (7), FetchAdd (8). */
static void
build_trace(struct rs_replay_trace *t, uint8_t *write)
{
    static const uint8_t resent[1024] = {0xee};
    struct rs_replay_frame f;

    for (unsigned i = 0; i < 3000; i++)
        write[i] = (uint8_t)(i * 13 + 5);
    trace_init(t, 1024);
    add_request(t, reth(1, WRITE_FIRST, 0, VA, RKEY, 3000), write, 1024);
    add_request(t, frame(2, WRITE_MIDDLE, 1), write + 1024, 1024);
    add_request(t, frame(3, WRITE_LAST, 2), write + 2048, 952);
    add_response(t, ack(4, 2, SYN_ACK, 1));
    f = frame(5, SEND_ONLY_IMM, 3);
    f.has_imm = true;
    f.imm = 0xdeadbeef;
    add_request(t, f, (const uint8_t *)"0123456789", 10);
    add_request(t, frame(6, WRITE_MIDDLE, 1), resent, sizeof(resent));
    add_response(t, ack(7, 3, SYN_ACK, 2));
    add_request(t, reth(8, READ_REQ, 4, VA + 4096, RKEY, 3000), NULL, 0);
    f = reth(9, CMP_SWAP, 7, VA + 8192, RKEY, 0);
    f.compare = 5;
    f.swap_add = 9;
    add_request(t, f, NULL, 0);
    f = reth(10, FETCH_ADD, 8, VA + 8200, RKEY, 0);
    f.swap_add = 3;
    add_request(t, f, NULL, 0);
}

static const struct rs_replay_msg *
msg_at(const GArray *msgs, unsigned i)
{
    assert_true(i < msgs->len);
    return &g_array_index(msgs, struct rs_replay_msg, i);
}

static void
test_messages(void **state)
{
    (void)state;
    static uint8_t write[3000];
    struct rs_replay_trace t;
    GArray *msgs = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_msg));
    GByteArray *bytes = g_byte_array_new();
    char err[RS_ERRBUF_SIZE] = "";

    build_trace(&t, write);
    if (rs_replay_messages(&t, msgs, bytes, err) != 0)
        fail_msg("%s", err);
    assert_int_equal(msgs->len, 5);

    const struct rs_replay_msg *m = msg_at(msgs, 0);
    assert_int_equal(m->frame, 1);
    assert_int_equal(m->opcode, RS_RC_WR_RDMA_WRITE);
    assert_int_equal(m->length, 3000);
    assert_int_equal(m->remote_offset, 0);
    assert_int_equal(m->rkey, RKEY);
    assert_int_equal(m->imm, 0);
    assert_int_equal(m->data_off, 0);

    m = msg_at(msgs, 1);
    assert_int_equal(m->frame, 5);
    assert_int_equal(m->opcode, RS_RC_WR_SEND_WITH_IMM);
    assert_int_equal(m->length, 10);
    assert_int_equal(m->remote_offset, 0);
    assert_int_equal(m->imm, 0xdeadbeef);
    assert_int_equal(m->data_off, 3000);

    m = msg_at(msgs, 2);
    assert_int_equal(m->frame, 8);
    assert_int_equal(m->opcode, RS_RC_WR_RDMA_READ);
    assert_int_equal(m->length, 3000);
    assert_int_equal(m->remote_offset, 4096);
    assert_int_equal(m->rkey, RKEY);
    assert_int_equal(m->data_off, 3010);

    m = msg_at(msgs, 3);
    assert_int_equal(m->frame, 9);
    assert_int_equal(m->opcode, RS_RC_WR_ATOMIC_CMP_AND_SWP);
    assert_int_equal(m->length, 8);
    assert_int_equal(m->remote_offset, 8192);
    assert_int_equal(m->compare_add, 5);
    assert_int_equal(m->swap, 9);

    m = msg_at(msgs, 4);
    assert_int_equal(m->frame, 10);
    assert_int_equal(m->opcode, RS_RC_WR_ATOMIC_FETCH_AND_ADD);
    assert_int_equal(m->length, 8);
    assert_int_equal(m->remote_offset, 8200);
    assert_int_equal(m->compare_add, 3);

    /* The WRITE's bytes once each (the first WRITE Middle of PSN 1, not its retry), then
     * the SEND's. */
    assert_int_equal(bytes->len, 3010);
    assert_memory_equal(bytes->data, write, 3000);
    assert_memory_equal(bytes->data + 3000, "0123456789", 10);
    rs_replay_trace_free(&t);

    /* A SEND with Invalidate and a WRITE with immediate. */
    struct rs_replay_frame f;
    g_array_set_size(msgs, 0);
    g_byte_array_set_size(bytes, 0);
    trace_init(&t, 0);
    f = frame(1, 0x17, 10);             /* Send Only Invalidate */
    f.has_ieth = true;
    f.imm = 0x4321;
    add_request(&t, f, (const uint8_t *)"ab", 2);
    f = reth(2, 0x0b, 11, VA, RKEY, 3); /* RDMA Write Only Immediate */
    f.has_imm = true;
    f.imm = 7;
    add_request(&t, f, (const uint8_t *)"xyz", 3);
    if (rs_replay_messages(&t, msgs, bytes, err) != 0)
        fail_msg("%s", err);
    assert_int_equal(msgs->len, 2);
    assert_int_equal(msg_at(msgs, 0)->opcode, RS_RC_WR_SEND_WITH_INV);
    assert_int_equal(msg_at(msgs, 0)->imm, 0x4321);
    assert_int_equal(msg_at(msgs, 1)->opcode, RS_RC_WR_RDMA_WRITE_WITH_IMM);
    assert_int_equal(msg_at(msgs, 1)->imm, 7);
    assert_int_equal(msg_at(msgs, 1)->data_off, 2);
    assert_int_equal(bytes->len, 5);
    assert_memory_equal(bytes->data, "abxyz", 5);
    rs_replay_trace_free(&t);

    /* PSN 1 missing entirely. */
    g_array_set_size(msgs, 0);
    g_byte_array_set_size(bytes, 0);
    trace_init(&t, 1024);
    add_request(&t, frame(1, SEND_ONLY, 0), (const uint8_t *)"a", 1);
    add_request(&t, frame(2, SEND_ONLY, 2), (const uint8_t *)"b", 1);
    assert_int_equal(rs_replay_messages(&t, msgs, bytes, err), RS_EINVAL);
    if (strstr(err, "PSN 1") == NULL)
        fail_msg("%s", err);
    rs_replay_trace_free(&t);

    /* A message its first packet is missing from, and one that does not end. */
    g_array_set_size(msgs, 0);
    g_byte_array_set_size(bytes, 0);
    trace_init(&t, 1024);
    add_request(&t, frame(7, SEND_MIDDLE, 0), (const uint8_t *)"a", 1);
    assert_int_equal(rs_replay_messages(&t, msgs, bytes, err), RS_EINVAL);
    assert_non_null(strstr(err, "capture frame 7"));
    rs_replay_trace_free(&t);
    g_array_set_size(msgs, 0);
    g_byte_array_set_size(bytes, 0);
    trace_init(&t, 1024);
    add_request(&t, frame(8, SEND_FIRST, 0), (const uint8_t *)"a", 1);
    assert_int_equal(rs_replay_messages(&t, msgs, bytes, err), RS_EINVAL);
    assert_non_null(strstr(err, "from frame 8"));
    rs_replay_trace_free(&t);

    g_array_free(msgs, TRUE);
    g_byte_array_free(bytes, TRUE);
}

static void
test_psn_span(void **state)
{
    (void)state;
    static uint8_t write[3000];
    struct rs_replay_trace t;

    build_trace(&t, write);
    assert_int_equal(rs_replay_first_psn(&t), 0);
    assert_int_equal(rs_replay_psn_span(&t), 9);
    /* A smaller PMTU: the READ takes 12 PSNs. */
    t.conv.pmtu = 256;
    assert_int_equal(rs_replay_psn_span(&t), 4 + 12);
    /* None known: 1024 is assumed. */
    t.conv.pmtu = 0;
    assert_int_equal(rs_replay_psn_span(&t), 9);
    rs_replay_trace_free(&t);

    /* No requests. */
    trace_init(&t, 1024);
    assert_int_equal(rs_replay_first_psn(&t), 0);
    assert_int_equal(rs_replay_psn_span(&t), 0);

    /* The first requests the capture saw are PSN 5 and 6; the responder's first
     * answer is a sequence NAK naming 3: PSNs 3 and 4 were lost before the capture. */
    add_request(&t, frame(2, SEND_ONLY, 5), NULL, 0);
    add_request(&t, frame(3, SEND_ONLY, 6), NULL, 0);
    assert_int_equal(rs_replay_first_psn(&t), 5);
    assert_int_equal(rs_replay_psn_span(&t), 2);
    add_response(&t, ack(4, 3, SYN_NAK(RS_NAK_PSN_SEQ_ERROR), 0));
    assert_int_equal(rs_replay_first_psn(&t), 3);
    assert_int_equal(rs_replay_psn_span(&t), 4);
    /* A retransmission of a PSN before the first one does not count. */
    add_request(&t, frame(5, SEND_ONLY, 2), NULL, 0);
    assert_int_equal(rs_replay_psn_span(&t), 4);
    rs_replay_trace_free(&t);

    /* A sequence NAK naming a later PSN, one that is not the first AETH, and another
     * NAK code do not move it. */
    static const uint8_t firsts[][2] = {
        {7, SYN_NAK(RS_NAK_PSN_SEQ_ERROR)},
        {3, SYN_NAK(RS_NAK_INVALID_REQUEST)},
        {3, SYN_RNR(3)},
    };
    for (size_t i = 0; i < N(firsts); i++) {
        trace_init(&t, 1024);
        add_request(&t, frame(2, SEND_ONLY, 5), NULL, 0);
        add_response(&t, ack(3, firsts[i][0], firsts[i][1], 0));
        assert_int_equal(rs_replay_first_psn(&t), 5);
        rs_replay_trace_free(&t);
    }
    trace_init(&t, 1024);
    add_request(&t, frame(2, SEND_ONLY, 5), NULL, 0);
    add_response(&t, frame(3, READ_MIDDLE, 1));         /* no AETH: not looked at */
    add_response(&t, ack(4, 5, SYN_ACK, 1));
    add_response(&t, ack(5, 3, SYN_NAK(RS_NAK_PSN_SEQ_ERROR), 1));
    assert_int_equal(rs_replay_first_psn(&t), 5);
    rs_replay_trace_free(&t);

    /* Across the wrap: from 0xfffffe, a READ of 2048 at PSN 1 (two PSNs); the first
     * answer's sequence NAK names 0xfffffd. */
    trace_init(&t, 1024);
    add_request(&t, frame(2, SEND_ONLY, 0xfffffe), NULL, 0);
    add_request(&t, frame(3, SEND_ONLY, 0xffffff), NULL, 0);
    add_request(&t, frame(4, SEND_ONLY, 0), NULL, 0);
    add_request(&t, reth(5, READ_REQ, 1, VA, RKEY, 2048), NULL, 0);
    assert_int_equal(rs_replay_first_psn(&t), 0xfffffe);
    assert_int_equal(rs_replay_psn_span(&t), 5);
    add_response(&t, ack(6, 0xfffffd, SYN_NAK(RS_NAK_PSN_SEQ_ERROR), 0));
    assert_int_equal(rs_replay_first_psn(&t), 0xfffffd);
    assert_int_equal(rs_replay_psn_span(&t), 6);
    rs_replay_trace_free(&t);
    trace_init(&t, 1024);
    add_request(&t, frame(2, SEND_ONLY, 1), NULL, 0);
    add_response(&t, ack(3, 0xffffff, SYN_NAK(RS_NAK_PSN_SEQ_ERROR), 0));
    assert_int_equal(rs_replay_first_psn(&t), 0xffffff);
    assert_int_equal(rs_replay_psn_span(&t), 3);
    rs_replay_trace_free(&t);
}

/* --- Reports --- */

static void
sample_result(struct rs_replay_result *res)
{
    struct rs_replay_divergence d;

    rs_replay_result_init(res);
    memset(&d, 0, sizeof(d));
    d.capture_frame = 4;
    d.replay_frame = 40;
    d.rule = RS_REPLAY_RULE_ACK_CLASS;
    snprintf(d.field, sizeof(d.field), "infiniband.aeth.syndrome");
    snprintf(d.expected, sizeof(d.expected), "ACK");
    snprintf(d.got, sizeof(d.got), "NAK Remote Access Error");
    g_array_append_val(res->divergences, d);
    memset(&d, 0, sizeof(d));
    d.capture_frame = 9;
    d.rule = RS_REPLAY_RULE_COMPLETION;
    snprintf(d.field, sizeof(d.field), "infiniband.aeth.syndrome");
    snprintf(d.expected, sizeof(d.expected), "ACK <&>");
    snprintf(d.got, sizeof(d.got), "none");
    g_array_append_val(res->divergences, d);
    res->by_rule[RS_REPLAY_RULE_ACK_CLASS] = (struct rs_replay_tally)T(3, 2, 0, 1);
    res->by_rule[RS_REPLAY_RULE_COMPLETION] = (struct rs_replay_tally)T(2, 0, 1, 1);
    res->by_rule[RS_REPLAY_RULE_MSN] = (struct rs_replay_tally)T(2, 2, 0, 0);
    res->expected = 5;
    res->got = 4;
    res->passes = 2;
}

/* What fn printed of res. */
static char *
printed(void (*fn)(FILE *, const struct rs_replay_result *), const struct rs_replay_result *res)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);

    assert_non_null(f);
    fn(f, res);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static unsigned
count(const char *s, const char *what)
{
    unsigned n = 0;

    for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

static void
test_print(void **state)
{
    (void)state;
    struct rs_replay_result res;

    sample_result(&res);
    char *out = printed(rs_replay_print, &res);
    static const char want[] =
        "divergence: capture frame 4, replay frame 40: infiniband.aeth.syndrome: expected ACK, "
        "got NAK Remote Access Error [ack-class]\n"
        "divergence: capture frame 9, replay frame -: infiniband.aeth.syndrome: expected "
        "ACK <&>, got none [completion]\n"
        "Rule           Compared      Same   Allowed  Diverged\n"
        "opcode                0         0         0         0\n"
        "segmentation          0         0         0         0\n"
        "ack-class             3         2         0         1\n"
        "rnr                   0         0         0         0\n"
        "msn                   2         2         0         0\n"
        "payload               0         0         0         0\n"
        "completion            2         0         1         1\n"
        "extra                 0         0         0         0\n"
        "violation             0         0         0         0\n"
        "request               0         0         0         0\n"
        "2 divergences: 5 packets of the capture to compare, 4 from the other side in 2 "
        "passes\n";
    assert_string_equal(out, want);
    free(out);

    out = printed(rs_replay_print_tap, &res);
    static const char tap[] =
        "TAP version 13\n"
        "1..10\n"
        "ok 1 - opcode: 0 compared, 0 allowed\n"
        "ok 2 - segmentation: 0 compared, 0 allowed\n"
        "not ok 3 - ack-class: 3 compared, 0 allowed\n"
        "# capture frame 4, replay frame 40: infiniband.aeth.syndrome: expected ACK, got NAK "
        "Remote Access Error [ack-class]\n"
        "ok 4 - rnr: 0 compared, 0 allowed\n"
        "ok 5 - msn: 2 compared, 0 allowed\n"
        "ok 6 - payload: 0 compared, 0 allowed\n"
        "not ok 7 - completion: 2 compared, 1 allowed\n"
        "# capture frame 9, replay frame -: infiniband.aeth.syndrome: expected ACK <&>, got "
        "none [completion]\n"
        "ok 8 - extra: 0 compared, 0 allowed\n"
        "ok 9 - violation: 0 compared, 0 allowed\n"
        "ok 10 - request: 0 compared, 0 allowed\n";
    assert_string_equal(out, tap);
    free(out);
    rs_replay_result_free(&res);

    /* An empty result: one divergence line fewer, all ok, singular pass. */
    rs_replay_result_init(&res);
    out = printed(rs_replay_print, &res);
    assert_null(strstr(out, "divergence: "));
    assert_non_null(strstr(out, "\n0 divergences: 0 packets of the capture to compare, 0 from "
                            "the other side in 1 pass\n"));
    free(out);
    out = printed(rs_replay_print_tap, &res);
    assert_int_equal(count(out, "\nok "), 10);
    assert_null(strstr(out, "not ok"));
    free(out);
    rs_replay_result_free(&res);
    assert_string_equal(rs_replay_rule_name(RS_REPLAY_RULE_COUNT), "?");
}

static void
test_junit(void **state)
{
    (void)state;
    struct rs_replay_result res;
    char path[] = "/tmp/test_replay_compare_XXXXXX";
    char err[RS_ERRBUF_SIZE] = "";
    gchar *xml = NULL;
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    close(fd);
    sample_result(&res);
    if (rs_replay_write_junit(path, "replay \"conv 1\"", &res, err) != 0)
        fail_msg("%s", err);
    assert_true(g_file_get_contents(path, &xml, NULL, NULL));
    unlink(path);

    assert_int_equal(count(xml, "<testcase"), 10);
    assert_int_equal(count(xml, "</testcase>"), 10);
    assert_int_equal(count(xml, "<failure "), 2);
    assert_non_null(strstr(xml, "<testsuite name=\"replay &quot;conv 1&quot;\" tests=\"10\" "
                                "failures=\"2\""));
    assert_true(g_str_has_suffix(xml, "</testsuite>\n"));
    assert_non_null(strstr(xml, "name=\"ack-class\"><failure message=\"capture frame 4, replay "
                                "frame 40: infiniband.aeth.syndrome: expected ACK, got NAK "
                                "Remote Access Error (1 divergences)\"/></testcase>"));
    assert_non_null(strstr(xml, "name=\"completion\"><failure message=\"capture frame 9, "
                                "replay frame 0: infiniband.aeth.syndrome: expected ACK "
                                "&lt;&amp;&gt;, got none (1 divergences)\"/></testcase>"));
    assert_non_null(strstr(xml, "name=\"msn\"><system-out>2 compared, 0 allowed</system-out>"));
    g_free(xml);

    /* Nowhere to write. */
    assert_int_equal(rs_replay_write_junit("/nonexistent/dir/x.xml", "r", &res, err), RS_EIO);
    assert_non_null(strstr(err, "/nonexistent/dir/x.xml"));
    rs_replay_result_free(&res);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical),
        cmocka_unit_test(test_ack_coalescing),
        cmocka_unit_test(test_nak_class),
        cmocka_unit_test(test_rnr),
        cmocka_unit_test(test_segmentation),
        cmocka_unit_test(test_read_naked),
        cmocka_unit_test(test_msn),
        cmocka_unit_test(test_payloads),
        cmocka_unit_test(test_messages_mode),
        cmocka_unit_test(test_passes),
        cmocka_unit_test(test_psn_offset),
        cmocka_unit_test(test_violations),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_compare_requests),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_psn_span),
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_junit),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
