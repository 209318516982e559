#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The RC responder against frames crafted by an independent tool (scapy.contrib.roce and
raw bytes): one test per row of docs/conformance.md that names this file. Every case runs
on its own QP of one `roceshark responder`, so that an error class that moves a QP to the
error state does not disturb the others. Every frame either way is kept and checked at the
end: scapy's ICRC and roceshark's roceshark.icrc.status must call all of ours good.

--ipv6 runs it all over IPv6 on loopback (addresses added to lo); --link-local over
link-local addresses across a veth pair between two namespaces it creates: the responder in
one, this script (re-run there) and its raw sockets in the other."""
import os
import struct
import subprocess
import sys
import time

import livenet
import rcpeer as r
import rstest as t

MODE = sys.argv[1] if len(sys.argv) > 1 else "--ipv4"
if MODE == "--link-local" and "RS_LL_ADDRS" not in os.environ:
    livenet.need_root()
    pair = livenet.VethPair("rsll")
    ours, theirs = pair.link_local(2, 3)
    env = dict(os.environ, RS_LL_ADDRS=" ".join(theirs[:1] + ours + theirs[1:]),
               RS_LL_RESPONDER_NS=pair.ns_b)
    sys.exit(subprocess.run(pair.in_a([t.PYTHON, __file__, MODE]), env=env).returncode)

PMTU = 1024
RECV = 8
RECV_SIZE = 8192
RNR_TIMER = 14
PEER_QPN0, QPN0, NQPS = 0x100, 0x200, 48
CREDITS = [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256]


def credit_code(n):
    code = 0
    while code + 1 < len(CREDITS) and CREDITS[code + 1] <= n:
        code += 1
    return code


if MODE == "--link-local":
    A, B, C, WRAP_A, QPACC_A = os.environ["RS_LL_ADDRS"].split()
    RESP_PREFIX = ["ip", "netns", "exec", os.environ["RS_LL_RESPONDER_NS"]]
elif MODE == "--ipv6":
    A, B, C, WRAP_A, QPACC_A = r.addresses6(5)
    RESP_PREFIX = []
else:
    A, B, C, WRAP_A, QPACC_A = r.addresses(5)
    RESP_PREFIX = []
V6 = r.is_v6(A)
resp = r.Responder(["--bind", A, "--peer", r.plain(B), "--peer-qpn", hex(PEER_QPN0),
                    "--peer-psn", "0",
                    "--qpn", hex(QPN0), "--qps", str(NQPS), "--psn", "0",
                    "--mr", "1M:lwra", "--mr", "64K:r", "--mr", "64K:lwri",
                    "--rkey", "0x1000", "--va", "0x10000000", "--recv", str(RECV),
                    "--recv-size", str(RECV_SIZE), "--pmtu", str(PMTU), "--rnr-timer",
                    str(RNR_TIMER), "--max-dest-rd-atomic", "4", "--cnp-interval", "20000",
                    "--no-listen"], prefix=RESP_PREFIX)
peer = r.Endpoint(B)
stranger = r.Endpoint(C)
MR = resp.info["mrs"]
RKEY, VA = MR[0]["rkey"], MR[0]["va"]
RO_RKEY, RO_VA = MR[1]["rkey"], MR[1]["va"]
INV_RKEY, INV_VA = MR[2]["rkey"], MR[2]["va"]
t.check(RKEY == 0x1000 and VA == 0x10000000, "the first region has --rkey and --va")
t.check(resp.info["icrc_check"] is True, "the responder checks the ICRC (raw socket)")
corrupted = set()   # indices in peer.frames of frames we spoiled on purpose
next_qp = [0]


class Conn:
    """Our requester side of one QP of the responder."""

    def __init__(self, psn=0):
        self.i = next_qp[0]
        next_qp[0] += 1
        self.qpn, self.dqpn, self.psn = QPN0 + self.i, PEER_QPN0 + self.i, psn

    def frame(self, op, psn=None, **kw):
        return r.request(B, A, self.qpn, self.psn if psn is None else psn, op, **kw)

    def send(self, op, advance=1, psn=None, **kw):
        """Sends one request; returns its PSN."""
        p = self.psn if psn is None else psn
        peer.send(self.frame(op, psn=p, **kw))
        if psn is None:
            self.psn = (self.psn + advance) & 0xFFFFFF
        return p

    def reply(self, timeout=1.0):
        return peer.one(timeout)

    def replies(self, n, timeout=1.0):
        return peer.recv(timeout, n)

    def silent(self, what, wait=0.25):
        got = peer.recv(wait)
        t.check(not got, "%s: no reply expected, got %s" % (
            what, [(hex(g["opcode"]), g["psn"], hex(g.get("syndrome", 0))) for g in got]))

    def state(self):
        return resp.state()[self.qpn]["state"]


def check_ack(rep, what, psn, syndrome=None, msn=None, dqpn=None):
    if not t.check(rep is not None, "%s: a reply" % what):
        return False
    ok = t.check(rep["opcode"] == r.ACK, "%s: opcode %#x, want ACK" % (what, rep["opcode"]))
    ok &= t.check(rep["psn"] == psn, "%s: PSN %d, want %d" % (what, rep["psn"], psn))
    if syndrome is not None:
        ok &= t.check(rep["syndrome"] == syndrome, "%s: syndrome %#x, want %#x"
                      % (what, rep["syndrome"], syndrome))
    if msn is not None:
        ok &= t.check(rep["msn"] == msn, "%s: MSN %d, want %d" % (what, rep["msn"], msn))
    if dqpn is not None:
        ok &= t.check(rep["dqpn"] == dqpn, "%s: to QP %#x, want %#x" % (what, rep["dqpn"], dqpn))
    return ok


def counters_delta(before, key, sub):
    return resp.counters()[key][sub] - before[key][sub]


def check_nak_then_error(c, what, syndrome, psn):
    rep = c.reply()
    check_ack(rep, what, psn, syndrome=syndrome)
    t.check(c.state() == "ERROR", "%s: the QP goes to the error state" % what)
    before = resp.counters()
    c.send(r.SEND_ONLY, payload=b"after")
    c.silent(what + ": later requests")
    t.check(counters_delta(before, "drops", "qp_error") == 1,
            "%s: a request to a QP in error is dropped and counted" % what)


def test_ack_msn():
    c = Conn()
    c.send(r.SEND_ONLY, payload=r.pattern(100))
    rep = c.reply()
    check_ack(rep, "SEND Only", 0, syndrome=credit_code(RECV - 1), msn=1, dqpn=c.dqpn)
    t.check(rep is not None and rep["pkey"] == 0xFFFF and rep["tver"] == 0 and rep["icrc_ok"],
            "the ACK's P_Key, TVer and ICRC")
    t.check(V6 or (rep is not None and rep["ip_id"] == 0 and rep["df"]),
            "replies carry IP identification 0 and DF (what the ICRC was computed over)")
    c.send(r.WRITE_ONLY, payload=b"abcd", reth=(VA + 64, RKEY, 4), ackreq=False)
    c.silent("WRITE without AckReq")
    c.send(r.WRITE_ONLY, payload=b"efgh", reth=(VA + 68, RKEY, 4))
    check_ack(c.reply(), "WRITE with AckReq acknowledges both", 2, msn=3)
    t.check(resp.dump(64, 8) == b"abcdefgh", "both WRITEs landed")
    wc = [w for w in resp.completions if w["qpn"] == c.qpn]
    t.check(len(wc) == 1 and wc[0]["byte_len"] == 100 and wc[0]["status"] == "SUCCESS",
            "one receive completion for the SEND: %s" % wc)


def test_multi_packet_send():
    c = Conn()
    data = r.pattern(2 * PMTU + 100, 3)
    c.send(r.SEND_FIRST, payload=data[:PMTU], ackreq=False)
    c.send(r.SEND_MIDDLE, payload=data[PMTU:2 * PMTU], ackreq=False)
    c.send(r.SEND_LAST_IMM, payload=data[2 * PMTU:], imm=0x12345678)
    check_ack(c.reply(), "SEND First/Middle/Last", 2, msn=1)
    resp.settled()
    wc = [w for w in resp.completions if w["qpn"] == c.qpn]
    import zlib
    t.check(len(wc) == 1 and wc[0]["byte_len"] == len(data) and
            wc[0]["crc32"] == zlib.crc32(data) and wc[0].get("imm") == 0x12345678,
            "one completion with all the bytes and the immediate: %s" % wc)


def test_write_imm_consumes_receive():
    c = Conn()
    c.send(r.WRITE_ONLY_IMM, payload=b"wxyz", reth=(VA + 128, RKEY, 4), imm=77)
    check_ack(c.reply(), "WRITE with Immediate", 0, syndrome=credit_code(RECV - 1), msn=1)
    resp.settled()
    wc = [w for w in resp.completions if w["qpn"] == c.qpn]
    t.check(len(wc) == 1 and wc[0]["wc"] == "RECV_RDMA_WITH_IMM" and wc[0]["imm"] == 77 and
            wc[0]["byte_len"] == 4, "WRITE with Immediate completes a receive: %s" % wc)
    # A multi-packet WRITE.
    data = r.pattern(2 * PMTU + 300, 9)
    c.send(r.WRITE_FIRST, payload=data[:PMTU], reth=(VA + 4096, RKEY, len(data)), ackreq=False)
    c.send(r.WRITE_MIDDLE, payload=data[PMTU:2 * PMTU], ackreq=False)
    c.send(r.WRITE_LAST, payload=data[2 * PMTU:])
    check_ack(c.reply(), "WRITE First/Middle/Last", 3, msn=2)
    t.check(resp.dump(4096, len(data)) == data, "the multi-packet WRITE landed")


def test_send_with_invalidate():
    c = Conn()
    c.send(r.SEND_ONLY_INV, payload=b"bye", ieth=INV_RKEY)
    check_ack(c.reply(), "SEND with Invalidate", 0, msn=1)
    resp.settled()
    wc = [w for w in resp.completions if w["qpn"] == c.qpn]
    t.check(len(wc) == 1 and wc[0].get("invalidated_rkey") == INV_RKEY,
            "the completion names the invalidated R_Key: %s" % wc)
    p = c.send(r.WRITE_ONLY, payload=b"late", reth=(INV_VA, INV_RKEY, 4))
    check_nak_then_error(c, "WRITE with an invalidated R_Key", r.NAK_ACC, p)
    c2 = Conn()
    p = c2.send(r.SEND_ONLY_INV, payload=b"x", ieth=RKEY)   # not invalidatable
    check_nak_then_error(c2, "SEND with Invalidate of a key that may not be", r.NAK_INV, p)


def test_length_violations():
    cases = [
        ("FIRST shorter than the PMTU", [(r.SEND_FIRST, dict(payload=bytes(PMTU - 24)))]),
        ("MIDDLE shorter than the PMTU", [(r.SEND_FIRST, dict(payload=bytes(PMTU))),
                                          (r.SEND_MIDDLE, dict(payload=bytes(PMTU - 4)))]),
        ("LAST with no payload", [(r.SEND_FIRST, dict(payload=bytes(PMTU))),
                                  (r.SEND_LAST, dict(payload=b""))]),
        ("ONLY longer than the PMTU", [(r.SEND_ONLY, dict(payload=bytes(PMTU + 4)))]),
        ("LAST longer than the PMTU", [(r.SEND_FIRST, dict(payload=bytes(PMTU))),
                                       (r.SEND_LAST, dict(payload=bytes(PMTU + 4)))]),
        ("pad count wrong on a FIRST", [(r.SEND_FIRST, dict(payload=bytes(PMTU), padcount=2))]),
        ("WRITE Only payload differs from its RETH length",
         [(r.WRITE_ONLY, dict(payload=bytes(10), reth=(VA, RKEY, 20)))]),
        ("WRITE payload does not add up to its RETH length",
         [(r.WRITE_FIRST, dict(payload=bytes(PMTU), reth=(VA, RKEY, 2000))),
          (r.WRITE_LAST, dict(payload=bytes(200)))]),
        ("WRITE First with nothing left for a LAST",
         [(r.WRITE_FIRST, dict(payload=bytes(PMTU), reth=(VA, RKEY, PMTU)))]),
        ("READ DMA length above 2^31", [(r.READ_REQ, dict(reth=(VA, RKEY, 0x80000001)))]),
        ("SEND longer than the receive buffer",
         [(r.SEND_FIRST if i == 0 else r.SEND_MIDDLE, dict(payload=bytes(PMTU)))
          for i in range(RECV_SIZE // PMTU + 1)]),
    ]
    for what, frames in cases:
        c = Conn()
        before = resp.counters()
        for op, kw in frames:
            p = c.send(op, ackreq=False, **kw)
        check_nak_then_error(c, what, r.NAK_INV, p)
        t.check(counters_delta(before, "naks", "invalid_request") == 1,
                "%s: counted as an invalid request" % what)


def test_zero_length():
    c = Conn()
    c.send(r.WRITE_ONLY, payload=b"", reth=(0xDEAD0000, 0xBADBAD, 0))
    check_ack(c.reply(), "zero-length WRITE with a bogus R_Key and VA (C9-88)", 0, msn=1)
    p = c.send(r.READ_REQ, reth=(0, 0x77777777, 0))
    rep = c.reply()
    t.check(rep is not None and rep["opcode"] == r.READ_ONLY and rep["psn"] == p and
            rep["payload"] == b"" and rep["msn"] == 2,
            "zero-length READ: an empty READ Response Only: %s" % (rep and rep["opcode"]))
    c.send(r.SEND_ONLY, payload=b"z")
    check_ack(c.reply(), "a zero-length READ takes one PSN", p + 1, msn=3)


def test_read_response_psns():
    c = Conn(psn=0)
    data = r.pattern(3500, 5)
    c.send(r.WRITE_ONLY, payload=data[:PMTU], reth=(VA + 8192, RKEY, PMTU), ackreq=False)
    c.send(r.WRITE_FIRST, payload=data[PMTU:2 * PMTU], reth=(VA + 8192 + PMTU, RKEY,
                                                              len(data) - PMTU), ackreq=False)
    c.send(r.WRITE_MIDDLE, payload=data[2 * PMTU:3 * PMTU], ackreq=False)
    c.send(r.WRITE_LAST, payload=data[3 * PMTU:])
    check_ack(c.reply(), "WRITEs before the READ", 3, msn=2)
    p = c.send(r.READ_REQ, advance=4, reth=(VA + 8192, RKEY, len(data)))
    reps = c.replies(4)
    t.check([x["opcode"] for x in reps] == [r.READ_FIRST, r.READ_MIDDLE, r.READ_MIDDLE,
                                             r.READ_LAST],
            "READ of 3.4 PMTUs: First, Middle, Middle, Last: %s" % [x["opcode"] for x in reps])
    t.check([x["psn"] for x in reps] == [p, p + 1, p + 2, p + 3], "one PSN per response")
    t.check(b"".join(x["payload"] for x in reps) == data, "the responses carry the memory")
    t.check([("syndrome" in x) for x in reps] == [True, False, False, True],
            "an AETH on First and Last only")
    t.check(all(x["msn"] == 3 for x in reps if "msn" in x),
            "MSN counts the READ once, when it is accepted")
    c.send(r.SEND_ONLY, payload=b"after")
    check_ack(c.reply(), "the next PSN after a 4-packet READ", p + 4, msn=4)


def test_atomics():
    c = Conn()
    off = 512
    c.send(r.FETCH_ADD, atomic=(VA + off, RKEY, 5, 0))
    a = c.reply()
    t.check(a is not None and a["opcode"] == r.ATOMIC_ACK and a["orig"] == 0 and a["psn"] == 0
            and a["msn"] == 1, "FETCH_ADD: an Atomic ACK with the original value 0")
    c.send(r.CMP_SWAP, atomic=(VA + off, RKEY, 99, 5))
    a = c.reply()
    t.check(a is not None and a["orig"] == 5, "CMP_SWAP that matches: original 5")
    c.send(r.CMP_SWAP, atomic=(VA + off, RKEY, 1234, 5))
    a = c.reply()
    t.check(a is not None and a["orig"] == 99, "CMP_SWAP that does not match: original 99")
    t.check(struct.unpack("<Q", resp.dump(off, 8))[0] == 99,
            "memory holds the swapped value, untouched by the failed compare")
    c2 = Conn()
    p = c2.send(r.FETCH_ADD, atomic=(VA + 4, RKEY, 1, 0))
    check_nak_then_error(c2, "misaligned atomic", r.NAK_INV, p)
    c3 = Conn()
    p = c3.send(r.FETCH_ADD, atomic=(RO_VA, RO_RKEY, 1, 0))
    check_nak_then_error(c3, "atomic on a region without atomic access", r.NAK_ACC, p)


def test_seq_nak_once():
    c = Conn()
    before = resp.counters()
    c.send(r.SEND_ONLY, psn=2, payload=b"2")
    rep = c.reply()
    check_ack(rep, "a request two PSNs ahead", 0, syndrome=r.NAK_SEQ)
    c.send(r.SEND_ONLY, psn=3, payload=b"3")
    c.send(r.SEND_ONLY, psn=4, payload=b"4")
    c.silent("further requests ahead of the gap")
    t.check(counters_delta(before, "drops", "psn_gap") == 2, "the silent drops are counted")
    t.check(counters_delta(before, "naks", "psn_sequence_error") == 1, "one NAK for the gap")
    for psn in range(5):
        c.send(r.SEND_ONLY, psn=psn, payload=bytes([psn]))
        check_ack(c.reply(), "PSN %d after the gap closed" % psn, psn, msn=psn + 1)
    t.check(c.state() == "RTS", "a sequence error leaves the QP working")


def test_duplicates():
    c = Conn()
    before = resp.counters()
    c.send(r.SEND_ONLY, payload=b"once")
    check_ack(c.reply(), "SEND", 0, msn=1)
    c.send(r.SEND_ONLY, psn=0, payload=b"once")
    check_ack(c.reply(), "duplicate SEND is acknowledged again", 0, msn=1)
    resp.settled()
    t.check(len([w for w in resp.completions if w["qpn"] == c.qpn]) == 1,
            "a duplicate SEND is not executed again")
    c.send(r.WRITE_ONLY, payload=b"XXXX", reth=(VA + 1024, RKEY, 4))
    c.send(r.WRITE_ONLY, payload=b"YYYY", reth=(VA + 1024, RKEY, 4))
    acks = c.replies(2, 0.3)
    check_ack(acks[-1] if acks else None, "two WRITEs (ACKs may be coalesced)", 2, msn=3)
    c.send(r.WRITE_ONLY, psn=1, payload=b"XXXX", reth=(VA + 1024, RKEY, 4))
    check_ack(c.reply(), "duplicate WRITE is acknowledged again", 2, msn=3)
    t.check(resp.dump(1024, 4) == b"YYYY", "a duplicate WRITE does not write again")
    t.check(counters_delta(before, "duplicates", "send") == 1 and
            counters_delta(before, "duplicates", "write") == 1, "duplicates are counted")
    # READ: whole, a subset from a later PSN, and one with a wrong R_Key.
    data = resp.dump(0, 3000)
    p = c.send(r.READ_REQ, advance=3, reth=(VA, RKEY, 3000))
    first = c.replies(3)
    c.send(r.READ_REQ, psn=p, reth=(VA, RKEY, 3000))
    again = c.replies(3)
    t.check([x["psn"] for x in again] == [p, p + 1, p + 2] and
            b"".join(x["payload"] for x in again) == data == b"".join(x["payload"] for x in first),
            "a duplicate READ is answered again from the responder resources")
    c.send(r.READ_REQ, psn=p + 1, reth=(VA + PMTU, RKEY, 3000 - PMTU))
    tail = c.replies(2)
    t.check([(x["opcode"], x["psn"]) for x in tail] == [(r.READ_FIRST, p + 1),
                                                         (r.READ_LAST, p + 2)] and
            b"".join(x["payload"] for x in tail) == data[PMTU:],
            "a READ asked again from its second PSN gets only the tail")
    b2 = resp.counters()
    c.send(r.READ_REQ, psn=p, reth=(VA, RKEY + 1, 3000))
    c.silent("a duplicate READ with another R_Key")
    t.check(counters_delta(b2, "drops", "dup_mismatch") == 1, "and it is counted")
    # ATOMIC: the saved value, memory untouched.
    pa = c.send(r.FETCH_ADD, atomic=(VA + 2048, RKEY, 7, 0))
    a1 = c.reply()
    c.send(r.FETCH_ADD, psn=pa, atomic=(VA + 2048, RKEY, 7, 0))
    a2 = c.reply()
    t.check(a1 is not None and a2 is not None and a1["orig"] == a2["orig"] == 0 and
            a2["psn"] == pa, "a duplicate atomic returns the saved original value")
    t.check(struct.unpack("<Q", resp.dump(2048, 8))[0] == 7, "and does not add again")
    # Four newer READs push the first out of the (four) responder resources.
    for _ in range(4):
        c.send(r.READ_REQ, reth=(VA, RKEY, 8))
        c.reply()
    b3 = resp.counters()
    c.send(r.READ_REQ, psn=p, reth=(VA, RKEY, 3000))
    c.silent("a duplicate READ older than every responder resource")
    t.check(counters_delta(b3, "drops", "dup_no_resource") == 1, "and it is counted")


def test_rnr():
    c = Conn()
    for i in range(RECV):
        c.send(r.SEND_ONLY, payload=bytes([i]))
        c.reply()
    before = resp.counters()
    p = c.send(r.SEND_ONLY, payload=b"no room")
    check_ack(c.reply(), "SEND with no receive posted", p, syndrome=0x20 | RNR_TIMER)
    p2 = c.send(r.WRITE_ONLY_IMM, psn=p, payload=b"imm", reth=(VA, RKEY, 3), imm=1)
    check_ack(c.reply(), "WRITE with Immediate with no receive posted", p2,
              syndrome=0x20 | RNR_TIMER)
    t.check(resp.counters()["rnr_naks"] - before["rnr_naks"] == 2, "RNR NAKs are counted")
    t.check(c.state() == "RTS", "an RNR NAK leaves the QP working")
    resp.ctl("recv 1 %d" % c.qpn, "posted")
    c.send(r.SEND_ONLY, psn=p, payload=b"now")
    check_ack(c.reply(), "the retried SEND once a receive is posted", p, msn=RECV + 1)


def test_opcode_sequence():
    cases = [
        ("SEND Middle outside a message", [(r.SEND_MIDDLE, dict(payload=bytes(PMTU)))]),
        ("SEND Last outside a message", [(r.SEND_LAST, dict(payload=b"x"))]),
        ("WRITE Middle outside a message", [(r.WRITE_MIDDLE, dict(payload=bytes(PMTU)))]),
        ("a new SEND before the last one ended", [(r.SEND_FIRST, dict(payload=bytes(PMTU))),
                                                 (r.SEND_ONLY, dict(payload=b"x"))]),
        ("a WRITE Middle inside a SEND", [(r.SEND_FIRST, dict(payload=bytes(PMTU))),
                                          (r.WRITE_MIDDLE, dict(payload=bytes(PMTU)))]),
        ("a READ inside a WRITE", [(r.WRITE_FIRST, dict(payload=bytes(PMTU),
                                                        reth=(VA, RKEY, 2 * PMTU))),
                                   (r.READ_REQ, dict(reth=(VA, RKEY, 8)))]),
    ]
    for what, frames in cases:
        c = Conn()
        for op, kw in frames:
            p = c.send(op, ackreq=False, **kw)
        check_nak_then_error(c, what, r.NAK_INV, p)


def test_access_errors():
    cases = [
        ("WRITE to a region without remote write", r.WRITE_ONLY,
         dict(payload=b"nope", reth=(RO_VA, RO_RKEY, 4))),
        ("READ with an unknown R_Key", r.READ_REQ, dict(reth=(VA, 0xFEEDF00D, 16))),
        ("READ past the end of the region", r.READ_REQ, dict(reth=(VA + (1 << 20) - 8, RKEY, 16))),
        ("READ before the start of the region", r.READ_REQ, dict(reth=(VA - 8, RKEY, 16))),
        ("WRITE whose VA + length wraps 2^64", r.WRITE_ONLY,
         dict(payload=bytes(16), reth=(0xFFFFFFFFFFFFFFF8, RKEY, 16))),
        ("READ from another region's R_Key range", r.READ_REQ, dict(reth=(VA, RO_RKEY, 16))),
    ]
    for what, op, kw in cases:
        c = Conn()
        before = resp.counters()
        p = c.send(op, **kw)
        check_nak_then_error(c, what, r.NAK_ACC, p)
        t.check(counters_delta(before, "naks", "remote_access_error") == 1,
                "%s: counted as a remote access error" % what)
    t.check(resp.dump(0, 16) != b"" and True, "memory readable after the access errors")


def test_remote_operational_error():
    c = Conn()
    for i in range(RECV):
        c.send(r.SEND_ONLY, payload=bytes([i]))
        c.reply()
    resp.ctl("recv-bad 1 %d" % c.qpn, "posted")
    p = c.send(r.SEND_ONLY, payload=b"to a bad buffer")
    check_nak_then_error(c, "SEND into a receive WQE outside any region", r.NAK_OP, p)


def test_silent_drops():
    c = Conn()
    checks = [
        ("bad ICRC", "icrc", lambda: spoil(c.frame(r.SEND_ONLY, payload=b"bad icrc"))),
        ("P_Key of another partition", "pkey", lambda: c.frame(r.SEND_ONLY, payload=b"k",
                                                               pkey=0x8123)),
        ("unknown destination QP", "qpn", lambda: r.request(B, A, 0xABCDEF, 0, r.SEND_ONLY,
                                                           payload=b"q")),
        ("transport header version 1", "tver", lambda: c.frame(r.SEND_ONLY, payload=b"v",
                                                              tver=1)),
        ("a UC opcode on an RC QP", "transport", lambda: c.frame(0x24, payload=b"uc")),
        ("reserved RC opcode 0x1c", "transport", lambda: c.frame(0x1C, payload=b"rsvd")),
        ("reserved RC opcode 0x1f", "transport", lambda: c.frame(0x1F)),
        ("reserved RC opcode 0x15", "transport", lambda: c.frame(0x15, payload=b"r")),
        ("a packet whose length is not a multiple of four", "malformed",
         lambda: odd_length(c.frame(r.SEND_ONLY, payload=b"abcd"))),
    ]
    for what, key, make in checks:
        before = resp.counters()
        peer.send(make())
        c.silent(what)
        t.check(counters_delta(before, "drops", key) == 1, "%s: counted under drops.%s"
                % (what, key))
    before = resp.counters()
    stranger.send(r.request(C, A, c.qpn, 0, r.SEND_ONLY, payload=b"who?"))
    c.silent("a request from another address than the connected peer")
    t.check(counters_delta(before, "drops", "source") == 1, "counted under drops.source")
    c.send(r.SEND_ONLY, payload=b"fine")
    check_ack(c.reply(), "a valid request after the silent drops", 0, msn=1)


def spoil(frame):
    corrupted.add(len(peer.frames))
    return frame[:-1] + bytes([frame[-1] ^ 0x40])


def odd_length(frame):
    """Two bytes more before the ICRC, IP and UDP lengths to match, ICRC from scapy (IPv6:
    ibframes): a transport packet that is not a multiple of four bytes long."""
    return r.refit(frame[:-4] + b"\x00\x00")


def test_psn_wrap():
    w = r.Responder(["--bind", WRAP_A, "--peer", r.plain(B), "--peer-qpn", "0x300",
                     "--peer-psn", "0xfffffd", "--qpn", "0x400", "--mr", "64K", "--recv", "4",
                     "--pmtu", str(PMTU), "--no-listen"], prefix=RESP_PREFIX)
    va, rkey = w.info["va"], w.info["rkey"]
    send = lambda psn, op, **kw: peer.send(r.request(B, WRAP_A, 0x400, psn, op, **kw))
    send(0xFFFFFD, r.SEND_ONLY, payload=b"a")
    check_ack(peer.one(), "PSN 0xfffffd", 0xFFFFFD, msn=1)
    send(0xFFFFFE, r.WRITE_FIRST, payload=r.pattern(PMTU), reth=(va, rkey, 2 * PMTU + 8),
         ackreq=False)
    send(0xFFFFFF, r.WRITE_MIDDLE, payload=r.pattern(PMTU, 1), ackreq=False)
    send(0, r.WRITE_LAST, payload=b"12345678")
    check_ack(peer.one(), "a WRITE across the wrap", 0, msn=2)
    send(1, r.READ_REQ, reth=(va, rkey, 3 * PMTU))
    reps = peer.recv(1.0, 3)
    t.check([x["psn"] for x in reps] == [1, 2, 3], "READ responses after the wrap")
    send(0xFFFFFF, r.WRITE_MIDDLE, payload=r.pattern(PMTU, 1))
    # Acknowledged again, with the last PSN taken (the READ's last, as rxe answers): an ACK
    # of PSN 0 after the READ's responses would go backwards.
    check_ack(peer.one(), "a duplicate from before the wrap is recognised", 3, msn=3)
    w.stop()


def test_cnp():
    """A CE mark brings one CNP; then counts, not time: CE-marked requests each get a CNP or
    are paced (counted), the CNPs on the wire are the ones counted, and a CE mark after
    --cnp-interval has passed (a lower bound, which load cannot break) gets its CNP. That
    a second mark inside the interval is paced is tests/unit/test_rc.c's, on a virtual
    clock: here the machine's load decides how far apart two packets arrive."""
    c = Conn()
    before = resp.counters()
    c.send(r.SEND_ONLY, payload=b"ce", ecn=3)
    reps = c.replies(2)
    cnps = [x for x in reps if x["opcode"] == r.CNP]
    t.check(len(cnps) == 1, "a CE-marked request makes the responder send a CNP")
    if cnps:
        x = cnps[0]
        t.check(x["becn"] == 1 and x["dqpn"] == c.dqpn and x["cnp_reserved"] == bytes(16) and
                x["icrc_ok"], "the CNP: BECN set, to the sender's QP, 16 zero bytes, ICRC")
    time.sleep(0.03)        # past the 20 ms interval since the first CNP
    c.send(r.SEND_ONLY, payload=b"ce2", ecn=3)
    last = c.send(r.SEND_ONLY, payload=b"ce3", ecn=3)
    # The CNPs go before the ACK of what they answer: once the last SEND is acknowledged,
    # the counters hold every CNP there will be.
    got, acked = [], False
    end = time.time() + 30
    while not acked and time.time() < end:
        more = c.replies(1, end - time.time())
        got += more
        acked = any(x["opcode"] == r.ACK and x["psn"] == last for x in more)
    sent = counters_delta(before, "cnps", "sent")
    paced = counters_delta(before, "cnps", "paced")
    while len(cnps) + len([x for x in got if x["opcode"] == r.CNP]) < sent and \
            time.time() < end:
        got += c.replies(1, end - time.time())
    wire = len(cnps) + len([x for x in got if x["opcode"] == r.CNP])
    t.check(acked, "the CE-marked SENDs are acknowledged")
    t.check(sent + paced == 3 and sent >= 2,
            "3 CE marks: each a CNP or paced, the one after the interval a CNP: %d sent, %d "
            "paced" % (sent, paced))
    t.check(wire == sent, "the CNPs on the wire are the ones counted: %d, %d" % (wire, sent))


def test_qp_access():
    q = r.Responder(["--bind", QPACC_A, "--peer", r.plain(B), "--peer-qpn", "0x500", "--qpn",
                     "0x600", "--qp-access", "r", "--no-listen"], prefix=RESP_PREFIX)
    peer.send(r.request(B, QPACC_A, 0x600, 0, r.READ_REQ, reth=(q.info["va"], q.info["rkey"], 8)))
    rep = peer.one()
    t.check(rep is not None and rep["opcode"] == r.READ_ONLY, "READ on a QP that allows READ")
    peer.send(r.request(B, QPACC_A, 0x600, 1, r.WRITE_ONLY, payload=b"w",
                        reth=(q.info["va"], q.info["rkey"], 1)))
    check_ack(peer.one(), "WRITE on a QP not enabled for remote write", 1, syndrome=r.NAK_INV)
    final = q.stop()
    t.check(final is not None and final["naks"]["invalid_request"] == 1,
            "exit counters name the NAK: %s" % (final and final["naks"]))


peer.accept = {A, WRAP_A, QPACC_A}
tests = [test_ack_msn, test_multi_packet_send, test_write_imm_consumes_receive,
         test_send_with_invalidate, test_length_violations, test_zero_length,
         test_read_response_psns, test_atomics, test_seq_nak_once, test_duplicates, test_rnr,
         test_opcode_sequence, test_access_errors, test_remote_operational_error,
         test_silent_drops, test_psn_wrap, test_cnp, test_qp_access]
for fn in tests:
    n = len(t.failures)
    fn()
    print("%-34s %s" % (fn.__name__, "ok" if len(t.failures) == n else "FAILED"))

final = resp.stop()
t.check(final is not None and final["executed"]["send"] > 0, "exit counters printed")
ours = [f for i, f in enumerate(peer.frames) if i not in corrupted]
mine = [f for f in ours if r.parse(f)["src"] == r.plain(A)]
t.check(mine and all(r.icrc_ok(f) for f in mine),
        "%s finds the ICRC of every one of the responder's %d frames good"
        % ("ibframes" if V6 else "scapy", len(mine)))
path = os.path.join(t.tempdir(), "responder.pcap")
peer.frames = ours
peer.write_pcap(path)
status = r.icrc_statuses(path)
t.check(len(status) == len(ours) and set(status) == {"1"},
        "roceshark.icrc.status is 1 on all %d frames, both directions: %s"
        % (len(ours), sorted(set(status))))
peer.close()
stranger.close()
t.finish("RC responder conformance (%s)" % MODE[2:])
