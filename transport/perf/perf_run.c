/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_run.c - what the tests share: posting, a turn of the event loop, the server that
 * serves until its client's end, and the closing messages of each exchange.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "perf_int.h"

#define PEER_CHECK_NS 10000000ull     /* how often a turn looks at the exchange's connection */
#define PEER_GONE_GRACE_NS 100000000ull /* how long packets sent before its close may come */
#define SERVER_END_NS 2000000000ull   /* how long our client waits for its server's end */

int
rs_perf_post_recv(struct rs_perf *p, uint32_t slot, char *err)
{
    /* Slots of the largest size of the run (-a's 8 MiB): a receive posted for one size
     * takes any. A QP's slots may share its area (perf_session.c). */
    uint64_t len = rs_perf_largest(p) > 0 ? rs_perf_largest(p) : 1;
    uint64_t area = p->rbuf_len / rs_perf_n_qps(p), per_area = area / len;
    uint64_t at = (slot / p->rx_depth) * area + (slot % p->rx_depth) % per_area * len;
    struct rs_rc_recv_wr wr = {slot, {p->rmr.va + at, (uint32_t)len, p->rmr.lkey}};

    return rs_rc_post_recv(rs_perf_qp(p, slot / p->rx_depth), &wr, err) < 0 ? RS_ENOMEM : 0;
}

int
rs_perf_post_op_on(struct rs_perf *p, uint32_t i, uint8_t opcode, uint64_t wr_id,
                   unsigned flags, char *err)
{
    struct rs_rc_send_wr wr;
    const struct rs_rc_conn_info *peer = rs_perf_peer(p, i);

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = wr_id;
    wr.opcode = opcode;
    wr.flags = (uint8_t)flags;
    wr.sge = (struct rs_rc_sge){p->mr.va + (uint64_t)(rs_perf_send_area(p, i) - p->buf),
                                (uint32_t)p->size, p->mr.lkey};
    wr.remote_addr = peer->va;
    wr.rkey = peer->rkey;
    return rs_rc_post_send(rs_perf_qp(p, i), &wr, err) < 0 ? RS_ENOMEM : 0;
}

int
rs_perf_post_op(struct rs_perf *p, uint8_t opcode, uint64_t wr_id, unsigned flags, char *err)
{
    return rs_perf_post_op_on(p, 0, opcode, wr_id, flags, err);
}

/* A peer gone mid-test (killed, or failed and exited) leaves a test waiting for packets
 * that never come (a latency test's next ping, whose own requests were all acknowledged),
 * polling for good. The exchange's TCP connection, idle during the test, ends with the
 * peer's process: RS_EIO once it has ended with nothing left to read. Ours and perftest's
 * exchanges keep it open to the end; ibv_rc_pingpong's closes it after the addresses. */
static int
peer_gone(struct rs_perf *p)
{
    char c;

    if (p->fd < 0 || (p->setup != RS_OOB_SETUP_ROCESHARK && p->setup != RS_OOB_SETUP_PERFTEST))
        return 0;
    uint64_t now = rs_rc_now_ns();
    if (now < p->fd_check_ns)
        return 0;
    p->fd_check_ns = now + PEER_CHECK_NS;
    ssize_t n = recv(p->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)))
        return 0;       /* open: idle, or the peer's closing lines, read after the test */
    return n == 0 ? 1 : -errno;
}

int
rs_perf_turn(struct rs_perf *p, uint64_t wait_ns, char *err)
{
    if (p->stopped != NULL && p->stopped())
        return rs_error(err, RS_EINVAL, "interrupted");
    /* Said PEER_GONE_GRACE_NS after it was seen: what the peer sent before it went (its
     * last ACK, just before its exit closed the exchange) may come after the close, from
     * another processor's loopback queue, and ends the test if it ends it. Said at once,
     * perf write_lat's client failed 1 run in 10 with all but that ACK in. */
    if (p->peer_gone != 0 && rs_rc_now_ns() - p->peer_gone_ns >= PEER_GONE_GRACE_NS)
        return rs_error(err, RS_EIO, "the %s closed the connection of the exchange mid-test "
                        "(%s)", p->client ? "server" : "client",
                        p->peer_gone == 1 ? "ended" : strerror(-p->peer_gone));
    if (rs_rc_udp_poll(p->udp, p->ctx, p->busy_poll ? 0 : wait_ns, err) < 0)
        return RS_EIO;
    if (p->peer_gone == 0 && (p->peer_gone = peer_gone(p)) != 0)
        p->peer_gone_ns = rs_rc_now_ns();
    return 0;
}

int
rs_perf_serve_until_readable(struct rs_perf *p, char *err)
{
    for (;;) {
        struct pollfd pfd[2] = {{rs_rc_udp_fd(p->udp), POLLIN, 0}, {p->fd, POLLIN, 0}};
        if (p->stopped != NULL && p->stopped())
            return rs_error(err, RS_EINVAL, "interrupted");
        rs_rc_wait(pfd, 2, p->ctx, p->udp, false);
        if (rs_rc_udp_poll(p->udp, p->ctx, 0, err) < 0)
            return RS_EIO;
        if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR))
            return 0;
    }
}

int
rs_perf_wc_failed(const struct rs_rc_wc *wc, char *err)
{
    return rs_error(err, RS_EIO, "work request %" PRIu64 " completed with %s", wc->wr_id,
                    rs_rc_wc_status_name(wc->status));
}

/* Sends the ACK each QP holds back for the peer's last request now: after the loop
 * nothing runs the transport while the exchange waits on TCP, and the peer (perftest's
 * latency server, whose last reply we took) would retry its request until it gave up. */
void
rs_perf_ack_last(struct rs_perf *p)
{
    for (uint32_t i = 0; i < rs_perf_n_qps(p); i++)
        if (rs_perf_qp(p, i) != NULL)
            rs_rc_qp_ack_now(rs_perf_qp(p, i));
    rs_rc_udp_flush(p->udp);
}

int
rs_perf_finish(struct rs_perf *p, const char *header, const char *rows, const char *json,
               const struct rs_oob_bw_report *report, char *err)
{
    char line[1024];
    FILE *out = p->out != NULL ? p->out : stdout;
    unsigned n = 0;

    rs_perf_ack_last(p);
    if (header != NULL)
        fprintf(out, "%s%s", header, rows);
    fprintf(out, "%s", RS_PERF_RESULT_LINE);
    if (p->json)
        fprintf(out, "%s\n", json);
    fflush(out);
    if (!p->client)
        return 0;
    if (rs_perf_is_perftest(p) || p->setup == RS_OOB_SETUP_CM)
        return rs_perf_client_end(p, report, err);
    /* The rows go as they are printed, one per line after the message. */
    for (const char *r = rows; *r != '\0'; r++)
        n += *r == '\n';
    snprintf(line, sizeof(line), "{\"done\": 1, \"rows\": %u, \"json\": %s}", n, json);
    if (rs_rc_side_send(p->fd, line, err) < 0)
        return 0;   /* the server gone: our results are printed all the same */
    for (const char *r = rows; *r != '\0';) {
        size_t k = strcspn(r, "\n");
        snprintf(line, sizeof(line), "%.*s", (int)k, r);
        if (rs_rc_side_send(p->fd, line, err) < 0)
            break;
        r += k + (r[k] == '\n');
    }
    /* Then the server's end: our server closes the exchange after its UDP port, so once
     * we return, its address is free for the next server (a script's next test); a
     * responder closes when we do. Bounded: our results are printed already. */
    rs_rc_side_close_lingering(p->fd, SERVER_END_NS);
    p->fd = -1;
    return 0;
}

/* Our client's closing message, {"done": 1, "rows": N, "json": ...}, and its N rows (into
 * rows, when not NULL). Returns the rows read, or -1. */
static int
read_done(struct rs_perf *p, char *json, size_t json_size, char *rows, size_t rows_size,
          char *err)
{
    char line[1024];
    uint64_t n = 1;

    if (rs_rc_side_recv(p->fd, line, sizeof(line), 10000, err) < 0)
        return -1;
    const char *at = strstr(line, "\"json\": ");
    if (at == NULL)
        return rs_error(err, RS_EIO, "unexpected message from the client"), -1;
    if (json != NULL) {
        snprintf(json, json_size, "%s", at + 8);
        json[strlen(json) - 1] = '\0';    /* the closing brace of the message */
    }
    rs_rc_json_u64(line, "rows", &n);
    if (rows != NULL)
        rows[0] = '\0';
    for (uint64_t i = 0; i < n && i < 64; i++) {
        if (rs_rc_side_recv(p->fd, line, sizeof(line), 10000, err) < 0)
            return -1;
        size_t k = rows != NULL ? strlen(rows) : 0;
        if (rows != NULL && k < rows_size)
            snprintf(rows + k, rows_size - k, "%s\n", line);
    }
    return (int)n;
}

void
rs_perf_read_client_end(struct rs_perf *p)
{
    char err[RS_ERRBUF_SIZE];

    if (p->setup == RS_OOB_SETUP_ROCESHARK)
        read_done(p, NULL, 0, NULL, 0, err);
}

/* Server of perftest's client: the exchange's end, then what perftest's server prints:
 * the client's BW report (nothing after read_lat and atomic_lat). */
static int
perftest_served(struct rs_perf *p, char *err)
{
    struct rs_oob_bw_report r;
    char row[512];
    int rc;

    memset(&r, 0, sizeof(r));
    rs_perf_ack_last(p);
    if ((rc = rs_perf_perftest_end(p, NULL, &r, err)) < 0)
        return rc;
    if (p->test->end != RS_PERF_END_REPORT)
        return 0;
    rs_perf_bw_row(p, &r, row, sizeof(row));
    return rs_perf_finish(p, rs_perf_bw_header(p), row, "{}", NULL, err);
}

int
rs_perf_serve(struct rs_perf *p, char *err)
{
    char json[1024], rows[8192];
    struct rs_rc_wc wc[64];
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
        /* Receives (our send_bw client's SENDs) are posted again as they complete. */
        for (uint32_t q = 0; q < rs_perf_n_qps(p); q++) {
            int n = rs_rc_poll_cq(rs_perf_qp(p, q), wc, 64);
            for (int i = 0; i < n; i++) {
                if (wc[i].status != RS_RC_WC_SUCCESS)
                    return rs_perf_wc_failed(&wc[i], err);
                if (wc[i].opcode == RS_RC_WC_RECV &&
                    (rc = rs_perf_post_recv(p, (uint32_t)wc[i].wr_id, err)) != 0)
                    return rc;
            }
        }
        /* The client's next message: on TCP, or on perftest -R's channel. */
        if (chan ? !rs_perf_cm_chan_ready(p) : !(pfd[1].revents & (POLLIN | POLLHUP)))
            continue;
        if (rs_perf_is_perftest(p))
            return perftest_served(p, err);
        if (read_done(p, json, sizeof(json), rows, sizeof(rows), err) < 0)
            return RS_EIO;
        p->client = false;
        return rs_perf_finish(p, p->test->latency ? rs_perf_lat_header() : rs_perf_bw_header(p),
                              rows, json, NULL, err);
    }
}

int
rs_perf_run(struct rs_perf *p, char *err)
{
    if (p->test->pingpong)
        return rs_perf_pingpong_run(p, err);
    if (p->test->rping)
        return rs_perf_rping_run(p, err);
    int rc = p->test->latency ? rs_perf_lat_run(p, err) : rs_perf_bw_run(p, err);
    /* The client disconnects in rs_perf_client_end(), after its report. */
    if (rc == 0 && !p->client)
        rc = rs_perf_disconnect(p, err);
    return rc;
}
