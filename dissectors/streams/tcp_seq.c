/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcp_seq.c - TCP's sequence analysis, as tshark 4.0 runs it in one pass: for each
 * segment, in capture order, against what each direction has shown so far:
 *
 *   zero window probe   1 byte at the next sequence number into a zero window
 *   zero window         a window of 0 (no SYN, FIN or RST)
 *   lost segment        starts past the next sequence number expected
 *   keep-alive          0 or 1 byte, one before the next sequence number
 *   window update       no data, same ACK, another window
 *   window full         data up to the edge of the peer's window
 *   keep-alive ACK      repeats the ACK after a keep-alive
 *   duplicate ACK       no data, same ACK and window
 *   ACKed unseen        acknowledges past what the peer was seen to send
 *   spurious, fast and plain retransmissions, out-of-order
 *                       data (or SYN, FIN) that does not advance the sequence
 *
 * then which segment it acknowledges (and the round trip), the bytes in flight (the span
 * of the sender's unacknowledged segments, less the peer's SACKed blocks) and the bytes
 * since the last PSH. The rules and their order are packet-tcp.c's
 * (tcp_analyze_sequence_number), whose results the real captures check frame by frame;
 * they are re-written here, not copied.
 *
 * Each direction keeps its unacknowledged segments, at most TCP_MAX_UNACKED (Wireshark's
 * bound) and within the stage's budget for all conversations; a segment past either is
 * not remembered (counted), as Wireshark stops remembering past its own bound.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/wire.h>

#include "streams/tcp_seq_int.h"

#define TH_FIN 0x001
#define TH_SYN 0x002
#define TH_RST 0x004
#define TH_PUSH 0x008
#define TH_ACK 0x010
#define TCP_MAX_UNACKED 10000   /* packet-tcp.h's TCP_MAX_UNACKED_SEGMENTS */
#define TCP_OPT_SACK 5
#define FAST_RETRANSMISSION_NS 20000000     /* dup ACKs at most 20 ms before */
#define OUT_OF_ORDER_NS 3000000             /* 3 ms, without a handshake's RTT */

/* 32-bit sequence comparisons, wrapping (RFC 1982's). */
static bool
seq_gt(uint32_t x, uint32_t y)
{
    return (int32_t)(y - x) < 0;
}

static bool
seq_lt(uint32_t x, uint32_t y)
{
    return (int32_t)(x - y) < 0;
}

static bool
seq_le(uint32_t x, uint32_t y)
{
    return (int32_t)(x - y) <= 0;
}

/* Nanoseconds from earlier to later, unsigned as Wireshark computes them: a time that
 * went backwards is a very long one. */
static uint64_t
ns_between(struct rs_time later, struct rs_time earlier)
{
    return (uint64_t)(later.sec - earlier.sec) * 1000000000u +
           (uint64_t)((int64_t)later.nsec - earlier.nsec);
}

static void
flow_init(struct tcp_seq_flow *f)
{
    memset(f, 0, sizeof(*f));
    f->window = UINT32_MAX;
    f->valid_bif = true;
}

void
tcp_seq_free(struct tcp_seq *c, uint64_t *budget)
{
    for (int i = 0; i < 2; i++) {
        *budget += c->flow[i].n_segs;
        free(c->flow[i].segs);
        c->flow[i].segs = NULL;
        c->flow[i].n_segs = c->flow[i].cap_segs = 0;
    }
}

void
tcp_seq_reset(struct tcp_seq *c, uint64_t *budget)
{
    tcp_seq_free(c, budget);
    memset(c, 0, sizeof(*c));
    flow_init(&c->flow[0]);
    flow_init(&c->flow[1]);
}

/* Remembers a segment as unacknowledged, if the bounds let it. */
static void
hold_segment(struct tcp_seq_flow *f, const struct tcp_unacked *u, uint64_t *budget,
             uint64_t *untracked)
{
    if (f->n_segs >= TCP_MAX_UNACKED)
        return;     /* as Wireshark: the bound, silently */
    if (*budget == 0) {
        (*untracked)++;
        return;
    }
    if (f->n_segs == f->cap_segs) {
        uint32_t cap = f->cap_segs == 0 ? 8 : f->cap_segs * 2;
        if (cap > TCP_MAX_UNACKED)
            cap = TCP_MAX_UNACKED;
        struct tcp_unacked *s = realloc(f->segs, cap * sizeof(*s));
        if (s == NULL) {
            (*untracked)++;
            return;
        }
        f->segs = s;
        f->cap_segs = cap;
    }
    f->segs[f->n_segs++] = *u;
    (*budget)--;
}

/* The flags of the segment's own state: the zero-window and keep-alive family, lost
 * segments and duplicate ACKs. Returns true when it is a keep-alive or zero window
 * probe ACK, which ends the checks of the sender's side there. */
static bool
check_sender(struct tcp_seq *c, const struct tcp_seq_in *in, struct rs_tcp_analysis *a)
{
    struct tcp_seq_flow *fwd = &c->flow[in->side], *rev = &c->flow[!in->side];
    uint16_t f = in->flags;
    bool plain = (f & (TH_SYN | TH_FIN | TH_RST)) == 0;
    bool same = in->seq == fwd->nextseq && in->ack == fwd->lastack;

    if (in->seglen == 1 && in->seq == fwd->nextseq && rev->window == 0) {
        a->flags |= RS_TCPA_ZERO_WINDOW_PROBE;
        return true;
    }
    if (in->window == 0 && plain)
        a->flags |= RS_TCPA_ZERO_WINDOW;
    if (fwd->nextseq != 0 && seq_gt(in->seq, fwd->nextseq) && !(f & TH_RST)) {
        a->flags |= RS_TCPA_LOST_SEGMENT;
        fwd->valid_bif = false;     /* until the other side acknowledges something */
    }
    if (in->seglen <= 1 && in->seq == fwd->nextseq - 1 && plain)
        a->flags |= RS_TCPA_KEEP_ALIVE;
    if (in->seglen == 0 && in->window != 0 && in->window != fwd->window && same && plain)
        a->flags |= RS_TCPA_WINDOW_UPDATE;
    if (in->seglen > 0 && in->shift[!in->side] != -1 && plain) {
        int8_t sh = in->shift[!in->side];
        unsigned shift = rev->first_ack || sh < 0 ? 0u : (unsigned)sh;
        if (in->seq + in->seglen == rev->lastack + (uint32_t)(rev->window << shift))
            a->flags |= RS_TCPA_WINDOW_FULL;
    }
    if (in->seglen == 0 && in->window != 0 && in->window == fwd->window && same &&
        (rev->last_flags & RS_TCPA_KEEP_ALIVE) && plain) {
        a->flags |= RS_TCPA_KEEP_ALIVE_ACK;
        return true;
    }
    if (in->seglen == 0 && in->window == 0 && in->window == fwd->window && same &&
        (rev->last_flags & RS_TCPA_ZERO_WINDOW_PROBE) && plain) {
        a->flags |= RS_TCPA_ZERO_WINDOW_PROBE_ACK;
        return true;
    }
    if (in->seglen == 0 && in->window != 0 && in->window == fwd->window && same && plain) {
        fwd->dupacks = fwd->dupacks == -1 ? 1 : fwd->dupacks + 1;
        a->flags |= RS_TCPA_DUPLICATE_ACK;
        a->dupack_num = (uint32_t)fwd->dupacks;
        a->dupack_frame = fwd->last_non_dupack;
    }
    return false;
}

/* Data (or a SYN or FIN) that does not advance the sequence: which kind of
 * retransmission, or out of order. */
static void
check_retransmission(struct tcp_seq *c, const struct tcp_seq_in *in, struct rs_time now,
                     struct rs_tcp_analysis *a)
{
    struct tcp_seq_flow *fwd = &c->flow[in->side], *rev = &c->flow[!in->side];
    bool not_advanced = fwd->nextseq != 0 && seq_lt(in->seq, fwd->nextseq);

    if (a->flags & RS_TCPA_KEEP_ALIVE)
        return;
    /* one byte under the next sequence number after a zero window probe, with more:
     * new data */
    if (in->seglen > 1 && fwd->nextseq - 1 == in->seq)
        not_advanced = false;
    if (in->seglen > 0 && rev->lastack != 0 && seq_le(in->seq + in->seglen, rev->lastack)) {
        a->flags |= RS_TCPA_SPURIOUS_RETRANSMISSION;
        return;
    }
    if (not_advanced && rev->dupacks >= 2 && rev->lastack == in->seq &&
        ns_between(now, rev->lastack_time) < FAST_RETRANSMISSION_NS) {
        a->flags |= RS_TCPA_FAST_RETRANSMISSION;
        return;
    }
    uint64_t threshold = c->first_rtt_set ? ns_between(c->first_rtt, (struct rs_time){0, 0})
                                          : OUT_OF_ORDER_NS;
    uint32_t next = in->seq + in->seglen + ((in->flags & (TH_SYN | TH_FIN)) ? 1u : 0u);
    if (not_advanced && ns_between(now, fwd->nextseq_time) < threshold && fwd->nextseq != next) {
        a->flags |= RS_TCPA_OUT_OF_ORDER;
        return;
    }
    if (!not_advanced)
        return;
    a->flags |= RS_TCPA_RETRANSMISSION;
    /* from the segment of the highest sequence number, or better, the oldest one still
     * unacknowledged: likely the one this repeats */
    a->rto = rs_time_sub(now, fwd->nextseq_time);
    a->rto_frame = fwd->nextseq_frame;
    if (fwd->n_segs > 0) {
        a->rto = rs_time_sub(now, fwd->segs[0].ts);
        a->rto_frame = fwd->segs[0].frame;
    }
}

/* The other direction's segments this one acknowledges: dropped, the exact match
 * named (the oldest such, as Wireshark's list walk leaves it), one half acknowledged
 * trimmed. */
static void
release_acked(struct tcp_seq_flow *rev, uint32_t ack, struct rs_time now,
              struct rs_tcp_analysis *a, uint64_t *budget)
{
    /* newest first, as Wireshark walks its list; kept ones keep their order */
    for (uint32_t i = rev->n_segs; i-- > 0;) {
        struct tcp_unacked *u = &rev->segs[i];
        if (ack == u->nextseq) {
            a->acks_frame = u->frame;
            a->ack_rtt = rs_time_sub(now, u->ts);
        } else if (seq_gt(ack, u->seq) && seq_le(ack, u->nextseq)) {
            u->seq = ack;
            u->frame |= 1ull << 63;     /* marked kept */
            continue;
        } else if (seq_gt(u->nextseq, ack)) {
            u->frame |= 1ull << 63;
            continue;
        }
        /* old, or an exact match: gone */
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < rev->n_segs; i++) {
        if (rev->segs[i].frame >> 63) {
            rev->segs[n] = rev->segs[i];
            rev->segs[n++].frame &= ~(1ull << 63);
        }
    }
    *budget += rev->n_segs - n;
    rev->n_segs = n;
}

/* Bytes in flight: the span of the sender's unacknowledged segments, less the blocks
 * the peer's last segment SACKed; and the bytes since the last PSH. */
static void
count_in_flight(struct tcp_seq *c, const struct tcp_seq_in *in, struct rs_tcp_analysis *a,
                bool *shown)
{
    struct tcp_seq_flow *fwd = &c->flow[in->side], *rev = &c->flow[!in->side];

    if (in->seglen == 0 || fwd->n_segs == 0 || !fwd->valid_bif)
        return;
    /* relative to the direction's initial sequence number, as Wireshark compares them */
    uint32_t base = in->base[in->side];
    uint32_t first = fwd->segs[fwd->n_segs - 1].seq - base;
    uint32_t last = fwd->segs[fwd->n_segs - 1].nextseq - base;
    for (uint32_t i = 0; i < fwd->n_segs; i++) {
        if (fwd->segs[i].nextseq - base > last)
            last = fwd->segs[i].nextseq - base;
        if (fwd->segs[i].seq - base < first)
            first = fwd->segs[i].seq - base;
    }
    uint32_t in_flight = last - first;
    for (unsigned i = 0; i < rev->n_sack; i++)
        in_flight -= rev->sack_re[i + 1] - rev->sack_le[i + 1];
    if (in_flight > 0 && in_flight < 2000000000u)
        a->bytes_in_flight = in_flight - ((in->flags & (TH_SYN | TH_FIN)) ? 1u : 0u);
    bool push = (in->flags & TH_PUSH) != 0;
    if (push || fwd->push_last)
        fwd->push_bytes = fwd->push_last ? in->seglen : fwd->push_bytes + in->seglen;
    else
        fwd->push_bytes += in->seglen;
    fwd->push_last = push;
    a->push_bytes_sent = fwd->push_bytes;
    *shown = true;
}

/* The segment's SACK blocks, relative to the other direction's start, for the bytes in
 * flight of the segments that follow. */
static void
read_sacks(struct tcp_seq_flow *fwd, const struct rs_packet *pkt, uint32_t peer_base)
{
    const struct rs_span *ts = &pkt->span[RS_LAYER_TCP];
    const uint8_t *t = pkt->frame->data + ts->off;
    uint32_t hlen = (t[12] >> 4) * 4u, end = hlen < ts->len ? hlen : ts->len;

    for (uint32_t i = 20; i < end;) {
        uint8_t kind = t[i];
        if (kind == 0)
            break;
        if (kind == 1) {
            i++;
            continue;
        }
        if (i + 1 >= end || t[i + 1] < 2 || i + t[i + 1] > end)
            break;
        if (kind == TCP_OPT_SACK) {
            fwd->n_sack = 0;
            for (uint32_t k = i + 2; k + 8 <= i + t[i + 1]; k += 8) {
                if (fwd->n_sack + 1 >= TCP_SACK_SLOTS)
                    break;
                fwd->n_sack++;
                fwd->sack_le[fwd->n_sack] = rs_load_be32(t + k) - peer_base;
                fwd->sack_re[fwd->n_sack] = rs_load_be32(t + k + 4) - peer_base;
            }
        }
        i += t[i + 1];
    }
}

/* tcp.completeness: the conversation's value before this segment is what tshark shows;
 * the segment then adds to it. */
static void
update_completeness(struct tcp_seq *c, const struct tcp_seq_in *in)
{
    uint16_t f = in->flags;

    if (in->fresh) {
        c->completeness = 0;
        if ((f & (TH_SYN | TH_ACK)) == TH_SYN)
            c->completeness = RS_TCPC_SYN | (in->seglen > 0 ? RS_TCPC_DATA : 0);
        return;
    }
    if ((f & (TH_SYN | TH_ACK)) == (TH_SYN | TH_ACK))
        c->completeness |= RS_TCPC_SYNACK;
    if ((f & (TH_SYN | TH_ACK)) == TH_ACK)
        c->completeness |= in->seglen > 0 ? RS_TCPC_DATA : RS_TCPC_ACK;
    if ((f & (TH_FIN | TH_ACK)) == (TH_FIN | TH_ACK))
        c->completeness |= RS_TCPC_FIN;
    if (f & TH_RST)
        c->completeness |= RS_TCPC_RST;
}

void
tcp_seq_segment(struct tcp_seq *c, const struct tcp_seq_in *in, const struct rs_packet *pkt,
                struct rs_stream_view *v, uint64_t *budget, uint64_t *untracked)
{
    struct tcp_seq_flow *fwd = &c->flow[in->side], *rev = &c->flow[!in->side];
    struct rs_tcp_analysis *a = &v->analysis;
    struct rs_time now = rs_frame_time(pkt->frame);
    uint16_t f = in->flags;
    bool shown = false;

    memset(a, 0, sizeof(*a));
    if (in->reused) {
        a->flags |= RS_TCPA_REUSED_PORTS;
        c->completeness = RS_TCPC_SYN;      /* a new conversation begun by a SYN */
        shown = true;
    } else if (in->syn_repeat) {
        /* a SYN again: as sent after a reset, it continues from where the last
         * acknowledgment left the flow */
        fwd->nextseq = fwd->max_to_be_acked;
        shown = true;
    }
    if (in->base_fwd_moved) {
        a->flags |= RS_TCPA_REUSED_PORTS;
        shown = true;
    }
    v->completeness = c->completeness;
    fwd->n_sack = 0;

    if (f & TH_ACK)
        rev->valid_bif = true;
    check_sender(c, in, a);
    /* the ACK moved: duplicates count again */
    if (in->ack != fwd->lastack) {
        fwd->last_non_dupack = pkt->frame->number;
        fwd->dupacks = 0;
    }
    if (rev->max_to_be_acked != 0 && seq_gt(in->ack, rev->max_to_be_acked) && (f & TH_ACK)) {
        if (seq_lt(rev->max_to_be_acked, rev->nextseq)) {
            rev->max_to_be_acked = rev->nextseq;
            a->flags |= RS_TCPA_ACK_LOST_SEGMENT;
        } else {
            /* the other side stalls on pure ACKs: one report of the same loss */
            if (rev->dupacks == 0)
                a->flags |= RS_TCPA_ACK_LOST_SEGMENT;
            rev->dupacks = -1;
        }
        shown = true;
    }
    if (in->seglen > 0 || (f & (TH_SYN | TH_FIN)))
        check_retransmission(c, in, now, a);

    /* a SYN or FIN counts one, where Wireshark's list has room to say so */
    uint32_t nextseq = in->seq + in->seglen;
    if ((in->seglen > 0 || (f & (TH_SYN | TH_FIN))) && fwd->n_segs < TCP_MAX_UNACKED) {
        nextseq += (f & (TH_SYN | TH_FIN)) ? 1u : 0u;
        struct tcp_unacked u = {pkt->frame->number, in->seq, nextseq, now};
        hold_segment(fwd, &u, budget, untracked);
    }
    bool probe = (a->flags & RS_TCPA_ZERO_WINDOW_PROBE) != 0;
    if ((seq_gt(nextseq, fwd->nextseq) || fwd->nextseq == 0) && !probe) {
        fwd->nextseq = nextseq;
        fwd->nextseq_frame = pkt->frame->number;
        fwd->nextseq_time = now;
    }
    if ((in->seq == fwd->max_to_be_acked || fwd->max_to_be_acked == 0) && !probe)
        fwd->max_to_be_acked = fwd->nextseq;
    fwd->window = in->window;
    fwd->lastack = in->ack;
    fwd->lastack_time = now;
    fwd->last_flags = a->flags;

    release_acked(rev, in->ack, now, a, budget);
    count_in_flight(c, in, a, &shown);

    /* after the analysis, as tshark's dissector goes on: the closing initiator, the
     * handshake's timing, the first-ACK state and the segment's SACK blocks */
    v->fin_first = (f & TH_FIN) && !rev->closing;
    if (v->fin_first)
        fwd->closing = true;
    update_completeness(c, in);
    if ((f & (TH_SYN | TH_ACK)) == TH_SYN) {
        c->mru_syn = now;
        c->mru_syn_set = true;
    }
    if ((f & (TH_SYN | TH_ACK)) == TH_ACK && c->mru_syn_set && !c->first_rtt_set) {
        c->first_rtt = rs_time_sub(now, c->mru_syn);
        c->first_rtt_set = c->first_rtt.sec != 0 || c->first_rtt.nsec != 0;
    }
    if (f & TH_SYN)
        fwd->first_ack = true;
    else if ((f & (TH_SYN | TH_ACK)) == TH_ACK)
        fwd->first_ack = false;
    read_sacks(fwd, pkt, in->base[!in->side]);

    a->irtt_known = c->first_rtt_set;
    a->irtt = c->first_rtt;
    a->shown = shown || a->flags != 0 || a->acks_frame != 0;
}
