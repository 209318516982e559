/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script_judge.c - a script's verdicts: the recording goes through the pipeline (decode
 * and analysis) once, in the order of the wire, and each expectation is checked on the
 * way, with the frame and the time that prove it.
 *
 * Only our own conversations are judged. A packet the target sent to a QP that is not
 * ours in this run is a stray: a late packet of an earlier run (the last script's READ
 * response, held up by a fault), which QP numbers that are new at every run tell apart.
 * It stays in the -w capture, is neither analysed nor matched, and is reported as a note.
 *
 * PSNs in expectations (psn P, from P) count from the conversation's first PSN, as
 * roceshark.analysis.psn_rel does; the evidence gives both.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/fields.h>
#include <roceshark/capture/pcapio.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/wire.h>

#include "script_int.h"

/* What an expectation looks for in the recording, as a display filter. */
static char *
expect_filter(const struct script_expect *e)
{
    switch (e->kind) {
    case E_NAK: {
        GString *g = g_string_new("infiniband.aeth.syndrome.opcode == 3");
        if (e->nak_code >= 0)
            g_string_append_printf(g, " && infiniband.aeth.syndrome.error_code == %d",
                                   e->nak_code);
        if (e->has_psn)
            g_string_append_printf(g, " && roceshark.analysis.psn_rel == %u", e->psn);
        return g_string_free(g, FALSE);
    }
    case E_RNR:
        return g_strdup("infiniband.aeth.syndrome.opcode == 1");
    case E_CNP:
        return g_strdup("infiniband.bth.opcode == 0x81");
    case E_RETRANSMIT:
        return g_strdup("roceshark.analysis.retransmission");
    case E_NO_VIOLATION:
        return g_strdup("roceshark.analysis.violation");
    case E_FIELD:
    case E_NO_FIELD:
    case E_COUNT:
    case E_SAME:
        return g_strdup(e->filter);
    default:
        return NULL;
    }
}

/* The first frame each expectation's filter takes (from the target for NAK, RNR and CNP;
 * from us for retransmissions): its number, time and PSN. */
struct hit {
    struct rs_filter *f;
    bool from_us;           /* the direction the expectation looks at */
    bool any_direction;
    uint64_t frame;         /* 0: none */
    uint64_t t;
    uint32_t psn;           /* relative to the conversation's first */
    uint32_t psn_abs;       /* as on the wire */
    uint64_t count;         /* frames that matched */
    uint64_t second;        /* the second one's number */
    uint64_t first_sent;    /* a retransmission: when its PSN first went (0: unknown) */
    int same;               /* expect same: the field, or -1 */
    uint64_t value;         /* its value in the first frame */
    uint64_t other_frame;   /* the first frame where it differs (0: none) */
    uint64_t other;
    struct script_duplicate dup;    /* expect duplicate answered */
};

/* expect same: the first frame's value, and the first frame that differs from it. */
static void
compare_same(struct hit *x, const struct rs_packet *pkt, uint64_t number)
{
    struct rs_value v;
    uint64_t u = rs_field_value(pkt, x->same, 0, &v) ? v.v.u : UINT64_MAX;

    if (x->count == 1)
        x->value = u;
    else if (u != x->value && x->other_frame == 0) {
        x->other_frame = number;
        x->other = u;
    }
}

struct wire_order {
    uint64_t t;
    guint off;              /* the record, and the tie-break: the order it was kept in */
};

static gint
by_time(gconstpointer a, gconstpointer b)
{
    const struct wire_order *x = a, *y = b;

    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

static bool
is_our_qpn(const struct script_runner *r, uint32_t qpn)
{
    for (unsigned i = 0; i < r->n_our_qpns; i++)
        if (r->our_qpns[i] == qpn)
            return true;
    return false;
}

/* A packet of the target to a QP that is not ours (QP 1, the CM's, is everyone's). */
static bool
is_stray(struct script_runner *r, const struct rs_packet *pkt, bool ours, uint64_t number)
{
    if (ours || !rs_packet_has(pkt, RS_LAYER_BTH) || r->n_our_qpns == 0 || r->qpns_overflow)
        return false;
    uint32_t qpn = rs_bth_destqp(rs_packet_at(pkt, RS_LAYER_BTH));
    if (qpn == 1 || is_our_qpn(r, qpn))
        return false;
    if (r->strays++ == 0) {
        r->first_stray = number;
        r->first_stray_qpn = qpn;
    }
    return true;
}

/* expect memory: our READ of the word (8 bytes at its offset of the target's region), and
 * the READ response that carries it, whose frame is the evidence. */
static void
readback_frame(const struct script_runner *r, const struct script_expect *e, struct hit *x,
               const struct rs_packet *pkt, uint64_t number, uint32_t psn, bool request,
               bool ours)
{
    if (request && ours && pkt->opcode == 0x0c && rs_packet_has(pkt, RS_LAYER_RETH)) {
        const uint8_t *reth = rs_packet_at(pkt, RS_LAYER_RETH);
        if (rs_reth_va(reth) == r->s->peer.va + e->offset && rs_reth_dmalen(reth) == 8) {
            x->count = 1;
            x->psn_abs = psn;
        }
    } else if (!ours && x->count == 1 && x->frame == 0 && pkt->opcode == 0x10 &&
               psn == x->psn_abs) {
        x->frame = number;      /* RC RDMA Read Response Only */
    }
}

/* One recorded frame, judged: the hits it makes. */
static void
judge_frame(struct script_runner *r, struct hit *hits, unsigned n,
            const struct rs_pipeline_result *res, uint64_t number, uint64_t t, bool ours,
            GHashTable *sent)
{
    const struct rs_packet *pkt = &res->pkt;
    bool bth = rs_packet_has(pkt, RS_LAYER_BTH);
    uint32_t psn = bth ? rs_bth_psn(rs_packet_at(pkt, RS_LAYER_BTH)) : 0;
    uint32_t rel = (res->facts.flags & RS_FACT_PSN_REL) ? res->facts.psn_rel : psn;
    bool request = bth && ours == !r->s->accept && !(res->facts.flags & RS_FACT_RESPONSE) &&
                   pkt->opcode != 0x81;

    if (request && !g_hash_table_contains(sent, GUINT_TO_POINTER(psn)))
        g_hash_table_insert(sent, GUINT_TO_POINTER(psn), g_memdup2(&t, sizeof(t)));
    if (!r->have_nak && rs_packet_has(pkt, RS_LAYER_AETH) &&
        rs_aeth_kind(rs_aeth_syndrome(rs_packet_at(pkt, RS_LAYER_AETH))) == RS_AETH_NAK) {
        r->have_nak = true;
        r->nak_psn = rel;
    }
    for (unsigned i = 0; i < n; i++) {
        struct hit *x = &hits[i];
        if (r->s->expects[i].kind == E_DUPLICATE) {
            script_duplicate_frame(&x->dup, &res->pkt, &res->facts, number, request, ours);
            continue;
        }
        if (r->s->expects[i].kind == E_MEMORY) {
            readback_frame(r, &r->s->expects[i], x, pkt, number, psn, request, ours);
            continue;
        }
        if (x->f == NULL || (!x->any_direction && ours != x->from_us) ||
            !rs_filter_match(x->f, pkt))
            continue;
        if (x->count++ == 1)
            x->second = number;
        if (x->same >= 0)
            compare_same(x, pkt, number);
        if (x->frame != 0)
            continue;
        x->frame = number;
        x->t = t;
        x->psn = rel;
        x->psn_abs = psn;
        const uint64_t *first = g_hash_table_lookup(sent, GUINT_TO_POINTER(psn));
        x->first_sent = request && first != NULL && *first < t ? *first : 0;
    }
}

/* The recording in the order of the wire (a received packet is stamped with its arrival,
 * which can be before what we sent while it waited to be read), through the pipeline. */
static int
scan_recording(struct script_runner *r, struct hit *hits, unsigned n, uint64_t *first_t,
               const char *pcap, char *err)
{
    struct rs_pipeline_opts po;
    struct rs_pipeline *pl;
    struct rs_writer *w = NULL;
    uint64_t number = 0;

    rs_pipeline_opts_init(&po);
    if (rs_pipeline_new(&po, &pl, err) != 0)
        return RS_EINVAL;
    if (pcap != NULL) {
        struct rs_writer_opts wo;
        memset(&wo, 0, sizeof(wo));
        wo.path = pcap;
        wo.linktype = RS_DLT_IPV4;
        wo.snaplen = 65535;
        wo.ts_hardware = true;
        if (rs_writer_open(&wo, &w, err) != 0) {
            rs_pipeline_free(pl);
            return RS_EIO;
        }
    }
    int rc = 0;
    GArray *order = g_array_new(FALSE, FALSE, sizeof(struct wire_order));
    /* When each request PSN first went, so that a resend says how long the requester
     * waited (an ACK timeout, an RNR timer), whatever the peer's own delays. */
    GHashTable *sent = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    for (guint off = 0; off < r->rec->len;) {
        const struct script_record *h = (const struct script_record *)(r->rec->data + off);
        struct wire_order wo = {h->t, off};
        g_array_append_val(order, wo);
        off += sizeof(*h) + h->len + ((8 - (h->len & 7)) & 7);
    }
    g_array_sort(order, by_time);
    for (guint k = 0; k < order->len; k++) {
        guint off = g_array_index(order, struct wire_order, k).off;
        const struct script_record *h = (const struct script_record *)(r->rec->data + off);
        const uint8_t *data = r->rec->data + off + sizeof(*h);
        struct rs_frame f;
        memset(&f, 0, sizeof(f));
        f.data = data;
        f.caplen = f.len = h->len;
        f.linktype = RS_DLT_IPV4;
        f.number = ++number;
        f.ts_sec = (int64_t)(h->t / 1000000000u);
        f.ts_nsec = (uint32_t)(h->t % 1000000000u);
        if (number == 1)
            *first_t = h->t;
        if (w != NULL && rc == 0)
            rc = rs_writer_write(w, &f, err) != 0 ? RS_EIO : 0;
        bool ours = rs_addr_is_v4mapped(r->our_gid)
                        ? h->len >= 20 && memcmp(data + 12, r->our_gid + 12, 4) == 0
                        : h->len >= 40 && memcmp(data + 8, r->our_gid, 16) == 0;
        struct rs_packet view;
        struct rs_decode_opts dopts;
        rs_decode_opts_init(&dopts);
        rs_decode_frame(&f, &dopts, &view);
        if (is_stray(r, &view, ours, number))
            continue;
        const struct rs_pipeline_result *res = rs_pipeline_process(pl, &f);
        if (res != NULL)
            judge_frame(r, hits, n, res, number, h->t, ours, sent);
    }
    g_hash_table_destroy(sent);
    g_array_free(order, TRUE);
    if (w != NULL && rs_writer_close(w, NULL, rc == 0 ? err : NULL) != 0 && rc == 0)
        rc = RS_EIO;
    rs_pipeline_free(pl);
    return rc;
}

static void
say(struct rs_script_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends to the evidence. */
static void
say(struct rs_script_result *res, const char *fmt, ...)
{
    size_t l = strlen(res->evidence);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(res->evidence + l, sizeof(res->evidence) - l, fmt, ap);
    va_end(ap);
}

static void
judge_completion(const struct script_expect *e, const struct rs_rc_wc *wcs, unsigned n_wcs,
                 unsigned n_wrs, struct rs_script_result *res)
{
    unsigned ok = 0, with = 0;

    for (unsigned k = 0; k < n_wcs; k++) {
        ok += wcs[k].status == RS_RC_WC_SUCCESS;
        with += wcs[k].status == e->status;
    }
    res->ok = e->status == EXPECT_ALL_OK ? n_wcs == n_wrs && ok == n_wrs : with > 0;
    say(res, "%u of %u work requests completed, %u successfully%s", n_wcs, n_wrs, ok,
        n_wcs > ok ? ", first error " : "");
    for (unsigned k = 0; k < n_wcs; k++) {
        if (wcs[k].status != RS_RC_WC_SUCCESS) {
            say(res, "%s", rs_rc_wc_status_name(wcs[k].status));
            break;
        }
    }
}

static void
judge_count(const struct script_expect *e, const struct hit *x, struct rs_script_result *res)
{
    res->ok = x->count == e->count;
    if (x->count >= 2)
        say(res, "%" PRIu64 " frames matched (frames %" PRIu64 ", %" PRIu64 "%s)", x->count,
            x->frame, x->second, x->count > 2 ? ", ..." : "");
    else if (x->count == 1)
        say(res, "1 frames matched (frame %" PRIu64 ")", x->frame);
    else
        say(res, "0 frames matched");
}

static void
judge_memory(const struct script_expect *e, const struct script_readback *rb,
             const struct hit *x, struct rs_script_result *res)
{
    res->ok = rb->done && rb->status == RS_RC_WC_SUCCESS && rb->value == e->value;
    if (!rb->done)
        say(res, "not read back: the run ended first");
    else if (rb->status != RS_RC_WC_SUCCESS)
        say(res, "not read back: the READ completed with %s", rs_rc_wc_status_name(rb->status));
    else if (x->frame != 0)
        say(res, "the word at offset %" PRIu64 " reads %" PRIu64 " (0x%" PRIx64 ", frame %"
            PRIu64 ")", e->offset, rb->value, rb->value, x->frame);
    else
        say(res, "the word at offset %" PRIu64 " reads %" PRIu64 " (0x%" PRIx64 ")", e->offset,
            rb->value, rb->value);
}

/* nak, rnr, cnp, retransmit, field: the first frame that matched, when and where. */
static void
judge_first(const struct script_runner *r, const struct script_expect *e, const struct hit *x,
            uint64_t ref, struct rs_script_result *res)
{
    if (x->frame == 0) {
        res->ok = false;
        say(res, "no frame matched");
        return;
    }
    res->ok = true;
    if (e->kind == E_RETRANSMIT && e->has_psn && x->psn != e->psn)
        res->ok = false;
    if (e->from_nak && (!r->have_nak || x->psn != r->nak_psn))
        res->ok = false;
    /* Before the reference (no fault had acted yet) counts as at once. */
    if (e->within_ns != 0 && x->t > ref && x->t - ref > e->within_ns)
        res->ok = false;
    /* A resend waited from when its PSN first went; anything else counts from the
     * reference. */
    uint64_t from = x->first_sent != 0 ? x->first_sent : ref;
    if (e->after_ns != 0 && (x->t < from || x->t - from < e->after_ns))
        res->ok = false;
    double us = x->t >= ref ? (double)(x->t - ref) / 1e3 : 0;
    say(res, "after %.0f us (frame %" PRIu64 ", PSN +%u = %u)", us, x->frame, x->psn,
        x->psn_abs);
    if (x->first_sent != 0)
        say(res, ", resent %.0f us after it first went", (double)(x->t - x->first_sent) / 1e3);
    if (e->from_nak) {
        if (r->have_nak)
            say(res, "; the first NAK names PSN +%u", r->nak_psn);
        else
            say(res, "; no NAK on the wire");
    }
}

/* Each expectation's verdict, from its hit, the completions and the words read back. */
static void
judge(const struct script_runner *r, const struct hit *hits, uint64_t ref,
      const struct rs_rc_wc *wcs, unsigned n_wcs, unsigned n_wrs, struct rs_script_result *out)
{
    const struct rs_script *s = r->s;

    for (unsigned i = 0; i < s->n_expects; i++) {
        const struct script_expect *e = &s->expects[i];
        const struct hit *x = &hits[i];
        struct rs_script_result *res = &out[i];

        memset(res, 0, sizeof(*res));
        snprintf(res->text, sizeof(res->text), "%s", e->text);
        switch (e->kind) {
        case E_EXIT:
            res->ok = r->exit_status == (int)e->count;
            if (r->exit_status < 0)
                say(res, "the command had not exited by the deadline");
            else
                say(res, "the command exited with %d", r->exit_status);
            break;
        case E_COMPLETION:
            judge_completion(e, wcs, n_wcs, n_wrs, res);
            break;
        case E_SAME:
            res->ok = x->count >= 2 && x->other_frame == 0;
            if (x->other_frame != 0)
                say(res, "frame %" PRIu64 " has %" PRIu64 ", frame %" PRIu64 " has %" PRIu64,
                    x->frame, x->value, x->other_frame, x->other);
            else if (x->count >= 2)
                say(res, "%" PRIu64 " frames, each %" PRIu64, x->count, x->value);
            else
                say(res, "%" PRIu64 " frames matched: nothing to compare", x->count);
            break;
        case E_COUNT:
            judge_count(e, x, res);
            break;
        case E_MEMORY:
            judge_memory(e, &r->readback[i], x, res);
            break;
        case E_DUPLICATE:
            res->ok = script_duplicate_verdict(&x->dup, res->evidence, sizeof(res->evidence));
            break;
        case E_NO_VIOLATION:
        case E_NO_FIELD:
            res->ok = x->frame == 0;
            if (res->ok)
                say(res, "no frame matched");
            else
                say(res, "frame %" PRIu64 " matched", x->frame);
            break;
        default:
            judge_first(r, e, x, ref, res);
            break;
        }
    }
}

int
script_judge(struct script_runner *r, const struct rs_rc_wc *wcs, unsigned n_wcs,
             unsigned n_wrs, const char *pcap, struct rs_script_result *results, unsigned *n,
             char *err)
{
    const struct rs_script *s = r->s;
    struct hit *hits = g_new0(struct hit, RS_SCRIPT_MAX_EXPECTS);
    uint64_t first_t = 0;
    int rc = 0;

    for (unsigned i = 0; i < s->n_expects && rc == 0; i++) {
        const struct script_expect *e = &s->expects[i];
        char *text = expect_filter(e);
        hits[i].from_us = e->kind == E_RETRANSMIT && !s->accept;  /* the requester's */
        hits[i].any_direction = e->kind == E_NO_VIOLATION || e->kind == E_FIELD ||
                                e->kind == E_NO_FIELD || e->kind == E_COUNT ||
                                e->kind == E_SAME;
        hits[i].same = e->kind == E_SAME ? e->field : -1;
        if (text != NULL && rs_filter_compile(text, &hits[i].f, err) != 0)
            rc = RS_EINVAL;
        g_free(text);
    }
    if (rc == 0)
        rc = scan_recording(r, hits, s->n_expects, &first_t, pcap, err);
    if (rc == 0) {
        /* When a rule first acted, or the first packet: where the judge's times start. */
        uint64_t fault_first = r->faults != NULL ? rs_faults_first_acted(r->faults) : 0;
        judge(r, hits, fault_first != 0 ? fault_first : first_t, wcs, n_wcs, n_wrs,
              results);
        *n = s->n_expects;
        if (r->strays > 0) {
            struct rs_script_result *note = &results[(*n)++];
            memset(note, 0, sizeof(*note));
            note->ok = note->note = true;
            snprintf(note->text, sizeof(note->text), "stray (not judged)");
            snprintf(note->evidence, sizeof(note->evidence), "%" PRIu64 " packet%s to QP "
                     "0x%06x, not ours in this run (frame %" PRIu64 "%s): late, of an earlier "
                     "conversation", r->strays, r->strays == 1 ? "" : "s", r->first_stray_qpn,
                     r->first_stray, r->strays > 1 ? ", ..." : "");
        }
    }
    for (unsigned i = 0; i < RS_SCRIPT_MAX_EXPECTS; i++)
        rs_filter_free(hits[i].f);
    g_free(hits);
    return rc;
}
