/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_value.c - what a display filter does with one value or a pair: compare
 * them, compute with them, and read a protocol's bytes, with Wireshark 4.0's rules.
 *
 * Integers are unsigned or signed, 32 bits wide (fields of up to 32 bits) or 64. An
 * operation takes the kind of its left operand and reads the right one's bits as
 * that kind, as Wireshark's value union does. A result that does not fit is no value
 * (tshark drops it), except that an unsigned subtraction that goes below zero gives a
 * signed result, and so does a minus. A comparison reads the right side as the left
 * side's kind too, and cannot be made when a negative number meets an unsigned one:
 * such a pair satisfies no "any" test and falsifies no "all" test (ip.ttl == -1 holds
 * for no frame, ip.ttl != -1 for every one).
 */
#include <string.h>

#include <netinet/in.h>

#include <roceshark/dissectors/wire.h>

#include "filter/filter_int.h"

static bool
is_int(uint8_t t)
{
    int cl = filter_arith_class(t);

    return cl == 1 || cl == 2 || t == RS_FT_BOOLEAN;
}

static bool
is_signed(uint8_t t)
{
    return t == RS_FT_INT16 || t == RS_FT_INT32 || t == FV_INT64;
}

static bool
is_wide(uint8_t t)
{
    return t == RS_FT_UINT64 || t == FV_INT64;
}

static int
cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int
cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n > 0 ? memcmp(a, b, n) : 0;

    return c != 0 ? (c < 0 ? -1 : 1) : cmp_u64(alen, blen);
}

bool
filter_value_bytes(const struct fval *v, bool whole, const uint8_t **s, size_t *len)
{
    switch (v->v.type) {
    case RS_FT_STRING:
        *s = (const uint8_t *)v->v.v.str;
        *len = strlen(v->v.v.str);
        return true;
    case FV_TEXT:
    case RS_FT_BYTES:
    case RS_FT_ETHER:
    case RS_FT_IPV4:
    case RS_FT_IPV6:
    case RS_FT_PROTOCOL:
        *s = v->v.v.bytes.ptr;
        *len = whole && v->v.type == RS_FT_PROTOCOL ? v->extent : v->v.v.bytes.len;
        return true;
    default:
        return false;
    }
}

/* Equality of an address under a prefix: only the first prefix bits count. */
static bool
prefix_equal(const uint8_t *v, const uint8_t *lit, uint32_t prefix)
{
    uint32_t full = prefix / 8, rest = prefix % 8;

    if (memcmp(v, lit, full) != 0)
        return false;
    if (rest == 0)
        return true;
    uint8_t mask = (uint8_t)(0xff << (8 - rest));
    return (v[full] & mask) == (lit[full] & mask);
}

bool
filter_compare(const struct fval *a, const struct fval *b, const struct literal *blit,
               int *cmp, bool *equal)
{
    const uint8_t *as, *bs;
    size_t alen, blen;

    if (is_int(a->v.type) && is_int(b->v.type)) {
        uint64_t x = a->v.v.u, y = b->v.v.u;
        if (a->v.type == RS_FT_BOOLEAN || b->v.type == RS_FT_BOOLEAN)
            x = x != 0, y = y != 0;
        if (!is_signed(a->v.type)) {
            if (is_signed(b->v.type) && (int64_t)y < 0)
                return false;
            *cmp = cmp_u64(x, y);
        } else {
            if (!is_signed(b->v.type) && y > INT64_MAX)
                return false;
            *cmp = cmp_u64(x ^ (1ull << 63), y ^ (1ull << 63));
        }
    } else if (a->v.type == RS_FT_DOUBLE && b->v.type == RS_FT_DOUBLE) {
        *cmp = a->v.v.d < b->v.v.d ? -1 : a->v.v.d > b->v.v.d;
        if (a->v.v.d != a->v.v.d || b->v.v.d != b->v.v.d)
            return false;
    } else if ((a->v.type == RS_FT_RELTIME || a->v.type == RS_FT_ABSTIME) &&
               (b->v.type == RS_FT_RELTIME || b->v.type == RS_FT_ABSTIME)) {
        *cmp = rs_time_cmp(a->v.v.t, b->v.v.t);
    } else if (filter_value_bytes(a, false, &as, &alen) &&
               filter_value_bytes(b, false, &bs, &blen)) {
        *cmp = cmp_bytes(as, alen, bs, blen);
        bool addr = a->v.type == RS_FT_IPV4 || a->v.type == RS_FT_IPV6;
        if (addr && blit != NULL && blit->prefix != 0 && alen == blen && alen * 8 >= blit->prefix) {
            *equal = prefix_equal(as, bs, blit->prefix);
            return true;
        }
    } else {
        return false;
    }
    *equal = *cmp == 0;
    return true;
}

/* Integer arithmetic: see the top of the file. */
static bool
int_arith(enum arith_op op, const struct fval *a, const struct fval *b, struct fval *out)
{
    bool wide = is_wide(a->v.type);
    uint64_t max = wide ? UINT64_MAX : UINT32_MAX;

    if (!is_signed(a->v.type)) {
        uint64_t x = a->v.v.u, y = b->v.v.u & max, r;
        out->v.type = wide ? RS_FT_UINT64 : RS_FT_UINT32;
        switch (op) {
        case ARITH_ADD:
            if (__builtin_add_overflow(x, y, &r) || r > max)
                return false;
            break;
        case ARITH_SUB:
            if (y <= x) {
                r = x - y;
                break;
            }
            /* below zero: a signed result, when both sides are signed numbers too */
            if (x > max >> 1 || y > max >> 1)
                return false;
            out->v.type = wide ? FV_INT64 : RS_FT_INT32;
            r = (uint64_t)((int64_t)x - (int64_t)y);
            break;
        case ARITH_MUL:
            if (__builtin_mul_overflow(x, y, &r) || r > max)
                return false;
            break;
        case ARITH_DIV:
            if (y == 0)
                return false;
            r = x / y;
            break;
        case ARITH_MOD:
            if (y == 0)
                return false;
            r = x % y;
            break;
        default:
            r = x & y;
            break;
        }
        out->v.v.u = r;
        return true;
    }
    int64_t x = (int64_t)a->v.v.u, y = wide ? (int64_t)b->v.v.u : (int32_t)(uint32_t)b->v.v.u;
    int64_t r, lo = wide ? INT64_MIN : INT32_MIN, hi = wide ? INT64_MAX : INT32_MAX;
    out->v.type = wide ? FV_INT64 : RS_FT_INT32;
    switch (op) {
    case ARITH_ADD:
        if (__builtin_add_overflow(x, y, &r))
            return false;
        break;
    case ARITH_SUB:
        if (__builtin_sub_overflow(x, y, &r))
            return false;
        break;
    case ARITH_MUL:
        if (__builtin_mul_overflow(x, y, &r))
            return false;
        break;
    case ARITH_DIV:
    case ARITH_MOD:
        if (y == 0 || (x == INT64_MIN && y == -1))
            return false;
        r = op == ARITH_DIV ? x / y : x % y;
        break;
    default:
        r = x & y;
        break;
    }
    if (r < lo || r > hi)
        return false;
    out->v.v.u = (uint64_t)r;
    return true;
}

bool
filter_arith(enum arith_op op, const struct fval *a, const struct fval *b, struct fval *out,
             uint8_t *buf)
{
    const uint8_t *as, *bs;
    size_t alen, blen;

    memset(out, 0, sizeof(*out));
    switch (filter_arith_class(a->v.type)) {
    case 1:
    case 2:
        return is_int(b->v.type) && int_arith(op, a, b, out);
    case 3:
        out->v.type = RS_FT_DOUBLE;
        switch (op) {
        case ARITH_ADD:
            out->v.v.d = a->v.v.d + b->v.v.d;
            break;
        case ARITH_SUB:
            out->v.v.d = a->v.v.d - b->v.v.d;
            break;
        case ARITH_MUL:
            out->v.v.d = a->v.v.d * b->v.v.d;
            break;
        case ARITH_DIV:
            out->v.v.d = a->v.v.d / b->v.v.d;
            break;
        default:
            return false;
        }
        return true;
    case 4:
        out->v.type = RS_FT_RELTIME;
        out->v.v.t = op == ARITH_ADD ? rs_time_add(a->v.v.t, b->v.v.t) :
                                       rs_time_sub(a->v.v.t, b->v.v.t);
        return op == ARITH_ADD || op == ARITH_SUB;
    case 5:
        /* bytes & bytes: over the shorter of the two */
        if (op != ARITH_AND || !filter_value_bytes(a, false, &as, &alen) ||
            !filter_value_bytes(b, false, &bs, &blen))
            return false;
        size_t n = alen < blen ? alen : blen;
        n = n < FILTER_VALUE_MAX ? n : FILTER_VALUE_MAX;
        for (size_t i = 0; i < n; i++)
            buf[i] = as[i] & bs[i];
        out->v.type = a->v.type == RS_FT_PROTOCOL || (a->v.type == RS_FT_ETHER && n != 6) ||
                      (a->v.type == RS_FT_IPV4 && n != 4) ? RS_FT_BYTES : a->v.type;
        out->v.v.bytes.ptr = buf;
        out->v.v.bytes.len = (uint32_t)n;
        return true;
    default:
        return false;
    }
}

bool
filter_negate(const struct fval *a, struct fval *out)
{
    bool wide = is_wide(a->v.type);

    *out = *a;
    switch (filter_arith_class(a->v.type)) {
    case 1:
        if (a->v.v.u > (wide ? (uint64_t)INT64_MAX : (uint64_t)INT32_MAX))
            return false;
        out->v.type = wide ? FV_INT64 : RS_FT_INT32;
        out->v.v.u = (uint64_t)-(int64_t)a->v.v.u;
        return true;
    case 2:
        if ((int64_t)a->v.v.u == (wide ? INT64_MIN : INT32_MIN))
            return false;
        out->v.v.u = (uint64_t)-(int64_t)a->v.v.u;
        return true;
    case 3:
        out->v.v.d = -a->v.v.d;
        return true;
    case 4:
        out->v.v.t = rs_time_sub(RS_TIME_ZERO, a->v.v.t);
        return true;
    default:
        return false;
    }
}

bool
filter_nonzero(const struct fval *v)
{
    const uint8_t *s;
    size_t len;

    if (is_int(v->v.type))
        return v->v.v.u != 0;
    if (v->v.type == RS_FT_DOUBLE)
        return v->v.v.d != 0;
    if (v->v.type == RS_FT_RELTIME || v->v.type == RS_FT_ABSTIME)
        return rs_time_cmp(v->v.v.t, RS_TIME_ZERO) != 0;
    if (filter_value_bytes(v, false, &s, &len)) {
        for (size_t i = 0; i < len; i++)
            if (s[i] != 0)
                return true;
        return false;
    }
    return true;
}

/* Where the innermost IP packet of pkt ends, as its header says, within what was
 * captured: the data Wireshark hands to the protocols above IP. */
static uint32_t
ip_end(const struct rs_packet *pkt)
{
    uint32_t cap = pkt->frame->caplen, end = cap;

    if (rs_packet_has(pkt, RS_LAYER_IPV4) && pkt->span[RS_LAYER_IPV4].len >= 4)
        end = pkt->span[RS_LAYER_IPV4].off + rs_load_be16(rs_packet_at(pkt, RS_LAYER_IPV4) + 2);
    else if (rs_packet_has(pkt, RS_LAYER_IPV6) && pkt->span[RS_LAYER_IPV6].len >= 6)
        end = pkt->span[RS_LAYER_IPV6].off + 40 +
              rs_load_be16(rs_packet_at(pkt, RS_LAYER_IPV6) + 4);
    return end < cap ? end : cap;
}

/* The bytes handed to the protocol of layer l, from its start: to the end of the IP
 * packet for IP and what rides on it, to the end of the frame for the link layers. */
static uint32_t
layer_extent(const struct rs_packet *pkt, int l)
{
    const struct rs_span *sp = &pkt->span[l];
    uint32_t end;

    switch (l) {
    case RS_LAYER_IPV4:
    case RS_LAYER_IPV6:
    case RS_LAYER_UDP:
    case RS_LAYER_TCP:
    case RS_LAYER_ICMP:
    case RS_LAYER_ICMPV6:
        end = ip_end(pkt);
        break;
    case RS_LAYER_ETH:
    case RS_LAYER_VLAN:
    case RS_LAYER_VLAN2:
    case RS_LAYER_SLL:
    case RS_LAYER_ARP:
    case RS_LAYER_IPOIB:
        end = pkt->frame->caplen;
        break;
    default:
        end = sp->off + sp->len;
        break;
    }
    return end > sp->off + sp->len ? end - sp->off : sp->len;
}

bool
filter_protocol_bytes(const struct rs_packet *pkt, const struct rs_field *f,
                      const struct rs_value *v, struct fval *out)
{
    out->v.type = RS_FT_PROTOCOL;
    if (strcmp(f->abbrev, "frame") == 0) {
        uint32_t erf = rs_packet_has(pkt, RS_LAYER_ERF) ? pkt->span[RS_LAYER_ERF].len : 0;
        out->v.v.bytes.ptr = pkt->frame->data + erf;
        out->v.v.bytes.len = rs_packet_cap_len(pkt);
        out->extent = out->v.v.bytes.len;
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
        out->v.v.bytes.ptr = pkt->frame->data + lo;
        out->v.v.bytes.len = hi - lo;
        out->extent = hi - lo;
        return true;
    }
    bool layer = f->layer < RS_LAYER_COUNT && rs_packet_has(pkt, (enum rs_layer)f->layer);
    if (f->get == NULL) {           /* the generic getter gave the layer's span */
        out->v.v.bytes = v->v.bytes;
    } else if (layer) {
        out->v.v.bytes.ptr = rs_packet_at(pkt, (enum rs_layer)f->layer);
        out->v.v.bytes.len = pkt->span[f->layer].len;
    } else {
        return false;
    }
    out->extent = out->v.v.bytes.len;
    if (layer) {
        size_t start = (size_t)(out->v.v.bytes.ptr - pkt->frame->data);
        size_t end = pkt->span[f->layer].off + layer_extent(pkt, f->layer);
        if (end > start + out->extent)
            out->extent = (uint32_t)(end - start);
    }
    return true;
}
