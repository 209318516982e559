/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arp.c - ARP (RFC 826) and its fields by Wireshark's names: the fixed part, the
 * addresses (Ethernet's and IPv4's as such, others as bytes), and what Wireshark calls a
 * gratuitous ARP, a probe and an announcement.
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/arp.h>
#include <roceshark/dissectors/wire.h>

#include "decode_int.h"
#include "fields/fields_int.h"
#include "net/value_tables.h"

#define ARP_FIXED_LEN 8

void
decode_arp(struct rs_packet *pkt, uint32_t off, uint32_t end)
{
    const uint8_t *d = pkt->frame->data;

    if (!decode_need(pkt, off, ARP_FIXED_LEN, end, "ARP/RARP", "ARP header too short"))
        return;
    uint32_t len = ARP_FIXED_LEN + 2u * (d[off + 4] + d[off + 5]);
    if (!decode_need(pkt, off, len, end, "ARP/RARP", "ARP addresses exceed the packet"))
        return;
    decode_set_layer(pkt, RS_LAYER_ARP, off, len);
}

/* Wireshark's rules (packet-arp.c): the hardware address is Ethernet's for types 1 and
 * 6 with 6 bytes, the protocol address IPv4's for 0x0800 with 4. */
static bool
hw_is_ether(const uint8_t *a)
{
    uint16_t type = rs_load_be16(a);
    return (type == 1 || type == 6) && a[4] == 6;
}

static bool
proto_is_ipv4(const uint8_t *a)
{
    return rs_load_be16(a + 2) == 0x0800 && a[5] == 4;
}

/* Where each address is; which: 0 sender hardware, 1 sender protocol, 2 target
 * hardware, 3 target protocol. */
static uint32_t
addr_off(const uint8_t *a, unsigned which)
{
    uint32_t hlen = a[4], plen = a[5];
    return ARP_FIXED_LEN + (which >= 2 ? hlen + plen : 0) + ((which & 1) ? hlen : 0);
}

const char *
rs_arp_kind(const struct rs_packet *pkt, enum rs_arp_kind *kind)
{
    const uint8_t *a = rs_packet_at(pkt, RS_LAYER_ARP);
    uint16_t op = rs_load_be16(a + 6);
    uint32_t plen = a[5], hlen = a[4];
    bool same = (op == 1 || op == 2) &&
                memcmp(a + addr_off(a, 1), a + addr_off(a, 3), plen) == 0;
    bool tha_zero = hlen >= 6 && memcmp(a + addr_off(a, 2), "\0\0\0\0\0\0", 6) == 0;
    bool spa_zero = plen == 4 && rs_load_be32(a + addr_off(a, 1)) == 0;

    *kind = RS_ARP_PLAIN;
    if (same)
        *kind = op == 1 && tha_zero ? RS_ARP_ANNOUNCEMENT : RS_ARP_GRATUITOUS;
    else if (op == 1 && tha_zero && spa_zero)
        *kind = RS_ARP_PROBE;
    switch (op) {
    case 1:
        return *kind == RS_ARP_GRATUITOUS ? "request/gratuitous ARP"
               : *kind == RS_ARP_PROBE    ? "ARP Probe"
               : *kind == RS_ARP_ANNOUNCEMENT ? "ARP Announcement" : "request";
    case 2:
        return *kind == RS_ARP_GRATUITOUS ? "reply/gratuitous ARP" : "reply";
    case 3: return "reverse request";
    case 4: return "reverse reply";
    case 8: return "inverse request";
    case 9: return "inverse reply";
    default: return NULL;
    }
}

void
rs_arp_address_text(const struct rs_packet *pkt, unsigned which, char *buf, size_t size)
{
    const uint8_t *a = rs_packet_at(pkt, RS_LAYER_ARP), *p = a + addr_off(a, which);
    uint32_t len = (which & 1) ? a[5] : a[4];
    size_t n = 0;

    if (len == 0) {
        snprintf(buf, size, "<No address>");
    } else if ((which & 1) && proto_is_ipv4(a)) {
        snprintf(buf, size, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]);
    } else if (!(which & 1) && hw_is_ether(a)) {
        snprintf(buf, size, "%02x:%02x:%02x:%02x:%02x:%02x", p[0], p[1], p[2], p[3], p[4], p[5]);
    } else {
        /* bytes in hex, as Wireshark's bytes_to_str: 36 of them at most, then an ellipsis */
        buf[0] = '\0';
        for (uint32_t i = 0; i < len && i < 36 && n + 3 < size; i++)
            n += (size_t)snprintf(buf + n, size - n, "%02x", p[i]);
        if (len > 36 && n + 4 < size)
            snprintf(buf + n, size - n, "\u2026");
    }
}

/* The addresses; the offset column says which (0 to 3, as addr_off), and the width
 * which kind: 1 Ethernet's or IPv4's, 0 any other. */
static bool
get_arp_addr(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_ARP))
        return false;
    const uint8_t *a = rs_packet_at(pkt, RS_LAYER_ARP);
    bool proto = f->offset & 1;
    uint32_t len = proto ? a[5] : a[4];
    bool known = proto ? proto_is_ipv4(a) : hw_is_ether(a);
    if (len == 0 || known != (f->width == 1))
        return false;
    out->type = f->type;
    out->v.bytes.ptr = a + addr_off(a, f->offset);
    out->v.bytes.len = len;
    return true;
}

/* arp.isgratuitous, .isprobe, .isannouncement (offset: the kind) */
static bool
get_arp_kind(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out)
{
    enum rs_arp_kind kind;

    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_ARP) || rs_arp_kind(pkt, &kind) == NULL)
        return false;
    /* an announcement is gratuitous too, and Wireshark says both */
    if (kind != f->offset && !(kind == RS_ARP_ANNOUNCEMENT && f->offset == RS_ARP_GRATUITOUS))
        return false;
    return rs_value_set_uint(out, RS_FT_BOOLEAN, 1);
}

/* "Address Resolution Protocol (request)" */
static size_t
arp_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
          char *buf, size_t size)
{
    enum rs_arp_kind kind;
    const char *op = rs_arp_kind(pkt, &kind);

    (void)f;
    (void)v;
    if (op != NULL)
        return (size_t)snprintf(buf, size, "Address Resolution Protocol (%s)", op);
    return (size_t)snprintf(buf, size, "Address Resolution Protocol (opcode 0x%04x)",
                            rs_load_be16(rs_packet_at(pkt, RS_LAYER_ARP) + 6));
}

static const struct rs_value_string true_false_vals[] = {{0, "False"}, {1, "True"}, {0, NULL}};

#define ARP_ADDR(abbrev, name, type, which, known) \
    {abbrev, name, type, RS_BASE_NONE, 0, NULL, name, RS_LAYER_ARP, which, known, get_arp_addr, 1}
#define ARP_KIND(abbrev, name, kind) \
    {abbrev, name, RS_FT_BOOLEAN, RS_BASE_NONE, 0, true_false_vals, name, RS_LAYER_ARP, kind, 0, \
     get_arp_kind, 1, RS_FIELD_GENERATED | RS_FIELD_NO_BYTES, .locate = rs_locate_layer_start}

const struct rs_field rs_fields_arp[] = {
    {"arp", "Address Resolution Protocol", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "Address Resolution Protocol", RS_LAYER_ARP, 0, 0, NULL, 0, 0, .label = arp_label},
    {"arp.hw.type", "Hardware type", RS_FT_UINT16, RS_BASE_DEC, 0, rs_arp_hw_type_vals,
     "Link type of the hardware addresses", RS_LAYER_ARP, 0, 2, NULL, 1},
    {"arp.proto.type", "Protocol type", RS_FT_UINT16, RS_BASE_HEX, 0, rs_etype_vals,
     "Ethertype of the protocol addresses", RS_LAYER_ARP, 2, 2, NULL, 1},
    {"arp.hw.size", "Hardware size", RS_FT_UINT8, RS_BASE_DEC, 0, NULL,
     "Length of a hardware address", RS_LAYER_ARP, 4, 1, NULL, 1},
    {"arp.proto.size", "Protocol size", RS_FT_UINT8, RS_BASE_DEC, 0, NULL,
     "Length of a protocol address", RS_LAYER_ARP, 5, 1, NULL, 1},
    {"arp.opcode", "Opcode", RS_FT_UINT16, RS_BASE_DEC, 0, rs_arp_opcode_vals,
     "Request or reply", RS_LAYER_ARP, 6, 2, NULL, 1},
    ARP_KIND("arp.isgratuitous", "Is gratuitous", RS_ARP_GRATUITOUS),
    ARP_KIND("arp.isprobe", "Is probe", RS_ARP_PROBE),
    ARP_KIND("arp.isannouncement", "Is announcement", RS_ARP_ANNOUNCEMENT),
    ARP_ADDR("arp.src.hw_mac", "Sender MAC address", RS_FT_ETHER, 0, 1),
    ARP_ADDR("arp.src.hw", "Sender hardware address", RS_FT_BYTES, 0, 0),
    ARP_ADDR("arp.src.proto_ipv4", "Sender IP address", RS_FT_IPV4, 1, 1),
    ARP_ADDR("arp.src.proto", "Sender protocol address", RS_FT_BYTES, 1, 0),
    ARP_ADDR("arp.dst.hw_mac", "Target MAC address", RS_FT_ETHER, 2, 1),
    ARP_ADDR("arp.dst.hw", "Target hardware address", RS_FT_BYTES, 2, 0),
    ARP_ADDR("arp.dst.proto_ipv4", "Target IP address", RS_FT_IPV4, 3, 1),
    ARP_ADDR("arp.dst.proto", "Target protocol address", RS_FT_BYTES, 3, 0),
    RS_F_END,
};
