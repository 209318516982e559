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
 *
 * Wireshark's names for the protocols we share are kept in a table here: our registry
 * names a protocol by its tree line ("Ethernet II"), tshark's glossary by the
 * protocol's registered name ("Ethernet") and a short name ("IPv4").
 */
#include <string.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/identify.h>
#include <roceshark/dissectors/print.h>

struct proto_names {
    const char *abbrev, *name, *short_name;
};

static const struct proto_names wireshark_protos[] = {
    {"frame", "Frame", "Frame"},
    {"eth", "Ethernet", "Ethernet"},
    {"vlan", "802.1Q Virtual LAN", "VLAN"},
    {"ieee8021ad", "IEEE 802.1ad", "IEEE 802.1AD"},
    {"ip", "Internet Protocol Version 4", "IPv4"},
    {"ipv6", "Internet Protocol Version 6", "IPv6"},
    {"udp", "User Datagram Protocol", "UDP"},
    {"tcp", "Transmission Control Protocol", "TCP"},
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
    {"_ws.malformed", "Malformed Packet", "Malformed packet"},
    {"_ws.short", "Short Frame", "Short frame"},
    {"llc", "Logical-Link Control", "LLC"},
    {NULL, NULL, NULL},
};

static const struct proto_names *
proto_names(const struct rs_field *f)
{
    for (const struct proto_names *p = wireshark_protos; p->abbrev != NULL; p++)
        if (strcmp(p->abbrev, f->abbrev) == 0)
            return p;
    return NULL;
}

/* tshark's base column: the bit width of a boolean's storage, nothing for types that
 * have no base, else the base's name. */
static void
print_base(struct rs_out *o, const struct rs_field *f)
{
    static const char *const bases[] = {"BASE_NONE", "BASE_DEC", "BASE_HEX", "BASE_DEC_HEX",
                                        "BASE_HEX_DEC", "BASE_NONE", "BASE_NONE", "BASE_OUI"};

    if (f->type == RS_FT_BOOLEAN) {
        if (f->width != 0)
            rs_out_printf(o, "%u", f->width * 8u);
        else
            rs_out_str(o, "BASE_NONE");
    } else if (f->type >= RS_FT_UINT8 && f->type <= RS_FT_FRAMENUM) {
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

/* A field's protocol: the one its name starts with ("frame" for frame.protocols, which
 * the registry declares among roceshark's own), else the protocol it follows in the
 * registry ("iwarp_ddp_rdmap" for iwarp_ddp.stag). */
static const char *
field_parent(const struct rs_field *f, const char *last_protocol)
{
    char first[64];
    size_t n = strcspn(f->abbrev, ".");

    if (n < sizeof(first)) {
        memcpy(first, f->abbrev, n);
        first[n] = '\0';
        int id = rs_field_lookup(first);
        if (id >= 0 && rs_field_by_id(id)->type == RS_FT_PROTOCOL)
            return rs_field_by_id(id)->abbrev;
    }
    return last_protocol;
}

static void
glossary_fields(struct rs_out *o)
{
    const char *parent = "";

    for (int id = 0; id < rs_field_count(); id++) {
        const struct rs_field *f = rs_field_by_id(id);
        if (!rs_field_is_first_of_name(id))
            continue;
        if (f->type == RS_FT_PROTOCOL && f->depth == 0) {
            /* Its fields follow it in the registry: it is their parent. */
            const struct proto_names *p = proto_names(f);
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
        if (!rs_field_is_first_of_name(id) || f->type != RS_FT_PROTOCOL || f->depth != 0)
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

static void
glossary_values(struct rs_out *o)
{
    for (int id = 0; id < rs_field_count(); id++) {
        const struct rs_field *f = rs_field_by_id(id);
        if (!rs_field_is_first_of_name(id) || f->vals == NULL || f->type == RS_FT_BOOLEAN)
            continue;
        bool hex = f->base == RS_BASE_HEX || f->base == RS_BASE_HEX_DEC;
        for (const struct rs_value_string *v = f->vals; v->name != NULL; v++)
            rs_out_printf(o, hex ? "V\t%s\t0x%llx\t%s\n" : "V\t%s\t%llu\t%s\n", f->abbrev,
                          (unsigned long long)v->value, v->name);
    }
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
    else
        return RS_EINVAL;
    return 0;
}
