/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zalloc.h - zeroed memory for the large tables of the analysis, the stream table and the
 * indexes (ptr_index.h), mapped so that faulting its pages in costs little.
 * Shared within the library; not part of its stable API.
 */
#ifndef ROCESHARK_ZALLOC_H
#define ROCESHARK_ZALLOC_H

#include <pthread.h>
#include <stddef.h>

/* From this size on, rs_zalloc_populated() maps huge pages. */
#define RS_HUGE_PAGE ((size_t)2 << 20)

/* n zeroed bytes with every page already faulted in, from RS_HUGE_PAGE on
 * in a mapping of their own, aligned for and advised to take huge pages. For
 * tables that are touched at random from the start (the indexes' slots) or
 * filled soon (a slab of conversations): one call maps them all, where
 * touching them took a fault per page, a few microseconds each under
 * virtualisation, and on traffic of new conversations the faults were a
 * fifth of the analysis. */
void *rs_zalloc_populated(size_t n);
/* Frees what rs_zalloc_populated(n) returned. */
void rs_zalloc_free(void *p, size_t n);

/* n zeroed bytes, or NULL, for an array filled from its start on as it is used, up to a
 * bound few runs reach (the TCP/UDP stream table's entries): past RS_HUGE_PAGE, in a
 * mapping of its own advised to take huge pages as it is touched. On a virtual machine a
 * page costs its fault, some 1.5 us for 4 KiB, against some 0.2 ms for 2 MiB (0.35 us
 * per 4 KiB); the first RS_HUGE_PAGE bytes stay in small pages, so that a small capture
 * does not pay for a huge page it hardly uses. */
void *rs_zalloc_lazy(size_t n);
/* Frees what rs_zalloc_lazy(n) returned. */
void rs_zalloc_lazy_free(void *p, size_t n);

/* rs_zalloc_populated() on a thread of its own, ahead of need: for a table that grows
 * in steps it can foresee (the next slab of conversations), so that the kernel zeroes
 * the next step's pages beside the analysis rather than in it. On a virtual machine
 * the huge pages of a run of new conversations took a third of the analysis' time to
 * fill, on the one thread that runs it in capture order. */
struct rs_zalloc_ahead {
    pthread_t thread;
    size_t n;           /* the size being made ready; 0: none */
    void *p;
};

/* Starts making n bytes ready (from RS_HUGE_PAGE on; smaller sizes cost less than a
 * thread), unless some are already. */
void rs_zalloc_ahead_start(struct rs_zalloc_ahead *a, size_t n);
/* rs_zalloc_populated(n): what was made ready, when it was n bytes (waiting for it to
 * be), else a new mapping (freeing what was made ready). */
void *rs_zalloc_ahead_take(struct rs_zalloc_ahead *a, size_t n);
/* Frees what was made ready and not taken. */
void rs_zalloc_ahead_free(struct rs_zalloc_ahead *a);

#endif /* ROCESHARK_ZALLOC_H */
