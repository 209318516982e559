/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_tx.c - turning header fields into packets on the link.
 *
 * Every packet is built by the dissector library's encoder (encode.h) into
 * the link's buffer: IPv4 with identification 0 and DF set, which is what
 * Linux puts on a datagram from an unconnected UDP socket with path-MTU
 * discovery on, so the ICRC we compute is the one the peer checks. IPv6
 * has no such field; the ICRC masks the traffic class, flow label and hop
 * limit, which the kernel then writes as it likes, as it writes the UDP
 * checksum when the link is a UDP socket.
 */
#include <string.h>

#include "rc_int.h"

void
rc_fields_init(const struct rs_rc_qp *qp, struct rs_ib_fields *f, uint8_t opcode, uint32_t psn)
{
    memset(f, 0, sizeof(*f));
    f->opcode = opcode;
    f->pkey = qp->attr.pkey;
    f->dest_qp = qp->attr.dest_qpn;
    f->psn = psn & RC_PSN_MASK;
}

uint32_t
rc_flow_label(uint32_t a, uint32_t b)
{
    /* A hash of the two QP numbers folded to 20 bits, as rdma_calc_flow_label() does,
     * so that rxe and we give one connection the same label and source port. */
    uint64_t v = (uint64_t)a * b;

    v ^= v >> 20;
    v ^= v >> 40;
    return (uint32_t)(v & 0xfffff);
}

uint16_t
rc_flow_sport(uint32_t flow_label)
{
    /* The top quarter of the port space, the ephemeral range RoCEv2 (A17.2.3) uses
     * for entropy, from the label's low bits (rdma_flow_label_to_udp_sport). */
    uint32_t fl_low = flow_label & 0x03fff, fl_high = flow_label & 0xfc000;

    fl_low ^= fl_high >> 14;
    return (uint16_t)(fl_low | 0xc000);
}

void
rc_tx_to(struct rs_rc_ctx *ctx, const struct rc_route *rt, const struct rs_ib_fields *f,
         const void *payload, uint32_t len)
{
    const struct rc_addr *a = &ctx->addr[rt->addr];
    struct rs_roce_route r;

    memset(&r, 0, sizeof(r));
    if (rs_addr_is_v4mapped(a->gid)) {
        r.family = 4;
        memcpy(r.src, a->gid + 12, 4);
        memcpy(r.dst, rt->peer_gid + 12, 4);
    } else {
        r.family = 6;
        memcpy(r.src, a->gid, 16);
        memcpy(r.dst, rt->peer_gid, 16);
        r.flow_label = rt->flow_label & 0xfffff;
    }
    r.sport = rt->sport;
    r.dport = RS_ROCEV2_UDP_PORT;
    /* The context's ECN bits (a test's CE mark) stay; the class is the QP's. */
    r.tos = ctx->opts.tos | (rt->tclass & 0xfc);
    r.ttl = rt->hop_limit != 0 ? rt->hop_limit : 64;
    r.ip_id = 0;
    r.df = true;
    uint8_t *buf = a->link.tx_buf(a->link.arg);
    struct rs_ib_fields g = *f;
    struct rs_frame frame;
    struct rs_packet view;
    g.unfinished = a->link.sender_writes_udp && r.family == 6;
    uint32_t n = rs_encode_rocev2(buf, RS_RC_MAX_PACKET, &r, &g, payload, len, &frame, &view);
    if (n != 0 && g.unfinished)
        rs_encode_finish(&view, RS_ENCODE_KEEP_UDP_CHECKSUM);
    if (n == 0)
        return;     /* cannot happen: payloads never exceed the PMTU */
    a->link.tx_send(a->link.arg, n);
    ctx->cnt.tx_packets++;
}

void
rc_tx(struct rs_rc_qp *qp, const struct rs_ib_fields *f, const void *payload, uint32_t len)
{
    struct rc_route r = {qp->addr, qp->attr.peer_gid, qp->sport, qp->flow_label,
                         qp->attr.tclass, qp->attr.hop_limit};

#ifdef RS_RC_MISBEHAVE
    if ((rs_rc_misbehave & RS_RC_MISBEHAVE_MSN_SHORT) &&
        (rs_ib_opcode_info(f->opcode)->hdrs & RS_HDR_AETH)) {  /* a broken responder */
        struct rs_ib_fields g = *f;
        g.aeth.msn = rc_psn_add(g.aeth.msn, RC_PSN_MASK);
        rc_tx_to(qp->ctx, &r, &g, payload, len);
        return;
    }
#endif
    rc_tx_to(qp->ctx, &r, f, payload, len);
}

/* End-to-end flow control: the credit count advertises the receive WQEs
 * still free (the one a message under way holds is out of the queue already). A QP
 * of an SRQ has no credits of its own to give: it says "invalid" (0x1f). */
uint8_t
rc_ack_syndrome(const struct rs_rc_qp *qp)
{
    if (qp->srq != NULL)
        return 0x1f;
    return rs_aeth_credit_code(rc_rq_count(qp)) & 0x1f;
}

void
rc_tx_ack(struct rs_rc_qp *qp, uint8_t syndrome, uint32_t psn, uint32_t msn)
{
    struct rs_ib_fields f;

    rc_fields_init(qp, &f, 0x11, psn);
    f.aeth.syndrome = syndrome;
    f.aeth.msn = msn;
    rc_tx(qp, &f, NULL, 0);
}

#ifdef RS_RC_MISBEHAVE
/* An ACK that carries, where no payload may be, the IPv4, UDP, BTH and AETH headers of
 * another ACK: a double-encapsulated answer, as a broken stack sends one. */
void
rc_tx_malformed_ack(struct rs_rc_qp *qp, uint32_t psn, uint32_t msn)
{
    struct rs_ib_fields f;
    uint8_t inner[20 + 8 + RS_BTH_LEN + 4];

    memset(inner, 0, sizeof(inner));
    inner[0] = 0x45;
    rs_store_be16(inner + 2, sizeof(inner));
    inner[8] = 64;
    inner[9] = 17;
    rs_store_be16(inner + 22, RS_ROCEV2_UDP_PORT);
    rs_store_be16(inner + 24, sizeof(inner) - 20);
    rc_fields_init(qp, &f, 0x11, psn);
    f.aeth.syndrome = rc_ack_syndrome(qp);
    f.aeth.msn = msn;
    rs_encode_ib_headers(inner + 28, &f, 0);
    rc_tx(qp, &f, inner, sizeof(inner));
}
#endif

/* Annex A17.9.3: BTH with BECN set, opcode 0x81, the destination QP of the
 * flow that saw congestion, then 16 reserved bytes. */
void
rc_tx_cnp(struct rs_rc_qp *qp)
{
    struct rs_ib_fields f;

    rc_fields_init(qp, &f, 0x81, 0);
    f.becn = true;
    rc_tx(qp, &f, NULL, 0);
}
