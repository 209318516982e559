/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * expert.c - which expert items a frame carries: checksum verdicts and
 * malformation from decoding, the rest from the analyzer's facts.
 */
#include <stdbool.h>
#include <stddef.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/expert.h>
#include <roceshark/dissectors/iwarp.h>

/* In order of rs_experts[]. */
enum expert_kind {
    EX_MALFORMED, EX_BAD_ICRC, EX_BAD_VCRC, EX_VIOLATION, EX_OPCODE_SEQ, EX_LENGTH_MISMATCH,
    EX_PSN_GAP, EX_RETRANSMISSION, EX_NAK, EX_RNR, EX_CNP, EX_ECN_CE, EX_QP_REUSED,
    EX_MPA_BAD_CRC, EX_MPA_BAD_LENGTH, EX_MPA_RES, EX_MPA_REV, EX_MPA_REJECT, EX_IWARP_GAP,
    EX_IWARP_INCOMPLETE, EX_IWARP_RETRANSMISSION, EX_IWARP_OUT_OF_ORDER, EX_COUNT
};

const struct rs_expert rs_experts[] = {
    [EX_MALFORMED] = {"roceshark.malformed", "Malformed", RS_SEV_ERROR,
                      "Malformed or truncated frame",
                      "The frame ends too early or its headers contradict each other: Problem "
                      "(roceshark.problem) in the roceshark subtree says which"},
    [EX_BAD_ICRC] = {"roceshark.icrc.status", "Checksum", RS_SEV_ERROR, "Bad ICRC",
                     "The Invariant CRC does not match the frame: it was damaged on the way, or "
                     "a device changed it without recomputing the CRC. The receiving NIC drops "
                     "such packets"},
    [EX_BAD_VCRC] = {"roceshark.vcrc.status", "Checksum", RS_SEV_ERROR, "Bad VCRC",
                     "The Variant CRC does not match the frame: damaged on this link. The next "
                     "switch or NIC drops it"},
    [EX_VIOLATION] = {"roceshark.analysis.violation", "Protocol", RS_SEV_ERROR,
                      "Transport rule violation",
                      "The trace shows the RDMA transport breaking an InfiniBand rule; the "
                      "rule's short name is in Transport rule violation "
                      "(roceshark.analysis.violation)"},
    [EX_OPCODE_SEQ] = {"roceshark.analysis.opcode_sequence_error", "Protocol", RS_SEV_ERROR,
                       "Opcode sequence error",
                       "A MIDDLE or LAST packet came without its FIRST, or a new message began "
                       "inside one still open: packets lost before the capture point, or a "
                       "faulty sender"},
    [EX_LENGTH_MISMATCH] = {"roceshark.analysis.length_mismatch", "Protocol", RS_SEV_ERROR,
                            "DMA length differs from the payload delivered",
                            "The DMA length the RETH announced differs from the payload the "
                            "message delivered"},
    [EX_PSN_GAP] = {"roceshark.analysis.psn_gap", "Sequence", RS_SEV_WARN, "PSN gap",
                    "Packets are missing before this one (PSN gap gives how many): lost on the "
                    "network, or dropped by the capture. Look for a NAK or a retransmission "
                    "next"},
    [EX_RETRANSMISSION] = {"roceshark.analysis.retransmission", "Sequence", RS_SEV_WARN,
                           "Retransmission",
                           "This PSN was seen already: the requester sent the packet again (a "
                           "timeout or a NAK), or the responder repeated a response"},
    [EX_NAK] = {"roceshark.analysis.nak", "Response", RS_SEV_WARN, "NAK",
                "The responder refused a request; the reason is in NAK "
                "(roceshark.analysis.nak). A PSN sequence error NAK asks the requester to "
                "resend from the PSN it names"},
    [EX_RNR] = {"roceshark.analysis.rnr_delay", "Response", RS_SEV_NOTE, "RNR NAK",
                "Receiver not ready: the responder had no receive buffer posted and asks the "
                "requester to wait (RNR delay) before it sends again"},
    [EX_CNP] = {"roceshark.cnp", "Protocol", RS_SEV_NOTE, "Congestion notification (CNP)",
                "A congestion notification: the receiver of CE-marked packets asks the sender "
                "of that flow (CNP for conversation) to slow down, as DCQCN does"},
    [EX_ECN_CE] = {"roceshark.analysis.ecn_ce", "Protocol", RS_SEV_NOTE,
                   "ECN Congestion Experienced",
                   "A switch marked this RoCEv2 packet Congestion Experienced: its queue was "
                   "filling. The receiver answers with a CNP"},
    /* Wireshark's "TCP port numbers reused" (Sequence, Note). */
    [EX_QP_REUSED] = {"roceshark.analysis.qp_reused", "Sequence", RS_SEV_NOTE,
                      "QP numbers reused: a new conversation",
                      "These QP numbers carried an earlier conversation: a new connection set "
                      "them up again, or their PSNs started over after a pause. A new row of "
                      "the QP table begins here"},
    [EX_MPA_BAD_CRC] = {"roceshark.mpa.crc.status", "Checksum", RS_SEV_ERROR, "Bad MPA CRC",
                        "The MPA CRC of this iWARP FPDU does not match its bytes: damaged on "
                        "the way, or a sender that computes it wrongly"},
    [EX_MPA_BAD_LENGTH] = {"iwarp_mpa.bad_length", "Malformed", RS_SEV_ERROR,
                           "MPA private data longer than 512 octets",
                           "The MPA Request or Reply carries more than the 512 octets of "
                           "private data RFC 5044 allows"},
    [EX_MPA_RES] = {"iwarp_mpa.res.not_set0", "Protocol", RS_SEV_WARN,
                    "MPA reserved flag bits set",
                    "Reserved bits of the MPA Request or Reply flags are set: a peer that does "
                    "not follow RFC 5044"},
    [EX_MPA_REV] = {"iwarp_mpa.rev.not_set1", "Protocol", RS_SEV_WARN,
                    "MPA revision neither 1 nor 2",
                    "The MPA revision is neither 1 (RFC 5044) nor 2 (RFC 6581): the peers may "
                    "not understand each other"},
    [EX_MPA_REJECT] = {"iwarp_mpa.reject_bit_responder", "Response", RS_SEV_NOTE,
                       "MPA connection rejected",
                       "The MPA responder rejected the connection; its private data may say why"},
    [EX_IWARP_GAP] = {"roceshark.iwarp.gap", "Sequence", RS_SEV_WARN,
                      "TCP bytes never captured (iWARP framing resumed after them)",
                      "TCP bytes before this segment were never captured: the iWARP framing "
                      "restarts after them, and the FPDUs in the gap are lost to the analysis"},
    [EX_IWARP_INCOMPLETE] = {"roceshark.mpa.incomplete", "Sequence", RS_SEV_WARN,
                             "FPDU with bytes never captured",
                             "Part of this FPDU was never captured, so its CRC and contents "
                             "cannot be checked"},
    [EX_IWARP_RETRANSMISSION] = {"roceshark.iwarp.retransmission", "Sequence", RS_SEV_NOTE,
                                 "TCP retransmission of iWARP bytes",
                                 "TCP sent these iWARP bytes again; they are not decoded twice"},
    [EX_IWARP_OUT_OF_ORDER] = {"roceshark.iwarp.out_of_order", "Sequence", RS_SEV_NOTE,
                               "TCP segment out of order (held for the bytes before it)",
                               "This TCP segment came before the bytes that precede it; its "
                               "FPDUs are decoded once those arrive"},
    [EX_COUNT] = {NULL, NULL, 0, NULL},
};

_Static_assert(EX_COUNT <= RS_EXPERT_MAX_KINDS, "stats tables index rs_experts[]");

static const uint32_t fact_of[EX_COUNT] = {
    [EX_VIOLATION] = RS_FACT_VIOLATION,
    [EX_OPCODE_SEQ] = RS_FACT_OPCODE_SEQ,
    [EX_LENGTH_MISMATCH] = RS_FACT_LENGTH_MISMATCH,
    [EX_PSN_GAP] = RS_FACT_PSN_GAP,
    [EX_RETRANSMISSION] = RS_FACT_RETRANSMISSION,
    [EX_NAK] = RS_FACT_NAK,
    [EX_RNR] = RS_FACT_RNR,
    [EX_ECN_CE] = RS_FACT_ECN_CE,
    [EX_QP_REUSED] = RS_FACT_QP_REUSED,
};
/* Every fact some item shows: a frame with none of them (most) skips the table. */
static uint32_t any_fact;

__attribute__((constructor)) static void
expert_init(void)
{
    for (int k = 0; k < EX_COUNT; k++)
        any_fact |= fact_of[k];
}

/* An item once per frame, however many PDUs show it. */
static void
iwarp_experts(const struct rs_iwarp_view *v, void (*fn)(void *ctx, const struct rs_expert *e),
              void *ctx)
{
    bool seen[EX_COUNT] = {false};

    for (unsigned i = 0; i < v->n_pdus; i++) {
        const struct rs_iwarp_pdu *p = &v->pdus[i];
        if (p->kind == RS_MPA_FPDU) {
            seen[EX_MPA_BAD_CRC] |= p->crc_status == RS_CKSUM_BAD;
            seen[EX_IWARP_INCOMPLETE] |= (p->flags & RS_IWARP_PDU_TRUNCATED) != 0;
            continue;
        }
        unsigned bad = rs_mpa_frame_anomalies(p);
        seen[EX_MPA_BAD_LENGTH] |= (bad & RS_MPA_BAD_PD_LENGTH) != 0;
        seen[EX_MPA_RES] |= (bad & RS_MPA_RES_SET) != 0;
        seen[EX_MPA_REV] |= (bad & RS_MPA_REV_UNKNOWN) != 0;
        seen[EX_MPA_REJECT] |= (bad & RS_MPA_REJECTED) != 0;
    }
    seen[EX_IWARP_GAP] = (v->flags & RS_IWARP_VIEW_GAP) != 0;
    seen[EX_IWARP_RETRANSMISSION] = (v->flags & RS_IWARP_VIEW_RETRANSMISSION) != 0;
    seen[EX_IWARP_OUT_OF_ORDER] = (v->flags & RS_IWARP_VIEW_OUT_OF_ORDER) != 0;
    for (int k = EX_MPA_BAD_CRC; k < EX_COUNT; k++)
        if (seen[k])
            fn(ctx, &rs_experts[k]);
}

void
rs_expert_foreach(const struct rs_packet *pkt, void (*fn)(void *ctx, const struct rs_expert *e),
                  void *ctx)
{
    if (pkt->flags & RS_PKT_MALFORMED)
        fn(ctx, &rs_experts[EX_MALFORMED]);
    if (pkt->icrc_status == RS_CKSUM_BAD)
        fn(ctx, &rs_experts[EX_BAD_ICRC]);
    if (pkt->vcrc_status == RS_CKSUM_BAD)
        fn(ctx, &rs_experts[EX_BAD_VCRC]);
    if (rs_packet_has(pkt, RS_LAYER_CNP))
        fn(ctx, &rs_experts[EX_CNP]);
    if (pkt->iwarp != NULL)
        iwarp_experts(pkt->iwarp, fn, ctx);
    if (pkt->facts == NULL || !(pkt->facts->flags & any_fact))
        return;
    for (int k = 0; k < EX_COUNT; k++)
        if (fact_of[k] != 0 && (pkt->facts->flags & fact_of[k]))
            fn(ctx, &rs_experts[k]);
}

const char *
rs_severity_name(uint8_t severity)
{
    switch (severity) {
    case RS_SEV_ERROR:
        return "Error";
    case RS_SEV_WARN:
        return "Warning";
    default:
        return "Note";
    }
}
