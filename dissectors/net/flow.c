/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flow.c - conversation keys of TCP and UDP packets, and the end of the IP
 * packet, for the stages that follow conversations.
 */
#include <string.h>

#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/identify.h>
#include <roceshark/dissectors/streams.h>
#include <roceshark/dissectors/icmp.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/mad.h>
#include <roceshark/dissectors/ptr_index.h>
#include <roceshark/dissectors/wire.h>

#define IPV6_HDR_LEN 40u

int
rs_flow_key_addresses(const struct rs_packet *pkt, struct rs_flow_key *key, uint16_t sport,
                      uint16_t dport)
{
    const uint8_t *src, *dst;
    size_t alen;

    if (rs_packet_has(pkt, RS_LAYER_IPV4)) {
        const uint8_t *ip = rs_packet_at(pkt, RS_LAYER_IPV4);
        key->family = 4;
        src = ip + 12;
        dst = ip + 16;
        alen = 4;
    } else if (rs_packet_has(pkt, RS_LAYER_IPV6)) {
        const uint8_t *ip = rs_packet_at(pkt, RS_LAYER_IPV6);
        key->family = 6;
        src = ip + 8;
        dst = ip + 24;
        alen = 16;
    } else {
        return -1;
    }
    int c = memcmp(src, dst, alen);
    int side = c > 0 || (c == 0 && sport > dport);
    memcpy(key->addr[side], src, alen);
    memcpy(key->addr[!side], dst, alen);
    return side;
}

bool
rs_flow_key_of(const struct rs_packet *pkt, struct rs_flow_key *key, int *side)
{
    enum rs_layer l4 = rs_packet_has(pkt, RS_LAYER_TCP) ? RS_LAYER_TCP : RS_LAYER_UDP;

    memset(key, 0, sizeof(*key));
    if (!rs_packet_has(pkt, l4))
        return false;
    const uint8_t *h = rs_packet_at(pkt, l4);
    uint16_t sport = rs_load_be16(h), dport = rs_load_be16(h + 2);
    *side = rs_flow_key_addresses(pkt, key, sport, dport);
    if (*side < 0)
        return false;
    key->proto = l4 == RS_LAYER_TCP ? 6 : 17;
    key->port[*side] = sport;
    key->port[!*side] = dport;
    return true;
}

/* Eight bytes at a time, each mixed in with a multiply: one lookup per
 * packet makes this hot. */
uint32_t
rs_flow_key_hash(const struct rs_flow_key *key)
{
    const uint8_t *b = (const uint8_t *)key;
    uint64_t h = 0x9e3779b97f4a7c15ull, w;
    size_t i = 0;

    for (; i + 8 <= sizeof(*key); i += 8) {
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    for (; i < sizeof(*key); i++)
        h = (h ^ b[i]) * 0x94d049bb133111ebull;
    return (uint32_t)(h ^ (h >> 32));
}

uint32_t
rs_flow_key_index_hash(const struct rs_flow_key *key)
{
    return rs_ptr_index_hash(rs_flow_key_hash(key));
}

uint32_t
rs_packet_ip_end(const struct rs_packet *pkt)
{
    if (rs_packet_has(pkt, RS_LAYER_IPV4)) {
        /* a total length past the frame's end stops there, as tshark's does */
        const struct rs_span *s = &pkt->span[RS_LAYER_IPV4];
        uint32_t end = s->off + rs_load_be16(pkt->frame->data + s->off + 2);
        return end < pkt->frame->len ? end : pkt->frame->len;
    }
    if (rs_packet_has(pkt, RS_LAYER_IPV6)) {
        const struct rs_span *s = &pkt->span[RS_LAYER_IPV6];
        uint16_t plen = rs_load_be16(pkt->frame->data + s->off + 4);
        uint32_t end = s->off + IPV6_HDR_LEN + plen;
        /* a jumbogram (0) ends where the frame does, and so does a payload length past it */
        return plen != 0 && end < pkt->frame->len ? end : pkt->frame->len;
    }
    return 0;
}

bool
rs_packet_l4_stopped(const struct rs_packet *pkt)
{
    return (pkt->flags & RS_PKT_MALFORMED) && !(pkt->flags & RS_PKT_IP_FRAGMENT) &&
           pkt->stopped != NULL &&
           (strcmp(pkt->stopped, "UDP") == 0 || strcmp(pkt->stopped, "TCP") == 0);
}

/* From start to the end of the IP packet, as far as captured. */
static bool
span_to_ip_end(const struct rs_packet *pkt, uint32_t start, struct rs_span *out)
{
    uint32_t end = rs_packet_ip_end(pkt);

    if (end == 0 || end > pkt->frame->caplen)
        end = pkt->frame->caplen;
    if (end <= start)
        return false;
    out->off = start;
    out->len = end - start;
    return true;
}

static uint32_t
tcp_payload_start(const struct rs_packet *pkt)
{
    return pkt->span[RS_LAYER_TCP].off + pkt->span[RS_LAYER_TCP].len;
}

uint32_t
rs_tcp_payload_len(const struct rs_packet *pkt)
{
    uint32_t end = rs_packet_ip_end(pkt), start = tcp_payload_start(pkt);

    return rs_packet_has(pkt, RS_LAYER_TCP) && end > start ? end - start : 0;
}

bool
rs_tcp_payload(const struct rs_packet *pkt, struct rs_span *out)
{
    return rs_packet_has(pkt, RS_LAYER_TCP) &&
           span_to_ip_end(pkt, tcp_payload_start(pkt), out);
}

/* Wireshark hands the bytes of an ICMP or ICMPv6 echo after its 8-byte
 * header, and after the timestamp it finds there (icmp.c), to data. */
static bool
icmp_echo_data(const struct rs_packet *pkt, struct rs_span *out)
{
    struct rs_icmp_echo e;

    return rs_icmp_echo_of(pkt, &e) && span_to_ip_end(pkt, e.data_off, out);
}

/* The frame's one run of undissected bytes, outside iWARP. */
static bool
frame_data(const struct rs_packet *pkt, struct rs_span *out)
{
    if (rs_packet_has(pkt, RS_LAYER_PAYLOAD) && !rs_packet_has(pkt, RS_LAYER_IPOIB)) {
        const struct rs_span *p = &pkt->span[RS_LAYER_PAYLOAD];
        uint32_t pad = rs_packet_has(pkt, RS_LAYER_PAD) ? pkt->span[RS_LAYER_PAD].len : 0;
        if (rs_mad_carried(pkt) || p->len + pad == 0 || rs_packet_ib_payload_cut(pkt))
            return false;
        if (p->off >= pkt->frame->caplen)
            return false;
        out->off = p->off;
        out->len = p->len + pad;
        if (out->len > pkt->frame->caplen - p->off)
            out->len = pkt->frame->caplen - p->off;
        return true;
    }
    if (rs_packet_has(pkt, RS_LAYER_UDP) && pkt->encap != RS_ENCAP_ROCEV2) {
        const struct rs_span *u = &pkt->span[RS_LAYER_UDP];
        return span_to_ip_end(pkt, u->off + u->len, out);
    }
    if (rs_packet_has(pkt, RS_LAYER_TCP))
        return rs_tcp_payload(pkt, out);
    return icmp_echo_data(pkt, out);
}

/* An FPDU's payload where the frame holds it, when the FPDU lies whole in
 * this segment without markers, so that outputs place it (PDML's pos, the
 * JSON's raw values); else it stays where the reassembly keeps it. */
static void
in_frame(const struct rs_packet *pkt, const struct rs_iwarp_pdu *p, const uint8_t **data)
{
    struct rs_span seg;

    if (p->n_markers != 0 || (p->flags & RS_IWARP_PDU_SEND_REASM) || !rs_tcp_payload(pkt, &seg))
        return;
    uint32_t at = p->seq - rs_load_be32(rs_packet_at(pkt, RS_LAYER_TCP) + 4);
    if ((int32_t)at < 0 || at > seg.len || p->caplen > seg.len - at)
        return;
    *data = pkt->frame->data + seg.off + at + (*data - p->data);
}

bool
rs_packet_data(const struct rs_packet *pkt, unsigned occ, const uint8_t **data, uint32_t *len)
{
    const struct rs_iwarp_view *v = pkt->iwarp;
    struct rs_span sp;

    /* A segment of an iWARP stream hands on only what its FPDUs do: bytes of
     * an FPDU that ends later wait in TCP's reassembly, as in Wireshark. */
    if (v != NULL) {
        for (unsigned i = 0; i < v->n_pdus; i++)
            if (rs_iwarp_pdu_data(&v->pdus[i], data, len) && occ-- == 0) {
                in_frame(pkt, &v->pdus[i], data);
                return true;
            }
        return false;
    }
    /* The segments of an HTTP message or TLS record over several: TCP holds the earlier
     * ones for reassembly, HTTP or TLS takes the last (streams.h); and a segment its
     * sequence analysis finds again or out of order goes to no protocol above TCP: as in
     * Wireshark (its tcp.no_subdissector_on_error). */
    if (pkt->stream != NULL && (pkt->stream->pdu_part != RS_PDU_NONE ||
                                (pkt->stream->analysis.flags & RS_TCPA_NOT_HANDED_ON)))
        return false;
    /* HTTP or TLS takes a segment that holds its message or record whole */
    if (rs_packet_has(pkt, RS_LAYER_TCP) && rs_ident_tcp_message(pkt))
        return false;
    if (occ != 0 || !frame_data(pkt, &sp))
        return false;
    *data = pkt->frame->data + sp.off;
    *len = sp.len;
    return true;
}
