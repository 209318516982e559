#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ICRC cross-check against an independent implementation: scapy.contrib.roce.

Frames are built with scapy's own RoCE layers (BTH, AETH, CNP padding) and scapy computes
their ICRC. roceshark must call every one of them good, compute the same value, and call
the ones we then damage bad."""
import os
import struct

import rstest as t
from scapy.contrib.roce import AETH, BTH, cnp, opcode
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import wrpcap

frames, expect = [], []
ops = ["SEND_ONLY", "SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "RDMA_WRITE_MIDDLE"]
for i in range(40):
    base = Ether() / IP(src="10.1.0.%d" % (i + 1), dst="10.2.0.1", tos=i % 4, ttl=64 - i,
                        id=1000 + i, flags="DF") / UDP(sport=50000 + i, dport=4791)
    if i % 4 == 0:
        pkt = base / BTH(opcode=opcode("RC", "ACKNOWLEDGE")[0], dqpn=0x100 + i, psn=i * 7) / \
            AETH(syndrome=0x1F, msn=i)
    elif i % 4 == 1:
        pkt = base / cnp(0x200 + i)
    else:
        payload = bytes((i * 13 + k) & 0xFF for k in range(4 * (i + 1)))
        pkt = base / BTH(opcode=opcode("RC", ops[i % len(ops)])[0], dqpn=0x300 + i,
                         psn=0xFFFFF0 + i, pkey=0xFFFF, ackreq=i & 1) / Raw(payload)
    raw = bytes(pkt)
    want = raw[-4:]
    if i % 5 == 4:      # damage one ICRC bit in every fifth frame
        raw = raw[:-4] + bytes([want[0] ^ 0x10]) + want[1:]
    frames.append(raw)
    expect.append(("0" if i % 5 == 4 else "1", "0x%08x" % struct.unpack(">I", want)[0]))

out = t.tempdir()
path = os.path.join(out, "scapy.pcap")
wrpcap(path, [Ether(f) for f in frames])
rows = t.roceshark_fields(path, ["roceshark.icrc.status", "roceshark.icrc.computed",
                                 "roceshark.cnp"])
t.check(len(rows) == len(frames), "frame count %d" % len(rows))
for n, ((status, computed, cnp_flag), (want_status, scapy_icrc)) in enumerate(zip(rows, expect), 1):
    t.check(status == want_status, "frame %d: ICRC status %s, want %s" % (n, status, want_status))
    t.check(computed == scapy_icrc, "frame %d: computed %s, scapy %s" % (n, computed, scapy_icrc))
    t.check((cnp_flag == "1") == (n % 4 == 2), "frame %d: roceshark.cnp %r" % (n, cnp_flag))
print("%d scapy-built frames: ICRC agrees with scapy.contrib.roce" % len(frames))
t.finish("scapy ICRC cross-check")
