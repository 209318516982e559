/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_trace.c - one conversation out of a capture: its two streams,
 * with what the replay rewrites and what the comparison reads of each
 * packet.
 *
 * The conversation's id is the one -z conv,qp shows, which the analysis
 * hands out as conversations appear, so a pass through the pipeline keeps
 * the frames of --conv N as it goes. --qp takes a first pass to find the
 * id: a file read twice costs far less than keeping every packet of a big
 * capture in memory.
 */
#include <string.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/print.h>
#include <roceshark/replay/replay.h>
#include <roceshark/dissectors/stats.h>
#include <roceshark/dissectors/wire.h>

void
rs_replay_frame_of(const struct rs_packet *pkt, uint32_t off, struct rs_replay_frame *out)
{
    memset(out, 0, sizeof(*out));
    out->number = pkt->frame->number;
    out->ts = rs_frame_time(pkt->frame);
    out->off = off;
    out->len = pkt->frame->caplen;
    out->malformed = (pkt->flags & RS_PKT_MALFORMED) != 0;
    out->encap = pkt->encap;
    static const enum rs_layer l3[] = {RS_LAYER_IPV4, RS_LAYER_IPV6, RS_LAYER_LRH, RS_LAYER_GRH};
    for (size_t i = 0; i < RS_ARRAY_SIZE(l3); i++)
        if (rs_packet_has(pkt, l3[i])) {
            out->l3 = pkt->span[l3[i]].off;
            break;
        }
    if (rs_packet_has(pkt, RS_LAYER_UDP))
        out->sport = rs_load_be16(rs_packet_at(pkt, RS_LAYER_UDP));
    if (!rs_packet_has(pkt, RS_LAYER_BTH))
        return;
    const uint8_t *bth = rs_packet_at(pkt, RS_LAYER_BTH);
    out->opcode = pkt->opcode;
    out->destqp = rs_bth_destqp(bth);
    out->psn = rs_bth_psn(bth);
    if (rs_packet_has(pkt, RS_LAYER_AETH)) {
        const uint8_t *aeth = rs_packet_at(pkt, RS_LAYER_AETH);
        out->has_aeth = true;
        out->syndrome = rs_aeth_syndrome(aeth);
        out->msn = rs_aeth_msn(aeth);
    }
    enum rs_layer ext = rs_packet_has(pkt, RS_LAYER_RETH) ? RS_LAYER_RETH : RS_LAYER_ATOMICETH;
    if (rs_packet_has(pkt, ext)) {
        const uint8_t *h = rs_packet_at(pkt, ext);
        out->has_reth = true;
        /* The VA and R_Key begin a RETH and an AtomicETH alike. */
        out->va = rs_reth_va(h);
        out->rkey = rs_reth_rkey(h);
        if (ext == RS_LAYER_RETH) {
            out->dmalen = rs_reth_dmalen(h);
        } else {
            out->swap_add = rs_atomiceth_swap(h);
            out->compare = rs_atomiceth_compare(h);
        }
    }
    enum rs_layer imm = rs_packet_has(pkt, RS_LAYER_IMMDT) ? RS_LAYER_IMMDT : RS_LAYER_IETH;
    if (rs_packet_has(pkt, imm)) {
        out->has_imm = imm == RS_LAYER_IMMDT;
        out->has_ieth = imm == RS_LAYER_IETH;
        out->imm = rs_load_be32(rs_packet_at(pkt, imm));
    }
    if (rs_packet_has(pkt, RS_LAYER_ATOMICACKETH)) {
        out->has_atomic_ack = true;
        out->orig = rs_atomicacketh_orig(rs_packet_at(pkt, RS_LAYER_ATOMICACKETH));
    }
    if (rs_packet_has(pkt, RS_LAYER_PAYLOAD)) {
        out->payload_off = off + pkt->span[RS_LAYER_PAYLOAD].off;
        out->payload_len = pkt->span[RS_LAYER_PAYLOAD].len;
    }
    if (pkt->facts != NULL) {
        out->retransmission = (pkt->facts->flags & RS_FACT_RETRANSMISSION) != 0;
        if (pkt->facts->flags & RS_FACT_VIOLATION)
            out->violation = pkt->facts->violation;
    }
}

/* Runs path through a fresh pipeline, calling fn on every frame. */
static int
each_frame(const char *path, const struct rs_decode_opts *dopts,
           void (*fn)(void *ctx, const struct rs_pipeline_result *r), void *ctx,
           struct rs_pipeline **keep, int *linktype, char *err)
{
    struct rs_pipeline_opts po;
    struct rs_pipeline *pipe;
    struct rs_source *src;
    struct rs_frame frame;
    int rc;

    rs_pipeline_opts_init(&po);
    po.decode = *dopts;
    if ((rc = rs_source_open_file(path, &src, err)) < 0)
        return rc;
    if ((rc = rs_pipeline_new(&po, &pipe, err)) < 0) {
        rs_source_close(src);
        return rc;
    }
    *linktype = rs_source_linktype(src);
    char why[RS_ERRBUF_SIZE];
    while ((rc = rs_source_next(src, &frame, why)) == 1)
        fn(ctx, rs_pipeline_process(pipe, &frame));
    rs_source_close(src);
    if (rc < 0) {
        rs_pipeline_free(pipe);
        return rs_error(err, rc, "%s: %s", path, why);
    }
    if (keep != NULL)
        *keep = pipe;
    else
        rs_pipeline_free(pipe);
    return 0;
}

struct find {
    const struct rs_replay_pick *pick;
    uint32_t conv;
    uint64_t frames;
};

static void
find_frame(void *ctx, const struct rs_pipeline_result *r)
{
    struct find *f = ctx;

    f->frames++;
    if (f->conv != 0 || !f->pick->by_qp || !(r->facts.flags & RS_FACT_CONV) ||
        !rs_packet_has(&r->pkt, RS_LAYER_BTH))
        return;
    if (rs_bth_destqp(rs_packet_at(&r->pkt, RS_LAYER_BTH)) == f->pick->qp)
        f->conv = r->facts.conv;
}

struct keep {
    struct rs_replay_trace *t;
    uint16_t pmtu;
};

static void
keep_frame(void *ctx, const struct rs_pipeline_result *r)
{
    struct keep *k = ctx;
    struct rs_replay_trace *t = k->t;
    const struct rs_packet *pkt = &r->pkt;
    struct rs_replay_frame fr;

    t->frames++;
    if (!(r->facts.flags & RS_FACT_CONV) || r->facts.conv != t->conv.id ||
        !rs_packet_has(pkt, RS_LAYER_BTH))
        return;
    if (r->facts.flags & RS_FACT_PMTU)
        k->pmtu = r->facts.pmtu;
    rs_replay_frame_of(pkt, t->bytes->len, &fr);
    g_byte_array_append(t->bytes, pkt->frame->data, pkt->frame->caplen);
    g_array_append_val((r->facts.flags & RS_FACT_RESPONSE) ? t->responses : t->requests, fr);
}

static void
print_table(FILE *list, const struct rs_analyzer *an)
{
    struct rs_out o;

    if (list == NULL || rs_out_init(&o, list, 1 << 16) != 0)
        return;
    rs_stats_print_conversations(an, &o);
    rs_out_flush(&o);
    rs_out_free(&o);
}

/* No conversation picked, or none such: the table to pick from, and why. */
static int
not_picked(const char *path, const struct rs_replay_pick *pick, const struct rs_analyzer *an,
           FILE *list, char *err)
{
    print_table(list, an);
    if (pick->conv == 0 && !pick->by_qp)
        return rs_error(err, RS_ENOENT, "%s: pick a conversation with --conv N or --qp QPN",
                        path);
    if (pick->by_qp)
        return rs_error(err, RS_ENOENT, "%s: no conversation has QP 0x%06x", path, pick->qp);
    return rs_error(err, RS_ENOENT, "%s: no conversation %u", path, pick->conv);
}

int
rs_replay_trace_load(const char *path, const struct rs_replay_pick *pick,
                     const struct rs_decode_opts *dopts, FILE *list,
                     struct rs_replay_trace *trace, char *err)
{
    struct find f = {pick, pick->conv, 0};
    struct keep k = {trace, 0};
    struct rs_pipeline *pipe = NULL;
    struct rs_conv_stats st;
    int rc, linktype;

    memset(trace, 0, sizeof(*trace));
    trace->bytes = g_byte_array_new();
    trace->requests = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_frame));
    trace->responses = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_frame));
    /* By id, one pass keeps the frames as the ids are handed out; by QP, the first pass
     * finds the id (a requester's QPN shows only in responses, after the requests). */
    trace->conv.id = pick->conv;
    if (pick->conv != 0)
        rc = each_frame(path, dopts, keep_frame, &k, &pipe, &linktype, err);
    else
        rc = each_frame(path, dopts, find_frame, &f, &pipe, &linktype, err);
    if (rc < 0) {
        rs_replay_trace_free(trace);
        return rc;
    }
    if (f.conv == 0 || !rs_analyzer_conv_stats(rs_pipeline_analyzer(pipe), f.conv, &st)) {
        rc = not_picked(path, pick, rs_pipeline_analyzer(pipe), list, err);
        rs_pipeline_free(pipe);
        rs_replay_trace_free(trace);
        return rc;
    }
    rs_pipeline_free(pipe);
    if (pick->conv == 0) {
        trace->conv.id = f.conv;
        if ((rc = each_frame(path, dopts, keep_frame, &k, NULL, &linktype, err)) < 0) {
            rs_replay_trace_free(trace);
            return rc;
        }
    }
    trace->conv.family = st.addr_family;
    memcpy(trace->conv.requester, st.requester, 16);
    memcpy(trace->conv.responder, st.responder, 16);
    trace->conv.requester_qp = st.requester_qp;
    trace->conv.responder_qp = st.responder_qp;
    trace->conv.pmtu = k.pmtu;
    trace->linktype = linktype;
    return 0;
}

void
rs_replay_trace_free(struct rs_replay_trace *trace)
{
    if (trace->bytes != NULL)
        g_byte_array_free(trace->bytes, TRUE);
    if (trace->requests != NULL)
        g_array_free(trace->requests, TRUE);
    if (trace->responses != NULL)
        g_array_free(trace->responses, TRUE);
    memset(trace, 0, sizeof(*trace));
}

uint32_t
rs_replay_first_psn(const struct rs_replay_trace *trace)
{
    if (trace->requests->len == 0)
        return 0;
    uint32_t psn = g_array_index(trace->requests, struct rs_replay_frame, 0).psn;
    /* A first request lost before the capture saw it: the responder's sequence NAK
     * names the PSN it expected, which is where a fresh responder must start. */
    for (unsigned i = 0; i < trace->responses->len; i++) {
        const struct rs_replay_frame *r = &g_array_index(trace->responses,
                                                         struct rs_replay_frame, i);
        if (!r->has_aeth)
            continue;
        uint32_t back = (psn - r->psn) & 0xffffff;
        if (rs_aeth_kind(r->syndrome) == RS_AETH_NAK && (r->syndrome & 0x1f) ==
            RS_NAK_PSN_SEQ_ERROR && back != 0 && back < 0x800000)
            psn = r->psn;
        break;
    }
    return psn;
}

uint32_t
rs_replay_psn_span(const struct rs_replay_trace *trace)
{
    uint32_t first = rs_replay_first_psn(trace), span = 0;
    uint32_t pmtu = trace->conv.pmtu != 0 ? trace->conv.pmtu : 1024;

    for (unsigned i = 0; i < trace->requests->len; i++) {
        const struct rs_replay_frame *f = &g_array_index(trace->requests,
                                                         struct rs_replay_frame, i);
        uint32_t rel = (f->psn - first) & 0xffffff, n = 1;
        if (rel >= 0x800000)
            continue;               /* before the first: a retransmission of the past */
        /* A READ takes a PSN for every response packet it asks for. */
        if (rs_ib_opcode_info(f->opcode)->op == RS_OP_READ_REQ && f->dmalen > pmtu)
            n = (f->dmalen + pmtu - 1) / pmtu;
        if (rel + n > span)
            span = rel + n;
    }
    return span;
}
