/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * misbehaving_responder.c - the responder service built with RS_RC_MISBEHAVE, breaking
 * one rule on purpose, for integration.script: the conformance suite must fail against it,
 * on the right script, with the right evidence.
 *
 * usage: misbehaving_responder --bind IP MODE, where MODE is one of --nak-twice, --no-rnr,
 * --atomic-twice, --faa-adds-compare, --dup-malformed, --msn-short and --no-psn-wrap
 * Listens on the side channel (18515) and serves until SIGTERM or SIGINT; says
 * "misbehaving responder: ready" on stderr once it does.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/transport/responder.h>

extern unsigned rs_rc_misbehave;

static volatile sig_atomic_t stop_flag;

static void
on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static bool
stopped(void)
{
    return stop_flag != 0;
}

int
main(int argc, char **argv)
{
    struct rs_responder_opts o;
    struct rs_rc_udp_opts uo;
    struct rs_rc_ctx_opts co;
    struct rs_rc_udp *udp;
    struct rs_rc_ctx *ctx;
    struct rs_responder *r;
    char err[RS_ERRBUF_SIZE];

    /* The rules it breaks (RS_RC_MISBEHAVE_* in rc_int.h), by option. */
    static const char *const modes[] = {"--nak-twice", "--no-rnr", "--atomic-twice",
                                        "--faa-adds-compare", "--dup-malformed", "--msn-short",
                                        "--no-psn-wrap"};
    const unsigned n_modes = sizeof(modes) / sizeof(modes[0]);
    unsigned mode = 0;
    while (argc == 4 && mode < n_modes && strcmp(argv[3], modes[mode]) != 0)
        mode++;
    if (argc != 4 || strcmp(argv[1], "--bind") != 0 || mode == n_modes) {
        fprintf(stderr, "usage: misbehaving_responder --bind IP (--nak-twice | --no-rnr | "
                "--atomic-twice | --faa-adds-compare | --dup-malformed | --msn-short | "
                "--no-psn-wrap)\n");
        return 1;
    }
    rs_rc_misbehave = 1u << mode;
    rs_responder_opts_init(&o);
    rs_rc_udp_opts_init(&uo);
    rs_rc_ctx_opts_init(&co);
    if (rs_addr_parse(argv[2], uo.gid, &uo.scope, err) < 0) {
        fprintf(stderr, "misbehaving responder: %s\n", err);
        return 1;
    }
    memcpy(co.local_gid, uo.gid, 16);
    memcpy(o.local_gid, uo.gid, 16);
    o.local_scope = uo.scope;
    o.listen_port = RS_RESPONDER_DEFAULT_LISTEN;
    o.stopped = stopped;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    if (rs_rc_udp_open(&udp, &uo, err) < 0) {
        fprintf(stderr, "misbehaving responder: %s\n", err);
        return 4;
    }
    co.verify_icrc = rs_rc_udp_checks_icrc(udp);
    if (rs_rc_ctx_create(&ctx, &co, rs_rc_udp_link(udp), err) < 0 ||
        rs_responder_open(&o, udp, ctx, &r, err) != 0) {
        fprintf(stderr, "misbehaving responder: %s\n", err);
        return 4;
    }
    fprintf(stderr, "misbehaving responder: ready\n");
    int rc = rs_responder_run(r, -1, NULL, NULL, err);
    rs_responder_close(r);
    rs_rc_ctx_destroy(ctx);
    rs_rc_udp_close(udp);
    return rc == 0 ? 0 : 4;
}
