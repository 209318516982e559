/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_l4.c - udp.*, tcp.* and data.* by Wireshark's names, in the order
 * of its tree. What is on the wire comes from the header; the stream index,
 * relative numbers and scaled window from the streams stage (streams.h),
 * and are absent when it did not run; tcp.len and tcp.payload from the IP
 * header's length.
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/info.h>
#include <roceshark/dissectors/port_names.h>
#include <roceshark/dissectors/streams.h>
#include <roceshark/dissectors/wire.h>

#include "fields/fields_int.h"
#include "net/net_int.h"

#define UTF8_MIDDLE_DOT "\xc2\xb7"
#define TCP_MIN_HDR_LEN 20u
#define TCP_QUOTE_DECODED 16u   /* a quote tshark decodes past its sequence number */

/* Whether the TCP header holds `bytes`: an ICMP error's quote may hold only
 * the first 8 (icmp_quote.c). */
bool
tcp_reaches(const struct rs_packet *pkt, uint32_t bytes)
{
    return rs_packet_has(pkt, RS_LAYER_TCP) && pkt->span[RS_LAYER_TCP].len >= bytes;
}


/* The offset column selects the value of the streams stage. */


/* A segment an ICMP error quotes, as Wireshark 4.0 shows it: its stream's
 * index (the streams stage's rs_stream_view.quote_index), and the sequence
 * number, acknowledgment and window as sent in place of the stream's values, with an
 * unknown scaling factor (none on a SYN). Its TCP dissector decodes a quote that reaches the window (16
 * bytes); short of that, the sequence number of 8 bytes of an IPv4 quote (RFC 792's),
 * nothing past the ports of an IPv6 one. */
static bool
get_quoted(const struct rs_packet *pkt, const struct rs_field *f, struct rs_value *out)
{
    const uint8_t *t = rs_packet_at(pkt, RS_LAYER_TCP);
    bool whole = tcp_reaches(pkt, TCP_QUOTE_DECODED);

    if (f->layer != RS_LAYER_TCP)
        return false;
    switch (f->offset) {
    case SV_INDEX:
        return pkt->stream != NULL && rs_value_set_uint(out, f->type, pkt->stream->index);
    case SV_SEQ:
        if (!whole && !(tcp_reaches(pkt, 8) && rs_packet_has(pkt, RS_LAYER_IPV4)))
            return false;
        return rs_value_set_uint(out, f->type, rs_load_be32(t + 4));
    case SV_ACK:
        return whole && rs_value_set_uint(out, f->type, rs_load_be32(t + 8));
    case SV_WINDOW:
        return whole && rs_value_set_uint(out, f->type, rs_load_be16(t + 14));
    case SV_SCALE:      /* no SYN seen: unknown; a SYN's own window is never scaled */
        return whole && !(t[13] & 0x02) &&
               rs_value_set_uint(out, f->type, (uint64_t)(int64_t)-1);
    default:
        return false;
    }
}


bool
l4_get_stream(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
           struct rs_value *out)
{
    const struct rs_stream_view *v = pkt->stream;
    bool tcp_field = f->layer == RS_LAYER_TCP;

    if (occ == 0 && (pkt->flags & RS_PKT_QUOTED) && rs_packet_has(pkt, RS_LAYER_TCP))
        return get_quoted(pkt, f, out);

    if (occ != 0 || v == NULL || v->tcp != tcp_field || !rs_packet_has(pkt, f->layer))
        return false;   /* an ICMP message's view is no UDP stream's */
    /* a header cut short: no length; no times before its fixed part is whole */
    if (v->cut && (f->offset == SV_LEN || f->offset == SV_NXTSEQ ||
                   ((f->offset == SV_REL || f->offset == SV_DELTA) && !tcp_reaches(pkt, 20))))
        return false;
    switch ((enum l4_stream_value)f->offset) {
    case SV_INDEX: return rs_value_set_uint(out, f->type, v->index);
    case SV_LEN: return rs_value_set_uint(out, f->type, v->len);
    case SV_SEQ: return rs_value_set_uint(out, f->type, v->seq);
    case SV_NXTSEQ: return rs_value_set_uint(out, f->type, v->nxtseq);
    case SV_ACK: return rs_value_set_uint(out, f->type, v->ack);
    case SV_WINDOW: return rs_value_set_uint(out, f->type, v->window);
    case SV_SCALE:
        /* a SYN's window is not scaled, and Wireshark shows no factor there */
        if (v->win_scale == 0)
            return false;
        return rs_value_set_uint(out, f->type, (uint64_t)(int64_t)v->win_scale);
    case SV_REL:
    case SV_DELTA:
        out->type = f->type;
        out->v.t = f->offset == SV_REL ? v->rel : v->delta;
        return true;
    }
    return false;
}




/* data, data.data and data.len: the bytes no protocol we know takes
 * (rs_packet_data), once per run of them. */
static bool
get_data(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out)
{
    const uint8_t *data;
    uint32_t len;

    if (!rs_packet_data(pkt, occ, &data, &len))
        return false;
    if (f->type != RS_FT_INT32) {       /* the bytes, of data and data.data */
        out->type = f->type;
        out->v.bytes.ptr = data;
        out->v.bytes.len = len;
        return true;
    }
    return rs_value_set_uint(out, f->type, len);
}

/* "User Datagram Protocol, Src Port: 50208, Dst Port: 4791", and the same for TCP
 * before what its own label adds. */
size_t
l4_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
         char *buf, size_t size)
{
    const uint8_t *h = rs_packet_at(pkt, (enum rs_layer)f->layer);
    bool tcp = f->layer == RS_LAYER_TCP;
    char src[RS_PORT_TEXT_MAX], dst[RS_PORT_TEXT_MAX];

    (void)v;
    rs_port_tree(tcp, rs_load_be16(h), src, sizeof(src));
    rs_port_tree(tcp, rs_load_be16(h + 2), dst, sizeof(dst));
    struct rs_info in = {buf, size, 0, 0};
    rs_info_str(&in, f->name);      /* without printf: each frame has one */
    rs_info_str(&in, ", Src Port: ");
    rs_info_str(&in, src);
    rs_info_str(&in, ", Dst Port: ");
    rs_info_str(&in, dst);
    return in.want;
}

/* "Destination Port: italk (12345)" with -N t (port_names.h); "Name: value" without. */
size_t
l4_port_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
              char *buf, size_t size)
{
    char port[RS_PORT_TEXT_MAX];

    (void)pkt;
    if (!rs_display_get()->resolve_transport)
        return 0;
    rs_port_tree(f->layer == RS_LAYER_TCP, (uint16_t)v->v.u, port, sizeof(port));
    return (size_t)snprintf(buf, size, "%s: %s", f->name, port);
}

/* A zero UDP checksum is "not present" over IPv4 (and in an ICMP error's quote), and
 * "illegal" over IPv6, as RFC 8200 makes it; tshark verifies no other. */
static bool
udp_zero_ignored(const struct rs_packet *pkt)
{
    return rs_packet_has(pkt, RS_LAYER_IPV4) || (pkt->flags & RS_PKT_QUOTED);
}

static size_t
show_udp_checksum(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    struct rs_info in = {buf, size, 0, 0};

    (void)f;
    rs_info_hex(&in, "0x", v->v.u, 4);
    rs_info_str(&in, v->v.u != 0 ? " [unverified]" : " [zero-value ignored]");
    return in.want;
}

/* The UDP checksum's status: offset 0 below a zero checksum (not present, or
 * illegal), 1 beside another (unverified). */
static bool
get_udp_checksum_status(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                        struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_UDP) || pkt->span[RS_LAYER_UDP].len < 8)
        return false;
    bool zero = rs_load_be16(rs_packet_at(pkt, RS_LAYER_UDP) + 6) == 0;
    if (zero != (f->offset == 0))
        return false;
    return rs_value_set_uint(out, f->type, !zero ? RS_CKSUM_UNVERIFIED
                                           : udp_zero_ignored(pkt) ? RS_CKSUM_NOT_PRESENT
                                                                   : RS_CKSUM_ILLEGAL);
}

bool
udp_length_bad(const struct rs_packet *pkt, uint32_t *payload)
{
    /* a header cut short has it with 6 bytes (RS_PKT_L4_PART) */
    if (!rs_packet_has_fields_of(pkt, RS_LAYER_UDP) || pkt->span[RS_LAYER_UDP].len < 6 ||
        (pkt->flags & (RS_PKT_QUOTED | RS_PKT_IP_FRAGMENT)))
        return false;
    uint32_t off = pkt->span[RS_LAYER_UDP].off, ip_end = rs_packet_ip_end(pkt);
    uint32_t have = ip_end > off ? ip_end - off : 0;
    if (payload != NULL)
        *payload = have;
    return ip_end != 0 && rs_load_be16(rs_packet_at(pkt, RS_LAYER_UDP) + 4) > have;
}

/* "Length: 40 (bogus, payload length 12)" where it exceeds the IP payload's, as tshark's */
static size_t
udp_length_label(const struct rs_packet *pkt, const struct rs_field *f,
                 const struct rs_value *v, char *buf, size_t size)
{
    struct rs_info in = {buf, size, 0, 0};
    uint32_t have;

    rs_info_str(&in, f->name);
    rs_info_dec(&in, ": ", v->v.u);
    if (udp_length_bad(pkt, &have)) {
        rs_info_dec(&in, " (bogus, payload length ", have);
        rs_info_str(&in, ")");
    }
    return in.want;
}

/* The hidden _ws.malformed tshark adds under udp.length.bad (its Malformed group), with no
 * bytes, where the length is. */
static bool
get_udp_length_malformed(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                         struct rs_value *out)
{
    (void)f;
    return ws_item_without_bytes(udp_length_bad(pkt, NULL), occ, out);
}

static bool
locate_udp_length_malformed(const struct rs_packet *pkt, const struct rs_field *f,
                            unsigned occ, uint32_t *offset, uint32_t *length)
{
    (void)f;
    (void)occ;
    *offset = pkt->span[RS_LAYER_UDP].off + 4;
    *length = 0;
    return true;
}

/* The payload after the header, up to the length it gives and the IP packet's end, as far
 * as captured. */
static bool
udp_payload(const struct rs_packet *pkt, const uint8_t **at, uint32_t *len)
{
    if (!rs_packet_has(pkt, RS_LAYER_UDP) || pkt->span[RS_LAYER_UDP].len < 8)
        return false;
    const struct rs_span *sp = &pkt->span[RS_LAYER_UDP];
    uint32_t ulen = rs_load_be16(rs_packet_at(pkt, RS_LAYER_UDP) + 4);
    uint32_t start = sp->off + 8, end = pkt->frame->caplen, ip_end = rs_packet_ip_end(pkt);
    if (ulen < 8)
        return false;
    if (start + (ulen - 8) < end)
        end = start + (ulen - 8);
    if (ip_end != 0 && ip_end < end)
        end = ip_end;
    *at = pkt->frame->data + start;
    *len = end > start ? end - start : 0;
    return true;
}

static bool
get_udp_payload(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                struct rs_value *out)
{
    const uint8_t *at;
    uint32_t len;

    if (occ != 0 || !udp_payload(pkt, &at, &len) ||
        rs_load_be16(rs_packet_at(pkt, RS_LAYER_UDP) + 4) == 8 ||
        ((pkt->flags & RS_PKT_QUOTED) && len == 0))
        return false;
    out->type = f->type;
    out->v.bytes.ptr = at;
    out->v.bytes.len = len;
    return true;
}

/* "WHAT (N bytes)", "WHAT (1 byte)" */
static size_t
count_label(const char *what, const struct rs_value *v, char *buf, size_t size)
{
    struct rs_info in = {buf, size, 0, 0};

    rs_info_str(&in, what);
    rs_info_dec(&in, " (", v->v.bytes.len);
    rs_info_str(&in, v->v.bytes.len == 1 ? " byte)" : " bytes)");
    return in.want;
}

/* "UDP payload (1040 bytes)" */
static size_t
udp_payload_label(const struct rs_packet *pkt, const struct rs_field *f,
                  const struct rs_value *v, char *buf, size_t size)
{
    (void)pkt;
    (void)f;
    return count_label("UDP payload", v, buf, size);
}

/* "Data (1024 bytes)" */
static size_t
data_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
           char *buf, size_t size)
{
    (void)pkt;
    (void)f;
    return count_label("Data", v, buf, size);
}

/* The conversation's times: the "Timestamps" line (offset 0), then each (SV_REL,
 * SV_DELTA); not for an empty datagram, nor for one an ICMP error quotes. */
static bool
get_udp_times(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out)
{
    if ((pkt->flags & RS_PKT_QUOTED) || !rs_packet_has(pkt, RS_LAYER_UDP) ||
        pkt->span[RS_LAYER_UDP].len < 8 || rs_load_be16(rs_packet_at(pkt, RS_LAYER_UDP) + 4) == 8)
        return false;
    if (f->flags & RS_FIELD_TEXT) {
        if (occ != 0 || pkt->stream == NULL || pkt->stream->tcp)
            return false;
        out->type = RS_FT_NONE;
        out->v.u = 0;
        return true;
    }
    return l4_get_stream(pkt, f, occ, out);
}

/* udp.checksum.status's place: below a zero checksum, its two bytes; beside another,
 * none, where it is. */
static bool
locate_udp_checksum(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                    uint32_t *offset, uint32_t *length)
{
    (void)occ;
    *offset = pkt->span[RS_LAYER_UDP].off + 6;
    *length = f->offset == 0 ? 2 : 0;
    return true;
}

/* No bytes, where the payload starts: udp.stream's place. */
static bool
locate_udp_payload(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                   uint32_t *offset, uint32_t *length)
{
    (void)f;
    (void)occ;
    *offset = pkt->span[RS_LAYER_UDP].off + 8;
    *length = 0;
    return true;
}

#define GEN_AT (RS_FIELD_GENERATED | RS_FIELD_NO_BYTES)

const struct rs_field rs_fields_l4[] = {
    {"udp", "User Datagram Protocol", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "User Datagram Protocol", RS_LAYER_UDP, 0, 0, NULL, 0, 0, .label = l4_label},
    {"udp.srcport", "Source Port", RS_FT_UINT16, RS_BASE_DEC, 0, NULL, "UDP source port",
     RS_LAYER_UDP, 0, 2, NULL, 1, 0, .label = l4_port_label},
    {"udp.dstport", "Destination Port", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "UDP destination port", RS_LAYER_UDP, 2, 2, NULL, 1, 0, .label = l4_port_label},
    {"udp.port", "Source or Destination Port", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "UDP source or destination port", RS_LAYER_UDP, 0, 2, NULL, 1, RS_FIELD_HIDDEN,
     .label = l4_port_label},
    {"udp.port", "Source or Destination Port", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "UDP source or destination port", RS_LAYER_UDP, 2, 2, NULL, 1, RS_FIELD_HIDDEN,
     .label = l4_port_label},
    {"udp.length", "Length", RS_FT_UINT16, RS_BASE_DEC, 0, NULL, "UDP length", RS_LAYER_UDP,
     4, 2, NULL, 1, 0, .label = udp_length_label},
    RS_F_WS_EXPERT("udp.length.bad", "Bad length value", RS_WSX_UDP_LENGTH_BAD, 2),
    {"_ws.malformed", "Malformed Packet", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "",
     RS_LAYER_UDP, 4, 0, get_udp_length_malformed, 2, RS_FIELD_HIDDEN,
     .locate = locate_udp_length_malformed},
    {"udp.checksum", "Checksum", RS_FT_UINT16, RS_BASE_HEX, 0, NULL, "UDP checksum",
     RS_LAYER_UDP, 6, 2, NULL, 1, 0, .show = show_udp_checksum},
    {"udp.checksum.status", "Checksum Status", RS_FT_UINT8, RS_BASE_NONE, 0, rs_cksum_vals,
     "Not present for a zero checksum", RS_LAYER_UDP, 0, 0, get_udp_checksum_status, 2,
     RS_FIELD_GENERATED, .locate = locate_udp_checksum},
    {"udp.checksum.status", "Checksum Status", RS_FT_UINT8, RS_BASE_NONE, 0, rs_cksum_vals,
     "Not verified, as tshark's default", RS_LAYER_UDP, 1, 0, get_udp_checksum_status, 1,
     RS_FIELD_GENERATED, .locate = locate_udp_checksum},
    {"udp.stream", "Stream index", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "UDP conversation, numbered from 0 in order of its first frame", RS_LAYER_UDP, SV_INDEX,
     0, l4_get_stream, 1, GEN_AT, .locate = locate_udp_payload},
    {"", "Timestamps", RS_FT_NONE, RS_BASE_NONE, 0, NULL, "", RS_LAYER_UDP, 0, 0,
     get_udp_times, 1, RS_FIELD_TEXT | GEN_AT, .label = rs_text_label},
    {"udp.time_relative", "Time since first frame", RS_FT_RELTIME, RS_BASE_NONE, 0, NULL,
     "Time since the conversation's first frame", RS_LAYER_UDP, SV_REL, 0, get_udp_times, 2,
     GEN_AT, .locate = rs_locate_layer_start},
    {"udp.time_delta", "Time since previous frame", RS_FT_RELTIME, RS_BASE_NONE, 0, NULL,
     "Time since the conversation's previous frame", RS_LAYER_UDP, SV_DELTA, 0, get_udp_times,
     2, GEN_AT, .locate = rs_locate_layer_start},
    {"udp.payload", "Payload", RS_FT_BYTES, RS_BASE_NONE, 0, NULL, "The datagram's octets",
     RS_LAYER_UDP, 8, 0, get_udp_payload, 1, 0, .label = udp_payload_label},
    RS_F_END,
};

/* data.len's place: no bytes, where the data starts. */
static bool
locate_data_len(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                uint32_t *offset, uint32_t *length)
{
    const uint8_t *data;
    uint32_t len;

    (void)f;
    if (!rs_packet_data(pkt, occ, &data, &len) || data < pkt->frame->data ||
        data > pkt->frame->data + pkt->frame->caplen)
        return false;
    *offset = (uint32_t)(data - pkt->frame->data);
    *length = 0;
    return true;
}

/* After every protocol's own fields: the bytes left to no protocol. */
const struct rs_field rs_fields_data[] = {
    {"data", "Data", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "Bytes no protocol takes",
     RS_NO_LAYER, 0, 0, get_data, 0, RS_FIELD_QUOTABLE, .label = data_label},
    {"data.data", "Data", RS_FT_BYTES, RS_BASE_NONE, 0, NULL, "Bytes no protocol takes",
     RS_NO_LAYER, 0, 0, get_data, 1, RS_FIELD_QUOTABLE},
    {"data.len", "Length", RS_FT_INT32, RS_BASE_DEC, 0, NULL, "Their number",
     RS_NO_LAYER, 0, 0, get_data, 1, RS_FIELD_QUOTABLE | RS_FIELD_GENERATED,
     .locate = locate_data_len},
    RS_F_END,
};

