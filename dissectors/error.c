/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * error.c - filling the caller's error buffer.
 */
#include <stdarg.h>
#include <stdio.h>

#include <roceshark/common.h>

int
rs_error(char *err, int code, const char *fmt, ...)
{
    va_list ap;

    if (err != NULL) {
        va_start(ap, fmt);
        vsnprintf(err, RS_ERRBUF_SIZE, fmt, ap);
        va_end(ap);
    }
    return code;
}
