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

#include <roceshark/dissectors/crc.h>
#include <roceshark/dissectors/mad.h>

#include "decode_int.h"
#include "fields/fields_int.h"

#define MAX_L3_MASKED 60    /* IPv4 with options, or an IPv6 header with extensions */
#define PSEUDO_MAX (8 + MAX_L3_MASKED + 8 + RS_BTH_LEN)
#define FILL_TO 128         /* bytes gathered before the CRC runs: one PCLMUL-sized call */

/* The variant fields of each layout, as a mask the CRC ORs over the
 * headers: the LRH (or the 8 bytes of ones standing for it), the L3 header,
 * UDP, then the BTH. The CRC runs over the packet's own bytes where the
 * headers lie one after the other, the mask applied in a register (a copy
 * of the headers, masked byte by byte, cost as much as the CRC itself: the
 * vector loads waited for the byte stores); otherwise over a copy of the
 * headers, under the same mask. */
#define MASK_BYTES 96       /* the longest mask, 8 + 60 + 8 + 12, rounded up to 16 */
struct icrc_mask {
    uint8_t b[MASK_BYTES];
    uint32_t len;
};
/* Indexed by L3 length from 20 (IPv4, with options) or 40 (IPv6, with
 * extensions) by 4: header lengths are multiples of 4. */
static struct icrc_mask ipv4_masks[(MAX_L3_MASKED - 20) / 4 + 1];
static struct icrc_mask ipv6_masks[(MAX_L3_MASKED - 40) / 4 + 1];
static struct icrc_mask grh_mask, lrh_mask;

/* A layout's mask. IPv4: TOS, TTL and checksum. The GRH and the IPv6 header
 * share a layout for the masked fields: traffic class, flow label and hop
 * limit (IPv6 extensions are covered as they are). */
static void
mask_init(struct icrc_mask *m, enum rs_layer l3, uint32_t l3_len)
{
    uint8_t *b = m->b;
    uint32_t n = 8;

    memset(b, 0, sizeof(m->b));
    if (l3 == RS_LAYER_LRH) {
        b[0] = 0xf0;            /* VL */
    } else {
        memset(b, 0xff, 8);
        if (l3 == RS_LAYER_IPV4) {
            b[n + 1] = b[n + 8] = b[n + 10] = b[n + 11] = 0xff;
        } else {
            b[n] = 0x0f;
            b[n + 1] = b[n + 2] = b[n + 3] = b[n + 7] = 0xff;
        }
        n += l3_len;
    }
    if (l3 == RS_LAYER_IPV4 || l3 == RS_LAYER_IPV6) {
        b[n + 6] = b[n + 7] = 0xff;     /* the UDP checksum */
        n += 8;
    }
    b[n + 4] = 0xff;            /* FECN, BECN, Resv6a */
    m->len = n + RS_BTH_LEN;
}

__attribute__((constructor)) static void
icrc_masks_init(void)
{
    for (uint32_t i = 0; i < sizeof(ipv4_masks) / sizeof(ipv4_masks[0]); i++)
        mask_init(&ipv4_masks[i], RS_LAYER_IPV4, 20 + 4 * i);
    for (uint32_t i = 0; i < sizeof(ipv6_masks) / sizeof(ipv6_masks[0]); i++)
        mask_init(&ipv6_masks[i], RS_LAYER_IPV6, 40 + 4 * i);
    mask_init(&grh_mask, RS_LAYER_GRH, RS_GRH_LEN);
    mask_init(&lrh_mask, RS_LAYER_LRH, 0);
}

/* The mask for pkt's layout, and in *l3 the header the 8 bytes of ones
 * stand before (NULL when the LRH itself leads); NULL when the ICRC cannot
 * be computed: no ICRC or BTH, or an L3 header longer than we mask. */
static const struct icrc_mask *
layout_mask(const struct rs_packet *pkt, const struct rs_span **l3)
{
    if (!rs_packet_has(pkt, RS_LAYER_ICRC) || !rs_packet_has(pkt, RS_LAYER_BTH))
        return NULL;
    if (pkt->encap == RS_ENCAP_ROCEV2) {
        bool v4 = rs_packet_has(pkt, RS_LAYER_IPV4);
        if (!rs_packet_has(pkt, RS_LAYER_UDP) || !(v4 || rs_packet_has(pkt, RS_LAYER_IPV6)))
            return NULL;
        *l3 = &pkt->span[v4 ? RS_LAYER_IPV4 : RS_LAYER_IPV6];
        uint32_t len = (*l3)->len, min = v4 ? 20 : 40;
        if (len < min || len > MAX_L3_MASKED || len % 4 != 0)
            return NULL;
        return v4 ? &ipv4_masks[(len - min) / 4] : &ipv6_masks[(len - min) / 4];
    }
    if (rs_packet_has(pkt, RS_LAYER_GRH)) {
        *l3 = &pkt->span[RS_LAYER_GRH];
        return &grh_mask;
    }
    *l3 = NULL;
    return rs_packet_has(pkt, RS_LAYER_LRH) ? &lrh_mask : NULL;
}

/* Appends the n bytes at p to buf at *at. */
static void
gather(uint8_t *buf, uint32_t *at, const uint8_t *p, uint32_t n)
{
    memcpy(buf + *at, p, n);
    *at += n;
}

bool
rs_icrc_compute(const struct rs_packet *pkt, uint32_t *icrc)
{
    const uint8_t *d = pkt->frame->data;
    const struct rs_span *l3;
    const struct icrc_mask *m = layout_mask(pkt, &l3);

    if (m == NULL)
        return false;
    bool udp = pkt->encap == RS_ENCAP_ROCEV2;
    uint32_t bth = pkt->span[RS_LAYER_BTH].off, end = pkt->span[RS_LAYER_ICRC].off;
    /* In place: the headers one after the other, the L3 header at least 8
     * bytes into the frame (not so in a raw IP capture). */
    if (l3 == NULL ? bth == pkt->span[RS_LAYER_LRH].off + RS_LRH_LEN
                   : l3->off >= 8 && bth == l3->off + l3->len + (udp ? 8 : 0) &&
                         (!udp || pkt->span[RS_LAYER_UDP].off == l3->off + l3->len)) {
        uint32_t start = l3 != NULL ? l3->off - 8 : pkt->span[RS_LAYER_LRH].off;
        *icrc = rs_crc32_final(rs_crc32_update_masked(RS_CRC32_INIT, d + start, end - start,
                                                      m->b, m->len));
        return true;
    }
    /* Otherwise the headers gathered, topped up with the packet's first
     * bytes, so that small packets take a single call and big ones reach the
     * folding path at once. */
    uint8_t buf[PSEUDO_MAX + FILL_TO];
    uint32_t n = 0;
    if (l3 == NULL) {
        gather(buf, &n, rs_packet_at(pkt, RS_LAYER_LRH), RS_LRH_LEN);
    } else {
        memset(buf, 0xff, 8);
        n = 8;
        gather(buf, &n, d + l3->off, l3->len);
        if (udp)
            gather(buf, &n, rs_packet_at(pkt, RS_LAYER_UDP), 8);
    }
    gather(buf, &n, d + bth, RS_BTH_LEN);
    uint32_t rest = bth + RS_BTH_LEN, more = end - rest < FILL_TO ? end - rest : FILL_TO;
    gather(buf, &n, d + rest, more);
    uint32_t crc = rs_crc32_update_masked(RS_CRC32_INIT, buf, n, m->b, m->len);
    *icrc = rs_crc32_final(rs_crc32_update(crc, d + rest + more, end - rest - more));
    return true;
}

void
decode_check_crcs(struct rs_packet *pkt)
{
    const uint8_t *d = pkt->frame->data;

    if (rs_icrc_compute(pkt, &pkt->icrc_computed)) {
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

/* The ICRC as sent, but after a MAD cut short of its 256 bytes, where tshark stops before
 * it (rs_mad_shown). */
static bool
get_icrc(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out)
{
    size_t len;

    if (rs_mad_carried(pkt) && rs_mad_shown(pkt, &len) == NULL)
        return false;
    return rs_field_get_generic(pkt, f, occ, out);
}

const struct rs_field rs_fields_ib_tail[] = {
    {"infiniband.invariant.crc", "Invariant CRC", RS_FT_UINT32, RS_BASE_HEX, 0, NULL,
     "ICRC as sent (read big-endian, as Wireshark shows it)", RS_LAYER_ICRC, 0, 4, get_icrc,
     1},
    {"infiniband.variant.crc", "Variant CRC", RS_FT_UINT16, RS_BASE_HEX, 0, NULL,
     "VCRC as sent (read big-endian, as Wireshark shows it)", RS_LAYER_VCRC, 0, 2, NULL, 1},
    RS_F_END,
};
