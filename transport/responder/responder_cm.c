/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * responder_cm.c - the responder as RDMA CM's passive side: a REQ gets a QP
 * and a REP, a DREQ (or a connection that never completes) destroys it.
 *
 * The REP names our first region in its private data (RS_CM_REGION_LEN
 * bytes, include/roceshark/transport/cm.h), which is where our own perf client finds
 * what to READ and WRITE; rdma_cm's applications ignore it. The responder
 * takes as many READs and atomics as the REQ's initiator depth asks, up to
 * its own max_dest_rd_atomic, and sends none, unless it runs rping's
 * server loop (responder_rping.c), which READs. The QP's path MTU is the
 * REQ's, or our port's active MTU when that is smaller.
 *
 * Which connections run rping's loop (--app): by default those for rping's
 * port, 7174. The REQ says nothing else about its application: rping puts
 * no private data of its own after rdma_cm's header, so the service ID
 * (the port) is all there is, and `rping -c -a IP` without -p is what an
 * engineer types. --app rping serves every port (rping -p N), --app none
 * leaves even 7174 to the peer.
 */
#include <inttypes.h>
#include <string.h>

#include <roceshark/dissectors/oob.h>
#include <roceshark/dissectors/wire.h>

#include "responder_int.h"

/* A REQ we cannot serve: said on the log, and a REJ for lack of resources. */
static uint16_t
refuse(const struct rs_responder *r, uint32_t id, const char *why)
{
    fprintf(resp_log(r), "roceshark: responder: CM: REQ %#x refused: %s\n", id, why);
    return RS_CM_REJ_NO_RESOURCES;
}

static uint16_t
cm_request(void *arg, uint32_t id, uint16_t port, const struct rs_cm_params *peer,
           struct rs_cm_params *ours)
{
    struct rs_responder *r = arg;
    const struct rs_rc_qp_attr *a = &r->o.attr;
    char err[RS_ERRBUF_SIZE];

    if (r->o.cm_port != 0 && port != r->o.cm_port)
        return RS_CM_REJ_INVALID_SERVICE_ID;
    /* The active side chose the path, and its MTU (the REP has no MTU of
     * its own): the QP takes the REQ's, whatever --pmtu said, unless our
     * port cannot carry it (then neither can the peer's packets reach us). */
    uint32_t pmtu = rs_rc_path_mtu(rs_rc_udp_active_mtu(r->udp), peer->pmtu, 0);
    uint32_t qpn = resp_next_qpn(r);
    /* As rdma_cm's passive side, the QP's ACK timeout is the REQ's Local ACK Timeout. */
    uint8_t timeout = peer->ack_timeout != 0 ? peer->ack_timeout : r->o.attr.timeout;
    if (resp_add_qp(r, qpn, peer->gid, peer->qpn, peer->psn, pmtu, timeout, err) != 0) {
        if (r->n_qp > 0 && rs_rc_qp_num(r->qp[r->n_qp - 1].qp) == qpn)
            resp_remove_qp(r, r->n_qp - 1);     /* created, but its buffers were not */
        return refuse(r, id, err);
    }
    struct resp_qp *q = &r->qp[r->n_qp - 1];
    q->cm_id = id;
    bool rping = r->o.app == RS_RESPONDER_APP_RPING ||
                 (r->o.app == RS_RESPONDER_APP_AUTO && port == RS_OOB_RPING_PORT);
    if (rping && resp_rping_start(r, q, err) != 0) {
        resp_remove_qp(r, r->n_qp - 1);
        return refuse(r, id, err);
    }
    ours->qpn = qpn;
    ours->psn = r->o.psn;
    ours->pmtu = pmtu;
    ours->pkey = a->pkey;
    ours->responder_resources =
        peer->initiator_depth < a->max_dest_rd_atomic ? peer->initiator_depth
                                                      : a->max_dest_rd_atomic;
    /* rping's server READs: as many at once as the client takes, which it
     * learns from here (its QP's max_dest_rd_atomic is the REP's initiator
     * depth); the plain responder sends none. */
    ours->initiator_depth = 0;
    if (rping)
        ours->initiator_depth = peer->responder_resources < a->max_rd_atomic
                                    ? peer->responder_resources : a->max_rd_atomic;
    ours->rnr_retry_count = a->rnr_retry;
    rs_cm_region_write(r->mr[0].mr.rkey, r->mr[0].mr.va, r->mr[0].mr.length,
                       ours->private_data);
    ours->private_len = RS_CM_REGION_LEN;
    return 0;
}

static void
cm_event(void *arg, const struct rs_cm_event *ev)
{
    struct rs_responder *r = arg;
    char peer[48];
    unsigned i = 0;

    while (i < r->n_qp && r->qp[i].cm_id != ev->id)
        i++;
    if (r->o.cm_out != NULL) {
        rs_cm_gid_format(ev->peer->gid, peer, sizeof(peer));
        fprintf(r->o.cm_out,
                "{\"cm\": \"%s\", \"id\": %" PRIu32 ", \"qpn\": %" PRIu32 ", \"peer\": \"%s\", "
                "\"peer_port\": %u, \"peer_qpn\": %" PRIu32 ", \"peer_psn\": %" PRIu32
                ", \"reason\": %u}\n",
                rs_cm_event_name(ev->type), ev->id, ev->ours->qpn, peer, ev->peer->port,
                ev->peer->qpn, ev->peer->psn, ev->reason);
        fflush(r->o.cm_out);
    }
    if (ev->type == RS_CM_EV_CONNECTED && i < r->n_qp && r->qp[i].rping != NULL)
        resp_rping_connected(r, &r->qp[i]);
    else if (ev->type != RS_CM_EV_CONNECTED && i < r->n_qp)
        resp_remove_qp(r, i);
}

int
resp_cm_open(struct rs_responder *r, char *err)
{
    struct rs_cm_opts o;

    rs_cm_opts_init(&o);
    rs_cm_opts_set_gid(&o, r->o.local_gid);
    o.id_seed = (uint32_t)rs_rc_now_ns();
    o.ops.request = cm_request;
    o.ops.event = cm_event;
    o.ops.arg = r;
    if (rs_cm_create(&r->cm, &o, err) < 0)
        return RS_ENOMEM;
    rs_cm_rc_attach(r->cm, r->ctx);
    return 0;
}
