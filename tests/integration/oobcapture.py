# SPDX-License-Identifier: GPL-2.0-or-later
"""The out-of-band TCP exchanges in the real captures, for replaying them: each TCP payload
of the tool's connection, in capture order, with its direction; and the first RoCE frame,
where the traffic phase begins. Classic pcap with Ethernet and IPv4 only (the linlinw5
captures); written here rather than through tshark so that the bytes are exactly the
capture's."""
import struct


class Exchange:
    def __init__(self):
        self.payloads = []      # (frame number, from_client, bytes)
        self.first_roce = None  # frame number of the first UDP 4791 frame
        self.client_ip = self.server_ip = None


def read(path, port):
    """The exchange on TCP port (the server's) in the capture at path."""
    data = open(path, "rb").read()
    magic, = struct.unpack("<I", data[:4])
    assert magic in (0xA1B2C3D4, 0xA1B23C4D), "classic little-endian pcap expected"
    assert struct.unpack("<I", data[20:24])[0] == 1, "Ethernet expected"
    ex = Exchange()
    off, frame = 24, 0
    while off + 16 <= len(data):
        incl, = struct.unpack("<I", data[off + 8:off + 12])
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        frame += 1
        if len(pkt) < 34 or pkt[12:14] != b"\x08\x00":
            continue
        ihl = (pkt[14] & 15) * 4
        total, = struct.unpack(">H", pkt[16:18])
        proto, src, dst = pkt[23], pkt[26:30], pkt[30:34]
        l4 = 14 + ihl
        if proto == 17 and struct.unpack(">H", pkt[l4 + 2:l4 + 4])[0] == 4791:
            if ex.first_roce is None:
                ex.first_roce = frame
            continue
        if proto != 6:
            continue
        sport, dport = struct.unpack(">HH", pkt[l4:l4 + 4])
        if port not in (sport, dport):
            continue
        doff = (pkt[l4 + 12] >> 4) * 4
        payload = pkt[l4 + doff:14 + total]
        from_client = dport == port
        if from_client:
            ex.client_ip, ex.server_ip = src, dst
        if payload:
            ex.payloads.append((frame, from_client, payload))
    return ex


def rewrite_ip(payload, old, new, pingpong=False):
    """payload with the IPv4-mapped GID of old (4 bytes) replaced by new's, in the text form
    the tool writes: "0a:01:10:3e" for perftest, "0a01103e" for ibv_rc_pingpong."""
    sep = "" if pingpong else ":"
    a = sep.join("%02x" % b for b in old).encode()
    b = sep.join("%02x" % b for b in new).encode()
    assert a in payload or len(payload) not in (52, 108), "no GID of %s in %r" % (old, payload)
    return payload.replace(a, b)
