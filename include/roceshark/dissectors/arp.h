/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arp.h - an ARP message (RFC 826) as Wireshark reads it, for the tree and the Info
 * column: its kind, and its addresses as text.
 */
#ifndef ROCESHARK_ARP_H
#define ROCESHARK_ARP_H

#include <stddef.h>

#include <roceshark/dissectors/packet.h>

/* Wireshark's names for requests and replies whose sender and target protocol addresses
 * are the same (gratuitous; an announcement when the request names no target hardware
 * address), and for a request from the zero address to no one (a probe). */
enum rs_arp_kind { RS_ARP_PLAIN, RS_ARP_GRATUITOUS, RS_ARP_PROBE, RS_ARP_ANNOUNCEMENT };

/* The operation's name as the tree says it ("request", "reply/gratuitous ARP", "ARP
 * Probe"), or NULL for an opcode Wireshark does not name; *kind is set either way. The
 * packet must have RS_LAYER_ARP. */
const char *rs_arp_kind(const struct rs_packet *pkt, enum rs_arp_kind *kind);

/* Address which (0 sender hardware, 1 sender protocol, 2 target hardware, 3 target
 * protocol) as Wireshark's Info writes it: an Ethernet address or an IPv4 address as
 * such, others in hex. */
void rs_arp_address_text(const struct rs_packet *pkt, unsigned which, char *buf, size_t size);

#endif /* ROCESHARK_ARP_H */
