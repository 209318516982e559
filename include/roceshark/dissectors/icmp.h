/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icmp.h - what an ICMP (RFC 792) or ICMPv6 (RFC 4443, 4861) message says,
 * for its fields, the data after an echo's header, the summary line and the
 * streams stage's matching of echo replies to requests.
 */
#ifndef ROCESHARK_ICMP_H
#define ROCESHARK_ICMP_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/nstime.h>
#include <roceshark/dissectors/packet.h>
#include <roceshark/dissectors/streams.h>

#define RS_ICMP_ECHO_REPLY 0
#define RS_ICMP_UNREACHABLE 3
#define RS_ICMP_SOURCE_QUENCH 4
#define RS_ICMP_REDIRECT 5
#define RS_ICMP_ECHO_REQUEST 8
#define RS_ICMP_TIME_EXCEEDED 11
#define RS_ICMP_PARAMETER_PROBLEM 12
#define RS_ICMPV6_UNREACHABLE 1
#define RS_ICMPV6_PACKET_TOO_BIG 2
#define RS_ICMPV6_TIME_EXCEEDED 3
#define RS_ICMPV6_PARAMETER_PROBLEM 4
#define RS_ICMPV6_ECHO_REQUEST 128
#define RS_ICMPV6_ECHO_REPLY 129
#define RS_ICMPV6_MLD_QUERY 130
#define RS_ICMPV6_MLD_REPORT 131
#define RS_ICMPV6_MLD_DONE 132
#define RS_ICMPV6_RS 133
#define RS_ICMPV6_RA 134
#define RS_ICMPV6_NS 135
#define RS_ICMPV6_NA 136
#define RS_ICMPV6_REDIRECT 137
#define RS_ICMPV6_OPT_REDIRECTED 4     /* the Redirected Header option (RFC 4861 4.6.3) */
#define RS_ICMPV6_MLDV2_REPORT 143

/* An ICMP or ICMPv6 message: where it is, as far as captured. */
struct rs_icmp {
    const uint8_t *msg;
    uint32_t len;       /* captured bytes of the message */
    uint32_t wire_len;  /* its bytes as the IP header declares them (len or more) */
    bool v6;
    uint8_t type, code;
};

/* The message in pkt; false when pkt has none. */
bool rs_icmp_of(const struct rs_packet *pkt, struct rs_icmp *out);

/* Checksum status (enum rs_cksum_status) as Wireshark verifies it: over the
 * message, and for ICMPv6 the pseudo-header of RFC 8200 8.1; unverified when
 * the message was not captured whole. */
uint8_t rs_icmp_checksum_status(const struct rs_packet *pkt, const struct rs_icmp *m);
/* The checksum the message should carry (of a message captured whole). */
uint16_t rs_icmp_checksum_expected(const struct rs_packet *pkt, const struct rs_icmp *m);

/* An echo request or reply. */
struct rs_icmp_echo {
    bool v6;
    bool reply;
    uint16_t ident;
    uint16_t seq;
    uint16_t checksum;
    /* ICMP (and ICMPv6 for tshark 4.4, RS_PKT_ICMP_4_4): the first 8
     * data bytes read as a struct timeval's 32-bit seconds and microseconds,
     * big-endian or else little-endian, taken for a timestamp as Wireshark
     * takes them (within a day of the frame's time either way, microseconds
     * below a million); for tshark 4.4 first 16 bytes of 64-bit ones. */
    bool stamped;
    struct rs_time stamp;
    uint32_t data_off;  /* where the echo's data starts in the frame (after a stamp) */
};

/* True when m is an echo request or reply with its whole 8-byte header. */
bool rs_icmp_is_echo(const struct rs_icmp *m);
bool rs_icmp_echo_of(const struct rs_packet *pkt, struct rs_icmp_echo *out);

/* The offset in an ND message where its options start (RFC 4861 4), or 0
 * for a type that has none. */
uint32_t rs_icmpv6_options_start(uint8_t type);

/* The n-th option (from 0) of the ND message m whose type passes want (a
 * bit per option type 0..31, or ~0u for any); fills *off and *len (bytes,
 * from the option's type byte, as far as captured: the last may be cut
 * short). A zero length or one past the message ends the walk, as it ends
 * Wireshark's. */
bool rs_icmpv6_option(const struct rs_icmp *m, uint32_t want, unsigned n, uint32_t *off,
                      uint32_t *len);

/* The datagram an ICMP or ICMPv6 error quotes (RFC 792, RFC 4443 2.4 c), or
 * an ICMPv6 redirect carries (RFC 4861 4.6.3): its
 * own view, over the same bytes, with a frame that ends where the message
 * does. Headers are decoded as far as the quote reaches, the last one
 * possibly in part (its span is then shorter than the header), as Wireshark
 * shows them. Of the streams stage's results only the stream index is the
 * quote's (rs_stream_view.quote_index); the analysis is the frame's alone. */
struct rs_icmp_quote {
    struct rs_frame frame;
    struct rs_packet pkt;
    struct rs_stream_view stream;   /* its stream index alone (pkt.stream), when known */
};

/* False when pkt quotes no datagram (RS_PKT_ICMP_QUOTE clear). */
bool rs_icmp_quote_view(const struct rs_packet *pkt, struct rs_icmp_quote *out);

/* Where in m a quoted datagram starts and how many of its bytes m holds:
 * after an error's first 8 bytes, in a redirect's Redirected Header
 * option; false when there is none, or it does not start as an IP header
 * of m's version. */
bool rs_icmp_quote_at(const struct rs_icmp *m, uint32_t *off, uint32_t *len);

/* Wireshark's names of the types, and of the codes of the errors the
 * summary line names ("Port unreachable", "Redirect for host"), or NULL. */
extern const struct rs_value_string rs_icmp_type_vals[];
extern const struct rs_value_string rs_icmpv6_type_vals[];
const char *rs_icmp_code_name(const struct rs_icmp *m);

#endif /* ROCESHARK_ICMP_H */
