/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary_icmp.c - the Info column of ICMP and ICMPv6 messages as tshark
 * writes it: the type's name (ICMP's padded to 20 characters), an error's
 * code, an echo's identifier, sequence number and TTL or hop limit with the
 * request a reply answers, and Neighbor Discovery's target, flags and
 * Ethernet link-layer address.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>

#include <roceshark/streams.h>
#include <roceshark/wire.h>

#include "print/summary_icmp.h"

#define ND_OPT_SRC_LINKADDR 1
#define ND_OPT_TGT_LINKADDR 2
#define ETHER_OPT_LEN 8         /* type, length and a 6-byte MAC */

struct text {
    char *buf;
    size_t size, len;
};

static void __attribute__((format(printf, 2, 3)))
text_add(struct text *t, const char *fmt, ...)
{
    va_list ap;

    if (t->len + 1 >= t->size)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len = t->len + (size_t)n < t->size ? t->len + (size_t)n : t->size - 1;
}

static void
add_request_in(struct text *t, const struct rs_packet *pkt)
{
    if (pkt->stream != NULL && pkt->stream->echo_request != 0)
        text_add(t, " (request in %llu)", (unsigned long long)pkt->stream->echo_request);
}

/* " from MAC" or " is at MAC" when the first option of that type is Ethernet's. */
static void
add_ether_option(struct text *t, const struct rs_icmp *m, unsigned type, const char *how)
{
    uint32_t off, len;

    if (!rs_icmpv6_option(m, 1u << type, 0, &off, &len) || len != ETHER_OPT_LEN)
        return;
    const uint8_t *a = m->msg + off + 2;
    text_add(t, " %s %02x:%02x:%02x:%02x:%02x:%02x", how, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static void
add_target(struct text *t, const struct rs_icmp *m, const char *before)
{
    char addr[INET6_ADDRSTRLEN];

    if (m->len >= 24 && inet_ntop(AF_INET6, m->msg + 8, addr, sizeof(addr)) != NULL)
        text_add(t, "%s%s", before, addr);
}

static void
info_v6(struct text *t, const struct rs_packet *pkt, const struct rs_icmp *m)
{
    struct rs_icmp_echo e;
    const char *name = rs_value_name(rs_icmpv6_type_vals, m->type);
    const char *code = rs_icmp_code_name(m);

    text_add(t, "%s", name != NULL ? name : "Unknown ICMPv6 type");
    if (code != NULL)
        text_add(t, " (%s)", code);
    if (rs_icmp_echo_of(pkt, &e)) {
        text_add(t, " id=0x%04x, seq=%u, hop limit=%u", e.ident, e.seq,
                 rs_packet_at(pkt, RS_LAYER_IPV6)[7]);
        add_request_in(t, pkt);
    } else if (m->type == RS_ICMPV6_NS) {
        add_target(t, m, " for ");
        add_ether_option(t, m, ND_OPT_SRC_LINKADDR, "from");
    } else if (m->type == RS_ICMPV6_NA && m->len >= 24) {
        static const char *const flags[] = {"rtr", "sol", "ovr"};
        const char *sep = " (";
        add_target(t, m, " ");
        for (unsigned i = 0; i < 3; i++) {
            if (m->msg[4] & (0x80u >> i)) {
                text_add(t, "%s%s", sep, flags[i]);
                sep = ", ";
            }
        }
        if (sep[0] == ',')
            text_add(t, ")");
        add_ether_option(t, m, ND_OPT_TGT_LINKADDR, "is at");
    }
}

static void
info_v4(struct text *t, const struct rs_packet *pkt, const struct rs_icmp *m)
{
    struct rs_icmp_echo e;
    const char *name = rs_value_name(rs_icmp_type_vals, m->type);
    const char *code = rs_icmp_code_name(m);

    text_add(t, "%-20s", name != NULL ? name : "Unknown ICMP (obsolete or malformed?)");
    if (code != NULL)
        text_add(t, " (%s)", code);
    if (rs_icmp_echo_of(pkt, &e)) {
        text_add(t, " id=0x%04x, seq=%u/%u, ttl=%u", e.ident, e.seq,
                 (unsigned)(e.seq >> 8 | (e.seq & 0xffu) << 8),
                 rs_packet_at(pkt, RS_LAYER_IPV4)[8]);
        add_request_in(t, pkt);
    }
}

size_t
summary_icmp_info(const struct rs_packet *pkt, const struct rs_icmp *m, char *buf, size_t size)
{
    struct text t = {buf, size, 0};

    if (size == 0)
        return 0;
    buf[0] = '\0';
    if (m->v6)
        info_v6(&t, pkt, m);
    else
        info_v4(&t, pkt, m);
    return t.len;
}
