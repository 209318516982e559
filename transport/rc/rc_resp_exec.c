/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_resp_exec.c - the responder's states after the checks: EXECUTE moves
 * the data, COMPLETE ends a message, ACKNOWLEDGE answers, DUPLICATE answers
 * again what was executed before.
 *
 * Responses go out in PSN order: a held (coalesced) ACK is flushed before
 * any READ response, atomic ACK or NAK, and READ responses are sent in full
 * when the READ is accepted. Memory is touched only through rc_mr_remote()
 * and rc_mr_local(), range-checked for every packet.
 */
#include <string.h>

#include "rc_resp_int.h"

#define OP_READ_RESP_FIRST 0x0d
#define OP_READ_RESP_MIDDLE 0x0e
#define OP_READ_RESP_LAST 0x0f
#define OP_READ_RESP_ONLY 0x10
#define OP_ATOMIC_ACK 0x12

#define ACK_HOLD_MAX 16     /* a held ACK goes once it covers this many AckReqs */

void
rc_resp_flush_ack(struct rs_rc_qp *qp)
{
    if (!qp->resp.ack_pending)
        return;
    qp->resp.ack_pending = false;
    qp->resp.ack_held = 0;
    rc_tx_ack(qp, rc_ack_syndrome(qp), qp->resp.ack_psn, qp->resp.ack_msn);
    qp->ctx->cnt.ack_sent++;
}

/* IBTA lets one ACK cover several requests (coalescing). Holding it for a
 * few microseconds lets a stream of requests share one, and takes it off
 * the path of a ping-pong, where an immediate ACK costs a packet each way. */
void
rc_resp_want_ack(struct rs_rc_qp *qp, bool now)
{
    struct rc_resp *r = &qp->resp;
    uint64_t delay = qp->ctx->opts.ack_delay_ns;

    if (!r->ack_pending)
        r->ack_due_ns = qp->ctx->now + delay;
    r->ack_pending = true;
    r->ack_msn = r->msn;
    if (now || delay == 0 || ++r->ack_held >= ACK_HOLD_MAX)
        r->ack_due_ns = 0;
}

void
rc_resp_ack_timer(struct rs_rc_qp *qp)
{
    if (qp->resp.ack_pending && qp->resp.ack_due_ns <= qp->ctx->now)
        rc_resp_flush_ack(qp);
}

/* Sends the READ responses for len bytes at va, the first with PSN psn:
 * one PSN each, an AETH on FIRST, LAST and ONLY (IBTA Table 38). The
 * region is looked up again for every packet, so a key invalidated since
 * the original READ stops a replay instead of leaking memory. */
static void
read_reply(struct rs_rc_qp *qp, const struct rc_res *res, uint32_t psn, uint64_t va,
           uint32_t len)
{
    uint32_t pmtu = qp->attr.pmtu;
    uint32_t npkts = rc_npkts(len, pmtu);
    struct rs_ib_fields f;
    enum rc_mr_fail why;

    for (uint32_t i = 0; i < npkts; i++) {
        uint32_t off = i * pmtu;
        uint32_t chunk = len - off < pmtu ? len - off : pmtu;
        const uint8_t *data = NULL;
        uint8_t opcode = npkts == 1 ? OP_READ_RESP_ONLY
                         : i == 0 ? OP_READ_RESP_FIRST
                         : i == npkts - 1 ? OP_READ_RESP_LAST
                                          : OP_READ_RESP_MIDDLE;
        if (chunk > 0) {
            data = rc_mr_remote(qp->ctx, res->rkey, va + off, chunk, RS_RC_ACCESS_REMOTE_READ,
                                &why);
            if (data == NULL) {
                qp->ctx->cnt.drop_dup_mismatch++;
                return;
            }
        }
        rc_fields_init(qp, &f, opcode, rc_psn_add(psn, i));
        f.aeth.syndrome = rc_ack_syndrome(qp);
        f.aeth.msn = qp->resp.msn;
        rc_tx(qp, &f, data, chunk);
        qp->ctx->cnt.read_resp_sent++;
    }
}

static void
atomic_ack(struct rs_rc_qp *qp, uint32_t psn, uint64_t orig)
{
    struct rs_ib_fields f;

    rc_fields_init(qp, &f, OP_ATOMIC_ACK, psn);
    f.aeth.syndrome = rc_ack_syndrome(qp);
    f.aeth.msn = qp->resp.msn;
    f.atomic_ack_orig = orig;
    rc_tx(qp, &f, NULL, 0);
    qp->ctx->cnt.atomic_ack_sent++;
}

/* The next responder resource; the oldest is recycled, as the requester
 * keeps at most max_dest_rd_atomic READs and atomics outstanding. */
static struct rc_res *
new_resource(struct rs_rc_qp *qp)
{
    struct rc_res *res = &qp->resp.res[qp->resp.res_head];

    qp->resp.res_head = (qp->resp.res_head + 1) % qp->attr.max_dest_rd_atomic;
    return res;
}

static struct rc_res *
find_resource(struct rs_rc_qp *qp, uint8_t kind, uint32_t psn)
{
    for (uint32_t i = 0; i < qp->attr.max_dest_rd_atomic; i++) {
        struct rc_res *res = &qp->resp.res[i];
        if (res->kind == kind && rc_psn_in(psn, res->first_psn, res->last_psn))
            return res;
    }
    return NULL;
}

/* A SEND lands in the receive WQE at the head of the queue, taken by its
 * first packet. */
enum resp_state
rc_resp_exec_send(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    struct rc_resp *r = &qp->resp;

    if (pkt->seg == RS_SEG_FIRST || pkt->seg == RS_SEG_ONLY) {
        if (!r->have_rwqe && !rc_take_recv(qp))
            return RESP_ERR_RNR;    /* checked before: cannot happen */
        r->recv_off = 0;
    }
    if (pkt->paylen > 0) {
        if ((uint64_t)r->recv_off + pkt->paylen > r->rwqe.data.length)
            return RESP_ERR_RECV_OVERFLOW;
        if (!rc_data_write(qp->ctx, &r->rwqe.data, r->recv_off, pkt->payload, pkt->paylen))
            return RESP_ERR_BAD_RECV_WQE;
        r->recv_off += pkt->paylen;
    }
    return RESP_DONE;
}

/* A WRITE goes to the range its RETH named; every packet is checked
 * against the region again. */
enum resp_state
rc_resp_exec_write(struct rs_rc_qp *qp, const struct rc_pkt *pkt)
{
    struct rc_resp *r = &qp->resp;
    enum rc_mr_fail why;

    if (pkt->seg == RS_SEG_FIRST || pkt->seg == RS_SEG_ONLY) {
        r->va = pkt->va;
        r->rkey = pkt->rkey;
        r->resid = r->length = pkt->dmalen;
    }
    if (pkt->paylen > 0) {
        uint8_t *dst = rc_mr_remote(qp->ctx, r->rkey, r->va, pkt->paylen,
                                    RS_RC_ACCESS_REMOTE_WRITE, &why);
        if (dst == NULL)
            return rc_resp_mr_fail(why);
        memcpy(dst, pkt->payload, pkt->paylen);
        r->va += pkt->paylen;
        r->resid -= pkt->paylen;
    }
    return RESP_DONE;
}

/* A READ takes a responder resource; its responses are sent by ACKNOWLEDGE. */
static enum resp_state
exec_read(struct rs_rc_qp *qp, const struct rc_pkt *pkt, struct resp_work *work)
{
    struct rc_resp *r = &qp->resp;
    struct rc_res *res = new_resource(qp);
    uint32_t npkts = rc_npkts(pkt->dmalen, qp->attr.pmtu);

    res->kind = RC_RES_READ;
    res->first_psn = pkt->psn;
    res->last_psn = rc_psn_add(pkt->psn, npkts - 1);
    res->va = pkt->va;
    res->rkey = pkt->rkey;
    res->length = pkt->dmalen;
    /* C9-148: the MSN counts a READ when it is accepted. */
    r->msn = (r->msn + 1) & RC_PSN_MASK;
    r->epsn = rc_psn_add(res->last_psn, 1);
    qp->ctx->cnt.exec_read++;
    work->res = res;
    return RESP_ACKNOWLEDGE;
}

/* The atomic on the target's memory: false (why filled) when the key or range is bad. */
static bool
atomic_apply(struct rs_rc_qp *qp, const struct rc_pkt *pkt, uint64_t *orig,
             enum rc_mr_fail *why)
{
    uint64_t val;
    uint8_t *mem = rc_mr_remote(qp->ctx, pkt->rkey, pkt->va, 8, RS_RC_ACCESS_REMOTE_ATOMIC, why);

    if (mem == NULL)
        return false;
    /* One thread owns the memory, so a load and a store are atomic here;
     * memcpy because the host address need not be aligned when the VA is. */
    memcpy(orig, mem, 8);
    if (pkt->op == RS_OP_CMP_SWAP)
        val = *orig == pkt->compare ? pkt->swap_add : *orig;
    else
        val = *orig + pkt->swap_add;
#ifdef RS_RC_MISBEHAVE
    if (pkt->op == RS_OP_FETCH_ADD && (rs_rc_misbehave & RS_RC_MISBEHAVE_FAA_COMPARE))
        val = *orig + pkt->compare;     /* a broken responder */
#endif
    memcpy(mem, &val, 8);
    return true;
}

static enum resp_state
exec_atomic(struct rs_rc_qp *qp, const struct rc_pkt *pkt, struct resp_work *work)
{
    enum rc_mr_fail why;
    uint64_t orig;

    if (!atomic_apply(qp, pkt, &orig, &why))
        return rc_resp_mr_fail(why);
    struct rc_res *res = new_resource(qp);
    res->kind = RC_RES_ATOMIC;
    res->first_psn = res->last_psn = pkt->psn;
    res->orig = orig;
    qp->resp.epsn = rc_psn_add(pkt->psn, 1);
    work->res = res;
    return RESP_COMPLETE;
}

/* EXECUTE: move the data (or do the atomic, or take the READ's resource). */
enum resp_state
rc_resp_execute(struct rs_rc_qp *qp, const struct rc_pkt *pkt, struct resp_work *work)
{
    struct rc_resp *r = &qp->resp;
    enum resp_state s;

    r->last_opcode = RC_OPCODE_NONE;
    switch (pkt->op) {
    case RS_OP_READ_REQ:
        return exec_read(qp, pkt, work);
    case RS_OP_CMP_SWAP:
    case RS_OP_FETCH_ADD:
        return exec_atomic(qp, pkt, work);
    case RS_OP_SEND:
        s = rc_resp_exec_send(qp, pkt);
        break;
    default:
        s = rc_resp_exec_write(qp, pkt);
        break;
    }
    if (s != RESP_DONE)
        return s;
    r->epsn = rc_psn_add(pkt->psn, 1);
    r->ack_psn = pkt->psn;
    if (pkt->seg == RS_SEG_FIRST || pkt->seg == RS_SEG_MIDDLE) {
        r->last_opcode = pkt->opcode;
        return RESP_ACKNOWLEDGE;
    }
    return RESP_COMPLETE;
}

/* COMPLETE: a message ended. The MSN counts it once; a SEND, or a WRITE
 * with Immediate, completes its receive WQE; a SEND with Invalidate
 * invalidates the key (checked valid before EXECUTE). */
enum resp_state
rc_resp_complete(struct rs_rc_qp *qp, const struct rc_pkt *pkt, struct resp_work *work)
{
    struct rc_resp *r = &qp->resp;
    struct rs_rc_counters *cnt = &qp->ctx->cnt;

    (void)work;
    r->msn = (r->msn + 1) & RC_PSN_MASK;
    if (pkt->op == RS_OP_SEND) {
        uint8_t flags = 0;
        uint32_t inv = 0;
        if (pkt->info->hdrs & RS_HDR_IETH) {
            rc_mr_invalidate(qp->ctx, pkt->ieth, false);
            flags |= RS_RC_WC_WITH_INV;
            inv = pkt->ieth;
        }
        if (pkt->info->hdrs & RS_HDR_IMMDT)
            flags |= RS_RC_WC_WITH_IMM;
        rc_complete_recv(qp, RS_RC_WC_SUCCESS, RS_RC_WC_RECV, r->recv_off, flags, pkt->imm,
                         inv);
        cnt->exec_send++;
    } else if (pkt->op == RS_OP_WRITE) {
        /* Its receive WQE holds no data: taken at the end (one was there at the check). */
        if ((pkt->info->hdrs & RS_HDR_IMMDT) && rc_take_recv(qp))
            rc_complete_recv(qp, RS_RC_WC_SUCCESS, RS_RC_WC_RECV_RDMA_WITH_IMM, r->length,
                             RS_RC_WC_WITH_IMM, pkt->imm, 0);
        cnt->exec_write++;
    } else {
        cnt->exec_atomic++;
    }
    return RESP_ACKNOWLEDGE;
}

/* ACKNOWLEDGE: the READ's responses or the atomic's ACK (after any held
 * ACK, so that responses leave in PSN order), or an ACK for AckReq. A
 * duplicate READ or atomic comes here too, with the resource it matched. */
enum resp_state
rc_resp_acknowledge(struct rs_rc_qp *qp, const struct rc_pkt *pkt, struct resp_work *work)
{
    switch (pkt->op) {
    case RS_OP_READ_REQ:
        rc_resp_flush_ack(qp);
        read_reply(qp, work->res, pkt->psn, pkt->va, pkt->dmalen);
        break;
    case RS_OP_CMP_SWAP:
    case RS_OP_FETCH_ADD:
        rc_resp_flush_ack(qp);
        atomic_ack(qp, pkt->psn, work->res->orig);
        break;
    default:
        if (pkt->ackreq)
            rc_resp_want_ack(qp, false);
        break;
    }
    return RESP_DONE;
}

/* Duplicates: a SEND or WRITE is acknowledged again and not
 * executed (C9-105); a READ is answered again from its resource, whole or
 * its tail; an atomic returns the saved original value without touching
 * memory. */
enum resp_state
rc_resp_duplicate(struct rs_rc_qp *qp, const struct rc_pkt *pkt, struct resp_work *work)
{
    struct rs_rc_counters *cnt = &qp->ctx->cnt;
    struct rc_res *res;

    switch (pkt->op) {
    case RS_OP_SEND:
    case RS_OP_WRITE:
        if (pkt->op == RS_OP_SEND)
            cnt->dup_send++;
        else
            cnt->dup_write++;
        /* The ACK names the last PSN taken (as rxe's does), not the duplicate's: after a
         * READ's responses an ACK of an earlier PSN would go backwards. */
        qp->resp.ack_psn = rc_psn_add(qp->resp.epsn, RC_PSN_MASK);
#ifdef RS_RC_MISBEHAVE
        if (rs_rc_misbehave & RS_RC_MISBEHAVE_DUP_MALFORMED) {     /* a broken responder */
            rc_tx_malformed_ack(qp, qp->resp.ack_psn, qp->resp.msn);
            return RESP_DONE;
        }
#endif
        rc_resp_want_ack(qp, true);  /* the requester is retrying: no delay */
        return RESP_DONE;
    case RS_OP_READ_REQ: {
        res = find_resource(qp, RC_RES_READ, pkt->psn);
        if (res == NULL)
            return RESP_DROP_DUP_NO_RESOURCE;
        uint32_t npkts = rc_npkts(pkt->dmalen, qp->attr.pmtu);
        bool empty = pkt->dmalen == 0 && res->length == 0;
        bool subset = pkt->va >= res->va && pkt->dmalen <= res->length &&
                      pkt->va - res->va <= res->length - pkt->dmalen;
        if ((!empty && (pkt->rkey != res->rkey || !subset)) ||
            rc_psn_diff(res->last_psn, rc_psn_add(pkt->psn, npkts - 1)) < 0)
            return RESP_DROP_DUP_MISMATCH;
        cnt->dup_read++;
        work->res = res;
        return RESP_ACKNOWLEDGE;
    }
    default:
        res = find_resource(qp, RC_RES_ATOMIC, pkt->psn);
        if (res == NULL)
            return RESP_DROP_DUP_NO_RESOURCE;
        cnt->dup_atomic++;
#ifdef RS_RC_MISBEHAVE
        enum rc_mr_fail why;
        if (rs_rc_misbehave & RS_RC_MISBEHAVE_ATOMIC_TWICE)    /* a broken responder */
            atomic_apply(qp, pkt, &res->orig, &why);
#endif
        work->res = res;
        return RESP_ACKNOWLEDGE;
    }
}
