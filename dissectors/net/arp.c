/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arp.c - ARP (RFC 826) and its fields by Wireshark's names: the fixed
 * part, and the addresses that are Ethernet's or IPv4's.
 */
#include "decode_int.h"
#include "fields/fields_int.h"

#define ARP_FIXED_LEN 8

void
decode_arp(struct rs_packet *pkt, uint32_t off, uint32_t end)
{
    const uint8_t *d = pkt->frame->data;

    if (!decode_need(pkt, off, ARP_FIXED_LEN, end, "ARP header too short"))
        return;
    uint32_t len = ARP_FIXED_LEN + 2u * (d[off + 4] + d[off + 5]);
    if (!decode_need(pkt, off, len, end, "ARP addresses exceed the packet"))
        return;
    decode_set_layer(pkt, RS_LAYER_ARP, off, len);
}

/* Sender and target addresses: Ethernet's (6 bytes) and IPv4's (4), wherever
 * the sizes put them (IPoIB's ARP has 20-byte hardware addresses). The
 * offset column says which: 0 sender MAC, 1 sender IP, 2 target MAC, 3
 * target IP. */
static bool
get_arp_addr(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_ARP))
        return false;
    const uint8_t *a = rs_packet_at(pkt, RS_LAYER_ARP);
    uint32_t hlen = a[4], plen = a[5];
    bool ip = f->offset & 1, target = f->offset >= 2;
    if ((ip && plen != 4) || (!ip && hlen != 6))
        return false;
    uint32_t off = ARP_FIXED_LEN + (target ? hlen + plen : 0) + (ip ? hlen : 0);
    out->type = f->type;
    out->v.bytes.ptr = a + off;
    out->v.bytes.len = ip ? 4 : 6;
    return true;
}

static const struct rs_value_string hw_type_vals[] = {
    {1, "Ethernet"}, {6, "IEEE 802"}, {32, "InfiniBand"}, {0, NULL},
};

static const struct rs_value_string proto_type_vals[] = {
    {0x0800, "IPv4"}, {0x86dd, "IPv6"}, {0, NULL},
};

static const struct rs_value_string opcode_vals[] = {
    {1, "request"}, {2, "reply"}, {3, "reverse request"}, {4, "reverse reply"}, {0, NULL},
};

#define ARP_ADDR(abbrev, name, type, which) \
    {abbrev, name, type, RS_BASE_NONE, 0, NULL, name, RS_LAYER_ARP, which, 0, get_arp_addr, 1}

const struct rs_field rs_fields_arp[] = {
    RS_F_PROTO("arp", "Address Resolution Protocol", RS_LAYER_ARP),
    {"arp.hw.type", "Hardware type", RS_FT_UINT16, RS_BASE_DEC, 0, hw_type_vals,
     "Link type of the hardware addresses", RS_LAYER_ARP, 0, 2, NULL, 1},
    {"arp.proto.type", "Protocol type", RS_FT_UINT16, RS_BASE_HEX, 0, proto_type_vals,
     "Ethertype of the protocol addresses", RS_LAYER_ARP, 2, 2, NULL, 1},
    {"arp.hw.size", "Hardware size", RS_FT_UINT8, RS_BASE_DEC, 0, NULL,
     "Length of a hardware address", RS_LAYER_ARP, 4, 1, NULL, 1},
    {"arp.proto.size", "Protocol size", RS_FT_UINT8, RS_BASE_DEC, 0, NULL,
     "Length of a protocol address", RS_LAYER_ARP, 5, 1, NULL, 1},
    {"arp.opcode", "Opcode", RS_FT_UINT16, RS_BASE_DEC, 0, opcode_vals, "Request or reply",
     RS_LAYER_ARP, 6, 2, NULL, 1},
    ARP_ADDR("arp.src.hw_mac", "Sender MAC address", RS_FT_ETHER, 0),
    ARP_ADDR("arp.src.proto_ipv4", "Sender IP address", RS_FT_IPV4, 1),
    ARP_ADDR("arp.dst.hw_mac", "Target MAC address", RS_FT_ETHER, 2),
    ARP_ADDR("arp.dst.proto_ipv4", "Target IP address", RS_FT_IPV4, 3),
    RS_F_END,
};
