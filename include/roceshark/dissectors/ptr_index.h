/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ptr_index.h - an open-addressing index from a 32-bit hash to pointers
 * whose keys live in what they point to (a conversation holds its stream
 * keys). The analysis' tables, the TCP/UDP stream table and the iWARP
 * connection table index by it.
 * Shared within the library; not part of its stable API.
 *
 * Why not a GHashTable: on traffic where every frame opens a conversation,
 * the table sees an insertion and a removal per frame. GHashTable calls
 * the hash function again on every operation and leaves tombstones that
 * force rehashes; this index takes the hash the caller computed once,
 * removes by backward shift (linear probing, so no tombstones), and
 * compares keys through an inline callback. It grows at three quarters
 * full and never shrinks, so a table at its bound allocates nothing.
 */
#ifndef ROCESHARK_PTR_INDEX_H
#define ROCESHARK_PTR_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <roceshark/dissectors/zalloc.h>

#define RS_PTR_INDEX_EMPTY 0u   /* the hash of an empty slot; rs_ptr_index_hash avoids it */

struct rs_ptr_index_slot {
    uint32_t hash;
    void *ptr;
};

struct rs_ptr_index {
    struct rs_ptr_index_slot *slots;
    uint32_t cap;               /* a power of two, or 0 */
    uint32_t n;
};

/* A hash fit for the index from any 64-bit mix: never RS_PTR_INDEX_EMPTY. */
static inline uint32_t
rs_ptr_index_hash(uint64_t h)
{
    /* MurmurHash3's finaliser: slots come from the low bits. */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (uint32_t)h == RS_PTR_INDEX_EMPTY ? 1u : (uint32_t)h;
}

/* The hash of a key of n bytes, n a multiple of 4 (keys built with their
 * padding cleared): eight bytes at a time, each mixed in with a multiply,
 * a last four in one step. Keys are a few words, and a packet of an unseen
 * stream hashes one or two. */
static inline uint32_t
rs_ptr_index_hash_key(const void *key, size_t n)
{
    const uint8_t *b = key;
    uint64_t h = 0x9e3779b97f4a7c15ull, w;
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    if (i < n) {
        uint32_t tail;
        memcpy(&tail, b + i, 4);
        h ^= tail;
    }
    return rs_ptr_index_hash(h);
}

/* The pointer stored under hash that match(ptr, key) accepts, or NULL. */
static inline void *
rs_ptr_index_find(const struct rs_ptr_index *t, uint32_t hash,
                  bool (*match)(const void *ptr, const void *key), const void *key)
{
    if (t->n == 0)
        return NULL;
    uint32_t mask = t->cap - 1;
    for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
        const struct rs_ptr_index_slot *s = &t->slots[i];
        if (s->hash == RS_PTR_INDEX_EMPTY)
            return NULL;
        if (s->hash == hash && match(s->ptr, key))
            return s->ptr;
    }
}

/* Adds ptr under hash; the caller knows no equal key is there. */
void rs_ptr_index_insert(struct rs_ptr_index *t, uint32_t hash, void *ptr);
void rs_ptr_index_grow(struct rs_ptr_index *t);

/* Stores ptr under hash in place of what match(_, key) accepts, in one
 * probe; returns what it replaced, or NULL when it added an entry. */
static inline void *
rs_ptr_index_put(struct rs_ptr_index *t, uint32_t hash, void *ptr,
                 bool (*match)(const void *ptr, const void *key), const void *key)
{
    if (4 * (uint64_t)(t->n + 1) > 3 * (uint64_t)t->cap)
        rs_ptr_index_grow(t);
    uint32_t mask = t->cap - 1;
    for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
        struct rs_ptr_index_slot *s = &t->slots[i];
        if (s->hash == RS_PTR_INDEX_EMPTY) {
            s->hash = hash;
            s->ptr = ptr;
            t->n++;
            return NULL;
        }
        if (s->hash == hash && match(s->ptr, key)) {
            void *old = s->ptr;
            s->ptr = ptr;
            return old;
        }
    }
}

/* Removes the entry (hash, ptr); false when there is none. */
bool rs_ptr_index_remove(struct rs_ptr_index *t, uint32_t hash, const void *ptr);
/* Makes the entry (hash, old) point to new, which has the same key. */
bool rs_ptr_index_repoint(struct rs_ptr_index *t, uint32_t hash, const void *old, void *new_ptr);
void rs_ptr_index_free(struct rs_ptr_index *t);

#endif /* ROCESHARK_PTR_INDEX_H */
