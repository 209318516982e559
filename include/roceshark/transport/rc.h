/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc.h - a software Reliable Connection transport over RoCEv2 (IBTA Vol 1
 * chapter 9, Annex A17): responder and requester.
 *
 * A context (struct rs_rc_ctx) is one RoCEv2 endpoint: an address (a GID,
 * see addr.h: IPv4 ones IPv4-mapped), its memory regions and its QPs. It
 * does no I/O and reads no clock: the caller hands it every received IP
 * packet with rs_rc_input(), calls rs_rc_progress() to let it transmit and
 * run its timers, and gives it a link (struct rs_rc_link) through which it
 * sends whole IP packets: IPv4 ones for an IPv4-mapped address, IPv6 ones
 * otherwise. The
 * UDP port (rs_rc_udp_*) is one such caller; the tests put a lossy shim
 * or a fuzzer in its place and a virtual clock in time's place.
 *
 * Every RC QP is both a requester (it posts SEND, WRITE, READ and atomics
 * and completes them from ACKs, NAKs and responses) and a responder (it
 * checks and executes requests in IBTA order, answers them, and keeps
 * responder resources for duplicate READs and atomics). Completions carry
 * ibverbs' status and opcode values and names.
 *
 * Memory safety is the contract of the responder: no packet makes it read
 * or write outside a registered region, or with a wrong R_Key or access.
 */
#ifndef ROCESHARK_RC_H
#define ROCESHARK_RC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/common.h>

#define RS_RC_MAX_PACKET 4416       /* IPv6 + UDP + widest headers + 4096 + ICRC */
#define RS_RC_INFINITE UINT64_MAX   /* rs_rc_next_deadline(): no timer armed */
#define RS_RC_MAX_SGE 32            /* scatter/gather elements per work request, as rxe */
#define RS_RC_MAX_INLINE 1024       /* bytes of inline data a send may carry */
#define RS_RC_UD_GRH_LEN 40         /* what a UD receive buffer gets before the payload */
#define RS_RC_MAX_ADDRS 8           /* addresses one context speaks from */

/* Memory and QP access flags: ibverbs' values (IBV_ACCESS_*). */
#define RS_RC_ACCESS_LOCAL_WRITE 0x1u
#define RS_RC_ACCESS_REMOTE_WRITE 0x2u
#define RS_RC_ACCESS_REMOTE_READ 0x4u
#define RS_RC_ACCESS_REMOTE_ATOMIC 0x8u
#define RS_RC_ACCESS_REMOTE_ALL 0xeu
/* Ours: a SEND with Invalidate may invalidate this region's R_Key, as it
 * may invalidate a fast-registered MR or a memory window in verbs. */
#define RS_RC_ACCESS_REMOTE_INVALIDATE 0x1000u

/* Work request opcodes: ibverbs' values (IBV_WR_*). */
enum rs_rc_wr_opcode {
    RS_RC_WR_RDMA_WRITE = 0,
    RS_RC_WR_RDMA_WRITE_WITH_IMM = 1,
    RS_RC_WR_SEND = 2,
    RS_RC_WR_SEND_WITH_IMM = 3,
    RS_RC_WR_RDMA_READ = 4,
    RS_RC_WR_ATOMIC_CMP_AND_SWP = 5,
    RS_RC_WR_ATOMIC_FETCH_AND_ADD = 6,
    RS_RC_WR_SEND_WITH_INV = 9
};

/* Work request flags: ibverbs' values (IBV_SEND_*). */
#define RS_RC_SEND_FENCE 0x1u
#define RS_RC_SEND_SIGNALED 0x2u
#define RS_RC_SEND_SOLICITED 0x4u
/* The data is copied when posted, from host addresses (lkeys are not looked at), so
 * the caller may reuse its buffers at once: ibverbs' IBV_SEND_INLINE. */
#define RS_RC_SEND_INLINE 0x8u

/* QP transport services (IBTA Vol 1, 9.8). */
enum rs_rc_qp_type {
    RS_RC_QPT_RC = 0,       /* reliable connected: ACKs, retries, READ and atomics */
    RS_RC_QPT_UC = 1,       /* unreliable connected: SEND and WRITE, no ACK */
    RS_RC_QPT_UD = 2        /* unreliable datagram: SEND of one packet to any QP */
};

/* Completion status: ibverbs' values (IBV_WC_*), named by rs_rc_wc_status_name(). */
enum rs_rc_wc_status {
    RS_RC_WC_SUCCESS = 0,
    RS_RC_WC_LOC_LEN_ERR = 1,
    RS_RC_WC_LOC_QP_OP_ERR = 2,
    RS_RC_WC_LOC_PROT_ERR = 4,
    RS_RC_WC_WR_FLUSH_ERR = 5,
    RS_RC_WC_BAD_RESP_ERR = 7,
    RS_RC_WC_LOC_ACCESS_ERR = 8,
    RS_RC_WC_REM_INV_REQ_ERR = 9,
    RS_RC_WC_REM_ACCESS_ERR = 10,
    RS_RC_WC_REM_OP_ERR = 11,
    RS_RC_WC_RETRY_EXC_ERR = 12,
    RS_RC_WC_RNR_RETRY_EXC_ERR = 13,
    RS_RC_WC_REM_INV_RD_REQ_ERR = 15,
    RS_RC_WC_GENERAL_ERR = 21
};

/* Completion opcodes: ibverbs' values (IBV_WC_*). */
enum rs_rc_wc_opcode {
    RS_RC_WC_SEND = 0,
    RS_RC_WC_RDMA_WRITE = 1,
    RS_RC_WC_RDMA_READ = 2,
    RS_RC_WC_COMP_SWAP = 3,
    RS_RC_WC_FETCH_ADD = 4,
    RS_RC_WC_RECV = 128,
    RS_RC_WC_RECV_RDMA_WITH_IMM = 129
};

#define RS_RC_WC_GRH 0x1u           /* ibverbs' IBV_WC_GRH: a UD receive's first 40 bytes */
#define RS_RC_WC_WITH_IMM 0x2u      /* ibverbs' IBV_WC_WITH_IMM */
#define RS_RC_WC_WITH_INV 0x8u      /* ibverbs' IBV_WC_WITH_INV */

struct rs_rc_wc {
    uint64_t wr_id;
    uint8_t status;         /* enum rs_rc_wc_status */
    uint8_t opcode;         /* enum rs_rc_wc_opcode */
    uint8_t flags;          /* RS_RC_WC_* */
    uint32_t qpn;
    uint32_t byte_len;
    uint32_t imm;           /* immediate data, host order */
    uint32_t invalidated_rkey;
    uint32_t src_qp;        /* UD: the sender's QP, from its DETH */
};

/* A local buffer: addr lies in the address space of the region lkey names. */
struct rs_rc_sge {
    uint64_t addr;
    uint32_t length;
    uint32_t lkey;
};

/* Where a UD SEND goes: what an address handle and the work request name. */
struct rs_rc_ud_dest {
    uint8_t gid[16];        /* the peer's address */
    uint8_t local_gid[16];  /* ours to send from; all zero: the QP's */
    uint32_t qpn;
    uint32_t qkey;          /* high bit set: the QP's own Q_Key (IBTA C10-15) */
    uint32_t flow_label;    /* 0: from the QP numbers, as rxe computes it */
    uint8_t tclass;
    uint8_t hop_limit;      /* 0: 64 */
};

/* The data of a work request is sge, or when num_sge is not 0, the num_sge elements
 * of sg_list (up to the QP's max_sge), which are copied when posted. Each element is
 * looked up in its region every time its bytes are read or written, so a region
 * deregistered meanwhile fails the request (LOC_PROT_ERR) rather than reach memory
 * it no longer covers. */
struct rs_rc_send_wr {
    uint64_t wr_id;
    uint8_t opcode;         /* enum rs_rc_wr_opcode */
    uint8_t flags;          /* RS_RC_SEND_* */
    struct rs_rc_sge sge;   /* data; for atomics the 8 bytes that receive the old value */
    uint64_t remote_addr;
    uint32_t rkey;
    uint32_t imm;           /* host order */
    uint32_t invalidate_rkey;
    uint64_t compare_add;   /* CmpSwap: compare; FetchAdd: add */
    uint64_t swap;
    const struct rs_rc_sge *sg_list;
    uint32_t num_sge;
    struct rs_rc_ud_dest ud;    /* UD QPs only */
};

struct rs_rc_recv_wr {
    uint64_t wr_id;
    struct rs_rc_sge sge;
    const struct rs_rc_sge *sg_list;    /* as in rs_rc_send_wr */
    uint32_t num_sge;
};

/* A registered region. */
struct rs_rc_mr {
    uint32_t lkey;
    uint32_t rkey;
    uint64_t va;            /* the address peers name in RETH and AtomicETH */
    uint64_t length;
    unsigned access;        /* RS_RC_ACCESS_* */
};

enum rs_rc_qp_state {
    RS_RC_QP_RTS = 0,       /* connected: ready to send and receive */
    RS_RC_QP_ERROR = 1
};

struct rs_rc_srq;

/* QP attributes, named as ibv_qp_attr names them. */
struct rs_rc_qp_attr {
    uint8_t type;           /* enum rs_rc_qp_type */
    uint32_t qpn;           /* ours; 0 picks the next free number */
    uint32_t dest_qpn;      /* RC and UC */
    uint8_t peer_gid[16];   /* RC and UC: of the IP version of local_gid */
    uint8_t local_gid[16];  /* one of the context's addresses; all zero: its first */
    uint32_t qkey;          /* UD: what received DETHs must carry */
    uint32_t max_sge;       /* scatter/gather elements per work request: 1..RS_RC_MAX_SGE */
    uint32_t max_inline;    /* bytes of inline data a send may carry (RS_RC_SEND_INLINE) */
    struct rs_rc_srq *srq;  /* receives come from this shared queue, not the QP's own */
    uint32_t flow_label;    /* the path's (IPv6); 0: from the QP numbers, as rxe */
    uint8_t tclass;         /* the path's traffic class (DSCP) */
    uint8_t hop_limit;      /* the path's hop limit / TTL; 0: 64 */
    uint32_t sq_psn;        /* first PSN we send */
    uint32_t rq_psn;        /* first PSN we expect */
    uint32_t pmtu;          /* 256, 512, 1024, 2048 or 4096 */
    uint16_t pkey;
    unsigned access;        /* remote operations the QP accepts */
    uint8_t timeout;        /* local ACK timeout 4.096 us * 2^timeout; 0 waits forever */
    uint8_t retry_cnt;      /* 0..7 */
    uint8_t rnr_retry;      /* 0..7; 7 retries forever */
    uint8_t min_rnr_timer;  /* the RNR NAK timer code we send (IBTA Table 45) */
    uint8_t max_rd_atomic;      /* READ/atomic requests we keep outstanding */
    uint8_t max_dest_rd_atomic; /* responder resources for READ/atomic */
    uint32_t sq_depth;      /* send work requests */
    uint32_t rq_depth;      /* receive work requests */
    uint32_t ack_req_every; /* AckReq at least every this many packets */
    uint32_t max_inflight;  /* PSNs outstanding at once */
};

/* Fills the defaults: PMTU 1024, P_Key 0xFFFF, all remote access, timeout
 * 14 (67 ms), retry_cnt 7, rnr_retry 7, RNR timer 12 (0.64 ms), 16 READ and
 * atomic resources each way, 1024 send and 1024 receive work requests. */
void rs_rc_qp_attr_init(struct rs_rc_qp_attr *attr);

/* Counters of a context; every abnormal event has one. */
struct rs_rc_counters {
    /* Responder: messages executed, by kind. */
    uint64_t exec_send, exec_write, exec_read, exec_atomic;
    /* Duplicates (PSN behind the expected one), by kind. */
    uint64_t dup_send, dup_write, dup_read, dup_atomic;
    /* Responses sent. */
    uint64_t ack_sent, read_resp_sent, atomic_ack_sent;
    /* NAKs sent, by code, and RNR NAKs. */
    uint64_t nak_psn_seq, nak_invalid_request, nak_remote_access, nak_remote_op, rnr_nak;
    /* Silent drops, by reason. */
    uint64_t drop_icrc, drop_tver, drop_qpn, drop_transport, drop_pkey, drop_source;
    uint64_t drop_malformed, drop_qp_error, drop_psn_gap, drop_dup_no_resource;
    uint64_t drop_dup_mismatch;
    /* Congestion: CNPs sent for CE-marked requests, and those the pacing withheld. */
    uint64_t cnp_sent, cnp_paced, cnp_received;
    /* Requester: packets sent, go-backs (by cause: sequence NAK, implied NAK,
     * READ response gap; timeouts and RNR NAKs), responses dropped. */
    uint64_t req_packets, retransmits, seq_nak_received, seq_nak_retries, rnr_nak_received;
    uint64_t timeouts, implied_nak, read_gap, dup_response, ghost_response, bad_response;
    uint64_t error_completions, cq_overflow;
    /* Link: packets received, built and sent, and those the link could not send (the
     * kernel refused them: larger than the interface's MTU, no buffer, no route). */
    uint64_t rx_packets, tx_packets, tx_errors;
    /* QP 1: MADs handed to the GSI handler, and those dropped (no handler, a
     * wrong Q_Key or P_Key, not a UD SEND Only). */
    uint64_t gsi_received, drop_gsi;
    /* UC messages dropped (a packet lost, no receive WQE, a request in error), UD
     * packets dropped (a wrong Q_Key, no receive WQE), and requests failed because a
     * region they named was deregistered while they were in flight. */
    uint64_t drop_uc, drop_qkey, drop_ud_no_wqe, local_faults;
};

/* The names of the counters, in struct order, for JSON and tables. */
struct rs_rc_counter_name {
    const char *name;
    size_t offset;
};
extern const struct rs_rc_counter_name rs_rc_counter_names[];
extern const unsigned rs_rc_n_counter_names;

/* Where packets go: tx_buf returns room for RS_RC_MAX_PACKET bytes, tx_send
 * sends the IP packet built there. Sending never fails from the
 * transport's point of view: a lost packet is what retries are for. But a
 * packet the link could not send is no loss on the wire: the link counts it
 * in the counter the context hands it through tx_errors_to() when created
 * (and NULL when destroyed), so that the user sees it. */
struct rs_rc_link {
    uint8_t *(*tx_buf)(void *arg);
    void (*tx_send)(void *arg, uint32_t len);
    void *arg;
    void (*tx_errors_to)(void *arg, uint64_t *counter);     /* NULL: counts none */
    /* Told when a QP is connected to its peer (NULL: not told). */
    void (*connected)(void *arg, uint32_t qpn, const uint8_t peer_gid[16], uint32_t peer_qpn);
    /* The sender writes the UDP header itself (a UDP socket): IPv6 packets are built
     * without a UDP checksum, which the ICRC masks, sparing a pass over each payload. */
    bool sender_writes_udp;
};

/* Asynchronous events (IBTA Vol 1, 11.6.3), told to the context's event callback while
 * it runs rs_rc_input() or rs_rc_progress(). */
enum rs_rc_event_type {
    RS_RC_EV_COMM_EST = 1,      /* a QP accepted its first packet */
    RS_RC_EV_QP_REQ_ERR,        /* the responder put a QP in error: an invalid request */
    RS_RC_EV_QP_ACCESS_ERR,     /* ... a remote access violation */
    RS_RC_EV_QP_FATAL,          /* ... another error (a receive WQE it could not use) */
    RS_RC_EV_SRQ_LIMIT,         /* fewer receives than the SRQ's limit: disarmed */
    RS_RC_EV_LAST_WQE           /* a QP of an SRQ went to the error state */
};

struct rs_rc_event {
    uint8_t type;               /* enum rs_rc_event_type */
    uint32_t qpn;               /* not for SRQ_LIMIT */
    struct rs_rc_srq *srq;      /* SRQ_LIMIT; LAST_WQE: the QP's */
};

typedef void (*rs_rc_event_fn)(void *arg, const struct rs_rc_event *ev);

/* Tracing of the state machines: machine is "resp" or "comp", state the
 * name of the state entered. */
typedef void (*rs_rc_trace_fn)(void *arg, uint32_t qpn, const char *machine,
                               const char *state, uint32_t psn);

struct rs_rc_ctx_opts {
    uint8_t local_gid[16];
    uint16_t udp_sport;         /* our UDP source port */
    uint8_t tos;                /* DSCP and ECN (IPv6: traffic class) our packets carry
                                   (ECN 3, CE: for tests) */
    bool verify_icrc;           /* false only where the IP header is not seen */
    uint64_t cnp_interval_ns;   /* least time between two CNPs of one QP */
    uint64_t ack_delay_ns;      /* how long an ACK may be held to cover later requests
                                   (0: at once); keep it far below peers' ACK timeout */
    /* The UDP source port of each QP from its flow label (0xC000 | its low 14 bits),
     * the label from the two QP numbers, as rxe spreads its flows; udp_sport is then
     * unused. Takes a link that sends whole packets (rs_rc_udp_opts.raw_send). */
    bool sport_from_flow;
    rs_rc_trace_fn trace;
    void *trace_arg;
    rs_rc_event_fn event;       /* NULL: events are not told */
    void *event_arg;
};

/* Fills the defaults: port 4791, ICRC checked, CNPs at most every 50 us,
 * ACKs held at most 10 us (or until they cover 16 requests). */
void rs_rc_ctx_opts_init(struct rs_rc_ctx_opts *opts);

struct rs_rc_ctx;
struct rs_rc_qp;

int rs_rc_ctx_create(struct rs_rc_ctx **ctx, const struct rs_rc_ctx_opts *opts,
                     const struct rs_rc_link *link, char *err);
void rs_rc_ctx_destroy(struct rs_rc_ctx *ctx);
/* Another address the context speaks from and receives on (the first is its
 * opts.local_gid), with the link its packets go through. RS_ENOSPC past
 * RS_RC_MAX_ADDRS, RS_EINVAL for an address it has already. */
int rs_rc_ctx_add_address(struct rs_rc_ctx *ctx, const uint8_t gid[16],
                          const struct rs_rc_link *link, char *err);

/* Registers length bytes at addr, seen by peers at va (0: the address
 * itself) under rkey (0: one is chosen). */
int rs_rc_mr_reg(struct rs_rc_ctx *ctx, void *addr, uint64_t length, uint64_t va,
                 uint32_t rkey, unsigned access, struct rs_rc_mr *mr, char *err);
int rs_rc_mr_dereg(struct rs_rc_ctx *ctx, uint32_t lkey);

/* Creates a QP already connected to its peer (INIT, RTR and RTS in one). */
int rs_rc_qp_create(struct rs_rc_ctx *ctx, const struct rs_rc_qp_attr *attr,
                    struct rs_rc_qp **qp, char *err);
void rs_rc_qp_destroy(struct rs_rc_qp *qp);
uint32_t rs_rc_qp_num(const struct rs_rc_qp *qp);
/* Gives a QP that has sent nothing yet its requester's parameters: the first PSN
 * (sq_psn), the ACK timeout, retry_cnt, rnr_retry and max_rd_atomic of attr. Verbs
 * learns them only on the way from RTR to RTS, after the QP already receives.
 * RS_EINVAL once the QP has posted a send, or for values out of range. */
int rs_rc_qp_set_requester(struct rs_rc_qp *qp, const struct rs_rc_qp_attr *attr, char *err);
/* Sends the ACK the QP holds back for coalescing, now: before the QP goes, so that
 * the peer's last request, executed, is not retried into a QP that is no more. */
void rs_rc_qp_ack_now(struct rs_rc_qp *qp);
/* Moves the QP to the error state: every work request left completes with WR_FLUSH_ERR. */
void rs_rc_qp_flush(struct rs_rc_qp *qp);
enum rs_rc_qp_state rs_rc_qp_state(const struct rs_rc_qp *qp);
/* When the QP last took a packet (rs_rc_input()'s now_ns, once the header checks
 * passed); 0 when it never did. A service frees QPs that stay silent. */
uint64_t rs_rc_qp_last_rx(const struct rs_rc_qp *qp);
struct rs_rc_qp *rs_rc_qp_find(struct rs_rc_ctx *ctx, uint32_t qpn);

/* Queue work. RS_ENOMEM when the queue is full (as ibv_post_send says
 * ENOMEM), RS_EINVAL for a bad request (its buffer outside its region). */
int rs_rc_post_send(struct rs_rc_qp *qp, const struct rs_rc_send_wr *wr, char *err);
int rs_rc_post_recv(struct rs_rc_qp *qp, const struct rs_rc_recv_wr *wr, char *err);
/* Receive work requests posted and not yet consumed. */
uint32_t rs_rc_recv_posted(const struct rs_rc_qp *qp);

/* Takes up to n completions of qp; returns how many. */
int rs_rc_poll_cq(struct rs_rc_qp *qp, struct rs_rc_wc *wc, int n);

/* --- Shared receive queues: receives that several QPs take from. --- */

/* depth receives of up to max_sge elements each. */
int rs_rc_srq_create(struct rs_rc_ctx *ctx, uint32_t depth, uint32_t max_sge,
                     struct rs_rc_srq **srq, char *err);
/* RS_EINVAL (nothing done) while a QP takes its receives from it. */
int rs_rc_srq_destroy(struct rs_rc_srq *srq);
int rs_rc_srq_post_recv(struct rs_rc_srq *srq, const struct rs_rc_recv_wr *wr, char *err);
uint32_t rs_rc_srq_posted(const struct rs_rc_srq *srq);
/* Arms the limit (0 disarms): once fewer than limit receives are posted, the context
 * tells RS_RC_EV_SRQ_LIMIT, once, and the limit is 0 again. */
void rs_rc_srq_set_limit(struct rs_rc_srq *srq, uint32_t limit);
uint32_t rs_rc_srq_limit(const struct rs_rc_srq *srq);

/* --- QP 1, the General Service Interface: the CM's MADs over RoCEv2 ---
 *
 * A UD SEND Only to QP 1 with the GSI's Q_Key (0x80010000) is not for an RC
 * QP: the context hands its payload to the handler registered here (the CM
 * engine, transport/cm), with the sender's address as a GID (IPv4 as
 * ::ffff:a.b.c.d) and its source QP from the DETH. Without a handler, such packets are
 * dropped and counted. */
typedef void (*rs_rc_gsi_fn)(void *arg, const uint8_t src_gid[16], uint32_t src_qp,
                             const uint8_t *mad, uint32_t len, uint64_t now_ns);
void rs_rc_gsi_register(struct rs_rc_ctx *ctx, rs_rc_gsi_fn fn, void *arg);
/* Sends len bytes as a UD SEND Only from QP 1 to QP dest_qp at peer_gid, with
 * P_Key 0xFFFF and the GSI's Q_Key. RS_EINVAL for a GID of the other IP version. */
int rs_rc_gsi_send(struct rs_rc_ctx *ctx, const uint8_t peer_gid[16], uint32_t dest_qp,
                   const void *mad, uint32_t len, char *err);

/* One received IPv4 or IPv6 packet, from its IP header on. */
void rs_rc_input(struct rs_rc_ctx *ctx, const uint8_t *packet, uint32_t len, uint64_t now_ns);
/* Transmits what is due (new requests, retransmissions, held ACKs) and runs
 * the timers that expired by now_ns. Hand it the packets received first: an
 * acknowledgement not yet read would leave a timer to expire for nothing. */
void rs_rc_progress(struct rs_rc_ctx *ctx, uint64_t now_ns);
/* As rs_rc_progress(), without the retransmission timers: for a caller that sends
 * what was just posted and has not read the packets that may be waiting. */
void rs_rc_transmit(struct rs_rc_ctx *ctx, uint64_t now_ns);
/* The earliest time rs_rc_progress() has work to do, RS_RC_INFINITE if none;
 * 0 when it has work now. */
uint64_t rs_rc_next_deadline(const struct rs_rc_ctx *ctx);

const struct rs_rc_counters *rs_rc_counters_get(const struct rs_rc_ctx *ctx);

/* "SUCCESS", "RETRY_EXC_ERR", ...: ibverbs' enum names without IBV_WC_. */
const char *rs_rc_wc_status_name(uint8_t status);
/* "SEND", "RDMA_WRITE", "RECV", ...: ibverbs' completion opcode names. */
const char *rs_rc_wc_opcode_name(uint8_t opcode);

/* PMTU in bytes from 256..4096; 0 for anything else. */
uint32_t rs_rc_pmtu_valid(uint32_t pmtu);

/* Local ACK timeout in nanoseconds: 4.096 us * 2^timeout (0: infinite). */
uint64_t rs_rc_timeout_ns(uint8_t timeout);

/* --- The path MTU (rc_mtu.c) --- */

/* The active MTU of a RoCE port on an interface whose MTU is if_mtu bytes, as rxe
 * derives it: the largest of 4096, 2048, 1024 and 512 that fits beside 80 bytes of
 * headers (1500 -> 1024, 9000 -> 4096), else 256. */
uint32_t rs_rc_mtu_for_if(uint32_t if_mtu);
/* The MTU of the interface that holds gid (or whose prefix contains it: 127.0.0.2 on
 * lo); scope, when not 0, names the interface of a link-local address. RS_ENOENT
 * when no interface has it. */
int rs_rc_if_mtu(const uint8_t gid[16], uint32_t scope, uint32_t *if_mtu, char *err);
/* The path MTU: the smallest of the port's active MTU, what the peer asked for (0:
 * nothing) and the user's limit (0: none). A limit can only lower it. */
uint32_t rs_rc_path_mtu(uint32_t active, uint32_t peer, uint32_t limit);

/* --- The UDP port: RoCEv2 on an IPv4 or IPv6 address of this host. ---
 *
 * Sends go out of a UDP socket bound to the address and port 4791, to the
 * peer's port 4791, batched with sendmmsg(). The ICRC covers the IPv4
 * identification field, which a UDP socket neither shows nor lets us set:
 * Linux sends identification 0 on an unconnected socket with DF set, so
 * that is what the packets are built with. Receives come from a raw socket
 * bound to the address, which hands over the whole IP header so the ICRC
 * can be checked, as a NIC checks it; the UDP socket drops its copies
 * through a socket filter. Without the privilege for a raw socket, the port
 * receives on the UDP socket and the ICRC goes unchecked (and says so).
 *
 * On IPv6 (a GID that is not IPv4-mapped) there is no identification to
 * guess, but Linux's raw IPv6 sockets never hand over the IP header: the port
 * puts back the one the ICRC covers from what recvmsg() tells (source,
 * destination by IPV6_PKTINFO, traffic class by IPV6_TCLASS, the length). */

/* A hook between the transport and the sockets, the place of the fault engine: every
 * packet sent (rx false) and received (rx true) goes through packet(), which hands on
 * what goes through now with pass(port, ...), and keeps what it holds back for poll(),
 * which hands on what is due and says when the next one is (RS_RC_INFINITE: none). */
typedef void (*rs_rc_pass_fn)(void *port, bool rx, const uint8_t *pkt, uint32_t len);
struct rs_rc_hook {
    void (*packet)(void *arg, bool rx, const uint8_t *pkt, uint32_t len, uint64_t now_ns,
                   rs_rc_pass_fn pass, void *port);
    uint64_t (*poll)(void *arg, uint64_t now_ns, rs_rc_pass_fn pass, void *port);
    void *arg;
    /* A QP of ours (at local_gid) was connected to peer_qpn at peer_gid; NULL: not told.
     * The fault engine learns from it whom an injected NAK answers. */
    void (*connected)(void *arg, const uint8_t local_gid[16], uint32_t qpn,
                      const uint8_t peer_gid[16], uint32_t peer_qpn);
};

struct rs_rc_udp_opts {
    uint8_t gid[16];        /* the address to bind (IPv4: IPv4-mapped) */
    uint32_t scope;         /* its interface index, for a link-local address */
    const struct rs_rc_hook *hook;  /* NULL: packets go straight through */
    uint32_t rcvbuf;        /* receive buffer bytes */
    uint8_t tos;            /* DSCP and ECN (IPv6: traffic class) of what we send */
    bool busy_poll;         /* spin instead of sleeping in rs_rc_udp_poll() */
    bool no_raw;            /* receive on the UDP socket, ICRC unchecked */
    /* Send whole packets, headers as the context built them, through a raw socket:
     * the UDP source port and IPv6 flow label of each QP go on the wire (the UDP
     * socket's are its own). Without the privilege, the UDP socket sends. */
    bool raw_send;
};

void rs_rc_udp_opts_init(struct rs_rc_udp_opts *opts);

struct rs_rc_udp;

int rs_rc_udp_open(struct rs_rc_udp **udp, const struct rs_rc_udp_opts *opts, char *err);
void rs_rc_udp_close(struct rs_rc_udp *udp);
/* The link a context sends through. */
const struct rs_rc_link *rs_rc_udp_link(struct rs_rc_udp *udp);
/* True when received packets carry their IP header, so their ICRC is checked. */
bool rs_rc_udp_checks_icrc(const struct rs_rc_udp *udp);
/* True when packets leave as the context built them (raw_send took): a context may
 * then choose their UDP source ports (sport_from_flow), which the ICRC covers. */
bool rs_rc_udp_sends_whole(const struct rs_rc_udp *udp);
/* The descriptor to poll() for received packets, beside other descriptors. */
int rs_rc_udp_fd(const struct rs_rc_udp *udp);
/* Receives what has arrived (waiting up to wait_ns, or until ctx's next
 * timer, whichever is sooner; 0 does not wait), hands it to ctx, runs
 * rs_rc_progress() and sends. Returns the packets received, or a negative
 * RS_E* code when the socket fails. */
int rs_rc_udp_poll(struct rs_rc_udp *udp, struct rs_rc_ctx *ctx, uint64_t wait_ns, char *err);
/* Sends what the context has built and not yet sent. */
void rs_rc_udp_flush(struct rs_rc_udp *udp);
/* Datagrams the kernel refused to send (counted in the context's tx_errors as well):
 * how many, and the errno and length of the last (EMSGSIZE: past the interface's MTU). */
uint64_t rs_rc_udp_tx_errors(const struct rs_rc_udp *udp, int *last_errno, uint32_t *last_len);
/* When the hook's next held packet is due (RS_RC_INFINITE: none, or no hook). */
uint64_t rs_rc_udp_next_due(const struct rs_rc_udp *udp);
/* The MTU of the interface that holds the port's address (0: none found), and the
 * port's active MTU from it (rs_rc_mtu_for_if(); 1024, which any Ethernet carries,
 * when the interface is not found): what QPs on this port may use at most. */
uint32_t rs_rc_udp_if_mtu(const struct rs_rc_udp *udp);
uint32_t rs_rc_udp_active_mtu(const struct rs_rc_udp *udp);

/* --- The side channel: connection parameters over TCP. ---
 *
 * Before two RC endpoints can talk, each must learn the other's address,
 * QP number, first PSN and, for RDMA, a region's R_Key, VA and length (what
 * rdma_cm or perftest's TCP exchange carry). Each side sends one line, a
 * flat JSON object; further lines carry whatever the application adds. */

struct rs_rc_conn_info {
    uint8_t gid[16];        /* "ip": dotted for IPv4-mapped, IPv6 text otherwise */
    uint32_t qpn;
    uint32_t psn;
    uint32_t rkey;
    uint64_t va;
    uint64_t length;
    uint32_t pmtu;
};

/* Sets in a what connects a QP to the peer info describes: our QPN and first PSN, the
 * peer's address, QPN and first PSN, and its PMTU when smaller than ours. */
void rs_rc_qp_attr_connect(struct rs_rc_qp_attr *a, uint32_t qpn, uint32_t psn,
                           const struct rs_rc_conn_info *peer);

/* Formats info as one JSON object (no newline); returns snprintf's count. */
int rs_rc_conn_format(const struct rs_rc_conn_info *info, char *buf, size_t size);
/* Parses what rs_rc_conn_format wrote (keys in any order; unknown ones are
 * ignored). */
int rs_rc_conn_parse(const char *line, struct rs_rc_conn_info *info, char *err);
/* The number or the string under key in a flat JSON object. */
bool rs_rc_json_u64(const char *line, const char *key, uint64_t *out);
bool rs_rc_json_str(const char *line, const char *key, char *out, size_t size);

/* Listens on gid (scope: its interface, for a link-local one) and port. */
int rs_rc_side_listen(const uint8_t gid[16], uint32_t scope, uint16_t port, int *fd, char *err);
/* Returns RS_ENOENT when no connection was pending after all (a
 * non-blocking listener, or a peer that gave up before it was taken). */
int rs_rc_side_accept(int listen_fd, int *fd, char *err);
/* Connects, retrying for up to timeout_ms while the peer is not yet listening. */
int rs_rc_side_connect(const uint8_t gid[16], uint32_t scope, uint16_t port, int timeout_ms,
                       int *fd, char *err);
/* Sends line and a newline. */
int rs_rc_side_send(int fd, const char *line, char *err);
/* Receives one line (without its newline) within timeout_ms (-1: forever).
 * It waits: for one peer at a time (perf). A server of many peers reads
 * them with struct rs_rc_side_conn. */
int rs_rc_side_recv(int fd, char *line, size_t size, int timeout_ms, char *err);
/* A client's side of the exchange: sends our line (rs_rc_conn_format's, perhaps with more
 * keys), reads the server's within 5 s, and parses it into peer; a server's
 * {"error": ...} is RS_EIO with "the server refused: why". */
int rs_rc_side_exchange(int fd, const char *ours, struct rs_rc_conn_info *peer, char *err);

/* One peer of a side-channel server, read without ever waiting, so that a
 * slow or silent peer cannot hold up the RoCE traffic served beside it.
 * Bytes gather in the connection's buffer until a newline ends a line. The
 * first line must be whole within timeout_ns of the connection, and every
 * later line within timeout_ns of its first byte: a peer that trickles
 * bytes or says nothing holds its slot no longer than that. Between lines
 * a peer may stay quiet as long as it likes (a perf client runs its test). */
#define RS_RC_SIDE_LINE_MAX 1024

struct rs_rc_side_conn {
    int fd;                     /* non-blocking; -1 when the slot is free */
    uint64_t timeout_ns;
    uint64_t deadline_ns;       /* when the line under way must be whole; 0: none */
    size_t len;                 /* bytes in buf */
    size_t used;                /* bytes of buf handed out as the last line */
    bool closing;               /* told why and shut for writing: input is discarded */
    char peer[RS_ADDR_TEXT_MAX];    /* "a.b.c.d:port" or "[v6]:port", for messages */
    char buf[RS_RC_SIDE_LINE_MAX];
};

/* Takes over fd (an accepted connection) and makes it non-blocking; sends
 * on it (rs_rc_side_send) then fail rather than wait for a peer that does
 * not read. now is rs_rc_now_ns(). */
void rs_rc_side_conn_open(struct rs_rc_side_conn *c, int fd, uint64_t timeout_ns,
                          uint64_t now);
/* Reads what has arrived, without waiting, and hands out the next whole
 * line: returns 1 with *line (no newline, NUL-terminated, valid until the
 * next call), 0 when no line is whole yet, RS_EOF when the peer closed, or
 * RS_EIO when the connection must be closed: a read error, a line longer
 * than RS_RC_SIDE_LINE_MAX - 1 bytes, or a deadline passed (err says
 * which, naming the peer). */
int rs_rc_side_conn_next(struct rs_rc_side_conn *c, uint64_t now, const char **line,
                         char *err);
/* True once the line under way is overdue: call rs_rc_side_conn_next() to
 * learn why, even when poll() reports nothing to read. */
bool rs_rc_side_conn_expired(const struct rs_rc_side_conn *c, uint64_t now);
/* True when a whole line is already buffered: poll() will not say so. */
bool rs_rc_side_conn_pending(const struct rs_rc_side_conn *c);
/* Closes the connection and frees the slot. */
void rs_rc_side_conn_close(struct rs_rc_side_conn *c);
/* Ends a connection the server refused, without losing what it told the peer: shuts
 * it for writing (our lines, then FIN) and from now on discards what the peer sends;
 * rs_rc_side_conn_next() then returns RS_EOF once the peer closes or linger_ns has
 * passed, and the caller closes. Closing at once with the peer's lines unread would
 * send a reset, which can destroy our last lines before the peer reads them. */
void rs_rc_side_conn_linger(struct rs_rc_side_conn *c, uint64_t now, uint64_t linger_ns);
/* The same for a connection served blocking (perf's server, which refuses its one client
 * and exits): shuts fd for writing, discards what the peer sends until it closes or
 * linger_ns pass (0: what has come, without waiting), and closes fd. */
void rs_rc_side_close_lingering(int fd, uint64_t linger_ns);

/* Sends one line, {"error": why}, without waiting (a peer that cannot take
 * it gets nothing); quotes and backslashes in why become apostrophes. */
void rs_rc_side_send_error(int fd, const char *why);
/* Accepts the next pending connection only to refuse it: sends it
 * {"error": why} and closes it. Returns as rs_rc_side_accept does. */
int rs_rc_side_refuse(int listen_fd, const char *why, char *err);

/* CLOCK_MONOTONIC in nanoseconds: the clock the port runs contexts on. */
uint64_t rs_rc_now_ns(void);

/* --- What programs over the stack share (the responder, perf, tests). --- */

/* Memory for a region: page-aligned and zeroed; only the pages touched cost
 * memory. rs_rc_mem_free() takes the size it was allocated with. */
void *rs_rc_mem_alloc(uint64_t size);
void rs_rc_mem_free(void *p, uint64_t size);

struct pollfd;
/* Waits on pfd until one is ready or ctx has timer work, at most 100 ms
 * (not at all when busy), so that a stop flag set by a signal is seen soon.
 * Returns what ppoll() returns. */
int rs_rc_wait(struct pollfd *pfd, unsigned n, const struct rs_rc_ctx *ctx,
               const struct rs_rc_udp *udp, bool busy);

/* The counters as one JSON line, grouped: executed, duplicates, naks,
 * rnr_naks, drops, cnps, responses, requester, packets. */
void rs_rc_counters_print_json(FILE *f, const struct rs_rc_counters *c);
/* One completion as a JSON line; data (may be NULL) is the received bytes,
 * summarized by their CRC-32. */
void rs_rc_wc_print_json(FILE *f, const struct rs_rc_wc *wc, const uint8_t *data);

#endif /* ROCESHARK_RC_H */
