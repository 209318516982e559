#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ICMP and ICMPv6 over Ethernet from tests/gen/gen_icmp.py (echoes with and without a
timestamp in their data, answered and not, errors, neighbor solicitations and advertisements
with Ethernet link-layer options, bad checksums) and from scapy (tests/gen/gen_icmp_scapy.py:
errors of every kind quoting RoCEv2, UDP and TCP datagrams whole and cut short, redirects,
router advertisements, MLD), field by field against tshark 4.0:
  - every icmp.* and icmpv6.* field (rstest.ICMP_FIELDS), the Protocol and Info columns;
  - data.* (on the echoes, and the payload of a quoted datagram);
  - the datagram an error quotes: its IP, UDP, TCP and InfiniBand fields as more
    occurrences of the frame's (QUOTE_FIELDS), and frame.protocols;
  - resp_to and resptime run the streams stage whether -e, the filter or the summary line
    asks for them, and the summary line says "(request in N)" as tshark's does."""
import os
import shutil
import subprocess

import rstest as t

# A Debian 13 root with tshark 4.4 (scripts/test-wireshark.sh makes it), for -o compat:4.4.
TRIXIE = "/var/cache/roceshark/ws-trixie"

out = os.path.join(t.tempdir(), "icmp.pcap")
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_icmp.py"), out])
out2 = os.path.join(t.tempdir(), "icmp_scapy.pcap")
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_icmp_scapy.py"), out2])

# The header fields a quoted datagram repeats, and its udp.stream or tcp.stream; not the
# protocols' nodes, whose text differs everywhere, nor tcp.window_size_scalefactor (tshark
# 4.0 shows -1 in an IPv6 quote alone). ip.version on IPv4 frames alone: tshark also shows
# it in IPv6 headers, where roceshark does not.
SKIP = {"tcp.window_size_scalefactor", "ip.version"}
QUOTE_FIELDS = [line.split("\t")[0] for line in t.run([t.ROCESHARK, "fields"]).stdout.splitlines()
                if line.split("\t")[0].split(".")[0] in ("ip", "ipv6", "udp", "tcp")
                and "\tFT_PROTOCOL" not in line and line.split("\t")[0] not in SKIP]
QUOTE_FIELDS = list(dict.fromkeys(QUOTE_FIELDS)) + [
    "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
    "infiniband.invariant.crc", "frame.protocols"]

fields = t.ICMP_FIELDS + ["frame.len", "_ws.col.Protocol", "_ws.col.Info"]
total = shown = qtotal = dtotal = 0
for path in (out, out2):
    name = os.path.basename(path)
    bad, n = t.fields_diff(path, fields)
    t.check(bad == 0, "%s: %d of %d values differ from tshark" % (name, bad, n))
    total += n
    shown += sum(1 for row in t.tshark_fields(path, fields) for v in row if v != "")
    bad, n = t.fields_diff(path, QUOTE_FIELDS)
    t.check(bad == 0, "%s: %d of %d header values differ from tshark" % (name, bad, n))
    qtotal += sum(1 for row in t.tshark_fields(path, QUOTE_FIELDS) for v in row if v != "")
    bad, n = t.fields_diff(path, ["ip.version"], tshark_extra="-Y !ipv6",
                           roceshark_extra=["-Y", "!ipv6"])
    t.check(bad == 0, "%s: %d of %d ip.version values differ" % (name, bad, n))
    bad, n = t.fields_diff(path, t.DATA_FIELDS)
    t.check(bad == 0, "%s: %d of %d data values differ" % (name, bad, n))
    dtotal += n
t.check(shown > 550 and qtotal > 900 and dtotal > 30,
        "only %d, %d and %d values compared" % (shown, qtotal, dtotal))

# Cut by a snapshot length inside quotes, options and records: decoded as far as captured,
# as tshark does (which adds "[Packet size limited during capture]" to some Info columns).
cut = os.path.join(t.tempdir(), "icmp_cut.pcap")
t.run(["editcap", "-s", "82", out2, cut])
for what in (fields[:-1], QUOTE_FIELDS):
    bad, n = t.fields_diff(cut, what)
    t.check(bad == 0, "icmp_cut.pcap: %d of %d values differ from tshark" % (bad, n))
for fmt in (["-V"], ["-T", "json"]):
    t.run([t.ROCESHARK, "read", "-r", cut] + fmt)


def tshark44_rows(path, fields):
    """tshark 4.4's -T fields rows for path, run in the trixie root."""
    inside = "/tmp/roceshark-icmp-%d.pcap" % os.getpid()
    shutil.copy(path, TRIXIE + inside)
    try:
        cmd = ["chroot", TRIXIE, "tshark", "-n", "-r", inside, "-T", "fields"]
        out = subprocess.run(cmd + [a for f in fields for a in ("-e", f)], capture_output=True,
                             text=True, check=True).stdout
    finally:
        os.unlink(TRIXIE + inside)
    return [line.split("\t") for line in out.splitlines()]


# -o compat:4.4: an echo's timestamp as tshark 4.4 finds it (64-bit seconds and
# microseconds first, in ICMPv6 echoes too), and the data after it, against tshark 4.4.
if os.geteuid() == 0 and os.path.exists(TRIXIE + "/usr/bin/tshark"):
    stamps = t.ICMP_STAMP_FIELDS + t.ICMPV6_STAMP_FIELDS + t.DATA_FIELDS
    n44 = 0
    for path in (out, out2):
        want = tshark44_rows(path, stamps)
        got = t.fieldsdiff.roceshark_rows(path, stamps, ["-o", "compat:4.4"], t.ROCESHARK)
        bad, n = t.fieldsdiff.compare(want, got, stamps)
        t.check(len(want) == len(got) and bad == 0, "%s: %d of %d values differ from tshark "
                "4.4" % (os.path.basename(path), bad, n))
        n44 += sum(1 for row in want for v in row if v != "")
    t.check(n44 > 80, "only %d values compared with tshark 4.4" % n44)
    print("icmp: %d timestamp and data values match tshark 4.4 under -o compat:4.4" % n44)
else:
    print("skipped: -o compat:4.4 against tshark 4.4 (no %s, or not root)" % TRIXIE)

# The quoted datagram's values come after the frame's own, in -T fields as in tshark.
rows = t.roceshark_fields(out2, ["ip.src", "ip.addr", "udp.dstport"], ["-Y", "frame.number==1"])
t.check(rows == [["10.0.0.2,10.0.0.1", "10.0.0.2,10.0.0.1,10.0.0.1,10.0.0.2", "4791"]],
        "the quote's occurrences: %s" % rows)
rows = t.roceshark_fields(out2, ["frame.number"], ["-Y", "tcp.dstport == 80 && icmp"])
t.check(rows == [["3"], ["4"], ["6"], ["8"], ["10"]], "-Y on a quoted TCP port selects %s" % rows)

# The request a reply answers, by filter alone, and on the summary line.
rows = t.roceshark_fields(out, ["frame.number"], ["-Y", "icmp.resp_to == 3"])
t.check(rows == [["4"]], "-Y icmp.resp_to == 3 selects %s, want frame 4" % rows)
rows = t.roceshark_fields(out, ["frame.number"], ["-Y", "icmpv6.resptime > 0.3"])
t.check(rows == [["21"], ["24"]], "-Y icmpv6.resptime > 0.3 selects %s" % rows)
lines = t.run([t.ROCESHARK, "read", "-r", out]).stdout.splitlines()
t.check(lines[1].endswith("ttl=63 (request in 1)"), "the summary of frame 2: %r" % lines[1])
t.check("(request" not in lines[10], "an unanswered reply: %r" % lines[10])
print("icmp: %d values (%d of them not empty), %d values of quoted headers and %d data "
      "values match tshark" % (total, shown, qtotal, dtotal))
t.finish("icmp")
