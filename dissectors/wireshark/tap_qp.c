/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tap_qp.c - "RDMA QP conversations": the numbers of `roceshark read -z
 * conv,qp` as a statistics table, in Wireshark's Statistics menu and as
 * `tshark -z roceshark,qp`.
 *
 * Each tapped packet names its conversation; its row is refreshed from the
 * analyzer's statistics for that conversation, which are complete once its
 * last packet has gone by.
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>

#include <roceshark/stats.h>

#include "ws_plugin.h"

enum {
    COL_CONV, COL_REQUESTER, COL_RESPONDER, COL_PAIRING, COL_REQ_PKTS, COL_REQ_BYTES,
    COL_RSP_PKTS, COL_RSP_BYTES, COL_SEND, COL_WRITE, COL_READ, COL_ATOMIC, COL_RETX,
    COL_GAPS, COL_NAK_SEQ, COL_NAK_INV, COL_NAK_ACC, COL_NAK_OP, COL_NAK_RD, COL_RNR, COL_CNP,
    COL_ECN, COL_VIOL, COL_RD_MIN, COL_RD_AVG, COL_RD_P99, COL_RD_MAX, N_COLS
};

#define U(name) {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, name, "%u"}
#define F(name) {TABLE_ITEM_FLOAT, TAP_ALIGN_RIGHT, name, "%.1f"}
#define S(name) {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, name, "%s"}

static stat_tap_table_item columns[N_COLS] = {
    U("Conv"), S("Requester:QP"), S("Responder:QP"), S("Pairing"), U("ReqPkts"),
    {TABLE_ITEM_FLOAT, TAP_ALIGN_RIGHT, "ReqBytes", "%.0f"}, U("RspPkts"),
    {TABLE_ITEM_FLOAT, TAP_ALIGN_RIGHT, "RspBytes", "%.0f"}, U("SEND"), U("WRITE"), U("READ"),
    U("ATOMIC"), U("Retx"), U("Gaps"), U("NakSeq"), U("NakInv"), U("NakAcc"), U("NakOp"),
    U("NakRD"), U("RNR"), U("CNP"), U("ECN-CE"), U("Viol"), F("RdMin_us"), F("RdAvg_us"),
    F("RdP99_us"), F("RdMax_us"),
};

static const char table_name[] = "RDMA QP conversations";

/* Conversation id -> row + 1, for the table being filled. One table at a
 * time: a second window of the statistic starts it afresh. */
static GHashTable *rows;

static void
qp_init(stat_tap_table_ui *ui)
{
    stat_tap_table *table = stat_tap_find_table(ui, table_name);

    if (rows != NULL)
        g_hash_table_remove_all(rows);
    else
        rows = g_hash_table_new(g_direct_hash, g_direct_equal);
    if (table != NULL) {
        if (ui->stat_tap_reset_table_cb != NULL)
            ui->stat_tap_reset_table_cb(table);
        return;
    }
    table = stat_tap_init_table(table_name, N_COLS, 0, NULL);
    stat_tap_add_table(ui, table);
}

static void
set_uint(stat_tap_table_item_type *items, int col, uint64_t v)
{
    items[col].type = TABLE_ITEM_UINT;
    items[col].value.uint_value = (guint)v;
}

static void
set_float(stat_tap_table_item_type *items, int col, double v)
{
    items[col].type = TABLE_ITEM_FLOAT;
    items[col].value.float_value = v;
}

static void
set_string(stat_tap_table_item_type *items, int col, const char *s)
{
    items[col].type = TABLE_ITEM_STRING;
    items[col].value.string_value = g_strdup(s);
}

static void
fill_row(stat_tap_table_item_type *items, const struct rs_conv_stats *st)
{
    char ep[64];

    set_uint(items, COL_CONV, st->id);
    rs_stats_endpoint_name(st, true, ep, sizeof(ep));
    set_string(items, COL_REQUESTER, ep);
    rs_stats_endpoint_name(st, false, ep, sizeof(ep));
    set_string(items, COL_RESPONDER, ep);
    set_string(items, COL_PAIRING, rs_stats_pairing_name(st));
    set_uint(items, COL_REQ_PKTS, st->req_packets);
    set_float(items, COL_REQ_BYTES, (double)st->req_bytes);
    set_uint(items, COL_RSP_PKTS, st->resp_packets);
    set_float(items, COL_RSP_BYTES, (double)st->resp_bytes);
    set_uint(items, COL_SEND, st->msgs_send);
    set_uint(items, COL_WRITE, st->msgs_write);
    set_uint(items, COL_READ, st->msgs_read);
    set_uint(items, COL_ATOMIC, st->msgs_atomic);
    set_uint(items, COL_RETX, st->retransmissions);
    set_uint(items, COL_GAPS, st->psn_gaps);
    for (int i = 0; i < 5; i++)
        set_uint(items, COL_NAK_SEQ + i, st->naks[i]);
    set_uint(items, COL_RNR, st->rnr_naks);
    set_uint(items, COL_CNP, st->cnps);
    set_uint(items, COL_ECN, st->ecn_ce);
    set_uint(items, COL_VIOL, st->violations);
    bool reads = st->read_count > 0;
    set_float(items, COL_RD_MIN, reads ? st->read_min_ns / 1000.0 : 0);
    set_float(items, COL_RD_AVG, reads ? st->read_sum_ns / 1000.0 / (double)st->read_count : 0);
    set_float(items, COL_RD_P99, reads ? st->read_p99_ns / 1000.0 : 0);
    set_float(items, COL_RD_MAX, reads ? st->read_max_ns / 1000.0 : 0);
}

static void
free_strings(stat_tap_table *table, guint row)
{
    for (int col = COL_REQUESTER; col <= COL_PAIRING; col++) {
        stat_tap_table_item_type *it = stat_tap_get_field_data(table, row, (guint)col);
        g_free((char *)it->value.string_value);
        it->value.string_value = NULL;
    }
}

static tap_packet_status
qp_packet(void *tapdata, packet_info *pinfo _U_, epan_dissect_t *edt _U_, const void *data,
          tap_flags_t flags _U_)
{
    stat_data_t *sd = tapdata;
    const struct rs_facts *f = data;
    const struct rs_analyzer *an = roceshark_analyzer();
    struct rs_conv_stats st;
    stat_tap_table_item_type items[N_COLS];

    if (an == NULL || !rs_analyzer_conv_stats(an, f->conv, &st))
        return TAP_PACKET_DONT_REDRAW;
    stat_tap_table *table = g_array_index(sd->stat_tap_data->tables, stat_tap_table *, 0);
    memset(items, 0, sizeof(items));
    fill_row(items, &st);
    guint row = GPOINTER_TO_UINT(g_hash_table_lookup(rows, GUINT_TO_POINTER(f->conv)));
    if (row == 0) {
        row = table->num_elements + 1;
        g_hash_table_insert(rows, GUINT_TO_POINTER(f->conv), GUINT_TO_POINTER(row));
    } else {
        free_strings(table, row - 1);
    }
    stat_tap_init_table_row(table, row - 1, N_COLS, items);
    return TAP_PACKET_REDRAW;
}

static void
qp_reset(stat_tap_table *table)
{
    for (guint r = 0; r < table->num_elements; r++)
        free_strings(table, r);
    if (rows != NULL)
        g_hash_table_remove_all(rows);
}

static void
qp_free_item(stat_tap_table *table _U_, guint row _U_, guint column,
             stat_tap_table_item_type *field)
{
    if (column >= COL_REQUESTER && column <= COL_PAIRING) {
        g_free((char *)field->value.string_value);
        field->value.string_value = NULL;
    }
}

void
roceshark_register_qp_table(void)
{
    static tap_param params[] = {{PARAM_FILTER, "filter", "Filter", NULL, TRUE}};
    static stat_tap_table_ui ui = {
        REGISTER_STAT_GROUP_GENERIC,
        table_name,
        "roceshark",
        "roceshark,qp",
        qp_init,
        qp_packet,
        qp_reset,
        qp_free_item,
        NULL,
        N_COLS,
        columns,
        G_N_ELEMENTS(params),
        params,
        NULL,
        0,
    };

    register_stat_tap_table_ui(&ui);
}
