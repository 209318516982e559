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
 * (iw_mpa_hole) and framing goes on after it.
 *
 * Memory: the window grows by doubling up to opts.max_buffer per direction
 * and opts.max_memory in all, and is freed with its connection. Buffered
 * bytes are moved to the start of the window once per segment, before any
 * of them is parsed, because the view of the previous call may point into
 * the window until this call begins.
 */
#include <stdlib.h>
#include <string.h>

#include "iwarp_int.h"

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10
#define MAX_ACK_AHEAD (1u << 30)    /* an ACK further ahead than this is not believed */

/* Offset one past the last out-of-order byte held. */
static uint32_t
window_end(const struct iw_dir *d)
{
    uint32_t end = d->avail;

    for (unsigned i = 0; i < d->n_ooo; i++) {
        uint32_t e = d->avail + (d->ooo[i].end - d->next_seq);
        if (e > end)
            end = e;
    }
    return end;
}

/* Drops the parsed bytes at the front of the window. */
static void
compact(struct iw_dir *d)
{
    if (d->head == 0)
        return;
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

bool
iw_stream_reserve(struct rs_iwarp *iw, struct iw_dir *d, uint32_t n)
{
    /* Room taken by bytes already parsed is given back first. */
    if (d->head > 0 && window_end(d) + n > d->cap && (!d->pinned || unpin(iw, d)))
        compact(d);
    uint32_t need = window_end(d);

    if (n > iw->opts.max_buffer || need > iw->opts.max_buffer - n)
        return false;
    need += n;
    if (need <= d->cap)
        return true;
    if (d->pinned)
        return false;   /* the view points into the window: it must not move */
    uint32_t cap = d->cap != 0 ? d->cap : 4096;
    while (cap < need)
        cap = cap > iw->opts.max_buffer / 2 ? iw->opts.max_buffer : cap * 2;
    if (iw->stats.memory + (cap - d->cap) > iw->opts.max_memory)
        return false;
    uint8_t *buf = realloc(d->buf, cap);
    if (buf == NULL)
        return false;
    iw->stats.memory += cap - d->cap;
    if (iw->stats.memory > iw->stats.memory_peak)
        iw->stats.memory_peak = iw->stats.memory;
    d->buf = buf;
    d->cap = cap;
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

/* n bytes at next_seq will never come. */
static void
give_up(struct rs_iwarp *iw, struct iw_conn *c, int side, uint32_t n)
{
    struct iw_dir *d = &c->dir[side];

    if (n == 0)
        return;
    iw_mpa_hole(iw, c, side, d->next_seq, n);
    /* What was buffered in front of the hole is the parser's no more. Runs
     * held beyond the hole keep their place: the hole takes its room. */
    if (d->n_ooo > 0)
        d->avail += n;
    d->head = d->avail;
    d->next_seq += n;
    iw->stats.bytes_lost += n;
    iw_view_flag(iw, RS_IWARP_VIEW_GAP);
}

/* Appends the out-of-order runs that now continue the in-order bytes. */
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
 * between the holes. */
static void
deliver_until(struct rs_iwarp *iw, struct iw_conn *c, int side, uint32_t until)
{
    struct iw_dir *d = &c->dir[side];

    while (seq_diff(until, d->next_seq) > 0) {
        if (d->n_ooo > 0 && seq_diff(d->ooo[0].start, until) < 0) {
            give_up(iw, c, side, d->ooo[0].start - d->next_seq);
            merge_runs(iw, c, side);
        } else {
            give_up(iw, c, side, until - d->next_seq);
        }
    }
}

/* Holds an out-of-order segment; false when the window has no room. */
static bool
hold(struct rs_iwarp *iw, struct iw_dir *d, uint32_t seq, const uint8_t *data, uint32_t n)
{
    uint32_t at = d->avail + (seq - d->next_seq);
    uint32_t end_seq = seq + n;
    unsigned i, j;

    if (n == 0)
        return true;
    if (at - d->avail > iw->opts.max_buffer || (at + n > window_end(d) &&
        !iw_stream_reserve(iw, d, at + n - window_end(d))))
        return false;
    /* Merge with the runs it touches; keep them sorted. */
    for (i = 0; i < d->n_ooo && seq_diff(d->ooo[i].end, seq) < 0; i++)
        ;
    for (j = i; j < d->n_ooo && seq_diff(d->ooo[j].start, end_seq) <= 0; j++) {
        if (seq_diff(d->ooo[j].start, seq) < 0)
            seq = d->ooo[j].start;
        if (seq_diff(d->ooo[j].end, end_seq) > 0)
            end_seq = d->ooo[j].end;
    }
    if (j == i && d->n_ooo == IW_MAX_OOO)
        return false;
    memcpy(d->buf + at, data, n);
    memmove(d->ooo + i + 1, d->ooo + j, (d->n_ooo - j) * sizeof(d->ooo[0]));
    d->n_ooo = d->n_ooo - (j - i) + 1;
    d->ooo[i].start = seq;
    d->ooo[i].end = end_seq;
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
        d->next_seq += n;
        if (rest == 0)
            return;
        if (!iw_stream_reserve(iw, d, rest)) {
            iw->stats.buffer_limit_hits++;
            d->next_seq -= rest;
            give_up(iw, c, side, rest);
            return;
        }
        memcpy(d->buf + d->avail, data + used, rest);
        d->avail += rest;
        return;
    }
    if (!iw_stream_reserve(iw, d, n)) {
        iw->stats.buffer_limit_hits++;
        give_up(iw, c, side, n);
        return;
    }
    memcpy(d->buf + d->avail, data, n);
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

/* Trims the bytes of the segment that are already in order; false when
 * nothing new is left. */
static bool
trim_old(struct iw_dir *d, uint32_t *seq, const uint8_t **data, uint32_t *caplen,
         uint32_t *len)
{
    int32_t rel = seq_diff(*seq, d->next_seq);

    if (rel >= 0)
        return true;
    uint32_t old = (uint32_t)-rel;
    if (old >= *len)
        return false;
    uint32_t cut = old < *caplen ? old : *caplen;
    *data += cut;
    *caplen -= cut;
    *len -= old;
    *seq = d->next_seq;
    return true;
}

void
iw_stream_segment(struct rs_iwarp *iw, struct iw_conn *c, int side, const struct iw_segment *seg)
{
    struct iw_dir *d = &c->dir[side];
    const uint8_t *data = seg->data;
    uint32_t seq = seg->seq, caplen = seg->caplen, len = seg->len;

    note_ack(c, side, seg);
    if (seg->flags & TCP_SYN) {
        if (d->saw_syn && d->next_seq != seq + 1)
            iw_conn_reset(iw, c);       /* the 4-tuple is reused by a new connection */
        d = &c->dir[side];
        d->seq_known = d->saw_syn = true;
        d->next_seq = seq + 1;
        return;
    }
    if (len == 0)
        return;
    if (!d->seq_known) {
        d->seq_known = true;
        d->next_seq = seq;
    }
    compact(d);
    d->pinned = false;
    if (d->buf != NULL || d->lost_pending)
        (void)iw_stream_reserve(iw, d, caplen);    /* now, before anything points in */
    if (!trim_old(d, &seq, &data, &caplen, &len)) {
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
            return;
        }
        /* No room to wait for the bytes before it: they are lost. */
        iw->stats.buffer_limit_hits++;
        deliver_until(iw, c, side, seq);
    }
    /* Give-ups may have delivered held runs that overlap this segment. */
    if (!trim_old(d, &seq, &data, &caplen, &len))
        return;
    d->seg_starts[d->n_seg_starts++ % RS_ARRAY_SIZE(d->seg_starts)] = seq;
    deliver(iw, c, side, data, caplen);
    if (len > caplen)
        give_up(iw, c, side, len - caplen);     /* cut by the snapshot length */
    merge_runs(iw, c, side);
}
