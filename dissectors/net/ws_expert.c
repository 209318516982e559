/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ws_expert.c - Wireshark's expert items on Ethernet and TCP (expert.h): which frames
 * carry each, its message, and the five lines tshark's tree shows for one under the item
 * it concerns:
 *
 *   [Expert Info (Chat/Sequence): Connection finish (FIN)]      _ws.expert
 *       [Connection finish (FIN)]                               tcp.connection.fin
 *       (hidden) Message: Connection finish (FIN)               _ws.expert.message
 *       [Severity level: Chat]                                  _ws.expert.severity
 *       [Group: Sequence]                                       _ws.expert.group
 *
 * A table declares them where they go with RS_F_WS_EXPERT (fields_int.h); the offset
 * column of each line is the kind.
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/expert.h>
#include <roceshark/dissectors/streams.h>
#include <roceshark/dissectors/wire.h>

#include "fields/fields_int.h"
#include "net/net_int.h"

const struct rs_ws_expert rs_ws_experts[RS_WSX_COUNT] = {
    [RS_WSX_ETH_PADDING_BAD] = {"eth.padding_bad", "Ethertype", RS_WS_NOTE, RS_WS_PROTOCOL},
    [RS_WSX_TCP_SYN] = {"tcp.connection.syn", "TCP", RS_WS_CHAT, RS_WS_SEQUENCE},
    [RS_WSX_TCP_SYNACK] = {"tcp.connection.synack", "TCP", RS_WS_CHAT, RS_WS_SEQUENCE},
    [RS_WSX_TCP_FIN] = {"tcp.connection.fin", "TCP", RS_WS_CHAT, RS_WS_SEQUENCE},
    [RS_WSX_TCP_FIN_ACTIVE] = {"tcp.connection.fin_active", "TCP", RS_WS_NOTE, RS_WS_SEQUENCE},
    [RS_WSX_TCP_FIN_PASSIVE] = {"tcp.connection.fin_passive", "TCP", RS_WS_NOTE,
                                RS_WS_SEQUENCE},
    [RS_WSX_TCP_RST] = {"tcp.connection.rst", "TCP", RS_WS_WARN, RS_WS_SEQUENCE},
    [RS_WSX_TCP_ACK_NONZERO] = {"tcp.ack.nonzero", "TCP", RS_WS_NOTE, RS_WS_PROTOCOL},
    [RS_WSX_TCP_URGENT_NONZERO] = {"tcp.urgent_pointer.non_zero", "TCP", RS_WS_NOTE,
                                   RS_WS_PROTOCOL},
    [RS_WSX_TCP_MSS_ABSENT] = {"tcp.options.mss.absent", "TCP", RS_WS_NOTE, RS_WS_PROTOCOL},
    [RS_WSX_TCP_MSS_PRESENT] = {"tcp.options.mss.present", "TCP", RS_WS_WARN, RS_WS_PROTOCOL},
    [RS_WSX_TCP_DSACK] = {"tcp.options.sack.dsack", "TCP", RS_WS_WARN, RS_WS_SEQUENCE},
    [RS_WSX_TCP_SHORT_SEGMENT] = {"tcp.short_segment", "TCP", RS_WS_WARN, RS_WS_MALFORMED},
    [RS_WSX_TCP_REUSED_PORTS] = {"tcp.analysis.reused_ports", "TCP", RS_WS_NOTE,
                                 RS_WS_SEQUENCE},
    [RS_WSX_TCP_RETRANSMISSION] = {"tcp.analysis.retransmission", "TCP", RS_WS_NOTE,
                                   RS_WS_SEQUENCE},
    [RS_WSX_TCP_FAST_RETRANSMISSION] = {"tcp.analysis.fast_retransmission", "TCP", RS_WS_NOTE,
                                        RS_WS_SEQUENCE},
    [RS_WSX_TCP_RETRANSMISSION_FAST] = {"tcp.analysis.retransmission", "TCP", RS_WS_NOTE,
                                        RS_WS_SEQUENCE},
    [RS_WSX_TCP_SPURIOUS_RETRANSMISSION] = {"tcp.analysis.spurious_retransmission", "TCP",
                                            RS_WS_NOTE, RS_WS_SEQUENCE},
    [RS_WSX_TCP_RETRANSMISSION_SPURIOUS] = {"tcp.analysis.retransmission", "TCP", RS_WS_NOTE,
                                            RS_WS_SEQUENCE},
    [RS_WSX_TCP_OUT_OF_ORDER] = {"tcp.analysis.out_of_order", "TCP", RS_WS_WARN,
                                 RS_WS_SEQUENCE},
    [RS_WSX_TCP_LOST_SEGMENT] = {"tcp.analysis.lost_segment", "TCP", RS_WS_WARN,
                                 RS_WS_SEQUENCE},
    [RS_WSX_TCP_ACK_LOST_SEGMENT] = {"tcp.analysis.ack_lost_segment", "TCP", RS_WS_WARN,
                                     RS_WS_SEQUENCE},
    [RS_WSX_TCP_WINDOW_UPDATE] = {"tcp.analysis.window_update", "TCP", RS_WS_CHAT,
                                  RS_WS_SEQUENCE},
    [RS_WSX_TCP_WINDOW_FULL] = {"tcp.analysis.window_full", "TCP", RS_WS_WARN, RS_WS_SEQUENCE},
    [RS_WSX_TCP_KEEP_ALIVE] = {"tcp.analysis.keep_alive", "TCP", RS_WS_NOTE, RS_WS_SEQUENCE},
    [RS_WSX_TCP_KEEP_ALIVE_ACK] = {"tcp.analysis.keep_alive_ack", "TCP", RS_WS_NOTE,
                                   RS_WS_SEQUENCE},
    [RS_WSX_TCP_DUPLICATE_ACK] = {"tcp.analysis.duplicate_ack", "TCP", RS_WS_NOTE,
                                  RS_WS_SEQUENCE},
    [RS_WSX_TCP_ZERO_WINDOW_PROBE] = {"tcp.analysis.zero_window_probe", "TCP", RS_WS_NOTE,
                                      RS_WS_SEQUENCE},
    [RS_WSX_TCP_ZERO_WINDOW] = {"tcp.analysis.zero_window", "TCP", RS_WS_WARN, RS_WS_SEQUENCE},
    [RS_WSX_TCP_ZERO_WINDOW_PROBE_ACK] = {"tcp.analysis.zero_window_probe_ack", "TCP",
                                          RS_WS_NOTE, RS_WS_SEQUENCE},
    [RS_WSX_ICMPV6_OPT_LEN_ZERO] = {"icmpv6.invalid_option_length", "ICMPv6", RS_WS_ERROR,
                                    RS_WS_MALFORMED},
    [RS_WSX_ICMPV6_OPT_UNKNOWN_DATA] = {"icmpv6.unknown_data.expert", "ICMPv6", RS_WS_ERROR,
                                        RS_WS_MALFORMED},
    [RS_WSX_ICMPV6_OPT_UNDECODED] = {"icmpv6.undecoded.option", "ICMPv6", RS_WS_NOTE,
                                     RS_WS_UNDECODED},
    [RS_WSX_ICMPV6_UNKNOWN_DATA] = {"icmpv6.unknown_data.expert", "ICMPv6", RS_WS_ERROR,
                                    RS_WS_MALFORMED},
    [RS_WSX_IP_BOGUS_LENGTH] = {"ip.bogus_ip_length", "IPv4", RS_WS_ERROR, RS_WS_PROTOCOL},
    [RS_WSX_IP_TTL_TOO_SMALL] = {"ip.ttl.too_small", "IPv4", RS_WS_NOTE, RS_WS_SEQUENCE},
    [RS_WSX_IP_TTL_LNCB] = {"ip.ttl.lncb", "IPv4", RS_WS_NOTE, RS_WS_SEQUENCE},
    [RS_WSX_IPV6_PLEN_EXCEEDS] = {"ipv6.plen_exceeds_framing", "IPv6", RS_WS_WARN,
                                  RS_WS_PROTOCOL},
    [RS_WSX_UDP_LENGTH_BAD] = {"udp.length.bad", "UDP", RS_WS_ERROR, RS_WS_MALFORMED},
    /* -z expert names the protocol that stopped (stats_expert_ws.c) */
    [RS_WSX_MALFORMED] = {"_ws.malformed.expert", "", RS_WS_ERROR, RS_WS_MALFORMED},
};

const struct rs_value_string rs_ws_severity_vals[] = {
    {RS_WS_ERROR, "Error"}, {RS_WS_WARN, "Warning"}, {RS_WS_NOTE, "Note"},
    {RS_WS_CHAT, "Chat"},   {0x00100000, "Comment"}, {0, NULL},
};

const struct rs_value_string rs_ws_group_vals[] = {
    {0x01000000, "Checksum"},   {RS_WS_SEQUENCE, "Sequence"}, {0x03000000, "Response"},
    {0x04000000, "Request"},    {RS_WS_UNDECODED, "Undecoded"},    {0x06000000, "Reassemble"},
    {RS_WS_MALFORMED, "Malformed"}, {0x08000000, "Debug"},    {RS_WS_PROTOCOL, "Protocol"},
    {0x0a000000, "Security"},   {0x0b000000, "Comment"},      {0x0c000000, "Decryption"},
    {0x0d000000, "Assumption"}, {0x0e000000, "Deprecated"},   {0, NULL},
};

const char *
rs_ws_severity_name(uint32_t severity)
{
    const char *name = rs_value_name(rs_ws_severity_vals, severity);
    return name != NULL ? name : "Unknown";
}

const char *
rs_ws_group_name(uint32_t group)
{
    const char *name = rs_value_name(rs_ws_group_vals, group);
    return name != NULL ? name : "Unknown";
}

bool
rs_ws_expert_present(const struct rs_packet *pkt, enum rs_ws_expert_kind kind)
{
    if (kind == RS_WSX_ETH_PADDING_BAD)
        return eth_padding_bad(pkt);
    if (kind == RS_WSX_ICMPV6_OPT_LEN_ZERO || kind == RS_WSX_ICMPV6_OPT_UNDECODED ||
        kind == RS_WSX_ICMPV6_OPT_UNKNOWN_DATA)
        return icmpv6_expert_count(pkt, kind) > 0;
    if (kind == RS_WSX_MALFORMED)
        return rs_ws_malformed(pkt);
    if (kind == RS_WSX_ICMPV6_UNKNOWN_DATA)
        return icmpv6_unknown_data_at(pkt) != 0;
    if (kind == RS_WSX_IP_BOGUS_LENGTH)
        return ipv4_bogus_length(pkt) != 0;
    if (kind == RS_WSX_IPV6_PLEN_EXCEEDS)
        return ipv6_plen_exceeds(pkt, NULL);
    if (kind == RS_WSX_UDP_LENGTH_BAD)
        return udp_length_bad(pkt, NULL);
    if (kind == RS_WSX_IP_TTL_TOO_SMALL)
        return ipv4_ttl_too_small(pkt);
    if (kind == RS_WSX_IP_TTL_LNCB)
        return ipv4_ttl_lncb(pkt) != 0;
    return kind < RS_WSX_COUNT && tcp_expert_present(pkt, kind);
}

unsigned
rs_ws_expert_count(const struct rs_packet *pkt, enum rs_ws_expert_kind kind)
{
    if (kind == RS_WSX_ETH_PADDING_BAD)
        return eth_padding_bad(pkt) ? 1 : 0;
    if (kind == RS_WSX_ICMPV6_OPT_LEN_ZERO || kind == RS_WSX_ICMPV6_OPT_UNDECODED ||
        kind == RS_WSX_ICMPV6_OPT_UNKNOWN_DATA)
        return icmpv6_expert_count(pkt, kind);
    if (kind == RS_WSX_MALFORMED)
        return rs_ws_malformed(pkt) ? 1 : 0;
    if (kind == RS_WSX_ICMPV6_UNKNOWN_DATA)
        return icmpv6_unknown_data_at(pkt) != 0 ? 1 : 0;
    if (kind == RS_WSX_IP_BOGUS_LENGTH)
        return ipv4_bogus_length(pkt) != 0 ? 1 : 0;
    if (kind == RS_WSX_IPV6_PLEN_EXCEEDS)
        return ipv6_plen_exceeds(pkt, NULL) ? 1 : 0;
    if (kind == RS_WSX_UDP_LENGTH_BAD)
        return udp_length_bad(pkt, NULL) ? 1 : 0;
    if (kind == RS_WSX_IP_TTL_TOO_SMALL)
        return ipv4_ttl_too_small(pkt) ? 1 : 0;
    if (kind == RS_WSX_IP_TTL_LNCB)
        return ipv4_ttl_lncb(pkt) != 0 ? 1 : 0;
    return kind < RS_WSX_COUNT ? tcp_expert_count(pkt, kind) : 0;
}

size_t
rs_ws_expert_message(const struct rs_packet *pkt, enum rs_ws_expert_kind kind, char *buf,
                     size_t size)
{
    static const char *const fixed[RS_WSX_COUNT] = {
        [RS_WSX_ETH_PADDING_BAD] = "Didn't find padding of zeros, and an undecoded trailer "
                                   "exists. There may be padding of non-zeros.",
        [RS_WSX_TCP_FIN] = "Connection finish (FIN)",
        [RS_WSX_TCP_FIN_ACTIVE] = "This frame initiates the connection closing",
        [RS_WSX_TCP_FIN_PASSIVE] = "This frame undergoes the connection closing",
        [RS_WSX_TCP_RST] = "Connection reset (RST)",
        [RS_WSX_TCP_ACK_NONZERO] = "The acknowledgment number field is nonzero while the ACK "
                                   "flag is not set",
        [RS_WSX_TCP_URGENT_NONZERO] = "The urgent pointer field is nonzero while the URG flag "
                                      "is not set",
        [RS_WSX_TCP_MSS_ABSENT] = "The SYN packet does not contain a MSS option",
        [RS_WSX_TCP_MSS_PRESENT] = "The non-SYN packet does contain a MSS option",
        [RS_WSX_TCP_DSACK] = "D-SACK Sequence",
        [RS_WSX_TCP_SHORT_SEGMENT] = "Short segment. Segment/fragment does not contain a full "
                                     "TCP header (might be NMAP or someone else deliberately "
                                     "sending unusual packets)",
        [RS_WSX_TCP_REUSED_PORTS] = "A new tcp session is started with the same ports as an "
                                    "earlier session in this trace",
        [RS_WSX_TCP_RETRANSMISSION] = "This frame is a (suspected) retransmission",
        [RS_WSX_TCP_FAST_RETRANSMISSION] = "This frame is a (suspected) fast retransmission",
        [RS_WSX_TCP_RETRANSMISSION_FAST] = "This frame is a (suspected) retransmission",
        [RS_WSX_TCP_SPURIOUS_RETRANSMISSION] = "This frame is a (suspected) spurious "
                                               "retransmission",
        [RS_WSX_TCP_RETRANSMISSION_SPURIOUS] = "This frame is a (suspected) retransmission",
        [RS_WSX_TCP_OUT_OF_ORDER] = "This frame is a (suspected) out-of-order segment",
        [RS_WSX_TCP_LOST_SEGMENT] = "Previous segment(s) not captured (common at capture "
                                    "start)",
        [RS_WSX_TCP_ACK_LOST_SEGMENT] = "ACKed segment that wasn't captured (common at capture "
                                        "start)",
        [RS_WSX_TCP_WINDOW_UPDATE] = "TCP window update",
        [RS_WSX_TCP_WINDOW_FULL] = "TCP window specified by the receiver is now completely "
                                   "full",
        [RS_WSX_TCP_KEEP_ALIVE] = "TCP keep-alive segment",
        [RS_WSX_TCP_KEEP_ALIVE_ACK] = "ACK to a TCP keep-alive segment",
        [RS_WSX_TCP_ZERO_WINDOW_PROBE] = "TCP Zero Window Probe",
        [RS_WSX_TCP_ZERO_WINDOW] = "TCP Zero Window segment",
        [RS_WSX_TCP_ZERO_WINDOW_PROBE_ACK] = "ACK to a TCP Zero Window Probe",
        [RS_WSX_ICMPV6_OPT_UNKNOWN_DATA] = "Unknown Data (not interpreted)",
        [RS_WSX_MALFORMED] = "Malformed Packet (Exception occurred)",
        [RS_WSX_ICMPV6_UNKNOWN_DATA] = "Unknown Data (not interpreted)",
    };
    const uint8_t *t = rs_packet_has_fields_of(pkt, RS_LAYER_TCP) ? rs_packet_at(pkt, RS_LAYER_TCP) : NULL;

    if (kind == RS_WSX_TCP_SYN && t != NULL)
        return (size_t)snprintf(buf, size, "Connection establish request (SYN): server port %u",
                                rs_load_be16(t + 2));
    if (kind == RS_WSX_TCP_SYNACK && t != NULL)
        return (size_t)snprintf(buf, size, "Connection establish acknowledge (SYN+ACK): "
                                "server port %u", rs_load_be16(t));
    if (kind == RS_WSX_ICMPV6_OPT_LEN_ZERO)
        return (size_t)snprintf(buf, size, "%s", icmpv6_invalid_length_message(pkt));
    if (kind == RS_WSX_ICMPV6_OPT_UNDECODED)
        return (size_t)snprintf(buf, size, "Dissector for ICMPv6 Option (%u) code not "
                                "implemented, Contact Wireshark developers if you want this "
                                "supported", icmpv6_expert_option_type(pkt, kind));
    if (kind == RS_WSX_IP_BOGUS_LENGTH)
        return (size_t)snprintf(buf, size, "IPv4 total length exceeds packet length (%u bytes)",
                                ipv4_bogus_length(pkt));
    uint32_t framing = 0;
    if (kind == RS_WSX_IPV6_PLEN_EXCEEDS && ipv6_plen_exceeds(pkt, &framing))
        return (size_t)snprintf(buf, size, "IPv6 payload length exceeds framing length (%u "
                                "bytes)", framing);
    if (kind == RS_WSX_IP_TTL_TOO_SMALL && ipv4_ttl_too_small(pkt))
        return (size_t)snprintf(buf, size, "\"Time To Live\" only %u",
                                rs_packet_at(pkt, RS_LAYER_IPV4)[8]);
    if (kind == RS_WSX_IP_TTL_LNCB && ipv4_ttl_lncb(pkt) != 0)
        return (size_t)snprintf(buf, size, "\"Time To Live\" != %u for a packet sent to the "
                                "Local Network Control Block (see RFC 3171)",
                                ipv4_ttl_lncb(pkt));
    if (kind == RS_WSX_UDP_LENGTH_BAD && udp_length_bad(pkt, NULL))
        return (size_t)snprintf(buf, size, "Bad length value %u > IP payload length",
                                rs_load_be16(rs_packet_at(pkt, RS_LAYER_UDP) + 4));
    if (kind == RS_WSX_TCP_DUPLICATE_ACK && pkt->stream != NULL)
        return (size_t)snprintf(buf, size, "Duplicate ACK (#%u)",
                                pkt->stream->analysis.dupack_num);
    return (size_t)snprintf(buf, size, "%s", kind < RS_WSX_COUNT && fixed[kind] != NULL
                                                 ? fixed[kind] : "");
}

/* The five lines: which one the field is, from its name. */
enum line { L_EXPERT, L_ITEM, L_MESSAGE, L_SEVERITY, L_GROUP };

static enum line
line_of(const struct rs_field *f)
{
    if (strcmp(f->abbrev, "_ws.expert") == 0)
        return L_EXPERT;
    if (strcmp(f->abbrev, "_ws.expert.message") == 0)
        return L_MESSAGE;
    if (strcmp(f->abbrev, "_ws.expert.severity") == 0)
        return L_SEVERITY;
    if (strcmp(f->abbrev, "_ws.expert.group") == 0)
        return L_GROUP;
    return L_ITEM;
}

bool
rs_ws_expert_get(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    static _Thread_local char message[256];
    enum rs_ws_expert_kind kind = (enum rs_ws_expert_kind)f->offset;

    if (occ != 0 || kind >= RS_WSX_COUNT || !rs_ws_expert_present(pkt, kind))
        return false;
    out->type = f->type;
    switch (line_of(f)) {
    case L_MESSAGE:
        rs_ws_expert_message(pkt, kind, message, sizeof(message));
        out->v.str = message;
        break;
    case L_SEVERITY:
        out->v.u = rs_ws_experts[kind].severity;
        break;
    case L_GROUP:
        out->v.u = rs_ws_experts[kind].group;
        break;
    default:
        out->v.u = 0;
        out->v.bytes.ptr = NULL;
        break;
    }
    return true;
}

size_t
rs_ws_expert_label(const struct rs_packet *pkt, const struct rs_field *f,
                   const struct rs_value *v, char *buf, size_t size)
{
    enum rs_ws_expert_kind kind = (enum rs_ws_expert_kind)f->offset;
    char message[256];

    rs_ws_expert_message(pkt, kind, message, sizeof(message));
    switch (line_of(f)) {
    case L_EXPERT:
        return (size_t)snprintf(buf, size, "Expert Info (%s/%s): %s",
                                rs_ws_severity_name(rs_ws_experts[kind].severity),
                                rs_ws_group_name(rs_ws_experts[kind].group), message);
    case L_ITEM:
        return (size_t)snprintf(buf, size, "%s", message);
    case L_SEVERITY:
        return (size_t)snprintf(buf, size, "Severity level: %s", rs_ws_severity_name(v->v.u));
    case L_GROUP:
        return (size_t)snprintf(buf, size, "Group: %s", rs_ws_group_name(v->v.u));
    default:
        return 0;
    }
}

bool
rs_ws_expert_locate(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                    uint32_t *offset, uint32_t *length)
{
    enum rs_ws_expert_kind kind = (enum rs_ws_expert_kind)f->offset;

    (void)occ;
    *offset = *length = 0;
    if (line_of(f) != L_EXPERT || kind >= RS_WSX_COUNT)
        return true;
    *offset = kind == RS_WSX_MALFORMED             ? rs_ws_malformed_at(pkt)
              : kind == RS_WSX_ICMPV6_UNKNOWN_DATA ? icmpv6_unknown_data_at(pkt)
              : kind == RS_WSX_ETH_PADDING_BAD ? eth_trailer_start(pkt)
              : kind == RS_WSX_IP_BOGUS_LENGTH ? pkt->span[RS_LAYER_IPV4].off + 2
              : kind == RS_WSX_IPV6_PLEN_EXCEEDS ? pkt->span[RS_LAYER_IPV6].off + 4
              : kind == RS_WSX_UDP_LENGTH_BAD ? pkt->span[RS_LAYER_UDP].off + 4
              : kind == RS_WSX_IP_TTL_TOO_SMALL || kind == RS_WSX_IP_TTL_LNCB
                  ? pkt->span[RS_LAYER_IPV4].off + 8
              : kind == RS_WSX_ICMPV6_OPT_LEN_ZERO || kind == RS_WSX_ICMPV6_OPT_UNDECODED ||
                        kind == RS_WSX_ICMPV6_OPT_UNKNOWN_DATA
                  ? icmpv6_expert_anchor(pkt, kind)
                  : tcp_expert_anchor(pkt, kind);
    return true;
}
