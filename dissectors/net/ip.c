/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ip.c - IPv4, IPv6, UDP and TCP, as far as RoCEv2 and iWARP need them.
 *
 * The IP header's own length fields bound what follows, so Ethernet padding
 * and trailing FCS bytes never reach the IBA decoder: RoCEv2 ACKs are short
 * enough to be padded to the 60-byte Ethernet minimum.
 */
#include <netinet/in.h>

#include <roceshark/icmp.h>

#include "decode_int.h"
#include "fields/fields_int.h"

#define IPV4_MIN_LEN 20
#define IPV6_LEN 40
#define UDP_LEN 8
#define TCP_MIN_LEN 20
#define ICMP_MIN_LEN 4      /* type, code and checksum; the rest depends on the type */
#define MAX_IPV6_EXT 8      /* more extension headers than this: not decoded */

static bool
is_roce_port(const struct rs_decode_opts *opts, uint16_t port)
{
    if (opts->disable_infiniband)
        return false;
    if (port == RS_ROCEV2_UDP_PORT)
        return true;
    for (unsigned i = 0; i < opts->n_roce_ports; i++)
        if (opts->roce_ports[i] == port)
            return true;
    return false;
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

    if (!decode_need(pkt, off, UDP_LEN, end, "UDP header exceeds the IP packet"))
        return;
    uint16_t ulen = rs_load_be16(d + off + 4);
    if (ulen < UDP_LEN)
        decode_malformed(pkt, "UDP length shorter than its header");
    else
        end = declared_end(pkt, off, ulen, end, "UDP length exceeds the IP packet");
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

    if (!decode_need(pkt, off, TCP_MIN_LEN, end, "TCP header exceeds the IP packet"))
        return;
    uint32_t hlen = (uint32_t)(d[off + 12] >> 4) * 4;
    if (hlen < TCP_MIN_LEN) {
        decode_malformed(pkt, "TCP data offset shorter than its header");
        return;
    }
    if (!decode_need(pkt, off, hlen, end, "TCP options exceed the IP packet"))
        return;
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
    if (!decode_need(pkt, off, ICMP_MIN_LEN, end, "ICMP header exceeds the IP packet"))
        return;
    uint32_t stop = end < pkt->frame->caplen ? end : pkt->frame->caplen;
    decode_set_layer(pkt, layer, off, stop - off);
    if (opts->icmp_4_4)
        pkt->flags |= RS_PKT_ICMP_4_4;
    struct rs_icmp m;
    uint32_t at, len;
    if ((pkt->flags & RS_PKT_QUOTED) || !rs_icmp_of(pkt, &m) || !rs_icmp_quote_at(&m, &at, &len))
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

/* IPv4 (RFC 791): version/IHL, TOS, total length, id, flags/fragment offset,
 * TTL, protocol, checksum, source, destination, options. */
void
decode_ipv4(struct rs_packet *pkt, const struct rs_decode_opts *opts, uint32_t off,
            uint32_t end)
{
    const uint8_t *d = pkt->frame->data;

    if (!decode_need(pkt, off, IPV4_MIN_LEN, end, "IPv4 header too short"))
        return;
    const uint8_t *h = d + off;
    uint32_t hlen = (uint32_t)(h[0] & 0x0f) * 4;
    if (h[0] >> 4 != 4 || hlen < IPV4_MIN_LEN) {
        decode_malformed(pkt, "bad IPv4 version or header length");
        return;
    }
    if (!decode_need(pkt, off, hlen, end, "IPv4 options exceed the packet"))
        return;
    uint16_t total = rs_load_be16(h + 2);
    if (total < hlen) {
        decode_malformed(pkt, "IPv4 total length shorter than its header");
        return;
    }
    end = declared_end(pkt, off, total, end, "IPv4 total length exceeds the frame");
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

    if (!decode_need(pkt, off, IPV6_LEN, end, "IPv6 header too short"))
        return;
    const uint8_t *h = d + off;
    if (h[0] >> 4 != 6) {
        decode_malformed(pkt, "bad IPv6 version");
        return;
    }
    uint16_t plen = rs_load_be16(h + 4);
    if (plen != 0)  /* 0 means a jumbogram: the link layer bounds it */
        end = declared_end(pkt, off + IPV6_LEN, plen, end,
                           "IPv6 payload length exceeds the frame");
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
        if (!decode_need(pkt, l4, 2, end, "IPv6 extension header exceeds the packet"))
            return;
        uint32_t elen = ((uint32_t)d[l4 + 1] + 1) * 8;
        nh = d[l4];
        l4 += elen;
    }
    /* The IPv6 span covers the extension headers, which the ICRC includes. */
    if (!decode_need(pkt, off, l4 - off, end, "IPv6 extension headers exceed the packet"))
        return;
    pkt->span[RS_LAYER_IPV6].len = l4 - off;
    decode_l4(pkt, opts, nh, l4, end);
}

static const struct rs_value_string ecn_vals[] = {
    {0, "Not ECN-Capable Transport"},
    {1, "ECN-Capable Transport codepoint '01'"},
    {2, "ECN-Capable Transport codepoint '10'"},
    {3, "Congestion Experienced"},
    {0, NULL},
};

/* Next protocols, as Wireshark names them. */
static const struct rs_value_string proto_vals[] = {
    {0, "IPv6 Hop-by-Hop Option"},
    {1, "ICMP"},
    {2, "IGMP"},
    {6, "TCP"},
    {17, "UDP"},
    {41, "IPv6"},
    {43, "Routing Header for IPv6"},
    {44, "Fragment Header for IPv6"},
    {47, "Generic Routing Encapsulation"},
    {50, "Encap Security Payload"},
    {51, "Authentication Header"},
    {58, "ICMPv6"},
    {59, "No Next Header for IPv6"},
    {60, "Destination Options for IPv6"},
    {132, "SCTP"},
    {0, NULL},
};

/* DSCP code points (RFC 2474, 2597, 3246, 5865, 8622), as Wireshark names them. */
static const struct rs_value_string dscp_vals[] = {
    {0, "Default"},
    {1, "Lower Effort"},
    {8, "Class Selector 1"},
    {10, "Assured Forwarding 11"},
    {12, "Assured Forwarding 12"},
    {14, "Assured Forwarding 13"},
    {16, "Class Selector 2"},
    {18, "Assured Forwarding 21"},
    {20, "Assured Forwarding 22"},
    {22, "Assured Forwarding 23"},
    {24, "Class Selector 3"},
    {26, "Assured Forwarding 31"},
    {28, "Assured Forwarding 32"},
    {30, "Assured Forwarding 33"},
    {32, "Class Selector 4"},
    {34, "Assured Forwarding 41"},
    {36, "Assured Forwarding 42"},
    {38, "Assured Forwarding 43"},
    {40, "Class Selector 5"},
    {44, "Voice Admit"},
    {46, "Expedited Forwarding"},
    {48, "Class Selector 6"},
    {56, "Class Selector 7"},
    {0, NULL},
};

/* What Wireshark writes for the IPv4 flag bits in place of True and False. */
static const struct rs_value_string set_vals[] = {
    {0, "Not set"},
    {1, "Set"},
    {0, NULL},
};

/* Header lengths are stored in 4-byte words and shown in bytes. */
static bool
get_ipv4_hdr_len(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_IPV4))
        return false;
    return rs_value_set_uint(out, f->type, (rs_packet_at(pkt, RS_LAYER_IPV4)[0] & 0x0fu) * 4);
}

const struct rs_field rs_fields_ip[] = {
    RS_F_PROTO("ip", "Internet Protocol Version 4", RS_LAYER_IPV4),
    {"ip.version", "Version", RS_FT_UINT8, RS_BASE_DEC, 0xf0, NULL, "IP version",
     RS_LAYER_IPV4, 0, 1, NULL, 1},
    {"ip.hdr_len", "Header Length", RS_FT_UINT8, RS_BASE_DEC, 0, NULL,
     "IPv4 header length in bytes", RS_LAYER_IPV4, 0, 1, get_ipv4_hdr_len, 1},
    {"ip.dsfield", "Differentiated Services Field", RS_FT_UINT8, RS_BASE_HEX, 0, NULL,
     "DSCP and ECN", RS_LAYER_IPV4, 1, 1, NULL, 1},
    /* ... and its parts, under it in the tree as Wireshark shows them. */
    {"ip.dsfield.dscp", "Differentiated Services Codepoint", RS_FT_UINT8, RS_BASE_DEC, 0xfc,
     dscp_vals, "DSCP", RS_LAYER_IPV4, 1, 1, NULL, 2},
    {"ip.dsfield.ecn", "Explicit Congestion Notification", RS_FT_UINT8, RS_BASE_DEC, 0x03,
     ecn_vals, "ECN: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE", RS_LAYER_IPV4, 1, 1, NULL, 2},
    {"ip.len", "Total Length", RS_FT_UINT16, RS_BASE_DEC, 0, NULL, "IPv4 total length",
     RS_LAYER_IPV4, 2, 2, NULL, 1},
    {"ip.id", "Identification", RS_FT_UINT16, RS_BASE_HEX_DEC, 0, NULL,
     "IPv4 identification (covered by the ICRC)", RS_LAYER_IPV4, 4, 2, NULL, 1},
    {"ip.flags", "Flags", RS_FT_UINT8, RS_BASE_HEX, 0xe0, NULL, "The three flag bits",
     RS_LAYER_IPV4, 6, 1, NULL, 1},
    {"ip.flags.rb", "Reserved bit", RS_FT_BOOLEAN, RS_BASE_NONE, 0x80, set_vals,
     "Reserved flag (must be 0)", RS_LAYER_IPV4, 6, 1, NULL, 2},
    {"ip.flags.df", "Don't fragment", RS_FT_BOOLEAN, RS_BASE_NONE, 0x40, set_vals, "DF flag",
     RS_LAYER_IPV4, 6, 1, NULL, 2},
    {"ip.flags.mf", "More fragments", RS_FT_BOOLEAN, RS_BASE_NONE, 0x20, set_vals, "MF flag",
     RS_LAYER_IPV4, 6, 1, NULL, 2},
    {"ip.frag_offset", "Fragment Offset", RS_FT_UINT16, RS_BASE_DEC, 0x1fff, NULL,
     "Fragment offset in 8-byte units", RS_LAYER_IPV4, 6, 2, NULL, 1},
    {"ip.ttl", "Time to Live", RS_FT_UINT8, RS_BASE_DEC, 0, NULL, "TTL", RS_LAYER_IPV4, 8, 1,
     NULL, 1},
    {"ip.proto", "Protocol", RS_FT_UINT8, RS_BASE_DEC, 0, proto_vals, "Next protocol",
     RS_LAYER_IPV4, 9, 1, NULL, 1},
    {"ip.checksum", "Header Checksum", RS_FT_UINT16, RS_BASE_HEX, 0, NULL,
     "IPv4 header checksum", RS_LAYER_IPV4, 10, 2, NULL, 1},
    {"ip.src", "Source Address", RS_FT_IPV4, RS_BASE_NONE, 0, NULL, "IPv4 source",
     RS_LAYER_IPV4, 12, 4, NULL, 1},
    {"ip.dst", "Destination Address", RS_FT_IPV4, RS_BASE_NONE, 0, NULL, "IPv4 destination",
     RS_LAYER_IPV4, 16, 4, NULL, 1},
    {"ip.addr", "Source or Destination Address", RS_FT_IPV4, RS_BASE_NONE, 0, NULL,
     "IPv4 source or destination", RS_LAYER_IPV4, 12, 4, NULL, 1, RS_FIELD_HIDDEN},
    {"ip.addr", "Source or Destination Address", RS_FT_IPV4, RS_BASE_NONE, 0, NULL,
     "IPv4 source or destination", RS_LAYER_IPV4, 16, 4, NULL, 1, RS_FIELD_HIDDEN},
    RS_F_PROTO("ipv6", "Internet Protocol Version 6", RS_LAYER_IPV6),
    {"ipv6.tclass", "Traffic Class", RS_FT_UINT32, RS_BASE_HEX, 0x0ff00000, NULL,
     "IPv6 traffic class", RS_LAYER_IPV6, 0, 4, NULL, 1},
    {"ipv6.tclass.dscp", "Differentiated Services Codepoint", RS_FT_UINT32, RS_BASE_DEC,
     0x0fc00000, dscp_vals, "DSCP", RS_LAYER_IPV6, 0, 4, NULL, 2},
    {"ipv6.tclass.ecn", "Explicit Congestion Notification", RS_FT_UINT32, RS_BASE_DEC,
     0x00300000, ecn_vals, "ECN: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE", RS_LAYER_IPV6, 0, 4,
     NULL, 2},
    {"ipv6.flow", "Flow Label", RS_FT_UINT24, RS_BASE_HEX, 0x000fffff, NULL, "IPv6 flow label",
     RS_LAYER_IPV6, 0, 4, NULL, 1},
    {"ipv6.plen", "Payload Length", RS_FT_UINT16, RS_BASE_DEC, 0, NULL, "IPv6 payload length",
     RS_LAYER_IPV6, 4, 2, NULL, 1},
    {"ipv6.nxt", "Next Header", RS_FT_UINT8, RS_BASE_DEC, 0, proto_vals, "IPv6 next header",
     RS_LAYER_IPV6, 6, 1, NULL, 1},
    {"ipv6.hlim", "Hop Limit", RS_FT_UINT8, RS_BASE_DEC, 0, NULL, "IPv6 hop limit",
     RS_LAYER_IPV6, 7, 1, NULL, 1},
    {"ipv6.src", "Source Address", RS_FT_IPV6, RS_BASE_NONE, 0, NULL, "IPv6 source",
     RS_LAYER_IPV6, 8, 16, NULL, 1},
    {"ipv6.dst", "Destination Address", RS_FT_IPV6, RS_BASE_NONE, 0, NULL, "IPv6 destination",
     RS_LAYER_IPV6, 24, 16, NULL, 1},
    {"ipv6.addr", "Source or Destination Address", RS_FT_IPV6, RS_BASE_NONE, 0, NULL,
     "IPv6 source or destination", RS_LAYER_IPV6, 8, 16, NULL, 1, RS_FIELD_HIDDEN},
    {"ipv6.addr", "Source or Destination Address", RS_FT_IPV6, RS_BASE_NONE, 0, NULL,
     "IPv6 source or destination", RS_LAYER_IPV6, 24, 16, NULL, 1, RS_FIELD_HIDDEN},
    RS_F_END,
};
