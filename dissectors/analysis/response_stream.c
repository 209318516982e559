/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * response_stream.c - the response stream of a conversation: ACKs, NAKs,
 * READ responses and atomic ACKs, matched to the requests they answer and
 * checked against the rules the trace can prove.
 *
 * Every response carries the PSN of a request (IBTA 9.7.5). A response at
 * or behind the highest PSN already covered by a response is a duplicate:
 * a re-ACK of a duplicate request, or READ responses replayed for a
 * re-sent READ (C9-101). ACKs never go backwards; a sequence NAK names the
 * first PSN the responder is missing (C9-110); the MSN never decreases; a
 * READ is answered with ceil(DMA length / PMTU) packets (one if zero), of
 * which FIRST and MIDDLE are one PMTU each and carry no AETH.
 */
#include <roceshark/dissectors/ib_headers.h>

#include "analyzer_int.h"

static void
violation(struct rs_facts *f, enum rs_violation v)
{
    f->flags |= RS_FACT_VIOLATION;
    f->violation = (uint8_t)v;
}

static void
duplicate(struct rs_facts *f)
{
    f->flags |= RS_FACT_RETRANSMISSION;
}

static void
covered(struct resp_stream *rs, uint32_t psn)
{
    if (!rs->started || psn_diff(psn, rs->high) > 0)
        rs->high = psn;
    rs->started = true;
}

static void
acked(struct conv *c, uint32_t psn)
{
    struct resp_stream *rs = &c->side->resp;

    if (!rs->have_ack || psn_diff(psn, rs->ack_psn) > 0)
        rs->ack_psn = psn;
    rs->have_ack = true;
    /* Acknowledged past the hole: the responder has it now. */
    if (c->req.has_hole && psn_diff(psn, c->req.hole) >= 0)
        c->req.has_hole = false;
    req_ring_prune(&c->req, rs->ack_psn);
}

static void
set_acked_frame(struct conv *c, uint32_t psn, struct rs_facts *f)
{
    int32_t i = req_ring_find_covering(&c->req, psn);

    if (i >= 0) {
        f->flags |= RS_FACT_ACKED_FRAME;
        f->acked_frame = req_ring_at(&c->req, i)->frame;
    }
}

static void
check_msn(struct conv *c, const uint8_t *aeth, struct rs_facts *f)
{
    struct resp_stream *rs = &c->side->resp;
    uint32_t msn = rs_aeth_msn(aeth);

    if (rs->have_msn && psn_diff(msn, rs->msn) < 0)
        violation(f, RS_VIOL_MSN_BACKWARDS);
    if (!rs->have_msn || psn_diff(msn, rs->msn) > 0)
        rs->msn = msn;
    rs->have_msn = true;
}

static void
ack_or_nak(struct conv *c, const struct rs_packet *pkt, uint32_t psn, struct rs_facts *f)
{
    struct resp_stream *rs = &c->side->resp;
    const uint8_t *aeth = rs_packet_at(pkt, RS_LAYER_AETH);
    uint8_t syn = rs_aeth_syndrome(aeth);

    switch (rs_aeth_kind(syn)) {
    case RS_AETH_ACK:
        if (rs->have_ack && psn_diff(psn, rs->ack_psn) < 0)
            violation(f, RS_VIOL_ACK_PSN_BACKWARDS);
        else if (rs->started && psn_diff(psn, rs->high) <= 0)
            duplicate(f);
        if (c->req.started && psn_diff(psn, c->req.e_hi) >= 0)
            violation(f, RS_VIOL_ACK_UNSENT_PSN);
        set_acked_frame(c, psn, f);
        acked(c, psn);
        covered(rs, psn);
        break;
    case RS_AETH_NAK: {
        uint8_t code = syn & 0x1f;
        f->flags |= RS_FACT_NAK;
        f->nak = code;
        if (code == RS_NAK_PSN_SEQ_ERROR) {
            /* The PSN the responder expects lies past what was acknowledged,
             * and not past what was sent nor past the first PSN the capture
             * never saw: a packet lost before the capture point never reached
             * the responder either. (One lost after it can make the NAK name an
             * earlier PSN, so that is no violation.) */
            bool bad = (rs->have_ack && psn_diff(psn, rs->ack_psn) <= 0) ||
                       (c->req.started && psn_diff(psn, c->req.e_hi) > 0) ||
                       (c->req.has_hole && psn_diff(psn, c->req.hole) > 0);
            if (bad)
                violation(f, RS_VIOL_NAK_PSN_UNEXPECTED);
        }
        set_acked_frame(c, psn_add(psn, PSN_MASK), f);     /* covers psn - 1 */
        acked(c, psn_add(psn, PSN_MASK));
        break;
    }
    case RS_AETH_RNR_NAK:
        f->flags |= RS_FACT_RNR;
        f->rnr_delay_ns = (int64_t)rs_aeth_rnr_timer_us(syn) * 1000;
        set_acked_frame(c, psn_add(psn, PSN_MASK), f);
        acked(c, psn_add(psn, PSN_MASK));
        break;
    default:
        break;
    }
}

static void
answer_request(struct conv *c, int32_t i, const struct rs_packet *pkt, struct rs_facts *f)
{
    struct req_entry *e = req_ring_at(&c->req, i);

    e->answered = true;
    f->flags |= RS_FACT_REQUEST_FRAME;
    f->request_frame = e->frame;
    f->response_time = rs_time_sub(frame_time(pkt), req_entry_time(e));
}

/* The packet count and length of a complete, first-time READ response. */
static void
read_complete(struct conv *c, const struct rs_packet *pkt, struct rs_facts *f)
{
    struct resp_stream *rs = &c->side->resp;

    rs->read_open = false;
    if (rs->read_dup || rs->read_req < 0)
        return;
    /* The READ is done: counted, with its completion time, from these facts. */
    f->flags |= RS_FACT_READ_DONE;
    f->response_time = rs_time_sub(frame_time(pkt), rs->read_req_ts);
    if (rs->read_broken)
        return;
    if (!c->pmtu_known && rs->read_packets > 1)
        conv_learn_pmtu(c, (uint32_t)(rs->read_bytes / rs->read_packets));
    if (c->pmtu_known && rs->read_packets != (rs->read_req_dmalen == 0 ? 1
                                              : (rs->read_req_dmalen + c->pmtu - 1) / c->pmtu))
        violation(f, RS_VIOL_READ_RESPONSE_COUNT);
    else if (rs->read_bytes != rs->read_req_dmalen)
        violation(f, RS_VIOL_READ_RESPONSE_LENGTH);
}

static void
read_response(struct conv *c, const struct rs_packet *pkt, uint8_t seg, uint32_t psn,
              struct rs_facts *f)
{
    struct resp_stream *rs = &c->side->resp;

    if (seg == RS_SEG_FIRST || seg == RS_SEG_ONLY) {
        rs->read_open = true;
        rs->read_dup = rs->started && psn_diff(psn, rs->high) <= 0;
        rs->read_broken = false;
        rs->read_packets = 0;
        rs->read_bytes = 0;
        rs->read_next = psn;
        rs->read_req = req_ring_find_unanswered(&c->req, psn, RS_OP_READ_REQ);
        rs->read_have_req = rs->read_req >= 0;
        if (rs->read_req >= 0) {
            struct req_entry *e = req_ring_at(&c->req, rs->read_req);
            rs->read_req_frame = e->frame;
            rs->read_req_ts = req_entry_time(e);
            rs->read_req_dmalen = e->dmalen;
            answer_request(c, rs->read_req, pkt, f);
        }
        if (seg == RS_SEG_FIRST)
            conv_learn_pmtu(c, pkt->payload_len);
    } else if (!rs->read_open) {
        /* MIDDLE or LAST without their FIRST (before the capture began, or
         * lost): still tie them to the READ whose PSNs they use. */
        int32_t i = req_ring_find_covering(&c->req, psn);
        rs->read_open = true;
        rs->read_dup = rs->started && psn_diff(psn, rs->high) <= 0;
        rs->read_broken = true;
        rs->read_req = -1;
        rs->read_have_req = i >= 0;
        rs->read_next = psn;
        if (i >= 0) {
            struct req_entry *e = req_ring_at(&c->req, i);
            rs->read_req_frame = e->frame;
            rs->read_req_ts = req_entry_time(e);
            f->flags |= RS_FACT_REQUEST_FRAME;
            f->request_frame = e->frame;
            f->response_time = rs_time_sub(frame_time(pkt), req_entry_time(e));
        }
    } else {
        int32_t d = psn_diff(psn, rs->read_next);
        if (d > 0) {
            f->flags |= RS_FACT_PSN_GAP;
            f->psn_gap = (uint32_t)d;
            rs->read_broken = true;
        } else if (d < 0) {
            rs->read_broken = true;
        }
        if (rs->read_have_req) {
            f->flags |= RS_FACT_REQUEST_FRAME;
            f->request_frame = rs->read_req_frame;
            f->response_time = rs_time_sub(frame_time(pkt), rs->read_req_ts);
        }
        if (seg == RS_SEG_MIDDLE) {
            if (!c->pmtu_known)
                conv_learn_pmtu(c, pkt->payload_len);
            else if (pkt->payload_len == c->pmtu + 4u)
                violation(f, RS_VIOL_READ_MIDDLE_AETH);
            else if (pkt->payload_len != c->pmtu)
                violation(f, RS_VIOL_SEGMENT_LENGTH);
        }
    }
    if (rs->read_dup || (rs->started && psn_diff(psn, rs->high) <= 0 && seg != RS_SEG_FIRST &&
                         seg != RS_SEG_ONLY))
        duplicate(f);
    rs->read_packets++;
    rs->read_bytes += pkt->payload_len;
    rs->read_next = psn_add(psn, 1);
    covered(rs, psn);
    if (seg == RS_SEG_LAST || seg == RS_SEG_ONLY) {
        acked(c, psn);
        read_complete(c, pkt, f);
    }
}

static void
atomic_ack(struct conv *c, const struct rs_packet *pkt, uint32_t psn, struct rs_facts *f)
{
    struct resp_stream *rs = &c->side->resp;

    if (rs->started && psn_diff(psn, rs->high) <= 0)
        duplicate(f);
    int32_t i = req_ring_find_unanswered(&c->req, psn, RS_OP_CMP_SWAP);
    if (i >= 0)
        answer_request(c, i, pkt, f);
    acked(c, psn);
    covered(rs, psn);
}

void
response_process(struct rs_analyzer *an, struct conv *c, const struct rs_packet *pkt,
                 struct rs_facts *f)
{
    const struct rs_ib_opcode *info = rs_ib_opcode_info(pkt->opcode);
    uint32_t psn = rs_bth_psn(rs_packet_at(pkt, RS_LAYER_BTH));

    /* The side every function below takes the response stream from. */
    conv_side_of(an, c);
    f->flags |= RS_FACT_RESPONSE;
    if (rs_packet_has(pkt, RS_LAYER_AETH))
        check_msn(c, rs_packet_at(pkt, RS_LAYER_AETH), f);
    switch (info->op) {
    case RS_OP_ACK:
        if (rs_packet_has(pkt, RS_LAYER_AETH))
            ack_or_nak(c, pkt, psn, f);
        break;
    case RS_OP_READ_RESP:
        read_response(c, pkt, info->seg, psn, f);
        break;
    case RS_OP_ATOMIC_ACK:
        atomic_ack(c, pkt, psn, f);
        break;
    default:
        break;
    }
    f->flags |= RS_FACT_PMTU;
    f->pmtu = c->pmtu;
}
