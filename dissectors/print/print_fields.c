/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_fields.c - `-T fields`: one line per frame, the values of the
 * requested fields separated as tshark's -E options say.
 */
#include <string.h>

#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/icmp.h>
#include <roceshark/dissectors/print.h>

void
rs_fields_fmt_init(struct rs_fields_fmt *fmt)
{
    fmt->separator = '\t';
    fmt->aggregator = ',';
    fmt->occurrence = 'a';
    fmt->header = false;
    fmt->quote = 0;
    fmt->bom = false;
}

void
rs_print_fields_header(struct rs_out *o, const struct rs_fields_fmt *fmt,
                       const char *const *names, size_t n)
{
    if (fmt->bom)
        rs_out_str(o, "\xef\xbb\xbf");
    if (!fmt->header)
        return;
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            rs_out_char(o, fmt->separator);
        rs_out_str(o, names[i]);
    }
    rs_out_char(o, '\n');
}

struct field_cell {
    struct rs_out *o;
    const struct rs_fields_fmt *fmt;
    const struct rs_packet *pkt;
    int id;
    unsigned seen;
    /* For occurrence 'l': the last value, which points into the frame, and its number. */
    const struct rs_field *last_f;
    struct rs_value last_v;
    unsigned last_occ;
};

/* A value as tshark 4.0's -T fields writes it: a string's tab, newline, carriage return,
 * form feed and backspace as two characters each (so the value stays in its cell), its
 * other bytes as they are. */
static void
out_field_value(struct rs_out *o, const struct rs_field *f, const struct rs_value *v)
{
    static const char controls[] = "\t\n\r\f\b", letters[] = "tnrfb";

    if (v->type != RS_FT_STRING) {
        rs_out_value(o, f, v);
        return;
    }
    for (const char *s = v->v.str; *s != '\0'; s++) {
        const char *c = strchr(controls, *s);
        if (c != NULL) {
            rs_out_char(o, '\\');
            rs_out_char(o, letters[c - controls]);
        } else {
            rs_out_char(o, *s);
        }
    }
}

/* A protocol's occurrence as -e writes it (protocol_text.c), from the view it came from:
 * the frame's own, or an ICMP error's quote (a quoted protocol has no aliases: its
 * occurrence counts the field's). */
static void
out_protocol(struct rs_out *o, const struct field_cell *c, const struct rs_field *f,
             const struct rs_value *v, unsigned occ)
{
    struct rs_icmp_quote q;
    char text[512];

    if (rs_protocol_field_is_data(f)) {
        if (v->v.bytes.ptr != NULL)
            rs_out_hex(o, v->v.bytes.ptr, v->v.bytes.len, '\0');
        return;
    }
    const struct rs_packet *view = rs_field_occurrence_view(c->pkt, c->id, occ, &q);
    size_t n = rs_protocol_field_text(view, f, v, text, sizeof(text));
    rs_out_write(o, text, n < sizeof(text) ? n : sizeof(text) - 1);
}

static void
emit_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    struct field_cell *c = ctx;

    if (c->fmt->occurrence == 'l') {
        c->last_f = f;
        c->last_v = *v;
        c->last_occ = c->seen;
    } else if (c->fmt->occurrence == 'a' || c->seen == 0) {
        if (c->seen > 0)
            rs_out_char(c->o, c->fmt->aggregator);
        else if (c->fmt->quote != 0)
            rs_out_char(c->o, c->fmt->quote);   /* around all of them, as tshark */
        if (v->type == RS_FT_PROTOCOL)
            out_protocol(c->o, c, f, v, c->seen);
        else
            out_field_value(c->o, f, v);
    }
    c->seen++;
}

void
rs_print_fields(struct rs_out *o, const struct rs_fields_fmt *fmt, const struct rs_packet *pkt,
                const int *ids, size_t n)
{
    struct field_cell c = {.o = o, .fmt = fmt, .pkt = pkt};

    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            rs_out_char(o, fmt->separator);
        c.seen = 0;
        c.id = ids[i];
        rs_field_foreach(pkt, ids[i], emit_value, &c);
        if (fmt->occurrence == 'l' && c.seen > 0) {
            if (fmt->quote != 0)
                rs_out_char(o, fmt->quote);
            if (c.last_v.type == RS_FT_PROTOCOL)
                out_protocol(o, &c, c.last_f, &c.last_v, c.last_occ);
            else
                out_field_value(o, c.last_f, &c.last_v);
        }
        if (fmt->quote != 0 && c.seen > 0)      /* an absent field stays empty */
            rs_out_char(o, fmt->quote);
    }
    rs_out_char(o, '\n');
    rs_out_end_frame(o);
}
