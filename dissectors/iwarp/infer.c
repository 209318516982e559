/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * infer.c - finding FPDU boundaries where no MPA exchange says where they
 * are: a capture that starts mid-connection, a connection forced to iWARP
 * by port, or framing lost to bytes the capture never had.
 *
 * A candidate FPDU at an offset must have a ULPDU_Length long enough for
 * its headers and sane DDP and RDMAP headers (iw_ddp_sane), and then either
 *  - its CRC-32C matches (CRCs on: a false match is a 2^-32 chance), or
 *  - its CRC field is zero (CRCs off) and another sane FPDU header follows
 *    right after it, or it starts where a segment started and ends where
 *    this one ends (senders align FPDUs with segments, RFC 5044 8).
 * Markers may be on without us knowing: besides "no markers", a candidate
 * is tried with a marker where it starts (all zero: reserved 0, FPDUPTR 0)
 * and with one at each 4-octet offset k inside it whose reserved field is
 * zero and whose FPDUPTR is k. A match also tells where markers count from.
 */
#include <string.h>

#include <roceshark/dissectors/wire.h>

#include "iwarp_int.h"

enum verdict { V_NO, V_MORE, V_YES };

/* A guess about markers: none, or every 512 octets from base. */
struct hyp {
    bool markers;
    uint32_t base;
};

struct found {
    struct hyp hyp;
    bool crc;
};

static bool
is_marker_at(const struct hyp *h, uint32_t seq)
{
    return h->markers && ((seq - h->base) & (RS_MPA_MARKER_INTERVAL - 1)) == 0;
}

/* Up to n marker-free octets from offset `at` of data, under h. */
static uint32_t
plain_bytes(const uint8_t *data, uint32_t len, uint32_t seq, uint32_t at, const struct hyp *h,
            uint8_t *out, uint32_t n)
{
    return iw_plain_bytes(h->markers, h->base, data, len, seq, at, out, n);
}

static uint32_t
hyp_wire_len(const struct hyp *h, uint32_t seq, uint32_t plain)
{
    struct iw_dir d;

    memset(&d, 0, sizeof(d));
    d.markers = h->markers;
    d.marker_base_known = true;
    d.marker_base = h->base;
    return iw_fpdu_wire_len(&d, seq, plain);
}

/* Where the ULPDU_Length of an FPDU starting at offset i lies, or
 * UINT32_MAX when a marker should stand there and does not. */
static uint32_t
header_at(const uint8_t *data, uint32_t len, uint32_t seq, uint32_t i, const struct hyp *h)
{
    if (!is_marker_at(h, seq + i))
        return i;
    if (i + RS_MPA_MARKER_LEN <= len && rs_load_be32(data + i) != 0)
        return UINT32_MAX;
    return i + RS_MPA_MARKER_LEN;
}

/* Under h, every marker inside the candidate [i, i + w) that was captured
 * must look like one: reserved zero, and FPDUPTR the distance back to the
 * ULPDU_Length field (or to the FPDU's start, which differs only after a
 * leading marker: RFC 5044 can be read either way), or 0 where the FPDU
 * starts. Random octets pass this one marker in 2^32. */
static bool
markers_hold(const uint8_t *data, uint32_t len, uint32_t seq, uint32_t i, uint32_t hdr,
             uint32_t w, const struct hyp *h)
{
    if (!h->markers)
        return true;
    uint32_t m = i + ((h->base - (seq + i)) & (RS_MPA_MARKER_INTERVAL - 1));
    for (; m < i + w && m + RS_MPA_MARKER_LEN <= len; m += RS_MPA_MARKER_INTERVAL) {
        uint16_t res = rs_load_be16(data + m), ptr = rs_load_be16(data + m + 2);
        bool ok = m == i ? ptr == 0 : ptr == m - hdr || ptr == m - i;
        if (res != 0 || !ok)
            return false;
    }
    return true;
}

/* Whether a segment of this direction started at seq (recently). */
static bool
segment_started(const struct rs_iwarp *iw, const struct iw_dir *d, uint32_t seq)
{
    if (seq == iw->vb.seg_start)
        return true;
    for (unsigned k = 0; k < RS_ARRAY_SIZE(d->seg_starts); k++)
        if (d->seg_starts[k] == seq)
            return true;
    return false;
}

/* A candidate at offset i under h. `continuing`: it follows framing already
 * found, so one that ends where the bytes end needs no further proof. */
static enum verdict
check(const struct rs_iwarp *iw, const struct iw_dir *d, const uint8_t *data, uint32_t len,
      uint32_t seq, uint32_t i, const struct hyp *h, bool continuing, struct found *f)
{
    uint8_t u[2 + RS_DDP_UNTAGGED_HDR_LEN];
    uint32_t hdr = header_at(data, len, seq, i, h);

    if (hdr == UINT32_MAX)
        return V_NO;
    uint32_t got = plain_bytes(data, len, seq, hdr, h, u, sizeof(u));
    if (got < 4)
        return V_MORE;
    uint16_t ulen = rs_load_be16(u);
    if (!iw_ddp_sane(u + 2, got - 2, ulen))
        return V_NO;
    if (got < sizeof(u) && !(u[2] & 0x80))
        return V_MORE;      /* an untagged header's QN and MO are still to be judged */
    uint32_t plain = 2u + ulen + (4 - (ulen + 2u) % 4) % 4 + RS_MPA_CRC_LEN;
    uint32_t w = h->markers ? hyp_wire_len(h, seq + i, plain) : plain;
    if (!markers_hold(data, len, seq, i, hdr, w, h))
        return V_NO;
    if (w > len - i)
        return V_MORE;
    uint32_t sent = rs_load_le32(data + i + w - RS_MPA_CRC_LEN);
    if (sent == iw_crc32c(data + i, w - RS_MPA_CRC_LEN)) {
        f->hyp = *h;
        f->crc = true;
        return V_YES;
    }
    if (d->crc_known ? d->crc : sent != 0)
        return V_NO;
    /* No CRC to go by: it must fill its segment, or another FPDU follow. */
    uint32_t j = i + w;
    f->hyp = *h;
    f->crc = false;
    if (seq + j == iw->vb.seg_end && segment_started(iw, d, seq + i))
        return V_YES;
    if (continuing && j == len)
        return V_YES;       /* framing holds: an FPDU that ends where the bytes end */
    uint32_t nh = header_at(data, len, seq, j, h);
    if (nh == UINT32_MAX)
        return V_NO;
    uint8_t v[4];
    if (plain_bytes(data, len, seq, nh, h, v, sizeof(v)) < sizeof(v))
        return V_MORE;
    return iw_ddp_sane(v + 2, 2, rs_load_be16(v)) ? V_YES : V_NO;
}

/* Cheap first look at an FPDU header: a length and sane control bytes. */
static bool
looks_like_header(const uint8_t *p)
{
    return rs_load_be16(p) >= RS_DDP_TAGGED_HDR_LEN && iw_ddp_sane(p + 2, 2, rs_load_be16(p));
}

/* Tries every guess about markers at offset i; V_YES fills f. */
static enum verdict
try_at(const struct rs_iwarp *iw, const struct iw_dir *d, const uint8_t *data, uint32_t len,
       uint32_t seq, uint32_t i, bool continuing, struct found *f)
{
    enum verdict best = V_NO, v;
    uint32_t s = seq + i;
    struct hyp h;

    if (d->markers_known) {
        h.markers = d->markers;
        h.base = d->marker_base;
        if (h.markers && ((s - h.base) & 3) != 0)
            return V_NO;    /* FPDUs start on the markers' 4-octet grid */
        if (len - i < 4)
            return V_MORE;
        uint32_t hdr = is_marker_at(&h, s) ? i + RS_MPA_MARKER_LEN : i;
        if (hdr + 4 <= len && !looks_like_header(data + hdr))
            return V_NO;
        return check(iw, d, data, len, seq, i, &h, continuing, f);
    }
    if (len - i < 4)
        return V_MORE;
    if (looks_like_header(data + i)) {
        h.markers = false;
        h.base = 0;
        if ((v = check(iw, d, data, len, seq, i, &h, continuing, f)) == V_YES)
            return v;
        best = v;
        /* A marker inside it, FPDUPTR octets from its start. */
        h.markers = true;
        for (uint32_t k = 4; k < RS_MPA_MARKER_INTERVAL && k + 4 <= len - i; k += 4) {
            const uint8_t *m = data + i + k;
            if (m[0] != 0 || m[1] != 0 || rs_load_be16(m + 2) != k)
                continue;
            h.base = s + k;
            if ((v = check(iw, d, data, len, seq, i, &h, continuing, f)) == V_YES)
                return v;
            if (v == V_MORE)
                best = V_MORE;
        }
    }
    /* A marker where it starts, then its header. An FPDU right after four
     * zero octets is more often one after a zero CRC or pad: that reading
     * (no marker, the FPDU at i + 4) wins when it holds. */
    if (rs_load_be32(data + i) == 0) {
        if (len - i < 8)
            return V_MORE;
        h.markers = false;
        if (looks_like_header(data + i + 4) &&
            check(iw, d, data, len, seq, i + 4, &h, continuing, f) != V_YES) {
            h.markers = true;
            h.base = s;
            if ((v = check(iw, d, data, len, seq, i, &h, continuing, f)) == V_YES)
                return v;
            if (v == V_MORE)
                best = V_MORE;
        }
    }
    return best;
}

/* What an FPDU found tells about the direction's markers and CRCs. */
static void
learn(struct iw_dir *d, const struct found *f)
{
    if (f->hyp.markers) {
        d->markers = d->markers_known = d->marker_base_known = true;
        d->marker_base = f->hyp.base;
    }
    if (f->crc || !d->crc_known) {
        d->crc_known = true;
        d->crc = f->crc;
    }
}

uint32_t
iw_infer(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data, uint32_t len,
         uint32_t seq, bool keep, bool *found)
{
    struct iw_dir *d = &c->dir[side];
    struct found f;

    *found = false;
    for (uint32_t i = 0; i < len; i++) {
        enum verdict v = try_at(iw, d, data, len, seq, i, false, &f);
        if (v == V_MORE && keep)
            return i;
        if (v != V_YES)
            continue;
        *found = true;
        learn(d, &f);
        return i;
    }
    return len;
}

int
iw_infer_at(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data,
            uint32_t len, uint32_t seq)
{
    struct iw_dir *d = &c->dir[side];
    struct found f;

    switch (try_at(iw, d, data, len, seq, 0, true, &f)) {
    case V_YES:
        learn(d, &f);
        return 1;
    case V_MORE:
        return 0;
    default:
        return -1;
    }
}
