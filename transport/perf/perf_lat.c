/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_lat.c - perftest's latency tests in perftest's own order (its
 * perftest_resources.c: run_iter_lat_write(), run_iter_lat_send(), run_iter_lat()), so
 * that each side pairs with perftest's binary in both directions:
 *
 *   write_lat   both sides WRITE into the peer's buffer and spin on their own; the
 *               server writes first, then each answers the other's n-th write with its
 *               own n-th, whose last byte is (char)n;
 *   send_lat    both sides SEND and receive; the client sends first;
 *   read_lat,   the client READs (FETCH_AND_ADDs) one at a time and waits for each; the
 *   atomic_lat  server only serves, and prints nothing, as perftest's.
 *
 * Each side times its posts. An iteration's latency is the gap between two posts, one
 * round trip, halved for WRITE and SEND as perftest halves it; the table says -n
 * iterations, as perftest's does (from -n - 1 gaps).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perf_int.h"

#define LAT_HEADER                                                                          \
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    " \
    "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"

uint64_t
rs_perf_lat_warmup(const struct rs_perf *p)
{
    /* perftest's peer counts exactly -n pings: no warm-up with it. Ours learns -n from
     * the client and runs the same warm-up. */
    if (rs_perf_is_perftest(p))
        return 0;
    return p->iters / 10 < 100 ? p->iters / 10 : 100;
}

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* perftest's latency row (and our JSON line) from count round trips in ns, which it
 * sorts; iters is what the row says. */
static void
lat_row(const struct rs_perf *p, uint64_t *lat, uint64_t count, char *row, size_t row_size,
        char *json, size_t json_size)
{
    double sum = 0, sq = 0, n = count > 0 ? (double)count : 1;
    /* Half the round trip, in microseconds, as perftest reports it; a READ or an atomic
     * is one round trip, reported whole. */
    double per_us = p->test->opcode == RS_RC_WR_RDMA_WRITE || p->test->opcode == RS_RC_WR_SEND
                        ? 2000.0 : 1000.0;
    uint64_t zero = 0;

    qsort(lat, count, sizeof(*lat), cmp_u64);
    if (count == 0) {
        lat = &zero;
        count = 1;
    }
    for (uint64_t i = 0; i < count; i++)
        sum += (double)lat[i] / per_us;
    double avg = sum / n;
    for (uint64_t i = 0; i < count; i++) {
        double d = (double)lat[i] / per_us - avg;
        sq += d * d;
    }
#define US(x) ((double)(x) / per_us)
    uint64_t p99 = (uint64_t)ceil(0.99 * n) - 1, p999 = (uint64_t)ceil(0.999 * n) - 1;
    double tmin = US(lat[0]), tmax = US(lat[count - 1]), typ = US(lat[count / 2]);
    double sd = sqrt(sq / n), q99 = US(lat[p99]), q999 = US(lat[p999]);
    snprintf(row, row_size,
             " %-7" PRIu64 " %-10" PRIu64 "     %-7.2f        %-7.2f      %-7.2f  \t       "
             "%-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n",
             p->size, p->iters, tmin, tmax, typ, avg, sd, q99, q999);
    snprintf(json, json_size,
             "{\"test\": \"%s\", \"bytes\": %" PRIu64 ", \"iterations\": %" PRIu64
             ", \"t_min_us\": %.3f, \"t_max_us\": %.3f, \"t_typical_us\": %.3f, \"t_avg_us\": "
             "%.3f, \"t_stdev_us\": %.3f, \"p99_us\": %.3f, \"p99_9_us\": %.3f}",
             p->test->name, p->size, p->iters, tmin, tmax, typ, avg, sd, q99, q999);
#undef US
}

/* Completions taken so far, by kind. */
struct lat_wcs {
    uint64_t recvs, sends;
};

/* Takes completions until recvs and sends reach the counts asked; fails on an error
 * status. Receives are posted again as they complete. */
static int
wait_wcs(struct rs_perf *p, struct lat_wcs *got, uint64_t recvs, uint64_t sends, char *err)
{
    struct rs_rc_wc wc;

    while (got->recvs < recvs || got->sends < sends) {
        int rc = rs_perf_turn(p, 0, err);
        if (rc != 0)
            return rc;
        while (rs_rc_poll_cq(p->qp, &wc, 1) == 1) {
            if (wc.status != RS_RC_WC_SUCCESS)
                return rs_perf_wc_failed(&wc, err);
            if (wc.opcode != RS_RC_WC_RECV) {
                got->sends++;
                continue;
            }
            got->recvs++;
            if ((rc = rs_perf_post_recv(p, (uint32_t)wc.wr_id, err)) != 0)
                return rc;
        }
    }
    return 0;
}

/* Spins on the last byte of the half the peer writes until it is marker. */
static int
wait_marker(struct rs_perf *p, uint8_t marker, char *err)
{
    volatile uint8_t *last = p->buf + p->half + p->size - 1;

    while (*last != marker) {
        int rc = rs_perf_turn(p, 0, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Posts a request timed at posted[i] and sends it at once. */
static int
post_timed(struct rs_perf *p, uint8_t opcode, unsigned flags, uint64_t *posted, uint64_t i,
           char *err)
{
    posted[i] = rs_rc_now_ns();
    int rc = rs_perf_post_op(p, opcode, i, flags, err);
    return rc != 0 ? rc : rs_perf_turn(p, 0, err);
}

static int
write_lat(struct rs_perf *p, uint64_t n, uint64_t *posted, char *err)
{
    struct lat_wcs got = {0, 0};
    uint64_t scnt = 0, rcnt = 0;
    int rc = 0;

    while (rc == 0 && (scnt < n || rcnt < n || got.sends < n)) {
        /* The server writes first: the client's first write answers it. */
        if (rcnt < n && !(scnt < 1 && !p->client) &&
            (rc = wait_marker(p, (uint8_t)++rcnt, err)) != 0)
            break;
        if (scnt < n) {
            p->buf[p->size - 1] = (uint8_t)(scnt + 1);
            if ((rc = post_timed(p, RS_RC_WR_RDMA_WRITE, RS_RC_SEND_SIGNALED, posted, scnt,
                                 err)) != 0)
                break;
            scnt++;
        }
        rc = wait_wcs(p, &got, 0, scnt, err);    /* the write just posted completes */
    }
    return rc;
}

static int
send_lat(struct rs_perf *p, uint64_t n, uint64_t *posted, char *err)
{
    struct lat_wcs got = {0, 0};
    uint64_t scnt = 0, rcnt = 0;
    int rc = 0;

    while (rc == 0 && (scnt < n || rcnt < n)) {
        /* The client sends first: the server's first send answers it. */
        if (rcnt < n && !(scnt < 1 && p->client)) {
            if ((rc = wait_wcs(p, &got, rcnt + 1, 0, err)) != 0)
                break;
            rcnt++;
        }
        if (scnt < n) {
            /* Only the last is signaled, and waited for: the peer has had them all. */
            unsigned flags = scnt + 1 == n ? RS_RC_SEND_SIGNALED : 0;
            if ((rc = post_timed(p, RS_RC_WR_SEND, flags, posted, scnt, err)) != 0)
                break;
            scnt++;
        }
    }
    return rc == 0 ? wait_wcs(p, &got, n, 1, err) : rc;
}

/* read_lat and atomic_lat: one request at a time, each waited for. */
static int
one_sided_lat(struct rs_perf *p, uint64_t n, uint64_t *posted, char *err)
{
    struct lat_wcs got = {0, 0};

    for (uint64_t i = 0; i < n; i++) {
        int rc = post_timed(p, p->test->opcode, RS_RC_SEND_SIGNALED, posted, i, err);
        if (rc == 0)
            rc = wait_wcs(p, &got, 0, i + 1, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int
rs_perf_lat_run(struct rs_perf *p, char *err)
{
    bool pingpong = p->test->opcode == RS_RC_WR_RDMA_WRITE || p->test->opcode == RS_RC_WR_SEND;
    char row[512], json[512];

    if (!pingpong && !p->client)
        return rs_perf_serve(p, err);      /* READs and atomics need no answer from us */
    uint64_t warm = rs_perf_lat_warmup(p), n = warm + p->iters;
    uint64_t *posted = malloc(n * sizeof(*posted));
    if (posted == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    int rc = p->test->opcode == RS_RC_WR_RDMA_WRITE ? write_lat(p, n, posted, err)
             : p->test->opcode == RS_RC_WR_SEND     ? send_lat(p, n, posted, err)
                                                    : one_sided_lat(p, n, posted, err);
    if (rc == 0) {
        /* The gaps between posts after the warm-up: -n - 1 of them, or -n after one. */
        uint64_t first = warm > 0 ? warm : 1, count = n - first;
        for (uint64_t i = first; i < n; i++)
            posted[i - first] = posted[i] - posted[i - 1];
        lat_row(p, posted, count, row, sizeof(row), json, sizeof(json));
    }
    free(posted);
    if (rc != 0)
        return rc;
    if (p->client)
        return rs_perf_finish(p, LAT_HEADER, row, json, NULL, err);
    rs_perf_ack_last(p);
    if (rs_perf_is_perftest(p) && (rc = rs_perf_perftest_end(p, NULL, NULL, err)) < 0)
        return rc;
    rs_perf_read_client_end(p);
    return rs_perf_finish(p, LAT_HEADER, row, json, NULL, err);
}

const char *
rs_perf_lat_header(void)
{
    return LAT_HEADER;
}
