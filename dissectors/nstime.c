/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nstime.c - times as text: every printer (fields, tree, JSON, the summary
 * line) shows times through rs_time_format().
 */
#include <string.h>

#include <roceshark/dissectors/nstime.h>

size_t
rs_time_format(struct rs_time t, unsigned digits, char *buf)
{
    bool negative = rs_time_is_negative(t);
    /* The magnitude, in unsigned arithmetic: -INT64_MIN does not fit. */
    uint64_t sec = (uint64_t)t.sec;
    uint32_t nsec = (uint32_t)t.nsec;
    char tmp[RS_TIME_TEXT_MAX];
    size_t i = sizeof(tmp);

    if (negative) {
        sec = nsec > 0 ? (uint64_t)0 - sec - 1 : (uint64_t)0 - sec;
        nsec = nsec > 0 ? RS_NSEC_PER_SEC - nsec : 0;
    }
    if (digits > 9)
        digits = 9;
    if (digits > 0) {
        for (unsigned d = digits; d < 9; d++)
            nsec /= 10;
        for (unsigned d = 0; d < digits; d++, nsec /= 10)
            tmp[--i] = (char)('0' + nsec % 10);
        tmp[--i] = '.';
    }
    do {
        tmp[--i] = (char)('0' + sec % 10);
        sec /= 10;
    } while (sec > 0);
    if (negative)
        tmp[--i] = '-';
    memcpy(buf, tmp + i, sizeof(tmp) - i);
    buf[sizeof(tmp) - i] = '\0';
    return sizeof(tmp) - i;
}
