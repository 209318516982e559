/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * streams.h - TCP and UDP conversations as Wireshark numbers them: the
 * stream index of tcp.stream and udp.stream, TCP's relative sequence and
 * acknowledgment numbers, and its window scaling; and ICMP echo replies
 * matched to their requests (icmp.resp_to, icmp.resptime).
 *
 * A pipeline stage (pipeline.c runs it after decoding, when some output or
 * filter reads one of these fields). Frames are fed once each, in capture
 * order. The table is bounded: past opts.max_streams conversations, the
 * least recently seen is forgotten (counted), and seen again it gets a new
 * index, where Wireshark, which keeps them all, would give the old one.
 * Unanswered echo requests are held likewise, up to opts.max_echoes.
 */
#ifndef ROCESHARK_STREAMS_H
#define ROCESHARK_STREAMS_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/nstime.h>
#include <roceshark/dissectors/packet.h>

/* struct rs_stream_view.win_scale when it is not a factor */
#define RS_WIN_SCALE_UNKNOWN (-1)   /* the SYNs were not seen (Wireshark's -1) */
#define RS_WIN_SCALE_NONE (-2)      /* a SYN lacked the option: no scaling (its -2) */

/* TCP's sequence analysis of one segment (tcp.analysis.*), as tshark 4.0 finds it in its
 * one pass over the capture (packet-tcp.c's tcp_analyze_sequence_number). */
#define RS_TCPA_RETRANSMISSION 0x0001
#define RS_TCPA_LOST_SEGMENT 0x0002         /* a segment before this one was not seen */
#define RS_TCPA_ACK_LOST_SEGMENT 0x0004     /* it acknowledges bytes never seen */
#define RS_TCPA_KEEP_ALIVE 0x0008
#define RS_TCPA_DUPLICATE_ACK 0x0010
#define RS_TCPA_ZERO_WINDOW 0x0020
#define RS_TCPA_ZERO_WINDOW_PROBE 0x0040
#define RS_TCPA_ZERO_WINDOW_PROBE_ACK 0x0080
#define RS_TCPA_KEEP_ALIVE_ACK 0x0100
#define RS_TCPA_OUT_OF_ORDER 0x0200
#define RS_TCPA_FAST_RETRANSMISSION 0x0400
#define RS_TCPA_WINDOW_UPDATE 0x0800
#define RS_TCPA_WINDOW_FULL 0x1000
#define RS_TCPA_REUSED_PORTS 0x2000
#define RS_TCPA_SPURIOUS_RETRANSMISSION 0x4000

/* A segment with one of these goes to no protocol above TCP (no data), as Wireshark's TCP
 * keeps retransmitted and out-of-order bytes from its subdissectors. */
#define RS_TCPA_NOT_HANDED_ON (RS_TCPA_RETRANSMISSION | RS_TCPA_FAST_RETRANSMISSION | \
                               RS_TCPA_SPURIOUS_RETRANSMISSION | RS_TCPA_OUT_OF_ORDER)

struct rs_tcp_analysis {
    bool shown;             /* tshark shows "[SEQ/ACK analysis]" for the segment */
    uint16_t flags;         /* RS_TCPA_* */
    uint64_t acks_frame;    /* the segment this one acknowledges (0: none) */
    struct rs_time ack_rtt; /* and the time since it */
    bool irtt_known;        /* the handshake's round trip (tcp.analysis.initial_rtt) */
    struct rs_time irtt;
    uint32_t bytes_in_flight;
    uint32_t push_bytes_sent;
    uint32_t dupack_num;    /* the how manieth duplicate of an ACK (0: none) */
    uint64_t dupack_frame;  /* and the ACK it repeats */
    struct rs_time rto;     /* a retransmission: time since the segment it repeats */
    uint64_t rto_frame;
};

/* tcp.completeness's bits */
#define RS_TCPC_SYN 0x01
#define RS_TCPC_SYNACK 0x02
#define RS_TCPC_ACK 0x04
#define RS_TCPC_DATA 0x08
#define RS_TCPC_FIN 0x10
#define RS_TCPC_RST 0x20

/* A TCP segment's part in an HTTP message or a TLS record spread over segments, as tshark's
 * TCP desegmentation shows it (struct rs_stream_view.pdu_part, .pdu_proto): the earlier
 * segments are "[TCP segment of a reassembled PDU]" (an HTTP message's first with its
 * request or status line in Info), the last is HTTP or TLS. Followed in order only: a
 * segment out of order ends the message, and its segments stay as they are. */
enum rs_pdu_part {
    RS_PDU_NONE = 0,
    RS_PDU_FIRST,           /* the first segment: an HTTP message's headers whole in it, or
                               a TLS record's header */
    RS_PDU_MIDDLE,
    RS_PDU_LAST             /* the segment that completes it */
};

enum rs_pdu_proto {
    RS_PDU_HTTP = 1,
    RS_PDU_TLS
};

/* A message over TCP segments, as it stands on the segment that completes it
 * (struct rs_stream_view.reasm): tshark's "[N Reassembled TCP Segments (L bytes): ...]" tree
 * and its "Reassembled TCP" data source. */
struct rs_tcp_reasm {
    uint32_t len;               /* the message's bytes */
    uint32_t n_segments;
    const uint32_t *frames;     /* each segment's frame number, in order */
    const uint32_t *lens;       /* and the bytes of the message it carried */
    const uint8_t *data;        /* the message, len bytes */
};

/* What the stage found for one frame; valid until the next. */
struct rs_stream_view {
    uint32_t index;         /* tcp.stream or udp.stream: per protocol, from 0 */
    bool tcp;
    /* TCP only */
    uint32_t seq;           /* relative to the direction's initial sequence number */
    uint32_t ack;           /* relative to the other direction's; raw without ACK */
    uint32_t nxtseq;        /* seq + segment length (+1 for SYN, +1 for FIN) */
    uint32_t len;           /* segment length: IP payload after the TCP header */
    int32_t win_scale;      /* factor (1 << shift), or RS_WIN_SCALE_*; 0 on a SYN */
    uint32_t window;        /* the window value times the factor */
    uint32_t peer_base;     /* the other direction's initial sequence number (SACK edges) */
    /* TCP and UDP: time since the conversation's first frame (tcp.time_relative,
     * udp.time_relative) and since its previous frame, either way (*.time_delta) */
    struct rs_time rel;
    struct rs_time delta;
    /* TCP only */
    uint8_t completeness;   /* RS_TCPC_* as the conversation stood before this segment */
    bool fin_first;         /* a FIN, before any from the other side (fin_active) */
    bool cut;               /* a header cut short, read to the window (RS_PKT_L4_PART):
                               tshark stops there, with no length, times or analysis */
    uint8_t pdu_part;       /* enum rs_pdu_part */
    uint8_t pdu_proto;      /* and of what: enum rs_pdu_proto */
    struct rs_tcp_analysis analysis;
    /* RS_PDU_LAST: the message it completes, held by the stage until the next frame (a
     * copy of the view outlives it: pipeline_threads.c formats such a frame at once) */
    const struct rs_tcp_reasm *reasm;
    /* Where the payload's part in a message ends (RS_PDU_LAST: the bytes it completes the
     * message with) and where a message it does not complete begins (pdu_begins: a TLS
     * record after the whole ones), as tshark's tcp.segment_data items cover them */
    uint32_t pdu_end;
    uint32_t pdu_begin;
    bool pdu_begins;
    bool pdu_resent;        /* a retransmission of bytes of a message still to complete:
                               "Retransmitted TCP segment data" */
    /* ICMP and ICMPv6 echo replies only */
    uint64_t echo_request;  /* the request's frame number (icmp.resp_to), 0 when unseen */
    struct rs_time echo_rtt;    /* time from that request to this reply */
    /* ICMP and ICMPv6 errors only: 1 + the stream of the datagram they quote (its
     * udp.stream or tcp.stream, numbered with the frame's own as Wireshark numbers
     * it), 0 for none */
    uint32_t quote_index;
};

/* The message the frame's own TCP segment completes (not a datagram an ICMP error quotes),
 * or NULL: what the tree, the fields and -x show of it. */
static inline const struct rs_tcp_reasm *
rs_stream_reasm_of(const struct rs_packet *pkt)
{
    const struct rs_stream_view *v = pkt->stream;

    return v != NULL && v->tcp && v->reasm != NULL && rs_packet_has(pkt, RS_LAYER_TCP) &&
                   !(pkt->flags & RS_PKT_QUOTED) ? v->reasm : NULL;
}

struct rs_streams_opts {
    uint32_t max_streams;   /* conversations held at once (default 65536) */
    bool tcp_only;          /* follow TCP alone: for the summary line's Seq, Ack and Win,
                               which cost UDP (RoCEv2) frames nothing then */
    bool restart_after_close;   /* tshark 4.4's rule: a SYN after a reset or both FINs
                                   starts a new stream even with the same ISN (4.0 keeps
                                   it, the default) */
    uint32_t max_echoes;    /* unanswered ICMP echo requests held (default 4096) */
    /* The bytes of messages over segments kept until each completes: at most
     * max_pdu_bytes a message, max_pdu_memory in all (its segments' list counted too). A
     * message past either is not desegmented (rs_streams_counts.pdus_unkept). */
    uint32_t max_pdu_bytes;     /* default RS_STREAMS_PDU_BYTES */
    uint64_t max_pdu_memory;    /* default RS_STREAMS_PDU_MEMORY */
};

#define RS_STREAMS_PDU_BYTES (1u << 20)
#define RS_STREAMS_PDU_MEMORY (64ull << 20)

struct rs_streams_counts {
    uint64_t tcp_streams;   /* indexes handed out */
    uint64_t udp_streams;
    uint64_t evicted;       /* forgotten to stay within max_streams */
    uint64_t echoes_evicted;    /* unanswered echo requests forgotten for newer ones */
    uint64_t unacked_untracked; /* TCP segments the sequence analysis did not hold (its
                                   budget for all conversations was spent) */
    uint64_t pdus_cut;      /* HTTP messages and TLS records over segments whose rest came
                               out of order or captured short, or whose conversation was
                               forgotten: not desegmented */
    uint64_t pdus_unkept;   /* such messages longer than max_pdu_bytes, or that found
                               max_pdu_memory spent: not desegmented */
    uint64_t pdu_memory_peak;   /* the most bytes the kept messages took at once */
};

/* Unacknowledged TCP segments the sequence analysis holds for all conversations at once
 * (24 bytes each); a direction holds at most 10,000, as Wireshark. */
#define RS_STREAMS_UNACKED_MAX (1u << 22)

void rs_streams_opts_init(struct rs_streams_opts *opts);

struct rs_streams;

int rs_streams_new(const struct rs_streams_opts *opts, struct rs_streams **out, char *err);
void rs_streams_free(struct rs_streams *s);

/* Sets pkt->stream to this frame's view, or NULL when it carries no TCP,
 * UDP, ICMP or ICMPv6 header (or is an IP fragment after the first). An
 * echo reply's view holds the request it answers (echo.c), when seen. */
void rs_streams_process(struct rs_streams *s, struct rs_packet *pkt);

struct rs_streams_counts rs_streams_counts(const struct rs_streams *s);

/* The fields this stage gives, NULL-terminated; does abbrev name one, or a field below
 * one? */
extern const char *const rs_streams_fields[];
bool rs_streams_field(const char *abbrev);
/* The fields whose value depends on the desegmentation of HTTP messages (data, http,
 * frame.protocols, tcp.segment_data): reading one needs TCP followed (tcp_only will
 * do). NULL-terminated; a name or a field below one. */
extern const char *const rs_streams_tcp_fields[];
bool rs_streams_tcp_field(const char *abbrev);

#endif /* ROCESHARK_STREAMS_H */
