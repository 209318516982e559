/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_frames.c - see bench_frames.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_frames.h"

#define ARENA_CAP (1u << 30)

double
bench_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
bench_frames_load(const char *prog, const char *path, struct bench_frames *fr)
{
    char err[RS_ERRBUF_SIZE];
    struct rs_source *src;
    struct rs_frame f;

    memset(fr, 0, sizeof(*fr));
    if (rs_source_open_file(path, &src, err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return -1;
    }
    fr->arena = malloc(ARENA_CAP);
    if (fr->arena == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        rs_source_close(src);
        return -1;
    }
    while (rs_source_next(src, &f, err) == 1) {
        if (fr->n == fr->cap) {
            fr->cap = fr->cap ? fr->cap * 2 : 1 << 16;
            fr->f = realloc(fr->f, fr->cap * sizeof(*fr->f));
            if (fr->f == NULL) {
                fprintf(stderr, "%s: out of memory\n", prog);
                rs_source_close(src);
                return -1;
            }
        }
        if (fr->used + f.caplen > ARENA_CAP)
            break;
        memcpy(fr->arena + fr->used, f.data, f.caplen);
        f.data = fr->arena + fr->used;
        fr->used += f.caplen;
        fr->f[fr->n++] = f;
    }
    rs_source_close(src);
    return 0;
}

void
bench_frames_free(struct bench_frames *fr)
{
    free(fr->f);
    free(fr->arena);
    memset(fr, 0, sizeof(*fr));
}
