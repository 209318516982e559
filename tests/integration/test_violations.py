#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Transport rules the trace itself proves broken: a hand-made conversation with one
deliberate violation after another (as a faulty NIC or driver would produce), each of
which the analysis must flag on exactly the right frame, with the right code, and
nothing else."""
import os
import sys

import rstest as t

sys.path.insert(0, t.GEN_DIR)
import rcsim  # noqa: E402
from rcsim import Pkt  # noqa: E402

conv = rcsim.Conv(1, 1, 2, 0x100, 0x200, 1024, 0)
frames, expect = [], {}


def req(op, psn, payload=0, **kw):
    frames.append(Pkt(conv, False, op, psn, payload=payload, **kw))
    return len(frames)


def resp(op, psn, syn=0x0E, msn=0, payload=0, **kw):
    frames.append(Pkt(conv, True, op, psn, payload=payload, aeth=(syn, msn), **kw))
    return len(frames)


def mark(frame, what):
    expect[frame] = what


req(rcsim.WR_F, 0, 1024, reth=(0x1000, 7, 3000))
req(rcsim.WR_M, 1, 1024)
req(rcsim.WR_L, 2, 952, ackreq=True)
resp(rcsim.ACK, 2, msn=1)
mark(resp(rcsim.ACK, 1, msn=1), ("violation", "ack_psn_backwards"))
mark(req(rcsim.SEND_M, 3, 1024), ("seq", ""))                   # MIDDLE without FIRST
req(rcsim.SEND_F, 4, 1024)
mark(req(rcsim.SEND_F, 5, 1024), ("seq", ""))                    # FIRST inside a message
req(rcsim.SEND_L, 6, 10, ackreq=True)
resp(rcsim.ACK, 6, msn=3)
mark(req(rcsim.WR_O, 7, 50, ackreq=True, reth=(0x2000, 7, 100)), ("length", ""))
resp(rcsim.ACK, 7, msn=4)
req(rcsim.RD_REQ, 8, ackreq=True, reth=(0x3000, 7, 3000), span=3)
resp(rcsim.RD_F, 8, msn=5, payload=1024)
mark(resp(rcsim.RD_M, 9, payload=1028), ("violation", "read_middle_aeth"))  # an AETH too many
frames[-1].aeth = None
resp(rcsim.RD_L, 10, msn=5, payload=948)
req(rcsim.RD_REQ, 11, ackreq=True, reth=(0x4000, 7, 2048), span=2)
mark(resp(rcsim.RD_O, 11, msn=6, payload=2048), ("violation", "read_response_count"))
req(rcsim.RD_REQ, 13, ackreq=True, reth=(0x5000, 7, 1000), span=1)
mark(resp(rcsim.RD_O, 13, msn=7, payload=900), ("violation", "read_response_length"))
mark(resp(rcsim.ACK, 13, msn=2), ("violation", "msn_backwards"))
req(rcsim.SEND_O, 14, 8, ackreq=True)
mark(resp(rcsim.ACK, 20, msn=8), ("violation", "ack_unsent_psn"))
mark(resp(rcsim.ACK, 30, syn=0x60, msn=8), ("violation", "nak_psn_unexpected"))
mark(req(rcsim.WR_F, 15, 512, reth=(0x6000, 7, 4096)), ("violation", "segment_length"))

for n, p in enumerate(frames, 1):
    p.t_tap = n * 1000
    p.frame = n
path = os.path.join(t.tempdir(), "violations.pcap")
rcsim.write_pcap_ns(path, frames)
rows = t.roceshark_fields(path, ["roceshark.analysis.violation",
                                 "roceshark.analysis.opcode_sequence_error",
                                 "roceshark.analysis.length_mismatch"])
t.check(len(rows) == len(frames), "frame count")
for n, (viol, seq, length) in enumerate(rows, 1):
    kind, code = expect.get(n, (None, ""))
    t.check(viol == (code if kind == "violation" else ""),
            "frame %d: violation %r, want %r" % (n, viol, code if kind == "violation" else ""))
    t.check((seq == "1") == (kind == "seq"), "frame %d: opcode_sequence_error %r" % (n, seq))
    t.check((length == "1") == (kind == "length"), "frame %d: length_mismatch %r" % (n, length))
stats = t.run([t.ROCESHARK, "read", "-r", path, "-q", "-z", "expert"]).stdout
t.check("Transport rule violation" in stats and "Opcode sequence error" in stats,
        "-z expert lacks the violations:\n" + stats)
# -z expert,LEVEL leaves out what is less severe; expert,LEVEL,FILTER counts only the frames
# the filter takes (here one violation's frame).
errors = t.run([t.ROCESHARK, "read", "-r", path, "-q", "-z", "expert,error"]).stdout
t.check("Errors (" in errors and "Warns (" not in errors and "Notes (" not in errors and
        "Chats (" not in errors,
        "-z expert,error shows only errors:\n" + errors)
t.check(stats.startswith(errors.rstrip("\n")) or errors.strip() in stats,
        "-z expert,error is the Error part of -z expert:\n%s\n%s" % (errors, stats))
first = min(n for n, (kind, _) in expect.items() if kind == "violation")
one = t.run([t.ROCESHARK, "read", "-r", path, "-q", "-z",
             "expert,note,frame.number == %d" % first]).stdout
t.check("Errors (1)" in one and "Transport rule violation" in one and " %d\n" % first in one,
        "-z expert,note,frame.number == %d:\n%s" % (first, one))
p = t.run([t.ROCESHARK, "read", "-r", path, "-q", "-z", "expert,note,("], check_rc=False)
t.check(p.returncode == 1 and p.stderr.startswith("roceshark: -z expert,note,(: filter (: "),
        "a bad expert filter: %d %r" % (p.returncode, p.stderr))
print("%d frames, %d deliberate violations flagged where they are" % (len(frames), len(expect)))
t.finish("violations")
