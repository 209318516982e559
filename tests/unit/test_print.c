/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_print.c - the printers: summary lines, Info text, tree, JSON and
 * -T fields with tshark's -E options.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/mad.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/streams.h>

#include "testutil.h"

struct capture_out {
    char *text;
    size_t size;
    FILE *fp;
    struct rs_out out;
};

static void
capture_begin(struct capture_out *c)
{
    c->text = NULL;
    c->fp = open_memstream(&c->text, &c->size);
    assert_non_null(c->fp);
    assert_int_equal(rs_out_init(&c->out, c->fp, 4096), 0);
}

static const char *
capture_end(struct capture_out *c)
{
    assert_int_equal(rs_out_flush(&c->out), 0);
    rs_out_free(&c->out);
    fclose(c->fp);
    return c->text;
}

static void
decode_hex(struct test_frame *tf, const char *hex, int linktype, struct rs_packet *pkt)
{
    test_frame_from_hex(tf, hex, linktype);
    test_decode(&tf->frame, pkt);
}

/* pkt's Info as tshark writes it, and as we do (test_info()). */
static const char *
tshark_info(const struct rs_packet *pkt)
{
    return test_info(pkt, true);
}

static const char *
our_info(const struct rs_packet *pkt)
{
    return test_info(pkt, false);
}

/* tshark's Info of the Ethernet frame hex, crafted. */
static const char *
tshark_info_of(const char *hex)
{
    static struct test_frame tf;
    struct rs_packet pkt;

    decode_hex(&tf, hex, RS_DLT_EN10MB, &pkt);
    return tshark_info(&pkt);
}

/* The RoCEv2 WRITE Only as frame 4, 4.454 ms in; cut to caplen bytes unless 0. */
static void
decode_frame_4(struct test_frame *tf, struct rs_packet *pkt, uint32_t caplen)
{
    decode_hex(tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB, pkt);
    tf->frame.number = 4;
    tf->frame.rel = (struct rs_time){0, 4454000};
    if (caplen != 0) {
        tf->frame.caplen = caplen;
        test_decode(&tf->frame, pkt);
    }
}

static void
test_summary_line(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;

    (void)state;
    decode_frame_4(&tf, &pkt, 0);
    capture_begin(&c);
    rs_print_summary(&c.out, &pkt);
    assert_string_equal(capture_end(&c),
                        "    4  0.004454 10.0.0.1 → 10.0.0.2 RRoCE 94 RC RDMA Write Only "
                        "QP=0x000011 PSN=4660 AckReq VA=0x7f0012345000 R_Key=0x0000beef "
                        "Len=18 Payload=18\n");
    free(c.text);
}

/* An rs_out without a FILE keeps everything in memory, past its first size: the
 * PDML printer renders each line there, and a frame's bytes in hex can be long. */
static void
test_out_memory(void **state)
{
    struct rs_out o;

    (void)state;
    assert_int_equal(rs_out_init(&o, NULL, 16), 0);
    for (int i = 0; i < 100000; i++)
        rs_out_str(&o, "0123456789");
    rs_out_end_frame(&o);
    assert_int_equal(rs_out_flush(&o), 0);
    assert_int_equal(o.len, 1000000);
    assert_memory_equal(o.buf + 999990, "0123456789", 10);
    rs_out_free(&o);
}

/* The padded writers and the decimal formatter write what printf's "%-*s", "%*s" and
 * "%*llu" write, at the widths the statistics use and past them. */
static void
test_out_padded(void **state)
{
    static const uint64_t values[] = {0, 9, 10, 99, 100, 12345, 999999, 1000000,
                                      4294967295u, UINT64_MAX};
    static const int widths[] = {0, 1, 5, 6, 9, 12, 25};
    struct rs_out o;
    char want[128], digits[RS_U64_TEXT_MAX];

    (void)state;
    for (size_t i = 0; i < RS_ARRAY_SIZE(values); i++) {
        snprintf(want, sizeof(want), "%llu", (unsigned long long)values[i]);
        size_t n = rs_format_u64(digits, values[i]);
        assert_int_equal(n, strlen(want));
        assert_memory_equal(digits, want, n);
        for (size_t w = 0; w < RS_ARRAY_SIZE(widths); w++) {
            assert_int_equal(rs_out_init(&o, NULL, 8), 0);
            rs_out_pad_u64(&o, values[i], widths[w]);
            rs_out_pad(&o, "ab", widths[w], true);
            rs_out_pad(&o, "cd", widths[w], false);
            rs_out_char(&o, '\0');
            snprintf(want, sizeof(want), "%*llu%-*s%*s", widths[w],
                     (unsigned long long)values[i], widths[w], "ab", widths[w], "cd");
            assert_string_equal(o.buf, want);
            rs_out_free(&o);
        }
    }
}

/* The decimal formatter's count of digits at each boundary it can get wrong: every power
 * of ten and of two, and one either side of each. */
static void
test_format_u64_lengths(void **state)
{
    char want[32], digits[RS_U64_TEXT_MAX];

    (void)state;
    for (int k = 0; k < 64; k++) {
        uint64_t pow10 = 1, pow2 = (uint64_t)1 << k;
        for (int i = 0; i < k && i < RS_U64_TEXT_MAX - 1; i++)
            pow10 *= 10;
        const uint64_t around[] = {pow10 - 1, pow10, pow10 + 1, pow2 - 1, pow2, pow2 + 1,
                                   UINT64_MAX - (uint64_t)k};
        for (size_t j = 0; j < RS_ARRAY_SIZE(around); j++) {
            snprintf(want, sizeof(want), "%llu", (unsigned long long)around[j]);
            size_t n = rs_format_u64(digits, around[j]);
            assert_int_equal(n, strlen(want));
            assert_memory_equal(digits, want, n);
        }
    }
}

/* The Info column cut to its buffer: what fits, terminated, and its length. */
static void
test_info_truncated(void **state)
{
    static const char full[] = "RC RDMA Write Only QP=0x000011 PSN=4660 AckReq "
                               "VA=0x7f0012345000 R_Key=0x0000beef Len=18 Payload=18";
    struct test_frame tf;
    struct rs_packet pkt;
    char buf[sizeof(full) + 8];

    (void)state;
    decode_frame_4(&tf, &pkt, 0);
    assert_int_equal(rs_print_info(&pkt, buf, sizeof(buf)), strlen(full));
    assert_string_equal(buf, full);
    for (size_t size = 1; size <= sizeof(full); size++) {
        memset(buf, 'x', sizeof(buf));
        assert_int_equal(rs_print_info(&pkt, buf, size), size - 1);
        assert_memory_equal(buf, full, size - 1);
        assert_int_equal(buf[size - 1], '\0');
    }
}

/* -T psml: the header, one packet's sections, XML's specials escaped (the apostrophe
 * of a malformed frame's reason), the end. */
static void
test_psml(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;

    (void)state;
    decode_frame_4(&tf, &pkt, 60);
    capture_begin(&c);
    rs_print_psml_begin(&c.out);
    rs_print_psml(&c.out, &pkt);
    rs_print_psml_end(&c.out);
    const char *text = capture_end(&c);
    assert_non_null(strstr(text, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<psml version=\"0\" "
                                 "creator=\"roceshark/"));
    assert_non_null(strstr(text, "\">\n<structure>\n<section>No.</section>\n<section>Time"
                                 "</section>\n<section>Source</section>\n<section>Destination"
                                 "</section>\n<section>Protocol</section>\n<section>Length"
                                 "</section>\n<section>Info</section>\n</structure>\n\n"
                                 "<packet>\n<section>4</section>\n<section>0.004454</section>\n"
                                 "<section>10.0.0.1</section>\n<section>10.0.0.2</section>\n"
                                 "<section>RRoCE</section>\n<section>94</section>\n"
                                 "<section>RC RDMA Write Only QP=0x000011 "));
    assert_non_null(strstr(text, "cut short by the capture&#x27;s snapshot length]"));
    assert_null(strstr(text, "capture's"));
    assert_non_null(strstr(text, "</section>\n</packet>\n\n</psml>\n"));
    free(c.text);
}

static void
test_info_reasons(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    char info[256];

    (void)state;
    decode_hex(&tf, HEX_ROCEV2_ACK, RS_DLT_EN10MB, &pkt);
    rs_print_info(&pkt, info, sizeof(info));
    assert_string_equal(info, "RC Acknowledge QP=0x000012 PSN=4660 MSN=1");
    assert_string_equal(rs_print_protocol(&pkt), "RRoCE");

    tf.bytes[54] = 0x61;    /* NAK, invalid request; the ICRC no longer matches */
    test_decode(&tf.frame, &pkt);
    rs_print_info(&pkt, info, sizeof(info));
    assert_string_equal(info, "RC Acknowledge QP=0x000012 PSN=4660 NAK [Invalid Request] "
                              "MSN=1 [Bad ICRC]");
    tf.bytes[54] = 0x2e;    /* RNR NAK, 1.28 ms */
    test_decode(&tf.frame, &pkt);
    rs_print_info(&pkt, info, sizeof(info));
    assert_non_null(strstr(info, "RNR NAK [delay 1.28 ms] MSN=1"));
    /* What the plugin appends to Wireshark's Info, which shows no RNR NAK: read's words
     * for it, then the marks. */
    rs_print_info_marks(&pkt, info, sizeof(info));
    assert_string_equal(info, " RNR NAK [delay 1.28 ms] [Bad ICRC]");
    tf.bytes[54] = 0x61;
    test_decode(&tf.frame, &pkt);
    rs_print_info_marks(&pkt, info, sizeof(info));
    assert_string_equal(info, " [Bad ICRC]");

    decode_hex(&tf, HEX_ERF_IB_ACK, RS_DLT_ERF, &pkt);
    assert_string_equal(rs_print_protocol(&pkt), "InfiniBand");
    decode_hex(&tf, HEX_ROCEV1_SEND_ONLY, RS_DLT_EN10MB, &pkt);
    assert_string_equal(rs_print_protocol(&pkt), "RoCE");
    /* RoCEv1's GIDs are InfiniBand addresses to tshark 4.0.17, named so in its columns
     * (before: as IPv6 addresses) */
    char src[64], dst[64];
    rs_print_addresses(&pkt, src, dst, sizeof(src));
    assert_string_equal(src, "GID: fe80::202:c9ff:feaa:bbcc");
    assert_string_equal(dst, "GID: fe80::202:c9ff:fedd:eeff");

    decode_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB, &pkt);
    tf.frame.caplen = 60;
    test_decode(&tf.frame, &pkt);
    rs_print_info(&pkt, info, sizeof(info));
    assert_non_null(strstr(info, "[Malformed: frame cut short by the capture's snapshot length]"));
}

/* The -V tree of the Ethernet frame in hex, to free. */
static char *
tree_of(const char *hex)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;

    decode_hex(&tf, hex, RS_DLT_EN10MB, &pkt);
    capture_begin(&c);
    rs_print_tree(&c.out, &pkt);
    capture_end(&c);
    return c.text;
}

static void
test_tree(void **state)
{
    (void)state;
    char *t = tree_of(HEX_ROCEV2_ACK);
    assert_non_null(strstr(t, "Frame 1: 62 bytes on wire (496 bits), 62 bytes captured"));
    assert_non_null(strstr(t, "\nInfiniBand\n    Base Transport Header\n        Opcode: Reliable "
                              "Connection (RC) - Acknowledge (17)\n"));
    assert_non_null(strstr(t, "        Syndrome: 31, Ack\n"));
    assert_non_null(strstr(t, "            .00. .... = OpCode: Ack (0)\n"));
    assert_non_null(strstr(t, "        0... .... = Acknowledge Request: False\n"));
    assert_non_null(strstr(t, "            ...1 1111 = Credit Count: 31\n"));
    assert_non_null(strstr(t, "    ICRC status: Good (1)\n"));
    free(t);
}

/* Neighbor Discovery as tshark 4.0's tree shows it: each option titled with its type
 * (and an Ethernet address, a prefix or an MTU), its length in octets too, the flags
 * named in their summary line, the repeated address hidden. */
#define HEX_ND_NA                                                                           \
    "33330000000100112233445586dd6000000000203afffe800000000000000211223344556677ff02000000" \
    "00000000000001ff000001880095bee0000000fe8000000000000002112233445566880201001122334466"
#define HEX_ND_RA                                                                           \
    "33330000000100112233445586dd6000000000383afffe800000000000000211223344556677ff02000000" \
    "00000000000001ff0000018600f02640c0001e0000000000000000030440c0000000640000003200000000" \
    "20010db800000000000000000000000005010000000005dc"

static void
test_tree_nd(void **state)
{
    (void)state;
    char *t = tree_of(HEX_ND_NA);
    assert_non_null(strstr(t, "\n    Flags: 0xe0000000, Router, Solicited, Override\n"));
    assert_non_null(strstr(t, "\n    ICMPv6 Option (Target link-layer address : "
                              "00:11:22:33:44:66)\n        Type: Target link-layer address (2)\n"
                              "        Length: 1 (8 bytes)\n        Link-layer address: "));
    assert_null(strstr(t, "Target Link-layer address:"));
    free(t);

    t = tree_of(HEX_ND_RA);
    assert_non_null(strstr(t, "\n    Flags: 0xc0, Managed address configuration, Other "
                              "configuration, Prf (Default Router Preference): Medium\n"));
    assert_non_null(strstr(t, "\n    ICMPv6 Option (Prefix information : 2001:db8::/64)\n"));
    assert_non_null(strstr(t, "        Length: 4 (32 bytes)\n"));
    assert_non_null(strstr(t, "\n        Flag: 0xc0, On-link flag(L), Autonomous "
                              "address-configuration flag(A)\n"
                              "            1... .... = On-link flag(L): Set\n"));
    assert_non_null(strstr(t, "\n    ICMPv6 Option (MTU : 1500)\n"));
    free(t);
}

/* Router advertisements with an option of a type no one decodes (99) between known ones,
 * and with one whose length is 0 or runs past the message: each option shown and
 * flagged as tshark 4.0.17's -V shows these frames (its text, frozen here), and none
 * after a zero length. */
#define HEX_RA_OPT_HEAD                                                                     \
    "33330000000100112233445586dd60000000002%c3afffe800000000000000211223344556677ff02000" \
    "00000000000000000000000018600%s40c0001e00000000000000000101001122334455"

#define UNDECODED_99                                                                      \
    "        [Expert Info (Note/Undecoded): Dissector for ICMPv6 Option (99) code not "     \
    "implemented, Contact Wireshark developers if you want this supported]\n"             \
    "            [Dissector for ICMPv6 Option (99) code not implemented, Contact "          \
    "Wireshark developers if you want this supported]\n"                                   \
    "            [Severity level: Note]\n"                                                 \
    "            [Group: Undecoded]\n"

static char *
tree_of_ra(char len, const char *csum, const char *tail)
{
    char hex[512];

    snprintf(hex, sizeof(hex), HEX_RA_OPT_HEAD "%s", len, csum, tail);
    return tree_of(hex);
}

static void
test_tree_nd_unknown_option(void **state)
{
    (void)state;
    char *t = tree_of_ra('8', "f810", "6301deadbeef010205010000000005dc");
    assert_non_null(strstr(
        t, "\n    ICMPv6 Option (Unknown 99)\n"
           "        Type: Unknown (99)\n"
           "        Length: 1 (8 bytes)\n"
           UNDECODED_99
           "        Data: deadbeef0102\n"
           "    ICMPv6 Option (MTU : 1500)\n"
           "        Type: MTU (5)\n"
           "        Length: 1 (8 bytes)\n"
           "        Reserved\n"
           "        MTU: 1500\n"));
    assert_null(strstr(t, "Malformed"));
    free(t);

    /* a zero length: flagged under it, and the MTU option after it is not reached */
    t = tree_of_ra('8', "f811", "6300deadbeef010205010000000005dc");
    assert_non_null(strstr(
        t, "\n    ICMPv6 Option (Unknown 99\n"
           "        Type: Unknown (99)\n"
           "        Length: 0 (0 bytes)\n"
           "            [Expert Info (Error/Malformed): Invalid option length (Zero)]\n"
           "                [Invalid option length (Zero)]\n"
           "                [Severity level: Error]\n"
           "                [Group: Malformed]\n"));
    assert_null(strstr(t, "MTU"));
    assert_null(strstr(t, "Undecoded"));
    free(t);

    /* 24 bytes declared, 8 left: shown as far as it goes, then the packet is malformed */
    t = tree_of_ra('0', "02f4", "6303deadbeef0102");
    assert_non_null(strstr(
        t, "\n    ICMPv6 Option (Unknown 99\n"
           "        Type: Unknown (99)\n"
           "        Length: 3 (24 bytes)\n"
           UNDECODED_99));
    assert_null(strstr(t, "Data:"));
    assert_non_null(strstr(t, "\n[Malformed Packet: ICMPv6]\n"));
    free(t);
}

/* Router advertisements crafted with the ND options tshark 4.0 decodes beyond RFC 4861's:
 * RDNSS (two servers; an infinite lifetime; a lifetime of 0; servers that are no whole
 * number of addresses, malformed), Nonce (6 and 14 octets) and Route Information (a /48
 * in 8 octets, a /64 in 16 with an infinite lifetime, a default route in none). Trees and
 * PDML as tshark 4.0.17 prints them; before, each was "Unknown (25)" and its Data. */
#define HEX_RA_HEAD                                                                        \
    "33330000000102000000000186dd60000000%s3afffe800000000000000000000000000001ff02000000" \
    "00000000000000000000018600%s400007080000000000000000"
#define HEX_RA_ND_OPTIONS                                                                  \
    "0101020000000001190500000000025820010db800000000000000000000005320010db8000000000000" \
    "0000000000540e010102030405a6180230080000070820010db80001000018034018ffffffff20010db80" \
    "00200000000000000000000180100000000012c"

static char *
ra_with(const char *plen, const char *csum, const char *options)
{
    static char hex[1024];

    snprintf(hex, sizeof(hex), HEX_RA_HEAD "%s", plen, csum, options);
    return hex;
}

static void
test_tree_nd_decoded_options(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_json_opts opts = {.text = true};

    (void)state;
    char *t = tree_of(ra_with("0078", "86c9", HEX_RA_ND_OPTIONS));
    assert_non_null(strstr(
        t, "\n    ICMPv6 Option (Recursive DNS Server 2001:db8::53 2001:db8::54)\n"
           "        Type: Recursive DNS Server (25)\n"
           "        Length: 5 (40 bytes)\n"
           "        Reserved\n"
           "        Lifetime: 600\n"
           "        Recursive DNS Servers: 2001:db8::53\n"
           "        Recursive DNS Servers: 2001:db8::54\n"
           "    ICMPv6 Option (Nonce)\n"
           "        Type: Nonce (14)\n"
           "        Length: 1 (8 bytes)\n"
           "        Nonce: 0102030405a6\n"
           "    ICMPv6 Option (Route Information : High 2001:db8:1::/48)\n"
           "        Type: Route Information (24)\n"
           "        Length: 2 (16 bytes)\n"
           "        Prefix Length: 48\n"
           "        Flag: 0x08, Route Preference: High\n"
           "            ...0 1... = Route Preference: High (1)\n"
           "            000. .000 = Reserved: 0\n"
           "        Route Lifetime: 1800\n"
           "        Prefix: 2001:db8:1::\n"
           "    ICMPv6 Option (Route Information : Low 2001:db8:2::/64)\n"
           "        Type: Route Information (24)\n"
           "        Length: 3 (24 bytes)\n"
           "        Prefix Length: 64\n"
           "        Flag: 0x18, Route Preference: Low\n"
           "            ...1 1... = Route Preference: Low (3)\n"
           "            000. .000 = Reserved: 0\n"
           "        Route Lifetime: Infinity (4294967295)\n"
           "        Prefix: 2001:db8:2::\n"
           "    ICMPv6 Option (Route Information : Medium ::/0)\n"
           "        Type: Route Information (24)\n"
           "        Length: 1 (8 bytes)\n"
           "        Prefix Length: 0\n"
           "        Flag: 0x00, Route Preference: Medium\n"
           "            ...0 0... = Route Preference: Medium (0)\n"
           "            000. .000 = Reserved: 0\n"
           "        Route Lifetime: 300\n"));
    assert_null(strstr(t, "Data:"));
    assert_null(strstr(t, "Malformed"));
    free(t);

    decode_hex(&tf, ra_with("0078", "86c9", HEX_RA_ND_OPTIONS), RS_DLT_EN10MB, &pkt);
    capture_begin(&c);
    rs_print_pdml(&c.out, &pkt, &opts);
    const char *x = capture_end(&c);
    assert_non_null(strstr(x, "<field name=\"icmpv6.opt.reserved\" showname=\"Reserved\" "
                              "size=\"2\" pos=\"80\" show=\"\" value=\"\"/>"));
    assert_non_null(strstr(x, "<field name=\"icmpv6.opt.rdnss\" showname=\"Recursive DNS "
                              "Servers: 2001:db8::54\" size=\"16\" pos=\"102\" "
                              "show=\"2001:db8::54\" value=\"20010db8000000000000000000000054\""));
    assert_non_null(strstr(x, "<field name=\"icmpv6.opt.nonce\" showname=\"Nonce: 0102030405a6\" "
                              "size=\"6\" pos=\"120\" show=\"01:02:03:04:05:a6\" "
                              "value=\"0102030405a6\"/>"));
    assert_non_null(strstr(x, "<field name=\"icmpv6.opt.prefix\" showname=\"Prefix: "
                              "2001:db8:1::\" size=\"8\" pos=\"134\" show=\"2001:db8:1::\" "
                              "value=\"20010db800010000\"/>"));
    assert_non_null(strstr(x, "<field name=\"icmpv6.opt.route_info.flag.route_preference\" "
                              "showname=\"...1 1... = Route Preference: Low (3)\" size=\"1\" "
                              "pos=\"145\" show=\"3\" value=\"3\" unmaskedvalue=\"18\"/>"));
    free(c.text);

    t = tree_of(ra_with("0050", "95eb",
                        "19030000ffffffff20010db8000000000000000000000001190300000000000000"
                        "0000000000000000000000000000010e020102030405060708090a0b0c0d0e"));
    assert_non_null(strstr(
        t, "\n        Lifetime: Infinity (4294967295)\n"
           "        Recursive DNS Servers: 2001:db8::1\n"));
    assert_non_null(strstr(
        t, "\n        Lifetime: RDNSS address MUST no longer be used (0)\n"
           "        Recursive DNS Servers: ::1\n"
           "    ICMPv6 Option (Nonce)\n"
           "        Type: Nonce (14)\n"
           "        Length: 2 (16 bytes)\n"
           "        Nonce: 0102030405060708090a0b0c0d0e\n"));
    free(t);

    /* 24 octets of servers: the first, then tshark stops */
    t = tree_of(ra_with("0030", "ee3e",
                        "190400000000000a20010db80000000000000000000000010000000000000000"));
    assert_non_null(strstr(
        t, "\n    ICMPv6 Option (Recursive DNS Server 2001:db8::1\n"
           "        Type: Recursive DNS Server (25)\n"
           "        Length: 4 (32 bytes)\n"
           "        Reserved\n"
           "        Lifetime: 10\n"
           "        Recursive DNS Servers: 2001:db8::1\n"));
    assert_non_null(strstr(t, "\n[Malformed Packet: ICMPv6]\n"));
    free(t);
}

/* Router advertisements crafted with an Advertisement Interval and a Home Agent
 * Information option (RFC 6275 7.3, 7.4), as tshark 4.0.17 decodes them, its name for the
 * lifetime included (before: Data), and with a Route Information option too long. */
static void
test_tree_nd_mobile_options(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_json_opts opts = {.text = true};

    (void)state;
    char *t = tree_of("33330000000102000000000186dd6000000000183afffe80000000000000000000000000"
                      "0001ff02000000000000000000000000000186001a964000070800000000000000000701"
                      "000000001388");
    assert_non_null(strstr(t, "\n    ICMPv6 Option (Advertisement Interval : 5000)\n"
                              "        Type: Advertisement Interval (7)\n"
                              "        Length: 1 (8 bytes)\n"
                              "        Reserved\n"
                              "        Advertisement Interval: 5000\n"));
    assert_null(strstr(t, "Data:"));
    free(t);
    decode_hex(&tf, "33330000000102000000000186dd6000000000183afffe80000000000000000000000000"
                    "0001ff0200000000000000000000000000018600260c40000708000000000000000008010"
                    "000000a0708",
               RS_DLT_EN10MB, &pkt);
    capture_begin(&c);
    rs_print_tree(&c.out, &pkt);
    rs_print_pdml(&c.out, &pkt, &opts);
    const char *x = capture_end(&c);
    assert_non_null(strstr(x, "\n    ICMPv6 Option (Home Agent Information)\n"
                              "        Type: Home Agent Information (8)\n"
                              "        Length: 1 (8 bytes)\n"
                              "        Reserved\n"
                              "        Home Agent Preference: 10\n"
                              "        Home Agent Preference: 1800\n"));
    assert_non_null(strstr(x, "<field name=\"icmpv6.opt.reserved\" showname=\"Reserved\" "
                              "size=\"2\" pos=\"72\" show=\"\" value=\"\"/>\n"
                              "      <field name=\"icmpv6.opt.home_agent_preference\" "
                              "showname=\"Home Agent Preference: 10\" size=\"2\" pos=\"74\" "
                              "show=\"10\" value=\"000a\"/>\n"
                              "      <field name=\"icmpv6.opt.home_agent_lifetime\" "
                              "showname=\"Home Agent Preference: 1800\" size=\"2\" pos=\"76\" "
                              "show=\"1800\" value=\"0708\"/>\n"));
    free(c.text);

    /* A Route Information option of 32 octets (RFC 4191 allows 24 at most): its length
     * flagged, no prefix, the rest after the lifetime Unknown Data (before: the prefix) */
    decode_hex(&tf, "33330000000102000000000186dd6000000000303afffe80000000000000000000000000"
                    "0001ff0200000000000000000000000000018600b838400007080000000000000000180430"
                    "080000070820010db80001000000000000000000000000000000000000",
               RS_DLT_EN10MB, &pkt);
    capture_begin(&c);
    rs_print_tree(&c.out, &pkt);
    rs_print_pdml(&c.out, &pkt, &opts);
    x = capture_end(&c);
    assert_non_null(strstr(
        x, "\n    ICMPv6 Option (Route Information : High)\n"
           "        Type: Route Information (24)\n"
           "        Length: 4 (32 bytes)\n"
           "            [Expert Info (Error/Malformed): Invalid Option Length]\n"
           "                [Invalid Option Length]\n"
           "                [Severity level: Error]\n"
           "                [Group: Malformed]\n"
           "        Prefix Length: 48\n"));
    assert_non_null(strstr(
        x, "\n        Route Lifetime: 1800\n"
           "        Unknown Data: 20010db80001000000000000000000000000000000000000\n"
           "            [Expert Info (Error/Malformed): Unknown Data (not interpreted)]\n"
           "                [Unknown Data (not interpreted)]\n"
           "                [Severity level: Error]\n"
           "                [Group: Malformed]\n"));
    assert_null(strstr(x, "Prefix: 2001"));
    assert_non_null(strstr(
        x, "\"Group: Malformed\" size=\"0\" pos=\"0\" show=\"117440512\"/>\n"
           "        </field>\n"
           "        <proto name=\"_ws.malformed\" showname=\"Malformed Packet\" hide=\"yes\" "
           "size=\"0\" pos=\"71\"/>\n"
           "      </field>\n"));
    assert_non_null(strstr(x, "<proto name=\"_ws.malformed\" showname=\"Malformed Packet\" "
                              "hide=\"yes\" size=\"0\" pos=\"78\"/>\n"));
    free(c.text);

    /* an RA Flags Extension (RFC 5175) and a DHCP Captive-Portal option (RFC 8910) (before:
     * Data) */
    t = tree_of("33330000000102000000000186dd6000000000183afffe80000000000000000000000000"
                "0001ff02000000000000000000000000000186009b1d4000070800000000000000001a01"
                "800000000000");
    assert_non_null(strstr(
        t, "\n    ICMPv6 Option (RA Flags Extension)\n"
           "        Type: RA Flags Extension (26)\n"
           "        Length: 1 (8 bytes)\n"
           "        Flags Expansion Option: 0x8000, Managed address configuration, Prf (Default "
           "Router Preference): Medium\n"
           "            1... .... .... .... = Managed address configuration: Set\n"
           "            .0.. .... .... .... = Other configuration: Not set\n"
           "            ..0. .... .... .... = Home Agent: Not set\n"
           "            ...0 0... .... .... = Prf (Default Router Preference): Medium (0)\n"
           "            .... .0.. .... .... = Proxy: Not set\n"
           "            .... ..0. 0000 0000 = Reserved: 0\n"
           "        Reserved\n"));
    free(t);
    t = tree_of("33330000000102000000000186dd6000000000283afffe80000000000000000000000000"
                "0001ff02000000000000000000000000000186007db04000070800000000000000002503"
                "68747470733a2f2f63702e6578616d706c652f000000");
    assert_non_null(strstr(t, "\n    ICMPv6 Option (DHCP Captive-Portal)\n"
                              "        Type: DHCP Captive-Portal (37)\n"
                              "        Length: 3 (24 bytes)\n"
                              "        Captive Portal: https://cp.example/\n"));
    assert_null(strstr(t, "Data: "));
    free(t);

    /* PREF64 (RFC 8781), with a PLC it defines and with one it does not (before: Data) */
    t = tree_of("33330000000102000000000186dd6000000000203afffe80000000000000000000000000"
                "0001ff0200000000000000000000000000018600fc544000070800000000000000002602"
                "12c00064ff9b0000000000000000");
    assert_non_null(strstr(
        t, "\n    ICMPv6 Option (PREF64 Option)\n"
           "        Type: PREF64 Option (38)\n"
           "        Length: 2 (16 bytes)\n"
           "        0001 0010 1100 0... = Scaled Lifetime: 600\n"
           "        .... .... .... .000 = PLC (Prefix Length Code): 96 bits prefix length (0x0)\n"
           "        Prefix: 64:ff9b::\n"));
    assert_null(strstr(t, "Data: "));
    free(t);
    t = tree_of("33330000000102000000000186dd6000000000203afffe80000000000000000000000000"
                "0001ff0200000000000000000000000000018600e1514000070800000000000000002602"
                "ffff20010db80001000200030004");
    assert_non_null(strstr(
        t, "\n        Length: 2 (16 bytes)\n"
           "            [Expert Info (Error/Malformed): Invalid Option Length]\n"));
    assert_null(strstr(t, "Prefix: "));
    free(t);

    /* A DNS Search List option (RFC 8106 5.2) with two names (before: Data) */
    decode_hex(&tf, "33330000000102000000000186dd6000000000383afffe80000000000000000000000000"
                    "0001ff02000000000000000000000000000186002bdd4000070800000000000000001f0500"
                    "00ffffffff03666f6f076578616d706c6503636f6d0003626172036f726700000000000000",
               RS_DLT_EN10MB, &pkt);
    capture_begin(&c);
    rs_print_tree(&c.out, &pkt);
    rs_print_pdml(&c.out, &pkt, &opts);
    x = capture_end(&c);
    assert_non_null(strstr(x, "\n    ICMPv6 Option (DNS Search List Option foo.example.com "
                              "bar.org)\n"
                              "        Type: DNS Search List Option (31)\n"
                              "        Length: 5 (40 bytes)\n"
                              "        Reserved\n"
                              "        Lifetime: Infinity (4294967295)\n"
                              "        Domain Names: foo.example.com\n"
                              "        Domain Names: bar.org\n"
                              "        Padding\n"));
    assert_null(strstr(x, "Data: "));
    assert_non_null(strstr(x, "<field name=\"icmpv6.opt.dnssl\" showname=\"Domain Names: "
                              "bar.org\" size=\"9\" pos=\"95\" show=\"bar.org\" "
                              "value=\"03626172036f726700\"/>\n"
                              "      <field name=\"icmpv6.opt.padding\" showname=\"Padding\" "
                              "size=\"6\" pos=\"104\" show=\"\" value=\"\"/>\n"));
    free(c.text);
}

/* 802.1Q and 802.1ad tags as tshark 4.0.17 shows them, on frames crafted with a C-tag (VID
 * 100) and with an S-tag (100) and a C-tag (200): the titles with their values, the
 * priority's and DEI's names, an S-tag's DEI and Type (ieee8021ah.etype), its name in the
 * protocols, and each field at its own tag (before: the titles alone, 'Priority: 0', 'DEI:
 * False', no DEI or Type for the S-tag, vlan for it in the protocols, and the C-tag's
 * fields placed at the first tag). */
static void
test_tree_vlan_tags(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_json_opts opts = {.text = true};

    (void)state;
    char *t = tree_of("0200000000020200000000018100006408004500001c00004000401126cb0a0000010a0000"
                      "02c000300000080000");
    assert_non_null(strstr(t, "\n802.1Q Virtual LAN, PRI: 0, DEI: 0, ID: 100\n"
                              "    000. .... .... .... = Priority: Best Effort (default) (0)\n"
                              "    ...0 .... .... .... = DEI: Ineligible\n"
                              "    .... 0000 0110 0100 = ID: 100\n"
                              "    Type: IPv4 (0x0800)\n"));
    free(t);
    /* priority 3, RoCE's usual lossless one: IEEE 802.1Q-2014's name, as tshark 4.0.17's
     * (before: 802.1D-2004's 'Excellent Effort') */
    t = tree_of("0200000000020200000000018100606408004500001c00004000401126cb0a0000010a0000"
                "02c000300000080000");
    assert_non_null(strstr(t, "\n802.1Q Virtual LAN, PRI: 3, DEI: 0, ID: 100\n"
                              "    011. .... .... .... = Priority: Critical Applications (3)\n"));
    free(t);
    decode_hex(&tf, "02000000000202000000000188a80064810000c808004500001c00004000401126cb0a00"
                    "00010a000002c000300000080000",
               RS_DLT_EN10MB, &pkt);
    capture_begin(&c);
    rs_print_tree(&c.out, &pkt);
    rs_print_pdml(&c.out, &pkt, &opts);
    rs_print_ek(&c.out, &pkt, &opts);
    const char *x = capture_end(&c);
    /* tshark 4.0.17's EK names the S-tag's Type by the 802.1ah dissector that registers it
     * (before: ieee8021ad_ieee8021ah_etype) */
    assert_non_null(strstr(x, "\"ieee8021ad\":{\"ieee8021ad_ieee8021ad_priority\":\"0\","));
    assert_non_null(strstr(x, "\"ieee8021ah_ieee8021ah_etype\":\"0x8100\""));
    assert_non_null(strstr(x, "[Protocols in frame: eth:ethertype:ieee8021ad:ethertype:vlan:"
                              "ethertype:ip:udp]\n"));
    assert_non_null(strstr(x, "\nIEEE 802.1ad, ID: 100\n"
                              "    000. .... .... .... = Priority: 0\n"
                              "    ...0 .... .... .... = DEI: 0\n"
                              "    .... 0000 0110 0100 = ID: 100\n"
                              "    Type: 802.1Q Virtual LAN (0x8100)\n"
                              "802.1Q Virtual LAN, PRI: 0, DEI: 0, ID: 200\n"));
    assert_non_null(strstr(x, "<field name=\"ieee8021ad.dei\" showname=\"...0 .... .... .... = "
                              "DEI: 0\" size=\"1\" pos=\"14\" show=\"0\" value=\"0\" "
                              "unmaskedvalue=\"00\"/>\n"
                              "    <field name=\"ieee8021ad.id\" showname=\".... 0000 0110 0100 "
                              "= ID: 100\" size=\"2\" pos=\"14\" show=\"100\" value=\"64\" "
                              "unmaskedvalue=\"0064\"/>\n"
                              "    <field name=\"ieee8021ah.etype\" showname=\"Type: 802.1Q "
                              "Virtual LAN (0x8100)\" size=\"2\" pos=\"16\" show=\"0x8100\" "
                              "value=\"8100\"/>\n"));
    assert_non_null(strstr(x, "<proto name=\"vlan\" showname=\"802.1Q Virtual LAN, PRI: 0, DEI: "
                              "0, ID: 200\" size=\"4\" pos=\"18\">\n"));
    assert_non_null(strstr(x, "<field name=\"vlan.etype\" showname=\"Type: IPv4 (0x0800)\" "
                              "size=\"2\" pos=\"20\" show=\"0x0800\" value=\"0800\"/>\n"));
    free(c.text);
}

/* A frame tshark cannot dissect whole ends as tshark 4.0.17 ends it, on RoCEv2 frames
 * crafted with 6 bytes of BTH and with 8 of a RETH, and an IPv4 header of 12 bytes: the
 * protocol item _ws.malformed named for the protocol that stopped, its expert item under
 * it and a hidden _ws.malformed (before: "[Malformed Packet: BTH exceeds the packet]",
 * alone); cut short by the capture instead, _ws.short alone. Protocols in frame names
 * neither. The InfiniBand item covers the 6 bytes of BTH there are (before: none). */
#define HEX_SHORT_BTH                                                                      \
    "02000000000202000000000108004500002200004000401126c90a0000010a000002c00012b7000e0000" \
    "0a40ffff0000"
#define HEX_CUT_RETH                                                                       \
    "02000000000202000000000108004500003000004000401126bb0a0000010a000002c00012b7001c0000" \
    "0640ffff00000011800000640000000000001000"
#define HEX_SHORT_IPV4 "02000000000202000000000108004500002400004000401126c7"
#define MALFORMED_IB                                                                       \
    "\n[Malformed Packet: IB]\n"                                                           \
    "    [Expert Info (Error/Malformed): Malformed Packet (Exception occurred)]\n"         \
    "        [Malformed Packet (Exception occurred)]\n"                                    \
    "        [Severity level: Error]\n"                                                    \
    "        [Group: Malformed]\n"

static void
test_malformed_as_tshark(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_json_opts opts = {.text = true};

    (void)state;
    char *t = tree_of(HEX_SHORT_BTH);
    assert_non_null(strstr(t, "\n    [Protocols in frame: eth:ethertype:ip:udp:infiniband]\n"));
    assert_non_null(strstr(t, MALFORMED_IB));
    free(t);
    t = tree_of(HEX_CUT_RETH);
    assert_non_null(strstr(t, MALFORMED_IB));
    assert_null(strstr(t, "[Malformed Packet: packet too short"));
    free(t);
    t = tree_of(HEX_SHORT_IPV4);
    assert_non_null(strstr(t, "\n[Malformed Packet: IPv4]\n    [Expert Info (Error/Malformed)"));
    free(t);

    /* tshark's Info: the mark alone where IB stopped before its BTH, after IB's own text */
    assert_string_equal(tshark_info_of(HEX_SHORT_BTH), "[Malformed Packet]");
    assert_string_equal(tshark_info_of(HEX_CUT_RETH),
                        "RC RDMA Write First QP=0x000011 [Malformed Packet]");
    /* right after a text that does not end in a space (before: one added), on an RA
     * whose option runs past the message; and a Neighbor Advertisement without a flag */
    assert_string_equal(
        tshark_info_of("33330000000100112233445586dd6000000000203afffe80000000000000021122334455"
                       "6677ff020000000000000000000000000001860002f440c0001e000000000000000001"
                       "010011223344556303deadbeef0102"),
        "Router Advertisement from 00:11:22:33:44:55[Malformed Packet]");
    assert_string_equal(
        tshark_info_of("33330000000100112233445586dd6000000000183afffe80000000000000021122334455"
                       "6677ff0200000000000000000001ff0000018800de6d00000005fe800000000000000211"
                       "223344556688"),
        "Neighbor Advertisement fe80::211:2233:4455:6688 (none)");

    decode_hex(&tf, HEX_SHORT_BTH, RS_DLT_EN10MB, &pkt);
    capture_begin(&c);
    rs_print_pdml(&c.out, &pkt, &opts);
    rs_print_json(&c.out, &pkt, true, &opts);
    const char *x = capture_end(&c);
    assert_non_null(strstr(
        x, "\n  <proto name=\"infiniband\" showname=\"InfiniBand\" size=\"6\" pos=\"42\"/>\n"));
    assert_non_null(strstr(
        x, "\n  <proto name=\"_ws.malformed\" showname=\"[Malformed Packet: IB]\" size=\"0\" "
           "pos=\"14\">\n"
           "    <field name=\"_ws.expert\" showname=\"Expert Info (Error/Malformed): Malformed "
           "Packet (Exception occurred)\" size=\"0\" pos=\"14\">\n"
           "      <field name=\"_ws.malformed.expert\" showname=\"Malformed Packet (Exception "
           "occurred)\" size=\"0\" pos=\"0\" show=\"\" value=\"\"/>\n"
           "      <field name=\"_ws.expert.message\" showname=\"Message: Malformed Packet "
           "(Exception occurred)\" hide=\"yes\" size=\"0\" pos=\"0\" show=\"Malformed Packet "
           "(Exception occurred)\"/>\n"
           "      <field name=\"_ws.expert.severity\" showname=\"Severity level: Error\" "
           "size=\"0\" pos=\"0\" show=\"8388608\"/>\n"
           "      <field name=\"_ws.expert.group\" showname=\"Group: Malformed\" size=\"0\" "
           "pos=\"0\" show=\"117440512\"/>\n"
           "    </field>\n"
           "    <proto name=\"_ws.malformed\" showname=\"Malformed Packet\" hide=\"yes\" "
           "size=\"0\" pos=\"14\"/>\n"
           "  </proto>\n</packet>\n"));
    assert_non_null(strstr(x, "\n        \"_ws.malformed\": {\n"
                              "          \"_ws.expert\": {\n"
                              "            \"_ws.malformed.expert\": \"\",\n"
                              "            \"_ws.expert.message\": \"Malformed Packet (Exception "
                              "occurred)\",\n"
                              "            \"_ws.expert.severity\": \"8388608\",\n"
                              "            \"_ws.expert.group\": \"117440512\"\n"
                              "          },\n"
                              "          \"_ws.malformed\": \"Malformed Packet\"\n"
                              "        }\n"));
    free(c.text);

    /* a BTH whole on the wire, in 122 bytes of which the capture kept 48 */
    decode_hex(&tf,
               "02000000000202000000000108004500006c000040004011267f0a0000010a000002c00012b7"
               "005800000a40ffff0000",
               RS_DLT_EN10MB, &pkt);
    tf.frame.len = 122;
    test_decode(&tf.frame, &pkt);
    assert_string_equal(tshark_info(&pkt), "[Packet size limited during capture]");
    capture_begin(&c);
    rs_print_tree(&c.out, &pkt);
    rs_print_pdml(&c.out, &pkt, &opts);
    x = capture_end(&c);
    assert_non_null(strstr(x, "\n[Packet size limited during capture: IB truncated]\n"));
    assert_non_null(strstr(x, "\n  <proto name=\"_ws.short\" showname=\"[Packet size limited "
                              "during capture: IB truncated]\" size=\"0\" pos=\"0\"/>\n"
                              "</packet>\n"));
    assert_null(strstr(x, "[Malformed Packet"));
    assert_null(strstr(x, "_ws.malformed"));
    free(c.text);
}

/* An RDMA WRITE whose payload (86 of 94 bytes kept) or ICRC (90) the snapshot length cut,
 * as tshark 4.0.17 shows it: nothing after the RETH (no Data, no ICRC, no '[Packet size
 * limited during capture]' item) and its Info text for a length it lacks the bytes of
 * (before: the Data there was and the item, Info 'RC RDMA Write Only QP=0x000011 [Packet
 * size limited during capture]'). */
static void
test_ib_payload_cut_as_tshark(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_json_opts opts = {.text = true};

    (void)state;
    for (uint32_t caplen = 86; caplen <= 90; caplen += 4) {
        decode_frame_4(&tf, &pkt, caplen);
        assert_string_equal(tshark_info(&pkt),
                            "Invalid Packet Length from LRH! [Malformed Packet]");
        capture_begin(&c);
        rs_print_tree(&c.out, &pkt);
        rs_print_pdml(&c.out, &pkt, &opts);
        const char *x = capture_end(&c);
        assert_non_null(strstr(x, "        DMA Length: 18 (0x00000012)\n"));
        assert_null(strstr(x, "\nData ("));
        assert_null(strstr(x, "Invariant CRC"));
        assert_null(strstr(x, "Packet size limited"));
        assert_null(strstr(x, "_ws.short"));
        assert_non_null(strstr(x, "[Protocols in frame: eth:ethertype:ip:udp:infiniband]\n"));
        free(c.text);
    }
}

/* An IPv4 header cut short, crafted with 12 and 16 of its 20 bytes, as tshark 4.0.17
 * shows it: the fields that fit, the total length's expert item, the protocol column IPv4
 * and the source column where the header holds the source (before: no IPv4 item, ETH and
 * "Ethertype 0x0800"), and with options cut short, up to its source. An ICMP error
 * quoting 12 bytes of IPv4 titles it without the addresses it lacks (before: read past
 * the quote). */
#define HEX_SHORT_IPV4_16 HEX_SHORT_IPV4 "0a000001"
#define HEX_QUOTE_SHORT_IPV4                                                               \
    "02000000000202000000000108004500002800004000400126d30a0000020a0000010303110000000000" \
    "4500002400004000401126c7"

static void
test_short_ipv4_as_tshark(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_json_opts opts = {.text = true};
    struct rs_value v;

    (void)state;
    char *t = tree_of(HEX_SHORT_IPV4);
    assert_non_null(strstr(
        t, "\nInternet Protocol Version 4\n"
           "    0100 .... = Version: 4\n"
           "    .... 0101 = Header Length: 20 bytes (5)\n"
           "    Differentiated Services Field: 0x00 (DSCP: CS0, ECN: Not-ECT)\n"
           "        0000 00.. = Differentiated Services Codepoint: Default (0)\n"
           "        .... ..00 = Explicit Congestion Notification: Not ECN-Capable Transport (0)\n"
           "    Total Length: 36\n"
           "        [Expert Info (Error/Protocol): IPv4 total length exceeds packet length "
           "(12 bytes)]\n"
           "            [IPv4 total length exceeds packet length (12 bytes)]\n"
           "            [Severity level: Error]\n"
           "            [Group: Protocol]\n"
           "    Identification: 0x0000 (0)\n"
           "    010. .... = Flags: 0x2, Don't fragment\n"
           "        0... .... = Reserved bit: Not set\n"
           "        .1.. .... = Don't fragment: Set\n"
           "        ..0. .... = More fragments: Not set\n"
           "    ...0 0000 0000 0000 = Fragment Offset: 0\n"
           "    Time to Live: 64\n"
           "    Protocol: UDP (17)\n"
           "    Header Checksum: 0x26c7 [validation disabled]\n"
           "    [Header checksum status: Unverified]\n"));
    assert_null(strstr(t, "Source Address"));
    free(t);
    t = tree_of(HEX_SHORT_IPV4_16);
    assert_non_null(strstr(t, "\nInternet Protocol Version 4, Src: 10.0.0.1\n"));
    assert_non_null(strstr(t, "(16 bytes)]\n"));
    assert_non_null(strstr(t, "\n    Source Address: 10.0.0.1\n"));
    assert_null(strstr(t, "Destination Address: 10"));
    free(t);

    decode_hex(&tf, HEX_SHORT_IPV4_16, RS_DLT_EN10MB, &pkt);
    assert_false(rs_packet_has(&pkt, RS_LAYER_IPV4));   /* for the fields alone */
    assert_string_equal(rs_print_protocol(&pkt), "IPv4");
    char src[64], dst[64];
    rs_print_addresses(&pkt, src, dst, sizeof(src));
    assert_string_equal(src, "10.0.0.1");
    assert_string_equal(dst, "02:00:00:00:00:02");
    assert_string_equal(tshark_info(&pkt), "[Malformed Packet]");
    assert_true(rs_field_value(&pkt, rs_field_lookup("ip.ttl"), 0, &v));
    assert_int_equal(v.v.u, 64);
    assert_true(rs_field_value(&pkt, rs_field_lookup("ip.src"), 0, &v));
    assert_false(rs_field_value(&pkt, rs_field_lookup("ip.dst"), 0, &v));

    decode_hex(&tf, HEX_SHORT_IPV4, RS_DLT_EN10MB, &pkt);
    capture_begin(&c);
    rs_print_pdml(&c.out, &pkt, &opts);
    const char *x = capture_end(&c);
    assert_non_null(strstr(
        x, "\n  <proto name=\"ip\" showname=\"Internet Protocol Version 4\" size=\"12\" "
           "pos=\"14\">\n"
           "    <field name=\"ip.version\" showname=\"0100 .... = Version: 4\" size=\"1\" "
           "pos=\"14\" show=\"4\" value=\"45\"/>\n"));
    assert_non_null(strstr(
        x, "\n    <field name=\"ip.len\" showname=\"Total Length: 36\" size=\"2\" pos=\"16\" "
           "show=\"36\" value=\"0024\">\n"
           "      <field name=\"_ws.expert\" showname=\"Expert Info (Error/Protocol): IPv4 "
           "total length exceeds packet length (12 bytes)\" size=\"0\" pos=\"16\">\n"
           "        <field name=\"ip.bogus_ip_length\" showname=\"IPv4 total length exceeds "
           "packet length (12 bytes)\" size=\"0\" pos=\"0\" show=\"\" value=\"\"/>\n"));
    assert_non_null(strstr(
        x, "\n    <field name=\"ip.checksum.status\" showname=\"Header checksum status: "
           "Unverified\" size=\"0\" pos=\"24\" show=\"2\"/>\n"));
    free(c.text);

    /* 21 of 24 bytes, with options: tshark stops after the source, in the options */
    t = tree_of("02000000000202000000000108004600002800004000401126c70a0000010a00000201");
    assert_non_null(strstr(t, "\nInternet Protocol Version 4, Src: 10.0.0.1\n"));
    assert_non_null(strstr(t, "\n    Source Address: 10.0.0.1\n"));
    assert_null(strstr(t, "10.0.0.2"));
    free(t);

    t = tree_of(HEX_QUOTE_SHORT_IPV4);
    assert_non_null(strstr(t, "\n    Internet Protocol Version 4\n        0100 .... = "));
    free(t);
}

/* UDP and TCP headers cut short after an IPv4 total length or IPv6 payload length past the
 * frame (tests/gen/gen_l4_partial.py, frames 6 to 13 of captures/malformed/l4_partial.pcap),
 * as tshark 4.0.17 shows them: the ports, and UDP's length with its udp.length.bad where 6
 * bytes hold it, then '[Malformed Packet: UDP]'; of TCP's first 13 bytes the ports alone,
 * in an item over the 13; the protocol column UDP or TCP, Info '40000 → 53[Malformed
 * Packet]' with --compat tshark; frame.protocols naming the protocol, even where 2 bytes
 * hold no port (before: no UDP or TCP item, IPv4 and 'Ethertype 0x0800[Malformed Packet]',
 * frame.protocols 'eth:ethertype:ip'). The same where the snapshot length cuts the header.
 */
#define HEX_L4_PART_IPV4 "02000000000b02000000000a0800450000"
#define HEX_UDP_PART_2 HEX_L4_PART_IPV4 "28123440004011148f0a0000010a0000029c40"
#define HEX_UDP_PART_6 HEX_L4_PART_IPV4 "28123440004011148f0a0000010a0000029c4000350014"
#define HEX_TCP_PART_13 \
    HEX_L4_PART_IPV4 "38123440004006148a0a0000010a0000029c400050000000010000000150"
#define HEX_TCP_PART_16 HEX_TCP_PART_13 "18ffff"
#define HEX_TCP6_OFFSET_PAST                                                                \
    "02000000000b02000000000a86dd6000000000180640fd000000000000000000000000000001fd00000000" \
    "00000000000000000000029c4000500000000000000000f002ffff57930000020405b4"
#define HEX_UDP6_PART_6                                                                     \
    "02000000000b02000000000a86dd6000000000141140fd000000000000000000000000000001fd00000000" \
    "00000000000000000000029c4000350014"

/* 16 bytes of a TCP header cut after an IPv4 total length past the frame
 * (l4_partial.pcap's frame 11): tshark 4.0.17 reads it to the window, in its conversation
 * (the streams stage), with its Short segment item after the completeness, then raises its
 * exception; no segment length, times or analysis (before: the ports alone). A data offset
 * past the segment (frame 5): the same, to the options there are and the times (before:
 * no TCP item). */
static void
test_tcp_cut_to_window_as_tshark(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct rs_streams_opts so;
    struct rs_streams *st;
    struct capture_out c;
    struct rs_value v;
    char err[256];

    (void)state;
    rs_streams_opts_init(&so);
    assert_int_equal(rs_streams_new(&so, &st, err), 0);
    decode_hex(&tf, HEX_TCP_PART_16, RS_DLT_EN10MB, &pkt);
    rs_streams_process(st, &pkt);
    assert_false(rs_packet_has(&pkt, RS_LAYER_TCP));    /* for the fields alone */
    assert_string_equal(rs_print_protocol(&pkt), "TCP");
    assert_string_equal(tshark_info(&pkt),
                        "40000 → 80 [PSH, ACK] Seq=1 Ack=1 Win=65535[Malformed Packet]");
    capture_begin(&c);
    rs_print_tree(&c.out, &pkt);
    const char *x = capture_end(&c);
    assert_non_null(strstr(
        x, "\nTransmission Control Protocol, Src Port: 40000, Dst Port: 80, Seq: 1, Ack: 1\n"
           "    Source Port: 40000\n"
           "    Destination Port: 80\n"
           "    [Stream index: 0]\n"
           "    [Conversation completeness: Incomplete (0)]\n"
           "    Short segment. Segment/fragment does not contain a full TCP header (might be "
           "NMAP or someone else deliberately sending unusual packets)\n"
           "        [Expert Info (Warning/Malformed): Short segment. Segment/fragment does not "
           "contain a full TCP header (might be NMAP or someone else deliberately sending "
           "unusual packets)]\n"
           "            [Short segment. Segment/fragment does not contain a full TCP header "
           "(might be NMAP or someone else deliberately sending unusual packets)]\n"
           "            [Severity level: Warning]\n"
           "            [Group: Malformed]\n"
           "    Sequence Number: 1    (relative sequence number)\n"
           "    Sequence Number (raw): 1\n"
           "    Acknowledgment Number: 1    (relative ack number)\n"
           "    Acknowledgment number (raw): 1\n"
           "    0101 .... = Header Length: 20 bytes (5)\n"
           "    Flags: 0x018 (PSH, ACK)\n"));
    assert_non_null(strstr(
        x, "        [TCP Flags: ·······AP···]\n"
           "    Window: 65535\n"
           "    [Calculated window size: 65535]\n"
           "    [Window size scaling factor: -1 (unknown)]\n"));
    assert_non_null(strstr(x, "\n[Malformed Packet: TCP]\n"));
    assert_null(strstr(x, "TCP Segment Len"));
    assert_null(strstr(x, "Timestamps"));
    free(c.text);
    assert_true(rs_field_value(&pkt, rs_field_lookup("tcp.stream"), 0, &v));
    assert_int_equal(v.v.u, 0);
    assert_true(rs_field_value(&pkt, rs_field_lookup("tcp.short_segment"), 0, &v));
    assert_false(rs_field_value(&pkt, rs_field_lookup("tcp.len"), 0, &v));
    assert_false(rs_field_value(&pkt, rs_field_lookup("tcp.time_relative"), 0, &v));
    assert_false(rs_field_value(&pkt, rs_field_lookup("tcp.checksum"), 0, &v));

    /* a data offset of 60 in a segment of 24 bytes (frame 5): the fixed header and the
     * options there are, the times; no segment length */
    decode_hex(&tf, HEX_TCP6_OFFSET_PAST, RS_DLT_EN10MB, &pkt);
    rs_streams_process(st, &pkt);
    assert_string_equal(tshark_info(&pkt),
                        "40000 → 80 [SYN] Seq=0 Win=65535 MSS=1460[Malformed Packet]");
    capture_begin(&c);
    rs_print_tree(&c.out, &pkt);
    x = capture_end(&c);
    assert_non_null(strstr(
        x, "\nTransmission Control Protocol, Src Port: 40000, Dst Port: 80, Seq: 0\n"
           "    Source Port: 40000\n"
           "    Destination Port: 80\n"
           "    [Stream index: 1]\n"
           "    [Conversation completeness: Incomplete (0)]\n"
           "    Short segment."));
    assert_non_null(strstr(
        x, "    Options: (40 bytes), Maximum segment size\n"
           "        TCP Option - Maximum segment size: 1460 bytes\n"
           "            Kind: Maximum Segment Size (2)\n"
           "            Length: 4\n"
           "            MSS Value: 1460\n"
           "    [Timestamps]\n"
           "        [Time since first frame in this TCP stream: 0.000000000 seconds]\n"));
    assert_null(strstr(x, "TCP Segment Len"));
    free(c.text);
    rs_streams_free(st);
}

static void
test_l4_part_as_tshark(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_json_opts opts = {.text = true};
    char protocols[256];
    struct rs_value v;

    (void)state;
    static const char *const udp6[] = {HEX_UDP_PART_6, HEX_UDP6_PART_6};
    for (unsigned i = 0; i < 2; i++) {
        char *t = tree_of(udp6[i]);
        assert_non_null(strstr(
            t, "\nUser Datagram Protocol, Src Port: 40000, Dst Port: 53\n"
               "    Source Port: 40000\n"
               "    Destination Port: 53\n"
               "    Length: 20 (bogus, payload length 6)\n"
               "        [Expert Info (Error/Malformed): Bad length value 20 > IP payload "
               "length]\n"
               "            [Bad length value 20 > IP payload length]\n"
               "            [Severity level: Error]\n"
               "            [Group: Malformed]\n"));
        assert_non_null(strstr(t, "\n[Malformed Packet: UDP]\n"));
        assert_null(strstr(t, "\n    Checksum: 0x"));
        free(t);
    }

    decode_hex(&tf, HEX_UDP_PART_6, RS_DLT_EN10MB, &pkt);
    assert_false(rs_packet_has(&pkt, RS_LAYER_UDP));    /* for the fields alone */
    assert_string_equal(rs_print_protocol(&pkt), "UDP");
    assert_string_equal(tshark_info(&pkt), "40000 → 53 [BAD UDP LENGTH 20 > IP PAYLOAD LENGTH] "
                                           "Len=12[Malformed Packet]");
    assert_true(rs_field_value(&pkt, rs_field_lookup("udp.length"), 0, &v));
    assert_int_equal(v.v.u, 20);
    assert_false(rs_field_value(&pkt, rs_field_lookup("udp.checksum"), 0, &v));
    assert_false(rs_field_value(&pkt, rs_field_lookup("udp.stream"), 0, &v));
    rs_print_protocols(&pkt, protocols, sizeof(protocols));
    assert_string_equal(protocols, "eth:ethertype:ip:udp");
    capture_begin(&c);
    rs_print_pdml(&c.out, &pkt, &opts);
    const char *x = capture_end(&c);
    assert_non_null(strstr(
        x, "\n  <proto name=\"udp\" showname=\"User Datagram Protocol, Src Port: 40000, Dst "
           "Port: 53\" size=\"6\" pos=\"34\">\n"
           "    <field name=\"udp.srcport\" showname=\"Source Port: 40000\" size=\"2\" "
           "pos=\"34\" show=\"40000\" value=\"9c40\"/>\n"));
    free(c.text);

    decode_hex(&tf, HEX_TCP_PART_13, RS_DLT_EN10MB, &pkt);
    assert_string_equal(rs_print_protocol(&pkt), "TCP");
    assert_string_equal(tshark_info(&pkt), "40000 → 80[Malformed Packet]");
    assert_false(rs_field_value(&pkt, rs_field_lookup("tcp.seq_raw"), 0, &v));
    assert_false(rs_field_value(&pkt, rs_field_lookup("tcp.hdr_len"), 0, &v));
    rs_print_protocols(&pkt, protocols, sizeof(protocols));
    assert_string_equal(protocols, "eth:ethertype:ip:tcp");
    capture_begin(&c);
    rs_print_tree(&c.out, &pkt);
    rs_print_pdml(&c.out, &pkt, &opts);
    x = capture_end(&c);
    assert_non_null(strstr(x, "\nTransmission Control Protocol, Src Port: 40000, Dst Port: 80\n"
                              "    Source Port: 40000\n"
                              "    Destination Port: 80\n"));
    assert_non_null(strstr(x, "\n[Malformed Packet: TCP]\n"));
    assert_null(strstr(x, "Sequence Number"));
    assert_non_null(strstr(
        x, "\n  <proto name=\"tcp\" showname=\"Transmission Control Protocol, Src Port: "
           "40000, Dst Port: 80\" size=\"13\" pos=\"34\">\n"));
    free(c.text);

    /* the same 6 bytes of UDP cut by the snapshot length (54 on the wire): the same items,
     * the length not bogus, tshark's mark for a frame cut short */
    decode_hex(&tf, HEX_UDP_PART_6, RS_DLT_EN10MB, &pkt);
    tf.frame.len = 54;
    test_decode(&tf.frame, &pkt);
    assert_string_equal(tshark_info(&pkt), "40000 → 53 Len=12[Packet size limited during capture]");
    capture_begin(&c);
    rs_print_tree(&c.out, &pkt);
    x = capture_end(&c);
    assert_non_null(strstr(x, "\nUser Datagram Protocol, Src Port: 40000, Dst Port: 53\n"
                              "    Source Port: 40000\n"
                              "    Destination Port: 53\n"
                              "    Length: 20\n"));
    assert_non_null(strstr(x, "\n[Packet size limited during capture: UDP truncated]\n"));
    free(c.text);

    /* two bytes, no port: no UDP item, and no text in Info but the mark */
    decode_hex(&tf, HEX_UDP_PART_2, RS_DLT_EN10MB, &pkt);
    assert_string_equal(rs_print_protocol(&pkt), "IPv4");
    assert_string_equal(tshark_info(&pkt), "[Malformed Packet]");
    rs_print_protocols(&pkt, protocols, sizeof(protocols));
    assert_string_equal(protocols, "eth:ethertype:ip:udp");
}

/* -e on a protocol writes what tshark 4.0.17 writes on the same crafted frames: the item's
 * text where its dissector sets one (frame, eth, ip with its source, udp, _ws.expert, the
 * visible _ws.malformed), its abbreviation where not (infiniband, icmp, an ip cut before its
 * source, the hidden _ws.malformed), Data's bytes in hex; a quoted ip its own addresses.
 * Before: the abbreviation for every one. */
/* An IPv4 total length or IPv6 payload length past the frame's end, as tshark 4.0.17 takes
 * it, on frames crafted with scapy (total lengths 200, 300, 200 and 100 over UDP, RoCEv2,
 * TCP and an ICMP echo; a payload length of 200 over UDP):
 * the length flagged (ip.bogus_ip_length) and the layers above read in the bytes there
 * are, with no exception (before: '[Malformed Packet: IPv4]' after them, TCP's length
 * from the total length, 160, and the ICMP checksum left unverified; IPv6's expert item
 * ipv6.plen_exceeds_framing missing and '[Malformed Packet: IPv6]'). Ours stays flagged:
 * roceshark.malformed and roceshark.problem, and the default Info's mark. */
static void
test_ipv4_length_past_frame_as_tshark(void **state)
{
    static const char *const hex[] = {
        "0200000000020200000000010800450000c800010000401166220a0000010a000002c3502328001c4fee"
        "7878787878787878787878787878787878787878",
        "02000000000202000000000108004500012c00010000401165be0a0000010a000002c35012b7002e16db"
        "0a40ffff00000011000000010000000000000000000000000000000500797979797900000000",
        "0200000000020200000000010800450000c8000100004006662d0a0000010a000002c350138900000000"
        "00000000501820003fec00007a7a7a7a7a7a7a7a7a7a",
        "02000000000202000000000108004500006400010000400166960a0000010a0000020800363e00000000"
        "7070707070707070"};
    static const char *const info[] = {
        "50000 \u2192 9000 Len=20", "RC RDMA Write Only QP=0x000011 ",
        "50000 \u2192 5001 [PSH, ACK] Len=10",    /* no streams stage here: no Seq, Ack, Win */
        "Echo (ping) request  id=0x0000, seq=0/0, ttl=64"};
    static const unsigned reported[] = {48, 66, 50, 36};
    struct test_frame tf;
    struct rs_packet pkt;
    struct rs_value v;
    char want[192];

    (void)state;
    for (unsigned i = 0; i < 4; i++) {
        char *t = tree_of(hex[i]);
        snprintf(want, sizeof(want), "\n    Total Length: %s\n        [Expert Info (Error/"
                 "Protocol): IPv4 total length exceeds packet length (%u bytes)]\n",
                 i == 1 ? "300" : i == 3 ? "100" : "200", reported[i]);
        assert_non_null(strstr(t, want));
        assert_null(strstr(t, "[Malformed Packet"));
        if (i == 3)
            assert_non_null(strstr(t, "\n    Checksum: 0x363e [correct]\n"
                                      "    [Checksum Status: Good]\n"));
        free(t);
        decode_hex(&tf, hex[i], RS_DLT_EN10MB, &pkt);
        assert_string_equal(tshark_info(&pkt), info[i]);
        assert_non_null(
            strstr(our_info(&pkt), " [Malformed: IPv4 total length exceeds the frame]"));
        assert_true(rs_field_value(&pkt, rs_field_lookup("roceshark.malformed"), 0, &v));
        assert_false(rs_field_value(&pkt, rs_field_lookup("_ws.malformed"), 0, &v));
        if (i == 2) {       /* the bytes there are, not the total length's 160 */
            assert_int_equal(rs_tcp_payload_len(&pkt), 10);
        }
    }
    /* IPv6's payload length (200 over 28 bytes of UDP): a warning, as tshark's */
    static const char hex6[] =
        "02000000000202000000000186dd6000000000c8114020010db800000000000000000000000120010db8"
        "000000000000000000000002c3502328001c09147878787878787878787878787878787878787878";
    char *t = tree_of(hex6);
    assert_non_null(strstr(t, "\n    Payload Length: 200\n"
                              "        [Expert Info (Warning/Protocol): IPv6 payload length "
                              "exceeds framing length (28 bytes)]\n"
                              "            [IPv6 payload length exceeds framing length (28 "
                              "bytes)]\n"
                              "            [Severity level: Warning]\n"
                              "            [Group: Protocol]\n"
                              "    Next Header: UDP (17)\n"));
    assert_null(strstr(t, "[Malformed Packet"));
    free(t);
    assert_string_equal(tshark_info_of(hex6), "50000 \u2192 9000 Len=20");
}

/* A NAK's Info with --compat tshark, as tshark 4.0.17 writes it on RoCEv2 frames crafted
 * with an AETH of each kind: a NAK's code after the QP ('[Remote Access Error] ', and
 * '[Unknown (9)] ' for a reserved one, on a Read Response First too), nothing for an ACK
 * or an RNR NAK (before: nothing for any). */
static void
test_nak_info_as_tshark(void **state)
{
    static const char *const hex[] = {
        /* Acknowledge, NAK Remote Access Error */
        "0200000000020200000000010800458c00304ffc4000b01169180a00a24f0a005acdc35012b7001c0000"
        "1100ffff0000001100000005620000016a1617c7",
        /* Read Response First, NAK code 9 */
        "020000000002020000000001080045fa0040c50e4000fc115f070a0096f50a00aea7c35012b7002c0000"
        "0d00ffff0000001100000005690000010000000000000000000000000000000080849527",
        /* Acknowledge, RNR NAK */
        "0200000000020200000000010800458d0030ea954000df11b14c0a00c7290a002424c35012b7001c0000"
        "1100ffff000000110000000525000001c1967e19"};
    static const char *const want[] = {
        "RC Acknowledge QP=0x000011 [Remote Access Error] ",
        "RC RDMA Read Response First QP=0x000011 [Unknown (9)] ",
        "RC Acknowledge QP=0x000011 "};

    (void)state;
    for (unsigned i = 0; i < 3; i++)
        assert_string_equal(tshark_info_of(hex[i]), want[i]);
}

/* Info with --compat tshark on frames of tests/captures/opcodes/every_opcode.pcap, as
 * tshark 4.0.17 writes it (frozen from its -T fields -e _ws.col.Info): no space after
 * "Unknown OpCode" (a reserved RC opcode, a CNP, XRC) nor after "UC RDMA Write First"; RD
 * read as DC, with its 20-byte BTH ("DC Last Immediate", an AETH and a NAK code read 8 bytes
 * late, a Read Request's headers past the packet, a RESYNC's length check failed); and no
 * mark for bytes after a Read Request's or an Atomic ACK's headers (before: "RC Opcode
 * 0x15 QP=...  [Malformed Packet]", "UC RDMA Write First QP=", "RD ...", and "[Malformed
 * Packet]" on the last two). */
static void
test_opcode_info_as_tshark(void **state)
{
    static const char *const hex[] = {
        "b2af0fa4fbda2eef779eb2cf08004588003462fd40004a1199470a0040680a00df84cca612b700200ea8"
        "1500ffff00430de680d7eb923f84631f1e7bac3b25833bfb",
        "f4f5c4bc2cbdf24791de4e7b0800453000405aa740006d1154320a009f660a00ab3de30512b7002cd212"
        "2600ffff00c91bae000bbf9397527227239edb57ff91fdce00035554ac5b7daf96b1ea65",
        "0c40453e76e14e35f909dccf0800458000400b464000c21116620a00289a0a0059ebd2a112b7002c9a19"
        "4300ffff003d57bb00639c890062f81879bb0551000bc03fab481a5c5ebf1b8f854f7920",
        "e442514a9060ce6951bce9500800455000486f4540009d11c6be0a00581b0a003b36ffa912b70034adc3"
        "4c00ffff007c2e1d004e330400e266a4cd0354ad005e8b0ddadd19e26a75e681a5778dac000cbb757552"
        "d8a9",
        "785f035037270e69403487fa0800450800385f384000881103d10a0035fb0a0045a9d6e712b700247b74"
        "4d00ffff00b855e80054a1dd004383262e996d08d12fbfeb77fb67e1",
        "66fc7bccc86af02788289a8d080045c00038e0f84000091102980a002efe0a004a67ee3612b700247603"
        "5500ffff001095b2001a8aac0001c5a03f535cac0042cd9ec5e01e76",
        "042872160e8488cd05d3df3808004528003cfedb40006e11585a0a00d10a0a00d048db1912b700289e2f"
        "8100ffff40a4e0ed80f95a1900000000000000000000000000000000de9902cf",
        "5eb2c409fd46787c70584311080045980034902940008711be9e0a0076510a001a08ddf512b70020e487"
        "a000ffff000f94c5008992dd00a3eecabd9288a6ed7aa060",
        "d27b1a18cb950a83207b76cc080045000040f61d4000bc1117ab0a004e280a004ebccf5412b7002c07d7"
        "0c00ffff00ed53328074af8acc2b4fb4f0f559dc9c527b950002c77884611037c8b0335f",
        "e6ceae3a8c0cd6024ad7c12b080045dc003c828040002d118dc10a00e7780a00411bff8a12b70028220a"
        "1200ffff00010d668012cb286042ec9fb74a59dc5e8fc3f5a518cd932c6eb174",
        "6a574538aac8fa043a1563b4080045a00038648f40004b113ea40a0005c50a00721dc87812b700249578"
        "5100ffff0041612f80eedbba00c95c8d2e098be871286ee8af1237a5",
    };
    static const char *const want[] = {
        "Unknown OpCodeQP=0x430de6 ",
        "UC RDMA Write FirstQP=0xc91bae ",
        "DC Last Immediate QP=0x3d57bb ",
        "DC RDMA Read Request QP=0x7c2e1d [Malformed Packet]",
        "DC RDMA Read Response First QP=0xb855e8 [Unknown (23)] ",
        "Invalid Packet Length from LRH! [Malformed Packet]",
        "Unknown OpCodeQP=0xa4e0ed ",
        "Unknown OpCodeQP=0x0f94c5 ",
        "RC RDMA Read Request QP=0xed5332 ",
        "RC Atomic Acknowledge QP=0x010d66 [PSN Sequence Error] ",
        "DC Acknowledge QP=0x41612f [Unknown (17)] ",
    };
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    assert_int_equal(RS_ARRAY_SIZE(hex), RS_ARRAY_SIZE(want));
    for (size_t i = 0; i < RS_ARRAY_SIZE(hex); i++) {
        decode_hex(&tf, hex[i], RS_DLT_EN10MB, &pkt);
        assert_string_equal(tshark_info(&pkt), want[i]);
        /* our own Info stays ours: the opcode as IBTA names it, a PSN */
        assert_non_null(strstr(our_info(&pkt), " PSN="));
    }
    /* the tree keeps our reading (docs/wireshark-differences.md): RD's RDETH per IBTA, and
     * an RC Read Request with bytes after its RETH is malformed */
    char *t = tree_of(hex[4]);
    assert_non_null(strstr(t, "    RDETH - Reliable Datagram Extended Transport Header\n"
                              "        E2E Context: 4424486\n"));
    free(t);
    t = tree_of(hex[8]);
    assert_non_null(strstr(t, MALFORMED_IB));
    free(t);
}

/* A UDP length past the IP payload, on a frame crafted with a length of 40 in 12 bytes of
 * IP payload, as tshark 4.0.17 shows it: the length flagged (udp.length.bad, Error/Malformed,
 * and the hidden _ws.malformed its group adds), the payload the 4 bytes there are, no
 * exception, and Info's words for it (before: "[Malformed Packet: UDP]", a payload of 18
 * bytes running into the Ethernet padding, Info "40000 → 9999 Len=32[Malformed Packet]").
 * The default Info keeps our mark. */
#define HEX_UDP_LENGTH_BAD                                                                 \
    "02000000000202000000000108004500002000014000401126ca0a0000010a0000029c40270f00280000" \
    "616263640000000000000000000000000000"

static void
test_udp_length_bad_as_tshark(void **state)
{
    struct rs_json_opts opts = {.text = true};
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;

    (void)state;
    char *t = tree_of(HEX_UDP_LENGTH_BAD);
    assert_non_null(strstr(t, "\n    Length: 40 (bogus, payload length 12)\n"
                              "        [Expert Info (Error/Malformed): Bad length value 40 > IP "
                              "payload length]\n"
                              "            [Bad length value 40 > IP payload length]\n"
                              "            [Severity level: Error]\n"
                              "            [Group: Malformed]\n"
                              "    Checksum: 0x0000 [zero-value ignored]\n"));
    assert_non_null(strstr(t, "\n    UDP payload (4 bytes)\nData (4 bytes)\n"));
    assert_null(strstr(t, "[Malformed Packet"));
    free(t);

    decode_hex(&tf, HEX_UDP_LENGTH_BAD, RS_DLT_EN10MB, &pkt);
    assert_string_equal(tshark_info(&pkt),
                        "40000 → 9999 [BAD UDP LENGTH 40 > IP PAYLOAD LENGTH] Len=32");
    assert_string_equal(our_info(&pkt),
                        "40000 → 9999 Len=32 [Malformed: UDP length exceeds the IP packet]");

    capture_begin(&c);
    rs_print_pdml(&c.out, &pkt, &opts);
    const char *x = capture_end(&c);
    assert_non_null(strstr(x, "        <field name=\"_ws.expert.group\" showname=\"Group: "
                              "Malformed\" size=\"0\" pos=\"0\" show=\"117440512\"/>\n"
                              "      </field>\n"
                              "      <proto name=\"_ws.malformed\" showname=\"Malformed Packet\" "
                              "hide=\"yes\" size=\"0\" pos=\"38\"/>\n"
                              "    </field>\n"));
    free(c.text);
}

/* tshark 4.0.17's notes under an IPv4 TTL, on UDP frames crafted with a TTL of 4 to
 * 10.0.0.2 ("only 4") and to 224.0.0.5 (the Local Network Control Block: "!= 1"), of 1 to
 * 224.0.0.251 (mDNS: "!= 255") and of 3 to 239.1.1.1 (none): the text frozen from its -V
 * (before: none of them). */
static void
test_ttl_notes_as_tshark(void **state)
{
    static const char *const hex[] = {
        "02000000000202000000000108004500002000014000041162ca0a0000010a0000029c40270f000c0000"
        "61626364",
        "0200000000020200000000010800450000200001400004118cc60a000001e00000059c40270f000c0000"
        "61626364",
        "0200000000020200000000010800450000200001400001118ed00a000001e00000fb9c40270f000c0000"
        "61626364",
        "0200000000020200000000010800450000200001400003117dc90a000001ef0101019c40270f000c0000"
        "61626364",
    };
    static const char *const want[] = {
        "    Time to Live: 4\n"
        "        [Expert Info (Note/Sequence): \"Time To Live\" only 4]\n"
        "            [\"Time To Live\" only 4]\n"
        "            [Severity level: Note]\n"
        "            [Group: Sequence]\n"
        "    Protocol: UDP (17)\n",
        "    Time to Live: 4\n"
        "        [Expert Info (Note/Sequence): \"Time To Live\" != 1 for a packet sent to the "
        "Local Network Control Block (see RFC 3171)]\n",
        "    Time to Live: 1\n"
        "        [Expert Info (Note/Sequence): \"Time To Live\" != 255 for a packet sent to the "
        "Local Network Control Block (see RFC 3171)]\n",
        "    Time to Live: 3\n    Protocol: UDP (17)\n",
    };

    (void)state;
    for (size_t i = 0; i < RS_ARRAY_SIZE(hex); i++) {
        char *t = tree_of(hex[i]);
        assert_non_null(strstr(t, want[i]));
        free(t);
    }
}

static void
test_fields_protocol_text(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_fields_fmt fmt;
    const char *names[] = {"frame", "eth", "ip", "udp", "infiniband", "data", "_ws.malformed",
                           "_ws.expert", "icmp"};
    int ids[9];

    (void)state;
    for (int i = 0; i < 9; i++)
        ids[i] = rs_field_lookup(names[i]);
    rs_fields_fmt_init(&fmt);
    fmt.aggregator = '|';
    capture_begin(&c);
    decode_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB, &pkt);
    rs_print_fields(&c.out, &fmt, &pkt, ids, 6);
    decode_hex(&tf, HEX_SHORT_IPV4, RS_DLT_EN10MB, &pkt);
    rs_print_fields(&c.out, &fmt, &pkt, ids + 2, 1);
    rs_print_fields(&c.out, &fmt, &pkt, ids + 6, 2);
    decode_hex(&tf,
               "02000000000202000000000108004500002c00004000400126cf0a0000020a00000103030"
               "6ff000000004500002400004000401126c70a000001",
               RS_DLT_EN10MB, &pkt);
    rs_print_fields(&c.out, &fmt, &pkt, ids + 2, 1);
    rs_print_fields(&c.out, &fmt, &pkt, ids + 8, 1);
    assert_string_equal(
        capture_end(&c),
        "Frame 1: 94 bytes on wire (752 bits), 94 bytes captured (752 bits)\t"
        "Ethernet II, Src: 02:00:00:00:00:01 (02:00:00:00:00:01), Dst: 02:00:00:00:00:02 "
        "(02:00:00:00:00:02)\tInternet Protocol Version 4, Src: 10.0.0.1, Dst: 10.0.0.2\t"
        "User Datagram Protocol, Src Port: 50000, Dst Port: 4791\tinfiniband\t"
        "726f6365736861726b2d77726f74652d69740000\n"
        "ip\n"
        "[Malformed Packet: IPv4]|_ws.malformed\tExpert Info (Error/Protocol): IPv4 total "
        "length exceeds packet length (12 bytes)|Expert Info (Error/Malformed): Malformed "
        "Packet (Exception occurred)\n"
        "Internet Protocol Version 4, Src: 10.0.0.2, Dst: 10.0.0.1|Internet Protocol Version "
        "4, Src: 10.0.0.1\n"
        "icmp\n");
    free(c.text);

    struct rs_json_opts opts = {.fields = ids + 3, .n_fields = 3};
    decode_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB, &pkt);
    capture_begin(&c);
    rs_print_ek(&c.out, &pkt, &opts);
    assert_non_null(strstr(capture_end(&c),
                           "\"layers\":{\"udp\":[\"User Datagram Protocol, Src Port: 50000, "
                           "Dst Port: 4791\"],\"infiniband\":[\"infiniband\"],\"data\":"
                           "[\"726f6365736861726b2d77726f74652d69740000\"]}}\n"));
    free(c.text);

    /* protocols we name by their ports, whose dissectors add to their items' text in
     * tshark 4.0.17: a DNS query and response, an NTP client request (before: 'dns', 'ntp') */
    static const char *const named[] = {
        "02000000000202000000000108004500003900010000401166b10a0000010a00000214e9003500250716"
        "000001000001000000000000076578616d706c6503636f6d0000010001",
        "02000000000202000000000108004500005400010000401166960a0000020a000001003514e900401606"
        "000081000001000100000000076578616d706c6503636f6d0000010001076578616d706c6503636f6d00"
        "0001000100000000000401020304",
        "02000000000202000000000108004500004c000100004011669e0a0000010a000002007b007b0038c785"
        "2300000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000"};
    int port_ids[2] = {rs_field_lookup("dns"), rs_field_lookup("ntp")};
    rs_fields_fmt_init(&fmt);
    capture_begin(&c);
    for (unsigned i = 0; i < 3; i++) {
        decode_hex(&tf, named[i], RS_DLT_EN10MB, &pkt);
        rs_print_fields(&c.out, &fmt, &pkt, port_ids, 2);
    }
    assert_string_equal(capture_end(&c), "Domain Name System (query)\t\n"
                                         "Domain Name System (response)\t\n"
                                         "\tNetwork Time Protocol (NTP Version 4, client)\n");
    free(c.text);
}

/* A MAD shorter than its 256 bytes after a BTH and DETH, crafted with 48 and 12 bytes of
 * MAD: tshark 4.0.17 decodes none of it, nor the ICRC after it, shows no Data, and names no
 * MAD in Info (before: the MAD header and RMPP as far as they went, the ICRC, and Data for
 * the 12 bytes). A whole MAD is still decoded. We flag neither as malformed. */
#define HEX_MAD_48                                                                         \
    "02000000000202000000000108004500006400004000401126870a0000010a000002c00012b700500000" \
    "6440ffff0000000100000005800100000000000101030201000000000000000000000007003500000000" \
    "000000000000000000000000000000000000000000000000000000000000"
#define HEX_MAD_12                                                                         \
    "02000000000202000000000108004500004000004000401126ab0a0000010a000002c00012b7002c0000" \
    "6440ffff0000000100000005800100000000000101030201000000000000000000000000"

static void
test_short_mad_as_tshark(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    size_t len;

    (void)state;
    char *t = tree_of(HEX_MAD_48);
    assert_non_null(strstr(t, "\n    DETH - Datagram Extended Transport Header\n"
                              "        Queue Key: 0x0000000080010000\n"
                              "        Reserved: 00\n"
                              "        Source Queue Pair: 0x00000001\n"
                              "roceshark\n"));
    assert_null(strstr(t, "MAD"));
    assert_null(strstr(t, "RMPP"));
    assert_null(strstr(t, "Invariant CRC"));
    assert_null(strstr(t, "Malformed"));
    free(t);
    t = tree_of(HEX_MAD_12);
    assert_null(strstr(t, "\nData ("));
    assert_null(strstr(t, "Invariant CRC"));
    assert_non_null(strstr(t, "[Protocols in frame: eth:ethertype:ip:udp:infiniband]\n"));
    free(t);

    decode_hex(&tf, HEX_MAD_48, RS_DLT_EN10MB, &pkt);
    assert_string_equal(tshark_info(&pkt), "UD Send Only QP=0x000001 ");
    assert_non_null(rs_mad_of(&pkt, &len));     /* the bytes are there for the analysis */
    assert_null(rs_mad_shown(&pkt, &len));

    /* made whole (208 more bytes of MAD, the lengths grown): decoded as before */
    test_frame_from_hex(&tf, HEX_MAD_48, RS_DLT_EN10MB);
    uint32_t more = 208, end = tf.frame.caplen;
    memmove(tf.bytes + end - 4 + more, tf.bytes + end - 4, 4);     /* the ICRC */
    memset(tf.bytes + end - 4, 0, more);
    tf.frame.caplen = tf.frame.len = end + more;
    tf.bytes[16] = (uint8_t)((tf.frame.len - 14) >> 8);
    tf.bytes[17] = (uint8_t)(tf.frame.len - 14);
    tf.bytes[38] = (uint8_t)((tf.frame.len - 34) >> 8);
    tf.bytes[39] = (uint8_t)(tf.frame.len - 34);
    test_decode(&tf.frame, &pkt);
    assert_non_null(rs_mad_shown(&pkt, &len));
    assert_int_equal(len, 256);
    struct capture_out c;
    capture_begin(&c);
    rs_print_tree(&c.out, &pkt);
    t = (char *)capture_end(&c);
    assert_non_null(strstr(t, "\n        Base Version: 0x01\n        Management Class: 0x03\n"));
    assert_non_null(strstr(t, "\n    Invariant CRC: 0x00000000\n"));
    free(c.text);
}

/* An ICMPv6 redirect whose Redirected Header option holds a 53-byte packet (IPv6, UDP,
 * 5 bytes) and 3 octets of padding, crafted: the padding after the packet, as tshark
 * 4.0.17 shows it, Unknown Data flagged malformed, with the hidden _ws.malformed under
 * its expert item in PDML (before: not shown). */
#define HEX_REDIRECT_PADDED                                                                \
    "33330000000102000000000186dd6000000000683afffe800000000000000000000000000001fe800000" \
    "000000000000000000000003890046b000000000fe80000000000000000000000000000220010db80000" \
    "00000000000000000009040800000000000060000000000d114020010db8000000000000000000000005" \
    "20010db800000000000000000000000903e807d0000d00006162636465000000"

static void
test_redirect_option_padding(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_json_opts opts = {.text = true};

    (void)state;
    char *t = tree_of(HEX_REDIRECT_PADDED);
    assert_non_null(strstr(
        t, "\n            UDP payload (5 bytes)\n"
           "        Unknown Data: 000000\n"
           "            [Expert Info (Error/Malformed): Unknown Data (not interpreted)]\n"
           "                [Unknown Data (not interpreted)]\n"
           "                [Severity level: Error]\n"
           "                [Group: Malformed]\n"));
    assert_null(strstr(t, "[Malformed Packet"));
    free(t);

    decode_hex(&tf, HEX_REDIRECT_PADDED, RS_DLT_EN10MB, &pkt);
    capture_begin(&c);
    rs_print_pdml(&c.out, &pkt, &opts);
    const char *x = capture_end(&c);
    assert_non_null(strstr(
        x, "<field name=\"icmpv6.unknown_data\" showname=\"Unknown Data: 000000\" size=\"3\" "
           "pos=\"155\" show=\"00:00:00\" value=\"000000\">\n"
           "        <field name=\"_ws.expert\" showname=\"Expert Info (Error/Malformed): "
           "Unknown Data (not interpreted)\" size=\"0\" pos=\"155\">\n"
           "          <field name=\"icmpv6.unknown_data.expert\" showname=\"Unknown Data (not "
           "interpreted)\" size=\"0\" pos=\"0\" show=\"\" value=\"\"/>\n"));
    assert_non_null(strstr(x, "        </field>\n        <proto name=\"_ws.malformed\" "
                              "showname=\"Malformed Packet\" hide=\"yes\" size=\"0\" "
                              "pos=\"155\"/>\n      </field>\n"));
    free(c.text);
}

/* An ICMP port unreachable quoting IPv4 and 12 to 20 bytes of TCP, and an ICMPv6 one
 * quoting IPv6 and 16 bytes, crafted: tshark 4.0.17 shows the ports and the sequence
 * number alone until the quote reaches the window (16 bytes); before, the raw
 * acknowledgment, the header length and the flags were shown as far as they went. From
 * 16 bytes it adds the stream's items, the relative acknowledgment and the window's
 * (before: only from 20), an IPv4 quote's sequence number before them, an IPv6 one's
 * after them, relative. The quoted segment's flags are PSH and ACK. (The stream index
 * comes from the streams stage, which this decoding alone does not run.) */
#define HEX_UNREACH_TCP_14                                                                 \
    "02000000000202000000000108004500003e00004000400126bd0a0000010a0000020303049c00000000" \
    "4500002800004000400626c60a0000020a0000099c400050000003e8000007d05018"

#define HEX_UNREACH_TCP_20                                                                 \
    "02000000000202000000000108004500004400004000400126b70a0000010a0000020303f26700000000" \
    "4500002800004000400626c60a0000020a0000099c400050000003e8000007d05018ffff12340000"
#define HEX_UNREACH6_TCP_16                                                                \
    "33330000000102000000000186dd6000000000403aff20010db800000000000000000000000120010db8" \
    "0000000000000000000000050104e8d300000000600000000014064020010db800000000000000000000" \
    "000520010db80000000000000000000000099c400050000003e8000007d05018ffff"

static void
test_tree_icmp_quoted_tcp_short(void **state)
{
    char hex[sizeof(HEX_UNREACH_TCP_20) + 8];

    (void)state;
    for (int cut = 2; cut >= 0; cut--) {   /* 12, 13 and 14 bytes of TCP */
        snprintf(hex, sizeof(hex), "%.*s", (int)strlen(HEX_UNREACH_TCP_14) - 2 * cut,
                 HEX_UNREACH_TCP_14);
        char *t = tree_of(hex);
        assert_non_null(strstr(
            t, "\n    Transmission Control Protocol, Src Port: 40000, Dst Port: 80\n"
               "        Source Port: 40000\n"
               "        Destination Port: 80\n"
               "        Sequence Number: 1000\n"));
        assert_null(strstr(t, "Acknowledgment number (raw)"));
        assert_null(strstr(t, "0101 .... = Header Length"));
        assert_null(strstr(t, "Flags: 0x018"));
        free(t);
    }
    char *t = tree_of(HEX_UNREACH_TCP_20);
    assert_non_null(strstr(
        t, "\n    Transmission Control Protocol, Src Port: 40000, Dst Port: 80, Seq: 1000, Ack: "
           "2000\n"
           "        Source Port: 40000\n"
           "        Destination Port: 80\n"
           "        Sequence Number: 1000\n"
           "        [Conversation completeness: Incomplete (0)]\n"
           "        Acknowledgment Number: 2000    (relative ack number)\n"
           "        Acknowledgment number (raw): 2000\n"
           "        0101 .... = Header Length: 20 bytes (5)\n"));
    assert_non_null(strstr(t, "\n        Window: 65535\n"
                              "        [Calculated window size: 65535]\n"
                              "        [Window size scaling factor: -1 (unknown)]\n"
                              "        Checksum: 0x1234 [unverified]\n"));
    free(t);
    snprintf(hex, sizeof(hex), "%.*s", (int)strlen(HEX_UNREACH_TCP_20) - 8, HEX_UNREACH_TCP_20);
    t = tree_of(hex);     /* 16 bytes: to the window */
    assert_non_null(strstr(t, "Seq: 1000, Ack: 2000\n"
                              "        Source Port: 40000\n"
                              "        Destination Port: 80\n"
                              "        Sequence Number: 1000\n"
                              "        [Conversation completeness: Incomplete (0)]\n"));
    assert_non_null(strstr(t, "\n        [Window size scaling factor: -1 (unknown)]\n"));
    assert_null(strstr(t, "Checksum: 0x1234"));
    free(t);
    t = tree_of(HEX_UNREACH6_TCP_16);
    assert_non_null(strstr(
        t, "Seq: 1000, Ack: 2000\n"
           "        Source Port: 40000\n"
           "        Destination Port: 80\n"
           "        [Conversation completeness: Incomplete (0)]\n"
           "        Sequence Number: 1000    (relative sequence number)\n"
           "        Sequence Number (raw): 1000\n"
           "        Acknowledgment Number: 2000    (relative ack number)\n"));
    free(t);
}

/* An MLDv2 report behind an IPv6 hop-by-hop header (Router Alert, PadN), as
 * oferby_proxy__roce.pcap's first frame: the header is a protocol of its own in PDML, as
 * tshark writes it, and in EK its fields are its own (ipv6_hopopts_ipv6_hopopts_len_oct)
 * but its options IPv6's (ipv6_ipv6_opt_type); the report's record lies at its bytes. */
#define HEX_HOPOPTS_MLDV2                                                               \
    "333300000016183d5ebf43b186dd6000000000240001fe8000000000000071911f2d839a207cff020000" \
    "0000000000000000000000163a000502000001008f001b1e0000000104000000ff020000000000000000" \
    "0001ff9a207c"

/* A quoted TCP header's expert items and options as tshark 4.0.17 shows them, on ICMP
 * port unreachables crafted to quote a SYN and a SYN-ACK with MSS and window scale
 * options: the SYN's item under its Syn flag in the quote (before: after the frame's IPv4,
 * at the quote's depth), in -e _ws.expert and its message, group and severity (before:
 * none, the name's first kinds not being TCP's), no scaling factor on a SYN; the options
 * item by item (before: each option's fields one after the other, the EOL's Data first). */
#define HEX_UNREACH_TCP_SYN                                                                \
    "02000000000202000000000108004500004400010000400166b60a0000010a00000203031122000000" \
    "004500002800010000400666c50a0000020a0000099c400050000003e8000000005002fffffb5f0000"
#define HEX_UNREACH_TCP_SYNACK_OPTIONS                                                     \
    "02000000000202000000000108004500004c00010000400166ae0a0000010a0000020303112a000000" \
    "004500003000010000400666bd0a0000020a0000099c400050000003e8000000057012ffffc9870000" \
    "020405b403030700"

static void
test_quoted_tcp_expert_and_options(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_fields_fmt fmt;
    static const char *const names[] = {"_ws.expert", "_ws.expert.message",
                                        "_ws.expert.group", "_ws.expert.severity"};
    int ids[4];

    (void)state;
    char *t = tree_of(HEX_UNREACH_TCP_SYN);
    assert_non_null(strstr(t, "\n            .... .... ..1. = Syn: Set\n"
                              "                [Expert Info (Chat/Sequence): Connection "
                              "establish request (SYN): server port 80]\n"
                              "                    [Connection establish request (SYN): "
                              "server port 80]\n"
                              "                    [Severity level: Chat]\n"
                              "                    [Group: Sequence]\n"
                              "            .... .... ...0 = Fin: Not set\n"));
    assert_non_null(strstr(t, "\n        Window: 65535\n"
                              "        [Calculated window size: 65535]\n"
                              "        Checksum: 0xfb5f [unverified]\n"));
    assert_null(strstr(strstr(t, "[Expert Info") + 1, "[Expert Info"));     /* once */
    free(t);
    t = tree_of(HEX_UNREACH_TCP_SYNACK_OPTIONS);
    assert_non_null(strstr(t, "\n        Options: (8 bytes), Maximum segment size, Window scale, "
                              "End of Option List (EOL)\n"
                              "            TCP Option - Maximum segment size: 1460 bytes\n"
                              "                Kind: Maximum Segment Size (2)\n"
                              "                Length: 4\n"
                              "                MSS Value: 1460\n"
                              "            TCP Option - Window scale: 7 (multiply by 128)\n"
                              "                Kind: Window Scale (3)\n"
                              "                Length: 3\n"
                              "                Shift count: 7\n"
                              "                [Multiplier: 128]\n"
                              "            TCP Option - End of Option List (EOL)\n"
                              "                Kind: End of Option List (0)\n"));
    free(t);

    for (unsigned i = 0; i < 4; i++)
        ids[i] = rs_field_lookup(names[i]);
    rs_fields_fmt_init(&fmt);
    capture_begin(&c);
    decode_hex(&tf, HEX_UNREACH_TCP_SYN, RS_DLT_EN10MB, &pkt);
    rs_print_fields(&c.out, &fmt, &pkt, ids, 4);
    assert_string_equal(capture_end(&c),
                        "Expert Info (Chat/Sequence): Connection establish request (SYN): "
                        "server port 80\tConnection establish request (SYN): server port 80\t"
                        "33554432\t2097152\n");
    free(c.text);
}

static void
test_hopopts_protocol(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_json_opts opts = {.text = true};

    (void)state;
    decode_hex(&tf, HEX_HOPOPTS_MLDV2, RS_DLT_EN10MB, &pkt);
    capture_begin(&c);
    rs_print_pdml(&c.out, &pkt, &opts);
    rs_print_ek(&c.out, &pkt, &opts);
    const char *t = capture_end(&c);
    assert_non_null(strstr(t, "\n    <proto name=\"ipv6.hopopts\" showname=\"IPv6 Hop-by-Hop "
                              "Option\" size=\"8\" pos=\"54\">\n"));
    assert_non_null(strstr(t, "\n      </field>\n    </proto>\n  </proto>\n"));
    assert_non_null(strstr(t, "<field name=\"icmpv6.mldr.mar\" showname=\"Multicast Address "
                              "Record Changed to exclude: ff02::1:ff9a:207c\" size=\"20\" "
                              "pos=\"70\""));
    assert_non_null(strstr(t, "<field name=\"icmpv6.mldr.mar.nb_sources\" showname=\"Number of "
                              "Sources: 0\" size=\"2\" pos=\"72\""));
    assert_non_null(strstr(t, "\"ipv6_hopopts\":{\"ipv6_hopopts_ipv6_hopopts_nxt\":\"58\""));
    assert_non_null(strstr(t, "\"ipv6_ipv6_opt_type\":[\"0x05\",\"0x01\"]"));
    assert_null(strstr(t, "ipv6_hopopts_ipv6_opt"));
    free(c.text);
}

/* An ICMP error's code named in its line, as tshark's, and the protocols of the datagram
 * it quotes in the frame's: a port unreachable quoting a UDP datagram. */
#define HEX_ICMP_PORT_UNREACHABLE                                                           \
    "00112233445566554433221108004500004400090000400166ae0a0000020a0000010303de0d00000000" \
    "4500002800070000401166bc0a0000010a0000029c40829a00140000000000000000000000000000"

static void
test_tree_icmp_code(void **state)
{
    (void)state;
    char *t = tree_of(HEX_ICMP_PORT_UNREACHABLE);
    assert_non_null(strstr(t, "\n    Type: 3 (Destination unreachable)\n"
                              "    Code: 3 (Port unreachable)\n"));
    /* the frame's protocols name the quoted datagram's, which the tree walks apart */
    assert_non_null(strstr(t, "[Protocols in frame: eth:ethertype:ip:icmp:ip:udp:data]\n"));
    free(t);
    t = tree_of(HEX_ND_NA);     /* a code without names: the number alone */
    assert_non_null(strstr(t, "\n    Code: 0\n"));
    free(t);
}

/* A redirect quoting a UDP datagram with 12 bytes of payload, and one quoting a TCP
 * segment: tshark 4.0.17 shows a redirect's quote to 8 bytes past its IP header, where an
 * unreachable's runs on to the payload; a TCP header cut at 8 bytes is titled without its
 * sequence number. */
#define HEX_ICMP_REDIRECT_UDP                                                               \
    "00112233445566554433221108004500004400070000400165b40a0000fe0a00000105012b670a0000fd" \
    "4500002800070000401166b50a0000010a0000099c40829a001400004142434445464748494a4b4c"
#define HEX_ICMP_REDIRECT_TCP                                                               \
    "00112233445566554433221108004500004800070000400165b00a0000fe0a00000105014cd50a0000fd" \
    "4500002c00070000400666bc0a0000010a0000099c4000500000000100000000500203e80000000058595a" \
    "57"

static void
test_tree_icmp_redirect_extent(void **state)
{
    (void)state;
    char *t = tree_of(HEX_ICMP_REDIRECT_UDP);
    assert_non_null(strstr(t, "\n    User Datagram Protocol, Src Port: 40000, Dst Port: 33434\n"
                              "        Source Port: 40000\n"
                              "        Destination Port: 33434\n"
                              "        Length: 20\n"
                              "        Checksum: 0x0000 [zero-value ignored]\n"
                              "            [Checksum Status: Not present]\n"));
    assert_null(strstr(t, "UDP payload"));
    assert_null(strstr(t, "Data:"));
    assert_non_null(strstr(t, "[Protocols in frame: eth:ethertype:ip:icmp:ip:udp]\n"));
    free(t);
    t = tree_of(HEX_ICMP_REDIRECT_TCP);
    assert_non_null(strstr(t, "\n    Transmission Control Protocol, Src Port: 40000, Dst Port: "
                              "80\n        Source Port: 40000\n        Destination Port: 80\n"
                              "        Sequence Number: 1\n\n"));
    free(t);
}

/* Where the tree's option items lie: the option whole, its type and length octets,
 * the reserved octets of a prefix (4) and of an MTU option (2). */
struct nd_spans {
    uint32_t off[8], len[8];
    unsigned n;
};

static void
nd_span(void *arg, const struct rs_tree_item *it)
{
    struct nd_spans *s = arg;

    if (it->field != NULL && strncmp(it->field->abbrev, "icmpv6.opt", 10) == 0 &&
        (strcmp(it->field->abbrev, "icmpv6.opt") == 0 ||
         strcmp(it->field->abbrev, "icmpv6.opt.length") == 0 ||
         strcmp(it->field->abbrev, "icmpv6.opt.reserved") == 0) && s->n < 8) {
        s->off[s->n] = it->offset;
        s->len[s->n++] = it->length;
    }
}

static void
test_tree_nd_spans(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct nd_spans s = {{0}, {0}, 0};

    (void)state;
    decode_hex(&tf, HEX_ND_RA, RS_DLT_EN10MB, &pkt);
    rs_tree_walk(&pkt, nd_span, &s);
    /* Ethernet 14 + IPv6 40 + the RA's 16: the prefix option at 70, the MTU's at 102 */
    assert_int_equal(s.n, 6);
    assert_int_equal(s.off[0], 70);
    assert_int_equal(s.len[0], 32);
    assert_int_equal(s.off[1], 71);
    assert_int_equal(s.len[1], 1);
    assert_int_equal(s.off[2], 82);
    assert_int_equal(s.len[2], 4);
    assert_int_equal(s.off[3], 102);
    assert_int_equal(s.len[3], 8);
    assert_int_equal(s.off[5], 104);
    assert_int_equal(s.len[5], 2);
}

/* The tree's items: where each line's bytes are, which lines are nodes, and the
 * printer's text rebuilt from them line by line. */
struct walked {
    const struct rs_packet *pkt;
    struct capture_out lines;
    int psn_off, psn_len, src_off, src_len, bth_off, bth_len, nodes, items;
};

static void
walk_item(void *arg, const struct rs_tree_item *it)
{
    struct walked *w = arg;

    w->items++;
    w->nodes += it->node;
    for (unsigned i = 0; i < it->depth * 4; i++)
        rs_out_char(&w->lines.out, ' ');
    /* a generated item in brackets, as the printer and tshark show it */
    bool generated = it->field != NULL && (it->field->flags & RS_FIELD_GENERATED);
    rs_out_str(&w->lines.out, generated ? "[" : "");
    rs_print_tree_line(&w->lines.out, w->pkt, it);
    rs_out_str(&w->lines.out, generated ? "]\n" : "\n");
    if (it->field == NULL)
        return;
    if (strcmp(it->field->abbrev, "infiniband.bth.psn") == 0) {
        w->psn_off = (int)it->offset;
        w->psn_len = (int)it->length;
    } else if (strcmp(it->field->abbrev, "ip.src") == 0) {
        w->src_off = (int)it->offset;
        w->src_len = (int)it->length;
    } else if (strcmp(it->field->abbrev, "infiniband.bth") == 0) {
        w->bth_off = (int)it->offset;
        w->bth_len = (int)it->length;
    }
}

static void
test_tree_walk(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct walked w;

    (void)state;
    decode_hex(&tf, HEX_ROCEV2_ACK, RS_DLT_EN10MB, &pkt);
    memset(&w, 0, sizeof(w));
    w.pkt = &pkt;
    capture_begin(&w.lines);
    rs_tree_walk(&pkt, walk_item, &w);
    rs_out_char(&w.lines.out, '\n');
    const char *rebuilt = capture_end(&w.lines);
    capture_begin(&c);
    rs_print_tree(&c.out, &pkt);
    assert_string_equal(rebuilt, capture_end(&c));
    /* Ethernet 14 + IPv4 20 + UDP 8: the BTH at 42, its PSN 9 bytes in. */
    assert_int_equal(w.bth_off, 42);
    assert_int_equal(w.bth_len, 12);
    assert_int_equal(w.psn_off, 51);
    assert_int_equal(w.psn_len, 3);
    assert_int_equal(w.src_off, 26);
    assert_int_equal(w.src_len, 4);
    assert_true(w.nodes >= 6);     /* frame, eth, ip, udp, infiniband, its headers */
    assert_true(w.items > w.nodes);
    free(w.lines.text);
    free(c.text);
}

/* A walk's items in a line each: kind, depth, field id, node, and the bytes if placed. */
struct walk_record {
    struct capture_out c;
    bool placed;
    unsigned spans;         /* items with bytes */
};

static void
record_item(void *arg, const struct rs_tree_item *it)
{
    struct walk_record *r = arg;

    rs_out_printf(&r->c.out, "%d %u %d %d", it->kind, it->depth,
                  it->kind == RS_TREE_FIELD ? it->id : -1, it->node);
    if (r->placed || it->kind == RS_TREE_FRAME)
        rs_out_printf(&r->c.out, " %u+%u", it->offset, it->length);
    else
        assert_true(it->offset == 0 && it->length == 0);
    r->spans += it->length > 0;
    rs_out_char(&r->c.out, '\n');
}

/* rs_tree_walk_hidden_unplaced(): the hidden walk's items, in its order, without bytes. */
static void
test_tree_walk_unplaced(void **state)
{
    static const char *const frames[] = {HEX_ROCEV2_ACK, HEX_REDIRECT_PADDED,
                                         HEX_ICMP_PORT_UNREACHABLE, HEX_HOPOPTS_MLDV2};
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
        struct walk_record placed = {.placed = true}, unplaced = {.placed = false};
        decode_hex(&tf, frames[i], RS_DLT_EN10MB, &pkt);
        capture_begin(&placed.c);
        rs_tree_walk_hidden(&pkt, record_item, &placed);
        capture_begin(&unplaced.c);
        rs_tree_walk_hidden_unplaced(&pkt, record_item, &unplaced);
        char *a = (char *)capture_end(&placed.c), *b = (char *)capture_end(&unplaced.c);
        assert_true(placed.spans > 5);
        assert_int_equal(unplaced.spans, 1);    /* the frame line's */
        /* the same items once the bytes are taken out of the placed ones */
        struct walk_record again = {.placed = false};
        capture_begin(&again.c);
        for (char *line = a, *end; *line != '\0'; line = end + 1) {
            end = strchr(line, '\n');
            size_t keep = (size_t)(end - line);
            if (strncmp(line, "1 ", 2) == 0)
                while (line[--keep] != ' ')     /* a field's bytes */
                    ;
            rs_out_write(&again.c.out, line, keep);
            rs_out_char(&again.c.out, '\n');
        }
        char *c = (char *)capture_end(&again.c);
        assert_string_equal(c, b);
        free(a);
        free(b);
        free(c);
    }
}

static void
test_json(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;

    (void)state;
    capture_begin(&c);
    rs_print_jsonflat_begin(&c.out);
    decode_hex(&tf, HEX_ROCEV2_FETCH_ADD, RS_DLT_EN10MB, &pkt);
    rs_print_jsonflat(&c.out, &pkt, true);
    decode_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB, &pkt);
    tf.frame.caplen = 60;
    test_decode(&tf.frame, &pkt);
    rs_print_jsonflat(&c.out, &pkt, false);
    rs_print_jsonflat_end(&c.out);
    const char *j = capture_end(&c);
    assert_true(strncmp(j, "[\n{\"frame.", 9) == 0);
    assert_non_null(strstr(j, "\"frame.number\":\"1\""));
    assert_non_null(strstr(j, "\"infiniband.bth.opcode\":\"20\""));
    assert_non_null(strstr(j, "\"infiniband.reth.va\":\"0x00006320d6be5000\""));
    assert_non_null(strstr(j, "\"roceshark.malformed\":\"1\""));
    /* The apostrophe needs no escape; quotes and controls would. */
    assert_non_null(strstr(j, "\"roceshark.problem\":\"frame cut short by the capture's "
                              "snapshot length\""));
    assert_string_equal(j + strlen(j) - 4, "}\n]\n");
    free(c.text);
}

/* The escaper: quotes, backslashes and controls escaped, UTF-8 as it is. */
static void
test_json_string(void **state)
{
    struct capture_out c;
    static const char in[] = "a\"b\\c\n\x01\x1f \xc3\xa9/";

    (void)state;
    capture_begin(&c);
    rs_out_json_string(&c.out, in, sizeof(in) - 1);
    rs_out_json_string(&c.out, "nul\0after", 9);
    assert_string_equal(capture_end(&c),
                        "\"a\\\"b\\\\c\\n\\u0001\\u001f \xc3\xa9/\""
                        "\"nul\\u0000after\"");
    free(c.text);
}

/* The escaper looks 8 bytes at a time for a byte to escape: each one is found at every
 * place of a longer string, and every byte from 0x20 up but '"' and '\\' passes. */
static void
test_json_string_places(void **state)
{
    static const struct {
        char c;
        const char *esc;
    } special[] = {{'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\x01', "\\u0001"},
                   {'\x1f', "\\u001f"}, {'\0', "\\u0000"}};
    static const char fill[] = "\xe9 #]!\x7f[]";    /* the escaped bytes' neighbours */
    enum { LEN = 27 };
    char in[LEN], want[LEN + 16];

    (void)state;
    for (size_t k = 0; k < sizeof(special) / sizeof(special[0]); k++) {
        for (size_t at = 0; at < LEN; at++) {
            struct capture_out c;
            for (size_t i = 0; i < LEN; i++)
                in[i] = fill[i % (sizeof(fill) - 1)];
            in[at] = special[k].c;
            snprintf(want, sizeof(want), "\"%.*s%s%.*s\"", (int)at, in, special[k].esc,
                     (int)(LEN - at - 1), in + at + 1);
            capture_begin(&c);
            rs_out_json_string(&c.out, in, LEN);
            assert_string_equal(capture_end(&c), want);
            free(c.text);
        }
    }
    char plain[224 - 2];
    size_t n = 0;
    for (int c = 0x20; c <= 0xff; c++)
        if (c != '"' && c != '\\')
            plain[n++] = (char)c;
    struct capture_out c;
    capture_begin(&c);
    rs_out_json_string(&c.out, plain, n);
    const char *got = capture_end(&c);
    assert_int_equal(strlen(got), n + 2);
    assert_memory_equal(got + 1, plain, n);
    free(c.text);
}

/* The same escapes into a FILE in ASCII, stopping at a NUL: a peer's text
 * need not be UTF-8. */
static void
test_json_fput_text(void **state)
{
    char buf[64] = "";
    FILE *f = fmemopen(buf, sizeof(buf), "w");

    (void)state;
    assert_non_null(f);
    rs_json_fput_text(f, "a\"\\\n\xc3\xa9\x7f~\0after", 12);
    fclose(f);
    assert_string_equal(buf, "a\\\"\\\\\\u000a\\u00c3\\u00a9\\u007f~");
}

/* The writer lays out as tshark's: pretty with two spaces a level, or compact with '_'
 * for '.' in names (ek); empty containers stay on their line. */
static void
test_json_writer(void **state)
{
    struct capture_out c;
    struct rs_json j;

    (void)state;
    capture_begin(&c);
    rs_json_init(&j, &c.out, true, 0, false);
    rs_json_begin_object(&j);
    rs_json_name(&j, "ip.src", NULL);
    rs_json_string(&j, "10.0.0.1", 8);
    rs_json_name(&j, "ip.flags", "_tree");
    rs_json_begin_object(&j);
    rs_json_end_object(&j);
    rs_json_name(&j, "ip.addr", NULL);
    rs_json_begin_array(&j);
    rs_json_string(&j, "a", 1);
    rs_json_literal(&j, "null");
    rs_json_end_array(&j);
    rs_json_end_object(&j);
    rs_json_init(&j, &c.out, false, 0, false);
    j.dot_to_underscore = true;
    rs_json_begin_object(&j);
    rs_json_name(&j, "ip.src", NULL);
    rs_json_literal(&j, "true");
    rs_json_name(&j, "x", NULL);
    rs_json_begin_array(&j);
    rs_json_end_array(&j);
    rs_json_end_object(&j);
    assert_string_equal(capture_end(&c), "{\n  \"ip.src\": \"10.0.0.1\",\n"
                                         "  \"ip.flags_tree\": {},\n"
                                         "  \"ip.addr\": [\n    \"a\",\n    null\n  ]\n}"
                                         "{\"ip_src\":true,\"x\":[]}");
    free(c.text);
}

/* A value is formatted in place between its quotes; one that needs an escape, or is past
 * the room formatted in place (128 bytes), is escaped as rs_json_string escapes it; the
 * output buffer flushed just before a value keeps the order. */
static void
test_json_value(void **state)
{
    const struct rs_field *text = rs_field_by_id(rs_field_lookup("frame.protocols"));
    const struct rs_field *number = rs_field_by_id(rs_field_lookup("frame.len"));
    static char filler[4090], long_text[301];
    struct capture_out c;
    struct rs_json j;

    (void)state;
    assert_non_null(text);
    assert_non_null(number);
    memset(filler, 'n', sizeof(filler) - 1);
    memset(long_text, 'x', sizeof(long_text) - 1);
    long_text[200] = '"';
    capture_begin(&c);
    rs_json_init(&j, &c.out, false, 0, false);
    rs_json_begin_array(&j);
    rs_json_literal(&j, filler);
    rs_json_value(&j, number, &(struct rs_value){.type = number->type, .v.u = 1234});
    rs_json_value(&j, text, &(struct rs_value){.type = RS_FT_STRING, .v.str = "eth:ip"});
    rs_json_value(&j, text, &(struct rs_value){.type = RS_FT_STRING, .v.str = "a\"b\\c\nd\x01"});
    rs_json_value(&j, text, &(struct rs_value){.type = RS_FT_STRING, .v.str = ""});
    rs_json_value(&j, text, &(struct rs_value){.type = RS_FT_STRING, .v.str = long_text});
    rs_json_hex_string(&j, (const uint8_t *)"\x0a\xff", 2, ':');
    rs_json_end_array(&j);
    const char *got = capture_end(&c);
    static char want[sizeof(filler) + sizeof(long_text) + 64];
    snprintf(want, sizeof(want), "[%s,\"1234\",\"eth:ip\",\"a\\\"b\\\\c\\nd\\u0001\",\"\","
             "\"%.200s\\\"%s\",\"0a:ff\"]",
             filler, long_text, long_text + 201);
    assert_string_equal(got, want);
    free(c.text);
}

/* The names of a frame's top-level items (the frame line and its protocols). */
struct top_names {
    const char *name[32];
    size_t n;
};

static void
add_top_name(void *arg, const struct rs_tree_item *it)
{
    struct top_names *t = arg;

    if (it->depth == 0 && t->n < 32)
        t->name[t->n++] = it->kind == RS_TREE_FRAME ? "frame" : it->field->abbrev;
}

/* A frame's -T json with opts, written straight from the walk, and through the document
 * (-J naming every top-level name, which writes all of them whole). */
static void
json_both_ways(const struct rs_packet *pkt, struct rs_json_opts opts, char **walked,
               char **doc)
{
    struct capture_out c;
    struct top_names top = {.n = 0};

    rs_tree_walk_hidden(pkt, add_top_name, &top);
    assert_true(top.n > 1);
    capture_begin(&c);
    rs_print_json(&c.out, pkt, true, &opts);
    capture_end(&c);
    *walked = c.text;
    opts.protos = top.name;
    opts.n_protos = top.n;
    opts.protos_whole = true;
    capture_begin(&c);
    rs_print_json(&c.out, pkt, true, &opts);
    capture_end(&c);
    *doc = c.text;
}

/* -T json, jsonraw and -x without -j/-J or --no-duplicate-keys are written as the walk
 * goes, without the tree document the others read: the same text, on frames with a
 * protocol without items below it (a label: IB cut short), values in an ICMP error's
 * quote, and bytes before the frame's own (ERF). */
static void
test_json_walked_as_document(void **state)
{
    static const struct {
        const char *hex;
        int linktype;
    } frames[] = {
        {HEX_ROCEV2_ACK, RS_DLT_EN10MB},
        {HEX_SHORT_BTH, RS_DLT_EN10MB},
        {HEX_REDIRECT_PADDED, RS_DLT_EN10MB},
        {HEX_ICMP_PORT_UNREACHABLE, RS_DLT_EN10MB},
        {HEX_ERF_IB_GRH_UD, RS_DLT_ERF},
    };
    static const struct rs_json_opts ways[] = {
        {.text = true},
        {.text = true, .raw = true},
        {.raw = true},
    };
    struct test_frame tf;
    struct rs_packet pkt;

    (void)state;
    for (size_t f = 0; f < sizeof(frames) / sizeof(frames[0]); f++) {
        decode_hex(&tf, frames[f].hex, frames[f].linktype, &pkt);
        for (size_t w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
            char *walked, *doc;
            json_both_ways(&pkt, ways[w], &walked, &doc);
            assert_non_null(strstr(walked, "\"_source\": {"));
            assert_string_equal(walked, doc);
            free(walked);
            free(doc);
        }
    }
    /* the label of a protocol with nothing below it */
    char *walked, *doc;
    decode_hex(&tf, HEX_SHORT_BTH, RS_DLT_EN10MB, &pkt);
    json_both_ways(&pkt, ways[0], &walked, &doc);
    assert_non_null(strstr(walked, "\"infiniband\": \"InfiniBand\""));
    free(walked);
    free(doc);
}

/* -T json: protocols as objects, a header's value then its fields as name_tree, hidden
 * fields where Wireshark's tree has them; -x adds name_raw; ek flattens each protocol. */
static void
test_json_tree(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_json_opts opts = {.text = true};

    (void)state;
    decode_hex(&tf, HEX_ROCEV2_ACK, RS_DLT_EN10MB, &pkt);
    capture_begin(&c);
    rs_print_json_begin(&c.out);
    rs_print_json(&c.out, &pkt, true, &opts);
    rs_print_json_end(&c.out, true);
    opts.raw = true;
    rs_print_json(&c.out, &pkt, true, &opts);
    rs_print_ek(&c.out, &pkt, &opts);
    const char *j = capture_end(&c);
    static const char head[] = "[\n  {\n    \"_index\": \"packets-";
    assert_true(strncmp(j, head, sizeof(head) - 1) == 0);
    assert_non_null(strstr(j, "\"_type\": \"doc\",\n    \"_score\": null,\n    \"_source\": {\n"
                              "      \"layers\": {\n        \"frame\": {\n"));
    assert_non_null(strstr(j, "          \"eth.dst\": \""));
    assert_non_null(strstr(j, "          \"eth.dst_tree\": {\n            "
                              "\"eth.dst_resolved\": \""));
    assert_non_null(strstr(j, "\"infiniband.bth_tree\": {\n            \"infiniband.bth.opcode\": "
                              "\"17\",\n"));
    assert_non_null(strstr(j, "\"udp.port\": \"4791\""));
    assert_non_null(strstr(j, "\"infiniband.bth.psn_raw\": [\n"));
    /* ip.version, whose mask Wireshark does not register: its byte and mask 0, as tshark
     * 4.0.17's -T json -x (before: \"4\" and 240) */
    assert_non_null(strstr(j, "\"ip.version_raw\": [\n            \"45\",\n            14,\n"
                              "            1,\n            0,\n            4\n"));
    assert_non_null(strstr(j, "\"infiniband.bth.a_raw\": [\n              \"0\",\n"
                              "              50,\n              1,\n              128,\n"
                              "              2\n"));
    assert_non_null(strstr(j, "\n  }\n]\n"));
    assert_non_null(strstr(j, "{\"index\":{\"_index\":\"packets-"));
    assert_non_null(strstr(j, "\"infiniband_infiniband_bth_a\":false"));
    assert_non_null(strstr(j, "\"udp_udp_port\":[\""));
    free(c.text);
}

static void
test_fields_options(void **state)
{
    struct test_frame tf;
    struct rs_packet pkt;
    struct capture_out c;
    struct rs_fields_fmt fmt;
    const char *names[] = {"infiniband.bth.opcode", "vlan.id", "infiniband.reth.va"};
    int ids[3];
    static const uint8_t tags[8] = {0x81, 0x00, 0x00, 0x0a, 0x81, 0x00, 0x00, 0x14};

    (void)state;
    for (int i = 0; i < 3; i++)
        ids[i] = rs_field_lookup(names[i]);
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    memmove(tf.bytes + 20, tf.bytes + 12, tf.frame.caplen - 12);
    memcpy(tf.bytes + 12, tags, sizeof(tags));
    tf.frame.caplen = tf.frame.len = tf.frame.caplen + 8;
    test_decode(&tf.frame, &pkt);

    rs_fields_fmt_init(&fmt);
    capture_begin(&c);
    rs_print_fields(&c.out, &fmt, &pkt, ids, 3);
    fmt.header = true;
    fmt.separator = ';';
    fmt.aggregator = '|';
    rs_print_fields_header(&c.out, &fmt, names, 3);
    rs_print_fields(&c.out, &fmt, &pkt, ids, 3);
    fmt.occurrence = 'l';
    rs_print_fields(&c.out, &fmt, &pkt, ids, 3);
    fmt.occurrence = 'f';
    rs_print_fields(&c.out, &fmt, &pkt, ids, 3);
    assert_string_equal(capture_end(&c),
                        "10\t10,20\t0x00007f0012345000\n"
                        "infiniband.bth.opcode;vlan.id;infiniband.reth.va\n"
                        "10;10|20;0x00007f0012345000\n"
                        "10;20;0x00007f0012345000\n"
                        "10;10;0x00007f0012345000\n");
    free(c.text);
}

/* -G: tshark -G's columns; a boolean's base is its storage's bits, a mask that covers
 * every bit read is 0x0, and a field's parent is the protocol its name starts with. */
static void
test_glossary(void **state)
{
    struct capture_out c;

    (void)state;
    capture_begin(&c);
    assert_int_equal(rs_print_glossary(&c.out, "fields"), 0);
    const char *text = capture_end(&c);
    assert_non_null(strstr(text, "P\tInfiniBand\tinfiniband\n"));
    assert_non_null(strstr(text, "\nF\tSolicited Event\tinfiniband.bth.se\tFT_BOOLEAN\t"
                                 "infiniband\t8\t0x80\t"));
    assert_non_null(strstr(text, "\nF\tDestination Queue Pair\tinfiniband.bth.destqp\t"
                                 "FT_UINT24\tinfiniband\tBASE_HEX\t0x0\t"));
    assert_non_null(strstr(text, "\tframe.protocols\tFT_STRING\tframe\t\t0x0\t"));
    /* as tshark 4.0.17's -G fields: no mask for ip.version (before: 0xf0) */
    assert_non_null(strstr(text, "\tip.version\tFT_UINT8\tip\tBASE_DEC\t0x0\t"));
    free((void *)text);

    capture_begin(&c);
    assert_int_equal(rs_print_glossary(&c.out, "protocols"), 0);
    text = capture_end(&c);
    assert_non_null(strstr(text, "InfiniBand\tIB\tinfiniband\n"));
    assert_non_null(strstr(text, "Internet Protocol Version 4\tIPv4\tip\n"));
    assert_null(strstr(text, "roceshark.analysis"));
    free((void *)text);

    capture_begin(&c);
    assert_int_equal(rs_print_glossary(&c.out, "values"), 0);
    text = capture_end(&c);
    assert_non_null(strstr(text, "V\tip.dsfield.ecn\t3\tCongestion Experienced\n"));
    /* tshark's tables, in its order; an indexed one (ipv6.opt.type) in decimal */
    assert_non_null(strstr(text, "V\teth.type\t0x800\tIPv4\nV\teth.type\t0x86dd\tIPv6\n"));
    assert_non_null(strstr(text, "V\tipv6.opt.type\t194\tJumbo Payload\n"));
    assert_non_null(strstr(text, "V\tip.proto\t89\tOSPF IGP\n"));
    assert_non_null(strstr(text, "V\tipv6.opt.router_alert\t2\tActive Network\n"));
    free((void *)text);

    capture_begin(&c);
    assert_int_equal(rs_print_glossary(&c.out, "heuristic-decodes"), 0);
    text = capture_end(&c);
    assert_string_equal(text, "infiniband.payload\tethertype\tT\ntcp\tiwarp_mpa\tT\n");
    free((void *)text);

    capture_begin(&c);
    assert_int_equal(rs_print_glossary(&c.out, "ftypes"), 0);
    text = capture_end(&c);
    assert_non_null(strstr(text, "FT_NONE\tLabel\nFT_PROTOCOL\tProtocol\n"));
    assert_non_null(strstr(text, "FT_IPv6\tIPv6 address\nFT_FRAMENUM\tFrame number\n"));
    free((void *)text);

    /* tshark 4.0.17's lines for our columns, the tables we dispatch on and their entries */
    capture_begin(&c);
    assert_int_equal(rs_print_glossary(&c.out, "column-formats"), 0);
    text = capture_end(&c);
    assert_non_null(strstr(text, "%d\tDestination address\n%i\tInformation\n%m\tNumber\n"));
    assert_null(strstr(text, "%q\t802.1Q VLAN id\n"));    /* a column we do not print */
    free((void *)text);

    capture_begin(&c);
    assert_int_equal(rs_print_glossary(&c.out, "dissector-tables"), 0);
    text = capture_end(&c);
    assert_non_null(strstr(text, "udp.port\tUDP port\tFT_UINT16\tBASE_DEC\tUDP\t"
                                 "Decode As supported\n"));
    assert_null(strstr(text, "tcp.port\t"));  /* iWARP is found by a heuristic */
    free((void *)text);

    capture_begin(&c);
    assert_int_equal(rs_print_glossary(&c.out, "decodes"), 0);
    text = capture_end(&c);
    assert_non_null(strstr(text, "udp.port\t4791\tinfiniband\n"));
    assert_non_null(strstr(text, "ethertype\t35093\tinfiniband\n"));
    assert_null(strstr(text, "ip.proto\t4\tip\n"));     /* IP in IP: not decoded */
    free((void *)text);

    capture_begin(&c);
    assert_int_equal(rs_print_glossary(&c.out, "folders"), RS_EINVAL);
    free((void *)capture_end(&c));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_line),
        cmocka_unit_test(test_out_memory),
        cmocka_unit_test(test_out_padded),
        cmocka_unit_test(test_format_u64_lengths),
        cmocka_unit_test(test_info_truncated),
        cmocka_unit_test(test_psml),
        cmocka_unit_test(test_info_reasons),
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_tree_walk),
        cmocka_unit_test(test_tree_walk_unplaced),
        cmocka_unit_test(test_tree_nd),
        cmocka_unit_test(test_tree_nd_spans),
        cmocka_unit_test(test_tree_icmp_code),
        cmocka_unit_test(test_tree_nd_unknown_option),
        cmocka_unit_test(test_tree_nd_decoded_options),
        cmocka_unit_test(test_tree_nd_mobile_options),
        cmocka_unit_test(test_tree_vlan_tags),
        cmocka_unit_test(test_malformed_as_tshark),
        cmocka_unit_test(test_ib_payload_cut_as_tshark),
        cmocka_unit_test(test_short_ipv4_as_tshark),
        cmocka_unit_test(test_l4_part_as_tshark),
        cmocka_unit_test(test_tcp_cut_to_window_as_tshark),
        cmocka_unit_test(test_fields_protocol_text),
        cmocka_unit_test(test_short_mad_as_tshark),
        cmocka_unit_test(test_redirect_option_padding),
        cmocka_unit_test(test_tree_icmp_quoted_tcp_short),
        cmocka_unit_test(test_tree_icmp_redirect_extent),
        cmocka_unit_test(test_quoted_tcp_expert_and_options),
        cmocka_unit_test(test_ipv4_length_past_frame_as_tshark),
        cmocka_unit_test(test_nak_info_as_tshark),
        cmocka_unit_test(test_opcode_info_as_tshark),
        cmocka_unit_test(test_udp_length_bad_as_tshark),
        cmocka_unit_test(test_ttl_notes_as_tshark),
        cmocka_unit_test(test_hopopts_protocol),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_json_string),
        cmocka_unit_test(test_json_string_places),
        cmocka_unit_test(test_json_fput_text),
        cmocka_unit_test(test_json_writer),
        cmocka_unit_test(test_json_value),
        cmocka_unit_test(test_json_tree),
        cmocka_unit_test(test_json_walked_as_document),
        cmocka_unit_test(test_fields_options),
        cmocka_unit_test(test_glossary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
