/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model_int.h - the model's state, shared by its files: model.c (opening,
 * what the views read), ingest.c (the thread that fills it),
 * frame_read.c (reading frames back) and tcp_streams.c (what TCP frames
 * read back need of their stream).
 *
 * Locking: mu guards everything the ingest thread writes except the
 * pipeline, which has its own lock (opts.shared). Nobody holds both at
 * once, so there is no order to get wrong. Only the screen's thread starts
 * and stops passes, so the pipeline pointer changes under nobody's feet.
 */
#ifndef ROCESHARK_TUI_MODEL_INT_H
#define ROCESHARK_TUI_MODEL_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include <roceshark/capture.h>
#include <roceshark/pipeline.h>
#include <roceshark/streams.h>
#include <roceshark/tui.h>

struct rs_tui_model {
    char *path;
    bool remove_path;               /* a temporary capture file */
    char *filter;                   /* in force; "" for none */
    struct rs_decode_opts decode;
    bool two_stage;                 /* the pipeline runs on two threads */
    int fd;                         /* the file, for reading frames back */

    pthread_mutex_t mu;
    pthread_cond_t pass_done;
    struct rs_tui_index *index;
    uint64_t *shown;                /* numbers of the frames the filter passed; unused when
                                       all are (no filter): frame i + 1 is then the i-th */
    size_t n_shown, cap_shown;
    bool all_shown;                 /* no filter in this pass */
    uint8_t *conv_shown;            /* a bit per conversation id with a frame shown: the
                                       table under a filter lists only those */
    size_t conv_shown_bytes;
    struct rs_tui_anomaly *anomalies;
    size_t n_anomalies, cap_anomalies;
    struct rs_tui_rates *rates;
    size_t conv_rows_last;          /* rows the last table had: the next one's room */
    /* TCP streams' notes (tcp_streams.c): each stream's newest epoch, by tcp.stream,
     * and the epochs, each linked to its stream's one before. */
    uint32_t *tcp_latest;
    size_t n_tcp_latest, cap_tcp_latest;
    struct tui_tcp_epoch *tcp_epochs;
    size_t n_tcp_epochs, cap_tcp_epochs;
    struct rs_time first, newest;   /* times of the first and the newest frame */
    struct rs_tui_progress progress;
    uint64_t pass_start_ns;         /* CLOCK_MONOTONIC when the pass started */

    /* A live capture: its source and the file it is written to. */
    struct rs_source *live;
    struct rs_writer *writer;

    /* The current pass. */
    struct rs_pipeline *pipe;
    struct rs_source *src;          /* the file (a live capture opens it on the thread) */
    struct batch *batch;            /* the pipeline's sink gathers frames here (ingest.c) */
    pthread_t thread;
    bool running;                   /* thread must be joined */
    atomic_bool stop;
};

/* Starts a pass over the whole file with pipe (which the model then owns);
 * the previous pass must be stopped. */
int model_start_pass(struct rs_tui_model *m, struct rs_pipeline *pipe, char *err);
/* Stops the pass (if any), frees its pipeline and source. */
void model_stop_pass(struct rs_tui_model *m);
/* arr with room for need elements of elem bytes (doubling *cap), or NULL when out of
 * memory (arr is then kept as it was). */
void *model_grow_array(void *arr, size_t *cap, size_t need, size_t elem);
/* Notes what the streams stage found for pkt (a TCP frame at ingest) about its
 * stream; on the ingest thread (the pipeline's sink). */
void model_tcp_note(struct rs_tui_model *m, const struct rs_packet *pkt);
/* The stream view of pkt, a frame of TCP stream index decoded again on its
 * own, as the streams stage gave it at ingest; false when not known exactly. */
bool model_tcp_view(struct rs_tui_model *m, uint32_t index, const struct rs_packet *pkt,
                    struct rs_stream_view *out);
/* Forgets the streams (a new pass; under mu), or frees their notes. */
void model_tcp_clear(struct rs_tui_model *m);
void model_tcp_free(struct rs_tui_model *m);
/* Builds a shared pipeline with filter text for the model's decode options. */
int model_new_pipeline(struct rs_tui_model *m, const char *filter,
                       struct rs_pipeline **out, char *err);

#endif /* ROCESHARK_TUI_MODEL_INT_H */
