/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet_text.c - what the packet list and the detail pane show of a frame
 * read back (frame_read.c): the line `roceshark read` prints for it and the
 * lines of `read -V`'s tree, made by read's own printers (print.h) on the
 * packet as the pipeline left it, so that a change to what read prints
 * shows here too, with nothing to copy.
 *
 * The tree's lines keep what the pane needs beside their text: depth, which
 * node they are (the key a fold is kept by across packets) and the bytes
 * they cover. A node that covers no bytes of its own (a protocol named by
 * the fields under it) is given the span of its lines, so that every node
 * highlights its bytes.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/print.h>
#include <roceshark/tui/tui.h>

/* A buffer in memory of the printers: one line, or one tree. */
static int
text_out(struct rs_out *o, size_t cap, char *err)
{
    if (rs_out_init(o, NULL, cap) != 0)
        return rs_error(err, RS_ENOMEM, "out of memory");
    return 0;
}

int
rs_tui_row_text(const struct rs_tui_decoded *d, const struct rs_tui_time_opts *time, char **out,
                char *err)
{
    struct rs_out o;
    int rc;

    if ((rc = text_out(&o, 256, err)) != 0)
        return rc;
    o.time_col = time != NULL ? time->col : RS_TIME_COL_RELATIVE;
    rs_print_summary(&o, &d->pkt);
    if (o.failed || rs_out_reserve(&o, 1) == NULL) {
        rs_out_free(&o);
        return rs_error(err, RS_ENOMEM, "out of memory");
    }
    /* One line: its newline becomes the end of the string. */
    while (o.len > 0 && o.buf[o.len - 1] == '\n')
        o.len--;
    o.buf[o.len] = '\0';
    *out = o.buf;
    return 0;
}

struct tree_build {
    struct rs_tui_tree *tree;
    const struct rs_packet *pkt;
    struct rs_out text;
    bool failed;
};

static void
add_line(void *arg, const struct rs_tree_item *it)
{
    struct tree_build *b = arg;
    struct rs_tui_tree *t = b->tree;

    if (b->failed)
        return;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        struct rs_tui_tree_line *l = realloc(t->lines, cap * sizeof(*l));
        if (l == NULL) {
            b->failed = true;
            return;
        }
        t->lines = l;
        t->cap = cap;
    }
    int node = it->kind == RS_TREE_FRAME ? RS_TUI_TREE_FRAME
               : it->kind == RS_TREE_FIELD && it->field != NULL
                   ? rs_field_lookup(it->field->abbrev) + 1 : RS_TUI_TREE_NONE;
    t->lines[t->n++] = (struct rs_tui_tree_line){node, it->depth, it->node, it->offset,
                                                 it->length, b->text.len, it->source};
    rs_print_tree_row(&b->text, b->pkt, it);
    rs_out_char(&b->text, '\0');
}

/* A node of no bytes of its own covers those of the lines under it. */
static void
span_nodes(struct rs_tui_tree *t)
{
    for (size_t i = t->n; i-- > 0;) {
        struct rs_tui_tree_line *l = &t->lines[i];
        if (l->length > 0 || !rs_tui_tree_has_children(t, i))
            continue;
        uint32_t lo = UINT32_MAX, hi = 0;
        for (size_t k = i + 1; k < t->n && t->lines[k].depth > l->depth; k++) {
            const struct rs_tui_tree_line *c = &t->lines[k];
            if (c->length == 0 || c->source != NULL)
                continue;
            lo = c->offset < lo ? c->offset : lo;
            hi = c->offset + c->length > hi ? c->offset + c->length : hi;
        }
        if (hi > lo) {
            l->offset = lo;
            l->length = hi - lo;
        }
    }
}

int
rs_tui_tree_build(const struct rs_packet *pkt, struct rs_tui_tree *t, char *err)
{
    struct tree_build b = {t, pkt, {0}, false};
    int rc;

    t->n = 0;
    free(t->text);
    t->text = NULL;
    if ((rc = text_out(&b.text, 4096, err)) != 0)
        return rc;
    rs_tree_walk(pkt, add_line, &b);
    if (b.failed || b.text.failed) {
        rs_out_free(&b.text);
        return rs_error(err, RS_ENOMEM, "out of memory for the tree");
    }
    t->text = b.text.buf;       /* the lines' texts, each ended by a NUL */
    span_nodes(t);
    return 0;
}

bool
rs_tui_tree_has_children(const struct rs_tui_tree *t, size_t i)
{
    return i + 1 < t->n && t->lines[i + 1].depth > t->lines[i].depth;
}

void
rs_tui_tree_free(struct rs_tui_tree *t)
{
    free(t->lines);
    free(t->text);
    memset(t, 0, sizeof(*t));
}
