/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm_cases.c - the CM MAD parser and the CM engine (transport/cm) against
 * mutated MADs (cm_cases.h).
 *
 * Each case connects two engines over an in-memory wire and keeps every MAD
 * they exchanged (REQ, REP, RTU, DREQ, DREP, and a REJ), so the templates
 * are what the engine itself builds. It then feeds mutated copies to an
 * engine in a random state (fresh, waiting for a REP, waiting for an RTU,
 * established): bytes flipped, fields of the layout table set to random or
 * edge values, the attribute changed, lengths cut or grown. Half the cases
 * run engines as rdma_cm's consumer drives them (REQs held, RTUs held, time
 * wait), with the consumer's calls (accept, reject, confirm, abandon) on
 * the IDs seen, between the MADs. Each MAD sits
 * in a heap buffer of exactly its length, so AddressSanitizer sees a read
 * past it. Checks: the engine's counters add up (every MAD received is
 * handled or counted as dropped), the connection table never exceeds its
 * size, and a clean connection still works after the case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/transport/cm.h>

#include "cm_cases.h"

#include "splitmix.h"

#define KEEP 16


struct wire {
    struct rs_cm *a, *b;
    uint8_t kept[KEEP][RS_CM_MAD_LEN];
    unsigned n_kept;
    uint8_t q[64][RS_CM_MAD_LEN];
    int q_to[64];
    unsigned n_q;
    uint64_t now;
    bool consumer;          /* REQs and REPs held, time wait */
    uint32_t ids[8];        /* IDs seen, for the consumer's calls */
    unsigned n_ids;
};

static void
id_seen(struct wire *w, uint32_t id)
{
    w->ids[w->n_ids++ % 8] = id;
}

static const uint8_t gid_a[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1};
static const uint8_t gid_b[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 2};

static void
wire_send(void *arg, const uint8_t *gid, uint32_t qp, const uint8_t *mad)
{
    struct wire *w = arg;

    (void)qp;
    if (w->n_kept < KEEP)
        memcpy(w->kept[w->n_kept++], mad, RS_CM_MAD_LEN);
    if (w->n_q < 64) {
        w->q_to[w->n_q] = gid[15] == 1 ? 0 : 1;
        memcpy(w->q[w->n_q++], mad, RS_CM_MAD_LEN);
    }
}

static uint16_t
accept_all(void *arg, uint32_t id, uint16_t port, const struct rs_cm_params *peer,
           struct rs_cm_params *ours)
{
    struct wire *w = arg;

    (void)port;
    id_seen(w, id);
    ours->qpn = id & 0xffffff;
    ours->pmtu = peer->pmtu;
    ours->private_len = (uint8_t)(rnd() % (RS_CM_REP_PRIVATE_MAX + 1));
    if (w->consumer && rnd() % 2 == 0)
        return RS_CM_HOLD;
    return rnd() % 8 == 0 ? RS_CM_REJ_CONSUMER : 0;
}

/* One of the consumer's calls, on an ID seen, to either engine. */
static void
consumer_call(struct wire *w)
{
    struct rs_cm *cm = rnd() % 2 ? w->a : w->b;
    uint32_t id = w->n_ids > 0 ? w->ids[rnd() % (w->n_ids < 8 ? w->n_ids : 8)] : 0;
    struct rs_cm_params p;
    uint8_t priv[RS_CM_REJ_PRIVATE_MAX + 1];
    char err[RS_ERRBUF_SIZE];

    memset(&p, 0, sizeof(p));
    p.pmtu = 1024;
    p.private_len = (uint8_t)(rnd() % (RS_CM_REP_PRIVATE_MAX + 1));
    memset(priv, (int)rnd(), sizeof(priv));
    switch (rnd() % 5) {
    case 0:
        rs_cm_accept(cm, id, &p, w->now, err);
        break;
    case 1:
        rs_cm_reject(cm, id, (uint16_t)rnd(), priv, (uint8_t)rnd(), w->now, err);
        break;
    case 2:
        rs_cm_confirm(cm, id, w->now, err);
        break;
    case 3:
        rs_cm_disconnect(cm, id, w->now, err);
        break;
    default:
        rs_cm_abandon(cm, id, w->now);
        break;
    }
}

static void
deliver(struct wire *w)
{
    for (unsigned i = 0; i < w->n_q; i++)
        rs_cm_input(w->q_to[i] == 0 ? w->a : w->b, w->q_to[i] == 0 ? gid_b : gid_a, 1, w->q[i],
                    RS_CM_MAD_LEN, w->now);
    w->n_q = 0;
}

static void
check_counters(struct rs_cm *cm)
{
    const struct rs_cm_counters *c = rs_cm_counters_get(cm);
    uint64_t dropped = c->drop_short + c->drop_not_cm + c->drop_version + c->drop_method +
                       c->drop_attr;

    if (dropped > c->rx) {
        fprintf(stderr, "cm_fuzz: %llu dropped of %llu received\n",
                (unsigned long long)dropped, (unsigned long long)c->rx);
        abort();    /* the test's own invariant */
    }
}

static void
wire_open(struct wire *w)
{
    struct rs_cm_opts o;
    char err[RS_ERRBUF_SIZE];

    memset(w, 0, sizeof(*w));
    w->consumer = rnd() % 2 == 0;
    rs_cm_opts_init(&o);
    o.response_timeout = 8;
    o.max_retries = 2;
    o.hold_rtu = w->consumer;
    o.timewait_ns = w->consumer ? rs_cm_timeout_ns(8) : 0;
    o.ops = (struct rs_cm_ops){wire_send, w, accept_all, NULL, w};
    memcpy(o.gid, gid_a, 16);
    o.id_seed = (uint32_t)rnd();
    if (rs_cm_create(&w->a, &o, err) < 0)
        abort();
    memcpy(o.gid, gid_b, 16);
    o.id_seed = (uint32_t)rnd();
    if (rs_cm_create(&w->b, &o, err) < 0)
        abort();
}

static int
connect_once(struct wire *w, uint32_t *id)
{
    struct rs_cm_params p;
    char err[RS_ERRBUF_SIZE];

    memset(&p, 0, sizeof(p));
    p.qpn = 0x11;
    p.pmtu = 256u << (rnd() % 5);
    p.private_len = (uint8_t)(rnd() % (RS_CM_REQ_PRIVATE_MAX + 1));
    int rc = rs_cm_connect(w->a, gid_b, (uint16_t)rnd(), &p, w->now, id, err);
    if (rc == 0)
        id_seen(w, *id);
    return rc;
}

/* One MAD, mutated, in a buffer of exactly its length, to engine cm. */
static void
feed_mutated(struct wire *w, struct rs_cm *cm, const uint8_t *tmpl)
{
    uint8_t m[RS_CM_MAD_LEN + 16];
    size_t len = RS_CM_MAD_LEN;
    struct rs_cm_mad_hdr h;
    const struct rs_cm_layout *l;

    memcpy(m, tmpl, RS_CM_MAD_LEN);
    memset(m + RS_CM_MAD_LEN, (int)rnd(), 16);
    switch (rnd() % 5) {
    case 0:
        for (unsigned k = 1 + rnd() % 8; k > 0; k--)
            m[rnd() % RS_CM_MAD_LEN] ^= (uint8_t)(1u << (rnd() % 8));
        break;
    case 1:
        if (rs_cm_parse(m, RS_CM_MAD_LEN, &h, &l) == RS_CM_OK) {
            enum rs_cm_field f = (enum rs_cm_field)(rnd() % RS_CMF_COUNT);
            uint64_t edges[] = {0, 1, ~0ull, rnd(), 0x80000000u};
            rs_cm_set(l, m + RS_CM_MAD_HDR_LEN, f, edges[rnd() % 5]);
        }
        break;
    case 2:
        m[16] = 0;
        m[17] = (uint8_t)(0x0f + rnd() % 10);  /* every CM attribute, and neighbours */
        break;
    case 3:
        len = rnd() % (RS_CM_MAD_LEN + 16);
        break;
    default:
        m[rnd() % 4] = (uint8_t)rnd();         /* the header's version, class, method */
        break;
    }
    uint8_t *exact = malloc(len > 0 ? len : 1);
    if (exact == NULL)
        abort();
    memcpy(exact, m, len);
    rs_cm_input(cm, cm == w->a ? gid_b : gid_a, 1, exact, (uint32_t)len, w->now);
    free(exact);
}

void
cm_cases_seed(uint64_t seed)
{
    rng_state = seed;
}

void
cm_cases_run(void)
{
    struct wire w;
    uint32_t id;
    char err[RS_ERRBUF_SIZE];

    wire_open(&w);
    if (connect_once(&w, &id) == 0) {
        deliver(&w);
        rs_cm_disconnect(w.a, id, w.now, err);
        deliver(&w);
    }
    unsigned state = (unsigned)(rnd() % 4);     /* how far the next connection gets */
    if (state > 0 && connect_once(&w, &id) == 0 && state > 1) {
        for (unsigned i = 0; i < w.n_q && state == 2; i++)
            rs_cm_input(w.b, gid_a, 1, w.q[i], RS_CM_MAD_LEN, w.now);  /* REP unanswered */
        if (state == 3)
            deliver(&w);
        w.n_q = state == 2 ? 0 : w.n_q;
    }
    for (unsigned k = 0; k < 32 && w.n_kept > 0; k++) {
        feed_mutated(&w, rnd() % 2 ? w.a : w.b, w.kept[rnd() % w.n_kept]);
        if (w.consumer && rnd() % 3 == 0)
            consumer_call(&w);
        if (rnd() % 4 == 0) {
            w.now += rs_cm_timeout_ns(8) * (rnd() % 3);
            rs_cm_progress(w.a, w.now);
            rs_cm_progress(w.b, w.now);
        }
        deliver(&w);
    }
    check_counters(w.a);
    check_counters(w.b);
    /* Whatever happened, a fresh connection still comes up (or is refused by name). */
    w.n_q = 0;
    if (connect_once(&w, &id) == 0)
        deliver(&w);
    rs_cm_destroy(w.a);
    rs_cm_destroy(w.b);
}

void
cm_cases_input(const uint8_t *data, size_t size)
{
    struct wire w;
    uint32_t id;

    if (size < 1)
        return;
    rng_state = data[0];
    wire_open(&w);
    if (data[0] & 1)
        connect_once(&w, &id);
    if (data[0] & 2)
        deliver(&w);
    rs_cm_input(data[0] & 4 ? w.a : w.b, gid_a, 1, data + 1, (uint32_t)(size - 1), 0);
    deliver(&w);
    check_counters(w.a);
    check_counters(w.b);
    rs_cm_destroy(w.a);
    rs_cm_destroy(w.b);
}
