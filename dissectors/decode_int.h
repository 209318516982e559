/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode_int.h - what the decoder's files share; not part of the API.
 *
 * Each layer decoder takes the offset where its header starts and `end`, the
 * offset one past the last byte that the enclosing header says belongs to
 * it (which may lie beyond the captured bytes). It records its span when the
 * fixed header was captured, and flags the packet when it was not.
 */
#ifndef ROCESHARK_DECODE_INT_H
#define ROCESHARK_DECODE_INT_H

#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/packet.h>
#include <roceshark/dissectors/wire.h>

static inline void
decode_set_layer(struct rs_packet *pkt, enum rs_layer layer, uint32_t off, uint32_t len)
{
    pkt->layers |= (uint64_t)1 << layer;
    pkt->span[layer].off = off;
    pkt->span[layer].len = len;
}

/* Marks pkt malformed in the protocol tshark would name for it ("IB", "IPv4"), and why;
 * the first problem found is the one kept. */
static inline void
decode_malformed(struct rs_packet *pkt, const char *proto, const char *why)
{
    if (!(pkt->flags & RS_PKT_MALFORMED)) {
        pkt->problem = why;
        pkt->stopped = proto;
    } else if (pkt->flags & RS_PKT_LONG_ONLY) {
        pkt->stopped = proto;   /* after an IP length past the frame: where tshark stops */
    }
    pkt->flags = (uint16_t)((pkt->flags | RS_PKT_MALFORMED) & ~RS_PKT_LONG_ONLY);
}

/* True when `len` bytes at `off` were captured. Otherwise flags the packet, in proto:
 * as cut by the snapshot length when the bytes lie inside `end` (what the
 * enclosing header declared), else as inconsistent, and returns false. */
static inline bool
decode_need(struct rs_packet *pkt, uint32_t off, uint32_t len, uint32_t end,
            const char *proto, const char *what)
{
    if (rs_span_fits(off, len, pkt->frame->caplen) && rs_span_fits(off, len, end))
        return true;
    if (rs_span_fits(off, len, end)) {
        if (!(pkt->flags & RS_PKT_MALFORMED) || (pkt->flags & RS_PKT_LONG_ONLY))
            pkt->flags |= RS_PKT_CUT_FIRST;
        pkt->flags |= RS_PKT_SNAPLEN;
        decode_malformed(pkt, proto, "frame cut short by the capture's snapshot length");
    } else {
        decode_malformed(pkt, proto, what);
    }
    return false;
}

/* Narrows end to the `declared` bytes at off that a length field announces,
 * flagging a declaration that claims more than the enclosing layer holds. */
static inline uint32_t
declared_end(struct rs_packet *pkt, uint32_t off, uint32_t declared, uint32_t end,
             const char *proto, const char *what)
{
    if (!rs_span_fits(off, declared, end)) {
        decode_malformed(pkt, proto, what);
        return end;
    }
    return off + declared;
}

/* An extended transport header: its RS_HDR_* bit, layer and length. */
struct ib_ext_header {
    uint16_t bit;
    uint8_t layer;
    uint8_t len;
};

#define IB_N_EXT_HEADERS 10
/* The extended headers in wire order (ib_transport.c). */
extern const struct ib_ext_header ib_ext_headers[IB_N_EXT_HEADERS];

void decode_ethertype(struct rs_packet *pkt, const struct rs_decode_opts *opts,
                      uint16_t ethertype, uint32_t off, uint32_t end);
void decode_erf(struct rs_packet *pkt, const struct rs_decode_opts *opts, uint32_t end);
void decode_ethernet(struct rs_packet *pkt, const struct rs_decode_opts *opts,
                     uint32_t off, uint32_t end);
/* ARP at off (net/arp.c). */
void decode_arp(struct rs_packet *pkt, uint32_t off, uint32_t end);
void decode_ipv4(struct rs_packet *pkt, const struct rs_decode_opts *opts,
                 uint32_t off, uint32_t end);
void decode_ipv6(struct rs_packet *pkt, const struct rs_decode_opts *opts,
                 uint32_t off, uint32_t end);
/* LRH at off, then the GRH or transport packet that LNH announces. */
void decode_lrh(struct rs_packet *pkt, uint32_t off, uint32_t end);
/* GRH at off, then the transport packet when NxtHdr is 0x1B. */
void decode_grh(struct rs_packet *pkt, uint32_t off, uint32_t end);
/* Decodes the IBA transport packet [off, end): BTH, extension headers,
 * payload, pad and ICRC. */
void decode_ib_transport(struct rs_packet *pkt, uint32_t off, uint32_t end);
/* IPoIB in a native IB payload, and the IP packet or ARP message after it. */
void decode_ipoib(struct rs_packet *pkt, const struct rs_decode_opts *opts);
/* Computes and checks the ICRC (and the VCRC of native IB frames). */
void decode_check_crcs(struct rs_packet *pkt);

#endif /* ROCESHARK_DECODE_INT_H */
