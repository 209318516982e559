/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * packet.h - a captured frame and the decoded view of it.
 *
 * struct rs_packet holds no packet bytes: it records, for every layer it
 * found, where that layer starts in the frame and how long it is. Consumers
 * (printers, filters, analysis, the Wireshark plugin) read header fields
 * through these offsets, so decoding copies nothing and allocates nothing.
 */
#ifndef ROCESHARK_PACKET_H
#define ROCESHARK_PACKET_H

#include <stdbool.h>
#include <stdint.h>

#include <roceshark/dissectors/nstime.h>

/* Link types we decode (values are libpcap's DLT_* numbers). */
#define RS_DLT_EN10MB 1
#define RS_DLT_RAW 12        /* DLT_RAW as Linux libpcap reports it */
#define RS_DLT_RAW_BSD 14    /* DLT_RAW on the BSDs */
#define RS_DLT_LINKTYPE_RAW 101
#define RS_DLT_LINUX_SLL 113
#define RS_DLT_ERF 197
#define RS_DLT_IPV4 228
#define RS_DLT_IPV6 229
#define RS_DLT_INFINIBAND 247
#define RS_DLT_LINUX_SLL2 276

/* One captured frame, as a source hands it over. The bytes belong to the
 * source and stay valid until its next read. */
struct rs_frame {
    const uint8_t *data;
    uint32_t caplen;    /* bytes captured */
    uint32_t len;       /* bytes on the wire */
    int linktype;       /* RS_DLT_* */
    uint64_t number;    /* 1-based, in capture order */
    uint64_t original;  /* the number it had in its source, when a pass (read -2) renumbered
                         * the frames it kept; else 0 */
    int64_t ts_sec;     /* arrival time: seconds since 1970 */
    uint32_t ts_nsec;   /* and nanoseconds, 0 to 999999999 */
    struct rs_time rel; /* time since the first frame of the source */
    struct rs_time delta;   /* time since the previous frame (0 for the first) */
    uint8_t ts_digits;  /* decimals the source's clock has (0 to 9), as tshark shows them */
    uint16_t interface; /* 1 + the capture interface's number where the file names
                         * interfaces (pcapng: in its section, as tshark numbers them, at
                         * most 65534; an ERF record's port in a pcap file, numbered in
                         * order of appearance); 0 where it does not */
    uint16_t section;   /* pcapng: 1 + the section the frame is in (at most 65535); else 0 */
    const char *iface_name;     /* pcapng: the interface's if_name, or NULL; owned by the */
    const char *iface_desc;     /* source (if_description, or NULL) until it is closed */
};

static inline struct rs_time
rs_frame_time(const struct rs_frame *f)
{
    return (struct rs_time){f->ts_sec, (int32_t)f->ts_nsec};
}

struct rs_packet;
/* The interface the frame came from, where its file names one: its number, with its name
 * written to name (size bytes; name may be NULL; "unknown" for a pcapng interface without
 * if_name, as tshark writes it); -1 where the file names none. */
int rs_frame_interface(const struct rs_packet *pkt, char *name, size_t size);

/* Layers, in the order they can appear in a frame. A layer is present when
 * all of its fixed part was captured; its span then lies inside caplen. */
enum rs_layer {
    RS_LAYER_ERF,
    RS_LAYER_ETH,
    RS_LAYER_VLAN,          /* outer 802.1Q / 802.1ad tag */
    RS_LAYER_VLAN2,         /* inner tag (QinQ) */
    RS_LAYER_SLL,           /* Linux cooked v1 or v2 */
    RS_LAYER_IPV4,
    RS_LAYER_IPV6,
    RS_LAYER_UDP,
    RS_LAYER_TCP,
    RS_LAYER_ARP,
    RS_LAYER_LRH,
    RS_LAYER_GRH,
    RS_LAYER_IB,            /* the IBA transport packet: BTH up to the ICRC */
    RS_LAYER_BTH,
    RS_LAYER_RDETH,
    RS_LAYER_DETH,
    RS_LAYER_XRCETH,
    RS_LAYER_RETH,
    RS_LAYER_ATOMICETH,
    RS_LAYER_AETH,
    RS_LAYER_ATOMICACKETH,
    RS_LAYER_IMMDT,
    RS_LAYER_IETH,
    RS_LAYER_CNP,           /* the 16 reserved bytes of a CNP */
    RS_LAYER_PAYLOAD,       /* IB payload without the pad */
    RS_LAYER_PAD,
    RS_LAYER_ICRC,
    RS_LAYER_VCRC,
    RS_LAYER_IPOIB,         /* IPoIB's 4-byte header, in front of an IP packet or ARP */
    RS_LAYER_ICMP,          /* an ICMP message, to the end of the IP packet as captured */
    RS_LAYER_ICMPV6,        /* an ICMPv6 message, likewise */
    RS_LAYER_COUNT
};

enum rs_encap {
    RS_ENCAP_NONE = 0,
    RS_ENCAP_ROCEV1,        /* Ethertype 0x8915: GRH, BTH */
    RS_ENCAP_ROCEV2,        /* UDP port 4791: BTH */
    RS_ENCAP_IB,            /* native InfiniBand: LRH [GRH] BTH */
    RS_ENCAP_IWARP
};

/* Checksum status values, Wireshark's convention. */
enum rs_cksum_status {
    RS_CKSUM_BAD = 0,
    RS_CKSUM_GOOD = 1,
    RS_CKSUM_UNVERIFIED = 2,
    RS_CKSUM_NOT_PRESENT = 3,
    RS_CKSUM_ILLEGAL = 4    /* a value the protocol forbids (UDP's zero over IPv6) */
};

/* Packet flags. */
#define RS_PKT_MALFORMED 0x0001u  /* truncated or inconsistent: see .problem */
#define RS_PKT_SNAPLEN 0x0002u    /* the capture cut the frame short */
#define RS_PKT_IP_FRAGMENT 0x0004u
#define RS_PKT_ICMP_QUOTE 0x0008u /* an ICMP error quotes a datagram: its headers give more
                                     occurrences of the same fields (rs_icmp_quote_view) */
#define RS_PKT_QUOTE_ROCE 0x0010u /* ... in which UDP port 4791 is RoCEv2, as outside */
#define RS_PKT_QUOTED 0x0020u     /* this view is such a quoted datagram */
#define RS_PKT_ICMP_4_4 0x0040u   /* ICMP as tshark 4.4 shows it: an echo's timestamp
                                     64-bit first and in ICMPv6 too, ICMPv6 codes named
                                     with a capital */
#define RS_PKT_QUOTE_APART 0x0080u /* the tree's view of a frame whose quote (ICMP_QUOTE,
                                      cleared there) it walks apart: frame.protocols still
                                      names the quote's protocols */
#define RS_PKT_CUT_FIRST 0x0100u  /* the first problem found is SNAPLEN's: tshark shows
                                     "[Packet size limited during capture: IB truncated]",
                                     not "[Malformed Packet: IB]" */
#define RS_PKT_IPV4_PART 0x0200u  /* an IPv4 header cut short: span[RS_LAYER_IPV4] holds the
                                     bytes there are, without the layer's bit, for the
                                     fields alone (rs_packet_fields_view) */
#define RS_PKT_LONG_ONLY 0x0400u  /* the one problem found is an IPv4 total length or IPv6
                                     payload length past the frame's end, or a UDP length
                                     past the IP payload: ours (MALFORMED, .problem), while
                                     tshark flags the length (expert items
                                     ip.bogus_ip_length, ipv6.plen_exceeds_framing,
                                     udp.length.bad) and reads on in the bytes there are,
                                     raising nothing */
#define RS_PKT_L4_PART 0x0800u    /* a UDP or TCP header cut short (pkt->ip_proto's): as
                                     RS_PKT_IPV4_PART, span[RS_LAYER_UDP or _TCP] holds the
                                     bytes tshark shows of it (ports, UDP's length) without
                                     the layer's bit (rs_packet_part_layer) */

struct rs_corr_view;
struct rs_facts;
struct rs_iwarp_view;
struct rs_stream_view;

struct rs_span {
    uint32_t off;
    uint32_t len;
};

struct rs_packet {
    const struct rs_frame *frame;
    uint64_t layers;                        /* bit (1 << rs_layer) per layer */
    struct rs_span span[RS_LAYER_COUNT];    /* valid where the bit is set */
    uint8_t encap;                          /* enum rs_encap */
    uint8_t opcode;                         /* BTH opcode, valid with RS_LAYER_BTH */
    uint8_t ip_proto;                       /* IPv4 protocol / IPv6 next header */
    uint8_t ecn;                            /* IP ECN bits (0..3) */
    uint16_t ethertype;                     /* innermost Ethertype, 0 when none */
    uint16_t flags;                         /* RS_PKT_* */
    const char *problem;                    /* why it is malformed (static text) */
    const char *stopped;                    /* the protocol tshark names for it ("IB") */
    uint32_t payload_len;                   /* IB payload bytes without pad, as declared */
    uint8_t icrc_status;                    /* enum rs_cksum_status */
    uint8_t vcrc_status;                    /* enum rs_cksum_status */
    uint32_t icrc_computed;                 /* as it would appear read little-endian */
    uint16_t vcrc_computed;
    const struct rs_facts *facts;           /* analysis results (analysis.h), or NULL */
    const struct rs_iwarp_view *iwarp;      /* MPA/DDP/RDMAP found (iwarp.h), or NULL */
    const struct rs_stream_view *stream;    /* TCP/UDP conversation (streams.h), or NULL */
    const struct rs_corr_view *corr;        /* the packet across captures (corr.h), or NULL */
    /* 0, or 1 + the one item (an ICMPv6 ND option or MLDv2 record, a TCP option, an
     * IPv6 option) whose fields (RS_FIELD_PER_ITEM) the view shows: the tree lists them
     * item by item, as Wireshark's does. */
    uint8_t item;
    /* Time since the last frame the display filter kept before this one
     * (frame.time_delta_displayed and -t dd's column): the pipeline's, computed in
     * capture order, else the frame's delta. */
    struct rs_time delta_shown;
};

static inline bool
rs_packet_has(const struct rs_packet *pkt, enum rs_layer layer)
{
    return (pkt->layers >> layer) & 1u;
}

/* The layer whose header, cut short, is kept for the fields alone (RS_PKT_IPV4_PART,
 * RS_PKT_L4_PART), or RS_LAYER_COUNT when none is. */
static inline enum rs_layer
rs_packet_part_layer(const struct rs_packet *pkt)
{
    if (pkt->flags & RS_PKT_IPV4_PART)
        return RS_LAYER_IPV4;
    if (pkt->flags & RS_PKT_L4_PART)
        return pkt->ip_proto == 6 /* IPPROTO_TCP */ ? RS_LAYER_TCP : RS_LAYER_UDP;
    return RS_LAYER_COUNT;
}

/* A TCP header the IP packet's end cuts short past its window (RS_PKT_L4_PART, 16 bytes or
 * more: a data offset past the segment, or an IP length past the frame): tshark reads it as
 * far as it goes (to the window, or the options there are), in its conversation (streams.c),
 * before its exception; fewer bytes, the ports alone. */
#define RS_TCP_CUT_READ 16u
static inline bool
rs_packet_tcp_cut(const struct rs_packet *pkt)
{
    return rs_packet_part_layer(pkt) == RS_LAYER_TCP &&
           pkt->span[RS_LAYER_TCP].len >= RS_TCP_CUT_READ;
}

/* Whether layer is there, or is the header cut short whose bytes the fields show. */
static inline bool
rs_packet_has_fields_of(const struct rs_packet *pkt, unsigned layer)
{
    return rs_packet_has(pkt, (enum rs_layer)layer) || rs_packet_part_layer(pkt) == layer;
}

/* The view the fields read pkt through: pkt itself, or for a header cut short
 * (RS_PKT_IPV4_PART, RS_PKT_L4_PART), a copy in view with the header's bytes as its layer,
 * whose fields show what they can, as tshark decodes such a header up to where it stops
 * (the flag stays: an IPv4 destination is not shown, tshark stopping in the options before
 * it; a UDP or TCP field only where the bytes kept hold it). */
static inline const struct rs_packet *
rs_packet_fields_view(const struct rs_packet *pkt, struct rs_packet *view)
{
    enum rs_layer part = rs_packet_part_layer(pkt);

    if (part == RS_LAYER_COUNT)
        return pkt;
    *view = *pkt;
    view->layers |= (uint64_t)1 << part;
    return view;
}

/* Whether the capture's snapshot length ended an IBA packet after its headers, in its
 * payload, pad or ICRC: tshark 4.0, finding fewer bytes than the packet's length, then
 * decodes nothing after the headers (no data, no ICRC, no exception item) and writes
 * "Invalid Packet Length from LRH! [Malformed Packet]" in Info. */
static inline bool
rs_packet_ib_payload_cut(const struct rs_packet *pkt)
{
    return (pkt->flags & RS_PKT_SNAPLEN) && rs_packet_has(pkt, RS_LAYER_BTH) &&
           rs_packet_has(pkt, RS_LAYER_PAYLOAD) && !rs_packet_has(pkt, RS_LAYER_ICRC);
}

static inline const uint8_t *
rs_packet_at(const struct rs_packet *pkt, enum rs_layer layer)
{
    return pkt->frame->data + pkt->span[layer].off;
}

/* Length of the packet on the wire and as captured. An ERF record's own
 * header is not part of the packet: these report what the record holds,
 * as Wireshark does. */
static inline uint32_t
rs_packet_wire_len(const struct rs_packet *pkt)
{
    if (rs_packet_has(pkt, RS_LAYER_ERF)) {
        const uint8_t *erf = pkt->frame->data;
        return (uint32_t)erf[14] << 8 | erf[15];
    }
    return pkt->frame->len;
}

static inline uint32_t
rs_packet_cap_len(const struct rs_packet *pkt)
{
    if (rs_packet_has(pkt, RS_LAYER_ERF))
        return pkt->frame->caplen - pkt->span[RS_LAYER_ERF].len;
    return pkt->frame->caplen;
}

#endif /* ROCESHARK_PACKET_H */
