/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_info_tshark.c - InfiniBand's Info under --compat tshark: the text tshark 4.0 writes,
 * its quirks included, for scripts that parse it. tshark reads the headers after the BTH
 * by its own table, not IBTA's:
 *
 *   - 0x40-0x5F are Mellanox DC to it, not RD: a BTH of 20 bytes, "DC ..." names (0x43
 *     "DC Last Immediate"), an RD Acknowledge read as an AETH alone, and 0x55 as a
 *     16-byte DCCETH when its SE bit is clear;
 *   - it names no CNP and no XRC opcode ("Unknown OpCode", with no space before "QP=");
 *     "UC RDMA Write First" has no space either;
 *   - bytes after the headers of an opcode without payload are no error to it;
 *   - a reserved opcode's bytes are a "Vendor Specific or Unknown Header Sequence".
 *
 * rs_ib_ws_walk() replays that reading on the packet's bytes: where the AETH it reads
 * lies, and how it ends (a header past the packet raises an exception, a length check
 * fails). Nothing here allocates.
 */
#include <string.h>

#include <roceshark/dissectors/cm_mad.h>
#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/info.h>
#include <roceshark/dissectors/mad.h>
#include <roceshark/dissectors/wire.h>

#define WS_DC_BTH_LEN 20    /* tshark's BTH for 0x40-0x5F: IBA's 12 and 8 more */
#define WS_DCCETH_LEN 16
#define WS_VENDOR_LEN 4     /* the item tshark adds for an unknown header sequence */

/* tshark's header sequences: the headers it reads, in order, and whether it then checks
 * the payload's length. */
enum ws_hdr { WS_RDETH = 4, WS_DETH = 8, WS_RETH = 16, WS_ATOMICETH = 28, WS_AETH = 0x104,
              WS_ATOMICACKETH = 0x108, WS_IMMDT = 0x204, WS_IETH = 0x304,
              WS_DCCETH = 0x410 };

struct ws_seq {
    uint16_t hdr[4];
    bool payload;
};

#define SEQ(p, ...) {{__VA_ARGS__}, p}

/* tshark's sequence for an opcode; false for none (its "unknown header sequence"). */
static bool
ws_sequence(uint8_t opcode, bool dc_connect, struct ws_seq *s)
{
    static const struct ws_seq rc[0x18] = {
        [0x00] = SEQ(true, 0), [0x01] = SEQ(true, 0), [0x02] = SEQ(true, 0),
        [0x03] = SEQ(true, WS_IMMDT), [0x04] = SEQ(true, 0), [0x05] = SEQ(true, WS_IMMDT),
        [0x06] = SEQ(true, WS_RETH), [0x07] = SEQ(true, 0), [0x08] = SEQ(true, 0),
        [0x09] = SEQ(true, WS_IMMDT), [0x0a] = SEQ(true, WS_RETH),
        [0x0b] = SEQ(true, WS_RETH, WS_IMMDT), [0x0c] = SEQ(true, WS_RETH),
        [0x0d] = SEQ(true, WS_AETH), [0x0e] = SEQ(true, 0), [0x0f] = SEQ(true, WS_AETH),
        [0x10] = SEQ(true, WS_AETH), [0x11] = SEQ(false, WS_AETH),
        [0x12] = SEQ(false, WS_AETH, WS_ATOMICACKETH), [0x13] = SEQ(false, WS_ATOMICETH),
        [0x14] = SEQ(false, WS_ATOMICETH), [0x16] = SEQ(true, WS_IETH),
        [0x17] = SEQ(true, WS_IETH),
    };
    static const struct ws_seq rd[0x16] = {
        [0x00] = SEQ(true, WS_RDETH, WS_DETH), [0x01] = SEQ(true, WS_RDETH, WS_DETH),
        [0x02] = SEQ(true, WS_RDETH, WS_DETH), [0x03] = SEQ(true, WS_RDETH, WS_DETH, WS_IMMDT),
        [0x04] = SEQ(true, WS_RDETH, WS_DETH), [0x05] = SEQ(true, WS_RDETH, WS_DETH, WS_IMMDT),
        [0x06] = SEQ(true, WS_RDETH, WS_DETH, WS_RETH), [0x07] = SEQ(true, WS_RDETH, WS_DETH),
        [0x08] = SEQ(true, WS_RDETH, WS_DETH), [0x09] = SEQ(true, WS_RDETH, WS_DETH, WS_IMMDT),
        [0x0a] = SEQ(true, WS_RDETH, WS_DETH, WS_RETH),
        [0x0b] = SEQ(true, WS_RDETH, WS_DETH, WS_RETH, WS_IMMDT),
        [0x0c] = SEQ(false, WS_RDETH, WS_DETH, WS_RETH), [0x0d] = SEQ(true, WS_RDETH, WS_AETH),
        [0x0e] = SEQ(true, WS_RDETH), [0x0f] = SEQ(true, WS_RDETH, WS_AETH),
        [0x10] = SEQ(true, WS_RDETH, WS_AETH), [0x11] = SEQ(false, WS_AETH),
        [0x12] = SEQ(false, WS_RDETH, WS_AETH, WS_ATOMICACKETH),
        [0x13] = SEQ(false, WS_RDETH, WS_DETH, WS_ATOMICETH),
        [0x14] = SEQ(false, WS_RDETH, WS_DETH, WS_ATOMICETH),
    };
    unsigned svc = opcode >> 5, op = opcode & 0x1f;

    memset(s, 0, sizeof(*s));
    switch (svc) {
    case RS_IB_RC:
    case RS_IB_UC:
        if (op >= 0x18 || op == 0x15 || (svc == RS_IB_UC && op > 0x0b))
            return false;
        *s = rc[op];
        return true;
    case RS_IB_RD:
        if (op == 0x15) {
            *s = (struct ws_seq)SEQ(true, dc_connect ? WS_DCCETH : 0);
            return true;
        }
        if (op > 0x15)
            return false;
        *s = rd[op];
        return true;
    case RS_IB_UD:
        if (op != 0x04 && op != 0x05)
            return false;
        *s = (struct ws_seq)SEQ(true, WS_DETH, op == 0x05 ? WS_IMMDT : 0);
        return true;
    default:
        return false;
    }
}

/* The bytes tshark reads the packet in: from the BTH to the end of its buffer (which for
 * native InfiniBand holds the VCRC too), and to the end the packet's length says. */
static void
ws_extent(const struct rs_packet *pkt, uint32_t *tvb_end, uint32_t *ib_end)
{
    const struct rs_span *ib = &pkt->span[RS_LAYER_IB];

    *ib_end = ib->off + ib->len;
    *tvb_end = *ib_end;
    if (rs_packet_has(pkt, RS_LAYER_VCRC))
        *tvb_end = pkt->span[RS_LAYER_VCRC].off + pkt->span[RS_LAYER_VCRC].len;
}

enum rs_ib_ws_end
rs_ib_ws_walk(const struct rs_packet *pkt, const uint8_t **aeth)
{
    const uint8_t *d = pkt->frame->data;
    uint32_t off = pkt->span[RS_LAYER_BTH].off, tvb_end, ib_end;
    uint8_t opcode = d[off];
    bool dc = (opcode >> 5) == RS_IB_RD;
    struct ws_seq s;

    *aeth = NULL;
    ws_extent(pkt, &tvb_end, &ib_end);
    uint32_t bth = dc ? WS_DC_BTH_LEN : RS_BTH_LEN;
    if (!rs_span_fits(off, bth, tvb_end))
        return RS_IB_WS_BTH_SHORT;
    uint32_t pos = off + bth;
    if (!ws_sequence(opcode, !(d[off + 1] & 0x80), &s))
        return rs_span_fits(pos, WS_VENDOR_LEN, tvb_end) ? RS_IB_WS_OK : RS_IB_WS_MALFORMED;
    for (size_t i = 0; i < RS_ARRAY_SIZE(s.hdr) && s.hdr[i] != 0; i++) {
        uint32_t len = s.hdr[i] & 0xff;
        if (s.hdr[i] == WS_DCCETH) {
            pos += len;     /* skipped, with no item of its own to raise an exception */
            continue;
        }
        if (!rs_span_fits(pos, len, tvb_end))
            return RS_IB_WS_MALFORMED;
        if (s.hdr[i] == WS_AETH)
            *aeth = d + pos;
        pos += len;
    }
    /* its payload check: the bytes the packet's length leaves after the headers */
    if (s.payload && pos > ib_end)
        return RS_IB_WS_BAD_LENGTH;
    return RS_IB_WS_OK;
}

/* tshark's name for an opcode in Info, with the space it writes after it; NULL where it
 * writes "Unknown OpCode" (and no space). */
static const char *
ws_info_name(uint8_t opcode, char *buf, size_t size)
{
    unsigned svc = opcode >> 5;
    const struct rs_ib_opcode *op = rs_ib_opcode_info(opcode);
    struct rs_info in = {buf, size, 0, 0};

    buf[0] = '\0';
    if (svc == RS_IB_RD) {
        if ((opcode & 0x1f) > 0x15)
            return NULL;
        if ((opcode & 0x1f) == 0x15)
            return "DC Unknown Opcode ";
        rs_info_str(&in, "DC");
        rs_info_str(&in, (opcode & 0x1f) == 0x03 ? " Last Immediate" : op->name + 2);
        rs_info_str(&in, " ");
        return buf;
    }
    if ((svc != RS_IB_RC && svc != RS_IB_UC && svc != RS_IB_UD) || op->name == NULL)
        return NULL;
    rs_info_str(&in, op->name);
    if (opcode != ((RS_IB_UC << 5) | 0x06))
        rs_info_str(&in, " ");
    return buf;
}

/* A CM MAD, which tshark names by its attribute alone, whatever its version and method;
 * NULL for any other MAD. */
static const char *
cm_mad_name(const uint8_t *mad, uint32_t dest_qp)
{
    if (mad == NULL || dest_qp != RS_CM_QP1 || mad[1] != RS_MAD_CLASS_CM)
        return NULL;
    const char *attr = rs_cm_attr_name(rs_load_be16(mad + 16));
    return attr != NULL ? attr : "(Unknown CM Attribute)";
}

const char *
rs_ib_cm_mad_name(const struct rs_packet *pkt)
{
    size_t len;

    return cm_mad_name(rs_mad_shown(pkt, &len),
                       rs_bth_destqp(rs_packet_at(pkt, RS_LAYER_BTH)));
}

/* tshark's: "RC RDMA Write Only QP=0x000011 " (with its space), the code of a NAK in the
 * AETH it reads ("[Remote Access Error] ", "[Unknown (9)] "; not an RNR NAK's), a MAD's
 * name after it, and a CM MAD's name alone ("CM: ConnectRequest"), and a PerfMgt MAD's
 * ("PERF (PortCounters)"). */
void
rs_ib_write_info_tshark(struct rs_info *in, const struct rs_packet *pkt)
{
    uint32_t qp = rs_bth_destqp(rs_packet_at(pkt, RS_LAYER_BTH));
    size_t len;
    const uint8_t *mad = rs_mad_shown(pkt, &len);
    const char *cm = cm_mad_name(mad, qp);
    const uint8_t *aeth;
    char name[96];

    if (cm != NULL) {
        rs_info_add(in, "CM: %s", cm);
        return;
    }
    enum rs_ib_ws_end end = rs_ib_ws_walk(pkt, &aeth);
    if (end == RS_IB_WS_BTH_SHORT)
        return;     /* it stopped before the opcode's name */
    /* a PerfMgt MAD's name replaces the rest, as a CM MAD's does */
    if (end == RS_IB_WS_OK && mad != NULL && len >= RS_MAD_HDR_LEN &&
        mad[1] == RS_MAD_CLASS_PERF && rs_mad_info(mad, len, name, sizeof(name))) {
        rs_info_str(in, name);
        return;
    }
    const char *op = ws_info_name(pkt->opcode, name, sizeof(name));
    rs_info_str(in, op != NULL ? op : "Unknown OpCode");
    rs_info_hex(in, "QP=0x", qp, 6);
    rs_info_str(in, " ");
    if (aeth != NULL && rs_aeth_kind(rs_aeth_syndrome(aeth)) == RS_AETH_NAK) {
        uint8_t code = rs_aeth_code(aeth);
        const char *nak = rs_aeth_nak_name(code);
        if (nak != NULL)
            rs_info_add(in, "[%s] ", nak);
        else
            rs_info_add(in, "[Unknown (%u)] ", code);
    }
    if (end == RS_IB_WS_OK && mad != NULL && rs_mad_info(mad, len, name, sizeof(name)))
        rs_info_str(in, name);
}
