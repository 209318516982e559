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
    NODE_BITAND,        /* field & literal: some bit of the mask is set */
    NODE_MATCHES,       /* field matches "regex" */
    NODE_FIELDS         /* operand op operand: both sides read from the packet */
};

/* Functions an operand can apply to its field (Wireshark 4.0's). */
enum filter_fn { FN_NONE, FN_LEN, FN_COUNT, FN_LOWER, FN_UPPER, FN_STRING, FN_ABS, FN_MAX, FN_MIN };

/* Fields max() and min() take at most. */
#define FILTER_FN_ARGS_MAX 8

/* One range of a slice: start (negative counts from the end) and length
 * (0: to the end). */
struct slice_range {
    int32_t start;
    uint32_t len;
};

/* Ranges one slice may join, as frame[0:2,6:2]. */
#define FILTER_RANGES_MAX 8

/* One side of a test: a field, perhaps sliced (ip.src[0:2]) or passed
 * through a function (len(infiniband.reth)). A "derived" operand yields
 * values of another type than its field's: a slice yields bytes, len()
 * and count() numbers, lower(), upper() and string() strings, abs() the
 * field's own type, max() and min() the largest or smallest value of every
 * field they name (all of one type). Protocols (frame, udp, infiniband) yield their bytes
 * when compared, sliced or matched. */
struct operand {
    int field;                      /* lowest id of the field's name */
    uint8_t fn;                     /* enum filter_fn */
    uint8_t n_more;                 /* max(), min(): fields after the first */
    int more[FILTER_FN_ARGS_MAX - 1];
    bool sliced;
    bool derived;                   /* fn, slice or protocol bytes: the slow path */
    uint8_t type;                   /* enum rs_ftype of the values it yields */
    uint8_t n_ranges;               /* a slice's ranges, joined in order */
    struct slice_range ranges[FILTER_RANGES_MAX];
};

/* Longest string lower() and upper() convert, and longest slice of several
 * ranges; longer ones are cut there. */
#define FILTER_CASE_MAX 1024

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
    struct operand a;               /* the left side (a.field == field) */
    struct operand b;               /* the right side of NODE_FIELDS */
    bool field_contains;            /* NODE_FIELDS: a contains b rather than a op b */
    struct _GRegex *re;             /* NODE_MATCHES: compiled once, with the filter */
};

struct rs_filter {
    struct node *root;
    char *text;
};

/* Converts literal text to the type of field f; fills err on failure. */
bool filter_literal(const struct rs_field *f, const char *text, size_t len, bool quoted,
                    struct literal *out, char *err, size_t errlen);

/* Parses a quoted string's escapes as Wireshark does (\\xhh, \\ooo, \\n, ...)
 * into out (size bytes); returns the length, or -1 with err filled. */
long filter_unescape(const char *s, size_t len, uint8_t *out, size_t size, char *err,
                     size_t errlen);

bool filter_eval(const struct node *n, const struct rs_packet *pkt);
void filter_node_free(struct node *n);

#endif /* ROCESHARK_FILTER_INT_H */
