/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_int.h - the compiled form of a display filter: a tree of nodes.
 * filter_parse.c builds it, filter_eval.c runs it. Not part of the API.
 */
#ifndef ROCESHARK_FILTER_INT_H
#define ROCESHARK_FILTER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/fields.h>
#include <roceshark/filter.h>

enum node_kind {
    NODE_AND,
    NODE_OR,
    NODE_NOT,
    NODE_PRESENT,       /* field */
    NODE_COMPARE,       /* field op literal */
    NODE_IN,            /* field in {set} */
    NODE_CONTAINS,      /* field contains literal */
    NODE_BITAND         /* field & literal: some bit of the mask is set */
};

enum cmp_op { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };

/* A literal, converted to the field's type when the filter is compiled. */
struct literal {
    uint8_t kind;           /* LIT_* */
    uint64_t u;             /* integers, booleans, frame numbers */
    struct rs_time t;       /* times */
    double d;
    uint8_t bytes[64];      /* addresses, byte strings, text */
    uint32_t len;
    uint32_t prefix;        /* address prefix length in bits (all bits by default) */
    uint64_t hi;            /* upper end of a range in a set (integers) */
    bool range;
};

enum { LIT_UINT, LIT_TIME, LIT_DOUBLE, LIT_BYTES, LIT_STRING };

/* AND and OR hold all the operands of a chain (a && b && c is one node with
 * three), so a long chain makes a wide tree, not a deep one: the tree is
 * only as deep as the parentheses nest, which the parser bounds, and the
 * recursive walks over it (evaluation, freeing) stay shallow. */
struct node {
    enum node_kind kind;
    struct node **kids;             /* AND/OR operands; NOT has one */
    uint32_t n_kids;
    int field;                      /* lowest id of the field's name */
    enum cmp_op op;
    struct literal *set;            /* one literal for COMPARE/CONTAINS/BITAND, n for IN */
    uint32_t n_set;
};

struct rs_filter {
    struct node *root;
    char *text;
};

/* Converts literal text to the type of field f; fills err on failure. */
bool filter_literal(const struct rs_field *f, const char *text, size_t len, bool quoted,
                    struct literal *out, char *err, size_t errlen);

bool filter_eval(const struct node *n, const struct rs_packet *pkt);
void filter_node_free(struct node *n);

#endif /* ROCESHARK_FILTER_INT_H */
