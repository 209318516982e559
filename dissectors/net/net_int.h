/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * net_int.h - what the files of net/ share beyond the public headers: the facts
 * Wireshark's expert items on Ethernet and TCP are drawn from (ws_expert.c).
 */
#ifndef ROCESHARK_NET_INT_H
#define ROCESHARK_NET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roceshark/dissectors/expert.h>
#include <roceshark/dissectors/packet.h>

/* An Ethernet frame's trailer (fields_eth.c): the offset where the bytes after what its
 * Ethertype's protocol takes start, and whether Wireshark would flag their padding. */
uint32_t eth_trailer_start(const struct rs_packet *pkt);
bool eth_padding_bad(const struct rs_packet *pkt);

/* What the streams stage gives the TCP and UDP fields (fields_l4.c): the offset column
 * of a field read with l4_get_stream() selects one of these. */
enum l4_stream_value { SV_INDEX, SV_LEN, SV_SEQ, SV_NXTSEQ, SV_ACK, SV_WINDOW, SV_SCALE, SV_REL,
                       SV_DELTA };
struct rs_field;
struct rs_value;
bool l4_get_stream(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                   struct rs_value *out);
/* "User Datagram Protocol, Src Port: 50208, Dst Port: 4791" */
size_t l4_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
                char *buf, size_t size);
size_t l4_port_label(const struct rs_packet *pkt, const struct rs_field *f,
                     const struct rs_value *v, char *buf, size_t size);
/* Whether the TCP header holds `bytes`: an ICMP error's quote may hold only the first 8. */
bool tcp_reaches(const struct rs_packet *pkt, uint32_t bytes);

/* ICMPv6 Neighbor Discovery's expert items (RS_WSX_ICMPV6_*): how many of kind the
 * options carry (the one option of pkt->item, if it names one), the type of the first
 * option that carries it, and where its item is shown (the option; its length octet). */
unsigned icmpv6_expert_count(const struct rs_packet *pkt, enum rs_ws_expert_kind kind);
unsigned icmpv6_expert_option_type(const struct rs_packet *pkt, enum rs_ws_expert_kind kind);
uint32_t icmpv6_expert_anchor(const struct rs_packet *pkt, enum rs_ws_expert_kind kind);
/* A _ws.malformed item's value (fields_malformed.c): a protocol with no bytes of its own,
 * occurrence 0 alone, where present. */
bool ws_item_without_bytes(bool present, unsigned occ, struct rs_value *out);
/* The message of the first RS_WSX_ICMPV6_OPT_LEN_ZERO item: a length of 0's, or a route's
 * of more than 24 octets (tshark 4.0's two texts). */
const char *icmpv6_invalid_length_message(const struct rs_packet *pkt);
/* Whether a Neighbor Discovery option of m declares more bytes than the message has, or
 * RDNSS servers that are no whole number of addresses (malformed, as tshark finds them). */
struct rs_icmp;
bool icmpv6_nd_options_overrun(const struct rs_icmp *m);
/* Where in the frame a redirect's Redirected Header option has octets past the packet it
 * holds, which tshark shows as Unknown Data (its padding to 8 octets); 0 where none. */
uint32_t icmpv6_unknown_data_at(const struct rs_packet *pkt);
/* The bytes the frame has for its IPv4 packet (tshark's reported length, from the
 * header's start), where the header's total length exceeds them; 0 otherwise, and in an
 * ICMP error's quote, which tshark does not check (fields_ip.c). */
uint32_t ipv4_bogus_length(const struct rs_packet *pkt);
/* Whether tshark notes an IPv4 header's TTL as too small (ip.ttl.too_small): under 5, to a
 * unicast address, carrying neither OSPF nor PIM (fields_ip.c). */
bool ipv4_ttl_too_small(const struct rs_packet *pkt);
/* The TTL tshark expects of an IPv4 packet to the Local Network Control Block
 * (224.0.0.0/24) whose TTL is another (ip.ttl.lncb), else 0 (fields_ip.c). */
unsigned ipv4_ttl_lncb(const struct rs_packet *pkt);
/* Whether an IPv6 header's payload length exceeds the bytes the frame has after it (not
 * in a quote, not a jumbogram's 0), and how many it has (framing) when not NULL. */
bool ipv6_plen_exceeds(const struct rs_packet *pkt, uint32_t *framing);
/* Whether a UDP header's length exceeds the IP payload's (reported) length, which tshark
 * flags (udp.length.bad) and reads on in the bytes there are; *payload the IP payload's
 * length (fields_l4.c). */
bool udp_length_bad(const struct rs_packet *pkt, uint32_t *payload);
/* The TCP items (fields_tcp.c). */
bool tcp_expert_present(const struct rs_packet *pkt, enum rs_ws_expert_kind kind);
/* How many items of kind pkt's TCP header raises: one per option for an option's. */
unsigned tcp_expert_count(const struct rs_packet *pkt, enum rs_ws_expert_kind kind);
/* Where the item's line sits: the start of what it hangs under. */
uint32_t tcp_expert_anchor(const struct rs_packet *pkt, enum rs_ws_expert_kind kind);

#endif /* ROCESHARK_NET_INT_H */
