/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * faults.c - running packets through the rules (see faults.h).
 *
 * Each packet is copied once into a work buffer and run through the pipeline
 * there (decode, streams, iWARP, analysis: rs_pipeline), so the
 * filters see the packet as read -Y does and set/add/mark write through the same
 * view before rs_encode_finish() computes the checksums and CRCs again.
 * Held packets (delay, reorder) live in slots allocated when first needed
 * and kept: a bounded set, so a rule that holds everything cannot take the
 * memory; when every slot is taken a packet goes at once, and is counted.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/encode.h>
#include <roceshark/dissectors/fields.h>
#include <roceshark/dissectors/ib_headers.h>
#include <roceshark/dissectors/pipeline.h>

#include "faults_int.h"
#include "inject_int.h"

/* Whether rule r acts on the packet that it just matched, by skip, every, times and
 * prob, in the order of Linux's fault-injection attributes. */
static bool
rule_fires(struct rs_faults *f, struct fault_rule *r)
{
    uint64_t nth = r->stats.matched;

    if (nth <= r->skip)
        return false;
    if (r->every > 1 && (nth - r->skip) % r->every != 0)
        return false;
    if (r->times != 0 && r->stats.acted >= r->times)
        return false;
    if (r->prob < 1 && g_rand_double(f->rng) >= r->prob)
        return false;
    return true;
}

/* Sets the ECN bits of the IP header to Congestion Experienced. */
static bool
mark_ce(struct rs_packet *pkt, uint8_t *d)
{
    if (rs_packet_has(pkt, RS_LAYER_IPV4)) {
        d[pkt->span[RS_LAYER_IPV4].off + 1] |= 0x03;
        return true;
    }
    if (rs_packet_has(pkt, RS_LAYER_IPV6)) {
        d[pkt->span[RS_LAYER_IPV6].off + 1] |= 0x30;    /* the traffic class's low bits */
        return true;
    }
    return false;
}

/* set and add: the field's bytes where the decoder read them. */
static bool
write_rule_field(const struct fault_rule *r, const struct rs_packet *pkt, uint8_t *d)
{
    const struct rs_field *fd = rs_field_by_id(r->field);

    if (!rs_packet_has(pkt, fd->layer))
        return false;
    uint32_t at = pkt->span[fd->layer].off + fd->offset;
    if (at + fd->width > pkt->frame->caplen)
        return false;
    uint64_t v = r->value;
    if (r->action == FA_ADD) {
        struct rs_value cur;
        if (!rs_field_value(pkt, r->field, 0, &cur))
            return false;
        v = (cur.v.u + r->value) & inject_field_max(fd);
    }
    inject_write_field(d + at, fd, v, NULL);
    return true;
}

static void
corrupt_icrc(const struct rs_packet *pkt, uint8_t *d)
{
    if (rs_packet_has(pkt, RS_LAYER_ICRC))
        d[pkt->span[RS_LAYER_ICRC].off] ^= 0x01;
}

/* A free slot, allocated when first used; NULL when every one is taken. */
static struct fault_held *
held_slot(struct rs_faults *f, unsigned *index)
{
    for (unsigned i = 0; i < RS_FAULTS_MAX_HELD; i++) {
        if (f->held_used[i])
            continue;
        if (f->held[i] == NULL && (f->held[i] = malloc(sizeof(*f->held[i]))) == NULL)
            return NULL;
        *index = i;
        return f->held[i];
    }
    return NULL;
}

static void
go(struct rs_faults *f, enum rs_fault_dir dir, const uint8_t *d, uint32_t len,
   rs_fault_emit_fn emit, void *ctx)
{
    f->gone[dir]++;
    emit(ctx, dir, d, len);
}

/* Held back: until due, or (reorder) until after more packets have gone its way. */
static void
hold(struct rs_faults *f, enum rs_fault_dir dir, const uint8_t *d, uint32_t len, uint64_t due,
     unsigned gap, rs_fault_emit_fn emit, void *ctx)
{
    unsigned i;
    struct fault_held *h = held_slot(f, &i);

    if (h == NULL) {
        f->held_full++;
        go(f, dir, d, len, emit, ctx);
        return;
    }
    h->due = due;
    h->by_count = gap > 0;
    h->after = f->gone[dir] + gap;
    h->dir = dir;
    h->len = len;
    memcpy(h->data, d, len);
    f->held_used[i] = true;
    f->n_held++;
}

/* Sends the reordered packets whose turn has come, oldest turn first. */
static void
release_by_count(struct rs_faults *f, enum rs_fault_dir dir, rs_fault_emit_fn emit, void *ctx)
{
    bool more = f->n_held > 0;

    while (more) {
        more = false;
        for (unsigned i = 0; i < RS_FAULTS_MAX_HELD; i++) {
            struct fault_held *h = f->held[i];
            if (!f->held_used[i] || !h->by_count || h->dir != dir || h->after > f->gone[dir])
                continue;
            f->held_used[i] = false;
            f->n_held--;
            go(f, dir, h->data, h->len, emit, ctx);
            more = f->n_held > 0;
        }
    }
}

/* Makes up the packet an inject rule answers the matched one with, and sends it at once:
 * the way the matched packet goes, or back. */
static void
inject(struct rs_faults *f, struct fault_rule *r, const struct rs_packet *m,
       enum rs_fault_dir dir, rs_fault_emit_fn emit, void *ctx)
{
    struct rs_conv_state st;
    bool back = false, known = m->facts != NULL && (m->facts->flags & RS_FACT_CONV) &&
                               rs_analyzer_conv_state(f->an, m->facts->conv, &st);
    uint32_t n = fault_inject_build(&r->inject, m, known ? &st : NULL, f->made,
                                    sizeof(f->made), &back);

    if (n == 0) {
        r->stats.unbuilt++;
        return;
    }
    go(f, back ? (dir == RS_FAULT_TX ? RS_FAULT_RX : RS_FAULT_TX) : dir, f->made, n, emit, ctx);
}

/* QP qpn is among those kept as ours. */
static bool
knows_own_qp(const struct rs_faults *f, uint32_t qpn)
{
    for (unsigned i = 0; i < f->n_own_qpns; i++)
        if (f->own_qpns[i] == qpn)
            return true;
    return false;
}

/* A received packet is for one of our QPs, or for QP 1 (the CM's), or nothing is known of
 * ours (no QP yet, or more than kept, or no BTH to read). */
static bool
for_own_qp(const struct rs_faults *f, const struct rs_packet *view)
{
    if (f->n_own_qpns == 0 || f->own_overflow || !rs_packet_has(view, RS_LAYER_BTH))
        return true;
    uint32_t qpn = rs_bth_destqp(rs_packet_at(view, RS_LAYER_BTH));
    return qpn == 1 || knows_own_qp(f, qpn);
}

void
rs_faults_packet(struct rs_faults *f, enum rs_fault_dir dir, int linktype, const uint8_t *pkt,
                 uint32_t len, uint64_t now_ns, rs_fault_emit_fn emit, void *ctx)
{
    struct rs_frame frame;
    unsigned copies = 1, gap = 0, keep = 0;
    uint64_t delay = 0;
    bool changed = false;

    if (len > RS_FAULTS_MAX_PACKET || f->n_rules == 0) {
        f->too_large += f->n_rules > 0;     /* a rule might have taken it */
        go(f, dir, pkt, len, emit, ctx);
        return;
    }
    uint8_t *d = f->work;
    memcpy(d, pkt, len);
    memset(&frame, 0, sizeof(frame));
    frame.data = d;
    frame.caplen = frame.len = len;
    frame.linktype = linktype;
    frame.number = ++f->frames;
    frame.ts_sec = (int64_t)(now_ns / 1000000000u);
    frame.ts_nsec = (uint32_t)(now_ns % 1000000000u);
    /* rs_pipeline_process() in its two halves, into a result of ours: set, add and mark
     * write through its view of d. */
    rs_pipeline_decode(f->pipe, &frame, &f->result);
    rs_pipeline_analyze(f->pipe, &f->result);
    struct rs_packet *view = &f->result.pkt;
    unsigned n_rules = f->n_rules;

    if (dir == RS_FAULT_RX && !for_own_qp(f, view)) {
        f->foreign++;
        n_rules = 0;
    }
    for (unsigned i = 0; i < n_rules; i++) {
        struct fault_rule *r = &f->rules[i];
        if (!(r->dirs & dir) || (r->filter != NULL && !rs_filter_match(r->filter, view)))
            continue;
        r->stats.matched++;
        if (!rule_fires(f, r))
            continue;
        if (r->action == FA_DROP_PATTERN) {
            size_t n = strlen(r->pattern);
            uint64_t k = (r->stats.matched - r->skip - 1) % n;
            if (r->pattern[k] != 'X')
                continue;
        }
        r->stats.acted++;
        if (f->first_acted == 0)
            f->first_acted = now_ns;
        switch (r->action) {
        case FA_DROP:
        case FA_DROP_PATTERN:
            return;
        case FA_DUPLICATE:
            copies += r->count;
            break;
        case FA_REORDER:
            gap = r->count;
            break;
        case FA_DELAY: {
            uint64_t t = r->delay_ns;
            if (r->jitter_ns > 0)
                t = t - r->jitter_ns +
                    (uint64_t)(g_rand_double(f->rng) * (double)(2 * r->jitter_ns));
            delay = t > delay ? t : delay;
            break;
        }
        case FA_CORRUPT_ICRC:
            corrupt_icrc(view, d);
            keep |= RS_ENCODE_KEEP_ICRC;
            changed = true;
            break;
        case FA_SET:
        case FA_ADD:
            changed |= write_rule_field(r, view, d);
            keep |= r->keep_icrc ? RS_ENCODE_KEEP_ICRC | RS_ENCODE_KEEP_VCRC : 0;
            break;
        case FA_MARK_CE:
            changed |= mark_ce(view, d);
            keep |= r->keep_icrc ? RS_ENCODE_KEEP_ICRC | RS_ENCODE_KEEP_VCRC : 0;
            break;
        case FA_STALL:
            f->stall_until[dir] = now_ns + r->delay_ns;
            break;
        case FA_INJECT:
            inject(f, r, view, dir, emit, ctx);
            break;
        }
    }
    /* In a stall, everything that way waits for its end, in order. */
    if (f->stall_until[dir] > now_ns && f->stall_until[dir] - now_ns > delay)
        delay = f->stall_until[dir] - now_ns;
    if (changed)
        rs_encode_finish(view, keep);
    for (unsigned c = 0; c < copies; c++) {
        if (delay > 0 || gap > 0)
            hold(f, dir, d, len, now_ns + (delay > 0 ? delay : 100000000u), gap, emit, ctx);
        else
            go(f, dir, d, len, emit, ctx);
    }
    if (gap == 0)
        release_by_count(f, dir, emit, ctx);
}

uint64_t
rs_faults_poll(struct rs_faults *f, uint64_t now_ns, rs_fault_emit_fn emit, void *ctx)
{
    uint64_t next = RS_FAULTS_NEVER;

    for (unsigned i = 0; f->n_held > 0 && i < RS_FAULTS_MAX_HELD; i++) {
        struct fault_held *h = f->held[i];
        if (!f->held_used[i])
            continue;
        if (h->due <= now_ns) {
            f->held_used[i] = false;
            f->n_held--;
            go(f, h->dir, h->data, h->len, emit, ctx);
        } else if (h->due < next) {
            next = h->due;
        }
    }
    return next;
}

unsigned
rs_faults_rules(const struct rs_faults *f)
{
    return f->n_rules;
}

void
rs_faults_rule_stats(const struct rs_faults *f, unsigned rule, struct rs_fault_rule_stats *out)
{
    *out = f->rules[rule].stats;
}

uint64_t
rs_faults_first_acted(const struct rs_faults *f)
{
    return f->first_acted;
}

void
rs_faults_pair(struct rs_faults *f, const uint8_t a[16], uint32_t qpn_a, const uint8_t b[16],
               uint32_t qpn_b)
{
    if (f->an == NULL)
        return;
    if (rs_addr_is_v4mapped(a))     /* the analyzer keys IPv4 conversations by 4 bytes */
        rs_analyzer_pair(f->an, 4, a + 12, qpn_a, b + 12, qpn_b);
    else
        rs_analyzer_pair(f->an, 6, a, qpn_a, b, qpn_b);
}

void
rs_faults_own_qp(struct rs_faults *f, uint32_t qpn)
{
    if (knows_own_qp(f, qpn))
        return;
    if (f->n_own_qpns < RS_FAULTS_MAX_OWN_QPS)
        f->own_qpns[f->n_own_qpns++] = qpn;
    else
        f->own_overflow = true;
}

void
rs_faults_report(const struct rs_faults *f, FILE *out)
{
    fprintf(out, "faults: %10s %10s  rule\n", "matched", "acted");
    for (unsigned i = 0; i < f->n_rules; i++) {
        const struct fault_rule *r = &f->rules[i];
        fprintf(out, "faults: %10llu %10llu  %s\n", (unsigned long long)r->stats.matched,
                (unsigned long long)r->stats.acted, r->text);
        if (r->stats.unbuilt > 0)
            fprintf(out, "faults: %llu of those not answered: the QP to answer was not known "
                    "yet\n", (unsigned long long)r->stats.unbuilt);
    }
    if (f->held_full > 0)
        fprintf(out, "faults: %llu packets went at once: every hold slot was taken\n",
                (unsigned long long)f->held_full);
    if (f->foreign > 0)
        fprintf(out, "faults: %llu received packets for a QP not ours passed untouched: late "
                "packets of an earlier conversation\n", (unsigned long long)f->foreign);
    if (f->too_large > 0)
        fprintf(out, "faults: %llu packets over %d bytes passed untouched: no rule looked "
                "at them\n", (unsigned long long)f->too_large, RS_FAULTS_MAX_PACKET);
}
