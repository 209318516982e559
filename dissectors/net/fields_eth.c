/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_eth.c - eth.*, vlan.* and ieee8021ad.*: Ethernet's fields in the order and with
 * the lines of Wireshark's tree. Each address holds its name (with MAC resolution, as
 * tshark's default), its vendor prefix and that prefix's name, the same again as
 * eth.addr, and its LG and IG bits; after the type, the padding up to the 60-byte
 * minimum and a trailer, as Wireshark tells them apart (packet-eth.c's
 * add_ethernet_trailer, with its defaults: no FCS, padding must be zeros).
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/ether_names.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/info.h>
#include <roceshark/dissectors/wire.h>

#include "fields/fields_int.h"
#include "net/net_int.h"
#include "net/value_tables.h"

#define ETHERTYPE_QINQ 0x88a8
#define ETH_MIN_LEN 60      /* the shortest frame, without its FCS */
#define ARP_FIXED_LEN 8

/* Wireshark shows 802.1Q tags (TPID 0x8100 or 0x9100) as vlan.* and 802.1ad
 * service tags (TPID 0x88a8) as ieee8021ad.*, outer tag first. */
static bool
tag_matches(const struct rs_packet *pkt, enum rs_layer layer, bool service_tag)
{
    if (!rs_packet_has(pkt, layer))
        return false;
    uint16_t tpid = rs_load_be16(pkt->frame->data + pkt->span[layer].off - 2);
    return (tpid == ETHERTYPE_QINQ) == service_tag;
}

/* The layer of occurrence occ of a tag of f's kind: 802.1ad's service tags for
 * ieee8021ad.* (and ieee8021ah.etype, Wireshark's name for their Type), 802.1Q's
 * others. */
static bool
tag_layer(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          enum rs_layer *out)
{
    bool service = f->abbrev[0] == 'i';
    unsigned seen = 0;

    for (int layer = RS_LAYER_VLAN; layer <= RS_LAYER_VLAN2; layer++) {
        if (tag_matches(pkt, (enum rs_layer)layer, service) && seen++ == occ) {
            *out = (enum rs_layer)layer;
            return true;
        }
    }
    return false;
}

static bool
get_tag(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
        struct rs_value *out)
{
    enum rs_layer layer;

    if (!tag_layer(pkt, f, occ, &layer))
        return false;
    if (f->type == RS_FT_PROTOCOL) {
        out->type = RS_FT_PROTOCOL;
        out->v.bytes.ptr = rs_packet_at(pkt, layer);    /* the tag's TCI and Type */
        out->v.bytes.len = pkt->span[layer].len;
        return true;
    }
    return rs_field_read_uint(pkt, f, (uint8_t)layer, out);
}

/* A tag's field in its own tag (the second's in the second); 802.1ad's priority and DEI
 * cover the TCI's first byte alone, as Wireshark's items do. */
static bool
locate_tag(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
           uint32_t *offset, uint32_t *length)
{
    enum rs_layer layer;

    if (!tag_layer(pkt, f, occ, &layer))
        return false;
    *offset = pkt->span[layer].off + f->offset;
    *length = f->abbrev[0] == 'i' && (f->mask == 0xe000 || f->mask == 0x1000) ? 1 : f->width;
    return true;
}

/* IEEE 802.1Q-2014's names (its 8P0D table), which Wireshark 4.0 shows by default (not
 * 802.1D-2004's, where 3 was Excellent Effort): RoCE's usual lossless priority 3 is
 * Critical Applications. */
static const struct rs_value_string priority_vals[] = {
    {0, "Best Effort (default)"},
    {1, "Background"},
    {2, "Excellent Effort"},
    {3, "Critical Applications"},
    {4, "Video, < 100ms latency and jitter"},
    {5, "Voice, < 10ms latency and jitter"},
    {6, "Internetwork Control"},
    {7, "Network Control"},
    {0, NULL},
};

static const struct rs_value_string dei_vals[] = {{0, "Ineligible"}, {1, "Eligible"}, {0, NULL}};

/* "802.1Q Virtual LAN, PRI: 0, DEI: 0, ID: 100", "IEEE 802.1ad, ID: 100" */
static size_t
tag_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
          char *buf, size_t size)
{
    struct rs_info in = {buf, size, 0, 0};

    (void)pkt;
    rs_info_str(&in, f->name);
    if (v->v.bytes.ptr == NULL || v->v.bytes.len < 2)
        return in.want;
    uint16_t tci = rs_load_be16(v->v.bytes.ptr);
    if (f->abbrev[0] != 'i') {
        rs_info_dec(&in, ", PRI: ", tci >> 13);
        rs_info_dec(&in, ", DEI: ", (tci >> 12) & 1u);
    }
    rs_info_dec(&in, ", ID: ", tci & 0x0fffu);
    return in.want;
}

/* Where the bytes after the Ethertype's protocol start: the end of the IP packet, as
 * its header gives it, or of an ARP message; 0 when nothing says (no trailer). */
uint32_t
eth_trailer_start(const struct rs_packet *pkt)
{
    if (!rs_packet_has(pkt, RS_LAYER_ETH) || rs_packet_has(pkt, RS_LAYER_VLAN))
        return 0;
    uint32_t end = rs_packet_ip_end(pkt);
    if (end == 0 && rs_packet_has(pkt, RS_LAYER_ARP)) {
        const uint8_t *a = rs_packet_at(pkt, RS_LAYER_ARP);
        end = pkt->span[RS_LAYER_ARP].off + ARP_FIXED_LEN + 2u * (a[4] + a[5]);
    }
    return end;
}

/* The padding's length: the bytes that bring the frame to 60, when they are zeros. */
static uint32_t
padding_len(const struct rs_packet *pkt, uint32_t start)
{
    uint32_t wire = pkt->frame->len, off = pkt->span[RS_LAYER_ETH].off;

    if (start == 0 || start >= pkt->frame->caplen || wire - off < ETH_MIN_LEN ||
        start - off >= ETH_MIN_LEN)
        return 0;
    uint32_t n = ETH_MIN_LEN - (start - off);
    if (start + n > pkt->frame->caplen)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (pkt->frame->data[start + i] != 0)
            return 0;
    return n;
}

/* eth.padding (offset 0) and eth.trailer (offset 1). */
static bool
get_trailer(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    uint32_t start = eth_trailer_start(pkt);

    if (occ != 0 || start == 0 || start >= pkt->frame->caplen)
        return false;
    uint32_t pad = padding_len(pkt, start), rest = pkt->frame->caplen - start - pad;
    out->type = RS_FT_BYTES;
    out->v.bytes.ptr = pkt->frame->data + start + (f->offset == 0 ? 0 : pad);
    out->v.bytes.len = f->offset == 0 ? pad : rest;
    return out->v.bytes.len > 0;
}

bool
eth_padding_bad(const struct rs_packet *pkt)
{
    uint32_t start = eth_trailer_start(pkt), off = pkt->span[RS_LAYER_ETH].off;

    /* a trailer where padding could have been, that is not zeros */
    return start != 0 && start < pkt->frame->caplen && pkt->frame->len - off >= ETH_MIN_LEN &&
           start - off < ETH_MIN_LEN && padding_len(pkt, start) == 0;
}

/* The names of the two addresses: offset 0 the destination's, 6 the source's; the
 * offset column of these fields says which. */
static bool
get_resolved(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out)
{
    static _Thread_local char names[2][RS_ETHER_NAME_MAX];

    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_ETH))
        return false;
    char *buf = names[f->offset != 0];
    rs_ether_name_shown(rs_packet_at(pkt, RS_LAYER_ETH) + f->offset, buf, RS_ETHER_NAME_MAX);
    out->type = RS_FT_STRING;
    out->v.str = buf;
    return true;
}

/* The vendor's long name, where manuf knows the prefix. */
static bool
get_vendor(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
           struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_ETH))
        return false;
    const char *name = rs_ether_vendor(rs_packet_at(pkt, RS_LAYER_ETH) + f->offset);
    if (name == NULL)
        return false;
    out->type = RS_FT_STRING;
    out->v.str = name;
    return true;
}

/* "Ethernet II, Src: VMware_a7:7d:03 (00:50:56:a7:7d:03), Dst: ..." */
static size_t
eth_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
          char *buf, size_t size)
{
    char src[2 * RS_ETHER_NAME_MAX], dst[2 * RS_ETHER_NAME_MAX];
    const uint8_t *e = rs_packet_at(pkt, RS_LAYER_ETH);
    struct rs_value a = {.type = RS_FT_ETHER};

    (void)v;
    a.v.bytes.ptr = e + 6;
    a.v.bytes.len = 6;
    rs_value_format_display(f, &a, src, sizeof(src));
    a.v.bytes.ptr = e;
    rs_value_format_display(f, &a, dst, sizeof(dst));
    /* without printf: each frame has one */
    struct rs_info in = {buf, size, 0, 0};
    rs_info_str(&in, "Ethernet II, Src: ");
    rs_info_str(&in, src);
    rs_info_str(&in, ", Dst: ");
    rs_info_str(&in, dst);
    return in.want;
}

static const struct rs_value_string lg_vals[] = {
    {0, "Globally unique address (factory default)"},
    {1, "Locally administered address (this is NOT the factory default)"},
    {0, NULL},
};

static const struct rs_value_string ig_vals[] = {
    {0, "Individual address (unicast)"},
    {1, "Group address (multicast/broadcast)"},
    {0, NULL},
};

#define HIDDEN_GEN (RS_FIELD_HIDDEN | RS_FIELD_GENERATED)
#define ETH_NAME(abbrev, name, off) \
    {abbrev, name, RS_FT_STRING, RS_BASE_NONE, 0, NULL, name, RS_LAYER_ETH, off, 6, \
     get_resolved, 2, HIDDEN_GEN}
#define ETH_OUI(abbrev, name, off) \
    {abbrev, name, RS_FT_UINT24, RS_BASE_OUI, 0, NULL, name, RS_LAYER_ETH, off, 3, NULL, 2, \
     HIDDEN_GEN}
#define ETH_VENDOR(abbrev, name, off) \
    {abbrev, name, RS_FT_STRING, RS_BASE_NONE, 0, NULL, name, RS_LAYER_ETH, off, 6, \
     get_vendor, 2, HIDDEN_GEN}
#define ETH_BIT(abbrev, name, off, mask, vals, flags) \
    {abbrev, name, RS_FT_BOOLEAN, RS_BASE_NONE, mask, vals, name, RS_LAYER_ETH, off, 3, NULL, \
     2, flags}
/* One address and the lines below it: which is "dst" or "src", at offset off. */
#define ETH_ADDRESS(which, name, off)                                                        \
    {"eth." which, name, RS_FT_ETHER, RS_BASE_NONE, 0, NULL, name " hardware address",       \
     RS_LAYER_ETH, off, 6, NULL, 1},                                                          \
    ETH_NAME("eth." which "_resolved", name " (resolved)", off),                              \
    ETH_OUI("eth." which ".oui", name " OUI", off),                                           \
    ETH_VENDOR("eth." which ".oui_resolved", name " OUI (resolved)", off),                    \
    {"eth.addr", "Address", RS_FT_ETHER, RS_BASE_NONE, 0, NULL,                              \
     "Destination or source hardware address", RS_LAYER_ETH, off, 6, NULL, 2},               \
    ETH_NAME("eth.addr_resolved", "Address (resolved)", off),                                 \
    ETH_OUI("eth.addr.oui", "Address OUI", off),                                              \
    ETH_VENDOR("eth.addr.oui_resolved", "Address OUI (resolved)", off),                       \
    ETH_BIT("eth." which ".lg", "LG bit", off, 0x020000, lg_vals, 0),                         \
    ETH_BIT("eth.lg", "LG bit", off, 0x020000, lg_vals, RS_FIELD_HIDDEN),                     \
    ETH_BIT("eth." which ".ig", "IG bit", off, 0x010000, ig_vals, 0),                         \
    ETH_BIT("eth.ig", "IG bit", off, 0x010000, ig_vals, RS_FIELD_HIDDEN)

#define TAG(abbrev, name, type, base, mask, vals, blurb, off, width, depth, ...)            \
    {abbrev, name, type, base, mask, vals, blurb, RS_LAYER_VLAN, off, width, get_tag, depth,   \
     0, .locate = locate_tag, __VA_ARGS__}

const struct rs_field rs_fields_link[] = {
    {"eth", "Ethernet II", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "Ethernet II", RS_LAYER_ETH,
     0, 0, NULL, 0, 0, .label = eth_label},
    ETH_ADDRESS("dst", "Destination", 0),
    ETH_ADDRESS("src", "Source", 6),
    {"eth.type", "Type", RS_FT_UINT16, RS_BASE_HEX, 0, rs_etype_vals,
     "Ethertype (or first tag)", RS_LAYER_ETH, 12, 2, NULL, 1},
    {"eth.padding", "Padding", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
     "Zeros that bring a short frame to 60 bytes", RS_LAYER_ETH, 0, 0, get_trailer, 1},
    {"eth.trailer", "Trailer", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
     "Bytes after the packet that are not padding", RS_LAYER_ETH, 1, 0, get_trailer, 1},
    RS_F_WS_EXPERT("eth.padding_bad",
                   "Padding identification may be inaccurate and impact trailer dissector",
                   RS_WSX_ETH_PADDING_BAD, 2),
    TAG("ieee8021ad", "IEEE 802.1ad", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "Service tag", 0,
        0, 0, .label = tag_label),
    TAG("ieee8021ad.priority", "Priority", RS_FT_UINT16, RS_BASE_DEC, 0xe000, NULL,
        "Service tag priority", 0, 2, 1),
    TAG("ieee8021ad.dei", "DEI", RS_FT_UINT16, RS_BASE_DEC, 0x1000, NULL, "Drop eligibility",
        0, 2, 1),
    TAG("ieee8021ad.id", "ID", RS_FT_UINT16, RS_BASE_DEC, 0x0fff, NULL,
        "Service VLAN identifier", 0, 2, 1),
    /* Wireshark 4.0's name for a service tag's Type */
    TAG("ieee8021ah.etype", "Type", RS_FT_UINT16, RS_BASE_HEX, 0, rs_etype_vals,
        "Ethertype after the service tag", 2, 2, 1),
    TAG("vlan", "802.1Q Virtual LAN", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, "VLAN tag", 0, 0, 0,
        .label = tag_label),
    TAG("vlan.priority", "Priority", RS_FT_UINT16, RS_BASE_DEC, 0xe000, priority_vals,
        "Priority code point (PFC class)", 0, 2, 1),
    TAG("vlan.dei", "DEI", RS_FT_BOOLEAN, RS_BASE_NONE, 0x1000, dei_vals,
        "Drop eligible indicator", 0, 2, 1),
    TAG("vlan.id", "ID", RS_FT_UINT16, RS_BASE_DEC, 0x0fff, NULL, "VLAN identifier", 0, 2, 1),
    TAG("vlan.etype", "Type", RS_FT_UINT16, RS_BASE_HEX, 0, rs_etype_vals,
        "Ethertype after the tag", 2, 2, 1),
    RS_F_END,
};
