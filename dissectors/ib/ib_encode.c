/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * encode.c - building RoCEv2 packets (IBTA Vol 1 chapter 9, Annex A17).
 *
 * The layout comes from the decoder's tables: rs_ib_opcode_info() says
 * which extended headers an opcode carries and ib_ext_headers[] their
 * order and size. The builder records each header's span in a decoded view
 * as it writes it, then asks the decoder's ICRC code for the ICRC of that
 * view, so there is one ICRC implementation for both directions.
 */
#include <string.h>

#include <netinet/in.h>

#include <roceshark/dissectors/crc.h>
#include <roceshark/dissectors/encode.h>
#include <roceshark/dissectors/wire.h>

#include "decode_int.h"
#include "net/ip_build.h"

#define IP_MAX_LEN 65535u

uint32_t
rs_encode_ib_len(uint8_t opcode, uint32_t payload_len)
{
    const struct rs_ib_opcode *info = rs_ib_opcode_info(opcode);
    uint32_t pad = (4 - (payload_len & 3)) & 3;

    return RS_BTH_LEN + rs_ib_hdrs_len(info->hdrs) + payload_len + pad + RS_ICRC_LEN;
}

/* The pad bytes that follow the payload: what the payload needs, or what f asks for. */
static uint32_t
pad_of(const struct rs_ib_fields *f, uint32_t payload_len)
{
    return f->pad_given ? f->pad_len : (4 - (payload_len & 3)) & 3;
}

/* rs_encode_ib_len() with f's pad. */
static uint32_t
ib_len_of(const struct rs_ib_fields *f, uint32_t payload_len)
{
    return rs_encode_ib_len(f->opcode, payload_len) - ((4 - (payload_len & 3)) & 3) +
           pad_of(f, payload_len);
}

/* Writes the extended header `bit` of f at p. */
static void
encode_ext_header(uint8_t *p, uint16_t bit, const struct rs_ib_fields *f)
{
    switch (bit) {
    case RS_HDR_RDETH:
        rs_store_be32(p, f->rdeth_eecnxt & 0xffffff);
        break;
    case RS_HDR_DETH:
        rs_store_be32(p, f->deth.qkey);
        rs_store_be32(p + 4, f->deth.src_qp & 0xffffff);
        break;
    case RS_HDR_XRCETH:
        rs_store_be32(p, f->xrc_srq & 0xffffff);
        break;
    case RS_HDR_RETH:
        rs_store_be64(p, f->reth.va);
        rs_store_be32(p + 8, f->reth.rkey);
        rs_store_be32(p + 12, f->reth.len);
        break;
    case RS_HDR_ATOMICETH:
        rs_store_be64(p, f->atomic.va);
        rs_store_be32(p + 8, f->atomic.rkey);
        rs_store_be64(p + 12, f->atomic.swap_add);
        rs_store_be64(p + 20, f->atomic.compare);
        break;
    case RS_HDR_AETH:
        rs_store_be32(p, (uint32_t)f->aeth.syndrome << 24 | (f->aeth.msn & 0xffffff));
        break;
    case RS_HDR_ATOMICACKETH:
        rs_store_be64(p, f->atomic_ack_orig);
        break;
    case RS_HDR_IMMDT:
        rs_store_be32(p, f->imm);
        break;
    case RS_HDR_IETH:
        rs_store_be32(p, f->ieth_rkey);
        break;
    case RS_HDR_CNP:
        memset(p, 0, RS_CNP_LEN);
        break;
    default:
        break;
    }
}

/* The BTH and extended headers; when view is set, their spans go into it
 * as if the transport packet started at offset `base`. */
static uint32_t
encode_headers(uint8_t *buf, const struct rs_ib_fields *f, uint32_t payload_len,
               struct rs_packet *view, uint32_t base)
{
    const struct rs_ib_opcode *info = rs_ib_opcode_info(f->opcode);
    uint32_t pad = pad_of(f, payload_len) & 3;

    /*  OpCode | S M Pad TVer | P_Key | F B Resv6 | DestQP | A Resv7 | PSN */
    buf[0] = f->opcode;
    buf[1] = (uint8_t)((f->se ? 0x80 : 0) | (f->migreq ? 0x40 : 0) | pad << 4 |
                       (f->tver & 0x0f));
    rs_store_be16(buf + 2, f->pkey);
    rs_store_be32(buf + 4, (f->fecn ? 0x80000000u : 0) | (f->becn ? 0x40000000u : 0) |
                               (f->dest_qp & 0xffffff));
    rs_store_be32(buf + 8, (f->ackreq ? 0x80000000u : 0) | (f->psn & 0xffffff));
    if (view != NULL)
        decode_set_layer(view, RS_LAYER_BTH, base, RS_BTH_LEN);

    uint32_t pos = RS_BTH_LEN;
    for (size_t i = 0; i < IB_N_EXT_HEADERS; i++) {
        const struct ib_ext_header *h = &ib_ext_headers[i];
        if (!(info->hdrs & h->bit))
            continue;
        encode_ext_header(buf + pos, h->bit, f);
        if (view != NULL)
            decode_set_layer(view, (enum rs_layer)h->layer, base + pos, h->len);
        pos += h->len;
    }
    return pos;
}

uint32_t
rs_encode_ib_headers(uint8_t *buf, const struct rs_ib_fields *f, uint32_t payload_len)
{
    return encode_headers(buf, f, payload_len, NULL, 0);
}

/* The IP header of a RoCEv2 packet carrying l4_len bytes of UDP. */
static void
encode_ip(uint8_t *h, const struct rs_roce_route *r, uint32_t l4_len)
{
    struct ip_build ip = {
        .family = r->family, .src = r->src, .dst = r->dst, .proto = IPPROTO_UDP,
        .tos = r->tos, .ttl = r->ttl, .ip_id = r->ip_id, .df = r->df,
        .flow_label = r->flow_label,
    };

    ip_build_header(h, &ip, l4_len);
}

/* IPv6 forbids a zero UDP checksum (RFC 8200 8.1), so it is computed. */
static uint16_t
udp6_checksum(const uint8_t *ip6, const uint8_t *udp, uint32_t udp_len)
{
    uint16_t c = ip_build_l4_checksum(ip6, udp, udp_len);
    return c == 0 ? 0xffff : c;
}

/* A view of the packet being built in buf, for the ICRC code and the callers. */
static void
view_init(uint8_t *buf, uint32_t total, int linktype, enum rs_encap encap, uint8_t opcode,
          uint32_t payload_len, struct rs_frame **frame, struct rs_packet **view,
          struct rs_frame *local_frame, struct rs_packet *local_view)
{
    if (*frame == NULL || *view == NULL) {
        *frame = local_frame;
        *view = local_view;
    }
    memset(*frame, 0, sizeof(**frame));
    (*frame)->data = buf;
    (*frame)->caplen = (*frame)->len = total;
    (*frame)->linktype = linktype;
    memset(*view, 0, sizeof(**view));
    (*view)->frame = *frame;
    (*view)->encap = encap;
    (*view)->opcode = opcode;
    (*view)->payload_len = payload_len;
}

/* The IBA transport packet at buf + ib (BTH, extended headers, payload, pad and room
 * for the ICRC, left zero for rs_encode_finish). Returns the offset after the ICRC. */
static uint32_t
encode_transport(uint8_t *buf, uint32_t ib, const struct rs_ib_fields *f, const void *payload,
                 uint32_t payload_len, struct rs_packet *view)
{
    uint32_t ib_len = ib_len_of(f, payload_len);
    uint32_t pos = ib + encode_headers(buf + ib, f, payload_len, view, ib);

    decode_set_layer(view, RS_LAYER_IB, ib, ib_len);
    if (payload != NULL)
        memcpy(buf + pos, payload, payload_len);
    else
        memset(buf + pos, 0, payload_len);
    decode_set_layer(view, RS_LAYER_PAYLOAD, pos, payload_len);
    pos += payload_len;
    uint32_t pad = pad_of(f, payload_len);
    if (pad > 0) {
        memset(buf + pos, 0, pad);
        decode_set_layer(view, RS_LAYER_PAD, pos, pad);
        pos += pad;
    }
    memset(buf + pos, 0, RS_ICRC_LEN);
    decode_set_layer(view, RS_LAYER_ICRC, pos, RS_ICRC_LEN);
    return pos + RS_ICRC_LEN;
}

uint32_t
rs_encode_rocev2(uint8_t *buf, uint32_t cap, const struct rs_roce_route *r,
                 const struct rs_ib_fields *f, const void *payload, uint32_t payload_len,
                 struct rs_frame *frame, struct rs_packet *view)
{
    struct rs_frame local_frame;
    struct rs_packet local_view;
    uint32_t l3 = ip_build_hdr_len(r->family);
    uint32_t ib_len = ib_len_of(f, payload_len);

    if (payload_len > IP_MAX_LEN || ib_len > IP_MAX_LEN - l3 - RS_UDP_HDR_LEN)
        return 0;
    uint32_t total = l3 + RS_UDP_HDR_LEN + ib_len;
    if (total > cap)
        return 0;
    view_init(buf, total, r->family == 6 ? RS_DLT_IPV6 : RS_DLT_IPV4, RS_ENCAP_ROCEV2,
              f->opcode, payload_len, &frame, &view, &local_frame, &local_view);
    view->ip_proto = IPPROTO_UDP;
    view->ecn = (uint8_t)(r->tos & 3);
    encode_ip(buf, r, total - l3);
    decode_set_layer(view, r->family == 6 ? RS_LAYER_IPV6 : RS_LAYER_IPV4, 0, l3);
    uint8_t *udp = buf + l3;
    rs_store_be16(udp, r->sport);
    rs_store_be16(udp + 2, r->dport);
    rs_store_be16(udp + 4, (uint16_t)(RS_UDP_HDR_LEN + ib_len));
    rs_store_be16(udp + 6, 0);
    decode_set_layer(view, RS_LAYER_UDP, l3, RS_UDP_HDR_LEN);
    encode_transport(buf, l3 + RS_UDP_HDR_LEN, f, payload, payload_len, view);
    if (!f->unfinished)
        rs_encode_finish(view, 0);
    return total;
}

/* GRH (IBTA Vol 1, 8.3): IPVer 6, traffic class, flow label, PayLen (the bytes after
 * the GRH up to the ICRC), NxtHdr 0x1B (IBA transport), hop limit, SGID, DGID. */
static void
encode_grh(uint8_t *h, const struct rs_grh_fields *g, uint32_t paylen)
{
    rs_store_be32(h, 6u << 28 | (uint32_t)g->tclass << 20 | (g->flow_label & 0xfffff));
    rs_store_be16(h + 4, (uint16_t)paylen);
    h[6] = RS_GRH_NXTHDR_IBA;
    h[7] = g->hop_limit;
    memcpy(h + 8, g->sgid, 16);
    memcpy(h + 24, g->dgid, 16);
}

uint32_t
rs_encode_rocev1(uint8_t *buf, uint32_t cap, const struct rs_grh_fields *g,
                 const struct rs_ib_fields *f, const void *payload, uint32_t payload_len,
                 struct rs_frame *frame, struct rs_packet *view)
{
    struct rs_frame local_frame;
    struct rs_packet local_view;
    uint32_t ib_len = ib_len_of(f, payload_len);

    if (payload_len > IP_MAX_LEN || ib_len > 0xffff || RS_GRH_LEN + ib_len > cap)
        return 0;
    uint32_t total = RS_GRH_LEN + ib_len;
    view_init(buf, total, RS_DLT_EN10MB, RS_ENCAP_ROCEV1, f->opcode, payload_len, &frame,
              &view, &local_frame, &local_view);
    encode_grh(buf, g, ib_len);
    decode_set_layer(view, RS_LAYER_GRH, 0, RS_GRH_LEN);
    encode_transport(buf, RS_GRH_LEN, f, payload, payload_len, view);
    if (!f->unfinished)
        rs_encode_finish(view, 0);
    return total;
}

uint32_t
rs_encode_ib(uint8_t *buf, uint32_t cap, const struct rs_lrh_fields *l,
             const struct rs_grh_fields *g, const struct rs_ib_fields *f, const void *payload,
             uint32_t payload_len, struct rs_frame *frame, struct rs_packet *view)
{
    struct rs_frame local_frame;
    struct rs_packet local_view;
    uint32_t ib_len = ib_len_of(f, payload_len);
    uint32_t grh = g != NULL ? RS_GRH_LEN : 0;
    uint32_t words = (RS_LRH_LEN + grh + ib_len) / 4;

    /* PktLen is 11 bits of 4-byte words; the 4 KiB MTU needs about 1100 of them. */
    if (payload_len > IP_MAX_LEN || words > 0x7ff || RS_LRH_LEN + grh + ib_len + RS_VCRC_LEN > cap)
        return 0;
    uint32_t total = RS_LRH_LEN + grh + ib_len + RS_VCRC_LEN;
    view_init(buf, total, RS_DLT_INFINIBAND, RS_ENCAP_IB, f->opcode, payload_len, &frame,
              &view, &local_frame, &local_view);
    /*  VL | LVer | SL | rsv2 | LNH | DLID | rsv5 | PktLen | SLID */
    buf[0] = (uint8_t)((l->vl & 0xf) << 4 | (l->lver & 0xf));
    buf[1] = (uint8_t)((l->sl & 0xf) << 4 | (g != NULL ? RS_LNH_IBA_GLOBAL : RS_LNH_IBA_LOCAL));
    rs_store_be16(buf + 2, l->dlid);
    rs_store_be16(buf + 4, (uint16_t)words);
    rs_store_be16(buf + 6, l->slid);
    decode_set_layer(view, RS_LAYER_LRH, 0, RS_LRH_LEN);
    if (g != NULL) {
        encode_grh(buf + RS_LRH_LEN, g, ib_len);
        decode_set_layer(view, RS_LAYER_GRH, RS_LRH_LEN, RS_GRH_LEN);
    }
    uint32_t end = encode_transport(buf, RS_LRH_LEN + grh, f, payload, payload_len, view);
    memset(buf + end, 0, RS_VCRC_LEN);
    decode_set_layer(view, RS_LAYER_VCRC, end, RS_VCRC_LEN);
    if (!f->unfinished)
        rs_encode_finish(view, 0);
    return total;
}

/* The bytes of the UDP or TCP segment at layer: what the IP header says follows it
 * (Ethernet pads short frames), within the frame. */
static uint32_t
l4_len(const struct rs_packet *view, enum rs_layer layer)
{
    const uint8_t *d = view->frame->data;
    uint32_t off = view->span[layer].off, room = view->frame->caplen - off, n;

    if (rs_packet_has(view, RS_LAYER_IPV6)) {
        const struct rs_span *ip = &view->span[RS_LAYER_IPV6];
        n = rs_load_be16(d + ip->off + 4) + RS_IPV6_HDR_LEN - (off - ip->off);
    } else {
        const struct rs_span *ip = &view->span[RS_LAYER_IPV4];
        n = rs_load_be16(d + ip->off + 2) - (off - ip->off);
    }
    return n < room ? n : room;
}

void
rs_encode_finish(struct rs_packet *view, unsigned keep)
{
    uint8_t *d = (uint8_t *)view->frame->data;

    if (rs_packet_has(view, RS_LAYER_IPV4) && !(keep & RS_ENCODE_KEEP_IP_CHECKSUM)) {
        uint8_t *ip = d + view->span[RS_LAYER_IPV4].off;
        ip[10] = ip[11] = 0;
        rs_store_be16(ip + 10, ip_csum_fold(ip_csum_add(0, ip, view->span[RS_LAYER_IPV4].len)));
    }
    if (rs_packet_has(view, RS_LAYER_ICRC) && !(keep & RS_ENCODE_KEEP_ICRC)) {
        uint32_t icrc = 0;
        if (rs_icrc_compute(view, &icrc)) {
            rs_store_le32(d + view->span[RS_LAYER_ICRC].off, icrc);
            view->icrc_computed = icrc;
            view->icrc_status = RS_CKSUM_GOOD;
        }
    }
    if (rs_packet_has(view, RS_LAYER_VCRC) && !(keep & RS_ENCODE_KEEP_VCRC)) {
        uint32_t lrh = view->span[RS_LAYER_LRH].off, vcrc = view->span[RS_LAYER_VCRC].off;
        view->vcrc_computed = rs_crc16_ib(d + lrh, vcrc - lrh);
        rs_store_le16(d + vcrc, view->vcrc_computed);
        view->vcrc_status = RS_CKSUM_GOOD;
    }
    /* IPv6 forbids a zero UDP checksum; it covers the ICRC, so it comes last. */
    if (rs_packet_has(view, RS_LAYER_IPV6) && rs_packet_has(view, RS_LAYER_UDP) &&
        !(keep & RS_ENCODE_KEEP_UDP_CHECKSUM)) {
        uint8_t *udp = d + view->span[RS_LAYER_UDP].off;
        uint32_t udp_len = l4_len(view, RS_LAYER_UDP);
        rs_store_be16(udp + 6, 0);
        rs_store_be16(udp + 6, udp6_checksum(d + view->span[RS_LAYER_IPV6].off, udp, udp_len));
    }
    if (rs_packet_has(view, RS_LAYER_TCP) && !(keep & RS_ENCODE_KEEP_TCP_CHECKSUM)) {
        uint8_t *tcp = d + view->span[RS_LAYER_TCP].off;
        uint32_t ip = view->span[rs_packet_has(view, RS_LAYER_IPV6) ? RS_LAYER_IPV6
                                                                     : RS_LAYER_IPV4].off;
        rs_store_be16(tcp + 16, 0);
        rs_store_be16(tcp + 16, ip_build_l4_checksum(d + ip, tcp, l4_len(view, RS_LAYER_TCP)));
    }
}

bool
rs_encode_fix_icrc(uint8_t *buf, uint32_t len)
{
    struct rs_frame frame;
    struct rs_packet pkt;
    struct rs_decode_opts opts;
    uint32_t icrc;

    memset(&frame, 0, sizeof(frame));
    frame.data = buf;
    frame.caplen = frame.len = len;
    frame.linktype = len > 0 && buf[0] >> 4 == 6 ? RS_DLT_IPV6 : RS_DLT_IPV4;
    rs_decode_opts_init(&opts);
    opts.verify_crc = false;
    rs_decode_frame(&frame, &opts, &pkt);
    if (pkt.encap != RS_ENCAP_ROCEV2 || !rs_icrc_compute(&pkt, &icrc))
        return false;
    rs_store_le32(buf + pkt.span[RS_LAYER_ICRC].off, icrc);
    return true;
}
