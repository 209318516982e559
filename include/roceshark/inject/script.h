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

#include <roceshark/dissectors/common.h>
#include <roceshark/transport/rc.h>

#define RS_SCRIPT_MAX_POSTS 256
#define RS_SCRIPT_MAX_EXPECTS 64
#define RS_SCRIPT_MAX_RESULTS (RS_SCRIPT_MAX_EXPECTS + 1)  /* and the note on strays */

struct rs_script;

/* Parses a script (where names it in errors: "FILE:LINE:COL: why"). */
int rs_script_parse(const char *text, const char *where, struct rs_script **out, char *err);
int rs_script_load(const char *path, struct rs_script **out, char *err);
void rs_script_free(struct rs_script *s);

/* What the command line sets over the script's own statements. */
struct rs_script_opts {
    const char *bind;           /* our address, or NULL for the script's */
    const char *target;         /* the target's address, or NULL for the script's */
    const char *pcap;           /* write the exchange here (-w), or NULL */
    bool no_raw;                /* receive on the UDP socket (ICRC unchecked) */
    /* The target as given once for every script (--target-file): its address, QP, first
     * PSN, R_Key, VA, length and PMTU, which replace each script's connect (or accept's
     * QP and PSN); NULL: the scripts' own. */
    const struct rs_rc_conn_info *target_info;
    /* A command run (sh -c) before the script connects (--reset), with our QP's
     * parameters in its environment (docs/scripts.md); NULL: none. */
    const char *reset;
    uint64_t linger_ns;         /* --linger: recording after the last completion; 0: the
                                   script's linger statement, else its default */
};

/* One expectation's verdict, or a note that is no expectation (note: strays, the packets
 * of another conversation that the recording holds but did not judge). */
struct rs_script_result {
    bool ok;
    bool note;                  /* not an expectation: ok is true, it counts for nothing */
    char text[160];             /* the expectation as written */
    char evidence[200];         /* "after 41 us (frame 23)", or why not */
};

/* Reads the target's parameters from path (--target-file): one JSON object as our side
 * channel answers ({"ip": ..., "qpn": ..., "psn": ..., "rkey": ..., "va": ...,
 * "length": ..., "pmtu": ...}), on the first line that is neither empty nor a comment. */
int rs_script_target_file(const char *path, struct rs_rc_conn_info *out, char *err);

/* A time as scripts write it, a number and its unit in one word (100ms, 2s, 500us). */
bool rs_script_parse_duration(const char *text, uint64_t *ns);

/* Runs the script; fills results (n_results of them, in script order, then any note; at
 * most RS_SCRIPT_MAX_RESULTS). Returns 0,
 * RS_EIO when the target cannot be reached or set up (err says why), RS_EINVAL
 * for a script that cannot run as written. */
int rs_script_run(struct rs_script *s, const struct rs_script_opts *o,
                  struct rs_script_result *results, unsigned *n_results, char *err);

/* How many of the n results failed (notes never do). */
unsigned rs_script_failures(const struct rs_script_result *r, unsigned n);

/* TAP ("1..N", "ok 1 - ...", a note as "# ...") and a JUnit <testsuite> element of the
 * results (a note in its <system-out>). */
void rs_script_print_tap(FILE *out, const struct rs_script_result *r, unsigned n);
void rs_script_print_junit(FILE *out, const char *suite, const struct rs_script_result *r,
                           unsigned n, double seconds);

#endif /* ROCESHARK_SCRIPT_H */
