/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_plot.c - `roceshark plot psn`: the PSN/time graph of one RC
 * conversation, the RDMA counterpart of Wireshark's TCP stream graph; and
 * `roceshark plot segments`: the one-way delay of each segment between
 * capture points over time, with its losses and CE marks.
 *
 * psn reads the capture twice: the first pass finds the conversation the QP
 * belongs to, the second collects its packets with their analysis facts.
 * dissectors/print/plot_svg.c draws them. segments runs correlate's passes
 * (corr_run.c) and gathers each finished packet (dissectors/corr/plot_segments.c).
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
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/plot.h>
#include <roceshark/dissectors/wire.h>

#include "cli.h"
#include "corr_run.h"

static const char plot_usage[] =
    "usage: roceshark plot psn -r FILE --qp QPN -o OUT.svg [-d udp.port==N,roce]\n"
    "       roceshark plot segments -r FILE -r FILE [-r FILE ...] -o OUT.svg\n"
    "                               [--window T] [--path A,B,C] [-d udp.port==N,roce]\n"
    "  psn: request PSNs against time for the conversation of QP QPN (requester or\n"
    "  responder), with retransmissions, gaps, NAKs, RNR NAKs and CNPs marked, and the\n"
    "  acknowledged PSN as a line.\n"
    "  segments: the captures of several points correlated as 'roceshark correlate'\n"
    "  does (-r, --window and --path as there); one panel per segment (A>B, B>A, ...)\n"
    "  with its one-way delay over time, losses and CE marks.\n"
    "  The SVG is self-contained; -o - writes it to standard output.\n";

struct plot_opts {
    bool segments;                  /* plot segments, else plot psn */
    struct corr_run run;            /* segments: the files, --window, --path, -d */
    const char *path_text;
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
    if (rs_bth_destqp(rs_packet_at(pkt, RS_LAYER_BTH)) == fc->qpn)
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
        {"window", required_argument, NULL, 'W'},
        {"path", required_argument, NULL, 'P'},
        {NULL, 0, NULL, 0},
    };
    unsigned long long v;
    int c, rc;

    memset(po, 0, sizeof(*po));
    rs_decode_opts_init(&po->decode);
    po->decode.verify_crc = false;
    corr_run_init(&po->run);
    po->segments = argc >= 2 && strcmp(argv[1], "segments") == 0;
    /* The graph's name comes first; before it only -h or an option error is answered. */
    optind = argc >= 2 && (strcmp(argv[1], "psn") == 0 || po->segments) ? 2 : 1;
    while ((c = cli_getopt("plot", argc, argv, "r:o:d:h", longopts, plot_usage)) !=
           CLI_OPT_END) {
        switch (c) {
        case 'r':
            po->file = optarg;
            if ((rc = corr_run_add_file(&po->run, optarg)) != 0)
                return rc;
            break;
        case 'W':
            if (!corr_run_parse_window(optarg, &po->run.window))
                return cli_fail(CLI_EXIT_USAGE, "--window %s: expected a duration from 1us "
                                "to 3600s, as 100ms", optarg);
            break;
        case 'P':
            po->path_text = optarg;
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
    if (argc < 2 || (strcmp(argv[1], "psn") != 0 && !po->segments))
        return cli_fail(CLI_EXIT_USAGE, "plot: expected 'plot psn' or 'plot segments' (try "
                        "'roceshark plot -h')");
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "plot: unexpected argument '%s'", argv[optind]);
    if (po->segments) {
        po->run.decode = po->decode;
        po->run.decode.verify_crc = false;
        if (po->run.n_files < 2 || po->out == NULL)
            return cli_fail(CLI_EXIT_USAGE, "plot segments: needs -r FILE twice or more (the "
                            "captures of 2 points or more) and -o OUT.svg");
        if (po->have_qpn)
            return cli_fail(CLI_EXIT_USAGE, "plot segments: --qp is plot psn's");
        for (unsigned i = 0; i < po->run.n_files; i++)
            if (strcmp(po->run.files[i], "-") == 0)
                return cli_fail(CLI_EXIT_USAGE, "plot segments: -r -: the captures are read "
                                "three times, so not from standard input");
        if (po->path_text != NULL && (rc = corr_run_parse_path(&po->run, po->path_text)) != 0)
            return rc;
        return 0;
    }
    if (po->run.window != 0 || po->path_text != NULL || po->run.n_files > 1)
        return cli_fail(CLI_EXIT_USAGE, "plot psn: one -r FILE; --window and --path are plot "
                        "segments'");
    if (po->file == NULL || po->out == NULL || !po->have_qpn)
        return cli_fail(CLI_EXIT_USAGE, "plot psn: needs -r FILE, --qp QPN and -o OUT.svg");
    return 0;
}

/* Writes the picture draw() makes to -o; a half-written one is removed, but only a
 * regular file: `-o /dev/full` must never unlink the device. */
static int
write_out(const struct plot_opts *po, int (*draw)(const void *what, FILE *fp, char *err),
          const void *what)
{
    char err[RS_ERRBUF_SIZE];
    bool to_stdout = strcmp(po->out, "-") == 0;
    FILE *fp = to_stdout ? stdout : fopen(po->out, "w");
    struct stat st;
    int rc;

    if (fp == NULL)
        return cli_fail(CLI_EXIT_OUTPUT, "%s: cannot write: %m", po->out);
    bool regular = fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode);
    rc = draw(what, fp, err);
    if ((to_stdout ? fflush(fp) : fclose(fp)) != 0 && rc == 0)
        rc = rs_error(err, RS_EIO, "write error: %s", strerror(errno));
    if (rc != 0) {
        if (regular && !to_stdout)
            unlink(po->out);
        return cli_fail(CLI_EXIT_OUTPUT, "%s: %s", to_stdout ? "standard output" : po->out,
                        err);
    }
    return CLI_EXIT_OK;
}

static int
draw_psn(const void *what, FILE *fp, char *err)
{
    return rs_plot_write_svg(what, fp, err);
}

static void
add_segments(void *ctx, const struct rs_corr_view *v, const struct rs_frame *f)
{
    (void)f;
    rs_corr_plot_add(ctx, v);
}

struct segments_picture {
    const struct rs_corr_plot *plot;
    const struct corr_run *run;
};

static int
draw_segments(const void *what, FILE *fp, char *err)
{
    const struct segments_picture *sp = what;

    return rs_corr_plot_write_svg(sp->plot, sp->run->files, sp->run->n_files, fp, err);
}

static int
plot_segments(struct plot_opts *po)
{
    struct rs_corr_plot *pl = NULL;
    int rc;

    po->run.no_frames = true;   /* the views alone: no frame is held, none read again */
    if ((rc = corr_run_prepare(&po->run)) != 0)
        goto done;
    /* The span drawn: the estimating pass's first and last frames of every point. */
    int64_t from = INT64_MAX, to = INT64_MIN;
    for (unsigned i = 0; i < po->run.n_files; i++) {
        struct rs_corr_point_counts k = rs_corr_point_counts(po->run.est, i);
        if (k.frames > 0) {
            from = k.first < from ? k.first : from;
            to = k.last > to ? k.last : to;
        }
    }
    if (from > to)
        from = to = 0;
    if (rs_corr_plot_new(po->run.n_files, from, to, &pl) != 0) {
        rc = cli_fail(CLI_EXIT_INTERNAL, "out of memory");
        goto done;
    }
    po->run.sink = add_segments;
    po->run.ctx = pl;
    if ((rc = corr_run_match(&po->run)) != 0)
        goto done;
    rc = write_out(po, draw_segments, &(struct segments_picture){pl, &po->run});
done:
    rs_corr_plot_free(pl);
    corr_run_free(&po->run);
    return rc;
}

int
cmd_plot(int argc, char **argv)
{
    struct plot_opts po;
    struct find_ctx fc;
    struct rs_plot pl;
    int rc = parse_plot_args(argc, argv, &po);

    if (rc != 0 || !po.segments)
        corr_run_free(&po.run);     /* plot psn: its -r was noted as a point too */
    if (rc != 0)
        return rc < 0 ? CLI_EXIT_OK : rc;
    if (po.segments)
        return plot_segments(&po);
    fc = (struct find_ctx){po.qpn, 0};
    if ((rc = each_frame(&po, find_conv, &fc)) != 0)
        return rc;
    if (fc.conv == 0)
        return cli_fail(CLI_EXIT_USAGE, "%s: no RC conversation uses QP 0x%06x", po.file, po.qpn);
    rs_plot_init(&pl, fc.conv, po.qpn);
    if ((rc = each_frame(&po, collect, &pl)) == 0)
        rc = write_out(&po, draw_psn, &pl);
    rs_plot_free(&pl);
    return rc;
}
