/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_inject.c - `roceshark inject`: the options; packets, builders and
 * senders are inject/.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <roceshark/inject.h>

#include "cli.h"

#define MAX_PACKETS 4096

static const char usage[] =
    "usage: roceshark inject (-w FILE | --udp) [options] [SPEC ...]\n"
    "\n"
    "Builds RoCEv2 packets from Wireshark field names and writes or sends them. A SPEC is\n"
    "layered, 'eth / ip(dst=10.0.0.2) / udp(srcport=5) / bth(opcode=\"RC Send Only\",\n"
    "psn=7) / payload(len=64)' (a layer's fields by the last part of their names), or flat,\n"
    "FIELD=VALUE words with full names (infiniband.bth.psn=7).\n"
    "  -w FILE          write a pcap file of Ethernet frames ('-' for standard output)\n"
    "  --udp            send over a UDP socket from ip.src:udp.srcport to ip.dst:udp.dstport\n"
    "                   (ip.id 0 and DF, which the ICRC covers; any address of this host)\n"
    "  -F FILE          one packet spec per line (# comments), on top of the words given\n"
    "  -c N             send the packets N times (default 1)\n"
    "  --psn-step N     add N to every packet's PSN each time round (default 0)\n"
    "  --pps RATE       at most RATE packets a second (default: as fast as it goes)\n"
    "fields: eth.src eth.dst ip.src ip.dst (IPv4 or IPv6) ip.dsfield ip.ttl ip.id ip.flags.df\n"
    "  ipv6.flow udp.srcport udp.dstport infiniband.bth.opcode (number or name, quoted:\n"
    "  \"RC RDMA Write Only\") .se .m .a .tver .p_key .destqp .psn roceshark.bth.fecn .becn\n"
    "  infiniband.reth.va .r_key .dmalen infiniband.atomiceth.swapdt .cmpdt\n"
    "  infiniband.aeth.syndrome .msn infiniband.atomicacketh.origremdt infiniband.immdt\n"
    "  infiniband.ieth infiniband.deth.q_key .srcqp infiniband.rdeth.eecnxt\n"
    "  roceshark.xrceth.xrcsrq payload=HEX|len:N icrc=bad\n"
    "layers: eth ip ipv6 udp bth rdeth deth xrceth reth atomiceth aeth atomicacketh immdt\n"
    "  ieth payload(len=N|hex=HEX)\n"
    "example: roceshark inject -w w.pcap infiniband.bth.opcode=0x0a infiniband.bth.psn=7 \\\n"
    "             infiniband.reth.va=0x1000 infiniband.reth.r_key=0x55 \\\n"
    "             infiniband.reth.dmalen=64 payload=len:64\n";

enum { OPT_UDP = 0x100, OPT_PSN_STEP, OPT_PPS };

struct inject_opts {
    const char *file, *spec_file;
    bool udp;
    unsigned long long count, psn_step, pps;
    struct rs_inject_packet *pkts;      /* the packets, in order */
    size_t n_pkts;
};

static int
parse_args(struct inject_opts *io, int argc, char **argv, int *first_word)
{
    static const struct option longopts[] = {
        {"udp", no_argument, NULL, OPT_UDP},
        {"psn-step", required_argument, NULL, OPT_PSN_STEP},
        {"pps", required_argument, NULL, OPT_PPS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;

    io->count = 1;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":w:F:c:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'w':
            io->file = optarg;
            break;
        case 'F':
            io->spec_file = optarg;
            break;
        case 'c':
            if (!cli_parse_uint(optarg, 1, UINT32_MAX, &io->count))
                return cli_fail(CLI_EXIT_USAGE, "inject: -c %s: expected 1 or more", optarg);
            break;
        case OPT_UDP:
            io->udp = true;
            break;
        case OPT_PSN_STEP:
            if (!cli_parse_uint(optarg, 0, 0xffffff, &io->psn_step))
                return cli_fail(CLI_EXIT_USAGE, "inject: --psn-step %s: expected 0..16777215",
                                optarg);
            break;
        case OPT_PPS:
            if (!cli_parse_uint(optarg, 1, 100000000, &io->pps))
                return cli_fail(CLI_EXIT_USAGE, "inject: --pps %s: expected 1..100000000",
                                optarg);
            break;
        case 'h':
            fputs(usage, stdout);
            exit(CLI_EXIT_OK);
        case ':':
            return cli_fail(CLI_EXIT_USAGE, "inject: option %s needs a value",
                            argv[optind - 1]);
        default:
            return cli_fail(CLI_EXIT_USAGE, "inject: unknown option %s (try 'roceshark inject "
                            "-h')", argv[optind - 1]);
        }
    }
    if ((io->file != NULL) == io->udp)
        return cli_fail(CLI_EXIT_USAGE, "inject: give -w FILE or --udp (one of them)");
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
        int n = eq != NULL && strchr(argv[i], ' ') != NULL && strchr(argv[i], '(') == NULL
                    ? snprintf(line + len, sizeof(line) - len, "%s%.*s\"%s\"", len ? " " : "",
                               (int)(eq - argv[i] + 1), argv[i], eq + 1)
                    : snprintf(line + len, sizeof(line) - len, "%s%s", len ? " " : "", argv[i]);
        if (n < 0 || (size_t)n >= sizeof(line) - len)
            return cli_fail(CLI_EXIT_USAGE, "inject: the packet spec is longer than %zu "
                            "characters", sizeof(line) - 1);
        len += (size_t)n;
    }
    if (rs_inject_spec_parse(base, line, "command line", 1, err) != 0)
        return cli_fail(CLI_EXIT_USAGE, "%s", err);
    if (io->spec_file == NULL) {
        io->n_pkts = 1;
        return 0;
    }
    FILE *f = strcmp(io->spec_file, "-") == 0 ? stdin : fopen(io->spec_file, "r");
    if (f == NULL)
        return cli_fail(CLI_EXIT_INPUT, "%s: %m", io->spec_file);
    unsigned n = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        n++;
        line[strcspn(line, "\n")] = '\0';
        const char *p = line + strspn(line, " \t");
        if (*p == '\0' || *p == '#')
            continue;
        if (io->n_pkts + 1 >= MAX_PACKETS) {
            rc = cli_fail(CLI_EXIT_USAGE, "%s:%u:1: more than %d packets", io->spec_file, n,
                          MAX_PACKETS - 1);
            break;
        }
        struct rs_inject_packet *pk = &io->pkts[1 + io->n_pkts];
        *pk = *base;
        if (rs_inject_spec_parse(pk, line, io->spec_file, n, err) != 0)
            rc = cli_fail(CLI_EXIT_USAGE, "%s", err);
        else
            io->n_pkts++;
    }
    if (f != stdin)
        fclose(f);
    if (rc == 0 && io->n_pkts == 0)
        rc = cli_fail(CLI_EXIT_USAGE, "%s: no packet spec in the file", io->spec_file);
    /* The file's packets follow the base in the array; shift them down. */
    if (rc == 0)
        memmove(&io->pkts[0], &io->pkts[1], io->n_pkts * sizeof(io->pkts[0]));
    return rc;
}

/* Sleeps until the next packet is due at pps packets a second. */
static void
pace(struct timespec *next, unsigned long long pps)
{
    long step = (long)(1000000000ull / pps);

    next->tv_nsec += step;
    while (next->tv_nsec >= 1000000000) {
        next->tv_nsec -= 1000000000;
        next->tv_sec++;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL);
}

int
cmd_inject(int argc, char **argv)
{
    struct inject_opts io;
    struct rs_inject_sender *s = NULL;
    char err[RS_ERRBUF_SIZE];
    uint64_t sent = 0;
    int first = 0, rc;

    memset(&io, 0, sizeof(io));
    if ((rc = parse_args(&io, argc, argv, &first)) != 0)
        return rc;
    io.pkts = calloc(MAX_PACKETS, sizeof(*io.pkts));
    if (io.pkts == NULL)
        return cli_fail(CLI_EXIT_INTERNAL, "inject: out of memory");
    if ((rc = read_packets(&io, argc, argv, first)) != 0)
        goto out;
    rc = io.udp ? rs_inject_open_udp(&io.pkts[0], &s, err) : rs_inject_open_file(io.file, &s, err);
    if (rc != 0) {
        rc = io.udp ? cli_fail(CLI_EXIT_CAPTURE, "inject: %s", err)
                    : cli_fail(CLI_EXIT_OUTPUT, "inject: %s", err);
        goto out;
    }
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (unsigned long long round = 0; round < io.count && rc == 0; round++) {
        for (size_t i = 0; i < io.n_pkts && rc == 0; i++) {
            struct rs_inject_packet *p = &io.pkts[i];
            if (round > 0)
                p->f.psn = (uint32_t)((p->f.psn + io.psn_step) & 0xffffff);
            if (io.pps != 0)
                pace(&next, io.pps);
            if ((rc = rs_inject_send(s, p, err)) == 0 && io.pps != 0)
                rc = rs_inject_flush(s, err);   /* paced: each goes when it is due */
            if (rc != 0)
                rc = cli_fail(rc == RS_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_CAPTURE,
                              "inject: packet %zu: %s", i + 1, err);
        }
    }
    int crc = rs_inject_close(s, &sent, err);
    if (crc != 0 && rc == 0)
        rc = cli_fail(CLI_EXIT_OUTPUT, "inject: %s", err);
    if (rc == 0)
        fprintf(stderr, "inject: %llu packets %s\n", (unsigned long long)sent,
                io.udp ? "sent" : "written");
out:
    free(io.pkts);
    return rc;
}
