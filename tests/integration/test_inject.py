#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`roceshark inject`, held to three independent readers:
  - a spec file of every kind of packet (writes, reads, responses, atomics, immediates,
    invalidates, UD with DETH, IPv6, a wrong ICRC on purpose) written with -w: tshark 4.0
    decodes every field of the contract as roceshark read does; scapy.contrib.roce
    recomputes the ICRC of each good IPv4 packet and gets the same bytes; roceshark calls the
    good ICRCs good and the bad one bad;
  - the same packets sent with --udp over loopback and received by a raw socket: the IP
    packets the kernel made carry a good ICRC;
  - -c with --psn-step numbers the rounds; --pps paces them;
  - bad specs and options get one line with the file, line and column, and exit 1; an
    unwritable file exits 3; a source address that is not ours exits 4."""
import os
import socket
import struct
import time

import rstest as t
from scapy.contrib.roce import BTH
from scapy.layers.l2 import Ether
from scapy.utils import rdpcap

tmp = t.tempdir()
SPECS = """# one packet per line, on top of the command line's words
infiniband.bth.opcode=0x0a infiniband.bth.psn=1 infiniband.reth.va=0x1000 infiniband.reth.r_key=0x55 infiniband.reth.dmalen=64 payload=len:64
infiniband.bth.opcode="RC RDMA Read Request" infiniband.bth.psn=2 infiniband.reth.va=0x2000 infiniband.reth.r_key=0x55 infiniband.reth.dmalen=4096
infiniband.bth.opcode=0x10 infiniband.bth.psn=2 infiniband.aeth.syndrome=0x1f infiniband.aeth.msn=3 payload=len:1024
infiniband.bth.opcode=0x11 infiniband.bth.psn=9 infiniband.aeth.syndrome=0x60 infiniband.aeth.msn=3
infiniband.bth.opcode=0x13 infiniband.reth.va=0x3000 infiniband.reth.r_key=7 infiniband.atomiceth.swapdt=1 infiniband.atomiceth.cmpdt=2
infiniband.bth.opcode=0x12 infiniband.aeth.syndrome=0 infiniband.aeth.msn=4 infiniband.atomicacketh.origremdt=99
infiniband.bth.opcode=0x05 infiniband.immdt=0xdeadbeef infiniband.bth.se=1 payload=0102030405
infiniband.bth.opcode=0x17 infiniband.ieth=0x1234 payload=len:8
infiniband.bth.opcode=0x64 infiniband.bth.destqp=0x22 infiniband.deth.q_key=0x80010000 infiniband.deth.srcqp=0x33 payload=len:256
ip.src=fd00::1 ip.dst=fd00::2 infiniband.bth.opcode=0x0c infiniband.reth.va=1 infiniband.reth.r_key=2 infiniband.reth.dmalen=3
eth / ip(dsfield=2) / udp(srcport=40000) / bth(opcode="RC RDMA Write First", psn=20) / reth(va=0x9000, r_key=3, dmalen=8192) / payload(len=1024)
infiniband.bth.opcode=0x04 payload=len:20 icrc=bad
"""
specs = os.path.join(tmp, "specs.txt")
open(specs, "w").write(SPECS)
N = 12

# 1. To a file: tshark, scapy and roceshark agree.
cap = os.path.join(tmp, "inject.pcap")
p = t.run([t.ROCESHARK, "inject", "-w", cap, "-F", specs, "ip.src=10.9.0.1", "ip.dst=10.9.0.2"])
t.check(p.stderr == "inject: %d packets written\n" % N, "inject -w: %r" % p.stderr)
bad, total = t.fields_diff(cap, t.CONTRACT_FIELDS + t.LOWER_FIELDS)
t.check(bad == 0 and total > 0, "tshark reads the injected packets differently: %d of %d"
        % (bad, total))
rows = t.roceshark_fields(cap, ["infiniband.bth.opcode", "roceshark.icrc.status",
                                "roceshark.malformed", "ip.src", "ipv6.src"])
want_ops = ["10", "12", "16", "17", "19", "18", "5", "23", "100", "12", "6", "4"]
t.check([r[0] for r in rows] == want_ops, "opcodes %r" % [r[0] for r in rows])
t.check([r[1] for r in rows] == ["1"] * (N - 1) + ["0"], "ICRC verdicts %r"
        % [r[1] for r in rows])
t.check(all(r[2] == "" for r in rows), "a packet reported malformed: %r" % rows)
t.check(rows[0][3] == "10.9.0.1" and rows[9][4] == "fd00::1", "addresses %r" % rows)
for n, pkt in enumerate(rdpcap(cap)[:N - 1], 1):
    if n == 10:
        continue        # scapy.contrib.roce computes ICRCs over IPv4 only
    raw = bytes(pkt)
    again = Ether(raw)
    del again[BTH].icrc
    t.check(bytes(again) == raw, "packet %d: scapy computes another ICRC" % n)

# 2. Over UDP on loopback: what the kernel sends carries a good ICRC.
SRC, DST = "127.0.91.1", "127.0.91.2"
rx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
rx.bind((DST, 0))
rx.settimeout(0.2)
udp_specs = os.path.join(tmp, "udp.txt")
# One source address and port for the socket: the IPv6 line and the one with its own
# source port stay out.
UDP_LINES = [l for l in SPECS.splitlines()
             if l and not l.startswith("#") and "fd00" not in l and "udp(" not in l]
open(udp_specs, "w").write("".join(l + "\n" for l in UDP_LINES))
NU = len(UDP_LINES)
p = t.run([t.ROCESHARK, "inject", "--udp", "-F", udp_specs, "ip.src=" + SRC, "ip.dst=" + DST,
           "udp.srcport=49999"])
t.check(p.stderr == "inject: %d packets sent\n" % NU, "inject --udp: %r" % p.stderr)
got = []
try:
    while True:
        data = rx.recv(65535)
        if socket.inet_ntoa(data[12:16]) == SRC and struct.unpack("!H", data[22:24])[0] == 4791:
            got.append(data)
except socket.timeout:
    pass
rx.close()
t.check(len(got) == NU, "received %d of %d packets over UDP" % (len(got), NU))
raw_cap = os.path.join(tmp, "udp.pcap")
with open(raw_cap, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))    # LINKTYPE_RAW
    for data in got:
        f.write(struct.pack("<IIII", 0, 0, len(data), len(data)) + data)
rows = t.roceshark_fields(raw_cap, ["infiniband.bth.opcode", "roceshark.icrc.status",
                                    "udp.srcport"])
t.check([r[1] for r in rows] == ["1"] * (NU - 1) + ["0"] and rows[0][2] == "49999",
        "ICRCs of what the kernel sent: %r" % rows)

# 3. Rounds, PSN steps and pacing.
p = t.run([t.ROCESHARK, "inject", "-w", cap, "-c", "5", "--psn-step", "3", "--pps", "50",
           "infiniband.bth.psn=0xfffffe"])
rows = t.roceshark_fields(cap, ["infiniband.bth.psn", "frame.time_relative"])
t.check([r[0] for r in rows] == ["16777214", "1", "4", "7", "10"], "PSNs of the rounds: %r"
        % [r[0] for r in rows])
t.check(float(rows[-1][1]) >= 0.07, "--pps 50: 5 packets in %s s" % rows[-1][1])


# 4. Errors.
def fails(args, code, text):
    p = t.run([t.ROCESHARK, "inject"] + args, check_rc=False)
    t.check(p.returncode == code and p.stderr == "roceshark: " + text + "\n",
            "inject %s: exit %d %r" % (" ".join(args), p.returncode, p.stderr))


bad_specs = os.path.join(tmp, "bad.txt")
open(bad_specs, "w").write("# fine\ninfiniband.bth.opcode=0x0a infiniband.reth.va=1\n"
                           "  infiniband.bth.psn=7 infiniband.aeth.msn=1\n")
fails(["-w", cap, "-F", bad_specs], 1, "%s:3:24: the opcode (RC Send Only) carries no AETH"
      % bad_specs)
fails(["-w", cap, "infiniband.bth.destqp=0x1000000"], 1, "command line:1:23: "
      "infiniband.bth.destqp: '0x1000000' out of range or not a number")
fails(["-w", cap, "--udp"], 1, "inject: give -w FILE or --udp (one of them)")
fails(["-w", "/nonexistent/x.pcap"], 3, "inject: /nonexistent/x.pcap: /nonexistent/x.pcap: "
      "No such file or directory")
fails(["--udp", "ip.src=192.0.2.1"], 4, "inject: binding the source address and UDP port "
      "49152: Cannot assign requested address")
fails(["--udp", "ip.src=127.0.91.1", "ip.id=5"], 1, "inject: packet 1: over UDP the kernel "
      "writes ip.id 0 with DF: a packet with another ip.id or without DF would carry a "
      "wrong ICRC")
t.finish("inject")
