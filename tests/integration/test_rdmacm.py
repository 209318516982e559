#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""librdmacm's programs, unmodified, over libroceshark-verbs' RDMA CM (`roceshark run`):
Debian's librdmacm runs on top, and the CM exchange is CM MADs on QP 1. Each program runs
as server and client, in network namespaces the test makes. By default a lean set: on
loopback each rdmacm-utils program and ib_write_bw -R, on the veth pair rping, udaddy,
ucmatose and rdma_server/rdma_client. With --full (the `long` label, which scripts/test.sh skips) every
perftest test with -R and qperf -cm1 too, and the whole set on the veth pair:
- on loopback (default): two addresses of lo in a namespace of its own; also over IPv6
  (the server on ::1) and librdmacm's API call by call (cm_api: events, private data,
  REJECTED, UNREACHABLE, ADDR_ERROR, TIMEWAIT_EXIT, rdma_migrate_id, the backlog,
  rdma_create_ep and the rdma_post_* helpers); one rping run is captured: every CM MAD
  decodes in tshark without a malformed item, and `read -z expert` has nothing to say;
- across a veth pair at MTU 1500 between two namespaces (--veth), and there an address
  resolution that ARP leaves unanswered: ADDR_ERROR, -ETIMEDOUT, after the program's timeout.
The programs: cm_xfer (the tutorial's CM client/server: a WRITE, a READ back, the two
buffers compared), rping -v -V (which checks each ping's data), ucmatose, udaddy (UD, its
QP found with SIDR; its MADs captured on loopback), rdma_server and
rdma_client, rstream and riostream (rsockets, -T v checking the data), cmtime, every perftest test with -R, qperf -cm1, and rping against our own
rping client (perf rping) and server (responder --cm). Short runs: a few seconds per
program."""
import os
import random
import re
import shutil
import subprocess
import sys

import livenet
import rstest as t

VETH = "--veth" in sys.argv
FULL = "--full" in sys.argv
# rping's teardown, again and again (label long): its event thread reads again as its main
# thread closes the channel, which must neither fail (EBADF, EINVAL) nor hang.
LOOP = "--rping-loop" in sys.argv
NAME = ("rdmacm_veth" if VETH else "rdmacm") + ("_full" if FULL else "") + \
    ("_rping_loop" if LOOP else "")
PRELOAD = os.environ.get("ROCESHARK_SANITIZER_PRELOAD", "")
CM_API = os.environ.get("CM_API", "")
CM_XFER = os.environ.get("CM_XFER", "")
PERFTEST = ["ib_write_bw", "ib_read_bw", "ib_send_bw", "ib_atomic_bw", "ib_write_lat",
            "ib_read_lat", "ib_send_lat", "ib_atomic_lat"]
TOOLS = ["rping", "ucmatose", "udaddy", "rdma_server", "rdma_client", "cmtime", "mckey", "qperf", "rstream",
         "riostream"] + PERFTEST
missing = [x for x in TOOLS if shutil.which(x) is None]
if missing:
    # CI installs them (scripts/deps.sh); a developer's machine may lack them.
    print("skipped: %s not installed (apt-get install rdmacm-utils perftest qperf)" % missing)
    t.finish(NAME)
livenet.need_root()

OUT = t.tempdir()


class Net:
    """Where the servers and the clients live, and their addresses: server i on s_ip(i),
    client i on c_ip(i). Loopback: one namespace, 127.N.N.x on lo. Veth: the clients in
    namespace A, the servers in B, 10.89.0.x/24 on a pair at MTU 1500."""

    def __init__(self):
        self.pair = None
        if VETH:
            self.pair = livenet.VethPair("rcm", mtu=1500)
            self.c_ns, self.s_ns = self.pair.ns_a, self.pair.ns_b
            self.fmt = "10.89.0.%d"
            for i in range(8):
                livenet.VethPair._ip("-n", self.s_ns, "addr", "add", self.s_ip(i) + "/24",
                                     "dev", self.pair.if_b)
                livenet.VethPair._ip("-n", self.c_ns, "addr", "add", self.c_ip(i) + "/24",
                                     "dev", self.pair.if_a)
        else:
            self.pair = livenet.Namespace("rcm")
            self.c_ns = self.s_ns = self.pair.ns
            rng = random.SystemRandom()
            self.fmt = "127.%d.%d.%%d" % (rng.randrange(32, 250), rng.randrange(1, 250))

    def s_ip(self, i):
        return self.fmt % (10 + i)

    def c_ip(self, i):
        return self.fmt % (30 + i)


NET = Net()


def env():
    """A program under `run` (or given LD_PRELOAD): the sanitizers' runtimes come first,
    and the program's own leaks are not ours to report."""
    e = dict(os.environ)
    e.pop("ROCESHARK_VERBS_DEVICES", None)
    if PRELOAD:
        e["LD_PRELOAD"] = PRELOAD
        e["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0"
    return e


def in_ns(ns, argv):
    return ["ip", "netns", "exec", ns] + list(argv)


def under_run(ns, ip, argv, dev="rs0"):
    return in_ns(ns, [t.ROCESHARK, "run", "--dev", "%s=%s" % (dev, ip), "--"] + list(argv))


def sockets(ns, proto):
    """The local (address, port) of ns's sockets of proto (udp or tcp): from its /proc."""
    out = []
    for name in (proto, proto + "6"):
        p = subprocess.run(in_ns(ns, ["cat", "/proc/net/" + name]), capture_output=True,
                           text=True)
        for row in p.stdout.splitlines()[1:]:
            f = row.split()
            hexaddr, hexport = f[1].split(":")
            raw = bytes.fromhex(hexaddr)
            # Each 32-bit word is in the host's order (little-endian here).
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            if len(raw) == 4:
                addr = ".".join(str(b) for b in raw)
            else:
                import ipaddress
                addr = str(ipaddress.IPv6Address(raw))
            if proto == "tcp" and f[3] != "0A":
                continue    # listening ones only
            out.append((addr, int(hexport, 16)))
    return out


def wait_for(what, cond, proc, timeout=20):
    """Polls cond until true; False (with a failure) if proc ends first or timeout runs out."""
    import time
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    out, err = proc.communicate() if proc.poll() is not None else ("", "")
    t.check(False, "%s: the server never got ready (rc %s): %s %s"
            % (what, proc.poll(), out[-300:], err[-300:]))
    return False


# A REQ that came before the server listened: REJECTED, reason 8 (invalid service ID), as
# over rxe. A server's RoCEv2 port opens with its first PD, which may come before its
# rdma_listen(): such a client runs again.
TOO_EARLY = re.compile(r"REJECTED[,;] error:? 8\b")


# rping before rdma-core 59 (Debian 12 has 44) has a race of its own in its teardown
# (rdma-core f3ae6534 fixed it): its event thread, having acked DISCONNECTED, reads the
# event channel again, and when its main thread has destroyed and freed the channel by
# then, the read goes to a descriptor that is no more: "rdma_get_cm_event: Bad file
# descriptor", exit 255, every ping done. The kernel's rdma_cm gives the same. Under
# ROCESHARK_VERBS_DEBUG=1 the library says when a GET_EVENT reaches no channel at all,
# which only the program's own use of a closed channel does (a read of ours failing on a
# channel the program still holds says "rdma_cm: command ...", and one under way as the
# channel closes waits): only that side, so marked, is tolerated.
RPING_RACE = re.compile(r"^roceshark: rdma_cm: GET_EVENT on descriptor -?\d+, which is no "
                        r"event channel", re.M)


def rping_race(side):
    """Whether side (rc, out, err) ended in rping's own teardown race, as marked above."""
    rc, _, err = side
    lines = err.strip().splitlines()
    return (rc == 255 and lines[-1:] == ["rdma_get_cm_event: Bad file descriptor"] and
            RPING_RACE.search(err) is not None)


def pair(what, server, client, ready, persist=False, timeout=60, tolerate=None):
    """Starts server (argv), waits until ready() (its RoCEv2 port bound, say), runs client
    (again while it came too early); stops a server that serves for ever (persist).
    tolerate(side): a failure of a side that is not ours (rping_race). Returns both
    (rc, out, err)."""
    import time
    start = time.time()
    try:
        return _pair(what, server, client, ready, persist, timeout, tolerate)
    finally:
        print("%s: %.1f s" % (what, time.time() - start))


def _ok(what, side, tolerate):
    if side[0] == 0:
        return True
    if tolerate is not None and tolerate(side):
        print("%s: rping's own teardown race (rdma-core f3ae6534), tolerated: %r"
              % (what, side[2][-200:]))
        return True
    return False


def _pair(what, server, client, ready, persist, timeout, tolerate):
    import time
    e = env()
    if tolerate is not None:
        e["ROCESHARK_VERBS_DEBUG"] = "1"
    srv = t.spawn(server, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                  env=e)
    if not wait_for(what, ready, srv):
        return (srv.returncode, "", ""), (-1, "", "")
    for attempt in range(5):
        try:
            cli = subprocess.run(client, capture_output=True, text=True, timeout=timeout,
                                 env=e)
            c = (cli.returncode, cli.stdout, cli.stderr)
        except subprocess.TimeoutExpired as e:
            c = (-1, e.stdout or "", "timed out")
        if c[0] == 0 or not TOO_EARLY.search(c[1] + c[2]) or srv.poll() is not None:
            break
        time.sleep(0.1)
    if persist:
        srv.terminate()
    try:
        s_out, s_err = srv.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        srv.kill()
        s_out, s_err = srv.communicate()
    s = (srv.returncode, s_out, s_err)
    t.check(_ok(what, c, tolerate) and (persist or _ok(what, s, tolerate)),
            "%s: client exit %s, server exit %s: %s | %s"
            % (what, c[0], s[0], (c[1] + c[2])[-400:], (s[1] + s[2])[-400:]))
    return s, c


def roce_bound(ip):
    return lambda: (ip, 4791) in sockets(NET.s_ns, "udp")


def tcp_listening(port):
    return lambda: any(p == port for _, p in sockets(NET.s_ns, "tcp"))


def server_cmd(i, argv, dev_ip=None):
    return under_run(NET.s_ns, dev_ip or NET.s_ip(i), argv)


def client_cmd(i, argv, dev_ip=None):
    return under_run(NET.c_ns, dev_ip or NET.c_ip(i), argv, dev="rs1")


# --- rping, as the tutorials run it: -v prints each ping, -V checks its data ---
PING = re.compile(r"^(server )?ping data: rdma-ping-(\d+): (.*)$", re.M)


def check_rping(what, s, c, count):
    """Both sides printed count pings, numbered in order, the same data."""
    sp = PING.findall(s[1])
    cp = PING.findall(c[1])
    t.check([int(x[1]) for x in cp] == list(range(count)),
            "%s: the client's %d pings in order: %d seen" % (what, count, len(cp)))
    t.check([x[2] for x in sp] == [x[2] for x in cp],
            "%s: the server READ what the client sent, ping for ping" % what)
    t.check("data mismatch" not in s[1] + s[2] + c[1] + c[2],
            "%s: rping -V found no mismatch" % what)


def rping(what, count, s_dev, c_dev, server_addr):
    s, c = pair(what,
                under_run(NET.s_ns, s_dev, ["rping", "-s", "-a", server_addr, "-v", "-V",
                                            "-C", str(count)]),
                under_run(NET.c_ns, c_dev, ["rping", "-c", "-a", server_addr, "-v", "-V",
                                            "-C", str(count)], dev="rs1"),
                roce_bound(server_addr), tolerate=rping_race)
    check_rping(what, s, c, count)


def capture_start(path):
    cap = t.spawn(in_ns(NET.s_ns, [t.ROCESHARK, "capture", "-i", "lo", "-w", path,
                                   "-f", "udp port 4791"]),
                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = cap.stderr.readline()
    t.check(line.startswith("capture: lo"), "capture started: %r" % line)
    return cap


def capture_stop(cap):
    import time
    time.sleep(0.2)
    cap.terminate()
    _, err = cap.communicate(timeout=20)
    t.check(cap.returncode == 0 and " 0 dropped by kernel" in err, "capture: %r" % err)


if LOOP:
    for i in range(20):
        rping("rping -C 10, run %d of 20" % (i + 1), 10, NET.s_ip(0), NET.c_ip(0), NET.s_ip(0))
    t.finish(NAME)

if VETH:
    rping("rping -C 100 over veth", 100, NET.s_ip(0), NET.c_ip(0), NET.s_ip(0))
    # An address of the link that nobody holds: ARP goes unanswered, and the address
    # resolution gives up after rping's 2000 ms as the kernel's does (ADDR_ERROR,
    # -ETIMEDOUT), before any REQ is sent.
    import time
    start = time.time()
    p = subprocess.run(under_run(NET.c_ns, NET.c_ip(0), ["rping", "-c", "-a", NET.fmt % 99,
                                                         "-C", "1"], dev="rs1"),
                       capture_output=True, text=True, timeout=60, env=env())
    print("rping to an address nobody holds: %.1f s" % (time.time() - start))
    t.check(p.returncode != 0 and
            "cma event RDMA_CM_EVENT_ADDR_ERROR, error -110" in p.stdout + p.stderr,
            "rping to an address ARP finds nobody at: ADDR_ERROR, -ETIMEDOUT: rc %d, %r"
            % (p.returncode, (p.stdout + p.stderr)[-300:]))
else:
    # Captured: the CM MADs of a real librdmacm pair, as tshark 4.0 decodes them.
    path = os.path.join(OUT, "rping.pcap")
    cap = capture_start(path)
    rping("rping -C 100", 100, NET.s_ip(0), NET.c_ip(0), NET.s_ip(0))
    capture_stop(cap)
    rows = t.tshark_fields(path, ["infiniband.mad.attributeid", "_ws.malformed",
                                  "_ws.expert.severity"], "-Y infiniband.mad")
    kinds = [r[0] for r in rows]
    t.check(kinds[:3] == ["0x0010", "0x0013", "0x0014"] and "0x0015" in kinds and
            "0x0016" in kinds, "the capture: REQ, REP, RTU, then DREQ and DREP: %s" % kinds)
    bad = [r for r in rows if len(r) > 1 and (r[1] != "" or (len(r) > 2 and r[2] != ""))]
    t.check(not bad, "tshark: no CM MAD malformed or flagged: %s" % bad[:3])
    expert = t.run([t.ROCESHARK, "read", "-r", path, "-q", "-z", "expert"])
    t.check(expert.stdout.strip() == "", "read -z expert: nothing: %r" % expert.stdout[:400])
    # IPv6, in a namespace of its own: the server on ::1, the client on another address of
    # lo. (Its only other address being IPv6, getaddrinfo() would give IPv4 ones mapped.)
    v4 = NET.s_ns
    # A tag with no digit after "rcm": the stale-namespace sweep of "rcm6" took the first
    # namespace, "rcm" and a pid starting with 6, for its own.
    NET.v6 = livenet.Namespace("rcmv")
    NET.s_ns = NET.c_ns = NET.v6.ns
    livenet.VethPair._ip("-n", NET.s_ns, "addr", "add", "fd00::3/128", "dev", "lo", "nodad")
    rping("rping over ::1", 10, "::1", "fd00::3", "::1")
    s, c = pair("rdma_server/rdma_client over ::1",
                under_run(NET.s_ns, "::1", ["rdma_server", "-s", "::1"]),
                under_run(NET.c_ns, "fd00::3", ["rdma_client", "-s", "::1"], dev="rs1"),
                roce_bound("::1"))
    t.check("rdma_client: end 0" in c[1] and "rdma_server: end 0" in s[1],
            "rdma_server/rdma_client over ::1: %r %r" % (c[1], s[1]))
    NET.s_ns = NET.c_ns = v4

# --- the tutorial's last step: a CM client/server of our own (tests/rdmacm/cm_xfer.c) ---
s, c = pair("cm_xfer", server_cmd(0, [CM_XFER, "server", NET.s_ip(0), "7471"]),
            client_cmd(0, [CM_XFER, "client", NET.s_ip(0), "7471"]), roce_bound(NET.s_ip(0)))
t.check("SUCCESS, source and destination buffers match" in c[1] and
        '"done"; 0 of 65536 bytes differ' in s[1],
        "cm_xfer: the client WRITEs, READs back and compares; the server's buffer holds it: "
        "%r %r" % (c[1] + c[2], s[1] + s[2]))

# --- the rdmacm-utils ---
if not VETH:
    # mckey: multicast is not served; one line of ours says why, whatever mckey then says.
    p = subprocess.run(server_cmd(0, ["mckey", "-m", "239.1.2.3", "-b", NET.s_ip(0)]),
                       capture_output=True, text=True, timeout=60, env=env())
    ours = [x for x in p.stderr.splitlines() if x.startswith("roceshark: ")]
    t.check(p.returncode != 0 and ours == ["roceshark: rdma_cm: multicast is not supported: "
                                           "the ports' UDP sockets join no IP multicast group"],
            "mckey: fails, with one line that says why: rc %d, %r" % (p.returncode, p.stderr))

# udaddy: UD QPs resolved with SIDR (a SIDR_REQ, its SIDR_REP with the server's QPN and
# Q_Key), then UD SENDs each way through address handles. Captured on loopback: tshark
# decodes both MADs with no malformed item, and `read -z expert` has nothing to say.
if not VETH:
    path = os.path.join(OUT, "udaddy.pcap")
    cap = capture_start(path)
s, c = pair("udaddy", server_cmd(0, ["udaddy", "-b", NET.s_ip(0)]),
            client_cmd(0, ["udaddy", "-s", NET.s_ip(0), "-b", NET.c_ip(0)]),
            roce_bound(NET.s_ip(0)))
t.check("data transfers complete" in s[1] and "return status 0" in s[1] and
        "data transfers complete" in c[1] and "return status 0" in c[1],
        "udaddy: resolved, and messages each way: %r %r" % (s[1][-200:], c[1][-200:]))
if not VETH:
    capture_stop(cap)
    rows = t.tshark_fields(path, ["infiniband.mad.attributeid", "_ws.malformed",
                                  "_ws.expert.severity"], "-Y infiniband.mad")
    t.check([r[0] for r in rows] == ["0x0017", "0x0018"],
            "udaddy's capture: one SIDR_REQ, one SIDR_REP: %s" % rows)
    bad = [r for r in rows if len(r) > 1 and (r[1] != "" or (len(r) > 2 and r[2] != ""))]
    t.check(not bad, "tshark: no SIDR MAD malformed or flagged: %s" % bad)
    sends = t.tshark_fields(path, ["infiniband.bth.opcode"], "-Y \"infiniband && !infiniband.mad\"")
    t.check(len(sends) == 20 and all(r[0] == "101" for r in sends),
            "udaddy's capture: 10 UD SENDs with immediate each way: %s" % sends[:3])
    expert = t.run([t.ROCESHARK, "read", "-r", path, "-q", "-z", "expert"])
    t.check(expert.stdout.strip() == "", "udaddy: read -z expert: nothing: %r"
            % expert.stdout[:400])

s, c = pair("ucmatose", server_cmd(0, ["ucmatose", "-b", NET.s_ip(0), "-c", "4", "-C", "20"]),
            client_cmd(0, ["ucmatose", "-s", NET.s_ip(0), "-c", "4", "-C", "20"]),
            roce_bound(NET.s_ip(0)))
t.check("return status 0" in s[1] and "return status 0" in c[1] and
        "data transfers complete" in c[1],
        "ucmatose: 4 connections, 20 messages each way: %r %r" % (s[1][-200:], c[1][-200:]))

s, c = pair("rdma_server/rdma_client", server_cmd(0, ["rdma_server", "-s", NET.s_ip(0)]),
            client_cmd(0, ["rdma_client", "-s", NET.s_ip(0)]), roce_bound(NET.s_ip(0)))
t.check("rdma_client: end 0" in c[1] and "rdma_server: end 0" in s[1],
        "rdma_server/rdma_client: %r %r" % (c[1], s[1]))

# Lean on the veth pair: rping (above), udaddy, ucmatose and rdma_server/rdma_client cross it.
LEAN_VETH = VETH and not FULL

# --- rsockets: rstream and riostream, each byte checked (-T v), 100 transfers of 4 KiB ---
RSOCKETS_RUN = re.compile(r"^custom\s+4k\s+100\s+1\s+800k\s", re.M)
if not LEAN_VETH:
    for tool in ("rstream", "riostream"):
        args = ["-S", "4096", "-C", "100", "-T", "v"]
        s, c = pair(tool, server_cmd(0, [tool, "-b", NET.s_ip(0)] + args),
                    client_cmd(0, [tool, "-s", NET.s_ip(0)] + args), roce_bound(NET.s_ip(0)))
        t.check(RSOCKETS_RUN.search(c[1]) is not None and RSOCKETS_RUN.search(s[1]) is not None,
                "%s: 100 transfers of 4 KiB verified, both sides: %r %r"
                % (tool, (c[1] + c[2])[-300:], (s[1] + s[2])[-300:]))
if not LEAN_VETH:
    s, c = pair("cmtime", server_cmd(0, ["cmtime", "-b", NET.s_ip(0)]),
                client_cmd(0, ["cmtime", "-s", NET.s_ip(0), "-c", "20"]),
                roce_bound(NET.s_ip(0)), persist=True)
    steps = dict(re.findall(r"^(\w[\w ]*\w)\s*:\s+([0-9.]+)", c[1], re.M))
    # 20 REQs at once from one address: each listener's backlog bounds them, as Linux's
    # CM does, not a bound per source (no REJECTED, reason 3).
    t.check(all(k in steps for k in ("connect", "disconnect", "destroy")) and
            "RDMA_CM_EVENT_REJECTED" not in c[1] + c[2],
            "cmtime: 20 connections made and ended, step by step: %s %r"
            % (steps, re.findall(r"^event: .*$", c[1] + c[2], re.M)[:3]))
    if "connect" in steps:
        print("cmtime: 20 connections in %s ms" % steps["connect"])

# --- rping against our own rping client and server ---
if not LEAN_VETH:
    s, c = pair("rping -s against perf rping",
                server_cmd(0, ["rping", "-s", "-a", NET.s_ip(0), "-v", "-V", "-C", "10"]),
                in_ns(NET.c_ns, [t.ROCESHARK, "perf", "rping", "--bind", NET.c_ip(0),
                                 "--connect", NET.s_ip(0), "-C", "10", "-v", "-V"]),
                roce_bound(NET.s_ip(0)), tolerate=rping_race)
    check_rping("rping -s against perf rping", s, c, 10)
    s, c = pair("rping -c against responder --cm",
                in_ns(NET.s_ns, [t.ROCESHARK, "responder", "--bind", NET.s_ip(0), "--cm"]),
                client_cmd(0, ["rping", "-c", "-a", NET.s_ip(0), "-v", "-V", "-C", "10"]),
                roce_bound(NET.s_ip(0)), persist=True, tolerate=rping_race)
    t.check(len(PING.findall(c[1])) == 10 and '"pings": 10' in s[1],
            "rping -c against responder --cm: 10 pings, the responder saw them: %r"
            % s[1][-300:])

# --- perftest -R, every test ---
HEADER = re.compile(r"^ #bytes\s+#iterations", re.M)


def perftest(i, tool, results):
    port = str(20000 + i)
    iters = "100"
    args = ["-R", "-n", iters, "-p", port]
    s, c = pair(tool + " -R", server_cmd(i, [tool, "-d", "rs0"] + args),
                client_cmd(i, [tool, "-d", "rs1"] + args + [NET.s_ip(i)]),
                roce_bound(NET.s_ip(i)))
    lines = c[1].splitlines()
    heads = [k for k, x in enumerate(lines) if HEADER.match(x)]
    row = lines[heads[0] + 1].split() if len(heads) == 1 and heads[0] + 1 < len(lines) else []
    results[tool] = row
    t.check(len(row) >= 5 and row[1] == iters and "rdma_cm" in c[1],
            "%s -R: one results row of %s iterations, connected by rdma_cm: %r"
            % (tool, iters, (c[1] + c[2])[-500:]))


# One pair at a time: each side spins on its CQ (the server on its exchange QP, with
# -R), and spinners side by side on a 2-core machine hold each other off the CPU. Lean:
# one of them, and none on the veth pair.
results = {}
for tool in PERFTEST if FULL else [] if VETH else ["ib_write_bw"]:
    perftest(0, tool, results)
for tool in results:
    print("%s -R: %s" % (tool, " ".join(results[tool])))

# --- qperf -cm1: its own TCP control, the RDMA CM for the QPs ---
if FULL:
    # A second per test, qperf's way (the long label only: 6 s in all).
    tests = ["rc_bw", "rc_lat"]
    s, c = pair("qperf -cm1", server_cmd(0, ["qperf", "-lp", "19765"]),
                client_cmd(0, ["qperf", "-cm1", "-lp", "19765", NET.s_ip(0), "-t", "1"]
                           + tests),
                tcp_listening(19765), persist=True)
    t.check(re.search(r"rc_bw:\s+bw\s+=\s+[0-9.]+ [KMG]B/sec", c[1]) is not None and
            re.search(r"rc_lat:\s+latency\s+=\s+[0-9.]+ [mun]?s", c[1]) is not None,
            "qperf -cm1 %s: %r" % (" ".join(tests), (c[1] + c[2])[-300:]))

if not VETH:
    # librdmacm's API call by call, both sides in one process (tests/rdmacm/cm_api.c), in
    # two runs. The exchanges with rdma_cm's own CM timeouts (4.3 s, 15 retries): a side
    # slowed down by a loaded machine (the sanitized build) is waited for, as rdma_cm
    # waits, and each wait ends on the event, not on time. The REQs nobody answers with a
    # short one (67 ms, 3 retries): given up within a second.
    runs = {}
    for part, cm_timeout in (("exchanges", "20,15"), ("timeouts", "14,3")):
        p = subprocess.run(in_ns(NET.s_ns, [t.ROCESHARK, "run", "--dev", "s=" + NET.s_ip(1),
                                            "--dev", "c=" + NET.c_ip(1), "--", CM_API,
                                            NET.s_ip(1), NET.c_ip(1), NET.fmt % 99,
                                            "198.51.100.1", "21000", part]),
                           capture_output=True, text=True, timeout=300,
                           env=dict(env(), ROCESHARK_CM_TIMEOUT=cm_timeout,
                                    ROCESHARK_VERBS_DEBUG="1"))
        runs[part] = p
        fails = [x for x in p.stdout.splitlines() if x.startswith("FAIL")]
        t.check(p.returncode == 0 and not fails and "PASS: 0 failure(s)" in p.stdout,
                "cm_api %s: rc %d, %s %s" % (part, p.returncode, fails, p.stderr[-300:]))
    oks = [x for p in runs.values() for x in p.stdout.splitlines() if x.startswith("ok:")]
    t.check(len(oks) >= 70, "cm_api: every check ran: %d" % len(oks))
    t.check(any("UNREACHABLE: -ETIMEDOUT" in x for x in runs["timeouts"].stdout.splitlines())
            and any("the second REQ: no room" in x for x in runs["timeouts"].stdout.splitlines()),
            "cm_api timeouts: the unanswered REQs: %r" % runs["timeouts"].stdout[-300:])
    # Its read of a channel after the close (rping's race, made to happen): the one GET_EVENT
    # that reaches no channel, which the library names as the program's.
    races = RPING_RACE.findall(runs["exchanges"].stderr)
    t.check(len(races) == 1,
            "cm_api: one GET_EVENT on a closed channel, named as the program's: %r" % races)

t.finish(NAME)
