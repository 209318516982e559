#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_perf_mads.py OUT.pcap : performance management MADs as a PerfMgr exchanges them with a
port, and the SA's ClassPortInfo, in ERF type 21 records (native InfiniBand) of a DLT_ERF
pcap, for tests/captures/perf/.

Frames 1-2: PerfMgt Get(ClassPortInfo) from the PerfMgr at LID 1 to the port at LID 3 (QP 1
to QP 1, Q_Key 0x80010000) and its GetResp (IBTA 16.1.2, 13.4.8.1: a capability mask, a
response time, the trap target's LID, QP, Q_Key, P_Key and hop limit, no redirection);
frames 3-4: Get(PortCounters) of port 1 and its GetResp with counters; frames 5-6: the SA's
SubnAdmGet(ClassPortInfo) and SubnAdmGetResp. Every ICRC and VCRC is correct.
"""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibframes as ib  # noqa: E402
from gen_sa_pathrecord import packet  # noqa: E402

PERF_CLASS, PERF_VERSION = 0x04, 1
SA_CLASS, SA_VERSION = 0x03, 2
GET, GET_RESP = 0x01, 0x81
CLASS_PORT_INFO, PORT_COUNTERS = 0x0001, 0x0012
PERFMGR_LID, PORT_LID = 1, 3


def mad(mgmt_class, version, method, tid, attr, modifier, data):
    """A MAD of 256 bytes: the common header (IBTA 13.4.3), then data from byte 24."""
    hdr = struct.pack("!BBBBHHQHHI", 1, mgmt_class, version, method, 0, 0, tid, attr, 0,
                      modifier)
    body = hdr + data
    return body + bytes(256 - len(body))


def class_port_info(resp):
    """ClassPortInfo (IBTA 13.4.8.1), 72 bytes: zero in a Get."""
    if not resp:
        return bytes(72)
    return (struct.pack("!BBHI", 1, PERF_VERSION, 0x1700, 18)    # versions, masks, RespTime
            + bytes(16) + struct.pack("!IHHII", 0, 0, 0xffff, 0, 0)   # no redirection
            + bytes(16)                                            # TrapGID
            + struct.pack("!IHHII", 0, PERFMGR_LID, 0xffff, 0xff000001, 0x80010000))


def port_counters(resp):
    """PortCounters (IBTA 16.1.3.5), 40 bytes of 192: port 1, every counter selected."""
    if not resp:
        return struct.pack("!BBH", 0, 1, 0xffff) + bytes(36)
    return (struct.pack("!BBH", 0, 1, 0xffff)
            + struct.pack("!HBBHHHHBBBBHH", 3, 1, 2, 7, 0, 0, 12, 0, 0, 0, 0x21, 0, 5)
            + struct.pack("!IIII", 0x12345678, 0x23456789, 0x00abcdef, 0x00bcdef0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    args = ap.parse_args()
    reserved = bytes(40)        # between a PerfMgt MAD's header and its data (16.1.1)
    frames = []
    for n, resp in enumerate((False, True)):
        frames.append(packet(*((PORT_LID, PERFMGR_LID) if resp else (PERFMGR_LID, PORT_LID)),
                             0x100 + n, mad(PERF_CLASS, PERF_VERSION, GET_RESP if resp else GET,
                                            0x4201, CLASS_PORT_INFO, 0,
                                            reserved + class_port_info(resp))))
    for n, resp in enumerate((False, True)):
        frames.append(packet(*((PORT_LID, PERFMGR_LID) if resp else (PERFMGR_LID, PORT_LID)),
                             0x102 + n, mad(PERF_CLASS, PERF_VERSION, GET_RESP if resp else GET,
                                            0x4202, PORT_COUNTERS, 0,
                                            reserved + port_counters(resp))))
    # the SA's: after the RMPP header (inactive) and the SA header, at byte 56
    sa_prefix = bytes(12) + bytes(20)
    for n, resp in enumerate((False, True)):
        cpi = bytearray(class_port_info(resp))
        if resp:
            cpi[1] = SA_VERSION
        frames.append(packet(*((PERFMGR_LID, PORT_LID) if resp else (PORT_LID, PERFMGR_LID)),
                             0x200 + n, mad(SA_CLASS, SA_VERSION, GET_RESP if resp else GET,
                                            0x4203, CLASS_PORT_INFO, 0,
                                            sa_prefix + bytes(cpi))))
    ib.write_erf_pcap(args.out, frames)


if __name__ == "__main__":
    main()
