/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_pipeline.c - the one chain of stages: what a frame gives back, the
 * filter, the analysis switch, counts, a reader on another thread, a sink, and the
 * pipeline on N threads over batches against one.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <glib.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/pipeline_threads.h>

#include "testutil.h"

/* The Write Only, its ACK and a READ request, numbered 1..3 in order. */
static void
frames(struct test_frame tf[3])
{
    test_frame_from_hex(&tf[0], HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    test_frame_from_hex(&tf[1], HEX_ROCEV2_ACK, RS_DLT_EN10MB);
    test_frame_from_hex(&tf[2], HEX_ROCEV2_READ_REQ, RS_DLT_EN10MB);
    for (int i = 0; i < 3; i++)
        tf[i].frame.number = (uint64_t)i + 1;
}

static void
test_stages_and_facts(void **state)
{
    struct rs_pipeline_opts opts;
    struct rs_pipeline *p;
    struct test_frame tf[3];

    (void)state;
    frames(tf);
    rs_pipeline_opts_init(&opts);
    assert_int_equal(rs_pipeline_new(&opts, &p, NULL), 0);
    const struct rs_pipeline_result *r = rs_pipeline_process(p, &tf[0].frame);
    assert_true(r->match);
    assert_int_equal(r->pkt.encap, RS_ENCAP_ROCEV2);
    assert_int_equal(r->pkt.icrc_status, RS_CKSUM_GOOD);
    assert_ptr_equal(r->pkt.facts, &r->facts);
    assert_true(r->facts.flags & RS_FACT_CONV);
    uint32_t conv = r->facts.conv;
    /* The ACK is paired with the Write: same conversation, and it names the Write. */
    r = rs_pipeline_process(p, &tf[1].frame);
    assert_true(r->facts.flags & RS_FACT_RESPONSE);
    assert_int_equal(r->facts.conv, conv);
    assert_true(r->facts.flags & RS_FACT_ACKED_FRAME);
    assert_int_equal(r->facts.acked_frame, 1);
    assert_non_null(rs_pipeline_analyzer(p));
    assert_non_null(rs_pipeline_iwarp(p));
    assert_null(rs_pipeline_filter(p));
    assert_int_equal(rs_pipeline_counts(p).frames, 2);
    assert_int_equal(rs_pipeline_counts(p).matched, 2);
    rs_pipeline_free(p);
}

/* A reset (read -M) forgets the conversations (the ACK after it names no frame) but keeps
 * the counts, and a frame shown after a frame numbered 1 is timed from the first of all,
 * as tshark finds the frame shown before by its number. */
static void
test_reset(void **state)
{
    struct rs_pipeline_opts opts;
    struct rs_pipeline *p;
    struct test_frame tf[3], again[2];
    char err[RS_ERRBUF_SIZE];

    (void)state;
    frames(tf);
    test_frame_from_hex(&again[0], HEX_ROCEV2_ACK, RS_DLT_EN10MB);
    test_frame_from_hex(&again[1], HEX_ROCEV2_READ_REQ, RS_DLT_EN10MB);
    for (int i = 0; i < 3; i++)
        tf[i].frame.ts_sec = 10 + i;
    again[0].frame.number = 1;
    again[0].frame.ts_sec = 20;
    again[1].frame.number = 2;
    again[1].frame.ts_sec = 25;
    rs_pipeline_opts_init(&opts);
    assert_int_equal(rs_pipeline_new(&opts, &p, err), 0);
    rs_pipeline_process(p, &tf[0].frame);
    const struct rs_pipeline_result *r = rs_pipeline_process(p, &tf[1].frame);
    assert_true(r->facts.flags & RS_FACT_ACKED_FRAME);
    assert_int_equal(r->pkt.delta_shown.sec, 1);
    assert_int_equal(rs_pipeline_reset(p, err), 0);
    r = rs_pipeline_process(p, &again[0].frame);
    assert_false(r->facts.flags & RS_FACT_ACKED_FRAME);
    assert_int_equal(r->pkt.delta_shown.sec, 9);       /* from frame 2, at 11 */
    r = rs_pipeline_process(p, &again[1].frame);
    assert_int_equal(r->pkt.delta_shown.sec, 15);      /* from the first frame, at 10 */
    assert_int_equal(rs_pipeline_counts(p).frames, 4);
    rs_pipeline_free(p);
}

static void
test_analysis_off(void **state)
{
    struct rs_pipeline_opts opts;
    struct rs_pipeline *p;
    struct test_frame tf[3];

    (void)state;
    frames(tf);
    rs_pipeline_opts_init(&opts);
    opts.analyze = false;
    opts.decode.verify_crc = false;
    assert_int_equal(rs_pipeline_new(&opts, &p, NULL), 0);
    const struct rs_pipeline_result *r = rs_pipeline_process(p, &tf[0].frame);
    assert_null(r->pkt.facts);
    assert_int_equal(r->pkt.icrc_status, RS_CKSUM_UNVERIFIED);
    assert_null(rs_pipeline_analyzer(p));
    rs_pipeline_free(p);
}

static void
test_filter(void **state)
{
    struct rs_pipeline_opts opts;
    struct rs_pipeline *p;
    struct test_frame tf[3];
    char err[RS_ERRBUF_SIZE];
    bool want[3] = {false, true, false};

    (void)state;
    frames(tf);
    rs_pipeline_opts_init(&opts);
    opts.filter = "infiniband.aeth && roceshark.analysis.acked_frame == 1";
    assert_int_equal(rs_pipeline_new(&opts, &p, err), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(rs_pipeline_process(p, &tf[i].frame)->match, want[i]);
    assert_int_equal(rs_pipeline_counts(p).matched, 1);
    /* A filter that does not compile leaves the old one. */
    assert_int_equal(rs_pipeline_set_filter(p, "infiniband.bth.psn ==", err), RS_EINVAL);
    assert_non_null(strstr(err, "position"));
    assert_non_null(rs_pipeline_filter(p));
    /* "" removes it. */
    assert_int_equal(rs_pipeline_set_filter(p, "", err), 0);
    assert_null(rs_pipeline_filter(p));
    assert_true(rs_pipeline_process(p, &tf[0].frame)->match);
    rs_pipeline_free(p);

    opts.filter = "((";
    assert_int_equal(rs_pipeline_new(&opts, &p, err), RS_EINVAL);
    assert_null(p);
}

/* A filter on the ICRC status sees it computed even when the caller chose
 * not to compute checksums. */
static void
test_filter_turns_crc_on(void **state)
{
    struct rs_pipeline_opts opts;
    struct rs_pipeline *p;
    struct test_frame tf[3];

    (void)state;
    frames(tf);
    rs_pipeline_opts_init(&opts);
    opts.decode.verify_crc = false;
    opts.filter = "roceshark.icrc.status == 1";
    assert_int_equal(rs_pipeline_new(&opts, &p, NULL), 0);
    const struct rs_pipeline_result *r = rs_pipeline_process(p, &tf[0].frame);
    assert_true(r->match);
    assert_int_equal(r->pkt.icrc_status, RS_CKSUM_GOOD);
    rs_pipeline_free(p);

    opts.filter = NULL;
    assert_int_equal(rs_pipeline_new(&opts, &p, NULL), 0);
    assert_int_equal(rs_pipeline_process(p, &tf[0].frame)->pkt.icrc_status,
                     RS_CKSUM_UNVERIFIED);
    assert_int_equal(rs_pipeline_set_filter(p, "roceshark.icrc.status == 1", NULL), 0);
    tf[1].frame.number = 2;
    assert_int_equal(rs_pipeline_process(p, &tf[1].frame)->pkt.icrc_status, RS_CKSUM_GOOD);
    rs_pipeline_free(p);
}

/* A shared pipeline fed on one thread while another reads its conversation
 * table and counts: every read sees a consistent table (ThreadSanitizer-free
 * by construction: the reader holds the lock). */
struct feeder {
    struct rs_pipeline *p;
    struct test_frame tf[3];
    int rounds;
};

static gpointer
feed(gpointer data)
{
    struct feeder *fd = data;
    uint64_t n = 0;

    for (int r = 0; r < fd->rounds; r++)
        for (int i = 0; i < 3; i++) {
            fd->tf[i].frame.number = ++n;
            rs_pipeline_process(fd->p, &fd->tf[i].frame);
        }
    return NULL;
}

static void
count_conv(void *ctx, const struct rs_conv_stats *st)
{
    uint64_t *packets = ctx;

    *packets += st->req_packets + st->resp_packets;
}

static void
test_shared_reader(void **state)
{
    struct rs_pipeline_opts opts;
    struct feeder fd;

    (void)state;
    frames(fd.tf);
    fd.rounds = 20000;
    rs_pipeline_opts_init(&opts);
    opts.shared = true;
    assert_int_equal(rs_pipeline_new(&opts, &fd.p, NULL), 0);
    GThread *t = g_thread_new("feeder", feed, &fd);
    uint64_t last = 0;
    for (int reads = 0; reads < 200; reads++) {
        uint64_t packets = 0;
        rs_pipeline_lock(fd.p);
        struct rs_pipeline_counts c = rs_pipeline_counts(fd.p);
        rs_analyzer_foreach_conv(rs_pipeline_analyzer(fd.p), count_conv, &packets);
        rs_pipeline_unlock(fd.p);
        /* Every frame fed belongs to the one conversation, counted whole. */
        assert_int_equal(packets, c.frames);
        assert_true(c.frames >= last);
        last = c.frames;
        g_usleep(100);
    }
    g_thread_join(t);
    assert_int_equal(rs_pipeline_counts(fd.p).frames, 3 * (uint64_t)fd.rounds);
    rs_pipeline_free(fd.p);
}

/* What a frame gave, to compare one way of feeding with another. */
struct seen {
    uint64_t number, cookie, bytes_hash;
    uint32_t flags, conv, psn_gap;
    int icrc;
    bool match;
};

static uint64_t
hash_bytes(const struct rs_frame *f)
{
    uint64_t h = 1469598103934665603ull;

    for (uint32_t i = 0; i < f->caplen; i++)
        h = (h ^ f->data[i]) * 1099511628211ull;
    return h;
}

/* A fact's value is meaningful only under its flag. */
static struct seen
seen_of(const struct rs_frame *f, const struct rs_pipeline_result *r, uint64_t cookie)
{
    uint32_t fl = r->facts.flags;

    return (struct seen){f->number, cookie, hash_bytes(f), fl,
                         (fl & RS_FACT_CONV) ? r->facts.conv : 0,
                         (fl & RS_FACT_PSN_GAP) ? r->facts.psn_gap : 0, r->pkt.icrc_status,
                         r->match};
}

static void
record(void *ctx, const struct rs_frame *frame, const struct rs_pipeline_result *r,
       uint64_t cookie)
{
    struct seen s = seen_of(frame, r, cookie);

    g_array_append_val((GArray *)ctx, s);
}

#define NCCL_CAPTURE RS_SOURCE_DIR "/tests/captures/real/" \
                     "linlinw5_rdma_ib_tutorial__pcap_nccl_nccl_node0.pcap"

/* Checks that got holds what want does, frame by frame. */
static void
same_seen(const GArray *want, const GArray *got)
{
    assert_int_equal(got->len, want->len);
    for (guint i = 0; i < want->len; i++) {
        const struct seen *a = &g_array_index(want, struct seen, i);
        const struct seen *b = &g_array_index(got, struct seen, i);
        assert_int_equal(b->number, a->number);
        assert_int_equal(b->cookie, a->cookie);
        assert_int_equal(b->bytes_hash, a->bytes_hash);
        assert_int_equal(b->flags, a->flags);
        assert_int_equal(b->conv, a->conv);
        assert_int_equal(b->psn_gap, a->psn_gap);
        assert_int_equal(b->icrc, a->icrc);
        assert_int_equal(b->match, a->match);
    }
}

/* A real capture (954 frames of NCCL over RoCEv2) fed with a sink gives what
 * rs_pipeline_process() gives, frame by frame and in order: the frame's bytes, its
 * packet, its facts, the filter's verdict, the cookie; also across a filter replaced
 * mid-way. */
static void
test_sink(void **state)
{
    struct rs_pipeline_opts opts;
    struct rs_pipeline *ref, *p;
    GArray *want = g_array_new(false, false, sizeof(struct seen));
    GArray *got = g_array_new(false, false, sizeof(struct seen));
    struct rs_source *src;
    struct rs_frame frame;
    char err[RS_ERRBUF_SIZE];
    int rc;

    (void)state;
    rs_pipeline_opts_init(&opts);
    opts.filter = "infiniband.aeth || roceshark.analysis.psn_gap";
    assert_int_equal(rs_pipeline_new(&opts, &ref, err), 0);
    opts.sink = record;
    opts.sink_ctx = got;
    assert_int_equal(rs_pipeline_new(&opts, &p, err), 0);
    assert_int_equal(rs_source_open_file(NCCL_CAPTURE, &src, err), 0);
    while ((rc = rs_source_next(src, &frame, err)) == 1) {
        struct seen s = seen_of(&frame, rs_pipeline_process(ref, &frame), frame.number * 7);
        g_array_append_val(want, s);
        rs_pipeline_feed(p, &frame, frame.number * 7);
        if (frame.number == 500) {
            assert_int_equal(rs_pipeline_set_filter(ref, "infiniband.reth", err), 0);
            assert_int_equal(rs_pipeline_set_filter(p, "infiniband.reth", err), 0);
        }
    }
    assert_int_equal(rc, 0);
    assert_int_equal(want->len, 954);
    same_seen(want, got);
    assert_int_equal(rs_pipeline_counts(p).matched, rs_pipeline_counts(ref).matched);
    rs_pipeline_free(p);
    rs_pipeline_free(ref);
    rs_source_close(src);
    g_array_free(want, true);
    g_array_free(got, true);
}

/* rs_pipeline_run_threads()'s source and tally: the capture's frames, each with a
 * cookie, and what each gave, in the order tallied. */
struct threads_run {
    struct rs_source *src;
    GArray *got;
    uint64_t idle_every;    /* answer idle after this many frames (0: never) */
    uint64_t since_idle;
    uint64_t idles;         /* idle answers given */
    uint64_t idle_calls;    /* calls of ops.idle, and the frames tallied at the last */
    uint64_t tallied_at_idle;
    pthread_t caller;       /* the thread that called rs_pipeline_run_threads() */
    uint64_t tallied_elsewhere;     /* frames tallied on another thread */
};

static int
threads_next(void *ctx, struct rs_frame *frame, uint64_t *cookie)
{
    struct threads_run *t = ctx;
    char err[RS_ERRBUF_SIZE];

    if (t->idle_every > 0 && ++t->since_idle > t->idle_every) {
        t->since_idle = 0;
        t->idles++;
        return RS_PIPELINE_THREADS_IDLE;
    }
    if (rs_source_next(t->src, frame, err) != 1)
        return 0;
    *cookie = frame->number * 7;
    return 1;
}

static int
threads_tally(void *ctx, const struct rs_frame *frame, const struct rs_pipeline_result *r,
              uint64_t cookie)
{
    struct threads_run *t = ctx;
    struct seen s = seen_of(frame, r, cookie);

    g_array_append_val(t->got, s);
    t->tallied_elsewhere += !pthread_equal(pthread_self(), t->caller);
    return 0;
}

static void
threads_idle(void *ctx)
{
    struct threads_run *t = ctx;

    t->idle_calls++;
    t->tallied_at_idle = t->got->len;
}

/* The same capture on 2 and 3 threads, over batches: every frame tallied once, in
 * capture order, with its cookie and what one thread gives it; a source that answers
 * idle now and then has each idle answer passed on after the frames before it. */
static void
test_threads(void **state)
{
    struct rs_pipeline_opts opts;
    struct rs_pipeline *ref, *p;
    GArray *want = g_array_new(false, false, sizeof(struct seen));
    struct rs_source *src;
    struct rs_frame frame;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    rs_pipeline_opts_init(&opts);
    opts.filter = "infiniband.aeth || roceshark.analysis.psn_gap";
    assert_int_equal(rs_pipeline_new(&opts, &ref, err), 0);
    assert_int_equal(rs_source_open_file(NCCL_CAPTURE, &src, err), 0);
    while (rs_source_next(src, &frame, err) == 1) {
        struct seen s = seen_of(&frame, rs_pipeline_process(ref, &frame), frame.number * 7);
        g_array_append_val(want, s);
    }
    rs_source_close(src);
    for (unsigned threads = 2; threads <= 3; threads++) {
        struct threads_run t = {.got = g_array_new(false, false, sizeof(struct seen)),
                                .idle_every = threads == 3 ? 300 : 0,
                                .caller = pthread_self()};
        struct rs_pipeline_threads_ops ops = {.ctx = &t, .next = threads_next,
                                              .tally = threads_tally, .idle = threads_idle};
        unsigned long long shown = 0;
        assert_int_equal(rs_pipeline_new(&opts, &p, err), 0);
        assert_int_equal(rs_source_open_file(NCCL_CAPTURE, &t.src, err), 0);
        assert_int_equal(rs_pipeline_run_threads(p, threads, &ops, NULL, &shown), 0);
        same_seen(want, t.got);
        /* The analyze step, and the tally with it, is the caller's thread's alone: the
         * stateful stages' tables stay in one core's caches. */
        assert_int_equal(t.tallied_elsewhere, 0);
        assert_int_equal(shown, rs_pipeline_counts(ref).matched);
        /* 954 frames, idle after each 300: three idle answers, each passed on. */
        assert_int_equal(t.idle_calls, t.idles);
        assert_int_equal(t.idles, threads == 3 ? 3 : 0);
        if (threads == 3)
            assert_int_equal(t.tallied_at_idle, 900);
        rs_source_close(t.src);
        rs_pipeline_free(p);
        g_array_free(t.got, true);
    }
    rs_pipeline_free(ref);
    g_array_free(want, true);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stages_and_facts),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_analysis_off),
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_filter_turns_crc_on),
        cmocka_unit_test(test_shared_reader),
        cmocka_unit_test(test_sink),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
