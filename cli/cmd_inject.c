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
#include "inject_cli.h"


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
        return inject_run_script(&io);
    if (io.suite != NULL)
        return inject_run_suite(&io);
    io.pkts = calloc(MAX_TEMPLATES, sizeof(*io.pkts));
    buf = malloc(RS_INJECT_MAX_FRAME);
    if (io.pkts == NULL || buf == NULL) {
        rc = cli_fail(CLI_EXIT_INTERNAL, "inject: out of memory");
        goto out;
    }
    if ((rc = inject_read_packets(&io, argc, argv, first)) != 0)
        goto out;
    if (io.iface != NULL && (rc = inject_iface_macs(&io)) != 0)
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
    if ((rc = inject_open_sender(&io, &s)) != 0)
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
                inject_pace(&pc, &io, fr.len);
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
