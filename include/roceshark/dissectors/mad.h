/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mad.h - InfiniBand management datagrams (IBTA Vol 1, chapters 13 to 16),
 * both ways: the MAD common header, RMPP, subnet management (SMP, LID
 * routed and directed route), subnet administration (SA) and performance
 * management, each as one table of fields (Wireshark's names) that the
 * registry reads a packet through and the builders below write.
 *
 * A MAD is the 256-byte payload of a UD SEND to QP 0 (SMPs) or QP 1 (GSI
 * classes), over native IB and RoCE alike. The Communication Manager's
 * messages have their own tables (cm_mad.h).
 *
 * Every MAD field is a registry field (fields.h) whose offset counts from
 * the first byte of the MAD: the decoder and rs_mad_set() read and write
 * the same bytes, and `roceshark inject` can set them by name.
 */
#ifndef ROCESHARK_MAD_H
#define ROCESHARK_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/packet.h>

#define RS_MAD_LEN 256
#define RS_MAD_HDR_LEN 24
#define RS_MAD_QKEY 0x80010000u     /* the GSI's well-known Q_Key (QP 1) */

/* Management classes (IBTA Table 130). */
enum rs_mad_class {
    RS_MAD_CLASS_SMP_LID = 0x01,    /* subnet management, LID routed */
    RS_MAD_CLASS_SA = 0x03,         /* subnet administration */
    RS_MAD_CLASS_PERF = 0x04,       /* performance management */
    RS_MAD_CLASS_CM = 0x07,         /* communication management (cm_mad.h) */
    RS_MAD_CLASS_SMP_DR = 0x81      /* subnet management, directed route */
};

/* Methods (IBTA Table 131); a response is the request's value | 0x80. */
enum rs_mad_method {
    RS_MAD_GET = 0x01,
    RS_MAD_SET = 0x02,
    RS_MAD_SEND = 0x03,
    RS_MAD_TRAP = 0x05,
    RS_MAD_REPORT = 0x06,
    RS_MAD_TRAP_REPRESS = 0x07,
    RS_MAD_GET_TABLE = 0x12,
    RS_MAD_RESP = 0x80
};

/* Attribute IDs. The SMP, SA and PerfMgt ones share numbers, so each is
 * only meaningful with its class. */
enum rs_mad_attr {
    RS_MAD_ATTR_CLASS_PORT_INFO = 0x0001,   /* every GSI class */
    RS_SMP_ATTR_NOTICE = 0x0002,            /* SMP and SA: a trap or notice */
    RS_SMP_ATTR_NODE_DESC = 0x0010,
    RS_SMP_ATTR_NODE_INFO = 0x0011,
    RS_SMP_ATTR_SWITCH_INFO = 0x0012,
    RS_SMP_ATTR_GUID_INFO = 0x0014,
    RS_SMP_ATTR_PORT_INFO = 0x0015,
    RS_SMP_ATTR_PKEY_TABLE = 0x0016,
    RS_SMP_ATTR_SLTOVL = 0x0017,            /* SLtoVLMappingTable */
    RS_SMP_ATTR_VLARB = 0x0018,             /* VLArbitrationTable */
    RS_SMP_ATTR_LFT = 0x0019,               /* LinearForwardingTable */
    RS_SMP_ATTR_RFT = 0x001a,               /* RandomForwardingTable */
    RS_SMP_ATTR_MFT = 0x001b,               /* MulticastForwardingTable */
    RS_SMP_ATTR_LSWP_TABLE = 0x001c,        /* LinkSpeedWidthPairsTable */
    RS_SMP_ATTR_SM_INFO = 0x0020,
    RS_SMP_ATTR_VENDOR_DIAG = 0x0030,
    RS_SMP_ATTR_LED_INFO = 0x0031,
    RS_SA_ATTR_NODE_RECORD = 0x0011,
    RS_SA_ATTR_PORT_INFO_RECORD = 0x0012,
    RS_SA_ATTR_SLTOVL_RECORD = 0x0013,
    RS_SA_ATTR_SWITCH_INFO_RECORD = 0x0014,
    RS_SA_ATTR_LFT_RECORD = 0x0015,
    RS_SA_ATTR_RFT_RECORD = 0x0016,
    RS_SA_ATTR_MFT_RECORD = 0x0017,
    RS_SA_ATTR_SM_INFO_RECORD = 0x0018,
    RS_SA_ATTR_LSWP_RECORD = 0x0019,
    RS_SA_ATTR_GUID_INFO_RECORD = 0x0030,
    RS_SA_ATTR_PKEY_RECORD = 0x0033,
    RS_SA_ATTR_PATH_RECORD = 0x0035,
    RS_SA_ATTR_VLARB_RECORD = 0x0036,
    RS_SA_ATTR_MCMEMBER_RECORD = 0x0038,
    RS_PERF_ATTR_PORT_COUNTERS = 0x0012,
    RS_PERF_ATTR_PORT_COUNTERS_EXT = 0x001d
};

/* Whether pkt's payload is for QP 0 or 1 (a UD SEND): a MAD, however short, which no
 * other protocol (IPoIB, Data) takes. */
bool rs_mad_carried(const struct rs_packet *pkt);
/* The MAD pkt carries (a UD payload to QP 0 or 1 of at least a MAD header),
 * its captured length in *len; NULL when it carries none. */
const uint8_t *rs_mad_of(const struct rs_packet *pkt, size_t *len);
/* The MAD as the trees, the fields and Info show it: rs_mad_of's, but NULL where fewer than
 * a MAD's 256 bytes were captured from its start to the end of the IBA packet (its CRCs
 * counted), where tshark 4.0 decodes none of it (nor the ICRC after it). */
const uint8_t *rs_mad_shown(const struct rs_packet *pkt, size_t *len);

/* What tshark's Info column names the MAD ("SubnGet(SMInfo)",
 * "SubnAdmGetResp(PathRecord)") into buf; false for a class it does not
 * name that way (the CM is named by cm_mad.h). */
bool rs_mad_info(const uint8_t *mad, size_t len, char *buf, size_t size);

/* Writes a zeroed MAD with its common header: base version 1. */
void rs_mad_start(uint8_t mad[RS_MAD_LEN], uint8_t mgmt_class, uint8_t class_version,
                  uint8_t method, uint16_t attr, uint32_t attr_mod, uint64_t tid);

/* Writes value v into the MAD field named abbrev ("infiniband.pathrecord.dlid"),
 * where the decoder reads it: 0, or RS_ENOENT for a name that is no MAD field,
 * RS_EINVAL for one that holds bytes. */
int rs_mad_set(uint8_t mad[RS_MAD_LEN], const char *abbrev, uint64_t v);
/* True for a MAD field at a fixed offset from the MAD's first byte, which
 * `roceshark inject` sets where the decoder reads it (ClassPortInfo's move
 * with the class, so rs_mad_set() places them). */
bool rs_mad_field_fixed(const struct rs_field *f);

/* True for a MAD field whose place depends on the MAD's class and attribute
 * (ClassPortInfo's, an SMP attribute's, which an SA record embeds too), and
 * rs_mad_field_at() its offset in one MAD: -1 when mad (len bytes) does not
 * carry it. `roceshark inject` writes these once the header is in place. */
bool rs_mad_field_placed(const struct rs_field *f);
long rs_mad_field_at(const struct rs_field *f, const uint8_t *mad, size_t len);

/* Copies len bytes into a MAD field of bytes (a GID): RS_EINVAL when the
 * field is of another type or size. */
int rs_mad_set_bytes(uint8_t mad[RS_MAD_LEN], const char *abbrev, const uint8_t *bytes,
                     size_t len);

#endif /* ROCESHARK_MAD_H */
