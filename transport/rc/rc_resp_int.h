/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_resp_int.h - the responder's states, shared by its checks (rc_resp.c)
 * and its execution (rc_resp_exec.c).
 */
#ifndef ROCESHARK_RC_RESP_INT_H
#define ROCESHARK_RC_RESP_INT_H

#include "rc_int.h"

enum resp_state {
    RESP_CHECK_PSN,
    RESP_CHECK_OP_SEQ,
    RESP_CHECK_OP_ACCESS,
    RESP_CHECK_RESOURCE,
    RESP_CHECK_LENGTH,
    RESP_CHECK_RKEY,
    RESP_CHECK_ATOMIC_ALIGN,
    RESP_CHECK_INVALIDATE,
    RESP_EXECUTE,
    RESP_COMPLETE,
    RESP_ACKNOWLEDGE,
    RESP_DUPLICATE,
    RESP_DONE,
    /* Silent drops. */
    RESP_DROP_PSN_GAP,          /* ahead of the expected PSN, NAK already sent */
    RESP_DROP_DUP_NO_RESOURCE,  /* a duplicate READ/atomic we keep no resource for */
    RESP_DROP_DUP_MISMATCH,     /* a duplicate READ that is no subset of the original */
    /* Errors answered with a NAK. */
    RESP_ERR_PSN_SEQ,
    RESP_ERR_RNR,
    RESP_ERR_MISSING_FIRST,     /* MIDDLE or LAST outside a message */
    RESP_ERR_MISSING_LAST,      /* a new message before the last one ended */
    RESP_ERR_OP_NOT_ENABLED,    /* the QP does not accept this remote operation */
    RESP_ERR_NO_RD_ATOMIC,      /* no responder resources at all */
    RESP_ERR_PAYLOAD_LENGTH,    /* PMTU rules */
    RESP_ERR_DMA_LENGTH,        /* RETH length above 2^31 */
    RESP_ERR_WRITE_LENGTH,      /* payload does not add up to the RETH length */
    RESP_ERR_RECV_OVERFLOW,     /* a SEND longer than its receive buffer */
    RESP_ERR_RKEY,              /* no valid region with this R_Key */
    RESP_ERR_MR_ACCESS,         /* the region does not grant the access */
    RESP_ERR_BOUNDS,            /* the range leaves the region */
    RESP_ERR_MISALIGNED_ATOMIC,
    RESP_ERR_INVALIDATE,        /* SEND with Invalidate naming a key it may not */
    RESP_ERR_BAD_RECV_WQE,      /* the receive WQE's buffer is not local-writable */
    RESP_N_STATES
};

/* The error state of a failed region lookup. */
static inline enum resp_state
rc_resp_mr_fail(enum rc_mr_fail why)
{
    return why == RC_MR_NO_KEY ? RESP_ERR_RKEY
           : why == RC_MR_ACCESS ? RESP_ERR_MR_ACCESS
                                 : RESP_ERR_BOUNDS;
}

/* What one request leaves for the states after EXECUTE. */
struct resp_work {
    struct rc_res *res;     /* a READ's or atomic's resource, new or matched */
};

const char *rc_resp_state_name(enum resp_state s);
/* The checks UC shares with RC (rc_resp.c): the QP's access for the operation, the
 * payload and DMA lengths, the R_Key; each returns the next state or an error. */
enum resp_state rc_resp_check_op_access(struct rs_rc_qp *qp, const struct rc_pkt *pkt);
enum resp_state rc_resp_check_length(struct rs_rc_qp *qp, const struct rc_pkt *pkt);
enum resp_state rc_resp_check_rkey(struct rs_rc_qp *qp, const struct rc_pkt *pkt);
/* Moving the data of a SEND (into the receive WQE, taken by the first packet) and of a
 * WRITE (rc_resp_exec.c): RESP_DONE or an error. */
enum resp_state rc_resp_exec_send(struct rs_rc_qp *qp, const struct rc_pkt *pkt);
enum resp_state rc_resp_exec_write(struct rs_rc_qp *qp, const struct rc_pkt *pkt);
enum resp_state rc_resp_execute(struct rs_rc_qp *qp, const struct rc_pkt *pkt,
                                struct resp_work *work);
enum resp_state rc_resp_complete(struct rs_rc_qp *qp, const struct rc_pkt *pkt,
                                 struct resp_work *work);
enum resp_state rc_resp_acknowledge(struct rs_rc_qp *qp, const struct rc_pkt *pkt,
                                    struct resp_work *work);
enum resp_state rc_resp_duplicate(struct rs_rc_qp *qp, const struct rc_pkt *pkt,
                                  struct resp_work *work);

#endif /* ROCESHARK_RC_RESP_INT_H */
