#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""roceshark tui with the captures of several points, in tmux: F8 shows each packet
followed across them, as roceshark correlate finds it. On node0 and node1 of an NCCL run
with three packets taken out of node1: the heading's totals are correlate's (3 lost), a row
per packet (its segment's delay, or LOST), `x` keeps the three lost packets alone (their
QP and PSN those taken out), and Enter on one shows that frame of node0 in the Packets view.
With two packets CE-marked at node1, `x` keeps those two, marked CE on A>B. With 12 points
in a line (more segments than the terminal is wide for), Right scrolls the segment columns
to the one that lost a packet. With one -r, F8 says what it needs."""
import re

import rstest as t
from corrcaps import chain, cut_node1, files
from tuitmux import keys, start, stop_session, wait_for

tmp = t.tempdir()
n0 = files("nccl")[0]
cut_pcap, _, marked_pcap, gone, marked = cut_node1(tmp)
ROW = re.compile(r"^\s*([A-Z]+):(\d+)\s+([A-Z]+(?:,[A-Z]+)*)\s+(.*)$")


def totals(b):
    out = t.run([t.ROCESHARK, "correlate", "-r", n0, "-r", b, "-q", "-z", "corr,qp"]).stdout
    m = re.search(r"Packets: (\d+), matched at 2\+ points: (\d+), lost: (\d+), CE marked: "
                  r"(\d+), missed by a capture: (\d+), contradictions: (\d+)", out)
    return ("Packets %s, matched at 2+ points %s, lost %s, CE marked %s, missed by a capture "
            "%s, contradictions %s" % m.groups())


def rows(lines):
    return [ROW.match(l) for l in lines[4:-1] if ROW.match(l)]


def qp_psn(info):
    """"destqp\\tpsn" as -T fields prints them, from a row's Info."""
    m = re.search(r"QP=(0x[0-9a-f]+) PSN=(\d+)", info)
    return "0x%06x\t%s" % (int(m.group(1), 16), m.group(2)) if m else info


def segments_view(b, width=200):
    start(tmp, width, 40, ["-r", n0, "-r", b])
    wait_for(lambda s: "loaded" in s[-1], "the file loads")
    keys("F8")
    want = totals(b)
    return wait_for(lambda s: s[1].startswith(want) and len(rows(s)) > 20,
                    "F8: the totals %r and the rows" % want)


# Three packets lost between A and B.
lines = segments_view(cut_pcap)
t.check("[F8 Segments]" in lines[0], "the view bar: %r" % lines[0])
t.check(re.search(r"B [-+][\d.]+ us \+- [\d.]+ us", lines[2]) is not None,
        "B's clock with its bound: %r" % lines[2])
# A row seen at both points has its segment's delay; one seen at one point (node1's
# conversations with node2) none.
for m in rows(lines):
    t.check(re.match(r"[AB]>[AB] [-\d.]+us" if m.group(3) in ("A,B", "B,A") else r"RC ",
                     m.group(4)) is not None, "a row: %r" % m.group(0))
keys("x")
lines = wait_for(lambda s: len(rows(s)) == 3, "x: the three lost packets alone")
got = rows(lines)
t.check(all("A>B LOST" in m.group(4) and m.group(3) == "A" for m in got),
        "lost on A>B, seen at A alone: %r" % [m.group(0) for m in got])
t.check({qp_psn(m.group(4)) for m in got} == gone,
        "the packets taken out: %r, not %r" % ([m.group(4) for m in got], gone))
keys("Down", "Enter")
number = got[1].group(2)
wait_for(lambda s: "[F3 Packets]" in s[0] and any(l.strip() == "Packet %s" % number
                                                  for l in s),
         "Enter shows frame %s of node0" % number)
stop_session()

# Two packets CE-marked between A and B.
segments_view(marked_pcap)
keys("x")
lines = wait_for(lambda s: len(rows(s)) == 2, "x: the two CE-marked packets alone")
got = rows(lines)
t.check(all(re.search(r"A>B CE [\d.]+us", m.group(4)) and m.group(3) == "A,B" for m in got)
        and {qp_psn(m.group(4)) for m in got} == marked,
        "CE marked on A>B: %r, want %r" % ([m.group(0) for m in got], marked))
stop_session()

# 12 points in a line (corrcaps.chain): one packet lost on I>J, the 9th segment, one missed
# at E, one CE-marked on F>G. At 120 columns some 5 segment columns show; Right scrolls them.
points, _, _ = chain(tmp, 12, 10, [0] + [k * 100 + 3 for k in range(1, 12)], 9, 4, 6)
start(tmp, 120, 40, [x for f in points for x in ("-r", f)])
wait_for(lambda s: "loaded" in s[-1], "12 points load")
keys("F8", "x")
lines = wait_for(lambda s: len(rows(s)) == 3, "x: lost, missed and CE-marked alone")
t.check("Segment 1 " in lines[3] and "Segment 9" not in lines[3] and
        not any("I>J LOST" in l for l in lines), "12 points, unscrolled: %r" % lines[3])
keys(*["Right"] * 5)
lines = wait_for(lambda s: "<  Segment 6 " in s[3], "Right x5: from segment 6")
t.check(sum("I>J LOST" in l for l in lines) == 1 and "Segment 1 " not in lines[3],
        "12 points, scrolled: %r" % lines[3:8])
keys(*["Left"] * 6)
wait_for(lambda s: s[3].split()[2:4] == ["Segment", "1"], "Left x6: back to segment 1")
stop_session()

# One file: F8 is not in the bar, and says what it needs.
start(tmp, 200, 40, ["-r", n0])
lines = wait_for(lambda s: "loaded" in s[-1], "one file loads")
t.check("F8" not in lines[0], "no F8 with one file: %r" % lines[0])
keys("F8")
wait_for(lambda s: "needs the captures of several points" in s[-1], "F8 with one file")
stop_session()
t.finish("tui_correlate")
