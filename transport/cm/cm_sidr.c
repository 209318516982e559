/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm_sidr.c - Service ID Resolution (IBTA Vol 1, 12.11): how rdma_cm finds
 * the QP number and Q_Key of a UD service (RDMA_PS_UDP, udaddy's).
 *
 *   active:  resolve -> SIDR_REQ_SENT --SIDR_REP--> SIDR_REPLY, forgotten
 *            (unanswered after every retry: TIMEOUT "SIDR_REQ")
 *   passive: SIDR_REQ -> SIDR_REQ_RCVD (held for the consumer) --answer-->
 *            SIDR_REP, forgotten
 *
 * No connection follows, so nothing is kept once answered, as Linux's CM:
 * a SIDR_REQ repeated while held is dropped, one repeated after the answer
 * is a new request. The SIDR_REQ carries rdma_cm's IP header in its private
 * data, as a REQ does; it waits for its answer as a REQ does.
 */
#include <string.h>

#include "cm_int.h"

/* The request of gid's request_id in state (SIDR_REQ_RCVD: held for the consumer;
 * SIDR_REQ_SENT: ours, waiting for its answer), or NULL. */
static struct cm_conn *
find(struct rs_cm *cm, enum cm_state state, const uint8_t gid[16], uint32_t request_id)
{
    for (unsigned i = 0; i < RS_CM_MAX_CONNS; i++) {
        struct cm_conn *c = &cm->conn[i];
        if (c->state == state && c->request_id == request_id &&
            memcmp(c->peer_mad_gid, gid, 16) == 0)
            return c;
    }
    return NULL;
}

/* A SIDR_REP of status for a request we hold no slot for. */
static void
refuse(struct rs_cm *cm, const uint8_t gid[16], uint32_t qp, uint64_t tid, uint32_t request_id,
       uint16_t port, uint8_t status)
{
    struct cm_conn c;
    uint8_t mad[RS_CM_MAD_LEN];

    memset(&c, 0, sizeof(c));
    c.tid = tid;
    c.request_id = request_id;
    c.ours.port = port;
    cm_msg_sidr_rep(mad, &c, status);
    cm_send_mad(cm, gid, qp, mad);
}

static void
on_sidr_req(struct rs_cm *cm, const uint8_t gid[16], uint32_t qp, const struct rs_cm_mad_hdr *h,
            const uint8_t *msg)
{
    const struct rs_cm_layout *l = rs_cm_layout(RS_CM_SIDR_REQ);
    uint32_t request_id = (uint32_t)rs_cm_get(l, msg, RS_CMF_REQUEST_ID);
    struct rs_cm_params peer;
    uint16_t port;
    struct cm_conn *c;

    if (find(cm, CM_SIDR_REQ_RCVD, gid, request_id) != NULL) {
        cm->cnt.dup_req++;      /* the consumer has it: its answer will go */
        return;
    }
    if (!cm_read_sidr_req(msg, gid, &peer, &port)) {
        refuse(cm, gid, qp, h->tid, request_id, port, RS_CM_SIDR_UNSUPPORTED);
        return;
    }
    /* Held requests from one address are bounded as half-open connections are. */
    if (cm_half_open(cm, gid) >= cm->o.max_half_open_per_peer ||
        (c = cm_conn_new(cm)) == NULL) {
        cm->cnt.rej_half_open++;
        refuse(cm, gid, qp, h->tid, request_id, port, RS_CM_SIDR_NO_QP);
        return;
    }
    cm_conn_passive(cm, c, gid, qp, h->tid, &peer, port);
    c->request_id = request_id;
    c->state = CM_SIDR_REQ_RCVD;
    uint16_t status = cm->o.ops.sidr_request == NULL
                          ? RS_CM_SIDR_UNSUPPORTED
                          : cm->o.ops.sidr_request(cm->o.ops.arg, c->local_id, port, &c->peer);
    if (status == RS_CM_HOLD)
        return;     /* rs_cm_sidr_answer() answers */
    if (status != RS_CM_IGNORE) {
        uint8_t mad[RS_CM_MAD_LEN];
        cm_msg_sidr_rep(mad, c, (uint8_t)(status == RS_CM_SIDR_VALID ? RS_CM_SIDR_REJECT
                                                                      : status));
        cm_send_mad(cm, gid, qp, mad);
    }
    cm_conn_free(c);
}

static void
on_sidr_rep(struct rs_cm *cm, const uint8_t gid[16], const uint8_t *msg)
{
    const struct rs_cm_layout *l = rs_cm_layout(RS_CM_SIDR_REP);
    struct cm_conn *c =
        find(cm, CM_SIDR_REQ_SENT, gid, (uint32_t)rs_cm_get(l, msg, RS_CMF_REQUEST_ID));

    if (c == NULL) {
        cm->cnt.drop_unknown++;     /* a late copy: the first answer was taken */
        return;
    }
    uint16_t port = c->peer.port;
    cm_read_sidr_rep(msg, gid, &c->peer);
    c->peer.port = port;
    c->deadline_ns = 0;
    cm_tell(cm, c, RS_CM_EV_SIDR_REPLY, (uint16_t)rs_cm_get(l, msg, RS_CMF_SIDR_STATUS), NULL);
    cm_conn_free(c);
}

void
cm_sidr_input(struct rs_cm *cm, const uint8_t gid[16], uint32_t qp,
              const struct rs_cm_mad_hdr *h, const uint8_t *msg)
{
    if (h->attr_id == RS_CM_SIDR_REQ)
        on_sidr_req(cm, gid, qp, h, msg);
    else
        on_sidr_rep(cm, gid, msg);
}

int
rs_cm_sidr_resolve(struct rs_cm *cm, const uint8_t peer_gid[16], uint16_t port,
                   const struct rs_cm_params *ours, uint64_t now_ns, uint32_t *id, char *err)
{
    struct cm_conn *c = cm_conn_active(cm, peer_gid, port, ours, err);

    if (c == NULL)
        return RS_ENOMEM;
    c->request_id = c->local_id;
    c->state = CM_SIDR_REQ_SENT;
    cm_msg_sidr_req(c);
    cm_send_waiting(cm, c, now_ns);
    *id = c->local_id;
    return 0;
}

int
rs_cm_sidr_answer(struct rs_cm *cm, uint32_t id, uint8_t status,
                  const struct rs_cm_params *ours, char *err)
{
    struct cm_conn *c = cm_conn_by_local(cm, id);
    uint8_t mad[RS_CM_MAD_LEN];

    if (c == NULL || c->state != CM_SIDR_REQ_RCVD)
        return rs_error(err, RS_ENOENT, "CM: no SIDR_REQ waiting under %#x", id);
    uint16_t port = c->ours.port;
    c->ours = *ours;
    memcpy(c->ours.gid, cm->o.gid, 16);
    c->ours.port = port;
    cm_msg_sidr_rep(mad, c, status);
    cm_send_mad(cm, c->peer_mad_gid, c->peer_qp1, mad);
    cm_conn_free(c);
    return 0;
}
