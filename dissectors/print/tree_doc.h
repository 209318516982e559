/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree_doc.h - one frame's tree (rs_tree_walk_hidden's lines) held as nodes
 * that know their parent, children and next sibling, for the printers that
 * need to look ahead: JSON groups a name's values and writes "x_tree" only
 * when a node has children.
 */
#ifndef ROCESHARK_PRINT_TREE_DOC_H
#define ROCESHARK_PRINT_TREE_DOC_H

#include <roceshark/dissectors/print.h>

#define TREE_NONE (-1)
/* The deepest a node nests: a deeper line is its parent's sibling. */
#define TREE_MAX_DEPTH 32

struct tree_node {
    struct rs_tree_item it;     /* it.value points at value (NULL for the frame line) */
    struct rs_value value;
    int parent, child, next;    /* indexes into the doc's nodes, or TREE_NONE */
    int last;                   /* the last child so far, while building */
    bool has_value;             /* see tree_node_has_value */
};

struct tree_doc {
    const struct rs_packet *pkt;
    struct tree_node *nodes;    /* nodes[0] is the frame line; the roots are its siblings */
    size_t n, cap;
    char *strings;              /* copies of the string values: a getter's buffer is reused */
    size_t strings_len, strings_cap;
    uint32_t base;              /* bytes before the frame's own (an ERF record's header) */
    bool failed;                /* out of memory: the tree is cut short */
};

/* The frame's tree, in a buffer of this thread that the next call reuses. */
const struct tree_doc *tree_doc_build(const struct rs_packet *pkt);
/* Frees this thread's buffer (rs_print_thread_end). */
void tree_doc_thread_end(void);
/* A text item of no field ("Timestamps"): abbrev "", its text in name. */
bool tree_node_is_text(const struct tree_node *n);
/* The name tshark gives the node: "frame", "_ws.malformed", a text item's text, or the
 * field's. */
const char *tree_node_name(const struct tree_node *n);
/* The name of a node of field f: its text for a text item, else its abbrev. */
const char *tree_field_name(const struct rs_field *f);
/* Whether the node has a value of its own (a protocol or a label has not): known when it
 * was added, while its field was at hand. */
static inline bool
tree_node_has_value(const struct tree_node *n)
{
    return n->has_value;
}
/* The bytes before the frame's own (an ERF record's header), as base. */
uint32_t tree_doc_base(const struct rs_packet *pkt);
/* Its value as PDML's show and JSON print it: bytes as 00:1a:ff, else as -T fields. */
void tree_node_show(struct rs_out *o, const struct tree_node *n);

#endif /* ROCESHARK_PRINT_TREE_DOC_H */
