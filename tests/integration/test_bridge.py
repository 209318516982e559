#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`roceshark bridge` between a requester and a responder, in three network namespaces the
test makes (requester | bridge | responder over two veth pairs):
  - no faults: perf write_bw passes through; every RoCE frame each side sent arrives on the
    other byte for byte, in order (the bridge's -w files against captures at each end);
  - 1% drops (seeded): our requester WRITEs 4 MiB through it, the responder's memory holds
    every byte, the analysis shows go-back-N recovery (PSN sequence error NAKs from the
    responder, retransmissions from the requester), and the rule's counts add up;
  - a delay rule: frames far apart each leave when due (2 ms), not at the bridge's next wake;
  - overload: frames sent faster than the bridge forwards are each either forwarded or
    counted as dropped by the kernel (the bridge's report) or by the veth (its rx_dropped),
    the bridge stopped as soon as they are sent;
  - a stop while frames wait in the bridge's ring: every one is passed on;
  - an unknown interface and a bad rules file: one line, exit 4 and 1."""
import re
import os
import signal
import subprocess
import time

import livenet as ln
import rcpeer as r
import rstest as t

ln.need_root()
tmp = t.tempdir()
ch = ln.Chain("brg")
MAC_REQ, MAC_RESP = ch.mac(ch.ns_req, ch.if_req), ch.mac(ch.ns_resp, ch.if_resp)




def roce_frames(path, src_mac):
    """The RoCEv2 frames (IPv4, UDP 4791) from src_mac in a pcap file, in order."""
    _, _, recs = ln.read_pcap(path)
    mac = bytes.fromhex(src_mac.replace(":", ""))
    return [rec[2] for rec in recs if rec[2][6:12] == mac and rec[2][12:14] == b"\x08\x00" and
            rec[2][23] == 17 and rec[2][36:38] == b"\x12\xb7"]


# 1. No faults: perf write_bw through the bridge, byte for byte both ways.
prefix = os.path.join(tmp, "plain")
bridge = ch.background(ch.ns_br, ["bridge", ch.if_a, ch.if_b, "-w", prefix], "bridge: ")
at_resp = os.path.join(tmp, "at_resp.pcap")
at_req = os.path.join(tmp, "at_req.pcap")
cap_resp = ch.background(ch.ns_resp, ["capture", "-i", ch.if_resp, "-w", at_resp, "-f",
                                      "udp dst port 4791 and ether src " + MAC_REQ], "capture: ")
cap_req = ch.background(ch.ns_req, ["capture", "-i", ch.if_req, "-w", at_req, "-f",
                                    "udp dst port 4791 and ether src " + MAC_RESP], "capture: ")
server = t.spawn(ch.inside(ch.ns_resp, [t.ROCESHARK, "perf", "write_bw", "--bind",
                                        ch.ip_resp]),
                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
time.sleep(0.3)
cli = subprocess.run(ch.inside(ch.ns_req, [t.ROCESHARK, "perf", "write_bw", "--bind", ch.ip_req,
                                           "--connect", ch.ip_resp, "-s", "65536", "-n", "100"]),
                     capture_output=True, text=True, timeout=60)
t.check(cli.returncode == 0, "perf write_bw through the bridge: %s" % cli.stderr)
server.communicate(timeout=20)
time.sleep(0.2)
ch.stop(cap_resp)
ch.stop(cap_req)
rc, err = ch.stop(bridge)
t.check(rc == 0 and "0 failed" in err, "bridge: exit %d: %s" % (rc, err))
sent_req = roce_frames(prefix + "-a.pcap", MAC_REQ)
sent_resp = roce_frames(prefix + "-b.pcap", MAC_RESP)
got_resp = roce_frames(at_resp, MAC_REQ)
got_req = roce_frames(at_req, MAC_RESP)
t.check(len(sent_req) >= 1600 and sent_req == got_resp,
        "requester to responder: %d frames in, %d out, identical: %s"
        % (len(sent_req), len(got_resp), sent_req == got_resp))
t.check(len(sent_resp) > 0 and sent_resp == got_req,
        "responder to requester: %d frames in, %d out, identical: %s"
        % (len(sent_resp), len(got_req), sent_resp == got_req))

# 2. 1% drops: WRITEs arrive whole; go-back-N on the wire.
rules = os.path.join(tmp, "drops.rules")
open(rules, "w").write("# one RoCE frame in a hundred, either way\nseed 5\n"
                       "drop prob 0.01 if udp.dstport == 4791\n")
prefix = os.path.join(tmp, "lossy")
bridge = ch.background(ch.ns_br, ["bridge", ch.if_a, ch.if_b, "--faults", rules, "-w", prefix],
                       "bridge: ")
resp = r.Responder(["--bind", ch.ip_resp, "--peer", ch.ip_req, "--peer-qpn", "0x11", "--qpn",
                    "0x300", "--mr", "8M", "--no-listen", "--pmtu", "4096"],
                   prefix=ch.inside(ch.ns_resp, []))
va, rkey = resp.info["va"], resp.info["rkey"]
N, SIZE = 64, 65536
ops = ["write:%d:%d:%d" % (SIZE, va + k * SIZE, rkey) for k in range(N)]
wcs, summary = r.run_client(ch.ip_req, ch.ip_resp, 0x300, ops,
                            ["--peer-psn", "0", "--pmtu", "4096", "--timeout", "14"],
                            timeout=120, prefix=ch.inside(ch.ns_req, []))
t.check(len(wcs) == N and all(x["status"] == "SUCCESS" for x in wcs),
        "%d WRITEs through 1%% loss: %s" % (N, sorted({x["status"] for x in wcs})))
memory = b"".join(resp.dump(k * SIZE, SIZE) for k in range(N))
want = b"".join(r.pattern(SIZE, k) for k in range(N))
t.check(memory == want, "the responder's memory holds every byte written (%d of %d bytes agree)"
        % (sum(a == b for a, b in zip(memory, want)), len(want)))
resp.stop()
rc, err = ch.stop(bridge)
t.check(rc == 0, "bridge: exit %d: %s" % (rc, err))
m = [line for line in err.splitlines() if "drop prob 0.01" in line]
t.check(len(m) == 1, "the rule's line in the report: %r" % err)
if m:
    matched, acted = (int(x) for x in m[0].split()[1:3])
    t.check(matched > 1000 and 0 < acted < matched * 0.03,
            "the rule matched %d frames and dropped %d" % (matched, acted))
naks = t.roceshark_fields(prefix + "-b.pcap", ["roceshark.analysis.nak"],
                          ["-Y", "roceshark.analysis.nak"])
retx = t.roceshark_fields(prefix + "-a.pcap", ["roceshark.analysis.retransmission"],
                          ["-Y", "roceshark.analysis.retransmission"])
t.check(len(naks) > 0 and len(retx) > 0, "go-back-N on the wire: %d NAKs from the responder, "
        "%d retransmitted frames from the requester" % (len(naks), len(retx)))

# 2b. A delay rule's frames leave when due, not when the next frame comes in: frames 120 ms
# apart (longer than the bridge's longest wait), each delayed 2 ms. One left queued after
# its release would wait out the bridge's 100 ms sleep. Both captures share one clock.
rules = os.path.join(tmp, "delay.rules")
open(rules, "w").write("delay 2ms if udp.dstport == 4791\n")
SPACED = 15
bridge = ch.background(ch.ns_br, ["bridge", ch.if_a, ch.if_b, "--faults", rules], "bridge: ")
sent_at, got_at = os.path.join(tmp, "spaced_req.pcap"), os.path.join(tmp, "spaced_resp.pcap")
caps = [ch.background(ns, ["capture", "-i", iface, "-w", path, "-f", "udp dst port 4791"],
                      "capture: ")
        for ns, iface, path in ((ch.ns_req, ch.if_req, sent_at), (ch.ns_resp, ch.if_resp, got_at))]
ln.VethPair._ip("-n", ch.ns_req, "neigh", "replace", ch.ip_resp, "lladdr", MAC_RESP, "dev",
                ch.if_req)
t.run(ch.inside(ch.ns_req, [t.ROCESHARK, "inject", "-i", ch.if_req, "-c", str(SPACED),
                            "--gap", "120000", "eth.dst=" + MAC_RESP,
                            "ip(src=%s, dst=%s) / udp(srcport=49152) / bth(psn=inc(0)) / "
                            "payload(len=64)" % (ch.ip_req, ch.ip_resp)]))
rc, err = ch.stop(bridge)
for cap in caps:
    ch.stop(cap)
t.check(rc == 0, "bridge with a delay rule: exit %d: %s" % (rc, err))
times = [dict((int(psn), float(ts)) for ts, psn in
              t.roceshark_fields(path, ["frame.time_epoch", "infiniband.bth.psn"]))
         for path in (sent_at, got_at)]
transit = sorted((times[1][k] - times[0][k]) * 1e3 for k in times[0] if k in times[1])
t.check(len(transit) == SPACED, "%d spaced frames sent, %d arrived" % (SPACED, len(transit)))
if transit:
    # the median: one descheduled moment may hold a frame, not most of them
    print("2 ms delay rule, frames 120 ms apart: transit min %.2f ms, median %.2f ms, max "
          "%.2f ms" % (transit[0], transit[len(transit) // 2], transit[-1]))
    t.check(transit[0] >= 2.0 and transit[len(transit) // 2] < 30,
            "transit through a 2 ms delay: %s ms" % ["%.2f" % x for x in transit])

# 3. Overload: inject at top speed; no frame goes missing from the accounts.
def counter(ns, iface, name):
    return int(t.run(ch.inside(ns, ["cat", "/sys/class/net/%s/statistics/%s"
                                    % (iface, name)])).stdout)


BLAST = 100000
bridge = ch.background(ch.ns_br, ["bridge", ch.if_a, ch.if_b], "bridge: ")
veth_before = counter(ch.ns_br, ch.if_a, "rx_dropped")
t.run(ch.inside(ch.ns_req, [t.ROCESHARK, "inject", "-i", ch.if_req, "--topspeed", "-c",
                            str(BLAST), "eth.dst=" + MAC_RESP,
                            "ip(src=%s, dst=%s) / udp(srcport=49152) / bth(psn=inc(0)) / "
                            "payload(len=64)" % (ch.ip_req, ch.ip_resp)]))
rc, err = ch.stop(bridge)     # at once: what its ring still holds goes out as it stops
veth_dropped = counter(ch.ns_br, ch.if_a, "rx_dropped") - veth_before
m = re.search(r"to \S+ (\d+) frames, .* (\d+) failed, \d+ dropped by the kernel "
              r"\((\d+) on ", err)
t.check(rc == 0 and m is not None, "bridge after the blast: exit %d: %s" % (rc, err))
if m:
    forwarded, failed, kernel = (int(x) for x in m.groups())
    # Frames of the hosts' own (IPv6 neighbour discovery) may pass too: a few more, never fewer.
    accounted = forwarded + failed + kernel + veth_dropped
    what = ("%d frames blasted: %d forwarded, %d failed, %d dropped by the kernel before the "
            "bridge read them, %d by the veth" % (BLAST, forwarded, failed, kernel, veth_dropped))
    print(what)
    t.check(BLAST <= accounted <= BLAST + 20, what)

# 3b. A stop while frames wait in the bridge's ring (stopped, SIGSTOP): it passes every one
# on before it ends, not the burst it reads at a time (64), and loses none uncounted.
WAITING = 500
ln.VethPair._ip("-n", ch.ns_req, "neigh", "replace", ch.ip_resp, "lladdr", MAC_RESP, "dev",
                ch.if_req)
bridge = ch.background(ch.ns_br, ["bridge", ch.if_a, ch.if_b], "bridge: ")
bridge.send_signal(signal.SIGSTOP)
t.run(ch.inside(ch.ns_req, [t.ROCESHARK, "inject", "-i", ch.if_req, "-c", str(WAITING),
                            "eth.dst=" + MAC_RESP,
                            "ip(src=%s, dst=%s) / udp(srcport=49152) / bth(psn=inc(0)) / "
                            "payload(len=64)" % (ch.ip_req, ch.ip_resp)]))
bridge.send_signal(signal.SIGINT)
bridge.send_signal(signal.SIGCONT)
rc, err = ch.stop(bridge)
m = re.search(r"to \S+ (\d+) frames, .* (\d+) failed, (\d+) dropped by the kernel", err)
t.check(rc == 0 and m is not None and [int(x) for x in m.groups()] == [WAITING, 0, 0],
        "%d frames waiting as the bridge stops: all passed on: exit %d: %s"
        % (WAITING, rc, err))

# 4. Errors.
p = t.run(ch.inside(ch.ns_br, [t.ROCESHARK, "bridge", ch.if_a, "rs-no-such-if"]), check_rc=False)
t.check(p.returncode == 4 and p.stderr.startswith("roceshark: bridge: rs-no-such-if: ")
        and p.stderr.count("\n") == 1, "unknown interface: exit %d %r" % (p.returncode, p.stderr))
bad = os.path.join(tmp, "bad.rules")
open(bad, "w").write("drop\nduplicate 99\n")
p = t.run([t.ROCESHARK, "bridge", "a", "b", "--faults", bad], check_rc=False)
t.check(p.returncode == 1 and p.stderr == "roceshark: bridge: --faults: %s:2:13: duplicate: 1 "
        "to 16 copies\n" % bad, "bad rules: exit %d %r" % (p.returncode, p.stderr))
t.finish("bridge")
