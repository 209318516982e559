/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read_int.h - the parts of `roceshark read` beside its option parsing: saving the
 * frames shown (-w) and the first pass of -2 -R.
 */
#ifndef ROCESHARK_CLI_READ_INT_H
#define ROCESHARK_CLI_READ_INT_H

/* read exits as tshark does where tshark has its own code: 2 for a display filter it
 * cannot compile (tshark's INVALID_FILTER) and for a -w file it cannot write. */
#define READ_EXIT_FILTER 2
#define READ_EXIT_WRITE 2

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/capture/capture.h>
#include <roceshark/capture/pcapio.h>
#include <roceshark/dissectors/pipeline.h>

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

/* read --threads N (read_threads.c): the frames in batches through reading, decoding,
 * the pipeline's stateful stages, formatting and writing, on N threads, the caller's
 * one of them. Reading, analyzing and writing take the batches one at a time and in
 * order; decoding and formatting any batch on any thread. The output is that of one
 * thread, byte for byte. */
#define READ_THREADS_MAX 64

struct rs_out;
struct read_threads_ops {
    void *ctx;
    /* The next frame, its bytes valid until the next call: 1, or 0 at the end (the
     * source's end or error, a count, a stop: ctx keeps why). One call at a time. */
    int (*next)(void *ctx, struct rs_frame *frame);
    /* Every frame once analyzed, in capture order (statistics, -w): 0, or non-zero to
     * read no more (the frame itself is still shown). */
    int (*tally)(void *ctx, const struct rs_frame *frame, const struct rs_pipeline_result *r);
    /* Formats a frame that passed the filter (first: the first of them); on any thread,
     * for any frame. */
    void (*format)(void *ctx, struct rs_out *out, const struct rs_packet *pkt, bool first);
};

/* The threads this process may run on (its CPU affinity), at most READ_THREADS_MAX. */
unsigned read_threads_available(void);
/* Runs the frames of ops->next through pipe on threads threads, formatting those that
 * match when print, and writing their text to out in capture order; *shown counts the
 * frames that matched. 0, or RS_ENOMEM. */
int read_threads_run(struct rs_pipeline *pipe, unsigned threads, bool print,
                     const struct read_threads_ops *ops, struct rs_out *out,
                     unsigned long long *shown);

#endif /* ROCESHARK_CLI_READ_INT_H */
