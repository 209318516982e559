/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcp_reasm_int.h - the bytes and segments of an HTTP message or TLS record over TCP
 * segments, kept from its first segment until the one that completes it; part of the
 * streams stage, not of the API. One allocation a message, its whole length known from
 * its first segment; the segments' list grows by doubling. Bounded a message and in all.
 */
#ifndef ROCESHARK_TCP_REASM_INT_H
#define ROCESHARK_TCP_REASM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/streams.h>

struct tcp_msg;

struct tcp_reasm {
    uint32_t max_msg;           /* bytes a message */
    uint64_t max_memory;        /* bytes of all messages kept, their lists counted */
    uint64_t memory, peak;
    uint64_t unkept;            /* messages not kept: over a bound */
    struct tcp_msg *done;       /* the last one completed, freed at the next frame */
    struct rs_tcp_reasm view;   /* of done */
};

void tcp_reasm_init(struct tcp_reasm *r, uint32_t max_msg, uint64_t max_memory);
void tcp_reasm_free(struct tcp_reasm *r);
/* A message of len bytes, its first n at d from frame; NULL (counted in unkept) when the
 * bounds leave no room for it. */
struct tcp_msg *tcp_msg_start(struct tcp_reasm *r, uint32_t len, uint64_t frame,
                              const uint8_t *d, uint32_t n);
/* n more bytes from frame; false (the message freed) when its list cannot grow. */
bool tcp_msg_add(struct tcp_reasm *r, struct tcp_msg **m, uint64_t frame, const uint8_t *d,
                 uint32_t n);
void tcp_msg_free(struct tcp_reasm *r, struct tcp_msg *m);
/* The message complete: its view, valid until tcp_reasm_next(). */
const struct rs_tcp_reasm *tcp_msg_complete(struct tcp_reasm *r, struct tcp_msg *m);
/* A new frame: the message completed at the last one is given back. */
void tcp_reasm_next(struct tcp_reasm *r);

#endif /* ROCESHARK_TCP_REASM_INT_H */
