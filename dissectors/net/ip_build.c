/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ip_build.c - writing IPv4 (RFC 791) and IPv6 (RFC 8200) headers and the
 * Internet checksum (RFC 1071) for the packet builders.
 */
#include <string.h>

#include <roceshark/dissectors/encode.h>
#include <roceshark/dissectors/wire.h>

#include "net/ip_build.h"

uint32_t
ip_build_hdr_len(uint8_t family)
{
    return family == 6 ? RS_IPV6_HDR_LEN : RS_IPV4_HDR_LEN;
}

uint32_t
ip_csum_add(uint32_t sum, const uint8_t *p, uint32_t len)
{
    uint32_t i = 0;

    for (; i + 1 < len; i += 2)
        sum += rs_load_be16(p + i);
    if (i < len)
        sum += (uint32_t)p[i] << 8;
    return sum;
}

uint16_t
ip_csum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

static void
build_ipv4(uint8_t *h, const struct ip_build *ip, uint32_t total)
{
    h[0] = 0x45;
    h[1] = ip->tos;
    rs_store_be16(h + 2, (uint16_t)total);
    rs_store_be16(h + 4, ip->ip_id);
    rs_store_be16(h + 6, ip->df ? 0x4000 : 0);
    h[8] = ip->ttl;
    h[9] = ip->proto;
    h[10] = h[11] = 0;
    memcpy(h + 12, ip->src, 4);
    memcpy(h + 16, ip->dst, 4);
    rs_store_be16(h + 10, ip_csum_fold(ip_csum_add(0, h, RS_IPV4_HDR_LEN)));
}

static void
build_ipv6(uint8_t *h, const struct ip_build *ip, uint32_t payload)
{
    rs_store_be32(h, 6u << 28 | (uint32_t)ip->tos << 20 | (ip->flow_label & 0xfffff));
    rs_store_be16(h + 4, (uint16_t)payload);
    h[6] = ip->proto;
    h[7] = ip->ttl;
    memcpy(h + 8, ip->src, 16);
    memcpy(h + 24, ip->dst, 16);
}

void
ip_build_header(uint8_t *h, const struct ip_build *ip, uint32_t l4_len)
{
    if (ip->family == 6)
        build_ipv6(h, ip, l4_len);
    else
        build_ipv4(h, ip, RS_IPV4_HDR_LEN + l4_len);
}

uint32_t
ip_pseudo_header_sum(const uint8_t *ip, uint8_t proto, uint32_t l4_len)
{
    uint32_t sum = ip[0] >> 4 == 6 ? ip_csum_add(0, ip + 8, 32) : ip_csum_add(0, ip + 12, 8);

    return sum + proto + (l4_len >> 16) + (l4_len & 0xffff);
}

uint16_t
ip_build_l4_checksum(const uint8_t *ip, const uint8_t *l4, uint32_t l4_len)
{
    uint8_t proto = ip[0] >> 4 == 6 ? ip[6] : ip[9];

    return ip_csum_fold(ip_csum_add(ip_pseudo_header_sum(ip, proto, l4_len), l4, l4_len));
}
