#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_roce.py OUTDIR [--seed N] [--per-opcode N] : random RDMA frames and their truth.

Writes into OUTDIR:
  ether.pcap      RoCEv2/IPv4, RoCEv2/IPv6 and RoCEv1 frames, untagged, 802.1Q and QinQ,
                  every opcode Wireshark 4.0 decodes per IBTA, some with a corrupted ICRC,
                  mixed with plain UDP and ARP frames
  ibta_only.pcap  the opcodes Wireshark 4.0 misreads (RD 0x40-0x55, CNP 0x81, XRC 0xA0-0xB7)
  ib_erf.pcap     native InfiniBand in ERF type 21 records (what ibdump writes)
  ib_dlt247.pcap  the same InfiniBand packets with DLT_INFINIBAND (247)
  sll.pcap, sll2.pcap, rawip.pcap
                  RoCEv2 under Linux cooked v1, v2 and raw IP link types
  port4792.pcap   RoCEv2 on UDP port 4792 (for -d udp.port==4792,roce)
  truth.jsonl     one JSON object per frame: file, frame, encap, opcode, payload_len, icrc, vcrc
"""
import argparse
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibframes as ib  # noqa: E402

# Opcodes whose IBTA layout Wireshark 4.0 does not decode (it reads 0x40-0x5F as Mellanox
# DC, and sends CNP and XRC down its vendor path).
WIRESHARK_MISREADS = set(range(0x40, 0x60)) | {0x81} | set(range(0xA0, 0xC0))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-opcode", type=int, default=4)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    g = ib.Gen(a.seed)
    truth = []

    def out(name, linktype):
        return ib.PcapWriter(os.path.join(a.outdir, name), linktype)

    def record(name, n, t):
        t = dict(t, file=name, frame=n)
        truth.append(t)

    opcodes = ib.defined_opcodes()
    common = [op for op in opcodes if op not in WIRESHARK_MISREADS]
    special = [op for op in opcodes if op in WIRESHARK_MISREADS]

    # Ethernet: every opcode in every encapsulation and tagging, plus noise.
    w, n = out("ether.pcap", 1), 0
    for op in common:
        for i in range(a.per_opcode):
            for kind in ("v2-ipv4", "v2-ipv6", "v1"):
                vlan = (i + len(kind)) % 3
                if kind == "v1":
                    l3, et, t = g.rocev1(op)
                else:
                    l3, et, t = g.rocev2(op, ipv6=(kind == "v2-ipv6"))
                w.write(g.ethernet(et, l3, vlan))
                n += 1
                record("ether.pcap", n, t)
        # A plain UDP datagram and an ARP request between the RDMA frames.
        ip = g.ipv4_header(8 + 12)
        w.write(g.ethernet(ib.ETH_P_IPV4, ip + struct.pack("!HHHH", 50000, 53, 20, 0) + bytes(12), 0))
        n += 1
        record("ether.pcap", n, {"encap": None})
        w.write(g.ethernet(0x0806, bytes.fromhex("0001080006040001") + g.rbytes(20), 0))
        n += 1
        record("ether.pcap", n, {"encap": None})
    w.close()

    w, n = out("ibta_only.pcap", 1), 0
    for op in special:
        for i in range(a.per_opcode):
            l3, et, t = g.rocev2(op, ipv6=bool(i & 1))
            w.write(g.ethernet(et, l3, i % 3))
            n += 1
            record("ibta_only.pcap", n, t)
    w.close()

    werf, w247, n = out("ib_erf.pcap", 197), out("ib_dlt247.pcap", 247), 0
    for op in common:
        for i in range(a.per_opcode):
            pkt, t = g.native_ib(op, with_grh=bool(i & 1))
            werf.write(ib.erf_record(pkt, ts=(1700000000 << 32) + n * 0x10000))
            w247.write(pkt)
            n += 1
            record("ib_erf.pcap", n, t)
            record("ib_dlt247.pcap", n, t)
    werf.close()
    w247.close()

    # Linux cooked v1 (113), v2 (276) and raw IP (101) around RoCEv2.
    cooked = {
        "sll.pcap": (113, lambda et: struct.pack("!HHH8sH", 0, 1, 6, bytes(8), et)),
        "sll2.pcap": (276, lambda et: struct.pack("!HHIHBB8s", et, 0, 2, 1, 0, 6, bytes(8))),
        "rawip.pcap": (101, lambda et: b""),
    }
    for name, (dlt, hdr) in cooked.items():
        w, n = out(name, dlt), 0
        for op in common[:: max(1, len(common) // 12)]:
            l3, et, t = g.rocev2(op, ipv6=bool(n & 1))
            w.write(hdr(et) + l3)
            n += 1
            record(name, n, t)
        w.close()

    w, n = out("port4792.pcap", 1), 0
    for op in common[::3]:
        l3, et, t = g.rocev2(op, dport=4792)
        w.write(g.ethernet(et, l3, 0))
        n += 1
        record("port4792.pcap", n, t)
    w.close()

    with open(os.path.join(a.outdir, "truth.jsonl"), "w") as f:
        for t in truth:
            f.write(json.dumps(t) + "\n")
    print("%d frames in %s; %d IPv4 ICRCs confirmed by scapy.contrib.roce"
          % (len(truth), a.outdir, g.scapy_checked))


if __name__ == "__main__":
    main()
