/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_side.c - the TCP side channel that carries connection parameters.
 *
 * The messages are flat JSON objects of numbers and strings, one per line.
 * We read them with a key lookup rather than a JSON library: none of the
 * project's dependencies parses JSON (glib does not), the objects are ours
 * and flat, and a lookup that never allocates cannot be led astray by a
 * hostile peer beyond returning "not found".
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rc_int.h"

/* "ip" stays a dotted quad for IPv4, as before IPv6; an IPv6 address goes
 * as text without a scope, which names an interface of ours, not the peer's. */
int
rs_rc_conn_format(const struct rs_rc_conn_info *c, char *buf, size_t size)
{
    char ip[RS_ADDR_TEXT_MAX];

    return snprintf(buf, size,
                    "{\"ip\": \"%s\", \"qpn\": %" PRIu32 ", \"psn\": %" PRIu32
                    ", \"rkey\": %" PRIu32 ", \"va\": %" PRIu64 ", \"length\": %" PRIu64
                    ", \"pmtu\": %" PRIu32 "}",
                    rs_addr_format(c->gid, 0, ip, sizeof(ip)), c->qpn, c->psn, c->rkey, c->va,
                    c->length, c->pmtu);
}

/* Where the value of "key" starts in line, or NULL. */
static const char *
json_value(const char *line, const char *key)
{
    size_t klen = strlen(key);

    for (const char *p = strchr(line, '"'); p != NULL; p = strchr(p + 1, '"')) {
        if (strncmp(p + 1, key, klen) != 0 || p[1 + klen] != '"')
            continue;
        const char *v = p + 2 + klen;
        while (*v == ' ')
            v++;
        if (*v != ':')
            continue;
        v++;
        while (*v == ' ')
            v++;
        return v;
    }
    return NULL;
}

bool
rs_rc_json_u64(const char *line, const char *key, uint64_t *out)
{
    const char *v = json_value(line, key);
    char *end;

    if (v == NULL || *v < '0' || *v > '9')
        return false;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno != 0 || end == v)
        return false;
    *out = n;
    return true;
}

bool
rs_rc_json_str(const char *line, const char *key, char *out, size_t size)
{
    const char *v = json_value(line, key);

    if (v == NULL || *v != '"' || size == 0)
        return false;
    const char *end = strchr(v + 1, '"');
    if (end == NULL || (size_t)(end - v - 1) >= size)
        return false;
    memcpy(out, v + 1, (size_t)(end - v - 1));
    out[end - v - 1] = '\0';
    return true;
}

int
rs_rc_conn_parse(const char *line, struct rs_rc_conn_info *c, char *err)
{
    char ip[RS_ADDR_TEXT_MAX];
    uint64_t qpn, psn, rkey, va, length, pmtu;

    memset(c, 0, sizeof(*c));
    if (!rs_rc_json_str(line, "ip", ip, sizeof(ip)) || rs_addr_parse(ip, c->gid, NULL, NULL) < 0 ||
        !rs_rc_json_u64(line, "qpn", &qpn) || !rs_rc_json_u64(line, "psn", &psn) ||
        !rs_rc_json_u64(line, "pmtu", &pmtu) || qpn > RC_PSN_MASK || psn > RC_PSN_MASK ||
        rs_rc_pmtu_valid((uint32_t)pmtu) == 0)
        return rs_error(err, RS_EINVAL, "peer parameters: expected ip, qpn, psn and pmtu");
    c->qpn = (uint32_t)qpn;
    c->psn = (uint32_t)psn;
    c->pmtu = (uint32_t)pmtu;
    if (rs_rc_json_u64(line, "rkey", &rkey))
        c->rkey = (uint32_t)rkey;
    if (rs_rc_json_u64(line, "va", &va))
        c->va = va;
    if (rs_rc_json_u64(line, "length", &length))
        c->length = length;
    return 0;
}

int
rs_rc_side_listen(const uint8_t gid[16], uint32_t scope, uint16_t port, int *fd, char *err)
{
    struct sockaddr_storage sa;
    int one = 1;
    socklen_t salen = rs_addr_to_sockaddr(gid, scope, port, &sa);

    *fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*fd < 0)
        return rs_error(err, RS_EIO, "side channel: %s", strerror(errno));
    setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(*fd, (struct sockaddr *)&sa, salen) < 0 || listen(*fd, 16) < 0) {
        int e = errno;
        char where[RS_ADDR_TEXT_MAX];
        close(*fd);
        *fd = -1;
        char what[RS_ADDR_TEXT_MAX + 32];
        snprintf(what, sizeof(what), "side channel: listen on %s",
                 rs_addr_format_port(gid, scope, port, where, sizeof(where)));
        return rs_error_errno(err, e, what);
    }
    return 0;
}

int
rc_side_accept_error(char *err)
{
    /* Nothing pending on a non-blocking listener, or a peer that gave up
     * between poll() and accept(): no connection, and nothing wrong. */
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED || errno == EINTR)
        return rs_error(err, RS_ENOENT, "side channel: no connection pending");
    return rs_error(err, RS_EIO, "side channel: accept: %s", strerror(errno));
}

int
rs_rc_side_accept(int listen_fd, int *fd, char *err)
{
    int one = 1;

    *fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (*fd < 0)
        return rc_side_accept_error(err);
    setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return 0;
}

int
rs_rc_side_connect(const uint8_t gid[16], uint32_t scope, uint16_t port, int timeout_ms,
                   int *fd, char *err)
{
    struct sockaddr_storage sa;
    int one = 1, e = 0;
    socklen_t salen = rs_addr_to_sockaddr(gid, scope, port, &sa);
    char where[RS_ADDR_TEXT_MAX];

    for (int waited = 0; waited <= timeout_ms; waited += 50) {
        *fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (*fd < 0)
            return rs_error(err, RS_EIO, "side channel: %s", strerror(errno));
        if (connect(*fd, (struct sockaddr *)&sa, salen) == 0) {
            setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            return 0;
        }
        e = errno;
        close(*fd);
        *fd = -1;
        if (e != ECONNREFUSED)
            break;
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    return rs_error(err, RS_EIO, "side channel: connect to %s: %s",
                    rs_addr_format_port(gid, scope, port, where, sizeof(where)), strerror(e));
}

int
rs_rc_side_send(int fd, const char *line, char *err)
{
    size_t len = strlen(line);
    char nl = '\n';
    struct iovec iov[2] = {{(void *)line, len}, {&nl, 1}};
    struct msghdr m;

    memset(&m, 0, sizeof(m));
    m.msg_iov = iov;
    m.msg_iovlen = 2;
    ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL);
    if (n != (ssize_t)len + 1)
        return rs_error(err, RS_EIO, "side channel: send: %s",
                        n < 0 ? strerror(errno) : "short write");
    return 0;
}

int
rs_rc_side_recv(int fd, char *line, size_t size, int timeout_ms, char *err)
{
    size_t n = 0;

    /* Byte by byte so that nothing after the newline is consumed: the
     * lines are short and few. */
    while (n + 1 < size) {
        struct pollfd pfd = {fd, POLLIN, 0};
        int r = poll(&pfd, 1, timeout_ms);
        if (r == 0)
            return rs_error(err, RS_EIO, "side channel: the peer said nothing for %d ms",
                            timeout_ms);
        if (r < 0 && errno != EINTR)
            return rs_error(err, RS_EIO, "side channel: %s", strerror(errno));
        if (r < 0)
            continue;
        char c;
        ssize_t got = recv(fd, &c, 1, 0);
        if (got == 0)
            return rs_error(err, RS_EOF, "side channel: the peer closed the connection");
        if (got < 0)
            return rs_error(err, RS_EIO, "side channel: %s", strerror(errno));
        if (c == '\n') {
            line[n] = '\0';
            return 0;
        }
        line[n++] = c;
    }
    return rs_error(err, RS_EINVAL, "side channel: line longer than %zu bytes", size - 1);
}

int
rs_rc_side_exchange(int fd, const char *ours, struct rs_rc_conn_info *peer, char *err)
{
    char line[1024], why[RS_ERRBUF_SIZE - 32];

    if (rs_rc_side_send(fd, ours, err) < 0 ||
        rs_rc_side_recv(fd, line, sizeof(line), 5000, err) < 0)
        return RS_EIO;
    if (rs_rc_json_str(line, "error", why, sizeof(why)))
        return rs_error(err, RS_EIO, "the server refused: %s", why);
    return rs_rc_conn_parse(line, peer, err) < 0 ? RS_EIO : 0;
}
