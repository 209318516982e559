/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_transport.c - the IBA transport packet: BTH, extended transport
 * headers, payload, pad and ICRC (IBTA Vol 1, 9.2 and 9.3).
 *
 * Base Transport Header:
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+-+-+---+-------+-------------------------------+
 * |    OpCode     |S|M|Pad| TVer  |            P_Key              |
 * +-+-+-----------+-+-+---+-------+-------------------------------+
 * |F|B|   Resv6   |             Destination QP                    |
 * +-+-+-----------+-----------------------------------------------+
 * |A|   Resv7     |        Packet Sequence Number                 |
 * +-+-------------+-----------------------------------------------+
 *
 * The opcode selects the extended headers (ib_opcode.c). What remains
 * before the 4-byte ICRC is payload followed by PadCnt pad bytes, which
 * round the payload up to a multiple of four.
 */
#include <roceshark/dissectors/common.h>

#include "decode_int.h"
#include "fields/fields_int.h"

/* In wire order (IBTA 9.2, "the order of headers"); the encoder walks it too. */
const struct ib_ext_header ib_ext_headers[IB_N_EXT_HEADERS] = {
    {RS_HDR_RDETH, RS_LAYER_RDETH, RS_RDETH_LEN},
    {RS_HDR_DETH, RS_LAYER_DETH, RS_DETH_LEN},
    {RS_HDR_XRCETH, RS_LAYER_XRCETH, RS_XRCETH_LEN},
    {RS_HDR_RETH, RS_LAYER_RETH, RS_RETH_LEN},
    {RS_HDR_ATOMICETH, RS_LAYER_ATOMICETH, RS_ATOMICETH_LEN},
    {RS_HDR_AETH, RS_LAYER_AETH, RS_AETH_LEN},
    {RS_HDR_ATOMICACKETH, RS_LAYER_ATOMICACKETH, RS_ATOMICACKETH_LEN},
    {RS_HDR_IMMDT, RS_LAYER_IMMDT, RS_IMMDT_LEN},
    {RS_HDR_IETH, RS_LAYER_IETH, RS_IETH_LEN},
    {RS_HDR_CNP, RS_LAYER_CNP, RS_CNP_LEN},
};

/* Reserved opcodes are malformed; the vendor-specific range is opaque. */
static bool
opcode_is_reserved(uint8_t opcode, const struct rs_ib_opcode *info)
{
    return info->name == NULL && rs_ib_opcode_transport(opcode) < RS_IB_VENDOR6;
}

/* Records payload and pad, which lie between hdr_end and icrc. */
static void
decode_payload(struct rs_packet *pkt, const struct rs_ib_opcode *info, uint32_t hdr_end,
               uint32_t icrc)
{
    uint32_t caplen = pkt->frame->caplen;
    uint32_t body = icrc - hdr_end;
    uint32_t pad = (pkt->frame->data[pkt->span[RS_LAYER_BTH].off + 1] >> 4) & 3;

    if (body > 0 && !(info->hdrs & RS_HDR_PAYLOAD) && info->name != NULL) {
        decode_malformed(pkt, "IB", "payload on an opcode that carries none");
        pad = 0;
    } else if (pad > body) {
        decode_malformed(pkt, "IB", "pad count exceeds the payload");
        pad = body;
    }
    pkt->payload_len = body - pad;
    /* Spans stay inside the captured bytes; payload_len keeps the truth. */
    uint32_t cap_end = caplen < hdr_end ? hdr_end : caplen;
    uint32_t plen = body - pad;
    if (hdr_end + plen > cap_end)
        plen = cap_end - hdr_end;
    decode_set_layer(pkt, RS_LAYER_PAYLOAD, hdr_end, plen);
    if (pad > 0 && rs_span_fits(hdr_end + body - pad, pad, caplen))
        decode_set_layer(pkt, RS_LAYER_PAD, hdr_end + body - pad, pad);
}

void
decode_ib_transport(struct rs_packet *pkt, uint32_t off, uint32_t end)
{
    const uint8_t *d = pkt->frame->data;

    if (!decode_need(pkt, off, RS_BTH_LEN, end, "IB", "BTH exceeds the packet"))
        return;
    decode_set_layer(pkt, RS_LAYER_BTH, off, RS_BTH_LEN);
    pkt->opcode = d[off];
    if ((d[off + 1] & 0x0f) != 0)
        decode_malformed(pkt, "IB", "unknown BTH transport header version");

    const struct rs_ib_opcode *info = rs_ib_opcode_info(pkt->opcode);
    if (opcode_is_reserved(pkt->opcode, info))
        decode_malformed(pkt, "IB", "reserved BTH opcode");

    /* Every IBA transport packet ends with a 4-byte ICRC. */
    uint32_t hdrs_len = RS_BTH_LEN + info->hdrs_len;
    if (!rs_span_fits(off, hdrs_len + RS_ICRC_LEN, end)) {
        decode_malformed(pkt, "IB", "packet too short for the headers of its opcode");
        /* Decode what fits anyway, so the user sees how far it went. */
    }
    bool icrc_room = rs_span_fits(off, RS_BTH_LEN + RS_ICRC_LEN, end);
    uint32_t icrc = icrc_room ? end - RS_ICRC_LEN : end;
    uint32_t cap_end = end < pkt->frame->caplen ? end : pkt->frame->caplen;
    decode_set_layer(pkt, RS_LAYER_IB, off, cap_end - off);

    uint32_t pos = off + RS_BTH_LEN;
    for (size_t i = 0; i < IB_N_EXT_HEADERS; i++) {
        const struct ib_ext_header *h = &ib_ext_headers[i];
        if (!(info->hdrs & h->bit))
            continue;
        if (!decode_need(pkt, pos, h->len, icrc, "IB", "extended header exceeds the packet"))
            return;
        decode_set_layer(pkt, (enum rs_layer)h->layer, pos, h->len);
        pos += h->len;
    }
    if (!icrc_room)
        return;     /* reported above */
    decode_payload(pkt, info, pos, icrc);
    if (decode_need(pkt, icrc, RS_ICRC_LEN, end, "IB", "ICRC exceeds the packet"))
        decode_set_layer(pkt, RS_LAYER_ICRC, icrc, RS_ICRC_LEN);
}

const struct rs_field rs_fields_ib_bth[] = {
    RS_F_HDR("infiniband.bth", "Base Transport Header", RS_LAYER_BTH, 1),
    {"infiniband.bth.opcode", "Opcode", RS_FT_UINT8, RS_BASE_DEC, 0, rs_ib_opcode_ws_vals,
     "Transport service and operation", RS_LAYER_BTH, 0, 1, NULL, 2,
     .aliases = rs_ib_opcode_vals},
    {"infiniband.bth.se", "Solicited Event", RS_FT_BOOLEAN, RS_BASE_NONE, 0x80, NULL,
     "The requester asks for a solicited event", RS_LAYER_BTH, 1, 1, NULL, 2},
    {"infiniband.bth.m", "MigReq", RS_FT_BOOLEAN, RS_BASE_NONE, 0x40, NULL,
     "Path migration state", RS_LAYER_BTH, 1, 1, NULL, 2},
    {"infiniband.bth.padcnt", "Pad Count", RS_FT_UINT8, RS_BASE_DEC, 0x30, NULL,
     "Pad bytes after the payload", RS_LAYER_BTH, 1, 1, NULL, 2},
    {"infiniband.bth.tver", "Header Version", RS_FT_UINT8, RS_BASE_DEC, 0x0f, NULL,
     "Transport header version (0)", RS_LAYER_BTH, 1, 1, NULL, 2},
    {"infiniband.bth.p_key", "Partition Key", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "Partition key", RS_LAYER_BTH, 2, 2, NULL, 2},
    {"infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, NULL, "Reserved",
     RS_LAYER_BTH, 4, 1, NULL, 2},
    {"roceshark.bth.fecn", "FECN", RS_FT_BOOLEAN, RS_BASE_NONE, 0x80, NULL,
     "Forward explicit congestion notification", RS_LAYER_BTH, 4, 1, NULL, 2},
    {"roceshark.bth.becn", "BECN", RS_FT_BOOLEAN, RS_BASE_NONE, 0x40, NULL,
     "Backward explicit congestion notification (set on CNPs)", RS_LAYER_BTH, 4, 1, NULL, 2},
    {"infiniband.bth.destqp", "Destination Queue Pair", RS_FT_UINT24, RS_BASE_HEX, 0, NULL,
     "Destination QP number", RS_LAYER_BTH, 5, 3, NULL, 2},
    {"infiniband.bth.a", "Acknowledge Request", RS_FT_BOOLEAN, RS_BASE_NONE, 0x80, NULL,
     "The requester asks for an ACK", RS_LAYER_BTH, 8, 1, NULL, 2},
    {"infiniband.bth.reserved7", "Reserved (7 bits)", RS_FT_UINT8, RS_BASE_DEC, 0x7f, NULL,
     "Reserved", RS_LAYER_BTH, 8, 1, NULL, 2},
    {"infiniband.bth.psn", "Packet Sequence Number", RS_FT_UINT24, RS_BASE_DEC, 0, NULL,
     "Packet sequence number", RS_LAYER_BTH, 9, 3, NULL, 2},
    {"roceshark.bth.service", "Transport Service", RS_FT_UINT8, RS_BASE_DEC, 0xe0,
     rs_ib_service_vals, "Top three opcode bits: 0 RC, 1 UC, 2 RD, 3 UD, 4 CNP, 5 XRC",
     RS_LAYER_BTH, 0, 1, NULL, 2},
    RS_F_END,
};
