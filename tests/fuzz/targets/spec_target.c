/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spec_target.c - the packet spec parser of `roceshark inject`: each line of
 * the input is applied to one packet, as `-F FILE` applies its lines; what
 * parses is built (a few packets, generators advancing) and decoded again.
 * A refusal must say why in one line.
 */
#include <stdlib.h>
#include <string.h>

#include <roceshark/dissectors/dissect.h>
#include <roceshark/inject/inject.h>

#include "fuzz_target.h"

#define PACKETS_BUILT 3

static void
build(struct rs_inject_packet *p)
{
    static uint8_t buf[RS_INJECT_MAX_FRAME];
    struct rs_inject_run run = {.rng = g_rand_new_with_seed(1)};
    struct rs_decode_opts opts;
    char err[RS_ERRBUF_SIZE];

    rs_decode_opts_init(&opts);
    opts.verify_crc = true;
    for (int k = 0; k < PACKETS_BUILT; k++) {
        struct rs_inject_frame fr;
        if (rs_inject_next(p, &run, buf, &fr, err) != 0)
            break;
        struct rs_frame f = {.data = fr.data, .caplen = fr.len, .len = fr.len,
                             .linktype = fr.encap == RS_INJECT_IB ? RS_DLT_INFINIBAND
                                                                  : RS_DLT_EN10MB,
                             .number = (uint64_t)k + 1};
        struct rs_packet pkt;
        rs_decode_frame(&f, &opts, &pkt);
    }
    g_rand_free(run.rng);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct rs_inject_packet p;     /* tens of KiB: not on the stack */
    char *text = fuzz_text(data, size);
    char err[RS_ERRBUF_SIZE];
    unsigned line = 1;
    bool ok = true;

    rs_inject_packet_init(&p);
    for (char *s = text, *nl; s != NULL && ok; s = nl != NULL ? nl + 1 : NULL, line++) {
        nl = strchr(s, '\n');
        if (nl != NULL)
            *nl = '\0';
        err[0] = '\0';
        ok = rs_inject_spec_parse(&p, s, "fuzz", line, err) == 0;
        if (!ok && (err[0] == '\0' || strchr(err, '\n') != NULL))
            abort();
    }
    if (ok)
        build(&p);
    free(text);
    return 0;
}
