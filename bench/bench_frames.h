/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_frames.h - a capture loaded whole into memory, so that the
 * benchmarks time decoding and nothing of the file reading.
 */
#ifndef ROCESHARK_BENCH_FRAMES_H
#define ROCESHARK_BENCH_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include <roceshark/capture/capture.h>

struct bench_frames {
    struct rs_frame *f;
    size_t n, cap;
    uint8_t *arena;     /* every frame's bytes, one after the other */
    size_t used;
};

/* Loads up to 1 GiB of frames from path; prints "prog: why" and returns -1
 * when the file cannot be read. */
int bench_frames_load(const char *prog, const char *path, struct bench_frames *fr);
void bench_frames_free(struct bench_frames *fr);

/* Monotonic seconds. */
double bench_now(void);

#endif /* ROCESHARK_BENCH_FRAMES_H */
