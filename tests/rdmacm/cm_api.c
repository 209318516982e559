/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm_api.c - librdmacm's API as a program sees it, run through `roceshark run`
 * with two devices (tests/integration/test_rdmacm.py): a server thread and
 * the client (the main thread) in one process, so that the order of each
 * side's lines is fixed. Every check prints "ok: ..." or "FAIL: ...".
 *
 *   usage: cm_api SERVER_IP CLIENT_IP SILENT_IP UNROUTED_IP PORT [exchanges|timeouts]
 *
 * SERVER_IP and CLIENT_IP are the devices' addresses; nothing answers on
 * SILENT_IP; the host has no route to UNROUTED_IP. The checks come in two
 * parts, both by default: "exchanges", every exchange that must succeed or be
 * refused (run with rdma_cm's own CM timeouts, so that a side slowed down by
 * a loaded machine is waited for, as rdma_cm waits), and "timeouts", the REQs
 * nobody answers, which end in UNREACHABLE after the CM's retries (run with
 * ROCESHARK_CM_TIMEOUT short, so that they end within a second).
 *
 * The server: a listener (rdma_getaddrinfo, rdma_create_id, rdma_bind_addr,
 * rdma_listen) on an event channel it polls; it rejects the first request
 * with private data, accepts the second with its QP (rdma_create_qp) and its
 * buffer's key in the REP's private data, answers a message (rdma_reg_msgs,
 * rdma_post_recv, rdma_post_send), and waits for the disconnect and the end
 * of time wait. A second listener of backlog 1 is not read until two
 * clients tried it.
 * The client: address and route resolution by events (and an ADDR_ERROR),
 * a connect refused (REJECTED, reason 28, the server's private data), one
 * through rdma_create_ep (synchronous), a message each way, an RDMA WRITE
 * and READ of the server's buffer compared, rdma_migrate_id to an event
 * channel of its own, rdma_disconnect (DISCONNECTED, TIMEWAIT_EXIT), a
 * connect nobody answers (UNREACHABLE), the backlog, and rping's teardown (a
 * read of a channel that another thread closed).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "thread_state.h"

#define BUF 4096

static const char *server_ip, *client_ip, *silent_ip, *unrouted_ip, *port;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int failures;

/* One line for a check, with who made it. */
static void
check(bool good, const char *side, const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&out_lock);
    printf("%s: %s: ", good ? "ok" : "FAIL", side);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    failures += !good;
    pthread_mutex_unlock(&out_lock);
}

/* What the server's REP tells the client: its buffer. */
struct region {
    uint64_t addr;
    uint32_t rkey, len;
};

/* The next event of ch, which must be want; NULL (and a FAIL) otherwise. */
static struct rdma_cm_event *
expect(struct rdma_event_channel *ch, enum rdma_cm_event_type want, const char *side)
{
    struct rdma_cm_event *ev;

    if (rdma_get_cm_event(ch, &ev) != 0) {
        check(false, side, "rdma_get_cm_event: %s", strerror(errno));
        return NULL;
    }
    check(ev->event == want, side, "event %s (status %d)", rdma_event_str(ev->event),
          ev->status);
    if (ev->event != want) {
        rdma_ack_cm_event(ev);
        return NULL;
    }
    return ev;
}

static bool
readable(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};

    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* --- the server --- */

struct server {
    struct rdma_event_channel *ch;
    struct rdma_cm_id *listen;
    uint8_t *buf;               /* the client WRITEs and READs it */
    char msg[64];
    struct ibv_mr *buf_mr, *msg_mr;
};

static void
serve_connection(struct server *s, struct rdma_cm_id *child)
{
    struct ibv_qp_init_attr qa = {.cap = {.max_send_wr = 4, .max_recv_wr = 4,
                                          .max_send_sge = 1, .max_recv_sge = 1},
                                  .qp_type = IBV_QPT_RC, .sq_sig_all = 1};
    struct rdma_conn_param p;
    struct ibv_wc wc;
    struct rdma_cm_event *ev;

    check(rdma_create_qp(child, NULL, &qa) == 0, "server", "rdma_create_qp on the request");
    s->msg_mr = rdma_reg_msgs(child, s->msg, sizeof(s->msg));
    s->buf_mr = ibv_reg_mr(child->pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE |
                                                       IBV_ACCESS_REMOTE_WRITE |
                                                       IBV_ACCESS_REMOTE_READ);
    check(s->msg_mr != NULL && s->buf_mr != NULL, "server", "rdma_reg_msgs, ibv_reg_mr");
    check(rdma_post_recv(child, NULL, s->msg, sizeof(s->msg), s->msg_mr) == 0, "server",
          "rdma_post_recv");
    struct region r = {(uintptr_t)s->buf, s->buf_mr->rkey, BUF};
    memset(&p, 0, sizeof(p));
    p.private_data = &r;
    p.private_data_len = sizeof(r);
    p.responder_resources = 1;
    p.initiator_depth = 1;
    check(rdma_accept(child, &p) == 0, "server", "rdma_accept with the buffer's key");
    if ((ev = expect(s->ch, RDMA_CM_EVENT_ESTABLISHED, "server")) != NULL) {
        check(ev->id == child, "server", "ESTABLISHED on the accepted ID");
        rdma_ack_cm_event(ev);
    }
    check(rdma_get_recv_comp(child, &wc) > 0 && wc.status == IBV_WC_SUCCESS, "server",
          "rdma_get_recv_comp: \"%.*s\"", (int)wc.byte_len, s->msg);
    snprintf(s->msg, sizeof(s->msg), "pong");
    check(rdma_post_send(child, NULL, s->msg, 5, s->msg_mr, 0) == 0 &&
              rdma_get_send_comp(child, &wc) > 0 && wc.status == IBV_WC_SUCCESS,
          "server", "rdma_post_send, rdma_get_send_comp");
    if ((ev = expect(s->ch, RDMA_CM_EVENT_DISCONNECTED, "server")) != NULL)
        rdma_ack_cm_event(ev);
    check(rdma_disconnect(child) == 0, "server", "rdma_disconnect after the peer's");
    if ((ev = expect(s->ch, RDMA_CM_EVENT_TIMEWAIT_EXIT, "server")) != NULL)
        rdma_ack_cm_event(ev);
    rdma_dereg_mr(s->msg_mr);
    ibv_dereg_mr(s->buf_mr);
    rdma_destroy_qp(child);
    check(rdma_destroy_id(child) == 0, "server", "rdma_destroy_id");
}

static void *
server_main(void *arg)
{
    struct server *s = arg;
    struct rdma_cm_event *ev;
    static const char refusal[] = "not this one";

    /* The first request is refused, with private data. */
    if ((ev = expect(s->ch, RDMA_CM_EVENT_CONNECT_REQUEST, "server")) == NULL)
        return NULL;
    check(ev->listen_id == s->listen && ev->id != s->listen, "server",
          "CONNECT_REQUEST: a new ID on the listener");
    check(ev->param.conn.private_data_len >= 5 &&
              memcmp(ev->param.conn.private_data, "first", 5) == 0,
          "server", "the REQ's private data: \"%.5s\"",
          (const char *)ev->param.conn.private_data);
    check(ev->param.conn.responder_resources == 2 && ev->param.conn.initiator_depth == 3,
          "server", "the client's initiator depth 2 is our responder resources, its 3 ours");
    struct rdma_cm_id *child = ev->id;
    rdma_ack_cm_event(ev);
    check(rdma_reject(child, refusal, sizeof(refusal)) == 0, "server",
          "rdma_reject with private data");
    rdma_destroy_id(child);
    /* The second is accepted. */
    if ((ev = expect(s->ch, RDMA_CM_EVENT_CONNECT_REQUEST, "server")) == NULL)
        return NULL;
    check(memcmp(ev->param.conn.private_data, "second", 6) == 0, "server",
          "the second REQ's private data");
    child = ev->id;
    rdma_ack_cm_event(ev);
    serve_connection(s, child);
    return NULL;
}

/* --- the client --- */

static struct sockaddr_in
addr(const char *ip)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};

    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

/* An ID on ch resolved to dst from our device, by events. */
static struct rdma_cm_id *
resolved(struct rdma_event_channel *ch, const char *dst_ip)
{
    struct rdma_cm_id *id;
    struct rdma_cm_event *ev;
    struct sockaddr_in src = addr(client_ip), dst = addr(dst_ip);

    src.sin_port = 0;
    if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0 ||
        rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000) != 0) {
        check(false, "client", "rdma_resolve_addr: %s", strerror(errno));
        return NULL;
    }
    if ((ev = expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED, "client")) == NULL)
        return NULL;
    rdma_ack_cm_event(ev);
    check(rdma_resolve_route(id, 2000) == 0, "client", "rdma_resolve_route");
    if ((ev = expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, "client")) == NULL)
        return NULL;
    rdma_ack_cm_event(ev);
    check(id->verbs != NULL && id->route.num_paths == 1, "client",
          "the route: a device, one path");
    return id;
}

static void
connect_refused(struct rdma_event_channel *ch)
{
    struct rdma_cm_id *id = resolved(ch, server_ip);
    struct ibv_qp_init_attr qa = {.cap = {.max_send_wr = 1, .max_recv_wr = 1,
                                          .max_send_sge = 1, .max_recv_sge = 1},
                                  .qp_type = IBV_QPT_RC};
    struct rdma_conn_param p = {.private_data = "first", .private_data_len = 6,
                                .responder_resources = 3, .initiator_depth = 2,
                                .retry_count = 7, .rnr_retry_count = 7};
    struct rdma_cm_event *ev;

    if (id == NULL)
        return;
    check(rdma_create_qp(id, NULL, &qa) == 0 && id->qp->state == IBV_QPS_INIT, "client",
          "rdma_create_qp: a QP in INIT");
    check(rdma_connect(id, &p) == 0, "client", "rdma_connect with private data");
    if ((ev = expect(ch, RDMA_CM_EVENT_REJECTED, "client")) != NULL) {
        check(ev->status == 28, "client", "REJECTED with the consumer's reason (%d)",
              ev->status);
        check(ev->param.conn.private_data_len >= 13 &&
                  strcmp(ev->param.conn.private_data, "not this one") == 0,
              "client", "REJECTED with the server's private data: \"%s\"",
              (const char *)ev->param.conn.private_data);
        rdma_ack_cm_event(ev);
    }
    rdma_destroy_qp(id);
    rdma_destroy_id(id);
}

static void
connect_accepted(void)
{
    struct rdma_addrinfo hints = {.ai_port_space = RDMA_PS_TCP}, *rai;
    struct sockaddr_in src = addr(client_ip);
    struct ibv_qp_init_attr qa = {.cap = {.max_send_wr = 4, .max_recv_wr = 4,
                                          .max_send_sge = 1, .max_recv_sge = 1},
                                  .sq_sig_all = 1};
    struct rdma_cm_id *ep;
    struct ibv_wc wc;
    char msg[64] = "ping";
    static uint8_t src_buf[BUF], dst_buf[BUF];

    src.sin_port = 0;
    hints.ai_src_addr = (struct sockaddr *)&src;
    hints.ai_src_len = sizeof(src);
    if (rdma_getaddrinfo(server_ip, port, &hints, &rai) != 0 ||
        rdma_create_ep(&ep, rai, NULL, &qa) != 0) {
        check(false, "client", "rdma_getaddrinfo, rdma_create_ep: %s", strerror(errno));
        return;
    }
    rdma_freeaddrinfo(rai);
    check(ep->qp != NULL, "client", "rdma_create_ep: resolved, with its QP");
    struct ibv_mr *msg_mr = rdma_reg_msgs(ep, msg, sizeof(msg));
    struct ibv_mr *src_mr = rdma_reg_write(ep, src_buf, BUF);
    struct ibv_mr *dst_mr = rdma_reg_read(ep, dst_buf, BUF);
    rdma_post_recv(ep, NULL, msg, sizeof(msg), msg_mr);
    struct rdma_conn_param p = {.private_data = "second", .private_data_len = 7,
                                .responder_resources = 1, .initiator_depth = 1,
                                .retry_count = 7, .rnr_retry_count = 7};
    if (!(rdma_connect(ep, &p) == 0)) {
        check(false, "client", "rdma_connect (synchronous): %s", strerror(errno));
        return;
    }
    check(true, "client", "rdma_connect (synchronous): ESTABLISHED");
    struct region r;
    memcpy(&r, ep->event->param.conn.private_data, sizeof(r));
    check(r.len == BUF, "client", "the REP's private data: the server's buffer");
    check(rdma_post_send(ep, NULL, msg, 5, msg_mr, 0) == 0 &&
              rdma_get_send_comp(ep, &wc) > 0 && wc.status == IBV_WC_SUCCESS,
          "client", "rdma_post_send \"ping\"");
    check(rdma_get_recv_comp(ep, &wc) > 0 && wc.status == IBV_WC_SUCCESS &&
              strcmp(msg, "pong") == 0, "client", "rdma_get_recv_comp: \"%s\"", msg);
    for (int i = 0; i < BUF; i++)
        src_buf[i] = (uint8_t)(i * 7 + 3);
    check(rdma_post_write(ep, NULL, src_buf, BUF, src_mr, 0, r.addr, r.rkey) == 0 &&
              rdma_get_send_comp(ep, &wc) > 0 && wc.status == IBV_WC_SUCCESS,
          "client", "rdma_post_write of the server's buffer");
    check(rdma_post_read(ep, NULL, dst_buf, BUF, dst_mr, 0, r.addr, r.rkey) == 0 &&
              rdma_get_send_comp(ep, &wc) > 0 && wc.status == IBV_WC_SUCCESS,
          "client", "rdma_post_read of it back");
    check(memcmp(src_buf, dst_buf, BUF) == 0, "client",
          "source and destination buffers match");
    /* From the synchronous ID's own channel to one we poll. */
    struct rdma_event_channel *mine = rdma_create_event_channel();
    check(rdma_migrate_id(ep, mine) == 0 && ep->channel == mine, "client", "rdma_migrate_id");
    check(rdma_disconnect(ep) == 0, "client", "rdma_disconnect");
    struct rdma_cm_event *ev;
    if ((ev = expect(mine, RDMA_CM_EVENT_DISCONNECTED, "client")) != NULL)
        rdma_ack_cm_event(ev);
    if ((ev = expect(mine, RDMA_CM_EVENT_TIMEWAIT_EXIT, "client")) != NULL)
        rdma_ack_cm_event(ev);
    rdma_dereg_mr(msg_mr);
    rdma_dereg_mr(src_mr);
    rdma_dereg_mr(dst_mr);
    rdma_destroy_ep(ep);
    rdma_destroy_event_channel(mine);
}

static void
unreachable(struct rdma_event_channel *ch)
{
    struct rdma_cm_id *id = resolved(ch, silent_ip);
    struct rdma_conn_param p = {.qp_num = 0x123, .retry_count = 7, .rnr_retry_count = 7};
    struct rdma_cm_event *ev;

    if (id == NULL)
        return;
    check(rdma_connect(id, &p) == 0, "client", "rdma_connect to %s, which does not answer",
          silent_ip);
    if ((ev = expect(ch, RDMA_CM_EVENT_UNREACHABLE, "client")) != NULL) {
        check(ev->status == -ETIMEDOUT, "client", "UNREACHABLE: -ETIMEDOUT");
        rdma_ack_cm_event(ev);
    }
    rdma_destroy_id(id);
}

static void
addr_error(struct rdma_event_channel *ch)
{
    struct rdma_cm_id *id;
    struct rdma_cm_event *ev;
    struct sockaddr_in dst = addr(unrouted_ip);

    rdma_create_id(ch, &id, NULL, RDMA_PS_TCP);
    check(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000) == 0, "client",
          "rdma_resolve_addr to %s", unrouted_ip);
    if ((ev = expect(ch, RDMA_CM_EVENT_ADDR_ERROR, "client")) != NULL) {
        check(ev->status == -ENETUNREACH, "client", "ADDR_ERROR: -ENETUNREACH");
        rdma_ack_cm_event(ev);
    }
    rdma_destroy_id(id);
}

/* A listener of backlog 1 whose channel nobody reads: the first REQ waits as a
 * CONNECT_REQUEST, the second finds no room and goes unanswered. */
static void
backlog(struct rdma_event_channel *ch)
{
    struct rdma_event_channel *lch = rdma_create_event_channel();
    struct rdma_cm_id *l, *a, *b;
    struct sockaddr_in la = addr(server_ip);
    struct rdma_conn_param p = {.qp_num = 0x456, .retry_count = 7, .rnr_retry_count = 7};
    struct rdma_cm_event *ev;

    la.sin_port = htons((uint16_t)(atoi(port) + 1));
    rdma_create_id(lch, &l, NULL, RDMA_PS_TCP);
    check(rdma_bind_addr(l, (struct sockaddr *)&la) == 0 && rdma_listen(l, 1) == 0, "client",
          "a listener of backlog 1");
    char p1[16];
    snprintf(p1, sizeof(p1), "%d", atoi(port) + 1);
    const char *saved = port;
    port = p1;
    a = resolved(ch, server_ip);
    b = resolved(ch, server_ip);
    port = saved;
    if (a == NULL || b == NULL)
        return;
    rdma_connect(a, &p);
    rdma_connect(b, &p);
    ev = expect(ch, RDMA_CM_EVENT_UNREACHABLE, "client");
    check(ev != NULL && ev->id == b, "client", "the second REQ: no room, UNREACHABLE");
    if (ev != NULL)
        rdma_ack_cm_event(ev);
    check(readable(lch->fd), "client", "the listener's channel: readable");
    if ((ev = expect(lch, RDMA_CM_EVENT_CONNECT_REQUEST, "client")) != NULL) {
        struct rdma_cm_id *child = ev->id;
        rdma_ack_cm_event(ev);
        rdma_reject(child, NULL, 0);
        rdma_destroy_id(child);
    }
    check(!readable(lch->fd), "client", "one request only, then not readable");
    if ((ev = expect(ch, RDMA_CM_EVENT_REJECTED, "client")) != NULL) {
        check(ev->id == a, "client", "the first REQ: REJECTED");
        rdma_ack_cm_event(ev);
    }
    rdma_destroy_id(a);
    rdma_destroy_id(b);
    rdma_destroy_id(l);
    rdma_destroy_event_channel(lch);
}

/* rping's teardown: an event thread acks the last event and reads again while
 * the main thread destroys the ID and closes the channel. As in the kernel, a
 * read under way when the channel closes waits (the program ends around it).
 * So does one that comes just after the close: the library holds the last 8
 * closed channels' numbers, so that rping does not lose this race. One that
 * comes once the number is given up (8 more channels closed) fails with
 * EBADF, as in the kernel; a write to the number once a pipe holds it is the
 * pipe's. */
enum read_at { UNDER_WAY, JUST_AFTER, GIVEN_UP };

struct reader {
    struct rdma_event_channel ch;       /* a copy: the program's is freed at its close */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool got, closed;
    enum read_at at;
    atomic_int reading;
    pid_t tid;
    int rc, err;
};

static void *
reader_main(void *arg)
{
    struct reader *r = arg;
    struct rdma_cm_event *ev;

    r->tid = (pid_t)syscall(SYS_gettid);
    ev = expect(&r->ch, RDMA_CM_EVENT_ADDR_RESOLVED, "teardown");
    if (ev != NULL)
        rdma_ack_cm_event(ev);
    pthread_mutex_lock(&r->lock);
    r->got = true;
    pthread_cond_broadcast(&r->cond);
    while (r->at != UNDER_WAY && !r->closed)
        pthread_cond_wait(&r->cond, &r->lock);
    pthread_mutex_unlock(&r->lock);
    atomic_store(&r->reading, 1);
    r->rc = rdma_get_cm_event(&r->ch, &ev);
    r->err = errno;
    atomic_store(&r->reading, 2);
    return NULL;
}

/* Whether the reader sleeps in its read, or has returned. */
static bool
reader_waits(struct reader *r)
{
    if (atomic_load(&r->reading) != 1)
        return atomic_load(&r->reading) == 2;
    return test_thread_sleeps(r->tid);
}

static void
teardown(enum read_at at)
{
    struct rdma_event_channel *ch = rdma_create_event_channel();
    struct reader r = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
                       .at = at};
    struct rdma_cm_id *id;
    struct sockaddr_in dst = addr(server_ip);
    pthread_t t;
    const char *how = at == UNDER_WAY    ? "a read under way at the close"
                      : at == JUST_AFTER ? "a read just after the close"
                                         : "a read once the number is given up";
    int p[2];

    if (pipe(p) != 0 || ch == NULL || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) != 0) {
        check(false, "teardown", "a pipe, a channel and an ID");
        return;
    }
    r.ch = *ch;
    int fd = ch->fd;
    rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000);
    pthread_create(&t, NULL, reader_main, &r);
    pthread_mutex_lock(&r.lock);
    while (!r.got)
        pthread_cond_wait(&r.cond, &r.lock);
    pthread_mutex_unlock(&r.lock);
    if (at == UNDER_WAY) {
        while (!reader_waits(&r))
            sched_yield();
    }
    rdma_destroy_id(id);
    rdma_destroy_event_channel(ch);
    for (int i = 0; at == GIVEN_UP && i < 8; i++)
        rdma_destroy_event_channel(rdma_create_event_channel());
    pthread_mutex_lock(&r.lock);
    r.closed = true;
    pthread_cond_broadcast(&r.cond);
    pthread_mutex_unlock(&r.lock);
    if (at == JUST_AFTER) {
        while (!reader_waits(&r))
            sched_yield();
    }
    if (at == GIVEN_UP) {
        pthread_join(t, NULL);
        check(r.rc != 0 && r.err == EBADF, "teardown", "%s: EBADF (%s)", how,
              r.rc == 0 ? "an event" : strerror(r.err));
    } else {
        check(atomic_load(&r.reading) == 1, "teardown", "%s: it waits on (%s)", how,
              atomic_load(&r.reading) == 2 ? strerror(r.err) : "waiting");
        void *ret = NULL;
        pthread_cancel(t);
        pthread_join(t, &ret);
        check(ret == PTHREAD_CANCELED, "teardown", "%s: it waited until cancelled", how);
    }
    char got[8] = {0};
    check(dup2(p[1], fd) == fd && write(fd, "hello", 5) == 5 &&
              read(p[0], got, sizeof(got)) == 5 && strcmp(got, "hello") == 0,
          "teardown", "%s: the number taken by a pipe: a write is the pipe's", how);
    close(fd);
    close(p[0]);
    close(p[1]);
}

int
main(int argc, char **argv)
{
    struct server s = {0};
    struct rdma_addrinfo hints = {.ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP},
                         *rai;
    struct rdma_cm_id *other;
    pthread_t t;

    const char *part = argc == 7 ? argv[6] : "";
    if ((argc != 6 && argc != 7) ||
        (argc == 7 && strcmp(part, "exchanges") != 0 && strcmp(part, "timeouts") != 0)) {
        fprintf(stderr, "usage: cm_api SERVER_IP CLIENT_IP SILENT_IP UNROUTED_IP PORT "
                        "[exchanges|timeouts]\n");
        return 2;
    }
    server_ip = argv[1];
    client_ip = argv[2];
    silent_ip = argv[3];
    unrouted_ip = argv[4];
    port = argv[5];
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(part, "exchanges") != 0) {
        struct rdma_event_channel *ch = rdma_create_event_channel();
        unreachable(ch);
        backlog(ch);
        rdma_destroy_event_channel(ch);
        if (strcmp(part, "timeouts") == 0) {
            printf("%s: %d failure(s)\n", failures == 0 ? "PASS" : "FAIL", failures);
            return failures == 0 ? 0 : 1;
        }
    }
    s.buf = calloc(1, BUF);
    s.ch = rdma_create_event_channel();
    check(s.ch != NULL && !readable(s.ch->fd), "server",
          "rdma_create_event_channel: a descriptor, not readable");
    check(rdma_getaddrinfo(server_ip, port, &hints, &rai) == 0, "server", "rdma_getaddrinfo");
    check(rdma_create_id(s.ch, &s.listen, &s, RDMA_PS_TCP) == 0, "server", "rdma_create_id");
    check(rdma_bind_addr(s.listen, rai->ai_src_addr) == 0, "server", "rdma_bind_addr");
    rdma_create_id(s.ch, &other, NULL, RDMA_PS_TCP);
    int rc = rdma_bind_addr(other, rai->ai_src_addr), e = errno;
    check(rc != 0 && e == EADDRINUSE, "server", "the same address again: %s", strerror(e));
    rdma_destroy_id(other);
    check(rdma_listen(s.listen, 4) == 0, "server", "rdma_listen");
    rdma_freeaddrinfo(rai);
    pthread_create(&t, NULL, server_main, &s);

    struct rdma_event_channel *ch = rdma_create_event_channel();
    addr_error(ch);
    connect_refused(ch);
    connect_accepted();
    pthread_join(t, NULL);
    teardown(UNDER_WAY);
    teardown(JUST_AFTER);
    teardown(GIVEN_UP);
    rdma_destroy_id(s.listen);
    rdma_destroy_event_channel(s.ch);
    rdma_destroy_event_channel(ch);
    free(s.buf);
    printf("%s: %d failure(s)\n", failures == 0 ? "PASS" : "FAIL", failures);
    return failures == 0 ? 0 : 1;
}
