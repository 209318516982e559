/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_tui.c - `roceshark tui`: the live terminal view of a capture file
 * (tui/). Argument parsing and the exit codes only.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <roceshark/tui.h>

#include "cli.h"

static const char tui_usage[] =
    "usage: roceshark tui -r FILE [-Y FILTER] [-d udp.port==N,roce] [--no-color]\n"
    "  The capture in a terminal, while it loads: QP conversations with their rates\n"
    "  over 2, 10 and 40 s, the packets (list, -V tree and bytes), and the expert items.\n"
    "  -r FILE          capture to show (pcap or pcapng; not standard input)\n"
    "  -Y FILTER        display filter to start with (Wireshark syntax; '/' changes it)\n"
    "  -d udp.port==N,roce, -d tcp.port==N,iwarp\n"
    "                   as for 'roceshark read'\n"
    "  --no-color       no colours (as NO_COLOR=1 in the environment)\n"
    "  Press ? in the TUI for its keys. Needs a terminal of at least 80x24.\n";

static int
parse_tui_args(int argc, char **argv, struct rs_tui_run_opts *o)
{
    static const struct option longopts[] = {{"no-color", no_argument, NULL, 'C'},
                                              {"help", no_argument, NULL, 'h'},
                                              {NULL, 0, NULL, 0}};
    int c, rc;

    memset(o, 0, sizeof(*o));
    rs_tui_model_opts_init(&o->model);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":r:Y:d:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'r':
            o->model.path = optarg;
            break;
        case 'Y':
            o->model.filter = optarg;
            break;
        case 'd':
            if ((rc = cli_parse_decode_as(optarg, &o->model.decode)) != 0)
                return rc;
            break;
        case 'C':
            o->no_color = true;
            break;
        case 'h':
            fputs(tui_usage, stdout);
            return -1;
        case ':':
            return cli_fail(CLI_EXIT_USAGE, "tui: option -%c needs a value", optopt);
        default:
            return cli_fail(CLI_EXIT_USAGE, "tui: unknown option %s (try 'roceshark tui -h')",
                            argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "tui: unexpected argument '%s'", argv[optind]);
    if (o->model.path == NULL)
        return cli_fail(CLI_EXIT_USAGE, "tui: no input (use -r FILE)");
    return 0;
}

int
cmd_tui(int argc, char **argv)
{
    struct rs_tui_run_opts o;
    char err[RS_ERRBUF_SIZE];
    int rc;

    if ((rc = parse_tui_args(argc, argv, &o)) != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    /* A bad filter is a usage error whatever the terminal. */
    if (o.model.filter != NULL && rs_tui_model_check_filter(o.model.filter, err) != 0)
        return cli_fail(CLI_EXIT_USAGE, "-Y %s: %s", o.model.filter, err);
    switch (rc = rs_tui_run(&o, err)) {
    case 0:
        return CLI_EXIT_OK;
    case RS_ENOTSUP:
    case RS_EINVAL:
        return cli_fail(CLI_EXIT_USAGE, "tui: %s", err);
    case RS_ENOMEM:
        return cli_fail(CLI_EXIT_INTERNAL, "tui: %s", err);
    default:
        return cli_fail(CLI_EXIT_INPUT, "tui: %s", err);
    }
}
