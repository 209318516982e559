/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_corr.c - roceshark.corr.*: a packet across the capture points, as
 * `roceshark correlate` gives it (rs_packet.corr); absent everywhere else. Points are
 * named A, B, C ... (after Z: AA, AB ...) in the order of the -r options; a segment "A>B" runs from A to B
 * in the direction the conversation goes.
 */
#include <roceshark/dissectors/corr.h>

#include "fields/fields_int.h"

static bool
get_proto(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          struct rs_value *out)
{
    (void)f;
    if (occ != 0 || pkt->corr == NULL)
        return false;
    out->type = RS_FT_PROTOCOL;
    return true;
}

static bool
str(const char *s, unsigned occ, struct rs_value *out)
{
    if (occ != 0 || s[0] == '\0')
        return false;
    out->type = RS_FT_STRING;
    out->v.str = s;
    return true;
}

/* The offset column says which text. */
enum { TEXT_SEEN, TEXT_PATH, TEXT_LOST, TEXT_CE, TEXT_MISSED, TEXT_POINT };

static bool
get_text(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out)
{
    const struct rs_corr_view *v = pkt->corr;

    if (v == NULL)
        return false;
    switch (f->offset) {
    case TEXT_SEEN:
        return str(v->seen_at, occ, out);
    case TEXT_PATH:
        return str(v->path_text, occ, out);
    case TEXT_LOST:
        return str(v->lost_text, occ, out);
    case TEXT_CE:
        return str(v->ce_text, occ, out);
    case TEXT_MISSED:
        return str(v->missed_text, occ, out);
    default:
        return str(v->shown_text, occ, out);
    }
}

/* Occurrence occ of the segments both ends saw, in path order. */
static int
nth_measured(const struct rs_corr_view *v, unsigned occ)
{
    for (unsigned s = 0; s + 1 < v->n_path; s++)
        if (v->both[s] && occ-- == 0)
            return (int)s;
    return -1;
}

static bool
get_delay(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          struct rs_value *out)
{
    const struct rs_corr_view *v = pkt->corr;
    int s;

    if (v == NULL || (s = nth_measured(v, occ)) < 0)
        return false;
    if (f->type == RS_FT_STRING) {
        out->type = RS_FT_STRING;
        out->v.str = v->seg_text[s];
        return true;
    }
    out->type = RS_FT_RELTIME;
    out->v.t = rs_time_from_ns(v->delay[s]);
    return true;
}

static bool
get_changed(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    (void)f;
    if (pkt->corr == NULL || occ >= pkt->corr->n_changed)
        return false;
    out->type = RS_FT_STRING;
    out->v.str = pkt->corr->changed[occ];
    return true;
}

static bool
get_flag(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out)
{
    (void)f;
    if (occ != 0 || pkt->corr == NULL || !pkt->corr->contradiction)
        return false;
    return rs_value_set_uint(out, RS_FT_BOOLEAN, 1);
}

#define CORR_TEXT(abbrev, name, which, blurb) \
    {abbrev, name, RS_FT_STRING, RS_BASE_NONE, 0, NULL, blurb, RS_NO_LAYER, which, 0, \
     get_text, 1, RS_FIELD_PSEUDO}

const struct rs_field rs_fields_corr[] = {
    {"roceshark.corr", "Across captures", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "The packet at every capture point, as roceshark correlate joins several captures", RS_NO_LAYER, 0, 0,
     get_proto, 0, RS_FIELD_PSEUDO},
    CORR_TEXT("roceshark.corr.point", "Shown from", TEXT_POINT,
              "The capture point whose frame is shown: A for the first capture correlated, B "
              "for the second, ..."),
    CORR_TEXT("roceshark.corr.seen_at", "Seen at", TEXT_SEEN,
              "The points that captured it, upstream first (\"A,B\")"),
    CORR_TEXT("roceshark.corr.path", "Path", TEXT_PATH,
              "Its conversation's points, upstream first (\"A>B>C\")"),
    {"roceshark.corr.segment", "Segment", RS_FT_STRING, RS_BASE_NONE, 0, NULL,
     "The segment of each roceshark.corr.delay (\"A>B\")", RS_NO_LAYER, 0, 0, get_delay, 1,
     RS_FIELD_PSEUDO},
    {"roceshark.corr.delay", "One-way delay", RS_FT_RELTIME, RS_BASE_NONE, 0, NULL,
     "Seconds from one point to the next, on A's clock, per segment seen at both ends",
     RS_NO_LAYER, 0, 0, get_delay, 1, RS_FIELD_PSEUDO},
    CORR_TEXT("roceshark.corr.lost_between", "Lost between", TEXT_LOST,
              "The segment after its last sighting, where the next point was capturing"),
    CORR_TEXT("roceshark.corr.ce_marked_between", "CE marked between", TEXT_CE,
              "The segment where its ECN became CE"),
    CORR_TEXT("roceshark.corr.missed_at", "Missed by capture at", TEXT_MISSED,
              "Points on its path that did not capture it though it passed them: capture "
              "loss, not network loss"),
    {"roceshark.corr.changed", "Changed", RS_FT_STRING, RS_BASE_NONE, 0, NULL,
     "A header field a segment changed (\"A>B:ip.ttl\"), one per change", RS_NO_LAYER, 0, 0,
     get_changed, 1, RS_FIELD_PSEUDO},
    {"roceshark.corr.contradiction", "Contradiction", RS_FT_BOOLEAN, RS_BASE_NONE, 0, NULL,
     "Seen downstream earlier than upstream by more than the clocks' error bound",
     RS_NO_LAYER, 0, 0, get_flag, 1, RS_FIELD_PSEUDO},
    RS_F_END,
};
