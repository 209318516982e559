/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cm_target.c - the CM MAD parser and the CM engine: the first byte sets up
 * two engines (a connection started or not, its MADs delivered or not) and
 * picks which one gets the rest, a MAD of any length in a heap buffer of
 * exactly its size. The engines' counters must add up (cm_cases.c).
 */
#include "../cm_cases.h"
#include "fuzz_target.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cm_cases_input(data, size);
    return 0;
}
