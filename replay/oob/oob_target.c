/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob_target.c - --connect targets: which connection setup, which peer.
 *
 * One syntax names every way we can set up a connection, so a script that
 * points at a NIC's own tool changes one word: roceshark://, perftest://,
 * pingpong:// or cm://, then the peer's address and, optionally, a port.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roceshark/oob.h>

static const char *const names[] = {"roceshark", "perftest", "pingpong", "cm"};

const char *
rs_oob_setup_name(enum rs_oob_setup setup)
{
    return (unsigned)setup < sizeof(names) / sizeof(names[0]) ? names[setup] : "?";
}

/* The target as errors quote it: one line, whatever it holds. */
static const char *
printable(const char *in, char *out, size_t size)
{
    size_t i = 0;

    for (; in[i] != '\0' && i + 1 < size; i++)
        out[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
    out[i] = '\0';
    return out;
}

int
rs_oob_target_parse(const char *target, struct rs_oob_target *t, char *err)
{
    char text[96];
    const char *s = printable(target, text, sizeof(text));
    const char *addr = target, *scheme_end = strstr(target, "://");
    char host[64];

    memset(t, 0, sizeof(*t));
    if (scheme_end != NULL) {
        size_t n = (size_t)(scheme_end - target), i;
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strlen(names[i]) == n && strncmp(target, names[i], n) == 0)
                break;
        if (i == sizeof(names) / sizeof(names[0]))
            return rs_error(err, RS_EINVAL, "%s: unknown connection setup (roceshark://, "
                            "perftest://, pingpong:// or cm://)", s);
        t->setup = (enum rs_oob_setup)i;
        addr = scheme_end + 3;
    }
    if (addr[0] == '[' || strchr(addr, ':') != strrchr(addr, ':'))
        return rs_error(err, RS_ENOTSUP, "%s: IPv6 peers are not supported yet", s);
    const char *colon = strchr(addr, ':');
    size_t hlen = colon != NULL ? (size_t)(colon - addr) : strlen(addr);
    if (hlen == 0 || hlen >= sizeof(host))
        return rs_error(err, RS_EINVAL, "%s: expected an IPv4 address", s);
    memcpy(host, addr, hlen);
    host[hlen] = '\0';
    if (inet_pton(AF_INET, host, t->ip) != 1)
        return rs_error(err, RS_EINVAL, "%s: expected an IPv4 address", s);
    if (colon != NULL) {
        char *end;
        unsigned long port = strtoul(colon + 1, &end, 10);
        if (colon[1] == '\0' || *end != '\0' || port == 0 || port > 65535)
            return rs_error(err, RS_EINVAL, "%s: expected a TCP port after ':'", s);
        t->port = (uint16_t)port;
    }
    return 0;
}
