/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay_align.c - two sequences walked together, as diff walks two files:
 * where they part, a short look ahead finds what one side lacks, so that one
 * missing or extra packet stays one difference and does not shift every
 * packet after it. Linear, and bounded by the look ahead: a capture of a
 * million packets is not an LCS table.
 */
#include "replay_int.h"

void
replay_align(size_t na, size_t nb, size_t look_ahead,
             bool (*match)(void *ctx, size_t a, size_t b),
             void (*pair)(void *ctx, size_t a, size_t b), void *ctx)
{
    size_t i = 0, j = 0;

    while (i < na || j < nb) {
        if (i < na && j < nb && match(ctx, i, j)) {
            pair(ctx, i++, j++);
            continue;
        }
        /* Which side lacks a packet: the nearest resynchronisation wins. */
        size_t skip_a = 0, skip_b = 0;
        for (size_t k = 1; k <= look_ahead && skip_a == 0 && skip_b == 0; k++) {
            if (j < nb && i + k < na && match(ctx, i + k, j))
                skip_a = k;
            else if (i < na && j + k < nb && match(ctx, i, j + k))
                skip_b = k;
        }
        if (i < na && (skip_a != 0 || j == nb))
            pair(ctx, i++, REPLAY_NONE);
        else if (j < nb && (skip_b != 0 || i == na))
            pair(ctx, REPLAY_NONE, j++);
        else
            pair(ctx, i++, j++);
    }
}
