/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_analysis.c - roceshark.analysis.*: the analyzer's facts as fields,
 * so that every output format and the display filter see them.
 */
#include <roceshark/dissectors/analysis.h>

#include "fields/fields_int.h"

/* The offset column selects the fact; see get_fact(). */
enum fact_field {
    FF_CONV, FF_PSN_GAP, FF_RETRANSMISSION, FF_REQUEST_FRAME, FF_RESPONSE_TIME,
    FF_ACKED_FRAME, FF_NAK, FF_RNR_DELAY, FF_MSG_LEN, FF_MSG_FIRST, FF_MSG_PACKETS,
    FF_OPCODE_SEQ, FF_LENGTH_MISMATCH, FF_ECN_CE, FF_CNP_FOR, FF_CNP_SINCE_CE, FF_VIOLATION,
    FF_PMTU, FF_PSN_REL, FF_QP_REUSED, FF_RESPONSE_FRAME, FF_ACK_FRAME
};

static const uint32_t fact_flag[] = {
    [FF_CONV] = RS_FACT_CONV,
    [FF_PSN_GAP] = RS_FACT_PSN_GAP,
    [FF_RETRANSMISSION] = RS_FACT_RETRANSMISSION,
    [FF_REQUEST_FRAME] = RS_FACT_REQUEST_FRAME,
    [FF_RESPONSE_TIME] = RS_FACT_REQUEST_FRAME,
    [FF_ACKED_FRAME] = RS_FACT_ACKED_FRAME,
    [FF_NAK] = RS_FACT_NAK,
    [FF_RNR_DELAY] = RS_FACT_RNR,
    [FF_MSG_LEN] = RS_FACT_MSG,
    [FF_MSG_FIRST] = RS_FACT_MSG,
    [FF_MSG_PACKETS] = RS_FACT_MSG,
    [FF_OPCODE_SEQ] = RS_FACT_OPCODE_SEQ,
    [FF_LENGTH_MISMATCH] = RS_FACT_LENGTH_MISMATCH,
    [FF_ECN_CE] = RS_FACT_ECN_CE,
    [FF_CNP_FOR] = RS_FACT_CNP_FOR,
    [FF_CNP_SINCE_CE] = RS_FACT_CNP_SINCE_CE,
    [FF_VIOLATION] = RS_FACT_VIOLATION,
    [FF_PMTU] = RS_FACT_PMTU,
    [FF_PSN_REL] = RS_FACT_PSN_REL,
    [FF_QP_REUSED] = RS_FACT_QP_REUSED,
    [FF_RESPONSE_FRAME] = RS_FACT_RESPONSE_FRAME,
    [FF_ACK_FRAME] = RS_FACT_ACK_FRAME,
};

static bool
get_fact(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out)
{
    const struct rs_facts *x = pkt->facts;

    if (occ != 0 || x == NULL || !(x->flags & fact_flag[f->offset]))
        return false;
    out->type = f->type;
    switch ((enum fact_field)f->offset) {
    case FF_CONV: out->v.u = x->conv; break;
    case FF_PSN_GAP: out->v.u = x->psn_gap; break;
    case FF_REQUEST_FRAME: out->v.u = x->request_frame; break;
    case FF_RESPONSE_TIME: out->v.t = x->response_time; break;
    case FF_ACKED_FRAME: out->v.u = x->acked_frame; break;
    case FF_RESPONSE_FRAME: out->v.u = x->response_frame; break;
    case FF_ACK_FRAME: out->v.u = x->ack_frame; break;
    case FF_NAK:
        out->v.str = rs_analysis_nak_name(x->nak);
        if (out->v.str == NULL)
            out->v.str = "reserved";
        break;
    case FF_RNR_DELAY: out->v.t = rs_time_from_ns(x->rnr_delay_ns); break;
    case FF_MSG_LEN: out->v.u = x->msg_len; break;
    case FF_MSG_FIRST: out->v.u = x->msg_first_frame; break;
    case FF_MSG_PACKETS: out->v.u = x->msg_packets; break;
    case FF_CNP_FOR: out->v.u = x->cnp_for; break;
    case FF_CNP_SINCE_CE: out->v.t = x->cnp_since_ce; break;
    case FF_VIOLATION: out->v.str = rs_violation_name(x->violation); break;
    case FF_PMTU: out->v.u = x->pmtu; break;
    case FF_PSN_REL: out->v.u = x->psn_rel; break;
    case FF_QP_REUSED: out->v.u = x->qp_reused; break;
    default: out->v.u = 1; break;      /* the boolean facts */
    }
    return true;
}

uint32_t
rs_analysis_field_fact(const struct rs_field *f)
{
    return f->get == get_fact ? fact_flag[f->offset] : 0;
}

#define FACT(abbrev, name, type, base, which, blurb) \
    {abbrev, name, type, base, 0, NULL, blurb, RS_NO_LAYER, which, 0, get_fact, 2, 0}

const struct rs_field rs_fields_analysis[] = {
    {"roceshark.analysis", "Transport analysis", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "What the trace proves about the RC/UC conversation", RS_NO_LAYER, FF_CONV, 0, get_fact,
     1, 0},
    FACT("roceshark.analysis.conv", "Conversation", RS_FT_UINT32, RS_BASE_DEC, FF_CONV,
         "The conversation (queue pair) this packet belongs to: its row of Statistics > "
         "RDMA QP Conversations, and its filter in Conversation Filter > RDMA QP"),
    FACT("roceshark.analysis.pmtu", "Path MTU", RS_FT_UINT16, RS_BASE_DEC, FF_PMTU,
         "Path MTU the analysis uses for the conversation (learned or assumed)"),
    /* On every packet of a conversation: for filters, -e and fault rules, as
     * Wireshark's relative TCP sequence numbers, but left out of the tree and JSON,
     * which would otherwise gain a line on every RC frame (the plugin shows it). */
    {"roceshark.analysis.psn_rel", "Relative PSN", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "PSN less the conversation's first (24-bit), as Wireshark's relative TCP sequence "
     "numbers", RS_NO_LAYER, FF_PSN_REL, 0, get_fact, 2, RS_FIELD_HIDDEN | RS_FIELD_PSEUDO},
    FACT("roceshark.analysis.qp_reused", "QP numbers reused", RS_FT_UINT32, RS_BASE_DEC,
         FF_QP_REUSED, "First packet of a new life of QPs that an earlier conversation (this "
         "id) had: a setup named them anew, or their PSNs restarted after a pause"),
    FACT("roceshark.analysis.psn_gap", "PSN gap", RS_FT_UINT32, RS_BASE_DEC, FF_PSN_GAP,
         "PSNs missing before this packet"),
    FACT("roceshark.analysis.retransmission", "Retransmission", RS_FT_BOOLEAN, RS_BASE_NONE,
         FF_RETRANSMISSION, "PSN already passed: a retransmitted request or duplicate response"),
    FACT("roceshark.analysis.request_frame", "Request in frame", RS_FT_FRAMENUM, RS_BASE_NONE,
         FF_REQUEST_FRAME, "The READ or atomic request this response answers"),
    FACT("roceshark.analysis.response_time", "Response time", RS_FT_RELTIME, RS_BASE_NONE,
         FF_RESPONSE_TIME, "Seconds since the request this response answers"),
    FACT("roceshark.analysis.acked_frame", "Acknowledges frame", RS_FT_FRAMENUM, RS_BASE_NONE,
         FF_ACKED_FRAME, "The last request frame this ACK or NAK covers"),
    /* The other way (Wireshark's "Response in"): set by the Wireshark plugin, which has
     * read the later frame by the time it shows the request; a one-pass reader never has. */
    FACT("roceshark.analysis.response_frame", "Response in frame", RS_FT_FRAMENUM,
         RS_BASE_NONE, FF_RESPONSE_FRAME, "The first response to this READ or atomic request"),
    FACT("roceshark.analysis.ack_frame", "Acknowledged in frame", RS_FT_FRAMENUM,
         RS_BASE_NONE, FF_ACK_FRAME, "The first ACK or NAK that covers this request packet"),
    FACT("roceshark.analysis.nak", "NAK", RS_FT_STRING, RS_BASE_NONE, FF_NAK,
         "Why the responder refused the request: psn_seq_error (resend from the PSN it "
         "names), invalid_request, remote_access_error, remote_operational_error or "
         "invalid_rd_request"),
    FACT("roceshark.analysis.rnr_delay", "RNR delay", RS_FT_RELTIME, RS_BASE_NONE, FF_RNR_DELAY,
         "Seconds an RNR NAK asks the requester to wait"),
    FACT("roceshark.analysis.msg.len", "Message length", RS_FT_UINT64, RS_BASE_DEC, FF_MSG_LEN,
         "Payload bytes of the SEND or WRITE message this packet completes"),
    FACT("roceshark.analysis.msg.first_frame", "Message starts in frame", RS_FT_FRAMENUM,
         RS_BASE_NONE, FF_MSG_FIRST, "Frame of the message's first packet"),
    FACT("roceshark.analysis.msg.packets", "Message packets", RS_FT_UINT32, RS_BASE_DEC,
         FF_MSG_PACKETS, "Packets of the message"),
    FACT("roceshark.analysis.opcode_sequence_error", "Opcode sequence error", RS_FT_BOOLEAN,
         RS_BASE_NONE, FF_OPCODE_SEQ, "MIDDLE/LAST without FIRST, or a new request inside an "
         "open message"),
    FACT("roceshark.analysis.length_mismatch", "Length mismatch", RS_FT_BOOLEAN, RS_BASE_NONE,
         FF_LENGTH_MISMATCH, "RETH DMA length differs from the payload delivered"),
    FACT("roceshark.analysis.ecn_ce", "ECN Congestion Experienced", RS_FT_BOOLEAN,
         RS_BASE_NONE, FF_ECN_CE, "RoCEv2 packet marked CE"),
    FACT("roceshark.analysis.cnp_for", "CNP for conversation", RS_FT_UINT32, RS_BASE_DEC,
         FF_CNP_FOR, "The conversation this CNP throttles"),
    FACT("roceshark.analysis.cnp_since_ce", "Time since CE mark", RS_FT_RELTIME, RS_BASE_NONE,
         FF_CNP_SINCE_CE, "Seconds since the last CE-marked packet of the throttled flow"),
    FACT("roceshark.analysis.violation", "Transport rule violation", RS_FT_STRING,
         RS_BASE_NONE, FF_VIOLATION, "The InfiniBand transport rule the trace shows broken, by a short name "
         "(ack_psn_backwards, read_response_count, ...)"),
    RS_F_END,
};
