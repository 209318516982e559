/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_eval.c - running a compiled display filter against one packet.
 * Each test walks the values of its field (every occurrence, every alias)
 * through rs_field_foreach, stopping at the first that decides it.
 */
#include <string.h>

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
        const uint8_t *s = (const uint8_t *)v->v.str;
        uint32_t len = (uint32_t)strlen(v->v.str);
        if (v->type == RS_FT_BYTES) {
            s = v->v.bytes.ptr;
            len = v->v.bytes.len;
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
test_value(void *ctx, const struct rs_field *f, const struct rs_value *v)
{
    struct test *t = ctx;
    bool ok;

    (void)f;
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
    default:
        ok = true;
        break;
    }
    t->any |= ok;
    t->all &= ok;
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
    default: {
        struct test t = {n, false, true, 0};
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
