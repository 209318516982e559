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

#define SIDE_CHUNK 256              /* sides per chunk */

struct conv_side_chunk {
    struct conv_side_chunk *next;
    uint32_t used;
    struct conv_side sides[SIDE_CHUNK];
};

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
        if (p->chunks == NULL || p->chunks->used == SIDE_CHUNK) {
            struct conv_side_chunk *n = g_new(struct conv_side_chunk, 1);
            n->used = 0;
            n->next = p->chunks;
            p->chunks = n;
        }
        s = &p->chunks->sides[p->chunks->used++];
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
        g_free(k);
    }
    p->chunks = NULL;
    p->free = NULL;
}
