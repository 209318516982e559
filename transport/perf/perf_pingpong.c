/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_pingpong.c - ibv_rc_pingpong's test: its exchange, its loop and its
 * output, so that `ibv_rc_pingpong` runs against `perf pingpong` and back.
 *
 * The exchange is rdma-core's (libibverbs/examples/rc_pingpong.c): the
 * client sends its address message, the server connects its QP and answers
 * with its own, the client connects and sends "done". There is no MTU or
 * size negotiation: both sides are given the same -s, -n and -m. Then each
 * side sends a message once its previous send and one receive completed,
 * until both sent and received -n messages, and prints what the tool
 * prints.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

#include "perf_int.h"

#define STEP_TIMEOUT_MS 10000

enum { PENDING_SEND = 1, PENDING_RECV = 2 };

int
rs_perf_pingpong_exchange(struct rs_perf *p, char *err)
{
    struct rs_oob_pingpong_dest mine, theirs;
    uint8_t out[RS_OOB_PINGPONG_SIZE], in[RS_OOB_PINGPONG_SIZE], done[RS_OOB_PINGPONG_DONE_SIZE];
    int rc;

    memset(&mine, 0, sizeof(mine));
    mine.qpn = p->qpn;
    mine.psn = p->psn;
    memcpy(mine.gid, p->local_gid, 16);
    rs_oob_pingpong_format(&mine, out);
    if (p->client && (rc = rs_oob_write(p->fd, out, sizeof(out), "pingpong address", err)) < 0)
        return rc;
    if ((rc = rs_oob_read(p->fd, in, sizeof(in), STEP_TIMEOUT_MS, "pingpong address", err)) < 0 ||
        (rc = rs_oob_pingpong_parse(in, &theirs, err)) < 0)
        return rc;
    memcpy(p->peer.gid, theirs.gid, 16);   /* QP creation refuses another IP version */
    memcpy(p->theirs.gid, theirs.gid, 16);
    p->peer.qpn = theirs.qpn;
    p->peer.psn = theirs.psn;
    p->peer.pmtu = p->attr.pmtu;
    /* Both connect before the last message: the server before it answers,
     * the client before its "done", so receives are posted in time. */
    if ((rc = rs_perf_create_qp(p, err)) < 0)
        return rc;
    if (p->client)
        return rs_oob_write(p->fd, "done", RS_OOB_PINGPONG_DONE_SIZE, "pingpong done", err);
    if ((rc = rs_oob_write(p->fd, out, sizeof(out), "pingpong address", err)) < 0 ||
        (rc = rs_oob_read(p->fd, done, sizeof(done), STEP_TIMEOUT_MS, "pingpong done", err)) < 0)
        return rc;
    return rs_oob_pingpong_done_parse(done, err);
}

void
rs_perf_pingpong_header(const struct rs_perf *p)
{
    FILE *out = p->out != NULL ? p->out : stdout;
    char text[64];

    rs_oob_gid_format(p->local_gid, text, sizeof(text));
    fprintf(out, "  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n", 0, p->qpn,
            p->psn, text);
    rs_oob_gid_format(p->theirs.gid, text, sizeof(text));
    fprintf(out, "  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n", 0,
            p->peer.qpn, p->peer.psn, text);
    fflush(out);
}

static int
post_ping(struct rs_perf *p, char *err)
{
    struct rs_rc_send_wr wr;

    memset(&wr, 0, sizeof(wr));
    wr.wr_id = PENDING_SEND;
    wr.opcode = RS_RC_WR_SEND;
    wr.flags = RS_RC_SEND_SIGNALED;
    wr.sge = (struct rs_rc_sge){p->mr.va, (uint32_t)p->size, p->mr.lkey};
    return rs_rc_post_send(p->qp, &wr, err) < 0 ? RS_ENOMEM : 0;
}

int
rs_perf_pingpong_run(struct rs_perf *p, char *err)
{
    struct rs_rc_wc wc[32];
    uint64_t scnt = 0, rcnt = 0;
    unsigned pending = PENDING_RECV;
    int rc;

    uint64_t t0 = rs_rc_now_ns();
    if (p->client) {
        pending |= PENDING_SEND;
        if ((rc = post_ping(p, err)) != 0)
            return rc;
    }
    while (scnt < p->iters || rcnt < p->iters) {
        if (p->stopped != NULL && p->stopped())
            return rs_error(err, RS_EINVAL, "interrupted");
        if (rs_rc_udp_poll(p->udp, p->ctx, p->busy_poll ? 0 : 100000000, err) < 0)
            return RS_EIO;
        int n = rs_rc_poll_cq(p->qp, wc, 32);
        for (int i = 0; i < n; i++) {
            if (wc[i].status != RS_RC_WC_SUCCESS)
                return rs_error(err, RS_EIO, "%s completed with %s",
                                wc[i].opcode == RS_RC_WC_RECV ? "a receive" : "a send",
                                rs_rc_wc_status_name(wc[i].status));
            if (wc[i].opcode == RS_RC_WC_RECV) {
                rcnt++;
                pending &= ~(unsigned)PENDING_RECV;
                if ((rc = rs_perf_post_recv(p, (uint32_t)wc[i].wr_id, err)) != 0)
                    return rc;
            } else {
                scnt++;
                pending &= ~(unsigned)PENDING_SEND;
            }
            if (scnt < p->iters && pending == 0) {
                pending = PENDING_SEND | PENDING_RECV;
                if ((rc = post_ping(p, err)) != 0)
                    return rc;
            }
        }
    }
    double usec = (double)(rs_rc_now_ns() - t0) / 1000.0;
    /* A NIC acknowledges our peer's last message after we are done with
     * it; we must stay long enough to do the same (ACKs are held briefly). */
    for (uint64_t end = rs_rc_now_ns() + 20000000; rs_rc_now_ns() < end;)
        if (rs_rc_udp_poll(p->udp, p->ctx, 1000000, err) < 0)
            break;
    long long bytes = (long long)p->size * (long long)p->iters * 2;
    FILE *out = p->out != NULL ? p->out : stdout;
    fprintf(out, "%lld bytes in %.2f seconds = %.2f Mbit/sec\n", bytes, usec / 1e6,
            (double)bytes * 8.0 / usec);
    fprintf(out, "%" PRIu64 " iters in %.2f seconds = %.2f usec/iter\n", p->iters, usec / 1e6,
            usec / (double)p->iters);
    fflush(out);
    return 0;
}
