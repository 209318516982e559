#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""IB management datagrams against tshark 4.0: every MAD field roceshark registers (the
common header, RMPP, SMP, SA, PerfMgt and ClassPortInfo tables of dissectors/ib/), read
with -T fields from

  1. the real captures that hold MADs (SMInfo over directed route and SA PathRecords in
     the srinivaskoritala one, CM in the others), and
  2. MADs of every decoded attribute built by `roceshark inject` through the same tables
     (native IB; the rping capture has MADs over RoCEv2; the payload counts 0, 1, 2, ...
     so that every field is non-zero somewhere and a byte read from the wrong place
     shows),

and compared value by value, with the IPoIB header and frame.protocols; the Info column names each SMP, SA and PerfMgt MAD as tshark
does. Two differences are on purpose (docs/wireshark-differences.md): Wireshark reads the
directed-route D bit from one byte under a 16-bit mask, so it always shows 0, and counts
it in the status; we follow IBTA (D is the status's top bit, the status the 15 below)."""
import os

import rstest as t

PREFIXES = ("infiniband.mad", "infiniband.rmpp", "infiniband.smp", "infiniband.sa.",
            "infiniband.sminfo", "infiniband.nodeinfo", "infiniband.switchinfo",
            "infiniband.portinfo", "infiniband.pathrecord", "infiniband.mcmemberrecord",
            "infiniband.classportinfo", "infiniband.portcounters")
FIELDS = [line.split()[0] for line in t.run([t.ROCESHARK, "fields"]).stdout.splitlines()
          if line.split()[0].startswith(PREFIXES)]
t.check(len(FIELDS) > 200, "MAD fields registered: %d" % len(FIELDS))
D, STATUS = "infiniband.smpdirected.d", "infiniband.smpdirected.smpstatus"
# IPoIB (the srinivaskoritala capture's IP and ARP over UD and RC): its header and what
# the frame is made of. (infiniband.payload is the whole payload; tshark's leaves six bytes
# off the end, the length of the ICRC and VCRC, which it has already left out.)
IPOIB = ["frame.protocols", "infiniband.rwh.etype", "ip.src", "ipv6.dst", "udp.dstport"]

# One MAD per line, on top of the command line's UD SEND to QP 0 (QP 1 for the GSI classes).
SPECS = """\
infiniband.mad.mgmtclass=0x01 infiniband.mad.method=0x81 infiniband.mad.attributeid=0x0011
infiniband.mad.mgmtclass=0x01 infiniband.mad.method=0x81 infiniband.mad.attributeid=0x0012
infiniband.mad.mgmtclass=0x01 infiniband.mad.method=0x81 infiniband.mad.attributeid=0x0014
infiniband.mad.mgmtclass=0x01 infiniband.mad.method=0x02 infiniband.mad.attributeid=0x0015
infiniband.mad.mgmtclass=0x01 infiniband.mad.method=0x81 infiniband.mad.attributeid=0x0020
infiniband.mad.mgmtclass=0x01 infiniband.mad.method=0x05 infiniband.mad.attributeid=0x0016
infiniband.mad.mgmtclass=0x81 infiniband.mad.method=0x01 infiniband.mad.attributeid=0x0011
infiniband.mad.mgmtclass=0x81 infiniband.mad.method=0x81 infiniband.mad.attributeid=0x0015 \
infiniband.smpdirected.d=1
infiniband.mad.mgmtclass=0x81 infiniband.mad.method=0x81 infiniband.mad.attributeid=0x0012
infiniband.mad.mgmtclass=0x81 infiniband.mad.method=0x81 infiniband.mad.attributeid=0x0020 \
infiniband.smpdirected.d=1
infiniband.mad.mgmtclass=0x81 infiniband.mad.method=0x01 infiniband.mad.attributeid=0x0010
bth(destqp=1) infiniband.mad.mgmtclass=0x03 infiniband.mad.method=0x81 \
infiniband.mad.attributeid=0x0035 infiniband.rmpp.rmpptype=0
bth(destqp=1) infiniband.mad.mgmtclass=0x03 infiniband.mad.method=0x81 \
infiniband.mad.attributeid=0x0038 infiniband.rmpp.rmpptype=0
bth(destqp=1) infiniband.mad.mgmtclass=0x03 infiniband.mad.method=0x81 \
infiniband.mad.attributeid=0x0001 infiniband.rmpp.rmpptype=0
bth(destqp=1) infiniband.mad.mgmtclass=0x03 infiniband.mad.method=0x92 \
infiniband.mad.attributeid=0x0035 infiniband.rmpp.rmpptype=1
bth(destqp=1) infiniband.mad.mgmtclass=0x03 infiniband.mad.method=0x12 \
infiniband.mad.attributeid=0x0038 infiniband.rmpp.rmpptype=2
bth(destqp=1) infiniband.mad.mgmtclass=0x03 infiniband.mad.method=0x92 \
infiniband.mad.attributeid=0x0035 infiniband.rmpp.rmpptype=3
bth(destqp=1) infiniband.mad.mgmtclass=0x03 infiniband.mad.method=0x92 \
infiniband.mad.attributeid=0x0035 infiniband.rmpp.rmpptype=4
bth(destqp=1) infiniband.mad.mgmtclass=0x04 infiniband.mad.method=0x81 \
infiniband.mad.attributeid=0x0001
bth(destqp=1) infiniband.mad.mgmtclass=0x04 infiniband.mad.method=0x81 \
infiniband.mad.attributeid=0x0012
bth(destqp=1) infiniband.mad.mgmtclass=0x04 infiniband.mad.method=0x81 \
infiniband.mad.attributeid=0x001d
bth(destqp=1) infiniband.mad.mgmtclass=0x04 infiniband.mad.method=0x01 \
infiniband.mad.attributeid=0x0010
"""
BASES = {
    "ib": "lrh(dlid=1, slid=2) / bth(opcode=100, destqp=0) / "
          "deth(q_key=0x80010000, srcqp=1) / payload(len=256)",
}


def generated():
    d = t.tempdir()
    spec = os.path.join(d, "mads.spec")
    with open(spec, "w") as f:
        f.write(SPECS.replace("\\\n", ""))
    out = []
    for name, base in BASES.items():
        path = os.path.join(d, "mads-%s.pcap" % name)
        t.run([t.ROCESHARK, "inject", "-w", path, "-F", spec, base])
        out.append(path)
    return out


# SMPs and SA in the first, the CM in the second (its fields have tests of their own).
MAD_CAPTURES = ("srinivaskoritala", "linlinw5_rdma_ib_tutorial__pcap_rping")
captures = [p for p in t.real_captures() if os.path.basename(p).startswith(MAD_CAPTURES)]
SANITIZED = bool(t.BUILT.get("sanitize"))
if SANITIZED:       # several times slower: one real capture and what we build
    captures = captures[-1:]
captures += generated()

values = on_purpose = 0
for path in captures:
    name = os.path.basename(path)
    cols = FIELDS + IPOIB + ["_ws.col.Info"]
    want = t.tshark_fields(path, cols)
    got = t.roceshark_fields(path, cols)
    if not t.check(len(want) == len(got), "%s: tshark %d frames, roceshark %d"
                   % (name, len(want), len(got))):
        continue
    for n, (w, g) in enumerate(zip(want, got), 1):
        row_w = dict(zip(cols, w + [""] * (len(cols) - len(w))))
        row_g = dict(zip(cols, g + [""] * (len(cols) - len(g))))
        if row_g[D]:
            # IBTA's D, Wireshark's always 0; its status has D on top of ours.
            d = int(row_g[D], 16)
            t.check(row_w[D] == "0x0000000000000000" and d in (0, 1),
                    "%s frame %d: D tshark %s roceshark %s" % (name, n, row_w[D], row_g[D]))
            t.check(int(row_w[STATUS], 16) == int(row_g[STATUS], 16) | d << 15,
                    "%s frame %d: status tshark %s roceshark %s"
                    % (name, n, row_w[STATUS], row_g[STATUS]))
            on_purpose += d
        for f in FIELDS + IPOIB:
            if f in (D, STATUS):
                continue
            t.check(row_w[f] == row_g[f], "%s frame %d %s: tshark %r roceshark %r"
                    % (name, n, f, row_w[f][:80], row_g[f][:80]))
            values += len(row_w[f].split(",")) if row_w[f] else 0

        # The Info column: tshark's name of each SMP, SA and PerfMgt MAD is in ours.
        if row_w["infiniband.mad.mgmtclass"] in ("0x01", "0x81", "0x03", "0x04"):
            info_w, info_g = row_w["_ws.col.Info"], row_g["_ws.col.Info"]
            named = info_w.split("QP=0x00000")[-1][1:].strip()
            t.check(named != "" and named in info_g, "%s frame %d: Info tshark %r roceshark %r"
                    % (name, n, info_w, info_g))

print("%d MAD and IPoIB values compared with tshark in %d captures (%d generated); the D bit of %d "
      "directed-route MADs differs on purpose" % (values, len(captures), len(BASES),
                                                   on_purpose))
t.check(values > 1000, "values compared: %d" % values)
t.finish("mad")
