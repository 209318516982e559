#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`read -T psml` against `tshark -T psml` on every real capture of the repository and the
sample: the same XML layout (declaration, <psml>, the <structure> of the seven column names,
a <packet> of seven <section>s per frame, in the same frames), and the same No., Time,
Source, Destination, Protocol and Length in every RDMA frame. Info says more than
Wireshark's on purpose, as in the summary line. Frames whose Protocol tshark takes from a
dissector we do not have (TLS and HTTP over TCP; what IPoIB carries) are counted apart, by
the protocol tshark names.
TCP frames' Info is tshark's (ports, [FLAGS], Seq, Ack, Win, Urg, Len, the MSS, SACK_PERM,
TSval, TSecr, WS options and SACK edges, and an HTTP message's segments: "[TCP segment of a
reassembled PDU]", its first the request line), without tshark's "[TCP ...]" analysis; the
segments of a TLS record over several, which read does not desegment, are counted apart.
Also: the time column follows -t, -Y selects, -x is refused (escaping: unit.test_print)."""
import glob
import os
import re
import xml.etree.ElementTree as ET

import rstest as t


def parse(text, what):
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        t.check(False, "%s: not XML: %s" % (what, e))
        return None, []
    head = [s.text for s in root.find("structure")]
    return head, [[s.text or "" for s in p] for p in root.findall("packet")]


OURS = ("RoCE", "RRoCE", "InfiniBand")     # what tshark's Protocol must match


SEGMENT = "[TCP segment of a reassembled PDU]"


def tcp_info_as_ours(info):
    """tshark's TCP Info without its analysis notes."""
    return re.sub(r"^(\[TCP [^]]*\] )+", "", info)


captures = sorted(glob.glob(os.path.join(t.REAL_CAPTURES, "*.pcap*")))
captures.append(os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap"))
# Under the sanitizers (several times slower) every third: the normal run compares them all,
# and CI has 20 minutes.
SANITIZED = bool(t.BUILT.get("sanitize"))
if SANITIZED:
    captures = captures[::3]
compared = tcp_compared = 0
apart = {}
for path in captures:
    name = os.path.basename(path)
    ours = t.run([t.ROCESHARK, "read", "-r", path, "-T", "psml"]).stdout
    theirs = t.run(["tshark", "-n", "-r", path, "-T", "psml"]).stdout
    t.check(ours.startswith('<?xml version="1.0" encoding="utf-8"?>\n<psml version="0" '
                            'creator="roceshark/'), "%s: the declaration and <psml>" % name)
    t.check(ours.endswith("</packet>\n\n</psml>\n"), "%s: the end: %r" % (name, ours[-40:]))
    h1, a = parse(ours, name)
    h2, b = parse(theirs, "tshark " + name)
    t.check(h1 == h2 == ["No.", "Time", "Source", "Destination", "Protocol", "Length", "Info"],
            "%s: the columns: %s, tshark %s" % (name, h1, h2))
    if not t.check(len(a) == len(b), "%s: %d packets, tshark %d" % (name, len(a), len(b))):
        continue
    for x, y in zip(a, b):
        t.check(len(x) == 7, "%s frame %s: %d sections" % (name, x[0], len(x)))
        want = tcp_info_as_ours(y[6])
        if x[4] == y[4] == "TCP" and x[6] != want and want in (SEGMENT, x[6] + " " + SEGMENT):
            apart["TCP segment of a TLS record"] = \
                apart.get("TCP segment of a TLS record", 0) + 1
        elif x[4] == y[4] == "TCP":
            if t.check(x[6] == want, "%s frame %s: Info %r, tshark %r"
                       % (name, x[0], x[6], y[6])):
                tcp_compared += 1
        if x[4] != y[4] and y[4] not in OURS:
            apart[y[4]] = apart.get(y[4], 0) + 1    # TLS, HTTP; what IPoIB carries
            continue
        # tshark names the IB CM MADs over RoCEv2 of two captures by LID 65535 (the
        # permissive LID of a MAD's LRH it makes up): we keep the IP addresses.
        if x[:6] != y[:6] and y[2].startswith("LID: ") and x[2][0].isdigit():
            apart["CM MAD source"] = apart.get("CM MAD source", 0) + 1
            continue
        t.check(x[:6] == y[:6], "%s frame %s: %s, tshark %s" % (name, x[0], x[:6], y[:6]))
        compared += 1
t.check(compared > (300 if SANITIZED else 1000), "only %d frames compared" % compared)
t.check(tcp_compared > (50 if SANITIZED else 200), "only %d TCP frames compared" % tcp_compared)
print("psml: %d frames agree with tshark in their first six columns, %d TCP frames in Info "
      "(ports, flags, Seq, Ack, Win, Len, options); apart: %s" % (compared, tcp_compared, apart))

sample = os.path.join(t.SOURCE_DIR, "samples", "rdma_demo.pcap")
# -t follows tshark's: delta times.
ours = parse(t.run([t.ROCESHARK, "read", "-r", sample, "-T", "psml", "-t", "d"]).stdout, "-t d")
theirs = parse(t.run(["tshark", "-n", "-r", sample, "-T", "psml", "-t", "d"]).stdout, "tshark")
t.check([r[1] for r in ours[1]] == [r[1] for r in theirs[1]], "-t d: the Time sections")
# -Y selects the packets; the numbers are the frames'.
p = t.run([t.ROCESHARK, "read", "-r", sample, "-T", "psml", "-Y", "infiniband.aeth"]).stdout
q = t.run(["tshark", "-n", "-r", sample, "-T", "psml", "-Y", "infiniband.aeth"]).stdout
t.check([r[0] for r in parse(p, "-Y")[1]] == [r[0] for r in parse(q, "tshark -Y")[1]],
        "-Y infiniband.aeth: the same frames")
p = t.run([t.ROCESHARK, "read", "-r", sample, "-T", "psml", "-x"], check_rc=False)
t.check(p.returncode == 1 and p.stderr == "roceshark: read: -x goes with the text output, -V, "
        "-T json or -T ek\n", "-T psml -x: exit %d %r" % (p.returncode, p.stderr))
t.finish("psml")
