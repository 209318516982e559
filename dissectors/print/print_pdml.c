/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_pdml.c - `-T pdml`: the -V tree in tshark's PDML, one <packet> per
 * frame holding a <proto> per protocol (a protocol within another too, as
 * IPv6's hop-by-hop header) and a <field> per line below it, nested as the
 * tree is. Each element carries the field's name, the tree's
 * line (showname), where its bytes lie (pos, size), the value as -T fields
 * prints it (show) and its bytes in hex (value; for a field that is part of
 * a byte, the value's bits and the whole bytes as unmaskedvalue). tshark's
 * geninfo block and the fields we do not dissect are not there.
 */
#include <string.h>

#include <roceshark/dissectors/nstime.h>

#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/print.h>
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
    char held_line[2048];               /* its tree line, rendered while its view lives */
    size_t held_line_len;
    bool have_held;
    unsigned open[MAX_DEPTH];           /* depths of the elements left open */
    bool open_proto[MAX_DEPTH];
    bool open_wrapped[MAX_DEPTH];       /* top data's field: closed at its wrapper's indent */
    unsigned n_open;
    const struct rs_json_opts *opts;    /* -j/-J, or NULL */
    int skip_below;                     /* -j: lines deeper than this are left out, or -1 */
    int whole_below;                    /* -J: lines deeper than this are all written, or -1 */
};

/* ' name="': the start of an attribute, written without printf (PDML's several attributes
 * a line went through vsnprintf's format parsing each). */
static void
attr_open(struct rs_out *o, const char *name)
{
    rs_out_char(o, ' ');
    rs_out_str(o, name);
    rs_out_write(o, "=\"", 2);
}

static void
xml_attr(struct rs_out *o, const char *name, const char *s, size_t n)
{
    attr_open(o, name);
    rs_out_xml(o, s, n);
    rs_out_char(o, '"');
}

static void
hex_attr(struct rs_out *o, const char *name, const uint8_t *p, uint32_t n)
{
    attr_open(o, name);
    rs_out_hex(o, p, n, '\0');
    rs_out_char(o, '"');
}

static void
u32_attr(struct rs_out *o, const char *name, uint32_t v)
{
    char digits[RS_U64_TEXT_MAX];

    attr_open(o, name);
    rs_out_write(o, digits, rs_format_u64(digits, v));
    rs_out_char(o, '"');
}

static void
indent(struct rs_out *o, unsigned level)
{
    size_t n = 2 * ((size_t)level + 1);
    char *p = rs_out_reserve(o, n);

    if (p != NULL) {
        memset(p, ' ', n);
        rs_out_commit(o, n);
    }
}

/* The data protocol is written as a field holding its bytes (print.c's proto_data rule);
 * at the top, inside a protocol element of its own, as tshark wraps it. */
static bool
is_data(const struct rs_tree_item *it)
{
    return it->kind == RS_TREE_FIELD && it->field->type == RS_FT_PROTOCOL &&
           strcmp(it->field->abbrev, "data") == 0;
}

/* show, value and unmaskedvalue, as tshark writes them for a field's type. */
static void
value_attrs(struct pdml_ctx *c, const struct rs_tree_item *it)
{
    const struct rs_field *f = it->field;
    struct rs_out *o = c->o, *line;

    if (f->type == RS_FT_NONE || (f->flags & RS_FIELD_TEXT)) {
        if (!(f->flags & RS_FIELD_TEXT))
            rs_out_str(o, " show=\"\" value=\"\"");
        else if (it->length > 0)    /* a text line over bytes: tshark writes them */
            hex_attr(o, "value", rs_tree_item_bytes(c->pkt, it), it->length);
        return;
    }
    if (f->type == RS_FT_PROTOCOL || (line = rs_out_scratch(NULL)) == NULL)
        return;
    if (f->type == RS_FT_BYTES)
        rs_out_hex(line, it->value->v.bytes.ptr, it->value->v.bytes.len, ':');
    else
        rs_out_value(line, f, it->value);
    xml_attr(o, "show", line->buf, line->len);
    if (it->length == 0)
        return;
    const uint8_t *bytes = rs_tree_item_bytes(c->pkt, it);
    if (f->mask != 0 && !(f->flags & RS_FIELD_BITS) && f->width <= 8) {
        rs_out_printf(o, " value=\"%llX\"", (unsigned long long)it->value->v.u);
        hex_attr(o, "unmaskedvalue", bytes, it->length);
    } else {
        hex_attr(o, "value", bytes, it->length);
    }
}

/* Writes the held item as an element, left open when open (children follow). */
static void
emit(struct pdml_ctx *c, bool open)
{
    const struct rs_tree_item *it = &c->held;
    const struct rs_field *f = it->field;
    struct rs_out *o = c->o;
    /* the frame and each protocol, however deep (IPv6's hop-by-hop header, the headers an
     * ICMP error quotes), as tshark writes an FT_PROTOCOL item but an expert info's; below
     * them fields */
    /* a field at the top (data, a reassembled message's fragments) sits in a protocol
     * element of its own, as tshark wraps it */
    bool data = is_data(it);
    bool wrapped = it->depth == 0 && it->kind == RS_TREE_FIELD &&
                   (data || f->type != RS_FT_PROTOCOL);
    bool proto = (it->depth == 0 && !wrapped) ||
                 (it->kind == RS_TREE_FIELD && f->type == RS_FT_PROTOCOL && !data &&
                  strcmp(f->abbrev, "_ws.expert") != 0);
    const char *name = it->kind == RS_TREE_FRAME ? "frame" : f->abbrev;

    if (wrapped) {
        indent(o, c->n_open);
        rs_out_str(o, "<proto name=\"fake-field-wrapper\">\n");
    }
    indent(o, c->n_open + wrapped);
    if (data) {
        rs_out_str(o, "<field name=\"data\"");
        hex_attr(o, "value", rs_tree_item_bytes(c->pkt, it), it->length);
        rs_out_str(o, ">\n");
    } else {
        rs_out_str(o, proto ? "<proto" : "<field");
        if (it->kind == RS_TREE_FIELD && (f->flags & RS_FIELD_TEXT)) {
            rs_out_str(o, " name=\"\"");
            xml_attr(o, "show", c->held_line, c->held_line_len);
        } else {
            xml_attr(o, "name", name, strlen(name));
            xml_attr(o, "showname", c->held_line, c->held_line_len);
            if (it->kind == RS_TREE_FIELD && (f->flags & RS_FIELD_HIDDEN))
                rs_out_str(o, " hide=\"yes\"");
        }
        /* Positions count from the frame's own bytes, as tshark's, not from a record
         * header before them. */
        uint32_t size = it->kind == RS_TREE_FRAME ? rs_packet_cap_len(c->pkt) : it->length;
        u32_attr(o, "size", size);
        u32_attr(o, "pos", it->source != NULL     ? it->offset
                           : it->offset >= c->base ? it->offset - c->base : 0);
        if (it->kind == RS_TREE_FIELD)
            value_attrs(c, it);
        if (!open) {
            rs_out_str(o, "/>\n");
            if (wrapped) {
                indent(o, c->n_open);
                rs_out_str(o, "</proto>\n");
            }
            return;
        }
        rs_out_str(o, ">\n");
    }
    /* The wrapper closes right after the data field, which is at the same depth. */
    for (int k = wrapped ? 0 : 1; k < 2 && c->n_open < MAX_DEPTH; k++) {
        c->open[c->n_open] = it->depth;
        c->open_proto[c->n_open] = k == 0 || (proto && !data);
        c->open_wrapped[c->n_open] = wrapped && k == 1;
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
        /* tshark writes the end of a wrapped data field at the wrapper's level */
        indent(c->o, c->open_wrapped[c->n_open] ? c->n_open - 1 : c->n_open);
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
    c->held.view = NULL;
    c->held_line_len = 0;
    struct rs_out *line = rs_out_scratch(NULL);
    if (line != NULL) {
        rs_print_tree_line(line, c->pkt, it);
        c->held_line_len = line->len < sizeof(c->held_line) ? line->len
                                                             : sizeof(c->held_line);
        memcpy(c->held_line, line->buf, c->held_line_len);
    }
    if (it->value != NULL) {
        c->held_value = *it->value;     /* the walker's value lives for the call only */
        c->held.value = &c->held_value;
    }
    c->have_held = true;
}

/* tshark's first element of every packet: its number, lengths and time. */
static void
geninfo(struct rs_out *o, const struct rs_packet *pkt)
{
    struct rs_out *line = rs_out_scratch(NULL);
    const struct rs_frame *f = pkt->frame;
    uint32_t len = rs_packet_wire_len(pkt), caplen = rs_packet_cap_len(pkt);
    int frame_time = rs_field_lookup("frame.time");
    struct rs_value t;

    rs_out_printf(o, "  <proto name=\"geninfo\" pos=\"0\" showname=\"General information\" "
                  "size=\"%u\">\n", caplen);
    rs_out_printf(o, "    <field name=\"num\" pos=\"0\" show=\"%llu\" showname=\"Number\" "
                  "value=\"%llx\" size=\"%u\"/>\n", (unsigned long long)f->number,
                  (unsigned long long)f->number, caplen);
    rs_out_printf(o, "    <field name=\"len\" pos=\"0\" show=\"%u\" showname=\"Frame Length\" "
                  "value=\"%x\" size=\"%u\"/>\n", len, len, caplen);
    rs_out_printf(o, "    <field name=\"caplen\" pos=\"0\" show=\"%u\" "
                  "showname=\"Captured Length\" value=\"%x\" size=\"%u\"/>\n", caplen, caplen,
                  caplen);
    if (line != NULL && frame_time >= 0 && rs_field_value(pkt, frame_time, 0, &t)) {
        rs_out_value(line, rs_field_by_id(frame_time), &t);
        rs_out_str(o, "    <field name=\"timestamp\" pos=\"0\"");
        xml_attr(o, "show", line->buf, line->len);
        char secs[RS_TIME_TEXT_MAX + 1];
        size_t n = rs_time_format(rs_frame_time(f), 9, secs);
        rs_out_printf(o, " showname=\"Captured Time\" value=\"%.*s\" size=\"%u\"/>\n", (int)n,
                      secs, caplen);
    }
    rs_out_str(o, "  </proto>\n");
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
    geninfo(o, pkt);
    rs_tree_walk_hidden(pkt, item, &c);
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
