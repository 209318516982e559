#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Random frames from tests/gen/gen_roce.py, which knows the truth about each:
  - roceshark's encapsulation, opcode, payload length (pad excluded) and ICRC/VCRC verdicts
    equal the generator's truth, frame by frame, including the deliberately corrupted ICRCs;
  - every Wireshark field matches tshark 4.0 where tshark decodes per IBTA;
  - on the opcodes tshark 4.0 misreads (RD 0x40-0x55 read as Mellanox DC with a 20-byte
    BTH, CNP 0x81 and XRC 0xA0-0xB7 sent down its vendor path with no further headers or
    CRC), only the BTH subfields are compared with tshark; the rest is held to the truth;
  - DLT_INFINIBAND (247), which tshark 4.0 cannot read, decodes exactly as the same
    packets in ERF type 21 records;
  - -d udp.port==4792,roce decodes RoCEv2 on another port as tshark's Decode As does."""
import json
import os
import re

import rstest as t

out = t.tempdir()
gen = t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_roce.py"), out, "--seed", "7"])
print(gen.stdout.strip())
t.check("0 IPv4 ICRCs" not in gen.stdout, "scapy cross-check of the generator did not run")

truth = {}
for line in open(os.path.join(out, "truth.jsonl")):
    r = json.loads(line)
    truth.setdefault(r["file"], []).append(r)

STATUS = {"bad": "0", "good": "1"}
for name, frames in sorted(truth.items()):
    path = os.path.join(out, name)
    extra = ["-d", "udp.port==4792,roce"] if name == "port4792.pcap" else []
    rows = t.roceshark_fields(path, ["roceshark.encap", "infiniband.bth.opcode",
                                     "roceshark.payload.len", "roceshark.icrc.status",
                                     "roceshark.vcrc.status", "roceshark.malformed",
                                     "roceshark.cnp", "roceshark.xrceth.xrcsrq"], extra)
    t.check(len(rows) == len(frames), "%s: %d frames, truth has %d" % (name, len(rows), len(frames)))
    for want, got in zip(frames, rows):
        n = want["frame"]
        encap, opcode, plen, icrc, vcrc, malformed, cnp, xrc = got
        if want.get("encap") is None:
            t.check(encap == "", "%s frame %d: not RDMA, got %r" % (name, n, encap))
            continue
        t.check(encap == want["encap"], "%s frame %d: encap %r want %r" % (name, n, encap, want["encap"]))
        t.check(opcode == str(want["opcode"]), "%s frame %d: opcode %r want %r" % (name, n, opcode, want["opcode"]))
        t.check(plen == str(want["payload_len"]), "%s frame %d (opcode %s): payload %r want %r"
                % (name, n, opcode, plen, want["payload_len"]))
        t.check(icrc == STATUS[want["icrc"]], "%s frame %d: ICRC status %r, truth %s" % (name, n, icrc, want["icrc"]))
        if "vcrc" in want:
            t.check(vcrc == STATUS[want["vcrc"]], "%s frame %d: VCRC status %r" % (name, n, vcrc))
        t.check(malformed == "", "%s frame %d: reported malformed" % (name, n))
        t.check((cnp == t.TRUE) == (want["opcode"] == 0x81), "%s frame %d: roceshark.cnp %r" % (name, n, cnp))
        is_xrc_request = 0xA0 <= want["opcode"] <= 0xAC or want["opcode"] in (0xB3, 0xB4, 0xB6, 0xB7)
        t.check((xrc != "") == is_xrc_request, "%s frame %d: xrcsrq %r" % (name, n, xrc))

fields = t.CONTRACT_FIELDS + t.LOWER_FIELDS
for name in ("ether.pcap", "ib_erf.pcap", "sll.pcap", "sll2.pcap", "rawip.pcap"):
    bad, total = t.fields_diff(os.path.join(out, name), fields)
    t.check(bad == 0, "%s: %d of %d values differ from tshark" % (name, bad, total))
    print("%-16s %6d values match tshark" % (name, total))

bad, total = t.fields_diff(os.path.join(out, "ibta_only.pcap"), t.BTH_SUBFIELDS)
t.check(bad == 0, "ibta_only.pcap: %d of %d BTH values differ from tshark" % (bad, total))
print("%-16s %6d BTH values match tshark" % ("ibta_only.pcap", total))

bad, total = t.fields_diff(os.path.join(out, "port4792.pcap"), t.BTH_SUBFIELDS + ["infiniband.invariant.crc"],
                           tshark_extra="-d udp.port==4792,infiniband",
                           roceshark_extra=["-d", "udp.port==4792,roce"])
t.check(bad == 0 and total > 0, "port4792.pcap: %d of %d values differ" % (bad, total))

# The same comparison through the command line of tests/tools/fieldsdiff.py: agreement
# exits 0, and without the Decode As on both sides the two differ and it exits 1.
tool = [t.PYTHON, os.path.join(t.SOURCE_DIR, "tests", "tools", "fieldsdiff.py")]
port4792 = [os.path.join(out, "port4792.pcap"), "infiniband.bth.psn", "infiniband.bth.destqp"]
env = dict(os.environ, ROCESHARK=t.ROCESHARK)
p = t.run(tool + ["-t", "-d udp.port==4792,infiniband", "-o", "-d udp.port==4792,roce"] +
          port4792, env=env, check_rc=False)
last = p.stdout.splitlines()[-1] if p.stdout else ""
t.check(p.returncode == 0 and re.fullmatch(r"(\d+) of \1 values match", last) and last[0] != "0",
        "fieldsdiff.py with Decode As: exit %d, %r" % (p.returncode, last))
p = t.run(tool + ["-o", "-d udp.port==4792,roce"] + port4792, env=env, check_rc=False)
t.check(p.returncode == 1 and "tshark ''" in p.stdout,
        "fieldsdiff.py, tshark without Decode As: exit %d, %r" % (p.returncode, p.stdout[-200:]))

ib_fields = [f for f in fields if f.startswith("infiniband.")] + ["roceshark.icrc.status", "roceshark.vcrc.status"]
erf = t.roceshark_fields(os.path.join(out, "ib_erf.pcap"), ib_fields)
dlt247 = t.roceshark_fields(os.path.join(out, "ib_dlt247.pcap"), ib_fields)
t.check(erf == dlt247 and len(erf) > 0, "DLT 247 and ERF type 21 decode differently")
t.finish("generated frames")
