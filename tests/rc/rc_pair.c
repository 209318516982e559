/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_pair.c - see rc_pair.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rc_pair.h"

#define STEP_NS 200     /* virtual time one delivered packet takes */

static void
queue_push(struct rc_pair_queue *q, const uint8_t *data, uint32_t len)
{
    if (q->tail == q->cap) {
        size_t n = q->tail - q->head;
        if (q->head > 0 && n < q->cap / 2) {
            memmove(q->pkts, q->pkts + q->head, n * sizeof(*q->pkts));
        } else {
            q->cap = q->cap == 0 ? 256 : q->cap * 2;
            q->pkts = realloc(q->pkts, q->cap * sizeof(*q->pkts));
            if (q->pkts == NULL)
                abort();
            memmove(q->pkts, q->pkts + q->head, n * sizeof(*q->pkts));
        }
        q->head = 0;
        q->tail = n;
    }
    struct rc_pair_pkt *pk = &q->pkts[q->tail++];
    pk->len = len;
    pk->data = malloc(len);
    if (pk->data == NULL)
        abort();
    memcpy(pk->data, data, len);
}

static uint8_t *
side_tx_buf(void *arg)
{
    return ((struct rc_pair_side *)arg)->txbuf;
}

static void
side_tx_send(void *arg, uint32_t len)
{
    struct rc_pair_side *s = arg;
    struct rc_pair *p = s->pair;
    struct rc_pair_queue *q = &p->q[s->index];
    struct rc_pair_shim *sh = &p->shim;

    if (p->filter != NULL && !p->filter(p->filter_arg, s->index, s->txbuf, len))
        return;
    if (sh->loss_ppm > 0 && rc_test_rand(&sh->seed) % 1000000 < sh->loss_ppm) {
        sh->lost++;
        return;
    }
    queue_push(q, s->txbuf, len);
    if (sh->dup_ppm > 0 && rc_test_rand(&sh->seed) % 1000000 < sh->dup_ppm) {
        sh->duplicated++;
        queue_push(q, s->txbuf, len);
    }
    /* Reorder: swap with the packet queued before it. */
    if (sh->reorder_ppm > 0 && q->tail - q->head >= 2 &&
        rc_test_rand(&sh->seed) % 1000000 < sh->reorder_ppm) {
        struct rc_pair_pkt t = q->pkts[q->tail - 1];
        q->pkts[q->tail - 1] = q->pkts[q->tail - 2];
        q->pkts[q->tail - 2] = t;
        sh->reordered++;
    }
}

/* RC_TRACE=1 in the environment prints every state the machines enter. */
static void
trace_stderr(void *arg, uint32_t qpn, const char *machine, const char *state, uint32_t psn)
{
    struct rc_pair_side *s = arg;

    fprintf(stderr, "%12llu ctx%d qp 0x%06x %-4s %-22s psn %u\n",
            (unsigned long long)s->pair->now, s->index, qpn, machine, state, psn);
}

static int
pair_open(struct rc_pair *p, const char *const addr[2], char *err)
{
    uint8_t gid[2][16];

    for (int i = 0; i < 2; i++)
        if (rs_addr_parse(addr[i], gid[i], NULL, err) < 0)
            return RS_EINVAL;
    memset(p, 0, sizeof(*p));
    memcpy(p->gid, gid, sizeof(gid));
    p->now = 1000000;
    for (int i = 0; i < 2; i++) {
        struct rs_rc_ctx_opts o;
        struct rs_rc_link link;
        memset(&link, 0, sizeof(link));
        rs_rc_ctx_opts_init(&o);
        memcpy(o.local_gid, p->gid[i], 16);
        if (getenv("RC_TRACE") != NULL) {
            o.trace = trace_stderr;
            o.trace_arg = &p->side[i];
        }
        p->side[i].pair = p;
        p->side[i].index = i;
        link.tx_buf = side_tx_buf;
        link.tx_send = side_tx_send;
        link.arg = &p->side[i];
        int rc = rs_rc_ctx_create(&p->ctx[i], &o, &link, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int
rc_pair_init(struct rc_pair *p, char *err)
{
    static const char *const addr[2] = {"10.0.0.1", "10.0.0.2"};

    return pair_open(p, addr, err);
}

int
rc_pair_init_ipv6(struct rc_pair *p, char *err)
{
    static const char *const addr[2] = {"fd00::1", "fd00::2"};

    return pair_open(p, addr, err);
}

void
rc_pair_free(struct rc_pair *p)
{
    for (int i = 0; i < 2; i++) {
        rs_rc_ctx_destroy(p->ctx[i]);
        for (size_t k = p->q[i].head; k < p->q[i].tail; k++)
            free(p->q[i].pkts[k].data);
        free(p->q[i].pkts);
    }
}

int
rc_pair_connect(struct rc_pair *p, const struct rs_rc_qp_attr *attr, struct rs_rc_qp **qa,
                struct rs_rc_qp **qb, char *err)
{
    struct rs_rc_qp_attr a = *attr, b = *attr;

    a.qpn = 0;
    memcpy(a.peer_gid, p->gid[1], 16);
    int rc = rs_rc_qp_create(p->ctx[0], &a, qa, err);
    if (rc < 0)
        return rc;
    b.qpn = 0;
    b.dest_qpn = rs_rc_qp_num(*qa);
    b.sq_psn = attr->rq_psn;
    b.rq_psn = attr->sq_psn;
    memcpy(b.peer_gid, p->gid[0], 16);
    rc = rs_rc_qp_create(p->ctx[1], &b, qb, err);
    if (rc < 0)
        return rc;
    /* Now that B has a number, point A at it, keeping A's number. */
    a.qpn = rs_rc_qp_num(*qa);
    rs_rc_qp_destroy(*qa);
    a.dest_qpn = rs_rc_qp_num(*qb);
    return rs_rc_qp_create(p->ctx[0], &a, qa, err);
}

static bool
deliver_one(struct rc_pair *p, int from)
{
    struct rc_pair_queue *q = &p->q[from];

    if (q->head == q->tail)
        return false;
    struct rc_pair_pkt pk = q->pkts[q->head++];
    p->now += STEP_NS;
    rs_rc_input(p->ctx[1 - from], pk.data, pk.len, p->now);
    free(pk.data);
    p->delivered++;
    return true;
}

void
rc_pair_step(struct rc_pair *p)
{
    /* Alternate the directions so that neither starves the other. */
    for (int n = 0; n < 64; n++) {
        bool a = deliver_one(p, 0);
        bool b = deliver_one(p, 1);
        if (!a && !b)
            break;
    }
    rs_rc_progress(p->ctx[0], p->now);
    rs_rc_progress(p->ctx[1], p->now);
}

bool
rc_pair_run(struct rc_pair *p, bool (*done)(void *arg), void *arg, uint64_t max_steps)
{
    for (uint64_t step = 0; step < max_steps; step++) {
        if (done != NULL && done(arg))
            return true;
        rc_pair_step(p);
        if (p->q[0].head != p->q[0].tail || p->q[1].head != p->q[1].tail)
            continue;
        uint64_t d0 = rs_rc_next_deadline(p->ctx[0]);
        uint64_t d1 = rs_rc_next_deadline(p->ctx[1]);
        uint64_t d = d0 < d1 ? d0 : d1;
        if (d == RS_RC_INFINITE)
            return done == NULL || done(arg);
        if (d > p->now)
            p->now = d;     /* idle: jump to the next timer */
    }
    return false;
}
