/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * verbs_debug.c - why a verb failed, for the one who runs the program.
 *
 * A verbs program reports a failed call as it likes ("Couldn't create QP", perror()),
 * or not at all, and the reason is often ours rather than its: an address this host
 * does not have, one another process holds, a feature not served. errno carries the
 * code; with ROCESHARK_VERBS_DEBUG=1 each such failure also prints one line on stderr
 * that names the call, the device or object, and the reason in words.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs_int.h"

static int debug = -1;

static const char *
errno_name(int err)
{
    switch (err) {
    case EINVAL:
        return "EINVAL";
    case ENOMEM:
        return "ENOMEM";
    case EOPNOTSUPP:
        return "EOPNOTSUPP";
    case EADDRNOTAVAIL:
        return "EADDRNOTAVAIL";
    case EADDRINUSE:
        return "EADDRINUSE";
    case EBUSY:
        return "EBUSY";
    case EFAULT:
        return "EFAULT";
    case EPERM:
        return "EPERM";
    case ENODATA:
        return "ENODATA";
    case ENETDOWN:
        return "ENETDOWN";
    case ENOSPC:
        return "ENOSPC";
    case EPROTONOSUPPORT:
        return "EPROTONOSUPPORT";
    default:
        return "errno";
    }
}

int
vb_fail(int err, const char *fmt, ...)
{
    if (debug < 0) {
        const char *e = getenv(VB_ENV_DEBUG);
        debug = e != NULL && e[0] != '\0' && strcmp(e, "0") != 0;
    }
    if (debug) {
        char line[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        /* One write: lines of two threads do not interleave. */
        fprintf(stderr, "roceshark-verbs: %s (%s)\n", line, errno_name(err));
    }
    errno = err;
    return err;
}
