#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make_seeds.py OUTDIR : seed inputs for the coverage-guided fuzz targets (targets/), made
from what the repository holds: its captures (tests/captures/real, samples, the cases
iwarp_fuzz wrote in tests/fuzz/iwarp_cases), the display filters of the tshark comparison
table, the conformance scripts, packet specs of every encapsulation, the captured CM MADs and
other tools' exchange messages, and iWARP connections (an MPA exchange and FPDUs of every
RDMAP opcode) in iwarp_target.c's program form. Writes OUTDIR/<target>/<name> for decode,
reader, filter, spec, script, iwarp, responder, exchange and cm. tests/fuzz/corpus/ holds
these after a libFuzzer run merged them (-merge=1)."""
import ast
import glob
import gzip
import os
import random
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


# iwarp_target.c's program form: a header byte, then per segment 8 bytes and a payload.
IW_RAW, IW_FPDU, IW_FPDU_NO_CRC, IW_ZEROS = range(4)
TCP_FIN, TCP_SYN, TCP_RST, TCP_PSH, TCP_ACK = 0x01, 0x02, 0x04, 0x08, 0x10
MPA_MARKERS, MPA_CRC = 0x80, 0x40
# The ISN table of iwarp_target.c (the header's bits 2-4) and its per-connection offsets.
IW_ISNS = [1000, 0, 0x7fffff00, 0xffffff00, 0x7ffffff0, 0xfffffff0, 0x12345678, 0x80000000]


def iw_start(isn, conn, side):
    return (isn + 0x01000000 * conn + 0x00100000 * side) & 0xFFFFFFFF


def s16(v):
    """A 32-bit difference as iwarp_target.c's signed 16-bit delta (clamped)."""
    v = (v + 0x80000000) % 0x100000000 - 0x80000000
    return max(-32768, min(32767, v)) & 0xFFFF


def iw_record(conn, side, kind, flags, seq_delta, ack_delta, payload, cut=0, length=None):
    head = conn | side << 2 | kind << 3 | cut << 5
    n = len(payload) if length is None else length
    return struct.pack(">BBHHH", head, flags, seq_delta & 0xFFFF, ack_delta & 0xFFFF, n) + \
        (b"" if kind == IW_ZEROS else payload)


def ddp_tagged(opcode, stag, to, payload, last=True):
    return bytes([0x80 | (0x40 if last else 0) | 1, 0x40 | opcode]) + \
        struct.pack(">IQ", stag, to) + payload


def ddp_untagged(opcode, qn, msn, mo, rdmap_hdr, payload, inval=0, last=True):
    return bytes([(0x40 if last else 0) | 1, 0x40 | opcode]) + \
        struct.pack(">IIII", inval, qn, msn, mo) + rdmap_hdr + payload


ULPDUS = [
    ddp_tagged(0, 0x1234, 0x10000, bytes(range(64))),                       # RDMA Write
    ddp_untagged(1, 1, 1, 0, struct.pack(">IQIIQ", 0x55, 0x2000, 256, 0x66, 0x3000), b""),
    ddp_tagged(2, 0x55, 0x2000, b"\xab" * 256),                             # Read Response
    ddp_untagged(3, 0, 1, 0, b"", b"send payload"),                          # Send
    ddp_untagged(4, 0, 2, 0, b"", b"invalidate", inval=0x1234),             # Send w/ Invalidate
    ddp_untagged(5, 0, 3, 0, b"", b"solicited"),                             # Send w/ SE
    ddp_untagged(3, 0, 4, 0, b"", b"first half", last=False),               # a message in two
    ddp_untagged(3, 0, 4, 10, b"", b"second half"),
    ddp_untagged(8, 0, 5, 0, struct.pack(">Q", 0x1122334455667788), b""),   # Immediate Data
    ddp_untagged(10, 3, 1, 0, struct.pack(">IIIQQQQQ", 0, 7, 0x1234, 0x10000, 5, ~0 & (2**64 - 1),
                                          0, 0), b""),                      # Atomic Request
    ddp_untagged(11, 0, 6, 0, struct.pack(">IQ", 7, 42), b""),              # Atomic Response
    ddp_untagged(6, 2, 1, 0, bytes([0x12, 0x03, 0x80, 0]), b""),             # Terminate
]


def mpa_frame(reply, flags, pd=b"private"):
    key = b"MPA ID Rep Frame" if reply else b"MPA ID Req Frame"
    return key + bytes([flags, 1]) + struct.pack(">H", len(pd)) + pd


class IwProgram:
    """Segments of a few connections, tracking what iwarp_target.c tracks (each side's next
    sequence number) so that deltas say in order, retransmitted or after a hole."""

    def __init__(self, conns=1, isn=0, heuristics=True, crc_checked=True, one_conn=False):
        self.header = (conns - 1) | isn << 2 | (0 if heuristics else 0x20) | \
            (0 if crc_checked else 0x40) | (0x80 if one_conn else 0)
        self.next = {(c, s): iw_start(IW_ISNS[isn], c, s) for c in range(4) for s in range(2)}
        self.out = bytes([self.header])

    def send(self, conn, side, kind, flags, payload=b"", seq_delta=0, ack_delta=0, cut=0,
             length=None):
        self.out += iw_record(conn, side, kind, flags, seq_delta, ack_delta, payload, cut, length)
        n = len(payload) if length is None else length
        if kind in (IW_FPDU, IW_FPDU_NO_CRC):
            n = 2 + n + (-(2 + n) % 4) + 4
        start = (self.next[conn, side] + seq_delta) & 0xFFFFFFFF
        end = (start + n + (flags & TCP_SYN != 0) + (flags & TCP_FIN != 0)) & 0xFFFFFFFF
        if (end - self.next[conn, side]) % 0x100000000 < 0x80000000 and \
                end != self.next[conn, side]:
            self.next[conn, side] = end

    def handshake(self, conn):
        self.send(conn, 0, IW_RAW, TCP_SYN)
        self.send(conn, 1, IW_RAW, TCP_SYN | TCP_ACK)
        self.send(conn, 0, IW_RAW, TCP_ACK)

    def exchange(self, conn, flags):
        self.send(conn, 0, IW_RAW, TCP_ACK | TCP_PSH, mpa_frame(False, flags))
        self.send(conn, 1, IW_RAW, TCP_ACK | TCP_PSH, mpa_frame(True, flags))


def iwarp_programs():
    """Connections in iwarp_target.c's form: each starts past the CRC check."""
    out = {}
    for crc in (True, False):
        p = IwProgram()
        p.handshake(0)
        p.exchange(0, MPA_CRC if crc else 0)
        for i, u in enumerate(ULPDUS):
            p.send(0, i % 2, IW_FPDU if crc else IW_FPDU_NO_CRC, TCP_ACK | TCP_PSH, u)
        p.send(0, 0, IW_RAW, TCP_FIN | TCP_ACK)
        out["exchange-crc" if crc else "exchange-no-crc"] = p.out
    # FPDUs with no exchange seen: the heuristics find the framing.
    p = IwProgram(isn=3)
    for u in ULPDUS[:6]:
        p.send(0, 0, IW_FPDU, TCP_ACK | TCP_PSH, u)
    out["no-exchange-wrap"] = p.out
    # Three connections, one followed at a time: eviction; holes, retransmissions, a cut.
    p = IwProgram(conns=3, isn=2, one_conn=True)
    for c in range(3):
        p.handshake(c)
        p.exchange(c, MPA_CRC)
    for i, u in enumerate(ULPDUS):
        p.send(i % 3, 0, IW_FPDU, TCP_ACK | TCP_PSH, u)
    p.send(0, 0, IW_FPDU, TCP_ACK | TCP_PSH, ULPDUS[3], seq_delta=-40)
    p.send(1, 0, IW_FPDU, TCP_ACK | TCP_PSH, ULPDUS[0], seq_delta=100)
    p.send(2, 0, IW_FPDU, TCP_ACK | TCP_PSH, ULPDUS[2], cut=3)
    p.send(0, 1, IW_RAW, TCP_RST)
    out["three-conns-evict"] = p.out
    # Long segments after a hole, as zeros: the per-direction buffer limit.
    p = IwProgram(conns=2)
    p.handshake(0)
    p.exchange(0, MPA_CRC | MPA_MARKERS)
    p.send(0, 0, IW_FPDU, TCP_ACK | TCP_PSH, ULPDUS[0])
    for _ in range(4):
        p.send(0, 0, IW_ZEROS, TCP_ACK, seq_delta=1000, length=60000)
    p.send(1, 0, IW_ZEROS, TCP_ACK, length=30000)
    out["buffer-limit"] = p.out
    return out


def iwarp_from_pcap(path):
    """A capture of TCP segments (Ethernet, IPv4 or IPv6) as iwarp_target.c's program: the
    first four 4-tuples become its connections, each side's first sequence number its start
    (ISN table entry 0); payloads go as they are, snapshot cuts in eighths."""
    _, frames, _ = read_pcap(path)
    p = IwProgram(conns=4)
    conns, first = {}, {}
    for f in frames:
        if len(f) < 14:
            continue
        eth = struct.unpack(">H", f[12:14])[0]
        if eth == 0x0800 and len(f) >= 34 and f[23] == 6:
            ihl = (f[14] & 0x0F) * 4
            src, dst, ip_end = f[26:30], f[30:34], 14 + struct.unpack(">H", f[16:18])[0]
            t = 14 + ihl
        elif eth == 0x86DD and len(f) >= 54 and f[20] == 6:
            src, dst, ip_end = f[22:38], f[38:54], 54 + struct.unpack(">H", f[18:20])[0]
            t = 54
        else:
            continue
        if len(f) < t + 20:
            continue
        sport, dport, seq, ack, off, flags = struct.unpack(">HHIIBB", f[t:t + 14])
        a, b = (src, sport), (dst, dport)
        key = (a, b) if (a, b) in conns or (b, a) not in conns else (b, a)
        if key not in conns:
            if len(conns) == 4:
                continue
            conns[key] = len(conns)
        conn, side = conns[key], 0 if key == (a, b) else 1
        data_at = t + (off >> 4) * 4
        wire_len = max(0, ip_end - data_at)
        payload = f[data_at:data_at + wire_len]
        start = iw_start(IW_ISNS[0], conn, side)
        first.setdefault((conn, side), seq)
        seq_t = (start + seq - first[conn, side]) & 0xFFFFFFFF
        peer = (conn, 1 - side)
        ack_t = ((iw_start(IW_ISNS[0], conn, 1 - side) + ack - first[peer]) & 0xFFFFFFFF
                 if peer in first else p.next[peer])
        cut = 0 if len(payload) >= wire_len or wire_len == 0 else \
            max(1, min(7, len(payload) * 8 // wire_len))
        p.send(conn, side, IW_RAW, flags, payload + bytes(wire_len - len(payload)),
               seq_delta=s16(seq_t - p.next[conn, side]),
               ack_delta=s16(ack_t - p.next[peer]), cut=cut)
    return p.out


def cm_mads():
    """The CM MADs of the real rdma_cm and rping captures (RoCEv2 UD SENDs to QP 1)."""
    mads = []
    for name in ("rdma_cm", "rping"):
        _, frames, _ = read_pcap(os.path.join(
            ROOT, "tests/captures/real/linlinw5_rdma_ib_tutorial__pcap_%s.pcap" % name))
        for f in frames:
            if len(f) >= 62 + 256 and f[12:14] == b"\x08\x00" and f[23] == 17 and \
                    f[36:38] == b"\x12\xb7" and f[42] == 0x64 and f[47:50] == b"\0\0\1":
                mads.append((name, f[62:62 + 256]))
    return mads


# oob_cases.c's kinds (the exchange target's first byte) with a message each.
PERFTEST_KEY = (b"0000:0001:00001d:533a2f:00000e1c:00005e135cf9b000:00:00:00:00:00:00:00:00:"
                b"00:00:ff:ff:0a:01:10:3e:00000000:\0")
EXCHANGES = [
    (0, b"6.20".ljust(16, b"\0")),
    (1, bytes([0, 0, 0x10, 0, 0, 0, 0, 0x40])),
    (2, b"3\0"),
    (3, PERFTEST_KEY[:59]),
    (4, PERFTEST_KEY),
    (5, bytes([0, 0, 0, 0, 0, 0, 0x0b, 0xb8, 0, 0, 0, 0, 0, 0, 0, 5]) +
     struct.pack(">ddd", 0.108, 0.106, 0.0044)),
    (6, b"0000:000021:59dfd7:00000000000000000000ffff0a01103e\0"),
    (7, b"done\0"),
    (8, b"perftest://10.0.0.1:18515"),
    (8, b"cm://[fd00::1]:7174"),
    (9, struct.pack(">HHIIIQI", 1, 4, 0x1d, 0x533a2f, 0xe1c, 0x5e135cf9b000, 0) + bytes(4) +
     bytes(10) + b"\xff\xff\x0a\x01\x10\x3e" + bytes(4)),
    (10, struct.pack(">QII", 0x7f0000001000, 0x1234, 64)),
]


def write(outdir, target, name, data):
    os.makedirs(os.path.join(outdir, target), exist_ok=True)
    with open(os.path.join(outdir, target, name), "wb") as f:
        f.write(data)


def main():
    outdir = sys.argv[1]
    captures = sorted(glob.glob(os.path.join(ROOT, "tests/captures/real/*.pcap")) +
                      [os.path.join(ROOT, "samples/rdma_demo.pcap")] +
                      glob.glob(os.path.join(ROOT, "tests/fuzz/iwarp_cases/*.pcap")))
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
    for name, program in iwarp_programs().items():
        write(outdir, "iwarp", name, program)
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/fuzz/iwarp_cases/*.pcap"))):
        write(outdir, "iwarp", os.path.splitext(os.path.basename(path))[0], iwarp_from_pcap(path))
    # rc_program.c reads any bytes as packets: random ones, as rc_fuzz's driver feeds it.
    rng = random.Random(2024)
    for i in range(8):
        write(outdir, "responder", "random-%d" % i,
              bytes(rng.randrange(256) for _ in range(64 + rng.randrange(1500))))
    for kind, message in EXCHANGES:
        write(outdir, "exchange", "kind%02d-%d" % (kind, len(message)), bytes([kind]) + message)
    # The first byte: no connection, a REQ sent, or a connection established; either engine.
    for i, (capture, mad) in enumerate(cm_mads()):
        for state in (0, 1, 3, 4, 7):
            write(outdir, "cm", "%s-%02d-%d" % (capture, i, state), bytes([state]) + mad)
    return 0


if __name__ == "__main__":
    sys.exit(main())
