#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_capture.py [--frames N] [--rounds R] [--len BYTES] [--buffer MiB]: live capture throughput on a veth
pair, roceshark against dumpcap, on the same traffic in the same run (needs root).

Namespace A blasts RoCEv2 frames out of its veth end as fast as a packet socket goes
(build/veth_blast); namespace B captures them into a pcap file on tmpfs, with roceshark
and with dumpcap in turn (same filter, buffer and snapshot length), R rounds each,
alternating. For each capture it prints frames/s written and the frames lost (sent minus
written) with the kernel's own drop count, then the medians and the ratios.

    sudo ./bench/bench_capture.py                 # after cmake --build build
    sudo ./bench/bench_capture.py --buffer 1      # small rings: who drops first
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
import livenet as ln  # noqa: E402

BUILD = os.environ.get("ROCESHARK_BUILD", os.path.join(ROOT, "build"))
ROCESHARK = os.path.join(BUILD, "roceshark")
BLAST = os.path.join(BUILD, "veth_blast")
# roceshark's default filter (capture/filter.c), given to dumpcap as -f.
U = "udp dst port 4791 or ether proto 0x8915"
FILTER = "%s or (vlan and (%s or (vlan and (%s))))" % (U, U, U)


def wait_ready(p, marker):
    while True:
        line = p.stderr.readline()
        if not line:
            raise RuntimeError("capture did not start")
        if marker in line:
            return


def one_round(pair, tool, frames, length, out, buffer_mb):
    if tool == "roceshark":
        args = [ROCESHARK, "capture", "-i", pair.if_b, "-w", out, "-B", buffer_mb]
        marker = b"capture: "
    else:
        args = ["dumpcap", "-q", "-P", "-i", pair.if_b, "-w", out, "-B", buffer_mb,
                "-f", FILTER]
        marker = b"Capturing on"
    p = subprocess.Popen(pair.in_b(args), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_ready(p, marker)
    time.sleep(0.2)
    blast = subprocess.run(pair.in_a([BLAST, pair.if_a, str(frames), str(length)]),
                           capture_output=True, text=True, check=True).stdout
    m = re.search(r"sent (\d+) frames in ([\d.]+) s", blast)
    sent, seconds = int(m.group(1)), float(m.group(2))
    time.sleep(0.6)     # the last ring block is handed over after 250 ms
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    err = err.decode(errors="replace")
    written = (os.path.getsize(out) - 24) // (16 + length)
    if tool == "roceshark":
        c = ln.COUNTS_RE.search(err)
        kernel = int(c.group(5)) if c else -1
        reported = int(c.group(3)) if c else -1
    else:
        c = re.search(r"Packets received/dropped on interface '[^']*': (\d+)/(\d+)", err)
        kernel = int(c.group(2)) if c else -1
        c = re.search(r"Packets captured: (\d+)", err)
        reported = int(c.group(1)) if c else -1
    os.unlink(out)
    return {"sent": sent, "seconds": seconds, "written": written, "reported": reported,
            "lost": sent - written, "kernel": kernel, "rate": written / seconds}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=1000000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--len", type=int, default=128)
    ap.add_argument("--buffer", default="32", help="-B of both tools, MiB (default 32)")
    a = ap.parse_args()
    ln.need_root()
    for path in (ROCESHARK, BLAST):
        if not os.path.exists(path):
            sys.exit("%s not built (cmake --build build)" % path)
    pair = ln.VethPair("bench")
    tmp = tempfile.mkdtemp(prefix="rs-bench-", dir="/dev/shm")
    results = {"roceshark": [], "dumpcap": []}
    try:
        for r in range(a.rounds):
            for tool in ("roceshark", "dumpcap"):
                res = one_round(pair, tool, a.frames, a.len, os.path.join(tmp, "cap.pcap"),
                                a.buffer)
                results[tool].append(res)
                print("round %d %-9s sent %d at %.0f frames/s; written %d (%.0f frames/s), "
                      "lost %d, kernel drops %d, reported %d"
                      % (r + 1, tool, res["sent"], res["sent"] / res["seconds"],
                         res["written"], res["rate"], res["lost"], res["kernel"],
                         res["reported"]), flush=True)
    finally:
        shutil.rmtree(tmp, True)
        pair.remove()
    med = {tool: (statistics.median(x["rate"] for x in rs),
                  statistics.median(x["lost"] for x in rs)) for tool, rs in results.items()}
    print("median %-9s %.0f frames/s written, %d lost of %d" %
          ("roceshark", med["roceshark"][0], med["roceshark"][1], a.frames))
    print("median %-9s %.0f frames/s written, %d lost of %d" %
          ("dumpcap", med["dumpcap"][0], med["dumpcap"][1], a.frames))
    print("ratio roceshark/dumpcap: rate %.2f, lost %d vs %d" %
          (med["roceshark"][0] / med["dumpcap"][0], med["roceshark"][1], med["dumpcap"][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
