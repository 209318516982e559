/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * link.c - link-layer headers: ERF records, Ethernet with 802.1Q/802.1ad
 * tags, and the Ethertype dispatch that Linux cooked headers share.
 */
#include <roceshark/dissectors/encode.h>

#include "decode_int.h"

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
 * Types read on (ERF Types Reference): 2, 11, 16 and 20 Ethernet (2 bytes of padding before
 * it), 21 InfiniBand from its LRH, 22 IPv4, 23 IPv6.
 */
#define ERF_HDR_LEN RS_ERF_HDR_LEN
#define ERF_EXT_LEN 8
#define ERF_TYPE_ETH 2
#define ERF_TYPE_COLOR_ETH 11
#define ERF_TYPE_DSM_COLOR_ETH 16
#define ERF_TYPE_COLOR_HASH_ETH 20
#define ERF_TYPE_INFINIBAND RS_ERF_TYPE_INFINIBAND
#define ERF_TYPE_IPV4 22
#define ERF_TYPE_IPV6 23
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

    if (!decode_need(pkt, 0, ERF_HDR_LEN, end, "ERF", "ERF record header too short"))
        return;
    uint8_t type = d[8];
    uint32_t wlen = rs_load_be16(d + 14);

    /* Walk the extension headers; the loop ends because off grows. */
    for (bool more = type & 0x80; more; off += ERF_EXT_LEN) {
        if (!decode_need(pkt, off, ERF_EXT_LEN, end, "ERF", "ERF extension header too short"))
            return;
        more = d[off] & 0x80;
    }
    type &= 0x7f;
    if (erf_is_ethernet(type))
        off += ERF_ETH_PAD_LEN;
    decode_set_layer(pkt, RS_LAYER_ERF, 0, off);
    if (off > end) {
        decode_malformed(pkt, "ERF", "ERF record shorter than its headers");
        return;
    }
    /* The record's wire length is what the packet reports; bytes past it are
     * record padding, and a record shorter than it was cut by a snapshot. */
    end = off + wlen;
    if (type == ERF_TYPE_INFINIBAND && !opts->disable_infiniband)
        decode_lrh(pkt, off, end);
    else if (erf_is_ethernet(type))
        decode_ethernet(pkt, opts, off, end);
    else if (type == ERF_TYPE_IPV4)
        decode_ipv4(pkt, opts, off, end);
    else if (type == ERF_TYPE_IPV6)
        decode_ipv6(pkt, opts, off, end);
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

    if (!decode_need(pkt, off, ETH_HDR_LEN, end, "Ethernet", "Ethernet header too short"))
        return;
    decode_set_layer(pkt, RS_LAYER_ETH, off, ETH_HDR_LEN);
    uint16_t type = rs_load_be16(d + off + 12);
    off += ETH_HDR_LEN;
    for (int tags = 0; type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ ||
                       type == ETHERTYPE_QINQ_OLD; tags++) {
        if (tags == MAX_VLAN_TAGS ||
            !decode_need(pkt, off, VLAN_TAG_LEN, end, "VLAN", "VLAN tag too short"))
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
