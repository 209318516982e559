/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwarp_streams.c - what the two sides of a connection of an iwarp_fuzz
 * case send (see iwarp_gen.h), built before any of it is sent: an MPA
 * Request and Reply (markers and CRCs each way as the flags settle them,
 * revisions 1 and 2, private data), then messages of every RDMAP opcode as
 * FPDUs, with markers every 512 octets from the first FPDU and CRC-32C; or
 * FPDUs with no exchange (a capture that starts mid-connection); or bytes
 * that are no iWARP at all. Hostile streams lie in ULPDU_Length, PD_Length,
 * marker pointers and DDP control bits, carry empty and enormous DDP
 * segments, and garbage between FPDUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/crc.h>
#include <roceshark/dissectors/wire.h>

#include "iwarp_gen_int.h"

void *
gen_xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (p == NULL) {
        fputs("iwarp_fuzz: out of memory\n", stderr);
        abort();
    }
    return p;
}

static void
put(struct bytes *s, const void *p, uint32_t n)
{
    if (s->len + n > s->cap) {
        s->cap = s->cap ? s->cap : 4096;
        while (s->len + n > s->cap)
            s->cap *= 2;
        s->b = gen_xrealloc(s->b, s->cap);
    }
    if (n > 0)
        memcpy(s->b + s->len, p, n);
    s->len += n;
}

static void
put_random(struct gen *g, struct bytes *s, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint8_t b = (uint8_t)rng_next(&g->r);
        put(s, &b, 1);
    }
}

void
gen_fill_random(struct gen *g, uint8_t *p, uint32_t n)
{
    uint32_t i = 0;

    for (; i + 8 <= n; i += 8) {
        uint64_t v = rng_next(&g->r);
        memcpy(p + i, &v, 8);
    }
    for (; i < n; i++)
        p[i] = (uint8_t)rng_next(&g->r);
}

static void
note_start(struct gdir *d)
{
    if (d->n_starts == d->starts_cap) {
        d->starts_cap = d->starts_cap ? 2 * d->starts_cap : 64;
        d->starts = gen_xrealloc(d->starts, d->starts_cap * sizeof(*d->starts));
    }
    d->starts[d->n_starts++] = d->s.len;
}

static bool
marker_due(const struct gdir *d)
{
    return d->markers && ((d->s.len - d->marker_base) & (MARKER_INTERVAL - 1)) == 0;
}

/* A marker: reserved zero, FPDUPTR back to the FPDU's first octet. */
static void
put_marker(struct gen *g, struct gdir *d, uint32_t fpdu_start)
{
    uint8_t m[4] = {0, 0, 0, 0};
    uint16_t ptr = (uint16_t)(d->s.len - fpdu_start);

    if (g->hostile && chance(&g->r, 30)) {
        count(g, GEN_HOSTILE_MARKER);
        if (chance(&g->r, 500))
            ptr = (uint16_t)rng_next(&g->r);
        else
            m[below(&g->r, 2)] = (uint8_t)(1 + below(&g->r, 255));
    }
    rs_store_be16(m + 2, ptr);
    put(&d->s, m, 4);
}

/* Bytes of an FPDU, with a marker wherever one is due. */
static void
put_plain(struct gen *g, struct gdir *d, uint32_t fpdu_start, const uint8_t *p, uint32_t n)
{
    while (n > 0) {
        if (marker_due(d))
            put_marker(g, d, fpdu_start);
        uint32_t k = n;
        if (d->markers) {
            uint32_t to = MARKER_INTERVAL - ((d->s.len - d->marker_base) & (MARKER_INTERVAL - 1));
            k = k < to ? k : to;
        }
        put(&d->s, p, k);
        p += k;
        n -= k;
    }
}

static void
put_fpdu(struct gen *g, struct gdir *d, const uint8_t *u, uint32_t ulen)
{
    static const uint8_t zero[4];
    uint32_t start = d->s.len, pad = (4 - (ulen + 2) % 4) % 4;
    uint16_t declared = (uint16_t)ulen;
    uint8_t h[4];

    if (g->hostile && chance(&g->r, 20)) {
        count(g, GEN_HOSTILE_MPA_LEN);
        declared = chance(&g->r, 500) ? (uint16_t)rng_next(&g->r)
                                       : (uint16_t)(ulen + below(&g->r, 9) - 4);
    }
    note_start(d);
    rs_store_be16(h, declared);
    put_plain(g, d, start, h, 2);
    put_plain(g, d, start, u, ulen);
    put_plain(g, d, start, zero, pad);
    if (marker_due(d))
        put_marker(g, d, start);
    uint32_t crc = d->crc ? rs_crc32c(d->s.b + start, d->s.len - start) : 0;
    if (g->hostile && chance(&g->r, 30))
        crc ^= 1u << below(&g->r, 32);
    rs_store_le32(h, crc);
    put(&d->s, h, 4);
    g->gc->fpdus++;
}

static bool
is_tagged(uint8_t op)
{
    return op == RS_RDMAP_WRITE || op == RS_RDMAP_READ_RESPONSE;
}

static bool
is_single(uint8_t op)
{
    return op == RS_RDMAP_READ_REQUEST || op >= RS_RDMAP_TERMINATE;
}

static uint32_t
queue_of(uint8_t op)
{
    if (op == RS_RDMAP_READ_REQUEST)
        return 1;
    if (op == RS_RDMAP_TERMINATE)
        return 2;
    return op >= RS_RDMAP_ATOMIC_REQUEST ? 3 : 0;
}

/* The RDMAP header after the DDP header of an untagged opcode. */
static uint32_t
rdmap_hdr_len(uint8_t op)
{
    switch (op) {
    case RS_RDMAP_READ_REQUEST:
        return RS_RDMAP_READ_REQ_LEN;
    case RS_RDMAP_TERMINATE:
        return 4;
    case RS_RDMAP_IMMEDIATE:
    case RS_RDMAP_IMMEDIATE_SE:
        return RS_RDMAP_IMMEDIATE_LEN;
    case RS_RDMAP_ATOMIC_REQUEST:
        return RS_RDMAP_ATOMIC_REQ_LEN;
    case RS_RDMAP_ATOMIC_RESPONSE:
        return RS_RDMAP_ATOMIC_RESP_LEN;
    default:
        return 0;
    }
}

/* A DDP segment of opcode op into g->ulpdu; returns its length. */
static uint32_t
make_ulpdu(struct gen *g, uint8_t op, bool last, uint32_t msn, uint32_t mo, uint64_t to,
           uint32_t stag, uint32_t payload)
{
    uint8_t *u = g->ulpdu;
    uint32_t n;

    u[0] = (uint8_t)((is_tagged(op) ? 0x80 : 0) | (last ? 0x40 : 0) | 0x01);
    u[1] = (uint8_t)(0x40 | op);
    if (is_tagged(op)) {
        rs_store_be32(u + 2, stag);
        rs_store_be64(u + 6, to);
        n = RS_DDP_TAGGED_HDR_LEN;
    } else {
        bool inval = op == RS_RDMAP_SEND_INVALIDATE || op == RS_RDMAP_SEND_SE_INVALIDATE;
        rs_store_be32(u + 2, inval ? stag : 0);
        rs_store_be32(u + 6, queue_of(op));
        rs_store_be32(u + 10, msn);
        rs_store_be32(u + 14, mo);
        n = RS_DDP_UNTAGGED_HDR_LEN;
        gen_fill_random(g, u + n, rdmap_hdr_len(op));
        n += rdmap_hdr_len(op);
    }
    if (payload > 65535 - n)
        payload = 65535 - n;
    gen_fill_random(g, u + n, payload);
    if (payload == 0)
        count(g, GEN_EMPTY_DDP);
    else if (payload >= 32768)
        count(g, GEN_HUGE_DDP);
    if (g->hostile && chance(&g->r, 20)) {
        count(g, GEN_HOSTILE_DDP);
        u[below(&g->r, 2)] ^= (uint8_t)(1u << below(&g->r, 8));
    }
    return n + payload;
}

/* Payload of one DDP segment: empty, small, a segment's worth, or huge. */
static uint32_t
pick_payload(struct gen *g, uint32_t room)
{
    uint32_t n;

    switch (below(&g->r, 10)) {
    case 0:
        n = 0;
        break;
    case 1: case 2: case 3: case 4:
        n = 1 + below(&g->r, 64);
        break;
    case 5: case 6: case 7: case 8:
        n = below(&g->r, 1460);
        break;
    default:
        n = below(&g->r, 65536);
        break;
    }
    return n < room ? n : room;
}

/* One RDMAP message, as one FPDU or several. */
static void
put_message(struct gen *g, struct gdir *d, uint32_t room)
{
    static const uint8_t ops[] = {
        RS_RDMAP_WRITE, RS_RDMAP_WRITE, RS_RDMAP_SEND, RS_RDMAP_SEND, RS_RDMAP_READ_RESPONSE,
        RS_RDMAP_READ_REQUEST, RS_RDMAP_SEND_INVALIDATE, RS_RDMAP_SEND_SE,
        RS_RDMAP_SEND_SE_INVALIDATE, RS_RDMAP_TERMINATE, RS_RDMAP_IMMEDIATE,
        RS_RDMAP_IMMEDIATE_SE, RS_RDMAP_ATOMIC_REQUEST, RS_RDMAP_ATOMIC_RESPONSE,
    };
    uint8_t op = ops[below(&g->r, sizeof(ops))];
    unsigned frags = is_single(op) ? 1 : 1 + (chance(&g->r, 300) ? below(&g->r, 6) : 0);
    uint32_t msn = is_tagged(op) ? 0 : d->msn[queue_of(op)]++, mo = 0;
    uint32_t stag = (uint32_t)rng_next(&g->r);
    uint64_t to = rng_next(&g->r);
    /* A Send of empty FPDUs only, now and then (ddp.c once copied from NULL). */
    bool empty = !is_tagged(op) && !is_single(op) && chance(&g->r, 50);

    for (unsigned i = 0; i < frags; i++) {
        uint32_t pay = is_single(op) || empty ? 0 : pick_payload(g, room);
        uint32_t n = make_ulpdu(g, op, i + 1 == frags, msn, mo, to, stag, pay);
        put_fpdu(g, d, g->ulpdu, n);
        mo += pay;
        to += pay;
        room = room > n ? room - n : 0;
    }
}

static void
put_mpa_frame(struct gen *g, struct gdir *d, bool req, uint8_t flags, uint8_t rev)
{
    uint8_t f[RS_MPA_FRAME_HDR_LEN + 1024];
    uint32_t pd = 0;

    memcpy(f, req ? "MPA ID Req Frame" : "MPA ID Rep Frame", RS_MPA_KEY_LEN);
    f[16] = flags;
    f[17] = rev;
    if (rev == 2 && (flags & RS_MPA_FLAG_ENHANCED))
        pd = 4 + below(&g->r, 60);
    else if (chance(&g->r, 300))
        pd = below(&g->r, 100);
    uint16_t declared = (uint16_t)pd;
    if (g->hostile && chance(&g->r, 80)) {
        count(g, GEN_HOSTILE_MPA_LEN);
        if (chance(&g->r, 500))
            pd = RS_MPA_MAX_PD_LEN + 1 + below(&g->r, 400);   /* over the limit, all there */
        declared = (uint16_t)(chance(&g->r, 500) ? pd : pd + 1 + below(&g->r, 3000));
    }
    gen_fill_random(g, f + RS_MPA_FRAME_HDR_LEN, pd);
    rs_store_be16(f + 18, declared);
    note_start(d);
    put(&d->s, f, RS_MPA_FRAME_HDR_LEN + pd);
    d->frame_end = d->s.len;
}

/* Initial sequence numbers: anywhere, and often just below 2^31 or 2^32. */
uint32_t
gen_pick_isn(struct gen *g)
{
    switch (below(&g->r, 6)) {
    case 0:
        return 0xffffffffu - below(&g->r, 4096);
    case 1:
        return 0x7fffffffu - below(&g->r, 4096);
    case 2:
        return below(&g->r, 2) ? 0xffffffffu : 0x7fffffffu;
    default:
        return (uint32_t)rng_next(&g->r);
    }
}

static void
fill_stream(struct gen *g, struct gdir *d, enum kind kind, uint32_t target)
{
    if (kind == K_PLAIN) {
        put_random(g, &d->s, target);
        return;
    }
    while (d->s.len < target) {
        if (g->hostile && chance(&g->r, 30)) {
            count(g, GEN_GARBAGE);
            put_random(g, &d->s, 1 + below(&g->r, 40));
        } else {
            put_message(g, d, target - d->s.len);
        }
    }
}

static uint32_t
pick_size(struct gen *g)
{
    uint32_t r = below(&g->r, 100);

    if (r < 70)
        return below(&g->r, 4096);
    if (r < 95)
        return below(&g->r, 64 * 1024);
    return 64 * 1024 + below(&g->r, 512 * 1024);
}

void
gen_build_conn(struct gen *g, struct gconn *c, unsigned idx, bool clean)
{
    static const uint16_t ports[] = {9999, 443, 4420, 20049};
    uint32_t r = below(&g->r, 100);
    enum kind kind = clean || r < 55 ? K_EXCHANGE : r < 85 ? K_NO_EXCHANGE : K_PLAIN;

    c->family = chance(&g->r, 200) ? 6 : 4;
    for (int s = 0; s < 2; s++) {
        memset(c->addr[s], 0, 16);
        if (c->family == 4) {
            uint8_t a[4] = {10, (uint8_t)idx, 0, (uint8_t)(1 + s)};
            memcpy(c->addr[s], a, 4);
        } else {
            c->addr[s][0] = 0xfd;
            c->addr[s][14] = (uint8_t)idx;
            c->addr[s][15] = (uint8_t)(1 + s);
        }
    }
    c->port[0] = (uint16_t)(32768 + below(&g->r, 28000));
    c->port[1] = chance(&g->r, 800) ? ports[below(&g->r, 4)] : (uint16_t)below(&g->r, 65536);
    c->options = chance(&g->r, 300);
    c->initiator = kind == K_EXCHANGE ? 0 : -1;
    if (kind == K_EXCHANGE) {
        uint8_t rev = chance(&g->r, 500) ? 1 : 2;
        uint8_t req = (uint8_t)((chance(&g->r, 500) ? RS_MPA_FLAG_MARKERS : 0) |
                                (chance(&g->r, 600) ? RS_MPA_FLAG_CRC : 0) |
                                (rev == 2 && chance(&g->r, 500) ? RS_MPA_FLAG_ENHANCED : 0));
        uint8_t rep = (uint8_t)((chance(&g->r, 500) ? RS_MPA_FLAG_MARKERS : 0) |
                                (req & (RS_MPA_FLAG_CRC | RS_MPA_FLAG_ENHANCED)));
        if (g->hostile && chance(&g->r, 50))
            rep ^= chance(&g->r, 500) ? RS_MPA_FLAG_REJECT : RS_MPA_FLAG_CRC;
        put_mpa_frame(g, &c->d[0], true, req, rev);
        put_mpa_frame(g, &c->d[1], false, rep, rev);
        c->d[1].markers = (req & RS_MPA_FLAG_MARKERS) != 0;
        c->d[0].markers = (rep & RS_MPA_FLAG_MARKERS) != 0;
        c->d[0].crc = c->d[1].crc = ((req | rep) & RS_MPA_FLAG_CRC) != 0;
    } else {
        for (int s = 0; s < 2; s++) {
            c->d[s].markers = chance(&g->r, 300);
            c->d[s].crc = chance(&g->r, 600);
        }
    }
    for (int s = 0; s < 2; s++) {
        struct gdir *d = &c->d[s];
        d->marker_base = d->s.len;
        fill_stream(g, d, kind, d->s.len + pick_size(g));
        d->isn = gen_pick_isn(g);
        if (d->isn + 1 + d->s.len < d->isn + 1)
            count(g, GEN_SEQ_WRAP);
        else if ((int32_t)(d->isn + 1 + d->s.len) < 0 && (int32_t)(d->isn + 1) >= 0)
            count(g, GEN_SEQ_WRAP);
        d->cut = (uint8_t)below(&g->r, 5);
        if (d->cut == CUT_TINY && d->s.len > 8192)
            d->cut = CUT_MTU;
        /* No exchange: the capture starts somewhere in the stream. */
        if (kind == K_NO_EXCHANGE && d->s.len > 0 && chance(&g->r, 500))
            d->next = d->base = below(&g->r, d->s.len < 3000 ? d->s.len : 3000);
    }
    c->strict = clean || chance(&g->r, 900);
    c->ack_mode = clean ? ACK_HONEST : (uint8_t)(chance(&g->r, 600) ? ACK_HONEST
                                                 : chance(&g->r, 500) ? ACK_FROZEN : ACK_LIES);
    static const unsigned rates[] = {5, 20, 60, 150};
    c->rate = rates[below(&g->r, 4)];
    if (clean) {
        /* In order, or late and repeated: an honest ACK would then cover
         * bytes not captured yet, so the peer's ACK stays where it was. */
        c->lossless = chance(&g->r, 500);
        c->rate = c->lossless ? c->rate : 0;
        c->ack_mode = c->lossless ? ACK_FROZEN : ACK_HONEST;
    }
    g->gc->streams++;
}
