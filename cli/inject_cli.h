/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inject_cli.h - the parts of `roceshark inject`: the options (cmd_inject.c), the packets
 * and their sending (inject_packets.c), scripts and suites (inject_scripts.c).
 */
#ifndef ROCESHARK_CLI_INJECT_CLI_H
#define ROCESHARK_CLI_INJECT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <roceshark/inject/inject.h>
#include <roceshark/inject/script.h>

#define MAX_TEMPLATES 4096

struct inject_opts {
    const char *file, *spec_file, *iface;
    const char *script, *suite, *bind, *target, *junit, *target_file, *reset;
    uint64_t linger_ns;
    struct rs_rc_conn_info target_info;
    bool udp, pcapng, seeded, no_raw;
    unsigned long long count, loop, psn_step, pps, gap_us, duration, seed;
    double mbps;
    struct rs_inject_packet *pkts;      /* the templates, in order */
    size_t n_pkts;
};

/* inject_packets.c: the words of the command line, then (with -F) each line of the file
 * on top of them, into io->pkts; 0 or the exit code, reported. */
int inject_read_packets(struct inject_opts *io, int argc, char **argv, int first);
/* -i: the interface's MAC and the neighbour's, where the spec did not give them. */
int inject_iface_macs(const struct inject_opts *io);
int inject_open_sender(const struct inject_opts *io, struct rs_inject_sender **s);

/* The pacing: when the next packet is due, in nanoseconds since the start. */
struct pacer {
    struct timespec t0;
    double due_ns;
    bool on;
};

/* Waits until the packet of len bytes is due, then moves the due time on. */
void inject_pace(struct pacer *pc, const struct inject_opts *io, uint32_t len);

/* inject_scripts.c: --script (TAP lines and their count, JUnit XML; exit 6 when an
 * expectation failed) and --suite DIR. */
int inject_run_script(const struct inject_opts *io);
int inject_run_suite(const struct inject_opts *io);

#endif /* ROCESHARK_CLI_INJECT_CLI_H */
