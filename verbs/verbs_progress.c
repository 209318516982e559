/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_progress.c - the port of a device and what moves its traffic.
 *
 * Progress runs on a thread of the library, one per open port, and also
 * inside ibv_poll_cq() and the posting calls. The thread is needed because a
 * verbs application need not call into the library for the transport to
 * work: the server of ib_write_bw or ib_read_bw waits on its TCP socket for
 * the whole test while the client writes into or reads from its memory, and
 * a NIC answers those requests without the application. Progress inside
 * ibv_poll_cq() alone would leave such a peer unanswered. The inline part
 * is for latency and bandwidth: an application that spins on its CQ
 * receives and completes without waiting for the thread to wake, and posts
 * go out with its next call, several to a system call. The port's mutex
 * makes the two take turns. While the application keeps calling, the thread
 * stands by without the mutex: had it taken the packets too, each post would
 * wait on the mutex while the thread held it (perftest posts a hundred
 * WRITEs between two polls). Otherwise it sleeps in ppoll() on the socket
 * and an eventfd, which rings when the application leaves work due sooner
 * than the thread planned (a new timer) or stops calling (vb_app_leaves).
 *
 * A NIC, or rxe in softirq context, answers the peer whatever the machine's load.
 * When the application is taken off the processor by a busy machine, the thread
 * rescues the port: if the application was standing it by but has been silent for
 * STARVED_NS with packets waiting, or holds the port's lock without calling in,
 * the thread serves the port until the application is back, under SCHED_FIFO at the
 * lowest real-time priority where it may (root, or an RLIMIT_RTPRIO). Its
 * locks inherit priority, so an application thread off the processor with one
 * (inside a post or a poll) runs on at that priority until it lets go, rather than
 * hold the transport up for a time slice of the load (at load 5 on two cores, up
 * to 150 ms: held_off()). The rest of the time the thread keeps the program's
 * scheduling: real-time throughout, it answered each packet as it came, an ACK for
 * every few, and ib_write_bw lost a third of its rate beside stress-ng.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/nstime.h>

#include "verbs_int.h"

#define SLEEP_MAX_NS 1000000000ull  /* the thread looks at its stop flag at least this often */
/* An application that posted or polled this recently receives for itself: the
 * thread leaves the socket to it (and wakes only when told), rather than wake on
 * every packet to find the work done and the lock taken, which costs a spinning
 * ping-pong a core's worth of switches. It looks again this long after the
 * application's last call: at 1 ms, these checks cost ib_write_bw a quarter
 * of its rate in one run of two (the scheduler moved the spinning threads). */
#define STANDBY_NS 10000000ull
/* An application whose polls have returned nothing for this long, and which has
 * posted nothing meanwhile, waits on a CQ the traffic does not reach: perftest's
 * server under -R polls its key exchange's CQ while the client writes into its
 * memory. Its polls stop doing the port's work and the thread serves the port,
 * as for a server that blocks on its TCP socket. Inline, each poll was a system
 * call that found nothing, and on a busy machine the port's ACKs waited for the
 * spinning process's next time slice (a capture of ib_write_bw -R at load 13:
 * 75 stalls of 3 ms or more before an ACK, 1.0 s in all, against 19 and 0.2 s
 * without -R). A ping-pong polls its completions well within this. */
#define IDLE_POLL_NS 1000000ull
/* ... and while more than this many packets came to the port meanwhile: the traffic
 * flows past its CQ. A ping-pong whose peer is slow to reply has seen an ACK or two:
 * it goes on polling inline. Idle, it would answer only once its threads got a
 * processor, which on a machine loaded far past its cores is often later than 1 ms,
 * so that its peer went idle too: ib_send_lat settled at 0.5-1 ms per message in 4
 * of 27 runs at load 18 on two cores, with -R or without. */
#define IDLE_POLL_PACKETS 16
/* How long such a poll waits for a completion before it returns empty: it returns
 * at once when one comes, so this only bounds how long a program that polls
 * between other duties is held. */
#define IDLE_WAIT_NS 200000ull
/* A wake on leaving that finds the application calling again was not needed: its
 * own calls do the work (a ping-pong that polls its CQ on). When such wakes outnumber
 * the needed ones by this many, the thread stops asking for them (wake_on_leave),
 * which it learnt from packets that waited while the program was quiet, as they do
 * while an RDMA CM connection is set up. Kept, a wake per completion (an eventfd
 * write, a ppoll() return, the mutex taken from the application: strace of
 * ib_send_lat -R's client, 566 writes and 1194 futex calls in 0.7 s, against 7 and
 * 10 without -R) cost a context switch per message, and on two cores the woken
 * thread took the processor of a spinning peer. */
#define VAIN_WAKES_MAX 8
/* A thread rescuing the port that found work due twice running and moved no packet rests
 * this long (or until a packet comes) rather than yield: sched_yield() gives the
 * processor to no ordinary thread, so a timer that stayed due would spin it. */
#define FIFO_REST_NS 20000ull
/* The thread looks this often, standing by, whether the
 * application, silent this long, left packets in the sockets while its thread is
 * runnable: taken off the processor by a busy machine, it would leave its peer
 * unanswered for the rest of STANDBY_NS (a NIC answers at once). It then serves the
 * port until the application calls again or sleeps elsewhere (its TCP socket): serving
 * under SCHED_FIFO for a program that went to wait there, the thread answered each
 * packet as it came and cost ib_write_bw a third of its rate. */
#define STARVED_NS 1000000ull

/* Moves each QP's completions into its CQs, in order; a completion whose CQ
 * is full waits in the QP (and those behind it in the RC queue). */
static void
harvest(struct vb_port *p)
{
    for (struct vb_qp *qp = p->qps; qp != NULL; qp = qp->next) {
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
            struct vb_cq *vcq = VB_CONTAINER(cq, struct vb_cq, cq);
            if (!vb_cq_push(vcq, &qp->held)) {
                /* A NIC's CQ that overflows is in error (IBV_EVENT_CQ_ERR); ours keeps
                 * the completion waiting in the QP, and says so once. */
                if (!vcq->overflow_told) {
                    struct ibv_async_event ev = {.element.cq = cq,
                                                 .event_type = IBV_EVENT_CQ_ERR};
                    vcq->overflow_told = true;
                    vb_async_push(qp->ctx, &ev);
                }
                break;
            }
            qp->has_held = false;
        }
    }
}

/* An application's thread left the transport work due before the progress thread
 * means to wake (a held ACK, a new timer, packets beyond one call's budget): wake it,
 * or an application that now blocks in ibv_get_cq_event() would wait for the peer's
 * retransmission. */
static void
wake_if_due(struct vb_port *p)
{
    if (p->sleeping && rs_rc_next_deadline(p->rc) < p->sleep_until) {
        uint64_t one = 1;
        ssize_t w = write(p->wake_fd, &one, sizeof(one));
        (void)w;    /* a full counter wakes it as well */
        p->sleeping = false;
    }
}

int
vb_progress(struct vb_port *p)
{
    char err[RS_ERRBUF_SIZE];
    int n = 0;

    /* A socket error is a lost packet to the transport, which retries. */
    for (unsigned i = 0; i < p->n_links; i++) {
        int got = rs_rc_udp_poll(p->links[i].udp, p->rc, 0, err);
        if (got > 0)
            n += got;
    }
    /* What the timers of the last poll sent through the links polled before it. */
    if (p->n_links > 1)
        vb_links_flush(p);
    p->rx_packets += (uint64_t)n;
    harvest(p);
    wake_if_due(p);
    return n;
}

uint32_t
vb_link_mtu(struct vb_port *p, const uint8_t *gid)
{
    uint32_t mtu = 0;

    for (unsigned i = 0; i < p->n_links; i++) {
        if (gid != NULL && memcmp(p->links[i].gid, gid, 16) != 0)
            continue;
        uint32_t m = rs_rc_udp_active_mtu(p->links[i].udp);
        mtu = mtu == 0 || m < mtu ? m : mtu;
    }
    return mtu != 0 ? mtu : vb_active_mtu(p->dev);
}

void
vb_links_flush(struct vb_port *p)
{
    for (unsigned i = 0; i < p->n_links; i++)
        rs_rc_udp_flush(p->links[i].udp);
}

/* How long ago the application last called in; 0 if it did after now (its clock
 * reading came later than ours). */
static uint64_t
since_app(const struct vb_port *p, uint64_t now)
{
    uint64_t active = __atomic_load_n(&p->app_active_ns, __ATOMIC_SEQ_CST);
    return active > now ? 0 : now - active;
}

/* The calling thread's id, for the progress thread to look at its state. */
static pid_t
caller_tid(void)
{
    static __thread pid_t tid;

    if (tid == 0)
        tid = (pid_t)syscall(SYS_gettid);
    return tid;
}

/* The application's thread that called last is runnable, not asleep in a call of its
 * own (its TCP socket, a sleep): taken off the processor by a busy machine, or at work
 * on the other one. Its state is the letter after the name in /proc/self/task/TID/stat. */
static bool
app_runnable(const struct vb_port *p)
{
    pid_t tid = __atomic_load_n(&p->app_tid, __ATOMIC_RELAXED);
    char path[64], buf[512];

    if (tid == 0)
        return false;
    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *end = strrchr(buf, ')');    /* the name may hold anything, ')' too */
    return end != NULL && end[1] == ' ' && end[2] == 'R';
}

/* The application's call got somewhere at now: its polls are not idle. */
static void
got_at(struct vb_port *p, uint64_t now)
{
    p->app_got_ns = now;
    p->rx_at_got = p->rx_packets;
    __atomic_store_n(&p->app_idle, false, __ATOMIC_SEQ_CST);
}

void
vb_app_poll(struct vb_port *p)
{
    if (p->rc == NULL)
        return;
    uint64_t now = rs_rc_now_ns();
    if (now - p->app_got_ns > IDLE_POLL_NS &&
        p->rx_packets - p->rx_at_got > IDLE_POLL_PACKETS) {
        __atomic_store_n(&p->app_idle, true, __ATOMIC_SEQ_CST);
        vb_app_leaves(p, true);
        return;
    }
    __atomic_store_n(&p->app_active_ns, now, __ATOMIC_SEQ_CST);
    __atomic_store_n(&p->app_tid, caller_tid(), __ATOMIC_RELAXED);
    p->app_calls++;
    vb_progress(p);
}

void
vb_app_got(struct vb_port *p)
{
    got_at(p, rs_rc_now_ns());
}

bool
vb_app_idle(struct vb_port *p)
{
    return __atomic_load_n(&p->app_idle, __ATOMIC_SEQ_CST);
}

void
vb_app_idle_wait(struct vb_port *p)
{
    struct timespec until = rs_deadline_after(CLOCK_MONOTONIC, IDLE_WAIT_NS);

    p->idle_pollers++;
    pthread_cond_timedwait(&p->completed, &p->lock, &until);
    p->idle_pollers--;
}

void
vb_app_completed(struct vb_port *p)
{
    if (p->idle_pollers > 0)
        pthread_cond_broadcast(&p->completed);
}

void
vb_app_post(struct vb_port *p)
{
    if (p->rc == NULL)
        return;
    uint64_t now = rs_rc_now_ns();
    bool calling = since_app(p, now) < STANDBY_NS;
    __atomic_store_n(&p->app_active_ns, now, __ATOMIC_SEQ_CST);
    __atomic_store_n(&p->app_tid, caller_tid(), __ATOMIC_RELAXED);
    p->app_calls++;
    got_at(p, now);
    /* Sends what was posted, without the timers: packets may wait in the socket, and
     * an acknowledgement among them must be read before a timer may expire (the
     * next poll, the application's or the thread's, reads them first). */
    rs_rc_transmit(p->rc, now);
    /* An application that keeps calling sends at its next call, a batch of
     * several posts per system call (perftest posts a hundred WRITEs between
     * two polls); the first post after a quiet spell goes at once. */
    if (!calling)
        vb_links_flush(p);
    harvest(p);
    wake_if_due(p);
    /* Another thread of the application waits for the completion in
     * ibv_get_cq_event() (rping's: its main thread posts, its CQ thread
     * waits): nobody will poll, so the thread must not stand by for the
     * poll (10 ms of each RDMA READ's response, each SEND's ACK). */
    if (__atomic_load_n(&p->cq_waiters, __ATOMIC_SEQ_CST) > 0)
        vb_app_leaves(p, true);
}

void
vb_app_leaves(struct vb_port *p, bool blocks)
{
    if (p->rc == NULL)
        return;
    vb_links_flush(p);
    __atomic_store_n(&p->app_active_ns, 0, __ATOMIC_SEQ_CST);
    /* The thread wakes if the application blocks, or if it is one that goes
     * quiet after a completion: the thread learnt that from packets it found
     * waiting when a standby ended (vb_context.wake_on_leave). An application
     * that polls on, as most do, is not worth a wake-up per completion. */
    if ((blocks || __atomic_load_n(&p->wake_on_leave, __ATOMIC_SEQ_CST)) &&
        __atomic_load_n(&p->standing_by, __ATOMIC_SEQ_CST)) {
        uint64_t one = 1;
        p->leave_calls = p->app_calls;
        ssize_t w = write(p->wake_fd, &one, sizeof(one));
        (void)w;
    }
}

/* Sleeps in ppoll() on n descriptors (the wake descriptor last) for at most
 * wait_ns; true if the wake descriptor rang. */
static bool
sleep_on(struct vb_port *p, struct pollfd *pfd, nfds_t n, uint64_t wait_ns)
{
    struct timespec ts = {(time_t)(wait_ns / 1000000000ull), (long)(wait_ns % 1000000000ull)};

    if (ppoll(pfd, n, &ts, NULL) <= 0 || !(pfd[n - 1].revents & POLLIN))
        return false;
    uint64_t v;
    ssize_t r = read(p->wake_fd, &v, sizeof(v));
    (void)r;
    return true;
}

/* A wake on leaving found the application calling again before the thread got any
 * packet for it. */
static void
wake_vain(struct vb_port *p)
{
    if (++p->vain_wakes >= VAIN_WAKES_MAX) {
        __atomic_store_n(&p->wake_on_leave, false, __ATOMIC_SEQ_CST);
        p->vain_wakes = 0;
    }
}

/* After a wake, with the lock: the thread's progress got packets (got of them) before
 * the application called again, which it could not do without them (write_lat spins on
 * its memory): the wake was needed. Judged this late because on a loaded machine the
 * woken thread often runs first, before the application's next call, wanted or not. */
static void
wake_judge(struct vb_port *p, int got)
{
    if (p->app_calls != p->leave_calls) {
        wake_vain(p);
        p->judging = false;
    } else if (got > 0) {
        if (p->vain_wakes > 0)
            p->vain_wakes--;
        p->judging = false;
    }
}

enum stand_by_end {
    SB_NOT_CALLING,     /* at once: the application is not calling */
    SB_WOKEN,           /* the wake descriptor rang */
    SB_QUIET,           /* the application stopped calling */
    SB_STARVED,         /* it is silent, its thread runnable, and packets wait */
};

/* A packet waits in one of the n sockets. */
static bool
packets_waiting(struct pollfd *sockets, nfds_t n)
{
    return poll(sockets, n, 0) > 0;
}

/* While the application keeps calling in, the thread sleeps on the wake
 * descriptor alone, without the lock, which a spinning application holds
 * nearly always (taking it costs both threads a convoy of futex calls). Ends
 * when the application stops calling, leaves (vb_app_leaves) or the library
 * closes. */
static enum stand_by_end
stand_by(struct vb_port *p, struct pollfd *pfd, nfds_t n)
{
    enum stand_by_end end = SB_NOT_CALLING;
    struct pollfd *wake = pfd + n - 1;

    /* Set before reading app_active_ns, as vb_app_leaves() clears that before
     * reading this: one of the two sees the other's write. */
    __atomic_store_n(&p->standing_by, true, __ATOMIC_SEQ_CST);
    for (;;) {
        uint64_t since = since_app(p, rs_rc_now_ns());
        if (since >= STANDBY_NS)
            break;
        if (since >= STARVED_NS && packets_waiting(pfd, n - 1) &&
            app_runnable(p)) {
            end = SB_STARVED;
            break;
        }
        end = SB_QUIET;
        uint64_t nap = STANDBY_NS - since;
        if (nap > STARVED_NS)
            nap = STARVED_NS;
        if (!sleep_on(p, wake, 1, nap))
            continue;
        /* Read after the wake was consumed: vb_app_leaves() clears app_active_ns
         * before it rings, so a later call is one the application made since. */
        if (since_app(p, rs_rc_now_ns()) >= STANDBY_NS) {
            end = SB_WOKEN;
            break;
        }
        /* It calls again: its calls do the work; stand by on. */
        wake_vain(p);
    }
    __atomic_store_n(&p->standing_by, false, __ATOMIC_SEQ_CST);
    return end;
}

/* The thread waited waited_ns for the lock of an application that held it without
 * calling in for STANDBY_NS: one taken off the processor inside the library, its
 * peer's packets unanswered meanwhile (a NIC answers them whatever the
 * application's scheduling). Counted for the counters' line, from 1 ms. Lock held. */
static void
held_off(struct vb_port *p, uint64_t waited_ns)
{
    if (waited_ns < 1000000ull)
        return;
    p->held_off++;
    if (waited_ns > p->held_off_max_ns)
        p->held_off_max_ns = waited_ns;
}

void
vb_mutex_init_pi(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;

    pthread_mutexattr_init(&a);
    if (pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT) != 0)
        pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_NONE);
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

/* The thread's two schedulings: the program's, and a rescue's (SCHED_FIFO, lowest). */
struct schedulings {
    int own_policy;
    struct sched_param own, fifo;
};

/* Reads the thread's schedulings, and whether it may rescue the port under SCHED_FIFO:
 * not with ROCESHARK_VERBS_PRIORITY=normal, nor without the right to (EPERM). Tried
 * once, and the thread's scheduling put back. */
static bool
may_fifo(struct schedulings *s)
{
    const char *want = getenv(VB_ENV_PRIORITY);

    s->own_policy = SCHED_OTHER;
    s->fifo = (struct sched_param){.sched_priority = sched_get_priority_min(SCHED_FIFO)};
    if (pthread_getschedparam(pthread_self(), &s->own_policy, &s->own) != 0 ||
        (want != NULL && strcmp(want, "normal") == 0) ||
        pthread_setschedparam(pthread_self(), SCHED_FIFO, &s->fifo) != 0)
        return false;
    pthread_setschedparam(pthread_self(), s->own_policy, &s->own);
    return true;
}

/* A rescue begins (counted), under SCHED_FIFO where the thread may, or ends, back to the
 * program's scheduling. Called every turn: no system call unless the state changes. */
static void
rescuing(struct vb_port *p, bool on, const struct schedulings *s)
{
    if (p->rescuing == on ||
        (p->may_fifo && pthread_setschedparam(pthread_self(), on ? SCHED_FIFO : s->own_policy,
                                              on ? &s->fifo : &s->own) != 0))
        return;
    p->rescuing = on;
    if (on)
        __atomic_fetch_add(&p->rescues, 1, __ATOMIC_RELAXED);   /* read by tests */
}

static void *
progress_main(void *arg)
{
    struct vb_port *p = arg;
    struct pollfd pfd[VB_MAX_GIDS + 1];
    nfds_t n = 0;

    /* The links' sockets, then the wake descriptor, last, as sleep_on() takes it. */
    for (unsigned i = 0; i < p->n_links; i++)
        pfd[n++] = (struct pollfd){rs_rc_udp_fd(p->links[i].udp), POLLIN, 0};
    pfd[n++] = (struct pollfd){p->wake_fd, POLLIN, 0};

    enum stand_by_end end = SB_NOT_CALLING;
    struct schedulings sched;
    bool fifo = may_fifo(&sched);
    unsigned due_empty = 0;     /* turns in a row with work due that moved no packet */
    bool starved = false;       /* serving while the application is away (SB_STARVED) */
    uint64_t starved_calls = 0; /* its calls when that began */
    uint64_t looked_ns = 0;     /* when its thread's state was last read */

    pthread_mutex_lock(&p->lock);
    p->may_fifo = fifo;
    p->rescuing = false;
    while (!p->stop) {
        uint64_t sent = rs_rc_counters_get(p->rc)->tx_packets;
        int got = vb_progress(p);
        bool moved = got > 0 || rs_rc_counters_get(p->rc)->tx_packets != sent;
        if (got > 0 && end == SB_QUIET)
            __atomic_store_n(&p->wake_on_leave, true, __ATOMIC_SEQ_CST);
        if (end == SB_WOKEN)
            p->judging = true;
        if (p->judging)
            wake_judge(p, got);
        uint64_t now = rs_rc_now_ns(), since = since_app(p, now), wait = 0;
        if (end == SB_STARVED) {
            starved = true;
            starved_calls = p->app_calls;
            looked_ns = now;
        } else if (starved && p->app_calls != starved_calls) {
            starved = false;        /* it is back: its calls do the work */
        } else if (starved && now - looked_ns >= STARVED_NS) {
            starved = app_runnable(p);  /* or it went to sleep elsewhere */
            looked_ns = now;
        }
        rescuing(p, starved, &sched);
        bool standby = since < STANDBY_NS && !starved;
        if (!standby) {
            uint64_t d = rs_rc_next_deadline(p->rc);
            wait = d <= now ? 0 : d - now;
            if (wait > SLEEP_MAX_NS)
                wait = SLEEP_MAX_NS;
        }
        /* Standing by, the application's calls run the timers. */
        p->sleep_until = standby ? 0 : now + wait;
        p->sleeping = standby || wait > 0;
        /* Let the application's threads in between two turns, even when busy. */
        pthread_mutex_unlock(&p->lock);
        end = SB_NOT_CALLING;
        if (standby) {
            if ((end = stand_by(p, pfd, n)) == SB_STARVED)
                rescuing(p, true, &sched);
        } else if (wait > 0)
            sleep_on(p, pfd, n, wait);
        else if (p->rescuing && p->may_fifo && !moved && ++due_empty >= 2)
            sleep_on(p, pfd, n, FIFO_REST_NS);
        else
            sched_yield();
        if (moved || wait > 0 || standby)
            due_empty = 0;
        /* An application inside the library now does what the thread woke for; one
         * off the processor with the lock is rescued: it runs on at the thread's
         * real-time priority (the lock inherits it) until it lets go. */
        while (pthread_mutex_trylock(&p->lock) != 0) {
            end = stand_by(p, pfd, n);
            if (end == SB_NOT_CALLING || end == SB_STARVED) {
                uint64_t from = rs_rc_now_ns();
                rescuing(p, true, &sched);
                pthread_mutex_lock(&p->lock);
                held_off(p, rs_rc_now_ns() - from);
                break;
            }
        }
        p->sleeping = false;
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Opens the UDP port of one address; 0 or the errno of its bind(). */
static int
link_open(struct vb_port *p, const struct vb_gid *g, struct rs_rc_udp **udp)
{
    struct rs_rc_udp_opts uo;
    char err[RS_ERRBUF_SIZE];

    rs_rc_udp_opts_init(&uo);
    uo.raw_send = true;     /* each QP's own UDP source port, as rxe spreads them */
    memcpy(uo.gid, g->raw, 16);
    uo.scope = g->scope != 0 ? g->scope : p->dev->scope;
    errno = 0;
    if (rs_rc_udp_open(udp, &uo, err) < 0) {
        *udp = NULL;
        return errno != 0 ? errno : EIO;    /* bind()'s: EADDRINUSE, EADDRNOTAVAIL, ... */
    }
    return 0;
}

static void
links_close(struct vb_port *p)
{
    for (unsigned i = 0; i < p->n_links; i++)
        rs_rc_udp_close(p->links[i].udp);
    p->n_links = 0;
    for (unsigned i = 0; i < VB_MAX_GIDS; i++)
        p->gid_link[i] = -1;
}

/* A link for every address of the table this host has. The device's own
 * address (one named after an address) must open; of an interface's, those that do. */
static int
links_open(struct vb_port *p)
{
    const struct vb_device *d = p->dev;
    int first_err = 0, own_err = 0;

    for (unsigned i = 0; i < d->n_gids; i++) {
        const struct vb_gid *g = &d->gids[i];
        p->gid_link[i] = -1;
        int same = -1;
        for (unsigned k = 0; k < p->n_links && same < 0; k++)
            if (memcmp(p->links[k].gid, g->raw, 16) == 0)
                same = (int)k;
        if (same >= 0) {
            p->gid_link[i] = same;
            continue;
        }
        struct rs_rc_udp *udp;
        int e = link_open(p, g, &udp);
        p->gid_err[i] = e;
        if (e != 0) {
            first_err = first_err != 0 ? first_err : e;
            if (!d->by_netdev && memcmp(g->raw, d->gid, 16) == 0)
                own_err = e;
            continue;
        }
        p->links[p->n_links].udp = udp;
        memcpy(p->links[p->n_links].gid, g->raw, 16);
        p->gid_link[i] = (int)p->n_links++;
    }
    if (own_err != 0)
        return own_err;
    return p->n_links == 0 ? (first_err != 0 ? first_err : EADDRNOTAVAIL) : 0;
}

/* Why the device's port could not open, in the words every command uses for it. */
static int
port_fail(struct vb_port *p, int e)
{
    const struct vb_device *d = p->dev;
    char what[RS_ADDR_TEXT_MAX + IF_NAMESIZE + 64], err[RS_ERRBUF_SIZE];

    if (d->by_netdev)
        snprintf(what, sizeof(what), "%s: interface %s: every RoCE v2 address of it, port "
                 "4791", d->ibdev.name, d->netdev.name);
    else
        rs_addr_format_port(d->gid, d->scope, RS_ROCEV2_UDP_PORT, what, sizeof(what));
    rs_error_errno(err, e, what);
    return d->by_netdev ? vb_fail(e, "%s", err) : vb_fail(e, "%s: %s", d->ibdev.name, err);
}

/* Opens the port: the links, the RC context and the progress thread. Under
 * open_lock, with no user yet. */
static int
port_open(struct vb_port *p)
{
    struct rs_rc_ctx_opts co;
    char err[RS_ERRBUF_SIZE];
    struct rs_rc_ctx *rc;

    pthread_mutex_lock(&p->lock);
    int e = links_open(p);
    if (e != 0) {
        links_close(p);
        pthread_mutex_unlock(&p->lock);
        return port_fail(p, e);
    }
    rs_rc_ctx_opts_init(&co);
    memcpy(co.local_gid, p->links[0].gid, 16);
    co.verify_icrc = rs_rc_udp_checks_icrc(p->links[0].udp);
    /* The links open alike: all send whole packets, or none can. */
    co.sport_from_flow = rs_rc_udp_sends_whole(p->links[0].udp);
    /* ACKs at once, as a NIC sends them, not held back to cover later requests: a
     * program may count on the ACK of its SEND coming before the peer's reply to it
     * (perftest's latency tests with -e take the next event to be the send's). */
    co.ack_delay_ns = 0;
    co.event = vb_async_from_rc;
    co.event_arg = p;
    int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake < 0 || rs_rc_ctx_create(&rc, &co, rs_rc_udp_link(p->links[0].udp), err) < 0) {
        e = wake < 0 ? errno : ENOMEM;
        if (wake >= 0)
            close(wake);
        links_close(p);
        pthread_mutex_unlock(&p->lock);
        return vb_fail(e, "%s: the port: %s", p->dev->ibdev.name,
                       e == ENOMEM ? err : strerror(e));
    }
    for (unsigned i = 1; i < p->n_links; i++)
        rs_rc_ctx_add_address(rc, p->links[i].gid, rs_rc_udp_link(p->links[i].udp), err);
    /* QP 1's MADs go to the RDMA CM, which takes those of the ports it uses. */
    rs_rc_gsi_register(rc, vb_cm_mad_in, p);
    p->rc = rc;
    p->wake_fd = wake;
    p->stop = false;
    p->app_active_ns = p->app_got_ns = 0;
    p->rx_packets = p->rx_at_got = 0;
    p->app_idle = false;
    p->standing_by = p->wake_on_leave = p->sleeping = false;
    p->vain_wakes = 0;
    p->app_calls = p->leave_calls = 0;
    p->judging = false;
    p->held_off = p->held_off_max_ns = 0;
    p->rescues = 0;
    p->app_tid = 0;
    pthread_mutex_unlock(&p->lock);
    /* The thread takes no signal: the application's handlers run on its own. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    e = pthread_create(&p->thread, NULL, progress_main, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e != 0) {
        pthread_mutex_lock(&p->lock);
        p->rc = NULL;
        rs_rc_ctx_destroy(rc);
        links_close(p);
        pthread_mutex_unlock(&p->lock);
        close(wake);
        return vb_fail(e, "%s: no progress thread: %s", p->dev->ibdev.name, strerror(e));
    }
    p->thread_started = true;
    return 0;
}

/* With ROCESHARK_VERBS_DEBUG, as the port closes: one line of its transport's
 * counters that are not 0 (rxe keeps its own in hw_counters), and how often, and
 * how long at most, the progress thread waited for an application off the
 * processor inside the library. Lock held. */
static void
counters_tell(struct vb_port *p)
{
    const struct rs_rc_counters *c = rs_rc_counters_get(p->rc);
    char line[2048];
    int k = snprintf(line, sizeof(line), "roceshark: %s: counters:", p->dev->ibdev.name);
    size_t n = k > 0 ? (size_t)k : 0;

    for (unsigned i = 0; i < rs_rc_n_counter_names && n < sizeof(line); i++) {
        uint64_t v;
        memcpy(&v, (const char *)c + rs_rc_counter_names[i].offset, sizeof(v));
        if (v != 0 && (k = snprintf(line + n, sizeof(line) - n, " %s %" PRIu64,
                                    rs_rc_counter_names[i].name, v)) > 0)
            n += (size_t)k;
    }
    if (n < sizeof(line))
        snprintf(line + n, sizeof(line) - n, "; held off by the application %" PRIu64
                 " times, %.1f ms at most; rescued %" PRIu64 " times (%s)", p->held_off,
                 (double)p->held_off_max_ns / 1e6, p->rescues,
                 p->may_fifo ? "SCHED_FIFO" : "normal");
    fprintf(stderr, "%s\n", line);
}

/* Stops the thread and closes the port. Under open_lock, with no user left. */
static void
port_close(struct vb_port *p)
{
    uint64_t one = 1;

    pthread_mutex_lock(&p->lock);
    p->stop = true;
    ssize_t w = write(p->wake_fd, &one, sizeof(one));
    (void)w;
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    p->thread_started = false;
    pthread_mutex_lock(&p->lock);
    if (getenv("ROCESHARK_VERBS_DEBUG") != NULL)
        counters_tell(p);
    rs_rc_ctx_destroy(p->rc);
    links_close(p);
    close(p->wake_fd);
    p->rc = NULL;
    p->wake_fd = -1;
    pthread_mutex_unlock(&p->lock);
}

int
vb_port_acquire(struct vb_port *p)
{
    int rc = 0;

    pthread_mutex_lock(&p->open_lock);
    if (p->users == 0)
        rc = port_open(p);
    if (rc == 0)
        p->users++;
    pthread_mutex_unlock(&p->open_lock);
    return rc;
}

void
vb_port_release(struct vb_port *p)
{
    pthread_mutex_lock(&p->open_lock);
    if (p->users > 0 && --p->users == 0)
        port_close(p);
    pthread_mutex_unlock(&p->open_lock);
}
