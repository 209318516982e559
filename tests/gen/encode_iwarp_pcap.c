/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * encode_iwarp_pcap.c - a capture of what the iWARP builder builds, for
 * tshark to judge (tests/integration/test_encode_iwarp_tshark.py): one
 * connection over IPv4 and one over IPv6, each an MPA Request and Reply
 * with CRCs, then an FPDU of every RDMAP opcode from the initiator with
 * sequence numbers that follow on, and a Send with a bad CRC last.
 *
 * usage: encode_iwarp_pcap FILE
 * Writes FILE (Ethernet) and prints, one line per FPDU,
 *   frame N crc good|bad field=value ...
 * with the fields of tests/unit/iwarp_want.h and iwarp_mpa.crc_check, the
 * sent CRC as Wireshark reads it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/encode_iwarp.h>
#include <roceshark/capture/pcapio.h>
#include <roceshark/dissectors/wire.h>

#include "iwarp_want.h"

#define ETH_LEN 14

struct gen {
    struct rs_writer *w;
    struct rs_tcp_route r[2];   /* initiator, responder */
    uint64_t frames;
    uint8_t buf[ETH_LEN + 4096];
};

static int
put(struct gen *g, int d, uint32_t len)
{
    struct rs_frame f = {.data = g->buf, .caplen = ETH_LEN + len, .len = ETH_LEN + len,
                         .linktype = RS_DLT_EN10MB, .ts_sec = 1700000000,
                         .ts_nsec = (uint32_t)(g->frames * 1000)};
    char err[RS_ERRBUF_SIZE];

    if (len == 0)
        return -1;
    memcpy(g->buf, d ? "\x02\0\0\0\0\x01\x02\0\0\0\0\x02" : "\x02\0\0\0\0\x02\x02\0\0\0\0\x01",
           12);
    rs_store_be16(g->buf + 12, g->r[d].family == 6 ? 0x86dd : 0x0800);
    uint32_t n = rs_encode_tcp_payload_len(&g->r[d], len);
    g->r[d].seq += n;
    g->r[!d].ack += n;
    g->frames++;
    if (rs_writer_write(g->w, &f, err) != 0) {
        fprintf(stderr, "encode_iwarp_pcap: %s\n", err);
        return -1;
    }
    return 0;
}

static void
route(struct gen *g, uint8_t family)
{
    static const uint8_t a4[4] = {10, 1, 0, 1}, b4[4] = {10, 1, 0, 2};
    static const uint8_t a6[16] = {0xfd, 1, [15] = 1}, b6[16] = {0xfd, 1, [15] = 2};
    unsigned alen = family == 6 ? 16 : 4;

    for (int d = 0; d < 2; d++) {
        struct rs_tcp_route *r = &g->r[d];
        memset(r, 0, sizeof(*r));
        r->family = family;
        memcpy(r->src, family == 6 ? (d ? b6 : a6) : (d ? b4 : a4), alen);
        memcpy(r->dst, family == 6 ? (d ? a6 : b6) : (d ? a4 : b4), alen);
        r->sport = d ? 9999 : (uint16_t)(50000 + family);
        r->dport = d ? (uint16_t)(50000 + family) : 9999;
        r->seq = d ? 0x80000000u : 0xfffffff0u;
        r->ack = d ? 0xfffffff0u : 0x80000000u;
        r->window = 0xffff;
        r->ttl = 64;
        r->df = true;
    }
}

/* Values that differ from opcode to opcode, in every field. */
static void
fields_of(struct rs_iwarp_fields *f, uint8_t op)
{
    uint64_t k = op + 1;

    rs_iwarp_fields_init(f, op);
    f->stag = (uint32_t)(0x100 * k);
    f->to = 0x1000000000ull * k;
    f->inval_stag = (uint32_t)(0xabc0 + k);
    f->read_req = (struct rs_rdmap_read_req){0x51, 0x5200, 8192, 0x53, 0x5400};
    f->term = (struct rs_rdmap_terminate){0, 1, 0x02, false, false, false};
    f->immediate = 0x0102030405060708ull;
    f->atomic_req = (struct rs_rdmap_atomic_req){0, 9, 0x61, 0x6200, 3, 0xffff, 0, 0};
    f->atomic_resp = (struct rs_rdmap_atomic_resp){9, 12345};
}

/* The FPDU that ends the len octets of IP packet in g->buf. */
static void
print_truth(const struct gen *g, const struct rs_iwarp_fields *f, uint32_t len)
{
    uint32_t n = rs_encode_tcp_payload_len(&g->r[0], len);
    const uint8_t *fpdu = g->buf + ETH_LEN + len - n;
    struct want w[IWARP_WANT_MAX];
    size_t k = iwarp_want(f, rs_load_be16(fpdu), w);

    printf("frame %" PRIu64 " crc %s iwarp_mpa.crc_check=%" PRIu32, g->frames,
           f->mpa.bad_crc ? "bad" : "good", rs_load_be32(fpdu + n - RS_MPA_CRC_LEN));
    for (size_t i = 0; i < k; i++)
        printf(" %s=%" PRIu64, w[i].name, w[i].v);
    putchar('\n');
}

static int
connection(struct gen *g, uint8_t family)
{
    static const uint8_t payload[64] = "iWARP built by roceshark, read by tshark";
    uint8_t *ip = g->buf + ETH_LEN;
    uint32_t cap = sizeof(g->buf) - ETH_LEN, msn[4] = {1, 1, 1, 1};
    struct rs_iwarp_fields f;

    route(g, family);
    if (put(g, 0, rs_encode_mpa_frame(ip, cap, &g->r[0], false, RS_MPA_FLAG_CRC, 1, "pd", 2)) ||
        put(g, 1, rs_encode_mpa_frame(ip, cap, &g->r[1], true, RS_MPA_FLAG_CRC, 1, NULL, 0)))
        return -1;
    for (uint8_t op = RS_RDMAP_WRITE; op <= RS_RDMAP_ATOMIC_RESPONSE + 1; op++) {
        bool bad = op > RS_RDMAP_ATOMIC_RESPONSE;
        fields_of(&f, bad ? RS_RDMAP_SEND : op);
        f.msn = f.tagged ? 0 : msn[f.qn]++;
        f.mpa.bad_crc = bad;
        bool data = f.tagged || (f.opcode >= RS_RDMAP_SEND &&
                                 f.opcode <= RS_RDMAP_SEND_SE_INVALIDATE);
        uint32_t len = rs_encode_iwarp(ip, cap, &g->r[0], &f, payload, data ? 13u + op : 0);
        if (put(g, 0, len))
            return -1;
        print_truth(g, &f, len);
    }
    return 0;
}

int
main(int argc, char **argv)
{
    static struct gen g;
    struct rs_writer_opts o = {.linktype = RS_DLT_EN10MB, .snaplen = 65535};
    char err[RS_ERRBUF_SIZE];

    if (argc != 2) {
        fputs("usage: encode_iwarp_pcap FILE\n", stderr);
        return 2;
    }
    o.path = argv[1];
    if (rs_writer_open(&o, &g.w, err) != 0) {
        fprintf(stderr, "encode_iwarp_pcap: %s\n", err);
        return 1;
    }
    int rc = connection(&g, 4) || connection(&g, 6);
    if (rs_writer_close(g.w, NULL, err) != 0) {
        fprintf(stderr, "encode_iwarp_pcap: %s\n", err);
        rc = 1;
    }
    return rc;
}
