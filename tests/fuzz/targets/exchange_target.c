/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * exchange_target.c - the parsers of the out-of-band exchanges: perftest's
 * version, system data, MTU, key messages (text and -R's struct) and BW
 * report, ibv_rc_pingpong's address message and "done", --connect targets,
 * rping's buffer advertisement. The first byte picks the parser, the rest
 * is the message, in a heap buffer of exactly its size; whatever parses
 * must build back into what parses to the same values, and a refusal must
 * be one line (oob_cases.c).
 */
#include "../oob_cases.h"
#include "fuzz_target.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    oob_cases_input(data, size);
    return 0;
}
