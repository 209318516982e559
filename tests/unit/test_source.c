/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_source.c - capture files through libpcap: numbering, relative time,
 * timestamp precision, ERF timestamps, and errors that name the file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>

#include <roceshark/capture.h>
#include <roceshark/wire.h>

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

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbering_and_relative_time),
        cmocka_unit_test(test_erf_timestamp),
        cmocka_unit_test(test_errors_name_the_file),
        cmocka_unit_test(test_large_files),
        cmocka_unit_test(test_corrupt_record_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
