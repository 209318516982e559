/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * script_connect.c - a requester script's connection to its target: the QP
 * parameters as the script gives them, `roceshark responder`'s side channel,
 * or the target tool's own setup (perftest's, ibv_rc_pingpong's, RDMA CM)
 * through perf's client session (transport/perf), so that a script names a NIC's
 * tool with the same words as `perf --connect` and changes only that line.
 */
#include <string.h>
#include <unistd.h>

#include <roceshark/dissectors/addr.h>

#include "script_int.h"

/* The perftest test a perftest:// or cm:// target runs: the script's, or the
 * one its first post belongs to. The server must be given the same test, -s
 * and -n (perftest's peers agree on them by their command lines). */
static const char *
test_name(const struct rs_script *s)
{
    static const char *const by_op[] = {
        [P_WRITE] = "write_bw", [P_WRITE_IMM] = "write_bw", [P_READ] = "read_bw",
        [P_SEND] = "send_bw",   [P_SEND_IMM] = "send_bw",   [P_CAS] = "atomic_bw",
        [P_FAA] = "atomic_bw"};

    if (s->setup == RS_OOB_SETUP_PINGPONG)
        return "pingpong";
    if (s->test[0] != '\0')
        return s->test;
    return s->n_posts > 0 ? by_op[s->posts[0].op] : "write_bw";
}

/* Through perf's client: its exchange makes the QP (from the script's bind)
 * and learns the target's region. */
static int
connect_perf(struct rs_script *s, const uint8_t our_gid[16], uint32_t our_scope,
             struct rs_rc_udp *udp, struct rs_rc_ctx *ctx, struct script_conn *c, char *err)
{
    struct rs_perf *p = &c->perf;
    uint64_t size = 1, iters = 0, sends = 0;

    for (unsigned i = 0; i < s->n_posts; i++) {
        size = s->posts[i].size > size ? s->posts[i].size : size;
        iters += s->posts[i].count;
        sends += s->posts[i].op == P_SEND || s->posts[i].op == P_SEND_IMM
                     ? s->posts[i].count : 0;
    }
    memset(p, 0, sizeof(*p));
    p->fd = -1;
    p->test = rs_perf_test_find(test_name(s));
    p->client = true;
    p->setup = s->setup;
    p->attr = s->attr;
    memcpy(p->local_gid, our_gid, 16);
    p->local_scope = our_scope;
    memcpy(p->server_gid, s->peer.gid, 16);
    p->server_scope = s->scope;
    p->port = s->port;
    p->size = size;
    p->iters = iters > 0 ? iters : 1;
    p->tx_depth = 128;
    /* Receives for what a pingpong or latency peer sends back. */
    p->rx_depth = sends < 16 ? 16 : sends > 4096 ? 4096 : (uint32_t)sends;
    p->qpn = s->qpn;
    p->psn = s->psn;
    p->udp = udp;
    p->ctx = ctx;
    c->via_perf = true;
    if (rs_perf_setup(p, err) != 0)
        return RS_ENOMEM;
    int rc = rs_perf_exchange(p, err);
    if (rc != 0)
        return rc == RS_EINVAL ? RS_EINVAL : RS_EIO;
    uint8_t gid[16];
    memcpy(gid, s->peer.gid, 16);
    s->peer = p->peer;
    memcpy(s->peer.gid, gid, 16);
    c->qp = p->qp;
    return 0;
}

int
script_connect(struct rs_script *s, const uint8_t our_gid[16], uint32_t our_scope,
               struct rs_rc_udp *udp, struct rs_rc_ctx *ctx, const struct rs_rc_conn_info *ours,
               struct script_conn *c, char *err)
{
    char line[1024];
    int fd, rc = 0;

    memset(c, 0, sizeof(*c));
    c->side_fd = -1;
    if (s->side && s->setup != RS_OOB_SETUP_ROCESHARK)
        return connect_perf(s, our_gid, our_scope, udp, ctx, c, err);
    if (s->side) {
        if (rs_rc_side_connect(s->peer.gid, s->scope, s->port, 5000, &fd, err) < 0)
            return RS_EIO;
        c->side_fd = fd;    /* closed at the end: the responder's QP lives until then */
        rs_rc_conn_format(ours, line, sizeof(line));
        if ((rc = rs_rc_side_exchange(fd, line, &s->peer, err)) != 0)
            return rc;
    }
    struct rs_rc_qp_attr a = s->attr;
    rs_rc_qp_attr_connect(&a, s->qpn, s->psn, &s->peer);
    if (rs_rc_qp_create(ctx, &a, &c->qp, err) < 0)
        return RS_EINVAL;
    return 0;
}

int
script_disconnect(struct script_conn *c, uint64_t work_requests, char *err)
{
    if (!c->via_perf)
        return 0;
    /* What perftest's server prints for us: the size and count, no rates. */
    struct rs_oob_bw_report r = {c->perf.size, work_requests, 0, 0, 0};
    return rs_perf_client_end(&c->perf, &r, err) != 0 ? RS_EIO : 0;
}

void
script_conn_release(struct script_conn *c)
{
    if (c->qp != NULL)
        rs_rc_qp_destroy(c->qp);
    c->qp = NULL;
    if (c->side_fd >= 0)
        close(c->side_fd);
    c->side_fd = -1;
    if (c->via_perf) {
        c->perf.qp = NULL;
        rs_perf_release(&c->perf);
    }
    c->via_perf = false;
}

int
script_set_target(struct rs_script *s, const struct rs_oob_target *t, bool url, char *why)
{
    if (url && s->accept && t->setup != RS_OOB_SETUP_ROCESHARK) {
        rs_error(why, RS_EINVAL, "a %s:// peer connects as a client; an accepting script "
                 "takes our side channel (roceshark://) or the requester's QP (qpn N)",
                 rs_oob_setup_name(t->setup));
        return -1;
    }
    memcpy(s->peer.gid, t->gid, 16);
    s->scope = t->scope;
    rs_addr_format(t->gid, t->scope, s->target, sizeof(s->target));
    if (url) {
        s->setup = t->setup;
        s->side = true;
        s->port = RS_OOB_PERFTEST_PORT;
    }
    if (t->port != 0)
        s->port = t->port;
    return 0;
}
