/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exercise.c - every output of a decoded packet (exercise.h).
 */
#include <roceshark/fields.h>

#include "exercise.h"

static void
format_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    char buf[64];

    rs_value_format(f, v, buf, sizeof(buf));
    rs_value_format_display(f, v, buf, sizeof(buf));
    (*(unsigned long *)ctx)++;
}

unsigned long
exercise_packet(const struct rs_packet *pkt, struct rs_out *out)
{
    /* tshark's JSON forms with every field's bytes (-x) read the frame through the tree. */
    static const struct rs_json_opts raw = {.text = true, .raw = true};
    unsigned long values = 0;

    for (int id = 0; id < rs_field_count(); id++)
        if (rs_field_is_first_of_name(id))
            rs_field_foreach(pkt, id, format_value, &values);
    rs_print_summary(out, pkt);
    rs_print_tree(out, pkt);
    rs_print_jsonflat(out, pkt, true);
    rs_print_json(out, pkt, true, &raw);
    rs_print_ek(out, pkt, &raw);
    return values;
}
