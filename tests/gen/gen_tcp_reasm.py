#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_tcp_reasm.py - captures/tcp/tcp_reasm.pcap: HTTP messages and TLS records over TCP
segments, as TCP's desegmentation takes them (docs/limits.md), one conversation each:

  1. port 80: a GET, and its response (text/plain) over 3 segments;
  2. port 8080: a POST whose binary body (application/octet-stream) runs over 3 segments;
  3. port 443: a TLS record over 3 segments, then a segment that ends a record and begins
     the next, which the following segment ends;
  4. port 80: a response over 3 segments whose middle one was not captured (a gap);
  5. port 80: a response over 3 segments whose middle one is sent again (a retransmission).

Usage: gen_tcp_reasm.py OUT.pcap"""
import struct
import sys

CLIENT_MAC = bytes.fromhex("020000000001")
SERVER_MAC = bytes.fromhex("020000000002")


def ones_sum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


class Conn:
    """One TCP connection: the client at 10.0.0.1, the server at 10.0.0.2."""

    def __init__(self, out, cport, sport, isn_c, isn_s):
        self.out = out
        self.ports = (cport, sport)
        self.addrs = (bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
        self.macs = (CLIENT_MAC, SERVER_MAC)
        self.next = [isn_c, isn_s]
        self.ip_id = [0x100, 0x200]

    def frame(self, d, payload=b"", flags=0x18, seq=None, advance=True, record=True):
        if seq is None:
            seq = self.next[d]
        ack = self.next[1 - d] if flags & 0x10 else 0
        tcp = struct.pack("!HHIIBBHHH", self.ports[d], self.ports[1 - d], seq & 0xFFFFFFFF,
                          ack & 0xFFFFFFFF, 5 << 4, flags, 8192, 0, 0)
        self.ip_id[d] += 1
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), self.ip_id[d],
                         0x4000, 64, 6, 0, self.addrs[d], self.addrs[1 - d])
        ip = ip[:10] + struct.pack("!H", ~ones_sum(ip) & 0xFFFF) + ip[12:]
        pseudo = self.addrs[d] + self.addrs[1 - d] + struct.pack("!BBH", 0, 6,
                                                                 len(tcp) + len(payload))
        csum = ~ones_sum(pseudo + tcp + payload) & 0xFFFF
        tcp = tcp[:16] + struct.pack("!H", csum) + tcp[18:]
        eth = self.macs[1 - d] + self.macs[d] + b"\x08\x00"
        if advance:
            self.next[d] = seq + len(payload) + (1 if flags & 0x03 else 0)
        if record:
            self.out.append(eth + ip + tcp + payload)

    def handshake(self):
        self.frame(0, flags=0x02)
        self.frame(1, flags=0x12)
        self.frame(0, flags=0x10)

    def segments(self, d, data, cuts):
        """data from direction d in segments cut at the given offsets."""
        points = [0] + list(cuts) + [len(data)]
        return [data[a:b] for a, b in zip(points, points[1:])]


def http_response(body, ctype):
    head = ("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
            % (ctype, len(body))).encode()
    return head + body


def tls_record(ctype, n, fill):
    return bytes([ctype, 3, 3]) + struct.pack("!H", n) + bytes((fill + i) & 0xFF
                                                               for i in range(n))


def get_and_response(out, cport, isns, path, body, middle):
    """A GET and its text/plain response in 3 segments, the middle one sent by middle(c, seg)."""
    c = Conn(out, cport, 80, *isns)
    c.handshake()
    c.frame(0, b"GET %s HTTP/1.1\r\nHost: example\r\n\r\n" % path)
    segs = c.segments(1, http_response(body, "text/plain"), (700, 1400))
    c.frame(1, segs[0])
    middle(c, segs[1])
    c.frame(1, segs[2])
    c.frame(0, flags=0x10)


def sent_again(c, seg):
    seq = c.next[1]
    c.frame(1, seg)
    c.frame(1, seg, seq=seq, advance=False)


def build():
    out = []
    text = b"".join(b"line %03d of the plain text body\n" % i for i in range(60))
    binary = bytes((i * 7 + 3) & 0xFF for i in range(2500))

    get_and_response(out, 40001, (0x1000, 0x9000), b"/index.txt", text,
                     lambda c, seg: c.frame(1, seg))

    c = Conn(out, 40002, 8080, 0x2000, 0xA000)
    c.handshake()
    post = (b"POST /upload HTTP/1.1\r\nHost: example\r\nContent-Type: application/octet-stream"
            b"\r\nContent-Length: %d\r\n\r\n" % len(binary)) + binary
    for seg in c.segments(0, post, (1000, 2000)):
        c.frame(0, seg)
    c.frame(1, flags=0x10)

    c = Conn(out, 40003, 443, 0x3000, 0xB000)
    c.handshake()
    first = tls_record(0x17, 3000, 1)
    second = tls_record(0x17, 1200, 9)
    third = tls_record(0x17, 900, 17)
    stream = first + second + third
    for seg in c.segments(1, stream, (1200, 2400, 3600, 4800)):
        c.frame(1, seg)
    c.frame(0, flags=0x10)

    get_and_response(out, 40004, (0x4000, 0xC000), b"/gap", text,
                     lambda c, seg: c.frame(1, seg, record=False))     # not captured
    get_and_response(out, 40005, (0x5000, 0xD000), b"/again", text, sent_again)
    return out


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i // 1000, (i % 1000) * 1000, len(fr),
                                len(fr)))
            f.write(fr)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    write_pcap(sys.argv[1], build())
