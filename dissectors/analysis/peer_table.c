/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * peer_table.c - which QP endpoint each QP endpoint is connected to: an
 * open-addressing table with the endpoints stored in its slots, so that
 * remembering a QP pair allocates nothing once the table has grown. It is
 * never pruned one entry at a time (only emptied whole), so linear probing
 * needs no tombstones. The hashes are an array of their own, probed before
 * any slot is read: most lookups are for QPs not yet paired, and a miss
 * then reads four bytes a slot from an array a tenth of the slots' size.
 */
#include <string.h>

#include "analyzer_int.h"

#define PEER_TABLE_MIN 64       /* slots; a power of two */
#define HASH_EMPTY PTR_INDEX_EMPTY     /* no endpoint hashes to it */

static uint32_t
endpoint_hash(const struct endpoint *ep)
{
    G_STATIC_ASSERT(sizeof(*ep) % 4 == 0);
    return ptr_index_hash_key(ep, sizeof(*ep));
}

void
endpoint_make(struct endpoint *ep, const struct rs_addr *addr, uint32_t qpn)
{
    memset(ep, 0, sizeof(*ep));
    ep->addr = *addr;
    ep->qpn = qpn;
}

void
peer_table_free(struct peer_table *t)
{
    g_free(t->hashes);
    g_free(t->slots);
    memset(t, 0, sizeof(*t));
}

void
peer_table_clear(struct peer_table *t)
{
    if (t->hashes != NULL)
        memset(t->hashes, 0, t->cap * sizeof(*t->hashes));
    t->n = 0;
}

/* The index of the slot holding ep, or of the empty slot where it would go. */
static uint32_t
index_of(const struct peer_table *t, const struct endpoint *ep, uint32_t h)
{
    for (uint32_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        if (t->hashes[i] == HASH_EMPTY ||
            (t->hashes[i] == h && memcmp(&t->slots[i].ep, ep, sizeof(*ep)) == 0))
            return i;
    }
}

const struct endpoint *
peer_table_find(const struct peer_table *t, const struct endpoint *ep)
{
    if (t->n == 0)
        return NULL;
    uint32_t i = index_of(t, ep, endpoint_hash(ep));
    return t->hashes[i] != HASH_EMPTY ? &t->slots[i].peer : NULL;
}

/* Doubles the slots, at most three quarters of which are ever used. */
static void
grow(struct peer_table *t)
{
    uint32_t *old_hashes = t->hashes;
    struct peer_slot *old = t->slots;
    uint32_t old_cap = t->cap;

    t->cap = old_cap ? old_cap * 2 : PEER_TABLE_MIN;
    t->hashes = g_new0(uint32_t, t->cap);
    t->slots = g_new(struct peer_slot, t->cap);
    for (uint32_t i = 0; i < old_cap; i++) {
        if (old_hashes[i] == HASH_EMPTY)
            continue;
        uint32_t j = index_of(t, &old[i].ep, old_hashes[i]);
        t->hashes[j] = old_hashes[i];
        t->slots[j] = old[i];
    }
    g_free(old_hashes);
    g_free(old);
}

void
peer_table_set(struct peer_table *t, const struct endpoint *ep, const struct endpoint *peer)
{
    if (4 * (uint64_t)(t->n + 1) > 3 * (uint64_t)t->cap)
        grow(t);
    uint32_t h = endpoint_hash(ep);
    uint32_t i = index_of(t, ep, h);
    if (t->hashes[i] == HASH_EMPTY) {
        t->hashes[i] = h;
        t->slots[i].ep = *ep;
        t->n++;
    }
    t->slots[i].peer = *peer;
}
