/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_tcp.c - tcp.*: TCP's fields in the order and with the lines of tshark 4.0's tree:
 * the header, the conversation's index, completeness and timestamps, the options one by
 * one, the sequence analysis ("SEQ/ACK analysis", streams/tcp_seq.c) and the expert items
 * Wireshark hangs on them (a SYN, a FIN, a retransmission, ...). What is on the wire comes
 * from the header; the rest from the streams stage (pkt->stream), and is absent when it did
 * not run.
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/streams.h>
#include <roceshark/dissectors/wire.h>

#include "fields/fields_int.h"
#include "net/net_int.h"
#include "net/value_tables.h"

#define UTF8_MIDDLE_DOT "\xc2\xb7"
#define TCP_MIN_HDR_LEN 20u
#define TH_FIN 0x001
#define TH_SYN 0x002
#define TH_RST 0x004
#define TH_ACK 0x010
#define TH_URG 0x020
#define TH_RES 0xe00

enum tcp_opt_kind { OPT_EOL = 0, OPT_NOP = 1, OPT_MSS = 2, OPT_WSCALE = 3, OPT_SACK_PERM = 4,
                    OPT_SACK = 5, OPT_TIMESTAMP = 8 };

static const struct rs_value_string set_vals[] = {{0, "Not set"}, {1, "Set"}, {0, NULL}};

static uint16_t
tcp_flags(const struct rs_packet *pkt)
{
    return (uint16_t)(rs_load_be16(rs_packet_at(pkt, RS_LAYER_TCP) + 12) & 0x0fff);
}

static const struct rs_stream_view *
tcp_view(const struct rs_packet *pkt)
{
    const struct rs_stream_view *v = pkt->stream;

    return v != NULL && v->tcp && rs_packet_has(pkt, RS_LAYER_TCP) &&
                   !(pkt->flags & RS_PKT_QUOTED) ? v : NULL;
}

/* The packet a label reads: a TCP header cut short past its window as its layer, as the
 * getters see it (rs_packet_fields_view()); any other, itself. */
static const struct rs_packet *
cut_view(const struct rs_packet *pkt, struct rs_packet *view)
{
    return rs_packet_tcp_cut(pkt) ? rs_packet_fields_view(pkt, view) : pkt;
}

/* Whether the tree shows the header's first `bytes`: an ICMP error's quote shows no more
 * than the ports and the sequence number until it reaches the window (16 bytes), as
 * tshark 4.0 decodes it (its acknowledgment, offset and flags too, then). */
#define QUOTE_DECODE_REACH 16u
static bool
header_shown(const struct rs_packet *pkt, uint32_t bytes)
{
    return tcp_reaches(pkt, bytes) &&
           (!(pkt->flags & RS_PKT_QUOTED) || tcp_reaches(pkt, QUOTE_DECODE_REACH));
}

static bool
get_flags_word(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               struct rs_value *out)
{
    return header_shown(pkt, 14) && rs_field_get_generic(pkt, f, occ, out);
}

/* "SYN", "FIN, ACK", "<None>": the flags by name, lowest bit first. */
static size_t
flag_names(uint16_t flags, char *buf, size_t size)
{
    static const char names[][4] = {"FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR", "AE"};
    size_t n = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < 9; i++)
        if (flags & (1u << i))
            n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n > 0 ? ", " : "",
                                  names[i]);
    if (flags & TH_RES)
        n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%sReserved", n > 0 ? ", " : "");
    if (n == 0)
        n = (size_t)snprintf(buf, size, "<None>");
    return n;
}

#define TCP_TITLE_SEQ_REACH 16u     /* ports, numbers, offset and flags, window */

/* "Transmission Control Protocol, Src Port: 56756, Dst Port: 12345, Seq: 0, Ack: 1, Len: 0" */
static size_t
tcp_label(const struct rs_packet *whole, const struct rs_field *f, const struct rs_value *v,
          char *buf, size_t size)
{
    struct rs_packet view;
    const struct rs_packet *pkt = cut_view(whole, &view);
    const struct rs_stream_view *sv = tcp_view(pkt);
    const uint8_t *t = rs_packet_at(pkt, RS_LAYER_TCP);
    size_t n = l4_label(pkt, f, v, buf, size);

    /* tshark appends the sequence number once it has read the header up to the window,
     * which a quote of 8 bytes (RFC 792) does not reach */
    if (n >= size || !tcp_reaches(pkt, TCP_TITLE_SEQ_REACH))
        return n;
    n += (size_t)snprintf(buf + n, size - n, ", Seq: %u",
                          sv != NULL ? sv->seq : rs_load_be32(t + 4));
    if (sv == NULL && n < size && (pkt->flags & RS_PKT_QUOTED) && (tcp_flags(pkt) & TH_ACK))
        n += (size_t)snprintf(buf + n, size - n, ", Ack: %u", rs_load_be32(t + 8));
    if (sv == NULL || n >= size)
        return n;
    if (tcp_flags(pkt) & TH_ACK)
        n += (size_t)snprintf(buf + n, size - n, ", Ack: %u", sv->ack);
    if (n < size && !sv->cut)
        n += (size_t)snprintf(buf + n, size - n, ", Len: %u", sv->len);
    return n;
}

/* "0101 .... = Header Length: 20 bytes (5)" */
static size_t
hdr_len_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
              char *buf, size_t size)
{
    size_t n = rs_format_bits(buf, size, rs_packet_at(pkt, RS_LAYER_TCP)[12], 0xf0, 8);

    (void)f;
    if (n >= size)
        return n;
    return n + (size_t)snprintf(buf + n, size - n, "Header Length: %llu bytes (%llu)",
                                (unsigned long long)v->v.u, (unsigned long long)v->v.u / 4);
}

static bool
get_hdr_len(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    if (occ != 0 || !header_shown(pkt, 13))
        return false;
    return rs_value_set_uint(out, f->type, (rs_packet_at(pkt, RS_LAYER_TCP)[12] >> 4) * 4u);
}

/* "Sequence Number: 0    (relative sequence number)", and its twins. */
static size_t
relative_label(const struct rs_packet *whole, const struct rs_field *f,
               const struct rs_value *v, char *buf, size_t size)
{
    struct rs_packet view;
    const struct rs_packet *pkt = cut_view(whole, &view);
    const char *what = strcmp(f->abbrev, "tcp.ack") == 0 ? "ack" : "sequence";
    /* a quote's numbers are called relative too, but an IPv4 quote's sequence number */
    bool quoted = (pkt->flags & RS_PKT_QUOTED) && tcp_reaches(pkt, QUOTE_DECODE_REACH) &&
                  !(what[0] == 's' && rs_packet_has(pkt, RS_LAYER_IPV4));

    if ((tcp_view(pkt) == NULL && !quoted) || (what[0] == 'a' && !(tcp_flags(pkt) & TH_ACK)) ||
        rs_display_get()->tcp_absolute)
        return 0;
    return (size_t)snprintf(buf, size, "%s: %llu    (relative %s number)", f->name,
                            (unsigned long long)v->v.u, what);
}

/* tcp.seq comes twice: right after the ports in an IPv4 quote, where tshark adds it before
 * the stream's items, and after them everywhere else. */
static bool
ipv4_quote(const struct rs_packet *pkt)
{
    return (pkt->flags & RS_PKT_QUOTED) && rs_packet_has(pkt, RS_LAYER_IPV4);
}

static bool
get_seq_first(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out)
{
    return ipv4_quote(pkt) && l4_get_stream(pkt, f, occ, out);
}

static bool
get_seq_after(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out)
{
    return !ipv4_quote(pkt) && l4_get_stream(pkt, f, occ, out);
}

static bool
get_seq_raw(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    if ((pkt->flags & RS_PKT_QUOTED) &&
        (rs_packet_has(pkt, RS_LAYER_IPV4) || !tcp_reaches(pkt, QUOTE_DECODE_REACH)))
        return false;
    return rs_field_get_generic(pkt, f, occ, out);
}

/* tcp.seq_raw and tcp.ack_raw come twice: shown beside relative numbers, hidden (the
 * twin flagged so) where the number shown is already the raw one, as tshark adds them
 * with -o tcp.relative_sequence_numbers:FALSE (an acknowledgment without the ACK flag
 * is shown raw either way). */
static bool
raw_twin_applies(const struct rs_field *f, bool shown_raw)
{
    return shown_raw == ((f->flags & RS_FIELD_HIDDEN) != 0);
}

static bool
get_seq_raw_twin(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    return raw_twin_applies(f, rs_display_get()->tcp_absolute) &&
           get_seq_raw(pkt, f, occ, out);
}

static bool
get_ack_raw_twin(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    bool shown_raw = rs_display_get()->tcp_absolute && tcp_reaches(pkt, 14) &&
                     (tcp_flags(pkt) & TH_ACK);
    return header_shown(pkt, 12) && raw_twin_applies(f, shown_raw) &&
           rs_field_get_generic(pkt, f, occ, out);
}

/* tcp.len and tcp.nxtseq: a whole segment's, never an ICMP error's quote's. */
static bool
get_segment(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    return tcp_view(pkt) != NULL && l4_get_stream(pkt, f, occ, out);
}

/* "Flags: 0x011 (FIN, ACK)" */
static size_t
flags_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
            char *buf, size_t size)
{
    char names[64];

    (void)pkt;
    (void)f;
    flag_names((uint16_t)v->v.u, names, sizeof(names));
    return (size_t)snprintf(buf, size, "Flags: 0x%03llx (%s)", (unsigned long long)v->v.u, names);
}

/* "...0 .... .... = Accurate ECN: Not set": a bit of the twelve, on the one byte it is in. */
static size_t
flag_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
           char *buf, size_t size)
{
    size_t n = rs_format_bits(buf, size, tcp_flags(pkt), f->mask, 12);

    if (n >= size)
        return n;
    return n + (size_t)snprintf(buf + n, size - n, "%s: %s", f->name,
                                v->v.u ? "Set" : "Not set");
}

static bool
locate_flag(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            uint32_t *offset, uint32_t *length)
{
    (void)occ;
    *offset = pkt->span[RS_LAYER_TCP].off + (f->mask >= 0x100 ? 12 : 13);
    *length = 1;
    return true;
}

/* Wireshark's one-letter flags, a middle dot for each flag not set. */
static bool
get_flags_str(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out)
{
    static const char letters[] = "RRRACEUAPRSF";
    static _Thread_local char buf[12 * 2 + 1];    /* a dot takes two bytes in UTF-8 */

    if (occ != 0 || !header_shown(pkt, 14))
        return false;
    unsigned flags = tcp_flags(pkt);
    char *p = buf;
    for (unsigned i = 0; i < 12; i++) {
        if ((flags >> (11 - i)) & 1u) {
            *p++ = letters[i];
        } else {
            memcpy(p, UTF8_MIDDLE_DOT, 2);
            p += 2;
        }
    }
    *p = '\0';
    out->type = f->type;
    out->v.str = buf;
    return true;
}

/* "Window size scaling factor: 512", "-1 (unknown)", "-2 (no window scaling used)" */
static size_t
show_scale(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    int64_t s = (int64_t)v->v.u;

    (void)f;
    return (size_t)snprintf(buf, size, "%lld%s", (long long)s,
                            s == RS_WIN_SCALE_UNKNOWN ? " (unknown)"
                            : s == RS_WIN_SCALE_NONE  ? " (no window scaling used)" : "");
}

static size_t
show_unverified(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    (void)f;
    return (size_t)snprintf(buf, size, "0x%04llx [unverified]", (unsigned long long)v->v.u);
}

/* TCP checksums are not verified (as tshark by default): 2, unverified. */
static bool
get_unverified(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               struct rs_value *out)
{
    if (occ != 0 || !tcp_reaches(pkt, 18))
        return false;
    return rs_value_set_uint(out, f->type, RS_CKSUM_UNVERIFIED);
}

/* The header's options: their offset in the frame and length, as far as captured. */
static bool
options_span(const struct rs_packet *pkt, uint32_t *off, uint32_t *len)
{
    if (!tcp_reaches(pkt, TCP_MIN_HDR_LEN))
        return false;
    uint32_t hlen = (rs_packet_at(pkt, RS_LAYER_TCP)[12] >> 4) * 4u;
    uint32_t have = pkt->span[RS_LAYER_TCP].len;
    if (hlen <= TCP_MIN_HDR_LEN)
        return false;
    *off = pkt->span[RS_LAYER_TCP].off + TCP_MIN_HDR_LEN;
    *len = (hlen < have ? hlen : have) - TCP_MIN_HDR_LEN;
    return *len > 0;
}

/* One option, as Wireshark walks them: kind, whole length, and whether it is whole. */
struct tcp_opt {
    uint32_t off;           /* in the frame */
    uint8_t kind;
    uint32_t len;           /* 1 for EOL and NOP */
};

/* Option i (from 0); false past the last one Wireshark shows (it stops at a length
 * that does not fit, and after an EOL at anything but more EOLs). */
static bool
option_at(const struct rs_packet *pkt, unsigned want, struct tcp_opt *o)
{
    uint32_t off, len;

    if (!options_span(pkt, &off, &len))
        return false;
    const uint8_t *p = pkt->frame->data + off;
    bool eol = false;
    for (uint32_t i = 0, n = 0; i < len; n++) {
        uint8_t kind = p[i];
        uint32_t olen = 1;
        if (eol && kind != OPT_EOL)
            return false;
        if (kind != OPT_EOL && kind != OPT_NOP) {
            if (i + 1 >= len || p[i + 1] < 2 || p[i + 1] - 2u > len - i - 2)
                return false;
            olen = p[i + 1];
        }
        if (n == want) {
            *o = (struct tcp_opt){off + i, kind, olen};
            return true;
        }
        eol |= kind == OPT_EOL;
        i += olen;
    }
    return false;
}

/* The short names tshark lists after "Options: (N bytes)". */
static const char *
option_short_name(uint8_t kind)
{
    switch (kind) {
    case OPT_EOL: return "End of Option List (EOL)";
    case OPT_NOP: return "No-Operation (NOP)";
    case OPT_MSS: return "Maximum segment size";
    case OPT_WSCALE: return "Window scale";
    case OPT_SACK_PERM: return "SACK permitted";
    case OPT_SACK: return "SACK";
    case OPT_TIMESTAMP: return "Timestamps";
    default: return NULL;
    }
}

/* "Options: (20 bytes), Maximum segment size, SACK permitted, Timestamps, ..." */
static size_t
options_label(const struct rs_packet *whole, const struct rs_field *f, const struct rs_value *v,
              char *buf, size_t size)
{
    struct rs_packet view;
    const struct rs_packet *pkt = cut_view(whole, &view);
    uint32_t hlen = (rs_packet_at(pkt, RS_LAYER_TCP)[12] >> 4) * 4u;
    size_t n = (size_t)snprintf(buf, size, "Options: (%u bytes)", hlen - TCP_MIN_HDR_LEN);
    struct tcp_opt o;

    (void)f;
    (void)v;
    for (unsigned i = 0; n < size && option_at(pkt, i, &o); i++) {
        const char *name = option_short_name(o.kind);
        if (name != NULL)
            n += (size_t)snprintf(buf + n, size - n, ", %s", name);
        else
            n += (size_t)snprintf(buf + n, size - n, ", Unknown (0x%02x)", o.kind);
    }
    return n;
}

static bool
get_options(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    uint32_t off, len;

    if (occ != 0 || !options_span(pkt, &off, &len))
        return false;
    out->type = f->type;
    out->v.bytes.ptr = pkt->frame->data + off;
    out->v.bytes.len = len;
    return true;
}

/* What the option fields read; the offset column selects it. */
enum opt_part { OP_NODE, OP_KIND, OP_LEN, OP_MSS, OP_SHIFT, OP_MULTIPLIER, OP_TSVAL, OP_TSECR,
                OP_SACK_LE, OP_SACK_RE, OP_SACK_COUNT, OP_DSACK, OP_DSACK_LE, OP_DSACK_RE,
                OP_PAYLOAD };

/* The option of the view (pkt->item), when it is of kind (or any kind for -1). */
static bool
view_option(const struct rs_packet *pkt, int kind, struct tcp_opt *o)
{
    return pkt->item != 0 && option_at(pkt, pkt->item - 1u, o) && (kind < 0 || o->kind == kind);
}

/* The other direction's initial sequence number, which SACK edges are counted from. */
static uint32_t
peer_base(const struct rs_packet *pkt)
{
    const struct rs_stream_view *sv = tcp_view(pkt);
    return sv != NULL ? sv->peer_base : 0;
}

/* RFC 2883's D-SACK, as Wireshark finds it: the first block lies at or below the
 * acknowledgment, or inside the second. Wireshark compares the first block's right
 * edge as it stood before the block was read: 0. */
static bool
is_dsack(const struct rs_packet *pkt, const struct tcp_opt *o)
{
    const uint8_t *p = pkt->frame->data + o->off;
    const struct rs_stream_view *sv = tcp_view(pkt);
    uint32_t ack = sv != NULL && (tcp_flags(pkt) & TH_ACK) ? sv->ack
                                                           : rs_load_be32(rs_packet_at(pkt, RS_LAYER_TCP) + 8);
    uint32_t base = peer_base(pkt);

    if (o->len < 10)
        return false;
    uint32_t le0 = rs_load_be32(p + 2) - base, re0 = rs_load_be32(p + 6) - base;
    if ((int32_t)(re0 - ack) <= 0)
        return true;
    if (o->len < 18)
        return false;
    uint32_t le1 = rs_load_be32(p + 10) - base, re1 = rs_load_be32(p + 14) - base;
    (void)le0;
    return (int32_t)(le1 - re0) < 0 && (int32_t)(re1 - re0) >= 0;
}

static const int8_t part_kind[] = {
    [OP_NODE] = -1, [OP_KIND] = -1, [OP_LEN] = -1, [OP_MSS] = OPT_MSS,
    [OP_SHIFT] = OPT_WSCALE, [OP_MULTIPLIER] = OPT_WSCALE, [OP_TSVAL] = OPT_TIMESTAMP,
    [OP_TSECR] = OPT_TIMESTAMP, [OP_SACK_LE] = OPT_SACK, [OP_SACK_RE] = OPT_SACK,
    [OP_SACK_COUNT] = OPT_SACK, [OP_DSACK] = OPT_SACK, [OP_DSACK_LE] = OPT_SACK,
    [OP_DSACK_RE] = OPT_SACK, [OP_PAYLOAD] = -1,
};

/* The node of one kind of option (f->width holds the kind, 0xff any unknown kind). */
static bool
node_kind_matches(const struct rs_field *f, uint8_t kind)
{
    if (f->width != 0xff)
        return kind == f->width;
    return option_short_name(kind) == NULL;
}

static unsigned
sack_blocks(const struct tcp_opt *o)
{
    return o->kind == OPT_SACK && o->len >= 2 ? (o->len - 2) / 8 : 0;
}

/* Outside a view (a filter, -e): occurrence *occ of the field among all the options, as
 * tshark's fields list them; *occ becomes the occurrence within that option (SACK's
 * edges count across its blocks). */
static bool
nth_option(const struct rs_packet *pkt, const struct rs_field *f, unsigned *occ,
           struct tcp_opt *o)
{
    int kind = part_kind[f->offset];
    bool edges = f->offset == OP_SACK_LE || f->offset == OP_SACK_RE;

    for (unsigned i = 0; option_at(pkt, i, o); i++) {
        if ((kind >= 0 && o->kind != kind) ||
            (f->offset == OP_NODE && !node_kind_matches(f, o->kind)))
            continue;
        unsigned n = edges ? sack_blocks(o) : 1;
        if (*occ < n)
            return true;
        *occ -= n;
    }
    return false;
}

static bool
get_option(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
           struct rs_value *out)
{
    struct tcp_opt o;

    if (f->offset >= RS_ARRAY_SIZE(part_kind))
        return false;
    if (pkt->item != 0 ? !view_option(pkt, part_kind[f->offset], &o)
                       : !nth_option(pkt, f, &occ, &o))
        return false;
    const uint8_t *p = pkt->frame->data + o.off;
    unsigned blocks = sack_blocks(&o);
    out->type = f->type;
    if (f->offset == OP_SACK_LE || f->offset == OP_SACK_RE) {
        if (occ >= blocks)
            return false;
        out->v.u = rs_load_be32(p + 2 + occ * 8 + (f->offset == OP_SACK_RE ? 4 : 0)) -
                   peer_base(pkt);
        return true;
    }
    if (occ != 0)
        return false;
    switch (f->offset) {
    case OP_NODE:
        if (!node_kind_matches(f, o.kind))
            return false;
        out->v.bytes.ptr = p;
        out->v.bytes.len = o.len;
        return true;
    case OP_KIND:
        out->v.u = o.kind;
        return true;
    case OP_LEN:
        out->v.u = o.len >= 2 ? p[1] : 0;
        return o.kind != OPT_EOL && o.kind != OPT_NOP;
    case OP_MSS:
        return o.len == 4 && rs_value_set_uint(out, f->type, rs_load_be16(p + 2));
    case OP_SHIFT:
        return o.len == 3 && rs_value_set_uint(out, f->type, p[2]);
    case OP_MULTIPLIER:
        return o.len == 3 && rs_value_set_uint(out, f->type, 1u << (p[2] > 14 ? 14 : p[2]));
    case OP_TSVAL:
    case OP_TSECR:
        return o.len == 10 &&
               rs_value_set_uint(out, f->type, rs_load_be32(p + (f->offset == OP_TSVAL ? 2 : 6)));
    case OP_SACK_COUNT:
        return rs_value_set_uint(out, f->type, blocks);
    case OP_DSACK:
        out->v.u = 0;
        return blocks > 0 && is_dsack(pkt, &o);
    case OP_DSACK_LE:
    case OP_DSACK_RE:
        if (blocks == 0 || !is_dsack(pkt, &o))
            return false;
        return rs_value_set_uint(out, f->type, rs_load_be32(p + (f->offset == OP_DSACK_LE ? 2 : 6)) -
                                                   peer_base(pkt));
    case OP_PAYLOAD:
        if (option_short_name(o.kind) != NULL || o.len <= 2)
            return false;
        out->v.bytes.ptr = p + 2;
        out->v.bytes.len = o.len - 2;
        return true;
    default:
        return false;
    }
}

static bool
locate_option(const struct rs_packet *whole, const struct rs_field *f, unsigned occ,
              uint32_t *offset, uint32_t *length)
{
    struct rs_packet view;
    const struct rs_packet *pkt = cut_view(whole, &view);
    struct tcp_opt o;

    if (!view_option(pkt, -1, &o))
        return false;
    *offset = o.off;
    *length = 1;
    switch (f->offset) {
    case OP_NODE:
        *length = o.len;
        break;
    case OP_LEN:
        *offset = o.off + 1;
        break;
    case OP_MSS:
        *offset = o.off + 2;
        *length = 2;
        break;
    case OP_SHIFT:
    case OP_MULTIPLIER:
        *offset = o.off + 2;
        break;
    case OP_TSVAL:
    case OP_TSECR:
        *offset = o.off + (f->offset == OP_TSVAL ? 2 : 6);
        *length = 4;
        break;
    case OP_SACK_LE:
    case OP_SACK_RE:
        *offset = o.off + 2 + occ * 8 + (f->offset == OP_SACK_RE ? 4 : 0);
        *length = 4;
        break;
    case OP_SACK_COUNT:
        *length = 0;
        break;
    case OP_DSACK:
    case OP_DSACK_LE:
    case OP_DSACK_RE:
        *offset = o.off + 2 + (f->offset == OP_DSACK_RE ? 4 : 0);
        *length = f->offset == OP_DSACK ? 8 : 4;
        break;
    case OP_PAYLOAD:
        *offset = o.off + 2;
        *length = o.len - 2;
        break;
    default:
        break;
    }
    return true;
}

/* "TCP Option - Maximum segment size: 1460 bytes", and each kind's own text. */
static size_t
option_label(const struct rs_packet *whole, const struct rs_field *f, const struct rs_value *v,
             char *buf, size_t size)
{
    struct rs_packet view;
    const struct rs_packet *pkt = cut_view(whole, &view);
    struct tcp_opt o;
    const uint8_t *p;
    size_t n;

    (void)v;
    if (!view_option(pkt, -1, &o))
        return 0;
    p = pkt->frame->data + o.off;
    n = (size_t)snprintf(buf, size, "%s", f->name);
    if (n >= size)
        return n;
    switch (o.kind) {
    case OPT_MSS:
        if (o.len == 4)
            n += (size_t)snprintf(buf + n, size - n, ": %u bytes", rs_load_be16(p + 2));
        break;
    case OPT_WSCALE:
        if (o.len == 3)
            n += (size_t)snprintf(buf + n, size - n, ": %u (multiply by %u)", p[2],
                                  1u << (p[2] > 14 ? 14 : p[2]));
        break;
    case OPT_TIMESTAMP:
        if (o.len == 10)
            n += (size_t)snprintf(buf + n, size - n, ": TSval %u, TSecr %u", rs_load_be32(p + 2),
                                  rs_load_be32(p + 6));
        break;
    case OPT_SACK:
        for (uint32_t k = 2; k + 8 <= o.len && n < size; k += 8)
            n += (size_t)snprintf(buf + n, size - n, " %u-%u",
                                  rs_load_be32(p + k) - peer_base(pkt),
                                  rs_load_be32(p + k + 4) - peer_base(pkt));
        break;
    default:
        break;
    }
    return n;
}

/* "left edge = 9 (relative)", "D-SACK Left Edge = 9 (relative)" */
static size_t
edge_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
           char *buf, size_t size)
{
    static const char *const names[] = {[OP_SACK_LE] = "left edge", [OP_SACK_RE] = "right edge",
                                        [OP_DSACK_LE] = "D-SACK Left Edge",
                                        [OP_DSACK_RE] = "D-SACK Right Edge"};
    const char *rel = tcp_view(pkt) != NULL ? " (relative)" : "";

    return (size_t)snprintf(buf, size, "%s = %llu%s", names[f->offset],
                            (unsigned long long)v->v.u, rel);
}

static size_t
dsack_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
            char *buf, size_t size)
{
    (void)pkt;
    (void)f;
    (void)v;
    return (size_t)snprintf(buf, size, "D-SACK Sequence");
}

/* A TCP header an ICMP error quotes, to `bytes`: tshark looks its conversation up
 * afresh once it reaches the window, so its completeness reads 0, and its times too once
 * the header is whole. */
static bool
quoted_tcp(const struct rs_packet *pkt, uint32_t bytes)
{
    return (pkt->flags & RS_PKT_QUOTED) && tcp_reaches(pkt, bytes);
}

/* A header cut short past its window (rs_packet_tcp_cut): the line tshark writes after
 * the completeness, and the hidden _ws.malformed under it (its Malformed group). */
static bool
get_short_segment(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                  struct rs_value *out)
{
    if (occ != 0 || !rs_packet_tcp_cut(pkt))
        return false;
    out->type = f->type;
    out->v.u = 0;
    return true;
}

static bool
get_short_malformed(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                    struct rs_value *out)
{
    (void)f;
    return ws_item_without_bytes(rs_packet_tcp_cut(pkt), occ, out);
}

/* The conversation's times: the "Timestamps" line, then each. */
static bool
get_times(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          struct rs_value *out)
{
    if ((tcp_view(pkt) == NULL && !quoted_tcp(pkt, TCP_MIN_HDR_LEN)) || occ != 0 ||
        (tcp_view(pkt) != NULL && tcp_view(pkt)->cut && !tcp_reaches(pkt, TCP_MIN_HDR_LEN)))
        return false;
    if (f->flags & RS_FIELD_TEXT) {
        out->type = RS_FT_NONE;
        out->v.u = 0;
        return true;
    }
    if (tcp_view(pkt) == NULL) {
        out->type = f->type;
        out->v.t = (struct rs_time){0, 0};
        return true;
    }
    return l4_get_stream(pkt, f, occ, out);
}

/* Where the times sit: the header's start, a header cut short's too. */
static bool
locate_times(const struct rs_packet *whole, const struct rs_field *f, unsigned occ,
             uint32_t *offset, uint32_t *length)
{
    struct rs_packet view;

    return rs_locate_layer_start(cut_view(whole, &view), f, occ, offset, length);
}

/* The analysis' values; the offset column selects one. */
enum analysis_value { AV_NODE, AV_ACKS_FRAME, AV_ACK_RTT, AV_IRTT, AV_BYTES_IN_FLIGHT,
                      AV_PUSH_BYTES, AV_FLAGS, AV_RTO, AV_RTO_FRAME, AV_DUPACK,
                      AV_DUPACK_NUM, AV_DUPACK_FRAME };

static bool
get_analysis(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out)
{
    const struct rs_stream_view *sv = tcp_view(pkt);

    if (sv == NULL || occ != 0 || !sv->analysis.shown)
        return false;
    const struct rs_tcp_analysis *a = &sv->analysis;
    out->type = f->type;
    out->v.u = 0;
    switch (f->offset) {
    case AV_NODE:
        return true;
    case AV_ACKS_FRAME:
        out->v.u = a->acks_frame;
        return a->acks_frame != 0;
    case AV_ACK_RTT:
        out->v.t = a->ack_rtt;
        return a->acks_frame != 0 && (a->ack_rtt.sec != 0 || a->ack_rtt.nsec != 0);
    case AV_IRTT:
        out->v.t = a->irtt;
        return a->irtt_known;
    case AV_BYTES_IN_FLIGHT:
        out->v.u = a->bytes_in_flight;
        return a->bytes_in_flight != 0;
    case AV_PUSH_BYTES:
        out->v.u = a->push_bytes_sent;
        return a->bytes_in_flight != 0;
    case AV_FLAGS:
        return a->flags != 0;
    case AV_RTO:
        out->v.t = a->rto;
        return (a->flags & RS_TCPA_RETRANSMISSION) && (a->rto.sec != 0 || a->rto.nsec != 0);
    case AV_RTO_FRAME:
        out->v.u = a->rto_frame;
        return (a->flags & RS_TCPA_RETRANSMISSION) && (a->rto.sec != 0 || a->rto.nsec != 0);
    case AV_DUPACK:
        return a->dupack_num != 0 && (a->flags & RS_TCPA_DUPLICATE_ACK);
    case AV_DUPACK_NUM:
        out->v.u = a->dupack_num;
        return a->dupack_num != 0;
    case AV_DUPACK_FRAME:
        out->v.u = a->dupack_frame;
        return a->dupack_num != 0;
    default:
        return false;
    }
}

static size_t
dupack_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
             char *buf, size_t size)
{
    (void)pkt;
    (void)f;
    (void)v;
    return (size_t)snprintf(buf, size, "This is a TCP duplicate ack");
}

/* The segment's payload, when it has one. */
static bool
get_payload(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    struct rs_span p;

    if (occ != 0 || !rs_tcp_payload(pkt, &p))
        return false;
    out->type = f->type;
    out->v.bytes.ptr = pkt->frame->data + p.off;
    out->v.bytes.len = p.len;
    return true;
}

/* tcp.segment_data: the bytes of a segment TCP keeps for a message over several, as tshark
 * shows them: the whole payload of a message's first and middle segments; of the segment
 * that completes one, the bytes that do, then those of a message it begins (a TLS record
 * after the one it ends); of a segment that begins one after whole records, its bytes; of
 * a retransmission within a message, its payload. */
static bool
get_segment_data(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    const struct rs_stream_view *v = pkt->stream;
    uint8_t part = v != NULL ? v->pdu_part : RS_PDU_NONE;
    uint32_t from = 0, to;

    if (v == NULL || !get_payload(pkt, f, 0, out))
        return false;
    to = out->v.bytes.len;
    if (part == RS_PDU_FIRST || part == RS_PDU_MIDDLE || v->pdu_resent) {
        if (occ != 0)
            return false;
    } else if (part == RS_PDU_LAST && occ == 0) {
        to = v->pdu_end < to ? v->pdu_end : to;
    } else if (v->pdu_begins && occ == (part == RS_PDU_LAST)) {
        from = v->pdu_begin < to ? v->pdu_begin : to;
    } else {
        return false;
    }
    out->v.bytes.ptr += from;
    out->v.bytes.len = to - from;
    return true;
}

static size_t
segment_data_label(const struct rs_packet *pkt, const struct rs_field *f,
                   const struct rs_value *v, char *buf, size_t size)
{
    (void)f;
    return (size_t)snprintf(buf, size, "%sTCP segment data (%u byte%s)",
                            pkt->stream != NULL && pkt->stream->pdu_resent &&
                            (pkt->stream->analysis.flags & RS_TCPA_RETRANSMISSION)
                                ? "Retransmitted " : "",
                            v->v.bytes.len, v->v.bytes.len == 1 ? "" : "s");
}

/* tcp.pdu.size: each MPA frame or FPDU the segment holds whole, as tshark's
 * tcp_dissect_pdus() counts them: the occ-th such PDU's place in the frame and its length. */
static bool
whole_pdu(const struct rs_packet *pkt, unsigned occ, uint32_t *offset, uint32_t *length)
{
    const struct rs_iwarp_view *v = pkt->iwarp;
    struct rs_span p;
    unsigned n = 0;

    if (v == NULL || !rs_tcp_payload(pkt, &p))
        return false;
    uint32_t seq = rs_load_be32(rs_packet_at(pkt, RS_LAYER_TCP) + 4);
    for (unsigned i = 0; i < v->n_pdus; i++) {
        const struct rs_iwarp_pdu *d = &v->pdus[i];
        uint32_t at = d->seq - seq;
        if (d->caplen == d->len && at < p.len && d->wire_len <= p.len - at && n++ == occ) {
            *offset = p.off + at;
            *length = d->wire_len;
            return true;
        }
    }
    return false;
}

static bool
get_pdu_size(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out)
{
    uint32_t off, len;

    return whole_pdu(pkt, occ, &off, &len) && rs_value_set_uint(out, f->type, len);
}

/* over the PDU's bytes, as tshark's item */
static bool
locate_pdu_size(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                uint32_t *offset, uint32_t *length)
{
    (void)f;
    return whole_pdu(pkt, occ, offset, length);
}

static size_t
payload_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
              char *buf, size_t size)
{
    (void)pkt;
    (void)f;
    return (size_t)snprintf(buf, size, "TCP payload (%u byte%s)", v->v.bytes.len,
                            v->v.bytes.len == 1 ? "" : "s");
}

static const uint16_t analysis_flag_of[RS_WSX_COUNT] = {
    [RS_WSX_TCP_REUSED_PORTS] = RS_TCPA_REUSED_PORTS,
    [RS_WSX_TCP_RETRANSMISSION] = RS_TCPA_RETRANSMISSION,
    [RS_WSX_TCP_FAST_RETRANSMISSION] = RS_TCPA_FAST_RETRANSMISSION,
    [RS_WSX_TCP_RETRANSMISSION_FAST] = RS_TCPA_FAST_RETRANSMISSION,
    [RS_WSX_TCP_SPURIOUS_RETRANSMISSION] = RS_TCPA_SPURIOUS_RETRANSMISSION,
    [RS_WSX_TCP_RETRANSMISSION_SPURIOUS] = RS_TCPA_SPURIOUS_RETRANSMISSION,
    [RS_WSX_TCP_OUT_OF_ORDER] = RS_TCPA_OUT_OF_ORDER,
    [RS_WSX_TCP_LOST_SEGMENT] = RS_TCPA_LOST_SEGMENT,
    [RS_WSX_TCP_ACK_LOST_SEGMENT] = RS_TCPA_ACK_LOST_SEGMENT,
    [RS_WSX_TCP_WINDOW_UPDATE] = RS_TCPA_WINDOW_UPDATE,
    [RS_WSX_TCP_WINDOW_FULL] = RS_TCPA_WINDOW_FULL,
    [RS_WSX_TCP_KEEP_ALIVE] = RS_TCPA_KEEP_ALIVE,
    [RS_WSX_TCP_KEEP_ALIVE_ACK] = RS_TCPA_KEEP_ALIVE_ACK,
    [RS_WSX_TCP_ZERO_WINDOW_PROBE] = RS_TCPA_ZERO_WINDOW_PROBE,
    [RS_WSX_TCP_ZERO_WINDOW] = RS_TCPA_ZERO_WINDOW,
    [RS_WSX_TCP_ZERO_WINDOW_PROBE_ACK] = RS_TCPA_ZERO_WINDOW_PROBE_ACK,
};

bool
tcp_expert_present(const struct rs_packet *whole, enum rs_ws_expert_kind kind)
{
    struct rs_packet view;
    const struct rs_packet *pkt = cut_view(whole, &view);
    const struct rs_stream_view *sv = tcp_view(pkt);
    struct tcp_opt o;

    if (kind == RS_WSX_TCP_SHORT_SEGMENT)
        return rs_packet_tcp_cut(pkt);
    if (!header_shown(pkt, 14))
        return false;
    /* a quoted header's flags only: SYN, SYN/ACK, FIN and RST */
    if ((pkt->flags & RS_PKT_QUOTED) && kind != RS_WSX_TCP_SYN && kind != RS_WSX_TCP_SYNACK &&
        kind != RS_WSX_TCP_FIN && kind != RS_WSX_TCP_RST)
        return false;
    uint16_t flags = tcp_flags(pkt);
    const uint8_t *t = rs_packet_at(pkt, RS_LAYER_TCP);
    switch (kind) {
    case RS_WSX_TCP_SYN:
        return (flags & (TH_SYN | TH_ACK)) == TH_SYN;
    case RS_WSX_TCP_SYNACK:
        return (flags & (TH_SYN | TH_ACK)) == (TH_SYN | TH_ACK);
    case RS_WSX_TCP_FIN:
        return (flags & TH_FIN) != 0;
    case RS_WSX_TCP_FIN_ACTIVE:
    case RS_WSX_TCP_FIN_PASSIVE:
        return sv != NULL && (flags & TH_FIN) &&
               sv->fin_first == (kind == RS_WSX_TCP_FIN_ACTIVE);
    case RS_WSX_TCP_RST:
        return (flags & TH_RST) != 0;
    case RS_WSX_TCP_ACK_NONZERO:
        return !(flags & TH_ACK) && rs_load_be32(t + 8) != 0;
    case RS_WSX_TCP_URGENT_NONZERO:
        return tcp_reaches(pkt, TCP_MIN_HDR_LEN) && !(flags & TH_URG) &&
               rs_load_be16(t + 18) != 0;
    case RS_WSX_TCP_MSS_ABSENT: {
        uint32_t off, len;
        if (!(flags & TH_SYN) || !options_span(pkt, &off, &len))
            return false;
        for (unsigned i = 0; option_at(pkt, i, &o); i++)
            if (o.kind == OPT_MSS)
                return false;
        return true;
    }
    case RS_WSX_TCP_MSS_PRESENT:
        return view_option(pkt, OPT_MSS, &o) && !(flags & TH_SYN);
    case RS_WSX_TCP_DSACK:
        return view_option(pkt, OPT_SACK, &o) && o.len >= 10 && is_dsack(pkt, &o);
    case RS_WSX_TCP_DUPLICATE_ACK:
        return sv != NULL && sv->analysis.shown && sv->analysis.dupack_num != 0;
    default:
        return sv != NULL && sv->analysis.shown && kind < RS_WSX_COUNT &&
               analysis_flag_of[kind] != 0 && (sv->analysis.flags & analysis_flag_of[kind]);
    }
}

unsigned
tcp_expert_count(const struct rs_packet *whole, enum rs_ws_expert_kind kind)
{
    struct rs_packet view;
    const struct rs_packet *pkt = cut_view(whole, &view);
    struct tcp_opt o;
    unsigned n = 0;

    if (kind != RS_WSX_TCP_MSS_PRESENT && kind != RS_WSX_TCP_DSACK)
        return tcp_expert_present(pkt, kind) ? 1 : 0;
    /* an option's item: one per option that raises it, as the tree shows them */
    if (!tcp_reaches(pkt, 14) || (pkt->flags & RS_PKT_QUOTED))
        return 0;
    for (unsigned i = 0; option_at(pkt, i, &o); i++)
        n += kind == RS_WSX_TCP_MSS_PRESENT
                 ? o.kind == OPT_MSS && !(tcp_flags(pkt) & TH_SYN)
                 : o.kind == OPT_SACK && o.len >= 10 && is_dsack(pkt, &o);
    return n;
}

uint32_t
tcp_expert_anchor(const struct rs_packet *whole, enum rs_ws_expert_kind kind)
{
    struct rs_packet view;
    const struct rs_packet *pkt = cut_view(whole, &view);
    uint32_t t = pkt->span[RS_LAYER_TCP].off, off, len;
    struct tcp_opt o;

    switch (kind) {
    case RS_WSX_TCP_SYN:
    case RS_WSX_TCP_SYNACK:
    case RS_WSX_TCP_FIN:
    case RS_WSX_TCP_RST:
        return t + 13;
    case RS_WSX_TCP_FIN_ACTIVE:
    case RS_WSX_TCP_FIN_PASSIVE:
        return t + 12;
    case RS_WSX_TCP_ACK_NONZERO:
        return t + 8;
    case RS_WSX_TCP_SHORT_SEGMENT:
        return t;
    case RS_WSX_TCP_URGENT_NONZERO:
        return t + 18;
    case RS_WSX_TCP_MSS_ABSENT:
        return options_span(pkt, &off, &len) ? off : t;
    case RS_WSX_TCP_MSS_PRESENT:
        return view_option(pkt, -1, &o) ? o.off : t;
    case RS_WSX_TCP_DSACK:
        return view_option(pkt, -1, &o) ? o.off + 2 : t;
    default:
        return t;
    }
}

static bool
tcp_get_completeness(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                     struct rs_value *out)
{
    const struct rs_stream_view *sv = tcp_view(pkt);

    if (occ == 0 && sv == NULL && quoted_tcp(pkt, QUOTE_DECODE_REACH))
        return rs_value_set_uint(out, f->type, 0);
    return sv != NULL && occ == 0 && rs_value_set_uint(out, f->type, sv->completeness);
}

/* "Incomplete, DATA (15)": the states packet-tcp.c names, else "Incomplete". */
static size_t
tcp_show_completeness(const struct rs_field *f, const struct rs_value *v, char *buf,
                      size_t size)
{
    enum { S = RS_TCPC_SYN, SA = RS_TCPC_SYNACK, A = RS_TCPC_ACK, D = RS_TCPC_DATA,
           F = RS_TCPC_FIN, R = RS_TCPC_RST };
    const char *what;

    (void)f;
    switch (v->v.u) {
    case S: what = "Incomplete, SYN_SENT"; break;
    case S | SA: what = "Incomplete, CLIENT_ESTABLISHED"; break;
    case S | SA | A: what = "Incomplete, ESTABLISHED"; break;
    case S | SA | A | D: what = "Incomplete, DATA"; break;
    case S | SA | A | D | F:
    case S | SA | A | D | R:
    case S | SA | A | D | F | R: what = "Complete, WITH_DATA"; break;
    case S | SA | A | F:
    case S | SA | A | R:
    case S | SA | A | F | R: what = "Complete, NO_DATA"; break;
    default: what = "Incomplete"; break;
    }
    return (size_t)snprintf(buf, size, "%s (%llu)", what, (unsigned long long)v->v.u);
}

/* The header bytes of a field whose offset column selects the streams stage's value:
 * the sequence or acknowledgment number, or the window. */
static bool
tcp_locate_word(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                uint32_t *offset, uint32_t *length)
{
    (void)occ;
    *offset = pkt->span[RS_LAYER_TCP].off;
    switch (f->offset) {
    case SV_SEQ:
        *offset += 4;
        *length = 4;
        return true;
    case SV_ACK:
        *offset += 8;
        *length = 4;
        return true;
    default:
        *offset += 14;
        *length = 2;
        return true;
    }
}

#define NB (RS_FIELD_GENERATED | RS_FIELD_NO_BYTES)
#define PI RS_FIELD_PER_ITEM
#define TCP_FLAG(abbrev, name, mask) \
    {abbrev, name, RS_FT_BOOLEAN, RS_BASE_NONE, mask, set_vals, name, RS_LAYER_TCP, 12, 2, \
     get_flags_word, 2, 0, .label = flag_label, .locate = locate_flag}
#define SEQ_FIELD(abbrev, name, which, getter, fl, lbl) \
    {abbrev, name, RS_FT_UINT32, RS_BASE_DEC, 0, NULL, name, RS_LAYER_TCP, which, 0, getter, 1, \
     fl, .label = lbl, .locate = rs_locate_layer_start}
/* An option of kind (0xff: one Wireshark does not know), and its lines at depth 2. */
#define OPTION(abbrev, name, kind) \
    {abbrev, name, RS_FT_BYTES, RS_BASE_NONE, 0, NULL, name, RS_LAYER_TCP, OP_NODE, kind, \
     get_option, 2, PI, .label = option_label, .locate = locate_option}
#define OPT_PART(abbrev, name, type, vals, part, fl) \
    {abbrev, name, type, RS_BASE_DEC, 0, vals, name, RS_LAYER_TCP, part, 0, get_option, 3, \
     PI | (fl), .locate = locate_option}
#define ANALYSIS(abbrev, name, type, which, depth) \
    {abbrev, name, type, RS_BASE_DEC, 0, NULL, name, RS_LAYER_TCP, which, 0, get_analysis, \
     depth, NB, .locate = rs_locate_layer_start}
/* asked of an ICMP error's quote too (tcp_expert_present answers for its flags alone) */
#define EXPERT_TCP(abbrev, name, kind, depth) \
    RS_F_WS_EXPERT_AS(abbrev, name, kind, depth, RS_FIELD_QUOTABLE)
#define EXPERT_OPT(abbrev, name, kind) RS_F_WS_EXPERT_AS(abbrev, name, kind, 3, PI)

#define TCP_SEQ_BLURB                                                                    \
    "Relative to the direction's initial sequence number (1 for the first segment seen " \
    "without its SYN)"

const struct rs_field rs_fields_tcp[] = {
    {"tcp", "Transmission Control Protocol", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "Transmission Control Protocol", RS_LAYER_TCP, 0, 0, NULL, 0, 0, .label = tcp_label},
    {"tcp.srcport", "Source Port", RS_FT_UINT16, RS_BASE_DEC, 0, NULL, "TCP source port",
     RS_LAYER_TCP, 0, 2, NULL, 1, 0, .label = l4_port_label},
    {"tcp.dstport", "Destination Port", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "TCP destination port", RS_LAYER_TCP, 2, 2, NULL, 1, 0, .label = l4_port_label},
    {"tcp.port", "Source or Destination Port", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "TCP source or destination port", RS_LAYER_TCP, 0, 2, NULL, 1, RS_FIELD_HIDDEN,
     .label = l4_port_label},
    {"tcp.port", "Source or Destination Port", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "TCP source or destination port", RS_LAYER_TCP, 2, 2, NULL, 1, RS_FIELD_HIDDEN,
     .label = l4_port_label},
    {"tcp.seq", "Sequence Number", RS_FT_UINT32, RS_BASE_DEC, 0, NULL, TCP_SEQ_BLURB,
     RS_LAYER_TCP, SV_SEQ, 0, get_seq_first, 1, 0, .label = relative_label,
     .locate = tcp_locate_word},
    SEQ_FIELD("tcp.stream", "Stream index", SV_INDEX, l4_get_stream, NB, NULL),
    {"tcp.completeness", "Conversation completeness", RS_FT_UINT8, RS_BASE_DEC, 0, NULL,
     "Which of SYN, SYN+ACK, ACK, data, FIN and RST the conversation has shown (1, 2, 4, 8, "
     "16, 32) before the segment", RS_LAYER_TCP, 0, 0, tcp_get_completeness, 1, NB,
     .show = tcp_show_completeness, .locate = rs_locate_layer_start},
    {"", "Short segment. Segment/fragment does not contain a full TCP header (might be NMAP or "
     "someone else deliberately sending unusual packets)", RS_FT_NONE, RS_BASE_NONE, 0, NULL,
     "", RS_LAYER_TCP, 0, 0, get_short_segment, 1, RS_FIELD_TEXT | RS_FIELD_NO_BYTES,
     .label = rs_text_label,
     .locate = rs_locate_layer_start},
    EXPERT_TCP("tcp.short_segment", "Short segment", RS_WSX_TCP_SHORT_SEGMENT, 2),
    {"_ws.malformed", "Malformed Packet", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "",
     RS_LAYER_TCP, 0, 0, get_short_malformed, 2, RS_FIELD_HIDDEN | NB,
     .locate = rs_locate_layer_start},
    SEQ_FIELD("tcp.len", "TCP Segment Len", SV_LEN, get_segment, NB, NULL),
    {"tcp.seq", "Sequence Number", RS_FT_UINT32, RS_BASE_DEC, 0, NULL, TCP_SEQ_BLURB,
     RS_LAYER_TCP, SV_SEQ, 0, get_seq_after, 1, 0, .label = relative_label,
     .locate = tcp_locate_word},
    {"tcp.seq_raw", "Sequence Number (raw)", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "TCP sequence number as sent", RS_LAYER_TCP, 4, 4, get_seq_raw_twin, 1},
    {"tcp.seq_raw", "Sequence Number (raw)", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "TCP sequence number as sent", RS_LAYER_TCP, 4, 4, get_seq_raw_twin, 1,
     RS_FIELD_HIDDEN},
    SEQ_FIELD("tcp.nxtseq", "Next Sequence Number", SV_NXTSEQ, get_segment, NB, relative_label),
    {"tcp.ack", "Acknowledgment Number", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "Relative to the other direction's initial sequence number", RS_LAYER_TCP, SV_ACK, 0,
     l4_get_stream, 1, 0, .label = relative_label, .locate = tcp_locate_word},
    EXPERT_TCP("tcp.ack.nonzero", "The acknowledgment number field is nonzero while the ACK "
               "flag is not set", RS_WSX_TCP_ACK_NONZERO, 2),
    {"tcp.ack_raw", "Acknowledgment number (raw)", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "TCP acknowledgment number as sent", RS_LAYER_TCP, 8, 4, get_ack_raw_twin, 1},
    {"tcp.ack_raw", "Acknowledgment number (raw)", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "TCP acknowledgment number as sent", RS_LAYER_TCP, 8, 4, get_ack_raw_twin, 1,
     RS_FIELD_HIDDEN},
    {"tcp.hdr_len", "Header Length", RS_FT_UINT8, RS_BASE_DEC, 0, NULL,
     "TCP header length in bytes", RS_LAYER_TCP, 12, 1, get_hdr_len, 1, 0,
     .label = hdr_len_label},
    {"tcp.flags", "Flags", RS_FT_UINT16, RS_BASE_HEX, 0x0fff, NULL, "TCP flags",
     RS_LAYER_TCP, 12, 2, get_flags_word, 1, 0, .label = flags_label},
    TCP_FLAG("tcp.flags.res", "Reserved", 0x0e00),
    TCP_FLAG("tcp.flags.ae", "Accurate ECN", 0x0100),
    TCP_FLAG("tcp.flags.cwr", "Congestion Window Reduced", 0x0080),
    TCP_FLAG("tcp.flags.ece", "ECN-Echo", 0x0040),
    TCP_FLAG("tcp.flags.urg", "Urgent", 0x0020),
    TCP_FLAG("tcp.flags.ack", "Acknowledgment", 0x0010),
    TCP_FLAG("tcp.flags.push", "Push", 0x0008),
    TCP_FLAG("tcp.flags.reset", "Reset", 0x0004),
    EXPERT_TCP("tcp.connection.rst", "Connection reset (RST)", RS_WSX_TCP_RST, 3),
    TCP_FLAG("tcp.flags.syn", "Syn", 0x0002),
    EXPERT_TCP("tcp.connection.syn", "Connection establish request (SYN)", RS_WSX_TCP_SYN, 3),
    EXPERT_TCP("tcp.connection.synack", "Connection establish acknowledge (SYN+ACK)",
               RS_WSX_TCP_SYNACK, 3),
    TCP_FLAG("tcp.flags.fin", "Fin", 0x0001),
    EXPERT_TCP("tcp.connection.fin", "Connection finish (FIN)", RS_WSX_TCP_FIN, 3),
    {"tcp.flags.str", "TCP Flags", RS_FT_STRING, RS_BASE_NONE, 0, NULL,
     "The flags as letters, RRRACEUAPRSF, a dot for each not set", RS_LAYER_TCP, 12, 2,
     get_flags_str, 2, RS_FIELD_GENERATED},
    EXPERT_TCP("tcp.connection.fin_active", "This frame initiates the connection closing",
               RS_WSX_TCP_FIN_ACTIVE, 3),
    EXPERT_TCP("tcp.connection.fin_passive", "This frame undergoes the connection closing",
               RS_WSX_TCP_FIN_PASSIVE, 3),
    {"tcp.window_size_value", "Window", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "TCP window as sent", RS_LAYER_TCP, 14, 2, NULL, 1},
    {"tcp.window_size", "Calculated window size", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "The window times the scaling factor the SYNs agreed", RS_LAYER_TCP, SV_WINDOW, 0,
     l4_get_stream, 1, RS_FIELD_GENERATED, .locate = tcp_locate_word},
    {"tcp.window_size_scalefactor", "Window size scaling factor", RS_FT_INT32, RS_BASE_DEC, 0,
     NULL, "-1: unknown (SYNs not seen), -2: no scaling, else the factor", RS_LAYER_TCP,
     SV_SCALE, 0, l4_get_stream, 1, RS_FIELD_GENERATED, .show = show_scale,
     .locate = tcp_locate_word},
    {"tcp.checksum", "Checksum", RS_FT_UINT16, RS_BASE_HEX, 0, NULL, "TCP checksum",
     RS_LAYER_TCP, 16, 2, NULL, 1, 0, .show = show_unverified},
    {"tcp.checksum.status", "Checksum Status", RS_FT_UINT8, RS_BASE_NONE, 0, rs_cksum_vals,
     "Not verified, as tshark's default", RS_LAYER_TCP, 16, 0, get_unverified, 1, NB},
    {"tcp.urgent_pointer", "Urgent Pointer", RS_FT_UINT16, RS_BASE_DEC, 0, NULL,
     "TCP urgent pointer", RS_LAYER_TCP, 18, 2, NULL, 1},
    EXPERT_TCP("tcp.urgent_pointer.non_zero", "The urgent pointer field is nonzero while the "
               "URG flag is not set", RS_WSX_TCP_URGENT_NONZERO, 2),
    {"tcp.options", "TCP Options", RS_FT_BYTES, RS_BASE_NONE, 0, NULL, "The header's options",
     RS_LAYER_TCP, 20, 0, get_options, 1, 0, .label = options_label},
    OPTION("tcp.options.nop", "TCP Option - No-Operation (NOP)", OPT_NOP),
    OPTION("tcp.options.eol", "TCP Option - End of Option List (EOL)", OPT_EOL),
    OPTION("tcp.options.mss", "TCP Option - Maximum segment size", OPT_MSS),
    OPTION("tcp.options.wscale", "TCP Option - Window scale", OPT_WSCALE),
    OPTION("tcp.options.sack_perm", "TCP Option - SACK permitted", OPT_SACK_PERM),
    OPTION("tcp.options.sack", "TCP Option - SACK", OPT_SACK),
    OPTION("tcp.options.timestamp", "TCP Option - Timestamps", OPT_TIMESTAMP),
    OPTION("tcp.options.unknown", "TCP Option - Unknown", 0xff),
    EXPERT_OPT("tcp.options.mss.present", "The non-SYN packet does contain a MSS option",
               RS_WSX_TCP_MSS_PRESENT),
    OPT_PART("tcp.option_kind", "Kind", RS_FT_UINT8, rs_tcp_option_kind_vals, OP_KIND, 0),
    OPT_PART("tcp.option_len", "Length", RS_FT_UINT8, NULL, OP_LEN, 0),
    OPT_PART("tcp.options.mss_val", "MSS Value", RS_FT_UINT16, NULL, OP_MSS, 0),
    OPT_PART("tcp.options.wscale.shift", "Shift count", RS_FT_UINT8, NULL, OP_SHIFT, 0),
    OPT_PART("tcp.options.wscale.multiplier", "Multiplier", RS_FT_UINT16, NULL, OP_MULTIPLIER,
             RS_FIELD_GENERATED),
    OPT_PART("tcp.options.timestamp.tsval", "Timestamp value", RS_FT_UINT32, NULL, OP_TSVAL, 0),
    OPT_PART("tcp.options.timestamp.tsecr", "Timestamp echo reply", RS_FT_UINT32, NULL,
             OP_TSECR, 0),
    {"tcp.options.sack_le", "TCP SACK Left Edge", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "TCP SACK Left Edge", RS_LAYER_TCP, OP_SACK_LE, 0, get_option, 3,
     PI | RS_FIELD_ROWS, .label = edge_label, .locate = locate_option},
    {"tcp.options.sack_re", "TCP SACK Right Edge", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "TCP SACK Right Edge", RS_LAYER_TCP, OP_SACK_RE, 0, get_option, 3,
     PI | RS_FIELD_ROWS, .label = edge_label, .locate = locate_option},
    OPT_PART("tcp.options.sack.count", "TCP SACK Count", RS_FT_UINT8, NULL, OP_SACK_COUNT,
             RS_FIELD_GENERATED),
    {"tcp.options.sack.dsack_le", "TCP D-SACK Left Edge", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "TCP D-SACK Left Edge", RS_LAYER_TCP, OP_DSACK_LE, 0, get_option, 3,
     PI | RS_FIELD_GENERATED, .label = edge_label, .locate = locate_option},
    {"tcp.options.sack.dsack_re", "TCP D-SACK Right Edge", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "TCP D-SACK Right Edge", RS_LAYER_TCP, OP_DSACK_RE, 0, get_option, 3,
     PI | RS_FIELD_GENERATED, .label = edge_label, .locate = locate_option},
    {"", "D-SACK Sequence", RS_FT_NONE, RS_BASE_NONE, 0, NULL, "", RS_LAYER_TCP, OP_DSACK, 0,
     get_option, 3, PI | RS_FIELD_TEXT, .label = dsack_label, .locate = locate_option},
    RS_F_WS_EXPERT_AS("tcp.options.sack.dsack", "D-SACK Sequence", RS_WSX_TCP_DSACK, 4, PI),
    OPT_PART("tcp.options.unknown.payload", "Payload", RS_FT_BYTES, NULL, OP_PAYLOAD, 0),
    EXPERT_TCP("tcp.options.mss.absent", "The SYN packet does not contain a MSS option",
               RS_WSX_TCP_MSS_ABSENT, 2),
    {"", "Timestamps", RS_FT_NONE, RS_BASE_NONE, 0, NULL, "", RS_LAYER_TCP, 0, 0, get_times, 1,
     RS_FIELD_TEXT | NB, .label = rs_text_label},
    {"tcp.time_relative", "Time since first frame in this TCP stream", RS_FT_RELTIME,
     RS_BASE_NONE, 0, NULL, "Time relative to first frame in this TCP stream", RS_LAYER_TCP,
     SV_REL, 0, get_times, 2, NB, .locate = locate_times},
    {"tcp.time_delta", "Time since previous frame in this TCP stream", RS_FT_RELTIME,
     RS_BASE_NONE, 0, NULL, "Time delta from previous frame in this TCP stream", RS_LAYER_TCP,
     SV_DELTA, 0, get_times, 2, NB, .locate = locate_times},
    ANALYSIS("tcp.analysis", "SEQ/ACK analysis", RS_FT_NONE, AV_NODE, 1),
    ANALYSIS("tcp.analysis.acks_frame", "This is an ACK to the segment in frame",
             RS_FT_FRAMENUM, AV_ACKS_FRAME, 2),
    ANALYSIS("tcp.analysis.ack_rtt", "The RTT to ACK the segment was", RS_FT_RELTIME,
             AV_ACK_RTT, 2),
    ANALYSIS("tcp.analysis.initial_rtt", "iRTT", RS_FT_RELTIME, AV_IRTT, 2),
    ANALYSIS("tcp.analysis.bytes_in_flight", "Bytes in flight", RS_FT_UINT32,
             AV_BYTES_IN_FLIGHT, 2),
    ANALYSIS("tcp.analysis.push_bytes_sent", "Bytes sent since last PSH flag", RS_FT_UINT32,
             AV_PUSH_BYTES, 2),
    ANALYSIS("tcp.analysis.flags", "TCP Analysis Flags", RS_FT_NONE, AV_FLAGS, 2),
    EXPERT_TCP("tcp.analysis.reused_ports", "A new tcp session is started with the same ports "
               "as an earlier session in this trace", RS_WSX_TCP_REUSED_PORTS, 3),
    EXPERT_TCP("tcp.analysis.retransmission", "This frame is a (suspected) retransmission",
               RS_WSX_TCP_RETRANSMISSION, 3),
    ANALYSIS("tcp.analysis.rto", "The RTO for this segment was", RS_FT_RELTIME, AV_RTO, 3),
    ANALYSIS("tcp.analysis.rto_frame", "RTO based on delta from frame", RS_FT_FRAMENUM,
             AV_RTO_FRAME, 3),
    EXPERT_TCP("tcp.analysis.fast_retransmission", "This frame is a (suspected) fast "
               "retransmission", RS_WSX_TCP_FAST_RETRANSMISSION, 3),
    EXPERT_TCP("tcp.analysis.retransmission", "This frame is a (suspected) retransmission",
               RS_WSX_TCP_RETRANSMISSION_FAST, 3),
    EXPERT_TCP("tcp.analysis.spurious_retransmission", "This frame is a (suspected) spurious "
               "retransmission", RS_WSX_TCP_SPURIOUS_RETRANSMISSION, 3),
    EXPERT_TCP("tcp.analysis.retransmission", "This frame is a (suspected) retransmission",
               RS_WSX_TCP_RETRANSMISSION_SPURIOUS, 3),
    EXPERT_TCP("tcp.analysis.out_of_order", "This frame is a (suspected) out-of-order segment",
               RS_WSX_TCP_OUT_OF_ORDER, 3),
    EXPERT_TCP("tcp.analysis.lost_segment", "Previous segment(s) not captured (common at "
               "capture start)", RS_WSX_TCP_LOST_SEGMENT, 3),
    EXPERT_TCP("tcp.analysis.ack_lost_segment", "ACKed segment that wasn't captured (common at "
               "capture start)", RS_WSX_TCP_ACK_LOST_SEGMENT, 3),
    EXPERT_TCP("tcp.analysis.window_update", "TCP window update", RS_WSX_TCP_WINDOW_UPDATE, 3),
    EXPERT_TCP("tcp.analysis.window_full", "TCP window specified by the receiver is now "
               "completely full", RS_WSX_TCP_WINDOW_FULL, 3),
    EXPERT_TCP("tcp.analysis.keep_alive", "TCP keep-alive segment", RS_WSX_TCP_KEEP_ALIVE, 3),
    EXPERT_TCP("tcp.analysis.keep_alive_ack", "ACK to a TCP keep-alive segment",
               RS_WSX_TCP_KEEP_ALIVE_ACK, 3),
    {"tcp.analysis.duplicate_ack", "Duplicate ACK", RS_FT_NONE, RS_BASE_NONE, 0, NULL,
     "This is a duplicate ACK", RS_LAYER_TCP, AV_DUPACK, 0, get_analysis, 3, NB,
     .label = dupack_label, .locate = rs_locate_layer_start},
    EXPERT_TCP("tcp.analysis.zero_window_probe", "TCP Zero Window Probe",
               RS_WSX_TCP_ZERO_WINDOW_PROBE, 3),
    EXPERT_TCP("tcp.analysis.zero_window", "TCP Zero Window segment", RS_WSX_TCP_ZERO_WINDOW,
               3),
    EXPERT_TCP("tcp.analysis.zero_window_probe_ack", "ACK to a TCP Zero Window Probe",
               RS_WSX_TCP_ZERO_WINDOW_PROBE_ACK, 3),
    ANALYSIS("tcp.analysis.duplicate_ack_num", "Duplicate ACK #", RS_FT_UINT32, AV_DUPACK_NUM,
             2),
    ANALYSIS("tcp.analysis.duplicate_ack_frame", "Duplicate to the ACK in frame",
             RS_FT_FRAMENUM, AV_DUPACK_FRAME, 2),
    EXPERT_TCP("tcp.analysis.duplicate_ack", "Duplicate ACK", RS_WSX_TCP_DUPLICATE_ACK, 3),
    {"tcp.payload", "TCP payload", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
     "The TCP payload of this packet", RS_LAYER_TCP, 0, 0, get_payload, 1, 0,
     .label = payload_label},
    {"tcp.segment_data", "TCP segment data", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
     "The bytes of a segment kept for a message over several", RS_LAYER_TCP, 0, 0,
     get_segment_data, 1, 0, .label = segment_data_label},
    {"tcp.pdu.size", "PDU Size", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "The size of this PDU", RS_LAYER_TCP, 0, 0, get_pdu_size, 1, RS_FIELD_GENERATED,
     .locate = locate_pdu_size},
    RS_F_END,
};
