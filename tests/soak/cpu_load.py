# SPDX-License-Identifier: GPL-2.0-or-later
"""cpu_load - stress-ng keeping twice the cores busy for the length of a with block, for
the soak scripts that run the RC stack or the suite on a loaded machine."""
import contextlib
import os
import signal
import subprocess

WORKERS = 2 * (os.cpu_count() or 1)


@contextlib.contextmanager
def busy_cpus():
    """stress-ng --cpu WORKERS from entry to exit (the with block gets its Popen); ended with
    SIGINT (killed after 10 s). It runs at the caller's nice level."""
    stress = subprocess.Popen(["stress-ng", "--cpu", str(WORKERS), "--timeout", "0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield stress
    finally:
        stress.send_signal(signal.SIGINT)
        try:
            stress.wait(10)
        except subprocess.TimeoutExpired:
            stress.kill()
