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
#define LAT_HEADER                                                                          \
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    " \
    "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
#define MB (1024.0 * 1024.0)    /* perftest's MB */

int
rs_perf_post_recv(struct rs_perf *p, uint32_t slot, char *err)
{
    uint64_t len = p->size > 0 ? p->size : 1;
    struct rs_rc_recv_wr wr = {slot, {p->rmr.va + slot * len, (uint32_t)len, p->rmr.lkey}};

    return rs_rc_post_recv(p->qp, &wr, err) < 0 ? RS_ENOMEM : 0;
}

static int
post_op(struct rs_perf *p, uint8_t opcode, uint64_t wr_id, unsigned flags, char *err)
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

/* One turn of the event loop: receive, run timers, send. */
static int
turn(struct rs_perf *p, uint64_t wait_ns, char *err)
{
    if (p->stopped != NULL && p->stopped())
        return rs_error(err, RS_EINVAL, "interrupted");
    if (rs_rc_udp_poll(p->udp, p->ctx, p->busy_poll ? 0 : wait_ns, err) < 0)
        return RS_EIO;
    return 0;
}

static int
wc_failed(const struct rs_rc_wc *wc, char *err)
{
    return rs_error(err, RS_EIO, "work request %" PRIu64 " completed with %s", wc->wr_id,
                    rs_rc_wc_status_name(wc->status));
}

/* The server prints what the client measured: the client sends its row. */
static void
finish(struct rs_perf *p, const char *header, const char *row, const char *json)
{
    char line[1024], err[RS_ERRBUF_SIZE];
    FILE *out = p->out != NULL ? p->out : stdout;

    fprintf(out, "%s%s%s", header, row, RS_PERF_RESULT_LINE);
    if (p->json)
        fprintf(out, "%s\n", json);
    fflush(out);
    if (p->client) {
        /* The row goes as it is printed, on the line after the message. */
        snprintf(line, sizeof(line), "{\"done\": 1, \"json\": %s}", json);
        if (rs_rc_side_send(p->fd, line, err) == 0) {
            snprintf(line, sizeof(line), "%s", row);
            line[strcspn(line, "\n")] = '\0';
            rs_rc_side_send(p->fd, line, err);
        }
    }
}

/* Server side: serve the peer (reposting receives and, for send_lat and
 * write_lat, answering) until the client reports its results. */
static int
serve(struct rs_perf *p, char *err)
{
    char line[1024];
    struct rs_rc_wc wc[64];
    uint64_t pongs = 0;
    uint8_t *target = p->buf + p->size;

    for (uint64_t loops = 0;; loops++) {
        struct pollfd pfd[2] = {{rs_rc_udp_fd(p->udp), POLLIN, 0}, {p->fd, POLLIN, 0}};
        if (!p->busy_poll) {
            rs_rc_wait(pfd, 2, p->ctx, false);
        } else if ((loops & 1023) == 0) {
            poll(pfd + 1, 1, 0);    /* the side channel: rarely, off the fast path */
        }
        int rc = turn(p, 0, err);
        if (rc != 0)
            return rc;
        int n = rs_rc_poll_cq(p->qp, wc, 64);
        for (int i = 0; i < n; i++) {
            if (wc[i].status != RS_RC_WC_SUCCESS)
                return wc_failed(&wc[i], err);
            if (wc[i].opcode == RS_RC_WC_RECV) {
                if ((rc = rs_perf_post_recv(p, (uint32_t)wc[i].wr_id, err)) != 0)
                    return rc;
                if (p->test->latency && (rc = post_op(p, RS_RC_WR_SEND, 0, 0, err)) != 0)
                    return rc;
                if (p->test->latency && (rc = turn(p, 0, err)) != 0)   /* answer right away */
                    return rc;
            }
        }
        /* write_lat: the client's WRITE ends with a new marker byte. */
        if (p->test->latency && p->test->opcode == RS_RC_WR_RDMA_WRITE &&
            target[p->size - 1] == (uint8_t)(pongs % 255 + 1)) {
            p->buf[p->size - 1] = target[p->size - 1];
            pongs++;
            if ((rc = post_op(p, RS_RC_WR_RDMA_WRITE, 0, 0, err)) != 0 ||
                (rc = turn(p, 0, err)) != 0)
                return rc;
        }
        if (pfd[1].revents & (POLLIN | POLLHUP)) {
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
            finish(p, p->test->latency ? LAT_HEADER : BW_HEADER, row, jbuf);
            return 0;
        }
    }
}

static int
run_bw(struct rs_perf *p, char *err)
{
    struct rs_rc_wc wc[64];
    uint64_t posted = 0, done = 0, window = p->iters / 20, win_start_done = 0;
    double peak = 0;
    char row[256], json[512];
    int rc;

    if (!p->client)
        return serve(p, err);
    if (window < p->tx_depth)
        window = p->tx_depth;
    uint64_t t0 = rs_rc_now_ns(), win_start = t0;
    while (done < p->iters) {
        while (posted < p->iters && posted - done < p->tx_depth) {
            if ((rc = post_op(p, p->test->opcode, posted, RS_RC_SEND_SIGNALED, err)) != 0)
                return rc;
            posted++;
        }
        if ((rc = turn(p, 100000000, err)) != 0)
            return rc;
        int n = rs_rc_poll_cq(p->qp, wc, 64);
        for (int i = 0; i < n; i++)
            if (wc[i].status != RS_RC_WC_SUCCESS)
                return wc_failed(&wc[i], err);
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
    double avg = (double)p->iters * (double)p->size / secs;
    if (peak < avg)
        peak = avg;     /* a run shorter than one window */
    snprintf(row, sizeof(row), " %-7" PRIu64 "    %-10" PRIu64 "       %-7.2f            %-7.2f"
             "\t\t   %-7.6f\n",
             p->size, p->iters, peak / MB, avg / MB, (double)p->iters / secs / 1e6);
    snprintf(json, sizeof(json),
             "{\"test\": \"%s\", \"bytes\": %" PRIu64 ", \"iterations\": %" PRIu64
             ", \"bw_peak_mb\": %.2f, \"bw_average_mb\": %.2f, \"bytes_per_second\": %.0f"
             ", \"msg_rate_mpps\": %.6f, \"seconds\": %.6f}",
             p->test->name, p->size, p->iters, peak / MB, avg / MB, avg,
             (double)p->iters / secs / 1e6, secs);
    finish(p, BW_HEADER, row, json);
    return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Waits for the peer's answer to ping i: a receive (send_lat) or the
 * marker byte in the half it writes (write_lat). */
static int
wait_pong(struct rs_perf *p, uint64_t i, char *err)
{
    struct rs_rc_wc wc[16];
    uint8_t marker = (uint8_t)(i % 255 + 1);
    volatile uint8_t *last = p->buf + 2 * p->size - 1;

    for (;;) {
        int rc = turn(p, 0, err);
        if (rc != 0)
            return rc;
        int n = rs_rc_poll_cq(p->qp, wc, 16);
        bool got = false;
        for (int k = 0; k < n; k++) {
            if (wc[k].status != RS_RC_WC_SUCCESS)
                return wc_failed(&wc[k], err);
            if (wc[k].opcode == RS_RC_WC_RECV) {
                if ((rc = rs_perf_post_recv(p, (uint32_t)wc[k].wr_id, err)) != 0)
                    return rc;
                got = true;
            }
        }
        if (got || (p->test->opcode == RS_RC_WR_RDMA_WRITE && *last == marker))
            return 0;
    }
}

static int
run_lat(struct rs_perf *p, char *err)
{
    uint64_t warm = p->iters / 10 < 100 ? p->iters / 10 : 100;
    uint64_t *lat = malloc(p->iters * sizeof(*lat));
    char row[512], json[512];
    int rc = 0;

    if (!p->client) {
        free(lat);
        return serve(p, err);
    }
    if (lat == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    for (uint64_t i = 0; i < warm + p->iters && rc == 0; i++) {
        uint64_t t0 = rs_rc_now_ns();
        p->buf[p->size - 1] = (uint8_t)(i % 255 + 1);
        rc = post_op(p, p->test->opcode, i, 0, err);
        if (rc == 0)
            rc = wait_pong(p, i, err);
        if (i >= warm)
            lat[i - warm] = rs_rc_now_ns() - t0;
    }
    if (rc != 0) {
        free(lat);
        return rc;
    }
    qsort(lat, p->iters, sizeof(*lat), cmp_u64);
    double sum = 0, sq = 0, n = (double)p->iters;
    for (uint64_t i = 0; i < p->iters; i++)
        sum += (double)lat[i] / 2000.0;
    double avg = sum / n;
    for (uint64_t i = 0; i < p->iters; i++) {
        double d = (double)lat[i] / 2000.0 - avg;
        sq += d * d;
    }
    /* Half the round trip, in microseconds, as perftest reports it. */
#define US(x) ((double)(x) / 2000.0)
    uint64_t p99 = (uint64_t)ceil(0.99 * n) - 1, p999 = (uint64_t)ceil(0.999 * n) - 1;
    double tmin = US(lat[0]), tmax = US(lat[p->iters - 1]), typ = US(lat[p->iters / 2]);
    double sd = sqrt(sq / n), q99 = US(lat[p99]), q999 = US(lat[p999]);
    snprintf(row, sizeof(row),
             " %-7" PRIu64 " %-10" PRIu64 "     %-7.2f        %-7.2f      %-7.2f  \t       "
             "%-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n",
             p->size, p->iters, tmin, tmax, typ, avg, sd, q99, q999);
    snprintf(json, sizeof(json),
             "{\"test\": \"%s\", \"bytes\": %" PRIu64 ", \"iterations\": %" PRIu64
             ", \"t_min_us\": %.3f, \"t_max_us\": %.3f, \"t_typical_us\": %.3f, \"t_avg_us\": "
             "%.3f, \"t_stdev_us\": %.3f, \"p99_us\": %.3f, \"p99_9_us\": %.3f}",
             p->test->name, p->size, p->iters, tmin, tmax, typ, avg, sd, q99, q999);
#undef US
    free(lat);
    finish(p, LAT_HEADER, row, json);
    return 0;
}

int
rs_perf_run(struct rs_perf *p, char *err)
{
    return p->test->latency ? run_lat(p, err) : run_bw(p, err);
}
