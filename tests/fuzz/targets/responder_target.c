/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * responder_target.c - the receive path of the RC transport (header checks,
 * responder, completer) with fixed memory regions: the input is a program
 * of packets built from valid requests and responses, steered and damaged
 * (rc/rc_program.c). Everything around a region is poisoned, so under
 * AddressSanitizer an access one byte outside it is reported where it
 * happens; regions without remote write must keep their contents.
 */
#include "../../rc/rc_program.h"
#include "fuzz_target.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rc_program_run(data, size);
    return 0;
}
