/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_stats_format.c - the byte counts of the conversation tables, as Wireshark 4.0's
 * format_size() writes them (values checked against tshark -z conv output): the bytes
 * under 10000, else whole kB, MB, GB or TB of 1000, rounded down, at least ten of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/dissectors/stats.h>

static void
test_sizes(void **state)
{
    static const struct {
        uint64_t bytes;
        const char *text;
    } cases[] = {
        {0, "0 bytes"},
        {54, "54 bytes"},
        {1267, "1267 bytes"},
        {9291, "9291 bytes"},
        {9999, "9999 bytes"},
        {10000, "10 kB"},
        {10999, "10 kB"},
        {18634, "18 kB"},
        {114858, "114 kB"},
        {999999, "999 kB"},
        {1000000, "1000 kB"},
        {9999999, "9999 kB"},
        {10000000, "10 MB"},
        {36636000, "36 MB"},
        {9999999999ull, "9999 MB"},
        {10000000000ull, "10 GB"},
        {10000000000000ull, "10 TB"},
        {123456789012345678ull, "123456 TB"},
        {UINT64_MAX, "18446744 TB"},
    };
    char buf[32];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = rs_stats_format_size(cases[i].bytes, buf, sizeof(buf));
        assert_string_equal(buf, cases[i].text);
        assert_int_equal(n, strlen(cases[i].text));
    }
}

/* A buffer too small: cut, terminated, and the length it needed, as snprintf(). */
static void
test_short_buffer(void **state)
{
    char buf[4];

    (void)state;
    assert_int_equal(rs_stats_format_size(18634, buf, sizeof(buf)), 5);
    assert_string_equal(buf, "18 ");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_short_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
