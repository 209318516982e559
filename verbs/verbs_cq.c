/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_cq.c - completion queues and completion channels.
 *
 * A CQ is a ring of struct ibv_wc, filled under the context's lock by
 * whoever runs progress (the progress thread, or ibv_poll_cq() itself when
 * it finds the ring empty) and emptied by ibv_poll_cq(). A completion
 * channel is an eventfd in semaphore mode beside a list of the CQs whose
 * event is waiting: the descriptor is readable exactly while an event is,
 * so poll() and epoll work on it as on the kernel's, and a blocking
 * ibv_get_cq_event() sleeps in read() until one comes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "verbs_int.h"

int
vb_ring_init(struct vb_ring *r, uint32_t size)
{
    memset(r, 0, sizeof(*r));
    r->wc = calloc(size, sizeof(*r->wc));
    if (r->wc == NULL)
        return ENOMEM;
    r->size = size;
    return 0;
}

void
vb_ring_free(struct vb_ring *r)
{
    free(r->wc);
    r->wc = NULL;
}

bool
vb_ring_push(struct vb_ring *r, const struct ibv_wc *wc)
{
    if (r->tail - r->head >= r->size)
        return false;
    r->wc[r->tail++ % r->size] = *wc;
    return true;
}

int
vb_ring_pop(struct vb_ring *r, struct ibv_wc *wc, int n)
{
    int got = 0;

    while (got < n && r->head < r->tail)
        wc[got++] = r->wc[r->head++ % r->size];
    return got;
}

/* --- completion channels --- */

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
    struct vb_channel *ch = calloc(1, sizeof(*ch));

    if (ch == NULL) {
        errno = ENOMEM;
        return NULL;
    }
    ch->ch.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
    if (ch->ch.fd < 0) {
        int e = errno;
        free(ch);
        errno = e;
        return NULL;
    }
    ch->ch.context = context;
    vb_mutex_init_pi(&ch->lock);     /* raised by the progress thread */
    return &ch->ch;
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
    struct vb_channel *ch = VB_CONTAINER(channel, struct vb_channel, ch);

    if (channel->refcnt > 0) {
        errno = EBUSY;
        return EBUSY;
    }
    close(ch->ch.fd);
    pthread_mutex_destroy(&ch->lock);
    free(ch);
    return 0;
}

void
vb_channel_raise(struct vb_cq *cq)
{
    struct vb_channel *ch = VB_CONTAINER(cq->cq.channel, struct vb_channel, ch);
    uint64_t one = 1;

    pthread_mutex_lock(&ch->lock);
    /* One event per CQ waits at a time: a second would carry nothing the
     * first does not (the application polls the CQ empty either way). */
    if (!cq->queued) {
        cq->queued = true;
        cq->ev_next = NULL;
        if (ch->last != NULL)
            ch->last->ev_next = cq;
        else
            ch->first = cq;
        ch->last = cq;
        /* Cannot fail: the counter holds at most one per CQ. */
        ssize_t w = write(ch->ch.fd, &one, sizeof(one));
        (void)w;
    }
    pthread_mutex_unlock(&ch->lock);
}

int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
    struct vb_channel *ch = VB_CONTAINER(channel, struct vb_channel, ch);
    uint64_t v;

    /* The application stops calling while it waits here. */
    struct vb_port *port = vb_ctx(channel->context)->port;
    pthread_mutex_lock(&port->lock);
    vb_app_leaves(port, true);
    pthread_mutex_unlock(&port->lock);
    /* Blocks, or fails with EAGAIN when the application made the descriptor
     * non-blocking, as the kernel's channel does. */
    __atomic_add_fetch(&port->cq_waiters, 1, __ATOMIC_SEQ_CST);
    ssize_t got = read(ch->ch.fd, &v, sizeof(v));
    __atomic_sub_fetch(&port->cq_waiters, 1, __ATOMIC_SEQ_CST);
    if (got != sizeof(v))
        return -1;
    pthread_mutex_lock(&ch->lock);
    struct vb_cq *c = ch->first;
    if (c != NULL) {
        ch->first = c->ev_next;
        if (ch->first == NULL)
            ch->last = NULL;
        c->queued = false;
    }
    pthread_mutex_unlock(&ch->lock);
    if (c == NULL) {
        errno = EAGAIN;
        return -1;
    }
    *cq = &c->cq;
    *cq_context = c->cq.cq_context;
    return 0;
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
    pthread_mutex_lock(&cq->mutex);
    cq->comp_events_completed += nevents;
    pthread_cond_signal(&cq->cond);
    pthread_mutex_unlock(&cq->mutex);
}

/* --- completion queues --- */

struct ibv_cq *
ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
              struct ibv_comp_channel *channel, int comp_vector)
{
    if (cqe < 1 || cqe > VB_MAX_CQE || comp_vector < 0 ||
        comp_vector >= context->num_comp_vectors) {
        errno = EINVAL;
        return NULL;
    }
    /* Room for at least what was asked, as a NIC's CQ has (mlx5 rounds cqe + 1 up
     * to a power of two): applications count on the slack. perftest's latency tests
     * with -e ask for one entry per queue and can leave two completions in it. */
    uint32_t size = VB_CQ_MIN;
    while (size < (uint32_t)cqe + 1)
        size *= 2;
    struct vb_cq *c = calloc(1, sizeof(*c));
    if (c == NULL || vb_ring_init(&c->ring, size) != 0) {
        free(c);
        errno = ENOMEM;
        return NULL;
    }
    c->cq.context = context;
    c->cq.channel = channel;
    c->cq.cq_context = cq_context;
    c->cq.cqe = (int)size - 1;
    pthread_mutex_init(&c->cq.mutex, NULL);
    pthread_cond_init(&c->cq.cond, NULL);
    if (channel != NULL) {
        struct vb_channel *ch = VB_CONTAINER(channel, struct vb_channel, ch);
        pthread_mutex_lock(&ch->lock);
        channel->refcnt++;
        pthread_mutex_unlock(&ch->lock);
    }
    return &c->cq;
}

int
ibv_destroy_cq(struct ibv_cq *cq)
{
    struct vb_cq *c = VB_CONTAINER(cq, struct vb_cq, cq);
    struct vb_port *port = vb_ctx(cq->context)->port;

    pthread_mutex_lock(&port->lock);
    for (struct vb_qp *qp = port->qps; qp != NULL; qp = qp->next) {
        if (qp->qpx.qp_base.send_cq == cq || qp->qpx.qp_base.recv_cq == cq) {
            pthread_mutex_unlock(&port->lock);
            return EBUSY;
        }
    }
    pthread_mutex_unlock(&port->lock);
    if (cq->channel != NULL) {
        struct vb_channel *ch = VB_CONTAINER(cq->channel, struct vb_channel, ch);
        pthread_mutex_lock(&ch->lock);
        /* An event still waiting for this CQ goes with it. */
        for (struct vb_cq **pp = &ch->first; *pp != NULL; pp = &(*pp)->ev_next) {
            if (*pp != c)
                continue;
            *pp = c->ev_next;
            ch->last = NULL;
            for (struct vb_cq *x = ch->first; x != NULL; x = x->ev_next)
                ch->last = x;
            uint64_t v;
            ssize_t r = read(ch->ch.fd, &v, sizeof(v));     /* its count goes too */
            (void)r;
            break;
        }
        cq->channel->refcnt--;
        pthread_mutex_unlock(&ch->lock);
    }
    vb_ring_free(&c->ring);
    pthread_mutex_destroy(&cq->mutex);
    pthread_cond_destroy(&cq->cond);
    free(c);
    return 0;
}

int
ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
    (void)cq;
    (void)cqe;
    return EOPNOTSUPP;
}

bool
vb_cq_push(struct vb_cq *cq, const struct ibv_wc *wc)
{
    if (!vb_ring_push(&cq->ring, wc))
        return false;
    vb_app_completed(vb_ctx(cq->cq.context)->port);
    if (cq->armed && cq->cq.channel != NULL) {
        cq->armed = false;
        vb_channel_raise(cq);
    }
    return true;
}

int
vb_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
    struct vb_cq *c = VB_CONTAINER(cq, struct vb_cq, cq);
    struct vb_port *port = vb_ctx(cq->context)->port;

    if (n < 0)
        return -1;
    pthread_mutex_lock(&port->lock);
    int got = vb_ring_pop(&c->ring, wc, n);
    /* An application idle on the port leaves it to the thread, and its poll waits a
     * little for a completion rather than spin (the processor is what moves the data). */
    if (got == 0 && vb_app_idle(port)) {
        vb_app_idle_wait(port);
        got = vb_ring_pop(&c->ring, wc, n);
        if (got > 0)
            vb_app_got(port);
        pthread_mutex_unlock(&port->lock);
        return got;
    }
    /* In-poll progress: an application that spins on its CQ drives the
     * transport itself, without waiting for the progress thread to wake. */
    if (got < n && port->rc != NULL) {
        vb_app_poll(port);
        got += vb_ring_pop(&c->ring, wc + got, n - got);
    }
    /* What it waited for came: it may go elsewhere now (perftest's write_lat
     * spins on its buffer until the peer's WRITE lands). */
    if (got > 0) {
        vb_app_got(port);
        vb_app_leaves(port, false);
    }
    pthread_mutex_unlock(&port->lock);
    return got;
}

/* solicited_only is taken as "any": an event on a completion that was not
 * solicited is an early wake-up, which the application's poll absorbs. */
int
vb_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
    struct vb_cq *c = VB_CONTAINER(cq, struct vb_cq, cq);
    struct vb_port *port = vb_ctx(cq->context)->port;

    (void)solicited_only;
    if (cq->channel == NULL)
        return EINVAL;
    pthread_mutex_lock(&port->lock);
    c->armed = true;
    vb_app_leaves(port, true);
    pthread_mutex_unlock(&port->lock);
    return 0;
}
