/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_parse.c - compiling display filters: a tokenizer and a recursive
 * descent parser for the Wireshark grammar, lowest precedence first:
 *
 *   expr    := and ( ("||" | "or") and )*
 *   and     := unary ( ("&&" | "and") unary )*
 *   unary   := ("!" | "not")* ( "(" expr ")" | test )
 *   test    := operand [ relop (VALUE | operand) | "contains" (VALUE | operand)
 *                      | "matches" STRING | "in" "{" item* "}" | "&" VALUE ]
 *   operand := FIELD [ "[" range "]" ] | FUNC "(" FIELD ")"
 *   range   := i:j | i-j | i | :j | i:         (negative i and j count from the end)
 *   item    := VALUE [ ".." VALUE ]          (items separated by spaces or commas)
 *
 * FUNC is one of Wireshark 4.0's len, count, lower, upper. A word on the
 * right that names a field (or a function call) makes the test compare
 * two operands read from the packet.
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

#include <glib.h>

#include <roceshark/print.h>

#include "filter/filter_int.h"

#define MAX_SET 256
#define MAX_REGEX 1024

enum tok {
    TOK_END, TOK_WORD, TOK_STRING, TOK_LPAREN, TOK_RPAREN, TOK_LBRACE, TOK_RBRACE, TOK_COMMA,
    TOK_RANGE, TOK_AND, TOK_OR, TOK_NOT, TOK_RELOP, TOK_BITAND, TOK_LBRACKET, TOK_RBRACKET
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
        {"[", TOK_LBRACKET, 0},  {"]", TOK_RBRACKET, 0},
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

/* One literal of f's type, at hand: n becomes a test of kind. */
static void
one_literal_here(struct parser *p, struct node *n, enum node_kind kind, const struct rs_field *f)
{
    n->kind = kind;
    n->set = calloc(1, sizeof(*n->set));
    n->n_set = 1;
    if (n->set != NULL)
        literal_here(p, f, n->set);
    else
        p->oom = true;
}

/* The operator at hand, then one literal of f's type. */
static void
one_literal(struct parser *p, struct node *n, enum node_kind kind, const struct rs_field *f)
{
    next(p);
    one_literal_here(p, n, kind, f);
}

static const char *const fn_names[] = {"",       "len", "count", "lower", "upper",
                                       "string", "abs", "max",   "min"};

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

/* One range between [ and ]: i:j, i-j, i, :j, i: (Wireshark's ranges); a
 * slice joins up to FILTER_RANGES_MAX of them, separated by commas. */
static bool
parse_range(struct parser *p, struct operand *op)
{
    const char *t = p->text + p->pos;
    size_t len = p->end - p->pos;
    const char *colon = memchr(t, ':', len);
    const char *dash = len > 1 ? memchr(t + 1, '-', len - 1) : NULL;
    int32_t i = 0, j = 0;
    struct slice_range *r = &op->ranges[op->n_ranges];

    if (p->tok != TOK_WORD)
        return fail_at(p, p->pos, "expected a range such as 0:2 in [ ]");
    if (op->n_ranges == FILTER_RANGES_MAX)
        return fail_at(p, p->pos, "a slice joins at most %d ranges", FILTER_RANGES_MAX);
    if (colon != NULL) {
        size_t jl = len - (size_t)(colon - t) - 1;
        if ((colon != t && !parse_int(t, (size_t)(colon - t), &i)) ||
            (jl != 0 && !parse_int(colon + 1, jl, &j)))
            goto bad;
        if (jl != 0 && j <= 0)
            return fail_at(p, p->pos, "range %.*s is not valid: length %d is not positive",
                           (int)len, t, j);
        r->start = i;
        r->len = (uint32_t)j;
    } else if (dash != NULL) {
        if (!parse_int(t, (size_t)(dash - t), &i) ||
            !parse_int(dash + 1, len - (size_t)(dash - t) - 1, &j))
            goto bad;
        if ((i < 0) != (j < 0))
            return fail_at(p, p->pos, "range %.*s is not valid: %d and %d have different signs",
                           (int)len, t, i, j);
        if (j < i)
            return fail_at(p, p->pos, "range %.*s is not valid: it ends before it starts",
                           (int)len, t);
        r->start = i;
        r->len = (uint32_t)(j - i + 1);
    } else {
        if (!parse_int(t, len, &i))
            goto bad;
        r->start = i;
        r->len = 1;
    }
    op->n_ranges++;
    op->sliced = true;
    return true;
bad:
    return fail_at(p, p->pos, "'%.*s' is not a valid range", (int)len, t);
}

/* [range, range, ...], from the token after '[' to the one after ']'. */
static bool
parse_ranges(struct parser *p, struct operand *op)
{
    for (;;) {
        if (!parse_range(p, op))
            return false;
        next(p);
        if (p->tok != TOK_COMMA)
            break;
        next(p);
    }
    if (p->tok != TOK_RBRACKET)
        return fail_at(p, p->pos, "expected ']'");
    next(p);
    return true;
}

static bool
sliceable(uint8_t type)
{
    return type == RS_FT_PROTOCOL || type == RS_FT_BYTES || type == RS_FT_ETHER ||
           type == RS_FT_IPV4 || type == RS_FT_IPV6 || type == RS_FT_STRING;
}

/* What a field of this type is, for error messages. */
static const char *
type_words(uint8_t type)
{
    switch (type) {
    case RS_FT_PROTOCOL:
        return "a protocol";
    case RS_FT_BOOLEAN:
        return "a boolean";
    case RS_FT_RELTIME:
    case RS_FT_ABSTIME:
        return "a time";
    case RS_FT_BYTES:
        return "bytes";
    case RS_FT_ETHER:
    case RS_FT_IPV4:
    case RS_FT_IPV6:
        return "an address";
    case RS_FT_STRING:
        return "text";
    case RS_FT_NONE:
        return "a label";
    default:
        return "a number";
    }
}

static bool
string_convertible(uint8_t type)
{
    return (type >= RS_FT_UINT8 && type <= RS_FT_FRAMENUM) || type == RS_FT_ETHER ||
           type == RS_FT_IPV4 || type == RS_FT_IPV6 || type == RS_FT_STRING;
}

/* Is the current word the start of an operand (a field or a function
 * call) rather than a literal? */
static bool
at_operand(const struct parser *p)
{
    char name[128];
    size_t len = p->end - p->pos, k = p->end;

    if (p->tok != TOK_WORD || len >= sizeof(name))
        return false;
    while (isspace((unsigned char)p->text[k]))
        k++;
    if (p->text[k] == '(')
        return true;
    memcpy(name, p->text + p->pos, len);
    name[len] = '\0';
    return rs_field_lookup(name) >= 0;
}

/* The fields after the first of max() and min(): ", field" each, all of the
 * first one's type, as Wireshark requires; values that order (numbers,
 * times, addresses). */
static bool
parse_more_fields(struct parser *p, struct operand *op, const struct rs_field *first)
{
    bool orders = (first->type >= RS_FT_UINT8 && first->type <= RS_FT_RELTIME &&
                   first->type != RS_FT_BOOLEAN) || first->type == RS_FT_ETHER ||
                  first->type == RS_FT_IPV4 || first->type == RS_FT_IPV6;

    if (!orders)
        return fail_at(p, p->pos, "%s() takes fields whose values order; %s is %s",
                       fn_names[op->fn], first->abbrev, type_words(first->type));
    while (p->tok == TOK_COMMA) {
        next(p);
        char name[128];
        size_t len = p->end - p->pos;
        if (p->tok != TOK_WORD || len >= sizeof(name))
            return fail_at(p, p->pos, "%s() takes fields", fn_names[op->fn]);
        if (op->n_more == FILTER_FN_ARGS_MAX - 1)
            return fail_at(p, p->pos, "%s() takes at most %d fields", fn_names[op->fn],
                           FILTER_FN_ARGS_MAX);
        memcpy(name, p->text + p->pos, len);
        name[len] = '\0';
        int id = rs_field_lookup(name);
        if (id < 0)
            return fail_at(p, p->pos, "unknown field '%s'", name);
        if (rs_field_by_id(id)->type != first->type)
            return fail_at(p, p->pos, "the fields of %s() must have one type: %s is %s, %s is %s",
                           fn_names[op->fn], first->abbrev, rs_field_type_name(first->type),
                           name, rs_field_type_name(rs_field_by_id(id)->type));
        op->more[op->n_more++] = id;
        next(p);
    }
    return true;
}

/* FIELD, FIELD[range] or FUNC(FIELD); leaves the token after it. */
static bool
parse_operand(struct parser *p, struct operand *op, char *desc, size_t desclen)
{
    size_t start = p->pos;
    char name[128];

    memset(op, 0, sizeof(*op));
    op->field = -1;
    if (p->tok != TOK_WORD)
        return fail_at(p, p->pos, p->tok == TOK_END ? "expected a field at the end"
                                                     : "expected a field");
    size_t k = p->end;
    while (isspace((unsigned char)p->text[k]))
        k++;
    if (p->text[k] == '(') {
        size_t len = p->end - p->pos;
        for (uint8_t f = FN_LEN; f <= FN_MIN; f++)
            if (strlen(fn_names[f]) == len && strncmp(p->text + p->pos, fn_names[f], len) == 0)
                op->fn = f;
        if (op->fn == FN_NONE)
            return fail_at(p, p->pos, "function '%.*s' does not exist", (int)len,
                           p->text + p->pos);
        next(p);        /* ( */
        next(p);
        size_t after = p->end;
        while (isspace((unsigned char)p->text[after]))
            after++;
        if (p->tok != TOK_WORD || p->text[after] == '(')
            return fail_at(p, p->pos, "%s() takes a field", fn_names[op->fn]);
    }
    size_t len = p->end - p->pos;
    if (len >= sizeof(name))
        return fail_at(p, p->pos, "field name too long");
    memcpy(name, p->text + p->pos, len);
    name[len] = '\0';
    op->field = rs_field_lookup(name);
    if (op->field < 0)
        return fail_at(p, p->pos, "unknown field '%s'", name);
    const struct rs_field *f = rs_field_by_id(op->field);
    size_t field_pos = p->pos;
    op->type = f->type;
    next(p);
    if (op->fn == FN_NONE && p->tok == TOK_LBRACKET) {
        if (!sliceable(f->type))
            return fail_at(p, field_pos, "%s is %s and cannot be sliced", name,
                           type_words(f->type));
        if (f->type == RS_FT_PROTOCOL && f->get != NULL && strcmp(name, "frame") != 0 &&
            strcmp(name, "infiniband") != 0 && f->layer >= RS_LAYER_COUNT)
            return fail_at(p, field_pos, "%s has no bytes to slice", name);
        next(p);
        if (!parse_ranges(p, op))
            return false;
        op->type = RS_FT_BYTES;
    }
    switch (op->fn) {
    case FN_LEN:
        if (f->type == RS_FT_NONE)
            return fail_at(p, field_pos, "len() takes a field with a value; %s is a label",
                           name);
        op->type = RS_FT_UINT32;
        break;
    case FN_COUNT:
        op->type = RS_FT_UINT32;
        break;
    case FN_LOWER:
    case FN_UPPER:
        if (f->type != RS_FT_STRING)
            return fail_at(p, field_pos, "%s() takes a string field; %s is not one",
                           fn_names[op->fn], name);
        op->type = RS_FT_STRING;
        break;
    case FN_STRING:
        /* Wireshark 4.0 converts numbers (in decimal, whatever their base)
         * and addresses; times, booleans and bytes it refuses. */
        if (!string_convertible(f->type))
            return fail_at(p, field_pos, "string() cannot convert %s: it is %s", name,
                           type_words(f->type));
        op->type = RS_FT_STRING;
        break;
    case FN_ABS:
        if (f->type < RS_FT_UINT8 || f->type > RS_FT_RELTIME || f->type == RS_FT_BOOLEAN ||
            f->type == RS_FT_ABSTIME)
            return fail_at(p, field_pos, "abs() takes a number; %s is %s", name,
                           type_words(f->type));
        break;
    case FN_MAX:
    case FN_MIN:
        if (!parse_more_fields(p, op, f))
            return false;
        break;
    default:
        break;
    }
    if (op->fn != FN_NONE) {
        if (p->tok != TOK_RPAREN)
            return fail_at(p, p->pos, "expected ')' after the field of %s()", fn_names[op->fn]);
        next(p);
    }
    op->derived = op->fn != FN_NONE || op->sliced;
    size_t dl = p->pos - start;
    while (dl > 0 && isspace((unsigned char)p->text[start + dl - 1]))
        dl--;
    snprintf(desc, desclen, "%.*s", (int)dl, p->text + start);
    return true;
}

/* Which kinds of value compare with which: numbers, times of each kind,
 * doubles, addresses of each family, and bytes (bytes, MACs, slices,
 * protocols) with text. */
static int
type_class(uint8_t type)
{
    switch (type) {
    case RS_FT_BOOLEAN:
    case RS_FT_UINT8:
    case RS_FT_UINT16:
    case RS_FT_UINT24:
    case RS_FT_UINT32:
    case RS_FT_UINT64:
    case RS_FT_FRAMENUM:
        return 1;
    case RS_FT_BYTES:
    case RS_FT_ETHER:
    case RS_FT_PROTOCOL:
        return 2;
    default:
        return 10 + type;
    }
}

/* The other side is an operand too: ip.src == ip.dst. */
static void
second_operand(struct parser *p, struct node *n, const char *desc_a, bool contains)
{
    char desc_b[160];
    size_t at = p->pos;

    if (!parse_operand(p, &n->b, desc_b, sizeof(desc_b)))
        return;
    n->kind = NODE_FIELDS;
    n->field_contains = contains;
    bool bytes_a = n->a.type == RS_FT_BYTES || n->a.type == RS_FT_ETHER ||
                   n->a.type == RS_FT_PROTOCOL || n->a.type == RS_FT_STRING;
    bool bytes_b = n->b.type == RS_FT_BYTES || n->b.type == RS_FT_ETHER ||
                   n->b.type == RS_FT_PROTOCOL || n->b.type == RS_FT_STRING;
    /* bytes (a slice) compare with addresses too: frame[26:4] == ip.src */
    bool addr_a = n->a.type == RS_FT_IPV4 || n->a.type == RS_FT_IPV6;
    bool addr_b = n->b.type == RS_FT_IPV4 || n->b.type == RS_FT_IPV6;
    bool compatible = type_class(n->a.type) == type_class(n->b.type) ||
                      (n->a.type == RS_FT_BYTES && addr_b) ||
                      (n->b.type == RS_FT_BYTES && addr_a);
    if (contains ? !((bytes_a || addr_a) && (bytes_b || addr_b)) : !compatible)
        fail_at(p, at, "%s and %s are not of compatible types", desc_a, desc_b);
    else if (n->b.type == RS_FT_NONE)
        fail_at(p, at, "%s is a label: it can only be tested for presence", desc_b);
}

static void
parse_matches(struct parser *p, struct node *n, const char *desc, uint8_t type)
{
    char why[160];
    uint8_t pat[MAX_REGEX + 1];

    n->kind = NODE_MATCHES;
    if (type != RS_FT_STRING && type != RS_FT_BYTES && type != RS_FT_ETHER &&
        type != RS_FT_PROTOCOL) {
        fail_at(p, p->pos, "%s cannot be tested with matches: it is not text or bytes", desc);
        return;
    }
    next(p);
    if (p->tok != TOK_STRING) {
        fail_at(p, p->pos, "matches takes a \"quoted\" regular expression");
        return;
    }
    size_t at = p->pos;
    long len = filter_unescape(p->text + p->pos + 1, p->end - p->pos - 2, pat, MAX_REGEX, why,
                               sizeof(why));
    if (len < 0) {
        fail_at(p, at, "%s", why);
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
    GError *gerr = NULL;
    n->re = g_regex_new(text, G_REGEX_RAW | G_REGEX_OPTIMIZE, 0, &gerr);
    if (n->re == NULL) {
        char *msg = gerr != NULL ? gerr->message : "unknown error";
        for (char *c = msg; *c != '\0'; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
        fail_at(p, at, "regular expression does not compile: %s", msg);
        if (gerr != NULL)
            g_error_free(gerr);
        return;
    }
    next(p);
}

static struct node *
parse_test(struct parser *p)
{
    struct node *n = node_new(NODE_PRESENT);
    char desc[160];

    if (n == NULL)
        return NULL;
    size_t field_pos = p->pos;
    if (!parse_operand(p, &n->a, desc, sizeof(desc)))
        return n;
    n->field = n->a.field;
    const struct rs_field *real = rs_field_by_id(n->field);
    bool op_follows = p->tok == TOK_RELOP || is_word(p, "contains") || is_word(p, "in") ||
                      is_word(p, "matches") || p->tok == TOK_BITAND;
    /* A protocol compared, sliced or matched stands for its bytes; tested
     * alone it is a presence test, on the fast path. */
    if (n->a.type == RS_FT_PROTOCOL && op_follows)
        n->a.derived = true;
    /* What the literal is converted to: the field's type, or the type a
     * slice or a function yields. */
    struct rs_field f = *real;
    if (n->a.derived) {
        f.type = n->a.type == RS_FT_PROTOCOL ? RS_FT_BYTES : n->a.type;
        f.abbrev = desc;
        f.vals = NULL;
    }
    if (op_follows) {
        if (f.type == RS_FT_NONE) {
            fail_at(p, field_pos, "%s is a label: it can only be tested for presence", desc);
            return n;
        }
    }
    if (p->tok == TOK_BITAND) {
        /* Wireshark's bitwise test: true when some bit of the mask is set. */
        if (f.type < RS_FT_UINT8 || f.type > RS_FT_FRAMENUM) {     /* not booleans either */
            fail_at(p, field_pos, "%s is not a number: & tests the bits of a number", desc);
            return n;
        }
        one_literal(p, n, NODE_BITAND, &f);
    } else if (p->tok == TOK_RELOP) {
        n->op = p->relop;
        next(p);
        if (at_operand(p))
            second_operand(p, n, desc, false);
        else
            one_literal_here(p, n, NODE_COMPARE, &f);
    } else if (is_word(p, "contains")) {
        if (f.type != RS_FT_STRING && f.type != RS_FT_BYTES && f.type != RS_FT_ETHER &&
            f.type != RS_FT_IPV4 && f.type != RS_FT_IPV6) {
            fail_at(p, p->pos, "%s cannot be tested with contains: it is not text or bytes",
                    desc);
            return n;
        }
        next(p);
        if (at_operand(p))
            second_operand(p, n, desc, true);
        else
            one_literal_here(p, n, NODE_CONTAINS, &f);
    } else if (is_word(p, "matches")) {
        parse_matches(p, n, desc, f.type);
    } else if (is_word(p, "in")) {
        next(p);
        parse_set(p, n, &f);
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
node_uses(const struct node *n, const char *prefix)
{
    if (n->kids == NULL)
        return strncmp(rs_field_by_id(n->field)->abbrev, prefix, strlen(prefix)) == 0 ||
               (n->kind == NODE_FIELDS &&
                strncmp(rs_field_by_id(n->b.field)->abbrev, prefix, strlen(prefix)) == 0);
    for (uint32_t i = 0; i < n->n_kids; i++)
        if (node_uses(n->kids[i], prefix))
            return true;
    return false;
}

bool
rs_filter_uses(const struct rs_filter *f, const char *prefix)
{
    return f != NULL && node_uses(f->root, prefix);
}
