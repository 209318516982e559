/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * link.c - link-layer headers: ERF records, Ethernet with 802.1Q/802.1ad
 * tags, and the Ethertype dispatch that Linux cooked headers share.
 */
#include <roceshark/encode.h>

#include "decode_int.h"
#include "fields/fields_int.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88a8
#define ETHERTYPE_QINQ_OLD 0x9100
#define ETHERTYPE_ROCE 0x8915
#define ETHERTYPE_ARP 0x0806

#define ETH_HDR_LEN 14
#define VLAN_TAG_LEN 4
#define MAX_VLAN_TAGS 4     /* deeper stacks are skipped, not decoded */

/* ERF record header (Endace ERF types reference, "Generic ERF header"):
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                 timestamp (64 bits, little-endian)            |
 * |                                                               |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |X|   type      |    flags      |        record length          |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |     loss counter / color      |         wire length           |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * X: 8-byte extension headers follow, each flagging whether another does.
 */
#define ERF_HDR_LEN RS_ERF_HDR_LEN
#define ERF_EXT_LEN 8
#define ERF_TYPE_ETH 2
#define ERF_TYPE_COLOR_ETH 10
#define ERF_TYPE_DSM_COLOR_ETH 16
#define ERF_TYPE_INFINIBAND RS_ERF_TYPE_INFINIBAND
#define ERF_TYPE_COLOR_HASH_ETH 22
#define ERF_ETH_PAD_LEN 2

static bool
erf_is_ethernet(uint8_t type)
{
    return type == ERF_TYPE_ETH || type == ERF_TYPE_COLOR_ETH ||
           type == ERF_TYPE_DSM_COLOR_ETH || type == ERF_TYPE_COLOR_HASH_ETH;
}

void
rs_encode_erf_header(uint8_t *h, uint8_t type, uint8_t flags, int64_t sec, uint32_t nsec,
                     uint32_t len)
{
    uint64_t frac = ((uint64_t)nsec << 32) / 1000000000u;

    rs_store_le64(h, (uint64_t)sec << 32 | frac);
    h[8] = type;
    h[9] = flags;
    rs_store_be16(h + 10, (uint16_t)(ERF_HDR_LEN + len));
    rs_store_be16(h + 12, 0);
    rs_store_be16(h + 14, (uint16_t)len);
}

void
decode_erf(struct rs_packet *pkt, const struct rs_decode_opts *opts, uint32_t end)
{
    const uint8_t *d = pkt->frame->data;
    uint32_t off = ERF_HDR_LEN;

    if (!decode_need(pkt, 0, ERF_HDR_LEN, end, "ERF record header too short"))
        return;
    uint8_t type = d[8];
    uint32_t wlen = rs_load_be16(d + 14);

    /* Walk the extension headers; the loop ends because off grows. */
    for (bool more = type & 0x80; more; off += ERF_EXT_LEN) {
        if (!decode_need(pkt, off, ERF_EXT_LEN, end, "ERF extension header too short"))
            return;
        more = d[off] & 0x80;
    }
    type &= 0x7f;
    if (erf_is_ethernet(type))
        off += ERF_ETH_PAD_LEN;
    decode_set_layer(pkt, RS_LAYER_ERF, 0, off);
    if (off > end) {
        decode_malformed(pkt, "ERF record shorter than its headers");
        return;
    }
    /* The record's wire length is what the packet reports; bytes past it are
     * record padding, and a record shorter than it was cut by a snapshot. */
    end = off + wlen;
    if (type == ERF_TYPE_INFINIBAND && !opts->disable_infiniband)
        decode_lrh(pkt, off, end);
    else if (erf_is_ethernet(type))
        decode_ethernet(pkt, opts, off, end);
}

/* Ethernet II, tags included:
 * +-------------+-------------+------+ [+------+------+]  +------+
 * | dst MAC (6) | src MAC (6) | type |  | TCI  | type | ...| data |
 * +-------------+-------------+------+ [+------+------+]  +------+ */
void
decode_ethernet(struct rs_packet *pkt, const struct rs_decode_opts *opts, uint32_t off,
                uint32_t end)
{
    const uint8_t *d = pkt->frame->data;

    if (!decode_need(pkt, off, ETH_HDR_LEN, end, "Ethernet header too short"))
        return;
    decode_set_layer(pkt, RS_LAYER_ETH, off, ETH_HDR_LEN);
    uint16_t type = rs_load_be16(d + off + 12);
    off += ETH_HDR_LEN;
    for (int tags = 0; type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ ||
                       type == ETHERTYPE_QINQ_OLD; tags++) {
        if (tags == MAX_VLAN_TAGS ||
            !decode_need(pkt, off, VLAN_TAG_LEN, end, "VLAN tag too short"))
            return;
        if (tags < 2)
            decode_set_layer(pkt, tags == 0 ? RS_LAYER_VLAN : RS_LAYER_VLAN2, off,
                             VLAN_TAG_LEN);
        type = rs_load_be16(d + off + 2);
        off += VLAN_TAG_LEN;
    }
    decode_ethertype(pkt, opts, type, off, end);
}

void
decode_ethertype(struct rs_packet *pkt, const struct rs_decode_opts *opts,
                 uint16_t ethertype, uint32_t off, uint32_t end)
{
    pkt->ethertype = ethertype;
    switch (ethertype) {
    case ETHERTYPE_IPV4:
        decode_ipv4(pkt, opts, off, end);
        break;
    case ETHERTYPE_IPV6:
        decode_ipv6(pkt, opts, off, end);
        break;
    case ETHERTYPE_ARP:
        decode_arp(pkt, off, end);
        break;
    case ETHERTYPE_ROCE:
        if (opts->disable_infiniband)
            break;
        /* RoCEv1 (IBTA Annex A16): GRH, then the IBA transport packet. */
        pkt->encap = RS_ENCAP_ROCEV1;
        decode_grh(pkt, off, end);
        break;
    default:
        break;
    }
}

/* Wireshark shows 802.1Q tags (TPID 0x8100 or 0x9100) as vlan.* and 802.1ad
 * service tags (TPID 0x88a8) as ieee8021ad.*, outer tag first. The offset
 * column picks the family: 0 for vlan, 1 for ieee8021ad. */
static bool
tag_matches(const struct rs_packet *pkt, enum rs_layer layer, bool service_tag)
{
    if (!rs_packet_has(pkt, layer))
        return false;
    uint16_t tpid = rs_load_be16(pkt->frame->data + pkt->span[layer].off - 2);
    return (tpid == ETHERTYPE_QINQ) == service_tag;
}

static bool
get_tag(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
        struct rs_value *out)
{
    bool service = f->abbrev[0] == 'i';
    unsigned seen = 0;

    for (int layer = RS_LAYER_VLAN; layer <= RS_LAYER_VLAN2; layer++) {
        if (!tag_matches(pkt, (enum rs_layer)layer, service) || seen++ != occ)
            continue;
        if (f->type == RS_FT_PROTOCOL) {
            out->type = RS_FT_PROTOCOL;
            return true;
        }
        return rs_field_read_uint(pkt, f, (uint8_t)layer, out);
    }
    return false;
}

/* The ethertypes a RoCE capture meets, named as Wireshark names them. */
static const struct rs_value_string etype_vals[] = {
    {0x0800, "IPv4"},
    {0x0806, "ARP"},
    {0x8100, "802.1Q Virtual LAN"},
    {0x86dd, "IPv6"},
    {0x8808, "MAC Control"},
    {0x88a8, "802.1ad Provider Bridge (Q-in-Q)"},
    {0x88cc, "802.1 Link Layer Discovery Protocol (LLDP)"},
    {0x88e5, "802.1AE (MACsec)"},
    {0x88f7, "PTPv2 over Ethernet (IEEE1588)"},
    {0x8906, "Fibre Channel over Ethernet"},
    {0x8914, "FCoE Initialization Protocol"},
    {0x8915, "RDMA over Converged Ethernet"},
    {0, NULL},
};

const struct rs_field rs_fields_link[] = {
    RS_F_PROTO("eth", "Ethernet II", RS_LAYER_ETH),
    /* eth.addr lies below each address, where Wireshark's tree (and tshark's JSON) has it. */
    {"eth.dst", "Destination", RS_FT_ETHER, RS_BASE_NONE, 0, NULL, "Destination MAC address",
     RS_LAYER_ETH, 0, 6, NULL, 1},
    {"eth.addr", "Address", RS_FT_ETHER, RS_BASE_NONE, 0, NULL,
     "Destination or source MAC address", RS_LAYER_ETH, 0, 6, NULL, 2, RS_FIELD_HIDDEN},
    {"eth.src", "Source", RS_FT_ETHER, RS_BASE_NONE, 0, NULL, "Source MAC address",
     RS_LAYER_ETH, 6, 6, NULL, 1},
    {"eth.addr", "Address", RS_FT_ETHER, RS_BASE_NONE, 0, NULL,
     "Destination or source MAC address", RS_LAYER_ETH, 6, 6, NULL, 2, RS_FIELD_HIDDEN},
    {"eth.type", "Type", RS_FT_UINT16, RS_BASE_HEX, 0, etype_vals, "Ethertype (or first tag)",
     RS_LAYER_ETH, 12, 2, NULL, 1},
    {"ieee8021ad", "IEEE 802.1ad", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "Service tag",
     RS_LAYER_VLAN, 0, 0, get_tag, 0},
    {"ieee8021ad.priority", "Priority", RS_FT_UINT16, RS_BASE_DEC, 0xe000, NULL,
     "Service tag priority", RS_LAYER_VLAN, 0, 2, get_tag, 1},
    {"ieee8021ad.id", "ID", RS_FT_UINT16, RS_BASE_DEC, 0x0fff, NULL, "Service VLAN identifier",
     RS_LAYER_VLAN, 0, 2, get_tag, 1},
    {"vlan", "802.1Q Virtual LAN", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "VLAN tag",
     RS_LAYER_VLAN, 0, 0, get_tag, 0},
    {"vlan.priority", "Priority", RS_FT_UINT16, RS_BASE_DEC, 0xe000, NULL,
     "Priority code point (PFC class)", RS_LAYER_VLAN, 0, 2, get_tag, 1},
    {"vlan.dei", "DEI", RS_FT_BOOLEAN, RS_BASE_NONE, 0x1000, NULL, "Drop eligible indicator",
     RS_LAYER_VLAN, 0, 2, get_tag, 1},
    {"vlan.id", "ID", RS_FT_UINT16, RS_BASE_DEC, 0x0fff, NULL, "VLAN identifier",
     RS_LAYER_VLAN, 0, 2, get_tag, 1},
    {"vlan.etype", "Type", RS_FT_UINT16, RS_BASE_HEX, 0, etype_vals, "Ethertype after the tag",
     RS_LAYER_VLAN, 2, 2, get_tag, 1},
    RS_F_END,
};
