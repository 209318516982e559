/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inject.h - packets described in words, built by the encoder that shares
 * the decoder's tables (encode.h), and sent.
 *
 * A packet spec names its layers and their fields as Wireshark names them,
 *
 *     eth / vlan(id=5) / ip(dst=10.0.0.2, dsfield.ecn=3) / udp(srcport=rand) /
 *     bth(opcode="RC RDMA Write Only", destqp=0x11, psn=inc(100), a=1) /
 *     reth(va=0x1000, r_key=0x1234, dmalen=64) / payload(len=64, fill=rand)
 *
 * or as flat words with full names (infiniband.bth.psn=7 ip.dst=10.0.0.2).
 * The layers say the encapsulation: eth / ip|ipv6 / udp / bth is RoCEv2,
 * eth / grh / bth RoCEv1, lrh [/ grh] / bth native InfiniBand; vlan(...)
 * and ieee8021ad(...) stack after eth. Any field the decoder reads at a
 * fixed place is settable, by the last part of its name inside its layer
 * or by its full name, with a number, a value name as -Y takes it
 * (opcode="RC Send Only"), an address, or a generator: inc(start[,step]),
 * dec(start[,step]), rand, rand(lo,hi), list(a,b,...), seq(lo..hi); values
 * wrap at the field's width (a PSN after 2^24 - 1 is 0).
 *
 * What the spec leaves unset is what a receiver accepts: lengths, pad
 * count, IPv4 checksum, UDP length and ICRC/VCRC are computed, the UDP
 * checksum is 0 on IPv4. What it sets wins, lies included (ip.len, padcnt,
 * icrc=bad or icrc=0x..., pad(count=N)): fields are written into the built
 * packet, then the checksums and CRCs the spec did not set are computed
 * over what is there.
 */
#ifndef ROCESHARK_INJECT_H
#define ROCESHARK_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include <roceshark/dissectors/common.h>
#include <roceshark/dissectors/encode.h>
#include <roceshark/dissectors/encode_iwarp.h>

#define RS_INJECT_MAX_PAYLOAD 9000
#define RS_INJECT_MAX_FRAME (RS_INJECT_MAX_PAYLOAD + 256)
#define RS_INJECT_MAX_SETS 48
#define RS_INJECT_MAX_VLANS 4
#define RS_INJECT_MAX_LIST 32
#define RS_INJECT_MAX_PATTERN 64

enum rs_inject_encap {
    RS_INJECT_ROCEV2,       /* Ethernet, IPv4 or IPv6, UDP 4791 */
    RS_INJECT_ROCEV1,       /* Ethernet, Ethertype 0x8915, GRH */
    RS_INJECT_IB,           /* LRH [GRH]: native InfiniBand (ERF type 21 in files) */
    RS_INJECT_IWARP         /* Ethernet, IPv4 or IPv6, TCP: an MPA frame or an FPDU */
};

/* How a field's value is produced, packet after packet. */
enum rs_inject_gen_kind {
    RS_GEN_CONST,           /* a */
    RS_GEN_INC,             /* a, a+b, a+2b, ... */
    RS_GEN_DEC,             /* a, a-b, ... */
    RS_GEN_RAND,            /* uniform in [a, b] */
    RS_GEN_LIST,            /* list[0], list[1], ..., then again */
    RS_GEN_SEQ              /* a, a+1, ..., b, then a again */
};

struct rs_inject_gen {
    uint8_t kind;
    uint8_t n;              /* entries of list */
    uint64_t a, b;
    uint64_t max;           /* the field's largest value: values wrap past it */
    uint64_t list[RS_INJECT_MAX_LIST];
};

/* What a set field writes. */
enum rs_inject_target {
    RS_INJECT_T_FIELD,      /* a registry field, written into the built bytes */
    RS_INJECT_T_OPCODE,     /* the BTH opcode: it decides the headers, so before building */
    RS_INJECT_T_PAYLOAD_LEN,/* payload(len=...): likewise */
    RS_INJECT_T_MEMBER,     /* a member of the template (TCP, MPA frame fields) */
    RS_INJECT_T_IWARP       /* a member of the FPDU's struct rs_iwarp_fields */
};

struct inject_member_key;

struct rs_inject_set {
    uint8_t target;         /* enum rs_inject_target */
    uint8_t tag;            /* vlan.* and ieee8021ad.*: which tag (0 the outermost) */
    int field;              /* registry id (RS_INJECT_T_FIELD) */
    const struct inject_member_key *member;     /* RS_INJECT_T_MEMBER and _IWARP */
    uint8_t addr[16];       /* an address value (Ethernet, IPv4, IPv6, GID) */
    struct rs_inject_gen gen;
};

enum rs_inject_fill {
    RS_FILL_COUNT,          /* 00 01 02 ... (the default) */
    RS_FILL_ZERO,
    RS_FILL_ONES,
    RS_FILL_RAND,           /* new random bytes for every packet */
    RS_FILL_PATTERN         /* fill=0xdeadbeef: the bytes, repeated */
};

struct rs_inject_vlan {
    uint16_t tpid;          /* 0x8100, or 0x88a8 for ieee8021ad(...) */
    uint16_t tci;
};

/* One packet template: a parsed spec line. */
struct rs_inject_packet {
    uint8_t encap;          /* enum rs_inject_encap */
    bool ib_grh;            /* native IB with a GRH (LNH 3) */
    uint8_t eth_src[6], eth_dst[6];
    uint8_t n_vlans;
    struct rs_inject_vlan vlan[RS_INJECT_MAX_VLANS];
    struct rs_roce_route route;     /* RoCEv2; family also picks GID forms for -i */
    struct rs_grh_fields grh;       /* RoCEv1 and routed IB */
    struct rs_lrh_fields lrh;
    struct rs_ib_fields f;
    /* iWARP: the TCP header (sequence numbers follow the flow unless given), the MPA
     * frame's fields, and the FPDU's CRC choices; the DDP and RDMAP fields are sets. */
    struct rs_tcp_route tcp;
    bool tcp_seq_given, tcp_ack_given;
    uint8_t mpa_frame;              /* 0 an FPDU, 1 an MPA Request, 2 an MPA Reply */
    bool mpa_crc_flag, mpa_marker_flag, mpa_rej_flag;
    uint8_t mpa_rev;
    bool iw_no_crc, iw_bad_crc;
    uint8_t payload[RS_INJECT_MAX_PAYLOAD];
    uint32_t payload_len;
    uint8_t fill;                   /* enum rs_inject_fill */
    uint8_t pattern[RS_INJECT_MAX_PATTERN];
    uint8_t pattern_len;
    unsigned keep;                  /* RS_ENCODE_KEEP_*: checksums and CRCs the spec set */
    bool bad_icrc, bad_vcrc;
    struct rs_inject_set sets[RS_INJECT_MAX_SETS];
    unsigned n_sets;
    uint32_t repeat;                /* packets per pass ("repeat N" at the end of the line) */
    uint64_t emitted;               /* packets built so far: the generators' index */
    uint32_t psn_offset;            /* added to the PSN as written (--psn-step per pass) */
    uint32_t given;                 /* RS_INJECT_GAVE_* */
};

#define RS_INJECT_GAVE_ETH_SRC 0x1u
#define RS_INJECT_GAVE_ETH_DST 0x2u
#define RS_INJECT_GAVE_RANDOM 0x4u      /* a rand generator or fill=rand: --seed matters */
#define RS_INJECT_GAVE_OPCODE 0x8u
#define RS_INJECT_GAVE_BECN 0x10u

/* Defaults: 02:00:00:00:00:01 -> :02, 10.0.0.1 -> 10.0.0.2, UDP 49152 -> 4791, DF, TTL 64,
 * P_Key 0xffff, RC SEND Only, destination QP 0x11, PSN 0, no payload; LID 1 -> 2 and the
 * IPv4-mapped GIDs of the addresses for the IB and RoCEv1 forms. */
void rs_inject_packet_init(struct rs_inject_packet *p);

/* Applies one spec line to p (which keeps what the line does not set: -F lines start
 * from the command line's). where and line name the source for errors ("command
 * line", a file name). Returns 0, or RS_EINVAL with err
 * "<where>:<line>:<col>: <why>", naming the layer and the field. */
int rs_inject_spec_parse(struct rs_inject_packet *p, const char *text, const char *where,
                         unsigned line, char *err);

/* A built packet. */
struct rs_inject_frame {
    uint8_t *data;
    uint32_t len;
    uint32_t l3;            /* where the IP header (or the GRH, or the LRH) starts */
    uint8_t encap;          /* enum rs_inject_encap */
};

/* What a run of packets shares: the random source, and the TCP flows whose sequence
 * numbers iWARP packets continue. */
#define RS_INJECT_MAX_FLOWS 64
struct rs_inject_run {
    GRand *rng;
    unsigned n_flows;
    uint64_t flows_restarted;   /* flows forgotten for new ones when the table was full:
                                   their sequence numbers start over if they come back */
    struct {
        uint8_t family;
        uint8_t src[16], dst[16];
        uint16_t sport, dport;
        uint32_t next_seq;
    } flows[RS_INJECT_MAX_FLOWS];
};

/* Builds p's next packet into buf (RS_INJECT_MAX_FRAME bytes): generators advance,
 * random values come from run->rng. Returns 0, or RS_EINVAL with err when it does
 * not fit. */
int rs_inject_next(struct rs_inject_packet *p, struct rs_inject_run *run, uint8_t *buf,
                   struct rs_inject_frame *out, char *err);

/* --- Senders --- */

struct rs_inject_sender;

enum rs_inject_format {
    RS_INJECT_PCAP,
    RS_INJECT_PCAPNG
};

/* A capture file ("-" for standard output): Ethernet frames, or ERF type 21 records
 * when ib (native InfiniBand packets), stamped with the time each was sent. */
int rs_inject_open_file(const char *path, enum rs_inject_format format, bool ib,
                        struct rs_inject_sender **out, char *err);
/* A UDP socket bound to src:sport (IPv4 or IPv6 by family): the kernel writes the
 * IP and UDP headers, we the rest. The ICRC covers the IPv4 identification and
 * flags, so IPv4 packets must have ip.id 0 and DF (what Linux sends unconnected DF
 * datagrams with); other packets, and packets from another address or port, are
 * refused. */
int rs_inject_open_udp(uint8_t family, const uint8_t *src, uint16_t sport,
                       struct rs_inject_sender **out, char *err);
/* An interface, through libpcap's pcap_inject(): frames go out as built. */
int rs_inject_open_iface(const char *ifname, struct rs_inject_sender **out, char *err);
/* Sends one packet (over UDP it may wait in a batch until the batch is full or
 * rs_inject_flush()). RS_EINVAL when it cannot go this way, RS_EIO on a failed write. */
int rs_inject_send(struct rs_inject_sender *s, const struct rs_inject_frame *fr, char *err);
/* Sends what waits in the batch. */
int rs_inject_flush(struct rs_inject_sender *s, char *err);
/* Closes; *sent (may be NULL) gets the packets that went. Returns the error of the
 * last flush. Frees s. */
int rs_inject_close(struct rs_inject_sender *s, uint64_t *sent, char *err);

/* --- Addresses of an interface (-i) --- */

/* The interface's own MAC address. */
int rs_inject_iface_mac(const char *ifname, uint8_t mac[6], char *err);
/* The MAC address of the neighbour that has ip (4 or 16 bytes by family) on ifname,
 * from the kernel's neighbour table. RS_ENOENT when there is no entry. */
int rs_inject_neighbour_mac(const char *ifname, uint8_t family, const uint8_t *ip,
                            uint8_t mac[6], char *err);

#endif /* ROCESHARK_INJECT_H */
