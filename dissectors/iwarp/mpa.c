/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mpa.c - MPA (RFC 5044; RFC 6581 for revision 2): the Request and Reply
 * frames, then FPDUs with the markers and CRCs the exchange settled.
 *
 * Request and Reply (RFC 5044 7.1, RFC 6581 4):
 *  0                   1                   2                   3
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |   Key: "MPA ID Req Frame" or "MPA ID Rep Frame" (16 octets)  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |M|C|R|E| Res   |     Rev       |          PD_Length            |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |   Private data (PD_Length octets; revision 2 with E set: IRD  |
 * |   and ORD with the peer-to-peer bits first)                   |
 *
 * M in the Request asks the responder to send markers, M in the Reply asks
 * the initiator; CRCs are used both ways when either frame sets C (the
 * Reply must echo the Request's C). R in the Reply rejects the connection.
 *
 * FPDU (RFC 5044 4.1):
 * +-------------------------------+-------------------------------+
 * |          ULPDU_Length         |  ULPDU (DDP segment) ...      |
 * +-------------------------------+---------------+---------------+
 * |  ... ULPDU                    | PAD (0-3 octets, to 4 octets) |
 * +-------------------------------+-------------------------------+
 * |                 CRC (CRC-32C, or zero without CRCs)            |
 * +---------------------------------------------------------------+
 * Markers (| Reserved (16) | FPDUPTR (16) |) stand every 512 octets of
 * sequence space counted from the first FPDU after the exchange, wherever
 * that falls; the CRC covers them. The CRC is sent as iSCSI sends it, which
 * reads as a little-endian number (Linux siw, interoperable with iWARP
 * NICs, does the same).
 */
#include <string.h>

#include <roceshark/dissectors/crc.h>
#include <roceshark/dissectors/wire.h>

#include "iwarp_int.h"

/* The keys are 16 bytes on the wire, with no NUL: the arrays hold the literal's NUL
 * too (newer compilers warn when an initializer drops it), and only the first
 * RS_MPA_KEY_LEN bytes are ever compared. */
static const char req_key[RS_MPA_KEY_LEN + 1] = "MPA ID Req Frame";
static const char rep_key[RS_MPA_KEY_LEN + 1] = "MPA ID Rep Frame";

const char *
iw_mpa_key(bool reply)
{
    return reply ? rep_key : req_key;
}

unsigned
rs_mpa_frame_anomalies(const struct rs_iwarp_pdu *p)
{
    unsigned bad = 0;

    if (p->kind == RS_MPA_FPDU || p->caplen < RS_MPA_FRAME_HDR_LEN)
        return 0;
    uint8_t flags = p->data[16], rev = p->data[17];
    if (rs_load_be16(p->data + 18) > RS_MPA_MAX_PD_LEN)
        bad |= RS_MPA_BAD_PD_LENGTH;
    if (flags & (rev == 2 ? 0x0f : 0x1f))
        bad |= RS_MPA_RES_SET;
    if (rev != 1 && rev != 2)
        bad |= RS_MPA_REV_UNKNOWN;
    if (p->kind == RS_MPA_REPLY && (flags & RS_MPA_FLAG_REJECT))
        bad |= RS_MPA_REJECTED;
    return bad;
}

uint32_t
iw_crc32c(const uint8_t *p, uint32_t n)
{
    return rs_crc32c_final(rs_crc32c_update(RS_CRC32C_INIT, p, n));
}

/* Offset from seq of the first marker at or after it. */
static uint32_t
first_marker(const struct iw_dir *d, uint32_t seq)
{
    return (d->marker_base - seq) & (RS_MPA_MARKER_INTERVAL - 1);
}

static bool
has_markers(const struct iw_dir *d)
{
    return d->markers && d->marker_base_known;
}

uint32_t
iw_plain_bytes(bool markers, uint32_t base, const uint8_t *data, uint32_t len, uint32_t seq,
               uint32_t at, uint8_t *out, uint32_t n)
{
    uint32_t got = 0;

    while (got < n && at < len) {
        uint32_t to_marker = (base - (seq + at)) & (RS_MPA_MARKER_INTERVAL - 1);
        if (markers && to_marker == 0) {
            at += RS_MPA_MARKER_LEN;
            continue;
        }
        uint32_t stop = markers && to_marker < len - at ? at + to_marker : len;
        uint32_t k = stop - at < n - got ? stop - at : n - got;
        memcpy(out + got, data + at, k);
        got += k;
        at += k;
    }
    return got;
}

uint32_t
iw_fpdu_wire_len(const struct iw_dir *d, uint32_t seq, uint32_t plain_len)
{
    if (!has_markers(d))
        return plain_len;
    uint32_t first = first_marker(d, seq), w = plain_len;
    for (;;) {
        uint32_t k = first < w ? 1 + (w - 1 - first) / RS_MPA_MARKER_INTERVAL : 0;
        uint32_t nw = plain_len + RS_MPA_MARKER_LEN * k;
        if (nw == w)
            return w;
        w = nw;
    }
}

/* Marker-free bytes of an FPDU's first caplen wire octets, and its markers
 * into the view. Returns the marker-free length. */
static uint32_t
strip_markers(struct rs_iwarp *iw, const struct iw_dir *d, const uint8_t *data, uint32_t caplen,
              uint32_t seq, const uint8_t **plain, struct rs_iwarp_pdu *p)
{
    struct iw_view_build *vb = &iw->vb;
    uint32_t m = has_markers(d) ? first_marker(d, seq) : caplen;

    p->first_marker = vb->view.n_markers;
    if (m >= caplen) {
        *plain = data;
        return caplen;
    }
    uint8_t *out = iw_arena_alloc(iw, caplen);
    uint32_t n = 0, at = 0;
    if (out == NULL) {
        *plain = data;      /* no room to copy: show the bytes as they are */
        return caplen;
    }
    p->flags |= RS_IWARP_PDU_MARKED;
    p->marker_at = (uint16_t)m;
    while (at < caplen) {
        uint32_t stop = m < caplen ? m : caplen;
        memcpy(out + n, data + at, stop - at);
        n += stop - at;
        if (stop == caplen)
            break;
        if (m + RS_MPA_MARKER_LEN > caplen)
            break;      /* a marker cut short: not shown */
        if (vb->view.n_markers < IW_VIEW_MARKERS) {
            vb->markers[vb->view.n_markers++] = rs_load_be32(data + m);
            p->n_markers++;
        } else {
            vb->view.flags |= RS_IWARP_VIEW_OVERFLOW;
        }
        at = m + RS_MPA_MARKER_LEN;
        m += RS_MPA_MARKER_INTERVAL;
    }
    *plain = out;
    return n;
}

static void
commit(struct rs_iwarp *iw, const struct rs_iwarp_pdu *p)
{
    struct rs_iwarp_pdu *slot = iw_view_add(iw);

    if (slot != NULL)
        *slot = *p;
}

/* Whether data lies in the direction's window (so it must not move). */
static void
pin_if_windowed(struct iw_dir *d, const uint8_t *data)
{
    if (d->buf != NULL && data >= d->buf && data < d->buf + d->cap)
        d->pinned = true;
}

static void
check_crc(struct rs_iwarp *iw, struct iw_dir *d, const uint8_t *wire, uint32_t wire_len,
          struct rs_iwarp_pdu *p)
{
    if (d->crc_known && !d->crc) {
        p->crc_status = RS_CKSUM_NOT_PRESENT;
        return;
    }
    if (d->crc_known && !iw->opts.verify_crc && !d->inferred) {
        p->crc_status = RS_CKSUM_UNVERIFIED;
        return;
    }
    uint32_t sent = rs_load_le32(wire + wire_len - RS_MPA_CRC_LEN);
    uint32_t crc = iw_crc32c(wire, wire_len - RS_MPA_CRC_LEN);
    p->crc_computed = __builtin_bswap32(crc);
    if (sent == crc) {
        p->crc_status = RS_CKSUM_GOOD;
        d->crc_known = d->crc = true;
    } else if (!d->crc_known) {
        p->crc_status = RS_CKSUM_UNVERIFIED;
    } else {
        p->crc_status = RS_CKSUM_BAD;
        if (sent == __builtin_bswap32(crc))
            p->flags |= RS_IWARP_PDU_CRC_SWAPPED;
        iw->stats.crc_errors++;
    }
}

void
iw_mpa_emit_fpdu(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data,
                 uint32_t wire_len, uint32_t seq, uint32_t caplen)
{
    struct iw_dir *d = &c->dir[side];
    struct rs_iwarp_pdu p;

    if (caplen > wire_len)
        caplen = wire_len;      /* bytes past it are the next PDU's */
    memset(&p, 0, sizeof(p));
    p.kind = RS_MPA_FPDU;
    p.seq = seq;
    p.wire_len = wire_len;
    p.caplen = strip_markers(iw, d, data, caplen, seq, &p.data, &p);
    if (p.data == data)
        pin_if_windowed(d, data);
    if (d->inferred)
        p.flags |= RS_IWARP_PDU_INFERRED;
    if (p.caplen >= 2) {
        p.ulpdu_len = rs_load_be16(p.data);
        p.pad_len = (uint8_t)((4 - (p.ulpdu_len + 2u) % 4) % 4);
    }
    p.len = 2u + p.ulpdu_len + p.pad_len + RS_MPA_CRC_LEN;
    if (caplen < wire_len || p.caplen < p.len) {
        p.flags |= RS_IWARP_PDU_TRUNCATED;
        p.crc_status = RS_CKSUM_UNVERIFIED;
        if (p.caplen > p.len)
            p.caplen = p.len;
    } else {
        check_crc(iw, d, data, wire_len, &p);
    }
    iw->stats.fpdus++;
    iw_ddp_account(iw, d, &p);
    commit(iw, &p);
}

/* The exchange's settings, once the Reply is in. */
static void
apply_reply(struct iw_conn *c, int rep_side, uint8_t req_flags, uint8_t rep_flags)
{
    struct iw_dir *ini = &c->dir[!rep_side], *res = &c->dir[rep_side];
    bool crc = ((req_flags | rep_flags) & RS_MPA_FLAG_CRC) != 0;

    c->exchange_done = true;
    c->rejected = (rep_flags & RS_MPA_FLAG_REJECT) != 0;
    res->markers = (req_flags & RS_MPA_FLAG_MARKERS) != 0;
    ini->markers = (rep_flags & RS_MPA_FLAG_MARKERS) != 0;
    ini->markers_known = res->markers_known = true;
    ini->crc_known = res->crc_known = true;
    ini->crc = res->crc = crc;
    ini->inferred = res->inferred = false;
    if (c->rejected) {
        ini->parse = res->parse = IW_IDLE;
        return;
    }
    res->parse = IW_FRAMED;
    if (ini->parse == IW_WAIT) {
        ini->parse = IW_FRAMED;
        ini->reparse = true;    /* what waited is read on its side's next segment */
    }
}

/* An MPA Request or Reply at data; returns its length, or 0 when more
 * bytes are needed, or UINT32_MAX when it is not one. */
static uint32_t
parse_frame(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data,
            uint32_t len, uint32_t seq)
{
    struct iw_dir *d = &c->dir[side], *o = &c->dir[!side];

    if (len < RS_MPA_FRAME_HDR_LEN)
        return 0;
    bool req = memcmp(data, req_key, RS_MPA_KEY_LEN) == 0;
    if (!req && memcmp(data, rep_key, RS_MPA_KEY_LEN) != 0)
        return UINT32_MAX;
    uint32_t total = RS_MPA_FRAME_HDR_LEN + rs_load_be16(data + 18);
    if (len < total)
        return 0;

    struct rs_iwarp_pdu p;
    memset(&p, 0, sizeof(p));
    p.kind = req ? RS_MPA_REQUEST : RS_MPA_REPLY;
    p.data = data;
    p.len = p.caplen = p.wire_len = total;
    p.seq = seq;
    p.crc_status = RS_CKSUM_NOT_PRESENT;
    pin_if_windowed(d, data);
    commit(iw, &p);

    /* Markers count from the first FPDU, which follows the frame. */
    d->marker_base = seq + total;
    d->marker_base_known = true;
    if (req) {
        c->initiator = (int8_t)side;
        c->mpa_rev = data[17];
        c->req_flags = data[16];
        d->parse = IW_WAIT;
        if (o->parse != IW_FRAMED)
            o->parse = IW_FRAME;
    } else {
        if (c->mpa_rev == 0)
            c->mpa_rev = data[17];
        apply_reply(c, side, c->req_flags, data[16]);
        if (c->rejected)
            iw_view_flag(iw, RS_IWARP_VIEW_REJECTED);
    }
    return total;
}

/* Parse position of an FPDU: the ULPDU_Length field, after a marker that
 * may stand where the FPDU starts. */
static uint32_t
header_offset(const struct iw_dir *d, uint32_t seq)
{
    return has_markers(d) && first_marker(d, seq) == 0 ? RS_MPA_MARKER_LEN : 0;
}

/* An FPDU at data; returns its wire length, 0 when more bytes are needed,
 * UINT32_MAX when inferred framing no longer holds. */
static uint32_t
parse_fpdu(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data,
           uint32_t len, uint32_t seq)
{
    struct iw_dir *d = &c->dir[side];

    /* Framing found by inference, with markers not yet seen: each FPDU is
     * checked as the first was, so that a marker inside it shows. */
    if (d->inferred && !d->markers_known) {
        int v = iw_infer_at(iw, c, side, data, len, seq);
        if (v <= 0)
            return v == 0 ? 0 : UINT32_MAX;
    }
    uint32_t h = header_offset(d, seq);
    if (len < h + 4)
        return 0;
    uint16_t ulen = rs_load_be16(data + h);
    if (d->inferred) {
        /* The headers as the search judged them: without the markers. */
        uint8_t u[RS_DDP_UNTAGGED_HDR_LEN];
        uint32_t got = iw_plain_bytes(has_markers(d), d->marker_base, data, len, seq, h + 2, u,
                                      sizeof(u));
        if (!iw_ddp_sane(u, got, ulen))
            return UINT32_MAX;
    }
    uint32_t plain = 2u + ulen + (4 - (ulen + 2u) % 4) % 4 + RS_MPA_CRC_LEN;
    uint32_t w = iw_fpdu_wire_len(d, seq, plain);
    if (len < w)
        return 0;
    iw_mpa_emit_fpdu(iw, c, side, data, w, seq, w);
    return w;
}

/* Whether data, shorter than a key, begins the key of an MPA frame this
 * side could send next (a Request cut into small segments). */
static bool
key_cut_short(const struct iw_conn *c, int side, const uint8_t *data, uint32_t len)
{
    if (len >= RS_MPA_KEY_LEN || c->exchange_done)
        return false;
    return memcmp(data, req_key, len) == 0 ||
           (c->initiator == !side && memcmp(data, rep_key, len) == 0);
}

void
iw_mpa_probe(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data,
             uint32_t len, uint32_t seq)
{
    struct iw_dir *d = &c->dir[side];

    (void)seq;
    if (c->exchange_done || len < RS_MPA_KEY_LEN || d->parse == IW_FRAME ||
        d->parse == IW_WAIT)
        return;
    if (memcmp(data, req_key, RS_MPA_KEY_LEN) == 0) {
        iw_conn_mark_iwarp(iw, c, IW_MPA);
        d->parse = IW_FRAME;
    } else if (c->initiator == !side && memcmp(data, rep_key, RS_MPA_KEY_LEN) == 0) {
        d->parse = IW_FRAME;
    }
}

/* Searching: a known iWARP connection may keep bytes for a candidate that
 * needs more; an unconfirmed one decides within what it has. */
static uint32_t
hunt(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data, uint32_t len,
     uint32_t seq)
{
    struct iw_dir *d = &c->dir[side];
    bool found = false;
    bool confirmed = c->kind != IW_UNKNOWN;
    uint32_t at = iw_infer(iw, c, side, data, len, seq, confirmed, &found);

    if (found) {
        iw_conn_mark_iwarp(iw, c, IW_INFERRED);
        d->parse = IW_FRAMED;
        d->inferred = true;
        iw->stats.resyncs++;
        struct iw_dir *o = &c->dir[!side];
        if (o->parse == IW_PROBE || o->parse == IW_IDLE)
            o->parse = IW_HUNT;
        return at;
    }
    if (!confirmed) {
        d->hunt_budget += len;
        if (d->hunt_budget > IW_HUNT_BUDGET)
            d->parse = IW_IDLE;
        return len;
    }
    return at;
}

uint32_t
iw_mpa_parse(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data,
             uint32_t len, uint32_t seq)
{
    struct iw_dir *d = &c->dir[side];
    uint32_t off = 0, n;

    if (d->parse == IW_PROBE && key_cut_short(c, side, data, len))
        return 0;       /* kept until the key is whole */
    if (d->parse == IW_PROBE || d->parse == IW_HUNT || d->parse == IW_IDLE)
        iw_mpa_probe(iw, c, side, data, len, seq);
    while (off < len) {
        const uint8_t *p = data + off;
        uint32_t rest = len - off, s = seq + off;
        switch (d->parse) {
        case IW_FRAME:
            n = parse_frame(iw, c, side, p, rest, s);
            if (n == UINT32_MAX) {
                d->parse = IW_HUNT;     /* expected an MPA frame, found none */
                continue;
            }
            break;
        case IW_FRAMED:
            n = parse_fpdu(iw, c, side, p, rest, s);
            if (n == UINT32_MAX) {
                d->parse = IW_HUNT;     /* no FPDU here: search from the next octet */
                off++;
                continue;
            }
            break;
        case IW_SKIP:
            n = d->skip_until - s;
            if (n > rest)
                n = rest;
            if (s + n == d->skip_until)
                d->parse = IW_FRAMED;
            off += n;
            continue;
        case IW_WAIT:
            return off;                 /* kept until the Reply says how to read it */
        case IW_PROBE:
        case IW_HUNT:
            if (d->parse == IW_PROBE && !iw->opts.heuristics && c->kind == IW_UNKNOWN)
                return len;
            n = hunt(iw, c, side, p, rest, s);
            off += n;
            if (d->parse == IW_FRAMED)
                continue;
            return off;
        default:
            return len;                 /* not iWARP, or rejected: nothing to read */
        }
        if (n == 0)
            return off;                 /* the rest waits for more bytes */
        off += n;
    }
    return off;
}

void
iw_mpa_hole(struct rs_iwarp *iw, struct iw_conn *c, int side, uint32_t seq, uint32_t n)
{
    struct iw_dir *d = &c->dir[side];
    uint32_t part = d->avail - d->head;     /* bytes of a partial PDU before the hole */
    uint32_t pseq = seq - part, end = seq + n;
    const uint8_t *p = d->buf + d->head;

    switch (d->parse) {
    case IW_FRAMED: {
        uint32_t h = header_offset(d, pseq);
        if (part < h + 2) {
            d->parse = IW_HUNT;         /* the next FPDU's length was in the hole */
            return;
        }
        uint16_t ulen = rs_load_be16(p + h);
        uint32_t plain = 2u + ulen + (4 - (ulen + 2u) % 4) % 4 + RS_MPA_CRC_LEN;
        uint32_t w = iw_fpdu_wire_len(d, pseq, plain);
        iw_mpa_emit_fpdu(iw, c, side, p, w, pseq, part);
        uint32_t fpdu_end = pseq + w;
        if (seq_diff(fpdu_end, end) > 0) {
            d->parse = IW_SKIP;
            d->skip_until = fpdu_end;
        } else if (fpdu_end != end) {
            d->parse = IW_HUNT;
        }
        return;
    }
    case IW_SKIP:
        if (seq_diff(d->skip_until, end) < 0)
            d->parse = IW_HUNT;
        else if (d->skip_until == end)
            d->parse = IW_FRAMED;
        return;
    case IW_FRAME:
    case IW_WAIT:
        d->parse = IW_HUNT;
        return;
    default:
        return;
    }
}
