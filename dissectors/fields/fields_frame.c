/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_frame.c - frame.* fields: what the capture says about each frame, in the order
 * and with the lines of Wireshark's frame tree.
 */
#include <stdio.h>

#include <roceshark/dissectors/info.h>

#include "fields/fields_int.h"

/* What get_frame returns: the offset column of the table selects it. */
enum frame_value {
    FV_NUMBER, FV_TIME, FV_RELATIVE, FV_WIRE_LEN, FV_CAP_LEN, FV_DELTA, FV_PRESENT,
    FV_ENCAP, FV_ZERO_TIME, FV_FALSE, FV_DELTA_SHOWN, FV_INTERFACE_ID, FV_INTERFACE_NAME,
    FV_INTERFACE_DESC, FV_SECTION
};

/* Wireshark's encapsulation numbers (wiretap's WTAP_ENCAP_*) of the link types we read,
 * and their names. */
static const struct {
    int linktype;
    uint64_t encap;
} encaps[] = {
    {RS_DLT_EN10MB, 1}, {RS_DLT_RAW, 7},    {RS_DLT_RAW_BSD, 7},      {RS_DLT_LINKTYPE_RAW, 7},
    {RS_DLT_LINUX_SLL, 25}, {RS_DLT_ERF, 98}, {RS_DLT_IPV4, 129},     {RS_DLT_IPV6, 130},
    {RS_DLT_INFINIBAND, 150}, {RS_DLT_LINUX_SLL2, 210},
};

static const struct rs_value_string encap_vals[] = {
    {1, "Ethernet"},
    {7, "Raw IP"},
    {25, "Linux cooked-mode capture v1"},
    {98, "Extensible Record Format"},
    {129, "Raw IPv4"},
    {130, "Raw IPv6"},
    {150, "InfiniBand"},
    {210, "Linux cooked-mode capture v2"},
    {0, NULL},
};

int
rs_frame_interface(const struct rs_packet *pkt, char *name, size_t size)
{
    const struct rs_frame *fr = pkt->frame;

    if (fr->interface == 0)
        return -1;
    if (name != NULL && size > 0 && fr->section != 0) {
        snprintf(name, size, "%s", fr->iface_name != NULL ? fr->iface_name : "unknown");
    } else if (name != NULL && size > 0) {
        /* An ERF record's port, as Wireshark's ERF reader names the interface it makes. */
        unsigned port = fr->linktype == RS_DLT_ERF && fr->caplen >= 10 ? fr->data[9] & 3 : 0;
        snprintf(name, size, "Port %c (ERF Interface %u)", 'A' + port, port);
    }
    return fr->interface - 1;
}

static bool
get_frame(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          struct rs_value *out)
{
    static _Thread_local char name[64];
    const struct rs_frame *fr = pkt->frame;

    if (occ != 0)
        return false;
    out->type = f->type;
    switch (f->offset) {
    case FV_NUMBER:
        out->v.u = fr->number;
        break;
    case FV_TIME:
        out->v.t = rs_frame_time(fr);
        break;
    case FV_RELATIVE:
        out->v.t = fr->rel;
        break;
    case FV_DELTA:
        out->v.t = fr->delta;
        break;
    case FV_DELTA_SHOWN:
        out->v.t = pkt->delta_shown;
        break;
    case FV_WIRE_LEN:
        out->v.u = rs_packet_wire_len(pkt);
        break;
    case FV_CAP_LEN:
        out->v.u = rs_packet_cap_len(pkt);
        break;
    case FV_PRESENT:
    case FV_FALSE:
        out->v.u = 0;   /* the protocol, present in every frame; a frame never marked */
        break;
    case FV_ZERO_TIME:
        out->v.t = (struct rs_time){0, 0};     /* no time shift is ever applied */
        break;
    case FV_ENCAP:
        out->v.u = 0;
        for (size_t i = 0; i < RS_ARRAY_SIZE(encaps); i++)
            if (encaps[i].linktype == fr->linktype)
                out->v.u = encaps[i].encap;
        break;
    case FV_INTERFACE_ID:
        if (fr->interface == 0)
            return false;
        out->v.u = fr->interface - 1u;
        break;
    case FV_INTERFACE_NAME:
        if (rs_frame_interface(pkt, name, sizeof(name)) < 0)
            return false;
        out->v.str = name;
        break;
    case FV_INTERFACE_DESC:
        /* pcapng: if_description where the block has one; an ERF port: its name */
        if (fr->section != 0)
            out->v.str = fr->iface_desc;
        else if (rs_frame_interface(pkt, name, sizeof(name)) >= 0)
            out->v.str = name;
        else
            return false;
        if (out->v.str == NULL)
            return false;
        break;
    case FV_SECTION:
        if (fr->section == 0)
            return false;
        out->v.u = fr->section;
        break;
    default:
        return false;
    }
    return true;
}

/* "Frame Length: 74 bytes (592 bits)", "Capture Length: ...": the words differ from the
 * fields' names. */
static size_t
length_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
             char *buf, size_t size)
{
    struct rs_info in = {buf, size, 0, 0};

    /* Without printf: every tree has two of these lines. */
    (void)pkt;
    rs_info_dec(&in, f->offset == FV_WIRE_LEN ? "Frame Length: " : "Capture Length: ", v->v.u);
    rs_info_dec(&in, v->v.u == 1 ? " byte (" : " bytes (", v->v.u * 8);
    rs_info_str(&in, " bits)");
    return in.want;
}

/* "Interface id: 0 (Port B (ERF Interface 1))" */
static size_t
interface_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
                char *buf, size_t size)
{
    char name[64];

    (void)f;
    rs_frame_interface(pkt, name, sizeof(name));
    return (size_t)snprintf(buf, size, "Interface id: %llu (%s)", (unsigned long long)v->v.u,
                            name);
}

#define FRAME(abbrev, name, type, base, vals, blurb, which, flags) \
    {abbrev, name, type, base, 0, vals, blurb, RS_NO_LAYER, which, 0, get_frame, 1, flags}

const struct rs_field rs_fields_frame[] = {
    /* The bare protocol, for -Y frame; the tree has its own first line. */
    {"frame", "Frame", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "Every frame", RS_NO_LAYER,
     FV_PRESENT, 0, get_frame, 0, RS_FIELD_HIDDEN | RS_FIELD_PSEUDO},
    {"frame.section_number", "Section number", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "The number of the file section this frame is in", RS_NO_LAYER, FV_SECTION, 0, get_frame,
     1},
    {"frame.interface_id", "Interface id", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "The capture interface, numbered from 0", RS_NO_LAYER, FV_INTERFACE_ID, 0, get_frame, 1,
     0, NULL, NULL, interface_label},
    {"frame.interface_name", "Interface name", RS_FT_STRING, RS_BASE_NONE, 0, NULL,
     "The friendly name for this interface", RS_NO_LAYER, FV_INTERFACE_NAME, 0, get_frame, 2},
    {"frame.interface_description", "Interface description", RS_FT_STRING, RS_BASE_NONE, 0,
     NULL, "The description for this interface", RS_NO_LAYER, FV_INTERFACE_DESC, 0, get_frame,
     2},
    FRAME("frame.encap_type", "Encapsulation type", RS_FT_INT16, RS_BASE_DEC, encap_vals,
          "The link type, as Wireshark numbers it", FV_ENCAP, 0),
    FRAME("frame.time", "Arrival Time", RS_FT_ABSTIME, RS_BASE_LOCAL, NULL,
          "Absolute time when this frame was captured", FV_TIME, 0),
    FRAME("frame.offset_shift", "Time shift for this packet", RS_FT_RELTIME, RS_BASE_NONE,
          NULL, "Time shift applied to this packet", FV_ZERO_TIME, RS_FIELD_GENERATED),
    /* A relative time in Wireshark 4.0's registry: the time since the epoch. */
    FRAME("frame.time_epoch", "Epoch Time", RS_FT_RELTIME, RS_BASE_NONE, NULL,
          "Epoch time when this frame was captured", FV_TIME, 0),
    FRAME("frame.time_delta", "Time delta from previous captured frame", RS_FT_RELTIME,
          RS_BASE_NONE, NULL, "", FV_DELTA, RS_FIELD_GENERATED),
    FRAME("frame.time_delta_displayed", "Time delta from previous displayed frame",
          RS_FT_RELTIME, RS_BASE_NONE, NULL, "", FV_DELTA_SHOWN, RS_FIELD_GENERATED),
    FRAME("frame.time_relative", "Time since reference or first frame", RS_FT_RELTIME,
          RS_BASE_NONE, NULL, "Time relative to time reference or first frame", FV_RELATIVE,
          RS_FIELD_GENERATED),
    FRAME("frame.number", "Frame Number", RS_FT_UINT32, RS_BASE_DEC, NULL, "", FV_NUMBER, 0),
    {"frame.len", "Frame length on the wire", RS_FT_UINT32, RS_BASE_DEC, 0, NULL, "",
     RS_NO_LAYER, FV_WIRE_LEN, 0, get_frame, 1, 0, NULL, NULL, length_label},
    {"frame.cap_len", "Frame length stored into the capture file", RS_FT_UINT32, RS_BASE_DEC,
     0, NULL, "", RS_NO_LAYER, FV_CAP_LEN, 0, get_frame, 1, 0, NULL, NULL, length_label},
    FRAME("frame.marked", "Frame is marked", RS_FT_BOOLEAN, RS_BASE_NONE, NULL,
          "Frame is marked in the GUI", FV_FALSE, RS_FIELD_GENERATED),
    FRAME("frame.ignored", "Frame is ignored", RS_FT_BOOLEAN, RS_BASE_NONE, NULL,
          "Frame is ignored by the dissectors", FV_FALSE, RS_FIELD_GENERATED),
    RS_F_END,
};
