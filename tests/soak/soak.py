#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""soak.py DURATION_SECONDS - our requester (rc_client) against our responder through
`roceshark bridge` with faults, for a while (root: three network namespaces, as
tests/integration/test_bridge.py makes them).

The bridge drops 1% of the RoCE frames, duplicates 0.5%, reorders 0.5% and marks ECN CE on
2%, seeded. Until the time is up, rounds of WRITEs, READs and SENDs follow each other, and
every byte is checked: the responder's memory after the WRITEs, what the READs brought back
against what it holds, the SENDs as it received them. At the end: every work request
completed SUCCESS, no run took longer than the requester's retry budget, the responder's RSS
stayed within 5% after its first 8 rounds (which touch its memory first), the bridge forwarded both ways with
nothing failed and each rule acted on no more frames than it matched; under the sanitizer
build no process reported anything. Progress goes to stdout each round."""
import atexit
import os
import subprocess
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "integration"))
import livenet as ln  # noqa: E402
import rcpeer as r  # noqa: E402
import rstest as t  # noqa: E402

PMTU, SIZE, OPS = 4096, 65536, 32          # 2 MiB a round, one 64K slot per work request
QPN = 0x300
# The local ACK timeout 4.096 us * 2^16 = 268 ms, 7 retries: a work request that gets no
# answer fails within 8 of them, 2.1 s. A run may meet a few such tails (lost last frames or
# ACKs); one that takes longer than the whole budget below has stalled.
TIMEOUT, RETRY_CNT = 16, 7
# The responder's RSS grows 2 MiB a round while the first rounds touch its memory (the 8 MiB
# region and its receive buffers) for the first time; from the 9th round on it must stay
# flat, and the run goes on for at least three such rounds whatever its duration.
WARMUP_ROUNDS = 8
BUDGET_S = (RETRY_CNT + 1) * 4.096e-6 * (1 << TIMEOUT) * 4
RULES = """# RoCE frames either way, seeded so that a run repeats
seed 2026
drop prob 0.01 if udp.dstport == 4791
duplicate prob 0.005 if udp.dstport == 4791
reorder gap 3 prob 0.005 if udp.dstport == 4791
mark ecn ce prob 0.02 if udp.dstport == 4791
"""
SANITIZED = t.BUILT.get("sanitize", False)
ASAN_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def packets(length):
    return max(1, -(-length // PMTU))


def rss_kb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Soak:
    def __init__(self, duration):
        self.duration = duration
        self.tmp = t.tempdir()
        self.ch = ln.Chain("soak")
        self.psn = 0                # the responder's next expected PSN
        self.memory = {}            # slot -> what the responder's memory should hold there
        self.verified = 0
        self.runs = []              # (kind, seconds)
        self.statuses = {}
        self.counters = {}          # the requester's, summed over its runs
        self.rss = []               # (elapsed, kB)
        self.round = 0

    def start(self):
        ch = self.ch
        rules = os.path.join(self.tmp, "soak.rules")
        open(rules, "w").write(RULES)
        self.bridge_err = os.path.join(self.tmp, "bridge.err")
        self.bridge = t.spawn(
            ch.inside(ch.ns_br, [t.ROCESHARK, "bridge", ch.if_a, ch.if_b, "--faults", rules]),
            stdout=subprocess.DEVNULL, stderr=open(self.bridge_err, "w"))
        atexit.register(self.bridge.kill)   # no-ops once they ended; before the namespaces go
        end = time.time() + 10
        while not open(self.bridge_err).read().startswith("bridge: "):
            if time.time() > end or self.bridge.poll() is not None:
                raise RuntimeError("bridge did not start: %s" % open(self.bridge_err).read())
            time.sleep(0.05)
        self.resp_err_path = os.path.join(self.tmp, "responder.err")
        self.resp_err = open(self.resp_err_path, "w")
        self.resp = r.Responder(["--bind", ch.ip_resp, "--peer", ch.ip_req, "--peer-qpn", "0x11",
                                 "--qpn", hex(QPN), "--mr", "8M", "--no-listen", "--pmtu",
                                 str(PMTU), "--recv", str(2 * OPS), "--recv-size", str(SIZE),
                                 "--repost"],
                                stderr=self.resp_err, prefix=ch.inside(ch.ns_resp, []))
        atexit.register(self.resp.proc.kill)
        self.va, self.rkey = self.resp.info["va"], self.resp.info["rkey"]

    def client(self, kind, ops, psns):
        """One rc_client run of ops; returns its completions (checked SUCCESS, timed)."""
        ch = self.ch
        began = time.time()
        wcs, summary = r.run_client(
            ch.ip_req, ch.ip_resp, QPN, ops,
            ["--psn", str(self.psn), "--pmtu", str(PMTU), "--timeout", str(TIMEOUT),
             "--retry-cnt", str(RETRY_CNT), "--wait-ms", str(int(BUDGET_S * 2000))],
            timeout=BUDGET_S * 3, prefix=ch.inside(ch.ns_req, []))
        self.runs.append((kind, time.time() - began))
        self.psn = (self.psn + psns) & 0xFFFFFF
        for k, v in summary.get("counters", {}).items():
            self.counters[k] = self.counters.get(k, 0) + v
        for w in wcs:
            self.statuses[w["status"]] = self.statuses.get(w["status"], 0) + 1
        t.check(len(wcs) == len(ops) and all(w["status"] == "SUCCESS" for w in wcs),
                "round %d %s: %d of %d completions, %s" % (self.round, kind, len(wcs), len(ops),
                                                         sorted({w["status"] for w in wcs})))
        return sorted(wcs, key=lambda w: w["wr_id"])

    def writes(self):
        # Op k goes to slot (k + round) % OPS, so each round changes every slot's bytes:
        # a WRITE that never landed cannot pass for one that did.
        slots = [(k + self.round) % OPS for k in range(OPS)]
        self.client("write", ["write:%d:%d:%d" % (SIZE, self.va + s * SIZE, self.rkey)
                              for s in slots], OPS * packets(SIZE))
        for k, s in enumerate(slots):
            self.memory[s] = r.pattern(SIZE, k)
        held = b"".join(self.resp.dump(s * SIZE, SIZE) for s in range(OPS))
        want = b"".join(self.memory[s] for s in range(OPS))
        t.check(held == want, "round %d: the responder's memory after the WRITEs (%d of %d "
                "bytes agree)" % (self.round, sum(a == b for a, b in zip(held, want)), len(want)))
        self.verified += len(want)

    def reads(self):
        wcs = self.client("read", ["read:%d:%d:%d" % (SIZE, self.va + s * SIZE, self.rkey)
                                   for s in range(OPS)], OPS * packets(SIZE))
        bad = [w["wr_id"] for w in wcs if w["byte_len"] != SIZE or
               w["crc32"] != zlib.crc32(self.memory[w["wr_id"]])]
        t.check(not bad, "round %d: READs that brought back other bytes than the responder "
                "holds: %s" % (self.round, bad))
        self.verified += OPS * SIZE

    def sends(self):
        before = len(self.resp.completions)
        self.client("send", ["send:%d" % SIZE] * OPS, OPS * packets(SIZE))
        end = time.time() + 5           # the last receive completions may trail the ACK
        while len(self.resp.completions) < before + OPS and time.time() < end:
            time.sleep(0.01)
        got = self.resp.completions[before:]
        want = [(SIZE, zlib.crc32(r.pattern(SIZE, k))) for k in range(OPS)]
        t.check([(w["status"], w["byte_len"], w["crc32"]) for w in got]
                == [("SUCCESS",) + x for x in want],
                "round %d: the SENDs as the responder received them, in order (%d of %d)"
                % (self.round, len(got), OPS))
        self.verified += OPS * SIZE

    def run(self):
        self.start()
        began = time.time()
        while time.time() - began < self.duration or self.round < WARMUP_ROUNDS + 3:
            self.round += 1
            self.writes()
            self.reads()
            self.sends()
            elapsed = time.time() - began
            self.rss.append((elapsed, rss_kb(self.resp.proc.pid)))
            print("round %d: %.0f s, %d bytes verified, responder RSS %d kB"
                  % (self.round, elapsed, self.verified, self.rss[-1][1]), flush=True)
        self.stop_all()
        self.report()

    def stop_all(self):
        self.final = self.resp.stop()
        self.resp_err.close()
        self.bridge.send_signal(2)
        self.bridge.wait(20)
        self.bridge_rc = self.bridge.returncode

    def report(self):
        err = open(self.bridge_err).read()
        t.check(self.bridge_rc == 0, "bridge: exit %d: %s" % (self.bridge_rc, err))
        line = [x for x in err.splitlines() if " frames, " in x]
        ways = []
        if line:
            words = line[0].split()
            ways = [int(words[i - 1]) for i, w in enumerate(words) if w.startswith("frames")]
            failed = int(words[words.index("failed,") - 1])
            t.check(len(ways) == 2 and min(ways) > 0 and failed == 0,
                    "the bridge forwarded both ways, none failed: %s" % line[0])
        else:
            t.check(False, "the bridge's report: %r" % err)
        acted = {}
        for x in err.splitlines():
            f = x.split()
            if x.startswith("faults: ") and len(f) > 3 and f[1].isdigit():
                rule = " ".join(f[3:])
                acted[rule.split(" if ")[0]] = int(f[2])
                t.check(int(f[1]) >= int(f[2]) > 0, "rule %r matched %s, acted %s"
                        % (rule, f[1], f[2]))
        t.check(len(acted) == 4, "the four rules in the bridge's report: %r" % err)
        longest = max(self.runs, key=lambda x: x[1])
        t.check(longest[1] <= BUDGET_S, "the longest run (%s) took %.2f s, the budget %.2f s"
                % (longest[0], longest[1], BUDGET_S))
        t.check(set(self.statuses) == {"SUCCESS"}, "completions: %s" % self.statuses)
        settled = [kb for _, kb in self.rss[WARMUP_ROUNDS:]]
        drift = (max(settled) - min(settled)) / min(settled)
        t.check(drift <= 0.05, "the responder's RSS after warm-up: %d to %d kB (%.1f%%)"
                % (min(settled), max(settled), 100 * drift))
        if SANITIZED:
            for name, path in (("bridge", self.bridge_err), ("responder", self.resp_err_path)):
                text = open(path).read()
                t.check(not any(m in text for m in ASAN_MARKS),
                        "%s's stderr has a sanitizer report: %s" % (name, text[-2000:]))
        c, naks = self.counters, self.final["naks"]["psn_sequence_error"]
        print("soak: %d rounds in %.0f s, %d bytes verified, %d work requests all SUCCESS, "
              "longest run %.2f s (%s)" % (self.round, self.duration, self.verified,
                                         sum(self.statuses.values()), longest[1], longest[0]))
        print("soak: bridge %s; rules acted: %s" % (
            line[0].split(": ", 1)[1] if line else "?",
            ", ".join("%s %d" % (k, v) for k, v in acted.items())))
        print("soak: responder sent %d sequence NAKs, %d CNPs; requester: %d retransmitted, "
              "%d sequence NAKs received, %d timeouts, %d duplicate responses"
              % (naks, self.final["cnps"]["sent"], c.get("retransmits", 0),
                 c.get("seq_nak_received", 0), c.get("timeouts", 0), c.get("dup_response", 0)))
        print("soak: responder RSS %d kB first, %d kB last" % (self.rss[0][1], self.rss[-1][1]))


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        print("usage: soak.py DURATION_SECONDS", file=sys.stderr)
        sys.exit(1)
    ln.need_root()
    Soak(int(sys.argv[1])).run()
    t.finish("soak")
