/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * error.c - filling the caller's error buffer.
 *
 * An error is one line (`roceshark: <what>: <why>`), yet it often quotes
 * what the user gave: a filter, a spec, a script's token, a file name.
 * Control characters in those (a newline in a filter) are written as C
 * escapes here, once for every error, so that no message breaks its line.
 */
#include <stdarg.h>
#include <stdio.h>

#include <roceshark/dissectors/common.h>

void
rs_one_line(char *dst, size_t size, const char *text)
{
    size_t n = 0;

    for (const unsigned char *s = (const unsigned char *)text; *s != '\0'; s++) {
        char esc[5];
        int len;
        if (*s == '\n')
            len = snprintf(esc, sizeof(esc), "\\n");
        else if (*s == '\t')
            len = snprintf(esc, sizeof(esc), "\\t");
        else if (*s < 0x20 || *s == 0x7f)
            len = snprintf(esc, sizeof(esc), "\\x%02x", *s);
        else
            len = snprintf(esc, sizeof(esc), "%c", *s);
        if (n + (size_t)len >= size)
            break;
        for (int i = 0; i < len; i++)
            dst[n++] = esc[i];
    }
    if (size > 0)
        dst[n] = '\0';
}

int
rs_error(char *err, int code, const char *fmt, ...)
{
    char text[RS_ERRBUF_SIZE];
    va_list ap;

    if (err != NULL) {
        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        rs_one_line(err, RS_ERRBUF_SIZE, text);
    }
    return code;
}
