#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`read -T pdml` against `tshark -T pdml` on every real capture of the repository and the
sample:
  - well-formed XML, a <packet> per frame as tshark's, each holding <proto> elements with
    the <field>s of the -V tree nested under them, as the tree nests them; a protocol within
    another (roceshark.analysis in roceshark, as IPv6's hop-by-hop header in tshark's) is a
    <proto> there too, and a <field> holds only <field>s;
  - every infiniband.* field that both show in a frame (tshark has MAD fields we do not
    dissect; we have roceshark.*) at the same pos and size with the same show value, in
    frames of Ethernet and ERF captures alike (an ERF record's header is not counted);
    (the directed-route SMP's D bit and status apart: we read them as IBTA has them, the
    README's table of differences; test_mad.py checks how they differ);
  - our own fields there too (roceshark.icrc.status on RoCE frames);
  - the showname (the -V line) of every field that has value names in Wireshark, as
    Wireshark writes it ("Opcode: Reliable Connection (RC) - SEND Only (4)", "Syndrome: 31,
    Ack", "Type: IPv4 (0x0800)");
  - -x refused."""
import collections
import glob
import os
import struct
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


# The fields Wireshark names the values of (tshark -G values), as the real captures carry them.
NAMED = {"infiniband.bth.opcode", "infiniband.aeth.syndrome", "infiniband.aeth.syndrome.opcode",
         "infiniband.aeth.syndrome.timer", "infiniband.aeth.syndrome.error_code",
         "infiniband.lrh.lnh", "eth.type", "vlan.etype", "ip.proto", "ipv6.nxt",
         "ip.dsfield.dscp", "ip.dsfield.ecn", "ipv6.tclass.dscp", "ipv6.tclass.ecn",
         "ip.flags.df", "ip.flags.mf"}


def shownames(packet):
    d = collections.defaultdict(list)
    for f in packet.iter("field"):
        if f.get("name") in NAMED:
            d[f.get("name")].append(f.get("showname"))
    return d


# Read as IBTA lays them out (README.md, "Where roceshark and Wireshark differ"): the D
# bit and status of a directed-route SMP, and the word of a CM REQ path's flow label.
ON_PURPOSE = {"infiniband.smpdirected.d", "infiniband.smpdirected.smpstatus"} | {
    "infiniband.cm.req.%s_%s" % (path, name) for path in ("prim", "alt")
    for name in ("flowlabel", "reserved0", "pktrate")}

PARTIAL = {"infiniband.reserved"}

captures = sorted(glob.glob(os.path.join(t.REAL_CAPTURES, "*.pcap*")))
captures.append(os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap"))
# Under the sanitizers (several times slower) every third: the normal run compares them all,
# and CI has 20 minutes.
SANITIZED = bool(t.BUILT.get("sanitize"))
if SANITIZED:
    captures = captures[::3]
agree, ours_only, cnp, named = 0, 0, 0, collections.Counter()
for path in captures:
    name = os.path.basename(path)
    ours = packets(t.run([t.ROCESHARK, "read", "-r", path, "-T", "pdml"]).stdout, name)
    theirs = packets(t.run(["tshark", "-n", "-r", path, "-T", "pdml"]).stdout, "tshark " + name)
    if not t.check(len(ours) == len(theirs) > 0, "%s: %d packets, tshark %d"
                   % (name, len(ours), len(theirs))):
        continue
    for n, (x, y) in enumerate(zip(ours, theirs), 1):
        t.check(len(x) > 0 and all(c.tag == "proto" for c in x) and
                all(c.tag == "field" for f in x.iter("field") for c in f),
                "%s frame %d: <proto>s holding <field>s" % (name, n))
        a, b = leaves(x), leaves(y)
        for field in sorted((set(a) & set(b)) - ON_PURPOSE):
            # tshark names reserved bytes inside the CM and SMP payloads too, which we do
            # not yet: ours must be its first ones
            want = b[field][:len(a[field])] if field in PARTIAL else b[field]
            if t.check(a[field] == want, "%s frame %d %s: %s, tshark %s"
                       % (name, n, field, a[field], b[field])):
                agree += 1
        ours_named, their_named = shownames(x), shownames(y)
        for field in sorted(set(ours_named) & set(their_named)):
            # On purpose: IBTA's CNP is opcode 0x81, which Wireshark 4.0 leaves unnamed (it
            # names 0x80 "CNP").
            if ours_named[field] == ["Opcode: CNP (129)"] and \
                    their_named[field] == ["Opcode: Unknown (129)"]:
                cnp += 1
                continue
            if t.check(ours_named[field] == their_named[field], "%s frame %d %s: showname %s, "
                       "tshark %s" % (name, n, field, ours_named[field], their_named[field])):
                named[field] += 1
        if "infiniband.bth.opcode" in a and x.find(".//field[@name='infiniband.bth']") is not None:
            ours_only += any(f.get("name") == "roceshark.icrc.status" for f in x.iter("field"))
t.check(agree > (6000 if SANITIZED else 20000), "only %d infiniband fields compared" % agree)
t.check(ours_only > (100 if SANITIZED else 1000),
        "roceshark.icrc.status in only %d frames" % ours_only)
t.check(named["infiniband.bth.opcode"] > (400 if SANITIZED else 1500) and
        named["infiniband.aeth.syndrome"] > (100 if SANITIZED else 500) and
        named["eth.type"] > 0 and named["ip.proto"] > 0,
        "value names compared in too few frames: %s" % dict(named))
print("pdml: %d infiniband.* fields agree with tshark in pos, size and show; "
      "roceshark.icrc.status in %d frames; %d shownames of named values agree (%s); "
      "CNP named on purpose in %d" % (agree, ours_only, sum(named.values()),
                                      ", ".join("%s %d" % kv for kv in sorted(named.items())),
                                      cnp))



def all_opcodes_pcap(path):
    """One RoCEv2 frame for each of the 256 BTH opcodes (a BTH and 64 zero bytes)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for op in range(256):
            bth = bytes([op, 0, 0xff, 0xff, 0, 0, 0, 1]) + bytes(68)
            udp = struct.pack(">HHHH", 4791, 4791, 8 + len(bth), 0)
            ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 28 + len(bth), 0, 0x4000, 64, 17, 0,
                             bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
            frame = bytes(12) + b"\x08\x00" + ip + udp + bth
            f.write(struct.pack("<IIII", op, 0, len(frame), len(frame)) + frame)


# Every opcode's name, named or not ("Unknown (24)"), but the CNP's (IBTA's 0x81, where
# Wireshark 4.0 names 0x80).
path = os.path.join(t.tempdir(), "opcodes.pcap")
all_opcodes_pcap(path)
ours = packets(t.run([t.ROCESHARK, "read", "-r", path, "-T", "pdml"]).stdout, "opcodes")
theirs = packets(t.run(["tshark", "-n", "-r", path, "-T", "pdml"]).stdout, "tshark opcodes")
same = 0
for op, (x, y) in enumerate(zip(ours, theirs)):
    a, b = shownames(x)["infiniband.bth.opcode"], shownames(y)["infiniband.bth.opcode"]
    if op in (0x80, 0x81):
        t.check(a == ["Opcode: %s (%d)" % ("CNP" if op == 0x81 else "Unknown", op)],
                "opcode %d: %s" % (op, a))
    elif t.check(a == b, "opcode %d: showname %s, tshark %s" % (op, a, b)):
        same += 1
t.check(len(ours) == len(theirs) == 256 and same == 254, "%d of 254 opcodes" % same)
print("pdml: %d of the 256 opcodes named as tshark names them; 0x80 and 0x81 on purpose"
      % same)

sample = os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap")
p = t.run([t.ROCESHARK, "read", "-r", sample, "-T", "pdml", "-x"], check_rc=False)
t.check(p.returncode == 1 and p.stderr == "roceshark: read: -x goes with the text output, -V, "
        "-T json or -T ek\n", "-T pdml -x: exit %d %r" % (p.returncode, p.stderr))
t.finish("pdml")
