#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_hostile.py OUT [--frames N] [--seed S] : a capture where every frame opens a new
conversation, for the hostile-scale benchmark.

Each frame has random addresses (IPv4 10.0.x.y, IPv6 and GRH link-local), a random
destination QP and PSN, and an opcode drawn from every one IBTA defines (RC, UC, RD, UD,
XRC, CNP; requests and responses), in RoCEv2 over IPv4 (half), RoCEv2 over IPv6 and RoCEv1
(a quarter each), untagged, 802.1Q or QinQ. Every ICRC is good, so the decoder's whole path
runs. Frames come from ibframes.Gen, which the decoder's tests use as their independent
reference.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibframes as ib  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--frames", type=int, default=300000)
    ap.add_argument("--seed", type=int, default=19)
    a = ap.parse_args()
    # scapy's second opinion on each IPv4 ICRC costs a millisecond a frame; the decoder's
    # tests make it, this benchmark input need not.
    ib.scapy_ipv4_icrc = lambda _frame: None
    g = ib.Gen(a.seed)
    opcodes = ib.defined_opcodes()
    w = ib.PcapWriter(a.out, 1)
    for n in range(a.frames):
        op = g.r.choice(opcodes)
        kind = g.r.randrange(4)
        length = g.r.choice([0, 4, 16, 64]) if ib.opcode_layout(op)[1] else None
        if kind < 2:
            l3, ethertype, _ = g.rocev2(op, ipv6=False, bad_rate=0, payload_len=length)
        elif kind == 2:
            l3, ethertype, _ = g.rocev2(op, ipv6=True, bad_rate=0, payload_len=length)
        else:
            l3, ethertype, _ = g.rocev1(op, bad_rate=0)
            ethertype = ib.ETH_P_ROCE
        w.write(g.ethernet(ethertype, l3, g.r.randrange(3)))
        if n and n % 50000 == 0:
            print("%d frames" % n, file=sys.stderr)
    w.close()
    print("%d frames, each a new conversation, written to %s" % (a.frames, a.out))


if __name__ == "__main__":
    main()
