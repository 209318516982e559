/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_convs.c - the QP conversations view: one row per conversation with
 * the figures of `read -z conv,qp` and iftop's three rates, sorted by any
 * column (`<` `>` move the sort column, `i` inverts; the 2 s rate,
 * descending, at first, as iftop), Enter for the conversation's packets.
 * The selection follows the conversation, not the row, as the order changes
 * under it. Columns are as wide as their content. Left and Right scroll the
 * figures after the rates sideways in a narrow terminal; the conversation,
 * its endpoints (cut at their start when they do not fit) and its rates
 * stay. `o` freezes the order as it stands (new conversations go below), so
 * that rows stop moving while they are read.
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

/* The columns' widths for the rows now: as wide as their heading with a sort mark and as
 * the widest value shown, and never narrower than they have been, so that the table does
 * not shift as it scrolls. Counts are sized by the digits of their largest value in any
 * row (as -z conv,qp sizes its columns) when the rows are built (count_widths). */
static void
fit_widths(struct tui *t, const struct rs_tui_conv_row *rows, size_t n, size_t top, int shown)
{
    char cell[64];

    for (int c = 0; c < RS_TUI_COL_COUNT; c++) {
        int w = (int)strlen(rs_tui_col_name(c)) + 1;
        for (size_t i = top; i < n && i < top + (size_t)shown && !rs_tui_col_is_count(c); i++) {
            rs_tui_col_format(&rows[i], c, cell, sizeof(cell));
            int len = (int)strlen(cell);
            w = len > w ? len : w;
        }
        if (w > t->col_width[c])
            t->col_width[c] = w;
    }
}

/* The count columns' widths, by their largest values, as the rows are built. */
static void
count_widths(struct tui *t, const struct rs_tui_conv_row *rows, size_t n)
{
    for (int c = 0; c < RS_TUI_COL_COUNT; c++) {
        if (!rs_tui_col_is_count(c))
            continue;
        int w = 0;
        for (size_t i = 0; i < n; i++) {
            int d = rs_tui_col_digits(&rows[i], c);
            w = d > w ? d : w;
        }
        if (w > t->col_width[c])
            t->col_width[c] = w;
    }
}

/* The endpoints' width in a terminal too narrow for them and the rates: what is left
 * after the conversation id and the rates, shared; 0 when they fit. */
static int
endpoint_room(const struct tui *t, int cols)
{
    int fixed = t->col_width[RS_TUI_COL_CONV] + 1;
    for (int c = RS_TUI_COL_RATE2; c <= RS_TUI_COL_RATE40; c++)
        fixed += t->col_width[c] + 1;
    int want = t->col_width[RS_TUI_COL_REQUESTER] + t->col_width[RS_TUI_COL_RESPONDER] + 2;
    if (fixed + want <= cols)
        return 0;
    int each = (cols - fixed) / 2 - 1;
    return each > 12 ? each : 12;
}

static void
draw_row(struct tui *t, int y, int cols, const struct rs_tui_conv_row *row, bool header,
         unsigned attr)
{
    char line[2048], cell[64];
    size_t len = 0;
    int narrow = endpoint_room(t, cols);

    for (int c = 0; c < RS_TUI_COL_COUNT && len < sizeof(line) - 200; c++) {
        if (c > RS_TUI_COL_RATE40 && c <= RS_TUI_COL_RATE40 + t->conv_hscroll)
            continue;
        int w = t->col_width[c];
        if (header)
            snprintf(cell, sizeof(cell), "%s%s", rs_tui_col_name(c),
                     c != (int)t->sort_col ? "" : t->frozen_rank != NULL ? "="
                                                : t->sort_desc ? "v" : "^");
        else
            rs_tui_col_format(row, c, cell, sizeof(cell));
        const char *text = cell;
        if (left_aligned(c) && narrow > 0) {
            /* Cut at the start: an address's end and the QP tell rows apart. */
            int l = (int)strlen(cell);
            w = narrow;
            if (l > w) {
                text = cell + l - (w - 1);
                len += (size_t)snprintf(line + len, sizeof(line) - len, "~");
                w--;
            }
        }
        len += (size_t)snprintf(line + len, sizeof(line) - len, left_aligned(c) ? "%-*s " :
                                "%*s ", w, text);
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

/* Also at once when the pass has ended since they were built, so that a file's final
 * table shows as soon as it is loaded. */
static bool
rows_due(const struct tui *t, uint64_t now, bool done)
{
    uint64_t age = t->conv_rows.cost_ns * ROWS_COST_FACTOR;

    return !t->conv_rows.valid || t->conv_rows.col != t->sort_col ||
           t->conv_rows.desc != t->sort_desc || (done && !t->conv_rows.complete) ||
           now - t->conv_rows.built_ns >= (age > ROWS_MIN_AGE_NS ? age : ROWS_MIN_AGE_NS);
}

/* The rows in the order shown: the sort column's, or the frozen one. */
int
view_convs_rows(struct tui *t, bool fresh, const struct rs_tui_conv_row **rows, size_t *n,
                char *err)
{
    uint64_t now = rs_monotonic_ns();

    struct rs_tui_progress p;
    rs_tui_model_progress(t->model, &p);
    if (fresh || rows_due(t, now, p.done)) {
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
        count_widths(t, r, count);
        t->conv_rows.rows = r;
        t->conv_rows.n = count;
        t->conv_rows.valid = true;
        t->conv_rows.complete = p.done;
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

    if (view_convs_rows(t, false, &r, &n, err) != 0) {
        draw_row(t, y, cols, NULL, true, A_BOLD | A_UNDERLINE);
        tui_put(t, y + 1, 0, cols, err, tui_attr(t, PAIR_BAD));
        return;
    }
    uint64_t sel = n > 0 ? selected_index(t, r, n) : 0, top = t->conv_top;
    tui_scroll_into_view(&top, sel, n, rows - 1);
    t->conv_top = (size_t)top;
    fit_widths(t, r, n, t->conv_top, rows - 1);
    draw_row(t, y, cols, NULL, true, A_BOLD | A_UNDERLINE);
    if (n == 0) {
        tui_put(t, y + 1, 0, cols, "(no RC/UC conversation yet)", A_DIM);
        return;
    }
    t->conv_id = r[sel].st.id;
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
    case 'h':
        if (t->conv_hscroll > 0)
            t->conv_hscroll--;
        return true;
    case KEY_RIGHT:
    case 'l':
        if (RS_TUI_COL_RATE40 + t->conv_hscroll + 2 < RS_TUI_COL_COUNT)
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
