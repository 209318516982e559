/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * analyzer.c - rs_analyzer_process(): one call per frame, in capture order.
 * Finds the conversation a packet belongs to and hands it to the request
 * or response stream; CNPs, CM MADs and ECN marks are handled on the way.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/ib_headers.h>

#include "analyzer_int.h"

#define UD_QP_CM 1
#define ECN_CE 3
#define DEFAULT_MAX_CONVS 65536

static const char *const violation_names[RS_VIOL_COUNT] = {
    [RS_VIOL_NONE] = "none",
    [RS_VIOL_ACK_PSN_BACKWARDS] = "ack_psn_backwards",
    [RS_VIOL_NAK_PSN_UNEXPECTED] = "nak_psn_unexpected",
    [RS_VIOL_MSN_BACKWARDS] = "msn_backwards",
    [RS_VIOL_READ_MIDDLE_AETH] = "read_middle_aeth",
    [RS_VIOL_READ_RESPONSE_COUNT] = "read_response_count",
    [RS_VIOL_READ_RESPONSE_LENGTH] = "read_response_length",
    [RS_VIOL_ACK_UNSENT_PSN] = "ack_unsent_psn",
    [RS_VIOL_SEGMENT_LENGTH] = "segment_length",
};

static const char *const nak_names[] = {
    "psn_seq_error", "invalid_request", "remote_access_error", "remote_operational_error",
    "invalid_rd_request",
};

const char *
rs_violation_name(uint8_t v)
{
    return v < RS_VIOL_COUNT ? violation_names[v] : "unknown";
}

const char *
rs_analysis_nak_name(uint8_t code)
{
    return code < RS_ARRAY_SIZE(nak_names) ? nak_names[code] : NULL;
}

int
rs_analysis_nak_code(const char *name)
{
    char *end;

    for (unsigned i = 0; i < RS_ARRAY_SIZE(nak_names); i++)
        if (strcmp(name, nak_names[i]) == 0)
            return (int)i;
    unsigned long n = strtoul(name, &end, 0);
    return *name != '\0' && *end == '\0' && n < 32 ? (int)n : -1;
}

void
rs_analysis_opts_init(struct rs_analysis_opts *opts)
{
    opts->pmtu = 0;
    opts->max_convs = DEFAULT_MAX_CONVS;
    opts->keep_evicted = true;
}

int
rs_analyzer_new(const struct rs_analysis_opts *opts, struct rs_analyzer **out, char *err)
{
    struct rs_analyzer *an = g_try_new0(struct rs_analyzer, 1);

    if (an == NULL)
        return rs_error(err, RS_ENOMEM, "analyzer: out of memory");
    an->opts = *opts;
    if (an->opts.max_convs == 0)
        an->opts.max_convs = DEFAULT_MAX_CONVS;
    conv_table_init(an);
    *out = an;
    return 0;
}

void
rs_analyzer_free(struct rs_analyzer *an)
{
    if (an == NULL)
        return;
    conv_table_free(an);
    lifetime_free(an);
    cm_free(an);
    g_free(an);
}

/* The key of the stream pkt travels on: source and destination from the
 * innermost addressing the IBA packet has (IP for RoCEv2, the GRH for RoCEv1
 * and routed IB, LIDs for local IB), written straight into the key. Returns
 * false when the packet has none. */
static bool
packet_key(const struct rs_packet *pkt, uint32_t qpn, bool response, struct stream_key *k)
{
    const uint8_t *p;
    unsigned src_off, dst_off, len;
    uint8_t family;

    /* The IP header of an IPoIB packet is inside the IBA packet: not its addressing. */
    bool ip = pkt->encap == RS_ENCAP_ROCEV2;

    if (ip && rs_packet_has(pkt, RS_LAYER_IPV4)) {
        p = rs_packet_at(pkt, RS_LAYER_IPV4);
        family = 4, src_off = 12, dst_off = 16, len = 4;
    } else if ((ip && rs_packet_has(pkt, RS_LAYER_IPV6)) || rs_packet_has(pkt, RS_LAYER_GRH)) {
        p = ip && rs_packet_has(pkt, RS_LAYER_IPV6) ? rs_packet_at(pkt, RS_LAYER_IPV6)
                                                    : rs_packet_at(pkt, RS_LAYER_GRH);
        family = 6, src_off = 8, dst_off = 24, len = 16;
    } else if (rs_packet_has(pkt, RS_LAYER_LRH)) {
        p = rs_packet_at(pkt, RS_LAYER_LRH);
        family = 1, src_off = 6, dst_off = 2, len = 2;
    } else {
        return false;
    }
    memset(k, 0, sizeof(*k));
    k->src.family = k->dst.family = family;
    /* Fixed-size copies: the compiler inlines them. */
    if (len == 4) {
        memcpy(k->src.bytes, p + src_off, 4);
        memcpy(k->dst.bytes, p + dst_off, 4);
    } else if (len == 16) {
        memcpy(k->src.bytes, p + src_off, 16);
        memcpy(k->dst.bytes, p + dst_off, 16);
    } else {
        memcpy(k->src.bytes, p + src_off, 2);
        memcpy(k->dst.bytes, p + dst_off, 2);
    }
    k->qpn = qpn;
    k->response = response;
    return true;
}

static bool
is_connected_service(uint8_t opcode)
{
    enum rs_ib_transport t = rs_ib_opcode_transport(opcode);

    return t == RS_IB_RC || t == RS_IB_UC || t == RS_IB_XRC;
}

void
rs_analyzer_prepare(const struct rs_packet *pkt, struct rs_analysis_prep *prep)
{
    struct stream_key key;
    struct key_hashes h;

    G_STATIC_ASSERT(sizeof(key) <= sizeof(prep->key));
    prep->ready = false;
    /* What process() looks up with conv_for_request() or conv_for_response(). */
    if (!rs_packet_has(pkt, RS_LAYER_BTH) || !is_connected_service(pkt->opcode) ||
        (pkt->flags & RS_PKT_MALFORMED))
        return;
    const struct rs_ib_opcode *info = rs_ib_opcode_info(pkt->opcode);
    if (info->name == NULL || info->op == RS_OP_CNP ||
        !packet_key(pkt, rs_bth_destqp(rs_packet_at(pkt, RS_LAYER_BTH)),
                    rs_ib_op_is_response(info->op), &key))
        return;
    conv_key_hashes(&key, &h);
    memcpy(prep->key, &key, sizeof(key));
    prep->stream_hash = h.stream;
    prep->host_hash = h.host;
    prep->peer_hash = h.peer;
    prep->ready = true;
}

static void
process(struct rs_analyzer *an, struct rs_packet *pkt, const struct rs_analysis_prep *prep,
        struct rs_facts *f);

void
rs_analyzer_process(struct rs_analyzer *an, struct rs_packet *pkt, struct rs_facts *f)
{
    process(an, pkt, NULL, f);
}

void
rs_analyzer_process_prepared(struct rs_analyzer *an, struct rs_packet *pkt,
                             const struct rs_analysis_prep *prep, struct rs_facts *f)
{
    process(an, pkt, prep != NULL && prep->ready ? prep : NULL, f);
}

/* rs_analyzer_process(), with the packet's key and hashes from prep when given. */
static void
process(struct rs_analyzer *an, struct rs_packet *pkt, const struct rs_analysis_prep *prep,
        struct rs_facts *f)
{
    struct stream_key key;
    struct key_hashes h, *hashes = NULL;

    /* Every other member is read only under its flag: no need to clear it. */
    f->flags = 0;
    pkt->facts = f;
    if (!rs_packet_has(pkt, RS_LAYER_BTH)) {
        if (rs_packet_has(pkt, RS_LAYER_TCP))
            lifetime_tcp(an, pkt);      /* perftest's and ibv_rc_pingpong's setup */
        return;
    }
    const uint8_t *bth = rs_packet_at(pkt, RS_LAYER_BTH);
    const struct rs_ib_opcode *info = rs_ib_opcode_info(pkt->opcode);
    bool ce = pkt->encap == RS_ENCAP_ROCEV2 && pkt->ecn == ECN_CE && pkt->opcode != 0x81;
    bool response = rs_ib_op_is_response(info->op);

    if (prep != NULL) {
        memcpy(&key, prep->key, sizeof(key));
        h = (struct key_hashes){prep->stream_hash, prep->host_hash, prep->peer_hash};
        hashes = &h;
    } else if (!packet_key(pkt, rs_bth_destqp(bth), response, &key)) {
        return;
    }
    if (ce)
        f->flags |= RS_FACT_ECN_CE;
    if (info->op == RS_OP_CNP) {
        struct conv *c = congestion_cnp(an, pkt, &key, f);
        if (c != NULL)
            conv_count(&c->stats, &c->lat, f, pkt->opcode, rs_packet_wire_len(pkt),
                       frame_time(pkt));
        return;
    }
    if (rs_ib_opcode_transport(pkt->opcode) == RS_IB_UD && key.qpn == UD_QP_CM) {
        cm_process(an, pkt, &key);
        return;
    }
    if (!is_connected_service(pkt->opcode) || info->name == NULL ||
        (pkt->flags & RS_PKT_MALFORMED))
        return;
    uint32_t psn = rs_bth_psn(bth);
    uint64_t frame = pkt->frame->number;
    struct conv *c = response ? conv_for_response(an, &key, hashes, psn, frame)
                              : conv_for_request(an, &key, hashes, psn, frame);
    struct rs_time now = frame_time(pkt);
    if (lifetime_may_end(c, response, now))
        c = lifetime_check(an, c, &key, psn, response, info, frame);
    if (c->reuse_note) {
        c->reuse_note = 0;
        f->flags |= RS_FACT_QP_REUSED;
        f->qp_reused = c->reused_from;
    }
    if (!c->psn_base_set) {
        c->psn_base = psn;
        c->psn_base_set = 1;
    }
    f->flags |= RS_FACT_CONV | RS_FACT_PSN_REL;
    f->conv = c->stats.id;
    f->psn_rel = (psn - c->psn_base) & PSN_MASK;
    if (response)
        response_process(an, c, pkt, f);
    else
        request_process(an, c, pkt, f);
    if (ce)
        congestion_mark(an, c, response, now);
    conv_count(&c->stats, &c->lat, f, pkt->opcode, rs_packet_wire_len(pkt), now);
    conv_touch(an, c, frame);
}
