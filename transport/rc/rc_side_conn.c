/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rc_side_conn.c - the server's end of side-channel connections, read
 * without ever waiting (see struct rs_rc_side_conn in rc.h).
 *
 * A responder serves RoCE packets and side-channel peers from one thread.
 * Reading a peer's line byte by byte with a wait per byte let one peer that
 * trickled bytes stop the RoCE path for as long as it liked. Here each
 * connection keeps what has arrived in its own buffer, a line is handed out
 * only once its newline is there, and a deadline bounds how long a line may
 * take, so the caller's poll() loop never blocks on a peer.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rc_int.h"

void
rs_rc_side_conn_open(struct rs_rc_side_conn *c, int fd, uint64_t timeout_ns, uint64_t now)
{
    struct sockaddr_storage sa;
    socklen_t salen = sizeof(sa);
    uint8_t gid[16];
    uint32_t scope;
    uint16_t port;
    int flags = fcntl(fd, F_GETFL);

    if (flags >= 0)
        fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    c->fd = fd;
    c->timeout_ns = timeout_ns;
    c->deadline_ns = now + timeout_ns;      /* the first line is due */
    c->len = c->used = 0;
    c->closing = false;
    snprintf(c->peer, sizeof(c->peer), "?");
    if (getpeername(fd, (struct sockaddr *)&sa, &salen) == 0 &&
        rs_addr_from_sockaddr((struct sockaddr *)&sa, gid, &scope, &port))
        rs_addr_format_port(gid, scope, port, c->peer, sizeof(c->peer));
}

bool
rs_rc_side_conn_expired(const struct rs_rc_side_conn *c, uint64_t now)
{
    return c->fd >= 0 && c->deadline_ns != 0 && now >= c->deadline_ns;
}

bool
rs_rc_side_conn_pending(const struct rs_rc_side_conn *c)
{
    return c->fd >= 0 && !c->closing && memchr(c->buf + c->used, '\n', c->len - c->used) != NULL;
}

/* A whole line at the front of the buffer: hands it out. */
static bool
take_line(struct rs_rc_side_conn *c, uint64_t now, const char **line)
{
    char *nl = memchr(c->buf, '\n', c->len);

    if (nl == NULL)
        return false;
    *nl = '\0';
    *line = c->buf;
    c->used = (size_t)(nl - c->buf) + 1;
    /* What follows the newline is the start of the next line: its clock runs. */
    c->deadline_ns = c->len > c->used ? now + c->timeout_ns : 0;
    return true;
}

static int
overdue(const struct rs_rc_side_conn *c, char *err)
{
    return rs_error(err, RS_EIO, "side channel: %s: %s within %llu ms", c->peer,
                    c->len == 0 ? "no line" : "no whole line",
                    (unsigned long long)(c->timeout_ns / 1000000));
}

/* A lingering connection: what has arrived is dropped; RS_EOF once the peer has
 * closed (or failed) or the linger is over. */
static int
discard(struct rs_rc_side_conn *c, uint64_t now, char *err)
{
    for (;;) {
        ssize_t got = recv(c->fd, c->buf, sizeof(c->buf), MSG_DONTWAIT);
        if (got > 0)
            continue;
        if (got < 0 && errno == EINTR)
            continue;
        if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) ||
            rs_rc_side_conn_expired(c, now))
            return rs_error(err, RS_EOF, "side channel: %s closed", c->peer);
        return 0;
    }
}

int
rs_rc_side_conn_next(struct rs_rc_side_conn *c, uint64_t now, const char **line, char *err)
{
    if (c->closing)
        return discard(c, now, err);
    /* Drop the line handed out last time. */
    if (c->used > 0) {
        memmove(c->buf, c->buf + c->used, c->len - c->used);
        c->len -= c->used;
        c->used = 0;
    }
    if (take_line(c, now, line))
        return 1;
    if (c->len < sizeof(c->buf)) {
        ssize_t got = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, MSG_DONTWAIT);
        if (got == 0)
            return rs_error(err, RS_EOF, "side channel: %s closed the connection", c->peer);
        if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return rs_error(err, RS_EIO, "side channel: %s: %s", c->peer, strerror(errno));
        if (got > 0) {
            if (c->len == 0 && c->deadline_ns == 0)
                c->deadline_ns = now + c->timeout_ns;   /* a new line begins */
            c->len += (size_t)got;
            if (take_line(c, now, line))
                return 1;
        }
    }
    if (c->len == sizeof(c->buf))
        return rs_error(err, RS_EIO, "side channel: %s: a line longer than %zu bytes",
                        c->peer, sizeof(c->buf) - 1);
    return rs_rc_side_conn_expired(c, now) ? overdue(c, err) : 0;
}

void
rs_rc_side_conn_close(struct rs_rc_side_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->len = c->used = 0;
    c->deadline_ns = 0;
}

void
rs_rc_side_conn_linger(struct rs_rc_side_conn *c, uint64_t now, uint64_t linger_ns)
{
    if (c->fd < 0 || c->closing)
        return;
    shutdown(c->fd, SHUT_WR);
    c->closing = true;
    c->len = c->used = 0;
    c->deadline_ns = now + linger_ns;
}

void
rs_rc_side_close_lingering(int fd, uint64_t linger_ns)
{
    char sink[4096];
    uint64_t end = rs_rc_now_ns() + linger_ns;

    shutdown(fd, SHUT_WR);
    for (;;) {
        ssize_t got;
        while ((got = recv(fd, sink, sizeof(sink), MSG_DONTWAIT)) > 0)
            ;
        if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            break;      /* the peer closed (or reset): our lines reached it first */
        uint64_t now = rs_rc_now_ns();
        if (now >= end)
            break;
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, (int)((end - now + 999999) / 1000000)) < 0 && errno != EINTR)
            break;
    }
    close(fd);
}

void
rs_rc_side_send_error(int fd, const char *why)
{
    char line[RS_ERRBUF_SIZE + 16];
    int n = snprintf(line, sizeof(line), "{\"error\": \"%s", why);

    if (n < 0)
        return;
    if ((size_t)n > sizeof(line) - 4)
        n = (int)sizeof(line) - 4;     /* cut: the line still closes */
    for (char *p = line + 11; p < line + n; p++)
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
            *p = '\'';
    memcpy(line + n, "\"}\n", 3);
    /* A short line into a connection's send buffer: it takes it at once
     * unless the peer has stopped reading, and then we do not wait. */
    (void)send(fd, line, (size_t)n + 3, MSG_DONTWAIT | MSG_NOSIGNAL);
}

int
rs_rc_side_refuse(int listen_fd, const char *why, char *err)
{
    int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

    if (fd < 0)
        return rc_side_accept_error(err);
    rs_rc_side_send_error(fd, why);
    /* Closed with the peer's first lines unread, the connection would end in a reset
     * rather than after our line: take what has come, without waiting (a server with no
     * room does not linger), then close. */
    rs_rc_side_close_lingering(fd, 0);
    return 0;
}
