#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_inject.py [--frames N] : `roceshark inject` against the tools people craft and
replay packets with, in one run, each making or sending the same RC RDMA Write Only of 64
payload bytes:
  1. to a pcap file: roceshark inject -w (N packets) against scapy building the packets and
     writing them with wrpcap (N/500 packets, scaled);
  2. onto loopback: roceshark inject --udp (N/2 packets, sendmmsg) against tcpreplay
     --topspeed replaying our file on lo, and against scapy's send() (N/1000 packets).
Prints packets per second and the ratios. Run from the repository root after building
into build/, with Debian's python3 (which has scapy), as root (tcpreplay)."""
import argparse
import os
import re
import socket
import subprocess
import sys
import time

from benchutil import DATA, RS

SPEC = ["infiniband.bth.opcode=0x0a", "infiniband.reth.va=0x1000", "infiniband.reth.r_key=0x55",
        "infiniband.reth.dmalen=64", "payload=len:64", "--psn-step", "1"]
SRC, DST = "127.0.93.1", "127.0.93.2"


def timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("%s: %s" % (" ".join(cmd), p.stderr.strip()))
    return time.perf_counter() - t0, p


def scapy_packets(n):
    from scapy.contrib.roce import BTH
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.packet import Raw
    reth = bytes.fromhex("0000000000001000" "00000055" "00000040")
    return [Ether() / IP(src=SRC, dst=DST, flags="DF") / UDP(sport=49152, dport=4791) /
            BTH(opcode=0x0a, dqpn=0x11, psn=i) / Raw(reth + bytes(range(64))) for i in range(n)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=1000000)
    a = ap.parse_args()
    n = a.frames
    os.makedirs(DATA, exist_ok=True)
    out = os.path.join(DATA, "inject.pcap")

    t_rs, _ = timed([RS, "inject", "-w", out, "-c", str(n)] + SPEC)
    from scapy.utils import wrpcap
    ns = max(n // 500, 100)
    t0 = time.perf_counter()
    wrpcap(os.path.join(DATA, "inject_scapy.pcap"), scapy_packets(ns))
    t_sc = time.perf_counter() - t0
    rs_pps, sc_pps = n / t_rs, ns / t_sc
    print("to a pcap file, RC RDMA Write Only with 64 payload bytes")
    print("  roceshark inject -w   %10.0f packets/s (%d packets)" % (rs_pps, n))
    print("  scapy + wrpcap        %10.0f packets/s (%d packets)" % (sc_pps, ns))
    print("  ratio                 %10.1fx" % (rs_pps / sc_pps))

    # Onto loopback. A bound socket that never reads takes the datagrams (so the kernel
    # sends no port-unreachable for each) and drops what does not fit.
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind((DST, 4791))
    nu = max(n // 2, 1000)
    t_udp, _ = timed([RS, "inject", "--udp", "-c", str(nu), "ip.src=" + SRC, "ip.dst=" + DST]
                     + SPEC)
    small = os.path.join(DATA, "inject_replay.pcap")
    timed([RS, "inject", "-w", small, "-c", str(nu), "ip.src=" + SRC, "ip.dst=" + DST] + SPEC)
    t_tr, p = timed(["tcpreplay", "--topspeed", "-i", "lo", small])
    m = re.search(r"Actual: (\d+) packets", p.stdout)
    sent_tr = int(m.group(1)) if m else nu
    from scapy.sendrecv import send
    from scapy.layers.inet import IP
    nsend = max(n // 1000, 100)
    pkts = [q[IP] for q in scapy_packets(nsend)]
    t0 = time.perf_counter()
    send(pkts, verbose=False)
    t_ss = time.perf_counter() - t0
    sink.close()
    udp_pps, tr_pps, ss_pps = nu / t_udp, sent_tr / t_tr, nsend / t_ss
    print("onto loopback")
    print("  roceshark inject --udp %10.0f packets/s (%d packets, sendmmsg)" % (udp_pps, nu))
    print("  tcpreplay --topspeed   %10.0f packets/s (%d packets, the same frames)"
          % (tr_pps, sent_tr))
    print("  scapy send()           %10.0f packets/s (%d packets)" % (ss_pps, nsend))
    print("  ratio to tcpreplay     %10.1fx; to scapy %.1fx" % (udp_pps / tr_pps,
                                                                 udp_pps / ss_pps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
