/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_grh.c - InfiniBand Global Route Header (IBTA Vol 1, 8.3), which RoCEv1
 * also carries after its Ethertype 0x8915.
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-------+---------------+---------------------------------------+
 * | IPVer |    TClass     |              Flow Label               |
 * +-------+---------------+---------------+-----------------------+
 * |           PayLen              |    NxtHdr     |    HopLmt     |
 * +-------------------------------+---------------+---------------+
 * |                        SGID (128 bits)                        |
 * +---------------------------------------------------------------+
 * |                        DGID (128 bits)                        |
 * +---------------------------------------------------------------+
 *
 * PayLen counts the bytes after the GRH up to and including the ICRC.
 */
#include "decode_int.h"
#include "fields/fields_int.h"

void
decode_grh(struct rs_packet *pkt, uint32_t off, uint32_t end)
{
    const uint8_t *d = pkt->frame->data;

    if (!decode_need(pkt, off, RS_GRH_LEN, end, "IB", "GRH exceeds the packet"))
        return;
    decode_set_layer(pkt, RS_LAYER_GRH, off, RS_GRH_LEN);
    uint32_t body = off + RS_GRH_LEN;
    end = declared_end(pkt, body, rs_load_be16(d + off + 4), end,
                       "IB", "GRH payload length exceeds the packet");
    if (d[off + 6] == RS_GRH_NXTHDR_IBA)
        decode_ib_transport(pkt, body, end);
}

const struct rs_field rs_fields_ib_grh[] = {
    RS_F_HDR("infiniband.grh", "Global Route Header", RS_LAYER_GRH, 1),
    {"infiniband.grh.ipver", "IP Version", RS_FT_UINT8, RS_BASE_DEC, 0xf0, NULL,
     "GRH version (6)", RS_LAYER_GRH, 0, 1, NULL, 2},
    {"infiniband.grh.tclass", "Traffic Class", RS_FT_UINT16, RS_BASE_DEC, 0x0ff0, NULL,
     "Traffic class", RS_LAYER_GRH, 0, 2, NULL, 2},
    {"infiniband.grh.flowlabel", "Flow Label", RS_FT_UINT32, RS_BASE_DEC, 0x000fffff, NULL,
     "Flow label", RS_LAYER_GRH, 0, 4, NULL, 2},
    {"infiniband.grh.paylen", "Payload Length", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "Bytes after the GRH up to and including the ICRC", RS_LAYER_GRH, 4, 2, NULL, 2},
    {"infiniband.grh.nxthdr", "Next Header", RS_FT_UINT8, RS_BASE_DEC, 0, NULL,
     "27 (0x1B) for the IBA transport", RS_LAYER_GRH, 6, 1, NULL, 2},
    {"infiniband.grh.hoplmt", "Hop Limit", RS_FT_UINT8, RS_BASE_DEC, 0, NULL, "Hop limit",
     RS_LAYER_GRH, 7, 1, NULL, 2},
    {"infiniband.grh.sgid", "Source GID", RS_FT_IPV6, RS_BASE_NONE, 0, NULL, "Source GID",
     RS_LAYER_GRH, 8, 16, NULL, 2},
    {"infiniband.grh.dgid", "Destination GID", RS_FT_IPV6, RS_BASE_NONE, 0, NULL,
     "Destination GID", RS_LAYER_GRH, 24, 16, NULL, 2},
    RS_F_END,
};
