/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_jsonflat.c - `-T jsonflat`: a JSON array holding one object per
 * frame, one line each, keyed by field name. Values are strings printed as -T fields
 * prints them; a field with several values becomes an array.
 */
#include <string.h>

#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/print.h>

struct json_ctx {
    struct rs_out *o;
    unsigned n;             /* values of the current field so far */
};

static void
json_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    struct json_ctx *j = ctx;

    if (j->n++ > 0)
        rs_out_char(j->o, ',');
    if (v->type == RS_FT_STRING) {
        rs_out_json_string(j->o, v->v.str, strlen(v->v.str));
        return;
    }
    /* Other values format to hex, digits, dots and colons: nothing to escape. */
    rs_out_char(j->o, '"');
    rs_out_value(j->o, f, v);
    rs_out_char(j->o, '"');
}

void
rs_print_jsonflat_begin(struct rs_out *o)
{
    rs_out_str(o, "[\n");
}

/* One field and its aliases: "name":value, or "name":[values] when there are several. */
static void
json_field(struct json_ctx *j, const struct rs_packet *pkt, int id, bool *any)
{
    const struct rs_field *f = rs_field_by_id(id);
    struct rs_value v;

    if (!rs_field_value(pkt, id, 0, &v) && rs_field_next_alias(id) < 0)
        return;
    /* Count first, so a single value prints bare and several as a list. */
    unsigned count = 0;
    for (int a = id; a >= 0; a = rs_field_next_alias(a))
        for (unsigned occ = 0; occ < RS_MAX_OCCURRENCES && rs_field_value(pkt, a, occ, &v); occ++)
            count++;
    if (count == 0)
        return;
    if (*any)
        rs_out_char(j->o, ',');
    *any = true;
    rs_out_json_string(j->o, f->abbrev, strlen(f->abbrev));
    rs_out_str(j->o, count > 1 ? ":[" : ":");
    j->n = 0;
    rs_field_foreach(pkt, id, json_value, j);
    if (count > 1)
        rs_out_char(j->o, ']');
}

void
rs_print_jsonflat(struct rs_out *o, const struct rs_packet *pkt, bool first)
{
    struct json_ctx j = {.o = o};
    bool any = false;

    rs_out_str(o, first ? "{" : ",\n{");
    for (int id = 0; id < rs_field_count(); id++) {
        const struct rs_field *f = rs_field_by_id(id);
        /* Aliases print under their first id; protocols are not values. */
        if (f->type == RS_FT_PROTOCOL || (f->flags & RS_FIELD_HIDDEN) ||
            !rs_field_is_first_of_name(id))
            continue;
        json_field(&j, pkt, id, &any);
    }
    rs_out_char(o, '}');
    rs_out_end_frame(o);
}

void
rs_print_jsonflat_fields(struct rs_out *o, const struct rs_packet *pkt, bool first,
                         const int *ids, size_t n)
{
    struct json_ctx j = {.o = o};
    bool any = false;

    rs_out_str(o, first ? "{" : ",\n{");
    for (size_t i = 0; i < n; i++)
        if (rs_field_by_id(ids[i])->type != RS_FT_PROTOCOL)
            json_field(&j, pkt, ids[i], &any);
    rs_out_char(o, '}');
    rs_out_end_frame(o);
}

void
rs_print_jsonflat_end(struct rs_out *o)
{
    rs_out_str(o, "\n]\n");
}
