#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`roceshark inject`, held to independent readers:
  - round trips: every opcode of every transport service (from the IBTA's header rules,
    written out here), in every encapsulation (RoCEv2 over IPv4 and IPv6, with no tag, one
    and two, RoCEv1 with and without a tag, native IB with and without a GRH), every field
    of every header set to a random value: `read -T fields` gives back each value, the ICRC
    (and VCRC) are good, no packet is malformed; tshark 4.0 reads every field of the
    contract as roceshark does, where tshark decodes the service (RC, UC, UD);
  - scapy.contrib.roce recomputes the ICRC of each RoCEv2/IPv4 packet and gets the same bytes;
  - the same packets sent with --udp over loopback and received by a raw socket carry good
    ICRCs; a spec file with repeat, pcapng output;
  - generators: the PSN wraps, rand with --seed repeats exactly, list cycles; pacing;
  - bad specs and options get one line with the file, line and column, and exit 1; an
    unwritable file exits 3; a source address that is not ours exits 4."""
import os
import pty
import random
import socket
import struct
import subprocess

import rstest as t
from scapy.contrib.roce import BTH
from scapy.layers.l2 import Ether
from scapy.utils import rdpcap

tmp = t.tempdir()
rnd = random.Random(7)

# --- The IBTA's header rules (Vol 1, 9.2 and table 38), independent of the code under test.
# The low five bits of an opcode say its operation; the high three its service.
OPS = {
    0x00: [], 0x01: [], 0x02: [], 0x03: ["immdt"], 0x04: [], 0x05: ["immdt"],
    0x06: ["reth"], 0x07: [], 0x08: [], 0x09: ["immdt"], 0x0A: ["reth"],
    0x0B: ["reth", "immdt"], 0x0C: ["reth"], 0x0D: ["aeth"], 0x0E: [], 0x0F: ["aeth"],
    0x10: ["aeth"], 0x11: ["aeth"], 0x12: ["aeth", "atomicacketh"], 0x13: ["atomiceth"],
    0x14: ["atomiceth"], 0x16: ["ieth"], 0x17: ["ieth"],
}
RESPONSES = {0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12}


def opcodes():
    """(opcode, headers, tshark decodes it right) for every defined opcode."""
    out = []
    for low, hdrs in OPS.items():
        out.append((low, hdrs, True))                                  # RC
        if low <= 0x0B:
            out.append((0x20 | low, hdrs, True))                       # UC
        if low <= 0x14:                                                # RD: RDETH, DETH
            out.append((0x40 | low, ["rdeth"] + ([] if low in RESPONSES else ["deth"]) + hdrs,
                        False))
        out.append((0xA0 | low, ([] if low in RESPONSES else ["xrceth"]) + hdrs, False))
    out += [(0x64, ["deth"], True), (0x65, ["deth", "immdt"], True), (0x81, ["cnp"], False)]
    return out


def u(bits):
    return rnd.getrandbits(bits)


def aeth_syndrome():
    return rnd.choice([u(5), 0x20 | u(5), 0x60 | rnd.randrange(5)])


# Each header's fields: (name in the layer, full name, value maker, how read prints it).
FIELDS = {
    "bth": [("se", "infiniband.bth.se", lambda: u(1)), ("m", "infiniband.bth.m", lambda: u(1)),
            ("p_key", "infiniband.bth.p_key", lambda: u(16)),
            ("destqp", "infiniband.bth.destqp", lambda: u(24)),
            ("a", "infiniband.bth.a", lambda: u(1)), ("psn", "infiniband.bth.psn", lambda: u(24)),
            ("becn", "roceshark.bth.becn", lambda: u(1))],
    "rdeth": [("eecnxt", "infiniband.rdeth.eecnxt", lambda: u(24))],
    "deth": [("q_key", "infiniband.deth.q_key", lambda: u(32)),
             ("srcqp", "infiniband.deth.srcqp", lambda: u(24))],
    "xrceth": [("xrcsrq", "roceshark.xrceth.xrcsrq", lambda: u(24))],
    "reth": [("va", "infiniband.reth.va", lambda: u(64)),
             ("r_key", "infiniband.reth.r_key", lambda: u(32)),
             ("dmalen", "infiniband.reth.dmalen", lambda: u(32))],
    "atomiceth": [("va", "infiniband.reth.va", lambda: u(64)),
                  ("r_key", "infiniband.reth.r_key", lambda: u(32)),
                  ("swapdt", "infiniband.atomiceth.swapdt", lambda: u(64)),
                  ("cmpdt", "infiniband.atomiceth.cmpdt", lambda: u(64))],
    "aeth": [("syndrome", "infiniband.aeth.syndrome", aeth_syndrome),
             ("msn", "infiniband.aeth.msn", lambda: u(24))],
    "atomicacketh": [("origremdt", "infiniband.atomicacketh.origremdt", lambda: u(64))],
    "immdt": [("data", "infiniband.immdt", lambda: u(32))],
    "ieth": [("rkey", "infiniband.ieth", lambda: u(32))],
    "lrh": [("vl", "infiniband.lrh.vl", lambda: u(4)), ("sl", "infiniband.lrh.sl", lambda: u(4)),
            ("dlid", "infiniband.lrh.dlid", lambda: u(16)),
            ("slid", "infiniband.lrh.slid", lambda: u(16))],
    "grh": [("tclass", "infiniband.grh.tclass", lambda: u(8)),
            ("flowlabel", "infiniband.grh.flowlabel", lambda: u(20)),
            ("hoplmt", "infiniband.grh.hoplmt", lambda: u(8))],
    "ip": [("dsfield", "ip.dsfield", lambda: u(8)), ("id", "ip.id", lambda: u(16)),
           ("ttl", "ip.ttl", lambda: 1 + u(7))],
    "ipv6": [("tclass", "ipv6.tclass", lambda: u(8)), ("flow", "ipv6.flow", lambda: u(20)),
             ("hlim", "ipv6.hlim", lambda: 1 + u(7))],
    "udp": [("srcport", "udp.srcport", lambda: 1024 + u(15))],
    "vlan": [("id", "vlan.id", lambda: 1 + rnd.randrange(4094)),
             ("priority", "vlan.priority", lambda: u(3))],
    "ieee8021ad": [("id", "ieee8021ad.id", lambda: 1 + rnd.randrange(4094))],
}
ENCAPS = {
    "rocev2": ["eth", "ip", "udp"],
    "rocev2_vlan": ["eth", "vlan", "ip", "udp"],
    "rocev2_ipv6": ["eth", "ipv6", "udp"],
    "rocev2_ipv6_qinq": ["eth", "ieee8021ad", "vlan", "ipv6", "udp"],
    "rocev1": ["eth", "grh"],
    "rocev1_vlan": ["eth", "vlan", "grh"],
    "ib": ["lrh"],
    "ib_grh": ["lrh", "grh"],
}


def addr(layer):
    if layer == "ip":
        return {"src": "10.%d.%d.1" % (u(8), u(8)), "dst": "10.%d.%d.2" % (u(8), u(8))}
    if layer in ("ipv6", "grh"):
        key = ("sgid", "dgid") if layer == "grh" else ("src", "dst")
        return {key[0]: "fd00::%x" % (1 + u(16)), key[1]: "fd00:1::%x" % (1 + u(16))}
    return {}


def spec_for(encap, op, hdrs):
    """A layered spec setting every field; returns (spec, {full name: expected text})."""
    want = {}
    layers = []
    for layer in ENCAPS[encap] + ["bth"] + hdrs:
        args = []
        if layer == "bth":
            args.append('opcode=%d' % op)
        for key, full, make in FIELDS.get(layer, []):
            v = make()
            args.append("%s=%d" % (key, v))
            want[full] = v
        for key, v in addr(layer).items():
            args.append("%s=%s" % (key, v))
            prefix = {"ip": "ip.", "ipv6": "ipv6.", "grh": "infiniband.grh."}[layer]
            want[prefix + key] = v
        layers.append("%s(%s)" % (layer, ", ".join(args)) if args else layer)
    # No payload where the IBTA allows none: READ requests, ACKs, atomics, CNPs.
    if op & 0x1F not in (0x0C, 0x11, 0x12, 0x13, 0x14) and op != 0x81:
        plen = rnd.randrange(0, 300)
        layers.append("payload(len=%d, fill=rand)" % plen)
    return " / ".join(layers), want


def norm(name, v):
    """A value as read prints it, as a number where it is one (ImmDt and IETH are bytes)."""
    if v in ("True", "False"):
        return int(v == "True")
    try:
        return int(v, 16) if name in ("infiniband.immdt", "infiniband.ieth") else int(v, 0)
    except ValueError:
        return v


# 1. Round trips.
specs = {}
for encap in ENCAPS:
    lines, wants, tshark_ok = [], [], []
    for op, hdrs, ws_ok in opcodes():
        spec, want = spec_for(encap, op, hdrs)
        lines.append(spec)
        wants.append(want)
        tshark_ok.append(ws_ok)
    specs[encap] = (lines, wants, tshark_ok)

bad_total = 0
checked = 0
for encap, (lines, wants, tshark_ok) in specs.items():
    spec_file = os.path.join(tmp, encap + ".txt")
    open(spec_file, "w").write("\n".join(lines) + "\n")
    cap = os.path.join(tmp, encap + ".pcap")
    p = t.run([t.ROCESHARK, "inject", "-w", cap, "-F", spec_file, "--seed", "1"])
    t.check(p.stderr.startswith("inject: %d sent, 0 failed" % len(lines)),
            "%s: %r" % (encap, p.stderr))
    names = sorted({k for w in wants for k in w})
    status = ["roceshark.icrc.status", "roceshark.vcrc.status", "roceshark.malformed",
              "infiniband.bth.opcode"]
    rows = t.roceshark_fields(cap, names + status)
    t.check(len(rows) == len(lines), "%s: %d frames read, %d written" % (encap, len(rows),
                                                                         len(lines)))
    for n, (row, want) in enumerate(zip(rows, wants), 1):
        got = dict(zip(names + status, row))
        for name, v in want.items():
            g = got[name].split(",")[0]
            checked += 1
            if norm(name, g) != v and g != v:
                t.check(False, "%s line %d: %s = %r, asked %r" % (encap, n, name, g, v))
        t.check(got["roceshark.icrc.status"] == "1", "%s line %d (opcode %s): ICRC %r"
                % (encap, n, got["infiniband.bth.opcode"], got["roceshark.icrc.status"]))
        if encap.startswith("ib"):
            t.check(got["roceshark.vcrc.status"] == "1", "%s line %d: VCRC %r"
                    % (encap, n, got["roceshark.vcrc.status"]))
        t.check(got["roceshark.malformed"] == "", "%s line %d (opcode %s): malformed"
                % (encap, n, got["infiniband.bth.opcode"]))
    # tshark, on the services it decodes right.
    ws_file = os.path.join(tmp, encap + "_ws.txt")
    open(ws_file, "w").write("\n".join(l for l, ok in zip(lines, tshark_ok) if ok) + "\n")
    ws_cap = os.path.join(tmp, encap + "_ws.pcap")
    t.run([t.ROCESHARK, "inject", "-w", ws_cap, "-F", ws_file, "--seed", "1"])
    fields = t.CONTRACT_FIELDS + t.LOWER_FIELDS
    if encap.startswith("ib"):
        # tshark 4.0 shows no ICRC or VCRC field on ERF InfiniBand records.
        fields = [f for f in fields if not f.endswith(".crc")]
    bad, total = t.fields_diff(ws_cap, fields)
    bad_total += bad
    t.check(bad == 0 and total > 0, "%s: tshark reads %d of %d values differently"
            % (encap, bad, total))
print("round trips: %d packets, %d values set and read back" %
      (sum(len(v[0]) for v in specs.values()), checked))

# 1b. iWARP: an MPA exchange, then FPDUs of every RDMAP message, over IPv4 and IPv6, TCP
# sequence numbers following each flow; tshark reads them as roceshark does.
for family, (a, b) in (("ip", ("10.0.0.1", "10.0.0.2")), ("ipv6", ("fd00::1", "fd00::2"))):
    fwd = "eth / %s(src=%s, dst=%s) / tcp(srcport=40000, dstport=9999)" % (family, a, b)
    rev = "eth / %s(src=%s, dst=%s) / tcp(srcport=9999, dstport=40000)" % (family, b, a)
    IW = [
        fwd + " / mpareq(rev=1) / payload(hex=00010002)",
        rev + " / mparep(rev=1)",
        fwd + " / ddp(stag=0x1234, tagged_offset=0x1000) / rdmap(opcode=Write) / payload(len=100)",
        fwd + " / ddp(msn=1) / rdmap(opcode=\"Read Request\", sinkstag=5, sinkto=0x40, "
        "rdmardsz=4096, srcstag=6, srcto=0x80)",
        rev + " / ddp(stag=5, tagged_offset=0x40) / rdmap(opcode=\"Read Response\") / "
        "payload(len=64, fill=rand)",
        fwd + " / ddp(msn=inc(1), mo=0, last_flag=1) / rdmap(opcode=Send) / payload(len=10) "
        "repeat 2",
        fwd + " / ddp(msn=3) / rdmap(opcode=\"Send with Invalidate\", inval_stag=0x77) / "
        "payload(len=7)",
        fwd + " / ddp(msn=4) / rdmap(opcode=Terminate, term_layer=1, term_etype=2, "
        "term_errcode=3)",
        fwd + " / mpa(crc=bad) / ddp(msn=5) / rdmap(opcode=Send) / payload(len=12)",
    ]
    iw_file = os.path.join(tmp, "iwarp_%s.txt" % family)
    open(iw_file, "w").write("\n".join(IW) + "\n")
    iw_cap = os.path.join(tmp, "iwarp_%s.pcap" % family)
    t.run([t.ROCESHARK, "inject", "-w", iw_cap, "-F", iw_file])
    bad, total = t.fields_diff(iw_cap, t.IWARP_FIELDS + ["tcp.seq_raw", "tcp.ack_raw"],
                               t.TSHARK_IWARP)
    t.check(bad == 0 and total > 0, "iWARP over %s: tshark reads %d of %d values differently"
            % (family, bad, total))
    rows = t.roceshark_fields(iw_cap, ["iwarp_rdma.opcode", "iwarp_ddp.stag", "iwarp_ddp.msn",
                                       "iwarp_rdma.rdmardsz", "iwarp_rdma.inval_stag",
                                       "iwarp_rdma.term_errcode_ddp_untagged",
                                       "roceshark.mpa.crc.status",
                                       "tcp.seq_raw"])
    t.check([r[0] for r in rows] == ["", "", "0x00", "0x01", "0x02", "0x03", "0x03", "0x04",
                                     "0x07", "0x03"], "iWARP opcodes over %s: %r"
            % (family, [r[0] for r in rows]))
    t.check(rows[2][1] == "0x00001234" and rows[3][3] == "4096" and rows[7][4] == "119"
            and rows[8][5] == "0x03" and [r[2] for r in rows[5:7]] == ["1", "2"],
            "iWARP fields over %s: %r" % (family, rows))
    t.check([r[6] for r in rows[2:]] == ["1"] * 7 + ["0"], "MPA CRC verdicts over %s: %r"
            % (family, [r[6] for r in rows]))
    # The client's segments follow one another: each starts where the last one ended.
    seqs = [int(r[7]) for i, r in enumerate(rows) if i not in (1, 4)]
    t.check(seqs[0] == 1000 and all(x < y for x, y in zip(seqs, seqs[1:])),
            "TCP sequence numbers over %s: %r" % (family, seqs))

# 2. scapy's ICRC over RoCEv2/IPv4 (its contrib.roce knows IPv4 only), and with one tag.
for encap in ("rocev2", "rocev2_vlan"):
    cap = os.path.join(tmp, encap + ".pcap")
    for n, pkt in enumerate(rdpcap(cap), 1):
        if BTH not in pkt:
            continue
        raw = bytes(pkt)
        again = Ether(raw)
        del again[BTH].icrc
        t.check(bytes(again) == raw, "%s packet %d: scapy computes another ICRC" % (encap, n))

# 3. Over UDP on loopback: what the kernel sends carries a good ICRC; repeat and -F.
SRC, DST = "127.0.91.1", "127.0.91.2"
rx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
rx.bind((DST, 0))
rx.settimeout(10)       # a bound: the loop ends on the count
udp_specs = os.path.join(tmp, "udp.txt")
UDP_LINES = [
    'bth(opcode="RC RDMA Write Only", psn=inc(5)) / reth(va=0x1000, r_key=5, dmalen=64) / '
    'payload(len=64) repeat 3',
    'ip(dsfield.ecn=1) / bth(opcode="RC Send Only") / payload(len=33, fill=rand)',
    'bth(opcode="RC Acknowledge") / aeth(syndrome.opcode=NAK, syndrome.error_code='
    '"PSN Sequence Error", msn=3)',
    'bth(opcode="UD Send Only", destqp=1) / deth(q_key=0x80010000, srcqp=1) / payload(len=256)',
    "bth(icrc=bad) / payload(len=20)",
]
NU = 3 + len(UDP_LINES) - 1
open(udp_specs, "w").write("".join(l + "\n" for l in UDP_LINES))
p = t.run([t.ROCESHARK, "inject", "--udp", "-F", udp_specs, "ip.src=" + SRC, "ip.dst=" + DST,
           "udp.srcport=49999"])
t.check(p.stderr.startswith("inject: %d sent, 0 failed" % NU), "inject --udp: %r" % p.stderr)
got = []
try:
    # Until all came, then whatever else is already queued (one too many is a failure).
    while True:
        data = rx.recv(65535, socket.MSG_DONTWAIT if len(got) >= NU else 0)
        if socket.inet_ntoa(data[12:16]) == SRC and struct.unpack("!H", data[22:24])[0] == 4791:
            got.append(data)
except (socket.timeout, BlockingIOError):
    pass
rx.close()
t.check(len(got) == NU, "received %d of %d packets over UDP" % (len(got), NU))
raw_cap = os.path.join(tmp, "udp.pcap")
with open(raw_cap, "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))    # LINKTYPE_RAW
    for data in got:
        f.write(struct.pack("<IIII", 0, 0, len(data), len(data)) + data)
rows = t.roceshark_fields(raw_cap, ["infiniband.bth.psn", "roceshark.icrc.status",
                                    "udp.srcport", "ip.dsfield.ecn"])
t.check([r[1] for r in rows] == ["1"] * (NU - 1) + ["0"] and rows[0][2] == "49999",
        "ICRCs of what the kernel sent: %r" % rows)
t.check([r[0] for r in rows[:3]] == ["5", "6", "7"], "repeat 3 with psn=inc(5): %r" % rows)
t.check(rows[3][3] == "1", "the ECN the spec asked for went out: %r" % rows[3])

# docs/limits.md: the injector follows RS_INJECT_MAX_FLOWS (64) TCP flows; 66 flows forget
# two, and the end-of-run counts say so.
cap = os.path.join(tmp, "flows.pcap")
p = t.run([t.ROCESHARK, "inject", "-w", cap, "-c", "66", "eth / ip / tcp(srcport=inc(40000), "
           "dstport=9999) / ddp(msn=1) / rdmap(opcode=Send) / payload(len=4)"])
t.check(p.stderr.endswith("\ninject: 2 TCP flows forgotten for newer ones (the table holds 64): "
                          "their sequence numbers start over if they come again\n"),
        "66 TCP flows: %r" % p.stderr)
# 4. Generators, --seed, pacing, pcapng.
cap = os.path.join(tmp, "gen.pcap")
t.run([t.ROCESHARK, "inject", "-w", cap, "-c", "6", "bth(psn=inc(16777213), destqp=list(1,2,3), "
       "p_key=seq(7..8))"])
rows = t.roceshark_fields(cap, ["infiniband.bth.psn", "infiniband.bth.destqp",
                                "infiniband.bth.p_key"])
t.check([r[0] for r in rows] == ["16777213", "16777214", "16777215", "0", "1", "2"],
        "the PSN wraps: %r" % rows)
t.check([int(r[1], 16) for r in rows] == [1, 2, 3, 1, 2, 3], "list cycles: %r" % rows)
t.check([r[2] for r in rows] == ["7", "8"] * 3, "seq cycles: %r" % rows)
RAND = "udp(srcport=rand) / bth(psn=rand(100,200)) / payload(len=rand(1,64), fill=rand)"
outs = []
for run in range(3):
    cap = os.path.join(tmp, "rand%d.pcap" % run)
    p = t.run([t.ROCESHARK, "inject", "-w", cap, "-c", "50", "--seed", "99" if run < 2 else "98",
               RAND])
    t.check(p.stderr.rstrip().endswith("seed %d" % (99 if run < 2 else 98)),
            "the seed is printed: %r" % p.stderr)
    outs.append([r for r in t.roceshark_fields(cap, ["udp.srcport", "infiniband.bth.psn",
                                                    "roceshark.payload",
                                                    "roceshark.icrc.status"])])
t.check(outs[0] == outs[1], "rand under --seed 99 twice: the runs differ")
t.check(outs[0] != outs[2], "rand under seeds 99 and 98: the same packets")
t.check(all(100 <= int(r[1]) <= 200 and r[3] == "1" for r in outs[0]), "rand(100,200): %r"
        % outs[0][:3])
p = t.run([t.ROCESHARK, "inject", "-w", cap, "-c", "5", "--psn-step", "3", "--pps", "50",
           "infiniband.bth.psn=0xfffffe"])
rows = t.roceshark_fields(cap, ["infiniband.bth.psn", "frame.time_relative"])
t.check([r[0] for r in rows] == ["16777214", "1", "4", "7", "10"], "PSNs of the passes: %r"
        % [r[0] for r in rows])
t.check(float(rows[-1][1]) >= 0.07, "--pps 50: 5 packets in %s s" % rows[-1][1])
# --gap and --mbps space the packets; --duration stops an endless loop.
for args, least, what in ((["--gap", "10000"], 0.04, "--gap 10000: 5 packets"),
                          (["--mbps", "1"], 0.032, "--mbps 1: 5 packets of 1042 bytes")):
    t.run([t.ROCESHARK, "inject", "-w", cap, "-c", "5"] + args + ["bth / payload(len=1000)"])
    rows = t.roceshark_fields(cap, ["frame.time_relative", "frame.len"])
    t.check(len(rows) == 5 and float(rows[-1][0]) >= least, "%s over %s s"
            % (what, rows[-1][0] if rows else "?"))
p = t.run([t.ROCESHARK, "inject", "-w", cap, "--loop", "0", "--pps", "50", "--duration", "1",
           "bth"])
n = len(t.roceshark_fields(cap, ["frame.number"]))
t.check(40 <= n <= 60, "--duration 1 at --pps 50: %d packets" % n)

# Progress on a terminal: a line rewritten in place, then the counts.
master, slave = pty.openpty()
proc = t.spawn([t.ROCESHARK, "inject", "-w", cap, "-c", "300", "--pps", "200", "bth"],
               stderr=slave, stdout=subprocess.DEVNULL)
os.close(slave)
seen = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
proc.wait()
os.close(master)
t.check(proc.returncode == 0 and seen.count(b"\rinject: ") >= 3 and b"packets/s" in seen
        and b"inject: 300 sent, 0 failed" in seen, "progress on a terminal: %r" % seen[-300:])

ng = os.path.join(tmp, "out.pcapng")
t.run([t.ROCESHARK, "inject", "-w", ng, "-c", "3", "bth(psn=inc(1))"])
t.check(open(ng, "rb").read(4) == b"\x0a\x0d\x0d\x0a", "-w x.pcapng: not a pcapng file")
rows = t.tshark_fields(ng, ["infiniband.bth.psn"])
t.check([r[0] for r in rows] == ["1", "2", "3"], "tshark reads the pcapng: %r" % rows)


# 5. Errors.
def fails(args, code, text):
    p = t.run([t.ROCESHARK, "inject"] + args, check_rc=False)
    t.check(p.returncode == code and p.stderr == "roceshark: inject: " + text + "\n",
            "inject %s: exit %d %r" % (" ".join(args), p.returncode, p.stderr))


bad_specs = os.path.join(tmp, "bad.txt")
open(bad_specs, "w").write("# fine\ninfiniband.bth.opcode=0x0a infiniband.reth.va=1\n"
                           "  infiniband.bth.psn=7 infiniband.aeth.msn=1\n")
fails(["-w", cap, "-F", bad_specs], 1, "%s:3:24: infiniband.aeth.msn: the opcode (RC Send Only) "
      "carries no AETH" % bad_specs)
fails(["-w", cap, "infiniband.bth.destqp=0x1000000"], 1, "command line:1:23: "
      "infiniband.bth.destqp: '0x1000000': out of range, or not a number or a value name")
fails(["-w", cap, "eth / ip / udp / bth(pns=3)"], 1, "command line:1:22: layer 4 bth: no field "
      "'pns' (did you mean psn?)")
fails(["-w", cap, "eth / ip / udp / bht(psn=3)"], 1, "command line:1:18: layer 4 bht: unknown "
      "(did you mean bth?)")
fails(["-w", cap, "bth(psn=rand(5,1))"], 1, "command line:1:9: infiniband.bth.psn: 'rand(5,1)': "
      "expected rand(LO,HI) with LO <= HI, within the field")
fails(["-w", cap, "lrh / ip"], 1, "command line:1:7: layer 2 ip: a native InfiniBand packet has "
      "no IP or UDP header")
fails(["-w", cap, "--udp"], 1, "give one of -w FILE, -i IFACE and --udp")
fails(["-w", cap, "--pps", "5", "--mbps", "3"], 1, "give one of --pps, --mbps, --gap and "
      "--topspeed")
fails(["-w", "/nonexistent/x.pcap"], 3, "-w /nonexistent/x.pcap: No such file or directory")
fails(["--udp", "ip.src=192.0.2.1"], 4, "--udp: 192.0.2.1:49152: address not on this host (give "
      "one of its addresses, or add it: ip addr add)")
fails(["--udp", "ip.src=127.0.91.1", "ip.id=5"], 1, "packet 1: over UDP the kernel writes ip.id "
      "0 with DF: a packet with another ip.id or without DF would carry a wrong ICRC")
mixed = os.path.join(tmp, "mixed.txt")
open(mixed, "w").write("bth\nlrh / bth\n")
fails(["-w", cap, "-F", mixed], 1, "-w: native InfiniBand packets go in a file of their "
      "own (ERF type 21), not with Ethernet frames")
fails(["-w", cap, "eth / ip / tcp / ddp(stg=1)"], 1, "command line:1:22: layer 4 ddp: no "
      "field 'stg' (did you mean stag?)")
fails(["-w", cap, "eth / ip / udp / tcp"], 1, "command line:1:18: layer 4 tcp: iWARP runs over "
      "Ethernet, IP and TCP, with no UDP or InfiniBand header")
fails(["-w", cap, "eth / ip / ddp(msn=1)"], 1, "command line:1:12: layer 3 ddp: needs tcp(...) "
      "before it")
p = t.run([t.ROCESHARK, "inject", "-i", "rs-no-such-if", "bth"], check_rc=False)
t.check(p.returncode == 4 and p.stderr.startswith("roceshark: inject: -i rs-no-such-if: no such "
                                                  "interface (interfaces: lo"),
        "inject -i rs-no-such-if: exit %d %r" % (p.returncode, p.stderr))
t.finish("inject")
