#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""perftest's and ibv_rc_pingpong's exchanges, replayed from the real captures
(tests/captures/real/: perftest 6.20's ib_*_bw and ib_*_lat, rdma-core's ibv_rc_pingpong):
- each captured client's TCP payloads, byte for byte and in order (its GID rewritten to
  our loopback address), sent to `roceshark perf TEST` as server, which must answer every
  step with a message of the captured length and the tool's format, carrying our values,
  and end as perftest's server does (printing the client's BW report);
- the reverse: our client against a script that plays the captured server's payloads must
  send perftest's messages and then its first RoCE packet, to the captured server's QPN;
- the same for pingpong_rc;
- malformed exchanges (wrong and unknown versions, short reads, bad GIDs, damaged keys
  and MTUs) end with one line on stderr, a non-zero exit and a closed connection.
Nothing is sent outside loopback: every GID is rewritten to a 127.x address."""
import os
import re
import select
import socket
import struct
import subprocess
import time

import oobcapture
import rcpeer as r
import rstest as t

PERFTEST = ["write_bw", "read_bw", "send_bw", "atomic_bw", "write_lat", "read_lat"]
KEY_RE = re.compile(rb"^[0-9a-f]{4}:[0-9a-f]{4}:([0-9a-f]{6}):([0-9a-f]{6}):[0-9a-f]{8}:"
                    rb"[0-9a-f]{16}:((?:[0-9a-f]{2}:){16})[0-9a-f]{8}:\0$")
PP_RE = re.compile(rb"^0000:([0-9a-f]{6}):([0-9a-f]{6}):([0-9a-f]{32})\0$")
# The first packet of each test's traffic: its BTH opcode (RC).
FIRST_OPCODE = {"write_bw": 0x06, "read_bw": 0x0C, "send_bw": 0x00, "atomic_bw": 0x14,
                "write_lat": 0x0A, "read_lat": 0x0C, "pingpong": 0x00}



def next_port():
    return t.free_port()


def capture(name):
    return os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_%s.pcap" % name)


def ip4(text):
    return socket.inet_aton(text)


def gid_text(ip):
    return ("00:" * 10 + "ff:ff:" + ":".join("%02x" % b for b in ip4(ip)) + ":").encode()


def connect(addr, p, timeout=5.0):
    end = time.time() + timeout
    while True:
        try:
            s = socket.create_connection((addr, p), timeout=5)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return s
        except OSError:
            if time.time() > end:
                raise
            time.sleep(0.05)


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            break
        buf += chunk
    return buf


def check_perftest_step(what, step, got, want_len, our_ip):
    """One of our messages at position step (0 version, 1-2 system data, 3 MTU, then keys
    and report fields)."""
    if not t.check(len(got) == want_len, "%s: step %d: %d bytes, the tool's %d"
                   % (what, step, len(got), want_len)):
        return None
    if step == 0:
        t.check(got == b"6.20" + b"\0" * 12, "%s: version 6.20: %r" % (what, got))
    elif step == 1:
        t.check(struct.unpack(">I", got)[0] == 4096, "%s: page size 4096" % what)
    elif step == 2:
        t.check(struct.unpack(">I", got)[0] == 64, "%s: cache line 64" % what)
    elif step == 3:
        t.check(got == b"5\0", "%s: MTU as ibv_mtu 5 (4096): %r" % (what, got))
    elif want_len == 108:
        m = KEY_RE.match(got)
        if t.check(m is not None, "%s: step %d: perftest's key format: %r" % (what, step, got)):
            t.check(m.group(3) == gid_text(our_ip), "%s: our GID ::ffff:%s" % (what, our_ip))
            t.check(int(m.group(1), 16) == 0x11, "%s: our QPN 0x11" % what)
            return int(m.group(2), 16)
    return None


def replay_client_to_our_server(test):
    """The captured client's bytes to `perf TEST` as server."""
    what = "server %s" % test
    ex = oobcapture.read(capture("rdma_" + test), 18515)
    srv_ip, cli_ip = r.addresses(2)
    p = next_port()
    # write_lat's server writes first: its first RoCE packet comes to the client's address.
    roce = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    roce.bind((cli_ip, 4791))
    roce.settimeout(10)
    srv = t.spawn([t.ROCESHARK, "perf", test, "--bind", srv_ip, "-p", str(p)],
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    s = connect(srv_ip, p)
    s.settimeout(10)
    step, psns, report = 0, set(), []
    for frame, from_client, payload in ex.payloads:
        if from_client:
            payload = oobcapture.rewrite_ip(payload, ex.client_ip, ip4(cli_ip))
            if len(payload) == 8:
                report.append(payload)
            s.sendall(payload)
            continue
        got = recv_exact(s, len(payload))
        psn = check_perftest_step(what, step, got, len(payload), srv_ip)
        if psn is not None:
            psns.add(psn)
        step += 1
    t.check(len(psns) == 1, "%s: the same key message every time" % what)
    if test == "write_lat":
        # perftest's order: the server writes first (the capture's first RoCE packet is the
        # server's WRITE), to the client's QP; taken before we end the connection, which
        # ends the server's test.
        try:
            bth = roce.recv(65536)[:12]
            t.check(bth[0] == 0x0A, "%s: the server's first packet is a WRITE Only: 0x%02x"
                    % (what, bth[0]))
        except OSError as e:
            t.check(False, "%s: the server writes first: %s" % (what, e))
    s.shutdown(socket.SHUT_WR)  # as the captured client, once it is done
    t.check(s.recv(1) == b"", "%s: the server closes after the last step" % what)
    s.close()
    out, err = srv.communicate(timeout=10)
    t.check(step == sum(1 for _, c, _ in ex.payloads if not c),
            "%s: answered all %d steps" % (what, step))
    if test in ("write_bw", "read_bw", "atomic_bw"):
        size, iters = struct.unpack(">Q", report[0])[0], struct.unpack(">Q", report[1])[0]
        peak, avg = (struct.unpack(">d", x)[0] for x in report[2:4])
        row = " %-7d    %-10d       %-7.2f            %-7.2f" % (size, iters, peak, avg)
        t.check(srv.returncode == 0 and row in out,
                "%s: prints the client's report (%s): %s %s" % (what, row, out, err))
    elif test == "read_lat":
        t.check(srv.returncode == 0, "%s: a clean end: %s" % (what, err))
    elif test == "write_lat":
        # Nobody answers the server's WRITE here, so it fails in the end: its retries run
        # out, or it sees that the client (done with its steps, and shut for writing) left
        # mid-test, whichever comes first.
        t.check(srv.returncode == 4 and err.count("\n") == 1 and
                ("RETRY_EXC_ERR" in err or "the client closed the connection" in err),
                "%s: one line: %s" % (what, err))
    else:
        # No RoCE traffic came (it was not replayed): the server says so and fails.
        t.check(srv.returncode != 0 and "finished after 0 of" in err and err.count("\n") == 1,
                "%s: one line: %s" % (what, err))
    roce.close()


def write_lat_order(what, our_key, their_psn, srv_ip, cli_ip, udp):
    """perftest's write_lat order, as the captured server (frame 23) plays it: the server
    writes first, and the client answers its n-th WRITE with its own n-th, once the last
    byte it spins on is n. Asserted by order and counts alone: a WRITE whose last byte is
    not yet 1 is acknowledged and nothing else (a client that wrote first, or on any
    WRITE, sends its own before that ACK); then the WRITE that ends in 1 brings exactly
    one ACK of it and our WRITE, in either order, since IBTA lets the ACK be held
    (coalesced) for a few microseconds and our stack sends a request before a held ACK.
    A WRITE sent again (its ACK timeout passed while we were descheduled) is counted, not
    failed. Returns our first WRITE and where it came from."""
    f = our_key.split(b":")
    qpn, rkey, va = int(f[2], 16), int(f[4], 16), int(f[5], 16)
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    for i, last in enumerate((0, 1)):
        raw.sendto(r.request(srv_ip, cli_ip, qpn, their_psn + i, r.WRITE_ONLY,
                             payload=bytes([0, last]), reth=(va, rkey, 2)), (cli_ip, 0))
        acks, writes, first = [], [], None
        while not acks or (last == 1 and not writes):
            pkt, src = udp.recvfrom(65536)
            if pkt[0] == r.ACK:
                acks.append(int.from_bytes(pkt[9:12], "big"))
            else:
                writes.append(pkt[0])
                first = first or (pkt, src)
        if last == 0:
            t.check(acks == [their_psn] and not writes,
                    "%s: a WRITE not yet ending in 1 is acknowledged, and not answered: "
                    "ACKs of %s, then our opcodes %s" % (what, acks, writes))
        else:
            t.check(acks == [(their_psn + 1) & 0xFFFFFF] and len(writes) >= 1,
                    "%s: the WRITE ending in 1 is acknowledged once and answered: ACKs of "
                    "%s, our opcodes %s" % (what, acks, writes))
    raw.close()
    return first


def our_client_to_script(test, setup, port_in_capture):
    """`perf TEST --connect SETUP://` against the captured server's bytes, up to the first
    RoCE packet, which must reach the captured server's QP."""
    what = "client %s" % test
    pingpong = setup == "pingpong"
    ex = oobcapture.read(capture("pingpong_rc" if pingpong else "rdma_" + test), port_in_capture)
    srv_ip, cli_ip = r.addresses(2)
    p = next_port()
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((srv_ip, p))
    ls.listen(1)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind((srv_ip, 4791))
    udp.settimeout(5)
    cli = t.spawn([t.ROCESHARK, "perf", test, "--bind", cli_ip, "--connect",
                   "%s://%s:%d" % (setup, srv_ip, p)],
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ls.settimeout(10)
    s, _ = ls.accept()
    s.settimeout(10)
    step, our_psn, their_qpn, their_psn, our_key = 0, None, None, None, b""
    try:
        for frame, from_client, payload in ex.payloads:
            if ex.first_roce is not None and frame > ex.first_roce:
                break
            if from_client:
                got = recv_exact(s, len(payload))
                if pingpong:
                    m = PP_RE.match(got)
                    if len(payload) == 52 and t.check(m is not None, "%s: pingpong's format: %r"
                                                      % (what, got)):
                        our_psn = int(m.group(2), 16)
                        t.check(m.group(3) == (b"0" * 20 + b"ffff" + ip4(cli_ip).hex().encode()),
                                "%s: our GID" % what)
                    elif len(payload) == 5:
                        t.check(got == b"done\0", "%s: done: %r" % (what, got))
                else:
                    psn = check_perftest_step(what, step, got, len(payload), cli_ip)
                    our_psn = psn if psn is not None else our_psn
                    our_key = got if len(got) == 108 else our_key
                step += 1
            else:
                payload = oobcapture.rewrite_ip(payload, ex.server_ip, ip4(srv_ip), pingpong)
                if len(payload) in (52, 108):
                    their_qpn = int(payload.split(b":")[1 if pingpong else 2], 16)
                    their_psn = int(payload.split(b":")[1 if pingpong else 3], 16)
                s.sendall(payload)
        if test == "write_lat":
            pkt, src = write_lat_order(what, our_key, their_psn, srv_ip, cli_ip, udp)
        else:
            pkt, src = udp.recvfrom(65536)
        bth = pkt[:12]
        t.check(src[0] == cli_ip, "%s: RoCE from our address" % what)
        t.check(bth[0] == FIRST_OPCODE[test], "%s: first opcode 0x%02x" % (what, bth[0]))
        t.check(int.from_bytes(bth[5:8], "big") == their_qpn,
                "%s: to the captured server's QPN 0x%x" % (what, their_qpn or 0))
        t.check(int.from_bytes(bth[9:12], "big") == our_psn, "%s: from the PSN we sent" % what)
        if test in ("write_bw", "send_bw"):
            # The captured server's MTU (1024, "3") wins over our 4096.
            t.check(len(pkt) <= 12 + 16 + 1024 + 4, "%s: packets of the agreed MTU: %d"
                    % (what, len(pkt)))
    except (socket.timeout, OSError) as e:
        t.check(False, "%s: %s (client said: %s)" % (what, e, cli.stderr.read1(4096)
                                                    if cli.poll() is not None else ""))
    finally:
        cli.terminate()
        cli.communicate(timeout=10)
        s.close()
        ls.close()
        udp.close()


def pingpong_server():
    what = "server pingpong"
    ex = oobcapture.read(capture("pingpong_rc"), 12345)
    srv_ip, cli_ip = r.addresses(2)
    p = next_port()
    srv = t.spawn([t.ROCESHARK, "perf", "pingpong", "--bind", srv_ip, "-p", str(p)],
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    s = connect(srv_ip, p)
    s.settimeout(10)
    for frame, from_client, payload in ex.payloads:
        if from_client:
            s.sendall(oobcapture.rewrite_ip(payload, ex.client_ip, ip4(cli_ip), True))
            continue
        got = recv_exact(s, len(payload))
        m = PP_RE.match(got)
        if t.check(m is not None, "%s: pingpong's format: %r" % (what, got)):
            t.check(int(m.group(1), 16) == 0x11, "%s: our QPN" % what)
            t.check(m.group(3).endswith(b"ffff" + ip4(srv_ip).hex().encode()),
                    "%s: our GID" % what)
    # The server prints (and flushes) its address lines once the exchange is over: read
    # until they are in, rather than stop it after some time.
    out, end = "", time.monotonic() + 20
    while "remote address" not in out and time.monotonic() < end:
        if select.select([srv.stdout], [], [], end - time.monotonic())[0]:
            got = os.read(srv.stdout.fileno(), 4096).decode()
            if not got:
                break
            out += got
    srv.terminate()
    rest, err = srv.communicate(timeout=10)
    out += rest
    t.check("  remote address: LID 0x0000, QPN 0x000021, PSN 0x59dfd7, GID ::ffff:%s" % cli_ip
            in out, "%s: the tool's remote address line: %s %s" % (what, out, err))
    t.check("  local address:  LID 0x0000, QPN 0x000011" in out, "%s: local line" % what)


def end_to_end(test):
    """Our client and server, both speaking the tool's exchange, through the traffic and the
    exchange's end (BW report, closing handshakes, done)."""
    what = "end to end %s" % test
    a, b = r.addresses(2)
    p = next_port()
    setup = "pingpong" if test == "pingpong" else "perftest"
    args = ["-n", "200"] + (["--report_gbits"] if test == "read_bw" else [])
    srv = t.spawn([t.ROCESHARK, "perf", test, "--bind", a, "-p", str(p)] + args,
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cli = subprocess.run([t.ROCESHARK, "perf", test, "--bind", b, "--connect",
                          "%s://%s:%d" % (setup, a, p)] + args,
                         capture_output=True, text=True, timeout=60)
    s_out, s_err = srv.communicate(timeout=30)
    if not t.check(cli.returncode == 0 and srv.returncode == 0,
                   "%s: both succeed: %s %s" % (what, cli.stderr, s_err)):
        return
    if test == "pingpong":
        for out in (cli.stdout, s_out):
            t.check(re.search(r"^1638400 bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$", out, re.M)
                    and re.search(r"^200 iters in [0-9.]+ seconds = [0-9.]+ usec/iter$", out,
                                  re.M), "%s: the tool's two lines: %s" % (what, out))
        return
    lines = cli.stdout.splitlines()
    header = [x for x in lines if x.startswith(" #bytes")]
    if not t.check(len(header) == 1, "%s: one table" % what):
        return
    row = lines[lines.index(header[0]) + 1]
    t.check(row.split()[1] == "200", "%s: 200 iterations: %s" % (what, row))
    if test == "read_bw":
        t.check("BW average[Gb/sec]" in header[0], "%s: --report_gbits" % what)
    if test in ("write_bw", "read_bw", "atomic_bw"):
        t.check(row in s_out.splitlines(), "%s: the server prints the client's report: %s"
                % (what, s_out))
    elif test in ("send_bw", "send_lat", "write_lat"):
        t.check(header[0] in s_out, "%s: the server prints its own measure" % what)


def expect_refusal(what, test, script, want, client=False):
    """Runs our server (or client) against script(sock); one stderr line with want, a
    non-zero exit, the connection closed, no sanitizer report."""
    a, b = r.addresses(2)
    p = next_port()
    if client:
        ls = socket.socket()
        ls.bind((a, p))
        ls.listen(1)
        proc = t.spawn([t.ROCESHARK, "perf", test, "--bind", b, "--connect",
                        "%s://%s:%d" % ("pingpong" if test == "pingpong" else
                                        "perftest", a, p)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ls.settimeout(10)
        s, _ = ls.accept()
        ls.close()
    else:
        proc = t.spawn([t.ROCESHARK, "perf", test, "--bind", a, "-p", str(p)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        s = connect(a, p)
    s.settimeout(15)
    try:
        script(s)
        closed = True
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
    except OSError:
        closed = True
    s.close()
    out, err = proc.communicate(timeout=20)
    t.check(proc.returncode == 4 and closed and err.count("\n") == 1 and
            err.startswith("roceshark: perf: ") and want in err,
            "%s: one line with '%s', exit %s: %r" % (what, want, proc.returncode, err))


def good_preamble(s, version=b"6.20"):
    s.sendall(version.ljust(16, b"\0"))
    recv_exact(s, 16)
    for v in (4096, 64):
        s.sendall(struct.pack(">I", v))
        recv_exact(s, 4)
    s.sendall(b"3\0")
    recv_exact(s, 2)


def key(gid=b"00:00:00:00:00:00:00:00:00:00:ff:ff:7f:00:00:01:"):
    return b"0000:0001:00001d:533a2f:00000e1c:00005e135cf9b000:" + gid + b"00000000:\0"


for test in PERFTEST:
    replay_client_to_our_server(test)
    our_client_to_script(test, "perftest", 18515)
pingpong_server()
our_client_to_script("pingpong", "pingpong", 12345)
for test in PERFTEST + ["pingpong"]:
    end_to_end(test)

expect_refusal("old version", "write_bw", lambda s: good_preamble(s, b"5.60"),
               "perftest 5.60 is older than 5.70")
expect_refusal("garbage version", "write_bw", lambda s: s.sendall(b"RFB 003.008\n\0\0\0\0"),
               "roceshark: perf:")
expect_refusal("short version", "write_bw", lambda s: (s.sendall(b"6.2"), s.shutdown(1)),
               "the peer closed after 3 of 16 bytes")
expect_refusal("bad MTU", "write_bw",
               lambda s: (s.sendall(b"6.20".ljust(16, b"\0")), recv_exact(s, 16),
                          s.sendall(struct.pack(">I", 4096)), recv_exact(s, 4),
                          s.sendall(struct.pack(">I", 64)), recv_exact(s, 4),
                          s.sendall(b"9\0")),
               "perftest MTU")
# A GID is the peer's address as it is; one of the other IP version than ours is refused.
expect_refusal("IPv6 GID to an IPv4 address", "write_bw",
               lambda s: (good_preamble(s), s.sendall(key(
                   b"fe:80:00:00:00:00:00:00:02:00:00:ff:fe:00:00:01:"))),
               "peer fe80::200:ff:fe00:1: not of the IP version of our address")
expect_refusal("damaged key", "write_bw",
               lambda s: (good_preamble(s), s.sendall(key().replace(b"533a2f", b"53?a2f"))),
               "PSN")
expect_refusal("short key", "read_bw",
               lambda s: (good_preamble(s), s.sendall(key()[:70]), s.shutdown(1)),
               "the peer closed after 11 of 49 bytes")
expect_refusal("client: bad version from the server", "write_bw",
               lambda s: (recv_exact(s, 16), s.sendall(b"x" * 16)), "perftest version",
               client=True)
expect_refusal("client: server closes during the keys", "send_bw",
               lambda s: (recv_exact(s, 16), s.sendall(b"6.20".ljust(16, b"\0")),
                          recv_exact(s, 4), s.sendall(struct.pack(">I", 4096)),
                          recv_exact(s, 4), s.sendall(struct.pack(">I", 64)),
                          recv_exact(s, 2), s.sendall(b"3\0"), recv_exact(s, 108),
                          s.sendall(key()[:20]), s.shutdown(1)),
               "the peer closed after 20 of 59 bytes", client=True)
expect_refusal("pingpong: bad GID", "pingpong",
               lambda s: s.sendall(b"0000:000021:59dfd7:fe800000000000000000000000000001\0"),
               "peer fe80::1: not of the IP version of our address")
expect_refusal("pingpong: not done", "pingpong",
               lambda s: (s.sendall(b"0000:000021:59dfd7:00000000000000000000ffff7f000001\0"),
                          recv_exact(s, 52), s.sendall(b"nope\0")),
               "expected \"done\"")
expect_refusal("pingpong client: short answer", "pingpong",
               lambda s: (recv_exact(s, 52), s.sendall(b"0000:00"), s.shutdown(1)),
               "the peer closed after 7 of 52 bytes", client=True)

t.finish("perf_interop")
