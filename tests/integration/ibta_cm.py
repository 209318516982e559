# SPDX-License-Identifier: GPL-2.0-or-later
"""IBTA's layout (Vol 1, 12.6, 12.8, 12.11) of the CM messages tshark 4.0 leaves undecoded
(MRA, LAP, APR, SIDR_REQ, SIDR_REP), and of the IP CM private data (Annex A11.6) that
rdma_cm puts in a SIDR_REQ to an IP CM service ID, written apart from
dissectors/ib/ib_cm_fields.c so that a test can check roceshark.cm.* against the message
bytes tshark gives."""
import ipaddress


def _u(off, width, mask=0, kind="x"):
    """A field: its offset from the message's first byte (after the MAD header), its width
    in bytes, its mask, and how -T fields prints it: "x" hex of the field's type, "d"
    decimal, "b" bytes, "6" an IPv6 address, "4" an IPv4 one."""
    return (off, width, mask, kind)


LAYOUTS = {
    0x11: {"mra.localcommid": _u(0, 4), "mra.remotecommid": _u(4, 4),
           "mra.msgmraed": _u(8, 1, 0xc0), "mra.svctimeout": _u(9, 1, 0xf8),
           "mra.private": _u(10, 222, kind="b")},
    0x17: {"sidr_req.requestid": _u(0, 4), "sidr_req.pkey": _u(4, 2),
           "sidr_req.serviceid": _u(8, 8), "sidr_req.private": _u(16, 216, kind="b")},
    0x18: {"sidr_rep.requestid": _u(0, 4), "sidr_rep.status": _u(4, 1),
           "sidr_rep.addinfolen": _u(5, 1), "sidr_rep.qpn": _u(8, 3),
           "sidr_rep.serviceid": _u(12, 8), "sidr_rep.qkey": _u(20, 4),
           "sidr_rep.addinfo": _u(24, 72, kind="b"), "sidr_rep.private": _u(96, 136, kind="b")},
    0x19: {"lap.localcommid": _u(0, 4), "lap.remotecommid": _u(4, 4),
           "lap.remoteqpneecn": _u(12, 3), "lap.remoteresptout": _u(15, 1, 0xf8),
           "lap.alt_locallid": _u(20, 2, kind="d"), "lap.alt_remotelid": _u(22, 2, kind="d"),
           "lap.alt_localgid": _u(24, 16, kind="6"), "lap.alt_remotegid": _u(40, 16, kind="6"),
           "lap.alt_flowlabel": _u(56, 3, 0xfffff0), "lap.alt_tfcclass": _u(59, 1),
           "lap.alt_hoplim": _u(60, 1), "lap.alt_pktrate": _u(61, 1, 0x3f),
           "lap.alt_sl": _u(62, 1, 0xf0), "lap.alt_subnetlocal": _u(62, 1, 0x08),
           "lap.alt_localacktout": _u(63, 1, 0xf8), "lap.private": _u(64, 168, kind="b")},
    0x1a: {"apr.localcommid": _u(0, 4), "apr.remotecommid": _u(4, 4),
           "apr.addinfolen": _u(8, 1), "apr.status": _u(9, 1),
           "apr.addinfo": _u(12, 72, kind="b"), "apr.private": _u(84, 148, kind="b")},
}
# A11.2: the RDMA IP CM service IDs are 0x0000000001 followed by the IP protocol and port.
IP_CM_SID_MASK, IP_CM_SID = 0xffffffffff000000, 0x0000000001000000
# A11.6: the IP addressing header at the head of the private data: major and minor version,
# IP version and 4 reserved bits, source port, source and destination addresses (16 bytes
# each, an IPv4 one in the last four), then the consumer's private data.
SIDR_IP_CM = {"sidr_req.ip_cm": _u(16, 216, kind="b"),
              "sidr_req.ip_cm.majv": _u(16, 1, 0xf0), "sidr_req.ip_cm.minv": _u(16, 1, 0x0f),
              "sidr_req.ip_cm.ipv": _u(17, 1, 0xf0), "sidr_req.ip_cm.reserved": _u(17, 1, 0x0f),
              "sidr_req.ip_cm.sport": _u(18, 2),
              "sidr_req.ip_cm.sip6": _u(20, 16, kind="6"),
              "sidr_req.ip_cm.sip4": _u(32, 4, kind="4"),
              "sidr_req.ip_cm.dip6": _u(36, 16, kind="6"),
              "sidr_req.ip_cm.dip4": _u(48, 4, kind="4"),
              "sidr_req.ip_cm.private": _u(52, 180, kind="b")}
FIELDS = sorted("roceshark.cm." + k for fields in list(LAYOUTS.values()) + [SIDR_IP_CM]
                for k in fields)


def _layout(attr, data):
    """The fields of the message data (bytes) of attribute attr: a SIDR_REQ to an IP CM
    service ID has the IP CM header where others have raw private data."""
    layout = dict(LAYOUTS.get(attr, {}))
    if attr == 0x17 and int.from_bytes(data[8:16], "big") & IP_CM_SID_MASK == IP_CM_SID:
        del layout["sidr_req.private"]
        v4 = data[17] >> 4 == 4
        layout.update((k, v) for k, v in SIDR_IP_CM.items()
                      if not k.endswith("6" if v4 else "4"))
    return layout


def expected(attr, data, field):
    """What -T fields prints for field (roceshark.cm.*) of the message data (bytes) of
    attribute attr: "" when that message has no such field."""
    spec = _layout(attr, data).get(field[len("roceshark.cm."):])
    if spec is None:
        return ""
    return value(data, *spec)


def value(data, off, width, mask=0, kind="x"):
    """What -T fields prints for a field of data (bytes) laid out as _u() says."""
    raw = data[off:off + width]
    if kind == "b":
        return raw.hex()
    if kind == "6":
        return str(ipaddress.IPv6Address(raw))
    if kind == "4":
        return str(ipaddress.IPv4Address(raw))
    v = int.from_bytes(raw, "big")
    if mask:
        v = (v & mask) >> ((mask & -mask).bit_length() - 1)
    return str(v) if kind == "d" else "0x%0*x" % (2 * width, v)


# The 32-bit word of a REQ path's flow label (20 bits), reserved (6) and packet rate (6),
# which tshark 4.0 reads from too few bytes (README.md, "Where roceshark and Wireshark
# differ"): the word's offset in the message and each field's mask.
REQ_PATH_WORDS = {"prim": 88, "alt": 132}
REQ_PATH_MASKS = {"flowlabel": 0xfffff000, "reserved0": 0xfc0, "pktrate": 0x3f}


def req_path_field(field):
    """True for a REQ path field roceshark reads as IBTA lays it out, apart from tshark."""
    path, _, name = field[len("infiniband.cm.req."):].partition("_")
    return (field.startswith("infiniband.cm.req.") and path in REQ_PATH_WORDS
            and name in REQ_PATH_MASKS)


def req_path(data, field):
    """What -T fields prints for that field of the REQ message data (bytes)."""
    path, _, name = field[len("infiniband.cm.req."):].partition("_")
    off, mask = REQ_PATH_WORDS[path], REQ_PATH_MASKS[name]
    v = int.from_bytes(data[off:off + 4], "big") & mask
    return "0x%08x" % (v >> ((mask & -mask).bit_length() - 1))
