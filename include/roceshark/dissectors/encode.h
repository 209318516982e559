/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * encode.h - build RoCEv2 packets: the other direction of the decoder.
 *
 * The builder takes the header layout of every opcode from the same IBA
 * opcode table the decoder reads (rs_ib_opcode_info), writes the BTH and
 * the extended headers in IBTA order, the payload and the pad, and
 * computes the ICRC with the decoder's own ICRC code over the decoded view
 * it fills as it goes. The injector and the software RC transport build
 * every packet here, so what we send is, by construction, what we parse.
 */
#ifndef ROCESHARK_ENCODE_H
#define ROCESHARK_ENCODE_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/packet.h>

#define RS_IPV4_HDR_LEN 20
#define RS_IPV6_HDR_LEN 40
#define RS_UDP_HDR_LEN 8
/* The IPv4 and UDP headers in front of the BTH of a RoCEv2 packet. */
#define RS_ROCEV2_IPV4_OVERHEAD (RS_IPV4_HDR_LEN + RS_UDP_HDR_LEN)

/* The fields of an IBA transport packet. Fields of extended headers that
 * the opcode does not carry are ignored; the pad count follows from the
 * payload length. */
struct rs_ib_fields {
    uint8_t opcode;
    bool se;                /* solicited event */
    bool migreq;
    bool ackreq;
    bool fecn, becn;
    uint8_t tver;           /* transport header version: 0 */
    uint16_t pkey;
    uint32_t dest_qp;       /* 24 bits */
    uint32_t psn;           /* 24 bits */
    struct {
        uint64_t va;
        uint32_t rkey;
        uint32_t len;
    } reth;
    struct {
        uint64_t va;
        uint32_t rkey;
        uint64_t swap_add;  /* swap data (CmpSwap) or add data (FetchAdd) */
        uint64_t compare;
    } atomic;
    struct {
        uint8_t syndrome;
        uint32_t msn;
    } aeth;
    uint64_t atomic_ack_orig;
    uint32_t imm;           /* ImmDt, sent big-endian */
    uint32_t ieth_rkey;
    struct {
        uint32_t qkey;
        uint32_t src_qp;
    } deth;
    uint32_t rdeth_eecnxt;
    uint32_t xrc_srq;
    /* Pad bytes after the payload: those the payload needs (BTH PadCnt), unless
     * pad_given, when pad_len bytes follow (0-3 keep the packet's words whole;
     * more make it malformed on purpose) and PadCnt says pad_len & 3. */
    bool pad_given;
    uint8_t pad_len;
    /* Leave the checksums and CRCs to the caller's rs_encode_finish(): for a caller that
     * writes more into the packet first (the injector), so they are computed once. */
    bool unfinished;
};

/* The GRH of RoCEv1 and of routed InfiniBand (IBTA Vol 1, 8.3). */
struct rs_grh_fields {
    uint8_t tclass;
    uint32_t flow_label;    /* 20 bits */
    uint8_t hop_limit;
    uint8_t sgid[16], dgid[16];
};

/* The LRH of native InfiniBand (IBTA Vol 1, 7.7); LNH and PktLen are computed. */
struct rs_lrh_fields {
    uint8_t vl, lver, sl;
    uint16_t dlid, slid;
};

/* The IP and UDP part of a RoCEv2 packet. */
struct rs_roce_route {
    uint8_t family;         /* 4 or 6 */
    uint8_t src[16];        /* IPv4 addresses use the first four bytes */
    uint8_t dst[16];
    uint16_t sport;         /* flow entropy; any value */
    uint16_t dport;         /* RS_ROCEV2_UDP_PORT */
    uint8_t tos;            /* DSCP and ECN (IPv6: traffic class) */
    uint8_t ttl;            /* IPv6: hop limit */
    uint16_t ip_id;         /* IPv4 identification: covered by the ICRC */
    bool df;                /* IPv4 don't-fragment */
    uint32_t flow_label;    /* IPv6, 20 bits */
};

/* Bytes of the transport packet: BTH, extended headers, payload, pad, ICRC. */
uint32_t rs_encode_ib_len(uint8_t opcode, uint32_t payload_len);

/* Writes the BTH and the extended headers of f at buf (which has room for
 * RS_BTH_LEN plus the opcode's headers); the pad count is the one that
 * payload_len needs. Returns the bytes written. */
uint32_t rs_encode_ib_headers(uint8_t *buf, const struct rs_ib_fields *f,
                              uint32_t payload_len);

/* Builds a whole RoCEv2 packet, from the IP header to the ICRC, into buf of
 * cap bytes: headers from r and f, then payload_len bytes from payload
 * (zeros when payload is NULL), zero pad, and the ICRC least significant
 * byte first. The IPv4 header checksum is filled; the UDP checksum is 0 on
 * IPv4 and computed on IPv6. When view is not NULL it receives the decoded
 * view of the result (its frame in *frame, which must outlive it). Returns
 * the packet length, or 0 when it does not fit in cap or in an IP packet. */
uint32_t rs_encode_rocev2(uint8_t *buf, uint32_t cap, const struct rs_roce_route *r,
                          const struct rs_ib_fields *f, const void *payload,
                          uint32_t payload_len, struct rs_frame *frame,
                          struct rs_packet *view);

/* A RoCEv1 packet (what follows the Ethernet header of Ethertype 0x8915): the GRH,
 * the transport packet and the ICRC. Arguments and result as rs_encode_rocev2(). */
uint32_t rs_encode_rocev1(uint8_t *buf, uint32_t cap, const struct rs_grh_fields *g,
                          const struct rs_ib_fields *f, const void *payload,
                          uint32_t payload_len, struct rs_frame *frame, struct rs_packet *view);

/* A native InfiniBand packet: LRH, the GRH when g is not NULL, the transport packet,
 * ICRC and VCRC. Arguments and result as rs_encode_rocev2(). */
uint32_t rs_encode_ib(uint8_t *buf, uint32_t cap, const struct rs_lrh_fields *l,
                      const struct rs_grh_fields *g, const struct rs_ib_fields *f,
                      const void *payload, uint32_t payload_len, struct rs_frame *frame,
                      struct rs_packet *view);

/* ERF records (the Endace format, read by decode's link stage): what types a native
 * InfiniBand packet in a file, as no pcap link type tshark reads does. */
#define RS_ERF_HDR_LEN 16u
#define RS_ERF_TYPE_INFINIBAND 21
#define RS_ERF_FLAG_VLEN 0x04           /* the record is as long as it says, not padded */

/* Writes the ERF record header of a packet of len bytes at h: the time sec.nsec as ERF
 * keeps it (32.32 fixed point, little-endian), type, flags, record and wire lengths. */
void rs_encode_erf_header(uint8_t *h, uint8_t type, uint8_t flags, int64_t sec, uint32_t nsec,
                          uint32_t len);

/* Recomputes what depends on the rest of a built packet, from its view: the IPv4
 * header checksum, the ICRC, the VCRC, (IPv6) the UDP checksum and the TCP checksum,
 * in that order,
 * except those keep names. Callers that change fields of a built packet in place
 * (the injector, the fault engine) call it after. */
#define RS_ENCODE_KEEP_IP_CHECKSUM 0x1u
#define RS_ENCODE_KEEP_UDP_CHECKSUM 0x2u
#define RS_ENCODE_KEEP_ICRC 0x4u
#define RS_ENCODE_KEEP_VCRC 0x8u
#define RS_ENCODE_KEEP_TCP_CHECKSUM 0x10u
void rs_encode_finish(struct rs_packet *view, unsigned keep);

/* Recomputes and stores the ICRC of a RoCEv2 packet already laid out in buf
 * (IP header first, len bytes), e.g. after a field was changed in place.
 * Returns false when buf does not decode as RoCEv2. */
bool rs_encode_fix_icrc(uint8_t *buf, uint32_t len);

#endif /* ROCESHARK_ENCODE_H */
