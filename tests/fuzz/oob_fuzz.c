/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob_fuzz.c - the deterministic driver of the out-of-band exchange parsers'
 * cases (oob_cases.c): the captured messages first, then generated and
 * mutated ones for a time or a number of cases. The same parsers are the
 * libFuzzer target `exchange` (targets/exchange_target.c).
 *
 * usage: oob_fuzz [-t SECONDS] [-s SEED] [-n CASES]   (prints seed=N first)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "oob_cases.h"

int
main(int argc, char **argv)
{
    double seconds = 5;
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32), max_cases = 0;
    int c;

    while ((c = getopt(argc, argv, "t:s:n:")) != -1) {
        switch (c) {
        case 't':
            seconds = atof(optarg);
            break;
        case 's':
            seed = strtoull(optarg, NULL, 10);
            break;
        case 'n':
            max_cases = strtoull(optarg, NULL, 10);
            break;
        default:
            fprintf(stderr, "usage: oob_fuzz [-t SECONDS] [-s SEED] [-n CASES]\n");
            return 1;
        }
    }
    printf("seed=%" PRIu64 "\n", seed);
    fflush(stdout);
    oob_cases_seed(seed);
    if (!oob_cases_captured()) {
        fprintf(stderr, "oob_fuzz: a captured message is refused\n");
        abort();
    }
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t i = 0; max_cases == 0 || i < max_cases; i++) {
        oob_cases_run();
        if ((i & 4095) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            double el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
            if (max_cases == 0 && el >= seconds)
                break;
        }
    }
    oob_cases_report();
    return 0;
}
