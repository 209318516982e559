/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_frame.c - frame.* fields: what the capture says about each frame.
 */
#include "fields/fields_int.h"

static bool
get_frame(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          struct rs_value *out)
{
    const struct rs_frame *fr = pkt->frame;

    if (occ != 0)
        return false;
    out->type = f->type;
    switch (f->offset) {
    case 0:
        out->v.u = fr->number;
        break;
    case 1:
        out->v.t = rs_frame_time(fr);
        break;
    case 2:
        out->v.t = fr->rel;
        break;
    case 5:
        out->v.t = fr->delta;
        break;
    case 3:
        out->v.u = rs_packet_wire_len(pkt);
        break;
    case 4:
        out->v.u = rs_packet_cap_len(pkt);
        break;
    case 6:
        out->v.u = 0;   /* the protocol, present in every frame */
        break;
    default:
        return false;
    }
    return true;
}

/* The offset column selects what get_frame returns. */
const struct rs_field rs_fields_frame[] = {
    /* The bare protocol, for -Y frame; the tree has its own first line. */
    {"frame", "Frame", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "Every frame", RS_NO_LAYER, 6, 0,
     get_frame, 0, RS_FIELD_HIDDEN | RS_FIELD_PSEUDO},
    {"frame.number", "Frame Number", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "Position of the frame in the capture, from 1", RS_NO_LAYER, 0, 0, get_frame, 1},
    {"frame.time", "Arrival Time", RS_FT_ABSTIME, RS_BASE_LOCAL, 0, NULL,
     "Arrival time as a date in the local time zone", RS_NO_LAYER, 1, 0, get_frame, 1},
    {"frame.time_epoch", "Epoch Time", RS_FT_ABSTIME, RS_BASE_NONE, 0, NULL,
     "Arrival time in seconds since 1970", RS_NO_LAYER, 1, 0, get_frame, 1},
    {"frame.time_delta", "Time delta from previous captured frame", RS_FT_RELTIME,
     RS_BASE_NONE, 0, NULL, "Seconds since the frame before", RS_NO_LAYER, 5, 0, get_frame, 1},
    {"frame.time_relative", "Time since reference or first frame", RS_FT_RELTIME,
     RS_BASE_NONE, 0, NULL, "Seconds since the first frame", RS_NO_LAYER, 2, 0, get_frame, 1},
    {"frame.len", "Frame length on the wire", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "Bytes on the wire", RS_NO_LAYER, 3, 0, get_frame, 1},
    {"frame.cap_len", "Frame length stored into the capture file", RS_FT_UINT32, RS_BASE_DEC,
     0, NULL, "Bytes captured", RS_NO_LAYER, 4, 0, get_frame, 1},
    RS_F_END,
};
