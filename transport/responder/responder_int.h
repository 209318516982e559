/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * responder_int.h - the responder's state, shared by its setup and
 * controls (responder.c) and its loop and side channel (responder_loop.c).
 */
#ifndef ROCESHARK_RESPONDER_INT_H
#define ROCESHARK_RESPONDER_INT_H

#include <stdio.h>

#include <roceshark/transport/cm.h>
#include <roceshark/transport/responder.h>

struct resp_rping;

struct resp_qp {
    struct rs_rc_qp *qp;
    uint8_t *rbuf;              /* receive buffers: rq slots of recv_size bytes */
    struct rs_rc_mr rmr;
    uint64_t posted;
    uint32_t cm_id;             /* the CM connection that made it; 0: none */
    unsigned owner;             /* 1 + the side-channel connection's slot that asked for
                                   it (freed with it); 0: none */
    uint64_t created_ns;
    struct resp_rping *rping;   /* rping's server loop on it; NULL: none */
};

struct resp_mr {
    void *mem;
    struct rs_rc_mr mr;
};

/* A complaint about peers, said at most once a second, so that a flood of
 * connections cannot become a flood on the log. */
struct complaint {
    uint64_t last_ns;
    unsigned held;              /* complaints since the last one said */
};

struct rs_responder {
    struct rs_responder_opts o;
    struct rs_rc_udp *udp;
    struct rs_rc_ctx *ctx;
    struct resp_mr mr[RS_RESPONDER_MAX_MRS];
    int listen_fd;
    uint64_t listen_rest_until;         /* accept() failed: leave the listener alone */
    struct complaint refused, accept_failed, idle;
    uint32_t next_qpn;                  /* where resp_next_qpn() looks first */
    /* Fixed slots (fd -1 when free): closing one while walking them moves
     * no other, so a round may close any number. */
    struct rs_rc_side_conn conn[RS_RESPONDER_MAX_CONNS];
    struct resp_qp qp[RS_RESPONDER_MAX_QPS];
    unsigned n_qp;
    struct rs_cm *cm;                   /* RDMA CM on QP 1; NULL without --cm */
};

/* Creates a QP to a peer, with its receive buffers and recv_n receives; its path MTU and
 * local ACK timeout are given, the rest is o.attr. */
int resp_add_qp(struct rs_responder *r, uint32_t qpn, const uint8_t peer[16], uint32_t peer_qpn,
                uint32_t peer_psn, uint32_t pmtu, uint8_t timeout, char *err);
/* Destroys the QP at qp[i] and its buffers; the last QP takes its slot. */
void resp_remove_qp(struct rs_responder *r, unsigned i);
/* The CM on QP 1 (responder_cm.c): opened with the responder when o.cm. */
int resp_cm_open(struct rs_responder *r, char *err);
/* rping's server loop on q (responder_rping.c): started when the REQ is
 * accepted (a region, receives), fed every completion of q (data: a
 * receive's bytes), told when the RTU came, stopped (a JSON line on cm_out
 * saying how it ended) when q goes. */
int resp_rping_start(struct rs_responder *r, struct resp_qp *q, char *err);
void resp_rping_wc(struct rs_responder *r, struct resp_qp *q, const struct rs_rc_wc *wc,
                   const uint8_t *data);
void resp_rping_connected(struct rs_responder *r, struct resp_qp *q);
void resp_rping_stop(struct rs_responder *r, struct resp_qp *q);
/* A free QP number: the next after the last one handed out (from qpn0, wrapping at
 * 0xffffff), so that a number freed is not reused at once and a late packet of the
 * QP that had it finds no QP rather than the next requester's. */
uint32_t resp_next_qpn(struct rs_responder *r);
/* Posts up to n receives on q; returns how many, err filled when fewer. */
uint32_t resp_post_recvs(struct rs_responder *r, struct resp_qp *q, uint32_t n, bool bad,
                         char *err);
/* The parameters a requester needs for QP qpn, as one JSON line. */
void resp_format_info(const struct rs_responder *r, uint32_t qpn, char *buf, size_t size);
/* Where the responder says what went wrong: o.log, else standard error. */
FILE *resp_log(const struct rs_responder *r);

#endif /* ROCESHARK_RESPONDER_INT_H */
