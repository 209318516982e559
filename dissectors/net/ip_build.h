/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ip_build.h - the IP header and the Internet checksum (RFC 791, RFC 8200,
 * RFC 1071) for the packet builders (ib/ib_encode.c, iwarp/iwarp_encode.c), so that
 * RoCEv2 over UDP and iWARP over TCP share one implementation. Not part of
 * the API.
 */
#ifndef ROCESHARK_IP_BUILD_H
#define ROCESHARK_IP_BUILD_H

#include <stdbool.h>
#include <stdint.h>

/* What an IPv4 or IPv6 header says, for a builder to fill in. */
struct ip_build {
    uint8_t family;         /* 4 or 6 */
    const uint8_t *src;     /* 4 or 16 bytes */
    const uint8_t *dst;
    uint8_t proto;          /* IPv6: next header */
    uint8_t tos;            /* IPv6: traffic class */
    uint8_t ttl;            /* IPv6: hop limit */
    uint16_t ip_id;         /* IPv4 only */
    bool df;                /* IPv4 only */
    uint32_t flow_label;    /* IPv6 only, 20 bits */
};

/* RS_IPV4_HDR_LEN or RS_IPV6_HDR_LEN (no options, no extension headers). */
uint32_t ip_build_hdr_len(uint8_t family);

/* Writes the header of an IP packet carrying l4_len bytes at h, with the
 * IPv4 header checksum. The caller has checked that the lengths fit. */
void ip_build_header(uint8_t *h, const struct ip_build *ip, uint32_t l4_len);

/* The RFC 1071 one's-complement sum of len bytes, added to sum (unfolded). */
uint32_t ip_csum_add(uint32_t sum, const uint8_t *p, uint32_t len);
/* Folds a sum to 16 bits and complements it. */
uint16_t ip_csum_fold(uint32_t sum);

/* The sum of the pseudo-header (RFC 793 3.1, RFC 8200 8.1) of l4_len bytes
 * of protocol proto behind the IP header at ip, to go on with the bytes. */
uint32_t ip_pseudo_header_sum(const uint8_t *ip, uint8_t proto, uint32_t l4_len);

/* The UDP or TCP checksum of the l4_len bytes at l4 (its checksum field
 * zero) behind the IP header at ip: the pseudo-header, then the bytes. A
 * UDP sender maps a result of 0 to 0xffff. */
uint16_t ip_build_l4_checksum(const uint8_t *ip, const uint8_t *l4, uint32_t l4_len);

#endif /* ROCESHARK_IP_BUILD_H */
