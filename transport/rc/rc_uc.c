/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_uc.c - the UC responder (IBTA Vol 1, 9.7.5.1 and 9.8.2: unreliable connected).
 *
 * UC carries SEND and WRITE between two connected QPs as RC does, with RC's header
 * checks and execution, but nothing is ever answered: no ACK, no NAK, no RNR NAK, no
 * retry. A packet lost in a message loses the whole message: the responder drops what
 * follows until a packet that begins a message (FIRST or ONLY) and starts again there,
 * whatever its PSN. A request in error (no receive WQE, a bad R_Key, lengths that do
 * not add up) is dropped the same way, silently, and the QP carries on; the receive
 * WQE a dropped SEND took is kept for the next one. Each dropped message is counted
 * (drop_uc), and each PSN gap too (drop_psn_gap).
 *
 *   CHECK_PSN -> CHECK_OP_SEQ -> CHECK_OP_ACCESS -> CHECK_RESOURCE -> CHECK_LENGTH ->
 *   CHECK_RKEY -> EXECUTE -> [COMPLETE] -> DONE;  any failure -> DROP
 */
#include "rc_resp_int.h"

static bool
starts(const struct rc_pkt *pkt)
{
    return pkt->seg == RS_SEG_FIRST || pkt->seg == RS_SEG_ONLY;
}

static bool
failed(enum resp_state s)
{
    return s >= RESP_DROP_PSN_GAP;
}

/* Forgets the message under way; its receive WQE (if it took one) stays for the next. */
static void
drop_message(struct rs_rc_qp *qp, bool wait_for_start)
{
    struct rc_resp *r = &qp->resp;

    qp->ctx->cnt.drop_uc++;
    r->last_opcode = RC_OPCODE_NONE;
    r->recv_off = 0;
    r->uc_drop = wait_for_start;
}

/* The PSN and the message sequence: false when the packet is dropped. */
static bool
check_sequence(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    struct rc_resp *r = &qp->resp;

    if (pkt->psn != r->epsn) {
        qp->ctx->cnt.drop_psn_gap++;
        if (r->last_opcode != RC_OPCODE_NONE || !starts(pkt))
            drop_message(qp, !starts(pkt));
    }
    r->epsn = rc_psn_add(pkt->psn, 1);
    if (r->uc_drop && !starts(pkt))
        return false;
    r->uc_drop = false;
    if (r->last_opcode == RC_OPCODE_NONE)
        return starts(pkt);
    /* A new message before the last one ended: that one is lost. */
    if (starts(pkt)) {
        drop_message(qp, false);
        return true;
    }
    return pkt->op == rs_ib_opcode_info(r->last_opcode)->op;
}

/* A SEND's first packet, and the packet of a WRITE with Immediate that ends it, need
 * a receive WQE; with none the message is dropped (no RNR NAK in UC). */
static bool
has_receive(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    if (pkt->op == RS_OP_SEND && starts(pkt))
        return qp->resp.have_rwqe || rc_rq_count(qp) > 0;
    if (pkt->op == RS_OP_WRITE && (pkt->info->hdrs & RS_HDR_IMMDT))
        return rc_rq_count(qp) > 0;
    return true;
}

static void
complete(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    struct rc_resp *r = &qp->resp;
    uint8_t flags = (pkt->info->hdrs & RS_HDR_IMMDT) ? RS_RC_WC_WITH_IMM : 0;

    if (pkt->op == RS_OP_SEND) {
        rc_complete_recv(qp, RS_RC_WC_SUCCESS, RS_RC_WC_RECV, r->recv_off, flags, pkt->imm, 0);
        qp->ctx->cnt.exec_send++;
        return;
    }
    if ((pkt->info->hdrs & RS_HDR_IMMDT) && rc_take_recv(qp))
        rc_complete_recv(qp, RS_RC_WC_SUCCESS, RS_RC_WC_RECV_RDMA_WITH_IMM, r->length, flags,
                         pkt->imm, 0);
    qp->ctx->cnt.exec_write++;
}

void
rc_uc_handle(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    struct rc_resp *r = &qp->resp;

    if (rc_trace_enabled(qp))
        rc_trace(qp, "uc", "CHECK_PSN", pkt->psn);
    if (!check_sequence(qp, pkt)) {
        if (!r->uc_drop)
            drop_message(qp, true);
        return;
    }
    enum resp_state s = rc_resp_check_op_access(qp, pkt);
    if (!failed(s) && !has_receive(qp, pkt))
        s = RESP_ERR_RNR;
    if (!failed(s))
        s = rc_resp_check_length(qp, pkt);
    if (!failed(s))
        s = rc_resp_check_rkey(qp, pkt);
    if (!failed(s))
        s = pkt->op == RS_OP_SEND ? rc_resp_exec_send(qp, pkt) : rc_resp_exec_write(qp, pkt);
    if (failed(s)) {
        if (rc_trace_enabled(qp))
            rc_trace(qp, "uc", rc_resp_state_name(s), pkt->psn);
        drop_message(qp, !(pkt->seg == RS_SEG_LAST || pkt->seg == RS_SEG_ONLY));
        return;
    }
    if (pkt->seg == RS_SEG_FIRST || pkt->seg == RS_SEG_MIDDLE) {
        r->last_opcode = pkt->opcode;
        return;
    }
    r->last_opcode = RC_OPCODE_NONE;
    complete(qp, pkt);
}
