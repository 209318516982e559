/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_json.c - the counters and completions as JSON lines, as the responder
 * and perf print them and the tests read them.
 */
#include <inttypes.h>

#include <roceshark/dissectors/crc.h>
#include <roceshark/transport/rc.h>

#define V(field) c->field

void
rs_rc_counters_print_json(FILE *f, const struct rs_rc_counters *c)
{
    fprintf(f,
            "{\"executed\": {\"send\": %" PRIu64 ", \"write\": %" PRIu64 ", \"read\": %" PRIu64
            ", \"atomic\": %" PRIu64 "}, "
            "\"duplicates\": {\"send\": %" PRIu64 ", \"write\": %" PRIu64 ", \"read\": %" PRIu64
            ", \"atomic\": %" PRIu64 "}, "
            "\"naks\": {\"psn_sequence_error\": %" PRIu64 ", \"invalid_request\": %" PRIu64
            ", \"remote_access_error\": %" PRIu64 ", \"remote_operational_error\": %" PRIu64
            "}, \"rnr_naks\": %" PRIu64 ", ",
            V(exec_send), V(exec_write), V(exec_read), V(exec_atomic), V(dup_send),
            V(dup_write), V(dup_read), V(dup_atomic), V(nak_psn_seq), V(nak_invalid_request),
            V(nak_remote_access), V(nak_remote_op), V(rnr_nak));
    fprintf(f,
            "\"drops\": {\"icrc\": %" PRIu64 ", \"tver\": %" PRIu64 ", \"qpn\": %" PRIu64
            ", \"transport\": %" PRIu64 ", \"pkey\": %" PRIu64 ", \"source\": %" PRIu64
            ", \"malformed\": %" PRIu64 ", \"qp_error\": %" PRIu64 ", \"psn_gap\": %" PRIu64
            ", \"dup_no_resource\": %" PRIu64 ", \"dup_mismatch\": %" PRIu64
            ", \"uc\": %" PRIu64 ", \"qkey\": %" PRIu64 ", \"ud_no_receive\": %" PRIu64 "}, ",
            V(drop_icrc), V(drop_tver), V(drop_qpn), V(drop_transport), V(drop_pkey),
            V(drop_source), V(drop_malformed), V(drop_qp_error), V(drop_psn_gap),
            V(drop_dup_no_resource), V(drop_dup_mismatch), V(drop_uc), V(drop_qkey),
            V(drop_ud_no_wqe));
    fprintf(f,
            "\"cnps\": {\"sent\": %" PRIu64 ", \"paced\": %" PRIu64 ", \"received\": %" PRIu64
            "}, \"responses\": {\"acks\": %" PRIu64 ", \"read_responses\": %" PRIu64
            ", \"atomic_acks\": %" PRIu64 "}, ",
            V(cnp_sent), V(cnp_paced), V(cnp_received), V(ack_sent), V(read_resp_sent),
            V(atomic_ack_sent));
    fprintf(f,
            "\"requester\": {\"packets\": %" PRIu64 ", \"retransmits\": %" PRIu64
            ", \"seq_naks\": %" PRIu64 ", \"rnr_naks\": %" PRIu64 ", \"timeouts\": %" PRIu64
            ", \"implied_naks\": %" PRIu64 ", \"read_gaps\": %" PRIu64
            ", \"duplicate_responses\": %" PRIu64 ", \"ghost_responses\": %" PRIu64
            ", \"bad_responses\": %" PRIu64 ", \"error_completions\": %" PRIu64 "}, "
            "\"packets\": {\"rx\": %" PRIu64 ", \"tx\": %" PRIu64 ", \"tx_errors\": %" PRIu64
            "}}\n",
            V(req_packets), V(retransmits), V(seq_nak_received), V(rnr_nak_received),
            V(timeouts), V(implied_nak), V(read_gap), V(dup_response), V(ghost_response),
            V(bad_response), V(error_completions), V(rx_packets), V(tx_packets),
            V(tx_errors));
    fflush(f);
}

void
rs_rc_wc_print_json(FILE *f, const struct rs_rc_wc *wc, const uint8_t *data)
{
    fprintf(f,
            "{\"wc\": \"%s\", \"status\": \"%s\", \"qpn\": %" PRIu32 ", \"wr_id\": %" PRIu64
            ", \"byte_len\": %" PRIu32,
            rs_rc_wc_opcode_name(wc->opcode), rs_rc_wc_status_name(wc->status), wc->qpn,
            wc->wr_id, wc->byte_len);
    if (wc->flags & RS_RC_WC_WITH_IMM)
        fprintf(f, ", \"imm\": %" PRIu32, wc->imm);
    if (wc->flags & RS_RC_WC_WITH_INV)
        fprintf(f, ", \"invalidated_rkey\": %" PRIu32, wc->invalidated_rkey);
    if (data != NULL && wc->status == RS_RC_WC_SUCCESS)
        fprintf(f, ", \"crc32\": %" PRIu32, rs_crc32(data, wc->byte_len));
    fputs("}\n", f);
    fflush(f);
}
