/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob_hex.h - fixed-width hexadecimal fields, the building block of the
 * text messages perftest and ibv_rc_pingpong exchange.
 */
#ifndef ROCESHARK_OOB_HEX_H
#define ROCESHARK_OOB_HEX_H

#include <stddef.h>
#include <stdint.h>

/* Reads width hex digits at in[*pos] (within len) and advances *pos past
 * them. */
int rs_oob_hex_digits(const uint8_t *in, size_t len, size_t *pos, unsigned width,
                      uint64_t *value, const char *msg, const char *name, char *err);
/* Reads width hex digits at in[*pos] (within len), then the byte sep, and
 * advances *pos past both. name is what err calls the field. Fails with
 * RS_EFORMAT on a short message, a non-hex digit or a wrong separator. */
int rs_oob_hex_field(const uint8_t *in, size_t len, size_t *pos, unsigned width, uint8_t sep,
                     uint64_t *value, const char *msg, const char *name, char *err);

#endif /* ROCESHARK_OOB_HEX_H */
