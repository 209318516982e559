# SPDX-License-Identifier: GPL-2.0-or-later
"""ibframes - build InfiniBand, RoCEv1 and RoCEv2 frames byte by byte, and know the truth.

An independent implementation of the wire formats, written from the IBTA specification
(Vol 1 chapters 7 and 9, Annexes A16/A17) for tests: it shares no code with the C decoder.
Every frame it builds comes with a `truth` dict saying what a correct decoder must find.
The ICRC of IPv4 RoCEv2 frames is cross-checked against scapy.contrib.roce when scapy is
importable.
"""
import random
import struct
import zlib

ROCEV2_PORT = 4791
ETH_P_IPV4, ETH_P_IPV6, ETH_P_ROCE = 0x0800, 0x86DD, 0x8915
ETH_P_8021Q, ETH_P_8021AD = 0x8100, 0x88A8

# Header bits, in wire order after the BTH.
RDETH, DETH, XRCETH, RETH, ATOMICETH, AETH, ATOMICACKETH, IMMDT, IETH, CNP = (
    1 << i for i in range(10))
HDR_LEN = {RDETH: 4, DETH: 8, XRCETH: 4, RETH: 16, ATOMICETH: 28, AETH: 4,
           ATOMICACKETH: 8, IMMDT: 4, IETH: 4, CNP: 16}
HDR_ORDER = [RDETH, DETH, XRCETH, RETH, ATOMICETH, AETH, ATOMICACKETH, IMMDT, IETH, CNP]

# Low five opcode bits: (headers, carries payload, is request).
_OPS = {
    0x00: (0, True, True), 0x01: (0, True, True), 0x02: (0, True, True),
    0x03: (IMMDT, True, True), 0x04: (0, True, True), 0x05: (IMMDT, True, True),
    0x06: (RETH, True, True), 0x07: (0, True, True), 0x08: (0, True, True),
    0x09: (IMMDT, True, True), 0x0A: (RETH, True, True), 0x0B: (RETH | IMMDT, True, True),
    0x0C: (RETH, False, True), 0x0D: (AETH, True, False), 0x0E: (0, True, False),
    0x0F: (AETH, True, False), 0x10: (AETH, True, False), 0x11: (AETH, False, False),
    0x12: (AETH | ATOMICACKETH, False, False), 0x13: (ATOMICETH, False, True),
    0x14: (ATOMICETH, False, True), 0x15: (0, False, True),
    0x16: (IETH, True, True), 0x17: (IETH, True, True),
}


def opcode_layout(opcode):
    """(headers, has_payload) of a defined opcode, or None for reserved ones."""
    svc, op = opcode >> 5, opcode & 0x1F
    if opcode == 0x81:
        return CNP, False
    defined = {0: op <= 0x17 and op != 0x15, 1: op <= 0x0B, 2: op <= 0x15,
               3: op in (0x04, 0x05), 5: op <= 0x17 and op != 0x15}.get(svc, False)
    if not defined:
        return None
    hdrs, payload, request = _OPS[op]
    if svc == 2:
        hdrs |= (RDETH | DETH) if request else RDETH
    elif svc == 3:
        hdrs |= DETH
    elif svc == 5 and request:
        hdrs |= XRCETH
    return hdrs, payload


def defined_opcodes():
    return [op for op in range(256) if opcode_layout(op) is not None]


def ib_crc32(data, crc=0):
    return zlib.crc32(data, crc) & 0xFFFFFFFF


def vcrc16(data):
    """IBTA 7.8.2: CRC-16, polynomial 0x100B, reflected, init and final XOR 0xFFFF."""
    crc = 0xFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xD008 if crc & 1 else crc >> 1
    return crc ^ 0xFFFF


def _masked_grh(grh):
    g = bytearray(grh)
    g[0] |= 0x0F
    g[1] = g[2] = g[3] = 0xFF
    g[7] = 0xFF
    return bytes(g)


def _masked_ipv4(ip):
    h = bytearray(ip)
    h[1] = 0xFF
    h[8] = 0xFF
    h[10] = h[11] = 0xFF
    return bytes(h)


def _masked_bth(transport):
    t = bytearray(transport)
    t[4] = 0xFF
    return bytes(t)


def icrc(kind, l3, udp, transport, lrh=None):
    """ICRC over the masked pseudo packet. `transport` runs from the BTH up to (not
    including) the ICRC. Returns the 4 bytes as they go on the wire (LSB first)."""
    if kind == "ib-local":
        m = bytearray(lrh)
        m[0] |= 0xF0
        data = bytes(m) + _masked_bth(transport)
    else:
        data = b"\xff" * 8
        if kind == "ipv4":
            data += _masked_ipv4(l3) + udp[:6] + b"\xff\xff"
        elif kind == "ipv6":
            data += _masked_grh(l3) + udp[:6] + b"\xff\xff"
        else:  # a GRH: RoCEv1 or native IB with LNH 3
            data += _masked_grh(l3)
        data += _masked_bth(transport)
    return struct.pack("<I", ib_crc32(data))


def scapy_ipv4_icrc(frame_l3_start):
    """scapy.contrib.roce's ICRC for an IPv4 RoCEv2 packet (bytes from the IP header to
    the end, ICRC included), or None when scapy is unavailable."""
    try:
        from scapy.contrib.roce import BTH
        from scapy.layers.inet import IP
    except ImportError:
        return None
    pkt = IP(frame_l3_start)
    bth = pkt[BTH]
    return bth.compute_icrc(None)


class Gen:
    """Random but valid frames; every builder returns (frame_bytes, truth)."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.scapy_checked = 0      # IPv4 ICRCs confirmed by scapy.contrib.roce

    def rbytes(self, n):
        return bytes(self.r.getrandbits(8) for _ in range(n))

    def qpn(self):
        # QPs 0 and 1 carry MADs, which Wireshark parses as such: keep them out.
        return self.r.randrange(2, 1 << 24)

    def ext_header(self, bit):
        r = self.r
        if bit == RDETH:
            return b"\x00" + r.getrandbits(24).to_bytes(3, "big")
        if bit == DETH:
            return r.getrandbits(32).to_bytes(4, "big") + b"\x00" + self.qpn().to_bytes(3, "big")
        if bit == XRCETH:
            return b"\x00" + r.getrandbits(24).to_bytes(3, "big")
        if bit == RETH:
            return (r.getrandbits(64).to_bytes(8, "big") + r.getrandbits(32).to_bytes(4, "big")
                    + r.randrange(0, 1 << 20).to_bytes(4, "big"))
        if bit == ATOMICETH:
            return (r.getrandbits(64).to_bytes(8, "big") + r.getrandbits(32).to_bytes(4, "big")
                    + r.getrandbits(64).to_bytes(8, "big") + r.getrandbits(64).to_bytes(8, "big"))
        if bit == AETH:
            kind = r.choice([0, 0, 1, 3, 3, 2])
            low = r.randrange(0, 5) if kind == 3 and r.random() < 0.8 else r.randrange(0, 32)
            return bytes([(kind << 5) | low]) + r.getrandbits(24).to_bytes(3, "big")
        if bit == ATOMICACKETH:
            return r.getrandbits(64).to_bytes(8, "big")
        if bit in (IMMDT, IETH):
            return r.getrandbits(32).to_bytes(4, "big")
        if bit == CNP:
            return bytes(16)
        raise ValueError(bit)

    def transport(self, opcode, payload_len=None):
        """BTH, extended headers, payload and pad (no ICRC), and what it holds."""
        hdrs, has_payload = opcode_layout(opcode)
        r = self.r
        if payload_len is None:
            payload_len = r.choice([0, 1, 2, 3, 4, 5, 17, 64, 255, 256, 1021]) if has_payload else 0
        pad = (4 - payload_len % 4) % 4
        b1 = (r.getrandbits(1) << 7) | (r.getrandbits(1) << 6) | (pad << 4)  # SE, M, pad, TVer 0
        becn = 1 if opcode == 0x81 else r.getrandbits(1)
        b4 = (r.getrandbits(1) << 7) | (becn << 6)
        bth = (bytes([opcode, b1]) + r.choice([0xFFFF, 0x8001, 0x7FFF, 0x1234]).to_bytes(2, "big")
               + bytes([b4]) + self.qpn().to_bytes(3, "big")
               + bytes([r.getrandbits(1) << 7]) + r.getrandbits(24).to_bytes(3, "big"))
        ext = b"".join(self.ext_header(bit) for bit in HDR_ORDER if hdrs & bit)
        payload = self.rbytes(payload_len)
        body = bth + ext + payload + self.rbytes(pad)
        return body, {"opcode": opcode, "payload_len": payload_len, "pad": pad}

    def maybe_corrupt(self, crc, truth, rate):
        if self.r.random() < rate:
            bad = bytearray(crc)
            bad[self.r.randrange(4)] ^= 1 << self.r.randrange(8)
            truth["icrc"] = "bad"
            return bytes(bad)
        truth["icrc"] = "good"
        return crc

    # --- encapsulations ---

    def ipv4_header(self, payload_len, ecn=None):
        r = self.r
        tos = (r.randrange(64) << 2) | (r.randrange(4) if ecn is None else ecn)
        h = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + payload_len, r.getrandbits(16),
                        0x4000, r.randrange(1, 256), 17, 0,
                        bytes([10, 0, r.randrange(256), r.randrange(1, 255)]),
                        bytes([10, 0, r.randrange(256), r.randrange(1, 255)]))
        csum = ~_ones_sum(h) & 0xFFFF
        return h[:10] + struct.pack("!H", csum) + h[12:]

    def ipv6_header(self, payload_len, nxt=17):
        r = self.r
        first = (6 << 28) | (r.randrange(256) << 20) | r.getrandbits(20)
        src = b"\xfe\x80" + bytes(6) + self.rbytes(8)
        dst = b"\xfe\x80" + bytes(6) + self.rbytes(8)
        return struct.pack("!IHBB", first, payload_len, nxt, r.randrange(1, 256)) + src + dst

    def grh(self, payload_len):
        return self.ipv6_header(payload_len, nxt=0x1B)

    def udp(self, payload_len, dport=ROCEV2_PORT):
        # Source ports above 4791, so Wireshark's lower-port-first rule picks RoCE.
        return struct.pack("!HHHH", self.r.randrange(49152, 65536), dport, 8 + payload_len,
                           self.r.getrandbits(16))

    def rocev2(self, opcode, ipv6=False, bad_rate=0.1, dport=ROCEV2_PORT, payload_len=None):
        body, truth = self.transport(opcode, payload_len)
        udp = self.udp(len(body) + 4, dport)
        if ipv6:
            l3 = self.ipv6_header(len(udp) + len(body) + 4)
            crc = icrc("ipv6", l3, udp, body)
        else:
            l3 = self.ipv4_header(len(udp) + len(body) + 4)
            crc = icrc("ipv4", l3, udp, body)
            if dport == ROCEV2_PORT:
                scapy_crc = scapy_ipv4_icrc(l3 + udp + body + crc)
                if scapy_crc is not None and scapy_crc != crc:
                    raise AssertionError("ICRC disagrees with scapy.contrib.roce")
                self.scapy_checked += scapy_crc is not None
        crc = self.maybe_corrupt(crc, truth, bad_rate)
        truth["encap"] = "rocev2"
        return l3 + udp + body + crc, (ETH_P_IPV6 if ipv6 else ETH_P_IPV4), truth

    def rocev1(self, opcode, bad_rate=0.1):
        body, truth = self.transport(opcode)
        grh = self.grh(len(body) + 4)
        crc = self.maybe_corrupt(icrc("grh", grh, None, body), truth, bad_rate)
        truth["encap"] = "rocev1"
        return grh + body + crc, ETH_P_ROCE, truth

    def native_ib(self, opcode, with_grh, bad_rate=0.1):
        r = self.r
        body, truth = self.transport(opcode)
        vl = r.randrange(0, 15)
        lnh = 3 if with_grh else 2
        length = 8 + (40 if with_grh else 0) + len(body) + 4
        lrh = struct.pack("!BBHHH", (vl << 4) | 0, (r.randrange(16) << 4) | lnh,
                          r.randrange(1, 0xC000), length // 4, r.randrange(1, 0xC000))
        if with_grh:
            grh = self.grh(len(body) + 4)
            crc = icrc("grh", grh, None, body)
        else:
            grh = b""
            crc = icrc("ib-local", None, None, body, lrh=lrh)
        crc = self.maybe_corrupt(crc, truth, bad_rate)
        packet = lrh + grh + body + crc
        truth["encap"] = "ib"
        truth["vcrc"] = "good"
        return packet + struct.pack("<H", vcrc16(packet)), truth

    def ethernet(self, ethertype, l3, vlan):
        """vlan: 0 none, 1 802.1Q, 2 802.1ad outer + 802.1Q inner."""
        r = self.r
        hdr = self.rbytes(6) + self.rbytes(6)
        tags = b""
        if vlan >= 2:
            tags += struct.pack("!HH", ETH_P_8021AD, r.randrange(1, 4095))
        if vlan >= 1:
            tags += struct.pack("!HH", ETH_P_8021Q, (r.randrange(8) << 13) | r.randrange(1, 4095))
        frame = hdr + tags + struct.pack("!H", ethertype) + l3
        if len(frame) < 60:
            frame += bytes(60 - len(frame))
        return frame


def unicast(frame, dst=True):
    """frame with its source MAC's group bit clear, and its destination's unless dst is
    False: addresses a NIC sends from, and to one peer."""
    head = bytes([frame[0] & 0xFE]) if dst else frame[:1]
    return head + frame[1:6] + bytes([frame[6] & 0xFE]) + frame[7:]


def _ones_sum(data):
    s = 0
    for i in range(0, len(data), 2):
        s += (data[i] << 8) | (data[i + 1] if i + 1 < len(data) else 0)
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


class PcapWriter:
    """Classic pcap, microsecond timestamps."""

    def __init__(self, path, linktype, snaplen=262144):
        self.f = open(path, "wb")
        self.f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, linktype))
        self.t = 1700000000.0

    def write(self, frame, orig_len=None):
        self.t += 0.000137
        sec = int(self.t)
        usec = int(round((self.t - sec) * 1e6)) % 1000000
        self.f.write(struct.pack("<IIII", sec, usec, len(frame),
                                 len(frame) if orig_len is None else orig_len))
        self.f.write(frame)

    def close(self):
        self.f.close()


def write_erf_pcap(path, packets, t0=1700000000):
    """Native InfiniBand packets as ERF type 21 records of a DLT_ERF pcap, 1/4096 s apart."""
    w = PcapWriter(path, 197)
    for n, p in enumerate(packets):
        w.write(erf_record(p, ts=(t0 << 32) + n * 0x100000))
    w.close()


def erf_record(packet, erf_type=21, ts=0, pad=0):
    """An ERF record as DLT_ERF files hold it (type 21: InfiniBand), its wire length the
    packet's without the pad bytes it starts with (2 before Ethernet)."""
    rlen = 16 + len(packet)
    return (struct.pack("<Q", ts) +
            struct.pack("!BBHHH", erf_type, 0x04, rlen, 0, len(packet) - pad) + packet)
