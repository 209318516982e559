/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm.c - pairing QPs from the InfiniBand Communication Manager (IBTA Vol 1,
 * chapter 12), whose MADs travel as UD SENDs to QP 1 (also over RoCE).
 *
 * The MAD layout is the CM's table (dissectors/ib/ib_cm.c). A REP answers
 * the REQ whose local communication ID it names as its remote one: the
 * REQ's sender and QP and the REP's sender and QP are the two ends.
 */
#include <roceshark/dissectors/cm_mad.h>

#include "analyzer_int.h"

#define CM_PENDING_MAX RS_ANALYSIS_CM_REQS_KEPT  /* a full table drops them all */

struct cm_req {
    struct rs_addr addr;
    uint32_t qpn;
};

/* The REQs waiting, in slots made once (at the first CM MAD) so that a REQ takes no memory
 * of its own: comm id -> slot in `by_id`, the free slots a stack. */
struct cm_pending {
    GHashTable *by_id;
    uint32_t n_free;
    uint32_t free[CM_PENDING_MAX];
    struct cm_req slots[CM_PENDING_MAX];
};

static struct cm_pending *
pending_get(struct rs_analyzer *an)
{
    struct cm_pending *p = an->cm_pending;
    if (p == NULL) {
        p = an->cm_pending = g_new(struct cm_pending, 1);
        p->by_id = g_hash_table_new(g_direct_hash, g_direct_equal);
        p->n_free = 0;
        for (uint32_t i = CM_PENDING_MAX; i > 0; i--)
            p->free[p->n_free++] = i - 1;
    }
    return p;
}

static void
pending_release(struct cm_pending *p, uint32_t id, struct cm_req *r)
{
    g_hash_table_remove(p->by_id, GUINT_TO_POINTER(id));
    p->free[p->n_free++] = (uint32_t)(r - p->slots);
}

/* A REQ's slot: its own again when the REQ is sent again, else a free one (a full table
 * first drops every REQ waiting: their QPs are then paired by PSN inference, as without
 * a CM). */
static struct cm_req *
pending_take(struct rs_analyzer *an, struct cm_pending *p, uint32_t id)
{
    struct cm_req *r = g_hash_table_lookup(p->by_id, GUINT_TO_POINTER(id));
    if (r != NULL)
        return r;
    if (p->n_free == 0) {
        an->cm_reqs_dropped += CM_PENDING_MAX;
        g_hash_table_remove_all(p->by_id);
        for (uint32_t i = CM_PENDING_MAX; i > 0; i--)
            p->free[p->n_free++] = i - 1;
    }
    r = &p->slots[p->free[--p->n_free]];
    g_hash_table_insert(p->by_id, GUINT_TO_POINTER(id), r);
    return r;
}

void
cm_free(struct rs_analyzer *an)
{
    if (an->cm_pending == NULL)
        return;
    g_hash_table_destroy(an->cm_pending->by_id);
    g_free(an->cm_pending);
    an->cm_pending = NULL;
}

void
cm_process(struct rs_analyzer *an, const struct rs_packet *pkt, const struct stream_key *key)
{
    struct rs_cm_mad_hdr hdr;
    const struct rs_cm_layout *l;

    if (!rs_packet_has(pkt, RS_LAYER_PAYLOAD))
        return;
    const uint8_t *mad = rs_packet_at(pkt, RS_LAYER_PAYLOAD);
    if (rs_cm_parse(mad, pkt->span[RS_LAYER_PAYLOAD].len, &hdr, &l) != RS_CM_OK)
        return;
    const uint8_t *msg = mad + RS_CM_MAD_HDR_LEN;
    uint32_t local_id = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_COMM_ID);
    struct cm_pending *p = pending_get(an);

    if (hdr.attr_id == RS_CM_REQ) {
        struct cm_req *r = pending_take(an, p, local_id);
        r->addr = key->src;
        r->qpn = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_QPN);
        /* The active side's QP starts a new life: what it did before is over. */
        struct endpoint ep;
        endpoint_make(&ep, &r->addr, r->qpn);
        lifetime_setup(an, &ep, NULL);
    } else if (hdr.attr_id == RS_CM_REP) {
        uint32_t remote_id = (uint32_t)rs_cm_get(l, msg, RS_CMF_REMOTE_COMM_ID);
        struct cm_req *r = g_hash_table_lookup(p->by_id, GUINT_TO_POINTER(remote_id));
        if (r == NULL)
            return;
        uint32_t qpn = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_QPN);
        struct endpoint a, b;
        endpoint_make(&a, &r->addr, r->qpn);
        endpoint_make(&b, &key->src, qpn);
        lifetime_setup(an, &b, &a);
        lifetime_setup(an, &a, &b);
        conv_pair_cm(an, &r->addr, r->qpn, &key->src, qpn, pkt->frame->number);
        pending_release(p, remote_id, r);
    }
}

void
rs_analyzer_pair(struct rs_analyzer *an, uint8_t family, const uint8_t *a, uint32_t qpn_a,
                 const uint8_t *b, uint32_t qpn_b)
{
    struct rs_addr x, y;
    size_t n = family == 6 ? 16 : 4;

    memset(&x, 0, sizeof(x));
    memset(&y, 0, sizeof(y));
    x.family = y.family = family == 6 ? 6 : 4;
    memcpy(x.bytes, a, n);
    memcpy(y.bytes, b, n);
    struct endpoint ea, eb;
    endpoint_make(&ea, &x, qpn_a & 0xffffff);
    endpoint_make(&eb, &y, qpn_b & 0xffffff);
    lifetime_setup(an, &ea, &eb);
    lifetime_setup(an, &eb, &ea);
    conv_pair_cm(an, &x, qpn_a & 0xffffff, &y, qpn_b & 0xffffff, 0);
}
