#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perf's bandwidth options as perftest has them, over two loopback addresses:
- -q 2 (two QPs, each running -n): against Debian's ib_write_bw -q 2 through
  `roceshark run`, both directions; each side's table says 2 x -n iterations;
- -b (both sides at once): against ib_write_bw -b and ib_send_bw -b, both directions; both
  sides print the same row (the sum of the two directions);
- a perftest client with -q 2 against a perf server without it: refused with a line that
  names -q (it once read the second key message as a BW report: "message size ... is past
  4 GiB");
- perf against perf: write_bw -q 2 -b --report-both (each side's "Local" row is the other's
  "Remote" one) and send_bw -q 2 -a (a row for every size from 2 bytes to 8 MiB, each of
  2 x -n messages).
Everything is counted (rows, sizes, iterations), nothing timed. A few seconds of traffic."""
import re
import shutil

import rstest as t
import verbsrun as vr

if shutil.which("ib_write_bw") is None or shutil.which("ib_send_bw") is None:
    print("skipped: perftest not installed (apt-get install perftest)")
    t.finish("perf_options")

A, B = "127.0.0.2", "127.0.0.3"
HEADER = re.compile(r"^\s*#bytes\s+#iterations")
ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")


def pair(what, server, client, expect_ok=True):
    """Starts server, waits until it listens, runs client; returns (rc, out, err) of each.
    A program under `roceshark run` gets verbsrun's environment (the sanitizers' runtimes)."""
    port = int(server[server.index("-p") + 1])
    s, c = vr.pair(server, client, lambda: t.listening(port), timeout=120,
                   server_env=vr.env(preload=server[1:2] == ["run"]),
                   client_env=vr.env(preload=client[1:2] == ["run"]))
    if expect_ok:
        t.check(c[0] == 0 and s[0] == 0, "%s: client exit %s, server exit %s: %s | %s"
                % (what, c[0], s[0], c[2][-400:], s[2][-400:]))
    return s, c


def rows(out):
    """Every row under a results header: [(size, iterations, peak, avg, rate)]."""
    found, under = [], False
    for line in out.splitlines():
        if HEADER.match(line):
            under = True
            continue
        m = ROW.match(line) if under else None
        if m:
            found.append((int(m.group(1)), int(m.group(2))) + tuple(m.groups()[2:]))
        elif under and line.startswith("---"):
            under = False
    return found


# Both sides wait 1.07 s for an ACK (perftest's -u 18, perf's --timeout 18), not 67 ms: a
# requester whose peer is descheduled that long (the sanitizer build on a loaded machine)
# retries rather than fail, and nothing here is about the retry timer.
def perf(test, ip, port, *args, connect=None):
    cmd = [t.ROCESHARK, "perf", test, "--bind", ip, "-p", str(port), "--timeout", "18"]
    if connect:
        cmd += ["--connect", connect % port]
    return cmd + list(args)


def perftest(tool, dev, ip, port, *args, server_ip=None):
    return ([t.ROCESHARK, "run", "--dev", "%s=%s" % (dev, ip), "--", tool, "-d", dev, "-p",
             str(port), "-u", "18"] + list(args) + ([server_ip] if server_ip else []))


def both_ways(tool, test, args, check):
    """perf as the server of perftest's client, then as the client of perftest's server."""
    p = t.free_port()
    s, c = pair("%s %s (perf server)" % (tool, " ".join(args)), perf(test, A, p, *args),
                perftest(tool, "rs1", B, p, *args, server_ip=A))
    check("%s %s, perf server" % (tool, " ".join(args)), s[1], c[1])
    p = t.free_port()
    s, c = pair("%s %s (perf client)" % (tool, " ".join(args)), perftest(tool, "rs0", A, p, *args),
                perf(test, B, p, *args, connect="perftest://" + A + ":%d"))
    check("%s %s, perf client" % (tool, " ".join(args)), s[1], c[1])


N = 100


def check_q2(what, s_out, c_out):
    for side, out in (("server", s_out), ("client", c_out)):
        r = rows(out)
        t.check(len(r) == 1 and r[0][:2] == (65536, 2 * N),
                "%s: the %s's one row of 65536 bytes, %d iterations (2 QPs x %d): %s"
                % (what, side, 2 * N, N, r))
    t.check(len(re.findall(r"remote address", c_out)) == 2,
            "%s: the client names the server's two QPs: %r" % (what, c_out[-800:]))


def check_duplex(what, s_out, c_out):
    rs, rc = rows(s_out), rows(c_out)
    t.check(len(rs) == 1 and len(rc) == 1 and rs[0][1] == N and rc[0][1] == N and rs == rc,
            "%s: both sides print one row of %d iterations, the same sum: %s | %s"
            % (what, N, rs, rc))


both_ways("ib_write_bw", "write_bw", ["-s", "65536", "-n", str(N), "-q", "2"], check_q2)
for tool, test in (("ib_write_bw", "write_bw"), ("ib_send_bw", "send_bw")):
    both_ways(tool, test, ["-s", "65536", "-n", str(N), "-b"], check_duplex)

# A perftest client with more QPs than the perf server: refused, by name.
p = t.free_port()
s, c = pair("ib_write_bw -q 2 against perf without -q", perf("write_bw", A, p, "-n", str(N)),
            perftest("ib_write_bw", "rs1", B, p, "-n", str(N), "-q", "2", server_ip=A),
            expect_ok=False)
t.check(s[0] != 0 and c[0] != 0, "-q 2 against -q 1: both sides fail: %s, %s" % (s[0], c[0]))
errs = s[2].strip().splitlines()
t.check(len(errs) == 1 and errs[0].startswith("roceshark: perf: ") and "-q" in errs[0]
        and "past 4 GiB" not in errs[0],
        "-q 2 against -q 1: one line naming -q: %r" % s[2])

# perf against perf: -q 2 -b --report-both, each side's Local the other's Remote.
p = t.free_port()
args = ["-s", "4096", "-n", str(N), "-q", "2", "-b", "--report-both"]
s, c = pair("perf write_bw " + " ".join(args), perf("write_bw", A, p, *args),
            perf("write_bw", B, p, *args, connect=A + ":%d"))
rs, rc = rows(s[1]), rows(c[1])
t.check(len(rs) == 3 and len(rc) == 3 and all(r[:2] == (4096, 2 * N) for r in rs + rc),
        "perf -q 2 -b --report-both: three rows a side (sum, local, remote) of %d iterations: "
        "%s | %s" % (2 * N, rs, rc))
if len(rs) == 3 and len(rc) == 3:
    t.check(rs[0] == rc[0] and rs[1] == rc[2] and rs[2] == rc[1],
            "perf -q 2 -b --report-both: the same sum, and each Local the other's Remote: "
            "%s | %s" % (rs, rc))

# perf against perf: send_bw -a, a row per size, each of every QP's messages.
p = t.free_port()
args = ["-a", "-n", "2", "-q", "2"]
s, c = pair("perf send_bw " + " ".join(args), perf("send_bw", A, p, *args),
            perf("send_bw", B, p, *args, connect=A + ":%d"))
sizes = [2 << i for i in range(23)]
for side, out in (("server", s[1]), ("client", c[1])):
    r = rows(out)
    t.check([x[0] for x in r] == sizes and all(x[1] == 4 for x in r),
            "perf send_bw -a -q 2: the %s's rows are every size from 2 to 8 MiB, 4 messages "
            "each: %s" % (side, [x[:2] for x in r]))

t.finish("perf_options")
