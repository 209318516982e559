/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_parse.c - compiling display filters: a recursive descent parser for
 * Wireshark 4.0's grammar, lowest precedence first:
 *
 *   expr     := and ( ("||" | "or") and )*
 *   and      := unary ( ("&&" | "and") unary )*
 *   unary    := ("!" | "not")* ( "(" expr ")" | relation )
 *   relation := [ "any" | "all" ] arith [ op arith (op arith)*       (a == b == c)
 *                                       | "contains" arith | ("matches" | "~") STRING
 *                                       | ["not"] "in" "{" item ("," item)* "}" ]
 *   item     := [+-]entity [ ".." [+-]entity ]
 *   arith    := sum ( "&" sum )*
 *   sum      := product ( ("+" | "-") product )*
 *   product  := signed ( ("*" | "/" | "%") signed )*
 *   signed   := ("+" | "-") entity | entity | "{" arith "}"
 *   entity   := ( FIELD [ "#" layer ] | LITERAL | STRING | 'C' | FUNC "(" arith, ... ")"
 *              | "${" FIELD "}" ) ( "[" range, ... "]" )*
 *
 * op is == != === !== ~= < <= > >= (or eq ne any_eq all_ne all_eq any_ne lt le gt
 * ge). An expression alone tests presence (a field, a slice) or, for arithmetic,
 * that some value is not zero. Each relation is typed as soon as it is read
 * (filter_type.c): literals take the type of what they are compared with, so a bad
 * address or an unknown value name is reported with its position before any packet
 * is read.
 *
 * Only parentheses and braces make the parser recurse, and they nest at most
 * RS_FILTER_MAX_DEPTH deep in all; an expression is at most as deep too (a chain of
 * 101 additions is refused): a filter is typed by users (in the TUI and the plugin as
 * well), and 20000 nested '(' used to overflow the stack.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "filter/filter_int.h"

#define MAX_SET 256
#define MAX_REGEX 1024
#define MAX_CHAIN 16        /* comparisons one chain (a < b < c) holds */

static struct node *
node_new(enum node_kind kind)
{
    struct node *n = calloc(1, sizeof(*n));

    if (n != NULL)
        n->kind = kind;
    return n;
}

static struct expr *
expr_new(struct parser *p, enum expr_kind kind, size_t pos)
{
    struct expr *e = calloc(1, sizeof(*e));

    if (e == NULL) {
        p->oom = true;
        filter_fail(p, pos, "out of memory");
        return NULL;
    }
    e->kind = kind;
    e->pos = pos;
    e->field = -1;
    e->type = FILTER_NO_TYPE;
    return e;
}

static unsigned
expr_depth(const struct expr *e)
{
    unsigned d = 0;

    for (uint8_t i = 0; i < e->n_args; i++) {
        unsigned k = expr_depth(e->args[i]);
        d = k > d ? k : d;
    }
    return d + 1;
}

/* e and its operands, which the caller gives up; NULL when it would nest too deep. */
static struct expr *
expr_with(struct parser *p, struct expr *e, struct expr *a, struct expr *b)
{
    e->args[e->n_args++] = a;
    if (b != NULL)
        e->args[e->n_args++] = b;
    if (expr_depth(e) > RS_FILTER_MAX_DEPTH + 1) {
        filter_fail(p, e->pos, "expression nested more than %d deep", RS_FILTER_MAX_DEPTH);
        filter_expr_free(e);
        return NULL;
    }
    return e;
}

static const char *const fn_names[] = {"len", "count", "lower", "upper", "string", "abs",
                                       "max", "min"};

static bool
parse_int(const char *s, size_t len, int32_t *out)
{
    char buf[16];
    char *end;

    if (len == 0 || len >= sizeof(buf))
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    long v = strtol(buf, &end, 10);
    if (*end != '\0' || !(isdigit((unsigned char)buf[0]) || buf[0] == '-') || v < -65535 ||
        v > 65535)
        return false;
    *out = (int32_t)v;
    return true;
}

/* One range between [ and ]: i:j, i-j, i, :j, i: (Wireshark's ranges). */
static bool
parse_range(struct parser *p, struct slice_range *r)
{
    const char *t = p->text + p->pos;
    size_t len = p->end - p->pos;
    const char *colon = memchr(t, ':', len);
    const char *dash = len > 1 ? memchr(t + 1, '-', len - 1) : NULL;
    int32_t i = 0, j = 0;

    if (colon != NULL) {
        size_t jl = len - (size_t)(colon - t) - 1;
        if ((colon != t && !parse_int(t, (size_t)(colon - t), &i)) ||
            (jl != 0 && !parse_int(colon + 1, jl, &j)))
            goto bad;
        if (jl != 0 && j <= 0)
            return filter_fail(p, p->pos, "range %.*s is not valid: length %d is not "
                               "positive", (int)len, t, j);
        r->start = i;
        r->len = (uint32_t)j;
    } else if (dash != NULL) {
        if (!parse_int(t, (size_t)(dash - t), &i) ||
            !parse_int(dash + 1, len - (size_t)(dash - t) - 1, &j))
            goto bad;
        if ((i < 0) != (j < 0))
            return filter_fail(p, p->pos, "range %.*s is not valid: %d and %d have "
                               "different signs", (int)len, t, i, j);
        if (j < i)
            return filter_fail(p, p->pos, "range %.*s is not valid: it ends before it "
                               "starts", (int)len, t);
        r->start = i;
        r->len = (uint32_t)(j - i + 1);
    } else {
        if (!parse_int(t, len, &i))
            goto bad;
        r->start = i;
        r->len = 1;
    }
    return true;
bad:
    return filter_fail(p, p->pos, "'%.*s' is not a valid range", (int)len, t);
}

/* [range, range, ...] after an entity: a slice of it. */
static struct expr *
parse_slice(struct parser *p, struct expr *of)
{
    struct expr *e = expr_new(p, EXPR_SLICE, of->pos);

    if (e == NULL) {
        filter_expr_free(of);
        return NULL;
    }
    if ((e = expr_with(p, e, of, NULL)) == NULL)
        return NULL;
    for (;;) {
        filter_next_range(p);
        if (p->failed)
            return e;
        if (e->n_ranges == FILTER_RANGES_MAX) {
            filter_fail(p, p->pos, "a slice joins at most %d ranges", FILTER_RANGES_MAX);
            return e;
        }
        if (!parse_range(p, &e->ranges[e->n_ranges++]))
            return e;
        filter_next(p);
        if (p->tok != TOK_COMMA)
            break;
    }
    if (p->tok != TOK_RBRACKET)
        filter_fail(p, p->pos, "expected ']'");
    e->len = p->end - e->pos;
    filter_next(p);
    return e;
}

static struct expr *parse_arith(struct parser *p);

/* FUNC(arg, ...): the current token is the name, followed by '('. */
static struct expr *
parse_function(struct parser *p)
{
    size_t len = p->end - p->pos;
    struct expr *e = expr_new(p, EXPR_FUNC, p->pos);

    if (e == NULL)
        return NULL;
    e->fn = 0xff;
    for (uint8_t f = FN_LEN; f <= FN_MIN; f++)
        if (strlen(fn_names[f]) == len && strncmp(p->text + p->pos, fn_names[f], len) == 0)
            e->fn = f;
    if (e->fn == 0xff) {
        filter_fail(p, p->pos, "function '%.*s' does not exist", (int)len, p->text + p->pos);
        return e;
    }
    filter_next(p);     /* ( */
    filter_next(p);
    if (p->tok == TOK_RPAREN) {
        filter_fail(p, p->pos, "%s() takes %s", fn_names[e->fn],
                    e->fn == FN_MAX || e->fn == FN_MIN ? "arguments" : "a field");
        return e;
    }
    for (;;) {
        if (e->n_args == FILTER_FN_ARGS_MAX) {
            filter_fail(p, p->pos, "%s() takes at most %d arguments", fn_names[e->fn],
                        FILTER_FN_ARGS_MAX);
            return e;
        }
        struct expr *arg = parse_arith(p);
        if (arg == NULL)
            return e;
        e->args[e->n_args++] = arg;
        if (p->failed || p->tok != TOK_COMMA)
            break;
        filter_next(p);
    }
    if (!p->failed && p->tok != TOK_RPAREN)
        filter_fail(p, p->pos, "expected ')' after the arguments of %s()", fn_names[e->fn]);
    e->len = p->end - e->pos;
    if (expr_depth(e) > RS_FILTER_MAX_DEPTH + 1)
        filter_fail(p, e->pos, "expression nested more than %d deep", RS_FILTER_MAX_DEPTH);
    filter_next(p);
    return e;
}

/* #N or #[ranges] after a field: the protocol layers whose values count. */
static void
parse_layer(struct parser *p, struct expr *e)
{
    int32_t lo, hi;
    char c = p->text[p->end];

    if (!isdigit((unsigned char)c) && c != '[') {
        filter_fail(p, p->end, "expected a digit or '[' right after '#'");
        return;
    }
    filter_next(p);
    if (p->tok == TOK_LBRACKET) {
        struct slice_range r = {0};
        filter_next_range(p);
        if (p->failed || !parse_range(p, &r))
            return;
        filter_next(p);
        if (p->tok != TOK_RBRACKET) {
            filter_fail(p, p->pos, "expected ']' after a layer range");
            return;
        }
        lo = r.start;
        hi = r.len == 0 ? 255 : r.start + (int32_t)r.len - 1;
    } else if (p->tok == TOK_WORD && parse_int(p->text + p->pos, p->end - p->pos, &lo)) {
        hi = lo;
    } else {
        filter_fail(p, p->pos, "expected a layer number after '#'");
        return;
    }
    if (lo < 0 || hi > 255 || hi < lo) {
        filter_fail(p, p->pos, "layers are numbered from 1 to 255");
        return;
    }
    e->layered = true;      /* #0 is no layer: no value */
    e->layer_lo = (uint8_t)lo;
    e->layer_hi = (uint8_t)hi;
    e->len = p->end - e->pos;
    filter_next(p);
}

/* A word: a field (perhaps with its layer), a function call, or a literal. */
static struct expr *
parse_word(struct parser *p)
{
    char name[160];
    size_t len = p->end - p->pos, k = p->end;

    while (isspace((unsigned char)p->text[k]))
        k++;
    if (p->text[k] == '(')
        return parse_function(p);
    bool known = false, never = false;
    if (len < sizeof(name)) {
        memcpy(name, p->text + p->pos, len);
        name[len] = '\0';
        known = rs_field_lookup(name) >= 0;
        never = !known && filter_protocol_known(name);
    }
    struct expr *e = expr_new(p, known || never ? EXPR_FIELD : EXPR_LITERAL, p->pos);
    if (e == NULL)
        return NULL;
    e->len = len;
    if (known || never) {
        e->field = rs_field_lookup(known ? name : "frame");
        e->type = rs_field_by_id(e->field)->type;
        /* A protocol tshark knows and we neither dissect nor identify: a valid term
         * that is never true, as the frame protocol in layer 0, which no frame has. */
        e->layered = never;
        filter_next(p);
        if (p->tok == TOK_HASH)
            parse_layer(p, e);
        if (never)
            e->layer_lo = e->layer_hi = 0;
        return e;
    }
    if ((e->lit = calloc(1, sizeof(*e->lit))) == NULL) {
        p->oom = true;
        filter_fail(p, p->pos, "out of memory");
        return e;
    }
    e->lit->text = p->text + p->pos;
    e->lit->len = len;
    e->lit->tok = TOK_WORD;
    filter_next(p);
    return e;
}

/* ${field}: a field of the frame selected in Wireshark's GUI; tshark has none, so it
 * has no value. */
static struct expr *
parse_reference(struct parser *p)
{
    struct expr *e = expr_new(p, EXPR_REF, p->pos);

    if (e == NULL)
        return NULL;
    filter_next(p);
    struct expr *f = p->tok == TOK_WORD ? parse_word(p) : NULL;
    if (f == NULL || f->kind != EXPR_FIELD) {
        filter_fail(p, f != NULL ? f->pos : p->pos, "a reference ${...} names a field");
        filter_expr_free(f);
        return e;
    }
    e->field = f->field;
    e->type = f->type;
    filter_expr_free(f);
    if (p->tok != TOK_RBRACE)
        filter_fail(p, p->pos, "expected '}' after the field of a reference");
    e->len = p->end - e->pos;
    filter_next(p);
    return e;
}

static struct expr *
parse_entity(struct parser *p)
{
    struct expr *e;

    switch (p->tok) {
    case TOK_WORD:
        e = parse_word(p);
        break;
    case TOK_STRING:
    case TOK_CHAR:
        if ((e = expr_new(p, EXPR_LITERAL, p->pos)) == NULL)
            return NULL;
        if ((e->lit = calloc(1, sizeof(*e->lit))) == NULL) {
            p->oom = true;
            filter_fail(p, p->pos, "out of memory");
            return e;
        }
        /* the text between the quotes */
        e->lit->text = p->text + p->pos + 1 + p->raw;
        e->lit->len = p->end - p->pos - 2 - p->raw;
        e->lit->tok = (uint8_t)p->tok;
        e->lit->raw = p->raw;
        e->len = p->end - p->pos;
        filter_next(p);
        break;
    case TOK_REF:
        e = parse_reference(p);
        break;
    case TOK_END:
        filter_fail(p, p->pos, "expected a field or a value at the end");
        return NULL;
    default:
        filter_fail(p, p->pos, "expected a field or a value");
        return NULL;
    }
    while (e != NULL && !p->failed && p->tok == TOK_LBRACKET)
        e = parse_slice(p, e);
    return e;
}

/* [+-] entity, or { arith }. */
static struct expr *
parse_signed(struct parser *p)
{
    if (p->tok == TOK_LBRACE) {
        size_t open = p->pos;
        if (p->depth == RS_FILTER_MAX_DEPTH) {
            filter_fail(p, open, "parentheses and braces nested more than %d deep",
                        RS_FILTER_MAX_DEPTH);
            return NULL;
        }
        p->depth++;
        filter_next(p);
        struct expr *e = parse_arith(p);
        p->depth--;
        if (e != NULL && !p->failed && p->tok != TOK_RBRACE)
            filter_fail(p, p->tok == TOK_END ? open : p->pos,
                        p->tok == TOK_END ? "'{' is never closed" : "expected '}'");
        filter_next(p);
        return e;
    }
    if (p->tok == TOK_PLUS) {
        filter_next(p);
        return parse_entity(p);
    }
    if (p->tok == TOK_MINUS) {
        struct expr *e = expr_new(p, EXPR_NEG, p->pos);
        if (e == NULL)
            return NULL;
        filter_next(p);
        struct expr *a = parse_entity(p);
        if (a == NULL) {
            filter_expr_free(e);
            return NULL;
        }
        e->len = a->pos + a->len - e->pos;
        return expr_with(p, e, a, NULL);
    }
    return parse_entity(p);
}

/* One level of binary operators, left to right. */
static struct expr *
parse_binary(struct parser *p, int level)
{
    static const struct {
        enum tok tok;
        enum arith_op op;
        int level;
    } ops[] = {
        {TOK_BITAND, ARITH_AND, 0}, {TOK_PLUS, ARITH_ADD, 1}, {TOK_MINUS, ARITH_SUB, 1},
        {TOK_STAR, ARITH_MUL, 2}, {TOK_SLASH, ARITH_DIV, 2}, {TOK_PERCENT, ARITH_MOD, 2},
    };
    struct expr *a = level == 3 ? parse_signed(p) : parse_binary(p, level + 1);

    while (a != NULL && !p->failed) {
        size_t k = 0;
        while (k < sizeof(ops) / sizeof(ops[0]) && !(ops[k].tok == p->tok &&
                                                     ops[k].level == level))
            k++;
        if (k == sizeof(ops) / sizeof(ops[0]))
            break;
        struct expr *e = expr_new(p, EXPR_ARITH, a->pos);
        if (e == NULL) {
            filter_expr_free(a);
            return NULL;
        }
        e->op = (uint8_t)ops[k].op;
        filter_next(p);
        struct expr *b = level == 2 ? parse_signed(p) : parse_binary(p, level + 1);
        if (b == NULL) {
            filter_expr_free(e);
            filter_expr_free(a);
            return NULL;
        }
        e->len = b->pos + b->len - e->pos;
        a = expr_with(p, e, a, b);
    }
    return a;
}

static struct expr *
parse_arith(struct parser *p)
{
    return parse_binary(p, 0);
}

static const char *
op_text(enum cmp_op op)
{
    static const char *const names[] = {"==", "!=", "===", "!==", "<", "<=", ">", ">="};

    return names[op];
}

/* { item, item, ... } after "in". */
static void
parse_set(struct parser *p, struct node *n)
{
    if (p->tok != TOK_LBRACE) {
        filter_fail(p, p->pos, "expected '{' after 'in'");
        return;
    }
    if ((n->set = calloc(MAX_SET, sizeof(*n->set))) == NULL) {
        p->oom = true;
        filter_fail(p, p->pos, "out of memory");
        return;
    }
    filter_next(p);
    for (;;) {
        if (p->tok == TOK_RBRACE || p->tok == TOK_END) {
            filter_fail(p, p->pos, p->tok == TOK_END ? "missing '}'" :
                                                       "expected a value before '}'");
            return;
        }
        if (n->n_set == MAX_SET) {
            filter_fail(p, p->pos, "more than %d set members", MAX_SET);
            return;
        }
        struct set_item *item = &n->set[n->n_set++];
        if ((item->lo = parse_signed(p)) == NULL || p->failed)
            return;
        if (p->tok == TOK_RANGE) {
            filter_next(p);
            if ((item->hi = parse_signed(p)) == NULL || p->failed)
                return;
        }
        for (struct expr *e = item->lo; e != NULL; e = e == item->lo ? item->hi : NULL)
            if (e->kind == EXPR_ARITH)
                return (void)filter_fail(p, e->pos, "a set holds values, not arithmetic");
        if (!filter_type_pair(p, n->a, item->lo, CMP_EQ) ||
            (item->hi != NULL && !filter_type_pair(p, n->a, item->hi, CMP_LE)))
            return;
        if (p->tok == TOK_RBRACE)
            break;
        if (p->tok != TOK_COMMA) {
            filter_fail(p, p->pos, p->tok == TOK_END ? "missing '}'" :
                        "expected ',' or '}' in a set");
            return;
        }
        filter_next(p);
    }
    filter_next(p);
}

static void
parse_matches(struct parser *p, struct node *n)
{
    char why[160];
    uint8_t pat[MAX_REGEX + 1];

    n->kind = NODE_MATCHES;
    if (!filter_type_pair(p, n->a, NULL, -2))
        return;
    if (p->tok != TOK_STRING) {
        filter_fail(p, p->pos, "matches takes a \"quoted\" regular expression");
        return;
    }
    size_t at = p->pos, open = 1 + p->raw;
    long len;
    if (p->raw) {
        len = (long)(p->end - p->pos - 3);
        if (len > MAX_REGEX) {
            filter_fail(p, at, "regular expression longer than %d bytes", MAX_REGEX);
            return;
        }
        memcpy(pat, p->text + p->pos + open, (size_t)len);
    } else {
        len = filter_unescape(p->text + p->pos + open, p->end - p->pos - 2, pat, MAX_REGEX,
                              why, sizeof(why));
    }
    if (len < 0) {
        filter_fail(p, at, "%s", why);
        return;
    }
    /* GRegex takes a NUL-terminated pattern: write a NUL byte as \x00 */
    char text[4 * MAX_REGEX + 1];
    size_t t = 0;
    for (long i = 0; i < len; i++) {
        if (pat[i] == 0) {
            memcpy(text + t, "\\x00", 4);
            t += 4;
        } else {
            text[t++] = (char)pat[i];
        }
    }
    text[t] = '\0';
    /* Wireshark 4.0 matches without regard to case unless the pattern says (?-i); raw:
     * bytes match as bytes */
    GError *gerr = NULL;
    n->re = g_regex_new(text, G_REGEX_RAW | G_REGEX_OPTIMIZE | G_REGEX_CASELESS, 0, &gerr);
    if (n->re == NULL) {
        char *msg = gerr != NULL ? gerr->message : "unknown error";
        for (char *c = msg; *c != '\0'; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
        filter_fail(p, at, "regular expression does not compile: %s", msg);
        if (gerr != NULL)
            g_error_free(gerr);
        return;
    }
    filter_next(p);
}

/* Whether e reads the packet: constants alone cannot be the left side. */
static bool
reads_packet(const struct expr *e)
{
    if (e->kind == EXPR_FIELD || e->kind == EXPR_FUNC || e->kind == EXPR_REF)
        return true;
    for (uint8_t i = 0; i < e->n_args; i++)
        if (reads_packet(e->args[i]))
            return true;
    return false;
}

/* a op b op c ...: one comparison, or an AND of comparisons that share their middle
 * operands (each comparison but the first borrows its left side). */
static struct node *
parse_comparisons(struct parser *p, struct node *first)
{
    struct node *chain[MAX_CHAIN];
    uint32_t n = 0;
    struct expr *left = first->a;

    chain[n++] = first;
    for (struct node *cur = first;; ) {
        cur->kind = NODE_COMPARE;
        cur->op = p->relop;
        filter_next(p);
        cur->b = parse_arith(p);
        if (cur->b == NULL || p->failed)
            break;
        if (left->kind == EXPR_LITERAL && left->lit->tok == TOK_WORD &&
            (isalpha((unsigned char)p->text[left->pos]) || p->text[left->pos] == '_')) {
            filter_fail(p, left->pos, "unknown field '%.*s'", (int)left->len,
                        p->text + left->pos);
            break;
        }
        if (!reads_packet(left)) {
            filter_fail(p, left->pos, left->kind == EXPR_ARITH || left->kind == EXPR_NEG ?
                        "a constant arithmetic expression cannot be the left side of %s" :
                        "the left side of %s must be a field or a function, not %.*s",
                        op_text(cur->op), (int)left->len, p->text + left->pos);
            break;
        }
        if (!filter_type_pair(p, left, cur->b, (int)cur->op))
            break;
        if (p->tok != TOK_RELOP)
            break;
        if (n == MAX_CHAIN) {
            filter_fail(p, p->pos, "more than %d comparisons in one chain", MAX_CHAIN);
            break;
        }
        struct node *next = node_new(NODE_COMPARE);
        if (next == NULL) {
            p->oom = true;
            break;
        }
        next->a = cur->b;
        next->quant = first->quant;
        next->op = CMP_EQ;
        next->b = NULL;
        chain[n++] = next;
        left = cur->b;
        cur = next;
    }
    if (n == 1)
        return first;
    struct node **kids = malloc(n * sizeof(*kids));
    struct node *and = node_new(NODE_AND);
    if (kids == NULL || and == NULL) {
        free(kids);
        free(and);
        for (uint32_t i = 0; i < n; i++)
            filter_node_free(chain[i]);
        p->oom = true;
        return NULL;
    }
    memcpy(kids, chain, n * sizeof(*kids));
    and->kids = kids;
    and->n_kids = n;
    return and;
}

static struct node *
parse_relation(struct parser *p)
{
    struct node *n = node_new(NODE_EXISTS);

    if (n == NULL) {
        p->oom = true;
        return NULL;
    }
    if (p->tok == TOK_ANY || p->tok == TOK_ALL) {
        n->quant = p->tok == TOK_ANY ? QUANT_ANY : QUANT_ALL;
        filter_next(p);
    }
    size_t start = p->pos;
    if ((n->a = parse_arith(p)) == NULL || p->failed)
        return n;
    bool not_in = p->tok == TOK_NOT;
    if (not_in) {
        filter_next(p);
        if (p->tok != TOK_IN) {
            filter_fail(p, p->pos, "expected 'in' after 'not' here");
            return n;
        }
    }
    switch (p->tok) {
    case TOK_RELOP:
        return parse_comparisons(p, n);
    case TOK_CONTAINS:
        n->kind = NODE_CONTAINS;
        filter_next(p);
        if ((n->b = parse_arith(p)) != NULL && !p->failed)
            filter_type_pair(p, n->a, n->b, -1);
        return n;
    case TOK_MATCHES:
        filter_next(p);
        parse_matches(p, n);
        return n;
    case TOK_IN:
        n->kind = NODE_IN;
        filter_next(p);
        if (filter_type_pair(p, n->a, NULL, -3))
            parse_set(p, n);
        break;
    default:
        if (n->quant != QUANT_DEFAULT) {
            filter_fail(p, p->pos, "any and all go with a comparison, contains, matches "
                        "or in");
            return n;
        }
        /* alone: a field or a slice exists; arithmetic is not zero */
        if (n->a->kind == EXPR_ARITH || n->a->kind == EXPR_NEG)
            n->kind = NODE_TRUE;
        if (n->a->kind == EXPR_FUNC)
            filter_fail(p, start, "a function alone is no test: compare its value");
        else if (n->a->kind == EXPR_LITERAL)
            filter_fail(p, start, "unknown field '%.*s'", (int)n->a->len,
                        p->text + n->a->pos);
        else if (n->a->kind != EXPR_FIELD)
            filter_type_expr(p, n->a, NULL);
        return n;
    }
    if (!not_in)
        return n;
    struct node **kid = malloc(sizeof(*kid));
    struct node *neg = node_new(NODE_NOT);
    if (kid == NULL || neg == NULL) {
        free(kid);
        free(neg);
        filter_node_free(n);
        p->oom = true;
        return NULL;
    }
    kid[0] = n;
    neg->kids = kid;
    neg->n_kids = 1;
    return neg;
}

static struct node *parse_or(struct parser *p);

/* A node with kids; NULL when out of memory (the kids are then freed). */
static struct node *
node_with_kids(enum node_kind kind, struct node **kids, uint32_t n)
{
    struct node *node = node_new(kind);

    if (node == NULL) {
        for (uint32_t i = 0; i < n; i++)
            filter_node_free(kids[i]);
        free(kids);
        return NULL;
    }
    node->kids = kids;
    node->n_kids = n;
    return node;
}

/* A run of "!" is read in a loop, not by recursion: only its parity counts
 * (!!x is x, for present and absent fields alike), so 30000 of them cost
 * one node, as they cost Wireshark nothing. Parentheses recurse, and their
 * depth is bounded. */
static struct node *
parse_unary(struct parser *p)
{
    bool negate = false;

    while (p->tok == TOK_NOT) {
        negate = !negate;
        filter_next(p);
    }
    struct node *n;
    if (p->tok == TOK_LPAREN) {
        size_t open = p->pos;
        if (p->depth == RS_FILTER_MAX_DEPTH) {
            filter_fail(p, open, "parentheses nested more than %d deep", RS_FILTER_MAX_DEPTH);
            return NULL;
        }
        p->depth++;
        filter_next(p);
        n = parse_or(p);
        p->depth--;
        if (p->failed)
            ;
        else if (p->tok != TOK_RPAREN)
            filter_fail(p, p->tok == TOK_END ? open : p->pos,
                        p->tok == TOK_END ? "'(' is never closed" : "expected ')'");
        else
            filter_next(p);
    } else {
        n = parse_relation(p);
    }
    if (!negate || n == NULL)
        return n;
    struct node **kid = malloc(sizeof(*kid));
    if (kid == NULL) {
        filter_node_free(n);
        return NULL;
    }
    kid[0] = n;
    return node_with_kids(NODE_NOT, kid, 1);
}

static struct node *parse_and(struct parser *p);

/* operand ( op operand )*, for op && (with unary operands) or || (with &&
 * chains as operands): one node holding every operand. */
static struct node *
parse_chain(struct parser *p, enum tok op)
{
    struct node *(*operand)(struct parser *) = op == TOK_AND ? parse_unary : parse_and;
    struct node *first = operand(p);

    if (p->failed || p->tok != op)
        return first;
    uint32_t n = 0, cap = 4;
    struct node **kids = malloc(cap * sizeof(*kids));
    if (kids == NULL) {
        filter_node_free(first);
        return NULL;
    }
    kids[n++] = first;
    while (!p->failed && p->tok == op) {
        filter_next(p);
        if (n == cap) {
            struct node **k = cap > UINT32_MAX / 2 ? NULL : realloc(kids, 2 * cap * sizeof(*k));
            if (k == NULL) {
                p->oom = true;
                break;
            }
            kids = k;
            cap *= 2;
        }
        kids[n] = operand(p);
        if (kids[n] == NULL && !p->failed)
            p->oom = true;
        if (kids[n] == NULL)
            break;
        n++;
    }
    return node_with_kids(op == TOK_AND ? NODE_AND : NODE_OR, kids, n);
}

static struct node *
parse_and(struct parser *p)
{
    return parse_chain(p, TOK_AND);
}

static struct node *
parse_or(struct parser *p)
{
    return parse_chain(p, TOK_OR);
}

int
rs_filter_compile(const char *text, struct rs_filter **out, char *err)
{
    struct parser p = {.text = text, .err = err};

    filter_next(&p);
    struct node *root = NULL;
    if (p.tok == TOK_END && !p.failed)
        filter_fail(&p, p.pos, "expected a field");
    else
        root = parse_or(&p);
    if (!p.failed && p.tok != TOK_END)
        filter_fail(&p, p.pos, p.tok == TOK_RPAREN ? "unexpected ')'" :
                    "expected && or || here");
    if (p.oom || (!p.failed && root == NULL))
        rs_error(err, RS_ENOMEM, "out of memory"), p.failed = true;
    if (p.failed) {
        filter_node_free(root);
        return RS_EINVAL;
    }
    struct rs_filter *f = calloc(1, sizeof(*f));
    if (f == NULL || (f->text = strdup(text)) == NULL) {
        free(f);
        filter_node_free(root);
        return rs_error(err, RS_ENOMEM, "out of memory");
    }
    f->root = root;
    *out = f;
    return 0;
}

void
filter_expr_free(struct expr *e)
{
    if (e == NULL)
        return;
    for (uint8_t i = 0; i < e->n_args; i++)
        filter_expr_free(e->args[i]);
    free(e->lit);
    free(e);
}

void
filter_node_free(struct node *n)
{
    if (n == NULL)
        return;
    for (uint32_t i = 0; i < n->n_kids; i++) {
        /* a chained comparison's left side is the one before's right side */
        struct node *k = n->kids[i];
        if (i > 0 && k->kind == NODE_COMPARE && k->a == n->kids[i - 1]->b &&
            n->kids[i - 1]->kind == NODE_COMPARE)
            k->a = NULL;
    }
    for (uint32_t i = 0; i < n->n_kids; i++)
        filter_node_free(n->kids[i]);
    free(n->kids);
    filter_expr_free(n->a);
    filter_expr_free(n->b);
    for (uint32_t i = 0; i < n->n_set; i++) {
        filter_expr_free(n->set[i].lo);
        filter_expr_free(n->set[i].hi);
    }
    free(n->set);
    if (n->re != NULL)
        g_regex_unref(n->re);
    free(n);
}

void
rs_filter_free(struct rs_filter *f)
{
    if (f == NULL)
        return;
    filter_node_free(f->root);
    free(f->text);
    free(f);
}

static bool
expr_uses(const struct expr *e, const char *prefix)
{
    if (e == NULL)
        return false;
    if ((e->kind == EXPR_FIELD || e->kind == EXPR_REF) &&
        strncmp(rs_field_by_id(e->field)->abbrev, prefix, strlen(prefix)) == 0)
        return true;
    for (uint8_t i = 0; i < e->n_args; i++)
        if (expr_uses(e->args[i], prefix))
            return true;
    return false;
}

static bool
node_uses(const struct node *n, const char *prefix)
{
    for (uint32_t i = 0; i < n->n_kids; i++)
        if (node_uses(n->kids[i], prefix))
            return true;
    for (uint32_t i = 0; i < n->n_set; i++)
        if (expr_uses(n->set[i].lo, prefix) || expr_uses(n->set[i].hi, prefix))
            return true;
    return expr_uses(n->a, prefix) || expr_uses(n->b, prefix);
}

bool
rs_filter_uses(const struct rs_filter *f, const char *prefix)
{
    return f != NULL && node_uses(f->root, prefix);
}
