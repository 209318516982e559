/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_cm.c - the Communication Manager's MADs (IBTA Vol 1, 12.6), as one
 * table of fields per message, read and written through the same table.
 *
 *   MAD header (13.4.3), 24 bytes:
 *    0 BaseVersion | MgmtClass | ClassVersion | R Method
 *    4 Status (16)             | ClassSpecific (16)
 *    8 TransactionID (64)
 *   16 AttributeID (16)        | Reserved (16)
 *   20 AttributeModifier (32)
 *   24 the message (232 bytes), laid out below.
 *
 * The byte and bit offsets were checked against tshark 4.0's decoding of the
 * REQ, REP, RTU, DREQ and DREP in tests/captures/real (tests/unit/test_cm.c
 * reads them back).
 */
#include <string.h>

#include <roceshark/dissectors/cm_mad.h>
#include <roceshark/dissectors/wire.h>

#define F(idx, name, byte_, bit_, bits_) [idx] = {name, byte_, bit_, bits_}
#define COMM_IDS(msg)                                                                     \
    F(RS_CMF_LOCAL_COMM_ID, "infiniband.cm." msg ".localcommid", 0, 0, 32),               \
    F(RS_CMF_REMOTE_COMM_ID, "infiniband.cm." msg ".remotecommid", 4, 0, 32)

static const struct rs_cm_layout layouts[] = {
    {RS_CM_REQ, "ConnectRequest", "REQ", {
        /* Wireshark names the local ID after the message itself. */
        F(RS_CMF_LOCAL_COMM_ID, "infiniband.cm.req", 0, 0, 32),
        F(RS_CMF_SERVICE_ID, "infiniband.cm.req.serviceid", 8, 0, 64),
        F(RS_CMF_LOCAL_CA_GUID, "infiniband.cm.req.localcaguid", 16, 0, 64),
        F(RS_CMF_LOCAL_QKEY, "infiniband.cm.req.localqkey", 28, 0, 32),
        F(RS_CMF_LOCAL_QPN, "infiniband.cm.req.localqpn", 32, 0, 24),
        F(RS_CMF_RESPONDER_RESOURCES, "infiniband.cm.req.responderres", 35, 0, 8),
        F(RS_CMF_INITIATOR_DEPTH, "infiniband.cm.req.initdepth", 39, 0, 8),
        F(RS_CMF_REMOTE_CM_TIMEOUT, "infiniband.cm.req.remoteresptout", 43, 0, 5),
        F(RS_CMF_TRANSPORT_TYPE, "infiniband.cm.req.transpsvctype", 43, 5, 2),
        F(RS_CMF_STARTING_PSN, "infiniband.cm.req.startpsn", 44, 0, 24),
        F(RS_CMF_LOCAL_CM_TIMEOUT, "infiniband.cm.req.localresptout", 47, 0, 5),
        F(RS_CMF_RETRY_COUNT, "infiniband.cm.req.retrcount", 47, 5, 3),
        F(RS_CMF_PKEY, "infiniband.cm.req.pkey", 48, 0, 16),
        F(RS_CMF_PATH_MTU, "infiniband.cm.req.pppmtu", 50, 0, 4),
        F(RS_CMF_RNR_RETRY_COUNT, "infiniband.cm.req.rnrretrcount", 50, 5, 3),
        F(RS_CMF_MAX_CM_RETRIES, "infiniband.cm.req.maxcmretr", 51, 0, 4),
        F(RS_CMF_SRQ, "infiniband.cm.req.srq", 51, 4, 1),
        F(RS_CMF_PRIMARY_LOCAL_LID, "infiniband.cm.req.prim_locallid", 52, 0, 16),
        F(RS_CMF_PRIMARY_REMOTE_LID, "infiniband.cm.req.prim_remotelid", 54, 0, 16),
        F(RS_CMF_PRIMARY_LOCAL_GID, "infiniband.cm.req.prim_localgid", 56, 0, 128),
        F(RS_CMF_PRIMARY_REMOTE_GID, "infiniband.cm.req.prim_remotegid", 72, 0, 128),
        F(RS_CMF_PRIMARY_FLOW_LABEL, "infiniband.cm.req.prim_flowlabel", 88, 0, 20),
        F(RS_CMF_PRIMARY_PACKET_RATE, "infiniband.cm.req.prim_pktrate", 91, 2, 6),
        F(RS_CMF_PRIMARY_TCLASS, "infiniband.cm.req.prim_tfcclass", 92, 0, 8),
        F(RS_CMF_PRIMARY_HOP_LIMIT, "infiniband.cm.req.prim_hoplim", 93, 0, 8),
        F(RS_CMF_PRIMARY_SL, "infiniband.cm.req.prim_sl", 94, 0, 4),
        F(RS_CMF_PRIMARY_SUBNET_LOCAL, "infiniband.cm.req.prim_subnetlocal", 94, 4, 1),
        F(RS_CMF_PRIMARY_ACK_TIMEOUT, "infiniband.cm.req.prim_localacktout", 95, 0, 5),
        F(RS_CMF_PRIVATE_DATA, "infiniband.cm.req.private", 140, 0, 92 * 8),
    }},
    /* Wireshark 4.0 does not decode the MRA: our names. */
    {RS_CM_MRA, "MsgRcptAck", "MRA", {
        F(RS_CMF_LOCAL_COMM_ID, "roceshark.cm.mra.localcommid", 0, 0, 32),
        F(RS_CMF_REMOTE_COMM_ID, "roceshark.cm.mra.remotecommid", 4, 0, 32),
        F(RS_CMF_MSG_MRAED, "roceshark.cm.mra.msgmraed", 8, 0, 2),
        F(RS_CMF_SERVICE_TIMEOUT, "roceshark.cm.mra.svctimeout", 9, 0, 5),
        F(RS_CMF_PRIVATE_DATA, "roceshark.cm.mra.private", 10, 0, 222 * 8),
    }},
    {RS_CM_REJ, "ConnectReject", "REJ", {
        COMM_IDS("rej"),
        F(RS_CMF_MSG_REJECTED, "infiniband.cm.rej.msgrej", 8, 0, 2),
        F(RS_CMF_REJ_INFO_LEN, "infiniband.cm.rej.rejinfolen", 9, 0, 7),
        F(RS_CMF_REJ_REASON, "infiniband.cm.rej.reason", 10, 0, 16),
        F(RS_CMF_REJ_ARI, "infiniband.cm.rej.ari", 12, 0, 72 * 8),
        F(RS_CMF_PRIVATE_DATA, "infiniband.cm.rej.private", 84, 0, 148 * 8),
    }},
    {RS_CM_REP, "ConnectReply", "REP", {
        /* Wireshark names the local ID after the message itself. */
        F(RS_CMF_LOCAL_COMM_ID, "infiniband.cm.rep", 0, 0, 32),
        F(RS_CMF_REMOTE_COMM_ID, "infiniband.cm.rep.remotecommid", 4, 0, 32),
        F(RS_CMF_LOCAL_QKEY, "infiniband.cm.rep.localqkey", 8, 0, 32),
        F(RS_CMF_LOCAL_QPN, "infiniband.cm.rep.localqpn", 12, 0, 24),
        F(RS_CMF_STARTING_PSN, "infiniband.cm.rep.startpsn", 20, 0, 24),
        F(RS_CMF_RESPONDER_RESOURCES, "infiniband.cm.rep.respres", 24, 0, 8),
        F(RS_CMF_INITIATOR_DEPTH, "infiniband.cm.rep.initdepth", 25, 0, 8),
        F(RS_CMF_TARGET_ACK_DELAY, "infiniband.cm.rep.tgtackdelay", 26, 0, 5),
        F(RS_CMF_FAILOVER, "infiniband.cm.rep.failoveracc", 26, 5, 2),
        F(RS_CMF_RNR_RETRY_COUNT, "infiniband.cm.rep.rnrretrcount", 27, 0, 3),
        F(RS_CMF_SRQ, "infiniband.cm.rep.srq", 27, 3, 1),
        F(RS_CMF_LOCAL_CA_GUID, "infiniband.cm.rep.localcaguid", 28, 0, 64),
        F(RS_CMF_PRIVATE_DATA, "infiniband.cm.rep.private", 36, 0, 196 * 8),
    }},
    {RS_CM_RTU, "ReadyToUse", "RTU", {
        COMM_IDS("rtu"),
        F(RS_CMF_PRIVATE_DATA, "infiniband.cm.rtu.private", 8, 0, 224 * 8),
    }},
    {RS_CM_DREQ, "DisconnectRequest", "DREQ", {
        COMM_IDS("dreq"),
        /* Wireshark files this DREQ field under req. */
        F(RS_CMF_REMOTE_QPN, "infiniband.cm.req.remoteqpneecn", 8, 0, 24),
        F(RS_CMF_PRIVATE_DATA, "infiniband.cm.dreq.private", 12, 0, 220 * 8),
    }},
    {RS_CM_DREP, "DisconnectReply", "DREP", {
        /* Wireshark calls the DREP "drsp". */
        COMM_IDS("drsp"),
        F(RS_CMF_PRIVATE_DATA, "infiniband.cm.drsp.private", 8, 0, 224 * 8),
    }},
    /* Wireshark 4.0 decodes no SIDR message: our names. */
    {RS_CM_SIDR_REQ, "ServiceIDResReq", "SIDR_REQ", {
        F(RS_CMF_REQUEST_ID, "roceshark.cm.sidr_req.requestid", 0, 0, 32),
        F(RS_CMF_PKEY, "roceshark.cm.sidr_req.pkey", 4, 0, 16),
        F(RS_CMF_SERVICE_ID, "roceshark.cm.sidr_req.serviceid", 8, 0, 64),
        F(RS_CMF_PRIVATE_DATA, "roceshark.cm.sidr_req.private", 16, 0, 216 * 8),
    }},
    {RS_CM_SIDR_REP, "ServiceIDResReqResp", "SIDR_REP", {
        F(RS_CMF_REQUEST_ID, "roceshark.cm.sidr_rep.requestid", 0, 0, 32),
        F(RS_CMF_SIDR_STATUS, "roceshark.cm.sidr_rep.status", 4, 0, 8),
        F(RS_CMF_LOCAL_QPN, "roceshark.cm.sidr_rep.qpn", 8, 0, 24),
        F(RS_CMF_SERVICE_ID, "roceshark.cm.sidr_rep.serviceid", 12, 0, 64),
        F(RS_CMF_LOCAL_QKEY, "roceshark.cm.sidr_rep.qkey", 20, 0, 32),
        F(RS_CMF_PRIVATE_DATA, "roceshark.cm.sidr_rep.private", 96, 0, 136 * 8),
    }},
};

const struct rs_cm_layout *
rs_cm_layout(uint16_t attr)
{
    for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
        if (layouts[i].attr == attr)
            return &layouts[i];
    return NULL;
}

enum rs_cm_check
rs_cm_parse(const uint8_t *mad, size_t len, struct rs_cm_mad_hdr *hdr,
            const struct rs_cm_layout **layout)
{
    memset(hdr, 0, sizeof(*hdr));
    *layout = NULL;
    if (len < RS_CM_MAD_HDR_LEN)
        return RS_CM_SHORT;
    hdr->base_version = mad[0];
    hdr->mgmt_class = mad[1];
    hdr->class_version = mad[2];
    hdr->method = mad[3] & 0x7f;
    hdr->status = rs_load_be16(mad + 4);
    hdr->tid = rs_load_be64(mad + 8);
    hdr->attr_id = rs_load_be16(mad + 16);
    hdr->attr_mod = rs_load_be32(mad + 20);
    if (hdr->base_version != RS_CM_BASE_VERSION || hdr->mgmt_class != RS_CM_CLASS)
        return RS_CM_NOT_CM;
    if (len < RS_CM_MAD_LEN)
        return RS_CM_SHORT;
    if (hdr->class_version != RS_CM_CLASS_VERSION)
        return RS_CM_BAD_VERSION;
    if (mad[3] != RS_CM_METHOD_SEND)
        return RS_CM_BAD_METHOD;
    if ((*layout = rs_cm_layout(hdr->attr_id)) == NULL)
        return RS_CM_BAD_ATTR;
    return RS_CM_OK;
}

const char *
rs_cm_check_name(enum rs_cm_check c)
{
    static const char *const names[] = {"ok", "shorter than a MAD", "not a CM MAD",
                                        "not CM class version 2", "not a Send",
                                        "an attribute the CM has not"};

    return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "unknown";
}

void
rs_cm_hdr_write(uint8_t mad[RS_CM_MAD_LEN], uint16_t attr, uint64_t tid)
{
    memset(mad, 0, RS_CM_MAD_HDR_LEN);
    mad[0] = RS_CM_BASE_VERSION;
    mad[1] = RS_CM_CLASS;
    mad[2] = RS_CM_CLASS_VERSION;
    mad[3] = RS_CM_METHOD_SEND;
    rs_store_be64(mad + 8, tid);
    rs_store_be16(mad + 16, attr);
}

/* Bit by bit, most significant first, both ways: fields are few and read
 * or built once per MAD, so one obvious loop wins over shifting words. */
uint64_t
rs_cm_get(const struct rs_cm_layout *l, const uint8_t *msg, enum rs_cm_field f)
{
    const struct rs_cm_field_def *d = &l->f[f];
    uint64_t v = 0;

    if (d->abbrev == NULL || d->bits > 64)
        return 0;
    for (unsigned pos = d->bit; pos < (unsigned)d->bit + d->bits; pos++)
        v = v << 1 | ((msg[d->byte + pos / 8] >> (7 - pos % 8)) & 1);
    return v;
}

void
rs_cm_set(const struct rs_cm_layout *l, uint8_t *msg, enum rs_cm_field f, uint64_t v)
{
    const struct rs_cm_field_def *d = &l->f[f];

    if (d->abbrev == NULL || d->bits > 64)
        return;
    for (unsigned k = 0; k < d->bits; k++) {
        unsigned pos = d->bit + d->bits - 1 - k;        /* bit index from the field's byte */
        uint8_t *b = &msg[d->byte + pos / 8];
        uint8_t mask = (uint8_t)(0x80u >> (pos % 8));
        if ((v >> k) & 1)
            *b |= mask;
        else
            *b &= (uint8_t)~mask;
    }
}

const uint8_t *
rs_cm_bytes(const struct rs_cm_layout *l, const uint8_t *msg, enum rs_cm_field f, size_t *len)
{
    const struct rs_cm_field_def *d = &l->f[f];

    *len = 0;
    if (d->abbrev == NULL || d->bits <= 64)
        return NULL;
    *len = d->bits / 8u;
    return msg + d->byte;
}

uint8_t *
rs_cm_bytes_w(const struct rs_cm_layout *l, uint8_t *msg, enum rs_cm_field f, size_t *len)
{
    return (uint8_t *)rs_cm_bytes(l, msg, f, len);
}

const char *
rs_cm_rej_reason_name(uint16_t reason)
{
    switch (reason) {
    case RS_CM_REJ_NO_QP:
        return "no QP";
    case RS_CM_REJ_NO_RESOURCES:
        return "no resources";
    case RS_CM_REJ_TIMEOUT:
        return "timeout";
    case RS_CM_REJ_UNSUPPORTED:
        return "unsupported request";
    case RS_CM_REJ_INVALID_COMM_ID:
        return "invalid communication ID";
    case RS_CM_REJ_INVALID_SERVICE_ID:
        return "invalid service ID";
    case RS_CM_REJ_INVALID_TRANSPORT:
        return "invalid transport service type";
    case RS_CM_REJ_STALE_CONN:
        return "stale connection";
    case RS_CM_REJ_INVALID_MTU:
        return "invalid path MTU";
    case RS_CM_REJ_CONSUMER:
        return "consumer reject";
    default:
        return "other";
    }
}

uint64_t
rs_cm_timeout_ns(uint8_t code)
{
    return 4096ull << (code & 0x1f);
}

uint64_t
rs_cm_service_id(uint16_t ps, uint16_t port)
{
    return ((uint64_t)0x01 << 24) | ((uint64_t)(ps & 0xff) << 16) | port;
}

bool
rs_cm_service_port(uint64_t sid, uint16_t ps, uint16_t *port)
{
    *port = (uint16_t)sid;
    return (sid & ~0xffffull) == rs_cm_service_id(ps, 0);
}

/* rdma_cm puts an IPv4 address in the last four bytes of its 16, after
 * twelve zeros (not the ::ffff: form of a GID). */
static void
addr_write(uint8_t ip_version, const uint8_t gid[16], uint8_t out[16])
{
    memset(out, 0, 16);
    if (ip_version == 4)
        memcpy(out + 12, gid + 12, 4);
    else
        memcpy(out, gid, 16);
}

static void
addr_read(uint8_t ip_version, const uint8_t in[16], uint8_t gid[16])
{
    static const uint8_t v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

    memcpy(gid, in, 16);
    if (ip_version == 4)
        memcpy(gid, v4_mapped, 12);
}

void
rs_cm_ip_hdr_write(const struct rs_cm_ip_hdr *h, uint8_t out[RS_CM_IP_HDR_LEN])
{
    out[0] = 0;     /* rdma_cm's header version */
    out[1] = (uint8_t)(h->ip_version << 4);
    rs_store_be16(out + 2, h->src_port);
    addr_write(h->ip_version, h->src, out + 4);
    addr_write(h->ip_version, h->dst, out + 20);
}

bool
rs_cm_ip_hdr_read(const uint8_t in[RS_CM_IP_HDR_LEN], struct rs_cm_ip_hdr *h)
{
    memset(h, 0, sizeof(*h));
    h->ip_version = in[1] >> 4;
    if (in[0] != 0 || (h->ip_version != 4 && h->ip_version != 6))
        return false;
    h->src_port = rs_load_be16(in + 2);
    addr_read(h->ip_version, in + 4, h->src);
    addr_read(h->ip_version, in + 20, h->dst);
    return true;
}
