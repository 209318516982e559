#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Ethernet names (dissectors/net/ether_names.c) as tshark gives them, over the entries of
Wireshark's own manuf and wka files: each fourth vendor prefix, each fourth /28 and /36
block, and every wka entry, each as an address within it (its bits past the mask random),
its first and last address and the first address past it; and random addresses, unicast
and multicast, that most files name nothing. -T fields of eth.src_resolved,
eth.dst_resolved, eth.addr_resolved and the vendors' long names (eth.*.oui_resolved), byte
for byte against tshark's."""
import os
import random
import re
import struct
import subprocess

import rstest as t

FILES = ["/usr/share/wireshark/manuf", "/usr/share/wireshark/wka"]
FIELDS = ["eth.src_resolved", "eth.dst_resolved", "eth.addr_resolved",
          "eth.src.oui_resolved", "eth.dst.oui_resolved"]
EVERY = 4           # of manuf's entries; every wka entry
RANDOM = 1500       # addresses of no file, half of them multicast


def entries(path):
    """(address as an int, its prefix length in bits) of each line of a data file."""
    found = []
    with open(path, errors="replace") as f:
        for line in f:
            cols = line.split("#")[0].split()
            if len(cols) < 2:
                continue
            addr, _, mask = cols[0].partition("/")
            octets = re.split("[:.-]", addr)
            try:
                value = int.from_bytes(bytes(int(o, 16) for o in octets), "big")
            except ValueError:
                continue
            bits = int(mask) if mask else 8 * len(octets)
            found.append((value << (48 - 8 * len(octets)), bits))
    return found


def addresses(rng):
    """The addresses to name, shuffled."""
    out = []
    for path in FILES:
        if not os.path.exists(path):
            t.skip_missing(path)
        every = EVERY if path.endswith("manuf") else 1
        for i, (value, bits) in enumerate(entries(path)):
            if i % every != 0:
                continue
            span = 1 << (48 - bits)
            out += [value | rng.randrange(span), value, value | (span - 1)]
            if bits < 48:
                out.append((value + span) & (1 << 48) - 1)
    for i in range(RANDOM):
        out.append(rng.getrandbits(48) | (i % 2) << 40)
    rng.shuffle(out)
    return out


def write_pcap(path, addrs):
    """One frame per two addresses (destination, source), of the local experimental
    Ethertype, which neither tool dissects further."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i in range(0, len(addrs) - 1, 2):
            frame = (addrs[i].to_bytes(6, "big") + addrs[i + 1].to_bytes(6, "big") +
                     b"\x88\xb5" + bytes(46))
            f.write(struct.pack("<IIII", 1 + i, 0, len(frame), len(frame)) + frame)
    return len(addrs) // 2


def main():
    work = t.tempdir()
    cap = os.path.join(work, "names.pcap")
    frames = write_pcap(cap, addresses(random.Random(44)))
    args = ["-T", "fields"] + [a for f in FIELDS for a in ("-e", f)]
    want = t.run(["tshark", "-r", cap] + args).stdout
    got = subprocess.run([t.ROCESHARK, "read", "-r", cap] + args + t.COMPAT,
                         capture_output=True, text=True)
    t.check(got.returncode == 0, "read exited %d: %s" % (got.returncode, got.stderr))
    want_rows, got_rows = want.splitlines(), got.stdout.splitlines()
    t.check(len(want_rows) == frames and len(got_rows) == frames,
            "%d frames: tshark printed %d rows, read %d" % (frames, len(want_rows),
                                                           len(got_rows)))
    named = sum(1 for row in want_rows if "_" in row.split("\t")[0])
    t.check(named > frames // 2, "only %d of %d frames have a named source" % (named, frames))
    wrong = [(w, g) for w, g in zip(want_rows, got_rows) if w != g]
    for w, g in wrong[:10]:
        t.check(False, "tshark %r, read %r" % (w, g))
    t.check(not wrong, "%d of %d rows differ" % (len(wrong), frames))
    t.finish("ether_names")


if __name__ == "__main__":
    main()
