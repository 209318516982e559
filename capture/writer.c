/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * writer.c - pcap files through libpcap's pcap_dump, alone or as a ring.
 *
 * libpcap formats the records into a stdio stream of ours (fopencookie),
 * unbuffered, whose writes land in our own 1 MiB buffer; we hand that buffer
 * to the operating system ourselves, always starting at a record boundary,
 * and never let a record straddle two flushes. When a write fails (a full
 * disk, a reader that went away, an I/O error) the operating system has
 * usually taken part of the buffer: on a full disk every byte up to the last
 * free block, through a pipe whatever fitted in it. We know exactly how many
 * bytes it took and where each record in our buffer ends, so we keep every
 * whole record among them, as dumpcap keeps what it wrote before ENOSPC (but
 * never a half record): a regular file is cut with ftruncate after the last
 * whole record, and the count says how many records went out whole. This
 * works on any descriptor, standard output opened write-only by the shell
 * included; reading the file back to find the records, as we once did,
 * failed there and cut it to its header. Cutting back to the last
 * successful flush, before that, lost up to the whole buffer: on a 200 KB
 * disk, every record. What was written stays readable, and the caller
 * learns which error stopped it.
 *
 * pcapng files (opts.pcapng) are formatted here, as libpcap 1.10 reads pcapng
 * but cannot write it: one section header, one interface (nanosecond
 * timestamps), then an Enhanced Packet Block per frame, all in host byte
 * order as the format allows. The buffering and the cutting back are the
 * same; a block's header holds its length as a record's does.
 */
#include <errno.h>
#include <fcntl.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <roceshark/capture/pcapio.h>

#define WRITER_BUFFER (1u << 20)        /* larger than any record (snaplen 262144) */
#define PCAP_FILE_HDR 24u
#define PCAP_REC_HDR 16u
#define NAME_MAX_LEN 4096
#define PCAPNG_SHB_TYPE 0x0a0d0d0au
#define PCAPNG_IDB_TYPE 0x00000001u
#define PCAPNG_EPB_TYPE 0x00000006u
#define PCAPNG_EPB_OVERHEAD 32u        /* block header, interface, time, lengths, trailer */
#define PCAPNG_EPB_DATA 28u            /* where the packet data starts in the block */
#define PCAPNG_IDB_SIZE 32u            /* an interface block as we write it */

struct rs_writer {
    struct rs_writer_opts opts;
    pcap_t *dead;           /* formats the file header and records */
    pcap_dumper_t *dumper;
    FILE *fp;               /* the formatters' stream: its writes land in buf */
    int fd;                 /* where buf goes */
    bool regular;           /* a regular file: can be cut back after an error */
    bool failed;
    uint64_t base;          /* where our file starts in it (standard output: maybe not 0) */
    uint8_t *buf;           /* records not yet handed to the operating system */
    uint64_t header_len;    /* bytes of the file header (pcap) or section and interface */
    uint64_t pending;       /* bytes in buf */
    uint64_t size;          /* bytes in the current file, buffered ones included */
    uint64_t durable;       /* bytes the operating system has taken */
    uint64_t frame_offset;  /* of the last frame's bytes */
    uint64_t frames;        /* accepted; after a failed write, those in the files */
    uint64_t frames_flushed;/* in the files for sure */
    int ifaces[RS_WRITER_MAX_IFACES];   /* pcapng: the link type of each interface */
    unsigned n_ifaces;
    unsigned file_num;      /* ring: number of the current file */
    struct timespec opened; /* ring: when the current file was opened */
    char **ring;            /* ring_files: names of the newest files, oldest first */
    unsigned ring_count;
    char path[NAME_MAX_LEN];
};

int
rs_writer_ring_name(const char *base, unsigned num, time_t t, char *out, size_t size)
{
    const char *slash = strrchr(base, '/');
    const char *name = slash != NULL ? slash + 1 : base;
    const char *dot = strrchr(name, '.');
    size_t prefix = dot != NULL ? (size_t)(dot - base) : strlen(base);
    char stamp[32];
    struct tm tm;

    if (localtime_r(&t, &tm) == NULL || strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm) == 0)
        return rs_error(NULL, RS_EINVAL, "time");
    int n = snprintf(out, size, "%.*s_%05u_%s%s", (int)prefix, base, num, stamp,
                     dot != NULL ? dot : "");
    if (n < 0 || (size_t)n >= size)
        return rs_error(NULL, RS_EINVAL, "name too long");
    return 0;
}

static bool
ring_mode(const struct rs_writer *w)
{
    return w->opts.ring_filesize != 0 || w->opts.ring_duration != 0;
}

/* The formatters' stream writes into buf: the caller made room for the record before
 * formatting it (rs_writer_write flushes first when it would not fit). */
static ssize_t
buffer_write(void *cookie, const char *data, size_t n)
{
    struct rs_writer *w = cookie;

    if (w->pending + n > WRITER_BUFFER) {
        errno = ENOBUFS;
        return -1;
    }
    memcpy(w->buf + w->pending, data, n);
    w->pending += n;
    return (ssize_t)n;
}

/* Bytes of the first whole records among buf's first n, and how many of them are
 * frames. buf starts at a record boundary: after the file header when nothing was
 * flushed yet. Both formats' headers are in host order: a pcap record's caplen at 8, a
 * pcapng block's total length at 4. */
static uint64_t
whole_records(const struct rs_writer *w, uint64_t n, uint64_t *frames)
{
    uint64_t pos = w->durable < w->header_len ? w->header_len - w->durable : 0;

    *frames = 0;
    if (pos > n)
        return 0;       /* not even the file header went out whole */
    while (pos + PCAP_REC_HDR <= n) {
        uint32_t len, type = PCAPNG_EPB_TYPE;
        if (w->opts.pcapng) {
            memcpy(&type, w->buf + pos, 4);
            memcpy(&len, w->buf + pos + 4, 4);
        } else {
            memcpy(&len, w->buf + pos + 8, 4);
            len += PCAP_REC_HDR;
        }
        if (pos + len > n)
            break;
        pos += len;
        *frames += type == PCAPNG_EPB_TYPE;     /* an interface block is no frame */
    }
    return pos;
}

/* Hands the buffer to the operating system; when it takes only part of it, keeps the
 * whole records among that part (cutting a regular file after the last of them) and
 * throws the rest away. */
static int
flush_file(struct rs_writer *w, char *err)
{
    uint64_t done = 0;
    int e = 0;

    if (w->failed)
        return rs_error(err, RS_EIO, "%s: an earlier write failed", w->path);
    while (done < w->pending) {
        ssize_t n = write(w->fd, w->buf + done, w->pending - done);
        if (n > 0) {
            done += (uint64_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            e = n < 0 ? errno : EIO;
            break;
        }
    }
    if (done == w->pending) {
        w->durable = w->size;
        w->pending = 0;
        w->frames_flushed = w->frames;
        return 0;
    }
    w->failed = true;
    uint64_t kept_frames;
    uint64_t kept = whole_records(w, done, &kept_frames);
    w->frames = w->frames_flushed + kept_frames;
    w->frames_flushed = w->frames;
    w->durable = w->size = w->durable + kept;
    w->pending = 0;
    /* Through a pipe the part of a record that went out cannot be taken back; a file is
     * cut after the last whole one. */
    if (w->regular && kept < done && ftruncate(w->fd, (off_t)(w->base + w->durable)) != 0)
        return rs_error(err, RS_EIO, "%s: %s (and cutting the file back: %s)", w->path,
                        strerror(e), strerror(errno));
    return rs_error(err, RS_EIO, "%s: %s", w->path, strerror(e));
}

/* A pcapng block: type, total length, body, padding to 4 bytes, length again. */
static uint32_t
pcapng_block(FILE *fp, uint32_t type, const void *body, uint32_t body_len, const void *data,
             uint32_t data_len)
{
    static const uint8_t zeros[4];
    uint32_t pad = (4 - (data_len & 3)) & 3;
    uint32_t total = 12 + body_len + data_len + pad;

    fwrite(&type, 4, 1, fp);
    fwrite(&total, 4, 1, fp);
    fwrite(body, 1, body_len, fp);
    if (data_len > 0)
        fwrite(data, 1, data_len, fp);
    fwrite(zeros, 1, pad, fp);
    fwrite(&total, 4, 1, fp);
    return total;
}

/* An interface of the link type, with nanosecond timestamps; its number is the count of
 * those before it in the file. */
static uint64_t
pcapng_interface(struct rs_writer *w, int linktype)
{
    uint8_t idb[20];
    uint32_t type = (uint32_t)linktype, snaplen = w->opts.snaplen;
    uint16_t opt_tsresol = 9, opt_len = 1, opt_end = 0;

    memset(idb, 0, sizeof(idb));
    memcpy(idb, &type, 2);                     /* link type, reserved */
    memcpy(idb + 4, &snaplen, 4);
    memcpy(idb + 8, &opt_tsresol, 2);          /* if_tsresol: 10^-9 */
    memcpy(idb + 10, &opt_len, 2);
    idb[12] = 9;                               /* then 3 bytes of padding */
    memcpy(idb + 16, &opt_end, 2);             /* opt_endofopt */
    w->ifaces[w->n_ifaces++] = linktype;
    return pcapng_block(w->fp, PCAPNG_IDB_TYPE, idb, sizeof(idb), NULL, 0);
}

/* The section header and the first interface. */
static uint64_t
pcapng_header(struct rs_writer *w)
{
    uint8_t shb[16];
    uint32_t magic = 0x1a2b3c4d;
    uint16_t v_major = 1, v_minor = 0;
    int64_t section_len = -1;

    memcpy(shb, &magic, 4);
    memcpy(shb + 4, &v_major, 2);
    memcpy(shb + 6, &v_minor, 2);
    memcpy(shb + 8, &section_len, 8);
    w->n_ifaces = 0;
    return pcapng_block(w->fp, PCAPNG_SHB_TYPE, shb, sizeof(shb), NULL, 0) +
           pcapng_interface(w, w->opts.linktype);
}

/* The interface a frame goes to: with frame_linktypes, the one of its link type, added
 * (its block counted in *added) when it is the first of that type; else the first. */
static int
frame_interface(struct rs_writer *w, const struct rs_frame *frame, uint64_t *added, char *err)
{
    *added = 0;
    if (!w->opts.frame_linktypes || frame->linktype == w->opts.linktype)
        return 0;
    if (!w->opts.pcapng)
        return rs_error(err, RS_EINVAL, "%s: frame %llu has link type %d, and a pcap file "
                        "holds only its own (%d); pcapng holds several", w->path,
                        (unsigned long long)frame->number, frame->linktype, w->opts.linktype);
    for (unsigned i = 0; i < w->n_ifaces; i++)
        if (w->ifaces[i] == frame->linktype)
            return (int)i;
    if (w->n_ifaces == RS_WRITER_MAX_IFACES)
        return rs_error(err, RS_EINVAL, "%s: more than %d link types", w->path,
                        RS_WRITER_MAX_IFACES);
    *added = PCAPNG_IDB_SIZE;
    return (int)w->n_ifaces;
}

/* The formatters' stream over buf, unbuffered: each of libpcap's fwrite calls lands in buf
 * at once, so buf always holds whole records between two of our calls. */
static int
open_stream(struct rs_writer *w, char *err)
{
    static const cookie_io_functions_t io = {.write = buffer_write};

    w->fp = fopencookie(w, "w", io);
    if (w->fp == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    setvbuf(w->fp, NULL, _IONBF, 0);
    return 0;
}

/* RS_EINVAL when path is the file being read: the same device and inode, so that another
 * name or a link of it is caught too. A path that does not exist yet is no input. */
static int
check_not_input(const char *path, const char *input, char *err)
{
    struct stat out, in;

    if (input == NULL || stat(path, &out) != 0 ||
        (strcmp(input, "-") == 0 ? fstat(STDIN_FILENO, &in) : stat(input, &in)) != 0)
        return 0;
    if (out.st_dev == in.st_dev && out.st_ino == in.st_ino)
        return rs_error(err, RS_EINVAL, "%s: is the capture being read: writing would empty "
                        "it first (choose another file)", path);
    return 0;
}

static int
open_file(struct rs_writer *w, char *err)
{
    int rc;

    w->fd = -1;
    if (strcmp(w->opts.path, "-") == 0) {
        w->fd = STDOUT_FILENO;
        snprintf(w->path, sizeof(w->path), "standard output");
    } else {
        if (ring_mode(w)) {
            if (rs_writer_ring_name(w->opts.path, w->file_num, time(NULL), w->path,
                                    sizeof(w->path)) != 0)
                return rs_error(err, RS_EINVAL, "%s: file name too long", w->opts.path);
        } else if (snprintf(w->path, sizeof(w->path), "%s", w->opts.path) >=
                   (int)sizeof(w->path)) {
            return rs_error(err, RS_EINVAL, "%.64s...: file name too long", w->opts.path);
        }
        if ((rc = check_not_input(w->path, w->opts.input, err)) != 0)
            return rc;
        w->fd = open(w->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (w->fd < 0)
            return rs_error(err, RS_EIO, "%s: %s", w->path, strerror(errno));
    }
    struct stat st;
    int fd = w->fd;
    w->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    w->base = 0;
    w->pending = 0;
    if (w->regular && fd == STDOUT_FILENO) {
        /* A file the shell opened: we start where it left us, or at its
         * end when it appends; what was there before is not ours to cut. */
        int fl = fcntl(fd, F_GETFL);
        off_t at = fl >= 0 && (fl & O_APPEND) ? st.st_size : lseek(fd, 0, SEEK_CUR);
        w->base = at > 0 ? (uint64_t)at : 0;
    }
    if ((rc = open_stream(w, err)) != 0) {
        if (w->fd != STDOUT_FILENO)
            close(w->fd);
        w->fd = -1;
        return rc;
    }
    if (w->opts.pcapng) {
        w->header_len = w->size = pcapng_header(w);
        w->durable = 0;
        clock_gettime(CLOCK_MONOTONIC, &w->opened);
        return flush_file(w, err);
    }
    w->dumper = pcap_dump_fopen(w->dead, w->fp);
    if (w->dumper == NULL) {
        rc = rs_error(err, RS_EIO, "%s: %s", w->path, pcap_geterr(w->dead));
        fclose(w->fp);
        w->fp = NULL;
        if (w->fd != STDOUT_FILENO)
            close(w->fd);
        w->fd = -1;
        return rc;
    }
    w->header_len = w->size = PCAP_FILE_HDR;
    w->durable = 0;
    clock_gettime(CLOCK_MONOTONIC, &w->opened);
    return flush_file(w, err);     /* a file that cannot take its header fails now */
}

/* Flushes and closes the current file. */
static int
close_file(struct rs_writer *w, char *err)
{
    int rc = 0;

    if (w->fp == NULL)
        return 0;
    if (!w->failed)
        rc = flush_file(w, err);
    if (w->dumper != NULL)
        pcap_dump_close(w->dumper);     /* closes the stream, which holds nothing */
    else
        fclose(w->fp);
    /* Standard output is closed too: a reader at the other end of a pipe sees its end. */
    close(w->fd);
    w->dumper = NULL;
    w->fp = NULL;
    w->fd = -1;
    return rc;
}

/* Remembers a finished ring file; removes the oldest past -b files:N. */
static int
ring_keep(struct rs_writer *w, char *err)
{
    if (w->opts.ring_files == 0)
        return 0;
    char *name = strdup(w->path);
    if (name == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    if (w->ring_count == w->opts.ring_files) {
        if (unlink(w->ring[0]) != 0 && errno != ENOENT) {
            int rc = rs_error(err, RS_EIO, "%s: removing: %s", w->ring[0], strerror(errno));
            free(name);
            return rc;
        }
        free(w->ring[0]);
        memmove(w->ring, w->ring + 1, (w->ring_count - 1) * sizeof(*w->ring));
        w->ring_count--;
    }
    w->ring[w->ring_count++] = name;
    return 0;
}

static int
switch_file(struct rs_writer *w, char *err)
{
    int rc;

    if ((rc = close_file(w, err)) != 0)
        return rc;
    w->file_num++;
    if ((rc = open_file(w, err)) != 0)
        return rc;
    return ring_keep(w, err);
}

static bool
duration_due(const struct rs_writer *w)
{
    struct timespec now;

    if (w->opts.ring_duration == 0)
        return false;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec - w->opened.tv_sec >= (time_t)w->opts.ring_duration;
}

/* Releases what a writer holds besides its open file. */
static void
writer_free(struct rs_writer *w)
{
    if (w->dead != NULL)
        pcap_close(w->dead);
    for (unsigned i = 0; i < w->ring_count; i++)
        free(w->ring[i]);
    free(w->ring);
    free(w->buf);
    free(w);
}

int
rs_writer_open(const struct rs_writer_opts *opts, struct rs_writer **out, char *err)
{
    struct rs_writer *w = calloc(1, sizeof(*w));
    int rc;

    if (w == NULL)
        return rs_error(err, RS_ENOMEM, "out of memory");
    w->opts = *opts;
    w->file_num = 1;
    if (ring_mode(w) && strcmp(opts->path, "-") == 0) {
        rc = rs_error(err, RS_EINVAL, "-b: a ring of files cannot be standard output");
        goto fail;
    }
    w->buf = malloc(WRITER_BUFFER);
    if (w->buf == NULL || (opts->ring_files != 0 &&
                           (w->ring = calloc(opts->ring_files, sizeof(*w->ring))) == NULL)) {
        rc = rs_error(err, RS_ENOMEM, "out of memory");
        goto fail;
    }
    errno = 0;
    w->dead = pcap_open_dead_with_tstamp_precision(opts->linktype, (int)opts->snaplen,
                                                   opts->ts_hardware ?
                                                   PCAP_TSTAMP_PRECISION_NANO :
                                                   PCAP_TSTAMP_PRECISION_MICRO);
    if (w->dead == NULL) {
        rc = errno == ELIBACC ? rs_error(err, RS_ENOTSUP, "libpcap cannot be loaded") :
             rs_error(err, RS_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = open_file(w, err)) != 0 || (rc = ring_keep(w, err)) != 0)
        goto fail;
    *out = w;
    return 0;
fail:
    close_file(w, NULL);
    writer_free(w);
    return rc;
}

int
rs_writer_write(struct rs_writer *w, const struct rs_frame *frame, char *err)
{
    struct pcap_pkthdr hdr;
    uint32_t caplen = frame->caplen < w->opts.snaplen ? frame->caplen : w->opts.snaplen;
    uint64_t rec = w->opts.pcapng ? PCAPNG_EPB_OVERHEAD + ((caplen + 3) & ~3u)
                                  : PCAP_REC_HDR + caplen;
    uint64_t idb;
    int rc;

    if (w->failed)
        return rs_error(err, RS_EIO, "%s: an earlier write failed", w->path);
    int ifc = frame_interface(w, frame, &idb, err);
    if (ifc < 0)
        return ifc;
    rec += idb;
    if (w->pending + rec > WRITER_BUFFER && (rc = flush_file(w, err)) != 0)
        return rc;
    if (idb != 0)
        pcapng_interface(w, frame->linktype);
    if (w->opts.pcapng) {
        uint64_t ns = (uint64_t)frame->ts_sec * 1000000000u + frame->ts_nsec;
        uint32_t epb[5] = {(uint32_t)ifc, (uint32_t)(ns >> 32), (uint32_t)ns, caplen,
                           frame->len};
        pcapng_block(w->fp, PCAPNG_EPB_TYPE, epb, sizeof(epb), frame->data, caplen);
    } else {
        hdr.ts.tv_sec = frame->ts_sec;
        hdr.ts.tv_usec = w->opts.ts_hardware ? frame->ts_nsec : frame->ts_nsec / 1000u;
        hdr.caplen = caplen;
        hdr.len = frame->len;
        pcap_dump((u_char *)w->dumper, &hdr, frame->data);
    }
    w->frame_offset = w->size + idb + (w->opts.pcapng ? PCAPNG_EPB_DATA : PCAP_REC_HDR);
    w->size += rec;     /* buf took the record through the stream (pending) */
    w->frames++;
    /* dumpcap switches once a file has reached the size, after the record. */
    if ((w->opts.ring_filesize != 0 && w->size >= w->opts.ring_filesize) || duration_due(w))
        return switch_file(w, err);
    return 0;
}

int
rs_writer_flush(struct rs_writer *w, char *err)
{
    if (duration_due(w))
        return switch_file(w, err);
    if (w->pending == 0)
        return 0;
    return flush_file(w, err);
}

int
rs_writer_close(struct rs_writer *w, uint64_t *written, char *err)
{
    int rc = 0;

    if (w == NULL)
        return 0;
    if (!w->failed)
        rc = close_file(w, err);
    else
        close_file(w, NULL);
    if (written != NULL)
        *written = w->frames;
    writer_free(w);
    return rc;
}

uint64_t
rs_writer_frames(const struct rs_writer *w)
{
    return w->frames;
}

uint64_t
rs_writer_frame_offset(const struct rs_writer *w)
{
    return w->frame_offset;
}

uint64_t
rs_writer_file_size(const struct rs_writer *w)
{
    return w->size;
}

uint64_t
rs_writer_durable(const struct rs_writer *w)
{
    return w->durable;
}

uint64_t
rs_writer_frames_flushed(const struct rs_writer *w)
{
    return w->frames_flushed;
}

const char *
rs_writer_path(const struct rs_writer *w)
{
    return w->path;
}
