/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exercise.h - every output of a decoded packet at once, for the tests that
 * feed hostile frames (decode_exact, the decode fuzz target): every field
 * formatted both ways, the summary line, the tree, and the JSON forms with
 * every field's bytes. The text goes into out, which the caller empties.
 */
#ifndef ROCESHARK_TEST_EXERCISE_H
#define ROCESHARK_TEST_EXERCISE_H

#include <roceshark/packet.h>
#include <roceshark/print.h>

/* Returns how many field values pkt had. */
unsigned long exercise_packet(const struct rs_packet *pkt, struct rs_out *out);

#endif /* ROCESHARK_TEST_EXERCISE_H */
