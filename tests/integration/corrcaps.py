#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The multi-point captures the correlate tests share: the three hosts of each NCCL run
(tests/captures/real, SOURCES.md), and node1 of the nccl run with three of node0's packets
taken out, as pcap (three network losses) or as pcapng whose Interface Statistics Block
records three drops (three capture misses)."""
import os
import struct

import livenet as ln
import rstest as t


def files(run):
    base = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_nccl_%s_node" % run)
    return ["%s%d.pcap" % (base, n) for n in range(3)]


def pcapng(path, linktype, recs, ifdrop):
    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", btype, len(body) + 12) + body + struct.pack("<I", len(body) + 12)
    # the blocks joined once at the end: appending to one bytes object copies it each time
    out = [block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)),
           block(1, struct.pack("<HHI", linktype, 0, 0))]    # microseconds: the default
    last = 0
    for sec, usec, data, orig in recs:
        last = sec * 1000000 + usec
        out.append(block(6, struct.pack("<IIIII", 0, last >> 32, last & 0xffffffff, len(data),
                                        orig) + data))
    if ifdrop is not None:
        out.append(block(5, struct.pack("<III", 0, last >> 32, last & 0xffffffff) +
                         struct.pack("<HHQ", 4, 8, ifdrop) + struct.pack("<HH", 0, 0)))
    open(path, "wb").write(b"".join(out))


def ce_mark(data):
    """An Ethernet/IPv4 frame with ECN set to CE and the header checksum made again (the
    ICRC masks ECN: the packet keeps its key)."""
    d = bytearray(data)
    t.check(d[12:14] == b"\x08\x00", "an IPv4 frame")
    d[15] |= 3
    ihl = (d[14] & 15) * 4
    d[24:26] = b"\0\0"
    words = struct.unpack("!%dH" % (ihl // 2), bytes(d[14:14 + ihl]))
    total = sum(words)
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    d[24:26] = struct.pack("!H", ~total & 0xffff)
    return bytes(d)


def cut_node1(tmp):
    """(cut.pcap, cut.pcapng, marked.pcap, gone, marked): node1 of the nccl run without three
    packets that node0 sent it once each (gone holds their "destqp\\tpsn"), and node1 whole
    with two others of those CE-marked (marked)."""
    n0, n1 = files("nccl")[0], files("nccl")[1]
    rows = t.run([t.ROCESHARK, "correlate", "-r", n0, "-r", n1, "-Y",
                  'roceshark.corr.segment == "A>B"', "-T", "fields", "-e",
                  "infiniband.bth.destqp", "-e", "infiniband.bth.psn"]).stdout.splitlines()
    t.check(len(rows) >= 20, "A>B packets of node0 and node1: %d" % len(rows))
    at_b = t.run([t.ROCESHARK, "read", "-r", n1, "-T", "fields", "-e", "infiniband.bth.destqp",
                  "-e", "infiniband.bth.psn"]).stdout.splitlines()
    once = [r for r in rows if at_b.count(r) == 1]
    gone = set(once[len(once) // 2:len(once) // 2 + 3])
    marked = set(once[2:4])
    _, linktype, recs = ln.read_pcap(n1)
    keep = [r for r, key in zip(recs, at_b) if key not in gone]
    t.check(len(keep) == len(recs) - 3, "%d of %d frames kept" % (len(keep), len(recs)))
    cut_pcap, cut_ng = os.path.join(tmp, "cut.pcap"), os.path.join(tmp, "cut.pcapng")
    pcapng(cut_ng, linktype, keep, 3)
    pcapng(cut_pcap, linktype, keep, None)
    marked_pcap = os.path.join(tmp, "marked.pcap")
    pcapng(marked_pcap, linktype, [(s, u, ce_mark(d) if key in marked else d, o)
                                   for (s, u, d, o), key in zip(recs, at_b)], None)
    return cut_pcap, cut_ng, marked_pcap, gone, marked


def chain(tmp, n, hop_us, offsets_us, gone_from, missed_at, ce_from):
    """n captures of node0 of the nccl run as n points in a line would take them: point k
    is k hops of hop_us from node0 (its packets out reach it k * hop_us later, those in
    k * hop_us earlier) on a clock offsets_us[k] ahead of A's. Of node0's RDMA packets out,
    picked by (source, destqp, psn) where it sent them once: the first is gone from point gone_from
    on (lost on the segment before it), the second missing at point missed_at alone
    (a capture miss) and the third CE-marked from point ce_from on. Returns (the files,
    the RDMA packets out, the RDMA packets in)."""
    n0 = files("nccl")[0]
    rows = t.run([t.ROCESHARK, "read", "-r", n0, "-T", "fields", "-e", "ip.src", "-e",
                  "infiniband.bth.destqp", "-e", "infiniband.bth.psn"]).stdout.splitlines()
    _, linktype, recs = ln.read_pcap(n0)
    t.check(len(rows) == len(recs), "%d rows for %d frames" % (len(rows), len(recs)))
    keys = [tuple(r.split("\t")) for r in rows]
    out_keys = [k for k in keys if k[0] == "172.30.0.25" and k[1]]
    once = [k for k in out_keys if out_keys.count(k) == 1]
    gone, missed, marked = once[10], once[20], once[30]
    paths = []
    for p in range(n):
        frames = []
        for (sec, usec, data, orig), k in zip(recs, keys):
            if not k[1] or (k == gone and p >= gone_from) or (k == missed and p == missed_at):
                continue    # RDMA packets alone: the others only move time on
            if k == marked and p >= ce_from:
                data = ce_mark(data)
            hops = p if k[0] == "172.30.0.25" else -p
            at = sec * 1000000 + usec + offsets_us[p] + hops * hop_us
            frames.append((at, data, orig))
        frames.sort(key=lambda f: f[0])     # a capture is in time order
        paths.append(os.path.join(tmp, "point%d.pcap" % p))
        out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype)]
        for at, data, orig in frames:
            out.append(struct.pack("<IIII", at // 1000000, at % 1000000, len(data), orig) + data)
        open(paths[-1], "wb").write(b"".join(out))
    n_in = sum(1 for k in keys if k[1] and k[0] != "172.30.0.25")
    return paths, len(out_keys), n_in
