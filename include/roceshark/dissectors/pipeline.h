/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pipeline.h - the one sequence every consumer runs on a frame:
 *
 *     frame -> decode -> iWARP stage -> analysis -> facts -> display filter
 *
 * `read` (and its threads), `plot`, the TUI's ingest, the scripts' judge,
 * replay's trace and capture readers, the benchmarks and the Wireshark plugin
 * (on its first pass) all feed frames through one of these, so the stages can
 * never be chained in two different ways.
 *
 * The stateful stages (iWARP reassembly, analysis) must see every frame once,
 * in capture order: feed each frame exactly once, in order. What comes back
 * is a view of the frame (no bytes are copied) and the frame's facts; it
 * stays valid until the next rs_pipeline_process() call and while the
 * frame's bytes do.
 *
 * A pipeline knows no source: a file, a live interface and the sniffer QP
 * all hand it struct rs_frame. It can be fed on one thread and read on
 * another (the TUI ingests on its own thread while the screen reads the
 * conversation table): with opts.shared, the stateful stages run under the
 * pipeline's lock, and a reader brackets what it reads of the analyzer, the
 * iWARP stage or the counts with rs_pipeline_lock()/rs_pipeline_unlock().
 * Without it nothing is locked, which is what single-threaded consumers want.
 *
 * With a sink, the pipeline is fed with rs_pipeline_feed() and hands each
 * result to the sink, in capture order. On N threads, over batches of
 * frames, it runs with rs_pipeline_run_threads() (pipeline_threads.h).
 */
#ifndef ROCESHARK_PIPELINE_H
#define ROCESHARK_PIPELINE_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/filter.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/streams.h>
#include <roceshark/dissectors/packet.h>

struct rs_pipeline_result;

/* Where rs_pipeline_feed() hands each frame's result, with the cookie it
 * was fed with. */
typedef void rs_pipeline_sink(void *ctx, const struct rs_frame *frame,
                              const struct rs_pipeline_result *r, uint64_t cookie);

struct rs_pipeline_opts {
    /* -d ports and CRC checking. The iWARP stage takes its forced ports and
     * whether it checks MPA CRCs from here, so the two can never disagree. */
    struct rs_decode_opts decode;
    struct rs_iwarp_opts iwarp;         /* bounds and heuristics */
    bool streams;                       /* number TCP and UDP conversations (tcp.stream,
                                           tcp.seq, ...); a filter reading them turns it on */
    struct rs_streams_opts streams_opts;
    bool analyze;                       /* run the transport analysis */
    struct rs_analysis_opts analysis;
    const char *filter;                 /* display filter text; NULL or "" for none. A filter
                                           that reads a checksum status turns CRC checking on */
    bool shared;                        /* fed and read on different threads */
    /* Where rs_pipeline_feed() hands results. */
    rs_pipeline_sink *sink;
    void *sink_ctx;
};

/* Defaults: CRCs checked, port 4791, the iWARP and analysis defaults,
 * analysis on, streams off, no filter, not shared. */
void rs_pipeline_opts_init(struct rs_pipeline_opts *opts);

/* What one frame gave. */
struct rs_pipeline_result {
    struct rs_packet pkt;               /* the decoded view; pkt.facts points at facts
                                           when the analysis ran */
    struct rs_facts facts;
    struct rs_analysis_prep prep;       /* rs_pipeline_prepare()'s, else not ready */
    bool match;                         /* passed the display filter (true without one) */
};

/* Frames seen, and how many passed the filter. */
struct rs_pipeline_counts {
    uint64_t frames;
    uint64_t matched;
};

struct rs_pipeline;

/* Builds the stages. Fails
 * (negative RS_E* code, err filled) on a filter that does not compile,
 * giving its position, or on a lack of memory. */
int rs_pipeline_new(const struct rs_pipeline_opts *opts, struct rs_pipeline **out, char *err);
void rs_pipeline_free(struct rs_pipeline *p);

/* Runs every stage on frame, the next in capture order. Never fails: a
 * frame that makes no sense is decoded as far as it goes and flagged. For a
 * pipeline without a sink. */
const struct rs_pipeline_result *rs_pipeline_process(struct rs_pipeline *p,
                                                     const struct rs_frame *frame);

/* rs_pipeline_process() in its two halves, for rs_pipeline_run_threads(): decoding needs nothing of other frames and may run on any
 * thread, for any frame, at once; analyzing (the streams, iWARP and analysis stages and
 * the filter) takes each decoded result once, in capture order, one call at a time. The
 * result's views of the streams and iWARP stages (pkt.stream, pkt.iwarp) are the
 * stages' own and hold only until the next analyze. */
void rs_pipeline_decode(const struct rs_pipeline *p, const struct rs_frame *frame,
                        struct rs_pipeline_result *r);
void rs_pipeline_analyze(struct rs_pipeline *p, struct rs_pipeline_result *r);
/* After rs_pipeline_decode(), on the same thread: what the analysis would work out from
 * the packet alone (rs_analyzer_prepare()), so that rs_pipeline_analyze(), on the one
 * thread that runs it, need not. Without it the analysis works it out itself. */
void rs_pipeline_prepare(const struct rs_pipeline *p, struct rs_pipeline_result *r);

/* For a pipeline with a sink: runs every stage on frame, the next in
 * capture order, and hands the result, the frame and cookie to the sink. */
void rs_pipeline_feed(struct rs_pipeline *p, const struct rs_frame *frame, uint64_t cookie);

/* Starts the stateful stages afresh, as tshark's session reset (read -M) does: the TCP and
 * UDP streams (numbered from 0 again), the iWARP reassembly and the analysis forget every
 * conversation. The counts, the filter and the frame shown last stay. Fails (RS_ENOMEM,
 * err filled) when the stages find no memory; the pipeline must then only be freed. */
int rs_pipeline_reset(struct rs_pipeline *p, char *err);

/* Replaces the display filter (NULL or "" removes it) for the frames fed
 * from now on. On a filter that does not compile the old one
 * stays. One that reads a checksum status turns the decoder's CRC checking
 * on; the iWARP stage keeps the MPA CRC checking it was built with. */
int rs_pipeline_set_filter(struct rs_pipeline *p, const char *text, char *err);

/* The stages, for what a consumer reads after the frames (statistics,
 * conversation tables, -z iwarp, the bounds hit). The analyzer is NULL with
 * the analysis off, the filter NULL without one. */
struct rs_analyzer *rs_pipeline_analyzer(const struct rs_pipeline *p);
struct rs_iwarp *rs_pipeline_iwarp(const struct rs_pipeline *p);
/* The TCP and UDP stream stage; NULL when nothing reads its fields. */
const struct rs_streams *rs_pipeline_streams(const struct rs_pipeline *p);
const struct rs_filter *rs_pipeline_filter(const struct rs_pipeline *p);
struct rs_pipeline_counts rs_pipeline_counts(const struct rs_pipeline *p);

/* For a reader on another thread of a shared pipeline; no-ops otherwise. */
void rs_pipeline_lock(struct rs_pipeline *p);
void rs_pipeline_unlock(struct rs_pipeline *p);

#endif /* ROCESHARK_PIPELINE_H */
