/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_int.h - the parts of `roceshark read` beside its option parsing: saving the
 * frames shown (-w) and the first pass of -2 -R.
 */
#ifndef ROCESHARK_CLI_READ_INT_H
#define ROCESHARK_CLI_READ_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/capture.h>
#include <roceshark/pcapio.h>
#include <roceshark/pipeline.h>

/* -F: the format -w writes. */
enum read_save_format {
    READ_SAVE_AS_INPUT = 0,     /* pcapng for a pcapng input, else pcap */
    READ_SAVE_PCAP,
    READ_SAVE_PCAPNG
};

/* Opens -w's file for the frames of src: its link type, snapshot length and time
 * resolution (nanosecond pcap for a nanosecond input). A pcapng file takes frames of
 * several link types, one interface each. The file input (-r, NULL when live) is refused
 * as the output (a usage error). Returns 0 or the exit code, reported. */
int read_save_open(const char *path, const char *input, enum read_save_format format,
                   struct rs_source *src, struct rs_writer **w);
/* Writes one frame; 0 or the exit code, reported. */
int read_save_frame(struct rs_writer *w, const struct rs_frame *frame);
/* Flushes and closes (w may be NULL); 0 or the exit code, reported. */
int read_save_close(struct rs_writer *w);

/* -2 -R: the frames the read filter keeps, found by a first pass over the file. As
 * tshark's, the second pass sees only those, numbered from 1; their times since the
 * first frame stay those of the file, and the delta is from the previous frame kept. */
struct read_pass {
    uint64_t *kept;             /* a bit per frame of the first pass */
    uint64_t frames;            /* frames the first pass read */
    uint64_t number;            /* frames handed on in the second pass */
    struct rs_time prev;        /* the time of the last of them */
};

/* Runs the first pass over file with the pipeline options opts and filter as its
 * display filter, reading up to count frames (0: all). Returns 0 or the exit code,
 * reported. */
int read_pass_first(const char *file, const struct rs_pipeline_opts *opts,
                    const char *filter, unsigned long long count, struct read_pass *pass);
/* In the second pass: false for a frame the read filter dropped; else true, with the
 * frame renumbered and its delta recomputed. */
bool read_pass_keep(struct read_pass *pass, struct rs_frame *frame);
void read_pass_free(struct read_pass *pass);

#endif /* ROCESHARK_CLI_READ_INT_H */
