/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_wq.c - work queues and completions: posting, polling, the error state.
 */
#include <string.h>

#include "rc_int.h"

void
rc_cq_push(struct rs_rc_qp *qp, const struct rs_rc_wc *wc)
{
    /* The queue holds one entry per work request, so only an application
     * that never polls while posting to a QP in error can overflow it. */
    if (qp->cq_tail - qp->cq_head >= qp->cq_size) {
        qp->ctx->cnt.cq_overflow++;
        return;
    }
    qp->cq[qp->cq_tail++ % qp->cq_size] = *wc;
    if (wc->status != RS_RC_WC_SUCCESS)
        qp->ctx->cnt.error_completions++;
}

static uint8_t
wc_opcode_of(uint8_t wr_opcode)
{
    switch (wr_opcode) {
    case RS_RC_WR_RDMA_WRITE:
    case RS_RC_WR_RDMA_WRITE_WITH_IMM:
        return RS_RC_WC_RDMA_WRITE;
    case RS_RC_WR_RDMA_READ:
        return RS_RC_WC_RDMA_READ;
    case RS_RC_WR_ATOMIC_CMP_AND_SWP:
        return RS_RC_WC_COMP_SWAP;
    case RS_RC_WR_ATOMIC_FETCH_AND_ADD:
        return RS_RC_WC_FETCH_ADD;
    default:
        return RS_RC_WC_SEND;
    }
}

static void
complete_swqe(struct rs_rc_qp *qp, const struct rc_swqe *w, uint8_t status)
{
    struct rs_rc_wc wc;

    /* IBTA 10.7.3.1: an error completion is generated even when the work
     * request asked for none. */
    if (status == RS_RC_WC_SUCCESS && !(w->wr.flags & RS_RC_SEND_SIGNALED))
        return;
    memset(&wc, 0, sizeof(wc));
    wc.wr_id = w->wr.wr_id;
    wc.status = status;
    wc.opcode = wc_opcode_of(w->wr.opcode);
    wc.qpn = qp->attr.qpn;
    wc.byte_len = (uint32_t)w->data.length;
    if (w->wr.opcode == RS_RC_WR_RDMA_WRITE_WITH_IMM || w->wr.opcode == RS_RC_WR_SEND_WITH_IMM)
        wc.flags = RS_RC_WC_WITH_IMM;
    rc_cq_push(qp, &wc);
}

void
rc_complete_send(struct rs_rc_qp *qp, uint8_t status)
{
    struct rc_req *rq = &qp->req;
    struct rc_swqe *w = &qp->sq[rq->head % qp->attr.sq_depth];

    if (rq->head < rq->frontier && rc_wr_is_rd_atomic(w->wr.opcode))
        rq->rd_atomic--;
    complete_swqe(qp, w, status);
    rq->head++;
    if (rq->frontier < rq->head)
        rq->frontier = rq->head;
    if (rq->cur < rq->head) {
        rq->cur = rq->head;
        rq->cur_pkt = 0;
    }
}

void
rc_local_fault(struct rs_rc_qp *qp)
{
    qp->ctx->cnt.local_faults++;
    rc_complete_send(qp, RS_RC_WC_LOC_PROT_ERR);
    rc_qp_error(qp);
}

void
rc_complete_recv(struct rs_rc_qp *qp, uint8_t status, uint8_t opcode, uint32_t byte_len,
                 uint8_t flags, uint32_t imm, uint32_t inv_rkey)
{
    struct rs_rc_wc wc;

    memset(&wc, 0, sizeof(wc));
    wc.wr_id = qp->resp.rwqe.wr_id;
    wc.status = status;
    wc.opcode = opcode;
    wc.qpn = qp->attr.qpn;
    wc.byte_len = byte_len;
    wc.flags = flags;
    wc.imm = imm;
    wc.invalidated_rkey = inv_rkey;
    wc.src_qp = qp->resp.src_qp;
    rc_cq_push(qp, &wc);
    qp->resp.have_rwqe = false;
}

bool
rc_take_recv(struct rs_rc_qp *qp)
{
    struct rs_rc_srq *srq = qp->srq;
    struct rc_rq *rq = srq != NULL ? &srq->rq : &qp->rq;

    if (!rc_rq_take(rq, &qp->resp.rwqe, qp->resp.rwqe_sge))
        return false;
    qp->resp.have_rwqe = true;
    if (srq != NULL && srq->limit > 0 && rq->tail - rq->head < srq->limit) {
        srq->limit = 0;
        rc_event(qp->ctx, RS_RC_EV_SRQ_LIMIT, 0, srq);
    }
    return true;
}

void
rc_qp_error(struct rs_rc_qp *qp)
{
    if (qp->state == RS_RC_QP_ERROR)
        return;
    qp->state = RS_RC_QP_ERROR;
    while (qp->req.head < qp->req.tail)
        rc_complete_send(qp, RS_RC_WC_WR_FLUSH_ERR);
    if (qp->resp.have_rwqe)
        rc_complete_recv(qp, RS_RC_WC_WR_FLUSH_ERR, RS_RC_WC_RECV, 0, 0, 0, 0);
    /* A shared queue's receives stay for its other QPs: the QP says it took its last
     * (IBTA 11.6.3.1, Last WQE Reached), which lets the application tear it down. */
    if (qp->srq != NULL)
        rc_event(qp->ctx, RS_RC_EV_LAST_WQE, qp->attr.qpn, qp->srq);
    else
        while (rc_take_recv(qp))
            rc_complete_recv(qp, RS_RC_WC_WR_FLUSH_ERR, RS_RC_WC_RECV, 0, 0, 0, 0);
    qp->req.timer_ns = RS_RC_INFINITE;
}

/* Whether the QP's service carries the opcode: UD only SENDs, UC no READ, atomic or
 * SEND with Invalidate (IBTA Table 38). */
static bool
service_has(uint8_t type, uint8_t opcode)
{
    switch (opcode) {
    case RS_RC_WR_SEND:
    case RS_RC_WR_SEND_WITH_IMM:
        return true;
    case RS_RC_WR_RDMA_WRITE:
    case RS_RC_WR_RDMA_WRITE_WITH_IMM:
        return type != RS_RC_QPT_UD;
    case RS_RC_WR_RDMA_READ:
    case RS_RC_WR_ATOMIC_CMP_AND_SWP:
    case RS_RC_WR_ATOMIC_FETCH_AND_ADD:
    case RS_RC_WR_SEND_WITH_INV:
        return type == RS_RC_QPT_RC;
    default:
        return false;
    }
}

/* Checks a send work request and fills the WQE's data: into its slot only once the
 * request is found good, so that a post refused changes nothing. */
static int
set_send_data(struct rs_rc_qp *qp, struct rc_swqe *w, uint64_t slot,
              const struct rs_rc_send_wr *wr, char *err)
{
    unsigned access = 0;
    bool rd_atomic = rc_wr_is_rd_atomic(wr->opcode);

    if (!service_has(qp->attr.type, wr->opcode))
        return rs_error(err, RS_EINVAL, "work request: opcode %u is not of the QP's service",
                        wr->opcode);
    if (rd_atomic)
        access = RS_RC_ACCESS_LOCAL_WRITE;
    int rc;
    if ((wr->flags & RS_RC_SEND_INLINE) && !rd_atomic)
        rc = rc_data_set_inline(&w->data, qp->sq_inline + slot * qp->attr.max_inline,
                                qp->attr.max_inline, &wr->sge, wr->sg_list, wr->num_sge, err);
    else
        rc = rc_data_set(qp->ctx, &w->data, qp->sq_sge + slot * qp->attr.max_sge,
                         qp->attr.max_sge, &wr->sge, wr->sg_list, wr->num_sge, access, true,
                         err);
    if (rc < 0)
        return rc;
    if (wr->opcode != RS_RC_WR_ATOMIC_CMP_AND_SWP && wr->opcode != RS_RC_WR_ATOMIC_FETCH_AND_ADD)
        return 0;
    if (w->data.length != 8)
        return rs_error(err, RS_EINVAL, "atomic: the result buffer is %llu bytes, not 8",
                        (unsigned long long)w->data.length);
    return 0;
}

static uint32_t
packets_of(const struct rs_rc_qp *qp, const struct rc_swqe *w)
{
    if (qp->attr.type == RS_RC_QPT_UD || w->wr.opcode == RS_RC_WR_ATOMIC_CMP_AND_SWP ||
        w->wr.opcode == RS_RC_WR_ATOMIC_FETCH_AND_ADD)
        return 1;
    return rc_npkts(w->data.length, qp->attr.pmtu);
}

int
rs_rc_post_send(struct rs_rc_qp *qp, const struct rs_rc_send_wr *wr, char *err)
{
    struct rc_req *rq = &qp->req;

    if (rq->tail - rq->head >= qp->attr.sq_depth)
        return rs_error(err, RS_ENOMEM, "send queue full (%u work requests)",
                        qp->attr.sq_depth);
    uint64_t slot = rq->tail % qp->attr.sq_depth;
    struct rc_swqe w;
    memset(&w, 0, sizeof(w));
    int rc = set_send_data(qp, &w, slot, wr, err);
    if (rc < 0)
        return rc;
    if (qp->attr.type == RS_RC_QPT_UD && w.data.length > qp->attr.pmtu)
        return rs_error(err, RS_EINVAL, "UD: a message of %llu bytes is longer than the "
                        "PMTU (%u)", (unsigned long long)w.data.length, qp->attr.pmtu);
    if (packets_of(qp, &w) > RC_MAX_MSG_PKTS)
        return rs_error(err, RS_EINVAL, "work request: %llu bytes is too long",
                        (unsigned long long)w.data.length);
    w.wr = *wr;
    w.wr.sg_list = NULL;
    w.wr.num_sge = 0;
    w.npkts = packets_of(qp, &w);
    w.state = RC_SWQE_POSTED;
    qp->sq[slot] = w;
    rq->tail++;
    if (qp->state == RS_RC_QP_ERROR)
        rc_complete_send(qp, RS_RC_WC_WR_FLUSH_ERR);
    return 0;
}

int
rs_rc_post_recv(struct rs_rc_qp *qp, const struct rs_rc_recv_wr *wr, char *err)
{
    if (qp->srq != NULL)
        return rs_error(err, RS_EINVAL, "QP 0x%06x takes its receives from a shared queue",
                        qp->attr.qpn);
    int rc = rc_rq_post(qp->ctx, &qp->rq, wr, err);
    if (rc < 0)
        return rc;
    if (qp->state == RS_RC_QP_ERROR && rc_take_recv(qp))
        rc_complete_recv(qp, RS_RC_WC_WR_FLUSH_ERR, RS_RC_WC_RECV, 0, 0, 0, 0);
    return 0;
}

uint32_t
rs_rc_recv_posted(const struct rs_rc_qp *qp)
{
    return rc_rq_count(qp);
}

int
rs_rc_poll_cq(struct rs_rc_qp *qp, struct rs_rc_wc *wc, int n)
{
    int got = 0;

    while (got < n && qp->cq_head < qp->cq_tail)
        wc[got++] = qp->cq[qp->cq_head++ % qp->cq_size];
    return got;
}
