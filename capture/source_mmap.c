/*
 * source_mmap.c - classic pcap files read in place from a memory mapping.
 *
 * Hand-written on purpose, for this one format only: libpcap's offline
 * reader fread()s every record into its own buffer, so each byte is copied
 * twice (kernel to stdio, stdio to libpcap) before we look at it, which is a
 * quarter of the time of `read -T fields` on a large capture. A mapping
 * hands the decoder pointers into the page cache, which is what our
 * zero-copy decode path promises. pcapng, standard input and anything this
 * reader does not recognise go through libpcap (source_file.c).
 *
 * File header (24 bytes):  magic, version 2.4, thiszone, sigfigs, snaplen,
 *                          link type (low 16 bits; the top bits carry FCS info)
 * Record header (16 bytes): seconds, micro- or nanoseconds, captured length,
 *                          original length
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <roceshark/wire.h>

#include "source_int.h"

#define PCAP_FILE_HDR 24
#define PCAP_REC_HDR 16
#define PCAP_MAGIC_USEC 0xa1b2c3d4u
#define PCAP_MAGIC_NSEC 0xa1b23c4du
/* Larger than any snapshot length libpcap writes; a bigger record is corrupt. */
#define PCAP_MAX_RECORD (16u << 20)
/* Pages behind the reader are released in windows this large, so a huge
 * capture does not fill the process's resident set. */
#define RELEASE_WINDOW ((size_t)16 << 20)

struct mmap_source {
    const uint8_t *map;
    size_t size;
    size_t pos;
    bool swapped;       /* written on a machine of the other byte order */
    bool nsec;
    volatile bool stop;
    size_t released;    /* bytes before this offset have been given back */
};

static uint32_t
load32(const struct mmap_source *ms, const uint8_t *p)
{
    return ms->swapped ? rs_load_be32(p) : rs_load_le32(p);
}

static int
mmap_next(struct rs_source *src, struct rs_frame *frame, char *err)
{
    struct mmap_source *ms = src->priv;

    if (ms->stop || ms->pos == ms->size)
        return 0;
    if (ms->size - ms->pos < PCAP_REC_HDR)
        return rs_error(err, RS_EIO, "truncated capture file: %zu bytes of a record header",
                        ms->size - ms->pos);
    const uint8_t *h = ms->map + ms->pos;
    uint32_t caplen = load32(ms, h + 8);
    if (caplen > PCAP_MAX_RECORD)
        return rs_error(err, RS_EIO, "corrupt capture file: a record of %u bytes", caplen);
    if (ms->size - ms->pos - PCAP_REC_HDR < caplen)
        return rs_error(err, RS_EIO, "truncated capture file: a record of %u bytes has %zu",
                        caplen, ms->size - ms->pos - PCAP_REC_HDR);
    frame->data = h + PCAP_REC_HDR;
    frame->caplen = caplen;
    frame->len = load32(ms, h + 12);
    frame->ts_sec = load32(ms, h);
    frame->ts_nsec = load32(ms, h + 4) * (ms->nsec ? 1u : 1000u);
    ms->pos += PCAP_REC_HDR + caplen;
    /* Records are read once, in order: start fetching the next one now. */
    if (ms->pos + 64 <= ms->size)
        __builtin_prefetch(ms->map + ms->pos + 64);
    if (ms->pos < ms->size)
        __builtin_prefetch(ms->map + ms->pos);
    /* The previous frame is no longer ours to keep: release whole windows
     * that lie entirely behind the current one. */
    size_t keep = (size_t)(frame->data - ms->map) & ~(RELEASE_WINDOW - 1);
    if (keep > ms->released) {
        madvise((void *)(ms->map + ms->released), keep - ms->released, MADV_DONTNEED);
        ms->released = keep;
    }
    source_stamp_frame(src, frame);
    return 1;
}

static void
mmap_break(struct rs_source *src)
{
    ((struct mmap_source *)src->priv)->stop = true;
}

static void
mmap_close(struct rs_source *src)
{
    struct mmap_source *ms = src->priv;

    munmap((void *)ms->map, ms->size);
    free(ms);
}

static const struct rs_source_ops mmap_ops = {mmap_next, mmap_break, mmap_close, NULL};

/* Returns 1 when path is a classic pcap file now mapped into src, 0 when it
 * is something else (left to libpcap), or a negative code on error. */
int
source_mmap_try(const char *path, struct rs_source *src, char *err)
{
    struct stat st;
    uint8_t hdr[PCAP_FILE_HDR];
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return 0;   /* libpcap reports the error in its own words */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < PCAP_FILE_HDR ||
        read(fd, hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr)) {
        close(fd);
        return 0;
    }
    uint32_t magic = rs_load_le32(hdr);
    bool swapped = magic == __builtin_bswap32(PCAP_MAGIC_USEC) ||
                   magic == __builtin_bswap32(PCAP_MAGIC_NSEC);
    if (swapped)
        magic = __builtin_bswap32(magic);
    if (magic != PCAP_MAGIC_USEC && magic != PCAP_MAGIC_NSEC) {
        close(fd);
        return 0;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return 0;
    madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
    struct mmap_source *ms = calloc(1, sizeof(*ms));
    if (ms == NULL) {
        munmap(map, (size_t)st.st_size);
        return rs_error(err, RS_ENOMEM, "%s: out of memory", path);
    }
    ms->map = map;
    ms->size = (size_t)st.st_size;
    ms->pos = PCAP_FILE_HDR;
    ms->swapped = swapped;
    ms->nsec = magic == PCAP_MAGIC_NSEC;
    src->ops = &mmap_ops;
    src->priv = ms;
    src->linktype = (int)(load32(ms, hdr + 20) & 0xffff);
    src->ts_digits = source_ts_digits(src->linktype, ms->nsec);
    src->snaplen = load32(ms, hdr + 16);
    return 1;
}
