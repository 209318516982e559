/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_mr.c - memory regions: registration, and the checks every remote and
 * local access goes through.
 *
 * This file is the memory-safety boundary of the transport. Nothing else
 * turns a peer's (R_Key, VA, length) into a host pointer: rc_mr_remote()
 * does, and only when the key is valid, the region grants the access and
 * the whole range lies inside it, computed without overflow whatever the
 * packet says.
 */
#include <string.h>

#include "rc_int.h"

/* The lkey of slot i; rkeys are separate so that peers cannot guess lkeys. */
static uint32_t
slot_lkey(unsigned i)
{
    return 0x10000u + i;
}

static struct rc_mr *
mr_by_lkey(struct rs_rc_ctx *ctx, uint32_t lkey)
{
    uint32_t i = lkey - 0x10000u;

    if (i >= RC_MAX_MR || !ctx->mr[i].used)
        return NULL;
    return &ctx->mr[i];
}

/* A linear scan: a context holds a handful of regions, and the last hit is
 * tried first, which is the one a stream of packets keeps naming. */
static struct rc_mr *
mr_by_rkey(struct rs_rc_ctx *ctx, uint32_t rkey)
{
    unsigned last = ctx->mr_last;

    if (ctx->mr[last].used && ctx->mr[last].rkey_valid && ctx->mr[last].pub.rkey == rkey)
        return &ctx->mr[last];
    for (unsigned i = 0; i < RC_MAX_MR; i++) {
        struct rc_mr *m = &ctx->mr[i];
        if (m->used && m->rkey_valid && m->pub.rkey == rkey) {
            ctx->mr_last = i;
            return m;
        }
    }
    return NULL;
}

/* True when [va, va+len) lies inside m; no sum can overflow. */
static bool
mr_covers(const struct rc_mr *m, uint64_t va, uint64_t len)
{
    if (va < m->pub.va)
        return false;
    uint64_t off = va - m->pub.va;
    return off <= m->pub.length && len <= m->pub.length - off;
}

int
rs_rc_mr_reg(struct rs_rc_ctx *ctx, void *addr, uint64_t length, uint64_t va, uint32_t rkey,
             unsigned access, struct rs_rc_mr *out, char *err)
{
    if (addr == NULL && length > 0)
        return rs_error(err, RS_EINVAL, "memory region: no buffer");
    if (va == 0)
        va = (uint64_t)(uintptr_t)addr;
    if (length > UINT64_MAX - va)
        return rs_error(err, RS_EINVAL, "memory region: VA 0x%llx + length wraps",
                        (unsigned long long)va);
    unsigned slot = RC_MAX_MR;
    for (unsigned i = 0; i < RC_MAX_MR; i++) {
        if (!ctx->mr[i].used && slot == RC_MAX_MR)
            slot = i;
        if (rkey != 0 && ctx->mr[i].used && ctx->mr[i].pub.rkey == rkey)
            return rs_error(err, RS_EINVAL, "memory region: R_Key 0x%x is in use", rkey);
    }
    if (slot == RC_MAX_MR)
        return rs_error(err, RS_ENOMEM, "memory region: all %d slots in use", RC_MAX_MR);
    if (rkey == 0) {
        /* Keys look like a NIC's: an index and a varying low byte. */
        do {
            rkey = ((slot + 1) << 8 | (ctx->next_rkey++ & 0xff)) ^ 0x5a000000u;
        } while (mr_by_rkey(ctx, rkey) != NULL);
    }
    struct rc_mr *m = &ctx->mr[slot];
    memset(m, 0, sizeof(*m));
    m->used = true;
    m->rkey_valid = true;
    m->addr = addr;
    m->pub.lkey = slot_lkey(slot);
    m->pub.rkey = rkey;
    m->pub.va = va;
    m->pub.length = length;
    m->pub.access = access;
    if (out != NULL)
        *out = m->pub;
    return 0;
}

int
rs_rc_mr_dereg(struct rs_rc_ctx *ctx, uint32_t lkey)
{
    struct rc_mr *m = mr_by_lkey(ctx, lkey);

    if (m == NULL)
        return RS_ENOENT;
    memset(m, 0, sizeof(*m));
    return 0;
}

uint8_t *
rc_mr_remote(struct rs_rc_ctx *ctx, uint32_t rkey, uint64_t va, uint64_t len, unsigned access,
             enum rc_mr_fail *why)
{
    struct rc_mr *m = mr_by_rkey(ctx, rkey);

    if (m == NULL) {
        *why = RC_MR_NO_KEY;
        return NULL;
    }
    if ((m->pub.access & access) != access) {
        *why = RC_MR_ACCESS;
        return NULL;
    }
    if (!mr_covers(m, va, len)) {
        *why = RC_MR_BOUNDS;
        return NULL;
    }
    *why = RC_MR_OK;
    return m->addr + (va - m->pub.va);
}

uint8_t *
rc_mr_local(struct rs_rc_ctx *ctx, uint32_t lkey, uint64_t addr, uint64_t len, unsigned access)
{
    struct rc_mr *m = mr_by_lkey(ctx, lkey);

    if (m == NULL || (m->pub.access & access) != access || !mr_covers(m, addr, len))
        return NULL;
    return m->addr + (addr - m->pub.va);
}

bool
rc_mr_invalidate(struct rs_rc_ctx *ctx, uint32_t rkey, bool check_only)
{
    struct rc_mr *m = mr_by_rkey(ctx, rkey);

    if (m == NULL || !(m->pub.access & RS_RC_ACCESS_REMOTE_INVALIDATE))
        return false;
    if (!check_only)
        m->rkey_valid = false;
    return true;
}
