/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plot.h - the points of a PSN/time graph and their SVG rendering.
 */
#ifndef ROCESHARK_PLOT_H
#define ROCESHARK_PLOT_H

#include <stdint.h>
#include <stdio.h>

#include <roceshark/packet.h>

enum point_kind {
    PT_REQUEST,         /* a new request */
    PT_RETRANSMISSION,
    PT_GAP,             /* a request after missing PSNs */
    PT_READ_RESPONSE,
    PT_NAK,
    PT_RNR,
    PT_CNP,
    PT_ECN_CE,          /* a request marked Congestion Experienced */
    PT_KINDS
};

struct point {
    double t;           /* seconds since the first request */
    int64_t psn;        /* unwrapped, relative to the first request */
    uint32_t extra;     /* gap size */
    uint8_t kind;
};

struct ack_point {
    double t;
    int64_t psn;
};

struct plot {
    uint32_t conv, qpn;
    char title[160];
    struct rs_time t0;      /* the first request's time */
    bool have_base;
    uint32_t base_psn;      /* the first request's PSN */
    int64_t last_unwrapped;
    uint32_t last_psn;
    struct point *pts;
    size_t n_pts, cap_pts;
    struct ack_point *acks;
    size_t n_acks, cap_acks;
};

void plot_init(struct plot *pl, uint32_t conv, uint32_t qpn);
void plot_add_packet(struct plot *pl, const struct rs_packet *pkt);
int plot_write_svg(const struct plot *pl, FILE *fp, char *err);
void plot_free(struct plot *pl);

#endif /* ROCESHARK_PLOT_H */
