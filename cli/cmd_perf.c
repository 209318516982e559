/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_perf.c - `roceshark perf`: the options of perftest's tests over the
 * software RC transport; the tests themselves are transport/perf/.
 *
 * Bandwidth tests keep tx-depth work requests in flight and print bytes,
 * iterations, peak and average bandwidth (MB = 2^20 bytes, as perftest) and
 * message rate; latency tests ping-pong and print half the round trip:
 * minimum, maximum, typical (median), average, standard deviation, 99% and
 * 99.9%.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <roceshark/dissectors/oob.h>
#include <roceshark/transport/perf.h>

#include "cli.h"
#include "rc_cli.h"

struct perf_cli {
    struct rc_cli cli;
    struct rs_perf p;
    bool counters;
};

enum {
    OPT_CONNECT = RC_OPT_END,
    OPT_QPN,
    OPT_JSON,
    OPT_RX_DEPTH,
    OPT_COUNTERS,
    OPT_EVENTS,
    OPT_REPORT_GBITS,
    OPT_MR,
    OPT_REPORT_BOTH,
};

/* perftest's letters, and rping's as `perf rping` takes them: -C COUNT, -S SIZE, -v, -V. */
#define PERF_OPTS "hs:n:m:t:p:D:q:x:Rba"
#define RPING_OPTS PERF_OPTS "C:S:vV"

static const char usage[] =
    "usage: roceshark perf TEST --bind IP [--target [SETUP://]SERVER[:PORT]] [options]\n"
    "\n"
    "perftest's and ibv_rc_pingpong's tests over the software RC transport (RoCEv2 on\n"
    "UDP 4791). Start the server (no --target) first. It answers our own clients and\n"
    "perftest's (ib_write_bw ... against it); `perf pingpong` answers ibv_rc_pingpong.\n"
    "SETUP is how the client sets the connection up: roceshark:// (ours, the default:\n"
    "the client decides the parameters), perftest:// (perftest's exchange: give both\n"
    "sides the same -s and -n), pingpong:// (ibv_rc_pingpong's; pingpong's default),\n"
    "cm:// (RDMA CM on QP 1, to `roceshark responder --cm`, whose REP names its region;\n"
    "PORT is rdma_cm's port, default 18515; bandwidth tests only), perftest+cm:// (as\n"
    "-R: perftest -R's protocol, RDMA CM then perftest's exchange as SENDs, to or from\n"
    "ib_write_bw -R and `roceshark perf -R`). Over CM, each side takes -s and -n from\n"
    "its own command line, as perftest -R does. --connect is --target's old name.\n"
    "`perf rping --target [cm://]IP[:PORT]` runs rping's client (rping -c) against\n"
    "rping -s or `responder --cm` (PORT default 7174, rping's); it takes rping's letters:\n"
    "-C COUNT (default 0: until interrupted), -S SIZE (26..65535, default 64), -v (print\n"
    "\"ping data: ...\" for each ping), -V (check that each ping came back intact).\n"
    "\n"
    "TEST: write_bw, read_bw, send_bw, atomic_bw (bandwidth), send_lat, write_lat,\n"
    "      read_lat, atomic_lat (latency), pingpong (ibv_rc_pingpong's), rping (librdmacm's)\n"
    "  -s SIZE          message size (K/M suffixes; default 65536 for bw, 2 for lat,\n"
    "                   8 for atomic_bw and atomic_lat, 4096 for pingpong)\n"
    "  -n ITERS         iterations (default 5000 for bw, 1000 for lat and pingpong)\n"
    "  -D SECONDS       run a bandwidth test this long instead of -n iterations\n"
    "  -m, --pmtu N     256..4096: at most this path MTU (default: the port's active\n"
    "                   MTU, from the interface's as rxe derives it, 1500 -> 1024,\n"
    "                   9000 -> 4096; 1024 for pingpong, as the tool); never more\n"
    "  -t, --tx-depth N work requests in flight (bw; default 128)\n"
    "  --rx-depth N     receives posted (send tests; default 512)\n"
    "  -p, --port N     TCP port of the exchange, rdma_cm's port with -R (default 18515)\n"
    "  -q N             QPs of a bandwidth test (1..16), as perftest's -q: each runs -n\n"
    "  -b               bidirectional, as perftest's -b: both sides run the bandwidth test\n"
    "                   at once and print the sum (give both sides -b)\n"
    "  -a               every size from 2 bytes to 8 MiB, a row each (bandwidth tests)\n"
    "  --report-both    with -b, each direction's row too (perftest's --report-both)\n"
    "  -x N             GID index: accepted for perftest's command lines; our GID is\n"
    "                   --bind's address, ::ffff:a.b.c.d\n"
    "  -R               RDMA CM, as perftest's -R: a server listens on QP 1 for the REQs\n"
    "                   of rdma_cm's port -p; --target IP means perftest+cm://IP\n"
    "  --report_gbits   bandwidth in Gb/sec instead of MB/sec\n"
    "  --mr SIZE        server: the most bytes of regions a client's test may make it\n"
    "                   register (default 256M; a larger -s is refused, with the reason)\n"
    "  --qpn N          our QP number (default 0x11)\n"
    "  --json           also print the results as one JSON line\n"
    "  --counters       print the transport's counters as JSON at the end\n"
    "  --events         sleep until packets arrive instead of polling (perftest's -e)\n"
    "  --ack-delay US   hold ACKs up to this long to cover later requests (default 10)\n"
    "  --faults FILE    the fault engine's rules on what is sent and received (see\n"
    "                   roceshark(1), FAULT RULES); what each rule did is printed at the end\n"
    "  --timeout N      local ACK timeout 4.096 us * 2^N (default 14, perftest's; 17, rdma_cm's,\n"
    "                   over CM)\n"
    "  --retry-cnt N --rnr-retry N --max-rd-atomic N --tos N --no-raw --trace\n";

/* What `perf rping` needs beyond the options' own checks. It sleeps between packets, as
 * rping sleeps on its completion channel (--events is its only way). */
static int
rping_args(struct rs_perf *p)
{
    if (!p->client)
        return cli_fail(CLI_EXIT_USAGE, "perf: rping is a client (rping -c): its server is "
                        "`roceshark responder --cm`, or rping -s; give --target IP");
    if (p->setup != RS_OOB_SETUP_CM)
        return cli_fail(CLI_EXIT_USAGE, "perf: rping connects through RDMA CM (cm://), not "
                        "%s://", rs_oob_setup_name(p->setup));
    if (p->size < RS_OOB_RPING_MIN_SIZE || p->size > RS_OOB_RPING_MAX_SIZE)
        return cli_fail(CLI_EXIT_USAGE, "perf: rping: size %" PRIu64 ": expected %d..%d, as "
                        "rping", p->size, RS_OOB_RPING_MIN_SIZE, RS_OOB_RPING_MAX_SIZE);
    if (p->duration > 0)
        return cli_fail(CLI_EXIT_USAGE, "perf: rping: -D: rping counts pings (-C)");
    return 0;
}

static int
parse_args(struct perf_cli *pc, int argc, char **argv)
{
    static const struct option longopts[] = {
        RC_CLI_LONG_OPTIONS,
        {"target", required_argument, NULL, OPT_CONNECT},
        {"connect", required_argument, NULL, OPT_CONNECT},  /* the old name of --target */
        {"qpn", required_argument, NULL, OPT_QPN},
        {"json", no_argument, NULL, OPT_JSON},
        {"rx-depth", required_argument, NULL, OPT_RX_DEPTH},
        {"counters", no_argument, NULL, OPT_COUNTERS},
        {"events", no_argument, NULL, OPT_EVENTS},
        {"report_gbits", no_argument, NULL, OPT_REPORT_GBITS},
        {"report-gbits", no_argument, NULL, OPT_REPORT_GBITS},
        {"mr", required_argument, NULL, OPT_MR},
        {"report-both", no_argument, NULL, OPT_REPORT_BOTH},
        {"report_both", no_argument, NULL, OPT_REPORT_BOTH},
        {"bidirectional", no_argument, NULL, 'b'},
        {"all", no_argument, NULL, 'a'},
        {"size", required_argument, NULL, 's'},
        {"iters", required_argument, NULL, 'n'},
        {"tx-depth", required_argument, NULL, 't'},
        {"port", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct rs_perf *p = &pc->p;
    unsigned long long v;
    bool events = false, rdma_cm = false, scheme = false;
    int opt;

    if (argc < 2)
        return cli_fail(CLI_EXIT_USAGE, "perf: no test given (%s; try 'roceshark perf -h')",
                        rs_perf_test_names());
    if (argv[1][0] == '-') {
        /* An option before the test: help, an unknown one, or a known one misplaced. */
        optind = 1;
        opt = cli_getopt("perf", argc, argv, RPING_OPTS, longopts, usage);
        if (opt == CLI_OPT_HELP)
            exit(CLI_EXIT_OK);
        if (opt != CLI_OPT_BAD)
            cli_fail(CLI_EXIT_USAGE, "perf: the test comes first: 'roceshark perf TEST "
                     "[options]' (try 'roceshark perf -h')");
        return CLI_EXIT_USAGE;
    }
    p->test = rs_perf_test_find(argv[1]);
    if (p->test == NULL)
        return cli_fail(CLI_EXIT_USAGE, "perf: %s: unknown test (%s)", argv[1],
                        rs_perf_test_names());
    /* ibv_rc_pingpong's exchange carries no MTU: both sides use 1024 unless told. */
    pc->cli.pmtu_limit = p->test->pingpong ? 1024 : 0;
    p->size = p->test->pingpong ? 4096 : p->test->latency ? 2 : 65536;
    if (p->test->opcode == RS_RC_WR_ATOMIC_FETCH_AND_ADD)
        p->size = 8;
    p->iters = p->test->latency ? 1000 : 5000;
    p->setup = p->test->pingpong ? RS_OOB_SETUP_PINGPONG : RS_OOB_SETUP_ROCESHARK;
    p->tx_depth = 128;
    p->rx_depth = 512;
    p->port = 18515;
    p->qpn = 0x11;
    optind = 2;
    if (p->test->rping) {
        p->size = RS_OOB_RPING_DEFAULT_SIZE;
        p->iters = 0;
        p->setup = RS_OOB_SETUP_CM;
        p->port = RS_OOB_RPING_PORT;
        p->rx_depth = 2;        /* rping posts one receive at a time */
    }
    const char *letters = p->test->rping ? RPING_OPTS : PERF_OPTS;
    while ((opt = cli_getopt("perf", argc, argv, letters, longopts, usage)) != CLI_OPT_END) {
        if (opt == CLI_OPT_HELP)
            exit(CLI_EXIT_OK);
        if (opt == CLI_OPT_BAD)
            return CLI_EXIT_USAGE;
        int shared = rc_cli_option(&pc->cli, opt == 'm' ? RC_OPT_PMTU : opt, optarg);
        if (shared < 0)
            return -shared;
        if (shared > 0)
            continue;
        switch (opt) {
        case 's':
            if (!rc_cli_parse_size(optarg, 1u << 30, &p->size))
                return cli_fail(CLI_EXIT_USAGE, "perf: -s %s: expected bytes (up to 1G)",
                                optarg);
            break;
        case 'n':
            if (!cli_parse_uint(optarg, 1, 100000000, &v))
                return cli_fail(CLI_EXIT_USAGE, "perf: -n %s: expected 1..100000000", optarg);
            p->iters = v;
            break;
        case 'C':
            if (!cli_parse_uint(optarg, 0, 100000000, &v))
                return cli_fail(CLI_EXIT_USAGE, "perf: rping: -C %s: expected 0..100000000 "
                                "(0: until interrupted)", optarg);
            p->iters = v;
            break;
        case 'S':
            if (!cli_parse_uint(optarg, RS_OOB_RPING_MIN_SIZE, RS_OOB_RPING_MAX_SIZE, &v))
                return cli_fail(CLI_EXIT_USAGE, "perf: rping: -S %s: expected %d..%d, as "
                                "rping", optarg, RS_OOB_RPING_MIN_SIZE, RS_OOB_RPING_MAX_SIZE);
            p->size = v;
            break;
        case 'v':
            p->verbose = true;
            break;
        case 'V':
            p->validate = true;
            break;
        case 't':
            if (!cli_parse_uint(optarg, 1, 4096, &v))
                return cli_fail(CLI_EXIT_USAGE, "perf: -t %s: expected 1..4096", optarg);
            p->tx_depth = (uint32_t)v;
            break;
        case OPT_RX_DEPTH:
            if (!cli_parse_uint(optarg, 1, 16384, &v))
                return cli_fail(CLI_EXIT_USAGE, "perf: --rx-depth %s: expected 1..16384",
                                optarg);
            p->rx_depth = (uint32_t)v;
            break;
        case 'p':
            if (!cli_parse_uint(optarg, 1, 65535, &v))
                return cli_fail(CLI_EXIT_USAGE, "perf: -p %s: expected a TCP port", optarg);
            p->port = (uint16_t)v;
            break;
        case OPT_CONNECT: {
            struct rs_oob_target t;
            char err[RS_ERRBUF_SIZE];
            if (rs_oob_target_parse(optarg, &t, err) < 0)
                return cli_fail(CLI_EXIT_USAGE, "perf: --target %s", err);
            scheme = strstr(optarg, "://") != NULL;
            if (scheme || (!p->test->pingpong && !p->test->rping))
                p->setup = t.setup;
            memcpy(p->server_gid, t.gid, 16);
            p->server_scope = t.scope;
            if (t.port != 0)
                p->port = t.port;
            p->client = true;
            break;
        }
        case 'D':
            if (!cli_parse_uint(optarg, 1, 86400, &v))
                return cli_fail(CLI_EXIT_USAGE, "perf: -D %s: expected seconds (1..86400)",
                                optarg);
            p->duration = (double)v;
            break;
        case 'q':
            if (!cli_parse_uint(optarg, 1, RS_PERF_MAX_QPS, &v))
                return cli_fail(CLI_EXIT_USAGE, "perf: -q %s: expected 1..%d QPs", optarg,
                                RS_PERF_MAX_QPS);
            p->n_qps = (uint32_t)v;
            break;
        case 'b':
            p->duplex = true;
            break;
        case 'a':
            p->all_sizes = true;
            break;
        case OPT_REPORT_BOTH:
            p->report_both = true;
            break;
        case 'x':
            if (!cli_parse_uint(optarg, 0, 255, &v))
                return cli_fail(CLI_EXIT_USAGE, "perf: -x %s: expected a GID index (0..255)",
                                optarg);
            break;
        case 'R':
            rdma_cm = true;
            break;
        case OPT_REPORT_GBITS:
            p->report_gbits = true;
            break;
        case OPT_MR:
            if (!rc_cli_parse_size(optarg, 1ull << 40, &p->mr_max) || p->mr_max == 0)
                return cli_fail(CLI_EXIT_USAGE, "perf: --mr %s: expected bytes (K/M/G)", optarg);
            break;
        case OPT_QPN:
            if (!cli_parse_uint(optarg, 2, 0xffffff, &v))
                return cli_fail(CLI_EXIT_USAGE, "perf: --qpn %s: expected 2..0xffffff", optarg);
            p->qpn = (uint32_t)v;
            break;
        case OPT_JSON:
            p->json = true;
            break;
        case OPT_COUNTERS:
            pc->counters = true;
            break;
        case OPT_EVENTS:
            events = true;
            break;
        default:    /* CLI_OPT_BAD, reported */
            return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "perf: unexpected argument '%s'", argv[optind]);
    /* -R is perftest's: its protocol on both sides. Our responder's (cm://)
     * is named, never guessed from a REP (transport/perf/README.md). */
    if (rdma_cm && scheme && p->setup != RS_OOB_SETUP_PERFTEST_CM)
        return cli_fail(CLI_EXIT_USAGE, "perf: -R: speaks perftest -R's protocol, not %s:// "
                        "(give --target ADDR or perftest+cm://ADDR)",
                        rs_oob_setup_name(p->setup));
    if (rdma_cm)
        p->setup = RS_OOB_SETUP_PERFTEST_CM;
    if (p->test->rping)
        return rping_args(p);
    if (p->setup == RS_OOB_SETUP_PERFTEST_CM && p->test->pingpong)
        return cli_fail(CLI_EXIT_USAGE, "perf: -R: pingpong has no RDMA CM setup");
    if (p->setup == RS_OOB_SETUP_CM && (p->test->latency || p->test->pingpong))
        return cli_fail(CLI_EXIT_USAGE, "perf: --target cm://: %s needs a peer that answers "
                        "its pings; over CM only the bandwidth tests run", p->test->name);
    if (p->test->pingpong != (p->setup == RS_OOB_SETUP_PINGPONG))
        return cli_fail(CLI_EXIT_USAGE, "perf: %s speaks %s, not %s://", p->test->name,
                        p->test->pingpong ? "ibv_rc_pingpong's exchange" : "perftest's or ours",
                        rs_oob_setup_name(p->setup));
    if (p->duration > 0 && p->test->latency)
        return cli_fail(CLI_EXIT_USAGE, "perf: -D: only the bandwidth tests run by time");
    if ((p->n_qps > 1 || p->duplex || p->all_sizes) && (p->test->latency || p->test->pingpong))
        return cli_fail(CLI_EXIT_USAGE, "perf: %s: -q, -b and -a are the bandwidth tests' "
                        "(perftest's latency tests take one QP, one way, one size)",
                        p->test->name);
    if ((p->n_qps > 1 || p->duplex) && (p->setup == RS_OOB_SETUP_CM ||
                                        p->setup == RS_OOB_SETUP_PERFTEST_CM))
        return cli_fail(CLI_EXIT_USAGE, "perf: -q and -b over RDMA CM are not served: one QP, "
                        "one way (give the TCP exchange: perftest:// or ours)");
    if (p->all_sizes && p->duration > 0)
        return cli_fail(CLI_EXIT_USAGE, "perf: -a and -D: every size, or one size for a time");
    if (p->test->opcode == RS_RC_WR_ATOMIC_FETCH_AND_ADD && p->size != 8)
        return cli_fail(CLI_EXIT_USAGE, "perf: %s moves 8 bytes (-s 8)", p->test->name);
    /* The ACK timeout: perftest's default (14) over its TCP exchange, rdma_cm's over CM,
     * where the kernel sets the QP's (perftest -R leaves it to rdma_cm). */
    if (!pc->cli.timeout_set &&
        (p->setup == RS_OOB_SETUP_CM || p->setup == RS_OOB_SETUP_PERFTEST_CM))
        pc->cli.attr.timeout = RS_CM_DEFAULT_ACK_TIMEOUT;
    /* perftest polls its completion queue without sleeping unless told to
     * wait for events (-e); we do the same with the socket. */
    pc->cli.udp.busy_poll = !events;
    if (p->test->latency && p->size == 0)
        p->size = 1;    /* the last byte is the ping-pong marker */
    return 0;
}

/* Packets the kernel would not send never reached the wire, whatever the transport's
 * retries made of it: said on stderr, before the error they may have caused. */
static void
report_tx_errors(const struct rs_perf *p)
{
    int e = 0;
    uint32_t len = 0;
    uint64_t n = rs_rc_udp_tx_errors(p->udp, &e, &len);

    if (n == 0)
        return;
    fprintf(stderr, "roceshark: perf: the kernel refused to send %" PRIu64 " of %" PRIu64
            " packets: %s (the last: %" PRIu32 " bytes; interface MTU %" PRIu32 ")\n", n,
            rs_rc_counters_get(p->ctx)->tx_packets, strerror(e), len, rs_rc_udp_if_mtu(p->udp));
}

int
cmd_perf(int argc, char **argv)
{
    static struct perf_cli pc;
    struct rs_perf *p = &pc.p;
    char err[RS_ERRBUF_SIZE];

    memset(&pc, 0, sizeof(pc));
    p->fd = -1;
    rc_cli_init(&pc.cli, "perf");
    int rc = parse_args(&pc, argc, argv);
    if (rc != 0)
        return rc;
    if ((rc = rc_cli_open(&pc.cli, &p->udp, &p->ctx)) != 0)
        return rc;
    p->attr = pc.cli.attr;
    p->busy_poll = pc.cli.udp.busy_poll;
    memcpy(p->local_gid, pc.cli.udp.gid, 16);
    p->local_scope = pc.cli.udp.scope;
    p->stopped = rc_cli_stopped;
    /* PSNs that differ per run, as perftest's random ones do. */
    p->psn = (uint32_t)(rs_rc_now_ns() / 1000) & 0xffffff;
    rc_cli_catch_signals();
    if ((rc = rs_perf_setup(p, err)) == 0 && (rc = rs_perf_exchange(p, err)) == 0) {
        rs_perf_print_header(p);
        rc = rs_perf_run(p, err);
        if (pc.counters)
            rs_rc_counters_print_json(stdout, rs_rc_counters_get(p->ctx));
    }
    report_tx_errors(p);
    if (rc != 0)
        rc = cli_fail(cli_exit_code(rc, CLI_EXIT_CAPTURE), "perf: %s", err);
    /* The exchange's connection last, after the UDP port: our client waits for its end, so
     * once the client has returned, our address is free for the next server. */
    int side = p->fd;
    p->fd = -1;
    rs_perf_release(p);
    rc_cli_close(&pc.cli, p->udp, p->ctx);
    if (side >= 0)
        close(side);
    return rc;
}
