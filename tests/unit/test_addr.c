/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_addr.c - endpoint addresses: text, scopes, ports, IPv4 mapping and sockaddrs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include <roceshark/addr.h>
#include <roceshark/common.h>

static const uint8_t mapped_10_0_0_1[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
                                            10, 0, 0, 1};

static void
test_parse(void **state)
{
    uint8_t gid[16];
    uint32_t scope = 99;
    uint16_t port;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    /* Dotted IPv4 and perftest's IPv4-mapped GID are the same endpoint. */
    assert_int_equal(rs_addr_parse("10.0.0.1", gid, &scope, err), 0);
    assert_memory_equal(gid, mapped_10_0_0_1, 16);
    assert_int_equal(scope, 0);
    assert_true(rs_addr_is_v4mapped(gid));
    assert_int_equal(rs_addr_family(gid), 4);
    assert_int_equal(rs_addr_parse("::ffff:10.0.0.1", gid, NULL, err), 0);
    assert_memory_equal(gid, mapped_10_0_0_1, 16);
    assert_int_equal(rs_addr_parse("::1", gid, &scope, err), 0);
    assert_int_equal(gid[15], 1);
    assert_false(rs_addr_is_v4mapped(gid));
    assert_int_equal(rs_addr_family(gid), 6);
    assert_false(rs_addr_is_link_local(gid));
    /* Link-local: a scope by name or number, and required where a scope is taken. */
    assert_int_equal(rs_addr_parse("fe80::1%lo", gid, &scope, err), 0);
    assert_true(rs_addr_is_link_local(gid));
    assert_int_equal(scope, 1);
    assert_int_equal(rs_addr_parse("fe80::1%1", gid, &scope, err), 0);
    assert_int_equal(scope, 1);
    assert_int_equal(rs_addr_parse("fe80::1", gid, NULL, err), 0);     /* a peer's */
    assert_int_equal(rs_addr_parse("fe80::1", gid, &scope, err), RS_EINVAL);
    assert_string_equal(err, "fe80::1: a link-local address needs a scope (fe80::1%eth0)");
    assert_int_equal(rs_addr_parse("fe80::1%nosuch0", gid, &scope, err), RS_EINVAL);
    assert_string_equal(err, "fe80::1%nosuch0: no interface named nosuch0");
    assert_int_equal(rs_addr_parse("fe80::1%", gid, &scope, err), RS_EINVAL);
    assert_int_equal(rs_addr_parse("fe80::1%lo", gid, NULL, err), RS_EINVAL);
    assert_int_equal(rs_addr_parse("2001:db8::1%lo", gid, &scope, err), RS_EINVAL);
    assert_string_equal(err, "2001:db8::1%lo: a scope (%...) is for link-local addresses only");
    /* Hostile text. */
    assert_int_equal(rs_addr_parse("", gid, &scope, err), RS_EINVAL);
    assert_string_equal(err, ": expected an IPv4 or IPv6 address");
    assert_int_equal(rs_addr_parse("1.2.3", gid, &scope, err), RS_EINVAL);
    assert_int_equal(rs_addr_parse("::1::2", gid, &scope, err), RS_EINVAL);
    assert_int_equal(rs_addr_parse("fe80::1%lo%lo", gid, &scope, err), RS_EINVAL);
    /* What the input holds is quoted on one line (it may come from a peer). */
    assert_int_equal(rs_addr_parse("\n1.2\x01", gid, &scope, err), RS_EINVAL);
    assert_string_equal(err, "?1.2?: expected an IPv4 or IPv6 address");
    assert_int_equal(rs_addr_parse_port("1.2.3.4:5\n", gid, &scope, &port, err), RS_EINVAL);
    assert_null(strchr(err, '\n'));
    char longtext[300];
    memset(longtext, '1', sizeof(longtext) - 1);
    longtext[sizeof(longtext) - 1] = '\0';
    assert_int_equal(rs_addr_parse(longtext, gid, &scope, err), RS_EINVAL);
}

static void
test_parse_port(void **state)
{
    uint8_t gid[16];
    uint32_t scope;
    uint16_t port = 7;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    assert_int_equal(rs_addr_parse_port("10.0.0.1", gid, &scope, &port, err), 0);
    assert_int_equal(port, 7);          /* none given: left alone */
    assert_int_equal(rs_addr_parse_port("10.0.0.1:18515", gid, &scope, &port, err), 0);
    assert_memory_equal(gid, mapped_10_0_0_1, 16);
    assert_int_equal(port, 18515);
    assert_int_equal(rs_addr_parse_port("::1", gid, &scope, &port, err), 0);
    assert_int_equal(port, 18515);
    assert_int_equal(rs_addr_parse_port("[::1]:9", gid, &scope, &port, err), 0);
    assert_int_equal(port, 9);
    assert_int_equal(rs_addr_parse_port("[fe80::2%lo]:10", gid, &scope, &port, err), 0);
    assert_int_equal(scope, 1);
    assert_int_equal(gid[15], 2);
    assert_int_equal(port, 10);
    assert_int_equal(rs_addr_parse_port("[::ffff:10.0.0.1]", gid, &scope, &port, err), 0);
    assert_memory_equal(gid, mapped_10_0_0_1, 16);
    assert_int_equal(rs_addr_parse_port("[::1]x", gid, &scope, &port, err), RS_EINVAL);
    assert_int_equal(rs_addr_parse_port("[::1", gid, &scope, &port, err), RS_EINVAL);
    assert_int_equal(rs_addr_parse_port("[::1]:", gid, &scope, &port, err), RS_EINVAL);
    assert_int_equal(rs_addr_parse_port("[::1]:65536", gid, &scope, &port, err), RS_EINVAL);
    assert_string_equal(err, "[::1]:65536: expected a port, 1..65535, after ':'");
    assert_int_equal(rs_addr_parse_port("10.0.0.1:-1", gid, &scope, &port, err), RS_EINVAL);
    assert_int_equal(rs_addr_parse_port("10.0.0.1:0", gid, &scope, &port, err), RS_EINVAL);
}

static void
test_format_and_sockaddr(void **state)
{
    uint8_t gid[16], back[16];
    uint32_t scope;
    uint16_t port;
    char buf[RS_ADDR_TEXT_MAX];
    struct sockaddr_storage ss;

    (void)state;
    assert_string_equal(rs_addr_format(mapped_10_0_0_1, 0, buf, sizeof(buf)), "10.0.0.1");
    assert_string_equal(rs_addr_format_port(mapped_10_0_0_1, 0, 4791, buf, sizeof(buf)),
                        "10.0.0.1:4791");
    assert_int_equal(rs_addr_to_sockaddr(mapped_10_0_0_1, 0, 4791, &ss),
                     sizeof(struct sockaddr_in));
    assert_int_equal(ss.ss_family, AF_INET);        /* IPv4 stays IPv4 on the wire */
    assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), 4791);
    assert_true(rs_addr_from_sockaddr((struct sockaddr *)&ss, back, &scope, &port));
    assert_memory_equal(back, mapped_10_0_0_1, 16);
    assert_int_equal(port, 4791);

    assert_int_equal(rs_addr_parse("fe80::1:2%lo", gid, &scope, NULL), 0);
    assert_string_equal(rs_addr_format(gid, scope, buf, sizeof(buf)), "fe80::1:2%lo");
    assert_string_equal(rs_addr_format(gid, 0, buf, sizeof(buf)), "fe80::1:2");
    assert_string_equal(rs_addr_format_port(gid, scope, 18515, buf, sizeof(buf)),
                        "[fe80::1:2%lo]:18515");
    assert_int_equal(rs_addr_to_sockaddr(gid, scope, 18515, &ss), sizeof(struct sockaddr_in6));
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    assert_int_equal(a6->sin6_family, AF_INET6);
    assert_int_equal(a6->sin6_scope_id, 1);
    assert_int_equal(ntohs(a6->sin6_port), 18515);
    assert_true(rs_addr_from_sockaddr((struct sockaddr *)&ss, back, &scope, NULL));
    assert_memory_equal(back, gid, 16);
    assert_int_equal(scope, 1);
    ss.ss_family = AF_UNIX;
    assert_false(rs_addr_from_sockaddr((struct sockaddr *)&ss, back, NULL, NULL));
    /* An interface index without a name is printed as the number. */
    assert_string_equal(rs_addr_format(gid, 999999, buf, sizeof(buf)), "fe80::1:2%999999");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_port),
        cmocka_unit_test(test_format_and_sockaddr),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
