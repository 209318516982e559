#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_sa_pathrecord.py OUT.pcap : an SA PathRecord GetTable exchange with RMPP, as opensm
answers one, in ERF type 21 records (native InfiniBand) of a DLT_ERF pcap, for
tests/captures/sa/.

Frame 1 is a SubnAdmGetTable(PathRecord) request from LID 3 to the SM at LID 1 (QP 1 to
QP 1, Q_Key 0x80010000), a PathRecord template with its component mask; frames 2-4 are the
SubnAdmGetTableResp carrying 9 PathRecords (9 * 64 = 576 bytes) over three RMPP DATA
segments of 200 bytes (IBTA 13.6.2: the first with the First flag and the payload's total
length, the last with the Last flag and its own length, the SA header in each); frame 5 is
the requester's RMPP ACK of segment 3. Every ICRC and VCRC is correct.
"""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibframes as ib  # noqa: E402

SA_CLASS, SA_VERSION = 0x03, 2
GET_TABLE, GET_TABLE_RESP = 0x12, 0x92
PATH_RECORD = 0x0035
QKEY = 0x80010000
SM_LID, HOST_LID = 1, 3
TID = 0x0000_1234_0000_0042
SEGMENT_DATA = 200      # bytes after the MAD, RMPP and SA headers (256 - 56)
GID_PREFIX = bytes.fromhex("fe80000000000000")


def gid(port_guid):
    return GID_PREFIX + port_guid.to_bytes(8, "big")


def path_record(n):
    """PathRecord (IBTA 15.2.5.16), 64 bytes: the n-th path from the host to a peer."""
    return (bytes(8)                                     # ServiceID
            + gid(0x0002c90300a1b2c3)                    # DGID
            + gid(0x0002c90300d4e5f0 + n)                # SGID
            + struct.pack("!HH", 0x10 + n, HOST_LID)     # DLID, SLID
            + struct.pack("!I", 0x80000000 | (0x1234 + n) << 8 | 0x40)  # RawTraffic, FlowLabel, HopLimit
            + struct.pack("!BB", 0, 0x80 | 1)            # TClass; Reversible, NumbPath 1
            + struct.pack("!H", 0xffff)                  # P_Key
            + struct.pack("!H", n % 16)                  # QosClass 0, SL
            + struct.pack("!BBBB", 0x80 | 4, 0x80 | 16, 0x80 | 18, n % 2)  # MTU, Rate, PLT, Preference
            + bytes(6))


def mad(method, rmpp_type, flags, segment, length_word, sa_header, data):
    hdr = struct.pack("!BBBBHHQHHI", 1, SA_CLASS, SA_VERSION, method, 0, 0, TID,
                      PATH_RECORD, 0, 0)
    rmpp = struct.pack("!BBBBII", 1, rmpp_type, (0x1f << 3) | flags, 0, segment, length_word)
    body = hdr + rmpp + sa_header + data
    return body + bytes(256 - len(body))


def sa_header(component_mask):
    # SM_Key, AttributeOffset (in 8-byte words: 64 / 8), reserved, ComponentMask
    return struct.pack("!QHHQ", 0, 64 // 8, 0, component_mask)


def packet(slid, dlid, psn, payload):
    bth = struct.pack("!BBHBBHBBH", 0x64, 0, 0xffff, 0, 0, 1, 0, psn >> 16, psn & 0xffff)
    deth = struct.pack("!IBBH", QKEY, 0, 0, 1)
    body = bth + deth + payload
    length = 8 + len(body) + 4
    lrh = struct.pack("!BBHHH", 0x00, 0x02, dlid, length // 4, slid)
    crc = ib.icrc("ib-local", None, None, body, lrh=lrh)
    pkt = lrh + body + crc
    return pkt + struct.pack("<H", ib.vcrc16(pkt))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    args = ap.parse_args()
    records = b"".join(path_record(n) for n in range(9))
    mask = 0x0000_0000_0000_100c   # DGID, SGID, NumbPath
    frames = []
    template = gid(0x0002c90300a1b2c3) + gid(0x0002c90300d4e5f0)
    request = bytes(8) + template + bytes(64 - 8 - len(template))
    frames.append(packet(HOST_LID, SM_LID, 0x10,
                         mad(GET_TABLE, 0, 0, 0, 0, sa_header(mask), request)))
    total = 3 * 20 + len(records)      # each segment's SA header counts (IBTA 13.6.2.3)
    for seg in range(3):
        chunk = records[seg * SEGMENT_DATA:(seg + 1) * SEGMENT_DATA]
        flags = 1 | (2 if seg == 0 else 0) | (4 if seg == 2 else 0)   # active, first, last
        length = total if seg == 0 else 20 + len(chunk) if seg == 2 else 0
        frames.append(packet(SM_LID, HOST_LID, 0x20 + seg,
                             mad(GET_TABLE_RESP, 1, flags, seg + 1, length, sa_header(mask),
                                 chunk)))
    frames.append(packet(HOST_LID, SM_LID, 0x11,
                         mad(GET_TABLE_RESP, 2, 1, 3, 4, sa_header(0), b"")))
    ib.write_erf_pcap(args.out, frames)


if __name__ == "__main__":
    main()
