/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree_doc.c - a frame's tree, as rs_tree_walk_hidden() gives it line by
 * line, held as linked nodes. The walk says only each line's depth; the
 * deeper lines that follow a node are its children.
 */
#include <stdlib.h>
#include <string.h>

#include "print/tree_doc.h"

struct build {
    struct tree_doc *d;
    int open[TREE_MAX_DEPTH];        /* the nodes that later lines may be children of */
    unsigned n_open;
    int last_root;
};

static bool
grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t n = *cap == 0 ? 64 : *cap;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (q == NULL)
        return false;
    *p = q;
    *cap = n;
    return true;
}

static void
add(void *arg, const struct rs_tree_item *it)
{
    struct build *b = arg;
    struct tree_doc *d = b->d;

    if (d->failed || !grow((void **)&d->nodes, &d->cap, d->n + 1, sizeof(*d->nodes))) {
        d->failed = true;
        return;
    }
    int id = (int)d->n++;
    struct tree_node *n = &d->nodes[id];
    n->it = *it;
    n->it.value = NULL;
    n->it.view = NULL;      /* a view lives for the call only too */
    n->child = n->next = n->last = TREE_NONE;
    n->has_value = it->kind == RS_TREE_FIELD && it->field->type != RS_FT_PROTOCOL &&
                   it->field->type != RS_FT_NONE;
    memset(&n->value, 0, sizeof(n->value));
    if (it->value != NULL) {
        n->value = *it->value;      /* the walker's value lives for the call only */
        if (it->value->type == RS_FT_STRING) {
            size_t len = strlen(it->value->v.str) + 1;
            if (!grow((void **)&d->strings, &d->strings_cap, d->strings_len + len, 1)) {
                d->failed = true;
                d->n--;
                return;
            }
            memcpy(d->strings + d->strings_len, it->value->v.str, len);
            n->value.v.u = d->strings_len;  /* an offset until the buffer stops moving */
            d->strings_len += len;
        }
    }
    while (b->n_open > 0 && d->nodes[b->open[b->n_open - 1]].it.depth >= it->depth)
        b->n_open--;
    n->parent = b->n_open > 0 ? b->open[b->n_open - 1] : TREE_NONE;
    if (n->parent == TREE_NONE) {
        if (b->last_root != TREE_NONE)
            d->nodes[b->last_root].next = id;
        b->last_root = id;
    } else {
        struct tree_node *p = &d->nodes[n->parent];
        if (p->last == TREE_NONE)
            p->child = id;
        else
            d->nodes[p->last].next = id;
        p->last = id;
    }
    if (b->n_open < TREE_MAX_DEPTH)
        b->open[b->n_open++] = id;
}

static _Thread_local struct tree_doc doc;

void
tree_doc_thread_end(void)
{
    free(doc.nodes);
    free(doc.strings);
    memset(&doc, 0, sizeof(doc));
}

const struct tree_doc *
tree_doc_build(const struct rs_packet *pkt)
{
    struct build b = {.d = &doc, .last_root = TREE_NONE};

    doc.pkt = pkt;
    doc.n = doc.strings_len = 0;
    doc.failed = false;
    doc.base = tree_doc_base(pkt);
    rs_tree_walk_hidden(pkt, add, &b);
    for (size_t i = 0; i < doc.n; i++) {
        struct tree_node *n = &doc.nodes[i];
        if (n->it.kind == RS_TREE_FIELD) {
            if (n->value.type == RS_FT_STRING)
                n->value.v.str = doc.strings + n->value.v.u;
            n->it.value = &n->value;
        }
    }
    return &doc;
}

bool
tree_node_is_text(const struct tree_node *n)
{
    return n->it.kind == RS_TREE_FIELD && (n->it.field->flags & RS_FIELD_TEXT) &&
           n->it.field->abbrev[0] == '\0';
}

const char *
tree_field_name(const struct rs_field *f)
{
    /* a text item ("Timestamps") is named by its text, as tshark's JSON keys it */
    return (f->flags & RS_FIELD_TEXT) && f->abbrev[0] == '\0' ? f->name : f->abbrev;
}

const char *
tree_node_name(const struct tree_node *n)
{
    return n->it.kind == RS_TREE_FRAME ? "frame" : tree_field_name(n->it.field);
}

uint32_t
tree_doc_base(const struct rs_packet *pkt)
{
    return pkt->frame->caplen > rs_packet_cap_len(pkt)
               ? pkt->frame->caplen - rs_packet_cap_len(pkt) : 0;
}

void
tree_node_show(struct rs_out *o, const struct tree_node *n)
{
    const struct rs_value *v = &n->value;

    if (n->it.field->type == RS_FT_BYTES)
        rs_out_hex(o, v->v.bytes.ptr, v->v.bytes.len, ':');
    else
        rs_out_value(o, n->it.field, v);
}
