/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_ucma_conn.c - the RDMA CM's connections: listen, connect, accept,
 * reject and disconnect on the engine of the ID's port (transport/cm), and the
 * events the engines report, as Linux's RDMA CM turns the IB CM's into
 * rdma_cm events (verbs_ucma.h).
 *
 *   active:  CONNECT -> REQ ... REP -> CONNECT_RESPONSE; librdmacm moves its
 *            QP to RTS and ACCEPTs -> RTU (the program sees ESTABLISHED)
 *   passive: REQ -> a child ID and CONNECT_REQUEST on the listener; ACCEPT
 *            (its QP in RTS already) -> REP ... RTU -> ESTABLISHED
 *   either:  DISCONNECT -> DREQ ... DREP -> DISCONNECTED; a DREQ received ->
 *            DREP and DISCONNECTED; then time wait and TIMEWAIT_EXIT
 *   refused: REJ -> REJECTED with the reason and the REJ's private data; no
 *            answer after every retry -> UNREACHABLE (-ETIMEDOUT)
 *   UD (RDMA_PS_UDP): CONNECT -> SIDR_REQ ... SIDR_REP -> ESTABLISHED with the
 *            peer's QPN, Q_Key and address vector, or UNREACHABLE with the
 *            SIDR_REP's status; SIDR_REQ -> a child and CONNECT_REQUEST; ACCEPT
 *            -> SIDR_REP (valid, the child's QPN), REJECT -> SIDR_REP (rejected)
 *
 * The two ends' resources cross as the IB CM reports them: what a REQ calls
 * its sender's initiator depth is the passive side's responder resources.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/addr.h>

#include "verbs_ucma.h"

static void early_to(struct vb_ucma_id *l);

int
vb_ucma_cmd_listen(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_listen cmd;
    int n;

    (void)out;
    memcpy(&cmd, in, sizeof(cmd));
    struct vb_ucma_id *id = vb_ucma_id_get(cmd.id);
    if (id == NULL || id->file != f)
        return -ENOENT;
    if (id->state == UCMA_IDLE) {
        /* As the kernel: an ID listened on unbound takes IPv4's wildcard. */
        struct sockaddr_storage any;
        memset(&any, 0, sizeof(any));
        any.ss_family = AF_INET;
        int rc = vb_ucma_bind(id, &any);
        if (rc != 0)
            return rc;
    }
    if (id->state != UCMA_BOUND && id->state != UCMA_LISTEN)
        return -EINVAL;
    if (id->dev < 0) {
        /* The wildcard: every device of its IP version (both, for IPv6's
         * without AFONLY) takes its requests. */
        struct vb_device *d = vb_devices(&n);
        for (int i = 0; i < n; i++) {
            bool v4 = rs_addr_is_v4mapped(d[i].gid);
            if (id->src.ss_family == AF_INET ? !v4 : v4 && id->afonly)
                continue;
            int rc = vb_ucma_id_hold_port(id, i);
            if (rc != 0)
                return -rc;
        }
    }
    id->backlog = cmd.backlog > 0 && cmd.backlog < VB_UCMA_MAX_BACKLOG ? (int)cmd.backlog
                                                                        : VB_UCMA_MAX_BACKLOG;
    id->state = UCMA_LISTEN;
    early_to(id);
    return 0;
}

/* What a REQ or a REP says of our end: the ID's QP, PSN and path MTU, and the
 * program's connection parameters (RNR retries at most 7, the field's 3 bits). */
static void
conn_params(const struct vb_ucma_id *id, const struct ucma_abi_conn_param *cp,
            struct rs_cm_params *ours)
{
    memset(ours, 0, sizeof(*ours));
    ours->qpn = id->qpn;
    ours->psn = id->psn;
    ours->pmtu = id->pmtu;
    ours->pkey = 0xffff;
    ours->responder_resources = cp->responder_resources;
    ours->initiator_depth = cp->initiator_depth;
    ours->rnr_retry_count = cp->rnr_retry_count < 7 ? cp->rnr_retry_count : 7;
    ours->private_len = cp->private_data_len;
    memcpy(ours->private_data, cp->private_data, cp->private_data_len);
}

/* A UD ID's CONNECT: a SIDR_REQ for the destination's UDP port, as Linux's
 * cma_resolve_ib_udp(). */
static int
sidr_connect(struct vb_ucma_id *id, const struct ucma_abi_conn_param *cp)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_cm_params ours;
    uint32_t scope;

    if (id->ps != RDMA_PS_UDP)
        return -vb_fail(EOPNOTSUPP, "rdma_connect: a UD ID of port space %#x: only "
                        "RDMA_PS_UDP's are resolved (SIDR)", id->ps);
    if (cp->private_data_len > RS_CM_SIDR_REQ_PRIVATE_MAX)
        return -EINVAL;
    memset(&ours, 0, sizeof(ours));
    ours.port = ntohs(vb_ucma_addr_port(&id->src));
    ours.private_len = cp->private_data_len;
    memcpy(ours.private_data, cp->private_data, cp->private_data_len);
    vb_ucma_addr_gid(&id->dst, id->peer_gid, &scope);
    if (rs_cm_sidr_resolve(vb_cm_engine(id->dev), id->peer_gid,
                           ntohs(vb_ucma_addr_port(&id->dst)), &ours, vb_cm_now(), &id->conn,
                           err) < 0)
        return -ENOMEM;
    id->has_conn = true;
    id->sidr = true;
    id->state = UCMA_CONNECT;
    vb_cm_kick();
    return 0;
}

/* A child's SIDR_REQ answered: valid with its QP (ACCEPT), or rejected (REJECT),
 * with the consumer's private data. */
static int
sidr_answer(struct vb_ucma_id *id, uint8_t status, uint32_t qpn, const uint8_t *priv,
            uint8_t len)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_cm_params ours;

    if (id->state != UCMA_REQ_HELD || len > RS_CM_SIDR_REP_PRIVATE_MAX)
        return -EINVAL;
    memset(&ours, 0, sizeof(ours));
    ours.qpn = qpn;
    ours.qkey = VB_UCMA_UDP_QKEY;
    ours.private_len = len;
    memcpy(ours.private_data, priv, len);
    if (rs_cm_sidr_answer(vb_cm_engine(id->dev), id->conn, status, &ours, err) < 0)
        return -EINVAL;
    id->has_conn = false;
    id->state = status == RS_CM_SIDR_VALID ? UCMA_CONNECTED : UCMA_DISCONNECTED;
    return 0;
}

int
vb_ucma_cmd_connect(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_connect cmd;
    char err[RS_ERRBUF_SIZE];
    uint32_t scope;

    (void)out;
    memcpy(&cmd, in, sizeof(cmd));
    struct vb_ucma_id *id = vb_ucma_id_get(cmd.id);
    if (id == NULL || id->file != f)
        return -ENOENT;
    const struct ucma_abi_conn_param *cp = &cmd.conn_param;
    if (id->state != UCMA_ROUTE_RESOLVED)
        return -EINVAL;
    if (id->qp_type == IBV_QPT_UD)
        return sidr_connect(id, cp);
    if (cp->private_data_len > RS_CM_REQ_PRIVATE_MAX)
        return -EINVAL;
    struct rs_cm_params ours;
    id->qpn = cp->qp_num;
    id->psn = vb_ucma_random_psn();
    id->pmtu = vb_ucma_dev_mtu(id->dev);
    id->retry_count = cp->retry_count < 7 ? cp->retry_count : 7;
    conn_params(id, cp, &ours);
    ours.retry_count = id->retry_count;
    ours.ack_timeout = VB_UCMA_ACK_TIMEOUT;
    ours.port = ntohs(vb_ucma_addr_port(&id->src));
    vb_ucma_addr_gid(&id->dst, id->peer_gid, &scope);
    int rc = rs_cm_connect(vb_cm_engine(id->dev), id->peer_gid, ntohs(vb_ucma_addr_port(&id->dst)),
                           &ours, vb_cm_now(), &id->conn, err);
    if (rc < 0)
        return rc == RS_ENOMEM ? -ENOMEM : -EINVAL;
    id->has_conn = true;
    id->state = UCMA_CONNECT;
    vb_cm_kick();
    return 0;
}

int
vb_ucma_cmd_accept(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_accept cmd;
    char err[RS_ERRBUF_SIZE];

    (void)out;
    memcpy(&cmd, in, sizeof(cmd));
    struct vb_ucma_id *id = vb_ucma_id_get(cmd.id);
    if (id == NULL || id->file != f)
        return -ENOENT;
    const struct ucma_abi_conn_param *cp = &cmd.conn_param;
    struct rs_cm *cm = vb_cm_engine(id->dev);
    if (id->state == UCMA_REP_HELD) {
        /* librdmacm's QP is in RTS: the RTU may go. */
        if (rs_cm_confirm(cm, id->conn, vb_cm_now(), err) < 0)
            return -EINVAL;
        id->state = UCMA_CONNECTED;
        return 0;
    }
    if (id->sidr) {
        id->uid = cmd.uid;
        return sidr_answer(id, RS_CM_SIDR_VALID, cp->qp_num, cp->private_data,
                           cp->private_data_len);
    }
    if (id->state != UCMA_REQ_HELD || !cp->valid || cp->private_data_len > RS_CM_REP_PRIVATE_MAX)
        return -EINVAL;
    struct rs_cm_params ours;
    id->uid = cmd.uid;
    id->qpn = cp->qp_num;
    id->resp_res = cp->responder_resources;
    id->init_depth = cp->initiator_depth;
    conn_params(id, cp, &ours);
    if (rs_cm_accept(cm, id->conn, &ours, vb_cm_now(), err) < 0)
        return -EINVAL;
    id->state = UCMA_ACCEPTED;
    vb_cm_kick();
    return 0;
}

int
vb_ucma_cmd_reject(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_reject cmd;
    char err[RS_ERRBUF_SIZE];

    (void)out;
    memcpy(&cmd, in, sizeof(cmd));
    struct vb_ucma_id *id = vb_ucma_id_get(cmd.id);
    if (id == NULL || id->file != f)
        return -ENOENT;
    /* As ucma_reject(): the consumer's reason, or "vendor option not supported"
     * (35) for an ECE refusal, nothing else. */
    if (id->sidr)
        return sidr_answer(id, RS_CM_SIDR_REJECT, 0, cmd.private_data, cmd.private_data_len);
    uint16_t reason = cmd.reason == 0 ? RS_CM_REJ_CONSUMER : cmd.reason;
    if ((reason != RS_CM_REJ_CONSUMER && reason != 35) ||
        cmd.private_data_len > RS_CM_REJ_PRIVATE_MAX ||
        (id->state != UCMA_REQ_HELD && id->state != UCMA_REP_HELD))
        return -EINVAL;
    if (rs_cm_reject(vb_cm_engine(id->dev), id->conn, reason, cmd.private_data,
                     cmd.private_data_len, vb_cm_now(), err) < 0)
        return -EINVAL;
    id->has_conn = false;
    id->state = UCMA_DISCONNECTED;
    return 0;
}

int
vb_ucma_cmd_disconnect(struct vb_ucma_file *f, const void *in, uint16_t out)
{
    struct ucma_abi_disconnect cmd;
    char err[RS_ERRBUF_SIZE];

    (void)out;
    memcpy(&cmd, in, sizeof(cmd));
    struct vb_ucma_id *id = vb_ucma_id_get(cmd.id);
    if (id == NULL || id->file != f)
        return -ENOENT;
    /* As Linux: a DREQ, once; after the peer's DREQ, the DREP (ours went with
     * the DISCONNECTED event): nothing more to send, and no error. */
    if (id->disconnecting)
        return -EINVAL;
    id->disconnecting = true;
    if (id->state == UCMA_DISCONNECTED)
        return 0;
    if (id->state != UCMA_CONNECTED ||
        rs_cm_disconnect(vb_cm_engine(id->dev), id->conn, vb_cm_now(), err) < 0)
        return -EINVAL;
    vb_cm_kick();
    return 0;
}

/* --- what the engines report --- */

static void
conn_param(struct ucma_abi_conn_param *cp, const struct rs_cm_params *peer)
{
    cp->qp_num = peer->qpn;
    cp->responder_resources = peer->initiator_depth;
    cp->initiator_depth = peer->responder_resources;
    cp->retry_count = peer->retry_count;
    cp->rnr_retry_count = peer->rnr_retry_count;
    cp->private_data_len = peer->private_len;
    memcpy(cp->private_data, peer->private_data, peer->private_len);
}

/* A REQ held for the consumer: a child ID for it and a CONNECT_REQUEST on its
 * listener l. RS_CM_HOLD, or RS_CM_IGNORE with no room. */
static uint16_t
deliver(struct vb_ucma_id *l, int dev, uint32_t conn, uint16_t port,
        const struct rs_cm_params *peer, bool sidr)
{
    /* A full backlog drops the REQ unanswered, as Linux does (its repeat may
     * find room). */
    if (l->backlog <= 0)
        return RS_CM_IGNORE;
    struct vb_ucma_id *c = vb_ucma_id_new(l->file, l->ps, l->qp_type);
    if (c == NULL)
        return RS_CM_IGNORE;
    struct vb_ucma_event *e = vb_ucma_event_new(l, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
    if (e == NULL || vb_ucma_id_hold_port(c, dev) != 0) {
        free(e);
        vb_ucma_id_destroy(c);
        return RS_CM_IGNORE;
    }
    int n;
    c->listener = l;
    c->accepted = true;
    c->dev = dev;
    c->state = UCMA_REQ_HELD;
    c->tos = l->tos;
    vb_ucma_dev_sockaddr(dev, htons(port), &c->src);
    vb_ucma_gid_sockaddr(peer->gid, htons(peer->port), vb_devices(&n)[dev].scope, &c->dst);
    c->has_conn = true;
    c->conn = conn;
    memcpy(c->peer_gid, peer->gid, 16);
    c->peer_qpn = peer->qpn;
    c->peer_psn = peer->psn;
    c->psn = vb_ucma_random_psn();
    c->pmtu = peer->pmtu < vb_ucma_dev_mtu(dev) ? peer->pmtu : vb_ucma_dev_mtu(dev);
    c->resp_res = peer->initiator_depth;
    c->init_depth = peer->responder_resources;
    c->retry_count = peer->retry_count;
    c->rnr_retry_count = peer->rnr_retry_count;
    e->resp.id = c->handle;
    e->child = c;
    c->sidr = sidr;
    if (sidr) {
        /* As Linux: the SIDR_REQ's private data after rdma_cm's header, no QP yet. */
        e->resp.param.ud.private_data_len = peer->private_len;
        memcpy(e->resp.param.ud.private_data, peer->private_data, peer->private_len);
    } else {
        conn_param(&e->resp.param.conn, peer);
    }
    l->backlog--;
    vb_ucma_event_post(e);
    return RS_CM_HOLD;
}

/* REQs for a port nobody listens on, waiting a little for a listener before
 * their REJ (invalid service ID). The kernel resolves addresses and routes
 * through its neighbour tables and work queues, which gives a server that
 * listens again on the port it just used (perftest -R does, between its two
 * connections) or that listens just after opening its device the time to do
 * it; ours resolves at once, and the REQ can come first. */
#define EARLY_MAX 64
static struct early {
    bool used;
    bool sidr;          /* a SIDR_REQ, for a UDP port */
    int dev;
    uint32_t conn;
    uint16_t port;
    uint64_t deadline;
    struct rs_cm_params peer;
} early[EARLY_MAX];

/* A REQ (or a SIDR_REQ) to its listener, or kept for one to come. */
static uint16_t
request(int dev, uint32_t conn, uint16_t port, const struct rs_cm_params *peer, bool sidr)
{
    int ipv = rs_addr_is_v4mapped(peer->gid) ? 4 : 6;
    struct vb_ucma_id *l =
        vb_ucma_listener_find(dev, sidr ? RDMA_PS_UDP : RDMA_PS_TCP, htons(port), ipv);
    if (l != NULL)
        return deliver(l, dev, conn, port, peer, sidr);
    for (int i = 0; i < EARLY_MAX; i++) {
        if (!early[i].used) {
            early[i] = (struct early){true, sidr, dev, conn, port,
                                      vb_cm_now() + VB_UCMA_LISTEN_GRACE_NS, *peer};
            return RS_CM_HOLD;
        }
    }
    return sidr ? RS_CM_SIDR_UNSUPPORTED : RS_CM_REJ_INVALID_SERVICE_ID;
}

uint16_t
vb_ucma_on_request(int dev, uint32_t conn, uint16_t port, const struct rs_cm_params *peer,
                   struct rs_cm_params *ours)
{
    (void)ours;     /* filled at ACCEPT */
    return request(dev, conn, port, peer, false);
}

uint16_t
vb_ucma_on_sidr_request(int dev, uint32_t conn, uint16_t port, const struct rs_cm_params *peer)
{
    return request(dev, conn, port, peer, true);
}

/* Hands the REQs waiting for listener l's port to it. */
static void
early_to(struct vb_ucma_id *l)
{
    for (int i = 0; i < EARLY_MAX; i++) {
        struct early *r = &early[i];
        int ipv = rs_addr_is_v4mapped(r->peer.gid) ? 4 : 6;
        if (!r->used || vb_ucma_listener_find(r->dev, r->sidr ? RDMA_PS_UDP : RDMA_PS_TCP,
                                              htons(r->port), ipv) != l)
            continue;
        r->used = false;
        if (deliver(l, r->dev, r->conn, r->port, &r->peer, r->sidr) == RS_CM_IGNORE)
            rs_cm_forget(vb_cm_engine(r->dev), r->conn);
    }
}

void
vb_ucma_early_drop(int dev)
{
    for (int i = 0; i < EARLY_MAX; i++)
        if (early[i].dev == dev)
            early[i].used = false;
}

uint64_t
vb_ucma_early_expire(uint64_t now)
{
    char err[RS_ERRBUF_SIZE];
    uint64_t next = UINT64_MAX;

    for (int i = 0; i < EARLY_MAX; i++) {
        struct early *r = &early[i];
        if (!r->used)
            continue;
        if (now >= r->deadline) {
            struct rs_cm_params none;
            memset(&none, 0, sizeof(none));
            r->used = false;
            if (r->sidr)
                rs_cm_sidr_answer(vb_cm_engine(r->dev), r->conn, RS_CM_SIDR_UNSUPPORTED, &none,
                                  err);
            else
                rs_cm_reject(vb_cm_engine(r->dev), r->conn, RS_CM_REJ_INVALID_SERVICE_ID, NULL,
                             0, now, err);
            continue;
        }
        next = r->deadline < next ? r->deadline : next;
    }
    return next;
}

/* A SIDR_REP for id, as Linux's cma_sidr_rep_handler() reports it: ESTABLISHED
 * with the peer's QPN, Q_Key and address vector; UNREACHABLE with the status of
 * one that is not valid; ADDR_ERROR (-EINVAL) for a Q_Key not the port space's. */
static void
sidr_reply(struct vb_ucma_id *id, const struct rs_cm_event *ev)
{
    uint32_t type = RDMA_CM_EVENT_ESTABLISHED;
    int32_t status = 0;

    id->has_conn = false;
    if (ev->reason != RS_CM_SIDR_VALID) {
        type = RDMA_CM_EVENT_UNREACHABLE;
        status = ev->reason;
    } else if (ev->peer->qkey != VB_UCMA_UDP_QKEY) {
        type = RDMA_CM_EVENT_ADDR_ERROR;
        status = -EINVAL;
    }
    id->state = type == RDMA_CM_EVENT_ESTABLISHED ? UCMA_CONNECTED : UCMA_DISCONNECTED;
    struct vb_ucma_event *e = vb_ucma_event_new(id, type, status);
    if (e == NULL)
        return;
    struct ucma_abi_ud_param *ud = &e->resp.param.ud;
    ud->private_data_len = ev->peer->private_len;
    memcpy(ud->private_data, ev->peer->private_data, ev->peer->private_len);
    if (type == RDMA_CM_EVENT_ESTABLISHED) {
        id->peer_qpn = ev->peer->qpn;
        vb_ucma_ah_fill(id, &ud->ah_attr);
        ud->qp_num = ev->peer->qpn;
        ud->qkey = ev->peer->qkey;
    }
    vb_ucma_event_post(e);
}

void
vb_ucma_on_event(int dev, const struct rs_cm_event *ev)
{
    struct vb_ucma_id *id = vb_ucma_id_by_conn(dev, ev->id);
    uint32_t type;
    int32_t status = 0;

    if (id == NULL)
        return;
    switch (ev->type) {
    case RS_CM_EV_REPLY:
        id->peer_qpn = ev->peer->qpn;
        id->peer_psn = ev->peer->psn;
        id->resp_res = ev->peer->initiator_depth;
        id->init_depth = ev->peer->responder_resources;
        id->rnr_retry_count = ev->peer->rnr_retry_count;
        id->state = UCMA_REP_HELD;
        type = RDMA_CM_EVENT_CONNECT_RESPONSE;
        break;
    case RS_CM_EV_CONNECTED:
        id->state = UCMA_CONNECTED;
        type = RDMA_CM_EVENT_ESTABLISHED;
        break;
    case RS_CM_EV_REJECTED:
        id->has_conn = false;
        id->state = UCMA_DISCONNECTED;
        type = RDMA_CM_EVENT_REJECTED;
        status = ev->reason;
        break;
    case RS_CM_EV_TIMEOUT:
        id->state = UCMA_DISCONNECTED;
        if (strcmp(ev->unanswered, "DREQ") == 0) {
            type = RDMA_CM_EVENT_DISCONNECTED;      /* the connection is over all the same */
        } else {
            id->has_conn = false;
            type = RDMA_CM_EVENT_UNREACHABLE;
            status = -ETIMEDOUT;
        }
        break;
    case RS_CM_EV_DISCONNECTED:
        id->state = UCMA_DISCONNECTED;
        type = RDMA_CM_EVENT_DISCONNECTED;
        break;
    case RS_CM_EV_TIMEWAIT_EXIT:
        id->has_conn = false;
        type = RDMA_CM_EVENT_TIMEWAIT_EXIT;
        break;
    case RS_CM_EV_SIDR_REPLY:
        sidr_reply(id, ev);
        return;
    default:
        return;
    }
    struct vb_ucma_event *e = vb_ucma_event_new(id, type, status);
    if (e == NULL)
        return;     /* as a kernel short of memory: the event is lost */
    if (type == RDMA_CM_EVENT_CONNECT_RESPONSE || type == RDMA_CM_EVENT_REJECTED)
        conn_param(&e->resp.param.conn, ev->peer);
    vb_ucma_event_post(e);
}
