/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recency.h - a bounded table's order of use, threaded through its array by
 * position: the entry used longest ago is found at once, and touching or
 * taking out an entry moves no memory and allocates nothing. The TCP/UDP
 * stream table and the TUI's rates evict by it.
 *
 * Each entry holds a struct rs_recency_link; the functions reach entry i's
 * through the first entry's link and the entries' size, so the links stay
 * beside the rest of the entry.
 */
#ifndef ROCESHARK_RECENCY_H
#define ROCESHARK_RECENCY_H

#include <stddef.h>
#include <stdint.h>

#define RS_RECENCY_NONE UINT32_MAX

struct rs_recency_link {
    uint32_t newer, older;      /* neighbours' positions, or RS_RECENCY_NONE */
};

struct rs_recency {
    uint32_t newest, oldest;    /* RS_RECENCY_NONE while empty */
};

static inline void
rs_recency_init(struct rs_recency *r)
{
    r->newest = r->oldest = RS_RECENCY_NONE;
}

static inline struct rs_recency_link *
rs_recency_link_of(struct rs_recency_link *first, size_t stride, uint32_t i)
{
    return (struct rs_recency_link *)((char *)first + (size_t)i * stride);
}

/* Takes entry i out of the order. */
static inline void
rs_recency_unlink(struct rs_recency *r, struct rs_recency_link *first, size_t stride, uint32_t i)
{
    struct rs_recency_link *e = rs_recency_link_of(first, stride, i);

    if (e->newer != RS_RECENCY_NONE)
        rs_recency_link_of(first, stride, e->newer)->older = e->older;
    else
        r->newest = e->older;
    if (e->older != RS_RECENCY_NONE)
        rs_recency_link_of(first, stride, e->older)->newer = e->newer;
    else
        r->oldest = e->newer;
}

/* Puts entry i, not in the order, at its newest end. */
static inline void
rs_recency_push(struct rs_recency *r, struct rs_recency_link *first, size_t stride, uint32_t i)
{
    struct rs_recency_link *e = rs_recency_link_of(first, stride, i);

    e->newer = RS_RECENCY_NONE;
    e->older = r->newest;
    if (r->newest != RS_RECENCY_NONE)
        rs_recency_link_of(first, stride, r->newest)->newer = i;
    r->newest = i;
    if (r->oldest == RS_RECENCY_NONE)
        r->oldest = i;
}

/* Entry i, in the order, was just used. */
static inline void
rs_recency_touch(struct rs_recency *r, struct rs_recency_link *first, size_t stride, uint32_t i)
{
    if (r->newest != i) {
        rs_recency_unlink(r, first, stride, i);
        rs_recency_push(r, first, stride, i);
    }
}

#endif
