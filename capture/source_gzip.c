/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source_gzip.c - gzip-compressed capture files (.pcap.gz, .pcapng.gz) and
 * standard input, compressed or not, as tshark opens them: the stream is
 * inflated by zlib as it is read and handed on as a stdio stream
 * (fopencookie) to libpcap (pcap) or to our pcapng reader (which, unlike
 * libpcap's, takes interfaces of different snapshot lengths), so both
 * formats work without a copy of the uncompressed file on disk or in memory.
 */
/* fopencookie() is a GNU extension; the build defines _GNU_SOURCE. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <roceshark/dissectors/wire.h>

#include "source_int.h"

#define GZIP_MAGIC0 0x1f
#define GZIP_MAGIC1 0x8b
#define INFLATE_BUFFER (256u << 10)

/* The stream libpcap reads: the first bytes were read ahead to learn the
 * format inside, and are handed out again before the rest. */
struct gzip_stream {
    gzFile gz;
    uint8_t peek[4];
    size_t peek_len, peek_pos;
};

static ssize_t
gzip_read(void *cookie, char *buf, size_t size)
{
    struct gzip_stream *s = cookie;
    size_t n = 0;

    if (s->peek_pos < s->peek_len) {
        n = s->peek_len - s->peek_pos < size ? s->peek_len - s->peek_pos : size;
        memcpy(buf, s->peek + s->peek_pos, n);
        s->peek_pos += n;
        if (n == size)
            return (ssize_t)n;
    }
    unsigned want = size - n > INT32_MAX ? INT32_MAX : (unsigned)(size - n);
    int got = gzread(s->gz, buf + n, want);
    if (got < 0) {
        errno = EIO;    /* a corrupt or truncated gzip stream */
        return n > 0 ? (ssize_t)n : -1;
    }
    return (ssize_t)(n + (size_t)got);
}

static int
gzip_close(void *cookie)
{
    struct gzip_stream *s = cookie;
    int rc = gzclose_r(s->gz);

    free(s);
    return rc == Z_OK ? 0 : EOF;
}

/* True when the file at path starts with gzip's magic. */
static bool
is_gzip(const char *path)
{
    uint8_t magic[2];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    bool yes = fd >= 0 && read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
               magic[0] == GZIP_MAGIC0 && magic[1] == GZIP_MAGIC1;

    if (fd >= 0)
        close(fd);
    return yes;
}

int
source_gzip_open(const char *path, FILE **fp, uint32_t *magic, char *err)
{
    static const cookie_io_functions_t io = {.read = gzip_read, .close = gzip_close};
    bool in = strcmp(path, "-") == 0;

    *magic = 0;
    if (!in && !is_gzip(path))
        return 0;
    struct gzip_stream *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return rs_error(err, RS_ENOMEM, "%s: out of memory", path);
    /* Standard input is read through zlib whatever it holds: zlib passes data that is
     * not gzip through as it is, so a compressed stream is found by its magic too. */
    int fd = in ? dup(STDIN_FILENO) : -1;
    s->gz = in ? (fd >= 0 ? gzdopen(fd, "rb") : NULL) : gzopen(path, "rb");
    if (s->gz == NULL) {
        int e = errno != 0 ? errno : ENOMEM;
        if (fd >= 0)
            close(fd);
        free(s);
        return rs_error(err, RS_EIO, "%s: %s", in ? "standard input" : path, strerror(e));
    }
    gzbuffer(s->gz, INFLATE_BUFFER);
    int got = gzread(s->gz, s->peek, sizeof(s->peek));
    s->peek_len = got > 0 ? (size_t)got : 0;
    if (s->peek_len == 4)
        *magic = rs_load_le32(s->peek);
    if ((*fp = fopencookie(s, "rb", io)) == NULL) {
        gzclose_r(s->gz);
        free(s);
        return rs_error(err, RS_ENOMEM, "%s: out of memory", path);
    }
    return 1;
}
