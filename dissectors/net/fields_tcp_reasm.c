/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_tcp_reasm.c - the fields of an HTTP message or TLS record over TCP segments, on
 * the segment that completes it (streams.h's struct rs_tcp_reasm), as tshark 4.0 shows
 * them: a generated item of its own after TCP's, "[N Reassembled TCP Segments (L bytes):
 * #a(n), #b(m)]", placed in the message (its data source "Reassembled TCP"), with each
 * segment's frame over its bytes there, the count, the length and the bytes under it.
 */
#include <stdio.h>

#include <roceshark/dissectors/streams.h>

#include "fields/fields_int.h"

/* The offset column: 0 the node, 1 the count, 2 the length, 3 the bytes. */
static bool
get_message(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    const struct rs_tcp_reasm *r = rs_stream_reasm_of(pkt);

    return r != NULL && occ == 0 &&
           rs_value_set_reassembled(out, f, r->n_segments, r->data, r->len);
}

/* "2 Reassembled TCP Segments (1595 bytes): #104(1410), #105(185)" */
static size_t
label_segments(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
               char *buf, size_t size)
{
    const struct rs_tcp_reasm *r = rs_stream_reasm_of(pkt);
    size_t n;

    (void)f;
    (void)v;
    if (r == NULL)
        return 0;
    int k = snprintf(buf, size, "%u Reassembled TCP Segment%s (%u byte%s):", r->n_segments,
                     r->n_segments == 1 ? "" : "s", r->len, r->len == 1 ? "" : "s");
    n = k > 0 ? (size_t)k : 0;
    for (uint32_t i = 0; i < r->n_segments && n < size; i++) {
        k = snprintf(buf + n, size - n, "%s #%u(%u)", i == 0 ? "" : ",", r->frames[i],
                     r->lens[i]);
        n += k > 0 ? (size_t)k : 0;
    }
    return n;
}

static bool
get_segment(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    const struct rs_tcp_reasm *r = rs_stream_reasm_of(pkt);

    (void)f;
    return r != NULL && occ < r->n_segments && rs_value_set_uint(out, RS_FT_FRAMENUM,
                                                                 r->frames[occ]);
}

/* Segment occ's bytes in the message: after those of the segments before it. */
static bool
locate_segment(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               uint32_t *offset, uint32_t *length)
{
    const struct rs_tcp_reasm *r = rs_stream_reasm_of(pkt);

    (void)f;
    if (r == NULL || occ >= r->n_segments)
        return false;
    *offset = 0;
    for (uint32_t i = 0; i < occ; i++)
        *offset += r->lens[i];
    *length = r->lens[occ];
    return true;
}

static bool
locate_message(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               uint32_t *offset, uint32_t *length)
{
    const struct rs_tcp_reasm *r = rs_stream_reasm_of(pkt);

    (void)f;
    if (r == NULL || occ != 0)
        return false;
    *offset = 0;
    *length = r->len;
    return true;
}

#define MSG (RS_FIELD_GENERATED | RS_FIELD_REASSEMBLED)
#define NEVER(abbrev, name, type, blurb) \
    {abbrev, name, type, RS_BASE_NONE, 0, NULL, blurb, RS_LAYER_TCP, 0, 0, rs_field_get_never, 1, \
     RS_FIELD_GENERATED}

const struct rs_field rs_fields_tcp_reasm[] = {
    {"tcp.segments", "Reassembled TCP Segments", RS_FT_NONE, RS_BASE_NONE, 0, NULL,
     "TCP Segments", RS_LAYER_TCP, 0, 0, get_message, 0, MSG, .label = label_segments,
     .locate = locate_message},
    {"tcp.segment", "TCP Segment", RS_FT_FRAMENUM, RS_BASE_NONE, 0, NULL,
     "Frame of each segment of the message", RS_LAYER_TCP, 0, 0, get_segment, 1, MSG,
     .locate = locate_segment},
    NEVER("tcp.segment.overlap", "Segment overlap", RS_FT_BOOLEAN,
          "Segments are taken in order: they never overlap"),
    NEVER("tcp.segment.overlap.conflict", "Conflicting data in segment overlap", RS_FT_BOOLEAN,
          "Segments are taken in order: they never overlap"),
    NEVER("tcp.segment.multipletails", "Multiple tail segments found", RS_FT_BOOLEAN,
          "Segments are taken in order: they never overlap"),
    NEVER("tcp.segment.toolongfragment", "Segment too long", RS_FT_BOOLEAN,
          "Segments are taken in order: they never overlap"),
    NEVER("tcp.segment.error", "Reassembling error", RS_FT_FRAMENUM,
          "Segments are taken in order: they never overlap"),
    {"tcp.segment.count", "Segment count", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "Segments of the message", RS_LAYER_TCP, 1, 0, get_message, 1, MSG},
    NEVER("tcp.reassembled_in", "Reassembled PDU in frame", RS_FT_FRAMENUM,
          "Shown by a second pass only: never in one pass"),
    {"tcp.reassembled.length", "Reassembled TCP length", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "The total length of the reassembled payload", RS_LAYER_TCP, 2, 0, get_message, 1, MSG},
    {"tcp.reassembled.data", "Reassembled TCP Data", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
     "The reassembled payload", RS_LAYER_TCP, 3, 0, get_message, 1, RS_FIELD_GENERATED},
    RS_F_END,
};
