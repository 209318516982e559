#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_l4_partial.py OUT.pcap : TCP and UDP headers a decoder can read only in part.

Each frame is a malformed packet that tshark 4.0 decodes as far as it goes (the issue's
"a malformed packet is decoded as far as it goes"): a TCP data offset under 20 bytes (16, 0,
and 16 with data after it), one past the segment (60 in a 24-byte segment, over IPv4 and
IPv6), and UDP and TCP headers cut short after an IPv4 total length or IPv6 payload length
that runs past the frame (a UDP header of 2, 4 and 6 bytes, a TCP header of 4, 13 and 16).
The frames are not padded to Ethernet's 60 bytes, so the headers end where the frame does.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ibframes import PcapWriter, _ones_sum  # noqa: E402

MAC_A = bytes.fromhex("02000000000a")
MAC_B = bytes.fromhex("02000000000b")
V4_A, V4_B = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
V6_A = bytes.fromhex("fd000000000000000000000000000001")
V6_B = bytes.fromhex("fd000000000000000000000000000002")
TCP, UDP = 6, 17
SYN, ACK, PSH = 0x02, 0x10, 0x08


def csum(data):
    return (~_ones_sum(data)) & 0xFFFF


def ipv4(proto, payload, total=None, ident=0x1234):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload) if total is None else total,
                    ident, 0x4000, 64, proto, 0, V4_A, V4_B)
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload, 0x0800


def ipv6(proto, payload, plen=None):
    h = struct.pack("!IHBB", 6 << 28, len(payload) if plen is None else plen, proto, 64)
    return h + V6_A + V6_B + payload, 0x86DD


def tcp(doff_bytes, flags, options=b"", data=b"", seq=0, ack=0, sport=40000, dport=80):
    """A TCP segment whose data offset says doff_bytes, whatever its real length; the
    checksum over an IPv4 pseudo-header of the segment as built."""
    seg = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (doff_bytes // 4) << 4, flags,
                      65535, 0, 0) + options + data
    pseudo = V4_A + V4_B + struct.pack("!BBH", 0, TCP, len(seg))
    return seg[:16] + struct.pack("!H", csum(pseudo + seg)) + seg[18:]


def udp(data, sport=40000, dport=53):
    return struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data


def eth(l3_and_type):
    l3, ethertype = l3_and_type
    return MAC_B + MAC_A + struct.pack("!H", ethertype) + l3


def frames():
    mss = struct.pack("!BBH", 2, 4, 1460)
    whole_udp = udp(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00")
    whole_tcp = tcp(20, PSH | ACK, data=b"GET / HTTP/1.0\r\n", seq=1, ack=1)
    return [
        # a data offset under 20: 16, 0, and 16 with data bytes after the 20-byte header
        eth(ipv4(TCP, tcp(16, SYN))),
        eth(ipv4(TCP, tcp(0, SYN))),
        eth(ipv4(TCP, tcp(16, PSH | ACK, data=b"hello", seq=1, ack=1))),
        # a data offset of 60 in a segment of 24 bytes, over IPv4 and IPv6
        eth(ipv4(TCP, tcp(60, SYN, options=mss))),
        eth(ipv6(TCP, tcp(60, SYN, options=mss))),
        # headers cut after an IPv4 total length past the frame (what it says: the whole)
        eth(ipv4(UDP, whole_udp[:2], total=20 + len(whole_udp))),
        eth(ipv4(UDP, whole_udp[:4], total=20 + len(whole_udp))),
        eth(ipv4(UDP, whole_udp[:6], total=20 + len(whole_udp))),
        eth(ipv4(TCP, whole_tcp[:4], total=20 + len(whole_tcp))),
        eth(ipv4(TCP, whole_tcp[:13], total=20 + len(whole_tcp))),
        eth(ipv4(TCP, whole_tcp[:16], total=20 + len(whole_tcp))),
        # ... after an IPv6 payload length past the frame
        eth(ipv6(UDP, whole_udp[:6], plen=len(whole_udp))),
        eth(ipv6(TCP, whole_tcp[:13], plen=len(whole_tcp))),
    ]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n")[0])
    w = PcapWriter(sys.argv[1], 1)
    for f in frames():
        w.write(f)
    w.close()


if __name__ == "__main__":
    main()
