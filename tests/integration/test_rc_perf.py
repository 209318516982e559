#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Our requester against our responder, end to end over loopback:
- `roceshark perf` for every test, server and client, in perftest's table layout;
- a perf client against a plain `roceshark responder` (the side channel);
- rc_client against the responder, checking data, atomics and receives;
- dumpcap capturing all of it: roceshark.icrc.status must be 1 on every frame in both
  directions, which is what a NIC on the wire would check;
- the CLI's one-line errors and exit codes."""
import json
import os
import re
import subprocess
import time
import zlib

import rcpeer as r
import rstest as t

BW_HEADER = " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
LAT_HEADER = (" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
              "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ")

A, B, C, D = r.addresses(4)
out = t.tempdir()
pcap = os.path.join(out, "rc.pcap")
cap = t.dumpcap("lo", pcap, "udp port 4791 and (host %s or host %s or host %s)" % (A, B, D))


def perf_pair(test, args, port):
    common = ["--bind", None, "-p", str(port), "--json"] + args
    srv_args = [t.ROCESHARK, "perf", test] + [A if x is None else x for x in common]
    srv = t.spawn(srv_args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cli = subprocess.run([t.ROCESHARK, "perf", test, "--connect", A] +
                         [B if x is None else x for x in common],
                         capture_output=True, text=True, timeout=120)
    s_out, s_err = srv.communicate(timeout=30)
    return cli, s_out, s_err, srv.returncode


port = t.free_port(10)
for i, (test, args) in enumerate([("write_bw", ["-s", "65536", "-n", "300"]),
                                  ("read_bw", ["-s", "65536", "-n", "300"]),
                                  ("send_bw", ["-s", "8192", "-n", "300", "-m", "1024"]),
                                  ("send_lat", ["-n", "300"]),
                                  ("write_lat", ["-s", "64", "-n", "300"])]):
    cli, s_out, s_err, s_rc = perf_pair(test, args, port + i)
    what = "perf %s" % test
    if not t.check(cli.returncode == 0 and s_rc == 0, "%s: both sides succeed: %s %s"
                   % (what, cli.stderr, s_err)):
        continue
    lat = test.endswith("lat")
    header = LAT_HEADER if lat else BW_HEADER
    lines = cli.stdout.splitlines()
    t.check(header in lines, "%s: perftest's column header" % what)
    row = lines[lines.index(header) + 1].split() if header in lines else []
    n = 7 if lat else 3
    nums = [float(x) for x in row if re.match(r"^[0-9.]+$", x)]
    t.check(len(nums) == n + 2 and nums[0] > 0 and nums[1] == 300 and all(x > 0 for x in nums),
            "%s: a row of %d positive numbers after bytes and iterations: %s"
            % (what, n, row))
    js = json.loads(lines[-1])
    t.check(js["iterations"] == 300 and js["test"] == test, "%s: the JSON line" % what)
    # Each side's local address is what the other prints as remote, VA included.
    addr = {}
    for side, out in (("client", cli.stdout), ("server", s_out)):
        for kind in ("local", "remote"):
            m = re.search(r"^ %s address: (.*)$" % kind, out, re.M)
            addr[side, kind] = m.group(1) if m else None
    t.check(addr["client", "local"] == addr["server", "remote"] and
            addr["server", "local"] == addr["client", "remote"] and addr["client", "local"],
            "%s: the sides disagree on the addresses: %r" % (what, addr))
    if lat:
        t.check(js["t_min_us"] <= js["t_typical_us"] <= js["p99_us"] <= js["t_max_us"],
                "%s: min <= typical <= 99%% <= max" % what)
    else:
        t.check(js["bw_average_mb"] > 1, "%s: some bandwidth" % what)
    if lat:
        # Both sides of a ping-pong time their own posts, as perftest's do: the server's
        # own row, of as many iterations.
        srow = s_out.splitlines()[s_out.splitlines().index(header) + 1].split() \
            if header in s_out.splitlines() else []
        t.check(srow[:2] == row[:2], "%s: the server prints its own row of %s iterations: %s"
                % (what, row[1:2], srow))
    else:
        t.check(header in s_out.splitlines() and row and " ".join(row) in
                " ".join(s_out.split()), "%s: the server prints the client's row" % what)
    t.check("RDMA_Write" in cli.stdout or "Send" in cli.stdout or "RDMA_Read" in cli.stdout,
            "%s: perftest's title" % what)

# Without a raw socket (no privilege): receives on the UDP socket, ICRC unchecked, says so.
cli, s_out, s_err, s_rc = perf_pair("write_bw", ["-s", "8192", "-n", "200", "--no-raw"], port + 7)
t.check(cli.returncode == 0 and s_rc == 0 and "ICRC checked   : OFF" in cli.stdout,
        "perf --no-raw works and reports the ICRC unchecked: %s" % cli.stderr)

# The state machines traced on stderr, by state name.
srv = t.spawn([t.ROCESHARK, "perf", "send_lat", "--bind", A, "-p", str(port + 8),
               "--trace"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
tr = subprocess.run([t.ROCESHARK, "perf", "send_lat", "--bind", B, "--connect", A, "-p",
                     str(port + 8), "-n", "5"], capture_output=True, text=True, timeout=60)
_, trace = srv.communicate(timeout=30)
t.check(tr.returncode == 0 and "resp CHECK_PSN" in trace and "resp EXECUTE" in trace and
        "resp ACKNOWLEDGE" in trace and "comp ACK" in trace,
        "--trace names the states the machines go through")

# A perf client against a plain responder, over the responder's side channel.
resp = r.Responder(["--bind", A, "--mr", "256K", "--listen", str(port + 9)])
cli = subprocess.run([t.ROCESHARK, "perf", "write_bw", "--bind", B, "--connect", A, "-p",
                      str(port + 9), "-s", "65536", "-n", "100", "-m", "1024", "--json"],
                     capture_output=True, text=True, timeout=60)
t.check(cli.returncode == 0, "perf write_bw against roceshark responder: %s" % cli.stderr)
c = resp.counters()
t.check(c is not None and c["executed"]["write"] == 100, "the responder executed the 100 WRITEs")

# rc_client against the responder (static peer): data, atomics, receives.
resp2 = r.Responder(["--bind", D, "--peer", C, "--peer-qpn", "0x11", "--qpn", "0x300",
                     "--mr", "1M", "--recv", "4", "--pmtu", "1024", "--no-listen"])
va, rkey = resp2.info["va"], resp2.info["rkey"]
ops = ["write:5000:%d:%d" % (va + 100, rkey), "read:5000:%d:%d" % (va + 100, rkey),
       "send_imm:3000:9", "faa:%d:%d:5" % (va + 8192, rkey), "faa:%d:%d:6" % (va + 8192, rkey),
       "cas:%d:%d:11:77" % (va + 8192, rkey), "read:8:%d:%d" % (va + 8192, rkey),
       "write_imm:16:%d:%d:4" % (va, rkey)]
wcs, summary = r.run_client(C, D, 0x300, ops, ["--peer-psn", "0"])
w = {x["wr_id"]: x for x in wcs}
t.check(len(wcs) == len(ops) and all(x["status"] == "SUCCESS" for x in wcs),
        "our requester and responder: every operation succeeds: %s" % [x["status"] for x in wcs])
if len(w) == len(ops):
    t.check(w[1]["crc32"] == zlib.crc32(r.pattern(5000, 0)), "READ brings back the WRITE")
    t.check(w[3]["orig"] == 0 and w[4]["orig"] == 5 and w[5]["orig"] == 11,
            "atomics in order: 0, 5, then the compare of 11 matches")
    t.check(w[6]["crc32"] == zlib.crc32((77).to_bytes(8, "little")), "CMP_SWAP stored 77")
resp2.settled()     # the completions of what rc_client saw acknowledged
recv = [x for x in resp2.completions if x["wc"].startswith("RECV")]
t.check(len(recv) == 2 and recv[0]["crc32"] == zlib.crc32(r.pattern(3000, 2)) and
        recv[0]["imm"] == 9 and recv[1]["wc"] == "RECV_RDMA_WITH_IMM",
        "the responder received the SEND and the WRITE with immediate: %s" % recv)
final = resp2.stop()
t.check(final["executed"] == {"send": 1, "write": 2, "read": 2, "atomic": 3},
        "responder exit counters: %s" % final["executed"])
resp.stop()
t.stop_dumpcap(cap)
rows = t.roceshark_fields(pcap, ["ip.src", "roceshark.icrc.status", "infiniband.bth.opcode"])
by_src = {}
for src, status, _ in rows:
    by_src.setdefault(src, []).append(status)
t.check(len(by_src.get(A, [])) > 1000 and len(by_src.get(B, [])) > 1000 and
        len(by_src.get(C, [])) > 5 and len(by_src.get(D, [])) > 5,
        "captured both directions: %s" % {k: len(v) for k, v in by_src.items()})
bad = [(s, st) for s, st, _ in rows if st != "1"]
t.check(not bad, "roceshark.icrc.status is 1 on all %d captured frames (%d not)"
        % (len(rows), len(bad)))

# The CLI's errors.
for args, code, text in [(["responder"], 1, "--bind IP is required"),
                         (["responder", "--bind", "300.1.1.1"], 1,
                          "expected an IPv4 or IPv6 address"),
                         (["responder", "--bind", "10.255.255.254"], 4,
                          "address not on this host"),
                         (["responder", "--bind", A, "--pmtu", "1000"], 1, "--pmtu"),
                         (["responder", "--bind", A, "--mr", "1M:x"], 1, "--mr"),
                         (["perf"], 1, None), (["perf", "nope_bw", "--bind", A], 1, "unknown test"),
                         (["perf", "write_bw", "--bind", A, "-s", "2G"], 1, "-s")]:
    p = subprocess.run([t.ROCESHARK] + args, capture_output=True, text=True, timeout=20)
    errs = p.stderr.strip().splitlines()
    t.check(p.returncode == code, "%s: exit %d, want %d" % (" ".join(args), p.returncode, code))
    if text is not None:
        t.check(len(errs) == 1 and errs[0].startswith("roceshark: ") and text in errs[0],
                "%s: one line 'roceshark: ...': %s" % (" ".join(args), errs))
h = subprocess.run([t.ROCESHARK, "--help"], capture_output=True, text=True)
t.check("responder --bind IP" in h.stdout and "perf     write_bw" in h.stdout,
        "roceshark --help lists responder and perf")
t.finish("RC end to end: perf, responder, ICRC on the wire")
