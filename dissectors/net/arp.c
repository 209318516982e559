/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arp.c - ARP (RFC 826) and its fields by Wireshark's names: the fixed
 * part, and the addresses when they are Ethernet's and IPv4's, as nearly
 * always (other sizes give the fixed part only).
 */
#include "decode_int.h"
#include "fields/fields_int.h"

#define ARP_FIXED_LEN 8
#define ARP_ETH_IPV4_LEN 28

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

/* Sender and target addresses, when they are 6 and 4 bytes long. */
static bool
get_arp_addr(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_ARP) ||
        pkt->span[RS_LAYER_ARP].len != ARP_ETH_IPV4_LEN)
        return false;
    const uint8_t *a = rs_packet_at(pkt, RS_LAYER_ARP);
    if (a[4] != 6 || a[5] != 4)
        return false;
    return rs_field_get_generic(pkt, f, occ, out);
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

#define ARP_ADDR(abbrev, name, type, off, width) \
    {abbrev, name, type, RS_BASE_NONE, 0, NULL, name, RS_LAYER_ARP, off, width, get_arp_addr, 1}

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
    ARP_ADDR("arp.src.hw_mac", "Sender MAC address", RS_FT_ETHER, 8, 6),
    ARP_ADDR("arp.src.proto_ipv4", "Sender IP address", RS_FT_IPV4, 14, 4),
    ARP_ADDR("arp.dst.hw_mac", "Target MAC address", RS_FT_ETHER, 18, 6),
    ARP_ADDR("arp.dst.proto_ipv4", "Target IP address", RS_FT_IPV4, 24, 4),
    RS_F_END,
};
