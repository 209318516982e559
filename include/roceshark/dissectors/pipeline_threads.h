/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pipeline_threads.h - a pipeline run on N threads over batches of frames:
 *
 *     read (in order) -> decode (any batch) -> analyze (in order) -> format (any batch)
 *                                                       -> write (in order)
 *
 * `read --threads N` and the TUI's ingest run their frames through it. The steps that
 * carry state across frames (the caller's source, the pipeline's streams, iWARP and
 * analysis stages with the filter, the caller's tally, the output) run on one thread at
 * a time and in capture order, so what they produce cannot depend on the number of
 * threads; decoding and formatting, which read one frame alone, run on any thread.
 */
#ifndef ROCESHARK_PIPELINE_THREADS_H
#define ROCESHARK_PIPELINE_THREADS_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/pipeline.h>

#define RS_PIPELINE_THREADS_MAX 64
/* ops->next's answer when no frame has come for now (a file being written): the frames
 * before go through, and ops->idle is called once they are tallied. */
#define RS_PIPELINE_THREADS_IDLE 2

struct rs_out;
struct rs_pipeline_threads_ops {
    void *ctx;
    /* The next frame, its bytes valid until the next call, and a cookie of the caller's
     * handed back with it to tally (the TUI's: the frame's file offset): 1, 0 at the end
     * (the source's end or error, a count, a stop: ctx keeps why), or
     * RS_PIPELINE_THREADS_IDLE. One call at a time. */
    int (*next)(void *ctx, struct rs_frame *frame, uint64_t *cookie);
    /* Every frame once analyzed, in capture order, while the stateful stages' views of
     * it are valid: 0, or non-zero to read no more (the frame itself is still shown). */
    int (*tally)(void *ctx, const struct rs_frame *frame, const struct rs_pipeline_result *r,
                 uint64_t cookie);
    /* Formats a frame that passed the filter (first: the first of them); on any thread,
     * for any frame. NULL: nothing is formatted or written. */
    void (*format)(void *ctx, struct rs_out *out, const struct rs_packet *pkt, bool first);
    /* NULL, or called in the analyze step after every frame read before an idle answer
     * of next has been tallied. */
    void (*idle)(void *ctx);
};

/* The threads this process may run on (its CPU affinity), at most
 * RS_PIPELINE_THREADS_MAX. */
unsigned rs_pipeline_threads_available(void);

/* Runs the frames of ops->next through pipe on threads threads (the caller's one of
 * them), formatting those that match when ops->format is given and writing their text
 * to out in capture order; *shown counts the frames that matched. The output is that of
 * one thread, byte for byte. 0, or RS_ENOMEM. */
int rs_pipeline_run_threads(struct rs_pipeline *pipe, unsigned threads,
                            const struct rs_pipeline_threads_ops *ops, struct rs_out *out,
                            unsigned long long *shown);

#endif
