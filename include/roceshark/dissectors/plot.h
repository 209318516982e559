/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plot.h - the points of a PSN/time graph and their SVG rendering.
 */
#ifndef ROCESHARK_PLOT_H
#define ROCESHARK_PLOT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <roceshark/dissectors/packet.h>

enum rs_plot_kind {
    RS_PLOT_REQUEST,         /* a new request */
    RS_PLOT_RETRANSMISSION,
    RS_PLOT_GAP,             /* a request after missing PSNs */
    RS_PLOT_READ_RESPONSE,
    RS_PLOT_NAK,
    RS_PLOT_RNR,
    RS_PLOT_CNP,
    RS_PLOT_ECN_CE,          /* a request marked Congestion Experienced */
    RS_PLOT_KINDS
};

struct rs_plot_point {
    double t;           /* seconds since the first request */
    int64_t psn;        /* unwrapped, relative to the first request */
    uint32_t extra;     /* gap size */
    uint8_t kind;
};

struct rs_plot_ack {
    double t;
    int64_t psn;
};

struct rs_plot {
    uint32_t conv, qpn;
    char title[160];
    struct rs_time t0;      /* the first request's time */
    bool have_base;
    uint32_t base_psn;      /* the first request's PSN */
    int64_t last_unwrapped;
    uint32_t last_psn;
    struct rs_plot_point *pts;
    size_t n_pts, cap_pts;
    struct rs_plot_ack *acks;
    size_t n_acks, cap_acks;
};

void rs_plot_init(struct rs_plot *pl, uint32_t conv, uint32_t qpn);
void rs_plot_add_packet(struct rs_plot *pl, const struct rs_packet *pkt);
int rs_plot_write_svg(const struct rs_plot *pl, FILE *fp, char *err);
void rs_plot_free(struct rs_plot *pl);
/* The grid and tick labels of a plot's frame at (left, top), pw by ph: time from 0 to
 * xmax (labelled in units of x_label_scale: 1e3 for ms) and values from ymin to ymax
 * (labelled with a sign when y_signed), at steps of 1, 2 or 5 times a power of ten (plot
 * psn's and plot segments' panels). */
struct rs_plot_axes {
    double left, top, pw, ph;
    double xmax, x_label_scale;
    double ymin, ymax;
    bool y_signed;
};
void rs_plot_svg_grid(FILE *fp, const struct rs_plot_axes *a);

#endif /* ROCESHARK_PLOT_H */
