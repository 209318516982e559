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
    assert_int_equal(f.rel_ns, 0);
    assert_int_equal(f.ts_digits, 6);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(f.number, 2);
    assert_int_equal(f.rel_ns, 2000);
    assert_int_equal(f.ts_nsec, 1000);
    assert_int_equal(rs_source_next(src, &f, err), 1);
    assert_int_equal(f.rel_ns, 500001000);
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

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbering_and_relative_time),
        cmocka_unit_test(test_erf_timestamp),
        cmocka_unit_test(test_errors_name_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
