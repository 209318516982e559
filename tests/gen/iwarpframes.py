# SPDX-License-Identifier: GPL-2.0-or-later
"""iwarpframes - build iWARP connections (MPA over TCP, DDP, RDMAP) byte by byte, with truth.

An independent implementation for tests, written from RFC 5044 (MPA), RFC 6581 (MPA revision 2,
enhanced connection setup), RFC 5041 (DDP), RFC 5040 (RDMAP) and RFC 7306 (RDMAP extensions):
it shares no code with the C decoder. A Connection writes both byte streams of one TCP
connection (the MPA exchange, then FPDUs with markers and CRCs as negotiated), a segmenter cuts
them into TCP segments at chosen or random boundaries, and every FPDU carries a `truth` dict
saying what a correct decoder must find in the frame where the FPDU ends.

Conventions this follows, each checked against an implementation that interoperates with
iWARP hardware (Linux siw) where one exists:
  - the MPA CRC is CRC-32C over the whole FPDU (markers inside it included), sent in the
    byte order iSCSI uses, which reads as a little-endian 32-bit number;
  - markers stand every 512 octets of TCP sequence space counted from the first octet of the
    first FPDU after the exchange; a marker that falls where an FPDU starts precedes its
    ULPDU_Length field and points at it with FPDUPTR 0; any later marker of the FPDU holds
    its distance back to the ULPDU_Length field;
  - M in a Request asks the responder to send markers, M in a Reply asks the initiator; CRCs
    are used both ways when either frame has C set (the Reply must echo a Request's C).
"""
import struct

try:
    import crcmod.predefined
    _crc32c = crcmod.predefined.mkCrcFun("crc-32c")
except ImportError:     # the table version: slower, same values
    _TABLE = []
    for _i in range(256):
        _c = _i
        for _ in range(8):
            _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
        _TABLE.append(_c)

    def _crc32c(data):
        c = 0xFFFFFFFF
        for b in data:
            c = _TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
        return c ^ 0xFFFFFFFF

MPA_REQ_KEY = b"MPA ID Req Frame"
MPA_REP_KEY = b"MPA ID Rep Frame"
MARKER_INTERVAL = 512

# RDMAP opcodes (RFC 5040 4.1, RFC 7306 7).
WRITE, READ_REQ, READ_RESP, SEND, SEND_INV, SEND_SE, SEND_SE_INV, TERMINATE = range(8)
IMM_DATA, IMM_DATA_SE, ATOMIC_REQ, ATOMIC_RESP = 8, 9, 10, 11
TAGGED_OPCODES = (WRITE, READ_RESP)
OPCODE_NAMES = {WRITE: "Write", READ_REQ: "Read Request", READ_RESP: "Read Response",
                SEND: "Send", SEND_INV: "Send with Invalidate", SEND_SE: "Send with SE",
                SEND_SE_INV: "Send with SE and Invalidate", TERMINATE: "Terminate",
                IMM_DATA: "Immediate Data", IMM_DATA_SE: "Immediate Data with SE",
                ATOMIC_REQ: "Atomic Request", ATOMIC_RESP: "Atomic Response"}
# Queue numbers of untagged messages (RFC 5040 5.1, RFC 7306 8).
QN_SEND, QN_READ_REQ, QN_TERMINATE, QN_ATOMIC = 0, 1, 2, 3


def crc32c(data):
    return _crc32c(bytes(data))


def ones_sum(data):
    if len(data) % 2:
        data = bytes(data) + b"\x00"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def mpa_frame(reply, markers, crc, reject=False, rev=1, pd=b"", enhanced=False, res=0):
    """An MPA Request or Reply frame (RFC 5044 7.1, RFC 6581 4)."""
    flags = (0x80 if markers else 0) | (0x40 if crc else 0) | (0x20 if reject else 0) | \
        (0x10 if enhanced else 0) | res
    return (MPA_REP_KEY if reply else MPA_REQ_KEY) + struct.pack("!BBH", flags, rev, len(pd)) + pd


def mpa_v2_data(ird, ord_, p2p=False, rtr_send=False, rtr_write=False, rtr_read=False):
    """The first four octets of revision 2 private data: IRD and ORD with their control bits."""
    return struct.pack("!HH", (0x8000 if p2p else 0) | (0x4000 if rtr_send else 0) | ird,
                       (0x8000 if rtr_write else 0) | (0x4000 if rtr_read else 0) | ord_)


def ddp_tagged(opcode, last, stag, to, payload=b""):
    """DDP tagged header (RFC 5041 4.2) with the RDMAP control byte (RFC 5040 4.2)."""
    return struct.pack("!BBIQ", 0x01 | (0x80 | (0x40 if last else 0)), 0x40 | opcode, stag, to) \
        + payload


def ddp_untagged(opcode, last, qn, msn, mo, rsvdulp=0, payload=b""):
    """DDP untagged header (RFC 5041 4.3); rsvdulp is RDMAP's Invalidate STag or zero."""
    return struct.pack("!BBIIII", 0x01 | (0x40 if last else 0), 0x40 | opcode, rsvdulp, qn, msn,
                       mo) + payload


def read_request_header(sink_stag, sink_to, size, src_stag, src_to):
    return struct.pack("!IQIIQ", sink_stag, sink_to, size, src_stag, src_to)


def terminate_header(layer, etype, code, m=False, d=False, r=False, seg_len=0, ddp_hdr=b"",
                     rdma_hdr=b""):
    """RDMAP Terminate (RFC 5040 4.8): control, then what the D and R bits say follows."""
    hdrct = (0x80 if m else 0) | (0x40 if d else 0) | (0x20 if r else 0)
    out = struct.pack("!BBBB", (layer << 4) | etype, code, hdrct, 0)
    if d:
        out += struct.pack("!H", seg_len) + ddp_hdr
    if r:
        out += rdma_hdr
    return out


def atomic_request_header(op, req_id, stag, to, data, data_mask, compare, compare_mask):
    """RFC 7306 5.2: AtomicOp (0 FetchAdd, 2 CmpSwap), then the operands and their masks."""
    return struct.pack("!IIIQQQQQ", op & 0xF, req_id, stag, to, data, data_mask, compare,
                       compare_mask)


def atomic_response_header(req_id, orig):
    return struct.pack("!IQ", req_id, orig)


class Direction:
    """One byte stream of a connection: its sequence space, markers, CRC, and what was written."""

    def __init__(self, isn):
        self.isn = isn
        self.data = bytearray()       # everything after the SYN, in sequence order
        self.markers = False
        self.crc = False
        self.marker_base = None       # sequence number of the first FPDU
        self.pdus = []                # (start, end, truth) in sequence order

    @property
    def next_seq(self):
        return (self.isn + 1 + len(self.data)) & 0xFFFFFFFF

    def offset(self):
        return len(self.data)

    def add_raw(self, raw, truth):
        start = self.offset()
        self.data += raw
        self.pdus.append((start, self.offset(), truth))

    def _frame_body(self, start, body):
        """body with markers inserted where they fall, and the FPDUPTR of each."""
        out = bytearray()
        markers = []
        hdr_at = None
        i = 0
        while True:
            pos = start + len(out)
            if self.markers and (pos - self.marker_base) % MARKER_INTERVAL == 0:
                ptr = 0 if hdr_at is None else pos - hdr_at
                out += struct.pack("!HH", 0, ptr)
                markers.append(ptr)
            if i == len(body):
                return out, markers
            if hdr_at is None:
                hdr_at = start + len(out)
            room = len(body)
            if self.markers:
                room = MARKER_INTERVAL - (start + len(out) - self.marker_base) % MARKER_INTERVAL
            chunk = body[i:i + room]
            out += chunk
            i += len(chunk)

    def add_fpdu(self, ulpdu, truth, corrupt=None):
        """Frames ulpdu as an FPDU: length, pad, markers, CRC. corrupt: None, "data" (the last
        octet of the ULPDU flips after the CRC was computed; give it a payload) or "crc" (a bit
        of the CRC flips)."""
        start = self.offset()
        if self.markers and self.marker_base is None:
            self.marker_base = start
        pad = (4 - (len(ulpdu) + 2) % 4) % 4
        body = struct.pack("!H", len(ulpdu)) + ulpdu + bytes(pad)
        out, markers = self._frame_body(start, body)
        crc = crc32c(out) if self.crc else 0
        crc_bytes = bytearray(struct.pack("<I", crc))
        status = 1 if self.crc else 3
        if corrupt == "crc":
            crc_bytes[1] ^= 0x10
            status = 0 if self.crc else 3
        elif corrupt == "data":
            bad = bytearray(body)
            bad[1 + len(ulpdu)] ^= 0x01
            out, markers = self._frame_body(start, bytes(bad))
            status = 0 if self.crc else 3
        out += crc_bytes
        truth = dict(truth, ulpdu_len=len(ulpdu), pad=pad, markers=markers, crc_status=status,
                     wire_crc=struct.unpack("!I", bytes(crc_bytes))[0])
        self.data += out
        self.pdus.append((start, self.offset(), truth))
        return truth


class Connection:
    """Both streams of one TCP connection between two endpoints, and frames built from them."""

    def __init__(self, ini, res, isn_i=0x10000000, isn_r=0x20000000):
        # ini/res: (mac, ip, port)
        self.ep = [ini, res]
        self.dirs = [Direction(isn_i), Direction(isn_r)]
        self.frames = []              # (dir, kind, seq, payload) in capture order
        self.ip_id = [0x1000, 0x2000]

    # --- the MPA exchange ---

    def exchange(self, req_m, req_c, rep_m, rep_c, rev=1, pd_req=b"", pd_rep=b"",
                 reject=False, enhanced=None, req_res=0):
        enhanced = rev == 2 if enhanced is None else enhanced
        i, r = self.dirs
        req = mpa_frame(False, req_m, req_c, rev=rev, pd=pd_req, enhanced=enhanced, res=req_res)
        rep = mpa_frame(True, rep_m, rep_c or req_c, reject=reject, rev=rev, pd=pd_rep,
                        enhanced=enhanced)
        i.add_raw(req, {"kind": "req", "markers": req_m, "crc": req_c, "rev": rev,
                        "pd": pd_req.hex()})
        r.add_raw(rep, {"kind": "rep", "markers": rep_m, "crc": rep_c or req_c, "rev": rev,
                        "pd": pd_rep.hex(), "reject": reject})
        if not reject:
            r.markers = bool(req_m)        # the initiator asked the responder for markers
            i.markers = bool(rep_m)
            i.crc = r.crc = bool(req_c or rep_c)
        return req, rep

    # --- frames ---

    def frame(self, d, payload=b"", seq=None, flags=0x18, ack=None):
        """Ethernet/IPv4/TCP frame from direction d (0 initiator, 1 responder)."""
        src, dst = self.ep[d], self.ep[1 - d]
        dd, od = self.dirs[d], self.dirs[1 - d]
        if seq is None:
            seq = dd.next_seq
        if ack is None:
            ack = od.next_seq
        tcp = struct.pack("!HHIIBBHHH", src[2], dst[2], seq & 0xFFFFFFFF, ack & 0xFFFFFFFF,
                          5 << 4, flags, 65000, 0, 0)
        self.ip_id[d] = (self.ip_id[d] + 1) & 0xFFFF
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), self.ip_id[d],
                         0x4000, 64, 6, 0, src[1], dst[1])
        ip = ip[:10] + struct.pack("!H", ~ones_sum(ip) & 0xFFFF) + ip[12:]
        pseudo = src[1] + dst[1] + struct.pack("!BBH", 0, 6, len(tcp) + len(payload))
        csum = ~ones_sum(pseudo + tcp + payload) & 0xFFFF
        tcp = tcp[:16] + struct.pack("!H", csum) + tcp[18:]
        frame = dst[0] + src[0] + b"\x08\x00" + ip + tcp + payload
        if len(frame) < 60:
            frame += bytes(60 - len(frame))
        return frame

    def handshake(self):
        i, r = self.dirs
        out = [(0, self.frame(0, seq=i.isn, ack=0, flags=0x02)),
               (1, self.frame(1, seq=r.isn, ack=i.isn + 1, flags=0x12)),
               (0, self.frame(0, flags=0x10))]
        return out


def segment(d, start, end, cuts):
    """Payload slices [a, b) of direction d's stream between offsets start and end, cut at the
    given offsets (relative to start)."""
    points = [start] + sorted(start + c for c in cuts if 0 < c < end - start) + [end]
    return [(a, b) for a, b in zip(points, points[1:]) if b > a]
