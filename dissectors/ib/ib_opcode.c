/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_opcode.c - the IBA opcode table: name and header layout of every opcode.
 *
 * IBTA Vol 1, 9.2.1 (BTH OpCode) and 9.3 (which extended headers each
 * packet type carries). The opcode's top three bits select the transport
 * service; the low five bits the operation:
 *
 *   7 6 5 4 3 2 1 0
 *  +-----+---------+
 *  |svc  |  op     |   svc: 0 RC, 1 UC, 2 RD, 3 UD, 4 CNP, 5 XRC, 6-7 vendor
 *  +-----+---------+
 *
 * Extended headers always appear in this order after the BTH:
 * RDETH, DETH, XRCETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH.
 * Wireshark 4.0 reads 0x40-0x5F as Mellanox DC; we follow IBTA and read them
 * as Reliable Datagram, where every request carries RDETH and DETH and every
 * response RDETH. The one table serves the decoder, the printers, the
 * analyzer and the packet builders.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/fields.h>

#define P RS_HDR_PAYLOAD
#define CNP_OPCODE 0x81

/* The 24 operations of RC, in low-five-bit order, with the headers each
 * needs before the service-specific ones are added. */
struct op_template {
    const char *name;
    uint16_t hdrs;
    uint8_t op;
    uint8_t seg;
    uint8_t request;    /* 1 for requests, 0 for responses */
};

static const struct op_template op_templates[32] = {
    [0x00] = {"Send First", P, RS_OP_SEND, RS_SEG_FIRST, 1},
    [0x01] = {"Send Middle", P, RS_OP_SEND, RS_SEG_MIDDLE, 1},
    [0x02] = {"Send Last", P, RS_OP_SEND, RS_SEG_LAST, 1},
    [0x03] = {"Send Last Immediate", RS_HDR_IMMDT | P, RS_OP_SEND, RS_SEG_LAST, 1},
    [0x04] = {"Send Only", P, RS_OP_SEND, RS_SEG_ONLY, 1},
    [0x05] = {"Send Only Immediate", RS_HDR_IMMDT | P, RS_OP_SEND, RS_SEG_ONLY, 1},
    [0x06] = {"RDMA Write First", RS_HDR_RETH | P, RS_OP_WRITE, RS_SEG_FIRST, 1},
    [0x07] = {"RDMA Write Middle", P, RS_OP_WRITE, RS_SEG_MIDDLE, 1},
    [0x08] = {"RDMA Write Last", P, RS_OP_WRITE, RS_SEG_LAST, 1},
    [0x09] = {"RDMA Write Last Immediate", RS_HDR_IMMDT | P, RS_OP_WRITE, RS_SEG_LAST, 1},
    [0x0a] = {"RDMA Write Only", RS_HDR_RETH | P, RS_OP_WRITE, RS_SEG_ONLY, 1},
    [0x0b] = {"RDMA Write Only Immediate", RS_HDR_RETH | RS_HDR_IMMDT | P, RS_OP_WRITE,
              RS_SEG_ONLY, 1},
    [0x0c] = {"RDMA Read Request", RS_HDR_RETH, RS_OP_READ_REQ, RS_SEG_ONLY, 1},
    [0x0d] = {"RDMA Read Response First", RS_HDR_AETH | P, RS_OP_READ_RESP, RS_SEG_FIRST, 0},
    [0x0e] = {"RDMA Read Response Middle", P, RS_OP_READ_RESP, RS_SEG_MIDDLE, 0},
    [0x0f] = {"RDMA Read Response Last", RS_HDR_AETH | P, RS_OP_READ_RESP, RS_SEG_LAST, 0},
    [0x10] = {"RDMA Read Response Only", RS_HDR_AETH | P, RS_OP_READ_RESP, RS_SEG_ONLY, 0},
    [0x11] = {"Acknowledge", RS_HDR_AETH, RS_OP_ACK, RS_SEG_ONLY, 0},
    [0x12] = {"Atomic Acknowledge", RS_HDR_AETH | RS_HDR_ATOMICACKETH, RS_OP_ATOMIC_ACK,
              RS_SEG_ONLY, 0},
    [0x13] = {"Compare Swap", RS_HDR_ATOMICETH, RS_OP_CMP_SWAP, RS_SEG_ONLY, 1},
    [0x14] = {"Fetch Add", RS_HDR_ATOMICETH, RS_OP_FETCH_ADD, RS_SEG_ONLY, 1},
    [0x15] = {"Resync", 0, RS_OP_RESYNC, RS_SEG_ONLY, 1},
    [0x16] = {"Send Last Invalidate", RS_HDR_IETH | P, RS_OP_SEND, RS_SEG_LAST, 1},
    [0x17] = {"Send Only Invalidate", RS_HDR_IETH | P, RS_OP_SEND, RS_SEG_ONLY, 1},
};

/* How Wireshark spells each operation in its opcode names, where its
 * capitals differ from ours ("RDMA READ response First"). */
static const char *const ws_op_names[32] = {
    [0x00] = "SEND First", [0x01] = "SEND Middle", [0x02] = "SEND Last",
    [0x03] = "SEND Last with Immediate", [0x04] = "SEND Only",
    [0x05] = "SEND Only with Immediate", [0x06] = "RDMA WRITE First",
    [0x07] = "RDMA WRITE Middle", [0x08] = "RDMA WRITE Last",
    [0x09] = "RDMA WRITE Last with Immediate", [0x0a] = "RDMA WRITE Only",
    [0x0b] = "RDMA WRITE Only with Immediate", [0x0c] = "RDMA READ Request",
    [0x0d] = "RDMA READ response First", [0x0e] = "RDMA READ response Middle",
    [0x0f] = "RDMA READ response Last", [0x10] = "RDMA READ response Only",
    [0x11] = "Acknowledge", [0x12] = "ATOMIC Acknowledge", [0x13] = "CmpSwap",
    [0x14] = "FetchAdd", [0x15] = "RESYNC", [0x16] = "SEND Last with Invalidate",
    [0x17] = "SEND Only with Invalidate",
};

static struct rs_ib_opcode opcode_table[256];
static char opcode_names[256][40];
static char ws_opcode_names[256][72];

/* The opcodes as Wireshark names them, shown and accepted, and by our
 * shorter names ("RC Send Only"), accepted in filters and scripts. */
struct rs_value_string rs_ib_opcode_ws_vals[258];
struct rs_value_string rs_ib_opcode_vals[257];

static const char *const transport_names[8] = {
    "RC", "UC", "RD", "UD", "CNP", "XRC", "Vendor", "Vendor"
};

/* The transport services as Wireshark's opcode names begin. */
const struct rs_value_string rs_ib_service_vals[] = {
    {RS_IB_RC, "Reliable Connection (RC)"},
    {RS_IB_UC, "Unreliable Connection (UC)"},
    {RS_IB_RD, "Reliable Datagram (RD)"},
    {RS_IB_UD, "Unreliable Datagram (UD)"},
    {RS_IB_CNP, "Congestion Notification (CNP)"},
    {RS_IB_XRC, "Extended Reliable Connection (XRC)"},
    {RS_IB_VENDOR6, "Manufacturer specific"},
    {RS_IB_VENDOR7, "Manufacturer specific"},
    {0, NULL},
};

/* Wireshark's name of an opcode we define, and of RC's 0x15, which it
 * names "Reserved". It writes "only" in UD's two; it names 0x80 "CNP" and
 * leaves 0x81 unnamed, where IBTA (Annex A17.9.3) puts the CNP at 0x81: we
 * name 0x81 "CNP" and leave 0x80 unnamed. */
static const char *
ws_opcode_name(unsigned code, char *buf, size_t size)
{
    unsigned svc = code >> 5, op = code & 0x1f;
    const char *what = ws_op_names[op];

    if (code == CNP_OPCODE)
        return "CNP";
    if (svc == RS_IB_RC && op == 0x15)
        what = "Reserved";
    else if (svc == RS_IB_UD && op == 0x04)
        what = "SEND only";
    else if (svc == RS_IB_UD && op == 0x05)
        what = "SEND only with Immediate";
    snprintf(buf, size, "%s - %s", rs_value_name(rs_ib_service_vals, svc), what);
    return buf;
}

/* Which low-five-bit operations each service defines (IBTA Table 38). */
static int
op_defined(unsigned svc, unsigned op)
{
    switch (svc) {
    case RS_IB_RC:
        return op <= 0x17 && op != 0x15;
    case RS_IB_UC:
        return op <= 0x0b;
    case RS_IB_RD:
        return op <= 0x15;
    case RS_IB_UD:
        return op == 0x04 || op == 0x05;
    case RS_IB_XRC:
        return op <= 0x17 && op != 0x15;
    default:
        return 0;
    }
}

static uint16_t
service_headers(unsigned svc, const struct op_template *t)
{
    uint16_t hdrs = t->hdrs;

    if (svc == RS_IB_RD)
        hdrs |= t->request ? (RS_HDR_RDETH | RS_HDR_DETH) : RS_HDR_RDETH;
    else if (svc == RS_IB_UD)
        hdrs |= RS_HDR_DETH;
    else if (svc == RS_IB_XRC && t->request)
        hdrs |= RS_HDR_XRCETH;
    return hdrs;
}

__attribute__((constructor)) static void
opcode_table_init(void)
{
    for (unsigned code = 0; code < 256; code++) {
        unsigned svc = code >> 5, op = code & 0x1f;
        struct rs_ib_opcode *e = &opcode_table[code];

        if (!op_defined(svc, op))
            continue;
        const struct op_template *t = &op_templates[op];
        e->hdrs = service_headers(svc, t);
        e->hdrs_len = (uint8_t)rs_ib_hdrs_len(e->hdrs);
        e->op = t->op;
        e->seg = t->seg;
        snprintf(opcode_names[code], sizeof(opcode_names[code]), "%s %s",
                 transport_names[svc], t->name);
        e->name = opcode_names[code];
    }
    /* CNP (Annex A17.9.3): BTH, 16 reserved bytes, ICRC. */
    opcode_table[CNP_OPCODE] = (struct rs_ib_opcode){"CNP", RS_HDR_CNP, RS_CNP_LEN, RS_OP_CNP,
                                                     RS_SEG_NONE};

    size_t n = 0, n_ws = 0;
    for (unsigned code = 0; code < 256; code++) {
        bool rc_reserved = code == ((RS_IB_RC << 5) | 0x15);
        if (opcode_table[code].name == NULL && !rc_reserved)
            continue;
        rs_ib_opcode_ws_vals[n_ws++] = (struct rs_value_string){
            code, ws_opcode_name(code, ws_opcode_names[code], sizeof(ws_opcode_names[code]))};
        if (!rc_reserved)
            rs_ib_opcode_vals[n++] = (struct rs_value_string){code, opcode_table[code].name};
    }
    rs_ib_opcode_ws_vals[n_ws] = (struct rs_value_string){0, NULL};
    rs_ib_opcode_vals[n] = (struct rs_value_string){0, NULL};
}

const struct rs_ib_opcode *
rs_ib_opcode_info(uint8_t opcode)
{
    return &opcode_table[opcode];
}

const char *
rs_ib_transport_name(uint8_t opcode)
{
    return transport_names[opcode >> 5];
}

unsigned
rs_ib_hdrs_len(uint16_t hdrs)
{
    static const struct {
        uint16_t bit;
        uint8_t len;
    } sizes[] = {
        {RS_HDR_RDETH, RS_RDETH_LEN},   {RS_HDR_DETH, RS_DETH_LEN},
        {RS_HDR_XRCETH, RS_XRCETH_LEN}, {RS_HDR_RETH, RS_RETH_LEN},
        {RS_HDR_ATOMICETH, RS_ATOMICETH_LEN}, {RS_HDR_AETH, RS_AETH_LEN},
        {RS_HDR_ATOMICACKETH, RS_ATOMICACKETH_LEN}, {RS_HDR_IMMDT, RS_IMMDT_LEN},
        {RS_HDR_IETH, RS_IETH_LEN},     {RS_HDR_CNP, RS_CNP_LEN},
    };
    unsigned len = 0;

    for (size_t i = 0; i < RS_ARRAY_SIZE(sizes); i++)
        if (hdrs & sizes[i].bit)
            len += sizes[i].len;
    return len;
}
