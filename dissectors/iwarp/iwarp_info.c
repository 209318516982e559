/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwarp_info.c - iWARP's part of the Info column (info.h): the ports, then every MPA frame
 * (revision, flags, private data, RFC 6581 IRD/ORD) or FPDU (the RDMAP operation, the DDP
 * header's STag and TO or QN, MSN and MO, the RDMAP header after it) that ended in the
 * segment, and what the reassembly found; or tshark's shorter text under -o compat.
 */
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/info.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/wire.h>

/* An MPA Request or Reply: revision, flags, private data, and the IRD/ORD
 * of an enhanced (RFC 6581) exchange. */
static void
info_mpa_frame(struct rs_info *in, const struct rs_iwarp_pdu *p)
{
    const uint8_t *d = p->data;
    uint8_t flags = d[16];
    uint16_t pd = rs_load_be16(d + 18);

    rs_info_add(in, "MPA %s rev %u M=%u C=%u PD=%u", p->kind == RS_MPA_REQUEST ? "Request" : "Reply",
             d[17], flags >> 7, (flags >> 6) & 1, pd);
    if (d[17] == 2 && (flags & RS_MPA_FLAG_ENHANCED) && pd >= 4 && pd <= RS_MPA_MAX_PD_LEN &&
        p->caplen >= 24u) {
        uint16_t ird = rs_load_be16(d + 20), ord = rs_load_be16(d + 22);
        rs_info_add(in, " IRD=%u ORD=%u", ird & 0x3fff, ord & 0x3fff);
        if (ird & 0x8000)
            rs_info_add(in, " P2P RTR=%s", (ird & 0x4000) ? "Send" : (ord & 0x8000) ? "Write" :
                     (ord & 0x4000) ? "Read" : "none");
    }
    if (pd > RS_MPA_MAX_PD_LEN)
        rs_info_add(in, " [PD length over 512]");
    if (p->kind == RS_MPA_REPLY && (flags & RS_MPA_FLAG_REJECT))
        rs_info_add(in, " [Rejected]");
}

/* The RDMAP header after DDP's. */
static void
info_rdmap(struct rs_info *in, uint8_t op, const uint8_t *h, uint32_t avail)
{
    if (op == RS_RDMAP_READ_REQUEST && avail >= RS_RDMAP_READ_REQ_LEN) {
        rs_info_add(in, " Sink=0x%08x@0x%llx Src=0x%08x@0x%llx Size=%u", rs_load_be32(h),
                 (unsigned long long)rs_load_be64(h + 4), rs_load_be32(h + 16),
                 (unsigned long long)rs_load_be64(h + 20), rs_load_be32(h + 12));
    } else if (op == RS_RDMAP_TERMINATE && avail >= 4) {
        static const char *const layers[] = {"RDMA", "DDP", "LLP"};
        uint8_t layer = h[0] >> 4;
        rs_info_add(in, " Layer=%s EType=%u Code=0x%02x", layer < 3 ? layers[layer] : "?",
                 h[0] & 0x0f, h[1]);
    } else if (op == RS_RDMAP_ATOMIC_REQUEST && avail >= 20) {
        uint32_t aop = rs_load_be32(h) & 0x0f;
        rs_info_add(in, " %s Id=%u STag=0x%08x TO=0x%llx",
                 aop == 0 ? "FetchAdd" : aop == 2 ? "CmpSwap" : "Op?", rs_load_be32(h + 4),
                 rs_load_be32(h + 8), (unsigned long long)rs_load_be64(h + 12));
    } else if (op == RS_RDMAP_ATOMIC_RESPONSE && avail >= 12) {
        rs_info_add(in, " Id=%u Orig=%llu", rs_load_be32(h), (unsigned long long)rs_load_be64(h + 4));
    } else if ((op == RS_RDMAP_IMMEDIATE || op == RS_RDMAP_IMMEDIATE_SE) && avail >= 8) {
        rs_info_add(in, " Imm=0x%016llx", (unsigned long long)rs_load_be64(h));
    }
}

static void
info_fpdu(struct rs_info *in, const struct rs_iwarp_pdu *p)
{
    uint32_t avail = p->caplen >= 2 ? p->caplen - 2 : 0;
    const uint8_t *u = p->data + 2;

    if (avail > p->ulpdu_len)
        avail = p->ulpdu_len;
    if (avail < 2) {
        rs_info_add(in, "FPDU Len=%u", p->ulpdu_len);
    } else {
        uint8_t op = u[1] & 0x0f;
        bool tagged = u[0] & 0x80;
        uint32_t hdr = tagged ? RS_DDP_TAGGED_HDR_LEN : RS_DDP_UNTAGGED_HDR_LEN;
        const char *name = rs_rdmap_opcode_name(op);
        if (name != NULL)
            rs_info_str(in, name);
        else
            rs_info_add(in, "RDMAP Opcode 0x%x", op);
        if (tagged && avail >= hdr) {
            rs_info_hex(in, " STag=0x", rs_load_be32(u + 2), 8);
            rs_info_hex(in, " TO=0x", rs_load_be64(u + 6), 1);
        } else if (!tagged && avail >= hdr) {
            rs_info_dec(in, " QN=", rs_load_be32(u + 6));
            rs_info_dec(in, " MSN=", rs_load_be32(u + 10));
            rs_info_dec(in, " MO=", rs_load_be32(u + 14));
        }
        if (!tagged && avail >= 6 &&
            (op == RS_RDMAP_SEND_INVALIDATE || op == RS_RDMAP_SEND_SE_INVALIDATE))
            rs_info_add(in, " Inv_STag=0x%08x", rs_load_be32(u + 2));
        if (avail >= hdr)
            info_rdmap(in, op, u + hdr, avail - hdr);
        if (u[0] & 0x40)
            rs_info_str(in, " Last");
        if (p->ulpdu_len >= hdr)
            rs_info_dec(in, " Len=", p->ulpdu_len - hdr);
    }
    /* A message of several segments: its length on the last. */
    if ((p->flags & RS_IWARP_PDU_MSG_LAST) && avail >= RS_DDP_UNTAGGED_HDR_LEN &&
        rs_load_be32(u + 14) != 0)
        rs_info_add(in, " [Message %llu]", (unsigned long long)p->msg_len);
    if (p->crc_status == RS_CKSUM_BAD)
        rs_info_add(in, (p->flags & RS_IWARP_PDU_CRC_SWAPPED) ? " [Bad MPA CRC: byte order]" :
                                                             " [Bad MPA CRC]");
    if (p->flags & RS_IWARP_PDU_TRUNCATED)
        rs_info_add(in, " [Incomplete]");
    if (p->flags & RS_IWARP_PDU_INFERRED)
        rs_info_add(in, " [Framing inferred]");
}

/* tshark's: "42742 > 9999 " (an ASCII '>'), then "MPA Request Frame", "MPA Reply Frame"
 * or the RDMAP operation of each FPDU with " [last DDP segment]" on a last one and
 * " [more DDP segments]" on any other. Wireshark 4.0 names the operations of RFC 5040 and
 * the Atomics of RFC 7306, not its Immediate Data (8, 9): "Unknown 8". */
static void
info_iwarp_tshark(struct rs_info *in, const struct rs_packet *pkt)
{
    const struct rs_iwarp_view *v = pkt->iwarp;
    const uint8_t *t = rs_packet_at(pkt, RS_LAYER_TCP);

    rs_info_dec(in, "", rs_load_be16(t));
    rs_info_dec(in, " > ", rs_load_be16(t + 2));
    rs_info_str(in, " ");
    for (unsigned i = 0; i < v->n_pdus; i++) {
        const struct rs_iwarp_pdu *p = &v->pdus[i];
        if (p->kind != RS_MPA_FPDU) {
            rs_info_str(in, p->kind == RS_MPA_REQUEST ? "MPA Request Frame" : "MPA Reply Frame");
            continue;
        }
        if (p->caplen < 4)
            continue;
        uint8_t op = p->data[3] & 0x0f;
        const char *name = op == RS_RDMAP_IMMEDIATE || op == RS_RDMAP_IMMEDIATE_SE
                               ? NULL : rs_rdmap_opcode_name(op);
        if (name != NULL)
            rs_info_str(in, name);
        else
            rs_info_dec(in, "Unknown ", op);
        rs_info_str(in, (p->data[2] & 0x40) ? " [last DDP segment]" : " [more DDP segments]");
    }
}

/* Ports, then every MPA frame or FPDU that ended in the segment. */
bool
rs_iwarp_write_info(struct rs_info *in, const struct rs_packet *pkt)
{
    const struct rs_iwarp_view *v = pkt->iwarp;
    const uint8_t *t = rs_packet_at(pkt, RS_LAYER_TCP);

    if (rs_display_get()->info_tshark) {
        if (v->n_pdus == 0)
            return false;       /* a segment that ends no PDU is TCP's to tshark */
        info_iwarp_tshark(in, pkt);
        return true;
    }

    rs_info_ports(in, t, true);
    for (unsigned i = 0; i < v->n_pdus; i++) {
        const struct rs_iwarp_pdu *p = &v->pdus[i];
        rs_info_str(in, i == 0 ? " " : "; ");
        if (p->kind == RS_MPA_FPDU)
            info_fpdu(in, p);
        else
            info_mpa_frame(in, p);
    }
    if (v->flags & RS_IWARP_VIEW_GAP)
        rs_info_add(in, " [Bytes lost before]");
    if (v->flags & RS_IWARP_VIEW_RETRANSMISSION)
        rs_info_add(in, " [Retransmission]");
    if (v->flags & RS_IWARP_VIEW_OUT_OF_ORDER)
        rs_info_add(in, " [Out of order: held]");
    if (v->flags & RS_IWARP_VIEW_CONTINUATION)
        rs_info_add(in, " [FPDU continues]");
    if (v->flags & RS_IWARP_VIEW_OVERFLOW)
        rs_info_add(in, " [More PDUs than shown]");
    return true;
}
