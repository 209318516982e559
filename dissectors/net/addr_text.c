/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * addr_text.c - IPv4 and IPv6 addresses as text, exactly as inet_ntop() writes them.
 *
 * By hand on purpose: glibc's inet_ntop() formats every IPv4 octet and every IPv6
 * group through sprintf(), and addresses are among the most printed text we make
 * (every summary line, every ip.src/ipv6.src field, every row of a conversation
 * table). The output is inet_ntop()'s, byte for byte; test_addr checks it against
 * inet_ntop() on structured and random addresses.
 */
#include <string.h>

#include <roceshark/dissectors/addr.h>

static const char hex_digits[] = "0123456789abcdef";

/* Writes octet v in decimal at p; returns the number of digits. */
static size_t
put_octet(char *p, unsigned v)
{
    size_t n = 0;

    if (v >= 100)
        p[n++] = (char)('0' + v / 100);
    if (v >= 10)
        p[n++] = (char)('0' + v / 10 % 10);
    p[n++] = (char)('0' + v % 10);
    return n;
}

static size_t
put_ipv4(char *buf, const uint8_t *p)
{
    size_t n = put_octet(buf, p[0]);

    for (int i = 1; i < 4; i++) {
        buf[n++] = '.';
        n += put_octet(buf + n, p[i]);
    }
    return n;
}

size_t
rs_format_ipv4(char buf[RS_IPV4_TEXT_MAX], const uint8_t *p)
{
    size_t n = put_ipv4(buf, p);

    buf[n] = '\0';
    return n;
}

/* Writes 16-bit group g in hex without leading zeros; returns the digits. */
static size_t
put_group(char *p, unsigned g)
{
    size_t n = 0;

    for (int shift = 12; shift > 0; shift -= 4)
        if (n > 0 || (g >> shift) != 0)
            p[n++] = hex_digits[(g >> shift) & 0xf];
    p[n++] = hex_digits[g & 0xf];
    return n;
}

size_t
rs_format_ipv6(char buf[RS_IPV6_TEXT_MAX], const uint8_t *p)
{
    unsigned g[8];
    int run = -1, run_len = 0;      /* the first longest run of zero groups */
    size_t n = 0;

    for (int i = 0; i < 8; i++)
        g[i] = (unsigned)p[2 * i] << 8 | p[2 * i + 1];
    for (int i = 0; i < 8;) {
        int j = i;
        while (j < 8 && g[j] == 0)
            j++;
        if (j - i > run_len) {
            run = i;
            run_len = j - i;
        }
        i = j == i ? i + 1 : j;
    }
    if (run_len < 2)
        run = -1;           /* a single zero group is written out */
    for (int i = 0; i < 8; i++) {
        if (run >= 0 && i >= run && i < run + run_len) {
            if (i == run)
                buf[n++] = ':';
            continue;
        }
        if (i > 0)
            buf[n++] = ':';
        /* The IPv4-compatible (::a.b.c.d) and IPv4-mapped (::ffff:a.b.c.d) forms end
         * in a dotted quad, as inet_ntop() writes them (::2 is a run of seven, and
         * stays as it is). */
        if (i == 6 && run == 0 && (run_len == 6 || (run_len == 5 && g[5] == 0xffff))) {
            n += put_ipv4(buf + n, p + 12);
            buf[n] = '\0';
            return n;
        }
        n += put_group(buf + n, g[i]);
    }
    if (run >= 0 && run + run_len == 8)
        buf[n++] = ':';
    buf[n] = '\0';
    return n;
}
