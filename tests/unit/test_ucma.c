/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_ucma.c - the RDMA CM of libroceshark-verbs (verbs/verbs_ucma*.c,
 * verbs_cm.c) at its ABI: the commands librdmacm writes to
 * /dev/infiniband/rdma_cm, written here as it writes them (the structs of
 * <rdma/rdma_cm_abi.h>), on two devices of loopback addresses. A command's
 * framing and errors; a connection from REQ to TIMEWAIT_EXIT with the QP
 * attributes each side is given; private data and the resources crossing;
 * REJECT's reasons; a REQ that comes before its listener; MIGRATE_ID moving
 * an ID's events; DESTROY_ID's count of events reported.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../verbs/verbs_ucma.h"
#include "../rdmacm/thread_state.h"

static char addr_a[32], addr_b[32];
static uint16_t next_port;

static int
setup_devices(void **state)
{
    char spec[128];
    unsigned seed;

    (void)state;
    if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
        seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    srand(seed);
    int net = 32 + rand() % 200, host = 2 + rand() % 200;
    snprintf(addr_a, sizeof(addr_a), "127.%d.%d.%d", net, rand() % 250 + 1, host);
    snprintf(addr_b, sizeof(addr_b), "127.%d.%d.%d", net, rand() % 250 + 1, host + 1);
    snprintf(spec, sizeof(spec), "ua=%s,ub=%s", addr_a, addr_b);
    setenv(VB_ENV_DEVICES, spec, 1);
    next_port = (uint16_t)(20000 + rand() % 20000);
    return 0;
}

/* --- the commands, as librdmacm frames them --- */

#define INIT(c, op)                                                                       \
    do {                                                                                  \
        memset(&(c), 0, sizeof(c));                                                       \
        (c).cmd = UCMA_CMD_##op;                                                          \
        (c).in = sizeof(c) - sizeof(struct ucma_abi_cmd_hdr);                             \
    } while (0)

/* 0, or the command's errno. */
static int
run(int fd, const void *cmd, size_t len)
{
    errno = 0;
    ssize_t n = vb_ucma_write(fd, cmd, len);
    return n == (ssize_t)len ? 0 : errno;
}

/* CREATE_ID: 0 or the errno; the handle in *id. */
static int
create_id_err(int fd, uint64_t uid, uint32_t *id)
{
    struct ucma_abi_create_id c;
    struct ucma_abi_create_id_resp r = {0};

    INIT(c, CREATE_ID);
    c.out = sizeof(r);
    c.response = (uintptr_t)&r;
    c.uid = uid;
    c.ps = RDMA_PS_TCP;
    c.qp_type = IBV_QPT_RC;
    int err = run(fd, &c, sizeof(c));
    *id = r.id;
    return err;
}

static uint32_t
create_id(int fd, uint64_t uid)
{
    uint32_t id;

    assert_int_equal(create_id_err(fd, uid, &id), 0);
    return id;
}

static uint32_t
destroy_id(int fd, uint32_t id)
{
    struct ucma_abi_destroy_id c;
    struct ucma_abi_destroy_id_resp r;

    INIT(c, DESTROY_ID);
    c.out = sizeof(r);
    c.response = (uintptr_t)&r;
    c.id = id;
    assert_int_equal(run(fd, &c, sizeof(c)), 0);
    return r.events_reported;
}

static struct sockaddr_in
sin_of(const char *ip, uint16_t port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};

    inet_pton(AF_INET, ip, &a.sin_addr);
    return a;
}

static int
bind_ip(int fd, uint32_t id, const char *ip, uint16_t port)
{
    struct ucma_abi_bind_ip c;
    struct sockaddr_in a = sin_of(ip, port);

    INIT(c, BIND_IP);
    c.id = id;
    memcpy(&c.addr, &a, sizeof(a));
    return run(fd, &c, sizeof(c));
}

static int
listen_id(int fd, uint32_t id, int backlog)
{
    struct ucma_abi_listen c;

    INIT(c, LISTEN);
    c.id = id;
    c.backlog = (uint32_t)backlog;
    return run(fd, &c, sizeof(c));
}

/* The next event of fd, within 10 s. */
static struct ucma_abi_event_resp
event(int fd)
{
    struct ucma_abi_get_event c;
    struct ucma_abi_event_resp r;
    struct pollfd p = {fd, POLLIN, 0};

    assert_int_equal(poll(&p, 1, 10000), 1);
    INIT(c, GET_EVENT);
    c.out = sizeof(r);
    c.response = (uintptr_t)&r;
    memset(&r, 0xee, sizeof(r));
    assert_int_equal(run(fd, &c, sizeof(c)), 0);
    return r;
}

static bool
readable(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};

    return poll(&p, 1, 0) == 1;
}

/* An ID of fd resolved to dst:port from the client device's address. */
static uint32_t
resolved(int fd, uint64_t uid, const char *dst, uint16_t port)
{
    struct ucma_abi_resolve_ip c;
    struct ucma_abi_resolve_route rc;
    struct sockaddr_in s = sin_of(addr_b, 0), d = sin_of(dst, port);
    uint32_t id = create_id(fd, uid);

    INIT(c, RESOLVE_IP);
    c.id = id;
    c.timeout_ms = 2000;
    memcpy(&c.src_addr, &s, sizeof(s));
    memcpy(&c.dst_addr, &d, sizeof(d));
    assert_int_equal(run(fd, &c, sizeof(c)), 0);
    struct ucma_abi_event_resp e = event(fd);
    assert_int_equal(e.event, RDMA_CM_EVENT_ADDR_RESOLVED);
    assert_int_equal(e.uid, uid);
    assert_int_equal(e.id, id);
    INIT(rc, RESOLVE_ROUTE);
    rc.id = id;
    assert_int_equal(run(fd, &rc, sizeof(rc)), 0);
    assert_int_equal(event(fd).event, RDMA_CM_EVENT_ROUTE_RESOLVED);
    return id;
}

static int
connect_id(int fd, uint32_t id, uint32_t qpn, const char *priv)
{
    struct ucma_abi_connect c;

    INIT(c, CONNECT);
    c.id = id;
    c.conn_param.qp_num = qpn;
    c.conn_param.responder_resources = 2;
    c.conn_param.initiator_depth = 3;
    c.conn_param.retry_count = 6;
    c.conn_param.rnr_retry_count = 5;
    c.conn_param.valid = 1;
    c.conn_param.private_data_len = (uint8_t)strlen(priv);
    memcpy(c.conn_param.private_data, priv, strlen(priv));
    return run(fd, &c, sizeof(c));
}

static struct ib_uverbs_qp_attr
qp_attr(int fd, uint32_t id, enum ibv_qp_state state)
{
    struct ucma_abi_init_qp_attr c;
    struct ib_uverbs_qp_attr r;

    INIT(c, INIT_QP_ATTR);
    c.out = sizeof(r);
    c.response = (uintptr_t)&r;
    c.id = id;
    c.qp_state = state;
    assert_int_equal(run(fd, &c, sizeof(c)), 0);
    return r;
}

/* --- the tests --- */

/* Framing, as ucma_write() checks it, and a channel without events. */
static void
test_commands(void **state)
{
    struct ucma_abi_get_event g;
    struct ucma_abi_event_resp r;
    uint8_t raw[64] = {0};

    (void)state;
    int fd = vb_ucma_open(O_RDWR | O_CLOEXEC | O_NONBLOCK);
    assert_true(fd >= 0);
    assert_true(vb_ucma_owns(fd));
    assert_false(vb_ucma_owns(fd + 1000));
    assert_int_equal(run(fd, raw, 4), EINVAL);             /* shorter than the header */
    struct ucma_abi_cmd_hdr h = {.cmd = 99, .in = 0, .out = 0};
    memcpy(raw, &h, sizeof(h));
    assert_int_equal(run(fd, raw, sizeof(h)), EINVAL);     /* no such command */
    h = (struct ucma_abi_cmd_hdr){.cmd = UCMA_CMD_GET_EVENT, .in = 200, .out = 0};
    memcpy(raw, &h, sizeof(h));
    assert_int_equal(run(fd, raw, sizeof(raw)), EINVAL);   /* more input than written */
    assert_false(readable(fd));
    INIT(g, GET_EVENT);
    g.out = sizeof(r);
    g.response = (uintptr_t)&r;
    assert_int_equal(run(fd, &g, sizeof(g)), EAGAIN);      /* non-blocking, nothing waits */
    g.out = 8;
    assert_int_equal(run(fd, &g, sizeof(g)), ENOSPC);      /* no room for the answer */
    uint32_t id = create_id(fd, 7);
    assert_int_equal(bind_ip(fd, id, "10.255.255.254", 0), EADDRNOTAVAIL);  /* not on host */
    assert_int_equal(bind_ip(fd, id, "127.0.0.1", 0), ENODEV);   /* on host, no device */
    assert_int_equal(bind_ip(fd, id, addr_a, 0), 0);
    assert_int_equal(bind_ip(fd, id, addr_a, 0), EINVAL);  /* bound already */
    uint32_t other = create_id(fd, 8);
    struct ucma_abi_query q;
    struct ucma_abi_query_route_resp qr;
    INIT(q, QUERY_ROUTE);
    q.out = sizeof(qr);
    q.response = (uintptr_t)&qr;
    q.id = id;
    assert_int_equal(run(fd, &q, sizeof(q)), 0);
    struct sockaddr_in *bound = (struct sockaddr_in *)&qr.src_addr;
    uint16_t port = ntohs(bound->sin_port);
    assert_true(port >= 32768 && port <= 60999);           /* the ephemeral range */
    assert_int_equal(qr.num_paths, 0);
    assert_int_equal(qr.port_num, 1);
    assert_int_equal(bind_ip(fd, other, addr_a, port), EADDRINUSE);
    assert_int_equal(destroy_id(fd, id), 0);
    assert_int_equal(bind_ip(fd, other, addr_a, port), 0); /* free again */
    vb_ucma_close(fd, close);
    assert_true(vb_ucma_owns(fd));          /* closed, its number held a while */
}

/* A connection, both sides, from the REQ to time wait's end. */
static void
test_connection(void **state)
{
    (void)state;
    int sfd = vb_ucma_open(O_RDWR), cfd = vb_ucma_open(O_RDWR);
    uint16_t port = next_port++;
    uint32_t l = create_id(sfd, 100);
    assert_int_equal(bind_ip(sfd, l, addr_a, port), 0);
    assert_int_equal(listen_id(sfd, l, 4), 0);

    uint32_t c = resolved(cfd, 200, addr_a, port);
    struct ib_uverbs_qp_attr a = qp_attr(cfd, c, IBV_QPS_INIT);
    assert_int_equal(a.qp_attr_mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                         IBV_QP_ACCESS_FLAGS);
    assert_int_equal(a.qp_access_flags, 0);     /* no connection yet: nothing remote */
    assert_int_equal(a.port_num, 1);
    assert_int_equal(connect_id(cfd, c, 0x111, "hello"), 0);

    /* The listener's CONNECT_REQUEST: a new ID, the client's bytes, resources crossed. */
    struct ucma_abi_event_resp e = event(sfd);
    assert_int_equal(e.event, RDMA_CM_EVENT_CONNECT_REQUEST);
    assert_int_equal(e.uid, 100);
    uint32_t child = e.id;
    assert_int_not_equal(child, l);
    assert_int_equal(e.param.conn.qp_num, 0x111);
    assert_memory_equal(e.param.conn.private_data, "hello", 5);
    assert_int_equal(e.param.conn.private_data_len, RS_CM_REQ_PRIVATE_MAX);
    assert_int_equal(e.param.conn.responder_resources, 3);
    assert_int_equal(e.param.conn.initiator_depth, 2);
    assert_int_equal(e.param.conn.retry_count, 6);
    assert_int_equal(e.param.conn.rnr_retry_count, 5);
    a = qp_attr(sfd, child, IBV_QPS_RTR);
    assert_int_equal(a.dest_qp_num, 0x111);
    assert_int_equal(a.ah_attr.is_global, 1);
    assert_int_equal(a.ah_attr.grh.hop_limit, 64);
    struct in_addr ib;
    inet_pton(AF_INET, addr_b, &ib);
    assert_memory_equal(a.ah_attr.grh.dgid + 12, &ib, 4);
    assert_int_equal(a.ah_attr.grh.dgid[10], 0xff);
    assert_int_equal(a.min_rnr_timer, 0);

    struct ucma_abi_accept acc;
    INIT(acc, ACCEPT);
    acc.id = child;
    acc.uid = 300;
    acc.conn_param.valid = 1;
    acc.conn_param.qp_num = 0x222;
    acc.conn_param.responder_resources = 1;
    acc.conn_param.initiator_depth = 1;
    acc.conn_param.rnr_retry_count = 7;
    acc.conn_param.private_data_len = 3;
    memcpy(acc.conn_param.private_data, "yes", 3);
    assert_int_equal(run(sfd, &acc, sizeof(acc)), 0);

    /* The client: the REP as CONNECT_RESPONSE; librdmacm's QP then goes to RTS. */
    e = event(cfd);
    assert_int_equal(e.event, RDMA_CM_EVENT_CONNECT_RESPONSE);
    assert_int_equal(e.param.conn.qp_num, 0x222);
    assert_memory_equal(e.param.conn.private_data, "yes", 3);
    a = qp_attr(cfd, c, IBV_QPS_INIT);
    assert_int_equal(a.qp_access_flags, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                                            IBV_ACCESS_REMOTE_ATOMIC);
    a = qp_attr(cfd, c, IBV_QPS_RTR);
    assert_int_equal(a.dest_qp_num, 0x222);
    assert_int_equal(a.max_dest_rd_atomic, 1);
    a = qp_attr(cfd, c, IBV_QPS_RTS);
    assert_int_equal(a.timeout, 17);            /* rdma_cm's over RoCE */
    assert_int_equal(a.retry_cnt, 6);
    assert_int_equal(a.rnr_retry, 7);           /* the REP's */
    assert_int_equal(a.max_rd_atomic, 1);
    assert_false(readable(sfd));                /* no RTU yet: not established */
    struct ucma_abi_accept confirm;
    INIT(confirm, ACCEPT);
    confirm.id = c;
    assert_int_equal(run(cfd, &confirm, sizeof(confirm)), 0);
    e = event(sfd);
    assert_int_equal(e.event, RDMA_CM_EVENT_ESTABLISHED);
    assert_int_equal(e.uid, 300);               /* the ACCEPT's */
    assert_int_equal(e.id, child);

    struct ucma_abi_disconnect d;
    INIT(d, DISCONNECT);
    d.id = c;
    assert_int_equal(run(cfd, &d, sizeof(d)), 0);
    assert_int_equal(run(cfd, &d, sizeof(d)), EINVAL);     /* its DREQ is out already */
    assert_int_equal(event(sfd).event, RDMA_CM_EVENT_DISCONNECTED);
    assert_int_equal(event(cfd).event, RDMA_CM_EVENT_DISCONNECTED);
    d.id = child;
    assert_int_equal(run(sfd, &d, sizeof(d)), 0);          /* the peer's came first */
    assert_int_equal(run(sfd, &d, sizeof(d)), EINVAL);     /* once */
    assert_int_equal(event(cfd).event, RDMA_CM_EVENT_TIMEWAIT_EXIT);
    assert_int_equal(event(sfd).event, RDMA_CM_EVENT_TIMEWAIT_EXIT);
    /* Reported: ADDR, ROUTE, CONNECT_RESPONSE, DISCONNECTED, TIMEWAIT_EXIT. */
    assert_int_equal(destroy_id(cfd, c), 5);
    assert_int_equal(destroy_id(sfd, child), 3);
    assert_int_equal(destroy_id(sfd, l), 1);    /* its CONNECT_REQUEST */
    vb_ucma_close(sfd, close);
    vb_ucma_close(cfd, close);
}

/* REJECT: the consumer's reason (28) or ECE's (35), 148 bytes at most, only for a
 * request held; the client is told the reason and the bytes. A REQ before its
 * listener waits for it; one nobody listens for is refused with reason 8. */
static void
test_reject_and_early(void **state)
{
    (void)state;
    int sfd = vb_ucma_open(O_RDWR), cfd = vb_ucma_open(O_RDWR);
    uint16_t port = next_port++;
    uint32_t l = create_id(sfd, 1);
    assert_int_equal(bind_ip(sfd, l, addr_a, port), 0);

    /* Before the listen: the REQ waits for it. */
    uint32_t c = resolved(cfd, 2, addr_a, port);
    assert_int_equal(connect_id(cfd, c, 0x333, "x"), 0);
    assert_int_equal(listen_id(sfd, l, 4), 0);
    struct ucma_abi_event_resp e = event(sfd);
    assert_int_equal(e.event, RDMA_CM_EVENT_CONNECT_REQUEST);
    uint32_t child = e.id;

    struct ucma_abi_reject r;
    INIT(r, REJECT);
    r.id = child;
    r.reason = 5;
    assert_int_equal(run(sfd, &r, sizeof(r)), EINVAL);
    r.reason = 0;
    r.private_data_len = RS_CM_REJ_PRIVATE_MAX + 1;
    assert_int_equal(run(sfd, &r, sizeof(r)), EINVAL);
    r.private_data_len = 4;
    memcpy(r.private_data, "busy", 4);
    r.id = l;
    assert_int_equal(run(sfd, &r, sizeof(r)), EINVAL);     /* a listener holds no REQ */
    r.id = child;
    assert_int_equal(run(sfd, &r, sizeof(r)), 0);
    e = event(cfd);
    assert_int_equal(e.event, RDMA_CM_EVENT_REJECTED);
    assert_int_equal(e.status, 28);
    assert_int_equal(e.param.conn.private_data_len, RS_CM_REJ_PRIVATE_MAX);
    assert_memory_equal(e.param.conn.private_data, "busy", 4);
    destroy_id(sfd, child);
    destroy_id(cfd, c);

    /* Nobody listens on port + 100: refused after the wait. */
    c = resolved(cfd, 3, addr_a, (uint16_t)(port + 100));
    assert_int_equal(connect_id(cfd, c, 0x444, "y"), 0);
    e = event(cfd);
    assert_int_equal(e.event, RDMA_CM_EVENT_REJECTED);
    assert_int_equal(e.status, 8);
    vb_ucma_close(sfd, close);
    vb_ucma_close(cfd, close);
}

/* MIGRATE_ID: an ID and its waiting events move to another channel; the answer
 * counts the events it reported. */
static void
test_migrate(void **state)
{
    struct ucma_abi_migrate_id m;
    struct ucma_abi_migrate_resp mr;
    struct ucma_abi_resolve_ip rc;
    struct sockaddr_in s = sin_of(addr_b, 0), d = sin_of(addr_a, 1);

    (void)state;
    int fa = vb_ucma_open(O_RDWR), fb = vb_ucma_open(O_RDWR);
    uint32_t id = create_id(fa, 9);
    uint32_t keep = create_id(fa, 10);
    INIT(rc, RESOLVE_IP);
    memcpy(&rc.src_addr, &s, sizeof(s));
    memcpy(&rc.dst_addr, &d, sizeof(d));
    rc.id = keep;
    assert_int_equal(run(fa, &rc, sizeof(rc)), 0);
    rc.id = id;
    assert_int_equal(run(fa, &rc, sizeof(rc)), 0);
    INIT(m, MIGRATE_ID);
    m.out = sizeof(mr);
    m.response = (uintptr_t)&mr;
    m.id = id;
    m.fd = (uint32_t)fa;
    assert_int_equal(run(fb, &m, sizeof(m)), 0);
    assert_int_equal(mr.events_reported, 0);
    struct ucma_abi_event_resp e = event(fb);
    assert_int_equal(e.id, id);
    assert_false(readable(fb));
    e = event(fa);
    assert_int_equal(e.id, keep);               /* the other ID's stayed */
    assert_false(readable(fa));
    m.fd = (uint32_t)fa;                        /* the ID is fb's now */
    assert_int_equal(run(fb, &m, sizeof(m)), EINVAL);
    assert_int_equal(destroy_id(fb, id), 1);
    vb_ucma_close(fa, close);
    vb_ucma_close(fb, close);
}

/* --- a channel closed while another thread reads it (rping's teardown) --- */

static bool owned_at_release;

/* The C library's close(), noting whether the descriptor was still ours then. */
static int
release_noting(int fd)
{
    owned_at_release = vb_ucma_owns(fd);
    return close(fd);
}

struct reader {
    int fd;
    atomic_int entered, done;
    pid_t tid;
    int err;
};

static int
get_event(int fd)
{
    struct ucma_abi_get_event g;
    struct ucma_abi_event_resp r;

    INIT(g, GET_EVENT);
    g.out = sizeof(r);
    g.response = (uintptr_t)&r;
    return run(fd, &g, sizeof(g));
}

static void *
reader_main(void *arg)
{
    struct reader *rd = arg;

    rd->tid = (pid_t)syscall(SYS_gettid);
    atomic_store(&rd->entered, 1);
    rd->err = get_event(rd->fd);
    atomic_store(&rd->done, 1);
    return NULL;
}

/* Whether the reader sleeps, or has ended. */
static bool
sleeping_or_done(struct reader *rd)
{
    return atomic_load(&rd->done) || test_thread_sleeps(rd->tid);
}

/* rping's event thread acks the last event and reads again while its main
 * thread destroys the ID and closes the channel. A GET_EVENT that found the
 * descriptor ours before the close, or that comes just after it (the number
 * is held: the last 8 closed keep their eventfd and number), waits on the
 * closed channel, as on the kernel's file, or says EAGAIN when non-blocking
 * (not EBADF); any other command, EBADF, and a second close too. A held
 * number is given up, its eventfd closed while still ours (a write() in
 * between must not reach the eventfd: EINVAL), once 8 more have closed; and
 * once something else has the number, its writes are that file's. */
static void
test_close_while_reading(void **state)
{
    (void)state;
    int p[2];                   /* made first, so that it takes no channel's number */
    assert_int_equal(pipe(p), 0);
    /* Non-blocking: EAGAIN from another thread, EBADF from the closer. */
    int first = vb_ucma_open(O_RDWR | O_NONBLOCK), fd = first;
    assert_true(fd >= 0);
    uint32_t id = create_id(fd, 11);
    assert_int_equal(destroy_id(fd, id), 0);
    owned_at_release = false;
    assert_int_equal(vb_ucma_close(fd, release_noting), 0);
    assert_false(owned_at_release);                     /* held: not released */
    assert_true(vb_ucma_owns(fd));
    assert_true(fcntl(fd, F_GETFD) >= 0);
    struct reader rd = {.fd = fd};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, reader_main, &rd), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(rd.err, EAGAIN);
    assert_int_equal(create_id_err(fd, 13, &id), EBADF);  /* any other command: EBADF */
    errno = 0;
    assert_int_equal(vb_ucma_close(fd, release_noting), -1);  /* closed already */
    assert_int_equal(errno, EBADF);
    assert_true(fcntl(fd, F_GETFD) >= 0);               /* still held */
    /* Eight more channels closed: the first number is given up, closed while
     * still ours, and free for the next file. */
    int more[8];
    for (int i = 0; i < 8; i++) {
        more[i] = vb_ucma_open(O_RDWR);
        assert_true(more[i] >= 0 && more[i] != first);
    }
    for (int i = 0; i < 8; i++) {
        owned_at_release = false;
        assert_int_equal(vb_ucma_close(more[i], release_noting), 0);
        if (i < 7)
            assert_true(fcntl(first, F_GETFD) >= 0);
    }
    assert_true(owned_at_release);
    assert_false(vb_ucma_owns(first));
    assert_int_equal(fcntl(first, F_GETFD), -1);        /* closed for real */
    for (int i = 0; i < 8; i++)
        assert_true(vb_ucma_owns(more[i]));

    /* Blocking, the thread already waiting when the channel closes, and one
     * whose write found it ours before: both wait until cancelled. */
    for (int after = 0; after < 2; after++) {
        fd = vb_ucma_open(O_RDWR);
        assert_true(fd >= 0);
        id = create_id(fd, 12);
        struct reader w = {.fd = fd};
        if (!after) {
            assert_int_equal(pthread_create(&th, NULL, reader_main, &w), 0);
            while (!atomic_load(&w.entered) || !sleeping_or_done(&w))
                sched_yield();
        }
        assert_int_equal(destroy_id(fd, id), 0);
        assert_int_equal(vb_ucma_close(fd, close), 0);
        if (after) {
            assert_int_equal(pthread_create(&th, NULL, reader_main, &w), 0);
            while (!atomic_load(&w.entered) || !sleeping_or_done(&w))
                sched_yield();
        }
        assert_false(atomic_load(&w.done));
        void *ret = NULL;
        pthread_cancel(th);
        assert_int_equal(pthread_join(th, &ret), 0);
        assert_ptr_equal(ret, PTHREAD_CANCELED);
    }

    /* The number taken by something else as the write came: the write is its. */
    assert_int_equal(dup2(p[1], fd), fd);
    assert_int_equal(vb_ucma_write(fd, "hello", 5), 5);
    assert_int_equal(vb_ucma_write(fd, "again", 5), 5);
    char got[16] = {0};
    assert_int_equal(read(p[0], got, sizeof(got)), 10);
    assert_string_equal(got, "helloagain");
    close(fd);
    close(p[0]);
    close(p[1]);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commands),
        cmocka_unit_test(test_connection),
        cmocka_unit_test(test_reject_and_early),
        cmocka_unit_test(test_migrate),
        cmocka_unit_test(test_close_while_reading),
    };

    return cmocka_run_group_tests(tests, setup_devices, NULL);
}
