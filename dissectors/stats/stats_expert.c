/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats_expert.c - `-z expert[,LEVEL][,FILTER]`: expert items counted by severity and
 * kind, with the first frames of each, as `tshark -z expert` lists them; LEVEL (error,
 * warn, note, chat, comment) leaves out what is less severe, FILTER the frames it does
 * not take. With rs_stat_set_tshark(), tshark's own table instead (stats_expert_ws.c).
 */
#include <stdlib.h>
#include <string.h>

#include "stats/stats_int.h"

int
stats_expert_init(struct rs_stat *st, const char *args, char *err)
{
    /* tshark's levels, least severe first; we have no chat or comment items. */
    static const struct {
        const char *name;
        int severity;
    } levels[] = {{"comment", RS_SEV_NOTE}, {"chat", RS_SEV_NOTE}, {"note", RS_SEV_NOTE},
                  {"warn", RS_SEV_WARN},    {"error", RS_SEV_ERROR}};
    const char *filter = args;

    st->min_severity = RS_SEV_NOTE;
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
        size_t n = strlen(levels[i].name);
        if (strncmp(args, levels[i].name, n) == 0 && (args[n] == '\0' || args[n] == ',')) {
            st->min_severity = levels[i].severity;
            st->ws_min_level = (int)i;      /* tshark's form has all five */
            filter = args[n] == ',' ? args + n + 1 : args + n;
            break;
        }
    }
    return stats_filter_init(st, filter, err);
}

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

    if (st->n_filters > 0 && !rs_filter_match(st->filters[0], pkt))
        return;
    if (st->tshark) {
        stats_expert_ws_packet(st, pkt);
        return;
    }
    rs_expert_foreach(pkt, count_expert, &x);
}

void
stats_expert_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o)
{
    (void)at;
    if (st->tshark) {
        stats_expert_ws_print(st, o);
        return;
    }
    for (int sev = RS_SEV_ERROR; sev >= st->min_severity; sev--) {
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

void
stats_expert_free(struct rs_stat *st)
{
    stats_expert_ws_free(st);
}
