/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_sniffer.c - the sniffer-QP source against the real libibverbs headers,
 * with every verb replaced at link time (-Wl,--wrap): the call sequence,
 * each errno and its message, the teardown order after a failure at every
 * step, ring reposting (failed completions included), batched event acks,
 * the ERF records of InfiniBand ports, and the timestamp clocks.
 *
 * Each wrapper appends its name to a call log and asks the failure plan
 * whether to fail; results are queued with will_return where a test needs
 * specific values, and checked with expect_value/check_expected where the
 * arguments matter.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <infiniband/verbs.h>

#include <roceshark/capture/capture.h>
#ifdef RS_TEST_TUI
#include <stdlib.h>
#include <roceshark/dissectors/expert.h>
#include <roceshark/tui/tui.h>
#endif
#include <roceshark/dissectors/wire.h>

#include "sniffer_mock.h"


/* --- Fixtures and helpers ----------------------------------------------------------- */

static int
setup(void **state)
{
    (void)state;
    call_log[0] = '\0';
    fail_call = NULL;
    fail_errno = 0;
    n_devices = 2;
    max_qp_wr = 16;
    link_layer = IBV_LINK_LAYER_ETHERNET;
    ts_mask = core_clock_khz = 0;
    check_args = false;
    n_cqe = cqe_pos = cqe_visible = 0;
    gate_on_events = holding = false;
    n_posted = n_post_calls = 0;
    memset(&cq, 0, sizeof(cq));
    if (pipe(event_pipe) != 0)
        return -1;
    return 0;
}

static int
teardown(void **state)
{
    (void)state;
    close(event_pipe[0]);
    close(event_pipe[1]);
    return 0;
}

static const struct rs_live_opts small_ring = {.buffer_mb = 1, .idle_ms = 1};

static int
open_sniffer(const char *dev, struct rs_source **src, char *err)
{
    int rc = rs_source_create_rdma(dev, src, err);

    assert_int_equal(rc, 0);
    rc = rs_source_activate(*src, &small_ring, err);
    if (rc != 0) {
        rs_source_close(*src);
        *src = NULL;
    }
    return rc;
}

static void
add_cqe(uint64_t wr_id, int status, uint32_t len, uint64_t ts)
{
    cqes[n_cqe++] = (struct fake_cqe){wr_id, status, len, ts};
}

/* The log from the first occurrence of `from` on. */
static const char *
log_from(const char *from)
{
    const char *p = strstr(call_log, from);
    return p != NULL ? p : "";
}

/* --- Tests ------------------------------------------------------------------------------ */

static void
test_call_sequence(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;

    (void)state;
    check_args = true;
    expect_value(__wrap_rs_vsys_create_cq_ex, wc_flags, IBV_WC_EX_WITH_BYTE_LEN);
    will_return(__wrap_rs_vsys_create_cq_ex, 0);
    expect_value(__wrap_ibv_create_qp, qp_type, IBV_QPT_RAW_PACKET);
    expect_value(__wrap_ibv_create_qp, max_recv_wr, 16);
    expect_value(__wrap_rs_vsys_create_flow, type, IBV_FLOW_ATTR_SNIFFER);
    expect_value(__wrap_rs_vsys_create_flow, port, 1);
    assert_int_equal(open_sniffer("mlx5_0", &src, err), 0);
    /* The device is opened before the list that owns it is freed; resources
     * come in one order, and every receive buffer is posted before the
     * sniffer flow starts steering frames to the QP. */
    assert_string_equal(call_log,
                        "get_device_list open_device free_device_list query_device_ex "
                        "query_port create_comp_channel alloc_pd reg_mr create_cq_ex create_qp "
                        "modify_qp_init modify_qp_rtr post_recv create_flow req_notify_cq ");
    assert_int_equal(n_posted, 16);
    for (int i = 0; i < 16; i++)
        assert_int_equal(posted[i], i);
    assert_int_equal(rs_source_linktype(src), RS_DLT_EN10MB);
    assert_false(rs_source_ts_hardware(src));
    call_log[0] = '\0';
    rs_source_close(src);
    assert_string_equal(call_log, "destroy_flow destroy_qp destroy_cq dereg_mr dealloc_pd "
                                  "destroy_comp_channel close_device ");
}

struct errno_case {
    const char *call;
    int err;
    int rc;
    const char *words[3];
};

static void
test_errno_messages(void **state)
{
    static const struct errno_case cases[] = {
        {"create_flow", EPERM, RS_EPERM, {"mlx5_0", "CAP_NET_RAW", NULL}},
        {"create_flow", ENXIO, RS_ENOTSUP, {"mlx5_0", "no sniffer support", "flow steering"}},
        {"create_flow", EOPNOTSUPP, RS_ENOTSUP, {"mlx5_0", "no sniffer support", "firmware"}},
        {"create_flow", EINVAL, RS_EIO, {"mlx5_0", "sniffer flow", "Invalid argument"}},
        {"create_qp", EPERM, RS_EPERM, {"mlx5_0", "CAP_NET_RAW", NULL}},
        {"create_qp", EOPNOTSUPP, RS_ENOTSUP, {"mlx5_0", "raw packet QP", NULL}},
        {"open_device", EACCES, RS_EPERM, {"mlx5_0", "CAP_NET_RAW", NULL}},
        {"get_device_list", ENOSYS, RS_ENOTSUP, {"mlx5_0", "no such RDMA device", "kernel"}},
        {"get_device_list", EPERM, RS_EPERM, {"CAP_NET_RAW", NULL, NULL}},
        {"get_device_list", ELIBACC, RS_ENOTSUP, {"mlx5_0", "needs libibverbs", NULL}},
    };
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;

    for (size_t i = 0; i < RS_ARRAY_SIZE(cases); i++) {
        setup(state);
        fail_call = cases[i].call;
        fail_errno = cases[i].err;
        err[0] = '\0';
        int rc = open_sniffer("mlx5_0", &src, err);
        if (rc != cases[i].rc)
            fail_msg("%s errno %d: rc %d, want %d (%s)", cases[i].call, cases[i].err, rc,
                     cases[i].rc, err);
        for (int w = 0; w < 3 && cases[i].words[w] != NULL; w++)
            if (strstr(err, cases[i].words[w]) == NULL)
                fail_msg("%s errno %d: '%s' lacks '%s'", cases[i].call, cases[i].err, err,
                         cases[i].words[w]);
        teardown(state);
    }
}

static void
test_no_such_device(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;

    (void)state;
    assert_int_equal(open_sniffer("mlx5_9", &src, err), RS_ENOENT);
    assert_string_equal(err, "mlx5_9: no such RDMA device (devices: mlx5_0, mlx5_1)");
    assert_string_equal(call_log, "get_device_list free_device_list ");
    call_log[0] = '\0';
    n_devices = 0;
    assert_int_equal(open_sniffer("mlx5_0", &src, err), RS_ENOENT);
    assert_string_equal(err, "mlx5_0: no such RDMA device (no RDMA devices on this machine)");
    /* A port the device does not have. */
    n_devices = 2;
    assert_int_equal(rs_source_create_rdma("mlx5_0:3", &src, err), 0);
    assert_int_equal(rs_source_activate(src, &small_ring, err), RS_ENOENT);
    assert_string_equal(err, "mlx5_0: no port 3 (the device has 2)");
    rs_source_close(src);
    assert_int_equal(rs_source_create_rdma("mlx5_0:x", &src, err), RS_EINVAL);
}

/* The device list without libibverbs (verbs_load.c: ELIBACC) is empty with a note,
 * as without kernel support, not an error. */
static void
test_list_without_libibverbs(void **state)
{
    struct rs_rdma_dev devs[4];
    char note[RS_ERRBUF_SIZE] = "", err[RS_ERRBUF_SIZE] = "";
    size_t n = 99;

    (void)state;
    fail_call = "get_device_list";
    fail_errno = ELIBACC;
    assert_int_equal(rs_capture_list_rdma(devs, 4, &n, note, err), 0);
    assert_int_equal(n, 0);
    assert_string_equal(note, "no RDMA devices listed: libibverbs cannot be loaded");
    assert_string_equal(err, "");
}

/* Fails each acquiring call in turn: what was acquired is released, in the
 * safe order, and nothing else. */
static void
test_teardown_after_each_failure(void **state)
{
    static const char *const steps[] = {
        "open_device", "query_device_ex", "query_port", "create_comp_channel", "alloc_pd",
        "reg_mr", "create_cq_ex", "create_qp", "modify_qp_init", "modify_qp_rtr", "post_recv",
        "create_flow", "req_notify_cq",
    };
    /* Acquiring call -> its release, in release order. */
    static const char *const pairs[][2] = {
        {"create_flow", "destroy_flow"}, {"create_qp", "destroy_qp"},
        {"create_cq_ex", "destroy_cq"}, {"reg_mr", "dereg_mr"}, {"alloc_pd", "dealloc_pd"},
        {"create_comp_channel", "destroy_comp_channel"}, {"open_device", "close_device"},
    };
    char err[RS_ERRBUF_SIZE], want[512], acquired_log[LOG_MAX];
    struct rs_source *src;

    for (size_t s = 0; s < RS_ARRAY_SIZE(steps); s++) {
        setup(state);
        fail_call = steps[s];
        fail_errno = ENOMEM;
        int rc = open_sniffer("mlx5_0", &src, err);
        if (rc == 0)
            fail_msg("failing %s did not fail activation", steps[s]);
        /* What succeeded before the failing call. */
        const char *at = strstr(call_log, steps[s]);
        assert_non_null(at);
        snprintf(acquired_log, sizeof(acquired_log), "%.*s", (int)(at - call_log), call_log);
        want[0] = '\0';
        for (size_t p = 0; p < RS_ARRAY_SIZE(pairs); p++) {
            char needle[48];
            snprintf(needle, sizeof(needle), "%s ", pairs[p][0]);
            if (strstr(acquired_log, needle) != NULL) {
                strcat(want, pairs[p][1]);
                strcat(want, " ");
            }
        }
        char released[LOG_MAX];
        const char *r = at + strlen(steps[s]) + 1;
        if (strncmp(r, "free_device_list ", 17) == 0)      /* the open failed */
            r += 17;
        snprintf(released, sizeof(released), "%s", r);
        if (strcmp(released, want) != 0)
            fail_msg("failing %s: released '%s', want '%s'", steps[s], released, want);
        /* The device list is freed exactly once, right after opening. */
        const char *fl = strstr(call_log, "free_device_list");
        assert_non_null(fl);
        assert_null(strstr(fl + 1, "free_device_list"));
        teardown(state);
    }
}

/* Every completion, failed ones included, puts its slot back on the NIC; a
 * handed-out frame's slot only once the next frame is asked for. */
static void
test_ring_reposting(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;
    struct rs_frame f;
    struct rs_source_stats st;

    (void)state;
    assert_int_equal(open_sniffer("mlx5_0", &src, err), 0);
    n_posted = 0;
    for (uint64_t slot = 0; slot < 10; slot++)
        add_cqe(slot, slot == 3 ? IBV_WC_LOC_LEN_ERR : slot == 7 ? IBV_WC_GENERAL_ERR :
                IBV_WC_SUCCESS, (uint32_t)(60 + slot), 0);
    int frames = 0;
    for (;;) {
        int rc = rs_source_next(src, &f, err);
        if (rc == RS_SOURCE_IDLE)
            break;
        assert_int_equal(rc, 1);
        uint64_t slot = (uint64_t)frames + (frames >= 3) + (frames >= 6);
        /* In place: the frame is the buffer the NIC wrote, no copy. */
        assert_ptr_equal(f.data, (const uint8_t *)(uintptr_t)posted_sge[slot].addr);
        assert_int_equal(f.caplen, 60 + slot);
        assert_int_equal(f.len, 60 + slot);
        assert_int_equal(f.number, frames + 1);
        /* Until the next read, the frame's slot is not back on the NIC. */
        for (int i = 0; i < n_posted; i++)
            assert_true(posted[i] != slot);
        frames++;
    }
    assert_int_equal(frames, 8);
    /* Everything went back, each slot once: 0..9. */
    assert_int_equal(n_posted, 10);
    uint32_t seen = 0;
    for (int i = 0; i < n_posted; i++) {
        assert_true(posted[i] < 10);
        assert_false(seen & (1u << posted[i]));
        seen |= 1u << posted[i];
    }
    /* Batched: one post per 4 slots (a quarter of the 16-slot ring), the rest
     * before sleeping, not one doorbell per frame. */
    assert_int_equal(n_post_calls, 1 + 3);
    assert_int_equal(rs_source_stats(src, &st, err), 0);
    assert_int_equal(st.received, 8);
    assert_int_equal(st.ring_drops, 2);
    rs_source_close(src);
}

/* One wake-up per completion: events are acked 64 at a time, the rest
 * before the CQ is destroyed. */
static void
test_event_acks_batched(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;
    struct rs_frame f;

    (void)state;
    assert_int_equal(open_sniffer("mlx5_0", &src, err), 0);
    gate_on_events = true;
    for (int i = 0; i < 70; i++) {
        add_cqe((uint64_t)(i % 16), IBV_WC_SUCCESS, 100, 0);
        assert_int_equal(write(event_pipe[1], "e", 1), 1);
        assert_int_equal(rs_source_next(src, &f, err), 1);
        assert_int_equal(f.caplen, 100);
    }
    const char *ack = strstr(call_log, "ack_cq_events");
    assert_non_null(ack);
    assert_memory_equal(ack, "ack_cq_events:64 ", 17);
    assert_null(strstr(ack + 1, "ack_cq_events"));
    /* Armed at activation, then re-armed before each sleep that follows an event. */
    const char *p = log_from("create_flow");
    int arms = 0;
    while ((p = strstr(p, "req_notify_cq")) != NULL)
        arms++, p++;
    assert_int_equal(arms, 1 + 69);
    call_log[0] = '\0';
    rs_source_close(src);
    assert_string_equal(call_log, "destroy_flow destroy_qp ack_cq_events:6 destroy_cq dereg_mr "
                                  "dealloc_pd destroy_comp_channel close_device ");
}

/* A break wakes the reader, which hands out what the CQ holds and ends. */
static void
test_break_drains(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;
    struct rs_frame f;
    struct rs_live_opts opts = {.buffer_mb = 1};    /* no idle timeout: sleeps until woken */

    (void)state;
    assert_int_equal(rs_source_create_rdma("mlx5_0", &src, err), 0);
    assert_int_equal(rs_source_activate(src, &opts, err), 0);
    for (uint64_t slot = 0; slot < 3; slot++)
        add_cqe(slot, IBV_WC_SUCCESS, 80, 0);
    rs_source_break(src);
    for (int i = 0; i < 3; i++)
        assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(rs_source_next(src, &f, err), 0);
    rs_source_close(src);
}

/* InfiniBand ports: each frame becomes an ERF type 21 record, its header
 * written into the room before the receive buffer. */
static void
test_infiniband_erf(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;
    struct rs_frame f;

    (void)state;
    link_layer = IBV_LINK_LAYER_INFINIBAND;
    assert_int_equal(open_sniffer("mlx5_0", &src, err), 0);
    assert_int_equal(rs_source_linktype(src), RS_DLT_ERF);
    add_cqe(5, IBV_WC_SUCCESS, 70, 0);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_ptr_equal(f.data + 16, (const uint8_t *)(uintptr_t)posted_sge[5].addr);
    assert_int_equal(f.caplen, 16 + 70);
    assert_int_equal(f.data[8], 21);                    /* ERF type: InfiniBand */
    assert_int_equal(rs_load_be16(f.data + 10), 86);    /* record length */
    assert_int_equal(rs_load_be16(f.data + 14), 70);    /* wire length */
    /* The record's 32.32 timestamp is the frame's time. */
    uint64_t ts = rs_load_le64(f.data);
    assert_int_equal((int64_t)(ts >> 32), f.ts_sec);
    rs_source_close(src);
}

/* The best clock the device has: wall-clock nanoseconds, else the raw
 * counter scaled by hca_core_clock, else the host's clock. */

/* Opens mlx5_0 with argument checks on: the QP and flow arguments are not
 * what these tests look at. */
static struct rs_source *
open_checked_sniffer(char *err)
{
    struct rs_source *src;

    expect_any_count(__wrap_ibv_create_qp, qp_type, 1);
    expect_any_count(__wrap_ibv_create_qp, max_recv_wr, 1);
    expect_any_count(__wrap_rs_vsys_create_flow, type, 1);
    expect_any_count(__wrap_rs_vsys_create_flow, port, 1);
    assert_int_equal(open_sniffer("mlx5_0", &src, err), 0);
    return src;
}
static void
test_timestamps(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;
    struct rs_frame f;

    (void)state;
    ts_mask = ~0ull >> 1;
    core_clock_khz = 1000000;      /* 1 GHz: one cycle per nanosecond */
    check_args = true;
    expect_value(__wrap_rs_vsys_create_cq_ex, wc_flags,
                 IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
    will_return(__wrap_rs_vsys_create_cq_ex, 0);
    src = open_checked_sniffer(err);
    assert_true(rs_source_ts_hardware(src));
    add_cqe(0, IBV_WC_SUCCESS, 64, 1700000000123456789ull);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(f.ts_sec, 1700000000);
    assert_int_equal(f.ts_nsec, 123456789);
    rs_source_close(src);

    /* No wall clock: the raw counter, 1000 cycles = 1 us apart. */
    teardown(state);
    setup(state);
    ts_mask = ~0ull >> 1;
    core_clock_khz = 1000000;
    check_args = true;
    expect_value(__wrap_rs_vsys_create_cq_ex, wc_flags,
                 IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
    will_return(__wrap_rs_vsys_create_cq_ex, EOPNOTSUPP);
    expect_value(__wrap_rs_vsys_create_cq_ex, wc_flags,
                 IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP);
    will_return(__wrap_rs_vsys_create_cq_ex, 0);
    src = open_checked_sniffer(err);
    assert_true(rs_source_ts_hardware(src));
    add_cqe(0, IBV_WC_SUCCESS, 64, 5000000);
    add_cqe(1, IBV_WC_SUCCESS, 64, 5001000);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    int64_t t0 = f.ts_sec * 1000000000 + f.ts_nsec;
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(f.ts_sec * 1000000000 + f.ts_nsec - t0, 1000);
    assert_int_equal(f.rel.sec, 0);
    assert_int_equal(f.rel.nsec, 1000);
    rs_source_close(src);
}

static void
test_inactive_refuses(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;
    struct rs_frame f;

    (void)state;
    assert_int_equal(rs_source_create_rdma("mlx5_0", &src, err), 0);
    assert_int_equal(rs_source_next(src, &f, err), RS_EINVAL);
    assert_string_equal(err, "mlx5_0: the capture is not active");
    assert_string_equal(call_log, "");
    rs_source_close(src);
    /* -f does not apply to a sniffer QP. */
    struct rs_live_opts opts = {.filter = "udp"};
    assert_int_equal(rs_source_create_rdma("mlx5_0", &src, err), 0);
    assert_int_equal(rs_source_activate(src, &opts, err), RS_EINVAL);
    rs_source_close(src);
}

#ifdef RS_TEST_TUI
/* Opens the TUI's model on the fake device and has the NIC deliver the sample's frames
 * into the posted buffers, the frame of index lose (from 0; -1: none) as a failed
 * completion instead, which the source counts as a ring drop; waits until the model
 * has indexed the rest. The frames delivered are copied to frames[] and lens[]. */
static struct rs_tui_model *
tui_on_device(char *path, int lose, uint8_t frames[][2048], uint32_t *lens)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_tui_model_opts opts;
    struct rs_tui_model *m;
    struct rs_source *sample;
    struct rs_frame f;
    int n = 0;

    max_qp_wr = 32;
    gate_on_events = true;
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    rs_tui_model_opts_init(&opts);
    opts.rdma = "mlx5_0:1";
    opts.path = path;
    opts.live.buffer_mb = 1;
    assert_int_equal(rs_tui_model_open(&opts, &m, err), 0);
    assert_int_equal(rs_source_open_file(RS_SOURCE_DIR "/samples/rdma_demo.pcap", &sample, err),
                     0);
    while (rs_source_next(sample, &f, err) == 1) {
        assert_true(n < 32 && f.caplen <= posted_sge[n].length);
        memcpy((void *)(uintptr_t)posted_sge[n].addr, f.data, f.caplen);
        memcpy(frames[n], f.data, f.caplen);
        lens[n++] = f.caplen;
    }
    rs_source_close(sample);
    assert_int_equal(n, 27);
    for (int i = 0; i < n; i++)
        add_cqe((uint64_t)i, i == lose ? IBV_WC_GENERAL_ERR : IBV_WC_SUCCESS,
                i == lose ? 0 : lens[i], 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(write(event_pipe[1], "e", 1), 1);
    uint64_t want = lose >= 0 ? 26 : 27;
    for (int tries = 0; rs_tui_model_frame_count(m) < want && tries < 500; tries++)
        usleep(10000);
    assert_int_equal(rs_tui_model_frame_count(m), want);
    return m;
}

/* `roceshark tui -d DEV`: the TUI's model capturing from the sniffer QP indexes what the
 * device delivers, writes it to its file, and analyses it as it would the sample. */
static void
test_tui_from_device(void **state)
{
    char err[RS_ERRBUF_SIZE], path[] = "/tmp/rs-tui-verbs-XXXXXX";
    static uint8_t frames[32][2048];
    uint32_t lens[32];

    (void)state;
    struct rs_tui_model *m = tui_on_device(path, -1, frames, lens);
    struct rs_source_stats st;
    uint64_t written;
    assert_int_equal(rs_tui_model_stop_capture(m, &st, &written, err), 0);
    assert_int_equal(st.received, 27);
    assert_int_equal(written, 27);
    struct rs_tui_conv_row *rows;
    size_t n_rows;
    assert_int_equal(rs_tui_model_conv_rows(m, RS_TUI_COL_CONV, false, &rows, &n_rows, err), 0);
    assert_int_equal(n_rows, 2);
    assert_int_equal(rows[0].st.req_packets, 12);
    assert_int_equal(rows[0].st.req_bytes, 4404);
    assert_int_equal(rows[0].st.retransmissions, 3);
    assert_int_equal(rows[1].st.req_packets, 3);
    free(rows);
    /* Frames read back from the file the capture went to. */
    struct rs_tui_decoded d;
    memset(&d, 0, sizeof(d));
    assert_int_equal(rs_tui_model_decode(m, 13, &d, err), 0);
    assert_int_equal(d.frame.caplen, lens[12]);
    assert_memory_equal(d.frame.data, frames[12], lens[12]);
    rs_tui_decoded_free(&d);
    rs_tui_model_close(m);
    unlink(path);
}

/* A frame the capture lost (the RDMA Write Middle, PSN 102, as a failed completion: a
 * ring drop) makes the next frame of its conversation open a PSN gap: the anomaly view
 * marks that gap as the capture's loss, while the sample's own gap (PSN 107, later)
 * stays a transport gap, the drop's count being used up. */
static void
test_tui_capture_loss(void **state)
{
    char err[RS_ERRBUF_SIZE], path[] = "/tmp/rs-tui-verbs-XXXXXX";
    static uint8_t frames[32][2048];
    uint32_t lens[32];
    struct rs_tui_anomaly a;
    int gaps = 0;

    (void)state;
    struct rs_tui_model *m = tui_on_device(path, 3, frames, lens);
    struct rs_capture_status cs;
    assert_true(rs_tui_model_capture_status(m, &cs));
    assert_int_equal(cs.stats.ring_drops, 1);
    for (uint64_t i = 0; rs_tui_model_anomaly(m, i, &a); i++) {
        if (strcmp(rs_experts[a.expert].field, "roceshark.analysis.psn_gap") != 0)
            continue;
        /* Frame 4 is now PSN 103, after the lost 102; frame 11 the sample's PSN 108. */
        if (gaps == 0)
            assert_true(a.frame == 4 && a.capture_loss);
        else
            assert_true(a.frame == 11 && !a.capture_loss);
        gaps++;
    }
    assert_int_equal(gaps, 2);
    struct rs_source_stats st;
    uint64_t written;
    assert_int_equal(rs_tui_model_stop_capture(m, &st, &written, err), 0);
    assert_int_equal(written, 26);
    rs_tui_model_close(m);
    unlink(path);
}
#endif

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_call_sequence, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errno_messages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_such_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_without_libibverbs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_teardown_after_each_failure, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ring_reposting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_event_acks_batched, setup, teardown),
        cmocka_unit_test_setup_teardown(test_break_drains, setup, teardown),
        cmocka_unit_test_setup_teardown(test_infiniband_erf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timestamps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inactive_refuses, setup, teardown),
#ifdef RS_TEST_TUI
        cmocka_unit_test_setup_teardown(test_tui_from_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tui_capture_loss, setup, teardown),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
