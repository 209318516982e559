#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The pcapng reader (capture/source_pcapng.c) against the classic pcap reader and libpcap.

The generated captures of tests/gen/gen_roce.py (Ethernet, ERF, DLT_INFINIBAND, Linux cooked
v1 and v2, raw IP) and the sample are converted to pcapng by editcap (Wireshark's writer)
where it takes the link type, and by the writer below in big-endian byte order. Each must
decode exactly as the pcap it came from, in every output mode; through standard input
(libpcap) too. Then one pcapng holds four captures of different link types, one interface
each: every frame decodes with its own interface's link type. Resolutions and damaged blocks
are covered by tests/unit/test_source.c and tests/regress/."""
import gzip
import os
import shutil
import struct

import rstest as t


def to_pcapng(pcaps, path):
    """Writes the records of the (little-endian, microsecond) pcaps into one big-endian
    pcapng, an interface each, with a custom block between them to be skipped."""
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
        records.append(block(0x40000BAD, b"skip me"))
    open(path, "wb").write(b"".join(blocks + records))


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
        want = t.run([t.ROCESHARK, "read", "-r", pcap] + mode).stdout
        got = t.run([t.ROCESHARK, "read", "-r", ng] + mode).stdout
        t.check(got == want, "%s as pcapng: %s output differs" % (name, " ".join(mode) or "text"))
    piped = t.run([t.ROCESHARK, "read", "-r", "-", "-V"], input=open(ng, "rb").read()).stdout
    t.check(piped.decode() == t.run([t.ROCESHARK, "read", "-r", pcap, "-V"]).stdout,
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
FIELDS = ["infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
          "roceshark.icrc.status", "ip.src", "frame.time_epoch", "frame.len"]
parts = [p for p in pcaps if os.path.basename(p) in ("ether.pcap", "ib_erf.pcap",
                                                      "ib_dlt247.pcap", "sll2.pcap")]
t.check(len(parts) == 4, "expected four link types among the generated captures")
merged = os.path.join(out, "merged.pcapng")
to_pcapng(parts, merged)
want = sum((t.roceshark_fields(p, FIELDS) for p in parts), [])
t.check(t.roceshark_fields(merged, FIELDS) == want,
        "a pcapng of four link types does not decode as its four parts")
print("%d captures as pcapng (%d by editcap), %d output modes each"
      % (len(pcaps), converted, len(MODES) + 1))
t.finish("pcapng")
