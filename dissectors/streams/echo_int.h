/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * echo_int.h - ICMP and ICMPv6 echo replies matched to their requests, for
 * icmp.resp_to and icmp.resptime (and icmpv6.*); part of the streams stage,
 * not of the API.
 */
#ifndef ROCESHARK_ECHO_INT_H
#define ROCESHARK_ECHO_INT_H

#include <stdint.h>

#include <roceshark/dissectors/packet.h>
#include <roceshark/dissectors/streams.h>

struct echo_slot;

struct echoes {
    struct echo_slot *slots;    /* requests not yet answered, by hash */
    uint32_t n;
    uint64_t evicted;           /* requests forgotten for a newer one in their slot */
};

/* Room for n unanswered requests; RS_ENOMEM on failure. */
int echoes_init(struct echoes *e, uint32_t n, char *err);
void echoes_free(struct echoes *e);

/* Remembers a request; for a reply to one remembered, fills v->echo_request
 * and v->echo_rtt and forgets the request. Frames come in capture order. */
void echoes_process(struct echoes *e, const struct rs_packet *pkt, struct rs_stream_view *v);

#endif /* ROCESHARK_ECHO_INT_H */
