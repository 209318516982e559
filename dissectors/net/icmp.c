/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icmp.c - reading ICMP and ICMPv6 messages: the checksum check, echoes
 * and the timestamp ping puts in their data, Neighbor Discovery options.
 *
 *  0                   1                   2                   3
 * +---------------+---------------+-------------------------------+
 * |     Type      |     Code      |          Checksum             |
 * +---------------+---------------+-------------------------------+
 * |  Identifier (echo)            |  Sequence Number (echo)       |
 * +-------------------------------+-------------------------------+
 */
#include <netinet/in.h>
#include <stdint.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/icmp.h>
#include <roceshark/dissectors/wire.h>

#include "ip_build.h"

#define ICMP_ECHO_HDR_LEN 8u
#define ICMP_STAMP_LEN 8u
#define ICMP_STAMP64_LEN 16u     /* tshark 4.4's timeval of two 64-bit numbers */
#define ICMP_STAMP_WINDOW 86400     /* a day, in seconds */
#define USEC_PER_SEC 1000000u

bool
rs_icmp_of(const struct rs_packet *pkt, struct rs_icmp *out)
{
    enum rs_layer l = rs_packet_has(pkt, RS_LAYER_ICMP) ? RS_LAYER_ICMP : RS_LAYER_ICMPV6;

    if (!rs_packet_has(pkt, l))
        return false;
    out->msg = rs_packet_at(pkt, l);
    out->len = pkt->span[l].len;
    uint32_t end = rs_packet_ip_end(pkt), off = pkt->span[l].off;
    out->wire_len = end > off + out->len ? end - off : out->len;
    out->v6 = l == RS_LAYER_ICMPV6;
    out->type = out->msg[0];
    out->code = out->msg[1];
    return true;
}

/* The folded complement of the message's sum, 0 when its checksum is right. */
static uint16_t
checksum_residue(const struct rs_packet *pkt, const struct rs_icmp *m)
{
    /* ICMPv6 sums a pseudo-header, naming ICMPv6 whatever extension headers
     * come between; ICMP sums only its message. */
    uint32_t sum = m->v6 ? ip_pseudo_header_sum(rs_packet_at(pkt, RS_LAYER_IPV6),
                                                IPPROTO_ICMPV6, m->len)
                         : 0;
    return ip_csum_fold(ip_csum_add(sum, m->msg, m->len));
}

uint8_t
rs_icmp_checksum_status(const struct rs_packet *pkt, const struct rs_icmp *m)
{
    uint32_t off = (uint32_t)(m->msg - pkt->frame->data);

    if (rs_packet_ip_end(pkt) != off + m->len)
        return RS_CKSUM_UNVERIFIED;     /* not all of it was captured */
    return checksum_residue(pkt, m) == 0 ? RS_CKSUM_GOOD : RS_CKSUM_BAD;
}

uint16_t
rs_icmp_checksum_expected(const struct rs_packet *pkt, const struct rs_icmp *m)
{
    /* the field plus the residue, in ones' complement (Wireshark's in_cksum_shouldbe) */
    uint32_t v = (uint32_t)rs_load_be16(m->msg + 2) + checksum_residue(pkt, m);

    v = (v & 0xffff) + (v >> 16);
    return (uint16_t)((v & 0xffff) + (v >> 16));
}

/* Seconds and microseconds read in one byte order (32 bits each, or tshark
 * 4.4's 64), if they pass for a time near the frame's. Wireshark compares
 * the seconds' difference as a 32-bit signed number, on their low 32 bits.
 * Seconds past 2^62 are refused, where tshark 4.4 would take them: the time
 * since such a stamp would not fit in 64 bits. */
static bool
stamp_near(uint64_t sec, uint64_t usec, int64_t frame_sec, struct rs_time *out)
{
    int32_t diff = (int32_t)(uint32_t)(sec - (uint64_t)frame_sec);

    if (diff <= -ICMP_STAMP_WINDOW || diff >= ICMP_STAMP_WINDOW || usec >= USEC_PER_SEC ||
        sec > (uint64_t)INT64_MAX / 2)
        return false;
    *out = rs_time_make((int64_t)sec, (int64_t)usec * 1000);
    return true;
}

bool
rs_icmp_is_echo(const struct rs_icmp *m)
{
    if (m->len < ICMP_ECHO_HDR_LEN)
        return false;
    return m->v6 ? m->type == RS_ICMPV6_ECHO_REQUEST || m->type == RS_ICMPV6_ECHO_REPLY
                 : m->type == RS_ICMP_ECHO_REQUEST || m->type == RS_ICMP_ECHO_REPLY;
}

bool
rs_icmp_echo_of(const struct rs_packet *pkt, struct rs_icmp_echo *out)
{
    struct rs_icmp m;

    if (!rs_icmp_of(pkt, &m) || !rs_icmp_is_echo(&m))
        return false;
    out->v6 = m.v6;
    out->reply = m.type == (m.v6 ? RS_ICMPV6_ECHO_REPLY : RS_ICMP_ECHO_REPLY);
    out->checksum = rs_load_be16(m.msg + 2);
    out->ident = rs_load_be16(m.msg + 4);
    out->seq = rs_load_be16(m.msg + 6);
    out->data_off = (uint32_t)(m.msg - pkt->frame->data) + ICMP_ECHO_HDR_LEN;
    out->stamped = false;
    /* Wireshark looks for a stamp when 8 data bytes were sent; in ICMPv6 4.0 never. */
    bool v4_4 = pkt->flags & RS_PKT_ICMP_4_4;
    uint32_t declared = rs_packet_ip_end(pkt) - out->data_off + ICMP_ECHO_HDR_LEN;
    if ((m.v6 && !v4_4) || declared < ICMP_ECHO_HDR_LEN + ICMP_STAMP_LEN ||
        m.len < ICMP_ECHO_HDR_LEN + ICMP_STAMP_LEN)
        return true;
    const uint8_t *d = m.msg + ICMP_ECHO_HDR_LEN;
    int64_t now = pkt->frame->ts_sec;
    /* tshark 4.4 first tries a timeval of 64-bit seconds and microseconds,
     * when 16 bytes were sent, with the same test on the seconds' low 32 bits
     * (so it takes seconds far from the frame's when those match). */
    if (v4_4 && declared >= ICMP_ECHO_HDR_LEN + ICMP_STAMP64_LEN &&
        m.len >= ICMP_ECHO_HDR_LEN + ICMP_STAMP64_LEN &&
        (stamp_near(rs_load_be64(d), rs_load_be64(d + 8), now, &out->stamp) ||
         stamp_near(rs_load_le64(d), rs_load_le64(d + 8), now, &out->stamp))) {
        out->stamped = true;
        out->data_off += ICMP_STAMP64_LEN;
        return true;
    }
    out->stamped = stamp_near(rs_load_be32(d), rs_load_be32(d + 4), now, &out->stamp) ||
                   stamp_near(rs_load_le32(d), rs_load_le32(d + 4), now, &out->stamp);
    if (out->stamped)
        out->data_off += ICMP_STAMP_LEN;
    return true;
}

uint32_t
rs_icmpv6_options_start(uint8_t type)
{
    switch (type) {
    case RS_ICMPV6_RS: return 8;
    case 134: return 16;    /* Router Advertisement */
    case RS_ICMPV6_NS:
    case RS_ICMPV6_NA: return 24;
    case 137: return 40;    /* Redirect */
    default: return 0;
    }
}

bool
rs_icmpv6_option(const struct rs_icmp *m, uint32_t want, unsigned n, uint32_t *off,
                 uint32_t *len)
{
    uint32_t at = rs_icmpv6_options_start(m->type);

    if (!m->v6 || at == 0)
        return false;
    while (at + 2 <= m->len) {
        uint8_t type = m->msg[at];
        uint32_t olen = (uint32_t)m->msg[at + 1] * 8;
        if (olen == 0 || at + olen > m->wire_len)
            return false;
        if (at + olen > m->len)
            olen = m->len - at;     /* cut by the capture: what there is of it */
        if ((type < 32 && ((want >> type) & 1u)) || want == ~0u) {
            if (n-- == 0) {
                *off = at;
                *len = olen;
                return true;
            }
        }
        at += olen;
    }
    return false;
}

/* Wireshark's names of the codes of the errors, as its Info column shows them. */
static const char *const unreachable_codes[] = {
    "Network unreachable", "Host unreachable", "Protocol unreachable", "Port unreachable",
    "Fragmentation needed", "Source route failed", "Destination network unknown",
    "Destination host unknown", "Source host isolated", "Network administratively prohibited",
    "Host administratively prohibited", "Network unreachable for TOS",
    "Host unreachable for TOS", "Communication administratively filtered",
    "Host precedence violation", "Precedence cutoff in effect",
};
static const char *const time_exceeded_codes[] = {
    "Time to live exceeded in transit", "Fragment reassembly time exceeded",
};
static const char *const redirect_codes[] = {
    "Redirect for network", "Redirect for host", "Redirect for TOS and network",
    "Redirect for TOS and host",
};
static const char *const parameter_problem_codes[] = {
    "Pointer indicates the error", "Required option missing", "Bad length",
};
static const char *const parameter_problem_codes_v6[] = {
    "erroneous header field encountered", "unrecognized Next Header type encountered",
    "unrecognized IPv6 option encountered",
    "IPv6 First Fragment has incomplete IPv6 Header Chain",
};
static const char *const unreachable_codes_v6[] = {
    "no route to destination", "Administratively prohibited",
    "Beyond scope of source address", "Address unreachable", "Port unreachable",
    "Source address failed ingress/egress policy", "Reject route to destination",
    "Error in Source Routing Header",
};
static const char *const time_exceeded_codes_v6[] = {
    "hop limit exceeded in transit", "fragment reassembly time exceeded",
};

#define CODE_NAME(names, code) ((code) < RS_ARRAY_SIZE(names) ? (names)[code] : NULL)

const char *
rs_icmp_code_name(const struct rs_icmp *m)
{
    if (m->v6 && m->type == RS_ICMPV6_UNREACHABLE)
        return CODE_NAME(unreachable_codes_v6, m->code);
    if (m->v6 && m->type == RS_ICMPV6_TIME_EXCEEDED)
        return CODE_NAME(time_exceeded_codes_v6, m->code);
    if (m->v6 && m->type == RS_ICMPV6_PARAMETER_PROBLEM)
        return CODE_NAME(parameter_problem_codes_v6, m->code);
    if (!m->v6 && m->type == RS_ICMP_UNREACHABLE)
        return CODE_NAME(unreachable_codes, m->code);
    if (!m->v6 && m->type == RS_ICMP_TIME_EXCEEDED)
        return CODE_NAME(time_exceeded_codes, m->code);
    if (!m->v6 && m->type == RS_ICMP_REDIRECT)
        return CODE_NAME(redirect_codes, m->code);
    if (!m->v6 && m->type == RS_ICMP_PARAMETER_PROBLEM)
        return CODE_NAME(parameter_problem_codes, m->code);
    return NULL;
}
