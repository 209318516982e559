#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""roceshark correlate against the bridge's ground truth. Three namespaces the test makes
(requester | bridge | responder over two veth pairs); perf write_bw crosses the bridge,
whose rules drop 1%, delay 200 us (jitter 50 us) and mark CE on 5% of the requester's
RoCE frames, in that order (a dropped frame is never marked). The captures of the two end
hosts, correlated, must attribute exactly as many losses to the requester-to-responder
segment as the drop rule acted, exactly as many CE marks as the mark rule acted, no loss
at all the other way, a clock offset whose stated bound holds the true one (both
namespaces share one clock: 0), and no delay on the delayed segment shorter than the
rule's least (150 us) beyond that bound. Go-back-N resends each packet about three times
here (a jittered delay reorders), and a loaded host queues frames for up to ~100 ms: the
window the delays ask for (not a fixed 100 ms) is what keeps the counts exact."""
import os
import re
import subprocess
import time

import livenet as ln
import rstest as t

ln.need_root()
tmp = t.tempdir()
ch = ln.Chain("cor")

rules = os.path.join(tmp, "faults.rules")
# RoCE frames only: an ICMP port unreachable that quotes one (the requester's answer to a
# last ACK that comes after its perf has ended) has a udp.dstport of 4791 too, and a drop
# or mark of it is one the captures' filter (udp port 4791) cannot show
roce = "udp.dstport == 4791 && !icmp"
open(rules, "w").write("seed 11\n"
                       "drop prob 0.01 dir tx if %s\n"
                       "delay 200us jitter 50us dir tx if %s\n"
                       "mark ecn ce prob 0.05 dir tx if %s\n" % (roce, roce, roce))
bridge = ch.background(ch.ns_br, ["bridge", ch.if_a, ch.if_b, "--faults", rules], "bridge: ")
at_req, at_resp = os.path.join(tmp, "at_req.pcap"), os.path.join(tmp, "at_resp.pcap")
cap_req = ch.background(ch.ns_req, ["capture", "-i", ch.if_req, "-w", at_req, "-f",
                                    "udp port 4791"], "capture: ")
cap_resp = ch.background(ch.ns_resp, ["capture", "-i", ch.if_resp, "-w", at_resp, "-f",
                                      "udp port 4791"], "capture: ")
server = t.spawn(ch.inside(ch.ns_resp, [t.ROCESHARK, "perf", "write_bw", "--bind",
                                        ch.ip_resp]),
                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
time.sleep(0.3)
cli = subprocess.run(ch.inside(ch.ns_req, [t.ROCESHARK, "perf", "write_bw", "--bind", ch.ip_req,
                                           "--connect", ch.ip_resp, "-s", "4096", "-n", "400"]),
                     capture_output=True, text=True, timeout=120)
t.check(cli.returncode == 0, "perf write_bw through the bridge: %s" % cli.stderr)
server.communicate(timeout=30)
# the bridge first: it sends what it still holds (late copies the sender no longer waits
# for) as it stops, and the captures must see those go through
rc, err = ch.stop(bridge)
t.check(rc == 0, "bridge: exit %d: %s" % (rc, err))
time.sleep(0.2)
for cap in (cap_req, cap_resp):
    crc, cerr = ch.stop(cap)
    # a frame the capture lost would be a false loss: both must have kept every frame
    t.check(crc == 0 and re.search(r" 0 dropped by kernel,", cerr) is not None,
            "capture: exit %d: %s" % (crc, cerr))
# frames the bridge's own kernel ring dropped are lost in the network too: each way
k = re.search(r"dropped by the kernel \((\d+) on \S+, (\d+) on \S+\)", err)
t.check(k is not None, "the bridge's kernel drops: %r" % err)
ring_ab, ring_ba = (int(k.group(1)), int(k.group(2))) if k else (0, 0)


def rule_counts(action):
    """(matched, acted) of the rule of action."""
    line = [x for x in err.splitlines() if x.strip().split()[3:4] == [action] or
            (" %s " % action) in x and "udp.dstport" in x]
    t.check(len(line) == 1, "the %s rule's line in the report: %r" % (action, err))
    return tuple(int(x) for x in line[0].split()[1:3]) if line else (-1, -1)


print(err)
(seen, drops), (_, marks) = rule_counts("drop"), rule_counts("mark")
print("bridge: %d dropped, %d marked CE" % (drops, marks))
t.check(drops > 0 and marks > 0, "the rules acted: %d drops, %d marks" % (drops, marks))

p = t.run([t.ROCESHARK, "correlate", "-r", at_req, "-r", at_resp, "-q", "-z", "corr,qp"])
out = p.stdout
m = re.search(r"Packets: (\d+), matched at 2\+ points: (\d+), lost: (\d+), CE marked: (\d+), "
              r"missed by a capture: (\d+), contradictions: (\d+)", out)
t.check(m is not None, "no totals: %r" % out)
total, matched, lost, ce, missed, contra = map(int, m.groups())
print(out)
t.check(lost == drops + ring_ab + ring_ba, "correlate found %d losses, the bridge dropped %d "
        "(and its kernel %d, %d)" % (lost, drops, ring_ab, ring_ba))
t.check(ce == marks, "correlate found %d CE marks, the bridge marked %d" % (ce, marks))
t.check(missed == 0 and contra == 0, "%d capture misses, %d contradictions" % (missed, contra))
# every loss and mark on the requester's way (A>B); none the other way
rows = re.findall(r"^(.*?)\s+([AB]>[AB])\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+)$",
                  out, re.M)
ab = [r for r in rows if r[1] == "A>B"]
ba = [r for r in rows if r[1] == "B>A"]
t.check(sum(int(r[3]) for r in ab) == drops + ring_ab and sum(int(r[4]) for r in ab) == marks,
        "losses and marks on A>B: %r" % ab)
# the rules saw what the requester's capture holds, each frame once: the counters and the
# captures speak of the same frames (each frame at A is a packet of A>B: none was seen at B
# alone)
sent = sum(int(r[2]) for r in ab)
t.check(seen + ring_ab == sent, "the drop rule saw %d frames and the bridge's kernel dropped "
        "%d, of %d the requester sent" % (seen, ring_ab, sent))
t.check(len(ba) > 0 and sum(int(r[3]) for r in ba) == ring_ba and
        sum(int(r[4]) for r in ba) == 0, "no loss or mark from the responder back: %r" % ba)
t.check("(from the measured delays)" in out, "the window: %r" % out)
# the clock: the true offset (0) within the stated bound
k = re.search(r"^  B: .*: offset ([-+][\d.]+) us \+- ([\d.]+) us", out, re.M)
t.check(k is not None, "B's clock with a bound: %r" % out)
if k and ab:
    offset, bound = float(k.group(1)), float(k.group(2))
    t.check(abs(offset) <= bound, "offset %.1f us, bound %.1f us: 0 is outside" % (offset, bound))
    # each delayed packet on the true clock (reported + offset) took the rule's least
    # delay or more, within the bound; a packet paired with the wrong copy would not
    p = t.run([t.ROCESHARK, "correlate", "-r", at_req, "-r", at_resp, "-Y",
               'roceshark.corr.segment == "A>B"', "-T", "fields", "-e", "roceshark.corr.delay"])
    delays = sorted(float(x) * 1e6 + offset for x in p.stdout.split())
    t.check(len(delays) == matched - sum(int(r[2]) for r in ba),
            "%d A>B delays of %d packets matched" % (len(delays), matched))
    t.check(delays and delays[0] >= 150 - bound, "shortest A>B delay %.1f us on the true "
            "clock, bound %.1f us" % (delays[0] if delays else -1, bound))
    if delays:
        print("A>B delay on the true clock: min %.1f us, p50 %.1f us (the rule: 200 +- 50 us)"
              % (delays[0], delays[len(delays) // 2]))
t.finish("correlate against the bridge")
