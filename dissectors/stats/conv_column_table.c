/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * conv_column_table.c - the columns of an RDMA conversation's row (stats.h): their headings,
 * kinds, -z conv,qp's widths and each one's value, in one table that `read -z conv,qp`
 * (stats_conv.c), the Wireshark plugin's "RDMA QP Conversations" (tap_qp.c) and the TUI's
 * conversation view (tui/conv_columns.c) all read, so a column added here shows in each.
 */
#include <stddef.h>

#include <roceshark/dissectors/stats.h>

const struct rs_conv_column rs_conv_columns[RS_CONV_COL_COUNT] = {
    [RS_CONV_COL_CONV] = {"Conv", NULL, RS_CONV_KIND_ID, 5},
    [RS_CONV_COL_REQUESTER] = {"Requester:QP", NULL, RS_CONV_KIND_ENDPOINT, 12},
    [RS_CONV_COL_RESPONDER] = {"Responder:QP", NULL, RS_CONV_KIND_ENDPOINT, 12},
    [RS_CONV_COL_PAIRING] = {"Pairing", NULL, RS_CONV_KIND_PAIRING, 8},
    [RS_CONV_COL_REQ_PKTS] = {"ReqPkts", NULL, RS_CONV_KIND_COUNT, 9},
    [RS_CONV_COL_REQ_BYTES] = {"ReqBytes", NULL, RS_CONV_KIND_COUNT, 12},
    [RS_CONV_COL_RSP_PKTS] = {"RspPkts", NULL, RS_CONV_KIND_COUNT, 9},
    [RS_CONV_COL_RSP_BYTES] = {"RspBytes", NULL, RS_CONV_KIND_COUNT, 12},
    [RS_CONV_COL_SEND] = {"SEND", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_WRITE] = {"WRITE", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_READ] = {"READ", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_ATOMIC] = {"ATOMIC", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_RETX] = {"Retx", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_GAPS] = {"Gaps", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_NAK_SEQ] = {"NakSeq", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_NAK_INV] = {"NakInv", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_NAK_ACC] = {"NakAcc", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_NAK_OP] = {"NakOp", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_NAK_RD] = {"NakRD", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_NAKS] = {"NAKs", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_RNR] = {"RNR", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_CNP] = {"CNP", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_ECN_CE] = {"ECN-CE", "CE", RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_VIOL] = {"Viol", NULL, RS_CONV_KIND_COUNT, 6},
    [RS_CONV_COL_READ_MIN] = {"RdMin_us", NULL, RS_CONV_KIND_USEC, 9},
    [RS_CONV_COL_READ_AVG] = {"RdAvg_us", NULL, RS_CONV_KIND_USEC, 9},
    [RS_CONV_COL_READ_P99] = {"RdP99_us", NULL, RS_CONV_KIND_USEC, 9},
    [RS_CONV_COL_READ_MAX] = {"RdMax_us", NULL, RS_CONV_KIND_USEC, 9},
};

/* -z conv,qp's row, which the plugin's table shows too: the NAKs by code, not summed. */
const enum rs_conv_col rs_conv_qp_columns[RS_CONV_QP_COLUMNS] = {
    RS_CONV_COL_CONV,      RS_CONV_COL_REQUESTER, RS_CONV_COL_RESPONDER, RS_CONV_COL_PAIRING,
    RS_CONV_COL_REQ_PKTS,  RS_CONV_COL_REQ_BYTES, RS_CONV_COL_RSP_PKTS,  RS_CONV_COL_RSP_BYTES,
    RS_CONV_COL_SEND,      RS_CONV_COL_WRITE,     RS_CONV_COL_READ,      RS_CONV_COL_ATOMIC,
    RS_CONV_COL_RETX,      RS_CONV_COL_GAPS,      RS_CONV_COL_NAK_SEQ,   RS_CONV_COL_NAK_INV,
    RS_CONV_COL_NAK_ACC,   RS_CONV_COL_NAK_OP,    RS_CONV_COL_NAK_RD,    RS_CONV_COL_RNR,
    RS_CONV_COL_CNP,       RS_CONV_COL_ECN_CE,    RS_CONV_COL_VIOL,      RS_CONV_COL_READ_MIN,
    RS_CONV_COL_READ_AVG,  RS_CONV_COL_READ_P99,  RS_CONV_COL_READ_MAX,
};

uint64_t
rs_conv_col_count(const struct rs_conv_stats *st, enum rs_conv_col col)
{
    switch (col) {
    case RS_CONV_COL_CONV: return st->id;
    case RS_CONV_COL_REQ_PKTS: return st->req_packets;
    case RS_CONV_COL_REQ_BYTES: return st->req_bytes;
    case RS_CONV_COL_RSP_PKTS: return st->resp_packets;
    case RS_CONV_COL_RSP_BYTES: return st->resp_bytes;
    case RS_CONV_COL_SEND: return st->msgs_send;
    case RS_CONV_COL_WRITE: return st->msgs_write;
    case RS_CONV_COL_READ: return st->msgs_read;
    case RS_CONV_COL_ATOMIC: return st->msgs_atomic;
    case RS_CONV_COL_RETX: return st->retransmissions;
    case RS_CONV_COL_GAPS: return st->psn_gaps;
    case RS_CONV_COL_NAK_SEQ: return st->naks[0];
    case RS_CONV_COL_NAK_INV: return st->naks[1];
    case RS_CONV_COL_NAK_ACC: return st->naks[2];
    case RS_CONV_COL_NAK_OP: return st->naks[3];
    case RS_CONV_COL_NAK_RD: return st->naks[4];
    case RS_CONV_COL_NAKS:
        return st->naks[0] + st->naks[1] + st->naks[2] + st->naks[3] + st->naks[4];
    case RS_CONV_COL_RNR: return st->rnr_naks;
    case RS_CONV_COL_CNP: return st->cnps;
    case RS_CONV_COL_ECN_CE: return st->ecn_ce;
    case RS_CONV_COL_VIOL: return st->violations;
    default: return 0;
    }
}

double
rs_conv_col_read_ns(const struct rs_conv_stats *st, enum rs_conv_col col)
{
    if (st->read_count == 0)
        return -1;
    switch (col) {
    case RS_CONV_COL_READ_MIN: return (double)st->read_min_ns;
    /* whole nanoseconds, as the analyzer measures them */
    case RS_CONV_COL_READ_AVG: return (double)(st->read_sum_ns / (int64_t)st->read_count);
    case RS_CONV_COL_READ_P99: return (double)st->read_p99_ns;
    case RS_CONV_COL_READ_MAX: return (double)st->read_max_ns;
    default: return -1;
    }
}
