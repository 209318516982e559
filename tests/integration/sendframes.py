#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""sendframes.py IFACE PCAP [--gap-us N] [--pause-every N --pause-ms M] [--hold-at N]: sends
every frame of a pcap file out of IFACE through a packet socket, in order, and prints how many
it sent. With --hold-at N it prints "held N" after the Nth frame and waits for a line on its
standard input before it sends the rest, so that a test can act between two known frames."""
import argparse
import socket
import struct
import sys
import time


def frames(path):
    data = open(path, "rb").read()
    pos = 24
    while pos + 16 <= len(data):
        caplen = struct.unpack("<I", data[pos + 8:pos + 12])[0]
        yield data[pos + 16:pos + 16 + caplen]
        pos += 16 + caplen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("iface")
    ap.add_argument("pcap")
    ap.add_argument("--gap-us", type=int, default=0)
    ap.add_argument("--pause-every", type=int, default=0)
    ap.add_argument("--pause-ms", type=int, default=0)
    ap.add_argument("--hold-at", type=int, default=0)
    a = ap.parse_args()
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.iface, 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    n = 0
    for f in frames(a.pcap):
        s.send(f)
        n += 1
        if a.gap_us:
            time.sleep(a.gap_us / 1e6)
        if a.pause_every and n % a.pause_every == 0:
            print(n, flush=True)
            time.sleep(a.pause_ms / 1000.0)
        if n == a.hold_at:
            print("held %d" % n, flush=True)
            sys.stdin.readline()
    print("sent %d" % n, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
