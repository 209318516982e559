#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ICMP and ICMPv6 messages built by scapy, an independent generator: errors quoting a
datagram (a RoCEv2 packet cut after 8 bytes of UDP as RFC 792 allows and whole, TCP cut after
8 bytes and whole, a header cut short, IPv6/UDP and IPv6/TCP in a packet too big, an
unreachable, a time exceeded and a parameter problem), a redirect, a source quench and a
parameter problem of each kind; ICMPv6 redirects, router advertisements with prefix, MTU
and link-layer options, and MLDv1 and MLDv2 messages; echoes with 32- and 64-bit timestamps.
Usage: gen_icmp_scapy.py OUT.pcap"""
import struct
import sys

from scapy.all import (ICMP, IP, IPv6, TCP, UDP, Ether, ICMPv6DestUnreach, ICMPv6MLDone,
                       ICMPv6MLQuery, ICMPv6MLReport, ICMPv6MLReport2, ICMPv6MLDMultAddrRec,
                       ICMPv6NDOptDstLLAddr, ICMPv6NDOptMTU, ICMPv6NDOptPrefixInfo,
                       ICMPv6NDOptRedirectedHdr, ICMPv6NDOptSrcLLAddr, ICMPv6ND_RA,
                       ICMPv6ND_Redirect, ICMPv6PacketTooBig, ICMPv6ParamProblem,
                       ICMPv6TimeExceeded, Raw, wrpcap)

A, B, R = "10.0.0.1", "10.0.0.2", "10.0.9.254"
A6, B6, R6 = "fe80::1", "fe80::2", "fe80::fe"
T0 = 1700000000
ETH = Ether(src="02:00:00:00:00:0b", dst="02:00:00:00:00:0a")
# A BTH (RC Send Only to QP 0x12, PSN 10), 16 payload bytes and an ICRC field.
ROCE = bytes.fromhex("04400000000000120000000a") + bytes(range(16)) + bytes(4)


def main():
    roce = bytes(IP(src=A, dst=B, ttl=1, id=5) / UDP(sport=50000, dport=4791) / Raw(ROCE))
    tcp = bytes(IP(src=A, dst=B, ttl=1) / TCP(sport=40001, dport=80, flags="S", seq=1000))
    tcp_ack = bytes(IP(src=A, dst=B, ttl=1) / TCP(sport=40002, dport=40123, flags="PA",
                                                   seq=7777, ack=4242, window=512) / Raw(b"xy"))
    roce6 = bytes(IPv6(src=A6, dst=B6, hlim=1) / UDP(sport=40000, dport=4791) / Raw(ROCE))
    tcp6 = bytes(IPv6(src=A6, dst=B6, hlim=1) / TCP(sport=40001, dport=80, seq=1000, ack=77,
                                                     flags="A"))
    v4 = ETH / IP(src=R, dst=A)
    v6 = ETH / IPv6(src=R6, dst=A6)
    frames = [
        # ICMP errors quoting 8 bytes past the IP header, and more.
        ETH / IP(src=B, dst=A) / ICMP(type=3, code=3) / roce[:28],
        ETH / IP(src=B, dst=A) / ICMP(type=3, code=3) / roce,
        v4 / ICMP(type=11, code=0) / tcp[:28],
        v4 / ICMP(type=11, code=0) / tcp,
        v4 / ICMP(type=11, code=1) / tcp_ack,
        v4 / ICMP(type=12, code=0, ptr=8) / tcp[:28],
        v4 / ICMP(type=12, code=2, ptr=2) / roce[:28],
        v4 / ICMP(type=4, code=0) / tcp[:28],
        v4 / ICMP(type=5, code=1, gw="10.0.0.3") / roce[:28],
        v4 / ICMP(type=5, code=3, gw="10.0.0.4") / tcp[:28],
        # Quotes that end inside the UDP header, inside the IP header.
        v4 / ICMP(type=3, code=1) / roce[:24],
        v4 / ICMP(type=3, code=0) / roce[:10],
        # ICMPv6 errors.
        v6 / ICMPv6PacketTooBig(mtu=1280) / roce6,
        v6 / ICMPv6DestUnreach(code=4) / roce6[:48],
        v6 / ICMPv6TimeExceeded() / tcp6,
        v6 / ICMPv6TimeExceeded(code=1) / tcp6[:48],
        v6 / ICMPv6ParamProblem(code=0, ptr=6) / roce6[:44],
        v6 / ICMPv6ParamProblem(code=1, ptr=40) / roce6[:30],
        # Neighbor Discovery: a router advertisement, redirects.
        ETH / IPv6(src=R6, dst="ff02::1") / ICMPv6ND_RA(chlim=64, M=1, O=0, H=1, prf=1, P=1,
                                                        routerlifetime=1800, reachabletime=30000,
                                                        retranstimer=1000)
        / ICMPv6NDOptSrcLLAddr(lladdr="02:00:00:00:00:fe") / ICMPv6NDOptMTU(mtu=4200)
        / ICMPv6NDOptPrefixInfo(prefixlen=64, L=1, A=1, R=0, validlifetime=86400,
                                preferredlifetime=14400, prefix="2001:db8:1::"),
        ETH / IPv6(src=R6, dst="ff02::1") / ICMPv6ND_RA(chlim=0, M=0, O=1, prf=3,
                                                        routerlifetime=0),
        ETH / IPv6(src=R6, dst=A6) / ICMPv6ND_Redirect(tgt="fe80::3", dst="2001:db8::9")
        / ICMPv6NDOptDstLLAddr(lladdr="02:00:00:00:00:03")
        / ICMPv6NDOptRedirectedHdr(pkt=IPv6(src=A6, dst="2001:db8::9") / UDP(dport=4791)),
        ETH / IPv6(src=R6, dst=A6) / ICMPv6ND_Redirect(tgt="fe80::4", dst="2001:db8::8"),
        # MLD: a general query, a report, a done, an MLDv2 report with two records.
        ETH / IPv6(src=R6, dst="ff02::1") / ICMPv6MLQuery(mrd=10000),
        ETH / IPv6(src=A6, dst="ff02::16") / ICMPv6MLReport(mladdr="ff02::1:ff00:1"),
        ETH / IPv6(src=A6, dst="ff02::2") / ICMPv6MLDone(mladdr="ff02::1:ff00:1"),
        ETH / IPv6(src=A6, dst="ff02::16") / ICMPv6MLReport2(records=[
            ICMPv6MLDMultAddrRec(rtype=4, dst="ff02::1:ff00:1"),
            ICMPv6MLDMultAddrRec(rtype=1, dst="ff05::2", sources=["2001:db8::1", "2001:db8::2"]),
        ]),
    ]
    # Echoes whose data opens with a timestamp: tshark 4.0 reads 32-bit seconds and
    # microseconds, 4.4 first 64-bit ones (-o compat:4.4), in either byte order.
    pad = bytes(range(16, 56))
    t = T0 + len(frames) // 1000
    for data in (struct.pack("<qq", t, 250000) + pad, struct.pack(">qq", t, 250000) + pad,
                 struct.pack("<qq", t, 250000), struct.pack("<qq", t, 1000000) + pad,
                 struct.pack("<II", t, 250000) + bytes(8) + pad,
                 struct.pack(">II", t, 250000) + pad, struct.pack("<qq", t, 5)[:12]):
        frames.append(ETH / IP(src=A, dst=B) / ICMP(type=8, id=7, seq=len(frames)) / Raw(data))
    packets = [Ether(bytes(f)) for f in frames]
    for i, p in enumerate(packets):
        p.time = T0 + i / 1000
    wrpcap(sys.argv[1], packets)


if __name__ == "__main__":
    main()
