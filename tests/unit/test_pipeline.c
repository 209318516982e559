/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_pipeline.c - the one chain of stages: what a frame gives back, the
 * filter, the analysis switch, counts, and a reader on another thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <glib.h>

#include <roceshark/common.h>
#include <roceshark/pipeline.h>

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

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stages_and_facts),
        cmocka_unit_test(test_analysis_off),
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_filter_turns_crc_on),
        cmocka_unit_test(test_shared_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
