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

int
rs_tui_corr_add(struct rs_tui_corr *c, const struct rs_corr_view *v, const char *info)
{
    size_t len = strlen(info) + 1;

    if (grow((void **)&c->rows, &c->cap, c->n + 1, sizeof(*c->rows)) != 0 ||
        grow((void **)&c->text, &c->text_cap, c->text_len + len, 1) != 0 ||
        c->text_len + len > UINT32_MAX)
        return RS_ENOMEM;
    struct rs_tui_corr_row *r = &c->rows[c->n++];
    memset(r, 0, sizeof(*r));
    r->number = v->number[v->shown];
    r->number_a = (v->seen & 1u) ? v->number[0] : 0;
    r->shown = v->shown;
    r->seen = v->seen;
    r->missed = v->missed;
    r->n_path = v->n_path;
    memcpy(r->path, v->path, sizeof(r->path));
    for (unsigned s = 0; s + 1 < v->n_path && s < RS_CORR_MAX_SEGMENTS; s++)
        if (v->both[s]) {
            r->both |= (uint8_t)(1u << s);
            r->delay[s] = v->delay[s];
        }
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
rs_tui_corr_segment_text(const struct rs_tui_corr_row *r, unsigned s, char *buf, size_t size)
{
    bool both = s < RS_CORR_MAX_SEGMENTS && (r->both & (1u << s));
    char seg[4] = {rs_corr_point_name(r->path[s]), '>', rs_corr_point_name(r->path[s + 1]),
                   '\0'};

    if (s + 1 >= r->n_path)
        snprintf(buf, size, "%s", "");
    else if (r->lost_seg == (int)s)
        snprintf(buf, size, "%s LOST", seg);
    else if (!both)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, "%s %s%.1fus", seg, r->ce_seg == (int)s ? "CE " : "",
                 (double)r->delay[s] / 1000.0);
}

void
rs_tui_corr_free(struct rs_tui_corr *c)
{
    free(c->rows);
    free(c->text);
    c->rows = NULL;
    c->text = NULL;
    c->n = c->cap = c->text_len = c->text_cap = 0;
}
