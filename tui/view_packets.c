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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/print.h>

#include "screen_int.h"

#define HEX_BYTES_PER_LINE 16

/* Runs one of the printers of print.h into memory; the text is the caller's. */
static char *
print_to_text(void (*print)(struct rs_out *o, const struct rs_packet *pkt),
              const struct rs_packet *pkt)
{
    char *text = NULL;
    size_t size = 0;
    FILE *fp = open_memstream(&text, &size);
    struct rs_out o;

    if (fp == NULL)
        return NULL;
    if (rs_out_init(&o, fp, 1u << 16) == 0) {
        print(&o, pkt);
        rs_out_flush(&o);
        rs_out_free(&o);
    }
    fclose(fp);
    return text;
}

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

static void
draw_list_row(struct tui *t, int y, int cols, uint64_t number, bool selected)
{
    struct rs_tui_frame f;
    char err[RS_ERRBUF_SIZE];

    if (!rs_tui_model_frame(t->model, number, &f) ||
        rs_tui_model_decode(t->model, number, &t->dec, err) != 0) {
        tui_put(t, y, 0, cols, err, tui_attr(t, PAIR_BAD));
        return;
    }
    char *line = print_to_text(rs_print_summary, &t->dec.pkt);
    if (line != NULL)
        line[strcspn(line, "\n")] = '\0';
    unsigned attr = tui_attr(t, kind_pair(f.kind)) | (selected ? A_REVERSE : 0);
    tui_put(t, y, 0, 1, tui_tagged(t, number) ? "*" : " ", attr);
    tui_put(t, y, 1, cols - 1, line != NULL ? line : "(out of memory)", attr);
    free(line);
}

static void
draw_pane_title(struct tui *t, int y, int cols, const char *title)
{
    tui_put(t, y, 0, cols, title, tui_attr(t, PAIR_BAR));
}

/* One line of the tree as the pane lays it out. */
struct tree_row {
    int field;              /* field id, -1 for the frame and malformed lines */
    unsigned depth;
    bool node;
    uint32_t offset, length;
    long text;              /* where its text starts in the text buffer */
};

struct tree_build {
    struct tree_row *rows;
    size_t n, cap;
    FILE *fp;
    struct rs_out out;
    const struct rs_packet *pkt;
    bool failed;
};

static void
add_tree_row(void *arg, const struct rs_tree_item *it)
{
    struct tree_build *b = arg;

    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        struct tree_row *r = realloc(b->rows, cap * sizeof(*r));
        if (r == NULL) {
            b->failed = true;
            return;
        }
        b->rows = r;
        b->cap = cap;
    }
    b->rows[b->n++] = (struct tree_row){
        it->field != NULL ? rs_field_lookup(it->field->abbrev) : -1, it->depth, it->node,
        it->offset, it->length, ftell(b->fp) + (long)b->out.len};
    rs_print_tree_line(&b->out, b->pkt, it);
    rs_out_char(&b->out, '\0');
}

/* The selected packet's tree: its rows, and their texts, each ended by a NUL (the
 * caller frees both). */
static bool
build_tree(struct tui *t, struct tree_row **rows, size_t *n, char **text)
{
    size_t size = 0;
    struct tree_build b = {.pkt = &t->dec.pkt};

    *rows = NULL;
    *n = 0;
    *text = NULL;
    if ((b.fp = open_memstream(text, &size)) == NULL)
        return false;
    if (rs_out_init(&b.out, b.fp, 1u << 16) == 0) {
        rs_tree_walk(&t->dec.pkt, add_tree_row, &b);
        rs_out_flush(&b.out);
        rs_out_free(&b.out);
    } else {
        b.failed = true;
    }
    fclose(b.fp);
    *rows = b.rows;
    *n = b.n;
    return !b.failed && *text != NULL;
}

static bool
folded(const struct tui *t, int field)
{
    return field >= 0 && (size_t)field < t->n_folds && t->folds[field];
}

static void
set_fold(struct tui *t, int field, bool fold)
{
    if (field < 0)
        return;
    if ((size_t)field >= t->n_folds) {
        size_t n = (size_t)rs_field_count();
        uint8_t *f = realloc(t->folds, n);
        if (f == NULL)
            return;
        memset(f + t->n_folds, 0, n - t->n_folds);
        t->folds = f;
        t->n_folds = n;
    }
    t->folds[field] = fold;
}

static bool
has_children(const struct tree_row *rows, size_t n, size_t i)
{
    return i + 1 < n && rows[i + 1].depth > rows[i].depth;
}

/* The rows a fold does not hide, as indices into rows; returns how many. */
static size_t
visible_rows(const struct tui *t, const struct tree_row *rows, size_t n, size_t *vis)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        vis[k++] = i;
        if (rows[i].field >= 0 && folded(t, rows[i].field) && has_children(rows, n, i)) {
            unsigned d = rows[i].depth;
            while (i + 1 < n && rows[i + 1].depth > d)
                i++;
        }
    }
    return k;
}

/* Keeps the cursor on the field it was on, across packets and folds. */
static size_t
cursor_row(struct tui *t, const struct tree_row *rows, const size_t *vis, size_t n_vis)
{
    if (t->tree_sel_field != -2)
        for (size_t k = 0; k < n_vis; k++)
            if (rows[vis[k]].field == t->tree_sel_field) {
                t->tree_sel = (int)k;
                break;
            }
    if (t->tree_sel >= (int)n_vis)
        t->tree_sel = n_vis > 0 ? (int)n_vis - 1 : 0;
    if (t->tree_sel < 0)
        t->tree_sel = 0;
    if (n_vis > 0)
        t->tree_sel_field = rows[vis[t->tree_sel]].field;
    return (size_t)t->tree_sel;
}

/* Draws the tree pane; *hl gets the bytes of the line under the cursor. */
static void
draw_tree(struct tui *t, int y, int rows, int cols, uint32_t *hl_off, uint32_t *hl_len)
{
    struct tree_row *tr;
    size_t n;
    char *text;

    *hl_off = *hl_len = 0;
    if (!build_tree(t, &tr, &n, &text)) {
        tui_put(t, y, 0, cols, "(out of memory)", tui_attr(t, PAIR_BAD));
        free(tr);
        free(text);
        return;
    }
    size_t *vis = malloc((n > 0 ? n : 1) * sizeof(*vis));
    if (vis == NULL) {
        free(tr);
        free(text);
        return;
    }
    size_t n_vis = visible_rows(t, tr, n, vis), sel = cursor_row(t, tr, vis, n_vis);
    uint64_t top = (uint64_t)(t->tree_top > 0 ? t->tree_top : 0);
    tui_scroll_into_view(&top, sel, n_vis, rows);
    t->tree_top = (int)top;
    for (int r = 0; r < rows && top + (uint64_t)r < n_vis; r++) {
        size_t k = (size_t)top + (size_t)r;
        const struct tree_row *row = &tr[vis[k]];
        bool kids = has_children(tr, n, vis[k]);
        const char *mark = !kids ? "  " : folded(t, row->field) ? (t->utf8 ? "\u25b8 " : "+ ")
                                                                 : (t->utf8 ? "\u25be " : "- ");
        char line[512];
        snprintf(line, sizeof(line), "%*s%s%s", (int)(row->depth * 4), "", mark,
                 text + row->text);
        tui_put(t, y + r, 0, cols, line, k == sel ? A_REVERSE : A_NORMAL);
    }
    if (n_vis > 0) {
        *hl_off = tr[vis[sel]].offset;
        *hl_len = tr[vis[sel]].length;
    }
    free(vis);
    free(tr);
    free(text);
}

/* The tree keys: the cursor, folding; false for any other key. */
static bool
tree_key(struct tui *t, int key)
{
    struct tree_row *tr;
    size_t n;
    char *text;

    if (key != 'J' && key != 'K' && key != KEY_LEFT && key != KEY_RIGHT && key != 'C' &&
        key != 'E')
        return false;
    if (!build_tree(t, &tr, &n, &text)) {
        free(tr);
        free(text);
        return true;
    }
    size_t *vis = malloc((n > 0 ? n : 1) * sizeof(*vis));
    if (vis != NULL && n > 0) {
        size_t n_vis = visible_rows(t, tr, n, vis), sel = cursor_row(t, tr, vis, n_vis);
        const struct tree_row *row = &tr[vis[sel]];
        switch (key) {
        case 'J':
            sel = sel + 1 < n_vis ? sel + 1 : sel;
            break;
        case 'K':
            sel = sel > 0 ? sel - 1 : 0;
            break;
        case KEY_LEFT:
            if (has_children(tr, n, vis[sel]) && !folded(t, row->field) && row->field >= 0) {
                set_fold(t, row->field, true);
            } else {
                while (sel > 0 && tr[vis[sel - 1]].depth >= row->depth)
                    sel--;      /* up to the parent: the nearest line above, less deep */
                sel = sel > 0 ? sel - 1 : 0;
            }
            break;
        case KEY_RIGHT:
            set_fold(t, row->field, false);
            break;
        default:    /* C and E: every node of this tree */
            for (size_t i = 0; i < n; i++)
                if (has_children(tr, n, i))
                    set_fold(t, tr[i].field, key == 'C');
            break;
        }
        t->tree_sel = (int)sel;
        t->tree_sel_field = key == 'C' ? -1 : tr[vis[sel]].field;
        if (key == 'C')
            t->tree_sel = 0;
    }
    free(vis);
    free(tr);
    free(text);
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
    int list_rows = rows * 9 / 20;
    int hex_rows = (rows - list_rows) * 2 / 5 - 1;
    int tree_rows = rows - list_rows - hex_rows - 2;

    settle_selection(t, n);
    tui_scroll_into_view(&t->pkt_top, t->pkt_sel, n, list_rows);
    for (int i = 0; i < list_rows && t->pkt_top + (uint64_t)i < n; i++) {
        uint64_t k = t->pkt_top + (uint64_t)i;
        draw_list_row(t, y + i, cols, rs_tui_model_shown_frame(t->model, k), k == t->pkt_sel);
    }
    if (n == 0) {
        tui_put(t, y, 0, cols, "(no packets shown)", A_DIM);
        return;
    }
    /* The selected frame last, so that t->dec holds it for the panes below. */
    uint64_t number = rs_tui_model_shown_frame(t->model, t->pkt_sel);
    char err[RS_ERRBUF_SIZE], title[64];
    snprintf(title, sizeof(title), " Packet %llu%s", (unsigned long long)number,
             t->follow ? " (following)" : "");
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
    if (!tui_move_selection(&t->pkt_sel, n, key, LINES * 9 / 20))
        return false;
    /* End follows the newest packet; any other move stops following. */
    t->follow = key == KEY_END;
    t->want_frame = 0;
    if (t->pkt_sel != before)
        t->tree_top = 0;    /* the cursor stays on its field (tree_sel_field) */
    return true;
}
