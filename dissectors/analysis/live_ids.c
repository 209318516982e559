/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live_ids.c - live conversations by id. Ids are given in order, so the
 * slot of a conversation is its id modulo a power of two at least twice
 * the live ones: a new conversation's slot is next to the last one's, and
 * so, mostly, is the slot of the one it evicts. A hashed index would reach
 * a random cache line for each. The rare conversation whose slot is held
 * by an older one still alive (it outlived that many newer ones) goes to
 * an overflow index.
 */
#include <glib.h>
#include <string.h>

#include "analyzer_int.h"

#define LIVE_IDS_MIN 1024       /* slots; a power of two */
/* The slots are first made for the table's bound, up to this many (8 MiB): ids go up
 * one by one, so only the pages under the ids given so far are ever touched, and the
 * table never grows. Doubling from LIVE_IDS_MIN, each step copied into new pages, took
 * 730 page faults on the analysis' thread on bench/data/mixed_150000_twice.pcap. */
#define LIVE_IDS_FIRST_MAX (1u << 20)

static bool
id_match(const void *ptr, const void *key)
{
    return ((const struct conv *)ptr)->stats.id == *(const uint32_t *)key;
}

static void
place(struct live_ids *t, struct conv *c)
{
    struct conv **s = &t->slots[c->stats.id & (t->cap - 1)];

    if (*s == NULL)
        *s = c;
    else
        rs_ptr_index_insert(&t->overflow, conv_id_hash(c->stats.id), c);
}

/* The first slots: twice the bound, as far as LIVE_IDS_FIRST_MAX. */
static uint32_t
first_cap(uint32_t bound)
{
    uint32_t cap = LIVE_IDS_MIN;

    while (cap < LIVE_IDS_FIRST_MAX && cap < 2 * (uint64_t)bound)
        cap *= 2;
    return cap;
}

/* Doubles the slots. The overflow keeps what it holds: it is found there. */
static void
grow(struct live_ids *t, uint32_t bound)
{
    struct conv **old = t->slots;
    uint32_t old_cap = t->cap;

    t->cap = old_cap ? old_cap * 2 : first_cap(bound);
    t->slots = g_new0(struct conv *, t->cap);
    for (uint32_t i = 0; i < old_cap; i++)
        if (old[i] != NULL)
            t->slots[old[i]->stats.id & (t->cap - 1)] = old[i];
    g_free(old);
}

void
live_ids_add(struct live_ids *t, struct conv *c, uint32_t n_live, uint32_t bound)
{
    if (2 * (uint64_t)n_live > t->cap)
        grow(t, bound);
    place(t, c);
}

void
live_ids_remove(struct live_ids *t, struct conv *c)
{
    struct conv **s = &t->slots[c->stats.id & (t->cap - 1)];

    if (*s == c)
        *s = NULL;
    else
        rs_ptr_index_remove(&t->overflow, conv_id_hash(c->stats.id), c);
}

struct conv *
live_ids_find(const struct live_ids *t, uint32_t id)
{
    if (t->cap == 0)
        return NULL;
    struct conv *c = t->slots[id & (t->cap - 1)];
    if (c != NULL && c->stats.id == id)
        return c;
    return rs_ptr_index_find(&t->overflow, conv_id_hash(id), id_match, &id);
}

void
live_ids_free(struct live_ids *t)
{
    g_free(t->slots);
    rs_ptr_index_free(&t->overflow);
    memset(t, 0, sizeof(*t));
}
