/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source_file.c - opening capture files: classic pcap (source_pcap.c) and
 * pcapng (source_pcapng.c) files are read by our own readers; standard
 * input, gzip-compressed files (source_gzip.c) and anything else libpcap
 * knows go through libpcap, which hands out a pointer into its own buffer.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source_int.h"

#define FILE_BUFFER_SIZE (1u << 20)

struct file_source {
    pcap_t *pcap;
};

static int
file_next(struct rs_source *src, struct rs_frame *frame, char *err)
{
    struct file_source *fs = src->priv;
    struct pcap_pkthdr *hdr;
    const u_char *data;
    int rc = pcap_next_ex(fs->pcap, &hdr, &data);

    if (rc == PCAP_ERROR_BREAK)
        return 0;
    if (rc < 0)
        return rs_error(err, RS_EIO, "reading the capture: %s", pcap_geterr(fs->pcap));
    frame->data = data;
    frame->caplen = hdr->caplen;
    frame->len = hdr->len;
    frame->ts_sec = hdr->ts.tv_sec;
    frame->ts_nsec = (uint32_t)hdr->ts.tv_usec;    /* nanoseconds: we asked for them */
    source_stamp_frame(src, frame);
    return 1;
}

static void
file_break(struct rs_source *src)
{
    pcap_breakloop(((struct file_source *)src->priv)->pcap);
}

static void
file_close(struct rs_source *src)
{
    struct file_source *fs = src->priv;

    pcap_close(fs->pcap);
    free(fs);
}

static const struct rs_source_ops file_ops = {file_next, file_break, file_close, NULL};

#define PCAP_MAGIC_NSEC 0xa1b23c4du
#define PCAPNG_MAGIC 0x0a0d0d0au

/* Opens path with libpcap, behind a large stdio buffer (libpcap reads record by record;
 * the default 4 KiB buffer costs a system call for every few frames); a gzip stream or
 * standard input may hold a pcapng file, which goes to our reader instead (*fs_used false). */
static int
file_open_pcap(const char *path, struct file_source *fs, struct rs_source *src, bool *nsec,
               bool *fs_used, char *err)
{
    char pcap_err[PCAP_ERRBUF_SIZE];
    FILE *fp = NULL;
    uint32_t magic = 0;
    int rc;

    *nsec = false;
    *fs_used = true;
    if ((rc = source_gzip_open(path, &fp, &magic, err)) < 0)
        return rc;
    else if (rc == 0 && (fp = fopen(path, "rb")) == NULL)
        return rs_error(err, RS_EIO, "%s: %s", path, strerror(errno));
    setvbuf(fp, NULL, _IOFBF, FILE_BUFFER_SIZE);
    if (rc == 1 && magic == PCAPNG_MAGIC) {
        *fs_used = false;
        rc = source_pcapng_open_stream(strcmp(path, "-") == 0 ? "standard input" : path, fp,
                                       src, err);
        return rc < 0 ? rc : 0;
    }
    /* A nanosecond pcap file inside is shown with nine decimals. */
    *nsec = magic == PCAP_MAGIC_NSEC || magic == __builtin_bswap32(PCAP_MAGIC_NSEC);
    fs->pcap = pcap_fopen_offline_with_tstamp_precision(fp, PCAP_TSTAMP_PRECISION_NANO,
                                                        pcap_err);
    if (fs->pcap == NULL) {
        fclose(fp);
        return rs_error(err, RS_EIO, "%s: %s", path, pcap_err);
    }
    return 0;
}

/* An empty file (0 bytes) is a capture of no frames, as tshark reads it: its tables are
 * printed empty and -w writes a file of no frames. */
static int
empty_next(struct rs_source *src, struct rs_frame *frame, char *err)
{
    (void)src;
    (void)frame;
    (void)err;
    return 0;
}

static void
empty_break(struct rs_source *src)
{
    (void)src;
}

static void
empty_close(struct rs_source *src)
{
    (void)src;
}

static const struct rs_source_ops empty_ops = {empty_next, empty_break, empty_close, NULL};

static bool
is_empty_file(const char *path)
{
    struct stat st;

    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           st.st_size == 0;
}

int
rs_source_open_file(const char *path, struct rs_source **out, char *err)
{
    struct rs_source *src = NULL;
    struct file_source *fs = NULL;
    int rc;

    /* A long path is fine here; the name only labels messages. */
    if ((rc = source_create(strlen(path) < RS_IFACE_NAME_MAX ? path : "capture file",
                            &src, err)) != 0)
        return rc;
    if (is_empty_file(path)) {
        src->ops = &empty_ops;
        src->linktype = RS_DLT_EN10MB;
        src->snaplen = RS_CAPTURE_SNAPLEN;
        src->ts_digits = 6;
        *out = src;
        return 0;
    }
    /* Classic pcap and pcapng files are read by our readers; the rest
     * (standard input included) is libpcap's. */
    if (strcmp(path, "-") != 0 && ((rc = source_pcap_try(path, src, err)) != 0 ||
                                   (rc = source_pcapng_try(path, src, err)) != 0))
        goto done;
    fs = calloc(1, sizeof(*fs));
    if (fs == NULL) {
        rc = rs_error(err, RS_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    bool nsec, fs_used;
    if ((rc = file_open_pcap(path, fs, src, &nsec, &fs_used, err)) != 0)
        goto done;
    if (!fs_used) {     /* a pcapng stream, now our reader's */
        free(fs);
        rc = 1;
        goto done;
    }
    src->ops = &file_ops;
    src->priv = fs;
    src->linktype = pcap_datalink(fs->pcap);
    src->ts_digits = source_ts_digits(src->linktype, nsec);
    src->snaplen = (unsigned)pcap_snapshot(fs->pcap);
    rc = 1;
done:
    if (rc < 0) {
        free(fs);
        free(src);
        return rc;
    }
    *out = src;
    return 0;
}
