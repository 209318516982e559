#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_opcodes.py OUT.pcap [--seed N] : one RoCEv2 frame per BTH opcode, twice, for
tests/captures/opcodes/.

Frames 1-256 carry opcodes 0x00 to 0xff in order, each with the extended headers its opcode
has (ibframes.opcode_layout: RC, UC, RD, UD, CNP and XRC), 4 payload bytes where the opcode
carries a payload, and 8 bytes after the BTH where the opcode is reserved. Frames 257-512 are
the same opcodes with 4 bytes more before the ICRC, counted by IPv4 and UDP: a Read Request,
an ACK or an Atomic with bytes it should not have. Every ICRC is correct; the AETHs cycle
through ACK, RNR NAK, NAK and a reserved syndrome; QPs are never 0 or 1 (MADs).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibframes as ib  # noqa: E402

PAYLOAD = 4         # bytes of payload where the opcode has one
RESERVED_BODY = 8   # bytes after the BTH of a reserved opcode
EXTRA = 4           # bytes too many, in the second half
# ACK (credits 5), RNR NAK (timer 14), NAK (PSN sequence error), NAK (remote access error)
AETH_SYNDROMES = [0x05, 0x2E, 0x60, 0x62]


def transport(g, opcode, extra):
    """BTH, extended headers, payload and `extra` bytes (no ICRC)."""
    layout = ib.opcode_layout(opcode)
    hdrs, has_payload = layout if layout is not None else (0, False)
    r = g.r
    becn = 1 if opcode == 0x81 else 0
    bth = (bytes([opcode, 0x00]) + b"\xff\xff" + bytes([becn << 6]) +
           g.qpn().to_bytes(3, "big") + bytes([0x80 if opcode % 3 == 0 else 0]) +
           r.getrandbits(24).to_bytes(3, "big"))
    ext = b""
    for bit in ib.HDR_ORDER:
        if not hdrs & bit:
            continue
        if bit == ib.AETH:
            ext += bytes([AETH_SYNDROMES[opcode % len(AETH_SYNDROMES)]]) + \
                r.getrandbits(24).to_bytes(3, "big")
        else:
            ext += g.ext_header(bit)
    body = PAYLOAD if has_payload else RESERVED_BODY if layout is None else 0
    return bth + ext + g.rbytes(body + extra)


def frame(g, opcode, extra):
    body = transport(g, opcode, extra)
    udp = g.udp(len(body) + 4)
    l3 = g.ipv4_header(len(udp) + len(body) + 4, ecn=0)
    crc = ib.icrc("ipv4", l3, udp, body)
    return ib.unicast(g.ethernet(ib.ETH_P_IPV4, l3 + udp + body + crc, 0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=256)
    args = ap.parse_args()
    g = ib.Gen(args.seed)
    w = ib.PcapWriter(args.out, 1)
    for extra in (0, EXTRA):
        for opcode in range(256):
            w.write(frame(g, opcode, extra))
    w.close()


if __name__ == "__main__":
    main()
