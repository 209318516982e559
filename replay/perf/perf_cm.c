/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_cm.c - a client's connection through RDMA CM (--connect cm://, -R):
 * REQ, REP and RTU on QP 1 before the test, DREQ and DREP after it.
 *
 * CM carries QPs, PSNs and, in its private data, what the application puts
 * there; perftest -R's test parameters do not travel in it, so each side
 * takes its size and iterations from its own command line, as perftest -R
 * does. A WRITE or READ test needs the server's region: our responder names
 * it in the REP (RS_CM_REGION_LEN bytes, include/roceshark/cm.h).
 */
#include <inttypes.h>
#include <string.h>

#include <roceshark/wire.h>

#include "perf_int.h"

/* Our answers' timeout and retries: 1.07 s each, 3 retries, so a server that
 * is not there is reported within 5 s rather than rdma_cm's minute. */
#define CM_RESPONSE_TIMEOUT 18
#define CM_RETRIES 3
#define CM_WAIT_NS 10000000ull

static void
on_event(void *arg, const struct rs_cm_event *ev)
{
    struct rs_perf *p = arg;

    p->cm_done = true;
    p->cm_event = ev->type;
    p->cm_reason = ev->reason;
    p->cm_unanswered = ev->unanswered;
    if (ev->type == RS_CM_EV_CONNECTED)
        p->cm_peer = *ev->peer;
}

/* Runs the transport and the CM's timers until the CM tells what happened. */
static int
wait_event(struct rs_perf *p, char *err)
{
    p->cm_done = false;
    while (!p->cm_done) {
        if (p->stopped != NULL && p->stopped())
            return rs_error(err, RS_EINVAL, "interrupted");
        if (rs_rc_udp_poll(p->udp, p->ctx, CM_WAIT_NS, err) < 0)
            return RS_EIO;
        rs_cm_progress(p->cm, rs_rc_now_ns());
        rs_rc_udp_flush(p->udp);
    }
    return 0;
}

static int
failed(const struct rs_perf *p, const char *what, char *err)
{
    if (p->cm_event == RS_CM_EV_REJECTED)
        return rs_error(err, RS_EIO, "CM: the server rejected the %s: %s (reason %u)", what,
                        rs_cm_rej_reason_name(p->cm_reason), p->cm_reason);
    return rs_error(err, RS_EIO, "CM: no answer to our %s after %d tries",
                    p->cm_unanswered != NULL ? p->cm_unanswered : "MAD", CM_RETRIES + 1);
}

int
rs_perf_cm_connect(struct rs_perf *p, char *err)
{
    struct rs_cm_opts o;
    struct rs_cm_params ours;
    uint8_t server[16];

    rs_cm_opts_init(&o);
    rs_cm_opts_set_gid(&o, p->local_gid);
    memcpy(server, p->server_gid, 16);
    o.response_timeout = CM_RESPONSE_TIMEOUT;
    o.max_retries = CM_RETRIES;
    o.id_seed = p->psn + 1;
    o.ops.event = on_event;
    o.ops.arg = p;
    if (rs_cm_create(&p->cm, &o, err) < 0)
        return RS_ENOMEM;
    rs_cm_rc_attach(p->cm, p->ctx);

    memset(&ours, 0, sizeof(ours));
    ours.port = (uint16_t)(0xc000 | (p->psn & 0x3fff));    /* as an ephemeral port */
    ours.qpn = p->qpn;
    ours.psn = p->psn;
    ours.pmtu = p->attr.pmtu;
    ours.pkey = p->attr.pkey;
    ours.responder_resources = p->attr.max_dest_rd_atomic;
    ours.initiator_depth = p->attr.max_rd_atomic;
    ours.retry_count = p->attr.retry_cnt;
    ours.rnr_retry_count = p->attr.rnr_retry;
    ours.ack_timeout = p->attr.timeout;
    rs_cm_region_write(p->mr.rkey, p->mr.va + p->half, p->half, ours.private_data);
    ours.private_len = RS_CM_REGION_LEN;
    int rc = rs_cm_connect(p->cm, server, p->port, &ours, rs_rc_now_ns(), &p->cm_id, err);
    if (rc != 0 || (rc = wait_event(p, err)) != 0)
        return rc;
    if (p->cm_event != RS_CM_EV_CONNECTED)
        return failed(p, "REQ", err);

    const struct rs_cm_params *peer = &p->cm_peer;
    memset(&p->peer, 0, sizeof(p->peer));
    memcpy(p->peer.gid, peer->gid, 16);
    p->peer.qpn = peer->qpn;
    p->peer.psn = peer->psn;
    p->peer.pmtu = p->attr.pmtu;
    if (!rs_cm_region_read(peer->private_data, peer->private_len, &p->peer.rkey, &p->peer.va,
                           &p->peer.length) &&
        p->test->opcode != RS_RC_WR_SEND)
        return rs_error(err, RS_EINVAL, "CM: the server's REP names no region to %s "
                        "(only our responder does); send_bw and send_lat need none",
                        p->test->opcode == RS_RC_WR_RDMA_READ ? "READ" : "WRITE");
    /* As many READs and atomics outstanding as the server said it takes. */
    if (peer->responder_resources > 0 && peer->responder_resources < p->attr.max_rd_atomic)
        p->attr.max_rd_atomic = peer->responder_resources;
    return rs_perf_create_qp(p, err);
}

int
rs_perf_cm_disconnect(struct rs_perf *p, char *err)
{
    int rc = rs_cm_disconnect(p->cm, p->cm_id, rs_rc_now_ns(), err);

    if (rc != 0 || (rc = wait_event(p, err)) != 0)
        return rc;
    return p->cm_event == RS_CM_EV_DISCONNECTED ? 0 : failed(p, "DREQ", err);
}

void
rs_perf_cm_release(struct rs_perf *p)
{
    if (p->cm == NULL)
        return;
    rs_rc_gsi_register(p->ctx, NULL, NULL);
    rs_cm_destroy(p->cm);
    p->cm = NULL;
}
