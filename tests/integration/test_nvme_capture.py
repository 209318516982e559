#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/captures/nvme/nvme_rdma.pcap, the NVMe-oF over RoCEv2 capture the parity families
and the nvme-rdma dissector are measured on, is what it says it is:
  - tests/gen/gen_nvme_rdma.py writes it byte for byte;
  - tshark 4.0 takes the two RDMA CM connections for NVMe-oF (port 4420) and decodes their
    capsules: the command opcodes and Fabrics types, each response's CID and status (the
    last one LBA Out of Range with Do Not Retry), the CM Accept's CRQSIZE, and a latency
    for every command, linked to its response;
  - `read` decodes every frame as RoCEv2 with a good ICRC, the capsules as the SEND
    payloads they are (64-byte commands, 1024 bytes of Connect data in the capsule,
    16-byte responses)."""
import filecmp
import os

import rstest as t

CAPTURE = os.path.join(t.SOURCE_DIR, "tests", "captures", "nvme", "nvme_rdma.pcap")

out = os.path.join(t.tempdir(), "nvme_rdma.pcap")
t.run([t.PYTHON, os.path.join(t.GEN_DIR, "gen_nvme_rdma.py"), out])
t.check(filecmp.cmp(out, CAPTURE, shallow=False),
        "gen_nvme_rdma.py no longer writes tests/captures/nvme/nvme_rdma.pcap")

# frame: (command opcode, Fabrics type) or (response CID, status, latency field).
COMMANDS = {7: ("7f", "0x01"), 11: ("7f", "0x04"), 15: ("0x06", ""), 20: ("7f", "0x01"),
            24: ("0x02", ""), 29: ("0x01", ""), 35: ("0x02", "")}
RESPONSES = {9: ("0x0001", "0x0000", "fabrics"), 13: ("0x0002", "0x0000", "fabrics"),
             18: ("0x0003", "0x0000", "nvme"), 22: ("0x0001", "0x0000", "fabrics"),
             27: ("0x0010", "0x0000", "nvme"), 33: ("0x0011", "0x0000", "nvme"),
             37: ("0x0012", "0x8100", "nvme")}
rows = t.tshark_fields(CAPTURE, ["frame.number", "frame.protocols", "nvme.cmd.opc",
                                 "nvme.fabrics.cmd.opc", "nvme.fabrics.cmd.fctype",
                                 "nvme.cqe.cid", "nvme.cqe.status", "nvme.cmd_latency",
                                 "nvme.fabrics.cmd_latency", "nvme-rdma.cm.rsp.crqsize"])
t.check(len(rows) == 38, "tshark reads %d frames, want 38" % len(rows))
nvme_frames = [int(r[0]) for r in rows if r[1].endswith(":nvme-rdma")]
t.check(nvme_frames == [2, 5, 7, 9, 11, 13, 15, 17, 18, 20, 22, 24, 26, 27, 29, 31, 32, 33, 35,
                       37], "tshark's nvme-rdma frames: %s" % nvme_frames)
for r in rows:
    n = int(r[0])
    opc = r[2] or r[3]
    if n in COMMANDS:
        t.check((opc, r[4]) == COMMANDS[n], "frame %d: command %r %r" % (n, opc, r[4]))
    elif n in RESPONSES:
        cid, status, kind = RESPONSES[n]
        latency = r[8] if kind == "fabrics" else r[7]
        t.check((r[5], r[6]) == (cid, status) and latency != "",
                "frame %d: response %r %r, latency %r" % (n, r[5], r[6], latency))
    else:
        t.check(opc == "" and r[5] == "", "frame %d: neither command nor response" % n)
t.check([r[9] for r in rows if r[9]] == ["32", "128"], "CM Accept CRQSIZE: %s"
        % [r[9] for r in rows if r[9]])

# The SEND payloads of the two queues' QPs, as read shows them today.
SIZES = {7: 1088, 20: 1088, 9: 16, 13: 16, 18: 16, 22: 16, 27: 16, 33: 16, 37: 16}
ours = t.roceshark_fields(CAPTURE, ["frame.number", "roceshark.encap", "roceshark.icrc.status",
                                    "infiniband.bth.opcode", "roceshark.payload.len"])
t.check(len(ours) == 38, "read reads %d frames, want 38" % len(ours))
for n, encap, icrc, opcode, plen in ours:
    n = int(n)
    t.check(encap == "rocev2" and icrc == "1", "frame %d: %s ICRC %s" % (n, encap, icrc))
    if opcode == "4":
        want = SIZES.get(n, 64)
        t.check(plen == str(want), "frame %d: SEND payload %s, want %d" % (n, plen, want))
t.finish("nvme_capture")
