/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_srq.c - receive queues: a QP's own, and shared ones (SRQs) that several QPs take
 * their receives from, with the limit that tells when they run low (IBTA Vol 1,
 * 10.2.9 and 11.6.3.1).
 *
 * A message takes its receive WQE with its first packet and keeps a copy of it
 * (rc_resp.rwqe) until it completes: the queue's slot may be posted again meanwhile.
 */
#include <stdlib.h>
#include <string.h>

#include "rc_int.h"

int
rc_rq_init(struct rc_rq *rq, uint32_t depth, uint32_t max_sge)
{
    memset(rq, 0, sizeof(*rq));
    rq->depth = depth;
    rq->max_sge = max_sge;
    rq->wqe = calloc(depth, sizeof(*rq->wqe));
    rq->sge = calloc((size_t)depth * max_sge, sizeof(*rq->sge));
    if (rq->wqe == NULL || rq->sge == NULL) {
        rc_rq_free(rq);
        return RS_ENOMEM;
    }
    return 0;
}

void
rc_rq_free(struct rc_rq *rq)
{
    free(rq->wqe);
    free(rq->sge);
    rq->wqe = NULL;
    rq->sge = NULL;
}

int
rc_rq_post(struct rs_rc_ctx *ctx, struct rc_rq *rq, const struct rs_rc_recv_wr *wr, char *err)
{
    if (rq->tail - rq->head >= rq->depth)
        return rs_error(err, RS_ENOMEM, "receive queue full (%u work requests)", rq->depth);
    uint64_t slot = rq->tail % rq->depth;
    struct rc_rwqe *w = &rq->wqe[slot];
    int rc = rc_data_set(ctx, &w->data, rq->sge + slot * rq->max_sge, rq->max_sge, &wr->sge,
                         wr->sg_list, wr->num_sge, RS_RC_ACCESS_LOCAL_WRITE, false, err);
    if (rc < 0)
        return rc;
    w->wr_id = wr->wr_id;
    rq->tail++;
    return 0;
}

bool
rc_rq_take(struct rc_rq *rq, struct rc_rwqe *out, struct rs_rc_sge *sg)
{
    if (rq->head == rq->tail)
        return false;
    const struct rc_rwqe *w = &rq->wqe[rq->head++ % rq->depth];
    *out = *w;
    if (w->data.nsge > 0)
        memcpy(sg, w->data.sg, w->data.nsge * sizeof(*sg));
    out->data.sg = sg;
    return true;
}

int
rs_rc_srq_create(struct rs_rc_ctx *ctx, uint32_t depth, uint32_t max_sge,
                 struct rs_rc_srq **out, char *err)
{
    if (depth == 0 || depth > (1u << 20) || max_sge == 0 || max_sge > RS_RC_MAX_SGE)
        return rs_error(err, RS_EINVAL, "SRQ: depth must be 1..1048576 and max_sge 1..%d",
                        RS_RC_MAX_SGE);
    struct rs_rc_srq *srq = calloc(1, sizeof(*srq));
    if (srq == NULL || rc_rq_init(&srq->rq, depth, max_sge) < 0) {
        free(srq);
        return rs_error(err, RS_ENOMEM, "SRQ: out of memory");
    }
    srq->ctx = ctx;
    srq->next = ctx->srqs;
    ctx->srqs = srq;
    *out = srq;
    return 0;
}

int
rs_rc_srq_destroy(struct rs_rc_srq *srq)
{
    if (srq->users > 0)
        return RS_EINVAL;
    struct rs_rc_srq **pp = &srq->ctx->srqs;
    while (*pp != srq)
        pp = &(*pp)->next;
    *pp = srq->next;
    rc_rq_free(&srq->rq);
    free(srq);
    return 0;
}

int
rs_rc_srq_post_recv(struct rs_rc_srq *srq, const struct rs_rc_recv_wr *wr, char *err)
{
    return rc_rq_post(srq->ctx, &srq->rq, wr, err);
}

uint32_t
rs_rc_srq_posted(const struct rs_rc_srq *srq)
{
    return (uint32_t)(srq->rq.tail - srq->rq.head);
}

void
rs_rc_srq_set_limit(struct rs_rc_srq *srq, uint32_t limit)
{
    srq->limit = limit;
}

uint32_t
rs_rc_srq_limit(const struct rs_rc_srq *srq)
{
    return srq->limit;
}
