/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_perf.c - `roceshark perf`: perftest's tests over the software RC
 * transport, with perftest's output.
 *
 * As with ib_write_bw and friends, one side runs as the server and the
 * other connects to it over TCP (port 18515) to exchange QP numbers, PSNs,
 * R_Keys and the test parameters, which the client decides. Bandwidth tests
 * keep tx-depth work requests in flight and print bytes, iterations, peak
 * and average bandwidth (MB = 2^20 bytes, as perftest) and message rate;
 * latency tests ping-pong and print half the round trip: minimum, maximum,
 * typical (median), average, standard deviation, 99% and 99.9%.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "perf.h"

static const struct perf_test_info tests[] = {
    {"write_bw", "RDMA_Write BW Test", false, RS_RC_WR_RDMA_WRITE},
    {"read_bw", "RDMA_Read BW Test", false, RS_RC_WR_RDMA_READ},
    {"send_bw", "Send BW Test", false, RS_RC_WR_SEND},
    {"send_lat", "Send Latency Test", true, RS_RC_WR_SEND},
    {"write_lat", "RDMA_Write Latency Test", true, RS_RC_WR_RDMA_WRITE},
};

enum {
    OPT_CONNECT = RC_OPT_END,
    OPT_QPN,
    OPT_JSON,
    OPT_RX_DEPTH,
    OPT_COUNTERS,
    OPT_EVENTS,
};

static const char usage[] =
    "usage: roceshark perf TEST --bind IP [--connect SERVER] [options]\n"
    "\n"
    "perftest's tests over the software RC transport (RoCEv2 on UDP 4791). Start the\n"
    "server (no --connect) first; the client decides the parameters and both print.\n"
    "\n"
    "TEST: write_bw, read_bw, send_bw (bandwidth), send_lat, write_lat (latency)\n"
    "  -s SIZE          message size (K/M suffixes; default 65536 for bw, 2 for lat)\n"
    "  -n ITERS         iterations (default 5000 for bw, 1000 for lat)\n"
    "  -m, --pmtu N     256..4096 (default 4096)\n"
    "  -t, --tx-depth N work requests in flight (bw; default 128)\n"
    "  --rx-depth N     receives posted (send tests; default 512)\n"
    "  -p, --port N     TCP port of the side channel (default 18515)\n"
    "  --qpn N          our QP number (default 0x11)\n"
    "  --json           also print the results as one JSON line\n"
    "  --counters       print the transport's counters as JSON at the end\n"
    "  --events         sleep until packets arrive instead of polling (perftest's -e)\n"
    "  --ack-delay US   hold ACKs up to this long to cover later requests (default 10)\n"
    "  --timeout N --retry-cnt N --rnr-retry N --max-rd-atomic N --tos N --no-raw --trace\n";

const struct perf_test_info *
perf_test_find(const char *name)
{
    for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
        if (strcmp(tests[i].name, name) == 0)
            return &tests[i];
    return NULL;
}

static int
parse_args(struct perf *p, int argc, char **argv)
{
    static const struct option longopts[] = {
        RC_CLI_LONG_OPTIONS,
        {"connect", required_argument, NULL, OPT_CONNECT},
        {"qpn", required_argument, NULL, OPT_QPN},
        {"json", no_argument, NULL, OPT_JSON},
        {"rx-depth", required_argument, NULL, OPT_RX_DEPTH},
        {"counters", no_argument, NULL, OPT_COUNTERS},
        {"events", no_argument, NULL, OPT_EVENTS},
        {"size", required_argument, NULL, 's'},
        {"iters", required_argument, NULL, 'n'},
        {"tx-depth", required_argument, NULL, 't'},
        {"port", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    unsigned long long v;
    bool events = false;
    int opt;

    if (argc < 2 || argv[1][0] == '-') {
        if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
            fputs(usage, stdout);
            exit(CLI_EXIT_OK);
        }
        fputs(usage, stderr);
        return CLI_EXIT_USAGE;
    }
    p->test = perf_test_find(argv[1]);
    if (p->test == NULL)
        return cli_fail(CLI_EXIT_USAGE, "perf: %s: unknown test (write_bw, read_bw, send_bw, "
                        "send_lat, write_lat)", argv[1]);
    p->cli.attr.pmtu = 4096;
    p->size = p->test->latency ? 2 : 65536;
    p->iters = p->test->latency ? 1000 : 5000;
    p->tx_depth = 128;
    p->rx_depth = 512;
    p->port = 18515;
    p->qpn = 0x11;
    optind = 2;
    while ((opt = getopt_long(argc, argv, "hs:n:m:t:p:", longopts, NULL)) != -1) {
        int shared = rc_cli_option(&p->cli, opt == 'm' ? RC_OPT_PMTU : opt, optarg);
        if (shared < 0)
            return -shared;
        if (shared > 0)
            continue;
        switch (opt) {
        case 'h':
            fputs(usage, stdout);
            exit(CLI_EXIT_OK);
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
        case OPT_CONNECT:
            if (!rs_rc_parse_ipv4(optarg, p->server_ip))
                return cli_fail(CLI_EXIT_USAGE, "perf: --connect %s: expected IPv4", optarg);
            p->client = true;
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
            p->counters = true;
            break;
        case OPT_EVENTS:
            events = true;
            break;
        default:
            fputs(usage, stderr);
            return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "perf: unexpected argument '%s'", argv[optind]);
    /* perftest polls its completion queue without sleeping unless told to
     * wait for events (-e); we do the same with the socket. */
    p->cli.udp.busy_poll = !events;
    if (p->test->latency && p->size == 0)
        p->size = 1;    /* the last byte is the ping-pong marker */
    return 0;
}

/* Local memory: the buffer the test moves, and receive slots. */
static int
setup_memory(struct perf *p)
{
    char err[RS_ERRBUF_SIZE];

    p->buf = rc_cli_alloc(2 * p->size);
    p->rbuf_len = (uint64_t)p->rx_depth * (p->size > 0 ? p->size : 1);
    p->rbuf = rc_cli_alloc(p->rbuf_len);
    if (p->buf == NULL || p->rbuf == NULL)
        return cli_fail(CLI_EXIT_INTERNAL, "perf: out of memory for %" PRIu64 "-byte buffers",
                        p->size);
    for (uint64_t i = 0; i < p->size; i++)
        p->buf[i] = (uint8_t)(i * 31 + 7);
    if (rs_rc_mr_reg(p->ctx, p->buf, 2 * p->size, 0, 0,
                     RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL, &p->mr, err) < 0 ||
        rs_rc_mr_reg(p->ctx, p->rbuf, p->rbuf_len, 0, 0, RS_RC_ACCESS_LOCAL_WRITE, &p->rmr,
                     err) < 0)
        return cli_fail(CLI_EXIT_INTERNAL, "perf: %s", err);
    return 0;
}

static void
our_info(const struct perf *p, struct rs_rc_conn_info *info)
{
    memcpy(info->ip, p->cli.udp.ip, 4);
    info->qpn = p->qpn;
    info->psn = p->psn;
    info->rkey = p->mr.rkey;
    info->va = p->mr.va + p->size;     /* the half the peer writes or reads */
    info->length = p->size;
    info->pmtu = p->cli.attr.pmtu;
}

static int
create_qp(struct perf *p)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_rc_qp_attr a = p->cli.attr;

    a.qpn = p->qpn;
    a.dest_qpn = p->peer.qpn;
    memcpy(a.peer_ip, p->peer.ip, 4);
    a.sq_psn = p->psn;
    a.rq_psn = p->peer.psn;
    a.pmtu = p->peer.pmtu < a.pmtu ? p->peer.pmtu : a.pmtu;
    a.sq_depth = p->tx_depth + 16;
    a.rq_depth = p->rx_depth;
    a.max_inflight = 2048;
    if (rs_rc_qp_create(p->ctx, &a, &p->qp, err) < 0)
        return cli_fail(CLI_EXIT_USAGE, "perf: %s", err);
    p->cli.attr.pmtu = a.pmtu;
    if (p->test->opcode == RS_RC_WR_SEND)
        for (uint32_t i = 0; i < p->rx_depth; i++)
            if (perf_post_recv(p, i) < 0)
                return CLI_EXIT_INTERNAL;
    return 0;
}

/* Client: tell the server the test and our QP; learn its QP. Server: the
 * other way round. The client's size and iterations rule. */
static int
exchange(struct perf *p)
{
    char line[1024], err[RS_ERRBUF_SIZE], name[32];
    struct rs_rc_conn_info info;
    uint64_t v;
    int listen_fd = -1;

    if (p->client) {
        if (rs_rc_side_connect(p->server_ip, p->port, 5000, &p->fd, err) < 0)
            return cli_fail(CLI_EXIT_CAPTURE, "perf: %s", err);
        our_info(p, &info);
        int n = rs_rc_conn_format(&info, line, sizeof(line));
        snprintf(line + n - 1, sizeof(line) - (size_t)n + 1,
                 ", \"test\": \"%s\", \"size\": %" PRIu64 ", \"iters\": %" PRIu64 "}",
                 p->test->name, p->size, p->iters);
        if (rs_rc_side_send(p->fd, line, err) < 0 ||
            rs_rc_side_recv(p->fd, line, sizeof(line), 5000, err) < 0)
            return cli_fail(CLI_EXIT_CAPTURE, "perf: %s", err);
        if (rs_rc_json_str(line, "error", err, sizeof(err)))
            return cli_fail(CLI_EXIT_CAPTURE, "perf: the server refused: %s", err);
        if (rs_rc_conn_parse(line, &p->peer, err) < 0)
            return cli_fail(CLI_EXIT_CAPTURE, "perf: %s", err);
        return create_qp(p);
    }
    if (rs_rc_side_listen(p->cli.udp.ip, p->port, &listen_fd, err) < 0 ||
        rs_rc_side_accept(listen_fd, &p->fd, err) < 0) {
        if (listen_fd >= 0)
            close(listen_fd);
        return cli_fail(CLI_EXIT_CAPTURE, "perf: %s", err);
    }
    close(listen_fd);
    if (rs_rc_side_recv(p->fd, line, sizeof(line), 5000, err) < 0 ||
        rs_rc_conn_parse(line, &p->peer, err) < 0)
        return cli_fail(CLI_EXIT_CAPTURE, "perf: %s", err);
    if (!rs_rc_json_str(line, "test", name, sizeof(name)) || strcmp(name, p->test->name) != 0)
        return cli_fail(CLI_EXIT_USAGE, "perf: the client runs %s, this server %s", name,
                        p->test->name);
    if (rs_rc_json_u64(line, "size", &v) && v <= (1u << 30) && v != p->size) {
        rc_cli_free(p->buf, 2 * p->size);
        rc_cli_free(p->rbuf, p->rbuf_len);
        rs_rc_mr_dereg(p->ctx, p->mr.lkey);
        rs_rc_mr_dereg(p->ctx, p->rmr.lkey);
        p->size = v;
        int rc = setup_memory(p);
        if (rc != 0)
            return rc;
    }
    if (rs_rc_json_u64(line, "iters", &v) && v > 0 && v <= 100000000)
        p->iters = v;
    our_info(p, &info);
    info.pmtu = p->peer.pmtu < info.pmtu ? p->peer.pmtu : info.pmtu;
    rs_rc_conn_format(&info, line, sizeof(line));
    if (rs_rc_side_send(p->fd, line, err) < 0)
        return cli_fail(CLI_EXIT_CAPTURE, "perf: %s", err);
    return create_qp(p);
}

static void
print_header(const struct perf *p)
{
    const char *line = PERF_RESULT_LINE;

    printf("%s", line);
    printf("                    %s\n", p->test->title);
    printf(" Transport type : RoCEv2 over UDP (roceshark software RC)\n");
    printf(" Connection type : RC\t\tUsing SRQ      : OFF\n");
    printf(" TX depth        : %u\t\tICRC checked   : %s\n", p->tx_depth,
           rs_rc_udp_checks_icrc(p->udp) ? "ON" : "OFF");
    printf(" Mtu             : %u[B]\tPolling        : %s\n", p->cli.attr.pmtu,
           p->cli.udp.busy_poll ? "busy" : "blocking");
    printf("%s", line);
    printf(" local address: IP %u.%u.%u.%u QPN %#08x PSN %#08x RKey %#010x VAddr %#016" PRIx64
           "\n",
           p->cli.udp.ip[0], p->cli.udp.ip[1], p->cli.udp.ip[2], p->cli.udp.ip[3], p->qpn,
           p->psn, p->mr.rkey, p->mr.va);
    printf(" remote address: IP %u.%u.%u.%u QPN %#08x PSN %#08x RKey %#010x VAddr %#016" PRIx64
           "\n",
           p->peer.ip[0], p->peer.ip[1], p->peer.ip[2], p->peer.ip[3], p->peer.qpn,
           p->peer.psn, p->peer.rkey, p->peer.va);
    printf("%s", line);
    fflush(stdout);
}

int
cmd_perf(int argc, char **argv)
{
    static struct perf p;

    memset(&p, 0, sizeof(p));
    p.fd = -1;
    rc_cli_init(&p.cli, "perf");
    int rc = parse_args(&p, argc, argv);
    if (rc != 0)
        return rc;
    if ((rc = rc_cli_open(&p.cli, &p.udp, &p.ctx)) != 0)
        return rc;
    /* PSNs that differ per run, as perftest's random ones do. */
    p.psn = (uint32_t)(rs_rc_now_ns() / 1000) & 0xffffff;
    rc_cli_catch_signals();
    if ((rc = setup_memory(&p)) == 0 && (rc = exchange(&p)) == 0) {
        print_header(&p);
        rc = p.test->latency ? perf_run_lat(&p) : perf_run_bw(&p);
        if (p.counters)
            rc_cli_print_counters(stdout, rs_rc_counters_get(p.ctx));
    }
    if (p.fd >= 0)
        close(p.fd);
    rs_rc_ctx_destroy(p.ctx);
    rs_rc_udp_close(p.udp);
    rc_cli_free(p.buf, 2 * p.size);
    rc_cli_free(p.rbuf, p.rbuf_len);
    return rc;
}
