/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * addr.c - endpoint addresses as GIDs: text, sockaddrs and IPv4 mapping.
 *
 * inet_pton() and inet_ntop() do the parsing and printing; what is ours is
 * the mapping of IPv4 into the GID space, the scope after '%', and the
 * brackets around an IPv6 address that takes a port.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <roceshark/dissectors/addr.h>
#include <roceshark/dissectors/common.h>

static const uint8_t v4mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

void
rs_addr_from_ipv4(const uint8_t ip[4], uint8_t gid[16])
{
    memcpy(gid, v4mapped_prefix, sizeof(v4mapped_prefix));
    memcpy(gid + 12, ip, 4);
}

void
rs_addr_from_ip(uint8_t family, const uint8_t *ip, uint8_t gid[16])
{
    if (family == 6)
        memcpy(gid, ip, 16);
    else
        rs_addr_from_ipv4(ip, gid);
}

bool
rs_addr_is_v4mapped(const uint8_t gid[16])
{
    return memcmp(gid, v4mapped_prefix, sizeof(v4mapped_prefix)) == 0;
}

bool
rs_addr_is_link_local(const uint8_t gid[16])
{
    return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

uint8_t
rs_addr_family(const uint8_t gid[16])
{
    return rs_addr_is_v4mapped(gid) ? 4 : 6;
}

/* The text as an error quotes it: one line, at most 64 characters, whatever it holds
 * (it may come from a peer). Returns buf. */
static const char *
printable(const char *s, char buf[72])
{
    size_t i = 0;

    for (; s[i] != '\0' && i < 64; i++)
        buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    buf[i] = '\0';
    return buf;
}

/* The interface index of "eth0" or "3"; 0 when there is none. */
static uint32_t
scope_index(const char *name)
{
    char *end;

    if (name[0] >= '0' && name[0] <= '9') {
        unsigned long v = strtoul(name, &end, 10);
        return *end == '\0' && v <= UINT32_MAX ? (uint32_t)v : 0;
    }
    return if_nametoindex(name);
}

int
rs_addr_parse(const char *s, uint8_t gid[16], uint32_t *scope, char *err)
{
    char text[INET6_ADDRSTRLEN + 1], q[72];
    const char *pct = strchr(s, '%');
    size_t n = pct != NULL ? (size_t)(pct - s) : strlen(s);
    uint8_t ip[4];

    if (n >= sizeof(text))
        return rs_error(err, RS_EINVAL, "%s: expected an IPv4 or IPv6 address", printable(s, q));
    memcpy(text, s, n);
    text[n] = '\0';
    if (inet_pton(AF_INET, text, ip) == 1)
        rs_addr_from_ipv4(ip, gid);
    else if (inet_pton(AF_INET6, text, gid) != 1)
        return rs_error(err, RS_EINVAL, "%s: expected an IPv4 or IPv6 address", printable(s, q));
    if (scope != NULL)
        *scope = 0;
    if (pct == NULL) {
        if (scope != NULL && rs_addr_is_link_local(gid))
            return rs_error(err, RS_EINVAL, "%s: a link-local address needs a scope "
                            "(%s%%eth0)", printable(s, q), text);
        return 0;
    }
    if (scope == NULL || !rs_addr_is_link_local(gid))
        return rs_error(err, RS_EINVAL, "%s: a scope (%%...) is for link-local addresses "
                        "only", printable(s, q));
    *scope = scope_index(pct + 1);
    if (*scope == 0)
        return rs_error(err, RS_EINVAL, "%s: no interface named %s", printable(s, q),
                        printable(pct + 1, (char[72]){0}));
    return 0;
}

int
rs_addr_parse_port(const char *s, uint8_t gid[16], uint32_t *scope, uint16_t *port, char *err)
{
    char host[INET6_ADDRSTRLEN + 24], q[72];
    const char *close = s[0] == '[' ? strchr(s, ']') : NULL;
    const char *colon = strchr(s, ':');
    const char *host_start = s, *port_text = NULL;
    size_t n;

    if (s[0] == '[') {
        if (close == NULL || (close[1] != '\0' && close[1] != ':'))
            return rs_error(err, RS_EINVAL, "%s: expected [ADDRESS]:PORT", printable(s, q));
        host_start = s + 1;
        n = (size_t)(close - host_start);
        port_text = close[1] == ':' ? close + 2 : NULL;
    } else if (colon != NULL && strchr(colon + 1, ':') == NULL) {
        n = (size_t)(colon - s);        /* one colon: IPv4 and a port */
        port_text = colon + 1;
    } else {
        n = strlen(s);                  /* none, or an IPv6 address */
    }
    if (n >= sizeof(host))
        return rs_error(err, RS_EINVAL, "%s: expected an IPv4 or IPv6 address", printable(s, q));
    memcpy(host, host_start, n);
    host[n] = '\0';
    int rc = rs_addr_parse(host, gid, scope, err);
    if (rc < 0 || port_text == NULL)
        return rc;
    char *end;
    unsigned long v = strtoul(port_text, &end, 10);
    if (port_text[0] < '0' || port_text[0] > '9' || *end != '\0' || v == 0 || v > 65535)
        return rs_error(err, RS_EINVAL, "%s: expected a port, 1..65535, after ':'",
                        printable(s, q));
    *port = (uint16_t)v;
    return 0;
}

const char *
rs_addr_format(const uint8_t gid[16], uint32_t scope, char *buf, size_t size)
{
    char text[INET6_ADDRSTRLEN], name[IF_NAMESIZE];

    if (rs_addr_is_v4mapped(gid))
        inet_ntop(AF_INET, gid + 12, text, sizeof(text));
    else
        inet_ntop(AF_INET6, gid, text, sizeof(text));
    if (scope == 0)
        snprintf(buf, size, "%s", text);
    else if (if_indextoname(scope, name) != NULL)
        snprintf(buf, size, "%s%%%s", text, name);
    else
        snprintf(buf, size, "%s%%%u", text, scope);
    return buf;
}

const char *
rs_addr_format_port(const uint8_t gid[16], uint32_t scope, uint16_t port, char *buf,
                    size_t size)
{
    char text[RS_ADDR_TEXT_MAX];

    rs_addr_format(gid, scope, text, sizeof(text));
    if (rs_addr_is_v4mapped(gid))
        snprintf(buf, size, "%s:%u", text, port);
    else
        snprintf(buf, size, "[%s]:%u", text, port);
    return buf;
}

unsigned
rs_addr_to_sockaddr(const uint8_t gid[16], uint32_t scope, uint16_t port,
                    struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof(*ss));
    if (rs_addr_is_v4mapped(gid)) {
        struct sockaddr_in *a = (struct sockaddr_in *)ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(port);
        memcpy(&a->sin_addr, gid + 12, 4);
        return sizeof(*a);
    }
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    a->sin6_scope_id = scope;
    memcpy(&a->sin6_addr, gid, 16);
    return sizeof(*a);
}

bool
rs_addr_from_sockaddr(const struct sockaddr *sa, uint8_t gid[16], uint32_t *scope,
                      uint16_t *port)
{
    uint32_t sc = 0;
    uint16_t p;

    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)(const void *)sa;
        rs_addr_from_ipv4((const uint8_t *)&a->sin_addr, gid);
        p = ntohs(a->sin_port);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)(const void *)sa;
        memcpy(gid, &a->sin6_addr, 16);
        sc = a->sin6_scope_id;
        p = ntohs(a->sin6_port);
    } else {
        return false;
    }
    if (scope != NULL)
        *scope = sc;
    if (port != NULL)
        *port = p;
    return true;
}
