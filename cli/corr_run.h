/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corr_run.h - the captures of several points read side by side and fed to the matcher
 * (include/roceshark/dissectors/corr.h): what `correlate`, `plot segments` and `tui`
 * with several -r share.
 *
 * Three steps, each streaming: a probe of each file's first frames gives coarse clocks;
 * an estimating pass, merged on those, fits each clock (offset, drift, bound) and learns
 * each conversation's path; the matching pass, merged on the fitted clocks, calls the
 * sink with each finished packet. A run that prints no frame (no_frames: -q, plot) has
 * the estimating pass spill each point's sightings (corr_spill.h) and matches on those:
 * each capture is then read and decoded once, not twice.
 */
#ifndef ROCESHARK_CLI_CORR_RUN_H
#define ROCESHARK_CLI_CORR_RUN_H

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/corr.h>
#include <roceshark/dissectors/dissect.h>

#include "corr_spill.h"

struct corr_run {
    /* in */
    const char **files;             /* corr_run_add_file() */
    unsigned n_files, files_cap;
    int64_t window;                 /* --window; 0: from the measured delays */
    uint32_t *path;                 /* --path (corr_run_parse_path()), or NULL */
    struct rs_decode_opts decode;
    bool no_frames;                 /* statistics only: the sink gets no frame; the
                                       matching pass reads the spills, not the captures */
    rs_corr_sink *sink;             /* read by corr_run_match() */
    void *ctx;
    /* out: after corr_run_prepare(); every array by point is n_files long, made there */
    struct rs_corr_clock *clock;    /* the fitted clocks */
    struct rs_corr_counts estimated;    /* what the estimating pass counted (its mapped
                                           times span the captures) */
    struct rs_corr *est, *fin;      /* the estimating and the matching pass (made by
                                       corr_run_match()) */
    struct rs_corr_opts match_opts; /* what the matching pass is made with */
    /* what each file's pcapng statistics say its capturer dropped, and when */
    struct rs_corr_drop_span (*drops)[RS_SOURCE_DROP_SPANS];
    const struct rs_corr_drop_span **drops_of;     /* drops[i], for the matcher */
    unsigned *n_drops;
    /* with no_frames: each point's sightings, written by the estimating pass */
    struct corr_spill *spill;
    bool spilling;                  /* every point has its spill */
    /* a pass's merge: each point's source and next frame (or sighting) */
    struct rs_source **src;
    struct rs_frame *head;
    const struct rs_corr_sighting **head_sighting;
    bool *live;
};

/* Defaults: no window, no path, read's decoding without checking CRCs. */
void corr_run_init(struct corr_run *r);
/* -r FILE: the next point. 0, or an exit code after a one-line error (out of memory:
 * points are bounded by memory and open files alone, docs/limits.md). */
int corr_run_add_file(struct corr_run *r, const char *file);
/* The probe and the estimating pass; prints on stderr what a clock could not give.
 * 0, or an exit code after a one-line error. */
int corr_run_prepare(struct corr_run *r);
/* The matching pass: the sink gets each packet. 0, or an exit code after a one-line
 * error. */
int corr_run_match(struct corr_run *r);
void corr_run_free(struct corr_run *r);
/* --window T: "0.1", "100ms", "250us", "2s"; false when not a duration from 1us to 1h. */
bool corr_run_parse_window(const char *arg, int64_t *out);
/* --path A,B,C: each of the n_files points once, into r->path. 0, or an exit code
 * after a one-line error. */
int corr_run_parse_path(struct corr_run *r, const char *arg);

#endif /* ROCESHARK_CLI_CORR_RUN_H */
