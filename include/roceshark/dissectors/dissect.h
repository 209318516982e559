/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dissect.h - decode a frame into an rs_packet, and the IBA opcode table.
 *
 * rs_decode_frame() walks link, network and transport headers of RoCEv1,
 * RoCEv2 and native InfiniBand frames. It never reads past the captured
 * length, never allocates, and never fails on bad input: a frame it cannot
 * make sense of is decoded as far as it goes and flagged RS_PKT_MALFORMED.
 */
#ifndef ROCESHARK_DISSECT_H
#define ROCESHARK_DISSECT_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/packet.h>

#define RS_ROCEV2_UDP_PORT 4791
#define RS_ROCEV2_PORT_OFF 0x10000u    /* no UDP port is RoCEv2's (rs_decode_opts) */
#define RS_MAX_EXTRA_PORTS 16

/* Fixed header sizes, IBTA Vol 1 chapter 9 (and 7 for LRH/GRH). */
#define RS_LRH_LEN 8
#define RS_GRH_LEN 40
#define RS_BTH_LEN 12
#define RS_RDETH_LEN 4
#define RS_DETH_LEN 8
#define RS_XRCETH_LEN 4
#define RS_RETH_LEN 16
#define RS_ATOMICETH_LEN 28
#define RS_AETH_LEN 4
#define RS_ATOMICACKETH_LEN 8
#define RS_IMMDT_LEN 4
#define RS_IETH_LEN 4
#define RS_CNP_LEN 16
#define RS_ICRC_LEN 4
#define RS_VCRC_LEN 2
#define RS_GRH_NXTHDR_IBA 0x1b
#define RS_LNH_IBA_LOCAL 2      /* LRH next header: BTH */
#define RS_LNH_IBA_GLOBAL 3     /* LRH next header: GRH, then BTH */
#define RS_ROCEV1_ETHERTYPE 0x8915

struct rs_decode_opts {
    bool verify_crc;                             /* compute ICRC and VCRC */
    uint32_t rocev2_port;                        /* RoCEv2's UDP port where tshark's
                                                    infiniband.rroce.port moves it: 0 keeps
                                                    4791, RS_ROCEV2_PORT_OFF is none */
    unsigned n_roce_ports;                       /* extra RoCEv2 UDP ports */
    uint16_t roce_ports[RS_MAX_EXTRA_PORTS];
    unsigned n_iwarp_ports;                      /* TCP ports forced to iWARP */
    uint16_t iwarp_ports[RS_MAX_EXTRA_PORTS];
    /* --disable-protocol, as tshark's: what would have been decoded as the protocol is
     * left as the payload of the layer below (zero, the default, decodes it). */
    bool disable_infiniband;                     /* RoCEv1/v2, DLT_INFINIBAND, ERF IB */
    bool disable_iwarp;                          /* MPA, DDP and RDMAP: the pipeline skips
                                                    its iWARP stage */
    bool disable_ipoib;                          /* native IB payloads are not taken for
                                                    IPoIB (tshark's eth_over_ib heuristic) */
    bool icmp_4_4;                               /* ICMP as tshark 4.4 and 4.6 show it
                                                    (-o compat:4.4, RS_PKT_ICMP_4_4) */
};

/* Sets the defaults: CRCs verified, only port 4791. */
void rs_decode_opts_init(struct rs_decode_opts *opts);

/* Decodes frame into pkt; pkt->frame points at frame afterwards. Always
 * succeeds: problems are reported through pkt->flags and pkt->problem. */
void rs_decode_frame(const struct rs_frame *frame, const struct rs_decode_opts *opts,
                     struct rs_packet *pkt);

/* The ICRC that pkt should carry, as the CRC value (the wire holds it least
 * significant byte first), over the masked pseudo-packet of IBTA 7.8.1 and
 * Annexes A16/A17. pkt is a decoded view (rs_decode_frame, or the encoder's)
 * holding a BTH, an ICRC span and the RoCEv2 IP/UDP, GRH or LRH in front;
 * false when it lacks them. The decoder and the packet builder share it. */
bool rs_icrc_compute(const struct rs_packet *pkt, uint32_t *icrc);

/* --- The IBA opcode table (IBTA Vol 1, 9.2.1 and Table 38) --- */

/* Transport service of an opcode: its top three bits. */
enum rs_ib_transport {
    RS_IB_RC = 0,
    RS_IB_UC = 1,
    RS_IB_RD = 2,
    RS_IB_UD = 3,
    RS_IB_CNP = 4,
    RS_IB_XRC = 5,
    RS_IB_VENDOR6 = 6,
    RS_IB_VENDOR7 = 7
};

/* Which headers follow the BTH, in the order they appear. */
#define RS_HDR_RDETH 0x0001u
#define RS_HDR_DETH 0x0002u
#define RS_HDR_XRCETH 0x0004u
#define RS_HDR_RETH 0x0008u
#define RS_HDR_ATOMICETH 0x0010u
#define RS_HDR_AETH 0x0020u
#define RS_HDR_ATOMICACKETH 0x0040u
#define RS_HDR_IMMDT 0x0080u
#define RS_HDR_IETH 0x0100u
#define RS_HDR_CNP 0x0200u
#define RS_HDR_PAYLOAD 0x0400u  /* the opcode may carry a payload */

/* Position of a packet within its message. */
enum rs_ib_seg {
    RS_SEG_NONE = 0,
    RS_SEG_FIRST,
    RS_SEG_MIDDLE,
    RS_SEG_LAST,
    RS_SEG_ONLY
};

/* What the packet does, independent of the transport service. */
enum rs_ib_op {
    RS_OP_NONE = 0,
    RS_OP_SEND,
    RS_OP_WRITE,
    RS_OP_READ_REQ,
    RS_OP_READ_RESP,
    RS_OP_ACK,
    RS_OP_ATOMIC_ACK,
    RS_OP_CMP_SWAP,
    RS_OP_FETCH_ADD,
    RS_OP_RESYNC,
    RS_OP_CNP
};

struct rs_ib_opcode {
    const char *name;       /* "RC RDMA Write Only", NULL when reserved */
    uint16_t hdrs;          /* RS_HDR_* */
    uint8_t hdrs_len;       /* bytes of those headers */
    uint8_t op;             /* enum rs_ib_op */
    uint8_t seg;            /* enum rs_ib_seg */
};

/* Entry for opcode; reserved opcodes have name == NULL. */
const struct rs_ib_opcode *rs_ib_opcode_info(uint8_t opcode);

/* What a responder sends: ACKs and NAKs, READ responses, atomic ACKs. */
static inline bool
rs_ib_op_is_response(uint8_t op)
{
    return op == RS_OP_ACK || op == RS_OP_READ_RESP || op == RS_OP_ATOMIC_ACK;
}

/* Short name of the transport service ("RC", "UC", ...). */
const char *rs_ib_transport_name(uint8_t opcode);

static inline enum rs_ib_transport
rs_ib_opcode_transport(uint8_t opcode)
{
    return (enum rs_ib_transport)(opcode >> 5);
}

/* Total length of the extension headers that hdrs selects. */
unsigned rs_ib_hdrs_len(uint16_t hdrs);

/* --- AETH syndrome (IBTA Vol 1, 9.7.5.1, Tables 43-45) --- */

enum rs_aeth_kind {
    RS_AETH_ACK = 0,
    RS_AETH_RNR_NAK = 1,
    RS_AETH_RESERVED = 2,
    RS_AETH_NAK = 3
};

enum rs_nak_code {
    RS_NAK_PSN_SEQ_ERROR = 0,
    RS_NAK_INVALID_REQUEST = 1,
    RS_NAK_REMOTE_ACCESS_ERROR = 2,
    RS_NAK_REMOTE_OPERATIONAL_ERROR = 3,
    RS_NAK_INVALID_RD_REQUEST = 4
};

#define RS_AETH_CREDITS_INVALID 31  /* credit code meaning "no credit limit" */

static inline enum rs_aeth_kind
rs_aeth_kind(uint8_t syndrome)
{
    return (enum rs_aeth_kind)((syndrome >> 5) & 3);
}

/* Microseconds an RNR NAK timer code asks the requester to wait. */
uint32_t rs_aeth_rnr_timer_us(uint8_t timer);
/* Receive credits a credit code stands for; -1 for code 31 (invalid). */
int rs_aeth_credits(uint8_t code);
/* The credit code that advertises at least `credits` without exceeding it. */
uint8_t rs_aeth_credit_code(uint32_t credits);
/* "PSN Sequence Error" ...; NULL for reserved codes. */
const char *rs_aeth_nak_name(uint8_t code);

#endif /* ROCESHARK_DISSECT_H */
