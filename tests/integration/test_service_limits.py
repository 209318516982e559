#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Services that free what they take and cap what a client can make them hold, in a network
namespace of the test's own (it runs itself under `unshare -n`: the spoofed packets below
stay there):
- the side channel (R3): one connection asking for 300 QPs gets 64 (the per-peer cap) and
  a refusal naming the cap, then its QPs go with the connection; 300 ordinary requesters
  one after the other all get a QP; a requester that sends nothing has its QP freed after
  --idle and is told; then a perf write_bw run passes, as after the reproducer;
- perf's server: a client whose size needs more regions than --mr (256 MiB by default) is
  refused with a line that says so, then an orderly end though it sent more than the server
  read (not a reset), and the server exits 1 saying why, not "out of memory"; a client of
  another test is told which test the server runs; within --mr 4M, -s 1M is served;
- churn: 10,000 side-channel connections (QP asked, answered, connection closed), 16 at a
  time: every one answered, the responder's descriptors as before, its RSS flat from the
  first 1,000 to the last (within 1 MiB);
- RDMA CM (R4): 300 REQs from a spoofed source over a raw socket, each asking 4.096 us *
  2^31 per answer and 15 retries: 16 get a REP, 284 a REJ (no resources), and a perf
  client from another address connects through CM at once."""
import os
import re
import socket
import struct
import subprocess
import sys
import time

if os.environ.get("RS_TEST_NETNS") != "1":
    os.environ["RS_TEST_NETNS"] = "1"
    os.execvp("unshare", ["unshare", "-n", sys.executable] + sys.argv)
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)

import rcpeer as r  # noqa: E402
import rstest as t  # noqa: E402

CHURN = int(os.environ.get("RS_CHURN", "10000"))
PORT = 18515


def request_line(qpn, ip="127.0.0.9"):
    return ('{"ip": "%s", "qpn": %d, "psn": 0, "pmtu": 1024}\n' % (ip, qpn)).encode()


def read_lines(s, n, timeout=20.0):
    """Up to n lines from s, until it closes or timeout passes without a byte."""
    s.settimeout(timeout)
    buf = b""
    try:
        while buf.count(b"\n") < n:
            got = s.recv(65536)
            if not got:
                break
            buf += got
    except (socket.timeout, ConnectionError):
        pass
    return [x.decode(errors="replace") for x in buf.split(b"\n") if x]


def read_to_end(s, timeout=20.0):
    """The lines s carries until it ends, and how: "end" (an orderly end), or the error
    (ConnectionResetError: a reset)."""
    s.settimeout(timeout)
    buf = b""
    try:
        while True:
            got = s.recv(65536)
            if not got:
                break
            buf += got
        how = "end"
    except OSError as e:
        how = type(e).__name__
    return [x.decode(errors="replace") for x in buf.split(b"\n") if x], how


def closed(s, timeout=20.0):
    s.settimeout(timeout)
    try:
        return s.recv(1) == b""
    except ConnectionError:
        return True
    except socket.timeout:
        return False


def fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def rss_kb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def wait_no_qps(resp, what):
    """The responder's QPs, once none is left (each state answer comes after the round that
    served the closes before it)."""
    for _ in range(200):
        qps = resp.state()
        if not qps:
            return
        time.sleep(0.05)
    t.check(False, "%s: every side-channel QP freed: %s" % (what, sorted(qps)))


# --- The side channel (R3) ---
resp = r.Responder(["--bind", "127.0.0.2", "--recv", "64", "--repost", "--idle", "3"])
pid = resp.proc.pid

s = socket.create_connection(("127.0.0.2", PORT), timeout=5)
s.sendall(b"".join(request_line(100 + i) for i in range(300)))
lines = read_lines(s, 65)
ok = [x for x in lines if '"qpn"' in x and '"error"' not in x]
refused = [x for x in lines if '"error"' in x]
t.check(len(ok) == 64, "one connection asking for 300 QPs gets 64: %d" % len(ok))
t.check(len(refused) == 1 and "127.0.0.1 holds 64 QPs, the most one peer may" in refused[0],
        "then a refusal that names the cap: %r" % refused)
t.check(closed(s), "and the connection is closed")
s.close()
wait_no_qps(resp, "after the refused connection")

for i in range(300):
    s = socket.create_connection(("127.0.0.2", PORT), timeout=5)
    s.sendall(request_line(0x1000 + i))
    got = read_lines(s, 1)
    s.close()
    if not t.check(len(got) == 1 and '"qpn"' in got[0] and '"error"' not in got[0],
                   "requester %d of 300, one after the other, gets a QP: %r" % (i + 1, got)):
        break
wait_no_qps(resp, "after 300 requesters")

# A requester that holds its connection and sends no packet: its QP is freed after --idle
# (3 s), and it is told, then closed.
s = socket.create_connection(("127.0.0.2", PORT), timeout=5)
s.sendall(request_line(0x2000))
got = read_lines(s, 2, timeout=60)
t.check(len(got) == 2 and '"qpn"' in got[0] and '"error"' in got[1] and
        "took no packet for 3 s: freed" in got[1],
        "an idle requester's QP is freed, and it is told: %r" % got)
t.check(closed(s), "the idle requester's connection is closed")
s.close()
wait_no_qps(resp, "after the idle requester")

p = subprocess.run([t.ROCESHARK, "perf", "write_bw", "--bind", "127.0.0.3", "--connect",
                    "127.0.0.2", "-n", "200", "-s", "4096"], capture_output=True, text=True,
                   timeout=60)
t.check(p.returncode == 0 and re.search(r"^ 4096\s+200\s", p.stdout, re.M) is not None,
        "perf write_bw after all that: exit %d %r" % (p.returncode, p.stderr[-300:]))
wait_no_qps(resp, "after perf")

# --- perf's server: a client's size past --mr is refused with the reason ---
srv = t.spawn([t.ROCESHARK, "perf", "write_bw", "--bind", "127.0.0.6", "-p", "18600"],
              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
while not t.listening(18600) and srv.poll() is None:
    time.sleep(0.02)
s = socket.create_connection(("127.0.0.6", 18600), timeout=5)
# The client's second QP's line goes at once, unread by the server when it refuses: the
# refused connection must still end in order (our line, then FIN), not with a reset.
s.sendall(b'{"ip": "127.0.0.7", "qpn": 17, "psn": 0, "pmtu": 1024, "test": "write_bw", '
          b'"size": 1073741824, "iters": 1, "qps": 2}\n' +
          b'{"ip": "127.0.0.7", "qpn": 18, "psn": 0, "pmtu": 1024}\n' * 40)
got, end = read_to_end(s)
s.close()
out, err = srv.communicate(timeout=30)
t.check(len(got) == 1 and '"error"' in got[0] and "write_bw of 1073741824 bytes needs "
        "4294971392 bytes of regions, more than this server's --mr 268435456 allows" in got[0]
        and end == "end",
        "a 1 GiB region asked of perf's server: refused with the reason, then an orderly end "
        "though the client's next line was unread: %r, %s" % (got, end))
t.check(srv.returncode == 1 and "roceshark: perf: the client asked for write_bw of 1073741824 "
        "bytes" in err and "out of memory" not in err,
        "the server says so and exits 1: %d %r" % (srv.returncode, err))
# A client of another test is told which this server runs.
srv = t.spawn([t.ROCESHARK, "perf", "write_bw", "--bind", "127.0.0.6", "-p", "18602"],
              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
while not t.listening(18602) and srv.poll() is None:
    time.sleep(0.02)
p = subprocess.run([t.ROCESHARK, "perf", "read_bw", "--bind", "127.0.0.7", "--connect",
                    "127.0.0.6:18602", "-n", "20"], capture_output=True, text=True, timeout=60)
srv.communicate(timeout=30)
t.check(p.returncode == 4 and p.stderr == "roceshark: perf: the server refused: this server "
        "runs write_bw, not read_bw\n" and srv.returncode == 1,
        "read_bw against a write_bw server: the client told why: %d %d %r"
        % (p.returncode, srv.returncode, p.stderr))
srv = t.spawn([t.ROCESHARK, "perf", "write_bw", "--bind", "127.0.0.6", "-p", "18601",
               "--mr", "4M"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
while not t.listening(18601) and srv.poll() is None:
    time.sleep(0.02)
p = subprocess.run([t.ROCESHARK, "perf", "write_bw", "--bind", "127.0.0.7", "--connect",
                    "127.0.0.6:18601", "-s", "1M", "-n", "20"], capture_output=True, text=True,
                   timeout=60)
srv.communicate(timeout=30)
t.check(p.returncode == 0 and srv.returncode == 0,
        "-s 1M within --mr 4M: served: %d %d %r" % (p.returncode, srv.returncode, p.stderr))

# --- Churn: CHURN connections, 16 at a time ---
before_fds = fds(pid)
answered, rss_first = 0, None
t0 = time.time()
for base in range(0, CHURN, 16):
    socks = []
    for i in range(base, min(base + 16, CHURN)):
        c = socket.create_connection(("127.0.0.2", PORT), timeout=5)
        c.sendall(request_line(0x10000 + i % 0x10000))
        socks.append(c)
    for c in socks:
        got = read_lines(c, 1)
        answered += len(got) == 1 and '"qpn"' in got[0] and '"error"' not in got[0]
        c.close()
    if rss_first is None and base + 16 >= 1000:
        wait_no_qps(resp, "after 1,000 connections")
        rss_first = rss_kb(pid)
wait_no_qps(resp, "after the churn")
rss_last = rss_kb(pid)
print("churn: %d connections in %.1f s; responder RSS %d kB after 1,000, %d kB after %d; "
      "descriptors %d before, %d after" % (CHURN, time.time() - t0, rss_first, rss_last, CHURN,
                                           before_fds, fds(pid)))
t.check(answered == CHURN, "churn: every connection answered with a QP: %d of %d"
        % (answered, CHURN))
t.check(fds(pid) == before_fds, "churn: descriptors %d, were %d" % (fds(pid), before_fds))
# Under ASan freed memory waits in its quarantine (256 MiB): RSS says nothing there.
if "sanitize=ON" not in os.environ.get("ROCESHARK_BUILT", ""):
    t.check(rss_last - rss_first <= 1024, "churn: RSS flat, %d kB after 1,000 connections, "
            "%d kB after %d" % (rss_first, rss_last, CHURN))
final = resp.stop()
t.check(final is not None, "the responder exits cleanly")

# --- RDMA CM (R4): a flood of REQs from a spoofed source ---
cm = r.Responder(["--bind", "127.0.0.4", "--cm", "--no-listen", "--recv", "512", "--repost"])
spoofed = r.Endpoint("127.0.0.9")       # receives what the responder answers the flood
# The UD SEND Only (BTH, DETH) and the CM REQ MAD of a `perf write_bw --connect cm://`
# (captured), addresses 127.0.0.3 -> 127.0.0.2 inside, made 127.0.0.9 -> 127.0.0.4.
REQ = bytearray.fromhex(
    "6400ffff0000000180000000800100000000000101070203000000000012173e0000000000100000000000"
    "000012173e000000000000000001064853020000007f000003000000000000000000001110000000100000"
    "009012173d97ffff5730ffffffff00000000000000000000ffff7f00000300000000000000000000ffff7f"
    "00000200000000004000700000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000040d73d0000000000000000000000007f0000030000000000000000000000"
    "007f00000252534d525a00010100007f2e1691200000000000000010000000000000000000000000000000"
    "000000000000000000000000000000000000")
REQ = bytearray(bytes(REQ).replace(bytes([127, 0, 0, 3]), bytes([127, 0, 0, 9]))
                .replace(bytes([127, 0, 0, 2]), bytes([127, 0, 0, 4])))
MAD, BODY = 20, 20 + 24
for i in range(300):
    p = bytearray(REQ)
    p[MAD + 8:MAD + 16] = struct.pack("!Q", 0x7E1000000000 + i)     # transaction ID
    p[BODY:BODY + 4] = struct.pack("!I", 0x55000000 + i)             # local communication ID
    p[BODY + 32:BODY + 35] = (0x100 + i).to_bytes(3, "big")          # local QPN
    p[BODY + 47] = (31 << 3) | 7            # local CM response timeout 31
    p[BODY + 51] = 15 << 4                  # max CM retries 15
    udp = struct.pack("!HHHH", 40000 + i, 4791, 8 + len(p) + 4, 0) + bytes(p)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + 4, 0x1234, 0x4000, 64, 17, 0,
                     socket.inet_aton("127.0.0.9"), socket.inet_aton("127.0.0.4"))
    spoofed.send(r.refit(ip + udp))
# Every REQ answered once, REP or REJ, by its communication ID (REPs are resent later).
answers = {}
end = time.time() + 60
while len(answers) < 300 and time.time() < end:
    for d in spoofed.recv(1.0):
        if d["opcode"] != 0x64 or len(d["payload"]) < 8 + 32:
            continue
        mad = d["payload"][8:]                              # after the DETH
        attr = struct.unpack("!H", mad[16:18])[0]
        remote_id = struct.unpack("!I", mad[28:32])[0]     # the REQ's local ID, echoed
        answers.setdefault(remote_id, attr)
reps = [k for k, v in answers.items() if v == 0x0013]
rejs = [k for k, v in answers.items() if v == 0x0012]
t.check(len(reps) == 16 and len(rejs) == 284,
        "300 spoofed REQs: 16 REPs (half-open per source) and 284 REJs: %d, %d of %d"
        % (len(reps), len(rejs), len(answers)))
p = subprocess.run([t.ROCESHARK, "perf", "write_bw", "--bind", "127.0.0.5", "--connect",
                    "cm://127.0.0.4", "-s", "4096", "-n", "50"], capture_output=True, text=True,
                   timeout=60)
t.check(p.returncode == 0 and re.search(r"^ 4096\s+50\s", p.stdout, re.M) is not None,
        "a cm:// client beside the flood connects at once: exit %d %r"
        % (p.returncode, p.stderr[-300:]))
cm.stop()
spoofed.close()
t.finish("service limits")
