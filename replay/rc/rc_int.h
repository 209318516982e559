/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_int.h - what the files of the RC transport share; not part of the API.
 *
 * A QP holds a responder (resp), a requester (req, whose completer lives in
 * rc_comp.c), a receive queue, a send queue and one completion queue.
 * Queues are rings indexed by free-running 64-bit counters: slot = n % size.
 */
#ifndef ROCESHARK_RC_INT_H
#define ROCESHARK_RC_INT_H

#include <stddef.h>

#include <roceshark/dissect.h>
#include <roceshark/encode.h>
#include <roceshark/packet.h>
#include <roceshark/rc.h>
#include <roceshark/wire.h>

#define RC_PSN_MASK 0xffffffu
#define RC_GSI_QP 1             /* the General Service Interface: MADs, not RC */
#define RC_MAX_MR 256
#define RC_QP_BUCKETS 256
#define RC_MAX_DMA_LEN 0x80000000u      /* C9-94: DMA length at most 2^31 */
#define RC_MAX_MSG_PKTS (1u << 22)      /* keeps a message inside half the PSN space */
#define RC_OPCODE_NONE 0xffu            /* no message in progress */

/* --- 24-bit PSN arithmetic: the only way PSNs are compared. --- */

/* Signed distance a - b in the 24-bit PSN space: > 0 when a is ahead of b. */
static inline int32_t
rc_psn_diff(uint32_t a, uint32_t b)
{
    uint32_t d = ((a - b) & RC_PSN_MASK) << 8;

    return (int32_t)d / 256;
}

static inline uint32_t
rc_psn_add(uint32_t psn, uint32_t n)
{
    return (psn + n) & RC_PSN_MASK;
}

/* True when first <= psn <= last, in PSN order. */
static inline bool
rc_psn_in(uint32_t psn, uint32_t first, uint32_t last)
{
    return rc_psn_diff(psn, first) >= 0 && rc_psn_diff(last, psn) >= 0;
}

/* Packets a message of len bytes takes at pmtu (at least one). */
static inline uint32_t
rc_npkts(uint64_t len, uint32_t pmtu)
{
    return len == 0 ? 1 : (uint32_t)((len + pmtu - 1) / pmtu);
}

/* --- memory regions (rc_mr.c) --- */

struct rc_mr {
    struct rs_rc_mr pub;
    uint8_t *addr;
    bool used;
    bool rkey_valid;        /* false once invalidated */
};

/* The host bytes for [va, va+len) of the valid region rkey names, when it
 * grants `access`; NULL otherwise, with *why set to the error state. A
 * zero-length range still needs a valid key. */
enum rc_mr_fail { RC_MR_OK, RC_MR_NO_KEY, RC_MR_ACCESS, RC_MR_BOUNDS };
uint8_t *rc_mr_remote(struct rs_rc_ctx *ctx, uint32_t rkey, uint64_t va, uint64_t len,
                      unsigned access, enum rc_mr_fail *why);
uint8_t *rc_mr_local(struct rs_rc_ctx *ctx, uint32_t lkey, uint64_t addr, uint64_t len,
                     unsigned access);
/* Invalidates rkey if it names a region that allows it (SEND with Invalidate). */
bool rc_mr_invalidate(struct rs_rc_ctx *ctx, uint32_t rkey, bool check_only);

/* --- a received packet, as the state machines read it --- */

struct rc_pkt {
    const struct rs_packet *p;
    const struct rs_ib_opcode *info;
    uint8_t opcode;
    uint8_t op;             /* enum rs_ib_op */
    uint8_t seg;            /* enum rs_ib_seg */
    bool ackreq;
    uint8_t ecn;
    uint32_t psn;
    uint32_t dqpn;
    const uint8_t *payload;
    uint32_t paylen;
    /* RETH or AtomicETH */
    uint64_t va;
    uint32_t rkey;
    uint32_t dmalen;
    uint64_t swap_add, compare;
    /* AETH and AtomicAckETH */
    uint8_t syndrome;
    uint32_t msn;
    uint64_t orig;
    uint32_t imm;
    uint32_t ieth;
};

/* --- work queues --- */

enum rc_swqe_state { RC_SWQE_POSTED, RC_SWQE_SENT };

struct rc_swqe {
    struct rs_rc_send_wr wr;
    uint8_t *local;         /* the local buffer, resolved when posted */
    uint32_t first_psn, last_psn, npkts;
    uint32_t done;          /* packets acknowledged (READ: responses taken) */
    uint8_t state;
};

struct rc_rwqe {
    struct rs_rc_recv_wr wr;
};

/* A responder resource: what a duplicate READ or atomic is answered from. */
enum rc_res_kind { RC_RES_FREE, RC_RES_READ, RC_RES_ATOMIC };

struct rc_res {
    uint8_t kind;
    uint32_t first_psn, last_psn;
    uint64_t va;
    uint32_t rkey;
    uint32_t length;
    uint64_t orig;          /* atomic: the value memory held before */
};

struct rc_resp {
    uint32_t epsn;          /* the PSN expected next */
    uint32_t msn;
    bool nak_sent;          /* a sequence NAK went out for the current gap */
    uint8_t last_opcode;    /* opcode of the unfinished message, or RC_OPCODE_NONE */
    bool have_rwqe;         /* a SEND or WRITE with Immediate holds rq head */
    uint32_t recv_off;
    uint64_t va;            /* WRITE in progress */
    uint32_t rkey;
    uint32_t resid;
    uint32_t length;
    struct rc_res *res;
    uint32_t res_head;
    bool ack_pending;
    uint32_t ack_psn;       /* PSN of the newest SEND/WRITE packet executed */
    uint32_t ack_held;      /* AckReq'd packets the pending ACK covers */
    uint32_t ack_msn;       /* the MSN as of ack_psn: a READ or atomic after it counts on */
    uint64_t ack_due_ns;    /* when the held ACK must go (coalescing) */
    uint64_t last_cnp_ns;
    bool cnp_ever;
#ifdef RS_RC_MISBEHAVE
    bool bad_wrap_seen;     /* RS_RC_MISBEHAVE_NO_PSN_WRAP: a PSN executed, the last here */
    uint32_t bad_wrap_last;
#endif
};

struct rc_req {
    uint64_t head;          /* oldest WQE not completed */
    uint64_t frontier;      /* WQEs before it have PSNs */
    uint64_t tail;          /* next free slot */
    uint64_t cur;           /* next WQE to (re)transmit */
    uint32_t cur_pkt;       /* packet of cur to transmit next */
    uint32_t npsn;          /* PSN of the next new packet */
    uint32_t una;           /* oldest PSN not acknowledged */
    uint32_t rd_atomic;     /* READ and atomic WQEs outstanding */
    uint32_t since_ackreq;
    uint8_t retry_left;
    uint8_t rnr_left;
    uint64_t timer_ns;      /* local ACK timeout deadline, RS_RC_INFINITE when idle */
    uint64_t rnr_until;     /* no transmission before this (RNR wait) */
    bool retrying;          /* a go-back is under way from retry_psn */
    uint32_t retry_psn;
};

struct rs_rc_qp {
    struct rs_rc_ctx *ctx;
    struct rs_rc_qp_attr attr;
    uint8_t state;
    struct rs_rc_qp *hash_next;
    struct rs_rc_qp *next;  /* the context's list */
    struct rc_resp resp;
    struct rc_req req;
    struct rc_rwqe *rq;
    uint64_t rq_head, rq_tail;
    struct rc_swqe *sq;
    struct rs_rc_wc *cq;
    uint32_t cq_size;
    uint64_t cq_head, cq_tail;
    uint64_t last_rx_ns;    /* when it last took a packet; 0: never */
};

struct rs_rc_ctx {
    struct rs_rc_ctx_opts opts;
    struct rs_rc_link link;
    struct rs_decode_opts dopts;
    enum rs_layer ip_layer;     /* RS_LAYER_IPV4 for an IPv4-mapped address, else IPV6 */
    struct rc_mr mr[RC_MAX_MR];
    uint32_t next_rkey;
    unsigned mr_last;       /* slot of the last R_Key found */
    struct rs_rc_qp *qp_hash[RC_QP_BUCKETS];
    struct rs_rc_qp *qps;
    uint32_t next_qpn;
    uint64_t now;
    struct rs_rc_counters cnt;
    rs_rc_gsi_fn gsi;           /* QP 1's MADs go there; NULL: dropped */
    void *gsi_arg;
    uint32_t gsi_psn;
};

/* --- QP 1 (rc_gsi.c) --- */

/* Hands a UD SEND to QP 1 to the registered handler. */
void rc_gsi_input(struct rs_rc_ctx *ctx, const struct rs_packet *p);

/* --- transmit (rc_tx.c) --- */

/* Fields every packet of qp carries: destination QP and P_Key. */
void rc_fields_init(const struct rs_rc_qp *qp, struct rs_ib_fields *f, uint8_t opcode,
                    uint32_t psn);
/* Builds f with payload and sends it to peer_gid (of the context's IP version). */
void rc_tx_to(struct rs_rc_ctx *ctx, const uint8_t peer_gid[16], const struct rs_ib_fields *f,
              const void *payload, uint32_t len);
/* Builds f with payload and sends it to qp's peer. */
void rc_tx(struct rs_rc_qp *qp, const struct rs_ib_fields *f, const void *payload,
           uint32_t len);
/* The ACK-type AETH syndrome: credits for the free receive WQEs. */
uint8_t rc_ack_syndrome(const struct rs_rc_qp *qp);
void rc_tx_ack(struct rs_rc_qp *qp, uint8_t syndrome, uint32_t psn, uint32_t msn);
void rc_tx_cnp(struct rs_rc_qp *qp);

/* --- completions and queues (rc_wq.c) --- */

void rc_cq_push(struct rs_rc_qp *qp, const struct rs_rc_wc *wc);
/* Completes the send WQE at req.head with status and advances head. */
void rc_complete_send(struct rs_rc_qp *qp, uint8_t status);
/* Completes the receive WQE at rq_head and advances it. */
void rc_complete_recv(struct rs_rc_qp *qp, uint8_t status, uint8_t opcode, uint32_t byte_len,
                      uint8_t flags, uint32_t imm, uint32_t inv_rkey);
/* Moves qp to the error state: every WQE left completes with WR_FLUSH_ERR. */
void rc_qp_error(struct rs_rc_qp *qp);
static inline uint32_t
rc_rq_count(const struct rs_rc_qp *qp)
{
    return (uint32_t)(qp->rq_tail - qp->rq_head);
}
static inline bool
rc_wr_is_rd_atomic(uint8_t opcode)
{
    return opcode == RS_RC_WR_RDMA_READ || opcode == RS_RC_WR_ATOMIC_CMP_AND_SWP ||
           opcode == RS_RC_WR_ATOMIC_FETCH_AND_ADD;
}

/* --- the state machines --- */

void rc_trace(struct rs_rc_qp *qp, const char *machine, const char *state, uint32_t psn);
static inline bool
rc_trace_enabled(const struct rs_rc_qp *qp)
{
    return qp->ctx->opts.trace != NULL;
}
void rc_resp_handle(struct rs_rc_qp *qp, const struct rc_pkt *pkt);      /* rc_resp.c */
void rc_resp_flush_ack(struct rs_rc_qp *qp);
/* Asks for an ACK: at once, or held up to the context's ack_delay_ns so that
 * it covers the requests that follow. */
void rc_resp_want_ack(struct rs_rc_qp *qp, bool now);
/* Sends a held ACK whose time has come. */
void rc_resp_ack_timer(struct rs_rc_qp *qp);
void rc_resp_reset(struct rs_rc_qp *qp);
void rc_comp_handle(struct rs_rc_qp *qp, const struct rc_pkt *pkt);      /* rc_comp.c */
void rc_req_transmit(struct rs_rc_qp *qp, uint32_t budget);             /* rc_req.c */
void rc_req_timers(struct rs_rc_qp *qp);
void rc_req_rewind(struct rs_rc_qp *qp, uint32_t psn);
void rc_req_progress(struct rs_rc_qp *qp);
void rc_req_reset(struct rs_rc_qp *qp);
uint64_t rc_req_deadline(const struct rs_rc_qp *qp);
/* accept() failed: RS_ENOENT when no connection was pending after all,
 * else RS_EIO; fills err. */
int rc_side_accept_error(char *err);                                    /* rc_side.c */

#ifdef RS_RC_MISBEHAVE
/* Only in the test build of tests/rc/misbehaving_responder.c: a responder that breaks the
 * rules on purpose, so that the conformance suite can be seen to fail for the right
 * reason. Never defined in what is installed. */
#define RS_RC_MISBEHAVE_NAK_TWICE 0x1u     /* two NAKs for one PSN sequence error */
#define RS_RC_MISBEHAVE_NO_RNR 0x2u        /* drop a SEND with no receive, without RNR NAK */
#define RS_RC_MISBEHAVE_ATOMIC_TWICE 0x4u  /* run a duplicate atomic again, not replay it */
#define RS_RC_MISBEHAVE_FAA_COMPARE 0x8u   /* FETCH_ADD adds the Compare field, not the Add */
#define RS_RC_MISBEHAVE_DUP_MALFORMED 0x10u    /* answer a duplicate SEND/WRITE with a
                                                  malformed packet (an ACK in an ACK) */
#define RS_RC_MISBEHAVE_MSN_SHORT 0x20u    /* every MSN one less than it should be */
#define RS_RC_MISBEHAVE_NO_PSN_WRAP 0x40u  /* compare PSNs as plain numbers: after 0xFFFFFF,
                                              every request is a duplicate */
extern unsigned rs_rc_misbehave;
void rc_tx_malformed_ack(struct rs_rc_qp *qp, uint32_t psn, uint32_t msn);      /* rc_tx.c */
#endif

#endif /* ROCESHARK_RC_INT_H */
