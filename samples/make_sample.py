#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make_sample.py [OUT] : writes samples/rdma_demo.pcap, the capture the README runs on.

A scripted RoCEv2 session between two hosts, built with tests/gen/ibframes.py:
  QP 0x000011 (10.0.0.1) <-> QP 0x000022 (10.0.0.2), path MTU 1024:
    SEND Only + ACK; a 3000-byte WRITE (First/Middle/Last) + ACK; a 2048-byte READ and its
    two responses; a Fetch-Add and its Atomic ACK; two SENDs whose first is lost on the way,
    so the responder NAKs with a PSN sequence error and the requester goes back; a SEND
    refused with an RNR NAK and sent again; a WRITE marked ECN-CE, which earns a CNP.
  QP 0x000033 (10.0.0.3) -> QP 0x000044 (10.0.0.2): WRITE with Immediate, three times.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "gen"))
import ibframes as ib  # noqa: E402

MAC = {1: bytes.fromhex("02000000000a"), 2: bytes.fromhex("02000000000b"),
       3: bytes.fromhex("02000000000c")}


def bth(opcode, qpn, psn, ackreq=False, pad=0, becn=False, se=False):
    return (bytes([opcode, (se << 7) | (pad << 4)]) + b"\xff\xff" + bytes([becn << 6])
            + qpn.to_bytes(3, "big") + bytes([ackreq << 7]) + psn.to_bytes(3, "big"))


def reth(va, rkey, length):
    return struct.pack("!QII", va, rkey, length)


def aeth(syndrome, msn):
    return bytes([syndrome]) + msn.to_bytes(3, "big")


class Session:
    def __init__(self, path):
        self.w = ib.PcapWriter(path, 1)
        self.ipid = {1: 0, 2: 0, 3: 0}

    def send(self, src, dst, transport_hdrs, payload=b"", ecn=2, sport=49152, delay=0.0):
        """One RoCEv2 frame from host src to host dst; transport_hdrs is BTH + ETHs."""
        pad = (4 - len(payload) % 4) % 4
        body = bytearray(transport_hdrs + payload + bytes(pad))
        body[1] |= pad << 4
        body = bytes(body)
        udp = struct.pack("!HHHH", sport + src, 4791, 8 + len(body) + 4, 0)
        self.ipid[src] += 1
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, ecn, 20 + len(udp) + len(body) + 4, 0, 0x4000,
                         64, 17, 0, bytes([10, 0, 0, src]), bytes([10, 0, 0, dst]))
        csum = ~ib._ones_sum(ip) & 0xFFFF
        ip = ip[:10] + struct.pack("!H", csum) + ip[12:]
        crc = ib.icrc("ipv4", ip, udp, body)
        frame = MAC[dst] + MAC[src] + b"\x08\x00" + ip + udp + body + crc
        self.w.t += delay
        self.w.write(frame + bytes(max(0, 60 - len(frame))))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "rdma_demo.pcap")
    s = Session(out)
    A, B, C = 1, 2, 3
    qa, qb, qc, qd = 0x11, 0x22, 0x33, 0x44
    va, rkey = 0x7F3A10000000, 0x1234

    s.send(A, B, bth(0x04, qb, 100, ackreq=True), b"hello over RoCEv2 " * 3 + b"!!")
    s.send(B, A, bth(0x11, qa, 100) + aeth(0x0A, 1))                 # ACK, 32 credits
    data = bytes((i * 7) & 0xFF for i in range(3000))
    s.send(A, B, bth(0x06, qb, 101) + reth(va, rkey, 3000), data[:1024])
    s.send(A, B, bth(0x07, qb, 102), data[1024:2048])
    s.send(A, B, bth(0x08, qb, 103, ackreq=True), data[2048:])
    s.send(B, A, bth(0x11, qa, 103) + aeth(0x0A, 2))
    s.send(A, B, bth(0x0C, qb, 104, ackreq=True) + reth(va + 4096, rkey, 2048))
    s.send(B, A, bth(0x0D, qa, 104) + aeth(0x0A, 3), data[:1024], delay=0.000012)
    s.send(B, A, bth(0x0F, qa, 105) + aeth(0x0A, 3), data[1024:2048])
    s.send(A, B, bth(0x14, qb, 106, ackreq=True) + struct.pack("!QIQQ", va + 8192, rkey, 1, 0))
    s.send(B, A, bth(0x12, qa, 106) + aeth(0x0A, 4) + struct.pack("!Q", 41))
    # PSN 107 is lost on the way: the responder sees 108, NAKs once, the requester goes back.
    s.send(A, B, bth(0x05, qb, 108, ackreq=True) + b"\x00\x00\x00\x2a", b"second")
    s.send(B, A, bth(0x11, qa, 107) + aeth(0x60, 4))                 # NAK: PSN sequence error
    s.send(A, B, bth(0x04, qb, 107, ackreq=True), b"first", delay=0.000020)
    s.send(A, B, bth(0x05, qb, 108, ackreq=True) + b"\x00\x00\x00\x2a", b"second")
    s.send(B, A, bth(0x11, qa, 108) + aeth(0x0A, 6))
    # No receive posted: RNR NAK with timer 14 (1.28 ms), then the retry succeeds.
    s.send(A, B, bth(0x04, qb, 109, ackreq=True), b"are you ready?")
    s.send(B, A, bth(0x11, qa, 109) + aeth(0x2E, 6))
    s.send(A, B, bth(0x04, qb, 109, ackreq=True), b"are you ready?", delay=0.00128)
    s.send(B, A, bth(0x11, qa, 109) + aeth(0x0A, 7))
    # A congested switch marks a WRITE with CE; the responder answers with a CNP.
    s.send(A, B, bth(0x0A, qb, 110, ackreq=True) + reth(va, rkey, 512), data[:512], ecn=3)
    s.send(B, A, bth(0x81, qa, 0, becn=True) + bytes(16))
    s.send(B, A, bth(0x11, qa, 110) + aeth(0x0A, 8))
    for i in range(3):
        s.send(C, B, bth(0x0B, qd, 5000 + i, ackreq=(i == 2)) + reth(va + i * 64, 0x77, 64)
               + struct.pack("!I", 0xC0DE0000 + i), data[i * 64:(i + 1) * 64])
    s.send(B, C, bth(0x11, qc, 5002) + aeth(0x1F, 3))
    s.w.close()


if __name__ == "__main__":
    main()
