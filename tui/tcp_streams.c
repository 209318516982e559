/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcp_streams.c - what a TCP frame decoded again on its own needs for the
 * Seq, Ack and Win that `roceshark read` prints (and tcp.stream, tcp.seq,
 * ... in the detail pane): its stream's initial sequence numbers and
 * window scale factors. The streams stage finds them in capture order at
 * ingest; they are noted here, per stream rather than per frame, and
 * applied to the frame's raw header when it is read back.
 *
 * Each frame is checked at ingest against what the notes give it. Where
 * they disagree (a SYN that starts over with another sequence number, as in
 * a connection refused and tried again on the same ports, or a window scale
 * that changes), the stream's notes start a new epoch from that frame on: a
 * frame read back takes the epoch it falls in. A value first learnt later
 * (the peer's base, from its first segment) is added to the epoch in force,
 * since no earlier frame of it used the value.
 *
 * A stream's first frame keeps no notes: what the streams stage gives it is what
 * the stage gives that frame alone, so it is read back through a stage of its own
 * (first_frame_view). Notes start with a stream's second frame, and a stream of
 * one frame (a SYN scan's, a refused connection's) costs its 4-byte entry in
 * tcp_latest and nothing more, where notes were 40 bytes a stream.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/flow.h>
#include <roceshark/streams.h>
#include <roceshark/wire.h>

#include "model_int.h"

#define TCP_FIN 0x01u
#define TCP_SYN 0x02u
#define TCP_ACK 0x10u
#define NO_EPOCH UINT32_MAX
#define FIRST_FRAME_ONLY (UINT32_MAX - 1)  /* in tcp_latest: its first frame seen, no notes */

enum { KNOWN_BASE = 1u, KNOWN_SCALE = 4u };     /* shifted left by the side */

struct tui_tcp_epoch {
    uint64_t first;         /* the first frame it holds for */
    uint32_t prev;          /* the stream's epoch before, or NO_EPOCH */
    uint32_t base[2];       /* each side's initial sequence number */
    int32_t win_scale[2];   /* each side's factor after its SYN, or RS_WIN_SCALE_* */
    uint8_t known;          /* KNOWN_* << side */
    bool inexact;           /* the notes could not reproduce a frame of it */
};

/* The raw header fields the view is made from. */
struct tcp_raw {
    int side;
    uint32_t seq, ack;
    uint16_t window;
    uint8_t flags;
};

static bool
raw_of(const struct rs_packet *pkt, struct tcp_raw *r)
{
    struct rs_flow_key key;

    if (!rs_packet_has(pkt, RS_LAYER_TCP) || !rs_flow_key_of(pkt, &key, &r->side))
        return false;
    const uint8_t *t = rs_packet_at(pkt, RS_LAYER_TCP);
    r->seq = rs_load_be32(t + 4);
    r->ack = rs_load_be32(t + 8);
    r->flags = t[13];
    r->window = rs_load_be16(t + 14);
    return true;
}

/* The view the notes s give the frame pkt of stream index; false when they
 * lack something it needs. */
static bool
view_of(const struct tui_tcp_epoch *s, uint32_t index, const struct rs_packet *pkt,
        const struct tcp_raw *r, struct rs_stream_view *v)
{
    int me = r->side, peer = !r->side;

    if (s->inexact || !(s->known & (KNOWN_BASE << me)) ||
        ((r->flags & TCP_ACK) && !(s->known & (KNOWN_BASE << peer))) ||
        (!(r->flags & TCP_SYN) && !(s->known & (KNOWN_SCALE << me))))
        return false;
    memset(v, 0, sizeof(*v));
    v->index = index;
    v->tcp = true;
    v->len = rs_tcp_payload_len(pkt);
    v->seq = r->seq - s->base[me];
    v->ack = (r->flags & TCP_ACK) ? r->ack - s->base[peer] : r->ack;
    v->peer_base = (s->known & (KNOWN_BASE << peer)) ? s->base[peer] : 0;
    v->nxtseq = v->seq + v->len + !!(r->flags & TCP_SYN) + !!(r->flags & TCP_FIN);
    v->window = r->window;
    if (r->flags & TCP_SYN) {
        v->win_scale = 0;
    } else {
        v->win_scale = s->win_scale[me];
        if (v->win_scale > 0)
            v->window = (uint32_t)r->window * (uint32_t)v->win_scale;
    }
    return true;
}

static bool
same_view(const struct rs_stream_view *a, const struct rs_stream_view *b)
{
    return a->seq == b->seq && a->ack == b->ack && a->nxtseq == b->nxtseq &&
           a->len == b->len && a->window == b->window && a->win_scale == b->win_scale &&
           a->peer_base == b->peer_base;
}

/* Notes in s what sv shows of the side r came from. With all, every value the
 * frame gives; without, only those s does not know yet. */
static void
learn(struct tui_tcp_epoch *s, const struct rs_stream_view *sv, const struct tcp_raw *r,
      bool all)
{
    int me = r->side, peer = !r->side;

    if (all || !(s->known & (KNOWN_BASE << me))) {
        s->base[me] = r->seq - sv->seq;
        s->known |= (uint8_t)(KNOWN_BASE << me);
    }
    if ((r->flags & TCP_ACK) && (all || !(s->known & (KNOWN_BASE << peer)))) {
        s->base[peer] = r->ack - sv->ack;
        s->known |= (uint8_t)(KNOWN_BASE << peer);
    } else if (all && sv->peer_base != 0) {
        s->base[peer] = sv->peer_base;
        s->known |= (uint8_t)(KNOWN_BASE << peer);
    }
    if (!(r->flags & TCP_SYN) && (all || !(s->known & (KNOWN_SCALE << me)))) {
        s->win_scale[me] = sv->win_scale;
        s->known |= (uint8_t)(KNOWN_SCALE << me);
    }
}

/* Grows tcp_latest to hold stream index (NO_EPOCH for the streams it adds); under
 * the lock. NULL when out of memory. */
static uint32_t *
latest_of(struct rs_tui_model *m, uint32_t index)
{
    uint32_t *latest = model_grow_array(m->tcp_latest, &m->cap_tcp_latest, (size_t)index + 1,
                                        sizeof(*latest));
    if (latest == NULL)
        return NULL;
    m->tcp_latest = latest;
    for (; m->n_tcp_latest <= index; m->n_tcp_latest++)
        latest[m->n_tcp_latest] = NO_EPOCH;
    return &latest[index];
}

/* Notes that stream index has had its first frame, which needs no notes. */
static void
mark_first_frame(struct rs_tui_model *m, uint32_t index)
{
    pthread_mutex_lock(&m->mu);
    uint32_t *at = latest_of(m, index);
    if (at != NULL && *at == NO_EPOCH)
        *at = FIRST_FRAME_ONLY;
    pthread_mutex_unlock(&m->mu);
}

/* Stores s as stream index's epoch (a new one when fresh), under the lock. */
static void
store(struct rs_tui_model *m, uint32_t index, const struct tui_tcp_epoch *s, bool fresh)
{
    pthread_mutex_lock(&m->mu);
    uint32_t *at = latest_of(m, index);
    struct tui_tcp_epoch *epochs = model_grow_array(m->tcp_epochs, &m->cap_tcp_epochs,
                                                    m->n_tcp_epochs + 1, sizeof(*epochs));
    if (epochs != NULL)
        m->tcp_epochs = epochs;
    if (at != NULL && epochs != NULL && m->n_tcp_epochs < FIRST_FRAME_ONLY) {
        if (fresh || *at == NO_EPOCH || *at == FIRST_FRAME_ONLY) {
            epochs[m->n_tcp_epochs] = *s;
            *at = (uint32_t)m->n_tcp_epochs++;
        } else {
            epochs[*at] = *s;
        }
    }   /* out of memory: the stream's frames from here on show no numbers */
    pthread_mutex_unlock(&m->mu);
}

void
model_tcp_note(struct rs_tui_model *m, const struct rs_packet *pkt)
{
    const struct rs_stream_view *sv = pkt->stream;
    uint64_t number = pkt->frame->number;
    struct tcp_raw r;
    struct rs_stream_view v;

    if (sv == NULL || !sv->tcp || !raw_of(pkt, &r))
        return;
    /* Only this thread writes the notes: reading them needs no lock here. */
    uint32_t at = sv->index < m->n_tcp_latest ? m->tcp_latest[sv->index] : NO_EPOCH;
    bool first = at == NO_EPOCH;
    if (at == FIRST_FRAME_ONLY)
        at = NO_EPOCH;
    struct tui_tcp_epoch s = {.first = number, .prev = NO_EPOCH};
    if (at != NO_EPOCH)
        s = m->tcp_epochs[at];
    struct tui_tcp_epoch was = s;
    learn(&s, sv, &r, false);
    if (view_of(&s, sv->index, pkt, &r, &v) && same_view(&v, sv)) {
        if (first)
            mark_first_frame(m, sv->index);     /* read back through a stage of its own */
        else if (at == NO_EPOCH || memcmp(&s, &was, sizeof(s)) != 0)
            store(m, sv->index, &s, false);
        return;
    }
    /* The stream starts over: a new epoch from this frame, all of whose values count. */
    s = was;
    s.first = number;
    s.prev = at;
    s.inexact = false;
    learn(&s, sv, &r, true);
    s.inexact = !view_of(&s, sv->index, pkt, &r, &v) || !same_view(&v, sv);
    store(m, sv->index, &s, true);
}

/* The view of a stream's first frame: what a streams stage of its own gives the
 * frame alone, as the ingest's gave it with nothing of its stream before. */
static bool
first_frame_view(uint32_t index, const struct rs_packet *pkt, struct rs_stream_view *out)
{
    struct rs_streams_opts opts;
    struct rs_streams *s;
    struct rs_packet alone = *pkt;
    char err[RS_ERRBUF_SIZE];
    bool have = false;

    rs_streams_opts_init(&opts);
    opts.max_streams = 1;
    opts.max_echoes = 1;
    opts.tcp_only = true;
    if (rs_streams_new(&opts, &s, err) != 0)
        return false;
    rs_streams_process(s, &alone);
    if (alone.stream != NULL && alone.stream->tcp) {
        *out = *alone.stream;
        out->index = index;
        have = true;
    }
    rs_streams_free(s);
    return have;
}

bool
model_tcp_view(struct rs_tui_model *m, uint32_t index, const struct rs_packet *pkt,
               struct rs_stream_view *out)
{
    struct tui_tcp_epoch s;
    struct tcp_raw r;
    bool have = false, known = false;

    if (!raw_of(pkt, &r))
        return false;
    pthread_mutex_lock(&m->mu);
    uint32_t at = index < m->n_tcp_latest ? m->tcp_latest[index] : NO_EPOCH;
    known = at != NO_EPOCH;
    if (at == FIRST_FRAME_ONLY)
        at = NO_EPOCH;
    while (at != NO_EPOCH && m->tcp_epochs[at].first > pkt->frame->number)
        at = m->tcp_epochs[at].prev;
    if (at != NO_EPOCH) {
        s = m->tcp_epochs[at];
        have = true;
    }
    pthread_mutex_unlock(&m->mu);
    /* Before every note of a stream seen: its first frame, which has none. */
    if (!have)
        return known && first_frame_view(index, pkt, out);
    return view_of(&s, index, pkt, &r, out);
}

size_t
rs_tui_model_tcp_notes(struct rs_tui_model *m)
{
    pthread_mutex_lock(&m->mu);
    size_t n = m->n_tcp_epochs;
    pthread_mutex_unlock(&m->mu);
    return n;
}

void
model_tcp_clear(struct rs_tui_model *m)
{
    m->n_tcp_latest = 0;
    m->n_tcp_epochs = 0;
}

void
model_tcp_free(struct rs_tui_model *m)
{
    free(m->tcp_latest);
    free(m->tcp_epochs);
    m->tcp_latest = NULL;
    m->tcp_epochs = NULL;
    m->n_tcp_latest = m->cap_tcp_latest = m->n_tcp_epochs = m->cap_tcp_epochs = 0;
}
