#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The path MTU on an ordinary Ethernet link: a veth pair of MTU 1500 between two network
namespaces the test makes (root), 10.99.x.1 in A, 10.99.x.2 in B. The port's active MTU
is the interface's as rxe derives it (1500 -> 1024), so that no packet is larger than
the link carries:
- ibv_devinfo (through `roceshark run`) shows active_mtu 1024, max_mtu 4096;
- `perf write_bw`, Debian's ib_write_bw and ibv_rc_pingpong (both through `run`), each
  with its defaults, pass; perf's header says Mtu 1024; ibv_rc_pingpong -m 4096 too
  (the library sends at the port's 1024, and so does its peer);
- perf -m 4096 is lowered to 1024 with a note, never raised;
- a route of MTU 1000 under the interface's (so 1024-byte payloads no longer fit): the
  kernel refuses the datagrams (EMSGSIZE), and perf says so on stderr and counts them in
  --counters' tx_errors, beside the RETRY_EXC_ERR they end in."""
import json
import os
import re
import shutil
import subprocess
import time

import livenet as ln
import rstest as t

ln.need_root()
pair = ln.VethPair("mtu", mtu=1500)
NET = "10.99.%d" % (os.getpid() % 250)
A, B = NET + ".1", NET + ".2"
ln.VethPair._ip("-n", pair.ns_a, "addr", "add", A + "/24", "dev", pair.if_a)
ln.VethPair._ip("-n", pair.ns_b, "addr", "add", B + "/24", "dev", pair.if_b)
PRELOAD = os.environ.get("ROCESHARK_SANITIZER_PRELOAD", "")
TOOLS = [x for x in ("ibv_devinfo", "ib_write_bw", "ibv_rc_pingpong") if shutil.which(x)]


def env(verbs=False):
    e = dict(os.environ)
    if verbs and PRELOAD:
        e["LD_PRELOAD"] = PRELOAD
        e["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0"
    return e


def listening(ns, port):
    """True once a TCP socket listens on port in namespace ns."""
    for name in ("tcp", "tcp6"):
        p = subprocess.run(["ip", "netns", "exec", ns, "cat", "/proc/net/" + name],
                           capture_output=True, text=True)
        for row in p.stdout.splitlines()[1:]:
            f = row.split()
            if f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:
                return True
    return False


def pair_run(what, server, client, port, verbs=False, timeout=120):
    """server in B, then client in A once B listens; both (rc, out, err)."""
    srv = t.spawn(pair.in_b(server), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                  text=True, env=env(verbs))
    while not listening(pair.ns_b, port) and srv.poll() is None:
        time.sleep(0.02)
    try:
        cli = subprocess.run(pair.in_a(client), capture_output=True, text=True,
                             timeout=timeout, env=env(verbs))
        c = (cli.returncode, cli.stdout, cli.stderr)
    except subprocess.TimeoutExpired:
        c = (-1, "", "timed out")
    try:
        s = srv.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        srv.kill()
        s = srv.communicate()
    s = (srv.returncode,) + s
    t.check(c[0] == 0 and s[0] == 0, "%s: client exit %s, server exit %s: %s | %s"
            % (what, c[0], s[0], c[2][-600:], s[2][-600:]))
    return s, c


def run_verbs(dev_ip, prog, *args):
    return [t.ROCESHARK, "run", "--dev", "rs0=" + dev_ip, "--", prog] + list(args)


def counters(out):
    """The --counters line (the last JSON line that has them)."""
    for line in reversed(out.splitlines()):
        if line.startswith("{") and '"requester"' in line:
            return json.loads(line)
    return None


def row(out):
    """perftest's result row: the line under the header."""
    lines = out.splitlines()
    for i, x in enumerate(lines):
        if re.match(r"^ #bytes\s+#iterations", x) and i + 1 < len(lines):
            return lines[i + 1].split()
    return None


# perf write_bw with its defaults (64 KiB, 5000 iterations).
port = t.free_port()
s, c = pair_run("perf write_bw", [t.ROCESHARK, "perf", "write_bw", "--bind", B, "-p", str(port)],
                [t.ROCESHARK, "perf", "write_bw", "--bind", A, "--connect", "%s:%d" % (B, port),
                 "--counters"], port)
for side, r in (("server", s), ("client", c)):
    t.check(re.search(r"Mtu\s+: 1024\[B\]", r[1]) is not None,
            "perf write_bw %s: Mtu 1024 on a 1500-byte link: %r" % (side, r[1][:600]))
got = row(c[1])
t.check(got is not None and got[:2] == ["65536", "5000"], "perf write_bw row: %r" % got)
cnt = counters(c[1])
t.check(cnt is not None and cnt["packets"]["tx_errors"] == 0,
        "perf write_bw: nothing refused by the kernel: %r" % (cnt or {}).get("packets"))

# -m can only lower the path MTU: 4096 asked, 1024 used, and said.
port = t.free_port()
s, c = pair_run("perf write_bw -m 4096", [t.ROCESHARK, "perf", "write_bw", "--bind", B, "-p",
                                          str(port), "-n", "50"],
                [t.ROCESHARK, "perf", "write_bw", "--bind", A, "--connect", "%s:%d" % (B, port),
                 "-n", "50", "-m", "4096"], port)
t.check(re.search(r"Mtu\s+: 1024\[B\]", c[1]) is not None and
        "--pmtu 4096: the port's active MTU is 1024 (interface MTU 1500); using 1024" in c[2],
        "perf -m 4096 on a 1500-byte link: lowered to 1024, with a note: %r %r"
        % (c[1][:500], c[2]))
port = t.free_port()
s, c = pair_run("perf write_bw -m 512", [t.ROCESHARK, "perf", "write_bw", "--bind", B, "-p",
                                         str(port), "-n", "50"],
                [t.ROCESHARK, "perf", "write_bw", "--bind", A, "--connect", "%s:%d" % (B, port),
                 "-n", "50", "-m", "512"], port)
t.check(re.search(r"Mtu\s+: 512\[B\]", c[1]) is not None and
        re.search(r"Mtu\s+: 512\[B\]", s[1]) is not None,
        "perf -m 512: the client's limit is the path's, on both sides: %r" % s[1][:500])

if "ibv_devinfo" in TOOLS:
    out = subprocess.run(pair.in_a(run_verbs(A, "ibv_devinfo", "-v")), capture_output=True,
                         text=True, env=env(True))
    t.check(re.search(r"active_mtu:\s+1024 \(3\)", out.stdout) is not None and
            re.search(r"max_mtu:\s+4096 \(5\)", out.stdout) is not None,
            "ibv_devinfo on a 1500-byte link: active_mtu 1024, max_mtu 4096: %r"
            % out.stdout[-1200:])

if "ib_write_bw" in TOOLS:
    port = t.free_port()
    s, c = pair_run("ib_write_bw", run_verbs(B, "ib_write_bw", "-d", "rs0", "-p", str(port)),
                    run_verbs(A, "ib_write_bw", "-d", "rs0", "-p", str(port), B), port,
                    verbs=True)
    got = row(c[1])
    t.check(got is not None and got[:2] == ["65536", "5000"], "ib_write_bw row: %r" % got)
    t.check(re.search(r"Mtu\s+: 1024\[B\]", c[1]) is not None,
            "ib_write_bw: Mtu 1024: %r" % c[1][:900])

if "ibv_rc_pingpong" in TOOLS:
    # Its defaults (4096 bytes, 1000 iterations); then -m 4096, which rxe would take (up
    # to max_mtu) and then send past the link: 100 iterations.
    for extra, iters in (([], 1000), (["-m", "4096", "-n", "100"], 100)):
        port = t.free_port()
        args = ["-d", "rs0", "-g", "1", "-p", str(port)] + extra
        s, c = pair_run("ibv_rc_pingpong %s" % " ".join(extra),
                        run_verbs(B, "ibv_rc_pingpong", *args),
                        run_verbs(A, "ibv_rc_pingpong", *args + [B]), port, verbs=True)
        for side, r in (("server", s), ("client", c)):
            t.check(re.search(r"^%d iters in [0-9.]+ seconds" % iters, r[1], re.M) is not None,
                    "ibv_rc_pingpong %s %s: %d iterations: %r" % (" ".join(extra), side, iters,
                                                                   r[1][-300:]))

# A route whose MTU is under the interface's: 1024-byte payloads (1084-byte datagrams) no
# longer fit, and the kernel refuses them. The user sees it.
ln.VethPair._ip("-n", pair.ns_a, "route", "replace", NET + ".0/24", "dev", pair.if_a, "mtu", "1000")
port = t.free_port()
srv = t.spawn(pair.in_b([t.ROCESHARK, "perf", "write_bw", "--bind", B, "-p", str(port),
                         "-n", "20"]),
              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
while not listening(pair.ns_b, port) and srv.poll() is None:
    time.sleep(0.02)
cli = subprocess.run(pair.in_a([t.ROCESHARK, "perf", "write_bw", "--bind", A, "--connect",
                                "%s:%d" % (B, port), "-n", "20", "--timeout", "8",
                                "--retry-cnt", "1", "--counters"]),
                     capture_output=True, text=True, timeout=60)
srv.kill()
srv.communicate()
t.check(cli.returncode != 0 and re.search(
    r"roceshark: perf: the kernel refused to send (\d+) of (\d+) packets: Message too long "
    r"\(the last: 10[6-8]\d bytes; interface MTU 1500\)", cli.stderr) is not None,
    "refused sends said on stderr: exit %d, %r" % (cli.returncode, cli.stderr))
t.check("RETRY_EXC_ERR" in cli.stderr, "and what they ended in: %r" % cli.stderr)
cnt = counters(cli.stdout)
t.check(cnt is not None and cnt["packets"]["tx_errors"] > 0 and
        cnt["packets"]["tx_errors"] <= cnt["packets"]["tx"],
        "--counters: tx_errors: %r" % (cnt or {}).get("packets"))

t.finish("path_mtu")
