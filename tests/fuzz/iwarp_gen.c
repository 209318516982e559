/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwarp_gen.c - builds the cases of iwarp_fuzz (see iwarp_gen.h).
 *
 * A connection is modelled as the two byte streams its sides send, built
 * first (iwarp_streams.c: MPA exchanges, FPDUs of every opcode, markers,
 * CRCs, and the lies hostile streams tell).
 *
 * The streams are then sent as TCP segments, cut at FPDU boundaries, at
 * random, in slivers of a few octets or in 64 KiB offloads, connections and
 * directions interleaved, and mutated: segments dropped (holes that never
 * fill, with the peer's ACK covering them or not), ACKs of bytes never sent,
 * ranges sent again over what was sent, some with other bytes, segments sent
 * late, segments past the reassembly window or 2^31 away, SYNs that reuse
 * the 4-tuple mid-stream or repeat, snapshot-length cuts, IP lengths that
 * lie, bit flips, FIN and RST, IPv4 fragments. Initial sequence numbers are
 * often just below 2^31 or 2^32, so that streams cross them.
 *
 * A clean case (one in eight) loses nothing and lies nowhere: its segments
 * come in order, or (half of them) late and sent again with the same bytes,
 * the peer's ACKs never running ahead of what was captured. The driver
 * checks that every FPDU built in it was found, whole.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/wire.h>

#include "iwarp_gen_int.h"

static const char *const event_names[GEN_N_EVENTS] = {
    "drop", "ack_unseen", "ack_lie", "retransmit", "retransmit_altered", "reorder", "far",
    "syn_reuse", "syn_again", "snap_cut", "ip_len_lie", "bit_flip", "fin_rst", "fragment",
    "hostile_mpa_len", "hostile_marker", "hostile_ddp", "empty_ddp", "huge_ddp", "garbage",
    "seq_wrap",
};

const char *
gen_event_name(enum gen_event e)
{
    return event_names[e];
}


/* A mutation of a kind, at the connection's rate. */
static bool
mutate(struct gen *g, const struct gconn *c, enum gen_event e)
{
    if (c->rate == 0 || (c->lossless && e != GEN_REORDER && e != GEN_RETRANSMIT) ||
        !chance(&g->r, c->rate))
        return false;
    count(g, e);
    return true;
}

struct seg_spec {
    uint32_t seq, ack;
    uint8_t flags;
    const uint8_t *payload;
    uint32_t n;
    uint32_t caplen;        /* payload octets captured */
    int32_t ip_len_delta;
    bool fragment;
};

static uint32_t
seq_of(const struct gdir *d, uint32_t off)
{
    return d->isn + 1 + (off - d->base);
}

static void
emit(struct gen *g, const struct gconn *c, int side, const struct seg_spec *sp)
{
    struct gen_case *gc = g->gc;
    uint32_t ip_len = c->family == 4 ? 20 : 40, tcp_len = c->options ? 32 : 20;
    uint32_t hdrs = ETH_LEN + ip_len + tcp_len, len = hdrs + sp->n;

    if (gc->n_frames == MAX_FRAMES)
        return;
    if (gc->used + len > gc->cap) {
        gc->cap = gc->cap ? gc->cap : 1 << 20;
        while (gc->used + len > gc->cap)
            gc->cap *= 2;
        gc->bytes = gen_xrealloc(gc->bytes, gc->cap);
    }
    if (gc->n_frames == gc->frames_cap) {
        gc->frames_cap = gc->frames_cap ? 2 * gc->frames_cap : 1024;
        gc->frames = gen_xrealloc(gc->frames, gc->frames_cap * sizeof(*gc->frames));
    }
    uint8_t *p = gc->bytes + gc->used;
    memset(p, 0, hdrs);
    p[0] = p[6] = 0x02;
    p[5] = (uint8_t)(1 + !side);
    p[11] = (uint8_t)(1 + side);
    uint8_t *ip = p + ETH_LEN;
    int32_t l3 = (int32_t)(tcp_len + sp->n) + sp->ip_len_delta;
    if (c->family == 4) {
        rs_store_be16(p + 12, 0x0800);
        l3 += 20;
        ip[0] = 0x45;
        rs_store_be16(ip + 2, (uint16_t)(l3 < 0 ? 0 : l3 > 65535 ? 65535 : l3));
        rs_store_be16(ip + 6, sp->fragment ? 0x2000 : 0x4000);
        ip[8] = 64;
        ip[9] = 6;
        memcpy(ip + 12, c->addr[side], 4);
        memcpy(ip + 16, c->addr[!side], 4);
    } else {
        rs_store_be16(p + 12, 0x86dd);
        ip[0] = 0x60;
        rs_store_be16(ip + 4, (uint16_t)(l3 < 0 ? 0 : l3 > 65535 ? 65535 : l3));
        ip[6] = 6;
        ip[7] = 64;
        memcpy(ip + 8, c->addr[side], 16);
        memcpy(ip + 24, c->addr[!side], 16);
    }
    uint8_t *t = ip + ip_len;
    rs_store_be16(t, c->port[side]);
    rs_store_be16(t + 2, c->port[!side]);
    rs_store_be32(t + 4, sp->seq);
    rs_store_be32(t + 8, sp->ack);
    t[12] = (uint8_t)((tcp_len / 4) << 4);
    t[13] = sp->flags;
    rs_store_be16(t + 14, 65000);
    if (c->options) {
        memcpy(t + 20, "\x01\x01\x08\x0a", 4);
        rs_store_be32(t + 24, (uint32_t)(g->ts_ns / 1000000));
    }
    if (sp->n > 0)
        memcpy(t + tcp_len, sp->payload, sp->n);
    struct gen_frame *f = &gc->frames[gc->n_frames++];
    f->off = gc->used;
    f->len = len;
    f->caplen = hdrs + (sp->caplen < sp->n ? sp->caplen : sp->n);
    /* Time goes forward, now and then a little back (merged captures). */
    g->ts_ns += chance(&g->r, 10) ? 0 : below(&g->r, 200) * 1000ull;
    if (chance(&g->r, 5))
        g->ts_ns -= below(&g->r, 1000) * 1000ull;
    f->ts_ns = g->ts_ns;
    gc->used += len;
}

/* The ACK a segment of `side` carries: what the peer sent, as the mode has it. */
static uint32_t
ack_for(struct gen *g, const struct gconn *c, int side)
{
    const struct gdir *o = &c->d[!side];

    switch (c->ack_mode) {
    case ACK_FROZEN:
        return seq_of(o, o->base);
    case ACK_LIES:
        if (chance(&g->r, 300)) {
            count(g, GEN_ACK_LIE);
            return seq_of(o, o->next) + (chance(&g->r, 500) ? below(&g->r, 300000)
                                                             : (uint32_t)rng_next(&g->r));
        }
        return seq_of(o, o->next);
    default:
        return seq_of(o, o->next);
    }
}

static void
control(struct gen *g, const struct gconn *c, int side, uint32_t seq, uint32_t ack, uint8_t flags)
{
    struct seg_spec sp = {.seq = seq, .ack = ack, .flags = flags};

    emit(g, c, side, &sp);
}

/* Stream bytes [off, off + n) of `side`, maybe mutated on the way. */
static void
send_range(struct gen *g, struct gconn *c, int side, uint32_t off, uint32_t n, bool alter)
{
    struct gdir *d = &c->d[side];
    struct seg_spec sp = {.seq = seq_of(d, off), .ack = ack_for(g, c, side),
                          .flags = TCP_ACK | TCP_PSH, .payload = d->s.b + off, .n = n,
                          .caplen = n};

    if (alter || mutate(g, c, GEN_BIT_FLIP)) {
        memcpy(g->seg, sp.payload, n);
        for (unsigned k = 1 + below(&g->r, 8); n > 0 && k > 0; k--)
            g->seg[below(&g->r, n)] ^= (uint8_t)(1 + below(&g->r, 255));
        sp.payload = g->seg;
    }
    if (mutate(g, c, GEN_SNAP_CUT))
        sp.caplen = below(&g->r, n + 1);
    if (mutate(g, c, GEN_IP_LEN_LIE))
        sp.ip_len_delta = (int32_t)below(&g->r, 3000) - 1500;
    if (mutate(g, c, GEN_FIN_RST))
        sp.flags |= chance(&g->r, 500) ? TCP_FIN : TCP_RST;
    if (c->family == 4 && mutate(g, c, GEN_FRAGMENT))
        sp.fragment = true;
    emit(g, c, side, &sp);
}

/* A segment past the reassembly window, or 2^31 or 2^32 away. */
static void
send_far(struct gen *g, struct gconn *c, int side)
{
    const struct gdir *d = &c->d[side];
    uint32_t window = g->gc->iwarp.max_buffer, n = 1 + below(&g->r, 1460), delta;

    switch (below(&g->r, 6)) {
    case 0:
        delta = window + below(&g->r, 3000);
        break;
    case 1:
        delta = 0x80000000u;
        break;
    case 2:
        delta = 0x80000000u - 1 - below(&g->r, 16);
        break;
    case 3:
        delta = 0x80000000u + below(&g->r, 16);
        break;
    case 4:
        delta = window - below(&g->r, 3000);
        break;
    default:
        delta = 0u - 1 - below(&g->r, 3000);
        break;
    }
    gen_fill_random(g, g->seg, n);
    struct seg_spec sp = {.seq = seq_of(d, d->next) + delta, .ack = ack_for(g, c, side),
                          .flags = TCP_ACK | TCP_PSH, .payload = g->seg, .n = n, .caplen = n};
    emit(g, c, side, &sp);
}

/* A new connection on the same 4-tuple: SYN, SYN-ACK and ACK with new
 * sequence numbers; the rest of both streams is what it carries. */
static void
syn_reuse(struct gen *g, struct gconn *c, int side)
{
    struct gdir *a = &c->d[side], *b = &c->d[!side];

    a->isn = gen_pick_isn(g);
    b->isn = gen_pick_isn(g);
    a->base = a->next;
    b->base = b->next;
    control(g, c, side, a->isn, 0, TCP_SYN);
    control(g, c, !side, b->isn, a->isn + 1, TCP_SYN | TCP_ACK);
    control(g, c, side, a->isn + 1, b->isn + 1, TCP_ACK);
    g->gc->streams++;
}

/* How much of the stream the next segment of d carries. */
static uint32_t
seg_len(struct gen *g, struct gdir *d)
{
    uint32_t rest = d->s.len - d->next, n;
    uint8_t cut = d->cut == CUT_MIXED ? (uint8_t)below(&g->r, 4) : d->cut;

    switch (cut) {
    case CUT_ALIGNED:
        /* Up to the start of one of the next few FPDUs. */
        while (d->next_start < d->n_starts && d->starts[d->next_start] <= d->next)
            d->next_start++;
        n = d->next_start < d->n_starts ? d->starts[d->next_start] - d->next : rest;
        for (unsigned k = below(&g->r, 3); k > 0 && d->next_start + k < d->n_starts; k--)
            if (d->starts[d->next_start + k] - d->next <= 9000)
                n = d->starts[d->next_start + k] - d->next;
        break;
    case CUT_MTU:
        n = 1 + below(&g->r, 1460);
        break;
    case CUT_TINY:
        n = 1 + below(&g->r, 16);
        break;
    default:
        n = 1 + below(&g->r, MAX_PAYLOAD);
        break;
    }
    n = n < rest ? n : rest;
    return n < MAX_PAYLOAD ? n : MAX_PAYLOAD;
}

static bool
push_pending(struct gen *g, struct gconn *c, int side, uint32_t off, uint32_t n, bool alter)
{
    if (c->n_pend == MAX_PENDING || n == 0)
        return false;
    struct pending *p = &c->pend[c->n_pend++];
    p->side = (uint8_t)side;
    p->off = off;
    p->n = n;
    p->alter = alter;
    p->delay = (uint16_t)(1 + below(&g->r, 6));
    return true;
}

static void
send_pending(struct gen *g, struct gconn *c, unsigned i)
{
    struct pending p = c->pend[i];

    memmove(c->pend + i, c->pend + i + 1, (c->n_pend - i - 1) * sizeof(c->pend[0]));
    c->n_pend--;
    send_range(g, c, p.side, p.off, p.n, p.alter);
}

/* Whether `side` may send its next bytes: peers send the Request, the Reply,
 * then FPDUs; a connection that is not strict ignores that now and then. */
static bool
may_send(struct gen *g, const struct gconn *c, int side)
{
    const struct gdir *d = &c->d[side];

    if (d->next >= d->s.len)
        return false;
    if (c->initiator < 0 || (!c->strict && chance(&g->r, 300)))
        return true;
    const struct gdir *ini = &c->d[c->initiator], *res = &c->d[!c->initiator];
    if (side != c->initiator)
        return ini->next >= ini->frame_end;
    return d->next < ini->frame_end || res->next >= res->frame_end;
}

/* One segment of the connection (or a late one), with its mutations. */
static void
step(struct gen *g, struct gconn *c)
{
    for (unsigned i = 0; i < c->n_pend; i++) {
        if (--c->pend[i].delay == 0) {
            send_pending(g, c, i);
            return;
        }
    }
    int side = (int)below(&g->r, 2);
    if (!may_send(g, c, side))
        side = !side;
    if (!may_send(g, c, side)) {
        if (c->n_pend > 0)
            send_pending(g, c, 0);
        else
            c->done = c->d[0].next >= c->d[0].s.len && c->d[1].next >= c->d[1].s.len;
        return;
    }
    struct gdir *d = &c->d[side];
    uint32_t off = d->next, n = seg_len(g, d);
    /* An initiator sends no FPDU before the Reply came (RFC 5044 7.1.2). */
    const struct gdir *peer = &c->d[!side];
    if (c->strict && side == c->initiator && off < d->frame_end && peer->next < peer->frame_end)
        n = n < d->frame_end - off ? n : d->frame_end - off;
    d->next += n;
    if (mutate(g, c, GEN_DROP)) {
        if (c->ack_mode == ACK_HONEST && chance(&g->r, 500))
            count(g, GEN_ACK_UNSEEN);
    } else if ((off >= d->frame_end || !c->lossless) && mutate(g, c, GEN_REORDER)) {
        /* Late (an MPA frame is not, in a lossless case: it says how to read the rest). */
        if (!push_pending(g, c, side, off, n, false))
            send_range(g, c, side, off, n, false);
    } else {
        send_range(g, c, side, off, n, false);
    }
    if (mutate(g, c, GEN_RETRANSMIT)) {
        /* Over what was sent: from a little before, to a little after. */
        uint32_t back = below(&g->r, (off - d->base < 3000 ? off - d->base : 3000) + 1);
        uint32_t o = off - back, m = back + n + below(&g->r, 3000);
        m = m < d->s.len - o ? m : d->s.len - o;
        bool alter = !c->lossless && chance(&g->r, 500);
        if (alter)
            count(g, GEN_RETRANSMIT_ALTERED);
        push_pending(g, c, side, o, m < MAX_PAYLOAD ? m : MAX_PAYLOAD, alter);
    }
    if (mutate(g, c, GEN_FAR))
        send_far(g, c, side);
    if (mutate(g, c, GEN_SYN_REUSE))
        syn_reuse(g, c, side);
    else if (mutate(g, c, GEN_SYN_AGAIN))
        control(g, c, side, d->isn, 0, TCP_SYN);
    /* The peer's pure ACK: after a drop it acknowledges bytes never captured. */
    if (chance(&g->r, 150))
        control(g, c, !side, seq_of(&c->d[!side], c->d[!side].next), ack_for(g, c, !side),
                TCP_ACK);
}

static void
case_options(struct gen *g, bool clean)
{
    struct gen_case *gc = g->gc;

    rs_iwarp_opts_init(&gc->iwarp);
    rs_decode_opts_init(&gc->decode);
    if (!clean) {
        /* Small bounds now and then, so that limits and eviction are hit. */
        if (chance(&g->r, 300))
            gc->iwarp.max_buffer = MIN_WINDOW;
        if (chance(&g->r, 150))
            gc->iwarp.max_memory = gc->iwarp.max_buffer * (1 + below(&g->r, 4));
        if (chance(&g->r, 200))
            gc->iwarp.max_conns = 1 + below(&g->r, 3);
        gc->iwarp.heuristics = chance(&g->r, 850);
    }
    gc->decode.verify_crc = chance(&g->r, 800);
    if (chance(&g->r, 150)) {
        gc->decode.n_iwarp_ports = 1;
        gc->decode.iwarp_ports[0] = 9999;
    }
    /* As read sets them from its decoding options. */
    gc->iwarp.verify_crc = gc->decode.verify_crc;
    gc->iwarp.n_ports = gc->decode.n_iwarp_ports;
    memcpy(gc->iwarp.ports, gc->decode.iwarp_ports, sizeof(gc->iwarp.ports));
    gc->analysis = chance(&g->r, 800);
}

static void
conn_free(struct gconn *c)
{
    for (int s = 0; s < 2; s++) {
        free(c->d[s].s.b);
        free(c->d[s].starts);
    }
}

void
gen_case_build(struct gen_case *gc, uint64_t seed, uint64_t index)
{
    static struct gen g;

    memset(&g, 0, offsetof(struct gen, seg));
    g.r.s = seed * 0x2545f4914f6cdd1dull + index;
    (void)rng_next(&g.r);
    g.gc = gc;
    gc->used = gc->n_frames = 0;
    gc->streams = 0;
    gc->fpdus = 0;
    memset(gc->events, 0, sizeof(gc->events));
    gc->clean = chance(&g.r, 125);
    g.hostile = !gc->clean && chance(&g.r, 600);
    case_options(&g, gc->clean);
    g.ts_ns = 1700000000ull * 1000000000 + below(&g.r, 1000000) * 1000ull;
    g.n_conns = 1 + below(&g.r, MAX_CONNS);
    for (unsigned i = 0; i < g.n_conns; i++) {
        struct gconn *c = &g.c[i];
        gen_build_conn(&g, c, i, gc->clean);
        if (chance(&g.r, 700)) {
            const struct gdir *a = &c->d[0], *b = &c->d[1];
            control(&g, c, 0, a->isn, 0, TCP_SYN);
            control(&g, c, 1, b->isn, a->isn + 1, TCP_SYN | TCP_ACK);
            control(&g, c, 0, a->isn + 1, b->isn + 1, TCP_ACK);
        }
    }
    for (unsigned live = g.n_conns; live > 0 && gc->n_frames < MAX_FRAMES;) {
        struct gconn *c = &g.c[below(&g.r, g.n_conns)];
        if (c->done)
            continue;
        step(&g, c);
        if (c->done) {
            live--;
            for (int s = 0; s < 2; s++)
                if (chance(&g.r, 300))
                    control(&g, c, s, seq_of(&c->d[s], c->d[s].next),
                            seq_of(&c->d[!s], c->d[!s].next), TCP_FIN | TCP_ACK);
        }
    }
    if (gc->n_frames == MAX_FRAMES)
        gc->clean = false;      /* cut short: not every FPDU was sent */
    for (unsigned i = 0; i < g.n_conns; i++)
        conn_free(&g.c[i]);
}

void
gen_case_free(struct gen_case *gc)
{
    free(gc->bytes);
    free(gc->frames);
    memset(gc, 0, sizeof(*gc));
}
