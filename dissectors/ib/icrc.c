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

/* The ICRC of pkt from a masked copy of its headers: the pseudo header is
 * built in one buffer and topped up with the packet's first bytes, so that
 * small packets take a single call and big ones reach the folding path at
 * once. For layouts icrc_in_place() does not know. */
static uint32_t
icrc_from_copy(const struct rs_packet *pkt)
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

/* The same CRC without the copy, for headers laid out one after the other:
 * the packet's own bytes from 8 before the L3 header (or from the LRH) to
 * the ICRC, with the variant fields OR'ed to ones by a mask made for the
 * layout. The 8 bytes before the L3 header (the link layer's) stand for the
 * LRH, all ones. A copy of the headers cost as much as the CRC itself: the
 * vector loads waited for the byte stores that masked it. */
#define MASK_BYTES 96       /* the longest mask, 8 + 60 + 8 + 12, rounded up to 16 */
struct icrc_mask {
    uint8_t b[MASK_BYTES];
    uint32_t len;
};
/* Indexed by L3 length: IPv4's from 20 by 4, IPv6's (with extensions) from 40 by 8. */
static struct icrc_mask ipv4_masks[(MAX_L3_MASKED - 20) / 4 + 1];
static struct icrc_mask ipv6_masks[(MAX_L3_MASKED - 40) / 8 + 1];
static struct icrc_mask grh_mask, lrh_mask;

/* A layout's mask: the masked pseudo header of an all-zero packet. */
static void
mask_init(struct icrc_mask *m, enum rs_layer l3, uint32_t l3_len, bool udp)
{
    static const uint8_t zeros[MAX_L3_MASKED];
    uint32_t n = 8;

    memset(m->b, 0, sizeof(m->b));
    if (l3 == RS_LAYER_LRH) {
        m->b[0] = 0xf0;         /* VL */
    } else {
        memset(m->b, 0xff, 8);
        n += l3 == RS_LAYER_IPV4 ? put_ipv4(m->b + n, zeros, l3_len)
                                 : put_grh(m->b + n, zeros, l3_len);
    }
    if (udp) {
        m->b[n + 6] = m->b[n + 7] = 0xff;
        n += 8;
    }
    m->b[n + 4] = 0xff;         /* FECN, BECN, Resv6a */
    m->len = n + RS_BTH_LEN;
}

__attribute__((constructor)) static void
icrc_masks_init(void)
{
    for (uint32_t i = 0; i < sizeof(ipv4_masks) / sizeof(ipv4_masks[0]); i++)
        mask_init(&ipv4_masks[i], RS_LAYER_IPV4, 20 + 4 * i, true);
    for (uint32_t i = 0; i < sizeof(ipv6_masks) / sizeof(ipv6_masks[0]); i++)
        mask_init(&ipv6_masks[i], RS_LAYER_IPV6, 40 + 8 * i, true);
    mask_init(&grh_mask, RS_LAYER_GRH, RS_GRH_LEN, false);
    mask_init(&lrh_mask, RS_LAYER_LRH, 0, false);
}

/* The mask for pkt's layout and where the CRC starts, or NULL when its
 * headers are not one after the other (or the L3 header starts fewer than
 * 8 bytes into the frame, as in a raw IP capture). */
static const struct icrc_mask *
layout_mask(const struct rs_packet *pkt, uint32_t *start)
{
    const struct rs_span *l3;
    const struct icrc_mask *m;
    uint32_t next;

    if (pkt->encap == RS_ENCAP_ROCEV2) {
        bool v4 = rs_packet_has(pkt, RS_LAYER_IPV4);
        l3 = &pkt->span[v4 ? RS_LAYER_IPV4 : RS_LAYER_IPV6];
        if (v4 ? l3->len < 20 || l3->len % 4 != 0 : l3->len < 40 || l3->len % 8 != 0)
            return NULL;
        m = v4 ? &ipv4_masks[(l3->len - 20) / 4] : &ipv6_masks[(l3->len - 40) / 8];
        if (pkt->span[RS_LAYER_UDP].off != l3->off + l3->len)
            return NULL;
        next = pkt->span[RS_LAYER_UDP].off + 8;
    } else if (rs_packet_has(pkt, RS_LAYER_GRH)) {
        l3 = &pkt->span[RS_LAYER_GRH];
        m = &grh_mask;
        next = l3->off + RS_GRH_LEN;
    } else {
        *start = pkt->span[RS_LAYER_LRH].off;
        return pkt->span[RS_LAYER_BTH].off == *start + RS_LRH_LEN ? &lrh_mask : NULL;
    }
    if (l3->off < 8 || pkt->span[RS_LAYER_BTH].off != next)
        return NULL;
    *start = l3->off - 8;
    return m;
}

/* The ICRC of pkt, as the CRC value (before it is laid out on the wire). */
static uint32_t
icrc_compute(const struct rs_packet *pkt)
{
    uint32_t start, end = pkt->span[RS_LAYER_ICRC].off;
    const struct icrc_mask *m = layout_mask(pkt, &start);

    if (m == NULL)
        return icrc_from_copy(pkt);
    return rs_crc32_final(rs_crc32_update_masked(RS_CRC32_INIT, pkt->frame->data + start,
                                                 end - start, m->b, m->len));
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
