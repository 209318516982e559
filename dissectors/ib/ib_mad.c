/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_mad.c - the MAD common header and RMPP (IBTA Vol 1, 13.4.3 and 13.6.2),
 * the MAD a packet carries, the getters every MAD table shares, and the
 * builders that write MAD fields through the same tables.
 *
 *   MAD common header, 24 bytes:
 *    0 BaseVersion | MgmtClass | ClassVersion | R Method
 *    4 Status (16)             | ClassSpecific (16)
 *    8 TransactionID (64)
 *   16 AttributeID (16)        | Reserved (16)
 *   20 AttributeModifier (32)
 *   24 class-specific data (232 bytes)
 *
 *   RMPP header (classes that use it; here the SA), 12 bytes at 24:
 *   24 RMPPVersion | RMPPType | RRespTime (5) Flags (3) | RMPPStatus
 *   28 Data1: SegmentNumber (DATA, ACK)
 *   32 Data2: PayloadLength (DATA), NewWindowLast (ACK)
 *
 * Wireshark calls the 4-bit field after RRespTime "RMPP Flags" and reads
 * RRespTime as the top four bits; IBTA's RRespTime is five bits and the
 * flags three. We keep Wireshark's masks, so that the values agree, and
 * say so in docs/wireshark-differences.md.
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/common.h>

#include "ib/ib_mad_int.h"

#define UD_SEND_ONLY 0x64
#define UD_SEND_ONLY_IMM 0x65

bool
rs_mad_carried(const struct rs_packet *pkt)
{
    if (!rs_packet_has(pkt, RS_LAYER_BTH) || !rs_packet_has(pkt, RS_LAYER_DETH) ||
        !rs_packet_has(pkt, RS_LAYER_PAYLOAD))
        return false;
    if (pkt->opcode != UD_SEND_ONLY && pkt->opcode != UD_SEND_ONLY_IMM)
        return false;
    return rs_load_be24(rs_packet_at(pkt, RS_LAYER_BTH) + 5) <= 1;
}

const uint8_t *
rs_mad_of(const struct rs_packet *pkt, size_t *len)
{
    *len = 0;
    if (!rs_mad_carried(pkt) || pkt->span[RS_LAYER_PAYLOAD].len < RS_MAD_HDR_LEN)
        return NULL;
    *len = pkt->span[RS_LAYER_PAYLOAD].len;
    return rs_packet_at(pkt, RS_LAYER_PAYLOAD);
}

const uint8_t *
rs_mad_shown(const struct rs_packet *pkt, size_t *len)
{
    const uint8_t *mad = rs_mad_of(pkt, len);

    if (mad == NULL)
        return NULL;
    /* the bytes tshark's payload holds from the MAD on: to the last CRC there is */
    uint32_t end = pkt->frame->caplen;
    for (int l = RS_LAYER_ICRC; l <= RS_LAYER_VCRC; l++)
        if (rs_packet_has(pkt, (enum rs_layer)l))
            end = pkt->span[l].off + pkt->span[l].len;
    if (end - pkt->span[RS_LAYER_PAYLOAD].off < RS_MAD_LEN) {
        *len = 0;
        return NULL;
    }
    return mad;
}

bool
mad_matches(const uint8_t *mad, const struct mad_ctx *ctx)
{
    if (ctx->class_a != MAD_ANY_CLASS && mad[1] != ctx->class_a && mad[1] != ctx->class_b)
        return false;
    return ctx->attr == MAD_ANY_ATTR || rs_load_be16(mad + 16) == ctx->attr;
}

bool
mad_bytes(const struct rs_packet *pkt, uint32_t off, uint32_t len, struct rs_value *out)
{
    size_t have;
    const uint8_t *mad = rs_mad_shown(pkt, &have);

    if (mad == NULL || off + len > have)
        return false;
    out->type = RS_FT_BYTES;
    out->v.bytes.ptr = mad + off;
    out->v.bytes.len = len;
    return true;
}

bool
mad_field_get(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out, const struct mad_ctx *ctx)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);

    if (occ != 0 || mad == NULL || !mad_matches(mad, ctx))
        return false;
    if (f->type == RS_FT_BYTES && f->width == 0) {
        bool ok = mad_bytes(pkt, f->offset, RS_MAD_LEN - f->offset, out);
        out->type = f->type;
        return ok;
    }
    return rs_field_get_generic(pkt, f, occ, out);
}

/* ---- the common header ---- */

MAD_GETTER(get_mad, MAD_ANY_CLASS, 0, MAD_ANY_ATTR)

/* Wireshark's names for the common methods. */
static const struct rs_value_string method_vals[] = {
    {0x01, "Get()"},
    {0x02, "Set()"},
    {0x81, "GetResp()"},
    {0x03, "Send()"},
    {0x05, "Trap()"},
    {0x06, "Report()"},
    {0x86, "ReportResp()"},
    {0x07, "TrapRepress()"},
    {0x12, "GetTable()"},
    {0x92, "GetTableResp()"},
    {0x13, "GetTraceTable()"},
    {0x14, "GetMulti()"},
    {0x94, "GetMultiResp()"},
    {0x15, "Delete()"},
    {0x95, "DeleteResp()"},
    {0, NULL},
};

/* ---- RMPP: present in SA MADs, its data words named by the RMPP type ---- */

enum { RMPP_NONE, RMPP_DATA, RMPP_ACK, RMPP_STOP, RMPP_ABORT };

static bool
rmpp_get(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
         struct rs_value *out, unsigned types)
{
    static const struct mad_ctx sa = {RS_MAD_CLASS_SA, RS_MAD_CLASS_SA, MAD_ANY_ATTR};
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);

    if (mad == NULL || len < 26 || (types != 0 && (mad[25] > 7 || !((types >> mad[25]) & 1))))
        return false;
    return mad_field_get(pkt, f, occ, out, &sa);
}

#define RMPP_GETTER(fn, types)                                                              \
    static bool fn(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,     \
                   struct rs_value *out)                                                    \
    {                                                                                       \
        return rmpp_get(pkt, f, occ, out, types);                                           \
    }
RMPP_GETTER(get_rmpp, 0)
RMPP_GETTER(get_rmpp_none, 1u << RMPP_NONE)
RMPP_GETTER(get_rmpp_segment, 1u << RMPP_DATA | 1u << RMPP_ACK)
RMPP_GETTER(get_rmpp_data, 1u << RMPP_DATA)
RMPP_GETTER(get_rmpp_ack, 1u << RMPP_ACK)
RMPP_GETTER(get_rmpp_error, 1u << RMPP_STOP | 1u << RMPP_ABORT)

static const struct rs_value_string rmpp_type_vals[] = {
    {RMPP_NONE, "Not an RMPP Packet"},
    {RMPP_DATA, "DATA"},
    {RMPP_ACK, "ACK"},
    {RMPP_STOP, "STOP"},
    {RMPP_ABORT, "ABORT"},
    {0, NULL},
};

/* IBTA 13.6.2.1's statuses, as tshark 4.0 names them (its leading space too) */
static const struct rs_value_string rmpp_status_vals[] = {
    {0, " (Normal)"},
    {1, " (Resources Exhausted)"},
    {118, " (Total Time Too Long)"},
    {119, " (Inconsistent Last and PayloadLength)"},
    {120, " (Inconsistent First and Segment Number)"},
    {121, " (Bad RMPPType)"},
    {122, " (NewWindowLast Too Small)"},
    {123, " (SegmentNumber Too Big)"},
    {124, " (Illegal Status)"},
    {125, " (Unsupported Version)"},
    {126, " (Too Many Retries)"},
    {127, " (Unspecified - Unknown Error Code on ABORT)"},
    {0, NULL},
};

/* The RMPP header titled by its type, "RMPP (DATA)", as tshark's; by its name where it is
 * not an RMPP packet (tshark's " Not an RMPP Packet ": docs/wireshark-differences.md). */
static size_t
rmpp_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
           char *buf, size_t size)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);
    const char *type = mad != NULL ? rs_value_name(rmpp_type_vals, mad[25]) : NULL;

    (void)v;
    if (type == NULL || mad[25] == RMPP_NONE)
        return (size_t)snprintf(buf, size, "%s", f->name);
    return (size_t)snprintf(buf, size, "RMPP (%s)", type);
}

#define H(abbrev, name, off, width, getter) MAD_X(abbrev, name, off, width, 0, getter)

const struct rs_field rs_fields_ib_mad[] = {
    /* Wireshark's name, and its tree's text from rs_ib_header_label() */
    {"infiniband.mad", "MAD (Management Datagram) Common Header", RS_FT_BYTES, RS_BASE_NONE, 0,
     NULL, "MAD Header - Common Management Datagram", RS_LAYER_PAYLOAD, 0, 0, get_mad, 1,
     RS_FIELD_HEADER, .label = rs_ib_header_label},
    H("infiniband.mad.baseversion", "Base Version", 0, 1, get_mad),
    H("infiniband.mad.mgmtclass", "Management Class", 1, 1, get_mad),
    H("infiniband.mad.classversion", "Class Version", 2, 1, get_mad),
    MAD_FV("infiniband.mad.method", "Method", RS_FT_UINT8, RS_BASE_HEX, 0, method_vals, 3, 1,
           get_mad, 2),
    H("infiniband.mad.status", "Status", 4, 2, get_mad),
    H("infiniband.mad.classspecific", "Class Specific", 6, 2, get_mad),
    H("infiniband.mad.transactionid", "Transaction ID", 8, 8, get_mad),
    H("infiniband.mad.attributeid", "Attribute ID", 16, 2, get_mad),
    MAD_F("infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, 18, 2, get_mad, 2),
    H("infiniband.mad.attributemodifier", "Attribute Modifier", 20, 4, get_mad),
    MAD_F("infiniband.mad.data", "MAD Data Payload", RS_FT_BYTES, RS_BASE_NONE, 0, 24, 0,
          get_mad, 2),
    {"infiniband.rmpp", "RMPP (Reliable Multi-Packet Transaction Protocol)", RS_FT_BYTES,
     RS_BASE_NONE, 0, NULL, "RMPP (Reliable Multi-Packet Transaction Protocol)",
     RS_LAYER_PAYLOAD, 24, 12, get_rmpp, 1, RS_FIELD_HEADER, .label = rmpp_label},
    H("infiniband.rmpp.rmppversion", "RMPP Type", 24, 1, get_rmpp),    /* sic: Wireshark's name */
    H("infiniband.rmpp.rmpptype", "RMPP Type", 25, 1, get_rmpp),   /* named in the title */
    MAD_F("infiniband.rmpp.rresptime", "R Resp Time", RS_FT_UINT8, RS_BASE_HEX, 0xf0, 26, 1,
          get_rmpp, 2),
    MAD_F("infiniband.rmpp.rmppflags", "RMPP Flags", RS_FT_UINT8, RS_BASE_HEX, 0x0f, 26, 1,
          get_rmpp, 2),
    MAD_FV("infiniband.rmpp.rmppstatus", "RMPP Status", RS_FT_UINT8, RS_BASE_HEX, 0,
           rmpp_status_vals, 27, 1, get_rmpp, 2),
    H("infiniband.rmpp.data1", "RMPP Data 1", 28, 4, get_rmpp_none),
    H("infiniband.rmpp.data2", "RMPP Data 2", 32, 4, get_rmpp_none),
    H("infiniband.rmpp.segmentnumber", "Segment Number", 28, 4, get_rmpp_segment),
    H("infiniband.rmpp.payloadlength", "Payload Length", 32, 4, get_rmpp_data),
    MAD_F("infiniband.rmpp.transferreddata", "Transferred Data", RS_FT_BYTES, RS_BASE_NONE, 0,
          36, 220, get_rmpp_data, 2),
    H("infiniband.rmpp.newwindowlast", "New Window Last", 32, 4, get_rmpp_ack),
    /* an ACK's reserved rest, as tshark shows it */
    MAD_F("infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, 36, 220,
          get_rmpp_ack, 2),
    MAD_F("infiniband.rmpp.extendederrordata", "Optional Extended Error Data", RS_FT_BYTES,
          RS_BASE_NONE, 0, 36, 220, get_rmpp_error, 2),
    RS_F_END,
};

/* ---- building ---- */

void
rs_mad_start(uint8_t mad[RS_MAD_LEN], uint8_t mgmt_class, uint8_t class_version,
             uint8_t method, uint16_t attr, uint32_t attr_mod, uint64_t tid)
{
    memset(mad, 0, RS_MAD_LEN);
    mad[0] = 1;
    mad[1] = mgmt_class;
    mad[2] = class_version;
    mad[3] = method;
    rs_store_be64(mad + 8, tid);
    rs_store_be16(mad + 16, attr);
    rs_store_be32(mad + 20, attr_mod);
}

/* Wireshark's names of MAD fields, and ours of the CM messages it leaves undecoded. */
static bool
mad_name(const char *abbrev)
{
    return strncmp(abbrev, "infiniband.", 11) == 0 || strncmp(abbrev, "roceshark.cm.", 13) == 0;
}

/* The MAD field named abbrev: a field of the payload layer that one of the
 * MAD getters reads. */
static const struct rs_field *
mad_field(const char *abbrev)
{
    for (int id = rs_field_lookup(abbrev); id >= 0; id = rs_field_next_alias(id)) {
        const struct rs_field *f = rs_field_by_id(id);
        if (f->layer == RS_LAYER_PAYLOAD && f->get != NULL && mad_name(abbrev))
            return f;
    }
    return NULL;
}

bool
rs_mad_field_fixed(const struct rs_field *f)
{
    return f->layer == RS_LAYER_PAYLOAD && f->get != NULL && f->width != 0 &&
           mad_name(f->abbrev) && !mad_field_relative(f);
}

bool
rs_mad_field_placed(const struct rs_field *f)
{
    return f->layer == RS_LAYER_PAYLOAD && f->get != NULL && f->width != 0 &&
           mad_name(f->abbrev) && mad_field_relative(f);
}

/* Where f itself lies in mad, or UINT32_MAX: a trap's detail only for its trap numbers. */
static uint32_t
field_place(const struct rs_field *f, const uint8_t *mad, size_t len)
{
    if (smp_field_attr(f, NULL))
        return smp_field_at(f, 0, mad, len);
    uint32_t at = mad_field_base(f, mad);
    return at != UINT32_MAX && (at += f->offset) + f->width <= len ? at : UINT32_MAX;
}

long
rs_mad_field_at(const struct rs_field *f, const uint8_t *mad, size_t len)
{
    if (len < RS_MAD_HDR_LEN)
        return -1;
    /* A name can have several places (trap 129's LIDADDR is not trap 128's): the one
     * this MAD has. */
    for (int id = rs_field_lookup(f->abbrev); id >= 0; id = rs_field_next_alias(id)) {
        const struct rs_field *a = rs_field_by_id(id);
        uint32_t at;
        if (a->layer == RS_LAYER_PAYLOAD && a->get != NULL &&
            (at = field_place(a, mad, len)) != UINT32_MAX)
            return (long)at;
    }
    return -1;
}

int
rs_mad_set(uint8_t mad[RS_MAD_LEN], const char *abbrev, uint64_t v)
{
    const struct rs_field *f = mad_field(abbrev);

    if (f == NULL)
        return RS_ENOENT;
    long at = rs_mad_field_at(f, mad, RS_MAD_LEN);
    if (at < 0 || f->width == 0 || f->width > 8 || f->type == RS_FT_BYTES ||
        f->type == RS_FT_IPV6)
        return RS_EINVAL;
    rs_field_store(f, mad + at, v);
    return 0;
}

int
rs_mad_set_bytes(uint8_t mad[RS_MAD_LEN], const char *abbrev, const uint8_t *bytes, size_t len)
{
    const struct rs_field *f = mad_field(abbrev);

    if (f == NULL)
        return RS_ENOENT;
    long at = rs_mad_field_at(f, mad, RS_MAD_LEN);
    if (at < 0 || (f->type != RS_FT_BYTES && f->type != RS_FT_IPV6) || f->width != len)
        return RS_EINVAL;
    memcpy(mad + at, bytes, len);
    return 0;
}

/* ---- naming, as tshark's Info column does ---- */

/* Wireshark's method names of the SMP and SA classes. */
static const struct rs_value_string smp_methods[] = {
    {0x01, "SubnGet"}, {0x02, "SubnSet"}, {0x81, "SubnGetResp"}, {0x05, "SubnTrap"},
    {0x07, "SubnTrapResp"}, {0, NULL},
};
static const struct rs_value_string sa_methods[] = {
    {0x01, "SubnAdmGet"}, {0x81, "SubnAdmGetResp"}, {0x02, "SubnAdmSet"},
    {0x06, "SubnAdmReport"}, {0x86, "SubnAdmReportResp"}, {0x12, "SubnAdmGetTable"},
    {0x92, "SubnAdmGetTableResp"}, {0x13, "SubnAdmGetTraceTable"}, {0x14, "SubnAdmGetMulti"},
    {0x94, "SubnAdmGetMultiResp"}, {0x15, "SubnAdmDelete"}, {0x95, "SubnAdmDeleteResp"},
    {0, NULL},
};

bool
rs_mad_info(const uint8_t *mad, size_t len, char *buf, size_t size)
{
    const char *method, *attr;
    uint16_t id;

    if (len < RS_MAD_HDR_LEN)
        return false;
    id = rs_load_be16(mad + 16);
    switch (mad[1]) {
    case RS_MAD_CLASS_SMP_LID:
    case RS_MAD_CLASS_SMP_DR:
        method = rs_value_name(smp_methods, mad[3]);
        attr = smp_attr_name(id);
        break;
    case RS_MAD_CLASS_SA:
        method = rs_value_name(sa_methods, mad[3]);
        attr = sa_attr_name(id);
        break;
    case RS_MAD_CLASS_PERF:
        attr = perf_attr_name(id);
        snprintf(buf, size, "PERF (%s)", attr != NULL ? attr : "Unknown Attribute");
        return true;
    default:
        return false;
    }
    if (method == NULL || attr == NULL)
        snprintf(buf, size, "MAD class 0x%02x method 0x%02x attribute 0x%04x", mad[1], mad[3],
                 id);
    else
        snprintf(buf, size, "%s(%s)", method, attr);
    return true;
}
