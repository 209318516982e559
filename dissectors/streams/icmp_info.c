/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * icmp_info.c - the Info column (info.h) of ICMP and ICMPv6 messages as tshark
 * writes it: the type's name (ICMP's padded to 20 characters), an error's
 * code, an echo's identifier, sequence number and TTL or hop limit with the
 * request a reply answers, and Neighbor Discovery's target, flags and
 * Ethernet link-layer address (and a router advertisement's or a
 * redirect's).
 */
#include <arpa/inet.h>
#include <ctype.h>

#include <roceshark/dissectors/info.h>
#include <roceshark/dissectors/streams.h>
#include <roceshark/dissectors/wire.h>

#define ND_OPT_SRC_LINKADDR 1
#define ND_OPT_TGT_LINKADDR 2
#define ETHER_OPT_LEN 8         /* type, length and a 6-byte MAC */

/* " from MAC" or " is at MAC" when the first option of that type is Ethernet's. */
static void
add_ether_option(struct rs_info *t, const struct rs_icmp *m, unsigned type, const char *how)
{
    uint32_t off, len;

    if (!rs_icmpv6_option(m, 1u << type, 0, &off, &len) || len != ETHER_OPT_LEN)
        return;
    const uint8_t *a = m->msg + off + 2;
    rs_info_add(t, " %s %02x:%02x:%02x:%02x:%02x:%02x", how, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static void
add_target(struct rs_info *t, const struct rs_icmp *m, const char *before)
{
    char addr[INET6_ADDRSTRLEN];

    if (m->len >= 24 && inet_ntop(AF_INET6, m->msg + 8, addr, sizeof(addr)) != NULL)
        rs_info_add(t, "%s%s", before, addr);
}

/* The type's name, ICMP's padded to 20 characters, and an error's code;
 * tshark 4.4 names ICMPv6's with a capital ("Hop limit exceeded in transit"). */
static void
add_type_and_code(struct rs_info *t, const struct rs_packet *pkt, const struct rs_icmp *m)
{
    const char *name = rs_value_name(m->v6 ? rs_icmpv6_type_vals : rs_icmp_type_vals, m->type);
    const char *code = rs_icmp_code_name(m);

    if (m->v6)
        rs_info_add(t, "%s", name != NULL ? name : "Unknown ICMPv6 type");
    else
        rs_info_add(t, "%-20s", name != NULL ? name : "Unknown ICMP (obsolete or malformed?)");
    if (code != NULL && m->v6 && (pkt->flags & RS_PKT_ICMP_4_4))
        rs_info_add(t, " (%c%s)", toupper((unsigned char)code[0]), code + 1);
    else if (code != NULL)
        rs_info_add(t, " (%s)", code);
}

/* Neighbor Discovery: the target, an advertisement's flags ("(none)" for none), an
 * Ethernet address. */
static void
add_nd(struct rs_info *t, const struct rs_icmp *m)
{
    if (m->type == RS_ICMPV6_NS) {
        add_target(t, m, " for ");
        add_ether_option(t, m, ND_OPT_SRC_LINKADDR, "from");
    } else if (m->type == RS_ICMPV6_NA && m->len >= 24) {
        static const char *const flags[] = {"rtr", "sol", "ovr"};
        const char *sep = " (";
        add_target(t, m, " ");
        for (unsigned i = 0; i < 3; i++) {
            if (m->msg[4] & (0x80u >> i)) {
                rs_info_add(t, "%s%s", sep, flags[i]);
                sep = ", ";
            }
        }
        rs_info_add(t, sep[0] == ',' ? ")" : " (none)");   /* tshark's for no flag */
        add_ether_option(t, m, ND_OPT_TGT_LINKADDR, "is at");
    } else if (m->type == RS_ICMPV6_RA) {
        add_ether_option(t, m, ND_OPT_SRC_LINKADDR, "from");
    } else if (m->type == RS_ICMPV6_REDIRECT) {
        add_ether_option(t, m, ND_OPT_TGT_LINKADDR, "is at");
    }
}

void
rs_icmp_write_info(struct rs_info *t, const struct rs_packet *pkt, const struct rs_icmp *m)
{
    struct rs_icmp_echo e;

    add_type_and_code(t, pkt, m);
    if (!rs_icmp_echo_of(pkt, &e)) {
        if (m->v6)
            add_nd(t, m);
        return;
    }
    if (m->v6)
        rs_info_add(t, " id=0x%04x, seq=%u, hop limit=%u", e.ident, e.seq,
                 rs_packet_at(pkt, RS_LAYER_IPV6)[7]);
    else
        rs_info_add(t, " id=0x%04x, seq=%u/%u, ttl=%u", e.ident, e.seq,
                 (unsigned)(e.seq >> 8 | (e.seq & 0xffu) << 8),
                 rs_packet_at(pkt, RS_LAYER_IPV4)[8]);
    if (pkt->stream != NULL && pkt->stream->echo_request != 0)
        rs_info_add(t, " (request in %llu)", (unsigned long long)pkt->stream->echo_request);
}
