/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_summary.c - the one-line-per-frame output: number, time, source,
 * destination, protocol, length and an Info column that tells an RDMA
 * engineer what the packet does (opcode, QP, PSN, and any NAK reason). The Info
 * text is the top protocol's own fragment (info.h: ib/ib_info.c, iwarp/iwarp_info.c,
 * streams/tcp_info.c, ...), followed here by the analysis's marks; this file picks the
 * fragment and lays out the columns.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/ether_names.h>
#include <roceshark/dissectors/expert.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/info.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/version.h>
#include <roceshark/dissectors/wire.h>

#define ETHERTYPE_ARP 0x0806

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
    /* a header cut short too, where it holds the ports (RS_PKT_L4_PART), as tshark's */
    if (rs_packet_has_fields_of(pkt, RS_LAYER_UDP))
        return "UDP";
    if (rs_packet_has_fields_of(pkt, RS_LAYER_TCP))
        return "TCP";
    if (rs_packet_has(pkt, RS_LAYER_IPV4) || (pkt->flags & RS_PKT_IPV4_PART))
        return "IPv4";
    if (rs_packet_has(pkt, RS_LAYER_IPV6))
        return "IPv6";
    if (pkt->ethertype == ETHERTYPE_ARP)
        return "ARP";
    if (rs_packet_has(pkt, RS_LAYER_ETH))
        return "ETH";
    return "Unknown";
}

/* What the analysis found, in brackets as Wireshark shows its TCP analysis. */
static void
info_facts(struct rs_info *in, const struct rs_facts *f)
{
    if (f->flags & RS_FACT_RETRANSMISSION)
        rs_info_str(in, (f->flags & RS_FACT_RESPONSE) ? " [Duplicate response]" : " [Retransmission]");
    if (f->flags & RS_FACT_PSN_GAP) {
        rs_info_dec(in, " [PSN gap ", f->psn_gap);
        rs_info_str(in, "]");
    }
    if (f->flags & RS_FACT_OPCODE_SEQ)
        rs_info_str(in, " [Opcode sequence error]");
    if (f->flags & RS_FACT_LENGTH_MISMATCH)
        rs_info_str(in, " [Length mismatch]");
    if (f->flags & RS_FACT_VIOLATION)
        rs_info_add(in, " [Violation: %s]", rs_violation_name(f->violation));
    if (f->flags & RS_FACT_CNP_FOR)
        rs_info_add(in, " [CNP for conversation %u]", f->cnp_for);
}

/* What is wrong with the frame, or what it answers for: bad CRCs and the
 * analysis's facts. */
static void
info_marks(struct rs_info *in, const struct rs_packet *pkt)
{
    if (pkt->icrc_status == RS_CKSUM_BAD)
        rs_info_str(in, " [Bad ICRC]");
    if (pkt->vcrc_status == RS_CKSUM_BAD)
        rs_info_str(in, " [Bad VCRC]");
    if (pkt->facts != NULL)
        info_facts(in, pkt->facts);
}

size_t
rs_print_info_marks(const struct rs_packet *pkt, char *buf, size_t size)
{
    struct rs_info in = {buf, size, 0};

    if (size > 0) {
        buf[0] = '\0';
        /* Wireshark's InfiniBand dissector names a NAK's code in Info ([PSN Sequence
         * Error]) but shows nothing of an RNR NAK: read's words for it. */
        if (rs_packet_has(pkt, RS_LAYER_BTH))
            rs_ib_write_rnr(&in, pkt);
        info_marks(&in, pkt);
    }
    return in.len;
}

/* tshark's end of the Info of an uncut InfiniBand packet whose only problem, if any, is
 * InfiniBand's: by how tshark's own reading of its headers ends (rs_ib_ws_walk), which
 * neither sees bytes after the headers of a Read Request or an ACK nor knows RD. False,
 * adding nothing, for any other packet, and where a MAD's headers decide. */
static bool
ib_tshark_mark(struct rs_info *in, const struct rs_packet *pkt)
{
    const uint8_t *aeth;

    if (!rs_packet_has(pkt, RS_LAYER_BTH) || rs_packet_has(pkt, RS_LAYER_IPOIB) ||
        (pkt->flags & (RS_PKT_SNAPLEN | RS_PKT_LONG_ONLY)) ||
        ((pkt->flags & RS_PKT_MALFORMED) && strcmp(pkt->stopped, "IB") != 0))
        return false;
    switch (rs_ib_ws_walk(pkt, &aeth)) {
    case RS_IB_WS_OK:
        /* QPs 0 and 1 carry MADs, which tshark decodes further */
        return rs_bth_destqp(rs_packet_at(pkt, RS_LAYER_BTH)) > 1;
    case RS_IB_WS_BAD_LENGTH:
        in->len = 0;
        rs_info_str(in, "Invalid Packet Length from LRH! [Malformed Packet]");
        return true;
    case RS_IB_WS_BTH_SHORT:
    case RS_IB_WS_MALFORMED:
    default:
        rs_info_str(in, "[Malformed Packet]");
        return true;
    }
}

size_t
rs_print_info(const struct rs_packet *pkt, char *buf, size_t size)
{
    struct rs_info in = {buf, size, 0};

    if (size == 0)
        return 0;
    buf[0] = '\0';
    /* The top protocol's own fragment: each is built in that protocol's folder. */
    struct rs_icmp icmp;
    if (rs_icmp_of(pkt, &icmp)) {
        rs_icmp_write_info(&in, pkt, &icmp);
    } else if (rs_packet_has(pkt, RS_LAYER_ARP)) {
        rs_arp_write_info(&in, pkt);
    } else if (rs_packet_has(pkt, RS_LAYER_BTH) && !rs_packet_has(pkt, RS_LAYER_IPOIB)) {
        rs_ib_write_info(&in, pkt);
    } else if (pkt->iwarp != NULL) {
        if (!rs_iwarp_write_info(&in, pkt))
            rs_tcp_write_info(&in, pkt);    /* a segment that ends no PDU is TCP's to tshark */
    } else if (rs_packet_has_fields_of(pkt, RS_LAYER_UDP)) {
        rs_udp_write_info(&in, pkt);
    } else if (rs_packet_has(pkt, RS_LAYER_TCP)) {
        rs_tcp_write_info(&in, pkt);
    } else if (rs_packet_tcp_cut(pkt)) {
        struct rs_packet view;
        rs_tcp_write_info(&in, rs_packet_fields_view(pkt, &view));   /* to the window */
    } else if (rs_packet_part_layer(pkt) == RS_LAYER_TCP) {
        rs_info_ports(&in, rs_packet_at(pkt, RS_LAYER_TCP), true);  /* all tshark read */
    } else if (rs_packet_has(pkt, RS_LAYER_LRH)) {
        rs_info_add(&in, "Raw IB packet (LNH %u)", rs_lrh_lnh(rs_packet_at(pkt, RS_LAYER_LRH)));
    } else if (pkt->ethertype != 0 && !(pkt->flags & RS_PKT_IPV4_PART) &&
               !rs_packet_l4_stopped(pkt)) {
        /* an IPv4 header cut short has no text of its own, as tshark's, nor one whose UDP
         * or TCP header is */
        rs_info_add(&in, "Ethertype 0x%04x", pkt->ethertype);
    }
    if (rs_display_get()->info_tshark) {
        if (ib_tshark_mark(&in, pkt))
            return in.len;
        /* tshark's mark for the exception that stopped it, right after its column's text
         * (IB's ends in a space, ICMPv6's and UDP's do not), or alone where IB stopped
         * before its BTH */
        const char *mark = rs_ws_cut_short(pkt) ? "[Packet size limited during capture]"
                           : (pkt->flags & RS_PKT_MALFORMED) &&
                                   !(pkt->flags & RS_PKT_LONG_ONLY) ? "[Malformed Packet]"
                                                                    : NULL;
        if (mark == NULL)
            return in.len;
        if (rs_packet_ib_payload_cut(pkt) && (pkt->flags & RS_PKT_CUT_FIRST)) {
            in.len = 0;     /* tshark's text for an IBA payload cut short, in place of IB's */
            rs_info_str(&in, "Invalid Packet Length from LRH! [Malformed Packet]");
            return in.len;
        }
        if (pkt->encap == RS_ENCAP_ROCEV2 && !rs_packet_has(pkt, RS_LAYER_BTH))
            in.len = 0;
        rs_info_str(&in, mark);     /* with no space of its own, as tshark appends it */
        return in.len;
    }
    info_marks(&in, pkt);
    if (pkt->flags & RS_PKT_MALFORMED)
        rs_info_add(&in, &" [Malformed: %s]"[in.len == 0], pkt->problem);
    return in.len;
}

/* An IPv4 header cut short sets the source column where it holds the source: tshark's
 * stays the link layer's for an address it stopped before (the destination, which it
 * adds after reading the options). */
static void
partial_ipv4_source(const struct rs_packet *pkt, char *src, size_t size)
{
    const struct rs_span *sp = &pkt->span[RS_LAYER_IPV4];
    const uint8_t *p = pkt->frame->data + sp->off;

    if (size < RS_IPV4_TEXT_MAX)
        return;
    if (sp->len >= 16)
        rs_format_ipv4(src, p + 12);
}

/* rs_print_addresses(), and the two texts' lengths: the IP addresses' and GIDs', which
 * the summary lines show on nearly every frame, as they are formatted. */
static void
address_pair(const struct rs_packet *pkt, char *src, char *dst, size_t size, size_t len[2])
{
    const uint8_t *p;

    strcpy(src, "");
    strcpy(dst, "");
    if (rs_packet_has(pkt, RS_LAYER_IPV4)) {
        p = rs_packet_at(pkt, RS_LAYER_IPV4);
        len[0] = len[1] = 0;
        if (size >= RS_IPV4_TEXT_MAX) {
            len[0] = rs_format_ipv4(src, p + 12);
            len[1] = rs_format_ipv4(dst, p + 16);
        }
        return;
    }
    if (rs_packet_has(pkt, RS_LAYER_IPV6) || rs_packet_has(pkt, RS_LAYER_GRH)) {
        p = rs_packet_at(pkt, rs_packet_has(pkt, RS_LAYER_IPV6) ? RS_LAYER_IPV6 : RS_LAYER_GRH);
        /* a GRH's GIDs (native InfiniBand's, RoCEv1's) are InfiniBand addresses to
         * Wireshark, named so */
        size_t gid = !rs_packet_has(pkt, RS_LAYER_IPV6) ? 5 : 0;
        len[0] = len[1] = 0;
        if (size >= RS_IPV6_TEXT_MAX + gid) {
            memcpy(src, "GID: ", gid);
            memcpy(dst, "GID: ", gid);
            len[0] = gid + rs_format_ipv6(src + gid, p + 8);
            len[1] = gid + rs_format_ipv6(dst + gid, p + 24);
        }
        return;
    }
    if (rs_packet_has(pkt, RS_LAYER_LRH)) {
        p = rs_packet_at(pkt, RS_LAYER_LRH);
        snprintf(src, size, "LID: %u", rs_lrh_slid(p));
        snprintf(dst, size, "LID: %u", rs_lrh_dlid(p));
    } else if (rs_packet_has(pkt, RS_LAYER_ETH)) {
        p = rs_packet_at(pkt, RS_LAYER_ETH);
        rs_ether_name_shown(p + 6, src, size);     /* "RealtekU_8b:2d:12", as tshark's */
        rs_ether_name_shown(p, dst, size);
        if (pkt->flags & RS_PKT_IPV4_PART)
            partial_ipv4_source(pkt, src, size);
    }
    len[0] = strlen(src);
    len[1] = strlen(dst);
}

void
rs_print_addresses(const struct rs_packet *pkt, char *src, char *dst, size_t size)
{
    size_t len[2];

    address_pair(pkt, src, dst, size, len);
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

/* The time column, as -t asks, after a space (a negative time writes its sign there);
 * returns its length. "dd" is the packet's delta_shown, which the pipeline computes in
 * capture order whatever thread formats the frame. */
static size_t
time_column(const struct rs_out *o, const struct rs_packet *pkt, char *buf, size_t size)
{
    const struct rs_frame *f = pkt->frame;
    struct rs_time t = rs_frame_time(f);
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
        return strlen(buf);
    case RS_TIME_COL_EPOCH:
        v = t;
        break;
    case RS_TIME_COL_DELTA:
        v = f->delta;
        break;
    case RS_TIME_COL_DELTA_SHOWN:
        v = pkt->delta_shown;
        break;
    default:
        break;
    }
    /* With the decimals the frame's clock has, as tshark's time column. */
    buf[0] = ' ';
    bool sign = rs_time_is_negative(v);
    return !sign + rs_time_format(v, f->ts_digits, buf + !sign);
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

/* Room the Info column is written into: longer text is cut there, as the buffer on the
 * stack it replaced cut it. */
#define INFO_ROOM 512

void
rs_print_summary(struct rs_out *o, const struct rs_packet *pkt)
{
    const struct rs_frame *f = pkt->frame;
    char src[RS_PRINT_ADDRESS_MAX], dst[RS_PRINT_ADDRESS_MAX];
    char when[64];
    size_t len[2];

    size_t when_len = time_column(o, pkt, when, sizeof(when));
    address_pair(pkt, src, dst, sizeof(src), len);
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
        /* "%5llu %s %s → %s %s %u %s\n" without printf, which was a tenth of the time;
         * the literals' lengths known when compiled. */
        rs_out_char(o, ' ');
        rs_out_write(o, when, when_len);
        rs_out_char(o, ' ');
        rs_out_write(o, src, len[0]);
        rs_out_str(o, " → ");
        rs_out_write(o, dst, len[1]);
        rs_out_char(o, ' ');
        rs_out_str(o, rs_print_protocol(pkt));
        rs_out_char(o, ' ');
    }
    rs_out_pad_u64(o, rs_packet_wire_len(pkt), 0);
    rs_out_char(o, sep);
    /* the Info column straight into o's buffer: through the stack, its copy was 3% */
    char *info = rs_out_reserve(o, INFO_ROOM);
    if (info != NULL)
        rs_out_commit(o, rs_print_info(pkt, info, INFO_ROOM));
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

    time_column(o, pkt, when, sizeof(when));
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
