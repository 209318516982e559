/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_perf.c - performance management (IBTA Vol 1, 16.1): PortCounters and
 * PortCountersExtended as field tables (offsets from the MAD's first byte).
 *
 *    0 common MAD header (24)
 *   24 reserved (320)
 *   64 PerfMgt data: the attribute (192 bytes)
 *
 * ClassPortInfo, which PerfMgt answers too, is in ib_sa.c.
 */
#include <roceshark/dissectors/common.h>

#include "ib/ib_mad_int.h"

#define PERF RS_MAD_CLASS_PERF
#define DATA 64

MAD_GETTER(get_counters, PERF, PERF, RS_PERF_ATTR_PORT_COUNTERS)
MAD_GETTER(get_counters_ext, PERF, PERF, RS_PERF_ATTR_PORT_COUNTERS_EXT)

static const struct rs_value_string perf_attrs[] = {
    {RS_MAD_ATTR_CLASS_PORT_INFO, "ClassPortInfo"},
    {RS_PERF_ATTR_PORT_COUNTERS, "PortCounters"},
    {RS_PERF_ATTR_PORT_COUNTERS_EXT, "PortCountersExtended"},
    {0, NULL},
};

const char *
perf_attr_name(uint16_t attr)
{
    return rs_value_name(perf_attrs, attr);
}

/* Wireshark shows the counters in decimal, the selectors in hex. */
#define PC(field, name, off, width, mask)                                                  \
    MAD_F("infiniband.portcounters." field, name, MAD_UTYPE(width), RS_BASE_DEC, mask,     \
          DATA + (off), width, get_counters, 2)
#define PC_BITS(field, name, off, mask)                                                    \
    {"infiniband.portcounters." field, name, RS_FT_UINT8, RS_BASE_DEC, mask, NULL, name,    \
     RS_LAYER_PAYLOAD, DATA + (off), 1, get_counters, 2, RS_FIELD_BITS,                    \
     .locate = mad_field_locate, .nest = mad_field_nest}
#define PX(field, name, off)                                                               \
    MAD_F("infiniband.portcounters_ext." field, name, RS_FT_UINT64, RS_BASE_DEC, 0,        \
          DATA + (off), 8, get_counters_ext, 2)
/* Reserved bytes, as Wireshark shows them under the attribute's item: the MAD's 40 between
 * its header and the data (16.1.1), then the attribute's own (data offsets). */
#define MAD_RESERVED(getter)                                                               \
    MAD_F("infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, 24, 40, getter, 2)
#define RESERVED(off, width, getter)                                                       \
    MAD_F("infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, DATA + (off),   \
          width, getter, 2)
#define NODE(abbrev, name, getter)                                                         \
    {abbrev, name, RS_FT_NONE, RS_BASE_NONE, 0, NULL, name, RS_LAYER_PAYLOAD, DATA, 0,     \
     getter, 1, 0}

const struct rs_field rs_fields_ib_perf[] = {
    /* PortCounters (16.1.3.5) */
    NODE("infiniband.portcounters", "Port Counters (Performance Management MAD)", get_counters),
    MAD_RESERVED(get_counters),
    RESERVED(0, 1, get_counters),
    MAD_X("infiniband.portcounters.portselect", "PortSelect", DATA + 1, 1, 0, get_counters),
    MAD_X("infiniband.portcounters.counterselect", "CounterSelect", DATA + 2, 2, 0,
          get_counters),
    PC("symbolerrorcounter", "SymbolErrorCounter", 4, 2, 0),
    PC("linkerrorrecoverycounter", "LinkErrorRecoveryCounter", 6, 1, 0),
    PC("linkdownedcounter", "LinkDownedCounter", 7, 1, 0),
    PC("portrcverrors", "PortRcvErrors", 8, 2, 0),
    PC("portrcvremotephysicalerrors", "PortRcvRemotePhysicalErrors", 10, 2, 0),
    PC("portrcvswitchrelayerrors", "PortRcvSwitchRelayErrors", 12, 2, 0),
    PC("portxmitdiscards", "PortXmitDiscards", 14, 2, 0),
    PC("portxmitconstrainterrors", "PortXmitConstraintErrors", 16, 1, 0),
    PC("portrcvconstrainterrors", "PortRcvConstraintErrors", 17, 1, 0),
    RESERVED(18, 1, get_counters),
    /* two nibbles of one byte, which Wireshark adds as bits (no mask registered) */
    PC_BITS("locallinkintegrityerrors", "LocalLinkIntegrityErrors", 19, 0xf0),
    PC_BITS("excessivebufferoverrunerrors", "ExcessiveBufferOverrunErrors", 19, 0x0f),
    RESERVED(20, 2, get_counters),
    PC("vl15dropped", "VL15Dropped", 22, 2, 0),
    PC("portxmitdata", "PortXmitData", 24, 4, 0),
    PC("portrcvdata", "PortRcvData", 28, 4, 0),
    PC("portxmitpkts", "PortXmitPkts", 32, 4, 0),
    PC("portrcvpkts", "PortRcvPkts", 36, 4, 0),
    /* PortCountersExtended (16.1.4.11) */
    NODE("infiniband.portcounters_ext", "Port Counters Extended (Performance Management MAD)",
         get_counters_ext),
    MAD_RESERVED(get_counters_ext),
    RESERVED(0, 1, get_counters_ext),
    MAD_X("infiniband.portcounters_ext.portselect", "PortSelect", DATA + 1, 1, 0,
          get_counters_ext),
    MAD_X("infiniband.portcounters_ext.counterselect", "CounterSelect", DATA + 2, 2, 0,
          get_counters_ext),
    RESERVED(4, 4, get_counters_ext),
    PX("portxmitdata", "PortXmitData", 8),
    PX("portrcvdata", "PortRcvData", 16),
    PX("portxmitpkts", "PortXmitPkts", 24),
    PX("portrcvpkts", "PortRcvPkts", 32),
    PX("portunicastxmitpkts", "PortUnicastXmitPkts", 40),
    PX("portunicastrcvpkts", "PortUnicastRcvPkts", 48),
    PX("portmulticastxmitpkts", "PortMulticastXmitPkts", 56),
    PX("portmulticastrcvpkts", "PortMulticastRcvPkts", 64),
    RS_F_END,
};
