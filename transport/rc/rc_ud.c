/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_ud.c - UD QPs (IBTA Vol 1, 9.8.4; Annex A17 for RoCEv2): SENDs of one packet to
 * any QP that holds the Q_Key, with nothing answered and nothing retried.
 *
 * A receive WQE gets the packet's network header in its first 40 bytes, then the
 * payload, as the verbs have it (ibv_post_recv(3): "the first 40 bytes ... GRH"). On
 * RoCEv2 that header is the IP header: an IPv6 one fills the 40 bytes, an IPv4 one
 * takes the last 20 after 20 zero bytes, which is where ibv_init_ah_from_wc() and rxe
 * put and look for it. Q_Keys with the high bit set in a work request stand for the
 * QP's own (C10-15).
 */
#include <string.h>

#include "rc_int.h"

#define UD_SEND_ONLY 0x64
#define UD_SEND_ONLY_IMM 0x65

/* The 40 bytes that precede the payload in the receive buffer. */
static void
grh_of(const struct rs_packet *p, uint8_t grh[RS_RC_UD_GRH_LEN])
{
    memset(grh, 0, RS_RC_UD_GRH_LEN);
    if (rs_packet_has(p, RS_LAYER_IPV4))
        memcpy(grh + 20, rs_packet_at(p, RS_LAYER_IPV4), 20);
    else
        memcpy(grh, rs_packet_at(p, RS_LAYER_IPV6), 40);
}

void
rc_ud_input(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    struct rs_rc_counters *cnt = &qp->ctx->cnt;
    struct rc_resp *r = &qp->resp;

    if (pkt->op != RS_OP_SEND || !rs_packet_has(pkt->p, RS_LAYER_DETH)) {
        cnt->drop_malformed++;
        return;
    }
    if (pkt->qkey != qp->attr.qkey) {
        cnt->drop_qkey++;
        return;
    }
    if (!rc_take_recv(qp)) {
        cnt->drop_ud_no_wqe++;
        return;
    }
    uint8_t grh[RS_RC_UD_GRH_LEN];
    uint64_t total = RS_RC_UD_GRH_LEN + (uint64_t)pkt->paylen;
    uint8_t status = RS_RC_WC_SUCCESS;
    grh_of(pkt->p, grh);
    if (total > r->rwqe.data.length)
        status = RS_RC_WC_LOC_LEN_ERR;
    else if (!rc_data_write(qp->ctx, &r->rwqe.data, 0, grh, RS_RC_UD_GRH_LEN) ||
             (pkt->paylen > 0 && !rc_data_write(qp->ctx, &r->rwqe.data, RS_RC_UD_GRH_LEN,
                                                pkt->payload, pkt->paylen)))
        status = RS_RC_WC_LOC_PROT_ERR;
    uint8_t flags = RS_RC_WC_GRH | ((pkt->info->hdrs & RS_HDR_IMMDT) ? RS_RC_WC_WITH_IMM : 0);
    r->src_qp = pkt->src_qp;
    rc_complete_recv(qp, status, RS_RC_WC_RECV, (uint32_t)total, flags, pkt->imm, 0);
    r->src_qp = 0;
    cnt->exec_send++;
}

static const uint8_t no_gid[16];

bool
rc_ud_emit(struct rs_rc_qp *qp, struct rc_swqe *w)
{
    struct rs_rc_ctx *ctx = qp->ctx;
    const struct rs_rc_ud_dest *d = &w->wr.ud;
    const uint8_t *payload = NULL;
    uint32_t len = (uint32_t)w->data.length;

    int addr = memcmp(d->local_gid, no_gid, 16) != 0 ? rc_addr_find(ctx, d->local_gid)
                                                     : rc_addr_for(ctx, d->gid);
    if (addr < 0 || rs_addr_family(ctx->addr[addr].gid) != rs_addr_family(d->gid)) {
        /* No address of ours reaches it: the request fails, the QP goes on. */
        rc_complete_send(qp, RS_RC_WC_LOC_QP_OP_ERR);
        return false;
    }
    if (len > 0) {
        payload = rc_data_read(ctx, &w->data, 0, len, ctx->scratch);
        if (payload == NULL) {
            rc_local_fault(qp);
            return false;
        }
    }
    struct rs_ib_fields f;
    memset(&f, 0, sizeof(f));
    f.opcode = w->wr.opcode == RS_RC_WR_SEND_WITH_IMM ? UD_SEND_ONLY_IMM : UD_SEND_ONLY;
    f.se = (w->wr.flags & RS_RC_SEND_SOLICITED) != 0;
    f.pkey = qp->attr.pkey;
    f.dest_qp = d->qpn & RC_PSN_MASK;
    f.psn = qp->req.npsn;
    f.deth.qkey = (d->qkey & 0x80000000u) ? qp->attr.qkey : d->qkey;
    f.deth.src_qp = qp->attr.qpn;
    f.imm = w->wr.imm;
    uint32_t fl = d->flow_label != 0 ? d->flow_label & 0xfffff
                                     : rc_flow_label(qp->attr.qpn, d->qpn);
    struct rc_route r = {(unsigned)addr, d->gid,
                         ctx->opts.sport_from_flow ? rc_flow_sport(fl) : ctx->opts.udp_sport,
                         fl, d->tclass, d->hop_limit};
    rc_tx_to(ctx, &r, &f, payload, len);
    ctx->cnt.req_packets++;
    return true;
}
