/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_compare.c - the target's responses against the capture's.
 *
 * Responses are matched by what IBTA makes deterministic: the PSN they
 * answer (relative to the first request, in the pass of the replay that
 * sent it) and their class: READ response data, atomic ACK, ACK, NAK, RNR
 * NAK. Where the two differ is a divergence, unless IBTA lets it differ:
 * a responder may coalesce ACKs (a later ACK covers an earlier one), the
 * credit count is the responder's own, and with lenient_rnr so is the RNR
 * timer. Retransmitted and duplicate responses are retries, not behaviour:
 * only the first response of each class to a PSN is compared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/analysis.h>
#include <roceshark/replay/replay.h>

enum cls { C_DATA, C_ATOMIC, C_ACK, C_NAK, C_RNR, C_OTHER };

static const char *const rule_names[RS_REPLAY_RULE_COUNT] = {
    [RS_REPLAY_RULE_OPCODE] = "opcode",
    [RS_REPLAY_RULE_SEGMENTATION] = "segmentation",
    [RS_REPLAY_RULE_ACK_CLASS] = "ack-class",
    [RS_REPLAY_RULE_RNR] = "rnr",
    [RS_REPLAY_RULE_MSN] = "msn",
    [RS_REPLAY_RULE_PAYLOAD] = "payload",
    [RS_REPLAY_RULE_COMPLETION] = "completion",
    [RS_REPLAY_RULE_EXTRA] = "extra",
    [RS_REPLAY_RULE_VIOLATION] = "violation",
    [RS_REPLAY_RULE_REQUEST] = "request",
};

const char *
rs_replay_rule_name(uint8_t rule)
{
    return rule < RS_REPLAY_RULE_COUNT ? rule_names[rule] : "?";
}

static enum cls
class_of(const struct rs_replay_frame *f)
{
    const struct rs_ib_opcode *op = rs_ib_opcode_info(f->opcode);

    if (op->name == NULL || rs_ib_opcode_transport(f->opcode) != RS_IB_RC)
        return C_OTHER;
    if (op->op == RS_OP_READ_RESP)
        return C_DATA;
    if (op->op == RS_OP_ATOMIC_ACK)
        return C_ATOMIC;
    if (op->op != RS_OP_ACK || !f->has_aeth)
        return C_OTHER;
    switch (rs_aeth_kind(f->syndrome)) {
    case RS_AETH_ACK:
        return C_ACK;
    case RS_AETH_RNR_NAK:
        return C_RNR;
    case RS_AETH_NAK:
        return C_NAK;
    default:
        return C_OTHER;
    }
}

/* A positive acknowledgement: an ACK, or a READ response or atomic ACK with an AETH. */
static bool
acks(const struct rs_replay_frame *f, enum cls c)
{
    return c == C_ACK || ((c == C_DATA || c == C_ATOMIC) && f->has_aeth &&
                          rs_aeth_kind(f->syndrome) == RS_AETH_ACK);
}

static void
opcode_text(uint8_t opcode, char *buf, size_t size)
{
    const struct rs_ib_opcode *op = rs_ib_opcode_info(opcode);

    if (op->name != NULL)
        snprintf(buf, size, "%s", op->name);
    else
        snprintf(buf, size, "opcode 0x%02x", opcode);
}

/* What a response says, as a divergence shows it. */
static void
response_text(const struct rs_replay_frame *f, char *buf, size_t size)
{
    if (f == NULL) {
        snprintf(buf, size, "none");
        return;
    }
    switch (class_of(f)) {
    case C_ACK:
        snprintf(buf, size, "ACK");
        break;
    case C_RNR:
        snprintf(buf, size, "RNR NAK, timer %u (%.2f ms)", f->syndrome & 0x1f,
                 rs_aeth_rnr_timer_us(f->syndrome & 0x1f) / 1000.0);
        break;
    case C_NAK: {
        const char *n = rs_aeth_nak_name(f->syndrome & 0x1f);
        if (n != NULL)
            snprintf(buf, size, "NAK %s", n);
        else
            snprintf(buf, size, "NAK code %u", f->syndrome & 0x1f);
        break;
    }
    default:
        opcode_text(f->opcode, buf, size);
    }
}

struct cmp {
    const struct rs_replay_compare_opts *o;
    const struct rs_replay_frame *exp, *got;
    size_t n_exp, n_got;
    const uint8_t *exp_base, *got_base;
    GHashTable *got_at;         /* key -> index + 1 of the first got response */
    guint64 *got_keys;
    bool *reported;             /* got responses a divergence already names */
    uint32_t *acked_max;        /* per pass: the highest relative PSN acknowledged + 1 */
    struct rs_replay_result *res;
    /* The MSNs: the relative PSNs of the capture's requests that end a message, sorted; what
     * the capture's MSNs count before its first message; and the messages of a pass. */
    uint32_t *msg_ends;
    size_t n_msg_ends;
    uint32_t msn_origin;
    uint32_t msgs_per_pass;
};

static uint32_t
rel_psn(uint32_t psn, uint32_t base)
{
    return (psn - base) & 0xffffff;
}

static guint64
key_of(uint32_t pass, uint32_t rel, enum cls c)
{
    return (guint64)pass << 32 | (guint64)rel << 3 | (guint64)c;
}

static const struct rs_replay_frame *
got_find(const struct cmp *m, uint32_t pass, uint32_t rel, enum cls c, size_t *index)
{
    guint64 key = key_of(pass, rel, c);
    size_t i = GPOINTER_TO_SIZE(g_hash_table_lookup(m->got_at, &key));

    if (i == 0)
        return NULL;
    if (index != NULL)
        *index = i - 1;
    return &m->got[i - 1];
}

static void
diverge(struct cmp *m, const struct rs_replay_frame *e, const struct rs_replay_frame *g,
        uint8_t rule, const char *field, const char *expected, const char *got)
{
    struct rs_replay_divergence d;

    memset(&d, 0, sizeof(d));
    d.capture_frame = e != NULL ? e->number : 0;
    d.replay_frame = g != NULL ? g->number : 0;
    d.rule = rule;
    snprintf(d.field, sizeof(d.field), "%s", field);
    snprintf(d.expected, sizeof(d.expected), "%s", expected);
    snprintf(d.got, sizeof(d.got), "%s", got);
    g_array_append_val(m->res->divergences, d);
    m->res->by_rule[rule].diverged++;
    if (g != NULL)
        m->reported[g - m->got] = true;
}

static void
tally(struct cmp *m, uint8_t rule, bool same)
{
    m->res->by_rule[rule].compared++;
    if (same)
        m->res->by_rule[rule].same++;
}

static bool
segmentation(const struct cmp *m)
{
    return m->o->target_pmtu != 0 && m->o->trace_pmtu != 0 &&
           m->o->target_pmtu != m->o->trace_pmtu;
}

/* The answer the target gave where the capture has e, of another class: a NAK, an RNR
 * NAK or an ACK at the same PSN. */
static const struct rs_replay_frame *
other_answer(const struct cmp *m, uint32_t pass, uint32_t rel, enum cls not)
{
    static const enum cls order[] = {C_NAK, C_RNR, C_ACK, C_ATOMIC, C_DATA};

    for (size_t i = 0; i < RS_ARRAY_SIZE(order); i++) {
        const struct rs_replay_frame *g;
        if (order[i] != not && (g = got_find(m, pass, rel, order[i], NULL)) != NULL)
            return g;
    }
    return NULL;
}

static uint8_t
class_rule(const struct cmp *m, const struct rs_replay_frame *e, const struct rs_replay_frame *g)
{
    if ((e != NULL && class_of(e) == C_RNR) || (g != NULL && class_of(g) == C_RNR))
        return RS_REPLAY_RULE_RNR;
    if (g != NULL && class_of(g) == C_NAK && (g->syndrome & 0x1f) == RS_NAK_INVALID_REQUEST &&
        segmentation(m))
        return RS_REPLAY_RULE_SEGMENTATION;
    return RS_REPLAY_RULE_ACK_CLASS;
}

/* READ response data: the opcode (the segmentation), the length, and the bytes. Returns
 * true when the answer's shape differs there, so that the rest of the capture's answer to
 * that READ is the same divergence and is not reported again. */
static bool
compare_data(struct cmp *m, const struct rs_replay_frame *e, uint32_t pass, uint32_t rel)
{
    const struct rs_replay_frame *g = got_find(m, pass, rel, C_DATA, NULL);
    char a[64], b[64];

    if (g == NULL) {
        /* A NAK or an RNR NAK in its place is the class of the answer that differs. */
        const struct rs_replay_frame *o = other_answer(m, pass, rel, C_DATA);
        uint8_t rule = o != NULL ? class_rule(m, e, o) : segmentation(m) ?
                       RS_REPLAY_RULE_SEGMENTATION : RS_REPLAY_RULE_OPCODE;
        opcode_text(e->opcode, a, sizeof(a));
        response_text(o, b, sizeof(b));
        tally(m, rule, false);
        diverge(m, e, o, rule, o != NULL ? "infiniband.aeth.syndrome" : "infiniband.bth.opcode",
                a, b);
        return true;
    }
    if (g->opcode != e->opcode || g->payload_len != e->payload_len) {
        uint8_t rule = segmentation(m) || g->payload_len != e->payload_len
                       ? RS_REPLAY_RULE_SEGMENTATION : RS_REPLAY_RULE_OPCODE;
        if (g->opcode != e->opcode) {
            opcode_text(e->opcode, a, sizeof(a));
            opcode_text(g->opcode, b, sizeof(b));
        } else {
            snprintf(a, sizeof(a), "%u bytes", e->payload_len);
            snprintf(b, sizeof(b), "%u bytes", g->payload_len);
        }
        tally(m, rule, false);
        diverge(m, e, g, rule, g->opcode == e->opcode ? "infiniband.payload" :
                "infiniband.bth.opcode", a, b);
        /* The rest of the target's answer to that READ is the same divergence. */
        for (size_t i = (size_t)(g - m->got) + 1; i < m->n_got; i++) {
            const struct rs_ib_opcode *op = rs_ib_opcode_info(m->got[i].opcode);
            if (class_of(&m->got[i]) != C_DATA)
                continue;
            if (op->seg == RS_SEG_FIRST || op->seg == RS_SEG_ONLY)
                break;
            m->reported[i] = true;
            if (op->seg == RS_SEG_LAST)
                break;
        }
        return true;
    }
    tally(m, RS_REPLAY_RULE_OPCODE, true);
    if (!m->o->payloads)
        return false;
    const uint8_t *x = m->exp_base + e->payload_off, *y = m->got_base + g->payload_off;
    uint32_t at = 0;
    while (at < e->payload_len && x[at] == y[at])
        at++;
    tally(m, RS_REPLAY_RULE_PAYLOAD, at == e->payload_len);
    if (at < e->payload_len) {
        snprintf(a, sizeof(a), "byte %u = 0x%02x", at, x[at]);
        snprintf(b, sizeof(b), "byte %u = 0x%02x", at, y[at]);
        diverge(m, e, g, RS_REPLAY_RULE_PAYLOAD, "infiniband.payload", a, b);
    }
    return false;
}

/* An ACK, NAK or RNR NAK of the capture, or its atomic ACK. */
static void
compare_answer(struct cmp *m, const struct rs_replay_frame *e, enum cls c, uint32_t pass,
               uint32_t rel)
{
    const struct rs_replay_frame *g = got_find(m, pass, rel, c, NULL);
    char a[64], b[64];

    if (g != NULL) {
        bool same = true, allowed = false;
        if (c == C_NAK && (g->syndrome & 0x1f) != (e->syndrome & 0x1f))
            same = false;
        if (c == C_RNR && (g->syndrome & 0x1f) != (e->syndrome & 0x1f)) {
            if (m->o->lenient_rnr)
                allowed = true;
            else
                same = false;
        }
        uint8_t rule = c == C_RNR ? RS_REPLAY_RULE_RNR : RS_REPLAY_RULE_ACK_CLASS;
        /* Another RNR timer under lenient_rnr is an allowed difference, counted as a
         * coalesced ACK is (compared and allowed), not also as the same: it was counted
         * both ways, and the table showed one comparison as one same and one allowed. */
        if (allowed) {
            m->res->by_rule[rule].compared++;
            m->res->by_rule[rule].allowed++;
        } else {
            tally(m, rule, same);
        }
        if (!same) {
            response_text(e, a, sizeof(a));
            response_text(g, b, sizeof(b));
            diverge(m, e, g, rule, "infiniband.aeth.syndrome", a, b);
        }
        if (c == C_ATOMIC && m->o->payloads) {
            tally(m, RS_REPLAY_RULE_PAYLOAD, g->orig == e->orig);
            if (g->orig != e->orig) {
                snprintf(a, sizeof(a), "0x%016" G_GINT64_MODIFIER "x", e->orig);
                snprintf(b, sizeof(b), "0x%016" G_GINT64_MODIFIER "x", g->orig);
                diverge(m, e, g, RS_REPLAY_RULE_PAYLOAD, "infiniband.atomicacketh.origremdt", a, b);
            }
        }
        return;
    }
    const struct rs_replay_frame *o = other_answer(m, pass, rel, c);
    if (o != NULL) {
        uint8_t rule = class_rule(m, e, o);
        tally(m, rule, false);
        response_text(e, a, sizeof(a));
        response_text(o, b, sizeof(b));
        diverge(m, e, o, rule, "infiniband.aeth.syndrome", a, b);
        return;
    }
    /* Nothing at that PSN: an ACK for a later PSN covers a positive one (coalescing). */
    if (c == C_ACK && pass < m->res->passes && m->acked_max[pass] > rel) {
        m->res->by_rule[RS_REPLAY_RULE_COMPLETION].compared++;
        m->res->by_rule[RS_REPLAY_RULE_COMPLETION].allowed++;
        return;
    }
    uint8_t rule = c == C_ACK || c == C_ATOMIC ? RS_REPLAY_RULE_COMPLETION : class_rule(m, e, NULL);
    tally(m, rule, false);
    response_text(e, a, sizeof(a));
    diverge(m, e, NULL, rule, "infiniband.aeth.syndrome", a, "none");
}

/* --- The MSN, absolutely (C9-148): the messages the responder completed since its QP
 * began. The target's QP is new, so its MSN counts the replay's messages; the capture's
 * counts from its conversation's start, which the capture may not hold. So the capture's
 * MSNs count from their origin: its first ACK's MSN less the messages its requests had
 * ended by that ACK's PSN (0 for a capture from the start). A target whose MSNs are off by
 * a constant diverges at every one, and the divergence names the offset. --- */

static bool
ends_message(const struct rs_replay_frame *q)
{
    const struct rs_ib_opcode *op = rs_ib_opcode_info(q->opcode);

    if (op->name == NULL || q->retransmission)
        return false;
    if (op->op == RS_OP_SEND || op->op == RS_OP_WRITE)
        return op->seg == RS_SEG_LAST || op->seg == RS_SEG_ONLY;
    return op->op == RS_OP_READ_REQ || op->op == RS_OP_CMP_SWAP || op->op == RS_OP_FETCH_ADD;
}

static int
compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

/* Messages the capture's requests ended at or before relative PSN rel. */
static uint32_t
messages_upto(const struct cmp *m, uint32_t rel)
{
    size_t lo = 0, hi = m->n_msg_ends;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->msg_ends[mid] <= rel)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

static bool
acks_positively(const struct rs_replay_frame *f)
{
    return f->has_aeth && rs_aeth_kind(f->syndrome) == RS_AETH_ACK;
}

static void
msn_prepare(struct cmp *m)
{
    const struct rs_replay_compare_opts *o = m->o;
    uint32_t highest = 0;
    bool have_origin = false;

    m->msg_ends = g_new(uint32_t, o->n_requests + 1);
    for (size_t i = 0; i < o->n_requests; i++)
        if (ends_message(&o->requests[i]))
            m->msg_ends[m->n_msg_ends++] = rel_psn(o->requests[i].psn, o->first_psn);
    qsort(m->msg_ends, m->n_msg_ends, sizeof(uint32_t), compare_u32);
    /* An ACK's MSN says the most plainly what was completed: it goes first. */
    for (int pass = 0; pass < 2 && !have_origin && o->requests != NULL; pass++)
        for (size_t i = 0; i < m->n_exp && !have_origin; i++) {
            const struct rs_replay_frame *e = &m->exp[i];
            if (!acks_positively(e) || (pass == 0 && class_of(e) != C_ACK))
                continue;
            m->msn_origin = (e->msn - messages_upto(m, rel_psn(e->psn, o->first_psn))) &
                            0xffffff;
            have_origin = true;
        }
    for (size_t i = 0; i < m->n_exp; i++)
        if (acks_positively(&m->exp[i]) &&
            ((m->exp[i].msn - m->msn_origin) & 0xffffff) > highest)
            highest = (m->exp[i].msn - m->msn_origin) & 0xffffff;
    m->msgs_per_pass = o->requests != NULL ? (uint32_t)m->n_msg_ends : highest;
}

static void
compare_msn(struct cmp *m, const struct rs_replay_frame *e, const struct rs_replay_frame *g,
            uint32_t pass)
{
    char a[64], b[64];

    if (g == NULL || !acks_positively(e) || !acks_positively(g))
        return;
    uint32_t want = (e->msn - m->msn_origin + pass * m->msgs_per_pass) & 0xffffff;
    tally(m, RS_REPLAY_RULE_MSN, g->msn == want);
    if (g->msn == want)
        return;
    if (m->msn_origin != 0 || pass != 0)
        snprintf(a, sizeof(a), "%u (the capture's %u)", want, e->msn);
    else
        snprintf(a, sizeof(a), "%u", want);
    snprintf(b, sizeof(b), "%u (MSN offset %+d)", g->msn, (int32_t)((g->msn - want) << 8) >> 8);
    diverge(m, e, g, RS_REPLAY_RULE_MSN, "infiniband.aeth.msn", a, b);
}

/* In messages mode a sequence NAK (the capture's or the target's) answered a requester's
 * loss, and the retries it caused are that requester's own. */
static bool
retry_only(const struct cmp *m, const struct rs_replay_frame *f, enum cls c)
{
    return m->o->messages && c == C_NAK && (f->syndrome & 0x1f) == RS_NAK_PSN_SEQ_ERROR;
}

static void
index_got(struct cmp *m)
{
    const struct rs_replay_compare_opts *o = m->o;
    uint32_t base = (o->first_psn + o->psn_offset) & 0xffffff;

    for (size_t i = 0; i < m->n_got; i++) {
        const struct rs_replay_frame *g = &m->got[i];
        enum cls c = class_of(g);
        uint32_t d = rel_psn(g->psn, base);
        uint32_t pass = o->psn_span != 0 ? d / o->psn_span : 0;
        uint32_t rel = o->psn_span != 0 ? d % o->psn_span : d;
        m->got_keys[i] = key_of(pass, rel, c);
        if (c == C_OTHER) {
            m->reported[i] = true;      /* not a response: nothing to compare */
            continue;
        }
        if (pass < m->res->passes && acks(g, c) && rel + 1 > m->acked_max[pass])
            m->acked_max[pass] = rel + 1;
        if (!g_hash_table_contains(m->got_at, &m->got_keys[i]))
            g_hash_table_insert(m->got_at, &m->got_keys[i], GSIZE_TO_POINTER(i + 1));
    }
}

/* The capture's first positive acknowledgement of rel or a later PSN: the ACK that
 * covered rel there. */
static const struct rs_replay_frame *
covering_ack(const struct cmp *m, uint32_t rel)
{
    for (size_t i = 0; i < m->n_exp; i++) {
        const struct rs_replay_frame *e = &m->exp[i];
        if (acks(e, class_of(e)) && rel_psn(e->psn, m->o->first_psn) >= rel)
            return e;
    }
    return NULL;
}

/* What the target sent that the capture has no counterpart for. */
static void
compare_extra(struct cmp *m, GHashTable *expected_keys)
{
    char b[64];

    for (size_t i = 0; i < m->n_got; i++) {
        const struct rs_replay_frame *g = &m->got[i];
        if (g->violation != 0) {
            tally(m, RS_REPLAY_RULE_VIOLATION, false);
            diverge(m, NULL, g, RS_REPLAY_RULE_VIOLATION, "roceshark.analysis.violation",
                    "none", rs_violation_name(g->violation));
        }
        if (m->reported[i] || g_hash_table_contains(expected_keys, &m->got_keys[i]))
            continue;
        enum cls c = class_of(g);
        size_t first = i;
        got_find(m, (uint32_t)(m->got_keys[i] >> 32), (uint32_t)(m->got_keys[i] >> 3) &
                 0xffffff, c, &first);
        if (first != i || c == C_ACK || retry_only(m, g, c)) {
            /* A duplicate answer (a retry), or an ACK the capture coalesced. */
            m->res->by_rule[RS_REPLAY_RULE_EXTRA].allowed++;
            continue;
        }
        uint8_t rule = c == C_NAK || c == C_RNR ? class_rule(m, NULL, g) : RS_REPLAY_RULE_EXTRA;
        /* A NAK where the capture's responder acknowledged the PSN with a later ACK. */
        const struct rs_replay_frame *e = c == C_NAK || c == C_RNR ?
            covering_ack(m, (uint32_t)(m->got_keys[i] >> 3) & 0xffffff) : NULL;
        char a[64];
        response_text(e, a, sizeof(a));
        tally(m, rule, false);
        response_text(g, b, sizeof(b));
        diverge(m, e, g, rule, c == C_DATA || c == C_ATOMIC ? "infiniband.bth.opcode" :
                "infiniband.aeth.syndrome", a, b);
    }
}

static gint
divergence_order(gconstpointer a, gconstpointer b)
{
    const struct rs_replay_divergence *x = a, *y = b;
    uint64_t kx = x->capture_frame != 0 ? x->capture_frame : UINT64_MAX;
    uint64_t ky = y->capture_frame != 0 ? y->capture_frame : UINT64_MAX;

    if (kx != ky)
        return kx < ky ? -1 : 1;
    return x->replay_frame < y->replay_frame ? -1 : x->replay_frame > y->replay_frame;
}

void
rs_replay_compare(const struct rs_replay_compare_opts *opts,
                  const struct rs_replay_frame *expected, size_t n_expected,
                  const uint8_t *exp_base, const struct rs_replay_frame *got, size_t n_got,
                  const uint8_t *got_base, uint32_t passes, struct rs_replay_result *res)
{
    struct cmp m = {opts, expected, got, n_expected, n_got, exp_base, got_base, NULL, NULL,
                    NULL, NULL, res};

    rs_replay_result_init(res);
    res->passes = passes != 0 ? passes : 1;
    res->expected = n_expected;
    res->got = n_got;
    m.got_at = g_hash_table_new(g_int64_hash, g_int64_equal);
    m.got_keys = g_new0(guint64, n_got + 1);
    m.reported = g_new0(bool, n_got + 1);
    m.acked_max = g_new0(uint32_t, res->passes);
    index_got(&m);
    msn_prepare(&m);

    GHashTable *expected_keys = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    for (uint32_t pass = 0; pass < res->passes; pass++) {
        bool read_differs = false;
        for (size_t i = 0; i < n_expected; i++) {
            const struct rs_replay_frame *e = &expected[i];
            enum cls c = class_of(e);
            uint32_t rel = rel_psn(e->psn, opts->first_psn);
            guint64 *key = g_new(guint64, 1);
            *key = key_of(pass, rel, c);
            if (c == C_OTHER || g_hash_table_contains(expected_keys, key)) {
                g_free(key);        /* not a response, or a repeat of one compared */
                continue;
            }
            g_hash_table_add(expected_keys, key);
            if (retry_only(&m, e, c)) {
                m.res->by_rule[RS_REPLAY_RULE_ACK_CLASS].allowed++;
                continue;
            }
            if (c == C_DATA) {
                uint8_t seg = rs_ib_opcode_info(e->opcode)->seg;
                bool later = seg == RS_SEG_MIDDLE || seg == RS_SEG_LAST;
                if (later && read_differs) {
                    read_differs = seg != RS_SEG_LAST;  /* within an answer already named */
                    continue;
                }
                read_differs = compare_data(&m, e, pass, rel) && seg != RS_SEG_LAST &&
                               seg != RS_SEG_ONLY;
            } else {
                compare_answer(&m, e, c, pass, rel);
            }
            compare_msn(&m, e, got_find(&m, pass, rel, c, NULL), pass);
        }
    }
    compare_extra(&m, expected_keys);
    g_array_sort(res->divergences, divergence_order);

    g_hash_table_destroy(expected_keys);
    g_hash_table_destroy(m.got_at);
    g_free(m.got_keys);
    g_free(m.reported);
    g_free(m.msg_ends);
    g_free(m.acked_max);
}

void
rs_replay_result_init(struct rs_replay_result *res)
{
    memset(res, 0, sizeof(*res));
    res->divergences = g_array_new(FALSE, FALSE, sizeof(struct rs_replay_divergence));
    res->passes = 1;
}

void
rs_replay_result_free(struct rs_replay_result *res)
{
    if (res->divergences != NULL)
        g_array_free(res->divergences, TRUE);
    res->divergences = NULL;
}
