/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_names.c - names for completions and counters, shared by every output.
 */
#include <stddef.h>

#include "rc_int.h"

const char *
rs_rc_wc_status_name(uint8_t status)
{
    switch (status) {
    case RS_RC_WC_SUCCESS:
        return "SUCCESS";
    case RS_RC_WC_LOC_LEN_ERR:
        return "LOC_LEN_ERR";
    case RS_RC_WC_LOC_QP_OP_ERR:
        return "LOC_QP_OP_ERR";
    case RS_RC_WC_LOC_PROT_ERR:
        return "LOC_PROT_ERR";
    case RS_RC_WC_WR_FLUSH_ERR:
        return "WR_FLUSH_ERR";
    case RS_RC_WC_BAD_RESP_ERR:
        return "BAD_RESP_ERR";
    case RS_RC_WC_LOC_ACCESS_ERR:
        return "LOC_ACCESS_ERR";
    case RS_RC_WC_REM_INV_REQ_ERR:
        return "REM_INV_REQ_ERR";
    case RS_RC_WC_REM_ACCESS_ERR:
        return "REM_ACCESS_ERR";
    case RS_RC_WC_REM_OP_ERR:
        return "REM_OP_ERR";
    case RS_RC_WC_RETRY_EXC_ERR:
        return "RETRY_EXC_ERR";
    case RS_RC_WC_RNR_RETRY_EXC_ERR:
        return "RNR_RETRY_EXC_ERR";
    case RS_RC_WC_REM_INV_RD_REQ_ERR:
        return "REM_INV_RD_REQ_ERR";
    default:
        return "GENERAL_ERR";
    }
}

const char *
rs_rc_wc_opcode_name(uint8_t opcode)
{
    switch (opcode) {
    case RS_RC_WC_SEND:
        return "SEND";
    case RS_RC_WC_RDMA_WRITE:
        return "RDMA_WRITE";
    case RS_RC_WC_RDMA_READ:
        return "RDMA_READ";
    case RS_RC_WC_COMP_SWAP:
        return "COMP_SWAP";
    case RS_RC_WC_FETCH_ADD:
        return "FETCH_ADD";
    case RS_RC_WC_RECV:
        return "RECV";
    case RS_RC_WC_RECV_RDMA_WITH_IMM:
        return "RECV_RDMA_WITH_IMM";
    default:
        return "UNKNOWN";
    }
}

#define N(field) {#field, offsetof(struct rs_rc_counters, field)}

const struct rs_rc_counter_name rs_rc_counter_names[] = {
    N(exec_send),       N(exec_write),        N(exec_read),          N(exec_atomic),
    N(dup_send),        N(dup_write),         N(dup_read),           N(dup_atomic),
    N(ack_sent),        N(read_resp_sent),    N(atomic_ack_sent),    N(nak_psn_seq),
    N(nak_invalid_request), N(nak_remote_access), N(nak_remote_op),  N(rnr_nak),
    N(drop_icrc),       N(drop_tver),         N(drop_qpn),           N(drop_transport),
    N(drop_pkey),       N(drop_source),       N(drop_malformed),     N(drop_qp_error),
    N(drop_psn_gap),    N(drop_dup_no_resource), N(drop_dup_mismatch),
    N(cnp_sent),        N(cnp_paced),         N(cnp_received),       N(req_packets),
    N(retransmits),     N(seq_nak_received),  N(seq_nak_retries),    N(rnr_nak_received),
    N(timeouts),
    N(implied_nak),     N(read_gap),          N(dup_response),       N(ghost_response),
    N(bad_response),    N(error_completions), N(cq_overflow),        N(rx_packets),
    N(tx_packets),      N(tx_errors),         N(gsi_received),       N(drop_gsi),
    N(drop_uc),         N(drop_qkey),         N(drop_ud_no_wqe),     N(local_faults),
};

const unsigned rs_rc_n_counter_names =
    sizeof(rs_rc_counter_names) / sizeof(rs_rc_counter_names[0]);
