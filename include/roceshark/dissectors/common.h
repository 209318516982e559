/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common.h - error codes and the error-buffer convention shared by every module.
 *
 * A function that can fail returns 0 or a negative RS_E* code and, when the
 * caller passed one, fills a char[RS_ERRBUF_SIZE] with "<what>: <why>".
 * Libraries never print; the CLI turns the buffer into one line on stderr.
 */
#ifndef ROCESHARK_COMMON_H
#define ROCESHARK_COMMON_H

#include <stddef.h>

#define RS_ERRBUF_SIZE 256

enum rs_err {
    RS_OK = 0,
    RS_EINVAL = -1,     /* bad argument, option or script */
    RS_EIO = -2,        /* unreadable or unwritable file */
    RS_ENOMEM = -3,     /* allocation failed */
    RS_ENOENT = -4,     /* no such field, file or device */
    RS_ENOTSUP = -5,    /* the input or device lacks a needed capability */
    RS_EPERM = -6,      /* missing privilege */
    RS_EFORMAT = -7,    /* input file is not in a format we read */
    RS_EOF = -8,        /* end of input: not an error for loops */
    RS_ENOSPC = -9,     /* a bounded table is full */
    RS_ECANCELED = -10  /* stopped at the user's request */
};

/* Fills err (may be NULL) with a formatted message, on one line (see
 * rs_one_line); returns code so that callers can write
 * `return rs_error(err, RS_EINVAL, "...")`. */
int rs_error(char *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Copies text into dst (size bytes, NUL included, cut to fit) with its control
 * characters written as C escapes (\n, \t, \x1b), so that a message quoting
 * what the user typed stays on one line. */
void rs_one_line(char *dst, size_t size, const char *text);

/* The errors every command meets alike, worded once (error_kinds.c), so that `capture -i`,
 * `inject -i`, `bridge`, `perf` and `responder` say the same thing of the same fault. Each
 * fills err and returns the code:
 *   rs_error_no_iface    "NAME: no such interface (interfaces: lo, eth0)"      RS_ENOENT
 *   rs_error_permission  "WHAT: permission denied (NEEDS: run as root, or ...)" RS_EPERM
 *   rs_error_errno       one of those from an errno, or "WHAT: address in use (...)"
 *                        (RS_EIO) or "WHAT: address not on this host (...)" (RS_ENOENT); any
 *                        other errno is "WHAT: <strerror>" (RS_EIO). */
int rs_error_no_iface(char *err, const char *name);
int rs_error_permission(char *err, const char *what, const char *needs);
int rs_error_errno(char *err, int e, const char *what);

#define RS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* ROCESHARK_COMMON_H */
