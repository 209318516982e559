/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * populated.c - memory for the conversation slabs and the index tables.
 *
 * A table at its bound is read at random: a new conversation touches a slot
 * of each index and the memory of the one it evicts, each a cache miss. On
 * 4 KiB pages each is a TLB miss as well, a page walk (in a VM, a nested one);
 * on 2 MiB pages the tables of a full 65,536-conversation table are a few
 * dozen TLB entries. And their pages are mapped in one call, not faulted in
 * one at a time (a few microseconds each in a VM).
 */
#include <glib.h>
#include <stdint.h>
#include <sys/mman.h>

#include "populated.h"

#define SMALL_PAGE ((size_t)4096)

static size_t
round_up(size_t n, size_t to)
{
    return (n + to - 1) & ~(to - 1);
}

/* Maps every page of [p, p + n) writable now. A kernel before 5.14 refuses,
 * and the pages come one fault at a time as before. */
static void
populate(void *p, size_t n)
{
    (void)madvise(p, n, MADV_POPULATE_WRITE);
}

/* A mapping of n bytes aligned to a huge page, which the kernel is asked to
 * back with huge pages (THP set to "madvise", Debian's default, needs the
 * ask; "never" ignores it). The last partial huge page stays in small pages:
 * rounding the mapping up would be resident memory nobody asked for. */
static void *
map_huge(size_t n)
{
    size_t len = round_up(n, SMALL_PAGE);
    uint8_t *m = mmap(NULL, len + POPULATED_HUGE_PAGE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (m == MAP_FAILED)
        g_error("out of memory: %zu bytes for an analysis table", n);
    uint8_t *p = (uint8_t *)round_up((uintptr_t)m, POPULATED_HUGE_PAGE);
    if (p > m)
        munmap(m, (size_t)(p - m));
    munmap(p + len, (size_t)(m + len + POPULATED_HUGE_PAGE - (p + len)));
    (void)madvise(p, len, MADV_HUGEPAGE);
    populate(p, len);
    return p;
}

void *
zalloc_populated(size_t n)
{
    if (n >= POPULATED_HUGE_PAGE)
        return map_huge(n);     /* fresh anonymous pages: zero already */
    void *p = g_malloc0(n);
    uintptr_t first = round_up((uintptr_t)p, SMALL_PAGE);
    uintptr_t end = ((uintptr_t)p + n) & ~(uintptr_t)(SMALL_PAGE - 1);

    /* Whole pages only: the others share the allocator's. */
    if (end > first)
        populate((void *)first, end - first);
    return p;
}

void
free_populated(void *p, size_t n)
{
    if (p == NULL)
        return;
    if (n >= POPULATED_HUGE_PAGE)
        munmap(p, round_up(n, SMALL_PAGE));
    else
        g_free(p);
}
