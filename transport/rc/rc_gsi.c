/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_gsi.c - QP 1, the General Service Interface, as a UD QP over RoCEv2:
 * the CM's MADs in and out (IBTA Vol 1, 13.5; Annex A17: RoCEv2 carries
 * them as it carries any UD SEND, with the IP header as the GRH).
 *
 * The context only moves the bytes: the CM engine (transport/cm) decides what
 * they mean. Packets are built by the dissector library's encoder, as every
 * other packet of the transport is.
 */
#include <string.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/cm_mad.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/wire.h>

#include "rc_int.h"

#define UD_SEND_ONLY 0x64
#define GSI_PKEY 0xffff

void
rs_rc_gsi_register(struct rs_rc_ctx *ctx, rs_rc_gsi_fn fn, void *arg)
{
    ctx->gsi = fn;
    ctx->gsi_arg = arg;
}

/* The header checks of header_check() up to the QP number have passed. */
void
rc_gsi_input(struct rs_rc_ctx *ctx, const struct rs_packet *p)
{
    const uint8_t *bth = rs_packet_at(p, RS_LAYER_BTH);

    if (ctx->gsi == NULL || p->opcode != UD_SEND_ONLY || (p->flags & RS_PKT_MALFORMED) ||
        !rs_packet_has(p, RS_LAYER_DETH) || !rs_packet_has(p, RS_LAYER_PAYLOAD) ||
        (rs_bth_pkey(bth) & 0x7fff) != (GSI_PKEY & 0x7fff)) {
        ctx->cnt.drop_gsi++;
        return;
    }
    const uint8_t *deth = rs_packet_at(p, RS_LAYER_DETH);
    if (rs_deth_qkey(deth) != RS_CM_QKEY) {
        ctx->cnt.drop_gsi++;
        return;
    }
    uint8_t gid[16];
    rc_packet_source(p, gid);
    ctx->cnt.gsi_received++;
    ctx->gsi(ctx->gsi_arg, gid, rs_deth_srcqp(deth), rs_packet_at(p, RS_LAYER_PAYLOAD),
             p->span[RS_LAYER_PAYLOAD].len, ctx->now);
}

int
rs_rc_gsi_send(struct rs_rc_ctx *ctx, const uint8_t peer_gid[16], uint32_t dest_qp,
               const void *mad, uint32_t len, char *err)
{
    struct rs_ib_fields f;

    int addr = rc_addr_for(ctx, peer_gid);
    if (addr < 0)
        return rs_error(err, RS_EINVAL, "QP 1: the peer is not of the IP version of our "
                        "address");
    memset(&f, 0, sizeof(f));
    f.opcode = UD_SEND_ONLY;
    f.pkey = GSI_PKEY;
    f.dest_qp = dest_qp & RC_PSN_MASK;
    f.psn = ctx->gsi_psn++ & RC_PSN_MASK;
    f.ackreq = true;        /* as Linux's GSI sends them */
    f.deth.qkey = RS_CM_QKEY;
    f.deth.src_qp = RS_CM_QP1;
    struct rc_route r = {(unsigned)addr, peer_gid, ctx->opts.udp_sport, 0, 0, 0};
    rc_tx_to(ctx, &r, &f, mad, len);
    return 0;
}
