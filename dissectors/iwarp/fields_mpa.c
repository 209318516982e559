/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_mpa.c - iwarp_mpa.* fields (Wireshark 4.0's names, types and
 * formats) and ours under roceshark.mpa.*: the MPA Request and Reply (with
 * RFC 6581 IRD/ORD), and each FPDU's length, pad, CRC and markers.
 *
 * As Wireshark does, iwarp_mpa.crc_check holds the sent CRC on connections
 * that use CRCs and iwarp_mpa.crc on those that do not, both read as a
 * big-endian number; roceshark.mpa.crc.status says whether it is right.
 * iwarp_mpa.res covers the four low flag bits, so revision 2's Enhanced bit
 * shows there too (and in roceshark.mpa.enhanced). Wireshark's expert items
 * res.not_set0 and rev.not_set1 are not tree items in 4.0, so -T fields
 * never prints them; bad_length is, and is here.
 */
#include <stdio.h>

#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/flow.h>

#include "iwarp/fields_iwarp_int.h"

#define FRAME_FLAGS 16
#define FRAME_REV 17
#define FRAME_PDLEN 18
#define FRAME_PD 20
#define MPA_REV_ENHANCED 2

static const struct rs_value_string dir_vals[] = {
    {RS_IWARP_DIR_INITIATOR, "initiator"},
    {RS_IWARP_DIR_RESPONDER, "responder"},
    {0, NULL},
};

static uint16_t
pd_len(const struct rs_iwarp_pdu *p)
{
    return rs_load_be16(p->data + FRAME_PDLEN);
}

/* --- places: the frame's octets a value of ours speaks of --- */

/* The wire offset of p's marker-free octet `plain`: markers stand every 512 octets
 * from marker_at, and each one at or before it pushes it on. */
static uint32_t
wire_offset(const struct rs_iwarp_pdu *p, uint32_t plain)
{
    uint32_t w = plain;

    if (p->flags & RS_IWARP_PDU_MARKED)
        for (uint32_t m = p->marker_at; m <= w; m += RS_MPA_MARKER_INTERVAL)
            w += RS_MPA_MARKER_LEN;
    return w;
}

/* Wire octets [first, end) of p as far as pkt's segment holds them. */
static bool
clip_to_segment(const struct rs_packet *pkt, const struct rs_iwarp_pdu *p, uint32_t first,
                uint32_t end, uint32_t *offset, uint32_t *length)
{
    struct rs_span pay;

    if (!rs_tcp_payload(pkt, &pay))
        return false;
    /* The segment's sequence number: its payload's first octet in the stream. */
    uint32_t seg_seq = rs_load_be32(pkt->frame->data + pkt->span[RS_LAYER_TCP].off + 4);
    /* Both ends as distances from it, which wrap as sequence numbers do. */
    int64_t from = (int32_t)(p->seq + first - seg_seq);
    int64_t to = (int32_t)(p->seq + end - seg_seq);
    if (from < 0)
        from = 0;
    if (to > (int64_t)pay.len)
        to = pay.len;
    if (from >= to)
        return false;
    *offset = pay.off + (uint32_t)from;
    *length = (uint32_t)(to - from);
    return true;
}

bool
iw_pdu_place(const struct rs_packet *pkt, const struct rs_iwarp_pdu *p, uint32_t at,
             uint32_t n, uint32_t *offset, uint32_t *length)
{
    if (n == 0)
        return false;
    if (pkt->iwarp->flags & RS_IWARP_VIEW_UNMARKED_PLACES) {
        if (at >= p->caplen)
            return false;
        *offset = at;
        *length = n < p->caplen - at ? n : p->caplen - at;
        return true;
    }
    if (clip_to_segment(pkt, p, wire_offset(p, at), wire_offset(p, at + n - 1) + 1, offset,
                        length))
        return true;
    /* What it names came in earlier segments: the PDU's end, which this one holds. */
    return clip_to_segment(pkt, p, 0, p->wire_len, offset, length);
}

bool
iw_field_place(const struct rs_packet *pkt, const struct rs_iwarp_pdu *p,
               const struct rs_field *f, uint32_t base, uint32_t *offset, uint32_t *length)
{
    uint32_t at = base + f->offset;
    uint32_t n = f->width != 0 ? f->width : p->caplen > at ? p->caplen - at : 0;

    return iw_pdu_place(pkt, p, at, n, offset, length);
}

/* Wire octets [at, at + n) of p's stream octets (markers counted), as far as pkt's
 * segment holds them: a marker's place. */
static bool
wire_place(const struct rs_packet *pkt, const struct rs_iwarp_pdu *p, uint32_t at, uint32_t n,
           uint32_t *offset, uint32_t *length)
{
    return clip_to_segment(pkt, p, at, at + n, offset, length);
}

/* --- predicates: which PDUs carry the field --- */

static bool
is_any(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)p;
    (void)f;
    return true;
}

static bool
is_frame(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return p->kind != RS_MPA_FPDU && iw_fits(f, 0, p->caplen);
}

/* The mask column picks Request (1), Reply (2) or both (0) for the
 * fields whose own mask is unused. */
static bool
is_req(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return p->kind == RS_MPA_REQUEST && iw_fits(f, 0, p->caplen);
}

static bool
is_rep(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return p->kind == RS_MPA_REPLY && iw_fits(f, 0, p->caplen);
}

/* Wireshark stops at a PD_Length over 512 (bad_length) before adding it. */
static bool
is_frame_pd_ok(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return is_frame(p, f) && pd_len(p) <= RS_MPA_MAX_PD_LEN;
}

static bool
is_frame_pd(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    uint16_t n = p->kind != RS_MPA_FPDU && p->caplen >= FRAME_PD ? pd_len(p) : 0;
    return n > 0 && n <= RS_MPA_MAX_PD_LEN && p->caplen >= FRAME_PD + (uint32_t)n;
}

static bool
is_frame_bad_pd(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return rs_mpa_frame_anomalies(p) & RS_MPA_BAD_PD_LENGTH;
}

/* Revision 2 with the Enhanced bit: IRD and ORD lead the private data. */
static bool
is_enhanced(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return is_frame_pd(p, f) && p->data[FRAME_REV] == MPA_REV_ENHANCED &&
           (p->data[FRAME_FLAGS] & RS_MPA_FLAG_ENHANCED) && pd_len(p) >= 4 &&
           iw_fits(f, 0, p->caplen);
}

static bool
is_fpdu(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    return p->kind == RS_MPA_FPDU && iw_fits(f, 0, p->caplen);
}

static bool
is_fpdu_whole(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return p->kind == RS_MPA_FPDU && p->caplen >= p->len;
}

static bool
has_pad(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return p->kind == RS_MPA_FPDU && p->pad_len > 0 && p->caplen >= 2u + p->ulpdu_len + p->pad_len;
}

static bool
has_markers(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return p->n_markers > 0;
}

static bool
has_crc_verdict(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return p->kind == RS_MPA_FPDU &&
           (p->crc_status == RS_CKSUM_GOOD || p->crc_status == RS_CKSUM_BAD);
}

static bool
is_inferred(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return p->flags & RS_IWARP_PDU_INFERRED;
}

static bool
is_truncated(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return p->flags & RS_IWARP_PDU_TRUNCATED;
}

/* Wireshark's expert items on the exchange, which 4.0 keeps out of its
 * tree (so tshark -T fields prints nothing for them). Here they are fields
 * that filters and -T fields see, and revision 2 (RFC 6581) is a revision
 * MPA has, not one to warn about. */
static bool
is_res_not_zero(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return rs_mpa_frame_anomalies(p) & RS_MPA_RES_SET;
}

static bool
is_rev_unknown(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return rs_mpa_frame_anomalies(p) & RS_MPA_REV_UNKNOWN;
}

static bool
is_rejected(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return rs_mpa_frame_anomalies(p) & RS_MPA_REJECTED;
}

/* --- getters --- */

static bool
get_at(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
       struct rs_value *out, iw_field_pred pred)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, pred);

    return p != NULL && iw_field_read(f, p->data, out);
}

static bool
get_pdu(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
        struct rs_value *out)
{
    return get_at(pkt, f, occ, out, is_any);
}

static bool
get_req(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
        struct rs_value *out)
{
    return get_at(pkt, f, occ, out, is_req);
}

static bool
get_rep(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
        struct rs_value *out)
{
    return get_at(pkt, f, occ, out, is_rep);
}

static bool
get_frame(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          struct rs_value *out)
{
    return get_at(pkt, f, occ, out, is_frame);
}

static bool
get_frame_pd_ok(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                struct rs_value *out)
{
    return get_at(pkt, f, occ, out, is_frame_pd_ok);
}

static bool
get_private_data(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, is_frame_pd);

    if (p == NULL)
        return false;
    out->type = RS_FT_BYTES;
    out->v.bytes.ptr = p->data + FRAME_PD;
    out->v.bytes.len = pd_len(p);
    return true;
}

static bool
get_bad_length(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               struct rs_value *out)
{
    return get_at(pkt, f, occ, out, is_frame_bad_pd);
}

static bool
get_enhanced(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out)
{
    return get_at(pkt, f, occ, out, is_enhanced);
}

static bool
get_fpdu(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out)
{
    return get_at(pkt, f, occ, out, is_fpdu);
}

static bool
get_pad(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
        struct rs_value *out)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, has_pad);

    if (p == NULL)
        return false;
    out->type = RS_FT_BYTES;
    out->v.bytes.ptr = p->data + 2 + p->ulpdu_len;
    out->v.bytes.len = p->pad_len;
    return true;
}

/* The sent CRC, on FPDUs of connections that use CRCs (offset column 1)
 * or do not (0), as Wireshark splits them. */
static bool
crc_pred(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    bool crc_on = p->crc_status != RS_CKSUM_NOT_PRESENT;

    return is_fpdu_whole(p, f) && crc_on == (f->offset == 1);
}

static bool
get_crc(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
        struct rs_value *out)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, crc_pred);

    if (p == NULL)
        return false;
    return rs_value_set_uint(out, f->type, rs_load_be32(p->data + p->len - RS_MPA_CRC_LEN));
}

/* The sent CRC's line with tshark's verdict: "CRC check: 0x5a156f86 (Good CRC32)", or
 * "(Bad CRC32, should be 0x...)"; the plain line where it was not checked. */
static size_t
label_crc_check(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
                char *buf, size_t size)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, 0, crc_pred);
    int n = 0;

    if (p != NULL && p->crc_status == RS_CKSUM_GOOD)
        n = snprintf(buf, size, "%s: 0x%08llx (Good CRC32)", f->name,
                     (unsigned long long)v->v.u);
    else if (p != NULL && p->crc_status == RS_CKSUM_BAD)
        n = snprintf(buf, size, "%s: 0x%08llx (Bad CRC32, should be 0x%08x)", f->name,
                     (unsigned long long)v->v.u, p->crc_computed);
    return n > 0 ? (size_t)n : 0;
}

static bool
get_markers_node(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    return get_at(pkt, f, occ, out, has_markers);
}

/* Marker n of the frame; the offset column picks its half (0 reserved,
 * 2 FPDUPTR). */
static bool
get_marker(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
           struct rs_value *out)
{
    const struct rs_iwarp_view *v = pkt->iwarp;

    if (v == NULL || occ >= v->n_markers)
        return false;
    uint32_t m = v->markers[occ];
    return rs_value_set_uint(out, f->type, f->offset == 0 ? m >> 16 : m & 0xffff);
}

static bool
is_fpdu_any(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return p->kind == RS_MPA_FPDU;
}

static bool
get_crc_status(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               struct rs_value *out)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, is_fpdu_any);

    return p != NULL && rs_value_set_uint(out, f->type, p->crc_status);
}

static bool
get_crc_computed(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, has_crc_verdict);

    return p != NULL && rs_value_set_uint(out, f->type, p->crc_computed);
}

static bool
is_crc_swapped(const struct rs_iwarp_pdu *p, const struct rs_field *f)
{
    (void)f;
    return p->flags & RS_IWARP_PDU_CRC_SWAPPED;
}

static bool
get_flag_pred(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out, iw_field_pred pred)
{
    return iw_field_pdu(pkt, f, occ, pred) != NULL && rs_value_set_uint(out, RS_FT_BOOLEAN, 1);
}

static bool
get_crc_swapped(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                struct rs_value *out)
{
    return get_flag_pred(pkt, f, occ, out, is_crc_swapped);
}

static bool
get_res_not_zero(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    return iw_field_pdu(pkt, f, occ, is_res_not_zero) != NULL &&
           rs_value_set_uint(out, RS_FT_NONE, 1);
}

static bool
get_rev_unknown(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                struct rs_value *out)
{
    return iw_field_pdu(pkt, f, occ, is_rev_unknown) != NULL &&
           rs_value_set_uint(out, RS_FT_NONE, 1);
}

static bool
get_rejected(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out)
{
    return iw_field_pdu(pkt, f, occ, is_rejected) != NULL &&
           rs_value_set_uint(out, RS_FT_NONE, 1);
}

static bool
get_inferred(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out)
{
    return get_flag_pred(pkt, f, occ, out, is_inferred);
}

static bool
get_truncated(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out)
{
    return get_flag_pred(pkt, f, occ, out, is_truncated);
}

/* Per-frame facts of the view; the offset column picks which. */
static bool
get_view(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out)
{
    const struct rs_iwarp_view *v = pkt->iwarp;

    if (v == NULL || occ != 0)
        return false;
    switch (f->offset) {
    case 0:
        return rs_value_set_uint(out, f->type, v->conn);
    case 1:
        return v->dir != RS_IWARP_DIR_UNKNOWN && rs_value_set_uint(out, f->type, v->dir);
    case 2:
        return rs_value_set_uint(out, f->type, v->markers_on);
    case 3:
        return rs_value_set_uint(out, f->type, v->crc_on);
    case 4:
        return v->mpa_rev != 0 && rs_value_set_uint(out, f->type, v->mpa_rev);
    default:
        return (v->flags & f->mask) && rs_value_set_uint(out, RS_FT_BOOLEAN, 1);
    }
}

/* --- places of ours: what a click on the item highlights, PDML's pos and size --- */

/* Wireshark's fields where they lie in the PDU (a Request's or Reply's, an FPDU's); the
 * CRC, the pad and the markers below. */
IW_LOCATOR(get_req_at, is_req, 0)
IW_LOCATOR(get_rep_at, is_rep, 0)
IW_LOCATOR(get_frame_at, is_frame, 0)
IW_LOCATOR(get_frame_pd_ok_at, is_frame_pd_ok, 0)
IW_LOCATOR(get_private_data_at, is_frame_pd, 0)
IW_LOCATOR(get_bad_length_at, is_frame_bad_pd, 0)
IW_LOCATOR(get_enhanced_at, is_enhanced, 0)
IW_LOCATOR(get_fpdu_at, is_fpdu, 0)
IW_LOCATOR(get_res_not_zero_at, is_res_not_zero, 0)
IW_LOCATOR(get_rev_unknown_at, is_rev_unknown, 0)
IW_LOCATOR(get_rejected_at, is_rejected, 0)

static bool
get_pad_at(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
           uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, has_pad);

    return p != NULL && iw_pdu_place(pkt, p, 2u + p->ulpdu_len, p->pad_len, offset, length);
}

/* An FPDU's CRC; of one cut short, what was captured of it. */
static bool
place_crc(const struct rs_packet *pkt, const struct rs_iwarp_pdu *p, uint32_t *offset,
          uint32_t *length)
{
    if (p == NULL)
        return false;
    if (p->caplen < p->len)
        return iw_pdu_place(pkt, p, 0, p->caplen, offset, length);
    return iw_pdu_place(pkt, p, p->len - RS_MPA_CRC_LEN, RS_MPA_CRC_LEN, offset, length);
}

static bool
locate_crc_status(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                  uint32_t *offset, uint32_t *length)
{
    return place_crc(pkt, iw_field_pdu(pkt, f, occ, is_fpdu_any), offset, length);
}

static bool
locate_crc_computed(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                    uint32_t *offset, uint32_t *length)
{
    return place_crc(pkt, iw_field_pdu(pkt, f, occ, has_crc_verdict), offset, length);
}

static bool
locate_crc_swapped(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                   uint32_t *offset, uint32_t *length)
{
    return place_crc(pkt, iw_field_pdu(pkt, f, occ, is_crc_swapped), offset, length);
}

/* The whole FPDU, as far as captured. */
static bool
place_fpdu(const struct rs_packet *pkt, const struct rs_iwarp_pdu *p, uint32_t *offset,
           uint32_t *length)
{
    return p != NULL && iw_pdu_place(pkt, p, 0, p->caplen, offset, length);
}

static bool
locate_inferred(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                uint32_t *offset, uint32_t *length)
{
    return place_fpdu(pkt, iw_field_pdu(pkt, f, occ, is_inferred), offset, length);
}

static bool
locate_truncated(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 uint32_t *offset, uint32_t *length)
{
    return place_fpdu(pkt, iw_field_pdu(pkt, f, occ, is_truncated), offset, length);
}

static bool
get_crc_at(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
           uint32_t *offset, uint32_t *length)
{
    return place_crc(pkt, iw_field_pdu(pkt, f, occ, crc_pred), offset, length);
}

/* The markers of the frame, occurrence by occurrence, as get_marker counts them: marker k
 * of a PDU lies marker_at + 512 k octets into its stream octets; its node, from the
 * first marker to the end of the last. */
static bool
marker_place(const struct rs_packet *pkt, unsigned n, uint32_t at, uint32_t len,
             uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_view *v = pkt->iwarp;

    for (unsigned i = 0; v != NULL && i < v->n_pdus; i++) {
        const struct rs_iwarp_pdu *p = &v->pdus[i];
        if (n < p->n_markers)
            return wire_place(pkt, p, p->marker_at + n * RS_MPA_MARKER_INTERVAL + at, len,
                              offset, length);
        n -= p->n_markers;
    }
    return false;
}

static bool
get_marker_at(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              uint32_t *offset, uint32_t *length)
{
    return marker_place(pkt, occ, f->offset, f->width, offset, length);
}

/* The PDU's wire octets, markers included (one before its ULPDU_Length too), as far as
 * the segment holds them: where Wireshark 4.0 puts the MPA protocol's item and the Markers
 * node (the FPDU's item starts after such a first marker). */
static bool
get_pdu_wire_at(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, is_any);

    return p != NULL && wire_place(pkt, p, 0, p->wire_len, offset, length);
}

static bool
get_markers_node_at(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                    uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_pdu *p = iw_field_pdu(pkt, f, occ, has_markers);

    return p != NULL && wire_place(pkt, p, 0, p->wire_len, offset, length);
}

/* A fact of the segment: its TCP payload. */
static bool
locate_segment(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               uint32_t *offset, uint32_t *length)
{
    struct rs_span pay;

    (void)f;
    if (pkt->iwarp == NULL || occ != 0 || !rs_tcp_payload(pkt, &pay) || pay.len == 0)
        return false;
    *offset = pay.off;
    *length = pay.len;
    return true;
}

/* Placed by its getter's locator, get_*_at. */
#define MPA(abbrev, name, type, base, mask, vals, blurb, off, width, get, depth) \
    {abbrev, name, type, base, mask, vals, blurb, RS_NO_LAYER, off, width, get, depth, \
     RS_FIELD_PER_PDU, .locate = get##_at}
/* One of ours, placed by `at`. */
#define MPA_AT(abbrev, name, type, base, mask, vals, blurb, off, width, get, depth, at) \
    {abbrev, name, type, base, mask, vals, blurb, RS_NO_LAYER, off, width, get, depth, \
     RS_FIELD_PER_PDU, .locate = at}
#define VIEW(abbrev, name, type, vals, blurb, off, mask) \
    {abbrev, name, type, RS_BASE_DEC, mask, vals, blurb, RS_NO_LAYER, off, 0, get_view, 1, 0, \
     .locate = locate_segment}

const struct rs_field rs_fields_mpa[] = {
    {"iwarp_mpa", "iWARP Marker Protocol data unit Aligned framing", RS_FT_PROTOCOL,
     RS_BASE_NONE, 0, NULL, "MPA", RS_NO_LAYER, 0, 0, get_pdu, 0, RS_FIELD_PER_PDU,
     .locate = get_pdu_wire_at},
    MPA("iwarp_mpa.req", "Request frame header", RS_FT_NONE, RS_BASE_NONE, 0, NULL,
        "MPA Request frame", 0, 0, get_req, 1),
    MPA("iwarp_mpa.key.req", "ID Req frame", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
        "\"MPA ID Req Frame\"", 0, 16, get_req, 2),
    MPA("iwarp_mpa.rep", "Reply frame header", RS_FT_NONE, RS_BASE_NONE, 0, NULL,
        "MPA Reply frame", 0, 0, get_rep, 1),
    MPA("iwarp_mpa.key.rep", "ID Rep frame", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
        "\"MPA ID Rep Frame\"", 0, 16, get_rep, 2),
    MPA("iwarp_mpa.marker_flag", "Marker flag", RS_FT_BOOLEAN, RS_BASE_NONE, 0x80, NULL,
        "M: the sender wants markers in what it receives", FRAME_FLAGS, 1, get_frame, 2),
    MPA("iwarp_mpa.crc_flag", "CRC flag", RS_FT_BOOLEAN, RS_BASE_NONE, 0x40, NULL,
        "C: CRCs wanted", FRAME_FLAGS, 1, get_frame, 2),
    MPA("iwarp_mpa.rej_flag", "Connection rejected flag", RS_FT_BOOLEAN, RS_BASE_NONE, 0x20,
        NULL, "R: the Reply rejects the connection", FRAME_FLAGS, 1, get_frame, 2),
    MPA("roceshark.mpa.enhanced", "Enhanced connection establishment", RS_FT_BOOLEAN,
        RS_BASE_NONE, 0x10, NULL, "RFC 6581: IRD and ORD lead the private data",
        FRAME_FLAGS, 1, get_frame, 2),
    MPA("iwarp_mpa.res", "Reserved", RS_FT_UINT8, RS_BASE_HEX, 0x1f, NULL,
        "The low flag bits (Enhanced included, as Wireshark 4.0 shows them)", FRAME_FLAGS, 1,
        get_frame, 2),
    MPA("iwarp_mpa.rev", "Revision", RS_FT_UINT8, RS_BASE_DEC, 0, NULL,
        "MPA revision: 1 (RFC 5044) or 2 (RFC 6581)", FRAME_REV, 1, get_frame, 2),
    {"iwarp_mpa.pdlength", "Private data length", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "Octets of private data", RS_NO_LAYER, FRAME_PDLEN, 2, get_frame_pd_ok, 2, RS_FIELD_PER_PDU,
     .show = rs_show_bytes_count, .locate = get_frame_pd_ok_at},
    MPA("iwarp_mpa.privatedata", "Private data", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
        "Private data", FRAME_PD, 0, get_private_data, 2),
    MPA("roceshark.mpa.v2.peer_to_peer", "Peer-to-peer", RS_FT_BOOLEAN, RS_BASE_NONE,
        0x8000, NULL, "RFC 6581: the peer-to-peer model (a ready-to-receive message follows)",
        FRAME_PD, 2, get_enhanced, 3),
    MPA("roceshark.mpa.v2.rtr_send", "Zero-length Send as RTR", RS_FT_BOOLEAN, RS_BASE_NONE,
        0x4000, NULL, "RFC 6581: a zero-length Send may be the ready-to-receive message",
        FRAME_PD, 2, get_enhanced, 3),
    MPA("roceshark.mpa.v2.ird", "IRD", RS_FT_UINT16, RS_BASE_DEC, 0x3fff, NULL,
        "RFC 6581: inbound RDMA Read queue depth", FRAME_PD, 2, get_enhanced, 3),
    MPA("roceshark.mpa.v2.rtr_write", "Zero-length Write as RTR", RS_FT_BOOLEAN,
        RS_BASE_NONE, 0x8000, NULL,
        "RFC 6581: a zero-length RDMA Write may be the ready-to-receive message", FRAME_PD + 2, 2, get_enhanced, 3),
    MPA("roceshark.mpa.v2.rtr_read", "Zero-length Read as RTR", RS_FT_BOOLEAN, RS_BASE_NONE,
        0x4000, NULL, "RFC 6581: a zero-length RDMA Read may be the ready-to-receive message",
        FRAME_PD + 2, 2, get_enhanced, 3),
    MPA("roceshark.mpa.v2.ord", "ORD", RS_FT_UINT16, RS_BASE_DEC, 0x3fff, NULL,
        "RFC 6581: outbound RDMA Read queue depth", FRAME_PD + 2, 2, get_enhanced, 3),
    MPA("iwarp_mpa.res.not_set0", "Res field is NOT set to zero as required by RFC 5044",
        RS_FT_NONE, RS_BASE_NONE, 0, NULL,
        "Reserved flag bits set (the Enhanced bit of revision 2 is not reserved)", FRAME_FLAGS,
        1, get_res_not_zero, 2),
    /* Wireshark's name, from before RFC 6581: we raise it on a revision neither 1 nor 2 */
    MPA("iwarp_mpa.rev.not_set1", "Rev field is NOT set to one as required by RFC 5044",
        RS_FT_NONE, RS_BASE_NONE, 0, NULL, "An MPA revision no RFC defines (neither 1 nor 2)",
        FRAME_REV, 1, get_rev_unknown, 2),
    MPA("iwarp_mpa.reject_bit_responder", "Reject bit set by Responder", RS_FT_NONE,
        RS_BASE_NONE, 0, NULL, "The Reply rejects the connection", FRAME_FLAGS, 1, get_rejected,
        2),
    MPA("iwarp_mpa.bad_length", "Bad length", RS_FT_NONE, RS_BASE_NONE, 0, NULL,
        "PD_Length says more than 512 octets of private data", FRAME_PDLEN, 2, get_bad_length,
        2),
    MPA("iwarp_mpa.fpdu", "FPDU", RS_FT_NONE, RS_BASE_NONE, 0, NULL, "An FPDU", 0, 0, get_fpdu,
        1),
    {"iwarp_mpa.ulpdulength", "ULPDU length", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "Octets of the ULPDU (DDP segment), without pad and markers", RS_NO_LAYER, 0, 2, get_fpdu,
     2, RS_FIELD_PER_PDU, .show = rs_show_bytes_count, .locate = get_fpdu_at},
    MPA("iwarp_mpa.pad", "Padding", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
        "Octets that align the FPDU to four", 0, 0, get_pad, 2),
    MPA("iwarp_mpa.crc", "CRC", RS_FT_UINT32, RS_BASE_HEX, 0, NULL,
        "The CRC field where CRCs are not in use (zero)", 0, 4, get_crc, 2),
    {"iwarp_mpa.crc_check", "CRC check", RS_FT_UINT32, RS_BASE_HEX, 0, NULL,
     "The CRC sent, read as a big-endian number", RS_NO_LAYER, 1, 4, get_crc, 2,
     RS_FIELD_PER_PDU, .label = label_crc_check, .locate = get_crc_at},
    MPA_AT("roceshark.mpa.crc.status", "CRC status", RS_FT_UINT8, RS_BASE_DEC, 0,
        rs_cksum_vals,
        "Whether the FPDU's CRC matches it: 0 bad, 1 good, 2 unverified (bytes not captured), "
        "3 not present (the connection has CRCs off)", 0, 0,
        get_crc_status, 2, locate_crc_status),
    MPA_AT("roceshark.mpa.crc.computed", "CRC computed", RS_FT_UINT32, RS_BASE_HEX, 0, NULL,
        "The CRC the FPDU should carry, in iwarp_mpa.crc_check's byte order", 0, 0,
        get_crc_computed, 2, locate_crc_computed),
    MPA_AT("roceshark.mpa.crc.byte_swapped", "CRC byte order reversed", RS_FT_BOOLEAN,
        RS_BASE_NONE, 0, NULL, "The CRC is right but sent in the wrong byte order", 0, 0,
        get_crc_swapped, 2, locate_crc_swapped),
    MPA_AT("roceshark.mpa.framing_inferred", "Framing inferred", RS_FT_BOOLEAN, RS_BASE_NONE,
        0, NULL, "The FPDU was found by its length, headers and CRC, not by an MPA exchange", 0,
        0, get_inferred, 2, locate_inferred),
    MPA_AT("roceshark.mpa.incomplete", "FPDU incomplete", RS_FT_BOOLEAN, RS_BASE_NONE, 0, NULL,
        "Octets of the FPDU were never captured", 0, 0, get_truncated, 2, locate_truncated),
    MPA("iwarp_mpa.markers", "Markers", RS_FT_NONE, RS_BASE_NONE, 0, NULL,
        "Markers inside the FPDU", 0, 0, get_markers_node, 1),
    /* each marker's two halves, marker after marker, as Wireshark lists them */
    {"iwarp_mpa.marker_res", "Reserved", RS_FT_UINT16, RS_BASE_HEX, 0, NULL,
     "Marker: Reserved", RS_NO_LAYER, 0, 2, get_marker, 2, RS_FIELD_PER_PDU | RS_FIELD_ROWS,
     .locate = get_marker_at},
    {"iwarp_mpa.marker_fpduptr", "FPDU back pointer", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "Marker: octets back to the FPDU's ULPDU_Length (0 where the FPDU starts)", RS_NO_LAYER,
     2, 2, get_marker, 2, RS_FIELD_PER_PDU | RS_FIELD_ROWS, .show = rs_show_bytes_count,
     .locate = get_marker_at},
    RS_F_END,
};

/* Facts of the frame's connection, under the roceshark protocol node. */
const struct rs_field rs_fields_iwarp_view[] = {
    VIEW("roceshark.iwarp.conn", "Connection", RS_FT_UINT32, NULL,
         "iWARP connection number, from 1", 0, 0),
    VIEW("roceshark.iwarp.dir", "Direction", RS_FT_UINT8, dir_vals,
         "0 from the MPA initiator, 1 from the responder (absent without a Request)", 1, 0),
    VIEW("roceshark.iwarp.markers", "Markers in use", RS_FT_BOOLEAN, NULL,
         "This direction carries markers", 2, 0),
    VIEW("roceshark.iwarp.crc", "CRCs in use", RS_FT_BOOLEAN, NULL,
         "The connection uses CRCs", 3, 0),
    VIEW("roceshark.iwarp.mpa_rev", "MPA revision", RS_FT_UINT8, NULL,
         "Revision of the connection's MPA exchange", 4, 0),
    VIEW("roceshark.iwarp.retransmission", "Retransmission", RS_FT_BOOLEAN, NULL,
         "The segment held only bytes already seen", 5, RS_IWARP_VIEW_RETRANSMISSION),
    VIEW("roceshark.iwarp.out_of_order", "Out of order", RS_FT_BOOLEAN, NULL,
         "Held until the bytes before it arrived", 5, RS_IWARP_VIEW_OUT_OF_ORDER),
    VIEW("roceshark.iwarp.gap", "Bytes lost", RS_FT_BOOLEAN, NULL,
         "Bytes before this segment were never captured", 5, RS_IWARP_VIEW_GAP),
    VIEW("roceshark.iwarp.continuation", "Continuation", RS_FT_BOOLEAN, NULL,
         "Carries part of an FPDU that ends in a later segment", 5,
         RS_IWARP_VIEW_CONTINUATION),
    VIEW("roceshark.iwarp.rejected", "Connection rejected", RS_FT_BOOLEAN, NULL,
         "The MPA Reply rejected the connection", 5, RS_IWARP_VIEW_REJECTED),
    RS_F_END,
};
