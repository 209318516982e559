#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The command line: output formats on a real capture, and bad files, fields and options
answered with one line on stderr ("roceshark: <what>: <why>") and the documented exit code."""
import json
import os

import rstest as t

t.need(t.REAL_CAPTURES, "the real captures")
CAP = os.path.join(t.REAL_CAPTURES, "montybeatnik_rdma-roce-lab__test.pcap")
tmp = t.tempdir()


def rs(*args, stdout=None):
    return t.run([t.ROCESHARK] + list(args), check_rc=False)


def expect_error(args, code, *words):
    p = rs(*args)
    lines = p.stderr.splitlines()
    t.check(p.returncode == code, "%s: exit %d, want %d" % (" ".join(args), p.returncode, code))
    t.check(len(lines) == 1 and lines[0].startswith("roceshark: "),
            "%s: want one 'roceshark: ' line on stderr, got %r" % (" ".join(args), p.stderr))
    for w in words:
        t.check(w in p.stderr, "%s: message %r lacks %r" % (" ".join(args), p.stderr, w))
    t.check(p.stdout == "", "%s: printed to stdout on error" % " ".join(args))


# Formats.
p = rs("read", "-r", CAP)
lines = p.stdout.splitlines()
t.check(p.returncode == 0 and len(lines) == 16, "text: %d lines" % len(lines))
t.check("RRoCE 1086 RC RDMA Read Response First QP=0x000017 PSN=12726937 MSN=2 Payload=1024" in lines[6],
        "text line 7: %r" % lines[6])
p = rs("read", "-r", CAP, "-c", "5")
t.check(len(p.stdout.splitlines()) == 5, "-c 5 printed %d lines" % len(p.stdout.splitlines()))
frames = json.loads(rs("read", "-r", CAP, "-T", "json").stdout)
t.check(len(frames) == 16, "json: %d objects" % len(frames))
t.check(frames[3]["infiniband.reth.dmalen"] == "18" and frames[3]["roceshark.icrc.status"] == "1",
        "json frame 4: %r" % frames[3].get("infiniband.reth.dmalen"))
t.check("infiniband.bth" not in frames[11], "json: an ARP frame has BTH fields")
tree = rs("read", "-r", CAP, "-V", "-c", "4").stdout
t.check("    RDMA Extended Transport Header\n        Virtual Address: 0x0000aaab26b58000" in tree,
        "-V lacks the RETH subtree")
p = rs("read", "-r", CAP, "-T", "fields", "-E", "header=y", "-E", "separator=,",
       "-e", "frame.number", "-e", "infiniband.bth.psn", "-c", "5")
t.check(p.stdout.splitlines()[:2] == ["frame.number,infiniband.bth.psn", "1,82"],
        "-E header/separator: %r" % p.stdout.splitlines()[:2])
listing = rs("fields", "infiniband.aeth").stdout.splitlines()
t.check(any(l.startswith("infiniband.aeth.syndrome.timer\tFT_UINT8\t") for l in listing),
        "fields listing lacks the AETH timer")
t.check(all(l.startswith("infiniband.aeth") for l in listing), "fields PREFIX filter")
t.check(len(rs("fields").stdout.splitlines()) > 100, "fields lists too few")
help_text = rs("--help").stdout
t.check("exit codes" in help_text and "2  unreadable" in help_text, "--help lacks exit codes")

# Errors.
expect_error(["read", "-r", "/nonexistent/cap.pcap"], 2, "/nonexistent/cap.pcap")
junk = os.path.join(tmp, "junk.pcap")
open(junk, "w").write("not a capture\n" * 10)
expect_error(["read", "-r", junk], 2, junk)
expect_error(["read", "-r", CAP, "-T", "fields", "-e", "infiniband.bth.nosuch"], 1,
             "infiniband.bth.nosuch", "unknown field")
expect_error(["read", "-r", CAP, "-T", "yaml"], 1, "yaml")
expect_error(["read", "-r", CAP, "-Q"], 1, "-Q")
expect_error(["read", "-r", CAP, "-c", "many"], 1, "many")
expect_error(["read", "-r", CAP, "-T", "fields"], 1, "-e")
expect_error(["read", "-r", CAP, "-d", "udp.port==99999,roce"], 1, "udp.port==99999")
expect_error(["read", "-r", CAP, "-d", "udp.port==4792,nfs"], 1, "nfs")
expect_error(["read", "-r", CAP, "-E", "quote=d", "-T", "fields", "-e", "ip.src"], 1, "quote")
expect_error(["read"], 1, "-r")
expect_error(["frobnicate"], 1, "frobnicate")
expect_error(["fields", "zzz"], 1, "zzz")

# A capture cut in the middle of a record: what was read is printed, then the error.
data = open(CAP, "rb").read()
cut = os.path.join(tmp, "cut.pcap")
open(cut, "wb").write(data[:len(data) - 100])
p = rs("read", "-r", cut)
t.check(p.returncode == 2 and len(p.stdout.splitlines()) == 15,
        "cut file: exit %d, %d lines" % (p.returncode, len(p.stdout.splitlines())))
t.check(p.stderr.startswith("roceshark: ") and cut in p.stderr and len(p.stderr.splitlines()) == 1,
        "cut file message: %r" % p.stderr)

# Output that cannot be written.
with open("/dev/full", "w") as full:
    p = t.subprocess.run([t.ROCESHARK, "read", "-r", CAP], stdout=full, stderr=t.subprocess.PIPE,
                         text=True)
t.check(p.returncode == 3 and p.stderr.startswith("roceshark: "), "/dev/full: exit %d %r"
        % (p.returncode, p.stderr))
t.finish("cli")
