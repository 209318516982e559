/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conv_side.c - the parts of a conversation that most conversations never
 * use: its response stream and its CE marks (struct conv_side).
 *
 * A conversation gets them at its first response or CE mark, and gives them
 * back when its memory is recycled for another. They come from chunks that
 * live as long as the analyzer, and a free list, so that a table at its bound
 * allocates nothing for them either.
 */
#include "analyzer_int.h"

/* The first chunk is small, for a capture of few conversations; the others are a huge
 * page each, zeroed and mapped on a thread of their own (rs_zalloc_ahead) while the
 * analysis runs: taken one 4 KiB page fault at a time, on the thread that runs the
 * analysis in capture order, they were a fifth of its page faults on traffic of new
 * conversations. */
#define SIDE_CHUNK_FIRST 256
#define SIDE_CHUNK_BYTES RS_HUGE_PAGE

struct conv_side_chunk {
    struct conv_side_chunk *next;
    uint32_t used, cap;
    struct conv_side sides[];
};

#define SIDE_CHUNK_CAP \
    ((uint32_t)((SIDE_CHUNK_BYTES - sizeof(struct conv_side_chunk)) / sizeof(struct conv_side)))

static struct conv_side_chunk *
chunk_new(struct rs_analyzer *an)
{
    struct conv_side_pool *p = &an->sides;
    struct conv_side_chunk *n;

    if (p->chunks == NULL) {
        n = g_malloc(sizeof(*n) + SIDE_CHUNK_FIRST * sizeof(n->sides[0]));
        n->cap = SIDE_CHUNK_FIRST;
    } else {
        n = rs_zalloc_ahead_take(&p->ahead, SIDE_CHUNK_BYTES);
        n->cap = SIDE_CHUNK_CAP;
    }
    n->used = 0;
    n->next = p->chunks;
    p->chunks = n;
    p->held += n->cap;
    return n;
}

struct conv_side *
conv_side_of(struct rs_analyzer *an, struct conv *c)
{
    if (c->side != NULL)
        return c->side;

    struct conv_side_pool *p = &an->sides;
    struct conv_side *s = p->free;

    if (s != NULL) {
        p->free = s->next_free;
    } else {
        if (p->chunks == NULL || p->chunks->used == p->chunks->cap)
            chunk_new(an);
        s = &p->chunks->sides[p->chunks->used++];
        /* Half the chunk used: the next is made ready, if the table's bound can need it
         * (a side per live conversation at most). */
        if (p->chunks->used == p->chunks->cap / 2 && p->held < an->opts.max_convs)
            rs_zalloc_ahead_start(&p->ahead, SIDE_CHUNK_BYTES);
    }
    memset(s, 0, sizeof(*s));
    p->in_use++;
    c->side = s;
    return s;
}

void
conv_side_release(struct rs_analyzer *an, struct conv *c)
{
    if (c->side == NULL)
        return;
    c->side->next_free = an->sides.free;
    an->sides.free = c->side;
    an->sides.in_use--;
    c->side = NULL;
}

void
conv_side_pool_free(struct conv_side_pool *p)
{
    for (struct conv_side_chunk *k = p->chunks, *next; k != NULL; k = next) {
        next = k->next;
        if (k->cap == SIDE_CHUNK_FIRST)
            g_free(k);
        else
            rs_zalloc_free(k, SIDE_CHUNK_BYTES);
    }
    rs_zalloc_ahead_free(&p->ahead);
    p->chunks = NULL;
    p->free = NULL;
    p->held = 0;
}
