/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_sa.c - subnet administration (IBTA Vol 1, 15.2): the SA header, the
 * PathRecord and MCMemberRecord, and ClassPortInfo (13.4.8.1), which every
 * GSI class answers, as field tables.
 *
 *    0 common MAD header (24)
 *   24 RMPP header (12, ib_mad.c)
 *   36 SM_Key (64)
 *   44 AttributeOffset (16) | reserved (16)
 *   48 ComponentMask (64)
 *   56 SA data: the record (200 bytes)
 *
 * ClassPortInfo's offsets count from the start of the class's data (56 in
 * an SA MAD, 64 in a PerfMgt one), which its getter adds, and so does
 * rs_mad_set() through mad_field_base().
 *
 * The records of the subnet's SMP attributes (15.2.5) are a record ID (RID:
 * LIDs, port and block numbers) and the attribute as an SMP carries it; the
 * attribute's fields (ib_smp.c) are read where sa_record_embeds() says.
 */
#include <stdio.h>

#include <roceshark/dissectors/common.h>

#include "ib/ib_mad_int.h"

#define SA RS_MAD_CLASS_SA
#define DATA 56

MAD_GETTER(get_sa, SA, SA, MAD_ANY_ATTR)
MAD_GETTER(get_path, SA, SA, RS_SA_ATTR_PATH_RECORD)
MAD_GETTER(get_mcmember, SA, SA, RS_SA_ATTR_MCMEMBER_RECORD)

/* The SMP attributes the SA's records embed, and where (from the MAD's first byte): after
 * the record's RID, as Wireshark 4.0 reads them. */
static const struct {
    uint16_t sa_attr, smp_attr;
    uint16_t at;
} embedded[] = {
    {RS_SMP_ATTR_NOTICE, RS_SMP_ATTR_NOTICE, DATA},
    {RS_SA_ATTR_NODE_RECORD, RS_SMP_ATTR_NODE_INFO, DATA + 4},
    {RS_SA_ATTR_NODE_RECORD, RS_SMP_ATTR_NODE_DESC, DATA + 4 + 40},
    {RS_SA_ATTR_PORT_INFO_RECORD, RS_SMP_ATTR_PORT_INFO, DATA + 4},
    {RS_SA_ATTR_SWITCH_INFO_RECORD, RS_SMP_ATTR_SWITCH_INFO, DATA + 4},
    {RS_SA_ATTR_LFT_RECORD, RS_SMP_ATTR_LFT, DATA + 8},
    {RS_SA_ATTR_RFT_RECORD, RS_SMP_ATTR_RFT, DATA + 8},
    {RS_SA_ATTR_MFT_RECORD, RS_SMP_ATTR_MFT, DATA + 8},
    {RS_SA_ATTR_SM_INFO_RECORD, RS_SMP_ATTR_SM_INFO, DATA + 4},
    {RS_SA_ATTR_GUID_INFO_RECORD, RS_SMP_ATTR_GUID_INFO, DATA + 8},
    {RS_SA_ATTR_SLTOVL_RECORD, RS_SMP_ATTR_SLTOVL, DATA + 8},
    {RS_SA_ATTR_LSWP_RECORD, RS_SMP_ATTR_LSWP_TABLE, DATA},
    {RS_SA_ATTR_PKEY_RECORD, RS_SMP_ATTR_PKEY_TABLE, DATA + 8},
    {RS_SA_ATTR_VLARB_RECORD, RS_SMP_ATTR_VLARB, DATA + 8},
};

uint32_t
sa_record_embeds(uint16_t sa_attr, uint16_t smp_attr)
{
    for (size_t i = 0; i < RS_ARRAY_SIZE(embedded); i++)
        if (embedded[i].sa_attr == sa_attr && embedded[i].smp_attr == smp_attr)
            return embedded[i].at;
    return UINT32_MAX;
}

/* A record ID's field, in the records of the attributes bit-set in `records` (SA
 * attribute IDs below 64). */
static bool
rid_get(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
        struct rs_value *out, uint64_t records)
{
    static const struct mad_ctx sa = {SA, SA, MAD_ANY_ATTR};
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);

    if (mad == NULL || !mad_matches(mad, &sa))
        return false;
    uint16_t attr = rs_load_be16(mad + 16);
    return attr < 64 && ((records >> attr) & 1) && mad_field_get(pkt, f, occ, out, &sa);
}

#define BIT(attr) (UINT64_C(1) << (attr))
#define RID_GETTER(fn, records)                                                             \
    static bool fn(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,     \
                   struct rs_value *out)                                                    \
    {                                                                                       \
        return rid_get(pkt, f, occ, out, records);                                          \
    }
/* LID: NodeRecord, SLtoVL, SwitchInfo, LFT, RFT, MFT, SMInfo, GuidInfo, P_KeyTable and
 * VLArbitrationTable records */
RID_GETTER(get_rid_lid, BIT(RS_SA_ATTR_NODE_RECORD) | BIT(RS_SA_ATTR_SLTOVL_RECORD) |
           BIT(RS_SA_ATTR_SWITCH_INFO_RECORD) | BIT(RS_SA_ATTR_LFT_RECORD) |
           BIT(RS_SA_ATTR_RFT_RECORD) | BIT(RS_SA_ATTR_MFT_RECORD) |
           BIT(RS_SA_ATTR_SM_INFO_RECORD) | BIT(RS_SA_ATTR_GUID_INFO_RECORD) |
           BIT(RS_SA_ATTR_PKEY_RECORD) | BIT(RS_SA_ATTR_VLARB_RECORD))
/* the reserved bytes after the ID, which tshark shows: 2 after the LID of these */
RID_GETTER(get_rid_reserved2, BIT(RS_SA_ATTR_NODE_RECORD) |
           BIT(RS_SA_ATTR_SWITCH_INFO_RECORD) | BIT(RS_SA_ATTR_SM_INFO_RECORD))
/* 4 after the LID and a block or port numbers of these */
RID_GETTER(get_rid_reserved4, BIT(RS_SA_ATTR_GUID_INFO_RECORD) | BIT(RS_SA_ATTR_LFT_RECORD) |
           BIT(RS_SA_ATTR_SLTOVL_RECORD))
RID_GETTER(get_rid_portinfo, BIT(RS_SA_ATTR_PORT_INFO_RECORD))
RID_GETTER(get_rid_sltovl, BIT(RS_SA_ATTR_SLTOVL_RECORD))
RID_GETTER(get_rid_block16, BIT(RS_SA_ATTR_LFT_RECORD) | BIT(RS_SA_ATTR_RFT_RECORD) |
           BIT(RS_SA_ATTR_PKEY_RECORD))
RID_GETTER(get_rid_mft, BIT(RS_SA_ATTR_MFT_RECORD))
RID_GETTER(get_rid_guidinfo, BIT(RS_SA_ATTR_GUID_INFO_RECORD))
RID_GETTER(get_rid_pkey, BIT(RS_SA_ATTR_PKEY_RECORD))
RID_GETTER(get_rid_vlarb, BIT(RS_SA_ATTR_VLARB_RECORD))

static const struct rs_value_string sa_attrs[] = {
    {0x0001, "ClassPortInfo"},
    {0x0002, "Notice"},
    {0x0003, "InformInfo"},
    {0x0011, "NodeRecord"},
    {0x0012, "PortInfoRecord"},
    {0x0013, "SLtoVLMappingTableRecord"},
    {0x0014, "SwitchInfoRecord"},
    {0x0015, "LinearForwardingTableRecord"},
    {0x0016, "RandomForwardingTableRecord"},
    {0x0017, "MulticastForwardingTableRecord"},
    {0x0018, "SMInfoRecord"},
    {0x0019, "LinkSpeedWidthPairsTableRecord"},
    {0x00f3, "InformInfoRecord"},
    {0x0020, "LinkRecord"},
    {0x0030, "GuidInfoRecord"},
    {0x0031, "ServiceRecord"},
    {0x0033, "P_KeyTableRecord"},
    {RS_SA_ATTR_PATH_RECORD, "PathRecord"},
    {0x0036, "VLArbitrationTableRecord"},
    {RS_SA_ATTR_MCMEMBER_RECORD, "MCMemberRecord"},
    {0x0039, "TraceRecord"},
    {0x003a, "MultiPathRecord"},
    {0x003b, "ServiceAssociationRecord"},
    {0, NULL},
};

const char *
sa_attr_name(uint16_t attr)
{
    return rs_value_name(sa_attrs, attr);
}

/* Where the item of a record we decode lies in the SA data, as Wireshark
 * spans it (after the record's identifying GIDs, for an MCMemberRecord);
 * false for the other attributes. */
static bool
record_item(uint16_t attr, uint32_t *off, uint32_t *len)
{
    *len = 64;
    switch (attr) {
    case RS_SA_ATTR_PATH_RECORD:
        *off = 0;
        return true;
    case RS_SA_ATTR_MCMEMBER_RECORD:
        *off = 32;
        return true;
    default:
        return false;
    }
}

/* Wireshark names the SA's items (the whole MAD, its data, the record) with one field,
 * infiniband.sa.drdlid: three entries of that name, each its own item of the tree. */
static bool
sa_item(const struct rs_packet *pkt, unsigned occ, unsigned which, struct rs_value *out)
{
    static const struct mad_ctx sa = {SA, SA, MAD_ANY_ATTR};
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);
    uint32_t rec_off, rec_len;

    if (mad == NULL || occ != 0 || !mad_matches(mad, &sa))
        return false;
    switch (which) {
    case 0:
        return mad_bytes(pkt, 0, RS_MAD_LEN, out);
    case 1:
        return mad_bytes(pkt, DATA, RS_MAD_LEN - DATA, out);
    default:
        return record_item(rs_load_be16(mad + 16), &rec_off, &rec_len) &&
               mad_bytes(pkt, DATA + rec_off, rec_len, out);
    }
}

#define SA_ITEM_GETTER(fn, which)                                                           \
    static bool fn(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,     \
                   struct rs_value *out)                                                    \
    {                                                                                       \
        (void)f;                                                                            \
        return sa_item(pkt, occ, which, out);                                               \
    }
SA_ITEM_GETTER(get_sa_mad_item, 0)      /* "SA SubnAdmGetResp(PathRecord)" */
SA_ITEM_GETTER(get_sa_attr_item, 1)     /* "Attribute (PathRecord)" */
SA_ITEM_GETTER(get_sa_record_item, 2)   /* "PathRecord" */

/* The items' lines: the SA with its method and attribute, the attribute, the record. */
static size_t
label_sa_item(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
              char *buf, size_t size)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);
    char info[96];
    int n = 0;

    (void)v;
    if (mad == NULL)
        return 0;
    const char *attr = sa_attr_name(rs_load_be16(mad + 16));
    if (f->get == get_sa_mad_item && rs_mad_info(mad, len, info, sizeof(info)))
        n = snprintf(buf, size, "SA %s", info);
    else if (f->get == get_sa_attr_item && attr != NULL)
        n = snprintf(buf, size, "Attribute (%s)", attr);
    else if (f->get == get_sa_record_item && attr != NULL)
        n = snprintf(buf, size, "%s", attr);
    return n > 0 ? (size_t)n : 0;
}

/* ---- ClassPortInfo, at the start of its class's data ---- */

#define CPI_RESERVED 32
#define CPI_TRAP_HL 64
#define CPI_LEN 72         /* its bytes (13.4.8.1) */

static bool get_classportinfo(const struct rs_packet *pkt, const struct rs_field *f,
                              unsigned occ, struct rs_value *out);

bool
mad_field_relative(const struct rs_field *f)
{
    return f->get == get_classportinfo || smp_field_attr(f, NULL);
}

uint32_t
mad_field_base(const struct rs_field *f, const uint8_t *mad)
{
    uint16_t attr;

    if (smp_field_attr(f, &attr))
        return smp_attr_at(mad, attr);
    if (!mad_field_relative(f))
        return 0;
    return mad[1] == SA ? DATA : mad[1] == RS_MAD_CLASS_PERF ? 64 : UINT32_MAX;
}

bool
mad_field_locate(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 uint32_t *offset, uint32_t *length)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);
    uint32_t at = UINT32_MAX;

    if (mad == NULL || !mad_field_relative(f))
        return false;
    if (smp_field_attr(f, NULL))
        at = smp_field_at(f, occ, mad, len);
    else if (occ == 0 && (at = mad_field_base(f, mad)) != UINT32_MAX)
        at += f->offset;
    /* Not carried here: no bytes, rather than the field's offset from the MAD's start. */
    bool here = at != UINT32_MAX && at + f->width <= len;
    *offset = here ? pkt->span[RS_LAYER_PAYLOAD].off + at : 0;
    *length = here ? f->width : 0;
    return true;
}

static bool
get_classportinfo(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                  struct rs_value *out)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);

    if (mad == NULL || rs_load_be16(mad + 16) != RS_MAD_ATTR_CLASS_PORT_INFO)
        return false;
    uint32_t base = mad_field_base(f, mad);
    if (base == UINT32_MAX)
        return false;
    /* Wireshark's ClassPortInfo item is the PerfMgt's alone. */
    if (f->type == RS_FT_NONE)
        return occ == 0 && mad[1] == RS_MAD_CLASS_PERF && mad_bytes(pkt, base, CPI_LEN, out) &&
               rs_value_set_uint(out, RS_FT_NONE, 0);
    struct rs_field at = *f;
    at.offset = (uint16_t)(at.offset + base);
    return occ == 0 && rs_field_get_generic(pkt, &at, 0, out);
}

#define X(abbrev, name, off, width, mask, getter) MAD_X(abbrev, name, off, width, mask, getter)
#define RID_RESERVED(off, width, getter) \
    MAD_F("infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, off, width, getter, 2)
#define PR(field, name, off, width, mask) \
    X("infiniband.pathrecord." field, name, DATA + (off), width, mask, get_path)
#define MC(field, name, off, width, mask) \
    X("infiniband.mcmemberrecord." field, name, DATA + (off), width, mask, get_mcmember)
/* A value and the selector in the top two bits of its byte (IBTA 15.2.5.16: greater,
 * less, exactly or the best available). */
#define SELECTED(record, field, name, off) \
    record(field "selector", name "Selector", off, 1, 0xc0), record(field, name, off, 1, 0x3f)
#define GID(abbrev, name, off, getter) \
    MAD_F(abbrev, name, RS_FT_IPV6, RS_BASE_NONE, 0, off, 16, getter, 2)
/* At depth 1, beside their item in a PerfMgt MAD as tshark puts them (under InfiniBand, the
 * item holding none), under the attribute's item in an SA MAD (sa_field_nest). */
#define CPI_F(field, name, type, base, off, width, mask)                                     \
    MAD_F("infiniband.classportinfo." field, name, type, base, mask, off, width,             \
          get_classportinfo, 1)
#define CPI(field, name, off, width, mask) \
    CPI_F(field, name, MAD_UTYPE(width), RS_BASE_HEX, off, width, mask)

/* An item named infiniband.sa.drdlid, as Wireshark names each. */
#define SA_ITEM(name, getter)                                                                \
    {"infiniband.sa.drdlid", name, RS_FT_BYTES, RS_BASE_NONE, 0, NULL, name, RS_LAYER_PAYLOAD,  \
     0, 0, getter, 1, 0, .label = label_sa_item, .locate = mad_field_locate,                   \
     .nest = mad_field_nest}

/* The SA header and the records' IDs, which Wireshark's tree shows before the SMP
 * attribute a record embeds: registered ahead of ib_smp.c's tables. */
const struct rs_field rs_fields_ib_sa_head[] = {
    SA_ITEM("SA Packet (Subnet Administration)", get_sa_mad_item),
    X("infiniband.sa.smkey", "SM_Key (Verification Key)", 36, 8, 0, get_sa),
    X("infiniband.sa.attributeoffset", "Attribute Offset", 44, 2, 0, get_sa),
    MAD_F("infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, 46, 2, get_sa, 2),
    X("infiniband.sa.componentmask", "Component Mask", 48, 8, 0, get_sa),
    SA_ITEM("SA Packet (Subnet Administration)", get_sa_attr_item),
    /* The records' IDs (15.2.5.2-15.2.5.9, 15.2.5.11, 15.2.5.13, 15.2.5.18) */
    X("infiniband.sa.lid", "LID", DATA, 2, 0, get_rid_lid),
    X("infiniband.sa.endportlid", "EndportLID", DATA, 2, 0, get_rid_portinfo),
    X("infiniband.sa.portnum", "PortNum", DATA + 2, 1, 0, get_rid_portinfo),
    X("infiniband.sa.inputportnum", "InputPortNum", DATA + 2, 1, 0, get_rid_sltovl),
    X("infiniband.sa.outputportnum", "OutputPortNum", DATA + 3, 1, 0, get_rid_sltovl),
    X("infiniband.sa.outputportnum", "OutputPortNum", DATA + 2, 1, 0, get_rid_vlarb),
    X("infiniband.sa.blocknum_eightbit", "BlockNum_EightBit", DATA + 3, 1, 0, get_rid_vlarb),
    X("infiniband.sa.blocknum_eightbit", "BlockNum_EightBit", DATA + 2, 1, 0,
      get_rid_guidinfo),
    X("infiniband.sa.blocknum_sixteenbit", "BlockNum_SixteenBit", DATA + 2, 2, 0,
      get_rid_block16),
    X("infiniband.sa.portnum", "PortNum", DATA + 4, 1, 0, get_rid_pkey),
    X("infiniband.sa.position", "Position", DATA + 2, 1, 0xf0, get_rid_mft),
    X("infiniband.sa.blocknum_ninebit", "BlockNum_NineBit", DATA + 2, 2, 0x1ff, get_rid_mft),
    /* the reserved bytes that end the IDs, after them all (one record a packet) */
    RID_RESERVED(DATA + 2, 2, get_rid_reserved2),
    RID_RESERVED(DATA + 4, 4, get_rid_reserved4),
    RID_RESERVED(DATA + 5, 3, get_rid_pkey),
    RID_RESERVED(DATA + 3, 1, get_rid_portinfo),
    RS_F_END,
};

const struct rs_field rs_fields_ib_sa[] = {
    /* the item of a record that has one (record_item), around its fields */
    SA_ITEM("SA Packet (Subnet Administration)", get_sa_record_item),
    /* PathRecord (15.2.5.16); its first eight bytes are reserved */
    MAD_F("infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, DATA, 8, get_path, 2),
    GID("infiniband.pathrecord.dgid", "DGID", DATA + 8, get_path),
    GID("infiniband.pathrecord.sgid", "SGID", DATA + 24, get_path),
    PR("dlid", "DLID", 40, 2, 0),
    PR("slid", "SLID", 42, 2, 0),
    PR("rawtraffic", "RawTraffic", 44, 1, 0x80),
    PR("flowlabel", "FlowLabel", 44, 3, 0xfffff),
    PR("hoplimit", "HopLimit", 47, 1, 0),
    PR("tclass", "TClass", 48, 1, 0),
    PR("reversible", "Reversible", 49, 1, 0x80),
    PR("numbpath", "NumbPath", 49, 1, 0x7f),
    PR("p_key", "P_Key", 50, 2, 0),
    PR("sl", "SL", 52, 2, 0x000f),
    SELECTED(PR, "mtu", "MTU", 54),
    SELECTED(PR, "rate", "Rate", 55),
    SELECTED(PR, "packetlifetime", "PacketLifeTime", 56),
    PR("preference", "Preference", 57, 1, 0),
    /* MCMemberRecord (15.2.5.17) */
    GID("infiniband.mcmemberrecord.mgid", "MGID", DATA + 0, get_mcmember),
    GID("infiniband.mcmemberrecord.portgid", "PortGID", DATA + 16, get_mcmember),
    MC("q_key", "Q_Key", 32, 4, 0),
    MC("mlid", "MLID", 36, 2, 0),
    SELECTED(MC, "mtu", "MTU", 38),
    MC("tclass", "TClass", 39, 1, 0),
    MC("p_key", "P_Key", 40, 2, 0),
    SELECTED(MC, "rate", "Rate", 42),
    SELECTED(MC, "packetlifetime", "PacketLifeTime", 43),
    MC("sl", "SL", 44, 1, 0xf0),
    MC("flowlabel", "FlowLabel", 44, 3, 0xfffff),
    MC("hoplimit", "HopLimit", 47, 1, 0),
    MC("scope", "Scope", 48, 1, 0xf0),
    MC("joinstate", "JoinState", 48, 1, 0x0f),
    MC("proxyjoin", "ProxyJoin", 49, 1, 0x80),
    /* ClassPortInfo (13.4.8.1), named as Wireshark names its fields (in the trees too) */
    {"infiniband.classportinfo", "ClassPortInfo (Performance Management MAD)", RS_FT_NONE,
     RS_BASE_NONE, 0, NULL, "ClassPortInfo", RS_LAYER_PAYLOAD, 0, CPI_LEN, get_classportinfo,
     1, 0, .locate = mad_field_locate},
    CPI("baseversion", "BaseVersion", 0, 1, 0),
    CPI("classversion", "ClassVersion", 1, 1, 0),
    CPI("capabilitymask", "CapabilityMask", 2, 2, 0),
    CPI("capabilitymask2", "CapabilityMask2", 4, 4, 0xffffffe0),
    CPI("resptimevalue", "RespTimeValue", 7, 1, 0x1f),
    CPI_F("redirectgid", "RedirectGID", RS_FT_IPV6, RS_BASE_NONE, 8, 16, 0),
    CPI("redirecttc", "RedirectTC", 24, 1, 0),
    CPI("redirectsl", "RedirectSL", 25, 1, 0xf0),
    CPI("redirectfl", "RedirectFL", 25, 3, 0xfffff),
    CPI("redirectlid", "RedirectLID", 28, 2, 0),
    CPI("redirectpkey", "RedirectP_Key", 30, 2, 0),
    CPI("reserved", "Reserved", CPI_RESERVED, 1, 0),
    CPI("redirectqp", "RedirectQP", 33, 3, 0),
    CPI("redirectqkey", "RedirectQ_Key", 36, 4, 0),
    CPI_F("trapgid", "TrapGID", RS_FT_IPV6, RS_BASE_NONE, 40, 16, 0),
    CPI("traptc", "TrapTC", 56, 1, 0),
    CPI("trapsl", "TrapSL", 57, 1, 0xf0),
    CPI("trapfl", "TrapFL", 57, 3, 0xfffff),
    CPI("traplid", "TrapLID", 60, 2, 0),
    CPI("trappkey", "TrapP_Key", 62, 2, 0),
    /* Wireshark names IBTA's TrapHL reserved too: the field's second occurrence, in place */
    CPI("reserved", "Reserved", CPI_TRAP_HL, 1, 0),
    CPI("trapqp", "TrapQP", 65, 3, 0),
    CPI("trapqkey", "TrapQ_Key", 68, 4, 0),
    RS_F_END,
};

unsigned
sa_field_nest(const uint8_t *mad, const struct rs_field *f)
{
    uint32_t off, len;
    bool head = f >= rs_fields_ib_sa_head &&
                f < rs_fields_ib_sa_head + RS_ARRAY_SIZE(rs_fields_ib_sa_head);
    bool record = f >= rs_fields_ib_sa && f < rs_fields_ib_sa + RS_ARRAY_SIZE(rs_fields_ib_sa);

    if (f->get == get_sa_mad_item || f->get == get_sa || (!head && !record))
        return 0;
    if (f->get == get_sa_attr_item || head)
        return 1;       /* the attribute's item, and the records' IDs under it */
    if (f->get == get_sa_record_item || f->get == get_classportinfo)
        return 2;
    return record_item(rs_load_be16(mad + 16), &off, &len) ? 2 : 1;
}
