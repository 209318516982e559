/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm_msg.c - the CM messages the engine sends, and the two it learns a
 * peer from (REQ and REP), through the one MAD layout table
 * (include/roceshark/dissectors/cm_mad.h), as rdma_cm fills them over RoCEv2.
 */
#include <string.h>

#include <roceshark/dissectors/wire.h>

#include "cm_int.h"

#define TARGET_ACK_DELAY 15     /* what rxe announces: 134 ms */
#define LID_PERMISSIVE 0xffff   /* RoCE has no LIDs; rdma_cm names the permissive one */
#define HOP_LIMIT 64

static bool
gid_is_ipv4(const uint8_t gid[16])
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

    return memcmp(gid, mapped, sizeof(mapped)) == 0;
}

static uint8_t *
msg_start(uint8_t *mad, uint16_t attr, uint64_t tid, const struct rs_cm_layout **l)
{
    memset(mad, 0, RS_CM_MAD_LEN);
    rs_cm_hdr_write(mad, attr, tid);
    *l = rs_cm_layout(attr);
    return mad + RS_CM_MAD_HDR_LEN;
}

static void
comm_ids(const struct rs_cm_layout *l, uint8_t *msg, uint32_t local_id, uint32_t remote_id)
{
    rs_cm_set(l, msg, RS_CMF_LOCAL_COMM_ID, local_id);
    rs_cm_set(l, msg, RS_CMF_REMOTE_COMM_ID, remote_id);
}

static void
private_write(const struct rs_cm_layout *l, uint8_t *msg, size_t skip, const uint8_t *data,
              size_t len)
{
    size_t room;
    uint8_t *p = rs_cm_bytes_w(l, msg, RS_CMF_PRIVATE_DATA, &room);

    /* A consumer's empty private data may come as NULL (memcpy's arguments must not). */
    if (p != NULL && len > 0 && skip + len <= room)
        memcpy(p + skip, data, len);
}

/* A REQ's or SIDR_REQ's private data: rdma_cm's IP header of c's two ends, then
 * the consumer's bytes (at most max). */
static void
ip_private_write(const struct rs_cm_layout *l, uint8_t *m, const struct cm_conn *c, size_t max)
{
    const struct rs_cm_params *o = &c->ours;
    struct rs_cm_ip_hdr h;
    uint8_t hdr[RS_CM_IP_HDR_LEN];

    h.ip_version = gid_is_ipv4(o->gid) && gid_is_ipv4(c->peer.gid) ? 4 : 6;
    h.src_port = o->port;
    memcpy(h.src, o->gid, 16);
    memcpy(h.dst, c->peer.gid, 16);
    rs_cm_ip_hdr_write(&h, hdr);
    private_write(l, m, 0, hdr, sizeof(hdr));
    private_write(l, m, RS_CM_IP_HDR_LEN, o->private_data,
                  o->private_len < max ? o->private_len : max);
}

void
cm_msg_req(const struct rs_cm *cm, struct cm_conn *c)
{
    const struct rs_cm_layout *l;
    uint8_t *m = msg_start(c->last, RS_CM_REQ, c->tid, &l);
    const struct rs_cm_params *o = &c->ours;
    size_t n;

    rs_cm_set(l, m, RS_CMF_LOCAL_COMM_ID, c->local_id);
    rs_cm_set(l, m, RS_CMF_SERVICE_ID, rs_cm_service_id(RS_CM_PS_TCP, c->peer.port));
    rs_cm_set(l, m, RS_CMF_LOCAL_CA_GUID, cm->o.ca_guid);
    rs_cm_set(l, m, RS_CMF_LOCAL_QPN, o->qpn);
    rs_cm_set(l, m, RS_CMF_RESPONDER_RESOURCES, o->responder_resources);
    rs_cm_set(l, m, RS_CMF_INITIATOR_DEPTH, o->initiator_depth);
    rs_cm_set(l, m, RS_CMF_REMOTE_CM_TIMEOUT, cm->o.response_timeout);
    rs_cm_set(l, m, RS_CMF_STARTING_PSN, o->psn);
    rs_cm_set(l, m, RS_CMF_LOCAL_CM_TIMEOUT, cm->o.response_timeout);
    rs_cm_set(l, m, RS_CMF_RETRY_COUNT, o->retry_count);
    rs_cm_set(l, m, RS_CMF_PKEY, o->pkey);
    rs_cm_set(l, m, RS_CMF_PATH_MTU, rs_cm_mtu_code(o->pmtu));
    rs_cm_set(l, m, RS_CMF_RNR_RETRY_COUNT, o->rnr_retry_count);
    rs_cm_set(l, m, RS_CMF_MAX_CM_RETRIES, cm->o.max_retries);
    rs_cm_set(l, m, RS_CMF_PRIMARY_LOCAL_LID, LID_PERMISSIVE);
    rs_cm_set(l, m, RS_CMF_PRIMARY_REMOTE_LID, LID_PERMISSIVE);
    memcpy(rs_cm_bytes_w(l, m, RS_CMF_PRIMARY_LOCAL_GID, &n), o->gid, 16);
    memcpy(rs_cm_bytes_w(l, m, RS_CMF_PRIMARY_REMOTE_GID, &n), c->peer.gid, 16);
    rs_cm_set(l, m, RS_CMF_PRIMARY_HOP_LIMIT, HOP_LIMIT);
    rs_cm_set(l, m, RS_CMF_PRIMARY_ACK_TIMEOUT, o->ack_timeout);

    ip_private_write(l, m, c, RS_CM_REQ_PRIVATE_MAX);
}

void
cm_msg_rep(const struct rs_cm *cm, struct cm_conn *c)
{
    const struct rs_cm_layout *l;
    uint8_t *m = msg_start(c->last, RS_CM_REP, c->tid, &l);
    const struct rs_cm_params *o = &c->ours;

    comm_ids(l, m, c->local_id, c->remote_id);
    rs_cm_set(l, m, RS_CMF_LOCAL_QPN, o->qpn);
    rs_cm_set(l, m, RS_CMF_STARTING_PSN, o->psn);
    rs_cm_set(l, m, RS_CMF_RESPONDER_RESOURCES, o->responder_resources);
    rs_cm_set(l, m, RS_CMF_INITIATOR_DEPTH, o->initiator_depth);
    rs_cm_set(l, m, RS_CMF_TARGET_ACK_DELAY, TARGET_ACK_DELAY);
    rs_cm_set(l, m, RS_CMF_RNR_RETRY_COUNT, o->rnr_retry_count);
    rs_cm_set(l, m, RS_CMF_LOCAL_CA_GUID, cm->o.ca_guid);
    private_write(l, m, 0, o->private_data, o->private_len);
}

void
cm_msg_rtu(struct cm_conn *c)
{
    const struct rs_cm_layout *l;
    uint8_t *m = msg_start(c->last, RS_CM_RTU, c->tid, &l);

    comm_ids(l, m, c->local_id, c->remote_id);
}

void
cm_msg_dreq(struct cm_conn *c)
{
    const struct rs_cm_layout *l;
    uint8_t *m = msg_start(c->last, RS_CM_DREQ, c->tid, &l);

    comm_ids(l, m, c->local_id, c->remote_id);
    rs_cm_set(l, m, RS_CMF_REMOTE_QPN, c->peer.qpn);
}

void
cm_msg_drep(uint8_t *mad, uint64_t tid, uint32_t local_id, uint32_t remote_id)
{
    const struct rs_cm_layout *l;
    uint8_t *m = msg_start(mad, RS_CM_DREP, tid, &l);

    comm_ids(l, m, local_id, remote_id);
}

void
cm_msg_rej(uint8_t *mad, uint64_t tid, uint32_t local_id, uint32_t remote_id,
           uint8_t msg_rejected, uint16_t reason)
{
    const struct rs_cm_layout *l;
    uint8_t *m = msg_start(mad, RS_CM_REJ, tid, &l);

    comm_ids(l, m, local_id, remote_id);
    rs_cm_set(l, m, RS_CMF_MSG_REJECTED, msg_rejected);
    rs_cm_set(l, m, RS_CMF_REJ_REASON, reason);
}

void
cm_msg_mra(uint8_t *mad, const struct cm_conn *c, uint8_t msg_mraed, uint8_t service_timeout)
{
    const struct rs_cm_layout *l;
    uint8_t *m = msg_start(mad, RS_CM_MRA, c->tid, &l);

    comm_ids(l, m, c->local_id, c->remote_id);
    rs_cm_set(l, m, RS_CMF_MSG_MRAED, msg_mraed);
    rs_cm_set(l, m, RS_CMF_SERVICE_TIMEOUT, service_timeout);
}

void
cm_msg_rej_private(uint8_t *mad, const uint8_t *priv, uint8_t len)
{
    private_write(rs_cm_layout(RS_CM_REJ), mad + RS_CM_MAD_HDR_LEN, 0, priv,
                  len < RS_CM_REJ_PRIVATE_MAX ? len : RS_CM_REJ_PRIVATE_MAX);
}

/* The other way: the sender's port and the consumer's bytes after the header into p;
 * false for a header that is not rdma_cm's. */
static bool
ip_private_read(const struct rs_cm_layout *l, const uint8_t *msg, struct rs_cm_params *p)
{
    struct rs_cm_ip_hdr h;
    size_t n;
    const uint8_t *priv = rs_cm_bytes(l, msg, RS_CMF_PRIVATE_DATA, &n);

    if (!rs_cm_ip_hdr_read(priv, &h))
        return false;
    p->port = h.src_port;
    p->private_len = (uint8_t)(n - RS_CM_IP_HDR_LEN);
    memcpy(p->private_data, priv + RS_CM_IP_HDR_LEN, p->private_len);
    return true;
}

/* A message's parameters, empty but for the peer's address: the sender's, not
 * the message's GID; over RoCEv2 they are one, and the address is what the
 * packets will come from. */
static void
params_from(const uint8_t sender[16], struct rs_cm_params *p)
{
    memset(p, 0, sizeof(*p));
    memcpy(p->gid, sender, 16);
}

/* A message's whole private data into p. */
static void
private_read(const struct rs_cm_layout *l, const uint8_t *msg, struct rs_cm_params *p)
{
    size_t n;
    const uint8_t *priv = rs_cm_bytes(l, msg, RS_CMF_PRIVATE_DATA, &n);

    p->private_len = (uint8_t)n;
    memcpy(p->private_data, priv, n);
}

uint16_t
cm_read_req(const uint8_t *msg, const uint8_t sender[16], struct rs_cm_params *p,
            uint16_t *port)
{
    const struct rs_cm_layout *l = rs_cm_layout(RS_CM_REQ);

    params_from(sender, p);
    p->qpn = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_QPN);
    p->psn = (uint32_t)rs_cm_get(l, msg, RS_CMF_STARTING_PSN);
    p->pmtu = rs_cm_mtu_bytes((uint8_t)rs_cm_get(l, msg, RS_CMF_PATH_MTU));
    p->pkey = (uint16_t)rs_cm_get(l, msg, RS_CMF_PKEY);
    p->responder_resources = (uint8_t)rs_cm_get(l, msg, RS_CMF_RESPONDER_RESOURCES);
    p->initiator_depth = (uint8_t)rs_cm_get(l, msg, RS_CMF_INITIATOR_DEPTH);
    p->retry_count = (uint8_t)rs_cm_get(l, msg, RS_CMF_RETRY_COUNT);
    p->rnr_retry_count = (uint8_t)rs_cm_get(l, msg, RS_CMF_RNR_RETRY_COUNT);
    p->ack_timeout = (uint8_t)rs_cm_get(l, msg, RS_CMF_PRIMARY_ACK_TIMEOUT);
    if (rs_cm_get(l, msg, RS_CMF_TRANSPORT_TYPE) != 0)
        return RS_CM_REJ_INVALID_TRANSPORT;
    if (p->pmtu == 0)
        return RS_CM_REJ_INVALID_MTU;
    if (!rs_cm_service_port(rs_cm_get(l, msg, RS_CMF_SERVICE_ID), RS_CM_PS_TCP, port))
        return RS_CM_REJ_INVALID_SERVICE_ID;
    if (!ip_private_read(l, msg, p))
        return RS_CM_REJ_CONSUMER;      /* rdma_cm's listener refuses what it cannot read */
    return 0;
}

void
cm_read_rep(const uint8_t *msg, const uint8_t sender[16], struct rs_cm_params *p)
{
    const struct rs_cm_layout *l = rs_cm_layout(RS_CM_REP);

    params_from(sender, p);
    p->qpn = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_QPN);
    p->psn = (uint32_t)rs_cm_get(l, msg, RS_CMF_STARTING_PSN);
    p->responder_resources = (uint8_t)rs_cm_get(l, msg, RS_CMF_RESPONDER_RESOURCES);
    p->initiator_depth = (uint8_t)rs_cm_get(l, msg, RS_CMF_INITIATOR_DEPTH);
    p->rnr_retry_count = (uint8_t)rs_cm_get(l, msg, RS_CMF_RNR_RETRY_COUNT);
    private_read(l, msg, p);
}

void
cm_read_rej_private(const uint8_t *msg, struct rs_cm_params *p)
{
    private_read(rs_cm_layout(RS_CM_REJ), msg, p);
}

void
rs_cm_region_write(uint32_t rkey, uint64_t va, uint64_t length, uint8_t out[RS_CM_REGION_LEN])
{
    memcpy(out, "RSMR", 4);
    rs_store_be32(out + 4, rkey);
    rs_store_be64(out + 8, va);
    rs_store_be64(out + 16, length);
}

bool
rs_cm_region_read(const uint8_t *in, size_t len, uint32_t *rkey, uint64_t *va,
                  uint64_t *length)
{
    if (len < RS_CM_REGION_LEN || memcmp(in, "RSMR", 4) != 0)
        return false;
    *rkey = rs_load_be32(in + 4);
    *va = rs_load_be64(in + 8);
    *length = rs_load_be64(in + 16);
    return true;
}

void
cm_msg_sidr_req(struct cm_conn *c)
{
    const struct rs_cm_layout *l;
    uint8_t *m = msg_start(c->last, RS_CM_SIDR_REQ, c->tid, &l);

    rs_cm_set(l, m, RS_CMF_REQUEST_ID, c->request_id);
    rs_cm_set(l, m, RS_CMF_PKEY, 0xffff);
    rs_cm_set(l, m, RS_CMF_SERVICE_ID, rs_cm_service_id(RS_CM_PS_UDP, c->peer.port));
    ip_private_write(l, m, c, RS_CM_SIDR_REQ_PRIVATE_MAX);
}

void
cm_msg_sidr_rep(uint8_t *mad, const struct cm_conn *c, uint8_t status)
{
    const struct rs_cm_layout *l;
    uint8_t *m = msg_start(mad, RS_CM_SIDR_REP, c->tid, &l);
    const struct rs_cm_params *o = &c->ours;

    rs_cm_set(l, m, RS_CMF_REQUEST_ID, c->request_id);
    rs_cm_set(l, m, RS_CMF_SIDR_STATUS, status);
    rs_cm_set(l, m, RS_CMF_SERVICE_ID, rs_cm_service_id(RS_CM_PS_UDP, o->port));
    if (status == RS_CM_SIDR_VALID) {
        rs_cm_set(l, m, RS_CMF_LOCAL_QPN, o->qpn);
        rs_cm_set(l, m, RS_CMF_LOCAL_QKEY, o->qkey);
    }
    private_write(l, m, 0, o->private_data,
                  o->private_len < RS_CM_SIDR_REP_PRIVATE_MAX ? o->private_len
                                                              : RS_CM_SIDR_REP_PRIVATE_MAX);
}

bool
cm_read_sidr_req(const uint8_t *msg, const uint8_t sender[16], struct rs_cm_params *p,
                 uint16_t *port)
{
    const struct rs_cm_layout *l = rs_cm_layout(RS_CM_SIDR_REQ);

    params_from(sender, p);
    p->pkey = (uint16_t)rs_cm_get(l, msg, RS_CMF_PKEY);
    return rs_cm_service_port(rs_cm_get(l, msg, RS_CMF_SERVICE_ID), RS_CM_PS_UDP, port) &&
           ip_private_read(l, msg, p);
}

void
cm_read_sidr_rep(const uint8_t *msg, const uint8_t sender[16], struct rs_cm_params *p)
{
    const struct rs_cm_layout *l = rs_cm_layout(RS_CM_SIDR_REP);

    params_from(sender, p);
    p->qpn = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_QPN);
    p->qkey = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_QKEY);
    private_read(l, msg, p);
}
