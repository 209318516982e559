/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring.c - the single-producer single-consumer ring between two threads
 * (see ring.h).
 *
 * The counts of slots pushed and released are C11 atomics, and each side
 * keeps its own copy of what only it writes, on cache lines of its own.
 * Sleeping goes through one mutex and two condition variables (POSIX
 * ones, which ThreadSanitizer follows; GLib's are futexes it cannot see). A side about to sleep
 * says so in its "asleep" flag and then looks once more; the other side
 * publishes its count first and reads the flag after, both sequentially
 * consistent, so one of them always sees the other and no wake-up is lost.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include <roceshark/dissectors/ring.h>

#define CACHE_LINE 64
#define PUBLISH_EVERY 32

/* Where a slot's bytes end in the byte area, so releasing the slot frees
 * them, or the buffer of a frame too large for it. */
struct slot_hdr {
    uint64_t bytes_end;
    void *heap;
};

struct rs_ring {
    size_t n_slots, slot_size, n_bytes, wake_at;
    uint8_t *slots;
    struct slot_hdr *hdr;
    uint8_t *bytes;
    pthread_mutex_t mu;
    pthread_cond_t data, room;

    alignas(CACHE_LINE) _Atomic uint64_t head;      /* slots pushed */
    atomic_bool producer_asleep;
    atomic_bool closed;
    alignas(CACHE_LINE) _Atomic uint64_t tail;      /* slots released */
    _Atomic uint64_t bytes_tail;                    /* byte position released up to */
    atomic_bool consumer_asleep;

    alignas(CACHE_LINE) uint64_t p_head;            /* the producer's copies */
    uint64_t p_published;                           /* head as last stored */
    uint64_t p_tail, p_bytes_tail;                  /* tail as last loaded */
    uint64_t p_bytes;                               /* byte position claimed up to */
    alignas(CACHE_LINE) uint64_t c_tail;            /* the consumer's copy */
};

struct rs_ring *
rs_ring_new(size_t n_slots, size_t slot_size, size_t n_bytes)
{
    struct rs_ring *r = aligned_alloc(CACHE_LINE, sizeof(*r));

    if (r == NULL)
        return NULL;
    *r = (struct rs_ring){0};
    r->n_slots = n_slots;
    r->slot_size = (slot_size + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
    r->n_bytes = n_bytes;
    r->wake_at = n_slots / 2 > 0 ? n_slots / 2 : 1;
    r->slots = aligned_alloc(CACHE_LINE, n_slots * r->slot_size);
    r->hdr = calloc(n_slots, sizeof(*r->hdr));
    r->bytes = n_bytes > 0 ? malloc(n_bytes) : NULL;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    atomic_init(&r->bytes_tail, 0);
    atomic_init(&r->producer_asleep, false);
    atomic_init(&r->consumer_asleep, false);
    atomic_init(&r->closed, false);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->data, NULL);
    pthread_cond_init(&r->room, NULL);
    if (r->slots == NULL || r->hdr == NULL || (n_bytes > 0 && r->bytes == NULL)) {
        rs_ring_free(r);
        return NULL;
    }
    return r;
}

void
rs_ring_free(struct rs_ring *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; r->hdr != NULL && i < r->n_slots; i++)
        free(r->hdr[i].heap);
    free(r->hdr);
    free(r->slots);
    free(r->bytes);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->data);
    pthread_cond_destroy(&r->room);
    free(r);
}

/* Wakes the side sleeping on cond if its flag says it sleeps. */
static void
wake(struct rs_ring *r, atomic_bool *asleep, pthread_cond_t *cond)
{
    if (atomic_load(asleep) && atomic_exchange(asleep, false)) {
        pthread_mutex_lock(&r->mu);
        pthread_cond_signal(cond);
        pthread_mutex_unlock(&r->mu);
    }
}

/* Room for one more slot whose bytes end at bytes_end. */
static bool
has_room(struct rs_ring *r, uint64_t bytes_end)
{
    if (r->p_head - r->p_tail < r->n_slots && bytes_end - r->p_bytes_tail <= r->n_bytes)
        return true;
    r->p_bytes_tail = atomic_load(&r->bytes_tail);
    r->p_tail = atomic_load(&r->tail);
    return r->p_head - r->p_tail < r->n_slots && bytes_end - r->p_bytes_tail <= r->n_bytes;
}

/* The producer sleeps until it has room, or (bytes_end 0, empty) until the
 * consumer has released everything. The consumer is woken first: it may be
 * asleep with less than wake_at slots waiting. */
static void
producer_wait(struct rs_ring *r, bool empty, uint64_t bytes_end)
{
    rs_ring_flush(r);
    pthread_mutex_lock(&r->mu);
    for (;;) {
        atomic_store(&r->producer_asleep, true);
        if (empty ? atomic_load(&r->tail) == r->p_head : has_room(r, bytes_end))
            break;
        pthread_cond_wait(&r->room, &r->mu);
    }
    atomic_store(&r->producer_asleep, false);
    pthread_mutex_unlock(&r->mu);
}

void *
rs_ring_claim(struct rs_ring *r, size_t n_bytes, uint8_t **bytes)
{
    /* A frame larger than a quarter of the area would stall the two stages
     * in turn; it gets a buffer of its own (none comes from a NIC). */
    bool own = n_bytes > r->n_bytes / 4;
    uint64_t at = r->p_bytes;

    if (r->n_bytes == 0) {
        own = false;            /* records alone: no bytes to place */
    } else if (!own && at % r->n_bytes + n_bytes > r->n_bytes)
        at += r->n_bytes - at % r->n_bytes;     /* skip the end of the area */
    uint64_t end = own ? r->p_bytes : at + n_bytes;
    if (!has_room(r, end))
        producer_wait(r, false, end);
    struct slot_hdr *h = &r->hdr[r->p_head & (r->n_slots - 1)];
    h->bytes_end = end;
    if (own) {
        if ((h->heap = malloc(n_bytes > 0 ? n_bytes : 1)) == NULL)
            return NULL;
        *bytes = h->heap;
    } else if (bytes != NULL) {
        *bytes = r->n_bytes > 0 ? r->bytes + at % r->n_bytes : NULL;
    }
    r->p_bytes = end;
    return r->slots + (r->p_head & (r->n_slots - 1)) * r->slot_size;
}

/* Makes the slots pushed so far visible to the consumer, waking it when
 * enough wait (or always, with force). */
static void
publish(struct rs_ring *r, bool force)
{
    if (r->p_published != r->p_head)
        atomic_store(&r->head, r->p_published = r->p_head);
    if (force || r->p_head - atomic_load(&r->tail) >= r->wake_at)
        wake(r, &r->consumer_asleep, &r->data);
}

void
rs_ring_push(struct rs_ring *r)
{
    /* Stored every PUBLISH_EVERY slots: a store per slot kept the line moving between
     * the two cores. */
    if (++r->p_head - r->p_published >= PUBLISH_EVERY)
        publish(r, false);
}

void
rs_ring_flush(struct rs_ring *r)
{
    publish(r, true);
}

void
rs_ring_wait_empty(struct rs_ring *r)
{
    if (atomic_load(&r->tail) != r->p_head)
        producer_wait(r, true, 0);
}

void
rs_ring_close(struct rs_ring *r)
{
    publish(r, false);
    atomic_store(&r->closed, true);
    pthread_mutex_lock(&r->mu);
    pthread_cond_signal(&r->data);
    pthread_mutex_unlock(&r->mu);
}

size_t
rs_ring_wait(struct rs_ring *r)
{
    uint64_t head = atomic_load(&r->head);

    if (head != r->c_tail)
        return (size_t)(head - r->c_tail);
    pthread_mutex_lock(&r->mu);
    for (;;) {
        atomic_store(&r->consumer_asleep, true);
        head = atomic_load(&r->head);
        if (head != r->c_tail || atomic_load(&r->closed))
            break;
        pthread_cond_wait(&r->data, &r->mu);
    }
    atomic_store(&r->consumer_asleep, false);
    pthread_mutex_unlock(&r->mu);
    return (size_t)(head - r->c_tail);
}

void *
rs_ring_slot(struct rs_ring *r, size_t i)
{
    return r->slots + ((r->c_tail + i) & (r->n_slots - 1)) * r->slot_size;
}

void
rs_ring_release(struct rs_ring *r, size_t n)
{
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        struct slot_hdr *h = &r->hdr[(r->c_tail + i) & (r->n_slots - 1)];
        free(h->heap);
        h->heap = NULL;
    }
    r->c_tail += n;
    atomic_store(&r->bytes_tail, r->hdr[(r->c_tail - 1) & (r->n_slots - 1)].bytes_end);
    atomic_store(&r->tail, r->c_tail);
    wake(r, &r->producer_asleep, &r->room);
}
