/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_streams.c - TCP and UDP conversations as Wireshark numbers them:
 * indexes per protocol, relative numbers with and without the handshake,
 * a reused port, window scaling, and the bound with its evictions; ICMP
 * echo replies matched to their requests, within their own bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/streams.h>
#include <roceshark/dissectors/wire.h>

#include "testutil.h"

#define SYN 0x02
#define ACK 0x10
#define FIN 0x01
#define PSH 0x08

/* Ethernet, IPv4 10.0.0.SRC -> 10.0.0.DST, then TCP (proto 6) or UDP (17)
 * with len payload octets; a SYN carries the window scale option when
 * wscale >= 0. */
struct seg {
    uint8_t src, dst;
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;
    int wscale;
    uint16_t window, len;
};

static void
build(struct test_frame *tf, uint8_t proto, const struct seg *s)
{
    uint8_t *b = tf->bytes;
    uint32_t l4 = proto == 6 ? (s->wscale >= 0 ? 24u : 20u) : 8u;
    uint32_t ip_len = 20 + l4 + s->len;

    memset(tf, 0, sizeof(*tf));
    memcpy(b, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00", 14);
    uint8_t *ip = b + 14;
    ip[0] = 0x45;
    ip[2] = (uint8_t)(ip_len >> 8);
    ip[3] = (uint8_t)ip_len;
    ip[8] = 64;
    ip[9] = proto;
    memcpy(ip + 12, "\x0a\0\0", 3);
    ip[15] = s->src;
    memcpy(ip + 16, "\x0a\0\0", 3);
    ip[19] = s->dst;
    uint8_t *t = ip + 20;
    rs_store_be16(t, s->sport);
    rs_store_be16(t + 2, s->dport);
    if (proto == 6) {
        rs_store_be32(t + 4, s->seq);
        rs_store_be32(t + 8, s->ack);
        t[12] = (uint8_t)((l4 / 4) << 4);
        t[13] = s->flags;
        rs_store_be16(t + 14, s->window);
        if (s->wscale >= 0)
            memcpy(t + 20, (uint8_t[]){1, 3, 3, (uint8_t)s->wscale}, 4);
    } else {
        rs_store_be16(t + 4, (uint16_t)(8 + s->len));
    }
    tf->frame.data = b;
    tf->frame.caplen = tf->frame.len = 14 + ip_len;
    tf->frame.linktype = RS_DLT_EN10MB;
    tf->frame.ts_digits = 6;
}

struct fixture {
    struct rs_streams *st;
    struct test_frame tf;
    struct rs_packet pkt;
    uint64_t number;        /* the last frame's */
};

static const struct rs_stream_view *
feed(struct fixture *fx, uint8_t proto, struct seg s)
{
    build(&fx->tf, proto, &s);
    fx->tf.frame.number = ++fx->number;
    test_decode(&fx->tf.frame, &fx->pkt);
    rs_streams_process(fx->st, &fx->pkt);
    return fx->pkt.stream;
}

static struct fixture *
fixture_bounded(uint32_t max, uint32_t pdu_bytes, uint64_t pdu_memory)
{
    static struct fixture fx;
    struct rs_streams_opts o;

    rs_streams_opts_init(&o);
    o.max_streams = max;
    o.max_pdu_bytes = pdu_bytes;
    o.max_pdu_memory = pdu_memory;
    memset(&fx, 0, sizeof(fx));
    assert_int_equal(rs_streams_new(&o, &fx.st, NULL), 0);
    return &fx;
}

static struct fixture *
fixture_new(uint32_t max)
{
    return fixture_bounded(max, RS_STREAMS_PDU_BYTES, RS_STREAMS_PDU_MEMORY);
}

static void
test_handshake_and_relative_numbers(void **state)
{
    struct fixture *fx = fixture_new(16);
    const struct rs_stream_view *v;

    (void)state;
    /* SYN (scale 7), SYN-ACK (scale 2), ACK, 100 octets, then FIN */
    v = feed(fx, 6, (struct seg){1, 2, 40000, 80, 1000, 0, SYN, 7, 64240, 0});
    assert_int_equal(v->index, 0);
    assert_int_equal(v->seq, 0);
    assert_int_equal(v->nxtseq, 1);
    assert_int_equal(v->win_scale, 0);      /* a SYN's window is not scaled */
    assert_int_equal(v->window, 64240);
    v = feed(fx, 6, (struct seg){2, 1, 80, 40000, 5000, 1001, SYN | ACK, 2, 65160, 0});
    assert_int_equal(v->index, 0);
    assert_int_equal(v->seq, 0);
    assert_int_equal(v->ack, 1);
    v = feed(fx, 6, (struct seg){1, 2, 40000, 80, 1001, 5001, ACK | PSH, -1, 502, 100});
    assert_int_equal(v->seq, 1);
    assert_int_equal(v->ack, 1);
    assert_int_equal(v->len, 100);
    assert_int_equal(v->nxtseq, 101);
    assert_int_equal(v->win_scale, 128);
    assert_int_equal(v->window, 502 * 128);
    v = feed(fx, 6, (struct seg){2, 1, 80, 40000, 5001, 1101, ACK | FIN, -1, 100, 0});
    assert_int_equal(v->ack, 101);
    assert_int_equal(v->nxtseq, 2);         /* FIN counts one */
    assert_int_equal(v->win_scale, 4);
    assert_int_equal(v->window, 400);
    rs_streams_free(fx->st);
}

/* A segment of len octets whose payload has n bytes at offset at (the rest zero). */
static const struct rs_stream_view *
feed_bytes(struct fixture *fx, struct seg s, uint32_t at, const char *bytes, size_t n)
{
    build(&fx->tf, 6, &s);
    fx->tf.frame.number = ++fx->number;
    memcpy(fx->tf.bytes + 54 + at, bytes, n);
    test_decode(&fx->tf.frame, &fx->pkt);
    rs_streams_process(fx->st, &fx->pkt);
    return fx->pkt.stream;
}

static const struct rs_stream_view *
feed_text(struct fixture *fx, struct seg s, const char *text)
{
    return feed_bytes(fx, s, 0, text, strlen(text));
}

/* An HTTP message over three segments, as tshark's desegmentation shows it: the first
 * (headers whole, Content-Length 30), a middle one, the last; a message whose next
 * segment comes out of order is let go, and counted; one segment's message is none. */
static void
test_http_over_segments(void **state)
{
    static const char head[] = "POST /v2/put HTTP/1.1\r\nContent-Length: 30\r\n\r\n";
    struct fixture *fx = fixture_new(16);
    uint16_t h = (uint16_t)strlen(head);

    (void)state;
    const struct rs_stream_view *v =
        feed_text(fx, (struct seg){1, 2, 40000, 80, 1001, 1, ACK, -1, 502, h + 10}, head);
    assert_int_equal(v->pdu_part, RS_PDU_FIRST);
    v = feed_text(fx, (struct seg){1, 2, 40000, 80, 1011u + h, 1, ACK, -1, 502, 10}, "");
    assert_int_equal(v->pdu_part, RS_PDU_MIDDLE);
    v = feed_text(fx, (struct seg){2, 1, 80, 40000, 1, 1021u + h, ACK, -1, 502, 0}, "");
    assert_int_equal(v->pdu_part, RS_PDU_NONE);     /* the other way: no message */
    v = feed_text(fx, (struct seg){1, 2, 40000, 80, 1021u + h, 1, ACK, -1, 502, 10}, "");
    assert_int_equal(v->pdu_part, RS_PDU_LAST);
    /* its segments (frames 1, 2 and 4) and bytes, held until the next frame */
    assert_non_null(v->reasm);
    assert_int_equal(v->reasm->len, h + 30);
    assert_int_equal(v->reasm->n_segments, 3);
    assert_int_equal(v->reasm->frames[0], 1);
    assert_int_equal(v->reasm->frames[1], 2);
    assert_int_equal(v->reasm->frames[2], 4);
    assert_int_equal(v->reasm->lens[0], h + 10);
    assert_int_equal(v->reasm->lens[1], 10);
    assert_int_equal(v->reasm->lens[2], 10);
    assert_int_equal(v->pdu_end, 10);
    assert_memory_equal(v->reasm->data, head, h);
    v = feed_text(fx, (struct seg){1, 2, 40000, 80, 1031u + h, 1, ACK, -1, 502, h + 30}, head);
    assert_null(v->reasm);
    assert_int_equal(v->pdu_part, RS_PDU_NONE);     /* whole in one segment */
    v = feed_text(fx, (struct seg){1, 2, 40000, 80, 1061u + 2 * h, 1, ACK, -1, 502, h}, head);
    assert_int_equal(v->pdu_part, RS_PDU_FIRST);
    /* a gap: the segments after it are parts of a message that never completes, as
     * tshark holds them, its bytes let go (counted once) */
    v = feed_text(fx, (struct seg){1, 2, 40000, 80, 1071u + 3 * h, 1, ACK, -1, 502, 10}, "");
    assert_int_equal(v->pdu_part, RS_PDU_MIDDLE);
    assert_null(v->reasm);
    assert_int_equal(rs_streams_counts(fx->st).pdus_cut, 1);
    v = feed_text(fx, (struct seg){1, 2, 40000, 80, 1081u + 3 * h, 1, ACK, -1, 502, 10}, "");
    assert_int_equal(v->pdu_part, RS_PDU_MIDDLE);   /* its end: nothing completes */
    assert_null(v->reasm);
    v = feed_text(fx, (struct seg){1, 2, 40000, 80, 1091u + 3 * h, 1, ACK, -1, 502, 10}, "");
    assert_int_equal(v->pdu_part, RS_PDU_NONE);     /* after it, no message */
    assert_int_equal(rs_streams_counts(fx->st).pdus_cut, 1);
    /* past the message's end after a gap: let go there, the segment taken afresh */
    v = feed_text(fx, (struct seg){1, 2, 40000, 80, 1101u + 3 * h, 1, ACK, -1, 502, h}, head);
    assert_int_equal(v->pdu_part, RS_PDU_FIRST);
    v = feed_text(fx, (struct seg){1, 2, 40000, 80, 1111u + 4 * h, 1, ACK, -1, 502, 40}, "");
    assert_int_equal(v->pdu_part, RS_PDU_NONE);
    assert_int_equal(rs_streams_counts(fx->st).pdus_cut, 2);
    assert_int_equal(rs_streams_counts(fx->st).pdus_unkept, 0);
    rs_streams_free(fx->st);
}

/* A retransmission within a message goes to no protocol above TCP, as tshark's: the
 * message waits for the segment after it (before, its sequence number, not the one
 * expected, let the message go); its bytes are the message's retransmitted segment data. */
static void
test_http_retransmission_within(void **state)
{
    static const char head[] = "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n";
    struct fixture *fx = fixture_new(16);
    uint16_t h = (uint16_t)strlen(head);

    (void)state;
    const struct rs_stream_view *v =
        feed_text(fx, (struct seg){2, 1, 80, 40000, 1, 1, ACK, -1, 502, h}, head);
    assert_int_equal(v->pdu_part, RS_PDU_FIRST);
    v = feed_text(fx, (struct seg){2, 1, 80, 40000, 1u + h, 1, ACK, -1, 502, 10}, "");
    assert_int_equal(v->pdu_part, RS_PDU_MIDDLE);
    v = feed_text(fx, (struct seg){2, 1, 80, 40000, 1u + h, 1, ACK, -1, 502, 10}, "");
    assert_true(v->analysis.flags & RS_TCPA_RETRANSMISSION);
    assert_int_equal(v->pdu_part, RS_PDU_NONE);
    assert_true(v->pdu_resent);     /* "Retransmitted TCP segment data" */
    v = feed_text(fx, (struct seg){2, 1, 80, 40000, 11u + h, 1, ACK, -1, 502, 10}, "");
    assert_int_equal(v->pdu_part, RS_PDU_LAST);
    assert_int_equal(v->reasm->n_segments, 3);
    assert_int_equal(v->reasm->frames[2], 4);
    assert_int_equal(rs_streams_counts(fx->st).pdus_cut, 0);
    rs_streams_free(fx->st);
}

/* The bounds on the bytes kept: a message longer than max_pdu_bytes is followed but not
 * desegmented (no segment of it is one of a PDU), and so is one that finds max_pdu_memory
 * spent by another conversation's; the memory comes back when a message completes. */
static void
test_reassembly_bounds(void **state)
{
    static const char head[] = "POST /v2/put HTTP/1.1\r\nContent-Length: 30\r\n\r\n";
    uint32_t h = (uint32_t)strlen(head);
    /* a message's cost: its bytes, its list of 8 segments (8 bytes each) and a head of
     * 24 bytes: room for one message of h + 30 bytes, not two */
    uint64_t one = 24 + h + 30 + 64;
    struct fixture *fx = fixture_bounded(16, h + 30, one + 10);
    const struct rs_stream_view *v;

    (void)state;
    v = feed_text(fx, (struct seg){1, 2, 40000, 80, 1, 1, ACK, -1, 502, (uint16_t)(h + 10)},
                  head);
    assert_int_equal(v->pdu_part, RS_PDU_FIRST);
    /* another conversation's message: no room left */
    v = feed_text(fx, (struct seg){3, 2, 40001, 80, 1, 1, ACK, -1, 502, (uint16_t)(h + 10)},
                  head);
    assert_int_equal(v->pdu_part, RS_PDU_NONE);
    assert_int_equal(rs_streams_counts(fx->st).pdus_unkept, 1);
    v = feed_text(fx, (struct seg){3, 2, 40001, 80, 11 + h, 1, ACK, -1, 502, 20}, "");
    assert_int_equal(v->pdu_part, RS_PDU_NONE);     /* followed, not desegmented */
    assert_null(v->reasm);
    v = feed_text(fx, (struct seg){1, 2, 40000, 80, 11 + h, 1, ACK, -1, 502, 20}, "");
    assert_int_equal(v->pdu_part, RS_PDU_LAST);
    assert_int_equal(v->reasm->len, h + 30);
    assert_int_equal(rs_streams_counts(fx->st).pdu_memory_peak, one);
    /* given back: the next message is kept */
    v = feed_text(fx, (struct seg){3, 2, 40001, 80, 31 + h, 1, ACK, -1, 502, (uint16_t)(h + 10)},
                  head);
    assert_int_equal(v->pdu_part, RS_PDU_FIRST);
    /* one byte longer than max_pdu_bytes: not kept */
    static const char longer[] = "POST /v2/put HTTP/1.1\r\nContent-Length: 31\r\n\r\n";
    v = feed_text(fx, (struct seg){1, 2, 40000, 80, 31 + h, 1, ACK, -1, 502, (uint16_t)h},
                  longer);
    assert_int_equal(v->pdu_part, RS_PDU_NONE);
    assert_int_equal(rs_streams_counts(fx->st).pdus_unkept, 2);
    assert_int_equal(rs_streams_counts(fx->st).pdu_memory_peak, one);
    rs_streams_free(fx->st);
}

/* What tshark 4.0.17 -V shows on the segments test_tls_over_segments feeds (written as a
 * pcap with the same bytes): the one that ends the record of 100 bytes and begins one of
 * 40, then the one that ends that; and its -x data source. */
static const char tls_last_tree[] =
    "    TCP payload (40 bytes)\n"
    "    TCP segment data (20 bytes)\n"
    "    TCP segment data (20 bytes)\n"
    "[3 Reassembled TCP Segments (100 bytes): #1(50), #2(30), #3(20)]\n"
    "    [Frame: 1, payload: 0-49 (50 bytes)]\n"
    "    [Frame: 2, payload: 50-79 (30 bytes)]\n"
    "    [Frame: 3, payload: 80-99 (20 bytes)]\n"
    "    [Segment count: 3]\n"
    "    [Reassembled TCP length: 100]\n"
    "    [Reassembled TCP Data: 170303005f00000000000000000000000000000000000000000000000000000"
    "000000000\xe2\x80\xa6]\n";
static const char tls_next_tree[] =
    "    TCP payload (20 bytes)\n"
    "    TCP segment data (20 bytes)\n"
    "[2 Reassembled TCP Segments (40 bytes): #3(20), #4(20)]\n"
    "    [Frame: 3, payload: 0-19 (20 bytes)]\n"
    "    [Frame: 4, payload: 20-39 (20 bytes)]\n"
    "    [Segment count: 2]\n"
    "    [Reassembled TCP length: 40]\n"
    "    [Reassembled TCP Data: 170303002300000000000000000000000000000000000000000000000000000"
    "000000000\xe2\x80\xa6]\n";
static const char tls_next_hex[] =
    "0040  00 00 00 00 00 00 00 00 00 00                     ..........\n"
    "Reassembled TCP (40 bytes):\n"
    "0000  17 03 03 00 23 00 00 00 00 00 00 00 00 00 00 00   ....#...........\n"
    "0010  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00   ................\n"
    "0020  00 00 00 00 00 00 00 00                           ........\n";

/* pkt's -V tree holds want, lines in a row. */
static void
assert_tree_has(const struct rs_packet *pkt, const char *want)
{
    char *tree = test_printed(rs_print_tree, pkt);

    assert_non_null(tree);
    if (strstr(tree, want) == NULL)
        fail_msg("want\n%s\nin\n%s", want, tree);
    free(tree);
}

/* TLS records over segments, by their lengths, on any port: a record of 100 bytes over
 * three segments (first, middle, last), the last also starting one of 40 that ends in
 * the next; a record the segment holds whole is none. */
static void
test_tls_over_segments(void **state)
{
    static const char rec100[] = "\x17\x03\x03\x00\x5f", rec40[] = "\x17\x03\x03\x00\x23";
    struct fixture *fx = fixture_new(16);

    (void)state;
    const struct rs_stream_view *v =
        feed_bytes(fx, (struct seg){1, 2, 50000, 8090, 1, 1, ACK, -1, 502, 50}, 0, rec100, 5);
    assert_int_equal(v->pdu_part, RS_PDU_FIRST);
    assert_int_equal(v->pdu_proto, RS_PDU_TLS);
    v = feed_text(fx, (struct seg){1, 2, 50000, 8090, 51, 1, ACK, -1, 502, 30}, "");
    assert_int_equal(v->pdu_part, RS_PDU_MIDDLE);
    v = feed_bytes(fx, (struct seg){1, 2, 50000, 8090, 81, 1, ACK, -1, 502, 40}, 20, rec40, 5);
    assert_int_equal(v->pdu_part, RS_PDU_LAST);
    assert_int_equal(v->pdu_end, 20);
    assert_true(v->pdu_begins);
    assert_int_equal(v->pdu_begin, 20);
    assert_tree_has(&fx->pkt, tls_last_tree);
    v = feed_text(fx, (struct seg){1, 2, 50000, 8090, 121, 1, ACK, -1, 502, 20}, "");
    assert_int_equal(v->pdu_part, RS_PDU_LAST);
    assert_int_equal(v->pdu_proto, RS_PDU_TLS);
    assert_false(v->pdu_begins);
    assert_tree_has(&fx->pkt, tls_next_tree);
    char *hex = test_printed(rs_print_hex, &fx->pkt);
    assert_non_null(hex);
    assert_non_null(strstr(hex, tls_next_hex));
    free(hex);
    v = feed_bytes(fx, (struct seg){1, 2, 50000, 8090, 141, 1, ACK, -1, 502, 40}, 0, rec40, 5);
    assert_int_equal(v->pdu_part, RS_PDU_NONE);     /* whole in one segment */
    assert_int_equal(rs_streams_counts(fx->st).pdus_cut, 0);
    rs_streams_free(fx->st);
}

static void
test_mid_stream_and_scaling_unknown(void **state)
{
    struct fixture *fx = fixture_new(16);
    const struct rs_stream_view *v;

    (void)state;
    /* no SYN seen: the first segment reads 1, and so does what it acknowledges */
    v = feed(fx, 6, (struct seg){1, 2, 40000, 80, 777777, 123456, ACK, -1, 300, 10});
    assert_int_equal(v->seq, 1);
    assert_int_equal(v->ack, 1);
    assert_int_equal(v->nxtseq, 11);
    assert_int_equal(v->win_scale, RS_WIN_SCALE_UNKNOWN);
    assert_int_equal(v->window, 300);
    v = feed(fx, 6, (struct seg){2, 1, 80, 40000, 123456, 777787, ACK, -1, 300, 0});
    assert_int_equal(v->seq, 1);
    assert_int_equal(v->ack, 11);
    /* a SYN without the option elsewhere: neither side of that one scales */
    v = feed(fx, 6, (struct seg){1, 3, 40001, 80, 9, 0, SYN, -1, 1000, 0});
    assert_int_equal(v->index, 1);
    v = feed(fx, 6, (struct seg){3, 1, 80, 40001, 0, 10, ACK | 0x04, -1, 0, 0});
    assert_int_equal(v->win_scale, RS_WIN_SCALE_NONE);
    rs_streams_free(fx->st);
}

static void
test_indexes_per_protocol_and_port_reuse(void **state)
{
    struct fixture *fx = fixture_new(16);

    (void)state;
    assert_int_equal(feed(fx, 17, (struct seg){1, 2, 5000, 4791, .len = 4})->index, 0);
    assert_int_equal(feed(fx, 6, (struct seg){1, 2, 40000, 80, 1, 0, SYN, -1, 0, 0})->index, 0);
    assert_int_equal(feed(fx, 17, (struct seg){1, 2, 5001, 4791, .len = 4})->index, 1);
    /* the reverse direction is the same conversation */
    assert_int_equal(feed(fx, 17, (struct seg){2, 1, 4791, 5000, .len = 4})->index, 0);
    assert_false(fx->pkt.stream->tcp);
    /* the SYN again (retransmitted) stays; a new initial number is a new conversation */
    assert_int_equal(feed(fx, 6, (struct seg){1, 2, 40000, 80, 1, 0, SYN, -1, 0, 0})->index, 0);
    assert_int_equal(feed(fx, 6, (struct seg){1, 2, 40000, 80, 99, 0, SYN, -1, 0, 0})->index, 1);
    struct rs_streams_counts c = rs_streams_counts(fx->st);
    assert_int_equal(c.tcp_streams, 2);
    assert_int_equal(c.udp_streams, 2);
    assert_int_equal(c.evicted, 0);
    rs_streams_free(fx->st);
}

/* A SYN again after a reset, with the same ISN: tshark 4.0 keeps the stream, 4.4 starts
 * another (as the NCCL captures show). */
static void
test_syn_after_reset(void **state)
{
    (void)state;
    for (int restart = 0; restart <= 1; restart++) {
        struct rs_streams_opts o;
        struct fixture *fx = fixture_new(16);
        rs_streams_free(fx->st);
        rs_streams_opts_init(&o);
        o.restart_after_close = restart;
        assert_int_equal(rs_streams_new(&o, &fx->st, NULL), 0);
        assert_int_equal(feed(fx, 6, (struct seg){1, 2, 45882, 23, 7, 0, SYN, -1, 0, 0})->index, 0);
        assert_int_equal(feed(fx, 6, (struct seg){2, 1, 23, 45882, 0, 8, ACK | 0x04, -1, 0, 0})->index, 0);
        assert_int_equal(feed(fx, 6, (struct seg){1, 2, 45882, 23, 7, 0, SYN, -1, 0, 0})->index,
                         restart ? 1 : 0);
        rs_streams_free(fx->st);
    }
}

static void
test_bounded_with_evictions(void **state)
{
    struct fixture *fx = fixture_new(4);

    (void)state;
    for (uint16_t p = 0; p < 10; p++)
        assert_int_equal(feed(fx, 17, (struct seg){1, 2, (uint16_t)(1000 + p), 4791})->index, p);
    /* the most recent four are kept; an older one comes back as a new conversation */
    assert_int_equal(feed(fx, 17, (struct seg){1, 2, 1009, 4791})->index, 9);
    assert_int_equal(feed(fx, 17, (struct seg){1, 2, 1000, 4791})->index, 10);
    assert_int_equal(rs_streams_counts(fx->st).evicted, 7);
    /* no TCP or UDP header: no view */
    fx->tf.frame.caplen = fx->tf.frame.len = 14;
    test_decode(&fx->tf.frame, &fx->pkt);
    rs_streams_process(fx->st, &fx->pkt);
    assert_null(fx->pkt.stream);
    rs_streams_free(fx->st);
}

/* An ICMP echo (type 8) or reply (0) between 10.0.0.src and 10.0.0.dst,
 * frame number n at n seconds, with the checksum given. */
static const struct rs_stream_view *
feed_echo(struct fixture *fx, uint8_t src, uint8_t dst, uint8_t type, uint16_t seq,
          uint16_t cksum, uint64_t n)
{
    struct seg s = {src, dst, 0, 0, 0, 0, 0, -1, 0, 0};
    uint8_t *icmp = fx->tf.bytes + 14 + 20;

    build(&fx->tf, 1, &s);
    memset(icmp, 0, 8);
    icmp[0] = type;
    rs_store_be16(icmp + 2, cksum);
    rs_store_be16(icmp + 4, 0x1234);
    rs_store_be16(icmp + 6, seq);
    fx->tf.frame.number = n;
    fx->tf.frame.ts_sec = (int64_t)n;
    test_decode(&fx->tf.frame, &fx->pkt);
    rs_streams_process(fx->st, &fx->pkt);
    return fx->pkt.stream;
}

static void
test_icmp_echoes(void **state)
{
    struct fixture *fx = fixture_new(4);
    struct rs_streams_opts o;

    (void)state;
    /* a reply carries the request's checksum plus 0x0800 (the type's change) */
    assert_int_equal(feed_echo(fx, 1, 2, 8, 1, 0x000f, 1)->echo_request, 0);
    const struct rs_stream_view *v = feed_echo(fx, 2, 1, 0, 1, 0x080f, 3);
    assert_int_equal(v->echo_request, 1);
    assert_int_equal(v->echo_rtt.sec, 2);
    assert_int_equal(v->index, 0);      /* no UDP stream counted */
    assert_int_equal(rs_streams_counts(fx->st).udp_streams, 0);
    /* a reply matches once; another sequence number or data does not match */
    assert_int_equal(feed_echo(fx, 2, 1, 0, 1, 0x080f, 4)->echo_request, 0);
    feed_echo(fx, 1, 2, 8, 2, 0x000f, 5);
    assert_int_equal(feed_echo(fx, 2, 1, 0, 3, 0x080f, 6)->echo_request, 0);
    assert_int_equal(feed_echo(fx, 2, 1, 0, 2, 0x0810, 7)->echo_request, 0);
    rs_streams_free(fx->st);

    /* one slot: a second request takes it, counted, and the first goes unanswered */
    rs_streams_opts_init(&o);
    o.max_echoes = 1;
    assert_int_equal(rs_streams_new(&o, &fx->st, NULL), 0);
    feed_echo(fx, 1, 2, 8, 1, 0x000f, 1);
    feed_echo(fx, 1, 2, 8, 2, 0x000f, 2);
    assert_int_equal(rs_streams_counts(fx->st).echoes_evicted, 1);
    assert_int_equal(feed_echo(fx, 2, 1, 0, 1, 0x080f, 3)->echo_request, 0);
    assert_int_equal(feed_echo(fx, 2, 1, 0, 2, 0x080f, 4)->echo_request, 2);
    rs_streams_free(fx->st);
}

static void
test_field_names(void **state)
{
    (void)state;
    assert_true(rs_streams_field("tcp.stream"));
    assert_true(rs_streams_field("tcp.window_size_scalefactor"));
    assert_true(rs_streams_field("udp.stream"));
    assert_true(rs_streams_field("icmp.resptime"));
    assert_true(rs_streams_field("icmpv6.resp_to"));
    assert_false(rs_streams_field("tcp.seq_raw"));
    assert_false(rs_streams_field("tcp.window_size_value"));
    /* the analysis' fields and SACK's relative edges, by name and below */
    assert_true(rs_streams_field("tcp.analysis.retransmission"));
    assert_true(rs_streams_field("tcp.analysis"));
    assert_true(rs_streams_field("tcp.options.sack_le"));
    assert_false(rs_streams_field("tcp.analysisx"));
    assert_false(rs_streams_field("tcp.options.mss_val"));
    /* no room at all is refused, not a stage that forgets every frame */
    struct rs_streams_opts o = {.max_streams = 0};
    struct rs_streams *st = (struct rs_streams *)&o;
    assert_int_equal(rs_streams_new(&o, &st, NULL), RS_EINVAL);
    assert_null(st);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake_and_relative_numbers),
        cmocka_unit_test(test_mid_stream_and_scaling_unknown),
        cmocka_unit_test(test_http_over_segments),
        cmocka_unit_test(test_http_retransmission_within),
        cmocka_unit_test(test_reassembly_bounds),
        cmocka_unit_test(test_tls_over_segments),
        cmocka_unit_test(test_indexes_per_protocol_and_port_reuse),
        cmocka_unit_test(test_syn_after_reset),
        cmocka_unit_test(test_bounded_with_evictions),
        cmocka_unit_test(test_icmp_echoes),
        cmocka_unit_test(test_field_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
