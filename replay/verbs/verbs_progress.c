/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_progress.c - the port of an opened device and what moves its traffic.
 *
 * Progress runs on a thread of the library, one per opened device, and also
 * inside ibv_poll_cq() and the posting calls. The thread is needed because a
 * verbs application need not call into the library for the transport to
 * work: the server of ib_write_bw or ib_read_bw waits on its TCP socket for
 * the whole test while the client writes into or reads from its memory, and
 * a NIC answers those requests without the application. Progress inside
 * ibv_poll_cq() alone would leave such a peer unanswered. The inline part
 * is for latency: an application that spins on its CQ receives and
 * completes without waiting for the thread to wake, and a post transmits at
 * once. The context's mutex makes the two take turns; the thread sleeps in
 * ppoll() on the socket and an eventfd that posts ring when they leave work
 * the thread must do sooner than it planned (more than one call's budget of
 * packets, or a new timer).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "verbs_int.h"

#define SLEEP_MAX_NS 1000000000ull  /* the thread looks at its stop flag at least this often */
/* An application that spun on its CQ this recently receives for itself: the thread
 * leaves the socket to it (and wakes only for timers), rather than wake on every
 * packet to find the work done and the lock taken, which costs a spinning
 * ping-pong a core's worth of switches. It watches the socket again once the
 * application stopped spinning this long ago. */
#define STANDBY_NS 1000000ull

/* Moves each QP's completions into its CQs, in order; a completion whose CQ
 * is full waits in the QP (and those behind it in the RC queue). */
static void
harvest(struct vb_context *c)
{
    for (struct vb_qp *qp = c->qps; qp != NULL; qp = qp->next) {
        if (qp->rc == NULL)
            continue;
        for (;;) {
            if (!qp->has_held) {
                struct rs_rc_wc w;
                if (rs_rc_poll_cq(qp->rc, &w, 1) == 0)
                    break;
                vb_wc_from_rc(&w, qp->attr.dest_qpn, &qp->held);
                qp->has_held = true;
            }
            struct ibv_cq *cq = (qp->held.opcode & IBV_WC_RECV) ? qp->qpx.qp_base.recv_cq
                                                                 : qp->qpx.qp_base.send_cq;
            if (!vb_cq_push(VB_CONTAINER(cq, struct vb_cq, cq), &qp->held))
                break;
            qp->has_held = false;
        }
    }
}

/* An application's thread left the transport work due before the progress thread
 * means to wake (a held ACK, a new timer, packets beyond one call's budget): wake it,
 * or an application that now blocks in ibv_get_cq_event() would wait for the peer's
 * retransmission. */
static void
wake_if_due(struct vb_context *c)
{
    if (c->sleeping && rs_rc_next_deadline(c->rc) < c->sleep_until) {
        uint64_t one = 1;
        ssize_t w = write(c->wake_fd, &one, sizeof(one));
        (void)w;    /* a full counter wakes it as well */
        c->sleeping = false;
    }
}

void
vb_progress(struct vb_context *c)
{
    char err[RS_ERRBUF_SIZE];

    /* A socket error is a lost packet to the transport, which retries. */
    rs_rc_udp_poll(c->udp, c->rc, 0, err);
    harvest(c);
    wake_if_due(c);
}

void
vb_kick(struct vb_context *c)
{
    if (c->rc == NULL)
        return;
    rs_rc_progress(c->rc, rs_rc_now_ns());
    rs_rc_udp_flush(c->udp);
    harvest(c);
    wake_if_due(c);
}

static void *
progress_main(void *arg)
{
    struct vb_context *c = arg;
    struct pollfd pfd[2] = {{rs_rc_udp_fd(c->udp), POLLIN, 0}, {c->wake_fd, POLLIN, 0}};

    pthread_mutex_lock(&c->lock);
    while (!c->stop) {
        vb_progress(c);
        uint64_t now = rs_rc_now_ns(), d = rs_rc_next_deadline(c->rc);
        uint64_t wait = d <= now ? 0 : d - now;
        if (wait > SLEEP_MAX_NS)
            wait = SLEEP_MAX_NS;
        nfds_t n = 2;
        if (now - c->app_polled_ns < STANDBY_NS) {
            n = 1;      /* pfd[1] only: the wake descriptor */
            if (wait > STANDBY_NS - (now - c->app_polled_ns))
                wait = STANDBY_NS - (now - c->app_polled_ns);
        }
        if (wait > 0) {
            c->sleeping = true;
            c->sleep_until = now + wait;
        }
        /* Let the application's threads in between two turns, even when busy. */
        pthread_mutex_unlock(&c->lock);
        if (wait > 0) {
            struct timespec ts = {(time_t)(wait / 1000000000ull), (long)(wait % 1000000000ull)};
            if (ppoll(pfd + 2 - n, n, &ts, NULL) > 0 && (pfd[1].revents & POLLIN)) {
                uint64_t v;
                ssize_t r = read(c->wake_fd, &v, sizeof(v));
                (void)r;
            }
        } else {
            sched_yield();
        }
        pthread_mutex_lock(&c->lock);
        c->sleeping = false;
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

int
vb_port_open(struct vb_context *c)
{
    struct rs_rc_udp_opts uo;
    struct rs_rc_ctx_opts co;
    char err[RS_ERRBUF_SIZE];

    if (c->rc != NULL)
        return 0;
    rs_rc_udp_opts_init(&uo);
    memcpy(uo.gid, c->dev->gid, 16);
    uo.scope = c->dev->scope;
    errno = 0;
    if (rs_rc_udp_open(&c->udp, &uo, err) < 0) {
        int e = errno != 0 ? errno : EIO;  /* bind()'s: EADDRINUSE, EADDRNOTAVAIL, ... */
        c->udp = NULL;
        return e;
    }
    rs_rc_ctx_opts_init(&co);
    memcpy(co.local_gid, c->dev->gid, 16);
    co.verify_icrc = rs_rc_udp_checks_icrc(c->udp);
    /* ACKs at once, as a NIC sends them, not held back to cover later requests: a
     * program may count on the ACK of its SEND coming before the peer's reply to it
     * (perftest's latency tests with -e take the next event to be the send's). */
    co.ack_delay_ns = 0;
    if (rs_rc_ctx_create(&c->rc, &co, rs_rc_udp_link(c->udp), err) < 0) {
        rs_rc_udp_close(c->udp);
        c->udp = NULL;
        c->rc = NULL;
        return ENOMEM;
    }
    /* The thread takes no signal: the application's handlers run on its own. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&c->thread, NULL, progress_main, c);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        rs_rc_ctx_destroy(c->rc);
        rs_rc_udp_close(c->udp);
        c->rc = NULL;
        c->udp = NULL;
        return rc;
    }
    c->thread_started = true;
    return 0;
}

void
vb_port_close(struct vb_context *c)
{
    if (c->thread_started) {
        uint64_t one = 1;
        pthread_mutex_lock(&c->lock);
        c->stop = true;
        ssize_t w = write(c->wake_fd, &one, sizeof(one));
        (void)w;
        pthread_mutex_unlock(&c->lock);
        pthread_join(c->thread, NULL);
        c->thread_started = false;
    }
    rs_rc_ctx_destroy(c->rc);
    rs_rc_udp_close(c->udp);
    c->rc = NULL;
    c->udp = NULL;
}
