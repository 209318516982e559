/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exercise.c - every output of a decoded packet (exercise.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/fields.h>

#include "exercise.h"

static void
format_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    char buf[64];

    rs_value_format(f, v, buf, sizeof(buf));
    rs_value_format_display(f, v, buf, sizeof(buf));
    (*(unsigned long *)ctx)++;
}

/* The tree walk passes the fields of a layer or a MAD the frame lacks without asking them
 * (print_tree.c): none may have a value then, in the frame's own view. And a value of
 * bytes (a protocol's too) says where they are, or that there are none: the walk's value
 * is not cleared between fields, and a protocol item took the last field's place in PDML. */
static void
check_layerless_values(const struct rs_packet *pkt)
{
    struct rs_packet own = *pkt;
    struct rs_value v, unset;

    memset(&unset, 0xa5, sizeof(unset));
    own.flags &= ~RS_PKT_ICMP_QUOTE;
    for (int id = 0; id < rs_field_count(); id++) {
        if (rs_tree_passes(&own, id) && rs_field_value(&own, id, 0, &v)) {
            fprintf(stderr, "%s has a value in frame %llu, which lacks what it is read from\n",
                    rs_field_by_id(id)->abbrev, (unsigned long long)pkt->frame->number);
            abort();
        }
        v = unset;
        if (rs_field_value(pkt, id, 0, &v) &&
            (v.type == RS_FT_BYTES || v.type == RS_FT_PROTOCOL) &&
            (v.v.bytes.ptr == unset.v.bytes.ptr || v.v.bytes.len == unset.v.bytes.len)) {
            fprintf(stderr, "%s's value in frame %llu leaves its bytes unset\n",
                    rs_field_by_id(id)->abbrev, (unsigned long long)pkt->frame->number);
            abort();
        }
    }
}

/* One of the outputs that walk every field; returns the values formatted. */
static unsigned long
exercise_output(const struct rs_packet *pkt, struct rs_out *out, enum exercise_output which)
{
    /* tshark's JSON forms with every field's bytes (-x) read the frame through the tree. */
    static const struct rs_json_opts raw = {.text = true, .raw = true};
    unsigned long values = 0;

    switch (which) {
    case EXERCISE_FIELDS:
        for (int id = 0; id < rs_field_count(); id++)
            if (rs_field_is_first_of_name(id))
                rs_field_foreach(pkt, id, format_value, &values);
        break;
    case EXERCISE_TREE:
        rs_print_tree(out, pkt);
        break;
    case EXERCISE_JSONFLAT:
        rs_print_jsonflat(out, pkt, true);
        break;
    case EXERCISE_JSON:
        rs_print_json(out, pkt, true, &raw);
        break;
    case EXERCISE_EK:
        rs_print_ek(out, pkt, &raw);
        break;
    case EXERCISE_OUTPUTS:
        break;
    }
    return values;
}

unsigned long
exercise_packet_one(const struct rs_packet *pkt, struct rs_out *out, enum exercise_output which)
{
    check_layerless_values(pkt);
    rs_print_summary(out, pkt);
    return exercise_output(pkt, out, which);
}

unsigned long
exercise_packet(const struct rs_packet *pkt, struct rs_out *out)
{
    unsigned long values = exercise_packet_one(pkt, out, EXERCISE_FIELDS);

    for (int which = EXERCISE_FIELDS + 1; which < EXERCISE_OUTPUTS; which++)
        exercise_output(pkt, out, which);
    return values;
}
