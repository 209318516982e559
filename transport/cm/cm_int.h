/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm_int.h - the CM engine's connections and the messages they send.
 */
#ifndef ROCESHARK_CM_INT_H
#define ROCESHARK_CM_INT_H

#include <roceshark/transport/cm.h>

enum cm_state {
    CM_FREE = 0,
    CM_REQ_SENT,        /* active: waiting for the REP */
    CM_REP_SENT,        /* passive: waiting for the RTU */
    CM_ESTABLISHED,
    CM_DREQ_SENT,       /* waiting for the DREP */
    CM_REQ_RCVD,        /* passive: the REQ waits for the consumer (RS_CM_HOLD) */
    CM_REP_RCVD,        /* active: the REP waits for the consumer (hold_rtu) */
    CM_TIMEWAIT,        /* disconnected, until deadline_ns */
    CM_SIDR_REQ_SENT,   /* active: waiting for the SIDR_REP */
    CM_SIDR_REQ_RCVD    /* passive: the SIDR_REQ waits for the consumer */
};

struct cm_conn {
    enum cm_state state;
    bool active;
    uint32_t local_id, remote_id;
    uint64_t tid;               /* of the REQ, REP and RTU (and of our DREQ once sent) */
    /* SIDR: the request ID, ours (active) or the peer's (passive); local_id names the
     * request to the consumer either way. */
    uint32_t request_id;
    uint8_t peer_mad_gid[16];   /* where the peer's MADs come from and ours go */
    uint32_t peer_qp1;
    struct rs_cm_params ours, peer;
    uint8_t last[RS_CM_MAD_LEN];    /* the MAD resent on a timeout or a duplicate */
    uint64_t deadline_ns;       /* 0: no timer */
    uint64_t timeout_ns;        /* the wait for the peer's answer */
    uint8_t retries_left;
    uint8_t max_retries;        /* the REQ's */
    bool abandoned;             /* rs_cm_abandon(): nothing more is reported */
};

struct rs_cm {
    struct rs_cm_opts o;
    struct rs_cm_counters cnt;
    uint32_t next_id;
    uint64_t next_tid;
    struct cm_conn conn[RS_CM_MAX_CONNS];
};

/* --- building and reading messages (cm_msg.c) --- */

/* Each writes the whole 256-byte MAD of c into c->last. */
void cm_msg_req(const struct rs_cm *cm, struct cm_conn *c);
void cm_msg_rep(const struct rs_cm *cm, struct cm_conn *c);
void cm_msg_rtu(struct cm_conn *c);
void cm_msg_dreq(struct cm_conn *c);
/* A DREP or REJ answering the message of tid: written into mad. */
void cm_msg_drep(uint8_t *mad, uint64_t tid, uint32_t local_id, uint32_t remote_id);
void cm_msg_rej(uint8_t *mad, uint64_t tid, uint32_t local_id, uint32_t remote_id,
                uint8_t msg_rejected, uint16_t reason);
/* An MRA for c's REQ (msg_mraed 0) or REP (1), asking for service_timeout more
 * (4.096 us * 2^code). */
void cm_msg_mra(uint8_t *mad, const struct cm_conn *c, uint8_t msg_mraed,
                uint8_t service_timeout);
/* The consumer's private data into a REJ written by cm_msg_rej(). */
void cm_msg_rej_private(uint8_t *mad, const uint8_t *priv, uint8_t len);

/* The peer's end of a REQ (from the message at msg) into p, and the port of
 * its service; RS_CM_REJ_* when it asks for what we do not do, else 0. */
uint16_t cm_read_req(const uint8_t *msg, const uint8_t sender[16], struct rs_cm_params *p,
                     uint16_t *port);
/* The peer's end of a REP into p (its gid is the sender's). */
void cm_read_rep(const uint8_t *msg, const uint8_t sender[16], struct rs_cm_params *p);
/* A REJ's private data into p. */
void cm_read_rej_private(const uint8_t *msg, struct rs_cm_params *p);
/* SIDR: the SIDR_REQ of c (active); the SIDR_REP answering c's request (passive)
 * with status, and c->ours's QPN, Q_Key and private data, into mad. */
void cm_msg_sidr_req(struct cm_conn *c);
void cm_msg_sidr_rep(uint8_t *mad, const struct cm_conn *c, uint8_t status);
/* A SIDR_REQ's sender into p and its port; false when it is not to an rdma_cm UDP
 * port with rdma_cm's header. A SIDR_REP's QPN, Q_Key and private data into p. */
bool cm_read_sidr_req(const uint8_t *msg, const uint8_t sender[16], struct rs_cm_params *p,
                      uint16_t *port);
void cm_read_sidr_rep(const uint8_t *msg, const uint8_t sender[16], struct rs_cm_params *p);

/* --- the engine's own helpers, shared with SIDR (cm_sidr.c) --- */

void cm_send_mad(struct rs_cm *cm, const uint8_t gid[16], uint32_t qp, const uint8_t *mad);
void cm_send_waiting(struct rs_cm *cm, struct cm_conn *c, uint64_t now);
void cm_tell(struct rs_cm *cm, struct cm_conn *c, enum rs_cm_event_type type, uint16_t reason,
             const char *unanswered);
struct cm_conn *cm_conn_new(struct rs_cm *cm);
struct cm_conn *cm_conn_by_local(struct rs_cm *cm, uint32_t id);
void cm_conn_free(struct cm_conn *c);
unsigned cm_half_open(const struct rs_cm *cm, const uint8_t gid[16]);
/* A passive connection c from gid's QP qp, for the message of tid to port. */
void cm_conn_passive(struct rs_cm *cm, struct cm_conn *c, const uint8_t gid[16], uint32_t qp,
                     uint64_t tid, const struct rs_cm_params *peer, uint16_t port);
/* A new active connection to peer_gid's port from ours, its first message's wait set;
 * NULL (err filled) when every slot is taken. */
struct cm_conn *cm_conn_active(struct rs_cm *cm, const uint8_t peer_gid[16], uint16_t port,
                               const struct rs_cm_params *ours, char *err);
/* SIDR's share of rs_cm_input(): a SIDR_REQ or SIDR_REP. */
void cm_sidr_input(struct rs_cm *cm, const uint8_t gid[16], uint32_t qp,
                   const struct rs_cm_mad_hdr *h, const uint8_t *msg);

#endif /* ROCESHARK_CM_INT_H */
