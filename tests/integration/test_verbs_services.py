#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""libroceshark-verbs.so beyond RC, through `roceshark run`, on two loopback addresses:
- Debian's ibv_ud_pingpong, ibv_uc_pingpong and ibv_srq_pingpong, server and client, with
  their data checked (-c), at GID index 1 (the address, RoCE v2, as on rxe);
- ib_send_bw and ib_send_lat with --use-srq;
- a program of ours (tests/verbs/verbs_prog.c) whose SEND, WRITE and READ take 2 and then
  16 scatter/gather elements, checked byte for byte;
- the safe provider, against `roceshark responder` losing the first transmission: a READ
  whose sink, and a WRITE whose source, is deregistered before it goes again fails with
  "local protection error" (the memory made inaccessible: any access would crash the
  program); an inline post refused for a full queue leaves the data of the WRITEs in
  flight alone; under the sanitizer build the library's every access is checked too;
- diagnostics: ROCESHARK_VERBS_DEBUG=1 says why a GID index whose address is not here
  (lo's link-local GID) or an address another program holds fails; run refuses an address that is not this host's and warns of a
  statically linked program.
A few hundred iterations each: CI has 20 minutes for everything."""
import os
import random
import re
import shutil
import subprocess
import time

import rstest as t
import verbsrun
from verbsrun import env

PROG = os.environ.get("VERBS_PROG", "")
TOOLS = ["ibv_ud_pingpong", "ibv_uc_pingpong", "ibv_srq_pingpong", "ib_send_bw",
         "ib_send_lat", "ibv_rc_pingpong"]
missing = [x for x in TOOLS if shutil.which(x) is None]
if missing or not PROG:
    # CI installs them (perftest, ibverbs-utils); a build without verbs has no verbs_prog.
    print("skipped: %s not installed, or no verbs_prog" % (missing or "verbs_prog"))
    t.finish("verbs_services")

rng = random.SystemRandom()
NET = (127, rng.randrange(32, 250), rng.randrange(1, 250))
A, B = ("%d.%d.%d.%d" % (NET + (h,)) for h in rng.sample(range(2, 250), 2))
OUT = t.tempdir()


def run_cmd(devs, prog, *args):
    cmd = [t.ROCESHARK, "run"]
    for d in devs:
        cmd += ["--dev", d]
    return cmd + ["--", prog] + list(args)


def pair(what, server, client, port, timeout=60, extra_env=None):
    """Starts server, waits until it listens on port, runs client; both (rc, out, err)."""
    e = env(**(extra_env or {}))
    return verbsrun.pair(server, client, lambda: t.listening(port), timeout, e, e)


def pingpong(tool, iters, *extra):
    """tool as server on A and client on B, -c: both finish their iterations."""
    p = t.free_port()
    args = ["-g", "1", "-p", str(p), "-n", str(iters), "-c"] + list(extra)
    s, c = pair(tool, run_cmd(["rs0=" + A], tool, "-d", "rs0", *args),
                run_cmd(["rs1=" + B], tool, "-d", "rs1", *args + [A]), p)
    for side, r in (("server", s), ("client", c)):
        ok = r[0] == 0 and re.search(r"^%d iters in [0-9.]+ seconds" % iters, r[1], re.M)
        t.check(ok, "%s %s: exit %s, %d iterations: %r %r"
                % (tool, side, r[0], iters, r[1][-300:], r[2][-300:]))
    return s, c


# --- UD, UC and SRQ, as Debian's examples run them on rxe ---
s, c = pingpong("ibv_ud_pingpong", 200, "-s", "1024")
t.check("GID ::ffff:%s" % A in c[1], "ibv_ud_pingpong: the server's GID, index 1: %r"
        % c[1][:300])
pingpong("ibv_uc_pingpong", 200)
s, c = pingpong("ibv_srq_pingpong", 200, "-q", "4")
t.check(len(re.findall(r"remote address:.*QPN", c[1])) == 4,
        "ibv_srq_pingpong: four QPs on the SRQ: %r" % c[1][:600])

HEADER = re.compile(r"^ #bytes\s+#iterations", re.M)
for tool, size in (("ib_send_bw", 8192), ("ib_send_lat", 2)):
    p = t.free_port()
    args = ["-x", "1", "--use-srq", "-s", str(size), "-n", "200", "-p", str(p)]
    s, c = pair(tool, run_cmd(["rs0=" + A], tool, "-d", "rs0", *args),
                run_cmd(["rs1=" + B], tool, "-d", "rs1", *args + [A]), p)
    lines = c[1].splitlines()
    rows = [lines[i + 1].split() for i, x in enumerate(lines[:-1]) if HEADER.match(x)]
    t.check(s[0] == 0 and c[0] == 0 and len(rows) == 1 and rows[0][:2] == [str(size), "200"],
            "%s --use-srq: exit %s/%s, one row of %d bytes and 200 iterations: %r %r"
            % (tool, s[0], c[0], size, c[1][-400:], c[2][-300:]))

# --- several scatter/gather elements, one process with two devices ---
for n in (2, 16):
    r = subprocess.run(run_cmd(["ta=" + A, "tb=" + B], PROG, "sge", str(n)),
                       capture_output=True, text=True, env=env(), timeout=60)
    t.check(r.returncode == 0 and r.stdout.count("ok") == 3,
            "%d elements: SEND, WRITE and READ: %r %r" % (n, r.stdout, r.stderr[-300:]))

# --- the safe provider, against a responder that loses what the rules say ---
LOSE_FIRST = "drop times 4 dir rx if infiniband.bth.psn < 4\n"       # the first transmission
LOSE_READ = "drop times 1 dir rx if infiniband.bth.opcode == 12\n"   # the READ request


def against_responder(mode, rules):
    """verbs_prog MODE against a responder on A with those fault rules; returns the
    program's (rc, out, err) and the first 64 bytes of the responder's region. The
    program's local ACK timeout is a second: what it does after its post comes first."""
    path = os.path.join(OUT, mode + ".rules")
    with open(path, "w") as f:
        f.write(rules)
    port = t.free_port()
    resp = t.spawn([t.ROCESHARK, "responder", "--bind", A, "--listen", str(port),
                    "--control", "--faults", path], stdin=subprocess.PIPE,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.time() + 10
    while not t.listening(port) and resp.poll() is None and time.time() < end:
        time.sleep(0.02)
    r = subprocess.run(run_cmd(["rs1=" + B], PROG, mode, A, str(port)), capture_output=True,
                       text=True, env=env(), timeout=60)
    out, err = resp.communicate("dump 0 64\nquit\n", timeout=30)
    m = re.search(r'"offset": 0, "hex": "([0-9a-f]+)"', out)
    return r, bytes.fromhex(m.group(1)) if m else b""


r, mem = against_responder("dereg-read", LOSE_READ)
t.check(r.returncode == 0 and "dereg 0, READ: local protection error" in r.stdout,
        "a READ into a region deregistered before its response fails, the memory untouched: "
        "exit %s %r %r" % (r.returncode, r.stdout, r.stderr[-400:]))
r, mem = against_responder("dereg-write", LOSE_FIRST)
t.check(r.returncode == 0 and "dereg 0, WRITE: local protection error" in r.stdout,
        "a WRITE whose source was deregistered before its retransmission fails: exit %s %r %r"
        % (r.returncode, r.stdout, r.stderr[-400:]))
t.check(len(mem) == 64 and b"S" not in mem, "... and the peer got none of it: %r" % mem)
r, mem = against_responder("inline-slot", LOSE_FIRST)
t.check(r.returncode == 0 and "4 posted, 1 refused (ENOMEM), 4 of 4 completed with success"
        in r.stdout, "inline WRITEs: the fifth refused, four done: %r %r"
        % (r.stdout, r.stderr[-400:]))
t.check(mem == b"A" * 16 + b"B" * 16 + b"C" * 16 + b"D" * 16,
        "the refused post changed no data in flight (all four were retransmitted): %r" % mem)

# --- why a verb fails ---
p = t.free_port()
args = ["-g", "0", "-p", str(p), "-n", "5"]
s, c = pair("link-local on lo", run_cmd(["rs0=" + A], "ibv_rc_pingpong", "-d", "rs0", *args),
            run_cmd(["rs1=" + B], "ibv_rc_pingpong", "-d", "rs1", *args + [A]), p, timeout=30,
            extra_env={"ROCESHARK_VERBS_DEBUG": "1"})
# The server connects its QP first (after the client's address came) and fails there.
line = re.search(r"^roceshark-verbs: rs0: GID index 0 \(fe80::200:ff:fe00:0\): address not on "
                 r"this host .*\(EADDRNOTAVAIL\)$", s[2], re.M)
t.check(s[0] != 0 and c[0] != 0 and line is not None,
        "-g 0 (lo has no link-local address): both fail, the server with one line saying "
        "why: %r" % s[2][-400:])
# An address held by another program: the second one is told so.
p = t.free_port()
holder = t.spawn(run_cmd(["rs0=" + A], "ibv_rc_pingpong", "-d", "rs0", "-g", "1", "-p",
                         str(p)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                 text=True, env=env())
end = time.time() + 10
while not t.listening(p) and holder.poll() is None and time.time() < end:
    time.sleep(0.02)
r = subprocess.run(run_cmd(["rs0=" + A], "ibv_rc_pingpong", "-d", "rs0", "-g", "1", "-p",
                           str(t.free_port())),
                   capture_output=True, text=True, timeout=30, env=env(ROCESHARK_VERBS_DEBUG="1"))
holder.kill()
holder.communicate()
t.check(r.returncode != 0 and re.search(r"^roceshark-verbs: rs0: %s:4791: address in use \("
                                        r"another program holds it.*\(EADDRINUSE\)$"
                                        % re.escape(A), r.stderr, re.M),
        "an address another program holds: one line: %r" % r.stderr[-400:])
# run itself: an address that is not here, a program no library can be preloaded into.
r = subprocess.run([t.ROCESHARK, "run", "--dev", "rs0=192.0.2.77", "--", "true"],
                   capture_output=True, text=True)
t.check(r.returncode == 1 and r.stderr.startswith("roceshark: run: --dev rs0=192.0.2.77: "
                                                  "192.0.2.77: address not on this host (")
        and r.stderr.count("\n") == 1, "run refuses a foreign address: %r" % r.stderr)
static = "/sbin/ldconfig"
if os.path.exists(static):
    r = subprocess.run([t.ROCESHARK, "run", "--dev", "rs0=" + A, "--", static, "--version"],
                       capture_output=True, text=True)
    t.check(r.returncode == 0 and "roceshark: run: warning: %s is statically linked" % static
            in r.stderr, "run warns of a statically linked program: %r" % r.stderr)

t.finish("verbs_services")
