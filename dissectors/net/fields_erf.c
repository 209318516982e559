/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_erf.c - erf.*: an ERF record's header, as Wireshark shows it: a pseudo-header of
 * the capture, so each item covers no bytes of the packet (size 0, position 0). The
 * timestamp is little-endian; the rest big-endian.
 */
#include <stdio.h>

#include <roceshark/dissectors/wire.h>

#include "fields/fields_int.h"

/* ERF record types (Endace's ERF types reference), as Wireshark names them and in the
 * order tshark lists them (-G values). */
static const struct rs_value_string erf_type_vals[] = {
    {0, "LEGACY"},           {1, "HDLC_POS"},        {2, "ETH"},
    {3, "ATM"},              {4, "AAL5"},            {5, "MC_HDLC"},
    {6, "MC_RAW"},           {7, "MC_ATM"},          {8, "MC_RAW_CHANNEL"},
    {9, "MC_AAL5"},          {10, "COLOR_HDLC_POS"}, {11, "COLOR_ETH"},
    {19, "COLOR_HASH_POS"},  {20, "COLOR_HASH_ETH"}, {12, "MC_AAL2 "},
    {13, "IP_COUNTER"},      {14, "TCP_FLOW_COUNTER"}, {15, "DSM_COLOR_HDLC_POS"},
    {16, "DSM_COLOR_ETH "},  {17, "COLOR_MC_HDLC_POS"}, {18, "AAL2"},
    {48, "PAD"},             {21, "INFINIBAND"},     {22, "IPV4"},
    {23, "IPV6"},            {24, "RAW_LINK"},       {25, "INFINIBAND_LINK"},
    {27, "META"},            {28, "OMNI-PATH_SNC"},  {29, "OMNI-PATH"},
    {0, NULL},
};

/* The record's protocol spans the packet it holds; its timestamp is little-endian. */
static bool
get_erf(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
        struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_ERF))
        return false;
    const struct rs_span *sp = &pkt->span[RS_LAYER_ERF];
    out->type = f->type;
    if (f->type == RS_FT_PROTOCOL) {
        out->v.bytes.ptr = pkt->frame->data + sp->off + sp->len;
        out->v.bytes.len = rs_packet_cap_len(pkt);
        return true;
    }
    out->v.u = rs_load_le64(pkt->frame->data + sp->off);
    return true;
}

/* The types whose loss counter is a color instead, and those that hold Ethernet after two
 * bytes of padding (offset, pad), as the ERF types reference and tshark read them. */
static bool
erf_type_colored(uint8_t type)
{
    return type == 10 || type == 11 || type == 15 || type == 16 || type == 17 || type == 19 ||
           type == 20;
}

static bool
erf_type_ethernet(uint8_t type)
{
    return type == 2 || type == 11 || type == 16 || type == 20;
}

/* erf.lctr or erf.color (blurb "Color"), the 16 bits at byte 12, by the record's type */
static bool
get_lctr_or_color(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                  struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_ERF))
        return false;
    const uint8_t *rec = pkt->frame->data + pkt->span[RS_LAYER_ERF].off;
    if (erf_type_colored(rec[8] & 0x7f) != (f->base == RS_BASE_HEX))
        return false;
    return rs_value_set_uint(out, f->type, rs_load_be16(rec + 12));
}

/* "Ethernet pad" and its two bytes (field offset 1 and 2), the last of the record's headers */
static bool
get_eth_pad(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_ERF))
        return false;
    const struct rs_span *sp = &pkt->span[RS_LAYER_ERF];
    const uint8_t *rec = pkt->frame->data + sp->off;
    if (!erf_type_ethernet(rec[8] & 0x7f) || sp->len < 16 + 2 ||
        sp->off + sp->len > pkt->frame->caplen)
        return false;
    if (f->offset == 0)
        return rs_value_set_uint(out, RS_FT_NONE, 1);
    return rs_value_set_uint(out, f->type, rec[sp->len - 3 + f->offset]);
}

/* "Record type: 0x15 (Type 21: INFINIBAND)" */
static size_t
show_type(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    const char *name = rs_value_name(erf_type_vals, v->v.u & 0x7f);

    (void)f;
    return (size_t)snprintf(buf, size, "0x%02x (Type %u: %s)", (unsigned)v->v.u,
                            (unsigned)(v->v.u & 0x7f), name != NULL ? name : "Unknown Type");
}

/* "Flags: 0x05 (Capture Interface: 1)", with the errors the flags report. */
static size_t
show_flags(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    unsigned x = (unsigned)v->v.u;

    (void)f;
    return (size_t)snprintf(buf, size, "0x%02x (Capture Interface: %u%s%s%s)", x, x & 3,
                            (x & 0x08) ? "; ERF Truncation Error" : "",
                            (x & 0x10) ? "; ERF Rx Error" : "", (x & 0x20) ? "; ERF DS Error" : "");
}

#define NB RS_FIELD_NO_BYTES
#define ERF(abbrev, name, type, base, mask, vals, off, width, depth) \
    {abbrev, name, type, base, mask, vals, name, RS_LAYER_ERF, off, width, NULL, depth, NB}

const struct rs_field rs_fields_erf[] = {
    {"erf", "Extensible Record Format", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "Extensible Record Format", RS_LAYER_ERF, 0, 0, get_erf, 0},
    {"erf.ts", "Timestamp", RS_FT_UINT64, RS_BASE_HEX, 0, NULL, "Timestamp", RS_LAYER_ERF, 0, 8,
     get_erf, 1, NB},
    {"erf.types", "Record type", RS_FT_UINT8, RS_BASE_HEX, 0, NULL, "Record type", RS_LAYER_ERF,
     8, 1, NULL, 1, NB, .show = show_type},
    ERF("erf.types.type", "Type", RS_FT_UINT8, RS_BASE_DEC, 0x7f, erf_type_vals, 8, 1, 2),
    ERF("erf.types.ext_header", "Extension header present", RS_FT_UINT8, RS_BASE_DEC, 0x80, NULL,
        8, 1, 2),
    {"erf.flags", "Flags", RS_FT_UINT8, RS_BASE_HEX, 0, NULL, "Flags", RS_LAYER_ERF, 9, 1, NULL,
     1, NB, .show = show_flags},
    ERF("erf.flags.cap", "Capture interface", RS_FT_UINT8, RS_BASE_DEC, 0x03, NULL, 9, 1, 2),
    ERF("erf.flags.vlen", "Varying record length", RS_FT_UINT8, RS_BASE_DEC, 0x04, NULL, 9, 1, 2),
    ERF("erf.flags.trunc", "Truncated", RS_FT_UINT8, RS_BASE_DEC, 0x08, NULL, 9, 1, 2),
    ERF("erf.flags.rxe", "RX error", RS_FT_UINT8, RS_BASE_DEC, 0x10, NULL, 9, 1, 2),
    ERF("erf.flags.dse", "DS error", RS_FT_UINT8, RS_BASE_DEC, 0x20, NULL, 9, 1, 2),
    ERF("erf.flags.res", "Reserved", RS_FT_UINT8, RS_BASE_HEX, 0xc0, NULL, 9, 1, 2),
    ERF("erf.rlen", "Record length", RS_FT_UINT16, RS_BASE_DEC, 0, NULL, 10, 2, 1),
    {"erf.lctr", "Loss counter", RS_FT_UINT16, RS_BASE_DEC, 0, NULL, "Loss counter",
     RS_LAYER_ERF, 12, 2, get_lctr_or_color, 1, NB},
    {"erf.color", "Color", RS_FT_UINT16, RS_BASE_HEX, 0, NULL, "Color", RS_LAYER_ERF, 12, 2,
     get_lctr_or_color, 1, NB},
    ERF("erf.wlen", "Wire length", RS_FT_UINT16, RS_BASE_DEC, 0, NULL, 14, 2, 1),
    {"erf.eth", "Ethernet pad", RS_FT_NONE, RS_BASE_NONE, 0, NULL, "Ethernet pad", RS_LAYER_ERF,
     0, 0, get_eth_pad, 1, NB},
    {"erf.eth.off", "Offset", RS_FT_UINT8, RS_BASE_DEC, 0, NULL, "Offset", RS_LAYER_ERF, 1, 1,
     get_eth_pad, 2, NB},
    {"erf.eth.pad", "Padding", RS_FT_UINT8, RS_BASE_HEX, 0, NULL, "Padding", RS_LAYER_ERF, 2, 1,
     get_eth_pad, 2, NB},
    RS_F_END,
};
