/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_printers.c - the printers -T chooses, as a table: what each prints around the
 * frames and for each frame, and which options go with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "read_int.h"

#include <roceshark/dissectors/print.h>

/* -T text: the summary line (-x alone prints the bytes only; -w, the file alone). With -P
 * and -x, a blank line between the line and the bytes, as no tree comes between. */
static void
text_frame(struct rs_out *out, const struct read_opts *ro, const struct rs_packet *pkt,
           bool first)
{
    (void)first;
    if (!ro->summary && !ro->hex && ro->write_path == NULL)
        rs_print_summary(out, pkt);
    if (ro->summary && ro->hex)
        rs_out_char(out, '\n');
}

/* -V and -O: the tree. -S ends the frame: after the bytes when they follow the tree. */
static void
tree_frame(struct rs_out *out, const struct read_opts *ro, const struct rs_packet *pkt,
           bool first)
{
    (void)first;
    out->gap = ro->hex ? NULL : ro->separator;
    if (ro->n_expand > 0)
        rs_print_tree_only(out, pkt, ro->expand, ro->n_expand);
    else
        rs_print_tree(out, pkt);
}

static void
json_begin(struct rs_out *out, const struct read_opts *ro)
{
    (void)ro;
    rs_print_json_begin(out);
}

static void
json_frame(struct rs_out *out, const struct read_opts *ro, const struct rs_packet *pkt,
           bool first)
{
    rs_print_json(out, pkt, first, &ro->json);
}

static void
json_end(struct rs_out *out, const struct read_opts *ro, bool any)
{
    (void)ro;
    rs_print_json_end(out, any);
}

static void
ek_frame(struct rs_out *out, const struct read_opts *ro, const struct rs_packet *pkt,
         bool first)
{
    (void)first;
    rs_print_ek(out, pkt, &ro->json);
}

static void
jsonflat_begin(struct rs_out *out, const struct read_opts *ro)
{
    (void)ro;
    rs_print_jsonflat_begin(out);
}

static void
jsonflat_frame(struct rs_out *out, const struct read_opts *ro, const struct rs_packet *pkt,
               bool first)
{
    if (ro->n_fields > 0)
        rs_print_jsonflat_fields(out, pkt, first, ro->field_ids, ro->n_fields);
    else
        rs_print_jsonflat(out, pkt, first);
}

static void
jsonflat_end(struct rs_out *out, const struct read_opts *ro, bool any)
{
    (void)ro, (void)any;
    rs_print_jsonflat_end(out);
}

static void
fields_begin(struct rs_out *out, const struct read_opts *ro)
{
    rs_print_fields_header(out, &ro->fields_fmt, ro->field_names, ro->n_fields);
}

static void
fields_frame(struct rs_out *out, const struct read_opts *ro, const struct rs_packet *pkt,
             bool first)
{
    (void)first;
    rs_print_fields(out, &ro->fields_fmt, pkt, ro->field_ids, ro->n_fields);
}

static void
psml_begin(struct rs_out *out, const struct read_opts *ro)
{
    (void)ro;
    rs_print_psml_begin(out);
}

static void
psml_frame(struct rs_out *out, const struct read_opts *ro, const struct rs_packet *pkt,
           bool first)
{
    (void)ro, (void)first;
    rs_print_psml(out, pkt);
}

static void
psml_end(struct rs_out *out, const struct read_opts *ro, bool any)
{
    (void)ro, (void)any;
    rs_print_psml_end(out);
}

static void
pdml_begin(struct rs_out *out, const struct read_opts *ro)
{
    rs_print_pdml_begin(out, ro->file);
}

static void
pdml_frame(struct rs_out *out, const struct read_opts *ro, const struct rs_packet *pkt,
           bool first)
{
    (void)first;
    rs_print_pdml(out, pkt, &ro->json);
}

static void
pdml_end(struct rs_out *out, const struct read_opts *ro, bool any)
{
    (void)ro, (void)any;
    rs_print_pdml_end(out);
}

#define JSON_FLAGS (READ_TAKES_FIELDS | READ_TAKES_HEX | READ_HEX_INSIDE | READ_TAKES_PROTOS | \
                    READ_ALL_FIELDS)

/* In the order -h and the error for an unknown name list them. */
static const struct read_printer printers[] = {
    {"text", READ_TAKES_HEX | READ_P_SUMMARY | READ_SHOWS_INFO | READ_EXPANDS, NULL,
     text_frame, NULL},
    {"json", JSON_FLAGS | READ_TAKES_NO_DUP, json_begin, json_frame, json_end},
    {"jsonraw", JSON_FLAGS | READ_TAKES_NO_DUP | READ_JSON_RAW, json_begin, json_frame,
     json_end},
    {"ek", JSON_FLAGS, NULL, ek_frame, NULL},
    {"jsonflat", READ_TAKES_FIELDS | READ_P_SUMMARY | READ_ALL_FIELDS, jsonflat_begin,
     jsonflat_frame, jsonflat_end},
    {"fields", READ_TAKES_FIELDS | READ_NEEDS_FIELDS | READ_P_SUMMARY | READ_CRC_ASKED |
     READ_CHEAP_FIELDS, fields_begin, fields_frame, NULL},
    {"psml", READ_SHOWS_INFO, psml_begin, psml_frame, psml_end},
    {"pdml", READ_TAKES_PROTOS | READ_ALL_FIELDS, pdml_begin, pdml_frame, pdml_end},
};

/* -V with -T text (and -O): not a -T name. */
static const struct read_printer tree = {NULL, READ_TAKES_HEX | READ_P_SUMMARY | READ_ALL_FIELDS,
                                         NULL, tree_frame, NULL};

const struct read_printer *
read_printer_find(const char *name)
{
    for (size_t i = 0; i < RS_ARRAY_SIZE(printers); i++)
        if (strcmp(printers[i].name, name) == 0)
            return &printers[i];
    return NULL;
}

const struct read_printer *
read_printer_text(void)
{
    return &printers[0];
}

const struct read_printer *
read_printer_tree(void)
{
    return &tree;
}

const char *
read_printer_names(void)
{
    static char names[128];

    if (names[0] == '\0') {
        size_t n = 0, last = RS_ARRAY_SIZE(printers) - 1;
        for (size_t i = 0; i <= last; i++)
            n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", printers[i].name,
                                  i == last ? "" : i + 1 == last ? " or " : ", ");
    }
    return names;
}

void
read_print_frame(struct rs_out *out, const struct read_opts *ro, const struct rs_packet *pkt,
                 bool first)
{
    const struct read_printer *p = ro->printer;

    /* As tshark: -P puts the summary line first. */
    if (ro->summary && (p->flags & READ_P_SUMMARY))
        rs_print_summary(out, pkt);
    p->frame(out, ro, pkt, first);
    if (ro->hex && !(p->flags & READ_HEX_INSIDE)) {
        out->gap = ro->separator;
        rs_print_hex(out, pkt);
    }
}
