/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_shim.c - moves N megabytes (100 by default) of mixed RC operations
 * between a requester and a responder through a shim that loses 1% of the
 * packets each way, duplicates 1% and reorders 1%, then checks that nothing
 * was lost, corrupted or executed twice: every READ against a shadow copy
 * of the responder's memory (CRC-32 of the range as it was when posted),
 * every SEND against the checksum of what was sent, every atomic against
 * the value the shadow predicts, the responder's execution counters against
 * what was posted, and finally the whole region read back and compared.
 *
 * The two contexts run in one process on a virtual clock (rc_pair.c), so
 * timeouts cost no wall time and a run is reproducible from its seed. The
 * shim sits in memory rather than on the wire: this kernel has no netem,
 * and a user-space relay between sockets would have to rewrite the IP
 * addresses that the ICRC covers. 100 MB takes about 0.3 s, 1 s under
 * ASan+UBSan, so both builds run the full size.
 *
 * usage: rc_shim [MEGABYTES [SEED]]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <roceshark/dissectors/crc.h>

#include "rc_pair.h"

#define REMOTE_SIZE (16u << 20)
#define COUNTERS 64u             /* the first bytes hold 8 atomic counters */
#define SLOTS 64u                /* work requests outstanding */
#define MAX_MSG (256u << 10)
#define RECV_SLOTS 64u

enum kind { K_WRITE, K_READ, K_SEND, K_ATOMIC };

struct slot {
    bool busy;
    enum kind kind;
    uint32_t len;
    uint32_t expect_crc;        /* READ: the range when posted */
    uint64_t off;               /* READ: where */
    uint64_t expect_orig;       /* atomic */
};

struct run {
    struct rc_pair pair;
    struct rs_rc_qp *qa, *qb;
    uint8_t *remote, *shadow, *local, *recvbuf;
    struct rs_rc_mr remote_mr, local_mr, recv_mr;
    struct slot slot[SLOTS];
    uint32_t send_crc[SLOTS * 4];       /* expected SEND checksums, in order */
    uint32_t send_len[SLOTS * 4];
    uint64_t send_head, send_tail;
    uint64_t rng;
    uint64_t moved, target;
    uint64_t posted[4];
    unsigned outstanding;
    unsigned failures;
    struct timespec t0;
};

static uint64_t
rnd(struct run *r)
{
    return rc_test_rand(&r->rng);
}

static void
fail(struct run *r, const char *what, uint64_t a, uint64_t b)
{
    if (r->failures++ < 10)
        fprintf(stderr, "FAIL: %s (%" PRIu64 " vs %" PRIu64 ")\n", what, a, b);
}

static uint32_t
msg_len(struct run *r)
{
    uint64_t x = rnd(r);

    switch (x % 8) {
    case 0:
        return 0;
    case 1:
    case 2:
        return (uint32_t)(x >> 8) % 4096 + 1;
    default:
        return (uint32_t)(x >> 8) % MAX_MSG + 1;
    }
}

static void
post_recv(struct run *r, unsigned i)
{
    struct rs_rc_recv_wr wr = {i, {r->recv_mr.va + (uint64_t)i * MAX_MSG, MAX_MSG,
                                   r->recv_mr.lkey}};
    char err[RS_ERRBUF_SIZE];

    if (rs_rc_post_recv(r->qb, &wr, err) < 0)
        fail(r, err, 0, 0);
}

static bool
overlaps_read(const struct run *r, uint64_t off, uint32_t len)
{
    for (unsigned i = 0; i < SLOTS; i++) {
        const struct slot *s = &r->slot[i];
        if (s->busy && s->kind == K_READ && off < s->off + s->len && s->off < off + len)
            return true;
    }
    return false;
}

static void
post_one(struct run *r, unsigned i)
{
    struct slot *s = &r->slot[i];
    struct rs_rc_send_wr wr;
    char err[RS_ERRBUF_SIZE];
    uint64_t pick = rnd(r) % 100;
    uint8_t *src = r->local + (uint64_t)i * MAX_MSG;

    memset(&wr, 0, sizeof(wr));
    memset(s, 0, sizeof(*s));
    wr.wr_id = i;
    wr.flags = RS_RC_SEND_SIGNALED;
    wr.sge.lkey = r->local_mr.lkey;
    wr.sge.addr = r->local_mr.va + (uint64_t)i * MAX_MSG;
    wr.rkey = r->remote_mr.rkey;
    s->kind = pick < 40 ? K_WRITE : pick < 70 ? K_READ : pick < 92 ? K_SEND : K_ATOMIC;
    if (s->kind == K_SEND && r->send_tail - r->send_head >= SLOTS * 4)
        s->kind = K_WRITE;
    if (s->kind == K_ATOMIC) {
        uint64_t off = (rnd(r) % (COUNTERS / 8)) * 8;
        uint64_t cur;
        memcpy(&cur, r->shadow + off, 8);
        wr.remote_addr = r->remote_mr.va + off;
        wr.sge.length = 8;
        s->expect_orig = cur;
        if (rnd(r) & 1) {
            wr.opcode = RS_RC_WR_ATOMIC_FETCH_AND_ADD;
            wr.compare_add = rnd(r) % 1000 + 1;
            cur += wr.compare_add;
        } else {
            wr.opcode = RS_RC_WR_ATOMIC_CMP_AND_SWP;
            wr.compare_add = (rnd(r) & 1) ? cur : cur + 1;   /* hit or miss */
            wr.swap = rnd(r);
            if (wr.compare_add == cur)
                cur = wr.swap;
        }
        memcpy(r->shadow + off, &cur, 8);
        s->len = 0;
    } else {
        uint32_t len = msg_len(r);
        uint64_t off = COUNTERS + rnd(r) % (REMOTE_SIZE - COUNTERS - len + 1);
        wr.sge.length = len;
        wr.remote_addr = r->remote_mr.va + off;
        s->len = len;
        if (s->kind == K_READ) {
            wr.opcode = RS_RC_WR_RDMA_READ;
            s->off = off;
            s->expect_crc = rs_crc32(r->shadow + off, len);
        } else {
            for (uint32_t k = 0; k < len; k += 8) {
                uint64_t v = rnd(r);
                memcpy(src + k, &v, len - k < 8 ? len - k : 8);
            }
            if (s->kind == K_WRITE) {
                /* A WRITE may overtake a READ posted before it (IBTA
                 * ordering rules): fence it when it overlaps one. */
                if (overlaps_read(r, off, len))
                    wr.flags |= RS_RC_SEND_FENCE;
                wr.opcode = (rnd(r) % 8 == 0) ? RS_RC_WR_RDMA_WRITE_WITH_IMM
                                              : RS_RC_WR_RDMA_WRITE;
                wr.imm = (uint32_t)off;
                memcpy(r->shadow + off, src, len);
                if (wr.opcode == RS_RC_WR_RDMA_WRITE_WITH_IMM) {
                    /* It takes a receive: B checks it like a SEND of 0 bytes. */
                    r->send_crc[r->send_tail % (SLOTS * 4)] = 0;
                    r->send_len[r->send_tail++ % (SLOTS * 4)] = UINT32_MAX;
                }
            } else {
                wr.opcode = RS_RC_WR_SEND;
                r->send_crc[r->send_tail % (SLOTS * 4)] = rs_crc32(src, len);
                r->send_len[r->send_tail++ % (SLOTS * 4)] = len;
            }
        }
    }
    if (rs_rc_post_send(r->qa, &wr, err) < 0) {
        fail(r, err, 0, 0);
        return;
    }
    s->busy = true;
    r->outstanding++;
    r->moved += s->len;
    r->posted[s->kind]++;
}

static void
reap(struct run *r)
{
    struct rs_rc_wc wc[32];
    int n;

    while ((n = rs_rc_poll_cq(r->qa, wc, 32)) > 0) {
        for (int k = 0; k < n; k++) {
            struct slot *s = &r->slot[wc[k].wr_id % SLOTS];
            uint8_t *buf = r->local + (wc[k].wr_id % SLOTS) * MAX_MSG;
            if (wc[k].status != RS_RC_WC_SUCCESS)
                fail(r, rs_rc_wc_status_name(wc[k].status), wc[k].wr_id, 0);
            if (s->kind == K_READ && rs_crc32(buf, s->len) != s->expect_crc)
                fail(r, "READ data differs from the shadow", wc[k].wr_id, s->len);
            if (s->kind == K_ATOMIC) {
                uint64_t orig;
                memcpy(&orig, buf, 8);
                if (orig != s->expect_orig)
                    fail(r, "atomic original value", orig, s->expect_orig);
            }
            s->busy = false;
            r->outstanding--;
        }
    }
    while ((n = rs_rc_poll_cq(r->qb, wc, 32)) > 0) {
        for (int k = 0; k < n; k++) {
            unsigned i = (unsigned)wc[k].wr_id;
            uint32_t want_len = r->send_len[r->send_head % (SLOTS * 4)];
            uint32_t want_crc = r->send_crc[r->send_head++ % (SLOTS * 4)];
            if (wc[k].status != RS_RC_WC_SUCCESS) {
                fail(r, "receive completion", wc[k].status, 0);
                continue;   /* the QP is in error: reposting would flush again */
            }
            if (want_len == UINT32_MAX) {
                if (wc[k].opcode != RS_RC_WC_RECV_RDMA_WITH_IMM)
                    fail(r, "expected a WRITE with immediate", wc[k].opcode, 0);
            } else if (wc[k].byte_len != want_len ||
                       rs_crc32(r->recvbuf + (uint64_t)i * MAX_MSG, want_len) != want_crc) {
                fail(r, "SEND data or length", wc[k].byte_len, want_len);
            }
            post_recv(r, i);
        }
    }
}

static double
wall_seconds(const struct run *r)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - r->t0.tv_sec) + (double)(t.tv_nsec - r->t0.tv_nsec) / 1e9;
}

static void
run_traffic(struct run *r)
{
    uint64_t guard = 0;

    while ((r->moved < r->target || r->outstanding > 0) && r->failures == 0) {
        for (unsigned i = 0; i < SLOTS && r->moved < r->target; i++)
            if (!r->slot[i].busy)
                post_one(r, i);
        rc_pair_step(&r->pair);
        reap(r);
        struct rc_pair *p = &r->pair;
        if (p->q[0].head == p->q[0].tail && p->q[1].head == p->q[1].tail) {
            uint64_t d0 = rs_rc_next_deadline(p->ctx[0]);
            uint64_t d1 = rs_rc_next_deadline(p->ctx[1]);
            uint64_t d = d0 < d1 ? d0 : d1;
            if (d == RS_RC_INFINITE && r->outstanding > 0) {
                fail(r, "stalled with work outstanding", r->outstanding, 0);
                return;
            }
            if (d != RS_RC_INFINITE && d > p->now)
                p->now = d;
        }
        /* A broken transport livelocks rather than fails: bound the run. */
        if ((++guard & 4095) == 0 && (wall_seconds(r) > 120 || p->now > 600000000000ull)) {
            fail(r, "no end in sight: bytes posted, target", r->moved, r->target);
            return;
        }
    }
}

/* Reads the whole region back through the lossy link and compares. */
static void
read_back(struct run *r)
{
    for (uint64_t off = 0; off < REMOTE_SIZE && r->failures == 0; off += MAX_MSG) {
        struct rs_rc_send_wr wr;
        char err[RS_ERRBUF_SIZE];
        memset(&wr, 0, sizeof(wr));
        wr.opcode = RS_RC_WR_RDMA_READ;
        wr.flags = RS_RC_SEND_SIGNALED;
        wr.sge = (struct rs_rc_sge){r->local_mr.va, MAX_MSG, r->local_mr.lkey};
        wr.remote_addr = r->remote_mr.va + off;
        wr.rkey = r->remote_mr.rkey;
        r->slot[0] = (struct slot){.busy = true, .kind = K_READ, .len = MAX_MSG,
                                   .expect_crc = rs_crc32(r->shadow + off, MAX_MSG),
                                   .off = off};
        if (rs_rc_post_send(r->qa, &wr, err) < 0) {
            fail(r, err, off, 0);
            return;
        }
        r->outstanding = 1;
        run_traffic(r);
        if (memcmp(r->local, r->shadow + off, MAX_MSG) != 0)
            fail(r, "read-back differs from the shadow at offset", off, 0);
    }
    if (memcmp(r->remote, r->shadow, REMOTE_SIZE) != 0)
        fail(r, "responder memory differs from the shadow", 0, 0);
}

static int
setup(struct run *r, char *err)
{
    struct rs_rc_qp_attr attr;

    r->remote = calloc(1, REMOTE_SIZE);
    r->shadow = calloc(1, REMOTE_SIZE);
    r->local = calloc(SLOTS, MAX_MSG);
    r->recvbuf = calloc(RECV_SLOTS, MAX_MSG);
    if (r->remote == NULL || r->shadow == NULL || r->local == NULL || r->recvbuf == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    for (uint32_t k = COUNTERS; k < REMOTE_SIZE; k++)
        r->remote[k] = r->shadow[k] = (uint8_t)(k * 2654435761u >> 24);
    int rc = rc_pair_init(&r->pair, err);
    if (rc < 0)
        return rc;
    rs_rc_qp_attr_init(&attr);
    attr.pmtu = 4096;
    attr.sq_psn = 0xfff000;     /* the run crosses the 24-bit PSN wrap */
    attr.rq_psn = 0xffff00;
    attr.timeout = 12;          /* 16.8 ms, virtual */
    attr.sq_depth = SLOTS;
    attr.rq_depth = RECV_SLOTS;
    attr.max_inflight = 512;
    rc = rc_pair_connect(&r->pair, &attr, &r->qa, &r->qb, err);
    if (rc < 0)
        return rc;
    struct rs_rc_ctx *a = r->pair.ctx[0], *b = r->pair.ctx[1];
    if ((rc = rs_rc_mr_reg(b, r->remote, REMOTE_SIZE, 0x7f0000000000ull, 0,
                           RS_RC_ACCESS_REMOTE_ALL | RS_RC_ACCESS_LOCAL_WRITE, &r->remote_mr,
                           err)) < 0 ||
        (rc = rs_rc_mr_reg(b, r->recvbuf, (uint64_t)RECV_SLOTS * MAX_MSG, 0, 0,
                           RS_RC_ACCESS_LOCAL_WRITE, &r->recv_mr, err)) < 0 ||
        (rc = rs_rc_mr_reg(a, r->local, (uint64_t)SLOTS * MAX_MSG, 0, 0,
                           RS_RC_ACCESS_LOCAL_WRITE, &r->local_mr, err)) < 0)
        return rc;
    for (unsigned i = 0; i < RECV_SLOTS; i++)
        post_recv(r, i);
    return 0;
}

int
main(int argc, char **argv)
{
    static struct run r;
    char err[RS_ERRBUF_SIZE];
    uint64_t mb = argc > 1 ? strtoull(argv[1], NULL, 0) : 100;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed1234abcdull;
    struct timespec t0, t1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    r.t0 = t0;
    if (setup(&r, err) < 0) {
        fprintf(stderr, "rc_shim: %s\n", err);
        return 1;
    }
    r.rng = seed | 1;
    r.target = mb << 20;
    r.pair.shim = (struct rc_pair_shim){10000, 10000, 10000, seed * 7 + 1, 0, 0, 0};
    run_traffic(&r);
    uint64_t moved = r.moved;
    read_back(&r);
    clock_gettime(CLOCK_MONOTONIC, &t1);

    const struct rs_rc_counters *ca = rs_rc_counters_get(r.pair.ctx[0]);
    const struct rs_rc_counters *cb = rs_rc_counters_get(r.pair.ctx[1]);
    /* Exactly once: the responder executed what was posted, no more. */
    if (cb->exec_write != r.posted[K_WRITE])
        fail(&r, "WRITEs executed", cb->exec_write, r.posted[K_WRITE]);
    if (cb->exec_send != r.posted[K_SEND])
        fail(&r, "SENDs executed", cb->exec_send, r.posted[K_SEND]);
    if (cb->exec_atomic != r.posted[K_ATOMIC])
        fail(&r, "atomics executed", cb->exec_atomic, r.posted[K_ATOMIC]);
    /* The shim must have hurt, and recovery must have happened. */
    if (r.pair.shim.lost == 0 || r.pair.shim.duplicated == 0 || r.pair.shim.reordered == 0 ||
        ca->retransmits == 0 || cb->nak_psn_seq == 0 || cb->dup_write + cb->dup_send == 0)
        fail(&r, "the shim did not exercise recovery", ca->retransmits, cb->nak_psn_seq);

    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("moved %.1f MB (%" PRIu64 " writes, %" PRIu64 " reads, %" PRIu64 " sends, %" PRIu64
           " atomics) + %u MB read back in %.2f s wall, %.3f s virtual\n",
           (double)moved / 1048576, r.posted[K_WRITE], r.posted[K_READ], r.posted[K_SEND],
           r.posted[K_ATOMIC], REMOTE_SIZE >> 20, wall, (double)r.pair.now / 1e9);
    printf("shim: %" PRIu64 " lost, %" PRIu64 " duplicated, %" PRIu64 " reordered\n",
           r.pair.shim.lost, r.pair.shim.duplicated, r.pair.shim.reordered);
    printf("requester: %" PRIu64 " retransmits, %" PRIu64 " sequence NAKs, %" PRIu64
           " timeouts, %" PRIu64 " implied NAKs, %" PRIu64 " READ gaps, %" PRIu64
           " duplicate responses\n",
           ca->retransmits, ca->seq_nak_received, ca->timeouts, ca->implied_nak, ca->read_gap,
           ca->dup_response);
    printf("responder: %" PRIu64 " duplicates (send %" PRIu64 ", write %" PRIu64 ", read %" PRIu64
           ", atomic %" PRIu64 "), %" PRIu64 " gap drops, %" PRIu64 " without resource\n",
           cb->dup_send + cb->dup_write + cb->dup_read + cb->dup_atomic, cb->dup_send,
           cb->dup_write, cb->dup_read, cb->dup_atomic, cb->drop_psn_gap,
           cb->drop_dup_no_resource);
    rc_pair_free(&r.pair);
    free(r.remote);
    free(r.shadow);
    free(r.local);
    free(r.recvbuf);
    if (r.failures > 0) {
        printf("rc_shim: %u failure(s)\n", r.failures);
        return 1;
    }
    printf("rc_shim: ok\n");
    return 0;
}
