/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_stats_format.c - the -z statistics table (which prefix takes what, and what each
 * asks of the pipeline), and the byte counts of the conversation tables, as Wireshark 4.0's
 * format_size() writes them (values checked against tshark -z conv output): the bytes
 * under 10000, else whole kB, MB, GB or TB of 1000, rounded down, at least ten of them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/print.h>
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

/* The -z table: each prefix with its arguments as its row says, and iwarp an ordinary row
 * that prints the stage it is given. */
static void
test_stat_table(void **state)
{
    static const struct {
        const char *spec;
        int rc;
        bool analysis, convs, crc;
    } cases[] = {
        {"conv,qp", 0, true, true, false},
        {"conv,qp,infiniband.bth.psn > 1", 0, true, true, false},
        {"conv,ip", 0, false, false, false},
        {"conv", RS_EINVAL, false, false, false},
        {"endpoints,udp,roceshark.icrc.status == 0", 0, false, false, true},
        {"expert", 0, true, false, true},
        {"expert,warn", 0, true, false, true},
        {"io,phs", 0, false, false, false},
        {"io,stat", RS_EINVAL, false, false, false},
        {"io,stat,1", 0, false, false, false},
        {"io,stat,1,roceshark.analysis.retransmission", 0, true, false, false},
        {"iwarp", 0, false, false, false},
        {"iwarp,x", RS_EINVAL, false, false, false},
        {"iwarpx", RS_EINVAL, false, false, false},
        {"nothing", RS_EINVAL, false, false, false},
    };
    char err[RS_ERRBUF_SIZE];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct rs_stat *st = NULL;
        int rc = rs_stat_new(cases[i].spec, &st, err);
        if (rc != cases[i].rc)
            fail_msg("%s: %d, expected %d", cases[i].spec, rc, cases[i].rc);
        if (rc != 0)
            continue;
        assert_int_equal(rs_stat_needs_analysis(st), cases[i].analysis);
        assert_int_equal(rs_stat_lists_conversations(st), cases[i].convs);
        assert_int_equal(rs_stat_needs_crc(st), cases[i].crc);
        rs_stat_free(st);
    }

    struct rs_iwarp_opts io;
    struct rs_iwarp *iw;
    struct rs_stat *st;
    struct rs_out o;
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    rs_iwarp_opts_init(&io);
    io.max_conns = 7;
    assert_int_equal(rs_iwarp_new(&io, &iw, err), 0);
    assert_int_equal(rs_stat_new("iwarp", &st, err), 0);
    assert_int_equal(rs_out_init(&o, fp, 4096), 0);
    struct rs_stat_stages at = {NULL, iw};
    rs_stat_print(st, &at, &o);
    rs_out_flush(&o);
    rs_out_free(&o);
    fclose(fp);
    assert_non_null(strstr(text, "Connections:                0 (0 evicted from the table of 7)"));
    free(text);
    rs_stat_free(st);
    rs_iwarp_free(iw);
}

/* io,stat takes as many columns as tshark is given (a table of hundreds of filters), and
 * its rows shrink as columns grow, rows times columns staying within 8 x 2^20; a filter on
 * a field of the streams stage asks for it. */
static void
test_io_columns(void **state)
{
    static const struct {
        unsigned columns;
        int rc;
        uint64_t rows;
    } cases[] = {
        {1, 0, 1u << 20}, {8, 0, 1u << 20}, {9, 0, (8u << 20) / 9}, {512, 0, 16384},
        {513, RS_EINVAL, 0},
    };
    char err[RS_ERRBUF_SIZE];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char spec[513 * 6 + 16] = "io,stat,1";
        struct rs_stat *st = NULL;
        for (unsigned c = 0; c < cases[i].columns; c++)
            strcat(spec, ",frame");
        int rc = rs_stat_new(spec, &st, err);
        if (rc != cases[i].rc)
            fail_msg("%u columns: %d, expected %d", cases[i].columns, rc, cases[i].rc);
        if (rc != 0)
            continue;
        assert_int_equal(rs_stat_rows_max(st), cases[i].rows);
        assert_false(rs_stat_needs_streams(st));
        rs_stat_free(st);
    }
    struct rs_stat *st = NULL;
    assert_int_equal(rs_stat_new("io,stat,0,udp.stream == 0", &st, err), 0);
    assert_true(rs_stat_needs_streams(st));
    rs_stat_free(st);
    assert_int_equal(rs_stat_new("conv,udp,tcp.stream == 1", &st, err), 0);
    assert_true(rs_stat_needs_streams(st));
    assert_int_equal(rs_stat_rows_max(st), 0);
    rs_stat_free(st);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_short_buffer),
        cmocka_unit_test(test_stat_table),
        cmocka_unit_test(test_io_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
