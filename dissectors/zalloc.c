/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zalloc.c - zeroed memory for large tables, mapped so that its page faults cost little:
 * populated at once, lazily in huge pages, or made ready on a thread ahead of need
 * (zalloc.h says when each is right).
 */
#include <glib.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <roceshark/dissectors/zalloc.h>

#define SMALL_PAGE ((size_t)4096)

static size_t
round_up(size_t n, size_t to)
{
    return (n + to - 1) & ~(to - 1);
}

/* len bytes (a multiple of SMALL_PAGE) mapped from a huge page boundary on, or NULL. */
static uint8_t *
map_aligned(size_t len)
{
    uint8_t *m = mmap(NULL, len + RS_HUGE_PAGE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (m == MAP_FAILED)
        return NULL;
    uint8_t *p = (uint8_t *)round_up((uintptr_t)m, RS_HUGE_PAGE);
    if (p > m)
        munmap(m, (size_t)(p - m));
    munmap(p + len, (size_t)(m + RS_HUGE_PAGE - p));
    return p;
}

/* A zeroed mapping of n bytes aligned to a huge page, which the kernel is asked to
 * back with huge pages (THP "madvise", Debian's default, needs the ask), mapped now.
 * The last partial huge page stays in small pages: rounding the mapping up would be
 * resident memory nobody asked for. */
static void *
map_huge(size_t n)
{
    size_t len = round_up(n, SMALL_PAGE);
    uint8_t *p = map_aligned(len);

    if (p == NULL)
        g_error("out of memory: %zu bytes for an index or slab", n);   /* as g_malloc */
    (void)madvise(p, len, MADV_HUGEPAGE);
    (void)madvise(p, len, MADV_POPULATE_WRITE);
    return p;
}

void *
rs_zalloc_populated(size_t n)
{
    /* From 2 MiB, on huge pages: a table at its bound is read at random (a new
     * conversation touches a slot of each index and the memory of the one it
     * evicts), and on small pages each of those cache misses is a TLB miss as well,
     * a nested page walk under virtualisation. On traffic of new conversations
     * (bench/data/mixed_150000_twice.pcap, read -q) the processor time of decode and
     * analysis went from 0.257 to 0.148 s (best of 15, in turn, load 21). The cost:
     * on a virtual machine, huge pages its host has not backed yet fill slowly, so
     * a run that gets such pages pays once (docs/analysis.md). */
    if (n >= RS_HUGE_PAGE)
        return map_huge(n);
    void *p = g_malloc0(n);
    uintptr_t first = round_up((uintptr_t)p, SMALL_PAGE);
    uintptr_t end = ((uintptr_t)p + n) & ~(uintptr_t)(SMALL_PAGE - 1);

    /* Whole pages only: the others share the allocator's. A kernel before
     * 5.14 refuses, and the pages come one fault at a time as before. */
    if (end > first)
        (void)madvise((void *)first, end - first, MADV_POPULATE_WRITE);
    return p;
}

void
rs_zalloc_free(void *p, size_t n)
{
    if (p != NULL && n >= RS_HUGE_PAGE)
        munmap(p, round_up(n, SMALL_PAGE));
    else
        g_free(p);
}

void *
rs_zalloc_lazy(size_t n)
{
    if (n <= RS_HUGE_PAGE)
        return calloc(1, n);
    size_t len = round_up(n, SMALL_PAGE);
    uint8_t *p = map_aligned(len);

    if (p == NULL)
        return NULL;
    /* The first huge page's worth stays in small pages: what a small capture uses. */
    (void)madvise(p + RS_HUGE_PAGE, len - RS_HUGE_PAGE, MADV_HUGEPAGE);
    return p;
}

void
rs_zalloc_lazy_free(void *p, size_t n)
{
    if (p != NULL && n > RS_HUGE_PAGE)
        munmap(p, round_up(n, SMALL_PAGE));
    else
        free(p);
}

static void *
ahead_main(void *arg)
{
    struct rs_zalloc_ahead *a = arg;

    a->p = map_huge(a->n);
    return NULL;
}

void
rs_zalloc_ahead_start(struct rs_zalloc_ahead *a, size_t n)
{
    if (a->n != 0 || n < RS_HUGE_PAGE)
        return;
    a->n = n;
    a->p = NULL;
    if (pthread_create(&a->thread, NULL, ahead_main, a) != 0)
        a->n = 0;       /* no thread to be had: the memory comes when taken */
}

/* Waits for what is being made ready; its size, or 0 when none is. */
static size_t
ahead_join(struct rs_zalloc_ahead *a)
{
    size_t n = a->n;

    if (n != 0)
        pthread_join(a->thread, NULL);
    a->n = 0;
    return n;
}

void *
rs_zalloc_ahead_take(struct rs_zalloc_ahead *a, size_t n)
{
    size_t ready = ahead_join(a);

    if (ready == n)
        return a->p;
    if (ready != 0)
        rs_zalloc_free(a->p, ready);
    return rs_zalloc_populated(n);
}

void
rs_zalloc_ahead_free(struct rs_zalloc_ahead *a)
{
    size_t ready = ahead_join(a);

    if (ready != 0)
        rs_zalloc_free(a->p, ready);
}
