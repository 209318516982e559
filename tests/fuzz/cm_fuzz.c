/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm_fuzz.c - the deterministic driver of the CM cases (cm_cases.c): mutated
 * MADs against engines in every state of a connection, for a time or a
 * number of cases. The same parser and engine are the libFuzzer target `cm`
 * (targets/cm_target.c).
 *
 * usage: cm_fuzz [-t SECONDS] [-s SEED] [-n CASES]   (prints seed=N first)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cm_cases.h"

int
main(int argc, char **argv)
{
    uint64_t seed = (uint64_t)time(NULL), cases = 0, max_cases = UINT64_MAX;
    double seconds = 3;
    int opt;

    while ((opt = getopt(argc, argv, "t:s:n:")) != -1) {
        if (opt == 't')
            seconds = atof(optarg);
        else if (opt == 's')
            seed = strtoull(optarg, NULL, 0);
        else if (opt == 'n')
            max_cases = strtoull(optarg, NULL, 0);
        else
            return 2;
    }
    printf("seed=%llu\n", (unsigned long long)seed);
    fflush(stdout);
    cm_cases_seed(seed);
    time_t end = time(NULL) + (time_t)seconds;
    while (cases < max_cases && time(NULL) < end) {
        cm_cases_run();
        cases++;
    }
    printf("cm_fuzz: %llu cases\n", (unsigned long long)cases);
    return 0;
}
