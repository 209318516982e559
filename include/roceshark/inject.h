/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inject.h - packets described in words, built by the encoder that shares
 * the decoder's tables (encode.h), and sent.
 *
 * A packet spec is a line of FIELD=VALUE words named as Wireshark names the
 * fields, e.g.
 *
 *     ip.src=10.0.0.1 ip.dst=10.0.0.2 infiniband.bth.opcode=0x0a
 *     infiniband.bth.destqp=0x11 infiniband.bth.psn=100
 *     infiniband.reth.va=0x1000 infiniband.reth.r_key=0x55 payload=len:64
 *
 * Numbers are decimal or 0x hex; the opcode also takes its name ("RC RDMA
 * Write Only"); payload is hex bytes (payload=0a0b0c) or len:N (N bytes of a
 * counting pattern); icrc=bad sends a wrong ICRC on purpose. Fields the
 * opcode does not carry are refused, so a spec never claims a header that
 * the packet lacks. A bad spec gets "<where>:<line>:<col>: <why>".
 */
#ifndef ROCESHARK_INJECT_H
#define ROCESHARK_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/common.h>
#include <roceshark/encode.h>

#define RS_INJECT_MAX_PAYLOAD 9000

struct rs_inject_packet {
    uint8_t eth_src[6], eth_dst[6];     /* the Ethernet header of files and raw sends */
    struct rs_roce_route route;
    struct rs_ib_fields f;
    uint8_t payload[RS_INJECT_MAX_PAYLOAD];
    uint32_t payload_len;
    bool bad_icrc;
    uint32_t given;                     /* which RS_INJECT_GAVE_* the spec set */
};

#define RS_INJECT_GAVE_OPCODE 0x1u
#define RS_INJECT_GAVE_DST 0x2u

/* Defaults: 10.0.0.1 -> 10.0.0.2, UDP 49152 -> 4791, DF, P_Key 0xffff, RC SEND Only,
 * destination QP 0x11, PSN 0, no payload. */
void rs_inject_packet_init(struct rs_inject_packet *p);

/* Applies the words of one spec line to p (which keeps what the line does not
 * set). where and line name the source for errors ("argv", a file name).
 * Returns 0, or RS_EINVAL with err "<where>:<line>:<col>: <why>". */
int rs_inject_spec_parse(struct rs_inject_packet *p, const char *text, const char *where,
                         unsigned line, char *err);

/* Builds p as an IP packet (eth false) or an Ethernet frame (eth true) into
 * buf of cap bytes. Returns the length, 0 when it does not fit. */
uint32_t rs_inject_build(const struct rs_inject_packet *p, bool eth, uint8_t *buf,
                         uint32_t cap);

/* --- Senders --- */

struct rs_inject_sender;

/* A pcap file of Ethernet frames ("-" for standard output), stamped with the
 * time each was sent. */
int rs_inject_open_file(const char *path, struct rs_inject_sender **out, char *err);
/* A UDP socket bound to first's source address and UDP port, sending to each
 * packet's destination address and port: the kernel writes the IP and UDP
 * headers, we the rest. The ICRC covers the IP identification, so packets
 * must have ip.id 0 and DF (what Linux sends unconnected DF datagrams with);
 * other packets are refused. Every packet must come from first's address and
 * port. */
int rs_inject_open_udp(const struct rs_inject_packet *first, struct rs_inject_sender **out,
                       char *err);
/* Sends one packet (over UDP it may wait in a batch of 64 until the batch is full
 * or rs_inject_flush()). RS_EINVAL when it cannot go this way, RS_EIO on a failed
 * write. */
int rs_inject_send(struct rs_inject_sender *s, const struct rs_inject_packet *p, char *err);
/* Sends what waits in the batch. */
int rs_inject_flush(struct rs_inject_sender *s, char *err);
/* Closes; *sent (may be NULL) gets the packets that went. Returns the error of
 * the last flush. Frees s. */
int rs_inject_close(struct rs_inject_sender *s, uint64_t *sent, char *err);

#endif /* ROCESHARK_INJECT_H */
