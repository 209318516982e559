/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nstime.h - times and durations as seconds and nanoseconds, like
 * Wireshark's nstime_t.
 *
 * A count of nanoseconds in 64 bits ends at 292 years, and capture files go
 * further: a pcapng timestamp is 64 bits in units of the interface's
 * resolution, which may be seconds, so one file can hold 10^10 s and 1 s
 * (and frame 2 is then 9999999999 s before frame 1). Every time the
 * capture, the decoder, the analysis and the printers handle is a struct
 * rs_time; nanoseconds appear only where a value is known to be small.
 *
 * nsec is always 0 to 999999999, for negative times too: -0.25 s is
 * {-1, 750000000}, so that comparison is that of (sec, nsec) in order.
 * Arithmetic saturates at RS_TIME_MIN and RS_TIME_MAX (about +-2.9e11
 * years) instead of wrapping; no file timestamp reaches them except a
 * pcapng one in seconds past 2^63, which is clamped when read.
 */
#ifndef ROCESHARK_NSTIME_H
#define ROCESHARK_NSTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define RS_NSEC_PER_SEC 1000000000

struct rs_time {
    int64_t sec;
    int32_t nsec;       /* 0 to RS_NSEC_PER_SEC - 1 */
};

#define RS_TIME_ZERO ((struct rs_time){0, 0})
#define RS_TIME_MAX ((struct rs_time){INT64_MAX, RS_NSEC_PER_SEC - 1})
#define RS_TIME_MIN ((struct rs_time){INT64_MIN, 0})

/* sec seconds plus nsec nanoseconds, nsec any value (a pcap record's
 * microseconds can exceed a second): carried into the seconds. */
static inline struct rs_time
rs_time_make(int64_t sec, int64_t nsec)
{
    int64_t carry = nsec / RS_NSEC_PER_SEC;
    int32_t rest = (int32_t)(nsec % RS_NSEC_PER_SEC);

    if (rest < 0) {
        rest += RS_NSEC_PER_SEC;
        carry--;
    }
    if (__builtin_add_overflow(sec, carry, &sec))
        return carry > 0 ? RS_TIME_MAX : RS_TIME_MIN;
    return (struct rs_time){sec, rest};
}

static inline int
rs_time_cmp(struct rs_time a, struct rs_time b)
{
    if (a.sec != b.sec)
        return a.sec < b.sec ? -1 : 1;
    return a.nsec < b.nsec ? -1 : a.nsec > b.nsec;
}

static inline bool
rs_time_is_negative(struct rs_time t)
{
    return t.sec < 0;
}

/* a + b, saturated. */
static inline struct rs_time
rs_time_add(struct rs_time a, struct rs_time b)
{
    int32_t nsec = a.nsec + b.nsec;     /* < 2e9: fits */
    int64_t sec;

    if (nsec >= RS_NSEC_PER_SEC) {
        nsec -= RS_NSEC_PER_SEC;
        /* The carry goes to the smaller operand first, so that a sum
         * in range never overflows on the way there. */
        if (a.sec < b.sec)
            a.sec++;
        else if (b.sec != INT64_MAX)
            b.sec++;
        else
            return RS_TIME_MAX;
    }
    if (__builtin_add_overflow(a.sec, b.sec, &sec))
        return a.sec > 0 ? RS_TIME_MAX : RS_TIME_MIN;
    return (struct rs_time){sec, nsec};
}

/* a - b, saturated. */
static inline struct rs_time
rs_time_sub(struct rs_time a, struct rs_time b)
{
    int32_t nsec = a.nsec - b.nsec;
    int64_t sec;

    if (nsec < 0) {
        nsec += RS_NSEC_PER_SEC;
        /* Borrow from a, or where a is at its least, add to b: both at
         * their extreme means the result is out of range anyway. */
        if (a.sec != INT64_MIN)
            a.sec--;
        else if (b.sec != INT64_MAX)
            b.sec++;
        else
            return RS_TIME_MIN;
    }
    if (__builtin_sub_overflow(a.sec, b.sec, &sec))
        return b.sec < 0 ? RS_TIME_MAX : RS_TIME_MIN;
    return (struct rs_time){sec, nsec};
}

static inline struct rs_time
rs_time_from_ns(int64_t ns)
{
    return rs_time_make(0, ns);
}

/* The time in nanoseconds, saturated at INT64_MIN and INT64_MAX (292
 * years): for durations such as latencies, where that is plenty. */
static inline int64_t
rs_time_to_ns(struct rs_time t)
{
    int64_t sec = t.sec, nsec = t.nsec, ns;

    /* Give both parts the same sign, so that -9223372036.000000001 s, whose
     * seconds alone would overflow, still converts. */
    if (sec < 0 && nsec > 0) {
        sec++;
        nsec -= RS_NSEC_PER_SEC;
    }
    if (__builtin_mul_overflow(sec, (int64_t)RS_NSEC_PER_SEC, &ns) ||
        __builtin_add_overflow(ns, nsec, &ns))
        return t.sec < 0 ? INT64_MIN : INT64_MAX;
    return ns;
}

/* Seconds as a double (for drawing and averages: 53 bits of precision). */
static inline double
rs_time_to_double(struct rs_time t)
{
    return (double)t.sec + t.nsec / 1e9;
}

/* Longest text rs_time_format() writes: sign, 19 digits, point, 9 digits. */
#define RS_TIME_TEXT_MAX 30

/* Writes t as seconds with `digits` decimals (0 to 9; no point for 0), as
 * Wireshark shows times: the magnitude truncated, "-" in front of any
 * negative time. Returns the length; buf needs RS_TIME_TEXT_MAX + 1. */
size_t rs_time_format(struct rs_time t, unsigned digits, char *buf);

/* CLOCK_MONOTONIC in nanoseconds: for how long things take, never for a frame's time. */
static inline uint64_t
rs_monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The time ns nanoseconds from now on clock, as pthread_cond_timedwait wants a
 * deadline (CLOCK_REALTIME for a default condition variable). */
static inline struct timespec
rs_deadline_after(clockid_t clock, uint64_t ns)
{
    struct timespec t;

    clock_gettime(clock, &t);
    ns += (uint64_t)t.tv_nsec;
    t.tv_sec += (time_t)(ns / 1000000000u);
    t.tv_nsec = (long)(ns % 1000000000u);
    return t;
}

#endif /* ROCESHARK_NSTIME_H */
