/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sniffer_int.h - the sniffer-QP source, shared by its activation
 * (sniffer_open.c) and its receive ring (sniffer_ring.c).
 */
#ifndef ROCESHARK_VERBS_INT_H
#define ROCESHARK_VERBS_INT_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/encode.h>

#include "source_int.h"

#define VERBS_ERF_HDR RS_ERF_HDR_LEN  /* room before each slot for an ERF record header */
#define VERBS_POLL_BATCH 32     /* completions taken per poll */
#define VERBS_REPOST_BATCH 32   /* receive buffers posted per doorbell */
#define VERBS_ACK_BATCH 64      /* completion events acknowledged at once */
#define VERBS_MIN_SLOTS 16u

enum verbs_clock {
    VERBS_CLOCK_SYSTEM,         /* clock_gettime when the completions are polled */
    VERBS_CLOCK_WALLCLOCK,      /* the NIC's real-time clock, in nanoseconds */
    VERBS_CLOCK_RAW             /* the NIC's free-running counter, scaled by hca_core_clock */
};

struct verbs_completion {
    uint32_t slot;
    uint32_t len;
    int status;                 /* enum ibv_wc_status */
    int64_t ns;                 /* time, nanoseconds since the epoch */
};

struct verbs_source {
    /* Resources, in the order they are acquired. */
    int break_fd;               /* eventfd that rs_source_break writes */
    struct ibv_context *ctx;
    struct ibv_comp_channel *channel;
    struct ibv_pd *pd;
    uint8_t *buf;
    struct ibv_mr *mr;
    struct ibv_cq_ex *cq;
    struct ibv_qp *qp;
    struct ibv_flow *flow;

    uint8_t port;
    bool ib_link;               /* InfiniBand: frames are wrapped in ERF type 21 records */
    enum verbs_clock clock;
    uint64_t core_clock_khz;    /* VERBS_CLOCK_RAW */
    uint64_t ts_mask;
    bool anchored;              /* VERBS_CLOCK_RAW: the first completion fixes the offset */
    uint64_t anchor_ts;
    int64_t anchor_ns;

    /* The ring: slots of slot_size bytes, each receiving at +VERBS_ERF_HDR. */
    uint32_t slots;
    uint32_t slot_size;
    uint32_t recv_len;
    struct ibv_recv_wr *wr;
    struct ibv_sge *sge;
    uint32_t *repost;           /* slots waiting to go back to the NIC */
    uint32_t n_repost;
    uint32_t repost_batch;      /* VERBS_REPOST_BATCH, less for a small ring */
    int64_t held;               /* slot of the frame last handed out, -1 none */

    struct verbs_completion batch[VERBS_POLL_BATCH];
    int batch_n, batch_pos;
    bool armed;                 /* completion notification requested */
    unsigned unacked;           /* completion events not yet acknowledged */
    bool draining;              /* broken: empty the CQ, then end */
    bool report_idle;
    int idle_ms;

    uint64_t failed;            /* completions with an error status */
    uint64_t oob_base;          /* the port's out_of_buffer counter at start */
    char oob_path[160];
};

extern const struct rs_source_ops verbs_ops;

/* Releases everything acquired, in the safe order: flow, QP, CQ (after
 * acknowledging its events), MR, PD, channel, device. */
void verbs_teardown(struct verbs_source *vs);

/* Posts every slot of the ring (at activation). */
int verbs_post_all(struct rs_source *src, char *err);

/* Reads a sysfs counter; false when it is not there. */
bool verbs_read_counter(const char *path, uint64_t *out);

#endif /* ROCESHARK_VERBS_INT_H */
