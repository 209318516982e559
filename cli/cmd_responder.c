/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_responder.c - `roceshark responder`: the options of the RC responder
 * service (transport/responder/) and the commands of its --control stdin.
 *
 * QPs come from flags (a static peer) or from the TCP side channel (one QP
 * per connecting requester). The responder prints one JSON line with its
 * parameters when it is ready, optionally one line per completion, and its
 * counters as JSON when it exits (SIGINT, SIGTERM or `quit`).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/transport/responder.h>

#include "cli.h"
#include "rc_cli.h"

enum {
    OPT_QPN = RC_OPT_END,
    OPT_QPS,
    OPT_PSN,
    OPT_PEER,
    OPT_PEER_QPN,
    OPT_PEER_PSN,
    OPT_MR,
    OPT_RKEY,
    OPT_VA,
    OPT_RECV,
    OPT_RECV_SIZE,
    OPT_REPOST,
    OPT_QP_ACCESS,
    OPT_LISTEN,
    OPT_NO_LISTEN,
    OPT_IDLE,
    OPT_CM,
    OPT_CM_PORT,
    OPT_APP,
    OPT_CONTROL,
};

struct responder_cli {
    struct rc_cli cli;
    struct rs_responder_opts o;
    bool control;
};

static const char usage[] =
    "usage: roceshark responder --bind IP [options]\n"
    "\n"
    "An IBTA RC responder (and requester) speaking RoCEv2 on UDP port 4791 of IP.\n"
    "\n"
    "connection (a static peer, or requesters that come through the TCP side channel):\n"
    "  --target IP --peer-qpn N --peer-psn N  the requester: its address, QP and first PSN\n"
    "                   (--peer is --target's old name)\n"
    "  --qpn N          our (first) QP number (default 0x11)   --qps N  static QPs (default 1)\n"
    "  --psn N          our first PSN (default 0)\n"
    "  --listen PORT    side channel (default 18515)    --no-listen  none\n"
    "                   a requester's QP lives as long as its connection: freed when it\n"
    "                   closes, or when the QP takes no packet for --idle SECONDS (60; 0:\n"
    "                   never); one address holds at most 64 QPs, more are refused\n"
    "  --cm             RDMA CM on QP 1: rdma_cm's REQs (rping -c, our perf --target cm://)\n"
    "                   get a QP and a REP; a DREQ ends it. Events as JSON lines on stdout\n"
    "  --cm-port PORT   accept only REQs for this rdma_cm port (implies --cm)\n"
    "                   up to 64 requesters at once (more are refused with a reason); a\n"
    "                   line not whole within 5 s closes its connection\n"
    "  --app auto|rping|none  what runs over a CM connection: rping's server loop (READ\n"
    "                   the client's buffer, SEND, WRITE it back, SEND, until its DREQ), on\n"
    "                   rping's port 7174 only (auto, the default), on every port, or never\n"
    "memory:\n"
    "  --mr SIZE[:ACCESS]  a region (repeatable; K/M/G suffixes). ACCESS letters: l local\n"
    "                   write, w remote write, r remote read, a atomic, i invalidatable by a\n"
    "                   SEND with Invalidate (default lwra). The first is 1M unless given.\n"
    "  --rkey K --va V  R_Key and VA of the first region (later ones follow)\n"
    "receives:\n"
    "  --recv N         receive WQEs posted per QP (default 0)   --recv-size B (default 64K)\n"
    "  --repost         post a receive again once it completes\n"
    "QP:\n"
    "  --pmtu N         at most this path MTU (default: the port's active MTU, from the\n"
    "                   interface's as rxe derives it: 1500 -> 1024, 9000 -> 4096)\n"
    "  --pkey P (0xffff)  --qp-access rwa  --max-dest-rd-atomic N (16)\n"
    "  --rnr-timer CODE (12: 0.64 ms)  --timeout N (14)  --retry-cnt N (7)  --rnr-retry N (7)\n"
    "  --cnp-interval US  least time between CNPs of a QP (default 50)\n"
    "  --ack-delay US   hold an ACK up to this long to cover later requests (default 10)\n"
    "  --faults FILE    the fault engine's rules on what is sent and received (see\n"
    "                   roceshark(1), FAULT RULES); what each rule did is printed at the end\n"
    "  --tos N          DSCP/ECN of what we send\n"
    "run:\n"
    "  --control        read commands on stdin: recv N [QPN], recv-bad N [QPN] (answer\n"
    "                   {\"posted\": how many were, \"error\": why, when fewer}), counters,\n"
    "                   state, dump OFFSET LENGTH (of the first region), quit\n"
    "  -v               print every receive completion as JSON\n"
    "  --busy-poll      spin instead of sleeping   --trace  state machine trace on stderr\n"
    "  --no-raw         receive on the UDP socket (no privilege needed; ICRC unchecked)\n";

static int
parse_access(const char *s, unsigned *out)
{
    unsigned a = 0;

    for (; *s != '\0'; s++) {
        switch (*s) {
        case 'l':
            a |= RS_RC_ACCESS_LOCAL_WRITE;
            break;
        case 'w':
            a |= RS_RC_ACCESS_REMOTE_WRITE;
            break;
        case 'r':
            a |= RS_RC_ACCESS_REMOTE_READ;
            break;
        case 'a':
            a |= RS_RC_ACCESS_REMOTE_ATOMIC;
            break;
        case 'i':
            a |= RS_RC_ACCESS_REMOTE_INVALIDATE;
            break;
        case '-':
            break;
        default:
            return -1;
        }
    }
    *out = a;
    return 0;
}

static int
parse_mr(struct responder_cli *r, const char *arg)
{
    char size[32];
    const char *colon = strchr(arg, ':');
    size_t n = colon != NULL ? (size_t)(colon - arg) : strlen(arg);
    struct rs_responder_mr_spec *m = &r->o.mr[r->o.n_mr];

    if (r->o.n_mr == RS_RESPONDER_MAX_MRS)
        return cli_fail(CLI_EXIT_USAGE, "responder: at most %d --mr", RS_RESPONDER_MAX_MRS);
    if (n >= sizeof(size))
        return cli_fail(CLI_EXIT_USAGE, "responder: --mr %s: bad size", arg);
    memcpy(size, arg, n);
    size[n] = '\0';
    m->access = RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL;
    if (!rc_cli_parse_size(size, 1ull << 32, &m->size) ||
        (colon != NULL && parse_access(colon + 1, &m->access) < 0))
        return cli_fail(CLI_EXIT_USAGE, "responder: --mr %s: expected SIZE[:lwrai]", arg);
    r->o.n_mr++;
    return 0;
}

static int
parse_u32(const char *opt, const char *arg, uint32_t max, uint32_t *out)
{
    unsigned long long v;

    if (!cli_parse_uint(arg, 0, max, &v))
        return cli_fail(CLI_EXIT_USAGE, "responder: --%s %s: expected 0..%u", opt, arg, max);
    *out = (uint32_t)v;
    return 0;
}

static int
parse_args(struct responder_cli *r, int argc, char **argv)
{
    char err[RS_ERRBUF_SIZE];
    static const struct option longopts[] = {
        RC_CLI_LONG_OPTIONS,
        {"qpn", required_argument, NULL, OPT_QPN},
        {"qps", required_argument, NULL, OPT_QPS},
        {"psn", required_argument, NULL, OPT_PSN},
        {"target", required_argument, NULL, OPT_PEER},
        {"peer", required_argument, NULL, OPT_PEER},    /* the old name of --target */
        {"peer-qpn", required_argument, NULL, OPT_PEER_QPN},
        {"peer-psn", required_argument, NULL, OPT_PEER_PSN},
        {"mr", required_argument, NULL, OPT_MR},
        {"rkey", required_argument, NULL, OPT_RKEY},
        {"va", required_argument, NULL, OPT_VA},
        {"recv", required_argument, NULL, OPT_RECV},
        {"recv-size", required_argument, NULL, OPT_RECV_SIZE},
        {"repost", no_argument, NULL, OPT_REPOST},
        {"qp-access", required_argument, NULL, OPT_QP_ACCESS},
        {"listen", required_argument, NULL, OPT_LISTEN},
        {"no-listen", no_argument, NULL, OPT_NO_LISTEN},
        {"idle", required_argument, NULL, OPT_IDLE},
        {"cm", no_argument, NULL, OPT_CM},
        {"cm-port", required_argument, NULL, OPT_CM_PORT},
        {"app", required_argument, NULL, OPT_APP},
        {"control", no_argument, NULL, OPT_CONTROL},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    unsigned long long v;
    uint64_t size;
    uint32_t u = 0;
    int opt, rc = 0;
    bool have_peer_qpn = false;

    optind = 1;
    while ((opt = cli_getopt("responder", argc, argv, "hv", longopts, usage)) != CLI_OPT_END) {
        if (opt == CLI_OPT_HELP)
            exit(CLI_EXIT_OK);
        if (opt == CLI_OPT_BAD)
            return CLI_EXIT_USAGE;
        int shared = rc_cli_option(&r->cli, opt, optarg);
        if (shared < 0)
            return -shared;
        if (shared > 0)
            continue;
        switch (opt) {
        case 'v':
            r->o.wc_out = stdout;
            break;
        case OPT_QPN:
            rc = parse_u32("qpn", optarg, 0xffffff, &r->o.qpn0);
            if (rc == 0 && r->o.qpn0 < 2)
                rc = cli_fail(CLI_EXIT_USAGE, "responder: --qpn: QPs 0 and 1 are special");
            break;
        case OPT_QPS:
            rc = parse_u32("qps", optarg, RS_RESPONDER_MAX_QPS, &r->o.n_static);
            break;
        case OPT_PSN:
            rc = parse_u32("psn", optarg, 0xffffff, &r->o.psn);
            break;
        case OPT_PEER:
            if (rs_addr_parse(optarg, r->o.peer_gid, NULL, err) < 0)
                return cli_fail(CLI_EXIT_USAGE, "responder: --target %s", err);
            r->o.have_peer = true;
            break;
        case OPT_PEER_QPN:
            rc = parse_u32("peer-qpn", optarg, 0xffffff, &r->o.peer_qpn);
            have_peer_qpn = true;
            break;
        case OPT_PEER_PSN:
            rc = parse_u32("peer-psn", optarg, 0xffffff, &r->o.peer_psn);
            break;
        case OPT_MR:
            rc = parse_mr(r, optarg);
            break;
        case OPT_RKEY:
            rc = parse_u32("rkey", optarg, UINT32_MAX, &r->o.rkey0);
            break;
        case OPT_VA:
            if (!cli_parse_uint(optarg, 1, UINT64_MAX, &v))
                return cli_fail(CLI_EXIT_USAGE, "responder: --va %s: expected an address",
                                optarg);
            r->o.va0 = v;
            break;
        case OPT_RECV:
            rc = parse_u32("recv", optarg, 65536, &r->o.recv_n);
            break;
        case OPT_RECV_SIZE:
            if (!rc_cli_parse_size(optarg, 1u << 30, &size) || size == 0)
                return cli_fail(CLI_EXIT_USAGE, "responder: --recv-size %s: expected bytes",
                                optarg);
            r->o.recv_size = (uint32_t)size;
            break;
        case OPT_REPOST:
            r->o.repost = true;
            break;
        case OPT_QP_ACCESS:
            if (parse_access(optarg, &u) < 0)
                return cli_fail(CLI_EXIT_USAGE, "responder: --qp-access %s: letters w, r, a",
                                optarg);
            r->cli.attr.access = u & RS_RC_ACCESS_REMOTE_ALL;
            break;
        case OPT_LISTEN:
            rc = parse_u32("listen", optarg, 65535, &u);
            if (rc == 0)
                r->o.listen_port = (uint16_t)u;
            break;
        case OPT_IDLE:
            rc = parse_u32("idle", optarg, 86400, &u);
            if (rc == 0)
                r->o.side_idle_ns = (uint64_t)u * 1000000000ull;
            break;
        case OPT_NO_LISTEN:
            r->o.listen_port = 0;
            break;
        case OPT_CM:
            r->o.cm = true;
            break;
        case OPT_CM_PORT:
            rc = parse_u32("cm-port", optarg, 65535, &u);
            r->o.cm = true;
            r->o.cm_port = (uint16_t)u;
            break;
        case OPT_APP:
            if (strcmp(optarg, "auto") == 0)
                r->o.app = RS_RESPONDER_APP_AUTO;
            else if (strcmp(optarg, "rping") == 0)
                r->o.app = RS_RESPONDER_APP_RPING;
            else if (strcmp(optarg, "none") == 0)
                r->o.app = RS_RESPONDER_APP_NONE;
            else
                return cli_fail(CLI_EXIT_USAGE, "responder: --app %s: expected auto, rping "
                                "or none", optarg);
            break;
        case OPT_CONTROL:
            r->control = true;
            break;
        default:    /* CLI_OPT_BAD, reported */
            return CLI_EXIT_USAGE;
        }
        if (rc != 0)
            return rc;
    }
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "responder: unexpected argument '%s'", argv[optind]);
    if (r->o.have_peer != have_peer_qpn)
        return cli_fail(CLI_EXIT_USAGE, "responder: --target and --peer-qpn go together");
    if (r->o.n_static == 0 || r->o.qpn0 + r->o.n_static - 1 > 0xffffff)
        return cli_fail(CLI_EXIT_USAGE, "responder: --qpn/--qps out of range");
    return 0;
}

/* dump OFFSET LENGTH: bytes of the first region, as hex. */
static void
control_dump(struct rs_responder *r, const char *args)
{
    unsigned long long off, len;
    const uint8_t *mem;

    if (sscanf(args, "%llu %llu", &off, &len) != 2 || len > 65536 ||
        (mem = rs_responder_memory(r, off, len)) == NULL) {
        printf("{\"error\": \"dump OFFSET LENGTH: inside the first region, at most 64K\"}\n");
        return;
    }
    printf("{\"offset\": %llu, \"hex\": \"", off);
    for (unsigned long long k = 0; k < len; k++)
        printf("%02x", mem[k]);
    printf("\"}\n");
}

/* recv N [QPN] and recv-bad N [QPN]: N receives to every QP, or to the one
 * named. The answer says how many were posted in all and, when that is
 * fewer than asked, why. */
static void
control_recv(struct rs_responder *r, const char *args, bool bad)
{
    char a[2][32], why[RS_ERRBUF_SIZE + 32];
    unsigned long long n, qpn = 0;

    int got = sscanf(args, "%31s %31s", a[0], a[1]);
    if (got < 1 || !cli_parse_uint(a[0], 0, UINT32_MAX, &n) ||
        (got == 2 && !cli_parse_uint(a[1], 0, 0xffffff, &qpn))) {
        printf("{\"error\": \"recv N [QPN]: N up to 2^32-1, QPN a QP number\"}\n");
        return;
    }
    uint64_t posted = rs_responder_post_recvs(r, (uint32_t)n, got == 2 ? (int64_t)qpn : -1,
                                              bad, why, sizeof(why));
    printf("{\"posted\": %" PRIu64, posted);
    if (why[0] != '\0')
        printf(", \"error\": \"%s\"", why);
    printf("}\n");
}

/* One command from stdin; false for quit or end of input. */
static bool
control(struct rs_responder *r, void *arg)
{
    char line[256];

    (void)arg;
    if (fgets(line, sizeof(line), stdin) == NULL)
        return false;
    if (strncmp(line, "recv ", 5) == 0) {
        control_recv(r, line + 5, false);
    } else if (strncmp(line, "recv-bad ", 9) == 0) {
        control_recv(r, line + 9, true);
    } else if (strncmp(line, "counters", 8) == 0) {
        rs_rc_counters_print_json(stdout, rs_rc_counters_get(rs_responder_ctx(r)));
    } else if (strncmp(line, "state", 5) == 0) {
        rs_responder_print_state(r, stdout);
    } else if (strncmp(line, "dump ", 5) == 0) {
        control_dump(r, line + 5);
    } else if (strncmp(line, "quit", 4) == 0) {
        return false;
    } else {
        printf("{\"error\": \"unknown command\"}\n");
    }
    fflush(stdout);
    return true;
}

int
cmd_responder(int argc, char **argv)
{
    static struct responder_cli rc_;
    struct responder_cli *c = &rc_;
    struct rs_responder *r = NULL;
    struct rs_rc_udp *udp = NULL;
    struct rs_rc_ctx *ctx = NULL;
    char err[RS_ERRBUF_SIZE];

    memset(c, 0, sizeof(*c));
    rs_responder_opts_init(&c->o);
    rc_cli_init(&c->cli, "responder");
    int rc = parse_args(c, argc, argv);
    if (rc != 0)
        return rc;
    /* Room for what --recv and the control commands post. */
    c->cli.attr.rq_depth = c->o.recv_n > 256 ? c->o.recv_n : 256;
    if ((rc = rc_cli_open(&c->cli, &udp, &ctx)) != 0)
        return rc;
    c->o.attr = c->cli.attr;
    c->o.busy_poll = c->cli.udp.busy_poll;
    memcpy(c->o.local_gid, c->cli.udp.gid, 16);
    c->o.local_scope = c->cli.udp.scope;
    c->o.stopped = rc_cli_stopped;
    c->o.cm_out = stdout;
    if ((rc = rs_responder_open(&c->o, udp, ctx, &r, err)) != 0) {
        rc = cli_fail(cli_exit_code(rc, CLI_EXIT_CAPTURE), "responder: %s", err);
        goto out;
    }
    rc_cli_catch_signals();
    rs_responder_print_start(r, stdout);
    rc = rs_responder_run(r, c->control ? 0 : -1, c->control ? control : NULL, NULL, err);
    if (rc != 0)
        rc = cli_fail(CLI_EXIT_CAPTURE, "responder: %s", err);
    rs_rc_udp_flush(udp);
    rs_rc_counters_print_json(stdout, rs_rc_counters_get(ctx));
out:
    rs_responder_close(r);
    rc_cli_close(&c->cli, udp, ctx);
    return rc;
}
