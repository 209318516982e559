/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ether_names_int.h - the tables ether_names.c names addresses from, shared with
 * ether_names_snapshot.c, which keeps them in a file between runs.
 */
#ifndef ROCESHARK_ETHER_NAMES_INT_H
#define ROCESHARK_ETHER_NAMES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One entry of a file. Its names are offsets into the tables' text (the files' text, cut
 * in place, or the snapshot's copy of it), so that a snapshot needs no pointer fixed. */
struct entry {
    uint64_t key;
    uint32_t seq;           /* its place among the files' lines: which of two entries wins */
    uint32_t name, long_name;
};

/* The entries of one kind, sorted by key once the files are read, looked up by bisection:
 * a manuf file has some 50,000 lines, and one allocation per line cost more at start-up
 * than a whole capture's trees. A large table's bisection starts from the entries that
 * share the key's top 16 bits (first): on traffic of addresses no file names (random
 * MACs, bench_read.py's mixed traffic) sixteen steps over the 36,000 vendors and 16,000
 * ranges, most of them cache misses, had been a tenth of -V's and -T json's time. */
#define BUCKET_BITS 16
#define BUCKETS (1u << BUCKET_BITS)
#define BUCKETED_FROM 256       /* entries: a smaller table is bisected whole */

/* The arrays are the process's own, or a snapshot's mapping (never written then). */
struct table {
    struct entry *e;
    size_t n, cap;
    unsigned key_bits;      /* 48 for addresses, 24 for vendor prefixes */
    uint32_t *first;        /* BUCKETS + 1: the first entry whose key's top bits are b;
                               NULL: bisected whole */
    uint64_t *tops;         /* BUCKETS bits (8 KiB): bit b, some key's top bits are b;
                               NULL: not known (no entries, or out of memory) */
    uint8_t *low;           /* a bucketed table of 24-bit keys (the vendors): each entry's
                               low 8 bits, which tell within a bucket whether a key is
                               there without reading the entries; else NULL */
};

#define ETHER_TABLES 5

struct ether_names {
    /* The tables, in the order a snapshot keeps them. */
    struct table exact;     /* 48-bit address (manuf and wka entries; the last wins) */
    struct table ethers;    /* 48-bit address (ethers files; the first wins) */
    struct table ranges;    /* masked 48-bit address (the last wins) */
    struct table vendors;   /* 24-bit prefix: short and long vendor names (the last wins) */
    struct table wide;      /* the ranges whose low 24 bits are clear: the only ones a
                             * look-up wider than a vendor block can find */
    uint32_t seq;
    char *text;             /* every name, NUL-terminated, at its entries' offsets */
    size_t text_len, text_cap;
};

static inline struct table *
ether_table(struct ether_names *n, int i)
{
    struct table *all[ETHER_TABLES] = {&n->exact, &n->ethers, &n->ranges, &n->vendors,
                                       &n->wide};
    return all[i];
}

/* What the files the tables come from are now (each path with its device, inode, size
 * and times, or absent), which a snapshot must have been made from; g_free() it.
 * *settled: no file changed in the last seconds, within which a change that keeps the
 * size may keep the times too (their clock ticks by milliseconds), so a snapshot made of
 * them now could pass for one of the files changed after it. */
char *rs_ether_names_sources(const char *const *paths, size_t n_paths, bool *settled);

/* Fills n from the snapshot made from sources, if there is one: true, else n unchanged. */
bool rs_ether_names_snapshot_load(struct ether_names *n, const char *sources);

/* Keeps n for the next runs, made from sources (nothing when it cannot: the next run
 * reads the files again). */
void rs_ether_names_snapshot_save(const struct ether_names *n, const char *sources,
                                  bool settled);

#endif /* ROCESHARK_ETHER_NAMES_INT_H */
