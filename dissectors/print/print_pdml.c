/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_pdml.c - `-T pdml`: the -V tree in tshark's PDML, one <packet> per
 * frame holding a <proto> per protocol and a <field> per line below it,
 * nested as the tree is. Each element carries the field's name, the tree's
 * line (showname), where its bytes lie (pos, size), the value as -T fields
 * prints it (show) and its bytes in hex (value; for a field that is part of
 * a byte, the value's bits and the whole bytes as unmaskedvalue). tshark's
 * geninfo block and the fields we do not dissect are not there.
 */
#include <string.h>

#include <roceshark/fields.h>
#include <roceshark/print.h>
#include <roceshark/version.h>

#include "print/json_int.h"

#define MAX_DEPTH 32

struct pdml_ctx {
    struct rs_out *o;
    struct rs_out *line;                /* scratch: one tree line or value at a time */
    const struct rs_packet *pkt;
    uint32_t base;                      /* bytes before the frame's own (an ERF header) */
    struct rs_tree_item held;           /* the item before: open or closed by what follows */
    struct rs_value held_value;
    bool have_held;
    unsigned open[MAX_DEPTH];           /* depths of the elements left open */
    bool open_proto[MAX_DEPTH];
    unsigned n_open;
    const struct rs_json_opts *opts;    /* -j/-J, or NULL */
    int skip_below;                     /* -j: lines deeper than this are left out, or -1 */
    int whole_below;                    /* -J: lines deeper than this are all written, or -1 */
};

static void
xml_attr(struct rs_out *o, const char *name, const char *s, size_t n)
{
    rs_out_printf(o, " %s=\"", name);
    rs_out_xml(o, s, n);
    rs_out_char(o, '"');
}

static void
hex_attr(struct rs_out *o, const char *name, const uint8_t *p, uint32_t n)
{
    rs_out_printf(o, " %s=\"", name);
    rs_out_hex(o, p, n, '\0');
    rs_out_char(o, '"');
}

static void
indent(struct rs_out *o, unsigned level)
{
    for (unsigned i = 0; i < level + 1; i++)
        rs_out_str(o, "  ");
}

/* Writes the held item as an element, left open when open (children follow). */
static void
emit(struct pdml_ctx *c, bool open)
{
    const struct rs_tree_item *it = &c->held;
    const struct rs_field *f = it->field;
    struct rs_out *o = c->o, *line = rs_out_scratch(NULL);
    bool proto = it->depth == 0;     /* the frame and each protocol; below them fields */

    indent(o, c->n_open);
    rs_out_str(o, proto ? "<proto" : "<field");
    const char *name = it->kind == RS_TREE_FRAME ? "frame"
                       : it->kind == RS_TREE_MALFORMED ? "_ws.malformed" : f->abbrev;
    xml_attr(o, "name", name, strlen(name));
    if (line != NULL) {
        rs_print_tree_line(line, c->pkt, it);
        xml_attr(o, "showname", line->buf, line->len);
    }
    /* Positions count from the frame's own bytes, as tshark's, not from a record
     * header before them. */
    uint32_t size = it->kind == RS_TREE_FRAME ? rs_packet_cap_len(c->pkt) : it->length;
    rs_out_printf(o, " size=\"%u\" pos=\"%u\"", size,
                  it->offset >= c->base ? it->offset - c->base : 0);
    if (it->kind == RS_TREE_FIELD && f->type != RS_FT_PROTOCOL && f->type != RS_FT_NONE &&
        (line = rs_out_scratch(NULL)) != NULL) {
        if (f->type == RS_FT_BYTES)
            rs_out_hex(line, it->value->v.bytes.ptr, it->value->v.bytes.len, ':');
        else
            rs_out_value(line, f, it->value);
        xml_attr(o, "show", line->buf, line->len);
        const uint8_t *bytes = c->pkt->frame->data + it->offset;
        if (it->length > 0 && f->mask != 0 && f->width <= 8) {
            rs_out_printf(o, " value=\"%llx\"", (unsigned long long)it->value->v.u);
            hex_attr(o, "unmaskedvalue", bytes, it->length);
        } else if (it->length > 0) {
            hex_attr(o, "value", bytes, it->length);
        }
    }
    if (!open) {
        rs_out_str(o, "/>\n");
        return;
    }
    rs_out_str(o, ">\n");
    if (c->n_open < MAX_DEPTH) {
        c->open[c->n_open] = it->depth;
        c->open_proto[c->n_open] = proto;
        c->n_open++;
    }
    /* -j/-J: the children of a name not asked for are one line saying so. */
    if (c->opts != NULL && c->opts->n_protos > 0 && c->whole_below < 0) {
        if (!json_proto_wanted(c->opts, name)) {
            indent(o, c->n_open);
            rs_out_str(o, "<field name=\"filtered\"");
            xml_attr(o, "value", name, strlen(name));
            rs_out_str(o, " />\n");
            c->skip_below = (int)it->depth;
        } else if (c->opts->protos_whole) {
            c->whole_below = (int)it->depth;
        }
    }
}

/* Closes the open elements at depth or deeper. */
static void
close_to(struct pdml_ctx *c, unsigned depth, bool all)
{
    while (c->n_open > 0 && (all || c->open[c->n_open - 1] >= depth)) {
        c->n_open--;
        indent(c->o, c->n_open);
        rs_out_str(c->o, c->open_proto[c->n_open] ? "</proto>\n" : "</field>\n");
    }
}

static void
item(void *arg, const struct rs_tree_item *it)
{
    struct pdml_ctx *c = arg;

    if (c->skip_below >= 0) {
        if ((int)it->depth > c->skip_below)
            return;
        c->skip_below = -1;
    }
    if (c->whole_below >= 0 && (int)it->depth <= c->whole_below)
        c->whole_below = -1;
    if (c->have_held) {
        bool parent = it->depth > c->held.depth;
        emit(c, parent);
        c->have_held = false;
        if (c->skip_below >= 0)
            return;     /* the first line of a subtree -j leaves out */
    }
    close_to(c, it->depth, false);
    c->held = *it;
    if (it->value != NULL) {
        c->held_value = *it->value;     /* the walker's value lives for the call only */
        c->held.value = &c->held_value;
    }
    c->have_held = true;
}

void
rs_print_pdml_begin(struct rs_out *o, const char *capture_file)
{
    rs_out_str(o, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                  "<pdml version=\"0\" creator=\"roceshark/" RS_VERSION "\"");
    if (capture_file != NULL)
        xml_attr(o, "capture_file", capture_file, strlen(capture_file));
    rs_out_str(o, ">\n");
}

void
rs_print_pdml(struct rs_out *o, const struct rs_packet *pkt, const struct rs_json_opts *opts)
{
    struct pdml_ctx c;

    memset(&c, 0, sizeof(c));
    c.o = o;
    c.pkt = pkt;
    c.opts = opts;
    c.skip_below = c.whole_below = -1;
    c.base = pkt->frame->caplen > rs_packet_cap_len(pkt)
                 ? pkt->frame->caplen - rs_packet_cap_len(pkt) : 0;
    rs_out_str(o, "<packet>\n");
    rs_tree_walk(pkt, item, &c);
    if (c.have_held)
        emit(&c, false);
    close_to(&c, 0, true);
    rs_out_str(o, "</packet>\n\n");
    rs_out_end_frame(o);
}

void
rs_print_pdml_end(struct rs_out *o)
{
    rs_out_str(o, "</pdml>\n");
}
