/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcp_seq_int.h - TCP's sequence analysis (tcp.analysis.*, tcp.completeness, the
 * connection's closing initiator) as tshark 4.0 computes it in its one pass; part of the
 * streams stage, not of the API. Each TCP conversation holds one of these.
 */
#ifndef ROCESHARK_TCP_SEQ_INT_H
#define ROCESHARK_TCP_SEQ_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/nstime.h>
#include <roceshark/dissectors/packet.h>
#include <roceshark/dissectors/streams.h>

/* A segment sent and not yet acknowledged. */
struct tcp_unacked {
    uint64_t frame;
    uint32_t seq, nextseq;
    struct rs_time ts;
};

#define TCP_SACK_SLOTS 4        /* Wireshark keeps 3 blocks, in slots 1 to 3 */

/* One direction's state. */
struct tcp_seq_flow {
    uint32_t window;            /* the last window it advertised, unscaled */
    uint32_t nextseq;           /* the highest sequence number after a segment, 0: none */
    uint64_t nextseq_frame;
    struct rs_time nextseq_time;
    uint32_t max_to_be_acked;   /* the highest contiguous one */
    uint32_t lastack;
    struct rs_time lastack_time;
    int32_t dupacks;            /* duplicate ACKs in a row (-1: after an ACKed unseen one) */
    uint64_t last_non_dupack;
    uint16_t last_flags;        /* RS_TCPA_* of its last segment */
    bool valid_bif;             /* bytes in flight are known */
    bool first_ack;             /* no pure ACK since its SYN (no scaling yet) */
    uint32_t push_bytes;
    bool push_last;
    bool closing;               /* it sent the first FIN */
    uint8_t n_sack;
    uint32_t sack_le[TCP_SACK_SLOTS], sack_re[TCP_SACK_SLOTS];
    struct tcp_unacked *segs;   /* oldest first */
    uint32_t n_segs, cap_segs;
};

struct tcp_seq {
    struct tcp_seq_flow flow[2];
    struct rs_time mru_syn;     /* the last SYN's time; 0 none */
    bool mru_syn_set;
    struct rs_time first_rtt;   /* SYN to the first pure ACK */
    bool first_rtt_set;
    uint8_t completeness;       /* RS_TCPC_* */
};

/* What the segment is, for tcp_seq_segment(). */
struct tcp_seq_in {
    int side;                   /* its direction: flow[side] is the sender's */
    uint32_t seq, ack, seglen;
    uint16_t flags;             /* the TCP header's 12 flag bits */
    uint32_t window;            /* as sent, unscaled */
    int8_t shift[2];            /* each direction's window shift (RS_WIN_SCALE_* or 0..14) */
    bool fresh;                 /* the conversation starts with this segment */
    bool reused;                /* a SYN with a new initial sequence number reopened it */
    bool syn_repeat;            /* a SYN with the initial sequence number seen before */
    bool base_fwd_moved;        /* a SYN+ACK with another sequence number than the first */
    uint32_t base[2];           /* each direction's initial sequence number */
};

/* A fresh conversation (reuse empties one); frees what it held, giving its unacknowledged
 * segments back to *budget. */
void tcp_seq_reset(struct tcp_seq *c, uint64_t *budget);
void tcp_seq_free(struct tcp_seq *c, uint64_t *budget);

/* Analyses one segment in capture order and fills v->completeness, v->fin_first and
 * v->analysis. The options of the segment (SACK blocks) count from the next one on, as
 * tshark reads them after its analysis. Unacknowledged segments held in all are bounded
 * by *budget (decremented and given back as they are held and released); past it a
 * segment is not remembered, and counted in *untracked. */
void tcp_seq_segment(struct tcp_seq *c, const struct tcp_seq_in *in, const struct rs_packet *pkt,
                     struct rs_stream_view *v, uint64_t *budget, uint64_t *untracked);

#endif /* ROCESHARK_TCP_SEQ_INT_H */
