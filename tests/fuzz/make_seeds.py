#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make_seeds.py OUTDIR : seed inputs for the coverage-guided fuzz targets (targets/), made
from what the repository holds: its captures (tests/captures/real, samples, the iWARP corpus),
the display filters of the tshark comparison table, the conformance scripts, and packet specs
of every encapsulation. Writes OUTDIR/<target>/<name> for decode, reader, filter, spec and
script. tests/fuzz/corpus/ holds these after a libFuzzer run merged them (-merge=1)."""
import ast
import glob
import gzip
import os
import struct
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# decode_target.c's table of link types, in its order.
LINKTYPES = [1, 12, 101, 113, 276, 247, 197, 228, 229]
FRAMES_PER_INPUT = 8
INPUTS_PER_CAPTURE = 3

SPECS = [
    'ip(src=10.0.0.1, dst=10.0.0.2) / bth(opcode="RC RDMA Write First", psn=inc(5)) / '
    'reth(va=0x1000, r_key=7, dmalen=4096) / payload(len=1024)',
    'eth / vlan(id=5) / ipv6(src=fd00::1, dst=fd00::2) / udp / bth(opcode="RC Send Only") / '
    'payload(len=rand(1, 64))',
    'eth / grh / bth(opcode="UD Send Only", destqp=1) / deth(q_key=0x80010000, srcqp=1) / '
    'payload(len=256)',
    'lrh(dlid=2, slid=1) / bth(opcode="RC Acknowledge") / aeth(syndrome=0x60)',
    'ip / bth(opcode="RC Fetch Add") / atomiceth(va=0x10, r_key=3)',
    'ip / bth(opcode="CNP", destqp=0x11)',
    'ip / tcp(dstport=4420) / mpareq(crc_flag=1, rev=1)',
    'ip / tcp / ddp(tagged_flag=1, stag=9, tagged_offset=0) / rdmap(opcode=0) / payload(len=100)',
    'ip / bth(opcode=list(4, 10, 12), psn=seq(0..9)) repeat 3',
]


def read_pcap(path):
    data = open(path, "rb").read()
    magic = data[:4]
    endian = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    linktype = struct.unpack(endian + "I", data[20:24])[0] & 0xFFFF
    frames, at = [], 24
    while at + 16 <= len(data):
        caplen = struct.unpack(endian + "I", data[at + 8:at + 12])[0]
        frames.append(data[at + 16:at + 16 + caplen])
        at += 16 + caplen
    return linktype, frames, data


def pcapng(frames_by_if):
    """A pcapng file with one interface per (linktype, frames), their frames interleaved."""
    def block(kind, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", kind, len(body) + 12) + body + struct.pack("<I", len(body) + 12)
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    for linktype, _ in frames_by_if:
        out += block(1, struct.pack("<HHI", linktype, 0, 65535))
    for k in range(max(len(f) for _, f in frames_by_if)):
        for i, (_, frames) in enumerate(frames_by_if):
            if k < len(frames):
                f = frames[k]
                out += block(6, struct.pack("<IIIII", i, 0, k, len(f), len(f)) + f)
    return out


def write(outdir, target, name, data):
    os.makedirs(os.path.join(outdir, target), exist_ok=True)
    with open(os.path.join(outdir, target, name), "wb") as f:
        f.write(data)


def main():
    outdir = sys.argv[1]
    captures = sorted(glob.glob(os.path.join(ROOT, "tests/captures/real/*.pcap")) +
                      [os.path.join(ROOT, "samples/rdma_demo.pcap")] +
                      glob.glob(os.path.join(ROOT, "tests/fuzz/corpus/iwarp/*.pcap")))
    for path in captures:
        linktype, frames, data = read_pcap(path)
        base = os.path.splitext(os.path.basename(path))[0]
        if linktype not in LINKTYPES:
            continue
        for n in range(INPUTS_PER_CAPTURE):
            chunk = frames[n * FRAMES_PER_INPUT:(n + 1) * FRAMES_PER_INPUT]
            if chunk:
                write(outdir, "decode", "%s-%d" % (base, n),
                      bytes([LINKTYPES.index(linktype)]) +
                      b"".join(struct.pack(">H", len(f)) + f for f in chunk))
        small = data[:24] + b"".join(struct.pack("<IIII", 0, 0, len(f), len(f)) + f
                                     for f in frames[:FRAMES_PER_INPUT]) \
            if data[:4] == b"\xd4\xc3\xb2\xa1" else data[:4096]
        write(outdir, "reader", base + ".pcap", small)
    _, frames, data = read_pcap(os.path.join(ROOT, "samples/rdma_demo.pcap"))
    write(outdir, "reader", "rdma_demo.pcap.gz", gzip.compress(data, mtime=0))
    write(outdir, "reader", "two_interfaces.pcapng", pcapng([(1, frames[:6]), (101, [
        f[14:] for f in frames[:6]])]))
    # The filters of the tshark comparison table.
    src = open(os.path.join(ROOT, "tests/integration/test_filter_tshark.py")).read()
    start = src.index("FILTERS = [")
    filters = ast.literal_eval(src[start + len("FILTERS = "):src.index("]\n", start) + 1])
    for i, text in enumerate(filters):
        write(outdir, "filter", "table-%03d" % i, text.encode())
    for i, text in enumerate(SPECS):
        write(outdir, "spec", "spec-%02d" % i, text.encode())
    for path in sorted(glob.glob(os.path.join(ROOT, "samples/scripts/**/*.script"),
                                 recursive=True)):
        write(outdir, "script", "%s-%s" % (os.path.basename(os.path.dirname(path)),
                                           os.path.basename(path)), open(path, "rb").read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
