/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring.h - a bounded queue between two threads: one thread puts slots in,
 * one other thread takes them out, in order. It runs between the TUI's
 * pipeline and the thread that indexes its frames.
 *
 * A slot is a fixed-size record plus, optionally, bytes of its own (a
 * frame's bytes, copied: a source keeps them only until its next frame).
 * The bytes come from one circular area, so frames of every size share it;
 * a frame too large for it gets a buffer of its own. A ring made with no
 * byte area carries records alone.
 *
 * The producer waits while the ring is full, the consumer while it is
 * empty. Neither wakes the other for every slot: a futex call per frame
 * would cost more than the frame's analysis. The consumer is woken once
 * half of the slots wait, or when the producer flushes, waits for the ring
 * to empty, or closes it; the producer as soon as room comes back. The
 * producer makes its slots visible a few dozen at a time (and at each of
 * those points), so the count's cache line does not move for every slot.
 */
#ifndef ROCESHARK_RING_H
#define ROCESHARK_RING_H

#include <stddef.h>
#include <stdint.h>

struct rs_ring;

/* n_slots (a power of two) slots of slot_size bytes, and n_bytes (0 for
 * none) for the slots' own bytes. NULL when out of memory. */
struct rs_ring *rs_ring_new(size_t n_slots, size_t slot_size, size_t n_bytes);
/* After the consumer has stopped (or never started). Frees what is left. */
void rs_ring_free(struct rs_ring *r);

/* Producer: the next free slot, with n_bytes at *bytes (with no byte area,
 * n_bytes is 0 and bytes may be NULL), waiting for room.
 * NULL only when a frame too large for the byte area finds no memory. The
 * slot is the consumer's once rs_ring_push() is called. */
void *rs_ring_claim(struct rs_ring *r, size_t n_bytes, uint8_t **bytes);
void rs_ring_push(struct rs_ring *r);
/* Producer: wakes the consumer for what was pushed, however little. */
void rs_ring_flush(struct rs_ring *r);
/* Producer: flushes, then waits until the consumer has released every slot. */
void rs_ring_wait_empty(struct rs_ring *r);
/* Producer: no more slots. The consumer takes what is left, then its wait
 * returns 0. */
void rs_ring_close(struct rs_ring *r);

/* Consumer: how many slots are ready, waiting while none is; 0 once the
 * ring is closed and empty. */
size_t rs_ring_wait(struct rs_ring *r);
/* Consumer: the i-th oldest ready slot (i below what rs_ring_wait said). */
void *rs_ring_slot(struct rs_ring *r, size_t i);
/* Consumer: gives the n oldest slots and their bytes back to the producer. */
void rs_ring_release(struct rs_ring *r, size_t n);

#endif /* ROCESHARK_RING_H */
