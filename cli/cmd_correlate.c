/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_correlate.c - `roceshark correlate`: the captures of several points read side by
 * side, each RDMA packet followed across them (include/roceshark/dissectors/corr.h).
 *
 * A command of its own rather than `read --correlate`: what it prints is a packet
 * across captures (one line per packet, whichever point saw it first), not the frames
 * of one file, and none of read's per-file machinery (-w, -2, live capture, the
 * analysis of one capture's conversations) has a meaning across points. The filter,
 * -T fields and the field names are read's.
 *
 * The files are read and merged by corr_run.c; this file parses and prints.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/corr.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/filter.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/stats.h>

#include "cli.h"
#include "corr_run.h"

#define MAX_FIELDS 256
#define MAX_STATS 16
#define OUT_BUFFER_SIZE (1u << 20)

struct corr_cli {
    struct corr_run run;            /* the files, --window, --path, -d */
    const char *filter_text;
    struct rs_filter *filter;
    bool fields;
    const char *field_names[MAX_FIELDS];
    int field_ids[MAX_FIELDS];
    size_t n_fields;
    struct rs_fields_fmt fmt;
    /* The -z tables in the order given; NULL stands for corr,qp. read's tables count the
     * packets shown (each at the point that saw it first), the roceshark.corr.* fields
     * included; those that need a stage correlate does not run are refused. */
    struct rs_stat *stats[MAX_STATS];
    size_t n_stats;
    bool frames_for_stats;      /* a table of read's: every packet is decoded */
    bool quiet;
    struct rs_out out;
    uint64_t shown;
};

static const char correlate_usage[] =
    "usage: roceshark correlate -r FILE -r FILE [-r FILE ...] [options]\n"
    "  Follows each RDMA packet (RoCEv2, RoCEv1, InfiniBand) across captures taken at\n"
    "  several points, by its ICRC, destination QP, PSN and opcode, and says where it was\n"
    "  lost, delayed, CE-marked or changed. Points are A, B, C ... (after Z: AA, AB ...)\n"
    "  in -r order; each point's clock is fitted to A's from the matched packets (offset,\n"
    "  drift, bound).\n"
    "  -r FILE          a capture of one point (2 or more; pcap or pcapng, not stdin)\n"
    "  --window T       how long a packet may take between points (s, ms or us; default:\n"
    "                   4 times the largest delay measured, 10ms to 10s, else 100ms):\n"
    "                   memory holds this much traffic\n"
    "  --path A,B,C     the points in the order a packet crosses them (default: from the\n"
    "                   matched times, per conversation; either direction)\n"
    "  -Y FILTER        show only packets that match a display filter (roceshark.corr.*\n"
    "                   and the fields of the frame shown)\n"
    "  -T fields -e FIELD\n"
    "                   print these fields, one line per packet (repeatable -e)\n"
    "  -z corr,qp       per conversation and segment: packets, lost, CE marked, delay\n"
    "                   p50/p99/max, reordered; and each point's clock\n"
    "  -z io,stat,...|io,phs|conv,TYPE|endpoints,TYPE\n"
    "                   read's tables over the packets shown, roceshark.corr.* in their\n"
    "                   filters (as -z io,stat,1,roceshark.corr.lost_between)\n"
    "  -q               print only the statistics\n"
    "  -d udp.port==N,roce\n"
    "                   also decode UDP port N as RoCEv2 (repeatable)\n"
    "Fields: roceshark.corr.point, seen_at, path, segment, delay, lost_between,\n"
    "ce_marked_between, missed_at, changed, contradiction (see docs/correlate.md).\n";

static int
add_stat(struct corr_cli *cc, const char *spec)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_stat *st = NULL;

    if (cc->n_stats == MAX_STATS)
        return cli_fail(CLI_EXIT_USAGE, "-z %s: at most %d tables", spec, MAX_STATS);
    if (strcmp(spec, "corr,qp") != 0) {
        if (rs_stat_new(spec, &st, err) != 0)
            return cli_fail(CLI_EXIT_USAGE, "-z %s: %s", spec, err);
        if (rs_stat_needs_analysis(st) || rs_stat_needs_streams(st) ||
            rs_stat_needs_iwarp(st)) {
            rs_stat_free(st);
            return cli_fail(CLI_EXIT_USAGE, "-z %s: correlate runs no transport analysis, "
                            "TCP/UDP stream or iWARP stage (read -z %s reads one capture)",
                            spec, spec);
        }
        if (rs_stat_needs_crc(st))
            cc->run.decode.verify_crc = true;
        cc->frames_for_stats = true;
    }
    cc->stats[cc->n_stats++] = st;
    return 0;
}

static int
parse_args(int argc, char **argv, struct corr_cli *cc)
{
    enum { OPT_WINDOW = 0x100, OPT_PATH };
    static const struct option longopts[] = {
        {"window", required_argument, NULL, OPT_WINDOW},
        {"path", required_argument, NULL, OPT_PATH},
        {NULL, 0, NULL, 0},
    };
    const char *path = NULL;
    int c, rc;

    rs_fields_fmt_init(&cc->fmt);
    corr_run_init(&cc->run);
    optind = 1;
    while ((c = cli_getopt("correlate", argc, argv, "r:Y:T:e:z:qd:h", longopts,
                           correlate_usage)) != CLI_OPT_END) {
        switch (c) {
        case CLI_OPT_HELP:
            return -1;
        case CLI_OPT_BAD:
            return CLI_EXIT_USAGE;
        case 'r':
            if (strcmp(optarg, "-") == 0)
                return cli_fail(CLI_EXIT_USAGE, "correlate: -r -: the captures are read "
                                "twice, so not from standard input");
            if ((rc = corr_run_add_file(&cc->run, optarg)) != 0)
                return rc;
            break;
        case OPT_WINDOW:
            if (!corr_run_parse_window(optarg, &cc->run.window))
                return cli_fail(CLI_EXIT_USAGE, "--window %s: expected a duration from 1us "
                                "to 3600s, as 100ms", optarg);
            break;
        case OPT_PATH:
            path = optarg;
            break;
        case 'Y':
            cc->filter_text = optarg;
            break;
        case 'T':
            if (strcmp(optarg, "fields") != 0 && strcmp(optarg, "text") != 0)
                return cli_fail(CLI_EXIT_USAGE, "-T %s: correlate prints text or fields",
                                optarg);
            cc->fields = optarg[0] == 'f';
            break;
        case 'e':
            if (cc->n_fields == MAX_FIELDS)
                return cli_fail(CLI_EXIT_USAGE, "-e: at most %d fields", MAX_FIELDS);
            cc->field_names[cc->n_fields++] = optarg;
            break;
        case 'z':
            if ((rc = add_stat(cc, optarg)) != 0)
                return rc;
            break;
        case 'q':
            cc->quiet = true;
            break;
        case 'd':
            if ((rc = cli_parse_decode_as(optarg, &cc->run.decode)) != 0)
                return rc;
            break;
        default:
            return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "correlate: unexpected argument %s", argv[optind]);
    if (cc->run.n_files < 2)
        return cli_fail(CLI_EXIT_USAGE, "correlate: give the captures of 2 points or more "
                        "(-r A.pcap -r B.pcap)");
    if (path != NULL && (rc = corr_run_parse_path(&cc->run, path)) != 0)
        return rc;
    if (cc->fields && cc->n_fields == 0)
        return cli_fail(CLI_EXIT_USAGE, "correlate: -T fields needs -e FIELD");
    if (!cc->fields && cc->n_fields > 0)
        return cli_fail(CLI_EXIT_USAGE, "correlate: -e goes with -T fields");
    for (size_t i = 0; i < cc->n_fields; i++) {
        if ((cc->field_ids[i] = rs_field_lookup(cc->field_names[i])) < 0)
            return cli_fail(CLI_EXIT_USAGE, "-e %s: unknown field (see 'roceshark fields')",
                            cc->field_names[i]);
    }
    return 0;
}

static void
print_text(struct corr_cli *cc, const struct rs_corr_view *v, const struct rs_packet *pkt)
{
    struct rs_out *o = &cc->out;

    rs_out_printf(o, "%s:%llu seen %s", v->shown_text,
                  (unsigned long long)v->number[v->shown], v->seen_at);
    for (unsigned s = 0; s + 1 < v->n_path; s++)
        if (v->both[s])
            rs_out_printf(o, " %s %.1fus", v->seg_text[s], (double)v->delay[s] / 1000.0);
    if (v->lost_seg >= 0)
        rs_out_printf(o, " LOST %s", v->lost_text);
    if (v->ce_seg >= 0)
        rs_out_printf(o, " CE %s", v->ce_text);
    if (v->n_missed != 0)
        rs_out_printf(o, " missed-by-capture %s", v->missed_text);
    for (unsigned i = 0; i < v->n_changed; i++)
        rs_out_printf(o, " changed %s", v->changed[i]);
    rs_out_str(o, " | ");
    rs_print_summary(o, pkt);
}

static void
sink(void *ctx, const struct rs_corr_view *v, const struct rs_frame *f)
{
    struct corr_cli *cc = ctx;
    struct rs_packet pkt;

    if (cc->quiet && !cc->frames_for_stats)
        return;
    rs_decode_frame(f, &cc->run.decode, &pkt);
    pkt.corr = v;
    for (size_t i = 0; i < cc->n_stats; i++)
        if (cc->stats[i] != NULL)
            rs_stat_packet(cc->stats[i], &pkt);     /* whatever -Y says, as read's */
    if (cc->quiet)
        return;
    if (cc->filter != NULL && !rs_filter_match(cc->filter, &pkt))
        return;
    cc->shown++;
    if (cc->fields)
        rs_print_fields(&cc->out, &cc->fmt, &pkt, cc->field_ids, cc->n_fields);
    else
        print_text(cc, v, &pkt);
}

int
cmd_correlate(int argc, char **argv)
{
    char err[RS_ERRBUF_SIZE];
    struct corr_cli *cc = calloc(1, sizeof(*cc));
    bool have_out = false;
    int rc;

    if (cc == NULL)
        return cli_fail(CLI_EXIT_INTERNAL, "out of memory");
    if ((rc = parse_args(argc, argv, cc)) != 0) {
        rc = rc < 0 ? CLI_EXIT_OK : rc;
        goto done;
    }
    if (cc->filter_text != NULL && rs_filter_compile(cc->filter_text, &cc->filter, err) != 0) {
        rc = cli_fail(CLI_EXIT_USAGE, "-Y %.60s%s: %s", cc->filter_text,
                      strlen(cc->filter_text) > 60 ? "..." : "", err);
        goto done;
    }
    if (cc->filter != NULL && (rs_filter_uses(cc->filter, "roceshark.icrc") ||
                               rs_filter_uses(cc->filter, "roceshark.vcrc")))
        cc->run.decode.verify_crc = true;
    /* -q prints no packet and, without a table of read's, counts none: none is held */
    cc->run.no_frames = cc->quiet && !cc->frames_for_stats;
    cc->run.sink = sink;
    cc->run.ctx = cc;
    if ((rc = corr_run_prepare(&cc->run)) != 0)
        goto done;
    if (rs_out_init(&cc->out, stdout, OUT_BUFFER_SIZE) != 0) {
        rc = cli_fail(CLI_EXIT_INTERNAL, "out of memory");
        goto done;
    }
    have_out = true;
    if (cc->fields && !cc->quiet)
        rs_print_fields_header(&cc->out, &cc->fmt, cc->field_names, cc->n_fields);
    if ((rc = corr_run_match(&cc->run)) != 0)
        goto done;
    for (size_t i = 0; i < cc->n_stats; i++) {
        if (cc->stats[i] == NULL)
            rs_corr_print_stats(cc->run.fin, cc->run.files, &cc->out);
        else
            rs_stat_print(cc->stats[i], &(struct rs_stat_stages){NULL, NULL}, &cc->out);
    }
    if (rs_out_flush(&cc->out) != 0)
        rc = cli_fail(CLI_EXIT_OUTPUT, "writing output: write error");
done:
    if (have_out)
        rs_out_free(&cc->out);
    corr_run_free(&cc->run);
    for (size_t i = 0; i < cc->n_stats; i++)
        rs_stat_free(cc->stats[i]);
    rs_filter_free(cc->filter);
    free(cc);
    return rc;
}
