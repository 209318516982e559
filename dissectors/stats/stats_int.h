/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats_int.h - the state of each -z statistic. Not part of the API.
 */
#ifndef ROCESHARK_STATS_INT_H
#define ROCESHARK_STATS_INT_H

#include <roceshark/dissectors/expert.h>
#include <roceshark/dissectors/filter.h>
#include <roceshark/dissectors/stats.h>

#define EXPERT_FIRST_FRAMES 5
/* io,stat's columns: tshark has no bound; a test's table of a hundred filters takes one
 * run. Rows are bounded by their product with the columns (IO_MAX_CELLS). */
#define IO_MAX_FILTERS 512
/* io,stat prints at most this many rows; the last one holds every frame from its start to
 * the end of the capture (docs/limits.md). */
#define IO_MAX_ROWS ((size_t)RS_STAT_IO_MAX_ROWS)
#define IO_MAX_CELLS (IO_MAX_ROWS * RS_STAT_IO_FULL_COLUMNS)

/* io,phs keeps at most this many protocols in its tree. */
#define PHS_MAX_NODES 4096

/* conv,TYPE and endpoints,TYPE keep at most this many rows (flows or endpoints). */
#define ADDR_MAX_ROWS ((size_t)1 << 18)

enum addr_type { ADDR_ETH, ADDR_IPV4, ADDR_IPV6, ADDR_UDP, ADDR_TCP };

/* expert keeps at most this many rows (distinct severity, protocol and summary); the items
 * of more are counted on one row per severity (docs/limits.md). */
#define WS_EXPERT_MAX_ROWS 65536

struct addr_table;
struct phs_node;
struct ws_expert_table;

/* tshark's five expert levels, least severe first, as expert,LEVEL names them. */
enum expert_level { EL_COMMENT, EL_CHAT, EL_NOTE, EL_WARN, EL_ERROR, EL_COUNT };

struct io_cell {
    uint64_t frames, bytes;
};

struct stat_ops;

struct rs_stat {
    const struct stat_ops *ops;         /* its row of stats.c's table */
    /* expert: Wireshark's items of the frames and (but in tshark's form, rs_stat_set_tshark)
     * ours, by severity, protocol and summary; the least level shown (expert,LEVEL: an enum
     * expert_level) and the frames counted (expert,LEVEL,FILTER: filters[0]) */
    bool tshark;
    int ws_min_level;
    struct ws_expert_table *ws;
    /* io,stat */
    int64_t interval_ns;
    struct rs_time last_rel;            /* the latest time since the first frame */
    uint64_t rows_merged;               /* intervals past max_rows, merged into the last */
    size_t max_rows;                    /* IO_MAX_ROWS, or fewer with more columns than
                                           RS_STAT_IO_FULL_COLUMNS (IO_MAX_CELLS in all) */
    unsigned interval_digits;           /* decimals the interval was written with */
    unsigned n_filters;                 /* io,stat: its columns; a NULL filter takes all */
    struct rs_filter *filters[IO_MAX_FILTERS];
    char *filter_text[IO_MAX_FILTERS];
    struct io_cell *cells;              /* rows x n_filters */
    size_t n_rows, cap_rows;
    /* conv,qp,FILTER (its filter is filters[0]): conversation id -> struct rs_conv_tally of
     * the frames it takes */
    struct _GHashTable *conv_tally;
    /* conv,TYPE and endpoints,TYPE (their filter is filters[0]) */
    struct addr_table *addr;
    /* io,phs (its filter is filters[0]) */
    struct phs_node *phs;
    size_t n_phs, cap_phs;
};

/* The one filter of a statistic (filters[0]) from text; none when text is "". */
int stats_filter_init(struct rs_stat *st, const char *text, char *err);

/* Each statistic's operations, as stats.c's table names them: init gets what follows
 * the -z prefix and its comma ("" when nothing does); packet every frame, analyzed, in
 * capture order; print the table at the end; free what init took (st is freed after).
 * The table holds NULL for an operation a statistic has no use for. */

/* conv,qp[,FILTER] (stats_conv.c) */
int stats_conv_init(struct rs_stat *st, const char *args, char *err);
void stats_conv_packet(struct rs_stat *st, const struct rs_packet *pkt);
void stats_conv_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o);
void stats_conv_free(struct rs_stat *st);

/* conv,TYPE[,FILTER] (endpoints false) and endpoints,TYPE[,FILTER] (stats_addr_conv.c):
 * args is TYPE[,FILTER]. */
int stats_addr_init(struct rs_stat *st, const char *args, bool endpoints, char *err);
void stats_addr_packet(struct rs_stat *st, const struct rs_packet *pkt);
void stats_addr_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o);
void stats_addr_free(struct rs_stat *st);

/* expert[,LEVEL][,FILTER] (stats_expert.c) */
int stats_expert_init(struct rs_stat *st, const char *args, char *err);
void stats_expert_packet(struct rs_stat *st, const struct rs_packet *pkt);
void stats_expert_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o);
void stats_expert_free(struct rs_stat *st);
/* its rows (stats_expert_ws.c): Wireshark's items as tshark -z expert counts them, and one
 * item of ours counted by stats_expert_count(); printed with each row's first frames or,
 * without them, as tshark prints them */
int stats_expert_ws_start(struct rs_stat *st, char *err);
void stats_expert_count(struct rs_stat *st, enum expert_level lv, const char *group,
                        const char *protocol, const char *summary, uint64_t frame);
void stats_expert_ws_packet(struct rs_stat *st, const struct rs_packet *pkt);
void stats_expert_ws_print(struct rs_stat *st, struct rs_out *o, bool first_frames);
void stats_expert_ws_free(struct rs_stat *st);

/* io,stat,INTERVAL[,FILTER]... (stats_io.c) */
int stats_io_init(struct rs_stat *st, const char *args, char *err);
void stats_io_packet(struct rs_stat *st, const struct rs_packet *pkt);
void stats_io_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o);
void stats_io_free(struct rs_stat *st);

/* io,phs[,FILTER] (stats_phs.c) */
int stats_phs_init(struct rs_stat *st, const char *args, char *err);
void stats_phs_packet(struct rs_stat *st, const struct rs_packet *pkt);
void stats_phs_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o);
void stats_phs_free(struct rs_stat *st);

/* iwarp (stats_iwarp.c): the iWARP stage's own counters, read at the end */
int stats_iwarp_init(struct rs_stat *st, const char *args, char *err);
void stats_iwarp_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o);

#endif /* ROCESHARK_STATS_INT_H */
