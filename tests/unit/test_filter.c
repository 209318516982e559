/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_filter.c - the display filter: grammar and precedence, every
 * operator, literals of every type, Wireshark's semantics for repeated and
 * absent fields, and errors that name the position.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <roceshark/dissectors/filter.h>

#include "testutil.h"

static struct test_frame tf;
static struct rs_packet pkt;

/* A RoCEv2 RDMA Write Only (PSN 4660, dest QP 0x11, DMA length 18)
 * with two VLAN tags, 10 and 20. */
static int
setup(void **state)
{
    static const uint8_t tags[8] = {0x81, 0x00, 0x00, 0x0a, 0x81, 0x00, 0x00, 0x14};

    (void)state;
    test_frame_from_hex(&tf, HEX_ROCEV2_WRITE_ONLY, RS_DLT_EN10MB);
    memmove(tf.bytes + 20, tf.bytes + 12, tf.frame.caplen - 12);
    memcpy(tf.bytes + 12, tags, sizeof(tags));
    tf.frame.caplen = tf.frame.len = tf.frame.caplen + 8;
    test_decode(&tf.frame, &pkt);
    return 0;
}

static bool
matches(const char *text)
{
    return test_filter_matches(text, &pkt);
}

static void
assert_error(const char *text, const char *want)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_filter *f = NULL;

    assert_int_equal(rs_filter_compile(text, &f, err), RS_EINVAL);
    assert_null(f);
    if (strstr(err, want) == NULL)
        fail_msg("'%s': error '%s' lacks '%s'", text, err, want);
}

static void
test_presence_and_operators(void **state)
{
    (void)state;
    assert_true(matches("infiniband.reth"));
    assert_false(matches("infiniband.aeth"));
    assert_true(matches("infiniband.bth.psn == 4660"));
    assert_true(matches("infiniband.bth.psn eq 4660"));
    assert_true(matches("infiniband.bth.psn != 1"));
    assert_true(matches("infiniband.bth.psn ne 1"));
    assert_true(matches("infiniband.bth.psn > 4659 && infiniband.bth.psn >= 4660"));
    assert_true(matches("infiniband.bth.psn < 4661 and infiniband.bth.psn <= 4660"));
    assert_false(matches("infiniband.bth.psn gt 4660"));
    assert_false(matches("infiniband.bth.psn lt 4660"));
    assert_true(matches("infiniband.bth.psn ge 4660 and infiniband.bth.psn le 4660"));
    assert_true(matches("infiniband.bth.destqp == 0x11"));
    assert_true(matches("infiniband.bth.destqp == 17"));
    assert_true(matches("infiniband.bth.opcode == \"RC RDMA Write Only\""));
    /* Wireshark's name, in any case as Wireshark takes it, and ours as an alias. */
    assert_true(matches("infiniband.bth.opcode == "
                        "\"Reliable Connection (RC) - RDMA WRITE Only\""));
    assert_true(matches("infiniband.bth.opcode == "
                        "\"reliable connection (rc) - rdma write only\""));
    assert_true(matches("infiniband.bth.opcode == \"rc rdma write only\""));
    assert_false(matches("infiniband.bth.opcode == \"Reliable Connection (RC) - SEND Only\""));
    assert_false(matches("infiniband.bth.opcode == \"RC Send Only\""));
    assert_true(matches("ip.proto == \"UDP\" && eth.type == \"802.1Q Virtual LAN\""));
    assert_true(matches("infiniband.bth.a == 1 && infiniband.bth.se == False"));
    assert_true(matches("infiniband.bth.opcode in {4, 10, 11}"));
    assert_true(matches("infiniband.bth.opcode in {0..9, 10}"));
    assert_false(matches("infiniband.bth.opcode in {0..9, 11..20}"));
    assert_true(matches("roceshark.payload contains \"wrote\""));
    assert_true(matches("roceshark.payload contains 72:6f:63"));
    assert_false(matches("roceshark.payload contains \"read\""));
}

/* A name neither Wireshark nor we have is an error that says so. */
static void
test_value_name_aliases(void **state)
{
    (void)state;
    assert_error("infiniband.bth.opcode == \"RC Sned Only\"",
                 "'RC Sned Only' is not a value name of infiniband.bth.opcode");
    /* Our LNH names, which Wireshark has not: accepted, never printed. */
    assert_false(matches("infiniband.lrh.lnh == \"IBA local\""));
    assert_error("infiniband.lrh.lnh == \"Raw IB\"",
                 "'Raw IB' is not a value name of infiniband.lrh.lnh");
}

static void
test_precedence_and_grouping(void **state)
{
    (void)state;
    /* && binds tighter than ||, and ! tighter than both. */
    assert_true(matches("infiniband.aeth && infiniband.aeth || infiniband.reth"));
    assert_false(matches("infiniband.aeth && (infiniband.aeth || infiniband.reth)"));
    assert_true(matches("!infiniband.aeth && infiniband.reth"));
    assert_false(matches("!(infiniband.aeth || infiniband.reth)"));
    assert_true(matches("not not infiniband.reth"));
    assert_true(matches("((infiniband.reth))"));
    assert_true(matches("infiniband.aeth or not infiniband.aeth and infiniband.bth"));
}

static void
test_literals(void **state)
{
    (void)state;
    assert_true(matches("ip.src == 10.0.0.1"));
    assert_true(matches("ip.src == 10.0.0.0/24"));
    assert_false(matches("ip.src == 10.0.1.0/24"));
    assert_true(matches("ip.dst == 10.0.0.0/16 && ip.dst != 10.0.0.1"));
    assert_true(matches("eth.src == 02:00:00:00:00:01"));
    assert_true(matches("eth.src == 02-00-00-00-00-01"));
    assert_true(matches("infiniband.bth == 0a:20:ff:ff:00:00:00:11:80:00:12:34"));
    assert_true(matches("infiniband.bth > 0a:20"));
    assert_true(matches("roceshark.encap == \"rocev2\""));
    assert_true(matches("roceshark.encap == rocev2"));
    assert_true(matches("frame.time_relative == 0"));
    assert_true(matches("frame.time_relative < 0.5"));
    assert_true(matches("infiniband.reth.va == 0x7f0012345000"));
}

static bool
matches_at(struct rs_time rel, const char *text)
{
    struct rs_time saved = tf.frame.rel;

    tf.frame.rel = rel;
    bool m = matches(text);
    tf.frame.rel = saved;
    return m;
}

/* Time literals are read exactly, over the whole range of seconds with nine
 * decimals, as Wireshark 4.0 writes them (digits, a point and up to nine decimals;
 * a minus is applied to the number): 10000000000 s used to overflow a nanosecond
 * count and select nothing; inf and nan were taken. */
static void
test_time_literals(void **state)
{
    const struct rs_time five = {5, 0}, tenth_before = {9999999999, 999999999};
    const struct rs_time repro = {-9999999999, 0}, max = RS_TIME_MAX;

    (void)state;
    assert_true(matches_at(five, "frame.time_relative < 10000000000"));
    assert_false(matches_at(five, "frame.time_relative > 10000000000"));
    assert_true(matches_at(five, "frame.time_relative == 5"));
    assert_true(matches_at(five, "frame.time_relative == 5.000000000"));
    assert_true(matches_at(five, "frame.time_relative == 005.0"));
    assert_true(matches_at(five, "frame.time_relative == +5"));
    assert_true(matches_at(five, "frame.time_relative in {4, 5, 6}"));
    assert_true(matches_at(five, "frame.time_relative in {4.5 .. 5.5}"));
    assert_true(matches_at(tenth_before, "frame.time_relative < 10000000000"));
    assert_true(matches_at(tenth_before, "frame.time_relative == 9999999999.999999999"));
    assert_true(matches_at(tenth_before, "frame.time_relative > 9999999999.999999998"));
    assert_true(matches_at(repro, "frame.time_relative == -9999999999"));
    assert_true(matches_at(repro, "frame.time_relative < -9999999998.999999999"));
    assert_true(matches_at(repro, "frame.time_relative > -10000000000"));
    assert_true(matches_at((struct rs_time){-1, 750000000}, "frame.time_relative == -0.25"));
    assert_true(matches_at((struct rs_time){-1, 750000000}, "frame.time_relative < -0.2"));
    assert_true(matches_at((struct rs_time){0, 1}, "frame.time_relative == 0.000000001"));
    assert_true(matches_at(RS_TIME_ZERO, "frame.time_relative == -0"));
    /* The ends of the range. */
    assert_true(matches_at(max, "frame.time_relative == 9223372036854775807.999999999"));
    assert_false(matches_at(max, "frame.time_relative < 9223372036854775807.999999999"));
    assert_true(matches_at((struct rs_time){INT64_MIN, 1},
                           "frame.time_relative == -9223372036854775807.999999999"));
    assert_true(matches_at(RS_TIME_MIN, "frame.time_relative < -9223372036854775807.999999999"));
    /* The same reader serves every time field. */
    assert_true(matches("frame.time_delta == 0"));

    assert_error("frame.time_relative < 9223372036854775808", "at position 23: "
                 "'9223372036854775808' is out of range for frame.time_relative");
    assert_error("frame.time_relative < -10000000000000000000", "is out of range");
    assert_error("frame.time_relative < inf",
                 "at position 23: 'inf' is not a finite number of seconds for frame.time_relative");
    assert_error("frame.time_relative < -inf", "at position 24: 'inf' is not a finite");
    assert_error("frame.time_relative < Infinity", "'Infinity' is not a finite");
    /* nan is a protocol tshark knows (Wi-Fi NAN), so the two sides differ in type, as
     * tshark says; NaN in other cases is still no number */
    assert_error("frame.time_relative < nan", "frame.time_relative and nan are not of "
                 "compatible types");
    assert_error("frame.time_relative < NaN", "at position 23: 'NaN' is not a finite");
    assert_error("frame.time_relative < 1.0000000005",
                 "at position 23: '1.0000000005' is finer than a nanosecond");
    /* What tshark 4.0 refuses: exponents, hex, a point without digits after it or
     * before it, quotes. */
    assert_error("frame.time_relative < 1e-3", "at position 23: '1e-3' is not a time in seconds");
    assert_error("frame.time_relative < 1e10", "'1e10' is not a time in seconds");
    assert_error("frame.time_relative < 1E2", "'1E2' is not a time in seconds");
    assert_error("frame.time_relative < 0x10", "'0x10' is not a time in seconds");
    assert_error("frame.time_relative < 5.", "'5.' is not a time in seconds");
    assert_error("frame.time_relative < 1.2.3", "'1.2.3' is not a time in seconds");
    assert_error("frame.time_relative < \"1.5\"", "is a string");
    assert_error("frame.time_delta in {1, inf}", "at position 25: 'inf' is not a finite");
}

/* == holds when any occurrence matches; != when all differ (Wireshark 4.0);
 * a test on an absent field is false. */
static void
test_repeated_and_absent_fields(void **state)
{
    (void)state;
    assert_true(matches("vlan.id == 10"));
    assert_true(matches("vlan.id == 20"));
    assert_false(matches("vlan.id != 10"));
    assert_true(matches("vlan.id != 30"));
    assert_true(matches("vlan.id > 15"));
    assert_false(matches("infiniband.aeth.msn == 1"));
    assert_false(matches("infiniband.aeth.msn != 1"));
    assert_true(matches("!(infiniband.aeth.msn == 1)"));
}

static void
test_errors_name_the_position(void **state)
{
    (void)state;
    assert_error("infiniband.bth.nosuch == 1",
                 "at position 1: unknown field 'infiniband.bth.nosuch'");
    assert_error("infiniband.bth && infiniband.bth.nosuch", "at position 19: unknown field");
    assert_error("infiniband.bth.psn ==", "at position 22: expected a field or a value at the end");
    assert_error("infiniband.bth.psn == abc", "at position 23: 'abc' is not a number");
    assert_error("infiniband.bth.opcode == 300",
                 "at position 26: 300 is too big for infiniband.bth.opcode, at most 255");
    assert_error("ip.src == 1.2.3", "not an IPv4 address");
    assert_error("ip.src == 1.2.3.4/40", "bad prefix length");
    assert_error("eth.src == 52:54", "not a MAC address");
    assert_error("(infiniband.bth", "at position 1: '(' is never closed");
    assert_error("infiniband.bth)", "at position 15: unexpected ')'");
    assert_error("infiniband.bth infiniband.reth", "at position 16: expected && or ||");
    assert_error("infiniband.bth.opcode in {1 2", "at position 29: expected ',' or '}' in a set");
    assert_error("infiniband.bth.opcode in 1", "expected '{'");
    assert_error("roceshark.encap == \"rocev2", "unterminated string");
    assert_error("infiniband == 1.2", "at position 15: '1.2' is not a byte string for infiniband");
    assert_error("iwarp_mpa.req == 1", "label");
    assert_error("", "expected a field");
    assert_error("infiniband.bth.psn == 1 &&", "expected a field");
    assert_error("infiniband.bth.psn # 1",
                 "at position 21: expected a digit or '[' right after '#'");
    /* What the message quotes of the text stays on its line (found by the filter fuzzer). */
    assert_error("abs\n\n(udp.srcport)<< > 5", "at position 20: expected a field or a value");
    assert_error("frame.len\n<\n", "at position 13: expected a field or a value at the end");
    assert_error("\n7 < frame.len",
                 "at position 2: the left side of < must be a field or a function, not 7");
    assert_error("ip.src == \x1b[31m", "unexpected character '\\x1b'");
}

/* A string of `n` copies of unit, then middle, then n copies of close. */
static char *
nested(const char *unit, size_t n, const char *middle, const char *close)
{
    size_t ul = strlen(unit), ml = strlen(middle), cl = strlen(close);
    char *s = malloc(n * (ul + cl) + ml + 1), *p = s;

    assert_non_null(s);
    for (size_t i = 0; i < n; i++, p += ul)
        memcpy(p, unit, ul);
    memcpy(p, middle, ml);
    p += ml;
    for (size_t i = 0; i < n; i++, p += cl)
        memcpy(p, close, cl);
    *p = '\0';
    return s;
}

/* n operands joined by op: "x op x op x ...". */
static char *
chain(const char *operand, const char *op, size_t n)
{
    size_t ol = strlen(operand), pl = strlen(op);
    char *s = malloc(n * (ol + pl) + 1), *p = s;

    assert_non_null(s);
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            memcpy(p, op, pl);
            p += pl;
        }
        memcpy(p, operand, ol);
        p += ol;
    }
    *p = '\0';
    return s;
}

static bool
matches_nested(const char *unit, size_t n, const char *middle, const char *close)
{
    char *s = nested(unit, n, middle, close);
    bool m = matches(s);

    free(s);
    return m;
}

static void
assert_nested_error(const char *unit, size_t n, const char *middle, const char *close,
                    const char *want)
{
    char *s = nested(unit, n, middle, close);

    assert_error(s, want);
    free(s);
}

/* Parentheses nest up to RS_FILTER_MAX_DEPTH (Wireshark 4.0 takes 97);
 * one more is an error at the position of the '(' too many. Such input
 * used to overflow the stack from about 19300 levels. */
static void
test_nesting_depth_is_bounded(void **state)
{
    const char *deep = "parentheses nested more than 100 deep";

    (void)state;
    assert_true(matches_nested("(", 97, "infiniband.reth", ")"));
    assert_true(matches_nested("(", RS_FILTER_MAX_DEPTH, "infiniband.reth", ")"));
    assert_nested_error("(", RS_FILTER_MAX_DEPTH + 1, "infiniband.reth", ")",
                        "at position 101: parentheses nested more than 100 deep");
    assert_nested_error("(", 30000, "infiniband.reth", ")", "at position 101: ");
    /* "!(" counts its parenthesis: the 101st '(' is at position 202. */
    assert_nested_error("!(", 30000, "infiniband.reth", ")", "at position 202: ");
    /* Inside a chain the depth is still counted from the outermost level. */
    assert_nested_error("infiniband.aeth || (", RS_FILTER_MAX_DEPTH + 1, "infiniband.reth",
                        ")", deep);
    /* Closed parentheses give their depth back. */
    char *a = nested("(", RS_FILTER_MAX_DEPTH, "infiniband.reth", ")");
    char *s = chain(a, " && ", 3);
    assert_true(matches(s));
    free(s);
    free(a);
}

/* A run of "!" adds no depth: only its parity counts, as in Wireshark
 * (which accepts 30000 of them); 24900 used to overflow the stack. */
static void
test_runs_of_not(void **state)
{
    (void)state;
    assert_true(matches_nested("!", 30000, "infiniband.reth", ""));
    assert_false(matches_nested("!", 30001, "infiniband.reth", ""));
    assert_true(matches_nested("not ", 30001, "infiniband.aeth", ""));
    assert_true(matches_nested("!", 30001, "(infiniband.aeth || !infiniband.reth)", ""));
}

/* Chains of && and || make one wide node, not a tree as deep as the chain:
 * evaluating and freeing 300000 operands must not recurse 300000 deep (8 MiB
 * of stack is about 100000 frames; fewer under the sanitizers, whose frames
 * are larger). A million took this test 29 s under them. */
static void
test_long_chains(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_filter *f;
    char *s;

    (void)state;
    s = chain("infiniband.aeth", " || ", 300000);
    assert_false(matches(s));
    free(s);
    s = chain("infiniband.reth", " && ", 300000);
    assert_true(matches(s));
    free(s);
    /* The last operand decides, and the mixture keeps its precedence. */
    s = chain("infiniband.aeth && infiniband.reth", " or ", 150000);
    char *t = malloc(strlen(s) + 32);
    assert_non_null(t);
    sprintf(t, "%s or ip", s);
    assert_true(matches(t));
    assert_int_equal(rs_filter_compile(t, &f, err), 0);
    assert_true(rs_filter_uses(f, "ip"));
    assert_false(rs_filter_uses(f, "udp"));
    rs_filter_free(f);
    free(t);
    free(s);
    /* An error far into a chain frees what was built. */
    s = chain("infiniband.aeth", " && ", 100000);
    t = malloc(strlen(s) + 32);
    assert_non_null(t);
    sprintf(t, "%s && nosuch", s);
    assert_error(t, "unknown field 'nosuch'");
    free(t);
    free(s);
}

static void
test_uses(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_filter *f;

    (void)state;
    assert_int_equal(rs_filter_compile("ip.src == 1.2.3.4 || !roceshark.icrc.status", &f, err), 0);
    assert_true(rs_filter_uses(f, "roceshark.icrc"));
    assert_false(rs_filter_uses(f, "roceshark.vcrc"));
    rs_filter_free(f);
}

static void
test_slices(void **state)
{
    (void)state;
    assert_true(matches("eth.src[0:3] == 02:00:00"));
    assert_true(matches("eth.src[3:3] == 00:00:01"));
    assert_true(matches("eth.src[-1] == 01"));
    assert_true(matches("eth.src[5] == 0x01"));
    assert_true(matches("eth.src[0] == 2"));            /* one hex digit is a byte */
    assert_true(matches("eth.src[4-5] == 00:01"));
    assert_true(matches("eth.src[-2--1] == 00:01"));
    assert_true(matches("eth.src[:2] == 02:00"));
    assert_true(matches("eth.src[4:] == 00:01"));
    assert_true(matches("eth.src[4:] == 0001"));
    assert_true(matches("ip.src[0] == 0a"));
    assert_true(matches("ip.dst[3] == 02 && ip.dst[3] != 01"));
    assert_true(matches("frame[20:2] == 08:00"));       /* after the two VLAN tags */
    assert_true(matches("frame[12:2] == 81:00"));
    assert_true(matches("frame[6:6] == eth.src"));
    assert_true(matches("udp[2:2] == 12:b7"));
    assert_true(matches("infiniband[0] == 0a"));
    assert_true(matches("infiniband[4:4] == 00:00:00:11"));
    assert_true(matches("infiniband.bth[-2:] == 12:34"));
    assert_true(matches("roceshark.encap[0:4] == \"roce\""));
    /* A slice of a protocol's bytes against a quoted string: the bytes, not a C string
     * (the filter fuzzer's find, corpus/filter/regress-slice-against-string). */
    assert_false(matches("infiniband[0:2] == \"\""));
    assert_true(matches("frame[6:3] == \"\\x02\\x00\\x00\""));
    assert_true(matches("frame[0:2]"));                 /* a slice alone: it exists */
    assert_false(matches("eth.src[6]"));                /* outside the value: no value */
    assert_false(matches("eth.src[4:3] == 00:01"));
    assert_false(matches("eth.src[-7:1] == 02"));
    assert_false(matches("eth.src[0:3] != 02:00:00"));
    assert_true(matches("eth.src[0:3] contains 00"));
    assert_true(matches("frame[0:2] > 01:ff"));
    /* several ranges join in order */
    assert_true(matches("eth.src[0:1,5:1] == 02:01"));
    assert_true(matches("eth.src[5,0] == 01:02"));
    assert_true(matches("frame[12:2, 20:2] == 81:00:08:00"));
    assert_true(matches("eth.src[-1,0:2,4-5] == 01:02:00:00:01"));
    assert_true(matches("frame[6:1,7:5] == frame[6:6]"));
    assert_false(matches("eth.src[0:1,6:1] == 02"));     /* one range outside: no value */
    assert_false(matches("eth.src[0:1,6:1]"));
}

static void
test_functions(void **state)
{
    (void)state;
    assert_true(matches("len(eth.src) == 6"));
    assert_true(matches("len(ip.src) == 4"));
    assert_true(matches("len(udp.srcport) == 2"));
    assert_true(matches("len(infiniband.bth) == 12"));
    assert_true(matches("len(infiniband.reth) == 16"));
    assert_true(matches("len(eth) == 14 && len(ip) == 20 && len(udp) == 8"));
    assert_true(matches("len(frame) == frame.len"));
    assert_true(matches("len(roceshark.encap) == 6"));
    assert_true(matches("count(vlan) == 2 && count(vlan.id) == 2"));
    assert_true(matches("count(ip.addr) == 2"));
    assert_true(matches("count(ip.addr) in {1..3}"));
    assert_false(matches("count(infiniband.aeth) == 0"));   /* absent: no value, as tshark */
    assert_true(matches("upper(roceshark.encap) == \"ROCEV2\""));
    assert_true(matches("lower(roceshark.encap) contains \"v2\""));
    assert_true(matches("upper(roceshark.encap) matches \"(?-i)^ROCE\""));
    assert_false(matches("roceshark.encap matches \"(?-i)^ROCE\""));
    /* string(): numbers in decimal whatever their base, addresses as printed */
    assert_true(matches("string(infiniband.bth.destqp) == \"17\""));
    assert_true(matches("string(udp.dstport) == \"4791\""));
    assert_true(matches("string(ip.dst) matches \"\\\\.2$\""));
    assert_true(matches("string(eth.src) == \"02:00:00:00:00:01\""));
    assert_true(matches("string(roceshark.encap) == \"rocev2\""));
    assert_true(matches("string(frame.number) == \"1\""));
    assert_false(matches("string(infiniband.bth.destqp) == \"0x000011\""));
    /* abs(): unsigned numbers are their own */
    assert_true(matches("abs(udp.dstport) == 4791"));
    assert_true(matches("abs(frame.time_delta) >= 0"));
    /* max() and min(): over every value of every field named, one type */
    assert_true(matches("max(udp.srcport, udp.dstport) == 50000"));
    assert_true(matches("min(udp.srcport, udp.dstport) == 4791"));
    assert_true(matches("max(udp.port) == 50000 && min(udp.port) == 4791"));
    assert_true(matches("max(ip.src, ip.dst) == 10.0.0.2 && min(ip.addr) == 10.0.0.1"));
    assert_false(matches("max(infiniband.aeth.msn) >= 0"));     /* no value: no match */
}

static void
test_matches(void **state)
{
    (void)state;
    assert_true(matches("roceshark.encap matches \"^roce\""));
    /* without regard to case, as Wireshark 4.0 matches, unless the pattern says (?-i) */
    assert_true(matches("roceshark.encap matches \"^ROCE\""));
    assert_true(matches("roceshark.encap ~ \"^RoCE\""));
    assert_false(matches("roceshark.encap matches \"(?-i)^ROCE\""));
    assert_true(matches("roceshark.payload matches \"wrote-it$\""));
    assert_true(matches("frame matches \"\\x12\\xb7\""));
    assert_true(matches("frame matches \"^\\x02\\x00\""));   /* a NUL byte in the pattern */
    assert_true(matches("eth.src matches \"\\x01$\""));
    assert_true(matches("infiniband.bth matches \"^\\x0a\""));
    assert_true(matches("frame[0:1] matches \"^\\x02$\""));
    assert_true(matches("frame contains \"\\x12\\xb7\""));
    assert_true(matches("frame contains \"\\022\\267\""));   /* octal */
}

static void
test_field_to_field(void **state)
{
    (void)state;
    assert_true(matches("ip.src < ip.dst"));
    assert_true(matches("ip.src != ip.dst"));
    assert_false(matches("ip.src == ip.dst"));
    assert_true(matches("ip.addr == ip.dst"));      /* some pair is equal */
    assert_false(matches("ip.addr != ip.src"));     /* != : no pair is equal */
    assert_true(matches("udp.srcport > udp.dstport"));
    assert_true(matches("udp.dstport <= udp.srcport"));
    assert_false(matches("udp.srcport == udp.dstport"));
    assert_true(matches("eth.src < eth.dst"));
    assert_true(matches("eth.src ge eth.src"));
    assert_true(matches("infiniband.bth.psn > infiniband.bth.destqp"));
    assert_false(matches("infiniband.bth.psn >= infiniband.aeth.msn"));    /* no AETH */
    assert_false(matches("vlan.id != vlan.id"));
    assert_true(matches("frame.len == frame.cap_len"));
    assert_true(matches("len(infiniband.bth) < len(infiniband.reth)"));
    assert_true(matches("infiniband.bth contains infiniband.bth[4:2]"));
    assert_true(matches("frame[34:4] == ip.src"));
}

static void
test_feature_errors(void **state)
{
    (void)state;
    assert_error("frame[0:0] == 00",
                 "at position 7: range 0:0 is not valid: length 0 is not positive");
    assert_error("frame[2--3] == 00",
                 "at position 7: range 2--3 is not valid: 2 and -3 have different signs");
    assert_error("frame[3-1] == 00",
                 "at position 7: range 3-1 is not valid: it ends before it starts");
    assert_error("frame[x] == 00", "at position 7: expected a range such as 0:2 in [ ]");
    assert_error("frame[0:2 == 00", "at position 11: expected ']'");
    assert_error("udp.srcport[0:1] == 00",
                 "at position 1: udp.srcport is FT_UINT16 and cannot be sliced");
    assert_error("foo(frame) == 1", "at position 1: function 'foo' does not exist");
    assert_error("lower(udp.srcport) == \"a\"",
                 "at position 7: lower() takes a string field; udp.srcport is not one");
    assert_error("upper(frame) == \"a\"", "at position 7: upper() takes a string field");
    assert_error("len(frame == 1", "at position 11: expected ')' after the arguments of len()");
    assert_error("len(nosuch.field) == 1", "at position 5: unknown field 'nosuch.field'");
    assert_error("frame matches \"(x\"", "at position 15: regular expression does not compile: ");
    assert_error("frame matches 00",
                 "at position 15: matches takes a \"quoted\" regular expression");
    assert_error("ip.src matches \"^10\"",
                 "at position 1: ip.src (FT_IPv4) cannot be tested with matches: it is not text "
                 "or bytes");
    assert_error("udp.srcport matches \"1\"",
                 "at position 1: udp.srcport (FT_UINT16) cannot be tested with matches: it is "
                 "not text or bytes");
    assert_error("ip.src == eth.src",
                 "at position 11: ip.src and eth.src are not of compatible types");
    assert_error("udp.srcport < frame.time_relative",
                 "at position 15: udp.srcport and frame.time_relative are not of compatible types");
    assert_error("len(frame) == \"x\"",
                 "at position 15: len(frame) cannot be a number: \"x\" is a string");
    assert_error("frame contains \"\\q\"",
                 "at position 16: \\q is not a valid character escape sequence");
    assert_error("lower(upper(roceshark.encap)) == \"x\"",
                 "at position 7: lower() takes one field");
    assert_error("string(frame.time_relative) == \"1\"",
                 "at position 8: string() cannot convert frame.time_relative: it is "
                 "FT_RELATIVE_TIME");
    assert_error("string(infiniband.bth.a) == \"1\"", "it is FT_BOOLEAN");
    assert_error("string(infiniband.bth) == \"1\"", "it is FT_BYTES");
    assert_error("abs(ip.src) == 1", "at position 5: abs() takes a number; ip.src is FT_IPv4");
    assert_error("max(udp.srcport, ip.len, frame.time_delta) > 1",
                 "at position 26: the arguments of max() must have one type (expected "
                 "FT_UINT16, got FT_RELATIVE_TIME)");
    assert_error("min(udp) > 1", "min() takes values that order; udp is FT_PROTOCOL");
    /* the names of types after a signed one in the enum (once shifted by one) */
    assert_error("max(frame.encap_type, frame.time_delta) > 1",
                 "(expected FT_INT16, got FT_RELATIVE_TIME)");
    assert_error("max(frame.time_delta, ip.src) > 1", "(expected FT_RELATIVE_TIME, got FT_IPv4)");
    assert_error("frame.encap_type == -70000", "70000 is too big for frame.encap_type, at most "
                 "32767");
    assert_true(matches("min(eth.src, eth.dst) == eth.src && max(eth.src, eth.dst) == eth.dst"));
    assert_error("max(udp.port,) > 1", "at position 14: expected a field or a value");
    assert_error("frame[0,1,2,3,4,5,6,7,8] == 00",
                 "at position 23: a slice joins at most 8 ranges");
    assert_error("frame[0:2,] == 00", "at position 11: expected a range such as 0:2 in [ ]");
}

/* Arithmetic, as Wireshark 4.0 computes it: + - * / % on integers (the left operand's
 * kind, 32 or 64 bits, an unsigned result below zero becoming signed), + and - on
 * times, { } to group; a result that does not fit, or a division by zero, is no value.
 * Literals take the type of the left operand. Alone, arithmetic is true when some value
 * is not zero. */
static void
test_arithmetic(void **state)
{
    (void)state;
    assert_true(matches("infiniband.bth.psn + 1 == 4661"));
    assert_true(matches("infiniband.bth.psn+1 == 4661"));
    assert_true(matches("infiniband.bth.psn * 2 == 9320"));
    assert_true(matches("infiniband.bth.psn / 3 == 1553"));
    assert_true(matches("infiniband.bth.psn % 3 == 1"));
    assert_true(matches("infiniband.bth.psn/3 == 1553 && infiniband.bth.psn%3 == 1"));
    assert_true(matches("udp.dstport + 2 * 3 == 4797"));          /* * before + */
    assert_true(matches("{udp.dstport + 2} * 3 == 14379"));
    assert_true(matches("udp.dstport == 4800 - 9"));
    assert_true(matches("udp.dstport - 4792 == -1"));             /* below zero: signed */
    assert_true(matches("udp.dstport - 4792 < 0"));
    assert_true(matches("udp.dstport - udp.srcport < -45000"));
    assert_true(matches("-udp.dstport == -4791"));
    assert_true(matches("-udp.dstport < 0 && abs(-udp.dstport) == 4791"));
    assert_true(matches("infiniband.reth.va + 1 == 0x7f0012345001"));   /* 64 bits */
    assert_true(matches("udp.length + ip.ttl > udp.length"));     /* fields of two widths */
    assert_false(matches("udp.dstport / 0 == 0"));                /* no value */
    assert_false(matches("udp.dstport % 0 == 0"));
    assert_false(matches("frame.len * 4294967295 > 0"));          /* past 32 bits: none */
    assert_true(matches("infiniband.reth.dmalen + 4294967277 == 4294967295"));
    assert_false(matches("infiniband.reth.dmalen + 4294967278 > 0"));
    assert_true(matches("frame.time_relative + 1 > 0.5 && frame.time_relative - 1 < 0"));
    assert_true(matches("frame.time_relative + frame.time_delta == 0"));
    assert_true(matches("-frame.time_relative == 0"));
    /* alone: some value is not zero */
    assert_true(matches("udp.dstport - 4790"));
    assert_false(matches("udp.dstport - 4791"));
    assert_false(matches("udp.dstport % 0"));
    /* literals take the left operand's type */
    assert_error("vlan.id + 70000 == 1",
                 "at position 11: 70000 is too big for vlan.id, at most 65535");
    assert_error("udp.dstport * 256 == 1226496", "1226496 is too big for udp.dstport");
    assert_error("2 * udp.dstport > 0",
                 "at position 1: a constant arithmetic expression cannot be the left side");
    assert_error("10 < udp.dstport", "at position 1: the left side of < must be a field or a "
                 "function, not 10");
    assert_error("frame.time_relative * 2 > 1", "FT_RELATIVE_TIME cannot *");
    assert_error("infiniband.bth.a + 1 == 2", "FT_BOOLEAN cannot +");
    assert_error("ip.src + 1 == 1", "FT_IPv4 cannot +");
    assert_error("udp.dstport + frame.time_delta > 1", "udp.dstport and frame.time_delta are not "
                 "type compatible");
    assert_error("udp.dstport + \"1\" > 1", "is a string");
    assert_error("frame.len == -4294967295", "-4294967295 is below the least signed 32-bit");
    assert_error("udp.dstport in {1 + 2}", "at position 19: expected ',' or '}' in a set");
    assert_error("udp.dstport in {{1 + 2}}", "a set holds values, not arithmetic");
    assert_error("-{udp.dstport} == 1", "at position 2: expected a field or a value");
    assert_error("udp.dstport-1 == 4790", "at position 1: unknown field 'udp.dstport-1'");
    /* 100 operators nest 100 deep; the 101st is refused */
    for (size_t n = RS_FILTER_MAX_DEPTH + 1; n <= RS_FILTER_MAX_DEPTH + 2; n++) {
        char *s = chain("udp.dstport", " + ", n);
        char *t = malloc(strlen(s) + 8);
        assert_non_null(t);
        sprintf(t, "%s > 1", s);
        if (n == RS_FILTER_MAX_DEPTH + 1)
            assert_true(matches(t));
        else
            assert_error(t, "expression nested more than 100 deep");
        free(t);
        free(s);
    }
}

/* & on integers, slices, MAC and IPv4 addresses: alone, some bit is set; compared, the
 * masked value. */
static void
test_bitwise_and(void **state)
{
    (void)state;
    assert_true(matches("udp.dstport & 0x0f == 7"));              /* 0x12b7 */
    assert_true(matches("udp.dstport & 0x0f"));
    assert_false(matches("udp.dstport & 8"));
    assert_true(matches("udp.dstport bitwise_and 0x10"));
    assert_true(matches("eth.src[0] & 2"));                       /* 02:00:00:00:00:01 */
    assert_false(matches("eth.src[0] & 0x01"));
    assert_true(matches("eth.src[0:2] & 02:ff == 02:00"));
    assert_true(matches("eth.src[0:2] & 0f:0f:0f"));              /* the shorter length */
    assert_true(matches("eth.src & ff:00:00:00:00:ff == 02:00:00:00:00:01"));
    assert_true(matches("ip.src & 255.255.255.0 == 10.0.0.0"));
    assert_false(matches("frame[0:1] & 0x01"));
    assert_error("udp & 1", "at position 1: FT_PROTOCOL cannot &");
    assert_error("infiniband.bth.a & 1", "FT_BOOLEAN cannot &");
    assert_error("frame.time_delta & 1", "FT_RELATIVE_TIME cannot &");
}

/* any and all, and the operators that carry their own: == and the orderings hold for
 * some pair of values, != for no equal pair, === for all pairs equal, !== and ~= for
 * some pair that differs. A pair that cannot be compared (a negative number against an
 * unsigned field) satisfies no "any" and falsifies no "all". */
static void
test_quantifiers(void **state)
{
    (void)state;
    assert_true(matches("all vlan.id > 5"));
    assert_false(matches("all vlan.id > 15"));
    assert_true(matches("any vlan.id > 15"));
    assert_false(matches("all vlan.id == 10"));
    assert_false(matches("vlan.id === 10"));
    assert_false(matches("vlan.id all_eq 10"));
    assert_true(matches("vlan.id !== 10"));
    assert_true(matches("vlan.id ~= 10"));
    assert_true(matches("vlan.id any_ne 20"));
    assert_false(matches("vlan.id all_ne 20"));
    assert_true(matches("vlan.id any_eq 20"));
    assert_true(matches("any vlan.id != 10"));
    assert_false(matches("all vlan.id != 10"));
    assert_true(matches("all vlan.id in {5..25}"));
    assert_true(matches("vlan.id in {10}"));
    assert_false(matches("all vlan.id in {10, 20}"));    /* one member must take them all */
    assert_true(matches("vlan.id not in {30}"));
    assert_false(matches("vlan.id not in {10}"));
    assert_false(matches("vlan.id == -1"));
    assert_false(matches("vlan.id < -1") || matches("vlan.id > -1"));
    assert_true(matches("vlan.id != -1"));
    assert_true(matches("vlan.id === -1"));
    assert_false(matches("vlan.id !== -1"));
    assert_false(matches("all infiniband.aeth.msn == 1"));      /* absent: false */
    assert_false(matches("all infiniband.aeth.msn != 1"));
    /* a == b == c: both comparisons */
    assert_true(matches("frame.len == frame.cap_len == 102"));
    assert_false(matches("frame.len == frame.cap_len == 103"));
    assert_true(matches("udp.srcport > udp.dstport >= 4791"));
    assert_error("all vlan.id", "any and all go with a comparison");
    assert_error("vlan.id < 100 < 200",
                 "the left side of < must be a field or a function, not 100");
}

/* contains and matches search a protocol's whole extent, payload included, as
 * Wireshark's do; slices, comparisons and len() take its header (the item). */
static void
test_protocol_extent(void **state)
{
    (void)state;
    assert_true(matches("udp contains \"wrote-it\""));
    assert_true(matches("ip contains \"roceshark\" && eth contains 72:6f:63:65"));
    assert_true(matches("infiniband contains \"wrote\""));
    assert_true(matches("udp matches \"WROTE-IT\""));
    assert_false(matches("udp matches \"(?-i)WROTE-IT\""));
    assert_false(matches("udp[8:] contains \"wrote\""));          /* the header alone */
    assert_true(matches("len(udp) == 8 && len(ip) == 20 && udp[-2:] == udp[6:2]"));
    assert_false(matches("udp == 12:b7"));
    assert_false(matches("frame.protocols contains \"tcp\""));
}

/* Literals as Wireshark 4.0 writes them. */
static void
test_literal_forms(void **state)
{
    (void)state;
    assert_true(matches("udp.dstport == 011267"));                /* octal */
    assert_true(matches("udp.dstport == 0b1001010110111"));       /* binary */
    assert_true(matches("udp.dstport == 0X12B7"));
    assert_true(matches("ip.ttl == '@'"));                        /* 64 */
    assert_true(matches("ip.ttl == '\\x40' && ip.ttl == '\\100'"));
    assert_true(matches("frame[22] == 'E'"));                     /* 0x45 */
    assert_true(matches("roceshark.encap contains 'v'"));
    assert_true(matches("roceshark.encap == r\"rocev2\""));
    assert_true(matches("frame contains r\"wrote-it\""));
    assert_true(matches("infiniband.bth.se == 0 && infiniband.bth.a == True"));
    assert_true(matches("infiniband.bth.a == 2"));                 /* not zero: true */
    assert_true(matches("infiniband.bth.a == TRUE && infiniband.bth.se == FALSE"));
    assert_true(matches("eth.src == 0200.0000.0001 && eth.src == 020000000001"));
    assert_error("infiniband.bth.a == true", "'true' is not a number");
    assert_error("udp.dstport == 09", "'09' is not a number");
    assert_error("udp.dstport == 0o10", "'0o10' is not a number");
    assert_error("udp.dstport == 1_000", "'1_000' is not a number");
    assert_error("udp.dstport == 'ab'", "'ab' is too long to be a character constant");
    assert_error("udp.dstport == \"4791\"", "is a string");
    assert_error("ip.src == \"10.0.0.1\"", "is a string");
    assert_error("eth.src contains \"ab\"", "a MAC address cannot be searched for text");
    assert_error("roceshark.encap contains \"\\u0064\"", "\\u0064 is not a valid universal "
                 "character name");
    assert_error("ip.src == www.example.com", "not an IPv4 address for ip.src (names are not "
                 "resolved)");
    /* sets take commas between their members, as in Wireshark 4.0 */
    assert_error("udp.dstport in {4791 4792}", "at position 22: expected ',' or '}' in a set");
    assert_error("udp.dstport in {4791,}", "expected a value before '}'");
    assert_error("udp.dstport in {}", "expected a value before '}'");
    assert_true(matches("udp.dstport in {+4791}"));
    assert_true(matches("udp.dstport in {udp.srcport, 4791}"));
    assert_true(matches("udp.dstport in {4000..udp.srcport}"));
}

/* Dates as Wireshark 4.0 reads them: ISO 8601 or "Mon D, YYYY h:m:s", in local time
 * unless they say otherwise. The frame arrived at 2020-07-04 12:34:56.5 UTC. */
static void
test_absolute_time(void **state)
{
    int64_t sec = tf.frame.ts_sec;
    uint32_t nsec = tf.frame.ts_nsec;
    char *tz = getenv("TZ") != NULL ? strdup(getenv("TZ")) : NULL;

    (void)state;
    tf.frame.ts_sec = 1593866096;
    tf.frame.ts_nsec = 500000000;
    setenv("TZ", "UTC", 1);
    tzset();
    assert_true(matches("frame.time == \"2020-07-04 12:34:56.5\""));
    assert_true(matches("frame.time == \"2020-07-04T12:34:56.500Z\""));
    assert_true(matches("frame.time > \"2020-07-04 12:34:56\""));
    assert_true(matches("frame.time < \"2020-07-04 12:34:57\""));
    assert_true(matches("frame.time > \"2020-07-04\" && frame.time > 2020-07-04"));
    assert_true(matches("frame.time > \"2020-07-04 12\" && frame.time > \"2020-07-04 12:34\""));
    assert_true(matches("frame.time == \"2020-07-04 14:34:56.5+02:00\""));
    assert_true(matches("frame.time == \"2020-07-04 10:34:56.5-0200\""));
    assert_true(matches("frame.time == \"2020-07-04 12:34:56.5 UTC\""));
    assert_true(matches("frame.time == \"Jul  4, 2020 12:34:56.5\""));
    assert_true(matches("frame.time == \"jul 4, 2020 12:34:56.500000000 UTC\""));
    assert_true(matches("frame.time in {\"2020-07-04 12:00:00\" .. \"2020-07-04 13:00:00\"}"));
    assert_true(matches("frame.time == \"2020-07-03T12:34:56.5\" || "
                        "frame.time > \"2020-06-31 20:00:00\""));   /* June 31 is July 1 */
    /* local time */
    setenv("TZ", "America/New_York", 1);
    tzset();
    assert_true(matches("frame.time == \"2020-07-04 08:34:56.5\""));
    assert_true(matches("frame.time == \"Jul 4, 2020 08:34:56.5\""));
    assert_true(matches("frame.time == \"2020-07-04 12:34:56.5Z\""));
    assert_error("frame.time > \"2020-07-04 12:34:56 EDT\"", "is not a valid absolute time");
    assert_error("frame.time > \"2020-13-04\"", "is not a valid absolute time");
    assert_error("frame.time > \"2020-07-04 25:00\"", "is not a valid absolute time");
    assert_error("frame.time > \"July 4, 2020 12:34:56\"", "is not a valid absolute time");
    assert_error("frame.time > \"Jul 4, 2020\"", "is not a valid absolute time");
    assert_error("frame.time > \"2020-07-04T\"", "is not a valid absolute time");
    assert_error("frame.time > 1593866096", "is not a valid absolute time");
    if (tz != NULL)
        setenv("TZ", tz, 1);
    else
        unsetenv("TZ");
    tzset();
    free(tz);
    tf.frame.ts_sec = sec;
    tf.frame.ts_nsec = nsec;
}

/* field#N: the values of one protocol layer. */
static void
test_layers(void **state)
{
    (void)state;
    assert_true(matches("vlan.id#1 == 10 && vlan.id#2 == 20"));
    assert_false(matches("vlan.id#1 == 20"));
    assert_true(matches("vlan.id#[1-2] == 20 && count(vlan.id#2) == 1"));
    assert_true(matches("ip.src#1 == 10.0.0.1"));
    assert_false(matches("ip.src#2"));
    assert_false(matches("udp.port#0"));
    assert_error("udp.port# 1", "at position 10: expected a digit or '[' right after '#'");
}

/* ${field} names the frame selected in Wireshark's GUI: tshark has none, no value. */
static void
test_references(void **state)
{
    (void)state;
    assert_false(matches("udp.dstport == ${udp.dstport}"));
    assert_true(matches("!(udp.dstport == ${udp.srcport})"));
    assert_error("udp.dstport == ${nosuch}", "a reference ${...} names a field");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presence_and_operators),
        cmocka_unit_test(test_value_name_aliases),
        cmocka_unit_test(test_precedence_and_grouping),
        cmocka_unit_test(test_literals),
        cmocka_unit_test(test_repeated_and_absent_fields),
        cmocka_unit_test(test_errors_name_the_position),
        cmocka_unit_test(test_uses),
        cmocka_unit_test(test_nesting_depth_is_bounded),
        cmocka_unit_test(test_runs_of_not),
        cmocka_unit_test(test_long_chains),
        cmocka_unit_test(test_time_literals),
        cmocka_unit_test(test_slices),
        cmocka_unit_test(test_functions),
        cmocka_unit_test(test_matches),
        cmocka_unit_test(test_field_to_field),
        cmocka_unit_test(test_feature_errors),
        cmocka_unit_test(test_arithmetic),
        cmocka_unit_test(test_bitwise_and),
        cmocka_unit_test(test_quantifiers),
        cmocka_unit_test(test_protocol_extent),
        cmocka_unit_test(test_literal_forms),
        cmocka_unit_test(test_absolute_time),
        cmocka_unit_test(test_layers),
        cmocka_unit_test(test_references),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
