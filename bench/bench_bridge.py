#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench_bridge.py [--frames N] : `roceshark bridge` with one rule loaded (a display filter
evaluated on every frame) against a Linux bridge (ip link add type bridge), on the same three
network namespaces (sender | bridge | receiver over two veth pairs), in one run:
  1. frames per second: roceshark inject -i --topspeed sends N RoCEv2 frames of 128 bytes to
     the receiver's MAC; the rate is what reaches the receiver's interface over the time it
     takes;
  2. added latency: 2,000 UDP round trips (a Python echo) through each; the bridge's
     added latency is half the difference of the round-trip times (two traversals),
     p50 and p99.
Run from the repository root after building into build/ (Release or RelWithDebInfo), with
Debian's python3, as root."""
import argparse
import os
import subprocess
import sys
import time

from benchutil import ROOT, RS
RS = os.environ.get("ROCESHARK", RS)

sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
import livenet  # noqa: E402

SPEC = "ip(src=10.88.0.1, dst=10.88.0.2) / bth(psn=inc(0)) / payload(len=66)"     # 128 bytes
RULES = "drop if udp.dstport == 9 && infiniband.bth.psn == 1\n"     # matches nothing
ECHO = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 7777))
while True:
    d, a = s.recvfrom(2048)
    s.sendto(d, a)
"""
PROBE = r"""
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1)
dst = (sys.argv[1], 7777)
rtt = []
for i in range(int(sys.argv[2])):
    t0 = time.perf_counter_ns()
    s.sendto(b"x" * 64, dst)
    try:
        s.recvfrom(2048)
    except socket.timeout:
        continue
    rtt.append(time.perf_counter_ns() - t0)
    time.sleep(0.0005)
print(" ".join(str(x) for x in rtt))
"""


def rx_packets(ch):
    p = subprocess.run(ch.inside(ch.ns_resp, ["cat", "/sys/class/net/%s/statistics/rx_packets"
                                              % ch.if_resp]), capture_output=True, text=True)
    return int(p.stdout)


def throughput(ch, n):
    before = rx_packets(ch)
    t0 = time.perf_counter()
    mac = subprocess.run(ch.inside(ch.ns_resp, ["cat", "/sys/class/net/%s/address" % ch.if_resp]),
                         capture_output=True, text=True).stdout.strip()
    subprocess.run(ch.inside(ch.ns_req, [RS, "inject", "-i", ch.if_req, "--topspeed", "-c", str(n),
                                         "eth.dst=" + mac, SPEC]), check=True, capture_output=True)
    last, last_t = rx_packets(ch), time.perf_counter()
    while True:             # until the bridge has passed on what it had
        time.sleep(0.05)
        cur = rx_packets(ch)
        if cur == last:
            break
        last, last_t = cur, time.perf_counter()
    got = last - before
    return got / (last_t - t0), got


def latency(ch, n):
    echo = subprocess.Popen(ch.inside(ch.ns_resp, ["/usr/bin/python3", "-c", ECHO, ch.ip_resp]))
    time.sleep(0.3)
    p = subprocess.run(ch.inside(ch.ns_req, ["/usr/bin/python3", "-c", PROBE, ch.ip_resp,
                                             str(n)]), capture_output=True, text=True, check=True)
    echo.kill()
    echo.wait()
    rtt = sorted(int(x) for x in p.stdout.split())
    return rtt[len(rtt) // 2], rtt[len(rtt) * 99 // 100]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=500000)
    a = ap.parse_args()
    ch = livenet.Chain("bbr")
    rules = "/tmp/bench_bridge.rules"
    open(rules, "w").write(RULES)

    br = subprocess.Popen(ch.inside(ch.ns_br, [RS, "bridge", ch.if_a, ch.if_b, "--faults", rules]),
                          stderr=subprocess.PIPE, text=True)
    br.stderr.readline()
    rs_rate, rs_got = throughput(ch, a.frames)
    rs_lat = latency(ch, 2000)
    br.send_signal(2)
    _, err = br.communicate(timeout=20)
    br = subprocess.Popen(ch.inside(ch.ns_br, [RS, "bridge", ch.if_a, ch.if_b, "--faults", rules,
                                               "--busy-poll"]), stderr=subprocess.PIPE, text=True)
    br.stderr.readline()
    bp_lat = latency(ch, 2000)
    br.send_signal(2)
    br.communicate(timeout=20)

    for cmd in (["link", "add", "br0", "type", "bridge", "stp_state", "0", "forward_delay", "0"],
                ["link", "set", ch.if_a, "master", "br0"],
                ["link", "set", ch.if_b, "master", "br0"],
                ["link", "set", "br0", "up"]):
        livenet.VethPair._ip("-n", ch.ns_br, *cmd)
    time.sleep(1)           # ports to forwarding
    lx_rate, lx_got = throughput(ch, a.frames)
    lx_lat = latency(ch, 2000)
    ch.remove()

    print("through a bridge between two veth pairs, %d RoCEv2 frames of 128 bytes sent" % a.frames)
    print("  roceshark bridge (1 rule)  %9.0f frames/s (%d arrived)" % (rs_rate, rs_got))
    print("  Linux bridge               %9.0f frames/s (%d arrived)" % (lx_rate, lx_got))
    print("  ratio                      %9.2fx (one packet socket sends: it sets the pace)"
          % (rs_rate / lx_rate))
    print("UDP round trips through each (2,000; us)")
    print("  roceshark bridge  p50 %7.1f  p99 %7.1f" % (rs_lat[0] / 1e3, rs_lat[1] / 1e3))
    print("  Linux bridge      p50 %7.1f  p99 %7.1f" % (lx_lat[0] / 1e3, lx_lat[1] / 1e3))
    print("  roceshark --busy-poll p50 %7.1f  p99 %7.1f" % (bp_lat[0] / 1e3, bp_lat[1] / 1e3))
    print("  added by roceshark, one way: p50 %.1f us, p99 %.1f us; with --busy-poll p50 %.1f "
          "us, p99 %.1f us" % ((rs_lat[0] - lx_lat[0]) / 2e3, (rs_lat[1] - lx_lat[1]) / 2e3,
                               (bp_lat[0] - lx_lat[0]) / 2e3, (bp_lat[1] - lx_lat[1]) / 2e3))
    print(err.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
