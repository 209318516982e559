/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwarp_gen.h - the cases iwarp_fuzz runs: each a small capture of a few
 * TCP connections, built from a model of what each side sent (an MPA
 * exchange and FPDUs, FPDUs with no exchange, or plain bytes) and then
 * mutated the way captures and networks mutate streams. A case depends only
 * on (seed, index), so any one of them can be built again to replay it.
 */
#ifndef ROCESHARK_IWARP_GEN_H
#define ROCESHARK_IWARP_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/iwarp.h>

/* One Ethernet frame of a case: bytes[off, off + caplen), len on the wire. */
struct gen_frame {
    size_t off;
    uint32_t caplen;
    uint32_t len;
    uint64_t ts_ns;         /* since the epoch */
};

/* What a case did to its streams, for the coverage counters. */
enum gen_event {
    GEN_DROP,               /* a segment never captured */
    GEN_ACK_UNSEEN,         /* an acknowledgement of bytes never captured */
    GEN_ACK_LIE,            /* an acknowledgement of bytes never sent */
    GEN_RETRANSMIT,         /* a range sent again, overlapping what was sent */
    GEN_RETRANSMIT_ALTERED, /* ... with different bytes */
    GEN_REORDER,            /* a segment sent after later ones */
    GEN_FAR,                /* a segment past the window, or 2^31 away */
    GEN_SYN_REUSE,          /* a new connection on a 4-tuple mid-stream */
    GEN_SYN_AGAIN,          /* a retransmitted SYN mid-stream */
    GEN_SNAP_CUT,           /* a segment cut by the snapshot length */
    GEN_IP_LEN_LIE,         /* an IP length that disagrees with the frame */
    GEN_BIT_FLIP,           /* bytes of a segment changed */
    GEN_FIN_RST,
    GEN_FRAGMENT,           /* an IPv4 fragment */
    GEN_HOSTILE_MPA_LEN,    /* a ULPDU_Length or PD_Length that lies */
    GEN_HOSTILE_MARKER,     /* a marker whose pointer or reserved half lies */
    GEN_HOSTILE_DDP,        /* DDP or RDMAP control bits that lie */
    GEN_EMPTY_DDP,          /* a DDP segment with no payload */
    GEN_HUGE_DDP,           /* a DDP segment of 32 KiB or more */
    GEN_GARBAGE,            /* bytes between FPDUs that are none */
    GEN_SEQ_WRAP,           /* a stream that crosses 2^31 or 2^32 */
    GEN_N_EVENTS
};

struct gen_case {
    /* The stage's bounds and switches for this case, as read's options set them. */
    struct rs_iwarp_opts iwarp;
    struct rs_decode_opts decode;
    bool analysis;
    /* The frames, in capture order. */
    uint8_t *bytes;
    size_t used, cap;
    struct gen_frame *frames;
    size_t n_frames, frames_cap;
    /* What was built. */
    unsigned streams;       /* TCP connections (a reused 4-tuple counts again) */
    bool clean;             /* nothing mutated: every FPDU built must be found, whole */
    uint64_t fpdus;         /* FPDUs built into the streams */
    uint64_t events[GEN_N_EVENTS];
    bool failed;            /* out of memory */
};

/* Builds case `index` of `seed` into gc (emptied first; gc zeroed before first use). */
void gen_case_build(struct gen_case *gc, uint64_t seed, uint64_t index);
void gen_case_free(struct gen_case *gc);
const char *gen_event_name(enum gen_event e);

#endif /* ROCESHARK_IWARP_GEN_H */
