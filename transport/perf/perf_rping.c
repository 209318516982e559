/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_rping.c - rping's client loop (`perf rping`, as `rping -c`), over a
 * connection RDMA CM made (perf_cm.c), against `rping -s` on a NIC or
 * `roceshark responder --cm`.
 *
 * Per ping (librdmacm/examples/rping.c, rping_test_client()): the ping's
 * data goes into the source buffer (rs_oob_rping_fill()), a SEND
 * advertises it, the server READs it and SENDs a go-ahead; a SEND
 * advertises the sink buffer, the server WRITEs the ping into it and SENDs
 * another go-ahead. With -V the sink must then hold the source's bytes
 * ("data mismatch" otherwise), with -v it is printed as rping prints it
 * ("ping data: ..."). After -C pings (0: until stopped) we send the DREQ,
 * as rping's client does.
 *
 * The source is the first half of the session's buffer and the sink the
 * second, under one R_Key (rping registers two regions; the server cannot
 * tell). Unlike rping, which waits for the go-ahead as long as it takes, a
 * server that says nothing for 5 s ends the run with a reason: a responder
 * that does not run rping's loop takes the SEND and never answers.
 */
#include <inttypes.h>
#include <string.h>

#include <roceshark/dissectors/oob.h>

#include "perf_int.h"

#define GO_AHEAD_WAIT_NS 5000000000ull
/* Our two advertisements, each kept until the next ping overwrites it. */
#define MSG_REGION 4096
#define MSG_SOURCE 0
#define MSG_SINK RS_OOB_RPING_INFO_SIZE

static int
advertise(struct rs_perf *p, uint32_t slot, uint64_t va, char *err)
{
    struct rs_oob_rping_info info = {va, p->mr.rkey, (uint32_t)p->size};
    const struct rs_rc_send_wr wr = {
        .wr_id = slot,
        .opcode = RS_RC_WR_SEND,
        .flags = RS_RC_SEND_SIGNALED,
        .sge = {p->rping_mr.va + slot, RS_OOB_RPING_INFO_SIZE, p->rping_mr.lkey},
    };

    rs_oob_rping_info_format(&info, p->rping_msg + slot);
    return rs_rc_post_send(p->qp, &wr, err) < 0 ? RS_ENOMEM : 0;
}

/* Runs the transport until the server's go-ahead for ping arrives. */
static int
wait_go_ahead(struct rs_perf *p, uint64_t ping, const char *step, char *err)
{
    uint64_t deadline = rs_rc_now_ns() + GO_AHEAD_WAIT_NS;
    struct rs_rc_wc wc[8];

    for (;;) {
        if (p->stopped != NULL && p->stopped())
            return rs_error(err, RS_EINVAL, "interrupted");
        if (rs_rc_udp_poll(p->udp, p->ctx, p->busy_poll ? 0 : 10000000ull, err) < 0)
            return RS_EIO;
        const char *gone = rs_perf_cm_progress(p);
        if (gone != NULL)   /* the server's DREQ, or a failure */
            return rs_error(err, RS_EIO, "rping: the server %s the connection in ping %" PRIu64
                            " (%s)", gone, ping, step);
        int n = rs_rc_poll_cq(p->qp, wc, 8);
        bool got = false;
        for (int k = 0; k < n; k++) {
            if (wc[k].status != RS_RC_WC_SUCCESS)
                return rs_error(err, RS_EIO, "rping: ping %" PRIu64 " (%s): a %s completed with "
                                "%s", ping, step, rs_rc_wc_opcode_name(wc[k].opcode),
                                rs_rc_wc_status_name(wc[k].status));
            if (wc[k].opcode != RS_RC_WC_RECV)
                continue;
            /* rping's client_recv(): only the size is looked at. */
            if (wc[k].byte_len != RS_OOB_RPING_INFO_SIZE)
                return rs_error(err, RS_EIO, "rping: ping %" PRIu64 " (%s): the server's "
                                "go-ahead has %" PRIu32 " bytes, not %d", ping, step,
                                wc[k].byte_len, RS_OOB_RPING_INFO_SIZE);
            int rc = rs_perf_post_recv(p, (uint32_t)wc[k].wr_id, err);
            if (rc != 0)
                return rc;
            got = true;
        }
        if (got)
            return 0;
        if (rs_rc_now_ns() > deadline)
            return rs_error(err, RS_EIO, "rping: ping %" PRIu64 " (%s): no go-ahead from the "
                            "server within 5 s (does it run rping's loop? `responder --cm` "
                            "runs it on port 7174, or with --app rping)", ping, step);
    }
}

/* rping's -V: the sink holds what the source held. */
static int
validate(const struct rs_perf *p, uint64_t ping, char *err)
{
    const uint8_t *src = p->buf, *sink = p->buf + p->half;

    for (uint64_t i = 0; i < p->size; i++)
        if (src[i] != sink[i])
            return rs_error(err, RS_EIO, "rping: data mismatch in ping %" PRIu64 " at byte %"
                            PRIu64 ": sent %#04x, got back %#04x", ping, i, src[i], sink[i]);
    return 0;
}

int
rs_perf_rping_run(struct rs_perf *p, char *err)
{
    FILE *out = p->out != NULL ? p->out : stdout;
    uint64_t ping, t0 = rs_rc_now_ns();
    int rc = 0;

    p->rping_msg = rs_rc_mem_alloc(MSG_REGION);
    if (p->rping_msg == NULL)
        return rs_error(err, RS_ENOMEM, "rping: out of memory");
    if (rs_rc_mr_reg(p->ctx, p->rping_msg, MSG_REGION, 0, 0, 0, &p->rping_mr, err) < 0)
        return RS_ENOMEM;
    for (ping = 0; rc == 0 && (p->iters == 0 || ping < p->iters); ping++) {
        rs_oob_rping_fill(p->buf, (uint32_t)p->size, (uint32_t)ping);
        if ((rc = advertise(p, MSG_SOURCE, p->mr.va, err)) != 0 ||
            (rc = wait_go_ahead(p, ping, "the READ", err)) != 0 ||
            (rc = advertise(p, MSG_SINK, p->mr.va + p->half, err)) != 0 ||
            (rc = wait_go_ahead(p, ping, "the WRITE", err)) != 0)
            break;
        if (p->validate && (rc = validate(p, ping, err)) != 0)
            break;
        if (p->verbose) {
            /* rping prints the sink as a string: up to its NUL, which it always has. */
            fprintf(out, "ping data: %.*s\n", (int)p->size, (const char *)p->buf + p->half);
            fflush(out);
        }
    }
    if (rc != 0) {
        /* As rping's client does when it fails: disconnect, without waiting. */
        rs_perf_cm_abort(p);
        return rc;
    }
    if (p->json)
        fprintf(out, "{\"test\": \"rping\", \"bytes\": %" PRIu64 ", \"pings\": %" PRIu64
                ", \"validated\": %s, \"seconds\": %.6f}\n", p->size, ping,
                p->validate ? "true" : "false", (double)(rs_rc_now_ns() - t0) / 1e9);
    fflush(out);
    return rs_perf_cm_disconnect(p, err);
}

void
rs_perf_rping_release(struct rs_perf *p)
{
    if (p->rping_msg == NULL)
        return;
    if (p->rping_mr.lkey != 0)
        rs_rc_mr_dereg(p->ctx, p->rping_mr.lkey);
    rs_rc_mem_free(p->rping_msg, MSG_REGION);
    p->rping_msg = NULL;
}
