# SPDX-License-Identifier: GPL-2.0-or-later
"""rcsim - a discrete-event simulation of RC requesters and responders over RoCEv2, with a
capture tap in the middle of each link, for testing the transport analysis.

The simulated endpoints follow IBTA Vol 1 chapter 9 closely enough to produce what real
NICs produce under loss: go-back-N after a sequence NAK (sent once per gap), RNR NAKs and
their retries, timeouts, READ re-requests from the first missing PSN, duplicate handling at
the responder (re-ACK, READ replay, saved atomic results), coalesced ACKs, MSN, CNPs for
ECN-marked packets. Links drop (before or after the tap), duplicate and delay packets,
keeping FIFO order per direction.

The truth about every captured frame is computed from the simulation's own knowledge (true
PMTU and READ spans, which conversation a frame belongs to, what each response answers),
using the capture-relative definitions the analysis documents:
  - E is the next PSN after the highest request captured so far (with true spans); a
    request ahead of E is a gap of that many PSNs, one behind E a retransmission;
  - a response at or behind the highest PSN earlier captured responses covered is a
    duplicate (retransmission);
  - a READ response sequence answers the oldest captured transmission of its READ that no
    earlier captured sequence answered; an atomic ACK likewise; response_time is the
    difference of their capture times;
  - an ACK acknowledges the newest captured request covering its PSN, a NAK the one
    covering its PSN - 1;
  - a message's length, first frame and packet count stand on its LAST (or ONLY) packet
    when every packet of it was captured as a new request, with no gap in between.
"""
import heapq
import random
import struct

import ibframes as ib

PSN = 0xFFFFFF
OP_SEND, OP_WRITE, OP_READ, OP_CMP, OP_FADD = "send", "write", "read", "cmp_swap", "fetch_add"
# opcode numbers (RC)
SEND_F, SEND_M, SEND_L, SEND_O, SEND_L_IMM, SEND_O_IMM = 0x00, 0x01, 0x02, 0x04, 0x03, 0x05
WR_F, WR_M, WR_L, WR_O, WR_L_IMM, WR_O_IMM = 0x06, 0x07, 0x08, 0x0A, 0x09, 0x0B
RD_REQ, RD_F, RD_M, RD_L, RD_O, ACK, ATOMIC_ACK, CMP_SWAP, FETCH_ADD = (
    0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14)
CNP = 0x81
NAK_NAMES = ["psn_seq_error", "invalid_request", "remote_access_error",
             "remote_operational_error", "invalid_rd_request"]
RNR_US = [655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920, 2560,
          3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880, 163840,
          245760, 327680, 491520]


def padd(a, n):
    return (a + n) & PSN


def pdiff(a, b):
    d = (a - b) & PSN
    return d - (1 << 24) if d & 0x800000 else d


class Pkt:
    """One packet as the simulation knows it."""
    __slots__ = ("conv", "resp", "opcode", "psn", "payload", "ackreq", "reth", "aeth", "atomic",
                 "imm", "orig", "msg", "span", "ce", "t_tap", "frame", "rnr_timer", "nak")

    def __init__(self, conv, resp, opcode, psn, **kw):
        self.conv, self.resp, self.opcode, self.psn = conv, resp, opcode, psn
        self.payload = kw.get("payload", 0)
        self.ackreq = kw.get("ackreq", False)
        self.reth = kw.get("reth")          # (va, rkey, dmalen)
        self.aeth = kw.get("aeth")          # (syndrome, msn)
        self.atomic = kw.get("atomic")      # (va, rkey, swap, cmp) or orig value for ACKs
        self.imm = kw.get("imm")
        self.orig = kw.get("orig")
        self.msg = kw.get("msg")            # (message id, index, count, total length)
        self.span = kw.get("span", 1)
        self.ce = False
        self.t_tap = None
        self.frame = None
        self.nak = None
        self.rnr_timer = None


class Link:
    """One direction between two hosts: base latency, a tap half way, faults, FIFO."""

    def __init__(self, sim, faults):
        self.sim, self.f = sim, faults
        self.last_tap = 0
        self.last_arrive = 0

    def send(self, pkt, receiver):
        r, f, now = self.sim.r, self.f, self.sim.now
        if r.random() < f.get("drop_before", 0):
            return
        copies = 2 if r.random() < f.get("dup", 0) else 1
        extra = r.randrange(1, f.get("delay_ns", 1)) if r.random() < f.get("delay", 0) else 0
        if pkt.resp is False and pkt.opcode != CNP and r.random() < f.get("ce", 0):
            pkt.ce = True
        for c in range(copies):
            p = pkt if c == 0 else self.copy(pkt)
            t_tap = max(now + 1000 + extra + 500 * c, self.last_tap + 100)
            self.last_tap = t_tap
            self.sim.tap(p, t_tap)
            if r.random() < f.get("drop_after", 0):
                continue
            t_arr = max(t_tap + 1000, self.last_arrive + 100)
            self.last_arrive = t_arr
            self.sim.at(t_arr, receiver, p)

    @staticmethod
    def copy(p):
        q = Pkt(p.conv, p.resp, p.opcode, p.psn)
        for k in Pkt.__slots__:
            setattr(q, k, getattr(p, k))
        q.frame = q.t_tap = None
        return q


class Requester:
    def __init__(self, sim, conv, ops):
        self.sim, self.c = sim, conv
        self.queue = []             # packets not yet sent for the first time
        self.sent = []              # every packet sent, in PSN order, until acknowledged
        self.next_psn = conv.psn0
        self.window = 48
        self.max_rd = 4
        self.timer = None
        self.rnr_until = 0
        self.resend_from = None
        self.read_data = {}         # READ first psn -> set of psns received
        self.build(ops)

    def build(self, ops):
        c, psn, mid = self.c, self.c.psn0, 0
        for kind, size in ops:
            mid += 1
            if kind in (OP_SEND, OP_WRITE):
                n = max(1, -(-size // c.pmtu))
                for i in range(n):
                    ln = min(c.pmtu, size - i * c.pmtu) if size else 0
                    first, last = i == 0, i == n - 1
                    imm = (mid & 3) == 0 and last
                    if kind == OP_SEND:
                        op = (SEND_O_IMM if imm else SEND_O) if first and last else \
                             SEND_F if first else (SEND_L_IMM if imm else SEND_L) if last else SEND_M
                    else:
                        op = (WR_O_IMM if imm else WR_O) if first and last else \
                             WR_F if first else (WR_L_IMM if imm else WR_L) if last else WR_M
                    reth = (0x10000 + mid * 0x1000, 0x42, size) if kind == OP_WRITE and first else None
                    self.queue.append(Pkt(c, False, op, psn, payload=ln, ackreq=last, reth=reth,
                                          imm=0xAB000000 + mid if imm else None,
                                          msg=(mid, i, n, size)))
                    psn = padd(psn, 1)
            elif kind == OP_READ:
                span = max(1, -(-size // c.pmtu))
                self.queue.append(Pkt(c, False, RD_REQ, psn, ackreq=True,
                                      reth=(0x900000 + mid * 0x10000, 0x77, size), span=span,
                                      msg=(mid, 0, 1, size)))
                psn = padd(psn, span)
            else:
                self.queue.append(Pkt(c, False, CMP_SWAP if kind == OP_CMP else FETCH_ADD, psn,
                                      ackreq=True, atomic=(0x700000 + mid * 8, 0x99, mid, 7),
                                      msg=(mid, 0, 1, 8)))
                psn = padd(psn, 1)

    # --- sending ---

    def outstanding_rd(self):
        return sum(1 for p in self.sent if p.opcode in (RD_REQ, CMP_SWAP, FETCH_ADD))

    def pump(self):
        sim = self.sim
        if sim.now < self.rnr_until:
            sim.at(self.rnr_until, self.pump_event, None)
            return
        if self.resend_from is not None:
            start, self.resend_from = self.resend_from, None
            for p in list(self.sent):
                if pdiff(p.psn + p.span - 1, start) < 0:
                    continue
                q = Link.copy(p)
                q.orig = p
                if p.opcode == RD_REQ and pdiff(start, p.psn) > 0:
                    # C9-... a READ re-requested from its first missing PSN.
                    skip = pdiff(start, p.psn)
                    va, rk, ln = p.reth
                    q.psn = start
                    q.reth = (va + skip * self.c.pmtu, rk, ln - skip * self.c.pmtu)
                    q.span = p.span - skip
                self.transmit(q)
        while self.queue and len(self.sent) < self.window:
            p = self.queue[0]
            if p.opcode in (RD_REQ, CMP_SWAP, FETCH_ADD) and self.outstanding_rd() >= self.max_rd:
                break
            self.queue.pop(0)
            self.sent.append(p)
            self.transmit(p)
        self.arm_timer()

    def pump_event(self, _):
        self.pump()

    def transmit(self, p):
        self.sim.links[(self.c.a, self.c.b)].send(p, self.c.responder.receive)

    def arm_timer(self):
        if self.sent and self.timer is None:
            self.timer = self.sim.now + self.sim.timeout_ns
            self.sim.at(self.timer, self.on_timeout, self.timer)

    def on_timeout(self, when):
        if self.timer != when:
            return
        self.timer = None
        if self.sent:
            self.resend_from = self.first_missing()
            self.pump()

    def first_missing(self):
        p = self.sent[0]
        if p.opcode == RD_REQ:
            got = self.read_data.get(p.psn, set())
            for i in range(p.span):
                if padd(p.psn, i) not in got:
                    return padd(p.psn, i)
        return p.psn

    def progress(self):
        self.timer = None
        self.arm_timer()

    def ack_through(self, psn):
        before = len(self.sent)
        self.sent = [p for p in self.sent if pdiff(p.psn + p.span - 1, psn) > 0]
        if len(self.sent) != before:
            self.progress()

    # --- receiving responses ---

    def receive(self, p):
        sim = self.sim
        if p.opcode == CNP:
            return
        if p.opcode == ACK:
            kind = (p.aeth[0] >> 5) & 3
            if kind == 0:
                self.ack_through(p.psn)
            elif kind == 3:
                self.ack_through(padd(p.psn, PSN))
                self.resend_from = p.psn
            elif kind == 1:
                self.ack_through(padd(p.psn, PSN))
                self.rnr_until = sim.now + RNR_US[p.aeth[0] & 0x1F] * 1000
                self.resend_from = p.psn
            sim.at(sim.now, self.pump_event, None)
            return
        if p.opcode == ATOMIC_ACK:
            self.ack_through(p.psn)
        elif p.opcode in (RD_F, RD_M, RD_L, RD_O):
            for q in self.sent:
                if q.opcode == RD_REQ and 0 <= pdiff(p.psn, q.psn) < q.span:
                    self.read_data.setdefault(q.psn, set()).add(p.psn)
                    if len(self.read_data[q.psn]) == q.span:
                        self.ack_through(padd(q.psn, q.span - 1))
                    break
        sim.at(sim.now, self.pump_event, None)


class Responder:
    def __init__(self, sim, conv, rnr_rate):
        self.sim, self.c = sim, conv
        self.epsn = conv.psn0
        self.msn = 0
        self.nak_sent = False
        self.rnr_rate = rnr_rate
        self.reads = {}         # READ first psn -> (span, dmalen)
        self.atomics = {}       # psn -> original value
        self.msg_open = False
        self.last_cnp = -10**12

    def send(self, p):
        self.sim.links[(self.c.b, self.c.a)].send(p, self.c.requester.receive)

    def aeth_ack(self):
        return (0x0E, self.msn)     # ACK, credit code 14 (128 credits)

    def receive(self, p):
        c, sim = self.c, self.sim
        if p.ce and sim.now - self.last_cnp >= sim.cnp_interval_ns:
            self.last_cnp = sim.now
            self.send(Pkt(c, True, CNP, 0))
        d = pdiff(p.psn, self.epsn)
        if d > 0:
            if not self.nak_sent:       # C9-110: one NAK per gap
                self.nak_sent = True
                nak = Pkt(c, True, ACK, self.epsn, aeth=(0x60, self.msn))
                nak.nak = 0
                self.send(nak)
            return
        if d < 0:
            self.duplicate(p)
            return
        self.nak_sent = False
        if p.opcode in (SEND_F, SEND_O, SEND_O_IMM) and not self.msg_open and \
                self.sim.r.random() < self.rnr_rate:
            timer = self.sim.r.choice([1, 2, 4, 6])
            rnr = Pkt(c, True, ACK, p.psn, aeth=(0x20 | timer, self.msn))
            rnr.rnr_timer = timer
            self.send(rnr)
            return
        if p.opcode == RD_REQ:
            self.msn += 1
            span, ln = p.span, p.reth[2]
            self.reads[p.psn] = (span, ln)
            self.epsn = padd(p.psn, span)
            self.read_responses(p.psn, span, ln, 0)
            return
        if p.opcode in (CMP_SWAP, FETCH_ADD):
            self.msn += 1
            orig = self.sim.r.getrandbits(32)
            self.atomics[p.psn] = orig
            self.epsn = padd(p.psn, 1)
            self.send(Pkt(c, True, ATOMIC_ACK, p.psn, aeth=self.aeth_ack(), atomic=orig))
            return
        self.msg_open = p.msg[1] < p.msg[2] - 1
        if not self.msg_open:
            self.msn += 1
        self.epsn = padd(p.psn, 1)
        if p.ackreq:
            self.send(Pkt(c, True, ACK, p.psn, aeth=self.aeth_ack()))

    def read_responses(self, psn, span, ln, skip):
        """Responses for PSNs psn+skip .. psn+span-1 of a READ of ln bytes."""
        c = self.c
        n = span - skip
        for i in range(n):
            k = skip + i
            size = min(c.pmtu, ln - k * c.pmtu) if ln else 0
            if n == 1:
                op = RD_O
            else:
                op = RD_F if i == 0 else RD_L if i == n - 1 else RD_M
            aeth = self.aeth_ack() if op in (RD_F, RD_L, RD_O) else None
            self.send(Pkt(c, True, op, padd(psn, k), payload=size, aeth=aeth))

    def duplicate(self, p):
        if p.opcode == RD_REQ:
            for first, (span, ln) in self.reads.items():
                skip = pdiff(p.psn, first)
                if 0 <= skip < span:
                    self.read_responses(first, span, ln, skip)
                    return
            return
        if p.opcode in (CMP_SWAP, FETCH_ADD):
            if p.psn in self.atomics:
                self.send(Pkt(self.c, True, ATOMIC_ACK, p.psn, aeth=self.aeth_ack(),
                              atomic=self.atomics[p.psn]))
            return
        if p.ackreq:        # re-ACK with the latest acknowledged PSN (C9-104)
            self.send(Pkt(self.c, True, ACK, padd(self.epsn, PSN), aeth=self.aeth_ack()))


class Conv:
    def __init__(self, cid, a, b, qa, qb, pmtu, psn0):
        self.id, self.a, self.b, self.qa, self.qb = cid, a, b, qa, qb
        self.pmtu, self.psn0 = pmtu, psn0


class Sim:
    def __init__(self, seed, faults, rnr_rate=0.0, timeout_ns=300000, cnp_interval_ns=20000):
        self.r = random.Random(seed)
        self.faults = faults
        self.rnr_rate = rnr_rate
        self.timeout_ns = timeout_ns
        self.cnp_interval_ns = cnp_interval_ns
        self.now = 0
        self.events = []
        self.seq = 0
        self.captured = []
        self.links = {}
        self.convs = []

    def at(self, t, fn, arg):
        self.seq += 1
        heapq.heappush(self.events, (t, self.seq, fn, arg))

    def tap(self, pkt, t):
        pkt.t_tap = t
        self.captured.append(pkt)

    def add_conv(self, a, b, qa, qb, pmtu, psn0, ops, start_ns=None):
        c = Conv(len(self.convs) + 1, a, b, qa, qb, pmtu, psn0)
        c.start_ns = start_ns
        for key in ((a, b), (b, a)):
            self.links.setdefault(key, Link(self, self.faults))
        c.responder = Responder(self, c, self.rnr_rate)
        c.requester = Requester(self, c, ops)
        self.convs.append(c)
        return c

    def run(self, until_ns=10**12):
        for c in self.convs:
            start = c.start_ns if c.start_ns is not None else self.r.randrange(0, 5000)
            self.at(start, c.requester.pump_event, None)
        while self.events:
            t, _, fn, arg = heapq.heappop(self.events)
            if t > until_ns:
                break
            self.now = t
            fn(arg)
        self.captured.sort(key=lambda p: p.t_tap)
        for n, p in enumerate(self.captured, 1):
            p.frame = n


def random_ops(r, n, first_multi=True):
    ops = []
    if first_multi:     # a first multi-packet message lets the analysis learn the PMTU
        ops.append((r.choice([OP_SEND, OP_WRITE]), 4096 + r.randrange(1, 4096)))
    for _ in range(n):
        k = r.choices([OP_SEND, OP_WRITE, OP_READ, OP_CMP, OP_FADD], [4, 4, 3, 1, 1])[0]
        if k in (OP_CMP, OP_FADD):
            ops.append((k, 8))
        else:
            ops.append((k, r.choice([0, 1, 17, 256, 1000, 1024, 2048, 3000, 5000, 9000])))
    return ops


# --- writing the capture ---

HOSTS = {1: (bytes.fromhex("02000000000a"), bytes([10, 1, 0, 1])),
         2: (bytes.fromhex("02000000000b"), bytes([10, 1, 0, 2])),
         3: (bytes.fromhex("02000000000c"), bytes([10, 1, 0, 3]))}


def transport_bytes(p):
    c = p.conv
    dqpn = c.qa if p.resp else c.qb
    pad = (4 - p.payload % 4) % 4
    b4 = 0x40 if p.opcode == CNP else 0
    bth = bytes([p.opcode, pad << 4]) + b"\xff\xff" + bytes([b4]) + dqpn.to_bytes(3, "big") + \
        bytes([0x80 if p.ackreq else 0]) + p.psn.to_bytes(3, "big")
    ext = b""
    if p.opcode == CNP:
        ext = bytes(16)
    if p.reth is not None and p.opcode in (WR_F, WR_O, WR_O_IMM, RD_REQ):
        ext += struct.pack("!QII", *p.reth)
    if p.opcode in (CMP_SWAP, FETCH_ADD):
        ext += struct.pack("!QIQQ", *p.atomic)
    if p.aeth is not None:
        ext += bytes([p.aeth[0]]) + (p.aeth[1] & PSN).to_bytes(3, "big")
    if p.opcode == ATOMIC_ACK:
        ext += struct.pack("!Q", p.atomic)
    if p.opcode in (SEND_L_IMM, SEND_O_IMM, WR_L_IMM, WR_O_IMM):
        ext += struct.pack("!I", p.imm)
    body = bytes((p.psn + i) & 0xFF for i in range(p.payload))
    return bth + ext + body + bytes(pad)


def frame_bytes(p):
    c = p.conv
    src, dst = (c.b, c.a) if p.resp else (c.a, c.b)
    body = transport_bytes(p)
    udp = struct.pack("!HHHH", 49152 + (c.id if not p.resp else 1000 + c.id), 4791,
                      8 + len(body) + 4, 0)
    ecn = 3 if p.ce else 2
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, ecn, 20 + len(udp) + len(body) + 4, 0, 0x4000, 64,
                     17, 0, HOSTS[src][1], HOSTS[dst][1])
    ip = ip[:10] + struct.pack("!H", ~ib._ones_sum(ip) & 0xFFFF) + ip[12:]
    crc = ib.icrc("ipv4", ip, udp, body)
    frame = HOSTS[dst][0] + HOSTS[src][0] + b"\x08\x00" + ip + udp + body + crc
    return frame + bytes(max(0, 60 - len(frame)))


def write_pcap_ns(path, pkts, t0=1700000000 * 10**9):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 262144, 1))
        for p in pkts:
            fr = frame_bytes(p)
            t = t0 + p.t_tap
            f.write(struct.pack("<IIII", t // 10**9, t % 10**9, len(fr), len(fr)))
            f.write(fr)


# --- the truth ---

def truth(pkts):
    """Per captured frame, what the analysis must report (see the module docstring)."""
    out = []
    req = {}        # conv -> dict(e, high_req, ring=[...], msg)
    resp = {}       # conv -> dict(high, open read seq)
    conv_ids = {}
    last_ce = {}
    paired = set()      # conversations whose requester QP the analysis has seen
    for p in pkts:
        c = p.conv
        t = {"frame": p.frame}
        if p.opcode == CNP:
            # A CNP names only the requester's QP: it is tied to its conversation once a
            # response has shown that QP, or when it is the only unpaired candidate.
            cands = [x for x in conv_ids if x.a == c.a and x.b == c.b and x not in paired]
            if c in paired or cands == [c]:
                paired.add(c)
                t["conv"] = t["cnp_for"] = conv_ids[c]
                if c in last_ce:
                    t["cnp_since_ce_ns"] = p.t_tap - last_ce[c]
            out.append(t)
            continue
        if c not in conv_ids:
            conv_ids[c] = len(conv_ids) + 1
        t["conv"] = conv_ids[c]
        if p.ce and not p.resp:
            t["ecn_ce"] = True
            last_ce[c] = p.t_tap
        if not p.resp:
            s = req.setdefault(c, {"e": None, "ring": [], "msg": None})
            if s["e"] is None:
                s["e"] = p.psn
            d = pdiff(p.psn, s["e"])
            if d < 0:
                t["retx"] = True
            else:
                if d > 0:
                    t["gap"] = d
                    s["msg"] = None
                s["e"] = padd(p.psn, p.span)
                mid, idx, cnt, size = p.msg
                if p.opcode in (RD_REQ, CMP_SWAP, FETCH_ADD):
                    s["msg"] = None
                elif idx == 0:
                    s["msg"] = [mid, p.frame, 1]
                elif s["msg"] is not None and s["msg"][0] == mid and s["msg"][2] == idx:
                    s["msg"][2] += 1
                else:
                    s["msg"] = None
                if p.opcode not in (RD_REQ, CMP_SWAP, FETCH_ADD) and idx == cnt - 1:
                    if s["msg"] is not None and s["msg"][0] == mid and s["msg"][2] == cnt:
                        t["msg"] = [size, s["msg"][1], cnt]
                    s["msg"] = None
            s["ring"].append({"psn": p.psn, "span": p.span, "frame": p.frame, "t": p.t_tap,
                              "op": p.opcode, "answered": False})
        else:
            paired.add(c)
            s = req.setdefault(c, {"e": None, "ring": [], "msg": None})
            r = resp.setdefault(c, {"high": None, "seq": None})
            dup = r["high"] is not None and pdiff(p.psn, r["high"]) <= 0

            def covering(psn):
                for e in reversed(s["ring"]):
                    if 0 <= pdiff(psn, e["psn"]) < e["span"]:
                        return e
                return None

            def unanswered(psn, ops):
                for e in s["ring"]:
                    if e["psn"] == psn and not e["answered"] and e["op"] in ops:
                        return e
                return None

            if p.opcode == ACK:
                kind = (p.aeth[0] >> 5) & 3
                if kind == 0:
                    if dup:
                        t["retx"] = True
                    e = covering(p.psn)
                else:
                    if kind == 3:
                        t["nak"] = NAK_NAMES[p.aeth[0] & 0x1F]
                    else:
                        t["rnr_delay_ns"] = RNR_US[p.aeth[0] & 0x1F] * 1000
                    e = covering(padd(p.psn, PSN))
                if e is not None:
                    t["acked_frame"] = e["frame"]
                if kind == 0 and (r["high"] is None or pdiff(p.psn, r["high"]) > 0):
                    r["high"] = p.psn
            elif p.opcode == ATOMIC_ACK:
                if dup:
                    t["retx"] = True
                e = unanswered(p.psn, (CMP_SWAP, FETCH_ADD))
                if e is not None:
                    e["answered"] = True
                    t["request_frame"] = e["frame"]
                    t["response_time_ns"] = p.t_tap - e["t"]
                if not dup:
                    r["high"] = p.psn
            else:   # READ responses
                if p.opcode in (RD_F, RD_O):
                    r["seq"] = {"dup": dup, "e": unanswered(p.psn, (RD_REQ,)), "next": p.psn}
                    if r["seq"]["e"] is not None:
                        r["seq"]["e"]["answered"] = True
                elif r["seq"] is None:
                    r["seq"] = {"dup": dup, "e": covering(p.psn), "next": p.psn}
                elif pdiff(p.psn, r["seq"]["next"]) > 0:
                    t["gap"] = pdiff(p.psn, r["seq"]["next"])
                r["seq"]["next"] = padd(p.psn, 1)
                e = r["seq"]["e"]
                if r["seq"]["dup"] or dup:
                    t["retx"] = True
                if e is not None:
                    t["request_frame"] = e["frame"]
                    t["response_time_ns"] = p.t_tap - e["t"]
                if r["high"] is None or pdiff(p.psn, r["high"]) > 0:
                    r["high"] = p.psn
                if p.opcode in (RD_L, RD_O):
                    r["seq"] = None
        out.append(t)
    return out
