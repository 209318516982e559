/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_common.c - the helpers the fuzz targets share (fuzz_target.h).
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/capture.h>
#include <roceshark/dissect.h>

#include "fuzz_target.h"

#define SAMPLE RS_SOURCE_DIR "/samples/rdma_demo.pcap"
#define MAX_SAMPLE_FRAMES 64

char *
fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    if (s == NULL)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

size_t
fuzz_sample_packets(const struct rs_packet **out)
{
    static struct rs_frame frames[MAX_SAMPLE_FRAMES];
    static struct rs_packet packets[MAX_SAMPLE_FRAMES];
    static size_t n;
    static bool loaded;

    if (!loaded) {
        struct rs_decode_opts opts;
        struct rs_source *src;
        struct rs_frame f;
        char err[RS_ERRBUF_SIZE];

        loaded = true;
        rs_decode_opts_init(&opts);
        opts.verify_crc = true;
        if (rs_source_open_file(SAMPLE, &src, err) != 0)
            abort();        /* the sample is the repository's own */
        while (n < MAX_SAMPLE_FRAMES && rs_source_next(src, &f, err) == 1) {
            uint8_t *copy = malloc(f.caplen ? f.caplen : 1);
            if (copy == NULL)
                abort();
            memcpy(copy, f.data, f.caplen);
            frames[n] = f;
            frames[n].data = copy;
            rs_decode_frame(&frames[n], &opts, &packets[n]);
            n++;
        }
        rs_source_close(src);
    }
    *out = packets;
    return n;
}
