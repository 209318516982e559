/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwarp.h - iWARP over TCP: stream reassembly, MPA framing (RFC 5044, RFC
 * 6581), and the FPDUs that carry DDP (RFC 5041) and RDMAP (RFC 5040, RFC
 * 7306) messages.
 *
 * Decoding a frame (dissect.h) is stateless; iWARP cannot be: an FPDU may
 * span TCP segments, one segment may end several FPDUs, markers stand every
 * 512 octets of sequence space counted from the first FPDU, and whether
 * markers and CRCs are in use was settled by the MPA exchange. This is the
 * one stateful stage of decoding. rs_iwarp_process() is called after
 * rs_decode_frame() and before the analyzer, once per frame in capture
 * order. It follows each TCP connection (a bounded table keyed by the
 * 4-tuple), puts each direction's bytes in order (retransmissions trimmed,
 * out-of-order segments held up to a bound), finds the MPA frames and FPDUs
 * that end in the segment, and attaches them to the packet (pkt->iwarp).
 *
 * A connection is recognised by its MPA Request and Reply (as Wireshark
 * does), on a TCP port given as iWARP (-d tcp.port==N,iwarp), or, when the
 * capture starts mid-connection, by inference: FPDUs found by their ULPDU
 * length and header sanity and confirmed by the CRC when CRCs are on.
 *
 * Memory: connection state lives in a table of at most max_conns entries
 * (least recently used evicted, counted). Each direction holds at most
 * max_buffer bytes (a partial FPDU and out-of-order segments); when that
 * bound or the global max_memory bound is hit, the missing bytes are given
 * up as lost (counted) and framing continues after them. Nothing is
 * allocated per packet once a connection's buffers exist.
 */
#ifndef ROCESHARK_IWARP_H
#define ROCESHARK_IWARP_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/packet.h>

#define RS_MPA_KEY_LEN 16
#define RS_MPA_FRAME_HDR_LEN 20         /* key, flags, revision, PD_Length */
#define RS_MPA_MAX_PD_LEN 512           /* RFC 5044 7.1: private data limit */
#define RS_MPA_MARKER_INTERVAL 512
#define RS_MPA_MARKER_LEN 4
#define RS_MPA_CRC_LEN 4
#define RS_DDP_TAGGED_HDR_LEN 14
#define RS_DDP_UNTAGGED_HDR_LEN 18
#define RS_RDMAP_READ_REQ_LEN 28
#define RS_RDMAP_ATOMIC_REQ_LEN 52
#define RS_RDMAP_ATOMIC_RESP_LEN 12
#define RS_RDMAP_IMMEDIATE_LEN 8

/* MPA Request/Reply flag bits (byte 16 of the frame). */
#define RS_MPA_FLAG_MARKERS 0x80
#define RS_MPA_FLAG_CRC 0x40
#define RS_MPA_FLAG_REJECT 0x20
#define RS_MPA_FLAG_ENHANCED 0x10       /* RFC 6581: IRD/ORD lead the private data */

/* RDMAP opcodes (RFC 5040 4.1, RFC 7306 7). */
enum rs_rdmap_opcode {
    RS_RDMAP_WRITE = 0x0,
    RS_RDMAP_READ_REQUEST = 0x1,
    RS_RDMAP_READ_RESPONSE = 0x2,
    RS_RDMAP_SEND = 0x3,
    RS_RDMAP_SEND_INVALIDATE = 0x4,
    RS_RDMAP_SEND_SE = 0x5,
    RS_RDMAP_SEND_SE_INVALIDATE = 0x6,
    RS_RDMAP_TERMINATE = 0x7,
    RS_RDMAP_IMMEDIATE = 0x8,
    RS_RDMAP_IMMEDIATE_SE = 0x9,
    RS_RDMAP_ATOMIC_REQUEST = 0xa,
    RS_RDMAP_ATOMIC_RESPONSE = 0xb
};

enum rs_mpa_kind {
    RS_MPA_REQUEST = 1,
    RS_MPA_REPLY = 2,
    RS_MPA_FPDU = 3
};

/* struct rs_iwarp_pdu.flags */
#define RS_IWARP_PDU_INFERRED 0x01      /* framing inferred: no MPA exchange was seen */
#define RS_IWARP_PDU_TRUNCATED 0x02     /* bytes of it were not captured: see caplen */
#define RS_IWARP_PDU_MSG_LAST 0x04      /* last FPDU of an untagged message: msg_len */
#define RS_IWARP_PDU_SEND_REASM 0x08    /* ends a Send message of several FPDUs: send_* */
#define RS_IWARP_PDU_CRC_SWAPPED 0x10   /* the CRC matches with its bytes reversed */
#define RS_IWARP_PDU_MARKED 0x20        /* markers stand among its wire octets: marker_at */

/* One MPA Request, Reply or FPDU that ends in this frame. */
struct rs_iwarp_pdu {
    /* For an FPDU, its bytes without markers: ULPDU_Length, ULPDU, pad,
     * CRC. For a Request or Reply, the whole frame. */
    const uint8_t *data;
    uint32_t len;               /* as declared: 2 + ULPDU + pad + 4, or 20 + PD_Length */
    uint32_t caplen;            /* bytes of data that were captured (== len unless truncated) */
    uint32_t seq;               /* TCP sequence number of its first octet */
    uint32_t wire_len;          /* octets it takes in the stream, markers included */
    uint8_t kind;               /* enum rs_mpa_kind */
    uint8_t flags;              /* RS_IWARP_PDU_* */
    uint8_t crc_status;         /* enum rs_cksum_status */
    uint8_t pad_len;
    uint16_t ulpdu_len;
    uint16_t n_markers;
    uint16_t first_marker;      /* index into the view's markers[] */
    uint16_t send_fragments;    /* with SEND_REASM: FPDUs of the Send message */
    uint16_t marker_at;         /* with MARKED: wire offset of its first marker from seq
                                   (the others follow every 512 octets) */
    uint32_t crc_computed;      /* read as iwarp_mpa.crc reads the sent one */
    uint64_t msg_len;           /* with MSG_LAST: the message's length (MO + payload) */
    uint32_t send_first_frame;  /* with SEND_REASM: index into the view's send_frames[] */
    uint32_t send_len;          /* with SEND_REASM: the reassembled payload length */
    const uint8_t *send_data;   /* and the payload, when it was kept (else NULL) */
    uint32_t data_off;          /* what it hands on to "data": from data (not with */
    uint32_t data_len;          /* SEND_REASM, whose bytes are send_data), 0 for none */
};

/* The bytes of PDU p that Wireshark 4.0 hands on to "data": a Write's or
 * Read Response's DDP payload, and a Send message's payload on the FPDU that
 * ends it (the whole message when it took several FPDUs, iwarp_rdma.send.*),
 * as far as captured. False for a Request or Reply (their private data is
 * iwarp_mpa.privatedata), an earlier FPDU of a Send, the other opcodes (their
 * octets are RDMAP fields) and an empty payload. The stage works it out as it
 * reads the FPDU (ddp.c); this only reads the view, so the layers below iWARP
 * (net/'s data field, frame.protocols) need not call iWARP. */
static inline bool
rs_iwarp_pdu_data(const struct rs_iwarp_pdu *p, const uint8_t **data, uint32_t *len)
{
    if (p->kind != RS_MPA_FPDU || p->data_len == 0)
        return false;
    *data = (p->flags & RS_IWARP_PDU_SEND_REASM) ? p->send_data : p->data + p->data_off;
    *len = p->data_len;
    return true;
}

/* Whether FPDU p had markers among its octets, so that Wireshark dissects its DDP and RDMAP
 * headers and data from a copy without them (its "FPDU without Markers"): p->data. */
static inline bool
rs_iwarp_pdu_unmarked(const struct rs_iwarp_pdu *p)
{
    return p->kind == RS_MPA_FPDU && p->n_markers > 0 && p->data != NULL && p->caplen > 0;
}

/* struct rs_iwarp_view.flags */
#define RS_IWARP_VIEW_RETRANSMISSION 0x01   /* the segment held only bytes already seen */
#define RS_IWARP_VIEW_OUT_OF_ORDER 0x02     /* held until the bytes before it arrive */
#define RS_IWARP_VIEW_GAP 0x04              /* bytes before this segment were never captured */
#define RS_IWARP_VIEW_CONTINUATION 0x08     /* carries part of an FPDU that ends later */
#define RS_IWARP_VIEW_OVERFLOW 0x10         /* more PDUs ended than the view holds */
#define RS_IWARP_VIEW_REJECTED 0x20         /* the connection's MPA Reply rejected it */
#define RS_IWARP_VIEW_UNMARKED_PLACES 0x40  /* set by a printer on a view of its own: the
                                               PDU's fields are placed in its marker-free
                                               octets (pdus[].data), not in the frame */

/* Direction of a segment within its connection. */
#define RS_IWARP_DIR_INITIATOR 0    /* sent by the MPA initiator */
#define RS_IWARP_DIR_RESPONDER 1
#define RS_IWARP_DIR_UNKNOWN 0xff   /* no MPA Request was seen */

/* What rs_iwarp_process() found in one frame; valid until the next call. */
struct rs_iwarp_view {
    const struct rs_iwarp_pdu *pdus;
    const uint32_t *markers;    /* each marker read as a big-endian number */
    const uint32_t *send_frames;/* frame numbers of Send fragments (see the PDU) */
    const uint32_t *send_lens;  /* and the payload octets of each, in the same order */
    uint16_t n_pdus;
    uint16_t n_markers;
    uint8_t flags;              /* RS_IWARP_VIEW_* */
    uint8_t dir;                /* RS_IWARP_DIR_* */
    uint8_t mpa_rev;            /* the exchange's revision, 0 when none was seen */
    bool markers_on;            /* this direction carries markers */
    bool crc_on;                /* the connection uses CRCs */
    uint32_t conn;              /* connection id, from 1 */
};

struct rs_iwarp_opts {
    uint32_t max_conns;         /* connections followed at once */
    uint32_t max_buffer;        /* bytes held per direction (at most max_memory) */
    uint64_t max_memory;        /* bytes held over all connections */
    bool verify_crc;            /* compute MPA CRCs (inference computes them regardless) */
    bool heuristics;            /* infer framing on connections with no exchange seen */
    unsigned n_ports;           /* TCP ports forced to iWARP */
    uint16_t ports[RS_MAX_EXTRA_PORTS];
};

/* Defaults: 65536 connections, 1 MiB per direction, 256 MiB in all, CRCs
 * verified, heuristics on, no ports. */
void rs_iwarp_opts_init(struct rs_iwarp_opts *opts);

struct rs_iwarp;

int rs_iwarp_new(const struct rs_iwarp_opts *opts, struct rs_iwarp **out, char *err);
void rs_iwarp_free(struct rs_iwarp *iw);

/* Follows pkt's TCP segment (decoded, in capture order). When it belongs to
 * an iWARP connection, sets pkt->encap to RS_ENCAP_IWARP and pkt->iwarp to
 * what it holds; the view and the bytes it points to stay valid until the
 * next call. */
void rs_iwarp_process(struct rs_iwarp *iw, struct rs_packet *pkt);

/* What the stage counted, for statistics and the memory bound's tests. */
struct rs_iwarp_stats {
    uint64_t connections;       /* iWARP connections seen */
    uint64_t evictions;         /* connections dropped from the full table */
    uint64_t fpdus;
    uint64_t crc_errors;
    uint64_t retransmissions;   /* segments that held only bytes already seen */
    uint64_t out_of_order;      /* segments held for bytes before them */
    uint64_t buffer_limit_hits; /* a direction's or the global bound refused bytes */
    uint64_t bytes_lost;        /* stream bytes given up (never captured or not held) */
    uint64_t resyncs;           /* framing found again after it was lost */
    uint64_t memory;            /* bytes held now in stream buffers */
    uint64_t memory_peak;
};

void rs_iwarp_get_stats(const struct rs_iwarp *iw, struct rs_iwarp_stats *st);
/* The options in force: those given, with the bounds clamped as rs_iwarp_new() did. */
void rs_iwarp_get_opts(const struct rs_iwarp *iw, struct rs_iwarp_opts *opts);

/* What is wrong with an MPA Request or Reply (bits). Revision 2's Enhanced
 * flag is not reserved. */
#define RS_MPA_BAD_PD_LENGTH 0x01   /* PD_Length over 512 */
#define RS_MPA_RES_SET 0x02         /* reserved flag bits set */
#define RS_MPA_REV_UNKNOWN 0x04     /* a revision other than 1 and 2 */
#define RS_MPA_REJECTED 0x08        /* a Reply with R set */
unsigned rs_mpa_frame_anomalies(const struct rs_iwarp_pdu *p);

/* Name of an RDMAP opcode ("Send with Invalidate", ...), NULL if reserved. */
const char *rs_rdmap_opcode_name(uint8_t opcode);

#endif /* ROCESHARK_IWARP_H */
