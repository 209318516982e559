#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rping (librdmacm's example) over our stack: `perf rping` (its client) against
`responder --cm` (its server loop on port 7174), over IPv4 and IPv6, at rping's default
size and at several MTUs:
- the client prints rping's "ping data: ..." lines, one per ping, with rping's data (its
  header and letters, worked out here from rping's rules), and validates them (-V);
- the responder reports each ping it READ and the end of the connection;
- a capture of lo shows, per ping, the messages the real rping capture shows in the same
  order (the client's SEND, the server's READ, its response, the go-ahead, the client's
  SEND, the server's WRITE, the go-ahead), the advertisements naming what is READ and
  WRITTEN, and the go-aheads 16 zero bytes; every ICRC is good, and tshark reads the same
  opcodes and PSNs;
- `--app none` leaves rping's client waiting, which says why after 5 s; `--app rping`
  serves another port;
- a peer that speaks CM as rping does (the real REQ) and then sends a short advertisement,
  one whose R_Key names nothing (the READ meets a NAK), or two without waiting for the
  go-ahead, gets a DREQ and a line saying why, and the responder goes on serving.
Nothing leaves loopback."""
import os
import struct
import subprocess
import time

import rcpeer as r
import rstest as t
import test_cm as cm

SIZE_LARGE = 9000           # nine 1024-byte MTUs
PINGS = 10


def rping_data(ping, size):
    """What rping's client puts in its buffer for a ping: "rdma-ping-N: ", then the letters
    'A'..'z' in a cycle that starts N places after 'A', and a NUL in the last byte."""
    out = bytearray(("rdma-ping-%d: " % ping).encode()[:size])
    c = ord("A") + ping % 58
    while len(out) < size:
        out.append(c)
        c = ord("A") if c == ord("z") else c + 1
    out[size - 1] = 0
    return bytes(out)


def stop(resp, what):
    """Stops a responder; it must leave as it should (no sanitizer's complaint on the way)."""
    final = resp.stop()
    t.check(final is not None and resp.proc.returncode == 0,
            "%s: the responder exits cleanly: rc %s" % (what, resp.proc.returncode))


def rping(args, timeout=60):
    return subprocess.run([t.ROCESHARK, "perf", "rping"] + args, capture_output=True,
                          text=True, timeout=timeout)


def run_pings(resp, rip, cip, size, pings, extra=()):
    """Our client against the responder; checks what both print."""
    target = "[%s]" % rip if r.is_v6(rip) else rip
    what = "rping -S %d -C %d %s -> %s" % (size, pings, cip, rip)
    p = rping(["--bind", cip, "--connect", target, "-C", str(pings), "-S", str(size), "-v",
               "-V", "--json"] + list(extra))
    lines = p.stdout.splitlines()
    want = ["ping data: " + rping_data(i, size)[:-1].decode() for i in range(pings)]
    t.check(p.returncode == 0 and p.stderr == "", "%s: rc %d, %r" % (what, p.returncode,
                                                                   p.stderr))
    t.check(lines[:-1] == want, "%s: rping's lines, rping's data: %s" % (what, lines[:2]))
    t.check(len(lines) == pings + 1 and '"pings": %d' % pings in lines[-1] and
            '"validated": true' in lines[-1], "%s: summary %s" % (what, lines[-1:]))
    up = resp._next(lambda e: e.get("cm") == "connected", 5)
    seen = []
    for _ in range(pings):
        ev = resp._next(lambda e: e.get("rping") == "ping", 5)
        if ev is None:
            break
        seen.append(ev)
    t.check([e["data"] for e in seen] == [rping_data(i, size)[:-1].decode()
                                          for i in range(pings)] and
            [e["ping"] for e in seen] == list(range(pings)),
            "%s: the responder READ every ping: %d of %d" % (what, len(seen), pings))
    down = resp._next(lambda e: e.get("cm") == "disconnected", 5)
    done = resp._next(lambda e: e.get("rping") in ("done", "failed"), 5)
    peer = r.plain(cip) if r.is_v6(cip) else "::ffff:" + cip
    t.check(up is not None and down is not None and up["peer"] == peer and
            done == {"rping": "done", "id": up["id"], "qpn": up["qpn"], "pings": pings},
            "%s: the client's DREQ ended it after %d pings: %s %s" % (what, pings, down, done))


# --- The message pattern, from a capture ---

KIND = {0x04: "SEND", 0x0c: "READ", 0x0d: "READ_RESPONSE", 0x0e: "READ_RESPONSE",
        0x0f: "READ_RESPONSE", 0x10: "READ_RESPONSE", 0x06: "WRITE", 0x07: "WRITE",
        0x08: "WRITE", 0x0a: "WRITE"}


def messages(path, client, frames=""):
    """The RC messages of a capture (those of a display filter), in order, as (side, kind,
    RETH, first payload): packets of one READ response or WRITE counted once, ACKs and CM
    MADs left out."""
    rows = t.roceshark_fields(path, ["ip.src", "ipv6.src", "infiniband.bth.destqp",
                                     "infiniband.bth.opcode", "infiniband.reth.va",
                                     "infiniband.reth.r_key", "infiniband.reth.dmalen",
                                     "roceshark.payload"], ["-Y", frames] if frames else [])
    out = []
    for src4, src6, dqp, op, va, rkey, dmalen, payload in rows:
        kind = KIND.get(int(op, 0)) if op else None
        if kind is None or int(dqp, 0) == 1:
            continue
        side = "client" if r.plain(src4 or src6) == r.plain(client) else "server"
        op = int(op, 0)
        if op in (0x0e, 0x0f, 0x07, 0x08):      # middle and last packets: the same message
            continue
        reth = (int(va, 0), int(rkey, 0), int(dmalen, 0)) if va else None
        out.append((side, kind, reth, bytes.fromhex(payload.replace(":", ""))))
    return out


def per_ping(msgs):
    """The messages cut into pings: each ends with the server's SEND after its WRITE."""
    pings, cur = [], []
    for m in msgs:
        cur.append(m)
        if m[:2] == ("server", "SEND") and len(cur) > 1 and cur[-2][:2] == ("server", "WRITE"):
            pings.append(cur)
            cur = []
    if cur:
        pings.append(cur)
    return pings


def check_pattern(path, client, frames, size, pings, what):
    real = per_ping(messages(cm.capture("rping"), "10.1.16.62"))
    shape = [(side, kind) for side, kind, _, _ in real[0]]
    t.check(len(real) == 5 and all([(s, k) for s, k, _, _ in p] == shape for p in real),
            "the real capture: 5 pings of %s" % shape)
    ours = per_ping(messages(path, client, frames))
    t.check(len(ours) == pings and all([(s, k) for s, k, _, _ in p] == shape for p in ours),
            "%s: %d pings of the real capture's messages: %s" %
            (what, len(ours), [[(s, k) for s, k, _, _ in p] for p in ours[:1]]))
    for i, p in enumerate(ours):
        if len(p) != len(shape):
            break
        src_adv, read, resp, go1, sink_adv, write, go2 = p
        src = struct.unpack("!QII", src_adv[3])
        sink = struct.unpack("!QII", sink_adv[3])
        data = rping_data(i, size)
        ok = (read[2] == src and src[2] == size and write[2] == sink and sink[2] == size and
              resp[3] == data[:len(resp[3])] and write[3] == data[:len(write[3])] and
              go1[3] == bytes(16) and go2[3] == bytes(16))
        if not t.check(ok, "%s: ping %d: the READ and WRITE are what the SENDs advertised, "
                       "they carry the ping's data, the go-aheads are zeros: %s %s %s %s"
                       % (what, i, src, read[2], sink, write[2])):
            break


# --- A peer that breaks rping's rules, from scapy ---

def connect_raw(resp, ep, rip, eip, comm_id):
    """REQ (the real rping REQ, with a communication ID of its own), REP, RTU; returns
    (REQ's comm ID, REP's comm ID, the responder's QPN, our first PSN, our QPN)."""
    _, real = cm.real_reqs("rping")[0]
    req = bytearray(cm.rewrite_req(real, eip, rip))
    req[cm.HDR:cm.HDR + 4] = struct.pack("!I", comm_id)
    tid = struct.unpack("!Q", req[8:16])[0]
    psn = int.from_bytes(req[cm.HDR + 44:cm.HDR + 47], "big")
    our_qpn = int.from_bytes(req[cm.HDR + 32:cm.HDR + 35], "big")
    ep.send(cm.ud_packet(eip, rip, bytes(req)))
    _, rep = cm.answer(ep)
    if rep is None or rep[17] != cm.REP:
        return None
    rep_id = struct.unpack("!I", rep[cm.HDR:cm.HDR + 4])[0]
    qpn = int.from_bytes(rep[cm.HDR + 12:cm.HDR + 15], "big")
    ep.send(cm.ud_packet(eip, rip, cm.mad(cm.RTU, tid, struct.pack("!II", comm_id, rep_id))))
    resp._next(lambda e: e.get("cm") == "connected", 5)
    return comm_id, rep_id, qpn, psn, our_qpn


def await_dreq(ep, rip, eip, ids, nak_read=None):
    """What the responder sends until its DREQ (answered with a DREP); nak_read: answer a
    READ request with this NAK. Returns the opcodes seen and whether a DREQ came."""
    seen, end = [], time.time() + 5
    while time.time() < end:
        for d in ep.recv(0.5):
            m = cm.mad_of(d["raw"])
            if m is not None and m[17] == cm.DREQ:
                tid = struct.unpack("!Q", m[8:16])[0]
                ep.send(cm.ud_packet(eip, rip, cm.mad(cm.DREP, tid, struct.pack("!II", *ids[:2]))))
                return seen, True
            seen.append(d["opcode"])
            if d["opcode"] == r.READ_REQ and nak_read is not None:
                ep.send(r.response(eip, rip, ids[2], d["psn"], r.ACK, syndrome=nak_read,
                                   msn=1))
    return seen, False


def hostile(rip, eip, cip):
    err_path = os.path.join(t.tempdir(), "responder.err")
    err = open(err_path, "w")
    resp = r.Responder(["--bind", rip, "--cm", "--no-listen"], stderr=err)
    ep = r.Endpoint(eip)
    ep.accept = {rip}
    try:
        adv = struct.pack("!QII", 0x5b269382e5e0, 0xdead, 64)
        cases = [("a 15-byte advertisement", [bytes(15)], None, "15 bytes, not 16"),
                 ("an advertisement of an R_Key for nothing", [adv], r.NAK_ACC,
                  "the READ of the client's source buffer (64 bytes at 0x5b269382e5e0, R_Key "
                  "0xdead) failed: REM_ACCESS_ERR"),
                 ("a second advertisement before the go-ahead", [adv, adv], None,
                  "while our READ was under way: the client did not wait for the go-ahead")]
        for k, (what, payloads, nak, why) in enumerate(cases):
            c = connect_raw(resp, ep, rip, eip, 0x5eed0100 + k)
            if not t.check(c is not None, "%s: connected" % what):
                continue
            req_id, rep_id, qpn, psn, our_qpn = c
            for i, payload in enumerate(payloads):
                ep.send(r.request(eip, rip, qpn, psn + i, r.SEND_ONLY, payload=payload))
            seen, dreq = await_dreq(ep, rip, eip, (req_id, rep_id, qpn), nak)
            t.check(dreq, "%s: the responder disconnects (DREQ) after %s" % (what, seen))
            down = resp._next(lambda e: e.get("cm") == "disconnected", 5)
            t.check(down is not None and down["peer_qpn"] == our_qpn,
                    "%s: the DREP ends the connection: %s" % (what, down))
            ev = resp._next(lambda e: e.get("rping") in ("failed", "done"), 5)
            t.check(ev is not None and ev["rping"] == "failed" and ev["pings"] == 0 and
                    why in ev.get("error", ""), "%s: it says why: %s" % (what, ev))
        t.check(resp.proc.poll() is None and resp.state() == {},
                "the responder survives, its QPs gone")
        run_pings(resp, rip, cip, 64, 2)
    finally:
        ep.close()
        stop(resp, "hostile peers")
        err.close()
    with open(err_path) as f:
        log = f.read()
    t.check(log.count("roceshark: responder: rping: QP ") == 3 and "disconnecting" in log and
            log.count("\n") == 3, "one line on stderr for each: %r" % log)


def apps(rip, cip):
    """--app none: rping's client waits for a go-ahead that never comes, and says so;
    --app rping: rping's loop on another port (rping -p)."""
    resp = r.Responder(["--bind", rip, "--cm", "--no-listen", "--app", "none"])
    try:
        start = time.time()
        p = rping(["--bind", cip, "--connect", rip, "-C", "1"])
        t.check(p.returncode != 0 and p.stderr.count("\n") == 1 and
                "no go-ahead from the server within 5 s" in p.stderr and
                time.time() - start < 15, "--app none: %r" % p.stderr)
    finally:
        stop(resp, "--app none")
    resp = r.Responder(["--bind", rip, "--cm", "--no-listen", "--app", "rping"])
    try:
        p = rping(["--bind", cip, "--connect", "cm://%s:9999" % rip, "-C", "3", "-V"])
        t.check(p.returncode == 0 and p.stdout == "", "--app rping on port 9999, no -v: "
                "rc %d %r %r" % (p.returncode, p.stdout, p.stderr))
    finally:
        stop(resp, "--app rping")


def usage():
    for args, text in [(["-C", "1"], "give --target"),
                       (["--connect", "perftest://127.0.0.1", "--bind", "127.0.0.2"],
                        "through RDMA CM"),
                       (["--connect", "127.0.0.1", "--bind", "127.0.0.2", "-S", "25"],
                        "-S 25: expected 26..65535"),
                       (["--connect", "127.0.0.1", "--bind", "127.0.0.2", "-C", "-1"], "-C")]:
        p = rping(args)
        t.check(p.returncode == 1 and text in p.stderr and p.stderr.count("\n") == 1,
                "perf rping %s: %r" % (" ".join(args), p.stderr))


def main():
    usage()
    rip, cip, eip, cip2 = r.addresses(4)
    rip6, cip6 = r.addresses6(2)
    pcap = os.path.join(t.tempdir(), "rping.pcap")
    cap = t.dumpcap("lo", pcap, "udp port 4791 and (host %s or host %s)" % (cip, cip6))
    for resp_ip, client_ip in [(rip, cip), (rip6, cip6)]:
        resp = r.Responder(["--bind", resp_ip, "--cm", "--no-listen"])
        try:
            run_pings(resp, resp_ip, client_ip, 64, PINGS)
            run_pings(resp, resp_ip, client_ip, SIZE_LARGE, 4, ["-m", "1024"])
        finally:
            stop(resp, resp_ip)
    t.stop_dumpcap(cap)
    for client_ip in (cip, cip6):
        # The two runs of one address pair, split at the CM's second REQ: each REQ once by
        # its transaction ID, since a CM sends a REQ again when the REP is slow to come.
        host = "ipv6.src" if r.is_v6(client_ip) else "ip.src"
        rows = t.roceshark_fields(pcap, ["frame.number", "infiniband.mad.transactionid"],
                                  ["-Y", "infiniband.mad.attributeid == 0x0010 && "
                                   "infiniband.mad.method == 0x03 && %s == %s"
                                   % (host, r.plain(client_ip))])
        reqs, tids = [], set()
        for number, tid in rows:
            if tid not in tids:
                tids.add(tid)
                reqs.append(int(number))
        if not t.check(len(reqs) == 2, "%s: two REQs captured" % client_ip):
            continue
        for (first, last), size, pings in [((reqs[0], reqs[1]), 64, PINGS),
                                           ((reqs[1], 1 << 30), SIZE_LARGE, 4)]:
            host = "ipv6.addr" if r.is_v6(client_ip) else "ip.addr"
            frames = ("frame.number >= %d && frame.number < %d && %s == %s"
                      % (first, last, host, r.plain(client_ip)))
            check_pattern(pcap, client_ip, frames, size, pings,
                          "capture %s -S %d" % (client_ip, size))
    # Every frame's ICRC is good, and tshark reads the same packets.
    rows = t.roceshark_fields(pcap, ["roceshark.icrc.status", "infiniband.bth.opcode",
                                     "infiniband.bth.psn"])
    theirs = t.tshark_fields(pcap, ["infiniband.bth.opcode", "infiniband.bth.psn"])
    t.check(len(rows) > 200 and all(row[0] == "1" for row in rows),
            "the capture's %d frames all have a good ICRC" % len(rows))
    t.check([row[1:] for row in rows] == [row[:2] for row in theirs],
            "tshark reads the same opcodes and PSNs (%d frames)" % len(theirs))
    apps(r.addresses(1)[0], cip2)
    hostile(rip, eip, cip2)
    t.finish("rping")


if __name__ == "__main__":
    main()
