/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ib_headers.h - the fields of each InfiniBand header read (and, where a tool rewrites
 * them, written) at their place in the header: rs_bth_psn(bth), rs_reth_va(reth), ... The
 * layouts are IBTA Vol 1 chapters 7 and 9; each accessor takes a pointer to the first
 * octet of its header (rs_packet_at(pkt, RS_LAYER_BTH), ...), which the caller has made
 * sure was captured whole (the decoder's spans are). The decoder's field tables in
 * dissectors/ib/ name the same octets for the printers and filters; these are for code
 * that needs one value fast (the analysis, the fault engine, the transport, replay, the
 * summary line), so that no one writes an offset by hand.
 */
#ifndef ROCESHARK_IB_HEADERS_H
#define ROCESHARK_IB_HEADERS_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/wire.h>

/* --- LRH (7.7): VL, LVer, SL, LNH, DLID, PktLen, SLID --- */
static inline uint8_t
rs_lrh_vl(const uint8_t *lrh)
{
    return lrh[0] >> 4;
}

static inline uint8_t
rs_lrh_lver(const uint8_t *lrh)
{
    return lrh[0] & 0x0f;
}

static inline uint8_t
rs_lrh_sl(const uint8_t *lrh)
{
    return lrh[1] >> 4;
}

static inline uint8_t
rs_lrh_lnh(const uint8_t *lrh)
{
    return lrh[1] & 0x03;
}

static inline uint16_t
rs_lrh_dlid(const uint8_t *lrh)
{
    return rs_load_be16(lrh + 2);
}

static inline uint16_t
rs_lrh_pktlen(const uint8_t *lrh)
{
    return rs_load_be16(lrh + 4) & 0x7ff;
}

static inline uint16_t
rs_lrh_slid(const uint8_t *lrh)
{
    return rs_load_be16(lrh + 6);
}

/* --- GRH (8.3): IPVer, TClass, FlowLabel, PayLen, NxtHdr, HopLmt, SGID, DGID --- */
static inline uint8_t
rs_grh_ipver(const uint8_t *grh)
{
    return grh[0] >> 4;
}

static inline uint8_t
rs_grh_tclass(const uint8_t *grh)
{
    return (uint8_t)((grh[0] & 0x0f) << 4 | grh[1] >> 4);
}

static inline uint32_t
rs_grh_flowlabel(const uint8_t *grh)
{
    return rs_load_be24(grh + 1) & 0xfffff;
}

static inline uint16_t
rs_grh_paylen(const uint8_t *grh)
{
    return rs_load_be16(grh + 4);
}

static inline uint8_t
rs_grh_nxthdr(const uint8_t *grh)
{
    return grh[6];
}

static inline uint8_t
rs_grh_hoplmt(const uint8_t *grh)
{
    return grh[7];
}

static inline const uint8_t *rs_grh_sgid(const uint8_t *grh) { return grh + 8; }
static inline const uint8_t *rs_grh_dgid(const uint8_t *grh) { return grh + 24; }

/* --- BTH (9.2): OpCode, SE, M, PadCnt, TVer, P_Key, FECN, BECN, DestQP, A, PSN --- */
static inline uint8_t
rs_bth_opcode(const uint8_t *bth)
{
    return bth[0];
}

static inline bool
rs_bth_se(const uint8_t *bth)
{
    return bth[1] & 0x80;
}

static inline bool
rs_bth_migreq(const uint8_t *bth)
{
    return bth[1] & 0x40;
}

static inline uint8_t
rs_bth_padcnt(const uint8_t *bth)
{
    return (bth[1] >> 4) & 0x03;
}

static inline uint8_t
rs_bth_tver(const uint8_t *bth)
{
    return bth[1] & 0x0f;
}

static inline uint16_t
rs_bth_pkey(const uint8_t *bth)
{
    return rs_load_be16(bth + 2);
}

static inline bool
rs_bth_fecn(const uint8_t *bth)
{
    return bth[4] & 0x80;
}

static inline bool
rs_bth_becn(const uint8_t *bth)
{
    return bth[4] & 0x40;
}

static inline uint32_t
rs_bth_destqp(const uint8_t *bth)
{
    return rs_load_be24(bth + 5);
}

static inline bool
rs_bth_ackreq(const uint8_t *bth)
{
    return bth[8] & 0x80;
}

static inline uint32_t
rs_bth_psn(const uint8_t *bth)
{
    return rs_load_be24(bth + 9);
}

static inline void
rs_bth_set_pkey(uint8_t *bth, uint16_t pkey)
{
    rs_store_be16(bth + 2, pkey);
}

static inline void
rs_bth_set_destqp(uint8_t *bth, uint32_t qp)
{
    rs_store_be24(bth + 5, qp);
}

static inline void
rs_bth_set_psn(uint8_t *bth, uint32_t psn)
{
    rs_store_be24(bth + 9, psn);
}

/* --- RDETH (9.3.1): EE-Context --- */
static inline uint32_t
rs_rdeth_ee(const uint8_t *rdeth)
{
    return rs_load_be24(rdeth + 1);
}

/* --- DETH (9.3.2): Q_Key, SrcQP --- */
static inline uint32_t
rs_deth_qkey(const uint8_t *deth)
{
    return rs_load_be32(deth);
}

static inline uint32_t
rs_deth_srcqp(const uint8_t *deth)
{
    return rs_load_be24(deth + 5);
}

/* --- XRCETH (9.3.9): XRCSRQ --- */
static inline uint32_t
rs_xrceth_xrcsrq(const uint8_t *x)
{
    return rs_load_be24(x + 1);
}

/* --- RETH (9.3.3): VA, R_Key, DMA Length --- */
static inline uint64_t
rs_reth_va(const uint8_t *reth)
{
    return rs_load_be64(reth);
}

static inline uint32_t
rs_reth_rkey(const uint8_t *reth)
{
    return rs_load_be32(reth + 8);
}

static inline uint32_t
rs_reth_dmalen(const uint8_t *reth)
{
    return rs_load_be32(reth + 12);
}

static inline void
rs_reth_set_va(uint8_t *reth, uint64_t va)
{
    rs_store_be64(reth, va);
}

static inline void
rs_reth_set_rkey(uint8_t *reth, uint32_t rkey)
{
    rs_store_be32(reth + 8, rkey);
}

/* --- AtomicETH (9.3.4): VA, R_Key, Swap (or Add) Data, Compare Data --- */
static inline uint64_t
rs_atomiceth_va(const uint8_t *a)
{
    return rs_load_be64(a);
}

static inline uint32_t
rs_atomiceth_rkey(const uint8_t *a)
{
    return rs_load_be32(a + 8);
}

static inline uint64_t
rs_atomiceth_swap(const uint8_t *a)
{
    return rs_load_be64(a + 12);
}

static inline uint64_t
rs_atomiceth_compare(const uint8_t *a)
{
    return rs_load_be64(a + 20);
}

static inline void
rs_atomiceth_set_rkey(uint8_t *a, uint32_t rkey)
{
    rs_store_be32(a + 8, rkey);
}

/* --- AETH (9.3.5): Syndrome (rs_aeth_kind() and the code in its low five bits), MSN --- */
static inline uint8_t
rs_aeth_syndrome(const uint8_t *aeth)
{
    return aeth[0];
}

static inline uint8_t
rs_aeth_code(const uint8_t *aeth)
{
    return aeth[0] & 0x1f;
}

static inline uint32_t
rs_aeth_msn(const uint8_t *aeth)
{
    return rs_load_be24(aeth + 1);
}

/* --- AtomicAckETH (9.3.6): Original Remote Data --- */
static inline uint64_t
rs_atomicacketh_orig(const uint8_t *a)
{
    return rs_load_be64(a);
}

/* --- ImmDt (9.3.7) and IETH (9.3.8): Immediate Data, the R_Key to invalidate --- */
static inline uint32_t
rs_immdt_data(const uint8_t *immdt)
{
    return rs_load_be32(immdt);
}

static inline uint32_t
rs_ieth_rkey(const uint8_t *ieth)
{
    return rs_load_be32(ieth);
}

#endif /* ROCESHARK_IB_HEADERS_H */
