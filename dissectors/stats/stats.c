/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.c - the -z statistics as a table of operations (prefix, init, packet, print,
 * free), one row for each of stats_conv.c, stats_addr_conv.c, stats_expert.c,
 * stats_io.c, stats_phs.c and stats_iwarp.c.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/streams.h>

#include "stats/stats_int.h"

/* What a row asks of the pipeline. */
enum stat_needs {
    NEEDS_ANALYSIS = 1 << 0,        /* the transport analysis */
    NEEDS_ANALYSIS_IF_FILTERED = 1 << 1,    /* it, when a filter reads roceshark.analysis.* */
    LISTS_CONVS = 1 << 2,           /* evicted conversations' statistics kept */
    NEEDS_CRC = 1 << 3,             /* checksum verdicts */
    NEEDS_IWARP = 1 << 4,           /* the iWARP stage's tables, read at the end */
    NEEDS_PROTOCOLS = 1 << 5        /* each frame's protocols, as TCP's desegmentation
                                       leaves them (the streams stage) */
};

/* How the -z argument goes on after the prefix. */
enum stat_args {
    ARGS_NONE,                      /* the prefix alone */
    ARGS_OPTIONAL,                  /* the prefix alone, or ",ARGS" */
    ARGS_REQUIRED                   /* ",ARGS" */
};

struct stat_ops {
    const char *prefix;
    enum stat_args args;
    unsigned needs;                 /* enum stat_needs */
    int (*init)(struct rs_stat *st, const char *args, char *err);
    void (*packet)(struct rs_stat *st, const struct rs_packet *pkt);      /* NULL: none */
    void (*print)(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o);
    void (*free)(struct rs_stat *st);                                    /* NULL: none */
};

static int
conv_addr_init(struct rs_stat *st, const char *args, char *err)
{
    return stats_addr_init(st, args, false, err);
}

static int
endpoints_init(struct rs_stat *st, const char *args, char *err)
{
    return stats_addr_init(st, args, true, err);
}

/* Every -z statistic, first match wins (conv,qp before conv,TYPE). A new one is a row
 * here and a file of its own (docs/architecture.md, "a -z statistic"). */
static const struct stat_ops stats[] = {
    {"conv,qp", ARGS_OPTIONAL, NEEDS_ANALYSIS | LISTS_CONVS, stats_conv_init, stats_conv_packet,
     stats_conv_print, stats_conv_free},
    {"conv", ARGS_REQUIRED, 0, conv_addr_init, stats_addr_packet, stats_addr_print,
     stats_addr_free},
    {"endpoints", ARGS_REQUIRED, 0, endpoints_init, stats_addr_packet, stats_addr_print,
     stats_addr_free},
    {"expert", ARGS_OPTIONAL, NEEDS_ANALYSIS | NEEDS_CRC, stats_expert_init,
     stats_expert_packet, stats_expert_print, stats_expert_free},
    {"io,phs", ARGS_OPTIONAL, NEEDS_PROTOCOLS, stats_phs_init, stats_phs_packet, stats_phs_print,
     stats_phs_free},
    {"io,stat", ARGS_REQUIRED, NEEDS_ANALYSIS_IF_FILTERED, stats_io_init, stats_io_packet,
     stats_io_print, stats_io_free},
    {"iwarp", ARGS_NONE, NEEDS_IWARP, stats_iwarp_init, NULL, stats_iwarp_print, NULL},
};

/* The row spec names, and where its arguments start ("" for none); NULL for none. */
static const struct stat_ops *
find_stat(const char *spec, const char **args)
{
    for (size_t i = 0; i < RS_ARRAY_SIZE(stats); i++) {
        size_t n = strlen(stats[i].prefix);
        if (strncmp(spec, stats[i].prefix, n) != 0)
            continue;
        if (spec[n] == '\0' && stats[i].args != ARGS_REQUIRED) {
            *args = spec + n;
            return &stats[i];
        }
        if (spec[n] == ',' && stats[i].args != ARGS_NONE) {
            *args = spec + n + 1;
            return &stats[i];
        }
    }
    return NULL;
}

int
rs_stat_new(const char *spec, struct rs_stat **out, char *err)
{
    struct rs_stat *st = calloc(1, sizeof(*st));
    const char *args;
    int rc;

    if (st == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    st->ops = find_stat(spec, &args);
    if (st->ops != NULL)
        rc = st->ops->init(st, args, err);
    else
        rc = rs_error(err, RS_EINVAL, "unknown statistic (conv,TYPE[,FILTER], "
                      "endpoints,TYPE[,FILTER], conv,qp[,FILTER], expert[,LEVEL][,FILTER], "
                      "io,phs[,FILTER], io,stat,INTERVAL[,FILTER], iwarp)");
    if (rc != 0) {
        rs_stat_free(st);
        return rc;
    }
    *out = st;
    return 0;
}

/* Whether one of the statistic's filters reads field. */
static bool
filters_use(const struct rs_stat *st, const char *field)
{
    for (unsigned i = 0; i < st->n_filters; i++)
        if (rs_filter_uses(st->filters[i], field))
            return true;
    return false;
}

int
rs_stat_set_tshark(struct rs_stat *st, bool on, char *err)
{
    if (st->ops->init != stats_expert_init)
        return 0;
    st->tshark = on;
    return on ? stats_expert_ws_start(st, err) : 0;
}

bool
rs_stat_needs_streams(const struct rs_stat *st)
{
    if (st->tshark)
        return true;        /* TCP's sequence analysis and FIN order make items */
    if (st->ops->needs & NEEDS_PROTOCOLS)
        return true;
    for (size_t k = 0; rs_streams_fields[k] != NULL; k++)
        if (filters_use(st, rs_streams_fields[k]))
            return true;
    for (size_t k = 0; rs_streams_tcp_fields[k] != NULL; k++)
        if (filters_use(st, rs_streams_tcp_fields[k]))
            return true;
    return false;
}

bool
rs_stat_needs_analysis(const struct rs_stat *st)
{
    return (st->ops->needs & NEEDS_ANALYSIS) ||
           ((st->ops->needs & NEEDS_ANALYSIS_IF_FILTERED) &&
            filters_use(st, "roceshark.analysis"));
}

bool
rs_stat_lists_conversations(const struct rs_stat *st)
{
    return st->ops->needs & LISTS_CONVS;
}

bool
rs_stat_needs_iwarp(const struct rs_stat *st)
{
    return (st->ops->needs & NEEDS_IWARP) != 0;
}

bool
rs_stat_needs_crc(const struct rs_stat *st)
{
    return (st->ops->needs & NEEDS_CRC) || filters_use(st, "roceshark.icrc") ||
           filters_use(st, "roceshark.vcrc");
}

uint64_t
rs_stat_rows_merged(const struct rs_stat *st)
{
    return st->rows_merged;     /* io,stat's alone: 0 for every other */
}

uint64_t
rs_stat_rows_max(const struct rs_stat *st)
{
    return st->max_rows;        /* io,stat's alone: 0 for every other */
}

void
rs_stat_packet(struct rs_stat *st, const struct rs_packet *pkt)
{
    if (st->ops->packet != NULL)
        st->ops->packet(st, pkt);
}

void
rs_stat_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o)
{
    st->ops->print(st, at, o);
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
    if (st->ops != NULL && st->ops->free != NULL)
        st->ops->free(st);
    for (unsigned i = 0; i < st->n_filters; i++) {     /* every statistic's, as it set them */
        rs_filter_free(st->filters[i]);
        free(st->filter_text[i]);
    }
    free(st);
}
