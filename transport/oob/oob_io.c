/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob_io.c - the tools' messages over a blocking TCP socket, in exact sizes.
 *
 * perftest and ibv_rc_pingpong read each message with one read() of its
 * size and give up on anything shorter. We keep reading until the whole
 * message is there (TCP may split it) but within a deadline, so a peer that
 * stops half way is reported with how far it got instead of hanging us.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/dissectors/oob.h>

static int64_t
now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
rs_oob_read(int fd, void *buf, size_t n, int timeout_ms, const char *what, char *err)
{
    int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    size_t got = 0;

    while (got < n) {
        int wait = -1;
        if (deadline >= 0) {
            int64_t left = deadline - now_ms();
            if (left <= 0)
                return rs_error(err, RS_EIO, "%s: no answer within %d ms (%zu of %zu bytes)",
                                what, timeout_ms, got, n);
            wait = (int)left;
        }
        struct pollfd pfd = {fd, POLLIN, 0};
        int rc = poll(&pfd, 1, wait);
        if (rc < 0 && errno != EINTR)
            return rs_error(err, RS_EIO, "%s: %s", what, strerror(errno));
        if (rc <= 0)
            continue;
        ssize_t r = recv(fd, (uint8_t *)buf + got, n - got, 0);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r < 0)
            return rs_error(err, RS_EIO, "%s: %s", what, strerror(errno));
        if (r == 0)
            return rs_error(err, RS_EIO, "%s: the peer closed after %zu of %zu bytes", what, got,
                            n);
        got += (size_t)r;
    }
    return 0;
}

int
rs_oob_write(int fd, const void *buf, size_t n, const char *what, char *err)
{
    size_t sent = 0;

    while (sent < n) {
        /* MSG_NOSIGNAL: a peer gone away is an error to report, not SIGPIPE. */
        ssize_t r = send(fd, (const uint8_t *)buf + sent, n - sent, MSG_NOSIGNAL);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return rs_error(err, RS_EIO, "%s: %s", what, strerror(errno));
        sent += (size_t)r;
    }
    return 0;
}

int
rs_oob_xchg(int fd, bool client, const void *mine, void *theirs, size_t n, int timeout_ms,
            const char *what, char *err)
{
    if (client)
        return rs_oob_write(fd, mine, n, what, err) < 0 ||
               rs_oob_read(fd, theirs, n, timeout_ms, what, err) < 0 ? RS_EIO : 0;
    return rs_oob_read(fd, theirs, n, timeout_ms, what, err) < 0 ||
           rs_oob_write(fd, mine, n, what, err) < 0 ? RS_EIO : 0;
}
