#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_erf.py OUT.pcap [--seed N] : ERF records of each type read decodes, for tests/captures/erf/.

Endace DAG cards write ERF (DLT_ERF, 197); a record's type says what follows its 16-byte
header (ERF Types Reference): Ethernet for types 2 (ETH), 11 (COLOR_ETH), 16 (DSM_COLOR_ETH)
and 20 (COLOR_HASH_ETH), each after 2 bytes of padding; an IPv4 packet for 22, IPv6 for 23;
InfiniBand from its LRH for 21. Each carries RoCEv2 (or native IB) with a correct ICRC.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibframes as ib  # noqa: E402

ETHERNET_TYPES = (2, 11, 16, 20)
ETH_PAD = bytes(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=197)
    args = ap.parse_args()
    g = ib.Gen(args.seed)
    w = ib.PcapWriter(args.out, 197)
    ts = 1700000000 << 32
    records = []
    for erf_type, op in zip(ETHERNET_TYPES, (0x04, 0x0A, 0x11, 0x0C)):
        l3, ethertype, _ = g.rocev2(op, ipv6=(erf_type == 16), bad_rate=0)
        records.append((erf_type, ETH_PAD + ib.unicast(g.ethernet(ethertype, l3, 0))))
    records.append((22, g.rocev2(0x06, bad_rate=0)[0]))
    records.append((23, g.rocev2(0x11, ipv6=True, bad_rate=0)[0]))
    records.append((21, g.native_ib(0x04, with_grh=False, bad_rate=0)[0]))
    for i, (erf_type, packet) in enumerate(records):
        pad = len(ETH_PAD) if erf_type in ETHERNET_TYPES else 0
        w.write(ib.erf_record(packet, erf_type, ts + (i << 20), pad))
    w.close()


if __name__ == "__main__":
    main()
