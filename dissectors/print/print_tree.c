/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_tree.c - `-V`: every field present, indented under its protocol and
 * header, with bit patterns for fields that are parts of a byte, the way
 * `tshark -V` shows them.
 */
#include <string.h>

#include <roceshark/fields.h>
#include <roceshark/iwarp.h>
#include <roceshark/print.h>

#define INDENT 4

struct tree_ctx {
    struct rs_out *o;
    unsigned depth;
};

static void
indent(struct rs_out *o, unsigned depth)
{
    for (unsigned i = 0; i < depth * INDENT; i++)
        rs_out_char(o, ' ');
}

/* "0... .... " for bit 7 of one byte: the mask's bits, the rest dotted. */
static void
bit_pattern(struct rs_out *o, const struct rs_field *f, uint64_t value)
{
    unsigned bits = f->width * 8;
    uint64_t shifted = value << rs_mask_shift(f->mask);

    for (unsigned i = 0; i < bits; i++) {
        unsigned bit = bits - 1 - i;
        if (i > 0 && i % 4 == 0)
            rs_out_char(o, ' ');
        if (f->mask >> bit & 1)
            rs_out_char(o, (shifted >> bit & 1) ? '1' : '0');
        else
            rs_out_char(o, '.');
    }
    rs_out_str(o, " = ");
}

static void
print_item(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    struct tree_ctx *t = ctx;
    char text[256];

    indent(t->o, t->depth);
    if (v->type == RS_FT_PROTOCOL || v->type == RS_FT_NONE) {
        rs_out_str(t->o, f->name);
    } else if (f->flags & RS_FIELD_HEADER) {
        rs_out_str(t->o, f->name);     /* its values are the lines under it */
    } else {
        if (f->mask != 0 && f->width > 0 && f->width <= 4)
            bit_pattern(t->o, f, v->v.u);
        rs_out_str(t->o, f->name);
        rs_out_str(t->o, ": ");
        size_t n = rs_value_format_display(f, v, text, sizeof(text));
        if (n < sizeof(text))
            rs_out_write(t->o, text, n);
        else
            rs_out_value(t->o, f, v);   /* long byte strings in full */
    }
    rs_out_char(t->o, '\n');
}

static void
print_field(struct tree_ctx *t, const struct rs_packet *pkt, int id)
{
    const struct rs_field *f = rs_field_by_id(id);
    struct rs_value v;

    /* Cheap presence test first: most fields are absent from a frame. */
    if ((f->flags & RS_FIELD_HIDDEN) || !rs_field_value(pkt, id, 0, &v))
        return;
    t->depth = f->depth;
    for (unsigned occ = 0; occ < RS_MAX_OCCURRENCES && rs_field_value(pkt, id, occ, &v); occ++)
        print_item(t, f, &v);
}

/* iWARP fields PDU by PDU, as tshark shows one MPA (and one DDP/RDMAP)
 * tree per FPDU: each pass sees a view holding that PDU alone. */
static void
print_iwarp_pdus(struct tree_ctx *t, const struct rs_packet *pkt)
{
    const struct rs_iwarp_view *v = pkt->iwarp;

    for (unsigned i = 0; i < v->n_pdus; i++) {
        struct rs_iwarp_view one = *v;
        struct rs_packet p = *pkt;
        one.pdus = &v->pdus[i];
        one.n_pdus = 1;
        one.markers = v->markers + v->pdus[i].first_marker;
        one.n_markers = v->pdus[i].n_markers;
        p.iwarp = &one;
        for (int id = 0; id < rs_field_count(); id++)
            if (rs_field_by_id(id)->flags & RS_FIELD_PER_PDU)
                print_field(t, &p, id);
    }
}

void
rs_print_tree(struct rs_out *o, const struct rs_packet *pkt)
{
    const struct rs_frame *fr = pkt->frame;
    struct tree_ctx t = {o, 0};

    uint32_t len = rs_packet_wire_len(pkt), caplen = rs_packet_cap_len(pkt);

    rs_out_printf(o, "Frame %llu: %u bytes on wire (%u bits), %u bytes captured (%u bits)\n",
                  (unsigned long long)fr->number, len, len * 8, caplen, caplen * 8);
    bool pdus_done = false;
    for (int id = 0; id < rs_field_count(); id++) {
        if (!(rs_field_by_id(id)->flags & RS_FIELD_PER_PDU)) {
            print_field(&t, pkt, id);
        } else if (!pdus_done && pkt->iwarp != NULL) {
            print_iwarp_pdus(&t, pkt);
            pdus_done = true;
        }
    }
    if (pkt->flags & RS_PKT_MALFORMED)
        rs_out_printf(o, "[Malformed Packet: %s]\n", pkt->problem);
    rs_out_char(o, '\n');
    rs_out_end_frame(o);
}
