/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_cm_fields.c - the Communication Manager's MADs (IBTA Vol 1, 12.6) as
 * registry fields, so that -e, -Y, the tree and the JSON and PDML outputs
 * name them: Wireshark 4.0's fields for the messages it decodes (REQ, REP,
 * RTU, REJ, DREQ, DREP and rdma_cm's IP CM private data, Annex A11), ours
 * (roceshark.cm.*) for those it leaves undecoded (MRA, LAP, APR, SIDR_REQ,
 * SIDR_REP, and the IP CM private data of a SIDR_REQ), laid out as IBTA's
 * message tables give them (12.6, 12.8, 12.11, A11.6).
 *
 *    0 common MAD header (24, ib_mad.c)
 *   24 the message (232 bytes); offsets below count from the MAD's byte 0
 *
 * Wireshark 4.0 reads the 32-bit word that holds a REQ path's flow label
 * (20 bits), 6 reserved bits and packet rate (6 bits) from three bytes for
 * the label and from its first byte for the other two, so its label is the
 * top 12 bits of IBTA's and its rate the first byte's low bits. These fields
 * keep Wireshark's names and masks over the whole word, as IBTA lays it out
 * (README.md, "Where roceshark and Wireshark differ"). Wireshark shows the
 * primary GIDs as IPv4 addresses (their last four bytes) when the frame
 * travels over IPv4; so do we.
 *
 * The CM engine (transport/cm) reads and writes IBTA's layout through
 * cm_mad.h's table, whose names are these fields' and whose values they read
 * (tests/unit/test_mad.c checks both).
 */
#include <stdio.h>

#include <roceshark/dissectors/cm_mad.h>
#include <roceshark/dissectors/common.h>

#include "ib/ib_mad_int.h"

#define CM RS_MAD_CLASS_CM
#define M 24                /* the message's first byte in the MAD */
#define IP_CM_SID_MASK 0xffffffffff000000ull
#define IP_CM_SID 0x0000000001000000ull     /* rdma_cm's service IDs (Annex A11.2) */
#define REQ_PRIVATE 140        /* message offsets of the private data */
#define SIDR_REQ_PRIVATE 16

/* What, beyond its attribute, a field needs of the MAD to be there. */
enum cm_cond {
    ANY,
    SID_IP,         /* the REQ or SIDR_REQ is to an IP CM service ID */
    SID_OTHER,      /* ... to another service ID */
    NET_IPV4,       /* the frame travels over IPv4 (Wireshark's test for IPv4 GIDs) */
    NET_OTHER,
    IPCM_V4,        /* IP CM private data of IP version 4 */
    IPCM_V6         /* ... of another version */
};

/* Where the IP CM private data of a REQ or SIDR_REQ starts in the MAD; both
 * carry the service ID at message offset 8. */
static size_t
ip_cm_offset(const uint8_t *mad)
{
    return M + (rs_load_be16(mad + 16) == RS_CM_SIDR_REQ ? SIDR_REQ_PRIVATE : REQ_PRIVATE);
}

static bool
cond_holds(const struct rs_packet *pkt, const uint8_t *mad, size_t len, enum cm_cond cond)
{
    bool ip_sid = len >= M + 16 && (rs_load_be64(mad + M + 8) & IP_CM_SID_MASK) == IP_CM_SID;
    size_t ip_cm = ip_cm_offset(mad);
    bool v4 = ip_sid && len > ip_cm + 1 && mad[ip_cm + 1] >> 4 == 4;

    switch (cond) {
    case SID_IP:
        return ip_sid;
    case SID_OTHER:
        return !ip_sid;
    case NET_IPV4:
        return rs_packet_has(pkt, RS_LAYER_IPV4);
    case NET_OTHER:
        return !rs_packet_has(pkt, RS_LAYER_IPV4);
    case IPCM_V4:
        return v4;
    case IPCM_V6:
        return ip_sid && !v4;
    default:
        return true;
    }
}

static bool
cm_get(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
       struct rs_value *out, uint16_t attr, enum cm_cond cond)
{
    const struct mad_ctx ctx = {CM, CM, attr};
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);

    if (mad == NULL || !mad_matches(mad, &ctx) || !cond_holds(pkt, mad, len, cond))
        return false;
    return mad_field_get(pkt, f, occ, out, &ctx);
}

#define CM_GETTER(fn, attr, cond)                                                           \
    static bool fn(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,     \
                   struct rs_value *out)                                                    \
    {                                                                                       \
        return cm_get(pkt, f, occ, out, attr, cond);                                        \
    }
CM_GETTER(get_req, RS_CM_REQ, ANY)
CM_GETTER(get_req_sid_ip, RS_CM_REQ, SID_IP)
CM_GETTER(get_req_sid_other, RS_CM_REQ, SID_OTHER)
CM_GETTER(get_req_gid6, RS_CM_REQ, NET_OTHER)
CM_GETTER(get_req_gid4, RS_CM_REQ, NET_IPV4)
CM_GETTER(get_ipcm_v4, RS_CM_REQ, IPCM_V4)
CM_GETTER(get_ipcm_v6, RS_CM_REQ, IPCM_V6)
CM_GETTER(get_mra, RS_CM_MRA, ANY)
CM_GETTER(get_rej, RS_CM_REJ, ANY)
CM_GETTER(get_rep, RS_CM_REP, ANY)
CM_GETTER(get_rtu, RS_CM_RTU, ANY)
CM_GETTER(get_dreq, RS_CM_DREQ, ANY)
CM_GETTER(get_drep, RS_CM_DREP, ANY)
CM_GETTER(get_sidr_req, RS_CM_SIDR_REQ, ANY)
CM_GETTER(get_sidr_req_sid_ip, RS_CM_SIDR_REQ, SID_IP)
CM_GETTER(get_sidr_req_sid_other, RS_CM_SIDR_REQ, SID_OTHER)
CM_GETTER(get_sidr_ipcm_v4, RS_CM_SIDR_REQ, IPCM_V4)
CM_GETTER(get_sidr_ipcm_v6, RS_CM_SIDR_REQ, IPCM_V6)
CM_GETTER(get_sidr_rep, RS_CM_SIDR_REP, ANY)
CM_GETTER(get_lap, RS_CM_LAP, ANY)
CM_GETTER(get_apr, RS_CM_APR, ANY)

/* The attributes as tshark's Info column names them ("CM: ConnectRequest"). */
static const struct rs_value_string cm_attrs[] = {
    {RS_MAD_ATTR_CLASS_PORT_INFO, "ClassPortInfo"},
    {RS_CM_REQ, "ConnectRequest"},
    {RS_CM_MRA, "MsgRcptAck"},
    {RS_CM_REJ, "ConnectReject"},
    {RS_CM_REP, "ConnectReply"},
    {RS_CM_RTU, "ReadyToUse"},
    {RS_CM_DREQ, "DisconnectRequest"},
    {RS_CM_DREP, "DisconnectReply"},
    {RS_CM_SIDR_REQ, "ServiceIDResReq"},
    {RS_CM_SIDR_REP, "ServiceIDResReqResp"},
    {RS_CM_LAP, "LoadAlternatePath"},
    {RS_CM_APR, "AlternatePathResponse"},
    {0, NULL},
};

const char *
rs_cm_attr_name(uint16_t attr)
{
    return rs_value_name(cm_attrs, attr);
}

/* Wireshark's line for the message: "CM ConnectRequest", and a note on the
 * attributes no one decodes (ClassPortInfo and unknown ones). */
size_t
cm_data_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
              char *buf, size_t size)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);

    (void)f;
    (void)v;
    if (mad == NULL || mad[1] != CM)
        return 0;
    uint16_t attr = rs_load_be16(mad + 16);
    const char *name = rs_cm_attr_name(attr);
    bool decoded = name != NULL && attr != RS_MAD_ATTR_CLASS_PORT_INFO;
    int n = snprintf(buf, size, "CM %s%s", name != NULL ? name : "(Unknown CM Attribute)",
                     decoded ? "" : " (Dissector Not Implemented)");
    return n > 0 ? (size_t)n : 0;
}

/* The REQ's service ID and private data, when rdma_cm's, as Wireshark labels them. */
static size_t
label_ip_sid(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
             char *buf, size_t size)
{
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);

    (void)f;
    (void)v;
    if (mad == NULL || !cond_holds(pkt, mad, len, SID_IP))
        return 0;
    int n = snprintf(buf, size, "IP CM ServiceID");
    return n > 0 ? (size_t)n : 0;
}

static size_t
label_ip_cm(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
            char *buf, size_t size)
{
    (void)pkt;
    (void)f;
    (void)v;
    int n = snprintf(buf, size, "IP CM Private Data");
    return n > 0 ? (size_t)n : 0;
}

/* MRA's MessageMRAed. */
static const struct rs_value_string mra_msg_vals[] = {
    {0, "REQ"}, {1, "REP"}, {2, "LAP"}, {0, NULL},
};

/* APR's AP Status. */
static const struct rs_value_string apr_status_vals[] = {
    {0, "APM Success"},
    {1, "Invalid Communication ID"},
    {2, "Unsupported request"},
    {3, "Rejected"},
    {4, "Redirected"},
    {5, "Alternate path is the current path"},
    {6, "Invalid QPN/EECN"},
    {7, "Invalid LID"},
    {8, "Invalid GID"},
    {9, "Invalid flow label"},
    {10, "Invalid traffic class"},
    {11, "Invalid hop limit"},
    {12, "Invalid packet rate"},
    {13, "Invalid SL"},
    {0, NULL},
};

/* SIDR_REP's Status. */
static const struct rs_value_string sidr_status_vals[] = {
    {0, "Valid QPN"},
    {1, "Service ID not supported"},
    {2, "Rejected"},
    {3, "No QP available"},
    {4, "Redirected"},
    {5, "Unsupported class version"},
    {0, NULL},
};

/* An unsigned field in hex at message offset off; a bit field when mask is not 0. The
 * H forms are ours (roceshark.cm.*, which Wireshark does not decode), with help for the
 * GUI's status bar and field list: what the field means, its units, IBTA's name and
 * section; the others are Wireshark's, whose help is their name. */
#define HX(abbrev, name, off, width, mask, getter, help)                                  \
    MAD_FVH(abbrev, name, MAD_UTYPE(width), RS_BASE_HEX, mask, NULL, M + (off), width, getter, \
            2, help)
#define X(abbrev, name, off, width, mask, getter) HX(abbrev, name, off, width, mask, getter, name)
#define HDEC16(abbrev, name, off, getter, help) \
    MAD_FVH(abbrev, name, RS_FT_UINT16, RS_BASE_DEC, 0, NULL, M + (off), 2, getter, 2, help)
#define DEC16(abbrev, name, off, getter) HDEC16(abbrev, name, off, getter, name)
#define HBYTES(abbrev, name, off, width, getter, depth, help) \
    MAD_FVH(abbrev, name, RS_FT_BYTES, RS_BASE_NONE, 0, NULL, M + (off), width, getter, depth, help)
#define BYTES(abbrev, name, off, width, getter, depth) \
    HBYTES(abbrev, name, off, width, getter, depth, name)
#define HADDR(abbrev, name, type, off, width, getter, depth, help) \
    MAD_FVH(abbrev, name, type, RS_BASE_NONE, 0, NULL, M + (off), width, getter, depth, help)
#define ADDR(abbrev, name, type, off, width, getter, depth) \
    HADDR(abbrev, name, type, off, width, getter, depth, name)
#define HVALS(abbrev, name, off, mask, vals, getter, help) \
    MAD_FVH(abbrev, name, RS_FT_UINT8, RS_BASE_HEX, mask, vals, M + (off), 1, getter, 2, help)
#define COMM_IDS(prefix, getter)                                               \
    X(prefix ".localcommid", "Local Communication ID", 0, 4, 0, getter),       \
    X(prefix ".remotecommid", "Remote Communication ID", 4, 4, 0, getter)
/* Ours, in a message of IBTA section sec. */
#define HCOMM_IDS(prefix, getter, msg, sec)                                                \
    HX(prefix ".localcommid", "Local Communication ID", 0, 4, 0, getter,                   \
       "The ID that the sender of this " msg " gave the connection when it set it up "     \
       "(IBTA Vol 1 " sec ", LocalCommunicationID)"),                                       \
    HX(prefix ".remotecommid", "Remote Communication ID", 4, 4, 0, getter,                 \
       "The ID that the receiver of this " msg " gave the connection when it set it up "   \
       "(IBTA Vol 1 " sec ", RemoteCommunicationID)")

/* The end of a REQ's primary or alternate path (bytes 88..95 and 132..139). */
#define REQ_PATH_TAIL(p, name, off)                                                         \
    X("infiniband.cm.req." p "_flowlabel", name " Flow Label", off, 4, 0xfffff000, get_req), \
    X("infiniband.cm.req." p "_reserved0", "Reserved", off, 4, 0xfc0, get_req),             \
    X("infiniband.cm.req." p "_pktrate", name " Packet Rate", off, 4, 0x3f, get_req),       \
    X("infiniband.cm.req." p "_tfcclass", name " Traffic Class", (off) + 4, 1, 0, get_req), \
    X("infiniband.cm.req." p "_hoplim", name " Hop Limit", (off) + 5, 1, 0, get_req),       \
    X("infiniband.cm.req." p "_sl", name " SL", (off) + 6, 1, 0xf0, get_req),               \
    X("infiniband.cm.req." p "_subnetlocal", name " Subnet Local", (off) + 6, 1, 0x08,      \
      get_req),                                                                             \
    X("infiniband.cm.req." p "_reserved1", "Reserved", (off) + 6, 1, 0x07, get_req),        \
    X("infiniband.cm.req." p "_localacktout", name " Local ACK Timeout", (off) + 7, 1,      \
      0xf8, get_req)

/* rdma_cm's IP CM private data (Annex A11.6), private data of len bytes at
 * message offset off of a REQ or SIDR_REQ to an IP CM service ID, as fields
 * p.ip_cm.*: versions, source port, the source and destination addresses
 * (an IPv4 address is the last four of sixteen bytes), the consumer's rest. */
#define IP_CM(p, off, len, get_ip, get_v4, get_v6)                                          \
    {p ".ip_cm", "IP CM Request Msg", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,                  \
     "rdma_cm's header in the private data, for a ServiceID of the RDMA IP CM Service: "   \
     "versions, the client's port, both IP addresses (IBTA Vol 1 Annex A11.6)",            \
     RS_LAYER_PAYLOAD, M + (off), len, get_ip, 2, 0, .label = label_ip_cm},                 \
    MAD_FVH(p ".ip_cm.majv", "IP CM Major Version", RS_FT_UINT8, RS_BASE_HEX, 0xf0, NULL,  \
            M + (off), 1, get_ip, 3,                                                        \
            "Major version of the IP CM header's format, 0 (IBTA Annex A11.6, MajV)"),      \
    MAD_FVH(p ".ip_cm.minv", "IP CM Minor Version", RS_FT_UINT8, RS_BASE_HEX, 0x0f, NULL,  \
            M + (off), 1, get_ip, 3,                                                        \
            "Minor version of the IP CM header's format, 0 (IBTA Annex A11.6, MinV)"),      \
    MAD_FVH(p ".ip_cm.ipv", "IP CM IP Version", RS_FT_UINT8, RS_BASE_HEX, 0xf0, NULL,      \
            M + (off) + 1, 1, get_ip, 3,                                                    \
            "IP version of the two addresses, 4 or 6 (IBTA Annex A11.6, IPV)"),             \
    MAD_FVH(p ".ip_cm.reserved", "IP CM Reserved", RS_FT_UINT8, RS_BASE_HEX, 0x0f, NULL,   \
            M + (off) + 1, 1, get_ip, 3,                                                    \
            "Bits after the IP version, sent as 0 (IBTA Annex A11.6, Reserved)"),           \
    MAD_FVH(p ".ip_cm.sport", "IP CM Source Port", RS_FT_UINT16, RS_BASE_HEX, 0, NULL,     \
            M + (off) + 2, 2, get_ip, 3,                                                    \
            "Port of the client's rdma_cm ID; the server's port is in the ServiceID's "     \
            "low 16 bits (IBTA Annex A11.6, Source Port)"),                                 \
    HADDR(p ".ip_cm.sip6", "IP CM Source IP", RS_FT_IPV6, (off) + 4, 16, get_v6, 3,        \
          "The client's IPv6 address (IBTA Annex A11.6, Source IP Address)"),               \
    HADDR(p ".ip_cm.sip4", "IP CM Source IP", RS_FT_IPV4, (off) + 16, 4, get_v4, 3,        \
          "The client's IPv4 address: the last 4 of the 16 address octets "                 \
          "(IBTA Annex A11.6, Source IP Address)"),                                         \
    HADDR(p ".ip_cm.dip6", "IP CM Destination IP", RS_FT_IPV6, (off) + 20, 16, get_v6, 3,  \
          "The server's IPv6 address (IBTA Annex A11.6, Destination IP Address)"),          \
    HADDR(p ".ip_cm.dip4", "IP CM Destination IP", RS_FT_IPV4, (off) + 32, 4, get_v4, 3,   \
          "The server's IPv4 address: the last 4 of the 16 address octets "                 \
          "(IBTA Annex A11.6, Destination IP Address)"),                                    \
    HBYTES(p ".ip_cm.private", "IP CM Consumer PrivateData", (off) + 36, (len) - 36,        \
           get_ip, 3,                                                                       \
           "The application's own private data, after the 36-octet IP CM header "          \
           "(IBTA Annex A11.6, Consumer Private Data)")

/* A field of the LAP's alternate path (bytes 20..63). */
#define LAP(field, name, off, width, mask, help) \
    HX("roceshark.cm.lap." field, name, off, width, mask, get_lap, help " (IBTA Vol 1 12.8)")

const struct rs_field rs_fields_ib_cm[] = {
    /* ConnectRequest; Wireshark names the local ID after the message. */
    X("infiniband.cm.req", "Local Communication ID", 0, 4, 0, get_req),
    /* the REQ's reserved words (where other messages have the remote ID, and before
     * the Local Q_Key), lines of tshark's tree as the REP's reserved octets are */
    BYTES("infiniband.reserved", "Reserved", 4, 4, get_req, 2),
    {"infiniband.cm.req.serviceid", "ServiceID", RS_FT_UINT64, RS_BASE_HEX, 0, NULL, "ServiceID",
     RS_LAYER_PAYLOAD, M + 8, 8, get_req, 2, 0, .label = label_ip_sid},
    BYTES("infiniband.cm.req.serviceid.prefix", "Prefix", 8, 5, get_req_sid_ip, 3),
    MAD_F("infiniband.cm.req.serviceid.protocol", "Protocol", RS_FT_UINT8, RS_BASE_HEX, 0,
          M + 13, 1, get_req_sid_ip, 3),
    MAD_F("infiniband.cm.req.serviceid.dport", "Destination Port", RS_FT_UINT16, RS_BASE_HEX,
          0, M + 14, 2, get_req_sid_ip, 3),
    X("infiniband.cm.req.localcaguid", "Local CA GUID", 16, 8, 0, get_req),
    BYTES("infiniband.reserved", "Reserved", 24, 4, get_req, 2),
    X("infiniband.cm.req.localqkey", "Local Q_Key", 28, 4, 0, get_req),
    X("infiniband.cm.req.localqpn", "Local QPN", 32, 3, 0, get_req),
    X("infiniband.cm.req.responderres", "Responder Resources", 35, 1, 0, get_req),
    X("infiniband.cm.req.localeecn", "Local EECN", 36, 3, 0, get_req),
    X("infiniband.cm.req.initdepth", "Initiator Depth", 39, 1, 0, get_req),
    X("infiniband.cm.req.remoteeecn", "Remote EECN", 40, 3, 0, get_req),
    X("infiniband.cm.req.remoteresptout", "Remote CM Response Timeout", 43, 1, 0xf8, get_req),
    X("infiniband.cm.req.transpsvctype", "Transport Service Type", 43, 1, 0x06, get_req),
    X("infiniband.cm.req.e2eflowctrl", "End-to-End Flow Control", 43, 1, 0x01, get_req),
    X("infiniband.cm.req.startpsn", "Starting PSN", 44, 3, 0, get_req),
    X("infiniband.cm.req.localresptout", "Local CM Response Timeout", 47, 1, 0xf8, get_req),
    X("infiniband.cm.req.retrcount", "Retry Count", 47, 1, 0x07, get_req),
    X("infiniband.cm.req.pkey", "Partition Key", 48, 2, 0, get_req),
    X("infiniband.cm.req.pppmtu", "Path Packet Payload MTU", 50, 1, 0xf0, get_req),
    X("infiniband.cm.req.rdcexist", "RDC Exists", 50, 1, 0x08, get_req),
    X("infiniband.cm.req.rnrretrcount", "RNR Retry Count", 50, 1, 0x07, get_req),
    X("infiniband.cm.req.maxcmretr", "Max CM Retries", 51, 1, 0xf0, get_req),
    X("infiniband.cm.req.srq", "SRQ", 51, 1, 0x08, get_req),
    X("infiniband.cm.req.ext_transport", "Extended Transport", 51, 1, 0x07, get_req),
    DEC16("infiniband.cm.req.prim_locallid", "Primary Local Port LID", 52, get_req),
    DEC16("infiniband.cm.req.prim_remotelid", "Primary Remote Port LID", 54, get_req),
    ADDR("infiniband.cm.req.prim_localgid", "Primary Local Port GID", RS_FT_IPV6, 56, 16,
         get_req_gid6, 2),
    ADDR("infiniband.cm.req.prim_localgid_ipv4", "Primary Local Port GID", RS_FT_IPV4, 68, 4,
         get_req_gid4, 2),
    ADDR("infiniband.cm.req.prim_remotegid", "Primary Remote Port GID", RS_FT_IPV6, 72, 16,
         get_req_gid6, 2),
    ADDR("infiniband.cm.req.prim_remotegid_ipv4", "Primary Remote Port GID", RS_FT_IPV4, 84,
         4, get_req_gid4, 2),
    REQ_PATH_TAIL("prim", "Primary", 88),
    X("infiniband.cm.req.prim_reserved2", "Reserved", 95, 1, 0x07, get_req),
    DEC16("infiniband.cm.req.alt_locallid", "Alternate Local Port LID", 96, get_req),
    DEC16("infiniband.cm.req.alt_remotelid", "Alternate Remote Port LID", 98, get_req),
    BYTES("infiniband.cm.req.alt_localgid", "Alternate Local Port GID", 100, 16, get_req, 2),
    BYTES("infiniband.cm.req.alt_remotegid", "Alternate Remote Port GID", 116, 16, get_req, 2),
    REQ_PATH_TAIL("alt", "Alternate", 132),
    /* Wireshark files the reserved bits after the alternate ACK timeout under
     * alt_reserved1 again: a second occurrence of that name. */
    X("infiniband.cm.req.alt_reserved1", "Reserved", 139, 1, 0x07, get_req),
    BYTES("infiniband.cm.req.private", "PrivateData", REQ_PRIVATE, 92, get_req_sid_other, 2),
    /* rdma_cm's private data of a REQ to an IP CM service ID (Annex A11.6) */
    IP_CM("infiniband.cm.req", REQ_PRIVATE, 92, get_req_sid_ip, get_ipcm_v4, get_ipcm_v6),
    /* MsgRcptAck */
    HCOMM_IDS("roceshark.cm.mra", get_mra, "MRA", "12.6"),
    HVALS("roceshark.cm.mra.msgmraed", "Message MRAed", 8, 0xc0, mra_msg_vals, get_mra,
          "Which message the sender received and needs more time to answer: 0 REQ, 1 REP, "
          "2 LAP (IBTA Vol 1 12.6, Message MRAed)"),
    HX("roceshark.cm.mra.svctimeout", "Service Timeout", 9, 1, 0xf8, get_mra,
       "How long the sender may take before its answer: 4.096 microseconds x 2^value, "
       "added to the receiver's wait (IBTA Vol 1 12.6, ServiceTimeout)"),
    HBYTES("roceshark.cm.mra.private", "PrivateData", 10, 222, get_mra, 2,
           "Up to 222 octets the sending application passes to its peer "
           "(IBTA Vol 1 12.6, PrivateData)"),

    /* ConnectReject */
    COMM_IDS("infiniband.cm.rej", get_rej),
    X("infiniband.cm.rej.msgrej", "Message REJected", 8, 1, 0xc0, get_rej),
    X("infiniband.cm.rej.reserved0", "Reserved", 8, 1, 0x03, get_rej),
    X("infiniband.cm.rej.rejinfolen", "Reject Info Length", 9, 1, 0xfe, get_rej),
    X("infiniband.cm.rej.reserved1", "Reserved", 9, 1, 0x01, get_rej),
    X("infiniband.cm.rej.reason", "Reason", 10, 2, 0, get_rej),
    BYTES("infiniband.cm.rej.ari", "Additional Reject Information (ARI)", 12, 72, get_rej, 2),
    BYTES("infiniband.cm.rej.private", "PrivateData", 84, 148, get_rej, 2),

    /* ConnectReply; the local ID is named after the message, as in the REQ. */
    X("infiniband.cm.rep", "Local Communication ID", 0, 4, 0, get_rep),
    X("infiniband.cm.rep.remotecommid", "Remote Communication ID", 4, 4, 0, get_rep),
    X("infiniband.cm.rep.localqkey", "Local Q_Key", 8, 4, 0, get_rep),
    /* the octet after each 24-bit number is reserved, a line of tshark's tree */
    X("infiniband.cm.rep.localqpn", "Local QPN", 12, 3, 0, get_rep),
    BYTES("infiniband.reserved", "Reserved", 15, 1, get_rep, 2),
    X("infiniband.cm.rep.localeecn", "Local EE Context Number", 16, 3, 0, get_rep),
    BYTES("infiniband.reserved", "Reserved", 19, 1, get_rep, 2),
    X("infiniband.cm.rep.startpsn", "Starting PSN", 20, 3, 0, get_rep),
    BYTES("infiniband.reserved", "Reserved", 23, 1, get_rep, 2),
    X("infiniband.cm.rep.respres", "Responder Resources", 24, 1, 0, get_rep),
    X("infiniband.cm.rep.initdepth", "Initiator Depth", 25, 1, 0, get_rep),
    X("infiniband.cm.rep.tgtackdelay", "Target ACK Delay", 26, 1, 0xf8, get_rep),
    X("infiniband.cm.rep.failoveracc", "Failover Accepted", 26, 1, 0x06, get_rep),
    X("infiniband.cm.rep.e2eflowctrl", "End-To-End Flow Control", 26, 1, 0x01, get_rep),
    X("infiniband.cm.rep.rnrretrcount", "RNR Retry Count", 27, 1, 0xe0, get_rep),
    X("infiniband.cm.rep.srq", "SRQ", 27, 1, 0x10, get_rep),
    X("infiniband.cm.rep.reserved", "Reserved", 27, 1, 0x0f, get_rep),
    X("infiniband.cm.rep.localcaguid", "Local CA GUID", 28, 8, 0, get_rep),
    BYTES("infiniband.cm.rep.private", "PrivateData", 36, 196, get_rep, 2),

    /* ReadyToUse */
    COMM_IDS("infiniband.cm.rtu", get_rtu),
    BYTES("infiniband.cm.rtu.private", "PrivateData", 8, 224, get_rtu, 2),

    /* DisconnectRequest; Wireshark files its QPN under req. */
    COMM_IDS("infiniband.cm.dreq", get_dreq),
    X("infiniband.cm.req.remoteqpneecn", "Remote QPN/EECN", 8, 3, 0, get_dreq),
    BYTES("infiniband.reserved", "Reserved", 11, 1, get_dreq, 2),
    BYTES("infiniband.cm.dreq.private", "PrivateData", 12, 220, get_dreq, 2),

    /* DisconnectReply, which Wireshark calls drsp */
    COMM_IDS("infiniband.cm.drsp", get_drep),
    BYTES("infiniband.cm.drsp.private", "PrivateData", 8, 224, get_drep, 2),

    /* ServiceIDResReq */
    HX("roceshark.cm.sidr_req.requestid", "Request ID", 0, 4, 0, get_sidr_req,
       "Chosen by the requester; the SIDR_REP that answers carries it back "
       "(IBTA Vol 1 12.11, RequestID)"),
    HX("roceshark.cm.sidr_req.pkey", "Partition Key", 4, 2, 0, get_sidr_req,
       "Partition the requester will send to the service's UD QP in "
       "(IBTA Vol 1 12.11, P_Key)"),
    HX("roceshark.cm.sidr_req.serviceid", "ServiceID", 8, 8, 0, get_sidr_req,
       "The service whose UD QP number and Q_Key are asked for; rdma_cm's carry the port "
       "space and port (IBTA Vol 1 12.11, ServiceID)"),
    HBYTES("roceshark.cm.sidr_req.private", "PrivateData", SIDR_REQ_PRIVATE, 216,
           get_sidr_req_sid_other, 2,
           "Up to 216 octets for the service, where the ServiceID is not an IP CM one "
           "(IBTA Vol 1 12.11, PrivateData)"),
    /* rdma_cm resolves a UD QP with the same header as a REQ's (Annex A11.6);
     * Wireshark 4.0 decodes no SIDR_REQ. */
    IP_CM("roceshark.cm.sidr_req", SIDR_REQ_PRIVATE, 216, get_sidr_req_sid_ip, get_sidr_ipcm_v4,
          get_sidr_ipcm_v6),

    /* ServiceIDResReqResp */
    HX("roceshark.cm.sidr_rep.requestid", "Request ID", 0, 4, 0, get_sidr_rep,
       "The RequestID of the SIDR_REQ this answers (IBTA Vol 1 12.11, RequestID)"),
    HVALS("roceshark.cm.sidr_rep.status", "Status", 4, 0, sidr_status_vals, get_sidr_rep,
          "Whether the service answered: 0 valid QPN, 1 service ID not supported, "
          "2 rejected, 3 no QP available, 4 redirected, 5 unsupported class version "
          "(IBTA Vol 1 12.11, Status)"),
    HX("roceshark.cm.sidr_rep.addinfolen", "Additional Information Length", 5, 1, 0,
       get_sidr_rep, "Octets of Additional Information that count, 0 to 72 "
       "(IBTA Vol 1 12.11, AdditionalInformationLength)"),
    HX("roceshark.cm.sidr_rep.qpn", "QPN", 8, 3, 0, get_sidr_rep,
       "The service's UD QP, to send datagrams to when Status is 0 (IBTA Vol 1 12.11, QPN)"),
    HX("roceshark.cm.sidr_rep.serviceid", "ServiceID", 12, 8, 0, get_sidr_rep,
       "The ServiceID the SIDR_REQ asked for, sent back (IBTA Vol 1 12.11, ServiceID)"),
    HX("roceshark.cm.sidr_rep.qkey", "Q_Key", 20, 4, 0, get_sidr_rep,
       "The key to put in the DETH of every datagram to the service's QP "
       "(IBTA Vol 1 12.11, Q_Key)"),
    HBYTES("roceshark.cm.sidr_rep.addinfo", "Additional Information", 24, 72,
           get_sidr_rep, 2,
           "Why the request failed, or where it was redirected to (a ClassPortInfo when "
           "Status is 4) (IBTA Vol 1 12.11, AdditionalInformation)"),
    HBYTES("roceshark.cm.sidr_rep.private", "PrivateData", 96, 136, get_sidr_rep, 2,
           "Up to 136 octets the service passes back (IBTA Vol 1 12.11, PrivateData)"),

    /* LoadAlternatePath */
    HCOMM_IDS("roceshark.cm.lap", get_lap, "LAP", "12.8"),
    LAP("remoteqpneecn", "Remote QPN/EECN", 12, 3, 0,
        "The receiver's QP (or EE context) that is to load the alternate path: Remote QPN/EECN"),
    LAP("remoteresptout", "Remote CM Response Timeout", 15, 1, 0xf8,
        "How long the receiver may take to answer with an APR: 4.096 microseconds x 2^value: "
        "Remote CM Response Timeout"),
    HDEC16("roceshark.cm.lap.alt_locallid", "Alternate Local Port LID", 20, get_lap,
           "LID of the sender's port on the new alternate path "
           "(IBTA Vol 1 12.8, Alternate Local Port LID)"),
    HDEC16("roceshark.cm.lap.alt_remotelid", "Alternate Remote Port LID", 22, get_lap,
           "LID of the receiver's port on the new alternate path "
           "(IBTA Vol 1 12.8, Alternate Remote Port LID)"),
    HADDR("roceshark.cm.lap.alt_localgid", "Alternate Local Port GID", RS_FT_IPV6, 24, 16,
          get_lap, 2, "GID of the sender's port on the new alternate path "
          "(IBTA Vol 1 12.8, Alternate Local Port GID)"),
    HADDR("roceshark.cm.lap.alt_remotegid", "Alternate Remote Port GID", RS_FT_IPV6, 40, 16,
          get_lap, 2, "GID of the receiver's port on the new alternate path "
          "(IBTA Vol 1 12.8, Alternate Remote Port GID)"),
    LAP("alt_flowlabel", "Alternate Flow Label", 56, 3, 0xfffff0,
        "The 20-bit flow label of the alternate path's GRH: Alternate Flow Label"),
    LAP("alt_tfcclass", "Alternate Traffic Class", 59, 1, 0,
        "Traffic class of the alternate path's GRH: Alternate Traffic Class"),
    LAP("alt_hoplim", "Alternate Hop Limit", 60, 1, 0,
        "Hop limit of the alternate path's GRH, the routers a packet may cross: "
        "Alternate Hop Limit"),
    LAP("alt_pktrate", "Alternate Packet Rate", 61, 1, 0x3f,
        "Most a sender may inject on the alternate path, as IBTA's rate code "
        "(2 is 2.5 Gb/s, 3 is 10 Gb/s, ...): Alternate Packet Rate"),
    LAP("alt_sl", "Alternate SL", 62, 1, 0xf0,
        "Service level of packets on the alternate path, 0 to 15: Alternate SL"),
    LAP("alt_subnetlocal", "Alternate Subnet Local", 62, 1, 0x08,
        "1 when the alternate path stays in the subnet, so packets carry no GRH: "
        "Alternate Subnet Local"),
    LAP("alt_localacktout", "Alternate Local ACK Timeout", 63, 1, 0xf8,
        "How long a sender on the alternate path waits for an ACK before it retries: "
        "4.096 microseconds x 2^value: Alternate Local ACK Timeout"),
    HBYTES("roceshark.cm.lap.private", "PrivateData", 64, 168, get_lap, 2,
           "Up to 168 octets the sending application passes to its peer "
           "(IBTA Vol 1 12.8, PrivateData)"),

    /* AlternatePathResponse */
    HCOMM_IDS("roceshark.cm.apr", get_apr, "APR", "12.8"),
    HX("roceshark.cm.apr.addinfolen", "Additional Information Length", 8, 1, 0, get_apr,
       "Octets of Additional Information that count, 0 to 72 "
       "(IBTA Vol 1 12.8, AdditionalInformationLength)"),
    HVALS("roceshark.cm.apr.status", "AP Status", 9, 0, apr_status_vals, get_apr,
          "Whether the receiver of the LAP loaded the alternate path: 0 loaded, any other "
          "value says why not (IBTA Vol 1 12.8, AP Status)"),
    HBYTES("roceshark.cm.apr.addinfo", "Additional Information", 12, 72, get_apr, 2,
           "More on a refusal, such as the value that was wrong "
           "(IBTA Vol 1 12.8, AdditionalInformation)"),
    HBYTES("roceshark.cm.apr.private", "PrivateData", 84, 148, get_apr, 2,
           "Up to 148 octets the answering application passes back "
           "(IBTA Vol 1 12.8, PrivateData)"),
    RS_F_END,
};
