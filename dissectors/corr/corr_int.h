/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corr_int.h - the matcher's state, shared by its files (match.c: sightings and the
 * window; finish.c: a packet's view; clock.c: the clocks; conv.c: conversations and
 * their statistics). Not part of the API.
 */
#ifndef ROCESHARK_CORR_INT_H
#define ROCESHARK_CORR_INT_H

#include <roceshark/dissectors/corr.h>

#define P RS_CORR_MAX_POINTS
#define CORR_HIST_BUCKETS 720       /* delays in ns to 2^48, 16 steps an octave (6%) */
#define CORR_CLOCK_BUCKETS 1024     /* clock buckets held per pair of points */

struct corr_entry {
    struct rs_corr_key key;
    uint64_t convh;
    uint32_t next;                  /* hash chain: index + 1; 0 ends it */
    uint32_t conv;
    uint8_t seen;
    uint8_t shown;
    /* The clocks take each key's first sighting at each point, not the sightings this
     * packet was joined from: copies of one key (retransmissions, duplicate ACKs) are
     * told apart by a guess, and a wrong guess can make a delay look shorter than it was;
     * a key's first sighting downstream comes after its first upstream, never before. */
    bool key_first;                 /* no open packet had its key when it opened */
    uint8_t first_seen;             /* bit per point: first_t holds */
    int64_t t0;                     /* the first sighting, mapped */
    int64_t t[P];
    int64_t first_t[P];             /* key_first: the key's first sighting at each point */
    uint64_t number[P];
    struct rs_corr_hdr hdr[P];
    uint64_t copy_at;               /* the shown frame's bytes in the arena */
    uint32_t copy_len;
    struct rs_frame frame;          /* the shown frame, data unset */
    /* The addresses a conversation's name shows, raw: formatted only for the first
     * packet of a conversation (corr_addr_text), not for every packet. */
    uint8_t addr_kind;              /* RS_CORR_ADDR_* */
    uint8_t addr[8];
};

struct corr_seg_stats {
    uint64_t packets, lost, ce, reordered, delays;
    int64_t max, last_down;
    uint32_t *hist;                 /* CORR_HIST_BUCKETS, made at the first delay */
};

struct corr_conv {
    uint64_t hash;
    bool used;
    uint32_t dqp;
    char name[64];
    uint64_t count[P];              /* sightings at each point */
    double rank[P];                 /* their time after the packet's first, summed (ns) */
    uint8_t n_path;
    uint8_t path[P];
    uint64_t packets;
    /* the first sighting of the last packet each point joined: a network keeps a
     * conversation's order, so a later sighting joins no packet first seen before it */
    int64_t last_joined[P];
    /* the earliest first sighting elsewhere of a packet each point saw: that point was
     * capturing the conversation from then (its own first frame comes a delay later) */
    int64_t first_up[P];
    struct corr_seg_stats seg[RS_CORR_MAX_SEGMENTS];
};

/* One pair of points' clock buckets: the fastest packet each way. */
struct corr_clock_bucket {
    int64_t fwd, rev;               /* min of tj - ti from i to j, of ti - tj from j to i */
    bool has_fwd, has_rev;
};

struct corr_pair {
    struct corr_clock_bucket b[CORR_CLOCK_BUCKETS];
    int64_t width;                  /* ns a bucket spans; doubled when they run out */
    uint64_t pairs;
};

struct rs_corr {
    struct rs_corr_opts opts;
    rs_corr_sink *sink;
    void *ctx;
    struct corr_entry *e;
    uint32_t cap;                   /* power of two; doubles up to max_cap */
    uint32_t max_cap;               /* max_packets, rounded up to a power of two */
    uint64_t head, tail;            /* entries [head, tail) open */
    uint32_t *bucket;
    uint32_t n_bucket;              /* power of two */
    uint8_t *arena;
    uint64_t arena_tail;
    struct corr_conv *conv;         /* RS_CORR_MAX_CONVS, open addressing */
    uint32_t n_conv;
    struct corr_pair *pair[P][P];   /* i < j, collect passes */
    int64_t base;                   /* the first mapped time */
    bool have_base;
    int64_t now;
    struct rs_corr_counts counts;
    const struct rs_corr *learned;  /* the estimating pass's paths and ranges */
};

/* finish.c */
void corr_finish(struct rs_corr *c, struct corr_entry *e);
/* conv.c */
uint32_t corr_conv_find(struct rs_corr *c, uint64_t hash, bool create);
const struct corr_conv *corr_conv_learned(const struct rs_corr *c, uint64_t hash);
void corr_conv_learn(struct rs_corr *c, const struct corr_entry *e);
void corr_seg_add(struct corr_seg_stats *s, int64_t delay, bool lost, bool ce, int64_t down);
/* clock.c */
void corr_clock_collect(struct rs_corr *c, const struct corr_entry *e);

/* "src > dst" of e's addresses, for its conversation's name. */
void corr_addr_text(const struct corr_entry *e, char *buf, size_t size);

#endif /* ROCESHARK_CORR_INT_H */
