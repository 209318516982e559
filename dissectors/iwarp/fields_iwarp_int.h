/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_iwarp_int.h - what the iWARP field tables (fields_mpa.c,
 * fields_rdmap.c) share: walking the PDUs of a frame's iWARP view, and
 * reading a field's octets out of one of them. Not part of the API.
 *
 * Occurrence n of an iWARP field is its n-th appearance over the PDUs that
 * ended in the frame, in stream order, as tshark lists a field that a frame
 * shows once per PDU.
 */
#ifndef ROCESHARK_FIELDS_IWARP_INT_H
#define ROCESHARK_FIELDS_IWARP_INT_H

#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/wire.h>

#include "fields/fields_int.h"

/* Whether field f appears in PDU p. */
typedef bool (*iw_field_pred)(const struct rs_iwarp_pdu *p, const struct rs_field *f);

static inline const struct rs_iwarp_pdu *
iw_field_pdu(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             iw_field_pred pred)
{
    const struct rs_iwarp_view *v = pkt->iwarp;

    if (v == NULL)
        return NULL;
    for (unsigned i = 0; i < v->n_pdus; i++)
        if (pred(&v->pdus[i], f) && occ-- == 0)
            return &v->pdus[i];
    return NULL;
}

/* Where octets [at, at + n) of PDU p's marker-free bytes lie in pkt's frame (the
 * place rs_field_span gives our roceshark.mpa.* and roceshark.iwarp.* values): the wire
 * octets from the first to the last of them, markers between included, as far as this
 * segment holds them (an FPDU may have started in an earlier segment). When it holds
 * none of them, the PDU's octets it holds (its end: a PDU ends in the segment whose view
 * has it). False when it holds none of those either (a segment that filled a hole, after
 * which PDUs held from later segments completed), or when n is 0. */
bool iw_pdu_place(const struct rs_packet *pkt, const struct rs_iwarp_pdu *p, uint32_t at,
                  uint32_t n, uint32_t *offset, uint32_t *length);

/* Where field f of PDU p lies in pkt's frame, by iw_pdu_place(): octets base + f->offset
 * and on of p's marker-free bytes, f->width of them, or to the PDU's end for a field of
 * width 0 (a protocol, a header's node, the private data). */
bool iw_field_place(const struct rs_packet *pkt, const struct rs_iwarp_pdu *p,
                    const struct rs_field *f, uint32_t base, uint32_t *offset, uint32_t *length);

/* A field's locate hook (rs_field.locate) named name: the occurrence's PDU by the
 * getter's predicate pred, and the field there from base, an expression of p (the
 * PDU). Every iWARP field has one, as a header's fields have their layer's offset. */
#define IW_LOCATOR(name, pred, base)                                                       \
    static bool name(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,  \
                     uint32_t *offset, uint32_t *length)                                   \
    {                                                                                      \
        const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, pred);                    \
        return p != NULL && iw_field_place(pkt, p, f, (base), offset, length);             \
    }

/* Octets of the PDU's ULPDU that were captured. */
static inline uint32_t
iw_ulpdu_avail(const struct rs_iwarp_pdu *p)
{
    if (p->kind != RS_MPA_FPDU || p->caplen < 2)
        return 0;
    uint32_t cap = p->caplen - 2;
    return cap < p->ulpdu_len ? cap : p->ulpdu_len;
}

static inline const uint8_t *
iw_ulpdu(const struct rs_iwarp_pdu *p)
{
    return p->data + 2;
}

#define IW_DDP_TAGGED 0x80       /* the T bit of the DDP control octet */

/* The DDP header's length, tagged or untagged; the ULPDU's first octet must be there. */
static inline uint32_t
iw_ddp_len(const struct rs_iwarp_pdu *p)
{
    return (iw_ulpdu(p)[0] & IW_DDP_TAGGED) ? RS_DDP_TAGGED_HDR_LEN : RS_DDP_UNTAGGED_HDR_LEN;
}

/* The RDMAP opcode; the ULPDU's first two octets must be there. */
static inline uint8_t
iw_rdmap_opcode(const struct rs_iwarp_pdu *p)
{
    return iw_ulpdu(p)[1] & 0x0f;
}

/* Octets of an FPDU's ULPDU after its DDP header (RDMAP header and payload); false for a
 * Request or Reply, or when the DDP and RDMAP control octets were not captured. */
static inline bool
iw_payload_len(const struct rs_iwarp_pdu *p, uint32_t *len)
{
    if (p->kind != RS_MPA_FPDU || iw_ulpdu_avail(p) < 2 || p->ulpdu_len < iw_ddp_len(p))
        return false;
    *len = p->ulpdu_len - iw_ddp_len(p);
    return true;
}

/* True when f (offset, width) lies within avail octets from base. Fields of
 * width 0 (headers, FT_NONE) need their offset's octet. */
static inline bool
iw_fits(const struct rs_field *f, uint32_t base, uint32_t avail)
{
    uint32_t need = base + f->offset + (f->width ? f->width : 1);
    return need <= avail;
}

/* Reads f from the octets at base + f->offset: integers big-endian, masked
 * and shifted; byte strings as they are; FT_NONE as present. */
static inline bool
iw_field_read(const struct rs_field *f, const uint8_t *base, struct rs_value *out)
{
    const uint8_t *p = base + f->offset;

    out->type = f->type;
    switch (f->type) {
    case RS_FT_NONE:
    case RS_FT_PROTOCOL:
        out->v.u = 1;
        return true;
    case RS_FT_BYTES:
        out->v.bytes.ptr = p;
        out->v.bytes.len = f->width;
        return true;
    default: {
        uint64_t v = rs_load_be(p, f->width);
        if (f->mask != 0)
            v = (v & f->mask) >> rs_mask_shift(f->mask);
        out->v.u = v;
        return true;
    }
    }
}

#endif /* ROCESHARK_FIELDS_IWARP_INT_H */
