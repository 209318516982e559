/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_cli.h - what `roceshark responder` and `roceshark perf` share: options
 * that set QP attributes, memory regions, the JSON of counters and
 * completions, and the signals that stop them.
 */
#ifndef ROCESHARK_RC_CLI_H
#define ROCESHARK_RC_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <roceshark/inject/faults.h>
#include <roceshark/transport/rc.h>

/* Long options both commands take; their values start at RC_OPT_BASE. */
enum {
    RC_OPT_BASE = 0x1000,
    RC_OPT_BIND = RC_OPT_BASE,
    RC_OPT_PMTU,
    RC_OPT_PKEY,
    RC_OPT_TIMEOUT,
    RC_OPT_RETRY_CNT,
    RC_OPT_RNR_RETRY,
    RC_OPT_RNR_TIMER,
    RC_OPT_MAX_RD_ATOMIC,
    RC_OPT_MAX_DEST_RD_ATOMIC,
    RC_OPT_TOS,
    RC_OPT_BUSY_POLL,
    RC_OPT_NO_RAW,
    RC_OPT_TRACE,
    RC_OPT_CNP_INTERVAL,
    RC_OPT_ACK_DELAY,
    RC_OPT_FAULTS,
    RC_OPT_END
};

#define RC_CLI_LONG_OPTIONS                                                               \
    {"bind", required_argument, NULL, RC_OPT_BIND},                                       \
    {"pmtu", required_argument, NULL, RC_OPT_PMTU},                                       \
    {"pkey", required_argument, NULL, RC_OPT_PKEY},                                       \
    {"timeout", required_argument, NULL, RC_OPT_TIMEOUT},                                 \
    {"retry-cnt", required_argument, NULL, RC_OPT_RETRY_CNT},                             \
    {"rnr-retry", required_argument, NULL, RC_OPT_RNR_RETRY},                             \
    {"rnr-timer", required_argument, NULL, RC_OPT_RNR_TIMER},                             \
    {"max-rd-atomic", required_argument, NULL, RC_OPT_MAX_RD_ATOMIC},                     \
    {"max-dest-rd-atomic", required_argument, NULL, RC_OPT_MAX_DEST_RD_ATOMIC},           \
    {"tos", required_argument, NULL, RC_OPT_TOS},                                         \
    {"busy-poll", no_argument, NULL, RC_OPT_BUSY_POLL},                                   \
    {"no-raw", no_argument, NULL, RC_OPT_NO_RAW},                                         \
    {"trace", no_argument, NULL, RC_OPT_TRACE},                                           \
    {"cnp-interval", required_argument, NULL, RC_OPT_CNP_INTERVAL},                       \
    {"ack-delay", required_argument, NULL, RC_OPT_ACK_DELAY},                             \
    {"faults", required_argument, NULL, RC_OPT_FAULTS}

/* The settings those options make. */
struct rc_cli {
    const char *cmd;                /* "responder", "perf" */
    bool have_bind;
    /* attr.pmtu is set by rc_cli_open(): the port's active MTU (the interface's, as rxe
     * derives it), lowered to pmtu_limit (--pmtu) when that is given (0: none). */
    struct rs_rc_qp_attr attr;
    uint32_t pmtu_limit;
    bool timeout_set;               /* --timeout given (else perftest's 14, or rdma_cm's) */
    struct rs_rc_udp_opts udp;
    struct rs_rc_ctx_opts ctx;
    /* --faults: the engine between the transport and the sockets. */
    struct rs_faults *faults;
    struct rs_faults_hook hook;
};

void rc_cli_init(struct rc_cli *c, const char *cmd);
/* Applies one of the shared options; returns 1 when opt was one of them,
 * 0 when not, or a CLI exit code (negated) after printing the error. */
int rc_cli_option(struct rc_cli *c, int opt, const char *arg);
/* Opens the UDP port on --bind and a context on it, with tracing to stderr, and sets
 * attr.pmtu from the port's active MTU and --pmtu (a note on stderr when --pmtu asked
 * for more than the port carries, as perftest says "Changing to active mtu"). */
int rc_cli_open(struct rc_cli *c, struct rs_rc_udp **udp, struct rs_rc_ctx **ctx);
/* Destroys the context and closes the port; with --faults, prints what each rule did. */
void rc_cli_close(struct rc_cli *c, struct rs_rc_udp *udp, struct rs_rc_ctx *ctx);

/* A size with an optional K, M or G suffix (powers of 1024). */
bool rc_cli_parse_size(const char *s, uint64_t max, uint64_t *out);
/* SIGINT and SIGTERM set the flag instead of ending the process. */
void rc_cli_catch_signals(void);
bool rc_cli_stopped(void);

#endif /* ROCESHARK_RC_CLI_H */
