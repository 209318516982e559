/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_args.c - read's command line into struct read_opts, and what goes with what.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "read_int.h"

#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/stats.h>


/* Few -e fields: formatting them costs less than handing each batch between threads, so
 * the default is one thread. Measured on 2 CPUs, 300k frames of mixed traffic: 5 fields
 * took 0.27 s on one thread and 0.32 s on two, 40 fields 0.75 s and 0.52 s; the lines
 * through those points cross near 11. --threads N still runs on N. */
#define FEW_FIELDS 10

static bool
few_fields(const struct read_opts *ro)
{
    return (ro->printer->flags & READ_CHEAP_FIELDS) && ro->n_fields <= FEW_FIELDS;
}

/* What -w, -F, -a, -2, -R and -O ask for, and what goes with what. */
static int
check_new_options(struct read_opts *ro)
{
    if (ro->read_filter != NULL && !ro->two_pass)
        return cli_fail(CLI_EXIT_USAGE, "read: -R without -2: use -Y for a one-pass filter "
                        "(as tshark 4.0 says)");
    if (ro->two_pass && (ro->iface != NULL || (ro->file != NULL && strcmp(ro->file, "-") == 0)))
        return cli_fail(CLI_EXIT_USAGE, "read: -2 reads a file twice: not -i or -r -");
    if (ro->two_pass && ro->session_frames != 0)
        return cli_fail(CLI_EXIT_USAGE, "read: -2 reads the file twice: -M's session reset "
                        "is for one pass (as tshark 4.0 says)");
    if (ro->two_pass && ro->n_files > 1)
        return cli_fail(CLI_EXIT_USAGE, "read: -2 reads one file twice: give one -r");
    if (ro->write_path == NULL && ro->write_format != READ_SAVE_AS_INPUT)
        return cli_fail(CLI_EXIT_USAGE, "read: -F goes with -w");
    if (ro->write_path == NULL && ro->stop_bytes != 0)
        return cli_fail(CLI_EXIT_USAGE, "read: -a filesize:KB goes with -w");
    if (ro->iface == NULL && ro->stop_seconds != 0)
        return cli_fail(CLI_EXIT_USAGE, "read: -a duration:S stops a live read (-i); a file "
                        "is read to its end");
    if (ro->n_expand > 0 && !(ro->printer->flags & READ_EXPANDS))
        return cli_fail(CLI_EXIT_USAGE, "read: -O goes with the text output");
    if (ro->n_expand > 0)
        ro->verbose = true;
    /* tshark's rule: raw frames and dissected text never share standard output. */
    if (ro->write_path != NULL && strcmp(ro->write_path, "-") == 0 &&
        (ro->summary || ro->verbose || ro->hex || ro->printer != read_printer_text() ||
         ro->n_stats > 0))
        return cli_fail(CLI_EXIT_USAGE, "read: -w - writes the frames to standard output: "
                        "-P, -V, -O, -x, -T and -z cannot print there too");
    if (ro->stop_seconds != 0)
        ro->live.idle_ms = AUTOSTOP_IDLE_MS;
    /* A live read frame by frame, -l's flush per frame, -a filesize's look at -w's
     * file between frames and -M's reset between two frames are the one thread's. */
    if (ro->threads == 0)
        ro->threads = few_fields(ro) ? 1 : rs_pipeline_threads_available();
    if (ro->iface != NULL || ro->line_buffered || ro->stop_bytes != 0 ||
        ro->session_frames != 0)
        ro->threads = 1;
    return 0;
}

int
read_parse_args(int argc, char **argv, struct read_opts *ro)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"disable-protocol", required_argument, NULL, OPT_DISABLE_PROTOCOL},
        {"enable-protocol", required_argument, NULL, OPT_ENABLE_PROTOCOL},
        {"no-duplicate-keys", no_argument, NULL, OPT_NO_DUPLICATE_KEYS},
        {"compat", required_argument, NULL, OPT_COMPAT},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"color", no_argument, NULL, OPT_COLOR},
        {"log-level", required_argument, NULL, OPT_LOG_LEVEL},
        {"export-objects", required_argument, NULL, OPT_EXPORT_OBJECTS},
        {"disable-heuristic", required_argument, NULL, OPT_DISABLE_HEURISTIC},
        {"enable-heuristic", required_argument, NULL, OPT_ENABLE_HEURISTIC},
        {NULL, 0, NULL, 0},
    };
    int c, rc;
    unsigned long long n;

    ro->printer = read_printer_text();
    rs_fields_fmt_init(&ro->fields_fmt);
    rs_pipeline_opts_init(&ro->pipe);
    ro->display = *rs_display_get();
    optind = 1;
    /* tshark -G without a report is tshark -G fields */
    if (argc > 1 && strcmp(argv[argc - 1], "-G") == 0) {
        ro->glossary = "fields";
        argc--;
    }
    while ((c = cli_getopt("read", argc, argv, "r:i:f:s:B:pc:a:w:F:VO:S:2R:G:xPt:T:e:E:j:J:d:o:Y:z:"
                           "qlnN:hvu:QH:C:K:X:gM:W:I", longopts, read_usage)) != CLI_OPT_END) {
        if ((rc = read_tshark_option(c, optarg, ro)) >= 0) {
            if (rc != 0)
                return rc;
            continue;
        }
        switch (c) {
        case 'a':
            if ((rc = read_parse_autostop(optarg, ro)) != 0)
                return rc;
            break;
        case 'w':
            ro->write_path = optarg;
            break;
        case 'F':
            if (strcmp(optarg, "pcap") == 0)
                ro->write_format = READ_SAVE_PCAP;
            else if (strcmp(optarg, "pcapng") == 0)
                ro->write_format = READ_SAVE_PCAPNG;
            else
                return cli_fail(CLI_EXIT_USAGE, "-F %s: expected pcap or pcapng", optarg);
            break;
        case 'O':
            if ((rc = read_parse_expand(optarg, ro)) != 0)
                return rc;
            break;
        case 'S':
            ro->separator = optarg;
            break;
        case '2':
            ro->two_pass = true;
            break;
        case 'R':
            ro->read_filter = optarg;
            break;
        case 'G':
            ro->glossary = optarg;
            break;
        case OPT_DISABLE_PROTOCOL:
        case OPT_ENABLE_PROTOCOL:
            if ((rc = read_parse_protocol_switch(optarg, c == OPT_ENABLE_PROTOCOL, ro)) != 0)
                return rc;
            break;
        case 'r':
            if (ro->n_files == MAX_FILES)
                return cli_fail(CLI_EXIT_USAGE, "-r: at most %d files", MAX_FILES);
            ro->files[ro->n_files++] = optarg;
            ro->file = ro->files[0];
            break;
        case 'i':
            ro->iface = optarg;
            break;
        case 'f':
            ro->live.filter = optarg;
            break;
        case 's':
            if (!cli_parse_uint(optarg, 64, 262144, &n))
                return cli_fail(CLI_EXIT_USAGE, "-s %s: expected a snapshot length, 64-262144",
                                optarg);
            ro->live.snaplen = (unsigned)n;
            break;
        case 'B':
            if (!cli_parse_uint(optarg, 1, 65536, &n))
                return cli_fail(CLI_EXIT_USAGE, "-B %s: expected a size in MiB, 1-65536",
                                optarg);
            ro->live.buffer_mb = (unsigned)n;
            break;
        case 'p':
            ro->live.no_promisc = true;
            break;
        case 'c':
            if (!cli_parse_uint(optarg, 1, ~0ull, &n))
                return cli_fail(CLI_EXIT_USAGE, "-c %s: expected a positive count", optarg);
            read_limit_count(ro, n);
            break;
        case 'V':
            ro->verbose = true;
            break;
        case 'x':
            ro->hex = true;
            break;
        case 'P':
            ro->summary = true;
            break;
        case 't': {
            static const char *const names[] = {"r", "a", "ad", "u", "ud", "e", "d", "dd",
                                                "adoy", "udoy"};
            size_t k = 0;
            while (k < RS_ARRAY_SIZE(names) && strcmp(names[k], optarg) != 0)
                k++;
            if (k == RS_ARRAY_SIZE(names))
                return cli_fail(CLI_EXIT_USAGE, "-t %s: expected r, a, ad, adoy, u, ud, "
                                "udoy, e, d or dd", optarg);
            ro->time_col = (uint8_t)k;      /* in the order of enum rs_time_col */
            break;
        }
        case 'T':
            /* tabs: the summary lines, their padded columns split by tabs */
            ro->tabs = strcmp(optarg, "tabs") == 0;
            if ((ro->printer = read_printer_find(ro->tabs ? "text" : optarg)) == NULL)
                return cli_fail(CLI_EXIT_USAGE, "-T %s: unknown format (tabs, %s)", optarg,
                                read_printer_names());
            break;
        case 'e':
            if (ro->n_fields == MAX_FIELDS_ARGS)
                return cli_fail(CLI_EXIT_USAGE, "-e: at most %d fields", MAX_FIELDS_ARGS);
            ro->field_names[ro->n_fields++] = optarg;
            break;
        case 'E':
            if ((rc = read_parse_fields_option(optarg, &ro->fields_fmt)) != 0)
                return rc;
            break;
        case 'j':
        case 'J':
            if ((rc = read_parse_protos(optarg, c == 'J', ro)) != 0)
                return rc;
            break;
        case OPT_NO_DUPLICATE_KEYS:
            ro->json.no_duplicate_keys = true;
            break;
        case 'd':
            if ((rc = cli_parse_decode_as(optarg, &ro->pipe.decode)) != 0)
                return rc;
            break;
        case 'Y':
            ro->pipe.filter = optarg;
            break;
        case 'z': {
            char err[RS_ERRBUF_SIZE];
            if (ro->n_stats == MAX_STATS)
                return cli_fail(CLI_EXIT_USAGE, "-z: at most %d statistics", MAX_STATS);
            if (rs_stat_new(optarg, &ro->stats[ro->n_stats], err) != 0)
                return cli_fail(CLI_EXIT_USAGE, "-z %.*s%s: %s", FILTER_ECHO_MAX, optarg,
                                strlen(optarg) > FILTER_ECHO_MAX ? "..." : "", err);
            ro->stat_specs[ro->n_stats++] = optarg;
            break;
        }
        case 'q':
            ro->quiet = true;
            break;
        case 'o':
            if ((rc = read_parse_pref(optarg, ro)) != 0)
                return rc;
            break;
        case 'l':
            ro->line_buffered = true;
            break;
        case 'n':
            ro->display.resolve_mac = ro->display.resolve_transport = false;
            break;
        case 'N':
            if (!rs_display_parse_resolve(&ro->display, optarg))
                return cli_fail(CLI_EXIT_USAGE, "-N %s: expected letters of m, t, n, d, N, v "
                                "and g", optarg);
            break;
        case OPT_THREADS:
            if (!cli_parse_uint(optarg, 1, RS_PIPELINE_THREADS_MAX, &n))
                return cli_fail(CLI_EXIT_USAGE, "--threads %s: expected 1 to %d", optarg,
                                RS_PIPELINE_THREADS_MAX);
            ro->threads = (unsigned)n;
            break;
        case OPT_COMPAT:
            if (strcmp(optarg, "tshark") != 0)
                return cli_fail(CLI_EXIT_USAGE, "--compat %s: expected tshark", optarg);
            ro->display.info_tshark = ro->display.tree_tshark = true;
            break;
        case 'v':   /* tshark prints its version wherever -v stands */
            cmd_version();
            return -1;
        case CLI_OPT_HELP:
            return -1;
        default:    /* CLI_OPT_BAD */
            return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc)
        return cli_fail(CLI_EXIT_USAGE, "read: unexpected argument '%s'", argv[optind]);
    rs_display_set(&ro->display);
    if (ro->glossary != NULL)
        return 0;   /* the registry alone: no input */
    if ((rc = check_new_options(ro)) != 0)
        return rc;
    if (ro->file == NULL && ro->iface == NULL)
        return cli_fail(CLI_EXIT_USAGE, "read: no input (use -r FILE or -i IFACE)");
    if (ro->file != NULL && ro->iface != NULL)
        return cli_fail(CLI_EXIT_USAGE, "read: give -r FILE or -i IFACE, not both");
    if (ro->file != NULL && (ro->live.filter != NULL || ro->live.snaplen != 0 ||
                             ro->live.buffer_mb != 0))
        return cli_fail(CLI_EXIT_USAGE, "read: -f, -s and -B apply to -i");
    unsigned takes = ro->printer->flags;
    if ((takes & READ_NEEDS_FIELDS) && ro->n_fields == 0)
        return cli_fail(CLI_EXIT_USAGE, "read: -T fields needs at least one -e FIELD");
    if (!(takes & READ_TAKES_FIELDS) && ro->n_fields > 0)
        return cli_fail(CLI_EXIT_USAGE, "read: -e needs -T fields, json, jsonraw, ek or "
                        "jsonflat");
    if (ro->hex && !(takes & READ_TAKES_HEX))
        return cli_fail(CLI_EXIT_USAGE, "read: -x goes with the text output, -V, -T json or "
                        "-T ek");
    if (ro->json.n_protos > 0 && !(takes & READ_TAKES_PROTOS)) {
        /* tshark ignores them there, exit status 0 */
        fprintf(stderr, "roceshark: read: -j and -J ignored: they go with -T json, jsonraw, "
                "ek or pdml\n");
        ro->json.n_protos = 0;
    }
    if (ro->json.no_duplicate_keys && !(takes & READ_TAKES_NO_DUP))
        return cli_fail(CLI_EXIT_USAGE, "read: --no-duplicate-keys goes with -T json or "
                        "jsonraw");
    ro->json.text = !(takes & READ_JSON_RAW);
    ro->json.raw = ro->hex || (takes & READ_JSON_RAW);
    if (ro->verbose && ro->printer == read_printer_text())
        ro->printer = read_printer_tree();
    for (size_t i = 0; i < ro->n_stats && !ro->pipe.analyze; i++)
        if (rs_stat_needs_analysis(ro->stats[i]))
            return cli_fail(CLI_EXIT_USAGE, "-z needs the analysis: drop -o analysis:off");
    /* Archiving an evicted conversation's statistics is a copy per new
     * conversation past the bound: only -z conv,qp reads them. */
    ro->pipe.analysis.keep_evicted = false;
    for (size_t i = 0; i < ro->n_stats; i++) {
        /* --compat tshark: -z expert is tshark's table of Wireshark's items */
        char err[RS_ERRBUF_SIZE];
        if (rs_stat_set_tshark(ro->stats[i], ro->display.info_tshark, err) != 0)
            return cli_fail(CLI_EXIT_INTERNAL, "-z %s: %s", ro->stat_specs[i], err);
        ro->pipe.analysis.keep_evicted |= rs_stat_lists_conversations(ro->stats[i]);
        /* a statistic's filter on udp.stream needs UDP followed too (not tcp_only) */
        ro->pipe.streams |= rs_stat_needs_streams(ro->stats[i]);
    }
    bool info = false;      /* the summary line's Info shows */
    for (size_t i = 0; i < ro->n_fields; i++) {
        ro->field_ids[i] = rs_field_lookup(ro->field_names[i]);
        if (ro->field_ids[i] < 0)
            return cli_fail(CLI_EXIT_USAGE, "-e %s: unknown field (see 'roceshark fields')",
                            ro->field_names[i]);
        ro->pipe.streams |= rs_streams_field(ro->field_names[i]);
        /* data, http and the like are as TCP's desegmentation leaves them */
        info |= strcmp(ro->field_names[i], "_ws.col.Info") == 0 ||
                rs_streams_tcp_field(ro->field_names[i]);
    }
    ro->json.fields = ro->field_ids;
    ro->json.n_fields = ro->n_fields;
    /* outputs of every field show tcp.stream, tcp.seq, ... as tshark's do */
    if ((ro->printer->flags & READ_ALL_FIELDS) && ro->n_fields == 0)
        ro->pipe.streams = true;
    /* the summary line's TCP Info has Seq, Ack and Win as tshark's: TCP alone will do */
    info |= ro->summary || (ro->printer->flags & READ_SHOWS_INFO);
    if (info && !ro->pipe.streams) {
        ro->pipe.streams = true;
        ro->pipe.streams_opts.tcp_only = true;
    }
    return 0;
}

/* Checksums cost time; -T fields and -q compute them only when a field or a
 * statistic shows them (the pipeline checks them when the filter reads them). */
bool
read_fields_need_crc(const struct read_opts *ro)
{
    static const char *const crc_fields[] = {"roceshark.icrc", "roceshark.vcrc",
                                             "roceshark.mpa.crc"};

    for (size_t i = 0; i < ro->n_stats; i++)
        if (rs_stat_needs_crc(ro->stats[i]))
            return true;
    for (size_t k = 0; k < RS_ARRAY_SIZE(crc_fields); k++) {
        for (size_t i = 0; i < ro->n_fields; i++)
            if (strncmp(ro->field_names[i], crc_fields[k], strlen(crc_fields[k])) == 0)
                return true;
    }
    return false;
}
