/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_hex.c - the frame's bytes in hex and ASCII, as tshark -x prints them: an offset,
 * sixteen bytes, and the same bytes as text (a dot for what does not print); a blank line
 * after the frame. An ERF record's own header is not the packet's: it is left out, as
 * Wireshark leaves it out. A frame that ends an iWARP Send of several FPDUs has a second
 * data source, the reassembled message, and one that had markers another, its octets
 * without them: each is then dumped under its name, as tshark's. So is the message a TCP
 * segment completes (an HTTP message or TLS record over segments), "Reassembled TCP".
 */
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/streams.h>

void
rs_print_hex_bytes(struct rs_out *o, const uint8_t *data, uint32_t len)
{
    static const char digits[] = "0123456789abcdef";
    unsigned width = len > 0xffff ? 8 : 4;

    for (uint32_t off = 0; off < len; off += 16) {
        char line[96];
        size_t n = 0;
        uint32_t end = len - off < 16 ? len - off : 16;

        for (unsigned d = width; d-- > 0;)
            line[n++] = digits[(off >> (4 * d)) & 0xf];
        line[n++] = ' ';
        for (uint32_t i = 0; i < 16; i++) {
            line[n++] = ' ';
            line[n++] = i < end ? digits[data[off + i] >> 4] : ' ';
            line[n++] = i < end ? digits[data[off + i] & 0xf] : ' ';
        }
        line[n++] = ' ';
        line[n++] = ' ';
        line[n++] = ' ';
        for (uint32_t i = 0; i < end; i++) {
            uint8_t c = data[off + i];
            line[n++] = c >= 0x20 && c < 0x7f ? (char)c : '.';
        }
        line[n++] = '\n';
        rs_out_write(o, line, n);
    }
}

/* Whether PDU p's reassembled Send is a data source of its own (bytes kept, not empty). */
static bool
is_reassembled(const struct rs_iwarp_pdu *p)
{
    return (p->flags & RS_IWARP_PDU_SEND_REASM) && p->send_data != NULL && p->send_len > 0;
}

/* Whether PDU p brings a data source of its own: its octets without markers, its Send. */
static bool
is_source(const struct rs_iwarp_pdu *p)
{
    return rs_iwarp_pdu_unmarked(p) || is_reassembled(p);
}

void
rs_print_hex(struct rs_out *o, const struct rs_packet *pkt)
{
    uint32_t skip = rs_packet_has(pkt, RS_LAYER_ERF) ? pkt->span[RS_LAYER_ERF].len : 0;
    const struct rs_iwarp_view *v = pkt->iwarp;
    const struct rs_tcp_reasm *tcp = rs_stream_reasm_of(pkt);
    bool sources = tcp != NULL;

    for (unsigned i = 0; v != NULL && i < v->n_pdus && !sources; i++)
        sources = is_source(&v->pdus[i]);
    if (sources)
        rs_out_printf(o, "Frame (%u bytes):\n", rs_packet_cap_len(pkt));
    rs_print_hex_bytes(o, pkt->frame->data + skip, rs_packet_cap_len(pkt));
    if (tcp != NULL) {
        rs_out_printf(o, "Reassembled TCP (%u bytes):\n", tcp->len);
        rs_print_hex_bytes(o, tcp->data, tcp->len);
    }
    for (unsigned i = 0; sources && v != NULL && i < v->n_pdus; i++) {
        const struct rs_iwarp_pdu *p = &v->pdus[i];
        if (rs_iwarp_pdu_unmarked(p)) {
            rs_out_printf(o, "FPDU without Markers (%u bytes):\n", p->caplen);
            rs_print_hex_bytes(o, p->data, p->caplen);
        }
        if (is_reassembled(p)) {
            rs_out_printf(o, "Reassembled SMB Direct (%u bytes):\n", p->send_len);
            rs_print_hex_bytes(o, p->send_data, p->send_len);
        }
    }
    rs_out_gap(o);
    rs_out_end_frame(o);
}
