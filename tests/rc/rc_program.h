/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_program.h - one fuzz input as a program of packets against the receive
 * path of the RC transport (rc_program.c), shared by the deterministic
 * driver (rc_fuzz.c) and the libFuzzer target (fuzz/targets/
 * responder_target.c).
 */
#ifndef ROCESHARK_TEST_RC_PROGRAM_H
#define ROCESHARK_TEST_RC_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

/* How deep the packets got, summed over every input run. by_name follows
 * rs_rc_counter_names[] and is filled only when RC_FUZZ_COUNTERS is set. */
struct rc_program_totals {
    uint64_t packets, executed, naks, icrc_drops, responses, completions;
    uint64_t by_name[64];
};

/* Runs one input against fresh QPs and regions; abort()s when a guard or a
 * region without remote write changed, or when the transport sent a packet
 * that is not well-formed RoCEv2 with a good ICRC. */
void rc_program_run(const uint8_t *data, size_t size);

const struct rc_program_totals *rc_program_totals(void);

#endif /* ROCESHARK_TEST_RC_PROGRAM_H */
