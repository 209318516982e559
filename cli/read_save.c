/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_save.c - `read -w FILE`: the frames that pass -Y (and -c, -R) written through
 * the capture writer, with the input's link types and times.
 */
#include <string.h>

#include "cli.h"
#include "read_int.h"

int
read_save_open(const char *path, const char *input, enum read_save_format format,
               struct rs_source *src, struct rs_writer **w)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_writer_opts wo;

    memset(&wo, 0, sizeof(wo));
    wo.path = path;
    wo.input = input;
    wo.linktype = rs_source_linktype(src);
    wo.snaplen = rs_source_snaplen(src) != 0 ? rs_source_snaplen(src) : RS_CAPTURE_SNAPLEN;
    /* A pcapng file keeps nanoseconds whatever the input; a pcap file's resolution is the
     * input's, so that its times are written as they were read. */
    wo.ts_hardware = rs_source_ts_digits(src) == 9;
    wo.pcapng = format == READ_SAVE_PCAPNG ||
                (format == READ_SAVE_AS_INPUT && rs_source_is_pcapng(src));
    wo.frame_linktypes = true;
    int rc = rs_writer_open(&wo, w, err);
    if (rc != 0)
        return cli_fail(cli_exit_code(rc, READ_EXIT_WRITE), "-w %s", err);
    return 0;
}

int
read_save_frame(struct rs_writer *w, const struct rs_frame *frame)
{
    char err[RS_ERRBUF_SIZE];

    if (rs_writer_write(w, frame, err) != 0)
        return cli_fail(READ_EXIT_WRITE, "-w %s", err);
    return 0;
}

int
read_save_close(struct rs_writer *w)
{
    char err[RS_ERRBUF_SIZE];

    if (w != NULL && rs_writer_close(w, NULL, err) != 0)
        return cli_fail(READ_EXIT_WRITE, "-w %s", err);
    return 0;
}
