/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_tui_model.c - the model under the TUI, with no terminal: the frame
 * index, the rate windows, sorting the conversation rows, and the model
 * ingesting the bundled sample (samples/rdma_demo.pcap) on its thread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>

#include <roceshark/capture.h>
#include <roceshark/expert.h>
#include <roceshark/pcapio.h>
#include <roceshark/pipeline.h>
#include <roceshark/plot.h>
#include <roceshark/print.h>
#include <roceshark/tui.h>

#include "testutil.h"

#define SAMPLE RS_SOURCE_DIR "/samples/rdma_demo.pcap"
/* A real capture with 770 TCP frames in 16 streams (NCCL's bootstrap sockets). */
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

    for (int stages = 1; stages <= 2; stages++) {
        rs_tui_model_opts_init(&opts);
        opts.path = SAMPLE;
        opts.max_frames = 20;
        opts.stages = stages;
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

/* Rings for at most the bound: a new conversation past it takes the ring
 * updated longest ago, counted; the others keep theirs. */
static void
test_rates_bounded(void **state)
{
    struct rs_tui_rates *r;
    double rate[RS_TUI_RATE_WINDOWS];

    (void)state;
    assert_int_equal(rs_tui_rates_new(4, &r, NULL), 0);
    for (uint32_t conv = 1; conv <= 4; conv++)
        assert_int_equal(rs_tui_rates_add(r, conv, (struct rs_time){10, 0}, 100 * conv), 0);
    /* Conversation 1 again: now 2 is the one updated longest ago. */
    assert_int_equal(rs_tui_rates_add(r, 1, (struct rs_time){11, 0}, 100), 0);
    assert_int_equal(rs_tui_rates_add(r, 5, (struct rs_time){11, 0}, 500), 0);
    assert_int_equal(rs_tui_rates_dropped(r), 1);
    assert_false(rs_tui_rates_get(r, 2, (struct rs_time){11, 0}, rate));
    assert_true(rs_tui_rates_get(r, 1, (struct rs_time){11, 0}, rate));
    assert_true(rate[0] == 100.0);      /* (100 + 100) bytes over 2 s */
    assert_true(rs_tui_rates_get(r, 3, (struct rs_time){11, 0}, rate));
    assert_true(rate[0] == 150.0);
    assert_true(rs_tui_rates_get(r, 5, (struct rs_time){11, 0}, rate));
    assert_true(rate[0] == 250.0);
    /* A thousand more: the table never holds more than 4, the newest. */
    for (uint32_t conv = 6; conv < 1006; conv++)
        assert_int_equal(rs_tui_rates_add(r, conv, (struct rs_time){12, 0}, 2), 0);
    assert_int_equal(rs_tui_rates_dropped(r), 1001);
    for (uint32_t conv = 1; conv < 1002; conv++)
        assert_false(rs_tui_rates_get(r, conv, (struct rs_time){12, 0}, rate));
    for (uint32_t conv = 1002; conv < 1006; conv++) {
        assert_true(rs_tui_rates_get(r, conv, (struct rs_time){12, 0}, rate));
        assert_true(rate[0] == 1.0);
    }
    rs_tui_rates_free(r);
}

static void
test_rate_windows(void **state)
{
    struct rs_tui_rates *r;
    double rate[RS_TUI_RATE_WINDOWS];

    (void)state;
    assert_int_equal(rs_tui_rates_new(16, &r, NULL), 0);
    /* 1000 bytes a second for seconds 100 to 139 on conversation 3. */
    for (int64_t s = 100; s < 140; s++)
        assert_int_equal(rs_tui_rates_add(r, 3, (struct rs_time){s, 500}, 1000), 0);
    rs_tui_rates_get(r, 3, (struct rs_time){139, 0}, rate);
    assert_true(rate[0] == 1000.0 && rate[1] == 1000.0 && rate[2] == 1000.0);
    /* A burst in the newest second shows most in the shortest window. */
    assert_int_equal(rs_tui_rates_add(r, 3, (struct rs_time){139, 900}, 8000), 0);
    rs_tui_rates_get(r, 3, (struct rs_time){139, 0}, rate);
    assert_true(rate[0] == 5000.0);
    assert_true(rate[1] == 1800.0);
    assert_true(rate[2] == 1200.0);
    /* Five quiet seconds later: the 2 s window is empty, the others decay. */
    rs_tui_rates_get(r, 3, (struct rs_time){144, 0}, rate);
    assert_true(rate[0] == 0.0);
    assert_true(rate[1] == (5 * 1000.0 + 8000) / 10);
    /* A frame after a long silence clears the whole ring. */
    assert_int_equal(rs_tui_rates_add(r, 3, (struct rs_time){300, 0}, 400), 0);
    rs_tui_rates_get(r, 3, (struct rs_time){300, 0}, rate);
    assert_true(rate[0] == 200.0 && rate[1] == 40.0 && rate[2] == 10.0);
    /* Too old to count; and a conversation never seen has no rate. */
    assert_int_equal(rs_tui_rates_add(r, 3, (struct rs_time){100, 0}, 99999), 0);
    rs_tui_rates_get(r, 3, (struct rs_time){300, 0}, rate);
    assert_true(rate[2] == 10.0);
    assert_false(rs_tui_rates_get(r, 1000, (struct rs_time){300, 0}, rate));
    assert_true(rate[0] == -1.0 && rate[2] == -1.0);
    rs_tui_rates_clear(r);
    assert_false(rs_tui_rates_get(r, 3, (struct rs_time){300, 0}, rate));
    assert_true(rate[0] == -1.0);
    rs_tui_rates_free(r);
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

/* The sample, loaded through a pipeline of stages threads (0: the model's choice). */
static struct rs_tui_model *
open_sample_stages(const char *filter, int stages)
{
    struct rs_tui_model_opts opts;
    struct rs_tui_model *m = NULL;
    char err[RS_ERRBUF_SIZE];

    rs_tui_model_opts_init(&opts);
    opts.path = SAMPLE;
    opts.filter = filter;
    opts.stages = stages;
    assert_int_equal(rs_tui_model_open(&opts, &m, err), 0);
    rs_tui_model_wait(m);
    return m;
}

static struct rs_tui_model *
open_sample(const char *filter)
{
    return open_sample_stages(filter, 0);
}

/* The sample's numbers as `read -q -z conv,qp -z expert` prints them, with
 * the pipeline on one thread and on two. */
static void
ingests_sample(int stages)
{
    struct rs_tui_model *m = open_sample_stages(NULL, stages);
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

/* Opens the TUI's model on path (with its pipeline on `stages` threads) and checks that
 * every frame reads back with the Info `read` prints; returns how many show a TCP Seq,
 * and in *notes the TCP notes the model kept. */
static unsigned
tcp_infos_as_read(const char *path, int stages, size_t *notes)
{
    struct rs_tui_model_opts opts;
    struct rs_tui_model *m = NULL;
    struct rs_tui_decoded d = {0};
    struct rs_pipeline_opts po;
    struct rs_pipeline *pipe;
    struct rs_source *src;
    struct rs_frame frame;
    char err[RS_ERRBUF_SIZE], want[512], got[512];
    unsigned tcp = 0;

    rs_tui_model_opts_init(&opts);
    opts.path = path;
    opts.stages = stages;
    assert_int_equal(rs_tui_model_open(&opts, &m, err), 0);
    rs_tui_model_wait(m);
    *notes = rs_tui_model_tcp_notes(m);
    rs_pipeline_opts_init(&po);
    po.streams = true;      /* as `read` runs it for its summary lines */
    po.streams_opts.tcp_only = true;
    assert_int_equal(rs_pipeline_new(&po, &pipe, err), 0);
    assert_int_equal(rs_source_open_file(path, &src, err), 0);
    while (rs_source_next(src, &frame, err) == 1) {
        rs_print_info(&rs_pipeline_process(pipe, &frame)->pkt, want, sizeof(want));
        assert_int_equal(rs_tui_model_decode(m, frame.number, &d, err), 0);
        rs_print_info(&d.pkt, got, sizeof(got));
        tcp += strstr(want, " Seq=") != NULL;
        if (strcmp(want, got) != 0)
            fail_msg("frame %llu: read \"%s\", tui \"%s\"", (unsigned long long)frame.number,
                     want, got);
    }
    rs_source_close(src);
    rs_pipeline_free(pipe);
    rs_tui_decoded_free(&d);
    rs_tui_model_close(m);
    return tcp;
}

/* A TCP frame read back shows the Seq, Ack and Win that `read` prints, which
 * come from its stream's history: every frame of a real capture, with the
 * pipeline on one thread and on two. */
static void
test_model_tcp_numbers(void **state)
{
    size_t notes;

    (void)state;
    assert_int_equal(tcp_infos_as_read(TCP_CAPTURE, 1, &notes), 770);
    assert_int_equal(tcp_infos_as_read(TCP_CAPTURE, 2, &notes), 770);
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

/* A stream of one frame keeps no notes, and its frame reads back as `read` prints it:
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
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct rs_writer_opts wo = {.path = path, .linktype = RS_DLT_EN10MB, .snaplen = 9000};
    assert_int_equal(rs_writer_open(&wo, &w, err), 0);
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

    size_t notes;
    assert_int_equal(tcp_infos_as_read(path, 0, &notes), 308);
    /* Notes for the connection and the refused SYN alone (one each: nothing in them
     * starts over). */
    assert_int_equal(notes, 2);
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
    put_counter(root, "hw_counters/out_of_sequence", "1005");
    put_counter(root, "counters/port_rcv_packets", "40\n");
    put_counter(root, "hw_counters/np_cnp_sent", "7\n");
    rs_tui_nic_sample(nic, 3000000000ull);     /* two seconds later */
    assert_int_equal(rs_tui_nic_get(nic, 1)->value, 1005);
    assert_true(rs_tui_nic_get(nic, 1)->rate == 500.0);
    assert_int_equal(rs_tui_nic_get(nic, 2)->value, 40);
    assert_true(rs_tui_nic_get(nic, 2)->rate == 0);     /* went back: reset */
    assert_true(rs_tui_nic_get(nic, 0)->readable);
    assert_true(rs_tui_nic_get(nic, 0)->rate == 0);     /* first reading */
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

/* Find by text: the next shown packet whose line holds it, in any case, wrapping. */
static void
test_search(void **state)
{
    (void)state;
    struct rs_tui_model *m = open_sample(NULL);
    char err[RS_ERRBUF_SIZE];
    uint64_t found = 0, looked = 0;

    assert_int_equal(rs_tui_model_search(m, 0, "nak", 1000, &found, &looked, err), 0);
    assert_int_equal(rs_tui_model_shown_frame(m, found), 13);      /* the sequence NAK */
    assert_int_equal(looked, 12);
    assert_int_equal(rs_tui_model_search(m, found, "NAK", 1000, &found, &looked, err), 0);
    assert_int_equal(rs_tui_model_shown_frame(m, found), 18);      /* the RNR NAK */
    assert_int_equal(rs_tui_model_search(m, found, "nak", 1000, &found, &looked, err), 0);
    assert_int_equal(rs_tui_model_shown_frame(m, found), 13);      /* wrapped */
    assert_int_equal(rs_tui_model_search(m, 0, "no such text", 1000, &found, &looked, err),
                     RS_ENOENT);
    assert_int_equal(looked, 27);
    assert_int_equal(rs_tui_model_search(m, 0, "no such text", 5, &found, &looked, err),
                     RS_ENOENT);
    assert_int_equal(looked, 5);
    assert_non_null(strstr(err, "the next 5 packets"));
    rs_tui_model_close(m);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
