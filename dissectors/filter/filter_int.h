/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_int.h - the compiled form of a display filter: tests (AND, OR, NOT,
 * comparisons) over expressions (fields, literals, slices, functions,
 * arithmetic). filter_lex.c cuts the text into tokens, filter_parse.c builds
 * the tree, filter_type.c types it (converting literals to the type they are
 * compared with), filter_eval.c runs it. Not part of the API.
 */
#ifndef ROCESHARK_FILTER_INT_H
#define ROCESHARK_FILTER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/filter.h>

/* ---- tokens (filter_lex.c) ---- */

enum tok {
    TOK_END, TOK_WORD, TOK_STRING, TOK_CHAR, TOK_LPAREN, TOK_RPAREN, TOK_LBRACE, TOK_RBRACE,
    TOK_LBRACKET, TOK_RBRACKET, TOK_COMMA, TOK_RANGE, TOK_AND, TOK_OR, TOK_NOT, TOK_RELOP,
    TOK_CONTAINS, TOK_MATCHES, TOK_IN, TOK_ANY, TOK_ALL, TOK_PLUS, TOK_MINUS, TOK_STAR,
    TOK_SLASH, TOK_PERCENT, TOK_BITAND, TOK_HASH, TOK_REF
};

/* Comparisons, with Wireshark 4.0's default quantifier of each: == and the orderings
 * hold when some pair of values does, != when every pair differs, === when every pair
 * is equal, !== (and ~=) when some pair differs. */
enum cmp_op { CMP_EQ, CMP_NE, CMP_ALL_EQ, CMP_ANY_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };

struct parser {
    const char *text;
    size_t pos;             /* where the current token starts */
    size_t end;             /* where it ends */
    enum tok tok;
    enum cmp_op relop;      /* TOK_RELOP's operator */
    bool raw;               /* TOK_STRING: r"..." (no escapes) */
    unsigned depth;         /* parentheses and braces open around the current token */
    char *err;
    bool failed;
    bool oom;               /* a node could not be allocated */
};

/* Moves to the next token. */
void filter_next(struct parser *p);
/* Reads the next token as a slice's range ("0:2", "-4:", "1-3"), after '[' or ','. */
void filter_next_range(struct parser *p);
/* Fails the compilation with "at position N: what"; returns false. */
bool filter_fail(struct parser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Whether name is a protocol tshark 4.0 knows (filter_protocol_names.c). */
bool filter_protocol_known(const char *name);

/* ---- values ---- */

/* A signed 64-bit integer: the result of arithmetic on 64-bit fields that went below
 * zero. No field has this type; it lives only inside a filter (held in value.u). */
#define FV_INT64 0x80
/* Text as bytes and a length: a field's string, a literal, what lower() or string()
 * made. */
#define FV_TEXT 0x81

/* One value an expression yields: a field's, a literal's, or one computed from them.
 * A protocol's bytes are those of its item (slices, comparisons, len()); extent is how
 * many bytes from there were handed to it, its payload included, which contains and
 * matches search, as Wireshark's do. */
struct fval {
    struct rs_value v;
    uint32_t extent;
};

/* ---- expressions ---- */

enum expr_kind { EXPR_FIELD, EXPR_LITERAL, EXPR_SLICE, EXPR_FUNC, EXPR_ARITH, EXPR_NEG,
                 EXPR_REF };

/* Functions of Wireshark 4.0. */
enum filter_fn { FN_LEN, FN_COUNT, FN_LOWER, FN_UPPER, FN_STRING, FN_ABS, FN_MAX, FN_MIN };

enum arith_op { ARITH_ADD, ARITH_SUB, ARITH_MUL, ARITH_DIV, ARITH_MOD, ARITH_AND };

/* One range of a slice: start (negative counts from the end) and length (0: to the
 * end). */
struct slice_range {
    int32_t start;
    uint32_t len;
};

/* Ranges one slice may join, as frame[0:2,6:2]. */
#define FILTER_RANGES_MAX 8
/* Arguments max() and min() take at most. */
#define FILTER_FN_ARGS_MAX 8
/* Longest value a filter computes into its own buffer (a slice of several ranges,
 * lower(), string(), bytes & bytes); longer ones are cut there. */
#define FILTER_VALUE_MAX 1024
/* Longest literal of bytes or text. */
#define FILTER_LITERAL_MAX 256

/* A literal's text until it is typed, then its value. */
struct literal {
    const char *text;       /* into the filter's text */
    size_t len;
    uint8_t tok;            /* TOK_WORD, TOK_STRING or TOK_CHAR */
    bool raw;               /* r"..." */
    bool typed;
    uint32_t prefix;        /* addresses: prefix length in bits (all bits by default) */
    uint8_t bytes[FILTER_LITERAL_MAX];
};

struct expr {
    enum expr_kind kind;
    size_t pos, len;        /* where it is in the text, for errors */
    uint8_t type;           /* RS_FT_* (or FV_INT64) of the values it yields, once typed */
    /* EXPR_FIELD */
    int field;              /* lowest id of the field's name */
    bool as_bytes;          /* a protocol read as its bytes (compared, sliced, matched) */
    bool layered;                   /* field#N, field#[a-b]: only some layers count */
    uint8_t layer_lo, layer_hi;
    /* EXPR_LITERAL */
    struct literal *lit;
    struct fval value;
    /* EXPR_SLICE */
    uint8_t n_ranges;
    struct slice_range ranges[FILTER_RANGES_MAX];
    /* EXPR_FUNC */
    uint8_t fn;
    /* EXPR_ARITH */
    uint8_t op;
    /* operands: a slice's or a negation's value, an operation's two sides, a function's
     * arguments */
    struct expr *args[FILTER_FN_ARGS_MAX];
    uint8_t n_args;
};

/* ---- tests ---- */

enum node_kind {
    NODE_AND, NODE_OR, NODE_NOT,
    NODE_EXISTS,        /* a field or a slice alone: it has a value */
    NODE_TRUE,          /* arithmetic alone: some value of it is not zero */
    NODE_COMPARE,       /* a op b */
    NODE_CONTAINS,      /* a contains b */
    NODE_MATCHES,       /* a matches "regex" */
    NODE_IN             /* a in {set} */
};

/* any/all written before a test: which values must satisfy it. */
enum quant { QUANT_DEFAULT, QUANT_ANY, QUANT_ALL };

/* One member of a set: a value, or a range lo..hi. */
struct set_item {
    struct expr *lo, *hi;   /* hi NULL: a single value */
};

/* AND and OR hold all the operands of a chain (a && b && c is one node with three), so
 * a long chain makes a wide tree, not a deep one: the tree is only as deep as the
 * parentheses and braces nest, which the parser bounds, and the recursive walks over it
 * (evaluation, freeing) stay shallow. */
struct node {
    enum node_kind kind;
    struct node **kids;     /* AND/OR operands; NOT has one */
    uint32_t n_kids;
    enum cmp_op op;
    enum quant quant;
    struct expr *a, *b;     /* the left side; the right side of COMPARE and CONTAINS */
    struct set_item *set;   /* NODE_IN */
    uint32_t n_set;
    struct _GRegex *re;     /* NODE_MATCHES: compiled once, with the filter */
};

struct rs_filter {
    struct node *root;
    char *text;
};

/* ---- typing (filter_type.c) ---- */

/* Types e, converting its literals to the type of ctx, the typed expression it is
 * compared with (NULL when nothing gives it a type); false with the parser failed. */
bool filter_type_expr(struct parser *p, struct expr *e, const struct expr *ctx);
/* Checks that a and b can be compared with op (CMP_* or -1 for contains), typing
 * literals on either side from the other. */
bool filter_type_pair(struct parser *p, struct expr *a, struct expr *b, int op);
/* Whether values of type t are bytes to the filter (bytes, MACs, protocols, slices). */
bool filter_type_bytes(uint8_t t);
/* The class of a type for arithmetic: 1 unsigned, 2 signed, 3 double, 4 relative time,
 * 5 bytes (& only), 0 none. */
int filter_arith_class(uint8_t t);
/* "FT_UINT32", as Wireshark names types in its messages. */
const char *filter_type_name(uint8_t t);
#define FILTER_NO_TYPE 0xff

/* ---- literals (filter_literal.c, filter_abstime.c) ---- */

/* Converts a literal to a value of type `type`, to be compared with `what` (a field's
 * name, or a slice or function as written); f is that field, whose value names count, or
 * NULL. Fills err on failure. */
bool filter_literal(const struct rs_field *f, const char *what, uint8_t type,
                    struct literal *lit, struct fval *out, char *err, size_t errlen);
/* Parses a quoted string's escapes as Wireshark does (\\xhh, \\ooo, \\n, \\uhhhh, ...)
 * into out (size bytes); returns the length, or -1 with err filled. */
long filter_unescape(const char *s, size_t len, uint8_t *out, size_t size, char *err,
                     size_t errlen);
/* A date and time as Wireshark 4.0 reads one ("2020-07-04 12:34:56[.frac][Z|+hh:mm]",
 * "Jul  4, 2020 12:34:56[.frac][ UTC]"), local time unless it says otherwise. */
bool filter_abstime(const char *s, size_t len, struct rs_time *out, char *err, size_t errlen);

/* ---- values (filter_value.c) ---- */

/* Compares a with b as Wireshark does: b is read as a's kind of value; false when it
 * cannot be (a negative number against an unsigned one), else *cmp is <0, 0 or >0 and
 * *equal says equality (an address under a prefix is equal to every address in it). */
bool filter_compare(const struct fval *a, const struct fval *b, const struct literal *blit,
                    int *cmp, bool *equal);
/* a op b (or -a with op ARITH_SUB and a NULL); false when there is no result (overflow,
 * division by zero), as tshark gives none. buf (FILTER_VALUE_MAX bytes) holds bytes. */
bool filter_arith(enum arith_op op, const struct fval *a, const struct fval *b,
                  struct fval *out, uint8_t *buf);
bool filter_negate(const struct fval *a, struct fval *out);
/* Whether v is not zero (arithmetic alone). */
bool filter_nonzero(const struct fval *v);
/* The bytes v holds (bytes, addresses, protocols, text); false for numbers. whole:
 * a protocol's extent rather than its item. */
bool filter_value_bytes(const struct fval *v, bool whole, const uint8_t **s, size_t *len);
/* A protocol's bytes as Wireshark's item spans them, and its extent; false when the
 * packet has none. */
bool filter_protocol_bytes(const struct rs_packet *pkt, const struct rs_field *f,
                           const struct rs_value *v, struct fval *out);

/* ---- evaluation (filter_eval.c) ---- */

bool filter_eval(const struct node *n, const struct rs_packet *pkt);
void filter_node_free(struct node *n);
void filter_expr_free(struct expr *e);

#endif /* ROCESHARK_FILTER_INT_H */
