/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * echo.c - echo replies matched to their requests, as Wireshark matches
 * them in one pass: between the same two addresses, by identifier,
 * sequence number and the checksum the reply will carry (the request's,
 * adjusted for the type's change), so that a reply whose data differs does
 * not match. A request seen again before its reply replaces the older one;
 * a reply matches once. tshark's single pass never shows a request's
 * "response in": neither do we.
 *
 * The table is direct-mapped: a request whose slot holds another unanswered
 * one takes it (counted in evicted). A ping runs one request at a time per
 * identifier, so collisions among live ones are rare, and the table needs
 * no allocation per frame nor any recency list.
 */
#include <stdlib.h>
#include <string.h>

#include <netinet/in.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/icmp.h>

#include "streams/echo_int.h"

#define ICMP_TYPE_DELTA 0x0800u     /* echo request 8 -> reply 0, in the first word */
#define ICMPV6_TYPE_DELTA 0xfeffu   /* 128 -> 129: one's-complement minus 0x0100 */

struct echo_key {
    struct rs_flow_key flow;    /* addresses in order; ident and seq in the ports */
    uint16_t reply_checksum;
};

struct echo_slot {
    struct echo_key key;
    uint64_t frame;             /* 0: free */
    struct rs_time time;
};

int
echoes_init(struct echoes *e, uint32_t n, char *err)
{
    e->n = n;
    e->evicted = 0;
    e->slots = calloc(n, sizeof(*e->slots));
    if (e->slots == NULL)
        return rs_error(err, RS_ENOMEM, "streams: out of memory for %u echo requests", n);
    return 0;
}

void
echoes_free(struct echoes *e)
{
    free(e->slots);
    e->slots = NULL;
}

/* The key of the transaction an echo belongs to. */
static void
echo_key_of(const struct rs_packet *pkt, const struct rs_icmp_echo *echo, struct echo_key *k)
{
    memset(k, 0, sizeof(*k));
    rs_flow_key_addresses(pkt, &k->flow, echo->ident, echo->seq);
    k->flow.proto = echo->v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
    k->flow.port[0] = echo->ident;
    k->flow.port[1] = echo->seq;
    k->reply_checksum = echo->checksum;
    if (!echo->reply) {
        uint32_t sum = (uint32_t)echo->checksum +
                       (echo->v6 ? ICMPV6_TYPE_DELTA : ICMP_TYPE_DELTA);
        k->reply_checksum = (uint16_t)((sum & 0xffffu) + (sum >> 16));
    }
}

void
echoes_process(struct echoes *e, const struct rs_packet *pkt, struct rs_stream_view *v)
{
    struct rs_icmp_echo echo;
    struct echo_key key;

    if (!rs_icmp_echo_of(pkt, &echo))
        return;
    echo_key_of(pkt, &echo, &key);
    uint32_t h = rs_flow_key_hash(&key.flow) ^ (uint32_t)key.reply_checksum * 0x9e3779b1u;
    struct echo_slot *slot = &e->slots[h % e->n];
    bool same = slot->frame != 0 && memcmp(&slot->key, &key, sizeof(key)) == 0;
    if (echo.reply) {
        if (same) {
            v->echo_request = slot->frame;
            v->echo_rtt = rs_time_sub(rs_frame_time(pkt->frame), slot->time);
            slot->frame = 0;
        }
        return;
    }
    if (slot->frame != 0 && !same)
        e->evicted++;
    slot->key = key;
    slot->frame = pkt->frame->number;
    slot->time = rs_frame_time(pkt->frame);
}
