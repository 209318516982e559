#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_analysis.py : the cost of the transport analysis, its memory on a million QPs, and
-z conv,qp against tshark's nearest statistic, in one run.

  1. bench_decode on a million generated RoCEv2 frames: decode, and decode + ICRC, each with
     and without the analysis, from memory, on one core (goal: analysis at most 1.5x).
  2. Peak resident memory of `read -q -z conv,qp` on a capture of one million distinct QPs
     (a SEND and its ACK each), with the default table bound and with room for all.
  3. `roceshark read -q -z conv,qp` against `tshark -q -z conv,udp` on the million-frame
     capture (goal: at least 50x).
  4. Hostile scale: 300,000 frames where every other frame opens a conversation (150,000 QPs,
     a SEND and its ACK each, past the default 65,536-conversation bound), printing fields:
     decode only, with the analysis (goal: at most 1.5x), and tshark on the same file.
  5. Hostile traffic: 300,000 frames where every frame opens a conversation (random addresses
     and QPs, every opcode, RoCEv2 over IPv4 and IPv6 and RoCEv1, tagged and not), the same
     three measurements (goals: analysis at most 1.5x decode only, at least 50x tshark), and
     the analysis again under smaller table bounds, to show what the cost is made of.
  Sections 3 to 5 give read at --threads 2 beside --threads 1, with the load average.
  6. A SYN scan: 300,000 SYNs, each a new TCP conversation (tests/gen/gen_synscan.py), through
     the tables every TCP segment meets (the iWARP stage's connections always, tcp.stream's
     when a field asks for it): -T fields with frame.number alone, with tcp.stream as well,
     and tshark with tcp.stream.
Run from the repository root after building into build/."""
import os
import re
import subprocess
import sys
import time

from benchutil import BENCH_BIN, DATA, RS, ensure_capture, timed


def peak_rss(cmd):
    """Seconds and peak resident kilobytes of cmd (GNU time)."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, check=True)
    return time.perf_counter() - t0, int(p.stderr.strip().splitlines()[-1])


def main():
    os.makedirs(DATA, exist_ok=True)
    big = os.path.join(DATA, "rocev2_1000000.pcap")
    wide = os.path.join(DATA, "rocev2_1m_qps.pcap")
    ensure_capture(big, "gen_bench.py", ["--frames", "1000000"])
    ensure_capture(wide, "gen_bench.py", ["--small", "--qps", "1000000", "--rounds", "1"])

    print("== 1. analysis cost (bench_decode, one core, from memory)")
    out = subprocess.run(["taskset", "-c", "1", os.path.join(BENCH_BIN, "bench_decode"),
                          big, "3"], capture_output=True, text=True, check=True).stdout
    print(out.rstrip())
    ratio = float(re.search(r"; ([0-9.]+)x decode only", out).group(1))
    ratio_crc = float(re.search(r"; ([0-9.]+)x decode \+ ICRC", out).group(1))

    print("\n== 2. memory on one million distinct QPs (2,000,000 frames)")
    for label, extra in (("default bound (65536)", []),
                         ("room for all (1048576)", ["-o", "analysis.max_convs:1048576"])):
        secs, kb = peak_rss([RS, "read", "-r", wide, "-q", "-z", "conv,qp"] + extra)
        print("  %-24s peak RSS %7.1f MB, %.2f s" % (label, kb / 1024, secs))
    table = subprocess.run([RS, "read", "-r", wide, "-q", "-z", "conv,qp"], capture_output=True,
                           text=True, check=True).stdout.splitlines()[1]
    print("  " + table)

    print("\n== 3. -z conv,qp against tshark -z conv,udp, 1,000,000 frames")
    # One untimed run first: section 2's gigabyte pushes this file out of the page cache.
    timed([RS, "read", "-r", big, "-q", "-z", "conv,qp"])
    t_rs = min(timed([RS, "read", "-r", big, "-q", "-z", "conv,qp"] + ONE) for _ in range(3))
    t_rs2 = min(timed([RS, "read", "-r", big, "-q", "-z", "conv,qp"] + TWO) for _ in range(3))
    # Best of three for both: tshark's own time varies by a fifth between runs here.
    t_ts = min(timed(["tshark", "-n", "-q", "-r", big, "-z", "conv,udp"]) for _ in range(3))
    print("  roceshark -z conv,qp  %7.3f s; --threads 2 %7.3f s (%.2fx)  %s"
          % (t_rs, t_rs2, t_rs / t_rs2, load()))
    print("  tshark -z conv,udp    %7.3f s" % t_ts)
    print("  ratio                 %7.1fx, --threads 2 %.1fx (goal 50x)"
          % (t_ts / t_rs, t_ts / t_rs2))
    many = many_conversations()
    hostile, hostile_ts = hostile_traffic()
    syn_scan()
    print("\nanalysis %.2fx decode only, %.2fx decode + ICRC (goal 1.5x); conv,qp %.1fx tshark "
          "(goal 50x); %.2fx decode only when every other frame is a new conversation; "
          "%.2fx decode only and %.1fx tshark when every frame is (goals 1.5x, 50x)"
          % (ratio, ratio_crc, t_ts / t_rs, many, hostile, hostile_ts))
    return 0


FIELDS = ["-T", "fields", "-e", "frame.number", "-e", "ip.src", "-e", "ip.dst",
          "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn"]
# The figures of one thread (the analysis' cost against decoding is a one-core figure), and
# the --threads 2 column beside them.
ONE = ["--threads", "1"]
TWO = ["--threads", "2"]


def load():
    return "(load %.1f)" % os.getloadavg()[0]


def fields_three_ways(path):
    """Best-of-three seconds of -T fields without and with the analysis, and tshark's (once:
    it takes seconds here, and only sets the scale); printed, and returned."""
    t_off = min(timed([RS, "read", "-r", path, "-o", "analysis:off"] + FIELDS + ONE)
                for _ in range(3))
    t_on = min(timed([RS, "read", "-r", path] + FIELDS + ONE) for _ in range(3))
    t_on2 = min(timed([RS, "read", "-r", path] + FIELDS + TWO) for _ in range(3))
    t_ts = timed(["tshark", "-n", "-r", path] + FIELDS)
    print("  roceshark, decode only   %7.3f s  %s" % (t_off, load()))
    print("  roceshark, analysis      %7.3f s (%.2fx decode only, goal 1.5x)"
          % (t_on, t_on / t_off))
    print("  the same, --threads 2    %7.3f s (%.2fx --threads 1)  %s"
          % (t_on2, t_on / t_on2, load()))
    print("  tshark                   %7.3f s (%.1fx roceshark with the analysis, %.1fx at "
          "--threads 2)" % (t_ts, t_ts / t_on, t_ts / t_on2))
    return t_off, t_on, t_ts


def many_conversations():
    """Section 4; returns the analysis' time over decode only."""
    wide = os.path.join(DATA, "rocev2_150k_qps.pcap")
    ensure_capture(wide, "gen_bench.py", ["--small", "--qps", "150000", "--rounds", "1"])
    print("\n== 4. 300,000 frames over 150,000 QPs (a conversation per SEND and ACK), -T fields")
    t_off, t_on, _ = fields_three_ways(wide)
    return t_on / t_off


def hostile_traffic():
    """Section 5; returns the analysis' time over decode only, and tshark's over it."""
    path = os.path.join(DATA, "hostile_300k.pcap")
    ensure_capture(path, "gen_hostile.py", ["--frames", "300000"])
    print("\n== 5. 300,000 frames, each a new conversation (gen_hostile.py), -T fields")
    t_off, t_on, t_ts = fields_three_ways(path)
    bound_sweep(path, t_off)
    return t_on / t_off, t_ts / t_on


def syn_scan():
    """Section 6."""
    path = os.path.join(DATA, "synscan_300k.pcap")
    ensure_capture(path, "gen_synscan.py", ["--frames", "300000"])
    print("\n== 6. 300,000 SYNs, each a new TCP conversation (gen_synscan.py), -T fields")
    plain = ["-T", "fields", "-e", "frame.number"]
    streams = plain + ["-e", "tcp.stream"]
    t_plain = min(timed([RS, "read", "-r", path] + plain + ONE) for _ in range(3))
    t_streams = min(timed([RS, "read", "-r", path] + streams + ONE) for _ in range(3))
    t_ts = timed(["tshark", "-n", "-r", path] + streams)
    print("  roceshark, frame.number             %7.3f s" % t_plain)
    print("  roceshark, frame.number tcp.stream  %7.3f s (%.2fx)" % (t_streams,
                                                                     t_streams / t_plain))
    print("  tshark, frame.number tcp.stream     %7.3f s (%.1fx roceshark)" % (t_ts,
                                                                             t_ts / t_streams))


def bound_sweep(path, t_off):
    """Where the analysis' cost on new conversations comes from: the same file with smaller
    table bounds. Every new conversation evicts the oldest, whose memory and index slots were
    last touched a table ago: in cache when the table fits, from main memory when not."""
    print("  by table bound (analysis.max_convs; conversations of some 650 bytes each):")
    for bound in (1024, 16384, 65536):
        t = min(timed([RS, "read", "-r", path, "-o", "analysis.max_convs:%d" % bound] + FIELDS
                      + ONE) for _ in range(3))
        print("    %6d  %7.3f s (%.2fx decode only)%s"
              % (bound, t, t / t_off, "  the default" if bound == 65536 else ""))


if __name__ == "__main__":
    sys.exit(main())
