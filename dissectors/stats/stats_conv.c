/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats_conv.c - `-z conv,qp[,FILTER]`: one row per RC/UC conversation, with
 * the packets and bytes of each stream, messages by kind, what went wrong,
 * and READ completion times. With a filter, the counts are those of the
 * frames it takes, added up as the analyzer adds up its own (rs_conv_tally).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/common.h>

#include "stats/stats_int.h"

/* "address:0xQPN", or "address:?" while the QP is unknown. Without printf: a table
 * of many conversations formats two of these per row, twice. */
static void
format_endpoint(uint8_t family, const uint8_t *addr, uint32_t qpn, char *buf, size_t size)
{
    char a[INET6_ADDRSTRLEN];

    if (family == 4)
        rs_format_ipv4(a, addr);
    else if (family == 6)
        rs_format_ipv6(a, addr);
    else
        snprintf(a, sizeof(a), "LID %u", (unsigned)addr[0] << 8 | addr[1]);
    size_t n = strlen(a);
    if (n + sizeof(":0x000000") > size) {
        snprintf(buf, size, "%s", a);
        return;
    }
    memcpy(buf, a, n);
    buf[n++] = ':';
    if (qpn > 0xffffff) {
        buf[n++] = '?';
    } else {
        const uint8_t be[3] = {(uint8_t)(qpn >> 16), (uint8_t)(qpn >> 8), (uint8_t)qpn};
        buf[n++] = '0';
        buf[n++] = 'x';
        rs_hex_pairs(buf + n, be, sizeof(be));
        n += 2 * sizeof(be);
    }
    buf[n] = '\0';
}

void
rs_stats_endpoint_name(const struct rs_conv_stats *st, bool requester, char *buf, size_t size)
{
    if (requester)
        format_endpoint(st->addr_family, st->requester, st->requester_qp, buf, size);
    else
        format_endpoint(st->addr_family, st->responder, st->responder_qp, buf, size);
}

const char *
rs_stats_pairing_name(const struct rs_conv_stats *st)
{
    if (st->requester_qp > 0xffffff || st->responder_qp > 0xffffff)
        return "-";
    return st->paired_by_cm ? "cm" : "inferred";
}

/* Column widths wide enough for every row's endpoints; with a filter, the
 * counts of the frames it took. */
struct widths {
    struct rs_out *o;
    int req, resp;
    unsigned long long rows;
    GHashTable *tally;
};

/* The row to print for st: st itself, or with a filter its identity with the
 * counts of the frames the filter took (NULL when it took none). */
static const struct rs_conv_stats *
row_stats(const struct widths *w, const struct rs_conv_stats *st, struct rs_conv_stats *buf)
{
    if (w->tally == NULL)
        return st;
    const struct rs_conv_tally *t = g_hash_table_lookup(w->tally, GUINT_TO_POINTER(st->id));
    if (t == NULL || st->id == 0)
        return NULL;
    *buf = *st;
    rs_conv_tally_stats(t, buf);
    return buf;
}

static void
endpoints(const struct rs_conv_stats *st, char *req, char *resp, size_t size)
{
    if (st->id == 0) {
        snprintf(req, size, "(evicted, archive full)");
        snprintf(resp, size, "-");
        return;
    }
    rs_stats_endpoint_name(st, true, req, size);
    rs_stats_endpoint_name(st, false, resp, size);
}

/* A conversation the CM set up but that carried nothing is left out. */
static bool
carried_traffic(const struct rs_conv_stats *st)
{
    return st->req_packets + st->resp_packets + st->cnps > 0;
}

static void
print_row(void *ctx, const struct rs_conv_stats *all)
{
    const struct widths *w = ctx;
    struct rs_out *o = w->o;
    char req[64], resp[64];
    struct rs_conv_stats buf;
    const struct rs_conv_stats *st = row_stats(w, all, &buf);

    if (st == NULL || !carried_traffic(st))
        return;
    endpoints(st, req, resp, sizeof(req));
    /* Without printf: a table of many conversations prints many rows. */
    for (size_t i = 0; i < RS_CONV_QP_COLUMNS; i++) {
        enum rs_conv_col col = rs_conv_qp_columns[i];
        const struct rs_conv_column *c = &rs_conv_columns[col];
        if (i > 0)
            rs_out_char(o, ' ');
        switch (c->kind) {
        case RS_CONV_KIND_ID:
        case RS_CONV_KIND_COUNT:
            rs_out_pad_u64(o, rs_conv_col_count(st, col), c->width);
            break;
        case RS_CONV_KIND_ENDPOINT:
            rs_out_pad(o, col == RS_CONV_COL_REQUESTER ? req : resp,
                       col == RS_CONV_COL_REQUESTER ? w->req : w->resp, true);
            break;
        case RS_CONV_KIND_PAIRING:
            rs_out_pad(o, rs_stats_pairing_name(st), c->width, true);
            break;
        case RS_CONV_KIND_USEC: {
            double ns = rs_conv_col_read_ns(st, col);
            if (ns < 0)
                rs_out_pad(o, "-", c->width, false);
            else
                rs_out_printf(o, "%*.1f", c->width, ns / 1000.0);
            break;
        }
        }
    }
    rs_out_char(o, '\n');
}

/* The heading: each column's name, as wide as its cells. */
static void
print_heading(const struct widths *w, struct rs_out *o)
{
    for (size_t i = 0; i < RS_CONV_QP_COLUMNS; i++) {
        enum rs_conv_col col = rs_conv_qp_columns[i];
        const struct rs_conv_column *c = &rs_conv_columns[col];
        bool left = c->kind == RS_CONV_KIND_ENDPOINT || c->kind == RS_CONV_KIND_PAIRING;
        int width = col == RS_CONV_COL_REQUESTER ? w->req
                    : col == RS_CONV_COL_RESPONDER ? w->resp : c->width;
        if (i > 0)
            rs_out_char(o, ' ');
        rs_out_pad(o, c->name, width, left);
    }
    rs_out_char(o, '\n');
}

static void
measure_row(void *ctx, const struct rs_conv_stats *all)
{
    struct widths *w = ctx;
    char req[64], resp[64];
    struct rs_conv_stats buf;
    const struct rs_conv_stats *st = row_stats(w, all, &buf);

    if (st == NULL || !carried_traffic(st))
        return;
    endpoints(st, req, resp, sizeof(req));
    if ((int)strlen(req) > w->req)
        w->req = (int)strlen(req);
    if ((int)strlen(resp) > w->resp)
        w->resp = (int)strlen(resp);
    w->rows++;
}

static void
print_table(const struct rs_analyzer *an, struct rs_out *o, GHashTable *tally,
            const char *filter)
{
    struct widths w = {o, rs_conv_columns[RS_CONV_COL_REQUESTER].width,
                       rs_conv_columns[RS_CONV_COL_RESPONDER].width, 0, tally};

    rs_analyzer_foreach_conv(an, measure_row, &w);
    rs_out_str(o, "================================================================"
                  "================\n");
    /* Every bound of the analysis that loses something is counted here, where a
     * user looks for the conversations, even when nothing was lost. */
    struct rs_analysis_losses lost = rs_analyzer_losses(an);
    rs_out_printf(o, "RDMA QP conversations: %llu rows, %llu evicted from the analysis table, "
                  "%llu requests forgotten (over %d per conversation), %llu CM REQs dropped "
                  "(over %d awaiting a REP)\n",
                  w.rows, (unsigned long long)lost.evictions,
                  (unsigned long long)lost.requests_forgotten, RS_ANALYSIS_REQUESTS_KEPT,
                  (unsigned long long)lost.cm_reqs_dropped, RS_ANALYSIS_CM_REQS_KEPT);
    if (filter != NULL)
        rs_out_printf(o, "Counting the frames of filter: %s\n", filter);
    rs_out_str(o, "A conversation is the requests from Requester to Responder's QP and the "
                  "responses back to Requester's QP.\n");
    print_heading(&w, o);
    rs_analyzer_foreach_conv(an, print_row, &w);
    rs_out_str(o, "================================================================"
                  "================\n");
}

void
rs_stats_print_conversations(const struct rs_analyzer *an, struct rs_out *o)
{
    print_table(an, o, NULL, NULL);
}

static void
tally_free(gpointer p)
{
    rs_conv_tally_clear(p);
    g_free(p);
}

int
stats_conv_init(struct rs_stat *st, const char *args, char *err)
{
    int rc = stats_filter_init(st, args, err);

    if (rc != 0 || st->n_filters == 0)
        return rc;
    st->conv_tally = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, tally_free);
    return 0;
}

/* A frame the filter takes adds to its conversation's counts. Their number is
 * bounded by the analyzer's: one per conversation id it gave out. */
void
stats_conv_packet(struct rs_stat *st, const struct rs_packet *pkt)
{
    const struct rs_facts *f = pkt->facts;

    if (st->conv_tally == NULL || f == NULL || !(f->flags & RS_FACT_CONV) ||
        !rs_filter_match(st->filters[0], pkt))
        return;
    struct rs_conv_tally *t = g_hash_table_lookup(st->conv_tally, GUINT_TO_POINTER(f->conv));
    if (t == NULL) {
        t = g_new0(struct rs_conv_tally, 1);
        g_hash_table_insert(st->conv_tally, GUINT_TO_POINTER(f->conv), t);
    }
    rs_conv_tally_add(t, f, pkt->opcode, rs_packet_wire_len(pkt),
                      rs_time_make(pkt->frame->ts_sec, pkt->frame->ts_nsec));
}

void
stats_conv_print(struct rs_stat *st, const struct rs_stat_stages *at, struct rs_out *o)
{
    print_table(at->an, o, st->conv_tally, st->conv_tally != NULL ? st->filter_text[0] : NULL);
}

void
stats_conv_free(struct rs_stat *st)
{
    if (st->conv_tally != NULL)
        g_hash_table_destroy(st->conv_tally);
    st->conv_tally = NULL;
}
