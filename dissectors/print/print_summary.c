/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_summary.c - the one-line-per-frame output: number, time, source,
 * destination, protocol, length and an Info column that tells an RDMA
 * engineer what the packet does (opcode, QP, PSN, and any NAK reason).
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/arp.h>
#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/cm_mad.h>
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/ether_names.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/mad.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/streams.h>
#include <roceshark/version.h>
#include <roceshark/dissectors/wire.h>

#include "print/summary_int.h"

#define ETHERTYPE_ARP 0x0806

void
info_add(struct info *in, const char *fmt, ...)
{
    va_list ap;

    if (in->len + 1 >= in->size)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(in->buf + in->len, in->size - in->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        in->len = in->len + (size_t)n < in->size ? in->len + (size_t)n : in->size - 1;
}

/* Appends n bytes of s, or as many as fit before the terminating NUL. */
static void
info_put(struct info *in, const char *s, size_t n)
{
    if (in->len + 1 >= in->size)
        return;
    size_t room = in->size - 1 - in->len;
    if (n > room)
        n = room;
    memcpy(in->buf + in->len, s, n);
    in->len += n;
    in->buf[in->len] = '\0';
}

void
info_str(struct info *in, const char *s)
{
    info_put(in, s, strlen(s));
}

void
info_dec(struct info *in, const char *label, uint64_t v)
{
    char digits[RS_U64_TEXT_MAX];

    info_str(in, label);
    info_put(in, digits, rs_format_u64(digits, v));
}

void
info_hex(struct info *in, const char *label, uint64_t v, unsigned digits)
{
    static const char hex[] = "0123456789abcdef";
    char text[16];
    unsigned n = v == 0 ? 1 : (unsigned)(64 - __builtin_clzll(v) + 3) / 4;

    if (n < digits)
        n = digits > sizeof(text) ? (unsigned)sizeof(text) : digits;
    for (unsigned i = 0; i < n; i++)
        text[n - 1 - i] = hex[(v >> (4 * i)) & 0xf];
    info_str(in, label);
    info_put(in, text, n);
}

/* "source → destination", the ports of the TCP or UDP header at t. */
static void
info_ports(struct info *in, const uint8_t *t)
{
    info_dec(in, "", rs_load_be16(t));
    info_dec(in, " → ", rs_load_be16(t + 2));
}

const char *
rs_print_protocol(const struct rs_packet *pkt)
{
    /* ICMP over IPoIB too: tshark names the top protocol */
    if (rs_packet_has(pkt, RS_LAYER_ICMP))
        return "ICMP";
    if (rs_packet_has(pkt, RS_LAYER_ICMPV6))
        return "ICMPv6";
    if (rs_packet_has(pkt, RS_LAYER_ARP))
        return "ARP";
    /* IPoIB's IP packets, by what they carry */
    switch (rs_packet_has(pkt, RS_LAYER_IPOIB) ? RS_ENCAP_NONE : pkt->encap) {
    case RS_ENCAP_ROCEV1:
        return "RoCE";
    case RS_ENCAP_ROCEV2:
        return "RRoCE";
    case RS_ENCAP_IB:
        return "InfiniBand";    /* as Wireshark names it */
    case RS_ENCAP_IWARP:
        if (!rs_display_get()->info_tshark)
            return "iWARP";
        /* tshark names the top one: DDP/RDMA when the segment ends an FPDU */
        for (unsigned i = 0; pkt->iwarp != NULL && i < pkt->iwarp->n_pdus; i++)
            if (pkt->iwarp->pdus[i].kind == RS_MPA_FPDU)
                return "DDP/RDMA";
        return pkt->iwarp != NULL && pkt->iwarp->n_pdus > 0 ? "MPA" : "TCP";
    default:
        break;
    }
    if (rs_packet_has(pkt, RS_LAYER_UDP))
        return "UDP";
    if (rs_packet_has(pkt, RS_LAYER_TCP))
        return "TCP";
    if (rs_packet_has(pkt, RS_LAYER_IPV4))
        return "IPv4";
    if (rs_packet_has(pkt, RS_LAYER_IPV6))
        return "IPv6";
    if (pkt->ethertype == ETHERTYPE_ARP)
        return "ARP";
    if (rs_packet_has(pkt, RS_LAYER_ETH))
        return "ETH";
    return "Unknown";
}

static void
info_aeth(struct info *in, const uint8_t *aeth)
{
    uint8_t syn = aeth[0];
    uint32_t msn = rs_load_be24(aeth + 1);

    switch (rs_aeth_kind(syn)) {
    case RS_AETH_ACK: {
        int credits = rs_aeth_credits(syn);
        info_dec(in, " MSN=", msn);
        if (credits >= 0)
            info_dec(in, " Credits=", (uint64_t)credits);
        break;
    }
    case RS_AETH_RNR_NAK: {
        uint32_t us = rs_aeth_rnr_timer_us(syn);
        info_add(in, " RNR NAK [delay %u.%02u ms] MSN=%u", us / 1000, us % 1000 / 10, msn);
        break;
    }
    case RS_AETH_NAK: {
        const char *name = rs_aeth_nak_name(syn & 0x1f);
        if (name != NULL)
            info_add(in, " NAK [%s] MSN=%u", name, msn);
        else
            info_add(in, " NAK [Reserved code %u] MSN=%u", syn & 0x1f, msn);
        break;
    }
    default:
        info_add(in, " [Reserved syndrome 0x%02x] MSN=%u", syn, msn);
        break;
    }
}

static void
info_ext_headers(struct info *in, const struct rs_packet *pkt)
{
    if (rs_packet_has(pkt, RS_LAYER_DETH)) {
        const uint8_t *p = rs_packet_at(pkt, RS_LAYER_DETH);
        info_hex(in, " SrcQP=0x", rs_load_be24(p + 5), 6);
    }
    if (rs_packet_has(pkt, RS_LAYER_XRCETH))
        info_hex(in, " XRCSRQ=0x", rs_load_be24(rs_packet_at(pkt, RS_LAYER_XRCETH) + 1), 6);
    if (rs_packet_has(pkt, RS_LAYER_RETH)) {
        const uint8_t *p = rs_packet_at(pkt, RS_LAYER_RETH);
        info_hex(in, " VA=0x", rs_load_be64(p), 1);
        info_hex(in, " R_Key=0x", rs_load_be32(p + 8), 8);
        info_dec(in, " Len=", rs_load_be32(p + 12));
    }
    if (rs_packet_has(pkt, RS_LAYER_ATOMICETH)) {
        const uint8_t *p = rs_packet_at(pkt, RS_LAYER_ATOMICETH);
        info_add(in, " VA=0x%llx R_Key=0x%08x Swap/Add=%llu Cmp=%llu",
                 (unsigned long long)rs_load_be64(p), rs_load_be32(p + 8),
                 (unsigned long long)rs_load_be64(p + 12),
                 (unsigned long long)rs_load_be64(p + 20));
    }
    if (rs_packet_has(pkt, RS_LAYER_AETH))
        info_aeth(in, rs_packet_at(pkt, RS_LAYER_AETH));
    if (rs_packet_has(pkt, RS_LAYER_ATOMICACKETH))
        info_dec(in, " Orig=", rs_load_be64(rs_packet_at(pkt, RS_LAYER_ATOMICACKETH)));
    if (rs_packet_has(pkt, RS_LAYER_IMMDT))
        info_hex(in, " Imm=0x", rs_load_be32(rs_packet_at(pkt, RS_LAYER_IMMDT)), 8);
    if (rs_packet_has(pkt, RS_LAYER_IETH))
        info_hex(in, " Inv_R_Key=0x", rs_load_be32(rs_packet_at(pkt, RS_LAYER_IETH)), 8);
}

/* A MAD named as tshark names it ("CM: ConnectRequest", "SubnGet(SMInfo)"). */
static void
info_mad(struct info *in, const struct rs_packet *pkt, uint32_t dest_qp)
{
    size_t len;
    const uint8_t *mad = rs_mad_of(pkt, &len);
    char name[96];

    if (mad == NULL)
        return;
    /* tshark names a CM MAD by its attribute alone, whatever its version and method. */
    if (dest_qp == RS_CM_QP1 && mad[1] == RS_MAD_CLASS_CM) {
        const char *attr = rs_cm_attr_name(rs_load_be16(mad + 16));
        info_add(in, " CM: %s", attr != NULL ? attr : "(Unknown CM Attribute)");
    } else if (rs_mad_info(mad, len, name, sizeof(name)))
        info_add(in, " %s", name);
}

/* tshark's: "RC RDMA Write Only QP=0x000011 " (with its space), a MAD's name after it,
 * and a CM MAD's name alone ("CM: ConnectRequest"). */
static void
info_ib_tshark(struct info *in, const struct rs_packet *pkt)
{
    const struct rs_ib_opcode *op = rs_ib_opcode_info(pkt->opcode);
    uint32_t qp = rs_load_be24(rs_packet_at(pkt, RS_LAYER_BTH) + 5);
    size_t len;
    const uint8_t *mad = rs_mad_of(pkt, &len);
    char name[96];

    if (mad != NULL && qp == RS_CM_QP1 && mad[1] == RS_MAD_CLASS_CM) {
        const char *attr = rs_cm_attr_name(rs_load_be16(mad + 16));
        info_add(in, "CM: %s", attr != NULL ? attr : "(Unknown CM Attribute)");
        return;
    }
    if (op->name != NULL)
        info_str(in, op->name);
    else
        info_add(in, "%s Opcode 0x%02x", rs_ib_transport_name(pkt->opcode), pkt->opcode);
    info_hex(in, " QP=0x", qp, 6);
    info_str(in, " ");
    if (mad != NULL && rs_mad_info(mad, len, name, sizeof(name)))
        info_str(in, name);
}

static void
info_ib(struct info *in, const struct rs_packet *pkt)
{
    const struct rs_ib_opcode *op = rs_ib_opcode_info(pkt->opcode);
    const uint8_t *bth = rs_packet_at(pkt, RS_LAYER_BTH);

    if (rs_display_get()->info_tshark) {
        info_ib_tshark(in, pkt);
        return;
    }
    if (op->name != NULL)
        info_str(in, op->name);
    else
        info_add(in, "%s Opcode 0x%02x", rs_ib_transport_name(pkt->opcode), pkt->opcode);
    info_hex(in, " QP=0x", rs_load_be24(bth + 5), 6);
    info_dec(in, " PSN=", rs_load_be24(bth + 9));
    if (bth[8] & 0x80)
        info_str(in, " AckReq");
    if (bth[4] & 0x80)
        info_str(in, " FECN");
    if (bth[4] & 0x40)
        info_str(in, " BECN");
    if (pkt->ecn == 3)
        info_str(in, " ECN-CE");
    info_ext_headers(in, pkt);
    if ((op->hdrs & RS_HDR_PAYLOAD) && rs_packet_has(pkt, RS_LAYER_PAYLOAD))
        info_dec(in, " Payload=", pkt->payload_len);
    info_mad(in, pkt, rs_load_be24(bth + 5));
}

/* An MPA Request or Reply: revision, flags, private data, and the IRD/ORD
 * of an enhanced (RFC 6581) exchange. */
static void
info_mpa_frame(struct info *in, const struct rs_iwarp_pdu *p)
{
    const uint8_t *d = p->data;
    uint8_t flags = d[16];
    uint16_t pd = rs_load_be16(d + 18);

    info_add(in, "MPA %s rev %u M=%u C=%u PD=%u", p->kind == RS_MPA_REQUEST ? "Request" : "Reply",
             d[17], flags >> 7, (flags >> 6) & 1, pd);
    if (d[17] == 2 && (flags & RS_MPA_FLAG_ENHANCED) && pd >= 4 && pd <= RS_MPA_MAX_PD_LEN &&
        p->caplen >= 24u) {
        uint16_t ird = rs_load_be16(d + 20), ord = rs_load_be16(d + 22);
        info_add(in, " IRD=%u ORD=%u", ird & 0x3fff, ord & 0x3fff);
        if (ird & 0x8000)
            info_add(in, " P2P RTR=%s", (ird & 0x4000) ? "Send" : (ord & 0x8000) ? "Write" :
                     (ord & 0x4000) ? "Read" : "none");
    }
    if (pd > RS_MPA_MAX_PD_LEN)
        info_add(in, " [PD length over 512]");
    if (p->kind == RS_MPA_REPLY && (flags & RS_MPA_FLAG_REJECT))
        info_add(in, " [Rejected]");
}

/* The RDMAP header after DDP's. */
static void
info_rdmap(struct info *in, uint8_t op, const uint8_t *h, uint32_t avail)
{
    if (op == RS_RDMAP_READ_REQUEST && avail >= RS_RDMAP_READ_REQ_LEN) {
        info_add(in, " Sink=0x%08x@0x%llx Src=0x%08x@0x%llx Size=%u", rs_load_be32(h),
                 (unsigned long long)rs_load_be64(h + 4), rs_load_be32(h + 16),
                 (unsigned long long)rs_load_be64(h + 20), rs_load_be32(h + 12));
    } else if (op == RS_RDMAP_TERMINATE && avail >= 4) {
        static const char *const layers[] = {"RDMA", "DDP", "LLP"};
        uint8_t layer = h[0] >> 4;
        info_add(in, " Layer=%s EType=%u Code=0x%02x", layer < 3 ? layers[layer] : "?",
                 h[0] & 0x0f, h[1]);
    } else if (op == RS_RDMAP_ATOMIC_REQUEST && avail >= 20) {
        uint32_t aop = rs_load_be32(h) & 0x0f;
        info_add(in, " %s Id=%u STag=0x%08x TO=0x%llx",
                 aop == 0 ? "FetchAdd" : aop == 2 ? "CmpSwap" : "Op?", rs_load_be32(h + 4),
                 rs_load_be32(h + 8), (unsigned long long)rs_load_be64(h + 12));
    } else if (op == RS_RDMAP_ATOMIC_RESPONSE && avail >= 12) {
        info_add(in, " Id=%u Orig=%llu", rs_load_be32(h), (unsigned long long)rs_load_be64(h + 4));
    } else if ((op == RS_RDMAP_IMMEDIATE || op == RS_RDMAP_IMMEDIATE_SE) && avail >= 8) {
        info_add(in, " Imm=0x%016llx", (unsigned long long)rs_load_be64(h));
    }
}

static void
info_fpdu(struct info *in, const struct rs_iwarp_pdu *p)
{
    uint32_t avail = p->caplen >= 2 ? p->caplen - 2 : 0;
    const uint8_t *u = p->data + 2;

    if (avail > p->ulpdu_len)
        avail = p->ulpdu_len;
    if (avail < 2) {
        info_add(in, "FPDU Len=%u", p->ulpdu_len);
    } else {
        uint8_t op = u[1] & 0x0f;
        bool tagged = u[0] & 0x80;
        uint32_t hdr = tagged ? RS_DDP_TAGGED_HDR_LEN : RS_DDP_UNTAGGED_HDR_LEN;
        const char *name = rs_rdmap_opcode_name(op);
        if (name != NULL)
            info_str(in, name);
        else
            info_add(in, "RDMAP Opcode 0x%x", op);
        if (tagged && avail >= hdr) {
            info_hex(in, " STag=0x", rs_load_be32(u + 2), 8);
            info_hex(in, " TO=0x", rs_load_be64(u + 6), 1);
        } else if (!tagged && avail >= hdr) {
            info_dec(in, " QN=", rs_load_be32(u + 6));
            info_dec(in, " MSN=", rs_load_be32(u + 10));
            info_dec(in, " MO=", rs_load_be32(u + 14));
        }
        if (!tagged && avail >= 6 &&
            (op == RS_RDMAP_SEND_INVALIDATE || op == RS_RDMAP_SEND_SE_INVALIDATE))
            info_add(in, " Inv_STag=0x%08x", rs_load_be32(u + 2));
        if (avail >= hdr)
            info_rdmap(in, op, u + hdr, avail - hdr);
        if (u[0] & 0x40)
            info_str(in, " Last");
        if (p->ulpdu_len >= hdr)
            info_dec(in, " Len=", p->ulpdu_len - hdr);
    }
    /* A message of several segments: its length on the last. */
    if ((p->flags & RS_IWARP_PDU_MSG_LAST) && avail >= RS_DDP_UNTAGGED_HDR_LEN &&
        rs_load_be32(u + 14) != 0)
        info_add(in, " [Message %llu]", (unsigned long long)p->msg_len);
    if (p->crc_status == RS_CKSUM_BAD)
        info_add(in, (p->flags & RS_IWARP_PDU_CRC_SWAPPED) ? " [Bad MPA CRC: byte order]" :
                                                             " [Bad MPA CRC]");
    if (p->flags & RS_IWARP_PDU_TRUNCATED)
        info_add(in, " [Incomplete]");
    if (p->flags & RS_IWARP_PDU_INFERRED)
        info_add(in, " [Framing inferred]");
}

/* The options tshark's TCP Info names, in the order they come. SACK blocks
 * are relative to the other direction's first sequence number, so they need
 * the streams stage (v); without it they are left out. */
static void
info_tcp_options(struct info *in, const uint8_t *opt, uint32_t len,
                 const struct rs_stream_view *sv)
{
    for (uint32_t i = 0; i < len;) {
        uint8_t kind = opt[i];
        if (kind == 0)
            break;              /* end of options */
        if (kind == 1) {
            i++;                /* no-operation */
            continue;
        }
        if (i + 1 >= len || opt[i + 1] < 2 || i + opt[i + 1] > len)
            break;              /* a length that does not fit: the rest is not options */
        uint8_t olen = opt[i + 1];
        const uint8_t *val = opt + i + 2;
        if (kind == 2 && olen == 4)
            info_add(in, " MSS=%u", rs_load_be16(val));
        else if (kind == 4 && olen == 2)
            info_add(in, " SACK_PERM");
        else if (kind == 8 && olen == 10)
            info_add(in, " TSval=%u TSecr=%u", rs_load_be32(val), rs_load_be32(val + 4));
        else if (kind == 3 && olen == 3)
            info_add(in, " WS=%u", val[0] <= 14 ? 1u << val[0] : 1u << 14);
        else if (kind == 5 && sv != NULL)
            for (uint32_t k = 0; k + 8 <= olen - 2u; k += 8)
                info_add(in, " SLE=%u SRE=%u", rs_load_be32(val + k) - sv->peer_base,
                         rs_load_be32(val + k + 4) - sv->peer_base);
        i += olen;
    }
}

/* tshark's TCP Info: "60532 → 18515 [SYN, ACK] Seq=0 Ack=1 Win=65160 Len=0
 * MSS=1460 SACK_PERM ...". Seq and Ack (relative to each direction's first)
 * and Win (scaled by the SYN's shift) come from the streams stage, and are
 * left out when it did not run (a frame decoded again on its own). */
/* tshark's sequence analysis in front of TCP's Info: each finding prepended in the order
 * packet-tcp.c reports them, so the last reported comes first. */
static void
info_tcp_analysis(struct info *in, const struct rs_tcp_analysis *a)
{
    static const struct {
        uint16_t flag;
        const char *text;
    } found[] = {
        {RS_TCPA_REUSED_PORTS, "[TCP Port numbers reused] "},
        {RS_TCPA_RETRANSMISSION, "[TCP Retransmission] "},
        {RS_TCPA_FAST_RETRANSMISSION, "[TCP Fast Retransmission] "},
        {RS_TCPA_SPURIOUS_RETRANSMISSION, "[TCP Spurious Retransmission] "},
        {RS_TCPA_OUT_OF_ORDER, "[TCP Out-Of-Order] "},
        {RS_TCPA_LOST_SEGMENT, "[TCP Previous segment not captured] "},
        {RS_TCPA_ACK_LOST_SEGMENT, "[TCP ACKed unseen segment] "},
        {RS_TCPA_WINDOW_UPDATE, "[TCP Window Update] "},
        {RS_TCPA_WINDOW_FULL, "[TCP Window Full] "},
        {RS_TCPA_KEEP_ALIVE, "[TCP Keep-Alive] "},
        {RS_TCPA_KEEP_ALIVE_ACK, "[TCP Keep-Alive ACK] "},
        {RS_TCPA_DUPLICATE_ACK, NULL},
        {RS_TCPA_ZERO_WINDOW_PROBE, "[TCP ZeroWindowProbe] "},
        {RS_TCPA_ZERO_WINDOW, "[TCP ZeroWindow] "},
        {RS_TCPA_ZERO_WINDOW_PROBE_ACK, "[TCP ZeroWindowProbeAck] "},
    };

    for (size_t i = RS_ARRAY_SIZE(found); i-- > 0;) {
        if (!(a->flags & found[i].flag))
            continue;
        if (found[i].text != NULL)
            info_str(in, found[i].text);
        else
            info_add(in, "[TCP Dup ACK %llu#%u] ", (unsigned long long)a->dupack_frame,
                     a->dupack_num);
    }
}

static void
info_tcp(struct info *in, const struct rs_packet *pkt)
{
    /* Bit 8 is RFC 3540's NS, which tshark 4.0 calls AE (Accurate ECN). */
    static const char *const names[] = {"FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR",
                                        "AE"};
    const uint8_t *t = rs_packet_at(pkt, RS_LAYER_TCP);
    unsigned flags = (unsigned)(rs_load_be16(t + 12) & 0x1ff);
    bool any = false;

    if (pkt->stream != NULL && rs_display_get()->info_tshark)
        info_tcp_analysis(in, &pkt->stream->analysis);
    info_ports(in, t);
    info_str(in, " [");
    for (unsigned bit = 0; bit < RS_ARRAY_SIZE(names); bit++) {
        if (flags & (1u << bit)) {
            if (any)
                info_str(in, ", ");
            info_str(in, names[bit]);
            any = true;
        }
    }
    info_str(in, any ? "]" : "<None>]");
    const struct rs_stream_view *sv = pkt->stream;
    if (sv != NULL) {
        info_dec(in, " Seq=", sv->seq);
        if (flags & 0x10)
            info_dec(in, " Ack=", sv->ack);
        info_dec(in, " Win=", sv->window);
    }
    if (flags & 0x20)
        info_dec(in, " Urg=", rs_load_be16(t + 18));
    info_dec(in, " Len=", rs_tcp_payload_len(pkt));
    info_tcp_options(in, t + 20, pkt->span[RS_LAYER_TCP].len - 20u, sv);
}

/* tshark's: "42742 > 9999 " (an ASCII '>'), then "MPA Request Frame", "MPA Reply Frame"
 * or the RDMAP operation of each FPDU with " [last DDP segment]" on a last one. */
static void
info_iwarp_tshark(struct info *in, const struct rs_packet *pkt)
{
    const struct rs_iwarp_view *v = pkt->iwarp;
    const uint8_t *t = rs_packet_at(pkt, RS_LAYER_TCP);

    if (v->n_pdus == 0) {
        info_tcp(in, pkt);      /* a segment that ends no PDU is TCP's to tshark */
        return;
    }
    info_dec(in, "", rs_load_be16(t));
    info_dec(in, " > ", rs_load_be16(t + 2));
    info_str(in, " ");
    for (unsigned i = 0; i < v->n_pdus; i++) {
        const struct rs_iwarp_pdu *p = &v->pdus[i];
        if (p->kind != RS_MPA_FPDU) {
            info_str(in, p->kind == RS_MPA_REQUEST ? "MPA Request Frame" : "MPA Reply Frame");
            continue;
        }
        if (p->caplen < 4)
            continue;
        const char *name = rs_rdmap_opcode_name(p->data[3] & 0x0f);
        info_str(in, name != NULL ? name : "Unknown");
        if (p->data[2] & 0x40)
            info_str(in, " [last DDP segment]");
    }
}

/* Ports, then every MPA frame or FPDU that ended in the segment. */
static void
info_iwarp(struct info *in, const struct rs_packet *pkt)
{
    const struct rs_iwarp_view *v = pkt->iwarp;
    const uint8_t *t = rs_packet_at(pkt, RS_LAYER_TCP);

    if (rs_display_get()->info_tshark) {
        info_iwarp_tshark(in, pkt);
        return;
    }

    info_ports(in, t);
    for (unsigned i = 0; i < v->n_pdus; i++) {
        const struct rs_iwarp_pdu *p = &v->pdus[i];
        info_str(in, i == 0 ? " " : "; ");
        if (p->kind == RS_MPA_FPDU)
            info_fpdu(in, p);
        else
            info_mpa_frame(in, p);
    }
    if (v->flags & RS_IWARP_VIEW_GAP)
        info_add(in, " [Bytes lost before]");
    if (v->flags & RS_IWARP_VIEW_RETRANSMISSION)
        info_add(in, " [Retransmission]");
    if (v->flags & RS_IWARP_VIEW_OUT_OF_ORDER)
        info_add(in, " [Out of order: held]");
    if (v->flags & RS_IWARP_VIEW_CONTINUATION)
        info_add(in, " [FPDU continues]");
    if (v->flags & RS_IWARP_VIEW_OVERFLOW)
        info_add(in, " [More PDUs than shown]");
}

/* Wireshark's words for an ARP message: "Who has 10.0.0.2? Tell 10.0.0.1", "10.0.0.2 is at
 * 02:00:00:00:00:02", and its names for gratuitous ARP, probes and announcements. */
static void
info_arp(struct info *in, const struct rs_packet *pkt)
{
    enum rs_arp_kind kind;
    const char *op = rs_arp_kind(pkt, &kind);
    uint16_t opcode = rs_load_be16(rs_packet_at(pkt, RS_LAYER_ARP) + 6);
    char a[4][80];

    for (unsigned i = 0; i < 4; i++)
        rs_arp_address_text(pkt, i, a[i], sizeof(a[i]));
    if (op == NULL) {
        info_hex(in, "Unknown ARP opcode 0x", opcode, 4);
        return;
    }
    switch (opcode) {
    case 1:
        if (kind == RS_ARP_ANNOUNCEMENT)
            info_add(in, "ARP Announcement for %s", a[3]);
        else if (kind == RS_ARP_GRATUITOUS)
            info_add(in, "Gratuitous ARP for %s (Request)", a[3]);
        else if (kind == RS_ARP_PROBE)
            info_add(in, "Who has %s? (ARP Probe)", a[3]);
        else
            info_add(in, "Who has %s? Tell %s", a[3], a[1]);
        break;
    case 2:
        if (kind == RS_ARP_GRATUITOUS)
            info_add(in, "Gratuitous ARP for %s (Reply)", a[1]);
        else
            info_add(in, "%s is at %s", a[1], a[0]);
        break;
    case 3:
    case 8:
        info_add(in, "Who is %s? Tell %s", a[2], a[0]);
        break;
    case 4:
        info_add(in, "%s is at %s", a[2], a[3]);
        break;
    default:
        info_add(in, "%s is at %s", a[0], a[1]);
        break;
    }
}

/* What the analysis found, in brackets as Wireshark shows its TCP analysis. */
static void
info_facts(struct info *in, const struct rs_facts *f)
{
    if (f->flags & RS_FACT_RETRANSMISSION)
        info_str(in, (f->flags & RS_FACT_RESPONSE) ? " [Duplicate response]" : " [Retransmission]");
    if (f->flags & RS_FACT_PSN_GAP) {
        info_dec(in, " [PSN gap ", f->psn_gap);
        info_str(in, "]");
    }
    if (f->flags & RS_FACT_OPCODE_SEQ)
        info_str(in, " [Opcode sequence error]");
    if (f->flags & RS_FACT_LENGTH_MISMATCH)
        info_str(in, " [Length mismatch]");
    if (f->flags & RS_FACT_VIOLATION)
        info_add(in, " [Violation: %s]", rs_violation_name(f->violation));
    if (f->flags & RS_FACT_CNP_FOR)
        info_add(in, " [CNP for conversation %u]", f->cnp_for);
}

/* What is wrong with the frame, or what it answers for: bad CRCs and the
 * analysis's facts. */
static void
info_marks(struct info *in, const struct rs_packet *pkt)
{
    if (pkt->icrc_status == RS_CKSUM_BAD)
        info_str(in, " [Bad ICRC]");
    if (pkt->vcrc_status == RS_CKSUM_BAD)
        info_str(in, " [Bad VCRC]");
    if (pkt->facts != NULL)
        info_facts(in, pkt->facts);
}

size_t
rs_print_info_marks(const struct rs_packet *pkt, char *buf, size_t size)
{
    struct info in = {buf, size, 0};

    if (size > 0) {
        buf[0] = '\0';
        info_marks(&in, pkt);
    }
    return in.len;
}

size_t
rs_print_info(const struct rs_packet *pkt, char *buf, size_t size)
{
    struct info in = {buf, size, 0};

    if (size == 0)
        return 0;
    buf[0] = '\0';
    struct rs_icmp icmp;
    if (rs_icmp_of(pkt, &icmp)) {
        summary_icmp_info(&in, pkt, &icmp);
    } else if (rs_packet_has(pkt, RS_LAYER_ARP)) {
        info_arp(&in, pkt);
    } else if (rs_packet_has(pkt, RS_LAYER_BTH) && !rs_packet_has(pkt, RS_LAYER_IPOIB)) {
        info_ib(&in, pkt);
    } else if (pkt->iwarp != NULL) {
        info_iwarp(&in, pkt);
    } else if (rs_packet_has(pkt, RS_LAYER_UDP)) {
        const uint8_t *u = rs_packet_at(pkt, RS_LAYER_UDP);
        info_ports(&in, u);
        info_dec(&in, " Len=", rs_load_be16(u + 4) >= 8 ? rs_load_be16(u + 4) - 8u : 0u);
    } else if (rs_packet_has(pkt, RS_LAYER_TCP)) {
        info_tcp(&in, pkt);
    } else if (rs_packet_has(pkt, RS_LAYER_LRH)) {
        info_add(&in, "Raw IB packet (LNH %u)", rs_packet_at(pkt, RS_LAYER_LRH)[1] & 3);
    } else if (pkt->ethertype != 0) {
        info_add(&in, "Ethertype 0x%04x", pkt->ethertype);
    }
    if (rs_display_get()->info_tshark) {
        if (pkt->flags & RS_PKT_MALFORMED)
            info_str(&in, in.len > 0 ? " [Malformed Packet]" : "[Malformed Packet]");
        return in.len;
    }
    info_marks(&in, pkt);
    if (pkt->flags & RS_PKT_MALFORMED)
        info_add(&in, " [Malformed: %s]", pkt->problem);
    return in.len;
}

void
rs_print_addresses(const struct rs_packet *pkt, char *src, char *dst, size_t size)
{
    const uint8_t *p;

    strcpy(src, "");
    strcpy(dst, "");
    if (rs_packet_has(pkt, RS_LAYER_IPV4)) {
        p = rs_packet_at(pkt, RS_LAYER_IPV4);
        if (size >= RS_IPV4_TEXT_MAX) {
            rs_format_ipv4(src, p + 12);
            rs_format_ipv4(dst, p + 16);
        }
    } else if (rs_packet_has(pkt, RS_LAYER_IPV6) || rs_packet_has(pkt, RS_LAYER_GRH)) {
        p = rs_packet_at(pkt, rs_packet_has(pkt, RS_LAYER_IPV6) ? RS_LAYER_IPV6 : RS_LAYER_GRH);
        /* a native InfiniBand GRH's GIDs are InfiniBand addresses to Wireshark, named so */
        size_t gid = !rs_packet_has(pkt, RS_LAYER_IPV6) && rs_packet_has(pkt, RS_LAYER_LRH)
                         ? 5 : 0;
        if (size >= RS_IPV6_TEXT_MAX + gid) {
            memcpy(src, "GID: ", gid);
            memcpy(dst, "GID: ", gid);
            rs_format_ipv6(src + gid, p + 8);
            rs_format_ipv6(dst + gid, p + 24);
        }
    } else if (rs_packet_has(pkt, RS_LAYER_LRH)) {
        p = rs_packet_at(pkt, RS_LAYER_LRH);
        snprintf(src, size, "LID: %u", rs_load_be16(p + 6));
        snprintf(dst, size, "LID: %u", rs_load_be16(p + 2));
    } else if (rs_packet_has(pkt, RS_LAYER_ETH)) {
        p = rs_packet_at(pkt, RS_LAYER_ETH);
        rs_ether_name_shown(p + 6, src, size);     /* "RealtekU_8b:2d:12", as tshark's */
        rs_ether_name_shown(p, dst, size);
    }
}

/* A time of day, with the date when asked (2020-07-04, or 2020/186 with day_of_year),
 * and the decimals the frame's clock has. */
static void
clock_time(const struct rs_frame *f, bool utc, bool date, bool day_of_year, char *buf,
           size_t size)
{
    time_t sec = (time_t)f->ts_sec;
    struct tm tm;
    char frac[16] = "";

    if ((utc ? gmtime_r(&sec, &tm) : localtime_r(&sec, &tm)) == NULL) {
        snprintf(buf, size, "%lld", (long long)f->ts_sec);
        return;
    }
    if (f->ts_digits > 0) {
        uint32_t v = f->ts_nsec;
        for (unsigned d = f->ts_digits; d < 9; d++)
            v /= 10;
        snprintf(frac, sizeof(frac), ".%0*u", (int)f->ts_digits, v);
    }
    size_t n = strftime(buf, size, day_of_year ? "%Y/%j %H:%M:%S" :
                                   date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
    snprintf(buf + n, size - n, "%s", frac);
}

/* The time column, as -t asks; the frames shown so far matter for "dd". */
static void
time_column(struct rs_out *o, const struct rs_frame *f, char *buf, size_t size)
{
    struct rs_time t = rs_frame_time(f), shown = o->shown_before ? o->last_shown : t;
    struct rs_time v = f->rel;

    switch (o->time_col) {
    case RS_TIME_COL_ABSOLUTE:
    case RS_TIME_COL_ABSOLUTE_DATE:
    case RS_TIME_COL_UTC:
    case RS_TIME_COL_UTC_DATE:
    case RS_TIME_COL_ABSOLUTE_DOY:
    case RS_TIME_COL_UTC_DOY:
        buf[0] = ' ';
        clock_time(f, o->time_col == RS_TIME_COL_UTC || o->time_col == RS_TIME_COL_UTC_DATE ||
                          o->time_col == RS_TIME_COL_UTC_DOY,
                   o->time_col == RS_TIME_COL_ABSOLUTE_DATE ||
                       o->time_col == RS_TIME_COL_UTC_DATE,
                   o->time_col >= RS_TIME_COL_ABSOLUTE_DOY, buf + 1, size - 1);
        return;
    case RS_TIME_COL_EPOCH:
        v = t;
        break;
    case RS_TIME_COL_DELTA:
        v = f->delta;
        break;
    case RS_TIME_COL_DELTA_SHOWN:
        v = rs_time_sub(t, shown);
        break;
    default:
        break;
    }
    /* With the decimals the frame's clock has, as tshark's time column. */
    buf[0] = ' ';
    rs_time_format(v, f->ts_digits, buf + !rs_time_is_negative(v));
}

/* " text", padded with spaces to width on the left (right) or on the right; with -T
 * tabs a tab in front */
static void
pad_cell(struct rs_out *o, const char *text, size_t width, bool right)
{
    size_t len = strlen(text);     /* bytes, as tshark counts them */

    rs_out_char(o, o->tabs ? '\t' : ' ');
    for (size_t i = len; right && i < width; i++)
        rs_out_char(o, ' ');
    rs_out_str(o, text);
    for (size_t i = len; !right && i < width; i++)
        rs_out_char(o, ' ');
}

void
rs_print_summary(struct rs_out *o, const struct rs_packet *pkt)
{
    const struct rs_frame *f = pkt->frame;
    char src[RS_PRINT_ADDRESS_MAX], dst[RS_PRINT_ADDRESS_MAX], info[512];
    char when[64];

    time_column(o, f, when, sizeof(when));
    o->shown_before = true;
    o->last_shown = rs_frame_time(f);
    rs_print_addresses(pkt, src, dst, sizeof(src));
    size_t info_len = rs_print_info(pkt, info, sizeof(info));
    rs_out_pad_u64(o, f->number, 5);
    char sep = o->tabs ? '\t' : ' ';
    if (rs_display_get()->info_tshark || o->tabs) {
        /* tshark's widths: time and source right-aligned in 10 and 12 columns, the
         * destination left-aligned in 12 */
        pad_cell(o, when + (when[0] == ' '), 10, true);
        pad_cell(o, src, 12, true);
        rs_out_char(o, sep);
        rs_out_str(o, "→");
        pad_cell(o, dst, 12, false);
        rs_out_char(o, sep);
        rs_out_str(o, rs_print_protocol(pkt));
        rs_out_char(o, sep);
    } else {
        /* "%5llu %s %s → %s %s %u %s\n" without printf, which was a tenth of the time. */
        const char *cells[] = {" ", when, " ", src, " → ", dst, " ", rs_print_protocol(pkt),
                               " "};
        for (size_t i = 0; i < RS_ARRAY_SIZE(cells); i++)
            rs_out_str(o, cells[i]);
    }
    rs_out_pad_u64(o, rs_packet_wire_len(pkt), 0);
    rs_out_char(o, sep);
    rs_out_write(o, info, info_len);
    rs_out_char(o, '\n');
    rs_out_end_frame(o);
}

static const char *const psml_columns[] = {"No.", "Time", "Source", "Destination", "Protocol",
                                           "Length", "Info"};

void
rs_print_psml_begin(struct rs_out *o)
{
    rs_out_str(o, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                  "<psml version=\"0\" creator=\"roceshark/" RS_VERSION "\">\n<structure>\n");
    for (size_t i = 0; i < sizeof(psml_columns) / sizeof(psml_columns[0]); i++)
        rs_out_printf(o, "<section>%s</section>\n", psml_columns[i]);
    rs_out_str(o, "</structure>\n\n");
}

void
rs_print_psml(struct rs_out *o, const struct rs_packet *pkt)
{
    const struct rs_frame *f = pkt->frame;
    char src[RS_PRINT_ADDRESS_MAX], dst[RS_PRINT_ADDRESS_MAX], info[512], when[64];

    time_column(o, f, when, sizeof(when));
    o->shown_before = true;
    o->last_shown = rs_frame_time(f);
    rs_print_addresses(pkt, src, dst, sizeof(src));
    rs_print_info(pkt, info, sizeof(info));
    rs_out_printf(o, "<packet>\n<section>%llu</section>\n<section>",
                  (unsigned long long)f->number);
    rs_out_xml(o, when + (when[0] == ' '), strlen(when + (when[0] == ' ')));    /* unpadded */
    const char *cells[] = {src, dst, rs_print_protocol(pkt)};
    for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++) {
        rs_out_str(o, "</section>\n<section>");
        rs_out_xml(o, cells[i], strlen(cells[i]));
    }
    rs_out_printf(o, "</section>\n<section>%u</section>\n<section>", rs_packet_wire_len(pkt));
    rs_out_xml(o, info, strlen(info));
    rs_out_str(o, "</section>\n</packet>\n\n");
    rs_out_end_frame(o);
}

void
rs_print_psml_end(struct rs_out *o)
{
    rs_out_str(o, "</psml>\n");
}
