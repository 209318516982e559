/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_fuzz.c - fuzzes the receive path of the RC transport for a bounded
 * time with random inputs, each a program of packets (rc_program.c); ctest
 * runs it, under ASan+UBSan in the sanitized build. The same programs are
 * the libFuzzer target `responder` (fuzz/targets/responder_target.c).
 *
 * usage: rc_fuzz [SECONDS [SEED]]
 * RC_FUZZ_COUNTERS=1 prints how deep the packets got, counter by counter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <roceshark/transport/rc.h>

#include "rc_pair.h"
#include "rc_program.h"

int
main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 3;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x2545f4914f6cdd1dull;
    static uint8_t input[4096];
    struct timespec t0, t;
    uint64_t runs = 0, bytes = 0;
    const struct rc_program_totals *total = rc_program_totals();

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        double el = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
        if (el >= seconds)
            break;
        size_t n = 64 + seed % (sizeof(input) - 64);
        for (size_t i = 0; i < n; i++)
            input[i] = (uint8_t)(rc_test_rand(&seed) >> 24);
        rc_program_run(input, n);
        runs++;
        bytes += n;
    }
    printf("rc_fuzz: %llu inputs (%llu bytes), %llu packets: %llu requests executed, %llu "
           "NAKs, %llu ICRC drops, %llu responses dropped, %llu completions\n",
           (unsigned long long)runs, (unsigned long long)bytes,
           (unsigned long long)total->packets, (unsigned long long)total->executed,
           (unsigned long long)total->naks, (unsigned long long)total->icrc_drops,
           (unsigned long long)total->responses, (unsigned long long)total->completions);
    for (unsigned i = 0; i < rs_rc_n_counter_names && getenv("RC_FUZZ_COUNTERS"); i++)
        printf("  %-22s %llu\n", rs_rc_counter_names[i].name,
               (unsigned long long)total->by_name[i]);
    /* A fuzzer that never gets past the header checks proves nothing. */
    if (total->executed == 0 || total->naks == 0 || total->completions == 0) {
        printf("rc_fuzz: the inputs did not reach the state machines\n");
        return 1;
    }
    printf("rc_fuzz: ok: no memory error; guards and regions without remote write intact\n");
    return 0;
}
