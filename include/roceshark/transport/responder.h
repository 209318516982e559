/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * responder.h - an IBTA RC responder service over the software RC
 * transport, for NICs, software stacks, scripts and tests to talk to.
 *
 * It owns memory regions, QPs with their receive buffers, and the TCP side
 * channel on which requesters announce themselves (one QP each, perftest's
 * way), or RDMA CM on QP 1 (rdma_cm's way, transport/cm). The caller opens the UDP port and the context and hands them over;
 * rs_responder_run() then serves until told to stop. `roceshark responder`
 * is one caller; fault scripts and replay embed it the same way.
 */
#ifndef ROCESHARK_RESPONDER_H
#define ROCESHARK_RESPONDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <roceshark/transport/rc.h>

#define RS_RESPONDER_MAX_MRS 16
/* QPs at most; each has a receive region, and a context holds 256 regions in all, so
 * with the responder's own regions the last few requesters may be refused. */
#define RS_RESPONDER_MAX_QPS 256
#define RS_RESPONDER_MAX_CONNS 64       /* side-channel peers at once; more are refused */
/* Side-channel QPs one peer (the connection's source address) may hold at once; more
 * are refused with a reason. A QP lives as long as the connection that asked for it. */
#define RS_RESPONDER_MAX_QPS_PER_PEER 64
#define RS_RESPONDER_DEFAULT_IDLE_NS 60000000000ull     /* side_idle_ns's default: 60 s */
#define RS_RESPONDER_DEFAULT_LISTEN 18515   /* perftest's port */

/* What runs over a connection that RDMA CM made. */
enum rs_responder_app {
    RS_RESPONDER_APP_AUTO = 0,  /* rping's server loop on rping's port (7174), none elsewhere */
    RS_RESPONDER_APP_NONE,      /* nothing: the peer READs, WRITEs and SENDs as it likes */
    RS_RESPONDER_APP_RPING      /* rping's server loop on every connection (rping -s) */
};

struct rs_responder_mr_spec {
    uint64_t size;
    unsigned access;            /* RS_RC_ACCESS_* */
};

struct rs_responder_opts {
    struct rs_rc_qp_attr attr;  /* every QP's; rq_depth at least recv_n */
    uint8_t local_gid[16];      /* what requesters are told to send to (IPv4: mapped) */
    uint32_t local_scope;       /* its interface, for a link-local address */
    struct rs_responder_mr_spec mr[RS_RESPONDER_MAX_MRS];
    unsigned n_mr;              /* 0: one 1 MiB region, all access */
    uint32_t rkey0;             /* R_Key of the first region, +1 for each next; 0: chosen */
    uint64_t va0;               /* VA of the first region; 0: chosen */
    /* Static QPs qpn0.. to a known peer (have_peer), n_static of them. */
    bool have_peer;
    uint8_t peer_gid[16];
    uint32_t peer_qpn, peer_psn, qpn0, psn;
    unsigned n_static;
    uint32_t recv_n;            /* receives posted on every new QP */
    uint32_t recv_size;         /* bytes of each */
    bool repost;                /* post a receive again once it completes */
    bool busy_poll;             /* spin instead of sleeping */
    uint16_t listen_port;       /* side channel; 0: none */
    /* A side-channel QP that takes no packet for this long is freed (and its
     * connection closed when it holds no other); 0: never. */
    uint64_t side_idle_ns;
    /* RDMA CM on QP 1: REQs for rdma_cm's port cm_port (0: any) get a QP and a
     * REP naming the first region; a DREQ destroys the QP. */
    bool cm;
    uint16_t cm_port;
    FILE *cm_out;               /* CM events as JSON lines; NULL: none */
    /* rping's server loop (responder_rping.c): per ping, READ the client's
     * source buffer, SEND a go-ahead, WRITE the ping into its sink, SEND
     * another, until the client disconnects. Its events go to cm_out, each
     * ping's data too when wc_out is set. */
    enum rs_responder_app app;
    FILE *wc_out;               /* every completion as JSON; NULL: none */
    FILE *log;                  /* complaints about peers; NULL: stderr */
    bool (*stopped)(void);      /* asked every turn; NULL: never */
};

/* Defaults: QP 0x11, one static QP, 64 KiB receives, the side channel on
 * 18515 with QPs idle for 60 s freed, attributes as rs_rc_qp_attr_init() makes them. */
void rs_responder_opts_init(struct rs_responder_opts *o);

struct rs_responder;

/* Registers the regions, creates the static QPs and opens the side channel.
 * udp and ctx stay the caller's. Fails with RS_EINVAL (the options do not
 * fit), RS_ENOMEM or RS_EIO (the side channel's port), err filled. */
int rs_responder_open(const struct rs_responder_opts *o, struct rs_rc_udp *udp,
                      struct rs_rc_ctx *ctx, struct rs_responder **out, char *err);
void rs_responder_close(struct rs_responder *r);

/* Serves RoCE packets, timers and the side channel until opts.stopped says
 * so (returns 0), on_extra returns false (returns 0), or the port fails
 * (RS_EIO, err filled). extra_fd (-1: none) is polled beside the rest;
 * on_extra is called when it is readable or hung up. */
int rs_responder_run(struct rs_responder *r, int extra_fd,
                     bool (*on_extra)(struct rs_responder *r, void *arg), void *arg,
                     char *err);

/* Our parameters and the QPs and regions, as one JSON line (the line the
 * command prints when it is ready). */
void rs_responder_print_start(const struct rs_responder *r, FILE *f);
/* Every QP's number, state and receives posted, as one JSON line. */
void rs_responder_print_state(const struct rs_responder *r, FILE *f);
/* Posts n receives to every QP, or to QP qpn (qpn >= 0); bad ones name no
 * region (the peer's SEND meets a Remote Operational Error). Returns how
 * many were posted in all; why is filled when that is fewer than asked. */
uint64_t rs_responder_post_recvs(struct rs_responder *r, uint32_t n, int64_t qpn, bool bad,
                                 char *why, size_t why_size);
/* What the side channel would answer for our QP qpn: our address, qpn, first PSN, the
 * first region's R_Key, VA and length, and the PMTU. */
void rs_responder_get_info(const struct rs_responder *r, uint32_t qpn,
                           struct rs_rc_conn_info *info);
/* The bytes of the first region at offset, NULL when outside it. */
const uint8_t *rs_responder_memory(const struct rs_responder *r, uint64_t offset,
                                   uint64_t length);
struct rs_rc_ctx *rs_responder_ctx(const struct rs_responder *r);

#endif /* ROCESHARK_RESPONDER_H */
