/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_protocols.c - the frame's protocols from the outside in, as
 * Wireshark names them in frame.protocols ("eth:ethertype:ip:udp:
 * infiniband:data"), and the field itself. `-z io,phs` counts the same
 * chains.
 *
 * The names are those of the layers we decode. Payloads nobody dissects
 * further are "data", as in Wireshark, except an InfiniBand MAD (to QP 0 or
 * 1), which Wireshark decodes inside "infiniband", and a protocol we name
 * by its port, Ethertype or first bytes without dissecting it (identify.h:
 * "udp:dns", "tcp:tls"): there the chain stops, where Wireshark's may go
 * on ("tcp:http:json"). The field is kept out of the -V tree, where tshark
 * shows it in brackets under the frame.
 */
#include <string.h>

#include <netinet/in.h>

#include <roceshark/dissectors/expert.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/icmp.h>
#include <roceshark/dissectors/identify.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/wire.h>

#include "fields/fields_int.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_ARP 0x0806
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_ROCE 0x8915
#define IPV6_HDR_LEN 40

struct chain {
    char *buf;
    size_t size, len;
};

static void
add(struct chain *c, const char *name)
{
    size_t n = strlen(name), sep = c->len > 0;

    if (c->len + sep + n + 1 > c->size)
        return;
    if (sep)
        c->buf[c->len++] = ':';
    memcpy(c->buf + c->len, name, n + 1);
    c->len += n;
}

/* The IP protocol number, or -1; an IPv6 hop-by-hop options header is named
 * and looked through, as Wireshark does. */
static int
ip_protocol(const struct rs_packet *pkt, struct chain *c)
{
    /* An ICMP error's quote may end inside the header (icmp_quote.c). */
    if (rs_packet_has(pkt, RS_LAYER_IPV4))
        return pkt->span[RS_LAYER_IPV4].len > 9 ? rs_packet_at(pkt, RS_LAYER_IPV4)[9] : -1;
    if (!rs_packet_has(pkt, RS_LAYER_IPV6) || pkt->span[RS_LAYER_IPV6].len < IPV6_HDR_LEN)
        return -1;
    const struct rs_span *sp = &pkt->span[RS_LAYER_IPV6];
    int next = rs_packet_at(pkt, RS_LAYER_IPV6)[6];
    if (next == IPPROTO_HOPOPTS && sp->off + IPV6_HDR_LEN < pkt->frame->caplen) {
        add(c, "ipv6.hopopts");
        next = pkt->frame->data[sp->off + IPV6_HDR_LEN];
    }
    return next;
}

static bool
has_data(const struct rs_packet *pkt)
{
    const uint8_t *data;
    uint32_t len;

    return rs_packet_data(pkt, 0, &data, &len);
}

static void above_ethertype(const struct rs_packet *pkt, struct chain *c);

/* InfiniBand, and what its payload carries: data, nothing more for a MAD, or IPoIB's
 * ethertype and what that names. */
static void
infiniband(const struct rs_packet *pkt, struct chain *c)
{
    add(c, "infiniband");
    if (rs_packet_has(pkt, RS_LAYER_IPOIB)) {
        add(c, "ethertype");
        above_ethertype(pkt, c);
        return;
    }
    /* A MAD is decoded inside Wireshark's InfiniBand dissector: no data. */
    if (has_data(pkt))
        add(c, "data");
}

/* Whether the TCP segment pkt carries the first octet of PDU p. */
static bool
starts_here(const struct rs_packet *pkt, const struct rs_iwarp_pdu *p)
{
    uint32_t seq = rs_load_be32(rs_packet_at(pkt, RS_LAYER_TCP) + 4);

    return (int32_t)(p->seq - seq) >= 0;
}

/* PDU by PDU, as Wireshark's layers come: MPA, then DDP/RDMAP for an FPDU,
 * then data where the FPDU hands bytes on (rs_iwarp_pdu_data). TCP calls MPA
 * once for a PDU it completes from earlier segments and once for the PDUs
 * that start in this one, and MPA names itself once per call. */
static void
iwarp(const struct rs_packet *pkt, struct chain *c)
{
    const struct rs_iwarp_view *v = pkt->iwarp;

    for (unsigned i = 0; i < v->n_pdus; i++) {
        const struct rs_iwarp_pdu *p = &v->pdus[i];
        const uint8_t *data;
        uint32_t len;
        if (i == 0 || (i == 1 && !starts_here(pkt, &v->pdus[0])))
            add(c, "iwarp_mpa");
        if (p->kind == RS_MPA_FPDU)
            add(c, "iwarp_ddp_rdmap");
        if (rs_iwarp_pdu_data(p, &data, &len))
            add(c, "data");
    }
}

static void
above_ip(const struct rs_packet *pkt, struct chain *c)
{
    int proto = ip_protocol(pkt, c);

    const struct rs_ident_protocol *named = rs_ident_protocol(pkt);

    if (rs_packet_has(pkt, RS_LAYER_UDP)) {
        add(c, "udp");
        if (pkt->encap == RS_ENCAP_ROCEV2)
            infiniband(pkt, c);
        else if (named != NULL)
            add(c, named->abbrev);
        else if (has_data(pkt))
            add(c, "data");
    } else if (rs_packet_has(pkt, RS_LAYER_TCP)) {
        add(c, "tcp");
        if (pkt->iwarp != NULL && pkt->iwarp->n_pdus > 0)
            iwarp(pkt, c);
        else if (named != NULL)
            add(c, named->abbrev);
        else if (has_data(pkt))
            add(c, "data");
    } else if ((proto == IPPROTO_UDP || proto == IPPROTO_TCP) && rs_packet_l4_stopped(pkt)) {
        add(c, proto == IPPROTO_UDP ? "udp" : "tcp");   /* called, and stopped in its header */
    } else if (proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6) {
        struct rs_icmp_quote q;
        add(c, proto == IPPROTO_ICMP ? "icmp" : "icmpv6");
        if (rs_icmp_quote_view(pkt, &q)) {     /* an error's datagram, decoded again */
            add(c, rs_packet_has(&q.pkt, RS_LAYER_IPV4) ? "ip" : "ipv6");
            above_ip(&q.pkt, c);
        } else if (has_data(pkt)) {
            add(c, "data");
        }
    } else if (named != NULL) {
        add(c, named->abbrev);
    }
}

static void
above_ethertype(const struct rs_packet *pkt, struct chain *c)
{
    switch (pkt->ethertype) {
    case ETHERTYPE_IPV4:
        add(c, "ip");
        above_ip(pkt, c);
        break;
    case ETHERTYPE_IPV6:
        add(c, "ipv6");
        above_ip(pkt, c);
        break;
    case ETHERTYPE_ARP:
        add(c, "arp");
        break;
    case ETHERTYPE_ROCE:
        infiniband(pkt, c);
        break;
    default: {
        const struct rs_ident_protocol *named = rs_ident_protocol(pkt);
        if (named != NULL && named->place == RS_IDENT_LINK)
            add(c, named->abbrev);
        break;
    }
    }
}

size_t
rs_print_protocols(const struct rs_packet *pkt, char *buf, size_t size)
{
    struct chain c = {buf, size, 0};

    if (size > 0)
        buf[0] = '\0';
    if (rs_packet_has(pkt, RS_LAYER_ERF))
        add(&c, "erf");
    if (rs_ident_is_llc(pkt)) {        /* an 802.3 frame: a length, then LLC */
        const struct rs_ident_protocol *named = rs_ident_protocol(pkt);
        add(&c, "eth");
        add(&c, "llc");
        if (named != NULL)
            add(&c, named->abbrev);
    } else if (rs_packet_has(pkt, RS_LAYER_ETH)) {
        add(&c, "eth");
        add(&c, "ethertype");
        for (int l = RS_LAYER_VLAN; l <= RS_LAYER_VLAN2; l++)
            if (rs_packet_has(pkt, (enum rs_layer)l)) {
                /* a service tag (TPID 0x88a8) is 802.1ad's */
                const uint8_t *tpid = rs_packet_at(pkt, (enum rs_layer)l) - 2;
                add(&c, rs_load_be16(tpid) == 0x88a8 ? "ieee8021ad" : "vlan");
                add(&c, "ethertype");
            }
        above_ethertype(pkt, &c);
    } else if (rs_packet_has(pkt, RS_LAYER_SLL)) {
        add(&c, "sll");
        add(&c, "ethertype");
        above_ethertype(pkt, &c);
    } else if (rs_packet_has(pkt, RS_LAYER_LRH) || pkt->encap == RS_ENCAP_IB) {
        infiniband(pkt, &c);
    } else if (rs_packet_has(pkt, RS_LAYER_IPV4) || rs_packet_has(pkt, RS_LAYER_IPV6)) {
        if (!rs_packet_has(pkt, RS_LAYER_ERF))     /* ERF's IPv4 and IPv6 records */
            add(&c, "raw");
        add(&c, rs_packet_has(pkt, RS_LAYER_IPV4) ? "ip" : "ipv6");
        above_ip(pkt, &c);
    }
    if (rs_ws_malformed_layer(pkt))
        add(&c, rs_ws_malformed(pkt) ? "_ws.malformed" : "_ws.short");
    return c.len;
}

/* Room for a segment full of small FPDUs, each naming DDP/RDMAP and data. */
static _Thread_local char protocols[4096];

static bool
get_protocols(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out)
{
    (void)f;
    if (occ != 0)
        return false;
    if (pkt->flags & RS_PKT_QUOTE_APART) {      /* the tree's view: the quote is there */
        struct rs_packet whole = *pkt;
        whole.flags = (uint16_t)((whole.flags & ~RS_PKT_QUOTE_APART) | RS_PKT_ICMP_QUOTE);
        rs_print_protocols(&whole, protocols, sizeof(protocols));
    } else {
        rs_print_protocols(pkt, protocols, sizeof(protocols));
    }
    out->type = RS_FT_STRING;
    out->v.str = protocols;
    return true;
}

const struct rs_field rs_fields_protocols[] = {
    {"frame.protocols", "Protocols in frame", RS_FT_STRING, RS_BASE_NONE, 0, NULL,
     "The protocols of the frame, outermost first, as Wireshark names them", RS_NO_LAYER, 0,
     0, get_protocols, 1, RS_FIELD_GENERATED},
    RS_F_END,
};
