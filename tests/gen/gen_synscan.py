#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_synscan.py OUT [--frames N] : a SYN scan, for the hostile-scale benchmark of the
tables every TCP segment goes through (tcp.stream's and the iWARP stage's connections).

Each frame is an Ethernet/IPv4/TCP SYN from 10.0.0.1 to 10.0.0.2, to a port and from a port
no frame before used together, so that every frame opens a TCP conversation. The bytes are
written directly (a SYN is 54 bytes with nothing to compute but what is set here): scapy
would take minutes for the million frames the benchmark may ask for.
"""
import argparse
import struct


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--frames", type=int, default=300000)
    a = ap.parse_args()
    eth_ip = bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00,
                    0x45, 0, 0, 40, 0, 1, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2])
    with open(a.out, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        records = bytearray()
        for i in range(a.frames):
            sport, dport = 1024 + i // 65535, 1 + i % 65535
            seq = (i * 2654435761) & 0xffffffff
            tcp = struct.pack(">HHIIBBHHH", sport, dport, seq, 0, 0x50, 0x02, 4096, 0, 0)
            frame = eth_ip + tcp
            records += struct.pack("<IIII", 1700000000 + i // 1000000, i % 1000000,
                                   len(frame), len(frame)) + frame
        out.write(records)


if __name__ == "__main__":
    main()
