/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_iwarp.c - iWARP decode throughput on one core, with the capture
 * already in memory: frame decode plus the iWARP stage (TCP reassembly, MPA
 * framing, DDP/RDMAP), without and with CRC-32C verification, in MB/s of
 * TCP payload.
 *
 * usage: bench_iwarp FILE [ROUNDS]   (prints "tcp payload: N bytes" first)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/pipeline.h>

#include "bench_frames.h"

/* Best time of `rounds` passes; fills the payload octets and FPDUs seen. */
static double
run(const struct bench_frames *fr, bool crc, int rounds, uint64_t *payload, uint64_t *fpdus)
{
    struct rs_pipeline_opts opts;
    double best = 1e30;

    rs_pipeline_opts_init(&opts);
    opts.decode.verify_crc = crc;
    opts.analyze = false;
    for (int r = 0; r < rounds; r++) {
        struct rs_pipeline *pipe;
        uint64_t bytes = 0, n = 0;
        if (rs_pipeline_new(&opts, &pipe, NULL) != 0)
            return -1;
        double t0 = bench_now();
        for (size_t i = 0; i < fr->n; i++) {
            const struct rs_packet *pkt = &rs_pipeline_process(pipe, &fr->f[i])->pkt;
            if (rs_packet_has(pkt, RS_LAYER_TCP)) {
                const struct rs_span *s = &pkt->span[RS_LAYER_TCP];
                bytes += pkt->frame->caplen - (s->off + s->len);
            }
            if (pkt->iwarp != NULL)
                n += pkt->iwarp->n_pdus;
        }
        double t = bench_now() - t0;
        rs_pipeline_free(pipe);
        if (t < best)
            best = t;
        *payload = bytes;
        *fpdus = n;
    }
    return best;
}

int
main(int argc, char **argv)
{
    struct bench_frames fr;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    uint64_t payload = 0, fpdus = 0;

    if (argc < 2 || bench_frames_load("bench_iwarp", argv[1], &fr) != 0) {
        fprintf(stderr, "usage: bench_iwarp FILE [ROUNDS]\n");
        return 1;
    }
    double t1 = run(&fr, false, rounds, &payload, &fpdus);
    double t2 = run(&fr, true, rounds, &payload, &fpdus);
    printf("tcp payload: %llu bytes\n", (unsigned long long)payload);
    printf("frames in memory:             %zu (%.1f MB), %llu MPA frames and FPDUs\n", fr.n,
           fr.used / 1e6, (unsigned long long)fpdus);
    printf("decode + iWARP:               %7.0f MB/s of TCP payload (%.1f ns/frame)\n",
           payload / t1 / 1e6, t1 / fr.n * 1e9);
    printf("decode + iWARP + CRC-32C:     %7.0f MB/s of TCP payload (%.1f ns/frame)\n",
           payload / t2 / 1e6, t2 / fr.n * 1e9);
    bench_frames_free(&fr);
    return 0;
}
