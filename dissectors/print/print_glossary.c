/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * print_glossary.c - `-G fields|protocols|values`: the field registry laid out as
 * tshark -G lays out Wireshark's, tab-separated, so that scripts that read one read
 * the other.
 *
 *   fields:    P  name  abbrev                                    (a protocol)
 *              F  name  abbrev  type  parent  base  mask  blurb   (a field)
 *   protocols: name  short name  filter name
 *   values:    V  abbrev  value  name                             (a value string)
 *   heuristic-decodes: table  protocol  T|F                        (a heuristic of ours)
 *   ftypes:    type  description                                  (a type our fields have)
 *   column-formats:   format  description                      (the columns we print)
 *   dissector-tables: name  description  type  base  protocol  decode-as  (we dispatch on)
 *   decodes:          table  value  protocol                  (what we decode by them)
 * The last three are tshark's lines, written from its output (glossary_tables.c).
 *
 * Wireshark's names for the protocols we share are kept in a table here: our registry
 * names a protocol by its tree line ("Ethernet II"), tshark's glossary by the
 * protocol's registered name ("Ethernet") and a short name ("IPv4"). Some of our items
 * are protocols of their own in Wireshark (an IPv6 extension header, each TCP option, the
 * expert and malformed items): they are P lines and -G protocols lines, as tshark's, and
 * the parents of the fields named under them.
 */
#include <string.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/identify.h>
#include <roceshark/dissectors/print.h>

#include "print/glossary_int.h"

struct proto_names {
    const char *abbrev, *name, *short_name;
};

static const struct proto_names wireshark_protos[] = {
    {"frame", "Frame", "Frame"},
    {"eth", "Ethernet", "Ethernet"},
    {"vlan", "802.1Q Virtual LAN", "VLAN"},
    {"ieee8021ad", "IEEE 802.1ad", "IEEE 802.1AD"},
    {"ieee8021ah", "IEEE 802.1ah", "IEEE 802.1AH"},     /* the parent of ieee8021ah.etype */
    {"ip", "Internet Protocol Version 4", "IPv4"},
    {"ipv6", "Internet Protocol Version 6", "IPv6"},
    {"ipv6.hopopts", "IPv6 Hop-by-Hop Option", "IPv6 Hop-by-Hop"},
    {"udp", "User Datagram Protocol", "UDP"},
    {"tcp", "Transmission Control Protocol", "TCP"},
    {"tcp.options.eol", "TCP Option - End of Option List (EOL)", "End of Option List (EOL)"},
    {"tcp.options.nop", "TCP Option - No-Operation (NOP)", "No-Operation (NOP)"},
    {"tcp.options.mss", "TCP Option - Maximum segment size", "Maximum segment size"},
    {"tcp.options.wscale", "TCP Option - Window scale", "Window scale"},
    {"tcp.options.sack_perm", "TCP Option - SACK permitted", "SACK permitted"},
    {"tcp.options.sack", "TCP Option - SACK", "SACK"},
    {"tcp.options.timestamp", "TCP Option - Timestamps", "Timestamps"},
    {"tcp.options.unknown", "TCP Option - Unknown", "Unknown"},
    {"icmp", "Internet Control Message Protocol", "ICMP"},
    {"icmpv6", "Internet Control Message Protocol v6", "ICMPv6"},
    {"infiniband", "InfiniBand", "IB"},
    {"iwarp_mpa", "iWARP Marker Protocol data unit Aligned framing", "IWARP_MPA"},
    {"iwarp_ddp_rdmap",
     "iWARP Direct Data Placement and Remote Direct Memory Access Protocol",
     "IWARP_DDP_RDMAP"},
    {"arp", "Address Resolution Protocol", "ARP/RARP"},
    {"erf", "Extensible Record Format", "ERF"},
    {"data", "Data", "Data"},
    {"_ws.expert", "Expert Info", "Expert"},
    {"_ws.malformed", "Malformed Packet", "Malformed packet"},
    {"_ws.short", "Short Frame", "Short frame"},
    {"llc", "Logical-Link Control", "LLC"},
    {NULL, NULL, NULL},
};

/* Wireshark's names of the protocol abbrev, of n characters (NULL: not one it has). */
static const struct proto_names *
proto_named(const char *abbrev, size_t n)
{
    for (const struct proto_names *p = wireshark_protos; p->abbrev != NULL; p++)
        if (strncmp(p->abbrev, abbrev, n) == 0 && p->abbrev[n] == '\0')
            return p;
    return NULL;
}

static const struct proto_names *
proto_names(const struct rs_field *f)
{
    return proto_named(f->abbrev, strlen(f->abbrev));
}

/* Whether tshark lists f as a protocol: one of ours at the top of its tree, or an item of
 * ours that Wireshark registers as a protocol of its own. */
static bool
is_protocol(const struct rs_field *f)
{
    return (f->type == RS_FT_PROTOCOL && f->depth == 0) || proto_names(f) != NULL;
}

/* Wireshark's base where it is one of its own that we format as another: a port, which
 * Wireshark may name from its services file (BASE_PT_*: -N t does it for us too, whatever
 * the base), a value its dissector writes (BASE_CUSTOM), and the TCP flags, booleans of the
 * 12 bits the header length leaves (we read the 16). */
static const struct {
    const char *abbrev;
    const char *base;
} wireshark_bases[] = {
    {"udp.srcport", "BASE_PT_UDP"},   {"udp.dstport", "BASE_PT_UDP"},
    {"udp.port", "BASE_PT_UDP"},      {"tcp.srcport", "BASE_PT_TCP"},
    {"tcp.dstport", "BASE_PT_TCP"},   {"tcp.port", "BASE_PT_TCP"},
    {"tcp.completeness", "BASE_CUSTOM"}, {"tcp.flags.res", "12"},
    {"tcp.flags.ae", "12"},           {"tcp.flags.cwr", "12"},
    {"tcp.flags.ece", "12"},          {"tcp.flags.urg", "12"},
    {"tcp.flags.ack", "12"},          {"tcp.flags.push", "12"},
    {"tcp.flags.reset", "12"},        {"tcp.flags.syn", "12"},
    {"tcp.flags.fin", "12"},
};

/* tshark's base column: a boolean's display, the bit width of its storage (0 without a
 * mask); the base's name for an integer; nothing for the other types (frame numbers
 * among them). */
static void
print_base(struct rs_out *o, const struct rs_field *f)
{
    static const char *const bases[] = {"BASE_NONE", "BASE_DEC", "BASE_HEX", "BASE_DEC_HEX",
                                        "BASE_HEX_DEC", "BASE_NONE", "BASE_NONE", "BASE_OUI"};

    for (size_t i = 0; i < RS_ARRAY_SIZE(wireshark_bases); i++) {
        if (strcmp(wireshark_bases[i].abbrev, f->abbrev) == 0) {
            rs_out_str(o, wireshark_bases[i].base);
            return;
        }
    }
    if (f->type == RS_FT_BOOLEAN) {
        rs_out_printf(o, "%u", f->width * 8u);
    } else if (f->type >= RS_FT_UINT8 && f->type < RS_FT_FRAMENUM) {
        /* The integers, which enum rs_ftype lists together. */
        rs_out_str(o, f->base < RS_ARRAY_SIZE(bases) ? bases[f->base] : "BASE_NONE");
    }
}

/* A mask that keeps every bit of the bytes read is no mask: tshark says 0x0; and so it
 * says of one Wireshark does not register (RS_FIELD_BITS). */
static uint64_t
shown_mask(const struct rs_field *f)
{
    if (f->flags & RS_FIELD_BITS)
        return 0;
    if (f->width == 0 || f->width >= 8)
        return f->mask;
    uint64_t all = (1ull << (f->width * 8u)) - 1;
    return (f->mask & all) == all ? 0 : f->mask;
}

/* A field's protocol: the longest one its name starts with ("frame" for frame.protocols,
 * which the registry declares among roceshark's own; "ipv6.hopopts" for
 * ipv6.hopopts.nxt; "ieee8021ah", which we do not dissect, for ieee8021ah.etype), else
 * the protocol it follows in the registry ("iwarp_ddp_rdmap" for iwarp_ddp.stag). A TCP
 * option's fields are TCP's, as Wireshark registers them. */
static const char *
field_parent(const struct rs_field *f, const char *last_protocol)
{
    char prefix[128];

    for (size_t n = strlen(f->abbrev); n > 0; n--) {
        if (f->abbrev[n] != '.' || n >= sizeof(prefix))
            continue;
        memcpy(prefix, f->abbrev, n);
        prefix[n] = '\0';
        int id = rs_field_lookup(prefix);
        if (id >= 0 && rs_field_by_id(id)->type == RS_FT_PROTOCOL)
            return rs_field_by_id(id)->abbrev;
        const struct proto_names *p = proto_named(f->abbrev, n);
        if (id < 0 && p != NULL)
            return p->abbrev;
    }
    return last_protocol;
}

/* The entry of a name that tshark lists: the first, but where that is a header node with
 * the value under the same name (infiniband.immdt's header, then its Immediate Data), the
 * value, which is Wireshark's field; the header's line is text in its tree. */
static const struct rs_field *
listed_entry(int id)
{
    const struct rs_field *f = rs_field_by_id(id);

    if (!(f->flags & RS_FIELD_HEADER))
        return f;
    for (int alias = rs_field_next_alias(id); alias >= 0; alias = rs_field_next_alias(alias))
        if (!(rs_field_by_id(alias)->flags & RS_FIELD_HEADER))
            return rs_field_by_id(alias);
    return f;
}

static void
glossary_fields(struct rs_out *o)
{
    const char *parent = "";

    for (int id = 0; id < rs_field_count(); id++) {
        if (!rs_field_is_first_of_name(id))
            continue;
        const struct rs_field *f = listed_entry(id);
        if (is_protocol(f)) {
            /* The fields that follow one at the top of the tree are its own, where their
             * names do not say (field_parent()). */
            const struct proto_names *p = proto_names(f);
            if (f->depth == 0)
                parent = f->abbrev;
            rs_out_printf(o, "P\t%s\t%s\n", p != NULL ? p->name : f->name, f->abbrev);
            continue;
        }
        rs_out_printf(o, "F\t%s\t%s\t%s\t%s\t", f->name, f->abbrev, rs_field_type_name(f->type),
                      field_parent(f, parent));
        print_base(o, f);
        rs_out_printf(o, "\t0x%llx\t%s\n", (unsigned long long)shown_mask(f),
                      f->blurb != NULL ? f->blurb : "");
    }
}

static void
glossary_protocols(struct rs_out *o)
{
    for (int id = 0; id < rs_field_count(); id++) {
        const struct rs_field *f = rs_field_by_id(id);
        if (!rs_field_is_first_of_name(id) || !is_protocol(f))
            continue;
        const struct proto_names *p = proto_names(f);
        const struct rs_ident_protocol *named = rs_ident_by_abbrev(f->abbrev);
        const char *short_name = p != NULL ? p->short_name : f->name;
        if (named != NULL)
            short_name = named->short_name;
        rs_out_printf(o, "%s\t%s\t%s\n", p != NULL ? p->name : f->name, short_name,
                      f->abbrev);
    }
}

/* Fields whose names Wireshark keeps in an indexed table (value_string_ext): tshark writes
 * their values in decimal, whatever the base, as it does for any base but BASE_HEX. */
static const char *const indexed_value_fields[] = {"ipv6.opt.type"};

static bool
values_in_hex(const struct rs_field *f)
{
    if (f->base != RS_BASE_HEX)
        return false;
    for (size_t i = 0; i < RS_ARRAY_SIZE(indexed_value_fields); i++)
        if (strcmp(indexed_value_fields[i], f->abbrev) == 0)
            return false;
    return true;
}

static void
glossary_values(struct rs_out *o)
{
    for (int id = 0; id < rs_field_count(); id++) {
        const struct rs_field *f = rs_field_by_id(id);
        if (!rs_field_is_first_of_name(id) || f->vals == NULL || f->type == RS_FT_BOOLEAN)
            continue;
        bool hex = values_in_hex(f);
        for (const struct rs_value_string *v = f->vals; v->name != NULL; v++)
            rs_out_printf(o, hex ? "V\t%s\t0x%llx\t%s\n" : "V\t%s\t%llu\t%s\n", f->abbrev,
                          (unsigned long long)v->value, v->name);
    }
}

/* The field types our fields have, as tshark -G ftypes lists Wireshark's: its order, its
 * descriptions. */
static const struct {
    uint8_t type;
    const char *description;
} ftypes[] = {
    {RS_FT_NONE, "Label"},
    {RS_FT_PROTOCOL, "Protocol"},
    {RS_FT_BOOLEAN, "Boolean"},
    {RS_FT_UINT8, "Unsigned integer (1 byte)"},
    {RS_FT_UINT16, "Unsigned integer (2 bytes)"},
    {RS_FT_UINT24, "Unsigned integer (3 bytes)"},
    {RS_FT_UINT32, "Unsigned integer (4 bytes)"},
    {RS_FT_UINT64, "Unsigned integer (8 bytes)"},
    {RS_FT_INT16, "Signed integer (2 bytes)"},
    {RS_FT_INT32, "Signed integer (4 bytes)"},
    {RS_FT_DOUBLE, "Floating point (double-precision)"},
    {RS_FT_ABSTIME, "Date and time"},
    {RS_FT_RELTIME, "Time offset"},
    {RS_FT_STRING, "Character string"},
    {RS_FT_ETHER, "Ethernet or other MAC address"},
    {RS_FT_BYTES, "Byte sequence"},
    {RS_FT_IPV4, "IPv4 address"},
    {RS_FT_IPV6, "IPv6 address"},
    {RS_FT_FRAMENUM, "Frame number"},
};

_Static_assert(RS_ARRAY_SIZE(ftypes) == RS_FT_COUNT, "every enum rs_ftype in -G ftypes");

static void
glossary_ftypes(struct rs_out *o)
{
    for (size_t i = 0; i < RS_ARRAY_SIZE(ftypes); i++)
        rs_out_printf(o, "%s\t%s\n", rs_field_type_name(ftypes[i].type),
                      ftypes[i].description);
}

/* Our guesses, as tshark -G heuristic-decodes lists the heuristic dissectors that make them
 * (in its order): the table each hangs on, the protocol it finds, and T, on by default
 * (--disable-heuristic eth_over_ib and iwarp_mpa_tcp turn them off). */
static void
glossary_heuristic_decodes(struct rs_out *o)
{
    rs_out_str(o, "infiniband.payload\tethertype\tT\n"   /* IPoIB in a native IB payload */
                  "tcp\tiwarp_mpa\tT\n");                 /* MPA's request and reply */
}

static void
print_lines(struct rs_out *o, const char *const *lines)
{
    for (; *lines != NULL; lines++)
        rs_out_str(o, *lines);
}

int
rs_print_glossary(struct rs_out *o, const char *report)
{
    if (strcmp(report, "fields") == 0)
        glossary_fields(o);
    else if (strcmp(report, "protocols") == 0)
        glossary_protocols(o);
    else if (strcmp(report, "values") == 0)
        glossary_values(o);
    else if (strcmp(report, "heuristic-decodes") == 0)
        glossary_heuristic_decodes(o);
    else if (strcmp(report, "ftypes") == 0)
        glossary_ftypes(o);
    else if (strcmp(report, "column-formats") == 0)
        print_lines(o, rs_glossary_column_formats);
    else if (strcmp(report, "dissector-tables") == 0)
        print_lines(o, rs_glossary_dissector_tables);
    else if (strcmp(report, "decodes") == 0)
        print_lines(o, rs_glossary_decodes);
    else
        return RS_EINVAL;
    return 0;
}
