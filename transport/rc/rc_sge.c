/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_sge.c - the local data of work requests: scatter/gather lists and inline copies.
 *
 * Every local byte a request reads or writes goes through rc_data_read() or
 * rc_data_write(), which look each element up in its region (rc_mr_local) at that
 * moment. Resolving a host pointer once, when the request is posted, would be faster
 * by a lookup per packet, but a region deregistered while the request is in flight
 * would leave that pointer reaching freed memory: a READ response landing in it, a
 * retransmitted WRITE sending it. A lookup that fails fails the request instead, as a
 * NIC's protection check does (LOC_PROT_ERR).
 */
#include <string.h>

#include "rc_int.h"

/* The elements a request names: its list, or its one sge (none when that is empty). */
static const struct rs_rc_sge *
elements(const struct rs_rc_sge *one, const struct rs_rc_sge *list, uint32_t *n)
{
    if (*n > 0)
        return list;
    *n = one->length > 0 ? 1 : 0;
    return one;
}

int
rc_data_set(struct rs_rc_ctx *ctx, struct rc_data *d, struct rs_rc_sge *sg, uint32_t max,
            const struct rs_rc_sge *one, const struct rs_rc_sge *list, uint32_t n,
            unsigned access, bool check, char *err)
{
    const struct rs_rc_sge *in = elements(one, list, &n);
    uint64_t total = 0;

    if (n > max)
        return rs_error(err, RS_EINVAL, "work request: %u scatter/gather elements, at most %u",
                        n, max);
    if (n > 0 && in == NULL)
        return rs_error(err, RS_EINVAL, "work request: no scatter/gather list");
    for (uint32_t i = 0; i < n; i++) {
        total += in[i].length;
        if (check && in[i].length > 0 &&
            rc_mr_local(ctx, in[i].lkey, in[i].addr, in[i].length, access) == NULL)
            return rs_error(err, RS_EINVAL, "work request: buffer 0x%llx+%u is outside "
                            "region 0x%x or lacks its access",
                            (unsigned long long)in[i].addr, in[i].length, in[i].lkey);
    }
    if (total > RC_MAX_DMA_LEN)
        return rs_error(err, RS_EINVAL, "work request: %llu bytes is too long",
                        (unsigned long long)total);
    /* Copied only once all is checked: a request refused leaves the slot as it was. */
    if (n > 0)
        memcpy(sg, in, n * sizeof(*sg));
    d->sg = sg;
    d->nsge = n;
    d->inline_data = NULL;
    d->length = total;
    return 0;
}

int
rc_data_set_inline(struct rc_data *d, uint8_t *buf, uint32_t max, const struct rs_rc_sge *one,
                   const struct rs_rc_sge *list, uint32_t n, char *err)
{
    const struct rs_rc_sge *in = elements(one, list, &n);
    uint64_t total = 0;

    if (n > 0 && in == NULL)
        return rs_error(err, RS_EINVAL, "work request: no scatter/gather list");
    for (uint32_t i = 0; i < n; i++)
        total += in[i].length;
    if (total > max)
        return rs_error(err, RS_EINVAL, "work request: %llu bytes of inline data, at most %u",
                        (unsigned long long)total, max);
    uint64_t off = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (in[i].length > 0)
            memcpy(buf + off, (const void *)(uintptr_t)in[i].addr, in[i].length);
        off += in[i].length;
    }
    d->sg = NULL;
    d->nsge = 0;
    d->inline_data = buf;
    d->length = total;
    return 0;
}

/* Walks the elements that hold [off, off+len): calls fn on each piece with its host
 * address; false when an element is no longer in its region with access. */
static bool
walk(struct rs_rc_ctx *ctx, const struct rc_data *d, uint64_t off, uint32_t len,
     unsigned access, bool (*fn)(void *arg, uint8_t *host, uint32_t n), void *arg)
{
    for (uint32_t i = 0; i < d->nsge && len > 0; i++) {
        const struct rs_rc_sge *e = &d->sg[i];
        if (off >= e->length) {
            off -= e->length;
            continue;
        }
        uint32_t n = e->length - off < len ? (uint32_t)(e->length - off) : len;
        uint8_t *host = rc_mr_local(ctx, e->lkey, e->addr + off, n, access);
        if (host == NULL || !fn(arg, host, n))
            return false;
        len -= n;
        off = 0;
    }
    return len == 0;
}

struct copy {
    uint8_t *out;
    const uint8_t *in;
};

static bool
copy_out(void *arg, uint8_t *host, uint32_t n)
{
    struct copy *c = arg;

    memcpy(c->out, host, n);
    c->out += n;
    return true;
}

static bool
copy_in(void *arg, uint8_t *host, uint32_t n)
{
    struct copy *c = arg;

    memcpy(host, c->in, n);
    c->in += n;
    return true;
}

const uint8_t *
rc_data_read(struct rs_rc_ctx *ctx, const struct rc_data *d, uint64_t off, uint32_t len,
             uint8_t *scratch)
{
    if (len == 0 || off > d->length || len > d->length - off)
        return NULL;
    if (d->inline_data != NULL)
        return d->inline_data + off;
    /* One element holds it all (the common case): no copy. */
    uint64_t at = off;
    for (uint32_t i = 0; i < d->nsge; i++) {
        const struct rs_rc_sge *e = &d->sg[i];
        if (at >= e->length) {
            at -= e->length;
            continue;
        }
        if (e->length - at >= len)
            return rc_mr_local(ctx, e->lkey, e->addr + at, len, 0);
        break;
    }
    struct copy c = {scratch, NULL};
    return walk(ctx, d, off, len, 0, copy_out, &c) ? scratch : NULL;
}

bool
rc_data_write(struct rs_rc_ctx *ctx, const struct rc_data *d, uint64_t off, const uint8_t *src,
              uint32_t len)
{
    struct copy c = {NULL, src};

    if (off > d->length || len > d->length - off)
        return false;
    return walk(ctx, d, off, len, RS_RC_ACCESS_LOCAL_WRITE, copy_in, &c);
}
