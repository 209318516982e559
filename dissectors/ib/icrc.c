/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icrc.c - computing and checking the ICRC and VCRC.
 *
 * The ICRC (IBTA Vol 1, 7.8.1; RoCE: Annex A16.4, A17.3.3) is a CRC-32 over
 * the packet with its variant fields replaced by ones:
 *   - in place of the LRH, 8 bytes of 0xFF, whenever a GRH or IP header is
 *     present (routers rewrite the LRH); a local IB packet keeps its LRH
 *     with only VL masked;
 *   - GRH / IPv6: traffic class, flow label and hop limit;
 *     IPv4: TOS, TTL and header checksum;
 *   - UDP: the checksum;
 *   - BTH: byte 4 (FECN, BECN and Resv6a);
 * then the payload and pad. It is sent least-significant byte first.
 * The VCRC (7.8.2) is a CRC-16 over everything from the LRH to the ICRC.
 */
#include <string.h>

#include <roceshark/crc.h>

#include "decode_int.h"
#include "fields/fields_int.h"

#define MAX_L3_MASKED 60    /* IPv4 with options, or an IPv6 header with extensions */
#define PSEUDO_MAX (8 + MAX_L3_MASKED + 8 + RS_BTH_LEN)
#define FILL_TO 128         /* bytes gathered before the CRC runs: one PCLMUL-sized call */

/* The masked copy of the IPv4 header: TOS, TTL and checksum set to ones. */
static uint32_t
put_ipv4(uint8_t *b, const uint8_t *h, uint32_t len)
{
    memcpy(b, h, len);
    b[1] = 0xff;
    b[8] = 0xff;
    b[10] = b[11] = 0xff;
    return len;
}

/* The GRH and the IPv6 header share a layout for the masked fields:
 * traffic class, flow label and hop limit. IPv6 extensions follow as is. */
static uint32_t
put_grh(uint8_t *b, const uint8_t *h, uint32_t len)
{
    memcpy(b, h, len);
    b[0] |= 0x0f;
    b[1] = b[2] = b[3] = 0xff;
    b[7] = 0xff;
    return len;
}

/* The ICRC of pkt, as the CRC value (before it is laid out on the wire).
 * The masked pseudo header is built in one buffer and topped up with the
 * packet's first bytes, so that small packets take a single call and big
 * ones reach the folding path at once. */
static uint32_t
icrc_compute(const struct rs_packet *pkt)
{
    const uint8_t *d = pkt->frame->data;
    uint8_t buf[PSEUDO_MAX + FILL_TO];
    uint32_t n = 0;

    if (pkt->encap == RS_ENCAP_ROCEV2) {
        memset(buf, 0xff, 8);
        n = 8;
        if (rs_packet_has(pkt, RS_LAYER_IPV4))
            n += put_ipv4(buf + n, rs_packet_at(pkt, RS_LAYER_IPV4),
                          pkt->span[RS_LAYER_IPV4].len);
        else
            n += put_grh(buf + n, rs_packet_at(pkt, RS_LAYER_IPV6),
                         pkt->span[RS_LAYER_IPV6].len);
        memcpy(buf + n, rs_packet_at(pkt, RS_LAYER_UDP), 8);
        buf[n + 6] = buf[n + 7] = 0xff;
        n += 8;
    } else if (rs_packet_has(pkt, RS_LAYER_GRH)) {
        memset(buf, 0xff, 8);
        n = 8 + put_grh(buf + 8, rs_packet_at(pkt, RS_LAYER_GRH), RS_GRH_LEN);
    } else {
        memcpy(buf, rs_packet_at(pkt, RS_LAYER_LRH), RS_LRH_LEN);
        buf[0] |= 0xf0;         /* VL */
        n = RS_LRH_LEN;
    }
    uint32_t bth = pkt->span[RS_LAYER_BTH].off, end = pkt->span[RS_LAYER_ICRC].off;
    memcpy(buf + n, d + bth, RS_BTH_LEN);
    buf[n + 4] = 0xff;          /* FECN, BECN, Resv6a */
    n += RS_BTH_LEN;
    uint32_t rest = bth + RS_BTH_LEN, more = end - rest < FILL_TO ? end - rest : FILL_TO;
    memcpy(buf + n, d + rest, more);
    uint32_t crc = rs_crc32_update(RS_CRC32_INIT, buf, n + more);
    crc = rs_crc32_update(crc, d + rest + more, end - rest - more);
    return rs_crc32_final(crc);
}

/* An L3 header longer than we mask in a stack buffer cannot be checked. */
static bool
icrc_computable(const struct rs_packet *pkt)
{
    if (!rs_packet_has(pkt, RS_LAYER_ICRC) || !rs_packet_has(pkt, RS_LAYER_BTH))
        return false;
    if (pkt->encap == RS_ENCAP_ROCEV2)
        return rs_packet_has(pkt, RS_LAYER_UDP) &&
               ((rs_packet_has(pkt, RS_LAYER_IPV6) &&
                 pkt->span[RS_LAYER_IPV6].len <= MAX_L3_MASKED) ||
                (rs_packet_has(pkt, RS_LAYER_IPV4) &&
                 pkt->span[RS_LAYER_IPV4].len <= MAX_L3_MASKED));
    return rs_packet_has(pkt, RS_LAYER_GRH) || rs_packet_has(pkt, RS_LAYER_LRH);
}

bool
rs_icrc_compute(const struct rs_packet *pkt, uint32_t *icrc)
{
    if (!icrc_computable(pkt))
        return false;
    *icrc = icrc_compute(pkt);
    return true;
}

void
decode_check_crcs(struct rs_packet *pkt)
{
    const uint8_t *d = pkt->frame->data;

    if (icrc_computable(pkt)) {
        pkt->icrc_computed = icrc_compute(pkt);
        uint32_t wire = rs_load_le32(rs_packet_at(pkt, RS_LAYER_ICRC));
        pkt->icrc_status = wire == pkt->icrc_computed ? RS_CKSUM_GOOD : RS_CKSUM_BAD;
    } else if (rs_packet_has(pkt, RS_LAYER_BTH)) {
        /* Cut by the snapshot: the ICRC was sent but we cannot check it. */
        pkt->icrc_status = (pkt->flags & RS_PKT_SNAPLEN) ? RS_CKSUM_UNVERIFIED
                                                          : RS_CKSUM_NOT_PRESENT;
    }

    if (rs_packet_has(pkt, RS_LAYER_VCRC) && rs_packet_has(pkt, RS_LAYER_LRH)) {
        uint32_t lrh = pkt->span[RS_LAYER_LRH].off;
        uint32_t vcrc = pkt->span[RS_LAYER_VCRC].off;
        pkt->vcrc_computed = rs_crc16_ib(d + lrh, vcrc - lrh);
        pkt->vcrc_status = rs_load_le16(d + vcrc) == pkt->vcrc_computed ? RS_CKSUM_GOOD
                                                                          : RS_CKSUM_BAD;
    } else if (rs_packet_has(pkt, RS_LAYER_LRH)) {
        pkt->vcrc_status = (pkt->flags & RS_PKT_SNAPLEN) ? RS_CKSUM_UNVERIFIED
                                                          : RS_CKSUM_NOT_PRESENT;
    }
}

const struct rs_field rs_fields_ib_tail[] = {
    {"infiniband.invariant.crc", "Invariant CRC", RS_FT_UINT32, RS_BASE_HEX, 0, NULL,
     "ICRC as sent (read big-endian, as Wireshark shows it)", RS_LAYER_ICRC, 0, 4, NULL, 1},
    {"infiniband.variant.crc", "Variant CRC", RS_FT_UINT16, RS_BASE_HEX, 0, NULL,
     "VCRC as sent (read big-endian, as Wireshark shows it)", RS_LAYER_VCRC, 0, 2, NULL, 1},
    RS_F_END,
};
