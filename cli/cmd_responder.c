/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_responder.c - `roceshark responder`: an IBTA RC responder on a UDP
 * port, for NICs, software stacks and tests to talk to.
 *
 * QPs come from flags (a static peer) or from the TCP side channel (one QP
 * per connecting requester). The responder prints one JSON line with its
 * parameters when it is ready, optionally one line per receive completion,
 * and its counters as JSON when it exits (SIGINT, SIGTERM or `quit`).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rc_cli.h"

#define MAX_MRS 16
#define MAX_QPS 256
#define MAX_CONNS 64            /* side-channel peers at once; more are refused */
#define DEFAULT_LISTEN 18515    /* perftest's port */
/* How long a side-channel peer has for a line: its first from the
 * connection, later ones from their first byte. */
#define SIDE_LINE_TIMEOUT_NS 5000000000ull
/* Lines served per connection per round, so that a peer streaming lines
 * cannot keep the RoCE path waiting either. */
#define SIDE_LINES_PER_ROUND 8
/* How long the listener rests after accept() fails for want of descriptors
 * or memory: the connection stays pending, so polling again at once would
 * spin. */
#define LISTEN_REST_NS 1000000000ull

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
    OPT_CONTROL,
};

struct resp_qp {
    struct rs_rc_qp *qp;
    uint8_t *rbuf;              /* receive buffers: rq slots of recv_size bytes */
    struct rs_rc_mr rmr;
    uint64_t posted;
};

struct resp_mr {
    uint64_t size;
    unsigned access;
    void *mem;
    struct rs_rc_mr mr;
};

/* A complaint about peers, said at most once a second, so that a flood of
 * connections cannot become a flood on stderr. */
struct complaint {
    uint64_t last_ns;
    unsigned held;              /* complaints since the last one said */
};

struct responder {
    struct rc_cli cli;
    struct rs_rc_udp *udp;
    struct rs_rc_ctx *ctx;
    struct resp_mr mr[MAX_MRS];
    unsigned n_mr;
    uint32_t rkey0;
    uint64_t va0;
    bool have_peer;
    uint8_t peer_ip[4];
    uint32_t peer_qpn, peer_psn, qpn0, psn;
    unsigned n_static;
    uint32_t recv_n, recv_size;
    bool repost, control, verbose;
    uint16_t listen_port;
    int listen_fd;
    uint64_t listen_rest_until;         /* accept() failed: leave the listener alone */
    struct complaint refused, accept_failed;
    /* Fixed slots (fd -1 when free): closing one while walking them moves
     * no other, so a round may close any number. */
    struct rs_rc_side_conn conn[MAX_CONNS];
    struct resp_qp qp[MAX_QPS];
    unsigned n_qp;
};

static const char usage[] =
    "usage: roceshark responder --bind IP [options]\n"
    "\n"
    "An IBTA RC responder (and requester) speaking RoCEv2 on UDP port 4791 of IP.\n"
    "\n"
    "connection (a static peer, or requesters that come through the TCP side channel):\n"
    "  --peer IP --peer-qpn N --peer-psn N   the requester: its address, QP and first PSN\n"
    "  --qpn N          our (first) QP number (default 0x11)   --qps N  static QPs (default 1)\n"
    "  --psn N          our first PSN (default 0)\n"
    "  --listen PORT    side channel (default 18515)    --no-listen  none\n"
    "                   up to 64 requesters at once (more are refused with a reason); a\n"
    "                   line not whole within 5 s closes its connection\n"
    "memory:\n"
    "  --mr SIZE[:ACCESS]  a region (repeatable; K/M/G suffixes). ACCESS letters: l local\n"
    "                   write, w remote write, r remote read, a atomic, i invalidatable by a\n"
    "                   SEND with Invalidate (default lwra). The first is 1M unless given.\n"
    "  --rkey K --va V  R_Key and VA of the first region (later ones follow)\n"
    "receives:\n"
    "  --recv N         receive WQEs posted per QP (default 0)   --recv-size B (default 64K)\n"
    "  --repost         post a receive again once it completes\n"
    "QP:\n"
    "  --pmtu N (1024)  --pkey P (0xffff)  --qp-access rwa  --max-dest-rd-atomic N (16)\n"
    "  --rnr-timer CODE (12: 0.64 ms)  --timeout N (14)  --retry-cnt N (7)  --rnr-retry N (7)\n"
    "  --cnp-interval US  least time between CNPs of a QP (default 50)\n"
    "  --ack-delay US   hold an ACK up to this long to cover later requests (default 10)\n"
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
parse_mr(struct responder *r, const char *arg)
{
    char size[32];
    const char *colon = strchr(arg, ':');
    size_t n = colon != NULL ? (size_t)(colon - arg) : strlen(arg);
    struct resp_mr *m = &r->mr[r->n_mr];

    if (r->n_mr == MAX_MRS)
        return cli_fail(CLI_EXIT_USAGE, "responder: at most %d --mr", MAX_MRS);
    if (n >= sizeof(size))
        return cli_fail(CLI_EXIT_USAGE, "responder: --mr %s: bad size", arg);
    memcpy(size, arg, n);
    size[n] = '\0';
    m->access = RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL;
    if (!rc_cli_parse_size(size, 1ull << 32, &m->size) ||
        (colon != NULL && parse_access(colon + 1, &m->access) < 0))
        return cli_fail(CLI_EXIT_USAGE, "responder: --mr %s: expected SIZE[:lwrai]", arg);
    r->n_mr++;
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
parse_args(struct responder *r, int argc, char **argv)
{
    static const struct option longopts[] = {
        RC_CLI_LONG_OPTIONS,
        {"qpn", required_argument, NULL, OPT_QPN},
        {"qps", required_argument, NULL, OPT_QPS},
        {"psn", required_argument, NULL, OPT_PSN},
        {"peer", required_argument, NULL, OPT_PEER},
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
        {"control", no_argument, NULL, OPT_CONTROL},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    unsigned long long v;
    uint64_t size;
    uint32_t u = 0;
    int opt, rc = 0;
    bool have_peer_qpn = false;

    r->qpn0 = 0x11;
    r->n_static = 1;
    r->recv_size = 65536;
    r->listen_port = DEFAULT_LISTEN;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "hv", longopts, NULL)) != -1) {
        int shared = rc_cli_option(&r->cli, opt, optarg);
        if (shared < 0)
            return -shared;
        if (shared > 0)
            continue;
        switch (opt) {
        case 'h':
            fputs(usage, stdout);
            exit(CLI_EXIT_OK);
        case 'v':
            r->verbose = true;
            break;
        case OPT_QPN:
            rc = parse_u32("qpn", optarg, 0xffffff, &r->qpn0);
            if (rc == 0 && r->qpn0 < 2)
                rc = cli_fail(CLI_EXIT_USAGE, "responder: --qpn: QPs 0 and 1 are special");
            break;
        case OPT_QPS:
            rc = parse_u32("qps", optarg, MAX_QPS, &r->n_static);
            break;
        case OPT_PSN:
            rc = parse_u32("psn", optarg, 0xffffff, &r->psn);
            break;
        case OPT_PEER:
            if (!rs_rc_parse_ipv4(optarg, r->peer_ip))
                return cli_fail(CLI_EXIT_USAGE, "responder: --peer %s: expected IPv4", optarg);
            r->have_peer = true;
            break;
        case OPT_PEER_QPN:
            rc = parse_u32("peer-qpn", optarg, 0xffffff, &r->peer_qpn);
            have_peer_qpn = true;
            break;
        case OPT_PEER_PSN:
            rc = parse_u32("peer-psn", optarg, 0xffffff, &r->peer_psn);
            break;
        case OPT_MR:
            rc = parse_mr(r, optarg);
            break;
        case OPT_RKEY:
            rc = parse_u32("rkey", optarg, UINT32_MAX, &r->rkey0);
            break;
        case OPT_VA:
            if (!cli_parse_uint(optarg, 1, UINT64_MAX, &v))
                return cli_fail(CLI_EXIT_USAGE, "responder: --va %s: expected an address",
                                optarg);
            r->va0 = v;
            break;
        case OPT_RECV:
            rc = parse_u32("recv", optarg, 65536, &r->recv_n);
            break;
        case OPT_RECV_SIZE:
            if (!rc_cli_parse_size(optarg, 1u << 30, &size) || size == 0)
                return cli_fail(CLI_EXIT_USAGE, "responder: --recv-size %s: expected bytes",
                                optarg);
            r->recv_size = (uint32_t)size;
            break;
        case OPT_REPOST:
            r->repost = true;
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
                r->listen_port = (uint16_t)u;
            break;
        case OPT_NO_LISTEN:
            r->listen_port = 0;
            break;
        case OPT_CONTROL:
            r->control = true;
            break;
        default:
            fputs(usage, stderr);
            return CLI_EXIT_USAGE;
        }
        if (rc != 0)
            return rc;
    }
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "responder: unexpected argument '%s'", argv[optind]);
    if (r->have_peer != have_peer_qpn)
        return cli_fail(CLI_EXIT_USAGE, "responder: --peer and --peer-qpn go together");
    if (r->n_static == 0 || r->qpn0 + r->n_static - 1 > 0xffffff)
        return cli_fail(CLI_EXIT_USAGE, "responder: --qpn/--qps out of range");
    if (r->n_mr == 0) {
        r->mr[0].size = 1 << 20;
        r->mr[0].access = RS_RC_ACCESS_LOCAL_WRITE | RS_RC_ACCESS_REMOTE_ALL;
        r->n_mr = 1;
    }
    return 0;
}

static int
register_mrs(struct responder *r)
{
    char err[RS_ERRBUF_SIZE];
    uint64_t va = r->va0;

    for (unsigned i = 0; i < r->n_mr; i++) {
        struct resp_mr *m = &r->mr[i];
        m->mem = rc_cli_alloc(m->size);
        if (m->mem == NULL)
            return cli_fail(CLI_EXIT_INTERNAL, "responder: out of memory for --mr");
        uint32_t rkey = r->rkey0 != 0 ? r->rkey0 + i : 0;
        if (rs_rc_mr_reg(r->ctx, m->mem, m->size, va, rkey, m->access, &m->mr, err) < 0)
            return cli_fail(CLI_EXIT_USAGE, "responder: %s", err);
        if (va != 0)    /* the next region starts on the next page after this one */
            va = m->mr.va + ((m->size + 4095) & ~4095ull) + 4096;
    }
    return 0;
}

/* Posts up to n receives; returns how many it posted, with err filled
 * when that is fewer (the receive queue is full). */
static uint32_t
post_recvs(struct responder *r, struct resp_qp *q, uint32_t n, bool bad, char *err)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        uint32_t slot = (uint32_t)(q->posted % r->cli.attr.rq_depth);
        struct rs_rc_recv_wr wr = {slot, {q->rmr.va + (uint64_t)slot * r->recv_size,
                                          r->recv_size, q->rmr.lkey}};
        if (bad)
            wr.sge.lkey = 0xbad0bad;    /* names no region: Remote Operational Error */
        if (rs_rc_post_recv(q->qp, &wr, err) < 0)
            break;
        q->posted++;
    }
    return i;
}

/* Creates a QP with its receive buffers and --recv receives. Returns 0, or
 * the exit code for it with err filled. */
static int
add_qp(struct responder *r, uint32_t qpn, const uint8_t peer[4], uint32_t peer_qpn,
       uint32_t peer_psn, uint32_t pmtu, char *err)
{
    struct rs_rc_qp_attr a = r->cli.attr;

    if (r->n_qp == MAX_QPS) {
        snprintf(err, RS_ERRBUF_SIZE, "at most %d QPs", MAX_QPS);
        return CLI_EXIT_USAGE;
    }
    struct resp_qp *q = &r->qp[r->n_qp];
    a.qpn = qpn;
    a.dest_qpn = peer_qpn;
    memcpy(a.peer_ip, peer, 4);
    a.sq_psn = r->psn;
    a.rq_psn = peer_psn;
    a.pmtu = pmtu;
    if (rs_rc_qp_create(r->ctx, &a, &q->qp, err) < 0)
        return CLI_EXIT_USAGE;
    q->rbuf = rc_cli_alloc((uint64_t)a.rq_depth * r->recv_size);
    if (q->rbuf == NULL) {
        snprintf(err, RS_ERRBUF_SIZE, "receive buffers: out of memory");
        return CLI_EXIT_INTERNAL;
    }
    if (rs_rc_mr_reg(r->ctx, q->rbuf, (uint64_t)a.rq_depth * r->recv_size, 0, 0,
                     RS_RC_ACCESS_LOCAL_WRITE, &q->rmr, err) < 0)
        return CLI_EXIT_INTERNAL;
    r->n_qp++;
    /* rq_depth is at least --recv: these all fit. */
    post_recvs(r, q, r->recv_n, false, err);
    return 0;
}

/* The parameters a requester needs, as one JSON line. */
static void
format_info(const struct responder *r, uint32_t qpn, char *buf, size_t size)
{
    struct rs_rc_conn_info info;

    memcpy(info.ip, r->cli.udp.ip, 4);
    info.qpn = qpn;
    info.psn = r->psn;
    info.rkey = r->mr[0].mr.rkey;
    info.va = r->mr[0].mr.va;
    info.length = r->mr[0].mr.length;
    info.pmtu = r->cli.attr.pmtu;
    rs_rc_conn_format(&info, buf, size);
}

static void
print_start(const struct responder *r)
{
    char info[512];

    format_info(r, r->n_qp > 0 ? rs_rc_qp_num(r->qp[0].qp) : r->qpn0, info, sizeof(info));
    info[strlen(info) - 1] = '\0';  /* reopen the object to add fields */
    printf("%s, \"port\": %d, \"listen\": %u, \"icrc_check\": %s, \"qps\": [", info,
           RS_ROCEV2_UDP_PORT, r->listen_port, rs_rc_udp_checks_icrc(r->udp) ? "true" : "false");
    for (unsigned i = 0; i < r->n_qp; i++)
        printf("%s%" PRIu32, i ? ", " : "", rs_rc_qp_num(r->qp[i].qp));
    printf("], \"mrs\": [");
    for (unsigned i = 0; i < r->n_mr; i++)
        printf("%s{\"rkey\": %" PRIu32 ", \"va\": %" PRIu64 ", \"length\": %" PRIu64
               ", \"access\": %u}",
               i ? ", " : "", r->mr[i].mr.rkey, r->mr[i].mr.va, r->mr[i].mr.length,
               r->mr[i].access);
    printf("]}\n");
    fflush(stdout);
}

/* The first QP number from --qpn on that is free. */
static uint32_t
next_qpn(const struct responder *r)
{
    uint32_t qpn = r->qpn0 + r->n_qp;

    while (rs_rc_qp_find(r->ctx, qpn) != NULL)
        qpn++;
    return qpn;
}

static void
complain(struct complaint *c, uint64_t now, const char *what)
{
    if (c->last_ns != 0 && now - c->last_ns < 1000000000ull) {
        c->held++;
        return;
    }
    if (c->held > 0)
        fprintf(stderr, "roceshark: responder: %s (and %u more since the last report)\n",
                what, c->held);
    else
        fprintf(stderr, "roceshark: responder: %s\n", what);
    c->last_ns = now;
    c->held = 0;
}

/* One line from a side-channel peer: a requester's parameters get a QP and
 * ours back. Returns false, with err filled, when the connection is to be
 * closed. */
static bool
side_line(struct responder *r, struct rs_rc_side_conn *c, const char *line, char *err)
{
    char reply[RS_RC_SIDE_LINE_MAX], why[RS_ERRBUF_SIZE];
    struct rs_rc_conn_info peer;
    uint64_t done;

    if (rs_rc_json_u64(line, "done", &done) || line[0] != '{')
        return true;    /* a perf client's closing report: nothing to do */
    if (rs_rc_conn_parse(line, &peer, why) < 0 ||
        add_qp(r, next_qpn(r), peer.ip, peer.qpn, peer.psn,
               peer.pmtu < r->cli.attr.pmtu ? peer.pmtu : r->cli.attr.pmtu, why) != 0) {
        rs_rc_side_send_error(c->fd, why);
        snprintf(err, RS_ERRBUF_SIZE, "side channel: %s: %.200s", c->peer, why);
        return false;
    }
    format_info(r, rs_rc_qp_num(r->qp[r->n_qp - 1].qp), reply, sizeof(reply));
    return rs_rc_side_send(c->fd, reply, err) == 0;
}

/* Serves what a side-channel peer sent; closes the connection, saying why
 * on stderr, when it broke a rule or failed (not when the peer just left). */
static void
side_serve(struct responder *r, struct rs_rc_side_conn *c, uint64_t now)
{
    char err[RS_ERRBUF_SIZE];
    const char *line;
    int rc = 0;

    for (unsigned k = 0; k < SIDE_LINES_PER_ROUND; k++) {
        rc = rs_rc_side_conn_next(c, now, &line, err);
        if (rc != 1)
            break;
        if (!side_line(r, c, line, err)) {
            rc = RS_EIO;
            break;
        }
    }
    if (rc < 0) {
        if (rc != RS_EOF)
            fprintf(stderr, "roceshark: responder: %s; connection closed\n", err);
        rs_rc_side_conn_close(c);
    }
}

/* A connection is waiting on the listener: it gets a free slot, or is
 * accepted, told why, and closed when every slot is taken. */
static void
side_accept(struct responder *r, uint64_t now)
{
    char err[RS_ERRBUF_SIZE], what[RS_ERRBUF_SIZE + 64];
    unsigned i = 0;
    int fd = -1, rc;

    while (i < MAX_CONNS && r->conn[i].fd >= 0)
        i++;
    if (i == MAX_CONNS) {
        snprintf(what, sizeof(what), "responder: side channel: %d connections open, no room "
                 "for more; try again later", MAX_CONNS);
        rc = rs_rc_side_refuse(r->listen_fd, what, err);
        if (rc == 0)
            complain(&r->refused, now, what + strlen("responder: "));
    } else {
        rc = rs_rc_side_accept(r->listen_fd, &fd, err);
        if (rc == 0)
            rs_rc_side_conn_open(&r->conn[i], fd, SIDE_LINE_TIMEOUT_NS, now);
    }
    if (rc < 0 && rc != RS_ENOENT) {
        r->listen_rest_until = now + LISTEN_REST_NS;
        snprintf(what, sizeof(what), "%s; not accepting for 1 s", err);
        complain(&r->accept_failed, now, what);
    }
}

static void
dump_memory(struct responder *r, const char *args)
{
    unsigned long long off, len;
    const struct resp_mr *m = &r->mr[0];

    if (sscanf(args, "%llu %llu", &off, &len) != 2 || len > 65536 || off > m->size ||
        len > m->size - off) {
        printf("{\"error\": \"dump OFFSET LENGTH: inside the first region, at most 64K\"}\n");
        return;
    }
    printf("{\"offset\": %llu, \"hex\": \"", off);
    for (unsigned long long k = 0; k < len; k++)
        printf("%02x", ((const uint8_t *)m->mem)[off + k]);
    printf("\"}\n");
}

/* recv N [QPN] and recv-bad N [QPN]: N receives to every QP, or to the one
 * named. The answer says how many were posted in all and, when that is
 * fewer than asked, why. */
static void
control_recv(struct responder *r, const char *args, bool bad)
{
    char a[2][32], err[RS_ERRBUF_SIZE], why[RS_ERRBUF_SIZE + 32] = "";
    unsigned long long n, qpn = 0;
    uint64_t posted = 0;
    unsigned matched = 0;

    int got = sscanf(args, "%31s %31s", a[0], a[1]);
    if (got < 1 || !cli_parse_uint(a[0], 0, UINT32_MAX, &n) ||
        (got == 2 && !cli_parse_uint(a[1], 0, 0xffffff, &qpn))) {
        printf("{\"error\": \"recv N [QPN]: N up to 2^32-1, QPN a QP number\"}\n");
        return;
    }
    for (unsigned i = 0; i < r->n_qp; i++) {
        uint32_t num = rs_rc_qp_num(r->qp[i].qp);
        if (got == 2 && num != qpn)
            continue;
        matched++;
        uint32_t k = post_recvs(r, &r->qp[i], (uint32_t)n, bad, err);
        posted += k;
        if (k < n && why[0] == '\0')
            snprintf(why, sizeof(why), "QP %" PRIu32 ": %s", num, err);
    }
    if (matched == 0)
        snprintf(why, sizeof(why), got == 2 ? "no QP %llu" : "no QP yet", qpn);
    printf("{\"posted\": %" PRIu64, posted);
    if (why[0] != '\0')
        printf(", \"error\": \"%s\"", why);
    printf("}\n");
}

/* One command from stdin; false for quit or end of input. */
static bool
control(struct responder *r)
{
    char line[256];

    if (fgets(line, sizeof(line), stdin) == NULL)
        return false;
    if (strncmp(line, "recv ", 5) == 0) {
        control_recv(r, line + 5, false);
    } else if (strncmp(line, "recv-bad ", 9) == 0) {
        control_recv(r, line + 9, true);
    } else if (strncmp(line, "counters", 8) == 0) {
        rc_cli_print_counters(stdout, rs_rc_counters_get(r->ctx));
    } else if (strncmp(line, "state", 5) == 0) {
        printf("{\"qps\": [");
        for (unsigned i = 0; i < r->n_qp; i++)
            printf("%s{\"qpn\": %" PRIu32 ", \"state\": \"%s\", \"recv_posted\": %" PRIu32 "}",
                   i ? ", " : "", rs_rc_qp_num(r->qp[i].qp),
                   rs_rc_qp_state(r->qp[i].qp) == RS_RC_QP_RTS ? "RTS" : "ERROR",
                   rs_rc_recv_posted(r->qp[i].qp));
        printf("]}\n");
    } else if (strncmp(line, "dump ", 5) == 0) {
        dump_memory(r, line + 5);
    } else if (strncmp(line, "quit", 4) == 0) {
        return false;
    } else {
        printf("{\"error\": \"unknown command\"}\n");
    }
    fflush(stdout);
    return true;
}

static void
reap(struct responder *r)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_rc_wc wc[32];

    for (unsigned i = 0; i < r->n_qp; i++) {
        struct resp_qp *q = &r->qp[i];
        int n;
        while ((n = rs_rc_poll_cq(q->qp, wc, 32)) > 0) {
            for (int k = 0; k < n; k++) {
                bool recv = wc[k].opcode == RS_RC_WC_RECV;
                const uint8_t *data = recv ? q->rbuf + wc[k].wr_id * r->recv_size : NULL;
                if (r->verbose)
                    rc_cli_print_wc(stdout, &wc[k], data);
                if (r->repost && wc[k].opcode >= RS_RC_WC_RECV &&
                    wc[k].status == RS_RC_WC_SUCCESS)
                    post_recvs(r, q, 1, false, err);    /* the slot just freed */
            }
        }
    }
}

static int
run(struct responder *r)
{
    char err[RS_ERRBUF_SIZE];
    struct pollfd pfd[3 + MAX_CONNS];
    unsigned slot[MAX_CONNS];           /* pfd[3 + k] watches conn[slot[k]] */

    for (;;) {
        if (rc_cli_stopped())
            return 0;
        uint64_t now = rs_rc_now_ns();
        bool listening = r->listen_fd >= 0 && now >= r->listen_rest_until;
        bool pending = false;           /* a whole line already buffered */
        unsigned n = 0, k = 0;
        pfd[n++] = (struct pollfd){rs_rc_udp_fd(r->udp), POLLIN, 0};
        pfd[n++] = (struct pollfd){listening ? r->listen_fd : -1, POLLIN, 0};
        pfd[n++] = (struct pollfd){r->control ? 0 : -1, POLLIN, 0};
        for (unsigned i = 0; i < MAX_CONNS; i++) {
            if (r->conn[i].fd < 0)
                continue;
            pending |= rs_rc_side_conn_pending(&r->conn[i]);
            slot[k++] = i;
            pfd[n++] = (struct pollfd){r->conn[i].fd, POLLIN, 0};
        }
        if (rc_cli_wait(pfd, n, r->ctx, r->cli.udp.busy_poll || pending) < 0)
            continue;   /* EINTR: the signal flag is checked above */
        if (rs_rc_udp_poll(r->udp, r->ctx, 0, err) < 0)
            return cli_fail(CLI_EXIT_CAPTURE, "responder: %s", err);
        reap(r);
        if ((pfd[2].revents & (POLLIN | POLLHUP)) && !control(r))
            return 0;
        /* The side channel never waits: each connection gives what it has. */
        now = rs_rc_now_ns();
        for (unsigned j = 0; j < k; j++) {
            struct rs_rc_side_conn *c = &r->conn[slot[j]];
            if ((pfd[3 + j].revents & (POLLIN | POLLHUP | POLLERR)) ||
                rs_rc_side_conn_pending(c) || rs_rc_side_conn_expired(c, now))
                side_serve(r, c, now);
        }
        /* After the walk, so that a slot freed in it can be taken at once. */
        if (pfd[1].revents & POLLIN)
            side_accept(r, now);
    }
}

int
cmd_responder(int argc, char **argv)
{
    static struct responder r;
    char err[RS_ERRBUF_SIZE];

    memset(&r, 0, sizeof(r));
    r.listen_fd = -1;
    for (unsigned i = 0; i < MAX_CONNS; i++)
        r.conn[i].fd = -1;
    rc_cli_init(&r.cli, "responder");
    int rc = parse_args(&r, argc, argv);
    if (rc != 0)
        return rc;
    /* Room for what --recv and the control commands post. */
    r.cli.attr.rq_depth = r.recv_n > 256 ? r.recv_n : 256;
    if ((rc = rc_cli_open(&r.cli, &r.udp, &r.ctx)) != 0)
        return rc;
    if ((rc = register_mrs(&r)) != 0)
        goto out;
    for (unsigned i = 0; r.have_peer && i < r.n_static; i++) {
        if ((rc = add_qp(&r, r.qpn0 + i, r.peer_ip, r.peer_qpn + i, r.peer_psn,
                         r.cli.attr.pmtu, err)) != 0) {
            cli_fail(rc, "responder: %s", err);
            goto out;
        }
    }
    if (r.listen_port != 0 &&
        rs_rc_side_listen(r.cli.udp.ip, r.listen_port, &r.listen_fd, err) < 0) {
        rc = cli_fail(CLI_EXIT_CAPTURE, "responder: %s", err);
        goto out;
    }
    /* poll() says when to accept; a peer that gives up in between must not
     * leave accept() waiting. */
    if (r.listen_fd >= 0)
        fcntl(r.listen_fd, F_SETFL, fcntl(r.listen_fd, F_GETFL) | O_NONBLOCK);
    rc_cli_catch_signals();
    print_start(&r);
    rc = run(&r);
    rs_rc_udp_flush(r.udp);
    rc_cli_print_counters(stdout, rs_rc_counters_get(r.ctx));
out:
    for (unsigned i = 0; i < MAX_CONNS; i++)
        rs_rc_side_conn_close(&r.conn[i]);
    if (r.listen_fd >= 0)
        close(r.listen_fd);
    rs_rc_ctx_destroy(r.ctx);
    rs_rc_udp_close(r.udp);
    for (unsigned i = 0; i < r.n_qp; i++)
        rc_cli_free(r.qp[i].rbuf, (uint64_t)r.cli.attr.rq_depth * r.recv_size);
    for (unsigned i = 0; i < r.n_mr; i++)
        rc_cli_free(r.mr[i].mem, r.mr[i].size);
    return rc;
}
