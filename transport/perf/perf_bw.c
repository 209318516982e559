/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_bw.c - perftest's bandwidth tests (write_bw, read_bw, send_bw, atomic_bw) as perftest
 * runs them (its perftest_resources.c: run_iter_bw(), run_iter_bw_server(), run_iter_bi();
 * and each test's main()): tx_depth requests in flight on each of -q QPs, -n on each (or -D
 * seconds), at one size or (-a) at every size from 2 bytes to 8 MiB. With -b both sides
 * run at once and each prints the sum of the two directions (--report-both: each one too).
 * A one-way test's server serves, then prints the client's report; send_bw's server its
 * own count of what it received. The table's iterations are all QPs' messages, as
 * perftest counts them.
 *
 * The steps between the sizes are perftest's: a barrier before each size of send_bw -a
 * and after it, before each size of a -b test and after it with -a, and the two sides'
 * reports after each size of a -b test. Over our own exchange a -b size ends with the two
 * reports as JSON lines, which are its barrier.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "perf_int.h"

#define BW_HEADER " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
#define BW_HEADER_G " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
#define MB (1024.0 * 1024.0)    /* perftest's MB */
#define GB_BITS 125000000.0     /* bytes per second in a Gb/s, as perftest's --report_gbits */

const char *
rs_perf_bw_header(const struct rs_perf *p)
{
    return p->report_gbits ? BW_HEADER_G : BW_HEADER;
}

/* Bytes per second in the unit of the table. */
static double
bw_unit(const struct rs_perf *p, double bytes_per_sec)
{
    return bytes_per_sec / (p->report_gbits ? GB_BITS : MB);
}

void
rs_perf_bw_row(const struct rs_perf *p, const struct rs_oob_bw_report *r, char *row, size_t size)
{
    /* As perftest prints it: six decimals when Gb/s would round to zero. */
    if (p->report_gbits && r->bw_avg < 0.1)
        snprintf(row, size, " %-7" PRIu64 "    %" PRIu64 "           %-7.6f            %-7.6f"
                 "            %-7.6f\n", r->size, r->iters, r->bw_peak, r->bw_avg, r->msg_rate);
    else
        snprintf(row, size, " %-7" PRIu64 "    %-10" PRIu64 "       %-7.2f            %-7.2f"
                 "\t\t   %-7.6f\n", r->size, r->iters, r->bw_peak, r->bw_avg, r->msg_rate);
}

static bool
is_send(const struct rs_perf *p)
{
    return p->test->opcode == RS_RC_WR_SEND;
}

/* What one size of the run did. */
struct bw_size {
    uint64_t posted[RS_PERF_MAX_QPS], done[RS_PERF_MAX_QPS];
    uint64_t recvs, recv_first_ns, recv_last_ns;
};

/* Takes the completions of every QP: sends done per QP, receives (posted again). */
static int
reap(struct rs_perf *p, struct bw_size *z, char *err)
{
    struct rs_rc_wc wc[64];

    for (uint32_t q = 0; q < rs_perf_n_qps(p); q++) {
        int n = rs_rc_poll_cq(rs_perf_qp(p, q), wc, 64);
        for (int i = 0; i < n; i++) {
            if (wc[i].status != RS_RC_WC_SUCCESS)
                return rs_perf_wc_failed(&wc[i], err);
            if (wc[i].opcode != RS_RC_WC_RECV) {
                z->done[q]++;
                continue;
            }
            z->recv_last_ns = rs_rc_now_ns();
            if (z->recvs++ == 0)
                z->recv_first_ns = z->recv_last_ns;
            int rc = rs_perf_post_recv(p, (uint32_t)wc[i].wr_id, err);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

/* One size, requester side (the client, or both sides with -b): tx_depth in flight on each
 * QP until -n each (or -D), then every completion; with -b send_bw, the peer's SENDs
 * received too. */
static int
run_size(struct rs_perf *p, struct rs_oob_bw_report *r, char *err)
{
    struct bw_size z;
    uint32_t nq = rs_perf_n_qps(p);
    uint64_t limit = p->duration > 0 ? UINT64_MAX : p->iters, total = 0, win_done = 0;
    uint64_t recvs_due = p->duplex && is_send(p) && p->duration == 0 ? p->iters * nq : 0;
    uint64_t window = p->iters * nq / 20 > p->tx_depth ? p->iters * nq / 20 : p->tx_depth;
    double peak = 0;
    int rc;

    memset(&z, 0, sizeof(z));
    uint64_t t0 = rs_rc_now_ns(), win_start = t0;
    uint64_t stop_ns = p->duration > 0 ? t0 + (uint64_t)(p->duration * 1e9) : UINT64_MAX;
    for (;;) {
        bool idle = true;
        if (rs_rc_now_ns() >= stop_ns)
            limit = 0;      /* -D: time is up; what is posted completes */
        for (uint32_t q = 0; q < nq; q++) {
            while (z.posted[q] < limit && z.posted[q] - z.done[q] < p->tx_depth) {
                if ((rc = rs_perf_post_op_on(p, q, p->test->opcode, z.posted[q],
                                             RS_RC_SEND_SIGNALED, err)) != 0)
                    return rc;
                z.posted[q]++;
            }
            idle &= z.done[q] == z.posted[q] && (limit == 0 || z.posted[q] >= limit);
        }
        if (idle && z.recvs >= recvs_due)
            break;
        if ((rc = rs_perf_turn(p, 100000000, err)) != 0 || (rc = reap(p, &z, err)) != 0)
            return rc;
        total = 0;
        for (uint32_t q = 0; q < nq; q++)
            total += z.done[q];
        if (total - win_done >= window) {
            uint64_t now = rs_rc_now_ns();
            double bw = (double)(total - win_done) * (double)p->size /
                        ((double)(now - win_start) / 1e9);
            peak = bw > peak ? bw : peak;
            win_start = now;
            win_done = total;
        }
    }
    total = 0;
    for (uint32_t q = 0; q < nq; q++)
        total += z.done[q];
    double secs = (double)(rs_rc_now_ns() - t0) / 1e9;
    double avg = (double)total * (double)p->size / secs;
    if (peak < avg)
        peak = avg;     /* a run shorter than one window */
    *r = (struct rs_oob_bw_report){p->size, total, bw_unit(p, peak), bw_unit(p, avg),
                                   (double)total / secs / 1e6};
    return 0;
}

/* send_bw's server, one size: what the client sent, counted until -n on each QP or until
 * the client's next message (it is done: perftest's exchange does not say its -n), timed
 * from the first to the last. */
static int
count_receives(struct rs_perf *p, struct rs_oob_bw_report *r, char *err)
{
    struct bw_size z;
    uint64_t due = p->duration > 0 ? UINT64_MAX : p->iters * rs_perf_n_qps(p);
    bool chan = p->setup == RS_OOB_SETUP_PERFTEST_CM;
    int rc;

    memset(&z, 0, sizeof(z));
    for (uint64_t loops = 0; z.recvs < due; loops++) {
        struct pollfd pfd[2] = {{rs_rc_udp_fd(p->udp), POLLIN, 0}, {p->fd, POLLIN, 0}};
        if (!p->busy_poll)
            rs_rc_wait(pfd, 2, p->ctx, p->udp, false);
        else if ((loops & 1023) == 0)
            poll(pfd + 1, 1, 0);    /* the exchange: rarely, off the fast path */
        if ((rc = rs_perf_turn(p, 0, err)) != 0 || (rc = reap(p, &z, err)) != 0)
            return rc;
        if (chan ? rs_perf_cm_chan_ready(p) : (pfd[1].revents & (POLLIN | POLLHUP)) != 0)
            break;
    }
    double secs = (double)(z.recv_last_ns - z.recv_first_ns) / 1e9;
    memset(r, 0, sizeof(*r));
    r->size = p->size;
    r->iters = z.recvs;
    if (secs > 0) {
        r->bw_avg = r->bw_peak = bw_unit(p, (double)z.recvs * (double)p->size / secs);
        r->msg_rate = (double)z.recvs / secs / 1e6;
    }
    return 0;
}

/* A barrier of the exchange in use (none over CM's cm://, which runs one way only). */
static int
barrier(struct rs_perf *p, const char *what, char *err)
{
    rs_perf_ack_last(p);    /* the peer may be waiting for the ACK of its last request */
    if (rs_perf_is_perftest(p))
        return rs_perf_perftest_sync(p, err) < 0 ? RS_EIO : 0;
    if (p->setup == RS_OOB_SETUP_ROCESHARK)
        return rs_perf_side_sync(p, what, err);
    return 0;
}

/* -b: each side's report to the other, after each size. */
static int
reports(struct rs_perf *p, const struct rs_oob_bw_report *mine, struct rs_oob_bw_report *theirs,
        char *err)
{
    char out[512], line[512];

    rs_perf_ack_last(p);
    if (rs_perf_is_perftest(p))
        return rs_perf_perftest_reports(p, mine, theirs, err) < 0 ? RS_EIO : 0;
    snprintf(out, sizeof(out), "{\"size\": %" PRIu64 ", \"iters\": %" PRIu64 ", \"peak\": "
             "%.17g, \"avg\": %.17g, \"rate\": %.17g}", mine->size, mine->iters, mine->bw_peak,
             mine->bw_avg, mine->msg_rate);
    if ((p->client && rs_rc_side_send(p->fd, out, err) < 0) ||
        rs_perf_serve_until_readable(p, err) < 0 ||
        rs_rc_side_recv(p->fd, line, sizeof(line), 10000, err) < 0 ||
        (!p->client && rs_rc_side_send(p->fd, out, err) < 0))
        return RS_EIO;
    memset(theirs, 0, sizeof(*theirs));
    if (!rs_rc_json_u64(line, "size", &theirs->size) ||
        !rs_rc_json_u64(line, "iters", &theirs->iters))
        return rs_error(err, RS_EIO, "the peer's report: %.100s", line);
    /* Doubles in JSON: strtod where the keys are. */
    const char *keys[3] = {"\"peak\": ", "\"avg\": ", "\"rate\": "};
    double *vals[3] = {&theirs->bw_peak, &theirs->bw_avg, &theirs->msg_rate};
    for (int i = 0; i < 3; i++) {
        const char *at = strstr(line, keys[i]);
        *vals[i] = at != NULL ? strtod(at + strlen(keys[i]), NULL) : 0;
    }
    return 0;
}

/* Appends text to the table being built (its rows, for our client's last line). */
static void
append(char *table, size_t size, const char *text)
{
    size_t n = strlen(table);

    if (n < size)
        snprintf(table + n, size - n, "%s", text);
}

/* --report-both: after the sum, each direction in a table of its own, as perftest. */
static void
print_both(struct rs_perf *p, FILE *out, const struct rs_oob_bw_report *mine,
           const struct rs_oob_bw_report *theirs)
{
    char row[256];

    for (int i = 0; i < 2; i++) {
        fprintf(out, "%s\n %s results: \n%s%s", RS_PERF_RESULT_LINE, i == 0 ? "Local" : "Remote",
                RS_PERF_RESULT_LINE, rs_perf_bw_header(p));
        rs_perf_bw_row(p, i == 0 ? mine : theirs, row, sizeof(row));
        fputs(row, out);
    }
}

/* The requester side: the client, or both sides with -b. */
static int
run_requester(struct rs_perf *p, char *err)
{
    FILE *out = p->out != NULL ? p->out : stdout;
    struct rs_oob_bw_report mine = {0}, theirs = {0}, sum = {0};
    char row[256], rows[8192], json[512];
    bool send_all = is_send(p) && p->all_sizes;
    uint64_t last = p->all_sizes ? RS_PERF_ALL_MAX : p->size;
    int rc;

    /* perftest's barriers (see the top); our own exchange needs one before each size of
     * -b only (the peer's QPs and receives are ready), the reports after it being another. */
    bool perftest = rs_perf_is_perftest(p);
    bool before = perftest ? send_all || (p->duplex && !is_send(p)) : p->duplex;
    bool after_run = perftest && p->duplex && p->all_sizes && !is_send(p);
    bool after_size = perftest && send_all;

    rows[0] = '\0';
    fputs(rs_perf_bw_header(p), out);
    for (uint64_t size = p->all_sizes ? 2 : p->size; size <= last; size *= 2) {
        p->size = size;
        if (before && (rc = barrier(p, "size", err)) != 0)
            return rc;
        if ((rc = run_size(p, &mine, err)) != 0)
            return rc;
        if (after_run && (rc = barrier(p, "ran", err)) != 0)
            return rc;
        sum = mine;
        if (p->duplex) {
            if ((rc = reports(p, &mine, &theirs, err)) != 0)
                return rc;
            sum.bw_peak += theirs.bw_peak;
            sum.bw_avg += theirs.bw_avg;
            sum.msg_rate += theirs.msg_rate;
        }
        rs_perf_bw_row(p, &sum, row, sizeof(row));
        fputs(row, out);
        fflush(out);
        append(rows, sizeof(rows), row);
        if (after_size && (rc = barrier(p, "size done", err)) != 0)
            return rc;
        if (!p->all_sizes)
            break;
    }
    if (p->duplex && p->report_both)
        print_both(p, out, &mine, &theirs);
    double secs = mine.msg_rate > 0 ? (double)mine.iters / (mine.msg_rate * 1e6) : 0;
    snprintf(json, sizeof(json),
             "{\"test\": \"%s\", \"bytes\": %" PRIu64 ", \"iterations\": %" PRIu64
             ", \"bw_peak_mb\": %.2f, \"bw_average_mb\": %.2f, \"bytes_per_second\": %.0f"
             ", \"msg_rate_mpps\": %.6f, \"seconds\": %.6f, \"qps\": %" PRIu32
             ", \"duplex\": %s}",
             p->test->name, sum.size, sum.iters,
             sum.bw_peak * (p->report_gbits ? GB_BITS : MB) / MB,
             sum.bw_avg * (p->report_gbits ? GB_BITS : MB) / MB,
             sum.bw_avg * (p->report_gbits ? GB_BITS : MB), sum.msg_rate, secs,
             rs_perf_n_qps(p), p->duplex ? "true" : "false");
    if (!p->client) {   /* -b's server: the close, then our table's end */
        rs_perf_ack_last(p);
        if (rs_perf_is_perftest(p) && (rc = rs_perf_perftest_end(p, NULL, NULL, err)) < 0)
            return rc;
        if (p->setup == RS_OOB_SETUP_ROCESHARK)
            rs_perf_read_client_end(p);
    }
    return rs_perf_finish(p, NULL, rows, json, &mine, err);
}

/* send_bw's server (one way): its own count of each size, between perftest's barriers. */
static int
run_send_server(struct rs_perf *p, char *err)
{
    FILE *out = p->out != NULL ? p->out : stdout;
    struct rs_oob_bw_report r, fewest;
    char row[256];
    uint64_t last = p->all_sizes ? RS_PERF_ALL_MAX : p->size, want = p->iters * rs_perf_n_qps(p);
    int rc;

    memset(&fewest, 0, sizeof(fewest));
    fewest.iters = UINT64_MAX;
    fputs(rs_perf_bw_header(p), out);
    for (uint64_t size = p->all_sizes ? 2 : p->size; size <= last; size *= 2) {
        p->size = size;
        if (p->all_sizes && (rc = barrier(p, "size", err)) != 0)
            return rc;
        if ((rc = count_receives(p, &r, err)) != 0)
            return rc;
        rs_perf_bw_row(p, &r, row, sizeof(row));
        fputs(row, out);
        fflush(out);
        if (r.iters < fewest.iters)
            fewest = r;
        if (p->all_sizes && (rc = barrier(p, "size done", err)) != 0)
            return rc;
        if (!p->all_sizes)
            break;
    }
    rs_perf_ack_last(p);
    if ((rc = rs_perf_perftest_end(p, NULL, NULL, err)) < 0 ||
        (rc = rs_perf_finish(p, NULL, "", "{}", NULL, err)) != 0)
        return rc;
    /* After the exchange's end, which the client waits for. */
    if (p->duration == 0 && fewest.iters < want)
        return rs_error(err, RS_EIO, "the client finished after %" PRIu64 " of %" PRIu64
                        " messages (%" PRIu64 " bytes)", fewest.iters, want, fewest.size);
    return 0;
}

int
rs_perf_bw_run(struct rs_perf *p, char *err)
{
    if (p->client || p->duplex)
        return run_requester(p, err);
    if (is_send(p) && rs_perf_is_perftest(p))
        return run_send_server(p, err);
    return rs_perf_serve(p, err);
}
