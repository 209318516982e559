/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_capture.c - `roceshark capture`: live frames from a network interface
 * (libpcap) or an RDMA device (sniffer QP) into pcap files.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <roceshark/capture/capture.h>
#include <roceshark/capture/pcapio.h>

#include "cli.h"

/* A source idle this long hands the writer's buffer to the operating system. */
#define IDLE_MS 250

struct capture_opts {
    const char *iface;
    const char *rdma;
    const char *file;
    struct rs_capture_opts run;     /* -c, -a, and the progress line */
    struct rs_live_opts live;
    struct rs_writer_opts writer;
    uint16_t roce_ports[RS_MAX_EXTRA_PORTS];
    uint16_t iwarp_ports[RS_MAX_EXTRA_PORTS];
};

static const char capture_usage[] =
    "usage: roceshark capture (-i IFACE | -d DEV[:PORT]) -w FILE [options]\n"
    "  -i IFACE         network interface, through libpcap\n"
    "  -d DEV[:PORT]    RDMA device and port (default 1), through a sniffer QP: sees\n"
    "                   offloaded RoCE that never reaches the kernel\n"
    "  -w FILE          pcap file to write ('-' for standard output)\n"
    "  -f BPF           capture filter replacing the default one, which keeps RoCEv2\n"
    "                   (UDP 4791), RoCEv1 (Ethertype 0x8915) and the --iwarp-port\n"
    "                   ports, tagged or not (-i only)\n"
    "  --roce-port N    default filter: also RoCEv2 on UDP port N (repeatable)\n"
    "  --iwarp-port N   default filter: iWARP on TCP port N (repeatable)\n"
    "  -s SNAPLEN       bytes kept of each frame (default 262144; -d: 9216)\n"
    "  -B MiB           kernel buffer (-i) or receive ring (-d), in MiB (default 32)\n"
    "  -c N             stop after N frames\n"
    "  -a duration:S    stop after S seconds\n"
    "  -a filesize:KB   stop once the file reaches KB kB (1 kB = 1000 bytes)\n"
    "  -b filesize:KB   switch to a new file at KB kB, numbered as dumpcap numbers them\n"
    "  -b duration:S    switch to a new file every S seconds\n"
    "  -b files:N       keep only the newest N files\n"
    "  -p               do not put the interface in promiscuous mode\n"

    "SIGINT or SIGTERM stops the capture, even while it starts: the frames already\n"
    "captured are written, the counts printed, and the exit code is 0. On a full disk\n"
    "the file keeps every whole record that fitted, and the exit code is 3. Files use\n"
    "the timestamp convention of README.md: nanosecond pcap for the NIC's clock,\n"
    "microsecond for the host's.\n";

static int
parse_autostop(const char *arg, struct capture_opts *co)
{
    unsigned long long v;

    if (cli_parse_kv(arg, "duration", 1ull << 31, &v))
        co->run.stop_seconds = v;
    else if (cli_parse_kv(arg, "filesize", 1ull << 40, &v))
        co->run.stop_bytes = v * 1000;
    else
        return cli_fail(CLI_EXIT_USAGE, "-a %s: expected duration:S or filesize:KB", arg);
    return 0;
}

static int
parse_ring(const char *arg, struct capture_opts *co)
{
    unsigned long long v;

    if (cli_parse_kv(arg, "filesize", 1ull << 40, &v))
        co->writer.ring_filesize = v * 1000;
    else if (cli_parse_kv(arg, "duration", 1ull << 31, &v))
        co->writer.ring_duration = (unsigned)v;
    else if (cli_parse_kv(arg, "files", 100000, &v))
        co->writer.ring_files = (unsigned)v;
    else
        return cli_fail(CLI_EXIT_USAGE, "-b %s: expected filesize:KB, duration:S or files:N",
                        arg);
    return 0;
}

static int
add_port(const char *opt, const char *arg, uint16_t *ports, unsigned *n)
{
    unsigned long long v;

    if (!cli_parse_uint(arg, 1, 65535, &v))
        return cli_fail(CLI_EXIT_USAGE, "%s %s: expected a port, 1-65535", opt, arg);
    if (*n == RS_MAX_EXTRA_PORTS)
        return cli_fail(CLI_EXIT_USAGE, "%s: at most %d ports", opt, RS_MAX_EXTRA_PORTS);
    ports[(*n)++] = (uint16_t)v;
    return 0;
}

enum { OPT_ROCE_PORT = 256, OPT_IWARP_PORT };

static const struct option long_opts[] = {
    {"roce-port", required_argument, NULL, OPT_ROCE_PORT},
    {"iwarp-port", required_argument, NULL, OPT_IWARP_PORT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int
parse_option(int c, struct capture_opts *co)
{
    unsigned long long n;

    switch (c) {
    case 'i':
        co->iface = optarg;
        return 0;
    case 'd':
        co->rdma = optarg;
        return 0;
    case 'w':
        co->file = optarg;
        return 0;
    case 'f':
        co->live.filter = optarg;
        return 0;
    case 's':
        if (!cli_parse_uint(optarg, 64, 262144, &n))
            return cli_fail(CLI_EXIT_USAGE, "-s %s: expected a snapshot length, 64-262144",
                            optarg);
        co->live.snaplen = (unsigned)n;
        return 0;
    case 'B':
        if (!cli_parse_uint(optarg, 1, 65536, &n))
            return cli_fail(CLI_EXIT_USAGE, "-B %s: expected a size in MiB, 1-65536", optarg);
        co->live.buffer_mb = (unsigned)n;
        return 0;
    case 'c':
        if (!cli_parse_uint(optarg, 1, ~0ull, &n))
            return cli_fail(CLI_EXIT_USAGE, "-c %s: expected a positive count", optarg);
        co->run.count = n;
        return 0;
    case 'a':
        return parse_autostop(optarg, co);
    case 'b':
        return parse_ring(optarg, co);
    case 'p':
        co->live.no_promisc = true;
        return 0;
    case OPT_ROCE_PORT:
        return add_port("--roce-port", optarg, co->roce_ports, &co->live.n_roce_ports);
    case OPT_IWARP_PORT:
        return add_port("--iwarp-port", optarg, co->iwarp_ports, &co->live.n_iwarp_ports);
    default:    /* 'h' */
        fputs(capture_usage, stdout);
        return -1;
    }
}

static int
parse_capture_args(int argc, char **argv, struct capture_opts *co)
{
    int c, rc;

    memset(co, 0, sizeof(*co));
    co->live.roce_ports = co->roce_ports;
    co->live.iwarp_ports = co->iwarp_ports;
    optind = 1;
    while ((c = cli_getopt("capture", argc, argv, "i:d:w:f:s:B:c:a:b:ph", long_opts,
                           capture_usage)) != CLI_OPT_END) {
        if (c == CLI_OPT_HELP)
            return -1;
        if (c == CLI_OPT_BAD)
            return CLI_EXIT_USAGE;
        if ((rc = parse_option(c, co)) != 0)
            return rc;
    }
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "capture: unexpected argument '%s'", argv[optind]);
    if ((co->iface == NULL) == (co->rdma == NULL))
        return cli_fail(CLI_EXIT_USAGE, "capture: give one of -i IFACE or -d DEV[:PORT]");
    if (co->file == NULL)
        return cli_fail(CLI_EXIT_USAGE, "capture: no output (use -w FILE, or -w - for "
                        "standard output)");
    if (co->rdma != NULL && co->live.filter != NULL)
        return cli_fail(CLI_EXIT_USAGE, "capture: -f applies to -i; the sniffer QP of -d "
                        "takes every frame of the port");
    bool ring = co->writer.ring_filesize != 0 || co->writer.ring_duration != 0;
    if (co->writer.ring_files != 0 && !ring)
        return cli_fail(CLI_EXIT_USAGE, "capture: -b files:N needs -b filesize:KB or "
                        "-b duration:S");
    if (ring && strcmp(co->file, "-") == 0)
        return cli_fail(CLI_EXIT_USAGE, "capture: -b writes a ring of files, not standard "
                        "output");
    co->live.idle_ms = IDLE_MS;
    return 0;
}

/* On a terminal, dumpcap's running count, with the rate since the line before:
 * "capture: eth2: 12345 frames, 4567 frames/s". */
struct capture_progress {
    struct cli_progress pg;
    struct rs_source *src;
    uint64_t frames;        /* at the line before */
    double at;
};

/* The engine's tick: now and then while frames come, and when the source is idle. */
static void
show_progress(void *ctx, uint64_t frames)
{
    struct capture_progress *cp = ctx;
    struct rs_source *src = cp->src;
    double el = cli_progress_due(&cp->pg, false);

    if (el < 0)
        return;
    double rate = el > cp->at ? (double)(frames - cp->frames) / (el - cp->at) : 0;
    cli_progress_line(&cp->pg, "capture: %s: %llu frames, %.0f frames/s", rs_source_name(src),
                      (unsigned long long)frames, rate);
    cp->frames = frames;
    cp->at = el;
}

/* capture's engine (capture_loop.c), with the progress line on a terminal; returns the
 * exit code. */
static int
capture_loop(struct rs_source *src, struct rs_writer *w, struct capture_opts *co)
{
    struct capture_progress cp = {.src = src};
    struct rs_capture_status st;
    int rc = CLI_EXIT_OK;

    cli_progress_start(&cp.pg, 0);
    co->run.tick = show_progress;
    co->run.tick_ctx = &cp;
    if (rs_capture_run(src, w, &co->run, &st) != 0)
        rc = cli_fail(st.write_failed ? CLI_EXIT_OUTPUT : CLI_EXIT_CAPTURE, "%s", st.err);
    cli_progress_end(&cp.pg, false);   /* the counts that follow say it all */
    return rc;
}

int
cmd_capture(int argc, char **argv)
{
    char err[RS_ERRBUF_SIZE];
    struct capture_opts co;
    struct rs_source *src = NULL;
    struct rs_writer *w = NULL;
    int rc;

    /* First of all: a stop that comes while the capture is still starting
     * (activation takes 20-100 ms) must end it as cleanly as a later one,
     * with a valid file and the counts, not kill it. */
    cli_catch_stop_signals();
    if ((rc = parse_capture_args(argc, argv, &co)) != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    rc = co.iface != NULL ? rs_source_create_iface(co.iface, &src, err) :
                            rs_source_create_rdma(co.rdma, &src, err);
    if (rc != 0)
        return cli_fail(cli_exit_code(rc, CLI_EXIT_CAPTURE), "capture: %s", err);
    if ((rc = rs_source_activate(src, &co.live, err)) != 0) {
        rs_source_close(src);
        return cli_fail(cli_exit_code(rc, CLI_EXIT_CAPTURE), "capture: %s", err);
    }
    co.writer.path = co.file;
    co.writer.linktype = rs_source_linktype(src);
    co.writer.snaplen = rs_source_snaplen(src);
    co.writer.ts_hardware = rs_source_ts_hardware(src);
    if ((rc = rs_writer_open(&co.writer, &w, err)) != 0) {
        rs_source_close(src);
        return cli_fail(cli_exit_code(rc, CLI_EXIT_OUTPUT), "%s", err);
    }
    fprintf(stderr, "capture: %s (%s timestamps) -> %s\n", rs_source_name(src),
                co.writer.ts_hardware ? "hardware" : "system", rs_writer_path(w));
    cli_break_on_signals(src);      /* breaks src at once if a stop came already */
    rc = capture_loop(src, w, &co);
    uint64_t written = 0;
    if (rs_writer_close(w, &written, err) != 0 && rc == CLI_EXIT_OK)
        rc = cli_fail(CLI_EXIT_OUTPUT, "%s", err);
    cli_print_capture_counts(src, written, "written");     /* always, errors included */
    cli_break_on_signals(NULL);
    rs_source_close(src);
    return rc;
}
