/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_read.c - `roceshark read`: decode frames from a capture and print
 * them as summary lines, a full tree, JSON or selected fields. This file
 * wires the parts (read_int.h): the options, the source, the pipeline, -w,
 * the loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/dissectors/stats.h>

#include "cli.h"
#include "read_int.h"

static void
read_opts_free(struct read_opts *ro)
{
    free(ro->protos_text);
    for (size_t i = 0; i < ro->n_stats; i++)
        rs_stat_free(ro->stats[i]);
    read_pass_free(&ro->pass);
    free(ro->expand_list);
    free(ro);
}

/* -i: a live source with the default RDMA filter (plus the -d ports), each
 * frame delivered at once when the output is line-buffered. */
static int
open_live(struct read_opts *ro, struct rs_source **src)
{
    char err[RS_ERRBUF_SIZE];
    int rc;

    ro->live.roce_ports = ro->pipe.decode.roce_ports;
    ro->live.n_roce_ports = ro->pipe.decode.n_roce_ports;
    ro->live.iwarp_ports = ro->pipe.decode.iwarp_ports;
    ro->live.n_iwarp_ports = ro->pipe.decode.n_iwarp_ports;
    ro->live.immediate = ro->line_buffered;
    /* No such interface: tshark's exit status, 1 (capture's stays 4). */
    if ((rc = rs_source_create_iface(ro->iface, src, err)) != 0)
        return cli_fail(rc == RS_ENOENT ? CLI_EXIT_USAGE : cli_exit_code(rc, CLI_EXIT_CAPTURE),
                        "read: %s", err);
    if ((rc = rs_source_activate(*src, &ro->live, err)) != 0) {
        rs_source_close(*src);
        *src = NULL;
        return cli_fail(rc == RS_ENOENT ? CLI_EXIT_USAGE : cli_exit_code(rc, CLI_EXIT_CAPTURE),
                        "read: %s", err);
    }
    cli_break_on_signals(*src);
    /* Said once the capture runs: scripts wait for this line before sending. */
    fprintf(stderr, "capture: %s (%s timestamps) -> decoding\n", ro->iface,
            rs_source_ts_hardware(*src) ? "hardware" : "system");
    return 0;
}

/* -G help (or ?): the reports, as tshark lists its own (and exits 0). */
static const char glossary_help[] =
    "Usage: roceshark read -G [report]\n"
    "\n"
    "Glossary table reports:\n"
    "  -G column-formats        the formats of the columns read prints\n"
    "  -G decodes               the dissector table entries read decodes\n"
    "  -G dissector-tables      the dissector tables read decodes by\n"
    "  -G fields                the fields, tshark's columns (also -G alone)\n"
    "  -G ftypes                the field types read's fields have\n"
    "  -G heuristic-decodes     read's heuristic dissectors\n"
    "  -G protocols             the protocols read dissects or names\n"
    "  -G values                the value names of read's fields\n"
    "\n"
    "Preference reports:\n"
    "  -G currentprefs          tshark's preferences -o takes, with the values -o gave\n"
    "  -G defaultprefs          tshark's preferences -o takes, with their defaults\n";

/* -G: the registry as tshark -G lists Wireshark's; the preferences read takes as tshark
 * writes its own. */
static int
print_glossary(const struct read_opts *ro)
{
    const char *report = ro->glossary;
    struct rs_out out;
    int rc = 0;

    if (rs_out_init(&out, stdout, OUT_BUFFER_SIZE) != 0)
        return cli_fail(CLI_EXIT_INTERNAL, "out of memory");
    if (strcmp(report, "help") == 0 || strcmp(report, "?") == 0)
        rs_out_str(&out, glossary_help);
    else if (strcmp(report, "defaultprefs") == 0 || strcmp(report, "currentprefs") == 0)
        read_print_prefs(&out, ro, report[0] == 'c');
    else if (rs_print_glossary(&out, report) != 0)
        rc = cli_fail(CLI_EXIT_USAGE, "-G %s: expected fields, protocols, values, "
                      "heuristic-decodes, ftypes, column-formats, dissector-tables, decodes, "
                      "defaultprefs or currentprefs (-G help lists them)", report);
    if (rc == 0 && rs_out_flush(&out) != 0)
        rc = cli_fail(CLI_EXIT_OUTPUT, "standard output: write error");
    rs_out_free(&out);
    return rc;
}

/* Everything is released through one path, whichever step fails. */
int
cmd_read(int argc, char **argv)
{
    struct read_opts *ro = calloc(1, sizeof(*ro));
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src = NULL;
    struct rs_pipeline *pipe = NULL;
    struct rs_writer *w = NULL;
    struct rs_out out;
    bool have_out = false;
    int rc;

    if (ro == NULL)
        return cli_fail(CLI_EXIT_INTERNAL, "out of memory");
    if ((rc = read_parse_args(argc, argv, ro)) != 0) {
        rc = rc < 0 ? CLI_EXIT_OK : rc;
        goto done;
    }
    if (ro->glossary != NULL) {
        rc = print_glossary(ro);
        goto done;
    }
    if ((ro->printer->flags & READ_CRC_ASKED) || ro->quiet)
        ro->pipe.decode.verify_crc = read_fields_need_crc(ro);
    /* Before the input is opened, so a bad filter is a usage error whatever the input. */
    if ((rc = rs_pipeline_new(&ro->pipe, &pipe, err)) != 0) {
        const char *text = ro->pipe.filter;
        rc = rc == RS_EINVAL ?
            cli_fail(READ_EXIT_FILTER, "-Y %.*s%s: %s", FILTER_ECHO_MAX, text,
                     strlen(text) > FILTER_ECHO_MAX ? "..." : "", err) :
            cli_fail(CLI_EXIT_INTERNAL, "%s", err);
        goto done;
    }
    if (ro->two_pass && ro->read_filter != NULL &&
        (rc = read_pass_first(ro->file, &ro->pipe, ro->read_filter, ro->count, &ro->pass)) != 0)
        goto done;
    if (ro->iface != NULL) {
        if ((rc = open_live(ro, &src)) != 0)
            goto done;
    } else if (rs_source_open_files(ro->files, ro->n_files, &src, err) != 0) {
        rc = cli_fail(CLI_EXIT_INPUT, "%s", err);
        goto done;
    }
    if (ro->write_path != NULL &&
        (rc = read_save_open(ro->write_path, ro->iface != NULL ? NULL : ro->file,
                             ro->write_format, src, &w)) != 0)
        goto done;
    if (rs_out_init(&out, stdout, OUT_BUFFER_SIZE) != 0) {
        rc = cli_fail(CLI_EXIT_INTERNAL, "out of memory");
        goto done;
    }
    have_out = true;
    out.line_buffered = ro->line_buffered;
    out.style = ro->style;
    out.time_col = ro->time_col;
    out.tabs = ro->tabs;
    out.data_hex = !ro->hex;
    rc = read_run_frames(src, ro, pipe, &out, w);
    if (ro->iface != NULL)
        cli_print_capture_counts(src, ro->shown, "decoded");
done:
    if (w != NULL) {
        int save_rc = read_save_close(w);
        struct stat st;
        rc = rc != 0 ? rc : save_rc;
        if (ro->group_readable && strcmp(ro->write_path, "-") != 0 &&
            stat(ro->write_path, &st) == 0)
            chmod(ro->write_path, st.st_mode | S_IRGRP);
    }
    if (ro->iface != NULL && src != NULL)
        cli_break_on_signals(NULL);
    rs_pipeline_free(pipe);
    if (have_out)
        rs_out_free(&out);
    rs_source_close(src);
    read_opts_free(ro);
    return rc;
}
