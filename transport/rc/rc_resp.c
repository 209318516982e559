/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_resp.c - the responder's checks, in IBTA order, and its dispatch loop.
 *
 * A request that passed the header checks (rc_ctx.c: ICRC, TVer, QPN,
 * transport, P_Key, source) walks the states below. Each check is a small
 * function of (qp, pkt) that returns the next state; an error is a state of
 * its own, and one table maps it to its IBTA responder error class, the NAK
 * it sends, the completion status of a receive WQE it consumes, whether it
 * takes the QP to the error state, and its counter. Execution and replies
 * live in rc_resp_exec.c.
 *
 *   CHECK_PSN -> CHECK_OP_SEQ -> CHECK_OP_ACCESS -> CHECK_RESOURCE ->
 *   CHECK_LENGTH -> CHECK_RKEY -> CHECK_ATOMIC_ALIGN -> CHECK_INVALIDATE ->
 *   EXECUTE -> [COMPLETE] -> ACKNOWLEDGE -> DONE;
 *   CHECK_PSN -> DUPLICATE -> [ACKNOWLEDGE] -> DONE
 */
#include <string.h>

#include "rc_resp_int.h"

#define NAK_NONE (-1)
#define NAK_RNR (-2)
#define NO_COUNTER SIZE_MAX
#define C(field) offsetof(struct rs_rc_counters, field)

struct resp_state_info {
    const char *name;
    char cls;               /* IBTA responder error class; 0 when not an error */
    int8_t nak;             /* AETH NAK code, NAK_RNR or NAK_NONE */
    uint8_t wc_status;      /* status for the receive WQE the message holds */
    bool qp_error;          /* the QP goes to the error state */
    size_t counter;
};

static const struct resp_state_info states[RESP_N_STATES] = {
    [RESP_CHECK_PSN] = {"CHECK_PSN", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_CHECK_OP_SEQ] = {"CHECK_OP_SEQ", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_CHECK_OP_ACCESS] = {"CHECK_OP_ACCESS", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_CHECK_RESOURCE] = {"CHECK_RESOURCE", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_CHECK_LENGTH] = {"CHECK_LENGTH", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_CHECK_RKEY] = {"CHECK_RKEY", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_CHECK_ATOMIC_ALIGN] = {"CHECK_ATOMIC_ALIGN", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_CHECK_INVALIDATE] = {"CHECK_INVALIDATE", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_EXECUTE] = {"EXECUTE", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_COMPLETE] = {"COMPLETE", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_ACKNOWLEDGE] = {"ACKNOWLEDGE", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_DUPLICATE] = {"DUPLICATE", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_DONE] = {"DONE", 0, NAK_NONE, 0, false, NO_COUNTER},
    [RESP_DROP_PSN_GAP] = {"DROP_PSN_GAP", 0, NAK_NONE, 0, false, C(drop_psn_gap)},
    [RESP_DROP_DUP_NO_RESOURCE] = {"DROP_DUP_NO_RESOURCE", 'D', NAK_NONE, 0, false,
                                   C(drop_dup_no_resource)},
    [RESP_DROP_DUP_MISMATCH] = {"DROP_DUP_MISMATCH", 'D', NAK_NONE, 0, false,
                                C(drop_dup_mismatch)},
    [RESP_ERR_PSN_SEQ] = {"ERR_PSN_SEQ", 'B', RS_NAK_PSN_SEQ_ERROR, 0, false, C(nak_psn_seq)},
    [RESP_ERR_RNR] = {"ERR_RNR", 'B', NAK_RNR, 0, false, C(rnr_nak)},
    [RESP_ERR_MISSING_FIRST] = {"ERR_MISSING_FIRST", 'C', RS_NAK_INVALID_REQUEST,
                                RS_RC_WC_REM_INV_REQ_ERR, true, C(nak_invalid_request)},
    [RESP_ERR_MISSING_LAST] = {"ERR_MISSING_LAST", 'C', RS_NAK_INVALID_REQUEST,
                               RS_RC_WC_REM_INV_REQ_ERR, true, C(nak_invalid_request)},
    [RESP_ERR_OP_NOT_ENABLED] = {"ERR_OP_NOT_ENABLED", 'C', RS_NAK_INVALID_REQUEST,
                                 RS_RC_WC_REM_INV_REQ_ERR, true, C(nak_invalid_request)},
    [RESP_ERR_NO_RD_ATOMIC] = {"ERR_NO_RD_ATOMIC", 'C', RS_NAK_INVALID_REQUEST,
                               RS_RC_WC_REM_INV_REQ_ERR, true, C(nak_invalid_request)},
    [RESP_ERR_PAYLOAD_LENGTH] = {"ERR_PAYLOAD_LENGTH", 'C', RS_NAK_INVALID_REQUEST,
                                 RS_RC_WC_REM_INV_REQ_ERR, true, C(nak_invalid_request)},
    [RESP_ERR_DMA_LENGTH] = {"ERR_DMA_LENGTH", 'C', RS_NAK_INVALID_REQUEST,
                             RS_RC_WC_REM_INV_REQ_ERR, true, C(nak_invalid_request)},
    [RESP_ERR_WRITE_LENGTH] = {"ERR_WRITE_LENGTH", 'C', RS_NAK_INVALID_REQUEST,
                               RS_RC_WC_REM_INV_REQ_ERR, true, C(nak_invalid_request)},
    [RESP_ERR_RECV_OVERFLOW] = {"ERR_RECV_OVERFLOW", 'C', RS_NAK_INVALID_REQUEST,
                                RS_RC_WC_LOC_LEN_ERR, true, C(nak_invalid_request)},
    [RESP_ERR_RKEY] = {"ERR_RKEY", 'C', RS_NAK_REMOTE_ACCESS_ERROR, RS_RC_WC_REM_ACCESS_ERR,
                       true, C(nak_remote_access)},
    [RESP_ERR_MR_ACCESS] = {"ERR_MR_ACCESS", 'C', RS_NAK_REMOTE_ACCESS_ERROR,
                            RS_RC_WC_REM_ACCESS_ERR, true, C(nak_remote_access)},
    [RESP_ERR_BOUNDS] = {"ERR_BOUNDS", 'C', RS_NAK_REMOTE_ACCESS_ERROR,
                         RS_RC_WC_REM_ACCESS_ERR, true, C(nak_remote_access)},
    [RESP_ERR_MISALIGNED_ATOMIC] = {"ERR_MISALIGNED_ATOMIC", 'C', RS_NAK_INVALID_REQUEST,
                                    RS_RC_WC_REM_INV_REQ_ERR, true, C(nak_invalid_request)},
    [RESP_ERR_INVALIDATE] = {"ERR_INVALIDATE", 'J', RS_NAK_INVALID_REQUEST,
                             RS_RC_WC_REM_INV_REQ_ERR, true, C(nak_invalid_request)},
    [RESP_ERR_BAD_RECV_WQE] = {"ERR_BAD_RECV_WQE", 'A', RS_NAK_REMOTE_OPERATIONAL_ERROR,
                               RS_RC_WC_LOC_PROT_ERR, true, C(nak_remote_op)},
};

const char *
rc_resp_state_name(enum resp_state s)
{
    return s < RESP_N_STATES ? states[s].name : "?";
}

/* --- the checks --- */

/* PSN equal to the expected one: execute; ahead: one sequence NAK
 * carrying the expected PSN, then silence until it arrives; behind (within
 * the half of the PSN space before it): a duplicate. */
static enum resp_state
check_psn(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    int32_t d = rc_psn_diff(pkt->psn, qp->resp.epsn);

#ifdef RS_RC_MISBEHAVE
    if (rs_rc_misbehave & RS_RC_MISBEHAVE_NO_PSN_WRAP) {    /* a broken responder */
        if (qp->resp.bad_wrap_seen && pkt->psn < qp->resp.bad_wrap_last)
            return RESP_DUPLICATE;
        if (d == 0) {
            qp->resp.bad_wrap_seen = true;
            qp->resp.bad_wrap_last = pkt->psn;
        }
    }
#endif
    if (d > 0) {
        if (qp->resp.nak_sent)
            return RESP_DROP_PSN_GAP;
        qp->resp.nak_sent = true;
        return RESP_ERR_PSN_SEQ;
    }
    if (d < 0)
        return RESP_DUPLICATE;
    qp->resp.nak_sent = false;
    return RESP_CHECK_OP_SEQ;
}

/* The packets of a message come FIRST, MIDDLE..., LAST; a new
 * message may only begin between messages. */
static enum resp_state
check_op_seq(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    uint8_t last = qp->resp.last_opcode;
    bool middle_or_last = pkt->seg == RS_SEG_MIDDLE || pkt->seg == RS_SEG_LAST;

    if (last == RC_OPCODE_NONE)
        return middle_or_last ? RESP_ERR_MISSING_FIRST : RESP_CHECK_OP_ACCESS;
    if (pkt->op != rs_ib_opcode_info(last)->op || !middle_or_last)
        return RESP_ERR_MISSING_LAST;
    return RESP_CHECK_OP_ACCESS;
}

/* The QP must have been enabled for the remote operation. */
enum resp_state
rc_resp_check_op_access(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    unsigned need = 0;

    if (pkt->op == RS_OP_WRITE)
        need = RS_RC_ACCESS_REMOTE_WRITE;
    else if (pkt->op == RS_OP_READ_REQ)
        need = RS_RC_ACCESS_REMOTE_READ;
    else if (pkt->op == RS_OP_CMP_SWAP || pkt->op == RS_OP_FETCH_ADD)
        need = RS_RC_ACCESS_REMOTE_ATOMIC;
    return (qp->attr.access & need) == need ? RESP_CHECK_RESOURCE : RESP_ERR_OP_NOT_ENABLED;
}

static bool
takes_recv_wqe(const struct rc_pkt *pkt)
{
    if (pkt->op == RS_OP_SEND)
        return pkt->seg == RS_SEG_FIRST || pkt->seg == RS_SEG_ONLY;
    return pkt->op == RS_OP_WRITE && (pkt->info->hdrs & RS_HDR_IMMDT);
}

/* A SEND, or a WRITE with Immediate, needs a receive WQE (else RNR NAK,
 * class B); a READ or atomic needs responder resources. */
static enum resp_state
check_resource(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    if (takes_recv_wqe(pkt) && rc_rq_count(qp) == 0)
        return RESP_ERR_RNR;
    if ((pkt->op == RS_OP_READ_REQ || pkt->op == RS_OP_CMP_SWAP ||
         pkt->op == RS_OP_FETCH_ADD) && qp->attr.max_dest_rd_atomic == 0)
        return RESP_ERR_NO_RD_ATOMIC;
    return RESP_CHECK_LENGTH;
}

/* C9-92: FIRST and MIDDLE carry exactly the PMTU, LAST 1..PMTU, ONLY
 * 0..PMTU. C9-94: a DMA length is at most 2^31. The payload of a WRITE adds
 * up to its RETH length. (The pad is consistent by then: a transport packet
 * whose length is not a multiple of four was dropped as malformed.) */
enum resp_state
rc_resp_check_length(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    uint32_t pmtu = qp->attr.pmtu;

    if (pkt->info->hdrs & RS_HDR_PAYLOAD) {
        switch (pkt->seg) {
        case RS_SEG_FIRST:
        case RS_SEG_MIDDLE:
            if (pkt->paylen != pmtu)
                return RESP_ERR_PAYLOAD_LENGTH;
            break;
        case RS_SEG_LAST:
            if (pkt->paylen == 0 || pkt->paylen > pmtu)
                return RESP_ERR_PAYLOAD_LENGTH;
            break;
        default:
            if (pkt->paylen > pmtu)
                return RESP_ERR_PAYLOAD_LENGTH;
            break;
        }
    }
    if ((pkt->info->hdrs & RS_HDR_RETH) && pkt->dmalen > RC_MAX_DMA_LEN)
        return RESP_ERR_DMA_LENGTH;
    if (pkt->op != RS_OP_WRITE)
        return RESP_CHECK_RKEY;
    switch (pkt->seg) {
    case RS_SEG_ONLY:
        return pkt->paylen == pkt->dmalen ? RESP_CHECK_RKEY : RESP_ERR_WRITE_LENGTH;
    case RS_SEG_FIRST:      /* more must follow */
        return pkt->dmalen > pkt->paylen ? RESP_CHECK_RKEY : RESP_ERR_WRITE_LENGTH;
    case RS_SEG_MIDDLE:
        return qp->resp.resid > pkt->paylen ? RESP_CHECK_RKEY : RESP_ERR_WRITE_LENGTH;
    default:
        return qp->resp.resid == pkt->paylen ? RESP_CHECK_RKEY : RESP_ERR_WRITE_LENGTH;
    }
}

/* The R_Key must name a valid region that grants the access and holds the
 * whole range. C9-88: a zero-length READ or WRITE names no memory, so its
 * R_Key and VA are not checked. The packets after a WRITE's first are
 * checked again as they are executed (the key may be invalidated meanwhile). */
enum resp_state
rc_resp_check_rkey(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    enum rc_mr_fail why;
    unsigned access;
    uint64_t len;

    (void)qp;
    if (pkt->info->hdrs & RS_HDR_RETH) {
        if (pkt->dmalen == 0)
            return RESP_CHECK_INVALIDATE;
        access = pkt->op == RS_OP_READ_REQ ? RS_RC_ACCESS_REMOTE_READ
                                           : RS_RC_ACCESS_REMOTE_WRITE;
        len = pkt->dmalen;
    } else if (pkt->info->hdrs & RS_HDR_ATOMICETH) {
        access = RS_RC_ACCESS_REMOTE_ATOMIC;
        len = 8;
    } else {
        return RESP_CHECK_INVALIDATE;
    }
    if (rc_mr_remote(qp->ctx, pkt->rkey, pkt->va, len, access, &why) == NULL)
        return rc_resp_mr_fail(why);
    return RESP_CHECK_ATOMIC_ALIGN;
}

/* Atomic operations work on naturally aligned 8-byte words. */
static enum resp_state
check_atomic_align(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    (void)qp;
    if ((pkt->info->hdrs & RS_HDR_ATOMICETH) && (pkt->va & 7) != 0)
        return RESP_ERR_MISALIGNED_ATOMIC;
    return RESP_CHECK_INVALIDATE;
}

/* A SEND with Invalidate must name a key that may be invalidated (class J). */
static enum resp_state
check_invalidate(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    if ((pkt->info->hdrs & RS_HDR_IETH) && !rc_mr_invalidate(qp->ctx, pkt->ieth, true))
        return RESP_ERR_INVALIDATE;
    return RESP_EXECUTE;
}

#ifdef RS_RC_MISBEHAVE
unsigned rs_rc_misbehave;
#endif

/* --- errors --- */

/* Sends the state's NAK, completes the receive WQE the message holds and
 * moves the QP to the error state when the class says so. */
static void
resp_error(struct rs_rc_qp *qp, const struct rc_pkt *pkt, enum resp_state s)
{
    const struct resp_state_info *st = &states[s];
    struct rs_rc_counters *cnt = &qp->ctx->cnt;

    if (st->counter != NO_COUNTER)
        (*(uint64_t *)((char *)cnt + st->counter))++;
    if (st->nak == NAK_NONE)
        return;
    rc_resp_flush_ack(qp);
#ifdef RS_RC_MISBEHAVE
    if (st->nak == NAK_RNR && (rs_rc_misbehave & RS_RC_MISBEHAVE_NO_RNR))
        return;     /* a broken responder: the SEND vanishes without an RNR NAK */
#endif
    uint8_t seq_nak = (uint8_t)(RS_AETH_NAK << 5 | RS_NAK_PSN_SEQ_ERROR);
    if (st->nak == NAK_RNR) {
        /* The requester retries this very packet after the timer. */
        rc_tx_ack(qp, (uint8_t)(RS_AETH_RNR_NAK << 5 | (qp->attr.min_rnr_timer & 0x1f)),
                  pkt->psn, qp->resp.msn);
    } else if (st->nak == RS_NAK_PSN_SEQ_ERROR) {
        rc_tx_ack(qp, seq_nak, qp->resp.epsn, qp->resp.msn);
#ifdef RS_RC_MISBEHAVE
        if (rs_rc_misbehave & RS_RC_MISBEHAVE_NAK_TWICE)    /* a broken responder */
            rc_tx_ack(qp, seq_nak, qp->resp.epsn, qp->resp.msn);
#endif
    } else {
        rc_tx_ack(qp, (uint8_t)(RS_AETH_NAK << 5 | st->nak), pkt->psn, qp->resp.msn);
    }
    if (!st->qp_error)
        return;
    if (qp->resp.have_rwqe) {
        rc_complete_recv(qp, st->wc_status, RS_RC_WC_RECV, qp->resp.recv_off, 0, 0, 0);
    }
    rc_qp_error(qp);
    /* The affiliated error the application is told of (IBTA 11.6.3.2). */
    rc_event(qp->ctx, st->nak == RS_NAK_REMOTE_ACCESS_ERROR ? RS_RC_EV_QP_ACCESS_ERR
                      : st->nak == RS_NAK_INVALID_REQUEST   ? RS_RC_EV_QP_REQ_ERR
                                                            : RS_RC_EV_QP_FATAL,
             qp->attr.qpn, NULL);
}

void
rc_resp_handle(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    enum resp_state s = RESP_CHECK_PSN;
    struct resp_work work = {NULL};

    for (;;) {
        if (rc_trace_enabled(qp))
            rc_trace(qp, "resp", states[s].name, pkt->psn);
        switch (s) {
        case RESP_CHECK_PSN:
            s = check_psn(qp, pkt);
            break;
        case RESP_CHECK_OP_SEQ:
            s = check_op_seq(qp, pkt);
            break;
        case RESP_CHECK_OP_ACCESS:
            s = rc_resp_check_op_access(qp, pkt);
            break;
        case RESP_CHECK_RESOURCE:
            s = check_resource(qp, pkt);
            break;
        case RESP_CHECK_LENGTH:
            s = rc_resp_check_length(qp, pkt);
            break;
        case RESP_CHECK_RKEY:
            s = rc_resp_check_rkey(qp, pkt);
            break;
        case RESP_CHECK_ATOMIC_ALIGN:
            s = check_atomic_align(qp, pkt);
            break;
        case RESP_CHECK_INVALIDATE:
            s = check_invalidate(qp, pkt);
            break;
        case RESP_EXECUTE:
            s = rc_resp_execute(qp, pkt, &work);
            break;
        case RESP_COMPLETE:
            s = rc_resp_complete(qp, pkt, &work);
            break;
        case RESP_ACKNOWLEDGE:
            s = rc_resp_acknowledge(qp, pkt, &work);
            break;
        case RESP_DUPLICATE:
            s = rc_resp_duplicate(qp, pkt, &work);
            break;
        case RESP_DONE:
            return;
        default:
            resp_error(qp, pkt, s);
            return;
        }
    }
}

void
rc_resp_reset(struct rs_rc_qp *qp)
{
    struct rc_resp *r = &qp->resp;
    struct rc_res *res = r->res;
    struct rs_rc_sge *rwqe_sge = r->rwqe_sge;

    memset(r, 0, sizeof(*r));
    r->res = res;
    r->rwqe_sge = rwqe_sge;
    memset(res, 0, sizeof(*res) * qp->attr.max_dest_rd_atomic);
    r->epsn = qp->attr.rq_psn & RC_PSN_MASK;
    r->ack_psn = rc_psn_add(r->epsn, RC_PSN_MASK);  /* epsn - 1: nothing yet */
    r->last_opcode = RC_OPCODE_NONE;
}
