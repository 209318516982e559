/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_decode.c - decode throughput on one core, with the capture already
 * in memory, through the pipeline that `read` runs: decode only, decode with ICRC verification, and decode plus
 * formatting five fields the way `read -T fields` does (without the I/O).
 *
 * usage: bench_decode FILE [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/print.h>

#include "bench_frames.h"

static double
run(const struct bench_frames *fr, bool crc, bool analyze, const int *ids, size_t nids, int rounds,
    unsigned long long *sink)
{
    struct rs_pipeline_opts opts;
    struct rs_fields_fmt fmt;
    struct rs_out out;
    FILE *devnull = fopen("/dev/null", "w");
    double best = 1e30;

    rs_pipeline_opts_init(&opts);
    opts.decode.verify_crc = crc;
    opts.analyze = analyze;
    rs_fields_fmt_init(&fmt);
    rs_out_init(&out, devnull, 1 << 20);
    for (int r = 0; r < rounds; r++) {
        struct rs_pipeline *pipe;
        if (rs_pipeline_new(&opts, &pipe, NULL) != 0)
            return -1;
        double t0 = bench_now();
        for (size_t i = 0; i < fr->n; i++) {
            /* As the file source does: fetch the next frame while this one decodes. */
            if (i + 1 < fr->n)
                __builtin_prefetch(fr->f[i + 1].data);
            const struct rs_pipeline_result *res = rs_pipeline_process(pipe, &fr->f[i]);
            *sink += res->pkt.layers + res->pkt.icrc_status +
                     (res->pkt.facts != NULL ? res->pkt.facts->flags : 0);
            if (nids > 0) {
                rs_print_fields(&out, &fmt, &res->pkt, ids, nids);
                if (out.len > (1u << 19))
                    out.len = 0;    /* formatting cost only, no write */
            }
        }
        double t = bench_now() - t0;
        rs_pipeline_free(pipe);
        if (t < best)
            best = t;
    }
    rs_out_free(&out);
    fclose(devnull);
    return best;
}

int
main(int argc, char **argv)
{
    struct bench_frames fr;
    static const char *names[] = {"frame.number", "ip.src", "infiniband.bth.opcode",
                                  "infiniband.bth.destqp", "infiniband.bth.psn"};
    int ids[5];
    unsigned long long sink = 0;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;

    if (argc < 2 || bench_frames_load("bench_decode", argv[1], &fr) != 0) {
        fprintf(stderr, "usage: bench_decode FILE [ROUNDS]\n");
        return 1;
    }
    for (int i = 0; i < 5; i++)
        ids[i] = rs_field_lookup(names[i]);
    double t1 = run(&fr, false, false, NULL, 0, rounds, &sink);
    double t2 = run(&fr, true, false, NULL, 0, rounds, &sink);
    double t5 = run(&fr, false, true, NULL, 0, rounds, &sink);
    double t4 = run(&fr, true, true, NULL, 0, rounds, &sink);
    double t3 = run(&fr, false, false, ids, 5, rounds, &sink);
    printf("frames in memory:            %zu (%.1f MB, avg %.0f bytes)\n", fr.n,
           fr.used / 1e6, (double)fr.used / (double)fr.n);
    printf("decode only:                 %6.2f M frames/s (%.1f ns/frame)\n", fr.n / t1 / 1e6,
           t1 / fr.n * 1e9);
    printf("decode + ICRC verification:  %6.2f M frames/s (%.1f ns/frame, %.2f GB/s)\n",
           fr.n / t2 / 1e6, t2 / fr.n * 1e9, fr.used / t2 / 1e9);
    printf("decode + analysis:           %6.2f M frames/s (%.1f ns/frame; %.2fx decode only)\n",
           fr.n / t5 / 1e6, t5 / fr.n * 1e9, t5 / t1);
    printf("decode + ICRC + analysis:    %6.2f M frames/s (%.1f ns/frame; %.2fx decode + ICRC)\n",
           fr.n / t4 / 1e6, t4 / fr.n * 1e9, t4 / t2);
    printf("decode + 5 fields formatted: %6.2f M frames/s (%.1f ns/frame)\n", fr.n / t3 / 1e6,
           t3 / fr.n * 1e9);
    fprintf(stderr, "(checksum %llu)\n", sink);
    bench_frames_free(&fr);
    return 0;
}
