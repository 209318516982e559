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
#include "fields_int.h"

#define MAX_L3_MASKED 60    /* IPv4 with options, IPv6 fixed part, GRH */

static uint32_t
crc_masked_ipv4(uint32_t crc, const uint8_t *h, uint32_t len)
{
    uint8_t buf[MAX_L3_MASKED];

    memcpy(buf, h, len);
    buf[1] = 0xff;              /* TOS */
    buf[8] = 0xff;              /* TTL */
    buf[10] = buf[11] = 0xff;   /* header checksum */
    return rs_crc32_update(crc, buf, len);
}

/* The GRH and the IPv6 header share a layout for the masked fields. */
static uint32_t
crc_masked_grh(uint32_t crc, const uint8_t *h, uint32_t len)
{
    uint8_t buf[RS_GRH_LEN];

    memcpy(buf, h, RS_GRH_LEN);
    buf[0] |= 0x0f;                     /* traffic class, high nibble */
    buf[1] = buf[2] = buf[3] = 0xff;    /* traffic class low nibble, flow label */
    buf[7] = 0xff;                      /* hop limit */
    crc = rs_crc32_update(crc, buf, RS_GRH_LEN);
    return rs_crc32_update(crc, h + RS_GRH_LEN, len - RS_GRH_LEN); /* IPv6 extensions */
}

/* The ICRC of pkt, as the CRC value (before it is laid out on the wire). */
static uint32_t
icrc_compute(const struct rs_packet *pkt)
{
    static const uint8_t ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    const uint8_t *d = pkt->frame->data;
    uint32_t crc = RS_CRC32_INIT;

    if (pkt->encap == RS_ENCAP_ROCEV2) {
        crc = rs_crc32_update(crc, ones, sizeof(ones));
        if (rs_packet_has(pkt, RS_LAYER_IPV4))
            crc = crc_masked_ipv4(crc, rs_packet_at(pkt, RS_LAYER_IPV4),
                                  pkt->span[RS_LAYER_IPV4].len);
        else
            crc = crc_masked_grh(crc, rs_packet_at(pkt, RS_LAYER_IPV6),
                                 pkt->span[RS_LAYER_IPV6].len);
        uint8_t udp[8];
        memcpy(udp, rs_packet_at(pkt, RS_LAYER_UDP), sizeof(udp));
        udp[6] = udp[7] = 0xff;
        crc = rs_crc32_update(crc, udp, sizeof(udp));
    } else if (rs_packet_has(pkt, RS_LAYER_GRH)) {
        crc = rs_crc32_update(crc, ones, sizeof(ones));
        crc = crc_masked_grh(crc, rs_packet_at(pkt, RS_LAYER_GRH), RS_GRH_LEN);
    } else {
        uint8_t lrh[RS_LRH_LEN];
        memcpy(lrh, rs_packet_at(pkt, RS_LAYER_LRH), sizeof(lrh));
        lrh[0] |= 0xf0;         /* VL */
        crc = rs_crc32_update(crc, lrh, sizeof(lrh));
    }
    uint8_t bth[RS_BTH_LEN];
    uint32_t bth_off = pkt->span[RS_LAYER_BTH].off;
    memcpy(bth, d + bth_off, sizeof(bth));
    bth[4] = 0xff;              /* FECN, BECN, Resv6a */
    crc = rs_crc32_update(crc, bth, sizeof(bth));
    uint32_t rest = bth_off + RS_BTH_LEN;
    crc = rs_crc32_update(crc, d + rest, pkt->span[RS_LAYER_ICRC].off - rest);
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
               (rs_packet_has(pkt, RS_LAYER_IPV6) ||
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
