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

#include <roceshark/filter.h>

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
    char err[RS_ERRBUF_SIZE];
    struct rs_filter *f = NULL;

    if (rs_filter_compile(text, &f, err) != 0) {
        fail_msg("'%s' did not compile: %s", text, err);
        return false;
    }
    bool m = rs_filter_match(f, &pkt);
    rs_filter_free(f);
    return m;
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
    assert_true(matches("infiniband.bth.a == 1 && infiniband.bth.se == False"));
    assert_true(matches("infiniband.bth.opcode in {4 10 11}"));
    assert_true(matches("infiniband.bth.opcode in {0..9, 10}"));
    assert_false(matches("infiniband.bth.opcode in {0..9 11..20}"));
    assert_true(matches("roceshark.payload contains \"wrote\""));
    assert_true(matches("roceshark.payload contains 72:6f:63"));
    assert_false(matches("roceshark.payload contains \"read\""));
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
    assert_error("infiniband.bth.nosuch == 1", "at position 1: unknown field 'infiniband.bth.nosuch'");
    assert_error("infiniband.bth && infiniband.bth.nosuch", "at position 19: unknown field");
    assert_error("infiniband.bth.psn ==", "at position 22: expected a value");
    assert_error("infiniband.bth.psn == abc", "at position 23: 'abc' is not a number");
    assert_error("infiniband.bth.opcode == 300", "300 does not fit");
    assert_error("ip.src == 1.2.3", "not an IPv4 address");
    assert_error("ip.src == 1.2.3.4/40", "bad prefix length");
    assert_error("eth.src == 52:54", "not a MAC address");
    assert_error("(infiniband.bth", "at position 1: '(' is never closed");
    assert_error("infiniband.bth)", "at position 15: unexpected ')'");
    assert_error("infiniband.bth infiniband.reth", "at position 16: expected && or ||");
    assert_error("infiniband.bth.opcode in {1 2", "missing '}'");
    assert_error("infiniband.bth.opcode in 1", "expected '{'");
    assert_error("roceshark.encap == \"rocev2", "unterminated string");
    assert_error("infiniband == 1", "protocol");
    assert_error("", "expected a field");
    assert_error("infiniband.bth.psn == 1 &&", "expected a field");
    assert_error("infiniband.bth.psn # 1", "unexpected character '#'");
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

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presence_and_operators),
        cmocka_unit_test(test_precedence_and_grouping),
        cmocka_unit_test(test_literals),
        cmocka_unit_test(test_repeated_and_absent_fields),
        cmocka_unit_test(test_errors_name_the_position),
        cmocka_unit_test(test_uses),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
