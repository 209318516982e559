#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The transport analysis against the truth of simulated RC traces (tests/gen/gen_rc.py):
loss before and after the capture point, duplicates, delays, sequence and RNR NAKs,
go-back-N, READ re-requests, several PMTUs and QPs between the same hosts, PSN wrap, ECN
marks and CNPs. Every analysis field of every frame must equal the truth exactly, and the
traces must show no rule violation (the simulated endpoints follow the rules)."""
import json
import os

import rstest as t

FIELDS = ["frame.number", "roceshark.analysis.conv", "roceshark.analysis.psn_gap",
          "roceshark.analysis.retransmission", "roceshark.analysis.request_frame",
          "roceshark.analysis.response_time", "roceshark.analysis.acked_frame",
          "roceshark.analysis.nak", "roceshark.analysis.rnr_delay",
          "roceshark.analysis.msg.len", "roceshark.analysis.msg.first_frame",
          "roceshark.analysis.msg.packets", "roceshark.analysis.ecn_ce",
          "roceshark.analysis.cnp_for", "roceshark.analysis.cnp_since_ce",
          "roceshark.analysis.violation", "roceshark.analysis.opcode_sequence_error",
          "roceshark.analysis.length_mismatch"]


def seconds(ns):
    return "%d.%09d" % (ns // 10**9, ns % 10**9)


def expected(tr):
    msg = tr.get("msg") or ["", "", ""]
    return [str(tr["frame"]), str(tr.get("conv", "")), str(tr.get("gap", "")),
            "1" if tr.get("retx") else "", str(tr.get("request_frame", "")),
            seconds(tr["response_time_ns"]) if "response_time_ns" in tr else "",
            str(tr.get("acked_frame", "")), tr.get("nak", ""),
            seconds(tr["rnr_delay_ns"]) if "rnr_delay_ns" in tr else "",
            str(msg[0]), str(msg[1]), str(msg[2]), "1" if tr.get("ecn_ce") else "",
            str(tr.get("cnp_for", "")),
            seconds(tr["cnp_since_ce_ns"]) if "cnp_since_ce_ns" in tr else "", "", "", ""]


out = t.tempdir()
print(t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_rc.py"), out]).stdout.strip())
counts = {}
for name in sorted(f[:-5] for f in os.listdir(out) if f.endswith(".pcap")):
    truth = [json.loads(l) for l in open(os.path.join(out, name + ".truth.jsonl"))]
    rows = t.roceshark_fields(os.path.join(out, name + ".pcap"), FIELDS)
    t.check(len(rows) == len(truth), "%s: %d frames, truth %d" % (name, len(rows), len(truth)))
    bad = 0
    for tr, got in zip(truth, rows):
        want = expected(tr)
        for i, f in enumerate(FIELDS):
            if got[i] != want[i]:
                bad += 1
                if bad <= 12:
                    print("  %s frame %s %s: roceshark %r truth %r" % (name, tr["frame"], f,
                                                                      got[i], want[i]))
        for k in ("gap", "retx", "request_frame", "nak", "rnr_delay_ns", "msg", "cnp_for"):
            counts[k] = counts.get(k, 0) + (k in tr)
    t.check(bad == 0, "%s: %d analysis values differ from the truth" % (name, bad))
    print("%-10s %5d frames match the truth" % (name, len(truth)))
print("facts checked: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
for k in ("gap", "retx", "request_frame", "nak", "rnr_delay_ns", "msg", "cnp_for"):
    t.check(counts.get(k, 0) > 5, "the traces exercise too few %s facts" % k)
t.finish("analysis truth")
