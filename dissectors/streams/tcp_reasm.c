/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcp_reasm.c - the bytes of an HTTP message or TLS record over TCP segments, kept from
 * its first segment to the one that completes it (tcp_reasm_int.h): what tshark shows on
 * that segment as "[N Reassembled TCP Segments (L bytes): #a(n), ...]" and dumps with -x
 * as "Reassembled TCP (L bytes)". Each message is one allocation of its whole length,
 * known from its first segment (an HTTP message's headers and Content-Length, a TLS
 * record's header), so a segment in order allocates nothing but, now and then, a longer
 * list of segments. A completed message lives until the next frame, then is given back.
 */
#include <stdlib.h>
#include <string.h>

#include "streams/tcp_reasm_int.h"

#define FIRST_SEGMENTS 8u

struct tcp_msg {
    uint32_t len, have;         /* the message's bytes, and those seen */
    uint32_t n, cap;            /* segments listed, room for */
    uint32_t *frames;           /* cap frame numbers, then cap lengths */
    uint8_t data[];
};

static uint64_t
msg_cost(uint32_t len, uint32_t cap)
{
    return sizeof(struct tcp_msg) + (uint64_t)len + 2ull * sizeof(uint32_t) * cap;
}

void
tcp_reasm_init(struct tcp_reasm *r, uint32_t max_msg, uint64_t max_memory)
{
    memset(r, 0, sizeof(*r));
    r->max_msg = max_msg;
    r->max_memory = max_memory;
}

void
tcp_msg_free(struct tcp_reasm *r, struct tcp_msg *m)
{
    if (m == NULL)
        return;
    r->memory -= msg_cost(m->len, m->cap);
    free(m->frames);
    free(m);
}

void
tcp_reasm_next(struct tcp_reasm *r)
{
    if (r->done != NULL) {
        tcp_msg_free(r, r->done);
        r->done = NULL;
    }
}

void
tcp_reasm_free(struct tcp_reasm *r)
{
    tcp_reasm_next(r);
}

/* Room for cap segments in m's list, charged to the bound. */
static bool
grow(struct tcp_reasm *r, struct tcp_msg *m, uint32_t cap)
{
    uint64_t more = msg_cost(m->len, cap) - msg_cost(m->len, m->cap);

    if (r->memory + more > r->max_memory)
        return false;
    uint32_t *list = malloc(2ull * sizeof(uint32_t) * cap);
    if (list == NULL)
        return false;
    if (m->n > 0) {
        memcpy(list, m->frames, m->n * sizeof(uint32_t));
        memcpy(list + cap, m->frames + m->cap, m->n * sizeof(uint32_t));
    }
    free(m->frames);
    m->frames = list;
    m->cap = cap;
    r->memory += more;
    if (r->memory > r->peak)
        r->peak = r->memory;
    return true;
}

static void
append(struct tcp_msg *m, uint64_t frame, const uint8_t *d, uint32_t n)
{
    memcpy(m->data + m->have, d, n);
    m->have += n;
    m->frames[m->n] = frame > UINT32_MAX ? UINT32_MAX : (uint32_t)frame;
    m->frames[m->cap + m->n] = n;
    m->n++;
}

struct tcp_msg *
tcp_msg_start(struct tcp_reasm *r, uint32_t len, uint64_t frame, const uint8_t *d, uint32_t n)
{
    if (len > r->max_msg || n > len || r->memory + msg_cost(len, FIRST_SEGMENTS) > r->max_memory) {
        r->unkept++;
        return NULL;
    }
    struct tcp_msg *m = malloc(sizeof(*m) + len);
    if (m == NULL) {
        r->unkept++;
        return NULL;
    }
    *m = (struct tcp_msg){.len = len};
    r->memory += msg_cost(len, 0);
    if (!grow(r, m, FIRST_SEGMENTS)) {
        tcp_msg_free(r, m);
        r->unkept++;
        return NULL;
    }
    append(m, frame, d, n);
    return m;
}

bool
tcp_msg_add(struct tcp_reasm *r, struct tcp_msg **mp, uint64_t frame, const uint8_t *d,
            uint32_t n)
{
    struct tcp_msg *m = *mp;

    if (n > m->len - m->have || (m->n == m->cap && (m->cap > UINT32_MAX / 4 ||
                                                    !grow(r, m, m->cap * 2)))) {
        tcp_msg_free(r, m);
        *mp = NULL;
        r->unkept++;
        return false;
    }
    append(m, frame, d, n);
    return true;
}

const struct rs_tcp_reasm *
tcp_msg_complete(struct tcp_reasm *r, struct tcp_msg *m)
{
    tcp_reasm_next(r);
    r->done = m;
    r->view = (struct rs_tcp_reasm){m->have, m->n, m->frames, m->frames + m->cap, m->data};
    return &r->view;
}
