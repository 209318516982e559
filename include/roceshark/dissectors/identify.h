/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * identify.h - the protocols we do not dissect but name, as Wireshark would find them:
 * by TCP or UDP port, Ethertype, LLC address or IP protocol, and by their first bytes for
 * TLS and HTTP. They show in frame.protocols in place of "data", and each is a filter term
 * (`dns`, `tls`, `lldp`) true where it is identified.
 */
#ifndef ROCESHARK_IDENTIFY_H
#define ROCESHARK_IDENTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <roceshark/dissectors/packet.h>

/* Where Wireshark's chain names the protocol (frame.protocols). */
enum rs_ident_place {
    RS_IDENT_LINK,      /* after an Ethertype: "eth:ethertype:lldp" */
    RS_IDENT_LLC,       /* after LLC, an 802.3 frame's: "eth:llc:stp" */
    RS_IDENT_IP,        /* after IP, as its protocol: "ip:igmp" */
    RS_IDENT_L4,        /* after UDP or TCP, in place of data: "udp:dns" */
};

struct rs_ident_protocol {
    const char *abbrev;         /* the filter name: "dns" */
    const char *name;           /* Wireshark's protocol name: "Domain Name System" */
    const char *short_name;     /* its short name (tshark -G protocols): "DNS" */
    enum rs_ident_place place;
};

/* The protocol above the layers we decode that pkt carries, or NULL. */
const struct rs_ident_protocol *rs_ident_protocol(const struct rs_packet *pkt);

/* Whether pkt's TCP segment is HTTP's or TLS's whole: a whole TLS record from its first
 * byte, or a whole HTTP message to or from HTTP's port. Wireshark hands such a segment's
 * bytes to HTTP or TLS, none to data. */
bool rs_ident_tcp_message(const struct rs_packet *pkt);

/* Whether pkt's TCP segment, to or from HTTP's port, begins an HTTP message (a request
 * or status line at its first byte), whether the segment holds it whole or not. */
bool rs_ident_http_start(const struct rs_packet *pkt);
/* When pkt's TCP segment begins an HTTP message whose headers it holds whole, with a
 * Content-Length: true, with the message's length (headers and body) in *total. */
bool rs_ident_http_length(const struct rs_packet *pkt, uint64_t *total);
/* A TLS record's header at d (n bytes there): content type 20 to 24, version 3.x, a
 * length no record exceeds; true with the record's length, header included, in *len. */
bool rs_ident_tls_header(const uint8_t *d, uint32_t n, uint32_t *len);
/* The request or status line an HTTP segment begins with (without its CR LF): its length
 * and *line, or 0 when there is none. */
size_t rs_ident_http_line(const struct rs_packet *pkt, const uint8_t **line);

/* Whether pkt is an IEEE 802.3 frame (a length where the Ethertype would be), whose
 * payload Wireshark hands to LLC. */
bool rs_ident_is_llc(const struct rs_packet *pkt);

/* Wireshark's names for an identified protocol's filter name (-G protocols), or NULL. */
const struct rs_ident_protocol *rs_ident_by_abbrev(const char *abbrev);

#endif /* ROCESHARK_IDENTIFY_H */
