/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * peer_table.c - which QP endpoint each QP endpoint is connected to.
 *
 * A record per QP pair (its two endpoints) is appended in the order pairs
 * are learnt, and an open-addressing index of 8-byte entries leads from
 * each endpoint to its pair's record and its end of it. Records kept in the
 * index's own slots (48 bytes each, at random places in a table twice their
 * number) made learning a QP pair two writes to cold memory, and on a
 * capture of 150,000 QP pairs the table was a third of the analysis;
 * appended, a pair is written where the last one was, and a record per
 * pair, not per endpoint, halves them. Most lookups are for QPs not yet
 * paired: a miss reads the index alone.
 *
 * A pair learnt anew (a QP re-paired) takes a new record and repoints its
 * two endpoints; the old record stays for whichever endpoint still points
 * to it, until the table is emptied.
 *
 * Nothing is removed one entry at a time (the table is only emptied whole),
 * so linear probing needs no tombstones, and once the table has grown,
 * learning a pair allocates nothing.
 */
#include <string.h>

#include "analyzer_int.h"

#define PEER_INDEX_MIN 64       /* entries; a power of two */
#define PEER_RECORDS_MIN 32

static uint32_t
endpoint_hash(const struct endpoint *ep)
{
    G_STATIC_ASSERT(sizeof(*ep) % 4 == 0);
    return rs_ptr_index_hash_key(ep, sizeof(*ep));
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
    rs_zalloc_free(t->index, t->cap * sizeof(*t->index));
    g_free(t->records);
    memset(t, 0, sizeof(*t));
}

void
peer_table_clear(struct peer_table *t)
{
    if (t->index != NULL)
        memset(t->index, 0, t->cap * sizeof(*t->index));
    t->n = t->n_records = 0;
}

/* The entry of ep (hashing to h), or the free entry that ends its probe. */
static struct peer_entry *
entry_of(const struct peer_table *t, const struct endpoint *ep, uint32_t h)
{
    for (uint32_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        struct peer_entry *e = &t->index[i];
        if (e->hash == RS_PTR_INDEX_EMPTY ||
            (e->hash == h && memcmp(&t->records[e->ref >> 1].end[e->ref & 1], ep,
                                    sizeof(*ep)) == 0))
            return e;
    }
}

/* The endpoint that e's endpoint is connected to, or NULL for a free entry. */
static const struct endpoint *
peer_at(const struct peer_table *t, const struct peer_entry *e)
{
    return e->hash != RS_PTR_INDEX_EMPTY ? &t->records[e->ref >> 1].end[(e->ref & 1) ^ 1] : NULL;
}

const struct endpoint *
peer_table_find_hashed(const struct peer_table *t, const struct endpoint *ep, uint32_t hash)
{
    if (t->n == 0)
        return NULL;
    return peer_at(t, entry_of(t, ep, hash));
}

const struct endpoint *
peer_table_find(const struct peer_table *t, const struct endpoint *ep)
{
    return peer_table_find_hashed(t, ep, endpoint_hash(ep));
}

uint32_t
peer_table_hash(const struct endpoint *ep)
{
    return endpoint_hash(ep);
}

void
peer_table_prefetch_hashed(const struct peer_table *t, uint32_t hash)
{
    if (t->n > 0)
        __builtin_prefetch(&t->index[hash & (t->cap - 1)]);
}

/* Whether ep (hashing to h) is known to be connected to peer. */
static bool
paired_with(const struct peer_table *t, const struct endpoint *ep, uint32_t h,
            const struct endpoint *peer)
{
    const struct endpoint *p = t->n > 0 ? peer_at(t, entry_of(t, ep, h)) : NULL;

    return p != NULL && memcmp(p, peer, sizeof(*peer)) == 0;
}

/* Doubles the index, at most three quarters of which is ever used. */
static void
grow_index(struct peer_table *t)
{
    struct peer_entry *old = t->index;
    uint32_t old_cap = t->cap;

    t->cap = old_cap ? old_cap * 2 : PEER_INDEX_MIN;
    t->index = rs_zalloc_populated(t->cap * sizeof(*t->index));
    for (uint32_t i = 0; i < old_cap; i++) {
        if (old[i].hash == RS_PTR_INDEX_EMPTY)
            continue;
        uint32_t j = old[i].hash & (t->cap - 1);
        while (t->index[j].hash != RS_PTR_INDEX_EMPTY)
            j = (j + 1) & (t->cap - 1);
        t->index[j] = old[i];
    }
    rs_zalloc_free(old, old_cap * sizeof(*old));
}

/* Points the entry of ep (hashing to h; added if new) at end `end` of record r. */
static void
index_end(struct peer_table *t, const struct endpoint *ep, uint32_t h, uint32_t r, uint32_t end)
{
    struct peer_entry *e = entry_of(t, ep, h);

    if (e->hash == RS_PTR_INDEX_EMPTY) {
        e->hash = h;
        t->n++;
    }
    e->ref = r << 1 | end;
}

void
peer_table_pair(struct peer_table *t, const struct endpoint *a, const struct endpoint *b)
{
    /* Each endpoint hashed once, for the check and for its entry. */
    uint32_t ha = endpoint_hash(a), hb = endpoint_hash(b);

    if (paired_with(t, a, ha, b) && paired_with(t, b, hb, a))
        return;         /* known already */
    if (4 * (uint64_t)(t->n + 2) > 3 * (uint64_t)t->cap)
        grow_index(t);
    if (t->n_records == t->cap_records) {
        t->cap_records = t->cap_records ? 2 * t->cap_records : PEER_RECORDS_MIN;
        t->records = g_renew(struct peer_record, t->records, t->cap_records);
    }
    uint32_t r = t->n_records++;
    t->records[r].end[0] = *a;
    t->records[r].end[1] = *b;
    index_end(t, a, ha, r, 0);
    index_end(t, b, hb, r, 1);
}
