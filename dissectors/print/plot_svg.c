/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plot_svg.c - collecting a conversation's packets as points and drawing
 * them as a self-contained SVG: requests as dots (retransmissions red, the
 * first packet after a gap orange with the missing PSNs as a bar, CE marks
 * ringed), READ responses green, NAKs black crosses, RNR NAKs purple
 * diamonds, CNPs ticks along the time axis, and the acknowledged PSN as a
 * grey step line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/plot.h>
#include <roceshark/dissectors/wire.h>

#define W 1100
#define H 640
#define LEFT 90
#define RIGHT 200
#define TOP 50
#define BOTTOM 60

static const struct {
    const char *color;
    const char *label;
} kinds[RS_PLOT_KINDS] = {
    [RS_PLOT_REQUEST] = {"#1f5fbf", "request"},
    [RS_PLOT_RETRANSMISSION] = {"#d62728", "retransmission"},
    [RS_PLOT_GAP] = {"#ff8c00", "after a PSN gap"},
    [RS_PLOT_READ_RESPONSE] = {"#2ca02c", "READ response"},
    [RS_PLOT_NAK] = {"#000000", "NAK"},
    [RS_PLOT_RNR] = {"#9467bd", "RNR NAK"},
    [RS_PLOT_CNP] = {"#17becf", "CNP"},
    [RS_PLOT_ECN_CE] = {"#e377c2", "ECN-CE mark"},
};

void
rs_plot_init(struct rs_plot *pl, uint32_t conv, uint32_t qpn)
{
    memset(pl, 0, sizeof(*pl));
    pl->conv = conv;
    pl->qpn = qpn;
}

void
rs_plot_free(struct rs_plot *pl)
{
    free(pl->pts);
    free(pl->acks);
}

static int64_t
unwrap(struct rs_plot *pl, uint32_t psn)
{
    int32_t d = (int32_t)((psn - pl->last_psn) << 8) >> 8;

    pl->last_unwrapped += d;
    pl->last_psn = psn;
    return pl->last_unwrapped;
}

/* Seconds since the first request, exact as a difference and only then in
 * floating point, which is what the drawing needs. */
static double
since_start(const struct rs_plot *pl, struct rs_time t)
{
    return rs_time_to_double(rs_time_sub(t, pl->t0));
}

static void
push_point(struct rs_plot *pl, struct rs_time t, int64_t psn, uint8_t kind, uint32_t extra)
{
    if (pl->n_pts == pl->cap_pts) {
        size_t cap = pl->cap_pts ? pl->cap_pts * 2 : 1024;
        struct rs_plot_point *p = realloc(pl->pts, cap * sizeof(*p));
        if (p == NULL)
            return;
        pl->pts = p;
        pl->cap_pts = cap;
    }
    pl->pts[pl->n_pts++] = (struct rs_plot_point){since_start(pl, t), psn, extra, kind};
}

static void
push_ack(struct rs_plot *pl, struct rs_time t, int64_t psn)
{
    if (pl->n_acks == pl->cap_acks) {
        size_t cap = pl->cap_acks ? pl->cap_acks * 2 : 1024;
        struct rs_plot_ack *a = realloc(pl->acks, cap * sizeof(*a));
        if (a == NULL)
            return;
        pl->acks = a;
        pl->cap_acks = cap;
    }
    pl->acks[pl->n_acks++] = (struct rs_plot_ack){since_start(pl, t), psn};
}

static void
describe(struct rs_plot *pl, const struct rs_packet *pkt)
{
    char a[INET6_ADDRSTRLEN] = "?", b[INET6_ADDRSTRLEN] = "?";

    if (rs_packet_has(pkt, RS_LAYER_IPV4)) {
        inet_ntop(AF_INET, rs_packet_at(pkt, RS_LAYER_IPV4) + 12, a, sizeof(a));
        inet_ntop(AF_INET, rs_packet_at(pkt, RS_LAYER_IPV4) + 16, b, sizeof(b));
    } else if (rs_packet_has(pkt, RS_LAYER_IPV6)) {
        inet_ntop(AF_INET6, rs_packet_at(pkt, RS_LAYER_IPV6) + 8, a, sizeof(a));
        inet_ntop(AF_INET6, rs_packet_at(pkt, RS_LAYER_IPV6) + 24, b, sizeof(b));
    }
    snprintf(pl->title, sizeof(pl->title), "PSN over time: conversation %u, %s to %s QP 0x%06x",
             pl->conv, a, b, rs_bth_destqp(rs_packet_at(pkt, RS_LAYER_BTH)));
}

void
rs_plot_add_packet(struct rs_plot *pl, const struct rs_packet *pkt)
{
    const struct rs_facts *f = pkt->facts;
    const struct rs_ib_opcode *op = rs_ib_opcode_info(pkt->opcode);
    uint32_t psn = rs_bth_psn(rs_packet_at(pkt, RS_LAYER_BTH));
    struct rs_time t = rs_frame_time(pkt->frame);
    bool response = f->flags & RS_FACT_RESPONSE;

    if (!pl->have_base) {
        if (response || (f->flags & RS_FACT_CNP_FOR))
            return;     /* start from the first request */
        pl->have_base = true;
        pl->base_psn = pl->last_psn = psn;
        pl->t0 = t;
        describe(pl, pkt);
    }
    if (f->flags & RS_FACT_CNP_FOR) {
        push_point(pl, t, 0, RS_PLOT_CNP, 0);
        return;
    }
    int64_t y = unwrap(pl, psn);
    if (!response) {
        uint8_t kind = (f->flags & RS_FACT_RETRANSMISSION) ? RS_PLOT_RETRANSMISSION
                       : (f->flags & RS_FACT_PSN_GAP)       ? RS_PLOT_GAP
                                                            : RS_PLOT_REQUEST;
        push_point(pl, t, y, kind, f->psn_gap);
        if (f->flags & RS_FACT_ECN_CE)
            push_point(pl, t, y, RS_PLOT_ECN_CE, 0);
        return;
    }
    if (f->flags & RS_FACT_NAK) {
        push_point(pl, t, y, RS_PLOT_NAK, 0);
        push_ack(pl, t, y - 1);
    } else if (f->flags & RS_FACT_RNR) {
        push_point(pl, t, y, RS_PLOT_RNR, 0);
        push_ack(pl, t, y - 1);
    } else {
        if (op->op == RS_OP_READ_RESP)
            push_point(pl, t, y, RS_PLOT_READ_RESPONSE, 0);
        if (rs_packet_has(pkt, RS_LAYER_AETH))
            push_ack(pl, t, y);
    }
}

/* A tick step of 1, 2 or 5 times a power of ten, about span/6. */
static double
nice_step(double span)
{
    double raw = span / 6, p = 1;

    while (p * 10 <= raw)
        p *= 10;
    while (p > raw && p > 1e-12)
        p /= 10;
    return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

void
rs_plot_svg_grid(FILE *fp, const struct rs_plot_axes *a)
{
    double ts = nice_step(a->xmax), ys = nice_step(a->ymax - a->ymin);
    double span = a->ymax - a->ymin;

    for (double t = 0; t <= a->xmax + ts / 1e6; t += ts) {
        double x = a->left + t / a->xmax * a->pw;
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e6e6e6\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
                x, a->top, x, a->top + a->ph, x, a->top + a->ph + 18, t * a->x_label_scale);
    }
    for (double v = ys * (double)(long long)(a->ymin / ys); v <= a->ymax + ys / 1e6; v += ys) {
        double y = a->top + a->ph - (v - a->ymin) / span * a->ph;
        if (v < a->ymin)
            continue;
        fprintf(fp, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e6e6e6\"/>",
                a->left, y, a->left + a->pw, y);
        if (a->y_signed)
            fprintf(fp, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%+.0f</text>\n",
                    a->left - 6, y + 4, v);
        else
            fprintf(fp, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                    a->left - 6, y + 4, v);
    }
}

int
rs_plot_write_svg(const struct rs_plot *pl, FILE *fp, char *err)
{
    double tmax = 1e-6, ymin = 0, ymax = 1;

    for (size_t i = 0; i < pl->n_pts; i++) {
        const struct rs_plot_point *p = &pl->pts[i];
        if (p->t > tmax)
            tmax = p->t;
        if (p->kind == RS_PLOT_CNP)
            continue;
        ymin = p->psn < ymin ? (double)p->psn : ymin;
        ymax = p->psn > ymax ? (double)p->psn : ymax;
    }
    for (size_t i = 0; i < pl->n_acks; i++)
        if (pl->acks[i].t > tmax)
            tmax = pl->acks[i].t;
    /* A margin inside the frame, so that nothing sits on its edge. */
    double yspan = ymax - ymin;
    tmax *= 1.04;
    ymax += yspan * 0.04 + 0.5;
    ymin -= yspan * 0.02 + 0.5;
    double pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM;
#define X(t) (LEFT + (t) / tmax * pw)
#define Y(v) (TOP + ph - ((v) - ymin) / (ymax - ymin) * ph)
    fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#333333\">\n"
                "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
                "<text x=\"%d\" y=\"28\" font-size=\"15\" font-weight=\"bold\">%s</text>\n",
            W, H, W, H, LEFT, pl->title);
    /* Axes, grid and ticks. */
    rs_plot_svg_grid(fp, &(struct rs_plot_axes){LEFT, TOP, pw, ph, tmax, 1e3, ymin, ymax,
                                                 true});
    fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
                "stroke=\"#333333\"/>\n"
                "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">time since the first request "
                "(ms)</text>\n"
                "<text x=\"20\" y=\"%.0f\" transform=\"rotate(-90 20 %.0f)\" "
                "text-anchor=\"middle\">PSN relative to %u</text>\n",
            LEFT, TOP, pw, ph, LEFT + pw / 2, H - 15, TOP + ph / 2, TOP + ph / 2,
            pl->base_psn);
    /* The acknowledged PSN as a step line. */
    if (pl->n_acks > 0) {
        fputs("<polyline fill=\"none\" stroke=\"#7f7f7f\" stroke-width=\"1.5\" points=\"", fp);
        for (size_t i = 0; i < pl->n_acks; i++) {
            const struct rs_plot_ack *a = &pl->acks[i];
            if (i > 0)
                fprintf(fp, "%.1f,%.1f ", X(a->t), Y((double)pl->acks[i - 1].psn));
            fprintf(fp, "%.1f,%.1f ", X(a->t), Y((double)a->psn));
        }
        fputs("\"/>\n", fp);
    }
    for (size_t i = 0; i < pl->n_pts; i++) {
        const struct rs_plot_point *p = &pl->pts[i];
        double x = X(p->t), y = Y((double)p->psn);
        const char *c = kinds[p->kind].color;
        switch (p->kind) {
        case RS_PLOT_NAK:
            fprintf(fp, "<path d=\"M%.1f %.1fl8 8m0 -8l-8 8\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                    x - 4, y - 4, c);
            break;
        case RS_PLOT_RNR:
            fprintf(fp, "<path d=\"M%.1f %.1fl5 5l-5 5l-5 -5z\" fill=\"%s\"/>\n", x, y - 5, c);
            break;
        case RS_PLOT_CNP:
            fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                        "stroke-width=\"2\"/>\n", x, TOP + ph, x, TOP + ph - 14, c);
            break;
        case RS_PLOT_ECN_CE:
            fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"none\" stroke=\"%s\" "
                        "stroke-width=\"1.5\"/>\n", x, y, c);
            break;
        case RS_PLOT_GAP:
            fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"3\" height=\"%.1f\" fill=\"%s\" "
                        "opacity=\"0.5\"/>\n", x - 1.5, Y((double)p->psn), Y((double)p->psn - p->extra) - Y((double)p->psn), c);
            fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", x, y, c);
            break;
        default:
            fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"/>\n", x, y,
                    p->kind == RS_PLOT_RETRANSMISSION ? "3.5" : "2.2", c);
            break;
        }
    }
    /* Legend. */
    int ly = TOP + 10;
    for (int k = 0; k < RS_PLOT_KINDS; k++, ly += 22)
        fprintf(fp, "<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"%s\"/>"
                    "<text x=\"%d\" y=\"%d\">%s</text>\n",
                W - RIGHT + 20, ly, kinds[k].color, W - RIGHT + 32, ly + 4, kinds[k].label);
    fprintf(fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#7f7f7f\" "
                "stroke-width=\"1.5\"/><text x=\"%d\" y=\"%d\">acknowledged PSN</text>\n"
                "</svg>\n",
            W - RIGHT + 14, ly, W - RIGHT + 26, ly, W - RIGHT + 32, ly + 4);
#undef X
#undef Y
    if (ferror(fp))
        return rs_error(err, RS_EIO, "write error: %s", strerror(errno));
    return 0;
}
