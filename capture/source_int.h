/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source_int.h - what every packet source implements (libpcap's pattern:
 * a private struct behind an ops table, set once the source is active).
 */
#ifndef ROCESHARK_SOURCE_INT_H
#define ROCESHARK_SOURCE_INT_H

#include <stdbool.h>
#include <stdio.h>

#include <roceshark/capture/capture.h>

struct rs_source_ops {
    int (*next)(struct rs_source *src, struct rs_frame *frame, char *err);
    void (*brk)(struct rs_source *src);
    void (*close)(struct rs_source *src);
    int (*stats)(struct rs_source *src, struct rs_source_stats *stats, char *err);
};

struct rs_source {
    const struct rs_source_ops *ops;
    /* Live sources: how to activate; set by create, cleared by activate. */
    int (*activate)(struct rs_source *src, const struct rs_live_opts *opts, char *err);
    int linktype;
    unsigned snaplen;
    bool ts_hardware;       /* timestamps from the NIC's clock */
    bool pcapng;            /* read by source_pcapng.c */
    uint64_t count;         /* frames handed out so far */
    struct rs_time first;   /* time of the first frame, for rel */
    struct rs_time prev;    /* time of the previous frame, for delta */
    uint8_t ts_digits;
    int64_t offset;         /* file offset of the last frame's bytes; -1 unknown */
    uint8_t erf_port_iface[4];  /* ERF records: 1 + the interface number given to each
                                   port, in order of first appearance; 0 unseen */
    uint8_t erf_ifaces;     /* numbers given */
    char name[RS_IFACE_NAME_MAX];
    struct rs_source_drop_span drop_span[RS_SOURCE_DROP_SPANS];    /* pcapng ISBs */
    size_t n_drop_spans;
    void *priv;
};

/* Records an interface's drop count rising by drops in [from_ns, to_ns]. */
void source_add_drop_span(struct rs_source *src, int64_t from_ns, int64_t to_ns,
                          uint64_t drops);

/* The ops of a created but inactive source: every read fails cleanly. */
extern const struct rs_source_ops source_inactive_ops;

/* Allocates a source in the inactive state, named name. */
int source_create(const char *name, struct rs_source **out, char *err);

/* Numbers and relative-times a frame the backend has filled (taking an ERF
 * record's own, finer timestamp when there is one), giving it the source's
 * link type and precision... */
void source_stamp_frame(struct rs_source *src, struct rs_frame *frame);
/* ...or the link type and precision given (a merge of sources: the interface is not kept,
 * each input numbering its own)... */
void source_stamp(struct rs_source *src, struct rs_frame *frame, int linktype,
                  uint8_t ts_digits);
/* ...or only numbers and relative-times it, its link type, precision, interface and section
 * set by the backend (pcapng, whose packet blocks carry the time Wireshark shows even for an
 * ERF record). */
void source_number(struct rs_source *src, struct rs_frame *frame);

/* tshark shows times with the precision the file offers: nanosecond pcap
 * files and ERF records have nine digits, the rest six. */
uint8_t source_ts_digits(int linktype, bool nsec);

/* Opens path when it is a classic pcap file: 1 done, 0 not that format. */
int source_pcap_try(const char *path, struct rs_source *src, char *err);
/* The same for a pcapng file. */
int source_pcapng_try(const char *path, struct rs_source *src, char *err);
/* The same for a pcapng stream already open (a gzip-compressed file or standard input,
 * source_gzip_open()); the source closes fp. */
int source_pcapng_open_stream(const char *path, FILE *fp, struct rs_source *src, char *err);
/* A gzip-compressed file, or standard input (path "-", compressed or not): 1 with *fp a
 * stream of what it holds and *magic its first four bytes as they are stored (to tell
 * pcap from pcapng), 0 when path is not gzip, or an error. */
int source_gzip_open(const char *path, FILE **fp, uint32_t *magic, char *err);

/* Activation of the two live backends (source_live.c, source_verbs.c). */
int source_live_activate(struct rs_source *src, const struct rs_live_opts *opts, char *err);
int source_verbs_activate(struct rs_source *src, const struct rs_live_opts *opts, char *err);

#endif /* ROCESHARK_SOURCE_INT_H */
