/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.c - the -z statistics: parsing their specification and dispatching
 * to the one that was asked for (stats_conv.c, stats_addr_conv.c, stats_expert.c,
 * stats_io.c, stats_phs.c).
 */
#include <stdlib.h>
#include <string.h>

#include "stats/stats_int.h"

int
rs_stat_new(const char *spec, struct rs_stat **out, char *err)
{
    struct rs_stat *st = calloc(1, sizeof(*st));
    int rc;

    if (st == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    if (strcmp(spec, "conv,qp") == 0 || strncmp(spec, "conv,qp,", 8) == 0) {
        st->kind = STAT_CONV_QP;
        rc = stats_conv_init(st, spec[7] == ',' ? spec + 8 : "", err);
    } else if (strncmp(spec, "conv,", 5) == 0) {
        st->kind = STAT_ADDR;
        rc = stats_addr_init(st, spec + 5, false, err);
    } else if (strncmp(spec, "endpoints,", 10) == 0) {
        st->kind = STAT_ADDR;
        rc = stats_addr_init(st, spec + 10, true, err);
    } else if (strcmp(spec, "expert") == 0 || strncmp(spec, "expert,", 7) == 0) {
        st->kind = STAT_EXPERT;
        rc = stats_expert_init(st, spec[6] == ',' ? spec + 7 : "", err);
    } else if (strcmp(spec, "io,phs") == 0 || strncmp(spec, "io,phs,", 7) == 0) {
        st->kind = STAT_PHS;
        rc = stats_phs_init(st, spec[6] == ',' ? spec + 7 : "", err);
    } else if (strncmp(spec, "io,stat,", 8) == 0) {
        st->kind = STAT_IO;
        rc = stats_io_init(st, spec + 8, err);
    } else {
        rc = rs_error(err, RS_EINVAL, "unknown statistic (conv,TYPE[,FILTER], "
                      "endpoints,TYPE[,FILTER], conv,qp[,FILTER], expert[,LEVEL][,FILTER], "
                      "io,phs[,FILTER], io,stat,INTERVAL[,FILTER])");
    }
    if (rc != 0) {
        rs_stat_free(st);
        return rc;
    }
    *out = st;
    return 0;
}

bool
rs_stat_needs_analysis(const struct rs_stat *st)
{
    return st->kind == STAT_CONV_QP || st->kind == STAT_EXPERT || stats_io_uses_analysis(st);
}

bool
rs_stat_lists_conversations(const struct rs_stat *st)
{
    return st->kind == STAT_CONV_QP;
}

bool
rs_stat_needs_crc(const struct rs_stat *st)
{
    if (st->kind == STAT_EXPERT)
        return true;
    for (unsigned i = 0; i < st->n_filters; i++)
        if (rs_filter_uses(st->filters[i], "roceshark.icrc") ||
            rs_filter_uses(st->filters[i], "roceshark.vcrc"))
            return true;
    return false;
}

uint64_t
rs_stat_rows_merged(const struct rs_stat *st)
{
    return st->kind == STAT_IO ? st->rows_merged : 0;
}

void
rs_stat_packet(struct rs_stat *st, const struct rs_packet *pkt)
{
    if (st->kind == STAT_EXPERT)
        stats_expert_packet(st, pkt);
    else if (st->kind == STAT_CONV_QP)
        stats_conv_packet(st, pkt);
    else if (st->kind == STAT_IO)
        stats_io_packet(st, pkt);
    else if (st->kind == STAT_ADDR)
        stats_addr_packet(st, pkt);
    else if (st->kind == STAT_PHS)
        stats_phs_packet(st, pkt);
}

void
rs_stat_print(struct rs_stat *st, const struct rs_analyzer *an, struct rs_out *o)
{
    switch (st->kind) {
    case STAT_CONV_QP:
        stats_conv_print(st, an, o);
        break;
    case STAT_EXPERT:
        stats_expert_print(st, o);
        break;
    case STAT_IO:
        stats_io_print(st, o);
        break;
    case STAT_ADDR:
        stats_addr_print(st, o);
        break;
    case STAT_PHS:
        stats_phs_print(st, o);
        break;
    }
}

int
stats_filter_init(struct rs_stat *st, const char *text, char *err)
{
    char ferr[RS_ERRBUF_SIZE];

    if (*text == '\0')
        return 0;
    if (rs_filter_compile(text, &st->filters[0], ferr) != 0)
        return rs_error(err, RS_EINVAL, "filter %s: %s", text, ferr);
    st->filter_text[0] = strdup(text);
    st->n_filters = 1;
    return 0;
}

void
rs_stat_free(struct rs_stat *st)
{
    if (st == NULL)
        return;
    stats_io_free(st);
    stats_conv_free(st);
    stats_addr_free(st);
    stats_phs_free(st);
    free(st);
}
