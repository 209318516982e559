/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lifetime.c - where one life of a QP ends and the next begins.
 *
 * A QP number names a QP only while the QP exists. A program that ends and
 * another that starts (ib_write_bw, then ibv_rc_pingpong, both at QP 0x11 over
 * rxe or our stack) use the same numbers between the same hosts, and a capture
 * of both, followed as one conversation, shows PSNs that jump and ACKs that go
 * backwards. Wireshark's TCP analysis meets the same thing when a client
 * reuses its port: a SYN whose sequence number is not the one the conversation
 * began with starts a new conversation, noted "TCP port numbers reused". Here
 * a conversation ends, and the next one's first packet carries
 * roceshark.analysis.qp_reused (the id of the one before), when
 *  - a setup names one of its QPs anew: an IB CM REQ or REP (cm.c), perftest's
 *    key message or ibv_rc_pingpong's address message in a TCP segment, or
 *    rs_analyzer_pair(). Only a conversation that carried traffic ends, so a
 *    REQ sent again before any traffic changes nothing, and a key message that
 *    perftest repeats on the same connection as a barrier is no new setup;
 *  - or its requests restart far from its PSNs after a quiet gap: the first
 *    request after LIFETIME_QUIET_NS (100 ms) with no packet either way starts
 *    a message (ONLY or FIRST: READs and atomics are ONLY) at a PSN more than
 *    RESTART_WINDOW away from both the next PSN the requests expected and the
 *    highest one a response covered. A new life starts at a random 24-bit PSN,
 *    so it lands outside that window with probability 1 - 2^-8; a
 *    retransmission never does (it goes back by what is outstanding), and
 *    neither does a capture that lost a burst of packets without a pause.
 * docs/analysis.md states the rule with its limits.
 */
#include <string.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/oob.h>

#include "analyzer_int.h"

#define RESTART_WINDOW 32768            /* PSNs either way */

/* Marks ended the conversations between ep and other, either way round, that carried
 * traffic; returns how many. */
static unsigned
end_between(struct rs_analyzer *an, const struct endpoint *ep, const struct endpoint *other)
{
    struct stream_key k;
    unsigned n = 0;

    /* Requests to ep come from other (ep responds), and responses to ep too (ep
     * requests): both streams are keyed other -> ep, ep's QP. */
    for (int response = 0; response < 2; response++) {
        stream_key_make(&k, &other->addr, &ep->addr, ep->qpn, response);
        struct conv *c = conv_find(an, &k);
        if (c != NULL && !c->ended && conv_has_traffic(c)) {
            c->ended = 1;
            n++;
        }
    }
    return n;
}

unsigned
lifetime_setup(struct rs_analyzer *an, const struct endpoint *ep, const struct endpoint *peer)
{
    const struct endpoint *known = peer_table_find(&an->peers, ep);
    struct endpoint was;
    unsigned n = 0;

    if (known != NULL) {
        was = *known;       /* the table's memory: ending changes nothing in it, but copy */
        n += end_between(an, ep, &was);
    }
    if (peer != NULL && (known == NULL || memcmp(&was, peer, sizeof(was)) != 0))
        n += end_between(an, ep, peer);
    return n;
}

/* --- Setup messages in TCP segments --- */

/* The QP a TCP segment's payload names, when it is exactly one of perftest's key
 * messages (59 or 108 bytes) or ibv_rc_pingpong's address message (52): its address
 * is the GID the message gives, or without one the segment's sender. */
static bool
setup_message(const struct rs_packet *pkt, struct endpoint *ep)
{
    struct rs_span p;
    char err[RS_ERRBUF_SIZE];
    uint8_t gid[16];
    uint32_t qpn;

    if (!rs_tcp_payload(pkt, &p) || (p.len != RS_OOB_PINGPONG_SIZE &&
                                     p.len != RS_OOB_PERFTEST_KEY_SIZE &&
                                     p.len != RS_OOB_PERFTEST_KEY_GID_SIZE))
        return false;
    const uint8_t *m = pkt->frame->data + p.off;
    /* Both begin with four hex digits of the LID and a colon: anything else is
     * turned away before a parser words an error for it. */
    if (p.off + p.len > pkt->frame->caplen || m[4] != ':')
        return false;
    memset(gid, 0, sizeof(gid));
    if (p.len == RS_OOB_PINGPONG_SIZE) {
        struct rs_oob_pingpong_dest d;
        if (rs_oob_pingpong_parse(m, &d, err) != 0)
            return false;
        qpn = d.qpn;
        memcpy(gid, d.gid, 16);
    } else {
        struct rs_oob_dest d;
        if (rs_oob_perftest_key_parse(m, p.len, &d, err) != 0 || d.qpn < 2)
            return false;
        qpn = d.qpn;
        if (d.has_gid)
            memcpy(gid, d.gid, 16);
    }
    struct rs_addr a;
    static const uint8_t zero[16];
    memset(&a, 0, sizeof(a));
    if (memcmp(gid, zero, 16) == 0) {
        /* No GID: the QP is on the host that sent the message. */
        if (rs_packet_has(pkt, RS_LAYER_IPV4)) {
            a.family = 4;
            memcpy(a.bytes, rs_packet_at(pkt, RS_LAYER_IPV4) + 12, 4);
        } else if (rs_packet_has(pkt, RS_LAYER_IPV6)) {
            a.family = 6;
            memcpy(a.bytes, rs_packet_at(pkt, RS_LAYER_IPV6) + 8, 16);
        } else {
            return false;
        }
    } else if (rs_addr_is_v4mapped(gid)) {
        a.family = 4;       /* RoCEv2 over IPv4: its packets are keyed by the address */
        memcpy(a.bytes, gid + 12, 4);
    } else {
        a.family = 6;
        memcpy(a.bytes, gid, 16);
    }
    endpoint_make(ep, &a, qpn & PSN_MASK);
    return true;
}

void
lifetime_tcp(struct rs_analyzer *an, const struct rs_packet *pkt)
{
    struct rs_flow_key conn;
    struct endpoint ep;
    int side;

    if (!setup_message(pkt, &ep) || !rs_flow_key_of(pkt, &conn, &side))
        return;
    if (an->setups == NULL)
        an->setups = g_new0(struct setup_seen, SETUPS_KEPT);
    uint32_t kept = an->n_setups < SETUPS_KEPT ? an->n_setups : SETUPS_KEPT;
    struct setup_seen *other = NULL;
    /* Newest first: a repeat on this side of the connection is one of perftest's
     * barriers; the other side's latest unpaired message names our peer. */
    for (uint32_t i = 0; i < kept; i++) {
        struct setup_seen *s = &an->setups[(an->n_setups - 1 - i) % SETUPS_KEPT];
        if (memcmp(&s->conn, &conn, sizeof(conn)) != 0)
            continue;
        if (s->side == side && memcmp(&s->qp, &ep, sizeof(ep)) == 0)
            return;
        if (s->side != side && !s->paired && other == NULL)
            other = s;
    }
    struct setup_seen *s = &an->setups[an->n_setups++ % SETUPS_KEPT];
    s->conn = conn;
    s->side = side;
    s->qp = ep;
    s->paired = other != NULL;
    s->ended = lifetime_setup(an, &ep, other != NULL ? &other->qp : NULL) > 0;
    if (other == NULL)
        return;
    other->paired = true;
    /* Its QP's old conversations may be found only now, through ours. */
    other->ended |= lifetime_setup(an, &other->qp, &ep) > 0;
    if (s->ended || other->ended)
        conv_peers_pair(an, &ep, &other->qp);
}

/* --- The restart of a conversation's requests --- */

/* Whether a request at psn starts a new life of c, by its PSN and opcode (the caller
 * saw the quiet gap). */
static bool
restarts(const struct conv *c, uint32_t psn, const struct rs_ib_opcode *info)
{
    int32_t d = psn_diff(psn, c->req.e_hi);

    if (info->seg != RS_SEG_ONLY && info->seg != RS_SEG_FIRST)
        return false;
    if (d >= -RESTART_WINDOW && d <= RESTART_WINDOW)
        return false;
    d = psn_diff(psn, conv_resp(c)->high);
    return !conv_resp(c)->started || d < -RESTART_WINDOW || d > RESTART_WINDOW;
}

struct conv *
lifetime_check(struct rs_analyzer *an, struct conv *c, const struct stream_key *key,
               uint32_t psn, bool response, const struct rs_ib_opcode *info, uint64_t frame)
{
    if (!c->ended && (response || !restarts(c, psn, info)))
        return c;
    uint32_t old = c->stats.id;
    conv_retire(an, c);
    c = response ? conv_for_response(an, key, NULL, psn, frame)
                 : conv_for_request(an, key, NULL, psn, frame);
    c->reused_from = old;
    c->reuse_note = 1;
    return c;
}

void
lifetime_free(struct rs_analyzer *an)
{
    g_free(an->setups);
    an->setups = NULL;
}
