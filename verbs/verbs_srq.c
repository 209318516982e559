/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_srq.c - shared receive queues: receives that the RC and UC QPs attached to
 * them take in turn (ibv_srq_pingpong, perftest --use-srq), with the limit that says
 * when they run low (IBV_EVENT_SRQ_LIMIT_REACHED), all in the RC stack's rs_rc_srq.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_int.h"

_Static_assert(sizeof(struct ibv_sge) == sizeof(struct rs_rc_sge) &&
                   offsetof(struct ibv_sge, length) == offsetof(struct rs_rc_sge, length) &&
                   offsetof(struct ibv_sge, lkey) == offsetof(struct rs_rc_sge, lkey),
               "ibverbs' scatter/gather elements are the RC stack's");

int
vb_recv_wr(const struct ibv_recv_wr *in, uint32_t max, struct rs_rc_recv_wr *out)
{
    memset(out, 0, sizeof(*out));
    out->wr_id = in->wr_id;
    if (in->num_sge < 0 || (uint32_t)in->num_sge > max || (in->num_sge > 0 && in->sg_list == NULL))
        return EINVAL;
    out->sg_list = (const struct rs_rc_sge *)(const void *)in->sg_list;
    out->num_sge = (uint32_t)in->num_sge;
    return 0;
}

struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
    struct vb_context *c = vb_ctx(pd->context);
    char err[RS_ERRBUF_SIZE];
    struct ibv_srq_attr *a = &attr->attr;

    if (a->max_wr == 0 || a->max_wr > VB_MAX_QP_WR || a->max_sge == 0 ||
        a->max_sge > VB_MAX_SGE || a->srq_limit > a->max_wr) {
        vb_fail(EINVAL, "ibv_create_srq: max_wr %u (1..%u), max_sge %u (1..%u), limit %u",
                a->max_wr, VB_MAX_QP_WR, a->max_sge, VB_MAX_SGE, a->srq_limit);
        return NULL;
    }
    struct vb_srq *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        vb_fail(ENOMEM, "ibv_create_srq: out of memory");
        return NULL;
    }
    struct vb_port *port = c->port;
    pthread_mutex_lock(&port->lock);
    int rc = rs_rc_srq_create(port->rc, a->max_wr, a->max_sge, &s->rc, err);
    if (rc == 0) {
        rs_rc_srq_set_limit(s->rc, a->srq_limit);
        s->next = port->srqs;
        port->srqs = s;
        vb_pd(pd)->users++;
    }
    pthread_mutex_unlock(&port->lock);
    if (rc < 0) {
        free(s);
        vb_fail(ENOMEM, "ibv_create_srq: %s", err);
        return NULL;
    }
    s->ctx = c;
    s->max_sge = a->max_sge;
    s->srq.context = pd->context;
    s->srq.srq_context = attr->srq_context;
    s->srq.pd = pd;
    s->max_wr = a->max_wr;
    pthread_mutex_init(&s->srq.mutex, NULL);
    pthread_cond_init(&s->srq.cond, NULL);
    return &s->srq;
}

int
ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
    struct vb_srq *s = vb_srq(srq);

    if (mask & ~(IBV_SRQ_LIMIT | IBV_SRQ_MAX_WR))
        return vb_fail(EINVAL, "ibv_modify_srq: unknown attributes 0x%x", mask);
    if (mask & IBV_SRQ_MAX_WR)  /* resizing: not served, as a NIC without SRQ_RESIZE */
        return vb_fail(EOPNOTSUPP, "ibv_modify_srq: resizing an SRQ is not served");
    pthread_mutex_lock(&s->ctx->port->lock);
    rs_rc_srq_set_limit(s->rc, attr->srq_limit);
    pthread_mutex_unlock(&s->ctx->port->lock);
    return 0;
}

int
ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
    struct vb_srq *s = vb_srq(srq);

    pthread_mutex_lock(&s->ctx->port->lock);
    attr->max_wr = s->max_wr;
    attr->max_sge = s->max_sge;
    attr->srq_limit = rs_rc_srq_limit(s->rc);
    pthread_mutex_unlock(&s->ctx->port->lock);
    return 0;
}

int
ibv_destroy_srq(struct ibv_srq *srq)
{
    struct vb_srq *s = vb_srq(srq);
    struct vb_port *port = s->ctx->port;

    pthread_mutex_lock(&port->lock);
    if (s->users > 0 || rs_rc_srq_destroy(s->rc) < 0) {
        pthread_mutex_unlock(&port->lock);
        return vb_fail(EBUSY, "ibv_destroy_srq: QPs still take their receives from it");
    }
    for (struct vb_srq **pp = &port->srqs; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    vb_pd(srq->pd)->users--;
    pthread_mutex_unlock(&port->lock);
    pthread_mutex_destroy(&srq->mutex);
    pthread_cond_destroy(&srq->cond);
    free(s);
    return 0;
}

int
vb_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
    struct vb_srq *s = vb_srq(srq);
    char err[RS_ERRBUF_SIZE];
    int rc = 0;

    pthread_mutex_lock(&s->ctx->port->lock);
    for (; wr != NULL; wr = wr->next) {
        struct rs_rc_recv_wr w;
        rc = vb_recv_wr(wr, s->max_sge, &w);
        if (rc == 0 && rs_rc_srq_post_recv(s->rc, &w, err) < 0)
            rc = ENOMEM;
        if (rc != 0)
            break;
    }
    if (rc != 0 && bad != NULL)
        *bad = wr;
    pthread_mutex_unlock(&s->ctx->port->lock);
    return rc;
}
