/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_comp.c - the requester's completer: ACKs, NAKs and responses in, work
 * completions out (IBTA Vol 1 chapter 9: requester error recovery).
 *
 * Responses arrive in PSN order, so a response with PSN p acknowledges
 * every request before p. When that skips a READ or atomic whose response
 * never came, the response was lost: an implied NAK, and the requester
 * goes back to it. The states, one per outcome, are traced by name.
 *
 *   CHECK_PSN -> ACK_BEFORE -> DISPATCH -> ACK | READ_RESP | ATOMIC_ACK |
 *   SEQ_NAK | RNR_NAK | ERR_NAK -> DONE;  ACK_BEFORE -> IMPLIED_NAK;
 *   READ_RESP -> READ_GAP;  drops: DROP_DUP, DROP_GHOST, DROP_BAD
 */
#include <string.h>

#include "rc_int.h"

enum comp_state {
    COMP_CHECK_PSN,
    COMP_ACK_BEFORE,
    COMP_DISPATCH,
    COMP_ACK,
    COMP_READ_RESP,
    COMP_ATOMIC_ACK,
    COMP_SEQ_NAK,
    COMP_RNR_NAK,
    COMP_ERR_NAK,
    COMP_IMPLIED_NAK,
    COMP_READ_GAP,
    COMP_DONE,
    COMP_DROP_DUP,      /* acknowledges what was acknowledged already */
    COMP_DROP_GHOST,    /* a PSN never sent */
    COMP_DROP_BAD,      /* fits no outstanding request, or malformed */
    COMP_N_STATES
};

static const char *const comp_state_names[COMP_N_STATES] = {
    [COMP_CHECK_PSN] = "CHECK_PSN",     [COMP_ACK_BEFORE] = "ACK_BEFORE",
    [COMP_DISPATCH] = "DISPATCH",       [COMP_ACK] = "ACK",
    [COMP_READ_RESP] = "READ_RESP",     [COMP_ATOMIC_ACK] = "ATOMIC_ACK",
    [COMP_SEQ_NAK] = "SEQ_NAK",         [COMP_RNR_NAK] = "RNR_NAK",
    [COMP_ERR_NAK] = "ERR_NAK",         [COMP_IMPLIED_NAK] = "IMPLIED_NAK",
    [COMP_READ_GAP] = "READ_GAP",       [COMP_DONE] = "DONE",
    [COMP_DROP_DUP] = "DROP_DUP",       [COMP_DROP_GHOST] = "DROP_GHOST",
    [COMP_DROP_BAD] = "DROP_BAD",
};

struct comp {
    struct rs_rc_qp *qp;
    const struct rc_pkt *pkt;
    uint32_t retry_psn;     /* where an implied NAK or a READ gap goes back to */
};

static struct rc_swqe *
head_wqe(struct rs_rc_qp *qp)
{
    struct rc_req *rq = &qp->req;

    return rq->head < rq->frontier ? &qp->sq[rq->head % qp->attr.sq_depth] : NULL;
}

/* una follows the oldest outstanding packet; moving it is progress. */
static void
update_una(struct rs_rc_qp *qp)
{
    struct rc_req *rq = &qp->req;
    struct rc_swqe *w = head_wqe(qp);
    uint32_t una = w != NULL ? rc_psn_add(w->first_psn, w->done) : rq->npsn;

    if (una != rq->una) {
        rq->una = una;
        rc_req_progress(qp);
    }
}

static enum comp_state
check_psn(struct comp *c)
{
    struct rc_req *rq = &c->qp->req;

    if (rc_psn_diff(c->pkt->psn, rq->una) < 0)
        return COMP_DROP_DUP;
    if (rc_psn_diff(c->pkt->psn, rq->npsn) >= 0)
        return COMP_DROP_GHOST;
    return COMP_ACK_BEFORE;
}

/* Every request with PSNs before the response's is acknowledged by it. */
static enum comp_state
ack_before(struct comp *c)
{
    struct rs_rc_qp *qp = c->qp;
    struct rc_swqe *w;

    while ((w = head_wqe(qp)) != NULL) {
        if (rc_psn_diff(w->last_psn, c->pkt->psn) < 0) {
            if (rc_wr_is_rd_atomic(w->wr.opcode)) {
                c->retry_psn = rc_psn_add(w->first_psn, w->done);
                return COMP_IMPLIED_NAK;
            }
            rc_complete_send(qp, RS_RC_WC_SUCCESS);
            continue;
        }
        int32_t d = rc_psn_diff(c->pkt->psn, w->first_psn);
        if (!rc_wr_is_rd_atomic(w->wr.opcode) && d > (int32_t)w->done)
            w->done = (uint32_t)d;
        break;
    }
    update_una(qp);
    return COMP_DISPATCH;
}

static enum comp_state
dispatch(struct comp *c)
{
    const struct rc_pkt *pkt = c->pkt;

    switch (pkt->op) {
    case RS_OP_ACK:
        switch (rs_aeth_kind(pkt->syndrome)) {
        case RS_AETH_ACK:
            return COMP_ACK;
        case RS_AETH_RNR_NAK:
            return COMP_RNR_NAK;
        case RS_AETH_NAK:
            return (pkt->syndrome & 0x1f) == RS_NAK_PSN_SEQ_ERROR ? COMP_SEQ_NAK : COMP_ERR_NAK;
        default:
            return COMP_DROP_BAD;
        }
    case RS_OP_READ_RESP:
        return COMP_READ_RESP;
    case RS_OP_ATOMIC_ACK:
        return COMP_ATOMIC_ACK;
    default:
        return COMP_DROP_BAD;
    }
}

static enum comp_state
do_ack(struct comp *c)
{
    struct rs_rc_qp *qp = c->qp;
    struct rc_swqe *w = head_wqe(qp);
    uint32_t psn = c->pkt->psn;

    if (w != NULL && rc_psn_diff(psn, w->first_psn) >= 0) {
        if (rc_wr_is_rd_atomic(w->wr.opcode)) {
            /* An ACK that covers a READ or atomic means its response was lost. */
            c->retry_psn = rc_psn_add(w->first_psn, w->done);
            return COMP_IMPLIED_NAK;
        }
        if (psn == w->last_psn)
            rc_complete_send(qp, RS_RC_WC_SUCCESS);
        else
            w->done = (uint32_t)rc_psn_diff(psn, w->first_psn) + 1;
    }
    update_una(qp);
    return COMP_DONE;
}

/* Goes back to psn, once per loss: a further trigger for the same PSN while
 * that retry is under way is ignored. The retry counter is spent here. */
static enum comp_state
retry_from(struct comp *c, uint32_t psn, uint64_t *counter)
{
    struct rs_rc_qp *qp = c->qp;
    struct rc_req *rq = &qp->req;

    if (rq->retrying && rq->retry_psn == psn)
        return COMP_DONE;
    (*counter)++;
    if (rq->retry_left == 0) {
        rc_complete_send(qp, RS_RC_WC_RETRY_EXC_ERR);
        rc_qp_error(qp);
        return COMP_DONE;
    }
    rq->retry_left--;
    rc_req_rewind(qp, psn);
    if (qp->attr.timeout != 0)
        rq->timer_ns = qp->ctx->now + rs_rc_timeout_ns(qp->attr.timeout);
    return COMP_DONE;
}

static enum comp_state
do_rnr_nak(struct comp *c)
{
    struct rs_rc_qp *qp = c->qp;
    struct rc_req *rq = &qp->req;

    qp->ctx->cnt.rnr_nak_received++;
    if (qp->attr.rnr_retry != 7) {          /* 7: retry forever */
        if (rq->rnr_left == 0) {
            rc_complete_send(qp, RS_RC_WC_RNR_RETRY_EXC_ERR);
            rc_qp_error(qp);
            return COMP_DONE;
        }
        rq->rnr_left--;
    }
    rq->rnr_until = qp->ctx->now + (uint64_t)rs_aeth_rnr_timer_us(c->pkt->syndrome) * 1000;
    rc_req_rewind(qp, c->pkt->psn);
    rq->timer_ns = RS_RC_INFINITE;          /* the RNR wait is no ACK timeout */
    return COMP_DONE;
}

static enum comp_state
do_err_nak(struct comp *c)
{
    static const uint8_t status[5] = {
        RS_RC_WC_REM_OP_ERR, RS_RC_WC_REM_INV_REQ_ERR, RS_RC_WC_REM_ACCESS_ERR,
        RS_RC_WC_REM_OP_ERR, RS_RC_WC_REM_INV_RD_REQ_ERR,
    };
    uint8_t code = c->pkt->syndrome & 0x1f;

    /* The request the NAK names fails; the QP goes to the error state. */
    rc_complete_send(c->qp, code < 5 ? status[code] : RS_RC_WC_REM_OP_ERR);
    rc_qp_error(c->qp);
    return COMP_DONE;
}

/* READ responses fill the request in order: FIRST and MIDDLE carry a PMTU,
 * LAST or ONLY the rest; FIRST, LAST and ONLY carry an ACK-type AETH. A
 * gap means responses were lost: ask again from the first missing one. */
static enum comp_state
do_read_resp(struct comp *c)
{
    struct rs_rc_qp *qp = c->qp;
    const struct rc_pkt *pkt = c->pkt;
    struct rc_swqe *w = head_wqe(qp);
    uint32_t pmtu = qp->attr.pmtu;

    if (w == NULL || w->wr.opcode != RS_RC_WR_RDMA_READ ||
        !rc_psn_in(pkt->psn, w->first_psn, w->last_psn))
        return COMP_DROP_BAD;
    uint32_t expected = rc_psn_add(w->first_psn, w->done);
    int32_t d = rc_psn_diff(pkt->psn, expected);
    if (d < 0)
        return COMP_DROP_DUP;
    if (d > 0) {
        c->retry_psn = expected;
        return COMP_READ_GAP;
    }
    uint64_t off = (uint64_t)w->done * pmtu;
    uint64_t rem = w->data.length - off;
    bool ends = pkt->seg == RS_SEG_LAST || pkt->seg == RS_SEG_ONLY;
    if (rem > pmtu ? (ends || pkt->paylen != pmtu) : (!ends || pkt->paylen != rem))
        return COMP_DROP_BAD;
    if ((pkt->info->hdrs & RS_HDR_AETH) && rs_aeth_kind(pkt->syndrome) != RS_AETH_ACK)
        return COMP_DROP_BAD;
    /* The sink is looked up now: a region deregistered since the READ was posted
     * fails the READ rather than take its data. */
    if (pkt->paylen > 0 && !rc_data_write(qp->ctx, &w->data, off, pkt->payload, pkt->paylen)) {
        rc_local_fault(qp);
        return COMP_DONE;
    }
    w->done++;
    rc_req_progress(qp);
    if (w->done == w->npkts)
        rc_complete_send(qp, RS_RC_WC_SUCCESS);
    update_una(qp);
    return COMP_DONE;
}

static enum comp_state
do_atomic_ack(struct comp *c)
{
    struct rs_rc_qp *qp = c->qp;
    struct rc_swqe *w = head_wqe(qp);

    if (w == NULL || w->first_psn != c->pkt->psn || !rc_wr_is_rd_atomic(w->wr.opcode) ||
        w->wr.opcode == RS_RC_WR_RDMA_READ || rs_aeth_kind(c->pkt->syndrome) != RS_AETH_ACK)
        return COMP_DROP_BAD;
    /* The original value, in host order, as ibverbs hands it over. */
    if (!rc_data_write(qp->ctx, &w->data, 0, (const uint8_t *)&c->pkt->orig, 8)) {
        rc_local_fault(qp);
        return COMP_DONE;
    }
    w->done = 1;
    rc_complete_send(qp, RS_RC_WC_SUCCESS);
    update_una(qp);
    return COMP_DONE;
}

void
rc_comp_handle(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    struct rs_rc_counters *cnt = &qp->ctx->cnt;
    struct comp c = {qp, pkt, 0};
    enum comp_state s = COMP_CHECK_PSN;

    for (;;) {
        if (rc_trace_enabled(qp))
            rc_trace(qp, "comp", comp_state_names[s], pkt->psn);
        switch (s) {
        case COMP_CHECK_PSN:
            s = check_psn(&c);
            break;
        case COMP_ACK_BEFORE:
            s = ack_before(&c);
            break;
        case COMP_DISPATCH:
            s = dispatch(&c);
            break;
        case COMP_ACK:
            s = do_ack(&c);
            break;
        case COMP_READ_RESP:
            s = do_read_resp(&c);
            break;
        case COMP_ATOMIC_ACK:
            s = do_atomic_ack(&c);
            break;
        case COMP_SEQ_NAK:
            cnt->seq_nak_received++;
            s = retry_from(&c, pkt->psn, &cnt->seq_nak_retries);
            break;
        case COMP_RNR_NAK:
            s = do_rnr_nak(&c);
            break;
        case COMP_ERR_NAK:
            s = do_err_nak(&c);
            break;
        case COMP_IMPLIED_NAK:
            s = retry_from(&c, c.retry_psn, &cnt->implied_nak);
            break;
        case COMP_READ_GAP:
            s = retry_from(&c, c.retry_psn, &cnt->read_gap);
            break;
        case COMP_DROP_DUP:
            cnt->dup_response++;
            return;
        case COMP_DROP_GHOST:
            cnt->ghost_response++;
            return;
        case COMP_DROP_BAD:
            cnt->bad_response++;
            return;
        default:
            return;
        }
    }
}
