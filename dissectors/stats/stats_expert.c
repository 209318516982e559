/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats_expert.c - `-z expert[,LEVEL][,FILTER]`: every expert item of the frames, counted
 * by severity, protocol and summary with the first frames of each: Wireshark's own items
 * of the layers we dissect as it does, in its words (stats_expert_ws.c), and ours, the
 * roceshark checks and transport analysis (expert.c), under the protocol name the
 * Wireshark plugin registers them with ("roceshark"). LEVEL (error, warn, note, chat,
 * comment) leaves out what is less severe, FILTER the frames it does not take. With
 * rs_stat_set_tshark(), tshark's own table: Wireshark's items only, without first frames.
 */
#include <stdlib.h>
#include <string.h>

#include "stats/stats_int.h"

/* The protocol column of our items: the plugin's protocol, whose items tshark lists so. */
#define OUR_PROTOCOL "roceshark"

int
stats_expert_init(struct rs_stat *st, const char *args, char *err)
{
    /* tshark's levels, least severe first (enum expert_level's order). */
    static const char *const levels[EL_COUNT] = {"comment", "chat", "note", "warn", "error"};
    const char *filter = args;

    st->ws_min_level = EL_COMMENT;
    for (int i = 0; i < EL_COUNT; i++) {
        size_t n = strlen(levels[i]);
        if (strncmp(args, levels[i], n) == 0 && (args[n] == '\0' || args[n] == ',')) {
            st->ws_min_level = i;
            filter = args[n] == ',' ? args + n + 1 : args + n;
            break;
        }
    }
    int rc = stats_filter_init(st, filter, err);
    if (rc != 0)
        return rc;
    return stats_expert_ws_start(st, err);
}

struct expert_ctx {
    struct rs_stat *st;
    uint64_t frame;
};

static void
count_ours(void *ctx, const struct rs_expert *e)
{
    struct expert_ctx *x = ctx;
    enum expert_level lv = e->severity == RS_SEV_ERROR  ? EL_ERROR
                           : e->severity == RS_SEV_WARN ? EL_WARN
                                                        : EL_NOTE;

    stats_expert_count(x->st, lv, e->group, OUR_PROTOCOL, e->summary, x->frame);
}

void
stats_expert_packet(struct rs_stat *st, const struct rs_packet *pkt)
{
    struct expert_ctx x = {st, pkt->frame->number};

    if (st->n_filters > 0 && !rs_filter_match(st->filters[0], pkt))
        return;
    stats_expert_ws_packet(st, pkt);
    if (!st->tshark)
        rs_expert_foreach(pkt, count_ours, &x);
}

void
stats_expert_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o)
{
    (void)at;
    stats_expert_ws_print(st, o, !st->tshark);
}

void
stats_expert_free(struct rs_stat *st)
{
    stats_expert_ws_free(st);
}
