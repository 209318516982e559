/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script_run.c - running a scenario script (see script.h).
 *
 * Our requester (the RC transport on a UDP port) does the posts; the fault
 * engine sits in the port's hook, and beside it a recorder keeps every
 * packet as it was on the wire: what we sent after the faults, what we
 * received before them. After the run the recording goes through the
 * pipeline (decode and analysis) once, and each expectation is checked
 * against it on the way, with the frame and the time that prove it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <roceshark/faults.h>
#include <roceshark/fields.h>
#include <roceshark/pcapio.h>
#include <roceshark/pipeline.h>
#include <roceshark/wire.h>

#include "script_int.h"

#define RECORD_MAX (256u << 20)         /* bytes of packets kept for the checks */
#define LINGER_NS 30000000ull           /* after the last completion: late ACKs, CNPs */

/* A recorded packet: this header, then len bytes, then padding to 8. */
struct record {
    uint64_t t;
    uint32_t len;
    uint32_t pad;
};

struct runner {
    struct rs_script *s;
    struct rs_faults *faults;
    uint64_t fault_first;               /* when a rule first acted; 0 before */
    GByteArray *rec;
    bool rec_full;
    rs_rc_pass_fn pass;
    void *port;
    uint8_t our_gid[16];
    uint32_t our_scope;
    uint64_t last_packet;               /* when the last one was recorded */
    bool have_nak;                      /* the first NAK on the wire, for "from nak" */
    uint32_t nak_psn;
    int exit_status;                    /* the run command's; -1: none, or it did not exit */
};

static void
record(struct runner *r, const uint8_t *pkt, uint32_t len, uint64_t now)
{
    struct record h = {now, len, 0};

    r->last_packet = now;
    if (r->rec->len + sizeof(h) + len > RECORD_MAX) {
        r->rec_full = true;
        return;
    }
    /* Aligned, so that the next header can be read in place. */
    uint32_t pad = (8 - (len & 7)) & 7;
    static const uint8_t zeros[8];
    g_byte_array_append(r->rec, (const guint8 *)&h, sizeof(h));
    g_byte_array_append(r->rec, pkt, len);
    g_byte_array_append(r->rec, zeros, pad);
}

static uint64_t
acted_total(const struct rs_faults *f)
{
    uint64_t n = 0;
    struct rs_fault_rule_stats st;

    for (unsigned i = 0; i < rs_faults_rules(f); i++) {
        rs_faults_rule_stats(f, i, &st);
        n += st.acted;
    }
    return n;
}

static void
emit(void *arg, enum rs_fault_dir dir, const uint8_t *pkt, uint32_t len)
{
    struct runner *r = arg;

    if (dir == RS_FAULT_TX)         /* what goes on the wire, after the faults */
        record(r, pkt, len, rs_rc_now_ns());
    r->pass(r->port, dir == RS_FAULT_RX, pkt, len);
}

static void
hook_packet(void *arg, bool rx, const uint8_t *pkt, uint32_t len, uint64_t now,
            rs_rc_pass_fn pass, void *port)
{
    struct runner *r = arg;

    r->pass = pass;
    r->port = port;
    if (rx)
        record(r, pkt, len, now);   /* what came off the wire, before the faults */
    if (r->faults == NULL) {
        emit(r, rx ? RS_FAULT_RX : RS_FAULT_TX, pkt, len);
        return;
    }
    rs_faults_packet(r->faults, rx ? RS_FAULT_RX : RS_FAULT_TX, RS_DLT_IPV4, pkt, len, now,
                     emit, r);
    if (r->fault_first == 0 && acted_total(r->faults) != 0)
        r->fault_first = now;
}

static uint64_t
hook_poll(void *arg, uint64_t now, rs_rc_pass_fn pass, void *port)
{
    struct runner *r = arg;

    r->pass = pass;
    r->port = port;
    return r->faults != NULL ? rs_faults_poll(r->faults, now, emit, r) : RS_RC_INFINITE;
}

static void
hook_connected(void *arg, const uint8_t local_gid[16], uint32_t qpn, const uint8_t peer_gid[16],
               uint32_t peer_qpn)
{
    struct runner *r = arg;

    if (r->faults != NULL)
        rs_faults_pair(r->faults, local_gid, qpn, peer_gid, peer_qpn);
}

/* Every post's work requests, over a local buffer laid out post after post; data
 * byte i of work request k is (i * 7 + k) & 0xff, as the integration tests' peers use. */
struct plan {
    struct rs_rc_send_wr wr[RS_SCRIPT_MAX_POSTS * 16];
    unsigned n;
};

static uint64_t
plan_size(const struct rs_script *s)
{
    uint64_t n = 0;

    for (unsigned i = 0; i < s->n_posts; i++)
        n += (uint64_t)s->posts[i].size * s->posts[i].count;
    return n < 4096 ? 4096 : n;
}

static int
make_plan(const struct rs_script *s, const struct rs_rc_mr *mr, uint8_t *buf, struct plan *pl,
          char *err)
{
    static const uint8_t opcode[] = {
        [P_WRITE] = RS_RC_WR_RDMA_WRITE, [P_WRITE_IMM] = RS_RC_WR_RDMA_WRITE_WITH_IMM,
        [P_READ] = RS_RC_WR_RDMA_READ,   [P_SEND] = RS_RC_WR_SEND,
        [P_SEND_IMM] = RS_RC_WR_SEND_WITH_IMM, [P_CAS] = RS_RC_WR_ATOMIC_CMP_AND_SWP,
        [P_FAA] = RS_RC_WR_ATOMIC_FETCH_AND_ADD};
    uint64_t local = 0;

    pl->n = 0;
    for (unsigned i = 0; i < s->n_posts; i++) {
        const struct script_post *p = &s->posts[i];
        uint64_t slots = s->peer.length >= p->size ? s->peer.length / p->size : 1;
        for (uint32_t c = 0; c < p->count; c++) {
            if (pl->n == sizeof(pl->wr) / sizeof(pl->wr[0]))
                return rs_error(err, RS_EINVAL, "%s: more than %zu work requests", s->where,
                                sizeof(pl->wr) / sizeof(pl->wr[0]));
            struct rs_rc_send_wr *wr = &pl->wr[pl->n];
            memset(wr, 0, sizeof(*wr));
            wr->wr_id = pl->n;
            wr->opcode = opcode[p->op];
            wr->flags = RS_RC_SEND_SIGNALED;
            wr->sge = (struct rs_rc_sge){mr->va + local, p->size, mr->lkey};
            /* Repeats walk the target's region and start over at its end, as perftest
             * cycles its buffer; the offset is the script's, in range or not. */
            wr->remote_addr = s->peer.va + p->offset + (uint64_t)(c % slots) * p->size;
            wr->rkey = p->has_rkey ? p->rkey : s->peer.rkey;
            wr->imm = p->imm;
            wr->compare_add = p->compare_add;
            wr->swap = p->swap;
            for (uint32_t b = 0; b < p->size; b++)
                buf[local + b] = (uint8_t)(b * 7 + pl->n);
            local += p->size;
            pl->n++;
        }
    }
    return 0;
}

/* The run: posts go as the send queue takes them (in lockstep, one at a time once the
 * previous one completed and the peer's answer arrived, as ibv_rc_pingpong's peer needs),
 * until every one completed or the deadline; then a little more for what follows the last
 * completion. */
static int
run_posts(struct rs_rc_udp *udp, struct rs_rc_ctx *ctx, struct rs_rc_qp *qp,
          const struct plan *pl, bool lockstep, uint64_t timeout_ns, struct rs_rc_wc *wcs,
          unsigned *n_wcs, char *err)
{
    unsigned posted = 0, done = 0, answers = 0;
    uint64_t end = rs_rc_now_ns() + timeout_ns, linger = 0;

    for (;;) {
        while (posted < pl->n && (!lockstep || (posted == done && answers >= posted)) &&
               rs_rc_post_send(qp, &pl->wr[posted], err) == 0)
            posted++;
        if (rs_rc_udp_poll(udp, ctx, 1000000, err) < 0)
            return RS_EIO;
        struct rs_rc_wc wc[16];
        int n;
        while ((n = rs_rc_poll_cq(qp, wc, 16)) > 0)
            for (int i = 0; i < n; i++) {
                if (wc[i].opcode >= RS_RC_WC_RECV)  /* what the peer sent back */
                    answers++;
                else if (done < pl->n)
                    wcs[done++] = wc[i];
            }
        uint64_t now = rs_rc_now_ns();
        if (done == pl->n && (!lockstep || answers >= pl->n) && linger == 0)
            linger = now + LINGER_NS;
        if ((linger != 0 && now >= linger) || now >= end)
            break;
    }
    *n_wcs = done;
    return 0;
}

/* We are the requester: a region for the posts, the QP to the target, and the posts. */
static int
run_requester(struct rs_script *s, struct runner *r, struct rs_rc_udp *udp,
              struct rs_rc_ctx *ctx, struct plan *pl, struct rs_rc_wc *wcs, unsigned *n_wcs,
              char *err)
{
    uint64_t size = plan_size(s);
    uint8_t *buf = rs_rc_mem_alloc(size);
    struct script_conn conn;
    struct rs_rc_mr mr;
    int rc;

    memset(&conn, 0, sizeof(conn));
    conn.side_fd = -1;
    if (buf == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    if (rs_rc_mr_reg(ctx, buf, size, 0, 0, RS_RC_ACCESS_LOCAL_WRITE |
                     RS_RC_ACCESS_REMOTE_WRITE | RS_RC_ACCESS_REMOTE_READ |
                     RS_RC_ACCESS_REMOTE_ATOMIC, &mr, err) < 0) {
        rc = RS_EIO;
        goto out;
    }
    struct rs_rc_conn_info ours = {{0}, s->qpn, s->psn, mr.rkey, mr.va, mr.length,
                                   s->attr.pmtu};
    memcpy(ours.gid, r->our_gid, 16);
    if ((rc = script_connect(s, r->our_gid, r->our_scope, udp, ctx, &ours, &conn, err)) != 0)
        goto out;
    if (make_plan(s, &mr, buf, pl, err) != 0) {
        rc = RS_EINVAL;
        goto out;
    }
    rc = run_posts(udp, ctx, conn.qp, pl, s->setup == RS_OOB_SETUP_PINGPONG && s->side,
                   s->timeout_ns, wcs, n_wcs, err);
    if (rc == 0)
        rc = script_disconnect(&conn, pl->n, err);
out:
    script_conn_release(&conn);
    rs_rc_mem_free(buf, size);
    return rc;
}

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
            g_string_append_printf(g, " && infiniband.bth.psn == %u", e->psn);
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
    uint32_t psn;
    uint64_t count;         /* frames that matched */
    uint64_t second;        /* the second one's number */
    uint64_t first_sent;    /* a retransmission: when its PSN first went (0: unknown) */
    int same;               /* expect same: the field, or -1 */
    uint64_t value;         /* its value in the first frame */
    uint64_t other_frame;   /* the first frame where it differs (0: none) */
    uint64_t other;
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

static int
scan_recording(struct runner *r, struct hit *hits, unsigned n, uint64_t *first_t,
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
    /* In the order of the wire: a received packet is stamped with its arrival, which can
     * be before what we sent while it waited to be read. */
    GArray *order = g_array_new(FALSE, FALSE, sizeof(struct wire_order));
    /* When each request PSN first went, so that a resend says how long the requester
     * waited (an ACK timeout, an RNR timer), whatever the peer's own delays. */
    GHashTable *sent = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    for (guint off = 0; off < r->rec->len;) {
        const struct record *h = (const struct record *)(r->rec->data + off);
        struct wire_order wo = {h->t, off};
        g_array_append_val(order, wo);
        off += sizeof(*h) + h->len + ((8 - (h->len & 7)) & 7);
    }
    g_array_sort(order, by_time);
    for (guint k = 0; k < order->len; k++) {
        guint off = g_array_index(order, struct wire_order, k).off;
        const struct record *h = (const struct record *)(r->rec->data + off);
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
        const struct rs_pipeline_result *res = rs_pipeline_process(pl, &f);
        if (res == NULL)
            continue;
        bool ours = rs_addr_is_v4mapped(r->our_gid)
                        ? h->len >= 20 && memcmp(data + 12, r->our_gid + 12, 4) == 0
                        : h->len >= 40 && memcmp(data + 8, r->our_gid, 16) == 0;
        uint32_t psn = rs_packet_has(&res->pkt, RS_LAYER_BTH)
                           ? rs_load_be24(rs_packet_at(&res->pkt, RS_LAYER_BTH) + 9) : 0;
        bool request = rs_packet_has(&res->pkt, RS_LAYER_BTH) && ours == !r->s->accept &&
                       !(res->facts.flags & RS_FACT_RESPONSE) && res->pkt.opcode != 0x81;
        if (request && !g_hash_table_contains(sent, GUINT_TO_POINTER(psn)))
            g_hash_table_insert(sent, GUINT_TO_POINTER(psn), g_memdup2(&h->t, sizeof(h->t)));
        if (!r->have_nak && rs_packet_has(&res->pkt, RS_LAYER_AETH) &&
            rs_packet_at(&res->pkt, RS_LAYER_AETH)[0] >> 5 == RS_AETH_NAK) {
            r->have_nak = true;
            r->nak_psn = psn;
        }
        for (unsigned i = 0; i < n; i++) {
            struct hit *x = &hits[i];
            if (x->f == NULL || (!x->any_direction && ours != x->from_us) ||
                !rs_filter_match(x->f, &res->pkt))
                continue;
            if (x->count++ == 1)
                x->second = number;
            if (x->same >= 0)
                compare_same(x, &res->pkt, number);
            if (x->frame != 0)
                continue;
            x->frame = number;
            x->t = h->t;
            x->psn = psn;
            const uint64_t *first = g_hash_table_lookup(sent, GUINT_TO_POINTER(psn));
            x->first_sent = request && first != NULL && *first < h->t ? *first : 0;
        }
    }
    g_hash_table_destroy(sent);
    g_array_free(order, TRUE);
    if (w != NULL && rs_writer_close(w, NULL, rc == 0 ? err : NULL) != 0 && rc == 0)
        rc = RS_EIO;
    rs_pipeline_free(pl);
    return rc;
}

/* Each expectation's verdict, from its hit and the completions. */
static void
judge(const struct rs_script *s, const struct runner *r, const struct hit *hits, uint64_t ref,
      const struct rs_rc_wc *wcs, unsigned n_wcs, unsigned n_wrs, struct rs_script_result *out)
{
    for (unsigned i = 0; i < s->n_expects; i++) {
        const struct script_expect *e = &s->expects[i];
        const struct hit *x = &hits[i];
        struct rs_script_result *res = &out[i];
        double us = x->frame != 0 && x->t >= ref ? (double)(x->t - ref) / 1e3 : 0;

        snprintf(res->text, sizeof(res->text), "%s", e->text);
        if (e->kind == E_EXIT) {
            res->ok = r->exit_status == (int)e->count;
            if (r->exit_status < 0)
                snprintf(res->evidence, sizeof(res->evidence), "the command had not exited by "
                         "the deadline");
            else
                snprintf(res->evidence, sizeof(res->evidence), "the command exited with %d",
                         r->exit_status);
            continue;
        }
        if (e->kind == E_COMPLETION) {
            unsigned ok = 0, with = 0;
            for (unsigned k = 0; k < n_wcs; k++) {
                ok += wcs[k].status == RS_RC_WC_SUCCESS;
                with += wcs[k].status == e->status;
            }
            if (e->status == EXPECT_ALL_OK)
                res->ok = n_wcs == n_wrs && ok == n_wrs;
            else
                res->ok = with > 0;
            snprintf(res->evidence, sizeof(res->evidence), "%u of %u work requests completed, "
                     "%u successfully%s", n_wcs, n_wrs, ok,
                     n_wcs > ok ? ", first error " : "");
            for (unsigned k = 0; k < n_wcs; k++) {
                if (wcs[k].status != RS_RC_WC_SUCCESS) {
                    size_t l = strlen(res->evidence);
                    snprintf(res->evidence + l, sizeof(res->evidence) - l, "%s",
                             rs_rc_wc_status_name(wcs[k].status));
                    break;
                }
            }
            continue;
        }
        if (e->kind == E_SAME) {
            res->ok = x->count >= 2 && x->other_frame == 0;
            if (x->other_frame != 0)
                snprintf(res->evidence, sizeof(res->evidence), "frame %" PRIu64 " has %" PRIu64
                         ", frame %" PRIu64 " has %" PRIu64, x->frame, x->value, x->other_frame,
                         x->other);
            else if (x->count >= 2)
                snprintf(res->evidence, sizeof(res->evidence), "%" PRIu64 " frames, each %"
                         PRIu64, x->count, x->value);
            else
                snprintf(res->evidence, sizeof(res->evidence), "%" PRIu64 " frames matched: "
                         "nothing to compare", x->count);
            continue;
        }
        if (e->kind == E_COUNT) {
            res->ok = x->count == e->count;
            if (x->count >= 2)
                snprintf(res->evidence, sizeof(res->evidence), "%" PRIu64 " frames matched "
                         "(frames %" PRIu64 ", %" PRIu64 "%s)", x->count, x->frame, x->second,
                         x->count > 2 ? ", ..." : "");
            else
                snprintf(res->evidence, sizeof(res->evidence), "%" PRIu64 " frames matched%s",
                         x->count, x->count == 1 ? " (frame " : "");
            if (x->count == 1) {
                size_t l = strlen(res->evidence);
                snprintf(res->evidence + l, sizeof(res->evidence) - l, "%" PRIu64 ")", x->frame);
            }
            continue;
        }
        bool negative = e->kind == E_NO_VIOLATION || e->kind == E_NO_FIELD;
        if (negative) {
            res->ok = x->frame == 0;
            if (res->ok)
                snprintf(res->evidence, sizeof(res->evidence), "no frame matched");
            else
                snprintf(res->evidence, sizeof(res->evidence), "frame %" PRIu64 " matched",
                         x->frame);
            continue;
        }
        if (x->frame == 0) {
            res->ok = false;
            snprintf(res->evidence, sizeof(res->evidence), "no frame matched");
            continue;
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
        snprintf(res->evidence, sizeof(res->evidence), "after %.0f us (frame %" PRIu64
                 ", PSN %u)", us, x->frame, x->psn);
        if (x->first_sent != 0) {
            size_t l = strlen(res->evidence);
            snprintf(res->evidence + l, sizeof(res->evidence) - l, ", resent %.0f us after it "
                     "first went", (double)(x->t - x->first_sent) / 1e3);
        }
        if (e->from_nak) {
            size_t l = strlen(res->evidence);
            if (r->have_nak)
                snprintf(res->evidence + l, sizeof(res->evidence) - l, "; the first NAK names "
                         "PSN %u", r->nak_psn);
            else
                snprintf(res->evidence + l, sizeof(res->evidence) - l, "; no NAK on the wire");
        }
    }
}

/* --target ADDR moves the script to another address; --target SETUP://ADDR[:PORT] also
 * to that connection setup, as the connect statement would. */
static int
retarget(struct rs_script *s, const char *target, char *err)
{
    struct rs_oob_target t;
    char why[RS_ERRBUF_SIZE];

    if (rs_oob_target_parse(target, &t, why) < 0)
        return rs_error(err, RS_EINVAL, "--target %s", why);
    if (script_set_target(s, &t, strstr(target, "://") != NULL, why) < 0)
        return rs_error(err, RS_EINVAL, "--target %s: %s", target, why);
    return 0;
}

int
rs_script_run(struct rs_script *s, const struct rs_script_opts *o,
              struct rs_script_result *results, unsigned *n_results, char *err)
{
    struct runner r;
    struct rs_rc_udp_opts uo;
    struct rs_rc_ctx_opts co;
    struct rs_rc_udp *udp = NULL;
    struct rs_rc_ctx *ctx = NULL;
    struct rs_rc_hook hook = {hook_packet, hook_poll, &r, hook_connected};
    struct plan *pl = calloc(1, sizeof(*pl));
    struct rs_rc_wc *wcs = calloc(sizeof(pl->wr) / sizeof(pl->wr[0]), sizeof(*wcs));
    struct hit hits[RS_SCRIPT_MAX_EXPECTS];
    uint64_t first_t = 0;
    unsigned n_wcs = 0;
    int rc = 0;

    memset(&r, 0, sizeof(r));
    r.exit_status = -1;
    memset(hits, 0, sizeof(hits));
    *n_results = 0;
    r.s = s;
    r.rec = g_byte_array_new();
    if (pl == NULL || wcs == NULL) {
        rc = rs_error(err, RS_ENOMEM, "out of memory");
        goto out;
    }
    if (o->target != NULL && (rc = retarget(s, o->target, err)) != 0)
        goto out;
    const char *bind = o->bind != NULL ? o->bind : s->bind;
    if (rs_addr_parse(bind, r.our_gid, &r.our_scope, NULL) < 0) {
        rc = rs_error(err, RS_EINVAL, "%s: no bind statement and no --bind: our address?",
                      s->where);
        goto out;
    }
    if (s->faults->len > 0 && (rc = rs_faults_parse(s->faults->str, s->where, &r.faults, err)) != 0)
        goto out;
    rs_rc_udp_opts_init(&uo);
    memcpy(uo.gid, r.our_gid, 16);
    uo.scope = r.our_scope;
    uo.hook = &hook;
    uo.no_raw = o->no_raw;
    if ((rc = rs_rc_udp_open(&udp, &uo, err)) < 0) {
        rc = RS_EIO;
        goto out;
    }
    rs_rc_ctx_opts_init(&co);
    memcpy(co.local_gid, r.our_gid, 16);
    co.verify_icrc = rs_rc_udp_checks_icrc(udp);
    if (rs_rc_ctx_create(&ctx, &co, rs_rc_udp_link(udp), err) < 0) {
        rc = RS_EIO;
        goto out;
    }
    if (s->accept)
        rc = script_accept(s, r.our_gid, r.our_scope, bind, udp, ctx, &r.last_packet,
                           &r.exit_status, err);
    else
        rc = run_requester(s, &r, udp, ctx, pl, wcs, &n_wcs, err);
    if (rc != 0)
        goto out;
    for (unsigned i = 0; i < s->n_expects; i++) {
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
        rc = scan_recording(&r, hits, s->n_expects, &first_t, o->pcap, err);
    if (rc == 0) {
        judge(s, &r, hits, r.fault_first != 0 ? r.fault_first : first_t, wcs, n_wcs, pl->n,
              results);
        *n_results = s->n_expects;
    }
out:
    for (unsigned i = 0; i < RS_SCRIPT_MAX_EXPECTS; i++)
        rs_filter_free(hits[i].f);
    if (ctx != NULL)
        rs_rc_ctx_destroy(ctx);
    rs_rc_udp_close(udp);
    rs_faults_free(r.faults);
    g_byte_array_free(r.rec, TRUE);
    free(pl);
    free(wcs);
    return rc;
}

unsigned
rs_script_failures(const struct rs_script_result *r, unsigned n)
{
    unsigned k = 0;

    for (unsigned i = 0; i < n; i++)
        k += !r[i].ok;
    return k;
}

void
rs_script_print_tap(FILE *out, const struct rs_script_result *r, unsigned n)
{
    fprintf(out, "1..%u\n", n);
    for (unsigned i = 0; i < n; i++)
        fprintf(out, "%s %u - %s: %s\n", r[i].ok ? "ok" : "not ok", i + 1, r[i].text,
                r[i].evidence);
}

/* Text in XML attributes. */
static void
xml_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out); break;
        }
    }
}

void
rs_script_print_junit(FILE *out, const char *suite, const struct rs_script_result *r,
                      unsigned n, double seconds)
{
    unsigned failures = rs_script_failures(r, n);

    fprintf(out, "<testsuite name=\"");
    xml_text(out, suite);
    fprintf(out, "\" tests=\"%u\" failures=\"%u\" time=\"%.3f\">\n", n, failures, seconds);
    for (unsigned i = 0; i < n; i++) {
        fprintf(out, "  <testcase classname=\"");
        xml_text(out, suite);
        fprintf(out, "\" name=\"");
        xml_text(out, r[i].text);
        fprintf(out, "\">");
        if (!r[i].ok) {
            fprintf(out, "<failure message=\"");
            xml_text(out, r[i].evidence);
            fprintf(out, "\"/>");
        } else {
            fprintf(out, "<system-out>");
            xml_text(out, r[i].evidence);
            fprintf(out, "</system-out>");
        }
        fprintf(out, "</testcase>\n");
    }
    fprintf(out, "</testsuite>\n");
}
