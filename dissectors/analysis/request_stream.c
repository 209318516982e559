/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * request_stream.c - the request stream of a conversation: PSN tracking,
 * path MTU, message accounting, and the requests remembered for matching.
 *
 * E is the next PSN the responder expects. A request with PSN p advances
 * E to p plus its span: 1, or for a READ request max(1, ceil(DMA len/PMTU))
 * since its responses use one PSN per packet (IBTA C9-56). p ahead of E is
 * a gap of p - E PSNs; p behind E was already passed: a retransmission.
 *
 * The PMTU is learned from full-size FIRST/MIDDLE packets (C9-93: they
 * carry exactly one PMTU) and from READ responses. Until it is known, a
 * READ's span is uncertain, and E is kept as the interval of every span a
 * legal PMTU (256..4096) allows; the next request lands in it, which fixes
 * the span, and often the PMTU too. An assumed PMTU (-o rc.pmtu:N) is used
 * as known. Comparisons use 24-bit arithmetic, so PSNs wrap cleanly.
 */
#include <string.h>

#include <roceshark/dissectors/ib_headers.h>

#include "analyzer_int.h"

uint16_t
pmtu_default(const struct rs_analyzer *an)
{
    return an->opts.pmtu != 0 ? an->opts.pmtu : 1024;
}

static bool
pmtu_valid(uint32_t pmtu)
{
    return pmtu >= MIN_PMTU && pmtu <= MAX_PMTU && (pmtu & (pmtu - 1)) == 0;
}

void
conv_learn_pmtu(struct conv *c, uint32_t pmtu)
{
    if (c->pmtu_known || !pmtu_valid(pmtu))
        return;
    c->pmtu = (uint16_t)pmtu;
    c->pmtu_known = true;
    /* A READ whose span was uncertain is now exact. */
    struct req_stream *rs = &c->req;
    if (rs->started && rs->last_was_read) {
        uint32_t span = rs->last_dmalen == 0 ? 1 : (rs->last_dmalen + pmtu - 1) / pmtu;
        rs->e_lo = rs->e_hi = psn_add(rs->last_psn, span);
    }
}

static uint32_t
read_span(uint32_t dmalen, uint32_t pmtu)
{
    return dmalen == 0 ? 1 : (dmalen + pmtu - 1) / pmtu;
}

/* --- Remembered requests: a ring that grows to REQ_RING_MAX ---
 * Its capacity is a power of two, so an index wraps with a mask. */

struct req_entry *
req_ring_at(struct req_stream *rs, int32_t i)
{
    return &rs->ring[((uint32_t)i + rs->ring_start) & (rs->ring_cap - 1)];
}

static const struct req_entry *
ring_at(const struct req_stream *rs, uint32_t i)
{
    return &rs->ring[(i + rs->ring_start) & (rs->ring_cap - 1)];
}

/* The slot for a new request, at the ring's end: filled in place, since an
 * entry built elsewhere and copied in (its bit-fields written narrow, read
 * back wide) stalls on store forwarding at every request. A full ring at
 * the bound drops its oldest request, whether or not a response is still
 * to come for it, and counts it in *forgotten. */
static struct req_entry *
ring_push(struct req_stream *rs, uint64_t *forgotten)
{
    if (rs->ring_count == rs->ring_cap && rs->ring_cap < REQ_RING_MAX) {
        uint32_t cap = rs->ring_cap * 2;
        struct req_entry *ring = g_new(struct req_entry, cap);
        for (uint32_t i = 0; i < rs->ring_count; i++)
            ring[i] = *ring_at(rs, i);
        if (rs->ring_allocated)
            g_free(rs->ring);
        rs->ring_allocated = true;
        rs->ring = ring;
        rs->ring_cap = cap;
        rs->ring_start = 0;
    }
    if (rs->ring_count == rs->ring_cap) {    /* full at the bound: drop the oldest */
        rs->ring_start = (rs->ring_start + 1) & (rs->ring_cap - 1);
        rs->ring_count--;
        (*forgotten)++;
    }
    return &rs->ring[(rs->ring_start + rs->ring_count++) & (rs->ring_cap - 1)];
}

int32_t
req_ring_find_covering(const struct req_stream *rs, uint32_t psn)
{
    for (uint32_t i = rs->ring_count; i-- > 0;) {
        const struct req_entry *e = ring_at(rs, i);
        int32_t d = psn_diff(psn, e->psn);
        if (d >= 0 && (uint32_t)d < e->span)
            return (int32_t)i;
    }
    return -1;
}

/* The oldest transmission of the request at psn that no response has
 * answered: a response answers the first copy, so the time it reports is
 * what the application waited, retransmissions included. */
int32_t
req_ring_find_unanswered(const struct req_stream *rs, uint32_t psn, uint8_t op)
{
    for (uint32_t i = 0; i < rs->ring_count; i++) {
        const struct req_entry *e = ring_at(rs, i);
        bool op_ok = op == RS_OP_READ_REQ ? e->op == RS_OP_READ_REQ
                                          : (e->op == RS_OP_CMP_SWAP || e->op == RS_OP_FETCH_ADD);
        if (e->psn == psn && !e->answered && op_ok)
            return (int32_t)i;
    }
    return -1;
}

/* Forgets requests from the oldest end that can no longer be asked about:
 * acknowledged before the latest ACK's own request and, for READs and
 * atomics, answered. Keeps the ring as short as the outstanding window. */
void
req_ring_prune(struct req_stream *rs, uint32_t ack_psn)
{
    while (rs->ring_count > 0) {
        const struct req_entry *e = ring_at(rs, 0);
        bool needs_answer = (e->op == RS_OP_READ_REQ || e->op == RS_OP_CMP_SWAP ||
                             e->op == RS_OP_FETCH_ADD) && !e->answered;
        if (needs_answer || psn_diff(psn_add(e->psn, e->span - 1), ack_psn) >= 0)
            return;
        rs->ring_start = (rs->ring_start + 1) & (rs->ring_cap - 1);
        rs->ring_count--;
    }
}

void
req_stream_free(struct req_stream *rs)
{
    if (rs->ring_allocated)
        g_free(rs->ring);
    rs->ring_allocated = false;
}

/* --- Messages (SEND and WRITE): packets, length, opcode sequence --- */

static void
msg_complete(struct conv *c, struct rs_facts *f)
{
    struct req_stream *rs = &c->req;

    f->flags |= RS_FACT_MSG;
    f->msg_len = rs->msg_len;
    f->msg_first_frame = rs->msg_first_frame;
    f->msg_packets = rs->msg_packets;
    if (rs->msg_has_dmalen && rs->msg_dmalen != rs->msg_len)
        f->flags |= RS_FACT_LENGTH_MISMATCH;
    rs->msg_open = false;
}

static void
msg_start(struct req_stream *rs, uint8_t op, const struct rs_packet *pkt)
{
    rs->msg_open = true;
    rs->msg_unknown = false;
    rs->msg_op = op;
    rs->msg_packets = 1;
    rs->msg_len = pkt->payload_len;
    rs->msg_first_frame = pkt->frame->number;
    rs->msg_has_dmalen = rs_packet_has(pkt, RS_LAYER_RETH);
    rs->msg_dmalen = rs->msg_has_dmalen ? rs_reth_dmalen(rs_packet_at(pkt, RS_LAYER_RETH)) : 0;
}

/* C9-28 and C9-29: a message's packets come FIRST, MIDDLE..., LAST (or one
 * ONLY) with no other request in between. */
static void
msg_account(struct conv *c, const struct rs_ib_opcode *info, const struct rs_packet *pkt,
            struct rs_facts *f)
{
    struct req_stream *rs = &c->req;
    bool data = info->op == RS_OP_SEND || info->op == RS_OP_WRITE;

    if (data && (info->seg == RS_SEG_MIDDLE || info->seg == RS_SEG_LAST)) {
        if (rs->msg_unknown)
            return;         /* the FIRST was lost to a gap: nothing to check */
        if (!rs->msg_open || rs->msg_op != info->op) {
            f->flags |= RS_FACT_OPCODE_SEQ;
            rs->msg_open = false;
            return;
        }
        rs->msg_packets++;
        rs->msg_len += pkt->payload_len;
        if (info->seg == RS_SEG_LAST)
            msg_complete(c, f);
        return;
    }
    if (rs->msg_open && !rs->msg_unknown)
        f->flags |= RS_FACT_OPCODE_SEQ;    /* a new request inside an open message */
    rs->msg_open = false;
    rs->msg_unknown = false;
    if (!data)
        return;
    msg_start(rs, info->op, pkt);
    if (info->seg == RS_SEG_ONLY)
        msg_complete(c, f);
}

/* FIRST and MIDDLE packets carry exactly one PMTU of payload. */
static void
check_segment_length(struct conv *c, const struct rs_ib_opcode *info,
                     const struct rs_packet *pkt, struct rs_facts *f)
{
    if ((info->op != RS_OP_SEND && info->op != RS_OP_WRITE) ||
        (info->seg != RS_SEG_FIRST && info->seg != RS_SEG_MIDDLE))
        return;
    if (!c->pmtu_known) {
        conv_learn_pmtu(c, pkt->payload_len);
        return;
    }
    if (pkt->payload_len != c->pmtu) {
        f->flags |= RS_FACT_VIOLATION;
        f->violation = RS_VIOL_SEGMENT_LENGTH;
    }
}

/* The next request landed at psn inside E's interval: if one READ made it
 * uncertain, its span is now known, and maybe the PMTU with it. */
static void
resolve_read_span(struct conv *c, uint32_t psn)
{
    struct req_stream *rs = &c->req;
    uint32_t span = (uint32_t)psn_diff(psn, rs->last_psn);
    uint32_t found = 0, n = 0;

    for (uint32_t pmtu = MIN_PMTU; pmtu <= MAX_PMTU; pmtu *= 2) {
        if (read_span(rs->last_dmalen, pmtu) == span) {
            found = pmtu;
            n++;
        }
    }
    if (n == 1)
        conv_learn_pmtu(c, found);
}

void
request_process(struct rs_analyzer *an, struct conv *c, const struct rs_packet *pkt,
                struct rs_facts *f)
{
    const uint8_t *bth = rs_packet_at(pkt, RS_LAYER_BTH);
    const struct rs_ib_opcode *info = rs_ib_opcode_info(pkt->opcode);
    struct req_stream *rs = &c->req;
    uint32_t psn = rs_bth_psn(bth);
    uint32_t dmalen = 0, span_lo = 1, span_hi = 1;

    if (info->op == RS_OP_READ_REQ && rs_packet_has(pkt, RS_LAYER_RETH)) {
        dmalen = rs_reth_dmalen(rs_packet_at(pkt, RS_LAYER_RETH));
        span_lo = read_span(dmalen, c->pmtu_known ? c->pmtu : MAX_PMTU);
        span_hi = read_span(dmalen, c->pmtu_known ? c->pmtu : MIN_PMTU);
    }
    if (!rs->started) {
        rs->started = true;
        rs->e_lo = rs->e_hi = psn;
    }
    bool retransmission = psn_diff(psn, rs->e_lo) < 0;
    int32_t ahead = psn_diff(psn, rs->e_hi);

    if (retransmission) {
        f->flags |= RS_FACT_RETRANSMISSION;
        if (rs->has_hole && psn_diff(rs->hole, psn) >= 0 &&
            (uint32_t)psn_diff(rs->hole, psn) < span_hi)
            rs->has_hole = false;   /* this retransmission covers the hole */
    } else if (ahead > 0) {
        f->flags |= RS_FACT_PSN_GAP;
        f->psn_gap = (uint32_t)ahead;
        if (!rs->has_hole) {
            rs->has_hole = true;
            rs->hole = rs->e_hi;
        }
        rs->msg_open = false;
        rs->msg_unknown = true;
    } else if (rs->e_lo != rs->e_hi && rs->last_was_read) {
        resolve_read_span(c, psn);
    }

    if (!retransmission) {
        check_segment_length(c, info, pkt, f);
        msg_account(c, info, pkt, f);
        /* The PMTU may have been learned just now: spans use it. */
        if (info->op == RS_OP_READ_REQ && c->pmtu_known)
            span_lo = span_hi = read_span(dmalen, c->pmtu);
        rs->e_lo = psn_add(psn, span_lo);
        rs->e_hi = psn_add(psn, span_hi);
        rs->last_psn = psn;
        rs->last_dmalen = dmalen;
        rs->last_was_read = info->op == RS_OP_READ_REQ;
    }
    struct req_entry *e = ring_push(rs, &an->requests_forgotten);
    e->psn = psn;
    e->op = info->op;
    e->span = span_hi;
    e->answered = 0;
    e->frame = pkt->frame->number;
    e->ts_sec = pkt->frame->ts_sec;
    e->ts_nsec = pkt->frame->ts_nsec;
    e->dmalen = dmalen;
    f->flags |= RS_FACT_PMTU;
    f->pmtu = c->pmtu;
}
