/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tui.h - the model under `roceshark tui`, usable without a terminal: a
 * frame index, the thread that ingests a capture through the pipeline,
 * per-conversation rate windows, and the conversation table's columns and
 * sorting. The screens (tui/screen*.c, ncursesw) only read this model.
 *
 * Memory: the model keeps no packet bytes. Each frame costs one index entry
 * (struct rs_tui_frame, at most 64 bytes with the list of shown frames);
 * a frame is read back from the file at its offset and decoded again when a
 * screen needs it, as Wireshark's frame data is, with the record of what
 * the stateful stages gave it, kept in a file of the model's own.
 */
#ifndef ROCESHARK_TUI_H
#define ROCESHARK_TUI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/corr.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/nstime.h>
#include <roceshark/dissectors/packet.h>
#include <roceshark/dissectors/streams.h>

/* --- The frame index --- */

/* What the views need of one frame without reading it again: where its
 * bytes are, its times, its conversation, and where the record of what the
 * pipeline's stateful stages gave it (its analysis facts, stream and iWARP
 * views) lies in the model's state file. */
struct rs_tui_frame {
    uint64_t offset;        /* of the frame's bytes in the file */
    int64_t ts_sec;
    uint64_t state_off;     /* its record in the state file (tui/frame_state.c) */
    uint32_t ts_nsec;
    uint32_t caplen;
    uint32_t len;
    uint32_t wire_len;      /* the packet's bytes on the wire, as -z conv counts them (an
                               ERF record's own header left out) */
    uint32_t conv;          /* conversation id, 0 for none */
    uint32_t state_len;     /* 0: decoding alone gives everything */
    uint16_t linktype;
    uint8_t kind;           /* RS_TUI_KIND_*: how the packet list colours it */
    uint8_t ts_digits;
    uint16_t interface;     /* the frame's rs_frame interface and section (the pcapng */
    uint16_t section;       /* interface's name is not kept: a row read back says "unknown") */
};

/* Kinds of frame the packet list colours. */
#define RS_TUI_KIND_NAK 0x01u       /* NAK or RNR NAK: red */
#define RS_TUI_KIND_RETX 0x02u      /* retransmission or PSN gap: amber */
#define RS_TUI_KIND_CONGESTION 0x04u /* CNP or ECN-CE: blue */
#define RS_TUI_KIND_ERROR 0x08u     /* bad ICRC, violation, malformed: red */
#define RS_TUI_KIND_BAD_CRC 0x10u   /* a bad ICRC or VCRC (no colour of its own) */

struct rs_tui_index;

/* Most frames the index holds: 2^32, in 8192 blocks of 512 Ki entries. */
#define RS_TUI_INDEX_MAX_FRAMES ((uint64_t)1 << 32)

/* An index of at most max_frames frames (0 or more than RS_TUI_INDEX_MAX_FRAMES:
 * that many; a test asks for fewer, to reach the bound). */
int rs_tui_index_new(struct rs_tui_index **out, uint64_t max_frames, char *err);
void rs_tui_index_free(struct rs_tui_index *ix);
/* Appends the next frame (number count + 1). Entries never move once added,
 * so a reader on another thread may read any entry below the count it saw.
 * RS_ENOMEM when memory runs out, RS_ENOSPC when the index holds its most. */
int rs_tui_index_append(struct rs_tui_index *ix, const struct rs_tui_frame *f);
uint64_t rs_tui_index_count(const struct rs_tui_index *ix);
/* Frame number (from 1); NULL past the end. */
const struct rs_tui_frame *rs_tui_index_get(const struct rs_tui_index *ix, uint64_t number);
/* Forgets every frame (a new pass over the file). */
void rs_tui_index_clear(struct rs_tui_index *ix);

/* --- Rate windows, iftop's three columns --- */

#define RS_TUI_RATE_WINDOWS 3
/* 2, 10 and 40 seconds. */
extern const unsigned rs_tui_rate_seconds[RS_TUI_RATE_WINDOWS];

struct rs_tui_rates;

/* Rates of at most max_convs conversations at once (the analysis' bound): past
 * it, the conversation seen longest ago loses them. */
int rs_tui_rates_new(uint32_t max_convs, struct rs_tui_rates **out, char *err);
void rs_tui_rates_free(struct rs_tui_rates *r);
/* Counts the frames of the index up to number upto not counted yet (each its
 * conversation's bytes on the wire), then ends each window at now (the
 * capture's clock; it never goes back): the frames whose times are no longer
 * in (now - W, now] leave it. */
void rs_tui_rates_advance(struct rs_tui_rates *r, const struct rs_tui_index *ix, uint64_t upto,
                          struct rs_time now);
/* Bytes per second of conv over each window: the bytes of its frames in it over
 * its length. False, and -1 in each, when conv has no rates kept. */
bool rs_tui_rates_get(const struct rs_tui_rates *r, uint32_t conv,
                      double out[RS_TUI_RATE_WINDOWS]);
void rs_tui_rates_clear(struct rs_tui_rates *r);
/* Conversations that lost their rates to make room, since the last clear. */
uint64_t rs_tui_rates_dropped(const struct rs_tui_rates *r);

/* --- The conversation table: columns and sorting --- */

/* The rates follow the endpoints, as in iftop, so that any width shows them. */
enum rs_tui_col {
    RS_TUI_COL_CONV,
    RS_TUI_COL_REQUESTER,
    RS_TUI_COL_RESPONDER,
    RS_TUI_COL_RATE2,
    RS_TUI_COL_RATE10,
    RS_TUI_COL_RATE40,
    RS_TUI_COL_REQ_PKTS,
    RS_TUI_COL_REQ_BYTES,
    RS_TUI_COL_RSP_PKTS,
    RS_TUI_COL_RSP_BYTES,
    RS_TUI_COL_SEND,
    RS_TUI_COL_WRITE,
    RS_TUI_COL_READ,
    RS_TUI_COL_ATOMIC,
    RS_TUI_COL_RETX,
    RS_TUI_COL_GAPS,
    RS_TUI_COL_NAKS,
    RS_TUI_COL_RNR,
    RS_TUI_COL_CNP,
    RS_TUI_COL_ECN_CE,
    RS_TUI_COL_VIOL,
    RS_TUI_COL_READ_AVG,
    RS_TUI_COL_READ_P99,
    RS_TUI_COL_LAST,
    RS_TUI_COL_COUNT
};

/* One row: the analyzer's statistics and the rates. */
struct rs_tui_conv_row {
    struct rs_conv_stats st;
    double rate[RS_TUI_RATE_WINDOWS];   /* bytes per second */
    struct rs_time last_seen;           /* the last packet, since the capture's first */
    bool have_last;                     /* false: unknown (an evicted conversation) */
};

/* The column's heading. */
const char *rs_tui_col_name(enum rs_tui_col col);
/* Whether the column is a count (right-aligned, as wide as its largest value's digits). */
bool rs_tui_col_is_count(enum rs_tui_col col);
/* The digits of the column's value in row (a count column). */
int rs_tui_col_digits(const struct rs_tui_conv_row *row, enum rs_tui_col col);
/* The cell's text (right-aligned numbers are the caller's business). */
void rs_tui_col_format(const struct rs_tui_conv_row *row, enum rs_tui_col col, char *buf,
                       size_t size);
/* Sorts rows by col, ties by conversation id. */
void rs_tui_rows_sort(struct rs_tui_conv_row *rows, size_t n, enum rs_tui_col col,
                      bool descending);

/* --- An RDMA port's own counters (sysfs), beside the capture's figures --- */

struct rs_tui_nic_counter {
    char name[48];
    bool hw;                /* from hw_counters/ (else counters/) */
    bool readable;          /* the last sample read it */
    uint64_t value;
    double rate;            /* per second, between the last two samples */
    bool have_rate;         /* false after a reset (the value went back), or before two
                               samples: no rate, not a rate of 0 */
};

/* The figure of the capture that a NIC counter is compared with. */
enum rs_tui_capture_figure {
    RS_TUI_FIG_NONE,
    RS_TUI_FIG_PACKETS,
    RS_TUI_FIG_PSN_GAPS,
    RS_TUI_FIG_NAK_SEQ,
    RS_TUI_FIG_RETRANSMISSIONS,
    RS_TUI_FIG_RNR,
    RS_TUI_FIG_CNPS,
    RS_TUI_FIG_ECN_CE
};

struct rs_tui_nic;

/* Opens port of RDMA device dev under root ("" or "/sys": the system's):
 * lists ROOT/class/infiniband/DEV/ports/PORT/counters/ and hw_counters/.
 * RS_ENOENT when there is no such port or it has no counters. */
int rs_tui_nic_open(const char *root, const char *dev, unsigned port, struct rs_tui_nic **out,
                    char *err);
void rs_tui_nic_close(struct rs_tui_nic *nic);
/* Reads every counter again; rates are taken over the time since the last sample. */
void rs_tui_nic_sample(struct rs_tui_nic *nic, uint64_t now_ns);
/* The counters, sorted by name. */
size_t rs_tui_nic_count(const struct rs_tui_nic *nic);
const struct rs_tui_nic_counter *rs_tui_nic_get(const struct rs_tui_nic *nic, size_t i);
/* Which figure of the capture sits beside counter (RS_TUI_FIG_NONE: none), its
 * name, and its value summed over the conversation rows. */
enum rs_tui_capture_figure rs_tui_nic_capture_figure(const char *counter);
const char *rs_tui_capture_figure_name(enum rs_tui_capture_figure f);
uint64_t rs_tui_capture_figure_value(const struct rs_tui_conv_row *rows, size_t n,
                                     enum rs_tui_capture_figure f);

/* --- The model: ingest thread and what the views read --- */

struct rs_tui_model_opts {
    const char *path;               /* the capture file; live, the file the capture is
                                       written to (NULL: a temporary one, removed on close) */
    const char *iface;              /* capture live from this interface (libpcap); NULL for
                                       a file */
    const char *rdma;               /* or from this RDMA device, "DEV[:PORT]" (sniffer QP) */
    struct rs_live_opts live;       /* live: -f and the rest (the -d ports come from
                                       decode) */
    const char *filter;             /* display filter; NULL for none */
    struct rs_decode_opts decode;
    uint64_t max_frames;            /* the frame index's bound; 0: RS_TUI_INDEX_MAX_FRAMES
                                       (a test lowers it to reach it) */
    unsigned threads;               /* the ingest's threads: 1, the pipeline on one (and
                                       an indexer beside it); N >= 2, read --threads N's
                                       stages; 0: one per processor this process may run
                                       on (rs_pipeline_threads_available) */
    unsigned search_threads;        /* threads a search (s, n) runs on; 0: one per online
                                       processor, at most 8 */
};

void rs_tui_model_opts_init(struct rs_tui_model_opts *opts);
/* True for a live capture (an interface or an RDMA device). */
bool rs_tui_model_opts_live(const struct rs_tui_model_opts *opts);

struct rs_tui_progress {
    uint64_t frames;        /* indexed so far */
    uint64_t shown;         /* of which the filter passed */
    uint64_t file_done;     /* bytes of the file read */
    uint64_t file_size;
    bool done;              /* the pass reached the end (or failed) */
    uint64_t elapsed_ns;    /* how long the pass took, once done (Wireshark's load time) */
    bool live;              /* capturing: every frame is written to the file, then indexed */
    bool failed;
    char error[RS_ERRBUF_SIZE];
};

/* An expert item: which kind (an index into rs_experts[]) on which frame. */
struct rs_tui_anomaly {
    uint64_t frame;
    uint32_t conv;
    uint16_t expert;
    /* A PSN gap or violation that a live capture's own loss explains: it follows a
     * drop the source counted (kernel, interface or ring), within the drop's count. */
    bool capture_loss;
};

struct rs_tui_model;

/* Opens the file, or starts the live capture and the file it is written to,
 * and starts the ingest thread. Fails on a file that cannot be read back by
 * offset (standard input), a filter that does not compile, or a live source
 * that does not activate (its RS_E* code). */
int rs_tui_model_open(const struct rs_tui_model_opts *opts, struct rs_tui_model **out,
                      char *err);
/* Ends a live capture: stops reading, writes what is buffered, and gives the
 * source's counts and the frames written. The model stays readable, and
 * goes on indexing what was written. */
int rs_tui_model_stop_capture(struct rs_tui_model *m, struct rs_source_stats *stats,
                              uint64_t *written, char *err);
/* A live capture's engine as of its last flush (counts, drops, frames written,
 * and how it ended); false for a file. */
struct rs_capture_status;
bool rs_tui_model_capture_status(struct rs_tui_model *m, struct rs_capture_status *out);
/* The file frames are read back from (for a live capture, the one it is written to). */
const char *rs_tui_model_path(const struct rs_tui_model *m);
/* Stops the ingest thread and frees everything. */
void rs_tui_model_close(struct rs_tui_model *m);

void rs_tui_model_progress(struct rs_tui_model *m, struct rs_tui_progress *out);
/* Waits for the current pass to end (for tests and batch use). */
void rs_tui_model_wait(struct rs_tui_model *m);

/* Replaces the display filter ("" for none) and indexes the file again with
 * it (a live capture goes on writing it meanwhile). A filter that does not
 * compile leaves everything as it was; err then says where it failed. */
int rs_tui_model_set_filter(struct rs_tui_model *m, const char *text, char *err);
/* Checks a filter without applying it. */
int rs_tui_model_check_filter(const char *text, char *err);
/* The filter in force ("" for none). */
const char *rs_tui_model_filter(const struct rs_tui_model *m);

/* The conversation rows as they stand (a copy, to be freed by the caller),
 * only those that carried traffic, sorted by col. */
int rs_tui_model_conv_rows(struct rs_tui_model *m, enum rs_tui_col col, bool descending,
                           struct rs_tui_conv_row **rows, size_t *n, char *err);

/* Frames that passed the filter: how many, and the number of the i-th (from 0). */
uint64_t rs_tui_model_shown_count(struct rs_tui_model *m);
uint64_t rs_tui_model_shown_frame(struct rs_tui_model *m, uint64_t i);
/* The position in the shown list of frame number, or of the first shown frame after
 * it; the count when there is none. */
uint64_t rs_tui_model_shown_find(struct rs_tui_model *m, uint64_t number);
/* A copy of frame number's index entry; false past the end. */
bool rs_tui_model_frame(struct rs_tui_model *m, uint64_t number, struct rs_tui_frame *out);
/* Frames indexed so far (without taking the model's lock). */
uint64_t rs_tui_model_frame_count(struct rs_tui_model *m);

uint64_t rs_tui_model_anomaly_count(struct rs_tui_model *m);
bool rs_tui_model_anomaly(struct rs_tui_model *m, uint64_t i, struct rs_tui_anomaly *out);

/* A frame read back and decoded again: the bytes, the frame and the packet
 * view over them, with what the stateful stages gave it at ingest, so that
 * it prints as `read` printed it. */
struct rs_tui_decoded {
    uint8_t *data;
    size_t cap;
    struct rs_frame frame;
    struct rs_facts facts;
    struct rs_stream_view stream;
    struct rs_iwarp_view iwarp;
    uint8_t *state;                 /* the frame's state record, which iWARP bytes point
                                       into */
    size_t state_cap;
    struct rs_iwarp_pdu *pdus;
    size_t pdus_cap;
    uint32_t *words;                /* the iWARP markers and Send fragments */
    size_t words_cap;
    struct rs_tcp_reasm reasm;      /* the message a TCP segment completes, its bytes in
                                       state */
    uint32_t *segments;             /* and its segments' frames, then lengths */
    size_t segments_cap;
    struct rs_packet pkt;
};

/* Reads frame number from the file and decodes it. d's buffers are reused
 * from call to call; free them with rs_tui_decoded_free. */
int rs_tui_model_decode(struct rs_tui_model *m, uint64_t number, struct rs_tui_decoded *d,
                        char *err);
void rs_tui_decoded_free(struct rs_tui_decoded *d);

/* For frames taken in increasing order (a search, a write): the files read
 * ahead in windows, a few large reads in place of two small ones a frame. */
struct rs_tui_cursor;
int rs_tui_cursor_new(struct rs_tui_cursor **out, char *err);
void rs_tui_cursor_free(struct rs_tui_cursor *c);
/* rs_tui_model_decode through the cursor c, for the frame's row (a search): its CRCs
 * are checked again only where the ingest found one bad, since a row shows only that,
 * and d->pkt.delta_shown is left as the frame's delta (rs_tui_model_delta_shown). */
int rs_tui_model_decode_at(struct rs_tui_model *m, uint64_t number, struct rs_tui_decoded *d,
                           struct rs_tui_cursor *c, char *err);
/* d->pkt.delta_shown (frame.time_delta_displayed, -t dd's column) of frame number, as
 * the filter shown stands: rs_tui_model_decode sets it, a search's rows ask for it. */
void rs_tui_model_delta_shown(struct rs_tui_model *m, uint64_t number, struct rs_tui_decoded *d);

/* A long job's progress (done of total) and a flag that stops it, shared with the
 * screen's thread. */
struct rs_tui_work {
    _Atomic uint64_t done, total;
    _Atomic bool cancel;
};

/* --- What the packet list and the detail pane show of a frame read back --- */

/* The time column of the packet list, as read's -t: col is an enum rs_time_col
 * (print.h). */
struct rs_tui_time_opts {
    uint8_t col;
};

/* The packet list's row: the line `read` prints for the frame (with -t as
 * time says; NULL: relative), without its newline, in *out (to be freed). With -t dd
 * the column is d->pkt.delta_shown (rs_tui_model_delta_shown). */
int rs_tui_row_text(const struct rs_tui_decoded *d, const struct rs_tui_time_opts *time,
                    char **out, char *err);

/* rs_tui_tree_line.node: the frame line, or a line that folds nothing. */
#define RS_TUI_TREE_FRAME 0
#define RS_TUI_TREE_NONE (-1)

/* One line of the detail tree, as `read -V` prints it at depth * 4 spaces. */
struct rs_tui_tree_line {
    int node;               /* what a fold is kept by: RS_TUI_TREE_FRAME, 1 + the field's
                               id, or RS_TUI_TREE_NONE */
    unsigned depth;
    bool is_node;           /* a frame, protocol or header line */
    uint32_t offset, length;/* the frame's bytes it covers; a node of none of its own covers
                               those of its lines */
    size_t text;            /* where its text (ended by a NUL) starts in the tree's text */
    const uint8_t *source;  /* NULL; else offset and length are in these bytes (a message
                               reassembled from several frames, valid while the packet is),
                               which the bytes pane, of the frame, does not show */
};

struct rs_tui_tree {
    struct rs_tui_tree_line *lines;
    size_t n, cap;
    char *text;
};

/* Builds (into t, reused from call to call) the tree of pkt. */
int rs_tui_tree_build(const struct rs_packet *pkt, struct rs_tui_tree *t, char *err);
/* Whether line i has lines under it. */
bool rs_tui_tree_has_children(const struct rs_tui_tree *t, size_t i);
void rs_tui_tree_free(struct rs_tui_tree *t);

/* Finds the next shown packet after position after (wrapping at the end) whose
 * row (the line `read` prints, its time column as time says; NULL: relative)
 * holds text, in any case: 0 with *found its position, RS_ENOENT when none
 * of the *looked packets holds it, RS_ECANCELED when work->cancel stopped it
 * (work may be NULL). */
int rs_tui_model_search(struct rs_tui_model *m, uint64_t after, const char *text,
                        const struct rs_tui_time_opts *time, struct rs_tui_work *work,
                        uint64_t *found, uint64_t *looked, char *err);

/* The numbers of the frames shown (after the filter), as they stand: *numbers to be
 * freed. */
int rs_tui_model_shown_numbers(struct rs_tui_model *m, uint64_t **numbers, size_t *n,
                               char *err);
/* Writes frames numbers[0..n), in that order (the tagged ones, say), to a pcap file;
 * *written gets how many. The file being shown is refused (RS_EINVAL), as Wireshark
 * refuses to save over it. Stopped by work->cancel (RS_ECANCELED), it leaves no file. */
int rs_tui_model_write_frames(struct rs_tui_model *m, const char *path, const uint64_t *numbers,
                              size_t n, struct rs_tui_work *work, uint64_t *written, char *err);
/* Writes the frames shown. */
int rs_tui_model_write_shown(struct rs_tui_model *m, const char *path, uint64_t *written,
                             char *err);

/* A search or a write on a thread of its own, so that the screen never waits for it. */
struct rs_tui_task;
struct rs_tui_task_result {
    int rc;                         /* 0, RS_ENOENT (not found), RS_ECANCELED, or an error */
    uint64_t found;                 /* search: the position found */
    uint64_t looked;                /* search: packets looked at */
    uint64_t written;               /* write: packets written */
    uint64_t elapsed_ns;
    uint64_t stop_ns;               /* from rs_tui_task_cancel to its end (0: not cancelled) */
    uint64_t after_cancel;          /* packets done after rs_tui_task_cancel (0: not
                                     * cancelled): how promptly the flag was seen, in
                                     * work rather than time, which a busy host stretches */
    char err[RS_ERRBUF_SIZE];
};
int rs_tui_task_search(struct rs_tui_model *m, uint64_t after, const char *text,
                       const struct rs_tui_time_opts *time, struct rs_tui_task **out, char *err);
/* Writes numbers[0..n) to path; the task owns numbers (malloc'd) from now on. */
int rs_tui_task_write(struct rs_tui_model *m, const char *path, uint64_t *numbers, size_t n,
                      struct rs_tui_task **out, char *err);
/* Whether it has ended; its progress so far. */
bool rs_tui_task_done(struct rs_tui_task *t, uint64_t *done, uint64_t *total);
/* Asks it to stop (it ends within about a thousand packets) and returns at once. */
void rs_tui_task_cancel(struct rs_tui_task *t);
/* Waits for its end, gives the outcome and frees it. */
void rs_tui_task_finish(struct rs_tui_task *t, struct rs_tui_task_result *out);

/* --- The graph view's model: one conversation over time --- */

struct rs_plot;
struct rs_tui_graph;

int rs_tui_graph_new(struct rs_tui_graph **out, char *err);
void rs_tui_graph_free(struct rs_tui_graph *g);
/* Follows conversation conv (0: none): reads back, and adds to the graph, the
 * frames of conv indexed since the last update (from the start when conv or
 * the filter changed), a bounded slice per call. */
int rs_tui_graph_update(struct rs_tui_graph *g, struct rs_tui_model *m, uint32_t conv,
                        char *err);
/* True when every frame indexed so far has been looked at. */
bool rs_tui_graph_caught_up(const struct rs_tui_graph *g, struct rs_tui_model *m);
/* The PSN/time points (as `plot psn` has them): times in seconds since the
 * first request, PSNs unwrapped from it. */
const struct rs_plot *rs_tui_graph_plot(const struct rs_tui_graph *g);
/* Points dropped from the oldest end: a conversation keeps its newest 200000
 * (RS_TUI_GRAPH_POINTS), and past them loses its oldest half. */
#define RS_TUI_GRAPH_POINTS 200000u
uint64_t rs_tui_graph_dropped(const struct rs_tui_graph *g);
/* Bytes per second (both directions) in each of buckets equal slices of [t0, t1]. */
void rs_tui_graph_throughput(const struct rs_tui_graph *g, double t0, double t1, double *out,
                             unsigned buckets);

/* A canvas of cols x rows cells, each 2 x 4 dots (a braille pattern), and
 * the highest kind drawn in each cell (its colour). */
struct rs_tui_canvas {
    int cols, rows;
    uint8_t *dots;
    uint8_t *kind;
};

int rs_tui_canvas_init(struct rs_tui_canvas *c, int cols, int rows);
void rs_tui_canvas_free(struct rs_tui_canvas *c);
/* Sets dot (x, y), from the top left, x < 2 * cols, y < 4 * rows; outside is ignored. */
void rs_tui_canvas_dot(struct rs_tui_canvas *c, int x, int y, uint8_t kind);
uint8_t rs_tui_canvas_kind(const struct rs_tui_canvas *c, int row, int col);
/* The cell's character, UTF-8 braille (a space when empty), or with utf8
 * false one ASCII mark: ' for dots in the upper half, . in the lower, : both. */
size_t rs_tui_canvas_cell(const struct rs_tui_canvas *c, int row, int col, bool utf8,
                          char out[4]);

/* --- The screens (ncursesw) --- */

/* The smallest terminal the screens are drawn in. */
#define RS_TUI_MIN_COLS 80
#define RS_TUI_MIN_LINES 24

/* --- The Segments view: several points' captures, each packet followed across them --- */

/* One correlated packet (roceshark correlate's view of it), as the Segments view (F8)
 * shows it: 48 bytes, with its Info apart and its part by point in rs_tui_corr.points. */
struct rs_tui_corr_row {
    uint64_t number;                /* its frame number at the point shown (the first) */
    uint64_t number_a;              /* at point A, the file the other views show; 0: A did
                                       not see it */
    uint32_t info;                  /* offset of its Info in rs_tui_corr.text */
    uint32_t shown, n_path;
    int32_t lost_seg, ce_seg;       /* -1: none */
    bool any_missed;
    bool contradiction;
    bool not_told;                  /* missed where the capture recorded drops */
};

/* The rows of every correlated packet, in the order the matcher finished them (by their
 * first sighting), with the run's clocks and counts for the view's heading. Each row's
 * part by point, sized for n_points: the points that saw it and that missed it (masks),
 * its path's delays (INT64_MIN: not both ends) and its path; rs_tui_corr_row_*() read it. */
struct rs_tui_corr {
    unsigned n_points;              /* set before the first row is added */
    const char **files;             /* n_points */
    struct rs_tui_corr_row *rows;
    size_t n, cap;
    uint64_t *points;               /* n rows of rs_tui_corr_point_words(n_points) */
    char *text;                     /* the rows' Info, each ending with a NUL */
    size_t text_len, text_cap;
    struct rs_corr_counts counts;
    struct rs_corr_clock *clock;    /* n_points; freed by rs_tui_corr_free() */
    int64_t window;                 /* ns */
};

/* A row's part by point, in 64-bit words. */
size_t rs_tui_corr_point_words(unsigned n_points);
const uint64_t *rs_tui_corr_row_seen(const struct rs_tui_corr *c, size_t row);
const uint64_t *rs_tui_corr_row_missed(const struct rs_tui_corr *c, size_t row);
const int64_t *rs_tui_corr_row_delays(const struct rs_tui_corr *c, size_t row);
const uint32_t *rs_tui_corr_row_path(const struct rs_tui_corr *c, size_t row);

/* Appends a finished packet's row; RS_ENOMEM when out of memory. */
int rs_tui_corr_add(struct rs_tui_corr *c, const struct rs_corr_view *v, const char *info);
/* The text of row's segment s (0 .. n_path - 2), as the view's column shows it:
 * "A>B 36.0us", "A>B LOST", "A>B CE 36.0us", "" when neither end saw it. */
void rs_tui_corr_segment_text(const struct rs_tui_corr *c, size_t row, unsigned s, char *buf,
                              size_t size);
void rs_tui_corr_free(struct rs_tui_corr *c);

struct rs_tui_run_opts {
    struct rs_tui_model_opts model;
    const struct rs_tui_corr *corr; /* several -r: the Segments view's rows; NULL: none */
    struct rs_tui_nic *nic;         /* the NIC counters view's port (the caller's, opened
                                       with rs_tui_nic_open); NULL: none */
    const char *nic_dev;            /* its device name and port, for the heading */
    unsigned nic_port;
    bool no_color;                  /* --no-color; NO_COLOR in the environment does the same */
    bool (*stop_requested)(void);   /* polled: true quits at once (SIGINT); may be NULL */
};

/* What a live capture did, for its counts on exit. */
struct rs_tui_run_result {
    bool live;
    struct rs_source_stats stats;
    uint64_t written;
    char capture_error[RS_ERRBUF_SIZE];     /* "" when the capture ended well */
};

/* Runs the screens until the user quits. Fails before touching the terminal
 * with RS_EINVAL when standard input or output is not a terminal or is
 * smaller than RS_TUI_MIN_COLS x RS_TUI_MIN_LINES, or with the model's
 * error when the file, the live source or the filter is bad. */
int rs_tui_run(const struct rs_tui_run_opts *opts, struct rs_tui_run_result *result,
               char *err);

#endif /* ROCESHARK_TUI_H */
