#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""unit_vectors.py : prints the RoCEv2 frames that tests/unit/testutil.h holds as hex
(HEX_ROCEV2_WRITE_ONLY, HEX_ROCEV2_ACK, HEX_ROCEV2_READ_REQ): one RC conversation between
10.0.0.1 (requester, QP 0x12) and 10.0.0.2 (responder, QP 0x11). The ICRC comes from
ibframes.py and is checked against scapy.contrib.roce, two implementations independent of
roceshark's."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibframes as ib  # noqa: E402

REQ = (bytes.fromhex("020000000001"), bytes([10, 0, 0, 1]))
RES = (bytes.fromhex("020000000002"), bytes([10, 0, 0, 2]))
VA, RKEY = 0x00007F0012345000, 0x0000BEEF


def bth(opcode, pad, destqp, psn, ackreq):
    return struct.pack("!BBHI I", opcode, pad << 4, 0xFFFF, destqp, (ackreq << 31) | psn)


def rocev2(src, dst, ip_id, transport):
    udp = struct.pack("!HHHH", 50000, 4791, 8 + len(transport) + 4, 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(transport) + 4, ip_id,
                     0x4000, 64, 17, 0, src[1], dst[1])
    ip = ip[:10] + struct.pack("!H", ~ib._ones_sum(ip) & 0xFFFF) + ip[12:]
    crc = ib.icrc("ipv4", ip, udp, transport)
    theirs = ib.scapy_ipv4_icrc(ip + udp + transport + crc)
    if theirs is not None and theirs != crc:
        raise AssertionError("ICRC disagrees with scapy.contrib.roce")
    return dst[0] + src[0] + b"\x08\x00" + ip + udp + transport + crc


payload = b"roceshark-wrote-it"                 # 18 octets, then 2 of pad
write = rocev2(REQ, RES, 0x0101, bth(0x0A, 2, 0x11, 0x001234, 1) +
               struct.pack("!QII", VA, RKEY, len(payload)) + payload + bytes(2))
ack = rocev2(RES, REQ, 0x0202, bth(0x11, 0, 0x12, 0x001234, 0) + struct.pack("!I", 0x1F000001))
read = rocev2(REQ, RES, 0x0103, bth(0x0C, 0, 0x11, 0x001235, 1) +
              struct.pack("!QII", VA, RKEY, 4096))
for name, frame in (("WRITE_ONLY", write), ("ACK", ack), ("READ_REQ", read)):
    print("HEX_ROCEV2_%s %d %s" % (name, len(frame), frame.hex()))
