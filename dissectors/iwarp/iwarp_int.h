/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwarp_int.h - the iWARP stage's state: connections, the two byte streams
 * of each, the MPA parser's position in them, and the view being built for
 * the current frame. Not part of the API.
 *
 * Layers, bottom up:
 *   conn.c    the bounded connection table (4-tuple -> struct iw_conn, LRU)
 *   stream.c  TCP: orders each direction's bytes (trims retransmissions,
 *             holds out-of-order segments in a window, gives up on bytes
 *             that never come) and hands in-order runs and holes to mpa.c
 *   mpa.c     MPA: Request/Reply frames, FPDUs (markers, pad, CRC)
 *   infer.c   finding FPDU boundaries with no exchange to go by
 *   ddp.c     what DDP/RDMAP headers say (lengths, sanity, messages)
 *   iwarp.c   rs_iwarp_process(): from the packet to a connection, and
 *             the view of the PDUs that ended in the frame
 */
#ifndef ROCESHARK_IWARP_INT_H
#define ROCESHARK_IWARP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/packet.h>
#include <roceshark/dissectors/ptr_index.h>

#define IW_MIN_BUFFER (128u * 1024)     /* one largest FPDU and a segment fit */
#define IW_MAX_BUFFER (1u << 30)        /* offsets into a window stay far from 2^32 */
#define IW_MAX_OOO 16                   /* out-of-order runs held per direction */
#define IW_VIEW_PDUS 1024               /* PDUs one frame can show */
#define IW_VIEW_MARKERS 2048
#define IW_SEND_FRAMES 256              /* Send fragments remembered per message */
#define IW_SEND_MAX_DATA (256u * 1024)  /* Send payload kept for reassembled.data */
#define IW_HUNT_BUDGET (256u * 1024)    /* bytes searched for FPDUs before a connection
                                         * with no exchange seen is judged not iWARP */
/* The largest FPDU: ULPDU_Length, 65535 octets, pad, CRC, and its markers. */
#define IW_MAX_FPDU (2u + 65535u + 3u + 4u + 4u * 130u)

/* Signed distance between TCP sequence numbers. */
static inline int32_t
seq_diff(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b);
}

/* What the MPA parser of a direction is doing. */
enum iw_parse {
    IW_PROBE = 0,       /* not known to be iWARP: watch for an MPA Request */
    IW_FRAME,           /* an MPA Request or Reply starts at the parse position */
    IW_WAIT,            /* the initiator's FPDUs wait for the Reply's settings */
    IW_FRAMED,          /* FPDUs start at the parse position */
    IW_HUNT,            /* framing unknown or lost: searching for an FPDU */
    IW_SKIP,            /* discarding the rest of an FPDU that lost bytes */
    IW_IDLE             /* nothing to parse (rejected, or not iWARP) */
};

/* Bytes of a direction that arrived ahead of the bytes before them. */
struct iw_run {
    uint32_t start, end;    /* sequence numbers */
};

struct iw_dir {
    /* TCP */
    bool seq_known;
    bool saw_syn;
    uint32_t isn;           /* with saw_syn: the SYN's sequence number */
    uint32_t next_seq;      /* the next in-order byte */
    bool lost_pending;      /* the peer acknowledged bytes we never saw */
    uint32_t lost_until;
    bool jump_seen;         /* a segment far ahead was not believed: */
    uint32_t jump_next;     /* where it ended */
    /* The window: buf[head, avail) are in-order bytes not yet parsed, ending
     * at next_seq; out-of-order runs sit at buf[avail + (start - next_seq)].
     * buf[0, head) holds parsed bytes the current view may point to; it is
     * dropped on the next call. The invariants (W1-W6) are in stream.c,
     * the only file that changes these fields. */
    uint8_t *buf;
    uint32_t cap;
    uint32_t head, avail;
    struct iw_run ooo[IW_MAX_OOO];
    unsigned n_ooo;
    bool pinned;            /* the view points into buf: it must not move this call */
    /* MPA */
    uint8_t parse;          /* enum iw_parse */
    bool reparse;           /* the bytes held became readable (the Reply came) */
    bool markers;           /* this direction carries markers */
    bool markers_known;     /* the exchange (or a marker seen) said so */
    bool marker_base_known;
    uint32_t marker_base;   /* sequence number markers count from */
    bool crc_known;
    bool crc;
    bool inferred;          /* framing came from inference */
    uint32_t skip_until;    /* IW_SKIP: where the damaged FPDU ends */
    uint32_t trunc_caplen;  /* IW_SKIP: bytes of it kept at head */
    uint32_t hunt_budget;   /* IW_HUNT on an unconfirmed connection */
    uint32_t seg_starts[4]; /* where the last segments started: senders align FPDUs */
    uint8_t n_seg_starts;   /* counts around: the next slot is n % 4 */
    /* Send reassembly, as Wireshark's iwarp_rdma.send.* fields show it: made
     * when a Send of several FPDUs first comes, so that connections that have
     * none (or are not iWARP) stay small. */
    struct iw_send *send;
};

struct iw_send {
    uint16_t frags;
    uint32_t len;
    uint32_t frames[IW_SEND_FRAMES];
    uint16_t lens[IW_SEND_FRAMES];  /* each fragment's payload octets (a ULPDU's are 16 bits) */
    uint8_t *buf;
    uint32_t cap;
    bool data_lost;
};

/* What the connection is known to be. */
enum iw_kind {
    IW_UNKNOWN = 0,     /* TCP, not (yet) seen to carry iWARP */
    IW_MPA,             /* an MPA Request was seen */
    IW_FORCED,          /* on a port given as iWARP */
    IW_INFERRED,        /* FPDUs were recognised without an exchange */
    IW_NOT_IWARP        /* searched and found nothing */
};

struct iw_conn {
    struct rs_flow_key key;
    uint32_t hash;          /* the key's, as the table's index files it */
    uint32_t id;            /* from 1, assigned when it turns out to be iWARP */
    uint8_t kind;           /* enum iw_kind */
    int8_t initiator;       /* side (0/1 of the key) that sent the Request; -1 unknown */
    uint8_t mpa_rev;
    uint8_t req_flags;      /* the Request's M, C, R bits */
    bool rejected;
    bool exchange_done;     /* the Reply was seen */
    struct iw_dir dir[2];   /* by side of the key: dir[s] is what side s sends */
    struct iw_conn *lru_prev, *lru_next;
};

/* Scratch memory for one call's copies (see iw_arena_alloc). */
struct iw_arena_block {
    struct iw_arena_block *next;
    uint32_t cap, used;
    uint8_t data[];
};

/* One frame's findings, rebuilt on every call. */
struct iw_view_build {
    struct rs_iwarp_view view;
    struct rs_iwarp_pdu pdus[IW_VIEW_PDUS];
    uint32_t markers[IW_VIEW_MARKERS];
    uint32_t send_frames[IW_SEND_FRAMES];
    uint32_t send_lens[IW_SEND_FRAMES];
    uint16_t n_send_frames;
    /* Marker-free copies of FPDUs that had markers, and reassembled Sends. */
    struct iw_arena_block *blocks;
    struct iw_arena_block *cur;     /* the block being filled; NULL: none yet */
    uint64_t frame;         /* number of the frame being processed */
    uint32_t seg_start;     /* sequence space of the segment being processed */
    uint32_t seg_end;
};

struct rs_iwarp {
    struct rs_iwarp_opts opts;
    struct rs_ptr_index table;  /* struct iw_conn by its key's hash */
    struct iw_conn *lru_head, *lru_tail;    /* most recently used first */
    uint32_t n_conns;
    uint32_t next_id;
    struct rs_iwarp_stats stats;
    struct iw_view_build vb;
};

/* conn.c */
int iw_table_init(struct rs_iwarp *iw);
void iw_table_free(struct rs_iwarp *iw);
struct iw_conn *iw_conn_get(struct rs_iwarp *iw, const struct rs_flow_key *key);
void iw_conn_reset(struct rs_iwarp *iw, struct iw_conn *c);
void iw_conn_mark_iwarp(struct rs_iwarp *iw, struct iw_conn *c, enum iw_kind kind);
bool iw_port_forced(const struct rs_iwarp *iw, uint16_t a, uint16_t b);

/* stream.c: one TCP segment of direction `side`. */
struct iw_segment {
    uint32_t seq;
    uint32_t ack;
    uint8_t flags;          /* TCP flags */
    const uint8_t *data;    /* captured payload */
    uint32_t caplen;        /* payload bytes captured */
    uint32_t len;           /* payload bytes on the wire */
};
void iw_stream_segment(struct rs_iwarp *iw, struct iw_conn *c, int side,
                       const struct iw_segment *seg);
void iw_stream_free(struct rs_iwarp *iw, struct iw_dir *d);

/* mpa.c: parse what is in order. `data` is either the frame's payload (when
 * nothing is buffered) or buf + head; returns the bytes consumed. */
uint32_t iw_mpa_parse(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data,
                      uint32_t len, uint32_t seq);
/* n bytes at seq are lost for good: damage or drop what they touch. */
void iw_mpa_hole(struct rs_iwarp *iw, struct iw_conn *c, int side, uint32_t seq, uint32_t n);
/* A segment starts at seq with these bytes: is it an MPA frame to follow? */
void iw_mpa_probe(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data,
                  uint32_t len, uint32_t seq);
/* Copies up to n octets from offset `at` of data (stream sequence seq),
 * skipping the markers that stand every 512 octets from base when markers
 * are on; returns the count copied. */
uint32_t iw_plain_bytes(bool markers, uint32_t base, const uint8_t *data, uint32_t len,
                        uint32_t seq, uint32_t at, uint8_t *out, uint32_t n);
/* Total octets of the FPDU at seq with this marker-free length. */
uint32_t iw_fpdu_wire_len(const struct iw_dir *d, uint32_t seq, uint32_t plain_len);
/* Emits the FPDU at data (wire bytes, markers included, wire_len long). */
void iw_mpa_emit_fpdu(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data,
                      uint32_t wire_len, uint32_t seq, uint32_t caplen);

/* infer.c: searches data (stream sequence seq) for the start of an FPDU.
 * Returns the offset of one found (*found set, and the direction's marker
 * and CRC settings with it), or of a candidate that more bytes would
 * decide (only when `keep`: the bytes can wait in the window), or len. */
uint32_t iw_infer(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data,
                  uint32_t len, uint32_t seq, bool keep, bool *found);
/* The same test at offset 0 only, for the FPDUs that follow one found while
 * markers are not known: 1 an FPDU (settings learnt), 0 more bytes needed,
 * -1 none. */
int iw_infer_at(struct rs_iwarp *iw, struct iw_conn *c, int side, const uint8_t *data,
                uint32_t len, uint32_t seq);

/* ddp.c */
/* Header sanity of a ULPDU of ulen octets whose first `avail` octets are at
 * u: DDP and RDMAP versions, reserved bits, an opcode known and consistent
 * with the buffer model, a ULPDU long enough for its headers, and for
 * untagged ones a queue number RDMAP uses; single-segment messages must be
 * whole. Only the octets available are judged. */
bool iw_ddp_sane(const uint8_t *u, uint32_t avail, uint32_t ulen);
/* Whether opcode op uses the tagged buffer model (Write, Read Response). */
bool iw_rdmap_tagged(uint8_t op);
/* Octets of the RDMAP header that follows the DDP header of opcode op (the
 * Read Request's 28, Terminate's 4, ...); 0 for reserved opcodes. */
uint32_t iw_rdmap_hdr_len(uint8_t op);
/* Message facts of an emitted FPDU (msg_len, Send reassembly) and the bytes it
 * hands on to "data" (data_off, data_len). */
void iw_ddp_account(struct rs_iwarp *iw, struct iw_dir *d, struct rs_iwarp_pdu *pdu);

/* iwarp.c: reassembly memory, held against opts.max_memory */
bool iw_memory_fits(const struct rs_iwarp *iw, uint64_t n);
void iw_memory_add(struct rs_iwarp *iw, uint64_t n);     /* and the peak with it */

/* iwarp.c: the view being built */
struct rs_iwarp_pdu *iw_view_add(struct rs_iwarp *iw);
uint8_t *iw_arena_alloc(struct rs_iwarp *iw, uint32_t n);
void iw_view_flag(struct rs_iwarp *iw, uint8_t flag);

/* mpa.c: the RS_MPA_KEY_LEN octets that open a Request, or a Reply. */
const char *iw_mpa_key(bool reply);

/* CRC-32C of an FPDU as it is sent: little-endian, as iSCSI sends it. */
uint32_t iw_crc32c(const uint8_t *p, uint32_t n);

#endif /* ROCESHARK_IWARP_INT_H */
