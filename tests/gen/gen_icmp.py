#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ICMP and ICMPv6 over Ethernet, built by hand: echo requests and replies (IPv4 and IPv6,
with and without a timestamp in the first 8 data bytes, big- and little-endian, one a little
before the frame's time, one a day off), destination unreachable and time exceeded quoting a
UDP datagram, a fragmentation-needed one, neighbor solicitations and advertisements with
Ethernet link-layer address options, a reply without its request and a bad checksum of each
kind. Usage: gen_icmp.py OUT.pcap"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ibframes import PcapWriter, _ones_sum  # noqa: E402

MAC_A = bytes.fromhex("02000000000a")
MAC_B = bytes.fromhex("02000000000b")
V4_A, V4_B, V4_R = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]), bytes([10, 0, 9, 254])
V6_A = bytes.fromhex("fe800000000000000000000000000001")
V6_B = bytes.fromhex("fe800000000000000000000000000002")
V6_B_SOLICITED = bytes.fromhex("ff0200000000000000000001ff000002")
T0 = 1700000000


def csum(data):
    return (~_ones_sum(data)) & 0xFFFF


def with_csum(msg, pseudo=b"", at=2, bad=False):
    c = csum(pseudo + msg)
    if bad:
        c ^= 0x1234
    return msg[:at] + struct.pack(">H", c) + msg[at + 2:]


def eth(dst, src, etype, payload):
    frame = dst + src + struct.pack(">H", etype) + payload
    return frame + bytes(max(0, 60 - len(frame)))


def ipv4(src, dst, proto, payload, ttl=64, ident=1):
    h = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, 0x4000, ttl, proto,
                    0, src, dst)
    return with_csum(h, at=10) + payload


def ipv6(src, dst, nh, payload, hlim=64):
    return struct.pack(">IHBB16s16s", 6 << 28, len(payload), nh, hlim, src, dst) + payload


def icmp4(typ, code, rest, body, bad=False):
    return with_csum(struct.pack(">BBH", typ, code, 0) + rest + body, bad=bad)


def icmp6(src, dst, typ, code, rest, body, bad=False):
    msg = struct.pack(">BBH", typ, code, 0) + rest + body
    pseudo = src + dst + struct.pack(">IxxxB", len(msg), 58)
    return with_csum(msg, pseudo, bad=bad)


def timestamp(sec, usec, little=False):
    return struct.pack("<II" if little else ">II", sec, usec)


def udp_quote(src, dst):
    udp = struct.pack(">HHHH", 40000, 33434, 8 + 12, 0) + b"traceroute.."
    return ipv4(src, dst, 17, udp, ttl=1, ident=77)


def main():
    out = sys.argv[1]
    w = PcapWriter(out, 1)
    pad = bytes(range(16, 56))
    frames = []     # (time offset in seconds, frame)

    def v4(t, src, dst, msg, mac=(MAC_B, MAC_A), ttl=64):
        frames.append((t, eth(mac[0], mac[1], 0x0800, ipv4(src, dst, 1, msg, ttl=ttl))))

    def v6(t, src, dst, msg, mac=(MAC_B, MAC_A)):
        frames.append((t, eth(mac[0], mac[1], 0x86DD, ipv6(src, dst, 58, msg))))

    # IPv4 echoes: big-endian stamp, little-endian stamp, a stamp 2 s after the frame
    # (kept), one a day before (not a stamp), and no data at all.
    for seq, data in enumerate([timestamp(T0 + 1, 250000) + pad,
                                timestamp(T0 + 2, 999999, little=True) + pad,
                                timestamp(T0 + 5, 0) + pad,
                                timestamp(T0 + 3 - 86400, 0) + pad,
                                b""], 1):
        t = seq
        req = icmp4(8, 0, struct.pack(">HH", 0x1234, seq), data)
        v4(t + 0.000100, V4_A, V4_B, req)
        v4(t + 0.000350, V4_B, V4_A, icmp4(0, 0, struct.pack(">HH", 0x1234, seq), data),
           mac=(MAC_A, MAC_B), ttl=63)
    # A reply whose request is not in the capture, and a request with a bad checksum.
    v4(7.0, V4_B, V4_A, icmp4(0, 0, struct.pack(">HH", 0x99, 1), pad), mac=(MAC_A, MAC_B))
    v4(7.1, V4_A, V4_B, icmp4(8, 0, struct.pack(">HH", 0x1234, 9), pad, bad=True))
    # Errors quoting a UDP datagram: port unreachable, TTL exceeded, fragmentation needed.
    quote = udp_quote(V4_A, V4_B)
    v4(8.0, V4_B, V4_A, icmp4(3, 3, bytes(4), quote), mac=(MAC_A, MAC_B))
    v4(8.1, V4_R, V4_A, icmp4(11, 0, bytes(4), quote), mac=(MAC_A, MAC_B))
    v4(8.2, V4_R, V4_A, icmp4(3, 4, struct.pack(">HH", 0, 1400), quote), mac=(MAC_A, MAC_B))

    # IPv6: NS with a source link-layer option, NA (solicited, override) with a target one.
    ns = icmp6(V6_A, V6_B_SOLICITED, 135, 0, bytes(4), V6_B + bytes([1, 1]) + MAC_A)
    v6(10.0, V6_A, V6_B_SOLICITED, ns, mac=(bytes.fromhex("3333ff000002"), MAC_A))
    na = icmp6(V6_B, V6_A, 136, 0, struct.pack(">I", 0x60000000), V6_B + bytes([2, 1]) + MAC_B)
    v6(10.001, V6_B, V6_A, na, mac=(MAC_A, MAC_B))
    # A router's NA without options, and an NS with a bad checksum.
    na = icmp6(V6_B, V6_A, 136, 0, struct.pack(">I", 0x80000000), V6_B)
    v6(10.002, V6_B, V6_A, na, mac=(MAC_A, MAC_B))
    ns = icmp6(V6_A, V6_B, 135, 0, bytes(4), V6_B, bad=True)
    v6(10.003, V6_A, V6_B, ns)
    # Echoes, with the data ping6 sends (a stamp ICMPv6 does not look for).
    for seq in range(3):
        data = timestamp(T0 + 11 + seq, 5, little=True) + pad
        rest = struct.pack(">HH", 0x4242, seq)
        v6(11.0 + seq, V6_A, V6_B, icmp6(V6_A, V6_B, 128, 0, rest, data))
        if seq != 1:    # one request goes unanswered
            v6(11.0004 + seq, V6_B, V6_A, icmp6(V6_B, V6_A, 129, 0, rest, data),
               mac=(MAC_A, MAC_B))
    v6(14.0, V6_A, V6_B, icmp6(V6_A, V6_B, 128, 0, struct.pack(">HH", 1, 1), pad, bad=True))
    # Port unreachable and hop limit exceeded, quoting an IPv6 UDP datagram.
    quote6 = ipv6(V6_A, V6_B, 17, struct.pack(">HHHH", 40000, 33434, 8, 0), hlim=1)
    v6(15.0, V6_B, V6_A, icmp6(V6_B, V6_A, 1, 4, bytes(4), quote6), mac=(MAC_A, MAC_B))
    v6(15.1, V6_B, V6_A, icmp6(V6_B, V6_A, 3, 0, bytes(4), quote6), mac=(MAC_A, MAC_B))

    for t, frame in frames:
        sec = T0 + int(t)
        usec = int(round((t - int(t)) * 1e6))
        w.f.write(struct.pack("<IIII", sec, usec, len(frame), len(frame)) + frame)
    w.f.close()


if __name__ == "__main__":
    main()
