/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_eval.c - running a compiled display filter against one packet.
 *
 * An expression yields a stream of values, walked by callbacks that may stop it: a
 * field every occurrence (and alias), a slice or a function one per value of what it
 * reads, arithmetic one per pair of values of its two sides (as Wireshark 4.0 pairs
 * them). A test walks its sides until it is decided. Nothing is allocated per packet:
 * values computed here live in buffers on the stack of the walk that made them, which
 * is still running while they are used. GLib allocates its match data inside
 * g_regex_match_full() for `matches`, the one exception.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "filter/filter_int.h"

/* A value's consumer: true stops the walk. */
typedef bool (*fv_fn)(void *ctx, const struct fval *v);

static bool walk(const struct rs_packet *pkt, const struct expr *e, fv_fn fn, void *ctx);

/* Copies v into keep (with its bytes in buf, FILTER_VALUE_MAX of them): an outer value
 * of a pair must survive the inner walk, and a getter may hand bytes from storage that
 * its next call reuses (frame.protocols compared with itself). */
static void
keep_value(const struct fval *v, struct fval *keep, uint8_t *buf)
{
    const uint8_t *s;
    size_t len;

    *keep = *v;
    if (v->v.type != RS_FT_STRING && filter_value_bytes(v, true, &s, &len) &&
        len <= FILTER_VALUE_MAX) {
        memcpy(buf, s, len);
        keep->v.v.bytes.ptr = buf;
    }
}

/* ---- fields ---- */

struct field_walk {
    const struct rs_packet *pkt;
    const struct expr *e;
    fv_fn fn;
    void *ctx;
    bool stop;
};

static void
field_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    struct field_walk *w = ctx;
    struct fval x = {.v = *v};

    if (w->stop)
        return;
    if (v->type == RS_FT_PROTOCOL && w->e->as_bytes) {
        if (!filter_protocol_bytes(w->pkt, f, v, &x))
            return;
    } else if (v->type == RS_FT_STRING) {
        x.v.type = FV_TEXT;
        x.v.v.bytes.ptr = (const uint8_t *)v->v.str;
        x.v.v.bytes.len = (uint32_t)strlen(v->v.str);
    }
    w->stop = w->fn(w->ctx, &x);
}

static bool
walk_field(const struct rs_packet *pkt, const struct expr *e, fv_fn fn, void *ctx)
{
    struct field_walk w = {pkt, e, fn, ctx, false};

    if (e->layered)
        rs_field_foreach_layers(pkt, e->field, e->layer_lo, e->layer_hi, field_value, &w);
    else
        rs_field_foreach(pkt, e->field, field_value, &w);
    return w.stop;
}

/* ---- slices ---- */

struct slice_walk {
    const struct expr *e;
    fv_fn fn;
    void *ctx;
};

/* Joins the ranges of a slice of s into buf, or points into s when there is one range;
 * false when some range lies outside the value (Wireshark: no value). */
static bool
slice_value(const struct expr *e, const uint8_t *s, size_t len, uint8_t *buf, struct fval *out)
{
    uint32_t total = 0;

    for (uint8_t k = 0; k < e->n_ranges; k++) {
        const struct slice_range *r = &e->ranges[k];
        int64_t start = r->start < 0 ? (int64_t)len + r->start : r->start;
        int64_t n = r->len != 0 ? (int64_t)r->len : (int64_t)len - start;
        if (start < 0 || n <= 0 || start + n > (int64_t)len)
            return false;
        if (e->n_ranges == 1) {
            out->v.v.bytes.ptr = s + start;
            total = (uint32_t)n;
            break;
        }
        if (total + n > FILTER_VALUE_MAX)
            n = FILTER_VALUE_MAX - total;
        memcpy(buf + total, s + start, (size_t)n);
        total += (uint32_t)n;
        out->v.v.bytes.ptr = buf;
    }
    out->v.type = RS_FT_BYTES;
    out->v.v.bytes.len = total;
    out->extent = total;
    return true;
}

static bool
slice_each(void *ctx, const struct fval *v)
{
    struct slice_walk *w = ctx;
    uint8_t buf[FILTER_VALUE_MAX];
    struct fval out = {0};
    const uint8_t *s;
    size_t len;

    if (!filter_value_bytes(v, false, &s, &len) || !slice_value(w->e, s, len, buf, &out))
        return false;
    return w->fn(w->ctx, &out);
}

/* ---- functions ---- */

/* Bytes a value of a numeric type takes in the packet, for len(). */
static uint32_t
width_of(const struct rs_field *f)
{
    if (f->width != 0)
        return f->width;
    switch (f->type) {
    case RS_FT_BOOLEAN:
    case RS_FT_UINT8:
        return 1;
    case RS_FT_UINT16:
    case RS_FT_INT16:
        return 2;
    case RS_FT_UINT24:
        return 3;
    case RS_FT_UINT32:
    case RS_FT_INT32:
    case RS_FT_FRAMENUM:
        return 4;
    default:
        return 8;
    }
}

/* len(), lower(), upper(), string() over every value of their field (a field_walk). */

static void
fn_field_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    struct field_walk *w = ctx;
    char buf[FILTER_VALUE_MAX];
    struct fval x = {.v = *v};
    const uint8_t *s;
    size_t len;

    if (w->stop)
        return;
    if (v->type == RS_FT_PROTOCOL && !filter_protocol_bytes(w->pkt, f, v, &x))
        return;
    switch (w->e->fn) {
    case FN_LEN:
        x.v.v.u = filter_value_bytes(&x, false, &s, &len) ? len : width_of(f);
        x.v.type = RS_FT_UINT32;
        break;
    case FN_LOWER:
    case FN_UPPER:
        len = 0;
        for (; v->v.str[len] != '\0' && len < sizeof(buf); len++) {
            int c = (unsigned char)v->v.str[len];
            buf[len] = (char)(w->e->fn == FN_LOWER ? tolower(c) : toupper(c));
        }
        x.v.type = FV_TEXT;
        x.v.v.bytes.ptr = (const uint8_t *)buf;
        x.v.v.bytes.len = (uint32_t)len;
        break;
    default:        /* string(): numbers in decimal whatever their base, addresses as -T
                     * fields prints them, text as it is */
        if (v->type == RS_FT_STRING)
            snprintf(buf, sizeof(buf), "%s", v->v.str);
        else if (v->type == RS_FT_INT32 || v->type == RS_FT_INT16)
            snprintf(buf, sizeof(buf), "%lld", (long long)(int64_t)v->v.u);
        else if (filter_arith_class(v->type) == 1)
            snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v->v.u);
        else
            rs_value_format(f, v, buf, sizeof(buf));
        x.v.type = FV_TEXT;
        x.v.v.bytes.ptr = (const uint8_t *)buf;
        x.v.v.bytes.len = (uint32_t)strlen(buf);
        break;
    }
    w->stop = w->fn(w->ctx, &x);
}

static void
count_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    (void)ctx, (void)f, (void)v;
}

/* max() and min(): the value kept so far, its bytes copied. */
struct extreme {
    bool max, any;
    struct fval best;
    uint8_t bytes[FILTER_VALUE_MAX];
};

static bool
extreme_each(void *ctx, const struct fval *v)
{
    struct extreme *x = ctx;
    int c = 0;
    bool equal;

    /* Kept only when strictly beyond the best so far: the first of equals wins. */
    if (x->any && (!filter_compare(v, &x->best, NULL, &c, &equal) || (x->max ? c <= 0 : c >= 0)))
        return false;
    keep_value(v, &x->best, x->bytes);
    x->any = true;
    return false;
}

struct map_walk {
    const struct expr *e;
    fv_fn fn;
    void *ctx;
};

/* abs() and a minus, value by value. */
static bool
map_each(void *ctx, const struct fval *v)
{
    struct map_walk *w = ctx;
    struct fval out;

    if (w->e->kind == EXPR_NEG) {
        if (!filter_negate(v, &out))
            return false;
    } else {
        out = *v;
        bool negative = filter_arith_class(v->v.type) == 2 ?
                            (int64_t)v->v.v.u < 0 :
                        v->v.type == RS_FT_DOUBLE ? v->v.v.d < 0 :
                        v->v.type == RS_FT_RELTIME ? rs_time_is_negative(v->v.v.t) : false;
        if (negative && !filter_negate(v, &out))
            return false;
        if (negative && filter_arith_class(out.v.type) == 2)
            out.v.type = v->v.type;
    }
    return w->fn(w->ctx, &out);
}

static bool
walk_function(const struct rs_packet *pkt, const struct expr *e, fv_fn fn, void *ctx)
{
    const struct expr *a = e->args[0];

    switch (e->fn) {
    case FN_COUNT: {
        unsigned n = a->layered ?
                         rs_field_foreach_layers(pkt, a->field, a->layer_lo, a->layer_hi,
                                                 count_value, NULL) :
                         rs_field_foreach(pkt, a->field, count_value, NULL);
        if (n == 0)         /* count() of an absent field is no value, as in tshark */
            return false;
        struct fval v = {.v = {.type = RS_FT_UINT32, .v.u = n}};
        return fn(ctx, &v);
    }
    case FN_LEN:
    case FN_LOWER:
    case FN_UPPER:
    case FN_STRING: {
        struct field_walk w = {pkt, e, fn, ctx, false};
        if (a->layered)
            rs_field_foreach_layers(pkt, a->field, a->layer_lo, a->layer_hi, fn_field_value, &w);
        else
            rs_field_foreach(pkt, a->field, fn_field_value, &w);
        return w.stop;
    }
    case FN_ABS: {
        struct map_walk w = {e, fn, ctx};
        return walk(pkt, a, map_each, &w);
    }
    default: {
        struct extreme x = {.max = e->fn == FN_MAX};
        for (uint8_t i = 0; i < e->n_args; i++)
            walk(pkt, e->args[i], extreme_each, &x);
        return x.any && fn(ctx, &x.best);     /* of no value at all, no value */
    }
    }
}

/* ---- arithmetic ---- */

struct arith_walk {
    const struct rs_packet *pkt;
    const struct expr *e;
    fv_fn fn;
    void *ctx;
    struct fval a;
};

static bool
arith_right(void *ctx, const struct fval *b)
{
    struct arith_walk *w = ctx;
    uint8_t buf[FILTER_VALUE_MAX];
    struct fval out;

    if (!filter_arith((enum arith_op)w->e->op, &w->a, b, &out, buf))
        return false;
    return w->fn(w->ctx, &out);
}

static bool
arith_left(void *ctx, const struct fval *a)
{
    struct arith_walk *w = ctx;
    uint8_t buf[FILTER_VALUE_MAX];

    keep_value(a, &w->a, buf);
    return walk(w->pkt, w->e->args[1], arith_right, w);
}

static bool
walk(const struct rs_packet *pkt, const struct expr *e, fv_fn fn, void *ctx)
{
    switch (e->kind) {
    case EXPR_FIELD:
        return walk_field(pkt, e, fn, ctx);
    case EXPR_LITERAL:
        return fn(ctx, &e->value);
    case EXPR_REF:
        return false;       /* no frame is selected in a GUI: no value */
    case EXPR_SLICE: {
        struct slice_walk w = {e, fn, ctx};
        return walk(pkt, e->args[0], slice_each, &w);
    }
    case EXPR_FUNC:
        return walk_function(pkt, e, fn, ctx);
    case EXPR_NEG: {
        struct map_walk w = {e, fn, ctx};
        return walk(pkt, e->args[0], map_each, &w);
    }
    case EXPR_ARITH: {
        struct arith_walk w = {.pkt = pkt, .e = e, .fn = fn, .ctx = ctx};
        return walk(pkt, e->args[0], arith_left, &w);
    }
    }
    return false;
}

/* ---- tests ---- */

/* How the pairs of a test came out: some satisfied it, some were against it (a pair
 * that could not be compared is neither). */
struct verdict {
    const struct node *n;
    const struct rs_packet *pkt;
    bool any_true, any_false, seen;
    struct fval a;          /* the left value of the pair being walked */
    const struct set_item *item;
    struct fval lo;
    uint32_t only;          /* NODE_IN under "all": 1 + the one member tested, else 0 */
};

/* Whether the walk can stop: "any" is decided by a pair that holds, "all" by one that
 * does not. */
static bool
decided(const struct verdict *v, bool all)
{
    return all ? v->any_false : v->any_true;
}

static bool
all_mode(const struct node *n)
{
    if (n->quant != QUANT_DEFAULT)
        return n->quant == QUANT_ALL;
    return n->kind == NODE_COMPARE && (n->op == CMP_NE || n->op == CMP_ALL_EQ);
}

static bool
op_holds(enum cmp_op op, int c, bool equal)
{
    switch (op) {
    case CMP_EQ:
    case CMP_ALL_EQ:
        return equal;
    case CMP_NE:
    case CMP_ANY_NE:
        return !equal;
    case CMP_LT:
        return c < 0;
    case CMP_LE:
        return c <= 0;
    case CMP_GT:
        return c > 0;
    default:
        return c >= 0;
    }
}

static void
record(struct verdict *v, bool ok)
{
    v->seen = true;
    if (ok)
        v->any_true = true;
    else
        v->any_false = true;
}

static bool
contains(const struct fval *a, const struct fval *b)
{
    const uint8_t *as, *bs;
    size_t alen, blen;

    return filter_value_bytes(a, true, &as, &alen) && filter_value_bytes(b, false, &bs, &blen) &&
           blen <= alen && (blen == 0 || memmem(as, alen, bs, blen) != NULL);
}

static bool
compare_right(void *ctx, const struct fval *b)
{
    struct verdict *v = ctx;
    const struct node *n = v->n;
    const struct expr *be = n->b;
    int c;
    bool equal;

    if (n->kind == NODE_CONTAINS) {
        record(v, contains(&v->a, b));
    } else if (filter_compare(&v->a, b, be->kind == EXPR_LITERAL ? be->lit : NULL, &c, &equal)) {
        record(v, op_holds(n->op, c, equal));
    } else {
        v->seen = true;
    }
    return decided(v, all_mode(n));
}

/* a value of the set's range item lies between lo and hi */
static bool
range_hi(void *ctx, const struct fval *hi)
{
    struct verdict *v = ctx;
    int c1, c2;
    bool e1, e2;

    if (filter_compare(&v->a, &v->lo, NULL, &c1, &e1) &&
        filter_compare(&v->a, hi, NULL, &c2, &e2) && c1 >= 0 && c2 <= 0)
        v->any_true = true;
    return v->any_true;
}

static bool
range_lo(void *ctx, const struct fval *lo)
{
    struct verdict *v = ctx;
    uint8_t buf[FILTER_VALUE_MAX];

    keep_value(lo, &v->lo, buf);
    return walk(v->pkt, v->item->hi, range_hi, v);
}

static bool
set_value(void *ctx, const struct fval *y)
{
    struct verdict *v = ctx;
    int c;
    bool equal;

    if (filter_compare(&v->a, y, v->item->lo->kind == EXPR_LITERAL ? v->item->lo->lit : NULL,
                       &c, &equal) && equal)
        v->any_true = true;
    return v->any_true;
}

/* Whether a (v->a) is a member of the set. */
static bool
in_set(struct verdict *v)
{
    const struct node *n = v->n;

    for (uint32_t i = v->only != 0 ? v->only - 1 : 0; i < n->n_set; i++) {
        if (v->only != 0 && i != v->only - 1)
            break;
        struct verdict inner = *v;
        inner.any_true = false;
        inner.item = &n->set[i];
        if (n->set[i].hi != NULL)
            walk(v->pkt, n->set[i].lo, range_lo, &inner);
        else
            walk(v->pkt, n->set[i].lo, set_value, &inner);
        if (inner.any_true)
            return true;
    }
    return false;
}

static bool
test_left(void *ctx, const struct fval *a)
{
    struct verdict *v = ctx;
    const struct node *n = v->n;
    uint8_t buf[FILTER_VALUE_MAX];
    const uint8_t *s;
    size_t len;

    switch (n->kind) {
    case NODE_COMPARE:
    case NODE_CONTAINS:
        keep_value(a, &v->a, buf);
        walk(v->pkt, n->b, compare_right, v);
        break;
    case NODE_MATCHES:
        if (filter_value_bytes(a, true, &s, &len))
            record(v, g_regex_match_full(n->re, (const char *)s, (gssize)len, 0, 0, NULL,
                                         NULL));
        break;
    case NODE_IN:
        v->a = *a;
        record(v, in_set(v));
        break;
    case NODE_TRUE:
        record(v, filter_nonzero(a));
        break;
    default:        /* NODE_EXISTS */
        record(v, true);
        break;
    }
    return decided(v, all_mode(n));
}

bool
filter_eval(const struct node *n, const struct rs_packet *pkt)
{
    switch (n->kind) {
    case NODE_AND:
        for (uint32_t i = 0; i < n->n_kids; i++)
            if (!filter_eval(n->kids[i], pkt))
                return false;
        return true;
    case NODE_OR:
        for (uint32_t i = 0; i < n->n_kids; i++)
            if (filter_eval(n->kids[i], pkt))
                return true;
        return false;
    case NODE_NOT:
        return !filter_eval(n->kids[0], pkt);
    case NODE_IN:
        if (all_mode(n)) {
            /* Wireshark 4.0 reads "all a in {x, y..z}" as: every value of a is x, or
             * every value lies in y..z: one member must take them all */
            for (uint32_t i = 0; i < n->n_set; i++) {
                struct verdict v = {.n = n, .pkt = pkt, .only = i + 1};
                walk(pkt, n->a, test_left, &v);
                if (v.seen && !v.any_false)
                    return true;
            }
            return false;
        }
        /* fall through */
    default: {
        struct verdict v = {.n = n, .pkt = pkt};
        walk(pkt, n->a, test_left, &v);
        if (!v.seen)
            return false;       /* a test on an absent field is false */
        return all_mode(n) ? !v.any_false : v.any_true;
    }
    }
}

bool
rs_filter_match(const struct rs_filter *f, const struct rs_packet *pkt)
{
    return filter_eval(f->root, pkt);
}
