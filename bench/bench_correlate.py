#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_correlate.py: `roceshark correlate` of two captures of the same traffic against
reading each once with `read -q`, in one run, with the load average beside the figures.

The first capture is N clean RoCEv2 frames (tests/gen/gen_bench.py, made once into
bench/data/); the second is the same frames 50 us later, as a second point would see them.
Goal: correlate within 2x the two reads' time (it reads a probe of each file's first
frames, then each file once for the clocks, and with -q matches on the records of each frame
that pass wrote to $TMPDIR), memory bounded by the window (its peak RSS is printed). The
reads and the correlation take turns, best of R each, so that both see the same load; the
processor time of every thread is printed beside the wall time, as on a loaded machine the
wall times say as much of the scheduler as of the work.

    python3 bench/bench_correlate.py [--frames N] [--repeat R]"""
import argparse
import os
import resource
import struct

from benchutil import DATA, RS, ensure_capture, timed_cpu


def shifted(src, dst, ns):
    """dst: the pcap src with every frame ns later."""
    data = bytearray(open(src, "rb").read())
    magic = struct.unpack_from("<I", data, 0)[0]
    fine = 1000000000 if magic == 0xa1b23c4d else 1000000
    step, pos = ns * fine // 1000000000, 24
    while pos + 16 <= len(data):
        sec, sub, caplen, _ = struct.unpack_from("<IIII", data, pos)
        sub += step
        struct.pack_into("<II", data, pos, sec + sub // fine, sub % fine)
        pos += 16 + caplen
    open(dst, "wb").write(data)


def timed(cmds):
    """The wall time and the processor time (user and system, every thread) of running
    cmds one after another."""
    runs = [timed_cpu(cmd) for cmd in cmds]
    return sum(w for w, _ in runs), sum(c for _, c in runs)


def best(groups, repeat):
    """The shortest wall time and processor time of each group of commands, the groups
    taking turns so that each sees the same load; and the largest RSS of a child."""
    runs = [[] for _ in groups]
    for _ in range(repeat):
        for i, cmds in enumerate(groups):
            runs[i].append(timed(cmds))
    return ([(min(w for w, _ in r), min(c for _, c in r)) for r in runs],
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=1000000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    cap_a = os.path.join(DATA, "bench_%d.pcap" % a.frames)
    cap_b = os.path.join(DATA, "bench_%d_later.pcap" % a.frames)
    ensure_capture(cap_a, "gen_bench.py", ["--frames", str(a.frames)])
    if not os.path.exists(cap_b):
        shifted(cap_a, cap_b, 50000)
    reads = [[RS, "read", "-q", "-r", cap] for cap in (cap_a, cap_b)]
    corr = [[RS, "correlate", "-q", "-r", cap_a, "-r", cap_b, "-z", "corr,qp"]]
    ((reads_s, reads_cpu), (corr_s, corr_cpu)), rss = best([reads, corr], a.repeat)
    load = os.getloadavg()[0]
    print("frames per capture: %d (load average %.2f)" % (a.frames, load))
    print("two reads (read -q each):       %7.2f s  (processor %.2f s)" % (reads_s, reads_cpu))
    print("correlate -q -z corr,qp:        %7.2f s  (processor %.2f s)  (%.2fx; goal <= 2x; "
          "processor %.2fx)" % (corr_s, corr_cpu, corr_s / reads_s, corr_cpu / reads_cpu))
    print("largest RSS of a child:         %7.1f MiB" % (rss / 1024.0))

if __name__ == "__main__":
    main()
