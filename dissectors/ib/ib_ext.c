/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_ext.c - fields of the extended transport headers (IBTA Vol 1, 9.3).
 * The AETH, which needs decoding beyond its bits, lives in ib_aeth.c.
 *
 * RDETH (4):  | Reserved (8) | EE-Context (24) |
 * DETH (8):   | Q_Key (32) |
 *             | Reserved (8) | Source QP (24) |
 * XRCETH (4): | Reserved (8) | XRC SRQ (24) |
 * RETH (16):  | Virtual Address (64) | R_Key (32) | DMA Length (32) |
 * AtomicETH (28):
 *             | Virtual Address (64) | R_Key (32) |
 *             | Swap (or Add) Data (64) | Compare Data (64) |
 * AtomicAckETH (8): | Original Remote Data (64) |
 * ImmDt (4):  | Immediate Data (32) |
 * IETH (4):   | R_Key to invalidate (32) |
 * CNP (16):   | Reserved (128) |       (RoCEv2, Annex A17.9.3)
 *
 * Wireshark shows the VA and R_Key of an AtomicETH under the RETH field
 * names, so both tables declare infiniband.reth.va and .r_key: one name,
 * two places it can come from.
 */
#include <stdio.h>
#include <string.h>

#include "fields/fields_int.h"

size_t
rs_ib_header_label(const struct rs_packet *pkt, const struct rs_field *f,
                   const struct rs_value *v, char *buf, size_t size)
{
    static const struct {
        const char *abbrev, *text;
    } lines[] = {
        {"infiniband.rdeth", "RDETH - Reliable Datagram Extended Transport Header"},
        {"infiniband.deth", "DETH - Datagram Extended Transport Header"},
        {"infiniband.reth", "RETH - RDMA Extended Transport Header"},
        {"infiniband.atomiceth", "AtomicETH - Atomic Extended Transport Header"},
        {"infiniband.aeth", "AETH - ACK Extended Transport Header"},
        {"infiniband.atomicacketh", "ATOMICACKETH - Atomic ACK Extended Transport Header"},
        {"infiniband.ieth", "IETH - Invalidate Extended Transport Header"},
        {"infiniband.immdt", "IMMDT - Immediate Data Extended Transport Header"},
        /* a field whose item Wireshark writes another text in its tree than its name */
        {"infiniband.mad", "MAD Header - Common Management Datagram"},
        {"infiniband.payload", "IBA Payload - appears to be EtherType encapsulated"},
    };

    (void)pkt;
    (void)v;
    for (size_t i = 0; i < RS_ARRAY_SIZE(lines); i++)
        if (strcmp(lines[i].abbrev, f->abbrev) == 0)
            return (size_t)snprintf(buf, size, "%s", lines[i].text);
    return 0;
}

/* A reserved part of a header: Wireshark's infiniband.reserved, its bytes as they are. */
#define IB_RESERVED(layer, off, width) \
    {"infiniband.reserved", "Reserved", RS_FT_BYTES, RS_BASE_NONE, 0, NULL, "Reserved", \
     layer, off, width, NULL, 2}

static bool
get_present(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
            struct rs_value *out)
{
    if (occ != 0 || !rs_packet_has(pkt, (enum rs_layer)f->layer))
        return false;
    return rs_value_set_uint(out, RS_FT_BOOLEAN, 1);
}

const struct rs_field rs_fields_ib_ext[] = {
    RS_F_HDR_IB("infiniband.rdeth", "Reliable Datagram Extended Transport Header",
             RS_LAYER_RDETH, 1),
    {"infiniband.rdeth.eecnxt", "E2E Context", RS_FT_UINT24, RS_BASE_DEC, 0, NULL,
     "End-to-end context", RS_LAYER_RDETH, 1, 3, NULL, 2},
    RS_F_HDR_IB("infiniband.deth", "Datagram Extended Transport Header", RS_LAYER_DETH, 1),
    {"infiniband.deth.q_key", "Queue Key", RS_FT_UINT64, RS_BASE_HEX, 0, NULL, "Q_Key",
     RS_LAYER_DETH, 0, 4, NULL, 2},
    IB_RESERVED(RS_LAYER_DETH, 4, 1),
    {"infiniband.deth.srcqp", "Source Queue Pair", RS_FT_UINT32, RS_BASE_HEX, 0, NULL,
     "Sender's QP number", RS_LAYER_DETH, 5, 3, NULL, 2},
    {"roceshark.xrceth", "XRC Extended Transport Header", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
     "The 4 octets after the BTH of an XRC request: the SRQ it goes to (IBTA Vol 1 Annex A14, "
     "XRCETH), which Wireshark 4.0 does not decode", RS_LAYER_XRCETH, 0, 0, NULL, 1,
     RS_FIELD_HEADER},
    {"roceshark.xrceth.xrcsrq", "XRC Shared Receive Queue", RS_FT_UINT24, RS_BASE_HEX, 0, NULL,
     "XRC SRQ number the request targets", RS_LAYER_XRCETH, 1, 3, NULL, 2},
    RS_F_HDR_IB("infiniband.reth", "RDMA Extended Transport Header", RS_LAYER_RETH, 1),
    {"infiniband.reth.va", "Virtual Address", RS_FT_UINT64, RS_BASE_HEX, 0, NULL,
     "Remote virtual address", RS_LAYER_RETH, 0, 8, NULL, 2},
    {"infiniband.reth.r_key", "Remote Key", RS_FT_UINT32, RS_BASE_HEX, 0, NULL, "R_Key",
     RS_LAYER_RETH, 8, 4, NULL, 2},
    {"infiniband.reth.dmalen", "DMA Length", RS_FT_UINT32, RS_BASE_DEC_HEX, 0, NULL,
     "Bytes the whole RDMA operation moves", RS_LAYER_RETH, 12, 4, NULL, 2},
    RS_F_HDR_IB("infiniband.atomiceth", "Atomic Extended Transport Header", RS_LAYER_ATOMICETH,
             1),
    {"infiniband.reth.va", "Virtual Address", RS_FT_UINT64, RS_BASE_HEX, 0, NULL,
     "Remote virtual address", RS_LAYER_ATOMICETH, 0, 8, NULL, 2},
    {"infiniband.reth.r_key", "Remote Key", RS_FT_UINT32, RS_BASE_HEX, 0, NULL, "R_Key",
     RS_LAYER_ATOMICETH, 8, 4, NULL, 2},
    {"infiniband.atomiceth.swapdt", "Swap (Or Add) Data", RS_FT_UINT64, RS_BASE_DEC, 0, NULL,
     "Swap or add operand", RS_LAYER_ATOMICETH, 12, 8, NULL, 2},
    {"infiniband.atomiceth.cmpdt", "Compare Data", RS_FT_UINT64, RS_BASE_DEC, 0, NULL,
     "Compare operand", RS_LAYER_ATOMICETH, 20, 8, NULL, 2},
    RS_F_END,
};

/* The headers that come after the AETH (ib_aeth.c) on the wire, and so in the tree. */
const struct rs_field rs_fields_ib_ext_after_aeth[] = {
    RS_F_HDR_IB("infiniband.atomicacketh", "Atomic ACK Extended Transport Header",
             RS_LAYER_ATOMICACKETH, 1),
    {"infiniband.atomicacketh.origremdt", "Original Remote Data", RS_FT_UINT64, RS_BASE_DEC, 0,
     NULL, "Value at the address before the atomic", RS_LAYER_ATOMICACKETH, 0, 8, NULL, 2},
    /* Wireshark names both the header and the value inside it infiniband.immdt (and
     * infiniband.ieth), so -T fields prints each value twice; so do we. */
    RS_F_HDR_IB("infiniband.immdt", "Immediate Data Extended Transport Header", RS_LAYER_IMMDT, 1),
    {"infiniband.immdt", "Immediate Data", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
     "Immediate data, as sent", RS_LAYER_IMMDT, 0, 4, NULL, 2},
    RS_F_HDR_IB("infiniband.ieth", "Invalidate Extended Transport Header", RS_LAYER_IETH, 1),
    {"infiniband.ieth", "RKey", RS_FT_BYTES, RS_BASE_NONE, 0, NULL,
     "R_Key to invalidate", RS_LAYER_IETH, 0, 4, NULL, 2},
    {"roceshark.cnp", "Congestion Notification Packet", RS_FT_BOOLEAN, RS_BASE_NONE, 0, NULL,
     "Present on RoCEv2 CNPs (opcode 0x81)", RS_LAYER_CNP, 0, 0, get_present, 1},
    RS_F_END,
};
