/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tap_conv.c - RDMA queue pairs where Wireshark lists TCP's streams: a tab of
 * Statistics > Conversations (and `tshark -z conv,roceshark`), with the QP
 * numbers where TCP has its ports, and an "RDMA QP" entry in Conversation
 * Filter that selects one conversation's frames.
 *
 * A row is a conversation of the analysis: its requests from Requester to
 * Responder's QP and its responses back (A is the requester). CNPs are
 * notifications to a QP, not its traffic: -z conv,qp counts them apart, and
 * they are left out here.
 */
#include <epan/packet.h>
/* Not self-contained: they need glib and packet_info first. */
#include <epan/conversation_filter.h>
#include <epan/conversation_table.h>

#include "ws_compat.h"
#include "ws_plugin.h"

/* Filters for the table's "Apply as Filter" on an address: the IP of the
 * conversation's family. QP numbers have no field of their own in every
 * frame (a request names only the responder's), so a port has none. */
static const char *
filter_type(conv_item_t *item, conv_filter_type_e type)
{
    bool v6 = item->src_address.type == AT_IPv6;

    if (item->src_address.type != AT_IPv4 && !v6)
        return CONV_FILTER_INVALID;
    switch (type) {
    case CONV_FT_SRC_ADDRESS: return v6 ? "ipv6.src" : "ip.src";
    case CONV_FT_DST_ADDRESS: return v6 ? "ipv6.dst" : "ip.dst";
    case CONV_FT_ANY_ADDRESS: return v6 ? "ipv6.addr" : "ip.addr";
    default: return CONV_FILTER_INVALID;
    }
}

static ct_dissector_info_t ct_info = {&filter_type};

/* An endpoint of the conversation as a Wireshark address. */
static void
endpoint_address(address *a, const struct rs_conv_stats *st, bool requester)
{
    const uint8_t *bytes = requester ? st->requester : st->responder;

    if (st->addr_family == 4)
        set_address(a, AT_IPv4, 4, bytes);
    else if (st->addr_family == 6)
        set_address(a, AT_IPv6, 16, bytes);
    else
        set_address(a, AT_IB, 2, bytes);    /* a LID */
}

/* An endpoint's QP number; 0 while the capture has not shown it. */
static guint32
endpoint_qp(const struct rs_conv_stats *st, bool requester)
{
    uint32_t qp = requester ? st->requester_qp : st->responder_qp;

    return qp <= 0xffffff ? qp : 0;
}

/* A conversation's row is found by its id and its two ends in their roles,
 * which the analysis fixes at the conversation's first frame: Wireshark's
 * key for it holds these "ports", not the QP numbers. A QP number is known
 * only once its side has been addressed (a requester's with the first
 * response), so a row keyed by QP numbers was split in two in a single pass
 * (tshark without -2), where a later frame finds the numbers its first did
 * not have. The QP numbers are written on the row after each frame instead,
 * as the analysis knows them by then: the whole capture's after the last. */
enum { ROLE_REQUESTER = 1, ROLE_RESPONDER = 2 };

/* The row of conversation id whose ends are req and resp, and whether its A
 * is the requester; NULL before its first frame. */
static conv_item_t *
find_row(conv_hash_t *hash, const address *req, const address *resp, guint32 id,
         bool *a_is_requester)
{
    conv_key_t key = {*req, *resp, ROLE_REQUESTER, ROLE_RESPONDER, id};
    gpointer idx;

    *a_is_requester = true;
    if (hash->hashtable == NULL)
        return NULL;
    if (!g_hash_table_lookup_extended(hash->hashtable, &key, NULL, &idx)) {
        key = (conv_key_t){*resp, *req, ROLE_RESPONDER, ROLE_REQUESTER, id};
        if (!g_hash_table_lookup_extended(hash->hashtable, &key, NULL, &idx))
            return NULL;
        *a_is_requester = false;
    }
    return &g_array_index(hash->conv_array, conv_item_t, GPOINTER_TO_UINT(idx));
}

static tap_packet_status
conv_packet(void *pct, packet_info *pinfo, epan_dissect_t *edt _U_, const void *data,
            tap_flags_t flags _U_)
{
    conv_hash_t *hash = pct;
    const struct roceshark_tap_frame *tf = data;
    const struct rs_analyzer *an = roceshark_analyzer();
    struct rs_conv_stats st;
    address req, resp;
    bool a_is_requester;

    if (an == NULL || (tf->facts.flags & RS_FACT_CNP_FOR) ||
        !rs_analyzer_conv_identity(an, tf->facts.conv, &st))
        return TAP_PACKET_DONT_REDRAW;
    hash->flags = flags;
    endpoint_address(&req, &st, true);
    endpoint_address(&resp, &st, false);
    bool response = (tf->facts.flags & RS_FACT_RESPONSE) != 0;
    add_conversation_table_data_with_conv_id(
        hash, response ? &resp : &req, response ? &req : &resp,
        response ? ROLE_RESPONDER : ROLE_REQUESTER, response ? ROLE_REQUESTER : ROLE_RESPONDER,
        tf->facts.conv, 1, (int)tf->wire_len, &pinfo->rel_ts, &pinfo->abs_ts, &ct_info,
        CONVERSATION_IBQP);
    conv_item_t *row = find_row(hash, &req, &resp, tf->facts.conv, &a_is_requester);
    if (row != NULL) {
        row->src_port = endpoint_qp(&st, a_is_requester);
        row->dst_port = endpoint_qp(&st, !a_is_requester);
    }
    return TAP_PACKET_REDRAW;
}

/* Conversation Filter > RDMA QP: the frames of the selected frame's conversation. */
static rs_ws_filter_valid
filter_valid(RS_WS_CONV_FILTER_PARAMS)
{
    const struct roceshark_tap_frame *tf = roceshark_frame_facts(pinfo);

    return tf != NULL && (tf->facts.flags & RS_FACT_CONV);
}

static char *
filter_build(RS_WS_CONV_FILTER_PARAMS)
{
    const struct roceshark_tap_frame *tf = roceshark_frame_facts(pinfo);

    if (tf == NULL || !(tf->facts.flags & RS_FACT_CONV))
        return NULL;
    return g_strdup_printf("roceshark.analysis.conv == %u", tf->facts.conv);
}

void
roceshark_register_conversations(void)
{
    register_conversation_table(proto_roceshark, FALSE, conv_packet, NULL);
    RS_WS_CONV_FILTER_REGISTER("roceshark", "RDMA QP", filter_valid, filter_build);
}
