/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corr_int.h - the matcher's state, shared by its files (match.c: sightings and the
 * window; finish.c: a packet's view; clock.c: the clocks; conv.c: conversations and
 * their statistics). Not part of the API.
 */
#ifndef ROCESHARK_CORR_INT_H
#define ROCESHARK_CORR_INT_H

#include <roceshark/dissectors/corr.h>

#define CORR_HIST_BUCKETS 720       /* delays in ns to 2^48, 16 steps an octave (6%) */
#define CORR_CLOCK_BUCKETS 1024     /* clock buckets held per pair of points */

/* An open packet. Entries are c->entry_size bytes apart: this fixed part, then the
 * per-point part sized for the run's points when the matcher is made (corr_seen() ..
 * corr_hdr() find its arrays), so a run of two points carries no room for more. */
struct corr_entry {
    struct rs_corr_key key;
    uint64_t convh;
    uint32_t next;                  /* hash chain: index + 1; 0 ends it */
    uint32_t conv;
    uint32_t shown;
    uint32_t n_seen;                /* points in the seen mask */
    /* The clocks take each key's first sighting at each point, not the sightings this
     * packet was joined from: copies of one key (retransmissions, duplicate ACKs) are
     * told apart by a guess, and a wrong guess can make a delay look shorter than it was;
     * a key's first sighting downstream comes after its first upstream, never before. */
    bool key_first;                 /* no open packet had its key when it opened */
    /* The addresses a conversation's name shows, raw: formatted only for the first
     * packet of a conversation (corr_addr_text), not for every packet. */
    uint8_t addr_kind;              /* RS_CORR_ADDR_* */
    uint8_t addr[8];
    int64_t t0;                     /* the first sighting, mapped */
    uint64_t copy_at;               /* the shown frame's bytes in the arena */
    uint32_t copy_len;
    struct rs_frame frame;          /* the shown frame, data unset */
    /* the per-point part follows, 8-byte aligned: the seen mask, the first_seen mask
     * (first_t holds), t, first_t (key_first: the key's first sighting at each point),
     * number, hdr */
};

struct corr_seg_stats {
    uint64_t packets, lost, ce, reordered, delays;
    int64_t max, last_down;
    uint32_t *hist;                 /* CORR_HIST_BUCKETS, made at the first delay */
};

/* A conversation; its arrays by point (and seg by segment of its path) lie in one block
 * the matcher allocates for all of them at once, sized for the run's points. */
struct corr_conv {
    uint64_t hash;
    bool used;
    uint32_t dqp;
    char name[64];
    uint64_t *count;                /* sightings at each point */
    double *rank;                   /* their time after the packet's first, summed (ns) */
    uint32_t n_path;
    uint32_t *path;
    uint64_t packets;
    /* the first sighting of the last packet each point joined: a network keeps a
     * conversation's order, so a later sighting joins no packet first seen before it */
    int64_t *last_joined;
    /* the earliest first sighting elsewhere of a packet each point saw: that point was
     * capturing the conversation from then (its own first frame comes a delay later) */
    int64_t *first_up;
    struct corr_seg_stats *seg;     /* n_points - 1 */
};

/* One pair of points' clock buckets: the fastest packet each way. */
struct corr_clock_bucket {
    int64_t fwd, rev;               /* min of tj - ti from i to j, of ti - tj from j to i */
    bool has_fwd, has_rev;
};

/* The buckets grow with the span of time the pair's packets cover (doubling, up to
 * CORR_CLOCK_BUCKETS): a pair of points costs what its capture's length asks, not 24 KB,
 * and a run of many points makes up to one pair per two of them. */
#define CORR_PAIR_FIRST_BUCKETS 16
struct corr_pair {
    struct corr_clock_bucket *b;    /* n_b; those past the last sample are empty */
    uint32_t n_b;
    int64_t width;                  /* ns a bucket spans; doubled when they run out */
    uint64_t pairs;
};

/* A packet the estimating pass finished, kept by its key until another key takes its
 * slot: a sighting that opens a packet after an earlier one of its key went unseen at its
 * point came later than the window (match.c: note_late). */
#define CORR_GONE_SLOTS 4096        /* a power of two */
struct corr_gone {
    struct rs_corr_key key;
    int64_t t0;
    uint64_t seen;                  /* the points < 64 that saw it */
    bool used;
};

/* The view of the packet being finished: its arrays and texts, sized at start. */
struct corr_view_buf {
    struct rs_corr_view v;
    uint64_t *seen, *missed;        /* masks */
    uint32_t *path, *seen_pts, *missed_pts;
    bool *both;
    int64_t *delay;
    char *seen_at, *path_text, *missed_text, *seg_texts;
    char lost_text[2 * RS_CORR_NAME_SIZE], ce_text[2 * RS_CORR_NAME_SIZE];
    char shown_text[RS_CORR_NAME_SIZE];
    const char **seg_text;
    char *changes;                  /* CORR_CHANGE_SIZE each */
    const char **changed;
    unsigned max_changed;
};
#define CORR_SEG_TEXT_SIZE (2 * RS_CORR_NAME_SIZE)
#define CORR_CHANGE_SIZE (CORR_SEG_TEXT_SIZE + 24)     /* "A>B:ip.dsfield.dscp" */
#define CORR_CHANGE_KINDS 6                             /* finish.c: note_changes() */

struct rs_corr {
    struct rs_corr_opts opts;
    rs_corr_sink *sink;
    void *ctx;
    unsigned n;                     /* points */
    size_t mask_words;
    /* an entry's layout: its size, and where its per-point arrays start in it */
    size_t entry_size, off_seen, off_first_seen, off_t, off_first_t, off_number, off_hdr;
    struct rs_corr_clock *clock;    /* opts.clock, copied */
    struct rs_corr_point_counts *pc;
    unsigned char *e;               /* the ring: cap entries of entry_size */
    uint32_t cap;                   /* power of two; doubles up to max_cap */
    uint32_t max_cap;               /* max_packets, rounded up to a power of two */
    uint64_t head, tail;            /* entries [head, tail) open */
    uint32_t *bucket;
    uint32_t n_bucket;              /* power of two */
    uint8_t *arena;
    uint64_t arena_tail;
    struct corr_conv *conv;         /* RS_CORR_MAX_CONVS, open addressing */
    void *conv_block;               /* their arrays (struct corr_conv) */
    uint32_t n_conv;
    struct corr_pair **pair;        /* [i * n + j], i < j, collect passes; made when used */
    struct corr_view_buf vb;
    int64_t base;                   /* the first mapped time */
    bool have_base;
    int64_t now;
    struct rs_corr_counts counts;
    const struct rs_corr *learned;  /* the estimating pass's paths and ranges */
    struct corr_gone *gone;         /* CORR_GONE_SLOTS, collect passes only */
};

static inline struct corr_entry *
corr_entry_at(const struct rs_corr *c, uint64_t i)
{
    return (struct corr_entry *)(c->e + (size_t)(i & (c->cap - 1)) * c->entry_size);
}
static inline uint32_t
corr_entry_index(const struct rs_corr *c, const struct corr_entry *e)
{
    return (uint32_t)(((const unsigned char *)e - c->e) / c->entry_size);
}
static inline uint64_t *
corr_seen(const struct rs_corr *c, const struct corr_entry *e)
{
    return (uint64_t *)((uintptr_t)e + c->off_seen);
}
static inline uint64_t *
corr_first_seen(const struct rs_corr *c, const struct corr_entry *e)
{
    return (uint64_t *)((uintptr_t)e + c->off_first_seen);
}
static inline int64_t *
corr_t(const struct rs_corr *c, const struct corr_entry *e)
{
    return (int64_t *)((uintptr_t)e + c->off_t);
}
static inline int64_t *
corr_first_t(const struct rs_corr *c, const struct corr_entry *e)
{
    return (int64_t *)((uintptr_t)e + c->off_first_t);
}
static inline uint64_t *
corr_number(const struct rs_corr *c, const struct corr_entry *e)
{
    return (uint64_t *)((uintptr_t)e + c->off_number);
}
static inline struct rs_corr_hdr *
corr_hdr(const struct rs_corr *c, const struct corr_entry *e)
{
    return (struct rs_corr_hdr *)((uintptr_t)e + c->off_hdr);
}

/* match.c */
void corr_gone_put(struct rs_corr *c, const struct corr_entry *e);
/* finish.c */
int corr_view_buf_init(struct corr_view_buf *vb, unsigned n_points);
void corr_view_buf_free(struct corr_view_buf *vb);
void corr_finish(struct rs_corr *c, struct corr_entry *e);
/* conv.c */
int corr_conv_table_new(struct rs_corr *c);
void corr_conv_table_free(struct rs_corr *c);
uint32_t corr_conv_find(struct rs_corr *c, uint64_t hash, bool create);
const struct corr_conv *corr_conv_learned(const struct rs_corr *c, uint64_t hash);
void corr_conv_learn(struct rs_corr *c, const struct corr_entry *e);
void corr_seg_add(struct corr_seg_stats *s, int64_t delay, bool lost, bool ce, int64_t down);
/* clock.c */
void corr_clock_collect(struct rs_corr *c, const struct corr_entry *e);

/* "src > dst" of e's addresses, for its conversation's name. */
void corr_addr_text(const struct corr_entry *e, char *buf, size_t size);

#endif /* ROCESHARK_CORR_INT_H */
