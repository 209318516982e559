/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwarp_gen_int.h - what the two halves of the case generator share: the
 * model of a connection (iwarp_streams.c builds what its sides send,
 * iwarp_gen.c sends it as mutated segments) and the random source.
 */
#ifndef ROCESHARK_IWARP_GEN_INT_H
#define ROCESHARK_IWARP_GEN_INT_H

#include "iwarp_gen.h"

#define MAX_CONNS 4
#define MAX_PENDING 16
#define MAX_PAYLOAD 65000u      /* one segment's payload: fits an IPv4 total length */
#define MAX_FRAMES 20000        /* per case: a case should take milliseconds */
#define MIN_WINDOW (128u * 1024)
#define ETH_LEN 14
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define MARKER_INTERVAL 512u

enum kind { K_EXCHANGE, K_NO_EXCHANGE, K_PLAIN };
enum cut { CUT_ALIGNED, CUT_MTU, CUT_TINY, CUT_BIG, CUT_MIXED };
enum ack_mode { ACK_HONEST, ACK_FROZEN, ACK_LIES };

/* splitmix64: cases are independent, each seeded from (seed, index). */
struct rng {
    uint64_t s;
};

static inline uint64_t
rng_next(struct rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static inline uint32_t
below(struct rng *r, uint32_t n)
{
    return (uint32_t)(((rng_next(r) >> 32) * n) >> 32);
}

static inline bool
chance(struct rng *r, unsigned per_mille)
{
    return below(r, 1000) < per_mille;
}


struct bytes {
    uint8_t *b;
    uint32_t len, cap;
};


/* What one side sends, and how far it got. */
struct gdir {
    struct bytes s;             /* the stream, from the SYN's sequence number + 1 */
    uint32_t *starts;           /* where its MPA frame and FPDUs start, ascending */
    uint32_t n_starts, starts_cap, next_start;
    uint32_t frame_end;         /* end of its MPA Request or Reply; 0: none */
    bool markers, crc;
    uint32_t marker_base;       /* stream offset markers count from */
    uint32_t msn[4];            /* next MSN of each queue */
    uint32_t isn;
    uint32_t base;              /* stream offset that follows the SYN (moves on reuse) */
    uint32_t next;              /* next stream offset to send */
    uint8_t cut;                /* enum cut */
};

struct pending {
    uint8_t side;
    bool alter;
    uint16_t delay;             /* steps of its connection before it goes */
    uint32_t off, n;
};

struct gconn {
    uint8_t family;
    uint8_t addr[2][16];
    uint16_t port[2];
    struct gdir d[2];
    int initiator;              /* side that sent the MPA Request; -1 none */
    bool strict;                /* Request, Reply, then FPDUs, as peers do */
    bool options;               /* TCP timestamps option */
    uint8_t ack_mode;
    unsigned rate;              /* mutations per 1000 segments, for each kind */
    bool lossless;              /* only late segments and identical retransmissions */
    struct pending pend[MAX_PENDING];
    unsigned n_pend;
    bool done;
};

struct gen {
    struct rng r;
    struct gen_case *gc;
    struct gconn c[MAX_CONNS];
    unsigned n_conns;
    bool hostile;
    uint64_t ts_ns;
    uint8_t seg[MAX_PAYLOAD];
    uint8_t ulpdu[65536 + 64];
};

static inline void
count(struct gen *g, enum gen_event e)
{
    g->gc->events[e]++;
}

/* iwarp_streams.c */
void *gen_xrealloc(void *p, size_t n);
void gen_fill_random(struct gen *g, uint8_t *p, uint32_t n);
uint32_t gen_pick_isn(struct gen *g);
/* Builds connection idx: addresses, ports, both streams, how they are sent. */
void gen_build_conn(struct gen *g, struct gconn *c, unsigned idx, bool clean);

#endif /* ROCESHARK_IWARP_GEN_INT_H */
