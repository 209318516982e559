#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""load.py RUNS - the RC stack on a machine busier than it has cores (root: a network
namespace of its own, loopback only).

`stress-ng --cpu 2*nproc` runs beside it throughout. RUNS times each, one after the other:
- ib_send_lat -n 10000, both sides Debian's perftest through `roceshark run`;
- ib_write_bw -D 10, likewise;
- roceshark perf write_bw -s 1M against roceshark perf.
Every run must end with exit 0 on both sides and its results table (-n 10000 iterations
exactly for ib_send_lat); a retransmission is allowed (a descheduled peer makes the ACK
timer fire, as it must), RETRY_EXC_ERR or any other failed completion is not. perf's
client's retransmissions are summed from --counters and printed per million packets. Progress goes to
stdout, a line per run."""
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
import rstest as t  # noqa: E402
import cpu_load  # noqa: E402

if len(sys.argv) != 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
    sys.exit("usage: load.py RUNS")
RUNS = int(sys.argv[1])
for tool in ("stress-ng", "ib_send_lat", "ib_write_bw"):
    if shutil.which(tool) is None:
        print("skipped: %s not installed (apt-get install stress-ng perftest)" % tool)
        sys.exit(t.SKIP_CODE)
if os.environ.get("ROCESHARK_LOAD_NS") != "1":
    # A loopback of our own: our ports and addresses meet no other test's.
    os.environ["ROCESHARK_LOAD_NS"] = "1"
    os.execvp("unshare", ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh",
                          sys.executable] + sys.argv)

A, B = "127.0.0.2", "127.0.0.3"
HEADER = re.compile(r"^\s*#bytes\s+#iterations")


def table_row(out):
    lines = out.splitlines()
    for i, line in enumerate(lines[:-1]):
        if HEADER.match(line):
            return lines[i + 1].split()
    return None


def pair(server, client):
    port = int(server[server.index("-p") + 1])
    srv = subprocess.Popen(server, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not t.listening(port) and srv.poll() is None:
        time.sleep(0.05)
    cli = subprocess.run(client, capture_output=True, text=True, timeout=600)
    s_out, s_err = srv.communicate(timeout=600)
    return (srv.returncode, s_out, s_err), (cli.returncode, cli.stdout, cli.stderr)


def run_cmd(dev, ip, tool, *args):
    return [t.ROCESHARK, "run", "--dev", "%s=%s" % (dev, ip), "--", tool, "-d", dev] + list(args)


def perftest(tool, args):
    p = t.free_port()
    return pair(run_cmd("rs0", A, tool, "-p", str(p), *args),
                run_cmd("rs1", B, tool, "-p", str(p), *(args + [A])))


def perf(args):
    p = t.free_port()
    return pair([t.ROCESHARK, "perf", "write_bw", "--bind", A, "-p", str(p), "--counters"] + args,
                [t.ROCESHARK, "perf", "write_bw", "--bind", B, "--connect", "%s:%d" % (A, p),
                 "--counters"] + args)


def counters(err):
    """The requester's retransmits and packets, from --counters' JSON line."""
    m = re.search(r'"requester": \{"packets": (\d+), "retransmits": (\d+)', err)
    return (int(m.group(2)), int(m.group(1))) if m else (0, 0)


results = {"ib_send_lat": 0, "ib_write_bw": 0, "perf write_bw": 0}
retx = sent = 0
start = time.time()
with cpu_load.busy_cpus():
    time.sleep(1)
    for i in range(1, RUNS + 1):
        for name, go, want_iters in (
                ("ib_send_lat", lambda: perftest("ib_send_lat", ["-n", "10000"]), "10000"),
                ("ib_write_bw", lambda: perftest("ib_write_bw", ["-D", "10"]), None),
                ("perf write_bw", lambda: perf(["-s", "1M"]), None)):
            s, c = go()
            row = table_row(c[1])
            ok = (s[0] == 0 and c[0] == 0 and row is not None and
                  (want_iters is None or row[1] == want_iters) and
                  "RETRY_EXC_ERR" not in s[2] + c[2])
            t.check(ok, "run %d, %s: client exit %s, server exit %s, row %s: %s | %s"
                    % (i, name, c[0], s[0], row, c[2][-300:], s[2][-300:]))
            results[name] += ok
            if name == "perf write_bw":
                r, n = counters(c[1])
                retx, sent = retx + r, sent + n
            print("run %d/%d %-14s %s  row %s  (%.0f s)" % (i, RUNS, name, "ok" if ok else "FAILED",
                                                        " ".join(row or []), time.time() - start),
                  flush=True)
for name, n in results.items():
    print("%-14s %d of %d runs completed" % (name, n, RUNS))
print("perf write_bw retransmissions: %d of %d packets sent (%.0f per million)"
      % (retx, sent, 1e6 * retx / sent if sent else 0))
t.finish("load")
