/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_cm.c - the CM engines (transport/cm) on the ports' QP 1, one per port
 * the RDMA CM uses, and the thread that hands them the MADs received and
 * runs their timers (verbs_ucma.h).
 *
 * A port receives on its progress thread (or in a program's poll) under its
 * own mutex, which the RDMA CM's must not be taken under: the MADs of QP 1
 * wait in a bounded inbox for this thread, which takes the RDMA CM's mutex,
 * feeds them to their engine and sleeps until the next engine deadline or
 * the next MAD. An engine sends under the RDMA CM's mutex, taking the port's
 * for the send.
 *
 * The engines announce rdma_cm's response timeout (20: 4.3 s) and 15
 * retries, as Linux's RDMA CM does; ROCESHARK_CM_TIMEOUT=CODE,RETRIES
 * changes both (a test of an unanswered REQ need not wait 70 s).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>

#include "verbs_ucma.h"

#define INBOX 256           /* MADs waiting for the thread; more are dropped (and resent) */
#define SLEEP_MAX_NS 1000000000ull

struct cm_port {
    struct rs_cm *cm;
    unsigned users;
};

/* Under vb_ucma_lock. */
static struct cm_port ports[VB_MAX_DEVICES];
/* Whether port d's MADs are wanted (the GSI handler reads it without the lock). */
static bool wanted[VB_MAX_DEVICES];

static struct {
    pthread_mutex_t lock;
    struct {
        int dev;
        uint8_t gid[16];
        uint32_t qp, len;
        uint8_t mad[RS_CM_MAD_LEN];
    } q[INBOX];
    unsigned head, n;
    uint64_t dropped;
} inbox = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned n_channels;         /* event channels open; under thread_lock */
static pthread_t thread;
static bool running, stop;          /* stop: under vb_ucma_lock */
static int wake_fd = -1;            /* made once, never closed: the GSI handler writes it */

uint64_t
vb_cm_now(void)
{
    return rs_rc_now_ns();
}

void
vb_cm_kick(void)
{
    if (__atomic_load_n(&wake_fd, __ATOMIC_ACQUIRE) >= 0)
        eventfd_write(wake_fd, 1);
}

static int
dev_index(const struct cm_port *p)
{
    return (int)(p - ports);
}

void
vb_cm_mad_in(void *arg, const uint8_t src_gid[16], uint32_t src_qp, const uint8_t *mad,
             uint32_t len, uint64_t now_ns)
{
    struct vb_port *p = arg;
    int n;
    int dev = (int)(p->dev - vb_devices(&n));

    (void)now_ns;
    if (!__atomic_load_n(&wanted[dev], __ATOMIC_ACQUIRE))
        return;     /* no CM ID on this port: as a port without rdma_cm's module */
    pthread_mutex_lock(&inbox.lock);
    if (inbox.n < INBOX) {
        unsigned i = (inbox.head + inbox.n++) % INBOX;
        inbox.q[i].dev = dev;
        memcpy(inbox.q[i].gid, src_gid, 16);
        inbox.q[i].qp = src_qp;
        inbox.q[i].len = len < RS_CM_MAD_LEN ? len : RS_CM_MAD_LEN;
        memcpy(inbox.q[i].mad, mad, inbox.q[i].len);
    } else {
        inbox.dropped++;
    }
    pthread_mutex_unlock(&inbox.lock);
    vb_cm_kick();
}

/* --- the engines --- */

static void
send_mad(void *arg, const uint8_t *gid, uint32_t qp, const uint8_t *mad)
{
    int n;
    struct vb_port *p = &vb_devices(&n)[dev_index(arg)].port;
    char err[RS_ERRBUF_SIZE];

    /* A MAD that cannot go is as lost as a dropped one: the engine resends. */
    pthread_mutex_lock(&p->lock);
    if (p->rc != NULL && rs_rc_gsi_send(p->rc, gid, qp, mad, RS_CM_MAD_LEN, err) == 0)
        vb_links_flush(p);
    pthread_mutex_unlock(&p->lock);
}

static uint16_t
on_request(void *arg, uint32_t id, uint16_t port, const struct rs_cm_params *peer,
           struct rs_cm_params *ours)
{
    return vb_ucma_on_request(dev_index(arg), id, port, peer, ours);
}

static uint16_t
on_sidr_request(void *arg, uint32_t id, uint16_t port, const struct rs_cm_params *peer)
{
    return vb_ucma_on_sidr_request(dev_index(arg), id, port, peer);
}

static void
on_event(void *arg, const struct rs_cm_event *ev)
{
    vb_ucma_on_event(dev_index(arg), ev);
}

/* ROCESHARK_CM_TIMEOUT=CODE,RETRIES, each within what a REQ can carry. */
static void
timeouts(struct rs_cm_opts *o)
{
    const char *v = getenv("ROCESHARK_CM_TIMEOUT");
    unsigned code, retries;

    if (v != NULL && sscanf(v, "%u,%u", &code, &retries) == 2 && code <= 31 && retries <= 15) {
        o->response_timeout = (uint8_t)code;
        o->max_retries = (uint8_t)retries;
    }
}

struct rs_cm *
vb_cm_engine(int dev)
{
    return dev >= 0 && dev < VB_MAX_DEVICES ? ports[dev].cm : NULL;
}

int
vb_cm_use(int dev)
{
    struct cm_port *p = &ports[dev];
    struct rs_cm_opts o;
    char err[RS_ERRBUF_SIZE];
    int n;

    if (p->users++ > 0)
        return 0;
    rs_cm_opts_init(&o);
    rs_cm_opts_set_gid(&o, vb_devices(&n)[dev].gid);
    timeouts(&o);
    o.id_seed = (vb_ucma_random_psn() << 8) | 1;
    o.hold_rtu = true;
    o.timewait_ns = VB_UCMA_TIMEWAIT_NS;
    /* As Linux's CM: each listener's backlog bounds the REQs it holds, not their
     * source (cmtime -c 20 opens 20 at once from one address). */
    o.max_half_open_per_peer = RS_CM_MAX_CONNS;
    o.ops = (struct rs_cm_ops){send_mad, p, on_request, on_event, p, on_sidr_request};
    if (rs_cm_create(&p->cm, &o, err) < 0) {
        p->users = 0;
        return ENOMEM;
    }
    __atomic_store_n(&wanted[dev], true, __ATOMIC_RELEASE);
    return 0;
}

void
vb_cm_unuse(int dev)
{
    struct cm_port *p = &ports[dev];

    if (p->users == 0 || --p->users > 0)
        return;
    __atomic_store_n(&wanted[dev], false, __ATOMIC_RELEASE);
    vb_ucma_early_drop(dev);
    rs_cm_destroy(p->cm);
    p->cm = NULL;
}

/* --- the thread --- */

/* Hands the engines what waits in the inbox. Under vb_ucma_lock. */
static void
drain(void)
{
    uint8_t mad[RS_CM_MAD_LEN];
    uint8_t gid[16];

    for (;;) {
        pthread_mutex_lock(&inbox.lock);
        if (inbox.n == 0) {
            pthread_mutex_unlock(&inbox.lock);
            return;
        }
        unsigned i = inbox.head;
        inbox.head = (inbox.head + 1) % INBOX;
        inbox.n--;
        int dev = inbox.q[i].dev;
        uint32_t qp = inbox.q[i].qp, len = inbox.q[i].len;
        memcpy(gid, inbox.q[i].gid, 16);
        memcpy(mad, inbox.q[i].mad, len);
        pthread_mutex_unlock(&inbox.lock);
        if (ports[dev].cm != NULL)
            rs_cm_input(ports[dev].cm, gid, qp, mad, len, vb_cm_now());
    }
}

static void *
cm_main(void *arg)
{
    struct pollfd pfd = {wake_fd, POLLIN, 0};

    (void)arg;
    pthread_mutex_lock(&vb_ucma_lock);
    while (!stop) {
        drain();
        uint64_t now = vb_cm_now(), next = vb_ucma_early_expire(now);
        uint64_t resolving = vb_ucma_resolve_progress(now);
        next = resolving < next ? resolving : next;
        for (int d = 0; d < VB_MAX_DEVICES; d++) {
            if (ports[d].cm == NULL)
                continue;
            rs_cm_progress(ports[d].cm, now);
            uint64_t dl = rs_cm_next_deadline(ports[d].cm);
            next = dl < next ? dl : next;
        }
        uint64_t wait = next <= now ? 0 : next - now;
        wait = wait < SLEEP_MAX_NS ? wait : SLEEP_MAX_NS;
        pthread_mutex_unlock(&vb_ucma_lock);
        struct timespec ts = {(time_t)(wait / 1000000000ull), (long)(wait % 1000000000ull)};
        eventfd_t v;
        if (ppoll(&pfd, 1, &ts, NULL) > 0)
            eventfd_read(wake_fd, &v);
        pthread_mutex_lock(&vb_ucma_lock);
    }
    pthread_mutex_unlock(&vb_ucma_lock);
    return NULL;
}

int
vb_cm_start(void)
{
    int rc = 0;

    pthread_mutex_lock(&thread_lock);
    if (wake_fd < 0) {
        int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (fd < 0) {
            rc = errno;
            goto out;
        }
        __atomic_store_n(&wake_fd, fd, __ATOMIC_RELEASE);
    }
    if (!running) {
        stop = false;
        /* The thread takes no signal: the program's handlers run on its own. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        rc = pthread_create(&thread, NULL, cm_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (rc != 0)
            goto out;
        running = true;
    }
    n_channels++;
out:
    pthread_mutex_unlock(&thread_lock);
    if (rc != 0)
        errno = rc;
    return rc;
}

void
vb_cm_stop(void)
{
    pthread_mutex_lock(&thread_lock);
    if (n_channels > 0 && --n_channels == 0 && running) {
        pthread_mutex_lock(&vb_ucma_lock);
        stop = true;
        pthread_mutex_unlock(&vb_ucma_lock);
        vb_cm_kick();
        pthread_join(thread, NULL);
        running = false;
    }
    pthread_mutex_unlock(&thread_lock);
}
