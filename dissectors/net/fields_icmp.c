/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_icmp.c - the icmp.* and icmpv6.* fields by Wireshark's names: the
 * common header, echoes (with the timestamp ping puts in the data, and the
 * request a reply answers, from the streams stage), the unused words of
 * errors, and Neighbor Discovery's solicitations, advertisements and options.
 * The datagram an error quotes is the frame's IP and transport fields again
 * (icmp_quote.c, registry.c).
 */
#include <stdio.h>

#include <roceshark/dissectors/icmp.h>
#include <roceshark/dissectors/streams.h>

#include "fields/fields_int.h"
#include "net/fields_icmp_int.h"

#define FRAG_NEEDED 4       /* the unreachable code whose second word is the MTU */

bool
icmp_message_of(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                struct rs_icmp *m)
{
    return occ == 0 && rs_icmp_of(pkt, m) && m->v6 == (f->layer == RS_LAYER_ICMPV6);
}

static bool
get_checksum_status(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                    struct rs_value *out)
{
    struct rs_icmp m;

    if (!icmp_message_of(pkt, f, occ, &m))
        return false;
    return rs_value_set_uint(out, f->type, rs_icmp_checksum_status(pkt, &m));
}

/* tshark's checksum line: "Checksum: 0x8576 [correct]", "... [unverified]" for a message
 * not captured whole, "... incorrect, should be 0x8577" (proto_tree_add_checksum). */
static size_t
label_checksum(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
               char *buf, size_t size)
{
    struct rs_icmp m;
    unsigned sum = (unsigned)v->v.u;

    if (!icmp_message_of(pkt, f, 0, &m))
        return 0;
    switch (rs_icmp_checksum_status(pkt, &m)) {
    case RS_CKSUM_GOOD:
        return (size_t)snprintf(buf, size, "%s: 0x%04x [correct]", f->name, sum);
    case RS_CKSUM_BAD:
        return (size_t)snprintf(buf, size, "%s: 0x%04x incorrect, should be 0x%04x", f->name,
                                sum, rs_icmp_checksum_expected(pkt, &m));
    default:
        return (size_t)snprintf(buf, size, "%s: 0x%04x [unverified]", f->name, sum);
    }
}

/* tshark's code line names an error's code: "Code: 3 (Port unreachable)". */
static size_t
label_code(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
           char *buf, size_t size)
{
    struct rs_icmp m;
    const char *name;

    if (!icmp_message_of(pkt, f, 0, &m) || (name = rs_icmp_code_name(&m)) == NULL)
        return 0;
    return (size_t)snprintf(buf, size, "%s: %u (%s)", f->name, (unsigned)v->v.u, name);
}

/* The checksum status's place: no bytes, at the checksum (tshark's generated item). */
static bool
locate_checksum_status(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                       uint32_t *offset, uint32_t *length)
{
    (void)occ;
    *offset = pkt->span[f->layer].off + 2;
    *length = 0;
    return true;
}

/* ICMP's type as tshark 4.0 writes it: "Type: 8 (Echo (ping) request)" (ICMPv6's is the
 * usual "Type: Echo (ping) request (128)"). */
static size_t
label_icmp_type(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
                char *buf, size_t size)
{
    const char *name = rs_value_name(f->vals, (uint32_t)v->v.u);

    (void)pkt;
    return (size_t)snprintf(buf, size, "%s: %llu (%s)", f->name, (unsigned long long)v->v.u,
                            name != NULL ? name : "Unknown");
}

/* "Response time: 0.038 ms", in tshark's three decimals (-T fields keeps them all). */
static size_t
label_resptime(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
               char *buf, size_t size)
{
    (void)pkt;
    return (size_t)snprintf(buf, size, "%s: %.3f ms", f->name, v->v.d);
}

/* An echo's identifier and sequence number, as sent. */
static bool
get_echo(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out)
{
    struct rs_icmp m;

    return icmp_message_of(pkt, f, occ, &m) && rs_icmp_is_echo(&m) &&
           rs_field_read_uint(pkt, f, f->layer, out);
}

/* ... and read little-endian, as Wireshark also shows them for ICMP. */
static bool
get_echo_le(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    if (!get_echo(pkt, f, occ, out))
        return false;
    out->v.u = (out->v.u >> 8 | out->v.u << 8) & 0xffffu;
    return true;
}

/* icmp.data_time (offset 0) and data_time_relative (1): the stamp in an
 * echo's data, and the frame's time after it. */
static bool
get_stamp(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          struct rs_value *out)
{
    struct rs_icmp_echo e;

    if (occ != 0 || !rs_icmp_echo_of(pkt, &e) || !e.stamped ||
        e.v6 != (f->layer == RS_LAYER_ICMPV6))
        return false;
    out->type = f->type;
    out->v.t = f->offset == 0 ? e.stamp : rs_time_sub(rs_frame_time(pkt->frame), e.stamp);
    return true;
}

/* resp_to (offset 0) and resptime (1, in ms): the request a reply answers,
 * as the streams stage matched it. */
static bool
get_response(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out)
{
    const struct rs_stream_view *v = pkt->stream;
    struct rs_icmp m;

    if (!icmp_message_of(pkt, f, occ, &m) || v == NULL || v->echo_request == 0)
        return false;
    if (f->offset == 0)
        return rs_value_set_uint(out, f->type, v->echo_request);
    out->type = f->type;
    out->v.d = (double)v->echo_rtt.sec * 1000.0 + (double)v->echo_rtt.nsec / 1e6;
    return true;
}

/* The word after the checksum of an ICMP error: unused, or for
 * "fragmentation needed" two unused bytes and the next hop's MTU, for a
 * parameter problem a pointer and three unused bytes. The offset column:
 * 0 unused, 1 MTU. */
static bool
get_error_word(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               struct rs_value *out)
{
    struct rs_icmp m;

    if (!icmp_message_of(pkt, f, occ, &m) || m.len < 8 ||
        (m.type != RS_ICMP_UNREACHABLE && m.type != RS_ICMP_TIME_EXCEEDED &&
         m.type != RS_ICMP_PARAMETER_PROBLEM))
        return false;
    bool mtu = m.type == RS_ICMP_UNREACHABLE && m.code == FRAG_NEEDED;
    if (f->offset == 1)
        return mtu && rs_value_set_uint(out, f->type, rs_load_be16(m.msg + 6));
    bool pointer = m.type == RS_ICMP_PARAMETER_PROBLEM;
    out->type = f->type;
    out->v.bytes.ptr = m.msg + (pointer ? 5 : 4);
    out->v.bytes.len = mtu ? 2 : pointer ? 3 : 4;
    return true;
}

/* A parameter problem's pointer, a redirect's gateway (ICMP's offset 4). */
static bool
get_pointer(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    return icmp_read_if_type(pkt, f, occ, out,
                        f->layer == RS_LAYER_ICMPV6 ? RS_ICMPV6_PARAMETER_PROBLEM
                                                    : RS_ICMP_PARAMETER_PROBLEM);
}

static bool
get_gateway(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    return icmp_read_if_type(pkt, f, occ, out, RS_ICMP_REDIRECT);
}

bool
icmp_read_if_type(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out, uint8_t type)
{
    struct rs_icmp m;

    return icmp_message_of(pkt, f, occ, &m) && m.type == type &&
           rs_field_get_generic(pkt, f, occ, out);
}

static bool
get_ns(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ, struct rs_value *out)
{
    return icmp_read_if_type(pkt, f, occ, out, RS_ICMPV6_NS);
}

static bool
get_na(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ, struct rs_value *out)
{
    return icmp_read_if_type(pkt, f, occ, out, RS_ICMPV6_NA);
}

static bool
get_too_big(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    return icmp_read_if_type(pkt, f, occ, out, RS_ICMPV6_PACKET_TOO_BIG);
}

/* The reserved word of an unreachable, a time exceeded, a router or
 * neighbor solicitation, a redirect; the reserved half word of an MLDv2
 * report (MLDv1's, after its delay, is fields_icmpv6_nd.c's). */
static bool
get_reserved6(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out)
{
    struct rs_icmp m;

    if (!icmp_message_of(pkt, f, occ, &m) || m.len < 8)
        return false;
    uint32_t len;
    switch (m.type) {
    case RS_ICMPV6_UNREACHABLE:
    case RS_ICMPV6_TIME_EXCEEDED:
    case RS_ICMPV6_RS:
    case RS_ICMPV6_NS:
    case RS_ICMPV6_REDIRECT:
        len = 4;
        break;
    case RS_ICMPV6_MLDV2_REPORT:
        len = 2;
        break;
    default:
        return false;
    }
    out->type = f->type;
    out->v.bytes.ptr = m.msg + 4;
    out->v.bytes.len = len;
    return true;
}

/* Wireshark's names of the types, for the tree and the summary line. */
const struct rs_value_string rs_icmp_type_vals[] = {
    {0, "Echo (ping) reply"},
    {3, "Destination unreachable"},
    {4, "Source quench (flow control)"},
    {5, "Redirect"},
    {8, "Echo (ping) request"},
    {9, "Router advertisement"},
    {10, "Router solicitation"},
    {11, "Time-to-live exceeded"},
    {12, "Parameter problem"},
    {13, "Timestamp request"},
    {14, "Timestamp reply"},
    {15, "Information request"},
    {16, "Information reply"},
    {17, "Address mask request"},
    {18, "Address mask reply"},
    {0, NULL},
};

static const struct rs_value_string set_vals[] = {
    {0, "Not set"},
    {1, "Set"},
    {0, NULL},
};

#define ICMP(abbrev, name, type, base, off, width, get, blurb) \
    {abbrev, name, type, base, 0, NULL, blurb, RS_LAYER_ICMP, off, width, get, 1}
#define ICMPV6(abbrev, name, type, base, off, width, get, blurb) \
    {abbrev, name, type, base, 0, NULL, blurb, RS_LAYER_ICMPV6, off, width, get, 1}
#define NA_FLAG(abbrev, name, type, mask, vals) \
    {abbrev, name, type, RS_BASE_DEC, mask, vals, name, RS_LAYER_ICMPV6, 4, 4, get_na, 2}

/* The part ICMP and ICMPv6 share: type, code, checksum and its status. */
#define COMMON_HEADER(proto, name, layer, types, type_label) \
    RS_F_PROTO(proto, name, layer), \
    {proto ".type", "Type", RS_FT_UINT8, RS_BASE_DEC, 0, types, "Message type", layer, 0, 1, \
     NULL, 1, 0, .label = type_label}, \
    {proto ".code", "Code", RS_FT_UINT8, RS_BASE_DEC, 0, NULL, "Refines the type", layer, 1, 1, \
     NULL, 1, 0, .label = label_code}, \
    {proto ".checksum", "Checksum", RS_FT_UINT16, RS_BASE_HEX, 0, NULL, \
     "Over the message (and for ICMPv6 the IPv6 pseudo-header)", layer, 2, 2, NULL, 1, 0, \
     .label = label_checksum}, \
    {proto ".checksum.status", "Checksum Status", RS_FT_UINT8, RS_BASE_NONE, 0, rs_cksum_vals, \
     "Verified, as tshark verifies it", layer, 2, 0, get_checksum_status, 1, \
     RS_FIELD_GENERATED, .locate = locate_checksum_status}

/* The request a reply answers and the time since, as the streams stage matched them. */
#define RESPONSE(proto, to_name, time_name, layer) \
    {proto ".resp_to", to_name, RS_FT_FRAMENUM, RS_BASE_NONE, 0, NULL, \
     "The request this reply answers (streams stage)", layer, 0, 0, get_response, 1, \
     RS_FIELD_GENERATED}, \
    {proto ".resptime", time_name, RS_FT_DOUBLE, RS_BASE_NONE, 0, NULL, \
     "Milliseconds from the request to this reply", layer, 1, 0, get_response, 1, \
     RS_FIELD_GENERATED, .label = label_resptime}

const struct rs_field rs_fields_icmp[] = {
    COMMON_HEADER("icmp", "Internet Control Message Protocol", RS_LAYER_ICMP, rs_icmp_type_vals,
                  label_icmp_type),
    ICMP("icmp.pointer", "Pointer", RS_FT_UINT32, RS_BASE_DEC, 4, 1, get_pointer,
         "The octet of the quoted datagram a parameter problem is in"),
    ICMP("icmp.unused", "Unused", RS_FT_BYTES, RS_BASE_NONE, 0, 0, get_error_word,
         "The unused word of an unreachable or time exceeded, or bytes of a parameter problem"),
    ICMP("icmp.redir_gw", "Gateway Address", RS_FT_IPV4, RS_BASE_NONE, 4, 4, get_gateway,
         "The router a redirect names"),
    ICMP("icmp.mtu", "MTU of next hop", RS_FT_UINT16, RS_BASE_DEC, 1, 0, get_error_word,
         "Of a fragmentation-needed unreachable"),
    ICMP("icmp.ident", "Identifier (BE)", RS_FT_UINT16, RS_BASE_DEC_HEX, 4, 2, get_echo,
         "Echo identifier, read big-endian"),
    ICMP("icmp.ident_le", "Identifier (LE)", RS_FT_UINT16, RS_BASE_DEC_HEX, 4, 2, get_echo_le,
         "Echo identifier, read little-endian"),
    ICMP("icmp.seq", "Sequence Number (BE)", RS_FT_UINT16, RS_BASE_DEC_HEX, 6, 2, get_echo,
         "Echo sequence number, read big-endian"),
    ICMP("icmp.seq_le", "Sequence Number (LE)", RS_FT_UINT16, RS_BASE_DEC_HEX, 6, 2,
         get_echo_le, "Echo sequence number, read little-endian"),
    RESPONSE("icmp", "Request frame", "Response time", RS_LAYER_ICMP),
    {"icmp.data_time", "Timestamp from icmp data", RS_FT_ABSTIME, RS_BASE_UTC, 0, NULL,
     "The timestamp in the first 8 bytes of the echo's data", RS_LAYER_ICMP, 0, 0, get_stamp,
     1},
    {"icmp.data_time_relative", "Timestamp from icmp data (relative)", RS_FT_RELTIME,
     RS_BASE_NONE, 0, NULL, "The frame's time after that timestamp", RS_LAYER_ICMP, 1, 0,
     get_stamp, 1, RS_FIELD_GENERATED},
    COMMON_HEADER("icmpv6", "Internet Control Message Protocol v6", RS_LAYER_ICMPV6,
                  rs_icmpv6_type_vals, NULL),
    ICMPV6("icmpv6.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 4, 4, get_reserved6,
           "Must be zero"),
    ICMPV6("icmpv6.mtu", "MTU", RS_FT_UINT32, RS_BASE_DEC, 4, 4, get_too_big,
           "The next hop's MTU"),
    ICMPV6("icmpv6.pointer", "Pointer", RS_FT_UINT32, RS_BASE_DEC, 4, 4, get_pointer,
           "The octet of the quoted packet a parameter problem is in"),
    ICMPV6("icmpv6.echo.identifier", "Identifier", RS_FT_UINT16, RS_BASE_HEX, 4, 2, get_echo,
           "Echo identifier"),
    ICMPV6("icmpv6.echo.sequence_number", "Sequence", RS_FT_UINT16, RS_BASE_DEC, 6, 2,
           get_echo, "Echo sequence number"),
    /* tshark 4.4's, found only under -o compat:4.4 (RS_PKT_ICMP_4_4) */
    {"icmpv6.data_time", "Timestamp from Echo data", RS_FT_ABSTIME, RS_BASE_UTC, 0, NULL,
     "The timestamp at the start of the echo's data (tshark 4.4)", RS_LAYER_ICMPV6, 0, 0,
     get_stamp, 1},
    {"icmpv6.data_time_relative", "Timestamp from Echo data (relative)", RS_FT_RELTIME,
     RS_BASE_NONE, 0, NULL, "The frame's time after that timestamp", RS_LAYER_ICMPV6, 1, 0,
     get_stamp, 1, RS_FIELD_GENERATED},
    RESPONSE("icmpv6", "Response To", "Response Time", RS_LAYER_ICMPV6),
    ICMPV6("icmpv6.nd.ns.target_address", "Target Address", RS_FT_IPV6, RS_BASE_NONE, 8, 16,
           get_ns, "The address solicited"),
    {"icmpv6.nd.na.flag", "Flags", RS_FT_UINT32, RS_BASE_HEX, 0, NULL,
     "Router, Solicited, Override", RS_LAYER_ICMPV6, 4, 4, get_na, 1, 0, .show = rs_show_flags},
    NA_FLAG("icmpv6.nd.na.flag.r", "Router", RS_FT_BOOLEAN, 0x80000000u, set_vals),
    NA_FLAG("icmpv6.nd.na.flag.s", "Solicited", RS_FT_BOOLEAN, 0x40000000u, set_vals),
    NA_FLAG("icmpv6.nd.na.flag.o", "Override", RS_FT_BOOLEAN, 0x20000000u, set_vals),
    NA_FLAG("icmpv6.nd.na.flag.rsv", "Reserved", RS_FT_UINT32, 0x1fffffffu, NULL),
    ICMPV6("icmpv6.nd.na.target_address", "Target Address", RS_FT_IPV6, RS_BASE_NONE, 8, 16,
           get_na, "The address advertised"),
    RS_F_END,
};
