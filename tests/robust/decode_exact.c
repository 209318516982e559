/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode_exact.c - decode every frame of a capture from a buffer of exactly
 * its captured length, and pull every field and every output format out of
 * it. Under AddressSanitizer any read past the captured bytes is caught,
 * which libpcap's large shared buffer would otherwise hide. Frames go
 * through the whole pipeline, whose iWARP window and analysis state outlive
 * each copy: anything kept pointing into a freed frame is caught too.
 *
 * usage: decode_exact FILE...   (exit 0 when every file was read)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/print.h>

#include "exercise.h"

static unsigned long long values;

static void
exercise(const struct rs_frame *frame, struct rs_pipeline *pipe, struct rs_out *out)
{
    /* An exact-size copy: one byte more read is a heap overflow. */
    uint8_t *copy = malloc(frame->caplen ? frame->caplen : 1);
    struct rs_frame f = *frame;

    memcpy(copy, frame->data, frame->caplen);
    f.data = copy;
    values += exercise_packet(&rs_pipeline_process(pipe, &f)->pkt, out);
    out->len = 0;
    free(copy);
}

int
main(int argc, char **argv)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_out out;
    unsigned long long frames = 0;

    if (rs_out_init(&out, stdout, 1 << 16) != 0)
        return 2;
    for (int i = 1; i < argc; i++) {
        struct rs_source *src;
        struct rs_frame frame;
        struct rs_pipeline_opts opts;
        struct rs_pipeline *pipe;
        int rc;

        rs_pipeline_opts_init(&opts);
        if (rs_source_open_file(argv[i], &src, err) != 0 ||
            rs_pipeline_new(&opts, &pipe, err) != 0) {
            fprintf(stderr, "decode_exact: %s\n", err);
            return 2;
        }
        while ((rc = rs_source_next(src, &frame, err)) == 1) {
            exercise(&frame, pipe, &out);
            frames++;
        }
        rs_pipeline_free(pipe);
        rs_source_close(src);
        if (rc < 0) {
            fprintf(stderr, "decode_exact: %s: %s\n", argv[i], err);
            return 2;
        }
    }
    rs_out_free(&out);
    printf("%llu frames, %llu field values\n", frames, values);
    return 0;
}
