/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats_expert.c - `-z expert`: expert items counted by severity and kind,
 * with the first frames of each, as `tshark -z expert` lists them.
 */
#include "stats/stats_int.h"

struct expert_ctx {
    struct rs_stat *st;
    uint64_t frame;
};

static void
count_expert(void *ctx, const struct rs_expert *e)
{
    struct expert_ctx *x = ctx;
    struct expert_count *c = &x->st->experts[e - rs_experts];

    if (c->count < EXPERT_FIRST_FRAMES)
        c->first[c->count] = x->frame;
    c->count++;
}

void
stats_expert_packet(struct rs_stat *st, const struct rs_packet *pkt)
{
    struct expert_ctx x = {st, pkt->frame->number};

    rs_expert_foreach(pkt, count_expert, &x);
}

void
stats_expert_print(struct rs_stat *st, struct rs_out *o)
{
    for (int sev = RS_SEV_ERROR; sev >= RS_SEV_NOTE; sev--) {
        uint64_t total = 0;
        for (int k = 0; rs_experts[k].field != NULL; k++)
            if (rs_experts[k].severity == sev)
                total += st->experts[k].count;
        if (total == 0)
            continue;
        rs_out_printf(o, "\n%s (%llu)\n=============\n", rs_severity_name((uint8_t)sev),
                      (unsigned long long)total);
        rs_out_printf(o, "   Frequency      Group  Summary%33s  First frames\n", "");
        for (int k = 0; rs_experts[k].field != NULL; k++) {
            const struct expert_count *c = &st->experts[k];
            if (rs_experts[k].severity != sev || c->count == 0)
                continue;
            rs_out_printf(o, "%12llu %10s  %-40s", (unsigned long long)c->count,
                          rs_experts[k].group, rs_experts[k].summary);
            for (uint64_t i = 0; i < c->count && i < EXPERT_FIRST_FRAMES; i++)
                rs_out_printf(o, " %llu", (unsigned long long)c->first[i]);
            rs_out_str(o, c->count > EXPERT_FIRST_FRAMES ? " ...\n" : "\n");
        }
    }
}
