/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf.h - `roceshark perf`, shared by its setup (cmd_perf.c) and its test
 * loops (perf_run.c).
 */
#ifndef ROCESHARK_PERF_H
#define ROCESHARK_PERF_H

#include <stdbool.h>
#include <stdint.h>

#include "rc_cli.h"

#define PERF_RESULT_LINE                                                                  \
    "---------------------------------------------------------------------------------------\n"

struct perf_test_info {
    const char *name;       /* "write_bw" */
    const char *title;      /* "RDMA_Write BW Test", as perftest titles it */
    bool latency;
    uint8_t opcode;         /* RS_RC_WR_* */
};

struct perf {
    struct rc_cli cli;
    const struct perf_test_info *test;
    bool client, json, counters;
    uint8_t server_ip[4];
    uint16_t port;
    uint64_t size, iters;
    uint32_t tx_depth, rx_depth, qpn, psn;
    struct rs_rc_udp *udp;
    struct rs_rc_ctx *ctx;
    struct rs_rc_qp *qp;
    /* buf holds two halves of size bytes: what we send or read into, then
     * where the peer writes (the VA we advertise). */
    uint8_t *buf;
    struct rs_rc_mr mr;
    uint8_t *rbuf;          /* receive slots of the send tests */
    uint64_t rbuf_len;
    struct rs_rc_mr rmr;
    struct rs_rc_conn_info peer;
    int fd;                 /* the side channel */
};

const struct perf_test_info *perf_test_find(const char *name);
int perf_post_recv(struct perf *p, uint32_t slot);
int perf_run_bw(struct perf *p);
int perf_run_lat(struct perf *p);

#endif /* ROCESHARK_PERF_H */
