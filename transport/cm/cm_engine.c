/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm_engine.c - the CM's connection state machines (IBTA Vol 1, 12.9):
 *
 *   active:  connect -> REQ_SENT --REP/send RTU--> ESTABLISHED
 *   passive: REQ/send REP -> REP_SENT --RTU--> ESTABLISHED
 *   either:  ESTABLISHED --disconnect/send DREQ--> DREQ_SENT --DREP--> free
 *            ESTABLISHED or DREQ_SENT --DREQ/send DREP--> free
 *
 * REQ, REP and DREQ wait for their answer for the response timeout the REQ
 * announced (12.6.5) and are sent again, at most "max CM retries" times;
 * then the connection fails and the peer is told with a REJ (timeout), as
 * Linux's CM does. A REQ, REP and RTU carry the REQ's transaction ID, a
 * DREQ one of its own that the DREP echoes.
 *
 * For rdma_cm's consumer, two waits (cm.h): REQ_RCVD, a REQ held until the
 * consumer accepts or rejects it, and REP_RCVD, a REP held until it
 * confirms; and TIMEWAIT after a disconnect, for opts.timewait_ns.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/addr.h>

#include <roceshark/dissectors/wire.h>

#include "cm_int.h"

void
rs_cm_opts_init(struct rs_cm_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->response_timeout = RS_CM_DEFAULT_TIMEOUT;
    o->max_retries = RS_CM_DEFAULT_RETRIES;
    o->max_half_open_per_peer = RS_CM_MAX_HALF_OPEN_PER_PEER;
}

void
rs_cm_opts_set_gid(struct rs_cm_opts *o, const uint8_t gid[16])
{
    memcpy(o->gid, gid, 16);
    /* An IPv4 address as the low half of a locally administered GUID; an IPv6
     * address's interface identifier, which is an EUI-64 already. */
    if (rs_addr_is_v4mapped(gid))
        o->ca_guid = 0x0200000000000000ull | rs_load_be32(gid + 12);
    else
        o->ca_guid = rs_load_be64(gid + 8);
}

int
rs_cm_create(struct rs_cm **out, const struct rs_cm_opts *opts, char *err)
{
    struct rs_cm *cm = calloc(1, sizeof(*cm));

    *out = NULL;
    if (cm == NULL)
        return rs_error(err, RS_ENOMEM, "CM: out of memory");
    cm->o = *opts;
    cm->o.max_retries &= 0x0f;
    cm->next_id = opts->id_seed != 0 ? opts->id_seed : 1;
    cm->next_tid = (uint64_t)cm->next_id << 32;
    *out = cm;
    return 0;
}

void
rs_cm_destroy(struct rs_cm *cm)
{
    free(cm);
}

void
rs_cm_set_sender(struct rs_cm *cm,
                 void (*send)(void *, const uint8_t *, uint32_t, const uint8_t *),
                 void *send_arg)
{
    cm->o.ops.send = send;
    cm->o.ops.send_arg = send_arg;
}

const struct rs_cm_counters *
rs_cm_counters_get(const struct rs_cm *cm)
{
    return &cm->cnt;
}

const char *
rs_cm_event_name(enum rs_cm_event_type t)
{
    static const char *const names[] = {"connected", "disconnected", "rejected", "timeout",
                                        "reply", "timewait exit", "sidr reply"};

    return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "unknown";
}

void
rs_cm_gid_format(const uint8_t gid[16], char *out, size_t size)
{
    if (inet_ntop(AF_INET6, gid, out, (socklen_t)size) == NULL && size > 0)
        out[0] = '\0';
}

uint8_t
rs_cm_mtu_code(uint32_t pmtu)
{
    for (uint8_t code = 1; code <= 5; code++)
        if (pmtu == 128u << code)
            return code;
    return 0;
}

uint32_t
rs_cm_mtu_bytes(uint8_t code)
{
    return code >= 1 && code <= 5 ? 128u << code : 0;
}

void
cm_send_mad(struct rs_cm *cm, const uint8_t gid[16], uint32_t qp, const uint8_t *mad)
{
    cm->cnt.tx++;
    if (cm->o.ops.send != NULL)
        cm->o.ops.send(cm->o.ops.send_arg, gid, qp, mad);
}

/* Sends c's last MAD and waits for its answer. */
void
cm_send_waiting(struct rs_cm *cm, struct cm_conn *c, uint64_t now)
{
    cm_send_mad(cm, c->peer_mad_gid, c->peer_qp1, c->last);
    c->deadline_ns = now + c->timeout_ns;
}

void
cm_tell(struct rs_cm *cm, struct cm_conn *c, enum rs_cm_event_type type, uint16_t reason,
     const char *unanswered)
{
    struct rs_cm_event ev = {type, c->local_id, c->active, &c->ours, &c->peer, reason,
                             unanswered};

    if (cm->o.ops.event != NULL && !c->abandoned)
        cm->o.ops.event(cm->o.ops.arg, &ev);
}

void
cm_conn_free(struct cm_conn *c)
{
    memset(c, 0, sizeof(*c));
}

/* After a disconnect (12.9.7): the connection waits out its time wait, or is
 * forgotten at once when there is none. */
static void
enter_timewait(struct rs_cm *cm, struct cm_conn *c, uint64_t now)
{
    if (cm->o.timewait_ns == 0) {
        cm_conn_free(c);
        return;
    }
    c->state = CM_TIMEWAIT;
    c->deadline_ns = now + cm->o.timewait_ns;
}

struct cm_conn *
cm_conn_new(struct rs_cm *cm)
{
    for (unsigned i = 0; i < RS_CM_MAX_CONNS; i++) {
        struct cm_conn *c = &cm->conn[i];
        if (c->state == CM_FREE) {
            memset(c, 0, sizeof(*c));
            /* IDs never 0, and never one still in use after the counter wraps. */
            do
                c->local_id = cm->next_id++;
            while (c->local_id == 0);
            return c;
        }
    }
    return NULL;
}

struct cm_conn *
cm_conn_by_local(struct rs_cm *cm, uint32_t id)
{
    for (unsigned i = 0; i < RS_CM_MAX_CONNS; i++)
        if (cm->conn[i].state != CM_FREE && cm->conn[i].local_id == id)
            return &cm->conn[i];
    return NULL;
}

/* The connection a REQ's sender already opened with this ID: a duplicate. */
void
cm_conn_passive(struct rs_cm *cm, struct cm_conn *c, const uint8_t gid[16], uint32_t qp,
                uint64_t tid, const struct rs_cm_params *peer, uint16_t port)
{
    c->active = false;
    c->tid = tid;
    memcpy(c->peer_mad_gid, gid, 16);
    c->peer_qp1 = qp;
    c->peer = *peer;
    memcpy(c->ours.gid, cm->o.gid, 16);
    c->ours.port = port;
}

struct cm_conn *
cm_conn_active(struct rs_cm *cm, const uint8_t peer_gid[16], uint16_t port,
               const struct rs_cm_params *ours, char *err)
{
    struct cm_conn *c = cm_conn_new(cm);

    if (c == NULL) {
        rs_error(err, RS_ENOMEM, "CM: all %d connections are in use", RS_CM_MAX_CONNS);
        return NULL;
    }
    c->active = true;
    c->ours = *ours;
    memcpy(c->ours.gid, cm->o.gid, 16);
    memcpy(c->peer.gid, peer_gid, 16);
    c->peer.port = port;
    memcpy(c->peer_mad_gid, peer_gid, 16);
    c->peer_qp1 = RS_CM_QP1;
    c->tid = cm->next_tid++;
    c->timeout_ns = rs_cm_timeout_ns(cm->o.response_timeout);
    c->retries_left = c->max_retries = cm->o.max_retries;
    return c;
}

static struct cm_conn *
conn_by_remote(struct rs_cm *cm, const uint8_t gid[16], uint32_t remote_id)
{
    for (unsigned i = 0; i < RS_CM_MAX_CONNS; i++) {
        struct cm_conn *c = &cm->conn[i];
        if (c->state != CM_FREE && c->state != CM_SIDR_REQ_RCVD && !c->active &&
            c->remote_id == remote_id && memcmp(c->peer_mad_gid, gid, 16) == 0)
            return c;
    }
    return NULL;
}

/* Passive connections from gid that are not established yet, and SIDR requests held. */
unsigned
cm_half_open(const struct rs_cm *cm, const uint8_t gid[16])
{
    unsigned n = 0;

    for (unsigned i = 0; i < RS_CM_MAX_CONNS; i++) {
        const struct cm_conn *c = &cm->conn[i];
        if (!c->active &&
            (c->state == CM_REQ_RCVD || c->state == CM_REP_SENT || c->state == CM_SIDR_REQ_RCVD) &&
            memcmp(c->peer_mad_gid, gid, 16) == 0)
            n++;
    }
    return n;
}

static void
reject(struct rs_cm *cm, const uint8_t gid[16], uint32_t qp, uint64_t tid, uint32_t local_id,
       uint32_t remote_id, uint8_t msg_rejected, uint16_t reason)
{
    uint8_t mad[RS_CM_MAD_LEN];

    cm_msg_rej(mad, tid, local_id, remote_id, msg_rejected, reason);
    cm->cnt.rej_sent++;
    cm_send_mad(cm, gid, qp, mad);
}

/* An MRA for the REQ (msg 0) or REP (1) held for the consumer. */
static void
send_mra(struct rs_cm *cm, struct cm_conn *c, uint8_t msg)
{
    uint8_t mad[RS_CM_MAD_LEN];

    cm_msg_mra(mad, c, msg, RS_CM_MRA_SERVICE_TIMEOUT);
    cm->cnt.mra_sent++;
    cm_send_mad(cm, c->peer_mad_gid, c->peer_qp1, mad);
}

static void
on_req(struct rs_cm *cm, const uint8_t gid[16], uint32_t qp, const struct rs_cm_mad_hdr *h,
       const uint8_t *msg, uint64_t now)
{
    const struct rs_cm_layout *l = rs_cm_layout(RS_CM_REQ);
    uint32_t remote_id = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_COMM_ID);
    struct cm_conn *c = conn_by_remote(cm, gid, remote_id);

    if (c != NULL) {
        /* Our REP was lost: send it again. Once established, the RTU came, so
         * a late copy of the REQ is stale. A REQ still held by the consumer gets
         * an MRA, as Linux's RDMA CM gives it (a delayed MRA, service timeout 24:
         * 69 s), so that the active side waits that much longer. */
        cm->cnt.dup_req++;
        if (c->state == CM_REP_SENT) {
            cm_send_mad(cm, c->peer_mad_gid, c->peer_qp1, c->last);
        } else if (c->state == CM_REQ_RCVD) {
            send_mra(cm, c, 0);
        }
        return;
    }
    struct rs_cm_params peer;
    uint16_t port;
    uint16_t reason = cm_read_req(msg, gid, &peer, &port);
    if (reason == 0 && cm_half_open(cm, gid) >= cm->o.max_half_open_per_peer) {
        cm->cnt.rej_half_open++;
        reason = RS_CM_REJ_NO_RESOURCES;
    }
    if (reason == 0 && (c = cm_conn_new(cm)) == NULL)
        reason = RS_CM_REJ_NO_RESOURCES;
    if (reason != 0) {
        reject(cm, gid, qp, h->tid, 0, remote_id, 0, reason);
        return;
    }
    cm_conn_passive(cm, c, gid, qp, h->tid, &peer, port);
    c->remote_id = remote_id;
    /* The RTU must come within the time the active side said it needs to
     * answer (its local CM response timeout), resent as often as it allows,
     * up to rdma_cm's own values: a REQ must not hold a slot for days. */
    uint8_t timeout = (uint8_t)rs_cm_get(l, msg, RS_CMF_LOCAL_CM_TIMEOUT);
    uint8_t retries = (uint8_t)rs_cm_get(l, msg, RS_CMF_MAX_CM_RETRIES);
    c->timeout_ns = rs_cm_timeout_ns(timeout < RS_CM_MAX_PEER_TIMEOUT ? timeout
                                                                      : RS_CM_MAX_PEER_TIMEOUT);
    c->retries_left = c->max_retries =
        retries < RS_CM_MAX_PEER_RETRIES ? retries : RS_CM_MAX_PEER_RETRIES;
    c->state = CM_REQ_RCVD;
    reason = cm->o.ops.request == NULL
                 ? RS_CM_REJ_INVALID_SERVICE_ID
                 : cm->o.ops.request(cm->o.ops.arg, c->local_id, port, &c->peer, &c->ours);
    if (reason == RS_CM_HOLD)
        return;     /* rs_cm_accept() or rs_cm_reject() answers */
    if (reason == RS_CM_IGNORE) {
        cm_conn_free(c);
        return;
    }
    if (reason != 0) {
        reject(cm, gid, qp, h->tid, c->local_id, remote_id, 0, reason);
        cm_conn_free(c);
        return;
    }
    c->state = CM_REP_SENT;
    cm_msg_rep(cm, c);
    cm_send_waiting(cm, c, now);
}

static void
on_rep(struct rs_cm *cm, struct cm_conn *c, const uint8_t gid[16], const uint8_t *msg)
{
    const struct rs_cm_layout *l = rs_cm_layout(RS_CM_REP);

    if (c->state == CM_ESTABLISHED && c->active) {
        cm->cnt.dup_rep++;      /* our RTU was lost: send it again */
        cm_msg_rtu(c);
        cm_send_mad(cm, c->peer_mad_gid, c->peer_qp1, c->last);
        return;
    }
    if (c->state == CM_REP_RCVD) {
        cm->cnt.dup_rep++;      /* the consumer has not confirmed yet: an MRA, as for a REQ */
        send_mra(cm, c, 1);
        return;
    }
    if (c->state != CM_REQ_SENT) {
        cm->cnt.drop_state++;
        return;
    }
    c->remote_id = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_COMM_ID);
    uint16_t port = c->peer.port;
    cm_read_rep(msg, gid, &c->peer);
    c->peer.port = port;
    c->peer.pmtu = c->ours.pmtu;
    c->deadline_ns = 0;
    if (cm->o.hold_rtu) {
        c->state = CM_REP_RCVD;
        cm_tell(cm, c, RS_CM_EV_REPLY, 0, NULL);
        return;
    }
    cm_msg_rtu(c);
    cm_send_mad(cm, c->peer_mad_gid, c->peer_qp1, c->last);
    c->state = CM_ESTABLISHED;
    c->deadline_ns = 0;
    cm_tell(cm, c, RS_CM_EV_CONNECTED, 0, NULL);
}

/* A message that names our connection by its remote communication ID. */
static void
on_reply(struct rs_cm *cm, const uint8_t gid[16], uint32_t qp, const struct rs_cm_mad_hdr *h,
         const struct rs_cm_layout *l, const uint8_t *msg, uint64_t now)
{
    uint32_t ours = (uint32_t)rs_cm_get(l, msg, RS_CMF_REMOTE_COMM_ID);
    uint32_t theirs = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_COMM_ID);
    struct cm_conn *c = cm_conn_by_local(cm, ours);

    /* A REJ from an active side that never had our REP (its REQ timed out while
     * we held it) names no ID of ours: its own ID says which REQ it ends. */
    if (c == NULL && ours == 0 && h->attr_id == RS_CM_REJ)
        c = conn_by_remote(cm, gid, theirs);

    /* A REP, a REJ or an MRA of our REQ gives us the peer's ID; anything else
     * must name it. */
    bool first = h->attr_id == RS_CM_REP || h->attr_id == RS_CM_REJ ||
                 (h->attr_id == RS_CM_MRA && c != NULL && c->state == CM_REQ_SENT);
    if (c == NULL || memcmp(c->peer_mad_gid, gid, 16) != 0 ||
        (!first && c->remote_id != theirs)) {
        if (h->attr_id == RS_CM_DREQ) {
            /* A repeated DREQ after we let the connection go: its DREP was lost. */
            uint8_t mad[RS_CM_MAD_LEN];
            cm_msg_drep(mad, h->tid, ours, theirs);
            cm_send_mad(cm, gid, qp, mad);
        }
        cm->cnt.drop_unknown++;
        return;
    }
    switch (h->attr_id) {
    case RS_CM_REP:
        on_rep(cm, c, gid, msg);
        return;
    case RS_CM_RTU:
        if (c->state != CM_REP_SENT)
            break;
        c->state = CM_ESTABLISHED;
        c->deadline_ns = 0;
        cm_tell(cm, c, RS_CM_EV_CONNECTED, 0, NULL);
        return;
    case RS_CM_REJ:
        if (c->state != CM_REQ_SENT && c->state != CM_REP_SENT && c->state != CM_REQ_RCVD &&
            c->state != CM_REP_RCVD)
            break;
        cm->cnt.rej_received++;
        cm_read_rej_private(msg, &c->peer);
        cm_tell(cm, c, RS_CM_EV_REJECTED, (uint16_t)rs_cm_get(l, msg, RS_CMF_REJ_REASON), NULL);
        cm_conn_free(c);
        return;
    case RS_CM_MRA: {
        /* The peer needs longer: wait its service timeout on top of ours. */
        cm->cnt.mra_received++;
        if (c->deadline_ns == 0)
            break;
        uint8_t service_timeout = (uint8_t)rs_cm_get(l, msg, RS_CMF_SERVICE_TIMEOUT);
        if (service_timeout > RS_CM_MAX_PEER_TIMEOUT)
            service_timeout = RS_CM_MAX_PEER_TIMEOUT;   /* as the REQ's: not days */
        c->deadline_ns = now + c->timeout_ns + rs_cm_timeout_ns(service_timeout);
        return;
    }
    case RS_CM_DREQ: {
        /* In REP_SENT the RTU was lost on its way: the peer was connected. In
         * time wait, our DREP was lost: it goes again. */
        if (c->state != CM_ESTABLISHED && c->state != CM_DREQ_SENT && c->state != CM_REP_SENT &&
            c->state != CM_TIMEWAIT)
            break;
        uint8_t mad[RS_CM_MAD_LEN];
        cm_msg_drep(mad, h->tid, c->local_id, c->remote_id);
        cm_send_mad(cm, c->peer_mad_gid, c->peer_qp1, mad);
        if (c->state == CM_TIMEWAIT)
            return;
        cm_tell(cm, c, RS_CM_EV_DISCONNECTED, 0, NULL);
        enter_timewait(cm, c, now);
        return;
    }
    case RS_CM_DREP:
        if (c->state != CM_DREQ_SENT)
            break;
        cm_tell(cm, c, RS_CM_EV_DISCONNECTED, 0, NULL);
        enter_timewait(cm, c, now);
        return;
    default:
        break;
    }
    cm->cnt.drop_state++;
}

void
rs_cm_input(struct rs_cm *cm, const uint8_t src_gid[16], uint32_t src_qp, const uint8_t *mad,
            uint32_t len, uint64_t now_ns)
{
    struct rs_cm_mad_hdr h;
    const struct rs_cm_layout *l;

    struct rs_cm_counters *c = &cm->cnt;
    /* The drop counter of each refusal of rs_cm_parse(), in enum order. */
    uint64_t *const drops[] = {NULL, &c->drop_short, &c->drop_not_cm, &c->drop_version,
                               &c->drop_method, &c->drop_attr};

    c->rx++;
    enum rs_cm_check check = rs_cm_parse(mad, len, &h, &l);
    if (check != RS_CM_OK) {
        (*drops[check])++;
        return;
    }
    const uint8_t *msg = mad + RS_CM_MAD_HDR_LEN;
    if (h.attr_id == RS_CM_REQ)
        on_req(cm, src_gid, src_qp, &h, msg, now_ns);
    else if (h.attr_id == RS_CM_SIDR_REQ || h.attr_id == RS_CM_SIDR_REP)
        cm_sidr_input(cm, src_gid, src_qp, &h, msg);
    else
        on_reply(cm, src_gid, src_qp, &h, l, msg, now_ns);
}

int
rs_cm_connect(struct rs_cm *cm, const uint8_t peer_gid[16], uint16_t port,
              const struct rs_cm_params *ours, uint64_t now_ns, uint32_t *id, char *err)
{
    struct cm_conn *c;

    if (rs_cm_mtu_code(ours->pmtu) == 0)
        return rs_error(err, RS_EINVAL, "CM: path MTU %u is not 256..4096", ours->pmtu);
    if ((c = cm_conn_active(cm, peer_gid, port, ours, err)) == NULL)
        return RS_ENOMEM;
    c->state = CM_REQ_SENT;
    cm_msg_req(cm, c);
    cm_send_waiting(cm, c, now_ns);
    *id = c->local_id;
    return 0;
}

int
rs_cm_disconnect(struct rs_cm *cm, uint32_t id, uint64_t now_ns, char *err)
{
    struct cm_conn *c = cm_conn_by_local(cm, id);

    if (c == NULL || c->state != CM_ESTABLISHED)
        return rs_error(err, RS_ENOENT, "CM: no established connection %#x", id);
    c->tid = cm->next_tid++;
    c->retries_left = c->max_retries;
    c->state = CM_DREQ_SENT;
    cm_msg_dreq(c);
    cm_send_waiting(cm, c, now_ns);
    return 0;
}

static const char *
unanswered_name(enum cm_state s)
{
    return s == CM_REQ_SENT        ? "REQ"
           : s == CM_REP_SENT      ? "REP"
           : s == CM_SIDR_REQ_SENT ? "SIDR_REQ"
                                   : "DREQ";
}

/* The held connection id in state want, or NULL with err filled. */
static struct cm_conn *
conn_held(struct rs_cm *cm, uint32_t id, enum cm_state want, enum cm_state or_want,
          const char *what, char *err)
{
    struct cm_conn *c = cm_conn_by_local(cm, id);

    if (c == NULL || (c->state != want && c->state != or_want)) {
        rs_error(err, RS_ENOENT, "CM: no %s waiting under %#x", what, id);
        return NULL;
    }
    return c;
}

int
rs_cm_accept(struct rs_cm *cm, uint32_t id, const struct rs_cm_params *ours, uint64_t now_ns,
             char *err)
{
    struct cm_conn *c = conn_held(cm, id, CM_REQ_RCVD, CM_REQ_RCVD, "REQ", err);

    if (c == NULL)
        return RS_ENOENT;
    uint16_t port = c->ours.port;
    c->ours = *ours;
    memcpy(c->ours.gid, cm->o.gid, 16);
    c->ours.port = port;
    c->state = CM_REP_SENT;
    cm_msg_rep(cm, c);
    cm_send_waiting(cm, c, now_ns);
    return 0;
}

int
rs_cm_reject(struct rs_cm *cm, uint32_t id, uint16_t reason, const uint8_t *priv, uint8_t len,
             uint64_t now_ns, char *err)
{
    struct cm_conn *c = conn_held(cm, id, CM_REQ_RCVD, CM_REP_RCVD, "REQ or REP", err);
    uint8_t mad[RS_CM_MAD_LEN];

    (void)now_ns;
    if (c == NULL)
        return RS_ENOENT;
    cm_msg_rej(mad, c->tid, c->local_id, c->remote_id, c->state == CM_REQ_RCVD ? 0 : 1, reason);
    cm_msg_rej_private(mad, priv, len);
    cm->cnt.rej_sent++;
    cm_send_mad(cm, c->peer_mad_gid, c->peer_qp1, mad);
    cm_conn_free(c);
    return 0;
}

void
rs_cm_forget(struct rs_cm *cm, uint32_t id)
{
    struct cm_conn *c = cm_conn_by_local(cm, id);

    if (c != NULL && (c->state == CM_REQ_RCVD || c->state == CM_SIDR_REQ_RCVD))
        cm_conn_free(c);
}

int
rs_cm_confirm(struct rs_cm *cm, uint32_t id, uint64_t now_ns, char *err)
{
    struct cm_conn *c = conn_held(cm, id, CM_REP_RCVD, CM_REP_RCVD, "REP", err);

    (void)now_ns;
    if (c == NULL)
        return RS_ENOENT;
    cm_msg_rtu(c);
    cm_send_mad(cm, c->peer_mad_gid, c->peer_qp1, c->last);
    c->state = CM_ESTABLISHED;
    return 0;
}

/* As Linux's cm_destroy_id(): what the peer is told of a connection whose
 * consumer is gone, by state. The REJ names the REQ or REP it refuses when
 * one is held, else "other" (IBTA Table 111: 2). */
void
rs_cm_abandon(struct rs_cm *cm, uint32_t id, uint64_t now_ns)
{
    struct cm_conn *c = cm_conn_by_local(cm, id);

    if (c == NULL)
        return;
    c->abandoned = true;
    switch (c->state) {
    case CM_REQ_SENT:
    case CM_REP_SENT:
    case CM_REQ_RCVD:
    case CM_REP_RCVD:
        reject(cm, c->peer_mad_gid, c->peer_qp1, c->tid, c->local_id, c->remote_id,
               c->state == CM_REQ_RCVD ? 0 : c->state == CM_REP_RCVD ? 1 : 2,
               c->state == CM_REQ_SENT ? RS_CM_REJ_TIMEOUT : RS_CM_REJ_CONSUMER);
        cm_conn_free(c);
        return;
    case CM_ESTABLISHED:
        /* One DREQ, not waited for. */
        c->tid = cm->next_tid++;
        cm_msg_dreq(c);
        cm_send_mad(cm, c->peer_mad_gid, c->peer_qp1, c->last);
        enter_timewait(cm, c, now_ns);
        return;
    case CM_DREQ_SENT:
        enter_timewait(cm, c, now_ns);
        return;
    case CM_SIDR_REQ_RCVD: {
        /* As Linux's cm_destroy_id(): the request is refused. */
        uint8_t mad[RS_CM_MAD_LEN];
        cm_msg_sidr_rep(mad, c, RS_CM_SIDR_REJECT);
        cm_send_mad(cm, c->peer_mad_gid, c->peer_qp1, mad);
        cm_conn_free(c);
        return;
    }
    case CM_SIDR_REQ_SENT:
        cm_conn_free(c);
        return;
    default:
        return;     /* time wait runs out silently */
    }
}

void
rs_cm_progress(struct rs_cm *cm, uint64_t now_ns)
{
    for (unsigned i = 0; i < RS_CM_MAX_CONNS; i++) {
        struct cm_conn *c = &cm->conn[i];
        if (c->state == CM_FREE || c->deadline_ns == 0 || now_ns < c->deadline_ns)
            continue;
        if (c->state == CM_TIMEWAIT) {
            cm_tell(cm, c, RS_CM_EV_TIMEWAIT_EXIT, 0, NULL);
            cm_conn_free(c);
            continue;
        }
        if (c->retries_left > 0) {
            c->retries_left--;
            cm->cnt.retries++;
            cm_send_waiting(cm, c, now_ns);
            continue;
        }
        cm->cnt.timeouts++;
        if (c->state == CM_REQ_SENT || c->state == CM_REP_SENT)
            reject(cm, c->peer_mad_gid, c->peer_qp1, c->tid, c->local_id, c->remote_id,
                   c->state == CM_REQ_SENT ? 0 : 1, RS_CM_REJ_TIMEOUT);
        cm_tell(cm, c, RS_CM_EV_TIMEOUT, 0, unanswered_name(c->state));
        /* A DREQ unanswered ends the connection all the same (Linux: DREQ_ERROR). */
        if (c->state == CM_DREQ_SENT)
            enter_timewait(cm, c, now_ns);
        else
            cm_conn_free(c);
    }
}

uint64_t
rs_cm_next_deadline(const struct rs_cm *cm)
{
    uint64_t d = UINT64_MAX;

    for (unsigned i = 0; i < RS_CM_MAX_CONNS; i++)
        if (cm->conn[i].state != CM_FREE && cm->conn[i].deadline_ns != 0 &&
            cm->conn[i].deadline_ns < d)
            d = cm->conn[i].deadline_ns;
    return d;
}
