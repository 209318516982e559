/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * encode_iwarp.h - build iWARP packets: the other direction of the iWARP
 * stage (iwarp.h).
 *
 * One call builds one IPv4 or IPv6 packet (no link header) with a TCP
 * header and either an MPA Request or Reply frame (RFC 5044 7.1), exactly
 * one FPDU (RFC 5044 4.1): ULPDU_Length, the DDP header (RFC 5041), the
 * RDMAP header (RFC 5040, RFC 7306), the payload, the pad and the CRC-32C,
 * or stream octets as the caller gives them. No markers. The layouts and
 * the CRC are the decoder's own (dissectors/iwarp/ddp.c, mpa.c), so what we
 * build is what we parse. The fields can lie on purpose (a bad CRC, a wrong
 * ULPDU_Length, the other buffer model, any queue number) to build test
 * traffic for the decoder and its peers.
 *
 * The caller keeps the TCP stream consistent: r->seq of each segment is the
 * previous one's plus its TCP payload (the packet length less the IP and
 * TCP headers, rs_encode_tcp_payload_len()).
 */
#ifndef ROCESHARK_ENCODE_IWARP_H
#define ROCESHARK_ENCODE_IWARP_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/iwarp.h>

#define RS_TCP_HDR_LEN 20

/* TCP flag bits (byte 13 of the header). */
#define RS_TCP_FIN 0x01
#define RS_TCP_SYN 0x02
#define RS_TCP_RST 0x04
#define RS_TCP_PSH 0x08
#define RS_TCP_ACK 0x10
#define RS_TCP_URG 0x20

/* The IP and TCP part of an iWARP packet. */
struct rs_tcp_route {
    uint8_t family;         /* 4 or 6 */
    uint8_t src[16];        /* IPv4 addresses use the first four bytes */
    uint8_t dst[16];
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;          /* RS_TCP_*; 0 means ACK|PSH */
    uint16_t window;
    uint8_t tos;            /* DSCP and ECN (IPv6: traffic class) */
    uint8_t ttl;            /* IPv6: hop limit */
    uint16_t ip_id;         /* IPv4 identification */
    bool df;                /* IPv4 don't-fragment */
};

/* The RDMAP headers that follow DDP's, by opcode. */

/* Read Request (RFC 5040 4). */
struct rs_rdmap_read_req {
    uint32_t sink_stag;
    uint64_t sink_to;
    uint32_t size;
    uint32_t src_stag;
    uint64_t src_to;
};

/* Terminate (RFC 5040 4): its control field only; the terminated headers
 * it may carry are the payload. */
struct rs_rdmap_terminate {
    uint8_t layer;          /* 4 bits: 0 RDMAP, 1 DDP, 2 LLP */
    uint8_t etype;          /* 4 bits */
    uint8_t errcode;
    bool hdrct_m, hdrct_d, hdrct_r;
};

/* Atomic Request (RFC 7306). */
struct rs_rdmap_atomic_req {
    uint8_t opcode;         /* 4 bits: 0 FetchAdd, 2 CmpSwap */
    uint32_t req_id;
    uint32_t stag;
    uint64_t to;
    uint64_t add_swap;      /* Add or Swap Data */
    uint64_t add_swap_mask;
    uint64_t compare;
    uint64_t compare_mask;
};

/* Atomic Response (RFC 7306). */
struct rs_rdmap_atomic_resp {
    uint32_t orig_req_id;
    uint64_t orig_value;
};

/* The DDP and RDMAP fields of one FPDU, and how MPA frames it. Fields the
 * opcode does not carry are ignored. rs_iwarp_fields_init() gives the
 * values a conforming sender uses; change any of them after it. */
struct rs_iwarp_fields {
    uint8_t opcode;         /* enum rs_rdmap_opcode, 4 bits */
    uint8_t rdmap_version;  /* RV, 2 bits: 1 */
    uint8_t ddp_version;    /* DV, 2 bits: 1 */
    bool last;              /* L: last segment of the message */
    bool tagged;            /* T: the opcode's model (Write, Read Response) */
    /* Tagged buffer model (RFC 5041 5.2). */
    uint32_t stag;
    uint64_t to;
    /* Untagged buffer model (RFC 5041 5.3). RsvdULP holds the STag to
     * invalidate for Send with Invalidate (RFC 5040 4) and 0 otherwise. */
    uint32_t inval_stag;
    uint32_t qn;            /* the opcode's queue: 0 Send, 1 Read Request, 2 Terminate,
                             * 3 Atomic */
    uint32_t msn;
    uint32_t mo;
    struct rs_rdmap_read_req read_req;
    struct rs_rdmap_terminate term;
    uint64_t immediate;     /* Immediate Data and Immediate Data with SE (RFC 7306) */
    struct rs_rdmap_atomic_req atomic_req;
    struct rs_rdmap_atomic_resp atomic_resp;
    /* MPA framing (RFC 5044 4.1). */
    struct {
        bool crc;           /* CRCs were negotiated; without them the field is 0 */
        bool bad_crc;       /* one bit of the CRC flipped */
        bool force_crc;     /* write crc_value instead, as iwarp_mpa.crc shows it */
        uint32_t crc_value;
        bool force_ulpdu_len;   /* write ulpdu_len instead of the true length */
        uint16_t ulpdu_len;
    } mpa;
};

/* Zeros f and sets what a conforming sender of opcode op sends: versions
 * 1, L set, the opcode's buffer model and queue, MPA CRCs on. */
void rs_iwarp_fields_init(struct rs_iwarp_fields *f, uint8_t opcode);

/* The DDP queue number of an untagged opcode (RFC 5040, RFC 7306); 0 for the
 * tagged ones, which have none. */
uint32_t rs_rdmap_queue(uint8_t opcode);

/* Octets of the FPDU of f with payload_len payload octets (ULPDU_Length to
 * CRC), or 0 when its ULPDU would not fit in ULPDU_Length. */
uint32_t rs_encode_fpdu_len(const struct rs_iwarp_fields *f, uint32_t payload_len);

/* Writes that FPDU at buf (cap bytes); payload NULL sends zeros. Returns its
 * length, or 0 when it does not fit. */
uint32_t rs_encode_fpdu(uint8_t *buf, uint32_t cap, const struct rs_iwarp_fields *f,
                        const void *payload, uint32_t payload_len);

/* An FPDU around a ULPDU the caller built, any octets (ulpdu NULL: zeros):
 * ULPDU_Length, the ULPDU, the pad and the CRC-32C, or 0 in the CRC field
 * when crc is false (as when CRCs were not negotiated). Returns its length,
 * or 0 when it does not fit in cap or ULPDU_Length. */
uint32_t rs_encode_mpa_fpdu(uint8_t *buf, uint32_t cap, const void *ulpdu, uint32_t ulpdu_len,
                            bool crc);

/* One IP packet from r carrying len octets of TCP payload as they are (data
 * NULL: zeros): a SYN, FIN or bare ACK with none, or stream bytes the caller
 * framed itself (FPDUs cut across segments, markers). Returns the packet
 * length, or 0 when it does not fit in cap or in an IP packet. */
uint32_t rs_encode_tcp_segment(uint8_t *buf, uint32_t cap, const struct rs_tcp_route *r,
                               const void *data, uint32_t len);

/* One IP packet from r carrying one FPDU: IP header (IPv4 with its
 * checksum), a 20-octet TCP header with its checksum, the FPDU. Returns the
 * packet length, or 0 when it does not fit in cap or in an IP packet. */
uint32_t rs_encode_iwarp(uint8_t *buf, uint32_t cap, const struct rs_tcp_route *r,
                         const struct rs_iwarp_fields *f, const void *payload,
                         uint32_t payload_len);

/* One IP packet from r carrying an MPA Request ("MPA ID Req Frame") or,
 * with reply, a Reply ("MPA ID Rep Frame"): flags (RS_MPA_FLAG_*), revision,
 * PD_Length and pd_len octets of private data (zeros when pd is NULL; not
 * held to RFC 5044's 512). Returns the packet length, or 0. */
uint32_t rs_encode_mpa_frame(uint8_t *buf, uint32_t cap, const struct rs_tcp_route *r,
                             bool reply, uint8_t flags, uint8_t revision, const void *pd,
                             uint16_t pd_len);

/* The TCP payload of a packet these functions built (len octets): what the
 * next segment's sequence number advances by. */
uint32_t rs_encode_tcp_payload_len(const struct rs_tcp_route *r, uint32_t len);

#endif /* ROCESHARK_ENCODE_IWARP_H */
