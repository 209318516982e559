# SPDX-License-Identifier: GPL-2.0-or-later
"""benchutil.py : what the benchmark scripts share: where things are, generating a capture
once into bench/data/, timing a command, and reading tcpreplay's count."""
import os
import re
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "bench", "data")
RS = os.path.join(ROOT, "build", "roceshark")
BENCH_BIN = os.path.join(ROOT, "build", "bench")     # bench_decode, bench_iwarp
GEN_DIR = os.path.join(ROOT, "tests", "gen")


def ensure_capture(path, generator, args):
    """Writes path with tests/gen/GENERATOR ARGS unless it is there from an earlier run."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if not os.path.exists(path):
        subprocess.run(["/usr/bin/python3", os.path.join(GEN_DIR, generator), path] + args,
                       check=True)


def timed(cmd, out_path=None):
    """Wall seconds of cmd, its output into out_path (or discarded)."""
    out = open(out_path, "wb") if out_path else subprocess.DEVNULL
    try:
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=out, stderr=subprocess.DEVNULL, check=True)
        return time.perf_counter() - t0
    finally:
        if out_path:
            out.close()


def timed_cpu(cmd):
    """(wall seconds, processor seconds: user and system, every thread) of cmd, its output
    discarded. On a loaded machine the processor seconds still say what the run cost."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("%s: failed" % " ".join(cmd))
    return wall, ru.ru_utime + ru.ru_stime


def timed_run(cmd):
    """(wall seconds, CompletedProcess with its text output) of cmd; exits with its stderr
    when it fails."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("%s: %s" % (" ".join(cmd), p.stderr.strip()))
    return time.perf_counter() - t0, p


def tcpreplay_sent(stdout, default):
    """The packets tcpreplay says it sent ("Actual: N packets ..."), else default."""
    m = re.search(r"Actual: (\d+) packets", stdout)
    return int(m.group(1)) if m else default
