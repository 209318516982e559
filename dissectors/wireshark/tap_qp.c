/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tap_qp.c - "RDMA QP Conversations": the numbers of `roceshark read -z
 * conv,qp` as a statistics table, in Wireshark's Statistics menu and as
 * `tshark -z roceshark,qp[,FILTER]`.
 *
 * Each tapped frame adds its facts to its conversation's row, counted as the
 * analyzer counts them (rs_conv_tally_add): with a filter, the counts are
 * those of the frames it takes. Who the row is between comes from the
 * analyzer, which knows a conversation's QPs once both sides have spoken.
 */
#include <string.h>

#include <epan/packet.h>
#include <epan/stat_tap_ui.h>
#include <epan/tap.h>

#include <roceshark/dissectors/stats.h>

#include "ws_plugin.h"

enum {
    COL_CONV, COL_REQUESTER, COL_RESPONDER, COL_PAIRING, COL_REQ_PKTS, COL_REQ_BYTES,
    COL_RSP_PKTS, COL_RSP_BYTES, COL_SEND, COL_WRITE, COL_READ, COL_ATOMIC, COL_RETX,
    COL_GAPS, COL_NAK_SEQ, COL_NAK_INV, COL_NAK_ACC, COL_NAK_OP, COL_NAK_RD, COL_RNR, COL_CNP,
    COL_ECN, COL_VIOL, COL_RD_MIN, COL_RD_AVG, COL_RD_P99, COL_RD_MAX, N_COLS
};

#define U(name) {TABLE_ITEM_UINT, TAP_ALIGN_RIGHT, name, "%u"}
/* READ times are text: "-" where there was no READ, which a number column
 * cannot hold (tshark prints every item of a column as the column's type). */
#define T(name) {TABLE_ITEM_STRING, TAP_ALIGN_RIGHT, name, "%s"}
#define S(name) {TABLE_ITEM_STRING, TAP_ALIGN_LEFT, name, "%s"}

static stat_tap_table_item columns[N_COLS] = {
    U("Conv"), S("Requester:QP"), S("Responder:QP"), S("Pairing"), U("ReqPkts"), U("ReqBytes"),
    U("RspPkts"), U("RspBytes"), U("SEND"), U("WRITE"), U("READ"), U("ATOMIC"), U("Retx"),
    U("Gaps"), U("NakSeq"), U("NakInv"), U("NakAcc"), U("NakOp"), U("NakRD"), U("RNR"), U("CNP"),
    U("ECN-CE"), U("Viol"), T("RdMin_us"), T("RdAvg_us"), T("RdP99_us"), T("RdMax_us"),
};

/* The menu item (Statistics > RDMA QP Conversations) and the table's title.
 * Not Statistics > RDMA > QP Conversations: Wireshark's Qt menus make
 * submenus of a '/' only for stats_tree statistics, and show this one's
 * title whole, slash and all (4.0). */
static const char table_name[] = "RDMA QP Conversations";

/* One row: its place in the table and the counts of the frames the tap gave
 * it, that is those the table's filter takes. */
struct qp_row {
    guint row;
    struct rs_conv_tally tally;
};

/* Conversation id -> struct qp_row, for the table being filled. One table at
 * a time: a second window of the statistic starts it afresh. */
static GHashTable *rows;

static void
row_free(gpointer p)
{
    struct qp_row *r = p;

    rs_conv_tally_clear(&r->tally);
    g_free(r);
}

/* Empties the table: its rows go, not only their values, so that the next
 * pass numbers them from 0 again (Apply in the dialog retaps from scratch). */
static void
clear_rows(stat_tap_table *table)
{
    if (rows != NULL)
        g_hash_table_remove_all(rows);
    if (table == NULL)
        return;
    for (guint r = 0; r < table->num_elements; r++) {
        for (guint col = 0; col < table->num_fields; col++) {
            stat_tap_table_item_type *it = &table->elements[r][col];
            if (it->type == TABLE_ITEM_STRING)
                g_free((char *)it->value.string_value);
        }
        g_free(table->elements[r]);     /* stat_tap_init_table_row's g_new0 */
    }
    g_free(table->elements);
    table->elements = NULL;
    table->num_elements = 0;
}

static void
qp_init(stat_tap_table_ui *ui)
{
    stat_tap_table *table = stat_tap_find_table(ui, table_name);

    if (rows == NULL)
        rows = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, row_free);
    if (table != NULL) {
        clear_rows(table);
        return;
    }
    g_hash_table_remove_all(rows);
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
set_string(stat_tap_table_item_type *items, int col, const char *s)
{
    items[col].type = TABLE_ITEM_STRING;
    items[col].value.string_value = g_strdup(s);
}

/* A count as an integer. The SDK's items hold 32 bits: a count past that
 * (over 4 GiB of one stream's bytes) shows as 4294967295 (docs/limits.md). */
static void
set_count(stat_tap_table_item_type *items, int col, uint64_t v)
{
    set_uint(items, col, v <= G_MAXUINT ? v : G_MAXUINT);
}

/* A READ time in microseconds, as -z conv,qp prints it; "-" without a READ. */
static void
set_us(stat_tap_table_item_type *items, int col, bool reads, double ns)
{
    char text[32];

    if (reads)
        g_snprintf(text, sizeof(text), "%.1f", ns / 1000.0);
    set_string(items, col, reads ? text : "-");
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
    const uint64_t counts[] = {
        st->req_packets, st->req_bytes, st->resp_packets, st->resp_bytes, st->msgs_send,
        st->msgs_write, st->msgs_read, st->msgs_atomic, st->retransmissions, st->psn_gaps,
        st->naks[0], st->naks[1], st->naks[2], st->naks[3], st->naks[4], st->rnr_naks,
        st->cnps, st->ecn_ce, st->violations,
    };
    for (int i = 0; i < (int)G_N_ELEMENTS(counts); i++)
        set_count(items, COL_REQ_PKTS + i, counts[i]);
    bool reads = st->read_count > 0;
    set_us(items, COL_RD_MIN, reads, (double)st->read_min_ns);
    set_us(items, COL_RD_AVG, reads,
           reads ? (double)st->read_sum_ns / (double)st->read_count : 0);
    set_us(items, COL_RD_P99, reads, (double)st->read_p99_ns);
    set_us(items, COL_RD_MAX, reads, (double)st->read_max_ns);
}

static void
free_strings(stat_tap_table *table, guint row)
{
    for (guint col = 0; col < table->num_fields; col++) {
        stat_tap_table_item_type *it = stat_tap_get_field_data(table, row, col);
        if (it->type == TABLE_ITEM_STRING) {
            g_free((char *)it->value.string_value);
            it->value.string_value = NULL;
        }
    }
}

/* Each frame the table's filter takes adds to its conversation's row: the
 * counts are those of the matching frames, as Conversations' "Limit to
 * display filter" counts (without a filter, every frame: -z conv,qp). */
static tap_packet_status
qp_packet(void *tapdata, packet_info *pinfo _U_, epan_dissect_t *edt _U_, const void *data,
          tap_flags_t flags _U_)
{
    stat_data_t *sd = tapdata;
    const struct roceshark_tap_frame *tf = data;
    const struct rs_analyzer *an = roceshark_analyzer();
    struct rs_conv_stats st;
    stat_tap_table_item_type items[N_COLS];

    if (an == NULL)
        return TAP_PACKET_DONT_REDRAW;
    stat_tap_table *table = g_array_index(sd->stat_tap_data->tables, stat_tap_table *, 0);
    struct qp_row *r = g_hash_table_lookup(rows, GUINT_TO_POINTER(tf->facts.conv));
    bool fresh = r == NULL;
    if (fresh) {
        r = g_new0(struct qp_row, 1);
        r->row = table->num_elements;
        g_hash_table_insert(rows, GUINT_TO_POINTER(tf->facts.conv), r);
    }
    rs_conv_tally_add(&r->tally, &tf->facts, tf->opcode, tf->wire_len, tf->when);
    memset(&st, 0, sizeof(st));
    if (!rs_analyzer_conv_identity(an, tf->facts.conv, &st))
        st.id = tf->facts.conv;
    rs_conv_tally_stats(&r->tally, &st);
    memset(items, 0, sizeof(items));
    fill_row(items, &st);
    if (!fresh)
        free_strings(table, r->row);
    stat_tap_init_table_row(table, r->row, N_COLS, items);
    return TAP_PACKET_REDRAW;
}

static void
qp_reset(stat_tap_table *table)
{
    clear_rows(table);
}

static void
qp_free_item(stat_tap_table *table _U_, guint row _U_, guint column _U_,
             stat_tap_table_item_type *field)
{
    if (field->type == TABLE_ITEM_STRING) {
        g_free((char *)field->value.string_value);
        field->value.string_value = NULL;
    }
}

void
roceshark_register_qp_table(void)
{
    static tap_param params[] = {{PARAM_FILTER, "filter", "Filter", NULL, TRUE}};
    static stat_tap_table_ui ui = {
        REGISTER_PACKET_STAT_GROUP_UNSORTED,
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
