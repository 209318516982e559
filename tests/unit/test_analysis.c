/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_analysis.c - the analyzer's building blocks: PSN arithmetic across
 * the wrap, READ spans while the PMTU is unknown, pairing, the bounded
 * table and its evictions, and statistics.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/cm_mad.h>
#include <roceshark/dissectors/oob.h>
#include <roceshark/dissectors/wire.h>

#include "../../dissectors/analysis/analyzer_int.h"
#include "testutil.h"

/* Allocations are counted by standing in for malloc and its kin in front of
 * glibc's own (which GLib's g_malloc reaches too); under AddressSanitizer,
 * whose allocator stands there already, through its allocation hook. */
#include "../sanitizer.h"
static bool counting_allocs;
static unsigned long allocs;
#ifdef HAVE_ASAN
/* Declared here: gcc ships no sanitizer/allocator_interface.h. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));

static void
count_alloc(const volatile void *p, size_t n)
{
    (void)p, (void)n;
    allocs += counting_allocs;
}

static void
ignore_free(const volatile void *p)
{
    (void)p;
}

static void
count_allocs_init(void)
{
    __sanitizer_install_malloc_and_free_hooks(count_alloc, ignore_free);
}
#else
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

void *
malloc(size_t n)
{
    allocs += counting_allocs;
    return __libc_malloc(n);
}

void *
calloc(size_t n, size_t size)
{
    allocs += counting_allocs;
    return __libc_calloc(n, size);
}

void *
realloc(void *p, size_t n)
{
    allocs += counting_allocs;
    return __libc_realloc(p, n);
}

static void
count_allocs_init(void)
{
}
#endif

/* Builds a RoCEv2/IPv4 frame (the ICRC is not computed: the analysis does
 * not look at it) into tf. */
static void
build(struct test_frame *tf, uint8_t src, uint8_t dst, uint8_t opcode, uint32_t dqpn,
      uint32_t psn, const uint8_t *ext, uint32_t ext_len, uint32_t payload)
{
    uint8_t *p = tf->bytes;
    uint32_t ib_len = 12 + ext_len + payload + 4;

    memset(p, 0, 14 + 20 + 8 + ib_len);
    p[12] = 0x08;
    p[14] = 0x45;
    rs_store_be16(p + 16, (uint16_t)(20 + 8 + ib_len));
    p[23] = 17;
    p[26] = 10, p[29] = src;
    p[30] = 10, p[33] = dst;
    rs_store_be16(p + 34, 50000);
    rs_store_be16(p + 36, 4791);
    rs_store_be16(p + 38, (uint16_t)(8 + ib_len));
    uint8_t *bth = p + 42;
    bth[0] = opcode;
    rs_store_be16(bth + 2, 0xffff);
    rs_store_be24(bth + 5, dqpn);
    bth[8] = 0x80;
    rs_store_be24(bth + 9, psn);
    if (ext_len > 0)
        memcpy(bth + 12, ext, ext_len);
    memset(&tf->frame, 0, sizeof(tf->frame));
    tf->frame.data = p;
    tf->frame.caplen = tf->frame.len = 42 + ib_len;
    tf->frame.linktype = RS_DLT_EN10MB;
}

struct run {
    struct rs_analyzer *an;
    uint64_t number;
    uint64_t later_ns;          /* added to every frame's time from now on */
    struct test_frame tf;
    struct rs_packet pkt;
    struct rs_facts facts;
};

/* Starts r's analyzer with the default options, and at most max_convs
 * conversations when that is not 0. */
static void
start(struct run *r, uint32_t max_convs)
{
    struct rs_analysis_opts o;

    rs_analysis_opts_init(&o);
    if (max_convs != 0)
        o.max_convs = max_convs;
    assert_int_equal(rs_analyzer_new(&o, &r->an, NULL), 0);
}

/* Numbers and times the frame in r->tf (a microsecond apart, plus later_ns) and
 * analyzes it. */
static void
stamp_and_run(struct run *r)
{
    uint64_t t = r->number * 1000 + 1000 + r->later_ns;

    r->tf.frame.number = ++r->number;
    r->tf.frame.ts_sec = 1000 + (int64_t)(t / 1000000000u);
    r->tf.frame.ts_nsec = (uint32_t)(t % 1000000000u);
    test_decode(&r->tf.frame, &r->pkt);
    rs_analyzer_process(r->an, &r->pkt, &r->facts);
}

static void
feed(struct run *r, uint8_t src, uint8_t dst, uint8_t opcode, uint32_t dqpn, uint32_t psn,
     const uint8_t *ext, uint32_t ext_len, uint32_t payload)
{
    build(&r->tf, src, dst, opcode, dqpn, psn, ext, ext_len, payload);
    stamp_and_run(r);
}

static const uint8_t ack_ext[4] = {0x1f, 0, 0, 1};

static uint8_t *
reth(uint8_t *buf, uint32_t dmalen)
{
    memset(buf, 0, 16);
    rs_store_be32(buf + 12, dmalen);
    return buf;
}

static void
test_psn_arithmetic(void **state)
{
    (void)state;
    assert_int_equal(psn_diff(5, 3), 2);
    assert_int_equal(psn_diff(3, 5), -2);
    assert_int_equal(psn_diff(0, 0xffffff), 1);         /* across the wrap */
    assert_int_equal(psn_diff(0xffffff, 0), -1);
    assert_int_equal(psn_diff(0x7fffff, 0), 0x7fffff);
    assert_int_equal(psn_diff(0x800000, 0), -0x800000);
    assert_int_equal(psn_add(0xfffffe, 3), 1);
}

static void
test_wrap_without_false_alarms(void **state)
{
    struct run r = {0};

    (void)state;
    start(&r, 0);
    for (uint32_t i = 0; i < 8; i++) {
        feed(&r, 1, 2, 0x04, 0x22, (0xfffffc + i) & 0xffffff, NULL, 0, 16);
        assert_false(r.facts.flags & (RS_FACT_PSN_GAP | RS_FACT_RETRANSMISSION));
        assert_true(r.facts.flags & RS_FACT_MSG);
    }
    feed(&r, 1, 2, 0x04, 0x22, 6, NULL, 0, 16);                 /* skips PSN 4 and 5 */
    assert_true(r.facts.flags & RS_FACT_PSN_GAP);
    assert_int_equal(r.facts.psn_gap, 2);
    feed(&r, 1, 2, 0x04, 0x22, 0xfffffe, NULL, 0, 16);          /* behind, across the wrap */
    assert_true(r.facts.flags & RS_FACT_RETRANSMISSION);
    rs_analyzer_free(r.an);
}

/* A READ before any FIRST/MIDDLE: its span depends on the unknown PMTU.
 * The next request's PSN fixes it, without a false gap or retransmission,
 * and teaches the PMTU. */
static void
test_read_span_with_unknown_pmtu(void **state)
{
    struct run r = {0};
    struct rs_analysis_opts o;
    uint8_t ext[16];

    (void)state;
    start(&r, 0);
    feed(&r, 1, 2, 0x0c, 0x22, 100, reth(ext, 8192), 16, 0);  /* 2..32 PSNs */
    assert_false(r.facts.flags & (RS_FACT_PSN_GAP | RS_FACT_RETRANSMISSION));
    feed(&r, 1, 2, 0x04, 0x22, 102, NULL, 0, 8);                /* 2 PSNs: PMTU 4096 */
    assert_false(r.facts.flags & (RS_FACT_PSN_GAP | RS_FACT_RETRANSMISSION));
    assert_int_equal(r.facts.pmtu, 4096);
    feed(&r, 1, 2, 0x0c, 0x22, 103, reth(ext, 8192), 16, 0);  /* now exactly 2 */
    feed(&r, 1, 2, 0x04, 0x22, 106, NULL, 0, 8);
    assert_true(r.facts.flags & RS_FACT_PSN_GAP);
    assert_int_equal(r.facts.psn_gap, 1);
    rs_analyzer_free(r.an);

    /* With -o rc.pmtu:256 the same first READ spans 32 PSNs at once. */
    rs_analysis_opts_init(&o);
    o.pmtu = 256;
    r = (struct run){0};
    assert_int_equal(rs_analyzer_new(&o, &r.an, NULL), 0);
    feed(&r, 1, 2, 0x0c, 0x22, 100, reth(ext, 8192), 16, 0);
    feed(&r, 1, 2, 0x04, 0x22, 102, NULL, 0, 8);
    assert_true(r.facts.flags & RS_FACT_RETRANSMISSION);
    rs_analyzer_free(r.an);
}

static void
count_conv(void *ctx, const struct rs_conv_stats *st)
{
    uint64_t *seen = ctx;

    seen[0]++;
    seen[1] += st->req_packets;
    if (st->id == 0)
        seen[2]++;
}

/* Twenty conversations through a table of four, then one live and one
 * evicted comes back; the facts do not depend on keep_evicted. */
static void
overflow_table_of_four(struct run *r, bool keep_evicted)
{
    struct rs_analysis_opts o;

    rs_analysis_opts_init(&o);
    o.max_convs = 4;
    o.keep_evicted = keep_evicted;
    assert_int_equal(rs_analyzer_new(&o, &r->an, NULL), 0);
    for (uint32_t qp = 0; qp < 20; qp++)
        feed(r, 1, 2, 0x04, 0x100 + qp, 7, NULL, 0, 8);
    assert_int_equal(rs_analyzer_evictions(r->an), 16);
    /* Conversation of QP 0x113 is still live: its second packet is in order. */
    feed(r, 1, 2, 0x04, 0x113, 8, NULL, 0, 8);
    assert_false(r->facts.flags & (RS_FACT_PSN_GAP | RS_FACT_RETRANSMISSION));
    assert_int_equal(r->facts.conv, 20);
    /* QP 0x100 was evicted: it starts afresh, with a new id. */
    feed(r, 1, 2, 0x04, 0x100, 3, NULL, 0, 8);
    assert_false(r->facts.flags & (RS_FACT_PSN_GAP | RS_FACT_RETRANSMISSION));
    assert_int_equal(r->facts.conv, 21);
    assert_int_equal(rs_analyzer_evictions(r->an), 17);
}

/* The table holds max_convs conversations; the least recently used goes,
 * counted, with its statistics archived up to the same bound and summed
 * beyond it. */
static void
test_bounded_table(void **state)
{
    struct run r = {0};
    uint64_t seen[3] = {0};
    struct rs_conv_stats st;

    (void)state;
    overflow_table_of_four(&r, true);
    rs_analyzer_foreach_conv(r.an, count_conv, seen);
    /* 4 live + 4 archived rows + 1 row summing the other 9. */
    assert_int_equal(seen[0], 9);
    assert_int_equal(seen[1], 22);
    assert_int_equal(seen[2], 1);
    assert_true(rs_analyzer_conv_stats(r.an, 1, &st));
    assert_int_equal(st.responder_qp, 0x100);
    rs_analyzer_free(r.an);
}

/* Without keep_evicted, evicted conversations leave nothing to list: the
 * live four only, and the evictions still counted. */
static void
test_evicted_not_kept(void **state)
{
    struct run r = {0};
    uint64_t seen[3] = {0};
    struct rs_conv_stats st;

    (void)state;
    overflow_table_of_four(&r, false);
    rs_analyzer_foreach_conv(r.an, count_conv, seen);
    /* QPs 0x111, 0x112, 0x113 (two packets) and 0x100 again. */
    assert_int_equal(seen[0], 4);
    assert_int_equal(seen[1], 5);
    assert_int_equal(seen[2], 0);
    assert_false(rs_analyzer_conv_stats(r.an, 1, &st));
    assert_true(rs_analyzer_conv_stats(r.an, 21, &st));
    assert_int_equal(rs_analyzer_losses(r.an).evictions, 17);
    rs_analyzer_free(r.an);
}

struct id_rows {
    uint32_t n;
    uint32_t id[8], responder_qp[8];
    uint64_t req_packets[8];
    int64_t read_p99_ns[8];
};

static void
collect_row(void *ctx, const struct rs_conv_stats *st)
{
    struct id_rows *rows = ctx;

    assert_true(rows->n < 8);
    rows->id[rows->n] = st->id;
    rows->responder_qp[rows->n] = st->responder_qp;
    rows->req_packets[rows->n] = st->req_packets;
    rows->read_p99_ns[rows->n] = st->read_p99_ns;
    rows->n++;
}

/* The table lists conversations by id, archived and live mixed, each with its
 * own statistics (a live one's READ percentile computed as it is listed),
 * whatever order they were evicted in. */
static void
test_foreach_in_id_order(void **state)
{
    static const uint32_t responder_qp[] = {0x200, 0x201, 0x202, 0x203, 0x300, 0x301};
    static const uint64_t req_packets[] = {2, 2, 2, 1, 2, 1};
    struct run r = {0};
    struct id_rows rows = {0};
    uint8_t ext[16];

    (void)state;
    start(&r, 4);
    for (uint32_t i = 0; i < 4; i++)
        feed(&r, 1, 2, 0x04, 0x200 + i, 10, NULL, 0, 8);           /* conversations 1-4 */
    for (uint32_t i = 0; i < 3; i++)
        feed(&r, 1, 2, 0x04, 0x200 + i, 11, NULL, 0, 8);           /* 1-3 again: 4 is oldest */
    feed(&r, 1, 2, 0x0c, 0x300, 500, reth(ext, 8), 16, 0);         /* 5, a READ, evicts 4 */
    feed(&r, 2, 1, 0x10, 0x900, 500, ack_ext, 4, 8);               /* its response */
    feed(&r, 1, 2, 0x04, 0x300, 501, NULL, 0, 8);
    feed(&r, 1, 2, 0x04, 0x301, 10, NULL, 0, 8);                   /* 6 evicts 1 */
    assert_int_equal(rs_analyzer_evictions(r.an), 2);
    rs_analyzer_foreach_conv(r.an, collect_row, &rows);
    assert_int_equal(rows.n, 6);
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(rows.id[i], i + 1);
        assert_int_equal(rows.responder_qp[i], responder_qp[i]);
        assert_int_equal(rows.req_packets[i], req_packets[i]);
        assert_int_equal(rows.read_p99_ns[i], i == 4 ? 1000 : 0);
    }
    /* Unordered: the same rows, live ones with their final statistics too. */
    struct id_rows any = {0};
    rs_analyzer_foreach_conv_unordered(r.an, collect_row, &any);
    assert_int_equal(any.n, 6);
    uint32_t seen = 0;
    for (uint32_t k = 0; k < 6; k++) {
        uint32_t i = any.id[k] - 1;
        assert_true(i < 6 && !(seen & (1u << i)));
        seen |= 1u << i;
        assert_int_equal(any.responder_qp[k], responder_qp[i]);
        assert_int_equal(any.req_packets[k], req_packets[i]);
        assert_int_equal(any.read_p99_ns[k], i == 4 ? 1000 : 0);
    }
    rs_analyzer_free(r.an);
}

/* Only a conversation that sees a response takes a side (conv_side.c), and
 * an evicted one gives it back, cleared for the next: at a bound of 4 no more
 * than 4 are held, and a new conversation's MSN check knows nothing of the
 * higher MSN its side's last owner saw. */
static void
test_side_taken_on_use(void **state)
{
    struct run r = {0};

    (void)state;
    start(&r, 4);
    feed(&r, 1, 2, 0x04, 0x1000, 0, NULL, 0, 8);                  /* SEND, unanswered */
    assert_null(conv_by_id(r.an, 1)->side);
    assert_int_equal(r.an->sides.in_use, 0);
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t psn = i * 100;
        uint8_t ack[4] = {0x1f, 0, (uint8_t)((1000 - i) >> 8), (uint8_t)(1000 - i)};
        feed(&r, 1, 2, 0x04, 0x2000 + i, psn, NULL, 0, 8);
        uint32_t id = r.facts.conv;
        assert_null(conv_by_id(r.an, id)->side);
        feed(&r, 2, 1, 0x11, 0x9000 + i, psn, ack, 4, 0);          /* its ACK */
        assert_int_equal(r.facts.conv, id);
        assert_non_null(conv_by_id(r.an, id)->side);
        assert_false(r.facts.flags & RS_FACT_VIOLATION);
        assert_true(r.an->sides.in_use <= 4);
    }
    assert_int_equal(r.an->sides.in_use, 4);
    rs_analyzer_free(r.an);
}

/* A table far smaller than the traffic: every new conversation reuses the
 * memory of the one evicted for it, and none of what that one knew (its
 * remembered requests, its READ times) shows through. */
static void
test_evicted_memory_reused(void **state)
{
    struct run r = {0};
    struct rs_conv_stats st;
    uint64_t seen[3] = {0};
    uint8_t ext[16];

    (void)state;
    start(&r, 4);
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t psn = i * 100;
        feed(&r, 1, 2, 0x04, 0x1000 + i, psn, NULL, 0, 8);                 /* SEND */
        assert_int_equal(r.facts.conv, i + 1);
        feed(&r, 1, 2, 0x0c, 0x1000 + i, psn + 1, reth(ext, 8), 16, 0);    /* READ */
        feed(&r, 2, 1, 0x10, 0x9000 + i, psn + 1, ack_ext, 4, 8);          /* its response */
        assert_int_equal(r.facts.conv, i + 1);
        assert_true(r.facts.flags & RS_FACT_REQUEST_FRAME);
        assert_int_equal(r.facts.request_frame, r.number - 1);
        assert_false(r.facts.flags & RS_FACT_VIOLATION);
    }
    assert_int_equal(rs_analyzer_evictions(r.an), 996);
    assert_int_equal(r.an->n_live, 4);
    /* The first four evicted are archived, whole. */
    assert_true(rs_analyzer_conv_stats(r.an, 1, &st));
    assert_int_equal(st.req_packets, 2);
    assert_int_equal(st.requester_qp, 0x9000);
    assert_int_equal(st.responder_qp, 0x1000);
    assert_int_equal(st.read_count, 1);
    assert_int_equal(st.read_p99_ns, 1000);
    assert_false(rs_analyzer_conv_stats(r.an, 500, &st));
    rs_analyzer_foreach_conv(r.an, count_conv, seen);
    assert_int_equal(seen[0], 9);           /* 4 live, 4 archived, 1 sum of 992 */
    assert_int_equal(seen[1], 2000);
    assert_int_equal(seen[2], 1);

    /* QP 0x1000 comes back, long evicted: a new conversation, paired anew
     * through its responder QP, with no READ time of its own yet. */
    feed(&r, 1, 2, 0x04, 0x1000, 7, NULL, 0, 8);
    assert_int_equal(r.facts.conv, 1001);
    assert_false(r.facts.flags & (RS_FACT_PSN_GAP | RS_FACT_RETRANSMISSION));
    assert_true(rs_analyzer_conv_stats(r.an, 1001, &st));
    assert_int_equal(st.req_packets, 1);
    assert_int_equal(st.read_count, 0);
    assert_int_equal(st.read_p99_ns, 0);
    /* A response for a PSN only the evicted conversation sent: no request. */
    feed(&r, 2, 1, 0x10, 0x9000, 1, ack_ext, 4, 8);
    assert_int_equal(r.facts.conv, 1001);
    assert_false(r.facts.flags & RS_FACT_REQUEST_FRAME);
    feed(&r, 1, 2, 0x0c, 0x1000, 8, reth(ext, 8), 16, 0);
    feed(&r, 2, 1, 0x10, 0x9000, 8, ack_ext, 4, 8);
    assert_int_equal(r.facts.conv, 1001);
    assert_int_equal(r.facts.request_frame, r.number - 1);
    assert_true(rs_analyzer_conv_stats(r.an, 1001, &st));
    assert_int_equal(st.read_count, 1);
    assert_int_equal(st.read_p99_ns, 1000);
    assert_int_equal(rs_analyzer_evictions(r.an), 997);
    rs_analyzer_free(r.an);
}

/* A conversation's first requests live in it; more move to the heap. An
 * evicted conversation's memory, with either ring, serves the next, which
 * finds its own requests and none of the old ones. */
static void
test_request_ring_recycled(void **state)
{
    struct run r = {0};
    uint8_t ext[16];
    uint64_t first[3];

    (void)state;
    start(&r, 1);
    /* 3 READs fit the inline ring, 10 and 40 grow it; each QP evicts the last. */
    const uint32_t reads[3] = {3, 10, 40};
    for (uint32_t q = 0; q < 3; q++) {
        uint32_t qp = 0x100 + q, psn = 1000 * (q + 1);
        for (uint32_t i = 0; i < reads[q]; i++) {
            feed(&r, 1, 2, 0x0c, qp, psn + i, reth(ext, 8), 16, 0);
            if (i == 0)
                first[q] = r.number;
            assert_int_equal(r.facts.conv, q + 1);
        }
        /* In the memory of the one it evicted, the READ an older one sent
         * first (never answered, so still remembered there) finds nothing, */
        for (uint32_t old = 0; old < q; old++) {
            feed(&r, 2, 1, 0x10, 0x900 + q, 1000 * (old + 1), ack_ext, 4, 8);
            assert_int_equal(r.facts.conv, q + 1);
            assert_false(r.facts.flags & RS_FACT_REQUEST_FRAME);
        }
        /* and its own first and last READs are remembered: the first found by
         * a Read Response Last, which leaves it unanswered, the last answered. */
        feed(&r, 2, 1, 0x0f, 0x900 + q, psn, ack_ext, 4, 8);
        assert_int_equal(r.facts.conv, q + 1);
        assert_true(r.facts.flags & RS_FACT_REQUEST_FRAME);
        assert_int_equal(r.facts.request_frame, first[q]);
        feed(&r, 2, 1, 0x10, 0x900 + q, psn + reads[q] - 1, ack_ext, 4, 8);
        assert_true(r.facts.flags & RS_FACT_REQUEST_FRAME);
        assert_int_equal(r.facts.request_frame, first[q] + reads[q] - 1);
    }
    assert_int_equal(rs_analyzer_evictions(r.an), 2);
    rs_analyzer_free(r.an);
}

/* Responses pair with the request stream between the same hosts whose
 * PSNs they carry, and READ responses find their request. */
static void
test_pairing_by_psn(void **state)
{
    struct run r = {0};
    uint8_t ext[16];

    (void)state;
    start(&r, 0);
    feed(&r, 1, 2, 0x04, 0x22, 5000, NULL, 0, 8);               /* conv 1 */
    feed(&r, 1, 2, 0x04, 0x33, 90000, NULL, 0, 8);              /* conv 2 */
    feed(&r, 1, 2, 0x0c, 0x22, 5001, reth(ext, 100), 16, 0);    /* frame 3 */
    feed(&r, 2, 1, 0x11, 0x44, 90000, ack_ext, 4, 0);           /* ACK for conv 2 */
    assert_int_equal(r.facts.conv, 2);
    assert_int_equal(r.facts.acked_frame, 2);
    uint8_t aeth[4] = {0x1f, 0, 0, 2};
    feed(&r, 2, 1, 0x10, 0x55, 5001, aeth, 4, 100);             /* READ response for conv 1 */
    assert_int_equal(r.facts.conv, 1);
    assert_true(r.facts.flags & RS_FACT_REQUEST_FRAME);
    assert_int_equal(r.facts.request_frame, 3);
    assert_int_equal(r.facts.response_time.sec, 0);
    assert_int_equal(r.facts.response_time.nsec, 2000);
    assert_false(r.facts.flags & RS_FACT_VIOLATION);
    rs_analyzer_free(r.an);
}

/* A UD SEND Only to QP 1 from host src carrying a CM MAD: attr with the given
 * communication ids and local QPN. */
static void
feed_cm(struct run *r, uint8_t src, uint8_t dst, uint16_t attr, uint32_t local_id,
        uint32_t remote_id, uint32_t qpn)
{
    uint8_t ext[8 + RS_CM_MAD_LEN] = {0};
    const struct rs_cm_layout *l = rs_cm_layout(attr);

    ext[7] = 1;                                     /* DETH: source QP 1 */
    rs_cm_hdr_write(ext + 8, attr, local_id);
    rs_cm_set(l, ext + 8 + RS_CM_MAD_HDR_LEN, RS_CMF_LOCAL_COMM_ID, local_id);
    rs_cm_set(l, ext + 8 + RS_CM_MAD_HDR_LEN, RS_CMF_REMOTE_COMM_ID, remote_id);
    rs_cm_set(l, ext + 8 + RS_CM_MAD_HDR_LEN, RS_CMF_LOCAL_QPN, qpn);
    feed(r, src, dst, 0x64, 1, 0, ext, sizeof(ext), 0);
}

/* The CM's word (rs_analyzer_pair) on QPs that carried traffic starts a new life of
 * them: the next request is a new conversation noting the one before, paired as the CM
 * says (responses to 0x66), while the QP the PSNs had paired (0x44) answers for it no
 * more, also after evictions that bring the old key back. */
static void
test_repaired_by_cm(void **state)
{
    struct run r = {0};
    const uint8_t a[4] = {10, 0, 0, 1}, b[4] = {10, 0, 0, 2};

    (void)state;
    start(&r, 2);
    feed(&r, 1, 2, 0x04, 0x22, 5000, NULL, 0, 8);           /* conv 1 */
    feed(&r, 2, 1, 0x11, 0x44, 5000, ack_ext, 4, 0);        /* its ACK: paired under 0x44 */
    assert_int_equal(r.facts.conv, 1);
    rs_analyzer_pair(r.an, 4, a, 0x66, b, 0x22);            /* the CM names 0x66 */
    feed(&r, 1, 2, 0x04, 0x22, 5001, NULL, 0, 8);
    assert_int_equal(r.facts.conv, 2);
    assert_true(r.facts.flags & RS_FACT_QP_REUSED);
    assert_int_equal(r.facts.qp_reused, 1);
    assert_int_equal(r.facts.psn_rel, 0);
    feed(&r, 2, 1, 0x11, 0x66, 5001, ack_ext, 4, 0);
    assert_int_equal(r.facts.conv, 2);
    assert_int_equal(r.facts.acked_frame, 3);
    assert_false(r.facts.flags & (RS_FACT_QP_REUSED | RS_FACT_VIOLATION));
    feed(&r, 2, 1, 0x11, 0x44, 5001, ack_ext, 4, 0);        /* 0x44 is not conv 2's */
    assert_int_not_equal(r.facts.conv, 2);
    for (uint32_t q = 0x100; q < 0x108; q++)                /* conv 2 evicted */
        feed(&r, 3, 4, 0x04, q, 1, NULL, 0, 8);
    feed(&r, 2, 1, 0x11, 0x44, 7000, ack_ext, 4, 0);
    feed(&r, 2, 1, 0x11, 0x66, 7000, ack_ext, 4, 0);
    assert_int_not_equal(r.facts.conv, 2);
    rs_analyzer_free(r.an);
}

/* roceshark.analysis.psn_rel counts from the conversation's first PSN, across the wrap,
 * on requests and on the responses that carry their PSNs. */
static void
test_psn_rel(void **state)
{
    struct run r = {0};

    (void)state;
    start(&r, 0);
    for (uint32_t i = 0; i < 4; i++) {
        feed(&r, 1, 2, 0x04, 0x22, (0xfffffe + i) & 0xffffff, NULL, 0, 8);
        assert_true(r.facts.flags & RS_FACT_PSN_REL);
        assert_int_equal(r.facts.psn_rel, i);
    }
    feed(&r, 2, 1, 0x11, 0x44, 1, ack_ext, 4, 0);           /* ACK of PSN 1: the fourth */
    assert_int_equal(r.facts.psn_rel, 3);
    feed(&r, 1, 2, 0x04, 0x22, 0xffffff, NULL, 0, 8);       /* a retransmission */
    assert_int_equal(r.facts.psn_rel, 1);
    feed(&r, 1, 3, 0x04, 0x22, 77, NULL, 0, 8);             /* another conversation */
    assert_int_equal(r.facts.psn_rel, 0);
    rs_analyzer_free(r.an);
}

/* Requests that restart far from a conversation's PSNs after 100 ms of quiet start a
 * new conversation, whose first packet notes the old one; nothing else does: a jump
 * within 32768 PSNs, or without the pause, or into the middle of a message. */
static void
test_lifetime_psn_restart(void **state)
{
    struct run r = {0};

    (void)state;
    start(&r, 0);
    for (uint32_t psn = 500000; psn < 500004; psn++)
        feed(&r, 1, 2, 0x04, 0x22, psn, NULL, 0, 8);        /* SEND Only, conv 1 */
    feed(&r, 2, 1, 0x11, 0x44, 500003, ack_ext, 4, 0);
    r.later_ns = 99000000;                                  /* 99 ms: not yet quiet */
    feed(&r, 1, 2, 0x04, 0x22, 100, NULL, 0, 8);
    assert_int_equal(r.facts.conv, 1);
    assert_true(r.facts.flags & RS_FACT_RETRANSMISSION);
    assert_false(r.facts.flags & RS_FACT_QP_REUSED);
    r.later_ns += 100000000;                                /* quiet, but within the window */
    feed(&r, 1, 2, 0x04, 0x22, 500004 + 32768, NULL, 0, 8);
    assert_int_equal(r.facts.conv, 1);
    assert_true(r.facts.flags & RS_FACT_PSN_GAP);
    r.later_ns += 100000000;                                /* quiet, far, but a MIDDLE */
    feed(&r, 1, 2, 0x01, 0x22, 300000, NULL, 0, 1024);
    assert_int_equal(r.facts.conv, 1);
    r.later_ns += 100000000;                                /* quiet, far, a FIRST */
    feed(&r, 1, 2, 0x00, 0x22, 200000, NULL, 0, 1024);
    assert_int_equal(r.facts.conv, 2);
    assert_true(r.facts.flags & RS_FACT_QP_REUSED);
    assert_int_equal(r.facts.qp_reused, 1);
    assert_int_equal(r.facts.psn_rel, 0);
    assert_false(r.facts.flags & (RS_FACT_PSN_GAP | RS_FACT_RETRANSMISSION));
    feed(&r, 1, 2, 0x02, 0x22, 200001, NULL, 0, 8);
    feed(&r, 2, 1, 0x11, 0x44, 200001, ack_ext, 4, 0);      /* behind conv 1's ACK */
    assert_int_equal(r.facts.conv, 2);
    assert_int_equal(r.facts.psn_rel, 1);
    assert_false(r.facts.flags & (RS_FACT_VIOLATION | RS_FACT_QP_REUSED));
    struct rs_conv_stats st;
    assert_true(rs_analyzer_conv_stats(r.an, 1, &st));      /* archived, not evicted */
    assert_int_equal(st.req_packets, 7);
    assert_int_equal(rs_analyzer_evictions(r.an), 0);
    rs_analyzer_free(r.an);
}

/* An IB CM REQ and REP that name QPs with traffic behind them begin their new life
 * (paired by the CM, noted on its first packet); a REQ and REP for QPs that carried
 * nothing yet, or sent again before any traffic, change nothing. */
static void
test_lifetime_cm(void **state)
{
    struct run r = {0};

    (void)state;
    start(&r, 0);
    feed_cm(&r, 1, 2, RS_CM_REQ, 7, 0, 0x11);
    feed_cm(&r, 2, 1, RS_CM_REP, 8, 7, 0x11);
    feed(&r, 1, 2, 0x04, 0x11, 4000, NULL, 0, 8);
    assert_int_equal(r.facts.conv, 1);
    assert_false(r.facts.flags & RS_FACT_QP_REUSED);
    feed(&r, 2, 1, 0x11, 0x11, 4000, ack_ext, 4, 0);
    feed_cm(&r, 1, 2, RS_CM_REQ, 9, 0, 0x11);               /* a new life of both QPs */
    feed_cm(&r, 2, 1, RS_CM_REP, 10, 9, 0x11);
    feed_cm(&r, 1, 2, RS_CM_REQ, 9, 0, 0x11);               /* sent again: no traffic yet */
    feed_cm(&r, 2, 1, RS_CM_REP, 10, 9, 0x11);
    feed(&r, 1, 2, 0x04, 0x11, 3000, NULL, 0, 8);           /* PSNs close to the old ones */
    uint32_t conv = r.facts.conv;
    assert_int_not_equal(conv, 1);
    assert_true(r.facts.flags & RS_FACT_QP_REUSED);
    assert_int_equal(r.facts.qp_reused, 1);
    assert_false(r.facts.flags & RS_FACT_RETRANSMISSION);
    feed(&r, 2, 1, 0x11, 0x11, 3000, ack_ext, 4, 0);
    assert_int_equal(r.facts.conv, conv);
    assert_false(r.facts.flags & (RS_FACT_VIOLATION | RS_FACT_QP_REUSED));
    struct rs_conv_stats st;
    assert_true(rs_analyzer_conv_stats(r.an, conv, &st));
    assert_true(st.paired_by_cm);
    rs_analyzer_free(r.an);
}

/* A TCP segment from 10.0.0.src:sport to 10.0.0.dst:dport carrying len bytes. */
static void
feed_tcp(struct run *r, uint8_t src, uint8_t dst, uint16_t sport, uint16_t dport,
         const uint8_t *data, uint32_t len)
{
    uint8_t *p = r->tf.bytes;

    memset(p, 0, 14 + 20 + 20 + len);
    p[12] = 0x08;
    p[14] = 0x45;
    rs_store_be16(p + 16, (uint16_t)(20 + 20 + len));
    p[22] = 64;
    p[23] = 6;
    p[26] = 10, p[29] = src;
    p[30] = 10, p[33] = dst;
    rs_store_be16(p + 34, sport);
    rs_store_be16(p + 36, dport);
    rs_store_be32(p + 38, 1000 + (uint32_t)r->number);
    p[46] = 0x50;
    p[47] = 0x18;                                   /* PSH, ACK */
    rs_store_be16(p + 48, 65535);
    memcpy(p + 54, data, len);
    memset(&r->tf.frame, 0, sizeof(r->tf.frame));
    r->tf.frame.data = p;
    r->tf.frame.caplen = r->tf.frame.len = 54 + len;
    r->tf.frame.linktype = RS_DLT_EN10MB;
    stamp_and_run(r);
}

/* ibv_rc_pingpong's address messages: host's QP, its GID 10.0.0.host. */
static void
feed_pingpong(struct run *r, uint8_t src, uint8_t dst, uint16_t sport, uint16_t dport,
              uint32_t qpn, uint32_t psn)
{
    struct rs_oob_pingpong_dest d = {0, qpn, psn, {0}};
    uint8_t m[RS_OOB_PINGPONG_SIZE];

    d.gid[10] = d.gid[11] = 0xff;
    d.gid[12] = 10, d.gid[15] = src;
    rs_oob_pingpong_format(&d, m);
    feed_tcp(r, src, dst, sport, dport, m, sizeof(m));
}

/* ibv_rc_pingpong's and perftest's setup messages over TCP name the QPs of a new life;
 * perftest's barriers, the same key message again on the same connection, do not. */
static void
test_lifetime_tcp_setup(void **state)
{
    struct run r = {0};
    struct rs_oob_dest d;
    uint8_t key[RS_OOB_PERFTEST_KEY_GID_SIZE];

    (void)state;
    start(&r, 0);
    feed_pingpong(&r, 1, 2, 40000, 18515, 0x11, 4000);      /* the first run: nothing */
    feed_pingpong(&r, 2, 1, 18515, 40000, 0x11, 9000);
    feed(&r, 1, 2, 0x04, 0x11, 4000, NULL, 0, 8);
    assert_int_equal(r.facts.conv, 1);
    assert_false(r.facts.flags & RS_FACT_QP_REUSED);
    feed(&r, 2, 1, 0x11, 0x11, 4000, ack_ext, 4, 0);
    feed_pingpong(&r, 1, 2, 40000, 18515, 0x11, 4000);      /* repeated on its connection */
    feed(&r, 1, 2, 0x04, 0x11, 4001, NULL, 0, 8);
    assert_int_equal(r.facts.conv, 1);
    /* perftest's exchange (108-byte key messages) on a new connection */
    memset(&d, 0, sizeof(d));
    d.qpn = 0x11, d.psn = 4100, d.has_gid = true;
    d.gid[10] = d.gid[11] = 0xff, d.gid[12] = 10, d.gid[15] = 1;
    feed_tcp(&r, 1, 2, 40001, 18515, key, (uint32_t)rs_oob_perftest_key_format(&d, key));
    d.gid[15] = 2, d.psn = 9100;
    feed_tcp(&r, 2, 1, 18515, 40001, key, (uint32_t)rs_oob_perftest_key_format(&d, key));
    feed_tcp(&r, 2, 1, 18515, 40001, key, (uint32_t)rs_oob_perftest_key_format(&d, key));
    feed(&r, 1, 2, 0x04, 0x11, 4100, NULL, 0, 8);           /* within the old window */
    assert_int_equal(r.facts.conv, 2);
    assert_true(r.facts.flags & RS_FACT_QP_REUSED);
    assert_int_equal(r.facts.qp_reused, 1);
    assert_false(r.facts.flags & RS_FACT_PSN_GAP);
    feed(&r, 2, 1, 0x11, 0x11, 4100, ack_ext, 4, 0);
    assert_int_equal(r.facts.conv, 2);
    assert_false(r.facts.flags & (RS_FACT_VIOLATION | RS_FACT_RETRANSMISSION));
    /* a barrier after the traffic: the same messages on the same connection */
    d.gid[15] = 1, d.psn = 4100;
    feed_tcp(&r, 1, 2, 40001, 18515, key, (uint32_t)rs_oob_perftest_key_format(&d, key));
    feed(&r, 1, 2, 0x04, 0x11, 4101, NULL, 0, 8);
    assert_int_equal(r.facts.conv, 2);
    assert_false(r.facts.flags & RS_FACT_QP_REUSED);
    /* a TCP segment of that size that is no setup message changes nothing */
    memset(key, 'x', sizeof(key));
    feed_tcp(&r, 1, 2, 40002, 18515, key, RS_OOB_PINGPONG_SIZE);
    feed(&r, 1, 2, 0x04, 0x11, 4102, NULL, 0, 8);
    assert_int_equal(r.facts.conv, 2);
    rs_analyzer_free(r.an);
}

/* A conversation remembers its last 1024 requests (REQ_RING_MAX): a READ
 * response finds the 1024th newest READ, not the one before it, and the 76
 * dropped are counted. */
static void
test_request_ring_bound(void **state)
{
    struct run r = {0};
    uint8_t ext[16];

    (void)state;
    start(&r, 0);
    for (uint32_t i = 0; i < 1100; i++)                         /* frames 1..1100 */
        feed(&r, 1, 2, 0x0c, 0x22, 5000 + i, reth(ext, 8), 16, 0);
    uint32_t oldest_kept = 1100 - REQ_RING_MAX;                 /* READ number 76, from 0 */
    feed(&r, 2, 1, 0x10, 0x44, 5000 + oldest_kept - 1, ack_ext, 4, 8);
    assert_int_equal(r.facts.conv, 1);
    assert_false(r.facts.flags & RS_FACT_REQUEST_FRAME);        /* forgotten */
    feed(&r, 2, 1, 0x10, 0x44, 5000 + oldest_kept, ack_ext, 4, 8);
    assert_true(r.facts.flags & RS_FACT_REQUEST_FRAME);
    assert_int_equal(r.facts.request_frame, oldest_kept + 1);
    assert_int_equal(rs_analyzer_losses(r.an).requests_forgotten, 1100 - REQ_RING_MAX);
    rs_analyzer_free(r.an);
}

/* Past LATENCY_RESERVOIR READs, min, average and max still cover every READ
 * and the p99 comes from the sample. Each READ waits 1 to 5 frames (1 us
 * each) for its response. */
static void
test_latency_reservoir_bound(void **state)
{
    struct run r = {0};
    struct rs_conv_stats st;
    uint8_t ext[16];
    int64_t sum = 0;

    (void)state;
    start(&r, 0);
    for (uint32_t i = 0; i < 600; i++) {
        feed(&r, 1, 2, 0x0c, 0x22, 5000 + i, reth(ext, 8), 16, 0);
        for (uint32_t k = 0; k < i % 5; k++)
            feed(&r, 3, 4, 0x04, 0x77, 100 + r.number, NULL, 0, 8);    /* elsewhere */
        feed(&r, 2, 1, 0x10, 0x44, 5000 + i, ack_ext, 4, 8);
        sum += (int64_t)(1 + i % 5) * 1000;
    }
    assert_true(rs_analyzer_conv_stats(r.an, 1, &st));
    assert_int_equal(st.read_count, 600);
    assert_true(600 > LATENCY_RESERVOIR);
    assert_int_equal(st.read_min_ns, 1000);
    assert_int_equal(st.read_max_ns, 5000);
    assert_int_equal(st.read_sum_ns, sum);
    assert_int_equal(st.read_p99_ns, 5000);         /* a fifth of them took 5 us */
    rs_analyzer_free(r.an);
}

/* At most 4096 CM REQs wait for their REP: the 4097th drops every one
 * waiting (counted), so a REP to the first pairs nothing and a REP to the
 * last pairs its QPs. */
static void
test_cm_pending_bound(void **state)
{
    struct run r = {0};
    struct rs_conv_stats st;

    (void)state;
    start(&r, 0);
    feed_cm(&r, 1, 2, RS_CM_REQ, 1, 0, 0x1001);     /* sent again below: one slot for both */
    for (uint32_t id = 1; id <= 4096; id++)
        feed_cm(&r, 1, 2, RS_CM_REQ, id, 0, 0x1000 + id);
    assert_int_equal(rs_analyzer_losses(r.an).cm_reqs_dropped, 0);
    feed_cm(&r, 1, 2, RS_CM_REQ, 4097, 0, 0x1000 + 4097);     /* drops the 4096 waiting */
    assert_int_equal(rs_analyzer_losses(r.an).cm_reqs_dropped, RS_ANALYSIS_CM_REQS_KEPT);
    feed_cm(&r, 2, 1, RS_CM_REP, 9001, 1, 0x2001);          /* the first REQ's: dropped */
    feed(&r, 1, 2, 0x04, 0x2001, 100, NULL, 0, 8);
    assert_true(rs_analyzer_conv_stats(r.an, r.facts.conv, &st));
    assert_false(st.paired_by_cm);
    assert_int_equal(st.requester_qp, 0xffffffffu);
    feed_cm(&r, 2, 1, RS_CM_REP, 9002, 4097, 0x3001);       /* the last REQ's */
    feed(&r, 1, 2, 0x04, 0x3001, 100, NULL, 0, 8);
    assert_true(rs_analyzer_conv_stats(r.an, r.facts.conv, &st));
    assert_true(st.paired_by_cm);
    assert_int_equal(st.requester_qp, 0x1000 + 4097);
    rs_analyzer_free(r.an);
}

/* A conversation that lives on while a thousand newer ones come and go
 * holds its id's slot when a newer id comes round to it: the newer one is
 * found through the overflow, and leaves it when evicted. */
static void
test_live_ids_overflow(void **state)
{
    struct run r = {0};
    struct rs_conv_state cs;

    (void)state;
    start(&r, 4);
    feed(&r, 1, 2, 0x04, 0x22, 0, NULL, 0, 8);                  /* conv 1, kept alive */
    uint32_t cap = r.an->live_by_id.cap, wrapped = 0;
    for (uint32_t i = 0; i < cap + 50; i++) {
        feed(&r, 3, 4, 0x04, 0x100 + i, 7, NULL, 0, 8);          /* conv i + 2 */
        uint32_t id = r.facts.conv;
        assert_int_equal(id, i + 2);
        assert_true(rs_analyzer_conv_state(r.an, id, &cs));
        assert_int_equal(cs.responder_qp, 0x100 + i);
        if (id % cap == 1) {                                    /* conv 1's slot */
            assert_int_equal(r.an->live_by_id.overflow.n, 1);
            wrapped = id;
        }
        feed(&r, 1, 2, 0x04, 0x22, i + 1, NULL, 0, 8);
        assert_int_equal(r.facts.conv, 1);
        assert_true(rs_analyzer_conv_state(r.an, 1, &cs));
        assert_int_equal(cs.responder_qp, 0x22);
    }
    assert_int_equal(wrapped, cap + 1);
    assert_false(rs_analyzer_conv_state(r.an, wrapped, &cs));   /* evicted since */
    assert_int_equal(r.an->live_by_id.overflow.n, 0);
    rs_analyzer_free(r.an);
}

/* The index against a plain array, with hashes that share their low bits so
 * that runs form, wrap around the end and are cut by removals. */
struct index_item {
    uint32_t key;
    bool in;
};

static bool
item_match(const void *ptr, const void *key)
{
    return ((const struct index_item *)ptr)->key == *(const uint32_t *)key;
}

static uint32_t
item_hash(uint32_t key)
{
    /* Eight keys a home slot, homes near the top of a 64-slot table. */
    return ((key / 8) * 0x10001u + 60) | 0x80000000u;
}

/* Endpoint i of the peer table test: one of 7 hosts, QP 0x100 + i. */
static void
test_endpoint(struct endpoint *ep, uint32_t i)
{
    struct rs_addr a = {.family = 4, .bytes = {10, 0, 0, (uint8_t)(i % 7)}};

    endpoint_make(ep, &a, 0x100 + i);
}

/* The peer table against a plain array: the last peer paired with an
 * endpoint is what it finds, through growth and after being emptied, with
 * a record for each pair learnt anew and none for a pair it knows. */
static void
test_peer_table(void **state)
{
    enum { N = 500 };
    int32_t ref[N];
    struct peer_table t = {0};
    struct endpoint ep, peer;
    uint64_t x = 99;
    uint32_t records = 0;

    (void)state;
    for (uint32_t i = 0; i < N; i++)
        ref[i] = -1;
    for (int step = 0; step < 30000; step++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t a = (uint32_t)(x >> 33) % N, b = (uint32_t)(x >> 13) % N;
        if (step == 15000) {
            peer_table_clear(&t);
            for (uint32_t i = 0; i < N; i++)
                ref[i] = -1;
            records = 0;
        }
        /* Pairs seen again, as most are: a pair repeated a few steps on. */
        if (step % 3 == 2)
            b = ref[a] >= 0 ? (uint32_t)ref[a] : b;
        test_endpoint(&ep, a);
        test_endpoint(&peer, b);
        peer_table_pair(&t, &ep, &peer);
        if (ref[a] != (int32_t)b || ref[b] != (int32_t)a)
            records++;
        ref[a] = (int32_t)b;
        ref[b] = (int32_t)a;
        uint32_t probe[3] = {a, b, (uint32_t)(x >> 40) % N};
        for (int k = 0; k < 3; k++) {
            test_endpoint(&ep, probe[k]);
            const struct endpoint *got = peer_table_find(&t, &ep);
            if (ref[probe[k]] < 0) {
                assert_null(got);
            } else {
                test_endpoint(&peer, (uint32_t)ref[probe[k]]);
                assert_non_null(got);
                assert_memory_equal(got, &peer, sizeof(peer));
            }
        }
    }
    uint32_t known = 0;
    for (uint32_t i = 0; i < N; i++)
        known += ref[i] >= 0;
    assert_int_equal(t.n, known);       /* an entry per endpoint */
    assert_int_equal(t.n_records, records);
    assert_true(records < 15000);
    peer_table_free(&t);
}

/* The analyzer's table of QP pairs holds at most two pairs per conversation
 * of its bound: past that it is emptied, and pairs are learnt again. */
static void
test_peer_table_bounded(void **state)
{
    struct run r = {0};
    uint32_t most = 0;

    (void)state;
    start(&r, 4);
    for (uint32_t i = 0; i < 50; i++) {
        feed(&r, 1, 2, 0x04, 0x100 + i, 10, NULL, 0, 8);          /* SEND to QP 0x100 + i */
        feed(&r, 2, 1, 0x11, 0x900 + i, 10, ack_ext, 4, 0);       /* its ACK to 0x900 + i */
        assert_int_equal(r.facts.conv, i + 1);
        most = MAX(most, r.an->peers.n_records);
        assert_true(r.an->peers.n_records <= 8);
    }
    assert_int_equal(most, 8);
    /* The last pair learnt is known, both ways. */
    const struct rs_conv_stats *st = &conv_by_id(r.an, 50)->stats;
    struct rs_addr requester = {.family = st->addr_family}, responder = requester;
    struct endpoint ep, peer;
    memcpy(requester.bytes, st->requester, sizeof(requester.bytes));
    memcpy(responder.bytes, st->responder, sizeof(responder.bytes));
    endpoint_make(&ep, &responder, 0x100 + 49);
    endpoint_make(&peer, &requester, 0x900 + 49);
    assert_non_null(peer_table_find(&r.an->peers, &ep));
    assert_memory_equal(peer_table_find(&r.an->peers, &ep), &peer, sizeof(peer));
    assert_memory_equal(peer_table_find(&r.an->peers, &peer), &ep, sizeof(ep));
    rs_analyzer_free(r.an);
}

static void
test_ptr_index(void **state)
{
    enum { N = 200 };
    struct index_item items[N];
    struct rs_ptr_index t = {0};
    uint64_t x = 12345;

    (void)state;
    for (uint32_t i = 0; i < N; i++)
        items[i] = (struct index_item){i, false};
    for (int step = 0; step < 20000; step++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t k = (uint32_t)(x >> 33) % N;
        struct index_item *it = &items[k];
        if (!it->in) {
            assert_null(rs_ptr_index_put(&t, item_hash(k), it, item_match, &k));
            it->in = true;
        } else if ((x >> 20) & 1) {
            assert_true(rs_ptr_index_remove(&t, item_hash(k), it));
            it->in = false;
        } else {
            assert_ptr_equal(rs_ptr_index_put(&t, item_hash(k), it, item_match, &k), it);
        }
        /* Every key is found exactly when it is in. */
        uint32_t n = 0;
        for (uint32_t j = 0; j < N; j++) {
            void *found = rs_ptr_index_find(&t, item_hash(j), item_match, &j);
            assert_ptr_equal(found, items[j].in ? &items[j] : NULL);
            n += items[j].in;
        }
        assert_int_equal(t.n, n);
    }
    /* Repointing keeps the slot and changes what it holds. */
    uint32_t k = 7;
    if (!items[k].in)
        rs_ptr_index_insert(&t, item_hash(k), &items[k]);
    struct index_item twin = {7, true};
    assert_true(rs_ptr_index_repoint(&t, item_hash(k), &items[k], &twin));
    assert_ptr_equal(rs_ptr_index_find(&t, item_hash(k), item_match, &k), &twin);
    assert_false(rs_ptr_index_remove(&t, item_hash(k), &items[k]));
    assert_true(rs_ptr_index_remove(&t, item_hash(k), &twin));
    assert_null(rs_ptr_index_find(&t, item_hash(k), item_match, &k));
    rs_ptr_index_free(&t);
}

/* Once the table is at its bound and the archive full, a new conversation,
 * paired or not, with SENDs, WRITEs and READs, allocates nothing: it takes
 * the memory of the one it evicts, and the indexes have grown. */
static void
test_steady_state_allocates_nothing(void **state)
{
    struct run r = {0};
    uint8_t ext[16];

    (void)state;
    count_allocs_init();
    start(&r, 64);
    for (uint32_t i = 0; i < 6000; i++) {
        uint8_t a = (uint8_t)(1 + i % 200), b = (uint8_t)(1 + (i * 7) % 199);
        uint32_t q = 0x1000 + i, psn = i * 16;
        counting_allocs = i >= 3000;
        feed(&r, a, b, 0x04, q, psn, NULL, 0, 8);                          /* SEND */
        feed(&r, a, b, 0x0a, q, psn + 1, reth(ext, 8), 16, 8);             /* WRITE */
        feed(&r, a, b, 0x0c, q, psn + 2, reth(ext, 8), 16, 0);             /* READ */
        feed(&r, b, a, 0x10, 0x80000 + i, psn + 2, ack_ext, 4, 8);         /* its response */
        feed(&r, b, a, 0x11, 0x90000 + i, psn, ack_ext, 4, 0);             /* an ACK alone */
    }
    counting_allocs = false;
    assert_int_equal(allocs, 0);
    assert_int_equal(rs_analyzer_evictions(r.an), 2 * 6000 - 64);
    rs_analyzer_free(r.an);
}

/* The VmFlags line of the mapping that holds p, from /proc/self/smaps. */
static bool
mapping_flags(const void *p, char *flags, size_t size)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    bool inside = false, found = false;

    assert_non_null(f);
    while (!found && fgets(line, sizeof(line), f) != NULL) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
            inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        } else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(flags, size, "%s", line + 8);
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* The indexes' and slabs' memory: from RS_HUGE_PAGE on zeroed, aligned to a huge
 * page and advised to take them ("hg"), its last byte ours; below, zeroed from the
 * heap. Both free. */
static void
test_zalloc_populated(void **state)
{
    size_t big = RS_HUGE_PAGE + 12345, small = 3000;
    char flags[512];

    (void)state;
    uint8_t *b = rs_zalloc_populated(big);
    assert_int_equal((uintptr_t)b % RS_HUGE_PAGE, 0);
    for (size_t i = 0; i < big; i += 997)
        assert_int_equal(b[i], 0);
    assert_int_equal(b[big - 1], 0);
    b[big - 1] = 1;
    assert_true(mapping_flags(b, flags, sizeof(flags)));
    assert_non_null(strstr(flags, " hg"));
    rs_zalloc_free(b, big);
    uint8_t *s = rs_zalloc_populated(small);
    for (size_t i = 0; i < small; i++)
        assert_int_equal(s[i], 0);
    rs_zalloc_free(s, small);
}

/* Memory made ready ahead: taken at the size made ready, it is that mapping (zeroed, on
 * huge pages); taken at another size, a mapping of that size; below RS_HUGE_PAGE nothing
 * is made ready; what is not taken is freed. */
static void
test_zalloc_ahead(void **state)
{
    struct rs_zalloc_ahead a = {0};
    size_t n = 2 * RS_HUGE_PAGE;
    char flags[512];

    (void)state;
    rs_zalloc_ahead_start(&a, n);
    assert_int_equal(a.n, n);
    rs_zalloc_ahead_start(&a, 3 * n);          /* one at a time: the first stays */
    assert_int_equal(a.n, n);
    uint8_t *p = rs_zalloc_ahead_take(&a, n);
    assert_int_equal(a.n, 0);
    assert_int_equal((uintptr_t)p % RS_HUGE_PAGE, 0);
    assert_int_equal(p[0], 0);
    assert_int_equal(p[n - 1], 0);
    assert_true(mapping_flags(p, flags, sizeof(flags)));
    assert_non_null(strstr(flags, " hg"));
    /* Made ready at n, wanted at 2n: a mapping of 2n, every byte of it ours. */
    rs_zalloc_ahead_start(&a, n);
    uint8_t *q = rs_zalloc_ahead_take(&a, 2 * n);
    assert_ptr_not_equal(q, p);
    q[2 * n - 1] = 1;
    rs_zalloc_free(q, 2 * n);
    rs_zalloc_free(p, n);
    rs_zalloc_ahead_start(&a, 100);
    assert_int_equal(a.n, 0);
    rs_zalloc_ahead_start(&a, n);
    rs_zalloc_ahead_free(&a);
    assert_int_equal(a.n, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_psn_arithmetic),
        cmocka_unit_test(test_wrap_without_false_alarms),
        cmocka_unit_test(test_read_span_with_unknown_pmtu),
        cmocka_unit_test(test_bounded_table),
        cmocka_unit_test(test_evicted_not_kept),
        cmocka_unit_test(test_foreach_in_id_order),
        cmocka_unit_test(test_evicted_memory_reused),
        cmocka_unit_test(test_side_taken_on_use),
        cmocka_unit_test(test_zalloc_ahead),
        cmocka_unit_test(test_request_ring_recycled),
        cmocka_unit_test(test_pairing_by_psn),
        cmocka_unit_test(test_repaired_by_cm),
        cmocka_unit_test(test_psn_rel),
        cmocka_unit_test(test_lifetime_psn_restart),
        cmocka_unit_test(test_lifetime_cm),
        cmocka_unit_test(test_lifetime_tcp_setup),
        cmocka_unit_test(test_request_ring_bound),
        cmocka_unit_test(test_latency_reservoir_bound),
        cmocka_unit_test(test_cm_pending_bound),
        cmocka_unit_test(test_live_ids_overflow),
        cmocka_unit_test(test_ptr_index),
        cmocka_unit_test(test_peer_table),
        cmocka_unit_test(test_peer_table_bounded),
        cmocka_unit_test(test_steady_state_allocates_nothing),
        cmocka_unit_test(test_zalloc_populated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
