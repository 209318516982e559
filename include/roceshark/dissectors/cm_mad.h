/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm_mad.h - the InfiniBand Communication Manager's MADs (IBTA Vol 1, chapter
 * 12), both ways: one table of fields per message, which the analysis
 * reads, the CM engine (transport/cm) parses with and builds from.
 *
 * A CM MAD is 256 bytes carried as the payload of a UD SEND to QP 1 with
 * Q_Key 0x80010000 (over RoCEv2 too): a 24-byte MAD header, then the
 * message, whose layout the attribute ID names. Fields are big-endian bit
 * fields: byte offset from the start of the message (after the MAD
 * header), the offset of their most significant bit in that byte (0 is
 * the top bit), and their width in bits. Fields of more than 64 bits
 * (GIDs, private data) are byte strings and start on a byte.
 *
 * Field names are Wireshark's (infiniband.cm.*), so what we decode and
 * build is named as tshark names it.
 */
#ifndef ROCESHARK_CM_MAD_H
#define ROCESHARK_CM_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RS_CM_MAD_LEN 256
#define RS_CM_MAD_HDR_LEN 24
#define RS_CM_MSG_LEN (RS_CM_MAD_LEN - RS_CM_MAD_HDR_LEN)
#define RS_CM_QP1 1
#define RS_CM_QKEY 0x80010000u         /* the GSI's well-known Q_Key */
#define RS_CM_BASE_VERSION 1
#define RS_CM_CLASS 0x07
#define RS_CM_CLASS_VERSION 2
#define RS_CM_METHOD_SEND 0x03

/* Attribute IDs: which message follows the MAD header. */
enum rs_cm_attr {
    RS_CM_REQ = 0x0010,
    RS_CM_MRA = 0x0011,
    RS_CM_REJ = 0x0012,
    RS_CM_REP = 0x0013,
    RS_CM_RTU = 0x0014,
    RS_CM_DREQ = 0x0015,
    RS_CM_DREP = 0x0016,
    RS_CM_SIDR_REQ = 0x0017,
    RS_CM_SIDR_REP = 0x0018,
    RS_CM_LAP = 0x0019,
    RS_CM_APR = 0x001a
};

/* The attribute's name as tshark's Info column gives it ("ConnectRequest",
 * "LoadAlternatePath"), or NULL for one the CM has not. */
const char *rs_cm_attr_name(uint16_t attr);

/* The fields the engine and the analysis use, as indexes into a message's
 * table; a message lacks the fields it does not carry. */
enum rs_cm_field {
    RS_CMF_LOCAL_COMM_ID,
    RS_CMF_REMOTE_COMM_ID,
    RS_CMF_SERVICE_ID,
    RS_CMF_LOCAL_CA_GUID,
    RS_CMF_LOCAL_QKEY,
    RS_CMF_LOCAL_QPN,
    RS_CMF_RESPONDER_RESOURCES,
    RS_CMF_INITIATOR_DEPTH,
    RS_CMF_REMOTE_CM_TIMEOUT,
    RS_CMF_TRANSPORT_TYPE,
    RS_CMF_STARTING_PSN,
    RS_CMF_LOCAL_CM_TIMEOUT,
    RS_CMF_RETRY_COUNT,
    RS_CMF_PKEY,
    RS_CMF_PATH_MTU,
    RS_CMF_RNR_RETRY_COUNT,
    RS_CMF_MAX_CM_RETRIES,
    RS_CMF_SRQ,
    RS_CMF_PRIMARY_LOCAL_LID,
    RS_CMF_PRIMARY_REMOTE_LID,
    RS_CMF_PRIMARY_LOCAL_GID,
    RS_CMF_PRIMARY_REMOTE_GID,
    RS_CMF_PRIMARY_FLOW_LABEL,
    RS_CMF_PRIMARY_PACKET_RATE,
    RS_CMF_PRIMARY_TCLASS,
    RS_CMF_PRIMARY_HOP_LIMIT,
    RS_CMF_PRIMARY_SL,
    RS_CMF_PRIMARY_SUBNET_LOCAL,
    RS_CMF_PRIMARY_ACK_TIMEOUT,
    RS_CMF_TARGET_ACK_DELAY,
    RS_CMF_FAILOVER,
    RS_CMF_SERVICE_TIMEOUT,     /* MRA: how much longer the sender needs */
    RS_CMF_MSG_MRAED,           /* MRA: 0 REQ, 1 REP, 2 LAP */
    RS_CMF_REMOTE_QPN,          /* DREQ: the QP being disconnected */
    RS_CMF_MSG_REJECTED,        /* REJ: 0 REQ, 1 REP, 2 other */
    RS_CMF_REJ_INFO_LEN,
    RS_CMF_REJ_REASON,
    RS_CMF_REJ_ARI,
    RS_CMF_REQUEST_ID,          /* SIDR_REQ and SIDR_REP: which request */
    RS_CMF_SIDR_STATUS,         /* SIDR_REP: enum rs_cm_sidr_status */
    RS_CMF_PRIVATE_DATA,
    RS_CMF_COUNT
};

struct rs_cm_field_def {
    const char *abbrev;         /* Wireshark's name; NULL: not in this message */
    uint8_t byte;               /* offset from the start of the message */
    uint8_t bit;                /* the first bit in that byte, 0 the most significant */
    uint16_t bits;              /* width; more than 64: a byte string of bits / 8 */
};

/* A message's layout: its name as tshark's Info column gives it
 * ("ConnectRequest") and one definition per enum rs_cm_field. */
struct rs_cm_layout {
    uint16_t attr;
    const char *name;
    const char *short_name;     /* "REQ" */
    struct rs_cm_field_def f[RS_CMF_COUNT];
};

/* The layout of attribute attr, or NULL for an attribute the CM has not. */
const struct rs_cm_layout *rs_cm_layout(uint16_t attr);

/* The MAD header (IBTA 13.4.3). */
struct rs_cm_mad_hdr {
    uint8_t base_version, mgmt_class, class_version, method;
    uint16_t status;
    uint64_t tid;
    uint16_t attr_id;
    uint32_t attr_mod;
};

enum rs_cm_check {
    RS_CM_OK = 0,
    RS_CM_SHORT,                /* fewer than 256 bytes */
    RS_CM_NOT_CM,               /* another management class or base version */
    RS_CM_BAD_VERSION,          /* a CM class version other than 2 */
    RS_CM_BAD_METHOD,           /* not a Send */
    RS_CM_BAD_ATTR              /* an attribute the CM has not */
};

/* Reads the MAD header of len bytes at mad and checks it is a CM message
 * we can read; its layout in *layout when RS_CM_OK. Reads nothing past len. */
enum rs_cm_check rs_cm_parse(const uint8_t *mad, size_t len, struct rs_cm_mad_hdr *hdr,
                             const struct rs_cm_layout **layout);
/* "too short", "not a CM MAD", ... */
const char *rs_cm_check_name(enum rs_cm_check c);

/* Writes a MAD header: base version 1, class CM, class version 2, Send. */
void rs_cm_hdr_write(uint8_t mad[RS_CM_MAD_LEN], uint16_t attr, uint64_t tid);

/* Reads or writes field f (up to 64 bits) of the message at msg (the MAD's
 * byte 24 on); a field the layout lacks reads as 0 and is not written. */
uint64_t rs_cm_get(const struct rs_cm_layout *l, const uint8_t *msg, enum rs_cm_field f);
void rs_cm_set(const struct rs_cm_layout *l, uint8_t *msg, enum rs_cm_field f, uint64_t v);
/* A byte-string field (GIDs, ARI, private data): its bytes and length, or
 * NULL and 0 when the layout lacks it. */
const uint8_t *rs_cm_bytes(const struct rs_cm_layout *l, const uint8_t *msg,
                           enum rs_cm_field f, size_t *len);
uint8_t *rs_cm_bytes_w(const struct rs_cm_layout *l, uint8_t *msg, enum rs_cm_field f,
                       size_t *len);

/* REJ reasons (IBTA Table 112) we send or name. */
enum rs_cm_rej_reason {
    RS_CM_REJ_NO_QP = 1,
    RS_CM_REJ_NO_RESOURCES = 3,
    RS_CM_REJ_TIMEOUT = 4,
    RS_CM_REJ_UNSUPPORTED = 5,
    RS_CM_REJ_INVALID_COMM_ID = 6,
    RS_CM_REJ_INVALID_SERVICE_ID = 8,
    RS_CM_REJ_INVALID_TRANSPORT = 9,
    RS_CM_REJ_STALE_CONN = 10,
    RS_CM_REJ_INVALID_MTU = 26,
    RS_CM_REJ_CONSUMER = 28
};
const char *rs_cm_rej_reason_name(uint16_t reason);

/* SIDR_REP's status (IBTA Table 119) that we send or name. */
enum rs_cm_sidr_status {
    RS_CM_SIDR_VALID = 0,           /* the QPN and Q_Key are the service's */
    RS_CM_SIDR_UNSUPPORTED = 1,     /* no such service ID */
    RS_CM_SIDR_REJECT = 2,          /* the consumer refused */
    RS_CM_SIDR_NO_QP = 3
};

/* CM response timeouts and the QP's local ACK timeout: 4.096 us * 2^code. */
uint64_t rs_cm_timeout_ns(uint8_t code);

/* --- rdma_cm's conventions (librdmacm, over IP-based CM) ---
 *
 * The service ID of a port of port space ps is 0x0000000001000000 | ps << 16 | port
 * (RDMA_PS_TCP 0x0106 for RC connections, RDMA_PS_UDP 0x0111 for UD QPs resolved
 * with SIDR). The REQ's and the SIDR_REQ's private data starts with a 36-byte header: version (0), IP version
 * in the high nibble of the next byte (4 or 6), the source port, then the
 * source and destination addresses (an IPv4 one in the last four of its 16
 * bytes, after twelve zeros). The REP carries no header, only the
 * application's bytes. */
#define RS_CM_PS_TCP 0x0106
#define RS_CM_PS_UDP 0x0111
#define RS_CM_IP_HDR_LEN 36

uint64_t rs_cm_service_id(uint16_t ps, uint16_t port);
/* True for a service ID of rdma_cm's port space ps; its port in *port. */
bool rs_cm_service_port(uint64_t sid, uint16_t ps, uint16_t *port);

/* The addresses are 16-byte GIDs: an IPv4 address as ::ffff:a.b.c.d. */
struct rs_cm_ip_hdr {
    uint8_t ip_version;         /* 4 or 6 */
    uint16_t src_port;
    uint8_t src[16], dst[16];
};

void rs_cm_ip_hdr_write(const struct rs_cm_ip_hdr *h, uint8_t out[RS_CM_IP_HDR_LEN]);
/* False for a header that is not rdma_cm's (a version or IP version we do not know). */
bool rs_cm_ip_hdr_read(const uint8_t in[RS_CM_IP_HDR_LEN], struct rs_cm_ip_hdr *h);

#endif /* ROCESHARK_CM_MAD_H */
