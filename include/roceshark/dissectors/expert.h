/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * expert.h - expert information: every anomaly a frame shows, with a
 * filterable field, a group and a severity, as Wireshark's expert infos.
 * The Wireshark plugin maps these one to one; -z expert counts them.
 */
#ifndef ROCESHARK_EXPERT_H
#define ROCESHARK_EXPERT_H

#include <stdbool.h>
#include <stddef.h>

#include <roceshark/dissectors/packet.h>

enum rs_severity {
    RS_SEV_NOTE = 1,
    RS_SEV_WARN = 2,
    RS_SEV_ERROR = 3
};

struct rs_expert {
    const char *field;      /* the field that carries the fact */
    const char *group;      /* "Checksum", "Sequence", "Protocol", "Response", ... */
    uint8_t severity;       /* enum rs_severity */
    const char *summary;    /* "Bad ICRC", "PSN gap", ... */
    /* What it means and where to look next, for someone who meets it in Wireshark's
     * Expert Information (the help text of its roceshark.expert.* field). */
    const char *help;
};

/* Most kinds rs_experts[] may hold: tables indexed like it are this long. */
#define RS_EXPERT_MAX_KINDS 32

/* All kinds of expert information, ending with {NULL}. */
extern const struct rs_expert rs_experts[];

/* Calls fn for every expert item pkt carries. */
void rs_expert_foreach(const struct rs_packet *pkt,
                       void (*fn)(void *ctx, const struct rs_expert *e), void *ctx);

const char *rs_severity_name(uint8_t severity);

/* Wireshark's own expert items on the protocols we dissect as it does (Ethernet, TCP, a
 * malformed packet), in its words: shown in the tree where tshark shows them, under
 * _ws.expert, and counted by -z expert as tshark counts them. Severities and groups are
 * Wireshark's PI_* values, which its tree and JSON print. */
enum rs_ws_severity {
    RS_WS_CHAT = 0x00200000,
    RS_WS_NOTE = 0x00400000,
    RS_WS_WARN = 0x00600000,
    RS_WS_ERROR = 0x00800000
};

enum rs_ws_group {
    RS_WS_SEQUENCE = 0x02000000,
    RS_WS_UNDECODED = 0x05000000,
    RS_WS_MALFORMED = 0x07000000,
    RS_WS_PROTOCOL = 0x09000000
};

enum rs_ws_expert_kind {
    RS_WSX_ETH_PADDING_BAD,
    RS_WSX_TCP_SYN,
    RS_WSX_TCP_SYNACK,
    RS_WSX_TCP_FIN,
    RS_WSX_TCP_FIN_ACTIVE,
    RS_WSX_TCP_FIN_PASSIVE,
    RS_WSX_TCP_RST,
    RS_WSX_TCP_ACK_NONZERO,
    RS_WSX_TCP_URGENT_NONZERO,
    RS_WSX_TCP_MSS_ABSENT,
    RS_WSX_TCP_MSS_PRESENT,
    RS_WSX_TCP_DSACK,
    RS_WSX_TCP_SHORT_SEGMENT,   /* a header cut short past its window (rs_packet_tcp_cut) */
    /* the sequence analysis's, in the order tshark's tree shows them; a fast or
     * spurious retransmission is a retransmission too, shown after it */
    RS_WSX_TCP_REUSED_PORTS,
    RS_WSX_TCP_RETRANSMISSION,
    RS_WSX_TCP_FAST_RETRANSMISSION,
    RS_WSX_TCP_RETRANSMISSION_FAST,
    RS_WSX_TCP_SPURIOUS_RETRANSMISSION,
    RS_WSX_TCP_RETRANSMISSION_SPURIOUS,
    RS_WSX_TCP_OUT_OF_ORDER,
    RS_WSX_TCP_LOST_SEGMENT,
    RS_WSX_TCP_ACK_LOST_SEGMENT,
    RS_WSX_TCP_WINDOW_UPDATE,
    RS_WSX_TCP_WINDOW_FULL,
    RS_WSX_TCP_KEEP_ALIVE,
    RS_WSX_TCP_KEEP_ALIVE_ACK,
    RS_WSX_TCP_DUPLICATE_ACK,
    RS_WSX_TCP_ZERO_WINDOW_PROBE,
    RS_WSX_TCP_ZERO_WINDOW,
    RS_WSX_TCP_ZERO_WINDOW_PROBE_ACK,
    /* a Neighbor Discovery option's (each option's: rs_ws_expert_present() asks of the
     * option pkt->item names) */
    RS_WSX_ICMPV6_OPT_LEN_ZERO,     /* a length of 0, or a route's of more than 24 octets */
    RS_WSX_ICMPV6_OPT_UNDECODED,
    RS_WSX_ICMPV6_OPT_UNKNOWN_DATA, /* a route's octets past 24 */
    /* the octets of a Redirected Header option past the packet it holds (its padding) */
    RS_WSX_ICMPV6_UNKNOWN_DATA,
    /* under an IPv4 header's total length, where it exceeds the bytes the frame has for
     * the packet (reported, not captured: a snapshot length does not raise it) */
    RS_WSX_IP_BOGUS_LENGTH,
    /* under an IPv4 header's TTL, where it is under 5 on a unicast packet (neither OSPF nor
     * PIM), a quoted one's too */
    RS_WSX_IP_TTL_TOO_SMALL,
    /* ... or where it is not the one a packet to the Local Network Control Block
     * (224.0.0.0/24) is sent with */
    RS_WSX_IP_TTL_LNCB,
    /* under an IPv6 header's payload length, where it exceeds the frame's bytes after the
     * header (reported, as the IPv4 one) */
    RS_WSX_IPV6_PLEN_EXCEEDS,
    /* under a UDP header's length, where it exceeds the IP payload's (reported) length */
    RS_WSX_UDP_LENGTH_BAD,
    /* under "[Malformed Packet: IB]", where tshark caught its dissector's exception */
    RS_WSX_MALFORMED,
    RS_WSX_COUNT
};

struct rs_ws_expert {
    const char *abbrev;         /* its filter field, "tcp.connection.syn" */
    const char *protocol;       /* the protocol column of -z expert, "TCP" */
    uint32_t severity;          /* enum rs_ws_severity */
    uint32_t group;             /* enum rs_ws_group */
};

extern const struct rs_ws_expert rs_ws_experts[RS_WSX_COUNT];

/* Whether pkt carries the item kind. */
bool rs_ws_expert_present(const struct rs_packet *pkt, enum rs_ws_expert_kind kind);
/* How many items of kind pkt carries, each option's counted (rs_ws_expert_present() asks
 * of the option pkt->item names): as many as -z expert counts. */
unsigned rs_ws_expert_count(const struct rs_packet *pkt, enum rs_ws_expert_kind kind);
/* Writes its message ("Connection establish request (SYN): server port 4791"); returns
 * the length, as snprintf. */
size_t rs_ws_expert_message(const struct rs_packet *pkt, enum rs_ws_expert_kind kind,
                            char *buf, size_t size);
/* How tshark shows a frame we flag (RS_PKT_MALFORMED): as malformed, "[Malformed Packet:
 * IB]" with its expert item, where a length contradicts another; or as cut short by the
 * capture, "[Packet size limited during capture: IB truncated]", where the snapshot length
 * ended it first (RS_PKT_CUT_FIRST). The protocol is the one tshark names for where it
 * stopped (rs_packet.stopped). */
bool rs_ws_malformed(const struct rs_packet *pkt);
bool rs_ws_cut_short(const struct rs_packet *pkt);
/* Where tshark's malformed item lies: where the link layer's payload starts, the data its
 * Ethertype dissector caught the exception of (0 without a link layer). */
uint32_t rs_ws_malformed_at(const struct rs_packet *pkt);
/* Whether tshark's frame.protocols names that item too: where no Ethertype dissector (of
 * Ethernet, VLAN or Linux cooked captures) caught the exception, as in an ERF record of
 * native InfiniBand, the frame's did, and counts it among the layers. */
bool rs_ws_malformed_layer(const struct rs_packet *pkt);
const char *rs_ws_severity_name(uint32_t severity);
const char *rs_ws_group_name(uint32_t group);

#endif /* ROCESHARK_EXPERT_H */
