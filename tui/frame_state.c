/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame_state.c - the record of what the pipeline's stateful stages gave one
 * frame: its analysis facts, its stream view (tcp.stream, the relative Seq
 * and Ack, the scaled window, udp.stream, the ICMP echo it answers) and its
 * iWARP view (the MPA frames and FPDUs that end in it, their markers, a Send
 * message's fragments and reassembled payload). A frame read back is decoded
 * again, which is stateless, and the record gives it the rest: the packet
 * then prints exactly as `read` printed it in capture order, through the
 * same printers (print.h), whatever those print.
 *
 * Each struct is kept whole, so that a field added to it later is kept too:
 * as a mask of its non-zero 32-bit words, then those words (a RoCE frame's
 * facts, 104 bytes, take about 30). Pointers are not kept: a PDU's bytes are
 * an offset into the frame when they lie there, else (reassembled across
 * segments, or with the markers taken out) the bytes themselves, as is a
 * reassembled Send's payload, and the HTTP message or TLS record a TCP segment completes
 * (its segments' frames and lengths, and its bytes).
 *
 * Layout: parts (a byte: FS_FACTS | FS_STREAM | FS_IWARP | FS_TCP_REASM), the packet's
 * encapsulation, then each part present in that order. The records are
 * ours, written and read by this process (host byte order); still every
 * read is bounded, and a record that does not parse is an error, not a
 * crash.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/streams.h>

#include "model_int.h"

#define FS_FACTS 0x01u
#define FS_STREAM 0x02u
#define FS_IWARP 0x04u
#define FS_TCP_REASM 0x08u

/* Where a PDU's bytes are. */
enum { AT_NONE = 0, AT_FRAME = 1, AT_INLINE = 2 };

#define MAX_WORDS 64     /* a 64-bit mask: the stream view with TCP's analysis is 216 bytes */
_Static_assert(sizeof(struct rs_facts) % 8 == 0 && sizeof(struct rs_facts) <= 4 * MAX_WORDS,
               "the facts are whole pairs of words, a mask's worth");
_Static_assert(sizeof(struct rs_stream_view) % 8 == 0 &&
               sizeof(struct rs_stream_view) <= 4 * MAX_WORDS, "the stream view likewise");
_Static_assert(sizeof(struct rs_iwarp_pdu) % 8 == 0 &&
               sizeof(struct rs_iwarp_pdu) <= 4 * MAX_WORDS, "a PDU likewise");
_Static_assert(sizeof(struct rs_iwarp_view) % 8 == 0 &&
               sizeof(struct rs_iwarp_view) <= 4 * MAX_WORDS, "the iWARP view likewise");

/* --- Writing --- */

/* Room for n more bytes at b->p + b->len. */
static bool
reserve(struct frame_state_buf *b, size_t n)
{
    if (b->len + n <= b->cap)
        return true;
    size_t cap = b->cap == 0 ? 4096 : b->cap;
    while (cap < b->len + n)
        cap *= 2;
    uint8_t *q = realloc(b->p, cap);
    if (q == NULL)
        return false;
    b->p = q;
    b->cap = cap;
    return true;
}

static bool
put(struct frame_state_buf *b, const void *p, size_t n)
{
    if (!reserve(b, n))
        return false;
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return true;
}

/* A struct as the mask of its non-zero words and those words. Most of a frame's facts
 * and stream view are zero: they are looked at eight bytes at a time, and each word is
 * written where the next one goes and kept only when not zero (no branch per word). */
static inline __attribute__((always_inline)) bool
put_words(struct frame_state_buf *b, const void *s, size_t size)
{
    const uint8_t *src = s;
    uint64_t mask = 0;

    if (!reserve(b, 8 + size))
        return false;
    uint8_t *out = b->p + b->len + 8, *at = out;
    for (size_t i = 0; i < size; i += 8) {
        uint64_t pair;
        memcpy(&pair, src + i, 8);
        if (pair == 0)
            continue;
        uint32_t lo = (uint32_t)pair, hi = (uint32_t)(pair >> 32);
        memcpy(at, &lo, 4);
        at += 4 * (lo != 0);
        memcpy(at, &hi, 4);
        at += 4 * (hi != 0);
        mask |= (uint64_t)(lo != 0) << (i / 4) | (uint64_t)(hi != 0) << (i / 4 + 1);
    }
    memcpy(b->p + b->len, &mask, 8);
    b->len += 8 + (size_t)(at - out);
    return true;
}

/* How many send_frames entries the view's PDUs use. */
static uint32_t
send_frames_used(const struct rs_iwarp_view *v)
{
    uint32_t n = 0;

    for (unsigned i = 0; i < v->n_pdus; i++) {
        const struct rs_iwarp_pdu *p = &v->pdus[i];
        if ((p->flags & RS_IWARP_PDU_SEND_REASM) && p->send_first_frame + p->send_fragments > n)
            n = p->send_first_frame + p->send_fragments;
    }
    return n;
}

static bool
put_pdu(struct frame_state_buf *b, const struct rs_frame *frame, const struct rs_iwarp_pdu *p)
{
    struct rs_iwarp_pdu bare = *p;
    uint8_t at = AT_NONE;
    uint32_t off = 0;

    bare.data = NULL;
    bare.send_data = NULL;
    if (p->data != NULL && p->data >= frame->data && p->caplen <= frame->caplen &&
        (size_t)(p->data - frame->data) <= frame->caplen - p->caplen) {
        at = AT_FRAME;
        off = (uint32_t)(p->data - frame->data);
    } else if (p->data != NULL) {
        at = AT_INLINE;
    }
    uint8_t send_at = p->send_data != NULL ? AT_INLINE : AT_NONE;
    if (!put_words(b, &bare, sizeof(bare)) || !put(b, &at, 1) || !put(b, &send_at, 1))
        return false;
    if (at == AT_FRAME && !put(b, &off, sizeof(off)))
        return false;
    if (at == AT_INLINE && !put(b, p->data, p->caplen))
        return false;
    return send_at == AT_NONE || put(b, p->send_data, p->send_len);
}

static bool
put_iwarp(struct frame_state_buf *b, const struct rs_frame *frame, const struct rs_iwarp_view *v)
{
    struct rs_iwarp_view bare = *v;
    uint32_t n_send = send_frames_used(v);

    bare.pdus = NULL;
    bare.markers = NULL;
    bare.send_frames = NULL;
    bare.send_lens = NULL;
    if (!put_words(b, &bare, sizeof(bare)) || !put(b, &n_send, sizeof(n_send)) ||
        !put(b, v->markers, v->n_markers * sizeof(*v->markers)) ||
        !put(b, v->send_frames, n_send * sizeof(*v->send_frames)) ||
        !put(b, v->send_lens, n_send * sizeof(*v->send_lens)))
        return false;
    for (unsigned i = 0; i < v->n_pdus; i++)
        if (!put_pdu(b, frame, &v->pdus[i]))
            return false;
    return true;
}

static bool
put_tcp_reasm(struct frame_state_buf *b, const struct rs_tcp_reasm *r)
{
    return put(b, &r->len, sizeof(r->len)) && put(b, &r->n_segments, sizeof(r->n_segments)) &&
           put(b, r->frames, r->n_segments * sizeof(*r->frames)) &&
           put(b, r->lens, r->n_segments * sizeof(*r->lens)) && put(b, r->data, r->len);
}

bool
frame_state_encode(struct frame_state_buf *b, const struct rs_frame *frame,
                   const struct rs_packet *pkt)
{
    uint8_t head[2] = {0, pkt->encap};

    b->len = 0;
    const struct rs_tcp_reasm *reasm = pkt->stream != NULL ? pkt->stream->reasm : NULL;
    struct rs_stream_view bare;

    head[0] = (uint8_t)((pkt->facts != NULL ? FS_FACTS : 0) |
                        (pkt->stream != NULL ? FS_STREAM : 0) |
                        (pkt->iwarp != NULL ? FS_IWARP : 0) |
                        (reasm != NULL ? FS_TCP_REASM : 0));
    if (head[0] == 0)
        return true;        /* decoding alone gives all of it */
    if (pkt->stream != NULL) {
        bare = *pkt->stream;
        bare.reasm = NULL;  /* a pointer is not kept: the message follows (FS_TCP_REASM) */
    }
    return put(b, head, sizeof(head)) &&
           (pkt->facts == NULL || put_words(b, pkt->facts, sizeof(*pkt->facts))) &&
           (pkt->stream == NULL || put_words(b, &bare, sizeof(bare))) &&
           (pkt->iwarp == NULL || put_iwarp(b, frame, pkt->iwarp)) &&
           (reasm == NULL || put_tcp_reasm(b, reasm));
}

void
frame_state_buf_free(struct frame_state_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* --- Reading back --- */

struct reader {
    const uint8_t *p, *end;
};

static const uint8_t *
take(struct reader *r, size_t n)
{
    if ((size_t)(r->end - r->p) < n)
        return NULL;
    const uint8_t *at = r->p;
    r->p += n;
    return at;
}

static bool
take_copy(struct reader *r, void *out, size_t n)
{
    const uint8_t *at = take(r, n);

    if (at != NULL)
        memcpy(out, at, n);
    return at != NULL;
}

/* The words the mask names, into s (zeroed first): one bounds check for all of them,
 * and a step per word present, not per word (a search reads a million of these). */
static bool
take_words(struct reader *r, void *s, size_t size)
{
    uint64_t mask;

    if (!take_copy(r, &mask, sizeof(mask)) || (size < 4 * MAX_WORDS && mask >> (size / 4)))
        return false;
    const uint8_t *at = take(r, 4 * (size_t)__builtin_popcountll(mask));
    if (at == NULL)
        return false;
    memset(s, 0, size);
    for (uint8_t *out = s; mask != 0; mask &= mask - 1, at += 4)
        memcpy(out + 4 * __builtin_ctzll(mask), at, 4);
    return true;
}

/* Room for n elements of elem bytes in *arr (grown, kept across calls). */
static bool
room(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n <= *cap)
        return true;
    void *p = realloc(*arr, n * elem);
    if (p == NULL)
        return false;
    *arr = p;
    *cap = n;
    return true;
}

static bool
take_pdu(struct reader *r, const struct rs_frame *frame, struct rs_iwarp_pdu *p)
{
    uint8_t at, send_at;
    uint32_t off;

    if (!take_words(r, p, sizeof(*p)) || !take_copy(r, &at, 1) || !take_copy(r, &send_at, 1))
        return false;
    if (at == AT_FRAME) {
        if (!take_copy(r, &off, sizeof(off)) || off > frame->caplen ||
            p->caplen > frame->caplen - off)
            return false;
        p->data = frame->data + off;
    } else if (at == AT_INLINE) {
        if ((p->data = take(r, p->caplen)) == NULL)
            return false;
    }
    if (send_at == AT_INLINE && (p->send_data = take(r, p->send_len)) == NULL)
        return false;
    return at <= AT_INLINE && (send_at == AT_NONE || send_at == AT_INLINE);
}

static bool
take_iwarp(struct reader *r, struct rs_tui_decoded *d)
{
    struct rs_iwarp_view *v = &d->iwarp;
    uint32_t n_send;

    if (!take_words(r, v, sizeof(*v)) || !take_copy(r, &n_send, sizeof(n_send)) ||
        !room((void **)&d->words, &d->words_cap, (size_t)v->n_markers + 2 * (size_t)n_send + 1,
              sizeof(*d->words)) ||
        !room((void **)&d->pdus, &d->pdus_cap, (size_t)v->n_pdus + 1, sizeof(*d->pdus)) ||
        !take_copy(r, d->words, v->n_markers * sizeof(*d->words)) ||
        !take_copy(r, d->words + v->n_markers, n_send * sizeof(*d->words)) ||
        !take_copy(r, d->words + v->n_markers + n_send, n_send * sizeof(*d->words)))
        return false;
    v->markers = d->words;
    v->send_frames = d->words + v->n_markers;
    v->send_lens = v->send_frames + n_send;
    for (unsigned i = 0; i < v->n_pdus; i++)
        if (!take_pdu(r, &d->frame, &d->pdus[i]))
            return false;
    v->pdus = d->pdus;
    return true;
}

static bool
take_tcp_reasm(struct reader *r, struct rs_tui_decoded *d)
{
    struct rs_tcp_reasm *m = &d->reasm;
    uint32_t len, n;

    if (!take_copy(r, &len, sizeof(len)) || !take_copy(r, &n, sizeof(n)) ||
        (size_t)(r->end - r->p) < 2 * (size_t)n * sizeof(uint32_t) ||
        !room((void **)&d->segments, &d->segments_cap, 2 * (size_t)n + 1,
              sizeof(*d->segments)) ||
        !take_copy(r, d->segments, 2 * (size_t)n * sizeof(*d->segments)) ||
        (m->data = take(r, len)) == NULL)
        return false;
    m->len = len;
    m->n_segments = n;
    m->frames = d->segments;
    m->lens = d->segments + n;
    return true;
}

int
frame_state_apply(struct rs_tui_decoded *d, const uint8_t *state, size_t len, char *err)
{
    struct reader r = {state, state + len};
    uint8_t head[2];

    d->pkt.facts = NULL;
    d->pkt.stream = NULL;
    d->pkt.iwarp = NULL;
    if (len == 0)
        return 0;
    /* Each view read is zeroed by take_words() first; the others stay unused (NULL). */
    bool ok = take_copy(&r, head, sizeof(head)) &&
              (!(head[0] & FS_FACTS) || take_words(&r, &d->facts, sizeof(d->facts))) &&
              (!(head[0] & FS_STREAM) || take_words(&r, &d->stream, sizeof(d->stream))) &&
              (!(head[0] & FS_IWARP) || take_iwarp(&r, d)) &&
              (!(head[0] & FS_TCP_REASM) || ((head[0] & FS_STREAM) && take_tcp_reasm(&r, d))) &&
              r.p == r.end;
    if (!ok)
        return rs_error(err, RS_EFORMAT, "frame %llu: its decoding state does not read back",
                        (unsigned long long)d->frame.number);
    d->pkt.encap = head[1];
    d->pkt.facts = head[0] & FS_FACTS ? &d->facts : NULL;
    d->pkt.stream = head[0] & FS_STREAM ? &d->stream : NULL;
    d->stream.reasm = head[0] & FS_TCP_REASM ? &d->reasm : NULL;
    d->pkt.iwarp = head[0] & FS_IWARP ? &d->iwarp : NULL;
    return 0;
}
