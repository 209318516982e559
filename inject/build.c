/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * build.c - a spec'd packet into bytes: the encoder does the RoCEv2 part
 * (IP header to ICRC), this adds the Ethernet header and the deliberate
 * faults a spec asks for.
 */
#include <string.h>

#include <roceshark/dissect.h>
#include <roceshark/inject.h>
#include <roceshark/wire.h>

#define ETH_HDR_LEN 14

void
rs_inject_packet_init(struct rs_inject_packet *p)
{
    memset(p, 0, sizeof(*p));
    memcpy(p->eth_src, (const uint8_t[]){0x02, 0, 0, 0, 0, 0x01}, 6);
    memcpy(p->eth_dst, (const uint8_t[]){0x02, 0, 0, 0, 0, 0x02}, 6);
    p->route.family = 4;
    memcpy(p->route.src, (const uint8_t[]){10, 0, 0, 1}, 4);
    memcpy(p->route.dst, (const uint8_t[]){10, 0, 0, 2}, 4);
    p->route.sport = 49152;
    p->route.dport = RS_ROCEV2_UDP_PORT;
    p->route.ttl = 64;
    p->route.df = true;
    p->f.opcode = 0x04;         /* RC SEND Only */
    p->f.pkey = 0xffff;
    p->f.dest_qp = 0x11;
}

uint32_t
rs_inject_build(const struct rs_inject_packet *p, bool eth, uint8_t *buf, uint32_t cap)
{
    uint32_t head = eth ? ETH_HDR_LEN : 0;

    if (cap < head)
        return 0;
    uint32_t n = rs_encode_rocev2(buf + head, cap - head, &p->route, &p->f, p->payload,
                                  p->payload_len, NULL, NULL);
    if (n == 0)
        return 0;
    if (p->bad_icrc)
        buf[head + n - 1] ^= 0xff;     /* the ICRC's last byte: still 4 bytes, now wrong */
    if (eth) {
        memcpy(buf, p->eth_dst, 6);
        memcpy(buf + 6, p->eth_src, 6);
        rs_store_be16(buf + 12, p->route.family == 6 ? 0x86dd : 0x0800);
    }
    return head + n;
}
