/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_malformed.c - the items tshark 4.0 ends the tree of a frame it could not
 * dissect whole with: where a length contradicts another (its dissector threw), the
 * protocol item _ws.malformed and its expert item,
 *
 *   [Malformed Packet: IB]                                            _ws.malformed
 *       [Expert Info (Error/Malformed): Malformed Packet (Exception occurred)]
 *           [Malformed Packet (Exception occurred)]                   _ws.malformed.expert
 *           [Severity level: Error]
 *           [Group: Malformed]
 *       (hidden) Malformed Packet                                     _ws.malformed
 *
 * and where the capture's snapshot length ended the frame first, _ws.short alone,
 * "[Packet size limited during capture: IB truncated]". Our own reason stays in
 * roceshark.problem (fields_roceshark.c).
 */
#include <stdio.h>

#include <roceshark/dissectors/expert.h>

#include "fields/fields_int.h"
#include "net/net_int.h"

bool
rs_ws_malformed(const struct rs_packet *pkt)
{
    return (pkt->flags & RS_PKT_MALFORMED) &&
           !(pkt->flags & (RS_PKT_CUT_FIRST | RS_PKT_LONG_ONLY | RS_PKT_QUOTED));
}

bool
rs_ws_cut_short(const struct rs_packet *pkt)
{
    /* an IBA payload cut short raises nothing in tshark: it checks the length first */
    return (pkt->flags & RS_PKT_MALFORMED) && (pkt->flags & RS_PKT_CUT_FIRST) &&
           !(pkt->flags & RS_PKT_QUOTED) && !rs_packet_ib_payload_cut(pkt);
}

uint32_t
rs_ws_malformed_at(const struct rs_packet *pkt)
{
    for (int l = RS_LAYER_SLL; l >= RS_LAYER_ETH; l--)
        if (rs_packet_has(pkt, (enum rs_layer)l))
            return pkt->span[l].off + pkt->span[l].len;
    return 0;
}

bool
rs_ws_malformed_layer(const struct rs_packet *pkt)
{
    for (int l = RS_LAYER_ETH; l <= RS_LAYER_SLL; l++)
        if (rs_packet_has(pkt, (enum rs_layer)l))
            return false;
    return rs_ws_malformed(pkt) || rs_ws_cut_short(pkt);
}

static const char *
stopped(const struct rs_packet *pkt)
{
    return pkt->stopped != NULL ? pkt->stopped : "";
}

/* The items are protocols with no bytes of their own: where locate_malformed() says. */
bool
ws_item_without_bytes(bool present, unsigned occ, struct rs_value *out)
{
    if (occ != 0 || !present)
        return false;
    out->type = RS_FT_PROTOCOL;
    out->v.bytes.ptr = NULL;
    out->v.bytes.len = 0;
    return true;
}

static bool
get_malformed(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out)
{
    (void)f;
    return ws_item_without_bytes(rs_ws_malformed(pkt), occ, out);
}

static bool
get_short(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          struct rs_value *out)
{
    (void)f;
    return ws_item_without_bytes(rs_ws_cut_short(pkt), occ, out);
}

static size_t
label_malformed(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
                char *buf, size_t size)
{
    (void)v;
    if (f->flags & RS_FIELD_HIDDEN)
        return 0;       /* the hidden item under it: its name */
    return (size_t)snprintf(buf, size, "[Malformed Packet: %s]", stopped(pkt));
}

static size_t
label_short(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
            char *buf, size_t size)
{
    (void)f;
    (void)v;
    return (size_t)snprintf(buf, size, "[Packet size limited during capture: %s truncated]",
                            stopped(pkt));
}

/* No bytes: at the link layer's payload for a malformed frame, at 0 for a short one. */
static bool
locate_malformed(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 uint32_t *offset, uint32_t *length)
{
    (void)occ;
    *offset = f->get == get_malformed ? rs_ws_malformed_at(pkt) : 0;
    *length = 0;
    return true;
}

const struct rs_field rs_fields_malformed[] = {
    {"_ws.malformed", "Malformed Packet", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "",
     RS_NO_LAYER, 0, 0, get_malformed, 0, 0, .label = label_malformed,
     .locate = locate_malformed},
    RS_F_WS_EXPERT("_ws.malformed.expert", "Malformed Packet (Exception occurred)",
                   RS_WSX_MALFORMED, 1),
    {"_ws.malformed", "Malformed Packet", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "",
     RS_NO_LAYER, 0, 0, get_malformed, 1, RS_FIELD_HIDDEN, .label = label_malformed,
     .locate = locate_malformed},
    {"_ws.short", "Packet size limited during capture", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "", RS_NO_LAYER, 0, 0, get_short, 0, 0, .label = label_short,
     .locate = locate_malformed},
    RS_F_END,
};
