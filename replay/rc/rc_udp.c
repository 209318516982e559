/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_udp.c - the UDP port: RoCEv2 packets between contexts and sockets.
 *
 * See rc.h for why sending and receiving use different sockets. Both
 * directions are batched (sendmmsg, recvmmsg), because at a PMTU of 4096 a
 * gigabyte per second is a quarter of a million packets, and one system
 * call per packet would cost more than everything else together.
 */
#include <errno.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rc_int.h"

#define BATCH 64
#define RX_BUF 9216             /* a jumbo frame: longer is truncated, hence malformed */
#define IPV4_UDP_HDR 28
#define DEFAULT_RCVBUF (64u << 20)

struct rs_rc_udp {
    struct rs_rc_udp_opts opts;
    int tx_fd;                  /* UDP, bound to ip:4791; also the receiver with no_raw */
    int rx_fd;                  /* raw IPPROTO_UDP, bound to ip; -1 with no_raw */
    struct rs_rc_link link;
    unsigned tx_n;
    uint32_t tx_len[BATCH];
    uint8_t (*tx_buf)[RS_RC_MAX_PACKET];
    uint8_t (*rx_buf)[RX_BUF];
    struct mmsghdr tx_msg[BATCH], rx_msg[BATCH];
    struct iovec tx_iov[BATCH], rx_iov[BATCH];
    struct sockaddr_in tx_addr[BATCH], rx_addr[BATCH];
    char rx_ctl[BATCH][64];
    /* Each datagram's TOS as ancillary data: the packet's own DSCP and ECN (a fault
     * engine's CE mark, say), which the kernel writes into the IP header it makes. */
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } tx_ctl[BATCH];
    uint64_t tx_dropped;
    /* With a hook: where received packets go on, and when its next held one is due. */
    struct rs_rc_ctx *rx_ctx;
    uint64_t rx_now;
    uint64_t hook_due;
};

uint64_t
rs_rc_now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void
rs_rc_udp_opts_init(struct rs_rc_udp_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->rcvbuf = DEFAULT_RCVBUF;
}

static uint8_t *
udp_tx_buf(void *arg)
{
    struct rs_rc_udp *u = arg;

    if (u->tx_n == BATCH)
        rs_rc_udp_flush(u);
    return u->tx_buf[u->tx_n];
}

/* What the hook lets through: a packet to send joins the batch, a received one goes to
 * the context. */
static void
hook_pass(void *port, bool rx, const uint8_t *pkt, uint32_t len)
{
    struct rs_rc_udp *u = port;

    if (rx) {
        rs_rc_input(u->rx_ctx, pkt, len, u->rx_now);
        return;
    }
    if (len > RS_RC_MAX_PACKET)
        return;
    if (u->tx_n == BATCH)
        rs_rc_udp_flush(u);
    memmove(u->tx_buf[u->tx_n], pkt, len);     /* may be that very slot */
    u->tx_len[u->tx_n++] = len;
    if (u->tx_n == BATCH)
        rs_rc_udp_flush(u);
}

static void
udp_tx_send(void *arg, uint32_t len)
{
    struct rs_rc_udp *u = arg;
    const struct rs_rc_hook *h = u->opts.hook;

    if (h != NULL) {
        h->packet(h->arg, false, u->tx_buf[u->tx_n], len, rs_rc_now_ns(), hook_pass, u);
        return;
    }
    u->tx_len[u->tx_n++] = len;
    if (u->tx_n == BATCH)
        rs_rc_udp_flush(u);
}

static void
udp_connected(void *arg, uint32_t qpn, const uint8_t peer_ip[4], uint32_t peer_qpn)
{
    struct rs_rc_udp *u = arg;
    const struct rs_rc_hook *h = u->opts.hook;

    if (h != NULL && h->connected != NULL)
        h->connected(h->arg, u->opts.ip, qpn, peer_ip, peer_qpn);
}

/* Hands on the hook's held packets that are due. */
static void
hook_poll(struct rs_rc_udp *u, struct rs_rc_ctx *ctx, uint64_t now)
{
    const struct rs_rc_hook *h = u->opts.hook;

    if (h == NULL)
        return;
    u->rx_ctx = ctx;
    u->rx_now = now;
    u->hook_due = h->poll(h->arg, now, hook_pass, u);
}

uint64_t
rs_rc_udp_next_due(const struct rs_rc_udp *u)
{
    return u->opts.hook != NULL ? u->hook_due : RS_RC_INFINITE;
}

void
rs_rc_udp_flush(struct rs_rc_udp *u)
{
    unsigned n = u->tx_n;

    for (unsigned i = 0; i < n; i++) {
        /* The encoder built IPv4 (20 bytes, no options) and UDP: the kernel
         * writes those itself, so the datagram starts at the BTH. */
        u->tx_iov[i].iov_base = u->tx_buf[i] + IPV4_UDP_HDR;
        u->tx_iov[i].iov_len = u->tx_len[i] - IPV4_UDP_HDR;
        memset(&u->tx_addr[i], 0, sizeof(u->tx_addr[i]));
        u->tx_addr[i].sin_family = AF_INET;
        u->tx_addr[i].sin_port = htons(RS_ROCEV2_UDP_PORT);
        memcpy(&u->tx_addr[i].sin_addr, u->tx_buf[i] + 16, 4);
        memset(&u->tx_msg[i], 0, sizeof(u->tx_msg[i]));
        u->tx_msg[i].msg_hdr.msg_name = &u->tx_addr[i];
        u->tx_msg[i].msg_hdr.msg_namelen = sizeof(u->tx_addr[i]);
        u->tx_msg[i].msg_hdr.msg_iov = &u->tx_iov[i];
        u->tx_msg[i].msg_hdr.msg_iovlen = 1;
        if (u->tx_buf[i][1] != u->opts.tos) {
            struct msghdr *m = &u->tx_msg[i].msg_hdr;
            m->msg_control = u->tx_ctl[i].buf;
            m->msg_controllen = sizeof(u->tx_ctl[i].buf);
            struct cmsghdr *c = CMSG_FIRSTHDR(m);
            c->cmsg_level = IPPROTO_IP;
            c->cmsg_type = IP_TOS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            int tos = u->tx_buf[i][1];
            memcpy(CMSG_DATA(c), &tos, sizeof(tos));
        }
    }
    unsigned done = 0;
    while (done < n) {
        int r = sendmmsg(u->tx_fd, u->tx_msg + done, n - done, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            /* A full buffer or an ICMP error from the peer: the datagram is
             * lost, which the transport's retries are for. */
            u->tx_dropped++;
            done++;
            continue;
        }
        done += (unsigned)r;
    }
    u->tx_n = 0;
}

/* A classic BPF program for the raw socket: accept UDP to port 4791 (the
 * raw socket sees every UDP datagram for its address). */
static int
attach_port_filter(int fd)
{
    struct sock_filter code[] = {
        BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),             /* X = IHL * 4 */
        BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),              /* A = UDP dport */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RS_ROCEV2_UDP_PORT, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, 0xffff),
        BPF_STMT(BPF_RET | BPF_K, 0),
    };
    struct sock_fprog prog = {sizeof(code) / sizeof(code[0]), code};

    return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

/* The UDP socket only sends when the raw socket receives: it drops all. */
static int
attach_drop_filter(int fd)
{
    struct sock_filter code[] = {BPF_STMT(BPF_RET | BPF_K, 0)};
    struct sock_fprog prog = {1, code};

    return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

static void
set_rcvbuf(int fd, uint32_t bytes)
{
    int v = (int)bytes;

    /* SO_RCVBUFFORCE passes rmem_max with privilege; else the capped one. */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
}

static int
open_sockets(struct rs_rc_udp *u, char *err)
{
    struct sockaddr_in sa;
    int one = 1, pmtu = IP_PMTUDISC_DO, tos = u->opts.tos, sndbuf = 8 << 20;

    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    memcpy(&sa.sin_addr, u->opts.ip, 4);
    u->tx_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (u->tx_fd < 0)
        return rs_error(err, RS_EIO, "UDP socket: %s", strerror(errno));
    sa.sin_port = htons(RS_ROCEV2_UDP_PORT);
    /* DF makes Linux send IP identification 0 (see rc.h). */
    if (setsockopt(u->tx_fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) < 0 ||
        setsockopt(u->tx_fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) < 0 ||
        setsockopt(u->tx_fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0)
        return rs_error(err, RS_EIO, "UDP socket options: %s", strerror(errno));
    if (bind(u->tx_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        return rs_error(err, errno == EADDRNOTAVAIL ? RS_ENOENT : RS_EIO,
                        "bind %u.%u.%u.%u:%d: %s", u->opts.ip[0], u->opts.ip[1],
                        u->opts.ip[2], u->opts.ip[3], RS_ROCEV2_UDP_PORT, strerror(errno));
    if (!u->opts.no_raw) {
        u->rx_fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_UDP);
        if (u->rx_fd < 0 && (errno == EPERM || errno == EACCES))
            u->opts.no_raw = true;  /* unprivileged: receive on UDP, say so */
        else if (u->rx_fd < 0)
            return rs_error(err, RS_EIO, "raw socket: %s", strerror(errno));
    }
    if (u->opts.no_raw) {
        setsockopt(u->tx_fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
        set_rcvbuf(u->tx_fd, u->opts.rcvbuf);
        return 0;
    }
    sa.sin_port = 0;
    if (bind(u->rx_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        attach_port_filter(u->rx_fd) < 0 || attach_drop_filter(u->tx_fd) < 0)
        return rs_error(err, RS_EIO, "raw socket setup: %s", strerror(errno));
    set_rcvbuf(u->rx_fd, u->opts.rcvbuf);
    return 0;
}

/* With a hook (the fault engine, a recorder), received packets carry the kernel's time
 * of arrival: what the hook sees is then when the packet came, not when we read it. */
static void
want_arrival_times(struct rs_rc_udp *u)
{
    int one = 1;

    if (u->opts.hook != NULL)
        setsockopt(rs_rc_udp_fd(u), SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
}

/* The arrival time of received packet i on our monotonic clock, or now when the kernel
 * gave none; real_minus_mono converts the kernel's CLOCK_REALTIME stamp. */
static uint64_t
arrival(const struct rs_rc_udp *u, unsigned i, uint64_t now, int64_t real_minus_mono)
{
    struct msghdr *m = (struct msghdr *)&u->rx_msg[i].msg_hdr;

    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c != NULL; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS)
            continue;
        struct timespec ts;
        memcpy(&ts, CMSG_DATA(c), sizeof(ts));
        int64_t t = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec - real_minus_mono;
        return t > 0 && (uint64_t)t <= now ? (uint64_t)t : now;
    }
    return now;
}

int
rs_rc_udp_open(struct rs_rc_udp **out, const struct rs_rc_udp_opts *opts, char *err)
{
    struct rs_rc_udp *u = calloc(1, sizeof(*u));

    if (u == NULL)
        return rs_error(err, RS_ENOMEM, "UDP port: out of memory");
    u->opts = *opts;
    u->tx_fd = u->rx_fd = -1;
    u->hook_due = RS_RC_INFINITE;
    u->tx_buf = malloc((size_t)BATCH * RS_RC_MAX_PACKET);
    u->rx_buf = malloc((size_t)BATCH * RX_BUF);
    int rc = u->tx_buf == NULL || u->rx_buf == NULL
                 ? rs_error(err, RS_ENOMEM, "UDP port: out of memory")
                 : open_sockets(u, err);
    if (rc < 0) {
        rs_rc_udp_close(u);
        return rc;
    }
    want_arrival_times(u);
    u->link.tx_buf = udp_tx_buf;
    u->link.tx_send = udp_tx_send;
    u->link.connected = udp_connected;
    u->link.arg = u;
    *out = u;
    return 0;
}

void
rs_rc_udp_close(struct rs_rc_udp *u)
{
    if (u == NULL)
        return;
    if (u->tx_fd >= 0)
        close(u->tx_fd);
    if (u->rx_fd >= 0)
        close(u->rx_fd);
    free(u->tx_buf);
    free(u->rx_buf);
    free(u);
}

const struct rs_rc_link *
rs_rc_udp_link(struct rs_rc_udp *u)
{
    return &u->link;
}

bool
rs_rc_udp_checks_icrc(const struct rs_rc_udp *u)
{
    return !u->opts.no_raw;
}

int
rs_rc_udp_fd(const struct rs_rc_udp *u)
{
    return u->opts.no_raw ? u->tx_fd : u->rx_fd;
}

uint64_t
rs_rc_udp_tx_dropped(const struct rs_rc_udp *u)
{
    return u->tx_dropped;
}

/* Without a raw socket the datagram arrives without its headers: put back
 * the IPv4 and UDP headers that the transport reads (addresses, ports,
 * TOS); the identification is unknown, which is why the ICRC is not checked. */
static uint32_t
rebuild_headers(struct rs_rc_udp *u, unsigned i, uint32_t len)
{
    uint8_t *b = u->rx_buf[i];
    uint8_t tos = 0;
    struct msghdr *m = &u->rx_msg[i].msg_hdr;

    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c != NULL; c = CMSG_NXTHDR(m, c))
        if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS)
            tos = *CMSG_DATA(c);
    uint32_t total = len + IPV4_UDP_HDR;
    b[0] = 0x45;
    b[1] = tos;
    rs_store_be16(b + 2, (uint16_t)total);
    rs_store_be32(b + 4, 0x00004000);
    b[8] = 64;
    b[9] = IPPROTO_UDP;
    b[10] = b[11] = 0;
    memcpy(b + 12, &u->rx_addr[i].sin_addr, 4);
    memcpy(b + 16, u->opts.ip, 4);
    memcpy(b + 20, &u->rx_addr[i].sin_port, 2);
    rs_store_be16(b + 22, RS_ROCEV2_UDP_PORT);
    rs_store_be16(b + 24, (uint16_t)(len + 8));
    b[26] = b[27] = 0;
    return total;
}

static int
receive_batch(struct rs_rc_udp *u, struct rs_rc_ctx *ctx)
{
    unsigned off = u->opts.no_raw ? IPV4_UDP_HDR : 0;
    int fd = rs_rc_udp_fd(u);

    for (unsigned i = 0; i < BATCH; i++) {
        u->rx_iov[i].iov_base = u->rx_buf[i] + off;
        u->rx_iov[i].iov_len = RX_BUF - off;
        memset(&u->rx_msg[i], 0, sizeof(u->rx_msg[i]));
        u->rx_msg[i].msg_hdr.msg_iov = &u->rx_iov[i];
        u->rx_msg[i].msg_hdr.msg_iovlen = 1;
        u->rx_msg[i].msg_hdr.msg_name = &u->rx_addr[i];
        u->rx_msg[i].msg_hdr.msg_namelen = sizeof(u->rx_addr[i]);
        u->rx_msg[i].msg_hdr.msg_control = u->rx_ctl[i];
        u->rx_msg[i].msg_hdr.msg_controllen = sizeof(u->rx_ctl[i]);
    }
    int n = recvmmsg(fd, u->rx_msg, BATCH, MSG_DONTWAIT, NULL);
    if (n <= 0)
        return n < 0 && errno != EAGAIN && errno != EINTR ? -1 : 0;
    uint64_t now = rs_rc_now_ns();
    int64_t real_minus_mono = 0;
    if (u->opts.hook != NULL) {
        struct timespec real;
        clock_gettime(CLOCK_REALTIME, &real);
        real_minus_mono = (int64_t)real.tv_sec * 1000000000ll + real.tv_nsec - (int64_t)now;
    }
    for (int i = 0; i < n; i++) {
        uint32_t len = u->rx_msg[i].msg_len;
        if (len > RX_BUF - off)
            len = RX_BUF - off;     /* truncated: the IP length says more, so malformed */
        if (u->opts.no_raw)
            len = rebuild_headers(u, (unsigned)i, len);
        if (u->opts.hook != NULL) {
            u->rx_ctx = ctx;
            u->rx_now = now;
            u->opts.hook->packet(u->opts.hook->arg, true, u->rx_buf[i], len,
                                 arrival(u, (unsigned)i, now, real_minus_mono), hook_pass, u);
        } else {
            rs_rc_input(ctx, u->rx_buf[i], len, now);
        }
    }
    return n;
}

int
rs_rc_udp_poll(struct rs_rc_udp *u, struct rs_rc_ctx *ctx, uint64_t wait_ns, char *err)
{
    uint64_t now = rs_rc_now_ns();

    hook_poll(u, ctx, now);
    rs_rc_progress(ctx, now);
    rs_rc_udp_flush(u);
    uint64_t deadline = rs_rc_next_deadline(ctx);
    if (rs_rc_udp_next_due(u) < deadline)
        deadline = rs_rc_udp_next_due(u);
    uint64_t until = deadline <= now ? now : deadline - now < wait_ns ? deadline : now + wait_ns;
    int n;
    for (;;) {
        n = receive_batch(u, ctx);
        /* A full batch means more is queued: take up to three more before
         * going back to the caller's poll(), which would find them at once. */
        for (int more = 0; n > 0 && n % BATCH == 0 && more < 3; more++) {
            int m = receive_batch(u, ctx);
            if (m <= 0)
                break;
            n += m;
        }
        if (n != 0)
            break;
        now = rs_rc_now_ns();
        if (now >= until)
            break;
        if (!u->opts.busy_poll) {
            struct pollfd pfd = {rs_rc_udp_fd(u), POLLIN, 0};
            uint64_t left = until - now;
            struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
            if (ppoll(&pfd, 1, &ts, NULL) < 0 && errno != EINTR)
                return rs_error(err, RS_EIO, "poll: %s", strerror(errno));
            if (!(pfd.revents & POLLIN))
                break;
        }
    }
    if (n < 0)
        return rs_error(err, RS_EIO, "receive: %s", strerror(errno));
    now = rs_rc_now_ns();
    hook_poll(u, ctx, now);
    rs_rc_progress(ctx, now);
    rs_rc_udp_flush(u);
    return n;
}
