#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Long work shows its progress on a terminal, and only there. In tmux (a real terminal),
inside a network namespace of the test's own:
  - `capture -i lo` prints a running count and rate ("capture: lo: N frames, R frames/s"),
    as dumpcap does, which counts up while frames come; Ctrl-C wipes it and leaves the
    counts, whose figure is at least the last count shown;
  - `inject` of many packets prints "inject: N packets, S s, R packets/s" while it runs;
  - `replay` prints how many of its packets are sent while it sends them.
With stderr a pipe, none of them writes a progress line (no carriage return)."""
import os
import re
import shlex
import subprocess
import time

import rstest as t

# A tmux server of our own for each command, on a socket of its own: tmux's server goes on
# exiting for a moment after kill-server, and a new-session on the same socket then reaches
# the dying server and fails ("tmux: server exited unexpectedly", about one time in ten on a
# busy host).
SOCKET = ["rsprogress-%d-0" % os.getpid()]
SAMPLE = os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap")


def tmux(*args):
    return subprocess.run(["tmux", "-L", SOCKET[0], "-f", "/dev/null"] + list(args),
                          capture_output=True, text=True)


def screen():
    return tmux("capture-pane", "-p", "-J", "-t", "p").stdout


def wait_for(pred, what, timeout=60.0):
    """Polls the screen until pred(screen) holds (a bound on a hang, not a time window)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        s = screen()
        if pred(s):
            return s
        time.sleep(0.2)
    t.check(False, "%s; the screen:\n%s" % (what, screen()))
    return screen()


def run_in_tmux(tmp, script):
    """Runs script with sh in a detached tmux window, in a new network namespace."""
    path = os.path.join(tmp, "run.sh")
    # The shell outlives Ctrl-C (its trap), so that what follows the command still runs.
    open(path, "w").write("trap : INT\nip link set lo up\n" + script +
                          "\necho DONE $?\nsleep 600\n")
    cmd = "unshare -n sh %s" % shlex.quote(path)
    stop()
    n = int(SOCKET[0].rsplit("-", 1)[1]) + 1
    SOCKET[0] = "rsprogress-%d-%d" % (os.getpid(), n)
    p = tmux("new-session", "-d", "-s", "p", "-x", "150", "-y", "20",
             "env ROCESHARK=%s %s" % (shlex.quote(t.ROCESHARK), cmd))
    t.check(p.returncode == 0, "tmux: %s" % p.stderr)


def stop():
    tmux("kill-server")
    # tmux leaves the socket's file behind.
    try:
        os.unlink(os.path.join(os.environ.get("TMUX_TMPDIR", "/tmp"), "tmux-%d" % os.getuid(),
                               SOCKET[0]))
    except OSError:
        pass


def capture(tmp):
    # A sender of RoCEv2 frames over UDP to 127.0.0.2:4791, then the capture in front.
    send = ("$ROCESHARK inject --udp --pps 2000 --loop 0 --duration 60 "
            "'ip(src=127.0.0.1, dst=127.0.0.2) / bth(opcode=\"RC Send Only\", destqp=0x11) / "
            "payload(len=8)' > /dev/null 2>&1 &\n")
    run_in_tmux(tmp, send + "$ROCESHARK capture -i lo -w %s" % os.path.join(tmp, "c.pcap"))
    counts = []
    for _ in range(2):
        s = wait_for(lambda s: (m := re.findall(r"capture: lo: (\d+) frames, (\d+) frames/s",
                                                s)) and int(m[-1][0]) > (counts[-1] if counts
                                                                         else 0),
                     "capture shows a running count that grows")
        counts.append(int(re.findall(r"capture: lo: (\d+) frames", s)[-1]))
    tmux("send-keys", "-t", "p", "C-c")
    s = wait_for(lambda s: "DONE" in s, "capture ends on Ctrl-C")
    final = re.search(r"capture: lo: (\d+) received, (\d+) written", s)
    t.check(final is not None and int(final.group(2)) >= counts[-1] and
            "frames/s" not in s.split("DONE")[0].splitlines()[-2],
            "the counts replace the progress line: %r" % s)
    t.check(re.search(r"DONE 0\b", s) is not None, "capture exits 0: %r" % s)
    stop()
    print("capture: running count %s, then %s written" % (counts, final and final.group(2)))


def inject(tmp):
    run_in_tmux(tmp, "$ROCESHARK inject -w %s --loop 0 --duration 30 'bth / payload(len=8)'"
                % os.path.join(tmp, "i.pcap"))
    s = wait_for(lambda s: re.search(r"inject: \d+ packets, [\d.]+ s, \d+ packets/s", s),
                 "inject shows its progress")
    tmux("send-keys", "-t", "p", "C-c")
    s = wait_for(lambda s: "DONE" in s, "inject ends on Ctrl-C")
    t.check(re.search(r"DONE 0\b", s) is not None, "inject exits 0: %r" % s)
    stop()


def replay(tmp):
    # Our responder, then 13 requests of the sample 40 times at 200 a second (2.6 s).
    run_in_tmux(tmp, "$ROCESHARK responder --bind 127.0.0.2 --recv 64 --repost > /dev/null &\n"
                "$ROCESHARK replay -r %s --conv 1 --bind 127.0.0.1 --target 127.0.0.2 "
                "--pps 200 --loop 40 > /dev/null" % SAMPLE)
    s = wait_for(lambda s: re.search(r"replay: (\d+) of 520 packets sent", s),
                 "replay shows its progress")
    s = wait_for(lambda s: "DONE" in s, "replay ends")
    t.check(re.search(r"replay: 520 packets sent in [\d.]+ s", s) is not None,
            "replay's last progress line: %r" % s)
    stop()


def not_on_a_pipe(tmp):
    p = subprocess.run([t.ROCESHARK, "inject", "-w", os.path.join(tmp, "n.pcap"), "-c",
                        "300000", "bth / payload(len=8)"], capture_output=True, text=True)
    t.check(p.returncode == 0 and "\r" not in p.stderr and p.stderr.count("\n") == 1,
            "inject to a pipe: one line, no progress: %r" % p.stderr)


def main():
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        t.skip_missing("network namespaces (unshare -n)")
    tmp = t.tempdir()
    try:
        capture(tmp)
        inject(tmp)
        replay(tmp)
    finally:
        stop()
    not_on_a_pipe(tmp)
    t.finish("progress")


main()
