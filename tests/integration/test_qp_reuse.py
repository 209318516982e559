#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The analysis knows that a QP can be created again (docs/analysis.md, "QP lifetimes"), on
tests/captures/qp_reuse/three_runs.pcap: `roceshark perf write_bw`, then Debian's
ib_write_bw and ibv_rc_pingpong through `roceshark run`, all three at QP 0x11 on both hosts
(tests/gen/gen_qp_reuse.py made it):
  - no transport rule violation, no retransmission, no PSN gap, and exactly two notes
    `roceshark.analysis.qp_reused`, on the first packet of the second and third runs, each
    naming the conversation before (perftest's and ibv_rc_pingpong's exchanges over TCP say
    where a run starts);
  - the same with the TCP exchanges filtered out: the PSNs' restart after a quiet gap says it;
  - roceshark.analysis.psn_rel counts from each run's first PSN: 0 on each first request, and
    -Y and -e select by it;
  - `-z expert` shows the note, under Sequence, as a Note; with --compat tshark it is
    tshark 4.0's table of Wireshark's items instead: TCP's, first seen first, the two
    D-SACKs of one option each, and no note of ours (tshark has none)."""
import os
import re

import rstest as t

CAP = os.path.join(t.SOURCE_DIR, "tests", "captures", "qp_reuse", "three_runs.pcap")
FIELDS = ["frame.number", "infiniband.bth.opcode", "roceshark.analysis.conv",
          "roceshark.analysis.violation", "roceshark.analysis.retransmission",
          "roceshark.analysis.psn_gap", "roceshark.analysis.qp_reused",
          "roceshark.analysis.psn_rel"]


def check_runs(path, what):
    rows = [r for r in t.roceshark_fields(path, FIELDS) if r[1] != ""]   # RoCE frames
    viol = [r for r in rows if r[3] != "" or r[4] != "" or r[5] != ""]
    t.check(len(rows) == 43 and not viol,
            "%s: no violation, retransmission or gap in %d RoCE frames: %s"
            % (what, len(rows), viol[:4]))
    notes = [r for r in rows if r[6] != ""]
    t.check([(r[2], r[6], r[7]) for r in notes] == [("2", "1", "0"), ("3", "2", "0")],
            "%s: two qp_reused notes, the second and third runs' first packets naming the "
            "conversation before, at relative PSN 0: %s" % (what, notes))
    # Every conversation's first packet is at relative PSN 0.
    first = {}
    for r in rows:
        first.setdefault(r[2], r[7])
    t.check(sorted(first) == ["1", "2", "3", "4"] and set(first.values()) == {"0"},
            "%s: four conversations, each starting at relative PSN 0: %s" % (what, first))
    return rows


# The setups are in the capture: perftest's key messages and ibv_rc_pingpong's.
sizes = [r[0] for r in t.roceshark_fields(CAP, ["tcp.len"], ["-Y", "tcp.len > 0"])]
t.check(sizes.count("108") >= 2 and sizes.count("52") == 2,
        "the exchanges of runs 2 and 3 are in the capture: TCP payloads %s" % sizes)
rows = check_runs(CAP, "three runs")
p = t.run([t.ROCESHARK, "read", "-r", CAP, "-q", "-z", "expert"])
t.check("Transport rule violation" not in p.stdout and
        re.search(r"^\s+2\s+Sequence\s+roceshark\s+QP numbers reused: a new conversation"
                  r"\s+\d+ \d+$", p.stdout, re.M) is not None,
        "-z expert: the two notes of QP reuse:\n%s" % p.stdout)

# tshark 4.0's -z expert on this capture, word for word.
TSHARK_EXPERT = """
Warns (3)
=============
   Frequency      Group           Protocol  Summary
           2   Sequence                TCP  D-SACK Sequence
           1   Sequence                TCP  Connection reset (RST)

Notes (9)
=============
   Frequency      Group           Protocol  Summary
           5   Sequence                TCP  This frame initiates the connection closing
           2   Sequence                TCP  This frame is a (suspected) retransmission
           2   Sequence                TCP  This frame undergoes the connection closing

Chats (13)
=============
   Frequency      Group           Protocol  Summary
           1   Sequence                TCP  Connection establish request (SYN): server port 18600
           1   Sequence                TCP  Connection establish acknowledge (SYN+ACK): server port 18600
           7   Sequence                TCP  Connection finish (FIN)
           1   Sequence                TCP  Connection establish request (SYN): server port 18601
           1   Sequence                TCP  Connection establish acknowledge (SYN+ACK): server port 18601
           1   Sequence                TCP  Connection establish request (SYN): server port 18602
           1   Sequence                TCP  Connection establish acknowledge (SYN+ACK): server port 18602
"""
p = t.run([t.ROCESHARK, "read", "-r", CAP, "-q", "-z", "expert", "--compat", "tshark"])
t.check(p.stdout == TSHARK_EXPERT, "-z expert --compat tshark: tshark's table:\n%s" % p.stdout)
p = t.run([t.ROCESHARK, "read", "-r", CAP, "-q", "-z", "expert,warn,tcp.srcport == 18600",
           "-o", "roceshark.info:tshark"])
t.check(p.stdout == "\nWarns (1)\n" + TSHARK_EXPERT.split("\n", 2)[2].split("  2 ")[0] +
        "  1   Sequence                TCP  D-SACK Sequence\n",
        "-z expert,warn,FILTER in tshark's form: warnings of the frames it takes:\n%s"
        % p.stdout)

# Without the TCP exchanges: the PSNs restart far away after the pause between runs.
tmp = t.tempdir()
udp = os.path.join(tmp, "udp.pcap")
t.run([t.ROCESHARK, "read", "-r", CAP, "-Y", "udp.port == 4791", "-w", udp])
check_runs(udp, "three runs, UDP only")

# psn_rel in filters and -e: each run's fourth request (relative PSN 3) is the same frame
# that the absolute PSN names.
fourth = t.roceshark_fields(CAP, ["frame.number", "roceshark.analysis.conv", "infiniband.bth.psn"],
                           ["-Y", "roceshark.analysis.psn_rel == 3 && "
                            "!infiniband.aeth && ip.src == 127.0.0.22"])
t.check([r[1] for r in fourth] == ["1", "2", "3"],
        "-Y roceshark.analysis.psn_rel == 3: one request of each run: %s" % fourth)
by_frame = {r[0]: r for r in rows}
for r in fourth:
    first = next(x for x in rows if x[2] == r[1])
    t.check(int(r[2]) == (int(t.roceshark_fields(CAP, ["infiniband.bth.psn"],
                                                 ["-Y", "frame.number == %s" % first[0]])[0][0])
                          + 3) & 0xffffff and r[0] in by_frame,
            "conversation %s: relative PSN 3 is its first PSN + 3: %s" % (r[1], r))
# Not in the tree nor the JSON: they stay tshark's.
p = t.run([t.ROCESHARK, "read", "-r", CAP, "-V", "-c", "50"])
t.check("Relative PSN" not in p.stdout and "QP numbers reused: 1" in p.stdout,
        "-V shows the note and not the relative PSN")
t.finish("qp_reuse")
