/*
 * print_summary.c - the one-line-per-frame output: number, time, source,
 * destination, protocol, length and an Info column that tells an RDMA
 * engineer what the packet does (opcode, QP, PSN, and any NAK reason).
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/analysis.h>
#include <roceshark/dissect.h>
#include <roceshark/print.h>
#include <roceshark/wire.h>

#define ETHERTYPE_ARP 0x0806

/* Appends to a fixed buffer, dropping what does not fit. */
struct info {
    char *buf;
    size_t size;
    size_t len;
};

static void __attribute__((format(printf, 2, 3)))
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

const char *
rs_print_protocol(const struct rs_packet *pkt)
{
    switch (pkt->encap) {
    case RS_ENCAP_ROCEV1:
        return "RoCE";
    case RS_ENCAP_ROCEV2:
        return "RRoCE";
    case RS_ENCAP_IB:
        return "IB";
    case RS_ENCAP_IWARP:
        return "iWARP";
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
        if (credits >= 0)
            info_add(in, " MSN=%u Credits=%d", msn, credits);
        else
            info_add(in, " MSN=%u", msn);
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
        info_add(in, " SrcQP=0x%06x", rs_load_be24(p + 5));
    }
    if (rs_packet_has(pkt, RS_LAYER_XRCETH))
        info_add(in, " XRCSRQ=0x%06x", rs_load_be24(rs_packet_at(pkt, RS_LAYER_XRCETH) + 1));
    if (rs_packet_has(pkt, RS_LAYER_RETH)) {
        const uint8_t *p = rs_packet_at(pkt, RS_LAYER_RETH);
        info_add(in, " VA=0x%llx R_Key=0x%08x Len=%u", (unsigned long long)rs_load_be64(p),
                 rs_load_be32(p + 8), rs_load_be32(p + 12));
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
        info_add(in, " Orig=%llu",
                 (unsigned long long)rs_load_be64(rs_packet_at(pkt, RS_LAYER_ATOMICACKETH)));
    if (rs_packet_has(pkt, RS_LAYER_IMMDT))
        info_add(in, " Imm=0x%08x", rs_load_be32(rs_packet_at(pkt, RS_LAYER_IMMDT)));
    if (rs_packet_has(pkt, RS_LAYER_IETH))
        info_add(in, " Inv_R_Key=0x%08x", rs_load_be32(rs_packet_at(pkt, RS_LAYER_IETH)));
}

static void
info_ib(struct info *in, const struct rs_packet *pkt)
{
    const struct rs_ib_opcode *op = rs_ib_opcode_info(pkt->opcode);
    const uint8_t *bth = rs_packet_at(pkt, RS_LAYER_BTH);

    if (op->name != NULL)
        info_add(in, "%s", op->name);
    else
        info_add(in, "%s Opcode 0x%02x", rs_ib_transport_name(pkt->opcode), pkt->opcode);
    info_add(in, " QP=0x%06x PSN=%u", rs_load_be24(bth + 5), rs_load_be24(bth + 9));
    if (bth[8] & 0x80)
        info_add(in, " AckReq");
    if (bth[4] & 0x80)
        info_add(in, " FECN");
    if (bth[4] & 0x40)
        info_add(in, " BECN");
    if (pkt->ecn == 3)
        info_add(in, " ECN-CE");
    info_ext_headers(in, pkt);
    if ((op->hdrs & RS_HDR_PAYLOAD) && rs_packet_has(pkt, RS_LAYER_PAYLOAD))
        info_add(in, " Payload=%u", pkt->payload_len);
    if (pkt->icrc_status == RS_CKSUM_BAD)
        info_add(in, " [Bad ICRC]");
    if (pkt->vcrc_status == RS_CKSUM_BAD)
        info_add(in, " [Bad VCRC]");
}

/* What the analysis found, in brackets as Wireshark shows its TCP analysis. */
static void
info_facts(struct info *in, const struct rs_facts *f)
{
    if (f->flags & RS_FACT_RETRANSMISSION)
        info_add(in, (f->flags & RS_FACT_RESPONSE) ? " [Duplicate response]" : " [Retransmission]");
    if (f->flags & RS_FACT_PSN_GAP)
        info_add(in, " [PSN gap %u]", f->psn_gap);
    if (f->flags & RS_FACT_OPCODE_SEQ)
        info_add(in, " [Opcode sequence error]");
    if (f->flags & RS_FACT_LENGTH_MISMATCH)
        info_add(in, " [Length mismatch]");
    if (f->flags & RS_FACT_VIOLATION)
        info_add(in, " [Violation: %s]", rs_violation_name(f->violation));
    if (f->flags & RS_FACT_CNP_FOR)
        info_add(in, " [CNP for conversation %u]", f->cnp_for);
}

size_t
rs_print_info(const struct rs_packet *pkt, char *buf, size_t size)
{
    struct info in = {buf, size, 0};

    if (size == 0)
        return 0;
    buf[0] = '\0';
    if (rs_packet_has(pkt, RS_LAYER_BTH)) {
        info_ib(&in, pkt);
    } else if (rs_packet_has(pkt, RS_LAYER_UDP)) {
        const uint8_t *u = rs_packet_at(pkt, RS_LAYER_UDP);
        info_add(&in, "%u → %u Len=%u", rs_load_be16(u), rs_load_be16(u + 2),
                 rs_load_be16(u + 4) >= 8 ? rs_load_be16(u + 4) - 8u : 0u);
    } else if (rs_packet_has(pkt, RS_LAYER_TCP)) {
        const uint8_t *t = rs_packet_at(pkt, RS_LAYER_TCP);
        info_add(&in, "%u → %u", rs_load_be16(t), rs_load_be16(t + 2));
    } else if (rs_packet_has(pkt, RS_LAYER_LRH)) {
        info_add(&in, "Raw IB packet (LNH %u)", rs_packet_at(pkt, RS_LAYER_LRH)[1] & 3);
    } else if (pkt->ethertype != 0) {
        info_add(&in, "Ethertype 0x%04x", pkt->ethertype);
    }
    if (pkt->facts != NULL)
        info_facts(&in, pkt->facts);
    if (pkt->flags & RS_PKT_MALFORMED)
        info_add(&in, " [Malformed: %s]", pkt->problem);
    return in.len;
}

/* Source and destination, from the innermost network addresses present. */
static void
summary_addresses(const struct rs_packet *pkt, char *src, char *dst, size_t size)
{
    const uint8_t *p;

    strcpy(src, "");
    strcpy(dst, "");
    if (rs_packet_has(pkt, RS_LAYER_IPV4)) {
        p = rs_packet_at(pkt, RS_LAYER_IPV4);
        inet_ntop(AF_INET, p + 12, src, (socklen_t)size);
        inet_ntop(AF_INET, p + 16, dst, (socklen_t)size);
    } else if (rs_packet_has(pkt, RS_LAYER_IPV6)) {
        p = rs_packet_at(pkt, RS_LAYER_IPV6);
        inet_ntop(AF_INET6, p + 8, src, (socklen_t)size);
        inet_ntop(AF_INET6, p + 24, dst, (socklen_t)size);
    } else if (rs_packet_has(pkt, RS_LAYER_GRH)) {
        p = rs_packet_at(pkt, RS_LAYER_GRH);
        inet_ntop(AF_INET6, p + 8, src, (socklen_t)size);
        inet_ntop(AF_INET6, p + 24, dst, (socklen_t)size);
    } else if (rs_packet_has(pkt, RS_LAYER_LRH)) {
        p = rs_packet_at(pkt, RS_LAYER_LRH);
        snprintf(src, size, "LID %u", rs_load_be16(p + 6));
        snprintf(dst, size, "LID %u", rs_load_be16(p + 2));
    } else if (rs_packet_has(pkt, RS_LAYER_ETH)) {
        p = rs_packet_at(pkt, RS_LAYER_ETH);
        snprintf(src, size, "%02x:%02x:%02x:%02x:%02x:%02x", p[6], p[7], p[8], p[9], p[10],
                 p[11]);
        snprintf(dst, size, "%02x:%02x:%02x:%02x:%02x:%02x", p[0], p[1], p[2], p[3], p[4],
                 p[5]);
    }
}

void
rs_print_summary(struct rs_out *o, const struct rs_packet *pkt)
{
    const struct rs_frame *f = pkt->frame;
    char src[INET6_ADDRSTRLEN + 8], dst[INET6_ADDRSTRLEN + 8], info[512];
    int64_t rel = f->rel_ns;
    unsigned digits = f->ts_digits == 9 ? 9 : 6;
    uint64_t frac = (uint64_t)(rel < 0 ? -rel : rel) % 1000000000u;

    if (digits == 6)
        frac /= 1000;
    summary_addresses(pkt, src, dst, sizeof(src));
    rs_print_info(pkt, info, sizeof(info));
    rs_out_printf(o, "%5llu %s%lld.%0*llu %s → %s %s %u %s\n", (unsigned long long)f->number,
                  rel < 0 ? "-" : " ", (long long)((rel < 0 ? -rel : rel) / 1000000000),
                  (int)digits, (unsigned long long)frac, src, dst, rs_print_protocol(pkt),
                  rs_packet_wire_len(pkt), info);
    rs_out_end_frame(o);
}
