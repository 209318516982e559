/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * identify.c - protocols we name without dissecting them, found where Wireshark finds
 * them: a TCP or UDP port (the lower one first, as Wireshark tries them), an Ethertype,
 * an 802.3 frame's LLC addresses, an IP protocol number; TLS by its record header on any
 * port and HTTP by its start line, where the segment holds a whole record or message
 * (Wireshark's reassembly shows a part of one as plain TCP). Their names show in
 * frame.protocols and are filter terms (the fields at the end); their bytes stay data, but
 * those of a segment HTTP or TLS takes whole (rs_ident_tcp_message()), as Wireshark's.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/flow.h>
#include <roceshark/dissectors/identify.h>
#include <roceshark/dissectors/streams.h>
#include <roceshark/dissectors/wire.h>

#include "fields/fields_int.h"

/* Each protocol: its id, filter name, Wireshark's name and short name, and place. */
#define IDENT_LIST(X) \
    X(DNS, "dns", "Domain Name System", "DNS", RS_IDENT_L4) \
    X(MDNS, "mdns", "Multicast Domain Name System", "mDNS", RS_IDENT_L4) \
    X(LLMNR, "llmnr", "Link-local Multicast Name Resolution", "LLMNR", RS_IDENT_L4) \
    X(NBNS, "nbns", "NetBIOS Name Service", "NBNS", RS_IDENT_L4) \
    X(NBDGM, "nbdgm", "NetBIOS Datagram Service", "NBDS", RS_IDENT_L4) \
    X(NBSS, "nbss", "NetBIOS Session Service", "NBSS", RS_IDENT_L4) \
    X(DHCP, "dhcp", "Dynamic Host Configuration Protocol", "DHCP/BOOTP", RS_IDENT_L4) \
    X(DHCPV6, "dhcpv6", "DHCPv6", "DHCPv6", RS_IDENT_L4) \
    X(NTP, "ntp", "Network Time Protocol", "NTP", RS_IDENT_L4) \
    X(SNMP, "snmp", "Simple Network Management Protocol", "SNMP", RS_IDENT_L4) \
    X(SYSLOG, "syslog", "Syslog message", "Syslog", RS_IDENT_L4) \
    X(SSDP, "ssdp", "Simple Service Discovery Protocol", "SSDP", RS_IDENT_L4) \
    X(TFTP, "tftp", "Trivial File Transfer Protocol", "TFTP", RS_IDENT_L4) \
    X(RIP, "rip", "Routing Information Protocol", "RIP", RS_IDENT_L4) \
    X(VXLAN, "vxlan", "Virtual eXtensible Local Area Network", "VXLAN", RS_IDENT_L4) \
    X(GENEVE, "geneve", "Generic Network Virtualization Encapsulation", "Geneve", RS_IDENT_L4) \
    X(BFD, "bfd", "Bidirectional Forwarding Detection Control Message", "BFD Control", \
      RS_IDENT_L4) \
    X(RADIUS, "radius", "RADIUS Protocol", "RADIUS", RS_IDENT_L4) \
    X(PTP, "ptp", "Precision Time Protocol (IEEE1588)", "PTP", RS_IDENT_L4) \
    X(ISAKMP, "isakmp", "Internet Security Association and Key Management Protocol", \
      "ISAKMP", RS_IDENT_L4) \
    X(HTTP, "http", "Hypertext Transfer Protocol", "HTTP", RS_IDENT_L4) \
    X(TLS, "tls", "Transport Layer Security", "TLS", RS_IDENT_L4) \
    X(SSH, "ssh", "SSH Protocol", "SSH", RS_IDENT_L4) \
    X(FTP, "ftp", "File Transfer Protocol (FTP)", "FTP", RS_IDENT_L4) \
    X(TELNET, "telnet", "Telnet", "TELNET", RS_IDENT_L4) \
    X(SMTP, "smtp", "Simple Mail Transfer Protocol", "SMTP", RS_IDENT_L4) \
    X(POP, "pop", "Post Office Protocol", "POP", RS_IDENT_L4) \
    X(IMAP, "imap", "Internet Message Access Protocol", "IMAP", RS_IDENT_L4) \
    X(BGP, "bgp", "Border Gateway Protocol", "BGP", RS_IDENT_L4) \
    X(LDAP, "ldap", "Lightweight Directory Access Protocol", "LDAP", RS_IDENT_L4) \
    X(ISCSI, "iscsi", "iSCSI", "iSCSI", RS_IDENT_L4) \
    X(LLDP, "lldp", "Link Layer Discovery Protocol", "LLDP", RS_IDENT_LINK) \
    X(EAPOL, "eapol", "802.1X Authentication", "EAPOL", RS_IDENT_LINK) \
    X(SLOW, "slow", "Slow Protocols", "802.3 Slow protocols", RS_IDENT_LINK) \
    X(MPLS, "mpls", "MultiProtocol Label Switching Header", "MPLS", RS_IDENT_LINK) \
    X(PPPOED, "pppoed", "PPP-over-Ethernet Discovery", "PPPoED", RS_IDENT_LINK) \
    X(PPPOES, "pppoes", "PPP-over-Ethernet Session", "PPPoES", RS_IDENT_LINK) \
    X(STP, "stp", "Spanning Tree Protocol", "STP", RS_IDENT_LLC) \
    X(CDP, "cdp", "Cisco Discovery Protocol", "CDP", RS_IDENT_LLC) \
    X(IGMP, "igmp", "Internet Group Management Protocol", "IGMP", RS_IDENT_IP) \
    X(GRE, "gre", "Generic Routing Encapsulation", "GRE", RS_IDENT_IP) \
    X(ESP, "esp", "Encapsulating Security Payload", "ESP", RS_IDENT_IP) \
    X(AH, "ah", "Authentication Header", "AH", RS_IDENT_IP) \
    X(OSPF, "ospf", "Open Shortest Path First", "OSPF", RS_IDENT_IP) \
    X(PIM, "pim", "Protocol Independent Multicast", "PIM", RS_IDENT_IP) \
    X(VRRP, "vrrp", "Virtual Router Redundancy Protocol", "VRRP", RS_IDENT_IP) \
    X(SCTP, "sctp", "Stream Control Transmission Protocol", "SCTP", RS_IDENT_IP)

#define IDENT_ID(id, abbrev, name, short_name, place) I_##id,
enum ident { IDENT_LIST(IDENT_ID) I_COUNT };

#define IDENT_ENTRY(id, abbrev, name, short_name, place) \
    [I_##id] = {abbrev, name, short_name, place},
static const struct rs_ident_protocol protocols[I_COUNT] = {IDENT_LIST(IDENT_ENTRY)};

#define ON_UDP 1u
#define ON_TCP 2u

/* The registered ports, as Wireshark's dissectors register them by default. */
static const struct {
    uint16_t port;
    uint8_t on;
    uint8_t ident;
} ports[] = {
    {21, ON_TCP, I_FTP},            {22, ON_TCP, I_SSH},          {23, ON_TCP, I_TELNET},
    {25, ON_TCP, I_SMTP},           {53, ON_UDP | ON_TCP, I_DNS}, {67, ON_UDP, I_DHCP},
    {68, ON_UDP, I_DHCP},           {69, ON_UDP, I_TFTP},         {80, ON_TCP, I_HTTP},
    {110, ON_TCP, I_POP},           {123, ON_UDP, I_NTP},         {137, ON_UDP, I_NBNS},
    {138, ON_UDP, I_NBDGM},         {139, ON_TCP, I_NBSS},        {143, ON_TCP, I_IMAP},
    {161, ON_UDP, I_SNMP},          {162, ON_UDP, I_SNMP},        {179, ON_TCP, I_BGP},
    {319, ON_UDP, I_PTP},           {320, ON_UDP, I_PTP},         {389, ON_TCP, I_LDAP},
    {500, ON_UDP, I_ISAKMP},        {514, ON_UDP, I_SYSLOG},      {520, ON_UDP, I_RIP},
    {546, ON_UDP, I_DHCPV6},        {547, ON_UDP, I_DHCPV6},      {1812, ON_UDP, I_RADIUS},
    {1813, ON_UDP, I_RADIUS},       {1900, ON_UDP, I_SSDP},       {3260, ON_TCP, I_ISCSI},
    {3784, ON_UDP, I_BFD},          {4789, ON_UDP, I_VXLAN},      {5353, ON_UDP, I_MDNS},
    {5355, ON_UDP | ON_TCP, I_LLMNR}, {6081, ON_UDP, I_GENEVE},   {8080, ON_TCP, I_HTTP},
};

static const struct {
    uint16_t ethertype;
    uint8_t ident;
} ethertypes[] = {
    {0x8809, I_SLOW}, {0x8847, I_MPLS}, {0x8848, I_MPLS}, {0x8863, I_PPPOED},
    {0x8864, I_PPPOES}, {0x888e, I_EAPOL}, {0x88cc, I_LLDP}, {0x88f7, I_PTP},
};

static const struct {
    uint8_t proto;
    uint8_t ident;
} ip_protocols[] = {
    {2, I_IGMP}, {47, I_GRE}, {50, I_ESP}, {51, I_AH}, {89, I_OSPF}, {103, I_PIM},
    {112, I_VRRP}, {132, I_SCTP},
};

#define ETHER_MAX_LENGTH 1500   /* above it the field is an Ethertype */
#define TLS_RECORD_MAX (16384 + 2048)

static const struct rs_ident_protocol *
by_port(uint16_t port, unsigned on)
{
    for (size_t i = 0; i < RS_ARRAY_SIZE(ports); i++)
        if (ports[i].port == port && (ports[i].on & on))
            return &protocols[ports[i].ident];
    return NULL;
}

bool
rs_ident_tls_header(const uint8_t *d, uint32_t n, uint32_t *len)
{
    if (n < 5 || d[0] < 20 || d[0] > 24 || d[1] != 3 || d[2] > 4 ||
        rs_load_be16(d + 3) > TLS_RECORD_MAX)
        return false;
    *len = 5u + rs_load_be16(d + 3);
    return true;
}

/* A whole TLS record from the segment's first byte: content type 20 to 24, version
 * 3.x, a length no record exceeds. */
static bool
tls_record(const uint8_t *d, uint32_t n)
{
    uint32_t len;

    return rs_ident_tls_header(d, n, &len) && len <= n;
}

/* The header line named name ("Content-Length"), case-insensitively, in the header
 * block d[0..n); its value's first byte, or NULL. */
static const uint8_t *
header(const uint8_t *d, uint32_t n, const char *name)
{
    size_t k = strlen(name);

    for (uint32_t i = 0; i + 2 + k < n; i++)
        if (d[i] == '\n' && strncasecmp((const char *)d + i + 1, name, k) == 0 &&
            d[i + 1 + k] == ':')
            return d + i + 2 + k;
    return NULL;
}

/* An HTTP request or status line at the segment's first byte. */
static bool
http_start(const uint8_t *d, uint32_t n)
{
    static const char *const starts[] = {"GET ", "POST ", "PUT ", "HEAD ", "DELETE ",
                                         "OPTIONS ", "PATCH ", "CONNECT ", "TRACE ",
                                         "HTTP/1."};

    for (size_t i = 0; i < RS_ARRAY_SIZE(starts); i++) {
        size_t k = strlen(starts[i]);
        if (n >= k && memcmp(d, starts[i], k) == 0)
            return true;
    }
    return false;
}

/* The Content-Length of the header block d[0..head), or -1 without one. */
static int64_t
content_length(const uint8_t *d, uint32_t head)
{
    const uint8_t *v = header(d, head, "Content-Length");
    int64_t want = 0;

    if (v == NULL)
        return -1;
    while (*v == ' ')
        v++;
    for (; *v >= '0' && *v <= '9' && want < 0xffffffff; v++)
        want = want * 10 + (*v - '0');
    return want;
}

/* A whole HTTP message from the segment's first byte: a request or status line, the
 * headers' end, and the body Content-Length announces (or a chunked body's last chunk). */
static bool
http_message(const uint8_t *d, uint32_t n)
{
    if (!http_start(d, n))
        return false;
    const uint8_t *end = memmem(d, n, "\r\n\r\n", 4);
    if (end == NULL)
        return false;
    uint32_t head = (uint32_t)(end - d) + 4, body = n - head;
    int64_t want = content_length(d, head);
    if (want >= 0)
        return body >= want;
    const uint8_t *v = header(d, head, "Transfer-Encoding");
    if (v != NULL && memmem(v, (size_t)(d + head - v), "chunked", 7) != NULL)
        return body >= 5 && memcmp(d + n - 5, "0\r\n\r\n", 5) == 0;
    return true;
}

/* The bytes above TCP or UDP: the segment's payload whatever takes it (rs_packet_data()
 * gives none of a segment HTTP or TLS takes whole). */
static bool
l4_payload(const struct rs_packet *pkt, bool tcp, const uint8_t **d, uint32_t *n)
{
    struct rs_span sp;

    if (!tcp)
        return rs_packet_data(pkt, 0, d, n);
    if (!rs_tcp_payload(pkt, &sp))
        return false;
    *d = pkt->frame->data + sp.off;
    *n = sp.len;
    return true;
}

static const struct rs_ident_protocol *
above_l4(const struct rs_packet *pkt)
{
    bool tcp = rs_packet_has(pkt, RS_LAYER_TCP);
    const uint8_t *d;
    uint32_t n;

    /* An HTTP message or TLS record over segments is HTTP or TLS on its last, TCP alone
     * on the others. */
    if (tcp && pkt->stream != NULL && (pkt->stream->analysis.flags & RS_TCPA_NOT_HANDED_ON))
        return NULL;
    if (tcp && pkt->stream != NULL && pkt->stream->pdu_part != RS_PDU_NONE)
        return pkt->stream->pdu_part != RS_PDU_LAST ? NULL :
               pkt->stream->pdu_proto == RS_PDU_TLS ? &protocols[I_TLS] : &protocols[I_HTTP];
    if (pkt->encap == RS_ENCAP_ROCEV2 || pkt->iwarp != NULL || !l4_payload(pkt, tcp, &d, &n) ||
        n == 0)
        return NULL;
    if (tcp && tls_record(d, n))
        return &protocols[I_TLS];
    const uint8_t *l4 = rs_packet_at(pkt, tcp ? RS_LAYER_TCP : RS_LAYER_UDP);
    uint16_t a = rs_load_be16(l4), b = rs_load_be16(l4 + 2);
    uint16_t lo = a < b ? a : b, hi = a < b ? b : a;
    const struct rs_ident_protocol *p = by_port(lo, tcp ? ON_TCP : ON_UDP);
    if (p == NULL)
        p = by_port(hi, tcp ? ON_TCP : ON_UDP);
    if (p == &protocols[I_HTTP] && !http_message(d, n))
        return NULL;
    return p;
}

/* The TCP payload of pkt when it is to or from HTTP's port, and not iWARP's. */
static bool
http_payload(const struct rs_packet *pkt, const uint8_t **d, uint32_t *n)
{
    struct rs_span sp;

    if (!rs_packet_has(pkt, RS_LAYER_TCP) || pkt->iwarp != NULL || !rs_tcp_payload(pkt, &sp))
        return false;
    const uint8_t *l4 = rs_packet_at(pkt, RS_LAYER_TCP);
    *d = pkt->frame->data + sp.off;
    *n = sp.len;
    return by_port(rs_load_be16(l4), ON_TCP) == &protocols[I_HTTP] ||
           by_port(rs_load_be16(l4 + 2), ON_TCP) == &protocols[I_HTTP];
}

bool
rs_ident_tcp_message(const struct rs_packet *pkt)
{
    const uint8_t *d;
    uint32_t n;

    if (!rs_packet_has(pkt, RS_LAYER_TCP) || pkt->iwarp != NULL ||
        pkt->encap == RS_ENCAP_ROCEV2 || !l4_payload(pkt, true, &d, &n))
        return false;
    if (tls_record(d, n))
        return true;
    const uint8_t *l4 = rs_packet_at(pkt, RS_LAYER_TCP);
    return (by_port(rs_load_be16(l4), ON_TCP) == &protocols[I_HTTP] ||
            by_port(rs_load_be16(l4 + 2), ON_TCP) == &protocols[I_HTTP]) && http_message(d, n);
}

bool
rs_ident_http_start(const struct rs_packet *pkt)
{
    const uint8_t *d;
    uint32_t n;

    return http_payload(pkt, &d, &n) && http_start(d, n) && !tls_record(d, n);
}

bool
rs_ident_http_length(const struct rs_packet *pkt, uint64_t *total)
{
    const uint8_t *d, *end;
    uint32_t n;

    if (!http_payload(pkt, &d, &n) || !http_start(d, n) || tls_record(d, n) ||
        (end = memmem(d, n, "\r\n\r\n", 4)) == NULL)
        return false;
    uint32_t head = (uint32_t)(end - d) + 4;
    int64_t body = content_length(d, head);
    if (body < 0)
        return false;
    *total = head + (uint64_t)body;
    return true;
}

size_t
rs_ident_http_line(const struct rs_packet *pkt, const uint8_t **line)
{
    const uint8_t *d, *end;
    uint32_t n;

    if (!http_payload(pkt, &d, &n) || (end = memmem(d, n, "\r\n", 2)) == NULL)
        return 0;
    *line = d;
    return (size_t)(end - d);
}

/* Where the Ethernet header and its tags end. */
static uint32_t
link_end(const struct rs_packet *pkt)
{
    for (int l = RS_LAYER_VLAN2; l >= RS_LAYER_ETH; l--)
        if (rs_packet_has(pkt, (enum rs_layer)l))
            return pkt->span[l].off + pkt->span[l].len;
    return 0;
}

bool
rs_ident_is_llc(const struct rs_packet *pkt)
{
    return rs_packet_has(pkt, RS_LAYER_ETH) && pkt->ethertype <= ETHER_MAX_LENGTH &&
           link_end(pkt) + 3 <= pkt->frame->caplen;
}

static const struct rs_ident_protocol *
above_llc(const struct rs_packet *pkt)
{
    static const uint8_t cisco_snap[] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x0c, 0x20, 0x00};
    const uint8_t *d = pkt->frame->data + link_end(pkt);
    uint32_t n = pkt->frame->caplen - link_end(pkt);

    if (d[0] == 0x42 && d[1] == 0x42)
        return &protocols[I_STP];
    if (n >= sizeof(cisco_snap) && memcmp(d, cisco_snap, sizeof(cisco_snap)) == 0)
        return &protocols[I_CDP];
    return NULL;
}

static const struct rs_ident_protocol *
above_ip(const struct rs_packet *pkt)
{
    if (rs_packet_has(pkt, RS_LAYER_IPV4)) {
        const uint8_t *ip = rs_packet_at(pkt, RS_LAYER_IPV4);
        if (pkt->span[RS_LAYER_IPV4].len < 20 || (rs_load_be16(ip + 6) & 0x1fff) != 0)
            return NULL;    /* a later fragment: Wireshark's reassembly holds it */
    }
    for (size_t i = 0; i < RS_ARRAY_SIZE(ip_protocols); i++)
        if (ip_protocols[i].proto == pkt->ip_proto)
            return &protocols[ip_protocols[i].ident];
    return NULL;
}

const struct rs_ident_protocol *
rs_ident_protocol(const struct rs_packet *pkt)
{
    if (rs_packet_has(pkt, RS_LAYER_UDP) || rs_packet_has(pkt, RS_LAYER_TCP))
        return above_l4(pkt);
    if (rs_packet_has(pkt, RS_LAYER_IPV4) || rs_packet_has(pkt, RS_LAYER_IPV6))
        return rs_packet_has(pkt, RS_LAYER_ICMP) || rs_packet_has(pkt, RS_LAYER_ICMPV6) ?
               NULL : above_ip(pkt);
    if (rs_ident_is_llc(pkt))
        return above_llc(pkt);
    if (rs_packet_has(pkt, RS_LAYER_ETH) || rs_packet_has(pkt, RS_LAYER_SLL))
        for (size_t i = 0; i < RS_ARRAY_SIZE(ethertypes); i++)
            if (ethertypes[i].ethertype == pkt->ethertype)
                return &protocols[ethertypes[i].ident];
    return NULL;
}

const struct rs_ident_protocol *
rs_ident_by_abbrev(const char *abbrev)
{
    for (size_t i = 0; i < RS_ARRAY_SIZE(protocols); i++)
        if (strcmp(protocols[i].abbrev, abbrev) == 0)
            return &protocols[i];
    return NULL;
}

/* The field of protocol i (the table's offset column): present where it is identified;
 * llc (I_COUNT) on every 802.3 frame. */
static bool
get_ident(const struct rs_packet *pkt, const struct rs_field *f, unsigned occ,
          struct rs_value *out)
{
    bool present = f->offset == I_COUNT ? rs_ident_is_llc(pkt)
                                        : rs_ident_protocol(pkt) == &protocols[f->offset];

    if (occ != 0 || !present)
        return false;
    out->type = RS_FT_PROTOCOL;
    out->v.u = 0;
    return true;
}

/* What -e writes for a protocol whose dissector adds to its item's text, as Wireshark 4.0's
 * do: DNS, mDNS and LLMNR "(query)" or "(response)", NTP "(NTP Version 4, client)"; 0 for
 * the others, whose abbreviation -e writes. */
static size_t
ident_label(const struct rs_packet *pkt, const struct rs_field *f, const struct rs_value *v,
            char *buf, size_t size)
{
    static const char *const ntp_modes[] = {"reserved", "symmetric active",
                                            "symmetric passive", "client", "server",
                                            "broadcast"};
    unsigned id = f->offset;
    bool dns = id == I_DNS || id == I_MDNS || id == I_LLMNR;
    uint32_t len = 0;
    const uint8_t *d = NULL;
    bool tcp = rs_packet_has(pkt, RS_LAYER_TCP);
    int n = 0;

    (void)v;
    if (id >= I_COUNT || !l4_payload(pkt, tcp, &d, &len))
        d = NULL;
    if (d != NULL && tcp && dns) {     /* a DNS message over TCP after its length */
        d = len > 2 ? d + 2 : NULL;
        len = len > 2 ? len - 2 : 0;
    }
    if (d != NULL && dns && len >= 12)
        n = snprintf(buf, size, "%s (%s)", f->name, (d[2] & 0x80) ? "response" : "query");
    else if (d != NULL && id == I_NTP && len >= 48 && (d[0] & 7) < RS_ARRAY_SIZE(ntp_modes))
        n = snprintf(buf, size, "%s (NTP Version %u, %s)", f->name, (d[0] >> 3) & 7u,
                     ntp_modes[d[0] & 7]);
    return n > 0 ? (size_t)n : 0;
}

#define IDENT_FIELD(id, abbrev, name, short_name, place)                             \
    {abbrev, name, RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL, name, RS_NO_LAYER, I_##id, 0,   \
     get_ident, 0, RS_FIELD_PSEUDO, .label = ident_label},

/* Not in any tree: we name these protocols but do not dissect them. */
const struct rs_field rs_fields_ident[] = {
    {"llc", "Logical-Link Control", RS_FT_PROTOCOL, RS_BASE_NONE, 0, NULL,
     "Logical-Link Control", RS_NO_LAYER, I_COUNT, 0, get_ident, 0, RS_FIELD_PSEUDO},
    IDENT_LIST(IDENT_FIELD)
    RS_F_END,
};
