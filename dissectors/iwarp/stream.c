/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stream.c - TCP for the MPA parser: each direction's bytes in sequence
 * order, each byte once.
 *
 * A segment that starts at the next expected sequence number is parsed
 * straight from the frame when nothing is buffered (the common case: no
 * copy), and only the partial FPDU at its end is kept. Bytes already seen
 * (retransmissions, overlaps) are trimmed off. A segment that starts beyond
 * the next expected byte waits in the direction's window, at its place
 * relative to next_seq, until the bytes before it arrive.
 *
 * Bytes that will never come are given up: those the peer acknowledges
 * although the capture never showed them (lost by the capture, as
 * Wireshark's "ACKed segment that wasn't captured"), those a snapshot
 * length cut off, and the bytes before an out-of-order segment that does
 * not fit in the window's bound. The MPA parser is told of the hole
 * (iw_mpa_hole) and framing goes on after it. A segment 2^30 or more ahead
 * is believed only when the next segment continues it (far_jump_believed).
 *
 * Memory: the window grows by doubling up to opts.max_buffer per direction
 * and opts.max_memory in all, and is freed with its connection. Buffered
 * bytes are moved to the start of the window once per segment, before any
 * of them is parsed, because the view of the previous call may point into
 * the window until this call begins.
 *
 * The window's invariants (struct iw_dir: buf, cap, head, avail, ooo[],
 * next_seq). The stream byte with sequence number s lives at
 * buf[avail + (s - next_seq)], in 32-bit wrapping arithmetic: the window is
 * anchored at next_seq - avail, and nothing else records where a byte is.
 *   W1  head <= avail <= cap <= max_buffer.
 *   W2  buf[0, head) holds bytes already parsed. The current view may point
 *       into them (pinned); they move only after unpin() gave it copies.
 *   W3  buf[head, avail) holds the in-order bytes not yet parsed: the
 *       stream's [next_seq - (avail - head), next_seq).
 *   W4  ooo[0, n_ooo), n_ooo <= IW_MAX_OOO, are the runs held ahead, sorted,
 *       disjoint and not touching, each after next_seq, and each lies inside
 *       the room: avail + (end - next_seq) <= cap.
 *   W5  The anchor moves only with the bytes: next_seq and avail advance
 *       together (bytes appended, a hole given up in front of held runs, a
 *       run merged), and compaction lowers avail by head as it moves the
 *       bytes down by head. next_seq may move alone only when nothing is
 *       held at or after head (head == avail, no runs): a SYN that starts a
 *       new connection on the 4-tuple empties the window first.
 *   W6  An offset into buf is good only until the next call that may move
 *       the window (reserve() compacts and reallocates). window_put()
 *       is the one place bytes are copied in: it makes room first, then
 *       computes the place, and checks it against cap before copying.
 * Two defects came from breaking these. hold() computed a run's offset,
 * then made room, which compacted the window: the copy landed head octets
 * beyond the room reserved, past cap (W6). The SYN of a reused 4-tuple set
 * next_seq to the new sequence number while runs were held (W5): their
 * place moved past cap, and compact(), which sizes its move from the runs
 * (W4), read beyond the buffer. window_valid() states W1-W4 as code; Debug
 * builds assert it on entry and exit of every segment and before the window
 * moves.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "iwarp_int.h"

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10
#define MAX_ACK_AHEAD (1u << 30)    /* an ACK further ahead than this is not believed */
#define MAX_JUMP (1u << 30)         /* nor a segment, unless the next one continues it */

/* Where the byte with sequence number seq lives in buf (see the anchor
 * above); meaningful for bytes the window holds or has room for. */
static uint32_t
window_offset(const struct iw_dir *d, uint32_t seq)
{
    return d->avail + (seq - d->next_seq);
}

/* Offset one past the last byte held: the runs are sorted (W4). */
static uint32_t
window_end(const struct iw_dir *d)
{
    return d->n_ooo > 0 ? window_offset(d, d->ooo[d->n_ooo - 1].end) : d->avail;
}

#ifndef NDEBUG
/* W1-W4 as code, for assert() (Debug builds). */
static bool
window_valid(const struct rs_iwarp *iw, const struct iw_dir *d)
{
    if (d->head > d->avail || d->avail > d->cap || d->cap > iw->opts.max_buffer ||
        (d->buf == NULL) != (d->cap == 0) || d->n_ooo > IW_MAX_OOO)
        return false;
    uint32_t prev = d->next_seq;
    for (unsigned i = 0; i < d->n_ooo; i++) {
        const struct iw_run *r = &d->ooo[i];
        if (seq_diff(r->start, prev) <= 0 || seq_diff(r->end, r->start) <= 0 ||
            r->end - d->next_seq > d->cap - d->avail)
            return false;
        prev = r->end;
    }
    return true;
}
#endif

/* Drops the parsed bytes at the front of the window: everything held moves
 * down by head, and avail with it (W5). */
static void
compact(struct rs_iwarp *iw, struct iw_dir *d)
{
    (void)iw;   /* for the assertion */
    if (d->head == 0)
        return;
    assert(window_valid(iw, d));
    uint32_t end = window_end(d);
    memmove(d->buf, d->buf + d->head, end - d->head);
    d->avail -= d->head;
    d->head = 0;
}

/* The view's PDUs that point into the parsed front of the window get
 * copies of their own, so that the window can move. */
static bool
unpin(struct rs_iwarp *iw, struct iw_dir *d)
{
    struct iw_view_build *vb = &iw->vb;

    for (unsigned i = 0; i < vb->view.n_pdus; i++) {
        struct rs_iwarp_pdu *p = &vb->pdus[i];
        if (p->data < d->buf || p->data >= d->buf + d->cap)
            continue;
        uint8_t *copy = iw_arena_alloc(iw, p->caplen ? p->caplen : 1);
        if (copy == NULL)
            return false;
        memcpy(copy, p->data, p->caplen);
        p->data = copy;
    }
    d->pinned = false;
    return true;
}

/* Makes room for n more bytes past window_end() within the bounds; false
 * when they refuse it. May move the window (W6). */
static bool
reserve(struct rs_iwarp *iw, struct iw_dir *d, uint32_t n)
{
    uint32_t max = iw->opts.max_buffer;

    assert(window_valid(iw, d));
    /* Room taken by bytes already parsed is given back first. */
    if (d->head > 0 && n > d->cap - window_end(d) && (!d->pinned || unpin(iw, d)))
        compact(iw, d);
    uint32_t end = window_end(d);
    if (n > max - end)
        return false;
    if (end + n <= d->cap)
        return true;
    if (d->pinned)
        return false;   /* the view points into the window: it must not move */
    uint32_t cap = d->cap != 0 ? d->cap : 4096;
    while (cap < end + n)
        cap = cap > max / 2 ? max : cap * 2;
    if (!iw_memory_fits(iw, cap - d->cap))
        return false;
    uint8_t *buf = realloc(d->buf, cap);
    if (buf == NULL)
        return false;
    iw_memory_add(iw, cap - d->cap);
    d->buf = buf;
    d->cap = cap;
    return true;
}

/* The one way bytes enter the window: n bytes of sequence number seq, the
 * next in-order byte or one ahead of it. Room is made first, and the place
 * computed after, because making room may move the window (W6); the place
 * must lie in the room (W1, W4). False when the bounds refuse the bytes. */
static inline bool
window_put(struct rs_iwarp *iw, struct iw_dir *d, uint32_t seq, const uint8_t *data,
           uint32_t n)
{
    uint32_t ahead = seq - d->next_seq, max = iw->opts.max_buffer;

    if (ahead > max || n > max)
        return false;
    /* Compaction lowers both ends alike: the room wanted does not change. */
    uint32_t last = d->avail + ahead + n, end = window_end(d);
    if (last > d->cap && !reserve(iw, d, last - end))
        return false;
    uint32_t at = window_offset(d, seq);
    if (at < d->avail || at > d->cap || n > d->cap - at) {
        assert(!"window_put: the place lies outside the room");
        return false;
    }
    memcpy(d->buf + at, data, n);
    return true;
}

void
iw_stream_free(struct rs_iwarp *iw, struct iw_dir *d)
{
    iw->stats.memory -= d->cap;
    free(d->buf);
    d->buf = NULL;
    d->cap = d->head = d->avail = 0;
    d->n_ooo = 0;
}

/* Parses what the window holds in order. */
static void
parse_window(struct rs_iwarp *iw, struct iw_conn *c, int side)
{
    struct iw_dir *d = &c->dir[side];
    uint32_t n = d->avail - d->head;

    if (n == 0)
        return;
    d->head += iw_mpa_parse(iw, c, side, d->buf + d->head, n, d->next_seq - n);
}

/* n bytes at next_seq will never come. They lie in front of every run held,
 * so the runs keep their place and the hole takes its room (W5); with no
 * run held, nothing is left at or after head and the window re-anchors. */
static void
give_up(struct rs_iwarp *iw, struct iw_conn *c, int side, uint32_t n)
{
    struct iw_dir *d = &c->dir[side];

    if (n == 0)
        return;
    assert(d->n_ooo == 0 || seq_diff(d->ooo[0].start, d->next_seq + n) >= 0);
    /* Bytes that waited (for the MPA Reply, say) may be readable now: what
     * the hole cuts must be one partial PDU, not whole ones before it. */
    parse_window(iw, c, side);
    iw_mpa_hole(iw, c, side, d->next_seq, n);
    if (d->n_ooo > 0)
        d->avail += n;
    d->head = d->avail;
    d->next_seq += n;
    iw->stats.bytes_lost += n;
    iw_view_flag(iw, RS_IWARP_VIEW_GAP);
}

/* Appends the out-of-order runs that now continue the in-order bytes: they
 * are in place already (W4), so avail moves with next_seq (W5). */
static void
merge_runs(struct rs_iwarp *iw, struct iw_conn *c, int side)
{
    struct iw_dir *d = &c->dir[side];
    bool grew = false;

    while (d->n_ooo > 0 && seq_diff(d->ooo[0].start, d->next_seq) <= 0) {
        int32_t ahead = seq_diff(d->ooo[0].end, d->next_seq);
        if (ahead > 0) {
            d->avail += (uint32_t)ahead;
            d->next_seq = d->ooo[0].end;
            grew = true;
        }
        memmove(d->ooo, d->ooo + 1, (d->n_ooo - 1) * sizeof(d->ooo[0]));
        d->n_ooo--;
    }
    if (grew)
        parse_window(iw, c, side);
}

/* Gives up every missing byte before `until`, delivering the runs held
 * between the holes, and the one that starts at `until` (W4: no run may
 * start at next_seq). */
static void
deliver_until(struct rs_iwarp *iw, struct iw_conn *c, int side, uint32_t until)
{
    struct iw_dir *d = &c->dir[side];

    while (seq_diff(until, d->next_seq) > 0) {
        uint32_t to = until;
        if (d->n_ooo > 0 && seq_diff(d->ooo[0].start, until) < 0)
            to = d->ooo[0].start;
        give_up(iw, c, side, to - d->next_seq);
        merge_runs(iw, c, side);
    }
}

/* Holds an out-of-order segment; false when the window has no room. */
static bool
hold(struct rs_iwarp *iw, struct iw_dir *d, uint32_t seq, const uint8_t *data, uint32_t n)
{
    uint32_t start = seq, end = seq + n;
    unsigned i, j;

    if (n == 0)
        return true;
    /* Merge with the runs it touches; keep them sorted. */
    for (i = 0; i < d->n_ooo && seq_diff(d->ooo[i].end, start) < 0; i++)
        ;
    for (j = i; j < d->n_ooo && seq_diff(d->ooo[j].start, end) <= 0; j++) {
        if (seq_diff(d->ooo[j].start, start) < 0)
            start = d->ooo[j].start;
        if (seq_diff(d->ooo[j].end, end) > 0)
            end = d->ooo[j].end;
    }
    if ((j == i && d->n_ooo == IW_MAX_OOO) || !window_put(iw, d, seq, data, n))
        return false;
    memmove(d->ooo + i + 1, d->ooo + j, (d->n_ooo - j) * sizeof(d->ooo[0]));
    d->n_ooo = d->n_ooo - (j - i) + 1;
    d->ooo[i].start = start;
    d->ooo[i].end = end;
    return true;
}

/* In-order bytes: parsed from the frame when nothing waits in the window,
 * else appended to it. */
static void
deliver(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data, uint32_t n)
{
    struct iw_dir *d = &c->dir[side];

    if (n == 0)
        return;
    if (d->head == d->avail && d->n_ooo == 0) {
        uint32_t used = iw_mpa_parse(iw, c, side, data, n, d->next_seq);
        uint32_t rest = n - used;
        d->next_seq += used;    /* nothing is held: the window re-anchors (W5) */
        if (rest == 0)
            return;
        if (!window_put(iw, d, d->next_seq, data + used, rest)) {
            iw->stats.buffer_limit_hits++;
            give_up(iw, c, side, rest);
            return;
        }
        d->avail += rest;
        d->next_seq += rest;
        return;
    }
    if (!window_put(iw, d, d->next_seq, data, n)) {
        iw->stats.buffer_limit_hits++;
        deliver_until(iw, c, side, d->next_seq + n);
        return;
    }
    d->avail += n;
    d->next_seq += n;
    parse_window(iw, c, side);
}

/* The peer's acknowledgment number says how far this direction got. */
static void
note_ack(struct iw_conn *c, int side, const struct iw_segment *seg)
{
    struct iw_dir *r = &c->dir[!side];

    if (!(seg->flags & TCP_ACK) || !r->seq_known)
        return;
    uint32_t ahead = seg->ack - r->next_seq;
    if (ahead == 0 || ahead >= MAX_ACK_AHEAD)
        return;
    if (!r->lost_pending || seq_diff(seg->ack, r->lost_until) > 0) {
        r->lost_pending = true;
        r->lost_until = seg->ack;
    }
}

/* A SYN. A retransmitted one changes nothing. One with a new sequence
 * number on a direction that has one starts a new connection on the
 * 4-tuple: everything held is dropped before next_seq moves (W5). */
static void
note_syn(struct rs_iwarp *iw, struct iw_conn *c, int side, uint32_t seq)
{
    struct iw_dir *d = &c->dir[side];

    if (d->saw_syn && seq == d->isn)
        return;
    if (d->seq_known && d->next_seq != seq + 1)
        iw_conn_reset(iw, c);
    assert(d->next_seq == seq + 1 || (d->head == d->avail && d->n_ooo == 0));
    d->seq_known = d->saw_syn = true;
    d->isn = seq;
    d->next_seq = seq + 1;
}

/* Trims the bytes of the segment that are already in order; false when
 * nothing new is left. */
static bool
trim_old(struct iw_dir *d, uint32_t *seq, const uint8_t **data, uint32_t *caplen,
         uint32_t *len)
{
    if (seq_diff(*seq, d->next_seq) >= 0)
        return true;
    uint32_t old = d->next_seq - *seq;  /* up to 2^31: unsigned, never a negation */
    if (old >= *len)
        return false;
    uint32_t cut = old < *caplen ? old : *caplen;
    *data += cut;
    *caplen -= cut;
    *len -= old;
    *seq = d->next_seq;
    return true;
}

/* A segment a gigabyte or more ahead is more likely a corrupt or foreign
 * sequence number than that much lost: believed, it would give up that
 * much and leave every later segment behind. It is taken as old bytes, as
 * an ACK that far ahead is not believed, unless the segment after it
 * continues it: then the stream did jump. */
static bool
far_jump_believed(struct iw_dir *d, uint32_t seq, uint32_t len)
{
    bool continues = d->jump_seen && seq == d->jump_next;

    d->jump_seen = !continues;
    d->jump_next = seq + len;
    return continues;
}

void
iw_stream_segment(struct rs_iwarp *iw, struct iw_conn *c, int side, const struct iw_segment *seg)
{
    struct iw_dir *d = &c->dir[side];
    const uint8_t *data = seg->data;
    uint32_t seq = seg->seq, caplen = seg->caplen, len = seg->len;

    assert(window_valid(iw, d));
    note_ack(c, side, seg);
    if (seg->flags & TCP_SYN) {
        note_syn(iw, c, side, seq);
        return;
    }
    if (len == 0)
        return;
    if (!d->seq_known) {
        assert(d->head == d->avail && d->n_ooo == 0);
        d->seq_known = true;
        d->next_seq = seq;
    }
    compact(iw, d);
    d->pinned = false;
    if ((d->buf != NULL || d->lost_pending) && caplen > d->cap - window_end(d))
        (void)reserve(iw, d, caplen);   /* now, before anything points in */
    if (d->reparse) {
        /* Bytes that waited for the other side: read them now, whatever
         * this segment turns out to be (it may hold only old bytes). */
        d->reparse = false;
        parse_window(iw, c, side);
    }
    if (!trim_old(d, &seq, &data, &caplen, &len)) {
        iw->stats.retransmissions++;
        iw_view_flag(iw, RS_IWARP_VIEW_RETRANSMISSION);
        return;
    }
    if (seq - d->next_seq < MAX_JUMP) {
        d->jump_seen = false;
    } else if (!far_jump_believed(d, seq, len)) {
        iw->stats.retransmissions++;
        iw_view_flag(iw, RS_IWARP_VIEW_RETRANSMISSION);
        return;
    }
    if (d->lost_pending) {
        d->lost_pending = false;
        if (seq_diff(d->lost_until, d->next_seq) > 0)
            deliver_until(iw, c, side, seq_diff(d->lost_until, seq) < 0 ? d->lost_until : seq);
    }
    if (seq_diff(seq, d->next_seq) > 0) {
        if (hold(iw, d, seq, data, caplen)) {
            iw->stats.out_of_order++;
            iw_view_flag(iw, RS_IWARP_VIEW_OUT_OF_ORDER);
            assert(window_valid(iw, d));
            return;
        }
        /* No room to wait for the bytes before it: they are lost. */
        iw->stats.buffer_limit_hits++;
        deliver_until(iw, c, side, seq);
    }
    /* Give-ups may have delivered held runs that overlap this segment. */
    if (trim_old(d, &seq, &data, &caplen, &len)) {
        d->seg_starts[d->n_seg_starts++ % RS_ARRAY_SIZE(d->seg_starts)] = seq;
        deliver(iw, c, side, data, caplen);
        merge_runs(iw, c, side);
        if (len > caplen)
            deliver_until(iw, c, side, seq + len);     /* cut by the snapshot length */
    }
    assert(window_valid(iw, d));
}
