/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_smp.c - subnet management packets (IBTA Vol 1, 14.2): the LID-routed
 * and directed-route SMP headers (offsets from the MAD's first byte) and the
 * attributes Notice (with the details of the traps of Table 132),
 * NodeDescription, NodeInfo, SwitchInfo, GUIDInfo, PortInfo, P_KeyTable,
 * SLtoVLMappingTable, VLArbitrationTable, the linear, random and multicast
 * forwarding tables, LinkSpeedWidthPairsTable, SMInfo, VendorDiag and
 * LedInfo, as field tables whose offsets count from the attribute's first
 * byte: 64 in an SMP, and where an SA record embeds it (ib_sa.c).
 *
 *   LID routed:                      Directed route:
 *    0 common MAD header (24)         0 common MAD header, whose Status is
 *   24 M_Key (64)                       D (1) | Status (15) at 4, and whose
 *   32 reserved (256)                   ClassSpecific is HopPointer | HopCount
 *   64 SMP data: the attribute (64)  24 M_Key (64)
 *  128 reserved (1024)               32 DrSLID (16) | DrDLID (16)
 *                                    36 reserved (224)
 *                                    64 SMP data (64)
 *                                   128 InitialPath (64 bytes)
 *                                   192 ReturnPath (64 bytes)
 *
 * Where Wireshark 4.0 reads other bits than IBTA defines, we follow IBTA:
 * the direction bit D is the top bit of the status (Wireshark reads one byte
 * under a 16-bit mask, so it always shows 0), and the directed-route status
 * is the 15 bits below it (docs/wireshark-differences.md). So too trap 259's
 * DataValid and SWLIDADDR (16-bit numbers, which Wireshark reads as IPv6
 * addresses and stops), and the MulticastForwardingTable's 32 port masks
 * (Wireshark reads 16).
 */
#include <stdio.h>

#include <roceshark/dissectors/common.h>

#include "ib/ib_mad_int.h"

#define SMP_LID RS_MAD_CLASS_SMP_LID
#define SMP_DR RS_MAD_CLASS_SMP_DR
#define DATA 64     /* where the attribute starts */

MAD_GETTER(get_smp, SMP_LID, SMP_DR, MAD_ANY_ATTR)
MAD_GETTER(get_smp_lid, SMP_LID, SMP_LID, MAD_ANY_ATTR)
MAD_GETTER(get_smp_dr, SMP_DR, SMP_DR, MAD_ANY_ATTR)

/* The attributes' getters: each finds its attribute through `layouts` below. */
#define SMP_ATTR_GETTER(fn)                                                                \
    static bool fn(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,     \
                   struct rs_value *out);
SMP_ATTR_GETTER(get_notice)
SMP_ATTR_GETTER(get_nodedesc)
SMP_ATTR_GETTER(get_nodeinfo)
SMP_ATTR_GETTER(get_switchinfo)
SMP_ATTR_GETTER(get_guidinfo)
SMP_ATTR_GETTER(get_portinfo)
SMP_ATTR_GETTER(get_lft)
SMP_ATTR_GETTER(get_rft)
SMP_ATTR_GETTER(get_mft)
SMP_ATTR_GETTER(get_sminfo)
SMP_ATTR_GETTER(get_pkeyblock)
SMP_ATTR_GETTER(get_pkey)
SMP_ATTR_GETTER(get_sltovl)
SMP_ATTR_GETTER(get_vlarb)
SMP_ATTR_GETTER(get_lswp)
SMP_ATTR_GETTER(get_vendordiag)
SMP_ATTR_GETTER(get_ledinfo)
SMP_ATTR_GETTER(get_trap_gid)
SMP_ATTR_GETTER(get_trap_repath)
SMP_ATTR_GETTER(get_trap_128)
SMP_ATTR_GETTER(get_trap_port)
SMP_ATTR_GETTER(get_trap_144)
SMP_ATTR_GETTER(get_trap_145)
SMP_ATTR_GETTER(get_trap_256)
SMP_ATTR_GETTER(get_trap_pkey)
SMP_ATTR_GETTER(get_trap_259)

/* An attribute's fields count their offsets from its first byte, wherever a MAD carries
 * it: in an SMP's data, or in the SA record that embeds it (ib_sa.c). A table repeats
 * its entry `entries` times, `stride` bytes apart, as occurrences; a trap's details are
 * fields of the Notice that hold for a range of trap numbers. */
struct smp_layout {
    rs_field_get_fn get;
    uint16_t attr;
    uint8_t entries, stride;
    uint16_t trap_lo, trap_hi;
};

static const struct smp_layout layouts[] = {
    {get_notice, RS_SMP_ATTR_NOTICE, 1, 0, 0, 0},
    {get_nodedesc, RS_SMP_ATTR_NODE_DESC, 1, 0, 0, 0},
    {get_nodeinfo, RS_SMP_ATTR_NODE_INFO, 1, 0, 0, 0},
    {get_switchinfo, RS_SMP_ATTR_SWITCH_INFO, 1, 0, 0, 0},
    {get_guidinfo, RS_SMP_ATTR_GUID_INFO, 8, 8, 0, 0},
    {get_portinfo, RS_SMP_ATTR_PORT_INFO, 1, 0, 0, 0},
    {get_lft, RS_SMP_ATTR_LFT, 64, 1, 0, 0},
    {get_rft, RS_SMP_ATTR_RFT, 16, 4, 0, 0},
    {get_mft, RS_SMP_ATTR_MFT, 32, 2, 0, 0},     /* Wireshark reads 16 of the 32 */
    {get_sminfo, RS_SMP_ATTR_SM_INFO, 1, 0, 0, 0},
    {get_pkeyblock, RS_SMP_ATTR_PKEY_TABLE, 1, 0, 0, 0},
    {get_pkey, RS_SMP_ATTR_PKEY_TABLE, 32, 2, 0, 0},
    {get_sltovl, RS_SMP_ATTR_SLTOVL, 8, 1, 0, 0},
    {get_vlarb, RS_SMP_ATTR_VLARB, 32, 2, 0, 0},
    {get_lswp, RS_SMP_ATTR_LSWP_TABLE, 1, 0, 0, 0},
    {get_vendordiag, RS_SMP_ATTR_VENDOR_DIAG, 1, 0, 0, 0},
    {get_ledinfo, RS_SMP_ATTR_LED_INFO, 1, 0, 0, 0},
    /* The traps of IBTA 14.2.5.1 (Table 132) whose details Wireshark decodes. */
    {get_trap_gid, RS_SMP_ATTR_NOTICE, 1, 0, 64, 67},
    {get_trap_repath, RS_SMP_ATTR_NOTICE, 1, 0, 68, 69},
    {get_trap_128, RS_SMP_ATTR_NOTICE, 1, 0, 128, 128},
    {get_trap_port, RS_SMP_ATTR_NOTICE, 1, 0, 129, 131},
    {get_trap_144, RS_SMP_ATTR_NOTICE, 1, 0, 144, 144},
    {get_trap_145, RS_SMP_ATTR_NOTICE, 1, 0, 145, 145},
    {get_trap_256, RS_SMP_ATTR_NOTICE, 1, 0, 256, 256},
    {get_trap_pkey, RS_SMP_ATTR_NOTICE, 1, 0, 257, 258},
    {get_trap_259, RS_SMP_ATTR_NOTICE, 1, 0, 259, 259},
};

static const struct smp_layout *
layout_of(rs_field_get_fn get)
{
    for (size_t i = 0; i < RS_ARRAY_SIZE(layouts); i++)
        if (layouts[i].get == get)
            return &layouts[i];
    return NULL;
}

uint32_t
smp_attr_at(const uint8_t *mad, uint16_t attr)
{
    if (mad[1] == SMP_LID || mad[1] == SMP_DR)
        return rs_load_be16(mad + 16) == attr ? DATA : UINT32_MAX;
    if (mad[1] == RS_MAD_CLASS_SA)
        return sa_record_embeds(rs_load_be16(mad + 16), attr);
    return UINT32_MAX;
}

bool
smp_field_attr(const struct rs_field *f, uint16_t *attr)
{
    const struct smp_layout *l = layout_of(f->get);

    if (l != NULL && attr != NULL)
        *attr = l->attr;
    return l != NULL;
}

/* Where f's occurrence occ lies in mad (of len captured bytes) by layout l, or
 * UINT32_MAX; whether its bytes were captured is the caller's to check (a capture cut
 * inside a table still has the entries before the cut). */
static uint32_t
layout_field_at(const struct smp_layout *l, const struct rs_field *f, unsigned occ,
                const uint8_t *mad, size_t len)
{
    if (l == NULL || occ >= l->entries || len < RS_MAD_HDR_LEN)
        return UINT32_MAX;
    uint32_t base = smp_attr_at(mad, l->attr);
    if (base == UINT32_MAX)
        return UINT32_MAX;
    if (l->trap_lo != 0) {
        if (base + 6 > len)
            return UINT32_MAX;
        uint16_t trap = rs_load_be16(mad + base + 4);
        if (trap < l->trap_lo || trap > l->trap_hi)
            return UINT32_MAX;
    }
    return base + f->offset + occ * l->stride;
}

/* NodeDescription's string as Wireshark reads it (ASCII): up to its first NUL, each
 * byte above 0x7f as U+FFFD. The buffer is the thread's, good until its next call. */
static bool
ascii_string(const uint8_t *p, size_t n, struct rs_value *out)
{
    static _Thread_local char text[64 * 3 + 1];
    size_t k = 0;

    for (size_t i = 0; i < n && p[i] != 0 && k + 3 < sizeof(text); i++) {
        if (p[i] < 0x80) {
            text[k++] = (char)p[i];
        } else {
            memcpy(text + k, "\xef\xbf\xbd", 3);
            k += 3;
        }
    }
    text[k] = '\0';
    out->type = RS_FT_STRING;
    out->v.str = text;
    return true;
}

uint32_t
smp_field_at(const struct rs_field *f, unsigned occ, const uint8_t *mad, size_t len)
{
    uint32_t at = layout_field_at(layout_of(f->get), f, occ, mad, len);

    return at != UINT32_MAX && at + f->width <= len ? at : UINT32_MAX;
}

/* Occurrence occ of f, an attribute's field whose getter is get. */
static bool
attr_get(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out, rs_field_get_fn get)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);

    if (mad == NULL)
        return false;
    uint32_t at = layout_field_at(layout_of(get), f, occ, mad, len);
    /* A string cut short is shown as far as it was captured, as its NUL would end it. */
    if (f->type == RS_FT_STRING && at < len)
        return ascii_string(mad + at, at + f->width <= len ? f->width : len - at, out);
    if (at == UINT32_MAX || at + f->width > len)
        return false;
    struct rs_field here = *f;
    here.offset = (uint16_t)at;
    return rs_field_get_generic(pkt, &here, 0, out);
}

#define SMP_ATTR_GETTER_BODY(fn)                                                           \
    static bool fn(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,     \
                   struct rs_value *out)                                                    \
    {                                                                                       \
        return attr_get(pkt, f, occ, out, fn);                                              \
    }
SMP_ATTR_GETTER_BODY(get_notice)
SMP_ATTR_GETTER_BODY(get_nodedesc)
SMP_ATTR_GETTER_BODY(get_nodeinfo)
SMP_ATTR_GETTER_BODY(get_switchinfo)
SMP_ATTR_GETTER_BODY(get_guidinfo)
SMP_ATTR_GETTER_BODY(get_portinfo)
SMP_ATTR_GETTER_BODY(get_lft)
SMP_ATTR_GETTER_BODY(get_rft)
SMP_ATTR_GETTER_BODY(get_mft)
SMP_ATTR_GETTER_BODY(get_sminfo)
SMP_ATTR_GETTER_BODY(get_pkeyblock)
SMP_ATTR_GETTER_BODY(get_pkey)
SMP_ATTR_GETTER_BODY(get_sltovl)
SMP_ATTR_GETTER_BODY(get_vlarb)
SMP_ATTR_GETTER_BODY(get_lswp)
SMP_ATTR_GETTER_BODY(get_vendordiag)
SMP_ATTR_GETTER_BODY(get_ledinfo)
SMP_ATTR_GETTER_BODY(get_trap_gid)
SMP_ATTR_GETTER_BODY(get_trap_repath)
SMP_ATTR_GETTER_BODY(get_trap_128)
SMP_ATTR_GETTER_BODY(get_trap_port)
SMP_ATTR_GETTER_BODY(get_trap_144)
SMP_ATTR_GETTER_BODY(get_trap_145)
SMP_ATTR_GETTER_BODY(get_trap_256)
SMP_ATTR_GETTER_BODY(get_trap_pkey)
SMP_ATTR_GETTER_BODY(get_trap_259)
/* The attributes Wireshark names ("Attribute (SMInfo)" less its prefix). */
static const struct rs_value_string smp_attrs[] = {
    {0x0001, "ClassPortInfo"},
    {0x0002, "Notice"},
    {0x0003, "InformInfo"},
    {RS_SMP_ATTR_NODE_DESC, "NodeDescription"},
    {RS_SMP_ATTR_NODE_INFO, "NodeInfo"},
    {RS_SMP_ATTR_SWITCH_INFO, "SwitchInfo"},
    {RS_SMP_ATTR_GUID_INFO, "GUIDInfo"},
    {RS_SMP_ATTR_PORT_INFO, "PortInfo"},
    {0x0016, "P_KeyTable"},
    {RS_SMP_ATTR_SLTOVL, "SLtoVLMappingTable"},
    {0x0018, "VLArbitrationTable"},
    {0x0019, "LinearForwardingTable"},
    {0x001a, "RandomForwardingTable"},
    {0x001b, "MulticastForwardingTable"},
    {0x001c, "LinkSpeedWidthPairsTable"},
    {RS_SMP_ATTR_SM_INFO, "SMInfo"},
    {0x0030, "VendorDiag"},
    {0x0031, "LedInfo"},
    {0, NULL},
};

const char *
smp_attr_name(uint16_t attr)
{
    return rs_value_name(smp_attrs, attr);
}

/* The attributes Wireshark 4.0 gives an SMP-data item of their own around their fields
 * (the Notice a second around its trap's details), wherever a MAD carries them. */
static const uint16_t own_item_attrs[] = {
    RS_SMP_ATTR_NOTICE, RS_SMP_ATTR_SLTOVL, RS_SMP_ATTR_VLARB, RS_SMP_ATTR_LFT,
    RS_SMP_ATTR_RFT, RS_SMP_ATTR_MFT, RS_SMP_ATTR_LSWP_TABLE, RS_SMP_ATTR_SM_INFO,
    RS_SMP_ATTR_VENDOR_DIAG, RS_SMP_ATTR_LED_INFO,
};

/* Whether attr is one of those. */
static bool
has_own_item(uint16_t attr)
{
    for (size_t i = 0; i < RS_ARRAY_SIZE(own_item_attrs); i++)
        if (own_item_attrs[i] == attr)
            return true;
    return false;
}

/* Where own item occ of the attribute an SMP or SA MAD carries lies. */
static bool
smp_own_item(const uint8_t *mad, unsigned occ, uint32_t *off, uint32_t *len)
{
    for (size_t i = 0; i < RS_ARRAY_SIZE(own_item_attrs); i++) {
        uint32_t base = smp_attr_at(mad, own_item_attrs[i]);
        if (base == UINT32_MAX)
            continue;
        bool notice = own_item_attrs[i] == RS_SMP_ATTR_NOTICE;
        if (occ > (notice ? 1u : 0u))
            return false;
        /* A Notice's details follow its 10 bytes of header, 54 bytes of them. */
        *off = occ == 0 ? base : base + 10;
        *len = occ == 0 ? 64 : 54;
        return true;
    }
    return false;
}

static bool
is_smp(const uint8_t *mad)
{
    return mad[1] == SMP_LID || mad[1] == SMP_DR;
}

/* Wireshark's item for a MAD's data: in an SMP the 64 bytes of the attribute,
 * "Attribute (SMInfo)", under which the attribute's own item and fields nest; in the
 * classes it does not decode (and the CM, whose messages it puts under the same item)
 * the 232 bytes after the common header. */
static bool
get_smpdata(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);

    (void)f;
    if (mad == NULL || occ != 0)
        return false;
    uint16_t attr = rs_load_be16(mad + 16);
    switch (mad[1]) {
    case SMP_LID:
    case SMP_DR:
        return mad_bytes(pkt, DATA, 64, out);
    case RS_MAD_CLASS_PERF:
        if (attr == RS_MAD_ATTR_CLASS_PORT_INFO || attr == RS_PERF_ATTR_PORT_COUNTERS ||
            attr == RS_PERF_ATTR_PORT_COUNTERS_EXT)
            return false;
        /* fall through */
    case RS_MAD_CLASS_CM:
    case 0x05:      /* baseboard management */
    case 0x06:      /* device management */
        return mad_bytes(pkt, RS_MAD_HDR_LEN, RS_MAD_LEN - RS_MAD_HDR_LEN, out);
    default:
        return false;
    }
}

/* The attribute's own items under the same name, "SMInfo" around its fields (an SA
 * record gives those of the attribute it embeds). */
static bool
get_smp_own_item(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);
    uint32_t off, n;

    (void)f;
    return mad != NULL && (is_smp(mad) || mad[1] == RS_MAD_CLASS_SA) &&
           smp_own_item(mad, occ, &off, &n) && mad_bytes(pkt, off, n, out);
}

/* The SMP's line as tshark's: "SMP (Directed Route) SubnGetResp(SMInfo)". */
static size_t
label_smp(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
          char *buf, size_t size)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);
    char info[96];

    (void)f;
    (void)v;
    if (mad == NULL || !rs_mad_info(mad, len, info, sizeof(info)))
        return 0;
    int n = snprintf(buf, size, "SMP (%s) %s",
                     mad[1] == SMP_DR ? "Directed Route" : "LID Routed", info);
    return n > 0 ? (size_t)n : 0;
}

/* The name of the attribute pkt's SMP carries ("SMInfo"), or NULL: no SMP, or an
 * attribute without one. */
static const char *
smp_attribute(const struct rs_packet *pkt)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);

    return mad != NULL && is_smp(mad) ? smp_attr_name(rs_load_be16(mad + 16)) : NULL;
}

/* An SMP's data item, "Attribute (SMInfo)"; a CM MAD's, "CM ConnectRequest". */
static size_t
label_smpdata(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
              char *buf, size_t size)
{
    const char *name = smp_attribute(pkt);

    if (name == NULL)
        return cm_data_label(pkt, f, v, buf, size);
    int n = snprintf(buf, size, "Attribute (%s)", name);
    return n > 0 ? (size_t)n : 0;
}

/* An SMP attribute's own item: its name ("SMInfo"); an SA record's, the usual line. */
static size_t
label_own_item(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
               char *buf, size_t size)
{
    const char *name = smp_attribute(pkt);

    (void)f;
    (void)v;
    if (name == NULL)
        return 0;
    int n = snprintf(buf, size, "%s", name);
    return n > 0 ? (size_t)n : 0;
}

unsigned
mad_field_nest(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);
    uint16_t attr;

    (void)occ;
    if (mad == NULL || (!is_smp(mad) && mad[1] != RS_MAD_CLASS_SA))
        return 0;
    if (f->get == get_smpdata)
        return 1;
    if (f->get == get_smp_own_item)
        return 2;
    if (!smp_field_attr(f, &attr))      /* the SA's own fields */
        return mad[1] == RS_MAD_CLASS_SA ? sa_field_nest(mad, f) : 0;
    return has_own_item(attr) ? 2 : 1;
}

#define X(abbrev, name, off, width, mask, getter) MAD_X(abbrev, name, off, width, mask, getter)
/* A column of a table of several: the tree shows the table entry by entry. */
#define ROW(abbrev, name, off, width, mask, getter)                                         \
    {abbrev, name, MAD_UTYPE(width), RS_BASE_HEX, mask, NULL, name, RS_LAYER_PAYLOAD, off,   \
     width, getter, 2, RS_FIELD_ROWS, .locate = mad_field_locate, .nest = mad_field_nest}
#define PI(field, name, off, width, mask) \
    X("infiniband.portinfo." field, name, off, width, mask, get_portinfo)
/* a PortInfo field with a note after its value (ib_portinfo_notes.c) */
#define PIN(field, name, off, width, mask)                                                   \
    {"infiniband.portinfo." field, name, MAD_UTYPE(width), RS_BASE_HEX, mask, NULL, name,   \
     RS_LAYER_PAYLOAD, off, width, get_portinfo, 2, 0, .show = mad_portinfo_show_note,     \
     .locate = mad_field_locate, .nest = mad_field_nest}
/* a bit of CapabilityMask, under it as tshark's tree shows it, by tshark's names */
#define CAP(field, name, bit)                                                               \
    MAD_F("infiniband.portinfo.capabilitymask." field, name, RS_FT_UINT32, RS_BASE_HEX,      \
          1u << (bit), 20, 4, get_portinfo, 3)
#define NOTICE(field, name, off, width, mask) \
    X("infiniband.notice." field, name, off, width, mask, get_notice)
/* A trap's detail, at its offset in the details (which start at the Notice's 10th byte). */
#define TRAP(field, name, off, width, mask, getter)                                   \
    MAD_F("infiniband.trap." field, name, MAD_UTYPE(width), RS_BASE_HEX, mask, 10 + (off), \
          width, getter, 3)
#define TRAP_GID(field, name, off, getter) \
    MAD_F("infiniband.trap." field, name, RS_FT_IPV6, RS_BASE_NONE, 0, 10 + (off), 16, getter, 3)

const struct rs_field rs_fields_ib_smp[] = {
    {"infiniband.smplid", "Subnet Management Packet (LID Routed)", RS_FT_BYTES, RS_BASE_NONE, 0,
     NULL, "Subnet Management Packet (LID Routed)", RS_LAYER_PAYLOAD, 0, 0, get_smp_lid, 1,
     RS_FIELD_HEADER, .label = label_smp},
    {"infiniband.smpdirected", "Subnet Management Packet (Directed Route)", RS_FT_BYTES,
     RS_BASE_NONE, 0, NULL, "Subnet Management Packet (Directed Route)", RS_LAYER_PAYLOAD, 0, 0,
     get_smp_dr, 1, RS_FIELD_HEADER, .label = label_smp},
    MAD_F("infiniband.smpdirected.d", "D (Direction Bit)", RS_FT_UINT64, RS_BASE_HEX, 0x8000, 4,
          2, get_smp_dr, 2),
    X("infiniband.smpdirected.smpstatus", "Status", 4, 2, 0x7fff, get_smp_dr),
    X("infiniband.smpdirected.hoppointer", "Hop Pointer", 6, 1, 0, get_smp_dr),
    X("infiniband.smpdirected.hopcount", "Hop Count", 7, 1, 0, get_smp_dr),
    X("infiniband.smplid.mkey", "M_Key", 24, 8, 0, get_smp),
    /* the reserved octets after each header, lines of tshark's tree */
    MAD_F("infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, 32, 32, get_smp_lid,
          2),
    X("infiniband.smpdirected.drslid", "DrSLID", 32, 2, 0, get_smp_dr),
    X("infiniband.smpdirected.drdlid", "DrDLID", 34, 2, 0, get_smp_dr),
    MAD_F("infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, 36, 28, get_smp_dr, 2),
    {"infiniband.smplid.smpdata", "SMP Data", RS_FT_BYTES, RS_BASE_NONE, 0, NULL, "SMP Data",
     RS_LAYER_PAYLOAD, DATA, 64, get_smpdata, 1, 0, .label = label_smpdata,
     .nest = mad_field_nest},
    {"infiniband.smplid.smpdata", "SMP Data", RS_FT_BYTES, RS_BASE_NONE, 0, NULL, "SMP Data",
     RS_LAYER_PAYLOAD, DATA, 64, get_smp_own_item, 1, 0, .label = label_own_item,
     .nest = mad_field_nest},
    /* NodeInfo (14.2.5.3) */
    X("infiniband.nodeinfo.baseversion", "BaseVersion", 0, 1, 0, get_nodeinfo),
    X("infiniband.nodeinfo.classversion", "ClassVersion", 1, 1, 0, get_nodeinfo),
    X("infiniband.nodeinfo.nodetype", "NodeType", 2, 1, 0, get_nodeinfo),
    X("infiniband.nodeinfo.numports", "NumPorts", 3, 1, 0, get_nodeinfo),
    X("infiniband.nodeinfo.systemimageguid", "SystemImageGUID", 4, 8, 0, get_nodeinfo),
    X("infiniband.nodeinfo.nodeguid", "NodeGUID", 12, 8, 0, get_nodeinfo),
    X("infiniband.nodeinfo.portguid", "PortGUID", 20, 8, 0, get_nodeinfo),
    X("infiniband.nodeinfo.partitioncap", "PartitionCap", 28, 2, 0, get_nodeinfo),
    X("infiniband.nodeinfo.deviceid", "DeviceID", 30, 2, 0, get_nodeinfo),
    X("infiniband.nodeinfo.revision", "Revision", 32, 4, 0, get_nodeinfo),
    X("infiniband.nodeinfo.localportnum", "LocalPortNum", 36, 1, 0, get_nodeinfo),
    X("infiniband.nodeinfo.vendorid", "VendorID", 37, 3, 0, get_nodeinfo),
    /* SwitchInfo (14.2.5.4) */
    X("infiniband.switchinfo.linearfdbcap", "LinearFDBCap", 0, 2, 0, get_switchinfo),
    X("infiniband.switchinfo.randomfdbcap", "RandomFDBCap", 2, 2, 0, get_switchinfo),
    X("infiniband.switchinfo.multicastfdbcap", "MulticastFDBCap", 4, 2, 0,
      get_switchinfo),
    X("infiniband.switchinfo.linearfdbtop", "LinearFDBTop", 6, 2, 0, get_switchinfo),
    X("infiniband.switchinfo.defaultport", "DefaultPort", 8, 1, 0, get_switchinfo),
    X("infiniband.switchinfo.defaultmulticastprimaryport", "DefaultMulticastPrimaryPort",
      9, 1, 0, get_switchinfo),
    X("infiniband.switchinfo.defaultmulticastnotprimaryport", "DefaultMulticastNotPrimaryPort",
      10, 1, 0, get_switchinfo),
    X("infiniband.switchinfo.lifetimevalue", "LifeTimeValue", 11, 1, 0xf8,
      get_switchinfo),
    X("infiniband.switchinfo.portstatechange", "PortStateChange", 11, 1, 0x04,
      get_switchinfo),
    X("infiniband.switchinfo.optimizedsltovlmappingprogramming",
      "OptimizedSLtoVLMappingProgramming", 11, 1, 0x03, get_switchinfo),
    X("infiniband.switchinfo.lidsperport", "LIDsPerPort", 12, 2, 0, get_switchinfo),
    X("infiniband.switchinfo.partitionenforcementcap", "PartitionEnforcementCap", 14, 2,
      0, get_switchinfo),
    X("infiniband.switchinfo.inboundenforcementcap", "InboundEnforcementCap", 16, 1,
      0x80, get_switchinfo),
    X("infiniband.switchinfo.outboundenforcementcap", "OutboundEnforcementCap", 16, 1,
      0x40, get_switchinfo),
    X("infiniband.switchinfo.filterrawinboundcap", "FilterRawInboundCap", 16, 1, 0x20,
      get_switchinfo),
    X("infiniband.switchinfo.filterrawoutboundcap", "FilterRawOutboundCap", 16, 1, 0x10,
      get_switchinfo),
    X("infiniband.switchinfo.enhancedportzero", "EnhancedPortZero", 16, 1, 0x08,
      get_switchinfo),
    /* GUIDInfo (14.2.5.5): Wireshark files its GUIDs under switchinfo. */
    X("infiniband.switchinfo.guid", "GUID", 0, 8, 0, get_guidinfo),
    /* PortInfo (14.2.5.6) */
    PI("m_key", "M_Key", 0, 8, 0),
    PI("guid", "GidPrefix", 8, 8, 0),
    PI("lid", "LID", 16, 2, 0),
    PI("mastersmlid", "MasterSMLID", 18, 2, 0),
    PI("capabilitymask", "CapabilityMask", 20, 4, 0),
    CAP("issm", "SM", 1),
    CAP("noticesupported", "NoticeSupported", 2),
    CAP("trapsupported", "TrapSupported", 3),
    CAP("optionalipdsupported", "OptionalIPDSupported", 4),
    CAP("automaticmigrationsupported", "AutomaticMigrationSupported", 5),
    CAP("slmappingsupported", "SLMappingSupported", 6),
    CAP("mkeynvram", "MKeyNVRAM", 7),
    CAP("pkeynvram", "PKeyNVRAM", 8),
    CAP("ledinfosupported", "LEDInfoSupported", 9),
    CAP("smdisabled", "SMdisabled", 10),
    CAP("systemimageguidsupported", "SystemImageGUIDSupported", 11),
    CAP("pkeyswitchexternalporttrapsupported", "PKeySwitchExternalPortTrapSupported", 12),
    CAP("communicationmanagementsupported", "CommunicationManagementSupported", 16),
    CAP("snmptunnelingsupported", "SNMPTunnelingSupported", 17),
    CAP("reinitsupported", "ReinitSupported", 18),
    CAP("devicemanagementsupported", "DeviceManagementSupported", 19),
    CAP("vendorclasssupported", "VendorClassSupported", 20),
    CAP("drnoticesupported", "DRNoticeSupported", 21),
    CAP("capabilitymasknoticesupported", "CapabilityMaskNoticeSupported", 22),
    CAP("bootmanagementsupported", "BootManagementSupported", 23),
    CAP("linkroundtriplatencysupported", "LinkRoundTripLatencySupported", 24),
    CAP("clientregistrationsupported", "ClientRegistrationSupported", 25),
    CAP("otherlocalchangesnoticesupported", "OtherLocalChangesNoticeSupported", 26),
    CAP("linkspeedwidthpairstablesupported", "LinkSpeedWIdthPairsTableSupported", 27),
    PIN("diagcode", "DiagCode", 24, 2, 0),
    PI("m_keyleaseperiod", "M_KeyLeasePeriod", 26, 2, 0),
    PI("localportnum", "LocalPortNum", 28, 1, 0),
    PIN("linkwidthenabled", "LinkWidthEnabled", 29, 1, 0),
    PIN("linkwidthsupported", "LinkWidthSupported", 30, 1, 0),
    PIN("linkwidthactive", "LinkWidthActive", 31, 1, 0),
    PIN("linkspeedsupported", "LinkSpeedSupported", 32, 1, 0xf0),
    PIN("portstate", "PortState", 32, 1, 0x0f),
    PIN("portphysicalstate", "PortPhysicalState", 33, 1, 0xf0),
    PIN("linkdowndefaultstate", "LinkDownDefaultState", 33, 1, 0x0f),
    PI("m_keyprotectbits", "M_KeyProtectBits", 34, 1, 0xc0),
    PI("lmc", "LMC", 34, 1, 0x07),
    PIN("linkspeedactive", "LinkSpeedActive", 35, 1, 0xf0),
    PIN("linkspeedenabled", "LinkSpeedEnabled", 35, 1, 0x0f),
    PIN("neighbormtu", "NeighborMTU", 36, 1, 0xf0),
    PI("mastersmsl", "MasterSMSL", 36, 1, 0x0f),
    PIN("vlcap", "VLCap", 37, 1, 0xf0),
    PI("inittype", "InitType", 37, 1, 0x0f),
    PI("vlhighlimit", "VLHighLimit", 38, 1, 0),
    PI("vlarbitrationhighcap", "VLArbitrationHighCap", 39, 1, 0),
    PI("vlarbitrationlowcap", "VLArbitrationLowCap", 40, 1, 0),
    PI("inittypereply", "InitTypeReply", 41, 1, 0xf0),
    PIN("mtucap", "MTUCap", 41, 1, 0x0f),
    PI("vlstallcount", "VLStallCount", 42, 1, 0xe0),
    PI("hoqlife", "HOQLife", 42, 1, 0x1f),
    PIN("operationalvls", "OperationalVLs", 43, 1, 0xf0),
    PI("partitionenforcementinbound", "PartitionEnforcementInbound", 43, 1, 0x08),
    PI("partitionenforcementoutbound", "PartitionEnforcementOutbound", 43, 1, 0x04),
    PI("filterrawinbound", "FilterRawInbound", 43, 1, 0x02),
    PI("filterrawoutbound", "FilterRawOutbound", 43, 1, 0x01),
    PI("m_keyviolations", "M_KeyViolations", 44, 2, 0),
    PI("p_keyviolations", "P_KeyViolations", 46, 2, 0),
    PI("q_keyviolations", "Q_KeyViolations", 48, 2, 0),
    PI("guidcap", "GUIDCap", 50, 1, 0),
    PI("clientreregister", "ClientReregister", 51, 1, 0x80),
    PI("subnettimeout", "SubnetTimeOut", 51, 1, 0x1f),
    PI("resptimevalue", "RespTimeValue", 52, 1, 0x1f),
    PI("localphyerrors", "LocalPhyErrors", 53, 1, 0xf0),
    PI("overrunerrors", "OverrunErrors", 53, 1, 0x0f),
    PI("maxcredithint", "MaxCreditHint", 54, 2, 0),
    PI("linkroundtriplatency", "LinkRoundTripLatency", 57, 3, 0),
    /* SMInfo (14.2.5.13) */
    X("infiniband.sminfo.guid", "GUID", 0, 8, 0, get_sminfo),
    X("infiniband.sminfo.sm_key", "SM_Key", 8, 8, 0, get_sminfo),
    X("infiniband.sminfo.actcount", "ActCount", 16, 4, 0, get_sminfo),
    X("infiniband.sminfo.priority", "Priority", 20, 1, 0xf0, get_sminfo),
    X("infiniband.sminfo.smstate", "SMState", 20, 1, 0x0f, get_sminfo),
    /* P_KeyTable (14.2.5.7): a block of 32 P_Keys, each a membership bit and a base */
    MAD_F("infiniband.p_keytable.p_keytableblock", "P_KeyTableBlock", RS_FT_BYTES,
          RS_BASE_NONE, 0, 0, 64, get_pkeyblock, 2),
    ROW("infiniband.p_keytable.membershiptype", "MembershipType", 0, 1, 0x80, get_pkey),
    ROW("infiniband.p_keytable.p_keybase", "P_KeyBase", 0, 2, 0x7fff, get_pkey),
    /* SLtoVLMappingTable (14.2.5.8): the VL of each SL, two to a byte */
    ROW("infiniband.sltovlmappingtable.sltovlhighbits", "SL(x)toVL", 0, 1, 0xf0, get_sltovl),
    ROW("infiniband.sltovlmappingtable.sltovllowbits", "SL(x)toVL", 0, 1, 0x0f, get_sltovl),
    /* VLArbitrationTable (14.2.5.9): 32 entries of VL and weight */
    ROW("infiniband.vlarbitrationtable.vl", "VL", 0, 1, 0x0f, get_vlarb),
    ROW("infiniband.vlarbitrationtable.weight", "Weight", 1, 1, 0, get_vlarb),
    /* LinkSpeedWidthPairsTable, as Wireshark 4.0 lays it out */
    X("infiniband.linkspeedwidthpairstable.numtables", "NumTables", 0, 1, 0, get_lswp),
    MAD_F("infiniband.linkspeedwidthpairstable.portmask", "PortMask", RS_FT_BYTES,
          RS_BASE_NONE, 0, 1, 32, get_lswp, 2),
    X("infiniband.linkspeedwidthpairstable.speedtwofive", "Speed 2.5 Gbps", 33, 1, 0x80,
      get_lswp),
    X("infiniband.linkspeedwidthpairstable.speedfive", "Speed 5 Gbps", 34, 1, 0x80, get_lswp),
    X("infiniband.linkspeedwidthpairstable.speedten", "Speed 10 Gbps", 35, 1, 0x80, get_lswp),
    /* VendorDiag (14.2.5.14) and LedInfo (14.2.5.15) */
    X("infiniband.vendordiag.nextindex", "NextIndex", 0, 2, 0, get_vendordiag),
    MAD_F("infiniband.vendordiag.diagdata", "DiagData", RS_FT_BYTES, RS_BASE_NONE, 0, 2, 62,
          get_vendordiag, 2),
    X("infiniband.ledinfo.ledmask", "LedMask", 0, 1, 0x80, get_ledinfo),
    /* NodeDescription (14.2.5.2): 64 bytes of text; after NodeInfo in a NodeRecord */
    MAD_F("infiniband.nodedescription.nodestring", "NodeString", RS_FT_STRING, RS_BASE_NONE, 0,
          0, 64, get_nodedesc, 2),
    /* LinearForwardingTable (14.2.5.10): 64 ports, one per LID of the block */
    X("infiniband.linearforwardingtable.port", "Port", 0, 1, 0, get_lft),
    /* RandomForwardingTable (14.2.5.11): 16 entries of LID, Valid, LMC and port */
    ROW("infiniband.randomforwardingtable.lid", "LID", 0, 2, 0, get_rft),
    ROW("infiniband.randomforwardingtable.valid", "Valid", 2, 1, 0x80, get_rft),
    ROW("infiniband.randomforwardingtable.lmc", "LMC", 2, 1, 0x70, get_rft),
    ROW("infiniband.randomforwardingtable.port", "Port", 3, 1, 0, get_rft),
    /* MulticastForwardingTable (14.2.5.12): 32 port masks of 16 bits (Wireshark 4.0 reads
     * the first 16; README's differences) */
    X("infiniband.multicastforwardingtable.portmask", "PortMask", 0, 2, 0, get_mft),
    /* Notice (14.2.5.1, 13.4.8.2): the trap's header, its details as the trap number lays
     * them out (Table 132), then the 54 bytes of details whole */
    NOTICE("isgeneric", "IsGeneric", 0, 1, 0x80),
    NOTICE("type", "Type", 0, 1, 0x7f),
    NOTICE("producertypevendorid", "ProducerTypeVendorID", 1, 3, 0),
    NOTICE("trapnumberdeviceid", "TrapNumberDeviceID", 4, 2, 0),
    NOTICE("issuerlid", "IssuerLID", 6, 2, 0),
    NOTICE("noticetoggle", "NoticeToggle", 8, 1, 0x80),
    NOTICE("noticecount", "NoticeCount", 8, 2, 0x7fff),
    TRAP_GID("gidaddr", "GIDADDR", 6, get_trap_gid),                /* 64-67 */
    TRAP("comp_mask", "COMP_MASK", 0, 8, 0, get_trap_repath),         /* 68, 69 */
    TRAP("wait_for_repath", "WAIT_FOR_REPATH", 8, 1, 0x80, get_trap_repath),
    TRAP("lidaddr", "LIDADDR", 0, 2, 0, get_trap_128),                /* 128 */
    TRAP("lidaddr", "LIDADDR", 2, 2, 0, get_trap_port),               /* 129-131 */
    TRAP("portno", "PORTNO", 4, 1, 0, get_trap_port),
    TRAP("lidaddr", "LIDADDR", 2, 2, 0, get_trap_144),                /* 144 */
    TRAP("otherlocalchanges", "OtherLocalChanges", 5, 1, 0x01, get_trap_144),
    TRAP("capabilitymask", "CAPABILITYMASK", 6, 4, 0, get_trap_144),
    TRAP("linkspeecenabledchange", "LinkSpeecEnabledChange", 11, 1, 0x04, get_trap_144),
    TRAP("linkwidthenabledchange", "LinkWidthEnabledChange", 11, 1, 0x02, get_trap_144),
    TRAP("nodedescriptionchange", "NodeDescriptionChange", 11, 1, 0x01, get_trap_144),
    TRAP("lidaddr", "LIDADDR", 2, 2, 0, get_trap_145),                /* 145 */
    TRAP("systemimageguid", "SYSTEMIMAGEGUID", 6, 8, 0, get_trap_145),
    TRAP("lidaddr", "LIDADDR", 2, 2, 0, get_trap_256),                /* 256 */
    TRAP("drslid", "DRSLID", 4, 2, 0, get_trap_256),
    TRAP("method", "METHOD", 6, 1, 0, get_trap_256),
    TRAP("attributeid", "ATTRIBUTEID", 8, 2, 0, get_trap_256),
    TRAP("attributemodifier", "ATTRIBUTEMODIFIER", 10, 4, 0, get_trap_256),
    TRAP("mkey", "MKEY", 14, 8, 0, get_trap_256),
    TRAP("drnotice", "DRNotice", 23, 1, 0x80, get_trap_256),
    TRAP("drpathtruncated", "DRPathTruncated", 23, 1, 0x40, get_trap_256),
    TRAP("drhopcount", "DRHopCount", 23, 1, 0x3f, get_trap_256),
    MAD_F("infiniband.trap.drnoticereturnpath", "DRNoticeReturnPath", RS_FT_BYTES,
          RS_BASE_NONE, 0, 10 + 24, 30, get_trap_256, 3),
    TRAP("lidaddr1", "LIDADDR1", 2, 2, 0, get_trap_pkey),             /* 257, 258 */
    TRAP("lidaddr2", "LIDADDR2", 4, 2, 0, get_trap_pkey),
    TRAP("key", "KEY", 6, 4, 0, get_trap_pkey),
    TRAP("sl", "SL", 10, 1, 0xf0, get_trap_pkey),
    TRAP("qp1", "QP1", 11, 3, 0, get_trap_pkey),
    TRAP("qp2", "QP2", 15, 3, 0, get_trap_pkey),
    TRAP_GID("gidaddr1", "GIDADDR1", 18, get_trap_pkey),
    TRAP_GID("gidaddr2", "GIDADDR2", 34, get_trap_pkey),
    /* 259: Wireshark reads DataValid and SWLIDADDR, 16 bits each, as IPv6 addresses and
     * stops there, malformed; we read IBTA's numbers (README's differences). */
    TRAP("datavalid", "DataValid", 0, 2, 0, get_trap_259),
    TRAP("lidaddr1", "LIDADDR1", 2, 2, 0, get_trap_259),
    TRAP("lidaddr2", "LIDADDR2", 4, 2, 0, get_trap_259),
    TRAP("pkey", "PKEY", 6, 2, 0, get_trap_259),
    TRAP("sl", "SL", 8, 1, 0xf0, get_trap_259),
    TRAP("qp1", "QP1", 9, 3, 0, get_trap_259),
    TRAP("qp2", "QP2", 13, 3, 0, get_trap_259),
    TRAP_GID("gidaddr1", "GIDADDR1", 16, get_trap_259),
    TRAP_GID("gidaddr2", "GIDADDR2", 32, get_trap_259),
    TRAP("swlidaddr", "SWLIDADDR", 48, 2, 0, get_trap_259),
    TRAP("portno", "PORTNO", 50, 1, 0, get_trap_259),
    MAD_F("infiniband.notice.datadetails", "DataDetails", RS_FT_BYTES, RS_BASE_NONE, 0, 10, 54,
          get_notice, 2),
    MAD_F("infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, 128, 128,
          get_smp_lid, 2),
    MAD_F("infiniband.smpdirected.initialpath", "Initial Path", RS_FT_BYTES, RS_BASE_NONE, 0,
          128, 64, get_smp_dr, 2),
    MAD_F("infiniband.smpdirected.returnpath", "Return Path", RS_FT_BYTES, RS_BASE_NONE, 0, 192,
          64, get_smp_dr, 2),
    RS_F_END,
};
