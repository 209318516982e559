/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm.c - pairing QPs from the InfiniBand Communication Manager (IBTA Vol 1,
 * chapter 12), whose MADs travel as UD SENDs to QP 1 (also over RoCE).
 *
 * MAD header (24 bytes): base version, management class (7: CM), class
 * version, method, status, class specific, transaction id, attribute id
 * (REQ 0x0010, REP 0x0013), reserved, attribute modifier. Then:
 *   REQ: local communication id (4) ... local QPN at byte 32 (24 bits)
 *   REP: local communication id (4), remote communication id (4),
 *        local Q_Key (4), local QPN at byte 12 (24 bits)
 * A REP answers the REQ whose local id it names as remote id: the REQ's
 * sender and QP and the REP's sender and QP are the two ends.
 */
#include "analyzer_int.h"

#define MAD_HDR_LEN 24
#define MAD_CLASS_CM 0x07
#define CM_ATTR_REQ 0x0010
#define CM_ATTR_REP 0x0013
#define CM_REQ_QPN_OFF 32
#define CM_REP_QPN_OFF 12
#define CM_PENDING_MAX 4096     /* REQs awaiting a REP; older ones are dropped */

struct cm_req {
    struct rs_addr addr;
    uint32_t qpn;
};

void
cm_process(struct rs_analyzer *an, const struct rs_packet *pkt, const struct stream_key *key)
{
    if (!rs_packet_has(pkt, RS_LAYER_PAYLOAD) ||
        pkt->span[RS_LAYER_PAYLOAD].len < MAD_HDR_LEN + CM_REQ_QPN_OFF + 3)
        return;
    const uint8_t *mad = rs_packet_at(pkt, RS_LAYER_PAYLOAD);
    const uint8_t *cm = mad + MAD_HDR_LEN;
    if (mad[0] != 1 || mad[1] != MAD_CLASS_CM)
        return;
    uint16_t attr = rs_load_be16(mad + 16);
    uint32_t local_id = rs_load_be32(cm);

    if (an->cm_reqs == NULL)
        an->cm_reqs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    if (attr == CM_ATTR_REQ) {
        if (g_hash_table_size(an->cm_reqs) >= CM_PENDING_MAX)
            g_hash_table_remove_all(an->cm_reqs);
        struct cm_req *r = g_new(struct cm_req, 1);
        r->addr = key->src;
        r->qpn = rs_load_be24(cm + CM_REQ_QPN_OFF);
        g_hash_table_insert(an->cm_reqs, GUINT_TO_POINTER(local_id), r);
    } else if (attr == CM_ATTR_REP) {
        uint32_t remote_id = rs_load_be32(cm + 4);
        struct cm_req *r = g_hash_table_lookup(an->cm_reqs, GUINT_TO_POINTER(remote_id));
        if (r == NULL)
            return;
        conv_pair_cm(an, &r->addr, r->qpn, &key->src, rs_load_be24(cm + CM_REP_QPN_OFF),
                     pkt->frame->number);
        g_hash_table_remove(an->cm_reqs, GUINT_TO_POINTER(remote_id));
    }
}

void
rs_analyzer_pair(struct rs_analyzer *an, uint8_t family, const uint8_t *a, uint32_t qpn_a,
                 const uint8_t *b, uint32_t qpn_b)
{
    struct rs_addr x, y;
    size_t n = family == 6 ? 16 : 4;

    memset(&x, 0, sizeof(x));
    memset(&y, 0, sizeof(y));
    x.family = y.family = family == 6 ? 6 : 4;
    memcpy(x.bytes, a, n);
    memcpy(y.bytes, b, n);
    conv_pair_cm(an, &x, qpn_a & 0xffffff, &y, qpn_b & 0xffffff, 0);
}
