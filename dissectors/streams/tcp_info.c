/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tcp_info.c - TCP's part of the Info column (info.h), as tshark writes it: "60532 → 18515
 * [SYN, ACK] Seq=0 Ack=1 Win=65160 Len=0 MSS=1460 SACK_PERM ...", with tshark's sequence
 * analysis in front under -o compat. Here, beside the streams stage, because Seq, Ack, Win
 * and the SACK edges are relative to what that stage saw of each direction.
 */
#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/identify.h>
#include <roceshark/dissectors/info.h>
#include <roceshark/dissectors/streams.h>
#include <roceshark/dissectors/wire.h>

/* The options tshark's TCP Info names, in the order they come. SACK blocks
 * are relative to the other direction's first sequence number, so they need
 * the streams stage (v); without it they are left out. */
static void
info_tcp_options(struct rs_info *in, const uint8_t *opt, uint32_t len,
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
            rs_info_add(in, " MSS=%u", rs_load_be16(val));
        else if (kind == 4 && olen == 2)
            rs_info_add(in, " SACK_PERM");
        else if (kind == 8 && olen == 10)
            rs_info_add(in, " TSval=%u TSecr=%u", rs_load_be32(val), rs_load_be32(val + 4));
        else if (kind == 3 && olen == 3)
            rs_info_add(in, " WS=%u", val[0] <= 14 ? 1u << val[0] : 1u << 14);
        else if (kind == 5 && sv != NULL)
            for (uint32_t k = 0; k + 8 <= olen - 2u; k += 8)
                rs_info_add(in, " SLE=%u SRE=%u", rs_load_be32(val + k) - sv->peer_base,
                         rs_load_be32(val + k + 4) - sv->peer_base);
        i += olen;
    }
}

/* tshark's sequence analysis in front of TCP's Info: each finding prepended in the order
 * packet-tcp.c reports them, so the last reported comes first. */
static void
info_tcp_analysis(struct rs_info *in, const struct rs_tcp_analysis *a)
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
            rs_info_str(in, found[i].text);
        else
            rs_info_add(in, "[TCP Dup ACK %llu#%u] ", (unsigned long long)a->dupack_frame,
                     a->dupack_num);
    }
}

/* Whether line[0..len) is printable ASCII, as a first line is written whole. */
static bool
printable(const uint8_t *line, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (line[i] < 0x20 || line[i] > 0x7e)
            return false;
    return true;
}

/* tshark's TCP Info: "60532 → 18515 [SYN, ACK] Seq=0 Ack=1 Win=65160 Len=0
 * MSS=1460 SACK_PERM ...". Seq and Ack (relative to each direction's first)
 * and Win (scaled by the SYN's shift) come from the streams stage, and are
 * left out when it did not run (a frame decoded again on its own). */
#define TCP_INFO_WHOLE 20u

void
rs_tcp_write_info(struct rs_info *in, const struct rs_packet *pkt)
{
    /* Bit 8 is RFC 3540's NS, which tshark 4.0 calls AE (Accurate ECN). */
    static const char *const names[] = {"FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR",
                                        "AE"};
    static const char segment_note[] = " [TCP segment of a reassembled PDU]";
    const uint8_t *t = rs_packet_at(pkt, RS_LAYER_TCP);
    unsigned flags = (unsigned)(rs_load_be16(t + 12) & 0x1ff);
    bool any = false;
    uint8_t part = pkt->stream != NULL ? pkt->stream->pdu_part : RS_PDU_NONE;
    const uint8_t *line;
    size_t line_len;

    /* A TLS record's first segment: TLS cleared Info before TCP kept the segment for
     * reassembly; an HTTP message's: HTTP wrote its first line. */
    if (part == RS_PDU_FIRST && pkt->stream->pdu_proto == RS_PDU_TLS) {
        rs_info_str(in, segment_note + 1);
        return;
    }
    if (part == RS_PDU_FIRST && (line_len = rs_ident_http_line(pkt, &line)) > 0 &&
        printable(line, line_len)) {
        rs_info_add(in, "%.*s ", (int)line_len, (const char *)line);
        rs_info_str(in, segment_note);
        return;
    }
    if (pkt->stream != NULL && rs_display_get()->info_tshark)
        info_tcp_analysis(in, &pkt->stream->analysis);
    rs_info_ports(in, t, true);
    rs_info_str(in, " [");
    for (unsigned bit = 0; bit < RS_ARRAY_SIZE(names); bit++) {
        if (flags & (1u << bit)) {
            if (any)
                rs_info_str(in, ", ");
            rs_info_str(in, names[bit]);
            any = true;
        }
    }
    rs_info_str(in, any ? "]" : "<None>]");
    const struct rs_stream_view *sv = pkt->stream;
    if (sv != NULL) {
        rs_info_dec(in, " Seq=", sv->seq);
        if (flags & 0x10)
            rs_info_dec(in, " Ack=", sv->ack);
        rs_info_dec(in, " Win=", sv->window);
    }
    if (pkt->span[RS_LAYER_TCP].len < TCP_INFO_WHOLE)
        return;     /* a header cut short past its window (rs_packet_tcp_cut): all tshark read */
    if (flags & 0x20)
        rs_info_dec(in, " Urg=", rs_load_be16(t + 18));
    if (!rs_packet_tcp_cut(pkt))    /* options cut short: none, as tshark's */
        rs_info_dec(in, " Len=", rs_tcp_payload_len(pkt));
    info_tcp_options(in, t + 20, pkt->span[RS_LAYER_TCP].len - 20u, sv);
    if (part == RS_PDU_FIRST || part == RS_PDU_MIDDLE)
        rs_info_str(in, segment_note);
}
