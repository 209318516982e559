#!/usr/bin/env python3
"""gen_bench.py OUT [--frames N] [--seed S] : a large RoCEv2 capture for benchmarks.

Traffic shaped like an RC workload: per QP, WRITE First/Middle/Last bursts at PMTU 1024,
SENDs, READ requests with their responses, and ACKs, over 64 QP pairs on IPv4. Every frame
is built by ibframes (valid ICRC). Frames are built from a few hundred templates whose BTH
(QP, PSN) is rewritten and ICRC recomputed, which keeps a million frames to seconds.
"""
import argparse
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibframes as ib  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--frames", type=int, default=1000000)
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args()
    g = ib.Gen(a.seed)
    # (opcode, payload length) pattern of one round of traffic on a QP.
    pattern = ([(0x06, 1024), (0x07, 1024), (0x07, 1024), (0x08, 512), (0x11, 0),
                (0x04, 64), (0x11, 0), (0x0C, 0), (0x0D, 1024), (0x0F, 256),
                (0x0A, 128), (0x11, 0), (0x05, 32), (0x11, 0)])
    templates = []
    for op, plen in pattern:
        l3, et, _ = g.rocev2(op, bad_rate=0.0, payload_len=plen)
        frame = g.ethernet(et, l3, 0)
        templates.append(frame)
    w = ib.PcapWriter(a.out, 1)
    bth_off = 14 + 20 + 8
    psn = {}
    n = 0
    while n < a.frames:
        for qp in range(64):
            for t in templates:
                if n == a.frames:
                    break
                f = bytearray(t)
                p = psn.get(qp, qp * 1000) & 0xFFFFFF
                psn[qp] = p + 1
                f[bth_off + 5:bth_off + 8] = (0x100 + qp).to_bytes(3, "big")
                f[bth_off + 9:bth_off + 12] = p.to_bytes(3, "big")
                ip = bytes(f[14:34])
                udp = bytes(f[34:42])
                end = 14 + struct.unpack("!H", ip[2:4])[0]
                body = bytes(f[bth_off:end - 4])
                f[end - 4:end] = ib.icrc("ipv4", ip, udp, body)
                w.write(bytes(f))
                n += 1
    w.close()
    print("%d frames written to %s" % (n, a.out))


if __name__ == "__main__":
    main()
