#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""IB management datagrams against tshark 4.0: every MAD field roceshark registers (the
common header, RMPP, SMP, SA, PerfMgt, ClassPortInfo and CM tables of dissectors/ib/), read
with -T fields from

  1. the real captures that hold MADs (SMInfo over directed route and SA PathRecords in
     the srinivaskoritala one, CM in it and the others), and
  2. MADs of every decoded attribute and of every CM attribute built by `roceshark inject`
     through the same tables (native IB, RoCEv2 over IPv4 and over IPv6; the payload
     counts 0, 1, 2, ... so that every field is non-zero somewhere and a byte read from
     the wrong place shows; REQs and SIDR_REQs to an IP CM service ID of IP version 4 and
     6 and to another; NodeDescription, the linear, random and multicast forwarding
     tables, Get and GetResp, LID routed and directed; a Trap of every trap number whose
     details tshark decodes; the SA's records that embed SMP attributes, Get, GetResp and
     GetTableResp, and Notices the SA reports),

and compared value by value, with the IPoIB header and frame.protocols; the Info column
names each SMP, SA, PerfMgt and CM MAD as tshark does. Filters on CM fields select the
frames tshark's select. The CM messages tshark 4.0 leaves undecoded (MRA, LAP, APR,
SIDR_REQ, SIDR_REP), and the IP CM private data of a SIDR_REQ, are checked against IBTA's
layout (ibta_cm.py) of the message bytes tshark gives (infiniband.mad.data). Three differences are on purpose (README.md, "Where
roceshark and Wireshark differ"): Wireshark reads the directed-route D bit from one byte
under a 16-bit mask, so it always shows 0, and counts it in the status; we follow IBTA (D
is the status's top bit, the status the 15 below). It reads the 32-bit word of a CM REQ
path's flow label, reserved bits and packet rate from three bytes and one; we read the
word, as IBTA lays it out. Trap 259's details, which tshark stops at (it reads DataValid as an
IPv6 address), and the MulticastForwardingTable's last 16 port masks, which it leaves out,
are checked against IBTA's layout (ibta_smp.py). In the generated captures every item of
the SMP attributes and SA records sits where tshark's PDML puts it (position, size, order)."""
import os
import re

import ibta_cm
import ibta_smp
import rstest as t

PREFIXES = ("infiniband.mad", "infiniband.rmpp", "infiniband.smp", "infiniband.sa.",
            "infiniband.sminfo", "infiniband.nodeinfo", "infiniband.switchinfo",
            "infiniband.portinfo", "infiniband.pathrecord", "infiniband.mcmemberrecord",
            "infiniband.classportinfo", "infiniband.portcounters", "infiniband.cm",
            "infiniband.nodedescription", "infiniband.linearforwardingtable",
            "infiniband.randomforwardingtable", "infiniband.multicastforwardingtable",
            "infiniband.notice", "infiniband.trap", "infiniband.p_keytable",
            "infiniband.sltovlmappingtable", "infiniband.vlarbitrationtable",
            "infiniband.linkspeedwidthpairstable", "infiniband.vendordiag", "infiniband.ledinfo")
FIELDS = [line.split()[0] for line in t.run([t.ROCESHARK, "fields"]).stdout.splitlines()
          if line.split()[0].startswith(PREFIXES)]
t.check(len(FIELDS) > 300, "MAD fields registered: %d" % len(FIELDS))
OURS = [line.split()[0] for line in t.run([t.ROCESHARK, "fields"]).stdout.splitlines()
        if line.startswith("roceshark.cm.")]
t.check(sorted(OURS) == ibta_cm.FIELDS,
        "roceshark.cm fields: %s, checked %s" % (OURS, ibta_cm.FIELDS))
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
# NodeDescription, the P_Key, SL-to-VL, VL arbitration, forwarding and link speed/width
# tables, VendorDiag, LedInfo and the Notice: Get and GetResp over both routes, a Trap and a
# TrapRepress of every trap whose details tshark decodes (and a vendor's).
SMP_ATTRS = ("0x0010", "0x0016", "0x0017", "0x0018", "0x0019", "0x001a", "0x001b", "0x001c",
             "0x0030", "0x0031")
for cls in ("0x01", "0x81"):
    for attr in SMP_ATTRS:
        for method in ("0x01", "0x81"):
            SPECS += ("infiniband.mad.mgmtclass=%s infiniband.mad.method=%s "
                      "infiniband.mad.attributeid=%s\n" % (cls, method, attr))
TRAPS = [64, 65, 66, 67, 68, 69, 128, 129, 130, 131, 144, 145, 256, 257, 258, 259, 300]
NOTICE = ("infiniband.mad.mgmtclass=0x01 infiniband.mad.method=%s infiniband.mad.attributeid="
          "0x0002 infiniband.notice.isgeneric=1 infiniband.notice.trapnumberdeviceid=%d\n")
SPECS += "".join(NOTICE % ("0x05", n) for n in TRAPS) + NOTICE % ("0x07", 144)
# A NodeDescription and a NodeRecord whose text has control characters (not \v, which
# splitlines() takes for a line break), DEL, bytes above 0x7f (one of them UTF-8) and a NUL
# with more text after it: how -T fields escapes them.
TEXT = b"sw-1\r\x01\x0c\x07\x08\x1b\\\"\tHCA\n\x7f\x80\xc3\xa9\x00after"
for cls, attr, at in ((0x01, 0x0010, 64), (0x03, 0x0011, 100)):
    mad = bytearray(256)
    mad[0:4], mad[16:18] = bytes([1, cls, 2, 0x81]), attr.to_bytes(2, "big")
    mad[at:at + len(TEXT)] = TEXT
    SPECS += "%spayload=%s\n" % ("bth(destqp=1) " if cls == 0x03 else "", mad.hex())
# The SA's records of SMP attributes (with the attribute where an SMP has it), Get and
# GetResp, a GetTableResp in RMPP DATA, and Notices the SA reports.
SA = "bth(destqp=1) infiniband.mad.mgmtclass=0x03 infiniband.rmpp.rmpptype=%d "
SA_RECORDS = ("0x0011", "0x0012", "0x0013", "0x0014", "0x0015", "0x0016", "0x0017", "0x0018",
              "0x0019", "0x0030", "0x0033", "0x0036")
for attr in SA_RECORDS:
    for method in ("0x01", "0x81"):
        SPECS += SA % 0 + "infiniband.mad.method=%s infiniband.mad.attributeid=%s\n" % (method,
                                                                                    attr)
    SPECS += SA % 1 + "infiniband.mad.method=0x92 infiniband.mad.attributeid=%s\n" % attr
SPECS += "".join(SA % 0 + "infiniband.mad.method=0x06 infiniband.mad.attributeid=0x0002 "
                 "infiniband.notice.isgeneric=1 infiniband.notice.trapnumberdeviceid=%d\n" % n
                 for n in (64, 144, 256, 259))
# One CM MAD of every attribute (and ClassPortInfo), to QP 1.
CM = ("bth(destqp=1) infiniband.mad.mgmtclass=0x07 infiniband.mad.classversion=2 "
      "infiniband.mad.method=0x03 infiniband.mad.attributeid=")
SPECS += "".join(CM + line + "\n" for line in [
    "0x0010", "0x0010 infiniband.cm.req.serviceid=0x0000000001064853 infiniband.cm.req.ip_cm.ipv=4",
    "0x0010 infiniband.cm.req.serviceid=0x0000000001114853 infiniband.cm.req.ip_cm.ipv=6",
    "0x0011", "0x0012", "0x0013", "0x0014", "0x0015", "0x0016", "0x0017",
    "0x0017 roceshark.cm.sidr_req.serviceid=0x0000000001064853 roceshark.cm.sidr_req.ip_cm.ipv=4",
    "0x0017 roceshark.cm.sidr_req.serviceid=0x0000000001114853 roceshark.cm.sidr_req.ip_cm.ipv=6",
    "0x0018", "0x0019",
    "0x001a roceshark.cm.apr.status=13", "0x0001"])
UD = "bth(opcode=100, destqp=0) / deth(q_key=0x80010000, srcqp=1) / payload(len=256)"
# Native IB in one capture; RoCEv2 over IPv4, then over IPv6, in another (one tshark run).
BASES = {
    "ib": ["lrh(dlid=1, slid=2) / " + UD],
    "roce": ["eth / ip(src=10.0.0.1, dst=10.0.0.2) / udp / " + UD,
             "eth / ipv6(src=fd00::1, dst=fd00::2) / udp / " + UD],
}


def generated():
    d = t.tempdir()
    spec = os.path.join(d, "mads.spec")
    with open(spec, "w") as f:
        f.write(SPECS.replace("\\\n", ""))
    out = []
    for name, bases in BASES.items():
        path = os.path.join(d, "mads-%s.pcap" % name)
        records = b""
        for n, base in enumerate(bases):
            part = os.path.join(d, "mads-%s-%d.pcap" % (name, n))
            t.run([t.ROCESHARK, "inject", "-w", part, "-F", spec, base])
            whole = open(part, "rb").read()
            header, records = whole[:24], records + whole[24:]    # one link type
        open(path, "wb").write(header + records)
        out.append(path)
    return out


# SMPs, SA and CM in the first, the CM over RoCEv2 in the others (montybeatnik's extra
# captures hold the same messages).
MAD_CAPTURES = ("srinivaskoritala", "linlinw5_rdma_ib_tutorial__pcap_rping",
                "linlinw5_rdma_ib_tutorial__pcap_rdma_cm")
captures = [p for p in t.real_captures() if os.path.basename(p).startswith(MAD_CAPTURES)]
SANITIZED = bool(t.BUILT.get("sanitize"))
if SANITIZED:       # several times slower: one real capture and what we build
    captures = captures[-1:]
gen = generated()
captures += gen

values = cm_values = on_purpose = cm_on_purpose = ours = sidr_ip_cm = 0
smp_on_purpose = new_values = 0
# The SMP attributes above and the Notice, and the SA's records of SMP attributes.
NEW_ATTRS = {(c, int(a, 16)) for c in (0x01, 0x81) for a in SMP_ATTRS + ("0x0002",)}
NEW_ATTRS |= {(0x03, int(a, 16)) for a in SA_RECORDS + ("0x0002",)}


def count(v):
    """How many values -T fields printed in v (its occurrences, comma-separated)."""
    return len(v.split(",")) if v else 0


for path in captures:
    name = os.path.basename(path)
    cols = FIELDS + IPOIB + ["_ws.col.Info"]
    # tshark's SDP heuristic claims the counting private data of the generated CM MADs
    # after some REQs, which no SDP peer sent.
    want = t.tshark_fields(path, cols + ["infiniband.mad.data"],
                           "--disable-protocol infiniband_sdp" if path in gen else "")
    got = t.roceshark_fields(path, cols + OURS)
    if not t.check(len(want) == len(got), "%s: tshark %d frames, roceshark %d"
                   % (name, len(want), len(got))):
        continue
    for n, (w, g) in enumerate(zip(want, got), 1):
        row_w = dict(zip(cols + ["infiniband.mad.data"], w + [""] * (len(cols) + 1 - len(w))))
        row_g = dict(zip(cols + OURS, g + [""] * (len(cols) + len(OURS) - len(g))))
        if row_g[D]:
            # IBTA's D, Wireshark's always 0; its status has D on top of ours.
            d = int(row_g[D], 16)
            t.check(row_w[D] == "0x0000000000000000" and d in (0, 1),
                    "%s frame %d: D tshark %s roceshark %s" % (name, n, row_w[D], row_g[D]))
            t.check(int(row_w[STATUS], 16) == int(row_g[STATUS], 16) | d << 15,
                    "%s frame %d: status tshark %s roceshark %s"
                    % (name, n, row_w[STATUS], row_g[STATUS]))
            on_purpose += d
        mgmtclass = int(row_w["infiniband.mad.mgmtclass"] or "0", 16)
        attrid = int(row_w["infiniband.mad.attributeid"] or "0", 16)
        data = bytes.fromhex(row_w["infiniband.mad.data"])
        trap_259 = ibta_smp.trap_259(mgmtclass, attrid, data) if data else False
        for f in FIELDS + IPOIB:
            if f in (D, STATUS):
                continue
            want_v = ibta_smp.expected(mgmtclass, attrid, data, f) if data else None
            if f == "frame.protocols" and trap_259:
                # tshark's trap 259 stops malformed where its details start.
                want_v = row_w[f].replace(":_ws.malformed", "")
            if want_v is not None:
                # Trap 259's details and the MulticastForwardingTable's 32 port masks: IBTA's,
                # where tshark stops or reads half (what it does read must agree).
                t.check(row_g[f] == want_v and (f == "frame.protocols" or
                                                want_v.startswith(row_w[f])),
                        "%s frame %d %s: IBTA %r roceshark %r tshark %r"
                        % (name, n, f, want_v[:80], row_g[f][:80], row_w[f][:80]))
                smp_on_purpose += count(want_v) - count(row_w[f])
                values += count(row_w[f])
                new_values += count(row_w[f])
                continue
            if ibta_cm.req_path_field(f):
                # A REQ path's flow label, reserved bits and packet rate: IBTA's, where
                # tshark reads too few bytes.
                want_v = (ibta_cm.req_path(bytes.fromhex(row_w["infiniband.mad.data"]), f)
                          if row_w[f] else "")
                t.check(row_g[f] == want_v, "%s frame %d %s: IBTA %r roceshark %r"
                        % (name, n, f, want_v, row_g[f]))
                cm_on_purpose += want_v != row_w[f]
                continue
            t.check(row_w[f] == row_g[f], "%s frame %d %s: tshark %r roceshark %r"
                    % (name, n, f, row_w[f][:80], row_g[f][:80]))
            values += count(row_w[f])
            if (mgmtclass, attrid) in NEW_ATTRS:
                new_values += count(row_w[f])
            if f.startswith("infiniband.cm"):
                cm_values += len(row_w[f].split(",")) if row_w[f] else 0

        # MRA, LAP, APR, SIDR: IBTA's layout of tshark's bytes.
        if row_w["infiniband.mad.mgmtclass"] == "0x07":
            attr = int(row_w["infiniband.mad.attributeid"], 16)
            data = bytes.fromhex(row_w["infiniband.mad.data"])
            for f in OURS:
                want_v = ibta_cm.expected(attr, data, f)
                t.check(row_g[f] == want_v, "%s frame %d %s: IBTA %r roceshark %r"
                        % (name, n, f, want_v[:80], row_g[f][:80]))
                ours += 1 if want_v else 0
                sidr_ip_cm += 1 if want_v and f.startswith("roceshark.cm.sidr_req.ip_cm") else 0

        # The Info column: tshark's name of each SMP, SA, PerfMgt and CM MAD is in ours
        # (less what its SDP heuristic guesses from a CM message's private data).
        if row_w["infiniband.mad.mgmtclass"] in ("0x01", "0x81", "0x03", "0x04", "0x07"):
            info_w, info_g = row_w["_ws.col.Info"].split("(SDP ")[0], row_g["_ws.col.Info"]
            if trap_259:
                info_w = info_w.replace("[Malformed Packet]", "")
            named = info_w.split("QP=0x00000")[-1][1:].strip()
            if "CM: " in info_w:
                named = info_w[info_w.index("CM: "):]
            t.check(named != "" and named in info_g, "%s frame %d: Info tshark %r roceshark %r"
                    % (name, n, info_w, info_g))

# Filters on CM fields select the frames tshark's select.
FILTERS = {
    "mads-roce": [
        "infiniband.cm.rej.reason == 0x2223 || infiniband.cm.req.ip_cm.ipv == 6 || "
        "(infiniband.cm.req.private && infiniband.cm.req.prim_localgid_ipv4) || "
        "infiniband.cm.rep.srq == 1 || infiniband.cm.req.remoteqpneecn == 0x202122 || "
        "infiniband.cm.drsp.private"],
    "pcap_rdma_cm": [
        "infiniband.cm.req.ip_cm.sport == 0xccf7 || infiniband.cm.rep.localqpn || "
        "infiniband.cm.drsp.private"],
}
# The tree lines Wireshark writes itself for a CM message (as tshark -V shows frame 1).
rdma_cm = [p for p in captures if "pcap_rdma_cm" in p]
if rdma_cm:
    tree = t.run([t.ROCESHARK, "read", "-r", rdma_cm[0], "-V", "-c", "1"]).stdout.splitlines()
    for line in ("    CM ConnectRequest", "        IP CM ServiceID", "        IP CM Private Data"):
        t.check(line in tree, "rdma_cm frame 1: no tree line %r" % line)

# Where each item of the SMP attributes and SA records lies (PDML's pos and size), as
# tshark's: the attribute's fields move with the MAD (64 in an SMP, after the record ID in
# the SA). Trap details and the multicast port masks differ on purpose (above).
PLACED = ("infiniband.nodeinfo", "infiniband.switchinfo", "infiniband.portinfo",
          "infiniband.sminfo", "infiniband.nodedescription", "infiniband.p_keytable",
          "infiniband.sltovlmappingtable", "infiniband.vlarbitrationtable",
          "infiniband.linearforwardingtable", "infiniband.randomforwardingtable",
          "infiniband.linkspeedwidthpairstable", "infiniband.vendordiag", "infiniband.ledinfo",
          "infiniband.notice.", "infiniband.sa.")
# The Notice's details (trap 259's differ) and the SA's item field (whose three items, the
# MAD, its data and the record, the tree shows one after the other).
UNPLACED = ("infiniband.notice.datadetails", "infiniband.sa.drdlid")
ITEM = re.compile(r'<field name="(infiniband\.[^"]+)"[^>]* size="(\d+)" pos="(\d+)"')


def placed_items(text):
    """(name, size, pos) of each PLACED item of a PDML document, in order."""
    return [m.groups() for m in ITEM.finditer(text)
            if m.group(1).startswith(PLACED) and m.group(1) not in UNPLACED]


placed = 0
for path in gen:
    want = placed_items(t.run(["tshark", "-r", path, "-T", "pdml"]).stdout)
    got = placed_items(t.run([t.ROCESHARK, "read", "-r", path, "-T", "pdml"]).stdout)
    t.check(want == got, "%s: PDML items of SMP attributes: tshark %d, roceshark %d, first "
            "apart %s" % (os.path.basename(path), len(want), len(got),
                          next(((w, g) for w, g in zip(want, got) if w != g), None)))
    placed += len(want)
print("%d items of SMP attributes and SA records placed as tshark's PDML places them" % placed)

selected = n_filters = 0
for path in captures:
    for flt in [f for k, v in FILTERS.items() if k in os.path.basename(path) for f in v]:
        want = [r[0] for r in t.tshark_fields(path, ["frame.number"], "-Y '%s'" % flt)]
        got = [r[0] for r in t.roceshark_fields(path, ["frame.number"], ["-Y", flt])]
        t.check(want == got and want, "%s -Y %r: tshark %s roceshark %s"
                % (os.path.basename(path), flt, want, got))
        selected += len(want)
        n_filters += 1

print("%d MAD and IPoIB values compared with tshark in %d captures (%d generated); the D bit of %d "
      "directed-route MADs differ on purpose; %d of the values are CM fields, and %d REQ path "
      "flow labels, packet rates and reserved bits are IBTA's where tshark's differ; %d "
      "MRA/LAP/APR/SIDR values checked against IBTA's layout (%d of SIDR_REQ IP CM private "
      "data); %d frames selected by %d CM filters as tshark's"
      % (values, len(captures), len(gen), on_purpose, cm_values, cm_on_purpose, ours,
         sidr_ip_cm, selected, n_filters))
print("%d of the values are in MADs of the SMP attributes NodeDescription, P_KeyTable, "
      "SLtoVLMappingTable, VLArbitrationTable, the forwarding tables, "
      "LinkSpeedWidthPairsTable, VendorDiag, LedInfo and Notice, and of the SA's records of "
      "SMP attributes; %d trap 259 details and MulticastForwardingTable port "
      "masks are IBTA's where tshark stops or reads half" % (new_values, smp_on_purpose))
# The SIDR_REQs to an IP CM service ID, of IP version 4 and 6, over each of the three
# bases: nine fields each (the header, four versions' nibbles, the port, two addresses of
# their version, the consumer's private data).
t.check(values > 1000 and cm_values > 500 and ours > 100 and sidr_ip_cm == 3 * 2 * 9 and
        new_values > 1000 and smp_on_purpose > 50,
        "values compared: %d, %d, %d, SIDR_REQ IP CM %d, %d, %d"
        % (values, cm_values, ours, sidr_ip_cm, new_values, smp_on_purpose))
t.finish("mad")
