/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_target.c - the display-filter compiler: any text, and what compiles
 * run against every frame of the bundled sample. A refusal must say why in
 * one line.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/filter.h>

#include "fuzz_target.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct rs_packet *pkts;
    size_t n = fuzz_sample_packets(&pkts);
    char *text = fuzz_text(data, size);
    char err[RS_ERRBUF_SIZE] = "";
    struct rs_filter *f;

    if (rs_filter_compile(text, &f, err) == 0) {
        for (size_t i = 0; i < n; i++)
            rs_filter_match(f, &pkts[i]);
        rs_filter_free(f);
    } else if (err[0] == '\0' || strchr(err, '\n') != NULL) {
        abort();        /* every refusal is one line that says why */
    }
    free(text);
    return 0;
}
