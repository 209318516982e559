#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_bench.py OUT [--frames N] [--qps Q] [--seed S] : a large RoCEv2 capture for benchmarks.

RC traffic between two hosts over Q queue pairs (requester QP 0x100000+q on 10.0.0.1,
responder QP 0x200000+q on 10.0.0.2), round after round on each QP: a 4-packet WRITE and its
ACK, a SEND and its ACK, a 2-packet READ and its two responses, a WRITE Only, a SEND with
Immediate and their ACK. PSNs advance as an RC requester's do, so the analysis sees clean
conversations. Frames are made from one template per packet kind (built by ibframes, valid
ICRC) whose QP and PSN are rewritten and ICRC recomputed, which keeps a million frames to
seconds. With --small --qps 1000000 --rounds 1, each of a million QPs carries one SEND and
its ACK (for the memory benchmark).
"""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibframes as ib  # noqa: E402

A, B = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
MAC_A, MAC_B = bytes.fromhex("02000000000a"), bytes.fromhex("02000000000b")

# One round on a QP: (direction, opcode, PSN offset in the round, payload, ext headers).
ROUND = [
    ("req", 0x06, 0, 1024, "reth"), ("req", 0x07, 1, 1024, ""), ("req", 0x07, 2, 1024, ""),
    ("req", 0x08, 3, 512, ""), ("resp", 0x11, 3, 0, "aeth"),
    ("req", 0x04, 4, 64, ""), ("resp", 0x11, 4, 0, "aeth"),
    ("req", 0x0C, 5, 0, "reth2048"), ("resp", 0x0D, 5, 1024, "aeth"), ("resp", 0x0F, 6, 1024, "aeth"),
    ("req", 0x0A, 7, 128, "reth"), ("req", 0x05, 8, 32, "imm"), ("resp", 0x11, 8, 0, "aeth"),
]
PSNS_PER_ROUND = 9
# The smallest conversation: one SEND and its ACK (for the million-QP memory benchmark).
ROUND_SMALL = [("req", 0x04, 0, 64, ""), ("resp", 0x11, 0, 0, "aeth")]


def template(direction, opcode, payload, ext):
    hdr = b""
    if ext == "reth":
        hdr = struct.pack("!QII", 0x7F0000000000, 0x1234, payload if opcode == 0x0A else 3584)
    elif ext == "reth2048":
        hdr = struct.pack("!QII", 0x7F0000100000, 0x1234, 2048)
    elif ext == "aeth":
        hdr = bytes([0x1F, 0, 0, 1])
    elif ext == "imm":
        hdr = struct.pack("!I", 0xC0DE)
    pad = (4 - payload % 4) % 4
    body = bytes([opcode, pad << 4, 0xFF, 0xFF, 0, 0, 0, 0, 0x80, 0, 0, 0]) + hdr + \
        bytes(payload) + bytes(pad)
    src, dst = (A, B) if direction == "req" else (B, A)
    udp = struct.pack("!HHHH", 49152 if direction == "req" else 49153, 4791, 8 + len(body) + 4, 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 2, 20 + len(udp) + len(body) + 4, 0, 0x4000, 64, 17,
                     0, src, dst)
    ip = ip[:10] + struct.pack("!H", ~ib._ones_sum(ip) & 0xFFFF) + ip[12:]
    eth = (MAC_B + MAC_A if direction == "req" else MAC_A + MAC_B) + b"\x08\x00"
    return bytearray(eth + ip + udp + body + bytes(4))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--frames", type=int, default=1000000)
    ap.add_argument("--qps", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=0, help="rounds per QP (0: until --frames)")
    ap.add_argument("--small", action="store_true", help="one SEND and its ACK per round")
    a = ap.parse_args()
    templates = [(d, off, template(d, op, pl, ext))
                 for d, op, off, pl, ext in (ROUND_SMALL if a.small else ROUND)]
    w = ib.PcapWriter(a.out, 1)
    bth = 14 + 20 + 8
    n = 0
    rnd = 0
    while (a.rounds == 0 and n < a.frames) or (a.rounds and rnd < a.rounds):
        for q in range(a.qps):
            base = (q * 7919 + rnd * PSNS_PER_ROUND) & 0xFFFFFF
            for d, off, t in templates:
                if a.rounds == 0 and n == a.frames:
                    break
                f = bytearray(t)
                qpn = (0x200000 + q) if d == "req" else (0x100000 + q)
                f[bth + 5:bth + 8] = (qpn & 0xFFFFFF).to_bytes(3, "big")
                f[bth + 9:bth + 12] = ((base + off) & 0xFFFFFF).to_bytes(3, "big")
                end = len(f) - 4
                f[end:] = ib.icrc("ipv4", bytes(f[14:34]), bytes(f[34:42]), bytes(f[bth:end]))
                w.write(bytes(f))
                n += 1
        rnd += 1
    w.close()
    print("%d frames over %d QPs written to %s" % (n, a.qps, a.out))


if __name__ == "__main__":
    main()
