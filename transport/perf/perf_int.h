/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_int.h - what the session (perf_session.c) and the loops
 * (perf_run.c) share.
 */
#ifndef ROCESHARK_PERF_INT_H
#define ROCESHARK_PERF_INT_H

#include <roceshark/transport/perf.h>

/* The test's QPs (-q; at least one), QP i, and its peer. */
static inline uint32_t
rs_perf_n_qps(const struct rs_perf *p)
{
    return p->n_qps > 1 ? p->n_qps : 1;
}
static inline struct rs_rc_qp *
rs_perf_qp(const struct rs_perf *p, uint32_t i)
{
    return i == 0 ? p->qp : p->more_qps[i];
}
static inline struct rs_rc_conn_info *
rs_perf_peer(struct rs_perf *p, uint32_t i)
{
    return i == 0 ? &p->peer : &p->more_peers[i];
}
/* QP i's areas: what it sends (or reads into), and what its peer writes (or reads). */
static inline uint8_t *
rs_perf_send_area(const struct rs_perf *p, uint32_t i)
{
    return p->buf + (uint64_t)i * p->half;
}
static inline uint8_t *
rs_perf_peer_area(const struct rs_perf *p, uint32_t i)
{
    return p->buf + (uint64_t)(rs_perf_n_qps(p) + i) * p->half;
}

/* The largest message of the run: -s, or with -a the last size; a receive slot's size. */
static inline uint64_t
rs_perf_largest(const struct rs_perf *p)
{
    return p->all_sizes && p->size < RS_PERF_ALL_MAX ? RS_PERF_ALL_MAX : p->size;
}

/* Posts receive slot (of size bytes) again; slots are numbered across the QPs, rx_depth
 * each. */
int rs_perf_post_recv(struct rs_perf *p, uint32_t slot, char *err);
/* Posts opcode from our buffer to the peer's region, as the tests do (on QP 0, or QP i). */
int rs_perf_post_op(struct rs_perf *p, uint8_t opcode, uint64_t wr_id, unsigned flags,
                    char *err);
int rs_perf_post_op_on(struct rs_perf *p, uint32_t i, uint8_t opcode, uint64_t wr_id,
                       unsigned flags, char *err);
/* One turn of the event loop (packets, timers, sends), waiting up to wait_ns; RS_EINVAL
 * once the run is stopped. */
int rs_perf_turn(struct rs_perf *p, uint64_t wait_ns, char *err);
/* Runs the transport (the peer's requests answered, ours retried) until the exchange's
 * descriptor has something to read: the wait for a peer still running its test. */
int rs_perf_serve_until_readable(struct rs_perf *p, char *err);
/* "work request N completed with STATUS" */
int rs_perf_wc_failed(const struct rs_rc_wc *wc, char *err);
/* Sends the ACK held back for the peer's last request now: after the loop nothing runs
 * the transport while the exchange's end waits on TCP. */
void rs_perf_ack_last(struct rs_perf *p);
/* Prints header and rows (unless header is NULL: printed as they came), the table's last
 * line and with --json the JSON line; the client then tells the server: our closing line
 * and the rows, or perftest's end of exchange (with the BW report when there is one). */
int rs_perf_finish(struct rs_perf *p, const char *header, const char *rows, const char *json,
                   const struct rs_oob_bw_report *report, char *err);
/* The server of our own exchange: reads our client's closing lines, which come once it
 * is done with the QPs (their last requests answered). */
void rs_perf_read_client_end(struct rs_perf *p);
/* A server that only serves (bandwidth tests, read_lat, atomic_lat) until the client's
 * end, then prints what perftest's server prints, or our client's row. */
int rs_perf_serve(struct rs_perf *p, char *err);

/* The bandwidth tests (perf_bw.c): -q's QPs, -b, -a, --report-both. */
int rs_perf_bw_run(struct rs_perf *p, char *err);
const char *rs_perf_bw_header(const struct rs_perf *p);
void rs_perf_bw_row(const struct rs_perf *p, const struct rs_oob_bw_report *r, char *row,
                    size_t size);

/* The latency tests (perf_lat.c), in perftest's order, and their table's header. */
int rs_perf_lat_run(struct rs_perf *p, char *err);
const char *rs_perf_lat_header(void);
/* The pings run before the measured ones (none against perftest). */
uint64_t rs_perf_lat_warmup(const struct rs_perf *p);

/* The bytes of regions a test of size bytes makes us register: the two halves and the
 * send tests' receive slots. */
uint64_t rs_perf_region_bytes(const struct rs_perf *p, uint64_t size);
/* Registers the buffers again after the size or the page changed. */
int rs_perf_resetup(struct rs_perf *p, char *err);
/* Our QP i, region and the area the peer writes or reads, as the side channel carries
 * them. */
void rs_perf_our_info(const struct rs_perf *p, struct rs_rc_conn_info *info);
void rs_perf_our_info_of(const struct rs_perf *p, uint32_t i, struct rs_rc_conn_info *info);
/* Creates the QPs towards their peers (and posts the send tests' receives). */
int rs_perf_create_qp(struct rs_perf *p, char *err);
/* Posts the send tests' receives on every QP again, for a new size (-a). */
int rs_perf_post_all_recvs(struct rs_perf *p, char *err);

/* perftest's exchange (perf_perftest.c), on p->fd: up to the traffic, and
 * after it (mine: the client's results; server: what to print). */
int rs_perf_perftest_exchange(struct rs_perf *p, char *err);
int rs_perf_perftest_end(struct rs_perf *p, const struct rs_oob_bw_report *mine,
                         struct rs_oob_bw_report *theirs, char *err);
/* One more key message each way: perftest's barrier between the steps of -a and -b. */
int rs_perf_perftest_sync(struct rs_perf *p, char *err);
/* -b: both sides' BW reports, each way (perftest's xchg_bw_reports()). */
int rs_perf_perftest_reports(struct rs_perf *p, const struct rs_oob_bw_report *mine,
                             struct rs_oob_bw_report *theirs, char *err);
/* Our own exchange's barrier (-a, -b): a line each way. */
int rs_perf_side_sync(struct rs_perf *p, const char *what, char *err);
/* perftest's exchange over TCP or, with -R, over RDMA CM. */
static inline bool
rs_perf_is_perftest(const struct rs_perf *p)
{
    return p->setup == RS_OOB_SETUP_PERFTEST || p->setup == RS_OOB_SETUP_PERFTEST_CM;
}

/* The connection's end once the exchange has ended, by its setup: perftest -R's DREQs
 * (either side), cm://'s DREQ (the client). */
int rs_perf_disconnect(struct rs_perf *p, char *err);
/* RDMA CM (perf_cm.c). cm://: REQ, REP, RTU and the QP; DREQ and DREP. */
int rs_perf_cm_connect(struct rs_perf *p, char *err);
int rs_perf_cm_disconnect(struct rs_perf *p, char *err);
/* cm:// under a client loop of its own (rping): the CM's timers, and NULL while the
 * connection is up, else "ended" (the server's DREQ) or "lost"; a DREQ not waited for. */
const char *rs_perf_cm_progress(struct rs_perf *p);
void rs_perf_cm_abort(struct rs_perf *p);
/* perftest -R: the channel's connection (client: REQ; server: waits for
 * one), the steps over it (in perftest's order: the client sends first), the
 * test QP's connection (a server accepts it only after rs_perf_cm_listen()),
 * and the disconnects at the end. */
int rs_perf_cm_chan_open(struct rs_perf *p, char *err);
int rs_perf_cm_chan_xchg(struct rs_perf *p, const void *mine, void *theirs, size_t n,
                         const char *what, char *err);
/* True once a message of the client waits on the channel (or it failed). */
bool rs_perf_cm_chan_ready(struct rs_perf *p);
void rs_perf_cm_listen(struct rs_perf *p);
int rs_perf_cm_test_connect(struct rs_perf *p, char *err);
int rs_perf_cm_close(struct rs_perf *p, char *err);
/* Frees the engine and the channel (either protocol). */
void rs_perf_cm_release(struct rs_perf *p);
/* ibv_rc_pingpong's exchange (perf_pingpong.c). */
int rs_perf_pingpong_exchange(struct rs_perf *p, char *err);
void rs_perf_pingpong_header(const struct rs_perf *p);
int rs_perf_pingpong_run(struct rs_perf *p, char *err);

/* rping's client loop (perf_rping.c), once CM has connected; the region it took. */
int rs_perf_rping_run(struct rs_perf *p, char *err);
void rs_perf_rping_release(struct rs_perf *p);

#endif /* ROCESHARK_PERF_INT_H */
