# SPDX-License-Identifier: GPL-2.0-or-later
"""benchutil.py : what the benchmark scripts share: where things are, generating a capture
once into bench/data/, and timing a command."""
import os
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
