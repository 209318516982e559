#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every real capture (made by others on real and soft-RoCE NICs): those of
tests/captures/real, and the extra ones (see its SOURCES.md) when ROCESHARK_EXTRA_CAPTURES
holds them. Each decodes exactly as tshark 4.0 decodes it, for every field of the contract;
every RoCE frame's ICRC (and every native IB frame's VCRC) checks out; nothing is reported
malformed.

One extra capture needs tshark told something: oferby_proxy__roce.pcap has RoCEv2 ACKs sent
from UDP source port 69. Wireshark tries the lower port first and reads them as TFTP, which is
wrong: RoCEv2 is identified by the destination port (IBTA Annex A17). tshark runs with TFTP
disabled for that file so that it decodes them as what they are."""
import os
import re

import rstest as t

captures = t.real_captures()
ours = [p for p in captures if os.path.dirname(p) == t.REAL_CAPTURES]
t.check(len(ours) == 21, "expected the 21 captures of tests/captures/real, found %d" % len(ours))

# The summary line's columns as fields (_ws.col.*), as tshark gives them, on the sample.
SAMPLE = os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap")
bad, total = t.fields_diff(SAMPLE, ["_ws.col.No.", "_ws.col.Time", "_ws.col.Source",
                                    "_ws.col.Destination", "_ws.col.Protocol",
                                    "_ws.col.Length"])
t.check(bad == 0 and total > 0, "the sample's columns: %d of %d values differ" % (bad, total))



# The data sources read dumps too; the others come of protocols it does not dissect
# (HTTP's "De-chunked entity body").
OUR_SOURCES = ("Frame (", "Reassembled TCP (", "Reassembled SMB Direct (", "FPDU without Markers (")


def our_sources_only(text):
    """tshark -x's output with only the data sources read has too: the frame's own bytes,
    and the message a TCP segment completes ("Reassembled TCP"); where only the frame's
    are left, without their title, as a frame of one source is dumped."""
    out = []
    for block in text.split("\n\n"):
        sources, current = [], None
        for line in block.split("\n"):
            if re.match(r"^\S.* \(\d+ bytes\):$", line):
                current = [line]
                sources.append(current)
            elif current is None:
                current = [None, line]
                sources.append(current)
            else:
                current.append(line)
        kept = [s for s in sources if s[0] is None or s[0].startswith(OUR_SOURCES)]
        if len(kept) == 1:
            out.append("\n".join(kept[0][1:]))
        else:
            out.append("\n".join(line for s in kept for line in s if line is not None))
    return "\n\n".join(out).splitlines()


# -x: every frame's bytes as tshark prints them. A frame's dump depends on its bytes alone,
# so the captures are read as one file, an interface each: one tshark start, not 22.
joined = os.path.join(t.tempdir(), "all.pcapng")
t.concatenate_pcaps([SAMPLE] + ours, joined)
got = t.run([t.ROCESHARK, "read", "-r", joined, "-x"]).stdout.splitlines()
want = our_sources_only(t.run(["tshark", "-r", joined, "-x"]).stdout)
differs = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
t.check(got == want and len(got) > 5000,
        "-x of the %d captures as one file differs from tshark's: %d lines, tshark %d; %s"
        % (len(ours) + 1, len(got), len(want), "first at line %d: %r, tshark %r"
           % (differs + 1, got[differs], want[differs]) if differs is not None else "same prefix"))

rdma_frames = read_responses = 0
# Under the sanitizers tshark's side of the field comparison is what it is in the normal run:
# every other capture is compared there, and every capture still has its CRCs checked below.
compared = set(captures[::2] if t.BUILT.get("sanitize") else captures)
for path in captures:
    name = os.path.basename(path)
    extra = t.EXTRA_CAPTURES.get(name, "")
    if path in compared:
        data = [] if any(k in name for k in t.DATA_APART) else t.DATA_FIELDS
        bad, total = t.fields_diff(path, t.CONTRACT_FIELDS + t.LOWER_FIELDS + t.ICMP_FIELDS + data,
                                   tshark_extra=extra)
        t.check(bad == 0, "%s: %d of %d values differ from tshark" % (name, bad, total))
    rows = t.roceshark_fields(path, ["roceshark.encap", "roceshark.icrc.status",
                                     "roceshark.vcrc.status", "roceshark.malformed",
                                     "roceshark.problem"])
    for n, (encap, icrc, vcrc, malformed, problem) in enumerate(rows, 1):
        if encap in ("rocev1", "rocev2", "ib"):
            rdma_frames += 1
            t.check(icrc == "1", "%s frame %d: ICRC status %r, want 1 (good)" % (name, n, icrc))
        if encap == "ib":
            t.check(vcrc == "1", "%s frame %d: VCRC status %r, want 1" % (name, n, vcrc))
        t.check(malformed == "", "%s frame %d reported malformed: %s" % (name, n, problem))
    # Clean traffic: the analysis finds nothing wrong, and answers every READ.
    facts = t.roceshark_fields(path, ["infiniband.bth.opcode", "roceshark.analysis.psn_gap",
                                      "roceshark.analysis.retransmission",
                                      "roceshark.analysis.violation",
                                      "roceshark.analysis.opcode_sequence_error",
                                      "roceshark.analysis.request_frame",
                                      "roceshark.analysis.conv"])
    for n, (op, gap, retx, viol, seq, req, conv) in enumerate(facts, 1):
        t.check(gap == "" and retx == "" and viol == "" and seq == "",
                "%s frame %d: gap %r retransmission %r violation %r sequence %r"
                % (name, n, gap, retx, viol, seq))
        if op in ("13", "14", "15", "16", "18"):     # READ responses, atomic ACK
            read_responses += 1
            t.check(req != "", "%s frame %d: response without its request" % (name, n))
        if op != "" and int(op) < 0x20:
            t.check(conv != "", "%s frame %d: RC frame without conversation" % (name, n))
    print("%-62s %6d values match tshark" % (name, total))
# The repository's captures hold 1,653 RoCEv2 frames, 43 native IB frames and 30 READ
# responses and atomic ACKs; the extra ones 129 RoCEv2 frames and 8 READ responses.
EXTRA_COUNTS = {"oferby_proxy__roce.pcap": (105, 0),
                "montybeatnik_rdma-roce-lab__test.pcap": (12, 4),
                "montybeatnik_rdma-roce-lab__roce_capture_read-write-ecn.pcap": (12, 4)}
want_frames, want_responses = 1653 + 43, 30
for path in captures:
    rdma, responses = EXTRA_COUNTS.get(os.path.basename(path), (0, 0))
    want_frames += rdma
    want_responses += responses
t.check(rdma_frames == want_frames, "RDMA frames: %d, want %d" % (rdma_frames, want_frames))
t.check(read_responses == want_responses, "%d READ responses and atomic ACKs checked, want %d"
        % (read_responses, want_responses))

# RDMA-CM captures: conversations are paired from the CM REQ/REP, with the QPs they name.
cm = os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_rdma_cm.pcap")
table = t.run([t.ROCESHARK, "read", "-r", cm, "-q", "-z", "conv,qp"]).stdout
t.check("10.1.16.62:0x00003d" in table and "10.1.16.61:0x00003b" in table,
        "rdma_cm.pcap: the CM's QPs 0x3d and 0x3b are not the conversation's")
rows = [l for l in table.splitlines() if l.strip()[:1].isdigit()]
# Two connections, each a QP pair; one is used both ways, the other one way (its idle
# direction, which carried nothing, is not listed).
t.check(len(rows) == 3 and all(" cm " in l for l in rows),
        "rdma_cm.pcap: want three conversations paired by the CM, got:\n" + "\n".join(rows))
t.finish("real captures")
