/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fields_roceshark.c - roceshark.* fields: what we add on top of Wireshark's
 * fields for every RDMA frame (checksum verdicts, payload length without
 * pad, the encapsulation, and whether the frame is malformed).
 */
#include <roceshark/dissectors/dissect.h>

#include "fields/fields_int.h"

/* A flag's names, Wireshark's tfs_set_notset. */
const struct rs_value_string rs_set_vals[] = {{0, "Not set"}, {1, "Set"}, {0, NULL}};

/* roceshark.*.status of every CRC: enum rs_cksum_status. */
const struct rs_value_string rs_cksum_vals[] = {
    {RS_CKSUM_BAD, "Bad"},
    {RS_CKSUM_GOOD, "Good"},
    {RS_CKSUM_UNVERIFIED, "Unverified"},
    {RS_CKSUM_NOT_PRESENT, "Not present"},
    {RS_CKSUM_ILLEGAL, "Illegal"},
    {0, NULL},
};

static const char *const encap_names[] = {
    [RS_ENCAP_NONE] = NULL,
    [RS_ENCAP_ROCEV1] = "rocev1",
    [RS_ENCAP_ROCEV2] = "rocev2",
    [RS_ENCAP_IB] = "ib",
    [RS_ENCAP_IWARP] = "iwarp",
};

static bool
get_proto(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          struct rs_value *out)
{
    (void)f;
    if (occ != 0 || pkt->encap == RS_ENCAP_NONE)
        return false;
    out->type = RS_FT_PROTOCOL;
    return true;
}

static bool
get_encap(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          struct rs_value *out)
{
    (void)f;
    if (occ != 0 || pkt->encap == RS_ENCAP_NONE || pkt->encap >= RS_ARRAY_SIZE(encap_names))
        return false;
    out->type = RS_FT_STRING;
    out->v.str = encap_names[pkt->encap];
    return true;
}

/* The offset column picks ICRC (0) or VCRC (1). */
static bool
get_crc_status(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               struct rs_value *out)
{
    if (occ != 0)
        return false;
    if (f->offset == 0 ? !rs_packet_has(pkt, RS_LAYER_BTH) : !rs_packet_has(pkt, RS_LAYER_LRH))
        return false;
    return rs_value_set_uint(out, f->type,
                             f->offset == 0 ? pkt->icrc_status : pkt->vcrc_status);
}

/* Shown in wire byte order, the way infiniband.*.crc show the received one,
 * so the two can be compared by eye. */
static bool
get_crc_computed(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    uint8_t status = f->offset == 0 ? pkt->icrc_status : pkt->vcrc_status;

    if (occ != 0 || (status != RS_CKSUM_GOOD && status != RS_CKSUM_BAD))
        return false;
    if (f->offset == 0)
        return rs_value_set_uint(out, f->type, __builtin_bswap32(pkt->icrc_computed));
    return rs_value_set_uint(out, f->type, __builtin_bswap16(pkt->vcrc_computed));
}

static bool
get_payload_len(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_PAYLOAD))
        return false;
    return rs_value_set_uint(out, f->type, pkt->payload_len);
}

/* Absent when empty, as Wireshark has no empty byte field to show. */
static bool
get_payload(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    if (!rs_field_get_generic(pkt, f, occ, out) || out->v.bytes.len == 0)
        return false;
    return true;
}

static bool
get_malformed(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out)
{
    if (occ != 0 || !(pkt->flags & f->mask))
        return false;
    return rs_value_set_uint(out, RS_FT_BOOLEAN, 1);
}

static bool
get_problem(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    (void)f;
    if (occ != 0 || pkt->problem == NULL)
        return false;
    out->type = RS_FT_STRING;
    out->v.str = pkt->problem;
    return true;
}

const struct rs_field rs_fields_roceshark[] = {
    {"roceshark", "roceshark", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "roceshark's checks and analysis", RS_NO_LAYER, 0, 0, get_proto, 0},
    {"roceshark.encap", "Encapsulation", RS_FT_STRING, RS_BASE_NONE, 0, NULL,
     "How the RDMA traffic travels: rocev1 (Ethernet), rocev2 (UDP), ib (native InfiniBand) "
     "or iwarp (TCP)", RS_NO_LAYER, 0, 0, get_encap, 1},
    {"roceshark.icrc.status", "ICRC status", RS_FT_UINT8, RS_BASE_DEC, 0, rs_cksum_vals,
     "Whether the Invariant CRC matches the frame: 0 bad, 1 good, 2 unverified (bytes not "
     "captured), 3 not present", RS_NO_LAYER, 0, 0, get_crc_status, 1},
    {"roceshark.icrc.computed", "ICRC computed", RS_FT_UINT32, RS_BASE_HEX, 0, NULL,
     "The ICRC the frame should carry, in infiniband.invariant.crc's byte order",
     RS_NO_LAYER, 0, 0, get_crc_computed, 1},
    {"roceshark.vcrc.status", "VCRC status", RS_FT_UINT8, RS_BASE_DEC, 0, rs_cksum_vals,
     "Native InfiniBand only: whether the Variant CRC matches the frame: 0 bad, 1 good, "
     "2 unverified (bytes not captured), 3 not present", RS_NO_LAYER, 1, 0,
     get_crc_status, 1},
    {"roceshark.vcrc.computed", "VCRC computed", RS_FT_UINT16, RS_BASE_HEX, 0, NULL,
     "The VCRC the frame should carry, in infiniband.variant.crc's byte order", RS_NO_LAYER,
     1, 0, get_crc_computed, 1},
    {"roceshark.payload.len", "Payload length", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "IB payload bytes, without the pad", RS_NO_LAYER, 0, 0, get_payload_len, 1},
    {"roceshark.payload", "Payload", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
     "IB payload without the pad (as captured); absent when empty", RS_LAYER_PAYLOAD, 0, 0,
     get_payload, 1},
    {"roceshark.malformed", "Malformed", RS_FT_BOOLEAN, RS_BASE_NONE, RS_PKT_MALFORMED, NULL,
     "Set when the frame is cut short or its headers contradict each other (Problem says "
     "which)", RS_NO_LAYER, 0, 0, get_malformed, 1},
    {"roceshark.truncated", "Truncated", RS_FT_BOOLEAN, RS_BASE_NONE, RS_PKT_SNAPLEN, NULL,
     "Set when the capture kept only the start of the frame (its snapshot length)",
     RS_NO_LAYER, 0, 0, get_malformed, 1},
    {"roceshark.problem", "Problem", RS_FT_STRING, RS_BASE_NONE, 0, NULL,
     "Why the frame is malformed", RS_NO_LAYER, 0, 0, get_problem, 1},
    RS_F_END,
};
