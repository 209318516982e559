/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icmp_quote.c - the datagram an ICMP error quotes (RFC 792: its IP header
 * and first 8 data bytes, RFC 1812 4.3.2.3: as much as fits) or an ICMPv6
 * error quotes (RFC 4443 2.4 c: as much as fits in the minimum MTU), and
 * the packet an ICMPv6 redirect's Redirected Header option holds (RFC 4861
 * 4.6.3), which Wireshark decodes alike.
 *
 * The quote is decoded as a packet of its own, over the same bytes, by the
 * decoder of the frame's IP packets: a field then has the quote's value as
 * one more occurrence (registry.c), and the tree shows the quote's headers
 * under the ICMP item, as Wireshark does. The quote is decoded again each
 * time it is asked for rather than kept in struct rs_packet, which would
 * double its size for a message few frames carry; it is a few dozen bytes.
 */
#include <netinet/in.h>
#include <string.h>

#include <roceshark/dissectors/icmp.h>

#include "decode_int.h"

#define ICMP_ERROR_HDR_LEN 8u   /* type, code, checksum and a word of the type's own */
#define REDIRECTED_OPT_HDR_LEN 8u   /* type, length and 6 reserved bytes */
#define RFC792_DATA_LEN 8u  /* the original datagram's data bytes an error quotes */

static bool
is_error(const struct rs_icmp *m)
{
    if (m->v6)
        return m->type >= RS_ICMPV6_UNREACHABLE && m->type <= RS_ICMPV6_PARAMETER_PROBLEM;
    switch (m->type) {
    case RS_ICMP_UNREACHABLE:
    case RS_ICMP_SOURCE_QUENCH:
    case RS_ICMP_REDIRECT:
    case RS_ICMP_TIME_EXCEEDED:
    case RS_ICMP_PARAMETER_PROBLEM:
        return true;
    default:
        return false;
    }
}

/* A header the quote cuts short: the bytes there are of it, whose fields
 * that fit Wireshark still shows (a UDP header's ports in 4 bytes). */
static void
keep_partial(struct rs_packet *q, enum rs_layer layer, uint32_t off)
{
    if (!rs_packet_has(q, layer) && off < q->frame->caplen)
        decode_set_layer(q, layer, off, q->frame->caplen - off);
}

bool
rs_icmp_quote_at(const struct rs_icmp *m, uint32_t *off, uint32_t *len)
{
    uint32_t opt, olen;

    if (is_error(m) && m->len > ICMP_ERROR_HDR_LEN) {
        *off = ICMP_ERROR_HDR_LEN;
        *len = m->len - ICMP_ERROR_HDR_LEN;
        /* a redirect's quote is its header and 8 data bytes, as RFC 792 has it: Wireshark
         * 4.0 shows no more of it, where the other errors' quotes run on (RFC 1812) */
        uint32_t rfc792 = (m->msg[*off] & 0xfu) * 4u + RFC792_DATA_LEN;
        if (!m->v6 && m->type == RS_ICMP_REDIRECT && *len > rfc792)
            *len = rfc792;
    } else if (m->v6 && m->type == RS_ICMPV6_REDIRECT &&
               rs_icmpv6_option(m, 1u << RS_ICMPV6_OPT_REDIRECTED, 0, &opt, &olen) &&
               olen > REDIRECTED_OPT_HDR_LEN) {
        *off = opt + REDIRECTED_OPT_HDR_LEN;
        *len = olen - REDIRECTED_OPT_HDR_LEN;
    } else {
        return false;
    }
    /* the version an IP header would have: else Wireshark leaves it to data too */
    return m->msg[*off] >> 4 == (m->v6 ? 6u : 4u);
}

bool
rs_icmp_quote_view(const struct rs_packet *pkt, struct rs_icmp_quote *out)
{
    struct rs_icmp m;
    uint32_t at, len;

    if (!(pkt->flags & RS_PKT_ICMP_QUOTE) || !rs_icmp_of(pkt, &m) ||
        !rs_icmp_quote_at(&m, &at, &len))
        return false;
    uint32_t start = (uint32_t)(m.msg - pkt->frame->data) + at;
    uint32_t end = start + len;

    out->frame = *pkt->frame;
    out->frame.caplen = out->frame.len = end;   /* the quote ends with the message */
    struct rs_packet *q = &out->pkt;
    memset(q, 0, sizeof(*q));
    q->frame = &out->frame;
    q->flags = RS_PKT_QUOTED;   /* no quote of a quote */

    struct rs_decode_opts opts;
    rs_decode_opts_init(&opts);
    opts.disable_infiniband = !(pkt->flags & RS_PKT_QUOTE_ROCE);
    enum rs_layer ip = m.v6 ? RS_LAYER_IPV6 : RS_LAYER_IPV4;
    if (m.v6)
        decode_ipv6(q, &opts, start, end);
    else
        decode_ipv4(q, &opts, start, end);
    if (!rs_packet_has(q, ip)) {
        keep_partial(q, ip, start);
    } else if (!(q->flags & RS_PKT_IP_FRAGMENT)) {
        uint32_t l4 = q->span[ip].off + q->span[ip].len;
        if (q->ip_proto == IPPROTO_UDP)
            keep_partial(q, RS_LAYER_UDP, l4);
        else if (q->ip_proto == IPPROTO_TCP)
            keep_partial(q, RS_LAYER_TCP, l4);
    }
    if (pkt->stream != NULL && pkt->stream->quote_index != 0) {
        memset(&out->stream, 0, sizeof(out->stream));
        out->stream.index = pkt->stream->quote_index - 1;
        out->stream.tcp = rs_packet_has(q, RS_LAYER_TCP);
        q->stream = &out->stream;
    }
    if (rs_packet_has(q, RS_LAYER_BTH))
        decode_check_crcs(q);
    else if (q->encap == RS_ENCAP_ROCEV2)
        q->encap = RS_ENCAP_NONE;   /* cut before the BTH: Wireshark shows no InfiniBand */
    return true;
}
