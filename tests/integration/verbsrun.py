# SPDX-License-Identifier: GPL-2.0-or-later
"""verbsrun - what the tests of verbs programs under `roceshark run` share: the programs'
environment and a server/client pair of them."""
import os
import subprocess
import time

import rstest as t

# The sanitizers' runtimes, when the library under test is an instrumented one.
PRELOAD = os.environ.get("ROCESHARK_SANITIZER_PRELOAD", "")


def env(preload=True, **extra):
    """A verbs program's environment: no devices from ours, and with preload the
    sanitizers' runtimes first (an instrumented library in an uninstrumented program
    needs them; `run` puts ours after what LD_PRELOAD holds), the program's own leaks not
    ours to report."""
    e = dict(os.environ)
    e.pop("ROCESHARK_VERBS_DEVICES", None)
    if PRELOAD and preload:
        e["LD_PRELOAD"] = PRELOAD
        e["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0"
    e.update(extra)
    return e


def pair(server, client, listening, timeout=60, server_env=None, client_env=None):
    """Starts server, waits until listening() (10 s at most, or until the server ends),
    runs client; returns the server's and the client's (exit status, stdout, stderr). A
    side that outlives timeout is killed and counts as failed."""
    srv = t.spawn(server, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                  env=server_env if server_env is not None else env())
    end = time.time() + 10
    while not listening() and srv.poll() is None and time.time() < end:
        time.sleep(0.02)
    try:
        cli = subprocess.run(client, capture_output=True, text=True, timeout=timeout,
                             env=client_env if client_env is not None else env())
        c = (cli.returncode, cli.stdout, cli.stderr)
    except subprocess.TimeoutExpired:
        c = (-1, "", "timed out")
    try:
        s_out, s_err = srv.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        srv.kill()
        s_out, s_err = srv.communicate()
    return (srv.returncode, s_out, s_err), c
