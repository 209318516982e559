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

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/common.h>

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

/* rs_format_ipv6(addr) equals inet_ntop()'s text, and says so when not. */
static void
expect_like_inet_ntop6(const uint8_t addr[16])
{
    char want[INET6_ADDRSTRLEN], got[RS_IPV6_TEXT_MAX];

    assert_non_null(inet_ntop(AF_INET6, addr, want, sizeof(want)));
    size_t n = rs_format_ipv6(got, addr);
    if (strcmp(got, want) != 0)
        fail_msg("rs_format_ipv6 wrote \"%s\", inet_ntop \"%s\"", got, want);
    assert_int_equal(n, strlen(want));
}

/* Splitmix64: the same sequence on every run. */
static uint64_t
next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

    z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ z >> 27) * 0x94d049bb133111ebull;
    return z ^ z >> 31;
}

static void
test_format_ip_like_inet_ntop(void **state)
{
    (void)state;
    char want[INET_ADDRSTRLEN], got[RS_IPV4_TEXT_MAX];
    uint8_t a[16];
    uint64_t seed = 42;

    /* IPv4: every octet value in every place. */
    for (unsigned v = 0; v < 256; v++) {
        const uint8_t quads[][4] = {{(uint8_t)v, 0, 0, 0}, {1, (uint8_t)v, 2, 3},
                                    {255, 255, (uint8_t)v, 9}, {10, 99, 100, (uint8_t)v}};
        for (size_t i = 0; i < RS_ARRAY_SIZE(quads); i++) {
            inet_ntop(AF_INET, quads[i], want, sizeof(want));
            assert_int_equal(rs_format_ipv4(got, quads[i]), strlen(want));
            assert_string_equal(got, want);
        }
    }
    /* IPv6: every pattern of zero and non-zero groups (runs to compress, ties, a
     * lone zero, the IPv4-compatible and -mapped forms and their near misses), with
     * groups of one to four digits; then random addresses. */
    static const uint16_t values[] = {1, 0xffff, 0x0a, 0x1b2, 0xfe80, 0x2001};
    for (unsigned mask = 0; mask < 256; mask++) {
        for (size_t v = 0; v < RS_ARRAY_SIZE(values); v++) {
            for (int i = 0; i < 8; i++) {
                uint16_t g = mask >> i & 1 ? (uint16_t)(values[(v + (size_t)i) % 6]) : 0;
                a[2 * i] = (uint8_t)(g >> 8);
                a[2 * i + 1] = (uint8_t)g;
            }
            expect_like_inet_ntop6(a);
        }
    }
    static const uint8_t special[][16] = {
        {0},                                                        /* :: */
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},           /* ::1 */
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2},           /* ::2 */
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1},    /* ::ffff:10.0.0.1 */
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe, 10, 0, 0, 1},    /* not mapped */
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 10, 0, 0, 1},    /* not mapped */
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 192, 168, 1, 1},       /* ::192.168.1.1 */
        {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55},
    };
    for (size_t i = 0; i < RS_ARRAY_SIZE(special); i++)
        expect_like_inet_ntop6(special[i]);
    for (int n = 0; n < 200000; n++) {
        uint64_t r[2] = {next_random(&seed), next_random(&seed)};
        memcpy(a, r, sizeof(a));
        /* Zero some groups, so that runs of every length and place occur. */
        uint64_t zeros = next_random(&seed);
        for (int i = 0; i < 8; i++)
            if (zeros >> i & 1)
                a[2 * i] = a[2 * i + 1] = 0;
        expect_like_inet_ntop6(a);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_port),
        cmocka_unit_test(test_format_and_sockaddr),
        cmocka_unit_test(test_format_ip_like_inet_ntop),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
