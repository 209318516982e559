/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_type.c - typing a display filter as Wireshark 4.0's semantic check does:
 * each literal takes the type of what it is compared with (the left side of a
 * comparison, the left operand of arithmetic, the first argument of max()), each
 * operator is checked against the types it is given, and protocols read as bytes
 * where they are compared, sliced or searched.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "filter/filter_int.h"

const char *
filter_type_name(uint8_t t)
{
    return t == FV_INT64 ? "FT_INT64" : rs_field_type_name(t);
}

bool
filter_type_bytes(uint8_t t)
{
    return t == RS_FT_BYTES || t == RS_FT_ETHER || t == RS_FT_PROTOCOL;
}

int
filter_arith_class(uint8_t t)
{
    switch (t) {
    case RS_FT_UINT8:
    case RS_FT_UINT16:
    case RS_FT_UINT24:
    case RS_FT_UINT32:
    case RS_FT_UINT64:
    case RS_FT_FRAMENUM:
        return 1;
    case RS_FT_INT16:
    case RS_FT_INT32:
    case FV_INT64:
        return 2;
    case RS_FT_DOUBLE:
        return 3;
    case RS_FT_RELTIME:
        return 4;
    case RS_FT_BYTES:
    case RS_FT_ETHER:
    case RS_FT_PROTOCOL:
    case RS_FT_IPV4:
    case RS_FT_IPV6:
        return 5;
    default:
        return 0;
    }
}

/* Which values compare with which: integers, booleans, doubles, times of each kind,
 * bytes (bytes, MACs, protocols, slices) with text, addresses of each family. */
static int
compare_class(uint8_t t)
{
    switch (filter_arith_class(t)) {
    case 1:
    case 2:
        return 1;
    default:
        break;
    }
    if (filter_type_bytes(t) || t == RS_FT_STRING)
        return 2;
    return 10 + t;
}

static const char *
text_of(const struct parser *p, const struct expr *e, int *len)
{
    *len = (int)(e->len > 60 ? 60 : e->len);
    return p->text + e->pos;
}

/* The field whose value names a literal beside e may use. */
static const struct rs_field *
ctx_field(const struct expr *c)
{
    if (c == NULL)
        return NULL;
    if (c->kind == EXPR_FIELD && !c->as_bytes)
        return rs_field_by_id(c->field);
    if ((c->kind == EXPR_ARITH || c->kind == EXPR_NEG) && c->n_args > 0)
        return ctx_field(c->args[0]);
    return NULL;
}

static bool
sliceable(uint8_t type)
{
    return filter_type_bytes(type) || type == RS_FT_IPV4 || type == RS_FT_IPV6 ||
           type == RS_FT_STRING;
}

static bool
string_convertible(uint8_t type)
{
    return filter_arith_class(type) == 1 || filter_arith_class(type) == 2 ||
           type == RS_FT_ETHER || type == RS_FT_IPV4 || type == RS_FT_IPV6 ||
           type == RS_FT_STRING;
}

static bool
type_literal(struct parser *p, struct expr *e, const struct expr *ctx)
{
    char why[200];
    int n;
    const char *t = text_of(p, e, &n);

    if (ctx == NULL || ctx->type == FILTER_NO_TYPE)
        return filter_fail(p, e->pos, "%.*s is neither a field nor a protocol: a value "
                           "needs a field to compare with", n, t);
    const struct rs_field *f = ctx_field(ctx);
    char what[72];
    int m;
    const char *u = text_of(p, ctx, &m);
    snprintf(what, sizeof(what), "%.*s", m, u);
    if (!filter_literal(f, f != NULL ? f->abbrev : what, ctx->type, e->lit, &e->value, why,
                        sizeof(why)))
        return filter_fail(p, e->pos, "%s", why);
    e->type = ctx->type == RS_FT_PROTOCOL ? RS_FT_BYTES : ctx->type;
    return true;
}

static const char *fn_name(uint8_t fn)
{
    static const char *const names[] = {"len", "count", "lower", "upper", "string", "abs",
                                        "max", "min"};
    return names[fn];
}

static bool
type_function(struct parser *p, struct expr *e, const struct expr *ctx)
{
    struct expr *a = e->args[0];
    int n;
    const char *t;

    switch (e->fn) {
    case FN_LEN:
    case FN_COUNT:
    case FN_LOWER:
    case FN_UPPER:
    case FN_STRING:
        if (e->n_args == 1 && a->kind == EXPR_LITERAL && a->lit->tok == TOK_WORD &&
            (isalpha((unsigned char)p->text[a->pos]) || p->text[a->pos] == '_'))
            return filter_fail(p, a->pos, "unknown field '%.*s'", (int)a->len,
                               p->text + a->pos);
        if (e->n_args != 1 || a->kind != EXPR_FIELD)
            return filter_fail(p, e->n_args != 1 ? e->pos : a->pos, "%s() takes one field",
                               fn_name(e->fn));
        t = text_of(p, a, &n);
        if (a->type == RS_FT_NONE && e->fn != FN_COUNT)
            return filter_fail(p, a->pos, "%s() takes a field with a value; %.*s is a label",
                               fn_name(e->fn), n, t);
        if ((e->fn == FN_LOWER || e->fn == FN_UPPER) && a->type != RS_FT_STRING)
            return filter_fail(p, a->pos, "%s() takes a string field; %.*s is not one",
                               fn_name(e->fn), n, t);
        /* Wireshark 4.0 converts numbers (in decimal, whatever their base) and
         * addresses; times, booleans and bytes it refuses. */
        if (e->fn == FN_STRING && !string_convertible(a->type))
            return filter_fail(p, a->pos, "string() cannot convert %.*s: it is %s", n, t,
                               filter_type_name(a->type));
        a->as_bytes = a->type == RS_FT_PROTOCOL;
        e->type = e->fn <= FN_COUNT ? RS_FT_UINT32 : RS_FT_STRING;
        return true;
    case FN_ABS:
        if (e->n_args != 1)
            return filter_fail(p, e->pos, "abs() takes one argument");
        if (!filter_type_expr(p, a, ctx))
            return false;
        if (filter_arith_class(a->type) == 0 || filter_arith_class(a->type) == 5) {
            t = text_of(p, a, &n);
            return filter_fail(p, a->pos, "abs() takes a number; %.*s is %s", n, t,
                               filter_type_name(a->type));
        }
        e->type = a->type;
        return true;
    default: {
        /* max(), min(): every argument of one type, the literals typed by the first
         * that reads the packet */
        const struct expr *first = NULL;
        for (uint8_t i = 0; i < e->n_args && first == NULL; i++)
            if (e->args[i]->kind != EXPR_LITERAL)
                first = e->args[i];
        if (first != NULL && !filter_type_expr(p, (struct expr *)first, NULL))
            return false;
        const struct expr *c = first != NULL ? first : ctx;
        for (uint8_t i = 0; i < e->n_args; i++) {
            struct expr *x = e->args[i];
            if (!filter_type_expr(p, x, c))
                return false;
            uint8_t want = c != NULL ? c->type : x->type;
            if (x->type != want && !(x->kind == EXPR_LITERAL))
                return filter_fail(p, x->pos, "the arguments of %s() must have one type "
                                   "(expected %s, got %s)", fn_name(e->fn),
                                   filter_type_name(want), filter_type_name(x->type));
            /* bytes, MACs and text order as Wireshark's do (min(eth.src, eth.dst)) */
            if (x->type == RS_FT_BOOLEAN || x->type == RS_FT_NONE ||
                x->type == RS_FT_PROTOCOL) {
                t = text_of(p, x, &n);
                return filter_fail(p, x->pos, "%s() takes values that order; %.*s is %s",
                                   fn_name(e->fn), n, t, filter_type_name(x->type));
            }
        }
        e->type = c != NULL ? c->type : e->args[0]->type;
        return true;
    }
    }
}

/* The operator's character, for messages. */
static const char *
op_symbol(uint8_t op)
{
    static const char *const s[] = {"+", "-", "*", "/", "%", "&"};
    return s[op];
}

/* Whether class cl (filter_arith_class) takes op. */
static bool
takes_op(uint8_t type, uint8_t op)
{
    int cl = filter_arith_class(type);

    switch (op) {
    case ARITH_ADD:
    case ARITH_SUB:
        return cl >= 1 && cl <= 4;
    case ARITH_MUL:
    case ARITH_DIV:
        return cl >= 1 && cl <= 3;
    case ARITH_MOD:
        return cl == 1 || cl == 2;
    default:        /* & on integers, bytes, MACs and IPv4 addresses; not protocols */
        return cl == 1 || cl == 2 || (cl == 5 && type != RS_FT_IPV6 && type != RS_FT_PROTOCOL);
    }
}

static bool
type_arith(struct parser *p, struct expr *e, const struct expr *ctx)
{
    struct expr *a = e->args[0], *b = e->args[1];
    int n;
    const char *t;

    if (a->kind == EXPR_LITERAL && (ctx == NULL || ctx->type == FILTER_NO_TYPE))
        return filter_fail(p, e->pos, "a constant arithmetic expression cannot be the "
                           "left side of a comparison");
    if (!filter_type_expr(p, a, ctx))
        return false;
    if (!takes_op(a->type, e->op)) {
        if (a->type == RS_FT_PROTOCOL)
            a->as_bytes = true;
        return filter_fail(p, e->pos, "%s cannot %s: arithmetic takes numbers (and & bytes)",
                           filter_type_name(a->type), op_symbol(e->op));
    }
    if (!filter_type_expr(p, b, a))
        return false;
    int ca = filter_arith_class(a->type), cb = filter_arith_class(b->type);
    bool ok = ca == cb || ((ca == 1 || ca == 2) && (cb == 1 || cb == 2));
    if (ok && ca == 5)
        ok = (a->type == RS_FT_IPV4) == (b->type == RS_FT_IPV4);
    if (!ok) {
        int m;
        const char *u = text_of(p, b, &m);
        t = text_of(p, a, &n);
        return filter_fail(p, b->pos, "%.*s and %.*s are not type compatible", n, t, m, u);
    }
    e->type = a->type == RS_FT_PROTOCOL ? RS_FT_BYTES : a->type;
    return true;
}

bool
filter_type_expr(struct parser *p, struct expr *e, const struct expr *ctx)
{
    int n;
    const char *t;

    if (p->failed)
        return false;
    switch (e->kind) {
    case EXPR_FIELD:
    case EXPR_REF:
        if (e->type == RS_FT_NONE) {
            t = text_of(p, e, &n);
            return filter_fail(p, e->pos, "%.*s is a label: it can only be tested for "
                               "presence", n, t);
        }
        e->as_bytes = e->type == RS_FT_PROTOCOL;
        return true;
    case EXPR_LITERAL:
        return e->lit->typed || type_literal(p, e, ctx);
    case EXPR_SLICE: {
        struct expr *of = e->args[0];
        if (of->kind == EXPR_LITERAL) {
            t = text_of(p, of, &n);
            return filter_fail(p, of->pos, "%.*s is a value: only fields and protocols can "
                               "be sliced", n, t);
        }
        if (!filter_type_expr(p, of, NULL))
            return false;
        if (!sliceable(of->type)) {
            t = text_of(p, of, &n);
            return filter_fail(p, of->pos, "%.*s is %s and cannot be sliced", n, t,
                               filter_type_name(of->type));
        }
        const struct rs_field *f = of->kind == EXPR_FIELD ? rs_field_by_id(of->field) : NULL;
        if (f != NULL && f->type == RS_FT_PROTOCOL && f->get != NULL &&
            strcmp(f->abbrev, "frame") != 0 && strcmp(f->abbrev, "infiniband") != 0 &&
            f->layer >= RS_LAYER_COUNT) {
            t = text_of(p, of, &n);
            return filter_fail(p, of->pos, "%.*s has no bytes to slice", n, t);
        }
        e->type = RS_FT_BYTES;
        return true;
    }
    case EXPR_FUNC:
        return type_function(p, e, ctx);
    case EXPR_ARITH:
        return type_arith(p, e, ctx);
    case EXPR_NEG: {
        struct expr *a = e->args[0];
        if (!filter_type_expr(p, a, ctx))
            return false;
        int cl = filter_arith_class(a->type);
        if (cl < 1 || cl > 4)
            return filter_fail(p, e->pos, "%s cannot -: a minus takes a number or a time",
                               filter_type_name(a->type));
        struct fval neg;
        if (a->kind == EXPR_LITERAL && !filter_negate(&a->value, &neg)) {
            t = text_of(p, a, &n);
            return filter_fail(p, e->pos, "-%.*s is below the least %s number", n, t,
                               cl == 1 && a->type != RS_FT_UINT64 ? "signed 32-bit" :
                                                                    "signed 64-bit");
        }
        e->type = a->type;
        return true;
    }
    }
    return false;
}

bool
filter_type_pair(struct parser *p, struct expr *a, struct expr *b, int op)
{
    int n, m;
    const char *t, *u;

    if (!filter_type_expr(p, a, NULL))
        return false;
    t = text_of(p, a, &n);
    if (op == -1 || op == -2) {
        bool text = filter_type_bytes(a->type) || a->type == RS_FT_STRING;
        if (!text)
            return filter_fail(p, a->pos, "%.*s (%s) cannot be tested with %s: it is not text "
                               "or bytes", n, t, filter_type_name(a->type),
                               op == -1 ? "contains" : "matches");
    }
    if (b == NULL)
        return true;
    /* what a contains: bytes (aa:bb, or text in quotes), or text in a string */
    struct expr as_bytes = *a;
    as_bytes.type = a->type == RS_FT_STRING ? RS_FT_STRING : RS_FT_BYTES;
    if (op == -1 && a->type == RS_FT_ETHER && b->kind == EXPR_LITERAL && b->lit->tok != TOK_WORD)
        return filter_fail(p, b->pos, "a MAC address cannot be searched for text: write bytes "
                           "(aa:bb)");
    if (!filter_type_expr(p, b, op == -1 ? &as_bytes : a))
        return false;
    u = text_of(p, b, &m);
    bool ok;
    /* text and bytes meet only through a literal (or a slice, which is bytes) */
    bool mixed = b->kind != EXPR_LITERAL && a->kind != EXPR_SLICE && b->kind != EXPR_SLICE &&
                 (a->type == RS_FT_STRING) != (b->type == RS_FT_STRING);
    if (op == -1) {
        ok = (filter_type_bytes(b->type) || b->type == RS_FT_STRING) && !mixed;
    } else {
        int ca = compare_class(a->type), cb = compare_class(b->type);
        bool addr_a = a->type == RS_FT_IPV4 || a->type == RS_FT_IPV6;
        bool addr_b = b->type == RS_FT_IPV4 || b->type == RS_FT_IPV6;
        /* bytes (a slice) compare with addresses too: frame[26:4] == ip.src */
        ok = ca == cb || (a->type == RS_FT_BYTES && addr_b) || (b->type == RS_FT_BYTES && addr_a);
        /* a boolean compares with a boolean or a literal */
        if (ok && (a->type == RS_FT_BOOLEAN) != (b->type == RS_FT_BOOLEAN))
            ok = false;
        ok = ok && !mixed;
    }
    if (!ok)
        return filter_fail(p, b->pos, "%.*s and %.*s are not of compatible types", n, t, m, u);
    return true;
}
