/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bridge.h - an RDMA-aware impairment bridge: frames read on one interface
 * with libpcap go out of the other byte for byte (a packet socket), through the
 * fault engine (faults.h) on the way: tc netem between two ports, but with
 * rules that know QPs, opcodes and PSNs. Between two NIC hosts it plays the
 * switch that Lumina-style tests put between them.
 *
 * Direction: what comes in on A and goes out of B is the rules' tx; B to A
 * is rx.
 */
#ifndef ROCESHARK_BRIDGE_H
#define ROCESHARK_BRIDGE_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/inject/faults.h>

struct rs_bridge_opts {
    const char *iface_a, *iface_b;
    struct rs_faults *faults;       /* NULL: plain forwarding */
    const char *write_a, *write_b;  /* pcap files of what came in on each side, or NULL */
    uint64_t count;                 /* stop after this many frames in all (0: no end) */
    bool busy_poll;                 /* spin instead of sleeping: less latency, a whole core */
    bool (*stopped)(void);          /* polled: true ends the run */
    void (*ready)(void *arg);       /* called once both ports are open */
    void *arg;
};

struct rs_bridge_stats {
    uint64_t in[2];                 /* frames read on A, on B */
    uint64_t out[2];                /* frames sent out of A, out of B */
    uint64_t failed;                /* sends that failed */
    uint64_t dropped[2];            /* frames the kernel dropped before A, B read them: its
                                       buffer was full (libpcap's ps_drop) */
};

/* Runs until stopped or count; returns 0, or RS_EIO with err (an interface that
 * cannot be opened or read, a file that cannot be written). */
int rs_bridge_run(const struct rs_bridge_opts *o, struct rs_bridge_stats *st, char *err);

#endif /* ROCESHARK_BRIDGE_H */
