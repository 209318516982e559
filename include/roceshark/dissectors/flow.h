/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flow.h - a TCP or UDP conversation's key, the same for both directions,
 * and where the IP header says a packet ends. The stages that follow
 * conversations (streams, iWARP) share them.
 */
#ifndef ROCESHARK_FLOW_H
#define ROCESHARK_FLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <roceshark/dissectors/packet.h>

/* The lower endpoint (address, then port) is side 0. Zeroed before it is
 * filled, so it hashes and compares as bytes. */
struct rs_flow_key {
    uint8_t family;         /* 4 or 6 */
    uint8_t proto;          /* 6 TCP, 17 UDP */
    uint16_t port[2];
    uint8_t addr[2][16];
};

/* The key of the TCP or UDP packet pkt, and which side of it sent pkt;
 * false when pkt has neither header or no IP header. */
bool rs_flow_key_of(const struct rs_packet *pkt, struct rs_flow_key *key, int *side);

/* Fills key's family and addresses from pkt's IP header, the lower address
 * first (the ports sport and dport break a tie), for keys of other
 * protocols too; returns the side pkt's sender is on, or -1 without IP. */
int rs_flow_key_addresses(const struct rs_packet *pkt, struct rs_flow_key *key, uint16_t sport,
                          uint16_t dport);

uint32_t rs_flow_key_hash(const struct rs_flow_key *key);

/* For the tables of the stages that follow conversations (tcp.stream's, the
 * iWARP connections), which index their entries with include/roceshark/dissectors/ptr_index.h:
 * the key's hash as the index takes it, and the index's match for an entry whose
 * first member is its struct rs_flow_key. */
uint32_t rs_flow_key_index_hash(const struct rs_flow_key *key);
static inline bool
rs_flow_key_entry_match(const void *entry, const void *key)
{
    return memcmp(entry, key, sizeof(struct rs_flow_key)) == 0;     /* inline in the probe */
}

/* Offset where the IP header says the packet ends: it may lie past caplen,
 * or before the frame's end when the link pads it. 0 without IP. */
uint32_t rs_packet_ip_end(const struct rs_packet *pkt);

/* Whether a UDP or TCP header was where the IP packet says and too short to decode whole:
 * tshark names the protocol it called (frame.protocols) and shows its header as far as it
 * goes (its ports, RS_PKT_L4_PART), the Info column having no text of IP's. */
bool rs_packet_l4_stopped(const struct rs_packet *pkt);

/* A TCP segment's payload: its length as the IP header gives it (tshark's
 * tcp.len, which counts bytes not captured), and its bytes as far as
 * captured (false when none were). */
uint32_t rs_tcp_payload_len(const struct rs_packet *pkt);
bool rs_tcp_payload(const struct rs_packet *pkt, struct rs_span *out);

/* The bytes no protocol we decode takes, which Wireshark shows as "data":
 * a UDP payload that is not RoCEv2, a TCP payload that is not iWARP's, an IB
 * payload with its pad (not a MAD's, nor IPoIB's), an ICMP echo's after its
 * header, as far as captured; and over iWARP, one occurrence per FPDU that
 * hands bytes on (rs_iwarp_pdu_data), in stream order. Occurrence occ; false
 * when there is none. The bytes lie in the frame, except a reassembled
 * Send's. */
bool rs_packet_data(const struct rs_packet *pkt, unsigned occ, const uint8_t **data,
                    uint32_t *len);

#endif /* ROCESHARK_FLOW_H */
