/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * populated.h - zeroed memory for the analysis' large tables, its pages
 * mapped up front and, from 2 MiB, on huge pages.
 */
#ifndef ROCESHARK_POPULATED_H
#define ROCESHARK_POPULATED_H

#include <stddef.h>

#define POPULATED_HUGE_PAGE ((size_t)2 << 20)

/* n zeroed bytes; never NULL (out of memory aborts, as g_malloc does). */
void *zalloc_populated(size_t n);
/* Frees what zalloc_populated(n) gave, told the same n. */
void free_populated(void *p, size_t n);

#endif
