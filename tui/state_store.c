/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state_store.c - what the pipeline's stateful stages gave each frame (its
 * analysis facts, its TCP or UDP stream view, its iWARP PDUs), kept in a
 * file of our own beside the capture, so that a frame read back shows what
 * `read` printed for it in capture order (frame_state.c makes the records).
 *
 * The file is unlinked as soon as it is made (O_TMPFILE, or a name removed
 * at once): nothing is left behind, whatever ends the process. It lives in
 * TMPDIR (/tmp by default) and grows by about 30 bytes a RoCE frame; the
 * page cache holds it, not our heap: in memory it would have doubled the
 * 56 bytes a frame costs the index.
 *
 * One thread appends (the pipeline's sink), any thread reads. Appends go to
 * a 1 MiB buffer written out when the next record would not fit; under the
 * lock only that write and a reader's copy from the buffer, so the sink
 * takes the lock once a megabyte. What lies in the file below its length
 * never changes until the store is cleared, which happens only between
 * passes, with no reader (the model's lock).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model_int.h"

#define STORE_BUFFER (1u << 20)

struct tui_store {
    int fd;
    pthread_mutex_t mu;
    uint64_t file_len;      /* bytes in the file (under mu, or by the appender) */
    uint8_t *buf;           /* the records after them */
    _Atomic size_t buf_len; /* published after the bytes (the appender's stores) */
};

/* An unlinked file in dir: O_TMPFILE where the file system has it, else a name removed
 * at once. */
static int
anonymous_file(const char *dir, char *err)
{
    char path[4096];

    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    snprintf(path, sizeof(path), "%s/roceshark-tui-state-XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        return rs_error(err, RS_EIO, "%s: %s", path, strerror(errno));
    unlink(path);
    return fd;
}

int
store_open(struct tui_store **out, char *err)
{
    const char *dir = getenv("TMPDIR");
    struct tui_store *s = calloc(1, sizeof(*s));

    if (s == NULL || (s->buf = malloc(STORE_BUFFER)) == NULL) {
        free(s);
        return rs_error(err, RS_ENOMEM, "out of memory");
    }
    s->fd = anonymous_file(dir != NULL && dir[0] != '\0' ? dir : "/tmp", err);
    if (s->fd < 0) {
        int rc = s->fd;
        free(s->buf);
        free(s);
        return rc;
    }
    pthread_mutex_init(&s->mu, NULL);
    *out = s;
    return 0;
}

void
store_close(struct tui_store *s)
{
    if (s == NULL)
        return;
    close(s->fd);
    pthread_mutex_destroy(&s->mu);
    free(s->buf);
    free(s);
}

void
store_clear(struct tui_store *s)
{
    pthread_mutex_lock(&s->mu);
    s->file_len = 0;
    s->buf_len = 0;
    /* Failing, the old bytes stay, to be written over: only the length is ours to keep. */
    (void)ftruncate(s->fd, 0);
    pthread_mutex_unlock(&s->mu);
}

/* Writes n bytes at the file's end; the caller holds mu. */
static int
write_out(struct tui_store *s, const uint8_t *p, size_t n, char *err)
{
    size_t done = 0;

    while (done < n) {
        ssize_t w = pwrite(s->fd, p + done, n - done, (off_t)(s->file_len + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return rs_error(err, RS_EIO, "the TUI's file of decoding state (in TMPDIR): %s",
                            w < 0 ? strerror(errno) : "nothing written");
        done += (size_t)w;
    }
    s->file_len += n;
    return 0;
}

/* The buffer into the file. */
static int
flush_buffer(struct tui_store *s, char *err)
{
    int rc = 0;

    if (s->buf_len == 0)
        return 0;
    pthread_mutex_lock(&s->mu);
    rc = write_out(s, s->buf, s->buf_len, err);
    if (rc == 0)
        s->buf_len = 0;
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int
store_append(struct tui_store *s, const void *data, size_t n, uint64_t *off, char *err)
{
    int rc;

    if (s->buf_len + n > STORE_BUFFER && (rc = flush_buffer(s, err)) != 0)
        return rc;
    *off = s->file_len + s->buf_len;
    if (n > STORE_BUFFER) {     /* a large iWARP message: straight to the file */
        pthread_mutex_lock(&s->mu);
        rc = write_out(s, data, n, err);
        pthread_mutex_unlock(&s->mu);
        return rc;
    }
    size_t at = atomic_load_explicit(&s->buf_len, memory_order_relaxed);
    memcpy(s->buf + at, data, n);
    atomic_store_explicit(&s->buf_len, at + n, memory_order_release);
    return 0;
}

size_t
store_read_ahead(struct tui_store *s, uint64_t off, void *out, size_t max)
{
    pthread_mutex_lock(&s->mu);
    uint64_t file_len = s->file_len;
    size_t got = 0;
    if (off >= file_len) {
        size_t have = atomic_load_explicit(&s->buf_len, memory_order_acquire);
        if (off - file_len < have) {
            got = have - (size_t)(off - file_len) < max ? have - (size_t)(off - file_len) : max;
            memcpy(out, s->buf + (off - file_len), got);
        }
        pthread_mutex_unlock(&s->mu);
        return got;
    }
    pthread_mutex_unlock(&s->mu);
    size_t want = file_len - off < max ? (size_t)(file_len - off) : max;
    ssize_t r = pread(s->fd, out, want, (off_t)off);
    return r > 0 ? (size_t)r : 0;
}

int
store_read(struct tui_store *s, uint64_t off, void *out, size_t n, char *err)
{
    pthread_mutex_lock(&s->mu);
    uint64_t file_len = s->file_len;
    if (off >= file_len) {
        /* Still in the buffer: a record is never split between the two. */
        bool in = off - file_len + n <= atomic_load_explicit(&s->buf_len,
                                                              memory_order_acquire);
        if (in)
            memcpy(out, s->buf + (off - file_len), n);
        pthread_mutex_unlock(&s->mu);
        return in ? 0 : rs_error(err, RS_EINVAL, "no decoding state at %llu",
                                 (unsigned long long)off);
    }
    pthread_mutex_unlock(&s->mu);
    /* Below the file's length nothing changes until the store is cleared. */
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(s->fd, (uint8_t *)out + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return rs_error(err, RS_EIO, "reading the TUI's decoding state back: %s",
                            r < 0 ? strerror(errno) : "the file is shorter than it was");
        done += (size_t)r;
    }
    return 0;
}
