/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_packets.c - the Packets view, termshark's three panes: the list of
 * shown packets (the lines `roceshark read` prints), the `-V` tree of the
 * selected one, and its bytes in hex. The first column marks tagged
 * packets with a '*'.
 *
 * The tree has a cursor (J and K): Left folds the node under it (or goes to
 * its parent), Right unfolds it, C and E fold and unfold every node. Folds
 * are kept by field, so the next packet opens as this one was left, as
 * Wireshark keeps its subtrees open. The hex pane highlights the bytes of
 * the line under the cursor.
 *
 * Only the rows on screen are read back from the file and decoded, each
 * time the screen is drawn: a few dozen small reads, against keeping every
 * packet's text in memory.
 */
#include <curses.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/print.h>

#include "screen_int.h"

#define HEX_BYTES_PER_LINE 16

static enum tui_pair
kind_pair(uint8_t kind)
{
    if (kind & (RS_TUI_KIND_NAK | RS_TUI_KIND_ERROR))
        return PAIR_NAK;
    if (kind & RS_TUI_KIND_RETX)
        return PAIR_RETX;
    if (kind & RS_TUI_KIND_CONGESTION)
        return PAIR_CONGESTION;
    return PAIR_NONE;
}

/* The row of the shown frame at position pos; its time column's width in *time_w. */
static void
draw_list_row(struct tui *t, int y, int cols, uint64_t pos, bool selected, int *time_w)
{
    uint64_t number = rs_tui_model_shown_frame(t->model, pos);
    struct rs_tui_frame f;
    char err[RS_ERRBUF_SIZE], *line = NULL;

    if (!rs_tui_model_frame(t->model, number, &f) ||
        rs_tui_model_decode(t->model, number, &t->dec, err) != 0) {
        tui_put(t, y, 0, cols, err, tui_attr(t, PAIR_BAD));
        return;
    }
    struct rs_tui_time_opts time = {.col = t->time_col};     /* dd: the decoded delta */
    if (rs_tui_row_text(&t->dec, &time, &line, err) != 0) {
        tui_put(t, y, 0, cols, err, tui_attr(t, PAIR_BAD));
        return;
    }
    /* "    1  0.000000 10.0.0.1 -> ...": the time ends where the source begins. */
    char src[128], dst[128];
    rs_print_addresses(&t->dec.pkt, src, dst, sizeof(src));
    const char *at = src[0] != '\0' ? strstr(line + 6, src) : NULL;
    if (at != NULL)
        *time_w = (int)(at - line) - 1 - 5;
    unsigned attr = tui_attr(t, kind_pair(f.kind)) | (selected ? A_REVERSE : 0);
    tui_put(t, y, 0, 1, tui_tagged(t, number) ? "*" : " ", attr);
    tui_put(t, y, 1, cols - 1, line, attr);
    free(line);
}

static void
draw_pane_title(struct tui *t, int y, int cols, const char *title)
{
    tui_put(t, y, 0, cols, title, tui_attr(t, PAIR_BAR));
}

/* The packet list's header, the columns of read's line (which are not padded to a width:
 * the time's is the first row's). */
static void
draw_list_header(struct tui *t, int y, int cols, int time_w)
{
    char line[160];

    snprintf(line, sizeof(line), "%6s%*s Source %s Destination Protocol Length Info", "No.",
             time_w > 4 ? time_w : 5, "Time", t->utf8 ? "\u2192" : "->");
    tui_put(t, y, 0, cols, line, A_BOLD | A_UNDERLINE);
}

static bool
folded(const struct tui *t, int node)
{
    return node >= 0 && (size_t)node < t->n_folds && t->folds[node];
}

static void
set_fold(struct tui *t, int node, bool fold)
{
    if (node < 0)
        return;
    if ((size_t)node >= t->n_folds) {
        size_t n = (size_t)rs_field_count() + 1;
        uint8_t *f = realloc(t->folds, n);
        if (f == NULL)
            return;
        memset(f + t->n_folds, 0, n - t->n_folds);
        t->folds = f;
        t->n_folds = n;
    }
    t->folds[node] = fold;
}

/* The lines a fold does not hide, as indices into the tree; returns how many. */
static size_t
visible_rows(const struct tui *t, const struct rs_tui_tree *tr, size_t *vis)
{
    size_t k = 0;

    for (size_t i = 0; i < tr->n; i++) {
        vis[k++] = i;
        if (folded(t, tr->lines[i].node) && rs_tui_tree_has_children(tr, i)) {
            unsigned d = tr->lines[i].depth;
            while (i + 1 < tr->n && tr->lines[i + 1].depth > d)
                i++;
        }
    }
    return k;
}

/* Keeps the cursor on the node it was on, across packets and folds: of the lines of that
 * node (a field can show more than once, as eth.addr under Destination and Source, and
 * text items share one key), the one nearest the row the cursor was on. */
static size_t
cursor_row(struct tui *t, const struct rs_tui_tree *tr, const size_t *vis, size_t n_vis)
{
    if (t->tree_sel_node != TREE_SEL_NONE) {
        size_t best = SIZE_MAX, best_dist = SIZE_MAX, at = t->tree_sel > 0 ? (size_t)t->tree_sel
                                                                            : 0;
        for (size_t k = 0; k < n_vis; k++) {
            size_t dist = k > at ? k - at : at - k;
            if (tr->lines[vis[k]].node == t->tree_sel_node && dist < best_dist) {
                best = k;
                best_dist = dist;
            }
        }
        if (best != SIZE_MAX)
            t->tree_sel = (int)best;
    }
    if (t->tree_sel >= (int)n_vis)
        t->tree_sel = n_vis > 0 ? (int)n_vis - 1 : 0;
    if (t->tree_sel < 0)
        t->tree_sel = 0;
    if (n_vis > 0)
        t->tree_sel_node = tr->lines[vis[t->tree_sel]].node;
    return (size_t)t->tree_sel;
}

/* The selected packet's tree (t->dec) into t->tree, and its visible lines; NULL when out
 * of memory (the message is shown). */
static size_t *
tree_lines(struct tui *t, size_t *n_vis)
{
    char err[RS_ERRBUF_SIZE];

    if (rs_tui_tree_build(&t->dec.pkt, &t->tree, err) != 0) {
        tui_message(t, "%s", err);
        return NULL;
    }
    size_t *vis = malloc((t->tree.n > 0 ? t->tree.n : 1) * sizeof(*vis));
    if (vis != NULL)
        *n_vis = visible_rows(t, &t->tree, vis);
    return vis;
}

/* Draws the tree pane; *hl gets the bytes of the line under the cursor. */
static void
draw_tree(struct tui *t, int y, int rows, int cols, uint32_t *hl_off, uint32_t *hl_len)
{
    size_t n_vis = 0, *vis = tree_lines(t, &n_vis);
    const struct rs_tui_tree *tr = &t->tree;

    *hl_off = *hl_len = 0;
    if (vis == NULL) {
        tui_put(t, y, 0, cols, "(out of memory)", tui_attr(t, PAIR_BAD));
        return;
    }
    size_t sel = cursor_row(t, tr, vis, n_vis);
    uint64_t top = (uint64_t)(t->tree_top > 0 ? t->tree_top : 0);
    tui_scroll_into_view(&top, sel, n_vis, rows);
    t->tree_top = (int)top;
    for (int r = 0; r < rows && top + (uint64_t)r < n_vis; r++) {
        size_t k = (size_t)top + (size_t)r;
        const struct rs_tui_tree_line *l = &tr->lines[vis[k]];
        bool kids = rs_tui_tree_has_children(tr, vis[k]);
        const char *mark = !kids ? "  " : folded(t, l->node) ? (t->utf8 ? "\u25b8 " : "+ ")
                                                             : (t->utf8 ? "\u25be " : "- ");
        char line[512];
        snprintf(line, sizeof(line), "%*s%s%s", (int)(l->depth * 4), "", mark,
                 tr->text + l->text);
        tui_put(t, y + r, 0, cols, line, k == sel ? A_REVERSE : A_NORMAL);
    }
    if (n_vis > 0 && tr->lines[vis[sel]].source == NULL) {   /* none in the frame else */
        *hl_off = tr->lines[vis[sel]].offset;
        *hl_len = tr->lines[vis[sel]].length;
    }
    free(vis);
}

/* The tree keys: the cursor (J, K), folding (Left, Right, h, l, C, E); false for any
 * other key. */
static bool
tree_key(struct tui *t, int key)
{
    if (key == 'h')
        key = KEY_LEFT;
    if (key == 'l')
        key = KEY_RIGHT;
    if (key != 'J' && key != 'K' && key != KEY_LEFT && key != KEY_RIGHT && key != 'C' &&
        key != 'E')
        return false;
    size_t n_vis = 0, *vis = tree_lines(t, &n_vis);
    const struct rs_tui_tree *tr = &t->tree;
    if (vis != NULL && tr->n > 0) {
        size_t sel = cursor_row(t, tr, vis, n_vis);
        const struct rs_tui_tree_line *l = &tr->lines[vis[sel]];
        switch (key) {
        case 'J':
            sel = sel + 1 < n_vis ? sel + 1 : sel;
            break;
        case 'K':
            sel = sel > 0 ? sel - 1 : 0;
            break;
        case KEY_LEFT:
            if (rs_tui_tree_has_children(tr, vis[sel]) && !folded(t, l->node) &&
                l->node != RS_TUI_TREE_NONE) {
                set_fold(t, l->node, true);
            } else {
                while (sel > 0 && tr->lines[vis[sel - 1]].depth >= l->depth)
                    sel--;      /* up to the parent: the nearest line above, less deep */
                sel = sel > 0 ? sel - 1 : 0;
            }
            break;
        case KEY_RIGHT:
            set_fold(t, l->node, false);
            break;
        default:    /* C and E: every node of this tree */
            for (size_t i = 0; i < tr->n; i++)
                if (rs_tui_tree_has_children(tr, i))
                    set_fold(t, tr->lines[i].node, key == 'C');
            break;
        }
        t->tree_sel = (int)sel;
        t->tree_sel_node = key == 'C' ? RS_TUI_TREE_FRAME : tr->lines[vis[sel]].node;
        if (key == 'C')
            t->tree_sel = 0;
    }
    free(vis);
    return true;
}

static void
draw_hex(struct tui *t, int y, int rows, int cols, uint32_t hl_off, uint32_t hl_len)
{
    const struct rs_frame *f = &t->dec.frame;
    uint32_t lines = (f->caplen + HEX_BYTES_PER_LINE - 1) / HEX_BYTES_PER_LINE;
    uint64_t top = 0;

    /* The highlighted bytes' first line is shown. */
    if (hl_len > 0)
        tui_scroll_into_view(&top, hl_off / HEX_BYTES_PER_LINE, lines, rows);
    for (int r = 0; r < rows && top + (uint64_t)r < lines; r++) {
        uint32_t off = (uint32_t)(top + (uint64_t)r) * HEX_BYTES_PER_LINE;
        char cell[8];
        int x = 0;
        snprintf(cell, sizeof(cell), "%04x  ", off);
        tui_put(t, y + r, x, 6, cell, A_NORMAL);
        x += 6;
        for (uint32_t i = 0; i < HEX_BYTES_PER_LINE; i++) {
            uint32_t b = off + i;
            bool in = hl_len > 0 && b >= hl_off && b < hl_off + hl_len;
            if (b < f->caplen)
                snprintf(cell, sizeof(cell), "%02x", f->data[b]);
            else
                snprintf(cell, sizeof(cell), "  ");
            tui_put(t, y + r, x, 2, cell, in ? A_REVERSE : A_NORMAL);
            /* The space after a byte is highlighted too when the next byte is. */
            tui_put(t, y + r, x + 2, 1, " ", in && b + 1 < hl_off + hl_len &&
                    i + 1 < HEX_BYTES_PER_LINE ? A_REVERSE : A_NORMAL);
            x += 3 + (i == 7);
        }
        x += 1;
        for (uint32_t i = 0; i < HEX_BYTES_PER_LINE && off + i < f->caplen; i++) {
            uint32_t b = off + i;
            uint8_t c = f->data[b];
            cell[0] = c >= 0x20 && c < 0x7f ? (char)c : '.';
            cell[1] = '\0';
            tui_put(t, y + r, x + (int)i, 1, cell,
                    hl_len > 0 && b >= hl_off && b < hl_off + hl_len ? A_REVERSE : A_NORMAL);
        }
        (void)cols;
    }
}

/* Follows the live edge, or lands on a frame asked for before it was shown. */
static void
settle_selection(struct tui *t, uint64_t n)
{
    if (t->want_frame != 0) {
        uint64_t pos = rs_tui_model_shown_find(t->model, t->want_frame);
        if (pos < n && rs_tui_model_shown_frame(t->model, pos) == t->want_frame) {
            t->pkt_sel = pos;
            t->want_frame = 0;
        }
    }
    if (t->follow && n > 0)
        t->pkt_sel = n - 1;
    if (t->pkt_sel >= n)
        t->pkt_sel = n > 0 ? n - 1 : 0;
}

void
view_packets_draw(struct tui *t, int y, int rows, int cols)
{
    uint64_t n = rs_tui_model_shown_count(t->model);
    int list_rows = rows * 9 / 20 - 1;
    int hex_rows = (rows - list_rows - 1) * 2 / 5 - 1;
    int tree_rows = rows - 1 - list_rows - hex_rows - 2;
    int time_w = 0;

    settle_selection(t, n);
    tui_scroll_into_view(&t->pkt_top, t->pkt_sel, n, list_rows);
    for (int i = 0; i < list_rows && t->pkt_top + (uint64_t)i < n; i++) {
        uint64_t k = t->pkt_top + (uint64_t)i;
        draw_list_row(t, y + 1 + i, cols, k, k == t->pkt_sel, &time_w);
    }
    draw_list_header(t, y, cols, time_w);
    if (n == 0) {
        tui_put(t, y + 1, 0, cols, "(no packets shown)", A_DIM);
        return;
    }
    /* The selected frame last, so that t->dec holds it for the panes below. */
    uint64_t number = rs_tui_model_shown_frame(t->model, t->pkt_sel);
    char err[RS_ERRBUF_SIZE], title[64];
    snprintf(title, sizeof(title), " Packet %llu%s", (unsigned long long)number,
             t->follow ? " (following)" : "");
    y++;
    draw_pane_title(t, y + list_rows, cols, title);
    if (rs_tui_model_decode(t->model, number, &t->dec, err) != 0) {
        tui_put(t, y + list_rows + 1, 0, cols, err, tui_attr(t, PAIR_BAD));
        return;
    }
    uint32_t hl_off, hl_len;
    draw_tree(t, y + list_rows + 1, tree_rows, cols, &hl_off, &hl_len);
    draw_pane_title(t, y + list_rows + 1 + tree_rows, cols, " Bytes");
    draw_hex(t, y + list_rows + 2 + tree_rows, hex_rows, cols, hl_off, hl_len);
}

bool
view_packets_key(struct tui *t, int key)
{
    uint64_t n = rs_tui_model_shown_count(t->model);

    switch (key) {
    case ' ':
        if (n > 0) {
            tui_tag_toggle(t, rs_tui_model_shown_frame(t->model, t->pkt_sel));
            tui_move_selection(&t->pkt_sel, n, KEY_DOWN, 1);
            t->follow = false;
        }
        return true;
    default:
        break;
    }
    if (n > 0 && tree_key(t, key))
        return true;
    uint64_t before = t->pkt_sel;
    if (!tui_move_selection(&t->pkt_sel, n, key, LINES * 9 / 20 - 1))
        return false;
    /* End follows the newest packet; any other move stops following. */
    t->follow = key == KEY_END;
    t->want_frame = 0;
    if (t->pkt_sel != before)
        t->tree_top = 0;    /* the cursor stays on its node (tree_sel_node) */
    return true;
}
