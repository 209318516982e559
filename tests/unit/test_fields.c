/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_fields.c - the field registry: lookup and aliases, values taken from
 * real frames, presence rules, and formatting as tshark prints it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/arp.h>
#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/info.h>

#include "testutil.h"

/* All values of a field, formatted as -T fields and joined with ','. */
struct joined {
    char text[512];
    size_t len;
};

static void
join_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    struct joined *j = ctx;

    if (j->len > 0)
        j->text[j->len++] = ',';
    j->len += rs_value_format(f, v, j->text + j->len, sizeof(j->text) - j->len);
}

static const char *
field_text(const struct rs_packet *pkt, const char *name, struct joined *j)
{
    int id = rs_field_lookup(name);

    assert_true(id >= 0);
    j->len = 0;
    j->text[0] = '\0';
    rs_field_foreach(pkt, id, join_value, j);
    return j->text;
}

static void
assert_field(const struct rs_packet *pkt, const char *name, const char *want)
{
    struct joined j;

    assert_string_equal(field_text(pkt, name, &j), want);
}

static void
decode_hex(struct test_frame *tf, const char *hex, int linktype, struct rs_packet *pkt)
{
    test_frame_from_hex(tf, hex, linktype);
    test_decode(&tf->frame, pkt);
}

static void
test_lookup_and_aliases(void **state)
{
    (void)state;
    assert_int_equal(rs_field_lookup("infiniband.no.such.field"), RS_ENOENT);
    int va = rs_field_lookup("infiniband.reth.va");
    assert_true(va >= 0);
    /* One name, two sources: the RETH and the AtomicETH. */
    int other = rs_field_next_alias(va);
    assert_true(other > va);
    assert_int_equal(rs_field_by_id(va)->layer, RS_LAYER_RETH);
    assert_int_equal(rs_field_by_id(other)->layer, RS_LAYER_ATOMICETH);
    assert_int_equal(rs_field_next_alias(other), -1);
    assert_int_equal(rs_field_next_alias(rs_field_lookup("infiniband.bth.psn")), -1);
    /* Every field has a description, and ids follow tree order. */
    for (int id = 0; id < rs_field_count(); id++) {
        const struct rs_field *f = rs_field_by_id(id);
        assert_non_null(f->blurb);
        assert_true(rs_field_lookup(f->abbrev) <= id);
    }
    assert_true(rs_field_lookup("infiniband.lrh") < rs_field_lookup("infiniband.bth"));
    assert_true(rs_field_lookup("infiniband.bth") < rs_field_lookup("infiniband.aeth"));
}

/* Our own fields (roceshark.*, which Wireshark's glossary lacks) carry help for the GUI's
 * status bar and field list: never empty, never just the name again. */
static void
test_our_fields_have_help(void **state)
{
    int ours = 0, bad = 0;

    (void)state;
    for (int id = 0; id < rs_field_count(); id++) {
        const struct rs_field *f = rs_field_by_id(id);
        if (strncmp(f->abbrev, "roceshark.", 10) != 0)
            continue;
        ours++;
        if (f->blurb == NULL || f->blurb[0] == '\0' || strcmp(f->blurb, f->name) == 0) {
            print_message("%s: help \"%s\" is empty or its name\n", f->abbrev,
                          f->blurb != NULL ? f->blurb : "");
            bad++;
        }
    }
    assert_true(ours > 100);
    assert_int_equal(bad, 0);
}

static void
test_values_of_a_write(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    decode_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB, &pkt);
    assert_field(&pkt, "infiniband.bth", "0a20ffff0000001180001234");
    assert_field(&pkt, "infiniband.bth.opcode", "10");
    assert_field(&pkt, "infiniband.bth.padcnt", "2");
    assert_field(&pkt, "infiniband.bth.p_key", "65535");
    assert_field(&pkt, "infiniband.bth.destqp", "0x000011");
    assert_field(&pkt, "infiniband.bth.a", "1");
    assert_field(&pkt, "infiniband.bth.se", "0");
    assert_field(&pkt, "infiniband.bth.psn", "4660");
    assert_field(&pkt, "infiniband.reth.va", "0x00007f0012345000");
    assert_field(&pkt, "infiniband.reth.r_key", "0x0000beef");
    assert_field(&pkt, "infiniband.reth.dmalen", "18");
    assert_field(&pkt, "infiniband.invariant.crc", "0x32ca8f77");
    assert_field(&pkt, "roceshark.icrc.computed", "0x32ca8f77");
    assert_field(&pkt, "roceshark.icrc.status", "1");
    assert_field(&pkt, "roceshark.payload.len", "18");
    assert_field(&pkt, "roceshark.encap", "rocev2");
    assert_field(&pkt, "roceshark.malformed", "");
    assert_field(&pkt, "infiniband.aeth.msn", "");
    assert_field(&pkt, "infiniband.variant.crc", "");
    assert_field(&pkt, "ip.src", "10.0.0.1");
    assert_field(&pkt, "ip.id", "0x0101");
    assert_field(&pkt, "ip.flags.df", "1");
    assert_field(&pkt, "eth.src", "02:00:00:00:00:01");
    assert_field(&pkt, "udp.dstport", "4791");
    assert_field(&pkt, "frame.len", "94");
}

static void
test_values_of_atomics_and_ib(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    decode_hex(&tf, HEX_ROCEV2_FETCH_ADD, RS_DLT_EN10MB, &pkt);
    /* Wireshark shows the AtomicETH's VA and R_Key under the RETH names. */
    assert_field(&pkt, "infiniband.reth.va", "0x00006320d6be5000");
    assert_field(&pkt, "infiniband.reth.r_key", "0x00001986");
    assert_field(&pkt, "infiniband.reth.dmalen", "");
    assert_field(&pkt, "infiniband.atomiceth.swapdt", "1");
    assert_field(&pkt, "infiniband.atomiceth.cmpdt", "0");

    decode_hex(&tf, HEX_ERF_IB_GRH_UD, RS_DLT_ERF, &pkt);
    assert_field(&pkt, "infiniband.lrh.vl", "0x00");
    assert_field(&pkt, "infiniband.lrh.lnh", "0x03");
    assert_field(&pkt, "infiniband.lrh.pktlen", "43");
    assert_field(&pkt, "infiniband.grh.dgid", "ff12:401b:ffff::ffff:ffff");
    assert_field(&pkt, "infiniband.grh.nxthdr", "27");
    assert_field(&pkt, "infiniband.deth.q_key", "0x0000000000000b1b");
    assert_field(&pkt, "infiniband.deth.srcqp", "0x00000048");
    assert_field(&pkt, "infiniband.variant.crc", "0x35df");
    assert_field(&pkt, "roceshark.vcrc.computed", "0x35df");
    assert_field(&pkt, "roceshark.vcrc.status", "1");
    assert_field(&pkt, "roceshark.encap", "ib");
    assert_field(&pkt, "frame.len", "174");     /* the packet, not the ERF record */
}

/* Which AETH subfield is present depends on the syndrome's opcode bits. */
static void
test_aeth_subfields(void **state)
{
    static const struct {
        uint8_t syndrome;
        const char *credit, *timer, *reserved, *error, *credits, *delay;
    } cases[] = {
        {0x1f, "31", "", "", "", "", ""},             /* ACK, no credit limit */
        {0x05, "5", "", "", "", "6", ""},             /* ACK, code 5 = 6 credits */
        {0x2e, "", "14", "", "", "", "0.001280000"},  /* RNR NAK 1.28 ms */
        {0x20, "", "0", "", "", "", "0.655360000"},   /* RNR timer 0 is the longest */
        {0x4a, "", "", "10", "", "", ""},             /* reserved kind */
        {0x60, "", "", "", "0", "", ""},              /* NAK PSN sequence error */
        {0xe3, "", "", "", "3", "", ""},              /* NAK remote op error, bit 7 set */
    };
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        test_frame_from_hex(&tf, HEX_ROCEV2_ACK, RS_DLT_EN10MB);
        tf.bytes[54] = cases[i].syndrome;
        test_decode(&tf.frame, &pkt);
        assert_field(&pkt, "infiniband.aeth.syndrome.credit_count", cases[i].credit);
        assert_field(&pkt, "infiniband.aeth.syndrome.timer", cases[i].timer);
        assert_field(&pkt, "infiniband.aeth.syndrome.reserved_value", cases[i].reserved);
        assert_field(&pkt, "infiniband.aeth.syndrome.error_code", cases[i].error);
        assert_field(&pkt, "roceshark.aeth.credits", cases[i].credits);
        assert_field(&pkt, "roceshark.aeth.rnr_delay", cases[i].delay);
    }
}

static void
test_aeth_tables(void **state)
{
    (void)state;
    assert_int_equal(rs_aeth_rnr_timer_us(0), 655360);
    assert_int_equal(rs_aeth_rnr_timer_us(1), 10);
    assert_int_equal(rs_aeth_rnr_timer_us(18), 5120);
    assert_int_equal(rs_aeth_rnr_timer_us(31), 491520);
    assert_int_equal(rs_aeth_credits(0), 0);
    assert_int_equal(rs_aeth_credits(8), 16);
    assert_int_equal(rs_aeth_credits(30), 32768);
    assert_int_equal(rs_aeth_credits(31), -1);
    assert_int_equal(rs_aeth_credit_code(0), 0);
    assert_int_equal(rs_aeth_credit_code(5), 4);    /* 4 is the most that is <= 5 */
    assert_int_equal(rs_aeth_credit_code(6), 5);
    assert_int_equal(rs_aeth_credit_code(100000), 30);
    assert_string_equal(rs_aeth_nak_name(0), "PSN Sequence Error");
    assert_string_equal(rs_aeth_nak_name(4), "Invalid RD Request");
    assert_null(rs_aeth_nak_name(5));
}

static void
test_formatting(void **state)
{
    const struct rs_field u8 = {"t.u8", "U8", RS_FT_UINT8, RS_BASE_HEX, 0, NULL, "", 0, 0, 1,
                                NULL, 0, 0};
    const struct rs_field u24 = {"t.u24", "U24", RS_FT_UINT24, RS_BASE_HEX, 0, NULL, "", 0, 0,
                                 3, NULL, 0, 0};
    const struct rs_field dh = {"t.dh", "DH", RS_FT_UINT32, RS_BASE_DEC_HEX, 0, NULL, "", 0,
                                0, 4, NULL, 0, 0};
    static const struct rs_value_string names[] = {{3, "Three"}, {0, NULL}};
    const struct rs_field named = {"t.n", "N", RS_FT_UINT8, RS_BASE_DEC, 0, names, "", 0, 0,
                                   1, NULL, 0, 0};
    const struct rs_field t = {"t.t", "T", RS_FT_RELTIME, RS_BASE_NONE, 0, NULL, "", 0, 0, 0,
                               NULL, 0, 0};
    char buf[64];
    struct rs_value v = {.type = RS_FT_UINT8, .v.u = 0x0f};

    (void)state;
    rs_value_format(&u8, &v, buf, sizeof(buf));
    assert_string_equal(buf, "0x0f");
    v.type = RS_FT_UINT24;
    v.v.u = 0x11;
    rs_value_format(&u24, &v, buf, sizeof(buf));
    assert_string_equal(buf, "0x000011");
    v.type = RS_FT_UINT32;
    v.v.u = 2147483649u;
    rs_value_format(&dh, &v, buf, sizeof(buf));
    assert_string_equal(buf, "2147483649");
    rs_value_format_display(&dh, &v, buf, sizeof(buf));
    assert_string_equal(buf, "2147483649 (0x80000001)");
    v.type = RS_FT_UINT8;
    v.v.u = 3;
    rs_value_format_display(&named, &v, buf, sizeof(buf));
    assert_string_equal(buf, "Three (3)");
    v.type = RS_FT_RELTIME;
    v.v.t = (struct rs_time){1, 500000001};
    rs_value_format(&t, &v, buf, sizeof(buf));
    assert_string_equal(buf, "1.500000001");
    v.v.t = (struct rs_time){-1, 999999980};
    rs_value_format(&t, &v, buf, sizeof(buf));
    assert_string_equal(buf, "-0.000000020");
    /* A short buffer is filled and terminated; the full length is returned. */
    v.type = RS_FT_UINT24;
    v.v.u = 0x11;
    assert_int_equal(rs_value_format(&u24, &v, buf, 4), 8);
    assert_string_equal(buf, "0x0");
    /* Bytes as bare hex, cut in a pair's middle when the buffer ends there. */
    const struct rs_field by = {"t.by", "BY", RS_FT_BYTES, RS_BASE_NONE, 0, NULL, "", 0, 0, 0,
                                NULL, 0, 0};
    static const uint8_t bytes[] = {0xab, 0xcd, 0x0f};
    v.type = RS_FT_BYTES;
    v.v.bytes.ptr = bytes;
    v.v.bytes.len = sizeof(bytes);
    assert_int_equal(rs_value_format(&by, &v, buf, sizeof(buf)), 6);
    assert_string_equal(buf, "abcd0f");
    for (size_t size = 1; size <= 7; size++) {
        assert_int_equal(rs_value_format(&by, &v, buf, size), 6);
        assert_int_equal(strlen(buf), size - 1);
        assert_memory_equal(buf, "abcd0f", size - 1);
    }
}

/* Booleans as each tshark prints them; other types do not change with the style. */
static void
test_styles(void **state)
{
    const struct rs_field b = {"t.b", "B", RS_FT_BOOLEAN, RS_BASE_NONE, 0x80, NULL, "", 0, 0,
                               1, NULL, 0, 0};
    const struct rs_field u8 = {"t.u8", "U8", RS_FT_UINT8, RS_BASE_HEX, 0, NULL, "", 0, 0, 1,
                                NULL, 0, 0};
    struct rs_value v = {.type = RS_FT_BOOLEAN, .v.u = 1};
    char buf[16];

    (void)state;
    rs_value_format_style(&b, &v, RS_STYLE_TSHARK_4_0, buf, sizeof(buf));
    assert_string_equal(buf, "1");
    assert_int_equal(rs_value_format_style(&b, &v, RS_STYLE_TSHARK_4_4, buf, sizeof(buf)), 4);
    assert_string_equal(buf, "True");
    v.v.u = 0;
    rs_value_format(&b, &v, buf, sizeof(buf));
    assert_string_equal(buf, "0");
    rs_value_format_style(&b, &v, RS_STYLE_TSHARK_4_4, buf, sizeof(buf));
    assert_string_equal(buf, "False");
    v.type = RS_FT_UINT8;
    v.v.u = 1;
    rs_value_format_style(&u8, &v, RS_STYLE_TSHARK_4_4, buf, sizeof(buf));
    assert_string_equal(buf, "0x01");
}

/* ARP as Wireshark reads it: an announcement is gratuitous too, a probe comes from
 * 0.0.0.0, and addresses that are not Ethernet's or IPv4's are bytes. */
/* Every field type has its own Wireshark name, whatever its place in the enum. */
static void
test_type_names(void **state)
{
    (void)state;
    for (unsigned t = 0; t < RS_FT_COUNT; t++) {
        const char *name = rs_field_type_name((uint8_t)t);
        assert_true(strncmp(name, "FT_", 3) == 0);
        assert_true(t == RS_FT_NONE || strcmp(name, "FT_NONE") != 0);
        for (unsigned u = 0; u < t; u++)
            assert_string_not_equal(name, rs_field_type_name((uint8_t)u));
    }
    assert_string_equal(rs_field_type_name(RS_FT_INT16), "FT_INT16");
    assert_string_equal(rs_field_type_name(RS_FT_INT32), "FT_INT32");
    assert_string_equal(rs_field_type_name(RS_FT_FRAMENUM), "FT_FRAMENUM");
    assert_string_equal(rs_field_type_name(RS_FT_RELTIME), "FT_RELATIVE_TIME");
    assert_string_equal(rs_field_type_name(RS_FT_COUNT), "FT_NONE");
}

static void
test_arp(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    enum rs_arp_kind kind;
    char text[128];

    (void)state;
    /* request from 10.0.0.1 for 10.0.0.1 to no hardware address */
    decode_hex(&tf, "ffffffffffff020000000001080600010800060400010200000000010a000001"
                    "0000000000000a000001", RS_DLT_EN10MB, &pkt);
    assert_string_equal(rs_arp_kind(&pkt, &kind), "ARP Announcement");
    assert_int_equal(kind, RS_ARP_ANNOUNCEMENT);
    assert_field(&pkt, "arp.isannouncement", "1");
    assert_field(&pkt, "arp.isgratuitous", "1");
    assert_field(&pkt, "arp.isprobe", "");
    assert_field(&pkt, "arp.src.hw_mac", "02:00:00:00:00:01");
    assert_field(&pkt, "arp.src.hw", "");
    /* the same from 0.0.0.0: a probe */
    decode_hex(&tf, "ffffffffffff020000000001080600010800060400010200000000010000000000"
                    "0000000000000a000001", RS_DLT_EN10MB, &pkt);
    assert_string_equal(rs_arp_kind(&pkt, &kind), "ARP Probe");
    assert_field(&pkt, "arp.isprobe", "1");
    assert_field(&pkt, "arp.isgratuitous", "");
    /* a reply naming itself */
    decode_hex(&tf, "ffffffffffff020000000001080600010800060400020200000000010a000001"
                    "ffffffffffff0a000001", RS_DLT_EN10MB, &pkt);
    assert_string_equal(rs_arp_kind(&pkt, &kind), "reply/gratuitous ARP");
    assert_field(&pkt, "arp.isannouncement", "");
    /* InfiniBand's 20-byte hardware addresses, as IPoIB's ARP has them */
    decode_hex(&tf, "ffffffffffff020000000001080600200800140400018000040"
                    "5fe800000000000000002c9020024f6360a000122"
                    "00000000000000000000000000000000000000000a00003a", RS_DLT_EN10MB, &pkt);
    assert_string_equal(rs_arp_kind(&pkt, &kind), "request");
    assert_int_equal(kind, RS_ARP_PLAIN);
    assert_field(&pkt, "arp.src.hw_mac", "");
    assert_field(&pkt, "arp.src.hw", "80000405fe800000000000000002c9020024f636");
    assert_field(&pkt, "arp.src.proto_ipv4", "10.0.1.34");
    rs_arp_address_text(&pkt, 0, text, sizeof(text));
    assert_string_equal(text, "80000405fe800000000000000002c9020024f636");
    rs_arp_address_text(&pkt, 3, text, sizeof(text));
    assert_string_equal(text, "10.0.0.58");
}

/* A bit field's pattern, as the tree writes it before the name: whole, and cut to a
 * smaller buffer with the whole length returned (snprintf's rule). */
static void
test_format_bits(void **state)
{
    char buf[96], small[6];

    (void)state;
    assert_int_equal(rs_format_bits(buf, sizeof(buf), 0x4a, 0xf0, 8), 12);
    assert_string_equal(buf, "0100 .... = ");
    assert_int_equal(rs_format_bits(buf, sizeof(buf), 0x6000, 0xe000, 16), 22);
    assert_string_equal(buf, "011. .... .... .... = ");
    assert_int_equal(rs_format_bits(buf, sizeof(buf), 0x012, 0x012, 12), 17);
    assert_string_equal(buf, ".... ...1 ..1. = ");
    assert_int_equal(rs_format_bits(small, sizeof(small), 0x80000000u, 0x80000000u, 32), 42);
    assert_string_equal(small, "1... ");
    assert_int_equal(rs_format_bits(buf, sizeof(buf), ~0ull, 1ull << 63, 64), 82);
    assert_memory_equal(buf, "1... .... ", 10);
}

/* The Info appenders a tree label is written through count what they drop, so that the
 * label returns what snprintf would: the whole length, with the buffer cut and ended. */
static void
test_info_counts_what_it_drops(void **state)
{
    char buf[8], whole[64];
    struct rs_info in = {buf, sizeof(buf), 0, 0};

    (void)state;
    rs_info_str(&in, "Frame Length: ");
    rs_info_dec(&in, " ", 1234);
    rs_info_hex(&in, " 0x", 0xab, 4);
    rs_info_add(&in, " %s", "xyz");
    int n = snprintf(whole, sizeof(whole), "Frame Length:  1234 0x00ab xyz");
    assert_int_equal(in.want, n);
    assert_int_equal(in.len, sizeof(buf) - 1);
    assert_string_equal(buf, "Frame L");

    struct rs_info wide = {whole, sizeof(whole), 0, 0};
    rs_info_str(&wide, "ab");
    rs_info_add(&wide, "%d", 42);
    assert_int_equal(wide.want, wide.len);
    assert_string_equal(whole, "ab42");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup_and_aliases),
        cmocka_unit_test(test_info_counts_what_it_drops),
        cmocka_unit_test(test_format_bits),
        cmocka_unit_test(test_our_fields_have_help),
        cmocka_unit_test(test_values_of_a_write),
        cmocka_unit_test(test_values_of_atomics_and_ib),
        cmocka_unit_test(test_aeth_subfields),
        cmocka_unit_test(test_aeth_tables),
        cmocka_unit_test(test_formatting),
        cmocka_unit_test(test_styles),
        cmocka_unit_test(test_type_names),
        cmocka_unit_test(test_arp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
