/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corr_rows.c - the Segments view's rows: each packet followed across the captures of
 * several points, kept as a compact row (its frame numbers, path, segment delays, where
 * it was lost, marked or missed) and its Info line, for the view to draw and sort out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/tui/tui.h>

static int
grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 1024;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (q == NULL)
        return RS_ENOMEM;
    *p = q;
    *cap = n;
    return 0;
}

/* A row's part by point: seen and missed masks, n - 1 delays, n path points. */
size_t
rs_tui_corr_point_words(unsigned n)
{
    return 2 * RS_CORR_MASK_WORDS(n) + (n - 1) + (n + 1) / 2;
}

static uint64_t *
row_points(const struct rs_tui_corr *c, size_t row)
{
    return c->points + row * rs_tui_corr_point_words(c->n_points);
}

const uint64_t *
rs_tui_corr_row_seen(const struct rs_tui_corr *c, size_t row)
{
    return row_points(c, row);
}

const uint64_t *
rs_tui_corr_row_missed(const struct rs_tui_corr *c, size_t row)
{
    return row_points(c, row) + RS_CORR_MASK_WORDS(c->n_points);
}

const int64_t *
rs_tui_corr_row_delays(const struct rs_tui_corr *c, size_t row)
{
    return (const int64_t *)(row_points(c, row) + 2 * RS_CORR_MASK_WORDS(c->n_points));
}

const uint32_t *
rs_tui_corr_row_path(const struct rs_tui_corr *c, size_t row)
{
    return (const uint32_t *)(void *)(rs_tui_corr_row_delays(c, row) + (c->n_points - 1));
}

int
rs_tui_corr_add(struct rs_tui_corr *c, const struct rs_corr_view *v, const char *info)
{
    size_t len = strlen(info) + 1, words = rs_tui_corr_point_words(c->n_points);
    size_t points_cap = c->cap;

    if (v->n_points != c->n_points)
        return RS_EINVAL;
    if (grow((void **)&c->rows, &c->cap, c->n + 1, sizeof(*c->rows)) != 0 ||
        grow((void **)&c->text, &c->text_cap, c->text_len + len, 1) != 0 ||
        c->text_len + len > UINT32_MAX)
        return RS_ENOMEM;
    /* the rows' part by point grows with the rows */
    if (c->cap != points_cap || c->points == NULL) {
        uint64_t *q = realloc(c->points, c->cap * words * sizeof(uint64_t));
        if (q == NULL)
            return RS_ENOMEM;
        c->points = q;
    }
    size_t row = c->n++;
    struct rs_tui_corr_row *r = &c->rows[row];
    memset(r, 0, sizeof(*r));
    r->number = v->number[v->shown];
    r->number_a = rs_corr_mask_has(v->seen, 0) ? v->number[0] : 0;
    r->shown = v->shown;
    r->any_missed = v->n_missed != 0;
    r->n_path = v->n_path;
    size_t mw = RS_CORR_MASK_WORDS(c->n_points);
    uint64_t *pts = row_points(c, row);
    memset(pts, 0, words * sizeof(uint64_t));
    memcpy(pts, v->seen, mw * sizeof(uint64_t));
    memcpy(pts + mw, v->missed, mw * sizeof(uint64_t));
    int64_t *delay = (int64_t *)(pts + 2 * mw);
    for (unsigned s = 0; s + 1 < c->n_points; s++)
        delay[s] = s + 1 < v->n_path && v->both[s] ? v->delay[s] : INT64_MIN;
    memcpy((uint32_t *)(void *)(delay + (c->n_points - 1)), v->path,
           v->n_path * sizeof(uint32_t));
    r->lost_seg = v->lost_seg;
    r->ce_seg = v->ce_seg;
    r->contradiction = v->contradiction;
    r->not_told = v->not_told;
    r->info = (uint32_t)c->text_len;
    memcpy(c->text + c->text_len, info, len);
    c->text_len += len;
    return 0;
}

void
rs_tui_corr_segment_text(const struct rs_tui_corr *c, size_t row, unsigned s, char *buf,
                         size_t size)
{
    const struct rs_tui_corr_row *r = &c->rows[row];
    const uint32_t *path = rs_tui_corr_row_path(c, row);

    if (s + 1 >= r->n_path) {
        snprintf(buf, size, "%s", "");
        return;
    }
    int64_t delay = rs_tui_corr_row_delays(c, row)[s];
    char seg[2 * RS_CORR_NAME_SIZE];
    snprintf(seg, sizeof(seg), "%s>%s", rs_corr_point_name(path[s]).s,
             rs_corr_point_name(path[s + 1]).s);
    if (r->lost_seg == (int)s)
        snprintf(buf, size, "%s LOST", seg);
    else if (delay == INT64_MIN)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, "%s %s%.1fus", seg, r->ce_seg == (int)s ? "CE " : "",
                 (double)delay / 1000.0);
}

void
rs_tui_corr_free(struct rs_tui_corr *c)
{
    free(c->rows);
    free(c->points);
    free(c->text);
    free((void *)c->files);
    free(c->clock);
    c->rows = NULL;
    c->points = NULL;
    c->text = NULL;
    c->files = NULL;
    c->clock = NULL;
    c->n = c->cap = c->text_len = c->text_cap = 0;
}
