/*
 * source_file.c - capture files through libpcap (pcap and pcapng, any link
 * type). libpcap hands out a pointer into its own buffer: no copy.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/wire.h>

#include "source_int.h"

#define PCAP_MAGIC_NSEC 0xa1b23c4du
#define PCAP_MAGIC_NSEC_SWAPPED 0x4d3cb2a1u
#define ERF_TS_OFFSET 0

struct file_source {
    pcap_t *pcap;
};

/* ERF records carry their own 32.32 fixed-point timestamp, finer than the
 * microseconds libpcap puts in the record header. */
static void
erf_timestamp(struct rs_frame *frame)
{
    if (frame->caplen < 8)
        return;
    uint64_t ts = rs_load_le64(frame->data + ERF_TS_OFFSET);
    uint64_t ns = ((ts & 0xffffffffu) * 1000000000u + 0x80000000u) >> 32;  /* rounded */

    frame->ts_sec = (int64_t)(ts >> 32);
    if (ns >= 1000000000u) {
        ns -= 1000000000u;
        frame->ts_sec++;
    }
    frame->ts_nsec = (uint32_t)ns;
}

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
    if (src->linktype == RS_DLT_ERF)
        erf_timestamp(frame);
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

static const struct rs_source_ops file_ops = {file_next, file_break, file_close};

/* tshark shows times with the precision the file offers. */
static uint8_t
file_ts_digits(const char *path, int linktype)
{
    uint8_t magic[4];
    FILE *f;

    if (linktype == RS_DLT_ERF)
        return 9;
    if (strcmp(path, "-") == 0 || (f = fopen(path, "rb")) == NULL)
        return 6;
    size_t n = fread(magic, 1, sizeof(magic), f);
    fclose(f);
    if (n == sizeof(magic)) {
        uint32_t m = rs_load_le32(magic);
        if (m == PCAP_MAGIC_NSEC || m == PCAP_MAGIC_NSEC_SWAPPED)
            return 9;
    }
    return 6;
}

int
rs_source_open_file(const char *path, struct rs_source **out, char *err)
{
    char pcap_err[PCAP_ERRBUF_SIZE];
    struct rs_source *src = calloc(1, sizeof(*src));
    struct file_source *fs = calloc(1, sizeof(*fs));

    if (src == NULL || fs == NULL) {
        free(src);
        free(fs);
        return rs_error(err, RS_ENOMEM, "%s: out of memory", path);
    }
    fs->pcap = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO,
                                                       pcap_err);
    if (fs->pcap == NULL) {
        free(src);
        free(fs);
        /* libpcap's message already names the file for open failures. */
        if (strstr(pcap_err, path) != NULL)
            return rs_error(err, RS_EIO, "%s", pcap_err);
        return rs_error(err, RS_EIO, "%s: %s", path, pcap_err);
    }
    src->ops = &file_ops;
    src->priv = fs;
    src->linktype = pcap_datalink(fs->pcap);
    src->ts_digits = file_ts_digits(path, src->linktype);
    *out = src;
    return 0;
}
