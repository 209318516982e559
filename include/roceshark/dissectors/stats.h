/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.h - statistics over a whole capture (-z), printed at the end:
 *   conv,qp                 one row per RC/UC conversation
 *   conv,TYPE[,FILTER], endpoints,TYPE[,FILTER]
 *                           tshark's conversation and endpoint tables, TYPE eth, ip, ipv6,
 *                           udp or tcp
 *   expert                  expert items by severity and kind, first frames of each
 *   io,stat,INTERVAL[,FILTER]...
 *                           frames and bytes per interval, per filter
 *   io,phs[,FILTER]         the protocol hierarchy
 *   iwarp                   the iWARP stage's connections, FPDUs and reassembly memory
 */
#ifndef ROCESHARK_STATS_H
#define ROCESHARK_STATS_H

#include <roceshark/dissectors/analysis.h>
#include <roceshark/dissectors/iwarp.h>
#include <roceshark/dissectors/packet.h>
#include <roceshark/dissectors/print.h>

struct rs_stat;

/* Parses one -z argument. */
int rs_stat_new(const char *spec, struct rs_stat **out, char *err);
/* Whether the statistic needs the transport analysis. */
bool rs_stat_needs_analysis(const struct rs_stat *st);
/* Whether it lists conversations, evicted ones too (the analysis keeps
 * their statistics only when asked: rs_analysis_opts.keep_evicted). */
bool rs_stat_lists_conversations(const struct rs_stat *st);
/* Whether it prints the iWARP stage's tables (rs_stat_stages.iwarp). */
bool rs_stat_needs_iwarp(const struct rs_stat *st);
/* Whether it reports checksum verdicts (expert items, or a filter on them). */
bool rs_stat_needs_crc(const struct rs_stat *st);
/* Whether one of its filters reads a field of the streams stage (tcp.stream,
 * udp.time_relative, ...: streams.h, or one TCP's desegmentation decides: data, http), or
 * it counts each frame's protocols (io,phs): the stage must then run. */
bool rs_stat_needs_streams(const struct rs_stat *st);
/* Prints tshark's table where tshark has one of its own: -z expert then lists Wireshark's
 * expert items (Ethernet padding, TCP, HTTP's start lines, malformed packets) under
 * tshark's headings, as tshark 4.0 counts them, where it lists ours (--compat tshark).
 * Every other statistic is tshark's already. Before the first frame; 0, or -1 out of
 * memory. */
int rs_stat_set_tshark(struct rs_stat *st, bool on, char *err);
/* Feeds every frame, after analysis, whatever the display filter says. */
void rs_stat_packet(struct rs_stat *st, const struct rs_packet *pkt);
/* What a statistic reads at the end besides the frames it was fed: the pipeline's
 * stages (rs_pipeline_analyzer(), rs_pipeline_iwarp()). */
struct rs_stat_stages {
    const struct rs_analyzer *an;       /* NULL with the analysis off */
    const struct rs_iwarp *iwarp;
};
void rs_stat_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o);
/* After rs_stat_print(): the rows io,stat did not print apart because the capture spans
 * more intervals than its bound (docs/limits.md), their frames counted in the last row
 * printed; 0 for every other statistic. */
uint64_t rs_stat_rows_merged(const struct rs_stat *st);
/* The rows io,stat prints at most with up to RS_STAT_IO_FULL_COLUMNS columns; with more,
 * fewer, so that rows times columns stay within their product (rs_stat_rows_max()). */
#define RS_STAT_IO_MAX_ROWS ((uint64_t)1 << 20)
#define RS_STAT_IO_FULL_COLUMNS 8
/* The rows this io,stat prints at most; 0 for every other statistic. */
uint64_t rs_stat_rows_max(const struct rs_stat *st);
void rs_stat_free(struct rs_stat *st);

/* "2112 bytes", "18 kB", "36 MB": a byte count as tshark's conversation tables show it
 * (Wireshark's format_size()). Returns the length, as snprintf(). */
size_t rs_stats_format_size(uint64_t bytes, char *buf, size_t size);

/* -z iwarp: the iWARP stage's counters, and the memory held against its bounds. */
void rs_iwarp_print_stats(const struct rs_iwarp *iw, struct rs_out *o);

/* The conv,qp table on its own. */
void rs_stats_print_conversations(const struct rs_analyzer *an, struct rs_out *o);

/* The columns of an RDMA conversation's row: one table (conv_column_table.c) for -z conv,qp,
 * the Wireshark plugin's "RDMA QP Conversations" and the TUI's conversation view. */
enum rs_conv_col {
    RS_CONV_COL_CONV,
    RS_CONV_COL_REQUESTER,
    RS_CONV_COL_RESPONDER,
    RS_CONV_COL_PAIRING,
    RS_CONV_COL_REQ_PKTS,
    RS_CONV_COL_REQ_BYTES,
    RS_CONV_COL_RSP_PKTS,
    RS_CONV_COL_RSP_BYTES,
    RS_CONV_COL_SEND,
    RS_CONV_COL_WRITE,
    RS_CONV_COL_READ,
    RS_CONV_COL_ATOMIC,
    RS_CONV_COL_RETX,
    RS_CONV_COL_GAPS,
    RS_CONV_COL_NAK_SEQ,        /* the NAKs by AETH code */
    RS_CONV_COL_NAK_INV,
    RS_CONV_COL_NAK_ACC,
    RS_CONV_COL_NAK_OP,
    RS_CONV_COL_NAK_RD,
    RS_CONV_COL_NAKS,           /* and summed */
    RS_CONV_COL_RNR,
    RS_CONV_COL_CNP,
    RS_CONV_COL_ECN_CE,
    RS_CONV_COL_VIOL,
    RS_CONV_COL_READ_MIN,       /* READ completion times */
    RS_CONV_COL_READ_AVG,
    RS_CONV_COL_READ_P99,
    RS_CONV_COL_READ_MAX,
    RS_CONV_COL_COUNT
};

enum rs_conv_col_kind {
    RS_CONV_KIND_ID,            /* the conversation id */
    RS_CONV_KIND_ENDPOINT,      /* rs_stats_endpoint_name() */
    RS_CONV_KIND_PAIRING,       /* rs_stats_pairing_name() */
    RS_CONV_KIND_COUNT,         /* rs_conv_col_count() */
    RS_CONV_KIND_USEC           /* rs_conv_col_read_ns(), shown in microseconds, "-" without */
};

struct rs_conv_column {
    const char *name;           /* the heading */
    const char *short_name;     /* the heading in a narrow view; NULL: name */
    enum rs_conv_col_kind kind;
    int width;                  /* -z conv,qp's (endpoints: at least) */
};
extern const struct rs_conv_column rs_conv_columns[RS_CONV_COL_COUNT];

/* -z conv,qp's columns in order, which the plugin's table shows too. */
#define RS_CONV_QP_COLUMNS 27
extern const enum rs_conv_col rs_conv_qp_columns[RS_CONV_QP_COLUMNS];

/* A count column's value (the id for RS_CONV_COL_CONV); 0 for other kinds. */
uint64_t rs_conv_col_count(const struct rs_conv_stats *st, enum rs_conv_col col);
/* A READ time column's value in nanoseconds; -1 without a READ, or for other kinds. */
double rs_conv_col_read_ns(const struct rs_conv_stats *st, enum rs_conv_col col);

/* "10.0.0.1:0x000011": a conversation's requester (or responder) and QP,
 * "?" for a QP not yet known. */
void rs_stats_endpoint_name(const struct rs_conv_stats *st, bool requester, char *buf,
                            size_t size);
/* "cm", "inferred" or "-" (only one stream seen). */
const char *rs_stats_pairing_name(const struct rs_conv_stats *st);

#endif /* ROCESHARK_STATS_H */
