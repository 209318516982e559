/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c - the roceshark binary: one subcommand per file.
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/version.h>

#include "cli.h"

static const char usage[] =
    "usage: roceshark <command> [options]\n"
    "\n"
    "commands:\n"
    "  read     -r FILE | -i IFACE [-c N] [-V] [-T text|json|fields] [-e FIELD]...\n"
    "           [-E opt=val] [-d udp.port==N,roce] [-d tcp.port==N,iwarp] [-l] [-f BPF]\n"
    "                                           decode a capture file or live traffic\n"
    "  read     ... -Y FILTER -z conv,qp|expert|io,stat,I[,F]|iwarp -q -o rc.pmtu:N\n"
    "                                           filter, analyze, count\n"
    "  read     ... -w FILE [-F pcap|pcapng] [-P] [-O PROTO] [-S SEP] [-2 -R FILTER]\n"
    "           [-a packets:N|duration:S|filesize:KB] [--disable-protocol PROTO]\n"
    "                                           save what is shown, tshark's other habits\n"
    "  capture  -i IFACE | -d DEV[:PORT]  -w FILE [-f BPF] [-c N] [-s SNAPLEN] [-B MiB]\n"
    "           [-a duration:S|filesize:KB] [-b filesize:KB|duration:S|files:N]\n"
    "                                           capture live RDMA traffic to pcap files\n"
    "  tui      -r FILE | -i IFACE [-w FILE] [-f BPF] [-Y FILTER] [--no-color]\n"
    "                                           a capture in a terminal: QP conversations\n"
    "                                           with rates, packets, expert items\n"
    "  ifaces                                   list interfaces and RDMA devices\n"
    "  fields   [PREFIX]                        list every field, its type and meaning\n"
    "  read -G [REPORT]                         tshark -G's reports (fields, protocols,\n"
    "                                           values, decodes, defaultprefs, ...; also\n"
    "                                           'roceshark -G ...')\n"
    "  correlate -r A -r B [-r C]... [-z corr,qp] [-T fields -e F] [-Y F] [--window T]\n"
    "                                           one packet across captures of several points\n"
    "  plot psn -r FILE --qp QPN -o OUT.svg     PSN/time graph of one conversation\n"
    "  responder --bind IP [--target IP --peer-qpn N] [--mr SIZE] [--recv N] [--control]\n"
    "                                           an IBTA RC responder on RoCEv2 (UDP 4791)\n"
    "  inject   (-w FILE | -i IFACE | --udp) [-F SPECS] [-c N] [--pps N] [SPEC ...]\n"
    "                                           craft RoCE, IB and iWARP packets; write or send\n"
    "  bridge   IFACE_A IFACE_B [--faults FILE] [-w PREFIX] [-c N]\n"
    "                                           forward frames between two ports, with faults\n"
    "  perf     write_bw|read_bw|send_bw|send_lat|write_lat|rping --bind IP [--target IP]\n"
    "           [-s SIZE] [-n ITERS] [-m PMTU]  perftest's tests (and rping's client) over\n"
    "                                           the software RC transport\n"
    "  replay   -r FILE (--conv N | --qp QPN) --bind IP (--target IP[:PORT] | --dst IP)\n"
    "                                           play a captured conversation against a\n"
    "                                           live peer and compare its answers\n"
    "  run      [--dev NAME=IP]... -- PROGRAM [ARGS]\n"
    "                                           a verbs program (ib_write_bw, ibv_rc_pingpong)\n"
    "                                           over the software RC, without RDMA hardware\n"
    "\n"
    "options:\n"
    "  -h, --help                               this text\n"
    "  -v, --version                            the version, the optional parts built in\n"
    "                                           and the libpcap in use\n"
    "\n"
    "Run 'roceshark <command> -h' (or 'roceshark help <command>') for the options of one\n"
    "command. A live capture stopped by SIGINT or SIGTERM writes what it has, prints its\n"
    "counts and exits 0.\n"
    "\n"
    "exit codes:\n"
    "  0  success\n"
    "  1  bad usage: unknown option, bad argument, unknown field\n"
    "  2  unreadable or corrupt input file\n"
    "  3  output could not be written (disk full, write error: the file is kept whole)\n"
    "  4  capture device missing, unsupported or not permitted (no such interface\n"
    "     or RDMA device, no RDMA kernel or sniffer support, no CAP_NET_RAW), or a\n"
    "     network endpoint (responder, perf) unreachable or not permitted;\n"
    "     read -i on an interface that does not exist exits 1, as tshark\n"
    "  5  internal error (out of memory)\n"
    "  6  inject --script/--suite: expectations failed (the count on the last line)\n"
    "  7  replay: the target diverged from the capture (the count on the last line)\n"
    "'roceshark run' exits with its program's status.\n";

/* The optional commands, or why this build has none. */
static int
cmd_run_or_missing(int argc, char **argv)
{
#if RS_BUILT_VERBS
    return cmd_run(argc, argv);
#else
    (void)argc;
    (void)argv;
    return cli_fail(CLI_EXIT_USAGE, "run: built without the verbs library "
                    "(<infiniband/verbs.h> was not found)");
#endif
}

static int
cmd_tui_or_missing(int argc, char **argv)
{
#if RS_BUILT_TUI
    return cmd_tui(argc, argv);
#else
    (void)argc;
    (void)argv;
    return cli_fail(CLI_EXIT_USAGE, "tui: built without the TUI (ncursesw was not found)");
#endif
}

/* The command argv[0] names, with its arguments; NULL when there is no such command. */
static int (*command(const char *name))(int, char **)
{
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } commands[] = {
        {"read", cmd_read}, {"fields", cmd_fields}, {"plot", cmd_plot}, {"correlate", cmd_correlate},
        {"capture", cmd_capture}, {"ifaces", cmd_ifaces}, {"responder", cmd_responder},
        {"perf", cmd_perf}, {"inject", cmd_inject}, {"bridge", cmd_bridge},
        {"replay", cmd_replay}, {"run", cmd_run_or_missing}, {"tui", cmd_tui_or_missing},
    };

    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run;
    return NULL;
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    /* `roceshark help CMD` is `roceshark CMD -h`. */
    if (strcmp(cmd, "help") == 0 && argc > 2) {
        int (*run)(int, char **) = command(argv[2]);
        char *help_argv[] = {argv[2], "-h", NULL};
        if (run == NULL)
            return cli_fail(CLI_EXIT_USAGE, "help %s: unknown command (try 'roceshark --help')",
                            argv[2]);
        return run(2, help_argv);
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "-v") == 0 || strcmp(cmd, "--version") == 0) {
        return cmd_version();
    }
    int (*run)(int, char **) = command(cmd);
    if (run != NULL)
        return run(argc - 1, argv + 1);
    /* tshark's habit: `roceshark -r FILE ...` and `roceshark -G fields` are read's, as a
     * tshark command line is (read names any option it does not know). */
    if (cmd[0] == '-' && cmd[1] != '\0')
        return cmd_read(argc, argv);
    return cli_fail(CLI_EXIT_USAGE, "%s: unknown command (try 'roceshark --help')", cmd);
}
