/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_tui.c - `roceshark tui`: the terminal view of a capture file or of a
 * live capture (tui/). Argument parsing, signals and exit codes; with the
 * captures of several points, their correlation (corr_run.c) for the
 * Segments view, made before the screen opens, its progress on stderr.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/print.h>
#include <roceshark/tui/tui.h>

#include "cli.h"
#include "corr_run.h"

static const char tui_usage[] =
    "usage: roceshark tui -r FILE [-r FILE ...] | -i IFACE | -d DEV[:PORT] [-w FILE]\n"
    "                     [-f BPF]\n"
    "                     [-Y FILTER] [-d udp.port==N,roce] [--counters DEV[:PORT]]\n"
    "                     [--sysfs ROOT] [--no-color]\n"
    "  The capture in a terminal, while it loads: QP conversations with their rates\n"
    "  over 2, 10 and 40 s, the packets (list, -V tree and bytes), and the expert items.\n"
    "  -r FILE          capture to show (pcap or pcapng; not standard input). Given\n"
    "                   again, the captures of several points (2 or more): the first is\n"
    "                   shown, and F8 follows each packet across them as 'roceshark\n"
    "                   correlate' does (where it was seen, lost, delayed, CE marked)\n"
    "  -i IFACE         capture live from an interface (libpcap), with the default RDMA\n"
    "                   filter; every frame is written to a file and read back from it\n"
    "  -d DEV[:PORT]    capture live from an RDMA device's port (default 1) through a\n"
    "                   sniffer QP, as 'capture -d'; its counters fill the F7 view\n"
    "  -w FILE          live: the file to keep (default: a temporary one, removed on exit)\n"
    "  -f BPF           with -i: capture filter replacing the default RDMA one\n"
    "  -Y FILTER        display filter to start with (Wireshark syntax; '/' changes it)\n"
    "  -d udp.port==N,roce, -d tcp.port==N,iwarp\n"
    "                   as for 'roceshark read' (a -d with '==' decodes, one without\n"
    "                   names a device)\n"
    "  --counters DEV[:PORT]\n"
    "                   the NIC counters view (F7): the RDMA port's counters/ and\n"
    "                   hw_counters/ from sysfs, as rates, beside the capture's figures\n"
    "  --sysfs ROOT     read the counters under ROOT instead of /sys (a copy of another\n"
    "                   machine's sysfs, say)\n"
    "  --no-color       no colours (as NO_COLOR=1 in the environment)\n"
    "  Press ? in the TUI for its keys. Needs a terminal of at least 80x24. A live\n"
    "  capture prints its counts on exit, as 'roceshark capture' does; SIGINT (Ctrl-C)\n"
    "  or SIGTERM ends it cleanly.\n";

/* --counters DEV[:PORT]: the device name is kept in place, the port cut off. */
static int
parse_counters_port(char *arg, struct rs_tui_run_opts *o)
{
    char *colon = strrchr(arg, ':');
    unsigned long long port = 1;

    if (colon != NULL) {
        if (!cli_parse_uint(colon + 1, 1, 255, &port))
            return cli_fail(CLI_EXIT_USAGE, "--counters %s: expected DEV or DEV:PORT "
                            "(port 1-255)", arg);
        *colon = '\0';
    }
    if (arg[0] == '\0')
        return cli_fail(CLI_EXIT_USAGE, "--counters: expected an RDMA device name");
    o->nic_dev = arg;
    o->nic_port = (unsigned)port;
    return 0;
}

static int
parse_tui_args(int argc, char **argv, struct rs_tui_run_opts *o, const char **sysfs_root,
               struct corr_run *run)
{
    static const struct option longopts[] = {{"no-color", no_argument, NULL, 'C'},
                                              {"counters", required_argument, NULL, 'N'},
                                              {"sysfs", required_argument, NULL, 'S'},
                                              {"help", no_argument, NULL, 'h'},
                                              {NULL, 0, NULL, 0}};
    int c, rc;
    bool have_r = false, have_w = false;

    memset(o, 0, sizeof(*o));
    rs_tui_model_opts_init(&o->model);
    optind = 1;
    while ((c = cli_getopt("tui", argc, argv, "r:i:w:f:Y:d:h", longopts, tui_usage)) !=
           CLI_OPT_END) {
        switch (c) {
        case 'r':
            if (have_r && strcmp(optarg, "-") == 0)
                return cli_fail(CLI_EXIT_USAGE, "tui: -r -: the captures of several points "
                                "are read three times, so not from standard input");
            if ((rc = corr_run_add_file(run, optarg)) != 0)
                return rc;
            if (!have_r)
                o->model.path = optarg;
            have_r = true;
            break;
        case 'i':
            o->model.iface = optarg;
            break;
        case 'w':
            o->model.path = optarg;
            have_w = true;
            break;
        case 'f':
            o->model.live.filter = optarg;
            break;
        case 'Y':
            o->model.filter = optarg;
            break;
        case 'd':
            /* tshark's -d decodes as; the TUI's own -d names a device, as capture's does. */
            if (strstr(optarg, "==") == NULL)
                o->model.rdma = optarg;
            else if ((rc = cli_parse_decode_as(optarg, &o->model.decode)) != 0)
                return rc;
            break;
        case 'C':
            o->no_color = true;
            break;
        case 'N':
            if ((rc = parse_counters_port(optarg, o)) != 0)
                return rc;
            break;
        case 'S':
            *sysfs_root = optarg;
            break;
        case CLI_OPT_HELP:
            return -1;
        default:    /* CLI_OPT_BAD */
            return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "tui: unexpected argument '%s'", argv[optind]);
    if (have_r + (o->model.iface != NULL) + (o->model.rdma != NULL) != 1)
        return cli_fail(CLI_EXIT_USAGE, "tui: give one of -r FILE, -i IFACE or -d DEV[:PORT]");
    if (!rs_tui_model_opts_live(&o->model) && have_w)
        return cli_fail(CLI_EXIT_USAGE, "tui: -w applies to -i and -d");
    if (o->model.iface == NULL && o->model.live.filter != NULL)
        return cli_fail(CLI_EXIT_USAGE, "tui: -f applies to -i; the sniffer QP of -d takes "
                        "every frame of the port");
    if (*sysfs_root != NULL && o->nic_dev == NULL && o->model.rdma == NULL)
        return cli_fail(CLI_EXIT_USAGE, "tui: --sysfs applies to --counters");
    o->stop_requested = cli_stop_requested;
    return 0;
}

/* The Segments view's rows: each packet of the points' captures, followed across them. */
struct tui_corr {
    struct corr_run run;
    struct rs_tui_corr rows;
    bool failed;
};

static void
add_row(void *ctx, const struct rs_corr_view *v, const struct rs_frame *f)
{
    struct tui_corr *tc = ctx;
    struct rs_packet pkt;
    char info[256];

    rs_decode_frame(f, &tc->run.decode, &pkt);
    rs_print_info(&pkt, info, sizeof(info));
    if (!tc->failed && rs_tui_corr_add(&tc->rows, v, info) != 0)
        tc->failed = true;
}

static int
correlate(struct tui_corr *tc)
{
    int rc;

    tc->run.sink = add_row;
    tc->run.ctx = tc;
    tc->rows.n_points = tc->run.n_files;
    if ((rc = corr_run_prepare(&tc->run)) == 0 && (rc = corr_run_match(&tc->run)) == 0) {
        size_t n = tc->run.n_files;
        /* the run's arrays go with it: the view keeps copies */
        tc->rows.files = malloc(n * sizeof(*tc->rows.files));
        tc->rows.clock = malloc(n * sizeof(*tc->rows.clock));
        if (tc->rows.files != NULL && tc->rows.clock != NULL) {
            memcpy((void *)tc->rows.files, tc->run.files, n * sizeof(*tc->rows.files));
            memcpy(tc->rows.clock, tc->run.clock, n * sizeof(*tc->rows.clock));
        } else {
            tc->failed = true;
        }
        tc->rows.counts = rs_corr_counts(tc->run.fin);
        tc->rows.window = tc->run.match_opts.window;
        if (tc->failed)
            rc = cli_fail(CLI_EXIT_INTERNAL, "tui: out of memory");
    }
    corr_run_free(&tc->run);
    if (rc != 0)
        rs_tui_corr_free(&tc->rows);
    return rc;
}

/* The screens until the user quits, and a live capture's counts after. */
static int
run_screens(struct rs_tui_run_opts o, const char *sysfs_root)
{
    struct rs_tui_run_result res;
    char err[RS_ERRBUF_SIZE];
    int rc;

    /* The device captured from shows its own counters, when sysfs has them. */
    char rdma_dev[64];
    if (o.nic_dev == NULL && o.model.rdma != NULL) {
        snprintf(rdma_dev, sizeof(rdma_dev), "%s", o.model.rdma);
        if (parse_counters_port(rdma_dev, &o) != 0)
            return CLI_EXIT_USAGE;
        if (rs_tui_nic_open(sysfs_root != NULL ? sysfs_root : "/sys", o.nic_dev, o.nic_port,
                            &o.nic, err) != 0)
            o.nic_dev = NULL;
    }
    /* So is a port that is not there (a missing device, as for 'capture -d'). */
    if (o.nic_dev != NULL && o.nic == NULL &&
        (rc = rs_tui_nic_open(sysfs_root != NULL ? sysfs_root : "/sys", o.nic_dev, o.nic_port,
                              &o.nic, err)) != 0)
        return cli_fail(cli_exit_code(rc, CLI_EXIT_CAPTURE), "tui: %s", err);
    rc = rs_tui_run(&o, &res, err);
    rs_tui_nic_close(o.nic);
    if (rc != 0)
        return cli_fail(cli_exit_code(rc, rs_tui_model_opts_live(&o.model) ? CLI_EXIT_CAPTURE
                                                                         : CLI_EXIT_INPUT),
                        "tui: %s", err);
    if (!res.live)
        return CLI_EXIT_OK;
    cli_print_counts(o.model.iface != NULL ? o.model.iface : o.model.rdma, &res.stats,
                     res.written, "written", "");
    if (res.capture_error[0] != '\0')
        return cli_fail(CLI_EXIT_OUTPUT, "tui: %s", res.capture_error);
    return CLI_EXIT_OK;
}


int
cmd_tui(int argc, char **argv)
{
    struct rs_tui_run_opts o;
    struct tui_corr tc;
    char err[RS_ERRBUF_SIZE];
    const char *sysfs_root = NULL;
    int rc;

    /* SIGINT and SIGTERM end a live capture as 'q' does: the file whole, the counts shown. */
    cli_catch_stop_signals();
    memset(&tc, 0, sizeof(tc));
    corr_run_init(&tc.run);
    if ((rc = parse_tui_args(argc, argv, &o, &sysfs_root, &tc.run)) != 0) {
        corr_run_free(&tc.run);
        return rc < 0 ? CLI_EXIT_OK : rc;
    }
    /* A bad filter is a usage error whatever the terminal. */
    if (o.model.filter != NULL && rs_tui_model_check_filter(o.model.filter, err) != 0) {
        corr_run_free(&tc.run);
        return cli_fail(CLI_EXIT_USAGE, "-Y %s: %s", o.model.filter, err);
    }
    if (tc.run.n_files <= 1)
        corr_run_free(&tc.run);     /* one file: the model reads it */
    if (tc.run.n_files > 1) {
        tc.run.decode = o.model.decode;
        tc.run.decode.verify_crc = false;
        if ((rc = correlate(&tc)) != 0)
            return rc;
        o.corr = &tc.rows;
        rc = run_screens(o, sysfs_root);
        rs_tui_corr_free(&tc.rows);
        return rc;
    }
    return run_screens(o, sysfs_root);
}