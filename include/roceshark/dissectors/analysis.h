/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * analysis.h - RC/UC transport analysis: what the trace proves about each
 * queue pair, frame by frame, in one streaming pass in capture order.
 *
 * The analyzer follows conversations (a request stream from requester to
 * responder and the response stream back), tracks PSNs with 24-bit wrap,
 * matches responses to requests, reassembles message accounting, and
 * watches ECN marks and CNPs. Each frame's findings land in a struct
 * rs_facts that the packet points to; the roceshark.analysis.* fields read
 * it, so every consumer (printers, filters, statistics, the Wireshark
 * plugin) sees the same facts. Conversation state lives in a bounded table
 * with least-recently-used eviction; evictions are counted.
 */
#ifndef ROCESHARK_ANALYSIS_H
#define ROCESHARK_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/packet.h>

/* Facts present on a frame (struct rs_facts.flags). */
#define RS_FACT_CONV 0x00000001u            /* conv is set */
#define RS_FACT_PSN_GAP 0x00000002u         /* psn_gap PSNs are missing before this one */
#define RS_FACT_RETRANSMISSION 0x00000004u  /* PSN already passed (or duplicate response) */
#define RS_FACT_REQUEST_FRAME 0x00000008u   /* request_frame and response_time */
#define RS_FACT_ACKED_FRAME 0x00000010u     /* acked_frame */
#define RS_FACT_NAK 0x00000020u             /* nak (a NAK code) */
#define RS_FACT_RNR 0x00000040u             /* rnr_delay_ns */
#define RS_FACT_MSG 0x00000080u             /* msg_len, msg_first_frame, msg_packets */
#define RS_FACT_OPCODE_SEQ 0x00000100u      /* opcode sequence error */
#define RS_FACT_LENGTH_MISMATCH 0x00000200u /* RETH DMA length != payload delivered */
#define RS_FACT_ECN_CE 0x00000400u          /* RoCEv2 data packet marked CE */
#define RS_FACT_CNP_FOR 0x00000800u         /* cnp_for (and cnp_since_ce when known) */
#define RS_FACT_CNP_SINCE_CE 0x00001000u
#define RS_FACT_VIOLATION 0x00002000u       /* violation */
#define RS_FACT_RESPONSE 0x00004000u        /* the frame is on a response stream */
#define RS_FACT_PMTU 0x00008000u            /* pmtu (learned or assumed) */
#define RS_FACT_PSN_REL 0x00010000u         /* psn_rel */
#define RS_FACT_QP_REUSED 0x00020000u       /* qp_reused: a new life of an earlier one's QPs */
#define RS_FACT_READ_DONE 0x00040000u       /* the last response of a READ seen whole: a READ
                                               done in response_time (-z conv,qp's READ) */
/* Links from a request to what came after it: known only once the later frame has been
 * read, so the one-pass analyzer never sets them; the Wireshark plugin does, after its
 * first pass (as Wireshark's "Response in" links). */
#define RS_FACT_RESPONSE_FRAME 0x00080000u  /* response_frame */
#define RS_FACT_ACK_FRAME 0x00100000u       /* ack_frame */

/* Why a frame breaks a transport rule the trace itself proves. */
enum rs_violation {
    RS_VIOL_NONE = 0,
    RS_VIOL_ACK_PSN_BACKWARDS,     /* an ACK acknowledges less than an earlier one */
    RS_VIOL_NAK_PSN_UNEXPECTED,    /* a sequence NAK names a PSN that is not the expected one */
    RS_VIOL_MSN_BACKWARDS,         /* the MSN went down */
    RS_VIOL_READ_MIDDLE_AETH,      /* a READ response MIDDLE one AETH longer than the PMTU */
    RS_VIOL_READ_RESPONSE_COUNT,   /* a READ answered with the wrong number of packets */
    RS_VIOL_READ_RESPONSE_LENGTH,  /* a READ answered with the wrong number of bytes */
    RS_VIOL_ACK_UNSENT_PSN,        /* a response to a PSN the requester never sent */
    RS_VIOL_SEGMENT_LENGTH,        /* a FIRST or MIDDLE packet that is not one PMTU long */
    RS_VIOL_COUNT
};

/* Everything the analyzer found about one frame. A value type: the
 * Wireshark plugin copies it per frame. */
struct rs_facts {
    uint32_t flags;             /* RS_FACT_* */
    uint32_t conv;              /* conversation id (from 1) */
    uint32_t psn_gap;
    uint32_t msg_packets;
    uint64_t request_frame;
    struct rs_time response_time;
    uint64_t acked_frame;
    int64_t rnr_delay_ns;       /* from a table: at most 655.36 ms */
    uint64_t msg_len;
    uint64_t msg_first_frame;
    uint32_t cnp_for;           /* conversation id a CNP throttles */
    uint32_t psn_rel;           /* the PSN less the conversation's first, 24-bit */
    struct rs_time cnp_since_ce;
    uint16_t pmtu;
    uint8_t nak;                /* enum rs_nak_code */
    uint8_t violation;          /* enum rs_violation */
    uint32_t qp_reused;         /* the conversation whose QPs this one's first packet reuses */
    uint64_t response_frame;    /* a request's first response (RS_FACT_RESPONSE_FRAME) */
    uint64_t ack_frame;         /* a request's first ACK or NAK (RS_FACT_ACK_FRAME) */
};

struct rs_analysis_opts {
    uint16_t pmtu;              /* assumed path MTU until learned; 0: unknown */
    uint32_t max_convs;         /* conversation table bound */
    /* Keep the statistics of evicted conversations, for listing them
     * (rs_analyzer_foreach_conv, rs_analyzer_conv_stats). Default true; a
     * consumer that lists no conversation turns it off and saves the copy. */
    bool keep_evicted;
};

void rs_analysis_opts_init(struct rs_analysis_opts *opts);

struct rs_analyzer;

int rs_analyzer_new(const struct rs_analysis_opts *opts, struct rs_analyzer **out, char *err);
void rs_analyzer_free(struct rs_analyzer *an);

/* Analyzes pkt (decoded, in capture order); fills *facts and points
 * pkt->facts at it. Frames must be fed once each, in order. */
void rs_analyzer_process(struct rs_analyzer *an, struct rs_packet *pkt, struct rs_facts *facts);

/* What the analysis looks a packet's conversation up by, worked out from the packet
 * alone: its stream's key (the analysis's own layout) and the hashes of the key, of its
 * host pair and of the QP it goes to. rs_analyzer_prepare() runs on any thread, before
 * the packet's turn (read --threads N's decode step), so that the one thread that
 * analyzes in capture order need not compute them. */
#define RS_ANALYSIS_KEY_MAX 48
struct rs_analysis_prep {
    bool ready;                         /* the rest holds the packet's; false: a packet
                                           not looked up so, or not prepared */
    uint32_t stream_hash, host_hash, peer_hash;
    uint8_t key[RS_ANALYSIS_KEY_MAX];
};
void rs_analyzer_prepare(const struct rs_packet *pkt, struct rs_analysis_prep *prep);
/* rs_analyzer_process() with what rs_analyzer_prepare() found for pkt. */
void rs_analyzer_process_prepared(struct rs_analyzer *an, struct rs_packet *pkt,
                                  const struct rs_analysis_prep *prep, struct rs_facts *facts);

/* Short name of a violation ("ack_psn_backwards", ...). */
const char *rs_violation_name(uint8_t violation);
/* The NAK name analysis uses ("psn_seq_error", ...), NULL for reserved codes. */
const char *rs_analysis_nak_name(uint8_t code);
/* The code of a NAK by that name or by its number (0-31); -1 for neither. */
int rs_analysis_nak_code(const char *name);
/* The RS_FACT_* flag without which roceshark.analysis field f (of fields.h) has no value,
 * 0 for a field that is not one of them: the tree walk passes such a field without
 * asking for its value when the packet's facts lack the flag. */
struct rs_field;
uint32_t rs_analysis_field_fact(const struct rs_field *f);

/* Tells the analyzer that QP qpn_a at address a and QP qpn_b at b are connected, as a
 * CM REP does: for whoever set them up by other means (a side channel), so that the
 * pairing is known before the first response. family is 4 (IPv4) or 6 (IPv6, GIDs). */
void rs_analyzer_pair(struct rs_analyzer *an, uint8_t family, const uint8_t *a,
                      uint32_t qpn_a, const uint8_t *b, uint32_t qpn_b);

/* Where a conversation stands after the frames fed so far: what a packet made up to
 * join it needs (the fault engine's injected NAKs, ACKs and CNPs). */
struct rs_conv_state {
    uint32_t requester_qp;      /* 0xffffffff while unknown */
    uint32_t responder_qp;
    bool have_next_psn;
    uint32_t next_psn;          /* the request PSN the responder expects next */
    bool have_msn;
    uint32_t msn;               /* the last MSN a response carried */
    uint16_t pmtu;              /* learned or assumed; 0 when unknown */
};
/* False when conversation id is not live (unknown, or evicted). */
bool rs_analyzer_conv_state(const struct rs_analyzer *an, uint32_t id,
                            struct rs_conv_state *out);

/* --- Per-conversation statistics (for -z conv,qp and the plugin's tap) --- */

struct rs_conv_stats {
    uint32_t id;
    uint8_t addr_family;            /* 4, 6, or 0 for IB LIDs */
    bool paired_by_cm;
    uint8_t requester[16], responder[16];   /* IP, GID or LID (first two bytes) */
    uint32_t requester_qp;          /* 0xffffffff while unknown */
    uint32_t responder_qp;
    uint64_t req_packets, req_bytes, resp_packets, resp_bytes;
    uint64_t msgs_send, msgs_write, msgs_read, msgs_atomic;
    uint64_t retransmissions, psn_gaps, naks[5], rnr_naks, cnps, ecn_ce, violations;
    /* READ completion times (request to last response packet). The p99 is
     * exact up to 512 READs and estimated from a uniform sample beyond. */
    uint64_t read_count;
    int64_t read_min_ns, read_max_ns, read_sum_ns, read_p99_ns;
    struct rs_time first, last; /* times of the first and the last packet */
};

/* Who conversation id is between, without its counts: the members of *out
 * before req_packets (id, addresses, QPs, pairing) as rs_analyzer_conv_stats
 * gives them, at the cost of a lookup (for every packet of a table that counts
 * frames itself); the counts are left as they are. False when unknown. */
bool rs_analyzer_conv_identity(const struct rs_analyzer *an, uint32_t id,
                               struct rs_conv_stats *out);

/* A conversation's counts built frame by frame from the facts, as the analyzer
 * builds its own: for a table of the frames a filter takes (-z conv,qp,FILTER,
 * the Wireshark plugin's). Start from all zeroes; clear to free. */
struct rs_latency_samples;
struct rs_conv_tally {
    struct rs_conv_stats stats;         /* the counts (from req_packets on) */
    struct rs_latency_samples *lat;     /* READ completion times, for the p99 */
};
/* Counts one analysed frame of the conversation: its facts, BTH opcode, length
 * on the wire and time. Frames without RS_FACT_CONV count nothing. */
void rs_conv_tally_add(struct rs_conv_tally *t, const struct rs_facts *f, uint8_t opcode,
                       uint32_t wire_len, struct rs_time when);
/* Copies the counts (with the p99) into the members of *out from req_packets
 * on; the others are left as they are. */
void rs_conv_tally_stats(const struct rs_conv_tally *t, struct rs_conv_stats *out);
void rs_conv_tally_clear(struct rs_conv_tally *t);

/* Calls fn for every conversation seen, live or evicted (with keep_evicted;
 * live only without), in id order. */
void rs_analyzer_foreach_conv(const struct rs_analyzer *an,
                              void (*fn)(void *ctx, const struct rs_conv_stats *st), void *ctx);
/* The same rows in no particular order, without sorting them or allocating:
 * for a caller that sorts them its own way under a lock the analysis shares
 * (the TUI's table, at every refresh). */
void rs_analyzer_foreach_conv_unordered(const struct rs_analyzer *an,
                                        void (*fn)(void *ctx, const struct rs_conv_stats *st),
                                        void *ctx);
/* The statistics of conversation id (live or archived) as they stand now;
 * false when unknown (or summed into the evicted totals). */
bool rs_analyzer_conv_stats(const struct rs_analyzer *an, uint32_t id, struct rs_conv_stats *out);

/* Conversations evicted from the table, and how many of those are summed
 * into the last row rs_analyzer_foreach_conv reports (id 0) because the
 * archive of evicted rows is full too. */
uint64_t rs_analyzer_evictions(const struct rs_analyzer *an);

/* Requests each conversation remembers, to pair responses, ACKs and NAKs with them. */
#define RS_ANALYSIS_REQUESTS_KEPT 1024
/* CM REQs waiting for their REP at once. */
#define RS_ANALYSIS_CM_REQS_KEPT 4096

/* What the analysis's bounds lost, for -z conv,qp's first line. */
struct rs_analysis_losses {
    uint64_t evictions;             /* as rs_analyzer_evictions() */
    /* Requests dropped from a conversation's full memory of them (the oldest
     * goes, answered or not): a response to one later has no request. */
    uint64_t requests_forgotten;
    /* CM REQs dropped before their REP came, when RS_ANALYSIS_CM_REQS_KEPT were
     * waiting (all go at once): their QPs are paired by PSN inference. */
    uint64_t cm_reqs_dropped;
};
struct rs_analysis_losses rs_analyzer_losses(const struct rs_analyzer *an);

#endif /* ROCESHARK_ANALYSIS_H */
