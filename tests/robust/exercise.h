/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exercise.h - every output of a decoded packet, for the tests that feed
 * hostile frames (decode_exact, the decode and iWARP fuzz targets): every
 * field formatted both ways, the summary line, the tree, and the JSON forms
 * with every field's bytes; or, for a fuzzer, one of those at a time. The
 * text goes into out, which the caller empties.
 */
#ifndef ROCESHARK_TEST_EXERCISE_H
#define ROCESHARK_TEST_EXERCISE_H

#include <roceshark/dissectors/packet.h>
#include <roceshark/dissectors/print.h>

/* The outputs that walk every field of the packet. */
enum exercise_output {
    EXERCISE_FIELDS,        /* every field's values, formatted both ways */
    EXERCISE_TREE,
    EXERCISE_JSONFLAT,
    EXERCISE_JSON,          /* with every field's bytes */
    EXERCISE_EK,            /* with every field's bytes */
    EXERCISE_OUTPUTS
};

/* Every output; returns how many field values pkt had. */
unsigned long exercise_packet(const struct rs_packet *pkt, struct rs_out *out);
/* The checks of every field's layer and the summary line, then one output;
 * returns the values it formatted (0 unless which is EXERCISE_FIELDS). */
unsigned long exercise_packet_one(const struct rs_packet *pkt, struct rs_out *out,
                                  enum exercise_output which);

#endif /* ROCESHARK_TEST_EXERCISE_H */
