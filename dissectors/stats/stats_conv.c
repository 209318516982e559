/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats_conv.c - `-z conv,qp`: one row per RC/UC conversation, with the
 * packets and bytes of each stream, messages by kind, what went wrong,
 * and READ completion times.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "stats/stats_int.h"

static void
format_endpoint(uint8_t family, const uint8_t *addr, uint32_t qpn, char *buf, size_t size)
{
    char a[INET6_ADDRSTRLEN], q[16];

    if (family == 4)
        inet_ntop(AF_INET, addr, a, sizeof(a));
    else if (family == 6)
        inet_ntop(AF_INET6, addr, a, sizeof(a));
    else
        snprintf(a, sizeof(a), "LID %u", (unsigned)addr[0] << 8 | addr[1]);
    if (qpn > 0xffffff)
        snprintf(q, sizeof(q), "?");
    else
        snprintf(q, sizeof(q), "0x%06x", qpn);
    snprintf(buf, size, "%s:%s", a, q);
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

static void
print_us(struct rs_out *o, const struct rs_conv_stats *st, int64_t ns)
{
    if (st->read_count == 0)
        rs_out_printf(o, " %9s", "-");
    else
        rs_out_printf(o, " %9.1f", ns / 1000.0);
}

/* Column widths wide enough for every row's endpoints. */
struct widths {
    struct rs_out *o;
    int req, resp;
    unsigned long long rows;
};

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
print_row(void *ctx, const struct rs_conv_stats *st)
{
    const struct widths *w = ctx;
    struct rs_out *o = w->o;
    char req[64], resp[64];

    if (!carried_traffic(st))
        return;
    endpoints(st, req, resp, sizeof(req));
    const char *pairing = rs_stats_pairing_name(st);
    rs_out_printf(o, "%5u %-*s %-*s %-8s %9llu %12llu %9llu %12llu %6llu %6llu %6llu %6llu "
                  "%6llu %6llu %6llu %6llu %6llu %6llu %6llu %6llu %6llu %6llu %6llu",
                  st->id, w->req, req, w->resp, resp, pairing, (unsigned long long)st->req_packets,
                  (unsigned long long)st->req_bytes, (unsigned long long)st->resp_packets,
                  (unsigned long long)st->resp_bytes, (unsigned long long)st->msgs_send,
                  (unsigned long long)st->msgs_write, (unsigned long long)st->msgs_read,
                  (unsigned long long)st->msgs_atomic, (unsigned long long)st->retransmissions,
                  (unsigned long long)st->psn_gaps, (unsigned long long)st->naks[0],
                  (unsigned long long)st->naks[1], (unsigned long long)st->naks[2],
                  (unsigned long long)st->naks[3], (unsigned long long)st->naks[4],
                  (unsigned long long)st->rnr_naks, (unsigned long long)st->cnps,
                  (unsigned long long)st->ecn_ce, (unsigned long long)st->violations);
    print_us(o, st, st->read_min_ns);
    print_us(o, st, st->read_count ? st->read_sum_ns / (int64_t)st->read_count : 0);
    print_us(o, st, st->read_p99_ns);
    print_us(o, st, st->read_max_ns);
    rs_out_char(o, '\n');
}

static void
measure_row(void *ctx, const struct rs_conv_stats *st)
{
    struct widths *w = ctx;
    char req[64], resp[64];

    if (!carried_traffic(st))
        return;
    endpoints(st, req, resp, sizeof(req));
    if ((int)strlen(req) > w->req)
        w->req = (int)strlen(req);
    if ((int)strlen(resp) > w->resp)
        w->resp = (int)strlen(resp);
    w->rows++;
}

void
rs_stats_print_conversations(const struct rs_analyzer *an, struct rs_out *o)
{
    struct widths w = {o, 12, 12, 0};

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
    rs_out_str(o, "A conversation is the requests from Requester to Responder's QP and the "
                  "responses back to Requester's QP.\n");
    rs_out_printf(o, "%5s %-*s %-*s %-8s %9s %12s %9s %12s %6s %6s %6s %6s %6s %6s %6s %6s %6s "
                  "%6s %6s %6s %6s %6s %6s %9s %9s %9s %9s\n",
                  "Conv", w.req, "Requester:QP", w.resp, "Responder:QP", "Pairing", "ReqPkts", "ReqBytes", "RspPkts",
                  "RspBytes", "SEND", "WRITE", "READ", "ATOMIC", "Retx", "Gaps", "NakSeq",
                  "NakInv", "NakAcc", "NakOp", "NakRD", "RNR", "CNP", "ECN-CE", "Viol",
                  "RdMin_us", "RdAvg_us", "RdP99_us", "RdMax_us");
    rs_analyzer_foreach_conv(an, print_row, &w);
    rs_out_str(o, "================================================================"
                  "================\n");
}
