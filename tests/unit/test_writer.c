/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_writer.c - pcap files through libpcap: frames read back as written,
 * the timestamp convention (nanosecond file = hardware clock), dumpcap's
 * ring names, rotation and -b files:N, a file that stays whole when
 * writing fails half-way (by name, as standard output, through a pipe), and
 * the file being read refused as the output.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <roceshark/capture/capture.h>
#include <roceshark/capture/pcapio.h>
#include <roceshark/dissectors/wire.h>

#include "testutil.h"

static char dir[64];

static int
setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/rs-writer-XXXXXX");
    return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
    char cmd[128];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static struct rs_frame
make_frame(uint8_t *buf, uint32_t len, uint32_t i)
{
    struct rs_frame f = {0};

    for (uint32_t b = 0; b < len; b++)
        buf[b] = (uint8_t)(b * 7 + i);
    rs_store_be32(buf, i);
    f.data = buf;
    f.caplen = f.len = len;
    f.ts_sec = 1700000000 + i;
    f.ts_nsec = 123456789;
    return f;
}

/* Reads path back: the number of frames, checking each one's bytes. */
static uint32_t
read_back(const char *path, uint32_t first, uint32_t len, uint32_t *magic)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;
    struct rs_frame f;
    uint8_t want[2048];
    uint32_t n = 0;
    int rc;
    FILE *fp = fopen(path, "rb");

    assert_non_null(fp);
    assert_int_equal(fread(magic, 4, 1, fp), 1);
    fclose(fp);
    if (rs_source_open_file(path, &src, err) != 0)
        fail_msg("%s", err);
    while ((rc = rs_source_next(src, &f, err)) == 1) {
        make_frame(want, len, first + n);
        assert_int_equal(f.caplen, len);
        assert_memory_equal(f.data, want, len);
        n++;
    }
    if (rc != 0)
        fail_msg("%s: %s", path, err);
    rs_source_close(src);
    return n;
}

static void
test_write_read_back(void **state)
{
    char path[128], err[RS_ERRBUF_SIZE];
    struct rs_writer *w;
    uint8_t buf[2048];
    uint32_t magic;
    uint64_t written;

    (void)state;
    for (int hw = 0; hw < 2; hw++) {
        snprintf(path, sizeof(path), "%s/f%d.pcap", dir, hw);
        struct rs_writer_opts o = {.path = path, .linktype = RS_DLT_EN10MB, .snaplen = 9000,
                                   .ts_hardware = hw};
        assert_int_equal(rs_writer_open(&o, &w, err), 0);
        for (uint32_t i = 0; i < 50; i++) {
            struct rs_frame f = make_frame(buf, 300, i);
            assert_int_equal(rs_writer_write(w, &f, err), 0);
        }
        assert_int_equal(rs_writer_close(w, &written, err), 0);
        assert_int_equal(written, 50);
        assert_int_equal(read_back(path, 0, 300, &magic), 50);
        assert_int_equal(magic, hw ? 0xa1b23c4du : 0xa1b2c3d4u);
    }
}

/* The writer says where each frame's bytes went; reading the file says the same. */
static void
test_frame_offsets(void **state)
{
    char path[128], err[RS_ERRBUF_SIZE];
    struct rs_writer *w;
    struct rs_source *src;
    struct rs_frame f;
    uint8_t buf[2048];
    uint64_t offsets[20], written;

    (void)state;
    for (int ng = 0; ng < 2; ng++) {
        snprintf(path, sizeof(path), "%s/offsets%d", dir, ng);
        struct rs_writer_opts o = {.path = path, .linktype = RS_DLT_EN10MB, .snaplen = 9000,
                                   .pcapng = ng};
        assert_int_equal(rs_writer_open(&o, &w, err), 0);
        for (uint32_t i = 0; i < 20; i++) {
            struct rs_frame fr = make_frame(buf, 61 + i, i);
            assert_int_equal(rs_writer_write(w, &fr, err), 0);
            offsets[i] = rs_writer_frame_offset(w);
        }
        assert_int_equal(rs_writer_close(w, &written, err), 0);
        assert_int_equal(rs_source_open_file(path, &src, err), 0);
        for (uint32_t i = 0; i < 20; i++) {
            assert_int_equal(rs_source_next(src, &f, err), 1);
            assert_int_equal(rs_source_offset(src), offsets[i]);
        }
        rs_source_close(src);
    }
}

/* frame_linktypes: a pcapng file gets an interface per link type, added where the first
 * frame of the type comes, and each frame reads back with its own type, bytes, time and
 * offset; a pcap file refuses a frame of another type and keeps what came before. */
static void
test_frame_linktypes(void **state)
{
    static const int types[] = {RS_DLT_EN10MB, RS_DLT_LINKTYPE_RAW, RS_DLT_EN10MB,
                                RS_DLT_INFINIBAND, RS_DLT_LINKTYPE_RAW, RS_DLT_INFINIBAND};
    char path[128], err[RS_ERRBUF_SIZE];
    struct rs_writer *w;
    struct rs_source *src;
    struct rs_frame f;
    uint8_t buf[2048], want[2048];
    uint64_t offsets[RS_ARRAY_SIZE(types)], written;

    (void)state;
    snprintf(path, sizeof(path), "%s/types.pcapng", dir);
    struct rs_writer_opts o = {.path = path, .linktype = RS_DLT_EN10MB, .snaplen = 9000,
                               .pcapng = true, .frame_linktypes = true};
    assert_int_equal(rs_writer_open(&o, &w, err), 0);
    for (uint32_t i = 0; i < RS_ARRAY_SIZE(types); i++) {
        struct rs_frame fr = make_frame(buf, 70 + i, i);
        fr.linktype = types[i];
        assert_int_equal(rs_writer_write(w, &fr, err), 0);
        offsets[i] = rs_writer_frame_offset(w);
    }
    assert_int_equal(rs_writer_close(w, &written, err), 0);
    assert_int_equal(written, RS_ARRAY_SIZE(types));
    assert_int_equal(rs_source_open_file(path, &src, err), 0);
    for (uint32_t i = 0; i < RS_ARRAY_SIZE(types); i++) {
        assert_int_equal(rs_source_next(src, &f, err), 1);
        make_frame(want, 70 + i, i);
        assert_int_equal(f.linktype, types[i]);
        assert_int_equal(f.caplen, 70 + i);
        assert_memory_equal(f.data, want, 70 + i);
        assert_int_equal(f.ts_sec, 1700000000 + i);
        assert_int_equal(f.ts_nsec, 123456789);
        assert_int_equal(rs_source_offset(src), offsets[i]);
    }
    assert_int_equal(rs_source_next(src, &f, err), 0);
    rs_source_close(src);

    snprintf(path, sizeof(path), "%s/types.pcap", dir);
    o.pcapng = false;
    assert_int_equal(rs_writer_open(&o, &w, err), 0);
    struct rs_frame fr = make_frame(buf, 70, 0);
    fr.linktype = RS_DLT_EN10MB;
    assert_int_equal(rs_writer_write(w, &fr, err), 0);
    fr.linktype = RS_DLT_LINKTYPE_RAW;
    fr.number = 2;
    assert_int_equal(rs_writer_write(w, &fr, err), RS_EINVAL);
    assert_non_null(strstr(err, "frame 2 has link type 101"));
    assert_int_equal(rs_writer_close(w, &written, err), 0);
    assert_int_equal(written, 1);
}

static void
test_ring_names(void **state)
{
    char out[256];
    struct tm tm = {.tm_year = 126, .tm_mon = 10, .tm_mday = 21, .tm_hour = 9, .tm_min = 5,
                    .tm_sec = 7, .tm_isdst = -1};
    time_t t = mktime(&tm);

    (void)state;
    assert_int_equal(rs_writer_ring_name("dir/cap.pcap", 7, t, out, sizeof(out)), 0);
    assert_string_equal(out, "dir/cap_00007_20261121090507.pcap");
    assert_int_equal(rs_writer_ring_name("a.b/cap", 1, t, out, sizeof(out)), 0);
    assert_string_equal(out, "a.b/cap_00001_20261121090507");
    assert_int_equal(rs_writer_ring_name("x.tar.pcap", 123456, t, out, sizeof(out)), 0);
    assert_string_equal(out, "x.tar_123456_20261121090507.pcap");
    assert_int_not_equal(rs_writer_ring_name("cap.pcap", 1, t, out, 10), 0);
}

static int
count_files(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void
test_rotation(void **state)
{
    char base[128], err[RS_ERRBUF_SIZE];
    struct rs_writer *w;
    uint8_t buf[2048];
    uint64_t written;

    (void)state;
    snprintf(base, sizeof(base), "%s/ring.pcap", dir);
    /* 1000-byte files: 24 + 3 x 316 = 972, the 4th record passes 1000 and switches. */
    struct rs_writer_opts o = {.path = base, .linktype = RS_DLT_EN10MB, .snaplen = 9000,
                               .ring_filesize = 1000, .ring_files = 3};
    assert_int_equal(rs_writer_open(&o, &w, err), 0);
    char first[256];
    snprintf(first, sizeof(first), "%s", rs_writer_path(w));
    assert_non_null(strstr(first, "/ring_00001_"));
    for (uint32_t i = 0; i < 20; i++) {
        struct rs_frame f = make_frame(buf, 300, i);
        assert_int_equal(rs_writer_write(w, &f, err), 0);
        assert_true(count_files() <= 3);
    }
    /* 20 frames, 4 per file: files 1-5 full, file 6 just opened. */
    assert_non_null(strstr(rs_writer_path(w), "/ring_00006_"));
    assert_int_equal(access(first, F_OK), -1);
    char last_full[512];
    assert_int_equal(rs_writer_close(w, &written, err), 0);
    assert_int_equal(written, 20);
    assert_int_equal(count_files(), 3);
    /* The newest full file holds frames 16-19. */
    DIR *d = opendir(dir);
    struct dirent *e;
    last_full[0] = '\0';
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, "_00005_") != NULL)
            snprintf(last_full, sizeof(last_full), "%s/%s", dir, e->d_name);
    closedir(d);
    uint32_t magic;
    assert_int_equal(read_back(last_full, 16, 300, &magic), 4);
}

/* Writes 700-byte frames under a 10000-byte file size limit (which fails a
 * write as a full disk does: part taken, then an error), flushing after
 * every flush_every frames (0: never, so everything waits in the 1 MiB
 * buffer); returns the count the writer reports and checks the file. */
static uint64_t
write_until_full(const char *name, uint32_t flush_every)
{
    char path[128], err[RS_ERRBUF_SIZE];
    struct rs_writer *w;
    uint8_t buf[2048];
    struct rlimit old, lim = {.rlim_cur = 10000, .rlim_max = RLIM_INFINITY};
    uint64_t written;
    int rc = 0;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    struct rs_writer_opts o = {.path = path, .linktype = RS_DLT_EN10MB, .snaplen = 9000};
    assert_int_equal(rs_writer_open(&o, &w, err), 0);
    signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &old);
    lim.rlim_max = old.rlim_max;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    for (uint32_t i = 0; i < 100 && rc == 0; i++) {
        struct rs_frame f = make_frame(buf, 700, i);
        rc = rs_writer_write(w, &f, err);
        if (rc == 0 && flush_every != 0 && i % flush_every == flush_every - 1)
            rc = rs_writer_flush(w, err);
    }
    if (rc == 0) {
        /* All still buffered: closing is the flush that fails. */
        rc = rs_writer_close(w, &written, err);
        assert_int_equal(rc, RS_EIO);
        assert_non_null(strstr(err, "File too large"));
    } else {
        assert_non_null(strstr(err, "File too large"));
        assert_int_equal(rs_writer_write(w, &(struct rs_frame){.data = buf, .caplen = 1}, err),
                         RS_EIO);   /* refused after the failure */
        rs_writer_close(w, &written, err);
    }
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
    uint32_t magic;
    assert_int_equal(read_back(path, 0, 700, &magic), written);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 24 + written * 716);
    return written;
}

/* A write that fails half-way leaves a file of whole records: every one
 * that fitted, 24 + 13 x 716 = 9332 bytes under the 10000 limit (a 14th
 * would end at 10048), and the count says so. It does not matter whether
 * the failing flush held 3 records or all 100. */
static void
test_write_error_keeps_file_whole(void **state)
{
    (void)state;
    assert_int_equal(write_until_full("full3.pcap", 3), 13);
    assert_int_equal(write_until_full("full0.pcap", 0), 13);
}

/* The writer's standard output is fd: dup2'd over descriptor 1 for the time of fn. */
static uint64_t
with_stdout(int fd, uint64_t (*fn)(void *), void *arg)
{
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
    uint64_t r = fn(arg);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    return r;
}

/* 100 records of 700 bytes to standard output, flushed every 3; the count it reports and
 * (in arg, when not NULL) the error text. */
static uint64_t
write_stdout(void *arg)
{
    char err[RS_ERRBUF_SIZE] = "";
    struct rs_writer *w;
    uint8_t buf[2048];
    uint64_t written = 0;
    int rc;

    struct rs_writer_opts o = {.path = "-", .linktype = RS_DLT_EN10MB, .snaplen = 9000};
    if (rs_writer_open(&o, &w, err) != 0) {
        if (arg != NULL)
            snprintf(arg, RS_ERRBUF_SIZE, "%s", err);
        return 0;
    }
    rc = 0;
    for (uint32_t i = 0; i < 100 && rc == 0; i++) {
        struct rs_frame f = make_frame(buf, 700, i);
        rc = rs_writer_write(w, &f, err);
        if (rc == 0 && i % 3 == 2)
            rc = rs_writer_flush(w, err);
    }
    if (arg != NULL)
        snprintf(arg, RS_ERRBUF_SIZE, "%s", err);
    if (rs_writer_close(w, &written, err) != 0 && arg != NULL && rc == 0)
        snprintf(arg, RS_ERRBUF_SIZE, "%s", err);
    return written;
}

/* Standard output as the shell opens it for `> file`: write-only, so the file cannot be
 * read back. On a full disk (a file size limit fails a write as one does) it keeps every
 * whole record that went out, and the count says so: 13, as for a file by name. It once
 * kept the header alone and said 0. */
static void
test_stdout_full_keeps_records(void **state)
{
    char path[128], err[RS_ERRBUF_SIZE];
    struct rlimit old, lim = {.rlim_cur = 10000};

    (void)state;
    snprintf(path, sizeof(path), "%s/stdout.pcap", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &old);
    lim.rlim_max = old.rlim_max;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    uint64_t written = with_stdout(fd, write_stdout, err);
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
    close(fd);
    assert_string_equal(err, "standard output: File too large");
    assert_int_equal(written, 13);
    uint32_t magic;
    assert_int_equal(read_back(path, 0, 700, &magic), 13);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 24 + 13 * 716);
}

struct pipe_reader {
    int fd;
    uint8_t data[128 * 1024];
    size_t len;
};

static void *
drain_pipe(void *arg)
{
    struct pipe_reader *r = arg;
    ssize_t n;

    while ((n = read(r->fd, r->data + r->len, sizeof(r->data) - r->len)) > 0)
        r->len += (size_t)n;
    return NULL;
}

/* Through a pipe: a reader that takes everything gets the 100 records the count says, and
 * its end once the writer closes; a pipe whose reader has gone takes nothing, and the
 * count says 0 with the error. */
static void
test_stdout_pipe_counts(void **state)
{
    char err[RS_ERRBUF_SIZE];
    int p[2];
    pthread_t th;
    static struct pipe_reader r;

    (void)state;
    assert_int_equal(pipe(p), 0);
    r.fd = p[0];
    r.len = 0;
    assert_int_equal(pthread_create(&th, NULL, drain_pipe, &r), 0);
    assert_int_equal(with_stdout(p[1], write_stdout, NULL), 100);
    close(p[1]);
    pthread_join(th, NULL);
    close(p[0]);
    assert_int_equal(r.len, 24 + 100 * 716);
    uint32_t caplen;
    memcpy(&caplen, r.data + 24 + 99 * 716 + 8, 4);
    assert_int_equal(caplen, 700);

    assert_int_equal(pipe(p), 0);
    close(p[0]);
    signal(SIGPIPE, SIG_IGN);
    assert_int_equal(with_stdout(p[1], write_stdout, err), 0);
    signal(SIGPIPE, SIG_DFL);
    close(p[1]);
    assert_string_equal(err, "standard output: Broken pipe");
}

/* The file being read is refused as the output, by its name or by a hard link to it,
 * before it is opened (which would empty it); another file is not. */
static void
test_refuses_input(void **state)
{
    char path[128], link_path[128], other[128], err[RS_ERRBUF_SIZE], want[300];
    struct rs_writer *w;
    uint8_t buf[64];
    uint64_t written;
    struct stat st;

    (void)state;
    snprintf(path, sizeof(path), "%s/in.pcap", dir);
    snprintf(link_path, sizeof(link_path), "%s/in_link.pcap", dir);
    snprintf(other, sizeof(other), "%s/out.pcap", dir);
    struct rs_writer_opts o = {.path = path, .linktype = RS_DLT_EN10MB, .snaplen = 9000};
    assert_int_equal(rs_writer_open(&o, &w, err), 0);
    struct rs_frame f = make_frame(buf, 64, 1);
    assert_int_equal(rs_writer_write(w, &f, err), 0);
    assert_int_equal(rs_writer_close(w, &written, err), 0);
    assert_int_equal(link(path, link_path), 0);
    o.input = path;
    const char *targets[] = {path, link_path};
    for (size_t i = 0; i < 2; i++) {
        o.path = targets[i];
        assert_int_equal(rs_writer_open(&o, &w, err), RS_EINVAL);
        snprintf(want, sizeof(want), "%s: is the capture being read: writing would empty it "
                 "first (choose another file)", targets[i]);
        assert_string_equal(err, want);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, 24 + 16 + 64);
    }
    o.path = other;
    assert_int_equal(rs_writer_open(&o, &w, err), 0);
    assert_int_equal(rs_writer_close(w, &written, err), 0);
}

static void
test_unwritable(void **state)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_writer *w;
    struct rs_writer_opts o = {.path = "/dev/full", .linktype = RS_DLT_EN10MB, .snaplen = 9000};

    (void)state;
    assert_int_equal(rs_writer_open(&o, &w, err), RS_EIO);
    assert_string_equal(err, "/dev/full: No space left on device");
    o.path = "/nonexistent/dir/x.pcap";
    assert_int_equal(rs_writer_open(&o, &w, err), RS_EIO);
    assert_string_equal(err, "/nonexistent/dir/x.pcap: No such file or directory");
    o.path = "-";
    o.ring_filesize = 1000;
    assert_int_equal(rs_writer_open(&o, &w, err), RS_EINVAL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_frame_offsets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frame_linktypes, setup, teardown),
        cmocka_unit_test(test_ring_names),
        cmocka_unit_test_setup_teardown(test_rotation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_error_keeps_file_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stdout_full_keeps_records, setup, teardown),
        cmocka_unit_test(test_stdout_pipe_counts),
        cmocka_unit_test_setup_teardown(test_refuses_input, setup, teardown),
        cmocka_unit_test(test_unwritable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
