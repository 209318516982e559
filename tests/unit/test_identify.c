/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_identify.c - protocols named without being dissected: by port (the lower one
 * first), TLS by a whole record, HTTP by a whole message, LLC/STP, an Ethertype, an IP
 * protocol; their place in frame.protocols, and every protocol tshark knows as a filter
 * term (true only where identified; a name tshark does not know stays an error).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <roceshark/dissectors/filter.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/identify.h>
#include <roceshark/dissectors/print.h>

#include "testutil.h"

static struct test_frame tf;
static struct rs_packet pkt;

static const uint8_t macs[12] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};

/* Ethernet, IPv4 (10.0.0.1 -> 10.0.0.2) with protocol proto, and for UDP and TCP their
 * header with ports sport -> dport; then the payload. */
static void
build_ip(uint8_t proto, uint16_t sport, uint16_t dport, const void *payload, size_t n)
{
    uint8_t *b = tf.bytes;
    size_t l4 = proto == 17 ? 8 : proto == 6 ? 20 : 0, len = 20 + l4 + n;

    memset(b, 0, 14 + len);
    memcpy(b, macs, 12);
    b[12] = 0x08;
    b[14] = 0x45;
    b[16] = (uint8_t)(len >> 8);
    b[17] = (uint8_t)len;
    b[22] = 64;
    b[23] = proto;
    memcpy(b + 26, (const uint8_t[]){10, 0, 0, 1, 10, 0, 0, 2}, 8);
    uint8_t *h = b + 34;
    if (l4 != 0) {
        h[0] = (uint8_t)(sport >> 8);
        h[1] = (uint8_t)sport;
        h[2] = (uint8_t)(dport >> 8);
        h[3] = (uint8_t)dport;
    }
    if (proto == 17) {
        h[4] = (uint8_t)((8 + n) >> 8);
        h[5] = (uint8_t)(8 + n);
    } else if (proto == 6) {
        h[12] = 0x50;
        h[13] = 0x18;   /* PSH, ACK */
        h[14] = 0xff;
    }
    memcpy(h + l4, payload, n);
    tf.frame = (struct rs_frame){0};
    tf.frame.data = tf.bytes;
    tf.frame.caplen = tf.frame.len = (uint32_t)(14 + len);
    tf.frame.linktype = RS_DLT_EN10MB;
    tf.frame.number = 1;
    tf.frame.ts_digits = 6;
    test_decode(&tf.frame, &pkt);
}

/* An Ethernet frame of the given type or length field and payload. */
static void
build_link(uint16_t type, const void *payload, size_t n)
{
    memset(tf.bytes, 0, 14 + n);
    memcpy(tf.bytes, macs, 12);
    tf.bytes[12] = (uint8_t)(type >> 8);
    tf.bytes[13] = (uint8_t)type;
    memcpy(tf.bytes + 14, payload, n);
    tf.frame = (struct rs_frame){0};
    tf.frame.data = tf.bytes;
    tf.frame.caplen = tf.frame.len = (uint32_t)(14 + n);
    tf.frame.linktype = RS_DLT_EN10MB;
    tf.frame.number = 1;
    test_decode(&tf.frame, &pkt);
}

static const char *
protocols(void)
{
    static char buf[256];

    rs_print_protocols(&pkt, buf, sizeof(buf));
    return buf;
}

static const char *
named(void)
{
    const struct rs_ident_protocol *p = rs_ident_protocol(&pkt);
    return p != NULL ? p->abbrev : "-";
}

static bool
matches(const char *text)
{
    return test_filter_matches(text, &pkt);
}

static void
test_ports(void **state)
{
    (void)state;
    build_ip(17, 40000, 53, "\x12\x34\x01\x00", 4);
    assert_string_equal(named(), "dns");
    assert_string_equal(protocols(), "eth:ethertype:ip:udp:dns");
    /* the lower port first: 53 -> 123 is DNS, as Wireshark tries it */
    build_ip(17, 123, 53, "x", 1);
    assert_string_equal(named(), "dns");
    build_ip(17, 5353, 5353, "x", 1);
    assert_string_equal(protocols(), "eth:ethertype:ip:udp:mdns");
    /* no payload: nothing to hand on */
    build_ip(17, 40000, 53, "", 0);
    assert_string_equal(named(), "-");
    assert_string_equal(protocols(), "eth:ethertype:ip:udp");
    /* a port only TCP registers */
    build_ip(17, 40000, 22, "x", 1);
    assert_string_equal(protocols(), "eth:ethertype:ip:udp:data");
    build_ip(6, 40000, 22, "SSH-2.0-x\r\n", 11);
    assert_string_equal(protocols(), "eth:ethertype:ip:tcp:ssh");
}

static void
test_tls_and_http(void **state)
{
    static const char get[] = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    static const char post_head[] = "POST /v2 HTTP/1.1\r\nContent-Length: 10\r\n\r\n";
    static const char post_whole[] = "POST /v2 HTTP/1.1\r\ncontent-length: 4\r\n\r\nabcd";
    static const uint8_t record[] = {23, 3, 3, 0, 3, 'a', 'b', 'c'};
    const uint8_t *d;
    uint32_t n;

    (void)state;
    /* a whole TLS record, on any port: TLS takes its bytes, data none */
    build_ip(6, 46838, 2000, record, sizeof(record));
    assert_string_equal(protocols(), "eth:ethertype:ip:tcp:tls");
    assert_false(rs_packet_data(&pkt, 0, &d, &n));
    assert_false(matches("data"));
    /* a record that goes on in the next segment: TCP keeps it */
    build_ip(6, 46838, 443, record, sizeof(record) - 1);
    assert_string_equal(protocols(), "eth:ethertype:ip:tcp:data");
    assert_true(matches("data"));
    build_ip(6, 40000, 80, get, sizeof(get) - 1);
    assert_string_equal(protocols(), "eth:ethertype:ip:tcp:http");
    assert_false(matches("data"));
    /* a body announced and not all here; then one that is */
    build_ip(6, 40000, 80, post_head, sizeof(post_head) - 1);
    assert_string_equal(named(), "-");
    build_ip(6, 40000, 80, post_whole, sizeof(post_whole) - 1);
    assert_string_equal(named(), "http");
    /* headers not ended */
    build_ip(6, 40000, 80, get, 16);
    assert_string_equal(named(), "-");
    /* HTTP's port with other bytes */
    build_ip(6, 40000, 8080, "hello", 5);
    assert_string_equal(named(), "-");
    assert_true(matches("data.len == 5"));
}

static void
test_link_and_ip(void **state)
{
    static const uint8_t bpdu[] = {0x42, 0x42, 0x03, 0, 0, 0, 0};
    static const uint8_t other_llc[] = {0xe0, 0xe0, 0x03, 1};

    (void)state;
    build_link(sizeof(bpdu), bpdu, sizeof(bpdu));
    assert_string_equal(protocols(), "eth:llc:stp");
    assert_true(matches("stp && llc && eth"));
    build_link(sizeof(other_llc), other_llc, sizeof(other_llc));
    assert_string_equal(protocols(), "eth:llc");
    assert_true(matches("llc && !stp"));
    build_link(0x88cc, "\x02\x07", 2);
    assert_string_equal(protocols(), "eth:ethertype:lldp");
    assert_false(matches("llc"));
    build_ip(2, 0, 0, "\x16\x00\x00\x00\xe0\x00\x00\xfb", 8);
    assert_string_equal(protocols(), "eth:ethertype:ip:igmp");
    assert_true(matches("igmp && ip.proto == 2"));
}

static void
test_filter_terms(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_filter *f = NULL;

    (void)state;
    build_ip(17, 40000, 53, "\x12\x34\x01\x00", 4);
    assert_true(matches("dns"));
    assert_false(matches("!(arp || dns || icmp)"));
    assert_false(matches("tls || http || mdns"));
    /* protocols tshark knows that we neither dissect nor identify: valid, never true */
    assert_false(matches("x509sat || smb2 || quic"));
    assert_true(matches("!quic && udp"));
    assert_false(matches("quic#1"));
    assert_false(matches("count(quic) == 0"));
    build_ip(6, 46838, 2000, "\x17\x03\x03\x00\x01x", 6);
    assert_true(matches("!(arp || dns || icmp)"));
    assert_true(matches("tls && tcp.port == 2000"));
    /* a name tshark does not know is still an error */
    assert_int_equal(rs_filter_compile("nosuchproto", &f, err), RS_EINVAL);
    assert_non_null(strstr(err, "unknown field 'nosuchproto'"));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ports),
        cmocka_unit_test(test_tls_and_http),
        cmocka_unit_test(test_link_and_ip),
        cmocka_unit_test(test_filter_terms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
