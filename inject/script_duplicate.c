/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script_duplicate.c - `expect duplicate answered`: the first request the requester
 * sent again must be answered as IBTA says a responder answers a duplicate (C9-105 for
 * a SEND or WRITE; a READ or an atomic from its responder resources), with a well-formed
 * response of the right kind, at the right PSN, of the right length:
 *   - a SEND or WRITE: an ACK (not a NAK) whose PSN is at or past the duplicate's;
 *   - a READ: READ responses from the duplicate's PSN on, FIRST..LAST or ONLY with
 *     consecutive PSNs, that carry the READ's whole DMA length;
 *   - an atomic: an Atomic Acknowledge at the duplicate's PSN.
 * Every packet of the target's from the duplicate to the end of the run must be
 * well-formed: a responder that answers with a malformed packet, and lets the
 * original's ACK complete the work request, fails here where "no NAK" and "completion
 * ok" both pass.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/wire.h>

#include "script_int.h"

enum { DUP_NONE, DUP_WAIT, DUP_READ, DUP_DONE };

static const char *
op_name(uint8_t op)
{
    switch (op) {
    case RS_OP_SEND: return "SEND";
    case RS_OP_WRITE: return "WRITE";
    case RS_OP_READ_REQ: return "READ";
    default: return "atomic";
    }
}

static void
done(struct script_duplicate *d, bool ok, uint64_t frame, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
done(struct script_duplicate *d, bool ok, uint64_t frame, const char *fmt, ...)
{
    va_list ap;

    d->state = DUP_DONE;
    d->ok = ok;
    d->answer = frame;
    va_start(ap, fmt);
    vsnprintf(d->why, sizeof(d->why), fmt, ap);
    va_end(ap);
}

/* A READ answer under way: the packet at psn carries len bytes. */
static void
read_answer(struct script_duplicate *d, const struct rs_ib_opcode *info, uint32_t psn,
            uint32_t len, uint64_t frame)
{
    if (psn != d->read_next) {
        done(d, false, frame, "READ response at PSN %u where %u was due", psn, d->read_next);
        return;
    }
    d->read_next = (psn + 1) & 0xffffff;
    d->read_packets++;
    d->read_bytes += len;
    if (info->seg != RS_SEG_LAST && info->seg != RS_SEG_ONLY)
        return;
    if (d->read_bytes != d->dmalen)
        done(d, false, frame, "%" PRIu64 " bytes in %u READ responses, for a READ of %u",
             d->read_bytes, d->read_packets, d->dmalen);
    else
        done(d, true, frame, "%" PRIu64 " bytes in %u READ response%s (from frame %" PRIu64
             ")", d->read_bytes, d->read_packets, d->read_packets == 1 ? "" : "s",
             d->read_first);
}

/* A response of the target's while the duplicate waits for its answer. */
static void
answer(struct script_duplicate *d, const struct rs_packet *pkt, uint32_t psn, uint64_t frame)
{
    const struct rs_ib_opcode *info = rs_ib_opcode_info(pkt->opcode);
    int32_t at = (int32_t)((psn - d->psn) << 8) >> 8;      /* 24-bit distance */

    if (rs_packet_has(pkt, RS_LAYER_AETH) &&
        rs_aeth_syndrome(rs_packet_at(pkt, RS_LAYER_AETH)) >> 5 == RS_AETH_NAK) {
        done(d, false, frame, "a NAK, code %u", rs_aeth_code(rs_packet_at(pkt, RS_LAYER_AETH)));
        return;
    }
    if (d->state == DUP_READ) {
        if (info->op == RS_OP_READ_RESP)
            read_answer(d, info, psn, pkt->payload_len, frame);
        return;
    }
    switch (d->op) {
    case RS_OP_SEND:
    case RS_OP_WRITE:
        if (info->op == RS_OP_ACK && at >= 0)
            done(d, true, frame, "an ACK of PSN +%u", d->rel + (uint32_t)at);
        else if (info->op != RS_OP_ACK && at == 0)
            done(d, false, frame, "%s, not an ACK", info->name);
        break;
    case RS_OP_READ_REQ:
        if (info->op == RS_OP_READ_RESP && at == 0 &&
            (info->seg == RS_SEG_FIRST || info->seg == RS_SEG_ONLY)) {
            d->state = DUP_READ;
            d->read_first = frame;
            d->read_next = psn;
            read_answer(d, info, psn, pkt->payload_len, frame);
        } else if (info->op == RS_OP_ATOMIC_ACK && at == 0) {
            done(d, false, frame, "%s, not a READ response", info->name);
        }
        break;
    default:
        if (info->op == RS_OP_ATOMIC_ACK && at == 0)
            done(d, true, frame, "an Atomic Acknowledge of PSN +%u", d->rel);
        else if (info->op != RS_OP_ATOMIC_ACK && at == 0)
            done(d, false, frame, "%s, not an Atomic Acknowledge", info->name);
        break;
    }
}

void
script_duplicate_frame(struct script_duplicate *d, const struct rs_packet *pkt,
                       const struct rs_facts *facts, uint64_t frame, bool request, bool ours)
{
    bool bth = rs_packet_has(pkt, RS_LAYER_BTH);
    uint32_t psn = bth ? rs_bth_psn(rs_packet_at(pkt, RS_LAYER_BTH)) : 0;

    if (d->state == DUP_NONE) {
        if (!request || !(facts->flags & RS_FACT_RETRANSMISSION))
            return;
        const struct rs_ib_opcode *info = rs_ib_opcode_info(pkt->opcode);
        d->state = DUP_WAIT;
        d->frame = frame;
        d->psn = psn;
        d->rel = (facts->flags & RS_FACT_PSN_REL) ? facts->psn_rel : psn;
        d->op = info->op;
        d->dmalen = rs_packet_has(pkt, RS_LAYER_RETH)
                        ? rs_reth_dmalen(rs_packet_at(pkt, RS_LAYER_RETH)) : 0;
        return;
    }
    if (ours)
        return;
    /* From the duplicate on, every packet of the target's must be well-formed. */
    if ((pkt->flags & RS_PKT_MALFORMED) || pkt->icrc_status == RS_CKSUM_BAD) {
        if (d->malformed == 0)
            d->malformed = frame;
        if (d->state != DUP_DONE)
            done(d, false, frame, "a malformed packet (%s)",
                 pkt->problem != NULL ? pkt->problem : "bad ICRC");
        return;
    }
    if (d->state == DUP_DONE || !bth || pkt->opcode == 0x81 ||
        !rs_ib_op_is_response(rs_ib_opcode_info(pkt->opcode)->op))
        return;
    answer(d, pkt, psn, frame);
}

bool
script_duplicate_verdict(const struct script_duplicate *d, char *out, size_t size)
{
    if (d->state == DUP_NONE) {
        snprintf(out, size, "no request was sent twice");
        return false;
    }
    int n = snprintf(out, size, "frame %" PRIu64 " (a duplicate %s, PSN +%u)", d->frame,
                     op_name(d->op), d->rel);
    size_t at = n > 0 && (size_t)n < size ? (size_t)n : size - 1;
    if (d->state != DUP_DONE) {
        snprintf(out + at, size - at, ": no answer");
        return false;
    }
    if (!d->ok) {
        snprintf(out + at, size - at, ": frame %" PRIu64 " answers it with %s", d->answer,
                 d->why);
        return false;
    }
    snprintf(out + at, size - at, " answered by frame %" PRIu64 ": %s", d->answer, d->why);
    if (d->malformed == 0)
        return true;
    at = strlen(out);
    snprintf(out + at, size - at, "; but frame %" PRIu64 " after it is malformed", d->malformed);
    return false;
}
