/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model_int.h - the model's state, shared by its files: model.c (opening,
 * what the views read), ingest.c (the thread that fills it),
 * frame_read.c (reading frames back), frame_state.c (the record of what the
 * stateful stages gave a frame) and state_store.c (the file of records).
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

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/pipeline_threads.h>
#include <roceshark/dissectors/streams.h>
#include <roceshark/tui/tui.h>

/* A live capture's engine flushes the file this often, and the kernel hands its ring's
 * blocks over at least this often. */
#define LIVE_FLUSH_MS 100

/* A live capture's kernel ring: four times capture's RS_CAPTURE_BUFFER_MB. The capture
 * thread shares its process with the decoding, the index and the screen, so a busy
 * machine deschedules it longer than `capture`'s one thread; 32 MiB is 50 ms of a
 * 4 KiB-MTU RoCE link at 5 Gbit/s, 128 MiB 200 ms (the longest a write(2) of a throttled
 * dirtier sleeps). The kernel's pages are mapped once: no copy, no page fault, no
 * thread more on the frame's way to the file. */
#define LIVE_BUFFER_MB (4 * RS_CAPTURE_BUFFER_MB)

struct rs_tui_model {
    char *path;
    bool remove_path;               /* a temporary capture file */
    char *filter;                   /* in force; "" for none */
    struct rs_decode_opts decode;
    unsigned threads;               /* the ingest's (rs_tui_model_opts.threads, resolved) */
    unsigned search_threads;        /* rs_tui_model_opts.search_threads */
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
    struct tui_store *store;        /* each frame's state record (frame_state.c) */
    struct rs_time first, newest;   /* times of the first and the newest frame */
    struct rs_tui_progress progress;
    uint64_t pass_start_ns;         /* CLOCK_MONOTONIC when the pass started */

    /* A live capture: its source, the file it is written to, and capture's engine on a
     * thread of its own writing it (running while capturing). */
    struct rs_source *live;
    struct rs_writer *writer;
    struct rs_capture *capture;
    bool capturing;

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
/* The state file (state_store.c): records appended by one thread (the pipeline's
 * sink), read by any. */
struct tui_store;
int store_open(struct tui_store **out, char *err);
void store_close(struct tui_store *s);
/* Empties it for a new pass; no reader may be reading. */
void store_clear(struct tui_store *s);
/* Appends n bytes; *off gets where they start. */
int store_append(struct tui_store *s, const void *data, size_t n, uint64_t *off, char *err);
int store_read(struct tui_store *s, uint64_t off, void *out, size_t n, char *err);
/* Up to max bytes from off on, all of them from the file or all from the buffer (a
 * window to read records ahead from); returns how many (0 for none). */
size_t store_read_ahead(struct tui_store *s, uint64_t off, void *out, size_t max);

/* A frame's state record (frame_state.c). */
struct frame_state_buf {
    uint8_t *p;
    size_t len, cap;
};
/* Encodes what the stateful stages gave pkt (frame decoded and fed through the
 * pipeline) into b (len 0: nothing decoding alone would not give); false when out of
 * memory. */
bool frame_state_encode(struct frame_state_buf *b, const struct rs_frame *frame,
                        const struct rs_packet *pkt);
void frame_state_buf_free(struct frame_state_buf *b);
/* Gives d->pkt, decoded again from d->frame, the record's len bytes at state (which
 * iWARP views point into: it must outlive d's use). */
int frame_state_apply(struct rs_tui_decoded *d, const uint8_t *state, size_t len, char *err);
/* Builds a shared pipeline with filter text for the model's decode options. */
int model_new_pipeline(struct rs_tui_model *m, const char *filter,
                       struct rs_pipeline **out, char *err);

#endif /* ROCESHARK_TUI_MODEL_INT_H */
