/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * info.h - the Info column's text, built by each protocol in its own folder: a bounded
 * buffer and its appenders, and each protocol's fragment (its opcode, QP, PSN, ports,
 * flags, ...). The summary printer (print/print_summary.c) picks the fragment for a frame,
 * adds the analysis's marks and lays out the columns; the TUI's list and the plugin take
 * the same text through rs_print_info().
 */
#ifndef ROCESHARK_INFO_H
#define ROCESHARK_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <roceshark/dissectors/icmp.h>
#include <roceshark/dissectors/packet.h>

/* Appends to a fixed buffer, dropping what does not fit; buf holds a string throughout. */
struct rs_info {
    char *buf;
    size_t size;
    size_t len;
    size_t want;    /* the length of all that was appended, dropped or not: what snprintf
                       returns, for a tree label written through these */
};

void rs_info_add(struct rs_info *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The common parts of an Info without printf, whose parsing was a third of the summary
 * lines' time: n bytes of s; s; label and v in decimal; label and v in hex, zero-padded
 * to digits (label ends in "0x"). Truncated as rs_info_add() truncates. Inline, so that a
 * literal's length and copy are worked out when compiled: their strlen() and memcpy()
 * calls were a sixth of the summary lines' time. */
void rs_info_put_cut(struct rs_info *in, const char *s, size_t n);
void rs_info_dec_after(struct rs_info *in, uint64_t v);
void rs_info_hex_after(struct rs_info *in, uint64_t v, unsigned digits);

static inline void
rs_info_put(struct rs_info *in, const char *s, size_t n)
{
    if (in->len + n >= in->size) {
        rs_info_put_cut(in, s, n);
        return;
    }
    memcpy(in->buf + in->len, s, n);
    in->len += n;
    in->want += n;
    in->buf[in->len] = '\0';
}

static inline void
rs_info_str(struct rs_info *in, const char *s)
{
    rs_info_put(in, s, strlen(s));
}

static inline void
rs_info_dec(struct rs_info *in, const char *label, uint64_t v)
{
    rs_info_str(in, label);
    rs_info_dec_after(in, v);
}

static inline void
rs_info_hex(struct rs_info *in, const char *label, uint64_t v, unsigned digits)
{
    rs_info_str(in, label);
    rs_info_hex_after(in, v, digits);
}
/* "source → destination": the ports of the TCP (tcp true) or UDP header at t, named as
 * -N t asks ("57172 → italk(12345)", port_names.h). */
void rs_info_ports(struct rs_info *in, const uint8_t *t, bool tcp);

/* Each protocol's fragment, for a frame whose top protocol it is. */

/* InfiniBand (ib/ib_info.c): the opcode, QP, PSN, BTH flags, every extension header, the
 * payload's length and a MAD's name; tshark's shorter text under -o compat (display.h). */
void rs_ib_write_info(struct rs_info *in, const struct rs_packet *pkt);
/* tshark 4.0's InfiniBand Info, quirks included (ib/ib_info_tshark.c). */
void rs_ib_write_info_tshark(struct rs_info *in, const struct rs_packet *pkt);
/* How tshark 4.0's reading of the headers after the BTH ends (ib/ib_info_tshark.c): with
 * them all read; before the BTH was (tshark's is 20 bytes for 0x40-0x5F), writing no Info
 * of its own; with an exception in a header ("[Malformed Packet]"); or with the payload's
 * length check failed ("Invalid Packet Length from LRH! [Malformed Packet]" alone). *aeth
 * is the AETH it read, or NULL. For an uncut packet with a BTH. */
enum rs_ib_ws_end {
    RS_IB_WS_OK,
    RS_IB_WS_BTH_SHORT,
    RS_IB_WS_MALFORMED,
    RS_IB_WS_BAD_LENGTH,
};
enum rs_ib_ws_end rs_ib_ws_walk(const struct rs_packet *pkt, const uint8_t **aeth);
/* The name tshark gives a CM MAD ("ConnectRequest"), or NULL for any other packet. */
const char *rs_ib_cm_mad_name(const struct rs_packet *pkt);
/* " RNR NAK [delay 0.02 ms]" for a frame whose AETH is an RNR NAK, as its Info says it;
 * nothing for any other frame. */
void rs_ib_write_rnr(struct rs_info *in, const struct rs_packet *pkt);
/* iWARP (iwarp/iwarp_info.c): ports, then each MPA frame or FPDU that ended in the
 * segment, and what the reassembly found. False, writing nothing, when tshark's text is
 * asked for and the segment ends no PDU: tshark shows TCP's Info then. */
bool rs_iwarp_write_info(struct rs_info *in, const struct rs_packet *pkt);
/* TCP (net/tcp_info.c): tshark's "ports [FLAGS] Seq= Ack= Win= Len= options". */
void rs_tcp_write_info(struct rs_info *in, const struct rs_packet *pkt);
/* UDP (net/tcp_info.c): "ports Len=". */
void rs_udp_write_info(struct rs_info *in, const struct rs_packet *pkt);
/* ARP (net/arp_info.c): Wireshark's words, "Who has 10.0.0.2? Tell 10.0.0.1". */
void rs_arp_write_info(struct rs_info *in, const struct rs_packet *pkt);
/* ICMP and ICMPv6 (net/icmp_info.c): m's Info as tshark writes it. */
void rs_icmp_write_info(struct rs_info *in, const struct rs_packet *pkt, const struct rs_icmp *m);

#endif /* ROCESHARK_INFO_H */
