/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_segments.c - with the captures of several points, each RDMA packet followed
 * across them (roceshark correlate): where it was seen, each segment's delay, where it
 * was lost or CE-marked, which points' captures missed it; under the run's totals and
 * each point's clock. Lost rows are red, CE-marked blue, missed ones amber. `x` keeps
 * only those; Enter shows the packet in the Packets view when point A (the file the
 * other views show) saw it. With more segments than the terminal is wide for, Left and
 * Right (h, l) scroll the segment columns; Pt:No. and Seen stay.
 */
#include <stdarg.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "screen_int.h"

#define SEG_WIDTH 16

static bool
notable(const struct rs_tui_corr_row *r)
{
    return r->lost_seg >= 0 || r->ce_seg >= 0 || r->any_missed || r->contradiction;
}

/* The rows shown: every one, or with `x` the notable ones (their indexes, made when x is
 * pressed: the rows never change once the screen is up). */
static uint64_t
shown_count(const struct tui *t)
{
    return t->seg_only_notable ? t->seg_n_notable : t->corr->n;
}

static size_t
shown_index(const struct tui *t, uint64_t pos)
{
    return t->seg_only_notable ? t->seg_notable[pos] : (size_t)pos;
}

static const struct rs_tui_corr_row *
shown_row(const struct tui *t, uint64_t pos)
{
    return &t->corr->rows[shown_index(t, pos)];
}

/* Appends to line (size bytes), never past its end: *len stays within it. */
static void
append(char *line, size_t *len, size_t size, const char *fmt, ...)
{
    va_list ap;

    if (*len + 1 >= size)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(line + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

/* "A,C" of the points in mask, cut to size. */
static void
points_text(const uint64_t *mask, unsigned n, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (unsigned p = 0; p < n; p++)
        if (rs_corr_mask_has(mask, p))
            append(buf, &len, size, "%s%s", len > 0 ? "," : "", rs_corr_point_name(p).s);
}

/* The width of a column that can list every point ("A,B,C") and a space; at most 256. */
static int
points_width(unsigned n)
{
    size_t w = 0;

    for (unsigned p = 0; p < n && w < 256; p++)
        w += strlen(rs_corr_point_name(p).s) + 1;
    return (int)w;
}

static void
draw_heading(struct tui *t, int y, int cols)
{
    const struct rs_tui_corr *c = t->corr;
    const struct rs_corr_counts *k = &c->counts;
    char line[1024];
    size_t len;

    snprintf(line, sizeof(line), "Packets %llu, matched at 2+ points %llu, lost %llu, CE "
             "marked %llu, missed by a capture %llu, contradictions %llu",
             (unsigned long long)k->packets, (unsigned long long)k->matched,
             (unsigned long long)k->lost, (unsigned long long)k->ce_marked,
             (unsigned long long)k->missed, (unsigned long long)k->contradictions);
    tui_put(t, y, 0, cols, line, A_BOLD);
    len = (size_t)snprintf(line, sizeof(line), "Clocks on A's:");
    for (unsigned p = 1; p < c->n_points && len < sizeof(line) - 80; p++) {
        const struct rs_corr_clock *ck = &c->clock[p];
        if (!ck->known)
            append(line, &len, sizeof(line), " %s unknown;", rs_corr_point_name(p).s);
        else if (ck->bound < 0)
            append(line, &len, sizeof(line), " %s %+.1f us (one way: no bound);",
                   rs_corr_point_name(p).s, (double)ck->offset / 1e3);
        else
            append(line, &len, sizeof(line), " %s %+.1f us +- %.1f us;",
                   rs_corr_point_name(p).s, (double)ck->offset / 1e3, (double)ck->bound / 1e3);
    }
    append(line, &len, sizeof(line), " window %.1f ms%s", (double)c->window / 1e6,
           t->seg_only_notable ? "; x: lost, CE marked or missed only" : "");
    tui_put(t, y + 1, 0, cols, line, A_NORMAL);
}

void
view_segments_draw(struct tui *t, int y, int rows, int cols)
{
    const struct rs_tui_corr *c = t->corr;
    char line[2048], cell[64], seen[512], missed[512];
    int pw = points_width(c->n_points);
    unsigned n_segs = c->n_points - 1;

    if (t->seg_hscroll >= n_segs)
        t->seg_hscroll = n_segs - 1;
    draw_heading(t, y, cols);
    size_t len = 0;
    append(line, &len, sizeof(line), "%10s  %-*s", "Pt:No.", pw, "Seen");
    if (t->seg_hscroll > 0)
        append(line, &len, sizeof(line), "  <");
    for (unsigned s = t->seg_hscroll; s < n_segs; s++) {
        snprintf(cell, sizeof(cell), "Segment %u", s + 1);
        append(line, &len, sizeof(line), "  %-*s", SEG_WIDTH, cell);
    }
    append(line, &len, sizeof(line), "  %-*s  %s", pw, "Missed", "Info");
    tui_put(t, y + 2, 0, cols, line, A_BOLD | A_UNDERLINE);
    uint64_t n = shown_count(t);
    if (n == 0) {
        tui_put(t, y + 3, 0, cols, t->seg_only_notable ? "(no packet lost, CE marked or "
                "missed; x shows them all)" : "(no packet seen)", A_DIM);
        return;
    }
    if (t->seg_sel >= n)
        t->seg_sel = n - 1;
    tui_scroll_into_view(&t->seg_top, t->seg_sel, n, rows - 3);
    for (int i = 0; i < rows - 3 && t->seg_top + (uint64_t)i < n; i++) {
        uint64_t pos = t->seg_top + (uint64_t)i;
        size_t row = shown_index(t, pos);
        const struct rs_tui_corr_row *r = &c->rows[row];
        snprintf(cell, sizeof(cell), "%s:%llu", rs_corr_point_name(r->shown).s,
                 (unsigned long long)r->number);
        points_text(rs_tui_corr_row_seen(c, row), c->n_points, seen, sizeof(seen));
        points_text(rs_tui_corr_row_missed(c, row), c->n_points, missed, sizeof(missed));
        len = 0;
        append(line, &len, sizeof(line), "%10s  %-*s", cell, pw, seen);
        if (t->seg_hscroll > 0)
            append(line, &len, sizeof(line), "  <");
        for (unsigned s = t->seg_hscroll; s < n_segs; s++) {
            rs_tui_corr_segment_text(c, row, s, cell, sizeof(cell));
            append(line, &len, sizeof(line), "  %-*s", SEG_WIDTH, cell);
        }
        append(line, &len, sizeof(line), "  %-*s  %s%s", pw, missed,
               r->contradiction ? "[contradiction] " : "", c->text + r->info);
        enum tui_pair pair = r->lost_seg >= 0 ? PAIR_NAK : r->ce_seg >= 0 ? PAIR_CONGESTION
                             : r->any_missed || r->contradiction ? PAIR_RETX : PAIR_NONE;
        tui_put(t, y + 3 + i, 0, cols, line,
                tui_attr(t, pair) | (pos == t->seg_sel ? A_REVERSE : 0));
    }
}

/* x: the notable rows only, or all again; the selection stays on its packet when it can. */
static void
toggle_notable(struct tui *t)
{
    const struct rs_tui_corr *c = t->corr;
    size_t at = t->seg_only_notable ? t->seg_notable[t->seg_sel] : (size_t)t->seg_sel;

    if (t->seg_only_notable) {
        t->seg_only_notable = false;
        t->seg_sel = at;
        return;
    }
    if (t->seg_notable == NULL) {
        t->seg_notable = malloc((c->n > 0 ? c->n : 1) * sizeof(*t->seg_notable));
        if (t->seg_notable == NULL) {
            tui_message(t, "out of memory");
            return;
        }
        for (size_t i = 0; i < c->n; i++)
            if (notable(&c->rows[i]))
                t->seg_notable[t->seg_n_notable++] = i;
    }
    t->seg_only_notable = true;
    t->seg_sel = 0;
    for (size_t i = 0; i < t->seg_n_notable && t->seg_notable[i] <= at; i++)
        t->seg_sel = i;
    tui_message(t, "%zu packets lost, CE marked or missed (x shows all)", t->seg_n_notable);
}

bool
view_segments_key(struct tui *t, int key)
{
    uint64_t n = shown_count(t);

    if (key == 'x') {
        toggle_notable(t);
        return true;
    }
    if (key == KEY_LEFT || key == 'h') {
        t->seg_hscroll -= t->seg_hscroll > 0;
        return true;
    }
    if (key == KEY_RIGHT || key == 'l') {
        t->seg_hscroll += t->seg_hscroll + 2 < t->corr->n_points;
        return true;
    }
    if (key == '\n' || key == '\r' || key == KEY_ENTER) {
        if (t->seg_sel >= n)
            return true;
        const struct rs_tui_corr_row *r = shown_row(t, t->seg_sel);
        if (r->number_a != 0)
            tui_show_frame(t, r->number_a);
        else
            tui_message(t, "A did not capture it: it is frame %llu of %s (%s)",
                        (unsigned long long)r->number, rs_corr_point_name(r->shown).s,
                        t->corr->files[r->shown]);
        return true;
    }
    return tui_move_selection(&t->seg_sel, n, key, LINES - 6);
}
