/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_source.c - capture files: numbering, relative time, timestamp
 * precision, ERF timestamps, errors that name the file, the classic pcap
 * reader's chunks, and the pcapng reader's timestamps at every resolution,
 * its blocks and its errors.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/wire.h>

#include "testutil.h"

static void
write_pcap(const char *path, uint32_t magic, uint32_t linktype, const uint32_t (*ts)[2],
           int n, const uint8_t *frame, uint32_t len)
{
    FILE *f = fopen(path, "wb");
    uint8_t hdr[24], rec[16];

    assert_non_null(f);
    rs_store_le32(hdr, magic);
    hdr[4] = 2, hdr[5] = 0, hdr[6] = 4, hdr[7] = 0;
    memset(hdr + 8, 0, 8);
    rs_store_le32(hdr + 16, 65535);
    rs_store_le32(hdr + 20, linktype);
    fwrite(hdr, 1, sizeof(hdr), f);
    for (int i = 0; i < n; i++) {
        rs_store_le32(rec, ts[i][0]);
        rs_store_le32(rec + 4, ts[i][1]);
        rs_store_le32(rec + 8, len);
        rs_store_le32(rec + 12, len);
        fwrite(rec, 1, sizeof(rec), f);
        fwrite(frame, 1, len, f);
    }
    fclose(f);
}

static void
test_numbering_and_relative_time(void **state)
{
    char path[] = "/tmp/rs-test-XXXXXX";
    int fd = mkstemp(path);
    const uint32_t ts[3][2] = {{100, 999999}, {101, 1}, {101, 500000}};
    uint8_t frame[60] = {0};
    struct rs_source *src;
    struct rs_frame f;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    close(fd);
    write_pcap(path, 0xa1b2c3d4, 1, ts, 3, frame, sizeof(frame));
    assert_int_equal(rs_source_open_file(path, &src, err), 0);
    assert_int_equal(rs_source_linktype(src), RS_DLT_EN10MB);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(f.number, 1);
    assert_int_equal(rs_time_to_ns(f.rel), 0);
    assert_int_equal(f.ts_digits, 6);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(f.number, 2);
    assert_int_equal(rs_time_to_ns(f.rel), 2000);
    assert_int_equal(f.ts_nsec, 1000);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(rs_time_to_ns(f.rel), 500001000);
    assert_int_equal(f.caplen, 60);
    assert_int_equal(rs_source_next(src, &f, err), 0);
    rs_source_close(src);

    /* Nanosecond pcap: nine digits. */
    write_pcap(path, 0xa1b23c4d, 1, ts, 1, frame, sizeof(frame));
    assert_int_equal(rs_source_open_file(path, &src, err), 0);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(f.ts_digits, 9);
    assert_int_equal(f.ts_nsec, 999999);
    rs_source_close(src);
    unlink(path);
}

/* ERF records carry a 32.32 fixed-point time, rounded to nanoseconds. */
static void
test_erf_timestamp(void **state)
{
    char path[] = "/tmp/rs-test-XXXXXX";
    int fd = mkstemp(path);
    const uint32_t ts[1][2] = {{5, 0}};
    struct test_frame tf;
    struct rs_source *src;
    struct rs_frame f;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    close(fd);
    test_frame_from_hex(&tf, HEX_ERF_IB_ACK, RS_DLT_ERF);
    write_pcap(path, 0xa1b2c3d4, RS_DLT_ERF, ts, 1, tf.bytes, tf.frame.caplen);
    assert_int_equal(rs_source_open_file(path, &src, err), 0);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    uint64_t erf = rs_load_le64(tf.bytes);
    assert_int_equal(f.ts_sec, (int64_t)(erf >> 32));
    assert_int_equal(f.ts_nsec,
                     (uint32_t)(((erf & 0xffffffffu) * 1000000000u + 0x80000000u) >> 32));
    assert_int_equal(f.ts_digits, 9);
    rs_source_close(src);
    unlink(path);
}

static void
test_errors_name_the_file(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src = NULL;
    char path[] = "/tmp/rs-test-XXXXXX";
    int fd = mkstemp(path);

    (void)state;
    assert_int_equal(rs_source_open_file("/nonexistent/x.pcap", &src, err), RS_EIO);
    assert_non_null(strstr(err, "/nonexistent/x.pcap"));
    assert_null(src);
    assert_int_equal(write(fd, "this is not a capture file at all", 33), 33);
    close(fd);
    assert_int_equal(rs_source_open_file(path, &src, err), RS_EIO);
    assert_non_null(strstr(err, path));
    unlink(path);
}

/* Writes n records of sizes sizes(i), each filled with its index, with
 * magic in the given byte order; returns the path (static buffer). */
static const char *
write_records(uint32_t n, uint32_t (*size)(uint32_t), bool big_endian, uint32_t cut)
{
    static char path[] = "/tmp/rs-test-big-XXXXXX";
    strcpy(path, "/tmp/rs-test-big-XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "wb");
    uint8_t hdr[24] = {0}, rec[16];
    static uint8_t data[2 << 20];

    (big_endian ? rs_store_be32 : rs_store_le32)(hdr, 0xa1b2c3d4);
    (big_endian ? rs_store_be32 : rs_store_le32)(hdr + 20, 1);
    fwrite(hdr, 1, sizeof(hdr), f);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = size(i);
        (big_endian ? rs_store_be32 : rs_store_le32)(rec, i);
        (big_endian ? rs_store_be32 : rs_store_le32)(rec + 4, 0);
        (big_endian ? rs_store_be32 : rs_store_le32)(rec + 8, len);
        (big_endian ? rs_store_be32 : rs_store_le32)(rec + 12, len);
        memset(data, (int)(i & 0xff), len);
        fwrite(rec, 1, sizeof(rec), f);
        fwrite(data, 1, len, f);
    }
    fclose(f);
    if (cut > 0)
        assert_int_equal(truncate(path, cut), 0);
    return path;
}

static uint32_t
size_varied(uint32_t i)
{
    return 60 + (i * 7919) % 1400;
}

static uint32_t
size_huge_third(uint32_t i)
{
    return i == 2 ? (1u << 20) + 3 : 100;   /* one record larger than a read chunk */
}

/* The source says where the frame's bytes are in the file: reading them
 * there gives the same bytes (what a viewer's frame index relies on). */
static void
assert_bytes_at_offset(const char *path, const struct rs_source *src, const struct rs_frame *f)
{
    static uint8_t back[(2 << 20) + 16];
    int fd = open(path, O_RDONLY);
    int64_t off = rs_source_offset(src);

    assert_true(fd >= 0);
    assert_true(off > 0 && f->caplen <= sizeof(back));
    assert_int_equal(pread(fd, back, f->caplen, off), (ssize_t)f->caplen);
    assert_memory_equal(back, f->data, f->caplen);
    close(fd);
}

/* Reads every frame back: count, sizes, contents, seconds; returns rc. */
static int
read_back(const char *path, uint32_t (*size)(uint32_t), uint32_t *count, char *err)
{
    struct rs_source *src;
    struct rs_frame f;
    int rc;

    assert_int_equal(rs_source_open_file(path, &src, err), 0);
    *count = 0;
    while ((rc = rs_source_next(src, &f, err)) == 1) {
        assert_int_equal(f.caplen, size(*count));
        assert_int_equal(f.ts_sec, *count);
        assert_int_equal(f.data[0], *count & 0xff);
        assert_int_equal(f.data[f.caplen - 1], *count & 0xff);
        assert_bytes_at_offset(path, src, &f);
        (*count)++;
    }
    rs_source_close(src);
    return rc;
}

/* Records cross the reader's chunks, one is larger than a chunk, the byte
 * order can be either, and a file cut short yields its whole records and
 * then an error naming the cut. */
static void
test_large_files(void **state)
{
    char err[RS_ERRBUF_SIZE];
    uint32_t count;
    const char *path;

    (void)state;
    path = write_records(5000, size_varied, false, 0);
    assert_int_equal(read_back(path, size_varied, &count, err), 0);
    assert_int_equal(count, 5000);
    unlink(path);

    path = write_records(5000, size_varied, true, 0);
    assert_int_equal(read_back(path, size_varied, &count, err), 0);
    assert_int_equal(count, 5000);
    unlink(path);

    path = write_records(6, size_huge_third, false, 0);
    assert_int_equal(read_back(path, size_huge_third, &count, err), 0);
    assert_int_equal(count, 6);
    unlink(path);

    /* Cut 10 bytes into the payload of record 3000. */
    uint32_t off = 24;
    for (uint32_t i = 0; i < 3000; i++)
        off += 16 + size_varied(i);
    path = write_records(5000, size_varied, false, off + 16 + 10);
    assert_int_equal(read_back(path, size_varied, &count, err), RS_EIO);
    assert_int_equal(count, 3000);
    assert_non_null(strstr(err, "truncated capture file"));
    unlink(path);
}

static void
test_corrupt_record_length(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;
    struct rs_frame f;
    const char *path = write_records(3, size_varied, false, 0);
    FILE *fp = fopen(path, "r+b");
    uint8_t huge[4];

    (void)state;
    rs_store_le32(huge, 0x7fffffff);
    fseek(fp, 24 + 16 + size_varied(0) + 8, SEEK_SET);     /* record 1's length */
    fwrite(huge, 1, 4, fp);
    fclose(fp);
    assert_int_equal(rs_source_open_file(path, &src, err), 0);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(rs_source_next(src, &f, err), RS_EIO);
    assert_non_null(strstr(err, "corrupt capture file"));
    rs_source_close(src);
    unlink(path);
}

/* --- pcapng files, built block by block --- */

struct ng_file {
    uint8_t buf[8192];
    size_t len;
    bool big_endian;
};

static void
ng_put16(struct ng_file *n, uint8_t *p, uint16_t v)
{
    if (n->big_endian)
        rs_store_be16(p, v);
    else
        p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

static void
ng_put32(struct ng_file *n, uint8_t *p, uint32_t v)
{
    if (n->big_endian)
        rs_store_be32(p, v);
    else
        rs_store_le32(p, v);
}

/* Appends a block of type with body (len bytes, padded to 4). */
static void
ng_block(struct ng_file *n, uint32_t type, const uint8_t *body, uint32_t len)
{
    uint32_t total = 12 + ((len + 3) & ~3u);

    assert_true(n->len + total <= sizeof(n->buf));
    uint8_t *p = n->buf + n->len;
    memset(p, 0, total);
    ng_put32(n, p, type);
    ng_put32(n, p + 4, total);
    memcpy(p + 8, body, len);
    ng_put32(n, p + total - 4, total);
    n->len += total;
}

static void
ng_shb(struct ng_file *n, bool big_endian)
{
    uint8_t b[16] = {0};

    n->big_endian = big_endian;
    ng_put32(n, b, 0x1A2B3C4D);
    ng_put16(n, b + 4, 1);
    memset(b + 8, 0xff, 8);     /* section length unknown */
    ng_block(n, 0x0A0D0D0A, b, sizeof(b));
}

/* tsresol < 0: no option (microseconds). */
static void
ng_idb(struct ng_file *n, uint16_t linktype, uint32_t snaplen, int tsresol, bool has_offset,
       int64_t offset)
{
    uint8_t b[40] = {0};
    uint32_t len = 8;

    ng_put16(n, b, linktype);
    ng_put32(n, b + 4, snaplen);
    if (tsresol >= 0) {
        ng_put16(n, b + len, 9);
        ng_put16(n, b + len + 2, 1);
        b[len + 4] = (uint8_t)tsresol;
        len += 8;
    }
    if (has_offset) {
        ng_put16(n, b + len, 14);
        ng_put16(n, b + len + 2, 8);
        if (n->big_endian)
            rs_store_be64(b + len + 4, (uint64_t)offset);
        else
            rs_store_le64(b + len + 4, (uint64_t)offset);
        len += 12;
    }
    len += 4;   /* opt_endofopt */
    ng_block(n, 1, b, len);
}

static const uint8_t ng_data[6] = {1, 2, 3, 4, 5, 6};

static void
ng_epb(struct ng_file *n, uint32_t iface, uint64_t ts, uint32_t caplen)
{
    uint8_t b[20 + sizeof(ng_data)];

    ng_put32(n, b, iface);
    ng_put32(n, b + 4, (uint32_t)(ts >> 32));
    ng_put32(n, b + 8, (uint32_t)ts);
    ng_put32(n, b + 12, caplen);
    ng_put32(n, b + 16, 60);
    memcpy(b + 20, ng_data, sizeof(ng_data));
    ng_block(n, 6, b, sizeof(b));
}

static const char *
ng_write(const struct ng_file *n)
{
    static char path[] = "/tmp/rs-test-ng-XXXXXX";
    strcpy(path, "/tmp/rs-test-ng-XXXXXX");
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, n->buf, n->len), (ssize_t)n->len);
    close(fd);
    return path;
}

static void
assert_frame_time(const struct rs_frame *f, int64_t sec, uint32_t nsec, uint8_t digits)
{
    if (f->ts_sec != sec || f->ts_nsec != nsec || f->ts_digits != digits)
        fail_msg("frame %llu: {%lld, %u} with %u digits, want {%lld, %u} with %u",
                 (unsigned long long)f->number, (long long)f->ts_sec, f->ts_nsec,
                 f->ts_digits, (long long)sec, nsec, digits);
}

/* Every resolution pcapng allows, exactly to the nanosecond (truncated, as
 * Wireshark does), with the decimals tshark 4.0 shows; libpcap 1.10
 * overflowed the binary ones finer than 2^-34 and wrapped seconds past
 * 2^63. */
static void
test_pcapng_timestamps(void **state)
{
    static struct ng_file n;
    const uint64_t all = ~0ull;
    struct rs_source *src;
    struct rs_frame f;
    char err[RS_ERRBUF_SIZE];

    (void)state;
    memset(&n, 0, sizeof(n));
    ng_shb(&n, false);
    ng_idb(&n, 1, 0, 0, false, 0);          /* 0: seconds */
    ng_idb(&n, 1, 0, -1, false, 0);         /* 1: microseconds by default */
    ng_idb(&n, 1, 0, 9, false, 0);          /* 2: nanoseconds */
    ng_idb(&n, 1, 0, 0x8a, false, 0);       /* 3: 2^-10 */
    ng_idb(&n, 1, 0, 0xa8, false, 0);       /* 4: 2^-40 */
    ng_idb(&n, 1, 0, 0xbf, false, 0);       /* 5: 2^-63 */
    ng_idb(&n, 1, 0, 19, false, 0);         /* 6: 10^-19 */
    ng_idb(&n, 1, 0, 3, true, -100);        /* 7: milliseconds, 100 s before 1970 */
    ng_idb(&n, 1, 0, 0x80, true, INT64_MAX); /* 8: seconds (2^0), offset to the end */
    ng_epb(&n, 0, 10000000000ull, 6);
    ng_epb(&n, 0, 1, 6);
    ng_epb(&n, 1, 1500000, 6);
    ng_epb(&n, 2, all, 6);
    ng_epb(&n, 3, 1025, 6);
    ng_epb(&n, 4, all, 6);
    ng_epb(&n, 5, all, 6);
    ng_epb(&n, 6, all, 6);
    ng_epb(&n, 7, 5, 6);
    ng_epb(&n, 0, all, 6);
    ng_epb(&n, 8, 2, 6);
    const char *path = ng_write(&n);
    assert_int_equal(rs_source_open_file(path, &src, err), 0);
    assert_int_equal(rs_source_linktype(src), RS_DLT_EN10MB);

    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_frame_time(&f, 10000000000, 0, 0);
    assert_int_equal(f.caplen, 6);
    assert_memory_equal(f.data, ng_data, 6);
    assert_int_equal(f.len, 60);
    /* The reproducer: 9999999999 s before the first frame. */
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_frame_time(&f, 1, 0, 0);
    assert_int_equal(f.rel.sec, -9999999999);
    assert_int_equal(f.rel.nsec, 0);
    assert_int_equal(f.delta.sec, -9999999999);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_frame_time(&f, 1, 500000000, 6);
    assert_int_equal(f.delta.sec, 0);
    assert_int_equal(f.delta.nsec, 500000000);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_frame_time(&f, 18446744073, 709551615, 9);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_frame_time(&f, 1, 976562, 3);            /* 1 + 1/1024 s */
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_frame_time(&f, 16777215, 999999999, 9);  /* tshark 4.0: 16777215.010144255 */
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_frame_time(&f, 1, 999999999, 9);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_frame_time(&f, 1, 844674407, 9);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_frame_time(&f, -100, 5000000, 3);        /* -99.995 s */
    /* Past 2^63 seconds: clamped, not wrapped to a negative time. */
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_frame_time(&f, INT64_MAX, 0, 0);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_frame_time(&f, INT64_MAX, 999999999, 0);
    assert_int_equal(f.rel.sec, INT64_MAX - 10000000000);
    assert_int_equal(rs_source_next(src, &f, err), 0);
    rs_source_close(src);
    unlink(path);
}

/* Sections of either byte order (each with its own interfaces), simple and
 * obsolete packet blocks, per-interface link types, and blocks skipped. */
static void
test_pcapng_blocks(void **state)
{
    static struct ng_file n;
    struct rs_source *src;
    struct rs_frame f;
    char err[RS_ERRBUF_SIZE];
    uint8_t b[32] = {0};

    (void)state;
    memset(&n, 0, sizeof(n));
    ng_shb(&n, true);
    ng_idb(&n, RS_DLT_INFINIBAND, 4, 9, false, 0);
    ng_idb(&n, RS_DLT_IPV4, 0, -1, false, 0);
    ng_epb(&n, 1, 7, 6);
    ng_block(&n, 0x40000bad, b, 8);         /* a custom block */
    ng_block(&n, 5, b, 8);                  /* interface statistics */
    ng_put32(&n, b, 6);                     /* SPB: original 6, the snaplen keeps 4 */
    memcpy(b + 4, ng_data, sizeof(ng_data));
    ng_block(&n, 3, b, 4 + sizeof(ng_data));
    ng_shb(&n, false);                      /* a new section: interfaces start again */
    ng_idb(&n, RS_DLT_EN10MB, 0, 9, false, 0);
    ng_put16(&n, b, 0);                     /* PB: interface 0, 0 drops */
    ng_put16(&n, b + 2, 0);
    ng_put32(&n, b + 4, 0);
    ng_put32(&n, b + 8, 2000000000);
    ng_put32(&n, b + 12, 5);
    ng_put32(&n, b + 16, 5);
    memcpy(b + 20, ng_data, 5);
    ng_block(&n, 2, b, 25);
    const char *path = ng_write(&n);
    assert_int_equal(rs_source_open_file(path, &src, err), 0);
    assert_int_equal(rs_source_linktype(src), RS_DLT_INFINIBAND);
    assert_int_equal(rs_source_snaplen(src), 4);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(f.linktype, RS_DLT_IPV4);
    assert_frame_time(&f, 0, 7000, 6);
    assert_bytes_at_offset(path, src, &f);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(f.linktype, RS_DLT_INFINIBAND);
    assert_int_equal(f.caplen, 4);
    assert_int_equal(f.len, 6);
    assert_memory_equal(f.data, ng_data, 4);
    assert_bytes_at_offset(path, src, &f);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(f.linktype, RS_DLT_EN10MB);
    assert_bytes_at_offset(path, src, &f);
    assert_frame_time(&f, 2, 0, 9);
    assert_int_equal(f.caplen, 5);
    assert_int_equal(f.number, 3);
    assert_int_equal(rs_source_next(src, &f, err), 0);
    rs_source_close(src);
    unlink(path);
}

/* Reading n gives `good` frames, then an error that contains want. */
static void
assert_fails_after(const struct ng_file *n, int good, const char *want)
{
    const char *path = ng_write(n);
    struct rs_source *src;
    struct rs_frame f;
    char err[RS_ERRBUF_SIZE];

    assert_int_equal(rs_source_open_file(path, &src, err), 0);
    for (int i = 0; i < good; i++)
        assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(rs_source_next(src, &f, err), RS_EIO);
    if (strstr(err, want) == NULL)
        fail_msg("error '%s' lacks '%s'", err, want);
    rs_source_close(src);
    unlink(path);
}

/* Opening n fails with an error that names the file and contains want. */
static void
assert_open_fails(const struct ng_file *n, const char *want)
{
    const char *path = ng_write(n);
    struct rs_source *src = NULL;
    char err[RS_ERRBUF_SIZE];

    assert_int_equal(rs_source_open_file(path, &src, err), RS_EIO);
    assert_null(src);
    if (strstr(err, path) == NULL || strstr(err, want) == NULL)
        fail_msg("error '%s' lacks the file or '%s'", err, want);
    unlink(path);
}

/* Damage is an error that says what, after the frames before it; at the
 * start, an error that names the file. */
static void
test_pcapng_errors(void **state)
{
    static struct ng_file n;

    (void)state;
    /* Cut in the middle of the second packet (an EPB of 6 bytes is 40). */
    memset(&n, 0, sizeof(n));
    ng_shb(&n, false);
    ng_idb(&n, 1, 0, -1, false, 0);
    ng_epb(&n, 0, 1, 6);
    ng_epb(&n, 0, 2, 6);
    n.len -= 10;
    assert_fails_after(&n, 1, "truncated pcapng file: a block of 40 bytes has 30");
    n.len += 10;
    /* A packet of an interface never described; more bytes than its block. */
    ng_epb(&n, 3, 3, 6);
    assert_fails_after(&n, 2, "a packet of interface 3, which no Interface Description");
    n.len -= 40;
    ng_epb(&n, 0, 3, 9);
    assert_fails_after(&n, 2, "more captured bytes than its block holds: 9");
    /* A block length that is no multiple of 4, and one whose trailer differs. */
    n.len -= 40;
    ng_epb(&n, 0, 3, 6);
    ng_put32(&n, n.buf + n.len - 40 + 4, 42);
    assert_fails_after(&n, 2, "corrupt pcapng file: a block of length 42");
    ng_put32(&n, n.buf + n.len - 40 + 4, 40);
    ng_put32(&n, n.buf + n.len - 4, 48);
    assert_fails_after(&n, 2, "trailing length differs");

    /* At the start: a packet before any interface, no interface at all, a
     * resolution finer than 2^-63, a wrong byte-order magic. */
    memset(&n, 0, sizeof(n));
    ng_shb(&n, false);
    ng_epb(&n, 0, 1, 6);
    assert_open_fails(&n, "a packet before any Interface Description Block");
    n.len = 28;
    assert_open_fails(&n, "no Interface Description Block");
    ng_idb(&n, 1, 0, 0xc0, false, 0);
    assert_open_fails(&n, "resolution 2^-64 is finer than 64 bits count");
    n.buf[8] ^= 0xff;
    assert_open_fails(&n, "byte-order magic");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbering_and_relative_time),
        cmocka_unit_test(test_erf_timestamp),
        cmocka_unit_test(test_errors_name_the_file),
        cmocka_unit_test(test_large_files),
        cmocka_unit_test(test_corrupt_record_length),
        cmocka_unit_test(test_pcapng_timestamps),
        cmocka_unit_test(test_pcapng_blocks),
        cmocka_unit_test(test_pcapng_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
