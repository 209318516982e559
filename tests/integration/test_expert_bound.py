#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""-z expert keeps at most 65536 rows (docs/limits.md): a SYN to each of the 65535 ports
makes a row each ("Connection establish request (SYN): server port N"), and the SYN+ACKs
of five ports come at the bound: those past it are counted on the last row of their level,
"(items of summaries past the 65536 rows kept)", and in its heading's total, in our form
and in tshark's."""
import os
import re
import struct

import rstest as t

BOUND = 65536
PAST = 5


def segment(sport, dport, flags):
    """An Ethernet, IPv4 and TCP header (no options), checksums left 0."""
    eth = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00"
    tcp = struct.pack("!HHIIBBHHH", sport, dport, 1000, 1 if flags & 0x10 else 0, 5 << 4,
                      flags, 65535, 0, 0)
    src, dst = (b"\x0a\x00\x00\x01", b"\x0a\x00\x00\x02")
    if sport != 40000:
        src, dst = dst, src
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0, src, dst)
    return eth + ip + tcp


path = os.path.join(t.tempdir(), "syns.pcap")
with open(path, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    frames = [segment(40000, port, 0x02) for port in range(1, 65536)]
    frames += [segment(port, 40000, 0x12) for port in range(1, PAST + 1)]
    for n, frame in enumerate(frames):
        f.write(struct.pack("<IIII", n, 0, len(frame), len(frame)) + frame)

for form in ([], ["--compat", "tshark"]):
    out = t.run([t.ROCESHARK, "read", "-r", path, "-q", "-z", "expert"] + form).stdout
    rows = [l for l in out.splitlines() if re.match(r"^ +\d+ +\S+ +\S+  \S", l)]
    past = [l for l in out.splitlines() if "(items of summaries past the 65536 rows kept)" in l]
    t.check(len(rows) == BOUND, "%s: %d rows, want %d" % (form, len(rows), BOUND))
    kept = sum(int(l.split()[0]) for l in rows if "(SYN+ACK)" in l)
    t.check(len(past) == 1 and kept + int(past[0].split()[0]) == PAST and kept < PAST,
            "%s: the SYN+ACKs past the bound: %s, %d kept" % (form, past, kept))
    # each heading's total is its rows' counts, the one past the bound included
    for m in re.finditer(r"^(\w+) \((\d+)\)\n=+\n[^\n]*\n((?: +\d+[^\n]*\n?)*)", out, re.M):
        counts = sum(int(l.split()[0]) for l in m.group(3).splitlines())
        t.check(counts == int(m.group(2)), "%s: %s (%s) sums to %d" % (form, m.group(1),
                                                                      m.group(2), counts))
    syn = [l for l in rows if "server port 65535" in l]
    t.check(len(syn) == 1 and syn[0].split()[0] == "1", "%s: port 65535's row: %s"
            % (form, syn))
t.finish("expert bound")
