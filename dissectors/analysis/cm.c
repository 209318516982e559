/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm.c - pairing QPs from the InfiniBand Communication Manager (IBTA Vol 1,
 * chapter 12), whose MADs travel as UD SENDs to QP 1 (also over RoCE).
 *
 * The MAD layout is the CM's table (dissectors/ib/ib_cm.c). A REP answers
 * the REQ whose local communication ID it names as its remote one: the
 * REQ's sender and QP and the REP's sender and QP are the two ends.
 */
#include <roceshark/dissectors/cm_mad.h>

#include "analyzer_int.h"

#define CM_PENDING_MAX RS_ANALYSIS_CM_REQS_KEPT  /* a full table drops them all */

struct cm_req {
    struct rs_addr addr;
    uint32_t qpn;
};

void
cm_process(struct rs_analyzer *an, const struct rs_packet *pkt, const struct stream_key *key)
{
    struct rs_cm_mad_hdr hdr;
    const struct rs_cm_layout *l;

    if (!rs_packet_has(pkt, RS_LAYER_PAYLOAD))
        return;
    const uint8_t *mad = rs_packet_at(pkt, RS_LAYER_PAYLOAD);
    if (rs_cm_parse(mad, pkt->span[RS_LAYER_PAYLOAD].len, &hdr, &l) != RS_CM_OK)
        return;
    const uint8_t *msg = mad + RS_CM_MAD_HDR_LEN;
    uint32_t local_id = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_COMM_ID);

    if (an->cm_reqs == NULL)
        an->cm_reqs = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    if (hdr.attr_id == RS_CM_REQ) {
        if (g_hash_table_size(an->cm_reqs) >= CM_PENDING_MAX) {
            /* Their QPs are then paired by PSN inference, as without a CM. */
            an->cm_reqs_dropped += g_hash_table_size(an->cm_reqs);
            g_hash_table_remove_all(an->cm_reqs);
        }
        struct cm_req *r = g_new(struct cm_req, 1);
        r->addr = key->src;
        r->qpn = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_QPN);
        g_hash_table_insert(an->cm_reqs, GUINT_TO_POINTER(local_id), r);
        /* The active side's QP starts a new life: what it did before is over. */
        struct endpoint ep;
        endpoint_make(&ep, &r->addr, r->qpn);
        lifetime_setup(an, &ep, NULL);
    } else if (hdr.attr_id == RS_CM_REP) {
        uint32_t remote_id = (uint32_t)rs_cm_get(l, msg, RS_CMF_REMOTE_COMM_ID);
        struct cm_req *r = g_hash_table_lookup(an->cm_reqs, GUINT_TO_POINTER(remote_id));
        if (r == NULL)
            return;
        uint32_t qpn = (uint32_t)rs_cm_get(l, msg, RS_CMF_LOCAL_QPN);
        struct endpoint a, b;
        endpoint_make(&a, &r->addr, r->qpn);
        endpoint_make(&b, &key->src, qpn);
        lifetime_setup(an, &b, &a);
        lifetime_setup(an, &a, &b);
        conv_pair_cm(an, &r->addr, r->qpn, &key->src, qpn, pkt->frame->number);
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
    struct endpoint ea, eb;
    endpoint_make(&ea, &x, qpn_a & 0xffffff);
    endpoint_make(&eb, &y, qpn_b & 0xffffff);
    lifetime_setup(an, &ea, &eb);
    lifetime_setup(an, &eb, &ea);
    conv_pair_cm(an, &x, qpn_a & 0xffffff, &y, qpn_b & 0xffffff, 0);
}
