#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The responder's side channel and control commands, with real sockets:
- a slow-loris peer (one byte every 0.9 s) held on the side channel while RoCE pings (scapy
  frames) between its bytes are all answered; the peer is closed after its deadline, before
  its line is whole, with one line on stderr;
- 64 connections served, a 65th and 66th refused politely (an {"error": ...} line, then
  closed) with the process not spinning (its CPU time over a second, from /proc/PID/stat),
  and a freed slot served again;
- two connections closing in one poll round while a third waits (no connection lost, no
  descriptor leaked);
- `recv N` answering with the receives actually posted."""
import json
import os
import signal
import socket
import statistics
import time

import rcpeer as r
import rstest as t

A, B = r.addresses(2)
PORT = t.free_port()
QPN, PEER_QPN = 0x200, 0x100
DEADLINE = 5.0          # the responder's side-channel line deadline
err_path = os.path.join(t.tempdir(), "responder.err")
err_file = open(err_path, "w")
resp = r.Responder(["--bind", A, "--peer", B, "--peer-qpn", hex(PEER_QPN), "--qpn", hex(QPN),
                    "--mr", "64K", "--recv-size", "4096", "--listen", str(PORT)],
                   stderr=err_file)
peer = r.Endpoint(B)
peer.accept = {A}
VA, RKEY = resp.info["va"], resp.info["rkey"]
psn = [0]


def stderr_lines():
    with open(err_path) as f:
        return f.read().splitlines()


def ping():
    """One RDMA WRITE with AckReq; the time from sending it to the ACK's arrival, or None."""
    p = psn[0]
    psn[0] += 1
    t0 = time.time()
    peer.send(r.request(B, A, QPN, p, r.WRITE_ONLY, payload=b"ping", reth=(VA, RKEY, 4)))
    while True:
        rep = peer.one(10.0)      # an upper bound only: a loaded machine delays
        if rep is None:
            return None
        if rep["opcode"] == r.ACK and rep["psn"] == p:
            return rep["ts"] - t0


def pings(n, gap):
    out = []
    for _ in range(n):
        out.append(ping())
        time.sleep(gap)
    return out


def connect():
    s = socket.create_connection((A, PORT), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def request_line(qpn):
    return ('{"ip": "%s", "qpn": %d, "psn": 0, "pmtu": 1024}\n' % (B, qpn)).encode()


def read_line(s, timeout=3.0):
    s.settimeout(timeout)
    buf = b""
    try:
        while not buf.endswith(b"\n"):
            got = s.recv(1024)
            if not got:
                break
            buf += got
    except (socket.timeout, ConnectionError):
        pass
    return buf.decode(errors="replace").strip()


def closed_by_peer(s, timeout=2.0, orderly=False):
    """s ends: with a FIN, or (unless orderly) a reset."""
    s.settimeout(timeout)
    try:
        return s.recv(1024) == b""
    except ConnectionError:
        return not orderly
    except socket.timeout:
        return False


def fds():
    return len(os.listdir("/proc/%d/fd" % resp.proc.pid))


def fds_settled(want, bound=10.0):
    """The responder's descriptors once they are `want` again, or after `bound` seconds. A
    connection the responder ends lingers until it reads the peer's close (so the peer
    reads its last lines), and a loaded machine delays that read: the count is waited for,
    not expected after a fixed sleep; a leaked descriptor still fails, at the bound."""
    end = time.monotonic() + bound
    while fds() != want and time.monotonic() < end:
        time.sleep(0.02)
    return fds()


def cpu_seconds():
    """utime + stime of the responder."""
    with open("/proc/%d/stat" % resp.proc.pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_recv_reports_posted():
    got = resp.ctl("recv 100000", "posted")
    t.check(got is not None and got["posted"] == 256 and "receive queue full" in got["error"],
            "recv 100000 on a 256-deep receive queue: posted 256 and says why: %s" % got)
    t.check(resp.state()[QPN]["recv_posted"] == 256, "the QP holds the 256 receives")
    got = resp.ctl("recv 1 %d" % QPN, "posted")
    t.check(got is not None and got["posted"] == 0 and "error" in got,
            "recv 1 on a full queue: posted 0: %s" % got)
    got = resp.ctl("recv 5 0x999", "posted")
    t.check(got is not None and got["posted"] == 0 and "no QP" in got.get("error", ""),
            "recv to a QP that does not exist: posted 0: %s" % got)
    got = resp.ctl("recv 99999999999999999999", "error")
    t.check(got is not None and "posted" not in got, "recv with N out of range: an error")


def test_slow_loris():
    """A peer that sends its line a byte at a time: between its bytes the responder answers
    RoCE pings (it never waits on the partial line), and once the line's deadline has
    passed it closes the peer, before the line is whole. Order and counts; the latencies
    are printed, not judged (a loaded machine only delays)."""
    base = [x for x in pings(5, 0.02) if x is not None]
    line = b'{"ip": "' + b"1" * 20
    s = connect()
    start = time.time()
    sent, during, closed_at = 0, [], None
    for ch in line:
        try:
            s.send(bytes([ch]))
        except OSError:
            closed_at = time.time() - start
            break
        sent += 1
        during += pings(2, 0)           # with the line incomplete
        if closed_by_peer(s, 0.9):
            closed_at = time.time() - start
            break
    s.close()
    answered = [x for x in during if x is not None]
    t.check(sent >= 2 and len(during) == 2 * sent and len(answered) == len(during),
            "every ping answered between the slow peer's bytes (%d bytes sent): %s"
            % (sent, during))
    if answered and base:
        print("ping latency: normal %.3f ms, beside a slow-loris peer median %.3f ms, "
              "worst %.3f ms" % (statistics.median(base) * 1e3,
                                 statistics.median(answered) * 1e3, max(answered) * 1e3))
    # Not before its deadline; and before its line was whole (a byte every 0.9 s or more).
    t.check(closed_at is not None and closed_at >= DEADLINE - 0.5 and sent < len(line),
            "the slow peer is closed after its %.0f s deadline, before its line is whole: "
            "closed at %s s after %d of %d bytes" % (DEADLINE, closed_at, sent, len(line)))
    lines = [x for x in stderr_lines() if "no whole line within 5000 ms; connection closed" in x]
    t.check(len(lines) == 1 and lines[0].startswith("roceshark: responder: side channel: "),
            "one line on stderr says why: %s" % stderr_lines())


def test_connection_limit():
    before = fds_settled(IDLE_FDS)      # the slow-loris peer's connection may still linger
    held = []
    for i in range(64):
        s = connect()
        s.sendall(request_line(0x1000 + i))
        held.append(s)
    replies = [read_line(s) for s in held]
    ok = [x for x in replies if x.startswith("{") and '"qpn"' in x]
    t.check(len(ok) == 64, "64 side-channel peers each get a QP: %d did" % len(ok))
    # The 65th writes its request at once, as clients do; held stopped meanwhile (the kernel
    # completes the connection), the responder finds it unread when it refuses: it must
    # still end in order (its line, then FIN), not in a reset for the line it did not read.
    resp.proc.send_signal(signal.SIGSTOP)
    try:
        extra = [connect(), connect()]
        extra[0].sendall(request_line(0x1040))
    finally:
        resp.proc.send_signal(signal.SIGCONT)
    for n, s in zip((65, 66), extra):
        line = read_line(s)
        t.check('"error"' in line and "64 connections open" in line,
                "connection %d: refused with a reason: %r" % (n, line))
        t.check(closed_by_peer(s, orderly=True),
                "connection %d: ended in order after the refusal" % n)
        s.close()
    cpu0 = cpu_seconds()
    late = connect()                 # refused too, while we measure
    time.sleep(1.0)
    used = cpu_seconds() - cpu0
    print("CPU time over 1 s with 64 peers held and more refused: %.3f s" % used)
    t.check(used < 0.2, "no spinning: %.3f s of CPU in 1 s" % used)
    t.check('"error"' in read_line(late), "a refused peer is answered at once")
    late.close()
    t.check(ping() is not None, "RoCE still answered with every slot taken")
    open_now = fds()
    held.pop().close()
    t.check(fds_settled(open_now - 1) == open_now - 1, "a closed peer's slot is let go")
    again = connect()
    again.sendall(request_line(0x2000))
    line = read_line(again)
    t.check('"qpn"' in line, "a freed slot serves the next peer: %r" % line)
    again.close()
    for s in held:
        s.close()
    now = fds_settled(before)
    t.check(now == before, "every descriptor released: %d, were %d" % (now, before))
    refusals = [x for x in stderr_lines() if "no room for more" in x]
    t.check(1 <= len(refusals) <= 2, "refusals reported at most once a second: %s" % refusals)


def test_two_close_in_one_round():
    before = fds_settled(IDLE_FDS)
    a, b, c, d, e = [connect() for _ in range(5)]
    time.sleep(0.1)
    e.sendall(b"{")                  # a line under way
    time.sleep(0.2)
    a.close()
    d.close()                        # both FINs in one poll round
    time.sleep(0.5)
    for name, s, qpn in (("C", c, 0x3000), ("B", b, 0x3001)):
        s.sendall(request_line(qpn))
        line = read_line(s, 2.0)
        t.check('"qpn"' in line, "%s, open beside two that closed together, is answered: %r"
                % (name, line))
    f = connect()
    f.sendall(request_line(0x3002))
    t.check('"qpn"' in read_line(f, 2.0), "a new connection after that is answered")
    for s in (b, c, e, f):
        s.close()
    now = fds_settled(before)
    t.check(now == before, "no descriptor leaked: %d, were %d" % (now, before))


IDLE_FDS = fds()        # the responder's descriptors with no side-channel peer
tests = [test_recv_reports_posted, test_slow_loris, test_connection_limit,
         test_two_close_in_one_round]
for fn in tests:
    n = len(t.failures)
    fn()
    print("%-30s %s" % (fn.__name__, "ok" if len(t.failures) == n else "FAILED"))
final = resp.stop()
t.check(final is not None and final["executed"]["write"] == psn[0],
        "the responder executed every ping: %s" % (final and final["executed"]))
err_file.close()
peer.close()
t.finish("responder side channel")
