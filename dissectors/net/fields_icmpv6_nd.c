/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_icmpv6_nd.c - the icmpv6.* fields of Neighbor Discovery's router
 * advertisements and redirects (RFC 4861 4.2, 4.5) and of its options (4.6:
 * link-layer addresses, prefix information, redirected header, MTU; RFC 3971 5.3.2:
 * nonce; RFC 4191 2.3: route information; RFC 8106 5.1: recursive DNS servers), and of
 * MLD (RFC 2710 3: query, report, done; RFC 3810 5.2: the version 2
 * report's records), by Wireshark 4.0's names. The packet a redirected
 * header option holds is decoded as an error's quote is (icmp_quote.c); the option's
 * octets past it (its padding) are Unknown Data, flagged malformed, as tshark shows them.
 * Any other option is shown as its type, length and data, noted undecoded where
 * Wireshark 4.0 does not decode it either; a length of 0 (flagged) or one past the
 * message (malformed) ends the options, as in tshark.
 *
 * Fields that come once per option, record or source are occurrences, as
 * in -T fields; the tree walks them item by item (rs_packet.item).
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/icmp.h>
#include <roceshark/dissectors/wire.h>

#include "fields/fields_int.h"
#include "net/fields_icmp_int.h"
#include "net/net_int.h"

#define ND_OPT_SRC_LINKADDR 1
#define ND_OPT_TGT_LINKADDR 2
#define ND_OPT_PREFIX 3
#define ND_OPT_MTU 5
#define ND_OPT_ADV_INTERVAL 7
#define ND_OPT_HOME_AGENT 8
#define ND_OPT_NONCE 14
#define ND_OPT_ROUTE_INFO 24
#define ND_OPT_RDNSS 25
#define ND_OPT_RA_FLAGS_EXT 26
#define ND_OPT_DNSSL 31
#define ND_OPT_CAPTIVE_PORTAL 37
#define ND_OPT_PREF64 38
#define ETHER_ADDR_LEN 6
#define IPV6_ADDR_LEN 16
#define IPV6_HDR_LEN 40
#define MLD_V1_LEN 24           /* a longer query is MLDv2's (RFC 3810 5.1) */
#define MLDR_FIRST_RECORD 8
#define MLDR_RECORD_HDR 20      /* type, aux data length, number of sources, address */

static bool
get_ra(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ, struct rs_value *out)
{
    return icmp_read_if_type(pkt, f, occ, out, RS_ICMPV6_RA);
}

static bool
get_rd(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ, struct rs_value *out)
{
    return icmp_read_if_type(pkt, f, occ, out, RS_ICMPV6_REDIRECT);
}

static bool
get_mld(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
        struct rs_value *out)
{
    struct rs_icmp m;

    if (!icmp_message_of(pkt, f, occ, &m) || m.type < RS_ICMPV6_MLD_QUERY ||
        m.type > RS_ICMPV6_MLD_DONE || (m.type == RS_ICMPV6_MLD_QUERY && m.len > MLD_V1_LEN))
        return false;
    return rs_field_get_generic(pkt, f, occ, out);
}

static bool
get_mldr_count(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               struct rs_value *out)
{
    return icmp_read_if_type(pkt, f, occ, out, RS_ICMPV6_MLDV2_REPORT);
}

/* Which part of an option, or of an MLDv2 record, a field is (its offset column). */
enum opt_part {
    OPT_NODE, OPT_TYPE, OPT_LENGTH, OPT_LINKADDR, OPT_SRC, OPT_TARGET, OPT_PREFIX_LEN,
    OPT_PREFIX_FLAG, OPT_ROUTE_FLAG, OPT_ROUTE_LIFETIME, OPT_VALID, OPT_PREFERRED,
    OPT_RESERVED, OPT_RDNSS_LIFETIME, OPT_RDNSS, OPT_PREFIX, OPT_MTU, OPT_NONCE,
    OPT_REDIRECTED, OPT_ADV_INTERVAL, OPT_HA_PREFERENCE, OPT_HA_LIFETIME, OPT_UNKNOWN,
    OPT_DNSSL_LIFETIME, OPT_DNSSL, OPT_PADDING, OPT_EFO, OPT_CAPTIVE_PORTAL, OPT_PREF64_WORD,
    OPT_PREF64_PREFIX, OPT_DATA
};

/* The options whose parts we decode; any other is shown as its type, length and data. */
#define OPT_BIT(t) (UINT64_C(1) << (t))
#define OPT_DECODED                                                                      \
    (0x3eu | OPT_BIT(ND_OPT_ADV_INTERVAL) | OPT_BIT(ND_OPT_HOME_AGENT) |                 \
     OPT_BIT(ND_OPT_NONCE) | OPT_BIT(ND_OPT_ROUTE_INFO) | OPT_BIT(ND_OPT_RDNSS) |          \
     OPT_BIT(ND_OPT_DNSSL) | OPT_BIT(ND_OPT_RA_FLAGS_EXT) |                                \
     OPT_BIT(ND_OPT_CAPTIVE_PORTAL) | OPT_BIT(ND_OPT_PREF64))

/* The options each part is of, and where it lies in the option. */
static const struct {
    uint64_t want;
    uint8_t at, width;
} opt_parts[] = {
    [OPT_NODE] = {~UINT64_C(0), 0, 0},
    [OPT_TYPE] = {~UINT64_C(0), 0, 1},
    [OPT_LENGTH] = {~UINT64_C(0), 1, 1},
    [OPT_LINKADDR] = {OPT_BIT(ND_OPT_SRC_LINKADDR) | OPT_BIT(ND_OPT_TGT_LINKADDR), 2, 0},
    [OPT_SRC] = {OPT_BIT(ND_OPT_SRC_LINKADDR), 2, 0},
    [OPT_TARGET] = {OPT_BIT(ND_OPT_TGT_LINKADDR), 2, 0},
    [OPT_PREFIX_LEN] = {OPT_BIT(ND_OPT_PREFIX) | OPT_BIT(ND_OPT_ROUTE_INFO), 2, 1},
    [OPT_PREFIX_FLAG] = {OPT_BIT(ND_OPT_PREFIX), 3, 1},
    [OPT_ROUTE_FLAG] = {OPT_BIT(ND_OPT_ROUTE_INFO), 3, 1},
    [OPT_ROUTE_LIFETIME] = {OPT_BIT(ND_OPT_ROUTE_INFO), 4, 4},
    [OPT_VALID] = {OPT_BIT(ND_OPT_PREFIX), 4, 4},
    [OPT_PREFERRED] = {OPT_BIT(ND_OPT_PREFIX), 8, 4},
    [OPT_RESERVED] = {OPT_BIT(ND_OPT_PREFIX) | OPT_BIT(ND_OPT_MTU) | OPT_BIT(ND_OPT_RDNSS) |
                      OPT_BIT(ND_OPT_ADV_INTERVAL) | OPT_BIT(ND_OPT_HOME_AGENT) |
                      OPT_BIT(ND_OPT_DNSSL) | OPT_BIT(ND_OPT_RA_FLAGS_EXT) |
                      OPT_BIT(RS_ICMPV6_OPT_REDIRECTED), 2, 0},  /* 12 in a prefix's, 4 an EFO's */
    [OPT_RDNSS_LIFETIME] = {OPT_BIT(ND_OPT_RDNSS), 4, 4},
    [OPT_RDNSS] = {OPT_BIT(ND_OPT_RDNSS), 8, IPV6_ADDR_LEN},   /* one after another */
    /* a route's prefix: the 0, 8 or 16 octets after its lifetime (place_prefix()) */
    [OPT_PREFIX] = {OPT_BIT(ND_OPT_PREFIX) | OPT_BIT(ND_OPT_ROUTE_INFO), 16, IPV6_ADDR_LEN},
    [OPT_MTU] = {OPT_BIT(ND_OPT_MTU), 4, 4},
    [OPT_NONCE] = {OPT_BIT(ND_OPT_NONCE), 2, 0},
    [OPT_REDIRECTED] = {OPT_BIT(RS_ICMPV6_OPT_REDIRECTED), 8, 0},
    [OPT_ADV_INTERVAL] = {OPT_BIT(ND_OPT_ADV_INTERVAL), 4, 4},  /* RFC 6275 7.3 */
    [OPT_HA_PREFERENCE] = {OPT_BIT(ND_OPT_HOME_AGENT), 4, 2},   /* RFC 6275 7.4 */
    [OPT_HA_LIFETIME] = {OPT_BIT(ND_OPT_HOME_AGENT), 6, 2},
    /* a route's octets past the 24 RFC 4191 allows, after its lifetime (route_too_long()) */
    [OPT_UNKNOWN] = {OPT_BIT(ND_OPT_ROUTE_INFO), 8, 0},
    /* RFC 8106 5.2: a lifetime, then domain names (each placed by dnssl_name()) and the
     * zeros that pad the option */
    [OPT_DNSSL_LIFETIME] = {OPT_BIT(ND_OPT_DNSSL), 4, 4},
    [OPT_DNSSL] = {OPT_BIT(ND_OPT_DNSSL), 8, 0},
    [OPT_PADDING] = {OPT_BIT(ND_OPT_DNSSL), 8, 0},
    [OPT_EFO] = {OPT_BIT(ND_OPT_RA_FLAGS_EXT), 2, 2},      /* RFC 5175 4 */
    [OPT_CAPTIVE_PORTAL] = {OPT_BIT(ND_OPT_CAPTIVE_PORTAL), 2, 0},    /* RFC 8910 2.3 */
    /* RFC 8781 4: the scaled lifetime and PLC in one word, then 96 bits of prefix */
    [OPT_PREF64_WORD] = {OPT_BIT(ND_OPT_PREF64), 2, 2},
    [OPT_PREF64_PREFIX] = {OPT_BIT(ND_OPT_PREF64), 4, 12},
    [OPT_DATA] = {0, 2, 0},     /* the options not in OPT_DECODED */
};

/* Where part of an option lies: the option (of the view's item, or the occ-th that has
 * the part), the part's offset in the message and its width (0: to the option's end),
 * when the option holds it. An option whose length is 0, or runs past the captured
 * message, ends the options: it is shown as far as it goes (its type and length, and the
 * parts that fit), as tshark shows it before it flags it. */
struct opt_place {
    struct rs_icmp m;
    uint32_t off, len;      /* the option in the message: 2 octets for a zero length */
    uint32_t at, width;     /* the part in the option */
    bool zero, cut;         /* its length is 0; it runs past the captured message */
};

/* The n-th option of the message whatever its type, the last one malformed perhaps. */
static bool
nd_option_nth(struct opt_place *o, unsigned n)
{
    const struct rs_icmp *m = &o->m;
    uint32_t at = rs_icmpv6_options_start(m->type);

    if (!m->v6 || at == 0)
        return false;
    for (unsigned i = 0; at + 2 <= m->len; i++) {
        uint32_t olen = (uint32_t)m->msg[at + 1] * 8;
        bool zero = olen == 0, cut = !zero && at + olen > m->len;
        if (i == n) {
            o->off = at;
            o->len = zero ? 2 : cut ? m->len - at : olen;
            o->zero = zero;
            o->cut = cut;
            return true;
        }
        if (zero || cut)
            return false;
        at += olen;
    }
    return false;
}

/* A Route Information option of more than 24 octets (RFC 4191 2.3 allows 8 to 24): tshark
 * flags its length and shows what follows the lifetime as unknown data, no prefix. */
static bool
route_too_long(const struct opt_place *o)
{
    return o->m.msg[o->off] == ND_OPT_ROUTE_INFO && !o->zero && o->len > 24;
}

/* A PREF64 option's prefix length in octets by its PLC (RFC 8781 4: 96, 64, 56, 48, 40 or
 * 32 bits), 0 for a code it does not define, which tshark flags as an invalid length. */
static uint32_t
pref64_prefix_len(const struct opt_place *o)
{
    static const uint8_t octets[] = {12, 8, 7, 6, 5, 4};
    unsigned plc = o->len >= 4 ? o->m.msg[o->off + 3] & 7u : 0;

    return plc < sizeof(octets) ? octets[plc] : 0;
}

static bool
pref64_bad_plc(const struct opt_place *o)
{
    return o->m.msg[o->off] == ND_OPT_PREF64 && !o->zero && !o->cut &&
           pref64_prefix_len(o) == 0;
}

static bool
has_part(const struct opt_place *o, enum opt_part part)
{
    uint8_t type = o->m.msg[o->off];

    if (part == OPT_UNKNOWN)
        return route_too_long(o) && !o->cut;
    if (part == OPT_PREF64_PREFIX && pref64_bad_plc(o))
        return false;

    if (part == OPT_DATA)
        return !(type < 64 && ((OPT_DECODED >> type) & 1u)) && !o->cut && !o->zero &&
               o->len > 2;
    if (o->zero && part > OPT_LENGTH)
        return false;
    return opt_parts[part].want == ~UINT64_C(0) ||
           (type < 64 && ((opt_parts[part].want >> type) & 1u));
}

/* The k-th domain name of a DNSSL option: its place in the option and its encoded length
 * (labels and the root's zero); none once a zero octet starts the padding, or a name
 * runs past the option. */
static bool
dnssl_name(const struct opt_place *o, unsigned k, uint32_t *at, uint32_t *len)
{
    const uint8_t *p = o->m.msg + o->off;
    uint32_t pos = opt_parts[OPT_DNSSL].at;

    if (o->zero || o->cut)
        return false;
    for (unsigned i = 0;; i++) {
        if (pos >= o->len || p[pos] == 0)
            return false;
        uint32_t end = pos;
        while (end < o->len && p[end] != 0 && p[end] <= 63)
            end += 1u + p[end];
        if (end >= o->len || p[end] != 0)
            return false;
        if (i == k) {
            *at = pos;
            *len = end + 1 - pos;
            return true;
        }
        pos = end + 1;
    }
}

/* How many times the option holds the part: once, or for RDNSS's servers as many as it
 * holds whole. */
static unsigned
part_count(const struct opt_place *o, enum opt_part part)
{
    if (!has_part(o, part))
        return 0;
    if (part == OPT_RDNSS)
        return o->len > opt_parts[part].at ? (o->len - opt_parts[part].at) / IPV6_ADDR_LEN : 0;
    if (part == OPT_DNSSL || part == OPT_PADDING) {
        uint32_t at, len, end = opt_parts[OPT_DNSSL].at;
        unsigned n = 0;
        while (dnssl_name(o, n, &at, &len)) {
            end = at + len;
            n++;
        }
        return part == OPT_DNSSL ? n : end < o->len;
    }
    return 1;
}

/* A route's prefix: as many of its 16 octets as the option's length gives (RFC 4191 2.3),
 * none in an option of 8 octets. */
static bool
place_prefix(struct opt_place *o)
{
    if (o->m.msg[o->off] != ND_OPT_ROUTE_INFO)
        return true;
    if (route_too_long(o))
        return false;
    o->at = 8;
    o->width = o->len - 8 < IPV6_ADDR_LEN ? o->len - 8 : IPV6_ADDR_LEN;
    return o->width > 0;
}

/* Where occurrence occ of part lies: in the view's one option, or in the option that
 * holds the occ-th of all the options'. */
static bool
option_part(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            enum opt_part part, struct opt_place *o)
{
    unsigned k;     /* which of its option's occurrences */

    if (!icmp_message_of(pkt, f, 0, &o->m))
        return false;
    if (pkt->item != 0) {
        if (!nd_option_nth(o, pkt->item - 1u) || occ >= part_count(o, part))
            return false;
        k = occ;
    } else {
        unsigned seen = 0;
        for (unsigned i = 0;; i++) {
            if (!nd_option_nth(o, i))
                return false;
            unsigned n = part_count(o, part);
            if (occ < seen + n) {
                k = occ - seen;
                break;
            }
            seen += n;
        }
    }
    o->at = opt_parts[part].at + k * opt_parts[part].width;
    o->width = opt_parts[part].width;
    if (part == OPT_RESERVED && o->m.msg[o->off] == ND_OPT_PREFIX)
        o->at = 12;
    if (part == OPT_RESERVED && o->m.msg[o->off] == ND_OPT_RA_FLAGS_EXT)
        o->at = 4;
    if (part == OPT_PREFIX && !place_prefix(o))
        return false;
    if (part == OPT_DNSSL && !dnssl_name(o, k, &o->at, &o->width))
        return false;
    if (part == OPT_PREF64_PREFIX)
        o->width = pref64_prefix_len(o);
    if (part == OPT_PADDING) {
        uint32_t at, len;
        for (unsigned n = 0; dnssl_name(o, n, &at, &len); n++)
            o->at = at + len;
        o->width = o->len - o->at;
    }
    return o->at + o->width <= o->len;
}

/* Whether Wireshark 4.0 has a dissector for options of this type (its
 * icmpv6_option_type_vals); any other it notes as undecoded. */
static bool
tshark_decodes(uint8_t type)
{
    return (type >= 1 && type <= 20) || (type >= 23 && type <= 38) || type == 138 ||
           type == 139 || type == 253 || type == 254;
}

static bool
option_has_expert(const struct opt_place *o, enum rs_ws_expert_kind kind)
{
    if (kind == RS_WSX_ICMPV6_OPT_LEN_ZERO)
        return o->zero || route_too_long(o) || pref64_bad_plc(o);
    if (kind == RS_WSX_ICMPV6_OPT_UNKNOWN_DATA)
        return has_part(o, OPT_UNKNOWN) && o->len > 8;
    return kind == RS_WSX_ICMPV6_OPT_UNDECODED && !o->zero &&
           !tshark_decodes(o->m.msg[o->off]);
}

/* How many options of pkt's message carry kind (only the view's, if it has one), and the
 * place of the first. */
static unsigned
options_with_expert(const struct rs_packet *pkt, enum rs_ws_expert_kind kind,
                    struct opt_place *first)
{
    struct opt_place o;
    unsigned n = 0;

    if (!rs_packet_has(pkt, RS_LAYER_ICMPV6) || !rs_icmp_of(pkt, &o.m))
        return 0;
    for (unsigned i = pkt->item != 0 ? pkt->item - 1u : 0; nd_option_nth(&o, i); i++) {
        if (option_has_expert(&o, kind) && n++ == 0 && first != NULL)
            *first = o;
        if (pkt->item != 0)
            break;
    }
    return n;
}

unsigned
icmpv6_expert_count(const struct rs_packet *pkt, enum rs_ws_expert_kind kind)
{
    return options_with_expert(pkt, kind, NULL);
}

unsigned
icmpv6_expert_option_type(const struct rs_packet *pkt, enum rs_ws_expert_kind kind)
{
    struct opt_place o;

    return options_with_expert(pkt, kind, &o) > 0 ? o.m.msg[o.off] : 0;
}

const char *
icmpv6_invalid_length_message(const struct rs_packet *pkt)
{
    struct opt_place o;

    if (options_with_expert(pkt, RS_WSX_ICMPV6_OPT_LEN_ZERO, &o) > 0 && !o.zero)
        return "Invalid Option Length";
    return "Invalid option length (Zero)";
}

/* tshark's item of an undecoded option lies at the option, that of an invalid length at
 * its length octet, that of a route's unknown data at the data. */
uint32_t
icmpv6_expert_anchor(const struct rs_packet *pkt, enum rs_ws_expert_kind kind)
{
    struct opt_place o;

    if (options_with_expert(pkt, kind, &o) == 0)
        return 0;
    return (uint32_t)(o.m.msg - pkt->frame->data) + o.off +
           (kind == RS_WSX_ICMPV6_OPT_LEN_ZERO           ? 1u
            : kind == RS_WSX_ICMPV6_OPT_UNKNOWN_DATA ? opt_parts[OPT_UNKNOWN].at
                                                     : 0u);
}

/* An RDNSS option whose servers' octets are no whole number of addresses: tshark reads
 * the last one past the option, and stops there. */
static bool
rdnss_ragged(const struct opt_place *o)
{
    return o->m.msg[o->off] == ND_OPT_RDNSS && !o->zero && o->len > 8 &&
           (o->len - 8) % IPV6_ADDR_LEN != 0;
}

bool
icmpv6_nd_options_overrun(const struct rs_icmp *m)
{
    struct opt_place o = {.m = *m};

    for (unsigned i = 0; nd_option_nth(&o, i); i++)
        if ((!o.zero && o.off + (uint32_t)m->msg[o.off + 1] * 8u > m->wire_len) ||
            rdnss_ragged(&o))
            return true;
    return false;
}

/* A route's prefix of fewer than 16 octets, zeros after it, as tshark shows it: in one of
 * a few slots in turn, for a filter compares two values at most. */
static const uint8_t *
padded_prefix(const uint8_t *p, uint32_t len)
{
    static _Thread_local uint8_t slots[4][IPV6_ADDR_LEN];
    static _Thread_local unsigned turn;
    uint8_t *s = slots[turn++ % 4];

    memset(s, 0, IPV6_ADDR_LEN);
    memcpy(s, p, len);
    return s;
}

#define TEXT_SLOT_LEN 2048      /* an option's octets: 255 * 8 at most */

/* One of a few slots for an option's text, in turn: a filter compares two values at most. */
static char *
text_slot(void)
{
    static _Thread_local char slots[4][TEXT_SLOT_LEN];
    static _Thread_local unsigned turn;

    return slots[turn++ % 4];
}

/* A domain name's labels joined by dots ("example.com"). */
static const char *
dnssl_text(const uint8_t *p, uint32_t len)
{
    char *s = text_slot();
    size_t n = 0;

    for (uint32_t i = 0; i < len && p[i] != 0; i += 1u + p[i]) {
        if (n > 0 && n < TEXT_SLOT_LEN - 1)
            s[n++] = '.';
        for (uint32_t j = 1; j <= p[i] && i + j < len && n < TEXT_SLOT_LEN - 1; j++)
            s[n++] = (char)p[i + j];
    }
    s[n] = '\0';
    return s;
}

/* An option's text up to its first zero octet (a URI). */
static const char *
option_text(const uint8_t *p, uint32_t len)
{
    char *s = text_slot();
    uint32_t n = 0;

    while (n < len && n < TEXT_SLOT_LEN - 1 && p[n] != 0) {
        s[n] = (char)p[n];
        n++;
    }
    s[n] = '\0';
    return s;
}

/* Every option, one occurrence each; a part only in the options that have
 * it, when it fits in the option. A 6-byte link-layer address is Ethernet's,
 * shown as Wireshark shows it; IPoIB's 20 bytes, with the padding, as bytes. */
static bool
get_option(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
           struct rs_value *out)
{
    struct opt_place o;
    enum opt_part part = (enum opt_part)f->offset;

    if (!option_part(pkt, f, occ, part, &o))
        return false;
    const uint8_t *p = o.m.msg + o.off + o.at;
    switch (part) {
    case OPT_NODE:
    case OPT_RESERVED:
    case OPT_REDIRECTED:
    case OPT_PADDING:
        out->type = f->type;
        return true;
    case OPT_DNSSL:
        out->type = RS_FT_STRING;
        out->v.str = dnssl_text(p, o.width);
        return true;
    case OPT_CAPTIVE_PORTAL:
        out->type = RS_FT_STRING;
        out->v.str = option_text(p, o.len - o.at);
        return true;
    case OPT_LINKADDR:
    case OPT_SRC:
    case OPT_TARGET:
        out->v.bytes.ptr = p;
        out->v.bytes.len = o.len - o.at;
        out->type = out->v.bytes.len == ETHER_ADDR_LEN ? RS_FT_ETHER : RS_FT_BYTES;
        return true;
    case OPT_DATA:
        out->type = f->type;
        out->v.bytes.ptr = p;
        out->v.bytes.len = o.len - o.at;
        return true;
    case OPT_PREFIX:
    case OPT_RDNSS:
    case OPT_PREF64_PREFIX:
        out->type = f->type;
        out->v.bytes.ptr = o.width == IPV6_ADDR_LEN ? p : padded_prefix(p, o.width);
        out->v.bytes.len = IPV6_ADDR_LEN;
        return true;
    case OPT_NONCE:
    case OPT_UNKNOWN:
        out->type = f->type;
        out->v.bytes.ptr = p;
        out->v.bytes.len = o.len - o.at;
        return true;
    default: {
        uint64_t v = rs_load_be(p, o.width);
        if (f->mask != 0)
            v = (v & f->mask) >> rs_mask_shift(f->mask);
        return rs_value_set_uint(out, f->type, v);
    }
    }
}

/* The bytes of an option's part in the frame, as tshark's item covers them: the
 * whole option for its node, the reserved octets of a prefix (4), an MTU, RDNSS,
 * advertisement interval or home agent information (2) or a redirected header option
 * (6). */
static bool
locate_option(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              uint32_t *offset, uint32_t *length)
{
    struct opt_place o;
    enum opt_part part = (enum opt_part)f->offset;

    if (!option_part(pkt, f, occ, part, &o))
        return false;
    uint32_t width = o.width != 0 ? o.width : o.len - o.at;
    if (part == OPT_NODE && o.zero)
        width = 0;      /* tshark's item of an option of length 0 has no bytes */
    if (part == OPT_RESERVED)
        width = o.m.msg[o.off] == ND_OPT_PREFIX || o.m.msg[o.off] == ND_OPT_RA_FLAGS_EXT ? 4
                : o.m.msg[o.off] == RS_ICMPV6_OPT_REDIRECTED ? 6
                                                                  : 2;
    if (o.at + width > o.len)
        return false;
    *offset = (uint32_t)(o.m.msg - pkt->frame->data) + o.off + o.at;
    *length = width;
    return true;
}

/* Where the n-th record of an MLDv2 report starts, if the report announces
 * and holds its fixed part. */
static bool
mldr_record(const struct rs_icmp *m, unsigned n, uint32_t *at)
{
    if (m->type != RS_ICMPV6_MLDV2_REPORT || m->len < MLDR_FIRST_RECORD)
        return false;
    unsigned count = rs_load_be16(m->msg + 6);
    uint32_t off = MLDR_FIRST_RECORD;
    for (unsigned i = 0; i < count && off + MLDR_RECORD_HDR <= m->len; i++) {
        if (i == n) {
            *at = off;
            return true;
        }
        off += MLDR_RECORD_HDR + rs_load_be16(m->msg + off + 2) * 16u + m->msg[off + 1] * 4u;
    }
    return false;
}

enum mar_part { MAR_NODE, MAR_TYPE, MAR_AUX_LEN, MAR_SOURCES, MAR_ADDRESS, MAR_SOURCE, MAR_AUX };

/* The record of occurrence occ: the view's one (pkt->item), or the occ-th. */
static bool
mldr_record_of(const struct rs_packet *pkt, unsigned occ, const struct rs_icmp *m, uint32_t *r)
{
    unsigned only = pkt->item;     /* 1 + the one record of the view, or 0 */

    return !(only && occ != 0) && mldr_record(m, only ? only - 1u : occ, r);
}

/* Where a record's node and its numbers lie (its addresses are placed by their bytes):
 * the node over the whole record, as tshark's item. */
static bool
locate_mldr(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            uint32_t *offset, uint32_t *length)
{
    static const uint8_t at[] = {[MAR_TYPE] = 0, [MAR_AUX_LEN] = 1, [MAR_SOURCES] = 2};
    static const uint8_t width[] = {[MAR_TYPE] = 1, [MAR_AUX_LEN] = 1, [MAR_SOURCES] = 2};
    enum mar_part part = (enum mar_part)f->offset;
    struct rs_icmp m;
    uint32_t r;

    if (part > MAR_SOURCES || !icmp_message_of(pkt, f, 0, &m) ||
        !mldr_record_of(pkt, occ, &m, &r))
        return false;
    uint32_t base = (uint32_t)(m.msg - pkt->frame->data) + r;
    if (part == MAR_NODE) {
        uint32_t end = r + MLDR_RECORD_HDR + rs_load_be16(m.msg + r + 2) * 16u +
                       m.msg[r + 1] * 4u;
        *offset = base;
        *length = (end < m.len ? end : m.len) - r;
        return true;
    }
    *offset = base + at[part];
    *length = width[part];
    return true;
}

/* A record's parts, one occurrence per record; its sources, one per source
 * of all records, and its auxiliary data, one per record that has some, as
 * far as the message holds them. */
static bool
get_mldr(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out)
{
    struct rs_icmp m;
    uint32_t r;

    if (!icmp_message_of(pkt, f, 0, &m))
        return false;
    enum mar_part part = (enum mar_part)f->offset;
    unsigned only = pkt->item;     /* 1 + the one record of the view, or 0 */
    if (part == MAR_SOURCE || part == MAR_AUX) {
        unsigned seen = 0;
        for (unsigned i = only ? only - 1u : 0; mldr_record(&m, i, &r); i++) {
            uint32_t sources = rs_load_be16(m.msg + r + 2), aux = m.msg[r + 1] * 4u;
            uint32_t first = r + MLDR_RECORD_HDR;
            uint32_t n = part == MAR_SOURCE ? sources : aux > 0;
            if (occ < seen + n) {
                uint32_t at = part == MAR_SOURCE ? first + (occ - seen) * IPV6_ADDR_LEN
                                                 : first + sources * IPV6_ADDR_LEN;
                uint32_t want = part == MAR_SOURCE ? IPV6_ADDR_LEN : aux;
                if (at + want > m.len)
                    return false;
                out->type = f->type;
                out->v.bytes.ptr = m.msg + at;
                out->v.bytes.len = want;
                return true;
            }
            seen += n;
            if (only)
                break;
        }
        return false;
    }
    if (!mldr_record_of(pkt, occ, &m, &r))
        return false;
    switch (part) {
    case MAR_NODE:
        out->type = f->type;
        return true;
    case MAR_TYPE: return rs_value_set_uint(out, f->type, m.msg[r]);
    case MAR_AUX_LEN: return rs_value_set_uint(out, f->type, m.msg[r + 1]);
    case MAR_SOURCES: return rs_value_set_uint(out, f->type, rs_load_be16(m.msg + r + 2));
    default:
        out->type = f->type;
        out->v.bytes.ptr = m.msg + r + 4;
        out->v.bytes.len = IPV6_ADDR_LEN;
        return true;
    }
}

/* Wireshark 4.0's names of every type it knows (tshark -G values), decoded here or not */
static const struct rs_value_string opt_type_vals[] = {
    {1, "Source link-layer address"},
    {2, "Target link-layer address"},
    {3, "Prefix information"},
    {4, "Redirected header"},
    {5, "MTU"},
    {6, "NBMA Shortcut Limit Option"},
    {7, "Advertisement Interval"},
    {8, "Home Agent Information"},
    {9, "Source Address List"},
    {10, "Target Address List"},
    {11, "CGA"},
    {12, "RSA Signature"},
    {13, "Timestamp"},
    {14, "Nonce"},
    {15, "Trust Anchor"},
    {16, "Certificate"},
    {17, "IP Address/Prefix Option"},
    {18, "New Router Prefix Information"},
    {19, "Link-layer Address"},
    {20, "Neighbor Advertisement Acknowledgment"},
    {23, "MAP"},
    {24, "Route Information"},
    {25, "Recursive DNS Server"},
    {26, "RA Flags Extension"},
    {27, "Handover Key Request"},
    {28, "Handover Key Reply"},
    {29, "Handover Assist Information"},
    {30, "Mobile Node Identifier Option"},
    {31, "DNS Search List Option"},
    {32, "Proxy Signature (PS)"},
    {33, "Address Registration Option"},
    {34, "6LoWPAN Context Option"},
    {35, "Authoritative Border Router"},
    {36, "6LoWPAN Capability Indication Option"},
    {37, "DHCP Captive-Portal"},
    {38, "PREF64 Option"},
    {138, "CARD Request"},
    {139, "CARD Reply"},
    {253, "RFC3692-style Experiment 1"},
    {254, "RFC3692-style Experiment 2"},
    {0, NULL},
};

static const struct rs_value_string route_lifetime_vals[] = {
    {0xffffffffu, "Infinity"},
    {0, NULL},
};

static const struct rs_value_string rdnss_lifetime_vals[] = {
    {0, "RDNSS address MUST no longer be used"},
    {0xffffffffu, "Infinity"},
    {0, NULL},
};

static const struct rs_value_string plc_vals[] = {
    {0, "96 bits prefix length"}, {1, "64 bits prefix length"}, {2, "56 bits prefix length"},
    {3, "48 bits prefix length"}, {4, "40 bits prefix length"}, {5, "32 bits prefix length"},
    {0, NULL},
};

static const struct rs_value_string dnssl_lifetime_vals[] = {
    {0, "DNSSL domain name MUST no longer be used"},
    {0xffffffffu, "Infinity"},
    {0, NULL},
};

static const struct rs_value_string set_vals[] = {
    {0, "Not set"},
    {1, "Set"},
    {0, NULL},
};

static const struct rs_value_string prf_vals[] = {
    {0, "Medium"},
    {1, "High"},
    {2, "Reserved"},
    {3, "Low"},
    {0, NULL},
};

static const struct rs_value_string mldr_type_vals[] = {
    {1, "Include"},
    {2, "Exclude"},
    {3, "Changed to include"},
    {4, "Changed to exclude"},
    {5, "Allow new sources"},
    {6, "Block old sources"},
    {0, NULL},
};

/* An option's title as tshark's: its type, and for an Ethernet address, a prefix, an
 * MTU or an advertisement interval the value ("ICMPv6 Option (Prefix information :
 * 2001:db8::/64)"). */
static size_t
label_option(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
             char *buf, size_t size)
{
    struct opt_place o;
    char text[RS_IPV6_TEXT_MAX];

    (void)v;
    if (!option_part(pkt, f, 0, OPT_NODE, &o))
        return (size_t)snprintf(buf, size, "%s", f->name);
    const uint8_t *p = o.m.msg + o.off;
    const char *type = rs_value_name(opt_type_vals, p[0]);
    int n = type != NULL ? snprintf(buf, size, "%s (%s", f->name, type)
                         : snprintf(buf, size, "%s (Unknown %u", f->name, p[0]);
    if (n < 0 || (size_t)n >= size)
        return size;
    size_t used = (size_t)n;
    if ((p[0] == ND_OPT_SRC_LINKADDR || p[0] == ND_OPT_TGT_LINKADDR) &&
        o.len == 2 + ETHER_ADDR_LEN) {
        n = snprintf(buf + used, size - used, " : %02x:%02x:%02x:%02x:%02x:%02x", p[2], p[3],
                     p[4], p[5], p[6], p[7]);
    } else if (p[0] == ND_OPT_PREFIX && o.len >= 32) {
        rs_format_ipv6(text, p + 16);
        n = snprintf(buf + used, size - used, " : %s/%u", text, p[2]);
    } else if ((p[0] == ND_OPT_MTU || p[0] == ND_OPT_ADV_INTERVAL) && o.len >= 8) {
        n = snprintf(buf + used, size - used, " : %u", rs_load_be32(p + 4));
    } else if (p[0] == ND_OPT_ROUTE_INFO && o.len >= 8) {
        struct opt_place r = o;
        bool has = place_prefix(&r);
        const char *prf = rs_value_name(prf_vals, (p[3] & 0x18u) >> 3);
        rs_format_ipv6(text, padded_prefix(p + r.at, has ? r.width : 0));
        if (route_too_long(&o))     /* its prefix is not read */
            n = snprintf(buf + used, size - used, " : %s", prf);
        else
            n = snprintf(buf + used, size - used, " : %s %s/%u", prf, text, p[2]);
    } else if (p[0] == ND_OPT_DNSSL) {
        uint32_t at, len;
        n = 0;      /* each name after the type, as RDNSS's servers */
        for (unsigned k = 0; dnssl_name(&o, k, &at, &len) && n >= 0; k++) {
            size_t room = used + (size_t)n < size ? size - used - (size_t)n : 0;
            int w = snprintf(buf + used + n, room, " %s", dnssl_text(p + at, len));
            n = w < 0 ? -1 : n + w;
        }
    } else if (p[0] == ND_OPT_RDNSS) {
        n = 0;      /* each server after the type, with no colon */
        for (uint32_t at = 8; at + IPV6_ADDR_LEN <= o.len && n >= 0; at += IPV6_ADDR_LEN) {
            size_t room = used + (size_t)n < size ? size - used - (size_t)n : 0;
            rs_format_ipv6(text, p + at);
            int k = snprintf(buf + used + n, room, " %s", text);
            n = k < 0 ? -1 : n + k;
        }
    } else {
        n = 0;
    }
    if (n < 0 || used + (size_t)n >= size)
        return size;
    used += (size_t)n;
    if (o.zero || o.cut || rdnss_ragged(&o))
        return used;    /* tshark closes the title only once the option is decoded */
    return used + (size_t)snprintf(buf + used, size - used, ")");
}

static bool
get_option_malformed(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                     struct rs_value *out)
{
    return ws_item_without_bytes(
        options_with_expert(pkt, (enum rs_ws_expert_kind)f->offset, NULL) > 0, occ, out);
}

static bool
locate_option_malformed(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                        uint32_t *offset, uint32_t *length)
{
    (void)occ;
    *offset = icmpv6_expert_anchor(pkt, (enum rs_ws_expert_kind)f->offset);
    *length = 0;
    return *offset != 0;
}

/* An option's length, in units of 8 octets, and in octets: "3 (24 bytes)". */
static size_t
show_opt_length(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    (void)f;
    return (size_t)snprintf(buf, size, "%llu (%llu bytes)", (unsigned long long)v->v.u,
                            (unsigned long long)v->v.u * 8u);
}

/* A record's title as tshark's: "Multicast Address Record Changed to exclude: ff02::1". */
static size_t
label_mar(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
          char *buf, size_t size)
{
    struct rs_icmp m;
    uint32_t r;
    char addr[RS_IPV6_TEXT_MAX];

    (void)v;
    if (!icmp_message_of(pkt, f, 0, &m) || !mldr_record(&m, pkt->item ? pkt->item - 1u : 0, &r) ||
        r + 4 + IPV6_ADDR_LEN > m.len)
        return (size_t)snprintf(buf, size, "%s", f->name);
    const char *type = rs_value_name(mldr_type_vals, m.msg[r]);
    rs_format_ipv6(addr, m.msg + r + 4);
    return (size_t)snprintf(buf, size, "%s %s: %s", f->name, type != NULL ? type : "Unknown",
                            addr);
}

#define ND(abbrev, name, type, base, mask, vals, off, width, get, depth) \
    {abbrev, name, type, base, mask, vals, name, RS_LAYER_ICMPV6, off, width, get, depth}
#define OPTION_F(abbrev, name, type, base, mask, part, width, vals, depth, flags, ...)         \
    {abbrev, name, type, base, mask, vals, name, RS_LAYER_ICMPV6, part, width, get_option,     \
     depth, RS_FIELD_PER_ITEM | (flags), .locate = locate_option, __VA_ARGS__}
#define OPTION(abbrev, name, type, base, mask, part, vals, depth) \
    OPTION_F(abbrev, name, type, base, mask, part, 0, vals, depth, 0)
/* a flag of an RA Flags Extension's first 16 bits, its bits shown */
#define EFO_FLAG(abbrev, name, type, mask, vals) \
    OPTION_F(abbrev, name, type, type == RS_FT_BOOLEAN ? RS_BASE_NONE : RS_BASE_DEC, mask, \
             OPT_EFO, 2, vals, 3, 0)
/* a flag of a prefix's Flag octet, its bits shown */
#define PREFIX_FLAG(abbrev, name, type, mask, vals) \
    OPTION_F(abbrev, name, type, type == RS_FT_BOOLEAN ? RS_BASE_NONE : RS_BASE_DEC, mask, \
             OPT_PREFIX_FLAG, 1, vals, 3, 0)
/* the hidden _ws.malformed tshark adds under an option's expert item of kind (its
 * Malformed group), with no bytes, where the item is; of ICMPv6's layer, as the option
 * items' run must end in one (the tree walks an error's quote after ICMP's last field) */
#define OPTION_MALFORMED(kind, depth)                                                      \
    {"_ws.malformed", "Malformed Packet", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "",         \
     RS_LAYER_ICMPV6, kind, 0, get_option_malformed, depth, RS_FIELD_HIDDEN | RS_FIELD_PER_ITEM,  \
     .locate = locate_option_malformed}
#define RECORD(abbrev, name, type, part, vals, depth) \
    {abbrev, name, type, type == RS_FT_UINT8 || type == RS_FT_UINT16 ? RS_BASE_DEC : \
     RS_BASE_NONE, 0, vals, name, RS_LAYER_ICMPV6, part, 0, get_mldr, depth, RS_FIELD_PER_ITEM, \
     .locate = locate_mldr}

const struct rs_field rs_fields_icmpv6_nd[] = {
    ND("icmpv6.nd.ra.cur_hop_limit", "Cur hop limit", RS_FT_UINT8, RS_BASE_DEC, 0, NULL, 4, 1,
       get_ra, 1),
    {"icmpv6.nd.ra.flag", "Flags", RS_FT_UINT8, RS_BASE_HEX, 0, NULL, "Flags", RS_LAYER_ICMPV6,
     5, 1, get_ra, 1, 0, .show = rs_show_flags},
    ND("icmpv6.nd.ra.flag.m", "Managed address configuration", RS_FT_BOOLEAN, RS_BASE_NONE,
       0x80, set_vals, 5, 1, get_ra, 2),
    ND("icmpv6.nd.ra.flag.o", "Other configuration", RS_FT_BOOLEAN, RS_BASE_NONE, 0x40,
       set_vals, 5, 1, get_ra, 2),
    ND("icmpv6.nd.ra.flag.h", "Home Agent", RS_FT_BOOLEAN, RS_BASE_NONE, 0x20, set_vals, 5, 1,
       get_ra, 2),
    ND("icmpv6.nd.ra.flag.prf", "Prf (Default Router Preference)", RS_FT_UINT8, RS_BASE_DEC,
       0x18, prf_vals, 5, 1, get_ra, 2),
    ND("icmpv6.nd.ra.flag.p", "Proxy", RS_FT_BOOLEAN, RS_BASE_NONE, 0x04, set_vals, 5, 1,
       get_ra, 2),
    ND("icmpv6.nd.ra.flag.rsv", "Reserved", RS_FT_UINT8, RS_BASE_DEC, 0x03, NULL, 5, 1, get_ra,
       2),
    ND("icmpv6.nd.ra.router_lifetime", "Router lifetime (s)", RS_FT_UINT16, RS_BASE_DEC, 0,
       NULL, 6, 2, get_ra, 1),
    ND("icmpv6.nd.ra.reachable_time", "Reachable time (ms)", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
       8, 4, get_ra, 1),
    ND("icmpv6.nd.ra.retrans_timer", "Retrans timer (ms)", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
       12, 4, get_ra, 1),
    ND("icmpv6.nd.rd.target_address", "Target Address", RS_FT_IPV6, RS_BASE_NONE, 0, NULL, 8,
       16, get_rd, 1),
    /* Wireshark 4.0's name, "na" and all */
    ND("icmpv6.rd.na.destination_address", "Destination Address", RS_FT_IPV6, RS_BASE_NONE, 0,
       NULL, 24, 16, get_rd, 1),
    ND("icmpv6.mld.maximum_response_delay", "Maximum Response Delay [ms]", RS_FT_UINT16,
       RS_BASE_DEC, 0, NULL, 4, 2, get_mld, 1),
    ND("icmpv6.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, NULL, 6, 2, get_mld, 1),
    ND("icmpv6.mld.multicast_address", "Multicast Address", RS_FT_IPV6, RS_BASE_NONE, 0, NULL,
       8, 16, get_mld, 1),
    ND("icmpv6.mldr.nb_mcast_records", "Number of Multicast Address Records", RS_FT_UINT16,
       RS_BASE_DEC, 0, NULL, 6, 2, get_mldr_count, 1),
    {"icmpv6.mldr.mar", "Multicast Address Record", RS_FT_NONE, RS_BASE_NONE, 0, NULL,
     "Multicast Address Record", RS_LAYER_ICMPV6, MAR_NODE, 0, get_mldr, 1, RS_FIELD_PER_ITEM,
     .label = label_mar, .locate = locate_mldr},
    RECORD("icmpv6.mldr.mar.record_type", "Record Type", RS_FT_UINT8, MAR_TYPE, mldr_type_vals,
           2),
    RECORD("icmpv6.mldr.mar.aux_data_len", "Aux Data Len", RS_FT_UINT8, MAR_AUX_LEN, NULL, 2),
    RECORD("icmpv6.mldr.mar.nb_sources", "Number of Sources", RS_FT_UINT16, MAR_SOURCES, NULL,
           2),
    RECORD("icmpv6.mldr.mar.multicast_address", "Multicast Address", RS_FT_IPV6, MAR_ADDRESS,
           NULL, 2),
    RECORD("icmpv6.mldr.mar.source_address", "Source Address", RS_FT_IPV6, MAR_SOURCE, NULL,
           2),
    RECORD("icmpv6.mldr.mar.auxiliary_data", "Auxiliary Data", RS_FT_BYTES, MAR_AUX, NULL, 2),
    OPTION_F("icmpv6.opt", "ICMPv6 Option", RS_FT_NONE, RS_BASE_NONE, 0, OPT_NODE, 0, NULL, 1,
             0, .label = label_option),
    OPTION("icmpv6.opt.type", "Type", RS_FT_UINT8, RS_BASE_DEC, 0, OPT_TYPE, opt_type_vals, 2),
    OPTION_F("icmpv6.opt.length", "Length", RS_FT_UINT8, RS_BASE_DEC, 0, OPT_LENGTH, 0, NULL,
             2, 0, .show = show_opt_length),
    /* flagged under the length, or after it, as tshark's tree flags them */
    RS_F_WS_EXPERT_AS("icmpv6.invalid_option_length", "Invalid Option Length",
                      RS_WSX_ICMPV6_OPT_LEN_ZERO, 3, RS_FIELD_PER_ITEM),
    OPTION_MALFORMED(RS_WSX_ICMPV6_OPT_LEN_ZERO, 3),
    RS_F_WS_EXPERT_AS("icmpv6.undecoded.option", "Undecoded option",
                      RS_WSX_ICMPV6_OPT_UNDECODED, 2, RS_FIELD_PER_ITEM),
    OPTION("icmpv6.opt.linkaddr", "Link-layer address", RS_FT_BYTES, RS_BASE_NONE, 0,
           OPT_LINKADDR, NULL, 2),
    /* the same address again, for filters: hidden, as Wireshark has it */
    OPTION_F("icmpv6.opt.src_linkaddr", "Source Link-layer address", RS_FT_BYTES, RS_BASE_NONE,
             0, OPT_SRC, 0, NULL, 2, RS_FIELD_HIDDEN),
    OPTION_F("icmpv6.opt.target_linkaddr", "Target Link-layer address", RS_FT_BYTES,
             RS_BASE_NONE, 0, OPT_TARGET, 0, NULL, 2, RS_FIELD_HIDDEN),
    OPTION("icmpv6.opt.prefix.length", "Prefix Length", RS_FT_UINT8, RS_BASE_DEC, 0,
           OPT_PREFIX_LEN, NULL, 2),
    OPTION_F("icmpv6.opt.prefix.flag", "Flag", RS_FT_UINT8, RS_BASE_HEX, 0, OPT_PREFIX_FLAG, 1,
             NULL, 2, 0, .show = rs_show_flags),
    PREFIX_FLAG("icmpv6.opt.prefix.flag.l", "On-link flag(L)", RS_FT_BOOLEAN, 0x80, set_vals),
    PREFIX_FLAG("icmpv6.opt.prefix.flag.a", "Autonomous address-configuration flag(A)",
                RS_FT_BOOLEAN, 0x40, set_vals),
    PREFIX_FLAG("icmpv6.opt.prefix.flag.r", "Router address flag(R)", RS_FT_BOOLEAN, 0x20,
                set_vals),
    PREFIX_FLAG("icmpv6.opt.prefix.flag.reserved", "Reserved", RS_FT_UINT8, 0x1f, NULL),
    OPTION_F("icmpv6.opt.route_info.flag", "Flag", RS_FT_UINT8, RS_BASE_HEX, 0, OPT_ROUTE_FLAG,
             1, NULL, 2, 0, .show = rs_show_flags),
    OPTION_F("icmpv6.opt.route_info.flag.route_preference", "Route Preference", RS_FT_UINT8,
             RS_BASE_DEC, 0x18, OPT_ROUTE_FLAG, 1, prf_vals, 3, 0),
    OPTION_F("icmpv6.opt.route_info.flag.reserved", "Reserved", RS_FT_UINT8, RS_BASE_DEC, 0xe7,
             OPT_ROUTE_FLAG, 1, NULL, 3, 0),
    OPTION_F("icmpv6.opt.route_lifetime", "Route Lifetime", RS_FT_UINT32, RS_BASE_DEC, 0,
             OPT_ROUTE_LIFETIME, 4, route_lifetime_vals, 2, 0, .show = rs_show_special_vals),
    OPTION("icmpv6.opt.prefix.valid_lifetime", "Valid Lifetime", RS_FT_UINT32, RS_BASE_DEC, 0,
           OPT_VALID, NULL, 2),
    OPTION("icmpv6.opt.prefix.preferred_lifetime", "Preferred Lifetime", RS_FT_UINT32,
           RS_BASE_DEC, 0, OPT_PREFERRED, NULL, 2),
    OPTION_F("icmpv6.opt.efo", "Flags Expansion Option", RS_FT_UINT16, RS_BASE_HEX, 0, OPT_EFO, 2,
             NULL, 2, 0, .show = rs_show_flags),
    EFO_FLAG("icmpv6.opt.efo.m", "Managed address configuration", RS_FT_BOOLEAN, 0x8000,
             set_vals),
    EFO_FLAG("icmpv6.opt.efo.o", "Other configuration", RS_FT_BOOLEAN, 0x4000, set_vals),
    EFO_FLAG("icmpv6.opt.efo.h", "Home Agent", RS_FT_BOOLEAN, 0x2000, set_vals),
    EFO_FLAG("icmpv6.opt.efo.prf", "Prf (Default Router Preference)", RS_FT_UINT16, 0x1800,
             prf_vals),
    EFO_FLAG("icmpv6.opt.efo.p", "Proxy", RS_FT_BOOLEAN, 0x0400, set_vals),
    /* Wireshark 4.0's mask, which leaves out bit 8 */
    EFO_FLAG("icmpv6.opt.efo.rsv", "Reserved", RS_FT_UINT16, 0x02ff, NULL),
    OPTION("icmpv6.opt.reserved", "Reserved", RS_FT_NONE, RS_BASE_NONE, 0, OPT_RESERVED, NULL,
           2),
    OPTION_F("icmpv6.opt.rdnss.lifetime", "Lifetime", RS_FT_UINT32, RS_BASE_DEC, 0,
             OPT_RDNSS_LIFETIME, 4, rdnss_lifetime_vals, 2, 0, .show = rs_show_special_vals),
    OPTION("icmpv6.opt.rdnss", "Recursive DNS Servers", RS_FT_IPV6, RS_BASE_NONE, 0, OPT_RDNSS,
           NULL, 2),
    OPTION_F("icmpv6.opt.dnssl.lifetime", "Lifetime", RS_FT_UINT32, RS_BASE_DEC, 0,
             OPT_DNSSL_LIFETIME, 4, dnssl_lifetime_vals, 2, 0, .show = rs_show_special_vals),
    OPTION("icmpv6.opt.dnssl", "Domain Names", RS_FT_STRING, RS_BASE_NONE, 0, OPT_DNSSL, NULL,
           2),
    OPTION("icmpv6.opt.padding", "Padding", RS_FT_NONE, RS_BASE_NONE, 0, OPT_PADDING, NULL, 2),
    OPTION("icmpv6.opt.captive_portal", "Captive Portal", RS_FT_STRING, RS_BASE_NONE, 0,
           OPT_CAPTIVE_PORTAL, NULL, 2),
    OPTION_F("icmpv6.opt.pref64.scaled_lifetime", "Scaled Lifetime", RS_FT_UINT16, RS_BASE_DEC,
             0xfff8, OPT_PREF64_WORD, 2, NULL, 2, 0),
    OPTION_F("icmpv6.opt.pref64.plc", "PLC (Prefix Length Code)", RS_FT_UINT16, RS_BASE_HEX,
             0x0007, OPT_PREF64_WORD, 2, plc_vals, 2, 0),
    OPTION("icmpv6.opt.pref64.prefix", "Prefix", RS_FT_IPV6, RS_BASE_NONE, 0,
           OPT_PREF64_PREFIX, NULL, 2),
    OPTION("icmpv6.opt.prefix", "Prefix", RS_FT_IPV6, RS_BASE_NONE, 0, OPT_PREFIX, NULL, 2),
    OPTION("icmpv6.opt.mtu", "MTU", RS_FT_UINT32, RS_BASE_DEC, 0, OPT_MTU, NULL, 2),
    OPTION("icmpv6.opt.advertisement_interval", "Advertisement Interval", RS_FT_UINT32,
           RS_BASE_DEC, 0, OPT_ADV_INTERVAL, NULL, 2),
    OPTION("icmpv6.opt.home_agent_preference", "Home Agent Preference", RS_FT_UINT16,
           RS_BASE_DEC, 0, OPT_HA_PREFERENCE, NULL, 2),
    /* Wireshark 4.0 names the lifetime as the preference */
    OPTION("icmpv6.opt.home_agent_lifetime", "Home Agent Preference", RS_FT_UINT16,
           RS_BASE_DEC, 0, OPT_HA_LIFETIME, NULL, 2),
    OPTION("icmpv6.opt.nonce", "Nonce", RS_FT_BYTES, RS_BASE_NONE, 0, OPT_NONCE, NULL, 2),
    OPTION("icmpv6.opt.redirected_packet", "Redirected Packet", RS_FT_NONE, RS_BASE_NONE, 0,
           OPT_REDIRECTED, NULL, 2),
    OPTION("icmpv6.data", "Data", RS_FT_BYTES, RS_BASE_NONE, 0, OPT_DATA, NULL, 2),
    OPTION("icmpv6.unknown_data", "Unknown Data", RS_FT_BYTES, RS_BASE_NONE, 0, OPT_UNKNOWN,
           NULL, 2),
    RS_F_WS_EXPERT_AS("icmpv6.unknown_data.expert", "Unknown Data (not interpreted)",
                      RS_WSX_ICMPV6_OPT_UNKNOWN_DATA, 3, RS_FIELD_PER_ITEM),
    OPTION_MALFORMED(RS_WSX_ICMPV6_OPT_UNKNOWN_DATA, 3),
    RS_F_END,
};

/* A redirect's Redirected Header option past the IPv6 packet it holds (40 octets and its
 * payload length): the padding to 8 octets, at off in the message for len octets. */
static bool
redirect_padding(const struct rs_icmp *m, uint32_t *off, uint32_t *len)
{
    uint32_t at, quoted;

    if (!m->v6 || m->type != RS_ICMPV6_REDIRECT || !rs_icmp_quote_at(m, &at, &quoted) ||
        quoted < IPV6_HDR_LEN)
        return false;
    uint32_t packet = IPV6_HDR_LEN + rs_load_be16(m->msg + at + 4);
    if (packet >= quoted || at + quoted > m->len)
        return false;
    *off = at + packet;
    *len = quoted - packet;
    return true;
}

uint32_t
icmpv6_unknown_data_at(const struct rs_packet *pkt)
{
    struct rs_icmp m;
    uint32_t off, len;

    if ((pkt->flags & RS_PKT_QUOTED) || !rs_packet_has(pkt, RS_LAYER_ICMPV6) ||
        !rs_icmp_of(pkt, &m) || !redirect_padding(&m, &off, &len))
        return 0;
    return (uint32_t)(m.msg - pkt->frame->data) + off;
}

static bool
get_unknown_data(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    struct rs_icmp m;
    uint32_t off, len;

    if (occ != 0 || icmpv6_unknown_data_at(pkt) == 0 || !rs_icmp_of(pkt, &m) ||
        !redirect_padding(&m, &off, &len))
        return false;
    out->type = f->type;
    out->v.bytes.ptr = f->type == RS_FT_BYTES ? m.msg + off : NULL;
    out->v.bytes.len = f->type == RS_FT_BYTES ? len : 0;
    return true;
}

/* The padding's bytes; the hidden _ws.malformed under its expert item at its start. */
static bool
locate_unknown_data(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                    uint32_t *offset, uint32_t *length)
{
    struct rs_value v;

    if (!get_unknown_data(pkt, f, occ, &v))
        return false;
    *offset = icmpv6_unknown_data_at(pkt);
    *length = f->type == RS_FT_BYTES ? v.v.bytes.len : 0;
    return true;
}

/* After the packet a redirect's option holds, which the tree shows after the ICMPv6
 * fields: what is left of the option, flagged malformed (Wireshark adds the hidden
 * _ws.malformed under every expert item of its Malformed group). */
const struct rs_field rs_fields_icmpv6_trailer[] = {
    {"icmpv6.unknown_data", "Unknown Data", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
     "Unknown Data (not interpreted)", RS_NO_LAYER, 0, 0, get_unknown_data, 2, 0,
     .locate = locate_unknown_data},
    RS_F_WS_EXPERT("icmpv6.unknown_data.expert", "Unknown Data (not interpreted)",
                   RS_WSX_ICMPV6_UNKNOWN_DATA, 3),
    {"_ws.malformed", "Malformed Packet", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "",
     RS_NO_LAYER, 0, 0, get_unknown_data, 3, RS_FIELD_HIDDEN, .locate = locate_unknown_data},
    RS_F_END,
};
