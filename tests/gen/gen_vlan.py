#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_vlan.py OUT.pcap [--seed N] : RoCE behind VLAN tags, for tests/captures/vlan/.

RoCE fabrics usually carry RDMA in a VLAN (PFC works per 802.1p priority), and no public
capture we found has tags. This writes RC, UC and UD RoCEv2 packets of every request and
response opcode over IPv4 and IPv6 behind one 802.1Q tag (priorities 0 to 7, VLAN IDs 1 to
4094), some behind an 802.1ad tag and an 802.1Q one (QinQ), RoCEv1 behind a tag, and a CNP,
each with a correct ICRC (ibframes.py, which checks IPv4 ICRCs with scapy when it has it).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibframes as ib  # noqa: E402

# RC and UD opcodes with their layouts (ibframes.opcode_layout), a CNP (0x81).
OPCODES = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0A, 0x0B, 0x0C, 0x0D,
           0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x24, 0x2A, 0x64, 0x65, 0x81]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=8021)
    args = ap.parse_args()
    g = ib.Gen(args.seed)
    w = ib.PcapWriter(args.out, 1)
    for i, op in enumerate(OPCODES):
        vlan = 2 if i % 5 == 4 else 1
        l3, ethertype, _ = g.rocev2(op, ipv6=(i % 3 == 2), bad_rate=0)
        w.write(ib.unicast(g.ethernet(ethertype, l3, vlan), dst=False))
    for op in (0x04, 0x0A, 0x11):
        packet, ethertype, _ = g.rocev1(op, bad_rate=0)
        w.write(ib.unicast(g.ethernet(ethertype, packet, 1), dst=False))
    w.close()


if __name__ == "__main__":
    main()
