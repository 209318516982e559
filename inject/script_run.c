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

#include <roceshark/inject/faults.h>
#include <roceshark/dissectors/wire.h>

#include "script_int.h"

#define RECORD_MAX (256u << 20)         /* bytes of packets kept for the checks */
#define LINGER_MIN_NS 30000000ull       /* the least default linger: late ACKs, CNPs */

static void
record(struct script_runner *r, const uint8_t *pkt, uint32_t len, uint64_t now)
{
    struct script_record h = {now, len, 0};

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

/* The recorder, on the hook's wire side: what we sent after the faults, what we
 * received before them. */
static void
wire(void *arg, bool rx, const uint8_t *pkt, uint32_t len, uint64_t now)
{
    (void)rx;
    record(arg, pkt, len, now);
}

/* A QP of ours in this run: packets to it are judged, those to any other QP are strays. */
static void
connected(void *arg, uint32_t qpn)
{
    struct script_runner *r = arg;

    if (r->n_our_qpns < SCRIPT_MAX_OUR_QPS)
        r->our_qpns[r->n_our_qpns++] = qpn;
    else
        r->qpns_overflow = true;    /* more QPs than kept: nothing is taken for a stray */
}

/* Every post's work requests, over a local buffer laid out post after post; data
 * byte i of work request k is (i * 7 + k) & 0xff, as the integration tests' peers use,
 * and a write of 8 bytes with a value is that word, little-endian. */
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

static void
fill(const struct script_post *p, uint8_t *at, unsigned wr)
{
    for (uint32_t b = 0; b < p->size; b++)
        at[b] = p->has_value ? (uint8_t)(p->value >> (8 * b)) : (uint8_t)(b * 7 + wr);
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
            fill(p, buf + local, pl->n);
            local += p->size;
            pl->n++;
        }
    }
    return 0;
}

/* A READ of 8 bytes per memory expectation, into the buffer past the posts' (at local). */
static void
make_readbacks(const struct rs_script *s, const struct rs_rc_mr *mr, uint64_t local,
               struct plan *pl, unsigned *which)
{
    pl->n = 0;
    for (unsigned i = 0; i < s->n_expects; i++) {
        if (s->expects[i].kind != E_MEMORY)
            continue;
        struct rs_rc_send_wr *wr = &pl->wr[pl->n];
        memset(wr, 0, sizeof(*wr));
        wr->wr_id = pl->n;
        wr->opcode = RS_RC_WR_RDMA_READ;
        wr->flags = RS_RC_SEND_SIGNALED;
        wr->sge = (struct rs_rc_sge){mr->va + local + 8ull * pl->n, 8, mr->lkey};
        wr->remote_addr = s->peer.va + s->expects[i].offset;
        wr->rkey = s->peer.rkey;
        which[pl->n++] = i;
    }
}

static unsigned
memory_expects(const struct rs_script *s)
{
    unsigned n = 0;

    for (unsigned i = 0; i < s->n_expects; i++)
        n += s->expects[i].kind == E_MEMORY;
    return n;
}

/* The run: posts go as the send queue takes them (in lockstep, one at a time once the
 * previous one completed and the peer's answer arrived, as ibv_rc_pingpong's peer needs),
 * until every one completed or the deadline at end; then linger_ns more for what follows
 * the last completion. */
static int
run_posts(struct rs_rc_udp *udp, struct rs_rc_ctx *ctx, struct rs_rc_qp *qp,
          const struct plan *pl, bool lockstep, uint64_t end, uint64_t linger_ns,
          struct rs_rc_wc *wcs, unsigned *n_wcs, char *err)
{
    unsigned posted = 0, done = 0, answers = 0;
    uint64_t linger = 0;

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
            linger = now + linger_ns;
        if ((linger != 0 && now >= linger) || now >= end)
            break;
    }
    *n_wcs = done;
    return 0;
}

/* After the posts: the words the memory expectations name, READ back, then the linger. */
static int
run_readbacks(struct script_runner *r, struct rs_rc_udp *udp, struct rs_rc_ctx *ctx,
              struct rs_rc_qp *qp, const struct rs_rc_mr *mr, const uint8_t *buf,
              uint64_t at, uint64_t end, struct plan *pl, char *err)
{
    unsigned which[RS_SCRIPT_MAX_EXPECTS], n = 0;
    struct rs_rc_wc wcs[RS_SCRIPT_MAX_EXPECTS];

    make_readbacks(r->s, mr, at, pl, which);
    int rc = run_posts(udp, ctx, qp, pl, false, end, r->linger_ns, wcs, &n, err);
    for (unsigned k = 0; rc == 0 && k < n; k++) {
        unsigned slot = (unsigned)wcs[k].wr_id;
        struct script_readback *rb = &r->readback[which[slot]];
        rb->done = true;
        rb->status = wcs[k].status;
        rb->value = 0;
        for (int b = 7; b >= 0; b--)
            rb->value = rb->value << 8 | buf[at + 8ull * slot + (unsigned)b];
    }
    return rc;
}

/* We are the requester: a region for the posts, the QP to the target, the posts, and
 * the memory read back. */
static int
run_requester(struct rs_script *s, struct script_runner *r, struct rs_rc_udp *udp,
              struct rs_rc_ctx *ctx, struct plan *pl, struct rs_rc_wc *wcs, unsigned *n_wcs,
              unsigned *n_wrs, char *err)
{
    unsigned readbacks = memory_expects(s);
    uint64_t posts = plan_size(s), size = posts + 8ull * readbacks;
    uint8_t *buf = rs_rc_mem_alloc(size);
    uint64_t end = rs_rc_now_ns() + s->timeout_ns;
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
    *n_wrs = pl->n;
    rc = run_posts(udp, ctx, conn.qp, pl, s->setup == RS_OOB_SETUP_PINGPONG && s->side, end,
                   readbacks > 0 ? 0 : r->linger_ns, wcs, n_wcs, err);
    if (rc == 0 && readbacks > 0)
        rc = run_readbacks(r, udp, ctx, conn.qp, &mr, buf, posts, end, pl, err);
    if (rc == 0)
        rc = script_disconnect(&conn, *n_wrs, err);
out:
    script_conn_release(&conn);
    rs_rc_mem_free(buf, size);
    return rc;
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

/* --target-file: the target as given once, a static peer in place of the script's
 * connect (or, for accept, the requester's QP and first PSN). */
static void
set_target_info(struct rs_script *s, const struct rs_rc_conn_info *info)
{
    struct rs_oob_target t;

    memset(&t, 0, sizeof(t));
    t.setup = RS_OOB_SETUP_ROCESHARK;
    memcpy(t.gid, info->gid, 16);
    script_set_target(s, &t, false, NULL);
    s->peer = *info;
    s->side = false;
    s->setup = RS_OOB_SETUP_ROCESHARK;
}

/* Our QP's number and first PSN: the script's, or new at every run as a real stack's
 * are, so that nothing of an earlier run can pass for this one's. QPs 0 and 1 are the
 * special ones; the number leaves room above it for the QPs accept's responder adds. */
static void
choose_qp(struct rs_script *s)
{
    if (!s->qpn_given)
        s->qpn = (uint32_t)g_random_int_range(2, 0xffff00);
    if (!s->psn_given)
        s->psn = (uint32_t)g_random_int_range(0, 0x1000000);
}

/* The linger: --linger, else the script's statement, else one ACK timeout of our QP
 * (4.096 us * 2^timeout: what a peer's retry takes), at least LINGER_MIN_NS. */
static uint64_t
linger_of(const struct rs_script *s, const struct rs_script_opts *o)
{
    if (o->linger_ns != 0)
        return o->linger_ns;
    if (s->linger_ns != 0)
        return s->linger_ns;
    uint64_t ack = 4096ull << s->attr.timeout;
    return ack > LINGER_MIN_NS ? ack : LINGER_MIN_NS;
}

int
rs_script_run(struct rs_script *s, const struct rs_script_opts *o,
              struct rs_script_result *results, unsigned *n_results, char *err)
{
    struct script_runner r;
    struct rs_rc_udp_opts uo;
    struct rs_rc_ctx_opts co;
    struct rs_rc_udp *udp = NULL;
    struct rs_rc_ctx *ctx = NULL;
    struct rs_faults_hook hook;
    struct plan *pl = calloc(1, sizeof(*pl));
    struct rs_rc_wc *wcs = calloc(sizeof(pl->wr) / sizeof(pl->wr[0]), sizeof(*wcs));
    unsigned n_wcs = 0, n_wrs = 0;
    int rc = 0;

    memset(&r, 0, sizeof(r));
    r.exit_status = -1;
    *n_results = 0;
    r.s = s;
    r.rec = g_byte_array_new();
    if (pl == NULL || wcs == NULL) {
        rc = rs_error(err, RS_ENOMEM, "out of memory");
        goto out;
    }
    if (o->target != NULL && (rc = retarget(s, o->target, err)) != 0)
        goto out;
    if (o->target_info != NULL)
        set_target_info(s, o->target_info);
    const char *bind = o->bind != NULL ? o->bind : s->bind;
    if (rs_addr_parse(bind, r.our_gid, &r.our_scope, NULL) < 0) {
        rc = rs_error(err, RS_EINVAL, "%s: no bind statement and no --bind: our address?",
                      s->where);
        goto out;
    }
    choose_qp(s);
    r.linger_ns = linger_of(s, o);
    if (s->faults->len > 0 && (rc = rs_faults_parse(s->faults->str, s->where, &r.faults, err)) != 0)
        goto out;
    rs_rc_udp_opts_init(&uo);
    memcpy(uo.gid, r.our_gid, 16);
    uo.scope = r.our_scope;
    uo.hook = rs_faults_hook_init(&hook, r.faults);
    hook.wire = wire;
    hook.connected = connected;
    hook.ctx = &r;
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
    if (o->reset != NULL) {
        struct script_env env = {bind, s->target, s->qpn, s->psn, false, 0, 0};
        if ((rc = script_env_run("--reset", o->reset, &env, err)) != 0)
            goto out;
    }
    if (s->accept)
        rc = script_accept(s, r.our_gid, r.our_scope, bind, r.linger_ns, udp, ctx,
                           &r.last_packet, &r.exit_status, err);
    else
        rc = run_requester(s, &r, udp, ctx, pl, wcs, &n_wcs, &n_wrs, err);
    if (rc == 0)
        rc = script_judge(&r, wcs, n_wcs, n_wrs, o->pcap, results, n_results, err);
out:
    if (ctx != NULL)
        rs_rc_ctx_destroy(ctx);
    rs_rc_udp_close(udp);
    rs_faults_free(r.faults);
    g_byte_array_free(r.rec, TRUE);
    free(pl);
    free(wcs);
    return rc;
}
