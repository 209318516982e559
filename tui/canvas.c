/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * canvas.c - a dot canvas for graphs in a terminal. Each character cell is
 * two dots wide and four high, drawn as a Unicode braille pattern (U+2800
 * plus one bit per dot), as termshark and the terminal plotting tools do;
 * without UTF-8 a cell with any dot is drawn as one ASCII mark. Each cell
 * also keeps the highest kind of dot drawn in it, which the screen turns
 * into the cell's colour: a retransmission is never hidden by the requests
 * around it.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/tui/tui.h>

/* Braille dot bits by position: column 0 holds dots 1, 2, 3, 7; column 1
 * dots 4, 5, 6, 8 (ISO/TR 11548-1). */
static const uint8_t braille_bit[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20},
                                          {0x40, 0x80}};

int
rs_tui_canvas_init(struct rs_tui_canvas *c, int cols, int rows)
{
    memset(c, 0, sizeof(*c));
    if (cols <= 0 || rows <= 0)
        return RS_EINVAL;
    c->dots = calloc((size_t)cols * (size_t)rows, 1);
    c->kind = calloc((size_t)cols * (size_t)rows, 1);
    if (c->dots == NULL || c->kind == NULL) {
        rs_tui_canvas_free(c);
        return RS_ENOMEM;
    }
    c->cols = cols;
    c->rows = rows;
    return 0;
}

void
rs_tui_canvas_free(struct rs_tui_canvas *c)
{
    free(c->dots);
    free(c->kind);
    memset(c, 0, sizeof(*c));
}

void
rs_tui_canvas_dot(struct rs_tui_canvas *c, int x, int y, uint8_t kind)
{
    if (x < 0 || y < 0 || x >= 2 * c->cols || y >= 4 * c->rows)
        return;
    size_t cell = (size_t)(y / 4) * (size_t)c->cols + (size_t)(x / 2);
    c->dots[cell] |= braille_bit[y % 4][x % 2];
    if (kind > c->kind[cell])
        c->kind[cell] = kind;
}

uint8_t
rs_tui_canvas_kind(const struct rs_tui_canvas *c, int row, int col)
{
    return c->kind[(size_t)row * (size_t)c->cols + (size_t)col];
}

/* The cell's character as UTF-8 (or ASCII) into out; returns its length. */
size_t
rs_tui_canvas_cell(const struct rs_tui_canvas *c, int row, int col, bool utf8, char out[4])
{
    uint8_t dots = c->dots[(size_t)row * (size_t)c->cols + (size_t)col];

    if (dots == 0 || !utf8) {
        /* In ASCII the upper and lower halves still tell a rise from a fall. */
        bool top = (dots & 0x1b) != 0, bottom = (dots & 0xe4) != 0;
        out[0] = top && bottom ? ':' : top ? '\'' : bottom ? '.' : ' ';
        return 1;
    }
    unsigned cp = 0x2800u + dots;      /* three bytes in UTF-8 */
    out[0] = (char)(0xe0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
}
