/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader_target.c - the capture file readers: the input is a whole file
 * (pcap in either byte order and precision, pcapng, ERF, gzip of any of
 * them), read as `roceshark read -r` reads it, from an anonymous memory
 * file, every frame decoded. A refusal must say why in one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/dissect.h>

#include "fuzz_target.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[RS_ERRBUF_SIZE] = "", path[64];
    struct rs_decode_opts opts;
    struct rs_source *src;
    struct rs_frame f;
    int fd = memfd_create("fuzz-capture", MFD_CLOEXEC);

    if (fd < 0 || write(fd, data, size) != (ssize_t)size)
        abort();
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    rs_decode_opts_init(&opts);
    opts.verify_crc = true;
    if (rs_source_open_file(path, &src, err) == 0) {
        int rc;
        while ((rc = rs_source_next(src, &f, err)) == 1) {
            struct rs_packet pkt;
            rs_decode_frame(&f, &opts, &pkt);
            rs_source_offset(src);
        }
        if (rc < 0 && (err[0] == '\0' || strchr(err, '\n') != NULL))
            abort();
        rs_source_close(src);
    } else if (err[0] == '\0' || strchr(err, '\n') != NULL) {
        abort();
    }
    close(fd);
    return 0;
}
