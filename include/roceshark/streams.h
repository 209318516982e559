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

#include <roceshark/nstime.h>
#include <roceshark/packet.h>

/* struct rs_stream_view.win_scale when it is not a factor */
#define RS_WIN_SCALE_UNKNOWN (-1)   /* the SYNs were not seen (Wireshark's -1) */
#define RS_WIN_SCALE_NONE (-2)      /* a SYN lacked the option: no scaling (its -2) */

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
    /* ICMP and ICMPv6 echo replies only */
    uint64_t echo_request;  /* the request's frame number (icmp.resp_to), 0 when unseen */
    struct rs_time echo_rtt;    /* time from that request to this reply */
    /* ICMP and ICMPv6 errors only: 1 + the stream of the datagram they quote (its
     * udp.stream or tcp.stream, numbered with the frame's own as Wireshark numbers
     * it), 0 for none */
    uint32_t quote_index;
};

struct rs_streams_opts {
    uint32_t max_streams;   /* conversations held at once (default 65536) */
    bool tcp_only;          /* follow TCP alone: for the summary line's Seq, Ack and Win,
                               which cost UDP (RoCEv2) frames nothing then */
    bool restart_after_close;   /* tshark 4.4's rule: a SYN after a reset or both FINs
                                   starts a new stream even with the same ISN (4.0 keeps
                                   it, the default) */
    uint32_t max_echoes;    /* unanswered ICMP echo requests held (default 4096) */
};

struct rs_streams_counts {
    uint64_t tcp_streams;   /* indexes handed out */
    uint64_t udp_streams;
    uint64_t evicted;       /* forgotten to stay within max_streams */
    uint64_t echoes_evicted;    /* unanswered echo requests forgotten for newer ones */
};

void rs_streams_opts_init(struct rs_streams_opts *opts);

struct rs_streams;

int rs_streams_new(const struct rs_streams_opts *opts, struct rs_streams **out, char *err);
void rs_streams_free(struct rs_streams *s);

/* Sets pkt->stream to this frame's view, or NULL when it carries no TCP,
 * UDP, ICMP or ICMPv6 header (or is an IP fragment after the first). An
 * echo reply's view holds the request it answers (echo.c), when seen. */
void rs_streams_process(struct rs_streams *s, struct rs_packet *pkt);

struct rs_streams_counts rs_streams_counts(const struct rs_streams *s);

/* The fields this stage gives, NULL-terminated; does abbrev name one? */
extern const char *const rs_streams_fields[];
bool rs_streams_field(const char *abbrev);

#endif /* ROCESHARK_STREAMS_H */
