/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_convs.c - the QP conversations view: one row per conversation with
 * the figures of `read -z conv,qp` and iftop's three rates, sorted by any
 * column (`<` `>` move the sort column, `i` inverts), Enter for the
 * conversation's packets. The selection follows the conversation, not the
 * row, as the order changes under it. Left and Right scroll the figures
 * sideways in a narrow terminal; the conversation's endpoints stay. `o`
 * freezes the order as it stands (new conversations go below), so that
 * rows stop moving while they are read.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "screen_int.h"

/* Numbers are right-aligned, endpoints left-aligned. */
static bool
left_aligned(enum rs_tui_col col)
{
    return col == RS_TUI_COL_REQUESTER || col == RS_TUI_COL_RESPONDER;
}

static void
draw_row(struct tui *t, int y, int cols, const struct rs_tui_conv_row *row, bool header,
         unsigned attr)
{
    char line[1024], cell[64];
    size_t len = 0;

    for (int c = 0; c < RS_TUI_COL_COUNT && len < sizeof(line) - 80; c++) {
        if (c > RS_TUI_COL_RESPONDER && c <= RS_TUI_COL_RESPONDER + t->conv_hscroll)
            continue;
        int w = rs_tui_col_width(c);
        if (header)
            snprintf(cell, sizeof(cell), "%s%s", rs_tui_col_name(c),
                     c != (int)t->sort_col ? "" : t->frozen_rank != NULL ? "="
                                                : t->sort_desc ? "v" : "^");
        else
            rs_tui_col_format(row, c, cell, sizeof(cell));
        len += (size_t)snprintf(line + len, sizeof(line) - len, left_aligned(c) ? "%-*s " :
                                "%*s ", w, cell);
    }
    tui_put(t, y, 0, cols, line, attr);
}

struct ranked {
    uint64_t key;
    size_t index;
};

static int
compare_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;

    return (x->key > y->key) - (x->key < y->key);
}

/* Puts rows (in the sort column's order) in the frozen order: the frozen
 * ones by their place, the others after them as they came. */
static int
apply_frozen(const struct tui *t, struct rs_tui_conv_row *rows, size_t n)
{
    struct ranked *r = malloc(n * sizeof(*r));
    struct rs_tui_conv_row *copy = malloc(n * sizeof(*copy));

    if (r == NULL || copy == NULL) {
        free(r);
        free(copy);
        return RS_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t id = rows[i].st.id;
        uint32_t rank = id < t->n_frozen ? t->frozen_rank[id] : 0;
        r[i] = (struct ranked){rank != 0 ? rank : (uint64_t)t->n_frozen + 1 + i, i};
    }
    qsort(r, n, sizeof(*r), compare_ranked);
    memcpy(copy, rows, n * sizeof(*copy));
    for (size_t i = 0; i < n; i++)
        rows[i] = copy[r[i].index];
    free(r);
    free(copy);
    return 0;
}

/* The rows are kept between refreshes. Building them reads every
 * conversation under the pipeline's lock, which holds up ingest: with
 * 131,073 rows some 35 ms each time, and at ten refreshes a second a
 * capture of new conversations loaded half as long again with the table on
 * the screen. So they are built again once they are older than sixteen
 * times what the last build took (and a tenth of a second), or at once when
 * their order changes or the filter does. */
#define ROWS_MIN_AGE_NS 100000000ull
#define ROWS_COST_FACTOR 16

void
view_convs_invalidate(struct tui *t)
{
    t->conv_rows.valid = false;
}

static bool
rows_due(const struct tui *t, uint64_t now)
{
    uint64_t age = t->conv_rows.cost_ns * ROWS_COST_FACTOR;

    return !t->conv_rows.valid || t->conv_rows.col != t->sort_col ||
           t->conv_rows.desc != t->sort_desc ||
           now - t->conv_rows.built_ns >= (age > ROWS_MIN_AGE_NS ? age : ROWS_MIN_AGE_NS);
}

/* The rows in the order shown: the sort column's, or the frozen one. */
int
view_convs_rows(struct tui *t, bool fresh, const struct rs_tui_conv_row **rows, size_t *n,
                char *err)
{
    uint64_t now = rs_monotonic_ns();

    if (fresh || rows_due(t, now)) {
        struct rs_tui_conv_row *r = NULL;
        size_t count = 0;
        /* The old rows go first: at 131,073 rows, two tables were 40 MB more at the peak. */
        free(t->conv_rows.rows);
        t->conv_rows.rows = NULL;
        t->conv_rows.n = 0;
        t->conv_rows.valid = false;
        int rc = rs_tui_model_conv_rows(t->model, t->sort_col, t->sort_desc, &r, &count, err);
        if (rc == 0 && t->frozen_rank != NULL && count > 0 && apply_frozen(t, r, count) != 0) {
            free(r);
            rc = rs_error(err, RS_ENOMEM, "conversation table: out of memory");
        }
        if (rc != 0)
            return rc;
        t->conv_rows.rows = r;
        t->conv_rows.n = count;
        t->conv_rows.valid = true;
        t->conv_rows.col = t->sort_col;
        t->conv_rows.desc = t->sort_desc;
        t->conv_rows.built_ns = now;
        t->conv_rows.cost_ns = rs_monotonic_ns() - now;
    }
    *rows = t->conv_rows.rows;
    *n = t->conv_rows.n;
    return 0;
}

/* `o`: remembers each row's place by conversation id, or forgets them. */
static void
toggle_frozen(struct tui *t)
{
    const struct rs_tui_conv_row *rows;
    size_t n;
    char err[RS_ERRBUF_SIZE];

    if (t->frozen_rank != NULL) {
        free(t->frozen_rank);
        t->frozen_rank = NULL;
        t->n_frozen = 0;
        view_convs_invalidate(t);
        tui_message(t, "order follows the sort column again");
        return;
    }
    if (view_convs_rows(t, true, &rows, &n, err) != 0) {
        tui_message(t, "%s", err);
        return;
    }
    uint32_t max_id = 0;
    for (size_t i = 0; i < n; i++)
        max_id = rows[i].st.id > max_id ? rows[i].st.id : max_id;
    t->frozen_rank = calloc((size_t)max_id + 1, sizeof(*t->frozen_rank));
    if (t->frozen_rank != NULL) {
        t->n_frozen = (size_t)max_id + 1;
        for (size_t i = 0; i < n; i++)
            t->frozen_rank[rows[i].st.id] = (uint32_t)i + 1;
        tui_message(t, "order frozen (o frees it)");
    }
    view_convs_invalidate(t);
}

static size_t
selected_index(const struct tui *t, const struct rs_tui_conv_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].st.id == t->conv_id)
            return i;
    return 0;
}

void
view_convs_draw(struct tui *t, int y, int rows, int cols)
{
    const struct rs_tui_conv_row *r = NULL;
    size_t n = 0;
    char err[RS_ERRBUF_SIZE];

    draw_row(t, y, cols, NULL, true, A_BOLD | A_UNDERLINE);
    if (view_convs_rows(t, false, &r, &n, err) != 0) {
        tui_put(t, y + 1, 0, cols, err, tui_attr(t, PAIR_BAD));
        return;
    }
    if (n == 0) {
        tui_put(t, y + 1, 0, cols, "(no RC/UC conversation yet)", A_DIM);
        return;
    }
    uint64_t sel = selected_index(t, r, n), top = t->conv_top;
    t->conv_id = r[sel].st.id;
    tui_scroll_into_view(&top, sel, n, rows - 1);
    t->conv_top = (size_t)top;
    for (int i = 0; i < rows - 1 && top + (uint64_t)i < n; i++) {
        uint64_t k = top + (uint64_t)i;
        draw_row(t, y + 1 + i, cols, &r[k], false, k == sel ? A_REVERSE : A_NORMAL);
    }
}

bool
view_convs_move(struct tui *t, int key)
{
    const struct rs_tui_conv_row *r = NULL;
    size_t n = 0;
    char err[RS_ERRBUF_SIZE];

    if (view_convs_rows(t, false, &r, &n, err) != 0)
        return false;
    uint64_t sel = selected_index(t, r, n);
    bool moved = n > 0 && tui_move_selection(&sel, n, key, LINES - 4);
    if (moved)
        t->conv_id = r[sel].st.id;
    return moved;
}

bool
view_convs_key(struct tui *t, int key)
{
    switch (key) {
    case '<':
        t->sort_col = t->sort_col > 0 ? t->sort_col - 1 : RS_TUI_COL_COUNT - 1;
        return true;
    case '>':
        t->sort_col = (t->sort_col + 1) % RS_TUI_COL_COUNT;
        return true;
    case 'i':
        t->sort_desc = !t->sort_desc;
        return true;
    case 'o':
        toggle_frozen(t);
        return true;
    case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9': {
        /* A column's number: the bar takes the rest of it (columns go past 9). */
        char digit[2] = {(char)key, '\0'};
        prompt_open(t, PROMPT_SORT, digit);
        return true;
    }
    case KEY_LEFT:
        if (t->conv_hscroll > 0)
            t->conv_hscroll--;
        return true;
    case KEY_RIGHT:
        if (RS_TUI_COL_RESPONDER + t->conv_hscroll + 2 < RS_TUI_COL_COUNT)
            t->conv_hscroll++;
        return true;
    case '\n':
    case '\r':
    case KEY_ENTER: {
        char filter[64];
        if (t->conv_id == 0)
            return true;
        /* The drill-down is a display filter like any other: `read -Y` gives the same. */
        snprintf(filter, sizeof(filter), "roceshark.analysis.conv == %u", t->conv_id);
        tui_apply_filter(t, filter);
        t->view = VIEW_PACKETS;
        return true;
    }
    default:
        return view_convs_move(t, key);
    }
}
