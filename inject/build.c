/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * build.c - a template's next packet into bytes.
 *
 * The encoder builds the packet the template's shape asks for (RoCEv2,
 * RoCEv1 or native IB; opcode; payload), with every length right and the
 * decoded view of what it wrote. Then each field the spec set is written
 * where the decoder reads it (its layer's offset in the view, its offset,
 * width and mask in the registry), lies included, and rs_encode_finish()
 * computes the checksums and CRCs the spec did not set over what is there.
 */
#include <string.h>

#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/mad.h>
#include <roceshark/dissectors/wire.h>

#include "inject_int.h"

#define ETH_HDR_LEN 14
#define VLAN_TAG_LEN 4

void
rs_inject_packet_init(struct rs_inject_packet *p)
{
    static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

    memset(p, 0, sizeof(*p));
    p->encap = RS_INJECT_ROCEV2;
    memcpy(p->eth_src, (const uint8_t[]){0x02, 0, 0, 0, 0, 0x01}, 6);
    memcpy(p->eth_dst, (const uint8_t[]){0x02, 0, 0, 0, 0, 0x02}, 6);
    p->route.family = 4;
    memcpy(p->route.src, (const uint8_t[]){10, 0, 0, 1}, 4);
    memcpy(p->route.dst, (const uint8_t[]){10, 0, 0, 2}, 4);
    p->route.sport = 49152;
    p->route.dport = RS_ROCEV2_UDP_PORT;
    p->route.ttl = 64;
    p->route.df = true;
    p->grh.hop_limit = 64;
    memcpy(p->grh.sgid, v4mapped, 12);
    memcpy(p->grh.sgid + 12, p->route.src, 4);
    memcpy(p->grh.dgid, v4mapped, 12);
    memcpy(p->grh.dgid + 12, p->route.dst, 4);
    p->lrh.slid = 1;
    p->lrh.dlid = 2;
    p->f.opcode = 0x04;         /* RC SEND Only */
    p->f.pkey = 0xffff;
    p->f.dest_qp = 0x11;
    p->tcp.sport = 49152;
    p->tcp.dport = 9999;
    p->tcp.window = 65535;
    p->tcp.ttl = 64;
    p->tcp.df = true;
    p->mpa_crc_flag = true;
    p->mpa_rev = 1;
    p->repeat = 1;
    inject_fill(p, 0, RS_INJECT_MAX_PAYLOAD, NULL);
}

/* The TCP flow of r in the run, made when new (sequence numbers from 1000). */
static uint32_t *
flow_seq(struct rs_inject_run *run, uint8_t family, const uint8_t *src, const uint8_t *dst,
         uint16_t sport, uint16_t dport, bool make)
{
    size_t alen = family == 6 ? 16 : 4;

    for (unsigned i = 0; i < run->n_flows; i++) {
        if (run->flows[i].family == family && run->flows[i].sport == sport &&
            run->flows[i].dport == dport && memcmp(run->flows[i].src, src, alen) == 0 &&
            memcmp(run->flows[i].dst, dst, alen) == 0)
            return &run->flows[i].next_seq;
    }
    if (!make)
        return NULL;
    /* A full table starts over at its first slot: that flow's numbers restart if it
     * comes back, nothing breaks; the run counts it. */
    unsigned i = 0;
    if (run->n_flows < RS_INJECT_MAX_FLOWS)
        i = run->n_flows++;
    else
        run->flows_restarted++;
    run->flows[i].family = family;
    memcpy(run->flows[i].src, src, alen);
    memcpy(run->flows[i].dst, dst, alen);
    run->flows[i].sport = sport;
    run->flows[i].dport = dport;
    run->flows[i].next_seq = 1000;
    return &run->flows[i].next_seq;
}

/* An iWARP packet (IP header to the MPA CRC) at buf: an MPA frame or one FPDU, the
 * sequence number continuing its flow's unless the spec gave one. */
static uint32_t
build_iwarp(struct rs_inject_packet *p, struct rs_inject_run *run, uint64_t index,
            uint8_t *buf, uint32_t cap)
{
    struct rs_tcp_route r = p->tcp;
    struct rs_iwarp_fields f;
    uint32_t n;

    r.family = p->route.family;
    memcpy(r.src, p->route.src, 16);
    memcpy(r.dst, p->route.dst, 16);
    r.tos = p->route.tos;
    r.ttl = p->route.ttl;
    r.ip_id = p->route.ip_id;
    r.df = p->route.df;
    uint32_t *seq = flow_seq(run, r.family, r.src, r.dst, r.sport, r.dport, true);
    uint32_t *back = flow_seq(run, r.family, r.dst, r.src, r.dport, r.sport, false);
    if (!p->tcp_seq_given)
        r.seq = *seq;
    if (!p->tcp_ack_given)
        r.ack = back != NULL ? *back : 0;
    if (p->mpa_frame != 0) {
        uint8_t flags = (uint8_t)((p->mpa_marker_flag ? RS_MPA_FLAG_MARKERS : 0) |
                                  (p->mpa_crc_flag ? RS_MPA_FLAG_CRC : 0) |
                                  (p->mpa_rej_flag ? RS_MPA_FLAG_REJECT : 0));
        uint16_t pd = p->payload_len > RS_MPA_MAX_PD_LEN ? RS_MPA_MAX_PD_LEN
                                                         : (uint16_t)p->payload_len;
        n = rs_encode_mpa_frame(buf, cap, &r, p->mpa_frame == 2, flags, p->mpa_rev, p->payload,
                                pd);
    } else {
        /* The opcode first: it decides the model and the queue the rest may change. */
        uint8_t opcode = RS_RDMAP_SEND;
        for (unsigned i = 0; i < p->n_sets; i++)
            if (p->sets[i].target == RS_INJECT_T_IWARP &&
                strcmp(p->sets[i].member->name, "opcode") == 0)
                opcode = (uint8_t)inject_gen_value(&p->sets[i].gen, index, run->rng);
        rs_iwarp_fields_init(&f, opcode);
        f.mpa.crc = !p->iw_no_crc;
        f.mpa.bad_crc = p->iw_bad_crc;
        for (unsigned i = 0; i < p->n_sets; i++)
            if (p->sets[i].target == RS_INJECT_T_IWARP)
                inject_member_store(&f, p->sets[i].member,
                                    inject_gen_value(&p->sets[i].gen, index, run->rng));
        n = rs_encode_iwarp(buf, cap, &r, &f, p->payload, p->payload_len);
    }
    if (n != 0 && !p->tcp_seq_given)
        *seq = r.seq + rs_encode_tcp_payload_len(&r, n);
    return n;
}

/* The Ethernet header and tags; returns their length. */
static uint32_t
build_link(const struct rs_inject_packet *p, uint8_t *buf)
{
    uint32_t pos = 12;

    memcpy(buf, p->eth_dst, 6);
    memcpy(buf + 6, p->eth_src, 6);
    for (unsigned i = 0; i < p->n_vlans; i++) {
        rs_store_be16(buf + pos, p->vlan[i].tpid);
        rs_store_be16(buf + pos + 2, p->vlan[i].tci);
        pos += VLAN_TAG_LEN;
    }
    uint16_t type = p->encap == RS_INJECT_ROCEV1 ? RS_ROCEV1_ETHERTYPE
                    : p->route.family == 6       ? 0x86dd
                                                 : 0x0800;
    rs_store_be16(buf + pos, type);
    return pos + 2;
}

/* Where layer starts in buf, the packet's body at link. */
static uint32_t
layer_offset(const struct rs_packet *view, uint32_t link, uint8_t layer, uint8_t tag)
{
    if (layer == RS_LAYER_ETH)
        return 0;
    if (layer == RS_LAYER_VLAN)
        return 12 + VLAN_TAG_LEN * tag + 2;     /* the TCI, after the tag's TPID */
    return link + view->span[layer].off;
}

int
rs_inject_next(struct rs_inject_packet *p, struct rs_inject_run *run, uint8_t *buf,
               struct rs_inject_frame *out, char *err)
{
    GRand *rng = run->rng;
    struct rs_frame frame;
    struct rs_packet view;
    uint64_t index = p->emitted++;
    uint32_t link = 0, n = 0;

    /* What decides the shape first: a generated opcode or payload length. */
    for (unsigned i = 0; i < p->n_sets; i++) {
        const struct rs_inject_set *s = &p->sets[i];
        if (s->target == RS_INJECT_T_OPCODE)
            p->f.opcode = (uint8_t)inject_gen_value(&s->gen, index, rng);
        else if (s->target == RS_INJECT_T_PAYLOAD_LEN)
            p->payload_len = (uint32_t)inject_gen_value(&s->gen, index, rng);
        else if (s->target == RS_INJECT_T_MEMBER)
            inject_member_store(p, s->member, inject_gen_value(&s->gen, index, rng));
    }
    if (p->fill == RS_FILL_RAND)
        inject_fill(p, 0, p->payload_len, rng);

    uint32_t cap = RS_INJECT_MAX_FRAME;
    p->f.unfinished = true;     /* rs_encode_finish() comes after the fields are written */
    switch (p->encap) {
    case RS_INJECT_IB:
        n = rs_encode_ib(buf, cap, &p->lrh, p->ib_grh ? &p->grh : NULL, &p->f, p->payload,
                         p->payload_len, &frame, &view);
        break;
    case RS_INJECT_ROCEV1:
        link = build_link(p, buf);
        n = rs_encode_rocev1(buf + link, cap - link, &p->grh, &p->f, p->payload,
                             p->payload_len, &frame, &view);
        break;
    case RS_INJECT_IWARP:
        link = build_link(p, buf);
        n = build_iwarp(p, run, index, buf + link, cap - link);
        if (n != 0) {
            /* The view the field writes and checksums need, from the decoder. */
            struct rs_decode_opts o;
            memset(&frame, 0, sizeof(frame));
            frame.data = buf + link;
            frame.caplen = frame.len = n;
            frame.linktype = p->route.family == 6 ? RS_DLT_IPV6 : RS_DLT_IPV4;
            rs_decode_opts_init(&o);
            o.verify_crc = false;
            rs_decode_frame(&frame, &o, &view);
        }
        break;
    default:
        link = build_link(p, buf);
        n = rs_encode_rocev2(buf + link, cap - link, &p->route, &p->f, p->payload,
                             p->payload_len, &frame, &view);
        break;
    }
    if (n == 0)
        return rs_error(err, RS_EINVAL, "the packet (%u bytes of payload) does not fit in %s",
                        p->payload_len, p->encap == RS_INJECT_IB ? "an IB packet" : "an IP packet");

    /* A MAD field placed by its class and attribute goes in once the header is written. */
    for (int placed = 0; placed < 2; placed++) {
        for (unsigned i = 0; i < p->n_sets; i++) {
            const struct rs_inject_set *s = &p->sets[i];
            if (s->target != RS_INJECT_T_FIELD)
                continue;
            const struct rs_field *f = rs_field_by_id(s->field);
            if (rs_mad_field_placed(f) != (placed == 1))
                continue;
            uint32_t at = layer_offset(&view, link, f->layer, s->tag);
            if (placed) {
                long in_mad = at < link + n ? rs_mad_field_at(f, buf + at, link + n - at) : -1;
                if (in_mad < 0)
                    continue;
                at += (uint32_t)in_mad;
            } else {
                at += f->offset;
            }
            if (at + f->width <= link + n)
                inject_write_field(buf + at, f, inject_gen_value(&s->gen, index, rng), s->addr);
        }
    }
    if (p->psn_offset != 0 && p->encap != RS_INJECT_IWARP) {
        uint8_t *bth = buf + link + view.span[RS_LAYER_BTH].off;
        rs_bth_set_psn(bth, (rs_bth_psn(bth) + p->psn_offset) & 0xffffff);
    }
    rs_encode_finish(&view, p->keep);
    if (p->bad_icrc && rs_packet_has(&view, RS_LAYER_ICRC)) {
        buf[link + view.span[RS_LAYER_ICRC].off + 3] ^= 0xff;  /* still 4 bytes, now wrong */
        /* What covers the ICRC (the VCRC, an IPv6 UDP checksum) covers the wrong one. */
        rs_encode_finish(&view, p->keep | RS_ENCODE_KEEP_IP_CHECKSUM | RS_ENCODE_KEEP_ICRC);
    }
    if (p->bad_vcrc && rs_packet_has(&view, RS_LAYER_VCRC))
        buf[link + view.span[RS_LAYER_VCRC].off + 1] ^= 0xff;

    out->data = buf;
    out->len = link + n;
    out->l3 = link;
    out->encap = p->encap;
    return 0;
}
