/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ip.c - IPv4, IPv6, UDP and TCP, as far as RoCEv2 and iWARP need them.
 *
 * The IP header's own length fields bound what follows, so Ethernet padding
 * and trailing FCS bytes never reach the IBA decoder: RoCEv2 ACKs are short
 * enough to be padded to the 60-byte Ethernet minimum.
 */
#include <netinet/in.h>

#include <roceshark/dissectors/icmp.h>

#include "decode_int.h"
#include "net/net_int.h"

#define IPV4_MIN_LEN 20
#define IPV4_SRC_END 16     /* the source address's end */
#define IPV6_LEN 40
#define UDP_LEN 8
#define TCP_MIN_LEN 20
#define L4_PORTS_LEN 4      /* a UDP or TCP header's two ports */
#define TCP_PORTS_ONLY 16   /* fewer TCP bytes than this: tshark shows the ports alone */
#define ICMP_MIN_LEN 4      /* type, code and checksum; the rest depends on the type */
#define MAX_IPV6_EXT 8      /* more extension headers than this: not decoded */

static bool
is_roce_port(const struct rs_decode_opts *opts, uint16_t port)
{
    if (opts->disable_infiniband)
        return false;
    if (port == (opts->rocev2_port ? opts->rocev2_port : RS_ROCEV2_UDP_PORT))
        return true;
    for (unsigned i = 0; i < opts->n_roce_ports; i++)
        if (opts->roce_ports[i] == port)
            return true;
    return false;
}

/* A UDP or TCP header cut short (by the IP packet's end, or the frame's where an IP length
 * runs past it): the bytes there are kept for the fields (RS_PKT_L4_PART), as tshark shows
 * the ports before its exception, and UDP's length with 6 bytes. Of TCP, tshark shows the
 * ports alone up to 15 bytes (its item over them all); from 16 on, the header as far as it
 * goes (a data offset past the segment too), with the stream's numbers (streams.c) and a
 * "Short segment" item. */
static void
keep_partial_l4(struct rs_packet *pkt, bool tcp, uint32_t off, uint32_t end)
{
    uint32_t stop = end < pkt->frame->caplen ? end : pkt->frame->caplen;
    uint32_t len = stop > off ? stop - off : 0;

    /* a quote's header is icmp_quote.c's to keep; from 16 bytes on, a TCP header only where
     * the packet is short (rs_packet_tcp_cut()): not yet where the capture cut it */
    if (len < L4_PORTS_LEN || (tcp && len >= TCP_PORTS_ONLY && stop < end) ||
        (pkt->flags & RS_PKT_QUOTED))
        return;
    pkt->span[tcp ? RS_LAYER_TCP : RS_LAYER_UDP].off = off;
    pkt->span[tcp ? RS_LAYER_TCP : RS_LAYER_UDP].len = len;
    pkt->flags |= RS_PKT_L4_PART;
}

/*  0                   1                   2                   3
 * +-------+-------+---------------+-------------------------------+
 * |  Source Port                  |  Destination Port             |
 * +-------------------------------+-------------------------------+
 * |  Length                       |  Checksum                     |
 * +-------------------------------+-------------------------------+ */
static void
decode_udp(struct rs_packet *pkt, const struct rs_decode_opts *opts, uint32_t off,
           uint32_t end)
{
    const uint8_t *d = pkt->frame->data;

    if (!decode_need(pkt, off, UDP_LEN, end, "UDP", "UDP header exceeds the IP packet")) {
        keep_partial_l4(pkt, false, off, end);
        return;
    }
    uint16_t ulen = rs_load_be16(d + off + 4);
    if (ulen < UDP_LEN)
        decode_malformed(pkt, "UDP", "UDP length shorter than its header");
    else {
        /* past the IP payload: tshark flags it (udp.length.bad) and reads on in the bytes
         * there are, as it does an IP length past the frame */
        bool was = pkt->flags & RS_PKT_MALFORMED;
        end = declared_end(pkt, off, ulen, end, "UDP", "UDP length exceeds the IP packet");
        if (!was && (pkt->flags & RS_PKT_MALFORMED))
            pkt->flags |= RS_PKT_LONG_ONLY;
    }
    decode_set_layer(pkt, RS_LAYER_UDP, off, UDP_LEN);
    /* RoCEv2 is recognised by the destination port (IBTA Annex A17.2); not inside an
     * IBA packet (IPoIB), whose layers it would overwrite. */
    if (pkt->encap == RS_ENCAP_NONE && is_roce_port(opts, rs_load_be16(d + off + 2))) {
        pkt->encap = RS_ENCAP_ROCEV2;
        decode_ib_transport(pkt, off + UDP_LEN, end);
    }
}

static void
decode_tcp(struct rs_packet *pkt, uint32_t off, uint32_t end)
{
    const uint8_t *d = pkt->frame->data;

    if (!decode_need(pkt, off, TCP_MIN_LEN, end, "TCP", "TCP header exceeds the IP packet")) {
        keep_partial_l4(pkt, true, off, end);
        return;
    }
    uint32_t hlen = (uint32_t)(d[off + 12] >> 4) * 4;
    if (hlen < TCP_MIN_LEN) {
        decode_malformed(pkt, "TCP", "TCP data offset shorter than its header");
        return;
    }
    if (!decode_need(pkt, off, hlen, end, "TCP", "TCP options exceed the IP packet")) {
        keep_partial_l4(pkt, true, off, end);
        return;
    }
    decode_set_layer(pkt, RS_LAYER_TCP, off, hlen);
}

/* ICMP (RFC 792) and ICMPv6 (RFC 4443): the span runs to the end of the IP
 * packet, as far as captured, since the message's fields depend on its type
 * (fields_icmp.c reads them). An error's quoted datagram is only flagged:
 * icmp_quote.c decodes it when a field asks. */
static void
decode_icmp(struct rs_packet *pkt, const struct rs_decode_opts *opts, enum rs_layer layer,
            uint32_t off, uint32_t end)
{
    if (!decode_need(pkt, off, ICMP_MIN_LEN, end, layer == RS_LAYER_ICMPV6 ? "ICMPv6" : "ICMP",
                     "ICMP header exceeds the IP packet"))
        return;
    uint32_t stop = end < pkt->frame->caplen ? end : pkt->frame->caplen;
    decode_set_layer(pkt, layer, off, stop - off);
    if (opts->icmp_4_4)
        pkt->flags |= RS_PKT_ICMP_4_4;
    struct rs_icmp m;
    uint32_t at, len;
    if (!rs_icmp_of(pkt, &m))
        return;
    if (m.v6 && icmpv6_nd_options_overrun(&m))
        decode_malformed(pkt, "ICMPv6", "ND option exceeds the ICMPv6 message");
    if ((pkt->flags & RS_PKT_QUOTED) || !rs_icmp_quote_at(&m, &at, &len))
        return;
    pkt->flags |= RS_PKT_ICMP_QUOTE;
    if (!opts->disable_infiniband)
        pkt->flags |= RS_PKT_QUOTE_ROCE;
}

static void
decode_l4(struct rs_packet *pkt, const struct rs_decode_opts *opts, uint8_t proto,
          uint32_t off, uint32_t end)
{
    pkt->ip_proto = proto;
    if (pkt->flags & RS_PKT_IP_FRAGMENT)
        return;     /* only the first fragment has the header, and no reassembly */
    if (proto == IPPROTO_UDP)
        decode_udp(pkt, opts, off, end);
    else if (proto == IPPROTO_TCP)
        decode_tcp(pkt, off, end);
    else if (proto == IPPROTO_ICMP && rs_packet_has(pkt, RS_LAYER_IPV4))
        decode_icmp(pkt, opts, RS_LAYER_ICMP, off, end);
    else if (proto == IPPROTO_ICMPV6 && rs_packet_has(pkt, RS_LAYER_IPV6))
        decode_icmp(pkt, opts, RS_LAYER_ICMPV6, off, end);
}

/* An IPv4 header cut short: its bytes kept for the fields (RS_PKT_IPV4_PART), which tshark
 * decodes as far as they go, where the version and header length are an IPv4 header's. */
static void
keep_partial_ipv4(struct rs_packet *pkt, uint32_t off, uint32_t end)
{
    uint32_t stop = end < pkt->frame->caplen ? end : pkt->frame->caplen;

    if (off >= stop || pkt->frame->data[off] >> 4 != 4 ||
        (pkt->frame->data[off] & 0x0f) * 4 < IPV4_MIN_LEN)
        return;
    /* tshark reads the options for a source route's last hop before it shows the
     * destination: where they are cut short, the fields stop after the source */
    uint32_t len = stop - off;
    if ((pkt->frame->data[off] & 0x0f) * 4 > IPV4_MIN_LEN && len > IPV4_SRC_END)
        len = IPV4_SRC_END;
    pkt->span[RS_LAYER_IPV4].off = off;
    pkt->span[RS_LAYER_IPV4].len = len;
    pkt->flags |= RS_PKT_IPV4_PART;
}

/* IPv4 (RFC 791): version/IHL, TOS, total length, id, flags/fragment offset,
 * TTL, protocol, checksum, source, destination, options. */
void
decode_ipv4(struct rs_packet *pkt, const struct rs_decode_opts *opts, uint32_t off,
            uint32_t end)
{
    const uint8_t *d = pkt->frame->data;

    if (!decode_need(pkt, off, IPV4_MIN_LEN, end, "IPv4", "IPv4 header too short")) {
        keep_partial_ipv4(pkt, off, end);
        return;
    }
    const uint8_t *h = d + off;
    uint32_t hlen = (uint32_t)(h[0] & 0x0f) * 4;
    if (h[0] >> 4 != 4 || hlen < IPV4_MIN_LEN) {
        decode_malformed(pkt, "IPv4", "bad IPv4 version or header length");
        return;
    }
    if (!decode_need(pkt, off, hlen, end, "IPv4", "IPv4 options exceed the packet")) {
        keep_partial_ipv4(pkt, off, end);
        return;
    }
    uint16_t total = rs_load_be16(h + 2);
    if (total < hlen) {
        decode_malformed(pkt, "IPv4", "IPv4 total length shorter than its header");
        return;
    }
    /* past the frame's end: tshark flags it (ip.bogus_ip_length) and reads on in the bytes
     * there are (rs_packet_ip_end() stops there), an exception only if a layer above runs
     * out of them */
    bool was = pkt->flags & RS_PKT_MALFORMED;
    end = declared_end(pkt, off, total, end, "IPv4", "IPv4 total length exceeds the frame");
    if (!was && (pkt->flags & RS_PKT_MALFORMED))
        pkt->flags |= RS_PKT_LONG_ONLY;
    decode_set_layer(pkt, RS_LAYER_IPV4, off, hlen);
    pkt->ecn = h[1] & 3;
    if ((rs_load_be16(h + 6) & 0x3fff) != 0)
        pkt->flags |= RS_PKT_IP_FRAGMENT;
    decode_l4(pkt, opts, h[9], off + hlen, end);
}

/* IPv6 (RFC 8200): version, traffic class, flow label, payload length, next
 * header, hop limit, source, destination; then extension headers. */
void
decode_ipv6(struct rs_packet *pkt, const struct rs_decode_opts *opts, uint32_t off,
            uint32_t end)
{
    const uint8_t *d = pkt->frame->data;

    if (!decode_need(pkt, off, IPV6_LEN, end, "IPv6", "IPv6 header too short"))
        return;
    const uint8_t *h = d + off;
    if (h[0] >> 4 != 6) {
        decode_malformed(pkt, "IPv6", "bad IPv6 version");
        return;
    }
    uint16_t plen = rs_load_be16(h + 4);
    bool was = pkt->flags & RS_PKT_MALFORMED;
    if (plen != 0)  /* 0 means a jumbogram: the link layer bounds it */
        end = declared_end(pkt, off + IPV6_LEN, plen, end,
                           "IPv6", "IPv6 payload length exceeds the frame");
    if (!was && (pkt->flags & RS_PKT_MALFORMED))    /* as IPv4's total length */
        pkt->flags |= RS_PKT_LONG_ONLY;
    decode_set_layer(pkt, RS_LAYER_IPV6, off, IPV6_LEN);
    pkt->ecn = (h[1] >> 4) & 3;

    uint8_t nh = h[6];
    uint32_t l4 = off + IPV6_LEN;
    for (int n = 0; n < MAX_IPV6_EXT; n++) {
        if (nh == IPPROTO_FRAGMENT) {
            pkt->flags |= RS_PKT_IP_FRAGMENT;
            break;
        }
        if (nh != IPPROTO_HOPOPTS && nh != IPPROTO_ROUTING && nh != IPPROTO_DSTOPTS)
            break;
        if (!decode_need(pkt, l4, 2, end, "IPv6", "IPv6 extension header exceeds the packet"))
            return;
        uint32_t elen = ((uint32_t)d[l4 + 1] + 1) * 8;
        nh = d[l4];
        l4 += elen;
    }
    /* The IPv6 span covers the extension headers, which the ICRC includes. */
    if (!decode_need(pkt, off, l4 - off, end, "IPv6", "IPv6 extension headers exceed the packet"))
        return;
    pkt->span[RS_LAYER_IPV6].len = l4 - off;
    decode_l4(pkt, opts, nh, l4, end);
}
