/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob_cases.h - the out-of-band exchange parsers under generated and fuzzed
 * messages (oob_cases.c), shared by the deterministic driver (oob_fuzz.c)
 * and the libFuzzer target `exchange` (targets/exchange_target.c). A
 * failed check abort()s after printing the message.
 */
#ifndef ROCESHARK_FUZZ_OOB_CASES_H
#define ROCESHARK_FUZZ_OOB_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Seeds the generator of oob_cases_run(). */
void oob_cases_seed(uint64_t seed);

/* One generated case: a valid message of a random kind, mutated or not. */
void oob_cases_run(void);

/* Whether the captured messages (perftest's key, ibv_rc_pingpong's address) parse. */
bool oob_cases_captured(void);

/* One message from outside: the first byte picks the parser, the rest is
 * the message. */
void oob_cases_input(const uint8_t *data, size_t size);

/* Prints the cases run and, per kind, the messages accepted and refused. */
void oob_cases_report(void);

#endif /* ROCESHARK_FUZZ_OOB_CASES_H */
