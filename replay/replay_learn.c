/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_learn.c - the target's QP, R_Key and VA, learned through its side
 * channel, and the rewriting maps they give.
 *
 * The target learns from us the trace's requester as the capture shows it
 * (its QPN and first PSN), so that its answers carry the capture's QPN and
 * PSNs: no PSN offset is needed, and the answers compare as they are.
 */
#include <string.h>
#include <unistd.h>

#include <roceshark/transport/rc.h>
#include <roceshark/replay/replay.h>

#include "replay_int.h"

int
rs_replay_learn(const struct rs_replay_trace *trace, const uint8_t src[16],
                const uint8_t target[16], uint32_t scope, uint16_t port,
                struct rs_replay_target *t, char *err)
{
    struct rs_rc_conn_info ours, peer;
    char line[1024];
    int fd;

    memset(t, 0, sizeof(*t));
    t->fd = -1;
    memset(&ours, 0, sizeof(ours));
    memcpy(ours.gid, src, 16);
    ours.qpn = trace->conv.requester_qp & 0xffffff;
    ours.psn = rs_replay_first_psn(trace);
    ours.pmtu = trace->conv.pmtu;
    if (rs_rc_side_connect(target, scope, port, 5000, &fd, err) < 0)
        return RS_EIO;
    t->fd = fd;
    rs_rc_conn_format(&ours, line, sizeof(line));
    int rc = rs_rc_side_exchange(fd, line, &peer, err);
    if (rc != 0)
        return rc;
    t->qpn = peer.qpn;
    t->psn = peer.psn;
    t->rkey = peer.rkey;
    t->pmtu = peer.pmtu;
    t->va = peer.va;
    t->length = peer.length;
    return 0;
}

void
rs_replay_target_release(struct rs_replay_target *t)
{
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
}

/* Whether the user's maps already say where from goes (perhaps to itself). */
static bool
mapped(const struct rs_replay_map *maps, unsigned n, uint32_t from)
{
    for (unsigned i = 0; i < n; i++)
        if (maps[i].from == from)
            return true;
    return false;
}

struct replay_remote
replay_remote_of(const struct rs_replay_trace *trace)
{
    struct replay_remote r = {UINT64_MAX, 0, 0};
    bool any = false;

    for (unsigned i = 0; i < trace->requests->len; i++) {
        const struct rs_replay_frame *f = &g_array_index(trace->requests,
                                                         struct rs_replay_frame, i);
        if (!f->has_reth)
            continue;
        uint64_t end = f->va + (f->dmalen != 0 ? f->dmalen : 8);
        if (!any)
            r.rkey = f->rkey;
        any = true;
        if (f->va < r.lowest)
            r.lowest = f->va;
        if (end > r.end)
            r.end = end;
    }
    return r;
}

void
rs_replay_apply_target(const struct rs_replay_trace *trace, const struct rs_replay_target *t,
                       bool have_va_offset, struct rs_replay_rewrite *rw)
{
    uint32_t qp = trace->conv.responder_qp;
    uint64_t lowest = replay_remote_of(trace).lowest;

    if (qp != 0xffffffffu && !mapped(rw->qpmap, rw->n_qpmap, qp) &&
        rw->n_qpmap < RS_REPLAY_MAX_MAPS)
        rw->qpmap[rw->n_qpmap++] = (struct rs_replay_map){qp, t->qpn};
    for (unsigned i = 0; i < trace->requests->len; i++) {
        const struct rs_replay_frame *f = &g_array_index(trace->requests,
                                                         struct rs_replay_frame, i);
        if (f->has_reth && !mapped(rw->rkeymap, rw->n_rkeymap, f->rkey) &&
            rw->n_rkeymap < RS_REPLAY_MAX_MAPS)
            rw->rkeymap[rw->n_rkeymap++] = (struct rs_replay_map){f->rkey, t->rkey};
    }
    if (!have_va_offset && lowest != UINT64_MAX)
        rw->va_offset = t->va - lowest;
}
