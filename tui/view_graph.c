/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_graph.c - the selected conversation over time, live: request PSNs
 * against time in braille dots (retransmissions and gaps amber, NAKs and
 * RNR NAKs red, CNPs and CE marks blue, acknowledgements and READ responses
 * green), as `roceshark plot psn` draws them in SVG, and below it the
 * conversation's throughput in block characters on the same time axis.
 * Up and Down move to the previous or next conversation of the table.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/plot.h>

#include "screen_int.h"

#define AXIS_COLS 10            /* the PSN labels left of the plot */
#define RATE_ROWS 4             /* the throughput panel */

/* Canvas kinds, the higher drawn over the lower in a cell. */
enum graph_kind {
    GK_NONE, GK_REQUEST, GK_ACK, GK_CONGESTION, GK_GAP, GK_RETX, GK_RNR, GK_NAK, GK_COUNT
};

static const enum tui_pair kind_pair[GK_COUNT] = {
    [GK_NONE] = PAIR_NONE, [GK_REQUEST] = PAIR_NONE, [GK_ACK] = PAIR_OK,
    [GK_CONGESTION] = PAIR_CONGESTION, [GK_GAP] = PAIR_RETX, [GK_RETX] = PAIR_RETX,
    [GK_RNR] = PAIR_NAK, [GK_NAK] = PAIR_NAK};

static enum graph_kind
plot_kind(uint8_t kind)
{
    switch (kind) {
    case RS_PLOT_RETRANSMISSION: return GK_RETX;
    case RS_PLOT_GAP: return GK_GAP;
    case RS_PLOT_READ_RESPONSE: return GK_ACK;
    case RS_PLOT_NAK: return GK_NAK;
    case RS_PLOT_RNR: return GK_RNR;
    case RS_PLOT_CNP:
    case RS_PLOT_ECN_CE: return GK_CONGESTION;
    default: return GK_REQUEST;
    }
}

/* The conversation the view follows: the table's selection, else its first row. */
static uint32_t
followed_conv(struct tui *t)
{
    if (t->conv_id == 0)
        view_convs_move(t, KEY_HOME);
    return t->conv_id;
}

/* Draws one canvas row by cells, each in its kind's colour. */
static void
draw_canvas_row(struct tui *t, const struct rs_tui_canvas *c, int row, int y, int x)
{
    for (int col = 0; col < c->cols; col++) {
        char ch[5];
        size_t n = rs_tui_canvas_cell(c, row, col, t->utf8, ch);
        ch[n] = '\0';
        tui_put(t, y, x + col, 1, ch, tui_attr(t, kind_pair[rs_tui_canvas_kind(c, row, col)]));
    }
}

/* The throughput panel: one column per time slice, eighths of a cell high. */
static void
draw_rate(struct tui *t, int y, int x, int width, double tmax)
{
    static const char *const blocks[9] = {" ", "\u2581", "\u2582", "\u2583", "\u2584",
                                          "\u2585", "\u2586", "\u2587", "\u2588"};
    double *rate = calloc((size_t)width, sizeof(*rate)), peak = 0;
    char label[32];

    if (rate == NULL)
        return;
    rs_tui_graph_throughput(t->graph, 0, tmax, rate, (unsigned)width);
    for (int i = 0; i < width; i++)
        peak = rate[i] > peak ? rate[i] : peak;
    /* The peak, in bits per second with an SI prefix ("48.3 Gbit/s"). */
    tui_si(peak * 8, "bit/s", label, sizeof(label));
    char *unit = strchr(label, ' ');
    if (unit != NULL)
        *unit++ = '\0';
    tui_put(t, y, 0, AXIS_COLS - 1, label, A_DIM);
    tui_put(t, y + 1, 0, AXIS_COLS - 1, unit != NULL ? unit : "", A_DIM);
    for (int r = 0; r < RATE_ROWS; r++) {
        for (int i = 0; i < width; i++) {
            /* Eighths of the panel this column fills, less those of the rows above. */
            int eighths = peak > 0 ? (int)(rate[i] / peak * RATE_ROWS * 8 + 0.5) : 0;
            int in_row = eighths - (RATE_ROWS - 1 - r) * 8;
            in_row = in_row < 0 ? 0 : in_row > 8 ? 8 : in_row;
            tui_put(t, y + r, x + i, 1, t->utf8 ? blocks[in_row] : in_row >= 4 ? "#" : " ",
                    A_NORMAL);
        }
    }
    free(rate);
}

static void
draw_legend(struct tui *t, const struct rs_plot *pl, int y, int cols)
{
    size_t count[RS_PLOT_KINDS] = {0};
    char line[320];

    for (size_t i = 0; i < pl->n_pts; i++)
        count[pl->pts[i].kind]++;
    snprintf(line, sizeof(line), "requests %zu  retransmissions %zu  after gaps %zu  NAKs %zu"
             "  RNR NAKs %zu  CNPs %zu  CE %zu  READ responses %zu  acks %zu",
             count[RS_PLOT_REQUEST], count[RS_PLOT_RETRANSMISSION], count[RS_PLOT_GAP],
             count[RS_PLOT_NAK], count[RS_PLOT_RNR], count[RS_PLOT_CNP],
             count[RS_PLOT_ECN_CE], count[RS_PLOT_READ_RESPONSE], pl->n_acks);
    tui_put(t, y, 0, cols, line, A_NORMAL);
}

void
view_graph_draw(struct tui *t, int y, int rows, int cols)
{
    char err[RS_ERRBUF_SIZE], line[256];
    uint32_t conv = followed_conv(t);

    if (conv == 0) {
        tui_put(t, y, 0, cols, "(no RC/UC conversation yet)", A_DIM);
        return;
    }
    if (t->graph == NULL && rs_tui_graph_new(&t->graph, err) != 0) {
        tui_put(t, y, 0, cols, err, tui_attr(t, PAIR_BAD));
        return;
    }
    if (rs_tui_graph_update(t->graph, t->model, conv, err) != 0) {
        tui_put(t, y, 0, cols, err, tui_attr(t, PAIR_BAD));
        return;
    }
    const struct rs_plot *pl = rs_tui_graph_plot(t->graph);
    if (pl->title[0] != '\0')
        snprintf(line, sizeof(line), "%s  (Up, Down: another conversation)", pl->title);
    else
        snprintf(line, sizeof(line), "Conversation %u", conv);
    tui_put(t, y, 0, cols, line, A_BOLD);
    draw_legend(t, pl, y + 1, cols);
    if (!rs_tui_graph_caught_up(t->graph, t->model)) {
        tui_put(t, y + 2, 0, cols, "(reading the conversation's packets...)", A_DIM);
    } else if (rs_tui_graph_dropped(t->graph) > 0) {
        snprintf(line, sizeof(line), "(%llu older points dropped: the graph keeps the newest %u)",
                 (unsigned long long)rs_tui_graph_dropped(t->graph), RS_TUI_GRAPH_POINTS);
        tui_put(t, y + 2, 0, cols, line, A_DIM);
    }
    int plot_rows = rows - 3 - 2 - RATE_ROWS, width = cols - AXIS_COLS;
    if (pl->n_pts == 0 || plot_rows < 2 || width < 10)
        return;
    double tmax = 1e-6;
    int64_t ymin = pl->pts[0].psn, ymax = pl->pts[0].psn;
    for (size_t i = 0; i < pl->n_pts; i++) {
        tmax = pl->pts[i].t > tmax ? pl->pts[i].t : tmax;
        if (pl->pts[i].kind == RS_PLOT_CNP)
            continue;       /* a CNP carries no PSN of the stream */
        ymin = pl->pts[i].psn < ymin ? pl->pts[i].psn : ymin;
        ymax = pl->pts[i].psn > ymax ? pl->pts[i].psn : ymax;
    }
    if (ymax == ymin)
        ymax = ymin + 1;
    struct rs_tui_canvas c;
    if (rs_tui_canvas_init(&c, width, plot_rows) != 0)
        return;
    int dots_x = 2 * width - 1, dots_y = 4 * plot_rows - 1;
#define DOT_X(tt) ((int)((tt) / tmax * dots_x + 0.5))
#define DOT_Y(p) (dots_y - (int)((double)((p) - ymin) / (double)(ymax - ymin) * dots_y + 0.5))
    for (size_t i = 0; i < pl->n_acks; i++)
        rs_tui_canvas_dot(&c, DOT_X(pl->acks[i].t), DOT_Y(pl->acks[i].psn), GK_ACK);
    for (size_t i = 0; i < pl->n_pts; i++) {
        const struct rs_plot_point *p = &pl->pts[i];
        int dy = p->kind == RS_PLOT_CNP ? dots_y : DOT_Y(p->psn);
        rs_tui_canvas_dot(&c, DOT_X(p->t), dy, (uint8_t)plot_kind(p->kind));
    }
#undef DOT_X
#undef DOT_Y
    int top = y + 3;
    for (int r = 0; r < plot_rows; r++)
        draw_canvas_row(t, &c, r, top + r, AXIS_COLS);
    /* The axis holds PSNs relative to the first request's (unwrapped), as `plot psn`'s
     * does: its ends say so with a sign, and its label names that PSN. */
    snprintf(line, sizeof(line), "%+9lld", (long long)ymax);
    tui_put(t, top, 0, AXIS_COLS - 1, line, A_DIM);
    snprintf(line, sizeof(line), "%+9lld", (long long)ymin);
    tui_put(t, top + plot_rows - 1, 0, AXIS_COLS - 1, line, A_DIM);
    tui_put(t, top + plot_rows / 2 - 1, 0, AXIS_COLS - 1, " PSN from", A_DIM);
    snprintf(line, sizeof(line), "%9u", pl->base_psn);
    tui_put(t, top + plot_rows / 2, 0, AXIS_COLS - 1, line, A_DIM);
    rs_tui_canvas_free(&c);
    int axis = top + plot_rows;
    char end[32];
    tui_si(tmax, "s", end, sizeof(end));
    snprintf(line, sizeof(line), "0 s (the first request)%*s%s",
             width - 23 - (int)strlen(end) > 0 ? width - 23 - (int)strlen(end) : 1, "", end);
    tui_put(t, axis, AXIS_COLS, width, line, A_DIM);
    draw_rate(t, axis + 1, AXIS_COLS, width, tmax);
}

bool
view_graph_key(struct tui *t, int key)
{
    return (key == KEY_UP || key == KEY_DOWN) && view_convs_move(t, key);
}
