#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The RC stack over IPv6, end to end:
- on loopback: `perf write_bw` and `read_bw` between ::1 and a second address on lo (RoCEv2
  answers go to port 4791, so each endpoint needs an address of its own, as 127.x on IPv4),
  and a perf client against `roceshark responder` on ::1;
- on link-local addresses (fe80::...%veth) across a veth pair between two network namespaces
  the test creates and removes: perf write_bw and the responder;
- every captured frame decodes as RoCEv2 over IPv6 with roceshark.icrc.status 1 (the ICRC
  is checked by our dissector; tshark 4.0 only shows it) and tshark agrees on the opcodes;
- bad addresses and scopes: one line and exit code 1."""
import os
import subprocess

import livenet
import rcpeer as r
import rstest as t

livenet.need_root()
out = t.tempdir()
port = t.free_port(10)
LO_B, = r.addresses6(1)


def perf_pair(test, server, client, connect, p, prefix_s=(), prefix_c=(), args=()):
    common = ["-p", str(p), "-s", "65536", "-n", "300", "--json"] + list(args)
    srv = t.spawn(list(prefix_s) + [t.ROCESHARK, "perf", test, "--bind", server] +
                  common, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cli = subprocess.run(list(prefix_c) + [t.ROCESHARK, "perf", test, "--bind", client,
                                           "--connect", connect] + common,
                         capture_output=True, text=True, timeout=60)
    s_out, s_err = srv.communicate(timeout=30)
    what = "perf %s %s <- %s" % (test, server, client)
    t.check(cli.returncode == 0 and srv.returncode == 0,
            "%s: both sides succeed: %s %s" % (what, cli.stderr, s_err))
    t.check('"iters": 300' in cli.stdout or '"iterations": 300' in cli.stdout or
            "300" in cli.stdout, "%s: the client reports 300 iterations" % what)


def check_icrc(pcap, what, expect_src):
    rows = t.roceshark_fields(pcap, ["ipv6.src", "roceshark.icrc.status",
                                     "infiniband.bth.opcode"])
    srcs = {}
    for src, _, _ in rows:
        srcs[src] = srcs.get(src, 0) + 1
    t.check(all(srcs.get(s, 0) > 10 for s in expect_src),
            "%s: captured both directions over IPv6: %s" % (what, srcs))
    bad = [row for row in rows if row[1] != "1"]
    t.check(rows and not bad, "%s: roceshark.icrc.status is 1 on all %d frames (%d not)"
            % (what, len(rows), len(bad)))
    ours = [row[2] for row in rows]
    theirs = [row[0] for row in t.tshark_fields(pcap, ["infiniband.bth.opcode"])]
    t.check(ours == theirs, "%s: tshark decodes the same %d opcodes" % (what, len(ours)))


# --- Loopback: ::1 -------------------------------------------------------------------------
pcap = os.path.join(out, "lo6.pcap")
# Only this test's frames: other tests run beside it on lo, some with bad ICRCs on purpose.
cap = t.dumpcap("lo", pcap, "ip6 and udp port 4791 and host %s" % LO_B)
perf_pair("write_bw", "::1", LO_B, "::1", port)
perf_pair("read_bw", "::1", LO_B, "[::1]:%d" % (port + 1), port + 1)
# Without a raw socket the IPv6 and UDP headers are put back from recvmsg() alone.
perf_pair("write_bw", "::1", LO_B, "[::1]:%d" % (port + 5), port + 5, args=["--no-raw"])
resp = r.Responder(["--bind", "::1", "--mr", "256K", "--listen", str(port + 2)])
cli = subprocess.run([t.ROCESHARK, "perf", "write_bw", "--bind", LO_B, "--connect",
                      "[::1]:%d" % (port + 2), "-s", "65536", "-n", "100", "--json"],
                     capture_output=True, text=True, timeout=60)
t.check(cli.returncode == 0, "perf write_bw against the responder on ::1: %s" % cli.stderr)
c = resp.counters()
t.check(c is not None and c["executed"]["write"] == 100,
        "the responder on ::1 executed the 100 WRITEs: %s" % c)
t.check(c is not None and c["drops"].get("icrc", 0) == 0, "no ICRC drops: %s" % c)
resp.stop()
# inject's UDP sender: the kernel writes the IPv6 header, the ICRC must still hold.
inj = subprocess.run([t.ROCESHARK, "inject", "--udp", "-c", "3",
                      "ipv6(src=::1, dst=%s) / udp(srcport=5000) / bth(opcode=4, destqp=0x99, "
                      "psn=0x777) / payload(len=64)" % LO_B], capture_output=True, text=True,
                     timeout=20)
t.check(inj.returncode == 0 and "3 sent, 0 failed" in inj.stdout + inj.stderr,
        "inject --udp over IPv6: %s %s" % (inj.stdout, inj.stderr))
t.stop_dumpcap(cap)
check_icrc(pcap, "::1", ["::1", LO_B])
injected = [row for row in t.roceshark_fields(pcap, ["infiniband.bth.psn", "roceshark.icrc.status"])
            if row[0] == str(0x777)]
t.check(len(injected) == 3 and all(row[1] == "1" for row in injected),
        "the 3 injected IPv6 packets are captured with a good ICRC: %s" % injected)

# --- Link-local across a veth pair --------------------------------------------------------
pair = livenet.VethPair("v6ll")
(A_LL,), (B_LL,) = pair.link_local(1, 1)
pcap = os.path.join(out, "ll6.pcap")
cap = t.dumpcap(pair.if_b, pcap, "ip6 and udp port 4791", pair.in_b([]))
perf_pair("write_bw", B_LL, A_LL, "%s%%%s" % (r.plain(B_LL), pair.if_a), port + 3,
          pair.in_b([]), pair.in_a([]))
resp = r.Responder(["--bind", B_LL, "--mr", "256K", "--listen", str(port + 4)],
                   prefix=pair.in_b([]))
cli = subprocess.run(pair.in_a([t.ROCESHARK, "perf", "write_bw", "--bind", A_LL, "--connect",
                                "[%s%%%s]:%d" % (r.plain(B_LL), pair.if_a, port + 4), "-s", "65536",
                                "-n", "100", "--json"]),
                     capture_output=True, text=True, timeout=60)
t.check(cli.returncode == 0, "perf write_bw against the responder on %s: %s"
        % (B_LL, cli.stderr))
c = resp.counters()
t.check(c is not None and c["executed"]["write"] == 100,
        "the link-local responder executed the 100 WRITEs: %s" % c)
resp.stop()
t.stop_dumpcap(cap)
check_icrc(pcap, "link-local", [r.plain(A_LL), r.plain(B_LL)])

# --- Bad addresses ------------------------------------------------------------------------
for args, text in [(["responder", "--bind", "fe80::1"], "a link-local address needs a scope"),
                   (["responder", "--bind", "fe80::1%nosuch0"], "no interface named nosuch0"),
                   (["responder", "--bind", "::1", "--peer", "fe80::1%lo"], "--target"),
                   (["perf", "write_bw", "--bind", "::1", "--connect", "[::1"],
                    "expected [ADDRESS]:PORT"),
                   (["perf", "write_bw", "--bind", "2001:db8::1%lo"], "link-local addresses only"),
                   (["responder", "--bind", "1.2.3.4.5"], "expected an IPv4 or IPv6 address"),
                   (["replay", "-r", "x.pcap", "--src", "::1", "--target", "[::1]:0"],
                    "expected a port")]:
    p = subprocess.run([t.ROCESHARK] + args, capture_output=True, text=True, timeout=10)
    lines = p.stderr.strip().splitlines()
    t.check(p.returncode == 1 and len(lines) == 1 and lines[0].startswith("roceshark: ") and
            text in lines[0], "%s: exit 1 and one line with %r: %d %r"
            % (" ".join(args), text, p.returncode, p.stderr))

p = subprocess.run([t.ROCESHARK, "inject", "--udp", "ipv6(src=fe80::1, dst=fe80::2) / udp / "
                    "bth(opcode=4)"], capture_output=True, text=True, timeout=10)
t.check(p.returncode == 4 and p.stderr.count("\n") == 1 and "names no interface" in p.stderr,
        "inject --udp from a link-local source: exit 4 and one line: %d %r"
        % (p.returncode, p.stderr))

t.finish("RC over IPv6")
