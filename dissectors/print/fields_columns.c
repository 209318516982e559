/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_columns.c - _ws.col.*: the summary line's columns as fields, under the names
 * tshark gives its default columns, for -T fields -e _ws.col.Info and for filters.
 * Their text is the summary line's: Protocol, Source, Destination, Length, No. and Time
 * read as tshark's do; Info says what ours says, which is more than Wireshark's.
 */
#include <arpa/inet.h>
#include <stdio.h>

#include <roceshark/dissectors/nstime.h>
#include <roceshark/dissectors/print.h>

#include "fields/fields_int.h"

enum column { COL_NO, COL_TIME, COL_SOURCE, COL_DESTINATION, COL_PROTOCOL, COL_LENGTH,
              COL_INFO, COL_COUNT };

/* A column's text lives until the same column of the next frame is asked for: each
 * column has its own buffer, so one frame's columns can all be held at once. */
static _Thread_local char text[COL_COUNT][512];

static bool
get_column(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
           struct rs_value *out)
{
    char other[RS_PRINT_ADDRESS_MAX];
    char *buf = text[f->offset];

    if (occ != 0 || f->offset >= COL_COUNT)
        return false;
    switch (f->offset) {
    case COL_NO:
        buf[rs_format_u64(buf, pkt->frame->number)] = '\0';
        break;
    case COL_TIME:
        rs_time_format(pkt->frame->rel, pkt->frame->ts_digits, buf);
        break;
    case COL_SOURCE:
        rs_print_addresses(pkt, buf, other, sizeof(other));
        break;
    case COL_DESTINATION:
        rs_print_addresses(pkt, other, buf, sizeof(other));
        break;
    case COL_PROTOCOL:
        snprintf(buf, sizeof(text[0]), "%s", rs_print_protocol(pkt));
        break;
    case COL_LENGTH:
        snprintf(buf, sizeof(text[0]), "%u", rs_packet_wire_len(pkt));
        break;
    default:
        rs_print_info(pkt, buf, sizeof(text[0]));
        break;
    }
    out->type = RS_FT_STRING;
    out->v.str = buf;
    return true;
}

#define COLUMN(abbrev, name, col)                                                          \
    {abbrev, name, RS_FT_STRING, RS_BASE_NONE, 0, NULL, "The summary line's " name " column", \
     RS_NO_LAYER, col, 0, get_column, 1, RS_FIELD_HIDDEN | RS_FIELD_PSEUDO}

const struct rs_field rs_fields_columns[] = {
    COLUMN("_ws.col.No.", "No.", COL_NO),
    COLUMN("_ws.col.Time", "Time", COL_TIME),
    COLUMN("_ws.col.Source", "Source", COL_SOURCE),
    COLUMN("_ws.col.Destination", "Destination", COL_DESTINATION),
    COLUMN("_ws.col.Protocol", "Protocol", COL_PROTOCOL),
    COLUMN("_ws.col.Length", "Length", COL_LENGTH),
    COLUMN("_ws.col.Info", "Info", COL_INFO),
    RS_F_END,
};
