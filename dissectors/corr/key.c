/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * key.c - a packet's hop-invariant key (ICRC, destination QP, PSN, opcode), the header
 * fields a hop may change (ECN, DSCP, TTL, MAC addresses, VLAN), and its conversation:
 * the destination address and QP, which every point on its way sees alike; with the
 * frame's time and number, all the matcher takes of a frame (a sighting).
 */
#include <string.h>

#include <roceshark/dissectors/corr.h>
#include <roceshark/dissectors/ib_headers.h>

/* FNV-1a: the conversation's address bytes are few; any fair mix will do. */
static uint64_t
mix(uint64_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static void
read_ip(const struct rs_packet *pkt, struct rs_corr_hdr *hdr, uint64_t *conv)
{
    if (rs_packet_has(pkt, RS_LAYER_IPV4)) {
        const uint8_t *ip = rs_packet_at(pkt, RS_LAYER_IPV4);
        hdr->dscp = ip[1] >> 2;
        hdr->ecn = ip[1] & 3;
        hdr->ttl = ip[8];
        *conv = mix(*conv, ip + 16, 4);
        return;
    }
    /* IPv6 and the GRH share their first 40 bytes' layout. */
    int layer = rs_packet_has(pkt, RS_LAYER_IPV6) ? RS_LAYER_IPV6
                : rs_packet_has(pkt, RS_LAYER_GRH) ? RS_LAYER_GRH : -1;
    if (layer >= 0) {
        const uint8_t *ip = rs_packet_at(pkt, (enum rs_layer)layer);
        uint8_t tc = (uint8_t)((ip[0] & 0x0f) << 4 | ip[1] >> 4);
        hdr->dscp = tc >> 2;
        hdr->ecn = tc & 3;
        hdr->ttl = ip[7];
        *conv = mix(*conv, ip + 24, 16);
    }
    if (rs_packet_has(pkt, RS_LAYER_LRH))   /* native IB: the DLID too */
        *conv = mix(*conv, rs_packet_at(pkt, RS_LAYER_LRH) + 2, 2);
}

bool
rs_corr_key_of(const struct rs_packet *pkt, struct rs_corr_key *key, struct rs_corr_hdr *hdr,
               uint64_t *conv)
{
    if (!rs_packet_has(pkt, RS_LAYER_BTH) || !rs_packet_has(pkt, RS_LAYER_ICRC) ||
        pkt->encap == RS_ENCAP_IWARP)
        return false;
    const uint8_t *bth = rs_packet_at(pkt, RS_LAYER_BTH);
    const uint8_t *icrc = rs_packet_at(pkt, RS_LAYER_ICRC);

    memset(key, 0, sizeof(*key));
    memset(hdr, 0, sizeof(*hdr));
    key->opcode = rs_bth_opcode(bth);
    key->dqp = rs_bth_destqp(bth);
    key->psn = rs_bth_psn(bth);
    key->icrc = (uint32_t)icrc[0] << 24 | (uint32_t)icrc[1] << 16 | (uint32_t)icrc[2] << 8 |
                icrc[3];
    *conv = mix(0xcbf29ce484222325ull, bth + 5, 3);
    read_ip(pkt, hdr, conv);
    if (rs_packet_has(pkt, RS_LAYER_ETH)) {
        const uint8_t *eth = rs_packet_at(pkt, RS_LAYER_ETH);
        hdr->has_eth = 1;
        memcpy(hdr->eth_dst, eth, 6);
        memcpy(hdr->eth_src, eth + 6, 6);
    }
    if (rs_packet_has(pkt, RS_LAYER_VLAN)) {
        const uint8_t *tag = rs_packet_at(pkt, RS_LAYER_VLAN);
        hdr->vlan = (uint16_t)(((tag[0] & 0x0f) << 8 | tag[1]) + 1);
    }
    return true;
}

/* Keeps the bytes of the addresses a conversation's name shows (IPv4: source and
 * destination; IB: the LIDs; IPv6 and GRH: the last two bytes of each). */
static void
keep_addr(const struct rs_packet *pkt, struct rs_corr_sighting *s)
{
    s->addr_kind = RS_CORR_ADDR_NONE;
    if (rs_packet_has(pkt, RS_LAYER_IPV4)) {
        memcpy(s->addr, rs_packet_at(pkt, RS_LAYER_IPV4) + 12, 8);
        s->addr_kind = RS_CORR_ADDR_IPV4;
    } else if (rs_packet_has(pkt, RS_LAYER_LRH)) {
        const uint8_t *lrh = rs_packet_at(pkt, RS_LAYER_LRH);
        uint16_t slid = (uint16_t)rs_lrh_slid(lrh), dlid = (uint16_t)rs_lrh_dlid(lrh);
        memcpy(s->addr, &slid, 2);
        memcpy(s->addr + 2, &dlid, 2);
        s->addr_kind = RS_CORR_ADDR_LID;
    } else if (rs_packet_has(pkt, RS_LAYER_IPV6) || rs_packet_has(pkt, RS_LAYER_GRH)) {
        const uint8_t *ip = rs_packet_at(pkt, rs_packet_has(pkt, RS_LAYER_IPV6) ?
                                         RS_LAYER_IPV6 : RS_LAYER_GRH);
        memcpy(s->addr, ip + 22, 2);
        memcpy(s->addr + 2, ip + 38, 2);
        s->addr_kind = RS_CORR_ADDR_IPV6;
    }
}

bool
rs_corr_sighting_of(const struct rs_frame *frame, const struct rs_packet *pkt,
                    struct rs_corr_sighting *s)
{
    memset(s, 0, sizeof(*s));   /* whole: the records are written out as they are */
    s->t = rs_time_to_ns(rs_frame_time(frame));
    s->number = frame->number;
    s->rdma = rs_corr_key_of(pkt, &s->key, &s->hdr, &s->conv);
    if (s->rdma)
        keep_addr(pkt, s);
    return s->rdma;
}
