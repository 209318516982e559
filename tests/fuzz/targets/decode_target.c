/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode_target.c - frames of any link type through the whole pipeline
 * (decoding, the streams and iWARP stages, the analysis) and every output.
 *
 * Input: one byte that picks the link type, then frames, each a 2-byte
 * big-endian length and that many bytes (a length past the end takes what
 * is left). Several frames make a stream, so that TCP reassembly, MPA
 * framing and the analysis meet hostile sequences of segments, not single
 * frames alone. Each input gets a pipeline of its own with small bounds, so
 * that eviction is reached and a crash replays from its input alone. Each
 * frame is an exact-size heap copy: AddressSanitizer sees any overread.
 */
#include <stdlib.h>

#include <roceshark/dissectors/pipeline.h>

#include "fuzz_target.h"

static const int linktypes[] = {RS_DLT_EN10MB, RS_DLT_RAW, RS_DLT_LINKTYPE_RAW,
                                RS_DLT_LINUX_SLL, RS_DLT_LINUX_SLL2, RS_DLT_INFINIBAND,
                                RS_DLT_ERF, RS_DLT_IPV4, RS_DLT_IPV6};
#define N_LINKTYPES (sizeof(linktypes) / sizeof(linktypes[0]))

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rs_pipeline_opts opts;
    struct rs_pipeline *pipe;
    char err[RS_ERRBUF_SIZE];

    if (size < 1)
        return 0;
    fuzz_pipeline_opts(&opts);
    if (rs_pipeline_new(&opts, &pipe, err) != 0)
        abort();
    int linktype = linktypes[data[0] % N_LINKTYPES];
    size_t at = 1;
    for (uint64_t number = 1; at < size; number++) {
        size_t len = at + 2 <= size ? (size_t)data[at] << 8 | data[at + 1] : 0;
        at += 2;
        if (at > size || len > size - at)
            len = at > size ? 0 : size - at;
        struct rs_frame f = {.data = data + at, .caplen = (uint32_t)len, .len = (uint32_t)len,
                             .linktype = linktype, .number = number,
                             .ts_sec = 1700000000 + (int64_t)number, .ts_digits = 6};
        at += len;
        fuzz_pipeline_frame(pipe, &f);
    }
    rs_pipeline_free(pipe);
    return 0;
}
