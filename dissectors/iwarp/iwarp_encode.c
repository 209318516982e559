/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * encode.c - building iWARP packets: MPA Request and Reply frames (RFC 5044
 * 7.1) and FPDUs (RFC 5044 4.1) carrying DDP segments (RFC 5041 5.2 tagged,
 * 5.3 untagged) of RDMAP messages (RFC 5040 4, RFC 7306), in one TCP
 * segment each (RFC 793 3.1).
 *
 * The layouts come from the decoder: ddp.c says which opcodes are tagged and
 * how long the RDMAP header after DDP's is; mpa.c has the frames' keys and
 * computes the CRC-32C the way it checks it (over ULPDU_Length, ULPDU and
 * pad, sent as iSCSI sends it); the IP header and checksums are the RoCEv2
 * builder's (net/ip_build.c). No markers: a builder of FPDUs one per segment has no
 * stream position to place them by.
 */
#include <string.h>

#include <netinet/in.h>

#include <roceshark/dissectors/encode_iwarp.h>
#include <roceshark/dissectors/wire.h>

#include "iwarp_int.h"
#include "net/ip_build.h"

#define IP_MAX_LEN 65535u
#define MPA_LEN_FIELD 2
#define TCP_DEFAULT_FLAGS (RS_TCP_ACK | RS_TCP_PSH)

/* The queue of each untagged opcode; tagged ones have none (0). */
static const uint8_t rdmap_queue[] = {
    [RS_RDMAP_READ_REQUEST] = 1,
    [RS_RDMAP_TERMINATE] = 2,
    [RS_RDMAP_ATOMIC_REQUEST] = 3,
    [RS_RDMAP_ATOMIC_RESPONSE] = 3,
};

uint32_t
rs_rdmap_queue(uint8_t opcode)
{
    return opcode < RS_ARRAY_SIZE(rdmap_queue) ? rdmap_queue[opcode] : 0;
}

void
rs_iwarp_fields_init(struct rs_iwarp_fields *f, uint8_t opcode)
{
    memset(f, 0, sizeof(*f));
    f->opcode = opcode;
    f->rdmap_version = 1;
    f->ddp_version = 1;
    f->last = true;
    f->tagged = iw_rdmap_tagged(opcode);
    f->qn = rs_rdmap_queue(opcode);
    f->mpa.crc = true;
}

static uint32_t
ddp_hdr_len(const struct rs_iwarp_fields *f)
{
    return f->tagged ? RS_DDP_TAGGED_HDR_LEN : RS_DDP_UNTAGGED_HDR_LEN;
}

/* DDP header, RDMAP header and payload; may exceed what ULPDU_Length holds. */
static uint32_t
ulpdu_len(const struct rs_iwarp_fields *f, uint32_t payload_len)
{
    return ddp_hdr_len(f) + iw_rdmap_hdr_len(f->opcode & 0x0f) + payload_len;
}

static uint32_t
pad_len(uint32_t ulen)
{
    return (4 - (MPA_LEN_FIELD + ulen) % 4) % 4;
}

uint32_t
rs_encode_fpdu_len(const struct rs_iwarp_fields *f, uint32_t payload_len)
{
    if (payload_len > UINT16_MAX)
        return 0;
    uint32_t ulen = ulpdu_len(f, payload_len);
    if (ulen > UINT16_MAX)
        return 0;
    return MPA_LEN_FIELD + ulen + pad_len(ulen) + RS_MPA_CRC_LEN;
}

/*  T L Rsvd DV | RV Rsvd Opcode | then, tagged: STag | TO;
 *  untagged: RsvdULP (Invalidate STag) | QN | MSN | MO. */
static uint32_t
encode_ddp(uint8_t *u, const struct rs_iwarp_fields *f)
{
    u[0] = (uint8_t)((f->tagged ? 0x80 : 0) | (f->last ? 0x40 : 0) | (f->ddp_version & 0x03));
    u[1] = (uint8_t)((f->rdmap_version & 0x03) << 6 | (f->opcode & 0x0f));
    if (f->tagged) {
        rs_store_be32(u + 2, f->stag);
        rs_store_be64(u + 6, f->to);
    } else {
        rs_store_be32(u + 2, f->inval_stag);
        rs_store_be32(u + 6, f->qn);
        rs_store_be32(u + 10, f->msn);
        rs_store_be32(u + 14, f->mo);
    }
    return ddp_hdr_len(f);
}

/* Stores values[i] big-endian in widths[i] octets ('4' or '8'), one after
 * the other: RDMAP's headers are runs of 32- and 64-bit fields. */
static void
put_be_run(uint8_t *p, const char *widths, const uint64_t *values)
{
    for (size_t i = 0; widths[i] != '\0'; i++) {
        if (widths[i] == '8') {
            rs_store_be64(p, values[i]);
            p += 8;
        } else {
            rs_store_be32(p, (uint32_t)values[i]);
            p += 4;
        }
    }
}

/* The RDMAP header after DDP's; iw_rdmap_hdr_len() octets. */
static void
encode_rdmap(uint8_t *p, const struct rs_iwarp_fields *f)
{
    const struct rs_rdmap_read_req *rr = &f->read_req;
    const struct rs_rdmap_terminate *t = &f->term;
    const struct rs_rdmap_atomic_req *aq = &f->atomic_req;
    const struct rs_rdmap_atomic_resp *ar = &f->atomic_resp;

    switch (f->opcode & 0x0f) {
    case RS_RDMAP_READ_REQUEST:     /* sink STag, TO; size; source STag, TO */
        put_be_run(p, "48448", (const uint64_t[]){rr->sink_stag, rr->sink_to, rr->size,
                                                  rr->src_stag, rr->src_to});
        break;
    case RS_RDMAP_TERMINATE:        /* Layer EType | ErrCode | M D R Rsvd */
        p[0] = (uint8_t)((t->layer & 0x0f) << 4 | (t->etype & 0x0f));
        p[1] = t->errcode;
        p[2] = (uint8_t)((t->hdrct_m ? 0x80 : 0) | (t->hdrct_d ? 0x40 : 0) |
                         (t->hdrct_r ? 0x20 : 0));
        p[3] = 0;
        break;
    case RS_RDMAP_IMMEDIATE:
    case RS_RDMAP_IMMEDIATE_SE:
        rs_store_be64(p, f->immediate);
        break;
    case RS_RDMAP_ATOMIC_REQUEST:   /* Rsvd OpCode; request id; STag, TO; data, masks */
        put_be_run(p, "44488888",
                   (const uint64_t[]){aq->opcode & 0x0f, aq->req_id, aq->stag, aq->to,
                                      aq->add_swap, aq->add_swap_mask, aq->compare,
                                      aq->compare_mask});
        break;
    case RS_RDMAP_ATOMIC_RESPONSE:  /* original request id, original value */
        put_be_run(p, "48", (const uint64_t[]){ar->orig_req_id, ar->orig_value});
        break;
    default:
        break;
    }
}

/* n octets from src, or zeros when src is NULL. */
static void
put_bytes(uint8_t *p, const void *src, uint32_t n)
{
    if (src != NULL)
        memcpy(p, src, n);
    else
        memset(p, 0, n);
}

/* The pad after a ULPDU of ulen octets that ends at p; returns where the CRC goes. */
static uint8_t *
put_pad(uint8_t *p, uint32_t ulen)
{
    memset(p, 0, pad_len(ulen));
    return p + pad_len(ulen);
}

/* The CRC field: mpa.c reads the CRC-32C little-endian; a forced value is
 * written big-endian, as iwarp_mpa.crc shows it. Flipping one bit can never
 * give the byte-swapped CRC, so a bad CRC is never taken for a swapped one. */
static void
encode_crc(uint8_t *p, const uint8_t *fpdu, const struct rs_iwarp_fields *f)
{
    if (f->mpa.force_crc) {
        rs_store_be32(p, f->mpa.crc_value);
        return;
    }
    uint32_t crc = f->mpa.crc ? iw_crc32c(fpdu, (uint32_t)(p - fpdu)) : 0;
    rs_store_le32(p, f->mpa.bad_crc ? crc ^ 1u : crc);
}

uint32_t
rs_encode_fpdu(uint8_t *buf, uint32_t cap, const struct rs_iwarp_fields *f,
               const void *payload, uint32_t payload_len)
{
    uint32_t len = rs_encode_fpdu_len(f, payload_len);

    if (len == 0 || len > cap)
        return 0;
    uint32_t ulen = ulpdu_len(f, payload_len);
    rs_store_be16(buf, f->mpa.force_ulpdu_len ? f->mpa.ulpdu_len : (uint16_t)ulen);
    uint8_t *p = buf + MPA_LEN_FIELD;
    p += encode_ddp(p, f);
    encode_rdmap(p, f);
    p += iw_rdmap_hdr_len(f->opcode & 0x0f);
    put_bytes(p, payload, payload_len);
    encode_crc(put_pad(p + payload_len, ulen), buf, f);
    return len;
}

uint32_t
rs_encode_mpa_fpdu(uint8_t *buf, uint32_t cap, const void *ulpdu, uint32_t ulpdu_len, bool crc)
{
    if (ulpdu_len > UINT16_MAX)
        return 0;
    uint32_t len = MPA_LEN_FIELD + ulpdu_len + pad_len(ulpdu_len) + RS_MPA_CRC_LEN;
    if (len > cap)
        return 0;
    rs_store_be16(buf, (uint16_t)ulpdu_len);
    put_bytes(buf + MPA_LEN_FIELD, ulpdu, ulpdu_len);
    uint8_t *p = put_pad(buf + MPA_LEN_FIELD + ulpdu_len, ulpdu_len);
    rs_store_le32(p, crc ? iw_crc32c(buf, (uint32_t)(p - buf)) : 0);
    return len;
}

static uint32_t
segment_hdrs_len(const struct rs_tcp_route *r)
{
    return ip_build_hdr_len(r->family) + RS_TCP_HDR_LEN;
}

uint32_t
rs_encode_tcp_payload_len(const struct rs_tcp_route *r, uint32_t len)
{
    uint32_t h = segment_hdrs_len(r);
    return len > h ? len - h : 0;
}

/* Writes the IP and TCP headers in front of the data_len octets already at
 * buf + segment_hdrs_len(r). Returns the packet length, 0 when the data is
 * too long for an IP packet. */
static uint32_t
encode_segment(uint8_t *buf, const struct rs_tcp_route *r, uint32_t data_len)
{
    uint32_t l3 = ip_build_hdr_len(r->family), tcp_len = RS_TCP_HDR_LEN + data_len;
    struct ip_build ip = {
        .family = r->family, .src = r->src, .dst = r->dst, .proto = IPPROTO_TCP,
        .tos = r->tos, .ttl = r->ttl, .ip_id = r->ip_id, .df = r->df,
    };

    /* IPv4 counts its header in Total Length, IPv6 not in Payload Length. */
    if (tcp_len > IP_MAX_LEN - (r->family == 6 ? 0 : l3))
        return 0;
    ip_build_header(buf, &ip, tcp_len);
    uint8_t *t = buf + l3;
    rs_store_be16(t, r->sport);
    rs_store_be16(t + 2, r->dport);
    rs_store_be32(t + 4, r->seq);
    rs_store_be32(t + 8, r->ack);
    t[12] = (RS_TCP_HDR_LEN / 4) << 4;
    t[13] = r->flags ? r->flags : TCP_DEFAULT_FLAGS;
    rs_store_be16(t + 14, r->window);
    rs_store_be32(t + 16, 0);   /* checksum, urgent pointer */
    rs_store_be16(t + 16, ip_build_l4_checksum(buf, t, tcp_len));
    return l3 + tcp_len;
}

uint32_t
rs_encode_tcp_segment(uint8_t *buf, uint32_t cap, const struct rs_tcp_route *r, const void *data,
                      uint32_t len)
{
    uint32_t h = segment_hdrs_len(r);

    if (cap < h || cap - h < len)
        return 0;
    put_bytes(buf + h, data, len);
    return encode_segment(buf, r, len);
}

uint32_t
rs_encode_iwarp(uint8_t *buf, uint32_t cap, const struct rs_tcp_route *r,
                const struct rs_iwarp_fields *f, const void *payload, uint32_t payload_len)
{
    uint32_t h = segment_hdrs_len(r);

    if (cap < h)
        return 0;
    uint32_t n = rs_encode_fpdu(buf + h, cap - h, f, payload, payload_len);
    return n == 0 ? 0 : encode_segment(buf, r, n);
}

uint32_t
rs_encode_mpa_frame(uint8_t *buf, uint32_t cap, const struct rs_tcp_route *r, bool reply,
                    uint8_t flags, uint8_t revision, const void *pd, uint16_t pd_len)
{
    uint32_t h = segment_hdrs_len(r), n = RS_MPA_FRAME_HDR_LEN + pd_len;

    if (cap < h || cap - h < n)
        return 0;
    uint8_t *m = buf + h;
    memcpy(m, iw_mpa_key(reply), RS_MPA_KEY_LEN);
    m[16] = flags;
    m[17] = revision;
    rs_store_be16(m + 18, pd_len);
    put_bytes(m + RS_MPA_FRAME_HDR_LEN, pd, pd_len);
    return encode_segment(buf, r, n);
}
