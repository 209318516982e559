/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.h - perftest's tests (write_bw, read_bw, send_bw, atomic_bw,
 * send_lat, write_lat, read_lat) and ibv_rc_pingpong's over the software RC
 * transport, with the tools' output.
 *
 * One side serves, the other connects to it over TCP to exchange QP numbers,
 * PSNs, R_Keys and, in our own setup, the test parameters, which the client
 * decides. The connection setup is ours (JSON lines), perftest's or
 * ibv_rc_pingpong's (include/roceshark/dissectors/oob.h), or RDMA CM on QP 1: to our
 * responder (cm://, a client only; `roceshark responder --cm` is the server,
 * which also carries rping's client loop, `perf rping`) or perftest -R's (-R,
 * perftest+cm://, client and server). A client uses what its target names; a
 * TCP server answers in whatever its client speaks, a -R server in perftest
 * -R's protocol. The caller
 * opens the UDP port and the context, fills struct rs_perf's settings, then
 * calls rs_perf_setup(), rs_perf_exchange(), rs_perf_print_header() and
 * rs_perf_run(), and rs_perf_release() at the end whatever happened.
 *
 * Failures return RS_EINVAL (a setting or the peer's test does not fit, or
 * the run was stopped), RS_EIO (the network or the peer failed) or
 * RS_ENOMEM (memory, or the transport refused work), with err filled.
 */
#ifndef ROCESHARK_PERF_H
#define ROCESHARK_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <roceshark/transport/cm.h>
#include <roceshark/dissectors/oob.h>
#include <roceshark/transport/rc.h>

#define RS_PERF_DEFAULT_MR_MAX (256ull << 20)  /* struct rs_perf's mr_max when 0 */
#define RS_PERF_MAX_QPS 16                      /* -q */
#define RS_PERF_ALL_MAX (1u << 23)              /* -a: sizes 2, 4, ... up to 8 MiB */
#define RS_PERF_RESULT_LINE                                                               \
    "---------------------------------------------------------------------------------------\n"

/* What follows the traffic in perftest's exchange, by test. */
enum rs_perf_end {
    RS_PERF_END_REPORT,     /* a handshake, the client's BW report, a closing handshake */
    RS_PERF_END_CLOSE,      /* a closing handshake */
    RS_PERF_END_NONE        /* nothing: each side counts its iterations */
};

struct rs_perf_cm;

struct rs_perf_test {
    const char *name;       /* "write_bw" */
    const char *title;      /* "RDMA_Write BW Test", as perftest titles it */
    bool latency;
    uint8_t opcode;         /* RS_RC_WR_* */
    enum rs_perf_end end;   /* perftest: what the exchange does after it */
    bool pingpong;          /* ibv_rc_pingpong's test */
    bool rping;             /* rping's client loop (librdmacm's example), over RDMA CM */
};

/* The test called name, or NULL. */
const struct rs_perf_test *rs_perf_test_find(const char *name);
/* The names of all tests, separated by ", ". */
const char *rs_perf_test_names(void);

struct rs_perf {
    /* Settings, filled by the caller. */
    const struct rs_perf_test *test;
    bool client, json;
    enum rs_oob_setup setup;        /* client: what --connect named; server: what the client
                                       spoke, or RS_OOB_SETUP_PERFTEST_CM (-R) */
    bool report_gbits;              /* BW in Gb/s (10^9 bits) instead of MB/s (2^20 bytes) */
    uint32_t n_qps;                 /* -q: the test's QPs (0 or 1: one), as perftest's key
                                       exchange repeats for each; bandwidth tests */
    bool duplex;                    /* -b: both sides run the bandwidth test at once */
    bool all_sizes;                 /* -a: every size from 2 bytes to RS_PERF_ALL_MAX */
    bool report_both;               /* --report-both: with -b, each side's row too */
    double duration;                /* -D: seconds of a bandwidth test instead of iterations */
    struct rs_rc_qp_attr attr;      /* pmtu and the QP's timers; the rest is ours */
    bool busy_poll;
    uint8_t local_gid[16];          /* the UDP port's address (IPv4: IPv4-mapped) */
    uint32_t local_scope;           /* its interface, for a link-local address */
    uint8_t server_gid[16];         /* client: the server's address, and its scope */
    uint32_t server_scope;
    uint16_t port;                  /* the TCP exchange */
    uint64_t mr_max;                /* server: the most bytes of regions a client's test may
                                       make us register (0: RS_PERF_DEFAULT_MR_MAX) */
    uint64_t size, iters;           /* rping: -S and -C (0: ping until stopped) */
    bool verbose, validate;         /* rping's -v (print each ping) and -V (compare it) */
    uint32_t tx_depth, rx_depth, qpn, psn;
    FILE *out;                      /* the tables; NULL for stdout */
    bool (*stopped)(void);          /* asked between turns; NULL: never */
    struct rs_rc_udp *udp;
    struct rs_rc_ctx *ctx;

    /* State. */
    struct rs_rc_qp *qp;            /* the test's QP, its first with -q */
    struct rs_rc_qp *more_qps[RS_PERF_MAX_QPS];     /* -q: the others, from [1] */
    struct rs_rc_conn_info more_peers[RS_PERF_MAX_QPS];
    /* buf holds two halves: what we send or read into, then where the peer writes (the
     * VA we advertise); each half has an area of half bytes per QP. An area is at least a
     * page ("cycle buffer"), as perftest's peers walk that far past the VA with messages
     * of up to half a page. */
    uint8_t *buf;
    uint64_t half;
    uint32_t page;          /* the larger page size of the two sides; 0: 4096 */
    struct rs_rc_mr mr;
    uint8_t *rbuf;          /* receive slots of the send tests */
    uint64_t rbuf_len;
    struct rs_rc_mr rmr;
    struct rs_rc_conn_info peer;
    int fd;                 /* the exchange's connection; -1 before */
    uint64_t fd_check_ns;   /* when a turn next looks whether the peer closed it */
    int peer_gone;          /* it did: 0 not yet, 1 ended, else -errno (rs_perf_turn) */
    uint64_t peer_gone_ns;  /* when that was seen */
    unsigned peer_version;  /* perftest's, in hundredths */
    struct rs_oob_dest mine, theirs;    /* perftest's key messages */
    /* RDMA CM (cm://, perftest -R): the engine, the connections, perftest's
     * channel (transport/perf/perf_cm.c). */
    struct rs_perf_cm *cm;
    /* rping (perf_rping.c): the two 16-byte advertisements we send, in a region of
     * their own. */
    uint8_t *rping_msg;
    struct rs_rc_mr rping_mr;
};

/* Registers the buffers the test moves. */
int rs_perf_setup(struct rs_perf *p, char *err);
/* Client: tells the server the test and our QP, learns its QP. Server:
 * waits for one client, takes its size and iterations. Then creates the QP. */
int rs_perf_exchange(struct rs_perf *p, char *err);
void rs_perf_print_header(const struct rs_perf *p);
/* Runs the test: the client measures and reports to the server; both print
 * perftest's table (and, with json, one JSON line). */
int rs_perf_run(struct rs_perf *p, char *err);
/* A client that did its own work on the QP the exchange made (a scenario
 * script's posts) ends the exchange as perftest's or CM's peer expects:
 * perftest's closing steps, with report (NULL: zeros) where the test has
 * one; CM's DREQ and DREP. Nothing for ibv_rc_pingpong's exchange. (Our own
 * side channel's end, the results as JSON, is rs_perf_run()'s.) */
int rs_perf_client_end(struct rs_perf *p, const struct rs_oob_bw_report *report, char *err);
/* Frees what setup and exchange took; the caller closes ctx and udp. */
void rs_perf_release(struct rs_perf *p);

#endif /* ROCESHARK_PERF_H */
