/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * testutil.h - helpers the unit tests share: hex vectors to frames, and the
 * frames used as known vectors: real ones from tests/captures/real, and built
 * ones (see the comment at each).
 */
#ifndef ROCESHARK_TESTUTIL_H
#define ROCESHARK_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/display.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/encode.h>
#include <roceshark/dissectors/packet.h>
#include <roceshark/dissectors/print.h>

/* One RC conversation built by tests/gen/unit_vectors.py (its ICRCs from ibframes.py and
 * scapy, independent of ours): an RDMA Write Only of 18 bytes ("roceshark-wrote-it") + pad 2,
 * PSN 4660 to QP 0x11 with AckReq, from 10.0.0.1 to 10.0.0.2; */
#define HEX_ROCEV2_WRITE_ONLY                                                                \
    "020000000002020000000001080045000050010140004011259a0a0000010a000002c35012b7003c0000" \
    "0a20ffff000000118000123400007f00123450000000beef00000012726f6365736861726b2d77726f74" \
    "652d6974000032ca8f77"
/* its Acknowledge to QP 0x12, AETH syndrome 0x1f, MSN 1; */
#define HEX_ROCEV2_ACK                                                                       \
    "02000000000102000000000208004500003002024000401124b90a0000020a000001c35012b7001c0000" \
    "1100ffff00000012000012341f0000017253c5c7"
/* and an RDMA Read Request of 4096 bytes, PSN 4661. */
#define HEX_ROCEV2_READ_REQ                                                                  \
    "02000000000202000000000108004500003c01034000401125ac0a0000010a000002c35012b700280000" \
    "0c00ffff000000118000123500007f00123450000000beef00001000598eabe5"
/* tests/captures/real/linlinw5_..._rdma_atomic_bw.pcap frame 20: RC Fetch Add. */
#define HEX_ROCEV2_FETCH_ADD                                                                 \
    "005056a7129f005056a77d03080045000048bc2b4000401149fd0a01103e0a01103dc66812b700340000" \
    "1400ffff0000002880a3f2c700006320d6be5000000019860000000000000001000000000000000026a7" \
    "e208"
/* The same capture's frame 25: RC Atomic Acknowledge. */
#define HEX_ROCEV2_ATOMIC_ACK                                                                \
    "005056a77d03005056a7129f0800450000384e8340004011b7b50a01103d0a01103ec66812b700240000" \
    "1200ffff0000002900a3f2c71f0000013a01a68d6b397ac670c1f6f6"
/* tests/captures/real/srinivaskoritala_..._infiniband.pcap frame 11: ERF type 21, native
 * IB RC Acknowledge with LNH 2 (no GRH), VCRC 0x8130. */
#define HEX_ERF_IB_ACK                                                                       \
    "e0ed30aef8412b48150400300000001e00020004000700011140ffff0087040800d40a551f000001a803" \
    "5550" "3081"
/* The same capture's frame 3: ERF type 21, LNH 3 (GRH), UD Send Only. */
#define HEX_ERF_IB_GRH_UD                                                                    \
    "604e77e8f2412b48150400c0000000ae0003c000002b000560000000007c1b00fe800000000000000002" \
    "c90300001f2dff12401bffff000000000000ffffffff6440ffff00ffffff000de6f800000b1b00000048" \
    "0800000045000060000040004011256b0a0000240a0000ffc15dc15d004cc8db000010060000003c0200" \
    "c15ec0a87f24000000000000000033396661653032392d323835642d343532372d623936302d31346434" \
    "323533633530633200000000000000000566d54d35df"
/* A RoCEv1 RC Send Only (payload 5, pad 3), built by tests/gen/ibframes.py, whose ICRC
 * implementation is independent of ours. */
#define HEX_ROCEV1_SEND_ONLY                                                                 \
    "0002c9aabbcc0002c9ddeeff8915" "6012345600181b40fe800000000000000202c9fffeaabbccfe80" \
    "0000000000000202c9fffeddeeff" "0430ffff00000123800000076869206962000000" "233ea402"

struct test_frame {
    uint8_t bytes[2048];
    struct rs_frame frame;
};

/* Decodes a hex string into tf->bytes and prepares tf->frame for linktype. */
static inline void
test_frame_from_hex(struct test_frame *tf, const char *hex, int linktype)
{
    size_t n = strlen(hex) / 2;

    if (n > sizeof(tf->bytes))
        abort();
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            abort();
        tf->bytes[i] = (uint8_t)v;
    }
    memset(&tf->frame, 0, sizeof(tf->frame));
    tf->frame.data = tf->bytes;
    tf->frame.caplen = (uint32_t)n;
    tf->frame.len = (uint32_t)n;
    tf->frame.linktype = linktype;
    tf->frame.number = 1;
    tf->frame.ts_digits = 6;
}

static inline void
test_decode(const struct rs_frame *frame, struct rs_packet *pkt)
{
    struct rs_decode_opts opts;

    rs_decode_opts_init(&opts);
    rs_decode_frame(frame, &opts, pkt);
}

/* An RC SEND Only of "abcd" to QP 0x11 with PSN psn, from 10.0.0.1 to 10.0.0.2, as an
 * IPv4 packet (RoCEv2, ICRC computed) in buf of cap bytes; its length. */
static inline uint32_t
test_rc_send_only(uint32_t psn, uint8_t *buf, uint32_t cap)
{
    struct rs_roce_route r;
    struct rs_ib_fields f;

    memset(&r, 0, sizeof(r));
    r.family = 4;
    memcpy(r.src, (const uint8_t[]){10, 0, 0, 1}, 4);
    memcpy(r.dst, (const uint8_t[]){10, 0, 0, 2}, 4);
    r.sport = 49152;
    r.dport = RS_ROCEV2_UDP_PORT;
    r.ttl = 64;
    r.df = true;
    memset(&f, 0, sizeof(f));
    f.opcode = 0x04;
    f.pkey = 0xffff;
    f.dest_qp = 0x11;
    f.psn = psn;
    uint32_t n = rs_encode_rocev2(buf, cap, &r, &f, "abcd", 4, NULL, NULL);
    if (n == 0)
        abort();
    return n;
}

#if defined(cmocka_unit_test) && defined(ROCESHARK_FILTER_H)
/* Whether filter text keeps pkt; a filter that does not compile fails the test. */
static inline bool
test_filter_matches(const char *text, const struct rs_packet *pkt)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_filter *f = NULL;

    if (rs_filter_compile(text, &f, err) != 0) {
        fail_msg("'%s' did not compile: %s", text, err);
        return false;
    }
    bool m = rs_filter_match(f, pkt);
    rs_filter_free(f);
    return m;
}
#endif

/* pkt's Info as tshark writes it (--compat tshark) or as we do, in a buffer of its own (the
 * next call's too), the display set back as it was. */
static inline const char *
test_info(const struct rs_packet *pkt, bool tshark)
{
    static char text[256];
    struct rs_display d = *rs_display_get(), before = d;

    d.info_tshark = tshark;
    rs_display_set(&d);
    rs_print_info(pkt, text, sizeof(text));
    rs_display_set(&before);
    return text;
}

/* pkt as printer (rs_print_tree, rs_print_summary) prints it, in a string to free; NULL
 * when the stream or the output buffer cannot be made or flushed. */
static inline char *
test_printed(void (*printer)(struct rs_out *, const struct rs_packet *),
             const struct rs_packet *pkt)
{
    char *text = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&text, &size);
    struct rs_out o;

    if (fp == NULL)
        return NULL;
    if (rs_out_init(&o, fp, 4096) != 0) {
        fclose(fp);
        free(text);
        return NULL;
    }
    printer(&o, pkt);
    int flushed = rs_out_flush(&o);
    rs_out_free(&o);
    fclose(fp);
    if (flushed != 0) {
        free(text);
        return NULL;
    }
    return text;
}

#endif /* ROCESHARK_TESTUTIL_H */
