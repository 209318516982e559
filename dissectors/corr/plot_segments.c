/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plot_segments.c - `plot segments`: each segment's one-way delay over time, with its
 * losses and CE marks, drawn as one panel per segment of a self-contained SVG.
 *
 * Packets are gathered in bins of time (per bin: count, least, largest and mean delay,
 * losses, CE marks), not kept one by one: the picture has no more columns than bins, and
 * memory stays the same whatever the captures' length. A bin draws its delays as a bar
 * from the least to the largest with a dot at the mean; a loss is a red triangle on the
 * panel's top edge, a CE mark an orange tick on its bottom edge.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/corr.h>
#include <roceshark/dissectors/plot.h>

#define W 1100
#define LEFT 90
#define RIGHT 190
#define PANEL_H 170
#define PANEL_GAP 62

struct plot_bin {
    uint32_t n, lost, ce;
    int64_t min, max;               /* ns */
    double sum;
};

struct plot_seg {
    uint64_t n, lost, ce;
    int64_t min, max;
    struct plot_bin bin[RS_CORR_PLOT_BINS];
};

struct rs_corr_plot {
    int64_t from, to;
    unsigned n_points;
    /* by from * n_points + to: a pointer per ordered pair of points, the segment's bins
     * (some 23 KB) made when a packet first crosses it */
    struct plot_seg **seg;
};

int
rs_corr_plot_new(unsigned n_points, int64_t from, int64_t to, struct rs_corr_plot **out)
{
    struct rs_corr_plot *pl = calloc(1, sizeof(*pl));

    if (pl == NULL)
        return RS_ENOMEM;
    pl->n_points = n_points;
    pl->seg = calloc((size_t)n_points * n_points, sizeof(*pl->seg));
    if (pl->seg == NULL) {
        free(pl);
        return RS_ENOMEM;
    }
    pl->from = from;
    pl->to = to > from ? to : from + 1;
    *out = pl;
    return 0;
}

void
rs_corr_plot_free(struct rs_corr_plot *pl)
{
    if (pl == NULL)
        return;
    for (size_t i = 0; i < (size_t)pl->n_points * pl->n_points; i++)
        free(pl->seg[i]);
    free(pl->seg);
    free(pl);
}

static struct plot_bin *
bin_at(struct rs_corr_plot *pl, unsigned from, unsigned to, int64_t t, struct plot_seg **segp)
{
    struct plot_seg **sp = &pl->seg[(size_t)from * pl->n_points + to];

    if (*sp == NULL && (*sp = calloc(1, sizeof(**sp))) == NULL)
        return NULL;    /* out of memory: the segment goes undrawn */
    double x = (double)(t - pl->from) / (double)(pl->to - pl->from) * RS_CORR_PLOT_BINS;
    long b = x < 0 ? 0 : x >= RS_CORR_PLOT_BINS ? RS_CORR_PLOT_BINS - 1 : (long)x;
    *segp = *sp;
    return &(*sp)->bin[b];
}

void
rs_corr_plot_add(struct rs_corr_plot *pl, const struct rs_corr_view *v)
{
    for (unsigned s = 0; s + 1 < v->n_path; s++) {
        unsigned a = v->path[s], b = v->path[s + 1];
        if (a >= pl->n_points || b >= pl->n_points)
            continue;
        bool lost = v->lost_seg == (int)s, ce = v->ce_seg == (int)s;
        if (!v->both[s] && !lost)
            continue;
        struct plot_seg *seg;
        struct plot_bin *bin = bin_at(pl, a, b, v->t[a], &seg);
        if (bin == NULL)
            continue;
        if (lost) {
            bin->lost++;
            seg->lost++;
            continue;
        }
        int64_t d = v->delay[s];
        if (bin->n == 0 || d < bin->min)
            bin->min = d;
        if (bin->n == 0 || d > bin->max)
            bin->max = d;
        if (seg->n == 0 || d < seg->min)
            seg->min = d;
        if (seg->n == 0 || d > seg->max)
            seg->max = d;
        bin->n++;
        bin->sum += (double)d;
        seg->n++;
        bin->ce += ce;
        seg->ce += ce;
    }
}

static void
draw_panel(const struct rs_corr_plot *pl, const struct plot_seg *seg, unsigned a, unsigned b,
           int top, FILE *fp)
{
    double span_s = (double)(pl->to - pl->from) / 1e9;
    double ymin = seg->n > 0 && seg->min < 0 ? (double)seg->min / 1e3 : 0;
    double ymax = seg->n > 0 ? (double)seg->max / 1e3 : 1;
    double pw = W - LEFT - RIGHT, ph = PANEL_H;

    if (ymax <= ymin)
        ymax = ymin + 1;
    ymax += (ymax - ymin) * 0.08;
#define X(bin) (LEFT + ((double)(bin) + 0.5) / RS_CORR_PLOT_BINS * pw)
#define Y(us) (top + ph - ((us) - ymin) / (ymax - ymin) * ph)
    fprintf(fp, "<g class=\"segment\" data-segment=\"%s>%s\" data-packets=\"%llu\" "
                "data-lost=\"%llu\" data-ce=\"%llu\">\n"
                "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s&#8594;%s: %llu packets "
                "both saw, %llu lost, %llu CE marked; delay %.1f to %.1f us</text>\n",
            rs_corr_point_name(a).s, rs_corr_point_name(b).s, (unsigned long long)seg->n,
            (unsigned long long)seg->lost, (unsigned long long)seg->ce, LEFT, top - 8,
            rs_corr_point_name(a).s, rs_corr_point_name(b).s, (unsigned long long)seg->n,
            (unsigned long long)seg->lost, (unsigned long long)seg->ce,
            seg->n > 0 ? (double)seg->min / 1e3 : 0, seg->n > 0 ? (double)seg->max / 1e3 : 0);
    rs_plot_svg_grid(fp, &(struct rs_plot_axes){LEFT, top, pw, ph, span_s, 1, ymin, ymax,
                                                 false});
    fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
                "stroke=\"#333333\"/>\n"
                "<text x=\"20\" y=\"%.0f\" transform=\"rotate(-90 20 %.0f)\" "
                "text-anchor=\"middle\">delay (us)</text>\n",
            LEFT, top, pw, ph, top + ph / 2, top + ph / 2);
    for (unsigned i = 0; i < RS_CORR_PLOT_BINS; i++) {
        const struct plot_bin *bn = &seg->bin[i];
        double x = X(i);
        if (bn->n > 0) {
            double lo = (double)bn->min / 1e3, hi = (double)bn->max / 1e3;
            fprintf(fp, "<line class=\"delay\" data-count=\"%u\" x1=\"%.1f\" y1=\"%.1f\" "
                        "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#9ecae1\" stroke-width=\"1.2\"/>"
                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.8\" fill=\"#1f5fbf\"/>\n",
                    bn->n, x, Y(lo), x, Y(hi) - (hi > lo ? 0 : 1), x,
                    Y(bn->sum / bn->n / 1e3));
        }
        if (bn->lost > 0)
            fprintf(fp, "<path class=\"lost\" data-count=\"%u\" d=\"M%.1f %dl4.5 0l-4.5 8"
                        "l-4.5 -8z\" fill=\"#d62728\"><title>%u lost</title></path>\n",
                    bn->lost, x, top + 1, bn->lost);
        if (bn->ce > 0)
            fprintf(fp, "<rect class=\"ce\" data-count=\"%u\" x=\"%.1f\" y=\"%.1f\" "
                        "width=\"2\" height=\"9\" fill=\"#ff8c00\"><title>%u CE marked"
                        "</title></rect>\n", bn->ce, x - 1, top + ph - 10, bn->ce);
    }
    fputs("</g>\n", fp);
#undef X
#undef Y
}

int
rs_corr_plot_write_svg(const struct rs_corr_plot *pl, const char *const *names,
                       unsigned n_points, FILE *fp, char *err)
{
    unsigned n = 0;

    for (size_t i = 0; i < (size_t)pl->n_points * pl->n_points; i++)
        n += pl->seg[i] != NULL;
    int head = 44 + 16 * (int)n_points;
    int h = head + (int)(n > 0 ? n : 1) * (PANEL_H + PANEL_GAP) + 30;   /* the last tick labels */
    fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\" "
                "fill=\"#333333\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
                "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">One-way delay "
                "per segment over time (s since the first packet, on A's clock)</text>\n",
            W, h, W, h, LEFT);
    for (unsigned p = 0; p < n_points; p++) {
        fprintf(fp, "<text x=\"%d\" y=\"%d\">%s: ", LEFT, 44 + 16 * (int)p,
                rs_corr_point_name(p).s);
        for (const char *c = names[p]; *c != '\0'; c++)
            fputs(*c == '<' ? "&lt;" : *c == '&' ? "&amp;" : (char[2]){*c, '\0'}, fp);
        fputs("</text>\n", fp);
    }
    /* The legend, once, right of the first panel. */
    int lx = W - RIGHT + 16, ly = head + PANEL_GAP - 20;
    fprintf(fp, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#9ecae1\" "
                "stroke-width=\"3\"/><text x=\"%d\" y=\"%d\">least to largest delay</text>\n"
                "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"#1f5fbf\"/><text x=\"%d\" "
                "y=\"%d\">mean delay</text>\n"
                "<path d=\"M%d %dl5 0l-5 9l-5 -9z\" fill=\"#d62728\"/><text x=\"%d\" "
                "y=\"%d\">lost on the segment</text>\n"
                "<rect x=\"%d\" y=\"%d\" width=\"3\" height=\"10\" fill=\"#ff8c00\"/>"
                "<text x=\"%d\" y=\"%d\">CE marked on it</text>\n",
            lx, ly - 6, lx, ly + 6, lx + 12, ly + 4, lx, ly + 22, lx + 12, ly + 26, lx,
            ly + 40, lx + 12, ly + 48, lx - 1, ly + 62, lx + 12, ly + 70);
    int top = head + PANEL_GAP;
    for (unsigned a = 0; a < pl->n_points; a++)
        for (unsigned b = 0; b < pl->n_points; b++) {
            const struct plot_seg *seg = pl->seg[(size_t)a * pl->n_points + b];
            if (seg == NULL)
                continue;
            draw_panel(pl, seg, a, b, top, fp);
            top += PANEL_H + PANEL_GAP;
        }
    if (n == 0)
        fprintf(fp, "<text x=\"%d\" y=\"%d\">No packet was seen at two points.</text>\n",
                LEFT, top);
    fputs("</svg>\n", fp);
    if (ferror(fp))
        return rs_error(err, RS_EIO, "write error: %s", strerror(errno));
    return 0;
}
