/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_filter.c - the default capture filter, compiled by libpcap and run
 * over frames: RoCEv2 by destination port, RoCEv1, iWARP ports, with no
 * tag, one tag and two, and nothing else.
 */
#include <pcap/pcap.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/wire.h>

#include "testutil.h"

struct frame_case {
    const char *what;
    int tags;               /* 0, 1 (802.1Q) or 2 (802.1ad + 802.1Q) */
    uint16_t ethertype;
    uint8_t proto;          /* 17 UDP, 6 TCP, 0 none */
    uint16_t sport, dport;
    bool ipv6;
    bool match;
};

static size_t
build(const struct frame_case *c, uint8_t *f)
{
    size_t n = 12;

    memset(f, 0, 128);
    memcpy(f, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01", 12);
    if (c->tags == 2) {
        rs_store_be16(f + n, 0x88a8), rs_store_be16(f + n + 2, 200), n += 4;
    }
    if (c->tags >= 1) {
        rs_store_be16(f + n, 0x8100), rs_store_be16(f + n + 2, 100), n += 4;
    }
    rs_store_be16(f + n, c->ethertype);
    n += 2;
    if (c->ethertype == 0x0800) {
        f[n] = 0x45;
        rs_store_be16(f + n + 2, 60);
        f[n + 8] = 64;
        f[n + 9] = c->proto;
        n += 20;
    } else if (c->ethertype == 0x86dd) {
        f[n] = 0x60;
        rs_store_be16(f + n + 4, 40);
        f[n + 6] = c->proto;
        f[n + 7] = 64;
        n += 40;
    }
    if (c->proto != 0) {
        rs_store_be16(f + n, c->sport);
        rs_store_be16(f + n + 2, c->dport);
        if (c->proto == 6)
            f[n + 12] = 0x50;
        n += 20;
    }
    return n + 24;
}

static void
test_default_filter(void **state)
{
    static const struct frame_case cases[] = {
        {"RoCEv2", 0, 0x0800, 17, 50000, 4791, false, true},
        {"RoCEv2 over IPv6", 0, 0x86dd, 17, 50000, 4791, true, true},
        {"RoCEv2 tagged", 1, 0x0800, 17, 50000, 4791, false, true},
        {"RoCEv2 double tagged", 2, 0x0800, 17, 50000, 4791, false, true},
        {"RoCEv2 on an extra port", 0, 0x0800, 17, 50000, 4792, false, true},
        {"RoCEv2 extra port tagged", 1, 0x0800, 17, 50000, 4792, false, true},
        {"RoCEv1", 0, 0x8915, 0, 0, 0, false, true},
        {"RoCEv1 tagged", 1, 0x8915, 0, 0, 0, false, true},
        {"RoCEv1 double tagged", 2, 0x8915, 0, 0, 0, false, true},
        {"iWARP", 0, 0x0800, 6, 40000, 4420, false, true},
        {"iWARP from the port", 0, 0x0800, 6, 4420, 40000, false, true},
        {"iWARP tagged", 1, 0x0800, 6, 40000, 4420, false, true},
        {"UDP from 4791", 0, 0x0800, 17, 4791, 53, false, false},
        {"DNS", 0, 0x0800, 17, 40000, 53, false, false},
        {"DNS tagged", 1, 0x0800, 17, 40000, 53, false, false},
        {"DNS double tagged", 2, 0x0800, 17, 40000, 53, false, false},
        {"HTTP", 0, 0x0800, 6, 40000, 80, false, false},
        {"HTTP tagged", 1, 0x0800, 6, 40000, 80, false, false},
        {"ARP", 0, 0x0806, 0, 0, 0, false, false},
        {"ARP tagged", 1, 0x0806, 0, 0, 0, false, false},
    };
    const uint16_t roce[] = {4792}, iwarp[] = {4420};
    struct rs_live_opts opts = {.roce_ports = roce, .n_roce_ports = 1,
                                .iwarp_ports = iwarp, .n_iwarp_ports = 1};
    char expr[2048], err[RS_ERRBUF_SIZE];
    struct bpf_program prog;
    uint8_t f[256];

    (void)state;
    assert_int_equal(rs_capture_default_filter(&opts, DLT_EN10MB, expr, sizeof(expr), err), 0);
    pcap_t *dead = pcap_open_dead(DLT_EN10MB, 262144);
    assert_non_null(dead);
    if (pcap_compile(dead, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0)
        fail_msg("%s: %s", expr, pcap_geterr(dead));
    for (size_t i = 0; i < RS_ARRAY_SIZE(cases); i++) {
        struct pcap_pkthdr h = {0};
        h.caplen = h.len = (bpf_u_int32)build(&cases[i], f);
        bool got = pcap_offline_filter(&prog, &h, f) != 0;
        if (got != cases[i].match)
            fail_msg("%s: %s", cases[i].what, got ? "kept" : "dropped");
    }
    pcap_freecode(&prog);
    pcap_close(dead);
    /* Too many ports for the buffer: an error, not a cut filter. */
    assert_int_equal(rs_capture_default_filter(&opts, DLT_EN10MB, expr, 40, err), RS_EINVAL);
    /* Linux cooked (what `-i any` gives): no vlan terms, and libpcap compiles it. */
    assert_int_equal(rs_capture_default_filter(&opts, DLT_LINUX_SLL, expr, sizeof(expr), err),
                     0);
    assert_null(strstr(expr, "vlan"));
    assert_non_null(strstr(expr, "udp dst port 4791"));
    dead = pcap_open_dead(DLT_LINUX_SLL, 262144);
    assert_non_null(dead);
    if (pcap_compile(dead, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) != 0)
        fail_msg("%s: %s", expr, pcap_geterr(dead));
    pcap_freecode(&prog);
    pcap_close(dead);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
