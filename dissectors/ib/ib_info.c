/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_info.c - InfiniBand's part of the Info column (info.h): what the packet does to an RDMA
 * engineer (opcode, QP, PSN, the BTH's flags, every extension header after it, the
 * payload's length and the NAK reason); tshark's shorter text under -o compat is
 * ib_info_tshark.c's. The headers are read through ib_headers.h, so a field shown here is
 * one accessor away.
 */
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/info.h>
#include <roceshark/dissectors/mad.h>
#include <roceshark/dissectors/wire.h>

/* An RNR NAK's timer, as the Info column shows it. */
static void
info_rnr(struct rs_info *in, uint8_t syn)
{
    uint32_t us = rs_aeth_rnr_timer_us(syn);
    char hundredths[3] = {(char)('0' + us % 1000 / 100), (char)('0' + us % 100 / 10), '\0'};

    rs_info_dec(in, " RNR NAK [delay ", us / 1000);
    rs_info_str(in, ".");
    rs_info_str(in, hundredths);
    rs_info_str(in, " ms]");
}

void
rs_ib_write_rnr(struct rs_info *in, const struct rs_packet *pkt)
{
    if (!rs_packet_has(pkt, RS_LAYER_AETH))
        return;
    uint8_t syn = rs_aeth_syndrome(rs_packet_at(pkt, RS_LAYER_AETH));
    if (rs_aeth_kind(syn) == RS_AETH_RNR_NAK)
        info_rnr(in, syn);
}

static void
info_aeth(struct rs_info *in, const uint8_t *aeth)
{
    uint8_t syn = rs_aeth_syndrome(aeth);
    uint32_t msn = rs_aeth_msn(aeth);

    switch (rs_aeth_kind(syn)) {
    case RS_AETH_ACK: {
        int credits = rs_aeth_credits(syn);
        rs_info_dec(in, " MSN=", msn);
        if (credits >= 0)
            rs_info_dec(in, " Credits=", (uint64_t)credits);
        break;
    }
    case RS_AETH_RNR_NAK:
        info_rnr(in, syn);
        rs_info_dec(in, " MSN=", msn);
        break;
    case RS_AETH_NAK: {
        /* Piece by piece, as the headers below: vsnprintf was most of a NAK's Info. */
        const char *name = rs_aeth_nak_name(rs_aeth_code(aeth));
        if (name != NULL) {
            rs_info_str(in, " NAK [");
            rs_info_str(in, name);
        } else {
            rs_info_dec(in, " NAK [Reserved code ", rs_aeth_code(aeth));
        }
        rs_info_dec(in, "] MSN=", msn);
        break;
    }
    default:
        rs_info_hex(in, " [Reserved syndrome 0x", syn, 2);
        rs_info_dec(in, "] MSN=", msn);
        break;
    }
}

static void
info_ext_headers(struct rs_info *in, const struct rs_packet *pkt)
{
    if (rs_packet_has(pkt, RS_LAYER_DETH))
        rs_info_hex(in, " SrcQP=0x", rs_deth_srcqp(rs_packet_at(pkt, RS_LAYER_DETH)), 6);
    if (rs_packet_has(pkt, RS_LAYER_XRCETH))
        rs_info_hex(in, " XRCSRQ=0x", rs_xrceth_xrcsrq(rs_packet_at(pkt, RS_LAYER_XRCETH)), 6);
    if (rs_packet_has(pkt, RS_LAYER_RETH)) {
        const uint8_t *reth = rs_packet_at(pkt, RS_LAYER_RETH);
        rs_info_hex(in, " VA=0x", rs_reth_va(reth), 1);
        rs_info_hex(in, " R_Key=0x", rs_reth_rkey(reth), 8);
        rs_info_dec(in, " Len=", rs_reth_dmalen(reth));
    }
    if (rs_packet_has(pkt, RS_LAYER_ATOMICETH)) {
        const uint8_t *a = rs_packet_at(pkt, RS_LAYER_ATOMICETH);
        rs_info_hex(in, " VA=0x", rs_atomiceth_va(a), 1);
        rs_info_hex(in, " R_Key=0x", rs_atomiceth_rkey(a), 8);
        rs_info_dec(in, " Swap/Add=", rs_atomiceth_swap(a));
        rs_info_dec(in, " Cmp=", rs_atomiceth_compare(a));
    }
    if (rs_packet_has(pkt, RS_LAYER_AETH))
        info_aeth(in, rs_packet_at(pkt, RS_LAYER_AETH));
    if (rs_packet_has(pkt, RS_LAYER_ATOMICACKETH))
        rs_info_dec(in, " Orig=", rs_atomicacketh_orig(rs_packet_at(pkt, RS_LAYER_ATOMICACKETH)));
    if (rs_packet_has(pkt, RS_LAYER_IMMDT))
        rs_info_hex(in, " Imm=0x", rs_immdt_data(rs_packet_at(pkt, RS_LAYER_IMMDT)), 8);
    if (rs_packet_has(pkt, RS_LAYER_IETH))
        rs_info_hex(in, " Inv_R_Key=0x", rs_ieth_rkey(rs_packet_at(pkt, RS_LAYER_IETH)), 8);
}

static void
info_opcode(struct rs_info *in, uint8_t opcode)
{
    const struct rs_ib_opcode *op = rs_ib_opcode_info(opcode);

    if (op->name != NULL)
        rs_info_str(in, op->name);
    else
        rs_info_add(in, "%s Opcode 0x%02x", rs_ib_transport_name(opcode), opcode);
}

void
rs_ib_write_info(struct rs_info *in, const struct rs_packet *pkt)
{
    const struct rs_ib_opcode *op = rs_ib_opcode_info(pkt->opcode);
    const uint8_t *bth = rs_packet_at(pkt, RS_LAYER_BTH);

    if (rs_display_get()->info_tshark) {
        rs_ib_write_info_tshark(in, pkt);
        return;
    }
    info_opcode(in, pkt->opcode);
    rs_info_hex(in, " QP=0x", rs_bth_destqp(bth), 6);
    rs_info_dec(in, " PSN=", rs_bth_psn(bth));
    if (rs_bth_ackreq(bth))
        rs_info_str(in, " AckReq");
    if (rs_bth_fecn(bth))
        rs_info_str(in, " FECN");
    if (rs_bth_becn(bth))
        rs_info_str(in, " BECN");
    if (pkt->ecn == 3)
        rs_info_str(in, " ECN-CE");
    info_ext_headers(in, pkt);
    if ((op->hdrs & RS_HDR_PAYLOAD) && rs_packet_has(pkt, RS_LAYER_PAYLOAD))
        rs_info_dec(in, " Payload=", pkt->payload_len);
    /* A MAD named as tshark names it ("CM: ConnectRequest", "SubnGet(SMInfo)"). */
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);
    const char *cm = rs_ib_cm_mad_name(pkt);
    char name[96];
    if (cm != NULL)
        rs_info_add(in, " CM: %s", cm);
    else if (mad != NULL && rs_mad_info(mad, len, name, sizeof(name)))
        rs_info_add(in, " %s", name);
}
