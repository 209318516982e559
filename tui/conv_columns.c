/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conv_columns.c - the conversation table's columns: heading, the
 * cell's text and the sort key, from one table so that what is shown and
 * what is sorted on can never disagree. The columns and their figures are the
 * conversation table's (stats.h, rs_conv_columns: those of `read -z conv,qp` and the
 * plugin), with the NAKs summed over their codes; the rates and the last time are the
 * view's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/stats.h>
#include <roceshark/tui/tui.h>

enum col_kind { KIND_SHARED, KIND_RATE, KIND_TIME };

/* A column of the view: one of the conversation table's (stats.h), or one the TUI alone
 * keeps (the rates, the last packet's time). A column is as wide as its heading and its
 * widest value (view_convs.c). */
struct column {
    enum col_kind kind;
    enum rs_conv_col shared;    /* KIND_SHARED */
    const char *name;           /* the others' */
};

#define SHARED(col) {KIND_SHARED, col, NULL}

static const struct column columns[RS_TUI_COL_COUNT] = {
    [RS_TUI_COL_CONV] = SHARED(RS_CONV_COL_CONV),
    [RS_TUI_COL_REQUESTER] = SHARED(RS_CONV_COL_REQUESTER),
    [RS_TUI_COL_RESPONDER] = SHARED(RS_CONV_COL_RESPONDER),
    [RS_TUI_COL_REQ_PKTS] = SHARED(RS_CONV_COL_REQ_PKTS),
    [RS_TUI_COL_REQ_BYTES] = SHARED(RS_CONV_COL_REQ_BYTES),
    [RS_TUI_COL_RSP_PKTS] = SHARED(RS_CONV_COL_RSP_PKTS),
    [RS_TUI_COL_RSP_BYTES] = SHARED(RS_CONV_COL_RSP_BYTES),
    [RS_TUI_COL_RATE2] = {KIND_RATE, RS_CONV_COL_COUNT, "2s"},
    [RS_TUI_COL_RATE10] = {KIND_RATE, RS_CONV_COL_COUNT, "10s"},
    [RS_TUI_COL_RATE40] = {KIND_RATE, RS_CONV_COL_COUNT, "40s"},
    [RS_TUI_COL_SEND] = SHARED(RS_CONV_COL_SEND),
    [RS_TUI_COL_WRITE] = SHARED(RS_CONV_COL_WRITE),
    [RS_TUI_COL_READ] = SHARED(RS_CONV_COL_READ),
    [RS_TUI_COL_ATOMIC] = SHARED(RS_CONV_COL_ATOMIC),
    [RS_TUI_COL_RETX] = SHARED(RS_CONV_COL_RETX),
    [RS_TUI_COL_GAPS] = SHARED(RS_CONV_COL_GAPS),
    [RS_TUI_COL_NAKS] = SHARED(RS_CONV_COL_NAKS),
    [RS_TUI_COL_RNR] = SHARED(RS_CONV_COL_RNR),
    [RS_TUI_COL_CNP] = SHARED(RS_CONV_COL_CNP),
    [RS_TUI_COL_ECN_CE] = SHARED(RS_CONV_COL_ECN_CE),
    [RS_TUI_COL_VIOL] = SHARED(RS_CONV_COL_VIOL),
    [RS_TUI_COL_READ_AVG] = SHARED(RS_CONV_COL_READ_AVG),
    [RS_TUI_COL_READ_P99] = SHARED(RS_CONV_COL_READ_P99),
    [RS_TUI_COL_LAST] = {KIND_TIME, RS_CONV_COL_COUNT, "Last"},
};

/* The shared column's kind; RS_CONV_KIND_COUNT stands for the TUI's own columns. */
static enum rs_conv_col_kind
shared_kind(enum rs_tui_col col)
{
    return columns[col].kind == KIND_SHARED ? rs_conv_columns[columns[col].shared].kind
                                            : RS_CONV_KIND_COUNT;
}

const char *
rs_tui_col_name(enum rs_tui_col col)
{
    if (columns[col].kind != KIND_SHARED)
        return columns[col].name;
    const struct rs_conv_column *c = &rs_conv_columns[columns[col].shared];
    return c->short_name != NULL ? c->short_name : c->name;   /* a narrow view */
}

bool
rs_tui_col_is_count(enum rs_tui_col col)
{
    return columns[col].kind == KIND_SHARED &&
           (shared_kind(col) == RS_CONV_KIND_ID || shared_kind(col) == RS_CONV_KIND_COUNT);
}

/* The column's value as a number: what it sorts on. Endpoints sort on text. */
static double
col_value(const struct rs_tui_conv_row *row, enum rs_tui_col col)
{
    const struct column *c = &columns[col];

    switch (c->kind) {
    case KIND_RATE:
        return row->rate[col - RS_TUI_COL_RATE2];
    case KIND_TIME:
        return row->have_last ? rs_time_to_double(row->last_seen) : -1;
    case KIND_SHARED:
        break;
    }
    if (rs_conv_columns[c->shared].kind == RS_CONV_KIND_USEC)
        return rs_conv_col_read_ns(&row->st, c->shared);
    return (double)rs_conv_col_count(&row->st, c->shared);
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
    case KIND_SHARED:
        break;
    case KIND_RATE:
        format_rate(col_value(row, col), buf, size);
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
    }
    switch (shared_kind(col)) {
    case RS_CONV_KIND_ENDPOINT:
        if (row->st.id == 0)
            snprintf(buf, size, col == RS_TUI_COL_REQUESTER ? "(evicted)" : "-");
        else
            rs_stats_endpoint_name(&row->st, col == RS_TUI_COL_REQUESTER, buf, size);
        return;
    case RS_CONV_KIND_USEC:
        v = col_value(row, col);
        if (v < 0)
            snprintf(buf, size, "-");
        else
            snprintf(buf, size, "%.1f", v / 1000.0);
        return;
    case RS_CONV_KIND_PAIRING:
        snprintf(buf, size, "%s", rs_stats_pairing_name(&row->st));
        return;
    case RS_CONV_KIND_ID:
    case RS_CONV_KIND_COUNT:
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

    if (shared_kind(k->col) == RS_CONV_KIND_ENDPOINT) {
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
