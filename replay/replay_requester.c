/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_requester.c - messages mode: our requester does the trace's work
 * against the target, with its own PSNs, retries and timers, while
 * replay_capture.c keeps the wire.
 *
 * Its QP takes the trace's QPN and first PSN (the target learned them
 * through the side channel), so that the target's answers compare with the
 * capture's as they are. The local region holds the SEND and WRITE data as
 * captured, then room for what READs and atomics bring back.
 */
#include <string.h>

#include <roceshark/transport/rc.h>
#include <roceshark/replay/replay.h>

#include "replay_int.h"

#define RUN_TIMEOUT_NS 30000000000ull   /* the whole run, retries included */
#define STALL_NS 2000000000ull          /* no completion for this long: the target stalls us
                                           (endless RNR retries), which is the divergence */

/* Work whose data comes back into the region: READs and atomics. */
static bool
incoming(uint8_t opcode)
{
    return opcode == RS_RC_WR_RDMA_READ || opcode == RS_RC_WR_ATOMIC_CMP_AND_SWP ||
           opcode == RS_RC_WR_ATOMIC_FETCH_AND_ADD;
}

static uint64_t
region_size(const GArray *msgs, const GByteArray *data)
{
    uint64_t n = data->len;

    for (unsigned i = 0; i < msgs->len; i++) {
        const struct rs_replay_msg *m = &g_array_index(msgs, struct rs_replay_msg, i);
        if (incoming(m->opcode))
            n += m->length;
    }
    return n < 4096 ? 4096 : n;
}

/* The work requests, over the region laid out as the header says. */
static void
make_wrs(const struct rs_replay_trace *trace, const GArray *msgs,
         const struct rs_replay_rewrite *rw, const struct rs_rc_mr *mr, uint32_t data_len,
         struct rs_rc_send_wr *wrs)
{
    uint64_t base = replay_remote_of(trace).lowest, room = data_len;

    for (unsigned i = 0; i < msgs->len; i++) {
        const struct rs_replay_msg *m = &g_array_index(msgs, struct rs_replay_msg, i);
        struct rs_rc_send_wr *wr = &wrs[i];
        bool back = incoming(m->opcode);
        memset(wr, 0, sizeof(*wr));
        wr->wr_id = i;
        wr->opcode = m->opcode;
        wr->flags = RS_RC_SEND_SIGNALED;
        wr->sge = (struct rs_rc_sge){mr->va + (back ? room : m->data_off), m->length, mr->lkey};
        if (back)
            room += m->length;
        wr->remote_addr = base + m->remote_offset + rw->va_offset;
        wr->rkey = replay_map(rw->rkeymap, rw->n_rkeymap, m->rkey);
        wr->imm = m->imm;
        wr->invalidate_rkey = m->imm;
        wr->compare_add = m->compare_add;
        wr->swap = m->swap;
    }
}

/* Posts as the send queue takes them, until every one completed (or failed), or the
 * deadline. */
static int
post_all(struct rs_rc_udp *udp, struct rs_rc_ctx *ctx, struct rs_rc_qp *qp,
         const struct rs_rc_send_wr *wrs, unsigned n, struct rs_replay_run_stats *st, char *err)
{
    uint64_t start = rs_rc_now_ns(), end = start + RUN_TIMEOUT_NS, progress = start;
    unsigned posted = 0, done = 0;
    char why[RS_ERRBUF_SIZE];

    while (done < n && rs_rc_now_ns() < end) {
        while (posted < n && rs_rc_post_send(qp, &wrs[posted], why) == 0)
            posted++;
        if (rs_rc_udp_poll(udp, ctx, 1000000, err) < 0)
            return RS_EIO;
        struct rs_rc_wc wc[16];
        int k;
        while ((k = rs_rc_poll_cq(qp, wc, 16)) > 0) {
            for (int i = 0; i < k; i++)
                if (wc[i].status != RS_RC_WC_SUCCESS && st->failed++ == 0)
                    st->first_failure = wc[i].status;
            done += (unsigned)k;
            progress = rs_rc_now_ns();
        }
        if (rs_rc_now_ns() - progress > STALL_NS)
            break;
        /* A QP in error takes no more work: the target's answer is the divergence. */
        if (rs_rc_qp_state(qp) == RS_RC_QP_ERROR)
            break;
    }
    st->completed = done;
    st->sent = rs_rc_counters_get(ctx)->req_packets;
    st->seconds = (double)(rs_rc_now_ns() - start) / 1e9;
    return 0;
}

int
rs_replay_run_messages(const struct rs_replay_trace *trace, const GArray *msgs,
                       const GByteArray *data, const struct rs_replay_rewrite *rw,
                       const struct rs_replay_target *t, const struct rs_replay_run_opts *o,
                       const struct rs_decode_opts *dopts, GArray *got, GByteArray *got_bytes,
                       struct rs_replay_run_stats *st, char *err)
{
    struct rs_rc_udp_opts uo;
    struct rs_rc_ctx_opts co;
    struct rs_rc_udp *udp = NULL;
    struct rs_rc_ctx *ctx = NULL;
    struct rs_rc_qp *qp = NULL;
    struct replay_capture c;
    struct rs_rc_mr mr;
    uint64_t size = region_size(msgs, data);
    uint8_t *buf = rs_rc_mem_alloc(size);
    struct rs_rc_send_wr *wrs = g_new0(struct rs_rc_send_wr, msgs->len + 1);
    int rc;

    memset(st, 0, sizeof(*st));
    memset(&c, 0, sizeof(c));
    if (buf == NULL) {
        rc = rs_error(err, RS_ENOMEM, "out of memory for a %llu-byte region",
                      (unsigned long long)size);
        goto out;
    }
    if (data->len != 0)
        memcpy(buf, data->data, data->len);
    rs_rc_udp_opts_init(&uo);
    rs_addr_from_ip(rw->family, rw->src, uo.gid);
    if ((rc = rs_rc_udp_open(&udp, &uo, err)) < 0)
        goto out;
    rs_rc_ctx_opts_init(&co);
    rs_addr_from_ip(rw->family, rw->src, co.local_gid);
    co.verify_icrc = rs_rc_udp_checks_icrc(udp);
    if ((rc = rs_rc_ctx_create(&ctx, &co, rs_rc_udp_link(udp), err)) < 0)
        goto out;
    if ((rc = rs_rc_mr_reg(ctx, buf, size, 0, 0, RS_RC_ACCESS_LOCAL_WRITE, &mr, err)) < 0)
        goto out;

    struct rs_rc_conn_info peer = {{0}, t->qpn, t->psn, t->rkey, t->va, t->length, t->pmtu};
    struct rs_rc_qp_attr a;
    uint32_t qpn = trace->conv.requester_qp & 0xffffff;
    rs_addr_from_ip(rw->family, rw->dst, peer.gid);
    rs_rc_qp_attr_init(&a);
    /* An ACK timeout of 268 ms (16) rather than perftest's 67 ms: a retry of ours is a
     * divergence from the capture, so a target slow to answer (a loaded host) must not
     * cause one; a lost packet is still resent at once, on the target's NAK. */
    a.timeout = 16;
    if (trace->conv.pmtu != 0)
        a.pmtu = trace->conv.pmtu;
    rs_rc_qp_attr_connect(&a, qpn, rs_replay_first_psn(trace), &peer);
    if ((rc = rs_rc_qp_create(ctx, &a, &qp, err)) < 0)
        goto out;
    make_wrs(trace, msgs, rw, &mr, data->len, wrs);
    if ((rc = replay_capture_start(trace, rw, o->capture_iface, NULL, NULL, &c, err)) < 0)
        goto out;
    rc = post_all(udp, ctx, qp, wrs, msgs->len, st, err);
    int crc = replay_capture_finish(&c, rw, o, dopts, got, got_bytes, st, rc == 0 ? err : NULL);
    if (rc == 0)
        rc = crc;
out:
    if (qp != NULL)
        rs_rc_qp_destroy(qp);
    if (ctx != NULL)
        rs_rc_ctx_destroy(ctx);
    rs_rc_udp_close(udp);
    if (buf != NULL)
        rs_rc_mem_free(buf, size);
    g_free(wrs);
    return rc;
}
