/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm_cases.h - the CM MAD parser and the CM engine under mutated and fuzzed
 * MADs (cm_cases.c), shared by the deterministic driver (cm_fuzz.c) and the
 * libFuzzer target `cm` (targets/cm_target.c). A failed check abort()s.
 */
#ifndef ROCESHARK_FUZZ_CM_CASES_H
#define ROCESHARK_FUZZ_CM_CASES_H

#include <stddef.h>
#include <stdint.h>

/* Seeds the generator of cm_cases_run(). */
void cm_cases_seed(uint64_t seed);

/* One generated case: two engines connected, then mutated copies of their
 * MADs fed to one of them in a random state of a connection. */
void cm_cases_run(void);

/* One MAD from outside: the first byte picks the engines' state (bit 0: a
 * connection started, bit 1: its MADs delivered) and which engine gets the
 * rest (bit 2), which is the MAD, of any length. */
void cm_cases_input(const uint8_t *data, size_t size);

#endif /* ROCESHARK_FUZZ_CM_CASES_H */
