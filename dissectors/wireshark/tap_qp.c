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

/* The columns are those of -z conv,qp (rs_conv_qp_columns), filled in at registration.
 * Counts are numbers; READ times are text: "-" where there was no READ, which a number
 * column cannot hold (tshark prints every item of a column as the column's type). */
#define N_COLS RS_CONV_QP_COLUMNS
static stat_tap_table_item columns[N_COLS];

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

/* One open table: a Statistics window, or one -z roceshark,qp[,FILTER] of
 * tshark. Wireshark gives every table of a statistic the one registered
 * stat_tap_table_ui and its tables, which the GUI fills one window at a time;
 * tshark fills all of its -z tables in the same run, with one listener each.
 * So the first listener to see a frame fills the registered table, and each
 * other gets a copy of its own: its listener's data is pointed at the copy,
 * which tshark prints it from (else two filters' tables printed the sum of
 * both, twice). */
struct qp_instance {
    stat_tap_table_ui *ui;      /* the registered one, or &own */
    stat_tap_table_ui own;
    GHashTable *rows;           /* conversation id -> struct qp_row */
};

/* stat_data_t * (a listener's data) -> struct qp_instance; emptied when a
 * statistic starts, as no listener of a table started before is still fed
 * (tshark starts them all before the first frame, the GUI one per fill). */
static GHashTable *instances;

static void
row_free(gpointer p)
{
    struct qp_row *r = p;

    rs_conv_tally_clear(&r->tally);
    g_free(r);
}

static stat_tap_table *
instance_table(const struct qp_instance *in)
{
    return g_array_index(in->ui->tables, stat_tap_table *, 0);
}

/* Empties a table: its rows go, not only their values, so that the next
 * pass numbers them from 0 again (Apply in the dialog retaps from scratch). */
static void
clear_rows(stat_tap_table *table)
{
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
instance_free(gpointer p)
{
    struct qp_instance *in = p;

    g_hash_table_destroy(in->rows);
    if (in->ui == &in->own) {
        stat_tap_table *table = instance_table(in);
        clear_rows(table);
        g_free(table);
        g_array_free(in->own.tables, TRUE);
    }
    g_free(in);
}

/* The table that listener data sd fills, made at its first frame. */
static struct qp_instance *
instance_of(stat_data_t *sd)
{
    struct qp_instance *in = g_hash_table_lookup(instances, sd);

    if (in != NULL)
        return in;
    in = g_new0(struct qp_instance, 1);
    in->rows = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, row_free);
    in->ui = sd->stat_tap_data;
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, instances);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        if (((struct qp_instance *)v)->ui != in->ui)
            continue;
        /* The registered table is another listener's: a copy of its own. */
        in->own = *sd->stat_tap_data;
        in->own.tables = NULL;
        stat_tap_add_table(&in->own, stat_tap_init_table(table_name, N_COLS, 0, NULL));
        in->ui = &in->own;
        sd->stat_tap_data = &in->own;
        break;
    }
    g_hash_table_insert(instances, sd, in);
    return in;
}

static void
qp_init(stat_tap_table_ui *ui)
{
    stat_tap_table *table = stat_tap_find_table(ui, table_name);

    if (instances == NULL)
        instances = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, instance_free);
    g_hash_table_remove_all(instances);
    if (table != NULL)
        clear_rows(table);
    else
        stat_tap_add_table(ui, stat_tap_init_table(table_name, N_COLS, 0, NULL));
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

/* A READ time in microseconds, as -z conv,qp prints it; "-" without a READ (ns < 0). */
static void
set_us(stat_tap_table_item_type *items, int col, double ns)
{
    char text[32];

    if (ns >= 0)
        g_snprintf(text, sizeof(text), "%.1f", ns / 1000.0);
    set_string(items, col, ns >= 0 ? text : "-");
}

static void
fill_row(stat_tap_table_item_type *items, const struct rs_conv_stats *st)
{
    char text[64];

    for (int i = 0; i < N_COLS; i++) {
        enum rs_conv_col col = rs_conv_qp_columns[i];
        switch (rs_conv_columns[col].kind) {
        case RS_CONV_KIND_ID:
            set_uint(items, i, st->id);
            break;
        case RS_CONV_KIND_COUNT:
            set_count(items, i, rs_conv_col_count(st, col));
            break;
        case RS_CONV_KIND_ENDPOINT:
            rs_stats_endpoint_name(st, col == RS_CONV_COL_REQUESTER, text, sizeof(text));
            set_string(items, i, text);
            break;
        case RS_CONV_KIND_PAIRING:
            set_string(items, i, rs_stats_pairing_name(st));
            break;
        case RS_CONV_KIND_USEC:
            set_us(items, i, rs_conv_col_read_ns(st, col));
            break;
        }
    }
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
    struct qp_instance *in = instance_of(sd);
    stat_tap_table *table = instance_table(in);
    struct qp_row *r = g_hash_table_lookup(in->rows, GUINT_TO_POINTER(tf->facts.conv));
    bool fresh = r == NULL;
    if (fresh) {
        r = g_new0(struct qp_row, 1);
        r->row = table->num_elements;
        g_hash_table_insert(in->rows, GUINT_TO_POINTER(tf->facts.conv), r);
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

/* Apply in the GUI: the table and the rows of the listener that fills it. */
static void
qp_reset(stat_tap_table *table)
{
    GHashTableIter it;
    gpointer k, v;

    if (instances != NULL) {
        g_hash_table_iter_init(&it, instances);
        while (g_hash_table_iter_next(&it, &k, &v))
            if (instance_table(v) == table)
                g_hash_table_remove_all(((struct qp_instance *)v)->rows);
    }
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

/* The table's columns, from rs_conv_columns: counts as numbers, the rest as text. */
static void
make_columns(void)
{
    for (int i = 0; i < N_COLS; i++) {
        const struct rs_conv_column *c = &rs_conv_columns[rs_conv_qp_columns[i]];
        bool number = c->kind == RS_CONV_KIND_ID || c->kind == RS_CONV_KIND_COUNT;
        bool left = c->kind == RS_CONV_KIND_ENDPOINT || c->kind == RS_CONV_KIND_PAIRING;
        columns[i] = (stat_tap_table_item){number ? TABLE_ITEM_UINT : TABLE_ITEM_STRING,
                                           left ? TAP_ALIGN_LEFT : TAP_ALIGN_RIGHT, c->name,
                                           number ? "%u" : "%s"};
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

    make_columns();
    register_stat_tap_table_ui(&ui);
}
