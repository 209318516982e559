#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_read.py [--frames N] [--tree-frames N] : `roceshark read` against `tshark`.

Makes (once) a capture of N RoCEv2 frames with tests/gen/gen_bench.py, then in one run:
  - bench_decode: decode-only frames/s on one core, from memory;
  - roceshark read -T fields and tshark -T fields with the same five fields, timed
    end to end (best of three for roceshark, one run for tshark), outputs compared;
  - the summary lines (read's default output) against tshark's, timed the same way (not
    compared: the Info columns differ in places);
  - the whole-tree outputs (-V, -T json, -T ek) on the first --tree-frames (20,000) of
    them, timed the same way (not compared: each tree has fields the other lacks, such as
    roceshark's ICRC check and analysis, and tshark's resolved addresses);
and prints the ratios. Run from the repository root after building into build/."""
import argparse
import os
import subprocess
import sys

from benchutil import BENCH_BIN, DATA, RS, ensure_capture, timed

FIELDS = ["frame.number", "ip.src", "infiniband.bth.opcode", "infiniband.bth.destqp",
          "infiniband.bth.psn"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=1000000)
    ap.add_argument("--tree-frames", type=int, default=20000)
    ap.add_argument("--data", default=DATA)
    a = ap.parse_args()
    cap = os.path.join(a.data, "rocev2_%d.pcap" % a.frames)
    ensure_capture(cap, "gen_bench.py", ["--frames", str(a.frames)])
    subprocess.run([os.path.join(BENCH_BIN, "bench_decode"), cap, "3"], check=True)
    efields = sum([["-e", f] for f in FIELDS], [])
    rs_out, ts_out = os.path.join(a.data, "roceshark.txt"), os.path.join(a.data, "tshark.txt")
    t_rs = min(timed([RS, "read", "-r", cap, "-T", "fields"] + efields, rs_out) for _ in range(3))
    t_ts = timed(["tshark", "-n", "-r", cap, "-T", "fields"] + efields, ts_out)
    same = open(rs_out, "rb").read() == open(ts_out, "rb").read()
    print("read -T fields, %d frames, fields: %s" % (a.frames, " ".join(FIELDS)))
    print("  roceshark  %7.3f s  %6.2f M frames/s" % (t_rs, a.frames / t_rs / 1e6))
    print("  tshark     %7.3f s  %6.2f M frames/s" % (t_ts, a.frames / t_ts / 1e6))
    print("  ratio      %7.1fx  (goal 50x); outputs %s" % (t_ts / t_rs, "identical" if same else "DIFFER"))
    summary_lines(cap, a.frames)
    whole_tree(cap, a.tree_frames, a.data)
    return 0 if same else 1


def summary_lines(cap, frames):
    """read's default output, a line per frame, against tshark's."""
    t_rs = min(timed([RS, "read", "-r", cap]) for _ in range(3))
    t_ts = timed(["tshark", "-n", "-r", cap])
    print("summary lines, %d frames" % frames)
    print("  roceshark %6.3f s, tshark %6.3f s: %5.1fx" % (t_rs, t_ts, t_ts / t_rs))


def whole_tree(cap, frames, data):
    """-V, -T json and -T ek on the first frames of cap, against tshark."""
    part = os.path.join(data, "rocev2_first_%d.pcap" % frames)
    subprocess.run([RS, "read", "-r", cap, "-c", str(frames), "-w", part], check=True,
                   stdout=subprocess.DEVNULL)
    print("whole trees, %d frames" % frames)
    for label, opts in (("-V", ["-V"]), ("-T json", ["-T", "json"]), ("-T ek", ["-T", "ek"])):
        t_rs = min(timed([RS, "read", "-r", part] + opts) for _ in range(3))
        t_ts = timed(["tshark", "-n", "-r", part] + opts)
        print("  %-8s roceshark %6.3f s, tshark %6.3f s: %5.1fx" % (label, t_rs, t_ts,
                                                                    t_ts / t_rs))


if __name__ == "__main__":
    sys.exit(main())
