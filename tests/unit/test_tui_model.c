/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_tui_model.c - the model under the TUI, with no terminal: the frame
 * index, the rate windows, sorting the conversation rows, and the model
 * ingesting the bundled sample (samples/rdma_demo.pcap) on its thread.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/expert.h>
#include <roceshark/capture/pcapio.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/plot.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/tui/tui.h>

#include "testutil.h"

#define SAMPLE RS_SOURCE_DIR "/samples/rdma_demo.pcap"
/* A real capture with 770 TCP frames in 16 streams (NCCL's bootstrap sockets). */
/* A real capture of native InfiniBand in ERF records. */
#define ERF_CAPTURE \
    RS_SOURCE_DIR "/tests/captures/real/srinivaskoritala_rdma-softroce-demo__infiniband.pcap"
#define TCP_CAPTURE RS_SOURCE_DIR "/tests/captures/real/linlinw5_rdma_ib_tutorial__pcap_nccl_nccl_node0.pcap"

static void
test_index_blocks(void **state)
{
    struct rs_tui_index *ix;
    struct rs_tui_frame f = {0};
    const uint64_t n = 1100000;    /* crosses two blocks of 512 Ki entries */

    (void)state;
    assert_int_equal(rs_tui_index_new(&ix, 0, NULL), 0);
    assert_null(rs_tui_index_get(ix, 1));
    for (uint64_t i = 1; i <= n; i++) {
        f.offset = i * 100;
        f.caplen = (uint32_t)i;
        assert_int_equal(rs_tui_index_append(ix, &f), 0);
    }
    assert_int_equal(rs_tui_index_count(ix), n);
    const struct rs_tui_frame *first = rs_tui_index_get(ix, 1);
    assert_int_equal(first->offset, 100);
    assert_int_equal(rs_tui_index_get(ix, 524288)->caplen, 524288);
    assert_int_equal(rs_tui_index_get(ix, 524289)->caplen, 524289);
    assert_int_equal(rs_tui_index_get(ix, 1048577)->offset, 104857700);
    assert_int_equal(rs_tui_index_get(ix, n)->offset, n * 100);
    assert_null(rs_tui_index_get(ix, 0));
    assert_null(rs_tui_index_get(ix, n + 1));
    /* Entries never move while the index grows. */
    assert_ptr_equal(first, rs_tui_index_get(ix, 1));
    rs_tui_index_clear(ix);
    assert_int_equal(rs_tui_index_count(ix), 0);
    assert_null(rs_tui_index_get(ix, 1));
    f.offset = 7;
    assert_int_equal(rs_tui_index_append(ix, &f), 0);
    assert_int_equal(rs_tui_index_get(ix, 1)->offset, 7);
    rs_tui_index_free(ix);
}

/* The index at its bound: the next frame is refused as "full" (not out of
 * memory), and loading stops there with an error the status line shows,
 * the frames before it kept. A test cannot write 2^32 frames: it lowers the
 * bound, through the same check. */
static void
test_index_bound(void **state)
{
    struct rs_tui_index *ix;
    struct rs_tui_frame f = {0};
    struct rs_tui_model_opts opts;
    struct rs_tui_model *m;
    struct rs_tui_progress p;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_int_equal(rs_tui_index_new(&ix, 3, NULL), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(rs_tui_index_append(ix, &f), 0);
    assert_int_equal(rs_tui_index_append(ix, &f), RS_ENOSPC);
    assert_int_equal(rs_tui_index_count(ix), 3);
    rs_tui_index_free(ix);

    for (unsigned threads = 1; threads <= 2; threads++) {
        rs_tui_model_opts_init(&opts);
        opts.path = SAMPLE;
        opts.max_frames = 20;
        opts.threads = threads;
        assert_int_equal(rs_tui_model_open(&opts, &m, err), 0);
        rs_tui_model_wait(m);
        rs_tui_model_progress(m, &p);
        assert_true(p.done && p.failed);
        assert_non_null(strstr(p.error, "the frame index holds at most 20 frames"));
        assert_int_equal(rs_tui_model_frame_count(m), 20);
        assert_int_equal(rs_tui_model_shown_count(m), 20);
        rs_tui_model_close(m);
    }
}

/* Appends a frame of conversation conv, bytes on the wire, at time t to the index. */
static void
index_frame(struct rs_tui_index *ix, uint32_t conv, uint32_t bytes, struct rs_time t)
{
    struct rs_tui_frame f;

    memset(&f, 0, sizeof(f));
    f.ts_sec = t.sec;
    f.ts_nsec = (uint32_t)t.nsec;
    f.conv = conv;
    f.len = f.caplen = f.wire_len = bytes;
    assert_int_equal(rs_tui_index_append(ix, &f), 0);
}

static struct rs_time
at_ms(int64_t ms)
{
    return (struct rs_time){1700000000 + ms / 1000, (int32_t)(ms % 1000) * 1000000};
}

/* Sums for at most the bound: a new conversation past it takes those of the one seen
 * longest ago (counted), whose row then shows no rate; the others keep theirs. One that
 * comes back is counted from then on, and its sums never take out what was not added. */
static void
test_rates_bounded(void **state)
{
    struct rs_tui_rates *r;
    struct rs_tui_index *ix;
    double rate[RS_TUI_RATE_WINDOWS];

    (void)state;
    assert_int_equal(rs_tui_rates_new(4, &r, NULL), 0);
    assert_int_equal(rs_tui_index_new(&ix, 0, NULL), 0);
    for (uint32_t conv = 1; conv <= 4; conv++)
        index_frame(ix, conv, 100 * conv, at_ms(10000));
    index_frame(ix, 5, 500, at_ms(10500));
    rs_tui_rates_advance(r, ix, rs_tui_index_count(ix), at_ms(10500));
    assert_int_equal(rs_tui_rates_dropped(r), 1);
    assert_false(rs_tui_rates_get(r, 1, rate));
    assert_true(rate[0] == -1.0);
    assert_true(rs_tui_rates_get(r, 5, rate) && rate[0] == 250.0);
    assert_true(rs_tui_rates_get(r, 3, rate) && rate[0] == 150.0 && rate[2] == 300.0 / 40);
    /* Conversation 3 again: now 2 is the one seen longest ago, and 6 takes its sums. */
    index_frame(ix, 3, 300, at_ms(11000));
    index_frame(ix, 6, 600, at_ms(11000));
    rs_tui_rates_advance(r, ix, rs_tui_index_count(ix), at_ms(11000));
    assert_int_equal(rs_tui_rates_dropped(r), 2);
    assert_false(rs_tui_rates_get(r, 2, rate));
    assert_true(rs_tui_rates_get(r, 3, rate) && rate[0] == 300.0);
    /* Conversation 1 comes back: counted from its new frame alone. */
    index_frame(ix, 1, 100, at_ms(11500));
    rs_tui_rates_advance(r, ix, rs_tui_index_count(ix), at_ms(11500));
    assert_true(rs_tui_rates_get(r, 1, rate) && rate[2] == 100.0 / 40);
    /* A thousand more: never more than 4 kept, the newest. */
    for (uint32_t conv = 7; conv < 1007; conv++)
        index_frame(ix, conv, 2, at_ms(12000));
    rs_tui_rates_advance(r, ix, rs_tui_index_count(ix), at_ms(12000));
    assert_int_equal(rs_tui_rates_dropped(r), 1003);
    for (uint32_t conv = 1; conv < 1003; conv++)
        assert_false(rs_tui_rates_get(r, conv, rate));
    for (uint32_t conv = 1003; conv < 1007; conv++)
        assert_true(rs_tui_rates_get(r, conv, rate) && rate[0] == 1.0);
    /* A minute on, every window is empty: nothing taken out twice, nothing left. */
    rs_tui_rates_advance(r, ix, rs_tui_index_count(ix), at_ms(72000));
    for (uint32_t conv = 1003; conv < 1007; conv++)
        assert_true(rs_tui_rates_get(r, conv, rate) && rate[0] == 0.0 && rate[2] == 0.0);
    rs_tui_rates_free(r);
    rs_tui_index_free(ix);
}

/* Exact windows: one 90-byte frame every 10 ms is 9,000 B/s in all three columns once
 * they are full, wherever now falls between two frames (one-second buckets read 6.8K,
 * 4.5K or 6.6K); a burst, then quiet, as the windows see them. */
static void
test_rate_windows(void **state)
{
    struct rs_tui_rates *r;
    struct rs_tui_index *ix;
    double rate[RS_TUI_RATE_WINDOWS];

    (void)state;
    assert_int_equal(rs_tui_rates_new(16, &r, NULL), 0);
    assert_int_equal(rs_tui_index_new(&ix, 0, NULL), 0);
    int64_t t;
    for (t = 0; t < 20000; t += 10)
        index_frame(ix, 3, 90, at_ms(t));
    /* 20 s in: the 2 s and 10 s windows are full, the 40 s one half. */
    rs_tui_rates_advance(r, ix, rs_tui_index_count(ix), at_ms(t - 10));
    assert_true(rs_tui_rates_get(r, 3, rate));
    assert_true(rate[0] == 9000.0 && rate[1] == 9000.0 && rate[2] == 4500.0);
    for (; t < 60000; t += 10) {
        index_frame(ix, 3, 90, at_ms(t));
        /* Anywhere between two frames, and in a second's every part. */
        if (t % 1370 == 0) {
            rs_tui_rates_advance(r, ix, rs_tui_index_count(ix), at_ms(t + 7));
            rs_tui_rates_get(r, 3, rate);
            if (rate[0] != 9000.0 || rate[1] != 9000.0 || (t >= 40000 && rate[2] != 9000.0))
                fail_msg("at %lld ms: %.1f %.1f %.1f B/s", (long long)t, rate[0], rate[1],
                         rate[2]);
        }
    }
    /* A burst of 8000 bytes at 60.5 s: the 2 s window shows most of it. */
    index_frame(ix, 3, 8000, at_ms(60500));
    rs_tui_rates_advance(r, ix, rs_tui_index_count(ix), at_ms(60500));
    rs_tui_rates_get(r, 3, rate);
    /* (58.5, 60.5]: the frames of 58.51 s to 59.99 s and the burst. */
    assert_true(rate[0] == (149 * 90 + 8000) / 2.0);
    assert_true(rate[1] == (949 * 90 + 8000) / 10.0);
    assert_true(rate[2] == (3949 * 90 + 8000) / 40.0);
    /* Five quiet seconds later: the 2 s window is empty, the others hold what is left. */
    rs_tui_rates_advance(r, ix, rs_tui_index_count(ix), at_ms(65500));
    rs_tui_rates_get(r, 3, rate);
    assert_true(rate[0] == 0.0);
    assert_true(rate[1] == (449 * 90 + 8000) / 10.0);
    /* The clock never goes back; a conversation never seen has no rate. */
    rs_tui_rates_advance(r, ix, rs_tui_index_count(ix), at_ms(100));
    rs_tui_rates_get(r, 3, rate);
    assert_true(rate[0] == 0.0);
    assert_false(rs_tui_rates_get(r, 1000, rate));
    assert_true(rate[0] == -1.0 && rate[2] == -1.0);
    rs_tui_rates_clear(r);
    assert_false(rs_tui_rates_get(r, 3, rate));
    rs_tui_rates_free(r);
    rs_tui_index_free(ix);
}

/* An ERF capture (native InfiniBand): the rates count a frame's bytes on the wire, as -z
 * conv counts them, not the ERF record's own 16-byte header. Conversation 1's frames of
 * 9.18 s to 13.18 s: five of 114 bytes and four of 30, 690 bytes (834 with the headers). */
static void
test_model_rates_erf(void **state)
{
    struct rs_tui_model_opts opts;
    struct rs_tui_model *m;
    struct rs_tui_index *ix;
    struct rs_tui_rates *r;
    struct rs_tui_frame f;
    double rate[RS_TUI_RATE_WINDOWS];
    char err[RS_ERRBUF_SIZE];

    (void)state;
    rs_tui_model_opts_init(&opts);
    opts.path = ERF_CAPTURE;
    assert_int_equal(rs_tui_model_open(&opts, &m, err), 0);
    rs_tui_model_wait(m);
    assert_true(rs_tui_model_frame(m, 10, &f));
    assert_int_equal(f.conv, 1);
    assert_int_equal(f.wire_len, 114);
    assert_int_equal(f.len, 130);
    assert_int_equal(rs_tui_index_new(&ix, 0, NULL), 0);
    assert_int_equal(rs_tui_rates_new(16, &r, NULL), 0);
    for (uint64_t n = 1; n <= 20; n++) {
        assert_true(rs_tui_model_frame(m, n, &f));
        assert_int_equal(rs_tui_index_append(ix, &f), 0);
    }
    rs_tui_rates_advance(r, ix, 20, (struct rs_time){f.ts_sec, (int32_t)f.ts_nsec});
    assert_true(rs_tui_rates_get(r, 1, rate));
    assert_true(rate[2] * 40 == 690.0);
    rs_tui_rates_free(r);
    rs_tui_index_free(ix);
    rs_tui_model_close(m);
}

static struct rs_tui_conv_row
row(uint32_t id, uint8_t req_last_octet, uint64_t retx, double rate2)
{
    struct rs_tui_conv_row r;

    memset(&r, 0, sizeof(r));
    r.st.id = id;
    r.st.addr_family = 4;
    r.st.requester[0] = 10;
    r.st.requester[3] = req_last_octet;
    r.st.requester_qp = 0x11;
    r.st.responder_qp = 0x22;
    r.st.retransmissions = retx;
    r.rate[0] = rate2;
    return r;
}

static void
test_sort_rows(void **state)
{
    struct rs_tui_conv_row rows[4] = {row(1, 9, 5, 10), row(2, 3, 7, 30), row(3, 5, 5, 20),
                                      row(4, 1, 0, 40)};
    char cell[64];

    (void)state;
    rs_tui_rows_sort(rows, 4, RS_TUI_COL_RETX, true);
    /* Ties (1 and 3 both have 5) keep id order whichever the direction. */
    assert_int_equal(rows[0].st.id, 2);
    assert_int_equal(rows[1].st.id, 1);
    assert_int_equal(rows[2].st.id, 3);
    assert_int_equal(rows[3].st.id, 4);
    rs_tui_rows_sort(rows, 4, RS_TUI_COL_REQUESTER, false);
    assert_int_equal(rows[0].st.id, 4);
    assert_int_equal(rows[3].st.id, 1);
    rs_tui_rows_sort(rows, 4, RS_TUI_COL_RATE2, false);
    assert_int_equal(rows[0].st.id, 1);
    assert_int_equal(rows[3].st.id, 4);
    rs_tui_rows_sort(NULL, 0, RS_TUI_COL_RETX, true);     /* no rows yet */
    rs_tui_rows_sort(rows, 4, RS_TUI_COL_CONV, false);
    rs_tui_col_format(&rows[0], RS_TUI_COL_REQUESTER, cell, sizeof(cell));
    assert_string_equal(cell, "10.0.0.9:0x000011");
    rs_tui_col_format(&rows[1], RS_TUI_COL_RETX, cell, sizeof(cell));
    assert_string_equal(cell, "7");
    rs_tui_col_format(&rows[3], RS_TUI_COL_RATE2, cell, sizeof(cell));
    assert_string_equal(cell, "40");
    rows[3].rate[0] = 1234567;
    rs_tui_col_format(&rows[3], RS_TUI_COL_RATE2, cell, sizeof(cell));
    assert_string_equal(cell, "1.2M");
    rs_tui_col_format(&rows[3], RS_TUI_COL_READ_P99, cell, sizeof(cell));
    assert_string_equal(cell, "-");
    assert_string_equal(rs_tui_col_name(RS_TUI_COL_RETX), "Retx");
}

/* The sample, loaded by an ingest of `threads` threads (0: the model's choice). */
static struct rs_tui_model *
open_sample_threads(const char *filter, unsigned threads)
{
    struct rs_tui_model_opts opts;
    struct rs_tui_model *m = NULL;
    char err[RS_ERRBUF_SIZE];

    rs_tui_model_opts_init(&opts);
    opts.path = SAMPLE;
    opts.filter = filter;
    opts.threads = threads;
    assert_int_equal(rs_tui_model_open(&opts, &m, err), 0);
    rs_tui_model_wait(m);
    return m;
}

static struct rs_tui_model *
open_sample(const char *filter)
{
    return open_sample_threads(filter, 0);
}

/* The sample's numbers as `read -q -z conv,qp -z expert` prints them, with
 * the ingest on one thread and on read's stages on two. */
static void
ingests_sample(unsigned threads)
{
    struct rs_tui_model *m = open_sample_threads(NULL, threads);
    struct rs_tui_progress p;
    struct rs_tui_conv_row *rows;
    size_t n;
    char err[RS_ERRBUF_SIZE];

    rs_tui_model_progress(m, &p);
    assert_true(p.done && !p.failed);
    assert_int_equal(p.frames, 27);
    assert_int_equal(p.shown, 27);
    /* Without a filter the list of frames shown is every frame, kept implicit. */
    assert_int_equal(rs_tui_model_shown_count(m), 27);
    assert_int_equal(rs_tui_model_shown_frame(m, 0), 1);
    assert_int_equal(rs_tui_model_shown_frame(m, 26), 27);
    assert_int_equal(rs_tui_model_shown_frame(m, 27), 0);
    assert_int_equal(rs_tui_model_shown_find(m, 5), 4);
    assert_int_equal(rs_tui_model_shown_find(m, 99), 27);
    assert_int_equal(p.file_done, p.file_size);
    assert_int_equal(rs_tui_model_conv_rows(m, RS_TUI_COL_REQ_PKTS, true, &rows, &n, err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(rows[0].st.id, 1);
    assert_int_equal(rows[0].st.req_packets, 12);
    assert_int_equal(rows[0].st.req_bytes, 4404);
    assert_int_equal(rows[0].st.resp_packets, 10);
    assert_int_equal(rows[0].st.retransmissions, 3);
    assert_int_equal(rows[1].st.req_packets, 3);
    assert_true(rows[0].rate[2] > 0);
    free(rows);
    /* 5 warnings and 3 notes; the NAK is frame 13. */
    assert_int_equal(rs_tui_model_anomaly_count(m), 8);
    bool nak_at_13 = false;
    struct rs_tui_anomaly a;
    for (uint64_t i = 0; rs_tui_model_anomaly(m, i, &a); i++)
        nak_at_13 |= a.frame == 13 && strcmp(rs_experts[a.expert].summary, "NAK") == 0;
    assert_true(nak_at_13);
    struct rs_tui_frame f;
    assert_true(rs_tui_model_frame(m, 13, &f));
    assert_true(f.kind & RS_TUI_KIND_NAK);
    assert_true(rs_tui_model_frame(m, 14, &f));
    assert_true(f.kind & RS_TUI_KIND_RETX);
    assert_false(rs_tui_model_frame(m, 28, &f));
    rs_tui_model_close(m);
}

static void
test_model_ingests_sample(void **state)
{
    (void)state;
    ingests_sample(1);
    ingests_sample(2);
}

/* A frame read back at its offset decodes as `read` prints it. */
static void
test_model_decodes_again(void **state)
{
    struct rs_tui_model *m = open_sample(NULL);
    struct rs_tui_decoded d = {0};
    char err[RS_ERRBUF_SIZE], info[256];

    (void)state;
    assert_int_equal(rs_tui_model_decode(m, 1, &d, err), 0);
    rs_print_info(&d.pkt, info, sizeof(info));
    assert_string_equal(info, "RC Send Only QP=0x000022 PSN=100 AckReq Payload=56");
    assert_int_equal(d.frame.caplen, 114);
    assert_int_equal(rs_tui_model_decode(m, 14, &d, err), 0);
    rs_print_info(&d.pkt, info, sizeof(info));
    assert_non_null(strstr(info, "[Retransmission]"));
    assert_int_equal(d.frame.number, 14);
    assert_int_not_equal(rs_tui_model_decode(m, 99, &d, err), 0);
    rs_tui_decoded_free(&d);
    rs_tui_model_close(m);
}

/* pkt printed by printer into a string (the caller frees it). */
static char *
printed(void (*printer)(struct rs_out *, const struct rs_packet *), const struct rs_packet *pkt)
{
    char *text = test_printed(printer, pkt);

    assert_non_null(text);
    return text;
}

/* Opens the TUI's model on path (with its ingest on `threads` threads) and checks that
 * every frame reads back with the summary line and the -V tree that `read -V` prints
 * (the pipeline as it runs it: every stream followed); returns how many show a TCP Seq. */
static unsigned
prints_as_read(const char *path, unsigned threads)
{
    struct rs_tui_model_opts opts;
    struct rs_tui_model *m = NULL;
    struct rs_tui_decoded d = {0};
    struct rs_pipeline_opts po;
    struct rs_pipeline *pipe;
    struct rs_source *src;
    struct rs_frame frame;
    char err[RS_ERRBUF_SIZE];
    unsigned tcp = 0;

    rs_tui_model_opts_init(&opts);
    opts.path = path;
    opts.threads = threads;
    assert_int_equal(rs_tui_model_open(&opts, &m, err), 0);
    rs_tui_model_wait(m);
    rs_pipeline_opts_init(&po);
    po.streams = true;
    assert_int_equal(rs_pipeline_new(&po, &pipe, err), 0);
    assert_int_equal(rs_source_open_file(path, &src, err), 0);
    while (rs_source_next(src, &frame, err) == 1) {
        const struct rs_packet *want = &rs_pipeline_process(pipe, &frame)->pkt;
        char *want_line = printed(rs_print_summary, want), *want_tree = printed(rs_print_tree, want);
        if (rs_tui_model_decode(m, frame.number, &d, err) != 0)
            fail_msg("frame %llu: %s", (unsigned long long)frame.number, err);
        char *line = printed(rs_print_summary, &d.pkt), *tree = printed(rs_print_tree, &d.pkt);
        tcp += strstr(want_line, " Seq=") != NULL;
        if (strcmp(want_line, line) != 0)
            fail_msg("frame %llu: read \"%s\", tui \"%s\"", (unsigned long long)frame.number,
                     want_line, line);
        if (strcmp(want_tree, tree) != 0)
            fail_msg("frame %llu: the trees differ: read\n%s\ntui\n%s",
                     (unsigned long long)frame.number, want_tree, tree);
        free(want_line);
        free(want_tree);
        free(line);
        free(tree);
    }
    rs_source_close(src);
    rs_pipeline_free(pipe);
    rs_tui_decoded_free(&d);
    rs_tui_model_close(m);
    return tcp;
}

/* A TCP frame read back shows the Seq, Ack and Win that `read` prints, which
 * come from its stream's history, and its tcp.stream: every frame of a real
 * capture, line and tree, with the ingest on one thread, and on read's stages on three
 * (770 frames: batches in flight on every thread; the model's own choice, two on two
 * processors, loads the other captures here). 758 of them show Seq=: the 12 first
 * segments of HTTP messages over several have the request line for Info. */
static void
test_model_tcp_numbers(void **state)
{
    (void)state;
    assert_int_equal(prints_as_read(TCP_CAPTURE, 1), 758);
    assert_int_equal(prints_as_read(TCP_CAPTURE, 3), 758);
}

/* An Ethernet/IPv4/TCP frame of no payload from 10.0.0.1:sport to 10.0.0.2:dport. */
static struct rs_frame
tcp_frame(uint8_t *b, uint64_t number, uint16_t sport, uint16_t dport, uint32_t seq,
          uint32_t ack, uint8_t flags)
{
    static const uint8_t head[] = {
        2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00,            /* Ethernet */
        0x45, 0, 0, 40, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,   /* IPv4 */
    };
    struct rs_frame f = {0};

    memcpy(b, head, sizeof(head));
    uint8_t *t = b + sizeof(head);
    memset(t, 0, 20);
    t[0] = (uint8_t)(sport >> 8);
    t[1] = (uint8_t)sport;
    t[2] = (uint8_t)(dport >> 8);
    t[3] = (uint8_t)dport;
    for (int i = 0; i < 4; i++) {
        t[4 + i] = (uint8_t)(seq >> (24 - 8 * i));
        t[8 + i] = (uint8_t)(ack >> (24 - 8 * i));
    }
    t[12] = 5 << 4;
    t[13] = flags;
    t[14] = 0x10;       /* window 4096 */
    f.data = b;
    f.caplen = f.len = (uint32_t)sizeof(head) + 20;
    f.linktype = RS_DLT_EN10MB;
    f.number = number;
    f.ts_sec = 1700000000;
    f.ts_nsec = (uint32_t)number * 1000;
    return f;
}

/* A writer of an Ethernet capture at a new temporary file named from path's template
 * (XXXXXX), the caller's to unlink. */
static struct rs_writer *
temp_writer(char *path)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_writer *w = NULL;
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    close(fd);
    struct rs_writer_opts wo = {.path = path, .linktype = RS_DLT_EN10MB, .snaplen = 9000};
    assert_int_equal(rs_writer_open(&wo, &w, err), 0);
    return w;
}

/* Streams of one frame read back as `read` prints them:
 * 300 SYNs to as many ports (a scan), among them a connection of five frames, a SYN
 * refused with a RST, and a lone segment from the middle of a stream. */
static void
test_model_tcp_single_frame_streams(void **state)
{
    enum { SYN = 0x02, RST = 0x04, ACK = 0x10, PSH = 0x08 };
    static const struct {
        uint16_t sport, dport;
        uint32_t seq, ack;
        uint8_t flags;
    } conn[] = {
        {40000, 18515, 1000, 0, SYN}, {18515, 40000, 5000, 1001, SYN | ACK},
        {40000, 18515, 1001, 5001, ACK}, {40000, 18515, 1001, 5001, PSH | ACK},
        {18515, 40000, 5001, 1001, ACK}, {40001, 18516, 77, 0, SYN},
        {18516, 40001, 0, 78, RST | ACK}, {40002, 9999, 123456, 654321, PSH | ACK},
    };
    char path[] = "/tmp/rs_test_tcp_scan_XXXXXX", err[RS_ERRBUF_SIZE];
    struct rs_writer *w;
    uint8_t b[128];
    uint64_t number = 0, written;

    (void)state;
    w = temp_writer(path);
    for (uint16_t port = 1; port <= 300; port++) {
        struct rs_frame f = tcp_frame(b, ++number, 50000, port, port * 1000003u, 0, SYN);
        assert_int_equal(rs_writer_write(w, &f, err), 0);
        if (port % 35 == 0 && port / 35 <= RS_ARRAY_SIZE(conn)) {
            unsigned i = port / 35 - 1;
            f = tcp_frame(b, ++number, conn[i].sport, conn[i].dport, conn[i].seq, conn[i].ack,
                          conn[i].flags);
            assert_int_equal(rs_writer_write(w, &f, err), 0);
        }
    }
    assert_int_equal(rs_writer_close(w, &written, err), 0);
    assert_int_equal(written, 308);

    assert_int_equal(prints_as_read(path, 0), 308);
    unlink(path);
}

/* Writes the sample `rounds` times over, a second apart, to a temporary file; the path is
 * the caller's to unlink. */
/* The sample's frames, copied: read once, written as often as a test asks. Opening the
 * file once per round started its reader thread each time, 1,400 threads for one test,
 * which under the sanitizers was half of this program's time. */
#define SAMPLE_FRAMES 27

static void
sample_repeated(char *path, int rounds)
{
    struct rs_frame frames[SAMPLE_FRAMES];
    uint8_t *bytes[SAMPLE_FRAMES];
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;
    struct rs_writer *w;
    struct rs_frame f;
    uint64_t written;
    int n = 0;

    assert_int_equal(rs_source_open_file(SAMPLE, &src, err), 0);
    while (rs_source_next(src, &f, err) == 1) {
        assert_true(n < SAMPLE_FRAMES);
        bytes[n] = malloc(f.caplen);
        assert_non_null(bytes[n]);
        memcpy(bytes[n], f.data, f.caplen);
        frames[n] = f;
        frames[n].data = bytes[n];
        frames[n].iface_name = frames[n].iface_desc = NULL;    /* the source's, closed below */
        n++;
    }
    rs_source_close(src);
    assert_int_equal(n, SAMPLE_FRAMES);
    w = temp_writer(path);
    for (int round = 0; round < rounds; round++)
        for (int i = 0; i < n; i++) {
            f = frames[i];
            f.ts_sec += round;
            assert_int_equal(rs_writer_write(w, &f, err), 0);
        }
    for (int i = 0; i < n; i++)
        free(bytes[i]);
    assert_int_equal(rs_writer_close(w, &written, err), 0);
    assert_int_equal(written, (uint64_t)rounds * SAMPLE_FRAMES);
}

/* The state file cannot grow (a file size limit, as a full TMPDIR): loading stops with the
 * error, and the frames indexed before it still read back as `read` prints them. */
static void
test_state_file_full(void **state)
{
    char path[] = "/tmp/rs_test_state_full_XXXXXX", err[RS_ERRBUF_SIZE];

    (void)state;
    /* The sample 1400 times over, a second apart: 37,800 frames, about 1.3 MB of state (the
     * store writes 1 MiB at a time, and the first write that fails ends the load: more than
     * 1 MiB is needed, and each frame more is time under the sanitizers). */
    sample_repeated(path, 1400);

    struct rlimit old, lim = {.rlim_cur = 256 * 1024};
    signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &old);
    lim.rlim_max = old.rlim_max;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    struct rs_tui_model_opts opts;
    struct rs_tui_model *m;
    struct rs_tui_progress p;
    rs_tui_model_opts_init(&opts);
    opts.path = path;
    opts.threads = 1;
    assert_int_equal(rs_tui_model_open(&opts, &m, err), 0);
    rs_tui_model_wait(m);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
    rs_tui_model_progress(m, &p);
    assert_true(p.done && p.failed);
    assert_string_equal(p.error, "the TUI's file of decoding state (in TMPDIR): File too large");
    uint64_t n = rs_tui_model_frame_count(m);
    if (!(n > 1000 && n < 37800))
        fail_msg("%llu frames indexed", (unsigned long long)n);
    struct rs_tui_decoded d = {0};
    char *line;
    /* The last round's first frame indexed. */
    assert_int_equal(rs_tui_model_decode(m, (n - 1) / 27 * 27 + 1, &d, err), 0);
    assert_int_equal(rs_tui_row_text(&d, NULL, &line, err), 0);
    assert_non_null(strstr(line, " RRoCE 114 RC Send Only QP=0x000022 PSN=100 AckReq "
                                 "Payload=56"));
    free(line);
    rs_tui_decoded_free(&d);
    rs_tui_model_close(m);
    unlink(path);
}

/* The filter picks the frames `read -Y` does; a bad one changes nothing. */
static void
test_model_filter_and_write(void **state)
{
    struct rs_tui_model *m = open_sample("roceshark.analysis.retransmission");
    char err[RS_ERRBUF_SIZE], path[] = "/tmp/test_tui_model_XXXXXX";
    uint64_t written;

    (void)state;
    assert_int_equal(rs_tui_model_shown_count(m), 3);
    assert_int_equal(rs_tui_model_shown_frame(m, 0), 14);
    assert_int_equal(rs_tui_model_shown_frame(m, 2), 19);
    assert_int_equal(rs_tui_model_shown_find(m, 16), 2);
    assert_int_equal(rs_tui_model_shown_find(m, 20), 3);
    assert_int_not_equal(rs_tui_model_set_filter(m, "infiniband.bth.psn ==", err), 0);
    assert_string_equal(rs_tui_model_filter(m), "roceshark.analysis.retransmission");
    assert_int_equal(rs_tui_model_shown_count(m), 3);
    assert_int_equal(rs_tui_model_check_filter("ip.src == 10.0.0.3", err), 0);
    /* Under a filter the table lists the conversations with a frame shown: the
     * retransmissions are all conversation 1's, frames from 10.0.0.3 conversation 2's. */
    struct rs_tui_conv_row *rows;
    size_t n;
    assert_int_equal(rs_tui_model_conv_rows(m, RS_TUI_COL_CONV, false, &rows, &n, err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].st.id, 1);
    assert_int_equal(rows[0].st.req_packets, 12);     /* the row is whole */
    free(rows);
    assert_int_equal(rs_tui_model_set_filter(m, "ip.src == 10.0.0.3", err), 0);
    rs_tui_model_wait(m);
    assert_int_equal(rs_tui_model_shown_count(m), 3);
    assert_int_equal(rs_tui_model_conv_rows(m, RS_TUI_COL_CONV, false, &rows, &n, err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].st.id, 2);
    free(rows);
    assert_int_equal(rs_tui_model_set_filter(m, "ip.src == 10.9.9.9", err), 0);
    rs_tui_model_wait(m);
    assert_int_equal(rs_tui_model_conv_rows(m, RS_TUI_COL_CONV, false, &rows, &n, err), 0);
    assert_int_equal(n, 0);
    free(rows);
    assert_int_equal(rs_tui_model_set_filter(m, "ip.src == 10.0.0.3", err), 0);
    rs_tui_model_wait(m);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(rs_tui_model_write_shown(m, path, &written, err), 0);
    assert_int_equal(written, 3);
    struct rs_source *src;
    struct rs_frame frame;
    struct rs_tui_decoded d = {0};
    assert_int_equal(rs_source_open_file(path, &src, err), 0);
    for (uint64_t i = 0; i < 3; i++) {
        assert_int_equal(rs_source_next(src, &frame, err), 1);
        assert_int_equal(rs_tui_model_decode(m, rs_tui_model_shown_frame(m, i), &d, err), 0);
        assert_int_equal(frame.caplen, d.frame.caplen);
        assert_memory_equal(frame.data, d.data, frame.caplen);
        assert_int_equal(frame.ts_nsec, d.frame.ts_nsec);
    }
    assert_int_equal(rs_source_next(src, &frame, err), 0);
    rs_source_close(src);
    rs_tui_decoded_free(&d);
    unlink(path);
    assert_int_equal(rs_tui_model_set_filter(m, "", err), 0);
    rs_tui_model_wait(m);
    assert_int_equal(rs_tui_model_shown_count(m), 27);
    rs_tui_model_close(m);
}

static void
test_model_refuses_stdin_and_missing(void **state)
{
    struct rs_tui_model_opts opts;
    struct rs_tui_model *m = NULL;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    rs_tui_model_opts_init(&opts);
    opts.path = "-";
    assert_int_not_equal(rs_tui_model_open(&opts, &m, err), 0);
    opts.path = "/nonexistent/capture.pcap";
    assert_int_not_equal(rs_tui_model_open(&opts, &m, err), 0);
    assert_non_null(strstr(err, "No such file"));
    opts.path = SAMPLE;
    opts.filter = "ip.src ==";
    assert_int_equal(rs_tui_model_open(&opts, &m, err), RS_EINVAL);
}

/* Writes value into ROOT/class/infiniband/rs0/ports/1/path. */
static void
put_counter(const char *root, const char *path, const char *value)
{
    char *full = g_strdup_printf("%s/class/infiniband/rs0/ports/1/%s", root, path);
    char *dir = g_path_get_dirname(full);

    assert_int_equal(g_mkdir_with_parents(dir, 0755), 0);
    assert_true(g_file_set_contents(full, value, -1, NULL));
    g_free(dir);
    g_free(full);
}

/* The NIC counters: listed by name from both folders, rates over the time between
 * samples, a counter that goes back (reset) or cannot be read has no rate. */
static void
test_nic_counters(void **state)
{
    (void)state;
    char root[] = "/tmp/rs-nic-XXXXXX", err[RS_ERRBUF_SIZE];
    struct rs_tui_nic *nic = NULL;

    assert_non_null(g_mkdtemp(root));
    assert_int_equal(rs_tui_nic_open(root, "rs0", 1, &nic, err), RS_ENOENT);
    put_counter(root, "counters/port_rcv_packets", "100\n");
    put_counter(root, "hw_counters/out_of_sequence", "5\n");
    put_counter(root, "hw_counters/np_cnp_sent", "junk\n");
    assert_int_equal(rs_tui_nic_open(root, "rs0", 2, &nic, err), RS_ENOENT);
    assert_int_equal(rs_tui_nic_open(root, "../rs0", 1, &nic, err), RS_EINVAL);
    assert_int_equal(rs_tui_nic_open(root, "rs0", 1, &nic, err), 0);
    assert_int_equal(rs_tui_nic_count(nic), 3);
    assert_string_equal(rs_tui_nic_get(nic, 0)->name, "np_cnp_sent");
    assert_string_equal(rs_tui_nic_get(nic, 1)->name, "out_of_sequence");
    assert_string_equal(rs_tui_nic_get(nic, 2)->name, "port_rcv_packets");
    assert_false(rs_tui_nic_get(nic, 2)->hw);
    assert_null(rs_tui_nic_get(nic, 3));

    rs_tui_nic_sample(nic, 1000000000ull);
    assert_false(rs_tui_nic_get(nic, 0)->readable);
    assert_true(rs_tui_nic_get(nic, 1)->readable);
    assert_int_equal(rs_tui_nic_get(nic, 1)->value, 5);
    assert_true(rs_tui_nic_get(nic, 1)->rate == 0);
    assert_false(rs_tui_nic_get(nic, 1)->have_rate);   /* one sample: no rate yet */
    put_counter(root, "hw_counters/out_of_sequence", "1005");
    put_counter(root, "counters/port_rcv_packets", "40\n");
    put_counter(root, "hw_counters/np_cnp_sent", "7\n");
    rs_tui_nic_sample(nic, 3000000000ull);     /* two seconds later */
    assert_int_equal(rs_tui_nic_get(nic, 1)->value, 1005);
    assert_true(rs_tui_nic_get(nic, 1)->rate == 500.0);
    assert_true(rs_tui_nic_get(nic, 1)->have_rate);
    assert_int_equal(rs_tui_nic_get(nic, 2)->value, 40);
    assert_true(rs_tui_nic_get(nic, 2)->rate == 0);     /* went back: reset */
    assert_false(rs_tui_nic_get(nic, 2)->have_rate);    /* shown as no rate, not 0 */
    assert_true(rs_tui_nic_get(nic, 0)->readable);
    assert_true(rs_tui_nic_get(nic, 0)->rate == 0);     /* first reading */
    assert_false(rs_tui_nic_get(nic, 0)->have_rate);
    rs_tui_nic_close(nic);

    /* The capture's figures beside the NIC's, summed over the rows. */
    struct rs_tui_conv_row rows[2];
    memset(rows, 0, sizeof(rows));
    rows[0].st.psn_gaps = 2;
    rows[1].st.psn_gaps = 3;
    rows[0].st.naks[RS_NAK_PSN_SEQ_ERROR] = 4;
    rows[1].st.req_packets = 10;
    rows[1].st.resp_packets = 1;
    assert_int_equal(rs_tui_nic_capture_figure("out_of_sequence"), RS_TUI_FIG_PSN_GAPS);
    assert_int_equal(rs_tui_nic_capture_figure("vendor_thing"), RS_TUI_FIG_NONE);
    assert_int_equal(rs_tui_capture_figure_value(rows, 2, RS_TUI_FIG_PSN_GAPS), 5);
    assert_int_equal(rs_tui_capture_figure_value(rows, 2,
                     rs_tui_nic_capture_figure("packet_seq_err")), 4);
    assert_int_equal(rs_tui_capture_figure_value(rows, 2, RS_TUI_FIG_PACKETS), 11);
    assert_string_equal(rs_tui_capture_figure_name(RS_TUI_FIG_PSN_GAPS), "PSN gaps");
    char *cmd = g_strdup_printf("rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    g_free(cmd);
}

/* The points `plot psn` gets for conversation 1 from a whole pipeline pass over the file. */
static void
plot_conv1(struct rs_plot *pl)
{
    struct rs_source *src;
    struct rs_pipeline_opts opts;
    struct rs_pipeline *pipe;
    struct rs_frame frame;
    char err[RS_ERRBUF_SIZE];

    rs_plot_init(pl, 1, 0);
    assert_int_equal(rs_source_open_file(SAMPLE, &src, err), 0);
    rs_pipeline_opts_init(&opts);
    assert_int_equal(rs_pipeline_new(&opts, &pipe, err), 0);
    while (rs_source_next(src, &frame, err) == 1) {
        const struct rs_pipeline_result *r = rs_pipeline_process(pipe, &frame);
        if (r->pkt.facts != NULL && (r->facts.flags & RS_FACT_CONV) && r->facts.conv == 1 &&
            rs_packet_has(&r->pkt, RS_LAYER_BTH))
            rs_plot_add_packet(pl, &r->pkt);
    }
    rs_pipeline_free(pipe);
    rs_source_close(src);
}

/* The graph of conversation 1, built from the index and frames read back, against them. */
static void
test_graph_follows_conversation(void **state)
{
    (void)state;
    struct rs_tui_model *m = open_sample(NULL);
    struct rs_tui_graph *g;
    struct rs_plot want;
    char err[RS_ERRBUF_SIZE];

    plot_conv1(&want);
    assert_int_equal(rs_tui_graph_new(&g, err), 0);
    assert_int_equal(rs_tui_graph_update(g, m, 1, err), 0);
    assert_true(rs_tui_graph_caught_up(g, m));
    const struct rs_plot *got = rs_tui_graph_plot(g);
    assert_int_equal(got->n_pts, want.n_pts);
    assert_int_equal(got->n_acks, want.n_acks);
    size_t retx = 0, nak = 0, rnr = 0;
    for (size_t i = 0; i < want.n_pts; i++) {
        assert_int_equal(got->pts[i].kind, want.pts[i].kind);
        assert_int_equal(got->pts[i].psn, want.pts[i].psn);
        assert_true(got->pts[i].t == want.pts[i].t);
        retx += want.pts[i].kind == RS_PLOT_RETRANSMISSION;
        nak += want.pts[i].kind == RS_PLOT_NAK;
        rnr += want.pts[i].kind == RS_PLOT_RNR;
    }
    /* The sample's conversation 1: 3 retransmissions, a NAK and an RNR NAK. */
    assert_int_equal(retx, 3);
    assert_int_equal(nak, 1);
    assert_int_equal(rnr, 1);
    /* Throughput: every byte of the conversation lands in one of the slices. */
    double rate[4], span = got->pts[got->n_pts - 1].t, bytes = 0;
    rs_tui_graph_throughput(g, 0, span, rate, 4);
    for (int i = 0; i < 4; i++)
        bytes += rate[i] * span / 4;
    assert_true(bytes > 4404 && bytes < 4404 + 2676 + 300);
    /* Another conversation starts over. */
    assert_int_equal(rs_tui_graph_update(g, m, 2, err), 0);
    assert_int_equal(rs_tui_graph_plot(g)->n_pts, 3);
    rs_tui_graph_free(g);
    rs_plot_free(&want);
    rs_tui_model_close(m);
}

/* The graph keeps at most 200000 points a conversation (MAX_POINTS in
 * tui/graph.c), then drops the oldest half: a conversation of 200100 SENDs
 * ends with the newest of them, the last one included. */
static void
test_graph_points_bound(void **state)
{
    enum { SENDS = 200100, MAX_POINTS = RS_TUI_GRAPH_POINTS };
    char path[] = "/tmp/rs-graph-XXXXXX";
    int fd = g_mkstemp(path);
    FILE *f = fdopen(fd, "wb");
    uint8_t buf[256];
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_non_null(f);
    const uint32_t hdr[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, RS_DLT_IPV4};
    assert_int_equal(fwrite(hdr, sizeof(hdr), 1, f), 1);
    for (uint32_t i = 0; i < SENDS; i++) {
        uint32_t n = test_rc_send_only(i, buf, sizeof(buf));
        const uint32_t rec[4] = {1700000000 + i / 1000, (i % 1000) * 1000, n, n};
        assert_true(n > 0);
        assert_int_equal(fwrite(rec, sizeof(rec), 1, f), 1);
        assert_int_equal(fwrite(buf, n, 1, f), 1);
    }
    assert_int_equal(fclose(f), 0);

    struct rs_tui_model_opts opts;
    struct rs_tui_model *m = NULL;
    struct rs_tui_graph *g;
    rs_tui_model_opts_init(&opts);
    opts.path = path;
    assert_int_equal(rs_tui_model_open(&opts, &m, err), 0);
    rs_tui_model_wait(m);
    assert_int_equal(rs_tui_graph_new(&g, err), 0);
    while (!rs_tui_graph_caught_up(g, m))
        assert_int_equal(rs_tui_graph_update(g, m, 1, err), 0);
    const struct rs_plot *pl = rs_tui_graph_plot(g);
    assert_true(pl->n_pts > MAX_POINTS / 2 && pl->n_pts <= MAX_POINTS);
    assert_int_equal(pl->pts[pl->n_pts - 1].psn, SENDS - 1);
    assert_int_equal(pl->pts[0].psn, SENDS - pl->n_pts);
    /* Half of 200001 went at the 200001st: 100001 dropped, counted. */
    assert_int_equal(rs_tui_graph_dropped(g), SENDS - pl->n_pts);
    assert_int_equal(rs_tui_graph_dropped(g), 100001);
    rs_tui_graph_free(g);
    rs_tui_model_close(m);
    g_unlink(path);
}

/* Find by text: the next shown packet whose line holds it, in any case (a text beyond
 * ASCII too), wrapping. */
static void
test_search(void **state)
{
    (void)state;
    struct rs_tui_model *m = open_sample(NULL);
    char err[RS_ERRBUF_SIZE];
    uint64_t found = 0, looked = 0;

    assert_int_equal(rs_tui_model_search(m, 0, "nak", NULL, NULL, &found, &looked, err), 0);
    assert_int_equal(rs_tui_model_shown_frame(m, found), 13);      /* the sequence NAK */
    assert_int_equal(looked, 12);
    assert_int_equal(rs_tui_model_search(m, found, "NAK", NULL, NULL, &found, &looked, err), 0);
    assert_int_equal(rs_tui_model_shown_frame(m, found), 18);      /* the RNR NAK */
    assert_int_equal(rs_tui_model_search(m, found, "nak", NULL, NULL, &found, &looked, err), 0);
    assert_int_equal(rs_tui_model_shown_frame(m, found), 13);      /* wrapped */
    assert_int_equal(rs_tui_model_search(m, 0, "no such text", NULL, NULL, &found, &looked, err),
                     RS_ENOENT);
    assert_int_equal(looked, 27);
    assert_string_equal(err, "\"no such text\" is not in the 27 packets");
    /* Beyond ASCII: the arrow between the addresses, and a capital sigma in no line. */
    assert_int_equal(rs_tui_model_search(m, 4, "0.1 \u2192 10.0", NULL, NULL, &found, &looked,
                                         err), 0);
    assert_int_equal(rs_tui_model_shown_frame(m, found), 7);
    assert_int_equal(rs_tui_model_search(m, 0, "\u03a3", NULL, NULL, &found, &looked, err),
                     RS_ENOENT);
    /* The time column as the list shows it: absolute times hold a colon. */
    struct rs_tui_time_opts abs = {.col = RS_TIME_COL_UTC};
    assert_int_equal(rs_tui_model_search(m, 0, ":", NULL, NULL, &found, &looked, err), RS_ENOENT);
    assert_int_equal(rs_tui_model_search(m, 0, ":", &abs, NULL, &found, &looked, err), 0);
    rs_tui_model_close(m);
}

/* Pieces of every row, found in that row in any case: its whole (past the arrow, ASCII),
 * its last byte, its last nine, nine across the first word's end, and a text one byte
 * longer than the row's end, in no row. The matcher looks eight bytes at a time, and the
 * row's end is where a word is cut. */
static void
test_search_row_pieces(void **state)
{
    (void)state;
    struct rs_tui_model *m = open_sample(NULL);
    struct rs_tui_decoded d = {0};
    char err[RS_ERRBUF_SIZE], text[512];
    uint64_t n = rs_tui_model_shown_count(m), found, looked;

    assert_int_equal(n, 27);
    for (uint64_t i = 0; i < n; i++) {
        char *row;
        uint64_t after = i == 0 ? n - 1 : i - 1;    /* the search starts at i */
        assert_int_equal(rs_tui_model_decode(m, rs_tui_model_shown_frame(m, i), &d, err), 0);
        assert_int_equal(rs_tui_row_text(&d, NULL, &row, err), 0);
        const char *tail = strstr(row, "\u2192 ");
        assert_non_null(tail);
        tail += strlen("\u2192 ");
        size_t len = strlen(row), tail_len = strlen(tail);
        assert_true(tail_len >= 9 && len > 17);
        const char *pieces[][2] = {{tail, NULL}, {row + len - 1, NULL}, {row + len - 9, NULL},
                                   {row + 3, row + 12}};
        for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
            size_t plen = pieces[k][1] != NULL ? (size_t)(pieces[k][1] - pieces[k][0])
                                               : strlen(pieces[k][0]);
            snprintf(text, sizeof(text), "%.*s", (int)plen, pieces[k][0]);
            for (char *p = text; *p != '\0'; p++)     /* the other case */
                *p = (char)(g_ascii_isupper(*p) ? g_ascii_tolower(*p) : g_ascii_toupper(*p));
            assert_int_equal(rs_tui_model_search(m, after, text, NULL, NULL, &found, &looked,
                                                 err), 0);
            assert_int_equal(found, i);
            assert_int_equal(looked, 1);
        }
        snprintf(text, sizeof(text), "%sx", tail);
        assert_int_equal(rs_tui_model_search(m, after, text, NULL, NULL, &found, &looked, err),
                         RS_ENOENT);
        free(row);
    }
    rs_tui_decoded_free(&d);
    rs_tui_model_close(m);
}

/* A row read back for a search checks the CRCs again only where the ingest found one bad:
 * the frame whose ICRC is spoilt is marked, and found by its "[Bad ICRC]"; no other is. */
static void
test_search_bad_crc(void **state)
{
    char path[] = "/tmp/rs_test_bad_crc_XXXXXX", err[RS_ERRBUF_SIZE];
    struct rs_tui_model_opts opts;
    struct rs_tui_model *m;
    struct rs_source *src;
    struct rs_writer *w;
    struct rs_frame f;
    struct rs_tui_frame e;
    uint64_t written, found, looked;
    uint8_t buf[9000];

    (void)state;
    w = temp_writer(path);
    assert_int_equal(rs_source_open_file(SAMPLE, &src, err), 0);
    while (rs_source_next(src, &f, err) == 1) {
        assert_true(f.caplen <= sizeof(buf));
        memcpy(buf, f.data, f.caplen);
        if (f.number == 7)
            buf[f.caplen - 1] ^= 0x5a;          /* the ICRC's last byte */
        f.data = buf;
        assert_int_equal(rs_writer_write(w, &f, err), 0);
    }
    rs_source_close(src);
    assert_int_equal(rs_writer_close(w, &written, err), 0);
    rs_tui_model_opts_init(&opts);
    opts.path = path;
    assert_int_equal(rs_tui_model_open(&opts, &m, err), 0);
    rs_tui_model_wait(m);
    for (uint64_t number = 1; number <= 27; number++) {
        assert_true(rs_tui_model_frame(m, number, &e));
        assert_int_equal(!!(e.kind & RS_TUI_KIND_BAD_CRC), number == 7);
    }
    assert_int_equal(rs_tui_model_search(m, 0, "[bad icrc]", NULL, NULL, &found, &looked, err),
                     0);
    assert_int_equal(rs_tui_model_shown_frame(m, found), 7);
    assert_int_equal(rs_tui_model_search(m, found, "bad icrc", NULL, NULL, &found, &looked,
                                         err), 0);
    assert_int_equal(looked, 27);                /* round to itself: in no other row */
    rs_tui_model_close(m);
    unlink(path);
}

/* A search on four threads finds what it finds on one: the first line after the place
 * it starts from, wrapping, however the list's chunks fall to the threads, with the same
 * count of packets looked at (2,700 frames: three chunks of 1024). */
static void
test_search_threads(void **state)
{
    /* Matched in every chunk, in some, past a chunk's end, and nowhere (the whole list,
     * once: under ASan each pass over it takes a second). */
    static const struct { const char *text; uint64_t after; } cases[] = {
        {"rnr nak", 0}, {"rnr nak", 2699}, {"100", 1023}, {"100", 2000}, {"1025 ", 0},
        {"1025 ", 2000}, {"no such text", 1500},
    };
    char path[] = "/tmp/rs_test_search_XXXXXX", err[RS_ERRBUF_SIZE];
    struct rs_tui_model_opts opts;
    struct rs_tui_model *one, *four;

    (void)state;
    sample_repeated(path, 100);
    rs_tui_model_opts_init(&opts);
    opts.path = path;
    opts.search_threads = 1;
    assert_int_equal(rs_tui_model_open(&opts, &one, err), 0);
    opts.search_threads = 4;
    assert_int_equal(rs_tui_model_open(&opts, &four, err), 0);
    rs_tui_model_wait(one);
    rs_tui_model_wait(four);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t found1 = UINT64_MAX, looked1 = 0, found4 = UINT64_MAX, looked4 = 0;
        int rc1 = rs_tui_model_search(one, cases[i].after, cases[i].text, NULL, NULL, &found1,
                                      &looked1, err);
        int rc4 = rs_tui_model_search(four, cases[i].after, cases[i].text, NULL, NULL, &found4,
                                      &looked4, err);
        assert_int_equal(rc4, rc1);
        assert_int_equal(found4, found1);
        assert_int_equal(looked4, looked1);
    }
    /* The one number in the third chunk: found by a thread that did not start first. */
    uint64_t found = 0, looked = 0;
    assert_int_equal(rs_tui_model_search(four, 0, "2099", NULL, NULL, &found, &looked, err), 0);
    assert_int_equal(rs_tui_model_shown_frame(four, found), 2099);
    assert_int_equal(looked, 2098);
    rs_tui_model_close(one);
    rs_tui_model_close(four);
    unlink(path);
}

/* A search and a write on threads of their own: each reports its progress and its
 * outcome; cancelled, each stops before its end (the write removing its file), and a
 * search that finds nothing says how many packets it looked at. */
static void
test_tasks(void **state)
{
    char path[] = "/tmp/rs_test_tasks_XXXXXX", out[64], err[RS_ERRBUF_SIZE];
    struct rs_tui_model_opts opts;
    struct rs_tui_model *m;
    struct rs_tui_task *t;
    struct rs_tui_task_result r;
    uint64_t done, total, *numbers;
    size_t n;

    (void)state;
    sample_repeated(path, 300);         /* 8,100 frames */
    rs_tui_model_opts_init(&opts);
    opts.path = path;
    assert_int_equal(rs_tui_model_open(&opts, &m, err), 0);
    rs_tui_model_wait(m);
    assert_int_equal(rs_tui_task_search(m, 0, "no such text", NULL, &t, err), 0);
    rs_tui_task_finish(t, &r);
    assert_int_equal(r.rc, RS_ENOENT);
    assert_int_equal(r.looked, 8100);
    assert_int_equal(r.stop_ns, 0);
    /* Stopped: a search asked to stop looks at no more than a chunk (1,024 packets) per
     * thread. The flag is set before it starts, so that the outcome does not depend on
     * which thread runs first. */
    struct rs_tui_work stopped;
    uint64_t found, looked, written;
    atomic_init(&stopped.done, 0);
    atomic_init(&stopped.total, 0);
    atomic_init(&stopped.cancel, true);
    assert_int_equal(rs_tui_model_search(m, 0, "no such text", NULL, &stopped, &found, &looked,
                                         err), RS_ECANCELED);
    assert_true(looked > 0 && looked < 8100);
    /* A task cancelled at once: stopped, its stop timed; or, when its thread ran through
     * all 8,100 packets before the cancel could stop it (a loaded machine), not stopped
     * (the cancel may still have come before the search returned: stop_ns says when). */
    assert_int_equal(rs_tui_task_search(m, 0, "no such text", NULL, &t, err), 0);
    rs_tui_task_cancel(t);
    rs_tui_task_finish(t, &r);
    if (r.rc == RS_ECANCELED)
        assert_true(r.looked < 8100 && r.stop_ns > 0 && r.after_cancel <= r.looked);
    else
        assert_true(r.rc == RS_ENOENT && r.looked == 8100);
    assert_int_equal(rs_tui_task_search(m, 3000, "rnr nak", NULL, &t, err), 0);
    while (!rs_tui_task_done(t, &done, &total))
        usleep(1000);
    rs_tui_task_finish(t, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(rs_tui_model_shown_frame(m, r.found), 3000 / 27 * 27 + 18);
    /* A write of every frame, then one cancelled at once, which leaves no file. */
    snprintf(out, sizeof(out), "%s.out", path);
    assert_int_equal(rs_tui_model_shown_numbers(m, &numbers, &n, err), 0);
    assert_int_equal(rs_tui_task_write(m, out, numbers, n, &t, err), 0);
    rs_tui_task_finish(t, &r);
    assert_int_equal(r.rc, 0);
    assert_int_equal(r.written, 8100);
    unlink(out);
    assert_int_equal(rs_tui_model_shown_numbers(m, &numbers, &n, err), 0);
    assert_int_equal(rs_tui_model_write_frames(m, out, numbers, n, &stopped, &written, err),
                     RS_ECANCELED);
    free(numbers);
    assert_int_equal(access(out, F_OK), -1);
    /* The same through a task, cancelled at once: no file, or (its thread first) all. */
    assert_int_equal(rs_tui_model_shown_numbers(m, &numbers, &n, err), 0);
    assert_int_equal(rs_tui_task_write(m, out, numbers, n, &t, err), 0);
    rs_tui_task_cancel(t);
    rs_tui_task_finish(t, &r);
    if (r.rc == RS_ECANCELED)
        assert_int_equal(access(out, F_OK), -1);
    else
        assert_true(r.rc == 0 && r.written == 8100);
    unlink(out);
    /* The file being shown is refused. */
    assert_int_equal(rs_tui_model_shown_numbers(m, &numbers, &n, err), 0);
    assert_int_equal(rs_tui_task_write(m, path, numbers, n, &t, err), 0);
    rs_tui_task_finish(t, &r);
    assert_int_equal(r.rc, RS_EINVAL);
    assert_non_null(strstr(r.err, "is the capture being read"));
    rs_tui_model_close(m);
    unlink(path);
}

/* Braille cells: dots by position, the highest kind per cell, ASCII halves. */
static void
test_canvas(void **state)
{
    (void)state;
    struct rs_tui_canvas c;
    char ch[4];

    assert_int_equal(rs_tui_canvas_init(&c, 3, 2), 0);
    rs_tui_canvas_dot(&c, 0, 0, 1);         /* dot 1 */
    rs_tui_canvas_dot(&c, 1, 3, 5);         /* dot 8 */
    rs_tui_canvas_dot(&c, 1, 1, 2);         /* dot 5 */
    rs_tui_canvas_dot(&c, 6, 0, 9);         /* outside: ignored */
    rs_tui_canvas_dot(&c, 5, 7, 3);         /* last cell, dot 8 */
    assert_int_equal(rs_tui_canvas_cell(&c, 0, 0, true, ch), 3);
    assert_memory_equal(ch, "\xe2\xa2\x91", 3);     /* U+2891: dots 1, 5, 8 */
    assert_int_equal(rs_tui_canvas_kind(&c, 0, 0), 5);
    assert_int_equal(rs_tui_canvas_cell(&c, 0, 1, true, ch), 1);
    assert_int_equal(ch[0], ' ');
    assert_int_equal(rs_tui_canvas_kind(&c, 1, 2), 3);
    assert_int_equal(rs_tui_canvas_cell(&c, 1, 2, false, ch), 1);
    assert_int_equal(ch[0], '.');
    assert_int_equal(rs_tui_canvas_cell(&c, 0, 0, false, ch), 1);
    assert_int_equal(ch[0], ':');
    rs_tui_canvas_free(&c);
    assert_int_equal(rs_tui_canvas_init(&c, 0, 2), RS_EINVAL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_blocks),
        cmocka_unit_test(test_rate_windows),
        cmocka_unit_test(test_rates_bounded),
        cmocka_unit_test(test_model_rates_erf),
        cmocka_unit_test(test_sort_rows),
        cmocka_unit_test(test_model_ingests_sample),
        cmocka_unit_test(test_model_decodes_again),
        cmocka_unit_test(test_model_tcp_numbers),
        cmocka_unit_test(test_model_tcp_single_frame_streams),
        cmocka_unit_test(test_model_filter_and_write),
        cmocka_unit_test(test_model_refuses_stdin_and_missing),
        cmocka_unit_test(test_nic_counters),
        cmocka_unit_test(test_graph_follows_conversation),
        cmocka_unit_test(test_graph_points_bound),
        cmocka_unit_test(test_index_bound),
        cmocka_unit_test(test_canvas),
        cmocka_unit_test(test_search),
        cmocka_unit_test(test_search_row_pieces),
        cmocka_unit_test(test_search_bad_crc),
        cmocka_unit_test(test_search_threads),
        cmocka_unit_test(test_tasks),
        cmocka_unit_test(test_state_file_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
