#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_times.py DIR : the capture files of tests/regress/ that hold unusual timestamps.

  pcapng_tsresol_mixed.pcapng  interfaces in seconds, milliseconds, 2^-10 s, microseconds
                               (with if_tsoffset 100 s) and nanoseconds, with frames going
                               back in time: tshark 4.0 reads all of these right
  pcapng_tsresol_fine.pcapng   2^-40 s, 2^-63 s and 10^-19 s with all 64 bits set, a large
                               fraction of picoseconds, and seconds past 2^63: tshark 4.0
                               overflows each of these
  pcap_usec_overflow.pcap      classic pcap records whose microseconds exceed a second

Written with struct alone (an independent writer, not the project's code). Every frame is
the same RoCEv2 RC Send First."""
import os
import struct
import sys

FRAME = bytes.fromhex("020000000001020000000002080045000030000040004011268f0a0000010a000002"
                      "03e812b7001c00000a000000000000220000000100000000")


def option(code, value):
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def block(btype, body):
    total = 12 + len(body)
    return struct.pack("<II", btype, total) + body + struct.pack("<I", total)


def shb():
    return block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))


def idb(tsresol=None, tsoffset=None):
    opts = b""
    if tsresol is not None:
        opts += option(9, bytes([tsresol]))
    if tsoffset is not None:
        opts += option(14, struct.pack("<q", tsoffset))
    if opts:
        opts += option(0, b"")
    return block(1, struct.pack("<HHI", 1, 0, 0) + opts)


def epb(iface, ts):
    data = FRAME + b"\0" * (-len(FRAME) % 4)
    return block(6, struct.pack("<IIIII", iface, ts >> 32, ts & 0xFFFFFFFF, len(FRAME),
                                len(FRAME)) + data)


def pcapng(path, ifaces, packets):
    with open(path, "wb") as f:
        f.write(shb())
        for i in ifaces:
            f.write(idb(**i))
        for iface, ts in packets:
            f.write(epb(iface, ts))


def main():
    out = sys.argv[1]
    all_ones = (1 << 64) - 1
    pcapng(os.path.join(out, "pcapng_tsresol_mixed.pcapng"),
           [dict(tsresol=0), dict(tsresol=3), dict(tsresol=0x8A), dict(tsoffset=100),
            dict(tsresol=9)],
           [(0, 1700000000), (1, 1700000000500), (2, 1700000001 * 1024 + 1),
            (3, 1699999900 * 10**6 + 7), (4, 1700000002 * 10**9 + 123456789),
            (0, 1699999999), (1, 1699999999999), (4, 1699999999 * 10**9 + 1)])
    pcapng(os.path.join(out, "pcapng_tsresol_fine.pcapng"),
           [dict(tsresol=0xA8), dict(tsresol=0xBF), dict(tsresol=19), dict(tsresol=12),
            dict(tsresol=0)],
           [(0, 1 << 40 | 1), (0, all_ones), (1, all_ones), (2, all_ones),
            (3, 17000003 * 10**12 + 987654321987), (4, 1 << 63), (4, 1)])
    with open(os.path.join(out, "pcap_usec_overflow.pcap"), "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for sec, usec in [(5, 2500000), (5, 0xFFFFFFFF), (0xFFFFFFFF, 999999)]:
            f.write(struct.pack("<IIII", sec, usec, len(FRAME), len(FRAME)) + FRAME)


if __name__ == "__main__":
    main()
