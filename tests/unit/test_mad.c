/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_mad.c - MADs built and read through the same field tables: the SA
 * PathRecord response and the directed-route SMInfo response of the real
 * capture tests/captures/real/srinivaskoritala_rdma-softroce-demo__infiniband.pcap
 * (frames 33 and 2) are built with rs_mad_set() byte for byte, then decoded
 * from a packet to the values tshark 4.0 shows (the D bit as IBTA has it);
 * unknown names, byte fields and ClassPortInfo's class-relative offsets;
 * an SMP attribute read where an SMP and where an SA record carry it, and a
 * trap's details only for its trap number; an SMP's and an SA MAD's trees nested as
 * tshark's;
 * the CM's registry fields read what the CM engine's layout (cm_mad.h) reads, and a
 * REQ's reserved words are lines of its tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/dissectors/cm_mad.h>
#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/encode.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/mad.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/wire.h>

#include "testutil.h"

/* Frame 33's MAD (SubnAdmGetResp(PathRecord)), its trailing zeros left off. */
static const char path_resp[] =
    "01030281000000000000000bb9647f9e0035000000000000000000000000000000000000000000000000"
    "000000080000000000000000340c0000000000000000fe800000000000000002c90300001895fe800000"
    "000000000002c9020024f63600020004000000000080ffff0000848392";

/* The MAD in hex, its trailing zeros put back. */
static void
from_hex(const char *hex, uint8_t mad[RS_MAD_LEN])
{
    static struct test_frame tf;

    test_frame_from_hex(&tf, hex, 0);
    memset(mad, 0, RS_MAD_LEN);
    memcpy(mad, tf.bytes, tf.frame.caplen);
}

static const uint8_t dgid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x02, 0xc9, 0x03, 0, 0, 0x18,
                                 0x95};
static const uint8_t sgid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x02, 0xc9, 0x02, 0, 0x24,
                                 0xf6, 0x36};

static void
build_path_resp(uint8_t mad[RS_MAD_LEN])
{
    rs_mad_start(mad, RS_MAD_CLASS_SA, 2, RS_MAD_GET | RS_MAD_RESP, RS_SA_ATTR_PATH_RECORD, 0,
                 0xbb9647f9eull);
    assert_int_equal(rs_mad_set(mad, "infiniband.sa.attributeoffset", 8), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.sa.componentmask", 0x340c), 0);
    assert_int_equal(rs_mad_set_bytes(mad, "infiniband.pathrecord.dgid", dgid, 16), 0);
    assert_int_equal(rs_mad_set_bytes(mad, "infiniband.pathrecord.sgid", sgid, 16), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.pathrecord.dlid", 2), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.pathrecord.slid", 4), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.pathrecord.reversible", 1), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.pathrecord.p_key", 0xffff), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.pathrecord.mtuselector", 2), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.pathrecord.mtu", 4), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.pathrecord.rateselector", 2), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.pathrecord.rate", 3), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.pathrecord.packetlifetimeselector", 2), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.pathrecord.packetlifetime", 0x12), 0);
}

static void
test_build_matches_capture(void **state)
{
    uint8_t want[RS_MAD_LEN], got[RS_MAD_LEN];

    (void)state;
    from_hex(path_resp, want);
    build_path_resp(got);
    assert_memory_equal(got, want, RS_MAD_LEN);
}

/* The MAD as a UD SEND to qp over native IB, decoded into pkt. */
struct packet {
    uint8_t buf[512];
    struct rs_frame frame;
    struct rs_packet pkt;
};

static void
packet_of(struct packet *p, const uint8_t mad[RS_MAD_LEN], uint32_t qp)
{
    struct rs_lrh_fields l = {.dlid = 4, .slid = 1};
    struct rs_ib_fields f = {.opcode = 0x64, .pkey = 0xffff, .dest_qp = qp};
    struct rs_packet view;
    struct rs_decode_opts o;

    f.deth.qkey = RS_MAD_QKEY;
    f.deth.src_qp = qp;
    assert_true(rs_encode_ib(p->buf, sizeof(p->buf), &l, NULL, &f, mad, RS_MAD_LEN, &p->frame,
                             &view) > 0);
    rs_decode_opts_init(&o);
    rs_decode_frame(&p->frame, &o, &p->pkt);
}

/* Field name's value number occ as tshark -T fields prints it, over every entry of the
 * name as -e reads them (an SMP's attribute item, then its own items), or "". Four
 * buffers in turn, so that two values compare. */
static const char *
value(const struct packet *p, const char *name, unsigned occ)
{
    static char texts[4][600];
    static unsigned turn;
    char *text = texts[turn++ % 4];
    struct rs_value v;
    int id = rs_field_lookup(name);

    assert_true(id >= 0);
    text[0] = '\0';
    for (; id >= 0; id = rs_field_next_alias(id))
        for (unsigned n = 0; rs_field_value(&p->pkt, id, n, &v); n++)
            if (occ-- == 0) {
                rs_value_format(rs_field_by_id(id), &v, text, sizeof(texts[0]));
                return text;
            }
    return text;
}

/* The packet's -V tree, to free. */
static char *
tree_text(const struct packet *p)
{
    char *text = test_printed(rs_print_tree, &p->pkt);

    assert_non_null(text);
    return text;
}

static void
test_decode_path_record(void **state)
{
    static struct packet p;
    uint8_t mad[RS_MAD_LEN];

    (void)state;
    build_path_resp(mad);
    packet_of(&p, mad, 1);
    assert_string_equal(value(&p, "infiniband.mad.mgmtclass", 0), "0x03");
    assert_string_equal(value(&p, "infiniband.mad.method", 0), "0x81");
    assert_string_equal(value(&p, "infiniband.mad.transactionid", 0), "0x0000000bb9647f9e");
    assert_string_equal(value(&p, "infiniband.rmpp.rmpptype", 0), "0x00");
    assert_string_equal(value(&p, "infiniband.rmpp.data1", 0), "0x00000000");
    assert_string_equal(value(&p, "infiniband.rmpp.segmentnumber", 0), "");
    assert_string_equal(value(&p, "infiniband.sa.attributeoffset", 0), "0x0008");
    assert_string_equal(value(&p, "infiniband.pathrecord.dgid", 0), "fe80::2:c903:0:1895");
    assert_string_equal(value(&p, "infiniband.pathrecord.dlid", 0), "0x0002");
    assert_string_equal(value(&p, "infiniband.pathrecord.flowlabel", 0), "0x000000");
    assert_string_equal(value(&p, "infiniband.pathrecord.sl", 0), "0x0000");
    assert_string_equal(value(&p, "infiniband.pathrecord.packetlifetime", 0), "0x12");
    /* The SA's three items: the MAD, its data, the record. */
    assert_int_equal(strlen(value(&p, "infiniband.sa.drdlid", 2)), 2 * 64);
    assert_string_equal(value(&p, "infiniband.sa.drdlid", 3), "");
    /* ... titled and nested as tshark's, with the reserved octets between */
    char *t = tree_text(&p);
    assert_non_null(strstr(t, "\n    SA SubnAdmGetResp(PathRecord)\n"));
    assert_non_null(strstr(t, "\n        Attribute Offset: 0x0008\n        Reserved: 0000\n"));
    assert_non_null(strstr(t, "\n        Attribute (PathRecord)\n            PathRecord\n"
                              "                Reserved: 0000000000000000\n"
                              "                DGID: fe80::2:c903:0:1895\n"));
    free(t);
    /* Another class's fields are absent. */
    assert_string_equal(value(&p, "infiniband.sminfo.guid", 0), "");
    assert_string_equal(value(&p, "infiniband.mcmemberrecord.mlid", 0), "");
    /* Not a MAD: the same payload to another QP. */
    packet_of(&p, mad, 7);
    assert_string_equal(value(&p, "infiniband.mad.mgmtclass", 0), "");
}

static void
test_directed_route(void **state)
{
    static struct packet p;
    uint8_t mad[RS_MAD_LEN];

    (void)state;
    /* Frame 2: SubnGetResp(SMInfo) with the D bit set, hop pointer 1 of 2 hops. */
    rs_mad_start(mad, RS_MAD_CLASS_SMP_DR, 1, RS_MAD_GET | RS_MAD_RESP, RS_SMP_ATTR_SM_INFO, 0,
                 0x0001509c000125c8ull);
    assert_int_equal(rs_mad_set(mad, "infiniband.smpdirected.d", 1), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.smpdirected.hoppointer", 1), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.smpdirected.hopcount", 2), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.smpdirected.drslid", 0xffff), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.smpdirected.drdlid", 0xffff), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.sminfo.guid", 0x0002c9020020b4ddull), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.sminfo.actcount", 0x923a), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.sminfo.priority", 0), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.sminfo.smstate", 3), 0);
    assert_int_equal(mad[4], 0x80);
    assert_int_equal(mad[84], 0x03);
    packet_of(&p, mad, 0);
    assert_string_equal(value(&p, "infiniband.smpdirected.d", 0), "0x0000000000000001");
    assert_string_equal(value(&p, "infiniband.smpdirected.smpstatus", 0), "0x0000");
    assert_string_equal(value(&p, "infiniband.smpdirected.hopcount", 0), "0x02");
    assert_string_equal(value(&p, "infiniband.sminfo.guid", 0), "0x0002c9020020b4dd");
    assert_string_equal(value(&p, "infiniband.sminfo.smstate", 0), "0x03");
    /* SMInfo's own item repeats the SMP data. */
    assert_string_equal(value(&p, "infiniband.smplid.smpdata", 0),
                        value(&p, "infiniband.smplid.smpdata", 1));
    assert_string_equal(value(&p, "infiniband.smplid.smpdata", 2), "");
    char info[64];
    assert_true(rs_mad_info(mad, RS_MAD_LEN, info, sizeof(info)));
    assert_string_equal(info, "SubnGetResp(SMInfo)");
    /* its tree as tshark's (test_smp_tree) */
    char *t = tree_text(&p);
    assert_non_null(strstr(t, "\n    SMP (Directed Route) SubnGetResp(SMInfo)\n"
                              "        1... .... .... .... = D (Direction Bit): 0x1\n"));
    assert_non_null(strstr(t, "        DrDLID: 0xffff\n"
                              "        Reserved: 0000000000000000000000000000"
                              "0000000000000000000000000000\n"
                              "        Attribute (SMInfo)\n"
                              "            SMInfo\n"
                              "                GUID: 0x0002c9020020b4dd\n"));
    assert_non_null(strstr(t, "                .... 0011 = SMState: 0x3\n        Initial Path: "));
    free(t);
}

/* An SMP's tree as tshark 4.0's: titled with its method and attribute, the reserved
 * octets after each header, the attribute's item around its own item (SMInfo's, in
 * test_directed_route) or its fields (NodeInfo's, here). */
/* The RMPP header of an SA GetTable response's DATA and ACK segments, as tshark 4.0.17
 * shows them (tests/captures/sa/sa_pathrecord.pcap frames 2 and 5, text frozen from its -V):
 * titled by the RMPP type, the type a bare number, the status named with tshark's leading
 * space, the SA methods named in the common header, and an ACK's reserved 220 bytes (before:
 * "RMPP (Reliable Multi-Packet Transaction Protocol)", "RMPP Type: DATA (0x01)", "RMPP
 * Status: 0x00", "Method: Unknown (0x92)", no reserved bytes). The flags keep tshark's mask
 * but not its "Unknown (0xb)" (docs/wireshark-differences.md). */
static void
test_rmpp_segments(void **state)
{
    static struct packet p;
    uint8_t mad[RS_MAD_LEN];

    (void)state;
    from_hex("0103029200000000000012340000004200350000000000000101fb00000000010000027c0000000000"
             "00000000080000000000000000100c", mad);
    packet_of(&p, mad, 1);
    char *t = tree_text(&p);
    assert_non_null(strstr(t, "\n        Method: GetTableResp() (0x92)\n"));
    assert_non_null(strstr(t, "\n    RMPP (DATA)\n        RMPP Type: 0x01\n        RMPP Type: "
                              "0x01\n        1111 .... = R Resp Time: 0xf\n        .... 1011 = "
                              "RMPP Flags: 0xb\n        RMPP Status:  (Normal) (0x00)\n"
                              "        Segment Number: 0x00000001\n        Payload Length: "
                              "0x0000027c\n        Transferred Data: "));
    free(t);
    from_hex("0103029200000000000012340000004200350000000000000102f9000000000300000004000000000000"
             "00000008", mad);
    packet_of(&p, mad, 1);
    t = tree_text(&p);
    assert_non_null(strstr(t, "\n    RMPP (ACK)\n        RMPP Type: 0x01\n        RMPP Type: "
                              "0x02\n"));
    assert_non_null(strstr(t, "        New Window Last: 0x00000004\n        Reserved: "
                              "000000000000000000080000000000000000000000000000000000000000000000"
                              "000000…\n    SA SubnAdmGetTableResp(PathRecord)\n"));
    free(t);
}

static void
test_smp_tree(void **state)
{
    static struct packet p;
    uint8_t mad[RS_MAD_LEN];

    (void)state;
    rs_mad_start(mad, RS_MAD_CLASS_SMP_LID, 1, RS_MAD_GET | RS_MAD_RESP, RS_SMP_ATTR_NODE_INFO, 0,
                 1);
    assert_int_equal(rs_mad_set(mad, "infiniband.nodeinfo.numports", 2), 0);
    packet_of(&p, mad, 0);
    char *t = tree_text(&p);
    assert_non_null(strstr(t, "\n    SMP (LID Routed) SubnGetResp(NodeInfo)\n"
                              "        M_Key: 0x0000000000000000\n        Reserved: 0000"));
    assert_non_null(strstr(t, "\n        Attribute (NodeInfo)\n            BaseVersion: 0x00\n"));
    assert_non_null(strstr(t, "            NumPorts: 0x02\n"));
    assert_non_null(strstr(t, "            VendorID: 0x000000\n        Reserved: 0000"));
    free(t);
}

static void
test_class_port_info_moves_with_class(void **state)
{
    static struct packet p;
    uint8_t sa[RS_MAD_LEN], perf[RS_MAD_LEN];

    (void)state;
    rs_mad_start(sa, RS_MAD_CLASS_SA, 2, 0x81, RS_MAD_ATTR_CLASS_PORT_INFO, 0, 1);
    rs_mad_start(perf, RS_MAD_CLASS_PERF, 1, 0x81, RS_MAD_ATTR_CLASS_PORT_INFO, 0, 1);
    assert_int_equal(rs_mad_set(sa, "infiniband.classportinfo.redirectlid", 0x1234), 0);
    assert_int_equal(rs_mad_set(perf, "infiniband.classportinfo.redirectlid", 0x1234), 0);
    assert_int_equal(rs_load_be16(sa + 56 + 28), 0x1234);
    assert_int_equal(rs_load_be16(perf + 64 + 28), 0x1234);
    packet_of(&p, perf, 1);
    assert_string_equal(value(&p, "infiniband.classportinfo.redirectlid", 0), "0x1234");
    assert_string_equal(value(&p, "infiniband.classportinfo", 0), "1");
    packet_of(&p, sa, 1);
    assert_string_equal(value(&p, "infiniband.classportinfo.redirectlid", 0), "0x1234");
    assert_string_equal(value(&p, "infiniband.classportinfo", 0), "");
}

/* PerfMgt's GetResp(ClassPortInfo) and GetResp(PortCounters) as tshark 4.0.17 shows them
 * (tests/captures/perf/perf_mads.pcap, frames 2 and 4, built by tests/gen/gen_perf_mads.py
 * with the same values): ClassPortInfo's fields beside its item, under InfiniBand, the
 * TrapHL byte tshark names Reserved in its place before TrapQP (before: the fields one level
 * down, under the MAD header, and both Reserved after RedirectP_Key); PortCounters' reserved
 * bytes as its items (before: none); and --compat tshark's Info the MAD's name alone
 * (before: after "UD Send Only QP=0x000001 "). */
static void
test_perf_mads_as_tshark(void **state)
{
    static struct packet p;
    uint8_t mad[RS_MAD_LEN];

    (void)state;
    rs_mad_start(mad, RS_MAD_CLASS_PERF, 1, RS_MAD_GET | RS_MAD_RESP,
                 RS_MAD_ATTR_CLASS_PORT_INFO, 0, 0x4201);
    assert_int_equal(rs_mad_set(mad, "infiniband.classportinfo.baseversion", 1), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.classportinfo.classversion", 1), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.classportinfo.capabilitymask", 0x1700), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.classportinfo.resptimevalue", 0x12), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.classportinfo.redirectpkey", 0xffff), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.classportinfo.traplid", 1), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.classportinfo.trappkey", 0xffff), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.classportinfo.trapqp", 1), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.classportinfo.trapqkey", 0x80010000), 0);
    mad[64 + 64] = 0xff;        /* TrapHL */
    packet_of(&p, mad, 1);
    char *t = tree_text(&p);
    assert_non_null(strstr(
        t, "\n        MAD Data Payload: 0000000000000000000000000000000000000000000000000000000000"
           "00000000000000…\n"
           "    ClassPortInfo (Performance Management MAD)\n"
           "    BaseVersion: 0x01\n"
           "    ClassVersion: 0x01\n"
           "    CapabilityMask: 0x1700\n"
           "    0000 0000 0000 0000 0000 0000 000. .... = CapabilityMask2: 0x0000000\n"
           "    ...1 0010 = RespTimeValue: 0x12\n"
           "    RedirectGID: ::\n"
           "    RedirectTC: 0x00\n"
           "    0000 .... = RedirectSL: 0x0\n"
           "    .... 0000 0000 0000 0000 0000 = RedirectFL: 0x00000\n"
           "    RedirectLID: 0x0000\n"
           "    RedirectP_Key: 0xffff\n"
           "    Reserved: 0x00\n"
           "    RedirectQP: 0x000000\n"
           "    RedirectQ_Key: 0x00000000\n"
           "    TrapGID: ::\n"
           "    TrapTC: 0x00\n"
           "    0000 .... = TrapSL: 0x0\n"
           "    .... 0000 0000 0000 0000 0000 = TrapFL: 0x00000\n"
           "    TrapLID: 0x0001\n"
           "    TrapP_Key: 0xffff\n"
           "    Reserved: 0xff\n"
           "    TrapQP: 0x000001\n"
           "    TrapQ_Key: 0x80010000\n"));
    free(t);
    assert_string_equal(value(&p, "infiniband.classportinfo.reserved", 1), "0xff");
    assert_string_equal(test_info(&p.pkt, true), "PERF (ClassPortInfo)");

    rs_mad_start(mad, RS_MAD_CLASS_PERF, 1, RS_MAD_GET | RS_MAD_RESP, RS_PERF_ATTR_PORT_COUNTERS,
                 0, 0x4202);
    assert_int_equal(rs_mad_set(mad, "infiniband.portcounters.portselect", 1), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.portcounters.counterselect", 0xffff), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.portcounters.symbolerrorcounter", 3), 0);
    mad[64 + 18] = 0x52;        /* reserved bytes, shown as such */
    mad[64 + 20] = 0x54;
    mad[64 + 21] = 0x55;
    packet_of(&p, mad, 1);
    t = tree_text(&p);
    assert_non_null(strstr(
        t, "\n    Port Counters (Performance Management MAD)\n"
           "        Reserved: 00000000000000000000000000000000000000000000000000000000000000000"
           "0000000…\n"
           "        Reserved: 00\n"
           "        PortSelect: 0x01\n"
           "        CounterSelect: 0xffff\n"
           "        SymbolErrorCounter: 3\n"));
    assert_non_null(strstr(t, "\n        PortRcvConstraintErrors: 0\n"
                              "        Reserved: 52\n"
                              "        0000 .... = LocalLinkIntegrityErrors: 0\n"
                              "        .... 0000 = ExcessiveBufferOverrunErrors: 0\n"
                              "        Reserved: 5455\n"
                              "        VL15Dropped: 0\n"));
    free(t);
}

/* PortInfo's CapabilityMask as tshark 4.0.17 shows it: its bits under it, by its names
 * (SM, not IsSM), on an SMP GetResp crafted with the mask 0x0251086a. */
static void
test_portinfo_capability_mask(void **state)
{
    static struct packet p;
    uint8_t smp[RS_MAD_LEN];

    (void)state;
    rs_mad_start(smp, RS_MAD_CLASS_SMP_LID, 1, 0x81, RS_SMP_ATTR_PORT_INFO, 1, 1);
    rs_store_be32(smp + 64 + 20, 0x0251086a);
    packet_of(&p, smp, 0);
    char *t = tree_text(&p);
    assert_non_null(strstr(
        t, "\n            CapabilityMask: 0x0251086a\n"
           "                .... .... .... .... .... .... .... ..1. = SM: 0x1\n"
           "                .... .... .... .... .... .... .... .0.. = NoticeSupported: 0x0\n"
           "                .... .... .... .... .... .... .... 1... = TrapSupported: 0x1\n"));
    assert_non_null(strstr(
        t, "\n                .... .... .... .... .... ..0. .... .... = LEDInfoSupported: 0x0\n"));
    assert_non_null(strstr(
        t, "\n                .... 0... .... .... .... .... .... .... = "
           "LinkSpeedWIdthPairsTableSupported: 0x0\n            DiagCode: 0x0000"));
    assert_null(strstr(t, "IsSM"));
    free(t);
    assert_string_equal(value(&p, "infiniband.portinfo.capabilitymask.issm", 0), "0x00000001");
}

/* PortInfo's notes after 14 of its values, as tshark 4.0.17 writes them on two SMP
 * GetResps crafted with these bytes (the second with 0xf in every noted lane, which
 * tshark calls reserved but for LinkWidthSupported's and LinkSpeedEnabled's); -T
 * fields gives the bare number, as tshark's does. */
static void
test_portinfo_value_notes(void **state)
{
    static const uint8_t named[] = {0x03, 0x0f, 0x02, 0x34, 0x52, 0x41, 0x21, 0x40, 0x41};
    static struct packet p;
    uint8_t smp[RS_MAD_LEN];

    (void)state;
    rs_mad_start(smp, RS_MAD_CLASS_SMP_LID, 1, 0x81, RS_SMP_ATTR_PORT_INFO, 1, 1);
    memcpy(smp + 64 + 29, named, sizeof(named));
    smp[64 + 41] = 0x15;
    smp[64 + 43] = 0x4f;
    packet_of(&p, smp, 0);
    char *t = tree_text(&p);
    assert_non_null(strstr(t, "\n            DiagCode: 0x0000, Function Ready\n"));
    assert_non_null(strstr(
        t, "\n            LinkWidthEnabled: 0x03, 1x or 4x\n"
           "            LinkWidthSupported: 0x0f, 1x or 4x or 8x or 12x\n"
           "            LinkWidthActive: 0x02, 4x\n"
           "            0011 .... = LinkSpeedSupported: 0x3, 2.5 or 5.0 Gbps\n"
           "            .... 0100 = PortState: 0x4, Active\n"
           "            0101 .... = PortPhysicalState: 0x5, LinkUp\n"
           "            .... 0010 = LinkDownDefaultState: 0x2, Polling\n"
           "            01.. .... = M_KeyProtectBits: 0x1\n"
           "            .... .001 = LMC: 0x1\n"
           "            0010 .... = LinkSpeedActive: 0x2, 5.0 Gbps\n"
           "            .... 0001 = LinkSpeedEnabled: 0x1, 2.5 Gbps\n"
           "            0100 .... = NeighborMTU: 0x4, 2048\n"
           "            .... 0000 = MasterSMSL: 0x0\n"
           "            0100 .... = VLCap: 0x4, VL0 - VL7\n"
           "            .... 0001 = InitType: 0x1\n"));
    assert_non_null(strstr(t, "\n            .... 0101 = MTUCap: 0x5, 4096\n"));
    assert_non_null(strstr(t, "\n            0100 .... = OperationalVLs: 0x4, VL0 - VL7\n"));
    free(t);
    assert_string_equal(value(&p, "infiniband.portinfo.portstate", 0), "0x04");
    assert_string_equal(value(&p, "infiniband.portinfo.linkwidthsupported", 0), "0x0f");

    rs_mad_start(smp, RS_MAD_CLASS_SMP_LID, 1, 0x81, RS_SMP_ATTR_PORT_INFO, 1, 16);
    rs_store_be16(smp + 64 + 24, 0x000f);
    memset(smp + 64 + 29, 0x0f, 3);
    memset(smp + 64 + 32, 0xff, 6);
    smp[64 + 34] = 0;
    smp[64 + 41] = 0xff;
    smp[64 + 43] = 0xf0;
    packet_of(&p, smp, 0);
    t = tree_text(&p);
    assert_non_null(strstr(
        t, "\n            DiagCode: 0x000f, Reserved DiagCode! Possible Error\n"
           "            M_KeyLeasePeriod: 0x0000\n"
           "            LocalPortNum: 0x00\n"
           "            LinkWidthEnabled: 0x0f, Reserved LinkWidthEnabled Value! Possible Error\n"
           "            LinkWidthSupported: 0x0f, 1x or 4x or 8x or 12x\n"
           "            LinkWidthActive: 0x0f, Reserved LinkWidthActive Value! Possible Error\n"
           "            1111 .... = LinkSpeedSupported: 0xf, Reserved LinkWidthSupported Value! "
           "Possible Error\n"
           "            .... 1111 = PortState: 0xf, Reserved PortState Value! Possible Error\n"
           "            1111 .... = PortPhysicalState: 0xf, Reserved PortPhysicalState Value! "
           "Possible Error\n"
           "            .... 1111 = LinkDownDefaultState: 0xf, Reserved LinkDownDefaultState "
           "Value! Possible Error\n"));
    assert_non_null(strstr(
        t, "\n            1111 .... = LinkSpeedActive: 0xf, Reserved LinkSpeedActive Value! "
           "Possible Error\n"
           "            .... 1111 = LinkSpeedEnabled: 0xf, Set to LinkSpeedSupported value - "
           "response contains actual LinkSpeedSupported\n"
           "            1111 .... = NeighborMTU: 0xf, Reserved NeighborMTU Value! Possible Error\n"
           "            .... 1111 = MasterSMSL: 0xf\n"
           "            1111 .... = VLCap: 0xf, Reserved VLCap Value! Possible Error\n"));
    assert_non_null(strstr(
        t, "\n            .... 1111 = MTUCap: 0xf, Reserved MTUCap Value! Possible Error\n"));
    assert_non_null(strstr(t, "\n            1111 .... = OperationalVLs: 0xf, Reserved "
                              "OperationalVLs Value! Possible Error\n"));
    free(t);
}

/* The reserved bytes that end an SA record's ID, as tshark 4.0.17 shows them after the
 * header's (-T fields -e infiniband.reserved on records crafted with IDs 00 07 11 22 33
 * 44 55 66): 2 after the LID of a NodeRecord, SwitchInfoRecord and SMInfoRecord; 4 at
 * byte 4 of a GuidInfoRecord, LinearForwardingTableRecord and SLtoVLMappingTableRecord;
 * 3 after a P_KeyTableRecord's port, 1 after a PortInfoRecord's. */
static void
test_sa_record_id_reserved(void **state)
{
    static const struct {
        uint16_t attr;
        const char *reserved;
    } records[] = {
        {RS_SA_ATTR_NODE_RECORD, "1122"},      {RS_SA_ATTR_SWITCH_INFO_RECORD, "1122"},
        {RS_SA_ATTR_SM_INFO_RECORD, "1122"},   {RS_SA_ATTR_GUID_INFO_RECORD, "33445566"},
        {RS_SA_ATTR_LFT_RECORD, "33445566"},   {RS_SA_ATTR_SLTOVL_RECORD, "33445566"},
        {RS_SA_ATTR_PKEY_RECORD, "445566"},    {RS_SA_ATTR_PORT_INFO_RECORD, "22"},
    };
    static const uint8_t id[] = {0x00, 0x07, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66};
    static struct packet p;
    uint8_t rec[RS_MAD_LEN];

    (void)state;
    for (size_t i = 0; i < sizeof(records) / sizeof(records[0]); i++) {
        rs_mad_start(rec, RS_MAD_CLASS_SA, 2, 0x81, records[i].attr, 0, 2);
        memcpy(rec + 56, id, sizeof(id));
        packet_of(&p, rec, 1);
        assert_string_equal(value(&p, "infiniband.reserved", 4), records[i].reserved);
        assert_string_equal(value(&p, "infiniband.reserved", 5), "");
    }
}

/* One table serves an SMP attribute in an SMP and in the SA record that embeds it: a
 * NodeRecord's NodeInfo after its 4-byte record ID and its NodeDescription after that, a
 * LinearForwardingTableRecord's ports after 8 bytes, each entry an occurrence. */
static void
test_smp_attribute_moves_into_record(void **state)
{
    static struct packet p;
    uint8_t smp[RS_MAD_LEN], rec[RS_MAD_LEN], lft[RS_MAD_LEN];

    (void)state;
    rs_mad_start(smp, RS_MAD_CLASS_SMP_LID, 1, 0x81, RS_SMP_ATTR_NODE_INFO, 0, 1);
    rs_mad_start(rec, RS_MAD_CLASS_SA, 2, 0x81, RS_SA_ATTR_NODE_RECORD, 0, 2);
    assert_int_equal(rs_mad_set(smp, "infiniband.nodeinfo.nodeguid", 0x0002c90300001895), 0);
    assert_int_equal(rs_mad_set(rec, "infiniband.nodeinfo.nodeguid", 0x0002c90300001895), 0);
    assert_int_equal(rs_mad_set(rec, "infiniband.sa.lid", 7), 0);
    assert_true(rs_load_be64(smp + 64 + 12) == 0x0002c90300001895);
    assert_true(rs_load_be64(rec + 56 + 4 + 12) == 0x0002c90300001895);
    memcpy(rec + 56 + 4 + 40, "node-1 HCA-1", 12);
    rec[56 + 4 + 40 + 12] = 0xc3;      /* not ASCII: Wireshark's U+FFFD */
    packet_of(&p, smp, 0);
    assert_string_equal(value(&p, "infiniband.nodeinfo.nodeguid", 0), "0x0002c90300001895");
    assert_string_equal(value(&p, "infiniband.sa.lid", 0), "");
    packet_of(&p, rec, 1);
    assert_string_equal(value(&p, "infiniband.nodeinfo.nodeguid", 0), "0x0002c90300001895");
    assert_string_equal(value(&p, "infiniband.sa.lid", 0), "0x0007");
    assert_string_equal(value(&p, "infiniband.nodedescription.nodestring", 0),
                        "node-1 HCA-1\xef\xbf\xbd");
    /* Captured up to the string's fifth byte: as tshark 4.0, nothing of a MAD cut short of
     * its 256 bytes (rs_mad_shown) */
    p.frame.caplen = 8 + 12 + 8 + 56 + 4 + 40 + 4;
    struct rs_decode_opts cut;
    rs_decode_opts_init(&cut);
    rs_decode_frame(&p.frame, &cut, &p.pkt);
    assert_string_equal(value(&p, "infiniband.nodedescription.nodestring", 0), "");
    assert_string_equal(value(&p, "infiniband.nodeinfo.nodeguid", 0), "");
    assert_string_equal(value(&p, "infiniband.sa.lid", 0), "");

    rs_mad_start(lft, RS_MAD_CLASS_SA, 2, 0x81, RS_SA_ATTR_LFT_RECORD, 0, 3);
    assert_int_equal(rs_mad_set(lft, "infiniband.sa.blocknum_sixteenbit", 2), 0);
    for (unsigned i = 0; i < 64; i++)
        lft[64 + i] = (uint8_t)(i % 4 + 1);
    packet_of(&p, lft, 1);
    assert_string_equal(value(&p, "infiniband.sa.blocknum_sixteenbit", 0), "0x0002");
    assert_string_equal(value(&p, "infiniband.linearforwardingtable.port", 5), "0x02");
    assert_string_equal(value(&p, "infiniband.linearforwardingtable.port", 63), "0x04");
    assert_string_equal(value(&p, "infiniband.linearforwardingtable.port", 64), "");
    /* Captured up to the table's 33rd port: none of it either */
    p.frame.caplen = 8 + 12 + 8 + 64 + 32;
    struct rs_decode_opts o;
    rs_decode_opts_init(&o);
    rs_decode_frame(&p.frame, &o, &p.pkt);
    assert_string_equal(value(&p, "infiniband.sa.blocknum_sixteenbit", 0), "");
    assert_string_equal(value(&p, "infiniband.linearforwardingtable.port", 0), "");
}

/* A trap's details are the Notice's fields for its trap number alone. */
static void
test_trap_details(void **state)
{
    static struct packet p;
    uint8_t mad[RS_MAD_LEN];

    (void)state;
    rs_mad_start(mad, RS_MAD_CLASS_SMP_LID, 1, RS_MAD_TRAP, RS_SMP_ATTR_NOTICE, 0, 4);
    assert_int_equal(rs_mad_set(mad, "infiniband.notice.isgeneric", 1), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.notice.trapnumberdeviceid", 257), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.trap.key", 0x8001), 0);
    assert_int_equal(rs_load_be32(mad + 64 + 10 + 6), 0x8001);
    packet_of(&p, mad, 0);
    assert_string_equal(value(&p, "infiniband.notice.trapnumberdeviceid", 0), "0x0101");
    assert_string_equal(value(&p, "infiniband.trap.key", 0), "0x00008001");
    /* Wireshark's items: the attribute, the Notice, its details. */
    assert_int_equal(strlen(value(&p, "infiniband.smplid.smpdata", 1)), 2 * 64);
    assert_int_equal(strlen(value(&p, "infiniband.smplid.smpdata", 2)), 2 * 54);
    assert_string_equal(value(&p, "infiniband.smplid.smpdata", 3), "");
    assert_int_equal(rs_mad_set(mad, "infiniband.notice.trapnumberdeviceid", 128), 0);
    packet_of(&p, mad, 0);
    assert_string_equal(value(&p, "infiniband.trap.key", 0), "");
    /* One name, a place per trap: trap 128's LIDADDR starts its details, 129's is 2 on. */
    assert_int_equal(rs_mad_set(mad, "infiniband.trap.key", 1), RS_EINVAL);
    assert_int_equal(rs_mad_set(mad, "infiniband.trap.lidaddr", 0x11), 0);
    assert_int_equal(rs_load_be16(mad + 64 + 10), 0x11);
    assert_int_equal(rs_mad_set(mad, "infiniband.notice.trapnumberdeviceid", 129), 0);
    assert_int_equal(rs_mad_set(mad, "infiniband.trap.lidaddr", 0x22), 0);
    assert_int_equal(rs_load_be16(mad + 64 + 12), 0x22);
}

static void
test_set_errors(void **state)
{
    uint8_t mad[RS_MAD_LEN];
    uint8_t gid[16] = {0};

    (void)state;
    rs_mad_start(mad, RS_MAD_CLASS_SA, 2, 1, RS_SA_ATTR_PATH_RECORD, 0, 1);
    assert_int_equal(rs_mad_set(mad, "infiniband.pathrecord.nosuch", 1), RS_ENOENT);
    assert_int_equal(rs_mad_set(mad, "infiniband.bth.psn", 1), RS_ENOENT);
    assert_int_equal(rs_mad_set(mad, "infiniband.pathrecord.dgid", 1), RS_EINVAL);
    assert_int_equal(rs_mad_set_bytes(mad, "infiniband.pathrecord.dlid", gid, 2), RS_EINVAL);
    assert_int_equal(rs_mad_set_bytes(mad, "infiniband.pathrecord.dgid", gid, 4), RS_EINVAL);
    /* ClassPortInfo has no place in a class that lacks it. */
    mad[1] = RS_MAD_CLASS_SMP_LID;
    assert_int_equal(rs_mad_set(mad, "infiniband.classportinfo.trapqp", 1), RS_EINVAL);
}

/* Each CM message's layout (which the CM engine builds and parses with) and the
 * registry fields of the same names read the same values from a MAD whose
 * message counts 0, 1, 2, ... */
static void
test_cm_fields_match_layout(void **state)
{
    static const uint16_t attrs[] = {RS_CM_REQ, RS_CM_MRA, RS_CM_REJ, RS_CM_REP,
                                     RS_CM_RTU, RS_CM_DREQ, RS_CM_DREP, RS_CM_SIDR_REQ,
                                     RS_CM_SIDR_REP};
    static struct packet p;
    uint8_t mad[RS_MAD_LEN];
    unsigned compared = 0;

    (void)state;
    for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++) {
        const struct rs_cm_layout *l = rs_cm_layout(attrs[a]);
        rs_cm_hdr_write(mad, attrs[a], 7);
        for (unsigned i = RS_CM_MAD_HDR_LEN; i < RS_MAD_LEN; i++)
            mad[i] = (uint8_t)i;
        packet_of(&p, mad, 1);
        assert_non_null(rs_cm_attr_name(attrs[a]));
        for (int f = 0; f < RS_CMF_COUNT; f++) {
            const char *name = l->f[f].abbrev;
            struct rs_value v;
            size_t n;
            if (name == NULL)
                continue;
            int id = rs_field_lookup(name);
            assert_true(id >= 0);
            assert_true(rs_field_value(&p.pkt, id, 0, &v));
            const uint8_t *bytes = rs_cm_bytes(l, mad + RS_CM_MAD_HDR_LEN, f, &n);
            if (bytes != NULL) {
                if (v.type == RS_FT_BYTES) {
                    assert_int_equal(v.v.bytes.len, n);
                    assert_memory_equal(v.v.bytes.ptr, bytes, n);
                }
            } else {
                assert_int_equal(v.v.u, rs_cm_get(l, mad + RS_CM_MAD_HDR_LEN, f));
            }
            compared++;
        }
    }
    assert_true(compared > 40);
    assert_null(rs_cm_attr_name(0x0020));
    assert_string_equal(rs_cm_attr_name(RS_CM_LAP), "LoadAlternatePath");
}

/* Whether the tree's line after field `after` is infiniband.reserved, and where. */
struct follows {
    const char *after;
    const char *prev;
    unsigned seen;
    uint32_t offset;
    uint32_t mad;       /* where the MAD starts */
};

static void
after_field(void *arg, const struct rs_tree_item *it)
{
    struct follows *w = arg;
    const char *name = it->field != NULL ? it->field->abbrev : "";

    if (w->prev != NULL && strcmp(w->prev, w->after) == 0 &&
        strcmp(name, "infiniband.reserved") == 0) {
        w->seen++;
        w->offset = it->offset;
    }
    if (strcmp(name, "infiniband.mad") == 0)
        w->mad = it->offset;
    w->prev = name;
}

/* A REQ's two reserved words are lines of its tree, as tshark shows them: after the
 * Local Communication ID (message bytes 4..7) and after the Local CA GUID (24..27). */
static void
test_cm_req_reserved_words(void **state)
{
    static struct packet p;
    uint8_t mad[RS_MAD_LEN];

    (void)state;
    rs_cm_hdr_write(mad, RS_CM_REQ, 7);
    for (unsigned i = RS_CM_MAD_HDR_LEN; i < RS_MAD_LEN; i++)
        mad[i] = (uint8_t)i;
    packet_of(&p, mad, 1);
    /* the tree puts each after the field it follows, where it lies */
    struct follows w = {"infiniband.cm.req", NULL, 0, 0, 0};
    rs_tree_walk(&p.pkt, after_field, &w);
    assert_int_equal(w.seen, 1);
    assert_true(w.mad > 0);
    assert_int_equal(w.offset, w.mad + 28);
    w = (struct follows){"infiniband.cm.req.localcaguid", NULL, 0, 0, 0};
    rs_tree_walk(&p.pkt, after_field, &w);
    assert_int_equal(w.seen, 1);
    assert_int_equal(w.offset, w.mad + 48);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_matches_capture),
        cmocka_unit_test(test_decode_path_record),
        cmocka_unit_test(test_rmpp_segments),
        cmocka_unit_test(test_directed_route),
        cmocka_unit_test(test_smp_tree),
        cmocka_unit_test(test_class_port_info_moves_with_class),
        cmocka_unit_test(test_perf_mads_as_tshark),
        cmocka_unit_test(test_smp_attribute_moves_into_record),
        cmocka_unit_test(test_sa_record_id_reserved),
        cmocka_unit_test(test_portinfo_capability_mask),
        cmocka_unit_test(test_portinfo_value_notes),
        cmocka_unit_test(test_trap_details),
        cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_cm_fields_match_layout),
        cmocka_unit_test(test_cm_req_reserved_words),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
