/*
 * expert.c - which expert items a frame carries: checksum verdicts and
 * malformation from decoding, the rest from the analyzer's facts.
 */
#include <stddef.h>

#include <roceshark/analysis.h>
#include <roceshark/expert.h>

/* In order of rs_experts[]. */
enum expert_kind {
    EX_MALFORMED, EX_BAD_ICRC, EX_BAD_VCRC, EX_VIOLATION, EX_OPCODE_SEQ, EX_LENGTH_MISMATCH,
    EX_PSN_GAP, EX_RETRANSMISSION, EX_NAK, EX_RNR, EX_CNP, EX_ECN_CE, EX_COUNT
};

const struct rs_expert rs_experts[] = {
    [EX_MALFORMED] = {"roceshark.malformed", "Malformed", RS_SEV_ERROR,
                      "Malformed or truncated frame"},
    [EX_BAD_ICRC] = {"roceshark.icrc.status", "Checksum", RS_SEV_ERROR, "Bad ICRC"},
    [EX_BAD_VCRC] = {"roceshark.vcrc.status", "Checksum", RS_SEV_ERROR, "Bad VCRC"},
    [EX_VIOLATION] = {"roceshark.analysis.violation", "Protocol", RS_SEV_ERROR,
                      "Transport rule violation"},
    [EX_OPCODE_SEQ] = {"roceshark.analysis.opcode_sequence_error", "Protocol", RS_SEV_ERROR,
                       "Opcode sequence error"},
    [EX_LENGTH_MISMATCH] = {"roceshark.analysis.length_mismatch", "Protocol", RS_SEV_ERROR,
                            "DMA length differs from the payload delivered"},
    [EX_PSN_GAP] = {"roceshark.analysis.psn_gap", "Sequence", RS_SEV_WARN, "PSN gap"},
    [EX_RETRANSMISSION] = {"roceshark.analysis.retransmission", "Sequence", RS_SEV_WARN,
                           "Retransmission"},
    [EX_NAK] = {"roceshark.analysis.nak", "Response", RS_SEV_WARN, "NAK"},
    [EX_RNR] = {"roceshark.analysis.rnr_delay", "Response", RS_SEV_NOTE, "RNR NAK"},
    [EX_CNP] = {"roceshark.cnp", "Congestion", RS_SEV_NOTE, "Congestion notification (CNP)"},
    [EX_ECN_CE] = {"roceshark.analysis.ecn_ce", "Congestion", RS_SEV_NOTE,
                   "ECN Congestion Experienced"},
    [EX_COUNT] = {NULL, NULL, 0, NULL},
};

static const uint32_t fact_of[EX_COUNT] = {
    [EX_VIOLATION] = RS_FACT_VIOLATION,
    [EX_OPCODE_SEQ] = RS_FACT_OPCODE_SEQ,
    [EX_LENGTH_MISMATCH] = RS_FACT_LENGTH_MISMATCH,
    [EX_PSN_GAP] = RS_FACT_PSN_GAP,
    [EX_RETRANSMISSION] = RS_FACT_RETRANSMISSION,
    [EX_NAK] = RS_FACT_NAK,
    [EX_RNR] = RS_FACT_RNR,
    [EX_ECN_CE] = RS_FACT_ECN_CE,
};

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
    if (pkt->facts == NULL)
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
