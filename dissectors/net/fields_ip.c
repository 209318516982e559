/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_ip.c - ip.*, ipv6.* and ipv6.hopopts.*: the IP headers' fields in the order
 * and with the lines of Wireshark's trees, hidden ones included (ip.addr, ip.src_host,
 * and IPv6's ip.version, which lets "ip.version == 6" match), and the options of an
 * IPv6 hop-by-hop header one by one.
 */
#include <stdio.h>
#include <string.h>

#include <netinet/in.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/info.h>
#include <roceshark/dissectors/wire.h>

#include "fields/fields_int.h"
#include "net/net_int.h"
#include "net/value_tables.h"

#define IPV4_HDR_LEN 20
#define IPV6_HDR_LEN 40

static const struct rs_value_string ecn_vals[] = {
    {0, "Not ECN-Capable Transport"},
    {1, "ECN-Capable Transport codepoint '01'"},
    {2, "ECN-Capable Transport codepoint '10'"},
    {3, "Congestion Experienced"},
    {0, NULL},
};

static const struct rs_value_string ecn_short_vals[] = {
    {0, "Not-ECT"}, {1, "ECT(1)"}, {2, "ECT(0)"}, {3, "CE"}, {0, NULL},
};

/* DSCP code points (RFC 2474, 2597, 3246, 5865, 8622), as Wireshark names them, long
 * and short (the short in the DS field's line). */
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

static const struct rs_value_string dscp_short_vals[] = {
    {0, "CS0"},   {1, "LE"},    {8, "CS1"},          {10, "AF11"},  {12, "AF12"},
    {14, "AF13"}, {16, "CS2"},  {18, "AF21"},        {20, "AF22"},  {22, "AF23"},
    {24, "CS3"},  {26, "AF31"}, {28, "AF32"},        {30, "AF33"},  {32, "CS4"},
    {34, "AF41"}, {36, "AF42"}, {38, "AF43"},        {40, "CS5"},   {44, "VOICE-ADMIT"},
    {46, "EF PHB"}, {48, "CS6"}, {56, "CS7"},        {0, NULL},
};

/* What Wireshark writes for the IPv4 flag bits in place of True and False. */
static const struct rs_value_string set_vals[] = {
    {0, "Not set"},
    {1, "Set"},
    {0, NULL},
};

static const char *
name_or(const struct rs_value_string *vals, uint64_t v, const char *other)
{
    const char *name = rs_value_name(vals, v);
    return name != NULL ? name : other;
}

/* "0x00 (DSCP: CS0, ECN: Not-ECT)": the DS field or traffic class, with the short
 * names of its two parts. */
static size_t
show_ds(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    struct rs_info in = {buf, size, 0, 0};

    /* Without printf: each frame over IP has one. */
    (void)f;
    rs_info_hex(&in, "0x", v->v.u, 2);
    rs_info_str(&in, " (DSCP: ");
    rs_info_str(&in, name_or(dscp_short_vals, v->v.u >> 2, "Unknown"));
    rs_info_str(&in, ", ECN: ");
    rs_info_str(&in, name_or(ecn_short_vals, v->v.u & 3, "Unknown"));
    rs_info_str(&in, ")");
    return in.want;
}

/* ".... 0101 = Header Length: 20 bytes (5)": the length in bytes, and as sent. */
static size_t
hdr_len_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
              char *buf, size_t size)
{
    size_t n = rs_format_bits(buf, size, rs_packet_at(pkt, (enum rs_layer)f->layer)[0], 0x0f, 8);

    if (n >= size)
        return n;
    struct rs_info in = {buf + n, size - n, 0, 0};
    rs_info_dec(&in, "Header Length: ", v->v.u);
    rs_info_dec(&in, " bytes (", v->v.u / 4);
    rs_info_str(&in, ")");
    return n + in.want;
}

/* Header lengths are stored in 4-byte words and shown in bytes. */
static bool
get_ipv4_hdr_len(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_IPV4))
        return false;
    return rs_value_set_uint(out, f->type, (rs_packet_at(pkt, RS_LAYER_IPV4)[0] & 0x0fu) * 4);
}

/* "0x2, Don't fragment": the flags, then the name of each set. */
static size_t
show_ip_flags(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    static const char *const names[] = {", Reserved bit", ", Don't fragment",
                                        ", More fragments"};
    struct rs_info in = {buf, size, 0, 0};

    (void)f;
    rs_info_hex(&in, "0x", v->v.u, 0);
    for (unsigned i = 0; i < 3 && in.want < size; i++)
        if (v->v.u & (4u >> i))
            rs_info_str(&in, names[i]);
    return in.want;
}

/* "...0 0000 0000 0000 = Fragment Offset: 0": sent in 8-byte units, shown in bytes. */
static size_t
frag_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
           char *buf, size_t size)
{
    size_t n = rs_format_bits(buf, size, rs_load_be16(rs_packet_at(pkt, RS_LAYER_IPV4) + 6),
                              f->mask, 16);

    if (n >= size)
        return n;
    struct rs_info in = {buf + n, size - n, 0, 0};
    rs_info_dec(&in, "Fragment Offset: ", v->v.u * 8);
    return n + in.want;
}

/* Whether the layer's bytes as captured (an ICMP error's quote may be cut short) reach
 * end. */
static bool
layer_holds(const struct rs_packet *pkt, unsigned layer, uint32_t end)
{
    const struct rs_span *sp = &pkt->span[layer];

    return sp->off + (uint64_t)end <= pkt->frame->caplen;
}

/* Whether the layer's span, as captured, holds its first end bytes. */
static bool
header_holds(const struct rs_packet *pkt, unsigned layer, uint32_t end)
{
    return layer_holds(pkt, layer, end) && pkt->span[layer].len >= end;
}

/* The ip item: the header's span, or all of a header cut short (RS_PKT_IPV4_PART), whose
 * span ends before the destination where options follow (ip.c). */
static bool
get_ip(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
       struct rs_value *out)
{
    if (!rs_field_get_generic(pkt, f, occ, out))
        return false;
    if (pkt->flags & RS_PKT_IPV4_PART) {
        const struct rs_span *sp = &pkt->span[RS_LAYER_IPV4];
        uint32_t hlen = (rs_packet_at(pkt, RS_LAYER_IPV4)[0] & 0x0fu) * 4;
        out->v.bytes.len = pkt->frame->caplen - sp->off < hlen ? pkt->frame->caplen - sp->off
                                                                : hlen;
    }
    return true;
}

uint32_t
ipv4_bogus_length(const struct rs_packet *pkt)
{
    if ((pkt->flags & RS_PKT_QUOTED) ||
        !(rs_packet_has(pkt, RS_LAYER_IPV4) || (pkt->flags & RS_PKT_IPV4_PART)) ||
        !header_holds(pkt, RS_LAYER_IPV4, 4))
        return 0;
    const uint8_t *h = rs_packet_at(pkt, RS_LAYER_IPV4);
    uint32_t total = rs_load_be16(h + 2), hlen = (h[0] & 0x0fu) * 4;
    uint32_t reported = pkt->frame->len - pkt->span[RS_LAYER_IPV4].off;
    /* a length below the header's is another item (tshark's "Bogus IP length") */
    return total >= hlen && total > reported ? reported : 0;
}

#define IP_PROTO_OSPF 89
#define IP_PROTO_PIM 103

/* tshark's note under the TTL (ip.ttl.too_small); the whole fixed header, as it reads the
 * destination first */
bool
ipv4_ttl_too_small(const struct rs_packet *pkt)
{
    if (!rs_packet_has(pkt, RS_LAYER_IPV4) || !header_holds(pkt, RS_LAYER_IPV4, IPV4_HDR_LEN))
        return false;
    const uint8_t *h = rs_packet_at(pkt, RS_LAYER_IPV4);
    /* to a multicast group it is another note (the Local Network Control Block's) or none */
    return h[8] < 5 && (h[16] & 0xf0) != 0xe0 && h[9] != IP_PROTO_OSPF &&
           h[9] != IP_PROTO_PIM;
}

/* RFC 3171's block: 1, but 255 for VRRP (224.0.0.18), GLBP (.102) and mDNS (.251), and any
 * for LLMNR (.252), as tshark 4.0 expects */
unsigned
ipv4_ttl_lncb(const struct rs_packet *pkt)
{
    if (!rs_packet_has(pkt, RS_LAYER_IPV4) || !header_holds(pkt, RS_LAYER_IPV4, IPV4_HDR_LEN))
        return 0;
    const uint8_t *h = rs_packet_at(pkt, RS_LAYER_IPV4);
    if (h[16] != 224 || h[17] != 0 || h[18] != 0 || h[19] == 252)
        return 0;
    unsigned want = h[19] == 18 || h[19] == 102 || h[19] == 251 ? 255 : 1;
    return h[8] != want ? want : 0;
}

bool
ipv6_plen_exceeds(const struct rs_packet *pkt, uint32_t *framing)
{
    if ((pkt->flags & RS_PKT_QUOTED) || !rs_packet_has(pkt, RS_LAYER_IPV6))
        return false;
    uint32_t plen = rs_load_be16(rs_packet_at(pkt, RS_LAYER_IPV6) + 4);
    uint32_t after = pkt->span[RS_LAYER_IPV6].off + IPV6_HDR_LEN;
    uint32_t reported = pkt->frame->len > after ? pkt->frame->len - after : 0;
    if (framing != NULL)
        *framing = reported;
    return plen != 0 && plen > reported;
}

/* "0x9385 [validation disabled]": tshark checks no IP checksum by default. */
static size_t
show_unverified_ip(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    struct rs_info in = {buf, size, 0, 0};

    (void)f;
    rs_info_hex(&in, "0x", v->v.u, 4);
    rs_info_str(&in, " [validation disabled]");
    return in.want;
}

static bool
get_unverified(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, (enum rs_layer)f->layer) ||
        !layer_holds(pkt, f->layer, f->offset + 2))
        return false;
    return rs_value_set_uint(out, f->type, RS_CKSUM_UNVERIFIED);
}

/* ip.src_host and the like: the address as text (names are never looked up). */
static bool
get_host(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out)
{
    static _Thread_local char hosts[2][RS_IPV6_TEXT_MAX];

    /* an ICMP error's quote, or a header cut short, may end before the address */
    if (occ != 0 || !rs_packet_has(pkt, (enum rs_layer)f->layer) ||
        !header_holds(pkt, f->layer, f->offset + f->width))
        return false;
    const uint8_t *a = rs_packet_at(pkt, (enum rs_layer)f->layer) + f->offset;
    char *buf = hosts[f->offset == 16 || f->offset == 24];
    if (f->layer == RS_LAYER_IPV4)
        rs_format_ipv4(buf, a);
    else
        rs_format_ipv6(buf, a);
    out->type = RS_FT_STRING;
    out->v.str = buf;
    return true;
}

/* "Internet Protocol Version 4, Src: 10.1.16.62, Dst: 10.1.16.61", each address where the
 * header, cut short (a quote's, or a frame's: RS_PKT_IPV4_PART), holds it */
static size_t
ip_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
         char *buf, size_t size)
{
    static const char *const names[] = {", Src: ", ", Dst: "};
    char addr[RS_IPV6_TEXT_MAX];
    const uint8_t *h = rs_packet_at(pkt, (enum rs_layer)f->layer);
    bool v4 = f->layer == RS_LAYER_IPV4;
    uint32_t width = v4 ? 4 : 16, at = v4 ? 12 : 8;
    struct rs_info in = {buf, size, 0, 0};

    (void)v;
    rs_info_str(&in, f->name);      /* without printf, as show_ds */
    for (unsigned i = 0; i < 2 && header_holds(pkt, f->layer, at + width); i++, at += width) {
        if (v4)
            rs_format_ipv4(addr, h + at);
        else
            rs_format_ipv6(addr, h + at);
        rs_info_str(&in, names[i]);
        rs_info_str(&in, addr);
    }
    return in.want;
}

/* IPv6's ip.version: the same bits, with a note on why it is there. */
static size_t
ipv6_ip_version_label(const struct rs_packet *pkt, const struct rs_field *f,
                      const struct rs_value *v, char *buf, size_t size)
{
    size_t n = rs_format_bits(buf, size, rs_packet_at(pkt, RS_LAYER_IPV6)[0], f->mask, 8);

    if (n >= size)
        return n;
    return n + (size_t)snprintf(buf + n, size - n, "Version: %llu [This field makes the filter "
                                "match on \"ip.version == 6\" possible]",
                                (unsigned long long)v->v.u);
}

/* The hop-by-hop options header right after the fixed header: its offset and length,
 * or false. */
static bool
hopopts(const struct rs_packet *pkt, uint32_t *off, uint32_t *len)
{
    if (!rs_packet_has(pkt, RS_LAYER_IPV6))
        return false;
    const struct rs_span *sp = &pkt->span[RS_LAYER_IPV6];
    const uint8_t *h = rs_packet_at(pkt, RS_LAYER_IPV6);
    if (h[6] != IPPROTO_HOPOPTS || sp->len < IPV6_HDR_LEN + 8u)
        return false;
    *off = sp->off + IPV6_HDR_LEN;
    *len = (h[IPV6_HDR_LEN + 1] + 1u) * 8;
    return *len <= sp->len - IPV6_HDR_LEN;
}

/* The hop-by-hop header's own fields; the offset column: 0 the protocol, 1 next header,
 * 2 length, 3 length in bytes. */
static bool
get_hopopts(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    uint32_t off, len;

    if (occ != 0 || !hopopts(pkt, &off, &len))
        return false;
    const uint8_t *p = pkt->frame->data + off;
    out->type = f->type;
    switch (f->offset) {
    case 0:
        out->v.bytes.ptr = p;
        out->v.bytes.len = len;
        return true;
    case 1:
        out->v.u = p[0];
        return true;
    case 2:
        out->v.u = p[1];
        return true;
    default:
        out->v.u = len;
        return true;
    }
}

static bool
locate_hopopts(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               uint32_t *offset, uint32_t *length)
{
    uint32_t off, len;

    (void)occ;
    if (!hopopts(pkt, &off, &len))
        return false;
    *offset = off + (f->offset == 1 ? 0 : 1);
    *length = 1;
    return true;
}

enum ipv6_option_part { OPT_NODE, OPT_TYPE, OPT_ACTION, OPT_CHANGE, OPT_REST, OPT_LENGTH,
                        OPT_ROUTER_ALERT, OPT_PADN };

/* Option pkt->item - 1 of the hop-by-hop header: its offset and whole length; Pad1
 * is one byte without a length. */
static bool
ipv6_option(const struct rs_packet *pkt, uint32_t *at, uint32_t *olen)
{
    uint32_t off, len;

    if (pkt->item == 0 || !hopopts(pkt, &off, &len))
        return false;
    const uint8_t *p = pkt->frame->data;
    uint32_t i = off + 2, end = off + len;
    for (unsigned n = 0; i < end; n++) {
        uint32_t l = p[i] == 0 ? 1 : i + 1 < end ? 2u + p[i + 1] : end - i;
        if (i + l > end)
            return false;
        if (n + 1u == pkt->item) {
            *at = i;
            *olen = l;
            return true;
        }
        i += l;
    }
    return false;
}

static bool
get_ipv6_option(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                struct rs_value *out)
{
    uint32_t at, len;

    if (occ != 0 || !ipv6_option(pkt, &at, &len))
        return false;
    const uint8_t *o = pkt->frame->data + at;
    out->type = f->type;
    switch (f->offset) {
    case OPT_NODE:
        out->v.bytes.ptr = o;
        out->v.bytes.len = len;
        return true;
    case OPT_TYPE:
        out->v.u = o[0];
        return true;
    case OPT_ACTION:
        out->v.u = o[0] >> 6;
        return true;
    case OPT_CHANGE:
        out->v.u = (o[0] >> 5) & 1;
        return true;
    case OPT_REST:
        out->v.u = o[0] & 0x1f;
        return true;
    case OPT_LENGTH:
        out->v.u = o[1];
        return len >= 2;
    case OPT_ROUTER_ALERT:
        if (o[0] != 0x05 || len < 4)
            return false;
        out->v.u = rs_load_be16(o + 2);
        return true;
    case OPT_PADN:
        out->v.bytes.ptr = o + 2;
        out->v.bytes.len = len - 2;
        return o[0] == 0x01 && len >= 2;
    default:
        return false;
    }
}

static bool
locate_ipv6_option(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                   uint32_t *offset, uint32_t *length)
{
    uint32_t at, len;

    (void)occ;
    if (!ipv6_option(pkt, &at, &len))
        return false;
    switch (f->offset) {
    case OPT_NODE:
        *offset = at;
        *length = len;
        break;
    case OPT_LENGTH:
        *offset = at + 1;
        *length = 1;
        break;
    case OPT_ROUTER_ALERT:
        *offset = at + 2;
        *length = 2;
        break;
    case OPT_PADN:
        *offset = at + 2;
        *length = len - 2;
        break;
    default:
        *offset = at;
        *length = 1;
        break;
    }
    return true;
}

/* "Router Alert": an option's line is its name. */
static size_t
option_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
             char *buf, size_t size)
{
    uint32_t at, len;

    (void)f;
    (void)v;
    if (!ipv6_option(pkt, &at, &len))
        return 0;
    return (size_t)snprintf(buf, size, "%s",
                            name_or(rs_ipv6_opt_type_vals, pkt->frame->data[at],
                                    "Unknown IPv6 Option"));
}

/* "PadN: <none>" for no padding bytes, as a byte field that may be empty. */
static size_t
show_padn(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    (void)f;
    if (v->v.bytes.len == 0)
        return (size_t)snprintf(buf, size, "<none>");
    size_t n = 0;
    for (uint32_t i = 0; i < v->v.bytes.len && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%02x", v->v.bytes.ptr[i]);
    return n;
}

static const struct rs_value_string action_vals[] = {
    {0, "Skip and continue"},
    {1, "Discard"},
    {2, "Discard and send ICMP Parameter Problem"},
    {3, "Discard and send ICMP if not multicast"},
    {0, NULL},
};

static const struct rs_value_string yes_no_vals[] = {{0, "No"}, {1, "Yes"}, {0, NULL}};

static const struct rs_value_string router_alert_vals[] = {
    {0, "MLD"}, {1, "RSVP"}, {2, "Active Network"}, {0, NULL},
};

#define HIDDEN_GEN (RS_FIELD_HIDDEN | RS_FIELD_GENERATED)
#define IP_HOST(abbrev, name, layer, off, width) \
    {abbrev, name, RS_FT_STRING, RS_BASE_NONE, 0, NULL, name, layer, off, width, get_host, 1, \
     HIDDEN_GEN}
#define HOPOPT(abbrev, name, type, base, vals, which, depth, shown)                         \
    {abbrev, name, type, base, 0, vals, name, RS_LAYER_IPV6, which, 0, get_hopopts, depth, 0, \
     .show = shown, .locate = locate_hopopts}
#define IPV6_OPT(abbrev, name, type, base, mask, vals, which, depth)                         \
    {abbrev, name, type, base, mask, vals, name, RS_LAYER_IPV6, which, 1, get_ipv6_option,   \
     depth, RS_FIELD_PER_ITEM, .locate = locate_ipv6_option}

const struct rs_field rs_fields_ip[] = {
    {"ip", "Internet Protocol Version 4", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "Internet Protocol Version 4", RS_LAYER_IPV4, 0, 0, get_ip, 0, 0, .label = ip_label},
    {"ip.version", "Version", RS_FT_UINT8, RS_BASE_DEC, 0xf0, NULL, "IP version",
     RS_LAYER_IPV4, 0, 1, NULL, 1, RS_FIELD_BITS},
    {"ip.hdr_len", "Header Length", RS_FT_UINT8, RS_BASE_DEC, 0, NULL,
     "IPv4 header length in bytes", RS_LAYER_IPV4, 0, 1, get_ipv4_hdr_len, 1, 0,
     .label = hdr_len_label},
    {"ip.dsfield", "Differentiated Services Field", RS_FT_UINT8, RS_BASE_HEX, 0, NULL,
     "DSCP and ECN", RS_LAYER_IPV4, 1, 1, NULL, 1, 0, .show = show_ds},
    {"ip.dsfield.dscp", "Differentiated Services Codepoint", RS_FT_UINT8, RS_BASE_DEC, 0xfc,
     dscp_vals, "DSCP", RS_LAYER_IPV4, 1, 1, NULL, 2},
    {"ip.dsfield.ecn", "Explicit Congestion Notification", RS_FT_UINT8, RS_BASE_DEC, 0x03,
     ecn_vals, "ECN: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE", RS_LAYER_IPV4, 1, 1, NULL, 2},
    {"ip.len", "Total Length", RS_FT_UINT16, RS_BASE_DEC, 0, NULL, "IPv4 total length",
     RS_LAYER_IPV4, 2, 2, NULL, 1},
    RS_F_WS_EXPERT("ip.bogus_ip_length", "Bogus IP length", RS_WSX_IP_BOGUS_LENGTH, 2),
    {"ip.id", "Identification", RS_FT_UINT16, RS_BASE_HEX_DEC, 0, NULL,
     "IPv4 identification (covered by the ICRC)", RS_LAYER_IPV4, 4, 2, NULL, 1},
    {"ip.flags", "Flags", RS_FT_UINT8, RS_BASE_HEX, 0xe0, NULL, "The three flag bits",
     RS_LAYER_IPV4, 6, 1, NULL, 1, 0, .show = show_ip_flags},
    {"ip.flags.rb", "Reserved bit", RS_FT_BOOLEAN, RS_BASE_NONE, 0x80, set_vals,
     "Reserved flag (must be 0)", RS_LAYER_IPV4, 6, 1, NULL, 2},
    {"ip.flags.df", "Don't fragment", RS_FT_BOOLEAN, RS_BASE_NONE, 0x40, set_vals, "DF flag",
     RS_LAYER_IPV4, 6, 1, NULL, 2},
    {"ip.flags.mf", "More fragments", RS_FT_BOOLEAN, RS_BASE_NONE, 0x20, set_vals, "MF flag",
     RS_LAYER_IPV4, 6, 1, NULL, 2},
    {"ip.frag_offset", "Fragment Offset", RS_FT_UINT16, RS_BASE_DEC, 0x1fff, NULL,
     "Fragment offset in 8-byte units", RS_LAYER_IPV4, 6, 2, NULL, 1, 0, .label = frag_label},
    {"ip.ttl", "Time to Live", RS_FT_UINT8, RS_BASE_DEC, 0, NULL, "TTL", RS_LAYER_IPV4, 8, 1,
     NULL, 1},
    /* in an ICMP error's quote too (a traceroute's TTL of 1) */
    RS_F_WS_EXPERT_AS("ip.ttl.too_small", "Time To Live", RS_WSX_IP_TTL_TOO_SMALL, 2,
                      RS_FIELD_QUOTABLE),
    RS_F_WS_EXPERT_AS("ip.ttl.lncb", "Time To Live", RS_WSX_IP_TTL_LNCB, 2, RS_FIELD_QUOTABLE),
    {"ip.proto", "Protocol", RS_FT_UINT8, RS_BASE_DEC, 0, rs_ipproto_vals, "Next protocol",
     RS_LAYER_IPV4, 9, 1, NULL, 1},
    {"ip.checksum", "Header Checksum", RS_FT_UINT16, RS_BASE_HEX, 0, NULL,
     "IPv4 header checksum", RS_LAYER_IPV4, 10, 2, NULL, 1, 0, .show = show_unverified_ip},
    {"ip.checksum.status", "Header checksum status", RS_FT_UINT8, RS_BASE_NONE, 0,
     rs_cksum_vals, "Not verified, as tshark's default", RS_LAYER_IPV4, 10, 0,
     get_unverified, 1, RS_FIELD_GENERATED | RS_FIELD_NO_BYTES},
    {"ip.src", "Source Address", RS_FT_IPV4, RS_BASE_NONE, 0, NULL, "IPv4 source",
     RS_LAYER_IPV4, 12, 4, NULL, 1},
    {"ip.addr", "Source or Destination Address", RS_FT_IPV4, RS_BASE_NONE, 0, NULL,
     "IPv4 source or destination", RS_LAYER_IPV4, 12, 4, NULL, 1, RS_FIELD_HIDDEN},
    IP_HOST("ip.src_host", "Source Host", RS_LAYER_IPV4, 12, 4),
    IP_HOST("ip.host", "Source or Destination Host", RS_LAYER_IPV4, 12, 4),
    {"ip.dst", "Destination Address", RS_FT_IPV4, RS_BASE_NONE, 0, NULL, "IPv4 destination",
     RS_LAYER_IPV4, 16, 4, NULL, 1},
    {"ip.addr", "Source or Destination Address", RS_FT_IPV4, RS_BASE_NONE, 0, NULL,
     "IPv4 source or destination", RS_LAYER_IPV4, 16, 4, NULL, 1, RS_FIELD_HIDDEN},
    IP_HOST("ip.dst_host", "Destination Host", RS_LAYER_IPV4, 16, 4),
    IP_HOST("ip.host", "Source or Destination Host", RS_LAYER_IPV4, 16, 4),
    {"ipv6", "Internet Protocol Version 6", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "Internet Protocol Version 6", RS_LAYER_IPV6, 0, 0, NULL, 0, 0, .label = ip_label},
    {"ipv6.version", "Version", RS_FT_UINT8, RS_BASE_DEC, 0xf0, NULL, "IP version",
     RS_LAYER_IPV6, 0, 1, NULL, 1, RS_FIELD_BITS},
    {"ip.version", "Version", RS_FT_UINT8, RS_BASE_DEC, 0xf0, NULL, "IP version",
     RS_LAYER_IPV6, 0, 1, NULL, 1, RS_FIELD_HIDDEN, .label = ipv6_ip_version_label},
    {"ipv6.tclass", "Traffic Class", RS_FT_UINT32, RS_BASE_HEX, 0x0ff00000, NULL,
     "IPv6 traffic class", RS_LAYER_IPV6, 0, 4, NULL, 1, 0, .show = show_ds},
    {"ipv6.tclass.dscp", "Differentiated Services Codepoint", RS_FT_UINT32, RS_BASE_DEC,
     0x0fc00000, dscp_vals, "DSCP", RS_LAYER_IPV6, 0, 4, NULL, 2},
    {"ipv6.tclass.ecn", "Explicit Congestion Notification", RS_FT_UINT32, RS_BASE_DEC,
     0x00300000, ecn_vals, "ECN: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE", RS_LAYER_IPV6, 0, 4,
     NULL, 2},
    {"ipv6.flow", "Flow Label", RS_FT_UINT24, RS_BASE_HEX, 0x0fffff, NULL, "IPv6 flow label",
     RS_LAYER_IPV6, 1, 3, NULL, 1},
    {"ipv6.plen", "Payload Length", RS_FT_UINT16, RS_BASE_DEC, 0, NULL, "IPv6 payload length",
     RS_LAYER_IPV6, 4, 2, NULL, 1},
    RS_F_WS_EXPERT("ipv6.plen_exceeds_framing", "IPv6 payload length does not match expected "
                   "framing length", RS_WSX_IPV6_PLEN_EXCEEDS, 2),
    {"ipv6.nxt", "Next Header", RS_FT_UINT8, RS_BASE_DEC, 0, rs_ipproto_vals,
     "IPv6 next header", RS_LAYER_IPV6, 6, 1, NULL, 1},
    {"ipv6.hlim", "Hop Limit", RS_FT_UINT8, RS_BASE_DEC, 0, NULL, "IPv6 hop limit",
     RS_LAYER_IPV6, 7, 1, NULL, 1},
    {"ipv6.src", "Source Address", RS_FT_IPV6, RS_BASE_NONE, 0, NULL, "IPv6 source",
     RS_LAYER_IPV6, 8, 16, NULL, 1},
    {"ipv6.addr", "Source or Destination Address", RS_FT_IPV6, RS_BASE_NONE, 0, NULL,
     "IPv6 source or destination", RS_LAYER_IPV6, 8, 16, NULL, 1, RS_FIELD_HIDDEN},
    IP_HOST("ipv6.src_host", "Source Host", RS_LAYER_IPV6, 8, 16),
    IP_HOST("ipv6.host", "Source or Destination Host", RS_LAYER_IPV6, 8, 16),
    {"ipv6.dst", "Destination Address", RS_FT_IPV6, RS_BASE_NONE, 0, NULL, "IPv6 destination",
     RS_LAYER_IPV6, 24, 16, NULL, 1},
    {"ipv6.addr", "Source or Destination Address", RS_FT_IPV6, RS_BASE_NONE, 0, NULL,
     "IPv6 source or destination", RS_LAYER_IPV6, 24, 16, NULL, 1, RS_FIELD_HIDDEN},
    IP_HOST("ipv6.dst_host", "Destination Host", RS_LAYER_IPV6, 24, 16),
    IP_HOST("ipv6.host", "Source or Destination Host", RS_LAYER_IPV6, 24, 16),
    {"ipv6.hopopts", "IPv6 Hop-by-Hop Option", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "Hop-by-hop options header", RS_LAYER_IPV6, 0, 0, get_hopopts, 1},
    HOPOPT("ipv6.hopopts.nxt", "Next Header", RS_FT_UINT8, RS_BASE_DEC, rs_ipproto_vals, 1, 2,
           NULL),
    HOPOPT("ipv6.hopopts.len", "Length", RS_FT_UINT8, RS_BASE_DEC, NULL, 2, 2, NULL),
    {"ipv6.hopopts.len_oct", "Length", RS_FT_UINT16, RS_BASE_DEC, 0, NULL, "Length",
     RS_LAYER_IPV6, 3, 0, get_hopopts, 2, RS_FIELD_GENERATED, .show = rs_show_bytes_count,
     .locate = locate_hopopts},
    {"ipv6.opt", "IPv6 Option", RS_FT_NONE, RS_BASE_NONE, 0, NULL, "Option", RS_LAYER_IPV6,
     OPT_NODE, 1, get_ipv6_option, 2, RS_FIELD_PER_ITEM, .label = option_label,
     .locate = locate_ipv6_option},
    IPV6_OPT("ipv6.opt.type", "Type", RS_FT_UINT8, RS_BASE_HEX, 0, rs_ipv6_opt_type_vals,
             OPT_TYPE, 3),
    IPV6_OPT("ipv6.opt.type.action", "Action", RS_FT_UINT8, RS_BASE_DEC, 0xc0, action_vals,
             OPT_ACTION, 4),
    IPV6_OPT("ipv6.opt.type.change", "May Change", RS_FT_BOOLEAN, RS_BASE_NONE, 0x20,
             yes_no_vals, OPT_CHANGE, 4),
    IPV6_OPT("ipv6.opt.type.rest", "Low-Order Bits", RS_FT_UINT8, RS_BASE_HEX, 0x1f, NULL,
             OPT_REST, 4),
    IPV6_OPT("ipv6.opt.length", "Length", RS_FT_UINT8, RS_BASE_DEC, 0, NULL, OPT_LENGTH, 3),
    IPV6_OPT("ipv6.opt.router_alert", "Router Alert", RS_FT_UINT16, RS_BASE_DEC, 0,
             router_alert_vals, OPT_ROUTER_ALERT, 3),
    {"ipv6.opt.padn", "PadN", RS_FT_BYTES, RS_BASE_NONE, 0, NULL, "PadN Option", RS_LAYER_IPV6,
     OPT_PADN, 1, get_ipv6_option, 3, RS_FIELD_PER_ITEM, .show = show_padn,
     .locate = locate_ipv6_option},
    RS_F_END,
};
