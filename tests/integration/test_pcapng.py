#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The pcapng reader (capture/source_pcapng.c) against the classic pcap reader and libpcap.

The generated captures of tests/gen/gen_roce.py (Ethernet, ERF, DLT_INFINIBAND, Linux cooked
v1 and v2, raw IP) and the sample are converted to pcapng by editcap (Wireshark's writer)
where it takes the link type, and by the writer below in big-endian byte order. Each must
decode exactly as the pcap it came from, in every output mode, but for what a pcapng frame
has and a pcap frame has not (its section and interface, as tshark shows them); through
standard input (libpcap) too. Then one pcapng holds four captures of different link types,
one interface each: every frame decodes with its own interface's link type. Last, a pcapng of
two sections whose interfaces have names and descriptions: each frame's section, interface
and times as tshark gives them. Resolutions and damaged blocks are covered by
tests/unit/test_source.c and tests/regress/."""
import gzip
import json
import os
import re
import shutil
import struct

import rstest as t


def to_pcapng(pcaps, path, custom=True):
    """Writes the records of the (little-endian, microsecond) pcaps into one big-endian
    pcapng, an interface each, with a custom block between them to be skipped (unless not
    custom)."""
    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack(">II", btype, 12 + len(body)) + body + struct.pack(">I", 12 + len(body))
    blocks = [block(0x0A0D0D0A, struct.pack(">IHHq", 0x1A2B3C4D, 1, 0, -1))]
    records = []
    for i, pcap in enumerate(pcaps):
        data = open(pcap, "rb").read()
        snaplen, linktype = struct.unpack_from("<II", data, 16)
        blocks.append(block(1, struct.pack(">HHI", linktype & 0xFFFF, 0, snaplen)))
        pos = 24
        while pos < len(data):
            sec, usec, caplen, length = struct.unpack_from("<IIII", data, pos)
            ts = sec * 1000000 + usec
            records.append(block(6, struct.pack(">IIIII", i, ts >> 32, ts & 0xFFFFFFFF, caplen,
                                                length) + data[pos + 16:pos + 16 + caplen]))
            pos += 16 + caplen
        if custom:
            records.append(block(0x40000BAD, b"skip me"))
    open(path, "wb").write(b"".join(blocks + records))


# What a pcapng frame shows and a pcap frame does not: the frame line's interface, and the
# section and interface items under it.
V_IFACE_SUFFIX = re.compile(r" on interface .*, id \d+$", re.M)
V_IFACE_LINE = re.compile(r"^ +(Section number|Interface (id|name|description)): .*\n", re.M)


def without_interface(mode, text):
    if mode == ["-V"]:
        return V_IFACE_LINE.sub("", V_IFACE_SUFFIX.sub("", text))
    if mode == ["-T", "json"]:
        frames = json.loads(text)
        for f in frames:
            layer = f["_source"]["layers"]["frame"]
            for key in [k for k in layer if k.startswith(("frame.section_number",
                                                          "frame.interface_"))]:
                del layer[key]
        return json.dumps(frames)
    return text


if shutil.which("editcap") is None:
    raise SystemExit("editcap (Debian's wireshark-common) is needed")
out = t.tempdir()
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_roce.py"), out, "--seed", "5", "--per-opcode", "2"])
pcaps = [os.path.join(out, f) for f in sorted(os.listdir(out)) if f.endswith(".pcap")]
pcaps.append(os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap"))
t.check(len(pcaps) >= 8, "expected the generated captures, found %d" % len(pcaps))

MODES = [["-V"], ["-T", "json"], [], ["-q", "-z", "conv,qp", "-z", "expert"],
         ["-T", "fields", "-e", "frame.number", "-e", "frame.time_epoch", "-e",
          "frame.time_relative", "-e", "frame.time_delta", "-e", "infiniband.bth.psn"]]

converted = 0
for pcap in pcaps:
    name = os.path.basename(pcap)
    ng = os.path.join(out, name + "ng")
    if t.run(["editcap", "-F", "pcapng", pcap, ng], check_rc=False).returncode != 0:
        to_pcapng([pcap], ng)   # a link type editcap 4.0 does not take (247)
    else:
        converted += 1
    t.check(open(ng, "rb").read(4) == b"\x0a\x0d\x0d\x0a", "%s: no pcapng written" % name)
    for mode in MODES:
        want = without_interface(mode, t.run([t.ROCESHARK, "read", "-r", pcap] + mode).stdout)
        got = without_interface(mode, t.run([t.ROCESHARK, "read", "-r", ng] + mode).stdout)
        t.check(got == want, "%s as pcapng: %s output differs" % (name, " ".join(mode) or "text"))
    piped = t.run([t.ROCESHARK, "read", "-r", "-", "-V"], input=open(ng, "rb").read()).stdout
    t.check(without_interface(["-V"], piped.decode()) ==
            without_interface(["-V"], t.run([t.ROCESHARK, "read", "-r", pcap, "-V"]).stdout),
            "%s as pcapng on standard input: -V output differs" % name)

t.check(converted >= 6, "editcap converted only %d captures" % converted)

# Compressed files open as tshark opens them: .pcap.gz and .pcapng.gz decode as their
# contents, times to the nanosecond, and a truncated one gives the frames before the damage.
GZ_FIELDS = ["frame.number", "frame.time_epoch", "frame.time_relative", "infiniband.bth.psn",
             "roceshark.icrc.status"]
GZ_OF = [p for p in pcaps if os.path.basename(p) in ("ether.pcap", "sll2.pcap", "rdma_demo.pcap")]
t.check(len(GZ_OF) == 3, "expected ether.pcap, sll2.pcap and the sample among the captures")
for pcap in GZ_OF + [os.path.join(out, "rdma_demo.pcapng")]:
    name = os.path.basename(pcap)
    data = open(pcap, "rb").read()
    gz = os.path.join(out, name + ".gz")
    open(gz, "wb").write(gzip.compress(data))
    for mode in (["-V"], ["-q", "-z", "conv,qp"]):
        t.check(t.run([t.ROCESHARK, "read", "-r", gz] + mode).stdout ==
                t.run([t.ROCESHARK, "read", "-r", pcap] + mode).stdout,
                "%s.gz: %s output differs" % (name, " ".join(mode)))
    t.check(t.roceshark_fields(gz, GZ_FIELDS) == t.roceshark_fields(pcap, GZ_FIELDS),
            "%s.gz: fields differ" % name)
    t.check(t.roceshark_fields(gz, ["frame.time_epoch"]) ==
            t.tshark_fields(gz, ["frame.time_epoch"]), "%s.gz: times differ from tshark" % name)
whole = gzip.compress(open(GZ_OF[0], "rb").read())
cut = os.path.join(out, "cut.pcap.gz")
open(cut, "wb").write(whole[:len(whole) * 2 // 3])
r = t.run([t.ROCESHARK, "read", "-r", cut, "-T", "fields", "-e", "frame.number"], check_rc=False)
t.check(r.returncode != 0 and r.stderr.startswith("roceshark: ") and r.stderr.count("\n") == 1,
        "a truncated .gz: want one error line and a non-zero exit, got %d %r"
        % (r.returncode, r.stderr))
t.check(len(r.stdout.split()) > 0, "a truncated .gz: the frames before the damage are lost")

# One pcapng, one interface per link type, the frames in the order of the files.
# (An ERF record's time is its packet block's there, as tshark takes it: checked below.)
FIELDS = ["infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
          "roceshark.icrc.status", "ip.src", "frame.len"]
parts = [p for p in pcaps if os.path.basename(p) in ("ether.pcap", "ib_erf.pcap",
                                                      "ib_dlt247.pcap", "sll2.pcap")]
t.check(len(parts) == 4, "expected four link types among the generated captures")
merged = os.path.join(out, "merged.pcapng")
to_pcapng(parts, merged)
want = sum((t.roceshark_fields(p, FIELDS) for p in parts), [])
t.check(t.roceshark_fields(merged, FIELDS) == want,
        "a pcapng of four link types does not decode as its four parts")


def named_sections(pcaps, path):
    """Two sections: the first (big-endian) with an interface for each of pcaps[0] and
    pcaps[1], named, the first described too, their records interleaved; the second
    (little-endian) with one unnamed interface of nanoseconds for pcaps[2]."""
    def block(order, btype, body):
        body += b"\0" * (-len(body) % 4)
        return (struct.pack(order + "II", btype, 12 + len(body)) + body +
                struct.pack(order + "I", 12 + len(body)))

    def option(order, code, value):
        return struct.pack(order + "HH", code, len(value)) + value + b"\0" * (-len(value) % 4)

    def records(pcap):
        data = open(pcap, "rb").read()
        pos, out = 24, []
        while pos < len(data):
            sec, usec, caplen, length = struct.unpack_from("<IIII", data, pos)
            out.append((sec * 1000000 + usec, caplen, length, data[pos + 16:pos + 16 + caplen]))
            pos += 16 + caplen
        return out

    def idb(order, pcap, options):
        snaplen, linktype = struct.unpack_from("<II", open(pcap, "rb").read(), 16)
        return block(order, 1, struct.pack(order + "HHI", linktype & 0xFFFF, 0, snaplen) +
                     b"".join(option(order, c, v) for c, v in options) + option(order, 0, b""))

    out = [block(">", 0x0A0D0D0A, struct.pack(">IHHq", 0x1A2B3C4D, 1, 0, -1)),
           idb(">", pcaps[0], [(2, b"eth0"), (3, b"the first port")]),
           idb(">", pcaps[1], [(2, b"ib0")])]
    first = [(0, r) for r in records(pcaps[0])] + [(1, r) for r in records(pcaps[1])]
    for iface, (ts, caplen, length, data) in sorted(first, key=lambda x: x[1][0]):
        out.append(block(">", 6, struct.pack(">IIIII", iface, ts >> 32, ts & 0xFFFFFFFF, caplen,
                                              length) + data))
    out += [block("<", 0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)),
            idb("<", pcaps[2], [(9, b"\x09")])]
    for ts, caplen, length, data in records(pcaps[2]):
        ts = ts * 1000 + 123    # nanoseconds
        out.append(block("<", 6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, caplen,
                                              length) + data))
    open(path, "wb").write(b"".join(out))


# Sections, interfaces and their names, and times, as tshark reads them: in a pcapng of three
# link types (an ERF record's time is its packet block's), and in one of two sections. Each
# section numbers its interfaces from 0, but tshark 4.0 names a later section's interface N
# after the first section's (eth0 for the second section's unnamed one); 4.4 names it from
# its own block, as read does (docs/limits.md). Those names are expected as 4.4 gives them.
IFACE_FIELDS = ["frame.number", "frame.section_number", "frame.interface_id",
                "frame.interface_name", "frame.interface_description", "frame.time_epoch",
                "frame.time_delta", "frame.time_relative", "frame.encap_type", "frame.len"]
FRAME_HEAD = re.compile(r"^(?:Frame \d+: .*|    Section number: .*|    Interface id: .*|"
                        r"        Interface (?:name|description): .*)$", re.M)
# (tshark 4.0 does not read link type 247, and shows a custom block as a frame of its own: the
# pcapng compared has neither.)
three = os.path.join(out, "three.pcapng")
to_pcapng([p for p in parts if not p.endswith("ib_dlt247.pcap")], three, custom=False)
sections = os.path.join(out, "sections.pcapng")
named_sections([parts[0], parts[3], parts[2]], sections)


def as_tshark_4_4(rows):
    """tshark 4.0's rows with the second section's interface named from its own block."""
    return [r[:3] + ["unknown", ""] + r[5:] if r[1] == "2" else r for r in rows]


def frame_head(text, ours):
    """The frame lines of -V output; tshark's second section's named as 4.4 names them."""
    lines = FRAME_HEAD.findall(text)
    if ours:
        return lines
    frames, out = [], []
    for line in lines:
        if line.startswith("Frame "):
            frames.append([])
        frames[-1].append(line)
    for frame in frames:
        if "    Section number: 2" in frame:
            frame = [line.replace("interface eth0,", "interface unknown,")
                     .replace("(eth0)", "(unknown)").replace("name: eth0", "name: unknown")
                     for line in frame if not line.startswith("        Interface description:")]
        out += frame
    return out


for ng in (three, sections):
    rows = t.tshark_fields(ng, IFACE_FIELDS)
    t.check(t.roceshark_fields(ng, IFACE_FIELDS) == as_tshark_4_4(rows),
            "%s: sections, interfaces or times differ from tshark's" % os.path.basename(ng))
    head = [frame_head(t.run(cmd + ["-r", ng, "-V"]).stdout, ours)
            for cmd, ours in (([t.ROCESHARK, "read"], True), (["tshark", "-n"], False))]
    t.check(head[0] == head[1] and len(head[0]) > 0,
            "%s: -V frame lines differ from tshark's: %s" % (os.path.basename(ng),
                                                             [x for x in zip(*head)
                                                              if x[0] != x[1]][:3]))
print("%d captures as pcapng (%d by editcap), %d output modes each"
      % (len(pcaps), converted, len(MODES) + 1))
t.finish("pcapng")
