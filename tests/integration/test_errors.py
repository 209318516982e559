#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The errors every command meets are worded alike, by one helper (dissectors/error_kinds.c):
no such interface (capture, read -i, tui -i, inject -i, bridge), address in use and an
address not on this host (responder, perf, inject --udp), and permission (capture and
inject -i as an unprivileged user). Each is one line, `roceshark: CMD: ...`, exit code 4.
Runs in a network namespace of its own (lo and a dummy interface)."""
import os
import re
import subprocess
import time

import rstest as t

R = t.ROCESHARK
NOIF = "rs-noif0"


def one_line(args, want, code=4, user=None):
    cmd = ([] if user is None else ["setpriv", "--reuid=nobody", "--regid=nogroup",
                                     "--clear-groups"]) + [R] + args
    p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                       timeout=60)
    ok = t.check(p.returncode == code and p.stderr.count("\n") == 1 and
                 re.match(want, p.stderr) is not None,
                 "%s: exit %d, want %d and %r: %r" % (" ".join(args), p.returncode, code, want,
                                                      p.stderr))
    return ok


def main():
    if "ROCESHARK_ERRORS_NETNS" not in os.environ:
        if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
            t.skip_missing("network namespaces (unshare -n)")
        env = dict(os.environ, ROCESHARK_ERRORS_NETNS="1")
        p = subprocess.run(["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh",
                            t.PYTHON, os.path.abspath(__file__)], env=env)
        raise SystemExit(p.returncode)
    listing = r"no such interface \(interfaces: lo\)\n$"
    tmp = t.tempdir()
    out = os.path.join(tmp, "x.pcap")
    # No such interface: the same words in every command that opens one.
    # read exits 1 there, as tshark does; the others 4.
    for args, prefix, code in ((["capture", "-i", NOIF, "-w", out], "capture: ", 4),
                               (["read", "-i", NOIF], "read: ", 1),
                               (["inject", "-i", NOIF, "bth"], "inject: -i ", 4),
                               (["bridge", NOIF, "lo"], "bridge: ", 4)):
        one_line(args, r"roceshark: %s%s: %s" % (prefix, NOIF, listing), code)
    # An address: in use, and not on this host.
    held = t.spawn([R, "responder", "--bind", "127.0.0.2"], stdout=subprocess.PIPE,
                   stderr=subprocess.DEVNULL, text=True)
    try:
        ready = held.stdout.readline()      # its JSON line: the port is held
        t.check(ready.startswith("{"), "the responder did not start: %r" % ready)
        in_use = r"roceshark: %s: 127\.0\.0\.2:4791: address in use \(another program holds it"
        one_line(["perf", "write_bw", "--bind", "127.0.0.2"], in_use % "perf")
        one_line(["responder", "--bind", "127.0.0.2"], in_use % "responder")
    finally:
        held.terminate()
        held.wait(10)
    away = r"roceshark: %s: 192\.0\.2\.1:\d+: address not on this host \(give one of its"
    one_line(["perf", "write_bw", "--bind", "192.0.2.1"], away % "perf")
    one_line(["inject", "--udp", "ip(src=192.0.2.1, dst=127.0.0.2) / bth"], away % "inject: --udp")
    # Permission: an unprivileged user.
    perm = (r"roceshark: %slo: permission denied \(capturing and sending need CAP_NET_RAW: "
            r"run as root, or setcap cap_net_raw,cap_net_admin\+eip on roceshark\)\n$")
    if os.geteuid() == 0:
        one_line(["capture", "-i", "lo", "-w", "/dev/null"], perm % "capture: ", user="nobody")
        one_line(["inject", "-i", "lo", "eth(dst=00:00:00:00:00:01) / ip / bth"],
                 perm % "inject: -i ", user="nobody")
    t.finish("errors")


main()
