/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * oob_target.c - --connect targets: which connection setup, which peer.
 *
 * One syntax names every way we can set up a connection, so a script that
 * points at a NIC's own tool changes one word: roceshark://, perftest://,
 * pingpong://, cm:// or perftest+cm://, then the peer's address and,
 * optionally, a port.
 */
#include <stdio.h>
#include <string.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/oob.h>

static const char *const names[] = {"roceshark", "perftest", "pingpong", "cm", "perftest+cm"};

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

    memset(t, 0, sizeof(*t));
    if (scheme_end != NULL) {
        size_t n = (size_t)(scheme_end - target), i;
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strlen(names[i]) == n && strncmp(target, names[i], n) == 0)
                break;
        if (i == sizeof(names) / sizeof(names[0]))
            return rs_error(err, RS_EINVAL, "%s: unknown connection setup (roceshark://, "
                            "perftest://, pingpong://, cm:// or perftest+cm://)", s);
        t->setup = (enum rs_oob_setup)i;
        addr = scheme_end + 3;
    }
    char why[RS_ERRBUF_SIZE];
    if (rs_addr_parse_port(addr, t->gid, &t->scope, &t->port, why) < 0)
        return rs_error(err, RS_EINVAL, "%s", why);
    return 0;
}
