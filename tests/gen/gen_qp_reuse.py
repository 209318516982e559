#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_qp_reuse.py ROCESHARK OUT.pcap : one capture of three runs between the same two
addresses, each of whose programs takes QP 0x11 on both sides, as every process of the
software stack (and of rxe) does:
  1. `roceshark perf write_bw`, server and client (our side channel: JSON over TCP);
  2. Debian's ib_write_bw through `roceshark run` (perftest's exchange over TCP);
  3. Debian's ibv_rc_pingpong through `roceshark run` (its exchange over TCP).
`roceshark capture -i lo` records the RoCE traffic and the TCP exchanges. The runs are
0.3 s apart, so the analysis sees them apart by their PSNs after a quiet gap as well as by
the exchanges (tests/integration/test_qp_reuse.py reads the capture both ways).

Run as root inside a network namespace of its own (`unshare -n`), with perftest and
ibverbs-utils installed; tests/captures/qp_reuse/ holds its output and its provenance."""
import os
import signal
import socket
import subprocess
import sys
import time

ROCESHARK, OUT = sys.argv[1], sys.argv[2]
A, B = "127.0.0.21", "127.0.0.22"
PORT = 18600


def listening(port):
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in open(name).read().splitlines()[1:]:
            f = row.split()
            if f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:
                return True
    return False


def pair(server, client, port):
    srv = subprocess.Popen(server, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    end = time.time() + 10
    while not listening(port) and srv.poll() is None and time.time() < end:
        time.sleep(0.02)
    cli = subprocess.run(client, capture_output=True, text=True, timeout=60)
    out, _ = srv.communicate(timeout=60)
    if cli.returncode != 0 or srv.returncode != 0:
        sys.exit("%s: exit %d/%d\n%s%s%s" % (client, srv.returncode, cli.returncode, out,
                                             cli.stdout, cli.stderr))
    time.sleep(0.3)


def run(dev, ip, *prog):
    return [ROCESHARK, "run", "--dev", "%s=%s" % (dev, ip), "--"] + list(prog)


subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
cap = subprocess.Popen([ROCESHARK, "capture", "-i", "lo", "-w", OUT, "-f",
                        "host %s or host %s" % (A, B)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
if not cap.stderr.readline().startswith("capture: lo"):
    sys.exit("the capture did not start")
pair([ROCESHARK, "perf", "write_bw", "--bind", A, "-p", str(PORT), "-s", "1024", "-n", "10"],
     [ROCESHARK, "perf", "write_bw", "--bind", B, "--connect", "%s:%d" % (A, PORT), "-s",
      "1024", "-n", "10"], PORT)
pair(run("rs0", A, "ib_write_bw", "-d", "rs0", "-s", "1024", "-n", "10", "-p", str(PORT + 1)),
     run("rs1", B, "ib_write_bw", "-d", "rs1", "-s", "1024", "-n", "10", "-p", str(PORT + 1), A),
     PORT + 1)
pair(run("rs0", A, "ibv_rc_pingpong", "-d", "rs0", "-g", "0", "-s", "256", "-n", "5", "-p",
         str(PORT + 2)),
     run("rs1", B, "ibv_rc_pingpong", "-d", "rs1", "-g", "0", "-s", "256", "-n", "5", "-p",
         str(PORT + 2), A), PORT + 2)
cap.send_signal(signal.SIGINT)
err = cap.communicate(timeout=20)[1]
if cap.returncode != 0 or " 0 dropped by kernel" not in err:
    sys.exit("capture: %s" % err)
