/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_pair.h - two RC contexts joined in memory, for the tests: a link per
 * direction with optional loss, duplication and reordering, a filter to
 * inspect or drop single packets, and a virtual clock that jumps to the
 * next timer when nothing is in flight.
 */
#ifndef ROCESHARK_TEST_RC_PAIR_H
#define ROCESHARK_TEST_RC_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/transport/rc.h>

/* The tests' random numbers: xorshift64, reproducible from the seed. */
static inline uint64_t
rc_test_rand(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

struct rc_pair_pkt {
    uint32_t len;
    uint8_t *data;
};

struct rc_pair_queue {
    struct rc_pair_pkt *pkts;
    size_t head, tail, cap;     /* [head, tail) in flight */
};

struct rc_pair_shim {
    uint32_t loss_ppm;      /* parts per million of packets dropped */
    uint32_t dup_ppm;       /* ... sent twice */
    uint32_t reorder_ppm;   /* ... overtaken by the packet sent after them */
    uint64_t seed;
    uint64_t lost, duplicated, reordered;
};

/* Returns false to drop the packet; from is 0 or 1. */
typedef bool (*rc_pair_filter_fn)(void *arg, int from, uint8_t *pkt, uint32_t len);

struct rc_pair_side {
    struct rc_pair *pair;
    int index;
    uint8_t txbuf[RS_RC_MAX_PACKET];
};

struct rc_pair {
    struct rs_rc_ctx *ctx[2];
    struct rc_pair_side side[2];
    struct rc_pair_queue q[2];  /* q[i]: sent by ctx i, for the other */
    struct rc_pair_shim shim;
    rc_pair_filter_fn filter;
    void *filter_arg;
    uint64_t now;               /* virtual nanoseconds */
    uint64_t delivered;
    uint8_t gid[2][16];         /* the contexts' addresses */
};

/* Contexts on 10.0.0.1 (0) and 10.0.0.2 (1). */
int rc_pair_init(struct rc_pair *p, char *err);
/* The same on fd00::1 and fd00::2: IPv6 packets. */
int rc_pair_init_ipv6(struct rc_pair *p, char *err);
void rc_pair_free(struct rc_pair *p);
/* Creates a QP on each side, connected to each other, from attr. */
int rc_pair_connect(struct rc_pair *p, const struct rs_rc_qp_attr *attr,
                    struct rs_rc_qp **qa, struct rs_rc_qp **qb, char *err);
/* Runs until both sides are idle or done(arg) says stop; false when
 * max_steps ran out first. */
bool rc_pair_run(struct rc_pair *p, bool (*done)(void *arg), void *arg, uint64_t max_steps);
/* Delivers what is in flight and lets both sides send once, without
 * advancing the clock to a timer. */
void rc_pair_step(struct rc_pair *p);

#endif /* ROCESHARK_TEST_RC_PAIR_H */
