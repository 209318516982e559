#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""roceshark correlate on real multi-point captures: the three hosts of each NCCL run
(tests/captures/real, SOURCES.md). Every RDMA packet of a run is sent by one host and
received by another, so each must be matched at exactly two points, with no loss, no
contradiction (seen downstream before upstream beyond the clocks' bound), a bounded
offset for each host, and per-packet fields that -T fields and -Y read. More points than
letters (28: A to Z, AA, AB), each with its own clock, hop delay, loss, capture miss and CE
mark, give exact counts, offsets and delays. Bad arguments get one-line errors."""
import os
import re
import resource
import subprocess
import xml.etree.ElementTree as ET

import rstest as t
from corrcaps import chain, cut_node1, files

RUNS = {"nccl": 276, "ring2": 276, "tree2": 124}   # RDMA packets across the three hosts


def correlate(args):
    p = t.run([t.ROCESHARK, "correlate"] + args, check_rc=False)
    t.check(p.returncode == 0, "correlate %s: exit %d %s" % (args, p.returncode, p.stderr))
    return p.stdout


ROWS = {}      # each run's packets as -T fields gives them: (segment, lost, CE)
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
                            "roceshark.corr.lost_between", "-e", "infiniband.bth.psn", "-e",
                            "roceshark.corr.ce_marked_between"]).splitlines()
    t.check(len(lines) == packets, "%s: %d lines for %d packets" % (run, len(lines), packets))
    ROWS[run] = [(line.split("\t")[1], line.split("\t")[3], line.split("\t")[5])
                 for line in lines]     # segment, lost, CE: what plot segments draws
    for line in lines:
        seen, seg, delay, lost, psn, ce = line.split("\t")
        t.check(len(seen.split(",")) == 2 and re.fullmatch(r"[ABC]>[ABC]", seg) and lost == ""
                and psn != "" and ce == "", "%s: %r" % (run, line))
        # upstream first: the delay after the offsets is not below minus both bounds
        bounds = {p: float(b) for p, _, b in clocks}
        t.check(float(delay) * 1e6 > -(bounds.get(seg[0], 0) + bounds.get(seg[2], 0)),
                "%s: contradiction %r" % (run, line))
    # -Y reads the fields: no packet was lost; a segment's packets are those -T fields says
    # (on one run: -Y reads the fields -T fields printed for every run above)
    if run != "nccl":
        continue
    t.check(correlate(rs + ["-Y", "roceshark.corr.lost_between"]) == "",
            "%s: -Y roceshark.corr.lost_between shows packets" % run)
    want = sum(1 for line in lines if line.split("\t")[1] == "C>A")
    n = len(correlate(rs + ["-Y", 'roceshark.corr.segment == "C>A"']).splitlines())
    t.check(n == want and n > 0, "%s: -Y on segment C>A finds %d of %d" % (run, n, want))

# Capture loss against network loss: node1 of the nccl run with three frames from node0
# taken out is three losses; the same frames written as pcapng with an Interface Statistics
# Block that records three drops (isb_ifdrop) are capture misses, not losses.
tmp = t.tempdir()
n0 = files("nccl")[0]
cut_pcap, cut_ng, marked_pcap, gone, marked = cut_node1(tmp)
totals = r"lost: (\d+), CE marked: \d+, missed by a capture: (\d+)"
out = correlate(["-r", n0, "-r", cut_pcap, "-q", "-z", "corr,qp"])
t.check(re.search(totals, out).groups() == ("3", "0"), "no statistics: %r" % out)
# read's -z tables count the packets by the roceshark.corr.* fields too: the three losses,
# no capture miss, and the packets seen at A as -Y finds them.
io = correlate(["-r", n0, "-r", cut_pcap, "-q", "-z", "io,stat,0,roceshark.corr.lost_between,"
                "roceshark.corr.missed_at,roceshark.corr.seen_at contains \"A\""])
frames = [int(n) for n in re.findall(r"\|\s+(\d+) \|\s+\d+ ", io)]
at_a = len(correlate(["-r", n0, "-r", cut_pcap, "-Y", "roceshark.corr.seen_at contains \"A\""])
           .splitlines())
t.check(frames == [3, 0, at_a] and at_a > 100, "-z io,stat over roceshark.corr.*: %r" % io)
out = correlate(["-r", n0, "-r", cut_ng, "-q", "-z", "corr,qp"])
t.check(re.search(totals, out).groups() == ("0", "3") and
        "Capture drops recorded at B (pcapng statistics): 3;" in out and
        "not told apart: 3 in all" in out, "with the capture's drops: %r" % out)
# -q matches on the records of each frame the estimating pass wrote to $TMPDIR, not on the
# captures read again; where no such file can be made, it reads them: the same report.
p = t.run([t.ROCESHARK, "correlate", "-r", n0, "-r", cut_ng, "-q", "-z", "corr,qp"],
          env=dict(os.environ, TMPDIR=os.path.join(tmp, "none")))
t.check(p.stdout == out and p.stderr == "", "the captures read again: %r" % p.stdout)
lines = correlate(["-r", n0, "-r", cut_ng, "-Y", "roceshark.corr.missed_at", "-T", "fields",
                   "-e", "roceshark.corr.missed_at", "-e", "roceshark.corr.lost_between"])
t.check(lines.splitlines() == ["B\t"] * 3, "missed at B, lost nowhere: %r" % lines)
# A CE mark put on two packets at B is found on segment A>B.
lines = correlate(["-r", n0, "-r", marked_pcap, "-Y", "roceshark.corr.ce_marked_between", "-T",
                   "fields", "-e", "roceshark.corr.ce_marked_between", "-e",
                   "infiniband.bth.destqp", "-e", "infiniband.bth.psn"]).splitlines()
t.check(sorted(lines) == sorted("A>B\t" + k for k in marked), "CE marked: %r" % lines)

# plot segments: one panel per segment, whose delay bars count the packets both ends saw,
# whose red triangles count its losses and orange ticks its CE marks, as correlate's fields
# say (in the bins of their times), and which renders. Drawn with the records of each frame
# (no frame is printed), checked against the fields of correlate, which reads the captures
# again to print them.
def plot_segments(files_, render=False, rows=None):
    svg = os.path.join(tmp, "segments.svg")
    args = [t.ROCESHARK, "plot", "segments", "-o", svg]
    for f in files_:
        args += ["-r", f]
    t.run(args)
    if render:
        t.run(["rsvg-convert", svg, "-o", svg + ".png"])
    want = {}
    if rows is None:
        rows = [line.split("\t") for line in
                correlate(["-T", "fields", "-e", "roceshark.corr.segment", "-e",
                           "roceshark.corr.lost_between", "-e",
                           "roceshark.corr.ce_marked_between"] +
                          [x for f in files_ for x in ("-r", f)]).splitlines()]
    for seg, lost, ce in rows:
        for s in seg.split(",") if seg else []:
            want.setdefault(s, [0, 0, 0])[0] += 1
        if lost:
            want.setdefault(lost, [0, 0, 0])[1] += 1
        if ce:
            want.setdefault(ce, [0, 0, 0])[2] += 1
    got = {}
    ns = "{http://www.w3.org/2000/svg}"
    for g in ET.parse(svg).getroot().iter(ns + "g"):
        counts = [sum(int(e.get("data-count")) for e in g.iter() if e.get("class") == k)
                  for k in ("delay", "lost", "ce")]
        t.check(counts == [int(g.get("data-" + k)) for k in ("packets", "lost", "ce")],
                "%s: the panel's marks %r against its heading" % (g.get("data-segment"), counts))
        got[g.get("data-segment")] = counts
    t.check(got == want, "plot segments %s: %r, correlate says %r" % (files_, got, want))
    return got


t.check(plot_segments([n0, cut_pcap], render=True)["A>B"][1] == 3, "three lost on A>B")
t.check(plot_segments([n0, marked_pcap])["A>B"][2] == 2, "two CE marked on A>B")
# one rendering (above): the runs draw alike; the fields are those the run gave above
got = plot_segments(files("nccl"), rows=ROWS["nccl"])
t.check(len(got) == 6 and sum(v[0] for v in got.values()) == RUNS["nccl"],
        "the nccl run's six segments: %r" % got)

# 28 points in a line, past Z: node0's capture as each point takes it (corrcaps.chain):
# 10 us a hop, each clock its own offset; one packet lost from J on (I>J), one missed by
# the capture at E alone, one CE-marked from G on (F>G).
N, HOP = 28, 10
OFFS = [0] + [((k * 7) % N) * 250 + 3 for k in range(1, N)]
GONE, MISSED, CE = 9, 4, 6
points, n_out, n_in = chain(tmp, N, HOP, OFFS, GONE, MISSED, CE)
names = [chr(65 + k) if k < 26 else "A" + chr(65 + k - 26) for k in range(N)]
rs = [x for f in points for x in ("-r", f)]
# --path in the order the conversations out take (those in go the other way): as learned.
# The fields of each packet, then the table.
out = correlate(rs + ["--path", ",".join(names), "-z", "corr,qp", "-T", "fields", "-e",
                      "roceshark.corr.segment", "-e", "roceshark.corr.lost_between", "-e",
                      "roceshark.corr.ce_marked_between", "-e", "roceshark.corr.seen_at", "-e",
                      "roceshark.corr.missed_at"])
rows = [line.split("\t") for line in out.split("=" * 80)[0].splitlines()]
t.check(len(rows) == n_out + n_in, "28 points: %d rows" % len(rows))
t.check("Packets: %d, matched at 2+ points: %d, lost: 1, CE marked: 1, missed by a capture: "
        "1, contradictions: 0" % (n_out + n_in, n_out + n_in) in out, "28 points: %s" % out)
for k in range(1, N):
    # the two-way bound: half the fastest round trip, k hops each way
    want = "  %s: %s: offset +%.1f us +- %.1f us, drift +0.000 ppm" % (names[k], points[k],
                                                                      OFFS[k], k * HOP)
    t.check(want in out, "28 points: %r not in %s" % (want, out))
segs = {}       # (conversation, segment) -> (packets, lost, CE, p50, p99, max)
conv = None
for line in out.splitlines():
    m = re.match(r"(.{42}) (\S+>\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+0$",
                 line)
    if m:
        conv = m.group(1).strip() or conv
        segs[(conv, m.group(2))] = tuple(int(x) for x in m.group(3, 4, 5)) + m.group(6, 7, 8)
fwd = ["%s>%s" % (names[k], names[k + 1]) for k in range(N - 1)]
back = ["%s>%s" % (names[k + 1], names[k]) for k in range(N - 2, -1, -1)]
convs = sorted({c for c, _ in segs})
t.check(len(convs) == 4 and len(segs) == 4 * (N - 1), "28 points: 4 conversations of 27 "
        "segments: %r" % sorted(segs))
for c in convs:
    path = fwd if c.startswith("172.30.0.25 >") else back
    t.check([s for cc, s in segs if cc == c] == path, "%s: segments in path order" % c)
    for s in path:
        t.check(segs[(c, s)][3:] == ("10.0", "10.0", "10.0"), "%s %s: %r" % (c, s, segs[(c, s)]))
lost = [(c, s) for (c, s), v in segs.items() if v[1]]
marked = [(c, s) for (c, s), v in segs.items() if v[2]]
t.check([s for _, s in lost] == ["I>J"] and segs[lost[0]][1] == 1, "lost: %r" % lost)
t.check([s for _, s in marked] == ["F>G"] and segs[marked[0]][2] == 1, "CE: %r" % marked)
# the lost packet's conversation (the missed one's too): one fewer from J on, and on E>F
c = lost[0][0]
full = segs[(c, "A>B")][0]
for k, s in enumerate(fwd):
    want = full - (k >= GONE) - (k == MISSED)
    t.check(segs[(c, s)][0] == want, "%s %s: %d packets, want %d" % (c, s, segs[(c, s)][0], want))
t.check([r[1:] for r in rows if r[1] or r[2] or r[4]] ==
        [["I>J", "", ",".join(names[:GONE]), ""],
         ["", "", ",".join(names[:MISSED] + names[MISSED + 1:]), "E"],
         ["", "F>G", ",".join(names), ""]], "28 points' fields: %r" % rows)
got = plot_segments(points, rows=[r[:3] for r in rows])
t.check(sorted(got) == sorted(fwd + back) and got["I>J"][1] == 1 and got["F>G"][2] == 1,
        "28 points' panels: %r" % got)

# points are bounded by memory and open files alone: past the open-file limit, one line
p = subprocess.run([t.ROCESHARK, "correlate"] + rs + ["-q"], capture_output=True, text=True,
                   preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (20, 20)))
t.check(p.returncode == 2 and p.stderr.endswith(": Too many open files\n") and
        len(p.stderr.splitlines()) == 1, "28 points, 20 files: exit %d %r"
        % (p.returncode, p.stderr))

# Two points that share no packet: A (node0 of one run) and B (of another) match nothing.
a, b = files("nccl")[0], files("tree2")[1]
out = correlate(["-r", a, "-r", b, "-q", "-z", "corr,qp"])
t.check("matched at 2+ points: 0," in out and "clock unknown" in out,
        "unrelated captures: %r" % out)

for args, words in ((["-r", a], "give the captures of 2 points or more"),
                    (["-r", a, "-r", "-"], "not from standard input"),
                    (["-r", a, "-r", b, "--window", "0"], "--window 0"),
                    (["-r", a, "-r", b, "--path", "A,A"], "--path A,A"),
                    (["-r", a, "-r", b, "--path", "A,AA"], "points A to B once"),
                    (["-r", a, "-r", b, "-z", "conv,qp"], "-z conv,qp"),
                    (["-r", a, "-r", b, "-z", "expert"], "correlate runs no transport"),
                    (["-r", a, "-r", b, "-z", "iwarp"], "correlate runs no transport"),
                    (["-r", a, "-r", b, "-Y", "roceshark.corr.delay >"], "-Y"),
                    (["-r", a, "-r", b, "-T", "fields", "-e", "no.such"], "-e no.such"),
                    (["plot", "segments", "-r", a, "-o", "x.svg"], "-r FILE twice or more"),
                    (["plot", "segments", "-r", a, "-r", b], "-o OUT.svg"),
                    (["plot", "segments", "-r", a, "-r", "-", "-o", "x.svg"], "standard input"),
                    (["plot", "segments", "-r", a, "-r", b, "-o", "x.svg", "--path", "C"],
                     "--path C"),
                    (["plot", "psn", "-r", a, "--qp", "1", "-o", "x.svg", "--window", "1s"],
                     "plot segments'")):
    cmd = args if args[0] == "plot" else ["correlate"] + args
    p = t.run([t.ROCESHARK] + cmd, check_rc=False)
    t.check(p.returncode == 1 and words in p.stderr and len(p.stderr.splitlines()) == 1,
            "%s: exit %d %r" % (" ".join(args), p.returncode, p.stderr))
p = t.run([t.ROCESHARK, "correlate", "-r", a, "-r", "/nonexistent.pcap"], check_rc=False)
t.check(p.returncode == 2 and len(p.stderr.splitlines()) == 1, "missing file: exit %d %r"
        % (p.returncode, p.stderr))
t.finish("correlate")
