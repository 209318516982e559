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

#include <roceshark/dissectors/nstime.h>

#include "rc_int.h"

#define BATCH 64
#define RX_BUF 9216             /* a jumbo frame: longer is truncated, hence malformed */
#define DEFAULT_RCVBUF (64u << 20)

struct rs_rc_udp {
    struct rs_rc_udp_opts opts;
    int tx_fd;                  /* UDP, bound to gid:4791; also the receiver with no_raw */
    int rx_fd;                  /* raw IPPROTO_UDP, bound to gid; -1 with no_raw */
    int raw_tx_fd;              /* raw IPPROTO_RAW, whole packets (raw_send); else -1 */
    bool v6;                    /* IPv6 headers: the GID is not IPv4-mapped */
    uint32_t ip_hdr;            /* their length: RS_IPV4_HDR_LEN or RS_IPV6_HDR_LEN */
    struct rs_rc_link link;
    unsigned tx_n;
    uint32_t tx_len[BATCH];
    uint8_t (*tx_buf)[RS_RC_MAX_PACKET];
    uint8_t (*rx_buf)[RX_BUF];
    struct mmsghdr tx_msg[BATCH], rx_msg[BATCH];
    struct iovec tx_iov[BATCH], rx_iov[BATCH];
    union sockaddr_any {
        struct sockaddr_in v4;
        struct sockaddr_in6 v6;
    } tx_addr[BATCH], rx_addr[BATCH];
    char rx_ctl[BATCH][128];    /* arrival time, IPv6 destination and traffic class */
    /* Each datagram's TOS as ancillary data: the packet's own DSCP and ECN (a fault
     * engine's CE mark, say), which the kernel writes into the IP header it makes. */
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } tx_ctl[BATCH];
    uint64_t tx_errors;         /* datagrams the kernel refused */
    uint64_t *tx_errors_ctx;    /* the context's counter of them; NULL: none */
    int tx_errno;               /* the last refusal's, and its datagram's length */
    uint32_t tx_error_len;
    uint32_t if_mtu;            /* of the interface holding gid; 0: not found */
    /* With a hook: where received packets go on, and when its next held one is due. */
    struct rs_rc_ctx *rx_ctx;
    uint64_t rx_now;
    uint64_t hook_due;
};

uint64_t
rs_rc_now_ns(void)
{
    return rs_monotonic_ns();
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
udp_tx_errors_to(void *arg, uint64_t *counter)
{
    struct rs_rc_udp *u = arg;

    u->tx_errors_ctx = counter;
}

static void
udp_connected(void *arg, uint32_t qpn, const uint8_t peer_gid[16], uint32_t peer_qpn)
{
    struct rs_rc_udp *u = arg;
    const struct rs_rc_hook *h = u->opts.hook;

    if (h != NULL && h->connected != NULL)
        h->connected(h->arg, u->opts.gid, qpn, peer_gid, peer_qpn);
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

    bool whole = u->raw_tx_fd >= 0;

    for (unsigned i = 0; i < n; i++) {
        /* The encoder built IP (no options) and UDP: a UDP socket's kernel writes
         * those itself, so its datagram starts at the BTH; a raw socket sends them. */
        const uint8_t *b = u->tx_buf[i];
        uint32_t skip = whole ? 0 : u->ip_hdr + RS_UDP_HDR_LEN;
        u->tx_iov[i].iov_base = u->tx_buf[i] + skip;
        u->tx_iov[i].iov_len = u->tx_len[i] - skip;
        memset(&u->tx_msg[i], 0, sizeof(u->tx_msg[i]));
        int tos;
        if (u->v6) {
            struct sockaddr_in6 *a = &u->tx_addr[i].v6;
            memset(a, 0, sizeof(*a));
            a->sin6_family = AF_INET6;
            /* A raw IPv6 socket reads the port as the next header number: none. */
            a->sin6_port = whole ? 0 : htons(RS_ROCEV2_UDP_PORT);
            a->sin6_scope_id = u->opts.scope;     /* used for link-local peers only */
            memcpy(&a->sin6_addr, b + 24, 16);
            u->tx_msg[i].msg_hdr.msg_namelen = sizeof(*a);
            tos = (b[0] & 0x0f) << 4 | b[1] >> 4;
        } else {
            struct sockaddr_in *a = &u->tx_addr[i].v4;
            memset(a, 0, sizeof(*a));
            a->sin_family = AF_INET;
            a->sin_port = htons(RS_ROCEV2_UDP_PORT);
            memcpy(&a->sin_addr, b + 16, 4);
            u->tx_msg[i].msg_hdr.msg_namelen = sizeof(*a);
            tos = b[1];
        }
        u->tx_msg[i].msg_hdr.msg_name = &u->tx_addr[i];
        u->tx_msg[i].msg_hdr.msg_iov = &u->tx_iov[i];
        u->tx_msg[i].msg_hdr.msg_iovlen = 1;
        if (tos != u->opts.tos && !whole) {
            struct msghdr *m = &u->tx_msg[i].msg_hdr;
            m->msg_control = u->tx_ctl[i].buf;
            m->msg_controllen = sizeof(u->tx_ctl[i].buf);
            struct cmsghdr *c = CMSG_FIRSTHDR(m);
            c->cmsg_level = u->v6 ? IPPROTO_IPV6 : IPPROTO_IP;
            c->cmsg_type = u->v6 ? IPV6_TCLASS : IP_TOS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &tos, sizeof(tos));
        }
    }
    unsigned done = 0;
    while (done < n) {
        int r = sendmmsg(whole ? u->raw_tx_fd : u->tx_fd, u->tx_msg + done, n - done, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            /* A full buffer, a datagram larger than the interface's MTU (EMSGSIZE:
             * we send with DF), an ICMP error from the peer: the datagram is lost,
             * which the transport's retries are for, but it never left, which the
             * user must see: counted here and in the context's tx_errors. */
            u->tx_errors++;
            if (u->tx_errors_ctx != NULL)
                (*u->tx_errors_ctx)++;
            u->tx_errno = errno;
            u->tx_error_len = u->tx_len[done];
            done++;
            continue;
        }
        done += (unsigned)r;
    }
    u->tx_n = 0;
}

/* A classic BPF program for the raw socket: accept UDP to port 4791 (the
 * raw socket sees every UDP datagram for its address). An IPv4 raw socket's
 * filter sees the IP header first; an IPv6 one's sees the UDP header. */
static int
attach_port_filter(int fd, bool v6)
{
    struct sock_filter skip_ip = BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0);  /* X = IHL * 4 */
    struct sock_filter no_ip = BPF_STMT(BPF_LDX | BPF_IMM, 0);           /* X = 0 */
    struct sock_filter code[] = {
        v6 ? no_ip : skip_ip,
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

/* The TOS (IPv6: traffic class) of what we send, and no fragmentation: on
 * IPv4, DF makes Linux send IP identification 0 (see rc.h). */
static int
set_send_options(const struct rs_rc_udp *u, int fd)
{
    int tos = u->opts.tos, pmtu4 = IP_PMTUDISC_DO, pmtu6 = IPV6_PMTUDISC_DO;

    if (!u->v6) {
        if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu4, sizeof(pmtu4)) < 0)
            return -1;
        return setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
    }
    if (setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &pmtu6, sizeof(pmtu6)) < 0)
        return -1;
    return setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos));
}

/* What a receiver is told of each datagram: its TOS (IPv6: traffic class) for
 * ECN, and on IPv6 its destination, for the header rebuild_ipv6() puts back. */
static int
set_receive_options(const struct rs_rc_udp *u, int fd)
{
    int one = 1;

    if (!u->v6)
        return setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
    if (setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one)) < 0)
        return -1;
    return setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one, sizeof(one));
}

/* A socket that sends whole IP packets (IPPROTO_RAW: IPv4 and IPv6 headers
 * included). Linux keeps an IPv4 identification of 0 with DF set, as the ICRC was
 * computed over, and an IPv6 UDP checksum must be the encoder's (it computes one). Not
 * privileged: -1 with errno 0, and the UDP socket sends. */
static int
open_raw_sender(struct rs_rc_udp *u)
{
    int sndbuf = 8 << 20;

    u->raw_tx_fd = socket(u->v6 ? AF_INET6 : AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
    if (u->raw_tx_fd < 0) {
        if (errno != EPERM && errno != EACCES)
            return -1;
        errno = 0;
        return 0;
    }
    setsockopt(u->raw_tx_fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
    return 0;
}

static int
open_sockets(struct rs_rc_udp *u, char *err)
{
    struct sockaddr_storage sa;
    int sndbuf = 8 << 20;
    socklen_t salen = rs_addr_to_sockaddr(u->opts.gid, u->opts.scope, RS_ROCEV2_UDP_PORT, &sa);
    char where[RS_ADDR_TEXT_MAX];

    u->tx_fd = socket(sa.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (u->tx_fd < 0)
        return rs_error(err, RS_EIO, "UDP socket: %s", strerror(errno));
    int one = 1;    /* an IPv6 address is never an IPv4 one too (a raw socket refuses this) */
    if ((u->v6 && setsockopt(u->tx_fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0) ||
        set_send_options(u, u->tx_fd) < 0 ||
        setsockopt(u->tx_fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0)
        return rs_error(err, RS_EIO, "UDP socket options: %s", strerror(errno));
    if (bind(u->tx_fd, (struct sockaddr *)&sa, salen) < 0)
        return rs_error_errno(err, errno,
                              rs_addr_format_port(u->opts.gid, u->opts.scope,
                                                  RS_ROCEV2_UDP_PORT, where, sizeof(where)));
    if (!u->opts.no_raw) {
        u->rx_fd = socket(sa.ss_family, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_UDP);
        if (u->rx_fd < 0 && (errno == EPERM || errno == EACCES))
            u->opts.no_raw = true;  /* unprivileged: receive on UDP, say so */
        else if (u->rx_fd < 0)
            return rs_error(err, RS_EIO, "raw socket: %s", strerror(errno));
    }
    if (u->opts.raw_send && open_raw_sender(u) < 0)
        return rs_error(err, RS_EIO, "raw sending socket: %s", strerror(errno));
    if (u->opts.no_raw) {
        set_receive_options(u, u->tx_fd);
        set_rcvbuf(u->tx_fd, u->opts.rcvbuf);
        return 0;
    }
    salen = rs_addr_to_sockaddr(u->opts.gid, u->opts.scope, 0, &sa);
    if (bind(u->rx_fd, (struct sockaddr *)&sa, salen) < 0 ||
        (u->v6 && set_receive_options(u, u->rx_fd) < 0) ||
        attach_port_filter(u->rx_fd, u->v6) < 0 || attach_drop_filter(u->tx_fd) < 0)
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
    u->tx_fd = u->rx_fd = u->raw_tx_fd = -1;
    u->v6 = !rs_addr_is_v4mapped(opts->gid);
    u->ip_hdr = u->v6 ? RS_IPV6_HDR_LEN : RS_IPV4_HDR_LEN;
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
    char ignored[RS_ERRBUF_SIZE];
    if (rs_rc_if_mtu(opts->gid, opts->scope, &u->if_mtu, ignored) < 0)
        u->if_mtu = 0;
    u->link.tx_buf = udp_tx_buf;
    u->link.tx_send = udp_tx_send;
    u->link.connected = udp_connected;
    u->link.tx_errors_to = udp_tx_errors_to;
    /* A hook sees whole packets, and a raw socket sends them. */
    u->link.sender_writes_udp = opts->hook == NULL && u->raw_tx_fd < 0;
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
    if (u->raw_tx_fd >= 0)
        close(u->raw_tx_fd);
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

bool
rs_rc_udp_sends_whole(const struct rs_rc_udp *u)
{
    return u->raw_tx_fd >= 0;
}

int
rs_rc_udp_fd(const struct rs_rc_udp *u)
{
    return u->opts.no_raw ? u->tx_fd : u->rx_fd;
}

uint64_t
rs_rc_udp_tx_errors(const struct rs_rc_udp *u, int *last_errno, uint32_t *last_len)
{
    if (last_errno != NULL)
        *last_errno = u->tx_errno;
    if (last_len != NULL)
        *last_len = u->tx_error_len;
    return u->tx_errors;
}

uint32_t
rs_rc_udp_if_mtu(const struct rs_rc_udp *u)
{
    return u->if_mtu;
}

uint32_t
rs_rc_udp_active_mtu(const struct rs_rc_udp *u)
{
    return u->if_mtu != 0 ? rs_rc_mtu_for_if(u->if_mtu) : 1024;
}

/* Where a datagram goes in its buffer: after the room for the headers the
 * kernel keeps. An IPv4 raw socket hands over the IP header, an IPv6 one only
 * the UDP header on, a UDP socket neither. */
static uint32_t
rx_room(const struct rs_rc_udp *u)
{
    if (u->opts.no_raw)
        return u->ip_hdr + RS_UDP_HDR_LEN;
    return u->v6 ? RS_IPV6_HDR_LEN : 0;
}

/* The IPv4 header of a datagram from a UDP socket: what the transport reads
 * (addresses, TOS). The identification is unknown, which is why the ICRC is
 * not checked then. */
static void
rebuild_ipv4(struct rs_rc_udp *u, unsigned i, uint8_t *b, uint32_t total, uint8_t tos)
{
    b[0] = 0x45;
    b[1] = tos;
    rs_store_be16(b + 2, (uint16_t)total);
    rs_store_be32(b + 4, 0x00004000);
    b[8] = 64;
    b[9] = IPPROTO_UDP;
    b[10] = b[11] = 0;
    memcpy(b + 12, &u->rx_addr[i].v4.sin_addr, 4);
    memcpy(b + 16, u->opts.gid + 12, 4);
}

/* The IPv6 header (RFC 8200 3) of a datagram, which no socket of Linux hands
 * over: a packet socket would, but it sees every interface's traffic and
 * needs its own filter per address, while recvmsg() tells all the ICRC
 * covers: the source (msg_name) and the destination (IPV6_PKTINFO). The
 * traffic class (IPV6_TCLASS) is masked by the ICRC but carries the ECN
 * bits; the flow label and hop limit are masked and not told, so 0 and 64. */
static void
rebuild_ipv6(struct rs_rc_udp *u, unsigned i, uint8_t *b, uint32_t total, uint8_t tclass,
             const uint8_t *dst)
{
    rs_store_be32(b, 6u << 28 | (uint32_t)tclass << 20);
    rs_store_be16(b + 4, (uint16_t)(total - RS_IPV6_HDR_LEN));
    b[6] = IPPROTO_UDP;
    b[7] = 64;
    memcpy(b + 8, &u->rx_addr[i].v6.sin6_addr, 16);
    memcpy(b + 24, dst != NULL ? dst : u->opts.gid, 16);
}

/* Puts back in front of received datagram i (len bytes at rx_room()) the
 * headers the kernel kept, and returns the packet's length from its IP
 * header on. */
static uint32_t
rebuild_headers(struct rs_rc_udp *u, unsigned i, uint32_t len)
{
    uint8_t *b = u->rx_buf[i];
    uint8_t tos = 0;
    const uint8_t *dst = NULL;
    struct msghdr *m = &u->rx_msg[i].msg_hdr;

    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c != NULL; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
            tos = *CMSG_DATA(c);
        } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS) {
            int tc;
            memcpy(&tc, CMSG_DATA(c), sizeof(tc));
            tos = (uint8_t)tc;
        } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
            dst = CMSG_DATA(c);     /* struct in6_pktinfo starts with the address */
        }
    }
    if (u->opts.no_raw) {
        uint8_t *h = b + u->ip_hdr;
        memcpy(h, u->v6 ? &u->rx_addr[i].v6.sin6_port : &u->rx_addr[i].v4.sin_port, 2);
        rs_store_be16(h + 2, RS_ROCEV2_UDP_PORT);
        rs_store_be16(h + 4, (uint16_t)(len + RS_UDP_HDR_LEN));
        h[6] = h[7] = 0;
        len += RS_UDP_HDR_LEN;
    }
    len += u->ip_hdr;
    if (u->v6)
        rebuild_ipv6(u, i, b, len, tos, dst);
    else
        rebuild_ipv4(u, i, b, len, tos);
    return len;
}

static int
receive_batch(struct rs_rc_udp *u, struct rs_rc_ctx *ctx)
{
    unsigned off = rx_room(u);
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
        if (off != 0)
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

/* Takes what is queued, without waiting: a full batch means more is, so up to three
 * more before the caller's poll(), which would find them at once. */
static int
receive_queued(struct rs_rc_udp *u, struct rs_rc_ctx *ctx)
{
    int n = receive_batch(u, ctx);

    for (int more = 0; n > 0 && n % BATCH == 0 && more < 3; more++) {
        int m = receive_batch(u, ctx);
        if (m <= 0)
            break;
        n += m;
    }
    return n;
}

/* The packets received come before the timers: hands the hook's held packets on, then
 * runs the context and sends what it built. */
static void
progress_and_send(struct rs_rc_udp *u, struct rs_rc_ctx *ctx)
{
    uint64_t now = rs_rc_now_ns();

    hook_poll(u, ctx, now);
    rs_rc_progress(ctx, now);
    rs_rc_udp_flush(u);
}

/* Waits until a packet arrives or until, spinning when busy_poll; false on a poll
 * error. */
static bool
wait_for_packet(struct rs_rc_udp *u, uint64_t until, int *n, struct rs_rc_ctx *ctx)
{
    for (;;) {
        uint64_t now = rs_rc_now_ns();
        if (now >= until)
            return true;
        if (u->opts.busy_poll) {
            if ((*n = receive_queued(u, ctx)) != 0)
                return true;
            continue;
        }
        struct pollfd pfd = {rs_rc_udp_fd(u), POLLIN, 0};
        uint64_t left = until - now;
        struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
        int r = ppoll(&pfd, 1, &ts, NULL);
        if (r < 0 && errno != EINTR)
            return false;
        if (r != 0) {
            *n = receive_queued(u, ctx);
            return true;
        }
    }
}

/* Packets before timers, on every turn: what the socket already holds is read before
 * the context runs its timers, so that an acknowledgement queued while this process
 * was off its CPU ends the wait for it rather than come after a needless retransmission
 * (a NIC takes acknowledgements whatever the application is doing). */
int
rs_rc_udp_poll(struct rs_rc_udp *u, struct rs_rc_ctx *ctx, uint64_t wait_ns, char *err)
{
    int n = receive_queued(u, ctx);

    if (n < 0)
        return rs_error(err, RS_EIO, "receive: %s", strerror(errno));
    progress_and_send(u, ctx);
    if (n > 0 || wait_ns == 0)
        return n;
    uint64_t now = rs_rc_now_ns(), deadline = rs_rc_next_deadline(ctx);
    if (rs_rc_udp_next_due(u) < deadline)
        deadline = rs_rc_udp_next_due(u);
    if (deadline <= now)
        return 0;
    uint64_t until = deadline - now < wait_ns ? deadline : now + wait_ns;
    if (!wait_for_packet(u, until, &n, ctx))
        return rs_error(err, RS_EIO, "poll: %s", strerror(errno));
    if (n < 0)
        return rs_error(err, RS_EIO, "receive: %s", strerror(errno));
    progress_and_send(u, ctx);
    return n;
}
