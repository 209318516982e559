/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_aeth.c - ACK Extended Transport Header (IBTA Vol 1, 9.3.5 and 9.7.5.1).
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+---+---------+-----------------------------------------------+
 * |0|Opc|  Value  |             Message Sequence Number           |
 * +-+---+---------+-----------------------------------------------+
 *
 * The syndrome's two opcode bits say what the five value bits mean:
 * 0 ACK (credit count), 1 RNR NAK (timer), 2 reserved, 3 NAK (error code).
 * Wireshark shows the value under a different field name for each, so the
 * field table does too; we add the decoded credits, delay and NAK name.
 */
#include "fields/fields_int.h"

#include <stdio.h>

#include <roceshark/dissectors/dissect.h>

/* Table 45: RNR NAK timer codes, in microseconds. Code 0 is the longest. */
static const uint32_t rnr_timer_us[32] = {
    655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,   320,
    480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240, 15360,
    20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* Table 44: credit codes. Code 31 means the responder sends no credits. */
static const uint16_t credit_counts[31] = {
    0,    1,    2,    3,    4,    6,    8,     12,    16,    24,    32,
    48,   64,   96,   128,  192,  256,  384,   512,   768,   1024,  1536,
    2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
};

static const struct rs_value_string nak_vals[] = {
    {RS_NAK_PSN_SEQ_ERROR, "PSN Sequence Error"},
    {RS_NAK_INVALID_REQUEST, "Invalid Request"},
    {RS_NAK_REMOTE_ACCESS_ERROR, "Remote Access Error"},
    {RS_NAK_REMOTE_OPERATIONAL_ERROR, "Remote Operational Error"},
    {RS_NAK_INVALID_RD_REQUEST, "Invalid RD Request"},
    {0, NULL},
};

/* As Wireshark names them; filters take "ACK" and "RNR NAK" as well, since
 * value names compare without regard to case. */
static const struct rs_value_string kind_vals[] = {
    {RS_AETH_ACK, "Ack"},
    {RS_AETH_RNR_NAK, "RNR Nak"},
    {RS_AETH_RESERVED, "Reserved"},
    {RS_AETH_NAK, "Nak"},
    {0, NULL},
};

/* The RNR NAK timer codes as Wireshark names them ("0.01 ms"), made from
 * rnr_timer_us below. */
static char timer_names[32][16];
static struct rs_value_string timer_vals[33];

__attribute__((constructor)) static void
timer_vals_init(void)
{
    for (unsigned code = 0; code < 32; code++) {
        uint32_t us = rnr_timer_us[code];
        snprintf(timer_names[code], sizeof(timer_names[code]), "%u.%02u ms", us / 1000,
                 us % 1000 / 10);
        timer_vals[code] = (struct rs_value_string){code, timer_names[code]};
    }
    timer_vals[32] = (struct rs_value_string){0, NULL};
}

/* "31, Ack": Wireshark follows the syndrome byte with what its opcode bits say. */
static size_t
show_syndrome(const struct rs_field *f, const struct rs_value *v, char *buf, size_t size)
{
    (void)f;
    int n = snprintf(buf, size, "%u, %s", (unsigned)v->v.u,
                     rs_value_name(kind_vals, rs_aeth_kind((uint8_t)v->v.u)));
    return n > 0 ? (size_t)n : 0;
}

uint32_t
rs_aeth_rnr_timer_us(uint8_t timer)
{
    return rnr_timer_us[timer & 0x1f];
}

int
rs_aeth_credits(uint8_t code)
{
    code &= 0x1f;
    return code == RS_AETH_CREDITS_INVALID ? -1 : credit_counts[code];
}

uint8_t
rs_aeth_credit_code(uint32_t credits)
{
    uint8_t code = 0;

    while (code + 1 < RS_AETH_CREDITS_INVALID && credit_counts[code + 1] <= credits)
        code++;
    return code;
}

const char *
rs_aeth_nak_name(uint8_t code)
{
    return rs_value_name(nak_vals, code);
}

/* The low five bits, present only under the syndrome kind the field's
 * offset column names (the offset itself is 0 for every AETH subfield). */
static bool
get_syndrome_value(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                   struct rs_value *out, enum rs_aeth_kind kind)
{
    if (occ != 0 || !rs_packet_has(pkt, RS_LAYER_AETH))
        return false;
    uint8_t syn = rs_packet_at(pkt, RS_LAYER_AETH)[0];
    if (rs_aeth_kind(syn) != kind)
        return false;
    return rs_value_set_uint(out, f->type, syn & 0x1f);
}

static bool
get_credit_count(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                 struct rs_value *out)
{
    return get_syndrome_value(pkt, f, occ, out, RS_AETH_ACK);
}

static bool
get_timer(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          struct rs_value *out)
{
    return get_syndrome_value(pkt, f, occ, out, RS_AETH_RNR_NAK);
}

static bool
get_reserved_value(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
                   struct rs_value *out)
{
    return get_syndrome_value(pkt, f, occ, out, RS_AETH_RESERVED);
}

static bool
get_error_code(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
               struct rs_value *out)
{
    return get_syndrome_value(pkt, f, occ, out, RS_AETH_NAK);
}

static bool
get_credits(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    if (!get_credit_count(pkt, f, occ, out) || out->v.u == RS_AETH_CREDITS_INVALID)
        return false;
    out->v.u = (uint64_t)rs_aeth_credits((uint8_t)out->v.u);
    return true;
}

static bool
get_rnr_delay(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
              struct rs_value *out)
{
    if (!get_timer(pkt, f, occ, out))
        return false;
    out->type = RS_FT_RELTIME;
    out->v.t = rs_time_from_ns((int64_t)rs_aeth_rnr_timer_us((uint8_t)out->v.u) * 1000);
    return true;
}

const struct rs_field rs_fields_ib_aeth[] = {
    RS_F_HDR_IB("infiniband.aeth", "ACK Extended Transport Header", RS_LAYER_AETH, 1),
    {"infiniband.aeth.syndrome", "Syndrome", RS_FT_UINT8, RS_BASE_DEC, 0, NULL,
     "ACK/NAK syndrome", RS_LAYER_AETH, 0, 1, NULL, 2, .show = show_syndrome},
    {"infiniband.aeth.syndrome.reserved", "Reserved", RS_FT_UINT8, RS_BASE_DEC, 0x80, NULL,
     "Reserved bit", RS_LAYER_AETH, 0, 1, NULL, 3},
    {"infiniband.aeth.syndrome.opcode", "OpCode", RS_FT_UINT8, RS_BASE_DEC, 0x60, kind_vals,
     "0 ACK, 1 RNR NAK, 2 reserved, 3 NAK", RS_LAYER_AETH, 0, 1, NULL, 3},
    {"infiniband.aeth.syndrome.credit_count", "Credit Count", RS_FT_UINT8, RS_BASE_DEC, 0x1f,
     NULL, "Credit code of an ACK", RS_LAYER_AETH, 0, 1, get_credit_count, 3},
    {"infiniband.aeth.syndrome.timer", "Timer", RS_FT_UINT8, RS_BASE_DEC, 0x1f, timer_vals,
     "RNR NAK timer code", RS_LAYER_AETH, 0, 1, get_timer, 3},
    {"infiniband.aeth.syndrome.reserved_value", "Reserved", RS_FT_UINT8, RS_BASE_DEC, 0x1f,
     NULL, "Value bits of a reserved syndrome", RS_LAYER_AETH, 0, 1, get_reserved_value, 3},
    {"infiniband.aeth.syndrome.error_code", "Error Code", RS_FT_UINT8, RS_BASE_DEC, 0x1f,
     nak_vals, "NAK code", RS_LAYER_AETH, 0, 1, get_error_code, 3},
    {"roceshark.aeth.credits", "Credits", RS_FT_UINT32, RS_BASE_DEC, 0, NULL,
     "Receive credits the credit code stands for (absent for code 31)", RS_LAYER_AETH, 0, 1,
     get_credits, 3},
    {"roceshark.aeth.rnr_delay", "RNR delay", RS_FT_RELTIME, RS_BASE_NONE, 0, NULL,
     "Seconds the RNR NAK timer asks the requester to wait", RS_LAYER_AETH, 0, 1,
     get_rnr_delay, 3},
    {"infiniband.aeth.msn", "Message Sequence Number", RS_FT_UINT24, RS_BASE_DEC, 0, NULL,
     "Sequence number of the last completed message", RS_LAYER_AETH, 1, 3, NULL, 2},
    RS_F_END,
};
