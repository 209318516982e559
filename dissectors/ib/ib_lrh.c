/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_lrh.c - InfiniBand Local Route Header (IBTA Vol 1, 7.7).
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-------+-------+-------+---+---+-------------------------------+
 * |  VL   | LVer  |  SL   |rsv|LNH|             DLID              |
 * +-------+-------+-------+---+---+-------------------------------+
 * |  rsv5   |    PktLen (words)   |             SLID              |
 * +---------+---------------------+-------------------------------+
 *
 * PktLen counts 4-byte words from the first byte of the LRH to the last
 * byte of the ICRC; the 2-byte VCRC follows. LNH says what comes next:
 * 0 raw, 1 raw IPv6, 2 IBA transport (BTH), 3 GRH then IBA transport.
 */
#include <roceshark/dissectors/wire.h>

#include "decode_int.h"
#include "fields/fields_int.h"

#define LNH_RAW 0
#define LNH_IPV6 1
#define LNH_IBA_LOCAL 2
#define LNH_IBA_GLOBAL 3

static const struct rs_value_string lnh_vals[] = {
    {LNH_RAW, "Raw"},
    {LNH_IPV6, "IPv6 (non-IBA transport)"},
    {LNH_IBA_LOCAL, "IBA local"},
    {LNH_IBA_GLOBAL, "IBA global"},
    {0, NULL},
};

void
decode_lrh(struct rs_packet *pkt, uint32_t off, uint32_t end)
{
    const uint8_t *d = pkt->frame->data;

    pkt->encap = RS_ENCAP_IB;
    if (!decode_need(pkt, off, RS_LRH_LEN, end, "IB", "LRH exceeds the frame"))
        return;
    decode_set_layer(pkt, RS_LAYER_LRH, off, RS_LRH_LEN);
    uint32_t words = rs_load_be16(d + off + 4) & 0x7ff;
    uint32_t ib_len = words * 4;
    if (ib_len < RS_LRH_LEN) {
        decode_malformed(pkt, "IB", "LRH packet length shorter than the LRH");
        return;
    }
    if (rs_span_fits(off, ib_len + RS_VCRC_LEN, end)) {
        end = off + ib_len;
        if (rs_span_fits(end, RS_VCRC_LEN, pkt->frame->caplen))
            decode_set_layer(pkt, RS_LAYER_VCRC, end, RS_VCRC_LEN);
    } else {
        decode_malformed(pkt, "IB", "LRH packet length exceeds the frame");
    }

    switch (d[off + 1] & 3) {
    case LNH_IBA_LOCAL:
        decode_ib_transport(pkt, off + RS_LRH_LEN, end);
        break;
    case LNH_IBA_GLOBAL:
        decode_grh(pkt, off + RS_LRH_LEN, end);
        break;
    default:
        break;      /* raw datagrams: no IBA transport headers to decode */
    }
}

/* The InfiniBand protocol item spans whatever IBA headers the frame has. */
static bool
get_infiniband(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               struct rs_value *out)
{
    (void)f;
    if (occ != 0 || pkt->encap == RS_ENCAP_NONE || pkt->encap == RS_ENCAP_IWARP)
        return false;
    /* From its first header to the end of its last (the CRCs), as Wireshark's item: the
     * bytes after an IB header's layers, the frame's padding included, are its. */
    uint32_t start = UINT32_MAX, end = 0;
    for (int l = RS_LAYER_LRH; l <= RS_LAYER_VCRC; l++) {
        if (!rs_packet_has(pkt, (enum rs_layer)l))
            continue;
        const struct rs_span *sp = &pkt->span[l];
        if (sp->off < start)
            start = sp->off;
        if (sp->off + sp->len > end)
            end = sp->off + sp->len;
    }
    if (rs_packet_has(pkt, RS_LAYER_UDP)) {
        /* over UDP, the whole datagram's payload, a BTH cut short too */
        if (start == UINT32_MAX)
            start = pkt->span[RS_LAYER_UDP].off + pkt->span[RS_LAYER_UDP].len;
        uint32_t ulen = rs_load_be16(rs_packet_at(pkt, RS_LAYER_UDP) + 4);
        uint32_t udp_end = pkt->span[RS_LAYER_UDP].off + ulen;
        end = udp_end < pkt->frame->caplen ? udp_end : pkt->frame->caplen;
    } else if (pkt->encap == RS_ENCAP_IB) {
        end = pkt->frame->caplen;
    }
    out->type = RS_FT_PROTOCOL;
    out->v.bytes.ptr = start < end ? pkt->frame->data + start : NULL;
    out->v.bytes.len = start < end ? end - start : 0;
    return true;
}

const struct rs_field rs_fields_ib_lrh[] = {
    {"infiniband", "InfiniBand", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "InfiniBand transport (native, RoCEv1 or RoCEv2)", RS_NO_LAYER, 0, 0, get_infiniband, 0,
     RS_FIELD_QUOTABLE},
    RS_F_HDR("infiniband.lrh", "Local Route Header", RS_LAYER_LRH, 1),
    {"infiniband.lrh.vl", "Virtual Lane", RS_FT_UINT8, RS_BASE_HEX, 0xf0, NULL,
     "Virtual lane the packet uses", RS_LAYER_LRH, 0, 1, NULL, 2},
    {"infiniband.lrh.lver", "Link Version", RS_FT_UINT8, RS_BASE_DEC, 0x0f, NULL,
     "Link protocol version", RS_LAYER_LRH, 0, 1, NULL, 2},
    {"infiniband.lrh.sl", "Service Level", RS_FT_UINT8, RS_BASE_DEC, 0xf0, NULL,
     "Service level", RS_LAYER_LRH, 1, 1, NULL, 2},
    {"infiniband.lrh.reserved2", "Reserved (2 bits)", RS_FT_UINT8, RS_BASE_DEC, 0x0c, NULL,
     "Reserved", RS_LAYER_LRH, 1, 1, NULL, 2},
    /* Wireshark names no LNH value: ours are only accepted, never shown. */
    {"infiniband.lrh.lnh", "Link Next Header", RS_FT_UINT8, RS_BASE_HEX, 0x03, NULL,
     "What follows the LRH", RS_LAYER_LRH, 1, 1, NULL, 2, .aliases = lnh_vals},
    {"infiniband.lrh.dlid", "Destination Local ID", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "Destination LID", RS_LAYER_LRH, 2, 2, NULL, 2},
    {"infiniband.lrh.reserved5", "Reserved (5 bits)", RS_FT_UINT16, RS_BASE_DEC, 0xf800, NULL,
     "Reserved", RS_LAYER_LRH, 4, 2, NULL, 2},
    {"infiniband.lrh.pktlen", "Packet Length", RS_FT_UINT16, RS_BASE_DEC, 0x07ff, NULL,
     "4-byte words from the LRH to the ICRC", RS_LAYER_LRH, 4, 2, NULL, 2},
    {"infiniband.lrh.slid", "Source Local ID", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "Source LID", RS_LAYER_LRH, 6, 2, NULL, 2},
    RS_F_END,
};
