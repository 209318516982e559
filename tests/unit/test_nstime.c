/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_nstime.c - struct rs_time: normalising, comparing, adding and
 * subtracting without overflow (saturating at the ends), conversions, and
 * the text every printer shows, down to the extreme values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/dissectors/nstime.h>

#define NS RS_NSEC_PER_SEC

static void
assert_time(struct rs_time t, int64_t sec, int32_t nsec)
{
    if (t.sec != sec || t.nsec != nsec)
        fail_msg("got {%lld, %d}, want {%lld, %d}", (long long)t.sec, t.nsec, (long long)sec,
                 nsec);
}

static const char *
text(struct rs_time t, unsigned digits)
{
    static char buf[RS_TIME_TEXT_MAX + 1];

    size_t n = rs_time_format(t, digits, buf);

    assert_int_equal(n, strlen(buf));
    return buf;
}

static void
test_make_normalises(void **state)
{
    (void)state;
    assert_time(rs_time_make(5, 0), 5, 0);
    /* A pcap record's 4294967295 microseconds, as nanoseconds. */
    assert_time(rs_time_make(5, 4294967295000ll), 4299, 967295000);
    assert_time(rs_time_make(0, -1), -1, NS - 1);
    assert_time(rs_time_make(0, -NS), -1, 0);
    assert_time(rs_time_make(2, -NS - 1), 0, NS - 1);
    assert_time(rs_time_make(INT64_MAX, NS - 1), INT64_MAX, NS - 1);
    assert_time(rs_time_make(INT64_MAX, NS), INT64_MAX, NS - 1);       /* saturated */
    assert_time(rs_time_make(INT64_MIN, -1), INT64_MIN, 0);            /* saturated */
    assert_time(rs_time_make(INT64_MIN, 0), INT64_MIN, 0);
    assert_time(rs_time_from_ns(-20), -1, NS - 20);
    assert_time(rs_time_from_ns(INT64_MIN), -9223372037, 145224192);
    assert_time(rs_time_from_ns(INT64_MAX), 9223372036, 854775807);
}

static void
test_compare(void **state)
{
    (void)state;
    assert_int_equal(rs_time_cmp((struct rs_time){1, 5}, (struct rs_time){1, 5}), 0);
    assert_int_equal(rs_time_cmp((struct rs_time){1, 5}, (struct rs_time){1, 6}), -1);
    assert_int_equal(rs_time_cmp((struct rs_time){2, 0}, (struct rs_time){1, NS - 1}), 1);
    /* -0.5 s < -0.25 s: {-1, 500000000} < {-1, 750000000}. */
    assert_int_equal(rs_time_cmp(rs_time_from_ns(-500000000), rs_time_from_ns(-250000000)), -1);
    assert_int_equal(rs_time_cmp(RS_TIME_MIN, RS_TIME_MAX), -1);
    assert_true(rs_time_is_negative(rs_time_from_ns(-1)));
    assert_false(rs_time_is_negative(RS_TIME_ZERO));
}

static void
test_add(void **state)
{
    (void)state;
    assert_time(rs_time_add((struct rs_time){1, 600000000}, (struct rs_time){2, 500000000}), 4,
                100000000);
    assert_time(rs_time_add(rs_time_from_ns(-1), rs_time_from_ns(1)), 0, 0);
    /* Sums in range never overflow on the way, even with a carry at the top. */
    assert_time(rs_time_add((struct rs_time){INT64_MAX - 1, 600000000},
                            (struct rs_time){0, 400000000}), INT64_MAX, 0);
    assert_time(rs_time_add((struct rs_time){INT64_MAX, 0}, (struct rs_time){-1, NS - 1}),
                INT64_MAX - 1, NS - 1);
    assert_time(rs_time_add((struct rs_time){INT64_MIN, 1}, (struct rs_time){INT64_MAX, 0}), -1,
                1);
    /* Out of range: saturated, never wrapped. */
    assert_time(rs_time_add(RS_TIME_MAX, (struct rs_time){0, 1}), INT64_MAX, NS - 1);
    assert_time(rs_time_add(RS_TIME_MAX, RS_TIME_MAX), INT64_MAX, NS - 1);
    assert_time(rs_time_add((struct rs_time){INT64_MAX, 600000000},
                            (struct rs_time){INT64_MAX, 600000000}), INT64_MAX, NS - 1);
    assert_time(rs_time_add(RS_TIME_MIN, rs_time_from_ns(-1)), INT64_MIN, 0);
    assert_time(rs_time_add(RS_TIME_MIN, RS_TIME_MIN), INT64_MIN, 0);
}

static void
test_sub(void **state)
{
    (void)state;
    /* The reproducer's frames: 10^10 s, then 1 s (a pcapng in seconds). */
    assert_time(rs_time_sub((struct rs_time){1, 0}, (struct rs_time){10000000000, 0}),
                -9999999999, 0);
    assert_time(rs_time_sub((struct rs_time){1, 100}, (struct rs_time){1, 200}), -1, NS - 100);
    assert_time(rs_time_sub(RS_TIME_ZERO, RS_TIME_MAX), INT64_MIN, 1);
    assert_time(rs_time_sub(RS_TIME_MAX, RS_TIME_ZERO), INT64_MAX, NS - 1);
    /* In range although a.sec - b.sec alone is not. */
    assert_time(rs_time_sub((struct rs_time){INT64_MAX, 0}, (struct rs_time){-1, 1}), INT64_MAX,
                NS - 1);
    assert_time(rs_time_sub((struct rs_time){INT64_MIN, 0}, (struct rs_time){0, 1}), INT64_MIN,
                0);     /* -2^63 - 1e-9: saturated */
    assert_time(rs_time_sub((struct rs_time){INT64_MIN, 5}, (struct rs_time){0, 3}), INT64_MIN,
                2);
    assert_time(rs_time_sub((struct rs_time){-1, 0}, (struct rs_time){INT64_MAX, 0}), INT64_MIN,
                0);
    /* Out of range: saturated. */
    assert_time(rs_time_sub(RS_TIME_MAX, RS_TIME_MIN), INT64_MAX, NS - 1);
    assert_time(rs_time_sub(RS_TIME_MIN, RS_TIME_MAX), INT64_MIN, 0);
    assert_time(rs_time_sub((struct rs_time){INT64_MIN, 0}, (struct rs_time){INT64_MAX, NS - 1}),
                INT64_MIN, 0);
    assert_time(rs_time_sub((struct rs_time){0, 0}, (struct rs_time){INT64_MIN, 0}), INT64_MAX,
                NS - 1);
}

static void
test_conversions(void **state)
{
    (void)state;
    assert_int_equal(rs_time_to_ns((struct rs_time){1, 5}), 1000000005);
    assert_int_equal(rs_time_to_ns(rs_time_from_ns(-20)), -20);
    assert_true(rs_time_to_ns(rs_time_from_ns(INT64_MIN)) == INT64_MIN);
    assert_true(rs_time_to_ns(rs_time_from_ns(INT64_MAX)) == INT64_MAX);
    /* -9223372036.000000001 s: its seconds times 1e9 alone would overflow. */
    assert_true(rs_time_to_ns((struct rs_time){-9223372037, NS - 1}) == -9223372036000000001ll);
    assert_true(rs_time_to_ns((struct rs_time){10000000000, 0}) == INT64_MAX);
    assert_true(rs_time_to_ns((struct rs_time){-10000000000, 0}) == INT64_MIN);
    assert_true(rs_time_to_ns(RS_TIME_MAX) == INT64_MAX);
    assert_true(rs_time_to_ns(RS_TIME_MIN) == INT64_MIN);
    assert_true(rs_time_to_double((struct rs_time){-1, 750000000}) == -0.25);
    assert_true(rs_time_to_double((struct rs_time){10000000000, 500000000}) == 10000000000.5);
}

static void
test_format(void **state)
{
    (void)state;
    assert_string_equal(text((struct rs_time){1, 500000001}, 9), "1.500000001");
    assert_string_equal(text(rs_time_from_ns(-20), 9), "-0.000000020");
    assert_string_equal(text(RS_TIME_ZERO, 9), "0.000000000");
    assert_string_equal(text(RS_TIME_ZERO, 0), "0");
    /* Wireshark truncates to the precision of the clock. */
    assert_string_equal(text((struct rs_time){1, 928710937}, 3), "1.928");
    assert_string_equal(text((struct rs_time){2, 333333000}, 6), "2.333333");
    assert_string_equal(text((struct rs_time){233333, 300000000}, 1), "233333.3");
    assert_string_equal(text((struct rs_time){-9999999999, 0}, 0), "-9999999999");
    assert_string_equal(text((struct rs_time){-2, 501000000}, 3), "-1.499");
    assert_string_equal(text(rs_time_from_ns(-1), 6), "-0.000000");
    assert_string_equal(text(rs_time_from_ns(-1), 12), "-0.000000001");
    assert_string_equal(text(RS_TIME_MAX, 9), "9223372036854775807.999999999");
    assert_string_equal(text(RS_TIME_MIN, 9), "-9223372036854775808.000000000");
    assert_string_equal(text((struct rs_time){INT64_MIN, 1}, 9),
                        "-9223372036854775807.999999999");
    assert_int_equal(strlen(text(RS_TIME_MIN, 9)), RS_TIME_TEXT_MAX);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_make_normalises),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_add),
        cmocka_unit_test(test_sub),
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
