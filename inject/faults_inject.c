/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faults_inject.c - the packets an inject rule makes up: a NAK, an RNR NAK,
 * an ACK or a READ response toward the requester of the packet the rule
 * matched, or a CNP toward its sender.
 *
 * They are built as the peer would have built them: the matched packet's own
 * addressing (Ethernet, IP or GRH, LRH), turned around when the packet goes
 * back, and a transport header from the conversation's state as the
 * engine's analysis has followed it: the requester's QP (paired from the
 * traffic, or told by whoever set the QPs up), the PSN the responder
 * expects, the last MSN. The encoders beside the decoders write the rest,
 * lengths, checksums and the ICRC included.
 */
#include <string.h>

#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/encode.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/wire.h>

#include "faults_int.h"

#define QPN_UNKNOWN 0xffffffffu
#define PSN_MASK 0xffffffu
#define AETH_NO_CREDITS 0x1f        /* an ACK's syndrome: no credit count (IBTA 9.7.5.1.2) */

/* The PSN the made-up packet carries, unless the rule names one: a sequence NAK names the
 * PSN the responder expects (this request's own, as though it were the one lost, when it
 * came in order); everything else answers the matched packet's PSN. */
static uint32_t
default_psn(const struct fault_inject *r, const struct rs_packet *m, bool response,
            const struct rs_conv_state *st, uint32_t psn)
{
    const struct rs_facts *fx = m->facts;

    if (r->kind == FI_CNP)
        return 0;
    if (r->kind != FI_NAK || r->code != RS_NAK_PSN_SEQ_ERROR || response || fx == NULL)
        return psn;
    if (fx->flags & RS_FACT_PSN_GAP)
        return (psn - fx->psn_gap) & PSN_MASK;
    if ((fx->flags & RS_FACT_RETRANSMISSION) && st != NULL && st->have_next_psn)
        return st->next_psn;
    return psn;
}

/* The QP it goes to: the matched packet's own when it goes the same way (more responses
 * to the requester); back to the requester's (or, for a CNP on a response, the
 * responder's) as the conversation has them. */
static uint32_t
dest_qp(const struct fault_inject *r, bool back, bool response, const struct rs_conv_state *st,
        uint32_t matched_dqpn)
{
    if (r->has_qpn)
        return r->qpn;
    if (!back)
        return matched_dqpn;
    if (st == NULL)
        return QPN_UNKNOWN;
    return response ? st->responder_qp : st->requester_qp;
}

/* A READ response's payload: what the rule says, else what the READ asked for, up to
 * one PMTU (a single packet). */
static uint32_t
read_response_len(const struct fault_inject *r, const struct rs_packet *m,
                  const struct rs_conv_state *st)
{
    uint32_t pmtu = st != NULL && st->pmtu != 0 ? st->pmtu : 4096;

    if (r->has_len)
        return r->len;
    if (!rs_packet_has(m, RS_LAYER_RETH))
        return 0;
    uint32_t want = rs_reth_dmalen(rs_packet_at(m, RS_LAYER_RETH));
    return want < pmtu ? want : pmtu;
}

static void
fill_fields(const struct fault_inject *r, const struct rs_packet *m, uint32_t dqpn,
            uint32_t psn, uint32_t msn, struct rs_ib_fields *f)
{
    const uint8_t *bth = rs_packet_at(m, RS_LAYER_BTH);
    uint8_t base = m->opcode & 0xe0;    /* RC, or XRC: its responses are in its range */

    memset(f, 0, sizeof(*f));
    f->pkey = rs_bth_pkey(bth);
    f->migreq = rs_bth_migreq(bth);
    f->dest_qp = dqpn & 0xffffff;
    f->psn = psn & PSN_MASK;
    f->aeth.msn = msn & 0xffffff;
    switch (r->kind) {
    case FI_NAK:
        f->opcode = base | 0x11;
        f->aeth.syndrome = (uint8_t)(RS_AETH_NAK << 5 | (r->code & 0x1f));
        break;
    case FI_RNR:
        f->opcode = base | 0x11;
        f->aeth.syndrome = (uint8_t)(RS_AETH_RNR_NAK << 5 | (r->code & 0x1f));
        break;
    case FI_ACK:
        f->opcode = base | 0x11;
        f->aeth.syndrome = AETH_NO_CREDITS;
        break;
    case FI_READ_RESPONSE:
        f->opcode = base | r->opcode;
        f->aeth.syndrome = AETH_NO_CREDITS;
        break;
    case FI_CNP:
        f->opcode = 0x81;
        f->becn = true;     /* Annex A17.9.3 */
        break;
    }
}

/* The IP and UDP of a RoCEv2 packet from the matched one's: the same flow, its addresses
 * swapped when it goes back, and not marked CE (the congestion was the other packet's). */
static void
route_of(const struct rs_packet *m, bool back, struct rs_roce_route *rt)
{
    const uint8_t *udp = rs_packet_at(m, RS_LAYER_UDP);

    memset(rt, 0, sizeof(*rt));
    if (rs_packet_has(m, RS_LAYER_IPV4)) {
        const uint8_t *ip = rs_packet_at(m, RS_LAYER_IPV4);
        rt->family = 4;
        memcpy(rt->src, ip + (back ? 16 : 12), 4);
        memcpy(rt->dst, ip + (back ? 12 : 16), 4);
        rt->tos = ip[1];
        rt->ttl = ip[8];
        rt->ip_id = rs_load_be16(ip + 4);
        rt->df = (ip[6] & 0x40) != 0;
    } else {
        const uint8_t *ip = rs_packet_at(m, RS_LAYER_IPV6);
        uint32_t w = rs_load_be32(ip);
        rt->family = 6;
        memcpy(rt->src, ip + (back ? 24 : 8), 16);
        memcpy(rt->dst, ip + (back ? 8 : 24), 16);
        rt->tos = (uint8_t)(w >> 20);
        rt->flow_label = w & 0xfffff;
        rt->ttl = ip[7];
    }
    if ((rt->tos & 3) == 3)
        rt->tos = (uint8_t)((rt->tos & ~3) | 2);    /* ECT(0) */
    rt->sport = rs_load_be16(udp);
    rt->dport = rs_load_be16(udp + 2);
}

static void
grh_of(const struct rs_packet *m, bool back, struct rs_grh_fields *g)
{
    const uint8_t *h = rs_packet_at(m, RS_LAYER_GRH);
    uint32_t w = rs_load_be32(h);

    g->tclass = (uint8_t)(w >> 20);
    g->flow_label = w & 0xfffff;
    g->hop_limit = h[7];
    memcpy(g->sgid, h + (back ? 24 : 8), 16);
    memcpy(g->dgid, h + (back ? 8 : 24), 16);
}

uint32_t
fault_inject_build(const struct fault_inject *r, const struct rs_packet *m,
                   const struct rs_conv_state *st, uint8_t *out, uint32_t cap, bool *back)
{
    enum rs_layer net;

    if (!rs_packet_has(m, RS_LAYER_BTH) || rs_packet_has(m, RS_LAYER_ERF) ||
        rs_packet_has(m, RS_LAYER_SLL))
        return 0;
    const struct rs_ib_opcode *info = rs_ib_opcode_info(m->opcode);
    enum rs_ib_transport t = rs_ib_opcode_transport(m->opcode);
    if (info->name == NULL || (r->kind != FI_CNP && t != RS_IB_RC && t != RS_IB_XRC))
        return 0;
    if (m->encap == RS_ENCAP_ROCEV2 && rs_packet_has(m, RS_LAYER_UDP))
        net = rs_packet_has(m, RS_LAYER_IPV4) ? RS_LAYER_IPV4 : RS_LAYER_IPV6;
    else if (m->encap == RS_ENCAP_ROCEV1)
        net = RS_LAYER_GRH;
    else if (m->encap == RS_ENCAP_IB)
        net = RS_LAYER_LRH;
    else
        return 0;

    bool response = rs_ib_op_is_response(info->op);
    const uint8_t *bth = rs_packet_at(m, RS_LAYER_BTH);
    *back = !response || r->kind == FI_CNP;
    uint32_t dqpn = dest_qp(r, *back, response, st, rs_bth_destqp(bth));
    if (dqpn == QPN_UNKNOWN)
        return 0;
    uint32_t psn = r->has_psn ? r->psn : default_psn(r, m, response, st, rs_bth_psn(bth));
    uint32_t msn = r->has_msn ? r->msn : st != NULL && st->have_msn ? st->msn : 0;
    struct rs_ib_fields f;
    fill_fields(r, m, dqpn, psn, msn, &f);
    uint32_t plen = r->kind == FI_READ_RESPONSE ? read_response_len(r, m, st) : 0;
    uint8_t payload[4096];              /* one PMTU at most: read_response_len's bound */
    if (plen > sizeof(payload))
        return 0;

    /* What carries the network header (Ethernet and its tags), turned around too. */
    uint32_t l2 = m->span[net].off;
    if (l2 >= cap)
        return 0;
    memcpy(out, m->frame->data, l2);
    if (*back && rs_packet_has(m, RS_LAYER_ETH)) {
        uint8_t *eth = out + m->span[RS_LAYER_ETH].off, mac[6];
        memcpy(mac, eth, 6);
        memcpy(eth, eth + 6, 6);
        memcpy(eth + 6, mac, 6);
    }
    const uint8_t *pl = NULL;           /* the encoders write zeros for none */
    if (r->fill != 0) {
        memset(payload, r->fill, plen);
        pl = payload;
    }
    uint32_t n = 0;
    if (net == RS_LAYER_LRH) {
        const uint8_t *lrh = rs_packet_at(m, RS_LAYER_LRH);
        struct rs_lrh_fields l = {rs_lrh_vl(lrh), rs_lrh_lver(lrh), rs_lrh_sl(lrh), 0, 0};
        l.dlid = *back ? rs_lrh_slid(lrh) : rs_lrh_dlid(lrh);
        l.slid = *back ? rs_lrh_dlid(lrh) : rs_lrh_slid(lrh);
        struct rs_grh_fields g;
        if (rs_packet_has(m, RS_LAYER_GRH))
            grh_of(m, *back, &g);
        n = rs_encode_ib(out + l2, cap - l2, &l, rs_packet_has(m, RS_LAYER_GRH) ? &g : NULL,
                         &f, pl, plen, NULL, NULL);
    } else if (net == RS_LAYER_GRH) {
        struct rs_grh_fields g;
        grh_of(m, *back, &g);
        n = rs_encode_rocev1(out + l2, cap - l2, &g, &f, pl, plen, NULL, NULL);
    } else {
        struct rs_roce_route rt;
        route_of(m, *back, &rt);
        n = rs_encode_rocev2(out + l2, cap - l2, &rt, &f, pl, plen, NULL, NULL);
    }
    return n != 0 ? l2 + n : 0;
}
