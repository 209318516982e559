#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""roceshark correlate on real multi-point captures: the three hosts of each NCCL run
(tests/captures/real, SOURCES.md). Every RDMA packet of a run is sent by one host and
received by another, so each must be matched at exactly two points, with no loss, no
contradiction (seen downstream before upstream beyond the clocks' bound), a bounded
offset for each host, and per-packet fields that -T fields and -Y read. Bad arguments get
one-line errors."""
import os
import re
import struct

import livenet as ln
import rstest as t

RUNS = {"nccl": 276, "ring2": 276, "tree2": 124}   # RDMA packets across the three hosts


def files(run):
    base = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_nccl_%s_node" % run)
    return ["%s%d.pcap" % (base, n) for n in range(3)]


def correlate(args):
    p = t.run([t.ROCESHARK, "correlate"] + args, check_rc=False)
    t.check(p.returncode == 0, "correlate %s: exit %d %s" % (args, p.returncode, p.stderr))
    return p.stdout


for run, packets in RUNS.items():
    rs = []
    for f in files(run):
        rs += ["-r", f]
    out = correlate(rs + ["-q", "-z", "corr,qp"])
    m = re.search(r"Packets: (\d+), matched at 2\+ points: (\d+), lost: (\d+), CE marked: (\d+), "
                  r"missed by a capture: (\d+), contradictions: (\d+)", out)
    t.check(m is not None, "%s: no totals line in %r" % (run, out))
    total, matched, lost, ce, missed, contra = map(int, m.groups())
    t.check((total, matched, lost, ce, missed, contra) == (packets, packets, 0, 0, 0, 0),
            "%s: packets %d matched %d lost %d ce %d missed %d contradictions %d"
            % (run, total, matched, lost, ce, missed, contra))
    clocks = re.findall(r"^  ([BC]): .*: offset ([-+][\d.]+) us \+- ([\d.]+) us", out, re.M)
    t.check(len(clocks) == 2, "%s: offsets of B and C with a bound: %r" % (run, out))
    for point, offset, bound in clocks:
        t.check(float(bound) < 1000, "%s: %s's bound %s us" % (run, point, bound))
    # the per-packet fields: one line per packet, each seen at two points with one delay
    lines = correlate(rs + ["-T", "fields", "-e", "roceshark.corr.seen_at", "-e",
                            "roceshark.corr.segment", "-e", "roceshark.corr.delay", "-e",
                            "roceshark.corr.lost_between", "-e", "infiniband.bth.psn"]).splitlines()
    t.check(len(lines) == packets, "%s: %d lines for %d packets" % (run, len(lines), packets))
    for line in lines:
        seen, seg, delay, lost, psn = line.split("\t")
        t.check(len(seen.split(",")) == 2 and re.fullmatch(r"[ABC]>[ABC]", seg) and lost == ""
                and psn != "", "%s: %r" % (run, line))
        # upstream first: the delay after the offsets is not below minus both bounds
        bounds = {p: float(b) for p, _, b in clocks}
        t.check(float(delay) * 1e6 > -(bounds.get(seg[0], 0) + bounds.get(seg[2], 0)),
                "%s: contradiction %r" % (run, line))
    # -Y reads the fields: no packet was lost; a segment's packets are those -T fields says
    t.check(correlate(rs + ["-Y", "roceshark.corr.lost_between"]) == "",
            "%s: -Y roceshark.corr.lost_between shows packets" % run)
    want = sum(1 for line in lines if line.split("\t")[1] == "C>A")
    n = len(correlate(rs + ["-Y", 'roceshark.corr.segment == "C>A"']).splitlines())
    t.check(n == want and n > 0, "%s: -Y on segment C>A finds %d of %d" % (run, n, want))

# Capture loss against network loss: node1 of the nccl run with three frames from node0
# taken out is three losses; the same frames written as pcapng with an Interface Statistics
# Block that records three drops (isb_ifdrop) are capture misses, not losses.
def pcapng(path, linktype, recs, ifdrop):
    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", btype, len(body) + 12) + body + struct.pack("<I", len(body) + 12)
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", linktype, 0, 0))     # microseconds: the default
    last = 0
    for sec, usec, data, orig in recs:
        last = sec * 1000000 + usec
        out += block(6, struct.pack("<IIIII", 0, last >> 32, last & 0xffffffff, len(data), orig)
                     + data)
    if ifdrop is not None:
        out += block(5, struct.pack("<III", 0, last >> 32, last & 0xffffffff) +
                     struct.pack("<HHQ", 4, 8, ifdrop) + struct.pack("<HH", 0, 0))
    open(path, "wb").write(out)


tmp = t.tempdir()
n0, n1 = files("nccl")[0], files("nccl")[1]
rows = correlate(["-r", n0, "-r", n1, "-Y", 'roceshark.corr.segment == "A>B"', "-T", "fields",
                  "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.psn"]).splitlines()
t.check(len(rows) >= 20, "A>B packets of node0 and node1: %d" % len(rows))
at_b = t.run([t.ROCESHARK, "read", "-r", n1, "-T", "fields", "-e", "infiniband.bth.destqp", "-e",
              "infiniband.bth.psn"]).stdout.splitlines()
once = [r for r in rows if at_b.count(r) == 1]
gone = set(once[len(once) // 2:len(once) // 2 + 3])
_, linktype, recs = ln.read_pcap(n1)
keep = [r for r, key in zip(recs, at_b) if key not in gone]
t.check(len(keep) == len(recs) - 3, "%d of %d frames kept" % (len(keep), len(recs)))
cut_pcap, cut_ng = os.path.join(tmp, "cut.pcap"), os.path.join(tmp, "cut.pcapng")
pcapng(cut_ng, linktype, keep, 3)
pcapng(cut_pcap, linktype, keep, None)
totals = r"lost: (\d+), CE marked: \d+, missed by a capture: (\d+)"
out = correlate(["-r", n0, "-r", cut_pcap, "-q", "-z", "corr,qp"])
t.check(re.search(totals, out).groups() == ("3", "0"), "no statistics: %r" % out)
out = correlate(["-r", n0, "-r", cut_ng, "-q", "-z", "corr,qp"])
t.check(re.search(totals, out).groups() == ("0", "3") and
        "Capture drops recorded at B (pcapng statistics): 3;" in out and
        "not told apart: 3 in all" in out, "with the capture's drops: %r" % out)
lines = correlate(["-r", n0, "-r", cut_ng, "-Y", "roceshark.corr.missed_at", "-T", "fields",
                   "-e", "roceshark.corr.missed_at", "-e", "roceshark.corr.lost_between"])
t.check(lines.splitlines() == ["B\t"] * 3, "missed at B, lost nowhere: %r" % lines)

# Two points that share no packet: A (node0 of one run) and B (of another) match nothing.
a, b = files("nccl")[0], files("tree2")[1]
out = correlate(["-r", a, "-r", b, "-q", "-z", "corr,qp"])
t.check("matched at 2+ points: 0," in out and "clock unknown" in out,
        "unrelated captures: %r" % out)

for args, words in ((["-r", a], "give the captures of 2 points or more"),
                    (["-r", a, "-r", "-"], "not from standard input"),
                    (["-r", a, "-r", b, "--window", "0"], "--window 0"),
                    (["-r", a, "-r", b, "--path", "A,A"], "--path A,A"),
                    (["-r", a, "-r", b, "-z", "conv,qp"], "-z conv,qp"),
                    (["-r", a, "-r", b, "-Y", "roceshark.corr.delay >"], "-Y"),
                    (["-r", a, "-r", b, "-T", "fields", "-e", "no.such"], "-e no.such")):
    p = t.run([t.ROCESHARK, "correlate"] + args, check_rc=False)
    t.check(p.returncode == 1 and words in p.stderr and len(p.stderr.splitlines()) == 1,
            "%s: exit %d %r" % (" ".join(args), p.returncode, p.stderr))
p = t.run([t.ROCESHARK, "correlate", "-r", a, "-r", "/nonexistent.pcap"], check_rc=False)
t.check(p.returncode == 2 and len(p.stderr.splitlines()) == 1, "missing file: exit %d %r"
        % (p.returncode, p.stderr))
t.finish("correlate")
