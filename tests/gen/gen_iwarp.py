#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_iwarp.py OUTDIR [--seed N] : iWARP connections (MPA, DDP, RDMAP over TCP) and their truth.

Every connection opens with a TCP handshake and an MPA exchange, then runs the same script of
RDMAP traffic: Sends of one and several FPDUs (and the Invalidate and SE variants), RDMA
Writes, a Read Request and its Read Response, Immediate Data (and with SE), Atomic Requests
(FetchAdd, CmpSwap) and Responses, and a Terminate. Writes into OUTDIR:

  aligned.pcap    the 16 combinations of M and C in the Request and the Reply, MPA revisions 1
                  and 2 (RFC 6581 IRD/ORD and a ready-to-receive Write), one FPDU per segment,
                  some CRCs corrupted; and a rejected connection
  random.pcap     the same 16 combinations cut at random points: FPDUs split across segments
                  and several in one segment (no segment starts an FPDU with fewer than eight
                  octets: tshark 4.0 loses the stream there, see tiny.pcap)
  retrans.pcap    retransmitted segments (whole and overlapping) and segments out of order,
                  markers off and on
  tiny.pcap       random cuts that include segments of one to seven octets
  midstream.pcap  connections of random.pcap with the capture starting mid-connection: no
                  handshake, no MPA exchange, and the first segment starting inside an FPDU
  forced.pcap     a connection on TCP port 7777 seen mid-connection (for -d tcp.port==7777,iwarp)
  lossy.pcap      a connection whose capture missed segments the receiver acknowledged
  siw.pcap        one connection with MPA revision 1, no markers and no CRC, one FPDU per
                  segment: what the kernel's siw and user-space iWARP stacks send by default
  truth.jsonl     one JSON object per frame: file, frame, pdus (what ends in it), flags, and
                  tshark (whether tshark 4.0 decodes the frame as it is)
"""
import argparse
import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibframes as ib  # noqa: E402
import iwarpframes as iw  # noqa: E402

MULPDU = 1024           # the largest DDP payload an FPDU carries here
TSHARK_MIN_START = 8    # tshark 4.0's MPA heuristic wants this much where an FPDU starts


class Capture:
    """One pcap file: frames, and for each the PDUs a correct decoder finds in it."""

    def __init__(self, path, name, truth):
        self.w = ib.PcapWriter(path, 1)
        self.name = name
        self.truth = truth
        self.n = 0

    def write(self, frame, pdus=(), flags=(), tshark=True, skip=()):
        self.w.write(frame)
        self.n += 1
        self.truth.append({"file": self.name, "frame": self.n, "pdus": list(pdus),
                           "flags": list(flags), "tshark": tshark, "tshark_skip": list(skip)})

    def close(self):
        self.w.close()


class Flow:
    """A connection being written to a capture: which bytes of each direction the capture and
    the receiver have, and which PDUs complete when a segment arrives."""

    def __init__(self, cap, conn, inferred=False):
        self.cap = cap
        self.c = conn
        self.ranges = [[], []]          # captured byte ranges not yet in order
        self.log = []                   # (direction, start, end, frame) of every frame
        self.rcv = [0, 0]               # in-order captured bytes of each direction
        self.acked = [0, 0]             # what the receiver has (captured or not)
        self.next_pdu = [0, 0]
        self.inferred = inferred
        self.skip_until = [0, 0]        # PDUs ending before this are not expected
        self.send = [[], []]            # the Send message in progress: its fragments
        self.spoiled = [False, False]   # tshark 4.0 lost this direction's next segment

    def _advance(self, d):
        """Merges captured ranges into the in-order point; returns PDUs that completed."""
        rs = sorted(self.ranges[d])
        merged = True
        while merged:
            merged = False
            for a, b in rs:
                if a <= self.rcv[d] < b:
                    self.rcv[d] = b
                    merged = True
        self.ranges[d] = [(a, b) for a, b in rs if b > self.rcv[d]]
        out = []
        pdus = self.c.dirs[d].pdus
        while self.next_pdu[d] < len(pdus) and pdus[self.next_pdu[d]][1] <= self.rcv[d]:
            s, e, t = pdus[self.next_pdu[d]]
            self.next_pdu[d] += 1
            if e <= self.skip_until[d]:
                continue
            out.append(self._send_fragments(d, dict(t, dir=d, inferred=self.inferred, start=s,
                                                    end=e), out))
        return out

    def _send_fragments(self, d, t, earlier):
        """Wireshark's Send reassembly: the fragments of a Send message, shown on its last
        FPDU (frame numbers, count, length). Records, for the tshark comparison, whether
        tshark 4.0 sees the message whole: it adds only the first Send FPDU of a frame to its
        reassembly, and leaves the second and later markers of an FPDU in the payload."""
        if t.get("kind") != "fpdu" or t.get("tagged") or \
                t.get("opcode") not in (iw.SEND, iw.SEND_INV, iw.SEND_SE, iw.SEND_SE_INV):
            return t
        first_in_frame = not any(p.get("opcode") in (iw.SEND, iw.SEND_INV, iw.SEND_SE,
                                                     iw.SEND_SE_INV) and not p.get("tagged")
                                 for p in earlier if p.get("kind") == "fpdu")
        self.send[d].append((self.cap.n + 1, t["ulpdu_len"] - 18, first_in_frame,
                             len(t["markers"])))
        if t["last"]:
            frags = self.send[d]
            self.send[d] = []
            if len(frags) >= 2:
                t["send_frames"] = [f for f, _, _, _ in frags]
                t["send_len"] = sum(n for _, n, _, _ in frags)
                t["send_tshark_whole"] = all(first for _, _, first, _ in frags)
                t["send_tshark_data"] = all(m < 2 for _, _, _, m in frags)
        return t

    def segment(self, d, a, b, tshark=True, captured=True, flags=()):
        """Direction d sends its stream bytes [a, b)."""
        dd = self.c.dirs[d]
        payload = bytes(dd.data[a:b])
        frame = self.c.frame(d, payload, seq=dd.isn + 1 + a, ack=self.c.dirs[1 - d].isn + 1 +
                             self.acked[1 - d])
        self.acked[d] = max(self.acked[d], b)
        if not captured:
            return
        self.log.append((d, a, b, frame))
        old = b <= self.rcv[d]
        self.ranges[d].append((a, b))
        pdus = self._advance(d)
        fl = list(flags)
        if old and "retransmission" not in fl:
            fl.append("retransmission")
        if a > self.rcv[d] and not pdus:
            fl.append("out_of_order")
        # Fields tshark 4.0 gets wrong on this frame, though it decodes the rest right.
        skip = []
        sends = [p for p in pdus if "send_frames" in p or (
            p.get("opcode") in (iw.SEND, iw.SEND_INV, iw.SEND_SE, iw.SEND_SE_INV) and
            not p.get("tagged"))]
        # The message it hands on as data, and the data layers of frame.protocols, go wrong
        # with its reassembly.
        if len(sends) > 1 or any(not p.get("send_tshark_whole", True) for p in sends):
            skip += ["iwarp_rdma.send.", "data.", "frame.protocols"]
        elif any(not p.get("send_tshark_data", True) for p in sends):
            skip += ["iwarp_rdma.send.reassembled.data", "data.data"]
        # Its 512 octets between markers leave the second marker in any payload it hands on.
        if any(p.get("kind") == "fpdu" and len(p["markers"]) >= 2 for p in pdus) and \
                "data.data" not in skip:
            skip.append("data.data")
        # With markers, Wireshark 4.0 decides whether a marker stands before the CRC from the
        # segment's relative sequence number (1 at the first octet after the SYN) modulo
        # 512, not from the first FPDU: where that disagrees, its pad is other octets.
        dd = self.c.dirs[d]
        for p in pdus:
            if p.get("kind") == "fpdu" and p["pad"] and dd.markers:
                end = p["end"]
                theirs = (end + 1 - 8) % iw.MARKER_INTERVAL == 0
                ours = (end - 8 - dd.marker_base) % iw.MARKER_INTERVAL == 0
                if theirs != ours and "iwarp_mpa.pad" not in skip:
                    skip.append("iwarp_mpa.pad")
        # And it counts a marker where the FPDU ends (the next one's) as one of its own: an
        # FPDU that ends where a marker falls is not decoded, and the four octets it then
        # takes from the next segment spoil that one too.
        if self.spoiled[d]:
            tshark = False
            self.spoiled[d] = False
        if dd.markers and any(p.get("kind") == "fpdu" and
                              (p["end"] - dd.marker_base) % iw.MARKER_INTERVAL == 0
                              for p in pdus):
            tshark = False
            self.spoiled[d] = True
        # Wireshark 4.0 applies markers to both directions when either asked for them.
        other = self.c.dirs[1 - d]
        if other.markers and not self.c.dirs[d].markers:
            tshark = False
        self.cap.write(frame, pdus, fl, tshark, skip)

    def handshake(self):
        for d, f in self.c.handshake():
            self.log.append((d, 0, 0, f))
            self.cap.write(f)

    def exchange(self, **kw):
        self.c.exchange(**kw)
        for d in (0, 1):
            s, e, _ = self.c.dirs[d].pdus[-1]
            self.segment(d, s, e)


def cuts_for(rng, dd, start, end, tshark_safe, tiny=False):
    """Segment boundaries for stream bytes [start, end): random lengths, FPDUs split and
    several in one segment. tshark_safe keeps any octets that start an FPDU in a segment
    (after the one it continues, if any) at eight or more."""
    bounds = sorted({s for s, e, _ in dd.pdus} | {e for s, e, _ in dd.pdus})
    segs, pos = [], start
    while pos < end:
        n = rng.choice([rng.randrange(1, 200), rng.randrange(100, 700), rng.randrange(600, 1800)])
        if tiny and rng.random() < 0.2:
            n = rng.randrange(1, 8)
        n = min(n, end - pos)
        if tshark_safe:
            stop = pos + n
            # where FPDUs start afresh inside [pos, stop): pos itself, or the end of the one
            # it continues
            r = pos if pos in bounds else next((x for x in bounds if pos < x <= stop), stop)
            tail = stop - r
            if 0 < tail < TSHARK_MIN_START:
                stop = r if r > pos else min(end, r + TSHARK_MIN_START)
            n = stop - pos
        segs.append((pos, pos + n))
        pos += n
    return segs


def script(rng, flow, corrupt_rate, terminate):
    """Yields (direction, [(ulpdu, truth, corrupt)...]) batches: every RDMAP opcode."""
    msn = {(d, q): 1 for d in (0, 1) for q in range(4)}
    crc_on = flow.c.dirs[0].crc

    def corrupt(payload_len):
        if not crc_on or rng.random() >= corrupt_rate:
            return None
        return "data" if payload_len > 0 and rng.random() < 0.5 else "crc"

    def untagged(d, op, qn, payload, rsvdulp=0, extra=None):
        """An untagged message cut into FPDUs of at most MULPDU payload octets."""
        out, mo = [], 0
        m = msn[(d, qn)]
        msn[(d, qn)] += 1
        chunks = [payload[i:i + MULPDU] for i in range(0, len(payload), MULPDU)] or [b""]
        for k, chunk in enumerate(chunks):
            last = k == len(chunks) - 1
            ulpdu = iw.ddp_untagged(op, last, qn, m, mo, rsvdulp, chunk)
            t = {"kind": "fpdu", "opcode": op, "tagged": False, "last": last, "qn": qn,
                 "msn": m, "mo": mo, "msg_len": mo + len(chunk) if last else None}
            if extra:
                t.update(extra)
            out.append((ulpdu, t, corrupt(len(chunk))))
            mo += len(chunk)
        return out

    def tagged(d, op, stag, to, payload):
        out = []
        chunks = [payload[i:i + MULPDU] for i in range(0, len(payload), MULPDU)] or [b""]
        for k, chunk in enumerate(chunks):
            last = k == len(chunks) - 1
            ulpdu = iw.ddp_tagged(op, last, stag, to + k * MULPDU, chunk)
            t = {"kind": "fpdu", "opcode": op, "tagged": True, "last": last, "stag": stag,
                 "to": to + k * MULPDU, "msg_len": None}
            out.append((ulpdu, t, corrupt(len(chunk))))
        return out

    def data(n):
        return bytes(rng.getrandbits(8) for _ in range(n))

    yield 0, (untagged(0, iw.SEND, 0, data(rng.randrange(1, 60)))
              + untagged(0, iw.SEND, 0, data(rng.randrange(MULPDU * 2, MULPDU * 3)))
              + untagged(0, iw.SEND_INV, 0, data(33), rsvdulp=0x1234abcd)
              + untagged(0, iw.SEND_SE, 0, data(rng.randrange(1, 500)))
              + untagged(0, iw.SEND_SE_INV, 0, data(MULPDU + 7), rsvdulp=0x0badcafe))
    yield 1, untagged(1, iw.SEND, 0, data(rng.randrange(0, 40)))
    yield 0, tagged(0, iw.WRITE, 0x00c0ffee, 0x7f0000001000, data(rng.randrange(1, MULPDU * 3)))
    size = rng.randrange(1, MULPDU * 3)
    yield 0, untagged(0, iw.READ_REQ, 1, iw.read_request_header(0x11, 0x5000, size, 0x22,
                                                                  0x7f00000a0000))
    yield 1, tagged(1, iw.READ_RESP, 0x11, 0x5000, data(size))
    yield 0, (untagged(0, iw.IMM_DATA, 0, struct.pack("!Q", rng.getrandbits(64)))
              + untagged(0, iw.IMM_DATA_SE, 0, struct.pack("!Q", rng.getrandbits(64))))
    yield 0, (untagged(0, iw.ATOMIC_REQ, 3, iw.atomic_request_header(
                  0, 7, 0x33, 0x1000, 5, 0, 0, 0))
              + untagged(0, iw.ATOMIC_REQ, 3, iw.atomic_request_header(
                  2, 8, 0x33, 0x1008, 0xfeed, 0xffffffffffffffff, 0xbeef, 0xffff)))
    yield 1, (untagged(1, iw.ATOMIC_RESP, 3, iw.atomic_response_header(7, 40))
              + untagged(1, iw.ATOMIC_RESP, 3, iw.atomic_response_header(8, 0xbeef)))
    yield 1, untagged(1, iw.SEND_SE, 0, data(rng.randrange(1, MULPDU * 2)))
    if terminate is not None:
        layer, etype, code, hd, hr = terminate
        hdr = iw.terminate_header(layer, etype, code, m=hd, d=hd, r=hr, seg_len=0x40,
                                  ddp_hdr=bytes(range(14 if etype == 1 else 18)),
                                  rdma_hdr=bytes(range(100, 128)))
        yield 1, untagged(1, iw.TERMINATE, 2, hdr)


TERMINATES = [(0, 1, 0x02, True, True), (1, 1, 0x00, True, False), (1, 2, 0x03, True, True),
              (2, 0, 0x02, False, False), (0, 0, 0x05, False, True), (1, 3, 0x01, False, False),
              (2, 1, 0x04, False, False), (3, 0, 0x00, False, False)]


def endpoints(k, port=None):
    ini = (bytes.fromhex("0200000000%02x" % (k + 1)), bytes([10, 1, k // 250, k % 250 + 1]),
           port or 40000 + k)
    res = (bytes.fromhex("02000000ff%02x" % (k + 1)), bytes([10, 2, 0, 1]), 9999)
    return ini, res


def run_connection(cap, rng, k, req_m, req_c, rep_m, rep_c, rev, mode, corrupt_rate=0.06,
                   handshake=True, inferred=False, port=None):
    """One connection on capture cap; mode "aligned", "random" or "tiny"."""
    conn = iw.Connection(*endpoints(k, port), isn_i=rng.getrandbits(32),
                         isn_r=rng.getrandbits(32))
    flow = Flow(cap, conn, inferred)
    if handshake:
        flow.handshake()
    pd_req = pd_rep = b""
    if rev == 2:
        pd_req = iw.mpa_v2_data(64, 16, p2p=True, rtr_write=True) + b"req-pd"
        pd_rep = iw.mpa_v2_data(16, 64, p2p=True, rtr_write=True)
    elif k % 3 == 0:
        pd_req, pd_rep = b"hello", b"world!!"
    flow.exchange(req_m=req_m, req_c=req_c, rep_m=rep_m, rep_c=rep_c, rev=rev, pd_req=pd_req,
                  pd_rep=pd_rep)
    batches = list(script(rng, flow, corrupt_rate, TERMINATES[k % len(TERMINATES)]))
    if rev == 2:
        # The ready-to-receive message: a zero-length RDMA Write from the initiator.
        batches.insert(0, (0, [(iw.ddp_tagged(iw.WRITE, True, 0, 0), {
            "kind": "fpdu", "opcode": iw.WRITE, "tagged": True, "last": True, "stag": 0,
            "to": 0, "msg_len": None}, None)]))
    for d, fpdus in batches:
        dd = conn.dirs[d]
        start = dd.offset()
        for ulpdu, t, bad in fpdus:
            dd.add_fpdu(ulpdu, t, bad)
        if mode == "aligned":
            segs = [(s, e) for s, e, _ in dd.pdus if s >= start]
        else:
            segs = cuts_for(rng, dd, start, dd.offset(), tshark_safe=mode == "random",
                            tiny=mode == "tiny")
        # tshark 4.0 finds markers from the segment's sequence number: right only when a
        # segment holds exactly one FPDU.
        ok = mode != "tiny" and (mode == "aligned" or not dd.markers)
        for a, b in segs:
            flow.segment(d, a, b, tshark=ok)
    return conn, flow


COMBOS = [(rm, rc, pm, pc) for rm in (0, 1) for rc in (0, 1) for pm in (0, 1) for pc in (0, 1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    rng = random.Random(a.seed)
    truth = []

    def capture(name):
        return Capture(os.path.join(a.outdir, name), name, truth)

    for name, mode in (("aligned.pcap", "aligned"), ("random.pcap", "random"),
                       ("tiny.pcap", "tiny")):
        cap = capture(name)
        for k, (rm, rc, pm, pc) in enumerate(COMBOS):
            run_connection(cap, rng, k, rm, rc, pm, pc, rev=1 + k % 2, mode=mode)
        if mode == "aligned":
            # A rejected connection: the Reply's R bit, and nothing after it.
            conn = iw.Connection(*endpoints(40), isn_i=5, isn_r=6)
            flow = Flow(cap, conn)
            flow.handshake()
            flow.exchange(req_m=0, req_c=1, rep_m=0, rep_c=1, reject=True)
        cap.close()

    write_retrans(capture("retrans.pcap"), rng)
    write_midstream(capture("midstream.pcap"), rng)
    write_forced(capture("forced.pcap"), rng)
    lossy = capture("lossy.pcap")
    write_lossy(lossy, rng)
    with open(os.path.join(a.outdir, "lossy.json"), "w") as f:
        json.dump({"msns": lossy.lossy_msns}, f)
    # Its own random numbers, so that adding it changed none of the files above.
    siw = capture("siw.pcap")
    run_connection(siw, random.Random(a.seed + 1), 0, 0, 0, 0, 0, rev=1, mode="aligned",
                   corrupt_rate=0.0)
    siw.close()
    with open(os.path.join(a.outdir, "truth.jsonl"), "w") as f:
        for t in truth:
            f.write(json.dumps(t) + "\n")


class Tap:
    """A capture that keeps nothing: for connections that are replayed in part."""

    def __init__(self):
        self.n = 0

    def write(self, frame, pdus=(), flags=(), tshark=True, skip=()):
        self.n += 1


def write_retrans(cap, rng):
    """Connections whose segments come twice, overlap, or out of order: markers off and on.
    Frames are written as the receiver sees them; the truth follows from the flow."""
    for k, markers in enumerate((0, 1)):
        conn = iw.Connection(*endpoints(k, 41000 + k), isn_i=rng.getrandbits(32),
                             isn_r=rng.getrandbits(32))
        flow = Flow(cap, conn)
        flow.handshake()
        flow.exchange(req_m=markers, req_c=1, rep_m=markers, rep_c=1)
        i = conn.dirs[0]
        start = i.offset()
        for m in range(1, 13):
            i.add_fpdu(iw.ddp_untagged(iw.SEND, True, 0, m, 0, payload=bytes([m]) * (40 + 37 * m)), {
                "kind": "fpdu", "opcode": iw.SEND, "tagged": False, "last": True, "qn": 0,
                "msn": m, "mo": 0, "msg_len": 40 + 37 * m})
        p = [(s, e) for s, e, _ in i.pdus if s >= start]
        seg = flow.segment
        seg(0, *p[0])
        seg(0, *p[1])
        seg(0, *p[0], tshark=False)                     # a whole retransmission
        seg(0, p[2][0], p[2][0] + 30, tshark=False)     # the start of FPDU 3 ...
        seg(0, p[2][0], p[3][1], tshark=False)          # ... overlapped by 3 and 4 again
        seg(0, *p[5], tshark=False)                     # 6 before 5: out of order
        seg(0, *p[4], tshark=False)                     # 5 fills the hole: 5 and 6 end
        seg(0, p[6][0], p[7][1], tshark=False)          # 7 and 8 ...
        seg(0, p[7][0], p[8][1], tshark=False)          # ... and 8 again with 9
        seg(0, *p[10], tshark=False)                    # 11, then 10 split in two
        seg(0, p[9][0] + 20, p[9][1], tshark=False)
        seg(0, p[9][0], p[9][0] + 20, tshark=False)
        seg(0, *p[11], tshark=False)


def replay(cap, conn, log, start):
    """Writes the frames of log from index start, as a capture that began there: framing
    has to be inferred, and PDUs that start before the first captured octet of their
    direction cannot be expected."""
    flow = Flow(cap, conn, inferred=True)
    for d in (0, 1):
        first = next((a for dd, a, b, f in log[start:] if dd == d and b > a), None)
        if first is None:
            continue
        flow.rcv[d] = first
        pdus = conn.dirs[d].pdus
        while flow.next_pdu[d] < len(pdus) and pdus[flow.next_pdu[d]][0] < first:
            flow.next_pdu[d] += 1
    for d, a, b, f in log[start:]:
        pdus = []
        if b > a:
            flow.ranges[d].append((a, b))
            pdus = flow._advance(d)
        cap.write(f, pdus, ["midstream"], tshark=False)


def write_midstream(cap, rng):
    """random.pcap-like connections seen from the middle: the capture starts inside an FPDU."""
    for k, (rm, rc, pm, pc) in enumerate([(0, 1, 0, 1), (1, 1, 1, 1), (0, 0, 0, 0),
                                          (1, 0, 1, 0)]):
        conn, flow = run_connection(Tap(), rng, k, rm, rc, pm, pc, rev=1, mode="random",
                                    corrupt_rate=0.0)
        # A segment of the initiator that starts inside an FPDU, past the exchange.
        pdu_starts = {s for s, e, _ in conn.dirs[0].pdus}
        start = next(n for n, (d, a, b, f) in enumerate(flow.log)
                     if n > len(flow.log) // 4 and d == 0 and b > a and a not in pdu_starts)
        replay(cap, conn, flow.log, start)


def write_forced(cap, rng):
    """A connection on port 7777 whose capture starts after its MPA exchange."""
    conn, flow = run_connection(Tap(), rng, 3, 0, 1, 0, 1, rev=1, mode="aligned",
                                corrupt_rate=0.0, port=7777)
    replay(cap, conn, flow.log, 7)


def write_lossy(cap, rng):
    """Segments the receiver got (and acknowledged) but the capture missed."""
    conn = iw.Connection(*endpoints(2, 42000), isn_i=rng.getrandbits(32),
                         isn_r=rng.getrandbits(32))
    flow = Flow(cap, conn)
    flow.handshake()
    flow.exchange(req_m=0, req_c=1, rep_m=0, rep_c=1)
    i, r = conn.dirs
    start = i.offset()
    for m in range(1, 41):
        i.add_fpdu(iw.ddp_untagged(iw.SEND, True, 0, m, 0, payload=bytes([m]) * (100 + 3 * m)), {
            "kind": "fpdu", "opcode": iw.SEND, "tagged": False, "last": True, "qn": 0, "msn": m,
            "mo": 0, "msg_len": 100 + 3 * m})
    segs = cuts_for(rng, i, start, i.offset(), tshark_safe=True)
    lost = set(range(len(segs) // 3, len(segs) // 3 + 2))
    # The FPDUs whose MSN (octets 12 to 15 of the FPDU) the capture has: the rest are lost.
    gone = [(a, b) for n, (a, b) in enumerate(segs) if n in lost]
    kept = [t["msn"] for s, e, t in i.pdus[1:]
            if not any(a < s + 16 and s < b for a, b in gone)]
    cap.lossy_msns = kept
    for n, (a, b) in enumerate(segs):
        flow.segment(0, a, b, tshark=False, captured=n not in lost)
        if n % 4 == 3:
            # The responder's acknowledgment, past the hole once the receiver had it all.
            rr = r.offset()
            r.add_fpdu(iw.ddp_untagged(iw.SEND, True, 0, n, 0, payload=b"ack"), {
                "kind": "fpdu", "opcode": iw.SEND, "tagged": False, "last": True, "qn": 0,
                "msn": n, "mo": 0, "msg_len": 3})
            flow.segment(1, rr, r.offset(), tshark=False)


if __name__ == "__main__":
    main()
