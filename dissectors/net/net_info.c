/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * net_info.c - the Info column's text (info.h) of the network protocols this folder
 * decodes that end a frame: ARP in Wireshark's words, UDP's ports and length (as far as a
 * header cut short holds them).
 */
#include <roceshark/dissectors/arp.h>
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/info.h>
#include <roceshark/dissectors/wire.h>

#include "net/net_int.h"

/* Wireshark's words for an ARP message: "Who has 10.0.0.2? Tell 10.0.0.1", "10.0.0.2 is at
 * 02:00:00:00:00:02", and its names for gratuitous ARP, probes and announcements. */
void
rs_arp_write_info(struct rs_info *in, const struct rs_packet *pkt)
{
    enum rs_arp_kind kind;
    const char *op = rs_arp_kind(pkt, &kind);
    uint16_t opcode = rs_load_be16(rs_packet_at(pkt, RS_LAYER_ARP) + 6);
    char a[4][80];

    for (unsigned i = 0; i < 4; i++)
        rs_arp_address_text(pkt, i, a[i], sizeof(a[i]));
    if (op == NULL) {
        rs_info_hex(in, "Unknown ARP opcode 0x", opcode, 4);
        return;
    }
    switch (opcode) {
    case 1:
        if (kind == RS_ARP_ANNOUNCEMENT)
            rs_info_add(in, "ARP Announcement for %s", a[3]);
        else if (kind == RS_ARP_GRATUITOUS)
            rs_info_add(in, "Gratuitous ARP for %s (Request)", a[3]);
        else if (kind == RS_ARP_PROBE)
            rs_info_add(in, "Who has %s? (ARP Probe)", a[3]);
        else
            rs_info_add(in, "Who has %s? Tell %s", a[3], a[1]);
        break;
    case 2:
        if (kind == RS_ARP_GRATUITOUS)
            rs_info_add(in, "Gratuitous ARP for %s (Reply)", a[1]);
        else
            rs_info_add(in, "%s is at %s", a[1], a[0]);
        break;
    case 3:
    case 8:
        rs_info_add(in, "Who is %s? Tell %s", a[2], a[0]);
        break;
    case 4:
        rs_info_add(in, "%s is at %s", a[2], a[3]);
        break;
    default:
        rs_info_add(in, "%s is at %s", a[0], a[1]);
        break;
    }
}

void
rs_udp_write_info(struct rs_info *in, const struct rs_packet *pkt)
{
    const uint8_t *u = rs_packet_at(pkt, RS_LAYER_UDP);

    rs_info_ports(in, u, false);
    if (pkt->span[RS_LAYER_UDP].len < 6)
        return;     /* a header cut short after its ports (RS_PKT_L4_PART) */
    /* tshark's words for a length past the IP payload (ours: the Info's "[Malformed: ...]") */
    if (rs_display_get()->info_tshark && udp_length_bad(pkt, NULL)) {
        rs_info_dec(in, " [BAD UDP LENGTH ", rs_load_be16(u + 4));
        rs_info_str(in, " > IP PAYLOAD LENGTH]");
    }
    rs_info_dec(in, " Len=", rs_load_be16(u + 4) >= 8 ? rs_load_be16(u + 4) - 8u : 0u);
}
