/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_common.c - the helpers the fuzz targets share (fuzz_target.h).
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/capture/capture.h>
#include <roceshark/dissectors/dissect.h>
#include <roceshark/dissectors/pipeline.h>
#include <roceshark/dissectors/print.h>

#include "../../robust/exercise.h"
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

void
fuzz_pipeline_opts(struct rs_pipeline_opts *opts)
{
    rs_pipeline_opts_init(opts);
    opts->streams = true;
    opts->decode.verify_crc = true;
    opts->analysis.max_convs = 16;
    opts->iwarp.max_conns = 4;
    opts->iwarp.max_buffer = 16384;
    opts->iwarp.max_memory = 65536;
    opts->streams_opts.max_streams = 16;
}

bool fuzz_every_output;

void
fuzz_pipeline_frame(struct rs_pipeline *pipe, const struct rs_frame *f)
{
    static struct rs_out out;
    static bool have_out;

    if (!have_out && rs_out_init(&out, NULL, 1 << 16) != 0)
        abort();
    have_out = true;
    struct rs_frame copy = *f;
    uint8_t *bytes = malloc(f->caplen ? f->caplen : 1);
    if (bytes == NULL)
        abort();
    memcpy(bytes, f->data, f->caplen);
    copy.data = bytes;
    const struct rs_packet *pkt = &rs_pipeline_process(pipe, &copy)->pkt;
    /* Fuzzing, one of the outputs that walk every field, in turn by frame number and
     * by length, so that a stream of five frames reaches them all and a single frame
     * any of them. Every output on every frame ran at 34 inputs a second, a fifteenth
     * of it in the pipeline: the walks, instrumented, were the rest. */
    if (fuzz_every_output)
        exercise_packet(pkt, &out);
    else
        exercise_packet_one(pkt, &out,
                            (enum exercise_output)((f->number + f->caplen) % EXERCISE_OUTPUTS));
    out.len = 0;
    free(bytes);
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
