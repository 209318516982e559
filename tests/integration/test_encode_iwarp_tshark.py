#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The iWARP builder (dissectors/iwarp/iwarp_encode.c) held to tshark 4.0.

tests/gen/encode_iwarp_pcap.c (argv[1]) writes a connection over IPv4 and one over IPv6: an
MPA Request and Reply with CRCs, an FPDU of every RDMAP opcode with sequence numbers that
follow on, and a Send with a CRC built bad; and it prints the fields each FPDU must show.
  - tshark decodes every FPDU to those values (iwarp_mpa.*, iwarp_ddp.*, iwarp_rdma.*);
  - tshark calls every MPA CRC good but the one built bad, and the IPv4 header and TCP
    checksums of every frame good;
  - roceshark read prints every iWARP field of the contract as tshark does, with the payloads
    handed on as data and frame.protocols, and its own CRC verdicts agree."""
import os
import re
import sys

import rstest as t

GEN = sys.argv[1]
GOOD = "1"      # Wireshark's checksum status: 0 bad, 1 good
TSHARK_OPTS = t.TSHARK_IWARP + " -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE"

tmp = t.tempdir()
path = os.path.join(tmp, "encode_iwarp.pcap")

# "frame N crc good|bad field=value ..."
truth = {}
for line in t.run([GEN, path]).stdout.splitlines():
    words = line.split()
    truth[int(words[1])] = (words[3], dict(w.split("=", 1) for w in words[4:]))
t.check(len(truth) == 2 * 13, "%d FPDUs built, want 26" % len(truth))
n_frames = max(truth) if truth else 0


def number(s):
    """A -T fields value as a number: booleans print 1/0 (4.0) or True/False (4.4 on)."""
    return {"True": 1, "False": 0}[s] if s in ("True", "False") else int(s, 0)


# --- every field as the generator says, and the IP and TCP checksums good ---
fields = sorted({f for _, want in truth.values() for f in want if not f.startswith("roceshark.")})
cols = fields + ["ip.version", "ip.checksum.status", "tcp.checksum.status"]
rows = t.tshark_fields(path, cols, TSHARK_OPTS)
t.check(len(rows) == n_frames, "tshark read %d frames, want %d" % (len(rows), n_frames))
values = 0
for n, row in enumerate(rows, 1):
    got = dict(zip(cols, row + [""] * (len(cols) - len(row))))
    t.check(got["tcp.checksum.status"] == GOOD,
            "frame %d: TCP checksum %r" % (n, got["tcp.checksum.status"]))
    if got["ip.version"] == "4":
        t.check(got["ip.checksum.status"] == GOOD,
                "frame %d: IPv4 checksum %r" % (n, got["ip.checksum.status"]))
    if n not in truth:
        continue
    for f, v in truth[n][1].items():
        if f.startswith("roceshark."):
            continue
        values += 1
        t.check(got[f] != "" and number(got[f]) == int(v),
                "frame %d %s: tshark %r, built %s" % (n, f, got[f], v))

# --- the MPA CRC verdicts, which tshark shows only in the tree ---
verdict = {}
frame = 0
for line in t.run(["tshark", "-n", "-r", path, "-V"] + TSHARK_OPTS.split()).stdout.splitlines():
    m = re.match(r"Frame (\d+):", line)
    if m:
        frame = int(m.group(1))
    m = re.search(r"CRC check: 0x[0-9a-f]+ \((Good|Bad) CRC32", line)
    if m:
        verdict[frame] = m.group(1).lower()
for n, (crc, _) in truth.items():
    t.check(verdict.get(n) == crc, "frame %d: tshark's CRC %s, built %s" % (n, verdict.get(n), crc))

# --- roceshark read: the whole iWARP contract as tshark prints it, and the same verdicts ---
bad, total = t.fields_diff(path, t.IWARP_FIELDS + t.DATA_FIELDS + ["frame.protocols"],
                           t.TSHARK_IWARP)
t.check(bad == 0, "roceshark differs from tshark in %d of %d values" % (bad, total))
status = t.roceshark_fields(path, ["roceshark.mpa.crc.status"])
for n, (crc, _) in truth.items():
    t.check(status[n - 1] == [GOOD if crc == "good" else "0"],
            "frame %d: roceshark's CRC status %r, built %s" % (n, status[n - 1], crc))

print("%d FPDUs, %d values as built, %d roceshark values as tshark's" % (len(truth), values, total))
t.finish("encode_iwarp_tshark")
