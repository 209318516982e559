/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conn.c - the connection table: one entry per TCP 4-tuple, both directions
 * in one entry (the key puts the lower endpoint first), least recently used
 * evicted once the table holds opts.max_conns entries.
 *
 * Every TCP connection gets an entry, iWARP or not: an MPA Request can come
 * at any time, and a connection with no exchange needs its search state.
 * Entries of connections known not to be iWARP are cheap (no buffers).
 *
 * The index is ptr_index.h's, under the key's hash kept in the entry, and a full
 * table gives the evicted entry's memory to the new connection: where every
 * segment opens a connection (a SYN scan), GLib's table hashing each key three
 * times and a calloc and a free per connection were most of the stage.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "iwarp_int.h"

_Static_assert(offsetof(struct iw_conn, key) == 0, "the key leads, as the index's match takes it");

int
iw_table_init(struct rs_iwarp *iw)
{
    memset(&iw->table, 0, sizeof(iw->table));
    iw->next_id = 1;
    return 0;
}


static void
lru_unlink(struct rs_iwarp *iw, struct iw_conn *c)
{
    if (c->lru_prev != NULL)
        c->lru_prev->lru_next = c->lru_next;
    else
        iw->lru_head = c->lru_next;
    if (c->lru_next != NULL)
        c->lru_next->lru_prev = c->lru_prev;
    else
        iw->lru_tail = c->lru_prev;
    c->lru_prev = c->lru_next = NULL;
}

static void
lru_push_front(struct rs_iwarp *iw, struct iw_conn *c)
{
    c->lru_prev = NULL;
    c->lru_next = iw->lru_head;
    if (iw->lru_head != NULL)
        iw->lru_head->lru_prev = c;
    iw->lru_head = c;
    if (iw->lru_tail == NULL)
        iw->lru_tail = c;
}

static void
dir_free(struct rs_iwarp *iw, struct iw_dir *d)
{
    iw_stream_free(iw, d);
    if (d->send != NULL) {
        iw->stats.memory -= sizeof(*d->send) + d->send->cap;
        free(d->send->buf);
        free(d->send);
        d->send = NULL;
    }
}

/* Takes c out of the table and frees what it holds, but not c itself. */
static void
conn_forget(struct rs_iwarp *iw, struct iw_conn *c)
{
    rs_ptr_index_remove(&iw->table, c->hash, c);
    lru_unlink(iw, c);
    dir_free(iw, &c->dir[0]);
    dir_free(iw, &c->dir[1]);
    iw->n_conns--;
}

void
iw_table_free(struct rs_iwarp *iw)
{
    while (iw->lru_head != NULL) {
        struct iw_conn *c = iw->lru_head;
        conn_forget(iw, c);
        free(c);
    }
    rs_ptr_index_free(&iw->table);
}

/* Forgets everything about the connection but its key: a new SYN on the
 * same 4-tuple starts a new one. */
void
iw_conn_reset(struct rs_iwarp *iw, struct iw_conn *c)
{
    struct rs_flow_key key = c->key;
    uint32_t hash = c->hash;
    struct iw_conn *prev = c->lru_prev, *next = c->lru_next;

    dir_free(iw, &c->dir[0]);
    dir_free(iw, &c->dir[1]);
    memset(c, 0, sizeof(*c));
    c->key = key;
    c->hash = hash;
    c->lru_prev = prev;
    c->lru_next = next;
    c->initiator = -1;
    if (iw_port_forced(iw, key.port[0], key.port[1]))
        iw_conn_mark_iwarp(iw, c, IW_FORCED);
}

struct iw_conn *
iw_conn_get(struct rs_iwarp *iw, const struct rs_flow_key *key)
{
    uint32_t hash = rs_flow_key_index_hash(key);
    struct iw_conn *c = rs_ptr_index_find(&iw->table, hash, rs_flow_key_entry_match, key);

    if (c != NULL) {
        if (iw->lru_head != c) {
            lru_unlink(iw, c);
            lru_push_front(iw, c);
        }
        return c;
    }
    if (iw->n_conns >= iw->opts.max_conns && iw->lru_tail != NULL) {
        c = iw->lru_tail;
        if (c->id != 0)
            iw->stats.evictions++;
        conn_forget(iw, c);
        memset(c, 0, sizeof(*c));      /* the new connection's, in the evicted one's memory */
    } else if ((c = calloc(1, sizeof(*c))) == NULL) {
        return NULL;
    }
    c->key = *key;
    c->hash = hash;
    c->initiator = -1;
    rs_ptr_index_insert(&iw->table, hash, c);
    lru_push_front(iw, c);
    iw->n_conns++;
    if (iw_port_forced(iw, key->port[0], key->port[1]))
        iw_conn_mark_iwarp(iw, c, IW_FORCED);
    return c;
}

/* The connection carries iWARP: give it an id and let both directions look
 * for framing without the budget of a guess. */
void
iw_conn_mark_iwarp(struct rs_iwarp *iw, struct iw_conn *c, enum iw_kind kind)
{
    if (c->id == 0) {
        c->id = iw->next_id++;
        iw->stats.connections++;
    }
    if (c->kind == IW_MPA && kind == IW_INFERRED)
        return;
    c->kind = (uint8_t)kind;
}

bool
iw_port_forced(const struct rs_iwarp *iw, uint16_t a, uint16_t b)
{
    for (unsigned i = 0; i < iw->opts.n_ports; i++)
        if (iw->opts.ports[i] == a || iw->opts.ports[i] == b)
            return true;
    return false;
}
