/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conv_columns.c - the conversation table's columns: heading, width, the
 * cell's text and the sort key, from one table so that what is shown and
 * what is sorted on can never disagree. The figures are those of
 * `read -z conv,qp` (stats_conv.c), with the NAKs summed over their codes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/stats.h>
#include <roceshark/tui/tui.h>

enum col_kind { KIND_COUNT, KIND_ENDPOINT, KIND_RATE, KIND_USEC, KIND_TIME };

struct column {
    const char *name;
    int width;
    enum col_kind kind;
};

static const struct column columns[RS_TUI_COL_COUNT] = {
    [RS_TUI_COL_CONV] = {"Conv", 4, KIND_COUNT},
    [RS_TUI_COL_REQUESTER] = {"Requester:QP", 21, KIND_ENDPOINT},
    [RS_TUI_COL_RESPONDER] = {"Responder:QP", 21, KIND_ENDPOINT},
    [RS_TUI_COL_REQ_PKTS] = {"ReqPkts", 7, KIND_COUNT},
    [RS_TUI_COL_REQ_BYTES] = {"ReqBytes", 9, KIND_COUNT},
    [RS_TUI_COL_RSP_PKTS] = {"RspPkts", 7, KIND_COUNT},
    [RS_TUI_COL_RSP_BYTES] = {"RspBytes", 9, KIND_COUNT},
    [RS_TUI_COL_RATE2] = {"2s", 5, KIND_RATE},
    [RS_TUI_COL_RATE10] = {"10s", 5, KIND_RATE},
    [RS_TUI_COL_RATE40] = {"40s", 5, KIND_RATE},
    [RS_TUI_COL_SEND] = {"SEND", 5, KIND_COUNT},
    [RS_TUI_COL_WRITE] = {"WRITE", 5, KIND_COUNT},
    [RS_TUI_COL_READ] = {"READ", 5, KIND_COUNT},
    [RS_TUI_COL_ATOMIC] = {"ATOMIC", 6, KIND_COUNT},
    [RS_TUI_COL_RETX] = {"Retx", 4, KIND_COUNT},
    [RS_TUI_COL_GAPS] = {"Gaps", 4, KIND_COUNT},
    [RS_TUI_COL_NAKS] = {"NAKs", 4, KIND_COUNT},
    [RS_TUI_COL_RNR] = {"RNR", 4, KIND_COUNT},
    [RS_TUI_COL_CNP] = {"CNP", 4, KIND_COUNT},
    [RS_TUI_COL_ECN_CE] = {"CE", 4, KIND_COUNT},
    [RS_TUI_COL_VIOL] = {"Viol", 4, KIND_COUNT},
    [RS_TUI_COL_READ_AVG] = {"RdAvg_us", 8, KIND_USEC},
    [RS_TUI_COL_READ_P99] = {"RdP99_us", 8, KIND_USEC},
    [RS_TUI_COL_LAST] = {"Last", 10, KIND_TIME},
};

const char *
rs_tui_col_name(enum rs_tui_col col)
{
    return columns[col].name;
}

int
rs_tui_col_width(enum rs_tui_col col)
{
    return columns[col].width;
}

bool
rs_tui_col_is_count(enum rs_tui_col col)
{
    return columns[col].kind == KIND_COUNT;
}

/* The column's value as a number: what it sorts on. Endpoints sort on text. */
static double
col_value(const struct rs_tui_conv_row *row, enum rs_tui_col col)
{
    const struct rs_conv_stats *st = &row->st;

    switch (col) {
    case RS_TUI_COL_CONV: return st->id;
    case RS_TUI_COL_REQ_PKTS: return (double)st->req_packets;
    case RS_TUI_COL_REQ_BYTES: return (double)st->req_bytes;
    case RS_TUI_COL_RSP_PKTS: return (double)st->resp_packets;
    case RS_TUI_COL_RSP_BYTES: return (double)st->resp_bytes;
    case RS_TUI_COL_RATE2: return row->rate[0];
    case RS_TUI_COL_RATE10: return row->rate[1];
    case RS_TUI_COL_RATE40: return row->rate[2];
    case RS_TUI_COL_SEND: return (double)st->msgs_send;
    case RS_TUI_COL_WRITE: return (double)st->msgs_write;
    case RS_TUI_COL_READ: return (double)st->msgs_read;
    case RS_TUI_COL_ATOMIC: return (double)st->msgs_atomic;
    case RS_TUI_COL_RETX: return (double)st->retransmissions;
    case RS_TUI_COL_GAPS: return (double)st->psn_gaps;
    case RS_TUI_COL_NAKS:
        return (double)(st->naks[0] + st->naks[1] + st->naks[2] + st->naks[3] + st->naks[4]);
    case RS_TUI_COL_RNR: return (double)st->rnr_naks;
    case RS_TUI_COL_CNP: return (double)st->cnps;
    case RS_TUI_COL_ECN_CE: return (double)st->ecn_ce;
    case RS_TUI_COL_VIOL: return (double)st->violations;
    case RS_TUI_COL_READ_AVG:
        return st->read_count ? (double)st->read_sum_ns / (double)st->read_count : -1;
    case RS_TUI_COL_READ_P99: return st->read_count ? (double)st->read_p99_ns : -1;
    case RS_TUI_COL_LAST: return row->have_last ? rs_time_to_double(row->last_seen) : -1;
    default: return 0;
    }
}

/* Bytes per second as iftop prints them: 1.5K, 12M; "-" when not kept. */
static void
format_rate(double v, char *buf, size_t size)
{
    static const char units[] = " KMGT";
    int u = 0;

    if (v < 0) {
        snprintf(buf, size, "-");
        return;
    }
    while (v >= 1000 && u < 4) {
        v /= 1000;
        u++;
    }
    if (u == 0)
        snprintf(buf, size, "%.0f", v);
    else
        snprintf(buf, size, "%.*f%c", v < 10 ? 1 : 0, v, units[u]);
}

void
rs_tui_col_format(const struct rs_tui_conv_row *row, enum rs_tui_col col, char *buf,
                  size_t size)
{
    double v;

    switch (columns[col].kind) {
    case KIND_ENDPOINT:
        if (row->st.id == 0)
            snprintf(buf, size, col == RS_TUI_COL_REQUESTER ? "(evicted)" : "-");
        else
            rs_stats_endpoint_name(&row->st, col == RS_TUI_COL_REQUESTER, buf, size);
        return;
    case KIND_RATE:
        format_rate(col_value(row, col), buf, size);
        return;
    case KIND_USEC:
        v = col_value(row, col);
        if (v < 0)
            snprintf(buf, size, "-");
        else
            snprintf(buf, size, "%.1f", v / 1000.0);
        return;
    case KIND_TIME: {
        /* An evicted conversation's last packet is not known: no time, not a negative one. */
        char t[RS_TIME_TEXT_MAX + 1];
        if (!row->have_last) {
            snprintf(buf, size, "-");
            return;
        }
        rs_time_format(row->last_seen, 3, t);
        snprintf(buf, size, "%s", t);
        return;
    }
    case KIND_COUNT:
        snprintf(buf, size, "%.0f", col_value(row, col));
        return;
    }
}

int
rs_tui_col_digits(const struct rs_tui_conv_row *row, enum rs_tui_col col)
{
    double v = col_value(row, col);
    int digits = 1;

    for (; v >= 10; v /= 10)
        digits++;
    return digits;
}

struct sort_key {
    enum rs_tui_col col;
    bool descending;
};

static int
compare_endpoints(const struct rs_tui_conv_row *a, const struct rs_tui_conv_row *b, bool req)
{
    int c = memcmp(req ? a->st.requester : a->st.responder,
                   req ? b->st.requester : b->st.responder, sizeof(a->st.requester));
    uint32_t qa = req ? a->st.requester_qp : a->st.responder_qp;
    uint32_t qb = req ? b->st.requester_qp : b->st.responder_qp;

    if (c == 0 && a->st.addr_family != b->st.addr_family)
        c = a->st.addr_family < b->st.addr_family ? -1 : 1;
    return c != 0 ? c : (qa > qb) - (qa < qb);
}

static int
compare_rows(const void *pa, const void *pb, void *ctx)
{
    const struct sort_key *k = ctx;
    const struct rs_tui_conv_row *a = pa, *b = pb;
    int c;

    if (columns[k->col].kind == KIND_ENDPOINT) {
        c = compare_endpoints(a, b, k->col == RS_TUI_COL_REQUESTER);
    } else {
        double va = col_value(a, k->col), vb = col_value(b, k->col);
        c = (va > vb) - (va < vb);
    }
    if (k->descending)
        c = -c;
    /* Ties keep the analyzer's order, whichever way the column sorts. */
    return c != 0 ? c : (a->st.id > b->st.id) - (a->st.id < b->st.id);
}

void
rs_tui_rows_sort(struct rs_tui_conv_row *rows, size_t n, enum rs_tui_col col, bool descending)
{
    struct sort_key k = {col, descending};

    if (n < 2)
        return;     /* rows may be NULL then, which qsort_r does not take */
    qsort_r(rows, n, sizeof(*rows), compare_rows, &k);
}
