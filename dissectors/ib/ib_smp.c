/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_smp.c - subnet management packets (IBTA Vol 1, 14.2): the LID-routed
 * and directed-route SMP headers and the attributes NodeInfo, SwitchInfo,
 * GUIDInfo, PortInfo and SMInfo, as field tables (offsets from the MAD's
 * first byte).
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
 * is the 15 bits below it (docs/wireshark-differences.md).
 */
#include <roceshark/common.h>

#include "ib/ib_mad_int.h"

#define SMP_LID RS_MAD_CLASS_SMP_LID
#define SMP_DR RS_MAD_CLASS_SMP_DR
#define DATA 64     /* where the attribute starts */

MAD_GETTER(get_smp, SMP_LID, SMP_DR, MAD_ANY_ATTR)
MAD_GETTER(get_smp_lid, SMP_LID, SMP_LID, MAD_ANY_ATTR)
MAD_GETTER(get_smp_dr, SMP_DR, SMP_DR, MAD_ANY_ATTR)
MAD_GETTER(get_nodeinfo, SMP_LID, SMP_DR, RS_SMP_ATTR_NODE_INFO)
MAD_GETTER(get_switchinfo, SMP_LID, SMP_DR, RS_SMP_ATTR_SWITCH_INFO)
MAD_GETTER(get_portinfo, SMP_LID, SMP_DR, RS_SMP_ATTR_PORT_INFO)
MAD_GETTER(get_sminfo, SMP_LID, SMP_DR, RS_SMP_ATTR_SM_INFO)

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
    {0x0017, "SLtoVLMapptingTable"},    /* sic, as Wireshark spells it */
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

/* Of the attributes decoded, Wireshark 4.0 gives only SMInfo a second
 * SMP-data item of its own around its fields. */
static bool
attr_has_own_item(uint16_t attr)
{
    return attr == RS_SMP_ATTR_SM_INFO;
}

/* Wireshark's item for a MAD's data: in an SMP the 64 bytes of the attribute,
 * once as the attribute and again as the decoded attribute's own item; in
 * the classes it does not decode (and the CM, whose messages it puts under
 * the same item) the 232 bytes after the common header. */
static bool
get_smpdata(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    size_t len;
    const uint8_t *mad = rs_mad_of(pkt, &len);

    (void)f;
    if (mad == NULL)
        return false;
    uint16_t attr = rs_load_be16(mad + 16);
    switch (mad[1]) {
    case SMP_LID:
    case SMP_DR:
        return occ <= (attr_has_own_item(attr) ? 1u : 0u) && mad_bytes(pkt, DATA, 64, out);
    case RS_MAD_CLASS_PERF:
        if (attr == RS_MAD_ATTR_CLASS_PORT_INFO || attr == RS_PERF_ATTR_PORT_COUNTERS ||
            attr == RS_PERF_ATTR_PORT_COUNTERS_EXT)
            return false;
        /* fall through */
    case RS_MAD_CLASS_CM:
    case 0x05:      /* baseboard management */
    case 0x06:      /* device management */
        return occ == 0 && mad_bytes(pkt, RS_MAD_HDR_LEN, RS_MAD_LEN - RS_MAD_HDR_LEN, out);
    default:
        return false;
    }
}

/* GUIDInfo: a block of eight GUIDs, one occurrence each. */
static bool
get_guidinfo(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
             struct rs_value *out)
{
    static const struct mad_ctx guids = {SMP_LID, SMP_DR, RS_SMP_ATTR_GUID_INFO};
    size_t len;
    const uint8_t *mad = rs_mad_of(pkt, &len);

    if (mad == NULL || occ >= 8 || !mad_matches(mad, &guids) || f->offset + 8 * (occ + 1) > len)
        return false;
    return rs_value_set_uint(out, f->type, rs_load_be64(mad + f->offset + 8 * occ));
}

#define X(abbrev, name, off, width, mask, getter) MAD_X(abbrev, name, off, width, mask, getter)
#define PI(field, name, off, width, mask) \
    X("infiniband.portinfo." field, name, DATA + (off), width, mask, get_portinfo)
#define CAP(field, name, bit) \
    X("infiniband.portinfo.capabilitymask." field, name, DATA + 20, 4, 1u << (bit), get_portinfo)

const struct rs_field rs_fields_ib_smp[] = {
    MAD_H("infiniband.smplid", "Subnet Management Packet (LID Routed)", 0, 0, get_smp_lid, 1),
    MAD_H("infiniband.smpdirected", "Subnet Management Packet (Directed Route)", 0, 0,
          get_smp_dr, 1),
    MAD_F("infiniband.smpdirected.d", "D (Direction Bit)", RS_FT_UINT64, RS_BASE_HEX, 0x8000, 4,
          2, get_smp_dr, 2),
    X("infiniband.smpdirected.smpstatus", "Status", 4, 2, 0x7fff, get_smp_dr),
    X("infiniband.smpdirected.hoppointer", "Hop Pointer", 6, 1, 0, get_smp_dr),
    X("infiniband.smpdirected.hopcount", "Hop Count", 7, 1, 0, get_smp_dr),
    X("infiniband.smplid.mkey", "M_Key", 24, 8, 0, get_smp),
    X("infiniband.smpdirected.drslid", "DrSLID", 32, 2, 0, get_smp_dr),
    X("infiniband.smpdirected.drdlid", "DrDLID", 34, 2, 0, get_smp_dr),
    {"infiniband.smplid.smpdata", "SMP Data", RS_FT_BYTES, RS_BASE_NONE, 0, NULL, "SMP Data",
     RS_LAYER_PAYLOAD, DATA, 64, get_smpdata, 1, 0, .label = cm_data_label},
    /* NodeInfo (14.2.5.3) */
    X("infiniband.nodeinfo.baseversion", "BaseVersion", DATA + 0, 1, 0, get_nodeinfo),
    X("infiniband.nodeinfo.classversion", "ClassVersion", DATA + 1, 1, 0, get_nodeinfo),
    X("infiniband.nodeinfo.nodetype", "NodeType", DATA + 2, 1, 0, get_nodeinfo),
    X("infiniband.nodeinfo.numports", "NumPorts", DATA + 3, 1, 0, get_nodeinfo),
    X("infiniband.nodeinfo.systemimageguid", "SystemImageGUID", DATA + 4, 8, 0, get_nodeinfo),
    X("infiniband.nodeinfo.nodeguid", "NodeGUID", DATA + 12, 8, 0, get_nodeinfo),
    X("infiniband.nodeinfo.portguid", "PortGUID", DATA + 20, 8, 0, get_nodeinfo),
    X("infiniband.nodeinfo.partitioncap", "PartitionCap", DATA + 28, 2, 0, get_nodeinfo),
    X("infiniband.nodeinfo.deviceid", "DeviceID", DATA + 30, 2, 0, get_nodeinfo),
    X("infiniband.nodeinfo.revision", "Revision", DATA + 32, 4, 0, get_nodeinfo),
    X("infiniband.nodeinfo.localportnum", "LocalPortNum", DATA + 36, 1, 0, get_nodeinfo),
    X("infiniband.nodeinfo.vendorid", "VendorID", DATA + 37, 3, 0, get_nodeinfo),
    /* SwitchInfo (14.2.5.4) */
    X("infiniband.switchinfo.linearfdbcap", "LinearFDBCap", DATA + 0, 2, 0, get_switchinfo),
    X("infiniband.switchinfo.randomfdbcap", "RandomFDBCap", DATA + 2, 2, 0, get_switchinfo),
    X("infiniband.switchinfo.multicastfdbcap", "MulticastFDBCap", DATA + 4, 2, 0,
      get_switchinfo),
    X("infiniband.switchinfo.linearfdbtop", "LinearFDBTop", DATA + 6, 2, 0, get_switchinfo),
    X("infiniband.switchinfo.defaultport", "DefaultPort", DATA + 8, 1, 0, get_switchinfo),
    X("infiniband.switchinfo.defaultmulticastprimaryport", "DefaultMulticastPrimaryPort",
      DATA + 9, 1, 0, get_switchinfo),
    X("infiniband.switchinfo.defaultmulticastnotprimaryport", "DefaultMulticastNotPrimaryPort",
      DATA + 10, 1, 0, get_switchinfo),
    X("infiniband.switchinfo.lifetimevalue", "LifeTimeValue", DATA + 11, 1, 0xf8,
      get_switchinfo),
    X("infiniband.switchinfo.portstatechange", "PortStateChange", DATA + 11, 1, 0x04,
      get_switchinfo),
    X("infiniband.switchinfo.optimizedsltovlmappingprogramming",
      "OptimizedSLtoVLMappingProgramming", DATA + 11, 1, 0x03, get_switchinfo),
    X("infiniband.switchinfo.lidsperport", "LIDsPerPort", DATA + 12, 2, 0, get_switchinfo),
    X("infiniband.switchinfo.partitionenforcementcap", "PartitionEnforcementCap", DATA + 14, 2,
      0, get_switchinfo),
    X("infiniband.switchinfo.inboundenforcementcap", "InboundEnforcementCap", DATA + 16, 1,
      0x80, get_switchinfo),
    X("infiniband.switchinfo.outboundenforcementcap", "OutboundEnforcementCap", DATA + 16, 1,
      0x40, get_switchinfo),
    X("infiniband.switchinfo.filterrawinboundcap", "FilterRawInboundCap", DATA + 16, 1, 0x20,
      get_switchinfo),
    X("infiniband.switchinfo.filterrawoutboundcap", "FilterRawOutboundCap", DATA + 16, 1, 0x10,
      get_switchinfo),
    X("infiniband.switchinfo.enhancedportzero", "EnhancedPortZero", DATA + 16, 1, 0x08,
      get_switchinfo),
    /* GUIDInfo (14.2.5.5): Wireshark files its GUIDs under switchinfo. */
    X("infiniband.switchinfo.guid", "GUID", DATA, 8, 0, get_guidinfo),
    /* PortInfo (14.2.5.6) */
    PI("m_key", "M_Key", 0, 8, 0),
    PI("guid", "GidPrefix", 8, 8, 0),
    PI("lid", "LID", 16, 2, 0),
    PI("mastersmlid", "MasterSMLID", 18, 2, 0),
    PI("capabilitymask", "CapabilityMask", 20, 4, 0),
    CAP("issm", "IsSM", 1),
    CAP("noticesupported", "IsNoticeSupported", 2),
    CAP("trapsupported", "IsTrapSupported", 3),
    CAP("optionalipdsupported", "IsOptionalIPDSupported", 4),
    CAP("automaticmigrationsupported", "IsAutomaticMigrationSupported", 5),
    CAP("slmappingsupported", "IsSLMappingSupported", 6),
    CAP("mkeynvram", "IsMKeyNVRAM", 7),
    CAP("pkeynvram", "IsPKeyNVRAM", 8),
    CAP("ledinfosupported", "IsLedInfoSupported", 9),
    CAP("smdisabled", "IsSMdisabled", 10),
    CAP("systemimageguidsupported", "IsSystemImageGUIDSupported", 11),
    CAP("pkeyswitchexternalporttrapsupported", "IsPKeySwitchExternalPortTrapSupported", 12),
    CAP("communicationmanagementsupported", "IsCommunicationManagementSupported", 16),
    CAP("snmptunnelingsupported", "IsSNMPTunnelingSupported", 17),
    CAP("reinitsupported", "IsReinitSupported", 18),
    CAP("devicemanagementsupported", "IsDeviceManagementSupported", 19),
    CAP("vendorclasssupported", "IsVendorClassSupported", 20),
    CAP("drnoticesupported", "IsDRNoticeSupported", 21),
    CAP("capabilitymasknoticesupported", "IsCapabilityMaskNoticeSupported", 22),
    CAP("bootmanagementsupported", "IsBootManagementSupported", 23),
    CAP("linkroundtriplatencysupported", "IsLinkRoundTripLatencySupported", 24),
    CAP("clientregistrationsupported", "IsClientRegistrationSupported", 25),
    CAP("otherlocalchangesnoticesupported", "IsOtherLocalChangesNoticeSupported", 26),
    CAP("linkspeedwidthpairstablesupported", "IsLinkSpeedWidthPairsTableSupported", 27),
    PI("diagcode", "DiagCode", 24, 2, 0),
    PI("m_keyleaseperiod", "M_KeyLeasePeriod", 26, 2, 0),
    PI("localportnum", "LocalPortNum", 28, 1, 0),
    PI("linkwidthenabled", "LinkWidthEnabled", 29, 1, 0),
    PI("linkwidthsupported", "LinkWidthSupported", 30, 1, 0),
    PI("linkwidthactive", "LinkWidthActive", 31, 1, 0),
    PI("linkspeedsupported", "LinkSpeedSupported", 32, 1, 0xf0),
    PI("portstate", "PortState", 32, 1, 0x0f),
    PI("portphysicalstate", "PortPhysicalState", 33, 1, 0xf0),
    PI("linkdowndefaultstate", "LinkDownDefaultState", 33, 1, 0x0f),
    PI("m_keyprotectbits", "M_KeyProtectBits", 34, 1, 0xc0),
    PI("lmc", "LMC", 34, 1, 0x07),
    PI("linkspeedactive", "LinkSpeedActive", 35, 1, 0xf0),
    PI("linkspeedenabled", "LinkSpeedEnabled", 35, 1, 0x0f),
    PI("neighbormtu", "NeighborMTU", 36, 1, 0xf0),
    PI("mastersmsl", "MasterSMSL", 36, 1, 0x0f),
    PI("vlcap", "VLCap", 37, 1, 0xf0),
    PI("inittype", "InitType", 37, 1, 0x0f),
    PI("vlhighlimit", "VLHighLimit", 38, 1, 0),
    PI("vlarbitrationhighcap", "VLArbitrationHighCap", 39, 1, 0),
    PI("vlarbitrationlowcap", "VLArbitrationLowCap", 40, 1, 0),
    PI("inittypereply", "InitTypeReply", 41, 1, 0xf0),
    PI("mtucap", "MTUCap", 41, 1, 0x0f),
    PI("vlstallcount", "VLStallCount", 42, 1, 0xe0),
    PI("hoqlife", "HOQLife", 42, 1, 0x1f),
    PI("operationalvls", "OperationalVLs", 43, 1, 0xf0),
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
    X("infiniband.sminfo.guid", "GUID", DATA + 0, 8, 0, get_sminfo),
    X("infiniband.sminfo.sm_key", "SM_Key", DATA + 8, 8, 0, get_sminfo),
    X("infiniband.sminfo.actcount", "ActCount", DATA + 16, 4, 0, get_sminfo),
    X("infiniband.sminfo.priority", "Priority", DATA + 20, 1, 0xf0, get_sminfo),
    X("infiniband.sminfo.smstate", "SMState", DATA + 20, 1, 0x0f, get_sminfo),
    MAD_F("infiniband.smpdirected.initialpath", "Initial Path", RS_FT_BYTES, RS_BASE_NONE, 0,
          128, 64, get_smp_dr, 2),
    MAD_F("infiniband.smpdirected.returnpath", "Return Path", RS_FT_BYTES, RS_BASE_NONE, 0, 192,
          64, get_smp_dr, 2),
    RS_F_END,
};
