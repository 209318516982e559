#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_inject.py [--frames N] : `roceshark inject` against the tools people craft and
replay packets with, in one run, each making or sending the same packets:
  1. to a pcap file: roceshark inject -w against scapy building the same packets and writing
     them with wrpcap (N/500 packets, scaled), for an RC RDMA Write Only of 64 payload bytes
     and for the smallest RoCEv2 frame that carries data (RC SEND Only, 4 bytes: 62 bytes,
     66 on the wire with the FCS);
  2. onto loopback: roceshark inject --udp (sendmmsg) against tcpreplay --topspeed replaying
     our file on lo, and scapy's send();
  3. out of a veth pair in namespaces of its own: roceshark inject -i --topspeed against
     tcpreplay --topspeed sending the same file out of the same interface.
Prints packets per second and the ratios. Run from the repository root after building
into build/ (Release or RelWithDebInfo), with Debian's python3 (which has scapy), as root
(tcpreplay, network namespaces)."""
import argparse
import os
import socket
import subprocess
import sys
import time

from benchutil import DATA, ROOT, RS, tcpreplay_sent, timed_run as timed
RS = os.environ.get("ROCESHARK", RS)

sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
import livenet  # noqa: E402

WRITE = ('bth(opcode="RC RDMA Write Only", psn=inc(0)) / reth(va=0x1000, r_key=0x55, '
         'dmalen=64) / payload(len=64)')
SMALL = 'bth(opcode="RC Send Only", psn=inc(0)) / payload(len=4)'
SRC, DST = "127.0.93.1", "127.0.93.2"


def scapy_packets(n, small):
    from scapy.contrib.roce import BTH
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.packet import Raw
    body = bytes(range(4)) if small else \
        bytes.fromhex("0000000000001000" "00000055" "00000040") + bytes(range(64))
    return [Ether() / IP(src=SRC, dst=DST, flags="DF") / UDP(sport=49152, dport=4791) /
            BTH(opcode=0x04 if small else 0x0a, dqpn=0x11, psn=i) / Raw(body) for i in range(n)]


def to_file(n):
    from scapy.utils import wrpcap
    out = os.path.join(DATA, "inject.pcap")
    ns = max(n // 500, 100)
    for name, spec, small in (("RC RDMA Write Only, 64 payload bytes", WRITE, False),
                              ("RC SEND Only, 4 payload bytes (62-byte frames)", SMALL, True)):
        t_rs, _ = timed([RS, "inject", "-w", out, "-c", str(n), spec])
        t0 = time.perf_counter()
        wrpcap(os.path.join(DATA, "inject_scapy.pcap"), scapy_packets(ns, small))
        t_sc = time.perf_counter() - t0
        rs_pps, sc_pps = n / t_rs, ns / t_sc
        print("to a pcap file, %s" % name)
        print("  roceshark inject -w   %10.0f packets/s (%d packets, whole run)" % (rs_pps, n))
        print("  scapy + wrpcap        %10.0f packets/s (%d packets)" % (sc_pps, ns))
        print("  ratio                 %10.0fx" % (rs_pps / sc_pps))


def onto_loopback(n):
    # A bound socket that never reads takes the datagrams (so the kernel sends no
    # port-unreachable for each) and drops what does not fit.
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind((DST, 4791))
    nu = max(n // 2, 1000)
    addrs = ["ip.src=" + SRC, "ip.dst=" + DST]
    t_udp, _ = timed([RS, "inject", "--udp", "-c", str(nu)] + addrs + [WRITE])
    small = os.path.join(DATA, "inject_replay.pcap")
    timed([RS, "inject", "-w", small, "-c", str(nu)] + addrs + [WRITE])
    t_tr, p = timed(["tcpreplay", "--topspeed", "-i", "lo", small])
    sent_tr = tcpreplay_sent(p.stdout, nu)
    from scapy.layers.inet import IP
    from scapy.sendrecv import send
    nsend = max(n // 1000, 100)
    pkts = [q[IP] for q in scapy_packets(nsend, False)]
    t0 = time.perf_counter()
    send(pkts, verbose=False)
    t_ss = time.perf_counter() - t0
    sink.close()
    udp_pps, tr_pps, ss_pps = nu / t_udp, sent_tr / t_tr, nsend / t_ss
    print("onto loopback, RC RDMA Write Only, 64 payload bytes")
    print("  roceshark inject --udp %10.0f packets/s (%d packets, sendmmsg)" % (udp_pps, nu))
    print("  tcpreplay --topspeed   %10.0f packets/s (%d packets, the same frames)"
          % (tr_pps, sent_tr))
    print("  scapy send()           %10.0f packets/s (%d packets)" % (ss_pps, nsend))
    print("  ratio to tcpreplay     %10.1fx; to scapy %.0fx" % (udp_pps / tr_pps,
                                                                udp_pps / ss_pps))


def out_of_veth(n):
    pair = livenet.VethPair("bnj")
    nv = max(n // 2, 1000)
    ref = os.path.join(DATA, "inject_veth.pcap")
    timed([RS, "inject", "-w", ref, "-c", str(nv), SMALL])
    best = {"roceshark": 0.0, "tcpreplay": 0.0}
    for _ in range(3):      # alternated, best of three: the machine is shared
        t_rs, _ = timed(pair.in_a([RS, "inject", "-i", pair.if_a, "--topspeed", "-c", str(nv),
                                   "eth.dst=02:00:00:00:00:02", SMALL]))
        best["roceshark"] = max(best["roceshark"], nv / t_rs)
        t_tr, p = timed(pair.in_a(["tcpreplay", "--topspeed", "-i", pair.if_a, ref]))
        best["tcpreplay"] = max(best["tcpreplay"], tcpreplay_sent(p.stdout, nv) / t_tr)
    pair.remove()
    print("out of a veth pair, RC SEND Only, 62-byte frames (best of 3, whole runs)")
    print("  roceshark inject -i --topspeed %10.0f packets/s (%d packets, pcap_inject)"
          % (best["roceshark"], nv))
    print("  tcpreplay --topspeed           %10.0f packets/s (the same file)" % best["tcpreplay"])
    print("  ratio                          %10.2fx" % (best["roceshark"] / best["tcpreplay"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=1000000)
    a = ap.parse_args()
    os.makedirs(DATA, exist_ok=True)
    to_file(a.frames)
    onto_loopback(a.frames)
    out_of_veth(a.frames)
    return 0


if __name__ == "__main__":
    sys.exit(main())
