/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sniffer_ring.c - reading from the sniffer QP: poll completions in batches,
 * hand frames out in place, give every slot back to the NIC (failed
 * completions too), and sleep on the completion channel when idle.
 *
 * A slot handed out as a frame stays ours until the next read; then it
 * joins the repost list, which goes back to the NIC in one chained post per
 * repost_batch slots (one doorbell), or before sleeping. A small ring uses
 * small batches, so that most of it stays posted.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/dissectors/encode.h>
#include <roceshark/dissectors/wire.h>

#include "sniffer_int.h"
#include "sniffer_sys.h"

bool
verbs_read_counter(const char *path, uint64_t *out)
{
    FILE *f = fopen(path, "r");
    unsigned long long v;
    bool ok;

    if (f == NULL)
        return false;
    ok = fscanf(f, "%llu", &v) == 1;
    fclose(f);
    if (ok)
        *out = v;
    return ok;
}

static int
post_chain(struct rs_source *src, struct verbs_source *vs, const uint32_t *slots, uint32_t n,
           char *err)
{
    struct ibv_recv_wr *bad = NULL;

    if (n == 0)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        vs->wr[slots[i]].next = i + 1 < n ? &vs->wr[slots[i + 1]] : NULL;
    int e = rs_vsys_post_recv(vs->qp, &vs->wr[slots[0]], &bad);
    if (e != 0)
        return rs_error(err, RS_EIO, "%s: posting receive buffers: %s", src->name, strerror(e));
    return 0;
}

int
verbs_post_all(struct rs_source *src, char *err)
{
    struct verbs_source *vs = src->priv;

    for (uint32_t i = 0; i < vs->slots; i++)
        vs->repost[i] = i;
    return post_chain(src, vs, vs->repost, vs->slots, err);
}

static int
flush_reposts(struct rs_source *src, struct verbs_source *vs, char *err)
{
    int rc = post_chain(src, vs, vs->repost, vs->n_repost, err);

    vs->n_repost = 0;
    return rc;
}

/* Queues a slot for the NIC; posts the batch when it is full. While
 * draining nothing goes back, so the drain ends. */
static int
give_back(struct rs_source *src, struct verbs_source *vs, uint32_t slot, char *err)
{
    vs->repost[vs->n_repost++] = slot;
    if (vs->n_repost >= vs->repost_batch && !vs->draining)
        return flush_reposts(src, vs, err);
    return 0;
}

static int64_t
system_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The NIC's free-running counter, in cycles of hca_core_clock kHz, anchored
 * to the host's clock at the first completion. */
static int64_t
raw_ns(struct verbs_source *vs, uint64_t ts, int64_t now)
{
    if (!vs->anchored) {
        vs->anchored = true;
        vs->anchor_ts = ts;
        vs->anchor_ns = now;
    }
    uint64_t cycles = (ts - vs->anchor_ts) & vs->ts_mask;
    return vs->anchor_ns + (int64_t)(cycles * 1000000u / vs->core_clock_khz);
}

static void
read_completion(struct verbs_source *vs, struct verbs_completion *c, int64_t now)
{
    c->slot = (uint32_t)vs->cq->wr_id;
    c->status = vs->cq->status;
    c->len = c->status == IBV_WC_SUCCESS ? rs_vsys_wc_read_byte_len(vs->cq) : 0;
    switch (vs->clock) {
    case VERBS_CLOCK_WALLCLOCK:
        c->ns = (int64_t)rs_vsys_wc_read_completion_wallclock_ns(vs->cq);
        break;
    case VERBS_CLOCK_RAW:
        c->ns = raw_ns(vs, rs_vsys_wc_read_completion_ts(vs->cq), now);
        break;
    case VERBS_CLOCK_SYSTEM:
        c->ns = now;
        break;
    }
}

/* Takes up to VERBS_POLL_BATCH completions; returns how many, or an error. */
static int
poll_batch(struct rs_source *src, struct verbs_source *vs, char *err)
{
    struct ibv_poll_cq_attr attr = {0};
    int64_t now = vs->clock == VERBS_CLOCK_WALLCLOCK ? 0 : system_ns();
    int e = rs_vsys_start_poll(vs->cq, &attr);
    int n = 0;

    vs->batch_n = vs->batch_pos = 0;
    if (e == ENOENT)
        return 0;
    if (e != 0)
        return rs_error(err, RS_EIO, "%s: polling completions: %s", src->name, strerror(e));
    do {
        read_completion(vs, &vs->batch[n++], now);
    } while (n < VERBS_POLL_BATCH && (e = rs_vsys_next_poll(vs->cq)) == 0);
    rs_vsys_end_poll(vs->cq);
    if (e != 0 && e != ENOENT)
        return rs_error(err, RS_EIO, "%s: polling completions: %s", src->name, strerror(e));
    vs->batch_n = n;
    return n;
}

/* Sleeps until a completion event, a break or the idle timeout: returns 1
 * woken by an event, 0 timed out, or an error. */
static int
wait_event(struct rs_source *src, struct verbs_source *vs, char *err)
{
    struct pollfd fds[2] = {
        {.fd = vs->channel->fd, .events = POLLIN},
        {.fd = vs->break_fd, .events = POLLIN},
    };
    struct ibv_cq *cq;
    void *cq_ctx;

    int n = poll(fds, 2, vs->idle_ms);
    if (n < 0 && errno != EINTR)
        return rs_error(err, RS_EIO, "%s: waiting for completions: %s", src->name,
                        strerror(errno));
    if (n <= 0)
        return 0;
    if (fds[1].revents != 0) {
        vs->draining = true;
        return 1;
    }
    if (ibv_get_cq_event(vs->channel, &cq, &cq_ctx) != 0)
        return 1;   /* nothing there after all (non-blocking channel) */
    vs->armed = false;
    if (++vs->unacked >= VERBS_ACK_BATCH) {
        ibv_ack_cq_events(cq, vs->unacked);
        vs->unacked = 0;
    }
    return 1;
}

static void
fill_frame(struct rs_source *src, struct verbs_source *vs, const struct verbs_completion *c,
           struct rs_frame *frame)
{
    uint8_t *slot = vs->buf + (size_t)c->slot * vs->slot_size;

    frame->ts_sec = c->ns / 1000000000;
    frame->ts_nsec = (uint32_t)(c->ns % 1000000000);
    if (vs->ib_link) {
        /* ERF record header (type 21, InfiniBand), written into the room
         * left before the receive buffer. */
        rs_encode_erf_header(slot, RS_ERF_TYPE_INFINIBAND, 0, frame->ts_sec, frame->ts_nsec,
                             c->len);
        frame->data = slot;
        frame->caplen = frame->len = VERBS_ERF_HDR + c->len;
    } else {
        frame->data = slot + VERBS_ERF_HDR;
        frame->caplen = frame->len = c->len;
    }
    source_stamp_frame(src, frame);
}

static int
verbs_next(struct rs_source *src, struct rs_frame *frame, char *err)
{
    struct verbs_source *vs = src->priv;
    int rc;

    if (vs->held >= 0) {
        uint32_t slot = (uint32_t)vs->held;
        vs->held = -1;
        if ((rc = give_back(src, vs, slot, err)) != 0)
            return rc;
    }
    for (;;) {
        while (vs->batch_pos < vs->batch_n) {
            const struct verbs_completion *c = &vs->batch[vs->batch_pos++];
            if (c->status != IBV_WC_SUCCESS || c->slot >= vs->slots) {
                vs->failed++;
                if (c->slot < vs->slots && (rc = give_back(src, vs, c->slot, err)) != 0)
                    return rc;
                continue;
            }
            fill_frame(src, vs, c, frame);
            vs->held = c->slot;
            return 1;
        }
        if ((rc = poll_batch(src, vs, err)) < 0)
            return rc;
        if (rc > 0)
            continue;
        if (vs->draining)
            return 0;
        if ((rc = flush_reposts(src, vs, err)) != 0)
            return rc;
        if (!vs->armed) {
            /* Arm, then poll once more: a completion may have slipped in between. */
            if ((rc = rs_vsys_req_notify_cq(ibv_cq_ex_to_cq(vs->cq), 0)) != 0)
                return rs_error(err, RS_EIO, "%s: arming the completion queue: %s",
                                src->name, strerror(rc));
            vs->armed = true;
            continue;
        }
        if ((rc = wait_event(src, vs, err)) < 0)
            return rc;
        if (rc == 0 && vs->report_idle)
            return RS_SOURCE_IDLE;
    }
}

static void
verbs_break(struct rs_source *src)
{
    struct verbs_source *vs = src->priv;
    uint64_t one = 1;

    /* write() is async-signal-safe; the reader sees the eventfd in poll(). */
    if (write(vs->break_fd, &one, sizeof(one)) < 0)
        vs->draining = true;
}

static int
verbs_stats(struct rs_source *src, struct rs_source_stats *stats, char *err)
{
    struct verbs_source *vs = src->priv;
    uint64_t oob;

    (void)err;
    stats->ring_drops = vs->failed;
    if (vs->oob_path[0] != '\0' && verbs_read_counter(vs->oob_path, &oob) && oob >= vs->oob_base)
        stats->ring_drops += oob - vs->oob_base;
    return 0;
}

static void
verbs_close(struct rs_source *src)
{
    struct verbs_source *vs = src->priv;

    verbs_teardown(vs);
    free(vs);
    src->priv = NULL;
}

const struct rs_source_ops verbs_ops = {verbs_next, verbs_break, verbs_close, verbs_stats};
