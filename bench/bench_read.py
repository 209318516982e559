#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_read.py [--frames N] [--tree-frames N] [--threads 1,2] [--scaling] [--repeat N]
: `roceshark read` against `tshark`, at each thread count, in one run.

Makes (once) two captures into bench/data/: N clean RoCEv2 frames (tests/gen/gen_bench.py),
and mixed traffic (tests/gen/gen_hostile.py: nearly every frame a new conversation, RoCEv2
over IPv4 and IPv6 and RoCEv1, tagged and not), written twice one after the other so that
the analysis sees every request again (retransmissions). Then:
  - bench_decode: decode-only frames/s on one core, from memory;
  - -T fields with five fields on both captures (outputs compared with tshark's on the
    clean one), 40 fields, the summary lines, and -V, -T json and -T ek on the first
    --tree-frames frames: tshark and roceshark at each --threads count, run in turns on
    the same file, --repeat rounds (in_turns()), each the median of its runs; the ratios
    against tshark and against --threads 1;
  - with --scaling, the same outputs at 1, 2, ... threads, each run pinned by taskset to
    that many CPUs, up to the CPUs this process may use, in the same turns (pinned to
    every CPU there is, the run is the row's).
The load average is printed beside each row: other work on the machine takes cores from
the threads; so is each run's processor time (user and system, every thread: `cpu`), tshark's
too, which says what a run cost when the wall time says mostly how busy the machine was. Run from the repository root after building into build/."""
import argparse
import os
import statistics
import subprocess
import sys

from benchutil import BENCH_BIN, DATA, RS, ensure_capture, timed, timed_cpu

FIELDS = ["frame.number", "ip.src", "infiniband.bth.opcode", "infiniband.bth.destqp",
          "infiniband.bth.psn"]
# 40 fields: what a script that keeps most of the RoCE headers asks for.
FIELDS_40 = FIELDS + [
    "frame.time_relative", "frame.len", "frame.protocols", "eth.src", "eth.dst", "ip.dst",
    "ip.len", "ip.ttl", "ip.dsfield.ecn", "udp.srcport", "udp.dstport", "udp.length",
    "infiniband.bth.se", "infiniband.bth.m", "infiniband.bth.padcnt", "infiniband.bth.tver",
    "infiniband.bth.p_key", "infiniband.bth.a", "infiniband.bth.reserved7", "ip.id",
    "infiniband.reth.va", "infiniband.reth.r_key",
    "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.aeth.msn",
    "infiniband.invariant.crc", "roceshark.analysis.conv", "roceshark.analysis.psn_rel",
    "roceshark.analysis.request_frame", "roceshark.analysis.response_time",
    "roceshark.analysis.retransmission", "roceshark.analysis.msg.len",
    "roceshark.analysis.acked_frame", "_ws.col.Protocol", "_ws.col.Info"]


def load():
    return "load %.1f" % os.getloadavg()[0]


def efields(names):
    return sum([["-e", f] for f in names], [])


def pinned(cmd, cpus):
    """cmd on the first cpus CPUs."""
    return ["taskset", "-c", "0-%d" % (cpus - 1)] + cmd


def in_turns(runs, repeat):
    """{key: (wall, processor seconds)} of each (key, cmd) of runs, the median of repeat
    rounds. Each round runs every command once, the round after starting one command later:
    this host's speed drifts by half over seconds (other work, and what the hypervisor
    gives the cores), so runs taken one after the other, a figure's runs all together,
    would give each figure a moment of its own."""
    times = {key: [] for key, _ in runs}
    for r in range(repeat):
        turn = runs[r % len(runs):] + runs[:r % len(runs)]
        for key, cmd in turn:
            times[key].append(timed_cpu(cmd))
    return {key: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t))
            for key, t in times.items()}


def measure(cap, opts, tshark_opts, a):
    """One output: tshark, roceshark at each --threads count and, with --scaling, at
    k = 1 .. CPUs threads pinned to k CPUs, all in turns. Pinned to every CPU there is, a
    run is an unpinned one: that column is the --threads row's when it has one."""
    ours = [RS, "read", "-r", cap] + opts
    runs = [("tshark", ["tshark", "-n", "-r", cap] + tshark_opts)]
    runs += [(n, ours + ["--threads", str(n)]) for n in a.threads]
    if a.scaling:
        runs += [("pinned %d" % k, pinned(ours + ["--threads", str(k)], k))
                 for k in range(1, a.cpus + 1) if k != a.cpus or k not in a.threads]
    res = in_turns(runs, a.repeat)
    if a.scaling and a.cpus in a.threads:
        res["pinned %d" % a.cpus] = res[a.cpus]
    return res


def row(label, frames, res, a):
    """tshark, then roceshark at each --threads count against it."""
    t_ts, cpu_ts = res["tshark"]
    one = res.get(1)
    cols = []
    for n in a.threads:
        t, cpu = res[n]
        col = "%dT %6.3f s %5.1fx tshark (cpu %5.3f s, %5.1fx tshark's)" % (
            n, t, t_ts / t, cpu, cpu_ts / cpu)
        if one is not None and n != 1:
            col += " %4.2fx 1T" % (one[0] / t)
        cols.append(col)
    print("  %-22s %7d fr  tshark %6.3f s (cpu %6.3f s) | %s | %s"
          % (label, frames, t_ts, cpu_ts, " | ".join(cols), load()), flush=True)


def scaling(label, res, a):
    """The same output at 1..CPUs threads, each pinned to that many CPUs."""
    times = [res["pinned %d" % k] for k in range(1, a.cpus + 1)]
    print("  %-22s %s" % (label, "  ".join("%d CPU %6.3f s (cpu %5.3f, %4.2fx)"
                                           % (k + 1, t, cpu, times[0][0] / t)
                                           for k, (t, cpu) in enumerate(times))))


def mixed_capture(data, frames):
    """gen_hostile's traffic, written twice one after the other."""
    once = os.path.join(data, "hostile_%d.pcap" % frames)
    twice = os.path.join(data, "mixed_%d_twice.pcap" % frames)
    ensure_capture(once, "gen_hostile.py", ["--frames", str(frames)])
    if not os.path.exists(twice):
        subprocess.run(["mergecap", "-a", "-F", "pcap", "-w", twice, once, once], check=True)
    return twice


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=1000000)
    ap.add_argument("--mixed-frames", type=int, default=150000)
    ap.add_argument("--tree-frames", type=int, default=20000)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scaling", action="store_true")
    ap.add_argument("--data", default=DATA)
    a = ap.parse_args()
    a.threads = [int(n) for n in a.threads.split(",")]
    a.cpus = len(os.sched_getaffinity(0))
    cap = os.path.join(a.data, "rocev2_%d.pcap" % a.frames)
    ensure_capture(cap, "gen_bench.py", ["--frames", str(a.frames)])
    mixed = mixed_capture(a.data, a.mixed_frames)
    print(load())
    subprocess.run([os.path.join(BENCH_BIN, "bench_decode"), cap, "3"], check=True)
    rs_out, ts_out = os.path.join(a.data, "roceshark.txt"), os.path.join(a.data, "tshark.txt")
    timed([RS, "read", "-r", cap, "-T", "fields"] + efields(FIELDS), rs_out)
    timed(["tshark", "-n", "-r", cap, "-T", "fields"] + efields(FIELDS), ts_out)
    same = open(rs_out, "rb").read() == open(ts_out, "rb").read()
    print("-T fields outputs (%d frames, %s): %s" % (a.frames, " ".join(FIELDS),
                                                    "identical" if same else "DIFFER"))
    part = os.path.join(a.data, "rocev2_first_%d.pcap" % a.tree_frames)
    mixed_part = os.path.join(a.data, "mixed_first_%d.pcap" % a.tree_frames)
    for src, dst in ((cap, part), (mixed, mixed_part)):
        subprocess.run([RS, "read", "-r", src, "-c", str(a.tree_frames), "-w", dst,
                        "--threads", "1"], check=True, stdout=subprocess.DEVNULL)
    n_mixed = 2 * a.mixed_frames
    outputs = [
        ("fields 5, clean", cap, a.frames, ["-T", "fields"] + efields(FIELDS)),
        ("fields 5, mixed", mixed, n_mixed, ["-T", "fields"] + efields(FIELDS)),
        ("fields 40, mixed", mixed, n_mixed, ["-T", "fields"] + efields(FIELDS_40)),
        ("summary, mixed", mixed, n_mixed, []),
        ("-V, mixed", mixed_part, a.tree_frames, ["-V"]),
        ("-T json, mixed", mixed_part, a.tree_frames, ["-T", "json"]),
        ("-T ek, mixed", mixed_part, a.tree_frames, ["-T", "ek"]),
        ("-V, clean", part, a.tree_frames, ["-V"]),
    ]
    print("goals at 2 threads: fields on mixed traffic 50x, summary 25x, json 20x, -V 8x; "
          "formatting-heavy outputs 1.7x --threads 1")
    results = []
    for label, path, frames, opts in outputs:
        # tshark has no roceshark.* fields: it is given the others, which cost it the same.
        ts_opts = [o for o in opts if not o.startswith("roceshark.")]
        ts_opts = [o for i, o in enumerate(ts_opts)
                   if not (o == "-e" and i + 1 < len(ts_opts) and ts_opts[i + 1] == "-e")]
        results.append((label, measure(path, opts, ts_opts, a)))
        row(label, frames, results[-1][1], a)
    if a.scaling:
        print("scaling (taskset to k CPUs, --threads k; measured in the rows' turns):")
        for label, res in results:
            scaling(label, res, a)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
