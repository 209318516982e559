/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_inject.c - `roceshark inject`: the options, the pacing and the
 * progress; specs, builders and senders are inject/.
 */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/inject/inject.h>
#include <roceshark/inject/script.h>

#include "cli.h"

#define MAX_TEMPLATES 4096

static const char usage[] =
    "usage: roceshark inject (-w FILE | -i IFACE | --udp) [options] [SPEC ...]\n"
    "       roceshark inject --script FILE [--bind IP] [--target IP|URL] [-w FILE] [--junit FILE]\n"
    "       roceshark inject --suite DIR [--bind IP] [--target IP|URL] [--junit FILE]\n"
    "                        [--target-file FILE] [--reset CMD] [--linger T]\n"
    "\n"
    "Builds RDMA packets from Wireshark field names and writes or sends them. A SPEC is\n"
    "layered, each layer's fields by the last part of their names:\n"
    "  'eth / ip(dst=10.0.0.2, dsfield.ecn=3) / udp(srcport=rand) /\n"
    "   bth(opcode=\"RC RDMA Write Only\", destqp=0x11, psn=inc(100), a=1) /\n"
    "   reth(va=0x1000, r_key=0x1234, dmalen=64) / payload(len=64, fill=rand)'\n"
    "or flat FIELD=VALUE words with full names (infiniband.bth.psn=7 ip.dst=10.0.0.2).\n"
    "Output:\n"
    "  -w FILE          write a capture file ('-' for standard output): pcap, or pcapng when\n"
    "                   FILE ends in .pcapng or with --pcapng; native IB as ERF type 21\n"
    "  -i IFACE         send through the interface (libpcap): frames go out as built; the\n"
    "                   MACs default to the interface's and its neighbour's for ip.dst\n"
    "  --udp            send RoCEv2 over a UDP socket from ip.src:udp.srcport (no CAP_NET_RAW;\n"
    "                   ip.id 0 and DF, which the ICRC covers)\n"
    "Packets:\n"
    "  -F FILE          one spec per line (# comments; 'repeat N' at the end of a line), each\n"
    "                   on top of the command line's spec\n"
    "  -c N             stop after N packets (default: one pass over the specs)\n"
    "  --loop N         passes over the specs (default 1, or as many as -c needs; 0: no end)\n"
    "  --psn-step N     add N to every PSN each pass\n"
    "  --seed N         the seed of rand and fill=rand (default: from the clock, printed)\n"
    "Rate (as tcpreplay and trafgen name it; default --topspeed):\n"
    "  --pps N | --mbps N | --gap USEC | --topspeed,  --duration SECONDS\n"
    "Scenario scripts (see docs/scripts.md): --script FILE connects to a target, puts faults\n"
    "  on the wire, posts work and checks expectations; one TAP line each (--junit FILE for\n"
    "  JUnit XML, -w for a pcap of the exchange); exit code 6 when any failed, with the\n"
    "  count on the last line. --bind and --target\n"
    "  override the script's addresses (--target perftest://IP, perftest+cm://, pingpong://,\n"
    "  cm:// or roceshark:// its connection setup too); --no-raw receives without privilege.\n"
    "  --suite DIR runs every .script under DIR (samples/scripts/conformance: the conformance\n"
    "  suite) and prints a table of behaviour, result and evidence. --target-file FILE gives\n"
    "  the target once for every script (a JSON line as the side channel answers: ip, qpn,\n"
    "  psn, rkey, va, length, pmtu); --reset CMD runs before each script, with our QP in its\n"
    "  environment ($BIND, $QPN, $PSN); --linger T records T after the last completion\n"
    "  (default: one ACK timeout, at least 30ms). Each run takes a new random QP and PSN.\n"
    "Layers: eth vlan ieee8021ad ip(v4) ipv6 udp lrh grh bth rdeth deth xrceth reth atomiceth\n"
    "  aeth atomicacketh immdt ieth cnp payload(len=, hex=, fill=zero|ones|count|rand|0xHEX)\n"
    "  pad(count=N); eth/ip/udp is RoCEv2, eth/grh RoCEv1, lrh[/grh] native InfiniBand.\n"
    "Values: numbers, value names as display filters take them (opcode=\"RC Send Only\"),\n"
    "  addresses, inc(START[,STEP]) dec(...) rand rand(LO,HI) list(A,B,...) seq(LO..HI);\n"
    "  icrc=bad, icrc=0x..., vcrc=bad. Lengths, checksums and CRCs not given are computed.\n";

enum {
    OPT_UDP = 0x100, OPT_PSN_STEP, OPT_PPS, OPT_MBPS, OPT_GAP, OPT_TOPSPEED, OPT_DURATION,
    OPT_LOOP, OPT_SEED, OPT_PCAPNG, OPT_SCRIPT, OPT_BIND, OPT_TARGET, OPT_JUNIT, OPT_NO_RAW,
    OPT_SUITE, OPT_TARGET_FILE, OPT_RESET, OPT_LINGER
};

struct inject_opts {
    const char *file, *spec_file, *iface;
    const char *script, *suite, *bind, *target, *junit, *target_file, *reset;
    uint64_t linger_ns;
    struct rs_rc_conn_info target_info;
    bool udp, pcapng, seeded, no_raw;
    unsigned long long count, loop, psn_step, pps, gap_us, duration, seed;
    double mbps;
    struct rs_inject_packet *pkts;      /* the templates, in order */
    size_t n_pkts;
};

static volatile sig_atomic_t stop_now;

static void
on_signal(int sig)
{
    (void)sig;
    stop_now = 1;
}

static int
parse_args(struct inject_opts *io, int argc, char **argv, int *first_word)
{
    static const struct option longopts[] = {
        {"udp", no_argument, NULL, OPT_UDP},
        {"psn-step", required_argument, NULL, OPT_PSN_STEP},
        {"pps", required_argument, NULL, OPT_PPS},
        {"mbps", required_argument, NULL, OPT_MBPS},
        {"gap", required_argument, NULL, OPT_GAP},
        {"topspeed", no_argument, NULL, OPT_TOPSPEED},
        {"duration", required_argument, NULL, OPT_DURATION},
        {"loop", required_argument, NULL, OPT_LOOP},
        {"seed", required_argument, NULL, OPT_SEED},
        {"pcapng", no_argument, NULL, OPT_PCAPNG},
        {"script", required_argument, NULL, OPT_SCRIPT},
        {"suite", required_argument, NULL, OPT_SUITE},
        {"bind", required_argument, NULL, OPT_BIND},
        {"target", required_argument, NULL, OPT_TARGET},
        {"junit", required_argument, NULL, OPT_JUNIT},
        {"no-raw", no_argument, NULL, OPT_NO_RAW},
        {"target-file", required_argument, NULL, OPT_TARGET_FILE},
        {"reset", required_argument, NULL, OPT_RESET},
        {"linger", required_argument, NULL, OPT_LINGER},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    unsigned rates = 0;
    int c;

    io->loop = 1;
    optind = 1;
    while ((c = cli_getopt("inject", argc, argv, "w:F:c:i:h", longopts, usage)) != CLI_OPT_END) {
        switch (c) {
        case 'w':
            io->file = optarg;
            break;
        case 'i':
            io->iface = optarg;
            break;
        case 'F':
            io->spec_file = optarg;
            break;
        case 'c':
            if (!cli_parse_uint(optarg, 1, UINT64_MAX, &io->count))
                return cli_fail(CLI_EXIT_USAGE, "inject: -c %s: expected 1 or more", optarg);
            break;
        case OPT_UDP:
            io->udp = true;
            break;
        case OPT_PCAPNG:
            io->pcapng = true;
            break;
        case OPT_SCRIPT:
            io->script = optarg;
            break;
        case OPT_SUITE:
            io->suite = optarg;
            break;
        case OPT_BIND:
            io->bind = optarg;
            break;
        case OPT_TARGET:
            io->target = optarg;
            break;
        case OPT_JUNIT:
            io->junit = optarg;
            break;
        case OPT_NO_RAW:
            io->no_raw = true;
            break;
        case OPT_TARGET_FILE:
            io->target_file = optarg;
            break;
        case OPT_RESET:
            io->reset = optarg;
            break;
        case OPT_LINGER:
            if (!rs_script_parse_duration(optarg, &io->linger_ns) || io->linger_ns == 0)
                return cli_fail(CLI_EXIT_USAGE, "inject: --linger %s: expected a time (100ms, "
                                "1s)", optarg);
            break;
        case OPT_PSN_STEP:
            if (!cli_parse_uint(optarg, 0, 0xffffff, &io->psn_step))
                return cli_fail(CLI_EXIT_USAGE, "inject: --psn-step %s: expected 0..16777215",
                                optarg);
            break;
        case OPT_PPS:
            rates++;
            if (!cli_parse_uint(optarg, 1, 1000000000, &io->pps))
                return cli_fail(CLI_EXIT_USAGE, "inject: --pps %s: expected 1..1000000000",
                                optarg);
            break;
        case OPT_MBPS: {
            char *end;
            rates++;
            io->mbps = strtod(optarg, &end);
            if (*end != '\0' || !(io->mbps > 0) || io->mbps > 1e7)
                return cli_fail(CLI_EXIT_USAGE, "inject: --mbps %s: expected a rate in Mbit/s "
                                "above 0", optarg);
            break;
        }
        case OPT_GAP:
            rates++;
            if (!cli_parse_uint(optarg, 0, 3600000000ull, &io->gap_us))
                return cli_fail(CLI_EXIT_USAGE, "inject: --gap %s: expected microseconds",
                                optarg);
            break;
        case OPT_TOPSPEED:
            rates++;
            break;
        case OPT_DURATION:
            if (!cli_parse_uint(optarg, 1, 31536000, &io->duration))
                return cli_fail(CLI_EXIT_USAGE, "inject: --duration %s: expected seconds",
                                optarg);
            break;
        case OPT_LOOP:
            if (!cli_parse_uint(optarg, 0, UINT64_MAX, &io->loop))
                return cli_fail(CLI_EXIT_USAGE, "inject: --loop %s: expected a count", optarg);
            break;
        case OPT_SEED:
            if (!cli_parse_uint(optarg, 0, UINT32_MAX, &io->seed))
                return cli_fail(CLI_EXIT_USAGE, "inject: --seed %s: expected 0..4294967295",
                                optarg);
            io->seeded = true;
            break;
        case CLI_OPT_HELP:
            exit(CLI_EXIT_OK);
        default:    /* CLI_OPT_BAD */
            return CLI_EXIT_USAGE;
        }
    }
    if (io->script != NULL || io->suite != NULL) {
        if (io->iface != NULL || io->udp || io->spec_file != NULL || optind < argc ||
            (io->script != NULL && io->suite != NULL) || (io->suite != NULL && io->file != NULL))
            return cli_fail(CLI_EXIT_USAGE, "inject: --script and --suite run on their own "
                            "(with --bind, --target, --target-file, --reset, --linger, --junit, "
                            "--no-raw; -w with --script)");
        if (io->target != NULL && io->target_file != NULL)
            return cli_fail(CLI_EXIT_USAGE, "inject: give --target or --target-file, not both");
        *first_word = optind;
        return 0;
    }
    if (io->bind != NULL || io->target != NULL || io->junit != NULL ||
        io->target_file != NULL || io->reset != NULL || io->linger_ns != 0)
        return cli_fail(CLI_EXIT_USAGE, "inject: --bind, --target, --target-file, --reset, "
                        "--linger and --junit go with --script or --suite");
    if ((io->file != NULL) + (io->iface != NULL) + io->udp != 1)
        return cli_fail(CLI_EXIT_USAGE, "inject: give one of -w FILE, -i IFACE and --udp");
    if (rates > 1)
        return cli_fail(CLI_EXIT_USAGE, "inject: give one of --pps, --mbps, --gap and "
                        "--topspeed");
    if (io->count != 0 && io->loop == 1)
        io->loop = 0;           /* -c alone: as many passes as it takes */
    size_t n = io->file != NULL ? strlen(io->file) : 0;
    if (n >= 7 && strcmp(io->file + n - 7, ".pcapng") == 0)
        io->pcapng = true;
    *first_word = optind;
    return 0;
}

/* The words of the command line, then (with -F) each line of the file on top of them. */
static int
read_packets(struct inject_opts *io, int argc, char **argv, int first)
{
    char err[RS_ERRBUF_SIZE], line[4096];
    struct rs_inject_packet *base = &io->pkts[0];

    rs_inject_packet_init(base);
    /* The words as one line, "command line:1:COL", with a value holding spaces (an
     * opcode's name) quoted again as it was typed. */
    size_t len = 0;
    line[0] = '\0';
    for (int i = first; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        int n = eq != NULL && strchr(argv[i], ' ') != NULL && strchr(argv[i], '(') == NULL &&
                        strchr(argv[i], '"') == NULL && strchr(eq + 1, '=') == NULL
                    ? snprintf(line + len, sizeof(line) - len, "%s%.*s\"%s\"", len ? " " : "",
                               (int)(eq - argv[i] + 1), argv[i], eq + 1)
                    : snprintf(line + len, sizeof(line) - len, "%s%s", len ? " " : "", argv[i]);
        if (n < 0 || (size_t)n >= sizeof(line) - len)
            return cli_fail(CLI_EXIT_USAGE, "inject: the packet spec is longer than %zu "
                            "characters", sizeof(line) - 1);
        len += (size_t)n;
    }
    if (rs_inject_spec_parse(base, line, "command line", 1, err) != 0)
        return cli_fail(CLI_EXIT_USAGE, "inject: %s", err);
    if (io->spec_file == NULL) {
        io->n_pkts = 1;
        return 0;
    }
    FILE *f = strcmp(io->spec_file, "-") == 0 ? stdin : fopen(io->spec_file, "r");
    if (f == NULL)
        return cli_fail(CLI_EXIT_INPUT, "inject: %s: %m", io->spec_file);
    unsigned n = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        n++;
        line[strcspn(line, "\n")] = '\0';
        const char *p = line + strspn(line, " \t");
        if (*p == '\0' || *p == '#')
            continue;
        if (io->n_pkts + 1 >= MAX_TEMPLATES) {
            rc = cli_fail(CLI_EXIT_USAGE, "inject: %s:%u:1: more than %d packet specs",
                          io->spec_file, n, MAX_TEMPLATES - 1);
            break;
        }
        struct rs_inject_packet *pk = &io->pkts[1 + io->n_pkts];
        *pk = *base;
        if (rs_inject_spec_parse(pk, line, io->spec_file, n, err) != 0)
            rc = cli_fail(CLI_EXIT_USAGE, "inject: %s", err);
        else
            io->n_pkts++;
    }
    if (f != stdin)
        fclose(f);
    if (rc == 0 && io->n_pkts == 0)
        rc = cli_fail(CLI_EXIT_USAGE, "inject: %s: no packet spec in the file", io->spec_file);
    /* The file's packets follow the base in the array; shift them down. */
    if (rc == 0)
        memmove(&io->pkts[0], &io->pkts[1], io->n_pkts * sizeof(io->pkts[0]));
    return rc;
}

/* -i: the interface's MAC and the neighbour's, where the spec did not give them. */
static int
iface_macs(const struct inject_opts *io)
{
    char err[RS_ERRBUF_SIZE];

    for (size_t i = 0; i < io->n_pkts; i++) {
        struct rs_inject_packet *p = &io->pkts[i];
        if (p->encap == RS_INJECT_IB)
            continue;
        if (!(p->given & RS_INJECT_GAVE_ETH_SRC) &&
            rs_inject_iface_mac(io->iface, p->eth_src, err) != 0)
            return cli_fail(CLI_EXIT_CAPTURE, "inject: -i %s", err);
        if (p->given & RS_INJECT_GAVE_ETH_DST)
            continue;
        /* RoCEv2: the IP destination; RoCEv1: the DGID (IPv4-mapped or IPv6). */
        uint8_t gid[16];
        if (p->encap == RS_INJECT_ROCEV1)
            memcpy(gid, p->grh.dgid, 16);
        else
            rs_addr_from_ip(p->route.family, p->route.dst, gid);
        uint8_t family = rs_addr_family(gid);
        const uint8_t *ip = family == 4 ? gid + 12 : gid;
        int rc = rs_inject_neighbour_mac(io->iface, family, ip, p->eth_dst, err);
        if (rc == RS_ENOENT) {
            char addr[RS_ADDR_TEXT_MAX];
            rs_addr_format(gid, 0, addr, sizeof(addr));
            return cli_fail(CLI_EXIT_CAPTURE, "inject: -i %s: no neighbour entry for %s (ping "
                            "it first, or give eth.dst)", io->iface, addr);
        }
        if (rc != 0)
            return cli_fail(CLI_EXIT_CAPTURE, "inject: -i %s", err);
    }
    return 0;
}

static int
open_sender(const struct inject_opts *io, struct rs_inject_sender **s)
{
    char err[RS_ERRBUF_SIZE];
    bool ib = io->pkts[0].encap == RS_INJECT_IB;

    if (io->udp) {
        const struct rs_inject_packet *p = &io->pkts[0];
        if (rs_inject_open_udp(p->route.family, p->route.src, p->route.sport, s, err) != 0)
            return cli_fail(CLI_EXIT_CAPTURE, "inject: --udp: %s", err);
        return 0;
    }
    if (io->iface != NULL) {
        if (rs_inject_open_iface(io->iface, s, err) != 0)
            return cli_fail(CLI_EXIT_CAPTURE, "inject: -i %s", err);
        return 0;
    }
    for (size_t i = 1; i < io->n_pkts; i++)
        if ((io->pkts[i].encap == RS_INJECT_IB) != ib)
            return cli_fail(CLI_EXIT_USAGE, "inject: -w: native InfiniBand packets go in a "
                            "file of their own (ERF type 21), not with Ethernet frames");
    if (rs_inject_open_file(io->file, io->pcapng ? RS_INJECT_PCAPNG : RS_INJECT_PCAP, ib, s,
                            err) != 0)
        return cli_fail(CLI_EXIT_OUTPUT, "inject: -w %s", err);
    return 0;
}

/* The pacing: when the next packet is due, in nanoseconds since the start. */
struct pacer {
    struct timespec t0;
    double due_ns;
    bool on;
};

/* Waits until the packet of len bytes is due, then moves the due time on. */
static void
pace(struct pacer *pc, const struct inject_opts *io, uint32_t len)
{
    if (!pc->on)
        return;
    double now = cli_seconds_since(&pc->t0) * 1e9;
    if (pc->due_ns > now + 20000) {
        double wait = pc->due_ns - now;
        struct timespec ts = {(time_t)(wait / 1e9), (long)fmod(wait, 1e9)};
        nanosleep(&ts, NULL);
    }
    if (io->pps != 0)
        pc->due_ns += 1e9 / (double)io->pps;
    else if (io->mbps > 0)
        pc->due_ns += (double)len * 8.0 * 1000.0 / io->mbps;
    else
        pc->due_ns += (double)io->gap_us * 1000.0;
}

static void
show_progress(struct cli_progress *pg, uint64_t sent, bool final)
{
    double el = cli_progress_due(pg, final);

    if (el < 0)
        return;
    cli_progress_line(pg, "inject: %llu packets, %.1f s, %.0f packets/s",
                      (unsigned long long)sent, el, el > 0 ? (double)sent / el : 0.0);
    if (final)
        cli_progress_end(pg, true);
}

/* One script: loaded and run; n results, or the exit code of why not. */
static int
script_results(const struct inject_opts *io, const char *path, struct rs_script_result *res,
               unsigned *n)
{
    struct rs_script *s;
    struct rs_script_opts so = {.bind = io->bind, .target = io->target, .pcap = io->file,
                                .no_raw = io->no_raw, .reset = io->reset,
                                .linger_ns = io->linger_ns,
                                .target_info = io->target_file != NULL ? &io->target_info
                                                                       : NULL};
    char err[RS_ERRBUF_SIZE];

    if (rs_script_load(path, &s, err) != 0)
        return cli_fail(strstr(err, ": No such file") != NULL ? CLI_EXIT_INPUT : CLI_EXIT_USAGE,
                        "inject: %s", err);
    int rc = rs_script_run(s, &so, res, n, err);
    rs_script_free(s);
    if (rc != 0)
        return cli_fail(cli_exit_code(rc, CLI_EXIT_CAPTURE), "inject: %s: %s",
                        path, err);
    return 0;
}

static FILE *
junit_open(const struct inject_opts *io)
{
    FILE *f = io->junit != NULL ? fopen(io->junit, "w") : NULL;

    if (f != NULL)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n", f);
    return f;
}

static int
junit_close(const struct inject_opts *io, FILE *f)
{
    if (io->junit == NULL)
        return 0;
    if (f != NULL)
        fputs("</testsuites>\n", f);
    if (f == NULL || fclose(f) != 0)
        return cli_fail(CLI_EXIT_OUTPUT, "inject: --junit %s: %m", io->junit);
    return 0;
}

/* --script: TAP lines and their count, JUnit XML; exit 6 when an expectation failed. */
static int
run_script(const struct inject_opts *io)
{
    struct rs_script_result res[RS_SCRIPT_MAX_RESULTS];
    unsigned n = 0;
    struct timespec t0;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = script_results(io, io->script, res, &n);
    if (rc != 0)
        return rc;
    rs_script_print_tap(stdout, res, n);
    FILE *f = junit_open(io);
    if (f != NULL)
        rs_script_print_junit(f, io->script, res, n, cli_seconds_since(&t0));
    if ((rc = junit_close(io, f)) != 0)
        return rc;
    unsigned failed = rs_script_failures(res, n), expectations = 0;
    for (unsigned k = 0; k < n; k++)
        expectations += !res[k].note;
    printf("# %u expectations: %u passed, %u failed\n", expectations, expectations - failed,
           failed);
    return failed > 0 ? CLI_EXIT_EXPECT : CLI_EXIT_OK;
}

static gint
compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.script files under dir, sorted. */
static void
find_scripts(const char *dir, GPtrArray *out)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;

    if (d == NULL)
        return;
    while ((name = g_dir_read_name(d)) != NULL) {
        char *path = g_build_filename(dir, name, NULL);
        if (g_file_test(path, G_FILE_TEST_IS_DIR))
            find_scripts(path, out);
        else if (g_str_has_suffix(name, ".script"))
            g_ptr_array_add(out, g_strdup(path));
        g_free(path);
    }
    g_dir_close(d);
}

/* --suite DIR: every script under DIR against the target, as a table of behaviour,
 * verdict and evidence; exit 6 when an expectation failed. */
static int
run_suite(const struct inject_opts *io)
{
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    struct rs_script_result res[RS_SCRIPT_MAX_RESULTS];
    unsigned total = 0, failed = 0, scripts = 0;
    int rc = 0;

    find_scripts(io->suite, paths);
    g_ptr_array_sort(paths, compare_names);
    if (paths->len == 0) {
        g_ptr_array_free(paths, TRUE);
        return cli_fail(CLI_EXIT_INPUT, "inject: --suite %s: no .script files", io->suite);
    }
    FILE *f = junit_open(io);
    size_t skip = strlen(io->suite) + (io->suite[strlen(io->suite) - 1] != '/');
    printf("%-60s %-6s %s\n", "behaviour: expectation", "result", "evidence");
    for (guint i = 0; i < paths->len && rc == 0; i++) {
        const char *path = g_ptr_array_index(paths, i);
        unsigned n = 0;
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if ((rc = script_results(io, path, res, &n)) != 0)
            break;
        scripts++;
        char behaviour[128];
        snprintf(behaviour, sizeof(behaviour), "%s", path + skip);
        if (g_str_has_suffix(behaviour, ".script"))
            behaviour[strlen(behaviour) - 7] = '\0';
        for (unsigned k = 0; k < n; k++) {
            char what[256];
            snprintf(what, sizeof(what), "%.90s: %.160s", behaviour, res[k].text);
            printf("%-60s %-6s %s\n", what, res[k].note ? "note" : res[k].ok ? "pass" : "FAIL",
                   res[k].evidence);
            total += !res[k].note;
        }
        failed += rs_script_failures(res, n);
        if (f != NULL)
            rs_script_print_junit(f, behaviour, res, n, cli_seconds_since(&t0));
    }
    g_ptr_array_free(paths, TRUE);
    int jrc = junit_close(io, f);
    if (rc != 0)
        return rc;
    printf("%u scripts, %u expectations: %u passed, %u failed\n", scripts, total,
           total - failed, failed);
    if (jrc != 0)
        return jrc;
    return failed > 0 ? CLI_EXIT_EXPECT : CLI_EXIT_OK;
}

int
cmd_inject(int argc, char **argv)
{
    struct inject_opts io;
    struct rs_inject_sender *s = NULL;
    char err[RS_ERRBUF_SIZE];
    uint64_t sent = 0, built = 0, failed = 0, bytes = 0;
    int first = 0, rc;
    GRand *rng = NULL;
    struct rs_inject_run *run = NULL;
    uint8_t *buf = NULL;

    memset(&io, 0, sizeof(io));
    if ((rc = parse_args(&io, argc, argv, &first)) != 0)
        return rc;
    if (io.target_file != NULL && rs_script_target_file(io.target_file, &io.target_info, err) != 0)
        return cli_fail(strstr(err, ": No such file") != NULL ? CLI_EXIT_INPUT : CLI_EXIT_USAGE,
                        "inject: --target-file %s", err);
    if (io.script != NULL)
        return run_script(&io);
    if (io.suite != NULL)
        return run_suite(&io);
    io.pkts = calloc(MAX_TEMPLATES, sizeof(*io.pkts));
    buf = malloc(RS_INJECT_MAX_FRAME);
    if (io.pkts == NULL || buf == NULL) {
        rc = cli_fail(CLI_EXIT_INTERNAL, "inject: out of memory");
        goto out;
    }
    if ((rc = read_packets(&io, argc, argv, first)) != 0)
        goto out;
    if (io.iface != NULL && (rc = iface_macs(&io)) != 0)
        goto out;
    bool random = false;
    for (size_t i = 0; i < io.n_pkts; i++)
        random |= (io.pkts[i].given & RS_INJECT_GAVE_RANDOM) != 0;
    if (!io.seeded)
        io.seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);
    rng = g_rand_new_with_seed((guint32)io.seed);
    run = calloc(1, sizeof(*run));
    if (run == NULL) {
        rc = cli_fail(CLI_EXIT_INTERNAL, "inject: out of memory");
        goto out;
    }
    run->rng = rng;
    if ((rc = open_sender(&io, &s)) != 0)
        goto out;

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    struct pacer pc = {.on = io.pps != 0 || io.mbps > 0 || io.gap_us != 0};
    struct cli_progress pg;
    cli_progress_start(&pg, 0);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pc.t0 = t0;
    bool done = false;
    for (uint64_t pass = 0; !done && (io.loop == 0 || pass < io.loop); pass++) {
        for (size_t i = 0; !done && i < io.n_pkts; i++) {
            struct rs_inject_packet *p = &io.pkts[i];
            if (pass > 0)
                p->psn_offset = (uint32_t)((p->psn_offset + io.psn_step) & 0xffffff);
            for (uint32_t r = 0; !done && r < p->repeat; r++) {
                struct rs_inject_frame fr;
                if (rs_inject_next(p, run, buf, &fr, err) != 0) {
                    rc = cli_fail(CLI_EXIT_USAGE, "inject: packet %zu: %s", i + 1, err);
                    done = true;
                    break;
                }
                pace(&pc, &io, fr.len);
                int src = rs_inject_send(s, &fr, err);
                if (src == 0 && pc.on)
                    src = rs_inject_flush(s, err);      /* paced: each goes when it is due */
                built++;
                if (src == 0)
                    bytes += fr.len;
                if (src == RS_EINVAL) {
                    rc = cli_fail(CLI_EXIT_USAGE, "inject: packet %zu: %s", i + 1, err);
                    done = true;
                } else if (src != 0) {
                    failed++;
                    if (io.file != NULL) {      /* a file that fails stays failed */
                        rc = cli_fail(CLI_EXIT_OUTPUT, "inject: -w %s", err);
                        done = true;
                    }
                }
                if ((io.count != 0 && built >= io.count) || stop_now)
                    done = true;
                /* The clock is read every 1024 packets at full speed, every packet paced. */
                if (pc.on || (built & 1023) == 0) {
                    show_progress(&pg, built - failed, false);
                    if (io.duration != 0 && cli_seconds_since(&t0) >= (double)io.duration)
                        done = true;
                }
            }
        }
    }
    int crc = rs_inject_close(s, &sent, err);
    s = NULL;
    if (crc != 0 && rc == 0)
        rc = cli_fail(io.file != NULL ? CLI_EXIT_OUTPUT : CLI_EXIT_CAPTURE, "inject: %s", err);
    double el = cli_seconds_since(&t0);
    if (rc != 0 && sent == 0)
        goto out;               /* the error line says it all */
    show_progress(&pg, sent, true);
    if (io.file == NULL)
        failed = built - sent;      /* a failed batch of datagrams fails them all */
    fprintf(stderr, "inject: %llu sent, %llu failed, %.3f s, %.0f packets/s, %.1f Mbit/s%s",
            (unsigned long long)sent, (unsigned long long)failed, el,
            el > 0 ? (double)sent / el : 0.0, el > 0 ? (double)bytes * 8 / el / 1e6 : 0.0,
            random ? "" : "\n");
    if (random)
        fprintf(stderr, ", seed %llu\n", io.seed);
    if (run->flows_restarted > 0)
        fprintf(stderr, "inject: %llu TCP flows forgotten for newer ones (the table holds %d): "
                "their sequence numbers start over if they come again\n",
                (unsigned long long)run->flows_restarted, RS_INJECT_MAX_FLOWS);
    if (rc == 0 && failed > 0)
        rc = cli_fail(CLI_EXIT_CAPTURE, "inject: %llu packets could not be sent",
                      (unsigned long long)failed);
out:
    if (s != NULL)
        rs_inject_close(s, NULL, err);
    if (rng != NULL)
        g_rand_free(rng);
    free(run);
    free(buf);
    free(io.pkts);
    return rc;
}
