#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`roceshark capture` and `ifaces` from the outside: a missing RDMA device (this machine has
none) and other bad devices, options and outputs each get one line on stderr and the
documented exit code; `ifaces` lists the interfaces and says plainly when there is no RDMA."""
import os
import re

import rstest as t


def rs(*args):
    return t.run([t.ROCESHARK] + list(args), check_rc=False)


def expect_error(args, code, *words):
    p = rs(*args)
    lines = p.stderr.splitlines()
    t.check(p.returncode == code, "%s: exit %d, want %d (%r)" % (" ".join(args), p.returncode,
                                                                 code, p.stderr))
    t.check(len(lines) == 1 and lines[0].startswith("roceshark: "),
            "%s: want one 'roceshark: ' line on stderr, got %r" % (" ".join(args), p.stderr))
    for w in words:
        t.check(w in p.stderr, "%s: message %r lacks %r" % (" ".join(args), p.stderr, w))
    return p


tmp = t.tempdir()
out = os.path.join(tmp, "x.pcap")

# No RDMA on this machine: -d names the device and says why, exit 4, no file left behind.
has_rdma = os.path.isdir("/sys/class/infiniband") and os.listdir("/sys/class/infiniband")
if not has_rdma:
    expect_error(["capture", "-d", "mlx5_0", "-w", out], 4, "mlx5_0", "no such RDMA device")
    expect_error(["capture", "-d", "mlx5_0:2", "-w", out], 4, "mlx5_0")
    t.check(not os.path.exists(out), "-d mlx5_0 left a file")
expect_error(["capture", "-d", "mlx5_0:0", "-w", out], 1, "mlx5_0:0")
expect_error(["capture", "-d", "mlx5_0:x", "-w", out], 1, "DEV:PORT")
expect_error(["capture", "-i", "nosuchif0", "-w", out], 4, "nosuchif0", "no such interface",
             "lo")
expect_error(["capture", "-i", "lo", "-w", out, "-f", "udp port ("], 1, "-f", "syntax")
expect_error(["capture", "-i", "lo"], 1, "-w")
expect_error(["capture", "-w", out], 1, "-i IFACE or -d")
expect_error(["capture", "-i", "lo", "-d", "mlx5_0", "-w", out], 1, "-i IFACE or -d")
expect_error(["capture", "-d", "mlx5_0", "-f", "udp", "-w", out], 1, "-f")
expect_error(["capture", "-i", "lo", "-w", out, "-b", "files:3"], 1, "files")
expect_error(["capture", "-i", "lo", "-w", "-", "-b", "filesize:10"], 1, "standard output")
expect_error(["capture", "-i", "lo", "-w", out, "-a", "packets:3"], 1, "packets:3")
expect_error(["capture", "-i", "lo", "-w", out, "-b", "filesize:0"], 1, "filesize:0")
expect_error(["capture", "-i", "lo", "-w", out, "-s", "10"], 1, "-s 10")
expect_error(["capture", "-i", "lo", "-w", out, "-B", "0"], 1, "-B 0")
expect_error(["capture", "-i", "lo", "-w", out, "--iwarp-port", "70000"], 1, "70000")
expect_error(["capture", "-i", "lo", "-w", out, "--bogus"], 1, "--bogus")
expect_error(["capture", "-i", "lo", "-w", out, "-c"], 1, "-c")
# Outputs that cannot be written: exit 3, naming the file.
expect_error(["capture", "-i", "lo", "-w", "/nonexistent/dir/x.pcap"], 3,
             "/nonexistent/dir/x.pcap", "No such file or directory")
expect_error(["capture", "-i", "lo", "-w", "/dev/full"], 3, "/dev/full",
             "No space left on device")
# read -i shares the device errors' words; a missing one exits 1, as tshark.
expect_error(["read", "-i", "nosuchif0"], 1, "nosuchif0", "no such interface")
expect_error(["read", "-i", "lo", "-r", out], 1, "not both")
expect_error(["read", "-r", out, "-f", "udp"], 1, "-i")

# -a duration stops a capture that sees no traffic at all.
p = rs("capture", "-i", "lo", "-w", out, "-a", "duration:1", "-f", "udp port 9")
t.check(p.returncode == 0 and os.path.getsize(out) == 24,
        "-a duration:1 on an idle interface: rc %d, %r" % (p.returncode, p.stderr))
t.check(re.search(r"capture: lo: 0 received, 0 written, 0 dropped by kernel, 0 dropped by "
                  r"interface, 0 dropped by ring", p.stderr), "counts: %r" % p.stderr)

# -i any (Linux cooked): the default RDMA filter compiles there too (BPF has no vlan on
# cooked links, and the filter used to ask for it).
p = rs("capture", "-i", "any", "-w", out, "-a", "duration:1")
t.check(p.returncode == 0 and "capture: any: " in p.stderr,
        "capture -i any with the default filter: rc %d, %r" % (p.returncode, p.stderr))

# ifaces.
p = rs("ifaces")
t.check(p.returncode == 0, "ifaces: exit %d" % p.returncode)
t.check(re.search(r"^  lo +loopback +up", p.stdout, re.M), "ifaces lacks lo: %r" % p.stdout)
t.check("Network interfaces" in p.stdout and "RDMA devices" in p.stdout, "ifaces sections")
if not has_rdma:
    t.check(re.search(r"RDMA devices.*:\n  none: no RDMA", p.stdout),
            "ifaces does not say plainly that there is no RDMA: %r" % p.stdout)
expect_error(["ifaces", "extra"], 1, "extra")

help_text = rs("--help").stdout
t.check("capture" in help_text and "ifaces" in help_text and "-i IFACE" in help_text,
        "--help lacks capture/ifaces")
t.check("-b filesize:KB" in rs("capture", "-h").stdout, "capture -h")
t.finish("capture_cli")
