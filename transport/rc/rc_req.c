/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_req.c - the requester: segmentation, transmission, go-back-N and the
 * local ACK timer (IBTA Vol 1 chapter 9, requester behaviour).
 *
 * Work requests get their PSNs when first transmitted: a message takes one
 * PSN per packet, a READ one per response packet it asks for. The cursor
 * (cur, cur_pkt) walks the send queue; a retry moves it back to the packet
 * with the PSN to resend ("go-back-N"), resuming with that packet's opcode
 * and offset, and a READ is asked for again from that PSN with its VA and
 * length moved on. Completions come from rc_comp.c.
 */
#include <string.h>

#include "rc_int.h"

#define PSN_HALF (1 << 23)

static struct rc_swqe *
slot(struct rs_rc_qp *qp, uint64_t n)
{
    return &qp->sq[n % qp->attr.sq_depth];
}

/* The RC opcode of packet idx of w (IBTA Table 38). */
static uint8_t
rc_opcode(const struct rc_swqe *w, uint32_t idx)
{
    bool first = idx == 0, last = idx == w->npkts - 1;

    switch (w->wr.opcode) {
    case RS_RC_WR_SEND:
        return first && last ? 0x04 : first ? 0x00 : last ? 0x02 : 0x01;
    case RS_RC_WR_SEND_WITH_IMM:
        return first && last ? 0x05 : first ? 0x00 : last ? 0x03 : 0x01;
    case RS_RC_WR_SEND_WITH_INV:
        return first && last ? 0x17 : first ? 0x00 : last ? 0x16 : 0x01;
    case RS_RC_WR_RDMA_WRITE:
        return first && last ? 0x0a : first ? 0x06 : last ? 0x08 : 0x07;
    case RS_RC_WR_RDMA_WRITE_WITH_IMM:
        return first && last ? 0x0b : first ? 0x06 : last ? 0x09 : 0x07;
    case RS_RC_WR_RDMA_READ:
        return 0x0c;
    case RS_RC_WR_ATOMIC_CMP_AND_SWP:
        return 0x13;
    default:
        return 0x14;
    }
}

/* The IBA opcode of packet idx of w (IBTA Table 38): RC's, or UC's, which are RC's
 * SEND and WRITE opcodes in the service's own range (0x20 on). */
static uint8_t
packet_opcode(const struct rs_rc_qp *qp, const struct rc_swqe *w, uint32_t idx)
{
    uint8_t base = qp->attr.type == RS_RC_QPT_UC ? 0x20 : 0x00;

    return base | rc_opcode(w, idx);
}

/* Sends packet idx of w; false when its data could not be read (a region deregistered
 * meanwhile): the request has failed then, and the QP is in the error state. */
static bool
emit_packet(struct rs_rc_qp *qp, struct rc_swqe *w, uint32_t idx)
{
    struct rc_req *rq = &qp->req;
    uint32_t pmtu = qp->attr.pmtu;
    uint32_t psn = rc_psn_add(w->first_psn, idx);
    uint8_t opcode = packet_opcode(qp, w, idx);
    const struct rs_ib_opcode *info = rs_ib_opcode_info(opcode);
    uint64_t off = (uint64_t)idx * pmtu;
    const uint8_t *payload = NULL;
    uint32_t len = 0;
    struct rs_ib_fields f;

    rc_fields_init(qp, &f, opcode, psn);
    bool ends = info->seg == RS_SEG_LAST || info->seg == RS_SEG_ONLY;
    /* AckReq on every packet that ends a message (responses of READ and
     * atomics acknowledge them anyway), and after a long run without one. */
    f.ackreq = qp->attr.type == RS_RC_QPT_RC &&
               (ends || ++rq->since_ackreq >= qp->attr.ack_req_every);
    if (f.ackreq)
        rq->since_ackreq = 0;
    if (info->hdrs & RS_HDR_PAYLOAD) {
        len = w->data.length - off < pmtu ? (uint32_t)(w->data.length - off) : pmtu;
        if (len > 0) {
            payload = rc_data_read(qp->ctx, &w->data, off, len, qp->ctx->scratch);
            if (payload == NULL) {
                rc_local_fault(qp);
                return false;
            }
        }
        f.se = ends && (w->wr.flags & RS_RC_SEND_SOLICITED);
    }
    if (info->hdrs & RS_HDR_RETH) {
        /* A WRITE's RETH names the whole message; a READ asked again from
         * packet idx names what is left from there. */
        bool read = opcode == 0x0c;
        f.reth.va = w->wr.remote_addr + (read ? off : 0);
        f.reth.rkey = w->wr.rkey;
        f.reth.len = (uint32_t)(read ? w->data.length - off : w->data.length);
    }
    if (info->hdrs & RS_HDR_ATOMICETH) {
        f.atomic.va = w->wr.remote_addr;
        f.atomic.rkey = w->wr.rkey;
        f.atomic.swap_add = opcode == 0x13 ? w->wr.swap : w->wr.compare_add;
        f.atomic.compare = opcode == 0x13 ? w->wr.compare_add : 0;
    }
    f.imm = w->wr.imm;
    f.ieth_rkey = w->wr.invalidate_rkey;
    rc_tx(qp, &f, payload, len);
    qp->ctx->cnt.req_packets++;
    return true;
}

/* True when the WQE at cur may go out now; assigns its PSNs the first time. */
static bool
admit(struct rs_rc_qp *qp, struct rc_swqe *w)
{
    struct rc_req *rq = &qp->req;
    bool rd_atomic = rc_wr_is_rd_atomic(w->wr.opcode);

    if (rq->cur < rq->frontier)
        return true;    /* a retransmission: PSNs already assigned */
    if ((w->wr.flags & RS_RC_SEND_FENCE) && rq->rd_atomic > 0)
        return false;
    if (rd_atomic && rq->rd_atomic >= qp->attr.max_rd_atomic)
        return false;
    if (rc_psn_diff(rc_psn_add(rq->npsn, w->npkts), rq->una) >= PSN_HALF - 1)
        return false;
    w->first_psn = rq->npsn;
    w->last_psn = rc_psn_add(rq->npsn, w->npkts - 1);
    w->done = 0;
    w->state = RC_SWQE_SENT;
    rq->npsn = rc_psn_add(w->last_psn, 1);
    rq->frontier++;
    if (rd_atomic)
        rq->rd_atomic++;
    return true;
}

/* The window: the newest PSN a packet uses stays within max_inflight of
 * the oldest unacknowledged one; the oldest may always go. */
static bool
in_window(const struct rs_rc_qp *qp, const struct rc_swqe *w, uint32_t idx)
{
    uint32_t psn = rc_psn_add(w->first_psn, idx);
    uint32_t newest = rc_wr_is_rd_atomic(w->wr.opcode) ? w->last_psn : psn;

    return rc_psn_diff(psn, qp->req.una) <= 0 ||
           (uint32_t)rc_psn_diff(newest, qp->req.una) < qp->attr.max_inflight;
}

static bool
can_send(struct rs_rc_qp *qp)
{
    struct rc_req *rq = &qp->req;

    if (qp->state != RS_RC_QP_RTS || rq->cur >= rq->tail || qp->ctx->now < rq->rnr_until)
        return false;
    struct rc_swqe *w = slot(qp, rq->cur);
    if (rq->cur >= rq->frontier) {
        bool rd_atomic = rc_wr_is_rd_atomic(w->wr.opcode);
        if (((w->wr.flags & RS_RC_SEND_FENCE) && rq->rd_atomic > 0) ||
            (rd_atomic && rq->rd_atomic >= qp->attr.max_rd_atomic))
            return false;
        return (uint32_t)rc_psn_diff(rq->npsn, rq->una) < qp->attr.max_inflight ||
               rq->una == rq->npsn;
    }
    return in_window(qp, w, rq->cur_pkt);
}

/* UC and UD: no ACK comes, so a request is done once its last packet is sent
 * (IBTA 9.8.2: the completion means only that). Each takes PSNs as it goes. */
static void
transmit_unreliable(struct rs_rc_qp *qp, uint32_t budget)
{
    struct rc_req *rq = &qp->req;

    while (budget > 0 && rq->head < rq->tail && qp->state == RS_RC_QP_RTS) {
        struct rc_swqe *w = slot(qp, rq->head);
        if (rq->cur_pkt == 0) {
            w->first_psn = rq->npsn;
            w->last_psn = rc_psn_add(rq->npsn, w->npkts - 1);
            w->state = RC_SWQE_SENT;
        }
        if (qp->attr.type == RS_RC_QPT_UD) {
            if (!rc_ud_emit(qp, w))
                return;
        } else if (!emit_packet(qp, w, rq->cur_pkt)) {
            return;
        }
        rq->npsn = rc_psn_add(rq->npsn, 1);
        rq->una = rq->npsn;
        budget--;
        if (++rq->cur_pkt >= w->npkts) {
            rq->cur_pkt = 0;
            rq->frontier = rq->cur = rq->head + 1;
            rc_complete_send(qp, RS_RC_WC_SUCCESS);
        }
    }
}

void
rc_req_transmit(struct rs_rc_qp *qp, uint32_t budget)
{
    struct rc_req *rq = &qp->req;

    if (qp->state != RS_RC_QP_RTS || qp->ctx->now < rq->rnr_until)
        return;
    if (qp->attr.type != RS_RC_QPT_RC) {
        transmit_unreliable(qp, budget);
        return;
    }
    while (budget > 0 && rq->cur < rq->tail) {
        struct rc_swqe *w = slot(qp, rq->cur);
        if (!admit(qp, w) || !in_window(qp, w, rq->cur_pkt))
            break;
        if (!emit_packet(qp, w, rq->cur_pkt))
            return;
        if (rc_wr_is_rd_atomic(w->wr.opcode) || ++rq->cur_pkt >= w->npkts) {
            rq->cur++;
            rq->cur_pkt = 0;
        }
        budget--;
        /* The local ACK timer runs from the last transmission the peer could
         * acknowledge: it measures the wait for the peer's answer to what was sent,
         * and a sender slow to send its window (descheduled between two batches) has
         * not waited for the peer all that time. */
        if (qp->attr.timeout != 0)
            rq->timer_ns = qp->ctx->now + rs_rc_timeout_ns(qp->attr.timeout);
    }
}

/* Moves the cursor back to the packet with PSN psn (go-back-N). */
void
rc_req_rewind(struct rs_rc_qp *qp, uint32_t psn)
{
    struct rc_req *rq = &qp->req;

    qp->ctx->cnt.retransmits++;
    rq->retrying = true;
    rq->retry_psn = psn;
    for (uint64_t k = rq->head; k < rq->frontier; k++) {
        struct rc_swqe *w = slot(qp, k);
        if (rc_psn_in(psn, w->first_psn, w->last_psn)) {
            rq->cur = k;
            rq->cur_pkt = (uint32_t)rc_psn_diff(psn, w->first_psn);
            return;
        }
    }
    rq->cur = rq->frontier;
    rq->cur_pkt = 0;
}

/* Forward progress: the retry counters start over, the timer is
 * restarted or, with nothing outstanding, stopped. */
void
rc_req_progress(struct rs_rc_qp *qp)
{
    struct rc_req *rq = &qp->req;

    rq->retry_left = qp->attr.retry_cnt;
    rq->rnr_left = qp->attr.rnr_retry;
    if (rq->retrying && rc_psn_diff(rq->una, rq->retry_psn) > 0)
        rq->retrying = false;
    if (rq->una == rq->npsn || qp->attr.timeout == 0)
        rq->timer_ns = RS_RC_INFINITE;
    else
        rq->timer_ns = qp->ctx->now + rs_rc_timeout_ns(qp->attr.timeout);
}

/* The local ACK timeout expired: go back to the oldest unacknowledged PSN,
 * or fail the oldest request once retry_cnt retries are spent. */
void
rc_req_timers(struct rs_rc_qp *qp)
{
    struct rc_req *rq = &qp->req;

    if (qp->state != RS_RC_QP_RTS || rq->timer_ns > qp->ctx->now)
        return;
    qp->ctx->cnt.timeouts++;
    if (rc_trace_enabled(qp))
        rc_trace(qp, "req", "TIMEOUT", rq->una);
    if (rq->retry_left == 0) {
        rc_complete_send(qp, RS_RC_WC_RETRY_EXC_ERR);
        rc_qp_error(qp);
        return;
    }
    rq->retry_left--;
    rc_req_rewind(qp, rq->una);
    rq->timer_ns = qp->ctx->now + rs_rc_timeout_ns(qp->attr.timeout);
}

uint64_t
rc_req_deadline(const struct rs_rc_qp *qp)
{
    const struct rc_req *rq = &qp->req;

    if (qp->state != RS_RC_QP_RTS)
        return RS_RC_INFINITE;
    uint64_t d = rq->timer_ns;
    if (rq->cur < rq->tail && qp->ctx->now < rq->rnr_until)
        d = rq->rnr_until < d ? rq->rnr_until : d;
    else if (can_send((struct rs_rc_qp *)qp))
        d = 0;
    return d;
}

void
rc_req_reset(struct rs_rc_qp *qp)
{
    struct rc_req *rq = &qp->req;

    memset(rq, 0, sizeof(*rq));
    rq->npsn = rq->una = qp->attr.sq_psn & RC_PSN_MASK;
    rq->retry_left = qp->attr.retry_cnt;
    rq->rnr_left = qp->attr.rnr_retry;
    rq->timer_ns = RS_RC_INFINITE;
}
