/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_eval.c - running a compiled display filter against one packet.
 * Each test walks the values of its field (every occurrence, every alias)
 * through rs_field_foreach, stopping at the first that decides it.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "filter/filter_int.h"

struct test {
    const struct node *n;
    bool any;       /* some value satisfied the test */
    bool all;       /* every value satisfied it (for !=) */
    unsigned seen;
};

static int
cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int
cmp_bytes(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
    uint32_t n = alen < blen ? alen : blen;
    int c = memcmp(a, b, n);

    return c != 0 ? (c < 0 ? -1 : 1) : cmp_u64(alen, blen);
}

/* Equality of an address under a prefix: only the first prefix bits count. */
static bool
prefix_equal(const uint8_t *v, const struct literal *lit)
{
    uint32_t full = lit->prefix / 8, rest = lit->prefix % 8;

    if (memcmp(v, lit->bytes, full) != 0)
        return false;
    if (rest == 0)
        return true;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return (v[full] & mask) == (lit->bytes[full] & mask);
}

/* Three-way comparison of value v with literal lit; *eq_only is set when
 * only equality is meaningful (addresses under a prefix). */
static int
compare(const struct rs_value *v, const struct literal *lit, bool *equal)
{
    switch (lit->kind) {
    case LIT_UINT:
        *equal = v->v.u == lit->u;
        if (v->type == RS_FT_INT32)     /* signed: flip the sign bit to compare */
            return cmp_u64(v->v.u ^ (1ull << 63), lit->u ^ (1ull << 63));
        return cmp_u64(v->v.u, lit->u);
    case LIT_TIME: {
        int c = rs_time_cmp(v->v.t, lit->t);
        *equal = c == 0;
        return c;
    }
    case LIT_DOUBLE:
        *equal = v->v.d == lit->d;
        return v->v.d < lit->d ? -1 : v->v.d > lit->d;
    case LIT_STRING: {
        /* A quoted string against bytes: a bytes field, or a slice of a protocol's. */
        const uint8_t *s = v->v.bytes.ptr;
        uint32_t len = v->v.bytes.len;
        if (v->type == RS_FT_STRING) {
            s = (const uint8_t *)v->v.str;
            len = (uint32_t)strlen(v->v.str);
        }
        int c = cmp_bytes(s, len, lit->bytes, lit->len);
        *equal = c == 0;
        return c;
    }
    default: {
        int c = cmp_bytes(v->v.bytes.ptr, v->v.bytes.len, lit->bytes, lit->len);
        bool addr = v->type == RS_FT_IPV4 || v->type == RS_FT_IPV6;
        *equal = addr && v->v.bytes.len == lit->len ? prefix_equal(v->v.bytes.ptr, lit) : c == 0;
        return c;
    }
    }
}

static bool
compare_op(enum cmp_op op, int c, bool equal)
{
    switch (op) {
    case CMP_EQ:
        return equal;
    case CMP_NE:
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

static bool
contains(const struct rs_value *v, const struct literal *lit)
{
    const uint8_t *s;
    size_t len;

    if (v->type == RS_FT_STRING) {
        s = (const uint8_t *)v->v.str;
        len = strlen(v->v.str);
    } else if (v->type == RS_FT_BYTES || v->type == RS_FT_ETHER || v->type == RS_FT_IPV4 ||
               v->type == RS_FT_IPV6) {
        s = v->v.bytes.ptr;
        len = v->v.bytes.len;
    } else {
        return false;
    }
    return lit->len <= len && memmem(s, len, lit->bytes, lit->len) != NULL;
}

/* The bytes a value holds, for contains, matches and slices. */
static bool
value_bytes(const struct rs_value *v, const uint8_t **s, size_t *len)
{
    if (v->type == RS_FT_STRING) {
        *s = (const uint8_t *)v->v.str;
        *len = strlen(v->v.str);
    } else if (v->type == RS_FT_BYTES || v->type == RS_FT_ETHER || v->type == RS_FT_IPV4 ||
               v->type == RS_FT_IPV6) {
        *s = v->v.bytes.ptr;
        *len = v->v.bytes.len;
    } else {
        return false;
    }
    return true;
}

/* GLib allocates its match data inside g_regex_match_full(): the one
 * allocation per test a filter makes, and only with `matches`. */
static bool
regex_matches(const struct rs_value *v, const GRegex *re)
{
    const uint8_t *s;
    size_t len;

    if (!value_bytes(v, &s, &len))
        return false;
    return g_regex_match_full(re, (const char *)s, (gssize)len, 0, 0, NULL, NULL);
}

static bool
in_set(const struct rs_value *v, const struct node *n)
{
    for (uint32_t i = 0; i < n->n_set; i++) {
        const struct literal *lit = &n->set[i];
        bool equal;
        int c = compare(v, lit, &equal);
        if (lit->range ? (c >= 0 && v->v.u <= lit->hi) : equal)
            return true;
    }
    return false;
}

static void
test_one(struct test *t, const struct rs_value *v)
{
    bool ok;

    t->seen++;
    switch (t->n->kind) {
    case NODE_COMPARE: {
        bool equal;
        int c = compare(v, t->n->set, &equal);
        ok = compare_op(t->n->op, c, equal);
        break;
    }
    case NODE_CONTAINS:
        ok = contains(v, t->n->set);
        break;
    case NODE_IN:
        ok = in_set(v, t->n);
        break;
    case NODE_BITAND:
        ok = (v->v.u & t->n->set->u) != 0;
        break;
    case NODE_MATCHES:
        ok = regex_matches(v, t->n->re);
        break;
    default:
        ok = true;
        break;
    }
    t->any |= ok;
    t->all &= ok;
}

static void
test_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    (void)f;
    test_one(ctx, v);
}

/* ---- derived operands: slices, functions, protocols as bytes ---- */

/* The bytes of a protocol as Wireshark's protocol item spans them. */
static bool
protocol_bytes(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
               struct rs_value *out)
{
    out->type = RS_FT_BYTES;
    if (strcmp(f->abbrev, "frame") == 0) {
        uint32_t erf = rs_packet_has(pkt, RS_LAYER_ERF) ? pkt->span[RS_LAYER_ERF].len : 0;
        out->v.bytes.ptr = pkt->frame->data + erf;
        out->v.bytes.len = rs_packet_cap_len(pkt);
        return true;
    }
    if (strcmp(f->abbrev, "infiniband") == 0) {
        /* LRH or GRH (native IB, RoCEv1) or BTH, through the ICRC and VCRC */
        uint32_t lo = UINT32_MAX, hi = 0;
        for (int l = RS_LAYER_LRH; l <= RS_LAYER_VCRC; l++) {
            if (!rs_packet_has(pkt, (enum rs_layer)l))
                continue;
            const struct rs_span *sp = &pkt->span[l];
            lo = sp->off < lo ? sp->off : lo;
            hi = sp->off + sp->len > hi ? sp->off + sp->len : hi;
        }
        if (lo >= hi)
            return false;
        out->v.bytes.ptr = pkt->frame->data + lo;
        out->v.bytes.len = hi - lo;
        return true;
    }
    if (f->get == NULL) {           /* the generic getter gave the layer's span */
        out->v.bytes = v->v.bytes;
        return true;
    }
    if (f->layer < RS_LAYER_COUNT && rs_packet_has(pkt, (enum rs_layer)f->layer)) {
        out->v.bytes.ptr = rs_packet_at(pkt, (enum rs_layer)f->layer);
        out->v.bytes.len = pkt->span[f->layer].len;
        return true;
    }
    return false;
}

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
        return 2;
    case RS_FT_UINT24:
        return 3;
    case RS_FT_UINT32:
    case RS_FT_FRAMENUM:
        return 4;
    default:
        return 8;
    }
}

typedef void (*derived_fn)(void *ctx, const struct rs_value *v);

struct walk {
    const struct operand *op;
    const struct rs_packet *pkt;
    derived_fn fn;
    void *ctx;
};

/* Joins the ranges of a slice of s into buf (FILTER_CASE_MAX bytes), or
 * points into s when there is one range; false when some range lies
 * outside the value (Wireshark: no value). */
static bool
slice_value(const struct operand *op, const uint8_t *s, size_t len, uint8_t *buf,
            struct rs_value *out)
{
    uint32_t total = 0;

    for (uint8_t k = 0; k < op->n_ranges; k++) {
        const struct slice_range *r = &op->ranges[k];
        int64_t start = r->start < 0 ? (int64_t)len + r->start : r->start;
        int64_t n = r->len != 0 ? (int64_t)r->len : (int64_t)len - start;
        if (start < 0 || n <= 0 || start + n > (int64_t)len)
            return false;
        if (op->n_ranges == 1) {
            out->v.bytes.ptr = s + start;
            total = (uint32_t)n;
            break;
        }
        if (total + n > FILTER_CASE_MAX)
            n = FILTER_CASE_MAX - total;
        memcpy(buf + total, s + start, (size_t)n);
        total += (uint32_t)n;
        out->v.bytes.ptr = buf;
    }
    out->type = RS_FT_BYTES;
    out->v.bytes.len = total;
    return true;
}

/* string(): numbers in decimal whatever their base, addresses as -T
 * fields prints them, text as it is. */
static void
string_of(const struct rs_field *f, struct rs_value *d, char *buf, size_t size)
{
    if (d->type == RS_FT_INT32)
        snprintf(buf, size, "%lld", (long long)(int64_t)d->v.u);
    else if (d->type >= RS_FT_UINT8 && d->type <= RS_FT_FRAMENUM)
        snprintf(buf, size, "%llu", (unsigned long long)d->v.u);
    else if (d->type != RS_FT_STRING)
        rs_value_format(f, d, buf, size);
    else
        return;
    d->type = RS_FT_STRING;
    d->v.str = buf;
}

static void
walk_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    struct walk *w = ctx;
    const struct operand *op = w->op;
    struct rs_value d = *v;
    char buf[FILTER_CASE_MAX];

    if (v->type == RS_FT_PROTOCOL && !protocol_bytes(w->pkt, f, v, &d))
        return;
    switch (op->fn) {
    case FN_LEN: {
        const uint8_t *s;
        size_t len;
        uint64_t n = value_bytes(&d, &s, &len) ? len : width_of(f);
        d.type = RS_FT_UINT32;
        d.v.u = n;
        break;
    }
    case FN_LOWER:
    case FN_UPPER: {
        size_t i = 0;
        for (; d.v.str[i] != '\0' && i + 1 < sizeof(buf); i++) {
            int c = (unsigned char)d.v.str[i];
            buf[i] = (char)(op->fn == FN_LOWER ? tolower(c) : toupper(c));
        }
        buf[i] = '\0';
        d.v.str = buf;
        break;
    }
    case FN_STRING:
        string_of(f, &d, buf, sizeof(buf));
        break;
    case FN_ABS:
        /* integers have no sign here; a time or a double may */
        if (d.type == RS_FT_DOUBLE && d.v.d < 0)
            d.v.d = -d.v.d;
        else if (d.type == RS_FT_RELTIME && rs_time_cmp(d.v.t, (struct rs_time){0, 0}) < 0)
            d.v.t = rs_time_sub((struct rs_time){0, 0}, d.v.t);
        break;
    default:
        break;
    }
    uint8_t joined[FILTER_CASE_MAX];
    if (op->sliced) {
        const uint8_t *s;
        size_t len;
        if (!value_bytes(&d, &s, &len) || !slice_value(op, s, len, joined, &d))
            return;
    }
    w->fn(w->ctx, &d);
}

static void
count_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    (void)ctx, (void)f, (void)v;
}

static int compare_values(const struct rs_value *a, const struct rs_value *b, bool *equal);

/* max() and min(): the value kept so far, its address bytes copied (a
 * getter may hand them from storage the next value reuses). */
struct extreme {
    bool max, any;
    struct rs_value best;
    uint8_t bytes[16];
};

static void
extreme_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    struct extreme *x = ctx;
    bool equal = false;

    (void)f;
    /* Kept only when strictly beyond the best so far: the first of equals wins. */
    int c = x->any ? compare_values(v, &x->best, &equal) : 0;
    if (x->any && (x->max ? c <= 0 : c >= 0))
        return;
    x->best = *v;
    x->any = true;
    if (v->type == RS_FT_ETHER || v->type == RS_FT_IPV4 || v->type == RS_FT_IPV6) {
        size_t n = v->v.bytes.len < sizeof(x->bytes) ? v->v.bytes.len : sizeof(x->bytes);
        memcpy(x->bytes, v->v.bytes.ptr, n);
        x->best.v.bytes.ptr = x->bytes;
        x->best.v.bytes.len = (uint32_t)n;
    }
}

/* Calls fn for every value operand op yields in pkt. */
static void
operand_foreach(const struct rs_packet *pkt, const struct operand *op, derived_fn fn, void *ctx)
{
    if (op->fn == FN_MAX || op->fn == FN_MIN) {
        struct extreme x = {.max = op->fn == FN_MAX};
        rs_field_foreach(pkt, op->field, extreme_value, &x);
        for (unsigned i = 0; i < op->n_more; i++)
            rs_field_foreach(pkt, op->more[i], extreme_value, &x);
        if (x.any)      /* of no value at all, no value (tshark's too) */
            fn(ctx, &x.best);
        return;
    }
    if (op->fn == FN_COUNT) {
        unsigned n = rs_field_foreach(pkt, op->field, count_value, NULL);
        if (n != 0) {       /* count() of an absent field is no value, as in tshark */
            struct rs_value v = {.type = RS_FT_UINT32, .v.u = n};
            fn(ctx, &v);
        }
        return;
    }
    struct walk w = {op, pkt, fn, ctx};
    rs_field_foreach(pkt, op->field, walk_value, &w);
}

static void
test_derived(void *ctx, const struct rs_value *v)
{
    test_one(ctx, v);
}

/* Comparison of two values read from the packet; the parser made sure
 * their types compare. */
static int
compare_values(const struct rs_value *a, const struct rs_value *b, bool *equal)
{
    const uint8_t *as, *bs;
    size_t alen, blen;

    if (value_bytes(a, &as, &alen) && value_bytes(b, &bs, &blen)) {
        int c = cmp_bytes(as, (uint32_t)alen, bs, (uint32_t)blen);
        *equal = c == 0;
        return c;
    }
    if (a->type == RS_FT_RELTIME || a->type == RS_FT_ABSTIME) {
        int c = rs_time_cmp(a->v.t, b->v.t);
        *equal = c == 0;
        return c;
    }
    if (a->type == RS_FT_DOUBLE) {
        *equal = a->v.d == b->v.d;
        return a->v.d < b->v.d ? -1 : a->v.d > b->v.d;
    }
    *equal = a->v.u == b->v.u;
    return cmp_u64(a->v.u, b->v.u);
}

struct pair {
    const struct node *n;
    const struct rs_packet *pkt;
    const struct rs_value *a;
    bool any_ok;        /* some pair satisfied the operator (== for !=) */
    bool any_b;
};

static void
pair_b(void *ctx, const struct rs_value *b)
{
    struct pair *p = ctx;
    bool equal;

    p->any_b = true;
    if (p->n->field_contains) {
        const uint8_t *as, *bs;
        size_t alen, blen;
        if (value_bytes(p->a, &as, &alen) && value_bytes(b, &bs, &blen) && blen <= alen &&
            memmem(as, alen, bs, blen) != NULL)
            p->any_ok = true;
        return;
    }
    int c = compare_values(p->a, b, &equal);
    /* != holds when no pair is equal: count the equal pairs for it */
    if (compare_op(p->n->op == CMP_NE ? CMP_EQ : p->n->op, c, equal))
        p->any_ok = true;
}

static void
pair_a(void *ctx, const struct rs_value *a)
{
    struct pair *p = ctx;

    if (p->any_ok)
        return;
    p->a = a;
    operand_foreach(p->pkt, &p->n->b, pair_b, p);
}

/* operand op operand: Wireshark's "any" over every pair of values; !=
 * holds when no pair is equal. A side with no value makes it false. */
static bool
eval_fields(const struct node *n, const struct rs_packet *pkt)
{
    struct pair p = {n, pkt, NULL, false, false};

    operand_foreach(pkt, &n->a, pair_a, &p);
    if (!p.any_b)
        return false;
    return n->op == CMP_NE && !n->field_contains ? !p.any_ok : p.any_ok;
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
    case NODE_FIELDS:
        return eval_fields(n, pkt);
    default: {
        struct test t = {n, false, true, 0};
        if (n->a.derived)
            operand_foreach(pkt, &n->a, test_derived, &t);
        else
            rs_field_foreach(pkt, n->field, test_value, &t);
        if (t.seen == 0)
            return false;
        return n->kind == NODE_COMPARE && n->op == CMP_NE ? t.all : t.any;
    }
    }
}

bool
rs_filter_match(const struct rs_filter *f, const struct rs_packet *pkt)
{
    return filter_eval(f->root, pkt);
}
