/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corr.h - the fabric view: one RDMA packet followed across captures taken at
 * several points (hosts, either side of a bridge or switch), to say where it
 * was lost, delayed, CE-marked or rewritten.
 *
 * The key. The ICRC covers exactly the fields no router or switch may change
 * (RoCEv2: the IP header with TTL, ECN, DSCP and checksum masked, UDP with its
 * checksum masked, and the whole IBA packet; RoCEv1 and IB: the GRH/LRH
 * fields that stay), so one packet carries one ICRC at every hop. With the
 * BTH's destination QP, PSN and opcode it is a hop-invariant fingerprint.
 * A retransmission repeats it: sightings of one key are told apart by order
 * and time (match.c: a sighting joins the open packet of its key, not yet seen
 * at its point, whose delay is nearest the conversation's usual; copies first
 * seen downstream keep their order). Whichever copy a sighting joins, each
 * joins one, so losses and CE marks are counted exactly.
 *
 * The clocks. Each point's clock is mapped onto point A's as
 * t_A = t - (offset + drift * (t - t0)). The offset between two points comes
 * from matched packets in both directions, as NTP bounds a clock from a round
 * trip: for the fastest packet each way, tB - tA = d1 + theta and
 * tA - tB = d2 - theta with one-way delays d1, d2 >= 0, so theta lies within
 * half the sum of the two of the midpoint (docs/analysis.md). Done per time
 * bucket, a least-squares line through the buckets' midpoints gives the drift.
 * The times taken are each key's first sighting at each point, which no wrong
 * guess between copies of a key can make shorter than a real delay.
 *
 * The matcher streams: a packet is final once every point's merged time has
 * passed its first sighting by the window; memory holds one window's packets.
 */
#ifndef ROCESHARK_CORR_H
#define ROCESHARK_CORR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/packet.h>
#include <roceshark/dissectors/print.h>

/* Points are not capped: every array of points or segments is sized from the number of
 * captures when the matcher is made (docs/limits.md: what one point costs). */
/* Conversations (a destination address and QP) followed at once; packets of more are
 * still matched, their path taken from their own sightings, and counted. */
#define RS_CORR_MAX_CONVS 4096

/* The hop-invariant identity of one RDMA packet. */
struct rs_corr_key {
    uint32_t icrc;
    uint32_t dqp;
    uint32_t psn;
    uint8_t opcode;
};

/* What can change between points: compared, and named in roceshark.corr.changed. */
struct rs_corr_hdr {
    uint8_t ecn;            /* 0..3 */
    uint8_t dscp;
    uint8_t ttl;            /* IPv4 TTL, IPv6 hop limit, GRH hop limit; 0 without */
    uint8_t has_eth;
    uint8_t eth_src[6];
    uint8_t eth_dst[6];
    uint16_t vlan;          /* VLAN ID + 1, 0 untagged */
};

/* Fills key, hdr and conv (a hash of the destination address and QP) for an RDMA
 * packet whose BTH and ICRC were captured; false for any other frame. */
bool rs_corr_key_of(const struct rs_packet *pkt, struct rs_corr_key *key,
                    struct rs_corr_hdr *hdr, uint64_t *conv);

/* All the matcher takes of one frame: with it, a pass that prints no frame (-q, -z,
 * plot) runs on these records rather than on the captures decoded again. */
enum { RS_CORR_ADDR_NONE, RS_CORR_ADDR_IPV4, RS_CORR_ADDR_LID, RS_CORR_ADDR_IPV6 };
struct rs_corr_sighting {
    int64_t t;                      /* the frame's time, the point's own clock, ns */
    uint64_t number;                /* frame number in its capture */
    uint64_t conv;
    struct rs_corr_key key;
    struct rs_corr_hdr hdr;
    bool rdma;                      /* false: not RDMA with an ICRC, it only moves time on */
    uint8_t addr_kind;              /* RS_CORR_ADDR_*: the addresses a conversation's name */
    uint8_t addr[8];                /* shows (IPv4 both; LIDs; IPv6/GRH last two bytes) */
};
/* What rs_corr_feed() takes of frame and pkt; returns s->rdma. */
bool rs_corr_sighting_of(const struct rs_frame *frame, const struct rs_packet *pkt,
                         struct rs_corr_sighting *s);

/* A set of points: one bit per point in words of 64 (RS_CORR_MASK_WORDS(n) of them). */
#define RS_CORR_MASK_WORDS(n) (((size_t)(n) + 63u) / 64u)
static inline bool
rs_corr_mask_has(const uint64_t *m, unsigned i)
{
    return (m[i / 64u] >> (i % 64u)) & 1u;
}
static inline void
rs_corr_mask_set(uint64_t *m, unsigned i)
{
    m[i / 64u] |= (uint64_t)1 << (i % 64u);
}

/* What one correlated packet gave: the view roceshark.corr.* read (rs_packet.corr). Its
 * arrays and texts are the matcher's, sized for the run's points when it was made, and
 * hold until the sink returns. */
struct rs_corr_view {
    unsigned n_points;
    unsigned shown;                 /* the point whose frame is shown */
    unsigned n_seen;                /* points that saw it */
    const uint64_t *seen;           /* the points that saw it (rs_corr_mask_has) */
    unsigned n_path;                /* its conversation's points, upstream first */
    const uint32_t *path;
    const uint64_t *number;         /* frame number at each point seen */
    const int64_t *t;               /* time at each point seen, on point A's clock, ns */
    /* per segment path[i] -> path[i+1] */
    const bool *both;               /* seen at both ends: delay[] holds */
    const int64_t *delay;           /* ns */
    int lost_seg;                   /* the segment it was lost on, -1 none */
    int ce_seg;                     /* the segment that marked it CE, -1 none */
    unsigned n_missed;              /* points of its path that missed it between points */
    const uint64_t *missed;         /* that saw it, or upstream of the first: capture loss */
    bool contradiction;             /* seen downstream earlier than upstream by more than the
                                       offset's error bound */
    bool not_told;                  /* missed where the next point's capture recorded drops
                                       then: network or capture loss, not told apart */
    uint32_t conv;                  /* conversation index, UINT32_MAX when not followed */
    /* texts the fields show */
    const char *shown_text;         /* the name of the point shown: "A" */
    const char *seen_at;            /* "A,B" */
    const char *path_text;          /* "A>B>C" */
    const char *lost_text;          /* "A>B", "" none */
    const char *ce_text;
    const char *missed_text;
    const char *const *seg_text;    /* per segment, "A>B" */
    unsigned n_changed;
    const char *const *changed;     /* "A>B:ip.dsfield.dscp", one per change */
};

/* A point's clock on point A's: t_A = t - (offset + drift * (t - t0)). */
struct rs_corr_clock {
    int64_t offset;                 /* ns */
    double drift;                   /* s/s (1e-6: 1 ppm) */
    int64_t t0;                     /* ns since the epoch, own clock */
    int64_t bound;                  /* error bound of the mapping, ns; -1 unknown */
    bool known;                     /* matched packets gave an estimate */
    bool two_way;                   /* ... from both directions (else delays are relative) */
    uint64_t pairs;                 /* matched pairs it came from */
};

static inline int64_t
rs_corr_clock_map(const struct rs_corr_clock *c, int64_t t)
{
    return t - (c->offset + (int64_t)(c->drift * (double)(t - c->t0)));
}

struct rs_corr_opts {
    unsigned n_points;              /* 2 or more */
    int64_t window;                 /* ns; 0: the default (RS_CORR_WINDOW_DEFAULT) */
    enum rs_corr_window_from {
        RS_CORR_WINDOW_FROM_DEFAULT,    /* nothing measured */
        RS_CORR_WINDOW_FROM_GIVEN,      /* --window */
        RS_CORR_WINDOW_FROM_DELAYS,     /* rs_corr_window_for_delay() */
    } window_from;                  /* what the report says of the window */
    uint32_t max_packets;           /* open packets held at most (0: the default) */
    uint32_t copy_bytes;            /* bytes of frames held for printing (0: the default;
                                       collect passes hold none) */
    bool collect;                   /* an estimating pass: gather the clocks and paths */
    bool no_frames;                 /* hold no frames: the sink gets the view alone (a NULL
                                       frame), as statistics and plots want */
    const struct rs_corr_clock *clock;  /* n_points; copied by rs_corr_new() */
    const uint32_t *path;           /* --path: the points in order (n_points of them); held
                                       by the caller while the matcher lives */
    /* Spans of time in which a point's capturer recorded drops (pcapng ISBs), on that
     * point's own clock: a packet not seen there that would have arrived then may have
     * been dropped by the capture, so it is not called a network loss. */
    const struct rs_corr_drop_span *const *drops;  /* n_points of them, or NULL: none; */
    const unsigned *n_drops;                        /* held by the caller as path is */
};

struct rs_corr_drop_span {
    int64_t from, to;               /* ns, the point's clock; INT64_MIN: from the start */
    uint64_t drops;
};

#define RS_CORR_WINDOW_DEFAULT (100 * 1000000ll)   /* 100 ms: no delay measured */
/* The window the measured delays ask for: RS_CORR_WINDOW_SLACK times the largest, within
 * [RS_CORR_WINDOW_MIN, RS_CORR_WINDOW_MAX] (a queue may grow after the part measured). */
#define RS_CORR_WINDOW_SLACK 4
#define RS_CORR_WINDOW_MIN (10 * 1000000ll)       /* 10 ms */
#define RS_CORR_WINDOW_MAX (10 * 1000000000ll)    /* 10 s */
int64_t rs_corr_window_for_delay(int64_t delay);
#define RS_CORR_MAX_PACKETS_DEFAULT (1u << 16)
#define RS_CORR_COPY_BYTES_DEFAULT (64u << 20)

/* A finished packet: its view, and the frame of the point shown (a copy, valid until
 * the callback returns; NULL with no_frames). */
typedef void rs_corr_sink(void *ctx, const struct rs_corr_view *v, const struct rs_frame *f);

struct rs_corr;

int rs_corr_new(const struct rs_corr_opts *opts, rs_corr_sink *sink, void *ctx,
                struct rs_corr **out, char *err);
void rs_corr_free(struct rs_corr *c);
/* Takes the paths of conversations another pass learned (the estimating one). */
void rs_corr_use_paths(struct rs_corr *c, const struct rs_corr *learned);

/* Feeds one frame of a point, in merged order of mapped time. Frames that are not
 * RDMA with an ICRC only move the clock on. */
void rs_corr_feed(struct rs_corr *c, unsigned point, const struct rs_frame *frame,
                  const struct rs_packet *pkt);
/* The same from the record of a frame, for a pass with no_frames (no frame is held). */
void rs_corr_feed_sighting(struct rs_corr *c, unsigned point,
                           const struct rs_corr_sighting *s);
/* Finishes every packet still open (at the end of the captures). */
void rs_corr_flush(struct rs_corr *c);

/* After a collect pass: each point's clock (point 0's is the identity), refined from
 * the clocks it was made with; false when a point matched nothing. */
bool rs_corr_clocks(const struct rs_corr *c, struct rs_corr_clock *out);

/* Counts over the run. */
struct rs_corr_counts {
    uint64_t packets;               /* distinct packets (sightings joined) */
    uint64_t matched;               /* seen at two points or more */
    uint64_t lost;                  /* lost on a segment of its path */
    uint64_t ce_marked;
    uint64_t missed;                /* capture loss: missed by a point between others */
    uint64_t not_told;              /* of those, missed where the next point's capture
                                       recorded drops at the time: network or capture loss,
                                       not told apart (counted as missed, not lost) */
    uint64_t contradictions;
    uint64_t forced;                /* finished before the window by a full table */
    uint64_t convs_untracked;       /* packets of conversations past RS_CORR_MAX_CONVS */
    int64_t delay_max;              /* the largest time between two sightings of a packet,
                                       either way, on the clocks of the pass; ns */
    uint64_t late;                  /* estimating pass: sightings that came after the window
                                       of a packet of their key their point had not seen
                                       (their gap counts in delay_max) */
};
struct rs_corr_counts rs_corr_counts(const struct rs_corr *c);
/* Counts of one point over the run. */
struct rs_corr_point_counts {
    uint64_t frames;                /* RDMA frames with an ICRC fed */
    uint64_t capture_drops;         /* what its file recorded */
    int64_t first, last;            /* mapped times, ns */
};
struct rs_corr_point_counts rs_corr_point_counts(const struct rs_corr *c, unsigned point);

/* -z corr,qp: per conversation and segment, packets, losses, CE marks, delay
 * p50/p99/max, reordered packets; the clocks first. names[] are the points' files. */
void rs_corr_print_stats(const struct rs_corr *c, const char *const *names, struct rs_out *o);

/* The first frames of each point, matched with no clock, give a coarse clock for the
 * merge (the estimating pass refines it). */
struct rs_corr_probe;
int rs_corr_probe_new(unsigned n_points, struct rs_corr_probe **out);
/* false once the point has given its share */
bool rs_corr_probe_add(struct rs_corr_probe *p, unsigned point, const struct rs_frame *frame,
                       const struct rs_packet *pkt);
void rs_corr_probe_clocks(struct rs_corr_probe *p, struct rs_corr_clock *out);
/* After rs_corr_probe_clocks: the largest delay of a key's first sightings after the
 * coarse offsets (a retransmission's makes it larger, never smaller); -1 when none matched. */
int64_t rs_corr_probe_delay_max(const struct rs_corr_probe *p);
void rs_corr_probe_free(struct rs_corr_probe *p);
#define RS_CORR_PROBE_FRAMES 20000

/* plot segments: each segment's one-way delay over time, with its losses and CE marks,
 * as an SVG. Packets are gathered in RS_CORR_PLOT_BINS bins of time per segment (a
 * segment is an ordered pair of points: A>B and B>A apart, made when first drawn), so
 * memory does not grow with the captures. */
#define RS_CORR_PLOT_BINS 720
struct rs_corr_plot;
/* from, to: the span of time drawn, ns on A's clock (rs_corr_counts' first and last of an
 * earlier pass); a packet outside falls in the first or last bin. */
int rs_corr_plot_new(unsigned n_points, int64_t from, int64_t to, struct rs_corr_plot **out);
void rs_corr_plot_add(struct rs_corr_plot *pl, const struct rs_corr_view *v);
/* names[] are the points' files, listed under the title. */
int rs_corr_plot_write_svg(const struct rs_corr_plot *pl, const char *const *names,
                           unsigned n_points, FILE *fp, char *err);
void rs_corr_plot_free(struct rs_corr_plot *pl);

/* The name of point i: "A" .. "Z", then "AA" .. "ZZ", "AAA" ... (as spreadsheet columns). */
#define RS_CORR_NAME_SIZE 8         /* 7 letters: more points than memory holds */
struct rs_corr_name {
    char s[RS_CORR_NAME_SIZE];
};
struct rs_corr_name rs_corr_point_name(unsigned i);
/* The point a name gives, its length in *len; false when s starts with no name. */
bool rs_corr_point_parse(const char *s, unsigned *point, size_t *len);

#endif /* ROCESHARK_CORR_H */
