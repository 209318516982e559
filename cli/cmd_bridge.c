/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_bridge.c - `roceshark bridge`: the options; the bridge and the fault
 * engine are inject/.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/inject/bridge.h>

#include "cli.h"
#include "rc_cli.h"     /* the stop flag SIGINT and SIGTERM set */

static const char usage[] =
    "usage: roceshark bridge IFACE_A IFACE_B [--faults FILE] [-w PREFIX] [-c N] [--busy-poll]\n"
    "\n"
    "Forwards every frame between two interfaces byte for byte (libpcap), through the fault\n"
    "engine's rules: drop, duplicate, reorder, delay, corrupt, set, add and mark, selected by\n"
    "display filters (see roceshark(1), FAULT RULES). A to B is the rules' tx, B to A rx.\n"
    "  --faults FILE    the rules (without: plain forwarding)\n"
    "  -w PREFIX        write what comes in on each side to PREFIX-a.pcap and PREFIX-b.pcap\n"
    "  -c N             stop after N frames in all\n"
    "  --busy-poll      spin instead of sleeping between frames: tens of microseconds less\n"
    "                   latency, for a whole core\n"
    "At the end (SIGINT, SIGTERM or -c), after passing on what its rings and delays still\n"
    "hold: frames each way, failed sends, frames the kernel dropped because the bridge fell\n"
    "behind, and per rule the frames it matched and acted on. A bridge on packet sockets forwards frames as the senders' drivers left them: turn\n"
    "checksum offload and segmentation off on the hosts (ethtool -K IFACE tx off tso off\n"
    "gso off gro off), as for tcpreplay.\n";

static void
ready(void *arg)
{
    const struct rs_bridge_opts *o = arg;

    fprintf(stderr, "bridge: %s <-> %s, %u rules\n", o->iface_a, o->iface_b,
            o->faults != NULL ? rs_faults_rules(o->faults) : 0);
}

int
cmd_bridge(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"faults", required_argument, NULL, 'F'},
        {"busy-poll", no_argument, NULL, 'B'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct rs_bridge_opts o;
    struct rs_bridge_stats st;
    char err[RS_ERRBUF_SIZE], wa[4096], wb[4096];
    const char *prefix = NULL;
    unsigned long long count = 0;
    int c, rc;

    memset(&o, 0, sizeof(o));
    optind = 1;
    while ((c = cli_getopt("bridge", argc, argv, "w:c:h", longopts, usage)) != CLI_OPT_END) {
        switch (c) {
        case 'F':
            rs_faults_free(o.faults);
            if (rs_faults_load(optarg, &o.faults, err) != 0)
                return cli_fail(CLI_EXIT_USAGE, "bridge: --faults: %s", err);
            break;
        case 'w':
            prefix = optarg;
            break;
        case 'B':
            o.busy_poll = true;
            break;
        case 'c':
            if (!cli_parse_uint(optarg, 1, UINT64_MAX, &count)) {
                rs_faults_free(o.faults);
                return cli_fail(CLI_EXIT_USAGE, "bridge: -c %s: expected 1 or more", optarg);
            }
            break;
        default:    /* CLI_OPT_HELP, CLI_OPT_BAD */
            rs_faults_free(o.faults);
            return c == CLI_OPT_HELP ? CLI_EXIT_OK : CLI_EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        rs_faults_free(o.faults);
        return cli_fail(CLI_EXIT_USAGE, "bridge: give two interfaces, IFACE_A IFACE_B");
    }
    o.iface_a = argv[optind];
    o.iface_b = argv[optind + 1];
    if (prefix != NULL) {
        snprintf(wa, sizeof(wa), "%s-a.pcap", prefix);
        snprintf(wb, sizeof(wb), "%s-b.pcap", prefix);
        o.write_a = wa;
        o.write_b = wb;
    }
    o.count = count;
    o.stopped = rc_cli_stopped;
    o.ready = ready;
    o.arg = &o;
    rc_cli_catch_signals();
    rc = rs_bridge_run(&o, &st, err);
    if (rc != 0)
        rc = cli_fail(strstr(err, ".pcap") != NULL ? CLI_EXIT_OUTPUT : CLI_EXIT_CAPTURE,
                      "bridge: %s", err);
    else
        fprintf(stderr, "bridge: %s to %s %llu frames, %s to %s %llu frames, %llu failed, "
                "%llu dropped by the kernel (%llu on %s, %llu on %s)\n",
                o.iface_a, o.iface_b, (unsigned long long)st.out[1], o.iface_b, o.iface_a,
                (unsigned long long)st.out[0], (unsigned long long)st.failed,
                (unsigned long long)(st.dropped[0] + st.dropped[1]),
                (unsigned long long)st.dropped[0], o.iface_a, (unsigned long long)st.dropped[1],
                o.iface_b);
    if (o.faults != NULL) {
        if (rc == 0)
            rs_faults_report(o.faults, stderr);
        rs_faults_free(o.faults);
    }
    return rc;
}
