/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * splitmix.h - the message fuzzers' random numbers: splitmix64, seeded and
 * replayable, good enough to steer mutations.
 */
#ifndef ROCESHARK_FUZZ_SPLITMIX_H
#define ROCESHARK_FUZZ_SPLITMIX_H

#include <stdint.h>

static uint64_t rng_state;

static inline uint64_t
rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif /* ROCESHARK_FUZZ_SPLITMIX_H */
