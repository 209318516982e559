#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The RC requester against a responder written here, in Python with scapy.contrib.roce:
it sees every request our requester sends, checks its wire format and ICRC, and answers
exactly as each scenario needs (loses a packet, skips a READ response, sends NAKs, RNR
NAKs, or nothing at all). One function per row of docs/conformance.md that names this file."""
import os
import subprocess
import json
import time
import zlib

import rcpeer as r
import rstest as t

PMTU = 1024
FQPN = 0x77         # the fake responder's QP
CQPN = 0x11         # rc_client's QP
RKEY = 0x42


# The local ACK timeout of a scenario that is not about it: 4.096 us * 2^18 = 1.07 s. The
# requester's default (67 ms) is shorter than this Python responder's answer can take on a
# busy machine, and a retry for a timeout there would come before the NAK or ACK the
# scenario scripts, and change what it sees.
PATIENT = ["--timeout", "18"]


class Run:
    """rc_client on Q talking to our fake responder on F."""

    def __init__(self, ops, extra=()):
        self.q, self.f = r.addresses(2)
        self.fake = r.Endpoint(self.f)
        self.fake.accept = {self.q}
        extra = list(extra) if "--timeout" in extra else PATIENT + list(extra)
        self.proc = t.spawn(
            [r.RC_CLIENT, "--bind", self.q, "--peer", self.f, "--peer-qpn", hex(FQPN),
             "--qpn", hex(CQPN), "--pmtu", str(PMTU)] + extra + list(ops),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.requests = []

    def get(self, n, timeout=2.0):
        got = self.fake.recv(timeout, n)
        for g in got:
            t.check(g["icrc_ok"], "request PSN %d: ICRC good (scapy)" % g["psn"])
            t.check(g["ip_id"] == 0 and g["df"] and g["dqpn"] == FQPN,
                    "request PSN %d: IP id 0, DF, to the responder's QP" % g["psn"])
        self.requests += got
        return got

    def get_after_first(self, n, window):
        """Up to n requests: the first whenever rc_client gets to send it (its start is slow
        under the sanitizers on a busy machine), the rest within window seconds of it."""
        first = self.get(1, 10.0)
        return first + (self.get(n - 1, window) if first and n > 1 else [])

    def reply(self, psn, op=r.ACK, **kw):
        self.fake.send(r.response(self.f, self.q, CQPN, psn, op, **kw))

    def finish(self, timeout=20):
        out, err = self.proc.communicate(timeout=timeout)
        self.fake.close()
        lines = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
        if not lines:
            t.check(False, "rc_client printed nothing: " + err)
            return [], {"counters": {}, "state": "?"}
        return [x for x in lines if "wr_id" in x], lines[-1]


def statuses(wcs):
    return [w["status"] for w in sorted(wcs, key=lambda w: w["wr_id"])]


def test_segmentation_and_ackreq():
    run = Run(["send:2500", "write:3000:0x1000:%d" % RKEY, "send_imm:10:77",
               "send_inv:10:0x99", "write_imm:10:0x2000:%d:5" % RKEY],
              ["--psn", "100", "--ack-req-every", "1000"])
    s = run.get(3)
    t.check([x["opcode"] for x in s] == [r.SEND_FIRST, r.SEND_MIDDLE, r.SEND_LAST] and
            [x["psn"] for x in s] == [100, 101, 102] and
            [len(x["payload"]) for x in s] == [1024, 1024, 452] and
            [x["ackreq"] for x in s] == [0, 0, 1],
            "SEND of 2500 bytes: First, Middle, Last with AckReq on the Last: %s"
            % [(x["opcode"], x["psn"], len(x["payload"]), x["ackreq"]) for x in s])
    t.check(b"".join(x["payload"] for x in s) == r.pattern(2500, 0), "the SEND's bytes")
    run.reply(102)
    w = run.get(3)
    t.check([x["opcode"] for x in w] == [r.WRITE_FIRST, r.WRITE_MIDDLE, r.WRITE_LAST] and
            w and w[0].get("reth") == (0x1000, RKEY, 3000) and
            b"".join(x["payload"] for x in w) == r.pattern(3000, 1),
            "WRITE of 3000 bytes: RETH with the whole length on the First")
    run.reply(105)
    o = run.get(3)
    t.check([(x["opcode"], x.get("imm"), x.get("ieth")) for x in o] ==
            [(r.SEND_ONLY_IMM, 77, None), (r.SEND_ONLY_INV, None, 0x99),
             (r.WRITE_ONLY_IMM, 5, None)] and o[2].get("reth") == (0x2000, RKEY, 10),
            "SEND with immediate, with invalidate, WRITE with immediate")
    run.reply(108)
    wcs, summary = run.finish()
    t.check(statuses(wcs) == ["SUCCESS"] * 5, "all complete: %s" % statuses(wcs))
    t.check([w["opcode"] for w in sorted(wcs, key=lambda w: w["wr_id"])] ==
            ["SEND", "RDMA_WRITE", "SEND", "SEND", "RDMA_WRITE"], "completion opcodes")
    run2 = Run(["write:5000:0x1000:%d" % RKEY], ["--ack-req-every", "2"])
    w = run2.get(5)
    t.check([x["ackreq"] for x in w] == [0, 1, 0, 1, 1],
            "AckReq after every second packet and on the Last: %s" % [x["ackreq"] for x in w])
    run2.reply(4)
    run2.finish()


def test_go_back_n():
    run = Run(["write:5120:0x3000:%d" % RKEY])
    first = run.get(5)
    data = r.pattern(5120, 0)
    # Packet 2 was "lost": the responder NAKs its PSN when packet 3 arrives.
    run.reply(2, syndrome=r.NAK_SEQ)
    again = run.get(3)
    t.check([(x["opcode"], x["psn"]) for x in again] ==
            [(r.WRITE_MIDDLE, 2), (r.WRITE_MIDDLE, 3), (r.WRITE_LAST, 4)],
            "go-back-N resumes at the lost PSN with a WRITE Middle: %s"
            % [(x["opcode"], x["psn"]) for x in again])
    t.check(again and again[0]["payload"] == data[2048:3072],
            "the resent packet carries the bytes at its offset")
    t.check(len(first) == 5, "the first pass sent the whole message")
    run.reply(4)
    wcs, summary = run.finish()
    t.check(statuses(wcs) == ["SUCCESS"], "the WRITE completes: %s" % statuses(wcs))
    t.check(summary["counters"].get("seq_nak_received") == 1, "one sequence NAK received")


def test_lost_read_response():
    run = Run(["read:4096:0x4000:%d" % RKEY])
    req = run.get(1)
    t.check(req and req[0]["opcode"] == r.READ_REQ and req[0]["reth"] == (0x4000, RKEY, 4096),
            "a READ request with its RETH")
    data = r.pattern(4096, 99)
    run.reply(0, r.READ_FIRST, payload=data[:1024])
    run.reply(2, r.READ_MIDDLE, payload=data[2048:3072])      # PSN 1 never comes
    again = run.get(1)
    t.check(again and again[0]["opcode"] == r.READ_REQ and again[0]["psn"] == 1 and
            again[0]["reth"] == (0x4000 + 1024, RKEY, 3072),
            "the READ is asked again from the missing PSN, VA and length moved on: %s"
            % repr(again and (again[0]["psn"], again[0].get("reth"))))
    run.reply(1, r.READ_FIRST, payload=data[1024:2048])
    run.reply(2, r.READ_MIDDLE, payload=data[2048:3072])
    run.reply(3, r.READ_LAST, payload=data[3072:])
    wcs, summary = run.finish()
    t.check(statuses(wcs) == ["SUCCESS"] and wcs[0]["crc32"] == zlib.crc32(data),
            "the READ completes with every byte in place")
    t.check(summary["counters"].get("read_gap", 0) >= 1, "the gap is counted")


def test_implied_nak():
    run = Run(["read:1024:0x5000:%d" % RKEY, "send:100"])
    got = run.get(2)
    t.check([x["opcode"] for x in got] == [r.READ_REQ, r.SEND_ONLY], "READ then SEND")
    run.reply(1)            # acknowledges the SEND, skipping the READ's response
    again = run.get(2)
    t.check([(x["opcode"], x["psn"]) for x in again] == [(r.READ_REQ, 0), (r.SEND_ONLY, 1)],
            "an ACK past an outstanding READ is an implied NAK: the READ goes again: %s"
            % [(x["opcode"], x["psn"]) for x in again])
    data = r.pattern(1024, 5)
    run.reply(0, r.READ_ONLY, payload=data)
    run.reply(1)
    wcs, summary = run.finish()
    t.check(statuses(wcs) == ["SUCCESS", "SUCCESS"], "both complete: %s" % statuses(wcs))
    t.check(wcs and sorted(wcs, key=lambda w: w["wr_id"])[0]["crc32"] == zlib.crc32(data),
            "the READ has the data")
    t.check(summary["counters"].get("implied_nak", 0) >= 1, "counted as an implied NAK")


def test_timeout_retry():
    # timeout 14: 4.096 us * 2^14 = 67 ms, long enough for Python to answer in time even on
    # a busy machine.
    run = Run(["send:64"], ["--timeout", "14", "--retry-cnt", "3"])
    times = []
    for _ in range(3):
        got = run.get(1)
        if got:
            times.append(got[0]["ts"])     # when the kernel received it
    run.reply(0)
    wcs, summary = run.finish()
    gaps = [b - a for a, b in zip(times, times[1:])]
    # The times are when the kernel received each copy: one held up on a loaded host makes
    # the next gap shorter by as much, so 5% of the 67 ms is left for that.
    t.check(len(times) == 3 and all(g >= 0.067 * 0.95 for g in gaps),
            "retransmissions after the local ACK timeout: gaps %s" % gaps)
    t.check(statuses(wcs) == ["SUCCESS"], "success after two timeouts: %s" % statuses(wcs))
    t.check(summary["counters"].get("timeouts") == 2, "two timeouts counted: %s"
            % summary["counters"].get("timeouts"))
    # Nobody answers: 1 + retry_cnt transmissions, then RETRY_EXC_ERR.
    run = Run(["send:64", "send:64"], ["--timeout", "6", "--retry-cnt", "2"])
    seen = run.get_after_first(100, 0.5)
    wcs, summary = run.finish()
    t.check(len([x for x in seen if x["psn"] == 0]) == 3,
            "retry_cnt 2: three transmissions of the first SEND, got %d"
            % len([x for x in seen if x["psn"] == 0]))
    t.check(statuses(wcs) == ["RETRY_EXC_ERR", "WR_FLUSH_ERR"],
            "retries exhausted: %s" % statuses(wcs))
    t.check(summary["state"] == "ERROR", "the QP is in the error state")


def test_rnr_retry():
    # RNR timer code 10: 0.32 ms.
    run = Run(["send:64"], ["--rnr-retry", "2"])
    times, naks = [], []
    for _ in range(2):
        got = run.get(1)
        if got:
            times.append(got[0]["ts"])
            # Before the NAK goes: the retry must come at least the timer after this, and
            # a time taken after sending could fall after the retry on a busy machine.
            naks.append(time.time())
            run.reply(0, syndrome=0x20 | 10)
    got = run.get(1)
    times.append(got[0]["ts"] if got else 0)
    run.reply(0)
    wcs, summary = run.finish()
    # Each retry comes at least the RNR timer (0.32 ms) after the NAK was sent.
    gaps = [b - a for a, b in zip(naks, times[1:])]
    t.check(len(gaps) == 2 and all(g >= 0.0003 for g in gaps),
            "RNR waits the timer after each RNR NAK: %s" % gaps)
    t.check(statuses(wcs) == ["SUCCESS"] and summary["counters"].get("rnr_nak_received") == 2,
            "success after two RNR NAKs")
    run = Run(["send:64"], ["--rnr-retry", "1"])
    for _ in range(2):
        if run.get(1):
            run.reply(0, syndrome=0x20 | 1)
    extra = run.get(1, 0.3)
    wcs, summary = run.finish()
    t.check(not extra and statuses(wcs) == ["RNR_RETRY_EXC_ERR"],
            "rnr_retry 1: two transmissions, then RNR_RETRY_EXC_ERR: %s" % statuses(wcs))
    run = Run(["send:64"], ["--rnr-retry", "7"])
    for _ in range(10):
        if run.get(1):
            run.reply(0, syndrome=0x20 | 1)
    run.get(1)
    run.reply(0)
    wcs, summary = run.finish()
    t.check(statuses(wcs) == ["SUCCESS"] and summary["counters"].get("rnr_nak_received") == 10,
            "rnr_retry 7 retries for ever: success after 10 RNR NAKs")


def test_error_naks():
    for syndrome, status in ((r.NAK_INV, "REM_INV_REQ_ERR"), (r.NAK_ACC, "REM_ACCESS_ERR"),
                             (r.NAK_OP, "REM_OP_ERR")):
        run = Run(["write:8:0x6000:%d" % RKEY, "send:8"])
        run.get(2)
        run.reply(0, syndrome=syndrome)
        wcs, summary = run.finish()
        t.check(statuses(wcs) == [status, "WR_FLUSH_ERR"] and summary["state"] == "ERROR",
                "NAK %#x: %s, the rest flushed: %s" % (syndrome, status, statuses(wcs)))


def test_max_rd_atomic():
    run = Run(["read:8:0x7000:%d" % RKEY] * 4, ["--max-rd-atomic", "2", "--timeout", "18"])
    got = run.get_after_first(4, 0.3)
    t.check(sorted(x["psn"] for x in got) == [0, 1],
            "max_rd_atomic 2: two READs outstanding, got PSNs %s" % [x["psn"] for x in got])
    run.reply(0, r.READ_ONLY, payload=bytes(8))
    more = run.get(1)
    t.check(more and more[0]["psn"] == 2, "the third READ goes once the first completed")
    run.reply(1, r.READ_ONLY, payload=bytes(8))
    run.get(1)
    run.reply(2, r.READ_ONLY, payload=bytes(8))
    run.reply(3, r.READ_ONLY, payload=bytes(8))
    wcs, _ = run.finish()
    t.check(statuses(wcs) == ["SUCCESS"] * 4, "all four complete")


def test_atomics_and_wrap():
    run = Run(["faa:0x8000:%d:3" % RKEY, "cas:0x8008:%d:10:20" % RKEY, "send:2500"],
              ["--psn", "0xfffffe"])
    got = run.get(2)
    t.check([(x["opcode"], x["psn"], x.get("atomic")) for x in got] ==
            [(r.FETCH_ADD, 0xFFFFFE, (0x8000, RKEY, 3, 0)),
             (r.CMP_SWAP, 0xFFFFFF, (0x8008, RKEY, 20, 10))],
            "FETCH_ADD and CMP_SWAP with their AtomicETH")
    run.reply(0xFFFFFE, r.ATOMIC_ACK, orig=111)
    run.reply(0xFFFFFF, r.ATOMIC_ACK, orig=222)
    s = run.get(3)
    t.check([x["psn"] for x in s] == [0, 1, 2], "PSNs wrap from 0xffffff to 0")
    run.reply(2)
    wcs, _ = run.finish()
    w = sorted(wcs, key=lambda w: w["wr_id"])
    t.check(statuses(wcs) == ["SUCCESS"] * 3 and w[0].get("orig") == 111 and
            w[1].get("orig") == 222, "atomics return the original values")


tests = [test_segmentation_and_ackreq, test_go_back_n, test_lost_read_response,
         test_implied_nak, test_timeout_retry, test_rnr_retry, test_error_naks,
         test_max_rd_atomic, test_atomics_and_wrap]
for fn in tests:
    n = len(t.failures)
    fn()
    print("%-34s %s" % (fn.__name__, "ok" if len(t.failures) == n else "FAILED"))
t.finish("RC requester conformance")
