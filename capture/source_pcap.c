/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source_pcap.c - classic pcap files, read ahead by a thread in large
 * chunks of whole records, which are handed out in place.
 *
 * Hand-written on purpose, for this one format only. libpcap's offline
 * reader fread()s every record separately into its own buffer: two copies
 * and a library call per frame, a quarter of the time of `read -T fields`.
 * Mapping the file is no better: a page fault every few records, and each
 * record cold in memory when the decoder reaches it (0.16 s to walk a
 * million 500-byte records, against 0.07 s for read(2) of 256 KiB chunks).
 * The kernel's copy then still costs as much as the decoding, so a thread
 * reads ahead while the caller decodes: the two overlap on two cores.
 * pcapng, standard input and anything this reader does not recognise go
 * through libpcap (source_file.c).
 *
 * The same reader follows a file the capture engine is writing
 * (rs_source_open_capture): it reads no further than the bytes the engine
 * says the operating system has taken, which are whole records, and at
 * that point waits for it to flush again rather than ending; it ends once
 * the engine has ended and every record is read. It hands a chunk over as
 * soon as it holds a record, rather than when it is full, so that a viewer
 * shows each flush at once.
 *
 * File header (24 bytes):  magic, version 2.4, thiszone, sigfigs, snaplen,
 *                          link type (low 16 bits; the top bits carry FCS info)
 * Record header (16 bytes): seconds, micro- or nanoseconds, captured length,
 *                          original length
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <roceshark/dissectors/nstime.h>
#include <roceshark/dissectors/wire.h>

#include "source_int.h"

#define PCAP_FILE_HDR 24
#define PCAP_REC_HDR 16
#define PCAP_MAGIC_USEC 0xa1b2c3d4u
#define PCAP_MAGIC_NSEC 0xa1b23c4du
/* Larger than any snapshot length libpcap writes; a bigger record is corrupt. */
#define PCAP_MAX_RECORD (16u << 20)
#define CHUNK (512u << 10)      /* measured best of 128 KiB to 1 MiB */
#define NCHUNKS 4

/* A buffer of whole records, filled by the reader, decoded by the caller. */
struct chunk {
    uint8_t *buf;
    size_t cap, len;
    uint64_t file_off;  /* where buf[0] is in the file */
};

struct pcap_source {
    int fd;
    bool swapped;       /* written on a machine of the other byte order */
    bool nsec;
    pthread_t reader;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct chunk chunks[NCHUNKS];
    unsigned filled_head, n_filled; /* chunks ready, in file order */
    unsigned n_free;                /* chunks the reader may fill */
    unsigned free_slots[NCHUNKS];
    bool done;                      /* the reader has published its last chunk */
    int error;                      /* RS_E* once the reader failed */
    char errmsg[RS_ERRBUF_SIZE];
    bool quit;                      /* closing: the reader must stop */
    /* The caller's side. */
    int cur;                        /* chunk being decoded, -1 for none */
    size_t pos;
    volatile bool stop;
    /* Following a file being written (the reader's side). */
    struct rs_capture *grow;        /* NULL for an ordinary file */
    uint64_t read_pos;              /* bytes of the file read so far */
    uint64_t limit;                 /* bytes the engine has flushed */
    bool grow_done;                 /* the engine has ended: limit is the file's end */
    bool idle_told, idle_waited;    /* the caller's side: RS_SOURCE_IDLE said, and waited */
};

/* How long the two sides of a growing file wait before looking at the stop flags. */
#define FOLLOW_WAIT_MS 100

static bool
quitting(struct pcap_source *ps)
{
    pthread_mutex_lock(&ps->mu);
    bool q = ps->quit;
    pthread_mutex_unlock(&ps->mu);
    return q;
}

/* A growing file: how much more may be read now, waiting for the engine's next flush
 * when there is none (0 then means the end: the engine ended, or the source closes). */
static uint64_t
follow_room(struct pcap_source *ps)
{
    struct rs_capture_status st;

    while (ps->read_pos >= ps->limit && !ps->grow_done && !quitting(ps)) {
        rs_capture_wait(ps->grow, ps->limit, FOLLOW_WAIT_MS, &st);
        ps->limit = st.durable;
        ps->grow_done = st.done;
    }
    return ps->read_pos < ps->limit ? ps->limit - ps->read_pos : 0;
}

static uint32_t
load32(const struct pcap_source *ps, const uint8_t *p)
{
    return ps->swapped ? rs_load_be32(p) : rs_load_le32(p);
}

/* Reads into c from c->len on until it is full or the file ends. */
static int
read_more(struct pcap_source *ps, struct chunk *c, bool *eof)
{
    while (c->len < c->cap) {
        size_t want = c->cap - c->len;
        if (ps->grow != NULL) {
            uint64_t room = follow_room(ps);
            if (room == 0) {
                *eof = true;
                return 0;
            }
            want = room < want ? (size_t)room : want;
        }
        ssize_t n = read(ps->fd, c->buf + c->len, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return rs_error(ps->errmsg, RS_EIO, "reading the capture: %s", strerror(errno));
        if (n == 0) {
            *eof = true;
            return 0;
        }
        c->len += (size_t)n;
        ps->read_pos += (uint64_t)n;
        /* A growing file: what the engine flushed shows at once. */
        if (ps->grow != NULL && ps->read_pos >= ps->limit)
            return 0;
    }
    return 0;
}

/* Where the last whole record of c ends; *need says how big the buffer
 * must be for the first record that does not fit. On a corrupt record,
 * *end still covers the good records before it. */
static int
whole_records(struct pcap_source *ps, const struct chunk *c, size_t *end, size_t *need)
{
    size_t pos = 0;

    *need = 0;
    while (c->len - pos >= PCAP_REC_HDR) {
        uint32_t caplen = load32(ps, c->buf + pos + 8);
        if (caplen > PCAP_MAX_RECORD) {
            *end = pos;
            return rs_error(ps->errmsg, RS_EIO, "corrupt capture file: a record of %u bytes",
                            caplen);
        }
        if (c->len - pos < PCAP_REC_HDR + caplen) {
            *need = PCAP_REC_HDR + caplen;
            break;
        }
        pos += PCAP_REC_HDR + caplen;
    }
    *end = pos;
    return 0;
}

static void
publish(struct pcap_source *ps, unsigned slot, int error, bool done)
{
    pthread_mutex_lock(&ps->mu);
    if (error == 0 && ps->chunks[slot].len > 0)
        ps->n_filled++;     /* the slot is the next in file order */
    else
        ps->free_slots[ps->n_free++] = slot;
    ps->error = error;
    ps->done = done || error != 0;
    pthread_cond_broadcast(&ps->cv);
    pthread_mutex_unlock(&ps->mu);
}

/* Ends the reading with an error, after the `end` bytes of good records in
 * chunk slot (if any), which are decoded first. */
static void
fail_after(struct pcap_source *ps, unsigned slot, size_t end, int rc)
{
    ps->chunks[slot].len = end;
    if (end > 0)
        publish(ps, slot, 0, false);
    pthread_mutex_lock(&ps->mu);
    ps->error = rc;
    ps->done = true;
    if (end == 0)
        ps->free_slots[ps->n_free++] = slot;
    pthread_cond_broadcast(&ps->cv);
    pthread_mutex_unlock(&ps->mu);
}

static void *
reader_main(void *arg)
{
    struct pcap_source *ps = arg;
    uint8_t *carry = NULL;      /* a partial record to start the next chunk with */
    size_t carry_len = 0, carry_cap = 0;
    uint64_t file_off = PCAP_FILE_HDR;  /* of the carry, or of the next byte read */
    bool eof = false;

    for (;;) {
        pthread_mutex_lock(&ps->mu);
        while (ps->n_free == 0 && !ps->quit)
            pthread_cond_wait(&ps->cv, &ps->mu);
        if (ps->quit) {
            pthread_mutex_unlock(&ps->mu);
            break;
        }
        /* Chunks are published in the order they are taken, so the queue of
         * filled chunks is the ring from filled_head on. */
        unsigned slot = (ps->filled_head + ps->n_filled) % NCHUNKS;
        for (unsigned i = 0; i < ps->n_free; i++) {
            if (ps->free_slots[i] == slot) {
                ps->free_slots[i] = ps->free_slots[--ps->n_free];
                break;
            }
        }
        pthread_mutex_unlock(&ps->mu);

        struct chunk *c = &ps->chunks[slot];
        size_t end = 0, need;
        int rc = 0;
        c->len = 0;
        c->file_off = file_off;
        if (carry_len > 0) {
            if (carry_len > c->cap) {
                uint8_t *b = realloc(c->buf, carry_len);
                if (b == NULL) {
                    publish(ps, slot, rs_error(ps->errmsg, RS_ENOMEM, "out of memory"), true);
                    break;
                }
                c->buf = b;
                c->cap = carry_len;
            }
            memcpy(c->buf, carry, carry_len);
            c->len = carry_len;
        }
        for (;;) {
            if ((rc = read_more(ps, c, &eof)) != 0 || (rc = whole_records(ps, c, &end, &need)) != 0)
                break;
            if (end > 0 || eof || need <= c->cap)
                break;
            /* One record larger than the buffer: make room for it. */
            uint8_t *b = realloc(c->buf, need);
            if (b == NULL) {
                rc = rs_error(ps->errmsg, RS_ENOMEM, "out of memory for a %zu-byte record", need);
                break;
            }
            c->buf = b;
            c->cap = need;
        }
        if (rc != 0) {
            fail_after(ps, slot, end, rc);
            break;
        }
        carry_len = c->len - end;
        file_off += end;
        if (carry_len > carry_cap) {
            uint8_t *b = realloc(carry, carry_len);
            if (b == NULL) {
                c->len = 0;
                publish(ps, slot, rs_error(ps->errmsg, RS_ENOMEM, "out of memory"), true);
                break;
            }
            carry = b;
            carry_cap = carry_len;
        }
        if (carry_len > 0)
            memcpy(carry, c->buf + end, carry_len);
        c->len = end;
        if (eof && carry_len > 0) {
            rc = carry_len < PCAP_REC_HDR
                     ? rs_error(ps->errmsg, RS_EIO, "truncated capture file: %zu bytes of a "
                                "record header", carry_len)
                     : rs_error(ps->errmsg, RS_EIO, "truncated capture file: a record of %u "
                                "bytes has %zu", load32(ps, carry + 8), carry_len - PCAP_REC_HDR);
            fail_after(ps, slot, end, rc);
            break;
        }
        publish(ps, slot, 0, eof);
        if (eof)
            break;
    }
    free(carry);
    return NULL;
}

/* Gives the current chunk back and waits for the next: 1 with it, 0 at the end (with
 * *rc set when the reader failed), or, following a growing file, RS_SOURCE_IDLE when
 * none has come: at once the first time since the last chunk (so that the caller shows
 * what it has), after FOLLOW_WAIT_MS after that. */
static int
next_chunk(struct pcap_source *ps, int *rc, char *err)
{
    pthread_mutex_lock(&ps->mu);
    if (ps->cur >= 0) {
        ps->free_slots[ps->n_free++] = (unsigned)ps->cur;
        ps->filled_head = (ps->filled_head + 1) % NCHUNKS;
        ps->n_filled--;
        ps->cur = -1;
        pthread_cond_broadcast(&ps->cv);
    }
    while (ps->n_filled == 0 && !ps->done) {
        if (ps->grow == NULL) {
            pthread_cond_wait(&ps->cv, &ps->mu);
            continue;
        }
        /* Waiting on a file being written may take long: a break (which must not
         * touch the lock, being safe in a signal handler) is seen within the wait. */
        if (ps->stop)
            break;
        if (!ps->idle_told) {
            ps->idle_told = true;
            pthread_mutex_unlock(&ps->mu);
            return RS_SOURCE_IDLE;
        }
        if (ps->idle_waited) {
            ps->idle_waited = false;
            pthread_mutex_unlock(&ps->mu);
            return RS_SOURCE_IDLE;
        }
        ps->idle_waited = true;
        struct timespec until = rs_deadline_after(CLOCK_REALTIME,
                                                  FOLLOW_WAIT_MS * 1000000ull);
        pthread_cond_timedwait(&ps->cv, &ps->mu, &until);
    }
    bool have = ps->n_filled > 0;
    if (have) {
        ps->cur = (int)ps->filled_head;
        ps->pos = 0;
        ps->idle_told = ps->idle_waited = false;
    } else if (ps->error != 0) {
        *rc = rs_error(err, ps->error, "%s", ps->errmsg);
    }
    pthread_mutex_unlock(&ps->mu);
    return have;
}

static int
pcap_next(struct rs_source *src, struct rs_frame *frame, char *err)
{
    struct pcap_source *ps = src->priv;
    int rc = 0;

    if (ps->stop)
        return 0;
    if (ps->cur < 0 || ps->pos == ps->chunks[ps->cur].len) {
        int got = next_chunk(ps, &rc, err);
        if (got != 1)
            return got == RS_SOURCE_IDLE ? RS_SOURCE_IDLE : rc;
    }
    if (ps->stop)
        return 0;
    /* The reader checked every record of a published chunk. */
    const uint8_t *h = ps->chunks[ps->cur].buf + ps->pos;
    uint32_t caplen = load32(ps, h + 8);
    frame->data = h + PCAP_REC_HDR;
    src->offset = (int64_t)(ps->chunks[ps->cur].file_off + ps->pos + PCAP_REC_HDR);
    frame->caplen = caplen;
    frame->len = load32(ps, h + 12);
    frame->ts_sec = load32(ps, h);
    frame->ts_nsec = load32(ps, h + 4) * (ps->nsec ? 1u : 1000u);
    ps->pos += PCAP_REC_HDR + caplen;
    source_stamp_frame(src, frame);
    return 1;
}

static void
pcap_break(struct rs_source *src)
{
    ((struct pcap_source *)src->priv)->stop = true;
}

static void
pcap_close(struct rs_source *src)
{
    struct pcap_source *ps = src->priv;

    pthread_mutex_lock(&ps->mu);
    ps->quit = true;
    pthread_cond_broadcast(&ps->cv);
    pthread_mutex_unlock(&ps->mu);
    pthread_join(ps->reader, NULL);
    pthread_mutex_destroy(&ps->mu);
    pthread_cond_destroy(&ps->cv);
    for (int i = 0; i < NCHUNKS; i++)
        free(ps->chunks[i].buf);
    close(ps->fd);
    free(ps);
}

static const struct rs_source_ops pcap_ops = {.next = pcap_next, .brk = pcap_break,
                                             .close = pcap_close};

static struct pcap_source *
pcap_source_new(int fd)
{
    struct pcap_source *ps = calloc(1, sizeof(*ps));

    if (ps == NULL)
        return NULL;
    for (unsigned i = 0; i < NCHUNKS; i++) {
        ps->chunks[i].buf = malloc(CHUNK);
        ps->chunks[i].cap = CHUNK;
        ps->free_slots[i] = i;
        if (ps->chunks[i].buf == NULL) {
            for (unsigned j = 0; j <= i; j++)
                free(ps->chunks[j].buf);
            free(ps);
            return NULL;
        }
    }
    ps->n_free = NCHUNKS;
    ps->fd = fd;
    ps->cur = -1;
    pthread_mutex_init(&ps->mu, NULL);
    pthread_cond_init(&ps->cv, NULL);
    return ps;
}

/* Opens path when it is a classic pcap file, following the engine grow when not NULL:
 * 1 done, 0 not that format (fd closed), or a negative code on error. */
static int
open_pcap(const char *path, struct rs_capture *grow, struct rs_source *src, char *err)
{
    struct stat st;
    uint8_t hdr[PCAP_FILE_HDR];
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return grow != NULL ? rs_error(err, RS_EIO, "%s: %s", path, strerror(errno))
                            : 0;    /* libpcap reports the error in its own words */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        read(fd, hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr)) {
        close(fd);
        return grow != NULL ? rs_error(err, RS_EFORMAT, "%s: no pcap file header", path) : 0;
    }
    uint32_t magic = rs_load_le32(hdr);
    bool swapped = magic == __builtin_bswap32(PCAP_MAGIC_USEC) ||
                   magic == __builtin_bswap32(PCAP_MAGIC_NSEC);
    if (swapped)
        magic = __builtin_bswap32(magic);
    if (magic != PCAP_MAGIC_USEC && magic != PCAP_MAGIC_NSEC) {
        close(fd);
        return grow != NULL ? rs_error(err, RS_EFORMAT, "%s: not a pcap file", path) : 0;
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    struct pcap_source *ps = pcap_source_new(fd);
    if (ps == NULL) {
        close(fd);
        return rs_error(err, RS_ENOMEM, "%s: out of memory", path);
    }
    ps->swapped = swapped;
    ps->nsec = magic == PCAP_MAGIC_NSEC;
    ps->grow = grow;
    ps->read_pos = PCAP_FILE_HDR;
    if (pthread_create(&ps->reader, NULL, reader_main, ps) != 0) {
        for (int i = 0; i < NCHUNKS; i++)
            free(ps->chunks[i].buf);
        free(ps);
        close(fd);
        return rs_error(err, RS_ENOMEM, "%s: cannot start the reader thread", path);
    }
    src->ops = &pcap_ops;
    src->priv = ps;
    src->linktype = (int)(load32(ps, hdr + 20) & 0xffff);
    /* 0 in a header some writers leave: libpcap's default stands for it. */
    src->snaplen = load32(ps, hdr + 16) != 0 ? load32(ps, hdr + 16) : RS_CAPTURE_SNAPLEN;
    src->ts_digits = source_ts_digits(src->linktype, ps->nsec);
    return 1;
}

/* Returns 1 when path is a classic pcap file now open in src, 0 when it is
 * something else (left to libpcap), or a negative code on error. */
int
source_pcap_try(const char *path, struct rs_source *src, char *err)
{
    return open_pcap(path, NULL, src, err);
}

int
rs_source_open_capture(struct rs_capture *c, const char *path, struct rs_source **out,
                       char *err)
{
    struct rs_source *src;
    int rc;

    if ((rc = source_create(strlen(path) < RS_IFACE_NAME_MAX ? path : "capture file", &src,
                            err)) != 0)
        return rc;
    if ((rc = open_pcap(path, c, src, err)) < 0) {
        free(src);
        return rc;
    }
    *out = src;
    return 0;
}
