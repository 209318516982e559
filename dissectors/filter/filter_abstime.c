/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filter_abstime.c - dates in display filters, the two forms Wireshark 4.0 reads:
 *
 *   ISO 8601   "2020-07-04 12:34:56", "2020-07-04T12:34:56.5Z", "2020-07-04 12:34+02:00",
 *              "2020-07-04" (a date, an hour, hours and minutes, or all three; any number
 *              of decimals, nine kept; Z, UTC or an offset of [+-]hh[[:]mm])
 *   legacy     "Jul  4, 2020 12:34:56.123", "Jul 4, 2020 12:34:56 UTC"
 *
 * in local time (TZ) unless they name their zone. Out-of-range days and seconds roll
 * over, as mktime() rolls them (February 30 is March 2). Written by hand rather than
 * with strptime(): its %b depends on the locale, and these forms are fixed.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "filter/filter_int.h"

struct cursor {
    const char *s, *end;
};

/* 1 to max digits; false when there is none. */
static bool
digits(struct cursor *c, int max, int *out)
{
    int n = 0, v = 0;

    while (c->s < c->end && isdigit((unsigned char)*c->s) && n < max) {
        v = v * 10 + (*c->s++ - '0');
        n++;
    }
    *out = v;
    return n > 0;
}

static bool
take(struct cursor *c, char ch)
{
    if (c->s < c->end && *c->s == ch) {
        c->s++;
        return true;
    }
    return false;
}

static void
spaces(struct cursor *c)
{
    while (c->s < c->end && *c->s == ' ')
        c->s++;
}

/* .digits: nanoseconds, digits past the ninth dropped. */
static uint32_t
fraction(struct cursor *c)
{
    uint32_t ns = 0;
    int n = 0;

    if (!take(c, '.'))
        return 0;
    for (; c->s < c->end && isdigit((unsigned char)*c->s); c->s++, n++)
        if (n < 9)
            ns = ns * 10 + (uint32_t)(*c->s - '0');
    for (; n < 9; n++)
        ns *= 10;
    return ns;
}

/* The time of a date (month from 0) and a time of day, in UTC or in local time, offset
 * seconds east of UTC, plus ns. */
static bool
to_time(int y, int mo, int d, int h, int mi, int s, bool utc, int offset, uint32_t ns,
        struct rs_time *out)
{
    struct tm tm;

    memset(&tm, 0, sizeof(tm));
    tm.tm_year = y - 1900;
    tm.tm_mon = mo;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    tm.tm_isdst = -1;
    time_t t = utc ? timegm(&tm) : mktime(&tm);

    if (t == (time_t)-1 && !(tm.tm_year == 69 && tm.tm_mon == 11 && tm.tm_mday == 31))
        return false;
    *out = (struct rs_time){(int64_t)t - offset, (int32_t)ns};
    return true;
}

/* Z, UTC, or [+-]hh[[:]mm] after the time: its offset from UTC in seconds. */
static bool
zone(struct cursor *c, bool *utc, int *offset)
{
    int h, m = 0;

    *utc = false;
    *offset = 0;
    if (take(c, 'Z')) {
        *utc = true;
        return true;
    }
    if (c->end - c->s >= 4 && strncmp(c->s, " UTC", 4) == 0) {
        c->s += 4;
        *utc = true;
        return true;
    }
    if (c->s < c->end && (*c->s == '+' || *c->s == '-')) {
        int sign = *c->s++ == '-' ? -1 : 1;
        if (!digits(c, 2, &h))
            return false;
        take(c, ':');
        if (c->s < c->end && isdigit((unsigned char)*c->s) && !digits(c, 2, &m))
            return false;
        *utc = true;
        *offset = sign * (h * 3600 + m * 60);
    }
    return true;
}

static bool
iso(struct cursor *c, struct rs_time *out)
{
    int y, mo, d, h = 0, mi = 0, s = 0, offset;
    uint32_t ns = 0;
    bool utc;

    if (!digits(c, 4, &y) || !take(c, '-') || !digits(c, 2, &mo) || !take(c, '-') ||
        !digits(c, 2, &d) || mo < 1 || mo > 12 || d < 1 || d > 31)
        return false;
    if (c->s < c->end && (*c->s == ' ' || *c->s == 'T')) {
        if (*c->s++ == ' ')
            spaces(c);
        if (!digits(c, 2, &h) || h > 23)
            return false;
        if (take(c, ':') && (!digits(c, 2, &mi) || mi > 59))
            return false;
        if (take(c, ':') && (!digits(c, 2, &s) || s > 61))
            return false;
        ns = fraction(c);
    }
    if (!zone(c, &utc, &offset) || c->s != c->end)
        return false;
    return to_time(y, mo - 1, d, h, mi, s, utc, offset, ns, out);
}

static bool
legacy(struct cursor *c, struct rs_time *out)
{
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    int mo = -1, d, y, h, mi, s;

    for (int i = 0; i < 12 && c->end - c->s >= 3; i++)
        if (strncasecmp(c->s, months[i], 3) == 0)
            mo = i;
    if (mo < 0)
        return false;
    c->s += 3;
    spaces(c);
    if (!digits(c, 2, &d) || !take(c, ',') || (spaces(c), !digits(c, 4, &y)))
        return false;
    spaces(c);
    if (!digits(c, 2, &h) || !take(c, ':') || !digits(c, 2, &mi) || !take(c, ':') ||
        !digits(c, 2, &s) || h > 23 || mi > 59 || s > 61 || d < 1 || d > 31)
        return false;
    uint32_t ns = fraction(c);
    bool utc = c->end - c->s == 4 && strncmp(c->s, " UTC", 4) == 0;
    if (!utc && c->s != c->end)
        return false;
    return to_time(y, mo, d, h, mi, s, utc, 0, ns, out);
}

bool
filter_abstime(const char *s, size_t len, struct rs_time *out, char *err, size_t errlen)
{
    struct cursor c = {s, s + len};

    if (isdigit((unsigned char)s[0]) ? iso(&c, out) : legacy(&c, out))
        return true;
    snprintf(err, errlen, "\"%.*s\" is not a valid absolute time: write \"2011-07-04 "
             "12:34:56[.frac][Z|+hh:mm]\" or \"Jul  4, 2011 12:34:56[.frac][ UTC]\"",
             (int)(len > 64 ? 64 : len), s);
    return false;
}
