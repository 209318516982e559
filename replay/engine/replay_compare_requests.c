/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_compare_requests.c - a live requester's packets against the
 * captured requester's, when it was served the capture's responses: the
 * same opcodes and PSNs in the same order, retransmissions included,
 * because it met the same NAKs and RNR NAKs.
 *
 * The two sequences are walked together; where they part, a short look
 * ahead finds the packet one side lacks, so that one missing or extra
 * packet is one divergence and not every packet after it.
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/replay.h>

#define LOOK_AHEAD 64

static bool
same(const struct rs_replay_frame *e, const struct rs_replay_frame *g, uint32_t offset)
{
    return e->opcode == g->opcode && e->psn == ((g->psn - offset) & 0xffffff);
}

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

static void
diverge(struct rs_replay_result *res, const struct rs_replay_frame *e,
        const struct rs_replay_frame *g, uint32_t offset)
{
    struct rs_replay_divergence d;

    memset(&d, 0, sizeof(d));
    d.capture_frame = e != NULL ? e->number : 0;
    d.replay_frame = g != NULL ? g->number : 0;
    d.rule = RS_REPLAY_RULE_REQUEST;
    snprintf(d.field, sizeof(d.field), "infiniband.bth");
    describe(e, 0, d.expected, sizeof(d.expected));
    describe(g, offset, d.got, sizeof(d.got));
    g_array_append_val(res->divergences, d);
    res->by_rule[RS_REPLAY_RULE_REQUEST].diverged++;
}

void
rs_replay_compare_requests(uint32_t psn_offset, const struct rs_replay_frame *exp, size_t n_exp,
                           const struct rs_replay_frame *got, size_t n_got,
                           struct rs_replay_result *res)
{
    struct rs_replay_tally *t = &res->by_rule[RS_REPLAY_RULE_REQUEST];
    size_t i = 0, j = 0;

    while (i < n_exp || j < n_got) {
        if (i < n_exp && j < n_got && same(&exp[i], &got[j], psn_offset)) {
            t->compared++;
            t->same++;
            i++, j++;
            continue;
        }
        /* Which side lacks a packet: the nearest resynchronisation wins. */
        size_t skip_exp = 0, skip_got = 0;
        for (size_t k = 1; k <= LOOK_AHEAD && skip_exp == 0 && skip_got == 0; k++) {
            if (j < n_got && i + k < n_exp && same(&exp[i + k], &got[j], psn_offset))
                skip_exp = k;
            else if (i < n_exp && j + k < n_got && same(&exp[i], &got[j + k], psn_offset))
                skip_got = k;
        }
        t->compared++;
        if (skip_exp != 0 || j == n_got) {
            diverge(res, &exp[i++], NULL, psn_offset);      /* the live requester lacks it */
        } else if (skip_got != 0 || i == n_exp) {
            diverge(res, NULL, &got[j++], psn_offset);      /* an extra one */
        } else {
            diverge(res, &exp[i++], &got[j++], psn_offset);
        }
    }
}
