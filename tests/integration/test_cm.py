#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""RDMA CM over RoCEv2 (QP 1), against the real captures and tshark 4.0:
- every CM REQ of the rdma_cm and rping captures (rxe peers), its GIDs and rdma_cm
  addresses rewritten to loopback addresses, sent to `roceshark responder --cm` as a UD
  SEND to QP 1: the answer must be a REP that tshark decodes as ConnectReply for that
  REQ (its remote communication ID is the REQ's local one), with the QPN, starting PSN
  and responder resources the responder announces and our region in its private data,
  and a valid ICRC; the RTU connects it (the responder reports the rdma_cm source port
  and address it read from the REQ's private data) and a DREQ gets a DREP;
- the REP is sent again after the REQ's response timeout, up to its max CM retries, then
  refused with a REJ (timeout); our REQ likewise, and our client then fails in one line;
- hostile MADs to QP 1 (short, another class, another version, unknown attributes)
  get no answer and do not stop the responder;
- our REQ (`perf --connect cm://`) has the same CM fields in tshark as the real REQ,
  and a REJ ends our client with one line naming the reason;
- `read`'s Info column names the captures' CM MADs as tshark's does;
- a full connect, traffic (write_bw and send_bw) and disconnect between `responder --cm`
  and `perf --connect cm://`, over IPv4 and over IPv6;
- perftest -R's protocol between `perf TEST -R` server and client (write_bw, read_bw,
  send_bw, write_lat) over IPv4 and IPv6: both tables, and in a capture of lo two CM
  connections a run (perftest's channel and the test QP) that tshark decodes as
  REQ/REP/RTU/DREQ/DREP for rdma_cm's port; a -R client without a server fails in one
  line within seconds, and one pointed at `responder --cm` is told it speaks cm://;
- `perf -R` as server against perftest 4.5-0.17's -R client, and as client against 25.01's
  -R server, both scripted from perftest's source (perftestr.py): the exact bytes of each
  step, a REJ before the server listens, the DREQs of each version's end.
Nothing leaves loopback."""
import os
import random
import signal
import socket
import struct
import subprocess
import tempfile
import time

from scapy.contrib.roce import BTH
from scapy.layers.inet import IP, UDP
from scapy.packet import Raw

import perftestr
import rcpeer as r
import rstest as t

CAPTURES = ["rdma_cm", "rping"]
UD_SEND_ONLY = 0x64
GSI_QKEY = 0x80010000
REQ, REJ, REP, RTU, DREQ, DREP = 0x10, 0x12, 0x13, 0x14, 0x15, 0x16
HDR = 24                # MAD header; the CM message follows
RESPONDER_PSN = 0x2468AC


def capture(name):
    return os.path.join(t.REAL_CAPTURES, "linlinw5_rdma_ib_tutorial__pcap_%s.pcap" % name)


def gid(ip):
    return bytes(10) + b"\xff\xff" + socket.inet_aton(ip)


def mad_header(attr, tid):
    return struct.pack("!BBBBHHQHHI", 1, 7, 2, 3, 0, 0, tid, attr, 0, 0)


def mad(attr, tid, body):
    m = mad_header(attr, tid) + body
    return m + bytes(256 - len(m))


def ud_packet(src, dst, payload, psn=None):
    """A UD SEND Only from QP 1 to QP 1, as Linux's GSI sends MADs (scapy's ICRC)."""
    deth = struct.pack("!II", GSI_QKEY, 1)
    pkt = (IP(src=src, dst=dst, id=random.randrange(1, 65536), flags="DF", ttl=64)
           / UDP(sport=random.randrange(49152, 65535), dport=r.PORT, chksum=0)
           / BTH(opcode=UD_SEND_ONLY, psn=random.randrange(1 << 24) if psn is None else psn,
                 dqpn=1, ackreq=1, pkey=0xFFFF)
           / Raw(deth + payload))
    return bytes(pkt)


def mad_of(raw):
    """The MAD of a UD SEND Only (IPv4 packet bytes), or None for anything else."""
    ihl = (raw[0] & 15) * 4
    bth = raw[ihl + 8:ihl + 20]
    if bth[0] != UD_SEND_ONLY or int.from_bytes(bth[5:8], "big") != 1:
        return None
    return raw[ihl + 28:-4]


def real_reqs(name):
    """(frame number, MAD bytes) of each REQ of a capture, as tshark gives them."""
    out = t.run(["tshark", "-r", capture(name), "-Y", "infiniband.cm.req", "-T", "fields",
                 "-e", "frame.number", "-e", "infiniband.mad"]).stdout
    return [(int(n), bytes.fromhex(h.replace(":", "")))
            for n, h in (line.split("\t") for line in out.splitlines())]


def rewrite_req(m, ours, theirs):
    """The REQ's GIDs and rdma_cm addresses made ours -> theirs."""
    m = bytearray(m)
    c = HDR
    m[c + 56:c + 72] = gid(ours)
    m[c + 72:c + 88] = gid(theirs)
    if m[c + 141] >> 4 == 4:            # rdma_cm header, IPv4: addresses in the last 4 bytes
        m[c + 156:c + 160] = socket.inet_aton(ours)
        m[c + 172:c + 176] = socket.inet_aton(theirs)
    return bytes(m)


def tshark_cm(path, fields):
    out = t.run(["tshark", "-r", path, "-Y", "infiniband.mad", "-T", "fields",
                 "-e", "_ws.col.Info"] + sum((["-e", f] for f in fields), [])).stdout
    return [line.split("\t") for line in out.splitlines()]


def answer(ep, want=None, timeout=30.0):
    """The next MAD the endpoint receives (of attribute want, when given: a REP resent while
    a slow machine held the test back is not the answer it waits for, and is left out of
    ep.frames), with its packet, or (None, None) when none came within timeout, a bound
    for a failure, not a window."""
    end = time.time() + timeout
    while time.time() < end:
        for d in ep.recv(end - time.time(), 1):
            m = mad_of(d["raw"])
            if want is None or m[17] == want:
                return d, m
            ep.frames.remove(d["raw"])
    return None, None


def passive_side(tmp, name, resp, ep, rip, eip):
    for frame, real in real_reqs(name):
        what = "%s frame %d" % (name, frame)
        req = rewrite_req(real, eip, rip)
        tid = struct.unpack("!Q", req[8:16])[0]
        req_id = struct.unpack("!I", req[HDR:HDR + 4])[0]
        req_qpn = int.from_bytes(req[HDR + 32:HDR + 35], "big")
        init_depth = req[HDR + 39]
        sport = struct.unpack("!H", req[HDR + 142:HDR + 144])[0]
        ep.frames = []
        ep.send(ud_packet(eip, rip, req))
        d, rep = answer(ep, REP)
        if not t.check(rep is not None and rep[17] == REP, "%s: a REP answers the REQ" % what):
            continue
        t.check(d["icrc_ok"], "%s: the REP's ICRC is scapy's" % what)
        t.check(struct.unpack("!Q", rep[8:16])[0] == tid, "%s: the REP keeps the REQ's "
                "transaction ID" % what)
        path = os.path.join(tmp, "%s_%d.pcap" % (name, frame))
        ep.write_pcap(path)
        rows = tshark_cm(path, ["infiniband.cm.rep", "infiniband.cm.rep.remotecommid",
                                "infiniband.cm.rep.localqpn", "infiniband.cm.rep.startpsn",
                                "infiniband.cm.rep.respres", "infiniband.cm.rep.private"])
        t.check(len(rows) == 2 and rows[1][0] == "CM: ConnectReply",
                "%s: tshark: %s" % (what, rows))
        info, local_id, remote_id, qpn, psn, respres, private = rows[1]
        t.check(int(remote_id, 16) == req_id, "%s: REP remote comm ID %s, REQ's local %#x"
                % (what, remote_id, req_id))
        t.check(int(psn, 16) == RESPONDER_PSN, "%s: REP starting PSN %s" % (what, psn))
        t.check(int(respres, 16) == min(init_depth, 16), "%s: REP responder resources %s for "
                "the REQ's initiator depth %d" % (what, respres, init_depth))
        region = bytes.fromhex(private.replace(":", ""))[:24]
        t.check(region[:4] == b"RSMR" and
                struct.unpack("!I", region[4:8])[0] == resp.info["rkey"] and
                struct.unpack("!Q", region[8:16])[0] == resp.info["va"],
                "%s: REP private data names the responder's region: %s" % (what, region.hex()))
        # RTU: the responder reports the connection and what it read from the REQ.
        rep_id = int(local_id, 16)
        ep.send(ud_packet(eip, rip, mad(RTU, tid, struct.pack("!II", req_id, rep_id))))
        ev = resp._next(lambda e: e.get("cm") == "connected", 5)
        t.check(ev is not None and ev["qpn"] == int(qpn, 16) and ev["peer_qpn"] == req_qpn
                and ev["peer_port"] == sport and ev["peer"] == "::ffff:" + eip,
                "%s: connected as the REP and REQ say: %s (REP QPN %s, REQ QPN %#x, "
                "rdma_cm port %d)" % (what, ev, qpn, req_qpn, sport))
        # DREQ -> DREP.
        ep.frames = []
        dreq_tid = tid + 1
        ep.send(ud_packet(eip, rip, mad(DREQ, dreq_tid, struct.pack("!II", req_id, rep_id) +
                                        int(qpn, 16).to_bytes(3, "big"))))
        d, drep = answer(ep, DREP)
        t.check(drep is not None and drep[17] == DREP and
                struct.unpack("!Q", drep[8:16])[0] == dreq_tid, "%s: a DREP answers the DREQ"
                % what)
        ep.write_pcap(path)
        rows = tshark_cm(path, ["infiniband.cm.drsp.localcommid",
                                "infiniband.cm.drsp.remotecommid"])
        t.check(len(rows) == 2 and rows[1] == ["CM: DisconnectReply", local_id, "0x%08x" % req_id],
                "%s: tshark: %s" % (what, rows))
        ev = resp._next(lambda e: e.get("cm") == "disconnected", 5)
        t.check(ev is not None, "%s: the responder reports the disconnect" % what)


def hostile(resp, ep, rip, eip):
    _, real = real_reqs("rping")[0]
    req = rewrite_req(real, eip, rip)
    bad = [req[:100],                                   # short
           req[:1] + b"\x04" + req[2:],                 # performance management class
           req[:2] + b"\x01" + req[2 + 1:],             # class version 1
           req[:3] + b"\x81" + req[4:],                 # a GetResp
           req[:16] + b"\x00\x19" + req[18:],           # LAP: not ours
           mad(RTU, 7, struct.pack("!II", 1, 2)),       # an RTU for nothing
           bytes(256)]
    for m in bad:
        ep.send(ud_packet(eip, rip, m))
    # A REQ with a foreign service ID is refused by name.
    foreign = bytearray(req)
    foreign[HDR + 11] = 0x3F
    ep.send(ud_packet(eip, rip, bytes(foreign)))
    got = [mad_of(d["raw"]) for d in ep.recv(1.0)]
    t.check(len(got) == 1 and got[0][17] == REJ and
            struct.unpack("!H", got[0][HDR + 10:HDR + 12])[0] == 8,
            "hostile MADs: no answer, and a REJ (invalid service ID) for the foreign REQ: %s"
            % [g[16:18].hex() for g in got])
    t.check(resp.proc.poll() is None, "the responder survives hostile MADs")


def rep_retries(resp, ep, rip, eip):
    """A REQ that announces a short response time (local CM response timeout 15: 134 ms)
    and 2 retries, whose REP is never answered: the REP goes out 3 times, 134 ms apart,
    then a REJ (timeout), and the responder lets the connection go."""
    _, real = real_reqs("rping")[0]
    req = bytearray(rewrite_req(real, eip, rip))
    req[HDR:HDR + 4] = struct.pack("!I", 0x5eed0001)           # a comm ID of its own
    req[HDR + 47] = (15 << 3) | (req[HDR + 47] & 7)
    req[HDR + 51] = (2 << 4) | (req[HDR + 51] & 15)
    ep.send(ud_packet(eip, rip, bytes(req)))
    # The first four MADs, however long a busy host takes to send them (10 s bounds a hang).
    got = [(d["ts"], mad_of(d["raw"])) for d in ep.recv(10.0, count=4)]
    kinds = [m[17] for _, m in got]
    t.check(kinds == [REP, REP, REP, REJ], "an unanswered REP: sent 3 times, then a REJ: %s"
            % kinds)
    if kinds == [REP, REP, REP, REJ]:
        # Spaced by the timer, never sooner: a load delays a retry, it cannot bring one
        # forward (the slack is for a receive time stamped late). No upper window (it was
        # 400 ms): a host loaded enough to delay a retry would fail it, the order the same.
        gaps = [b[0] - a[0] for a, b in zip(got, got[1:])]
        t.check(all(g >= 0.1 for g in gaps), "REP retries at least 134 ms apart: %s" % gaps)
        t.check(struct.unpack("!H", got[3][1][HDR + 10:HDR + 12])[0] == 4 and
                got[3][1][HDR + 8] >> 6 == 1, "the REJ says timeout, of a REP")
    ev = resp._next(lambda e: e.get("cm") == "timeout", 3)
    t.check(ev is not None and ev["peer_qpn"] == int.from_bytes(req[HDR + 32:HDR + 35], "big"),
            "the responder reports the timeout: %s" % ev)
    t.check(resp.state() == {}, "its QP is gone")


def req_retries(rip, eip):
    """Our REQ to an address where nobody answers: sent 4 times (our timeout code 18,
    1.07 s, and 3 retries), then a REJ (timeout), and one line from perf."""
    ep = r.Endpoint(eip)
    try:
        proc = t.spawn([t.ROCESHARK, "perf", "write_bw", "--bind", rip,
                        "--connect", "cm://" + eip, "-n", "10"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        got = [(d["ts"], mad_of(d["raw"])) for d in ep.recv(6.0, 5)]
        _, err = proc.communicate(timeout=10)
    finally:
        ep.close()
    kinds = [m[17] for _, m in got]
    t.check(kinds == [REQ] * 4 + [REJ], "an unanswered REQ: 4 times, then a REJ: %s" % kinds)
    if len(got) == 5:
        t.check(len({m[8:16] + m[HDR:HDR + 4] for _, m in got[:4]}) == 1,
                "the REQ's retries keep its transaction and communication IDs")
        gaps = [b[0] - a[0] for a, b in zip(got, got[1:])]
        t.check(all(1.0 <= g < 1.5 for g in gaps), "REQ retries 1.07 s apart: %s" % gaps)
    t.check(proc.returncode == 4 and err.count("\n") == 1 and
            "no answer to our REQ after 4 tries" in err, "perf: rc %d, %r" % (proc.returncode,
                                                                           err))


def our_req(tmp, rip, eip):
    """Our REQ, caught by a bare endpoint, against the real one; a REJ ends our client."""
    ep = r.Endpoint(eip)
    try:
        proc = t.spawn([t.ROCESHARK, "perf", "send_bw", "--bind", rip,
                        "--connect", "cm://%s:7174" % eip, "-n", "10"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        d, req = answer(ep, REQ)
        if not t.check(req is not None and req[17] == REQ, "our client sends a REQ"):
            proc.kill()
            proc.wait()
            return
        t.check(d["icrc_ok"], "our REQ's ICRC is scapy's")
        path = os.path.join(tmp, "ours.pcap")
        ep.write_pcap(path)
        tid = struct.unpack("!Q", req[8:16])[0]
        req_id = struct.unpack("!I", req[HDR:HDR + 4])[0]
        ep.send(ud_packet(eip, rip, mad(REJ, tid, struct.pack("!IIBBH", 0, req_id, 0, 0, 28))))
        _, err = proc.communicate(timeout=10)
        t.check(proc.returncode != 0 and err.count("\n") == 1 and
                "rejected" in err and "consumer reject" in err,
                "a REJ ends our client with one line: %r" % err)
    finally:
        ep.close()

    def names(path, frame_filter):
        out = t.run(["tshark", "-r", path, "-Y", frame_filter, "-T", "pdml"]).stdout
        return {line.split('"')[1] for line in out.splitlines()
                if 'name="infiniband.cm.' in line}

    theirs = names(capture("rping"), "frame.number == 1")
    mine = names(path, "infiniband.cm.req")
    t.check(mine == theirs and len(mine) > 40, "our REQ has the real REQ's CM fields in "
            "tshark: missing %s, extra %s" % (sorted(theirs - mine), sorted(mine - theirs)))
    rows = tshark_cm(path, ["infiniband.cm.req.serviceid.dport", "infiniband.cm.req.ip_cm.sip4",
                            "infiniband.cm.req.ip_cm.dip4", "infiniband.cm.req.localqpn"])
    t.check(rows == [["CM: ConnectRequest", "0x1c06", rip, eip, "0x000011"]],
            "our REQ in tshark: %s" % rows)


def other_port(rip, eip):
    """responder --cm-port 18515 refuses rping's REQ (port 7174): REJ, invalid service ID."""
    resp = r.Responder(["--bind", rip, "--cm-port", "18515", "--no-listen"])
    ep = r.Endpoint(eip)
    try:
        _, real = real_reqs("rping")[0]
        ep.send(ud_packet(eip, rip, rewrite_req(real, eip, rip)))
        _, rej = answer(ep, REJ)
        t.check(rej is not None and rej[17] == REJ and
                struct.unpack("!H", rej[HDR + 10:HDR + 12])[0] == 8 and
                struct.unpack("!I", rej[HDR + 4:HDR + 8])[0] == 0x6ec0c56d,
                "--cm-port 18515: rping's REQ for 7174 gets a REJ (invalid service ID)")
        t.check(resp.state() == {}, "--cm-port: no QP for a refused REQ")
    finally:
        ep.close()
        resp.stop()


def full(rip, cip):
    """Connect, traffic, disconnect; over IPv6 too (CM's GIDs the IPv6 addresses)."""
    resp = r.Responder(["--bind", rip, "--cm", "--no-listen", "--recv", "512", "--repost"])
    target = "[%s]" % rip if r.is_v6(rip) else rip
    try:
        runs = [["write_bw", "--connect", "cm://" + target, "-s", "65536", "-n", "64"],
                ["send_bw", "--connect", "cm://" + target, "-s", "4096", "-n", "256"]]
        for args in runs:
            p = subprocess.run([t.ROCESHARK, "perf"] + args + ["--bind", cip, "--json"],
                               capture_output=True, text=True, timeout=60)
            t.check(p.returncode == 0 and '"iterations": %s' % args[-1] in p.stdout,
                    "perf %s over CM: rc %d %s %s" % (args[0], p.returncode, p.stdout[-300:],
                                                      p.stderr))
            up = resp._next(lambda e: e.get("cm") == "connected", 5)
            down = resp._next(lambda e: e.get("cm") == "disconnected", 5)
            peer = r.plain(cip) if r.is_v6(cip) else "::ffff:" + cip
            t.check(up is not None and down is not None and up["id"] == down["id"] and
                    up["peer"] == peer,
                    "perf %s: the responder saw REQ/RTU and DREQ: %s %s" % (args[0], up, down))
        t.check(resp.state() == {}, "every CM QP is gone after its DREQ")
    finally:
        resp.stop()


CM_NAMES = {"CM: ConnectRequest": "REQ", "CM: ConnectReply": "REP", "CM: ReadyToUse": "RTU",
            "CM: DisconnectRequest": "DREQ", "CM: DisconnectReply": "DREP"}
PERFTEST_R_RUNS = [("write_bw", ["-s", "65536", "-n", "200"]),
                   ("read_bw", ["-s", "16384", "-n", "200"]),
                   ("send_bw", ["-s", "4096", "-n", "300"]),
                   ("write_lat", ["-s", "64", "-n", "300"])]


def table_row(out):
    """The (header, row) of perf's one result table, or (None, None)."""
    lines = out.splitlines()
    heads = [i for i, x in enumerate(lines) if x.startswith(" #bytes")]
    if len(heads) != 1 or heads[0] + 1 >= len(lines):
        return None, None
    return lines[heads[0]], lines[heads[0] + 1].split()


def perftest_r_pair(test, args, sip, cip, port):
    """`perf TEST -R` as server and as client: both tables, both exits, the setup over CM."""
    what = "perf %s -R over %s" % (test, "IPv6" if r.is_v6(sip) else "IPv4")
    target = "[%s]:%d" % (sip, port) if r.is_v6(sip) else "%s:%d" % (sip, port)
    srv = t.spawn([t.ROCESHARK, "perf", test, "-R", "--bind", sip, "-p", str(port)]
                  + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)     # its QP 1 bound (a REQ before then is sent again 1 s later)
    cli = subprocess.run([t.ROCESHARK, "perf", test, "-R", "--bind", cip, "--connect", target]
                         + args, capture_output=True, text=True, timeout=60)
    try:
        s_out, s_err = srv.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        srv.kill()
        s_out, s_err = srv.communicate()
    if not t.check(cli.returncode == 0 and srv.returncode == 0,
                   "%s: both succeed: client rc %d %r, server rc %s %r"
                   % (what, cli.returncode, cli.stderr, srv.returncode, s_err)):
        return
    size, iters = args[1], int(args[3])
    for side, out in (("client", cli.stdout), ("server", s_out)):
        header, row = table_row(out)
        if not t.check(row is not None, "%s: the %s prints one table: %s" % (what, side, out)):
            continue
        # Both sides say -n iterations, as perftest's do.
        want = iters
        t.check(row[0] == size and int(row[1]) == want,
                "%s: the %s's table: %s bytes, %d iterations: %s" % (what, side, size, want, row))
        t.check("remote address: IP %s QPN" % r.plain(cip if side == "server" else sip) in out,
                "%s: the %s names its peer" % (what, side))
    if test in ("write_bw", "read_bw"):
        t.check(table_row(cli.stdout)[1] == table_row(s_out)[1],
                "%s: the server prints the client's BW report" % what)


def perftest_r(tmp):
    """perf -R against perf -R: perftest -R's protocol on both sides, over IPv4 and IPv6,
    with each setup's MADs checked in tshark: per run, two connections (perftest's
    channel and the test QP), each REQ, REP, RTU, DREQ, DREP, all for rdma_cm's port."""
    path = os.path.join(tmp, "perftest_r.pcap")
    cap = t.spawn([t.ROCESHARK, "capture", "-i", "lo", "-w", path, "-f",
                   "udp port 4791"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                  text=True)
    line = cap.stderr.readline()     # said once it captures
    t.check(line.startswith("capture: lo"), "capture started: %r" % line)
    v4 = r.addresses(2)
    v6 = r.addresses6(2)
    ports = {}
    try:
        for sip, cip in (v4, v6):
            for test, args in PERFTEST_R_RUNS:
                port = 18515 if not r.is_v6(sip) else 7000 + len(ports)
                ports[(sip, test)] = port
                perftest_r_pair(test, args, sip, cip, port)
    finally:
        time.sleep(0.5)
        cap.send_signal(signal.SIGINT)
        cap.communicate(timeout=10)
    out = t.run(["tshark", "-r", path, "-Y", "infiniband.mad", "-T", "fields",
                 "-e", "_ws.col.Info", "-e", "ip.src", "-e", "ipv6.src",
                 "-e", "infiniband.cm.req.serviceid.dport",
                 "-e", "infiniband.mad.transactionid"]).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    # A message sent again with its transaction ID (a REQ while the server is not yet up, a
    # REP or DREP whose answer was late on a loaded host: the CM's timeouts) counts once.
    seen, once = set(), []
    for row in rows:
        key = (row[0], row[1] or row[2], row[4])
        if key in seen:
            continue
        seen.add(key)
        once.append(row)
    rows = once
    n = len(PERFTEST_R_RUNS)
    for family, addrs in (("IPv4", v4), ("IPv6", v6)):
        mine = [row for row in rows if (row[1] or row[2]) in addrs]
        kinds = {}
        for row in mine:
            kinds[CM_NAMES.get(row[0], row[0])] = kinds.get(CM_NAMES.get(row[0], row[0]), 0) + 1
        want = {k: 2 * n for k in ("REQ", "REP", "RTU", "DREQ", "DREP")}
        t.check(kinds == want, "perf -R over %s: tshark sees 2 connections a run, each "
                "REQ/REP/RTU/DREQ/DREP: %s, want %s" % (family, kinds, want))
        dports = sorted(int(row[3], 16) if row[3].startswith("0x") else int(row[3])
                        for row in mine if row[3])
        want_ports = sorted(2 * [ports[(addrs[0], test)] for test, _ in PERFTEST_R_RUNS])
        t.check(dports == want_ports, "perf -R over %s: every REQ for rdma_cm's port -p: %s"
                % (family, dports))


def perf(args, timeout=30):
    return subprocess.run([t.ROCESHARK, "perf"] + args, capture_output=True, text=True,
                          timeout=timeout)


def one_line(p, *texts):
    """p failed with one line on stderr holding every text."""
    return p.returncode != 0 and p.stderr.count("\n") == 1 and \
        p.stderr.startswith("roceshark: ") and all(x in p.stderr for x in texts)


def against_server(server_args, client_args):
    """Our client against our server: (the client's result, the server's rc and stderr,
    or None and "" for a server still waiting, then killed)."""
    srv = t.spawn([t.ROCESHARK, "perf"] + server_args, stdout=subprocess.PIPE,
                  stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.3)
        p = perf(client_args)
        try:
            _, s_err = srv.communicate(timeout=3)
            return p, srv.returncode, s_err
        except subprocess.TimeoutExpired:
            return p, None, ""
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.communicate()


def perftest_r_failures(cip, eip):
    """A -R client with no server: one line and a non-zero exit within a few seconds; one
    against a -R server of another port: rejected (invalid service ID); one against our
    responder, which speaks cm://, and a cm:// client against a -R server: each side told
    in one line at once."""
    client = ["write_bw", "-R", "--bind", cip, "--connect", eip, "-n", "10"]
    start = time.monotonic()
    p = perf(client)
    took = time.monotonic() - start
    t.check(one_line(p, "no answer to our REQ") and took < 8,
            "perf -R without a server: rc %d in %.1f s: %r" % (p.returncode, took, p.stderr))
    # A server on another rdma_cm port refuses the REQ as an unbound port does.
    p, s_rc, _ = against_server(["write_bw", "-R", "--bind", eip, "-p", "18600"], client)
    t.check(one_line(p, "rejected the REQ: invalid service ID (reason 8)"),
            "perf -R to a server of another port: rc %d %r" % (p.returncode, p.stderr))
    t.check(s_rc is None, "the server of port 18600 waits on")
    # Our responder's client (cm://) against a -R server: the REP names no region; the
    # client says so and disconnects, and the server, waiting for perftest's version, fails.
    p, s_rc, s_err = against_server(["write_bw", "-R", "--bind", eip],
                                    ["write_bw", "--bind", cip, "--connect", "cm://" + eip])
    t.check(one_line(p, "names no region to WRITE", "use -R"),
            "perf cm:// against a -R server: rc %d %r" % (p.returncode, p.stderr))
    t.check(s_rc == 4 and s_err == "roceshark: perf: perftest version: the peer "
            "disconnected\n", "the -R server of a cm:// client: rc %s %r" % (s_rc, s_err))
    resp = r.Responder(["--bind", eip, "--cm", "--no-listen"])
    try:
        p = perf(client)
        t.check(one_line(p, "speaks cm://, not perftest -R"),
                "perf -R against responder --cm: rc %d %r" % (p.returncode, p.stderr))
        down = resp._next(lambda e: e.get("cm") == "disconnected", 5)
        t.check(down is not None, "perf -R lets the responder's connection go: %s" % down)
    finally:
        resp.stop()
    p = perf(["write_bw", "-R", "--bind", cip, "--connect", "cm://" + eip], timeout=10)
    t.check(p.returncode == 1 and one_line(p, "-R"),
            "-R with cm:// is a usage error: %r" % p.stderr)


def perftest_r_client(rip, eip):
    """`perf write_bw -R` as server against perftest 4.5-0.17's -R client, scripted from its
    source (perftestr.py): version 6.06, the key message's stack padding and its PSN that is
    not the QP's, no traffic, its BW report, and its DREQ crossing the server's."""
    srv = t.spawn([t.ROCESHARK, "perf", "write_bw", "-R", "--bind", rip, "-n", "1000"],
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ep = r.Endpoint(eip)
    ep.accept = {rip}
    what = "perftest 4.5's -R client against perf -R"
    try:
        time.sleep(0.3)
        _, real = real_reqs("rping")[0]
        cl = perftestr.Client(ep, rip, rewrite_req(real, eip, rip), ud_packet)
        chan = cl.connect("chan", 0x100, 0x111111, 18515, 0x7e570001)
        if not t.check(chan is not None and chan["private"] == bytes(len(chan["private"])),
                       "%s: the channel's REP, with no private data" % what):
            return
        for name, mine, want in perftestr.preamble(b"6.06"):
            got = cl.step("chan", mine)
            if not t.check(got == want, "%s: %s: %r, want %r" % (what, name, got, want)):
                return
        test = cl.connect("test", 0x101, 0x222222, 18515, 0x7e570002)
        if not t.check(test is not None and cl.step("chan", perftestr.key()) == bytes(56),
                       "%s: the test QP's REQ/REP/RTU between two zero barriers" % what):
            return
        ours = perftestr.key(0x101, 0x0ABCDE, 0x1234, 0x7F0000001000, gid(eip), 16, 3)
        for i in range(3):
            got = cl.step("chan", ours)
            if not t.check(got is not None and len(got) == 56, "%s: keys %d" % (what, i)):
                return
            lid, out_reads, qpn, psn, rkey = struct.unpack("!iiiiI", got[:20])
            t.check(qpn == test["peer_qpn"] and psn == test["peer_psn"] and rkey != 0 and
                    got[20:24] == bytes(4) and got[32:48] == gid(rip) and out_reads > 0,
                    "%s: the server's keys name the CM's QP and its region: %s" % (what,
                                                                                  got.hex()))
        # The end: a barrier, the BW report's five fields, the closing barrier.
        report = [struct.pack("!Q", 65536), struct.pack("!Q", 1000), struct.pack("!d", 1234.5),
                  struct.pack("!d", 1200.25), struct.pack("!d", 0.0192)]
        got = [cl.step("chan", ours)] + [cl.step("chan", f) for f in report] + \
            [cl.step("chan", ours)]
        t.check(None not in got and got[1:6] == [bytes(8)] * 5,
                "%s: the server answers the report with zeros: %s" % (what, got))
        cl.dreq("test")
        drep = cl.wait_mad(DREP)
        theirs = cl.wait_mad(DREQ, 1.0)     # crossed ours, or never sent: either is Linux's
        if theirs is not None:
            cl.drep_for(theirs)
        t.check(drep is not None, "%s: the test QP's DREQ gets a DREP" % what)
        cl.dreq("chan")
        t.check(cl.wait_mad(DREP) is not None, "%s: the channel's DREQ gets a DREP" % what)
        out, err = srv.communicate(timeout=10)
        _, row = table_row(out)
        t.check(srv.returncode == 0 and row == ["65536", "1000", "1234.50", "1200.25",
                                                "0.019200"],
                "%s: the server prints the client's report: rc %s %s %r" % (what,
                                                                            srv.returncode,
                                                                            row, err))
    finally:
        ep.close()
        if srv.poll() is None:
            srv.kill()
            srv.communicate()


def real_mad(name, what):
    """The first MAD of a capture that tshark's filter what selects."""
    out = t.run(["tshark", "-r", capture(name), "-Y", what, "-T", "fields",
                 "-e", "infiniband.mad"]).stdout
    return bytes.fromhex(out.splitlines()[0].replace(":", ""))


def perftest_r_server(sip, cip):
    """`perf write_bw -R` as client against perftest 25.01's -R server, scripted from its
    source (perftestr.py): the test QP's first REQ finds no listener yet (REJ, invalid
    service ID) and is tried again, the WRITE lands in the region the keys name, the server
    sends the test QP's DREQ and the client then the channel's."""
    ep = r.Endpoint(sip)
    ep.accept = {cip}
    what = "perf -R against perftest 25.01's -R server"
    rep = real_mad("rping", "infiniband.cm.rep")
    cli = t.spawn([t.ROCESHARK, "perf", "write_bw", "-R", "--bind", cip, "--connect",
                   sip, "-s", "64", "-n", "1"], stdout=subprocess.PIPE,
                  stderr=subprocess.PIPE, text=True)
    try:
        sv = perftestr.Server(ep, cip, rep, ud_packet)
        req = sv.wait_req()
        if not t.check(req is not None and req["port"] == 18515 and
                       req["private"] == bytes(len(req["private"])),
                       "%s: the channel's REQ for 18515 with no private data" % what) or \
                not t.check(sv.accept("chan", req, 0x200, 0x333333, 0x5e000001),
                            "%s: the channel's RTU" % what):
            return
        for name, mine, want in perftestr.preamble(b"6.24"):
            got = sv.step("chan")
            if not t.check(got == want, "%s: %s: %r, want %r" % (what, name, got, want)):
                return
            sv.send("chan", mine)
        first = sv.wait_req()
        if not t.check(first is not None, "%s: the test QP's REQ" % what):
            return
        sv.reject(first)
        req = sv.wait_req()
        if not t.check(req is not None and req["remote"] != first["remote"] and
                       sv.accept("test", req, 0x201, 0x444444, 0x5e000002),
                       "%s: after a REJ (no listener yet) a new REQ, REP, RTU" % what):
            return
        ours = perftestr.key(0x201, 0x0ABCDE, 0x5678, 0x7F1000000000, gid(sip), 16, 3)
        for name, mine in [("zero keys", perftestr.key())] + [("keys", ours)] * 3:
            got = sv.step("chan")
            if not t.check(got is not None and len(got) == 56, "%s: %s" % (what, name)):
                return
            sv.send("chan", mine)
        qpn, psn = struct.unpack("!ii", got[8:16])
        t.check(qpn == req["peer_qpn"] and got[32:48] == gid(cip),
                "%s: the client's keys name the QP it connected: %s" % (what, got.hex()))
        write = sv.packet("test")
        t.check(write is not None and write["opcode"] == r.WRITE_ONLY and
                write["reth"] == (0x7F1000000000, 0x5678, 64),
                "%s: the WRITE to the keys' region: %s" % (what, write and write.get("reth")))
        # The end: a barrier, the BW report, the closing barrier, then our DREQ.
        got = []
        for mine in [ours] + [bytes(8)] * 5 + [ours]:
            got.append(sv.step("chan"))
            sv.send("chan", mine)
        t.check(None not in got and struct.unpack("!QQ", got[1] + got[2]) == (64, 1),
                "%s: the client's report: %s" % (what, got[1:3]))
        sv.dreq("test")
        t.check(sv.wait_mad(DREP) is not None, "%s: the test QP's DREQ gets a DREP" % what)
        dreq = sv.wait_mad(DREQ)
        if t.check(dreq is not None and dreq[HDR + 4:HDR + 8] == struct.pack("!I", 0x5e000001),
                   "%s: then the client disconnects the channel" % what):
            sv.drep_for(dreq)
        out, err = cli.communicate(timeout=10)
        _, row = table_row(out)
        t.check(cli.returncode == 0 and row is not None and row[:2] == ["64", "1"],
                "%s: the client's table: rc %s %s %r" % (what, cli.returncode, row, err))
    finally:
        ep.close()
        if cli.poll() is None:
            cli.kill()
            cli.communicate()


def info_names(name):
    """`read`'s CM names against tshark's Info column, frame by frame."""
    ours = t.run([t.ROCESHARK, "read", "-r", capture(name), "-Y",
                  "infiniband.bth.destqp == 1"]).stdout
    ours = ["CM: " + line.split(" CM: ")[1] for line in ours.splitlines() if " CM: " in line]
    theirs = [row[0] for row in tshark_cm(capture(name), [])]
    t.check(ours == theirs and len(ours) >= 5, "%s: read's Info names the CM MADs as tshark "
            "does: %s vs %s" % (name, ours, theirs))


def main():
    for name in CAPTURES:
        info_names(name)
    rip, eip, cip = r.addresses(3)
    with tempfile.TemporaryDirectory() as tmp:
        resp = r.Responder(["--bind", rip, "--cm", "--no-listen", "--psn", str(RESPONDER_PSN)])
        ep = r.Endpoint(eip)
        ep.accept = {rip}
        try:
            hostile(resp, ep, rip, eip)
            rep_retries(resp, ep, rip, eip)
            for name in CAPTURES:
                passive_side(tmp, name, resp, ep, rip, eip)
        finally:
            ep.close()
            resp.stop()
        our_req(tmp, cip, eip)
        req_retries(cip, eip)
        other_port(r.addresses(1)[0], eip)
        full(rip, cip)
        full(*r.addresses6(2))
        perftest_r(tmp)
        perftest_r_client(*r.addresses(2))
        perftest_r_server(*r.addresses(2))
        perftest_r_failures(*r.addresses(2))
    t.finish("cm")


if __name__ == "__main__":
    main()
