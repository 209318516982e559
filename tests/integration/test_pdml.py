#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`read -T pdml` against `tshark -T pdml` on every real capture of the repository and the
sample:
  - well-formed XML, a <packet> per frame as tshark's, each holding <proto> elements with
    the <field>s of the -V tree nested under them, as the tree nests them;
  - every infiniband.* field that both show in a frame (tshark has MAD fields we do not
    dissect; we have roceshark.*) at the same pos and size with the same show value, in
    frames of Ethernet and ERF captures alike (an ERF record's header is not counted);
  - our own fields there too (roceshark.icrc.status on RoCE frames);
  - -x refused. (showname is the -V line, whose value names are ours: issue 13.)"""
import collections
import glob
import os
import xml.etree.ElementTree as ET

import rstest as t


def packets(text, what):
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        t.check(False, "%s: not XML: %s" % (what, e))
        return []
    return root.findall("packet")


def leaves(packet):
    d = collections.defaultdict(list)
    for f in packet.iter("field"):
        name = f.get("name", "")
        if name.startswith("infiniband.") and len(f) == 0:
            d[name].append((f.get("pos"), f.get("size"), f.get("show")))
    return d


captures = sorted(glob.glob(os.path.join(t.REAL_CAPTURES, "*.pcap*")))
captures.append(os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap"))
# Under the sanitizers (several times slower) every third: the normal run compares them all,
# and CI has 20 minutes.
SANITIZED = bool(t.BUILT.get("sanitize"))
if SANITIZED:
    captures = captures[::3]
agree, ours_only = 0, 0
for path in captures:
    name = os.path.basename(path)
    ours = packets(t.run([t.ROCESHARK, "read", "-r", path, "-T", "pdml"]).stdout, name)
    theirs = packets(t.run(["tshark", "-n", "-r", path, "-T", "pdml"]).stdout, "tshark " + name)
    if not t.check(len(ours) == len(theirs) > 0, "%s: %d packets, tshark %d"
                   % (name, len(ours), len(theirs))):
        continue
    for n, (x, y) in enumerate(zip(ours, theirs), 1):
        t.check(len(x) > 0 and all(c.tag == "proto" for c in x) and
                all(f.tag == "field" for p in x for f in p.iter() if f is not p),
                "%s frame %d: <proto>s holding <field>s" % (name, n))
        a, b = leaves(x), leaves(y)
        for field in sorted(set(a) & set(b)):
            if t.check(a[field] == b[field], "%s frame %d %s: %s, tshark %s"
                       % (name, n, field, a[field], b[field])):
                agree += 1
        if "infiniband.bth.opcode" in a and x.find(".//field[@name='infiniband.bth']") is not None:
            ours_only += any(f.get("name") == "roceshark.icrc.status" for f in x.iter("field"))
t.check(agree > (6000 if SANITIZED else 20000), "only %d infiniband fields compared" % agree)
t.check(ours_only > (100 if SANITIZED else 1000),
        "roceshark.icrc.status in only %d frames" % ours_only)
print("pdml: %d infiniband.* fields agree with tshark in pos, size and show; "
      "roceshark.icrc.status in %d frames" % (agree, ours_only))

sample = os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap")
p = t.run([t.ROCESHARK, "read", "-r", sample, "-T", "pdml", "-x"], check_rc=False)
t.check(p.returncode == 1 and p.stderr == "roceshark: read: -x goes with the text output, -V, "
        "-T json or -T ek\n", "-T pdml -x: exit %d %r" % (p.returncode, p.stderr))
t.finish("pdml")
