/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * addr.h - endpoint addresses as RoCEv2 GIDs, and their text.
 *
 * Every endpoint address in the project is a uint8_t gid[16]: an IPv6
 * address, with an IPv4 one held IPv4-mapped (::ffff:a.b.c.d), which is how
 * a RoCEv2 GID names an IPv4 endpoint and how perftest prints it. A
 * link-local address (fe80::/10) also needs a scope: the index of the
 * interface it lives on, written "fe80::1%eth0" (or "%3"). These helpers are
 * the one place that turns text, sockaddrs and GIDs into one another.
 */
#ifndef ROCESHARK_ADDR_H
#define ROCESHARK_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sockaddr;
struct sockaddr_storage;

/* Room for the longest text rs_addr_format_port() writes:
 * "[ffff:...:ffff%" IFNAMSIZ "]:65535". */
#define RS_ADDR_TEXT_MAX 72

#define RS_IPV4_TEXT_MAX 16    /* "255.255.255.255" and its NUL */
#define RS_IPV6_TEXT_MAX 46    /* INET6_ADDRSTRLEN */
/* The address at p as inet_ntop() writes it, NUL-terminated; returns its length.
 * Without printf, which glibc's inet_ntop() goes through (addr_text.c). */
size_t rs_format_ipv4(char buf[RS_IPV4_TEXT_MAX], const uint8_t *p);
size_t rs_format_ipv6(char buf[RS_IPV6_TEXT_MAX], const uint8_t *p);

/* ::ffff:a.b.c.d */
void rs_addr_from_ipv4(const uint8_t ip[4], uint8_t gid[16]);
/* An address as a packet holds it, family 4 (four bytes) or 6 (sixteen), as a GID. */
void rs_addr_from_ip(uint8_t family, const uint8_t *ip, uint8_t gid[16]);
/* True for ::ffff:a.b.c.d; its IPv4 address is gid + 12. */
bool rs_addr_is_v4mapped(const uint8_t gid[16]);
/* True for fe80::/10, which means nothing without a scope. */
bool rs_addr_is_link_local(const uint8_t gid[16]);
/* 4 for an IPv4-mapped GID, 6 for any other. */
uint8_t rs_addr_family(const uint8_t gid[16]);

/* Parses "a.b.c.d", "::ffff:a.b.c.d", "2001:db8::1", "fe80::1%eth0" or
 * "fe80::1%3". *scope (may be NULL: then no scope is accepted) receives the
 * interface index, 0 when the text named none. A link-local address needs
 * one. RS_EINVAL with err "expected an IPv4 or IPv6 address", "no interface
 * named X", ... */
int rs_addr_parse(const char *s, uint8_t gid[16], uint32_t *scope, char *err);
/* As rs_addr_parse(), with an optional port: "a.b.c.d:P", "[v6]:P",
 * "[fe80::1%eth0]:P", or any address of rs_addr_parse() alone (*port is then
 * left as it was). A bare IPv6 address takes no port. */
int rs_addr_parse_port(const char *s, uint8_t gid[16], uint32_t *scope, uint16_t *port,
                       char *err);

/* "a.b.c.d" for an IPv4-mapped GID, inet_ntop()'s text otherwise, then
 * "%ifname" (or "%index") when scope is not 0. Returns buf. */
const char *rs_addr_format(const uint8_t gid[16], uint32_t scope, char *buf, size_t size);
/* "a.b.c.d:P" or "[v6%scope]:P". Returns buf. */
const char *rs_addr_format_port(const uint8_t gid[16], uint32_t scope, uint16_t port,
                                char *buf, size_t size);

/* Fills a sockaddr_in for an IPv4-mapped GID (so IPv4 stays IPv4 on the
 * wire), a sockaddr_in6 with the scope otherwise; returns its length. */
unsigned rs_addr_to_sockaddr(const uint8_t gid[16], uint32_t scope, uint16_t port,
                             struct sockaddr_storage *ss);
/* The other way (AF_INET or AF_INET6); false for another family. scope and
 * port may be NULL. */
bool rs_addr_from_sockaddr(const struct sockaddr *sa, uint8_t gid[16], uint32_t *scope,
                           uint16_t *port);

#endif /* ROCESHARK_ADDR_H */
