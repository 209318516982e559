#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_nvme_rdma.py OUT.pcap : NVMe over Fabrics on RDMA (RoCEv2, IPv4) as a Linux host
and target exchange it, for tests/captures/nvme/.

Two RDMA CM connections to the NVMe-oF port 4420 (Service ID 0x0000000001061144: the
RDMA IP CM's TCP port space, IBTA Annex A11), each a CM REQ / REP / RTU on QP 1 whose
private data follows the 36-byte IP CM header with the NVMe-oF RDMA CM Request (RECFMT 0,
QID, HRQSIZE, HSQSIZE, CNTLID) and Accept (RECFMT 0, CRQSIZE) (NVMe-oF 1.1, 7.3.2.1):
the admin queue (QID 0) and one I/O queue (QID 1). Then, as RC SENDs on those QPs:

- admin: Fabrics Connect (its 1024-byte data in the capsule, an offset SGL), response
  with the controller ID; Property Get of CAP (8 bytes) and its response; Identify
  Controller with a keyed SGL, the target's RDMA WRITE of the 4096 bytes, the response;
- I/O: Fabrics Connect (QID 1) and its response; a Read of 8 blocks (keyed SGL, the
  target's RDMA WRITE, the response); a Write of 8 blocks (keyed SGL with invalidate,
  the target's RDMA READ request, the host's READ RESPONSE ONLY, the response); a Read
  past the namespace's end answered with an error status (LBA Out of Range, DNR).

Every ICRC and IP checksum is correct; each SEND is acknowledged.
"""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ibframes as ib  # noqa: E402

HOST_MAC, TARGET_MAC = bytes.fromhex("02005e100001"), bytes.fromhex("02005e100002")
HOST_IP, TARGET_IP = bytes([192, 168, 50, 1]), bytes([192, 168, 50, 2])
NVME_PORT = 4420
SERVICE_ID = 0x0000000001060000 | NVME_PORT
CM_QKEY = 0x80010000
HOST_GUID, TARGET_GUID = 0x0002c90300001001, 0x0002c90300002002
SUBNQN = b"nqn.2014-08.org.nvmexpress:roceshark-target"
HOSTNQN = b"nqn.2014-08.org.nvmexpress:uuid:6f1c6b8e-3a43-4a55-9a7b-0d2f3c4e5a61"
HOSTID = bytes.fromhex("6f1c6b8e3a434a559a7b0d2f3c4e5a61")
CNTLID = 1
BLOCK = 512

# BTH opcodes (RC and UD).
SEND_ONLY, RDMA_WRITE_ONLY, RDMA_READ_REQUEST = 0x04, 0x0a, 0x0c
READ_RESPONSE_ONLY, ACKNOWLEDGE, UD_SEND_ONLY = 0x10, 0x11, 0x64
CM_REQ, CM_REP, CM_RTU = 0x0010, 0x0013, 0x0014


def ipv4(src, dst, payload_len, ident):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0x02, 20 + payload_len, ident, 0x4000, 64, 17, 0,
                    src, dst)
    csum = ~ib._ones_sum(h) & 0xFFFF
    return h[:10] + struct.pack("!H", csum) + h[12:]


class Wire:
    """The RoCEv2 frames between the host and the target, and their pcap."""

    def __init__(self, path):
        self.w = ib.PcapWriter(path, 1)
        self.ident = 0x100

    def send(self, from_host, bth_and_rest, sport):
        src, dst = (HOST_IP, TARGET_IP) if from_host else (TARGET_IP, HOST_IP)
        macs = (TARGET_MAC + HOST_MAC) if from_host else (HOST_MAC + TARGET_MAC)
        udp = struct.pack("!HHHH", sport, ib.ROCEV2_PORT, 8 + len(bth_and_rest) + 4, 0)
        self.ident += 1
        l3 = ipv4(src, dst, len(udp) + len(bth_and_rest) + 4, self.ident)
        crc = ib.icrc("ipv4", l3, udp, bth_and_rest)
        frame = macs + struct.pack("!H", ib.ETH_P_IPV4) + l3 + udp + bth_and_rest + crc
        if len(frame) < 60:
            frame += bytes(60 - len(frame))
        self.w.write(frame)

    def close(self):
        self.w.close()


def bth(opcode, dest_qp, psn, ack_req=False, pkey=0xffff):
    return struct.pack("!BBHII", opcode, 0, pkey, dest_qp & 0xffffff,
                       (0x80000000 if ack_req else 0) | (psn & 0xffffff))


def mad_cm(attr, tid, message):
    hdr = struct.pack("!BBBBHHQHHI", 1, 0x07, 2, 0x03, 0, 0, tid, attr, 0, 0)
    return hdr + message + bytes(232 - len(message))


def ip_cm_header(src, dst, sport):
    """RDMA IP CM private data header (IBTA Annex A11.6): version, IP version 4, the
    source port, the addresses IPv4-mapped in 16 bytes each."""
    return (struct.pack("!BBH", 0x00, 0x40, sport) + bytes(12) + src + bytes(12) + dst)


def cm_req(local_id, qpn, psn, qid, hrqsize, hsqsize, sport):
    priv = ip_cm_header(HOST_IP, TARGET_IP, sport) + struct.pack(
        "<HHHHH", 0, qid, hrqsize, hsqsize, 0xffff if qid == 0 else CNTLID) + bytes(22)
    gid = lambda ip: bytes(10) + b"\xff\xff" + ip  # noqa: E731
    m = struct.pack("!II", local_id, 0) + struct.pack("!Q", SERVICE_ID)
    m += struct.pack("!QII", HOST_GUID, 0, 0)
    m += struct.pack("!I", (qpn << 8) | 16)               # QPN, responder resources
    m += struct.pack("!I", 16)                            # EECN 0, initiator depth
    m += struct.pack("!I", (20 << 3) | 0 << 1 | 1)        # remote CM timeout, RC, E2E
    m += struct.pack("!I", (psn << 8) | (20 << 3) | 7)    # PSN, local CM timeout, retries
    m += struct.pack("!HBB", 0xffff, (3 << 4) | 7, 15 << 4)  # P_Key, MTU 1024, RNR 7; CM retries
    m += struct.pack("!HH", 0xffff, 0xffff) + gid(HOST_IP) + gid(TARGET_IP)
    m += struct.pack("!IBBBB", 0 << 12 | 3, 0, 64, 0, 18 << 3)
    m += bytes(44)                                        # no alternate path
    return m + priv + bytes(92 - len(priv))


def cm_rep(local_id, remote_id, qpn, psn, crqsize):
    priv = struct.pack("<HH", 0, crqsize) + bytes(28)
    m = struct.pack("!III", local_id, remote_id, 0)
    m += struct.pack("!III", qpn << 8, 0, psn << 8)
    m += struct.pack("!BBBB", 16, 16, (15 << 3) | 1, 7 << 5)
    m += struct.pack("!Q", TARGET_GUID)
    return m + priv


def cm_rtu(local_id, remote_id):
    return struct.pack("!II", local_id, remote_id)


def keyed_sgl(addr, length, key, invalidate=False):
    return struct.pack("<Q", addr) + length.to_bytes(3, "little") + struct.pack(
        "<I", key) + bytes([0x4f if invalidate else 0x40])


def offset_sgl(length):
    return struct.pack("<QI", 0, length) + bytes(3) + bytes([0x01])


def sqe(opcode, cid, nsid, sgl, cdw10_15=b"", psdt=0x40, fctype=None):
    head = struct.pack("<BBHI", opcode, psdt, cid, nsid)
    if fctype is not None:           # a Fabrics command: FCTYPE at byte 4
        head = struct.pack("<BBHB", opcode, psdt, cid, fctype) + bytes(3)
    body = head + bytes(16) + sgl + cdw10_15
    return body + bytes(64 - len(body))


def cqe(result, sqhd, sqid, cid, status):
    return struct.pack("<QHHHH", result, sqhd, sqid, cid, status)


class Queue:
    """One NVMe-oF queue: an RC QP pair and its PSNs."""

    def __init__(self, wire, host_qp, target_qp, host_psn, target_psn, sport, qid):
        self.wire, self.host_qp, self.target_qp = wire, host_qp, target_qp
        self.psn = {True: host_psn, False: target_psn}
        self.sport, self.qid, self.sqhd = sport, qid, 0

    def rc(self, from_host, opcode, rest, ack=True):
        """One RC packet, and the peer's ACK when ack."""
        dest = self.target_qp if from_host else self.host_qp
        psn = self.psn[from_host]
        self.wire.send(from_host, bth(opcode, dest, psn, ack_req=ack) + rest, self.sport)
        self.psn[from_host] = (psn + 1) & 0xffffff
        if ack:
            back = self.host_qp if from_host else self.target_qp
            self.wire.send(not from_host, bth(ACKNOWLEDGE, back, psn) +
                           struct.pack("!I", (0x1f << 24) | (psn + 1) & 0xffffff), self.sport)

    def command(self, capsule):
        self.rc(True, SEND_ONLY, capsule)

    def response(self, result, cid, status=0):
        self.sqhd += 1
        self.rc(False, SEND_ONLY, cqe(result, self.sqhd, self.qid, cid, status))


def connect_data():
    d = HOSTID + struct.pack("<H", 0xffff) + bytes(238)
    d += SUBNQN + bytes(256 - len(SUBNQN)) + HOSTNQN + bytes(256 - len(HOSTNQN))
    return d + bytes(1024 - len(d))


def connect(q, cid, sqsize, kato):
    cmd = sqe(0x7f, cid, 0, offset_sgl(1024),
              struct.pack("<HHHBBI", 0, q.qid, sqsize, 0, 0, kato), fctype=0x01)
    q.command(cmd + connect_data())
    q.response(CNTLID, cid)


def identify_controller():
    d = bytearray(4096)
    struct.pack_into("<HH", d, 0, 0x15b3, 0x15b3)           # VID, SSVID
    d[4:24] = b"roceshark0001       "                        # serial number
    d[24:64] = b"Linux".ljust(40)                            # model number
    d[64:72] = b"6.1.0   "                                   # firmware revision
    struct.pack_into("<H", d, 78, CNTLID)                    # CNTLID
    struct.pack_into("<I", d, 80, 0x00010300)                # VER 1.3
    d[768:768 + len(SUBNQN)] = SUBNQN
    return bytes(d)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    args = ap.parse_args()
    wire = Wire(args.out)
    cm_psn = {True: 0x10, False: 0x20}

    def cm(from_host, attr, tid, message):
        psn = cm_psn[from_host]
        cm_psn[from_host] += 1
        deth = struct.pack("!II", CM_QKEY, 1)
        wire.send(from_host, bth(UD_SEND_ONLY, 1, psn) + deth + mad_cm(attr, tid, message),
                  0xc000 + from_host)

    queues = []
    for qid, (host_qp, target_qp, sport) in enumerate([(0x0011, 0x0021, 0xc101),
                                                        (0x0012, 0x0022, 0xc102)]):
        local, remote, tid = 0x1000 + qid, 0x2000 + qid, 0x4000 + qid
        host_psn, target_psn = 0x100000 * (qid + 1), 0x200000 * (qid + 1)
        sizes = (32, 31) if qid == 0 else (128, 127)
        cm(True, CM_REQ, tid, cm_req(local, host_qp, host_psn, qid, sizes[0], sizes[1],
                                     0x9000 + qid))
        cm(False, CM_REP, tid, cm_rep(remote, local, target_qp, target_psn, sizes[0]))
        cm(True, CM_RTU, tid, cm_rtu(local, remote))
        queues.append(Queue(wire, host_qp, target_qp, host_psn, target_psn, sport, qid))

    admin, io = queues
    connect(admin, 0x0001, 31, 120000)
    # Property Get: CAP (offset 0), 8 bytes (ATTRIB 1).
    admin.command(sqe(0x7f, 0x0002, 0, bytes(16), struct.pack("<BBBBI", 1, 0, 0, 0, 0),
                      fctype=0x04))
    admin.response(0x0000_0020_0f01_03ff, 0x0002)
    # Identify Controller (CNS 1): the target writes 4096 bytes, then answers.
    addr, key = 0x0000_7f3a_1000_0000, 0x00012345
    admin.command(sqe(0x06, 0x0003, 0, keyed_sgl(addr, 4096, key), struct.pack("<I", 1)))
    admin.rc(False, RDMA_WRITE_ONLY, struct.pack("!QII", addr, key, 4096) +
             identify_controller(), ack=False)
    admin.response(0, 0x0003)

    connect(io, 0x0001, 127, 0)
    nblocks = 8
    # Read of 8 blocks at LBA 0x2000: the target writes them, then answers.
    addr, key = 0x0000_7f3a_2000_0000, 0x00022222
    io.command(sqe(0x02, 0x0010, 1, keyed_sgl(addr, nblocks * BLOCK, key),
                   struct.pack("<QI", 0x2000, nblocks - 1)))
    io.rc(False, RDMA_WRITE_ONLY, struct.pack("!QII", addr, key, nblocks * BLOCK) +
          bytes((i * 7) & 0xff for i in range(nblocks * BLOCK)), ack=False)
    io.response(0, 0x0010)
    # Write of 8 blocks at LBA 0x3000: the target reads them from the host.
    addr, key = 0x0000_7f3a_3000_0000, 0x00033333
    io.command(sqe(0x01, 0x0011, 1, keyed_sgl(addr, nblocks * BLOCK, key, invalidate=True),
                   struct.pack("<QI", 0x3000, nblocks - 1)))
    read_psn = io.psn[False]
    io.rc(False, RDMA_READ_REQUEST, struct.pack("!QII", addr, key, nblocks * BLOCK),
          ack=False)
    io.psn[True], saved = read_psn, io.psn[True]
    io.wire.send(True, bth(READ_RESPONSE_ONLY, io.target_qp, read_psn) +
                 struct.pack("!I", (0x1f << 24) | 0) +
                 bytes((i * 13) & 0xff for i in range(nblocks * BLOCK)), io.sport)
    io.psn[True] = saved
    io.response(0, 0x0011)
    # A Read past the end: LBA Out of Range (SCT 0, SC 0x80) with Do Not Retry.
    io.command(sqe(0x02, 0x0012, 1, keyed_sgl(addr, BLOCK, key),
                   struct.pack("<QI", 0xffff_ffff_0000, 0)))
    io.response(0, 0x0012, status=(1 << 15) | (0x80 << 1))
    wire.close()


if __name__ == "__main__":
    main()
