/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_mad_int.h - what the MAD tables (ib_mad.c, ib_smp.c, ib_sa.c,
 * ib_perf.c) share; not part of the API.
 *
 * A MAD field is a registry field of the payload layer whose offset counts
 * from the MAD's first byte. Whether a packet has it depends on the MAD's
 * class and attribute, so each table's getters name that context; the value
 * itself is read as any other field's (offset, width, mask).
 */
#ifndef ROCESHARK_IB_MAD_INT_H
#define ROCESHARK_IB_MAD_INT_H

#include <roceshark/dissectors/mad.h>

#include "fields/fields_int.h"

#define MAD_ANY_CLASS 0x100
#define MAD_ANY_ATTR 0xffffffffu

/* Where a field belongs: one of two management classes (or any), one
 * attribute (or any). */
struct mad_ctx {
    uint16_t class_a, class_b;
    uint32_t attr;
};

/* Occurrence occ of f when pkt's MAD matches ctx; bytes fields of width 0
 * run to the end of the 256-byte MAD. */
bool mad_field_get(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                   struct rs_value *out, const struct mad_ctx *ctx);

/* The bytes [off, off + len) of pkt's MAD as a bytes value, when captured. */
bool mad_bytes(const struct rs_packet *pkt, uint32_t off, uint32_t len, struct rs_value *out);

/* True when the MAD's class and attribute match ctx. */
bool mad_matches(const uint8_t *mad, const struct mad_ctx *ctx);

/* The show function of the 14 PortInfo fields tshark 4.0 writes a note after
 * ("PortState: 0x4, Active"), found by the field's offset and mask. */
size_t mad_portinfo_show_note(const struct rs_field *f, const struct rs_value *v, char *buf,
                              size_t size);

/* Attribute names, as tshark's Info column gives them ("SMInfo"), or NULL. */
const char *smp_attr_name(uint16_t attr);
const char *sa_attr_name(uint16_t attr);
const char *perf_attr_name(uint16_t attr);
/* The tree line of a CM MAD's data item ("CM ConnectRequest"), or 0 for another class. */
size_t cm_data_label(const struct rs_packet *pkt, const struct rs_field *f,
                     const struct rs_value *v, char *buf, size_t size);

/* Where SMP attribute attr starts in mad: 64 in an SMP of that attribute, in an SA
 * record that embeds it where the record has it (sa_record_embeds()); UINT32_MAX when
 * mad does not carry it. mad holds at least the common header. */
uint32_t smp_attr_at(const uint8_t *mad, uint16_t attr);
uint32_t sa_record_embeds(uint16_t sa_attr, uint16_t smp_attr);
/* True for a field of an SMP attribute (its offsets count from the attribute's first
 * byte), whose attribute goes to *attr when attr is not NULL. */
bool smp_field_attr(const struct rs_field *f, uint16_t *attr);

/* Where f's offsets count from in mad: 0 for fields at fixed MAD offsets,
 * the class's data for ClassPortInfo's, the attribute's start for an SMP
 * attribute's (smp_attr_at()), UINT32_MAX when mad does not carry it. */
uint32_t mad_field_base(const struct rs_field *f, const uint8_t *mad);
/* True for a field whose offsets count from its class's data or its attribute. */
bool mad_field_relative(const struct rs_field *f);

/* Where occurrence occ of a MAD field whose place moves (an SMP attribute's, or
 * ClassPortInfo's) lies in pkt's frame: the registry's locate hook of every MAD field. */
bool mad_field_locate(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                      uint32_t *offset, uint32_t *length);
/* Where occurrence occ of SMP attribute field f lies in mad (len bytes), or UINT32_MAX. */
uint32_t smp_field_at(const struct rs_field *f, unsigned occ, const uint8_t *mad, size_t len);

/* The levels a MAD's items nest below their fields' depths, the registry's nest hook of
 * every MAD field: in an SMP or an SA MAD, an attribute's or record's fields one under
 * "Attribute (...)" and one more under its own item, where it has one (SMInfo's,
 * PathRecord's); 0 in any other MAD. */
unsigned mad_field_nest(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ);
/* The same for an SA MAD's own fields (its items, the records' IDs and fields): 0 for a
 * field of no SA table. */
unsigned sa_field_nest(const uint8_t *mad, const struct rs_field *f);

/* A getter named fn for the fields of one context. */
#define MAD_GETTER(fn, a, b, attr_)                                                          \
    static bool fn(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,      \
                   struct rs_value *out)                                                     \
    {                                                                                        \
        static const struct mad_ctx ctx = {a, b, attr_};                                     \
        return mad_field_get(pkt, f, occ, out, &ctx);                                        \
    }

/* A MAD field: its offset from the MAD's first byte, width in bytes, mask; its help is its
 * name, as Wireshark's MAD fields have (MAD_FVH: one of ours, with help of its own). */
#define MAD_FVH(abbrev, name, type, base, mask, vals, off, width, getter, depth, help)         \
    {abbrev, name, type, base, mask, vals, help, RS_LAYER_PAYLOAD, off, width, getter, depth, 0, \
     .locate = mad_field_locate, .nest = mad_field_nest}
#define MAD_F(abbrev, name, type, base, mask, off, width, getter, depth) \
    MAD_FVH(abbrev, name, type, base, mask, NULL, off, width, getter, depth, name)
#define MAD_FV(abbrev, name, type, base, mask, vals, off, width, getter, depth) \
    MAD_FVH(abbrev, name, type, base, mask, vals, off, width, getter, depth, name)
/* An unsigned field in hex, as Wireshark shows nearly every MAD field. */
#define MAD_UTYPE(w)                                                                  \
    ((w) == 1 ? RS_FT_UINT8 : (w) == 2 ? RS_FT_UINT16 : (w) == 3 ? RS_FT_UINT24        \
     : (w) == 4 ? RS_FT_UINT32 : RS_FT_UINT64)
#define MAD_X(abbrev, name, off, width, mask, getter) \
    MAD_F(abbrev, name, MAD_UTYPE(width), RS_BASE_HEX, mask, off, width, getter, 2)
/* A header's bytes: a tree node. */
#define MAD_H(abbrev, name, off, width, getter, depth)                                      \
    {abbrev, name, RS_FT_BYTES, RS_BASE_NONE, 0, NULL, name, RS_LAYER_PAYLOAD, off, width, \
     getter, depth, RS_FIELD_HEADER}

#endif /* ROCESHARK_IB_MAD_INT_H */
