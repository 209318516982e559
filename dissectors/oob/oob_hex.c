/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob_hex.c - fixed-width hexadecimal fields of the tools' text messages.
 *
 * The tools write these fields with printf widths and read them back with
 * sscanf() or strtol(), which accept almost anything. We read them strictly
 * (exact width, hex digits only, the separator where it belongs): what the
 * tools write always passes, and a damaged message is named, not guessed at.
 */
#include <ctype.h>

#include <roceshark/dissectors/common.h>

#include "oob_hex.h"

static int
hex_digit(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (uint8_t)tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int
rs_oob_hex_digits(const uint8_t *in, size_t len, size_t *pos, unsigned width, uint64_t *value,
                  const char *msg, const char *name, char *err)
{
    uint64_t v = 0;

    if (*pos + width > len)
        return rs_error(err, RS_EFORMAT, "%s: the message ends inside the %s", msg, name);
    for (unsigned i = 0; i < width; i++) {
        int d = hex_digit(in[*pos + i]);
        if (d < 0)
            return rs_error(err, RS_EFORMAT, "%s: byte %zu of the %s is not a hex digit (0x%02x)",
                            msg, *pos + i, name, in[*pos + i]);
        v = v << 4 | (uint64_t)d;
    }
    *pos += width;
    *value = v;
    return 0;
}

int
rs_oob_hex_field(const uint8_t *in, size_t len, size_t *pos, unsigned width, uint8_t sep,
                 uint64_t *value, const char *msg, const char *name, char *err)
{
    int rc = rs_oob_hex_digits(in, len, pos, width, value, msg, name, err);

    if (rc < 0)
        return rc;
    if (*pos >= len)
        return rs_error(err, RS_EFORMAT, "%s: the message ends after the %s", msg, name);
    if (in[*pos] != sep)
        return rs_error(err, RS_EFORMAT, "%s: expected %s after the %s at byte %zu, got 0x%02x",
                        msg, sep == 0 ? "the end" : "':'", name, *pos, in[*pos]);
    (*pos)++;
    return 0;
}
