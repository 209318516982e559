/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * responder_loop.c - the responder's poll loop: RoCE packets and timers,
 * completions, and the side channel's peers, none of which may hold up the
 * others.
 */
#include <inttypes.h>
#include <poll.h>
#include <string.h>

#include "responder_int.h"

/* How long a side-channel peer has for a line: its first from the
 * connection, later ones from their first byte. */
#define SIDE_LINE_TIMEOUT_NS 5000000000ull
/* Lines served per connection per round, so that a peer streaming lines
 * cannot keep the RoCE path waiting either. */
#define SIDE_LINES_PER_ROUND 8
/* How long a refused peer may go on sending before its connection is closed anyway. */
#define SIDE_LINGER_NS 2000000000ull
/* How long the listener rests after accept() fails for want of descriptors
 * or memory: the connection stays pending, so polling again at once would
 * spin. */
#define LISTEN_REST_NS 1000000000ull

static void
complain(struct rs_responder *r, struct complaint *c, uint64_t now, const char *what)
{
    if (c->last_ns != 0 && now - c->last_ns < 1000000000ull) {
        c->held++;
        return;
    }
    if (c->held > 0)
        fprintf(resp_log(r), "roceshark: responder: %s (and %u more since the last report)\n",
                what, c->held);
    else
        fprintf(resp_log(r), "roceshark: responder: %s\n", what);
    c->last_ns = now;
    c->held = 0;
}

/* The address part of a peer's "a.b.c.d:port" or "[v6]:port": its length. */
static size_t
peer_addr_len(const char *peer)
{
    const char *colon = strrchr(peer, ':');

    return colon != NULL ? (size_t)(colon - peer) : strlen(peer);
}

/* Side-channel QPs held by connections from the address of connection slot. */
static unsigned
qps_of_peer(const struct rs_responder *r, unsigned slot)
{
    const char *peer = r->conn[slot].peer;
    size_t n = peer_addr_len(peer);
    unsigned count = 0;

    for (unsigned i = 0; i < r->n_qp; i++) {
        unsigned o = r->qp[i].owner;
        if (o != 0 && peer_addr_len(r->conn[o - 1].peer) == n &&
            memcmp(r->conn[o - 1].peer, peer, n) == 0)
            count++;
    }
    return count;
}

/* Frees the QP at qp[i] now that its requester is done: the ACK it may hold back for
 * the requester's last request goes first. */
static void
free_side_qp(struct rs_responder *r, unsigned i)
{
    rs_rc_qp_ack_now(r->qp[i].qp);
    rs_rc_udp_flush(r->udp);
    resp_remove_qp(r, i);
}

/* Frees the QPs side-channel connection slot asked for: a QP lives as long as the
 * connection of its requester. */
static void
side_free_qps(struct rs_responder *r, unsigned slot)
{
    for (unsigned i = r->n_qp; i-- > 0;)    /* backwards: the last QP takes a freed slot */
        if (r->qp[i].owner == slot + 1)
            free_side_qp(r, i);
}

static void
side_close(struct rs_responder *r, unsigned slot)
{
    side_free_qps(r, slot);
    rs_rc_side_conn_close(&r->conn[slot]);
}

/* Ends a connection we told why: its QPs go now, and the connection lingers, reading
 * and dropping, until the peer closes, so that the peer reads our last lines (closed
 * with its lines unread, it would get a reset instead, which can lose them). */
static void
side_end(struct rs_responder *r, unsigned slot, uint64_t now)
{
    side_free_qps(r, slot);
    rs_rc_side_conn_linger(&r->conn[slot], now, SIDE_LINGER_NS);
}

/* One line from a side-channel peer: a requester's parameters get a QP and
 * ours back. Returns false, with err filled, when the connection is to be
 * closed. */
static bool
side_line(struct rs_responder *r, unsigned slot, const char *line, uint64_t now, char *err)
{
    struct rs_rc_side_conn *c = &r->conn[slot];
    char reply[RS_RC_SIDE_LINE_MAX], why[RS_ERRBUF_SIZE];
    struct rs_rc_conn_info peer;
    uint64_t done;
    int rc;

    if (rs_rc_json_u64(line, "done", &done) || line[0] != '{')
        return true;    /* a perf client's closing report: nothing to do */
    if ((rc = rs_rc_conn_parse(line, &peer, why)) == 0 &&
        qps_of_peer(r, slot) >= RS_RESPONDER_MAX_QPS_PER_PEER)
        rc = rs_error(why, RS_EINVAL, "%.*s holds %d QPs, the most one peer may; "
                      "close a connection first", (int)peer_addr_len(c->peer), c->peer,
                      RS_RESPONDER_MAX_QPS_PER_PEER);
    if (rc == 0)
        rc = resp_add_qp(r, resp_next_qpn(r), peer.gid, peer.qpn, peer.psn,
                         rs_rc_path_mtu(r->o.attr.pmtu, peer.pmtu, 0), r->o.attr.timeout, why);
    if (rc != 0) {
        rs_rc_side_send_error(c->fd, why);
        snprintf(err, RS_ERRBUF_SIZE, "side channel: %s: %.160s", c->peer, why);
        return false;
    }
    struct resp_qp *q = &r->qp[r->n_qp - 1];
    q->owner = slot + 1;
    q->created_ns = now;
    resp_format_info(r, rs_rc_qp_num(q->qp), reply, sizeof(reply));
    return rs_rc_side_send(c->fd, reply, err) == 0;
}

/* Serves what a side-channel peer sent; closes the connection, saying why
 * on the log, when it broke a rule or failed (not when the peer just left). */
static void
side_serve(struct rs_responder *r, unsigned slot, uint64_t now)
{
    char err[RS_ERRBUF_SIZE];
    const char *line;
    int rc = 0;

    for (unsigned k = 0; k < SIDE_LINES_PER_ROUND; k++) {
        rc = rs_rc_side_conn_next(&r->conn[slot], now, &line, err);
        if (rc != 1)
            break;
        if (!side_line(r, slot, line, now, err)) {
            rc = RS_EIO;
            break;
        }
    }
    if (rc == RS_EOF) {
        side_close(r, slot);
    } else if (rc < 0) {
        fprintf(resp_log(r), "roceshark: responder: %s; connection closed\n", err);
        side_end(r, slot, now);
    }
}

/* Side-channel QPs that took no packet for side_idle_ns are freed, said on the log (at
 * most once a second); a connection left with none is told and closed. */
static void
side_idle(struct rs_responder *r, uint64_t now)
{
    char what[RS_ERRBUF_SIZE + 64];

    if (r->o.side_idle_ns == 0)
        return;
    for (unsigned i = r->n_qp; i-- > 0;) {
        struct resp_qp *q = &r->qp[i];
        uint64_t last = rs_rc_qp_last_rx(q->qp);
        if (q->owner == 0 || now - (last > q->created_ns ? last : q->created_ns) <
                                 r->o.side_idle_ns)
            continue;
        unsigned slot = q->owner - 1;
        snprintf(what, sizeof(what), "side channel: %s: QP 0x%06" PRIx32 " took no packet for "
                 "%" PRIu64 " s: freed", r->conn[slot].peer, rs_rc_qp_num(q->qp),
                 (uint64_t)(r->o.side_idle_ns / 1000000000u));
        complain(r, &r->idle, now, what);
        free_side_qp(r, i);
        bool more = false;
        for (unsigned k = 0; k < r->n_qp; k++)
            more |= r->qp[k].owner == slot + 1;
        if (!more) {
            rs_rc_side_send_error(r->conn[slot].fd, what);
            side_end(r, slot, now);
        }
    }
}

/* A connection is waiting on the listener: it gets a free slot, or is
 * accepted, told why, and closed when every slot is taken. */
static void
side_accept(struct rs_responder *r, uint64_t now)
{
    char err[RS_ERRBUF_SIZE], what[RS_ERRBUF_SIZE + 64];
    unsigned i = 0;
    int fd = -1, rc;

    while (i < RS_RESPONDER_MAX_CONNS && r->conn[i].fd >= 0)
        i++;
    if (i == RS_RESPONDER_MAX_CONNS) {
        snprintf(what, sizeof(what), "responder: side channel: %d connections open, no room "
                 "for more; try again later", RS_RESPONDER_MAX_CONNS);
        rc = rs_rc_side_refuse(r->listen_fd, what, err);
        if (rc == 0)
            complain(r, &r->refused, now, what + strlen("responder: "));
    } else {
        rc = rs_rc_side_accept(r->listen_fd, &fd, err);
        if (rc == 0)
            rs_rc_side_conn_open(&r->conn[i], fd, SIDE_LINE_TIMEOUT_NS, now);
    }
    if (rc < 0 && rc != RS_ENOENT) {
        r->listen_rest_until = now + LISTEN_REST_NS;
        snprintf(what, sizeof(what), "%s; not accepting for 1 s", err);
        complain(r, &r->accept_failed, now, what);
    }
}

/* Completions: reported, and receives reposted when asked. */
static void
reap(struct rs_responder *r)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_rc_wc wc[32];

    for (unsigned i = 0; i < r->n_qp; i++) {
        struct resp_qp *q = &r->qp[i];
        int n;
        while ((n = rs_rc_poll_cq(q->qp, wc, 32)) > 0) {
            for (int k = 0; k < n; k++) {
                bool recv = wc[k].opcode == RS_RC_WC_RECV;
                const uint8_t *data = recv ? q->rbuf + wc[k].wr_id * r->o.recv_size : NULL;
                if (r->o.wc_out != NULL)
                    rs_rc_wc_print_json(r->o.wc_out, &wc[k], data);
                /* rping's loop reposts what it takes, as rping does. */
                if ((r->o.repost || q->rping != NULL) && wc[k].opcode >= RS_RC_WC_RECV &&
                    wc[k].status == RS_RC_WC_SUCCESS)
                    resp_post_recvs(r, q, 1, false, err);    /* the slot just freed */
                if (q->rping != NULL)
                    resp_rping_wc(r, q, &wc[k], data);
            }
        }
    }
}

int
rs_responder_run(struct rs_responder *r, int extra_fd,
                 bool (*on_extra)(struct rs_responder *r, void *arg), void *arg, char *err)
{
    struct pollfd pfd[3 + RS_RESPONDER_MAX_CONNS];
    unsigned slot[RS_RESPONDER_MAX_CONNS];  /* pfd[3 + k] watches conn[slot[k]] */

    for (;;) {
        if (r->o.stopped != NULL && r->o.stopped())
            return 0;
        uint64_t now = rs_rc_now_ns();
        bool listening = r->listen_fd >= 0 && now >= r->listen_rest_until;
        bool pending = false;           /* a whole line already buffered */
        unsigned n = 0, k = 0;
        pfd[n++] = (struct pollfd){rs_rc_udp_fd(r->udp), POLLIN, 0};
        pfd[n++] = (struct pollfd){listening ? r->listen_fd : -1, POLLIN, 0};
        pfd[n++] = (struct pollfd){on_extra != NULL ? extra_fd : -1, POLLIN, 0};
        for (unsigned i = 0; i < RS_RESPONDER_MAX_CONNS; i++) {
            if (r->conn[i].fd < 0)
                continue;
            pending |= rs_rc_side_conn_pending(&r->conn[i]);
            slot[k++] = i;
            pfd[n++] = (struct pollfd){r->conn[i].fd, POLLIN, 0};
        }
        if (rs_rc_wait(pfd, n, r->ctx, r->udp, r->o.busy_poll || pending) < 0)
            continue;   /* EINTR: the stop flag is checked above */
        if (rs_rc_udp_poll(r->udp, r->ctx, 0, err) < 0)
            return RS_EIO;
        if (r->cm != NULL) {
            /* The CM's timers are seconds long: the wait's 100 ms cap serves them. */
            rs_cm_progress(r->cm, rs_rc_now_ns());
            rs_rc_udp_flush(r->udp);
        }
        reap(r);
        if ((pfd[2].revents & (POLLIN | POLLHUP)) && !on_extra(r, arg))
            return 0;
        /* The side channel never waits: each connection gives what it has. */
        now = rs_rc_now_ns();
        for (unsigned j = 0; j < k; j++) {
            struct rs_rc_side_conn *c = &r->conn[slot[j]];
            if ((pfd[3 + j].revents & (POLLIN | POLLHUP | POLLERR)) ||
                rs_rc_side_conn_pending(c) || rs_rc_side_conn_expired(c, now))
                side_serve(r, slot[j], now);
        }
        side_idle(r, now);
        /* After the walk, so that a slot freed in it can be taken at once. */
        if (pfd[1].revents & POLLIN)
            side_accept(r, now);
    }
}
