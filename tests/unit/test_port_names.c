/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_port_names.c - port names from services files as tshark's -N t reads them: TCP and
 * UDP apart, port ranges, a later line winning, the personal file after the global one,
 * comments and bad lines skipped; and the texts Info and the trees write with -N t on and
 * off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/port_names.h>

static char dir[] = "/tmp/test_port_names.XXXXXX";

static void
write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The files are read once for the process: both are in place before the first look-up. */
static int
setup(void **state)
{
    char path[256];

    (void)state;
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(path, sizeof(path), "%s/services", dir);
    write_file(path, "# Wireshark's services\n"
                     "italk\t\t12345/tcp/udp\t# Italk Chat System\n"
                     "roce\t\t4791/udp\t# IP Routable RocE\n"
                     "old\t\t7000/tcp\n"
                     "new\t\t7000/tcp\t# a later line for the port wins\n"
                     "span\t\t100-102/sctp/udp\n"
                     "broken\t\tx/tcp\n"
                     "nolabel\t\t99999/tcp\n"
                     "noproto\t\t8000\n");
    snprintf(path, sizeof(path), "%s/.config", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/.config/wireshark", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/.config/wireshark/services", dir);
    write_file(path, "mine 12345/tcp\n");
    setenv("WIRESHARK_DATA_DIR", dir, 1);
    setenv("HOME", dir, 1);
    return 0;
}

static int
teardown(void **state)
{
    char cmd[300];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void
test_names(void **state)
{
    (void)state;
    assert_string_equal(rs_port_name(true, 12345), "mine");     /* the personal file's */
    assert_string_equal(rs_port_name(false, 12345), "italk");
    assert_string_equal(rs_port_name(false, 4791), "roce");
    assert_null(rs_port_name(true, 4791));                      /* UDP's only */
    assert_string_equal(rs_port_name(true, 7000), "new");
    for (uint16_t p = 100; p <= 102; p++)
        assert_string_equal(rs_port_name(false, p), "span");
    assert_null(rs_port_name(false, 103));
    assert_null(rs_port_name(true, 100));                       /* sctp is not tcp */
    assert_null(rs_port_name(true, 8000));
    assert_null(rs_port_name(true, 0));
    assert_null(rs_port_name(true, 65535));
}

static void
test_texts(void **state)
{
    struct rs_display d = *rs_display_get(), off = d;
    char buf[RS_PORT_TEXT_MAX];

    (void)state;
    d.resolve_transport = true;
    rs_display_set(&d);
    rs_port_info(false, 4791, buf, sizeof(buf));
    assert_string_equal(buf, "roce(4791)");
    rs_port_info(true, 57172, buf, sizeof(buf));
    assert_string_equal(buf, "57172");
    rs_port_tree(false, 12345, buf, sizeof(buf));
    assert_string_equal(buf, "italk (12345)");
    rs_port_tree(true, 57172, buf, sizeof(buf));
    assert_string_equal(buf, "57172 (57172)");
    off.resolve_transport = false;
    rs_display_set(&off);
    rs_port_info(false, 4791, buf, sizeof(buf));
    assert_string_equal(buf, "4791");
    rs_port_tree(false, 12345, buf, sizeof(buf));
    assert_string_equal(buf, "12345");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_texts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
