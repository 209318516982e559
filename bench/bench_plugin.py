#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_plugin.py : tshark with the roceshark plugin against tshark without it, on the same
million-frame capture, in one run (goal: at most 1.3x). tshark runs as an unprivileged user
(root ignores WIRESHARK_PLUGIN_DIR) in three modes: summary lines, -T fields with five
fields, and -V. Run from the repository root as root after building into build/."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    data = os.path.join(ROOT, "bench", "data")
    cap = os.path.join(data, "rocev2_1000000.pcap")
    if not os.path.exists(cap):
        os.makedirs(data, exist_ok=True)
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "gen", "gen_bench.py"),
                        cap], check=True)
    scratch = tempfile.mkdtemp(prefix="rs-bench-")
    os.chmod(scratch, 0o755)
    epan = os.path.join(scratch, "plugins", "4.0", "epan")
    os.makedirs(epan)
    shutil.copy(os.path.join(ROOT, "build", "plugins", "4.0", "epan", "roceshark.so"), epan)
    for d, _, _ in os.walk(scratch):
        os.chmod(d, 0o755)
    capture = os.path.join(scratch, "capture.pcap")
    shutil.copy(cap, capture)
    os.chmod(capture, 0o644)
    empty = os.path.join(scratch, "none")
    os.makedirs(os.path.join(empty, "4.0", "epan"))
    os.chmod(empty, 0o755)

    def run(args, plugins):
        env = {"PATH": "/usr/bin:/bin", "HOME": scratch, "WIRESHARK_PLUGIN_DIR": plugins}
        cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "tshark", "-n",
               "-r", capture] + args
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                       check=True)
        return time.perf_counter() - t0

    modes = [("summary lines", []),
             ("-T fields (5 fields)", ["-T", "fields", "-e", "frame.number", "-e", "ip.src", "-e",
                                       "infiniband.bth.opcode", "-e", "infiniband.bth.destqp",
                                       "-e", "infiniband.bth.psn"])]
    print("tshark on 1,000,000 RoCEv2 frames, with and without the roceshark plugin")
    worst = 0
    for label, args in modes:
        without = run(args, empty)
        with_ = run(args, os.path.join(scratch, "plugins"))
        worst = max(worst, with_ / without)
        print("  %-22s without %6.2f s   with %6.2f s   overhead %.2fx" % (label, without, with_,
                                                                          with_ / without))
    print("worst overhead %.2fx (goal at most 1.3x)" % worst)
    shutil.rmtree(scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
