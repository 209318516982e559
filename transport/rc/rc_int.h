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

#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/encode.h>
#include <roceshark/dissectors/packet.h>
#include <roceshark/transport/rc.h>
#include <roceshark/dissectors/wire.h>

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

/* --- scatter/gather lists (rc_sge.c) ---
 *
 * A work request's data is a list of local buffers, each named by an lkey. They are
 * looked up when the bytes move, not once when posted, so that a region deregistered
 * while a request still names it fails that request instead of reaching memory it no
 * longer covers. Inline data (RS_RC_SEND_INLINE) was copied when posted and needs no
 * lookup. */

/* The data of a send or receive work request as the queues keep it. */
struct rc_data {
    struct rs_rc_sge *sg;   /* nsge elements, in the QP's (or SRQ's) own storage */
    uint32_t nsge;
    uint8_t *inline_data;   /* the copy of inline data, or NULL */
    uint64_t length;        /* the whole: what the elements (or the copy) add up to */
};

/* Fills d from the work request's data (sge, or sg_list and num_sge) into sg, room for
 * max elements; with check, checks each against its region with access. RS_EINVAL (err
 * filled, sg untouched) for too many elements, a length past 2^31, or a buffer its
 * region does not hold. */
int rc_data_set(struct rs_rc_ctx *ctx, struct rc_data *d, struct rs_rc_sge *sg, uint32_t max,
                const struct rs_rc_sge *one, const struct rs_rc_sge *list, uint32_t n,
                unsigned access, bool check, char *err);
/* The same for inline data: copies it from host addresses into buf (room for max). */
int rc_data_set_inline(struct rc_data *d, uint8_t *buf, uint32_t max,
                       const struct rs_rc_sge *one, const struct rs_rc_sge *list, uint32_t n,
                       char *err);
/* The len bytes at off of d, contiguous: in place when one element (or the inline
 * copy) holds them, else gathered into scratch (room for len). NULL when a region no
 * longer holds its element. */
const uint8_t *rc_data_read(struct rs_rc_ctx *ctx, const struct rc_data *d, uint64_t off,
                            uint32_t len, uint8_t *scratch);
/* Writes len bytes of src at off of d; false when a region no longer holds its element
 * or no longer grants local write (nothing is written then past the elements before). */
bool rc_data_write(struct rs_rc_ctx *ctx, const struct rc_data *d, uint64_t off,
                   const uint8_t *src, uint32_t len);

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
    /* DETH (UD) */
    uint32_t qkey;
    uint32_t src_qp;
};

/* --- work queues --- */

enum rc_swqe_state { RC_SWQE_POSTED, RC_SWQE_SENT };

struct rc_swqe {
    struct rs_rc_send_wr wr;    /* sg_list not kept: data says where the bytes are */
    struct rc_data data;
    uint32_t first_psn, last_psn, npkts;
    uint32_t done;          /* packets acknowledged (READ: responses taken) */
    uint8_t state;
};

struct rc_rwqe {
    uint64_t wr_id;
    struct rc_data data;
};

/* A ring of receive WQEs with their scatter/gather storage: a QP's own receive queue,
 * or a shared one (struct rs_rc_srq). */
struct rc_rq {
    struct rc_rwqe *wqe;
    struct rs_rc_sge *sge;      /* depth * max_sge */
    uint32_t depth, max_sge;
    uint64_t head, tail;
};

struct rs_rc_srq {
    struct rs_rc_ctx *ctx;
    struct rc_rq rq;
    uint32_t limit;             /* armed while not 0 */
    uint32_t users;             /* QPs that take their receives here */
    struct rs_rc_srq *next;     /* the context's list */
};

/* Allocates and frees a queue's storage (rc_srq.c). */
int rc_rq_init(struct rc_rq *rq, uint32_t depth, uint32_t max_sge);
void rc_rq_free(struct rc_rq *rq);
/* Queues a receive: RS_ENOMEM when full, RS_EINVAL for too many elements. Its buffers
 * are not checked here (ibverbs does not either): a SEND that finds one bad is answered
 * with a Remote Operational Error when it lands. */
int rc_rq_post(struct rs_rc_ctx *ctx, struct rc_rq *rq, const struct rs_rc_recv_wr *wr,
               char *err);
/* Takes the WQE at the head of rq into out (its elements copied into sg, room for
 * rq->max_sge); false when rq is empty. */
bool rc_rq_take(struct rc_rq *rq, struct rc_rwqe *out, struct rs_rc_sge *sg);

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
    bool have_rwqe;         /* a SEND or WRITE with Immediate holds rwqe */
    struct rc_rwqe rwqe;    /* taken from the receive queue by the message's first packet */
    struct rs_rc_sge *rwqe_sge;     /* its elements: max_sge of them */
    bool uc_drop;           /* UC: the message under way lost a packet; wait for a new one */
    bool comm_est;          /* a packet was accepted (COMM_EST told) */
    uint32_t src_qp;        /* UD: the sender of the packet being completed */
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
    unsigned addr;          /* the context's address it speaks from */
    uint16_t sport;         /* its UDP source port */
    uint32_t flow_label;    /* IPv6 */
    struct rs_rc_qp *hash_next;
    struct rs_rc_qp *next;  /* the context's list */
    struct rc_resp resp;
    struct rc_req req;
    struct rc_rq rq;        /* its own receive queue (empty with an SRQ) */
    struct rs_rc_srq *srq;
    struct rc_swqe *sq;
    struct rs_rc_sge *sq_sge;   /* sq_depth * max_sge elements */
    uint8_t *sq_inline;     /* sq_depth * max_inline bytes */
    struct rs_rc_wc *cq;
    uint32_t cq_size;
    uint64_t cq_head, cq_tail;
    uint64_t last_rx_ns;    /* when it last took a packet; 0: never */
};

/* An address of the context and the link its packets go through. */
struct rc_addr {
    uint8_t gid[16];
    struct rs_rc_link link;
};

struct rs_rc_ctx {
    struct rs_rc_ctx_opts opts;
    struct rc_addr addr[RS_RC_MAX_ADDRS];   /* the first is opts.local_gid */
    unsigned n_addr;
    struct rs_decode_opts dopts;
    uint8_t scratch[4096];      /* a packet's payload gathered from several elements */
    struct rs_rc_srq *srqs;
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

/* --- the context (rc_ctx.c) --- */

/* The packet's IP source as a GID (IPv4 ones IPv4-mapped). */
void rc_packet_source(const struct rs_packet *p, uint8_t gid[16]);
/* The index of the context's address gid; -1 when it has none such. */
int rc_addr_find(const struct rs_rc_ctx *ctx, const uint8_t gid[16]);
/* The context's address to reach peer from: the first of its IP version (and, for a
 * link-local peer, a link-local one when there is one); -1 when none. */
int rc_addr_for(const struct rs_rc_ctx *ctx, const uint8_t peer[16]);
/* Tells the context's event callback, if any. */
void rc_event(struct rs_rc_ctx *ctx, uint8_t type, uint32_t qpn, struct rs_rc_srq *srq);

/* --- UD and UC (rc_ud.c, rc_uc.c) --- */

/* A UD packet for qp that passed the header checks: lands in a receive WQE. */
void rc_ud_input(struct rs_rc_qp *qp, const struct rc_pkt *pkt);
/* Sends the UD SEND of w (one packet) from qp; false when its data could not be read
 * (the request failed, the QP is in error: rc_local_fault). */
bool rc_ud_emit(struct rs_rc_qp *qp, struct rc_swqe *w);
/* A UC request for qp: executed or silently dropped, never answered. */
void rc_uc_handle(struct rs_rc_qp *qp, const struct rc_pkt *pkt);

/* --- transmit (rc_tx.c) --- */

/* Fields every packet of qp carries: destination QP and P_Key. */
void rc_fields_init(const struct rs_rc_qp *qp, struct rs_ib_fields *f, uint8_t opcode,
                    uint32_t psn);
/* How a packet leaves: from which of the context's addresses, to which peer, with
 * which UDP source port, IPv6 flow label, traffic class and hop limit. */
struct rc_route {
    unsigned addr;
    const uint8_t *peer_gid;    /* of the address's IP version */
    uint16_t sport;
    uint32_t flow_label;
    uint8_t tclass;             /* ored into the context's TOS */
    uint8_t hop_limit;          /* 0: 64 */
};
/* Builds f with payload and sends it along r. */
void rc_tx_to(struct rs_rc_ctx *ctx, const struct rc_route *r, const struct rs_ib_fields *f,
              const void *payload, uint32_t len);
/* The flow label of a connection between QP numbers a and b, as rxe computes it
 * (rdma_calc_flow_label), and the UDP source port it gives (rdma_flow_label_to_udp_sport). */
uint32_t rc_flow_label(uint32_t a, uint32_t b);
uint16_t rc_flow_sport(uint32_t flow_label);
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
/* Completes the receive WQE the message holds (resp.rwqe). */
void rc_complete_recv(struct rs_rc_qp *qp, uint8_t status, uint8_t opcode, uint32_t byte_len,
                      uint8_t flags, uint32_t imm, uint32_t inv_rkey);
/* Takes the next receive WQE (the QP's own queue or its SRQ) into resp.rwqe; false
 * when there is none. Tells an armed SRQ limit. */
bool rc_take_recv(struct rs_rc_qp *qp);
/* Completes a send WQE that failed on its local data (a region deregistered meanwhile):
 * LOC_PROT_ERR, and the QP goes to the error state. */
void rc_local_fault(struct rs_rc_qp *qp);
/* Moves qp to the error state: every WQE left completes with WR_FLUSH_ERR. */
void rc_qp_error(struct rs_rc_qp *qp);
static inline uint32_t
rc_rq_count(const struct rs_rc_qp *qp)
{
    const struct rc_rq *rq = qp->srq != NULL ? &qp->srq->rq : &qp->rq;

    return (uint32_t)(rq->tail - rq->head);
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
