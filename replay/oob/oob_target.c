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

int
rs_oob_target_parse(const char *s, struct rs_oob_target *t, char *err)
{
    const char *addr = s, *scheme_end = strstr(s, "://");
    char host[64];

    memset(t, 0, sizeof(*t));
    if (scheme_end != NULL) {
        size_t n = (size_t)(scheme_end - s), i;
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strlen(names[i]) == n && strncmp(s, names[i], n) == 0)
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
        return rs_error(err, RS_EINVAL, "%s: %s is not an IPv4 address", s, host);
    if (colon != NULL) {
        char *end;
        unsigned long port = strtoul(colon + 1, &end, 10);
        if (colon[1] == '\0' || *end != '\0' || port == 0 || port > 65535)
            return rs_error(err, RS_EINVAL, "%s: %s is not a TCP port", s, colon + 1);
        t->port = (uint16_t)port;
    }
    return 0;
}
