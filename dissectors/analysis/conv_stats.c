/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.c - per-conversation statistics: what each frame adds to its
 * conversation's counts (from its facts alone, so that a consumer that counts
 * only some frames counts them as the analyzer does), READ completion times
 * (with a bounded reservoir for the p99), and the walk over every
 * conversation.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/common.h>

#include "analyzer_int.h"

/* Completion times are kept in nanoseconds, saturated at +-292 years (a
 * capture in seconds can put a READ and its response further apart), and
 * so is their sum. */
static void
latency_add(struct rs_conv_stats *st, struct rs_latency_samples **lat, struct rs_time took)
{
    int64_t ns = rs_time_to_ns(took);

    if (st->read_count == 0 || ns < st->read_min_ns)
        st->read_min_ns = ns;
    if (st->read_count == 0 || ns > st->read_max_ns)
        st->read_max_ns = ns;
    st->read_count++;
    if (__builtin_add_overflow(st->read_sum_ns, ns, &st->read_sum_ns))
        st->read_sum_ns = ns < 0 ? INT64_MIN : INT64_MAX;
    if (*lat == NULL)
        *lat = g_new0(struct rs_latency_samples, 1);
    struct rs_latency_samples *l = *lat;
    /* Reservoir sampling (Vitter's algorithm R), with a deterministic
     * generator so that results do not change between runs. */
    l->seen++;
    if (l->n < LATENCY_RESERVOIR) {
        l->v[l->n++] = ns;
    } else {
        uint64_t r = (l->seen * 6364136223846793005ull + 1442695040888963407ull) % l->seen;
        if (r < LATENCY_RESERVOIR)
            l->v[r] = ns;
    }
}

/* Every count of a conversation's statistics is a fact of one of its frames:
 * the analyzer counts each frame here once it has found its facts, and so does
 * a consumer that counts the frames a filter takes (rs_conv_tally_add). */
void
conv_count(struct rs_conv_stats *st, struct rs_latency_samples **lat, const struct rs_facts *f,
           uint8_t opcode, uint32_t wire_len, struct rs_time when)
{
    if (!(f->flags & RS_FACT_CONV))
        return;
    if (f->flags & RS_FACT_CNP_FOR) {
        st->cnps++;             /* a notification to one of its QPs, not one of its packets */
        return;
    }
    const struct rs_ib_opcode *info = rs_ib_opcode_info(opcode);
    if (st->req_packets + st->resp_packets == 0)
        st->first = when;
    st->last = when;
    if (f->flags & RS_FACT_RESPONSE) {
        st->resp_packets++;
        st->resp_bytes += wire_len;
    } else {
        st->req_packets++;
        st->req_bytes += wire_len;
        if ((info->op == RS_OP_CMP_SWAP || info->op == RS_OP_FETCH_ADD) &&
            !(f->flags & RS_FACT_RETRANSMISSION))
            st->msgs_atomic++;
    }
    if (f->flags & RS_FACT_MSG) {
        if (info->op == RS_OP_SEND)
            st->msgs_send++;
        else
            st->msgs_write++;
    }
    if (f->flags & RS_FACT_READ_DONE) {
        st->msgs_read++;
        latency_add(st, lat, f->response_time);
    }
    st->retransmissions += (f->flags & RS_FACT_RETRANSMISSION) != 0;
    st->psn_gaps += (f->flags & RS_FACT_PSN_GAP) != 0;
    if ((f->flags & RS_FACT_NAK) && f->nak < RS_ARRAY_SIZE(st->naks))
        st->naks[f->nak]++;
    st->rnr_naks += (f->flags & RS_FACT_RNR) != 0;
    st->ecn_ce += (f->flags & RS_FACT_ECN_CE) != 0;
    st->violations += (f->flags & RS_FACT_VIOLATION) != 0;
}

static int
compare_ns(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* The p99 of the READ completion times kept, nearest-rank. */
static void
latency_p99(const struct rs_latency_samples *lat, struct rs_conv_stats *out)
{
    if (lat == NULL || lat->n == 0)
        return;
    int64_t sorted[LATENCY_RESERVOIR];
    uint32_t n = lat->n;
    memcpy(sorted, lat->v, n * sizeof(sorted[0]));
    qsort(sorted, n, sizeof(sorted[0]), compare_ns);
    uint32_t rank = (uint32_t)((99 * (uint64_t)n + 99) / 100);
    out->read_p99_ns = sorted[rank == 0 ? 0 : rank - 1];
}

void
conv_final_stats(const struct conv *c, struct rs_conv_stats *out)
{
    *out = c->stats;
    latency_p99(c->lat, out);
}

/* The counts are the members from req_packets to the end of the struct. */
#define COUNTS_AT offsetof(struct rs_conv_stats, req_packets)

void
rs_conv_tally_add(struct rs_conv_tally *t, const struct rs_facts *f, uint8_t opcode,
                  uint32_t wire_len, struct rs_time when)
{
    conv_count(&t->stats, &t->lat, f, opcode, wire_len, when);
}

void
rs_conv_tally_stats(const struct rs_conv_tally *t, struct rs_conv_stats *out)
{
    memcpy((char *)out + COUNTS_AT, (const char *)&t->stats + COUNTS_AT,
           sizeof(*out) - COUNTS_AT);
    latency_p99(t->lat, out);
}

void
rs_conv_tally_clear(struct rs_conv_tally *t)
{
    g_free(t->lat);
    memset(t, 0, sizeof(*t));
}

/* A conversation to put in id order without copying its statistics: a live
 * one by pointer, an archived one by its place in the archive. Sorting copies
 * of the statistics (280 bytes each) took a quarter of the peak memory of
 * `-z conv,qp` on a million conversations, and at every refresh of the TUI's
 * table a copy of them all. */
struct conv_ref {
    uint32_t id;
    uint32_t archived;          /* index in the archive + 1; 0 for a live one */
    const struct conv *live;
};

static int
compare_id(const void *a, const void *b)
{
    const struct conv_ref *x = a, *y = b;

    return x->id < y->id ? -1 : x->id > y->id;
}

void
rs_analyzer_foreach_conv(const struct rs_analyzer *an,
                         void (*fn)(void *ctx, const struct rs_conv_stats *st), void *ctx)
{
    uint32_t n = an->n_archive + an->n_live, i = 0;
    struct conv_ref *refs = g_new(struct conv_ref, n ? n : 1);

    for (; i < an->n_archive; i++)
        refs[i] = (struct conv_ref){an->archive[i].id, i + 1, NULL};
    for (const struct conv *c = an->lru_head; c != NULL; c = c->lru_next)
        refs[i++] = (struct conv_ref){c->stats.id, 0, c};
    qsort(refs, n, sizeof(*refs), compare_id);
    for (i = 0; i < n; i++) {
        struct rs_conv_stats live;
        if (refs[i].archived == 0)
            conv_final_stats(refs[i].live, &live);
        fn(ctx, refs[i].archived == 0 ? &live : &an->archive[refs[i].archived - 1]);
    }
    if (an->evicted_rest_convs > 0)
        fn(ctx, &an->evicted_rest);
    g_free(refs);
}

void
rs_analyzer_foreach_conv_unordered(const struct rs_analyzer *an,
                                   void (*fn)(void *ctx, const struct rs_conv_stats *st),
                                   void *ctx)
{
    for (uint32_t i = 0; i < an->n_archive; i++)
        fn(ctx, &an->archive[i]);
    for (const struct conv *c = an->lru_head; c != NULL; c = c->lru_next) {
        struct rs_conv_stats live;
        conv_final_stats(c, &live);
        fn(ctx, &live);
    }
    if (an->evicted_rest_convs > 0)
        fn(ctx, &an->evicted_rest);
}

bool
rs_analyzer_conv_identity(const struct rs_analyzer *an, uint32_t id, struct rs_conv_stats *out)
{
    const struct conv *c = conv_by_id(an, id);
    const struct rs_conv_stats *st = c != NULL ? &c->stats : NULL;

    if (st == NULL) {
        uint32_t i = archive_index_of(an, id);
        if (i == 0)
            return false;
        st = &an->archive[i - 1];
    }
    memcpy(out, st, COUNTS_AT);
    return true;
}

bool
rs_analyzer_conv_stats(const struct rs_analyzer *an, uint32_t id, struct rs_conv_stats *out)
{
    const struct conv *c = conv_by_id(an, id);

    if (c != NULL) {
        conv_final_stats(c, out);
        return true;
    }
    uint32_t i = archive_index_of(an, id);
    if (i == 0)
        return false;
    *out = an->archive[i - 1];
    return true;
}

uint64_t
rs_analyzer_evictions(const struct rs_analyzer *an)
{
    return an->evictions;
}

struct rs_analysis_losses
rs_analyzer_losses(const struct rs_analyzer *an)
{
    return (struct rs_analysis_losses){an->evictions, an->requests_forgotten,
                                       an->cm_reqs_dropped};
}

bool
rs_analyzer_conv_state(const struct rs_analyzer *an, uint32_t id, struct rs_conv_state *out)
{
    const struct conv *c = conv_by_id(an, id);

    if (c == NULL)
        return false;
    out->requester_qp = c->stats.requester_qp;
    out->responder_qp = c->stats.responder_qp;
    out->have_next_psn = c->req.started;
    out->next_psn = c->req.e_lo;
    out->have_msn = conv_resp(c)->have_msn;
    out->msn = conv_resp(c)->msn;
    out->pmtu = c->pmtu;
    return true;
}
