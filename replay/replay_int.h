/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_int.h - what the replay's two modes share: the capture of the wire
 * between us and the target.
 */
#ifndef ROCESHARK_REPLAY_INT_H
#define ROCESHARK_REPLAY_INT_H

#include <stdatomic.h>

#include <string.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/capture/capture.h>
#include <roceshark/replay/replay.h>

struct replay_capture {
    struct rs_source *src;      /* NULL: nothing is captured */
    GThread *thread;
    GByteArray *frames;         /* struct replay_rec and the bytes, frame after frame */
    uint64_t count;
    bool want_requests;         /* keep the peer's requests, not its responses */
    atomic_uint_fast64_t last_ns;   /* CLOCK_MONOTONIC of the last frame; 0 none */
    /* --until-answered: the peer's responses are looked at as they come, so that the
     * linger ends at one at or past last_psn (the PSN of the capture's last response), or
     * at a NAK that ends the QP. */
    bool until_answered;
    uint32_t last_psn;
    const struct rs_replay_rewrite *rw;
    struct rs_decode_opts dopts;
    atomic_uint_fast64_t answers;   /* the peer's responses */
    atomic_bool answered, refused;
    int rc;
    char err[RS_ERRBUF_SIZE];
};

/* Starts capturing the frames between rw's src and dst on iface (NULL: c captures
 * nothing, and finishing it only counts). With last_psn not NULL the linger of finishing
 * ends as soon as the peer sends a response at or past *last_psn (ACKs coalesce), or a NAK
 * after which an RC responder answers no more (any but a PSN sequence error's); dopts
 * decodes them. */
int replay_capture_start(const struct rs_replay_trace *trace, const struct rs_replay_rewrite *rw,
                         const char *iface, const uint32_t *last_psn,
                         const struct rs_decode_opts *dopts, struct replay_capture *c,
                         char *err);
/* Waits until the wire has been quiet for opts->linger_ns (or the last answer is in),
 * stops, writes -w, and hands
 * what the peer (rw's dst) sent to got: its responses, or its requests with
 * want_requests (see rs_replay_run_packets). Frees what c holds. */
int replay_capture_finish(struct replay_capture *c, const struct rs_replay_rewrite *rw,
                          const struct rs_replay_run_opts *opts,
                          const struct rs_decode_opts *dopts, GArray *got,
                          GByteArray *got_bytes, struct rs_replay_run_stats *stats, char *err);

/* Where the trace's RETHs and AtomicETHs reach: the lowest VA they name (UINT64_MAX:
 * none), the end past the highest (an atomic's 8 bytes), and the first R_Key. */
struct replay_remote {
    uint64_t lowest, end;
    uint32_t rkey;
};
struct replay_remote replay_remote_of(const struct rs_replay_trace *trace);

/* v through maps: the first entry from v, or v itself. */
uint32_t replay_map(const struct rs_replay_map *maps, unsigned n, uint32_t v);

/* Walks a[0..na) beside b[0..nb): pair(a, b) for each pair that match() aligns or that
 * differ in place, pair(a, REPLAY_NONE) for one only a has, pair(REPLAY_NONE, b) for one only
 * b has, in order. */
#define REPLAY_NONE ((size_t)-1)
void replay_align(size_t na, size_t nb, size_t look_ahead,
                  bool (*match)(void *ctx, size_t a, size_t b),
                  void (*pair)(void *ctx, size_t a, size_t b), void *ctx);

/* pkt comes from rw's dst: the target, or the requester served (RoCEv1: any). */
struct rs_packet;
bool replay_from_peer(const struct rs_packet *pkt, const struct rs_replay_rewrite *rw);

/* Sleeps until CLOCK_MONOTONIC reads t nanoseconds. */
void replay_sleep_until(uint64_t t);

#endif /* ROCESHARK_REPLAY_INT_H */
