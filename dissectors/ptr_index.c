/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ptr_index.c - growing, removing and repointing entries of the
 * open-addressing index (ptr_index.h).
 */
#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/ptr_index.h>

#define PTR_INDEX_MIN 64        /* slots; a power of two */

/* The slot holding (hash, ptr), or the empty slot that ends its probe. */
static uint32_t
slot_of(const struct rs_ptr_index *t, uint32_t hash, const void *ptr)
{
    uint32_t mask = t->cap - 1;
    uint32_t i = hash & mask;

    while (t->slots[i].hash != RS_PTR_INDEX_EMPTY &&
           (t->slots[i].hash != hash || t->slots[i].ptr != ptr))
        i = (i + 1) & mask;
    return i;
}

static void
place(struct rs_ptr_index *t, uint32_t hash, void *ptr)
{
    uint32_t mask = t->cap - 1;
    uint32_t i = hash & mask;

    while (t->slots[i].hash != RS_PTR_INDEX_EMPTY)
        i = (i + 1) & mask;
    t->slots[i].hash = hash;
    t->slots[i].ptr = ptr;
}

void
rs_ptr_index_grow(struct rs_ptr_index *t)
{
    struct rs_ptr_index_slot *old = t->slots;
    uint32_t old_cap = t->cap;

    t->cap = old_cap ? old_cap * 2 : PTR_INDEX_MIN;
    t->slots = rs_zalloc_populated(t->cap * sizeof(*t->slots));
    for (uint32_t i = 0; i < old_cap; i++)
        if (old[i].hash != RS_PTR_INDEX_EMPTY)
            place(t, old[i].hash, old[i].ptr);
    rs_zalloc_free(old, old_cap * sizeof(*old));
}

void
rs_ptr_index_insert(struct rs_ptr_index *t, uint32_t hash, void *ptr)
{
    if (4 * (uint64_t)(t->n + 1) > 3 * (uint64_t)t->cap)
        rs_ptr_index_grow(t);
    place(t, hash, ptr);
    t->n++;
}

bool
rs_ptr_index_remove(struct rs_ptr_index *t, uint32_t hash, const void *ptr)
{
    if (t->n == 0)
        return false;
    uint32_t mask = t->cap - 1;
    uint32_t hole = slot_of(t, hash, ptr);
    if (t->slots[hole].hash == RS_PTR_INDEX_EMPTY)
        return false;
    /* Backward shift: an entry after the hole moves into it unless its home
     * slot lies cyclically in (hole, here], where it would not be found. */
    for (uint32_t j = (hole + 1) & mask; t->slots[j].hash != RS_PTR_INDEX_EMPTY;
         j = (j + 1) & mask) {
        uint32_t home = t->slots[j].hash & mask;
        bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            t->slots[hole] = t->slots[j];
            hole = j;
        }
    }
    t->slots[hole].hash = RS_PTR_INDEX_EMPTY;
    t->slots[hole].ptr = NULL;
    t->n--;
    return true;
}

bool
rs_ptr_index_repoint(struct rs_ptr_index *t, uint32_t hash, const void *old, void *new_ptr)
{
    if (t->n == 0)
        return false;
    uint32_t i = slot_of(t, hash, old);
    if (t->slots[i].hash == RS_PTR_INDEX_EMPTY)
        return false;
    t->slots[i].ptr = new_ptr;
    return true;
}

void
rs_ptr_index_free(struct rs_ptr_index *t)
{
    rs_zalloc_free(t->slots, t->cap * sizeof(*t->slots));
    memset(t, 0, sizeof(*t));
}
