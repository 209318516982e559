/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iwarp_target.c - the iWARP stage over TCP streams: the input is a short
 * program of segments on a few connections, built into Ethernet/IPv4/TCP
 * frames by the project's encoders and run through what `read` runs
 * (decoding, the streams and iWARP stages, the analysis, every output),
 * with small bounds so that eviction and the buffer limits are reached.
 *
 * Input: a header byte, then records of 8 bytes and a payload each.
 *   header   bits 0-1: connections - 1; bits 2-4: where the sequence numbers
 *            start (near 0, 2^31 or 2^32, so that streams cross them);
 *            bit 5: framing heuristics off; bit 6: MPA CRCs not checked;
 *            bit 7: one connection followed at once instead of two
 *   byte 0   bits 0-1: connection; bit 2: sent by its responder; bits 3-4:
 *            the payload: 0 stream bytes as given, 1 a ULPDU (DDP header
 *            and all) framed as an FPDU with a good CRC-32C, 2 the same
 *            with a CRC field of 0, 3 zeros (no input taken: long
 *            segments cheaply); bits 5-7: k, a snapshot that kept k/8 of
 *            the payload (0: all of it)
 *   byte 1   TCP flags (0: ACK and PSH)
 *   2-3      sequence number, from what the side sent next (signed)
 *   4-5      acknowledgement, from what the peer sent next (signed)
 *   6-7      payload length (past the input's end: what is left)
 * A side's next sequence number is the furthest end it sent (a SYN and a
 * FIN count one), so a negative delta is a retransmission and a positive
 * one a hole. The framed FPDU is what gets the fuzzer past the CRC check:
 * mutated DDP and RDMAP headers still reach the parsers behind it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/encode_iwarp.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/stats.h>
#include <roceshark/dissectors/wire.h>

#include "fuzz_target.h"

#define ETH_LEN 14
#define HDRS_LEN (ETH_LEN + 20 + RS_TCP_HDR_LEN)
#define RECORD_LEN 8
#define MAX_CONNS 4

enum payload { P_RAW, P_FPDU, P_FPDU_NO_CRC, P_ZEROS };

/* Initial sequence numbers: ordinary ones, and just below 2^31 and 2^32. */
static const uint32_t isns[8] = {1000, 0, 0x7fffff00u, 0xffffff00u, 0x7ffffff0u, 0xfffffff0u,
                                 0x12345678u, 0x80000000u};

struct side {
    uint32_t next;          /* the furthest sequence number sent, plus one */
};

struct conn {
    struct rs_tcp_route route[2];   /* 0: the initiator's, 1: the responder's */
    struct side side[2];
};

/* The Ethernet header in front of what the encoders built (they start at IP). */
static void
put_ethernet(uint8_t *frame, int from)
{
    static const uint8_t mac[2][6] = {{0x02, 0, 0, 0, 0, 0x01}, {0x02, 0, 0, 0, 0, 0x02}};

    memcpy(frame, mac[!from], 6);
    memcpy(frame + 6, mac[from], 6);
    rs_store_be16(frame + 12, 0x0800);
}

static void
conns_init(struct conn *c, unsigned n, uint32_t isn)
{
    static const uint8_t initiator[4] = {192, 0, 2, 1}, responder[4] = {192, 0, 2, 2};

    memset(c, 0, n * sizeof(*c));
    for (unsigned i = 0; i < n; i++) {
        for (int d = 0; d < 2; d++) {
            struct rs_tcp_route *r = &c[i].route[d];
            r->family = 4;
            memcpy(r->src, d ? responder : initiator, 4);
            memcpy(r->dst, d ? initiator : responder, 4);
            r->sport = (uint16_t)(d ? 4420 : 40001 + i);
            r->dport = (uint16_t)(d ? 40001 + i : 4420);
            r->window = 65000;
            r->ttl = 64;
            r->df = true;
            c[i].side[d].next = isn + 0x01000000u * i + 0x00100000u * (uint32_t)d;
        }
    }
}

/* The TCP payload of one record at seg (its length in *n); false when it
 * does not fit in one IPv4 packet. */
static bool
record_payload(enum payload kind, const uint8_t *bytes, uint32_t len, uint8_t *seg,
               uint32_t cap, uint32_t *n)
{
    switch (kind) {
    case P_RAW:
        memcpy(seg, bytes, len);
        *n = len;
        return true;
    case P_ZEROS:
        memset(seg, 0, len);
        *n = len;
        return true;
    default:
        *n = rs_encode_mpa_fpdu(seg, cap, bytes, len, kind == P_FPDU);
        return *n != 0;
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t frame[HDRS_LEN + 65536], seg[65536];
    struct rs_pipeline_opts opts;
    struct rs_pipeline *pipe;
    struct conn conns[MAX_CONNS];
    char err[RS_ERRBUF_SIZE];

    if (size < 1)
        return 0;
    unsigned n_conns = 1 + (data[0] & 3);
    fuzz_pipeline_opts(&opts);
    opts.iwarp.heuristics = !(data[0] & 0x20);
    opts.decode.verify_crc = !(data[0] & 0x40);
    opts.iwarp.max_conns = data[0] & 0x80 ? 1 : 2;
    if (rs_pipeline_new(&opts, &pipe, err) != 0)
        abort();
    conns_init(conns, n_conns, isns[(data[0] >> 2) & 7]);
    size_t at = 1;
    for (uint64_t number = 1; at + RECORD_LEN <= size; number++) {
        const uint8_t *rec = data + at;
        struct conn *c = &conns[(rec[0] & 3) % n_conns];
        int from = (rec[0] >> 2) & 1;
        enum payload kind = (enum payload)((rec[0] >> 3) & 3);
        uint32_t len = rs_load_be16(rec + 6);
        at += RECORD_LEN;
        if (kind != P_ZEROS) {
            if (len > size - at)
                len = (uint32_t)(size - at);
            at += len;
        }
        uint32_t n;
        if (!record_payload(kind, rec + RECORD_LEN, len, seg, sizeof(seg), &n))
            continue;
        struct rs_tcp_route *r = &c->route[from];
        struct side *s = &c->side[from];
        r->flags = rec[1];
        r->seq = s->next + (uint32_t)(int32_t)(int16_t)rs_load_be16(rec + 2);
        r->ack = c->side[!from].next + (uint32_t)(int32_t)(int16_t)rs_load_be16(rec + 4);
        r->ip_id = (uint16_t)number;
        uint32_t ip_len = rs_encode_tcp_segment(frame + ETH_LEN, sizeof(frame) - ETH_LEN, r,
                                                seg, n);
        if (ip_len == 0)
            continue;
        uint32_t end = r->seq + n + ((rec[1] & RS_TCP_SYN) != 0) + ((rec[1] & RS_TCP_FIN) != 0);
        if ((int32_t)(end - s->next) > 0)
            s->next = end;
        put_ethernet(frame, from);
        uint32_t cut = rec[0] >> 5;
        struct rs_frame f = {.data = frame, .len = ETH_LEN + ip_len,
                             .caplen = ETH_LEN + ip_len - (cut ? n - n * cut / 8 : 0),
                             .linktype = RS_DLT_EN10MB, .number = number,
                             .ts_sec = 1700000000, .ts_nsec = (uint32_t)number * 1000,
                             .ts_digits = 6};
        fuzz_pipeline_frame(pipe, &f);
    }
    /* -z iwarp, and the stage's bound on what it holds. */
    struct rs_iwarp *iw = rs_pipeline_iwarp(pipe);
    struct rs_iwarp_opts held;
    struct rs_iwarp_stats st;
    struct rs_out out;
    if (rs_out_init(&out, NULL, 4096) != 0)
        abort();
    rs_iwarp_print_stats(iw, &out);
    rs_out_free(&out);
    rs_iwarp_get_opts(iw, &held);
    rs_iwarp_get_stats(iw, &st);
    if (st.memory > (held.max_memory > held.max_buffer ? held.max_memory : held.max_buffer) ||
        st.memory_peak < st.memory) {
        fprintf(stderr, "iwarp_target: the stage holds %llu bytes over its bound\n",
                (unsigned long long)st.memory);
        abort();
    }
    rs_pipeline_free(pipe);
    return 0;
}
