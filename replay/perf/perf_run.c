/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_run.c - the loops of the perftest tests and their result tables.
 */
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "perf_int.h"

#define BW_HEADER " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
#define BW_HEADER_G " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
#define MB (1024.0 * 1024.0)    /* perftest's MB */
#define GB_BITS 125000000.0     /* bytes per second in a Gb/s, as perftest's --report_gbits */

/* What a server saw of its client's traffic. */
struct rs_perf_served {
    uint64_t recvs;
    uint64_t first_ns, last_ns;     /* of the receives */
};

int
rs_perf_post_recv(struct rs_perf *p, uint32_t slot, char *err)
{
    uint64_t len = p->size > 0 ? p->size : 1;
    struct rs_rc_recv_wr wr = {slot, {p->rmr.va + slot * len, (uint32_t)len, p->rmr.lkey}};

    return rs_rc_post_recv(p->qp, &wr, err) < 0 ? RS_ENOMEM : 0;
}

int
rs_perf_post_op(struct rs_perf *p, uint8_t opcode, uint64_t wr_id, unsigned flags, char *err)
{
    struct rs_rc_send_wr wr;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = wr_id;
    wr.opcode = opcode;
    wr.flags = (uint8_t)flags;
    wr.sge = (struct rs_rc_sge){p->mr.va, (uint32_t)p->size, p->mr.lkey};
    wr.remote_addr = p->peer.va;
    wr.rkey = p->peer.rkey;
    return rs_rc_post_send(p->qp, &wr, err) < 0 ? RS_ENOMEM : 0;
}

int
rs_perf_turn(struct rs_perf *p, uint64_t wait_ns, char *err)
{
    if (p->stopped != NULL && p->stopped())
        return rs_error(err, RS_EINVAL, "interrupted");
    if (rs_rc_udp_poll(p->udp, p->ctx, p->busy_poll ? 0 : wait_ns, err) < 0)
        return RS_EIO;
    return 0;
}

int
rs_perf_wc_failed(const struct rs_rc_wc *wc, char *err)
{
    return rs_error(err, RS_EIO, "work request %" PRIu64 " completed with %s", wc->wr_id,
                    rs_rc_wc_status_name(wc->status));
}

static const char *
bw_header(const struct rs_perf *p)
{
    return p->report_gbits ? BW_HEADER_G : BW_HEADER;
}

/* Bytes per second in the unit of the table. */
static double
bw_unit(const struct rs_perf *p, double bytes_per_sec)
{
    return bytes_per_sec / (p->report_gbits ? GB_BITS : MB);
}

/* A row of the BW table, from values already in its unit, as perftest
 * prints them (six decimals when Gb/s would round to zero). */
static void
bw_row(const struct rs_perf *p, const struct rs_oob_bw_report *r, char *row, size_t size)
{
    if (p->report_gbits && r->bw_avg < 0.1)
        snprintf(row, size, " %-7" PRIu64 "    %" PRIu64 "           %-7.6f            %-7.6f"
                 "            %-7.6f\n", r->size, r->iters, r->bw_peak, r->bw_avg, r->msg_rate);
    else
        snprintf(row, size, " %-7" PRIu64 "    %-10" PRIu64 "       %-7.2f            %-7.2f"
                 "\t\t   %-7.6f\n", r->size, r->iters, r->bw_peak, r->bw_avg, r->msg_rate);
}

/* Sends the ACK held back for the peer's last request now: after the loop nothing runs
 * the transport while the exchange's end waits on TCP, and the peer (perftest's latency
 * server, whose last reply we took) would retry its request until it gave up. */
void
rs_perf_ack_last(struct rs_perf *p)
{
    if (p->qp != NULL) {
        rs_rc_qp_ack_now(p->qp);
        rs_rc_udp_flush(p->udp);
    }
}

int
rs_perf_finish(struct rs_perf *p, const char *header, const char *row, const char *json,
       const struct rs_oob_bw_report *report, char *err)
{
    char line[1024];
    FILE *out = p->out != NULL ? p->out : stdout;

    rs_perf_ack_last(p);
    fprintf(out, "%s%s%s", header, row, RS_PERF_RESULT_LINE);
    if (p->json)
        fprintf(out, "%s\n", json);
    fflush(out);
    if (!p->client)
        return 0;
    if (rs_perf_is_perftest(p) || p->setup == RS_OOB_SETUP_CM)
        return rs_perf_client_end(p, report, err);
    /* The row goes as it is printed, on the line after the message. */
    snprintf(line, sizeof(line), "{\"done\": 1, \"json\": %s}", json);
    if (rs_rc_side_send(p->fd, line, err) == 0) {
        snprintf(line, sizeof(line), "%s", row);
        line[strcspn(line, "\n")] = '\0';
        rs_rc_side_send(p->fd, line, err);
    }
    return 0;
}

/* Server of perftest's client: the exchange's end, then what perftest's
 * server prints: the client's BW report, or our own measure. */
static int
perftest_served(struct rs_perf *p, struct rs_perf_served *sv, char *err)
{
    struct rs_oob_bw_report r;
    char row[512];
    int rc;

    memset(&r, 0, sizeof(r));
    rs_perf_ack_last(p);
    if ((rc = rs_perf_perftest_end(p, NULL, &r, err)) < 0)
        return rc;
    if (p->test->end == RS_PERF_END_REPORT) {
        bw_row(p, &r, row, sizeof(row));
        return rs_perf_finish(p, bw_header(p), row, "{}", NULL, err);
    }
    if (p->test->opcode == RS_RC_WR_SEND && !p->test->latency) {
        /* send_bw: what we received, between the first and the last. */
        double secs = (double)(sv->last_ns - sv->first_ns) / 1e9;
        r.size = p->size;
        r.iters = sv->recvs;
        if (secs > 0) {
            r.bw_avg = r.bw_peak = bw_unit(p, (double)sv->recvs * (double)p->size / secs);
            r.msg_rate = (double)sv->recvs / secs / 1e6;
        }
        bw_row(p, &r, row, sizeof(row));
        rc = rs_perf_finish(p, bw_header(p), row, "{}", NULL, err);
        if (rc == 0 && sv->recvs < p->iters)
            return rs_error(err, RS_EIO, "the client finished after %" PRIu64 " of %" PRIu64
                            " messages", sv->recvs, p->iters);
        return rc;
    }
    return 0;
}

/* Server side: serve the peer (reposting receives) until the client reports its
 * results: our JSON line, or its next perftest message. */
static int
serve_loop(struct rs_perf *p, struct rs_perf_served *sv, char *err)
{
    char line[1024];
    struct rs_rc_wc wc[64];
    bool perftest = rs_perf_is_perftest(p);
    bool chan = p->setup == RS_OOB_SETUP_PERFTEST_CM;

    for (uint64_t loops = 0;; loops++) {
        struct pollfd pfd[2] = {{rs_rc_udp_fd(p->udp), POLLIN, 0}, {p->fd, POLLIN, 0}};
        if (!p->busy_poll) {
            rs_rc_wait(pfd, 2, p->ctx, p->udp, false);
        } else if ((loops & 1023) == 0) {
            poll(pfd + 1, 1, 0);    /* the side channel: rarely, off the fast path */
        }
        int rc = rs_perf_turn(p, 0, err);
        if (rc != 0)
            return rc;
        int n = rs_rc_poll_cq(p->qp, wc, 64);
        for (int i = 0; i < n; i++) {
            if (wc[i].status != RS_RC_WC_SUCCESS)
                return rs_perf_wc_failed(&wc[i], err);
            if (wc[i].opcode == RS_RC_WC_RECV) {
                sv->last_ns = rs_rc_now_ns();
                if (sv->recvs++ == 0)
                    sv->first_ns = sv->last_ns;
                if ((rc = rs_perf_post_recv(p, (uint32_t)wc[i].wr_id, err)) != 0)
                    return rc;
            }
        }
        /* The client's next message: on TCP, or on perftest -R's channel. */
        if (chan ? !rs_perf_cm_chan_ready(p) : !(pfd[1].revents & (POLLIN | POLLHUP)))
            continue;
        if (perftest)
            return perftest_served(p, sv, err);
        if (rs_rc_side_recv(p->fd, line, sizeof(line), 1000, err) < 0)
            return RS_EIO;
        const char *json = strstr(line, "\"json\": ");
        if (json == NULL)
            return rs_error(err, RS_EIO, "unexpected message from the client");
        char jbuf[1024], row[512];
        snprintf(jbuf, sizeof(jbuf), "%s", json + 8);
        jbuf[strlen(jbuf) - 1] = '\0';    /* the closing brace of the message */
        if (rs_rc_side_recv(p->fd, row, sizeof(row), 1000, err) < 0)
            return RS_EIO;
        strcat(row, "\n");
        p->client = false;
        return rs_perf_finish(p, p->test->latency ? rs_perf_lat_header() : bw_header(p), row,
                              jbuf, NULL, err);
    }
}

int
rs_perf_serve(struct rs_perf *p, char *err)
{
    struct rs_perf_served sv;

    memset(&sv, 0, sizeof(sv));
    return serve_loop(p, &sv, err);
}

static int
run_bw(struct rs_perf *p, char *err)
{
    struct rs_rc_wc wc[64];
    uint64_t posted = 0, done = 0, window = p->iters / 20, win_start_done = 0;
    uint64_t limit = p->duration > 0 ? UINT64_MAX : p->iters;
    double peak = 0;
    char row[256], json[512];
    int rc;

    if (!p->client)
        return rs_perf_serve(p, err);
    if (window < p->tx_depth)
        window = p->tx_depth;
    uint64_t t0 = rs_rc_now_ns(), win_start = t0;
    uint64_t stop_ns = p->duration > 0 ? t0 + (uint64_t)(p->duration * 1e9) : UINT64_MAX;
    while (done < posted || posted < limit) {
        if (rs_rc_now_ns() >= stop_ns)
            limit = posted;     /* -D: time is up; let what is posted complete */
        while (posted < limit && posted - done < p->tx_depth) {
            if ((rc = rs_perf_post_op(p, p->test->opcode, posted, RS_RC_SEND_SIGNALED, err)) != 0)
                return rc;
            posted++;
        }
        if (done == posted)
            break;
        if ((rc = rs_perf_turn(p, 100000000, err)) != 0)
            return rc;
        int n = rs_rc_poll_cq(p->qp, wc, 64);
        for (int i = 0; i < n; i++)
            if (wc[i].status != RS_RC_WC_SUCCESS)
                return rs_perf_wc_failed(&wc[i], err);
        done += (uint64_t)n;
        if (done - win_start_done >= window) {
            uint64_t now = rs_rc_now_ns();
            double bw = (double)(done - win_start_done) * (double)p->size /
                        ((double)(now - win_start) / 1e9);
            peak = bw > peak ? bw : peak;
            win_start = now;
            win_start_done = done;
        }
    }
    double secs = (double)(rs_rc_now_ns() - t0) / 1e9;
    double avg = (double)done * (double)p->size / secs;
    if (peak < avg)
        peak = avg;     /* a run shorter than one window */
    struct rs_oob_bw_report r = {p->size, done, bw_unit(p, peak), bw_unit(p, avg),
                                 (double)done / secs / 1e6};
    bw_row(p, &r, row, sizeof(row));
    snprintf(json, sizeof(json),
             "{\"test\": \"%s\", \"bytes\": %" PRIu64 ", \"iterations\": %" PRIu64
             ", \"bw_peak_mb\": %.2f, \"bw_average_mb\": %.2f, \"bytes_per_second\": %.0f"
             ", \"msg_rate_mpps\": %.6f, \"seconds\": %.6f}",
             p->test->name, p->size, done, peak / MB, avg / MB, avg, r.msg_rate, secs);
    return rs_perf_finish(p, bw_header(p), row, json, &r, err);
}

int
rs_perf_run(struct rs_perf *p, char *err)
{
    if (p->test->pingpong)
        return rs_perf_pingpong_run(p, err);
    if (p->test->rping)
        return rs_perf_rping_run(p, err);
    int rc = p->test->latency ? rs_perf_lat_run(p, err) : run_bw(p, err);
    /* The client disconnects in rs_perf_client_end(), after its report. */
    if (rc == 0 && !p->client)
        rc = rs_perf_disconnect(p, err);
    return rc;
}
