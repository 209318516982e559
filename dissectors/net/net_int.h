/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * net_int.h - what the files of net/ share beyond the public headers: the facts
 * Wireshark's expert items on Ethernet and TCP are drawn from (ws_expert.c).
 */
#ifndef ROCESHARK_NET_INT_H
#define ROCESHARK_NET_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/expert.h>
#include <roceshark/packet.h>

/* An Ethernet frame's trailer (fields_eth.c): the offset where the bytes after what its
 * Ethertype's protocol takes start, and whether Wireshark would flag their padding. */
uint32_t eth_trailer_start(const struct rs_packet *pkt);
bool eth_padding_bad(const struct rs_packet *pkt);

/* The TCP items (fields_tcp.c). */
bool tcp_expert_present(const struct rs_packet *pkt, enum rs_ws_expert_kind kind);

#endif /* ROCESHARK_NET_INT_H */
