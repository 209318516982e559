/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * span.c - the bytes of a frame a field's value comes from: what a click on
 * its item highlights, and PDML's pos and size. One answer for every consumer,
 * the printers' tree and the Wireshark plugin's alike.
 */
#include <roceshark/dissectors/fields.h>

/* The bytes a value of bytes or an address points at (a getter may pick them by
 * the packet: a MAD's data is 64 bytes in an SMP, 232 in a CM MAD), else where
 * the field says it is (a MAD attribute's moves with the MAD), else the field's
 * bytes in its layer. */
bool
rs_field_span(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
              unsigned occ, uint32_t *offset, uint32_t *length)
{
    const struct rs_frame *fr = pkt->frame;

    *offset = *length = 0;
    if (!(f->flags & RS_FIELD_NO_BYTES) &&
        (v->type == RS_FT_BYTES || v->type == RS_FT_ETHER || v->type == RS_FT_IPV4 ||
         v->type == RS_FT_IPV6 || v->type == RS_FT_PROTOCOL) &&
        v->v.bytes.ptr != NULL && v->v.bytes.ptr >= fr->data &&
        v->v.bytes.ptr + v->v.bytes.len <= fr->data + fr->caplen) {
        *offset = (uint32_t)(v->v.bytes.ptr - fr->data);
        *length = v->v.bytes.len;
    } else if (f->locate != NULL && f->locate(pkt, f, occ, offset, length)) {
        /* placed by the field */
    } else if (f->layer != RS_NO_LAYER &&
               rs_packet_has_fields_of(pkt, f->layer) &&
               (occ == 0 || (f->flags & RS_FIELD_NO_BYTES))) {
        const struct rs_span *sp = &pkt->span[f->layer];
        if (f->offset <= sp->len) {
            *offset = sp->off + f->offset;
            *length = (f->flags & RS_FIELD_NO_BYTES) ? 0
                      : f->width != 0                 ? f->width : sp->len - f->offset;
        }
    }
    if (*offset + (uint64_t)*length > fr->caplen)
        *offset = *length = 0;
    return *length != 0;
}
