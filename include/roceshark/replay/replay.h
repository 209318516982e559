/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.h - a captured RC conversation played again against a live target,
 * and the target's answers compared with the ones the capture holds.
 *
 *     capture -> pipeline -> one conversation's two streams (rs_replay_trace)
 *             -> the requester's packets, rewritten to the target (addresses,
 *                QPN, PSN, R_Key, VA, P_Key; ICRC recomputed) -> sent, paced
 *             -> the target's answers, captured -> pipeline -> compared with
 *                the capture's answers (rs_replay_compare) -> divergences
 *
 * With --side responder the roles turn: a live requester is answered with
 * the capture's responses (rs_replay_serve), and what it sends is compared
 * with what the captured requester sent (rs_replay_compare_requests).
 *
 * Only what is deterministic is compared: the opcodes and PSNs of the
 * responses, the ACK/NAK class and code, the MSN's progression, READ and
 * atomic payloads (when asked), message completion, and the IBTA rules the
 * analysis checks. What IBTA lets differ is counted as allowed: ACK
 * coalescing, credit counts, and (when asked) RNR timer values.
 */
#ifndef ROCESHARK_REPLAY_H
#define ROCESHARK_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <glib.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/nstime.h>

/* --- The trace: one conversation out of a capture --- */

/* One packet of the trace, and what the comparison reads of it. */
struct rs_replay_frame {
    uint64_t number;            /* the frame's number in its capture (from 1) */
    struct rs_time ts;
    uint32_t off, len;          /* its bytes in the trace's buffer */
    uint32_t l3;                /* where its IP header (or GRH, or LRH) starts */
    uint8_t encap;              /* enum rs_encap */
    uint16_t sport;             /* the UDP source port (RoCEv2) */
    uint8_t opcode;
    uint32_t psn, destqp;
    bool has_aeth;
    uint8_t syndrome;
    uint32_t msn;
    bool has_reth;              /* RETH or AtomicETH: va, rkey (and dmalen for a RETH) */
    uint64_t va;
    uint32_t rkey, dmalen;
    uint64_t swap_add, compare; /* an AtomicETH's operands */
    bool has_imm, has_ieth;
    uint32_t imm;               /* ImmDt, or the IETH's R_Key */
    bool has_atomic_ack;
    uint64_t orig;              /* the AtomicAckETH's original data */
    uint32_t payload_off, payload_len;  /* the IB payload, in the trace's buffer */
    bool retransmission;        /* the analysis saw the PSN before */
    uint8_t violation;          /* enum rs_violation, 0 for none */
    bool malformed;
};

/* The conversation picked, as -z conv,qp shows it. */
struct rs_replay_conv {
    uint32_t id;
    uint8_t family;             /* 4 or 6; 0 for native IB (LIDs) */
    uint8_t requester[16], responder[16];
    uint32_t requester_qp, responder_qp;
    uint16_t pmtu;              /* learned or assumed from the trace; 0 unknown */
};

struct rs_replay_trace {
    struct rs_replay_conv conv;
    int linktype;
    GByteArray *bytes;          /* every packet's bytes, one after another */
    GArray *requests;           /* struct rs_replay_frame: requester to responder */
    GArray *responses;          /* responder to requester */
    uint64_t frames;            /* frames in the whole capture */
};

/* How to pick the conversation: by id (-z conv,qp), or by a QPN of either end. */
struct rs_replay_pick {
    uint32_t conv;              /* 0: not by id */
    bool by_qp;
    uint32_t qp;
};

/* Reads path through the pipeline and keeps the picked conversation. RS_ENOENT when
 * the pick names no conversation, or when nothing is picked (then, when list is
 * not NULL, the conversation table is printed to it: the user picks from it). */
int rs_replay_trace_load(const char *path, const struct rs_replay_pick *pick,
                         const struct rs_decode_opts *dopts, FILE *list,
                         struct rs_replay_trace *trace, char *err);
void rs_replay_trace_free(struct rs_replay_trace *trace);

/* What the comparison reads of a decoded packet whose bytes are kept at off in a
 * buffer (payload_off counts from the buffer's start too). */
struct rs_packet;
void rs_replay_frame_of(const struct rs_packet *pkt, uint32_t off, struct rs_replay_frame *out);

/* --- Rewriting --- */

#define RS_REPLAY_MAX_MAPS 16

struct rs_replay_map {
    uint32_t from, to;
};

struct rs_replay_rewrite {
    uint8_t family;             /* of src and dst: 4 or 6 */
    bool set_src, set_dst;
    uint8_t src[16], dst[16];   /* IP addresses (RoCEv2) or GIDs (RoCEv1) */
    bool set_eth_src, set_eth_dst;
    uint8_t eth_src[6], eth_dst[6];
    bool set_sport;
    uint16_t sport;             /* the UDP source port */
    unsigned n_qpmap, n_rkeymap;
    struct rs_replay_map qpmap[RS_REPLAY_MAX_MAPS];     /* destination QPs */
    struct rs_replay_map rkeymap[RS_REPLAY_MAX_MAPS];   /* RETH and AtomicETH R_Keys */
    uint32_t psn_offset;        /* added to every PSN (24 bits, wrapping) */
    uint64_t va_offset;         /* added to every RETH and AtomicETH VA */
    bool set_pkey;
    uint16_t pkey;
    bool udp_socket;            /* IPv4 identification 0 with DF: what a UDP socket sends */
    bool keep_icrc;             /* the captured ICRC stays, right or wrong */
};

/* Parses "OLD:NEW" (numbers, 0x hex) into a map entry of rw (--qpmap, --rkey-map). */
int rs_replay_map_add(struct rs_replay_map *maps, unsigned *n, const char *arg, uint32_t max,
                      char *err);

/* Rewrites one frame in place (caplen bytes of linktype), then recomputes the IPv4
 * checksum, the UDP checksum over IPv6 and, unless keep_icrc, the ICRC and VCRC. A
 * frame that is no RoCE packet of a kind it knows is RS_EINVAL. */
int rs_replay_rewrite(const struct rs_replay_rewrite *rw, uint8_t *frame, uint32_t caplen,
                      int linktype, const struct rs_decode_opts *dopts, char *err);

/* --- Comparison --- */

enum rs_replay_rule {
    RS_REPLAY_RULE_OPCODE,      /* the opcode or PSN progression of the responses */
    RS_REPLAY_RULE_SEGMENTATION,/* the same, where the PMTUs differ */
    RS_REPLAY_RULE_ACK_CLASS,   /* ACK, NAK or RNR NAK, and the NAK code */
    RS_REPLAY_RULE_RNR,         /* an RNR NAK where the capture has none, or its timer */
    RS_REPLAY_RULE_MSN,         /* the MSN's progression */
    RS_REPLAY_RULE_PAYLOAD,     /* READ response or atomic data */
    RS_REPLAY_RULE_COMPLETION,  /* a message the capture completes and the replay does not */
    RS_REPLAY_RULE_EXTRA,       /* a response the capture does not have */
    RS_REPLAY_RULE_VIOLATION,   /* a transport rule the analysis finds broken */
    RS_REPLAY_RULE_REQUEST,     /* --side responder: the requester's packets, retries included */
    RS_REPLAY_RULE_COUNT
};

const char *rs_replay_rule_name(uint8_t rule);

struct rs_replay_divergence {
    uint64_t capture_frame;     /* 0: none */
    uint64_t replay_frame;      /* 0: none */
    uint8_t rule;               /* enum rs_replay_rule */
    char field[48];
    char expected[64], got[64];
};

struct rs_replay_compare_opts {
    bool lenient_rnr;           /* RNR timer values may differ */
    bool payloads;              /* compare READ and atomic data */
    uint32_t first_psn;         /* the trace's first request PSN (rs_replay_first_psn) */
    uint32_t psn_offset;        /* what the replay added to the trace's PSNs */
    uint32_t psn_span;          /* PSNs of one pass (--loop): later passes are shifted by it */
    bool messages;              /* --messages: the capture's sequence NAKs and the answers to
                                   its retransmissions were its requester's retries, which
                                   ours need not repeat */
    uint16_t trace_pmtu;        /* the capture's PMTU, and the target's, when known: a */
    uint16_t target_pmtu;       /* difference names divergences "segmentation" */
    /* The capture's requests, which count the messages each MSN must count (the target's QP
     * is new: its MSNs count from the replay's first message); NULL: the capture's MSNs
     * are taken to count from its conversation's start. */
    const struct rs_replay_frame *requests;
    size_t n_requests;
};

/* Counts by what was compared. */
struct rs_replay_tally {
    uint64_t compared;          /* expected responses looked for */
    uint64_t same;
    uint64_t allowed;           /* differences IBTA allows (coalesced ACKs, credits, RNR timer) */
    uint64_t diverged;
};

struct rs_replay_result {
    GArray *divergences;        /* struct rs_replay_divergence, in capture order */
    struct rs_replay_tally by_rule[RS_REPLAY_RULE_COUNT];
    uint64_t expected, got;     /* responses in the capture, and in the replay */
    uint32_t passes;
};

/* Compares got (the replay's responses, in their order) with expected (the trace's
 * responses, from the trace's buffer) for every pass the replay made. got_base and
 * exp_base hold the frames' bytes. */
void rs_replay_compare(const struct rs_replay_compare_opts *opts,
                       const struct rs_replay_frame *expected, size_t n_expected,
                       const uint8_t *exp_base, const struct rs_replay_frame *got,
                       size_t n_got, const uint8_t *got_base, uint32_t passes,
                       struct rs_replay_result *res);
/* An empty result (rs_replay_compare makes its own). */
void rs_replay_result_init(struct rs_replay_result *res);
void rs_replay_result_free(struct rs_replay_result *res);

/* One line per divergence, then the summary table. */
void rs_replay_print(FILE *f, const struct rs_replay_result *res);
/* TAP (one test per rule) and JUnit XML (one testcase per rule, a failure per
 * divergence). name names the suite. */
void rs_replay_print_tap(FILE *f, const struct rs_replay_result *res);
int rs_replay_write_junit(const char *path, const char *name,
                          const struct rs_replay_result *res, char *err);

/* --diff: the capture's conversation (requests and responses in capture order) beside the
 * replay's wire, aligned by direction, opcode and PSN (the replay's less psn_offset): '|'
 * where they agree, '!' where they differ, '<' and '>' where one side has no counterpart. */
void rs_replay_print_diff(FILE *f, const struct rs_replay_trace *trace, const GArray *wire,
                          uint32_t psn_offset);

/* --- Packets mode: the run --- */

struct rs_replay_run_opts {
    const char *iface;          /* send with libpcap here; NULL: a UDP socket from src */
    const char *capture_iface;  /* where the target's answers are captured; NULL: not */
    const char *write;          /* -w: the replay's own capture */
    double speed;               /* -x: 1.0 as recorded */
    uint64_t pps;               /* > 0: this many packets a second */
    bool topspeed;
    uint32_t loop;              /* passes (>= 1) */
    uint32_t psn_span;          /* added to every PSN per pass */
    uint64_t linger_ns;         /* how long to wait for answers after the last packet */
    bool until_answered;        /* end the wait once the target has answered the last request
                                   the capture's responder answered, or with a NAK that ends
                                   its QP (packets mode) */
    bool progress;              /* a progress line on stderr */
    GArray *wire;               /* when set, gets every RoCE frame between the two ends as
                                   captured (struct rs_replay_frame; bytes not kept): --diff */
};

struct rs_replay_run_stats {
    uint64_t sent;
    double seconds;             /* of sending */
    uint64_t captured;          /* frames the capture of the answers kept */
    uint64_t capture_drops;
    bool until_answered;        /* the wait was for the last answer: */
    uint64_t answers;           /* the target's responses seen meanwhile */
    bool answered, refused;     /* the last came; or a NAK ended the target's QP */
    uint64_t completed, failed; /* --messages: work completions, and those not successful */
    uint8_t first_failure;      /* the first failed one's status (enum rs_rc_wc_status) */
};

/* Sends the trace's requests, rewritten by rw, and captures what comes back (the
 * frames between rw's src and dst): their frames, in the order captured, land in
 * got (struct rs_replay_frame, bytes in got_bytes, numbered as -w numbers them). */
int rs_replay_run_packets(const struct rs_replay_trace *trace,
                          const struct rs_replay_rewrite *rw,
                          const struct rs_replay_run_opts *opts,
                          const struct rs_decode_opts *dopts, GArray *got,
                          GByteArray *got_bytes, struct rs_replay_run_stats *stats, char *err);

/* The interface that holds addr (lo for 127.0.0.0/8 and ::1): where the target's
 * answers to it are captured. */
int rs_replay_iface_for(uint8_t family, const uint8_t *addr, char *name, size_t size,
                        char *err);

struct rs_replay_target;

/* --- Messages mode: the requester's work, done again by our requester --- */

/* One message of the trace, as a work request would post it. */
struct rs_replay_msg {
    uint64_t frame;             /* its first packet in the capture */
    uint8_t opcode;             /* enum rs_rc_wr_opcode */
    uint32_t length;
    uint64_t remote_offset;     /* from the trace's lowest VA */
    uint32_t rkey;              /* as captured */
    uint32_t imm;               /* ImmDt, or the R_Key a SEND with Invalidate names */
    uint64_t compare_add, swap;
    uint32_t data_off;          /* its bytes (SEND, WRITE) in the messages' data */
};

/* The trace's messages in PSN order, each packet taken once (retransmissions and
 * duplicates are the transport's, not the work), with their payloads gathered in data.
 * A message whose packets the capture lacks is RS_EINVAL, naming the PSN. */
int rs_replay_messages(const struct rs_replay_trace *trace, GArray *msgs, GByteArray *data,
                       char *err);

/* --preload: WRITEs (in msgs, their bytes in data) that give the target's memory what the
 * capture shows it held: what each READ response saw there, and the WRITE data where no
 * READ looked; or, with file, the file's bytes from the trace's lowest VA. Done with
 * rs_replay_run_messages() before the replay, its READ data compares (--payloads). */
int rs_replay_preload(const struct rs_replay_trace *trace, const char *file, GArray *msgs,
                      GByteArray *data, char *err);

/* Our requester (the RC transport on a UDP port at src) does msgs against the target
 * learned as t, with the trace's QPN and first PSN and its own retries and timers, while
 * the wire is captured as in packets mode. */
int rs_replay_run_messages(const struct rs_replay_trace *trace, const GArray *msgs,
                           const GByteArray *data, const struct rs_replay_rewrite *rw,
                           const struct rs_replay_target *t,
                           const struct rs_replay_run_opts *opts,
                           const struct rs_decode_opts *dopts, GArray *got,
                           GByteArray *got_bytes, struct rs_replay_run_stats *stats, char *err);

/* --- The responder side: a live requester served the capture's responses --- */

struct rs_replay_serve_opts {
    uint16_t listen;            /* the side channel's TCP port, on rw's src */
    uint64_t timeout_ns;        /* for the requester to connect, and then to finish */
    uint64_t idle_ns;           /* a requester quiet this long is done */
};

/* Waits for a requester on the side channel at rw->src (it learns the capture's
 * responder: its QPN, the R_Key and lowest VA of the trace), then answers each of its
 * requests with the responses that followed the same request (PSN, and how many times it
 * had come) in the capture, rewritten to it: the recorded NAKs, RNR NAKs and READ data
 * included. What the requester sends is captured and lands in got, to be compared with
 * the trace's requests (rs_replay_compare_requests). rw is filled with the requester's
 * address, QPN and PSN offset. */
int rs_replay_serve(const struct rs_replay_trace *trace, struct rs_replay_rewrite *rw,
                    const struct rs_replay_serve_opts *so, const struct rs_replay_run_opts *o,
                    const struct rs_decode_opts *dopts, GArray *got, GByteArray *got_bytes,
                    struct rs_replay_run_stats *stats, char *err);

/* The requester's packets against the trace's, in order: opcode and PSN (less
 * psn_offset), retransmissions included; a packet missing or extra is one divergence. */
void rs_replay_compare_requests(uint32_t psn_offset, const struct rs_replay_frame *expected,
                                size_t n_expected, const struct rs_replay_frame *got,
                                size_t n_got, struct rs_replay_result *res);

/* --- The target's parameters, through its side channel (roceshark responder) --- */

struct rs_replay_target {
    uint32_t qpn, psn, rkey, pmtu;
    uint64_t va, length;
    int fd;         /* the side channel, held while the QP is used: the responder frees
                       the QP when it closes (rs_replay_target_release()); -1: none */
};

/* Connects to target:port (GIDs, addr.h; scope: the interface of a link-local target),
 * announces the trace's requester (at our address src, its QPN, its first PSN and PMTU),
 * and reads the target's QP, R_Key, VA and PMTU; the connection stays open until
 * rs_replay_target_release(), which the caller calls whatever this returned. */
int rs_replay_learn(const struct rs_replay_trace *trace, const uint8_t src[16],
                    const uint8_t target[16], uint32_t scope, uint16_t port,
                    struct rs_replay_target *t, char *err);
/* Closes t's side channel: the target frees the QP. */
void rs_replay_target_release(struct rs_replay_target *t);
/* Fills what rw leaves unset from t: the QP map, an R_Key map for every R_Key the
 * trace uses, and the VA offset that moves the trace's lowest VA to t's. */
void rs_replay_apply_target(const struct rs_replay_trace *trace, const struct rs_replay_target *t,
                            bool have_va_offset, struct rs_replay_rewrite *rw);
/* The first PSN of the trace's request stream: where a fresh responder must start. */
uint32_t rs_replay_first_psn(const struct rs_replay_trace *trace);
/* The PSNs the trace's requests take from the first one, READ responses included: what
 * each further pass of --loop adds to the PSNs. */
uint32_t rs_replay_psn_span(const struct rs_replay_trace *trace);

#endif /* ROCESHARK_REPLAY_H */
