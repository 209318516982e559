/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_parse.c - compiling display filters: a tokenizer and a recursive
 * descent parser for the Wireshark grammar, lowest precedence first:
 *
 *   expr    := and ( ("||" | "or") and )*
 *   and     := unary ( ("&&" | "and") unary )*
 *   unary   := ("!" | "not")* ( "(" expr ")" | test )
 *   test    := FIELD [ relop VALUE | "contains" VALUE | "in" "{" item* "}" ]
 *   item    := VALUE [ ".." VALUE ]          (items separated by spaces or commas)
 *
 * Literals are converted to the field's type here (filter_literal.c), so a
 * bad address or an unknown value name is reported with its position
 * before any packet is read.
 *
 * Only parentheses make the parser recurse, and they nest at most
 * RS_FILTER_MAX_DEPTH deep: a filter is typed by users (in the TUI and the
 * plugin as well), and 20000 nested '(' used to overflow the stack.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter_int.h"

#define MAX_SET 256

enum tok {
    TOK_END, TOK_WORD, TOK_STRING, TOK_LPAREN, TOK_RPAREN, TOK_LBRACE, TOK_RBRACE, TOK_COMMA,
    TOK_RANGE, TOK_AND, TOK_OR, TOK_NOT, TOK_RELOP, TOK_BITAND
};

struct parser {
    const char *text;
    size_t pos;             /* where the current token starts */
    size_t end;             /* where it ends */
    enum tok tok;
    enum cmp_op relop;
    unsigned depth;         /* parentheses open around the current token */
    char *err;
    bool failed;
    bool oom;               /* a node could not be allocated */
};

static bool __attribute__((format(printf, 3, 4)))
fail_at(struct parser *p, size_t pos, const char *fmt, ...)
{
    char what[RS_ERRBUF_SIZE - 32];
    va_list ap;

    if (p->failed)
        return false;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    rs_error(p->err, RS_EINVAL, "at position %zu: %s", pos + 1, what);
    p->failed = true;
    return false;
}

/* Characters of a bare word: field names, numbers, addresses, byte strings. */
static bool
word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':' || c == '-' ||
           c == '/' || c == '+';
}

static bool
starts(const char *s, const char *word)
{
    return strncmp(s, word, strlen(word)) == 0;
}

static void
next(struct parser *p)
{
    const char *t = p->text;
    size_t i = p->end;

    while (isspace((unsigned char)t[i]))
        i++;
    p->pos = i;
    if (t[i] == '\0') {
        p->tok = TOK_END;
        p->end = i;
        return;
    }
    static const struct {
        const char *s;
        enum tok tok;
        enum cmp_op op;
    } symbols[] = {
        {"&&", TOK_AND, 0},      {"||", TOK_OR, 0},      {"==", TOK_RELOP, CMP_EQ},
        {"!=", TOK_RELOP, CMP_NE}, {"<=", TOK_RELOP, CMP_LE}, {">=", TOK_RELOP, CMP_GE},
        {"..", TOK_RANGE, 0},    {"<", TOK_RELOP, CMP_LT}, {">", TOK_RELOP, CMP_GT},
        {"!", TOK_NOT, 0},       {"(", TOK_LPAREN, 0},   {")", TOK_RPAREN, 0},
        {"{", TOK_LBRACE, 0},    {"}", TOK_RBRACE, 0},   {",", TOK_COMMA, 0},
        {"&", TOK_BITAND, 0},   /* after "&&" */
    };
    for (size_t k = 0; k < sizeof(symbols) / sizeof(symbols[0]); k++) {
        if (starts(t + i, symbols[k].s)) {
            p->tok = symbols[k].tok;
            p->relop = symbols[k].op;
            p->end = i + strlen(symbols[k].s);
            return;
        }
    }
    if (t[i] == '"') {
        size_t j = i + 1;
        while (t[j] != '\0' && t[j] != '"')
            j += (t[j] == '\\' && t[j + 1] != '\0') ? 2 : 1;
        if (t[j] != '"') {
            fail_at(p, i, "unterminated string");
            p->tok = TOK_END;
            p->end = j;
            return;
        }
        p->tok = TOK_STRING;
        p->end = j + 1;
        return;
    }
    size_t j = i;
    /* A word stops before "..", so that 1..5 reads as a range. */
    while (word_char(t[j]) && !(t[j] == '.' && t[j + 1] == '.'))
        j++;
    if (j == i) {
        fail_at(p, i, "unexpected character '%c'", t[i]);
        p->tok = TOK_END;
        p->end = i + 1;
        return;
    }
    p->end = j;
    p->tok = TOK_WORD;
    static const struct {
        const char *w;
        enum tok tok;
        enum cmp_op op;
    } words[] = {
        {"and", TOK_AND, 0},       {"or", TOK_OR, 0},         {"not", TOK_NOT, 0},
        {"eq", TOK_RELOP, CMP_EQ}, {"ne", TOK_RELOP, CMP_NE}, {"lt", TOK_RELOP, CMP_LT},
        {"le", TOK_RELOP, CMP_LE}, {"gt", TOK_RELOP, CMP_GT}, {"ge", TOK_RELOP, CMP_GE},
    };
    for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
        if (strlen(words[k].w) == j - i && strncmp(t + i, words[k].w, j - i) == 0) {
            p->tok = words[k].tok;
            p->relop = words[k].op;
        }
    }
}

static bool
is_word(const struct parser *p, const char *w)
{
    return p->tok == TOK_WORD && strlen(w) == p->end - p->pos &&
           strncmp(p->text + p->pos, w, p->end - p->pos) == 0;
}

static struct node *
node_new(enum node_kind kind)
{
    struct node *n = calloc(1, sizeof(*n));

    if (n != NULL)
        n->kind = kind;
    return n;
}

/* The current token as a literal of field f's type. */
static bool
literal_here(struct parser *p, const struct rs_field *f, struct literal *lit)
{
    char why[160];

    if (p->tok != TOK_WORD && p->tok != TOK_STRING)
        return fail_at(p, p->pos, "expected a value for %s", f->abbrev);
    bool quoted = p->tok == TOK_STRING;
    const char *s = p->text + p->pos + quoted;
    size_t len = p->end - p->pos - 2 * quoted;
    if (!filter_literal(f, s, len, quoted, lit, why, sizeof(why)))
        return fail_at(p, p->pos, "%s", why);
    next(p);
    return true;
}

static struct node *parse_or(struct parser *p);
static struct node *parse_and(struct parser *p);

static struct node *
parse_set(struct parser *p, struct node *n, const struct rs_field *f)
{
    n->kind = NODE_IN;
    n->set = calloc(MAX_SET, sizeof(*n->set));
    if (n->set == NULL)
        return NULL;
    if (p->tok != TOK_LBRACE) {
        fail_at(p, p->pos, "expected '{' after 'in'");
        return n;
    }
    next(p);
    while (!p->failed && p->tok != TOK_RBRACE) {
        if (p->tok == TOK_END) {
            fail_at(p, p->pos, "missing '}'");
            break;
        }
        if (n->n_set == MAX_SET) {
            fail_at(p, p->pos, "more than %d set members", MAX_SET);
            break;
        }
        struct literal *lit = &n->set[n->n_set];
        if (!literal_here(p, f, lit))
            break;
        if (p->tok == TOK_RANGE) {
            struct literal hi;
            size_t at = p->pos;
            next(p);
            if (!literal_here(p, f, &hi))
                break;
            if (lit->kind != LIT_UINT || hi.kind != LIT_UINT) {
                fail_at(p, at, "ranges need integer values");
                break;
            }
            lit->range = true;
            lit->hi = hi.u;
        }
        n->n_set++;
        if (p->tok == TOK_COMMA)
            next(p);
    }
    if (!p->failed)
        next(p);
    return n;
}

/* The operator at hand, then one literal of f's type: n becomes a test of kind. */
static void
one_literal(struct parser *p, struct node *n, enum node_kind kind, const struct rs_field *f)
{
    n->kind = kind;
    n->set = calloc(1, sizeof(*n->set));
    n->n_set = 1;
    next(p);
    if (n->set != NULL)
        literal_here(p, f, n->set);
}

static struct node *
parse_test(struct parser *p)
{
    if (p->tok != TOK_WORD) {
        fail_at(p, p->pos, p->tok == TOK_END ? "expected a field at the end" : "expected a field");
        return NULL;
    }
    char name[128];
    size_t len = p->end - p->pos;
    if (len >= sizeof(name)) {
        fail_at(p, p->pos, "field name too long");
        return NULL;
    }
    memcpy(name, p->text + p->pos, len);
    name[len] = '\0';
    int id = rs_field_lookup(name);
    if (id < 0) {
        fail_at(p, p->pos, "unknown field '%s'", name);
        return NULL;
    }
    const struct rs_field *f = rs_field_by_id(id);
    struct node *n = node_new(NODE_PRESENT);
    if (n == NULL)
        return NULL;
    n->field = id;
    size_t field_pos = p->pos;
    next(p);
    if (p->tok == TOK_RELOP || is_word(p, "contains") || is_word(p, "in")) {
        if (f->type == RS_FT_PROTOCOL || f->type == RS_FT_NONE) {
            fail_at(p, field_pos, "%s is a %s: it can only be tested for presence", name,
                    f->type == RS_FT_PROTOCOL ? "protocol" : "label");
            return n;
        }
    }
    if (p->tok == TOK_BITAND) {
        /* Wireshark's bitwise test: true when some bit of the mask is set. */
        if (f->type < RS_FT_UINT8 || f->type > RS_FT_FRAMENUM) {     /* not booleans either */
            fail_at(p, field_pos, "%s is not a number: & tests the bits of a number", name);
            return n;
        }
        one_literal(p, n, NODE_BITAND, f);
    } else if (p->tok == TOK_RELOP) {
        n->op = p->relop;
        one_literal(p, n, NODE_COMPARE, f);
    } else if (is_word(p, "contains")) {
        one_literal(p, n, NODE_CONTAINS, f);
    } else if (is_word(p, "in")) {
        next(p);
        parse_set(p, n, f);
    }
    return n;
}

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
        next(p);
    }
    struct node *n;
    if (p->tok == TOK_LPAREN) {
        size_t open = p->pos;
        if (p->depth == RS_FILTER_MAX_DEPTH) {
            fail_at(p, open, "parentheses nested more than %d deep", RS_FILTER_MAX_DEPTH);
            return NULL;
        }
        p->depth++;
        next(p);
        n = parse_or(p);
        p->depth--;
        if (p->tok != TOK_RPAREN)
            fail_at(p, p->tok == TOK_END ? open : p->pos,
                    p->tok == TOK_END ? "'(' is never closed" : "expected ')'");
        else
            next(p);
    } else {
        n = parse_test(p);
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
        next(p);
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

    next(&p);
    struct node *root = parse_or(&p);
    if (!p.failed && p.tok != TOK_END)
        fail_at(&p, p.pos, p.tok == TOK_RPAREN ? "unexpected ')'" : "expected && or || here");
    if (!p.failed && (root == NULL || p.oom))
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
filter_node_free(struct node *n)
{
    if (n == NULL)
        return;
    for (uint32_t i = 0; i < n->n_kids; i++)
        filter_node_free(n->kids[i]);
    free(n->kids);
    free(n->set);
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
node_uses(const struct node *n, const char *prefix)
{
    if (n->kids == NULL)
        return strncmp(rs_field_by_id(n->field)->abbrev, prefix, strlen(prefix)) == 0;
    for (uint32_t i = 0; i < n->n_kids; i++)
        if (node_uses(n->kids[i], prefix))
            return true;
    return false;
}

bool
rs_filter_uses(const struct rs_filter *f, const char *prefix)
{
    return node_uses(f->root, prefix);
}
