/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_async.c - asynchronous events (IBTA Vol 1, 11.6.3): what ibv_get_async_event()
 * hands out and context->async_fd announces.
 *
 * Events come from two places. The RC stack tells what happens to QPs and SRQs while
 * it runs (COMM_EST, the affiliated errors, SRQ limit, Last WQE Reached), and the CQs
 * tell their overflow; these wait in a ring. The port's state follows its interface,
 * as rxe's follows its netdev: a netlink socket hears the interface's link changes and
 * they become PORT_ACTIVE and PORT_ERR. async_fd is an epoll descriptor over both (an
 * eventfd readable while the ring holds events, and the netlink socket), so that a
 * program that polls async_fd, as the verbs allow, wakes for either, and a program
 * like ibv_asyncwatch that opens the device and waits, with no PD and so no thread of
 * ours, still hears its port.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "verbs_int.h"

static int
link_socket(void)
{
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK};
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);

    if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int
vb_async_open(struct vb_context *c)
{
    struct ibv_context *ctx = &c->vctx.context;

    vb_mutex_init_pi(&c->async_lock);     /* pushed to by the progress thread */
    c->async_link_fd = -1;
    c->async_ready_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    ctx->async_fd = epoll_create1(EPOLL_CLOEXEC);
    if (c->async_ready_fd < 0 || ctx->async_fd < 0) {
        int e = errno;
        vb_async_close(c);
        return e;
    }
    struct epoll_event ev = {.events = EPOLLIN};
    epoll_ctl(ctx->async_fd, EPOLL_CTL_ADD, c->async_ready_fd, &ev);
    /* Without netlink (a sandbox that forbids it) the port simply never changes. */
    if (c->dev->netdev.ifindex != 0 && (c->async_link_fd = link_socket()) >= 0)
        epoll_ctl(ctx->async_fd, EPOLL_CTL_ADD, c->async_link_fd, &ev);
    c->port_was_up = vb_port_up(c->dev);
    return 0;
}

void
vb_async_close(struct vb_context *c)
{
    struct ibv_context *ctx = &c->vctx.context;

    if (ctx->async_fd >= 0)
        close(ctx->async_fd);
    if (c->async_ready_fd >= 0)
        close(c->async_ready_fd);
    if (c->async_link_fd >= 0)
        close(c->async_link_fd);
    pthread_mutex_destroy(&c->async_lock);
}

void
vb_async_push(struct vb_context *c, const struct ibv_async_event *ev)
{
    pthread_mutex_lock(&c->async_lock);
    if (c->async_n == VB_ASYNC_MAX) {
        /* An application that never reads them: bounded, and said. */
        c->async_lost++;
        vb_fail(ENOSPC, "%s: asynchronous event %d lost: %d wait unread (%llu lost so far)",
                c->dev->ibdev.name, ev->event_type, VB_ASYNC_MAX,
                (unsigned long long)c->async_lost);
    } else {
        c->async[(c->async_head + c->async_n++) % VB_ASYNC_MAX] = *ev;
        if (c->async_n == 1) {
            uint64_t one = 1;
            ssize_t w = write(c->async_ready_fd, &one, sizeof(one));
            (void)w;
        }
    }
    pthread_mutex_unlock(&c->async_lock);
}

static bool
async_pop(struct vb_context *c, struct ibv_async_event *ev)
{
    bool got = false;

    pthread_mutex_lock(&c->async_lock);
    if (c->async_n > 0) {
        *ev = c->async[c->async_head];
        c->async_head = (c->async_head + 1) % VB_ASYNC_MAX;
        got = true;
        if (--c->async_n == 0) {
            uint64_t v;
            ssize_t r = read(c->async_ready_fd, &v, sizeof(v));
            (void)r;
        }
    }
    pthread_mutex_unlock(&c->async_lock);
    return got;
}

/* Reads the link changes that arrived and queues a port event for each change of the
 * port's state (rxe: IB_EVENT_PORT_ACTIVE on netdev up, IB_EVENT_PORT_ERR on down). */
static void
read_link_changes(struct vb_context *c)
{
    char buf[8192];
    ssize_t n;

    while ((n = recv(c->async_link_fd, buf, sizeof(buf), 0)) > 0) {
        bool ours = false;
        for (struct nlmsghdr *h = (struct nlmsghdr *)(void *)buf; NLMSG_OK(h, (size_t)n);
             h = NLMSG_NEXT(h, n)) {
            if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
                continue;
            const struct ifinfomsg *ifi = NLMSG_DATA(h);
            ours |= (uint32_t)ifi->ifi_index == c->dev->netdev.ifindex;
        }
        if (!ours)
            continue;
        bool up = vb_port_up(c->dev);
        if (up == c->port_was_up)
            continue;
        c->port_was_up = up;
        struct ibv_async_event ev;
        memset(&ev, 0, sizeof(ev));
        ev.event_type = up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR;
        ev.element.port_num = 1;
        vb_async_push(c, &ev);
    }
}

int
ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
    struct vb_context *c = vb_ctx(context);

    for (;;) {
        if (c->async_link_fd >= 0)
            read_link_changes(c);
        if (async_pop(c, event))
            return 0;
        /* A non-blocking async_fd (the verbs allow it) says so rather than wait. */
        int fl = fcntl(context->async_fd, F_GETFL);
        if (fl >= 0 && (fl & O_NONBLOCK)) {
            errno = EAGAIN;
            return -1;
        }
        struct epoll_event ev;
        if (epoll_wait(context->async_fd, &ev, 1, -1) < 0 && errno != EINTR)
            return -1;
    }
}

void
ibv_ack_async_event(struct ibv_async_event *event)
{
    (void)event;    /* nothing is held for an event: its object may go at once */
}

void
vb_async_from_rc(void *arg, const struct rs_rc_event *ev)
{
    struct vb_port *p = arg;
    struct ibv_async_event out;
    struct vb_context *to;
    struct vb_qp *qp = NULL;

    memset(&out, 0, sizeof(out));
    if (ev->type == RS_RC_EV_SRQ_LIMIT) {
        struct vb_srq *s = p->srqs;
        while (s != NULL && s->rc != ev->srq)
            s = s->next;
        if (s == NULL)
            return;
        out.event_type = IBV_EVENT_SRQ_LIMIT_REACHED;
        out.element.srq = &s->srq;
        vb_async_push(s->ctx, &out);
        return;
    }
    for (qp = p->qps; qp != NULL && qp->qpx.qp_base.qp_num != ev->qpn; qp = qp->next)
        ;
    if (qp == NULL)
        return;
    to = qp->ctx;       /* the context that made the QP hears of it */
    out.element.qp = &qp->qpx.qp_base;
    switch (ev->type) {
    case RS_RC_EV_COMM_EST:
        /* Only a QP still in RTR needs telling that its peer talks (IBTA 11.6.3.1). */
        if (qp->qpx.qp_base.state != IBV_QPS_RTR)
            return;
        out.event_type = IBV_EVENT_COMM_EST;
        break;
    case RS_RC_EV_QP_REQ_ERR:
        out.event_type = IBV_EVENT_QP_REQ_ERR;
        break;
    case RS_RC_EV_QP_ACCESS_ERR:
        out.event_type = IBV_EVENT_QP_ACCESS_ERR;
        break;
    case RS_RC_EV_QP_FATAL:
        out.event_type = IBV_EVENT_QP_FATAL;
        break;
    case RS_RC_EV_LAST_WQE:
        out.event_type = IBV_EVENT_QP_LAST_WQE_REACHED;
        break;
    default:
        return;
    }
    /* A QP the transport put in error is in error for the application too. */
    if (ev->type >= RS_RC_EV_QP_REQ_ERR && ev->type <= RS_RC_EV_QP_FATAL)
        qp->qpx.qp_base.state = IBV_QPS_ERR;
    vb_async_push(to, &out);
}
