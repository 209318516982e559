/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view_packets.c - the Packets view, termshark's three panes: the list of
 * shown packets (the lines `roceshark read` prints), the `-V` tree of the
 * selected one, and its bytes in hex. The first column marks tagged
 * packets with a '*'.
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

static void
draw_tree(struct tui *t, int y, int rows, int cols)
{
    char *text = print_to_text(rs_print_tree, &t->dec.pkt);
    const char *s = text != NULL ? text : "";
    int line = 0;

    if (t->tree_top < 0)
        t->tree_top = 0;
    while (*s != '\0' && line < t->tree_top + rows) {
        size_t len = strcspn(s, "\n");
        if (line >= t->tree_top) {
            char row[512];
            snprintf(row, sizeof(row), "%.*s", (int)(len < sizeof(row) ? len : sizeof(row) - 1),
                     s);
            tui_put(t, y + line - t->tree_top, 0, cols, row, A_NORMAL);
        }
        s += len + (s[len] == '\n');
        line++;
    }
    free(text);
}

static void
draw_hex(struct tui *t, int y, int rows, int cols)
{
    const struct rs_frame *f = &t->dec.frame;

    for (int r = 0; r < rows && (uint32_t)r * HEX_BYTES_PER_LINE < f->caplen; r++) {
        char row[128], *p = row;
        uint32_t off = (uint32_t)r * HEX_BYTES_PER_LINE;
        p += sprintf(p, "%04x  ", off);
        for (uint32_t i = 0; i < HEX_BYTES_PER_LINE; i++) {
            if (off + i < f->caplen)
                p += sprintf(p, "%02x ", f->data[off + i]);
            else
                p += sprintf(p, "   ");
            if (i == 7)
                *p++ = ' ';
        }
        *p++ = ' ';
        for (uint32_t i = 0; i < HEX_BYTES_PER_LINE && off + i < f->caplen; i++) {
            uint8_t c = f->data[off + i];
            *p++ = c >= 0x20 && c < 0x7f ? (char)c : '.';
        }
        *p = '\0';
        tui_put(t, y + r, 0, cols, row, A_NORMAL);
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
    draw_tree(t, y + list_rows + 1, tree_rows, cols);
    draw_pane_title(t, y + list_rows + 1 + tree_rows, cols, " Bytes");
    draw_hex(t, y + list_rows + 2 + tree_rows, hex_rows, cols);
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
    case 'J':
        t->tree_top++;
        return true;
    case 'K':
        t->tree_top--;
        return true;
    default:
        break;
    }
    uint64_t before = t->pkt_sel;
    if (!tui_move_selection(&t->pkt_sel, n, key, LINES * 9 / 20))
        return false;
    /* End follows the newest packet; any other move stops following. */
    t->follow = key == KEY_END;
    t->want_frame = 0;
    if (t->pkt_sel != before)
        t->tree_top = 0;
    return true;
}
