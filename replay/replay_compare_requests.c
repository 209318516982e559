/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_compare_requests.c - a live requester's packets against the
 * captured requester's, when it was served the capture's responses: the
 * same opcodes and PSNs in the same order, retransmissions included,
 * because it met the same NAKs and RNR NAKs.
 * A packet missing or extra is one divergence (replay_align.c).
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/replay/replay.h>

#include "replay_int.h"

#define LOOK_AHEAD 64

struct walk {
    const struct rs_replay_frame *exp, *got;
    uint32_t offset;
    struct rs_replay_result *res;
};

static void
describe(const struct rs_replay_frame *f, uint32_t offset, char *buf, size_t size)
{
    const struct rs_ib_opcode *op;

    if (f == NULL) {
        snprintf(buf, size, "none");
        return;
    }
    op = rs_ib_opcode_info(f->opcode);
    snprintf(buf, size, "PSN %u %s", (f->psn - offset) & 0xffffff,
             op->name != NULL ? op->name : "reserved");
}

static bool
match(void *ctx, size_t a, size_t b)
{
    const struct walk *w = ctx;

    return w->exp[a].opcode == w->got[b].opcode &&
           w->exp[a].psn == ((w->got[b].psn - w->offset) & 0xffffff);
}

static void
pair(void *ctx, size_t a, size_t b)
{
    struct walk *w = ctx;
    struct rs_replay_tally *t = &w->res->by_rule[RS_REPLAY_RULE_REQUEST];
    const struct rs_replay_frame *e = a != REPLAY_NONE ? &w->exp[a] : NULL;
    const struct rs_replay_frame *g = b != REPLAY_NONE ? &w->got[b] : NULL;
    struct rs_replay_divergence d;

    t->compared++;
    if (e != NULL && g != NULL && match(ctx, a, b)) {
        t->same++;
        return;
    }
    memset(&d, 0, sizeof(d));
    d.capture_frame = e != NULL ? e->number : 0;
    d.replay_frame = g != NULL ? g->number : 0;
    d.rule = RS_REPLAY_RULE_REQUEST;
    snprintf(d.field, sizeof(d.field), "infiniband.bth");
    describe(e, 0, d.expected, sizeof(d.expected));
    describe(g, w->offset, d.got, sizeof(d.got));
    g_array_append_val(w->res->divergences, d);
    t->diverged++;
}

void
rs_replay_compare_requests(uint32_t psn_offset, const struct rs_replay_frame *exp, size_t n_exp,
                           const struct rs_replay_frame *got, size_t n_got,
                           struct rs_replay_result *res)
{
    struct walk w = {exp, got, psn_offset, res};

    replay_align(n_exp, n_got, LOOK_AHEAD, match, pair, &w);
}
