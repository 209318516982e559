/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_target.h - what every coverage-guided target under tests/fuzz/targets/
 * defines: libFuzzer's entry point, and the helpers they share.
 *
 * A target is linked two ways: with libFuzzer (-DROCESHARK_LIBFUZZER=ON,
 * clang), which supplies main() and mutates; and with fuzz_replay.c's
 * main(), in every build, which runs the files of a corpus once each as
 * regression tests (gcc included, where libFuzzer does not exist).
 */
#ifndef ROCESHARK_FUZZ_TARGET_H
#define ROCESHARK_FUZZ_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of data on the heap, exactly size + 1 bytes, so that
 * AddressSanitizer catches a read past the text; abort()s when out of memory. */
char *fuzz_text(const uint8_t *data, size_t size);

/* The options `read` runs with (decoding with CRCs checked, the streams and
 * iWARP stages, the analysis), with small bounds so that eviction and the
 * limits are reached. */
struct rs_pipeline;
struct rs_pipeline_opts;
struct rs_frame;
void fuzz_pipeline_opts(struct rs_pipeline_opts *opts);

/* Set by the replay runner: a corpus replayed as a regression test runs every
 * output on every frame, whichever one its input was found through. */
extern bool fuzz_every_output;

/* Runs f through pipe from an exact-size heap copy of its captured bytes
 * (freed before it returns, so that a view kept past the frame is seen
 * too), then the packet's outputs (robust/exercise.c): all of them with
 * fuzz_every_output, else the summary and one of the others. */
void fuzz_pipeline_frame(struct rs_pipeline *pipe, const struct rs_frame *f);

/* The frames of the bundled sample, decoded once, for targets that need
 * packets to run what they built against (the display filter). */
struct rs_packet;
size_t fuzz_sample_packets(const struct rs_packet **out);

#endif /* ROCESHARK_FUZZ_TARGET_H */
