#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""libroceshark-verbs.so under Debian's own, unmodified verbs programs (ibverbs-utils and
perftest), through `roceshark run`, over two loopback addresses:
- ibv_devices lists the configured devices (none when none is configured, as libibverbs);
- ibv_devinfo shows each port ACTIVE, link layer Ethernet, MTU 4096, and a GID table laid
  out as rxe's: lo's link-local GID, then the address, IPv4-mapped, both RoCE v2;
- ibv_rc_pingpong server and client both through the library, with data validation (-c),
  and against `roceshark perf pingpong` either way;
- ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw, ib_write_lat and ib_send_lat, server
  and client both through the library, each ending with its results table;
- ib_write_bw (and read_bw, send_bw, and every latency test: send_lat, write_lat, read_lat,
  atomic_lat) through the library against `roceshark perf` as server, and `roceshark perf`
  as client against them through the library, so that perftest's own exchange, order and
  wire format are checked, not only ours against ours; latency tables say exactly -n;
- all of that captured with `roceshark capture -i lo`: every ICRC good, no analysis
  violation, no retransmission;
- ib_write_bw through the library against `roceshark perf --faults` dropping 1% of what it
  receives: it still finishes, and the capture shows the retransmissions;
- ibv_rc_pingpong and ib_write_bw over IPv6 devices, in a network namespace of its own.
Runs are short (a few MB each): CI has 20 minutes for everything."""
import os
import random
import re
import shutil
import subprocess
import time

import rstest as t
import verbsrun

PRELOAD = verbsrun.PRELOAD
TOOLS = ["ibv_devices", "ibv_devinfo", "ibv_rc_pingpong", "ib_write_bw", "ib_read_bw",
         "ib_send_bw", "ib_atomic_bw", "ib_write_lat", "ib_send_lat", "ib_read_lat",
         "ib_atomic_lat"]
missing = [x for x in TOOLS if shutil.which(x) is None]
if missing:
    # CI installs them (perftest, ibverbs-utils); a developer's machine may lack them.
    print("skipped: %s not installed (apt-get install perftest ibverbs-utils)" % missing)
    t.finish("verbs")

rng = random.SystemRandom()
NET = (127, rng.randrange(32, 250), rng.randrange(1, 250))
A, B = ("%d.%d.%d.%d" % (NET + (h,)) for h in rng.sample(range(2, 250), 2))


def env(cmd=(), **extra):
    """The environment of cmd: for a verbs program (`roceshark run`, or one given
    LD_PRELOAD), the sanitizers' runtimes come first, as an instrumented library in an
    uninstrumented program needs (`run` puts ours after what LD_PRELOAD holds), and the
    program's own leaks are not ours to report."""
    return verbsrun.env(list(cmd[1:2]) == ["run"] or "LD_PRELOAD" in extra, **extra)


def run_cmd(dev, ip, prog, *args):
    return [t.ROCESHARK, "run", "--dev", "%s=%s" % (dev, ip), "--", prog] + list(args)


def next_port():
    return t.free_port()


def pair(what, server, client, p, timeout=60):
    """Starts server, waits until it listens on p, runs client; returns both (rc, out, err)."""
    s, c = verbsrun.pair(server, client, lambda: t.listening(p), timeout, env(server),
                         env(client))
    t.check(c[0] == 0 and s[0] == 0, "%s: client exit %s, server exit %s: %s | %s"
            % (what, c[0], s[0], c[2][-500:], s[2][-500:]))
    return s, c


OUT = t.tempdir()


def start_capture(name):
    """`roceshark capture -i lo` of our two addresses' RoCE, once it captures."""
    path = os.path.join(OUT, name)
    cap = t.spawn([t.ROCESHARK, "capture", "-i", "lo", "-B", "64", "-w", path, "-f",
                   "udp port 4791 and host %s and host %s" % (A, B)],
                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = cap.stderr.readline()
    t.check(line.startswith("capture: lo"), "capture started: %r" % line)
    return cap, path


def stop_capture(cap, path, whole=True):
    """Stops the capture (which must have lost nothing when whole); its rows: source,
    ICRC status, violation, retransmission, time, PSN."""
    time.sleep(0.2)
    cap.terminate()
    _, err = cap.communicate(timeout=20)
    t.check(cap.returncode == 0 and (not whole or " 0 dropped by kernel" in err),
            "capture: %r" % err)
    return t.roceshark_fields(path, ["ip.src", "roceshark.icrc.status",
                                     "roceshark.analysis.violation",
                                     "roceshark.analysis.retransmission",
                                     "frame.time_relative", "infiniband.bth.psn"])


# --- the devices ---
cmd = run_cmd("rs0", A, "ibv_devices")
out = subprocess.run(cmd, capture_output=True, text=True, env=env(cmd))
t.check(out.returncode == 0 and re.search(r"^\s+rs0\s+[0-9a-f]{16}$", out.stdout, re.M),
        "ibv_devices lists rs0: %r %r" % (out.stdout, out.stderr))
both = "rs0=%s,rs1=%s" % (A, B)
out = subprocess.run(["ibv_devices"], capture_output=True, text=True,
                     env=env(ROCESHARK_VERBS_DEVICES=both,
                             LD_PRELOAD=":".join(x for x in (PRELOAD, os.path.join(
                                 os.environ["ROCESHARK_BUILD_DIR"], "libroceshark-verbs.so"))
                                 if x)))
names = re.findall(r"^\s+(rs\d)\s+[0-9a-f]{16}$", out.stdout, re.M)
t.check(out.returncode == 0 and names == ["rs0", "rs1"],
        "LD_PRELOAD ibv_devices lists rs0 and rs1: %r %r" % (out.stdout, out.stderr))
# No device configured: an empty list, as libibverbs gives on a host without RDMA.
out = subprocess.run(["ibv_devices"], capture_output=True, text=True,
                     env=env(ROCESHARK_VERBS_DEVICES="",
                             LD_PRELOAD=":".join(x for x in (PRELOAD, os.path.join(
                                 os.environ["ROCESHARK_BUILD_DIR"], "libroceshark-verbs.so"))
                                 if x)))
t.check(out.returncode == 0 and re.findall(r"^\s+\S+\s+[0-9a-f]{16}$", out.stdout, re.M) == [],
        "no device configured: %r %r" % (out.stdout, out.stderr))

cmd = run_cmd("rs1", B, "ibv_devinfo", "-v")
out = subprocess.run(cmd, capture_output=True, text=True, env=env(cmd))
info = out.stdout
t.check(out.returncode == 0 and "hca_id:\trs1" in info, "ibv_devinfo: %r" % out.stderr)
for want in (r"state:\s+PORT_ACTIVE \(4\)", r"link_layer:\s+Ethernet",
             r"active_mtu:\s+4096 \(5\)", r"phys_port_cnt:\s+1",
             r"GID\[\s*1\]:\s+::ffff:%s, RoCE v2" % re.escape(B)):
    t.check(re.search(want, info) is not None, "ibv_devinfo -v shows %s: %s" % (want, info[-900:]))

# --- ibv_rc_pingpong ---
PP_LINES = [r"^\d+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$",
            r"^(\d+) iters in [0-9.]+ seconds = [0-9.]+ usec/iter$"]


def check_pingpong(what, out, iters):
    for rx in PP_LINES:
        m = re.search(rx, out, re.M)
        t.check(m is not None, "%s: %s in %r" % (what, rx, out[-400:]))
    m = re.search(PP_LINES[1], out, re.M)
    if m:
        t.check(int(m.group(1)) == iters, "%s: %s iterations" % (what, m.group(1)))


def pingpong_pair(what, *extra):
    """ibv_rc_pingpong server and client, both through the library, 200 iterations."""
    p = next_port()
    args = ["-g", "1", "-p", str(p), "-n", "200"] + list(extra)
    s, c = pair(what, run_cmd("rs0", A, "ibv_rc_pingpong", "-d", "rs0", *args),
                run_cmd("rs1", B, "ibv_rc_pingpong", "-d", "rs1", *args + [A]), p)
    for side, r in (("server", s), ("client", c)):
        check_pingpong("%s %s" % (what, side), r[1], 200)
        t.check("remote address: LID 0x0000" in r[1] and "GID ::ffff:" in r[1],
                "%s %s: the addresses: %r" % (what, side, r[1][:300]))


# With data validation (-c); then with completion channels: both sides sleep in
# ibv_get_cq_event() (-e).
pingpong_pair("ibv_rc_pingpong -c", "-c")
pingpong_pair("ibv_rc_pingpong -e", "-e")

# ROCESHARK_VERBS_DEBUG: as each side's device closes, its transport's counters. 200
# messages of 4096 bytes each way at ibv_rc_pingpong's MTU of 1024: 200 SENDs executed
# and acknowledged (a duplicate is acknowledged again), 800 request packets and those
# retransmitted.
p = next_port()
args = ["-g", "1", "-p", str(p), "-n", "200"]
srv, cli = (run_cmd("rs0", A, "ibv_rc_pingpong", "-d", "rs0", *args),
            run_cmd("rs1", B, "ibv_rc_pingpong", "-d", "rs1", *args + [A]))
s, c = verbsrun.pair(srv, cli, lambda: t.listening(p), 60, env(srv, ROCESHARK_VERBS_DEBUG="1"),
                     env(cli, ROCESHARK_VERBS_DEBUG="1", ROCESHARK_VERBS_PRIORITY="normal"))
# The progress thread rescues the port under SCHED_FIFO where this process may give it
# that (root here); the client's, with ROCESHARK_VERBS_PRIORITY=normal, at its priority.
may_fifo = subprocess.run(["chrt", "-f", "1", "true"], capture_output=True).returncode == 0
for side, dev, r in (("server", "rs0", s), ("client", "rs1", c)):
    m = re.search(r"^roceshark: %s: counters: (.*); held off by the application (\d+) times, "
                  r"([0-9.]+) ms at most; rescued (\d+) times \((\S+)\)$" % dev, r[2], re.M)
    want = "SCHED_FIFO" if may_fifo and side == "server" else "normal"
    t.check(m is not None and m.group(5) == want,
            "ROCESHARK_VERBS_DEBUG: the %s's progress thread rescues under %s (chrt -f 1: "
            "%s): %r" % (side, m and m.group(5), may_fifo, r[2][-300:]))
    got = dict(zip(*[iter(m.group(1).split())] * 2)) if m else {}
    retx = int(got.get("retransmits", 0))
    t.check(r[0] == 0 and m is not None and got.get("exec_send") == "200" and
            int(got.get("ack_sent", 0)) >= 200 and int(got.get("req_packets", 0)) == 800 + retx,
            "ROCESHARK_VERBS_DEBUG: the %s's counters as its device closes: %r"
            % (side, r[2][-600:]))

p = next_port()
s, c = pair("ibv_rc_pingpong against perf pingpong",
            [t.ROCESHARK, "perf", "pingpong", "--bind", A, "-p", str(p), "-n", "200"],
            run_cmd("rs1", B, "ibv_rc_pingpong", "-d", "rs1", "-g", "1", "-p", str(p), "-n", "200",
                    A), p)
check_pingpong("ibv_rc_pingpong client of perf", c[1], 200)
check_pingpong("perf pingpong server of ibv_rc_pingpong", s[1], 200)
p = next_port()
s, c = pair("perf pingpong against ibv_rc_pingpong",
            run_cmd("rs0", A, "ibv_rc_pingpong", "-d", "rs0", "-g", "1", "-p", str(p), "-n", "200"),
            [t.ROCESHARK, "perf", "pingpong", "--bind", B, "-n", "200", "--connect",
             "pingpong://%s:%d" % (A, p)], p)
check_pingpong("ibv_rc_pingpong server of perf", s[1], 200)
check_pingpong("perf pingpong client of ibv_rc_pingpong", c[1], 200)

# --- perftest ---
HEADER = re.compile(r"^ #bytes\s+#iterations", re.M)


def result_row(what, out, size, iters):
    """The row under the results table's header: its size and iterations."""
    lines = out.splitlines()
    heads = [i for i, x in enumerate(lines) if HEADER.match(x)]
    if not t.check(len(heads) == 1 and heads[0] + 1 < len(lines),
                   "%s: one results table: %r" % (what, out[-600:])):
        return None
    row = lines[heads[0] + 1].split()
    t.check(len(row) >= 5 and row[0] == str(size) and row[1] == str(iters),
            "%s: a row for %d bytes, %d iterations: %r" % (what, size, iters, row))
    return row


def perftest(tool, size, iters, server_cmd=None, client_cmd=None, extra=()):
    p = next_port()
    args = ["-s", str(size), "-n", str(iters), "-p", str(p)] + list(extra)
    server = server_cmd(p) if server_cmd else run_cmd("rs0", A, tool, "-d", "rs0", *args)
    client = client_cmd(p) if client_cmd else run_cmd("rs1", B, tool, "-d", "rs1", *args + [A])
    what = "%s%s%s%s" % (tool, " (perf server)" if server_cmd else "",
                         " (perf client)" if client_cmd else "", " ".join([""] + list(extra)))
    s, c = pair(what, server, client, p)
    row = result_row(what + " client", c[1], size, iters)
    if tool.endswith("_bw") and row is not None:
        print("%s: %s MB/s average" % (what, row[3]))
    if tool.endswith("_lat") and row is not None:
        # Informational: how fast is bench_verbs.py's to judge (ib_write_lat's spinning
        # sides against the progress thread's standby included), not a time window here.
        print("%s: %s usec typical" % (what, row[4]))
    return s, c


def check_clean(what, rows):
    """One run's capture (one QP each way: the analysis sees one conversation): both
    directions, every ICRC good, no violation, no retransmission."""
    by_src = {}
    for r in rows:
        by_src[r[0]] = by_src.get(r[0], 0) + 1
    t.check(by_src.get(B, 0) >= 1600 and by_src.get(A, 0) > 0,
            "%s: the client's 1600 WRITE packets and the server's ACKs: %s" % (what, by_src))
    bad = [r for r in rows if r[1] != "1"]
    t.check(not bad, "%s: every ICRC good: %d of %d frames not: %s"
            % (what, len(bad), len(rows), bad[:3]))
    viol = [r for r in rows if len(r) > 2 and r[2] != ""]
    t.check(not viol, "%s: no analysis violation: %d frames: %s" % (what, len(viol), viol[:3]))
    # Nothing is lost on loopback, so nothing is resent for a loss (no NAK, no resend within
    # the ACK timeout). A machine loaded enough to deschedule the responder for the whole
    # timeout (-u 18: 1.07 s) makes the requester resend, as it must: such a resend comes at
    # least that long after the packet it repeats (a lower bound, which load cannot break).
    first = {}
    for r in rows:
        if len(r) > 5 and r[5] != "":
            first.setdefault((r[0], r[5]), float(r[4]))
    retx = [r for r in rows if len(r) > 5 and r[3] != "" and r[5] != ""]
    early = [r for r in retx if float(r[4]) - first[(r[0], r[5])] < 1.0]
    t.check(not early, "%s: no resend for a loss on a lossless loopback (%d resends, %d sooner "
            "than the ACK timeout): %s" % (what, len(retx), len(early), early[:3]))
    if retx:
        print("%s: %d resends after the ACK timeout (a loaded machine)" % (what, len(retx)))


# Captured: the library against itself, and against perf as its server, as perftest's
# traffic on the wire, checked by our decoder and analysis.
for what, server_cmd in (("ib_write_bw", None), ("ib_write_bw (perf server)", lambda p: [
        t.ROCESHARK, "perf", "write_bw", "--bind", A, "-p", str(p), "-s", "65536", "-n", "100"])):
    cap, cap_path = start_capture("verbs.pcap")
    # -u 18: the requester waits 1.07 s for an ACK, not perftest's 67 ms, so that "no
    # retransmission" is about the transport, not about how loaded the machine is.
    perftest("ib_write_bw", 65536, 100, server_cmd=server_cmd, extra=["-u", "18"])
    check_clean("captured " + what, stop_capture(cap, cap_path))

for tool, size, iters in (("ib_read_bw", 65536, 100),
                          ("ib_send_bw", 65536, 100), ("ib_atomic_bw", 8, 1000),
                          ("ib_write_lat", 2, 1000), ("ib_send_lat", 2, 1000)):
    s, c = perftest(tool, size, iters)
    if tool in ("ib_write_bw", "ib_read_bw", "ib_atomic_bw"):
        # perftest's server prints the client's report.
        result_row(tool + " server", s[1], size, iters)

# Completion channels under perftest: events (-e) on both sides.
perftest("ib_send_bw", 65536, 100, extra=["-e"])
# Its latency test takes the event after a SEND to be the send's completion: the peer's
# ACK must come before the peer's reply, as a NIC sends it.
perftest("ib_send_lat", 2, 1000, extra=["-e"])

# Mixed pairs: perftest through the library against roceshark perf, both ways. Every
# latency test follows perftest's order (write_lat: the server writes first; send_lat: the
# client sends first; read_lat and atomic_lat: the client alone), and each side that prints
# a table says exactly -n iterations (perftest's server prints none for read and atomic).
for test, size, iters in (("write_bw", 65536, 100), ("read_bw", 65536, 100),
                          ("send_bw", 65536, 100), ("send_lat", 2, 1000),
                          ("write_lat", 2, 200), ("read_lat", 2, 200),
                          ("atomic_lat", 8, 200)):
    tool = "ib_" + test
    args = ["-s", str(size), "-n", str(iters)]
    for server_cmd, client_cmd in (
            (lambda p, test=test, args=args: [t.ROCESHARK, "perf", test, "--bind", A, "-p",
                                              str(p)] + args, None),
            (None, lambda p, test=test, args=args: [
                t.ROCESHARK, "perf", test, "--bind", B, "--connect",
                "perftest://%s:%d" % (A, p)] + args)):
        s, c = perftest(tool, size, iters, server_cmd=server_cmd, client_cmd=client_cmd)
        if test in ("write_lat", "send_lat"):
            result_row("%s server (%s)" % (tool, "perf" if server_cmd else "perftest"), s[1],
                       size, iters)


# 1% of what perf's server receives dropped: our requester goes back and finishes.
cap, cap_path = start_capture("verbs-loss.pcap")
rules = os.path.join(OUT, "loss.rules")
with open(rules, "w") as f:
    f.write("seed 7\ndrop prob 0.01 dir rx\n")
s, c = perftest("ib_write_bw", 65536, 100, server_cmd=lambda p: [
    t.ROCESHARK, "perf", "write_bw", "--bind", A, "-p", str(p), "-s", "65536", "-n", "100",
    "--faults", rules])
t.check(re.search(r"^faults:\s+\d+\s+[1-9]\d*\s+drop ", s[2], re.M) is not None,
        "the fault engine dropped: %r" % s[2])
# Go-back-N after each loss floods lo: the capture may lose some of the retransmissions.
rows = stop_capture(cap, cap_path, whole=False)
retx = [r for r in rows if len(r) > 3 and r[3] != ""]
t.check(len(retx) > 0, "retransmissions in the analysis after 1%% loss (%d frames)" % len(rows))
t.check(all(r[1] == "1" for r in rows), "every ICRC good under loss")

# IPv6 devices (RoCEv2 GIDs that are not IPv4-mapped), in a network namespace of the test's
# own, whose loopback gets two addresses: ibv_rc_pingpong and ib_write_bw across them.
V6 = r"""
set -e
ip link set lo up
ip -6 addr add fd00::2/128 dev lo nodad
ip -6 addr add fd00::3/128 dev lo nodad
R="$1"
s=
# A server left by a failed step (set -e) is ended with the script.
trap '[ -z "$s" ] || kill $s 2>/dev/null || :' EXIT
# Until the server listens on its TCP port 18515 (0x4853), or has ended.
listening() {
    i=0
    until awk '$2 ~ /:4853$/ && $4 == "0A" {f = 1} END {exit !f}' /proc/net/tcp /proc/net/tcp6
    do
        kill -0 $s 2>/dev/null || return 0
        i=$((i + 1))
        [ $i -lt 1000 ] || return 0
        sleep 0.01
    done
}
"$R" run --dev rs0=fd00::2 -- timeout 30 ibv_rc_pingpong -d rs0 -g 1 -n 100 > "$2/pp_s" 2>&1 &
s=$!
listening
"$R" run --dev rs1=fd00::3 -- timeout 30 ibv_rc_pingpong -d rs1 -g 1 -n 100 localhost \
    > "$2/pp_c" 2>&1
wait $s
"$R" run --dev rs0=fd00::2 -- timeout 30 ib_write_bw -d rs0 -x 1 -n 100 > "$2/bw_s" 2>&1 &
s=$!
listening
"$R" run --dev rs1=fd00::3 -- timeout 30 ib_write_bw -d rs1 -x 1 -n 100 localhost > "$2/bw_c" 2>&1
wait $s
"""
p6 = subprocess.run(["unshare", "-n", "sh", "-c", V6, "sh", t.ROCESHARK, OUT],
                    capture_output=True, text=True, env=env(["", "run"]), timeout=120)
outs = {}
for name in ("pp_s", "pp_c", "bw_s", "bw_c"):
    try:
        outs[name] = open(os.path.join(OUT, name)).read()
    except OSError:
        outs[name] = ""
if t.check(p6.returncode == 0, "IPv6: exit %d: %s %s" % (p6.returncode, p6.stderr[-300:],
                                                        {k: v[-200:] for k, v in outs.items()})):
    check_pingpong("IPv6 ibv_rc_pingpong server", outs["pp_s"], 100)
    check_pingpong("IPv6 ibv_rc_pingpong client", outs["pp_c"], 100)
    t.check("GID fd00::2" in outs["pp_c"], "IPv6: the server's GID: %r" % outs["pp_c"][:300])
    result_row("IPv6 ib_write_bw client", outs["bw_c"], 65536, 100)

t.finish("verbs")
