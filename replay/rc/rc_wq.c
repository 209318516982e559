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
    wc.byte_len = w->wr.sge.length;
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
rc_complete_recv(struct rs_rc_qp *qp, uint8_t status, uint8_t opcode, uint32_t byte_len,
                 uint8_t flags, uint32_t imm, uint32_t inv_rkey)
{
    struct rc_rwqe *w = &qp->rq[qp->rq_head % qp->attr.rq_depth];
    struct rs_rc_wc wc;

    memset(&wc, 0, sizeof(wc));
    wc.wr_id = w->wr.wr_id;
    wc.status = status;
    wc.opcode = opcode;
    wc.qpn = qp->attr.qpn;
    wc.byte_len = byte_len;
    wc.flags = flags;
    wc.imm = imm;
    wc.invalidated_rkey = inv_rkey;
    rc_cq_push(qp, &wc);
    qp->rq_head++;
}

void
rc_qp_error(struct rs_rc_qp *qp)
{
    if (qp->state == RS_RC_QP_ERROR)
        return;
    qp->state = RS_RC_QP_ERROR;
    while (qp->req.head < qp->req.tail)
        rc_complete_send(qp, RS_RC_WC_WR_FLUSH_ERR);
    if (qp->resp.have_rwqe) {
        qp->resp.have_rwqe = false;
        rc_complete_recv(qp, RS_RC_WC_WR_FLUSH_ERR, RS_RC_WC_RECV, 0, 0, 0, 0);
    }
    while (qp->rq_head < qp->rq_tail)
        rc_complete_recv(qp, RS_RC_WC_WR_FLUSH_ERR, RS_RC_WC_RECV, 0, 0, 0, 0);
    qp->req.timer_ns = RS_RC_INFINITE;
}

/* Checks a send work request and resolves its local buffer. */
static int
check_send_wr(struct rs_rc_qp *qp, const struct rs_rc_send_wr *wr, uint8_t **local, char *err)
{
    unsigned access = 0;
    uint32_t len = wr->sge.length;

    switch (wr->opcode) {
    case RS_RC_WR_SEND:
    case RS_RC_WR_SEND_WITH_IMM:
    case RS_RC_WR_SEND_WITH_INV:
    case RS_RC_WR_RDMA_WRITE:
    case RS_RC_WR_RDMA_WRITE_WITH_IMM:
        break;
    case RS_RC_WR_RDMA_READ:
        access = RS_RC_ACCESS_LOCAL_WRITE;
        break;
    case RS_RC_WR_ATOMIC_CMP_AND_SWP:
    case RS_RC_WR_ATOMIC_FETCH_AND_ADD:
        access = RS_RC_ACCESS_LOCAL_WRITE;
        if (len != 8)
            return rs_error(err, RS_EINVAL, "atomic: the result buffer is %u bytes, not 8",
                            len);
        break;
    default:
        return rs_error(err, RS_EINVAL, "work request: unknown opcode %u", wr->opcode);
    }
    if (len > RC_MAX_DMA_LEN || rc_npkts(len, qp->attr.pmtu) > RC_MAX_MSG_PKTS)
        return rs_error(err, RS_EINVAL, "work request: %u bytes is too long", len);
    *local = NULL;
    if (len == 0)
        return 0;
    *local = rc_mr_local(qp->ctx, wr->sge.lkey, wr->sge.addr, len, access);
    if (*local == NULL)
        return rs_error(err, RS_EINVAL, "work request: buffer 0x%llx+%u is outside region "
                        "0x%x or lacks its access", (unsigned long long)wr->sge.addr, len,
                        wr->sge.lkey);
    return 0;
}

int
rs_rc_post_send(struct rs_rc_qp *qp, const struct rs_rc_send_wr *wr, char *err)
{
    struct rc_req *rq = &qp->req;
    uint8_t *local;

    int rc = check_send_wr(qp, wr, &local, err);
    if (rc < 0)
        return rc;
    if (rq->tail - rq->head >= qp->attr.sq_depth)
        return rs_error(err, RS_ENOMEM, "send queue full (%u work requests)",
                        qp->attr.sq_depth);
    struct rc_swqe *w = &qp->sq[rq->tail % qp->attr.sq_depth];
    memset(w, 0, sizeof(*w));
    w->wr = *wr;
    w->local = local;
    w->npkts = wr->opcode == RS_RC_WR_ATOMIC_CMP_AND_SWP ||
                       wr->opcode == RS_RC_WR_ATOMIC_FETCH_AND_ADD
                   ? 1
                   : rc_npkts(wr->sge.length, qp->attr.pmtu);
    w->state = RC_SWQE_POSTED;
    rq->tail++;
    if (qp->state == RS_RC_QP_ERROR)
        rc_complete_send(qp, RS_RC_WC_WR_FLUSH_ERR);
    return 0;
}

int
rs_rc_post_recv(struct rs_rc_qp *qp, const struct rs_rc_recv_wr *wr, char *err)
{
    if (qp->rq_tail - qp->rq_head >= qp->attr.rq_depth)
        return rs_error(err, RS_ENOMEM, "receive queue full (%u work requests)",
                        qp->attr.rq_depth);
    struct rc_rwqe *w = &qp->rq[qp->rq_tail % qp->attr.rq_depth];
    /* A bad buffer is not refused here: ibverbs does not check it at post
     * time either, and the responder must answer a SEND that lands on it
     * with a Remote Operational Error (class A). It is resolved when used. */
    w->wr = *wr;
    qp->rq_tail++;
    if (qp->state == RS_RC_QP_ERROR)
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
