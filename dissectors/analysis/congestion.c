/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * congestion.c - ECN marks and CNPs (RoCEv2, IBTA Annex A17.9).
 *
 * A switch marks a RoCEv2 packet Congestion Experienced (IP ECN 11); the
 * receiving NIC (the notification point) answers with a CNP, opcode 0x81,
 * addressed to the QP that sent the marked packet. The CNP names only that
 * QP, so it is tied to a conversation the same way a response is: a CNP to
 * a requester's QP throttles the conversation's requests, a CNP to a
 * responder's QP throttles its READ responses.
 */
#include "analyzer_int.h"

void
congestion_mark(struct rs_analyzer *an, struct conv *c, bool response, struct rs_time when)
{
    struct conv_side *side = conv_side_of(an, c);

    if (response) {
        side->ce_resp_seen = true;
        side->last_ce_resp = when;
    } else {
        side->ce_req_seen = true;
        side->last_ce_req = when;
    }
}

struct conv *
congestion_cnp(struct rs_analyzer *an, const struct rs_packet *pkt,
               const struct stream_key *key, struct rs_facts *f)
{
    bool to_requester;
    struct conv *c = conv_for_cnp(an, key, &to_requester);

    if (c == NULL)
        return NULL;
    /* To the requester: its requests were marked; to the responder: its
     * READ responses were. */
    const struct conv_side *side = c->side;
    bool seen = side != NULL && (to_requester ? side->ce_req_seen : side->ce_resp_seen);
    f->flags |= RS_FACT_CNP_FOR | RS_FACT_CONV;
    f->cnp_for = c->stats.id;
    f->conv = c->stats.id;
    if (seen) {
        f->flags |= RS_FACT_CNP_SINCE_CE;
        f->cnp_since_ce = rs_time_sub(frame_time(pkt),
                                      to_requester ? side->last_ce_req : side->last_ce_resp);
    }
    conv_touch(an, c, pkt->frame->number);
    return c;
}
