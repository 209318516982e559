#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`roceshark inject -i` on a veth pair across two network namespaces that the test makes
and removes: RoCEv2 over IPv4 and IPv6, under one and two VLAN tags, RoCEv1 and iWARP go
out of one end; what is captured on the other is byte for byte what `inject -w` writes for
the same specs. The Ethernet addresses -i fills in are the interface's own and the
neighbour's (from a neighbour entry the test adds); a missing neighbour is one line and exit
4; --pps paces the frames on the wire; -c stops the count."""
import os
import subprocess

import livenet as ln
import rstest as t

ln.need_root()
tmp = t.tempdir()
pair = ln.VethPair("inj")
A_IP, B_IP = "10.77.0.1", "10.77.0.2"
pair._ip("-n", pair.ns_a, "addr", "add", A_IP + "/24", "dev", pair.if_a)
pair._ip("-n", pair.ns_b, "addr", "add", B_IP + "/24", "dev", pair.if_b)


def mac_of(ns, ifname):
    return open("/sys/class/net/%s/address" % ifname).read().strip() if ns is None else \
        subprocess.run(["ip", "netns", "exec", ns, "cat", "/sys/class/net/%s/address" % ifname],
                       capture_output=True, text=True, check=True).stdout.strip()


MAC_A, MAC_B = mac_of(pair.ns_a, pair.if_a), mac_of(pair.ns_b, pair.if_b)
SPECS = [
    'eth / ip(src=%s, dst=%s) / udp(srcport=inc(50000)) / bth(opcode="RC RDMA Write Only", '
    'psn=inc(16777214)) / reth(va=0x1000, r_key=7, dmalen=64) / payload(len=64, fill=rand) '
    'repeat 4' % (A_IP, B_IP),
    'eth / vlan(id=10, priority=3) / ip(src=%s, dst=%s) / udp / bth(opcode="RC Send Only") / '
    'payload(len=200)' % (A_IP, B_IP),
    'eth / ieee8021ad(id=100) / vlan(id=20) / ip(src=%s, dst=%s) / udp / '
    'bth(opcode="RC Acknowledge") / aeth(syndrome.opcode=NAK, syndrome.error_code=0)'
    % (A_IP, B_IP),
    'eth(dst=%s) / ipv6(src=fd00::1, dst=fd00::2) / udp / bth(opcode="UD Send Only") / '
    'deth(q_key=0x80010000, srcqp=1) / payload(len=256)' % MAC_B,
    'eth / grh(sgid=::ffff:%s, dgid=::ffff:%s) / bth(opcode="RC RDMA Read Request") / '
    'reth(dmalen=4096) icrc=bad' % (A_IP, B_IP),
    'eth / ip(src=%s, dst=%s) / tcp(srcport=40000, dstport=9999) / mpareq' % (A_IP, B_IP),
    'eth / ip(src=%s, dst=%s) / tcp(srcport=40000, dstport=9999) / ddp(msn=1) / '
    'rdmap(opcode=Send) / payload(len=33)' % (A_IP, B_IP),
]
N = 4 + len(SPECS) - 1
spec_file = os.path.join(tmp, "specs.txt")
open(spec_file, "w").write("\n".join(SPECS) + "\n")
# What A sends, without the ARP replies its kernel sends B (which answers our packets).
CAPTURE_FILTER = "ether src %s and not arp" % MAC_A

# 1. A missing neighbour: one line, exit 4.
p = t.run(pair.in_a([t.ROCESHARK, "inject", "-i", pair.if_a, "-F", spec_file, "--seed", "3"]),
          check_rc=False)
t.check(p.returncode == 4 and p.stderr == "roceshark: inject: -i %s: no neighbour entry for %s "
        "(ping it first, or give eth.dst)\n" % (pair.if_a, B_IP),
        "no neighbour: exit %d %r" % (p.returncode, p.stderr))

# 2. With the neighbour: -i frames on the wire are -w's frames.
pair._ip("-n", pair.ns_a, "neigh", "replace", B_IP, "lladdr", MAC_B, "dev", pair.if_a,
         "nud", "permanent")
ref = os.path.join(tmp, "ref.pcap")
t.run([t.ROCESHARK, "inject", "-w", ref, "-F", spec_file, "--seed", "3", "eth.src=" + MAC_A,
       "eth.dst=" + MAC_B])
out = os.path.join(tmp, "wire.pcap")
cap = ln.start(pair, ["capture", "-i", pair.if_b, "-w", out, "-c", str(N), "-f", CAPTURE_FILTER])
p = t.run(pair.in_a([t.ROCESHARK, "inject", "-i", pair.if_a, "-F", spec_file, "--seed", "3"]))
t.check(p.stderr.startswith("inject: %d sent, 0 failed" % N), "inject -i: %r" % p.stderr)
rc, _, err, counts = ln.finish(cap)
t.check(rc == 0, "capture: exit %d: %s" % (rc, err))
_, _, want = ln.read_pcap(ref)
_, _, got = ln.read_pcap(out)
t.check(len(got) == N and len(want) == N, "%d frames captured, %d written, want %d"
        % (len(got), len(want), N))
diff = [i for i, (a, b) in enumerate(zip(got, want)) if a[2] != b[2]]
t.check(not diff, "frames on the wire differ from -w's at %s" % diff)
rows = t.roceshark_fields(out, ["eth.src", "eth.dst", "vlan.id", "roceshark.icrc.status",
                                "infiniband.bth.psn"])
t.check(rows[0][0] == MAC_A and rows[0][1] == MAC_B, "MACs on the wire: %r" % rows[0])
t.check([r[4] for r in rows[:4]] == ["16777214", "16777215", "0", "1"], "PSNs: %r" % rows)
t.check([r[3] for r in rows[:8]] == ["1"] * 7 + ["0"], "ICRCs: %r" % rows)

# 3. --pps on the wire, -c.
out = os.path.join(tmp, "paced.pcap")
cap = ln.start(pair, ["capture", "-i", pair.if_b, "-w", out, "-c", "20", "-f", CAPTURE_FILTER])
t.run(pair.in_a([t.ROCESHARK, "inject", "-i", pair.if_a, "-c", "20", "--pps", "200",
                 "ip(src=%s, dst=%s) / bth(psn=inc(0))" % (A_IP, B_IP)]))
rc, _, err, _ = ln.finish(cap)
rows = t.roceshark_fields(out, ["frame.time_relative", "infiniband.bth.psn"])
t.check(len(rows) == 20 and [r[1] for r in rows] == [str(i) for i in range(20)],
        "-c 20: %r" % rows)
span = float(rows[-1][0])
t.check(0.08 <= span <= 0.3, "--pps 200: 20 frames over %.3f s on the wire, want about 0.095"
        % span)
t.finish("inject_live")
