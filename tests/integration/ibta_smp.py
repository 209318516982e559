# SPDX-License-Identifier: GPL-2.0-or-later
"""IBTA's layout (Vol 1, 14.2.5.1 and 14.2.5.12) of the SMP attribute parts tshark 4.0
reads otherwise, written apart from dissectors/ib/ib_smp.c so that test_mad.py can check
roceshark's values against the MAD bytes tshark gives (infiniband.mad.data, which starts
after the 24-byte common header):
  - trap 259's details: tshark reads DataValid and SWLIDADDR (16 bits each) as IPv6
    addresses, fails on the first and decodes nothing after it;
  - MulticastForwardingTable: 32 port masks, of which tshark reads 16."""
from ibta_cm import _u, value

MAD_HDR = 24
# Trap 259's details (Table 132), from the Notice's first byte (its details start at 10).
TRAP_259 = {"datavalid": _u(10, 2), "lidaddr1": _u(12, 2), "lidaddr2": _u(14, 2),
            "pkey": _u(16, 2), "sl": _u(18, 1, 0xf0), "qp1": _u(19, 3), "qp2": _u(23, 3),
            "gidaddr1": _u(26, 16, kind="6"), "gidaddr2": _u(42, 16, kind="6"),
            "swlidaddr": _u(58, 2), "portno": _u(60, 1)}
MFT = "infiniband.multicastforwardingtable.portmask"
SMP_CLASSES = (0x01, 0x81)
SA = 0x03
# Where the SA's records (by attribute) carry the Notice and the MulticastForwardingTable.
SA_AT = {(0x0002, 0x0002): 56, (0x0017, 0x001b): 64}


def attribute_at(mgmtclass, attr, smp_attr):
    """Where SMP attribute smp_attr starts in a MAD of that class and attribute, or None."""
    if mgmtclass in SMP_CLASSES:
        return 64 if attr == smp_attr else None
    return SA_AT.get((attr, smp_attr)) if mgmtclass == SA else None


def trap_259(mgmtclass, attr, data):
    """True for a Notice of trap 259."""
    at = attribute_at(mgmtclass, attr, 0x0002)
    return at is not None and data[at - MAD_HDR + 4:at - MAD_HDR + 6] == b"\x01\x03"


def expected(mgmtclass, attr, data, field):
    """IBTA's -T fields value of field where tshark's differs on purpose, or None where
    tshark's is the reference."""
    if trap_259(mgmtclass, attr, data):
        at = attribute_at(mgmtclass, attr, 0x0002) - MAD_HDR
        if field == "infiniband.notice.datadetails":
            return data[at + 10:at + 64].hex()
        if field.startswith("infiniband.trap."):
            spec = TRAP_259.get(field[len("infiniband.trap."):])
            return value(data[at:], *spec) if spec else ""
    if field == MFT:
        at = attribute_at(mgmtclass, attr, 0x001b)
        if at is not None:
            return ",".join(value(data, at - MAD_HDR + 2 * i, 2) for i in range(32))
    return None
