/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_int.h - the per-header field tables that registry.c stitches
 * together (listed in field_tables.c), and helpers their custom getters share. Not part of the API.
 */
#ifndef ROCESHARK_FIELDS_INT_H
#define ROCESHARK_FIELDS_INT_H

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/wire.h>

/* Every table, in tree order (field_tables.c, at the top of the core); each ends
 * with an entry whose abbrev is NULL. */
extern const struct rs_field *const rs_field_tables[];
extern const size_t rs_field_n_tables;
/* The view of the datagram an ICMP error quotes (rs_icmp_quote_view()), for the
 * registry, which adds its values as more occurrences of the frame's fields. */
struct rs_icmp_quote;
bool rs_field_quote_view(const struct rs_packet *pkt, struct rs_icmp_quote *out);

/* Value names shared by the tables. */
extern const struct rs_value_string rs_cksum_vals[];
/* A flag's "Set" and "Not set", Wireshark's tfs_set_notset. */
extern const struct rs_value_string rs_set_vals[];

extern const struct rs_field rs_fields_frame[];
extern const struct rs_field rs_fields_erf[];
extern const struct rs_field rs_fields_link[];
extern const struct rs_field rs_fields_ip[];
extern const struct rs_field rs_fields_l4[];
extern const struct rs_field rs_fields_tcp[];
extern const struct rs_field rs_fields_tcp_reasm[];
extern const struct rs_field rs_fields_icmp[];
extern const struct rs_field rs_fields_icmpv6_nd[];
extern const struct rs_field rs_fields_icmpv6_trailer[];
extern const struct rs_field rs_fields_arp[];
extern const struct rs_field rs_fields_data[];
extern const struct rs_field rs_fields_ipoib[];
extern const struct rs_field rs_fields_mpa[];
extern const struct rs_field rs_fields_rdmap[];
extern const struct rs_field rs_fields_ib_lrh[];
extern const struct rs_field rs_fields_ib_grh[];
extern const struct rs_field rs_fields_ib_bth[];
extern const struct rs_field rs_fields_ib_ext[];
extern const struct rs_field rs_fields_ib_aeth[];
extern const struct rs_field rs_fields_ib_ext_after_aeth[];
extern const struct rs_field rs_fields_ib_mad[];
extern const struct rs_field rs_fields_ib_smp[];
extern const struct rs_field rs_fields_ib_sa_head[];
extern const struct rs_field rs_fields_ib_sa[];
extern const struct rs_field rs_fields_ib_perf[];
extern const struct rs_field rs_fields_ib_cm[];
extern const struct rs_field rs_fields_ib_tail[];
extern const struct rs_field rs_fields_roceshark[];
extern const struct rs_field rs_fields_iwarp_view[];
extern const struct rs_field rs_fields_analysis[];
extern const struct rs_field rs_fields_corr[];
extern const struct rs_field rs_fields_columns[];
extern const struct rs_field rs_fields_protocols[];
extern const struct rs_field rs_fields_ident[];
extern const struct rs_field rs_fields_malformed[];

/* Names of the BTH opcodes (ib_opcode.c): Wireshark's, and our shorter
 * ones as aliases; and the transport services as Wireshark names them. */
extern struct rs_value_string rs_ib_opcode_ws_vals[258];
extern struct rs_value_string rs_ib_opcode_vals[257];
extern const struct rs_value_string rs_ib_service_vals[];

/* Shorthands for table entries. */
#define RS_F_HDR(abbrev, name, layer, depth) \
    {abbrev, name, RS_FT_BYTES, RS_BASE_NONE, 0, NULL, name, layer, 0, 0, NULL, depth, \
     RS_FIELD_HEADER}
/* A header whose tree line Wireshark writes in its own words ("AETH - ACK Extended
 * Transport Header"): rs_ib_header_label gives them. */
#define RS_F_HDR_IB(abbrev, name, layer, depth) \
    {abbrev, name, RS_FT_BYTES, RS_BASE_NONE, 0, NULL, name, layer, 0, 0, NULL, depth, \
     RS_FIELD_HEADER, .label = rs_ib_header_label}
size_t rs_ib_header_label(const struct rs_packet *pkt, const struct rs_field *f,
                          const struct rs_value *v, char *buf, size_t size);
#define RS_F_PROTO(abbrev, name, layer) \
    {abbrev, name, RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, name, layer, 0, 0, NULL, 0}
#define RS_F_END {NULL, NULL, 0, 0, 0, NULL, NULL, 0, 0, 0, NULL, 0, 0}

/* Wireshark's expert items (net/ws_expert.c): the five lines of kind under an item at
 * depth - 1, name being the item's registered name ("Connection finish (FIN)"). */
extern const struct rs_value_string rs_ws_severity_vals[];
extern const struct rs_value_string rs_ws_group_vals[];
bool rs_ws_expert_get(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                      struct rs_value *out);
size_t rs_ws_expert_label(const struct rs_packet *pkt, const struct rs_field *f,
                          const struct rs_value *v, char *buf, size_t size);
bool rs_ws_expert_locate(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                         uint32_t *offset, uint32_t *length);
#define RS_F_WS_EXPERT_AS(abbrev, name, kind, depth, fl)                                   \
    {"_ws.expert", "Expert Info", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "", RS_NO_LAYER,  \
     kind, 0, rs_ws_expert_get, depth, RS_FIELD_GENERATED | (fl),                           \
     .label = rs_ws_expert_label, .locate = rs_ws_expert_locate},                           \
    {abbrev, name, RS_FT_NONE, RS_BASE_NONE, 0, NULL, "", RS_NO_LAYER, kind, 0,            \
     rs_ws_expert_get, (depth) + 1, RS_FIELD_GENERATED | (fl), .label = rs_ws_expert_label, \
     .locate = rs_ws_expert_locate},                                                        \
    {"_ws.expert.message", "Message", RS_FT_STRING, RS_BASE_NONE, 0, NULL,                 \
     "Wireshark expert information", RS_NO_LAYER, kind, 0, rs_ws_expert_get, (depth) + 1,  \
     RS_FIELD_HIDDEN | (fl), .locate = rs_ws_expert_locate},                                \
    {"_ws.expert.severity", "Severity level", RS_FT_UINT32, RS_BASE_NONE, 0,               \
     rs_ws_severity_vals, "Wireshark expert severity level", RS_NO_LAYER, kind, 0,          \
     rs_ws_expert_get, (depth) + 1, RS_FIELD_GENERATED | (fl), .label = rs_ws_expert_label, \
     .locate = rs_ws_expert_locate},                                                        \
    {"_ws.expert.group", "Group", RS_FT_UINT32, RS_BASE_NONE, 0, rs_ws_group_vals,         \
     "Wireshark expert group", RS_NO_LAYER, kind, 0, rs_ws_expert_get, (depth) + 1,        \
     RS_FIELD_GENERATED | (fl), .label = rs_ws_expert_label, .locate = rs_ws_expert_locate}
#define RS_F_WS_EXPERT(abbrev, name, kind, depth) RS_F_WS_EXPERT_AS(abbrev, name, kind, depth, 0)

/* A length's value with its unit, as Wireshark's BASE_UNIT_STRING of bytes shows it:
 * "46 bytes" (a field's .show). */
size_t rs_show_bytes_count(const struct rs_field *f, const struct rs_value *v, char *buf,
                           size_t size);
/* A text item's line: its name ("Timestamps"). */
size_t rs_text_label(const struct rs_packet *pkt, const struct rs_field *f,
                     const struct rs_value *v, char *buf, size_t size);
/* No bytes, at the start of f's layer: where Wireshark places a generated item whose
 * table entry's offset selects its value. */
bool rs_locate_layer_start(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                           uint32_t *offset, uint32_t *length);

/* The generic value of f from its layer, offset, width and mask. */
bool rs_field_get_generic(const struct rs_packet *pkt, const struct rs_field *f,
                          unsigned occ, struct rs_value *out);

/* Reads width bytes at offset within layer, masked and shifted as f says;
 * false when the layer is absent or too short. */
bool rs_field_read_uint(const struct rs_packet *pkt, const struct rs_field *f, uint8_t layer,
                        struct rs_value *out);

static inline bool
rs_value_set_uint(struct rs_value *out, uint8_t type, uint64_t v)
{
    out->type = type;
    out->v.u = v;
    return true;
}

/* A field Wireshark registers that one pass in order never shows (the frame a message is
 * reassembled in, on its earlier fragments) or that cannot happen here (fragments taken in
 * order never overlap): names a tshark script may ask for, never present. */
bool rs_field_get_never(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                        struct rs_value *out);
/* A message reassembled from count fragments, len bytes at data, as the item f->offset
 * selects: 0 the fragments' node, 1 their count, 2 the length, 3 the bytes. */
bool rs_value_set_reassembled(struct rs_value *out, const struct rs_field *f, uint32_t count,
                              const uint8_t *data, uint32_t len);

#endif /* ROCESHARK_FIELDS_INT_H */
