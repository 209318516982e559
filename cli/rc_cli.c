/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_cli.c - see rc_cli.h.
 */
#include <ctype.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rc_cli.h"

static volatile sig_atomic_t stop_flag;

void
rc_cli_init(struct rc_cli *c, const char *cmd)
{
    memset(c, 0, sizeof(*c));
    c->cmd = cmd;
    rs_rc_qp_attr_init(&c->attr);
    rs_rc_udp_opts_init(&c->udp);
    rs_rc_ctx_opts_init(&c->ctx);
}

static int
bad(struct rc_cli *c, const char *opt, const char *arg, const char *why)
{
    return -cli_fail(CLI_EXIT_USAGE, "%s: --%s %s: %s", c->cmd, opt, arg, why);
}

static void
trace_stderr(void *arg, uint32_t qpn, const char *machine, const char *state, uint32_t psn)
{
    (void)arg;
    fprintf(stderr, "%" PRIu64 " qp 0x%06x %s %s psn %u\n", rs_rc_now_ns(), qpn, machine, state,
            psn);
}

int
rc_cli_option(struct rc_cli *c, int opt, const char *arg)
{
    unsigned long long v;

    switch (opt) {
    case RC_OPT_BIND: {
        char why[RS_ERRBUF_SIZE];
        if (rs_addr_parse(arg, c->udp.gid, &c->udp.scope, why) < 0)
            return -cli_fail(CLI_EXIT_USAGE, "%s: --bind %s", c->cmd, why);
        memcpy(c->ctx.local_gid, c->udp.gid, 16);
        c->have_bind = true;
        return 1;
    }
    case RC_OPT_PMTU:
        if (!cli_parse_uint(arg, 256, 4096, &v) || rs_rc_pmtu_valid((uint32_t)v) == 0)
            return bad(c, "pmtu", arg, "expected 256, 512, 1024, 2048 or 4096");
        c->pmtu_limit = (uint32_t)v;
        return 1;
    case RC_OPT_PKEY:
        if (!cli_parse_uint(arg, 1, 0xffff, &v) || (v & 0x7fff) == 0)
            return bad(c, "pkey", arg, "expected a partition key, 0x0001..0xffff");
        c->attr.pkey = (uint16_t)v;
        return 1;
    case RC_OPT_TIMEOUT:
        if (!cli_parse_uint(arg, 0, 31, &v))
            return bad(c, "timeout", arg, "expected 0..31 (4.096 us * 2^N; 0 waits forever)");
        c->attr.timeout = (uint8_t)v;
        c->timeout_set = true;
        return 1;
    case RC_OPT_RETRY_CNT:
    case RC_OPT_RNR_RETRY:
        if (!cli_parse_uint(arg, 0, 7, &v))
            return bad(c, opt == RC_OPT_RETRY_CNT ? "retry-cnt" : "rnr-retry", arg,
                       "expected 0..7");
        if (opt == RC_OPT_RETRY_CNT)
            c->attr.retry_cnt = (uint8_t)v;
        else
            c->attr.rnr_retry = (uint8_t)v;
        return 1;
    case RC_OPT_RNR_TIMER:
        if (!cli_parse_uint(arg, 0, 31, &v))
            return bad(c, "rnr-timer", arg, "expected an RNR timer code, 0..31");
        c->attr.min_rnr_timer = (uint8_t)v;
        return 1;
    case RC_OPT_MAX_RD_ATOMIC:
    case RC_OPT_MAX_DEST_RD_ATOMIC:
        if (!cli_parse_uint(arg, opt == RC_OPT_MAX_RD_ATOMIC ? 1 : 0, 255, &v))
            return bad(c, opt == RC_OPT_MAX_RD_ATOMIC ? "max-rd-atomic" : "max-dest-rd-atomic",
                       arg, "expected 1..255 (0 allowed for max-dest-rd-atomic)");
        if (opt == RC_OPT_MAX_RD_ATOMIC)
            c->attr.max_rd_atomic = (uint8_t)v;
        else
            c->attr.max_dest_rd_atomic = (uint8_t)v;
        return 1;
    case RC_OPT_TOS:
        if (!cli_parse_uint(arg, 0, 255, &v))
            return bad(c, "tos", arg, "expected 0..255 (DSCP << 2 | ECN)");
        c->udp.tos = c->ctx.tos = (uint8_t)v;
        return 1;
    case RC_OPT_BUSY_POLL:
        c->udp.busy_poll = true;
        return 1;
    case RC_OPT_NO_RAW:
        c->udp.no_raw = true;
        return 1;
    case RC_OPT_TRACE:
        c->ctx.trace = trace_stderr;
        return 1;
    case RC_OPT_CNP_INTERVAL:
        if (!cli_parse_uint(arg, 0, 10000000, &v))
            return bad(c, "cnp-interval", arg, "expected microseconds, 0..10000000");
        c->ctx.cnp_interval_ns = v * 1000;
        return 1;
    case RC_OPT_FAULTS: {
        char err[RS_ERRBUF_SIZE];
        rs_faults_free(c->faults);
        if (rs_faults_load(arg, &c->faults, err) != 0)
            return -cli_fail(CLI_EXIT_USAGE, "%s: --faults: %s", c->cmd, err);
        return 1;
    }
    case RC_OPT_ACK_DELAY:
        if (!cli_parse_uint(arg, 0, 1000000, &v))
            return bad(c, "ack-delay", arg, "expected microseconds, 0..1000000");
        c->ctx.ack_delay_ns = v * 1000;
        return 1;
    default:
        return 0;
    }
}

int
rc_cli_open(struct rc_cli *c, struct rs_rc_udp **udp, struct rs_rc_ctx **ctx)
{
    char err[RS_ERRBUF_SIZE];

    if (!c->have_bind)
        return cli_fail(CLI_EXIT_USAGE, "%s: --bind IP is required", c->cmd);
    if (c->faults != NULL)
        c->udp.hook = rs_faults_hook_init(&c->hook, c->faults);
    int rc = rs_rc_udp_open(udp, &c->udp, err);
    if (rc < 0) {
        rs_faults_free(c->faults);
        c->faults = NULL;
        return cli_fail(CLI_EXIT_CAPTURE, "%s: %s", c->cmd, err);
    }
    uint32_t active = rs_rc_udp_active_mtu(*udp);
    c->attr.pmtu = rs_rc_path_mtu(active, 0, c->pmtu_limit);
    if (c->pmtu_limit > active)
        fprintf(stderr, "roceshark: %s: --pmtu %" PRIu32 ": the port's active MTU is %" PRIu32
                " (interface MTU %" PRIu32 "); using %" PRIu32 "\n", c->cmd, c->pmtu_limit,
                active, rs_rc_udp_if_mtu(*udp), active);
    c->ctx.verify_icrc = rs_rc_udp_checks_icrc(*udp);
    rc = rs_rc_ctx_create(ctx, &c->ctx, rs_rc_udp_link(*udp), err);
    if (rc < 0) {
        rs_rc_udp_close(*udp);
        rs_faults_free(c->faults);
        c->faults = NULL;
        return cli_fail(CLI_EXIT_INTERNAL, "%s: %s", c->cmd, err);
    }
    return 0;
}

void
rc_cli_close(struct rc_cli *c, struct rs_rc_udp *udp, struct rs_rc_ctx *ctx)
{
    rs_rc_ctx_destroy(ctx);
    rs_rc_udp_close(udp);
    if (c->faults != NULL) {
        rs_faults_report(c->faults, stderr);
        rs_faults_free(c->faults);
        c->faults = NULL;
    }
}

bool
rc_cli_parse_size(const char *s, uint64_t max, uint64_t *out)
{
    char buf[32];
    size_t n = s == NULL ? 0 : strlen(s);
    unsigned shift = 0;
    unsigned long long v;

    if (n == 0 || n >= sizeof(buf))
        return false;
    memcpy(buf, s, n + 1);
    switch (toupper((unsigned char)buf[n - 1])) {
    case 'K':
        shift = 10;
        break;
    case 'M':
        shift = 20;
        break;
    case 'G':
        shift = 30;
        break;
    default:
        break;
    }
    if (shift > 0)
        buf[n - 1] = '\0';
    if (!cli_parse_uint(buf, 0, max >> shift, &v))
        return false;
    *out = (uint64_t)v << shift;
    return *out <= max;
}

static void
on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

void
rc_cli_catch_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

bool
rc_cli_stopped(void)
{
    return stop_flag != 0;
}
