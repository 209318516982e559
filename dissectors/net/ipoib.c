/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ipoib.c - IP over InfiniBand (RFC 4391, 4392): the 4-byte encapsulation
 * header in front of the IP packet or ARP message that a native IB SEND
 * carries, on UD (datagram mode) and RC (connected mode) QPs alike.
 *
 *  0                   1                   2                   3
 * +-------------------------------+-------------------------------+
 * |  Type (an Ethertype)          |  Reserved (0)                 |
 * +-------------------------------+-------------------------------+
 *
 * Nothing in the IB headers says a payload is IPoIB, so, as Wireshark does,
 * a payload is taken for one when its type is one we decode (IPv4, IPv6,
 * ARP), its reserved half is zero and it is no MAD. Over RoCE the IP header
 * in front would be overwritten by the inner one, and IPoIB does not run
 * there: only native IB payloads are looked at.
 */
#include <roceshark/dissectors/mad.h>

#include "decode_int.h"
#include "fields/fields_int.h"
#include "net/value_tables.h"

#define IPOIB_HDR_LEN 4
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_ARP 0x0806
#define ETHERTYPE_IPV6 0x86dd

void
decode_ipoib(struct rs_packet *pkt, const struct rs_decode_opts *opts)
{
    if (opts->disable_ipoib || pkt->encap != RS_ENCAP_IB ||
        !rs_packet_has(pkt, RS_LAYER_PAYLOAD) ||
        pkt->span[RS_LAYER_PAYLOAD].len < IPOIB_HDR_LEN || rs_mad_carried(pkt))
        return;
    const struct rs_span *p = &pkt->span[RS_LAYER_PAYLOAD];
    const uint8_t *h = pkt->frame->data + p->off;
    uint16_t type = rs_load_be16(h);
    if (rs_load_be16(h + 2) != 0 ||
        (type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6 && type != ETHERTYPE_ARP))
        return;
    decode_set_layer(pkt, RS_LAYER_IPOIB, p->off, IPOIB_HDR_LEN);
    /* What follows ends where the payload does (payload_len: as declared). */
    decode_ethertype(pkt, opts, type, p->off + IPOIB_HDR_LEN, p->off + pkt->payload_len);
}

/* Wireshark shows the whole payload of an IPoIB packet as infiniband.payload. */
static bool
get_payload(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_IPOIB))
        return false;
    out->type = f->type;
    out->v.bytes.ptr = rs_packet_at(pkt, RS_LAYER_PAYLOAD);
    out->v.bytes.len = pkt->span[RS_LAYER_PAYLOAD].len;
    return true;
}

const struct rs_field rs_fields_ipoib[] = {
    /* Wireshark's name, and its tree's text from rs_ib_header_label() */
    {"infiniband.payload", "Payload", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
     "The payload of an IPoIB packet", RS_LAYER_PAYLOAD, 0, 0, get_payload, 1, RS_FIELD_HEADER,
     .label = rs_ib_header_label},
    {"infiniband.rwh.etype", "Ethertype", RS_FT_UINT16, RS_BASE_HEX, 0, rs_etype_vals,
     "The IPoIB header's type: what the payload carries", RS_LAYER_IPOIB, 0, 2, NULL, 2},
    {"infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, NULL, "Reserved",
     RS_LAYER_IPOIB, 2, 2, NULL, 2},
    RS_F_END,
};
