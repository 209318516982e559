/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_plot.c - `roceshark plot psn`: the PSN/time graph of one RC
 * conversation, the RDMA counterpart of Wireshark's TCP stream graph.
 *
 * Reads the capture twice: the first pass finds the conversation the QP
 * belongs to, the second collects its packets with their analysis facts.
 * dissectors/print/plot_svg.c draws them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/plot.h>
#include <roceshark/dissectors/wire.h>

#include "cli.h"

static const char plot_usage[] =
    "usage: roceshark plot psn -r FILE --qp QPN -o OUT.svg [-d udp.port==N,roce]\n"
    "  Draws request PSNs against time for the conversation of QP QPN (requester or\n"
    "  responder), with retransmissions, gaps, NAKs, RNR NAKs and CNPs marked, and the\n"
    "  acknowledged PSN as a line. The SVG is self-contained; -o - writes it to\n"
    "  standard output.\n";

struct plot_opts {
    const char *file, *out;
    uint32_t qpn;
    bool have_qpn;
    struct rs_decode_opts decode;
};

/* Runs the capture through the pipeline, calling fn per frame. */
static int
each_frame(const struct plot_opts *po, void (*fn)(void *ctx, const struct rs_packet *pkt),
           void *ctx)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;
    struct rs_pipeline_opts opts;
    struct rs_pipeline *pipe;
    struct rs_frame frame;
    int rc;

    if (rs_source_open_file(po->file, &src, err) != 0)
        return cli_fail(CLI_EXIT_INPUT, "%s", err);
    rs_pipeline_opts_init(&opts);
    opts.decode = po->decode;
    if (rs_pipeline_new(&opts, &pipe, err) != 0) {
        rs_source_close(src);
        return cli_fail(CLI_EXIT_INTERNAL, "%s", err);
    }
    while ((rc = rs_source_next(src, &frame, err)) == 1)
        fn(ctx, &rs_pipeline_process(pipe, &frame)->pkt);
    rs_pipeline_free(pipe);
    rs_source_close(src);
    if (rc < 0)
        return cli_fail(CLI_EXIT_INPUT, "%s: %s", po->file, err);
    return 0;
}

struct find_ctx {
    uint32_t qpn;
    uint32_t conv;
};

static void
find_conv(void *ctx, const struct rs_packet *pkt)
{
    struct find_ctx *fc = ctx;

    if (fc->conv != 0 || pkt->facts == NULL || !(pkt->facts->flags & RS_FACT_CONV) ||
        (pkt->facts->flags & RS_FACT_CNP_FOR))
        return;
    if (rs_load_be24(rs_packet_at(pkt, RS_LAYER_BTH) + 5) == fc->qpn)
        fc->conv = pkt->facts->conv;
}

static void
collect(void *ctx, const struct rs_packet *pkt)
{
    struct rs_plot *pl = ctx;
    const struct rs_facts *f = pkt->facts;

    if (f == NULL || !(f->flags & RS_FACT_CONV) || f->conv != pl->conv)
        return;
    rs_plot_add_packet(pl, pkt);
}

static int
parse_plot_args(int argc, char **argv, struct plot_opts *po)
{
    static const struct option longopts[] = {
        {"qp", required_argument, NULL, 'Q'},
        {NULL, 0, NULL, 0},
    };
    unsigned long long v;
    int c, rc;

    memset(po, 0, sizeof(*po));
    rs_decode_opts_init(&po->decode);
    po->decode.verify_crc = false;
    /* The graph's name comes first; before it only -h or an option error is answered. */
    optind = argc >= 2 && strcmp(argv[1], "psn") == 0 ? 2 : 1;
    while ((c = cli_getopt("plot", argc, argv, "r:o:d:h", longopts, plot_usage)) !=
           CLI_OPT_END) {
        switch (c) {
        case 'r':
            po->file = optarg;
            break;
        case 'o':
            po->out = optarg;
            break;
        case 'Q':
            if (!cli_parse_uint(optarg, 0, 0xffffff, &v))
                return cli_fail(CLI_EXIT_USAGE, "plot: --qp %s: expected a QP number (0x11 "
                                "or 17)", optarg);
            po->qpn = (uint32_t)v;
            po->have_qpn = true;
            break;
        case 'd':
            if ((rc = cli_parse_decode_as(optarg, &po->decode)) != 0)
                return rc;
            break;
        case CLI_OPT_HELP:
            return -1;
        default:    /* CLI_OPT_BAD */
            return CLI_EXIT_USAGE;
        }
    }
    if (argc < 2 || strcmp(argv[1], "psn") != 0)
        return cli_fail(CLI_EXIT_USAGE, "plot: expected 'plot psn' (try 'roceshark plot -h')");
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "plot: unexpected argument '%s'", argv[optind]);
    if (po->file == NULL || po->out == NULL || !po->have_qpn)
        return cli_fail(CLI_EXIT_USAGE, "plot psn: needs -r FILE, --qp QPN and -o OUT.svg");
    return 0;
}

int
cmd_plot(int argc, char **argv)
{
    struct plot_opts po;
    struct find_ctx fc;
    struct rs_plot pl;
    char err[RS_ERRBUF_SIZE];
    int rc = parse_plot_args(argc, argv, &po);

    if (rc != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    fc = (struct find_ctx){po.qpn, 0};
    if ((rc = each_frame(&po, find_conv, &fc)) != 0)
        return rc;
    if (fc.conv == 0)
        return cli_fail(CLI_EXIT_USAGE, "%s: no RC conversation uses QP 0x%06x", po.file, po.qpn);
    rs_plot_init(&pl, fc.conv, po.qpn);
    if ((rc = each_frame(&po, collect, &pl)) != 0) {
        rs_plot_free(&pl);
        return rc;
    }
    bool to_stdout = strcmp(po.out, "-") == 0;
    FILE *fp = to_stdout ? stdout : fopen(po.out, "w");
    if (fp == NULL) {
        rs_plot_free(&pl);
        return cli_fail(CLI_EXIT_OUTPUT, "%s: cannot write: %m", po.out);
    }
    /* A half-written picture is removed, but only a regular file: `-o /dev/full` must
     * never unlink the device. */
    struct stat st;
    bool regular = fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode);
    rc = rs_plot_write_svg(&pl, fp, err);
    if ((to_stdout ? fflush(fp) : fclose(fp)) != 0 && rc == 0)
        rc = rs_error(err, RS_EIO, "write error: %s", strerror(errno));
    rs_plot_free(&pl);
    if (rc != 0) {
        if (regular && !to_stdout)
            unlink(po.out);
        return cli_fail(CLI_EXIT_OUTPUT, "%s: %s", to_stdout ? "standard output" : po.out,
                        err);
    }
    return CLI_EXIT_OK;
}
