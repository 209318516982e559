/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script.h - scenario scripts: connect to an RDMA target, post work through
 * our requester, put faults on the wire, and check what the target does
 * against expectations, each with its evidence (docs/scripts.md).
 *
 *     bind 127.0.0.3
 *     connect 127.0.0.2 side 18515
 *     fault drop times 1 if infiniband.bth.opcode == "RC RDMA Write Middle"
 *     post write 16384 count 4
 *     expect nak psn_seq_error within 10ms
 *     expect retransmit
 *     expect completion ok
 *     expect no violation
 *
 * One statement per line, tokenised by GLib's GScanner. The run posts every
 * operation at once, runs the transport until all complete (or the
 * timeout), then runs what went each way through the pipeline (decode and
 * analysis) and checks each expectation against it, in one pass.
 */
#ifndef ROCESHARK_SCRIPT_H
#define ROCESHARK_SCRIPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <roceshark/common.h>
#include <roceshark/rc.h>

#define RS_SCRIPT_MAX_POSTS 256
#define RS_SCRIPT_MAX_EXPECTS 64

struct rs_script;

/* Parses a script (where names it in errors: "FILE:LINE:COL: why"). */
int rs_script_parse(const char *text, const char *where, struct rs_script **out, char *err);
int rs_script_load(const char *path, struct rs_script **out, char *err);
void rs_script_free(struct rs_script *s);

/* What the command line sets over the script's own bind and connect. */
struct rs_script_opts {
    const char *bind;           /* our address, or NULL for the script's */
    const char *target;         /* the target's address, or NULL for the script's */
    const char *pcap;           /* write the exchange here (-w), or NULL */
    bool no_raw;                /* receive on the UDP socket (ICRC unchecked) */
};

/* One expectation's verdict. */
struct rs_script_result {
    bool ok;
    char text[160];             /* the expectation as written */
    char evidence[200];         /* "after 41 us (frame 23)", or why not */
};

/* Runs the script; fills results (n_results of them, in script order). Returns 0,
 * RS_EIO when the target cannot be reached or set up (err says why), RS_EINVAL
 * for a script that cannot run as written. */
int rs_script_run(struct rs_script *s, const struct rs_script_opts *o,
                  struct rs_script_result *results, unsigned *n_results, char *err);

/* How many of the n results failed. */
unsigned rs_script_failures(const struct rs_script_result *r, unsigned n);

/* TAP ("1..N", "ok 1 - ...") and a JUnit <testsuite> element of the results. */
void rs_script_print_tap(FILE *out, const struct rs_script_result *r, unsigned n);
void rs_script_print_junit(FILE *out, const char *suite, const struct rs_script_result *r,
                           unsigned n, double seconds);

#endif /* ROCESHARK_SCRIPT_H */
