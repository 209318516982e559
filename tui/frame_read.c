/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame_read.c - frames read back from the file at their indexed offset:
 * decoded again for the packet list and the detail and hex panes, or
 * written out (`w`).
 *
 * Only the decoder runs on a frame read back. The pipeline's other stages
 * (iWARP reassembly, the analysis, the streams) keep state that needs every
 * frame once and in capture order; what the analysis found is taken from
 * the index instead, and a TCP frame's relative numbers from its stream's
 * notes (tcp_streams.c), so the Info column reads as `roceshark read`
 * prints it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <roceshark/pcapio.h>

#include "model_int.h"

/* Fills f (number, times since the first and the previous frame) from the index. */
static bool
frame_from_index(struct rs_tui_model *m, uint64_t number, struct rs_frame *f,
                 struct rs_tui_frame *e)
{
    struct rs_tui_frame first, prev;

    if (!rs_tui_model_frame(m, number, e) || !rs_tui_model_frame(m, 1, &first) ||
        !rs_tui_model_frame(m, number > 1 ? number - 1 : 1, &prev))
        return false;
    memset(f, 0, sizeof(*f));
    f->caplen = e->caplen;
    f->len = e->len;
    f->linktype = e->linktype;
    f->number = number;
    f->ts_sec = e->ts_sec;
    f->ts_nsec = e->ts_nsec;
    f->ts_digits = e->ts_digits;
    struct rs_time t = rs_frame_time(f);
    f->rel = rs_time_sub(t, (struct rs_time){first.ts_sec, (int32_t)first.ts_nsec});
    f->delta = rs_time_sub(t, (struct rs_time){prev.ts_sec, (int32_t)prev.ts_nsec});
    return true;
}

/* Reads the frame's bytes into d->data. */
static int
read_bytes(struct rs_tui_model *m, const struct rs_tui_frame *e, struct rs_tui_decoded *d,
           char *err)
{
    if (e->caplen > d->cap) {
        uint8_t *b = realloc(d->data, e->caplen);
        if (b == NULL)
            return rs_error(err, RS_ENOMEM, "out of memory for a %u-byte frame", e->caplen);
        d->data = b;
        d->cap = e->caplen;
    }
    ssize_t n = pread(m->fd, d->data, e->caplen, (off_t)e->offset);
    if (n != (ssize_t)e->caplen)
        return rs_error(err, RS_EIO, "%s: reading a frame back: %s", m->path,
                        n < 0 ? strerror(errno) : "the file is shorter than it was");
    return 0;
}

/* The frame as the source handed it out, without decoding it. */
static int
read_frame(struct rs_tui_model *m, uint64_t number, struct rs_tui_decoded *d,
           struct rs_tui_frame *e, char *err)
{
    int rc;

    if (!frame_from_index(m, number, &d->frame, e))
        return rs_error(err, RS_EINVAL, "frame %llu: no such frame",
                        (unsigned long long)number);
    if ((rc = read_bytes(m, e, d, err)) != 0)
        return rc;
    d->frame.data = d->data;
    return 0;
}

int
rs_tui_model_decode(struct rs_tui_model *m, uint64_t number, struct rs_tui_decoded *d,
                    char *err)
{
    struct rs_tui_frame e;
    int rc;

    if ((rc = read_frame(m, number, d, &e, err)) != 0)
        return rc;
    rs_decode_frame(&d->frame, &m->decode, &d->pkt);
    memset(&d->facts, 0, sizeof(d->facts));
    d->facts.flags = e.fact_flags;
    d->facts.conv = e.conv;
    d->facts.psn_gap = e.psn_gap;
    d->facts.cnp_for = e.cnp_for;
    d->facts.violation = e.violation;
    d->facts.nak = e.nak;
    d->pkt.facts = e.fact_flags != 0 ? &d->facts : NULL;
    if (e.tcp_stream != 0 && model_tcp_view(m, e.tcp_stream - 1, &d->pkt, &d->stream))
        d->pkt.stream = &d->stream;
    return 0;
}

void
rs_tui_decoded_free(struct rs_tui_decoded *d)
{
    free(d->data);
    d->data = NULL;
    d->cap = 0;
}

int
rs_tui_model_write_frames(struct rs_tui_model *m, const char *path, const uint64_t *numbers,
                          size_t n, uint64_t *written, char *err)
{
    struct rs_tui_decoded d = {0};
    struct rs_writer *w = NULL;
    struct rs_tui_frame first, e;
    int rc = 0;

    *written = 0;
    if (n == 0 || !rs_tui_model_frame(m, numbers[0], &first))
        return rs_error(err, RS_EINVAL, "no packets to write");
    struct rs_writer_opts wo = {.path = path, .linktype = first.linktype,
                                .snaplen = RS_CAPTURE_SNAPLEN,
                                /* A nanosecond file keeps nanosecond times whole. */
                                .ts_hardware = first.ts_digits == 9};
    if ((rc = rs_writer_open(&wo, &w, err)) != 0)
        return rc;
    for (size_t i = 0; i < n && rc == 0; i++)
        if ((rc = read_frame(m, numbers[i], &d, &e, err)) == 0)
            rc = rs_writer_write(w, &d.frame, err);
    char close_err[RS_ERRBUF_SIZE];
    int crc = rs_writer_close(w, written, close_err);
    if (rc == 0 && crc != 0) {
        rc = crc;
        snprintf(err, RS_ERRBUF_SIZE, "%s", close_err);
    }
    rs_tui_decoded_free(&d);
    return rc;
}

int
rs_tui_model_write_shown(struct rs_tui_model *m, const char *path, uint64_t *written,
                         char *err)
{
    uint64_t n = rs_tui_model_shown_count(m);
    uint64_t *numbers = n > 0 ? malloc(n * sizeof(*numbers)) : NULL;

    *written = 0;
    if (n == 0)
        return rs_error(err, RS_EINVAL, "no packets shown: nothing to write");
    if (numbers == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    /* A copy: the ingest thread may grow the list meanwhile. */
    for (uint64_t i = 0; i < n; i++)
        numbers[i] = rs_tui_model_shown_frame(m, i);
    int rc = rs_tui_model_write_frames(m, path, numbers, n, written, err);
    free(numbers);
    return rc;
}
