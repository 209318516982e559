#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""load.py [LENGTHS] RUNS - the RC stack on a machine busier than it has cores (root: a
network namespace of its own, loopback only).

`stress-ng --cpu 2*nproc` runs beside it throughout, at this process's nice level, as
everything it starts does: the RC programs compete with the busy CPUs as equals. RUNS times
each, one after the other:
- ib_send_lat -n SEND_LAT_ITERS (default 10000), both sides Debian's perftest through
  `roceshark run`;
- ib_write_bw -D WRITE_BW_SECONDS (default 10), likewise;
- roceshark perf write_bw -s 1M -n PERF_ITERS (default 5000) against roceshark perf.
Every run must end with exit 0 on both sides and its results table (exactly
SEND_LAT_ITERS iterations for ib_send_lat, PERF_ITERS for perf); a retransmission is
allowed (a descheduled peer makes the ACK timer fire, as it must), RETRY_EXC_ERR or any
other failed completion is not. perf's client's retransmissions are summed from --counters
and printed per million packets. Progress goes to stdout, a line per run. The defaults are
the soak (`load.py 20`); ctest's soak.load gives shorter lengths."""
import argparse
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


def positive(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError("a whole number of at least 1, not %r" % text)
    return int(text)


ap = argparse.ArgumentParser(description="the RC stack beside stress-ng --cpu 2*nproc")
ap.add_argument("--send-lat-iters", type=positive, default=10000, metavar="N",
                help="ib_send_lat -n (default 10000)")
ap.add_argument("--write-bw-seconds", type=positive, default=10, metavar="S",
                help="ib_write_bw -D (default 10)")
ap.add_argument("--perf-iters", type=positive, default=5000, metavar="N",
                help="perf write_bw -s 1M -n (default 5000, perf's own)")
ap.add_argument("runs", type=positive, metavar="RUNS", help="rounds of the three tests")
opts = ap.parse_args()
RUNS = opts.runs
for tool in ("stress-ng", "ib_send_lat", "ib_write_bw"):
    if shutil.which(tool) is None:
        t.skip_missing("%s (apt-get install stress-ng perftest)" % tool)
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


# A side that has not ended by then is a failed run, said in the run's check line like any
# other failure (it is killed, and the next run goes on), not an exception that ends them all.
RUN_BOUND = 600


def pair(server, client):
    port = int(server[server.index("-p") + 1])
    srv = t.spawn(server, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not t.listening(port) and srv.poll() is None:
        time.sleep(0.05)
    cli = t.spawn(client, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ended = []
    for p in (cli, srv):
        try:
            out, err = p.communicate(timeout=RUN_BOUND)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            err += "\nnot ended after %d s: killed" % RUN_BOUND
        ended.append((p.returncode, out, err))
    return ended[1], ended[0]


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


# Each verbs program's devices tell their transport's counters as they close
# (ROCESHARK_VERBS_DEBUG): how long the progress thread waited at most for an application
# off the processor with the port's lock, how often it rescued the port (served it under
# SCHED_FIFO while the application was away), and the retransmissions.
os.environ["ROCESHARK_VERBS_DEBUG"] = "1"
VERBS_COUNTERS = re.compile(r"^roceshark: \S+: counters: (.*); held off by the application "
                            r"(\d+) times, ([0-9.]+) ms at most(?:; rescued (\d+) times)?", re.M)


def verbs_counters(*errs):
    """(longest hold-off in ms, rescues, retransmissions) over the sides' counters lines."""
    held, rescues, retx = 0.0, 0, 0
    for m in VERBS_COUNTERS.finditer("".join(errs)):
        got = dict(zip(*[iter(m.group(1).split())] * 2))
        held = max(held, float(m.group(3)))
        rescues += int(m.group(4) or 0)
        retx += int(got.get("retransmits", 0))
    return held, rescues, retx


# How a failed completion shows: perftest's "Failed status 12", perf's "completed with
# RETRY_EXC_ERR" (or another status); either way the program should also exit non-zero.
FAILED = re.compile(r"RETRY_EXC_ERR|Failed status|completed with")
SEND_LAT = str(opts.send_lat_iters)
PERF_ITERS = str(opts.perf_iters)
TESTS = (("ib_send_lat", lambda: perftest("ib_send_lat", ["-n", SEND_LAT]), SEND_LAT),
         ("ib_write_bw", lambda: perftest("ib_write_bw", ["-D", str(opts.write_bw_seconds)]),
          None),
         ("perf write_bw", lambda: perf(["-s", "1M", "-n", PERF_ITERS]), PERF_ITERS))


def nice_of(pid):
    """A process's nice level, the 19th field of /proc/PID/stat."""
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


results = {name: 0 for name, _, _ in TESTS}
retx = sent = 0
held_max, rescues_all, verbs_retx = 0.0, 0, 0
start = time.time()
with cpu_load.busy_cpus() as stress:
    time.sleep(1)
    # The RC programs inherit this process's nice level, as stress-ng does: said here, as
    # the load is only load if they compete on equal terms.
    print("lengths: ib_send_lat -n %s, ib_write_bw -D %d, perf write_bw -s 1M -n %s; "
          "nice: stress-ng %d, the RC programs %d"
          % (SEND_LAT, opts.write_bw_seconds, PERF_ITERS, nice_of(stress.pid), os.nice(0)),
          flush=True)
    for i in range(1, RUNS + 1):
        for name, go, want_iters in TESTS:
            s, c = go()
            row = table_row(c[1])
            failed = FAILED.search(s[1] + s[2] + c[1] + c[2])
            ok = (s[0] == 0 and c[0] == 0 and row is not None and
                  (want_iters is None or row[1] == want_iters) and failed is None)
            t.check(ok, "run %d, %s: client exit %s, server exit %s, row %s, %s: %s | %s"
                    % (i, name, c[0], s[0], row, failed.group(0) if failed else "no failed "
                       "completion", c[2][-300:], s[2][-300:]))
            results[name] += ok
            verbs = ""
            if name == "perf write_bw":
                r, n = counters(c[1])
                retx, sent = retx + r, sent + n
            else:
                held, rescues, vr = verbs_counters(s[2], c[2])
                held_max, rescues_all, verbs_retx = (max(held_max, held), rescues_all + rescues,
                                                     verbs_retx + vr)
                verbs = "  held off %.1f ms at most, rescued %d, retransmits %d" % (held,
                                                                                   rescues, vr)
            print("run %d/%d %-14s %s  row %s  (%.0f s)%s" % (i, RUNS, name,
                                                          "ok" if ok else "FAILED",
                                                          " ".join(row or []),
                                                          time.time() - start, verbs),
                  flush=True)
for name, n in results.items():
    print("%-14s %d of %d runs completed" % (name, n, RUNS))
print("perf write_bw retransmissions: %d of %d packets sent (%.0f per million)"
      % (retx, sent, 1e6 * retx / sent if sent else 0))
print("perftest through run: the progress thread held off %.1f ms at most by an application "
      "off the processor; %d rescues; %d retransmissions" % (held_max, rescues_all, verbs_retx))
t.finish("load")
